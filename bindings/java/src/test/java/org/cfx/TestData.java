package org.cfx;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** Paths and the Rust reference numbers shared by the tests. */
final class TestData {
    private TestData() {}

    static Path root() {
        String r = System.getProperty("cfx.root");
        if (r == null) {
            throw new IllegalStateException("run with -Dcfx.root=<the cfx source tree>");
        }
        return Path.of(r);
    }

    static String germanPath() {
        return root().resolve("examples/data/german_credit.csv").toString();
    }

    /** bindings/scenario_expected.txt, written by `cargo run --release --example binding_scenario`. */
    static Map<String, String> expected() throws IOException {
        Map<String, String> m = new LinkedHashMap<>();
        for (String line : Files.readAllLines(root().resolve("bindings/scenario_expected.txt"))) {
            int eq = line.indexOf(" = ");
            if (eq > 0) {
                m.put(line.substring(0, eq).trim(), line.substring(eq + 3).trim());
            }
        }
        return m;
    }
}
