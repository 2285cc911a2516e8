// Tests of the ONNX importer (cfx_model_from_onnx_file) on the committed scikit-learn gradient
// boosting of tests/data/onnx: every row gets onnxruntime's probability to float32 precision
// (sklearn_gb_scores.csv, written by benches/peers/onnx_peers.py); an undeclared favourable class
// and a truncated file are format errors.
using System;
using System.IO;
using System.Linq;
using Cfx;

public static partial class Tests
{
    static string OnnxData(string name) { return Path.Combine(Root, "tests/data/onnx", name); }

    public static void T_an_onnx_tree_ensemble_scores_every_row_as_onnxruntime()
    {
        const string opts = "{\"favourable_class\": 1}";
        var inv = System.Globalization.CultureInfo.InvariantCulture;
        var rows = File.ReadAllLines(OnnxData("rows.csv")).Skip(1)
            .Select(l => l.Split(',').Select(v => double.Parse(v, inv)).ToArray())
            .ToArray();
        var want = File.ReadAllLines(OnnxData("sklearn_gb_scores.csv")).Skip(1)
            .Select(l => double.Parse(l.Split(',')[1], inv))
            .ToArray();
        A.Eq(400, rows.Length, "rows");
        string path = OnnxData("sklearn_gb.onnx");
        using (var s = Schema.FromJson(File.ReadAllText(OnnxData("schema.json"))))
        using (var m = Model.FromOnnxFile(s, path, opts))
        {
            A.Eq(ModelKind.Trees, m.Kind, "kind");
            for (int i = 0; i < rows.Length; i++)
            {
                var p = m.PredictRaw(s, rows[i]);
                A.Near(want[i], p.Probability, 1e-6, "probability of row " + i);
                A.Eq(want[i] > 0.5, p.Accepted, "decision of row " + i);
            }
            var e = A.Status(Status.FormatError, () => Model.FromOnnxFile(s, path), "undeclared class");
            A.True(e.NativeMessage.Contains("favourable_class"), "names the option: " + e.NativeMessage);
            string cut = Path.Combine(Path.GetTempPath(), "cfx-onnx-cut-" + Guid.NewGuid() + ".onnx");
            File.WriteAllBytes(cut, File.ReadAllBytes(path).Take(500).ToArray());
            try
            {
                e = A.Status(Status.FormatError, () => Model.FromOnnxFile(s, cut, opts), "truncated");
                A.True(e.NativeMessage.Contains("protobuf"), "names protobuf: " + e.NativeMessage);
            }
            finally
            {
                File.Delete(cut);
            }
        }
    }
    // The same graph from its bytes (cfx_model_from_onnx_bytes): every committed row scores bit for
    // bit as from the file; no bytes, garbage and a truncated protobuf are format errors with the
    // reason, a null array an ArgumentNullException before any native call.
    public static void T_an_onnx_model_from_bytes_scores_as_from_the_file()
    {
        const string opts = "{\"favourable_class\": 1}";
        var inv = System.Globalization.CultureInfo.InvariantCulture;
        var rows = File.ReadAllLines(OnnxData("rows.csv")).Skip(1)
            .Select(l => l.Split(',').Select(v => double.Parse(v, inv)).ToArray())
            .ToArray();
        byte[] bytes = File.ReadAllBytes(OnnxData("sklearn_gb.onnx"));
        using (var s = Schema.FromJson(File.ReadAllText(OnnxData("schema.json"))))
        using (var f = Model.FromOnnxFile(s, OnnxData("sklearn_gb.onnx"), opts))
        using (var b = Model.FromOnnxBytes(s, bytes, opts))
        {
            A.Eq(ModelKind.Trees, b.Kind, "kind");
            for (int i = 0; i < rows.Length; i++)
            {
                var pf = f.PredictRaw(s, rows[i]);
                var pb = b.PredictRaw(s, rows[i]);
                A.Eq(BitConverter.DoubleToInt64Bits(pf.Score), BitConverter.DoubleToInt64Bits(pb.Score), "score of row " + i);
                A.Eq(pf.Accepted, pb.Accepted, "decision of row " + i);
            }
            var e = A.Status(Status.FormatError, () => Model.FromOnnxBytes(s, new byte[0], opts), "no bytes");
            A.True(e.NativeMessage.Contains("no bytes"), "says so: " + e.NativeMessage);
            A.Status(Status.FormatError, () => Model.FromOnnxBytes(s, System.Text.Encoding.UTF8.GetBytes("not an ONNX model at all"), opts), "garbage");
            e = A.Status(Status.FormatError, () => Model.FromOnnxBytes(s, bytes.Take(500).ToArray(), opts), "truncated");
            A.True(e.NativeMessage.Contains("protobuf"), "names protobuf: " + e.NativeMessage);
            A.Throws<ArgumentNullException>(() => Model.FromOnnxBytes(s, null, opts), "null bytes");
        }
    }
}
