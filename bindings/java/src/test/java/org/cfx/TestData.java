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

    /**
     * The shared data folder, as the library finds it: {@code CFX_SHARED_DATA}, else {@code
     * ../shared/data} beside the source tree.
     */
    static Path sharedData() {
        String d = System.getenv("CFX_SHARED_DATA");
        return d != null && !d.isEmpty() ? Path.of(d) : root().resolve("../shared/data").normalize();
    }

    /** Whether the tests run under CI ({@code CI} set to anything but empty, 0 or false). */
    static boolean inCi() {
        String ci = System.getenv("CI");
        return ci != null && !ci.isEmpty() && !ci.equals("0") && !ci.equalsIgnoreCase("false");
    }

    /**
     * A file of the shared data folder. When it is missing the test is skipped with a notice, except
     * under CI, where the test fails: real data is never silently left out there.
     */
    static Path shared(String name) {
        Path p = sharedData().resolve(name);
        if (!Files.exists(p)) {
            if (inCi()) {
                throw new AssertionError(p + " is missing under CI (set CFX_SHARED_DATA to the shared data folder)");
            }
            System.err.println("notice: " + p + " not found; skipping (set CFX_SHARED_DATA)");
            org.junit.jupiter.api.Assumptions.abort("shared data missing: " + p);
        }
        return p;
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
