package org.cfx;

import static org.junit.jupiter.api.Assertions.*;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SchemaBuilderTest {
    static Schema small() {
        return Schema.builder()
                .contiguous("income", 0, 1000, true)
                .specialState(-7, "no record")
                .categorical("housing", "own", "rent", "für frei")
                .contiguous("age", 18, 80, true)
                .actionability(true, Direction.INCREASE_ONLY)
                .categorical("sex", "f", "m")
                .actionability(false, Direction.ANY)
                .build();
    }

    @Test
    void schemaBuiltInCodeMatchesTheJsonRoute() {
        try (Schema s = small();
                Schema back = Schema.fromJson(s.toJson())) {
            assertEquals(4, s.nFeatures());
            // income: value slot + 1 special state; housing 3 levels; age 1; sex 2
            assertEquals(2 + 3 + 1 + 2, s.encodedDim());
            assertEquals("housing", s.featureName(1));
            assertEquals(back.fingerprint(), s.fingerprint());
            String json = s.toJson();
            assertTrue(json.contains("für frei"), json);
            assertTrue(json.contains("no record"), json);
            assertTrue(json.contains("\"mutable\": false"), json);
            double[] raw = {-7, 2, 30, 1};
            assertArrayEquals(raw, s.decode(s.encode(raw)), 1e-12);
            double[] older = {-7, 2, 31, 1};
            assertEquals("age: 30 → 31", s.describeChanges(raw, older).strip());
        }
    }

    @Test
    void invalidSchemasAreRefusedAndTheBuilderIsConsumed() {
        Native.trackFrees = true;
        try {
            SchemaBuilder b = Schema.builder().contiguous("x", 0, 1, false).contiguous("x", 0, 2, false);
            long id = b.resourceId();
            CfxException e = assertThrows(CfxException.class, b::build);
            assertEquals(Status.INVALID_SCHEMA, e.statusCode(), e.getMessage());
            assertTrue(b.isClosed());
            b.close();
            AtomicInteger frees = Native.FREE_COUNTS.get(id);
            assertNull(frees, "a consumed builder is never freed from Java");
        } finally {
            Native.trackFrees = false;
        }
        try (SchemaBuilder b = Schema.builder()) {
            assertEquals(
                    Status.INVALID_ARGUMENT,
                    assertThrows(CfxException.class, () -> b.specialState(-1, "none")).statusCode(),
                    "no feature yet");
            b.categorical("c", "a", "b");
            assertEquals(
                    Status.INVALID_ARGUMENT,
                    assertThrows(CfxException.class, () -> b.specialState(-1, "none")).statusCode(),
                    "special states belong to contiguous features");
            assertEquals(
                    Status.INVALID_ARGUMENT,
                    assertThrows(CfxException.class, () -> b.actionability(true, 9)).statusCode());
            assertEquals(
                    Status.INVALID_ARGUMENT,
                    assertThrows(CfxException.class, () -> b.contiguous("y", Double.NaN, 1, false)).statusCode());
            assertThrows(NullPointerException.class, () -> b.categorical("d", "a", null));
        } // closing an unbuilt builder frees it
        try (Schema empty = Schema.builder().categorical("c").build()) {
            fail("a categorical feature without levels must be refused, got " + empty.toJson());
        } catch (CfxException e) {
            assertEquals(Status.INVALID_SCHEMA, e.statusCode(), e.getMessage());
        }
    }

    @Test
    void modelOverABuiltSchemaPredictsRawRows() {
        try (Schema s = small();
                Model m = Model.linear(new double[] {0.001, 0, 0, 0, 0, 0.5, 0, 0}, -0.2, 0.5)) {
            double[] raw = {500, 0, 40, 0};
            Model.Prediction p = m.predictRaw(s, raw);
            assertEquals(m.predict(s.encode(raw)), p);
        }
    }
}
