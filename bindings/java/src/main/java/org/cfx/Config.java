package org.cfx;

import java.lang.ref.Reference;

/** An immutable solver configuration ({@code cfx_config}), built with {@link #builder()}. Thread-safe. */
public final class Config extends NativeResource {
    Config(long handle) {
        super(Native.KIND_CONFIG, handle);
    }

    /** A builder with every setting unset (each method's defaults apply). */
    public static ConfigBuilder builder() {
        return new ConfigBuilder();
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
