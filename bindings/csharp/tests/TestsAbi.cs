// The DllImports of Cfx.Native against the ABI manifest (bindings/gen/abi.json), by reflection:
// every C parameter's and result's C type must have the CLR type this file maps it to (its own
// mapping, not the generator's): `size_t *` is `out UIntPtr` (or UIntPtr[] for a buffer),
// `int32_t *` is `out int`, a handle is its own SafeHandle type, ... A C# `out int` declared
// against a C `size_t *` fails here instead of corrupting memory.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Runtime.InteropServices;
using System.Text;
using Cfx;

/// <summary>A small JSON reader (objects, arrays, strings, numbers, true/false/null): enough for abi.json.</summary>
internal sealed class MiniJson
{
    private readonly string s;
    private int i;

    private MiniJson(string text) { s = text; }

    public static object Parse(string text)
    {
        var p = new MiniJson(text);
        var v = p.Value();
        p.Ws();
        if (p.i != p.s.Length) throw new FormatException("trailing text at " + p.i);
        return v;
    }

    private void Ws() { while (i < s.Length && char.IsWhiteSpace(s[i])) i++; }

    private object Value()
    {
        Ws();
        char c = s[i];
        if (c == '{')
        {
            var d = new Dictionary<string, object>();
            i++; Ws();
            if (s[i] == '}') { i++; return d; }
            while (true)
            {
                Ws(); var k = Str(); Ws();
                if (s[i++] != ':') throw new FormatException("':' expected at " + i);
                d[k] = Value(); Ws();
                if (s[i] == ',') { i++; continue; }
                if (s[i++] != '}') throw new FormatException("'}' expected at " + i);
                return d;
            }
        }
        if (c == '[')
        {
            var l = new List<object>();
            i++; Ws();
            if (s[i] == ']') { i++; return l; }
            while (true)
            {
                l.Add(Value()); Ws();
                if (s[i] == ',') { i++; continue; }
                if (s[i++] != ']') throw new FormatException("']' expected at " + i);
                return l;
            }
        }
        if (c == '"') return Str();
        if (s.Substring(i).StartsWith("true")) { i += 4; return true; }
        if (s.Substring(i).StartsWith("false")) { i += 5; return false; }
        if (s.Substring(i).StartsWith("null")) { i += 4; return null; }
        int j = i;
        while (i < s.Length && "+-0123456789.eE".IndexOf(s[i]) >= 0) i++;
        return double.Parse(s.Substring(j, i - j), CultureInfo.InvariantCulture);
    }

    private string Str()
    {
        if (s[i++] != '"') throw new FormatException("string expected at " + i);
        var sb = new StringBuilder();
        while (s[i] != '"')
        {
            if (s[i] == '\\')
            {
                char e = s[i + 1];
                i += 2;
                switch (e)
                {
                    case 'n': sb.Append('\n'); break;
                    case 't': sb.Append('\t'); break;
                    case 'r': sb.Append('\r'); break;
                    case 'b': sb.Append('\b'); break;
                    case 'f': sb.Append('\f'); break;
                    case 'u': sb.Append((char)Convert.ToInt32(s.Substring(i, 4), 16)); i += 4; break;
                    default: sb.Append(e); break;
                }
            }
            else sb.Append(s[i++]);
        }
        i++;
        return sb.ToString();
    }
}

public static partial class Tests
{
    static Dictionary<string, object> Abi()
    {
        return (Dictionary<string, object>)MiniJson.Parse(File.ReadAllText(Path.Combine(Root, "bindings/gen/abi.json")));
    }

    static List<Dictionary<string, object>> Items(Dictionary<string, object> d, string key)
    {
        return ((List<object>)d[key]).Cast<Dictionary<string, object>>().ToList();
    }

    static string AbiPascal(string snake)
    {
        return string.Concat(snake.Split('_').Where(w => w.Length > 0)
            .Select(w => char.ToUpperInvariant(w[0]) + w.Substring(1).ToLowerInvariant()));
    }

    static readonly Dictionary<string, Type> AbiScalars = new Dictionary<string, Type>
    {
        { "cfx_status", typeof(int) }, { "int32_t", typeof(int) }, { "uint32_t", typeof(uint) },
        { "int64_t", typeof(long) }, { "uint64_t", typeof(ulong) }, { "size_t", typeof(UIntPtr) },
        { "double", typeof(double) }, { "char", typeof(byte) }, { "bool", typeof(bool) },
        { "uint8_t", typeof(byte) },
    };

    /// <summary>(base type, number of stars) of a C type such as "const struct cfx_model **".</summary>
    static Tuple<string, int> CType(string c)
    {
        var words = c.Replace("*", " * ").Split(new[] { ' ' }, StringSplitOptions.RemoveEmptyEntries);
        var bases = words.Where(w => w != "const" && w != "struct" && w != "*").ToList();
        if (bases.Count != 1) throw new AssertionFailed("cannot read the C type " + c);
        return Tuple.Create(bases[0], words.Count(w => w == "*"));
    }

    /// <summary>What a parameter of the given C type and convention group must be in C#:
    /// the CLR type (a by-ref type for out-parameters) and whether it must carry [Out].</summary>
    static Tuple<Type, bool> ExpectedClr(Assembly cfx, string cType, string group, HashSet<string> handles,
        HashSet<string> structs, HashSet<string> callbacks, bool isFree)
    {
        var t = CType(cType);
        string b = t.Item1;
        int stars = t.Item2;
        Func<string, Type> typeOf = n =>
        {
            var ty = cfx.GetType("Cfx." + n);
            if (ty == null) throw new AssertionFailed("no type Cfx." + n + " for " + cType);
            return ty;
        };
        if (stars == 0)
        {
            if (callbacks.Contains(b))
            {
                var name = b.Substring(4);
                name = name.EndsWith("_fn") ? name.Substring(0, name.Length - 3) : name;
                return Tuple.Create(typeOf("Native+" + AbiPascal(name) + "Fn"), false);
            }
            return Tuple.Create(AbiScalars[b], false);
        }
        if (stars == 1 && handles.Contains(b))
            return Tuple.Create(isFree ? typeof(IntPtr) : typeOf(AbiPascal(b.Substring(4)) + "Handle"), false);
        if (stars == 2 && handles.Contains(b))
            return Tuple.Create(typeOf(AbiPascal(b.Substring(4)) + "Handle").MakeByRefType(), true);
        if (stars == 1 && b == "void") return Tuple.Create(typeof(IntPtr), false); // user_data
        if (stars == 2 && b == "char") return Tuple.Create(typeof(IntPtr[]), false); // string arrays
        if (stars == 1 && b == "char")
            return Tuple.Create(typeof(byte[]), group == "buffer"); // UTF-8 in, or a caller buffer
        if (stars == 1 && structs.Contains(b))
            return Tuple.Create(typeOf("Native+" + AbiPascal(b.Substring(4)) + "Native").MakeByRefType(), true);
        if (stars == 1 && AbiScalars.ContainsKey(b))
        {
            var elem = AbiScalars[b];
            if (group == "arrays") return Tuple.Create(elem.MakeArrayType(), false);
            if (group == "buffer" || group == "out_array") return Tuple.Create(elem.MakeArrayType(), true);
            if (group == "out" || group == "out_len") return Tuple.Create(elem.MakeByRefType(), true);
        }
        throw new AssertionFailed("no CLR type for " + cType + " in a " + group + " group");
    }

    static string Show(Type t, bool isOut) { return (isOut ? "[out] " : "") + t; }

    public static void T_abi_every_dllimport_matches_the_manifest()
    {
        var abi = Abi();
        var cfx = typeof(CfxLibrary).Assembly;
        var handles = new HashSet<string>(((List<object>)abi["handles"]).Cast<string>());
        var structs = new HashSet<string>(Items(abi, "structs").Select(s => (string)s["name"]));
        var callbacks = new HashSet<string>(Items(abi, "callbacks").Select(c => (string)c["name"]));
        var native = cfx.GetType("Cfx.Native");
        var methods = native.GetMethods(BindingFlags.Static | BindingFlags.NonPublic | BindingFlags.Public)
            .Where(m => (m.Attributes & MethodAttributes.PinvokeImpl) != 0).ToDictionary(m => m.Name);
        var functions = Items(abi, "functions");
        A.True(functions.Count > 100, "functions in the manifest: " + functions.Count);
        var wrong = new List<string>();
        foreach (var f in functions)
        {
            var name = (string)f["name"];
            MethodInfo m;
            if (!methods.TryGetValue(name, out m))
            {
                wrong.Add(name + ": not declared");
                continue;
            }
            methods.Remove(name);
            var ps = Items(f, "params");
            bool isFree = ps.Count == 1 && name == CType((string)ps[0]["c_type"]).Item1 + "_free";
            var ret = CType((string)f["returns"]);
            Type wantRet = ret.Item2 == 0 ? (ret.Item1 == "void" ? typeof(void) : AbiScalars[ret.Item1])
                : (ret.Item1 == "char" && ret.Item2 == 1 ? typeof(IntPtr) : null);
            if (m.ReturnType != wantRet) wrong.Add(name + ": returns " + m.ReturnType + ", C returns " + f["returns"]);
            var got = m.GetParameters();
            if (got.Length != ps.Count)
            {
                wrong.Add(name + ": " + got.Length + " parameters, C has " + ps.Count);
                continue;
            }
            for (int k = 0; k < ps.Count; k++)
            {
                var want = ExpectedClr(cfx, (string)ps[k]["c_type"], (string)ps[k]["group"], handles, structs, callbacks, isFree);
                if (got[k].ParameterType != want.Item1 || got[k].IsOut != want.Item2)
                    wrong.Add(string.Format("{0}: parameter {1} ({2}) is {3}, expected {4}", name, ps[k]["name"],
                        ps[k]["c_type"], Show(got[k].ParameterType, got[k].IsOut), Show(want.Item1, want.Item2)));
            }
            var dll = (DllImportAttribute)m.GetCustomAttributes(typeof(DllImportAttribute), false).FirstOrDefault();
            if (dll != null && dll.CallingConvention != CallingConvention.Cdecl) wrong.Add(name + ": not Cdecl");
        }
        foreach (var extra in methods.Keys) wrong.Add(extra + ": declared in Native but not in the manifest");
        A.True(wrong.Count == 0, "DllImports that differ from abi.json:\n  " + string.Join("\n  ", wrong));
    }

    public static void T_abi_handles_structs_and_callbacks_match_the_manifest()
    {
        var abi = Abi();
        var cfx = typeof(CfxLibrary).Assembly;
        foreach (var h in ((List<object>)abi["handles"]).Cast<string>())
        {
            var t = cfx.GetType("Cfx." + AbiPascal(h.Substring(4)) + "Handle");
            A.True(t != null && t.IsSealed && typeof(SafeHandle).IsAssignableFrom(t), "a sealed SafeHandle for " + h);
        }
        foreach (var s in Items(abi, "structs"))
        {
            var t = cfx.GetType("Cfx.Native+" + AbiPascal(((string)s["name"]).Substring(4)) + "Native");
            A.True(t != null && t.IsLayoutSequential, "a sequential struct for " + s["name"]);
            var fields = t.GetFields(BindingFlags.Instance | BindingFlags.Public | BindingFlags.NonPublic)
                .OrderBy(fi => Marshal.OffsetOf(t, fi.Name).ToInt64()).ToList();
            var want = Items(s, "fields");
            A.Eq(want.Count, fields.Count, s["name"] + " field count");
            for (int k = 0; k < want.Count; k++)
            {
                A.Eq(AbiPascal((string)want[k]["name"]), fields[k].Name, s["name"] + " field " + k);
                A.Eq(AbiScalars[(string)want[k]["c_type"]], fields[k].FieldType, s["name"] + "." + want[k]["name"]);
            }
        }
        foreach (var c in Items(abi, "callbacks"))
        {
            var name = ((string)c["name"]).Substring(4);
            var t = cfx.GetType("Cfx.Native+" + AbiPascal(name.Substring(0, name.Length - 3)) + "Fn");
            A.True(t != null && typeof(Delegate).IsAssignableFrom(t), "a delegate for " + c["name"]);
            var invoke = t.GetMethod("Invoke");
            A.Eq(AbiScalars[(string)c["returns"]], invoke.ReturnType, c["name"] + " result");
            var ps = Items(c, "params");
            var got = invoke.GetParameters();
            A.Eq(ps.Count, got.Length, c["name"] + " arity");
            for (int k = 0; k < ps.Count; k++)
            {
                var ct = CType((string)ps[k]["c_type"]);
                A.Eq(ct.Item2 > 0 ? typeof(IntPtr) : AbiScalars[ct.Item1], got[k].ParameterType, c["name"] + " parameter " + k);
            }
        }
    }

    public static void T_abi_public_enums_have_the_header_numbers()
    {
        var abi = Abi();
        var cfx = typeof(CfxLibrary).Assembly;
        // The public names that predate the generator where the C name gives another.
        var names = new Dictionary<string, string> { { "cfx_change_limit", "ChangeLimitKind" } };
        var enums = Items(abi, "enums");
        A.True(enums.Count >= 17, "enums in the manifest: " + enums.Count);
        foreach (var e in enums)
        {
            var c = (string)e["name"];
            string cs;
            if (!names.TryGetValue(c, out cs)) cs = AbiPascal(c.Substring(4));
            var t = cfx.GetType("Cfx." + cs);
            A.True(t != null && t.IsEnum && t.IsPublic, "a public enum Cfx." + cs + " for " + c);
            var prefix = c.ToUpperInvariant() + "_";
            var want = Items(e, "variants").ToDictionary(v => AbiPascal(((string)v["name"]).Substring(prefix.Length)),
                v => (int)(double)v["value"]);
            var got = Enum.GetNames(t).ToDictionary(n => n, n => Convert.ToInt32(Enum.Parse(t, n)));
            A.True(want.Count == got.Count && want.All(kv => got.ContainsKey(kv.Key) && got[kv.Key] == kv.Value),
                cs + ": " + string.Join(",", got.Select(kv => kv.Key + "=" + kv.Value)) + " vs the header's "
                + string.Join(",", want.Select(kv => kv.Key + "=" + kv.Value)));
        }
    }
}
