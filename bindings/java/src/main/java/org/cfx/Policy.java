package org.cfx;

import java.lang.ref.Reference;
import java.util.Objects;

/** A trained P-DQN policy ({@code cfx_policy}). Immutable, thread-safe. */
public final class Policy extends NativeResource {
    /** Panagiotou & Ntoutsi 2023's metrics on a test set. */
    public record Metrics(
            long nInstances,
            long nAlreadyAccepted,
            double satisfiability,
            double sparsity,
            double distance,
            double targetProbability,
            double entropy) {}

    Policy(long handle) {
        super(Native.KIND_POLICY, handle);
    }

    public static Policy fromJson(String json) {
        Sequential.require();
        return new Policy(NativeGenerated.policyFromJson(Utf8.cstr(json, "json")));
    }

    public static Policy load(String path) {
        Sequential.require();
        return new Policy(NativeGenerated.policyLoad(Utf8.cstr(path, "path")));
    }

    public String toJson() {
        try {
            return Utf8.str(NativeGenerated.policyToJson(handle()));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    public void save(String path) {
        try {
            NativeGenerated.policySave(handle(), Utf8.cstr(path, "path"));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** The number of actions (the schema's mutable features). */
    public int nActions() {
        try {
            return Math.toIntExact(NativeGenerated.policyNActions(handle()));
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** The greedy plan for one applicant (a plan without success is a value, not an error). */
    public Plan answer(Schema schema, Model model, double[] raw) {
        Objects.requireNonNull(raw, "raw");
        try {
            return new Plan(NativeGenerated.policyAnswer(handle(), schema.handle(), model.handle(), raw));
        } finally {
            Reference.reachabilityFence(this);
            Reference.reachabilityFence(schema);
            Reference.reachabilityFence(model);
        }
    }

    /** Metrics on the declined applicants of {@code test}. */
    public Metrics evaluate(Model model, Dataset test) {
        double[] o = new double[7];
        try {
            NativeGenerated.policyEvaluate(handle(), model.handle(), test.handle(), o);
        } finally {
            Reference.reachabilityFence(this);
            Reference.reachabilityFence(model);
            Reference.reachabilityFence(test);
        }
        return new Metrics((long) o[0], (long) o[1], o[2], o[3], o[4], o[5], o[6]);
    }
}
