package org.cfx;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

class ConfigTest {
    @Test
    void everySetterReachesTheConfiguration() {
        try (Config c = Config.builder()
                .timeLimit(2.5)
                .threads(1)
                .mipGap(0.001)
                .margin(0.05)
                .nDiverse(3)
                .diversityRule(DiversityRule.RUSSELL_INTENDED)
                .nSamples(500)
                .boundM(1.5)
                .target(0.3, 0.01)
                .seed(-1L) // 2^64 - 1 as an unsigned seed
                .copaWeights(0.7, 0.2)
                .copaRadius(0.25)
                .rlEpisodes(40, 25)
                .rlTraining(0.95, 0.001, 0.0005, 32, 1000)
                .rlExploration(0.9, 0.05)
                .rlHidden(16, 8)
                .build()) {
            String json = c.toJson();
            for (String want : new String[] {
                "\"time_limit_seconds\": 2.5", "\"threads\": 1", "\"mip_gap\": 0.001", "\"margin\": 0.05",
                "\"n_diverse\": 3", "\"n_samples\": 500", "\"bound_m\": 1.5",
                "\"target\": 0.3", "\"target_epsilon\": 0.01", "\"seed\": 18446744073709551615",
                "\"copa_robust_weight\": 0.7", "\"copa_diversity_weight\": 0.2", "\"copa_radius\": 0.25",
                "40", "25", "0.95", "0.0005", "1000", "0.9", "16"
            }) {
                assertTrue(json.contains(want), want + " in " + json);
            }
            assertFalse(json.contains("null"), json);
            // The noise is given to each robust call by a Noise handle, never by the configuration.
            assertFalse(json.contains("noise"), json);
        }
    }

    @Test
    void enumsByTheirCNumbers() {
        try (Config a = Config.builder().diversityRule(DiversityRule.RUSSELL_CODE).build();
                Config b = Config.builder().diversityRule(0).build()) {
            assertEquals(a.toJson(), b.toJson());
        }
    }

    @Test
    void invalidSettingsAreRefusedByTheLibrary() {
        try (ConfigBuilder b = Config.builder()) {
            assertEquals(Status.INVALID_ARGUMENT, assertThrows(CfxException.class, () -> b.timeLimit(-1)).statusCode());
            assertEquals(Status.INVALID_ARGUMENT, assertThrows(CfxException.class, () -> b.timeLimit(Double.NaN)).statusCode());
            assertEquals(Status.INVALID_ARGUMENT, assertThrows(CfxException.class, () -> b.diversityRule(5)).statusCode());
            assertEquals(Status.INVALID_ARGUMENT, assertThrows(CfxException.class, () -> b.threads(0)).statusCode());
            assertEquals(Status.INVALID_ARGUMENT, assertThrows(CfxException.class, () -> b.target(1.5, 0)).statusCode());
            assertEquals(Status.INVALID_ARGUMENT, assertThrows(CfxException.class, () -> b.rlExploration(0.1, 0.5)).statusCode());
            assertEquals(Status.INVALID_ARGUMENT, assertThrows(CfxException.class, () -> b.rlHidden()).statusCode());
            assertThrows(IllegalArgumentException.class, () -> b.threads(-2));
            // A failed setter leaves the builder usable.
            try (Config c = b.seed(5).build()) {
                assertTrue(c.toJson().contains("\"seed\": 5"));
            }
        }
    }
}
