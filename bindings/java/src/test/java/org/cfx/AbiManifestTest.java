package org.cfx;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The JNI declarations against the ABI manifest ({@code bindings/gen/abi.json}, written from
 * include/cfx.h): every C function has an entry point (generated in {@link NativeGenerated}, or
 * kept by hand in {@link Native} as bindings/gen/overrides_java.toml lists), and every generated
 * method's JVM descriptor is the one the C signature gives under the binding's rules. The rules are
 * re-stated here from the C types, independently of the generator, so a declaration that drifts
 * from C (a {@code size_t *} read as an int, a missing count) fails here rather than in memory.
 */
class AbiManifestTest {
    @Test
    void everyFunctionHasAnEntryPointWithTheDescriptorOfItsCSignature() throws Exception {
        Map<String, Object> abi = asMap(new Json(Files.readString(TestData.root().resolve("bindings/gen/abi.json"))).value());
        String overrides = Files.readString(TestData.root().resolve("bindings/gen/overrides_java.toml"));
        String types = Files.readString(TestData.root().resolve("bindings/gen/types.toml"));
        Map<String, String> hand = new TreeMap<>();
        Matcher hm = Pattern.compile("(?m)^\"(cfx_\\w+)\" = \\{ java = \"(\\w+)\"").matcher(overrides);
        while (hm.find()) {
            hand.put(hm.group(1), hm.group(2));
        }
        Set<String> pinned = new HashSet<>();
        Matcher pm = Pattern.compile("(?m)^  \"(cfx_\\w+)\",$").matcher(overrides);
        while (pm.find()) {
            pinned.add(pm.group(1));
        }
        Set<String> rowArrays = new HashSet<>();
        Matcher rm = Pattern.compile("(?m)^\"(cfx_\\w+\\.\\w+)\" = \"[^\"]*\"$").matcher(types + "\n" + overrides);
        while (rm.find()) {
            rowArrays.add(rm.group(1));
        }
        assertFalse(hand.isEmpty(), "read no [hand] functions from overrides_java.toml");
        assertFalse(pinned.isEmpty(), "read no pinned functions from overrides_java.toml");
        assertTrue(rowArrays.contains("cfx_copa_bounds.options"), "read no row-counted arrays: " + rowArrays);

        Map<String, Integer> structFields = new LinkedHashMap<>();
        Map<String, Boolean> structFloating = new LinkedHashMap<>();
        for (Object s : asList(abi.get("structs"))) {
            Map<String, Object> st = asMap(s);
            List<Object> fields = asList(st.get("fields"));
            structFields.put((String) st.get("name"), fields.size());
            boolean floating = false;
            for (Object f : fields) {
                String t = (String) asMap(f).get("c_type");
                floating |= t.equals("double") || t.equals("float");
            }
            structFloating.put((String) st.get("name"), floating);
        }

        Map<String, Method> generated = natives(NativeGenerated.class);
        Map<String, Method> handWritten = natives(Native.class);
        Set<String> seen = new TreeSet<>();
        List<String> problems = new ArrayList<>();
        int checked = 0;
        for (Object o : asList(abi.get("functions"))) {
            Map<String, Object> f = asMap(o);
            String c = (String) f.get("name");
            if (hand.containsKey(c)) {
                if (!handWritten.containsKey(hand.get(c))) {
                    problems.add(c + ": kept by hand as Native." + hand.get(c) + ", which does not exist");
                }
                if (generated.containsKey(javaName(c))) {
                    problems.add(c + ": kept by hand but also generated");
                }
                continue;
            }
            String name = javaName(c);
            Method m = generated.get(name);
            if (m == null) {
                problems.add(c + ": no entry point NativeGenerated." + name);
                continue;
            }
            seen.add(name);
            String want = descriptor(f, pinned.contains(c), rowArrays, structFields, structFloating);
            String got = descriptor(m);
            if (!want.equals(got)) {
                problems.add(c + ": NativeGenerated." + name + got + ", but its C signature reads as " + want);
            }
            checked++;
        }
        Set<String> extra = new TreeSet<>(generated.keySet());
        extra.removeAll(seen);
        if (!extra.isEmpty()) {
            problems.add("NativeGenerated declares methods of no header function: " + extra);
        }
        assertEquals(List.of(), problems);
        assertTrue(checked > 150, "checked only " + checked + " descriptors");
    }

    /**
     * The hand-written Java enums (their public shape is richer than the C enums': docs, helper
     * methods, Status.UNKNOWN) name and number every variant of their C enum and nothing else:
     * the constant's {@code code} field, or its ordinal when it has none, is the C value.
     */
    @Test
    void everyJavaEnumMirrorsItsCEnum() throws Exception {
        Map<String, Object> abi = asMap(new Json(Files.readString(TestData.root().resolve("bindings/gen/abi.json"))).value());
        Map<String, Map<String, Integer>> cEnums = new TreeMap<>();
        for (Object e : asList(abi.get("enums"))) {
            Map<String, Object> en = asMap(e);
            String name = (String) en.get("name");
            Map<String, Integer> variants = new TreeMap<>();
            for (Object v : asList(en.get("variants"))) {
                Map<String, Object> va = asMap(v);
                String full = (String) va.get("name");
                variants.put(full.substring(name.length() + 1), ((Double) va.get("value")).intValue());
            }
            cEnums.put(name, variants);
        }
        Map<Class<?>, String> mirrors = new LinkedHashMap<>();
        mirrors.put(Status.class, "cfx_status");
        mirrors.put(Model.Kind.class, "cfx_model_kind");
        mirrors.put(ScorecardFormat.class, "cfx_scorecard_format");
        mirrors.put(NoiseModel.class, "cfx_noise_model");
        mirrors.put(DiversityRule.class, "cfx_diversity_rule");
        mirrors.put(Direction.class, "cfx_direction");
        mirrors.put(ChangeLimit.Kind.class, "cfx_change_limit");
        mirrors.put(WeightsKind.class, "cfx_weights_kind");
        mirrors.put(CoherentResult.Outcome.class, "cfx_coherent_outcome");
        mirrors.put(Sampling.class, "cfx_sampling");
        mirrors.put(RobustMethod.class, "cfx_robust_method");
        mirrors.put(Sequential.Reward.class, "cfx_reward_kind");
        mirrors.put(CopaStatus.class, "cfx_copa_status");
        mirrors.put(Solver.class, "cfx_solver_choice");
        mirrors.put(RobustBox.class, "cfx_robust_box");
        mirrors.put(ProvedBy.class, "cfx_proved_by");
        mirrors.put(WaitingAdvice.Outcome.class, "cfx_waiting_outcome");
        mirrors.put(AdviceStatus.class, "cfx_advice_status");
        assertEquals(cEnums.keySet(), new TreeSet<>(mirrors.values()), "a C enum without a Java mirror (or a stale one)");
        List<String> problems = new ArrayList<>();
        for (Map.Entry<Class<?>, String> m : mirrors.entrySet()) {
            Map<String, Integer> java = new TreeMap<>();
            java.lang.reflect.Field code = null;
            try {
                code = m.getKey().getDeclaredField("code");
                code.setAccessible(true);
            } catch (NoSuchFieldException none) {
                // numbered by ordinal
            }
            for (Object constant : m.getKey().getEnumConstants()) {
                int value = code == null ? ((Enum<?>) constant).ordinal() : ((Number) code.get(constant)).intValue();
                java.put(((Enum<?>) constant).name(), value);
            }
            if (m.getKey() == Status.class) {
                assertEquals(-1, java.remove("UNKNOWN"), "Status.UNKNOWN is the binding's -1 for numbers it does not know");
            }
            if (!java.equals(cEnums.get(m.getValue()))) {
                problems.add(m.getKey().getName() + " " + java + " but " + m.getValue() + " is " + cEnums.get(m.getValue()));
            }
        }
        assertEquals(List.of(), problems);
    }

    /** The JVM descriptor a C function's manifest entry gives under the binding's rules. */
    static String descriptor(
            Map<String, Object> f,
            boolean pinned,
            Set<String> rowArrays,
            Map<String, Integer> structFields,
            Map<String, Boolean> structFloating) {
        String c = (String) f.get("name");
        List<Map<String, Object>> params = new ArrayList<>();
        for (Object p : asList(f.get("params"))) {
            params.add(asMap(p));
        }
        long bufferParams = params.stream().filter(p -> p.get("group").equals("buffer")).count();
        boolean callerBuffer = pinned || bufferParams > 1;
        StringBuilder args = new StringBuilder();
        String ret = null;
        int results = 0;
        boolean floating = false;
        String single = null;
        boolean rowsGroup = false;
        for (Map<String, Object> p : params) {
            String t = (String) p.get("c_type");
            String meaning = (String) p.get("meaning");
            switch ((String) p.get("group")) {
                case "handle" -> args.append('J');
                case "str" -> args.append("[B");
                case "scalar" -> args.append(scalar(c, t, meaning));
                case "arrays" -> {
                    rowsGroup |= rowArrays.contains(c + "." + p.get("name"));
                    args.append(switch (t) {
                        case "const double *" -> "[D";
                        case "const size_t *" -> "[J";
                        case "const uint8_t *" -> "[B";
                        case "const char *const *", "const char **" -> "[[B";
                        default -> throw new AssertionError(c + ": input array type " + t);
                    });
                }
                case "count" -> {
                    if (rowsGroup) {
                        args.append('J'); // rows: the caller says how many
                    }
                    rowsGroup = false;
                }
                case "buffer" -> {
                    String a = switch (t) {
                        case "double *" -> "[D";
                        case "char *" -> "[B";
                        case "int32_t *" -> "[I";
                        default -> throw new AssertionError(c + ": buffer type " + t);
                    };
                    if (callerBuffer) {
                        args.append(a);
                    } else {
                        ret = a;
                    }
                }
                case "cap", "out_len" -> {}
                case "out_array" -> args.append("[D");
                case "handle_out" -> {
                    results++;
                    single = "J";
                }
                case "out" -> {
                    String base = t.replace("struct ", "").replace(" *", "");
                    if (structFields.containsKey(base)) {
                        results += structFields.get(base);
                        floating |= structFloating.get(base);
                        single = null;
                    } else {
                        results++;
                        floating |= base.equals("double") || base.equals("float");
                        single = switch (base) {
                            case "double" -> "D";
                            case "size_t", "uint32_t", "uint64_t", "int64_t" -> "J";
                            case "int32_t" -> "bool".equals(meaning) ? "Z" : "I";
                            default -> throw new AssertionError(c + ": out type " + t);
                        };
                    }
                }
                default -> throw new AssertionError(c + ": group " + p.get("group"));
            }
        }
        if (ret != null || results > 1) {
            if (results > 0) {
                args.append(floating ? "[D" : "[J"); // several results: a caller-provided array
            }
        } else if (results == 1) {
            ret = single;
        }
        String cret = (String) f.get("returns");
        if (!cret.equals("cfx_status")) {
            ret = switch (cret) {
                case "void" -> "V";
                case "const char *" -> "[B";
                case "double" -> "D";
                case "size_t", "uint32_t" -> "J";
                default -> throw new AssertionError(c + ": return type " + cret);
            };
        }
        return "(" + args + ")" + (ret == null ? "V" : ret);
    }

    private static String scalar(String c, String t, String meaning) {
        return switch (t) {
            case "double" -> "D";
            case "float" -> "F";
            case "size_t", "uint64_t", "int64_t", "uint32_t" -> "J";
            case "char" -> "B";
            case "int32_t" -> "bool".equals(meaning) ? "Z" : "I";
            default -> throw new AssertionError(c + ": scalar type " + t);
        };
    }

    /** {@code cfx_model_input_dim} -> {@code modelInputDim}. */
    static String javaName(String c) {
        String[] parts = c.substring("cfx_".length()).split("_+");
        StringBuilder b = new StringBuilder(parts[0]);
        for (int i = 1; i < parts.length; i++) {
            b.append(Character.toUpperCase(parts[i].charAt(0))).append(parts[i].substring(1));
        }
        return b.toString();
    }

    private static Map<String, Method> natives(Class<?> cls) {
        Map<String, Method> out = new TreeMap<>();
        for (Method m : cls.getDeclaredMethods()) {
            if (Modifier.isNative(m.getModifiers())) {
                assertTrue(Modifier.isStatic(m.getModifiers()), m + " is not static");
                assertNull(out.put(m.getName(), m), "overloaded native " + m.getName());
            }
        }
        return out;
    }

    static String descriptor(Method m) {
        StringBuilder b = new StringBuilder("(");
        for (Class<?> p : m.getParameterTypes()) {
            b.append(p.descriptorString());
        }
        return b.append(')').append(m.getReturnType().descriptorString()).toString();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> asMap(Object o) {
        return (Map<String, Object>) o;
    }

    @SuppressWarnings("unchecked")
    private static List<Object> asList(Object o) {
        return (List<Object>) o;
    }

    /** A small JSON reader (objects, arrays, strings, numbers, literals) for the manifest. */
    static final class Json {
        private final String s;
        private int i;

        Json(String s) {
            this.s = s;
        }

        Object value() {
            ws();
            char ch = s.charAt(i);
            if (ch == '{') {
                Map<String, Object> m = new LinkedHashMap<>();
                i++;
                ws();
                if (s.charAt(i) == '}') {
                    i++;
                    return m;
                }
                while (true) {
                    ws();
                    String k = string();
                    ws();
                    expect(':');
                    m.put(k, value());
                    ws();
                    if (s.charAt(i++) == '}') {
                        return m;
                    }
                }
            }
            if (ch == '[') {
                List<Object> l = new ArrayList<>();
                i++;
                ws();
                if (s.charAt(i) == ']') {
                    i++;
                    return l;
                }
                while (true) {
                    l.add(value());
                    ws();
                    if (s.charAt(i++) == ']') {
                        return l;
                    }
                }
            }
            if (ch == '"') {
                return string();
            }
            int start = i;
            while (i < s.length() && ",]} \n\r\t".indexOf(s.charAt(i)) < 0) {
                i++;
            }
            String lit = s.substring(start, i);
            return switch (lit) {
                case "true" -> Boolean.TRUE;
                case "false" -> Boolean.FALSE;
                case "null" -> null;
                default -> Double.parseDouble(lit);
            };
        }

        private String string() {
            expect('"');
            StringBuilder b = new StringBuilder();
            while (true) {
                char ch = s.charAt(i++);
                if (ch == '"') {
                    return b.toString();
                }
                if (ch == '\\') {
                    char e = s.charAt(i++);
                    switch (e) {
                        case 'n' -> b.append('\n');
                        case 't' -> b.append('\t');
                        case 'r' -> b.append('\r');
                        case 'b' -> b.append('\b');
                        case 'f' -> b.append('\f');
                        case 'u' -> {
                            b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                            i += 4;
                        }
                        default -> b.append(e);
                    }
                } else {
                    b.append(ch);
                }
            }
        }

        private void expect(char ch) {
            if (s.charAt(i) != ch) {
                throw new IllegalArgumentException("JSON: expected " + ch + " at " + i);
            }
            i++;
        }

        private void ws() {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
        }
    }
}
