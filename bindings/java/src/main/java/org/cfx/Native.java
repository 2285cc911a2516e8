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
 * The JNI entry points (src/main/c/cfx_jni.c), one per C function of include/cfx.h. Package
 * private: the public classes check arguments, keep handles alive around each call and turn
 * results into Java values. Handles are {@code long}; strings cross as UTF-8 byte arrays
 * (NUL-terminated on the way in).
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

    // ------------------------------------------------------------------------ version

    static native int abiVersion();

    static native int headerAbiVersion();

    static native int versionMajor();

    static native int versionMinor();

    static native int versionPatch();

    static native String versionString();

    static native String statusName(int status);

    static native boolean hasTestingPanic();

    static native void testingPanic();

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

    static native byte[] lastErrorMessage();

    static native void free(int kind, long handle);

    // ------------------------------------------------------------------------- config

    static native long configBuilderNew();

    static native void cbSetTimeLimit(long b, double seconds);

    static native void cbSetThreads(long b, long threads);

    static native void cbSetMipGap(long b, double gap);

    static native void cbSetMargin(long b, double margin);

    static native void cbSetNDiverse(long b, long n);

    static native void cbSetDiversityRule(long b, int rule);

    static native void cbSetSolver(long b, int solver);

    static native void cbSetNodeLimit(long b, long nodes);

    static native void cbSetNSamples(long b, long k);

    static native void cbSetBoundM(long b, double m);

    static native void cbSetTarget(long b, double target, double epsilon);

    static native void cbSetSeed(long b, long seed);

    static native void cbSetCopaWeights(long b, double robust, double diversity);

    static native void cbSetCopaRadius(long b, double rho);
    static native void cbSetRobustAdvice(long b, double sigma2, double invalidationTarget);
    static native double coherentInvalidationRate(long r, long k);
    static native long plausibilityFit(long schema, double[] rows, long nRows, double[] labels);
    static native void plausibilityAssess(long p, double[] factual, double[] advice, int[] outFlags,
            double[] outDistances);

    static native void cbSetRlEpisodes(long b, long episodes, long maxSteps);

    static native void cbSetRlTraining(
            long b, double discount, double lrActor, double lrParam, long batch, long capacity);

    static native void cbSetRlExploration(long b, double start, double end);

    static native void cbSetRlHidden(long b, long[] hidden);

    static native long configBuild(long b);

    static native byte[] configToJson(long config);

    // ------------------------------------------------------------------------ dataset

    static native long datasetLoadGerman(byte[] path);

    static native long datasetLoadHeloc(byte[] path);

    static native long datasetLoadTaiwan(byte[] path);

    static native long datasetFromCsv(long schema, byte[] path, byte[] target, byte[] favourable);

    static native long datasetFromCsvEx(
            long schema, byte[] path, byte[] target, byte[] favourable, byte delimiter, boolean hasHeader);

    static native long datasetNRows(long d);

    static native long datasetSchema(long d);

    static native long datasetFittedSchema(long d);

    static native long datasetInferCsv(
            byte[] path,
            byte[] target,
            byte[] favourable,
            byte delimiter,
            boolean hasHeader,
            byte[][] drop,
            byte[][] categorical,
            double[] specialCodes,
            byte[][] specialLabels,
            byte[][] specialColumns);

    static native void datasetRow(long d, long index, double[] out);

    static native double datasetLabel(long d, long index);

    static native void datasetHoldoutSplit(long d, long[] out2);

    // --------------------------------------------------------------- scorecard import

    /** {@code cfx_scorecard_import_csv_with_options} ({@code options} is the JSON object). */
    static native long scorecardImportWithOptions(long schema, int format, byte[] csv, byte[] options);

    /** {@code cfx_scorecard_import_path} when {@code fromPath}, else {@code _csv} ({@code text} is the CSV). */
    static native long scorecardImport(
            long schema,
            int format,
            byte[] text,
            boolean fromPath,
            double cutoff,
            boolean hasScaling,
            double factor,
            double offset);

    /** {@code cfx_scorecard_load_german} ({@code path} null: the bundled table). */
    static native long scorecardLoadGerman(long schema, byte[] path);

    static native long scorecardImportModel(long imp);

    static native byte[] scorecardImportReport(long imp);

    // -------------------------------------------------------------------------- model

    static native long modelLinearNew(double[] weights, double bias, double threshold);

    static native long modelFromJson(long schema, byte[] json);

    static native byte[] modelToJson(long m);

    static native byte[] modelFingerprint(long m);

    static native long modelFitLinear(long dataset, double c);

    static native long modelTrainMlp(
            long dataset, long[] hidden, long epochs, long batch, double lr, double l2, long seed);

    static native long modelFromXgboostJson(long schema, byte[] json, byte[] options);

    static native long modelFromXgboostFile(long schema, byte[] path, byte[] options);

    static native long modelFromLightgbmText(long schema, byte[] text, byte[] options);

    static native long modelFromLightgbmFile(long schema, byte[] path, byte[] options);

    static native int modelKind(long m);

    static native long modelInputDim(long m);

    static native double modelThreshold(long m);

    static native void modelPredict(long m, double[] x, double[] out3);

    static native void modelPredictRaw(long m, long schema, double[] raw, double[] out3);

    static native void modelProbabilityBatch(
            long m, double[] x, long xOffset, long nRows, double[] out, long outOffset);

    // ------------------------------------------------------------------------- schema

    static native long schemaFromJson(byte[] json);

    static native byte[] schemaToJson(long s);

    static native byte[] schemaFingerprint(long s);

    static native long schemaNFeatures(long s);

    static native long schemaEncodedDim(long s);

    static native byte[] schemaFeatureName(long s, long index);

    static native long schemaIndexOf(long s, byte[] name);

    static native void schemaEncode(long s, double[] raw, double[] out);

    static native void schemaDecode(long s, double[] x, double[] out);

    static native byte[] schemaDescribeChanges(long s, double[] from, double[] to);

    static native long schemaFitWeights(long s, double[] rows, long nRows, long nCols);

    static native int schemaWeightsKind(long s);

    static native long schemaAdvicePreset(long s, int preset, double waitingCostPerMonth);

    // ----------------------------------------------------------------- schema builder

    static native long schemaBuilderNew();

    static native void sbAddContiguous(long b, byte[] name, double lower, double upper, boolean integer);

    static native void sbAddCategorical(long b, byte[] name, byte[][] levels);

    static native void sbAddSpecialState(long b, double code, byte[] label);

    static native void sbSetActionability(long b, boolean mutable, int direction);

    static native void sbSetActionableBounds(long b, double lower, double upper);

    static native void sbSetCostScale(long b, double costScale);

    static native void sbAddForbiddenTransition(long b, byte[] from, byte[] to);

    static native void sbSetStep(long b, double step);

    static native void sbSetLevelOrder(long b, byte[][] levels);

    static native void sbSetChangeLimits(long b, int increaseKind, double maxIncrease, int decreaseKind, double maxDecrease);

    static native void sbSetTimeGrowth(long b, double perMonth, byte[] endsIn);

    static native void sbSetWaiting(long b, double costPerMonth, long maxMonths);

    static native long schemaBuild(long b);

    // ------------------------------------------------------------------------- robustness

    static native long noiseGaussianNew(long schema, double sigma2);

    static native long noiseNew(int kind, long[] columns, double[] scale);

    static native long estimatorNew(long noise, long k, int sampling);

    static native long workspaceNew(long model, long seed);

    static native void workspaceReseed(long ws, long seed);

    static native void estimatorEstimate(long e, long m, long ws, double[] x, double[] out4);

    static native void estimatorBound(long e, long m, long ws, double[] x, double mm, double[] out3);

    static native double estimatorProbeRate(long e, long m, long ws, double[] x);

    static native double estimatorExactRate(long e, long m, double[] x);

    static native void estimatorEstimateBatch(
            long e, long m, double[] points, long nPoints, long seed, long threads, double[] gamma, double[] theta);

    static native long robustGenerate(long schema, long m, long noise, int method, long config, double[] raw);

    static native void robustResultSummary(long r, double[] out8);

    static native void robustResultRaw(long r, double[] out);

    static native void robustResultEncoded(long r, double[] out);

    static native byte[] robustResultToJson(long r, long schema, long m);

    static native int robustResultAdviceStatus(long r);

    static native double[] robustResultAdviceRaw(long r);

    static native byte[] robustResultAdviceDescribe(long r);

    static native double robustBoundConfidence(long k, double m);

    // --------------------------------------------------------------------------- coherent

    static native long coherentExplain(long schema, long m, long config, double[] row, boolean diverse);

    static native void coherentOutcome(long r, long[] out2);

    static native long coherentCount(long r);

    static native int coherentProvedBy(long r);

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

    static native long portfolioSummarize(long schema, byte[] input, byte[] output, byte[] group, double[] edges);

    static native long portfolioSummaryNGroups(long s);

    static native void portfolioSummaryCounts(long s, long group, double[] out8);

    static native void portfolioSummaryCostQuantiles(long s, long group, double[] out9);

    static native byte[] portfolioSummaryGroupName(long s, long group);

    static native byte[] portfolioSummaryDescribe(long s, long top);

    static native byte[] portfolioSummaryToJson(long s);

    static native void portfolioSummaryWriteSvg(long s, byte[] title, long top, byte[] path);

    static native double[] coherentCounterfactual(long r, long k);

    static native void coherentCertificate(long r, long k, double[] out6);

    static native byte[] coherentDescribe(long r);

    static native byte[] coherentToJson(long r);

    static native long waitingExplain(long schema, long m, long config, double[] row);

    static native int waitingOutcome(long a);

    static native boolean waitingProven(long a);

    static native void waitingSummary(long a, double[] out4);

    static native double[] waitingRow(long a, boolean finalRow);

    static native byte[] waitingDescribe(long a);

    static native byte[] waitingToJson(long a);

    static native long coherentExplainBatch(long schema, long m, long config, double[] rows, long nRows);

    static native long coherentBatchCount(long b);

    static native int coherentBatchStatus(long b, long i);

    static native byte[] coherentBatchError(long b, long i);

    static native long coherentBatchResult(long b, long i);

    static native byte[] coherentBatchToJson(long b);

    // ------------------------------------------------------------------------- sequential

    static native long policyTrain(long train, long m, long config, int reward, Sequential.Listener listener);

    static native long policyFromJson(byte[] json);

    static native byte[] policyToJson(long p);

    static native void policySave(long p, byte[] path);

    static native long policyLoad(byte[] path);

    static native long policyNActions(long p);

    static native long policyAnswer(long p, long schema, long m, double[] raw);

    static native void policyEvaluate(long p, long m, long test, double[] out7);

    static native long planNSteps(long plan);

    static native void planSuccess(long plan, double[] out2);

    static native void planStep(long plan, long index, double[] out4);

    static native byte[] planStepText(long plan, long index);

    static native byte[] planToJson(long plan);

    // ------------------------------------------------------------------------------- COPA

    static native long uncertaintyNew(double[] mean, double[] cov);

    static native long uncertaintyFromDataset(long train, long refits, long seed);

    static native long uncertaintyDim(long u);

    static native void copaBounds(long u, double[] options, long nOptions, long dim, double rho, double[] out4);

    static native long copaPlanNew(long schema, long u, long config, double[] raw);

    static native long copaPlanNewChecked(long schema, long u, long m, long config, double[] raw);

    static native int copaOptionAdviceStatus(long r, long k);

    static native double[] copaOptionAdviceRaw(long r, long k);

    static native long copaNOptions(long r);

    static native double[] copaOptionRaw(long r, long k);

    static native void copaMetrics(long r, double[] out5);

    static native byte[] copaDescribe(long r);

    static native byte[] copaToJson(long r);

    static native double[] copaCorrect(
            long u, double[] options, long nOptions, long dim, double rho, double delta, double[] out2);

    // -------------------------------------------- advice ledger and re-validation (issue 28)

    static native byte[] ledgerRecordFromResult(long result, long robust, byte[] id, byte[] issued, byte[] group);

    static native byte[] ledgerRecordFromResultAt(
            long result, long k, long robust, byte[] id, byte[] issued, byte[] group);

    static native byte[] ledgerRecordFromAdvice(long advice, byte[] id, byte[] issued, byte[] group);

    static native byte[] revalidateRecord(long schema, long model, long config, byte[] record);

    static native byte[] revalidateLedger(
            long schema, long model, long config, byte[] input, byte[] output, long threads, long chunkRows);

    /** {report JSON, report HTML page}; {@code title} may be null (the default title). */
    static native byte[][] revalidateLedgerWithHtml(
            long schema,
            long model,
            long config,
            byte[] input,
            byte[] output,
            long threads,
            long chunkRows,
            byte[] title);
}
