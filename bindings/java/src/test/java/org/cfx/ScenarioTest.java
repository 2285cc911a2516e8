package org.cfx;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The shared scenario of examples/binding_scenario.rs, replayed through the C ABI and compared
 * with the Rust output in bindings/scenario_expected.txt: same fit, same numbers, bit for bit.
 */
class ScenarioTest {
    @Test
    void germanScenarioMatchesRustBitForBit() throws Exception {
        Map<String, String> exp = TestData.expected();
        assertEquals("german_credit", exp.get("dataset"));
        try (Dataset d = Dataset.loadGerman(TestData.germanPath());
                Schema schema = d.schema();
                Dataset.Split split = d.holdoutSplit();
                Model model = Model.fitLinear(split.train(), 1.0)) {
            Dataset test = split.test();
            assertEquals(Integer.parseInt(exp.get("n_rows")), d.nRows());
            assertEquals(Integer.parseInt(exp.get("n_train")), split.train().nRows());
            assertEquals(Integer.parseInt(exp.get("n_test")), test.nRows());
            assertEquals(Integer.parseInt(exp.get("n_features")), schema.nFeatures());
            assertEquals(Integer.parseInt(exp.get("encoded_dim")), schema.encodedDim());
            assertEquals(Integer.parseInt(exp.get("encoded_dim")), model.inputDim());
            assertEquals(Double.parseDouble(exp.get("threshold")), model.threshold());
            assertEquals(Model.Kind.LINEAR, model.kind());

            double[] x = test.encodedRows();
            double[] p = model.probabilities(x);
            double[] y = test.labels();
            int hits = 0;
            int firstDeclined = -1;
            for (int i = 0; i < p.length; i++) {
                boolean accepted = p[i] > model.threshold();
                if (accepted == (y[i] > 0.5)) {
                    hits++;
                }
                if (!accepted && firstDeclined < 0) {
                    firstDeclined = i;
                }
            }
            assertEquals(Double.parseDouble(exp.get("accuracy")), (double) hits / p.length);
            for (int i = 0; i < 5; i++) {
                assertEquals(
                        Double.doubleToLongBits(Double.parseDouble(exp.get("prob_" + i))),
                        Double.doubleToLongBits(p[i]),
                        "prob_" + i + " = " + p[i]);
            }
            assertEquals(Integer.parseInt(exp.get("first_declined")), firstDeclined);
            assertEquals(exp.get("schema_fingerprint"), schema.fingerprint());
            assertEquals(exp.get("model_fingerprint"), model.fingerprint());
            assertEquals(model.fingerprint(), fnv1a64(model.toJson()), "the same FNV-1a as the C API");

            // The coherent (MIP) counterfactuals of the first declined applicant.
            if (Coherent.available() && exp.containsKey("coherent_outcome")) {
                double[] applicant = test.row(firstDeclined);
                try (CoherentResult r = Coherent.explain(schema, model, null, applicant)) {
                    assertEquals(exp.get("coherent_outcome").toUpperCase(), r.outcome().name());
                    assertEquals(Integer.parseInt(exp.get("coherent_count")), r.count());
                    assertBits(exp.get("coherent_cost"), r.certificate(0).cost());
                    assertBits(exp.get("coherent_probability"), r.certificate(0).probability());
                    assertRow(exp.get("coherent_raw"), r.counterfactual(0));
                }
                try (Config three = Config.builder().nDiverse(3).build();
                        CoherentResult r = Coherent.explainDiverse(schema, model, three, applicant)) {
                    assertEquals(Integer.parseInt(exp.get("diverse_count")), r.count());
                    for (int k = 0; k < r.count(); k++) {
                        assertBits(exp.get("diverse_cost_" + k), r.certificate(k).cost());
                        assertRow(exp.get("diverse_raw_" + k), r.counterfactual(k));
                    }
                }
            }

            // Robustness figures at the same applicant, same seeds as the Rust run.
            if (Robustness.available() && exp.containsKey("robust_gamma")) {
                double[] applicant = test.row(firstDeclined);
                try (Noise noise = Noise.gaussian(schema, 0.01);
                        Estimator est = Estimator.create(noise, 10000, Sampling.GENERIC);
                        Workspace ws = Workspace.create(model, 42)) {
                    Estimator.Estimate e = est.estimate(model, ws, schema.encode(applicant));
                    assertBits(exp.get("robust_gamma"), e.gamma());
                    assertBits(exp.get("robust_gamma_se"), e.gammaSe());
                    assertBits(exp.get("robust_theta"), e.theta());
                    assertBits(exp.get("robust_theta_se"), e.thetaSe());
                    try (Config seven = Config.builder().seed(7).build();
                            RobustResult r = Robustness.generate(schema, model, noise, RobustMethod.CROCO, seven, applicant)) {
                        RobustResult.Summary sm = r.summary();
                        assertEquals(Integer.parseInt(exp.get("croco_valid")) == 1, sm.valid());
                        assertEquals(Integer.parseInt(exp.get("croco_target_met")) == 1, sm.targetMet());
                        assertBits(exp.get("croco_probability"), sm.probability());
                        assertBits(exp.get("croco_distance"), sm.distance());
                        assertBits(exp.get("croco_gamma"), sm.gamma());
                        assertBits(exp.get("croco_bound"), sm.bound());
                        assertRow(exp.get("croco_raw"), r.raw(schema));
                    }
                }
            }

            // The bundled German points scorecard: its first declined held-out applicant, their
            // points and their coherent counterfactual under the scorecard.
            if (exp.containsKey("scorecard_first_declined")) {
                String table = TestData.root().resolve("examples/data/german_scorecard_table.csv").toString();
                try (ScorecardImport card = ScorecardImport.fromPath(
                                schema,
                                ScorecardFormat.OPTBINNING,
                                table,
                                487.1228762045055,
                                new ScorecardImport.Scaling(28.85390081777927, 487.1228762045055));
                        Model sc = card.model()) {
                    int declined = -1;
                    for (int i = 0; i < test.nRows() && declined < 0; i++) {
                        if (!sc.predictRaw(schema, test.row(i)).accepted()) {
                            declined = i;
                        }
                    }
                    assertEquals(Integer.parseInt(exp.get("scorecard_first_declined")), declined);
                    double[] applicant = test.row(declined);
                    assertBits(exp.get("scorecard_points"), sc.predictRaw(schema, applicant).score());
                    try (CoherentResult r = Coherent.explain(schema, sc, null, applicant)) {
                        assertEquals(exp.get("scorecard_coherent_outcome").toUpperCase(), r.outcome().name());
                        assertEquals(Integer.parseInt(exp.get("scorecard_coherent_count")), r.count());
                        assertBits(exp.get("scorecard_coherent_cost"), r.certificate(0).cost());
                        assertBits(exp.get("scorecard_coherent_points"), r.certificate(0).score());
                        assertRow(exp.get("scorecard_coherent_raw"), r.counterfactual(0));
                    }
                    assertEquals(exp.get("scorecard_model_fingerprint"), sc.fingerprint());
                }
            }

            // A small P-DQN policy with the same configuration and seed as the Rust run.
            if (Sequential.available() && exp.containsKey("policy_fingerprint")) {
                double[] applicant = test.row(firstDeclined);
                try (Config cfg = Config.builder().seed(5).rlEpisodes(300, 8).rlHidden(16).build();
                        Policy policy = Sequential.train(split.train(), model, cfg, Sequential.Reward.BINARY, null);
                        Plan plan = policy.answer(schema, model, applicant)) {
                    assertEquals(exp.get("policy_fingerprint"), fnv1a64(policy.toJson()));
                    Policy.Metrics m = policy.evaluate(model, test);
                    assertBits(exp.get("policy_satisfiability"), m.satisfiability());
                    assertEquals(Long.parseLong(exp.get("policy_n_instances")), m.nInstances());
                    assertEquals(Integer.parseInt(exp.get("plan_n_steps")), plan.nSteps());
                    assertEquals(Integer.parseInt(exp.get("plan_success")) == 1, plan.succeeded());
                    double[] row = applicant.clone();
                    for (int i = 0; i < plan.nSteps(); i++) {
                        row[plan.step(i).feature()] = plan.step(i).to();
                    }
                    assertRow(exp.get("plan_final_row"), row);
                }
            }
        }
    }

    /** The C API's fingerprint: "fnv1a64:" and 16 hex digits of FNV-1a over the UTF-8 bytes. */
    static String fnv1a64(String text) {
        long h = 0xcbf29ce484222325L;
        for (byte b : text.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
            h ^= (b & 0xff);
            h *= 0x100000001b3L;
        }
        return String.format("fnv1a64:%016x", h);
    }

    private static void assertBits(String expected, double actual) {
        assertEquals(
                Double.doubleToLongBits(Double.parseDouble(expected)),
                Double.doubleToLongBits(actual),
                expected + " vs " + actual);
    }

    private static void assertRow(String expected, double[] actual) {
        String[] parts = expected.split(",");
        assertEquals(parts.length, actual.length);
        for (int i = 0; i < parts.length; i++) {
            assertBits(parts[i], actual[i]);
        }
    }
}
