package org.cfx;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Adverse-action notices: one declined German applicant under the logistic model. */
class NoticeTest {
    private static List<String> all(String regex, String text) {
        List<String> out = new ArrayList<>();
        Matcher m = Pattern.compile(regex).matcher(text);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    @Test
    void declinedGermanApplicantGetsReasonsThatTheHtmlShows() {
        try (Dataset german = Dataset.loadGerman(TestData.germanPath());
                Schema schema = german.schema();
                Model model = Model.fitLinear(german, 1.0)) {
            double[] declined = null;
            double[] accepted = null;
            for (int i = 0; i < german.nRows() && (declined == null || accepted == null); i++) {
                double[] r = german.row(i);
                if (model.predictRaw(schema, r).accepted()) {
                    accepted = accepted == null ? r : accepted;
                } else {
                    declined = declined == null ? r : declined;
                }
            }
            String table = TestData.root().resolve("examples/data/reasons/german_reasons.csv").toString();
            String options = "{\"reason_table_path\": \"" + table.replace("\\", "\\\\") + "\"}";
            String json;
            String html;
            try (Notice n = Notice.explain(schema, model, german, null, declined, options)) {
                json = n.toJson();
                html = n.toHtml();
            }
            assertTrue(json.contains("\"kind\": \"notice\""), json);
            assertTrue(json.contains("\"method\": \"linear_exact\""), json);
            // Every reason carries the table's statement (nothing else in a notice has one).
            List<String> statements = all("\"statement\": \"([^\"]*)\"", json);
            assertTrue(statements.size() >= 1 && statements.size() <= 4, json);
            // The contributions are negative and ranked from the most adverse.
            List<String> reasons = all("(?s)\"rank\": \\d+,\\s*\"feature\": \"[^\"]*\",.*?\"contribution\": ([-0-9.e]+)", json);
            assertEquals(statements.size(), reasons.size(), json);
            for (int k = 0; k < reasons.size(); k++) {
                double c = Double.parseDouble(reasons.get(k));
                assertTrue(c < 0, json);
                if (k > 0) {
                    assertTrue(Double.parseDouble(reasons.get(k - 1)) <= c, json);
                }
            }
            // The notice's score is the model's own score of the applicant.
            double score = Double.parseDouble(all("\"score\": ([-0-9.e]+)", json).get(0));
            assertEquals(model.predictRaw(schema, declined).score(), score, 1e-12);
            assertFalse(html.toLowerCase().contains("<script"));
            for (String s : statements) {
                assertTrue(html.contains(s), s);
            }
            final double[] ok = accepted;
            CfxException e = assertThrows(
                    CfxException.class, () -> Notice.explain(schema, model, german, null, ok, null));
            assertEquals(Status.INVALID_ARGUMENT, e.statusCode());
        }
    }

    /**
     * A book of 40 German applicants: one line per declined applicant (the model's own decision,
     * row by row, is the oracle), each notice the one {@link Notice#explain} makes for that row
     * (same id), and the ledger's records carry those ids.
     */
    @Test
    void bookWritesOneNoticePerDeclinedApplicantAndItsLedger() throws Exception {
        Path dir = Files.createTempDirectory("cfx-notice-book");
        try (Dataset german = Dataset.loadGerman(TestData.germanPath());
                Schema schema = german.schema();
                Model model = Model.fitLinear(german, 1.0)) {
            List<String> lines = Files.readAllLines(Path.of(TestData.germanPath()));
            Path input = dir.resolve("book.csv");
            Files.write(input, lines.subList(0, 41));
            Path output = dir.resolve("notices.jsonl");
            Path ledger = dir.resolve("ledger.jsonl");
            String options = "{\"ignore_columns\": [\"creditability\"], \"necessity\": false}";
            long written = Notice.book(
                    schema, model, german, null, input.toString(), output.toString(), ledger.toString(), options);
            List<String> got = Files.readAllLines(output);
            assertEquals(written, got.size());
            List<Integer> declined = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                if (!model.predictRaw(schema, german.row(i)).accepted()) {
                    declined.add(i);
                }
            }
            assertEquals(declined.size(), got.size());
            String ledgerText = Files.readString(ledger);
            for (int k = 0; k < got.size(); k++) {
                String line = got.get(k);
                int row = declined.get(k);
                assertTrue(line.endsWith("\"row\":" + row + "}"), line);
                String id;
                try (Notice n = Notice.explain(
                        schema, model, german, null, german.row(row), "{\"necessity\": false}")) {
                    id = all("\"id\": \"(fnv1a64:[0-9a-f]+)\"", n.toJson()).get(0);
                }
                assertTrue(line.contains("\"id\":\"" + id + "\""), line);
                assertTrue(ledgerText.contains("\"notice\":\"" + id + "\""), id);
            }
            CfxException e = assertThrows(
                    CfxException.class,
                    () -> Notice.book(schema, model, german, null, input.toString(), input.toString(), null, null));
            assertEquals(Status.INVALID_ARGUMENT, e.statusCode());
        } finally {
            for (Path p : new Path[] {dir.resolve("book.csv"), dir.resolve("notices.jsonl"), dir.resolve("ledger.jsonl")}) {
                Files.deleteIfExists(p);
            }
            Files.deleteIfExists(dir);
        }
    }
}
