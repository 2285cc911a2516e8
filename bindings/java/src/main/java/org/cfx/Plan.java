package org.cfx;

import java.lang.ref.Reference;

/** A policy's plan for one applicant ({@code cfx_plan}). Immutable, thread-safe. */
public final class Plan extends NativeResource {
    /** One step: the raw feature index, its value before and after, the probability after. */
    public record Step(int feature, double from, double to, double probability) {}

    Plan(long handle) {
        super(Native.KIND_PLAN, handle);
    }

    /** The number of steps (0 when the applicant is already accepted). */
    public int nSteps() {
        try {
            return Math.toIntExact(NativeGenerated.planNSteps(handle()));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    private double[] success() {
        double[] o = new double[2];
        try {
            NativeGenerated.planSuccess(handle(), o);
        } finally {
            Reference.reachabilityFence(this);
        }
        return o;
    }

    /** Whether the plan ends accepted (or the applicant already was). */
    public boolean succeeded() {
        return success()[0] != 0;
    }

    /** The probability before any step. */
    public double initialProbability() {
        return success()[1];
    }

    public Step step(int index) {
        double[] o = new double[4];
        try {
            NativeGenerated.planStep(handle(), Utf8.index(index, "step"), o);
        } finally {
            Reference.reachabilityFence(this);
        }
        return new Step((int) o[0], o[1], o[2], o[3]);
    }

    /** Step {@code index} in the data's own words, {@code "<feature>: <from> → <to>"}. */
    public String stepText(int index) {
        try {
            return Utf8.str(NativeGenerated.planStepText(handle(), Utf8.index(index, "step")));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Versioned result JSON (kind "sequential_plan"). */
    public String toJson() {
        try {
            return Utf8.str(NativeGenerated.planToJson(handle()));
        } finally {
            Reference.reachabilityFence(this);
        }
    }
}
