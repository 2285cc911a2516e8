package org.cfx;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Loads the JNI shim and declares its hand-written entry points (src/main/c/cfx_jni.c): the
 * functions of include/cfx.h that bindings/gen/overrides_java.toml keeps by hand. Every other C
 * function is declared in the generated {@link NativeGenerated}. Package private: the public
 * classes check arguments, keep handles alive around each call and turn results into Java values.
 * Handles are {@code long}; strings cross as UTF-8 byte arrays (NUL-terminated on the way in).
 *
 * <p>Loading checks {@code cfx_abi_version()} against {@link #BUILT_FOR_ABI} and refuses a
 * mismatch with an {@link UnsatisfiedLinkError} that says what to do.
 */
final class Native {
    /** The C ABI this binding was written for ({@code CFX_ABI_VERSION} in include/cfx.h). */
    static final int BUILT_FOR_ABI = 2;

    static final int KIND_SCHEMA = 0;
    static final int KIND_DATASET = 1;
    static final int KIND_MODEL = 2;
    static final int KIND_CONFIG = 3;
    static final int KIND_CONFIG_BUILDER = 4;
    static final int KIND_SCHEMA_BUILDER = 5;
    static final int KIND_NOISE = 6;
    static final int KIND_ESTIMATOR = 7;
    static final int KIND_WORKSPACE = 8;
    static final int KIND_ROBUST_RESULT = 9;
    static final int KIND_COHERENT_RESULT = 10;
    static final int KIND_POLICY = 11;
    static final int KIND_PLAN = 12;
    static final int KIND_UNCERTAINTY = 13;
    static final int KIND_COPA_RESULT = 14;
    static final int KIND_COHERENT_BATCH = 15;
    static final int KIND_SCORECARD_IMPORT = 16;
    static final int KIND_PLAUSIBILITY = 17;
    static final int KIND_PORTFOLIO_SUMMARY = 18;
    static final int KIND_WAITING_ADVICE = 19;
    static final int KIND_NOTICE = 20;

    /** Where the jar built by {@code make java} keeps the JNI shim and libcfx. */
    static final String JAR_NATIVE_DIR = "/org/cfx/native/";

    /** Where that jar keeps the bundled data (examples/data/german_credit.csv, german_scorecard_table.csv). */
    static final String JAR_DATA_DIR = "/org/cfx/data/";

    static {
        String explicit = System.getProperty("cfx.jni.library");
        if (explicit != null && !explicit.isEmpty()) {
            System.load(explicit);
        } else {
            loadShim();
        }
        checkAbi(abiVersion(), headerAbiVersion(), BUILT_FOR_ABI);
    }

    /**
     * Loads {@code libcfx_jni} (which needs {@code libcfx.so.<ABI>}) from {@code java.library.path}
     * and the system's library path; failing that, from inside the jar. The jar's copies go to a
     * fresh temporary folder laid out like an installed prefix: {@code lib/} with libcfx (loaded
     * first, so the shim's dependency on it is already met) and the shim, deleted once loaded, and
     * {@code share/cfx/} with the bundled German credit data and its points scorecard, which libcfx
     * finds there beside itself ({@code Dataset.loadGerman(null)},
     * {@code ScorecardImport.loadGerman(schema, null)}), deleted when the JVM exits.
     */
    private static void loadShim() {
        try {
            System.loadLibrary("cfx_jni");
            return;
        } catch (UnsatisfiedLinkError onPath) {
            String dir = JAR_NATIVE_DIR + platform() + "/";
            if (Native.class.getResource(dir + "libcfx_jni.so") == null) {
                throw onPath;
            }
            try {
                loadFromJar(dir);
            } catch (IOException | UnsatisfiedLinkError fromJar) {
                UnsatisfiedLinkError e = new UnsatisfiedLinkError(
                        "cfx: the JNI shim is neither on java.library.path ("
                                + onPath.getMessage()
                                + ") nor loadable from the jar: "
                                + fromJar);
                e.initCause(fromJar);
                throw e;
            }
        }
    }

    private static void loadFromJar(String dir) throws IOException {
        Path prefix = Files.createTempDirectory("cfx-native");
        prefix.toFile().deleteOnExit();
        String german = JAR_DATA_DIR + "german_credit.csv";
        if (Native.class.getResource(german) != null) {
            Path share = Files.createDirectories(prefix.resolve("share/cfx"));
            share.getParent().toFile().deleteOnExit();
            share.toFile().deleteOnExit();
            extract(german, share.resolve("german_credit.csv")).toFile().deleteOnExit();
            String card = JAR_DATA_DIR + "german_scorecard_table.csv";
            if (Native.class.getResource(card) != null) {
                extract(card, share.resolve("german_scorecard_table.csv")).toFile().deleteOnExit();
            }
        }
        Path lib = Files.createDirectories(prefix.resolve("lib"));
        try {
            String libcfx = "libcfx.so." + BUILT_FOR_ABI;
            if (Native.class.getResource(dir + libcfx) != null) {
                System.load(extract(dir + libcfx, lib.resolve(libcfx)).toString());
            }
            System.load(extract(dir + "libcfx_jni.so", lib.resolve("libcfx_jni.so")).toString());
        } finally {
            // Loaded libraries stay mapped after their files are gone (Linux).
            try (var files = Files.list(lib)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    Files.deleteIfExists(f);
                }
            }
            Files.deleteIfExists(lib);
        }
    }

    private static Path extract(String resource, Path to) throws IOException {
        try (InputStream in = Native.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IOException("no " + resource + " in the jar");
            }
            Files.copy(in, to);
        }
        return to;
    }

    /** {@code linux-x86_64} style: the folder of the jar's native libraries for this JVM. */
    static String platform() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (os.startsWith("linux")) {
            os = "linux";
        }
        if (arch.equals("amd64") || arch.equals("x86_64")) {
            arch = "x86_64";
        } else if (arch.equals("aarch64") || arch.equals("arm64")) {
            arch = "aarch64";
        }
        return os + "-" + arch;
    }

    private Native() {}

    /**
     * Refuses a library whose ABI differs from the one this binding (and its JNI shim) was built
     * for. Separate from the loader so the refusal can be tested.
     */
    static void checkAbi(int libraryAbi, int shimAbi, int bindingAbi) {
        if (libraryAbi != bindingAbi || shimAbi != bindingAbi) {
            throw new UnsatisfiedLinkError(
                    "cfx: ABI version mismatch: the native library libcfx reports ABI "
                            + libraryAbi
                            + ", the JNI shim was compiled against ABI "
                            + shimAbi
                            + ", but this Java binding was built for ABI "
                            + bindingAbi
                            + "; rebuild bindings/java against the installed include/cfx.h"
                            + " or install the libcfx it was built for");
        }
    }

    /** Forces loading (and the ABI check). */
    static void load() {}

    // ------------------------------------------------------------ free tracking (tests)

    /** When true, every free is counted per wrapper id (tests of "exactly once"). */
    static volatile boolean trackFrees;

    static final Map<Long, AtomicInteger> FREE_COUNTS = new ConcurrentHashMap<>();
    static final Map<Long, String> FREE_THREADS = new ConcurrentHashMap<>();

    static void recordFree(long id) {
        if (trackFrees) {
            FREE_COUNTS.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
            FREE_THREADS.put(id, Thread.currentThread().getName());
        }
    }

    // ------------------------------------------------------------- kept by hand (cfx_jni.c)
    // Every other C function is declared in the generated NativeGenerated; the functions kept by
    // hand are listed with their reasons in bindings/gen/overrides_java.toml.

    /** {@code cfx_abi_version}: read by the static initializer, so it must not load NativeGenerated. */
    static native int abiVersion();

    /** {@code CFX_ABI_VERSION} of the header the shim was compiled against. */
    static native int headerAbiVersion();

    static native boolean hasTestingPanic();

    /** Whether the shim was compiled against a header with the robustness entry points. */
    static native boolean hasRobust();

    /** Whether the shim was compiled against a header with the coherent (MIP) entry points. */
    static native boolean hasCoherent();

    /** Whether the shim was compiled against a header with the COPA entry points. */
    static native boolean hasCopa();

    /** Whether the shim was compiled against a header with cfx_copa_correct. */
    static native boolean hasCopaCorrect();

    /** Whether the shim was compiled against a header with cfx_coherent_explain_batch. */
    static native boolean hasCoherentBatch();

    /** Whether the shim was compiled against a header with the sequential (policy) entry points. */
    static native boolean hasSequential();

    /** {@code cfx_last_error_message} of this thread (tests of the error slot). */
    static native byte[] lastErrorMessage();

    /**
     * {@code cfx_model_probability_batch} over rows [xOffset/dim, +nRows) of {@code x} into
     * {@code out[outOffset, +nRows)}; the caller has checked every bound.
     */
    static native void modelProbabilityBatch(
            long m, double[] x, long xOffset, long nRows, double[] out, long outOffset);

    /** {@code cfx_portfolio_explain}: {rows, accepted, declined, with recourse, errors} into out5. */
    static native void portfolioExplain(
            long schema,
            long m,
            long config,
            byte[] input,
            byte[] output,
            byte[][] ignore,
            long threads,
            Portfolio.ProgressListener listener,
            long[] out5);

    /** {@code cfx_policy_train} with an optional progress listener. */
    static native long policyTrain(long train, long m, long config, int reward, Sequential.Listener listener);

    // ------------------------------------------------------------------------- free

    /** Frees a handle of the given kind (KIND_* above) with its cfx {@code _free} function. */
    static void free(int kind, long h) {
        switch (kind) {
            case KIND_SCHEMA -> NativeGenerated.schemaFree(h);
            case KIND_DATASET -> NativeGenerated.datasetFree(h);
            case KIND_MODEL -> NativeGenerated.modelFree(h);
            case KIND_CONFIG -> NativeGenerated.configFree(h);
            case KIND_CONFIG_BUILDER -> NativeGenerated.configBuilderFree(h);
            case KIND_SCHEMA_BUILDER -> NativeGenerated.schemaBuilderFree(h);
            case KIND_NOISE -> NativeGenerated.noiseFree(h);
            case KIND_ESTIMATOR -> NativeGenerated.estimatorFree(h);
            case KIND_WORKSPACE -> NativeGenerated.workspaceFree(h);
            case KIND_ROBUST_RESULT -> NativeGenerated.robustResultFree(h);
            case KIND_COHERENT_RESULT -> NativeGenerated.coherentResultFree(h);
            case KIND_POLICY -> NativeGenerated.policyFree(h);
            case KIND_PLAN -> NativeGenerated.planFree(h);
            case KIND_UNCERTAINTY -> NativeGenerated.uncertaintyFree(h);
            case KIND_COPA_RESULT -> NativeGenerated.copaResultFree(h);
            case KIND_COHERENT_BATCH -> NativeGenerated.coherentBatchFree(h);
            case KIND_SCORECARD_IMPORT -> NativeGenerated.scorecardImportFree(h);
            case KIND_PLAUSIBILITY -> NativeGenerated.plausibilityFree(h);
            case KIND_PORTFOLIO_SUMMARY -> NativeGenerated.portfolioSummaryFree(h);
            case KIND_WAITING_ADVICE -> NativeGenerated.waitingAdviceFree(h);
            case KIND_NOTICE -> NativeGenerated.noticeFree(h);
            default -> throw new IllegalArgumentException("no handle kind " + kind);
        }
    }
}
