// Tests of the C# binding. A tiny runner (no NUnit on the machine): every
// public static void method of Tests whose name starts with "T_" is a test.
// Prints "csharp: N passed, M failed" and exits 1 on any failure.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Text;
using System.Threading;
using Cfx;

internal sealed class AssertionFailed : Exception
{
    public AssertionFailed(string m) : base(m) { }
}

internal static class A
{
    public static void True(bool c, string what)
    {
        if (!c) throw new AssertionFailed(what);
    }

    public static void Eq<T>(T expected, T actual, string what)
    {
        if (!EqualityComparer<T>.Default.Equals(expected, actual))
            throw new AssertionFailed(what + ": expected <" + expected + ">, got <" + actual + ">");
    }

    public static void Near(double expected, double actual, double tol, string what)
    {
        if (!(Math.Abs(expected - actual) <= tol))
            throw new AssertionFailed(string.Format(CultureInfo.InvariantCulture,
                "{0}: expected {1:R} ± {2}, got {3:R}", what, expected, tol, actual));
    }

    public static void SameBits(double[] expected, double[] actual, string what)
    {
        Eq(expected.Length, actual.Length, what + " length");
        for (int i = 0; i < expected.Length; i++)
            if (BitConverter.DoubleToInt64Bits(expected[i]) != BitConverter.DoubleToInt64Bits(actual[i]))
                throw new AssertionFailed(string.Format(CultureInfo.InvariantCulture,
                    "{0}[{1}]: {2:R} != {3:R}", what, i, expected[i], actual[i]));
    }

    public static T Throws<T>(Action a, string what) where T : Exception
    {
        try { a(); }
        catch (T e) { return e; }
        catch (Exception e)
        {
            throw new AssertionFailed(what + ": expected " + typeof(T).Name + ", got " + e.GetType().Name + ": " + e.Message);
        }
        throw new AssertionFailed(what + ": expected " + typeof(T).Name + ", nothing was thrown");
    }

    /// <summary>Expects a CfxException with the given status; checks name and message are carried.</summary>
    public static CfxException Status(Status s, Action a, string what)
    {
        var e = Throws<CfxException>(a, what);
        Eq(s, e.Status, what + " status");
        Eq("CFX_STATUS_" + Screaming(s.ToString()), e.StatusName, what + " status name");
        True(e.NativeMessage.Length > 0, what + ": the native message is empty");
        True(e.Message.StartsWith(e.StatusName + ": "), what + ": message does not start with the status name");
        return e;
    }

    public static string Screaming(string camel)
    {
        var sb = new StringBuilder();
        for (int i = 0; i < camel.Length; i++)
        {
            if (i > 0 && char.IsUpper(camel[i])) sb.Append('_');
            sb.Append(char.ToUpperInvariant(camel[i]));
        }
        return sb.ToString();
    }
}

public static partial class Tests
{
    static readonly string Root = FindRoot();
    static readonly CultureInfo Inv = CultureInfo.InvariantCulture;

    static string FindRoot()
    {
        var env = Environment.GetEnvironmentVariable("CFX_ROOT");
        if (!string.IsNullOrEmpty(env)) return env;
        var dir = AppDomain.CurrentDomain.BaseDirectory;
        while (dir != null && !File.Exists(Path.Combine(dir, "include", "cfx.h")))
            dir = Path.GetDirectoryName(dir.TrimEnd('/'));
        return dir ?? ".";
    }

    static string ToySchemaJson { get { return File.ReadAllText(Path.Combine(Root, "examples/c/data/applicant_schema.json")); } }
    static string ToyModelJson { get { return File.ReadAllText(Path.Combine(Root, "examples/c/data/applicant_model.json")); } }
    static readonly double[] ToyWeights = { 4.0, 1.5, 0.8, 0.5, -0.3, 0.0, 1.0 };
    static readonly double[] Applicant = { 30000, -7, 1, 30 };

    // ---------------------------------------------------------------- library
    public static void T_version_and_abi_match()
    {
        A.Eq(CfxLibrary.BuiltForAbiVersion, CfxLibrary.AbiVersion, "abi version");
        var v = CfxLibrary.VersionNumbers;
        A.Eq(string.Format("{0}.{1}.{2}", v.Major, v.Minor, v.Build), CfxLibrary.Version, "version string vs numbers");
        var header = File.ReadAllText(Path.Combine(Root, "include/cfx.h"));
        A.True(header.Contains("#define CFX_ABI_VERSION " + CfxLibrary.BuiltForAbiVersion + "\n"),
            "include/cfx.h declares the ABI version this binding was built for");
        A.True(header.Contains("#define CFX_VERSION_STRING \"" + CfxLibrary.Version + "\""), "header version = library version");
    }

    public static void T_abi_mismatch_is_refused_with_a_clear_message()
    {
        CfxLibrary.CheckAbi(CfxLibrary.BuiltForAbiVersion, "0.1.0"); // accepted
        var e = A.Throws<CfxLoadException>(() => CfxLibrary.CheckAbi(CfxLibrary.BuiltForAbiVersion + 1, "9.9.9"), "abi+1");
        A.True(e.Message.Contains("ABI mismatch"), "says mismatch: " + e.Message);
        A.True(e.Message.Contains("ABI version " + (CfxLibrary.BuiltForAbiVersion + 1)), "names the library's ABI: " + e.Message);
        A.True(e.Message.Contains("built for ABI version " + CfxLibrary.BuiltForAbiVersion), "names ours: " + e.Message);
        A.True(e.Message.Contains("9.9.9"), "names the library version: " + e.Message);
        A.Throws<CfxLoadException>(() => CfxLibrary.CheckAbi(0, "0.0.1"), "abi 0");
    }

    /// <summary>End to end: a fake libcfx reporting another ABI is refused at first use, in a child mono process.</summary>
    public static void T_load_refuses_a_library_of_another_abi()
    {
        var dir = Path.Combine(Path.GetTempPath(), "cfx_cs_fake_" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(dir);
        try
        {
            var c = Path.Combine(dir, "fake.c");
            File.WriteAllText(c, "#include <stdint.h>\n" +
                "uint32_t cfx_abi_version(void) { return " + (CfxLibrary.BuiltForAbiVersion + 1) + "; }\n" +
                "const char *cfx_version_string(void) { return \"9.9.9\"; }\n" +
                "int cfx_schema_from_json(const char *j, void **o) { (void)j; *o = (void *)1; return 0; }\n");
            var cc = Run("cc", "-shared -fPIC -o " + Path.Combine(dir, "libcfx.so") + " " + c, null);
            A.Eq(0, cc.Item1, "cc builds the fake library: " + cc.Item2);
            var exe = typeof(Tests).Assembly.Location;
            var fake = Run("mono", "\"" + exe + "\" --abi-probe", dir);
            A.True(fake.Item2.Contains("CfxLoadException") && fake.Item2.Contains("ABI mismatch") &&
                   fake.Item2.Contains("9.9.9") && fake.Item2.Contains("built for ABI version " + CfxLibrary.BuiltForAbiVersion),
                "fake library refused with a clear message: " + fake.Item2);
            A.True(fake.Item2.Contains("second call: CfxLoadException"), "refused again on the next call: " + fake.Item2);
            A.True(!fake.Item2.Contains("handle made"), "no call reached the fake library: " + fake.Item2);
            var empty = Path.Combine(dir, "empty");
            Directory.CreateDirectory(empty);
            var none = Run("mono", "\"" + exe + "\" --abi-probe", empty);
            A.True(none.Item2.Contains("CfxLoadException") && none.Item2.Contains("cannot load the cfx native library"),
                "missing library reported clearly: " + none.Item2);
        }
        finally { Directory.Delete(dir, true); }
    }

    static Tuple<int, string> Run(string file, string args, string ldPath)
    {
        var psi = new System.Diagnostics.ProcessStartInfo(file, args)
        {
            UseShellExecute = false,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        if (ldPath != null) psi.EnvironmentVariables["LD_LIBRARY_PATH"] = ldPath;
        using (var p = System.Diagnostics.Process.Start(psi))
        {
            var err = p.StandardError.ReadToEndAsync();
            var output = p.StandardOutput.ReadToEnd();
            p.WaitForExit();
            return Tuple.Create(p.ExitCode, output + err.Result);
        }
    }

    /// <summary>Child-process mode of the ABI test: uses the binding against whatever libcfx is on LD_LIBRARY_PATH.</summary>
    static int AbiProbe()
    {
        for (int i = 0; i < 2; i++)
        {
            try
            {
                using (Schema.FromJson("{}")) Console.WriteLine("handle made");
            }
            catch (Exception e)
            {
                Console.WriteLine((i == 0 ? "first call: " : "second call: ") + e.GetType().Name + ": " + e.Message);
            }
        }
        return 0;
    }

    /// <summary>Every function of include/cfx.h has a [DllImport] in Native, and the library exports it.</summary>
    public static void T_every_header_function_is_declared_and_exported()
    {
        var header = File.ReadAllText(Path.Combine(Root, "include/cfx.h"));
        var inHeader = new SortedSet<string>(System.Text.RegularExpressions.Regex
            .Matches(header, @"\b(cfx_[a-z0-9_]+)\s*\(")
            .Cast<System.Text.RegularExpressions.Match>().Select(m => m.Groups[1].Value));
        var declared = new HashSet<string>(typeof(CfxLibrary).Assembly.GetType("Cfx.Native")
            .GetMethods(BindingFlags.Static | BindingFlags.NonPublic | BindingFlags.Public)
            .Where(mi => (mi.Attributes & MethodAttributes.PinvokeImpl) != 0).Select(mi => mi.Name));
        var missing = inHeader.Where(f => !declared.Contains(f)).ToList();
        A.True(inHeader.Count >= 60, "functions found in the header: " + inHeader.Count);
        A.True(missing.Count == 0, "not declared in Native: " + string.Join(", ", missing));
        var stale = declared.Where(f => !inHeader.Contains(f)).ToList();
        A.True(stale.Count == 0, "declared but not in the header: " + string.Join(", ", stale));
        var exported = Run("nm", "-D --defined-only \"" + Path.Combine(Root, "target/ffi-testing/release/libcfx.so") + "\"", null);
        A.Eq(0, exported.Item1, "nm runs: " + exported.Item2);
        var notExported = inHeader.Where(f => !System.Text.RegularExpressions.Regex.IsMatch(exported.Item2, @"\s" + f + "\n")).ToList();
        A.True(notExported.Count == 0, "in the header but not exported by libcfx.so: " + string.Join(", ", notExported));
    }

    public static void T_status_names_match_the_enum()
    {
        foreach (Status s in Enum.GetValues(typeof(Status)))
            A.Eq("CFX_STATUS_" + A.Screaming(s.ToString()), CfxLibrary.StatusName((int)s), "name of " + s);
        A.Eq("CFX_STATUS_UNKNOWN", CfxLibrary.StatusName(12345), "unknown status");
        A.Eq("CFX_STATUS_UNKNOWN", CfxLibrary.StatusName(-1), "negative status");
    }

    public static void T_error_status_becomes_CfxException_with_name_and_message()
    {
        var e = A.Status(Status.FormatError, () => Schema.FromJson("{ this is not json"), "malformed schema");
        A.Eq(9, e.StatusCode, "status code");
        var dup = "{\"format_version\":1,\"features\":[" +
                  "{\"name\":\"a\",\"kind\":\"contiguous\",\"lower\":0.0,\"upper\":1.0}," +
                  "{\"name\":\"a\",\"kind\":\"contiguous\",\"lower\":0.0,\"upper\":1.0}]}";
        e = A.Status(Status.InvalidSchema, () => Schema.FromJson(dup), "duplicate names");
        A.True(e.NativeMessage.Contains("a"), "message names the feature: " + e.NativeMessage);
        A.Throws<ArgumentNullException>(() => Schema.FromJson(null), "null json");
        A.Throws<ArgumentException>(() => Schema.FromJson("{\0}"), "NUL inside a string");
    }

    public static void T_rust_panic_becomes_CfxException_and_the_process_lives_on()
    {
        using (var schema = Schema.FromJson(ToySchemaJson))
        using (var model = Model.FromJson(schema, ToyModelJson))
        {
            for (int i = 0; i < 3; i++)
            {
                var e = A.Status(Status.Panic, Testing.Panic, "testing panic #" + i);
                A.True(e.NativeMessage.Contains("deliberate panic"), "panic message: " + e.NativeMessage);
                A.Eq(99, e.StatusCode, "panic code");
            }
            // Still fully working, same numbers as before.
            var p = model.PredictRaw(schema, Applicant);
            A.Near(-1.1333333333333333, p.Score, 1e-12, "score after panics");
            A.Eq("", Cfx.Call.LastErrorMessage(), "last error cleared by a successful call");
        }
    }

    public static void T_last_error_is_per_thread()
    {
        using (var schema = Schema.FromJson(ToySchemaJson))
        {
            var failures = new List<string>();
            Action<int> work = t =>
            {
                for (int i = 0; i < 200; i++)
                {
                    try
                    {
                        if (t == 0) schema.IndexOf("no_such_feature_" + i);
                        else schema.Encode(new double[] { 1, 2, 3 });
                        lock (failures) failures.Add("thread " + t + ": no exception");
                    }
                    catch (CfxException e)
                    {
                        bool ok = t == 0
                            ? e.Status == Status.NotFound && e.NativeMessage.Contains("no_such_feature_" + i)
                            : e.Status == Status.DimensionMismatch;
                        if (!ok) lock (failures) failures.Add("thread " + t + " got " + e.Message);
                    }
                }
            };
            var threads = Enumerable.Range(0, 2).Select(t => new Thread(() => work(t))).ToList();
            threads.ForEach(th => th.Start());
            threads.ForEach(th => th.Join());
            A.Eq(0, failures.Count, "cross-thread messages: " + string.Join("; ", failures.Take(3)));
        }
    }

    // ---------------------------------------------------------------- schemas
    public static void T_schema_from_json_shape_names_and_json_round_trip()
    {
        using (var s = Schema.FromJson(ToySchemaJson))
        {
            A.Eq(4, s.FeatureCount, "features");
            A.Eq(7, s.EncodedDim, "encoded dim");
            A.Eq("income,months_since_delinquency,housing,age", string.Join(",", s.FeatureNames()), "names");
            A.Eq(2, s.IndexOf("housing"), "index of housing");
            A.Status(Status.NotFound, () => s.IndexOf("salary"), "unknown name");
            A.Status(Status.NotFound, () => s.FeatureName(4), "name of index 4");
            A.Throws<ArgumentOutOfRangeException>(() => s.FeatureName(-1), "negative index");
            var json = s.ToJson();
            using (var copy = Schema.FromJson(json))
            {
                A.Eq(json, copy.ToJson(), "JSON round trip");
                A.Eq(s.Fingerprint(), copy.Fingerprint(), "fingerprint of the copy");
            }
            A.True(s.Fingerprint().StartsWith("fnv1a64:") && s.Fingerprint().Length == 8 + 16, "fingerprint form");
            A.Eq(Fnv1a64(json), s.Fingerprint(), "fingerprint = FNV-1a 64 of the canonical JSON");
        }
    }

    public static void T_schema_builder_equals_the_json_schema()
    {
        CfxHandle.Tracking = true;
        var b = new SchemaBuilder()
            .AddContiguous("income", 0, 100000, integer: true)
            .AddContiguous("months_since_delinquency", 0, 120, integer: true)
            .AddSpecialState(-7, "no delinquency record")
            .AddCategorical("housing", "own", "rent", "free")
            .AddContiguous("age", 18, 90, integer: true)
            .SetActionability(false);
        long serial = b.Serial;
        using (var built = b.Build())
        using (var json = Schema.FromJson(ToySchemaJson))
        {
            A.Eq(json.ToJson(), built.ToJson(), "same schema as examples/c/data/applicant_schema.json");
            A.Eq(json.Fingerprint(), built.Fingerprint(), "same fingerprint");
            A.SameBits(json.Encode(Applicant), built.Encode(Applicant), "same encoding");
        }
        A.True(b.IsDisposed, "builder consumed");
        A.Throws<ObjectDisposedException>(() => b.AddContiguous("x", 0, 1), "use after Build");
        GcHard();
        int r;
        A.True(!CfxHandle.Releases.TryGetValue(serial, out r), "a consumed builder is never freed by the binding");

        using (var s = new SchemaBuilder()
                   .AddContiguous("Einkommen (€)", 0, 10)
                   .AddContiguous("Alter", 18, 99, true).SetActionability(true, Direction.IncreaseOnly)
                   .AddCategorical("Wohnung", "Eigentümer", "Miete ✓").Build())
        {
            A.Eq("Wohnung: 'Eigentümer' → 'Miete ✓'\n",
                s.DescribeChanges(new double[] { 1, 30, 0 }, new double[] { 1, 30, 1 }), "levels passed as char**");
            A.True(s.ToJson().Contains("increase"), "direction recorded: " + s.ToJson());
        }

        var dup = new SchemaBuilder().AddContiguous("a", 0, 1).AddContiguous("a", 0, 1);
        long dupSerial = dup.Serial;
        A.Status(Status.InvalidSchema, () => dup.Build(), "duplicate names");
        A.True(dup.IsDisposed, "consumed even when Build fails");
        A.Status(Status.InvalidSchema, () => new SchemaBuilder().AddContiguous("a", 2, 1).Build(), "lower > upper");
        using (var e = new SchemaBuilder())
        {
            A.Status(Status.InvalidArgument, () => e.AddSpecialState(-7, "x"), "special state before any feature");
            A.Status(Status.InvalidArgument, () => e.SetActionability(false), "actionability before any feature");
            e.AddCategorical("c", "x", "y");
            A.Status(Status.InvalidArgument, () => e.AddSpecialState(-7, "x"), "special state on a categorical");
            A.Status(Status.InvalidArgument, () => e.SetActionability(true, (Direction)7), "direction 7");
            A.Status(Status.InvalidArgument, () => e.AddContiguous("n", double.NaN, 1), "NaN bound");
            A.Throws<ArgumentNullException>(() => e.AddCategorical("d", "x", null), "null level");
            long eSerial = e.Serial;
            e.Dispose();
            A.Eq(1, CfxHandle.Releases[eSerial], "an unbuilt builder is freed by Dispose, once");
        }
        GcHard();
        A.True(!CfxHandle.Releases.TryGetValue(dupSerial, out r), "failed Build: builder not freed again");
    }

    public static void T_schema_encode_decode_and_describe_changes()
    {
        using (var s = Schema.FromJson(ToySchemaJson))
        {
            var x = s.Encode(Applicant);
            // income min-max scaled, delinquency special state indicator, housing one-hot, age scaled.
            var expected = new[] { 0.3, 0.0, 1.0, 0.0, 1.0, 0.0, (30.0 - 18.0) / (90.0 - 18.0) };
            A.Eq(7, x.Length, "encoded length");
            for (int i = 0; i < 7; i++) A.Near(expected[i], x[i], 1e-12, "encoded[" + i + "]");
            A.SameBits(Applicant, s.Decode(x), "decode(encode(row))");
            var to = (double[])Applicant.Clone();
            to[0] = 60000;
            A.Eq("income: 30000 → 60000\n", s.DescribeChanges(Applicant, to), "one change");
            A.Eq("", s.DescribeChanges(Applicant, Applicant), "no change");
            to[2] = 0; // housing rent → own
            var text = s.DescribeChanges(Applicant, to);
            A.True(text.Contains("income: 30000 → 60000\n") && text.Contains("housing: 'rent' → 'own'\n"), "two changes: " + text);
            A.Status(Status.DimensionMismatch, () => s.Encode(new double[] { 1, 2, 3 }), "raw length 3");
            A.Status(Status.InvalidArgument, () => s.Encode(new[] { double.NaN, -7, 1, 30 }), "NaN");
            A.Status(Status.InvalidArgument, () => s.Encode(new[] { double.NegativeInfinity, -7, 1, 30 }), "-inf");
            A.Status(Status.Incoherent, () => s.Encode(new double[] { 30000, -7, 5, 30 }), "level 5 of 3");
            var bad = (double[])x.Clone();
            bad[3] = 1.0; // two housing levels on
            A.Status(Status.Incoherent, () => s.Decode(bad), "two levels on");
            A.Status(Status.DimensionMismatch, () => s.DescribeChanges(Applicant, new double[] { 1 }), "describe lengths");
        }
    }

    public static void T_utf8_strings_in_and_out()
    {
        var json = "{\"format_version\":1,\"features\":[" +
                   "{\"name\":\"Einkommen (€)\",\"kind\":\"contiguous\",\"lower\":0.0,\"upper\":10.0}," +
                   "{\"name\":\"Wohnung\",\"kind\":\"categorical\",\"levels\":[\"Eigentümer\",\"Miete ✓\"]}]}";
        using (var s = Schema.FromJson(json))
        {
            A.Eq("Einkommen (€)", s.FeatureName(0), "non-ASCII name out");
            A.Eq(0, s.IndexOf("Einkommen (€)"), "non-ASCII name in");
            A.Status(Status.NotFound, () => s.IndexOf("Größe"), "valid UTF-8, unknown");
            var text = s.DescribeChanges(new double[] { 1, 0 }, new double[] { 1, 1 });
            A.Eq("Wohnung: 'Eigentümer' → 'Miete ✓'\n", text, "non-ASCII levels");
            A.True(s.ToJson().Contains("Miete ✓"), "JSON keeps the text");
        }
    }

    public static void T_buffer_protocol_grows_small_buffers()
    {
        using (var s = Schema.FromJson(ToySchemaJson))
        {
            var h = s.Handle;
            double[] raw = Applicant;
            int calls = 0;
            var x = Cfx.Call.Doubles((double[] b, UIntPtr c, out UIntPtr n) =>
            {
                calls++;
                return Native.cfx_schema_encode(h, raw, (UIntPtr)raw.Length, b, c, out n);
            }, 2);
            A.Eq(7, x.Length, "length after growing");
            A.Eq(2, calls, "one too-small call, one good call");
            A.SameBits(s.Encode(raw), x, "same values");
            // Larger guess than needed: trimmed.
            var y = Cfx.Call.Doubles((double[] b, UIntPtr c, out UIntPtr n) => Native.cfx_schema_encode(h, raw, (UIntPtr)raw.Length, b, c, out n), 50);
            A.SameBits(x, y, "trimmed");
        }
    }

    // ---------------------------------------------------------------- models
    public static void T_linear_model_from_json_predicts_closed_form()
    {
        using (var s = Schema.FromJson(ToySchemaJson))
        using (var m = Model.FromJson(s, ToyModelJson))
        {
            A.Eq(ModelKind.Linear, m.Kind, "kind");
            A.Eq(7, m.InputDim, "input dim");
            A.Eq(0.5, m.Threshold, "threshold");
            var x = s.Encode(Applicant);
            double score = -3.0;
            for (int i = 0; i < 7; i++) score += ToyWeights[i] * x[i];
            var p = m.Predict(x);
            A.Near(score, p.Score, 1e-12, "score = w·x + b");
            A.Near(1.0 / (1.0 + Math.Exp(-score)), p.Probability, 1e-12, "probability = sigmoid(score)");
            A.Near(0.243546, p.Probability, 1e-6, "probability (C example)");
            A.True(!p.Accepted, "declined");
            var richer = (double[])Applicant.Clone();
            richer[0] = 60000;
            var q = m.PredictRaw(s, richer);
            A.Near(0.066667, q.Score, 1e-6, "score with income 60000");
            A.True(q.Accepted, "accepted with income 60000");
            A.Eq("fnv1a64:ee8ca9af5bfaf8db", m.Fingerprint(), "fingerprint (same as the C example)");
            A.Status(Status.DimensionMismatch, () => m.Predict(new double[6]), "x length 6");
            A.Status(Status.InvalidArgument, () => m.Predict(new[] { double.NaN, 0, 0, 0, 0, 0, 0 }), "NaN input");
        }
    }

    public static void T_linear_model_from_arrays_equals_json_model_and_round_trips()
    {
        using (var s = Schema.FromJson(ToySchemaJson))
        using (var a = Model.Linear(ToyWeights, -3.0, 0.5))
        using (var j = Model.FromJson(s, ToyModelJson))
        {
            var x = s.Encode(Applicant);
            A.Eq(j.Predict(x).Score, a.Predict(x).Score, "same score");
            A.Eq(j.Fingerprint(), a.Fingerprint(), "same canonical JSON");
            using (var back = Model.FromJson(s, a.ToJson()))
                A.Eq(a.ToJson(), back.ToJson(), "JSON round trip");
            A.Status(Status.InvalidArgument, () => Model.Linear(new[] { double.NaN }, 0, 0.5), "NaN weight");
            A.Status(Status.InvalidArgument, () => Model.Linear(ToyWeights, 0, 1.5), "threshold 1.5");
            A.Status(Status.InvalidArgument, () => Model.Linear(ToyWeights, double.PositiveInfinity, 0.5), "bias inf");
            using (var small = Model.Linear(new[] { 1.0, 2.0, 3.0 }, 0, 0.5))
                A.Status(Status.DimensionMismatch, () => Model.FromJson(s, small.ToJson()), "3 weights for dimension 7");
            A.Status(Status.FormatError, () => Model.FromJson(s, ToyModelJson.Replace("\"format_version\": 1", "\"format_version\": 9")), "version 9");
            using (var d = Dataset.LoadGerman())
            using (var g = d.GetSchema())
                A.Status(Status.DimensionMismatch, () => a.PredictRaw(g, new double[20]), "German schema, toy model");
        }
    }

    public static void T_probability_batch_matches_single_predictions_and_checks_lengths()
    {
        using (var s = Schema.FromJson(ToySchemaJson))
        using (var m = Model.FromJson(s, ToyModelJson))
        {
            var rows = new[] { 0.0, 20000, 50000, 100000 }
                .Select(inc => s.Encode(new[] { inc, 12, 2, 45 })).ToArray();
            var batch = m.ProbabilityBatch(rows);
            for (int i = 0; i < rows.Length; i++) A.Eq(m.Predict(rows[i]).Probability, batch[i], "row " + i);
            A.Eq(0, m.ProbabilityBatch(new double[0], 0).Length, "empty batch");
            // The C side trusts n_rows × input_dim: the wrapper must refuse short arrays.
            A.Throws<ArgumentException>(() => m.ProbabilityBatch(new double[10], 2), "short array");
            A.Throws<ArgumentException>(() => m.ProbabilityBatch(new[] { new double[7], new double[6] }), "ragged rows");
        }
    }

    // ---------------------------------------------------------------- datasets
    public static void T_german_dataset_rows_labels_split()
    {
        using (var d = Dataset.LoadGerman())
        {
            A.Eq(1000, d.RowCount, "rows");
            using (var s = d.GetSchema())
            {
                A.Eq(20, s.FeatureCount, "features");
                A.Eq(61, s.EncodedDim, "encoded dim");
                A.Eq("duration_in_month", s.FeatureName(1), "a column name");
            }
            Dataset train, test;
            d.HoldoutSplit(out train, out test);
            using (train)
            using (test)
            {
                A.Eq(700, train.RowCount, "train rows");
                A.Eq(300, test.RowCount, "test rows");
                // Row i is held out when i mod 10 >= 7.
                A.SameBits(d.Row(10), train.Row(7), "train row 7 = row 10");
                A.SameBits(d.Row(7), test.Row(0), "test row 0 = row 7");
                A.Eq(d.Label(19), test.Label(5), "test label 5 = label 19");
            }
            A.Eq(20, d.Row(0).Length, "row length");
            A.Eq(6.0, d.Row(0)[1], "first applicant: 6 months");
            A.Eq(67.0, d.Row(0)[12], "first applicant: 67 years");
            A.Eq(1.0, d.Label(0), "first applicant good");
            A.Eq(0.0, d.Label(1), "second applicant bad");
            int good = Enumerable.Range(0, 1000).Count(i => d.Label(i) == 1.0);
            A.Eq(700, good, "700 good in Statlog German credit");
            A.Status(Status.NotFound, () => d.Row(5000), "row 5000");
            A.Status(Status.NotFound, () => d.Label(1000), "label 1000");
        }
        A.Status(Status.IoError, () => Dataset.LoadGerman("/nonexistent/german.csv"), "missing file");
    }

    public static void T_dataset_from_csv_with_a_schema()
    {
        var german = GermanCsv;
        using (var d = Dataset.LoadGerman())
        using (var s = d.GetSchema())
        using (var c = Dataset.FromCsv(s, german, "creditability", "good"))
        {
            A.Eq(1000, c.RowCount, "rows");
            for (int i = 0; i < 1000; i += 97)
            {
                A.SameBits(d.Row(i), c.Row(i), "row " + i);
                A.Eq(d.Label(i), c.Label(i), "label " + i);
            }
        }
        var tmp = Path.Combine(Path.GetTempPath(), "cfx_cs_toy_" + Guid.NewGuid().ToString("N") + ".csv");
        try
        {
            File.WriteAllText(tmp, "income,months_since_delinquency,housing,age,outcome\n" +
                                   "30000,-7,rent,30,approved\n50000,12,own,45,rejected\n");
            using (var s = Schema.FromJson(ToySchemaJson))
            {
                using (var c = Dataset.FromCsv(s, tmp, "outcome", "approved"))
                {
                    A.Eq(2, c.RowCount, "toy rows");
                    A.SameBits(Applicant, c.Row(0), "toy row 0");
                    A.SameBits(new double[] { 50000, 12, 0, 45 }, c.Row(1), "toy row 1");
                    A.Eq(1.0, c.Label(0), "approved");
                    A.Eq(0.0, c.Label(1), "rejected");
                }
                File.WriteAllText(tmp, "income,months_since_delinquency,housing,age,outcome\n30000,-7,castle,30,approved\n");
                var e = A.Status(Status.DataError, () => Dataset.FromCsv(s, tmp, "outcome", "approved"), "unknown level");
                A.True(e.NativeMessage.Contains("castle") || e.NativeMessage.Contains("housing"), "message names it: " + e.NativeMessage);
            }
        }
        finally { File.Delete(tmp); }
    }

    public static void T_dataset_from_csv_with_a_delimiter_and_no_header()
    {
        var dir = Path.Combine(Path.GetTempPath(), "cfx_cs_semicolon_" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(dir);
        var withHeader = Path.Combine(dir, "with-header.csv");
        var bare = Path.Combine(dir, "bare.csv");
        try
        {
            File.WriteAllText(withHeader, "outcome;housing;age;months_since_delinquency;income\n" +
                                          "approved;rent;30;-7;30000\nrejected;own;45;12;50000\n");
            File.WriteAllText(bare, "30000;-7;rent;30;approved\n50000;12;own;45;rejected\n");
            using (var s = Schema.FromJson(ToySchemaJson))
            {
                using (var a = Dataset.FromCsv(s, withHeader, "outcome", "approved", ';', true))
                using (var b = Dataset.FromCsv(s, bare, "outcome", "approved", ';', false))
                {
                    A.Eq(2, a.RowCount, "rows");
                    A.SameBits(Applicant, a.Row(0), "row 0");
                    A.SameBits(new double[] { 50000, 12, 0, 45 }, a.Row(1), "row 1");
                    A.Eq(1.0, a.Label(0), "approved");
                    A.Eq(0.0, a.Label(1), "rejected");
                    A.SameBits(a.Row(1), b.Row(1), "headerless row 1");
                    A.Eq(a.Label(1), b.Label(1), "headerless label 1");
                }
                // read with commas, the header is one column named "outcome;housing;…"
                A.Status(Status.NotFound, () => Dataset.FromCsv(s, withHeader, "outcome", "approved", ',', true), "comma");
                A.Throws<ArgumentException>(() => Dataset.FromCsv(s, withHeader, "outcome", "approved", '\u013b', true), "non-ASCII");
            }
        }
        finally { Directory.Delete(dir, true); }
    }

    public static void T_heloc_and_taiwan_loaders()
    {
        var heloc = SharedFile("heloc.csv");
        var taiwan = SharedFile("taiwan_default.csv");
        if (heloc == null || taiwan == null) return;
        using (var h = Dataset.LoadHeloc(heloc))
        using (var s = h.GetSchema())
        {
            A.True(h.RowCount > 9000, "HELOC rows: " + h.RowCount);
            A.Eq(23, s.FeatureCount, "HELOC features");
        }
        using (var t = Dataset.LoadTaiwan(taiwan))
        {
            A.Eq(30000, t.RowCount, "Taiwan rows");
        }
        A.Status(Status.IoError, () => Dataset.LoadHeloc("/nonexistent/heloc.csv"), "missing HELOC");
    }

    public static void T_fitted_linear_and_mlp_models_on_german()
    {
        using (var d = Dataset.LoadGerman())
        using (var s = d.GetSchema())
        {
            Dataset train, test;
            d.HoldoutSplit(out train, out test);
            using (train)
            using (test)
            {
                var x = Encoded(test, s);
                using (var lin = Model.FitLinear(train, 1.0))
                using (var copy = Model.FromJson(s, lin.ToJson()))
                {
                    A.Eq(ModelKind.Linear, lin.Kind, "linear kind");
                    A.SameBits(lin.ProbabilityBatch(x, test.RowCount), copy.ProbabilityBatch(x, test.RowCount), "JSON round trip, linear");
                    A.Status(Status.InvalidArgument, () => Model.FitLinear(train, -1.0), "C = -1");
                }
                using (var m1 = Model.TrainMlp(train, new[] { 8 }, 5, 32, 0.01, 1e-4, 7))
                using (var m2 = Model.TrainMlp(train, new[] { 8 }, 5, 32, 0.01, 1e-4, 7))
                using (var m3 = Model.TrainMlp(train, new[] { 8 }, 5, 32, 0.01, 1e-4, 8))
                using (var back = Model.FromJson(s, m1.ToJson()))
                {
                    A.Eq(ModelKind.Mlp, m1.Kind, "mlp kind");
                    A.Eq(61, m1.InputDim, "mlp input dim");
                    A.Eq(m1.Fingerprint(), m2.Fingerprint(), "same seed, same bits");
                    A.True(m1.Fingerprint() != m3.Fingerprint(), "other seed, other weights");
                    var p = m1.ProbabilityBatch(x, test.RowCount);
                    A.SameBits(p, back.ProbabilityBatch(x, test.RowCount), "JSON round trip, MLP");
                    int hits = Enumerable.Range(0, test.RowCount).Count(i => (p[i] > 0.5) == (test.Label(i) == 1.0));
                    A.True(hits > 0.65 * test.RowCount, "MLP hold-out accuracy " + hits + "/300");
                    A.Status(Status.InvalidArgument, () => Model.TrainMlp(train, new[] { 0 }, 5, 32, 0.01, 1e-4, 7), "hidden width 0");
                }
            }
        }
    }

    public static void T_fit_weights_returns_a_new_schema()
    {
        using (var d = Dataset.LoadGerman())
        using (var s = d.GetSchema())
        {
            var rows = Enumerable.Range(0, 100).Select(i => d.Row(i)).ToArray();
            var before = s.Fingerprint();
            using (var w = s.FitWeights(rows))
            {
                A.Eq(before, s.Fingerprint(), "input schema unchanged");
                A.True(w.Fingerprint() != before, "weights from 100 rows differ from the full-data weights");
                A.Eq(s.FeatureCount, w.FeatureCount, "same features");
                using (var all = s.FitWeights(Enumerable.Range(0, 1000).Select(i => d.Row(i)).ToArray()))
                    A.Eq(before, all.Fingerprint(), "fitting on all rows reproduces the loader's weights");
            }
            A.Throws<ArgumentException>(() => s.FitWeights(new[] { new double[3] }), "short row");
            A.Throws<ArgumentException>(() => s.FitWeights(new double[30], 2, 20), "flat length");
            A.Status(Status.DimensionMismatch, () => s.FitWeights(new double[6], 2, 3), "3 columns");
        }
    }

    // ---------------------------------------------------------------- config
    public static void T_config_builder_builds_and_is_consumed()
    {
        CfxHandle.Tracking = true;
        var b = new ConfigBuilder()
            .TimeLimit(5).Threads(1).MipGap(1e-6).Margin(0.1).NDiverse(3)
            .DiversityRule(DiversityRule.RussellIntended).NSamples(1000)
            .BoundM(2).Target(0.9, 0.01).Seed(42).CopaWeights(1, 0.5).CopaRadius(0.1)
            .RlEpisodes(10, 20).RlTraining(0.99, 1e-3, 1e-4, 32, 1000).RlExploration(1.0, 0.05).RlHidden(16, 16);
        long serial = BuilderSerial(b);
        using (var c = b.Build())
        {
            var json = c.ToJson();
            // Every setter reached the library: each setting is in the JSON with its value.
            var compact = System.Text.RegularExpressions.Regex.Replace(json, @"\s+", "");
            foreach (var frag in new[] {
                "\"time_limit_seconds\":5.0", "\"threads\":1", "\"mip_gap\":1e-6", "\"margin\":0.1",
                "\"n_diverse\":3", "\"diversity_rule\":\"RussellIntended\"",
                "\"n_samples\":1000", "\"bound_m\":2.0", "\"target\":0.9",
                "\"target_epsilon\":0.01", "\"seed\":42", "\"copa_robust_weight\":1.0",
                "\"copa_diversity_weight\":0.5", "\"copa_radius\":0.1", "\"episodes\":10", "\"max_steps\":20",
                "\"discount\":0.99", "\"learning_rate_actor\":0.001", "\"learning_rate_param\":0.0001",
                "\"batch_size\":32", "\"replay_capacity\":1000", "\"epsilon_start\":1.0", "\"epsilon_end\":0.05",
                "\"hidden\":[16,16]" })
                A.True(compact.Contains(frag), "config JSON contains " + frag + ": " + compact);
            A.True(!compact.Contains("null"), "nothing left unset: " + compact);
            // The noise is given to each robust call by a Noise handle, never by the configuration.
            A.True(!compact.Contains("noise"), "no noise setting: " + compact);
        }
        A.True(b.IsDisposed, "builder consumed by Build");
        A.Throws<ObjectDisposedException>(() => b.Seed(1), "setter after Build");
        A.Throws<ObjectDisposedException>(() => b.Build(), "Build twice");
        b.Dispose();
        GcHard();
        int r;
        A.True(!CfxHandle.Releases.TryGetValue(serial, out r), "a consumed builder is never freed by the binding");

        using (var empty = new ConfigBuilder().Build())
            A.True(System.Text.RegularExpressions.Regex.Replace(empty.ToJson(), @"\s+", "").Contains("\"seed\":null"), "unset settings are null");
        using (var b2 = new ConfigBuilder())
        {
            A.Status(Status.InvalidArgument, () => b2.TimeLimit(double.NaN), "NaN time limit");
            A.Status(Status.InvalidArgument, () => b2.DiversityRule((DiversityRule)7), "diversity rule 7");
            A.Status(Status.InvalidArgument, () => b2.RlExploration(0.1, 0.5), "end > start");
            A.Status(Status.InvalidArgument, () => b2.RlHidden(), "no hidden layer");
            b2.Seed(3); // still usable after errors
            using (var c2 = b2.Build()) A.True(c2.ToJson().Contains("\"seed\": 3,"), "seed 3: " + c2.ToJson());
        }
    }

    // ---------------------------------------------------------------- lifetime
    public static void T_disposed_objects_throw_ObjectDisposedException()
    {
        var s = Schema.FromJson(ToySchemaJson);
        var m = Model.FromJson(s, ToyModelJson);
        var d = Dataset.LoadGerman();
        var c = new ConfigBuilder().Build();
        var b = new ConfigBuilder();
        var sb = new SchemaBuilder();
        s.Dispose(); m.Dispose(); d.Dispose(); c.Dispose(); b.Dispose(); sb.Dispose();
        s.Dispose(); m.Dispose(); d.Dispose(); c.Dispose(); b.Dispose(); sb.Dispose(); // idempotent
        A.Throws<ObjectDisposedException>(() => sb.AddContiguous("x", 0, 1), "schema builder");
        A.Throws<ObjectDisposedException>(() => sb.Build(), "schema builder build");
        A.Throws<ObjectDisposedException>(() => { var n = s.FeatureCount; }, "schema");
        A.Throws<ObjectDisposedException>(() => s.Encode(Applicant), "schema encode");
        A.Throws<ObjectDisposedException>(() => m.Predict(new double[7]), "model");
        A.Throws<ObjectDisposedException>(() => m.ToJson(), "model json");
        A.Throws<ObjectDisposedException>(() => { var n = d.RowCount; }, "dataset");
        A.Throws<ObjectDisposedException>(() => c.ToJson(), "config");
        A.Throws<ObjectDisposedException>(() => b.Seed(1), "builder");
        using (var live = Model.Linear(ToyWeights, -3, 0.5))
            A.Throws<ObjectDisposedException>(() => live.PredictRaw(s, Applicant), "disposed argument");
    }

    public static void T_dispose_frees_exactly_once()
    {
        CfxHandle.Tracking = true;
        var m = Model.Linear(ToyWeights, -3, 0.5);
        long serial = ModelSerial(m);
        int n;
        A.True(!CfxHandle.Releases.TryGetValue(serial, out n), "not freed while alive");
        m.Dispose();
        A.Eq(1, CfxHandle.Releases[serial], "freed by Dispose");
        A.Eq(Thread.CurrentThread.ManagedThreadId, CfxHandle.ReleaseThread[serial], "freed on the disposing thread");
        m.Dispose();
        GcHard();
        A.Eq(1, CfxHandle.Releases[serial], "still exactly once after a second Dispose and a GC");
    }

    public static void T_gc_frees_undisposed_handles_exactly_once_on_the_finalizer_thread()
    {
        CfxHandle.Tracking = true;
        var serials = new List<long>();
        int creator = 0;
        // Create and drop the objects on another thread so no stack slot of ours keeps them.
        var german = Dataset.LoadGerman();
        var t = new Thread(() =>
        {
            creator = Thread.CurrentThread.ManagedThreadId;
            MakeGarbage(serials, german);
        });
        t.Start();
        t.Join();
        A.Eq(7 * 20, serials.Count, "objects made");
        for (int round = 0; round < 50 && serials.Any(s => !CfxHandle.Releases.ContainsKey(s)); round++) GcHard();
        var missing = serials.Count(s => !CfxHandle.Releases.ContainsKey(s));
        A.Eq(0, missing, "undisposed handles freed by the GC");
        GcHard();
        foreach (var s in serials)
        {
            A.Eq(1, CfxHandle.Releases[s], "exactly once, handle " + s);
            A.True(CfxHandle.ReleaseThread[s] != creator, "freed off the creating thread");
        }
        // The library still works after freeing from the finalizer thread.
        using (var m = Model.Linear(ToyWeights, -3, 0.5)) A.Eq(7, m.InputDim, "alive");
        A.Eq(1000, german.RowCount, "the parent of freed splits is intact");
        german.Dispose();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void MakeGarbage(List<long> serials, Dataset german)
    {
        var json = ToySchemaJson;
        for (int i = 0; i < 20; i++)
        {
            var s = Schema.FromJson(json);
            serials.Add(s.Handle.Serial);
            var m = Model.Linear(ToyWeights, -3, 0.5);
            serials.Add(m.Handle.Serial);
            var b = new ConfigBuilder().Seed((ulong)i);
            serials.Add(BuilderSerial(b));
            var c = new ConfigBuilder().Build();
            serials.Add(c.Handle.Serial);
            var sb = new SchemaBuilder().AddContiguous("x", 0, 1);
            serials.Add(sb.Serial);
            Dataset train, test;
            german.HoldoutSplit(out train, out test);
            serials.Add(train.Handle.Serial);
            serials.Add(test.Handle.Serial);
        }
    }

    public static void T_one_model_shared_by_threads()
    {
        using (var d = Dataset.LoadGerman())
        using (var s = d.GetSchema())
        using (var m = Model.FitLinear(d, 1.0))
        {
            var x = Encoded(d, s);
            var expected = m.ProbabilityBatch(x, d.RowCount);
            int dim = s.EncodedDim;
            var got = new double[d.RowCount];
            var threads = Enumerable.Range(0, 4).Select(t => new Thread(() =>
            {
                for (int i = t; i < got.Length; i += 4)
                {
                    var row = new double[dim];
                    Array.Copy(x, i * dim, row, 0, dim);
                    got[i] = m.Predict(row).Probability;
                }
            })).ToList();
            threads.ForEach(th => th.Start());
            threads.ForEach(th => th.Join());
            A.SameBits(expected, got, "4 threads vs one batch");
            for (int i = 0; i < 50; i++)
                A.Eq(m.Predict(s.Encode(d.Row(i))).Probability, m.PredictRaw(s, d.Row(i)).Probability, "raw = encoded, row " + i);
        }
    }

    /// <summary>The README example, as written there.</summary>
    public static void T_readme_example()
    {
        var file = Path.Combine(Path.GetTempPath(), "cfx_cs_model_" + Guid.NewGuid().ToString("N") + ".json");
        string printed;
        using (var data = Dataset.LoadGerman())              // bundled German credit
        using (var schema = data.GetSchema())
        using (var model = Model.FitLinear(data, c: 1.0))    // scikit-learn's LogisticRegression(C=1)
        {
            double[] applicant = data.Row(1);
            Prediction p = model.PredictRaw(schema, applicant);
            printed = p.ToString();                           // score … probability … declined
            File.WriteAllText(file, model.ToJson());
            A.True(printed.StartsWith("score ") && printed.Contains(" probability "), printed);
            using (var again = Model.FromJson(schema, File.ReadAllText(file)))
                A.Eq(p.Probability, again.PredictRaw(schema, applicant).Probability, "model file reloads");
        }
        File.Delete(file);
    }

    // ---------------------------------------------------------------- scenario
    public static void T_german_scenario_matches_rust()
    {
        var path = Path.Combine(Root, "bindings/scenario_expected.txt");
        A.True(File.Exists(path), "bindings/scenario_expected.txt exists (made by the binding_scenario example)");
        var expected = new Dictionary<string, string>();
        foreach (var line in File.ReadAllLines(path))
        {
            int eq = line.IndexOf(" = ", StringComparison.Ordinal);
            if (line.Trim().Length == 0 || line.StartsWith("#")) continue;
            A.True(eq > 0, "key = value line: " + line);
            expected[line.Substring(0, eq).Trim()] = line.Substring(eq + 3).Trim();
        }
        var got = Scenario();
        var problems = new List<string>();
        foreach (var kv in expected)
        {
            object v;
            if (!got.TryGetValue(kv.Key, out v)) { problems.Add(kv.Key + ": not computed by the C# binding"); continue; }
            bool same;
            if (v is double[])
            {
                var parts = kv.Value.Split(',');
                var arr = (double[])v;
                same = parts.Length == arr.Length;
                for (int i = 0; same && i < arr.Length; i++)
                    same = BitConverter.DoubleToInt64Bits(double.Parse(parts[i], NumberStyles.Float, Inv)) ==
                           BitConverter.DoubleToInt64Bits(arr[i]);
                if (!same) v = string.Join(",", arr.Select(a => a.ToString("R", Inv)));
            }
            else if (v is double)
            {
                double e = double.Parse(kv.Value, NumberStyles.Float, Inv);
                same = BitConverter.DoubleToInt64Bits(e) == BitConverter.DoubleToInt64Bits((double)v);
            }
            else same = Convert.ToString(v, Inv) == kv.Value;
            if (!same) problems.Add(string.Format(Inv, "{0}: Rust {1}, C# {2:R}", kv.Key, kv.Value, v));
        }
        A.True(expected.Count >= 10, "scenario has its keys");
        A.True(problems.Count == 0, string.Join("; ", problems));
    }

    /// <summary>The scenario of examples/binding_scenario.rs through the C# binding.</summary>
    static Dictionary<string, object> Scenario()
    {
        var r = new Dictionary<string, object>();
        using (var d = Dataset.LoadGerman())
        using (var s = d.GetSchema())
        {
            Dataset train, test;
            d.HoldoutSplit(out train, out test);
            using (train)
            using (test)
            using (var m = Model.FitLinear(train, 1.0))
            {
                r["dataset"] = "german_credit";
                r["n_rows"] = d.RowCount;
                r["n_train"] = train.RowCount;
                r["n_test"] = test.RowCount;
                r["n_features"] = s.FeatureCount;
                r["encoded_dim"] = s.EncodedDim;
                r["threshold"] = m.Threshold;
                var x = Encoded(test, s);
                var p = m.ProbabilityBatch(x, test.RowCount);
                int hits = 0, firstDeclined = -1;
                for (int i = 0; i < test.RowCount; i++)
                {
                    var row = new double[s.EncodedDim];
                    Array.Copy(x, i * row.Length, row, 0, row.Length);
                    var pred = m.Predict(row);
                    if (pred.Probability != p[i]) throw new AssertionFailed("batch and single disagree at " + i);
                    if (pred.Accepted == (test.Label(i) > 0.5)) hits++;
                    if (!pred.Accepted && firstDeclined < 0) firstDeclined = i;
                }
                r["accuracy"] = (double)hits / test.RowCount;
                for (int i = 0; i < 5; i++) r["prob_" + i] = p[i];
                r["first_declined"] = firstDeclined;
                ScenarioMethods(r, s, m, test.Row(firstDeclined));
                ScenarioScorecard(r, s, test);
                r["schema_fingerprint"] = s.Fingerprint();
                r["model_fingerprint"] = m.Fingerprint();
            }
        }
        return r;
    }

    /// <summary>The bundled German points scorecard: its first declined held-out applicant, their
    /// points and their coherent counterfactual under the scorecard.</summary>
    static void ScenarioScorecard(Dictionary<string, object> r, Schema s, Dataset test)
    {
        using (var card = ScorecardImport.FromPath(s, ScorecardFormat.Optbinning,
            Path.Combine(Root, "examples/data/german_scorecard_table.csv"), 487.1228762045055,
            new ScoreScaling(28.85390081777927, 487.1228762045055)))
        using (var m = card.Model())
        {
            int declined = Enumerable.Range(0, test.RowCount).First(i => !m.PredictRaw(s, test.Row(i)).Accepted);
            var applicant = test.Row(declined);
            r["scorecard_first_declined"] = declined;
            r["scorecard_points"] = m.PredictRaw(s, applicant).Score;
            using (var best = Coherent.Explain(s, m, null, applicant))
            {
                r["scorecard_coherent_outcome"] = best.Outcome.ToString();
                r["scorecard_coherent_count"] = best.Count;
                if (best.Count > 0)
                {
                    r["scorecard_coherent_cost"] = best.Certificate(0).Cost;
                    r["scorecard_coherent_points"] = best.Certificate(0).Score;
                    r["scorecard_coherent_raw"] = best.Counterfactual(0);
                }
            }
            r["scorecard_model_fingerprint"] = m.Fingerprint();
        }
    }

    /// <summary>The method parts of the scenario, for the families this build has.</summary>
    static void ScenarioMethods(Dictionary<string, object> r, Schema s, Model m, double[] applicant)
    {
        using (var best = Coherent.Explain(s, m, null, applicant))
        {
            r["coherent_outcome"] = best.Outcome.ToString();
            r["coherent_count"] = best.Count;
            if (best.Count > 0)
            {
                var c = best.Certificate(0);
                r["coherent_cost"] = c.Cost;
                r["coherent_probability"] = c.Probability;
                r["coherent_raw"] = best.Counterfactual(0);
            }
        }
        // Waiting advice under the German preset at 0.001 per month (cheap enough to wait).
        using (var advised = s.WithAdvicePreset(AdvicePreset.GermanCredit, 0.001))
        using (var wait = Coherent.ExplainWithWaiting(advised, m, null, applicant))
        {
            if (wait.Found)
            {
                var w = wait.Summary;
                r["waiting_months"] = w.Months;
                r["waiting_wait_cost"] = w.WaitCost;
                r["waiting_cost"] = w.TotalCost;
                r["waiting_raw"] = wait.FinalRow();
            }
        }
        using (var config = new ConfigBuilder().NDiverse(n: 3).Build())
        using (var set = Coherent.ExplainDiverse(s, m, config, applicant))
        {
            r["diverse_count"] = set.Count;
            for (int k = 0; k < set.Count; k++)
            {
                r["diverse_cost_" + k] = set.Certificate(k).Cost;
                r["diverse_raw_" + k] = set.Counterfactual(k);
            }
        }
        using (var noise = Noise.Gaussian(schema: s, sigma2: 0.01))
        using (var est = new Estimator(noise, 10000, Sampling.Generic))
        using (var ws = new Workspace(m, 42))
        {
            var e = est.Estimate(m, ws, s.Encode(applicant));
            r["robust_gamma"] = e.Gamma;
            r["robust_gamma_se"] = e.GammaStdErr;
            r["robust_theta"] = e.Theta;
            r["robust_theta_se"] = e.ThetaStdErr;
            using (var config = new ConfigBuilder().Seed(7).Build())
            using (var croco = RobustResult.Generate(s, m, noise, RobustMethod.Croco, config, applicant))
            {
                var sum = croco.Summary();
                r["croco_valid"] = sum.Valid ? 1 : 0;
                r["croco_target_met"] = sum.TargetMet ? 1 : 0;
                r["croco_probability"] = sum.Probability;
                r["croco_distance"] = sum.Distance;
                r["croco_gamma"] = sum.Gamma;
                r["croco_bound"] = sum.Bound;
                r["croco_raw"] = croco.Raw();
            }
        }
        using (var d = Dataset.LoadGerman())
        {
            Dataset train, test;
            d.HoldoutSplit(out train, out test);
            using (train)
            using (test)
            using (var config = new ConfigBuilder().RlEpisodes(300, 8).RlHidden(16).Seed(5).Build())
            using (var policy = Policy.Train(train, m, config, RewardKind.Binary))
            {
                r["policy_fingerprint"] = Fnv1a64(policy.ToJson());
                var metrics = policy.Evaluate(m, test);
                r["policy_satisfiability"] = metrics.Satisfiability;
                r["policy_n_instances"] = metrics.Instances;
                using (var plan = policy.Answer(s, m, applicant))
                {
                    r["plan_n_steps"] = plan.StepCount;
                    r["plan_success"] = plan.Success ? 1 : 0;
                    var final = (double[])applicant.Clone();
                    for (int k = 0; k < plan.StepCount; k++)
                    {
                        var step = plan.Step(k);
                        final[step.Feature] = step.To;
                    }
                    r["plan_final_row"] = final;
                }
            }
        }
    }

    /// <summary>"fnv1a64:&lt;16 hex digits&gt;" of a text's UTF-8 bytes (the fingerprint of cfx's exports).</summary>
    static string Fnv1a64(string text)
    {
        ulong h = 0xcbf29ce484222325UL;
        foreach (var b in Encoding.UTF8.GetBytes(text))
        {
            h ^= b;
            h = unchecked(h * 0x00000100000001b3UL);
        }
        return "fnv1a64:" + h.ToString("x16");
    }

    // ---------------------------------------------------------------- helpers
    static string F4(double v) { return v.ToString("F4", CultureInfo.InvariantCulture); }

    static double[] Encoded(Dataset d, Schema s)
    {
        int n = d.RowCount, dim = s.EncodedDim;
        var x = new double[n * dim];
        for (int i = 0; i < n; i++) Array.Copy(s.Encode(d.Row(i)), 0, x, i * dim, dim);
        return x;
    }

    static long ModelSerial(Model m) { return m.Handle.Serial; }

    static long BuilderSerial(ConfigBuilder b)
    {
        var f = typeof(ConfigBuilder).GetField("h", BindingFlags.NonPublic | BindingFlags.Instance);
        return ((CfxHandle)f.GetValue(b)).Serial;
    }

    static void GcHard()
    {
        for (int i = 0; i < 3; i++)
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
        }
    }

    public static int Main(string[] args)
    {
        if (args.Length == 1 && args[0] == "--abi-probe") return AbiProbe();
        var tests = typeof(Tests).GetMethods(BindingFlags.Public | BindingFlags.Static)
            .Where(mi => mi.Name.StartsWith("T_") && mi.GetParameters().Length == 0)
            .OrderBy(mi => mi.MetadataToken).ToList();
        if (args.Length > 0) tests = tests.Where(mi => args.Any(a => mi.Name.Contains(a))).ToList();
        int passed = 0, failed = 0;
        foreach (var t in tests)
        {
            try
            {
                t.Invoke(null, null);
                passed++;
                Console.WriteLine("ok   " + t.Name);
            }
            catch (TargetInvocationException e)
            {
                failed++;
                var inner = e.InnerException;
                Console.WriteLine("FAIL " + t.Name + ": " + inner.GetType().Name + ": " + inner.Message);
                if (!(inner is AssertionFailed)) Console.WriteLine(inner.StackTrace);
            }
        }
        Console.WriteLine("csharp: {0} passed, {1} failed", passed, failed);
        return failed == 0 ? 0 : 1;
    }
}

