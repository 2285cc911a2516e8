package org.cfx;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;

/**
 * The advice calls of the schema (issue #16): change limits, time growth and waiting from the
 * builder, and the German credit preset. The oracle for the change limit is arithmetic: the model
 * accepts exactly the amounts ≤ 4000 (score 4 − 10·amount/10000), the applicant asks 5000, so a
 * decrease limit of 10 % (down to 4500) leaves no recourse and one of 2000 units puts the answer
 * in [3000, 4000].
 */
class AdviceSchemaTest {
    static Schema limited(ChangeLimit maxDecrease) {
        return Schema.builder()
                .contiguous("amount", 0, 10000, false)
                .changeLimits(ChangeLimit.NONE, maxDecrease)
                .contiguous("age", 18, 80, true)
                .actionability(false, Direction.ANY)
                .build();
    }

    @Test
    void theCoherentAnswerNeverExceedsAChangeLimit() {
        assumeTrue(Coherent.available(), "cfx.h has no coherent entry points");
        double[] applicant = {5000, 30};
        try (Model m = Model.linear(new double[] {-10, 0}, 4, 0.5);
                Schema tight = limited(ChangeLimit.fraction(0.1));
                Schema loose = limited(ChangeLimit.units(2000))) {
            assertFalse(m.predictRaw(loose, applicant).accepted());
            assertTrue(tight.toJson().contains("\"fraction\": 0.1"), tight.toJson());
            try (CoherentResult r = Coherent.explain(tight, m, null, applicant)) {
                assertEquals(CoherentResult.Outcome.INFEASIBLE, r.outcome(), "4500 is still declined");
                assertEquals(0, r.count());
            }
            try (CoherentResult r = Coherent.explain(loose, m, null, applicant)) {
                assertEquals(CoherentResult.Outcome.OPTIMAL, r.outcome());
                double[] cf = r.counterfactual(0);
                assertTrue(cf[0] >= 3000 - 1e-6 && cf[0] <= 4000 + 1e-6, "amount " + cf[0]);
                assertEquals(30, cf[1]);
                assertTrue(m.predictRaw(loose, cf).accepted());
            }
        }
    }

    /**
     * Levels "high", "low", "unknown" (in that index order), ordered low < high, increase only; the
     * model accepts "low" alone. By the order "high" → "low" is a move down (infeasible, though by
     * index it is an increase) and "unknown" → "low" is free (outside the order, though by index a
     * decrease).
     */
    @Test
    void aLevelOrderDecidesWhichWayIsUp() {
        assumeTrue(Coherent.available(), "cfx.h has no coherent entry points");
        try (Schema s = Schema.builder()
                        .categorical("savings", "high", "low", "unknown")
                        .levelOrder("low", "high")
                        .actionability(true, Direction.INCREASE_ONLY)
                        .build();
                Model m = Model.linear(new double[] {0, 5, 0}, -3, 0.5)) {
            assertTrue(s.toJson().contains("\"level_order\""), s.toJson());
            try (CoherentResult r = Coherent.explain(s, m, null, new double[] {0})) {
                assertEquals(CoherentResult.Outcome.INFEASIBLE, r.outcome());
            }
            try (CoherentResult r = Coherent.explain(s, m, null, new double[] {2})) {
                assertEquals(CoherentResult.Outcome.OPTIMAL, r.outcome());
                assertArrayEquals(new double[] {1}, r.counterfactual(0));
            }
        }
        SchemaBuilder bad = Schema.builder().categorical("savings", "high", "low").levelOrder("low", "medium");
        CfxException e = assertThrows(CfxException.class, bad::build);
        assertEquals(Status.INVALID_SCHEMA, e.statusCode());
        assertTrue(e.getMessage().contains("medium") && e.getMessage().contains("savings"), e.getMessage());
        try (SchemaBuilder b = Schema.builder().contiguous("m", 0, 10, true)) {
            assertEquals(Status.INVALID_ARGUMENT, assertThrows(CfxException.class, () -> b.levelOrder("a")).statusCode());
        }
    }

    @Test
    void timeGrowthAndWaitingReachTheSchema() {
        try (Schema s = Schema.builder()
                .contiguous("months_since_delinquency", 0, 120, true)
                .specialState(-8, "beyond records")
                .timeGrowth(1, "beyond records")
                .contiguous("age", 18, 99, false)
                .timeGrowth(1.0 / 12, null)
                .waiting(0.05, 36)
                .build()) {
            String json = s.toJson();
            assertTrue(json.contains("\"max_months\": 36"), json);
            assertTrue(json.contains("\"cost_per_month\": 0.05"), json);
            assertTrue(json.contains("\"per_month\": 1"), json);
            assertTrue(json.contains("\"ends_in\": \"beyond records\""), json);
            try (Schema back = Schema.fromJson(json)) {
                assertEquals(s.fingerprint(), back.fingerprint());
            }
        }
        SchemaBuilder noWait = Schema.builder().contiguous("m", 0, 10, true).timeGrowth(1, null);
        assertEquals(Status.INVALID_SCHEMA, assertThrows(CfxException.class, noWait::build).statusCode());
        SchemaBuilder badEnd = Schema.builder().contiguous("m", 0, 10, true).timeGrowth(1, "gone").waiting(1, 12);
        CfxException e = assertThrows(CfxException.class, badEnd::build);
        assertEquals(Status.INVALID_SCHEMA, e.statusCode());
        assertTrue(e.getMessage().contains("gone"), e.getMessage());
        SchemaBuilder tooLong = Schema.builder().contiguous("m", 0, 10, true).waiting(1, 601);
        assertEquals(Status.INVALID_SCHEMA, assertThrows(CfxException.class, tooLong::build).statusCode());
        try (SchemaBuilder b = Schema.builder().contiguous("m", 0, 10, true)) {
            assertThrows(IllegalArgumentException.class, () -> b.waiting(1, -1));
            assertThrows(NullPointerException.class, () -> b.changeLimits(null, ChangeLimit.NONE));
            assertEquals(Status.INVALID_ARGUMENT,
                    assertThrows(CfxException.class, () -> b.waiting(Double.POSITIVE_INFINITY, 12)).statusCode());
            assertEquals(Status.INVALID_ARGUMENT,
                    assertThrows(CfxException.class, () -> b.changeLimits(ChangeLimit.units(Double.NaN), ChangeLimit.NONE))
                            .statusCode());
        }
        SchemaBuilder negative = Schema.builder().contiguous("m", 0, 10, true).changeLimits(ChangeLimit.units(-1), ChangeLimit.NONE);
        assertEquals(Status.INVALID_SCHEMA, assertThrows(CfxException.class, negative::build).statusCode());
    }

    @Test
    void theGermanPresetNamesItsLimitsAndItsWaiting() {
        try (Dataset german = Dataset.loadGerman(TestData.germanPath());
                Schema s = german.schema();
                Schema advice = s.advicePreset(AdvicePreset.GERMAN_CREDIT, 0.1)) {
            assertFalse(s.toJson().contains("max_decrease"));
            String json = advice.toJson();
            assertTrue(json.contains("\"fraction\": 0.5"), json); // credit amount at most halved
            assertTrue(json.contains("\"fraction\": 0.25"), json);
            assertTrue(json.contains("\"units\": 12"), json); // duration ±12 months
            assertTrue(json.contains("\"max_months\": 24"), json);
            assertTrue(json.contains("\"cost_per_month\": 0.1"), json);
            assertTrue(json.contains("\"grows_with_time\""), json); // age waits
            assertEquals(s.nFeatures(), advice.nFeatures());
            assertEquals(Status.NOT_FOUND,
                    assertThrows(CfxException.class, () -> s.advicePreset(AdvicePreset.HELOC, 0.1)).statusCode());
            assertThrows(NullPointerException.class, () -> s.advicePreset(null, 0.1));
            assertEquals(Status.INVALID_ARGUMENT,
                    assertThrows(CfxException.class, () -> s.advicePreset(AdvicePreset.GERMAN_CREDIT, Double.NaN))
                            .statusCode());
        }
    }
}
