package org.cfx;

import static org.junit.jupiter.api.Assertions.*;

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
}
