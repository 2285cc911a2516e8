package org.cfx;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class SchemaTest {
    static Dataset german;
    static Schema schema;

    @BeforeAll
    static void load() {
        german = Dataset.loadGerman(TestData.germanPath());
        schema = german.schema();
    }

    @AfterAll
    static void free() {
        schema.close();
        german.close();
    }

    @Test
    void jsonRoundTripKeepsTheSchemaAndItsFingerprint() {
        String json = schema.toJson();
        try (Schema back = Schema.fromJson(json)) {
            assertEquals(json, back.toJson());
            assertEquals(schema.fingerprint(), back.fingerprint());
            assertEquals(schema.nFeatures(), back.nFeatures());
            assertEquals(schema.encodedDim(), back.encodedDim());
        }
        assertTrue(schema.fingerprint().matches("fnv1a64:[0-9a-f]{16}"), schema.fingerprint());
    }

    @Test
    void namesAndIndicesAgree() {
        assertEquals(20, schema.nFeatures());
        for (int i = 0; i < schema.nFeatures(); i++) {
            assertEquals(i, schema.indexOf(schema.featureName(i)));
        }
    }

    @Test
    void encodeThenDecodeGivesBackEveryGermanApplicant() {
        for (int i = 0; i < german.nRows(); i++) {
            double[] raw = german.row(i);
            double[] x = schema.encode(raw);
            assertEquals(schema.encodedDim(), x.length);
            for (double v : x) {
                assertTrue(v >= 0.0 && v <= 1.0, "encoded slots are in [0, 1]");
            }
            assertArrayEquals(raw, schema.decode(x), 1e-9, "row " + i);
        }
    }

    @Test
    void incoherentVectorsAreRefused() {
        double[] x = schema.encode(german.row(0));
        java.util.Arrays.fill(x, 1.0); // every indicator on
        CfxException e = assertThrows(CfxException.class, () -> schema.decode(x));
        assertEquals(Status.INCOHERENT, e.statusCode());
        assertEquals(
                Status.DIMENSION_MISMATCH,
                assertThrows(CfxException.class, () -> schema.encode(new double[3])).statusCode());
    }

    @Test
    void describeChangesNamesTheChangedFeaturesInTheirOwnWords() {
        double[] from = german.row(0);
        double[] to = from.clone();
        int dur = schema.indexOf("duration_in_month");
        to[dur] = from[dur] + 6;
        String text = schema.describeChanges(from, to);
        assertEquals(1, text.lines().count(), text);
        assertTrue(text.startsWith("duration_in_month: "), text);
        assertTrue(text.contains("→"), "UTF-8 arrow survives the JNI boundary: " + text);
        assertEquals("", schema.describeChanges(from, from));
    }

    @Test
    void nonAsciiNamesSurviveTheRoundTrip() {
        String name = "Kreditdauer_Größe_€_𝄞";
        String json = schema.toJson().replace("\"duration_in_month\"", "\"" + name + "\"");
        try (Schema s = Schema.fromJson(json)) {
            int i = s.indexOf(name);
            assertEquals(name, s.featureName(i));
            assertTrue(s.toJson().contains(name));
        }
    }

    @Test
    void fitWeightsMakesANewSchemaAndLeavesThisOneAlone() {
        String before = schema.fingerprint();
        double[][] rows = new double[100][];
        for (int i = 0; i < rows.length; i++) {
            rows[i] = german.row(i);
        }
        try (Schema fitted = schema.fitWeights(rows)) {
            assertEquals(schema.nFeatures(), fitted.nFeatures());
            assertEquals(before, schema.fingerprint());
            assertNotEquals(before, fitted.fingerprint(), "weights from 100 rows differ from 1000");
        }
        assertThrows(IllegalArgumentException.class, () -> schema.fitWeights(new double[][] {{1, 2}}));
    }

    @Test
    void invalidSchemaIsRefused() {
        String json = schema.toJson().replace("\"duration_in_month\"", "\"credit_amount\"");
        CfxException e = assertThrows(CfxException.class, () -> Schema.fromJson(json));
        assertEquals(Status.INVALID_SCHEMA, e.statusCode(), e.getMessage());
    }
}
