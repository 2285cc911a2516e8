package org.cfx;

import java.lang.ref.Reference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** An immutable solver configuration ({@code cfx_config}), built with {@link #builder()}. Thread-safe. */
public final class Config extends NativeResource {
    Config(long handle) {
        super(Native.KIND_CONFIG, handle);
    }

    /** A builder with every setting unset (each method's defaults apply). */
    public static ConfigBuilder builder() {
        return new ConfigBuilder();
    }

    /** {@code "robust_advice": {"sigma2": x, "invalidation_target": y}} in the settings' JSON. */
    private static final Pattern ROBUST_ADVICE = Pattern.compile(
            "\"robust_advice\"\\s*:\\s*\\{\\s*\"sigma2\"\\s*:\\s*([-+0-9.eE]+)\\s*,"
                    + "\\s*\"invalidation_target\"\\s*:\\s*([-+0-9.eE]+)\\s*\\}");
    /** {@code "robust_box": "<name>"} in the settings' JSON ({@code cfx_robust_box}'s names). */
    private static final Pattern ROBUST_BOX = Pattern.compile("\"robust_box\"\\s*:\\s*\"(\\w+)\"");

    /**
     * The robust target of these settings as a ledger record's {@code robustness} object ({@code
     * {"sigma2":…,"invalidation_target":…}}, with {@code "box_kind":"reachable_values"} when the
     * robust box is that; the reals, the default, are not written), or null when they set no robust
     * advice. Read from the library's own JSON of the settings ({@link #toJson}), its numbers copied
     * as they are written there; a form this reader does not know throws {@link
     * IllegalStateException} rather than leaving the target out.
     */
    String robustnessJson() {
        String json = toJson();
        if (!json.contains("\"robust_advice\"")) return null;
        Matcher a = ROBUST_ADVICE.matcher(json);
        if (!a.find()) throw new IllegalStateException("cfx: unreadable robust_advice in the config JSON: " + json);
        StringBuilder o = new StringBuilder("{\"sigma2\":").append(a.group(1))
                .append(",\"invalidation_target\":").append(a.group(2));
        Matcher b = ROBUST_BOX.matcher(json);
        if (b.find()) {
            switch (b.group(1)) {
                case "Reals":
                    break;
                case "ReachableValues":
                    o.append(",\"box_kind\":\"reachable_values\"");
                    break;
                default:
                    throw new IllegalStateException("cfx: unknown robust_box in the config JSON: " + b.group(1));
            }
        } else if (json.contains("\"robust_box\"")) {
            throw new IllegalStateException("cfx: unreadable robust_box in the config JSON: " + json);
        }
        return o.append('}').toString();
    }

    /** The settings as JSON (unset settings are null). */
    public String toJson() {
        try {
            return Utf8.str(NativeGenerated.configToJson(handle()));
        } finally {
            Reference.reachabilityFence(this);
        }
    }
}
