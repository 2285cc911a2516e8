package org.cfx;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ONNX importer ({@code cfx_model_from_onnx_file}) on the committed scikit-learn gradient
 * boosting of tests/data/onnx: every row gets onnxruntime's probability to float32 precision
 * (sklearn_gb_scores.csv, written by benches/peers/onnx_peers.py); an undeclared favourable class
 * and a truncated file are format errors.
 */
class OnnxTest {
    static Path data(String name) {
        return TestData.root().resolve("tests/data/onnx").resolve(name);
    }

    @Test
    void anOnnxTreeEnsembleScoresEveryRowAsOnnxruntime(@TempDir Path tmp) throws Exception {
        String opts = "{\"favourable_class\": 1}";
        List<String> rows = Files.readAllLines(data("rows.csv"));
        List<String> want = Files.readAllLines(data("sklearn_gb_scores.csv"));
        assertEquals(401, rows.size());
        String path = data("sklearn_gb.onnx").toString();
        try (Schema schema = Schema.fromJson(Files.readString(data("schema.json")));
                Model m = Model.fromOnnxFile(schema, path, opts)) {
            assertEquals(Model.Kind.TREES, m.kind());
            for (int i = 1; i < rows.size(); i++) {
                double[] raw = Arrays.stream(rows.get(i).split(",")).mapToDouble(Double::parseDouble).toArray();
                double expect = Double.parseDouble(want.get(i).split(",")[1]);
                Model.Prediction p = m.predictRaw(schema, raw);
                assertEquals(expect, p.probability(), 1e-6, "row " + i);
                assertEquals(expect > 0.5, p.accepted(), "row " + i);
            }
            CfxException e = assertThrows(CfxException.class, () -> Model.fromOnnxFile(schema, path, null));
            assertEquals(Status.FORMAT_ERROR, e.statusCode());
            assertTrue(e.getMessage().contains("favourable_class"), e.getMessage());
            Path cut = tmp.resolve("cut.onnx");
            Files.write(cut, Arrays.copyOf(Files.readAllBytes(Path.of(path)), 500));
            e = assertThrows(CfxException.class, () -> Model.fromOnnxFile(schema, cut.toString(), opts));
            assertEquals(Status.FORMAT_ERROR, e.statusCode());
            assertTrue(e.getMessage().contains("protobuf"), e.getMessage());
        }
    }
    /**
     * The same graph from its bytes ({@code cfx_model_from_onnx_bytes}): every committed row scores
     * bit for bit as from the file; no bytes, garbage and a truncated protobuf are format errors
     * with the reason, a null array a NullPointerException before any native call.
     */
    @Test
    void anOnnxModelFromBytesScoresAsFromTheFile() throws Exception {
        String opts = "{\"favourable_class\": 1}";
        List<String> rows = Files.readAllLines(data("rows.csv"));
        byte[] bytes = Files.readAllBytes(data("sklearn_gb.onnx"));
        try (Schema schema = Schema.fromJson(Files.readString(data("schema.json")));
                Model f = Model.fromOnnxFile(schema, data("sklearn_gb.onnx").toString(), opts);
                Model b = Model.fromOnnxBytes(schema, bytes, opts)) {
            assertEquals(Model.Kind.TREES, b.kind());
            for (int i = 1; i < rows.size(); i++) {
                double[] raw = Arrays.stream(rows.get(i).split(",")).mapToDouble(Double::parseDouble).toArray();
                Model.Prediction pf = f.predictRaw(schema, raw);
                Model.Prediction pb = b.predictRaw(schema, raw);
                assertEquals(Double.doubleToRawLongBits(pf.score()), Double.doubleToRawLongBits(pb.score()), "row " + i);
                assertEquals(pf.accepted(), pb.accepted(), "row " + i);
            }
            CfxException e = assertThrows(CfxException.class, () -> Model.fromOnnxBytes(schema, new byte[0], opts));
            assertEquals(Status.FORMAT_ERROR, e.statusCode());
            assertTrue(e.getMessage().contains("no bytes"), e.getMessage());
            byte[] garbage = "not an ONNX model at all".getBytes(java.nio.charset.StandardCharsets.UTF_8);
            e = assertThrows(CfxException.class, () -> Model.fromOnnxBytes(schema, garbage, opts));
            assertEquals(Status.FORMAT_ERROR, e.statusCode());
            e = assertThrows(CfxException.class, () -> Model.fromOnnxBytes(schema, Arrays.copyOf(bytes, 500), opts));
            assertEquals(Status.FORMAT_ERROR, e.statusCode());
            assertTrue(e.getMessage().contains("protobuf"), e.getMessage());
            assertThrows(NullPointerException.class, () -> Model.fromOnnxBytes(schema, null, opts));
        }
    }
}
