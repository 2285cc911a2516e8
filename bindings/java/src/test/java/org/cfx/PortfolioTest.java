package org.cfx;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * cfx_portfolio_explain and the portfolio summary. Oracles: the output file's own lines counted
 * here, the full run's lines for a cancelled run, and the single-applicant call for the solvers.
 */
class PortfolioTest {
    static Dataset german;
    static Schema schema;
    static Dataset.Split split;
    static Model model;
    static Path dir;
    static Path book;

    @BeforeAll
    static void load() throws Exception {
        german = Dataset.loadGerman(TestData.germanPath());
        schema = german.schema();
        split = german.holdoutSplit();
        model = Model.fitLinear(split.train(), 1.0);
        dir = Files.createTempDirectory("cfx-portfolio-java");
        // The German file nine times over: 9,000 applicants, in chunks of 4,096 rows at most.
        List<String> lines = Files.readAllLines(Path.of(TestData.germanPath()));
        List<String> out = new ArrayList<>();
        out.add(lines.get(0));
        for (int k = 0; k < 9; k++) {
            for (String l : lines.subList(1, lines.size())) {
                if (!l.isBlank()) out.add(l);
            }
        }
        book = dir.resolve("book.csv");
        Files.write(book, out);
    }

    @AfterAll
    static void free() {
        model.close();
        split.close();
        schema.close();
        german.close();
    }

    @Test
    void explainsEveryRowReportsOnThisThreadAndCancels() throws Exception {
        Path full = dir.resolve("full.jsonl");
        List<Long> reports = new ArrayList<>();
        Thread me = Thread.currentThread();
        Portfolio.Counts c = Portfolio.explain(schema, model, null, book.toString(), full.toString(),
                List.of("creditability"), 2, rows -> {
                    assertSame(me, Thread.currentThread());
                    reports.add(rows);
                    return true;
                });
        // After each chunk: at most 4,096 rows, fewer toward the end on two threads.
        assertTrue(reports.size() > 3, reports.toString());
        long before = 0;
        for (long done : reports) {
            assertTrue(done > before && done - before <= 4096, reports.toString());
            before = done;
        }
        assertEquals(9000L, reports.get(reports.size() - 1));
        List<String> lines = Files.readAllLines(full);
        assertEquals(9000, lines.size());
        long declined = lines.stream().filter(l -> l.contains("\"decision\":\"declined\"")).count();
        long none = lines.stream().filter(l -> l.contains("\"counterfactual\":null")).count();
        long accepted = lines.stream().filter(l -> l.contains("\"decision\":\"accepted\"")).count();
        assertEquals(new Portfolio.Counts(9000, accepted, declined, declined - none, 0), c);
        assertTrue(declined > 0);

        // Cancel at the first report: CANCELLED, the target untouched, and exactly the full run's
        // first lines, as many as reported, kept in its partial file.
        Path cut = dir.resolve("cut.jsonl");
        List<Long> first = new ArrayList<>();
        CfxException e = assertThrows(CfxException.class, () -> Portfolio.explain(schema, model, null,
                book.toString(), cut.toString(), List.of("creditability"), 2, rows -> {
                    first.add(rows);
                    return false;
                }));
        assertEquals(Status.CANCELLED, e.statusCode());
        assertEquals(1, first.size());
        int r = first.get(0).intValue();
        assertTrue(r > 0 && r < 9000, first.toString());
        assertTrue(e.getMessage().contains("after " + r + " rows"), e.getMessage());
        assertFalse(Files.exists(cut));
        assertEquals(lines.subList(0, r), Files.readAllLines(dir.resolve("cut.jsonl.cfx-partial")));
        // Resumed on one thread: the full run's bytes and counts, the partial file gone.
        try (Config resume = Config.builder().resume(true).build()) {
            Portfolio.Counts again = Portfolio.explain(schema, model, resume, book.toString(), cut.toString(),
                    List.of("creditability"), 1, null);
            assertEquals(c, again);
        }
        assertArrayEquals(Files.readAllBytes(full), Files.readAllBytes(cut));
        assertFalse(Files.exists(dir.resolve("cut.jsonl.cfx-partial")));
        Files.delete(cut);

        // A listener's own exception wins over CANCELLED.
        assertThrows(IllegalStateException.class, () -> Portfolio.explain(schema, model, null,
                book.toString(), cut.toString(), List.of("creditability"), 1, rows -> {
                    throw new IllegalStateException("stop");
                }));

        // The label column unless ignored is a data error naming it.
        CfxException bad = assertThrows(CfxException.class, () -> Portfolio.explain(schema, model, null,
                book.toString(), cut.toString(), List.of(), 1, null));
        assertEquals(Status.DATA_ERROR, bad.statusCode());
        assertTrue(bad.getMessage().contains("'creditability'"), bad.getMessage());

        // The summary by personal status and sex: groups add up to the counts of the lines.
        try (PortfolioSummary s = PortfolioSummary.summarize(schema, book.toString(), full.toString(),
                "personal_status_and_sex", null)) {
            PortfolioSummary.Group all = s.overall();
            assertEquals("all", all.name());
            assertEquals(9000, all.rows());
            assertEquals(declined, all.declined());
            assertEquals(declined - none, all.withRecourse());
            assertEquals((double) (declined - none) / declined, all.shareWithRecourse(), 1e-15);
            assertTrue(s.groupCount() >= 3);
            long rows = 0, dec = 0;
            for (int g = 0; g < s.groupCount(); g++) {
                rows += s.group(g).rows();
                dec += s.group(g).declined();
            }
            assertEquals(9000, rows);
            assertEquals(declined, dec);
            double[] q = s.costQuantiles(-1);
            assertEquals(all.withRecourse(), (long) q[0]);
            assertEquals(all.medianCost(), q[5]);
            assertTrue(q[2] <= q[5] && q[5] <= q[8]);
            assertTrue(s.describe(5).contains("by personal_status_and_sex:"));
            assertTrue(s.toJson().contains("\"group_column\": \"personal_status_and_sex\""));
            Path svg = dir.resolve("chart.svg");
            s.writeSvg("German credit", 5, svg.toString());
            assertTrue(Files.readString(svg).startsWith("<svg"));
            assertThrows(CfxException.class, () -> s.group(s.groupCount()));
        }
        // Age bands: four groups for three edges; decreasing edges are refused.
        try (PortfolioSummary s = PortfolioSummary.summarize(schema, book.toString(), full.toString(),
                "age_in_years", new double[] {25, 35, 50})) {
            assertEquals(4, s.groupCount());
            assertEquals("< 25", s.group(0).name());
            assertEquals("≥ 50", s.group(3).name());
        }
        CfxException edges = assertThrows(CfxException.class, () -> PortfolioSummary.summarize(schema,
                book.toString(), full.toString(), "age_in_years", new double[] {50, 25}));
        assertEquals(Status.INVALID_ARGUMENT, edges.statusCode());
    }

    @Test
    void solverChoiceAndProvedBy() {
        double[] row = null;
        for (int i = 0; row == null; i++) {
            double[] raw = split.test().row(i);
            if (!model.predictRaw(schema, raw).accepted()) row = raw;
        }
        try (Config mip = Config.builder().solver(Solver.MIP).build();
                CoherentResult a = Coherent.explain(schema, model, null, row);
                CoherentResult b = Coherent.explain(schema, model, mip, row)) {
            assertEquals(ProvedBy.SEPARABLE, a.provedBy());
            assertEquals(ProvedBy.HIGHS, b.provedBy());
            double x = a.certificate(0).cost(), y = b.certificate(0).cost();
            assertEquals(x, y, 1e-9 * Math.max(Math.abs(x), Math.abs(y)));
        }
        try (ConfigBuilder cb = Config.builder()) {
            CfxException e = assertThrows(CfxException.class, () -> cb.solver(7));
            assertEquals(Status.INVALID_ARGUMENT, e.statusCode());
        }
    }
}
