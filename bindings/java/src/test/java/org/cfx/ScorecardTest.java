package org.cfx;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The bundled German points scorecard (examples/data/german_scorecard_table.csv, optbinning 1.0.0;
 * cutoff and scaling from examples/data/german_scorecard.md) imported through the binding, its
 * points checked against optbinning's own scores (tests/reference/german_scorecard_scores.csv), and
 * the first declined held-out applicant explained by the coherent MIP.
 */
class ScorecardTest {
    /** Score at probability 0.5 of good: the acceptance cutoff. */
    static final double CUTOFF = 487.1228762045055;
    /** 20 points double the odds: factor = 20 / ln 2 (as written in german_scorecard.md), offset = the cutoff. */
    static final ScorecardImport.Scaling SCALING = new ScorecardImport.Scaling(28.85390081777927, CUTOFF);
    /** Held-out index 2 is data row 9 (rows with i mod 10 ≥ 7 are held out), the first declined one. */
    static final int DECLINED_TEST_INDEX = 2;
    static final int DECLINED_DATA_ROW = 9;

    static Dataset german;
    static Schema schema;
    static Dataset.Split split;
    static ScorecardImport card;
    static Model model;

    static String tablePath() {
        return TestData.root().resolve("examples/data/german_scorecard_table.csv").toString();
    }

    /** optbinning's {@code Scorecard.score} of a data row of german_credit.csv. */
    static double optbinningScore(int dataRow) throws Exception {
        List<String> lines = Files.readAllLines(TestData.root().resolve("tests/reference/german_scorecard_scores.csv"));
        String[] f = lines.get(dataRow + 1).split(",");
        assertEquals(dataRow, Integer.parseInt(f[0]));
        return Double.parseDouble(f[1]);
    }

    @BeforeAll
    static void load() {
        german = Dataset.loadGerman(TestData.germanPath());
        schema = german.schema();
        split = german.holdoutSplit();
        card = ScorecardImport.fromPath(schema, ScorecardFormat.OPTBINNING, tablePath(), CUTOFF, SCALING);
        model = card.model();
    }

    @AfterAll
    static void free() {
        if (german != null) {
            model.close();
            card.close();
            split.close();
            schema.close();
            german.close();
        }
    }

    @Test
    void importedScorecardScoresAsOptbinning() throws Exception {
        assertEquals(Model.Kind.SCORECARD, model.kind());
        assertEquals(schema.encodedDim(), model.inputDim());
        String report = card.reportJson();
        assertTrue(report.contains("\"format\": \"optbinning\""), report);
        assertTrue(report.contains("\"characteristics\": 20"), report);
        // the first five held-out applicants score exactly as optbinning scores them
        for (int j = 0; j < 5; j++) {
            int dataRow = 10 * (j / 3) + 7 + j % 3;
            Model.Prediction p = model.predictRaw(schema, split.test().row(j));
            double expected = optbinningScore(dataRow);
            assertEquals(expected, p.score(), 1e-9, "held-out " + j);
            assertEquals(expected >= CUTOFF, p.accepted(), "held-out " + j);
            assertEquals(1.0 / (1.0 + Math.exp(-(expected - CUTOFF) / SCALING.factor())), p.probability(), 1e-12);
        }
        // the same table given as text is the same model
        String csv = Files.readString(TestData.root().resolve("examples/data/german_scorecard_table.csv"));
        try (ScorecardImport fromText = ScorecardImport.fromCsv(schema, ScorecardFormat.OPTBINNING, csv, CUTOFF, SCALING);
                Model m = fromText.model()) {
            assertEquals(model.fingerprint(), m.fingerprint());
        }
        // without a scaling there is no probability, but the points and the decision stay
        try (ScorecardImport unscaled = ScorecardImport.fromPath(schema, ScorecardFormat.OPTBINNING, tablePath(), CUTOFF, null);
                Model m = unscaled.model()) {
            Model.Prediction p = m.predictRaw(schema, split.test().row(DECLINED_TEST_INDEX));
            assertEquals(optbinningScore(DECLINED_DATA_ROW), p.score(), 1e-9);
            assertTrue(Double.isNaN(p.probability()));
            assertFalse(p.accepted());
        }
    }

    @Test
    void declinedApplicantGetsAnAcceptedCoherentCounterfactual() throws Exception {
        double[] applicant = split.test().row(DECLINED_TEST_INDEX);
        Model.Prediction before = model.predictRaw(schema, applicant);
        assertEquals(optbinningScore(DECLINED_DATA_ROW), before.score(), 1e-9);
        assertFalse(before.accepted());
        try (CoherentResult r = Coherent.explain(schema, model, null, applicant)) {
            assertEquals(CoherentResult.Outcome.OPTIMAL, r.outcome());
            assertEquals(1, r.count());
            double[] cf = r.counterfactual(0);
            Model.Prediction after = model.predictRaw(schema, cf);
            assertTrue(after.accepted(), "the counterfactual is accepted");
            assertTrue(after.score() >= CUTOFF, "points " + after.score());
            CoherentResult.Certificate c = r.certificate(0);
            assertEquals(after.score(), c.score(), 1e-9);
            assertTrue(c.cost() > 0 && c.cost() < 10, "cost " + c.cost());
            int changed = 0;
            for (int i = 0; i < cf.length; i++) {
                if (cf[i] != applicant[i]) {
                    changed++;
                }
            }
            // 3.7 points short of the cutoff: one or two changes suffice
            assertTrue(changed >= 1 && changed <= 2, changed + " changes");
            for (String immutable : new String[] {"personal_status_and_sex", "foreign_worker"}) {
                int k = schema.indexOf(immutable);
                assertEquals(applicant[k], cf[k], immutable + " never moves");
            }
            int age = schema.indexOf("age_in_years");
            assertTrue(cf[age] >= applicant[age], "age only increases");
            String text = r.describe();
            assertTrue(text.startsWith("declined: "), text);
            assertTrue(text.lines().anyMatch(l -> l.startsWith("optimal (cost ")), text);
        }
    }

    @Test
    void shippedGermanScorecardHasItsDocumentedCutoffAndScaling() throws Exception {
        // the bundled table by its path here; the README snippet loads it with a null path from
        // inside the jar
        try (ScorecardImport shipped = ScorecardImport.loadGerman(schema, tablePath());
                Model m = shipped.model()) {
            assertTrue(shipped.reportJson().contains("\"characteristics\": 20"));
            for (int j = 0; j < 5; j++) {
                int dataRow = 10 * (j / 3) + 7 + j % 3;
                Model.Prediction p = m.predictRaw(schema, split.test().row(j));
                Model.Prediction q = model.predictRaw(schema, split.test().row(j));
                assertEquals(optbinningScore(dataRow), p.score(), 1e-9, "held-out " + j);
                assertEquals(q.accepted(), p.accepted());
                assertEquals(q.probability(), p.probability(), 1e-12);
            }
        }
        CfxException io = assertThrows(
                CfxException.class,
                () -> ScorecardImport.loadGerman(schema, TestData.root().resolve("no-such-table.csv").toString()));
        assertEquals(Status.IO_ERROR, io.statusCode());
    }

    @Test
    void anAbsentCharacteristicIsRefusedUnlessDeclaredUnused() throws Exception {
        StringBuilder b = new StringBuilder();
        for (String line : Files.readAllLines(TestData.root().resolve("examples/data/german_scorecard_table.csv"))) {
            if (!line.startsWith("telephone,")) b.append(line).append('\n');
        }
        String without = b.toString();
        CfxException e = assertThrows(
                CfxException.class,
                () -> ScorecardImport.fromCsvWithOptions(schema, ScorecardFormat.OPTBINNING, without, "{\"cutoff\": 487.0}"));
        assertEquals(Status.FORMAT_ERROR, e.statusCode());
        assertTrue(e.detail().contains("'telephone'") && e.detail().contains("unused_features"), e.detail());
        assertThrows(CfxException.class,
                () -> ScorecardImport.fromCsv(schema, ScorecardFormat.OPTBINNING, without, 487.0, null));
        CfxException unknown = assertThrows(
                CfxException.class,
                () -> ScorecardImport.fromCsvWithOptions(
                        schema, ScorecardFormat.OPTBINNING, without, "{\"cutoff\": 487.0, \"unused\": []}"));
        assertEquals(Status.FORMAT_ERROR, unknown.statusCode());
        String options = "{\"cutoff\": 487.0, \"scaling\": {\"factor\": 28.85390081777927, \"offset\": 487.0},"
                + " \"unused_features\": [\"telephone\"]}";
        try (ScorecardImport imp = ScorecardImport.fromCsvWithOptions(schema, ScorecardFormat.OPTBINNING, without, options);
                Model m = imp.model()) {
            assertTrue(imp.reportJson().replaceAll("\\s", "").contains("\"unused_features\":[\"telephone\"]"),
                    imp.reportJson());
            Model.Prediction p = m.predictRaw(schema, split.test().row(0));
            Model.Prediction q = model.predictRaw(schema, split.test().row(0));
            assertFalse(Double.isNaN(p.probability()));
            assertNotEquals(q.score(), p.score());
        }
    }

    @Test
    void badTablesAreFormatAndIoErrors() {
        String unknownColumn = "Variable,Bin id,Bin,Points,Colour\nduration_in_month,0,\"(-inf, inf)\",1.0,red\n";
        CfxException e = assertThrows(
                CfxException.class,
                () -> ScorecardImport.fromCsv(schema, ScorecardFormat.OPTBINNING, unknownColumn, 0.0, null));
        assertEquals(Status.FORMAT_ERROR, e.statusCode());
        assertTrue(e.detail().contains("Colour"), e.detail());
        CfxException io = assertThrows(
                CfxException.class,
                () -> ScorecardImport.fromPath(
                        schema, ScorecardFormat.OPTBINNING, TestData.root().resolve("no-such-table.csv").toString(), 0.0, null));
        assertEquals(Status.IO_ERROR, io.statusCode());
        assertThrows(IllegalArgumentException.class,
                () -> ScorecardImport.fromCsv(schema, ScorecardFormat.OPTBINNING, "a\0b", 0.0, null));
    }
}
