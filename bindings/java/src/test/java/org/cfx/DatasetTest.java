package org.cfx;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class DatasetTest {
    @Test
    void germanLoadsFromAPathAndFromTheBundledCopy() {
        try (Dataset a = Dataset.loadGerman(TestData.germanPath());
                Dataset b = Dataset.loadGerman(null)) {
            assertEquals(1000, a.nRows());
            assertEquals(a.nRows(), b.nRows());
            assertArrayEquals(a.row(0), b.row(0));
            assertArrayEquals(a.row(999), b.row(999));
            double[] y = a.labels();
            int good = 0;
            for (double v : y) {
                assertTrue(v == 0.0 || v == 1.0);
                good += (int) v;
            }
            assertEquals(700, good, "Statlog German: 700 good, 300 bad");
        }
    }

    @Test
    void holdoutSplitIsTheFixedSeventyThirty() {
        try (Dataset d = Dataset.loadGerman(TestData.germanPath());
                Dataset.Split s = d.holdoutSplit()) {
            assertEquals(700, s.train().nRows());
            assertEquals(300, s.test().nRows());
            assertArrayEquals(d.row(7), s.test().row(0), "row i is held out when i mod 10 >= 7");
            assertArrayEquals(d.row(10), s.train().row(7));
            assertEquals(d.label(19), s.test().label(5));
        }
    }

    @Test
    void fromCsvUnderASchemaReadsTheSameRows() {
        try (Dataset d = Dataset.loadGerman(TestData.germanPath());
                Schema s = d.schema();
                Dataset e = Dataset.fromCsv(s, TestData.germanPath(), "creditability", "good")) {
            assertEquals(d.nRows(), e.nRows());
            for (int i = 0; i < d.nRows(); i += 37) {
                assertArrayEquals(d.row(i), e.row(i));
                assertEquals(d.label(i), e.label(i));
            }
            try (Schema es = e.schema()) {
                assertEquals(s.fingerprint(), es.fingerprint());
            }
            CfxException x =
                    assertThrows(CfxException.class, () -> Dataset.fromCsv(s, TestData.germanPath(), "nope", "good"));
            assertEquals(Status.NOT_FOUND, x.statusCode(), x.getMessage());
            assertTrue(x.detail().contains("nope"), x.detail());
        }
    }

    @Test
    void helocAndTaiwanLoadWhenTheSharedDataIsThere() {
        Path heloc = TestData.shared("heloc.csv");
        Path taiwan = TestData.shared("taiwan_default.csv");
        try (Dataset d = Dataset.loadHeloc(heloc.toString())) {
            assertEquals(10459, d.nRows());
        }
        try (Dataset d = Dataset.loadTaiwan(taiwan.toString())) {
            assertEquals(30000, d.nRows());
        }
        assertEquals(
                Status.IO_ERROR,
                assertThrows(CfxException.class, () -> Dataset.loadHeloc("/nonexistent/heloc.csv")).statusCode());
        assertEquals(
                Status.IO_ERROR,
                assertThrows(CfxException.class, () -> Dataset.loadTaiwan("/nonexistent/taiwan.csv")).statusCode());
    }

    @Test
    void semicolonFilesWithAndWithoutHeaderReadAsDeclared() throws IOException {
        Path dir = Files.createTempDirectory("cfx-semicolon");
        Path withHeader = dir.resolve("with-header.csv");
        Path bare = dir.resolve("bare.csv");
        String json = "{\"format_version\": 1, \"features\": ["
                + "{\"name\": \"amount\", \"kind\": \"contiguous\", \"lower\": 0, \"upper\": 10},"
                + "{\"name\": \"housing\", \"kind\": \"categorical\", \"levels\": [\"own\", \"rent\"]}]}";
        try (Schema s = Schema.fromJson(json)) {
            Files.writeString(withHeader, "risk;housing;amount\ngood;own;2.5\nbad;rent;7\n");
            Files.writeString(bare, "2.5;own;good\n7;rent;bad\n");
            try (Dataset a = Dataset.fromCsv(s, withHeader.toString(), "risk", "good", ';', true);
                    Dataset b = Dataset.fromCsv(s, bare.toString(), "risk", "good", ';', false)) {
                assertEquals(2, a.nRows());
                assertArrayEquals(new double[] {2.5, 0.0}, a.row(0));
                assertArrayEquals(new double[] {7.0, 1.0}, a.row(1));
                assertArrayEquals(new double[] {1.0, 0.0}, a.labels());
                assertArrayEquals(a.row(1), b.row(1));
                assertArrayEquals(a.labels(), b.labels());
            }
            // read with commas, the header is one column named "risk;housing;amount"
            CfxException e = assertThrows(
                    CfxException.class, () -> Dataset.fromCsv(s, withHeader.toString(), "risk", "good", ',', true));
            assertEquals(Status.NOT_FOUND, e.statusCode(), e.getMessage());
            assertThrows(
                    IllegalArgumentException.class,
                    () -> Dataset.fromCsv(s, withHeader.toString(), "risk", "good", '\u013b', true));
        } finally {
            Files.deleteIfExists(withHeader);
            Files.deleteIfExists(bare);
            Files.deleteIfExists(dir);
        }
    }

    @Test
    void unknownLevelUnderASchemaIsADataErrorNamingRowAndColumn() throws IOException {
        Path bad = Files.createTempFile("cfx-level", ".csv");
        try (Dataset d = Dataset.loadGerman(TestData.germanPath());
                Schema s = d.schema()) {
            java.util.List<String> lines = Files.readAllLines(Path.of(TestData.germanPath()));
            Files.write(bad, java.util.List.of(lines.get(0), lines.get(1).replace("radio/television", "spaceship")));
            CfxException e = assertThrows(
                    CfxException.class, () -> Dataset.fromCsv(s, bad.toString(), "creditability", "good"));
            assertEquals(Status.DATA_ERROR, e.statusCode(), e.getMessage());
            assertTrue(e.detail().contains("purpose"), e.detail());
        } finally {
            Files.deleteIfExists(bad);
        }
    }

    @Test
    void malformedCsvIsADataError() throws IOException {
        Path bad = Files.createTempFile("cfx-bad", ".csv");
        try {
            Files.writeString(bad, "a,b\n1\n");
            CfxException e = assertThrows(CfxException.class, () -> Dataset.loadGerman(bad.toString()));
            assertEquals(Status.DATA_ERROR, e.statusCode(), e.getMessage());
        } finally {
            Files.deleteIfExists(bad);
        }
    }
}
