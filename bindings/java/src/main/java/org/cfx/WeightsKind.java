package org.cfx;

/** Which distance weights a schema carries ({@code cfx_weights_kind}); see {@link Schema#weightsKind()}. */
public enum WeightsKind {
    /** No feature has weights: costs use unit weights (fit them: {@link Dataset#fittedSchema()}). */
    UNIT(0),
    /** Every feature has weights (fitted on data, or given in the schema's JSON). */
    FITTED(1),
    /** Some features have weights, the others use unit weights. */
    MIXED(2);

    final int code;

    WeightsKind(int code) {
        this.code = code;
    }

    static WeightsKind of(int code) {
        for (WeightsKind k : values()) {
            if (k.code == code) {
                return k;
            }
        }
        throw new IllegalStateException("unknown cfx_weights_kind " + code);
    }
}
