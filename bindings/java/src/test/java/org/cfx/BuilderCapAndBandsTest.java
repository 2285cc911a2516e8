package org.cfx;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The builder's last advice setters (issue 25), each shown to take effect on a model whose answer
 * is known by hand, and each refusing a bad value.
 */
class BuilderCapAndBandsTest {
    /**
     * a, b in [0, 6]; the model accepts a/6 + b/6 ≥ 1.6 (encoded slots), so (3, 3) needs both to
     * move: one alone reaches 1.5.
     */
    static Schema pair(int cap) {
        SchemaBuilder b = Schema.builder().contiguous("a", 0, 6, false).contiguous("b", 0, 6, false);
        return (cap > 0 ? b.maxFeaturesChanged(cap) : b).build();
    }

    @Test
    void aCapOfOneLeavesNoSingleChangeThatFlipsTheDecision() {
        assumeTrue(Coherent.available(), "cfx.h has no coherent entry points");
        double[] applicant = {3, 3};
        try (Model m = Model.linear(new double[] {1, 1}, -1.6, 0.5);
                Schema free = pair(0);
                Schema one = pair(1);
                Schema two = pair(2)) {
            assertTrue(one.toJson().contains("\"max_features_changed\": 1"), one.toJson());
            assertFalse(free.toJson().contains("max_features_changed"));
            try (CoherentResult r = Coherent.explain(free, m, null, applicant)) {
                assertEquals(CoherentResult.Outcome.OPTIMAL, r.outcome());
                double[] cf = r.counterfactual(0);
                assertTrue(cf[0] != 3 && cf[1] != 3, "both move: " + cf[0] + ", " + cf[1]);
            }
            try (CoherentResult r = Coherent.explain(one, m, null, applicant)) {
                assertEquals(CoherentResult.Outcome.INFEASIBLE, r.outcome(), "one slot at 1 and one at 0.5 is still declined");
            }
            try (CoherentResult r = Coherent.explain(two, m, null, applicant)) {
                assertEquals(CoherentResult.Outcome.OPTIMAL, r.outcome());
            }
        }
        try (SchemaBuilder b = Schema.builder().contiguous("a", 0, 6, false)) {
            CfxException e = assertThrows(CfxException.class, () -> b.maxFeaturesChanged(0));
            assertEquals(Status.INVALID_ARGUMENT, e.statusCode());
            assertTrue(e.getMessage().contains("at least 1"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> b.maxFeaturesChanged(-1));
        }
    }

    /**
     * An income in [0, 100000] at 43217; the model accepts an income above 43500. Advised in multiples
     * of 1000 by at least 2000 the answer is 46000 (44000 is only 783 more, 45000 1783).
     */
    @Test
    void anAdviceGridAndAMinimumChangeRoundTheAdvice() {
        assumeTrue(Coherent.available(), "cfx.h has no coherent entry points");
        double[] applicant = {43217};
        try (Model m = Model.linear(new double[] {1}, -0.435, 0.5);
                Schema free = Schema.builder().contiguous("income", 0, 100000, false).build();
                Schema grid = Schema.builder().contiguous("income", 0, 100000, false).adviceGrid(1000, 2000).build()) {
            assertTrue(grid.toJson().contains("\"advice_step\": 1000.0"), grid.toJson());
            try (CoherentResult r = Coherent.explain(free, m, null, applicant)) {
                double v = r.counterfactual(0)[0];
                assertTrue(v > 43500 && v < 43501, "without a grid: " + v);
            }
            try (CoherentResult r = Coherent.explain(grid, m, null, applicant)) {
                assertEquals(CoherentResult.Outcome.OPTIMAL, r.outcome());
                assertEquals(46000.0, r.counterfactual(0)[0]);
            }
        }
        try (SchemaBuilder b = Schema.builder().contiguous("income", 0, 100000, false)) {
            CfxException e = assertThrows(CfxException.class, () -> b.adviceGrid(-1000, 0));
            assertEquals(Status.INVALID_ARGUMENT, e.statusCode());
            assertTrue(e.getMessage().contains("finite and non-negative"), e.getMessage());
            assertEquals(Status.INVALID_ARGUMENT,
                    assertThrows(CfxException.class, () -> b.adviceGrid(1000, Double.NaN)).statusCode());
        }
        SchemaBuilder off = Schema.builder().contiguous("n", 0, 10, true).adviceGrid(2.5, 0);
        CfxException e = assertThrows(CfxException.class, off::build);
        assertEquals(Status.INVALID_SCHEMA, e.statusCode());
        assertTrue(e.getMessage().contains("whole number"), e.getMessage());
    }

    /** The model accepts every job level but the first; only waiting moves the job, a band at a time. */
    @Test
    void bandMonthsMakeWaitingMoveTheJobUpItsOrder() {
        assumeTrue(Coherent.available(), "cfx.h has no coherent entry points");
        try (Schema s = Schema.builder()
                        .categorical("job", "< 1 year", "1 to 4 years", ">= 4 years")
                        .levelOrder("< 1 year", "1 to 4 years", ">= 4 years")
                        .bandMonths("< 1 year", 12)
                        .bandMonths("1 to 4 years", 36)
                        .waiting(0.01, 24)
                        .build();
                Model m = Model.linear(new double[] {0, 5, 5}, -3, 0.5);
                WaitingAdvice a = Coherent.explainWithWaiting(s, m, null, new double[] {0})) {
            assertTrue(s.toJson().contains("\"band_months\""), s.toJson());
            assertTrue(a.found());
            assertEquals(12, a.summary().months());
            assertArrayEquals(new double[] {1}, a.waitedRow());
        }
        try (SchemaBuilder b = Schema.builder().categorical("job", "a", "b")) {
            assertEquals(Status.NOT_FOUND, assertThrows(CfxException.class, () -> b.bandMonths("c", 12)).statusCode());
            assertThrows(IllegalArgumentException.class, () -> b.bandMonths("a", -1));
        }
        try (SchemaBuilder b = Schema.builder().contiguous("m", 0, 10, true)) {
            assertEquals(Status.INVALID_ARGUMENT,
                    assertThrows(CfxException.class, () -> b.bandMonths("a", 12)).statusCode());
        }
        SchemaBuilder last = Schema.builder().categorical("job", "a", "b").levelOrder("a", "b").bandMonths("b", 12).waiting(1, 12);
        CfxException e = assertThrows(CfxException.class, last::build);
        assertEquals(Status.INVALID_SCHEMA, e.statusCode());
        assertTrue(e.getMessage().contains("no next band"), e.getMessage());
    }

    /** Months since the last inquiry in [0, 24]; the model accepts only "gone" (−7). */
    static SchemaBuilder inquiries() {
        return Schema.builder()
                .contiguous("inq", 0, 24, true)
                .specialState(-7, "gone")
                .timeGrowth(1, "gone");
    }

    @Test
    void endsAfterClosesTheWindowBeforeTheUpperBound() {
        assumeTrue(Coherent.available(), "cfx.h has no coherent entry points");
        double[] applicant = {0};
        try (Schema early = inquiries().timeGrowthEndsAfter(23).waiting(0.01, 24).build();
                Schema late = inquiries().waiting(0.01, 24).build();
                Model m = Model.linear(new double[] {0, 5}, -3, 0.5)) {
            assertTrue(early.toJson().contains("\"ends_after\": 23"), early.toJson());
            try (WaitingAdvice a = Coherent.explainWithWaiting(early, m, null, applicant)) {
                assertTrue(a.found());
                assertEquals(24, a.summary().months());
                assertArrayEquals(new double[] {-7}, a.waitedRow());
            }
            try (WaitingAdvice a = Coherent.explainWithWaiting(late, m, null, applicant)) {
                assertEquals(WaitingAdvice.Outcome.NO_ADVICE, a.outcome(), "24 months old after 24 months");
            }
        }
        SchemaBuilder outside = inquiries().timeGrowthEndsAfter(30).waiting(0.01, 24);
        CfxException e = assertThrows(CfxException.class, outside::build);
        assertEquals(Status.INVALID_SCHEMA, e.statusCode());
        assertTrue(e.getMessage().contains("ends_after"), e.getMessage());
        try (SchemaBuilder b = Schema.builder().contiguous("m", 0, 10, true)) {
            assertEquals(Status.INVALID_ARGUMENT,
                    assertThrows(CfxException.class, () -> b.timeGrowthEndsAfter(5)).statusCode());
        }
    }

    /**
     * Months since a delinquency in [0, 83] and the file's age in [0, 100], both growing a month a
     * month; {@code refuse} makes the first refuse to pass 83. The model accepts a file of 60
     * months or more, whatever the delinquency.
     */
    static Schema delinquency(boolean refuse) {
        return Schema.builder()
                .contiguous("delq", 0, 83, true)
                .timeGrowth(1, null)
                .timeGrowthRefusePastUpper(refuse)
                .contiguous("file", 0, 100, true)
                .timeGrowth(1, null)
                .waiting(0.01, 24)
                .build();
    }

    @Test
    void refusingPastTheUpperBoundShortensTheWait() {
        assumeTrue(Coherent.available(), "cfx.h has no coherent entry points");
        double[] applicant = {80, 50};
        try (Schema capped = delinquency(false);
                Schema refusing = delinquency(true);
                Model m = Model.linear(new double[] {0, 10}, -5.95, 0.5)) {
            assertTrue(refusing.toJson().contains("\"past_upper\": \"refuse\""), refusing.toJson());
            assertFalse(capped.toJson().contains("past_upper"));
            // Capped: ten months, the delinquency piled at 83.
            try (WaitingAdvice a = Coherent.explainWithWaiting(capped, m, null, applicant)) {
                assertTrue(a.found());
                assertEquals(10, a.summary().months());
                assertArrayEquals(new double[] {83, 60}, a.waitedRow());
            }
            // Refusing: at most 3 months, the file only 53 months old.
            try (WaitingAdvice a = Coherent.explainWithWaiting(refusing, m, null, applicant)) {
                assertEquals(WaitingAdvice.Outcome.NO_ADVICE, a.outcome());
            }
        }
        SchemaBuilder withEnd = Schema.builder()
                .contiguous("inq", 0, 24, true)
                .specialState(-7, "gone")
                .timeGrowth(1, "gone")
                .timeGrowthRefusePastUpper(true)
                .waiting(0.01, 24);
        CfxException e = assertThrows(CfxException.class, withEnd::build);
        assertEquals(Status.INVALID_SCHEMA, e.statusCode());
        assertTrue(e.getMessage().contains("past_upper"), e.getMessage());
        try (SchemaBuilder b = Schema.builder().contiguous("m", 0, 10, true)) {
            assertEquals(Status.INVALID_ARGUMENT,
                    assertThrows(CfxException.class, () -> b.timeGrowthRefusePastUpper(true)).statusCode());
        }
    }

    /**
     * The file's age in [0, 100] months, growing a month a month ({@code range} null, or where a
     * wait may take it), and x in [0, 10], integer. The model's score is 10·file/100 − 3·x/10 −
     * 2.45: with x = 0 a file of 25 months or more is accepted, with x = 10 one of 55; a month of
     * waiting (cost 0.01) adds 0.1, lowering x by 1 (cost 0.1) adds 0.3.
     */
    static Schema files(double[] range) {
        SchemaBuilder b = Schema.builder().contiguous("file", 0, 100, true).timeGrowth(1, null);
        if (range != null) {
            b.timeGrowthAdvisedRange(range[0], range[1]);
        }
        return b.contiguous("x", 0, 10, true).waiting(0.01, 24).build();
    }

    static Model filesModel() {
        return Model.linear(new double[] {10, -3}, -2.45, 0.5);
    }

    /** Every {@code "advised_range": [low, high]} of a schema's JSON, in feature order. */
    static List<double[]> advisedRanges(Schema s) {
        Matcher m = Pattern.compile("\"advised_range\"\\s*:\\s*\\[\\s*([^,\\s]+)\\s*,\\s*([^\\]\\s]+)\\s*\\]")
                .matcher(s.toJson());
        List<double[]> out = new ArrayList<>();
        while (m.find()) {
            out.add(new double[] {Double.parseDouble(m.group(1)), Double.parseDouble(m.group(2))});
        }
        return out;
    }

    @Test
    void anAdvisedRangeKeepsWaitsWhereItSays() {
        assumeTrue(Coherent.available(), "cfx.h has no coherent entry points");
        try (Schema free = files(null);
                Schema ranged = files(new double[] {30, 40});
                Model m = filesModel()) {
            List<double[]> r = advisedRanges(ranged);
            assertEquals(1, r.size(), ranged.toJson());
            assertArrayEquals(new double[] {30, 40}, r.get(0));
            assertFalse(free.toJson().contains("advised_range"));
            // File 20: five months reach 25; within [30, 40] the waits are 0 and 10 to 20.
            try (WaitingAdvice a = Coherent.explainWithWaiting(free, m, null, new double[] {20, 0})) {
                assertTrue(a.found());
                assertEquals(5, a.summary().months());
                assertArrayEquals(new double[] {25, 0}, a.finalRow(), 1e-12);
            }
            try (WaitingAdvice a = Coherent.explainWithWaiting(ranged, m, null, new double[] {20, 0})) {
                assertTrue(a.found());
                assertEquals(10, a.summary().months());
                assertEquals(0.10, a.summary().totalCost(), 1e-9);
                assertArrayEquals(new double[] {30, 0}, a.finalRow(), 1e-12);
            }
            // File 45, x 10: ten months (55) cost 0.10, below lowering x to 6 (0.4); above the
            // range every wait leaves it, so x moves.
            try (WaitingAdvice a = Coherent.explainWithWaiting(free, m, null, new double[] {45, 10})) {
                assertEquals(10, a.summary().months());
                assertArrayEquals(new double[] {55, 10}, a.finalRow(), 1e-12);
            }
            try (WaitingAdvice a = Coherent.explainWithWaiting(ranged, m, null, new double[] {45, 10})) {
                assertEquals(0, a.summary().months());
                assertEquals(0.4, a.summary().totalCost(), 1e-9);
                assertArrayEquals(new double[] {45, 6}, a.finalRow(), 1e-12);
            }
        }
        // A wait into the ends_in state is not judged: from 20, five months carry the inquiry out
        // of the window although 21 to 24 lie outside [0, 5].
        try (Schema s = Schema.builder()
                        .contiguous("inq", 0, 24, true)
                        .specialState(-7, "gone")
                        .timeGrowth(1, "gone")
                        .timeGrowthAdvisedRange(0, 5)
                        .waiting(0.01, 24)
                        .build();
                Model m = Model.linear(new double[] {0, 5}, -3, 0.5);
                WaitingAdvice a = Coherent.explainWithWaiting(s, m, null, new double[] {20})) {
            assertTrue(a.found());
            assertEquals(5, a.summary().months());
            assertArrayEquals(new double[] {-7}, a.waitedRow(), 1e-12);
        }
        CfxException e = assertThrows(CfxException.class, () -> files(new double[] {40, 30}));
        assertEquals(Status.INVALID_SCHEMA, e.statusCode());
        assertTrue(e.getMessage().contains("advised_range"), e.getMessage());
        try (SchemaBuilder b = Schema.builder().contiguous("file", 0, 100, true).timeGrowth(1, null)) {
            assertEquals(Status.INVALID_ARGUMENT,
                    assertThrows(CfxException.class, () -> b.timeGrowthAdvisedRange(Double.NaN, 40)).statusCode());
        }
        try (SchemaBuilder b = Schema.builder().contiguous("m", 0, 10, true)) {
            assertEquals(Status.INVALID_ARGUMENT,
                    assertThrows(CfxException.class, () -> b.timeGrowthAdvisedRange(0, 5)).statusCode());
        }
    }

    @Test
    void plausibilityAdvisesWaitsWithinTheAcceptedApplicantsRange() {
        assumeTrue(Coherent.available(), "cfx.h has no coherent entry points");
        // Accepted files 30..=40: the type-7 1% and 99% points are 30 + 0.1 and 39 + 0.9. The
        // declined rows (0, 60 and 100 months) are not counted.
        double[][] rows = new double[14][];
        double[] labels = new double[14];
        for (int k = 0; k < 11; k++) {
            rows[k] = new double[] {30 + k, 5};
            labels[k] = 1;
        }
        rows[11] = new double[] {0, 0};
        rows[12] = new double[] {60, 10};
        rows[13] = new double[] {100, 3};
        try (Schema free = files(null);
                Model m = filesModel();
                Plausibility p = Plausibility.fit(free, rows, labels);
                Schema within = p.adviseWaits()) {
            List<double[]> r = advisedRanges(within);
            assertEquals(1, r.size(), within.toJson());
            assertEquals(30.1, r.get(0)[0], 1e-9);
            assertEquals(39.9, r.get(0)[1], 1e-9);
            assertFalse(free.toJson().contains("advised_range"), "the fitted schema is unchanged");
            // File 20: waits 0 and 11 to 19 land inside [30.1, 39.9]; 11 months are accepted.
            try (WaitingAdvice a = Coherent.explainWithWaiting(within, m, null, new double[] {20, 0})) {
                assertEquals(11, a.summary().months());
                assertArrayEquals(new double[] {31, 0}, a.finalRow(), 1e-12);
            }
            try (WaitingAdvice a = Coherent.explainWithWaiting(within, m, null, new double[] {45, 10})) {
                assertEquals(0, a.summary().months());
                assertArrayEquals(new double[] {45, 6}, a.finalRow(), 1e-12);
            }
        }
    }
}
