package org.cfx;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The sequential (policy) entry points (run when the header declares them; skipped otherwise). */
class SequentialTest {
    static Dataset german;
    static Schema schema;
    static Dataset.Split split;
    static Model model;
    static Config config;
    static Policy policy;
    static final List<Sequential.Progress> progress = new ArrayList<>();
    static final List<String> threads = new ArrayList<>();

    @BeforeAll
    static void load() {
        if (!Sequential.available()) {
            return; // every test is skipped by need()
        }
        german = Dataset.loadGerman(TestData.germanPath());
        schema = german.schema();
        split = german.holdoutSplit();
        model = Model.fitLinear(split.train(), 1.0);
        config = Config.builder().seed(5).rlEpisodes(300, 8).rlHidden(16).build();
        policy = Sequential.train(split.train(), model, config, Sequential.Reward.BINARY, p -> {
            progress.add(p);
            threads.add(Thread.currentThread().getName());
            return true;
        });
    }

    @BeforeEach
    void need() {
        assumeTrue(Sequential.available(), "cfx.h has no sequential entry points yet");
    }

    @AfterAll
    static void free() {
        if (german != null) {
            policy.close();
            config.close();
            model.close();
            split.close();
            schema.close();
            german.close();
        }
    }

    @Test
    void trainingReportsProgressAndIsDeterministic() {
        assertFalse(progress.isEmpty());
        Sequential.Progress last = progress.get(progress.size() - 1);
        assertEquals(300, last.episodesTotal());
        assertEquals(300, last.episodesDone());
        for (int i = 1; i < progress.size(); i++) {
            assertTrue(progress.get(i).episodesDone() >= progress.get(i - 1).episodesDone());
            assertTrue(progress.get(i).steps() >= progress.get(i - 1).steps());
        }
        try (Policy again = Sequential.train(split.train(), model, config, Sequential.Reward.BINARY, null)) {
            assertEquals(policy.toJson(), again.toJson(), "same inputs and seed, same policy bits");
        }
    }

    @Test
    void listenerCanCancelOrThrow() {
        CfxException e = assertThrows(
                CfxException.class,
                () -> Sequential.train(split.train(), model, config, Sequential.Reward.PROBABILITY, p -> false));
        assertEquals(Status.CANCELLED, e.statusCode());
        IllegalStateException mine = assertThrows(
                IllegalStateException.class,
                () -> Sequential.train(split.train(), model, config, Sequential.Reward.BINARY, p -> {
                    throw new IllegalStateException("stop from Java");
                }));
        assertEquals("stop from Java", mine.getMessage());
        // the library still works afterwards
        assertEquals(18, policy.nActions());
    }

    @Test
    void policyRoundTripsThroughJsonAndFiles() throws Exception {
        String json = policy.toJson();
        try (Policy back = Policy.fromJson(json)) {
            assertEquals(json, back.toJson());
        }
        Path f = Files.createTempFile("cfx-policy", ".json");
        try {
            policy.save(f.toString());
            try (Policy loaded = Policy.load(f.toString())) {
                assertEquals(json, loaded.toJson());
            }
        } finally {
            Files.deleteIfExists(f);
        }
        assertEquals(Status.IO_ERROR, assertThrows(CfxException.class, () -> Policy.load("/nonexistent/p.json")).statusCode());
        assertEquals(Status.FORMAT_ERROR, assertThrows(CfxException.class, () -> Policy.fromJson("{}")).statusCode());
    }

    @Test
    void plansAreConsistentWithTheModel() {
        double[] declined = split.test().row(2);
        try (Plan plan = policy.answer(schema, model, declined)) {
            assertEquals(model.predictRaw(schema, declined).probability(), plan.initialProbability(), 1e-12);
            double[] row = declined.clone();
            for (int i = 0; i < plan.nSteps(); i++) {
                Plan.Step s = plan.step(i);
                assertEquals(row[s.feature()], s.from(), 1e-9, "step " + i);
                row[s.feature()] = s.to();
                assertEquals(model.predictRaw(schema, row).probability(), s.probability(), 1e-9);
                assertTrue(plan.stepText(i).startsWith(schema.featureName(s.feature()) + ": "), plan.stepText(i));
            }
            assertEquals(model.predictRaw(schema, row).accepted(), plan.succeeded());
            assertTrue(plan.toJson().contains("sequential_plan"));
            int n = plan.nSteps();
            assertEquals(Status.NOT_FOUND, assertThrows(CfxException.class, () -> plan.step(n)).statusCode());
        }
        try (Plan none = policy.answer(schema, model, split.test().row(1))) {
            assertEquals(0, none.nSteps(), "an accepted applicant needs no step");
            assertTrue(none.succeeded());
        }
    }

    @Test
    void metricsCoverTheTestSet() {
        Policy.Metrics m = policy.evaluate(model, split.test());
        assertEquals(300, m.nInstances() + m.nAlreadyAccepted());
        assertTrue(m.satisfiability() >= 0 && m.satisfiability() <= 1, m.toString());
        assertTrue(m.entropy() >= 0 && m.entropy() <= 1, m.toString());
    }
}
