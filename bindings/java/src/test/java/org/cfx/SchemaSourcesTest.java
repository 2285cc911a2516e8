package org.cfx;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Where a schema comes from: the builder with every actionability field (against the same schema
 * written as JSON), the weights a schema says it has, a dataset's schema with weights fitted on its
 * rows (against weights computed by hand), and schema inference from a CSV.
 */
class SchemaSourcesTest {
    static final String JSON = "{\"format_version\": 1, \"features\": ["
            + "{\"name\": \"income\", \"kind\": \"contiguous\", \"lower\": 0, \"upper\": 100000, \"step\": 500,"
            + " \"special_states\": [{\"code\": -7, \"label\": \"no record\"}],"
            + " \"actionability\": {\"direction\": \"increase_only\", \"lower\": 1000, \"upper\": 90000,"
            + " \"cost_scale\": 2.5, \"forbidden_transitions\": [{\"from\": \"value\", \"to\": \"no record\"}]}},"
            + "{\"name\": \"housing\", \"kind\": \"categorical\", \"levels\": [\"rent\", \"own\", \"free\"],"
            + " \"actionability\": {\"cost_scale\": 0.5, \"forbidden_transitions\": [{\"from\": \"own\", \"to\": \"*\"}]}},"
            + "{\"name\": \"age\", \"kind\": \"contiguous\", \"lower\": 18, \"upper\": 99, \"integer\": true,"
            + " \"actionability\": {\"mutable\": false}}]}";

    @Test
    void builderSetsEveryActionabilityFieldAsJsonDoes() {
        try (Schema want = Schema.fromJson(JSON);
                Schema got = Schema.builder()
                        .contiguous("income", 0, 100000, false)
                        .specialState(-7, "no record")
                        .step(500)
                        .actionability(true, Direction.INCREASE_ONLY)
                        .actionableBounds(1000, 90000)
                        .costScale(2.5)
                        .forbidTransition("value", "no record")
                        .categorical("housing", "rent", "own", "free")
                        .costScale(0.5)
                        .forbidTransition("own", "*")
                        .contiguous("age", 18, 99, true)
                        .actionability(false, Direction.ANY)
                        .build()) {
            assertEquals(want.toJson(), got.toJson());
            assertEquals(want.fingerprint(), got.fingerprint());
            assertEquals(WeightsKind.UNIT, got.weightsKind());
        }
    }

    @Test
    void builderRefusesWhatDoesNotApply() {
        try (SchemaBuilder b = Schema.builder().categorical("housing", "rent", "own")) {
            assertEquals(Status.INVALID_ARGUMENT,
                    assertThrows(CfxException.class, () -> b.step(1)).statusCode());
            assertEquals(Status.INVALID_ARGUMENT,
                    assertThrows(CfxException.class, () -> b.actionableBounds(0, 1)).statusCode());
            assertEquals(Status.INVALID_ARGUMENT,
                    assertThrows(CfxException.class, () -> b.costScale(0)).statusCode());
            assertThrows(NullPointerException.class, () -> b.forbidTransition(null, "*"));
        }
        SchemaBuilder b = Schema.builder().contiguous("months", 0, 10, true).forbidTransition("value", "bankrupt");
        CfxException e = assertThrows(CfxException.class, b::build);
        assertEquals(Status.NOT_FOUND, e.statusCode()); // an unknown state
        assertTrue(e.getMessage().contains("months"), e.getMessage());
        SchemaBuilder off = Schema.builder().contiguous("months", 0, 10, true).step(3);
        assertEquals(Status.INVALID_SCHEMA, assertThrows(CfxException.class, off::build).statusCode());
    }

    static double number(String json, String key, int nth) {
        Matcher m = Pattern.compile("\"" + key + "\": (-?[0-9.eE+-]+)").matcher(json);
        for (int i = 0; i <= nth; i++) {
            assertTrue(m.find(), key + " #" + i + " in " + json);
        }
        return Double.parseDouble(m.group(1));
    }

    /**
     * income 0, 2, 4, 10 in [0, 10]: slots 0, .2, .4, 1, median .3, MAD .2, weight 5, anchor .3;
     * housing "own" in 3 of 4 rows: each indicator weighs 1/(1.48·√(3/16)).
     */
    @Test
    void aDatasetOffersItsSchemaWithWeightsFittedOnItsRows() throws Exception {
        Path dir = Files.createTempDirectory("cfx-fitted");
        Path csv = dir.resolve("four.csv");
        Files.writeString(csv, "income,housing,outcome\n0,own,good\n2,own,bad\n4,rent,good\n10,own,good\n");
        try (Schema s = Schema.fromJson("{\"format_version\": 1, \"features\": ["
                        + "{\"name\": \"income\", \"kind\": \"contiguous\", \"lower\": 0, \"upper\": 10},"
                        + "{\"name\": \"housing\", \"kind\": \"categorical\", \"levels\": [\"rent\", \"own\"]}]}");
                Dataset d = Dataset.fromCsv(s, csv.toString(), "outcome", "good");
                Schema own = d.schema();
                Schema fitted = d.fittedSchema()) {
            assertEquals(WeightsKind.UNIT, s.weightsKind());
            assertEquals(WeightsKind.UNIT, own.weightsKind());
            assertEquals(WeightsKind.FITTED, fitted.weightsKind());
            String json = fitted.toJson();
            assertEquals(5.0, number(json, "value", 0), 1e-12, json);
            assertEquals(0.3, number(json, "anchor", 0), 1e-12, json);
            double w = 1 / (1.48 * Math.sqrt(3.0 / 16.0));
            Matcher states = Pattern.compile("\"states\": \\[\\s*([^\\]]*)\\]").matcher(json);
            assertTrue(states.find() && states.find(), json); // the second: housing's
            for (String v : states.group(1).split(",")) {
                assertEquals(w, Double.parseDouble(v.strip()), 1e-12, json);
            }
        } finally {
            Files.deleteIfExists(csv);
            Files.deleteIfExists(dir);
        }
    }

    @Test
    void schemaInferenceFromACsvWithCallerGivenSpecialCodes() throws Exception {
        Path dir = Files.createTempDirectory("cfx-infer");
        Path csv = dir.resolve("semi.csv");
        Files.writeString(csv, "id;months;debt;region;status\na1;12;-7;1;ok\na2;-7;2.5;2;late\na3;24;NA;1;ok\na4;36;0.5;3;ok\n");
        List<SpecialCode> specials = List.of(new SpecialCode(-7, "no record", "debt"), new SpecialCode(-1, "NA", "debt"));
        try (Dataset d = Dataset.inferCsv(
                        csv.toString(), "status", "ok", ';', true, List.of("id"), List.of("region"), specials);
                Schema s = d.schema()) {
            assertEquals(WeightsKind.FITTED, s.weightsKind());
            assertEquals(3, s.nFeatures());
            assertEquals("months", s.featureName(0));
            assertEquals("region", s.featureName(2));
            String json = s.toJson();
            assertTrue(json.replaceAll("\\s", "").contains("\"levels\":[\"1\",\"2\",\"3\"]"), json);
            assertEquals(-7.0, number(json, "lower", 0), 0.0, json); // months: −7 is a value there
            assertEquals(0.5, number(json, "lower", 1), 0.0, json); // debt: range of the non-special values
            assertEquals(2.5, number(json, "upper", 1), 0.0, json);
            assertTrue(json.contains("\"no record\"") && json.contains("\"NA\""), json);
            assertArrayEquals(new double[] {24, -1, 0}, d.row(2), 0.0);
            assertEquals(0.0, d.label(1), 0.0);
            List<SpecialCode> withoutNa = new ArrayList<>(specials.subList(0, 1));
            CfxException e = assertThrows(CfxException.class, () -> Dataset.inferCsv(
                    csv.toString(), "status", "ok", ';', true, List.of("id"), List.of("region"), withoutNa));
            assertEquals(Status.DATA_ERROR, e.statusCode());
            assertTrue(e.getMessage().contains("debt"), e.getMessage());
            assertEquals(Status.NOT_FOUND, assertThrows(CfxException.class, () -> Dataset.inferCsv(
                    csv.toString(), "status", "ok", ';', true, List.of("ident"), List.of(), List.of())).statusCode());
            assertThrows(IllegalArgumentException.class, () -> Dataset.inferCsv(
                    csv.toString(), "status", "ok", 'Ļ', true, List.of(), List.of(), List.of()));
        } finally {
            Files.deleteIfExists(csv);
            Files.deleteIfExists(dir);
        }
    }

    /**
     * The caller's advice rules come back in the inferred schema's JSON; a rule naming no feature
     * is refused naming it.
     */
    @Test
    void inferenceTakesTheCallersAdviceRules() throws Exception {
        Path dir = Files.createTempDirectory("cfx-infer-rules");
        Path csv = dir.resolve("rules.csv");
        Files.writeString(csv, "age,months,income,status\n30,12,100,ok\n41,30,80,late\n52,7,120,ok\n");
        String rules = "{\"actionability\": {\"age\": {\"mutable\": false},"
                + " \"income\": {\"direction\": \"increase_only\"},"
                + " \"months\": {\"mutable\": false, \"grows_with_time\": {\"per_month\": 1}}},"
                + " \"waiting\": {\"max_months\": 12, \"cost_per_month\": 0.05}}";
        try (Dataset d = Dataset.inferCsv(csv.toString(), "status", "ok", ',', true, List.of(), List.of(),
                        List.of(), rules);
                Schema s = d.schema()) {
            String json = s.toJson().replaceAll("\\s", "");
            assertTrue(json.contains("\"name\":\"age\"") && json.contains("\"mutable\":false"), json);
            assertTrue(json.contains("\"direction\":\"increase_only\""), json);
            assertTrue(json.contains("\"grows_with_time\":{\"per_month\":1.0}"), json);
            assertTrue(json.contains("\"max_months\":12"), json);
        }
        try (Dataset d = Dataset.inferCsv(csv.toString(), "status", "ok", ',', true, List.of(), List.of(),
                        List.of(), null);
                Schema s = d.schema()) {
            assertFalse(s.toJson().contains("increase_only"));
        }
        CfxException e = assertThrows(CfxException.class, () -> Dataset.inferCsv(csv.toString(), "status", "ok",
                ',', true, List.of(), List.of(), List.of(), "{\"actionability\": {\"salary\": {\"mutable\": false}}}"));
        assertEquals(Status.NOT_FOUND, e.statusCode());
        assertTrue(e.getMessage().contains("salary"), e.getMessage());
        e = assertThrows(CfxException.class, () -> Dataset.inferCsv(csv.toString(), "status", "ok",
                ',', true, List.of(), List.of(), List.of(), "{\"actionabilty\": {}}"));
        assertEquals(Status.FORMAT_ERROR, e.statusCode());
        Files.delete(csv);
        Files.delete(dir);
    }

    /** HELOC inferred with −7/−8/−9 given by the caller has the loader's features and rows. */
    @Test
    void helocInferredWithItsSpecialCodesMatchesTheLoader() {
        Path heloc = TestData.shared("heloc.csv");
        List<SpecialCode> codes = List.of(new SpecialCode(-7, "condition not met"),
                new SpecialCode(-8, "no usable trades"), new SpecialCode(-9, "no bureau record"));
        try (Dataset d = Dataset.inferCsv(heloc.toString(), "RiskPerformance", "Good", ',', true,
                        List.of(), List.of(), codes);
                Dataset known = Dataset.loadHeloc(heloc.toString());
                Schema s = d.schema();
                Schema k = known.schema()) {
            assertEquals(known.nRows(), d.nRows());
            assertEquals(k.nFeatures(), s.nFeatures());
            assertEquals(k.encodedDim(), s.encodedDim());
            assertEquals(WeightsKind.FITTED, s.weightsKind());
            assertArrayEquals(known.row(17), d.row(17), 0.0);
        }
    }
}
