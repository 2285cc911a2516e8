package org.cfx.examples;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.cfx.Coherent;
import org.cfx.CoherentResult;
import org.cfx.Dataset;
import org.cfx.Model;
import org.cfx.Schema;

/**
 * The path to scale: one model handle, many threads.
 *
 * <p>Fits the logistic model on the German credit training part, builds a large batch of
 * applicants (the 1,000 German applicants repeated), and lets a thread pool score disjoint slices
 * of the batch in place through the same {@code Model} (cfx models are immutable and
 * thread-safe; each slice is pinned, not copied). Each thread then explains its declined
 * applicants in the data's own words: the smallest change of the loan duration that the model
 * would accept, with the decision re-checked by the library. The parallel result is compared bit
 * for bit with a single-threaded pass.
 *
 * <p>Run: {@code java -cp build/classes -Djava.library.path=build/native
 * org.cfx.examples.ParallelBatch [copies] [threads]}.
 */
public final class ParallelBatch {
    private ParallelBatch() {}

    /** Outcome of one slice: declined count and the explanations found. */
    private record Slice(int declined, int explained, String firstExplanation) {}

    /** What a run found. */
    public record Result(
            int applicants,
            int threads,
            int declined,
            int explained,
            String example,
            boolean sameAsOneThread,
            double seconds,
            int optimalExplained,
            String optimalExample) {}

    /** Declined applicants explained by the optimal (MIP) method, when the library has it. */
    static final int OPTIMAL_EXPLANATIONS = 40;

    public static void main(String[] args) throws Exception {
        int copies = args.length > 0 ? Integer.parseInt(args[0]) : 100;
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : Runtime.getRuntime().availableProcessors();
        Result r = run(System.getProperty("cfx.german"), copies, threads); // null path: bundled copy
        System.out.printf(
                "%d applicants scored and explained by %d threads sharing one model handle%n",
                r.applicants(), r.threads());
        System.out.printf(
                "declined: %d (%.1f%%); accepted with a shorter loan alone: %d%n",
                r.declined(), 100.0 * r.declined() / r.applicants(), r.explained());
        System.out.println("e.g. " + r.example());
        if (r.optimalExample() != null) {
            System.out.printf("optimal coherent counterfactuals (MIP) of the first declined: %d%n", r.optimalExplained());
            System.out.println("e.g. " + r.optimalExample().replace("\n", "\n     "));
        }
        System.out.printf(
                "parallel probabilities identical to one thread: %s (%.2f s)%n", r.sameAsOneThread(), r.seconds());
        if (!r.sameAsOneThread()) {
            System.exit(1);
        }
    }

    /** Scores and explains {@code copies} × 1,000 German applicants on {@code threads} threads. */
    public static Result run(String path, int copies, int threads) throws Exception {
        try (Dataset german = Dataset.loadGerman(path);
                Schema schema = german.schema();
                Dataset.Split split = german.holdoutSplit();
                Model model = Model.fitLinear(split.train(), 1.0)) {
            double[][] raw = german.rows();
            int n = raw.length * copies;
            int dim = schema.encodedDim();
            double[][] batchRaw = new double[n][];
            double[] batch = new double[n * dim];
            double[] one = new double[dim];
            for (int i = 0; i < n; i++) {
                batchRaw[i] = raw[i % raw.length];
                schema.encodeInto(batchRaw[i], one);
                System.arraycopy(one, 0, batch, i * dim, dim);
            }
            double threshold = model.threshold();
            int duration = schema.indexOf("duration_in_month");

            // Reference: one thread, one call.
            double[] serial = model.probabilities(batch);

            // Parallel: slices of the same batch, written in place into one output array.
            double[] prob = new double[n];
            int chunk = 4096;
            long t0 = System.nanoTime();
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<Future<Slice>> parts = new ArrayList<>();
            try {
                for (int start = 0; start < n; start += chunk) {
                    int first = start;
                    int len = Math.min(chunk, n - start);
                    parts.add(pool.submit(() -> {
                        model.probabilitiesInto(batch, first, len, prob, first);
                        int declined = 0;
                        int explained = 0;
                        String firstText = null;
                        for (int i = first; i < first + len; i++) {
                            if (prob[i] > threshold) {
                                continue;
                            }
                            declined++;
                            double[] x = batchRaw[i];
                            // Shortest loan duration (in months, down to 4) that the model accepts.
                            for (double months = x[duration] - 1; months >= 4; months--) {
                                double[] y = x.clone();
                                y[duration] = months;
                                if (model.predictRaw(schema, y).accepted()) {
                                    explained++;
                                    if (firstText == null) {
                                        firstText = "applicant #" + (i % raw.length) + ": "
                                                + schema.describeChanges(x, y).strip();
                                    }
                                    break;
                                }
                            }
                        }
                        return new Slice(declined, explained, firstText);
                    }));
                }
                int declined = 0;
                int explained = 0;
                String example = null;
                for (Future<Slice> f : parts) {
                    Slice s = f.get();
                    declined += s.declined();
                    explained += s.explained();
                    if (example == null) {
                        example = s.firstExplanation();
                    }
                }
                double seconds = (System.nanoTime() - t0) / 1e9;

                // The optimal coherent counterfactuals (MIP) of the first declined applicants, also in
                // parallel on the shared handles, when this cfx has the coherent entry points.
                int optimal = 0;
                String optimalExample = null;
                if (Coherent.available()) {
                    List<Future<String>> explanations = new ArrayList<>();
                    for (int i = 0; i < raw.length && explanations.size() < OPTIMAL_EXPLANATIONS; i++) {
                        if (prob[i] > threshold) {
                            continue;
                        }
                        double[] applicant = raw[i];
                        int id = i;
                        explanations.add(pool.submit(() -> {
                            try (CoherentResult r = Coherent.explain(schema, model, null, applicant)) {
                                return r.count() > 0 ? "applicant #" + id + ": " + r.describe().strip() : null;
                            }
                        }));
                    }
                    for (Future<String> f : explanations) {
                        String text = f.get();
                        if (text != null) {
                            optimal++;
                            if (optimalExample == null) {
                                optimalExample = text;
                            }
                        }
                    }
                }
                return new Result(
                        n,
                        threads,
                        declined,
                        explained,
                        example,
                        java.util.Arrays.equals(serial, prob),
                        seconds,
                        optimal,
                        optimalExample);
            } finally {
                pool.shutdown();
            }
        }
    }
}
