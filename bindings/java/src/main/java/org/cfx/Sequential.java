package org.cfx;

import java.lang.ref.Reference;
import java.util.Objects;

/**
 * Sequential recourse: P-DQN policies (Panagiotou & Ntoutsi 2023) that plan step-by-step changes for declined
 * applicants. Available when the JNI shim was built against a cfx.h that declares them ({@link
 * #available()}).
 */
public final class Sequential {
    private Sequential() {}

    /** The reward a policy learns from ({@code cfx_reward_kind}). */
    public enum Reward {
        /** R^bin (Panagiotou & Ntoutsi 2023, eq. 2). */
        BINARY,
        /** R^prob (Panagiotou & Ntoutsi 2023, eq. 3). */
        PROBABILITY
    }

    /** Training progress. */
    public record Progress(
            long episodesDone, long episodesTotal, long steps, double epsilon, double successRate, double meanReward) {}

    /** Receives progress on the training thread; return false to stop (CANCELLED). */
    @FunctionalInterface
    public interface ProgressListener {
        boolean onProgress(Progress p);
    }

    /** Adapter called from C (flat arguments, no allocation in the shim). */
    static final class Listener {
        private final ProgressListener target;

        Listener(ProgressListener target) {
            this.target = target;
        }

        boolean onProgress(long done, long total, long steps, double eps, double success, double reward) {
            return target.onProgress(new Progress(done, total, steps, eps, success, reward));
        }
    }

    public static boolean available() {
        Native.load();
        return Native.hasSequential();
    }

    static void require() {
        if (!available()) {
            throw new UnsupportedOperationException(
                    "this cfx JNI shim was built against a cfx.h without the sequential entry points");
        }
    }

    /**
     * Trains a policy on the declined applicants of {@code train}; {@code config} (may be null)
     * supplies the RL settings and seed. A listener returning false cancels ({@link CfxException}
     * CANCELLED); an exception thrown by the listener stops training and propagates as is.
     */
    public static Policy train(
            Dataset train, Model model, Config config, Reward reward, ProgressListener listener) {
        Objects.requireNonNull(reward, "reward");
        require();
        try {
            long c = config == null ? 0 : config.handle();
            return new Policy(
                    Native.policyTrain(
                            train.handle(),
                            model.handle(),
                            c,
                            reward.ordinal(),
                            listener == null ? null : new Listener(listener)));
        } finally {
            Reference.reachabilityFence(train);
            Reference.reachabilityFence(model);
            Reference.reachabilityFence(config);
        }
    }
}
