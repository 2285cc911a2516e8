package org.cfx;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The tree-ensemble importers ({@code cfx_model_from_xgboost_*}, {@code cfx_model_from_lightgbm_*})
 * on the hand-written German model of bindings/testdata (three trees over duration, credit amount
 * and "no checking account"; see its README): every German row scores the margin written out by
 * hand below, and declined applicants get the cheaper of the two single changes that can flip the
 * model, priced with the MAD weights computed here from the data.
 */
class TreesTest {
    static Dataset german;
    static Schema schema;
    static String xgboostPath;
    static String lightgbmPath;
    /** The LightGBM file names the one-hot column {@code checking_none}: mapped to its level. */
    static final String LIGHTGBM_OPTIONS =
            "{\"columns\": {\"checking_none\": {\"feature\": \"status_of_existing_checking_account\","
                    + " \"level\": \"no checking account\"}}}";

    @BeforeAll
    static void load() {
        german = Dataset.loadGerman(TestData.germanPath());
        schema = german.schema();
        xgboostPath = TestData.root().resolve("bindings/testdata/german_trees_xgboost.json").toString();
        lightgbmPath = TestData.root().resolve("bindings/testdata/german_trees_lightgbm.txt").toString();
    }

    @AfterAll
    static void free() {
        schema.close();
        german.close();
    }

    /** The model's margin, from its three trees as written in bindings/testdata/README.md. */
    static double handMargin(double duration, double amount, boolean noCheckingAccount) {
        double t0 = duration < 24 ? 0.5 : -0.5;
        double t1 = amount < 4000 ? (duration < 12 ? 0.5 : 0.375) : -0.375;
        double t2 = noCheckingAccount ? 0.25 : -0.25;
        return t0 + t1 + t2;
    }

    /** Whether each German applicant has no checking account, read from the CSV's first column. */
    static boolean[] noCheckingAccount() throws Exception {
        List<String> lines = Files.readAllLines(Path.of(TestData.germanPath()));
        assertTrue(lines.get(0).startsWith("status_of_existing_checking_account,"), lines.get(0));
        boolean[] out = new boolean[lines.size() - 1];
        for (int i = 1; i < lines.size(); i++) {
            out[i - 1] = lines.get(i).startsWith("no checking account,");
        }
        return out;
    }

    /** Median absolute deviation from the median (both medians averaging the middle pair). */
    static double mad(double[] v) {
        double m = median(v);
        double[] dev = Arrays.stream(v).map(x -> Math.abs(x - m)).toArray();
        return median(dev);
    }

    static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    }

    @Test
    void theFavourableClassIsDeclaredAndCheckedOnTheGermanLabels() throws Exception {
        String xgbJson = Files.readString(Path.of(xgboostPath));
        int dur = schema.indexOf("duration_in_month");
        int amt = schema.indexOf("credit_amount");
        boolean[] none = noCheckingAccount();
        // Oracle: the hand margins over every (good, bad) pair of German applicants, ties one half.
        double wins = 0;
        long pairs = 0;
        for (int i = 0; i < german.nRows(); i++) {
            if (german.label(i) != 1.0) continue;
            double[] gi = german.row(i);
            double mi = handMargin(gi[dur], gi[amt], none[i]);
            for (int j = 0; j < german.nRows(); j++) {
                if (german.label(j) == 1.0) continue;
                double[] gj = german.row(j);
                double mj = handMargin(gj[dur], gj[amt], none[j]);
                wins += mi > mj ? 1.0 : (mi == mj ? 0.5 : 0.0);
                pairs++;
            }
        }
        double expected = wins / pairs;
        assertTrue(expected > 0.5, "the hand model ranks good applicants first: " + expected);
        try (Model m = Model.fromXgboostJson(schema, xgbJson, "{\"favourable_class\": 1}")) {
            assertEquals(expected, m.checkFavourable(german), 1e-12);
            assertTrue(m.toJson().contains("favourable class 1 (declared)"), m.toJson());
        }
        // Declared a model of default: the margin is negated and the labels refuse it.
        try (Model m = Model.fromXgboostJson(schema, xgbJson, "{\"score_is\": \"probability_of_default\"}")) {
            double[] raw = german.row(0);
            assertEquals(-handMargin(raw[dur], raw[amt], none[0]), m.predictRaw(schema, raw).score(), 0.0);
            CfxException e = assertThrows(CfxException.class, () -> m.checkFavourable(german));
            assertTrue(e.getMessage().contains("favourable_class"), e.getMessage());
        }
    }

    @Test
    void bothFormatsFromTextAndFileScoreTheHandMarginsOnEveryGermanRow() throws Exception {
        String xgbJson = Files.readString(Path.of(xgboostPath));
        String lgbText = Files.readString(Path.of(lightgbmPath));
        int dur = schema.indexOf("duration_in_month");
        int amt = schema.indexOf("credit_amount");
        boolean[] none = noCheckingAccount();
        assertEquals(german.nRows(), none.length);
        try (Model a = Model.fromXgboostJson(schema, xgbJson, null);
                Model b = Model.fromXgboostFile(schema, xgboostPath, null);
                Model c = Model.fromLightgbmText(schema, lgbText, LIGHTGBM_OPTIONS);
                Model d = Model.fromLightgbmFile(schema, lightgbmPath, LIGHTGBM_OPTIONS)) {
            for (Model m : List.of(a, b, c, d)) {
                assertEquals(Model.Kind.TREES, m.kind());
                assertEquals(schema.encodedDim(), m.inputDim());
                assertEquals(0.5, m.threshold());
            }
            assertEquals(a.toJson(), b.toJson(), "the same XGBoost model from a string and from a file");
            assertEquals(c.toJson(), d.toJson(), "the same LightGBM model from a string and from a file");
            int declined = 0;
            for (int i = 0; i < german.nRows(); i++) {
                double[] raw = german.row(i);
                double margin = handMargin(raw[dur], raw[amt], none[i]);
                for (Model m : List.of(a, b, c, d)) {
                    Model.Prediction p = m.predictRaw(schema, raw);
                    assertEquals(margin, p.score(), 0.0, "row " + i);
                    assertEquals(1.0 / (1.0 + Math.exp(-margin)), p.probability(), 1e-15, "row " + i);
                    assertEquals(margin > 0, p.accepted(), "row " + i);
                }
                declined += margin > 0 ? 0 : 1;
            }
            assertEquals(362, declined, "declined German applicants (bindings/testdata/README.md)");
        }
    }

    @Test
    void declinedApplicantsGetTheCheaperOfTheTwoSingleChanges() throws Exception {
        int dur = schema.indexOf("duration_in_month");
        int amt = schema.indexOf("credit_amount");
        double[][] rows = german.rows();
        double madDuration = mad(Arrays.stream(rows).mapToDouble(r -> r[dur]).toArray());
        double madAmount = mad(Arrays.stream(rows).mapToDouble(r -> r[amt]).toArray());
        assertEquals(6.0, madDuration);
        assertEquals(1097.5, madAmount);
        boolean[] none = noCheckingAccount();
        try (Model xgb = Model.fromXgboostFile(schema, xgboostPath, null);
                Model lgb = Model.fromLightgbmFile(schema, lightgbmPath, LIGHTGBM_OPTIONS)) {
            // Applicants 6 and 37 (rows 5 and 36): 24+ months, 4000+ DM, no checking account, so the
            // margin is -0.5 - 0.375 + 0.25 = -0.625. Either duration < 24 (+1, to 0.375) or amount < 4000
            // (+0.75, to 0.125) alone accepts them; the checking account is already at its best level. Row 5
            // (36 months, 9055 DM) shortens the loan, row 36 (48 months, 6110 DM) borrows less.
            for (int i : new int[] {5, 36}) {
                double[] raw = rows[i];
                assertTrue(none[i] && raw[dur] >= 24 && raw[amt] >= 4000, "row " + i);
                assertFalse(xgb.predictRaw(schema, raw).accepted());
                double byDuration = (raw[dur] - 23) / madDuration;
                double byAmount = (raw[amt] - 3999) / madAmount;
                assertTrue(Math.abs(byDuration - byAmount) > 0.1, "a clear winner");
                double[] expected = raw.clone();
                if (byDuration < byAmount) {
                    expected[dur] = 23;
                } else {
                    expected[amt] = 3999;
                }
                try (CoherentResult r = Coherent.explain(schema, xgb, null, raw);
                        CoherentResult l = Coherent.explain(schema, lgb, null, raw)) {
                    assertEquals(CoherentResult.Outcome.OPTIMAL, r.outcome());
                    assertArrayEquals(expected, r.counterfactual(0), "row " + i);
                    CoherentResult.Certificate c = r.certificate(0);
                    assertEquals(Math.min(byDuration, byAmount), c.cost(), 1e-9, "row " + i);
                    Model.Prediction p = xgb.predictRaw(schema, r.counterfactual(0));
                    assertTrue(p.accepted());
                    assertEquals(p.score(), c.score(), 1e-12);
                    assertEquals(p.probability(), c.probability(), 1e-12);
                    assertEquals(byDuration < byAmount ? 0.375 : 0.125, p.score(), 0.0);
                    // The LightGBM copy of the model gives the same answer.
                    assertArrayEquals(r.counterfactual(0), l.counterfactual(0));
                    assertEquals(c.cost(), l.certificate(0).cost(), 1e-9);
                    String text = r.describe();
                    assertTrue(text.contains(byDuration < byAmount ? "duration_in_month" : "credit_amount"), text);
                }
            }
        }
    }

    @Test
    void badModelsOptionsAndPathsAreCfxExceptionsWithTheReason() throws Exception {
        String lgbText = Files.readString(Path.of(lightgbmPath));
        CfxException e = assertThrows(CfxException.class, () -> Model.fromXgboostJson(schema, lgbText, null));
        assertEquals(Status.FORMAT_ERROR, e.statusCode());
        assertTrue(e.getMessage().contains("XGBoost"), e.getMessage());
        e = assertThrows(CfxException.class, () -> Model.fromLightgbmText(schema, lgbText, null));
        assertEquals(Status.FORMAT_ERROR, e.statusCode());
        assertTrue(e.getMessage().contains("checking_none"), "names the unmapped column: " + e.getMessage());
        e = assertThrows(
                CfxException.class, () -> Model.fromLightgbmText(schema, lgbText, "{\"colour\": \"blue\"}"));
        assertEquals(Status.FORMAT_ERROR, e.statusCode());
        assertTrue(e.getMessage().contains("colour"), "names the unknown key: " + e.getMessage());
        e = assertThrows(
                CfxException.class,
                () -> Model.fromXgboostFile(schema, TestData.root().resolve("no/such/model.json").toString(), null));
        assertEquals(Status.IO_ERROR, e.statusCode());
        e = assertThrows(
                CfxException.class,
                () -> Model.fromLightgbmFile(schema, TestData.root().resolve("no/such/model.txt").toString(), null));
        assertEquals(Status.IO_ERROR, e.statusCode());
        assertThrows(NullPointerException.class, () -> Model.fromXgboostJson(schema, null, null));
        // The options' threshold replaces the default 0.5.
        try (Model xgb = Model.fromXgboostFile(schema, xgboostPath, "{\"threshold\": 0.6}")) {
            assertEquals(0.6, xgb.threshold());
        }
    }
}
