"""The Java binding's mechanical layer: one JNI entry point per C function
(`bindings/java/src/main/c/cfx_jni_generated.c`) and its `native` declaration
(`org.cfx.NativeGenerated`), by uniform rules over the parameter groups of
`cfx_header.groups`. The idiomatic classes (Model, Schema, ...) call these.

Rules (the manifest test `AbiManifestTest` checks the descriptors against
`abi.json` with its own copy of them):
  name        `cfx_model_input_dim` -> `modelInputDim`
  handle      long
  handle_out  the new handle, returned as long
  str         byte[] (UTF-8; the shim appends the NUL); null passes NULL
  scalar      double; size_t as long (negative -> IllegalArgumentException);
              uint64_t/int64_t as long; uint32_t as long (range-checked);
              char as byte; int32_t as boolean (bool) or int (enum, number)
  arrays      double[] / long[] (size_t) / byte[][] (strings), copied in;
              byte[] (uint8_t bytes) by GetByteArrayElements, released
              with JNI_ABORT
              (pinned for the hot paths of overrides_java.toml [pin]); the
              count is the arrays' common length, or an explicit long after
              them when it counts rows (checked against the array length)
  buffer      the two-call protocol inside C, returning double[] / byte[]
              (text without its NUL); caller-provided arrays instead for the
              pinned hot paths and for buffers of several arrays
  out_array   caller-provided double[] of at least the count
  out         one result (handle or out value) is the return value; several
              (struct fields flattened) are written into a caller-provided
              last parameter `out`: double[] when any is floating, else long[]
  status      every non-OK status throws org.cfx.CfxException after the C
              call returned and every pinned array was released
Functions listed under [hand] in overrides_java.toml keep hand-written entry
points in cfx_jni.c / Native.java (callbacks, the loader's ABI check, the error
slot, the sliced batch hot path).
"""

import os
import re
import textwrap
import tomllib

from cfx_header import HERE, groups

C_OUT = "bindings/java/src/main/c/cfx_jni_generated.c"
JAVA_OUT = "bindings/java/src/main/java/org/cfx/NativeGenerated.java"
JNI_CLASS = "org_cfx_NativeGenerated"

JAVA_KEYWORDS = {
    "abstract", "assert", "boolean", "break", "byte", "case", "catch", "char", "class", "const",
    "continue", "default", "do", "double", "else", "enum", "extends", "final", "finally", "float",
    "for", "goto", "if", "implements", "import", "instanceof", "int", "interface", "long", "native",
    "new", "package", "private", "protected", "public", "return", "short", "static", "strictfp",
    "super", "switch", "synchronized", "this", "throw", "throws", "transient", "try", "void",
    "volatile", "while", "true", "false", "null", "var", "record", "yield",
}


def overrides():
    with open(os.path.join(HERE, "overrides_java.toml"), "rb") as f:
        return tomllib.load(f)


def camel(name):
    parts = [p for p in name.split("_") if p]
    return parts[0] + "".join(p[:1].upper() + p[1:] for p in parts[1:])


def java_name(cname):
    return camel(cname[len("cfx_"):] if cname.startswith("cfx_") else cname)


def jparam(name):
    n = camel(name)
    return n + "_" if n in JAVA_KEYWORDS else n


# ------------------------------------------------------------- type mapping

SCALAR = {
    "double": ("double", "jdouble"),
    "float": ("float", "jfloat"),
    "size_t": ("long", "jlong"),
    "uint64_t": ("long", "jlong"),
    "int64_t": ("long", "jlong"),
    "uint32_t": ("long", "jlong"),
    "char": ("byte", "jbyte"),
}

BUFFER = {  # element C type -> (Java array, JNI array, New*Array, Set*ArrayRegion, JNI element)
    "double": ("double[]", "jdoubleArray", "NewDoubleArray", "SetDoubleArrayRegion", "jdouble"),
    "char": ("byte[]", "jbyteArray", "NewByteArray", "SetByteArrayRegion", "jbyte"),
    "int32_t": ("int[]", "jintArray", "NewIntArray", "SetIntArrayRegion", "jint"),
    "size_t": ("long[]", "jlongArray", "NewLongArray", "SetLongArrayRegion", "jlong"),
}


def scalar_type(p):
    if p.type.base == "int32_t":
        return ("boolean", "jboolean") if p.meaning == "bool" else ("int", "jint")
    if p.type.base not in SCALAR:
        raise ValueError(f"java: no rule for the scalar {p.name} ({p.type.c()})")
    return SCALAR[p.type.base]


def result_items(f, header, gs):
    """The results of a function (handle_out and out groups, struct outs
    flattened): list of (C local name, C type text, how it reads, kind)."""
    items = []
    for g in gs:
        if g.kind == "handle_out":
            p = g.params[0]
            items.append(dict(param=p, local=f"r_{p.name}", ctype=("const " if p.type.const else "") + f"struct {p.type.base} *",
                              kind="handle", init="NULL", reads=[(f"r_{p.name}", "handle")]))
        elif g.kind == "out":
            p = g.params[0]
            base = p.type.base
            structs = {s.name: s for s in header.structs}
            if base in structs:
                reads = []
                for fld in structs[base].fields:
                    if fld.type.stars:
                        raise ValueError(f"java: struct {base} has a pointer field {fld.name}")
                    reads.append((f"r_{p.name}.{fld.name}", _num_kind(fld.type.base, None)))
                items.append(dict(param=p, local=f"r_{p.name}", ctype=f"struct {base}", kind="struct",
                                  init="{0}", reads=reads))
            else:
                items.append(dict(param=p, local=f"r_{p.name}", ctype=base, kind="value", init="0",
                                  reads=[(f"r_{p.name}", _num_kind(base, p.meaning))]))
    return items


def _num_kind(base, meaning):
    if base in ("double", "float"):
        return "double"
    if base == "int32_t":
        return "bool" if meaning == "bool" else "int"
    if base in ("size_t", "uint32_t", "uint64_t", "int64_t"):
        return "long"
    raise ValueError(f"java: no rule for an out value of type {base}")


def single_return(read):
    """Java type, JNI type and C expression for one returned result."""
    expr, kind = read
    return {
        "handle": ("long", "jlong", f"J({expr})"),
        "double": ("double", "jdouble", f"(jdouble){expr}"),
        "long": ("long", "jlong", f"(jlong){expr}"),
        "int": ("int", "jint", f"(jint){expr}"),
        "bool": ("boolean", "jboolean", f"({expr} != 0 ? JNI_TRUE : JNI_FALSE)"),
    }[kind]


class Plan:
    """How one function crosses: the Java parameters, the JNI parameters, the
    C body."""

    def __init__(self, f, header, ov):
        self.f = f
        self.header = header
        self.pinned = f.name in ov.get("pin", {}).get("functions", [])
        self.extra_rows = {k: v for k, v in ov.get("rows", {}).items()}
        self.gs = groups(f, header)
        self.jparams = []  # (Java type, Java name)
        self.cparams = []  # (JNI type, C name)
        self.decls = []  # C declarations at the top of the body
        self.setup = []  # C statements with JNI calls (before any pinning)
        self.pin = []  # (array jni name, C pointer name, C elem type, release mode)
        self.args = []  # C call arguments
        self.post = []  # after OK
        self.cleanup = []
        self.late = []  # setup checks that need every scalar read first
        self.ret_java = "void"
        self.ret_jni = "void"
        self.ret_expr = None
        self.loop = None  # returned buffer
        self._plan()

    def jp(self, jtype, cname):
        jn = jparam(cname)
        self.jparams.append((jtype, jn))
        cn = "j_" + cname
        jni = {
            "long": "jlong", "double": "jdouble", "float": "jfloat", "int": "jint", "boolean": "jboolean",
            "byte": "jbyte", "byte[]": "jbyteArray", "double[]": "jdoubleArray", "long[]": "jlongArray",
            "int[]": "jintArray", "byte[][]": "jobjectArray",
        }[jtype]
        self.cparams.append((jni, cn))
        return cn

    def _plan(self):
        f, gs = self.f, self.gs
        items = result_items(f, self.header, gs)
        buffers = [g for g in gs if g.kind == "buffer"]
        returned_buffer = None
        if len(buffers) > 1:
            raise ValueError(f"java: {f.name} has two buffers")
        if buffers and not self.pinned and len(buffers[0].params) == 1:
            returned_buffer = buffers[0]
        reads = [r for it in items for r in it["reads"]]
        many = returned_buffer is not None or len(reads) > 1
        for it in items:
            self.decls.append(f"{it['ctype']} {it['local']} = {it['init']};")
        for g in gs:
            k = g.kind
            if k == "handle":
                p = g.params[0]
                cn = self.jp("long", p.name)
                self.args.append(f"HANDLE({p.type.c()}, {cn})")
            elif k == "handle_out" or k == "out":
                self.args.append(f"&r_{g.params[0].name}")
            elif k == "str":
                p = g.params[0]
                cn = self.jp("byte[]", p.name)
                self.decls.append(f"char *s_{p.name} = NULL;")
                self.setup.append(f"s_{p.name} = cstr_in(env, {cn}, &fail_);")
                self.setup.append("if (fail_) goto done;")
                self.cleanup.append(f"free(s_{p.name});")
                self.args.append(f"s_{p.name}")
            elif k == "scalar":
                self._scalar(g.params[0])
            elif k == "arrays":
                self._arrays(g)
            elif k == "buffer":
                if g is returned_buffer:
                    self._returned_buffer(g)
                else:
                    self._caller_buffer(g)
            elif k == "out_array":
                self._out_array(g)
            elif k == "callback":
                raise ValueError(f"java: {f.name} takes a callback; list it under [hand] in overrides_java.toml")
            else:
                raise ValueError(f"java: no rule for the group {k} of {f.name}")
        self.setup.extend(self.late)
        # results
        if many and reads:
            floating = any(kind == "double" for _, kind in reads)
            jt = "double[]" if floating else "long[]"
            cn = self.jp(jt, "out")
            n = len(reads)
            self.setup.append(f'if (!out_fits(env, {cn}, {n})) goto done;')
            elem = "jdouble" if floating else "jlong"
            vals = []
            for expr, kind in reads:
                if kind == "handle":
                    vals.append(f"J({expr})")
                elif kind == "bool":
                    vals.append(f"({elem})({expr} != 0)")
                else:
                    vals.append(f"({elem}){expr}")
            self.post.append(f"{elem} v_[{n}] = {{{', '.join(vals)}}};")
            setter = "SetDoubleArrayRegion" if floating else "SetLongArrayRegion"
            self.post.append(f"(*env)->{setter}(env, {cn}, 0, {n}, v_);")
        elif reads:
            jt, jni, expr = single_return(reads[0])
            self.ret_java, self.ret_jni = jt, jni
            self.post.append(f"result_ = {expr};")
        if not self.f.fallible and self.f.ret.c() != "void":
            r = self.f.ret
            if r.base == "char" and r.stars == 1:
                self.ret_java, self.ret_jni = "byte[]", "jbyteArray"
            elif r.stars == 0 and r.base in ("double",):
                self.ret_java, self.ret_jni = "double", "jdouble"
            elif r.stars == 0 and r.base in ("size_t", "uint32_t", "uint64_t", "int64_t"):
                self.ret_java, self.ret_jni = "long", "jlong"
            else:
                raise ValueError(f"java: no rule for the return type {r.c()} of {f.name}")

    def _scalar(self, p):
        jt, _ = scalar_type(p)
        cn = self.jp(jt, p.name)
        b = p.type.base
        if b == "size_t":
            self.setup.append(f'if (!non_negative(env, {cn}, "{p.name}")) goto done;')
            self.args.append(f"(size_t){cn}")
        elif b == "uint32_t":
            self.setup.append(f'if (!fits_u32(env, {cn}, "{p.name}")) goto done;')
            self.args.append(f"(uint32_t){cn}")
        elif b == "int32_t":
            self.args.append(f"({cn} ? 1 : 0)" if p.meaning == "bool" else f"(int32_t){cn}")
        elif b == "char":
            self.args.append(f"(char){cn}")
        else:
            self.args.append(f"({b}){cn}")

    def _rows_width(self, g):
        """C expression of a row's width for a row-counted arrays group."""
        for a in g.params:
            key = f"{self.f.name}.{a.name}"
            what = self.header.rows.get(key) or self.extra_rows.get(key)
            if what is None:
                continue
            names = {p.name: p for p in self.f.params}
            if what in names:
                return f"(size_t)j_{what}", None
            if what == "the model's input_dim":
                model = [p for p in self.f.params if p.type.base == "cfx_model" and p.type.stars == 1]
                if not model:
                    raise ValueError(f"java: {key}: no model parameter for the row width")
                return "w_", f"j_{model[0].name}"
            raise ValueError(f"java: {key}: cannot read the row width {what!r}")
        raise ValueError(f"java: {self.f.name}: no row width for {g.names}")

    def _arrays(self, g):
        key_rows = any(f"{self.f.name}.{a.name}" in self.extra_rows for a in g.params)
        per_element = g.per_element and not key_rows
        count = g.count.name
        self.decls.append(f"size_t n_{count} = 0;")
        lens = []
        for a in g.params:
            t = a.type
            if t.base == "char" and t.stars == 2:
                cn = self.jp("byte[][]", a.name)
                self.decls.append(f"char **a_{a.name} = NULL;")
                self.decls.append(f"size_t l_{a.name} = 0;")
                self.setup.append(f'a_{a.name} = cstrs_in(env, {cn}, "{a.name}", &l_{a.name}, &fail_);')
                self.setup.append("if (fail_) goto done;")
                self.cleanup.append(f"free_cstrs(a_{a.name}, l_{a.name});")
                self.args.append(f"(const char *const *)a_{a.name}")
            elif t.base == "double" and t.stars == 1:
                cn = self.jp("double[]", a.name)
                self.decls.append(f"double *a_{a.name} = NULL;")
                self.decls.append(f"size_t l_{a.name} = 0;")
                if self.pinned:
                    self.setup.append(f"l_{a.name} = {cn} ? (size_t)(*env)->GetArrayLength(env, {cn}) : 0;")
                    self.pin.append((cn, f"a_{a.name}", "double", "JNI_ABORT"))
                else:
                    self.setup.append(f'a_{a.name} = doubles_in(env, {cn}, &l_{a.name}, &fail_);')
                    self.setup.append("if (fail_) goto done;")
                    self.cleanup.append(f"free(a_{a.name});")
                self.args.append(f"a_{a.name}")
            elif t.base == "uint8_t" and t.stars == 1:
                # Bytes (a model's file content): the array's elements, pinned or
                # copied as the VM chooses (GetByteArrayElements: not a critical
                # region, so a long call does not hold the GC), released with
                # JNI_ABORT (nothing written back) on every path out, also after
                # the call threw. null passes NULL with length 0.
                cn = self.jp("byte[]", a.name)
                self.decls.append(f"uint8_t *a_{a.name} = NULL;")
                self.decls.append(f"size_t l_{a.name} = 0;")
                self.setup.append(f"l_{a.name} = {cn} ? (size_t)(*env)->GetArrayLength(env, {cn}) : 0;")
                self.setup.append(
                    f"if (l_{a.name} > 0 && (a_{a.name} = (uint8_t *)(*env)->GetByteArrayElements(env, {cn}, NULL)) == NULL) "
                    "goto done; /* OutOfMemoryError pending */"
                )
                self.cleanup.append(
                    f"if (a_{a.name} != NULL) (*env)->ReleaseByteArrayElements(env, {cn}, (jbyte *)a_{a.name}, JNI_ABORT);"
                )
                self.args.append(f"a_{a.name}")
            elif t.base == "size_t" and t.stars == 1:
                if self.pinned:
                    raise ValueError(f"java: {self.f.name}: size_t arrays cannot be pinned")
                cn = self.jp("long[]", a.name)
                self.decls.append(f"size_t *a_{a.name} = NULL;")
                self.decls.append(f"size_t l_{a.name} = 0;")
                self.setup.append(f'a_{a.name} = sizes_in(env, {cn}, "{a.name}", &l_{a.name}, &fail_);')
                self.setup.append("if (fail_) goto done;")
                self.cleanup.append(f"free(a_{a.name});")
                self.args.append(f"a_{a.name}")
            else:
                raise ValueError(f"java: {self.f.name}: no rule for the input array {a.name} ({t.c()})")
            lens.append(f"l_{a.name}")
        if per_element:
            self.setup.append(f"n_{count} = {lens[0]};")
            for other in lens[1:]:
                self.setup.append(
                    f'if ({other} != n_{count}) {{ throw_named(env, "java/lang/IllegalArgumentException", '
                    f'"{self.f.name}: {", ".join(g.names)} differ in length"); goto done; }}'
                )
            self.args.append(f"n_{count}")
        else:
            # the count of rows comes from the caller, checked against the arrays
            cn = self.jp("long", count)
            self.setup.append(f'if (!non_negative(env, {cn}, "{count}")) goto done;')
            self.setup.append(f"n_{count} = (size_t){cn};")
            width, model = self._rows_width(g)
            if model is not None:
                self.decls.append("size_t w_ = 0;")
                self.late.append(f"if (!ok(env, cfx_model_input_dim(HANDLE(const struct cfx_model *, {model}), &w_))) goto done;")
            for ln, a in zip(lens, g.params):
                self.late.append(
                    f"if (!rows_fit(env, {ln}, n_{count}, {width}, \"{a.name}\")) goto done;"
                )
            self.args.append(f"n_{count}")

    def _returned_buffer(self, g):
        p = g.params[0]
        b = p.type.base
        if b not in BUFFER:
            raise ValueError(f"java: {self.f.name}: no rule for the buffer {p.name} ({p.type.c()})")
        jarr, jni, new, setter, elem = BUFFER[b]
        self.ret_java, self.ret_jni = jarr, jni
        self.decls.append(f"{b} *buf_ = NULL;")
        self.decls.append("size_t cap_ = 0, len_ = 0;")
        self.cleanup.append("free(buf_);")
        self.args.append("buf_")
        self.args.append("cap_")
        if g.out_len is not None:
            self.args.append("&len_")
        else:
            raise ValueError(f"java: {self.f.name}: a buffer without out_len; list it under [hand]")
        self.loop = (b, f"sizeof({b})")
        if b == "char":
            self.post.append("result_ = bytes_out(env, buf_ ? buf_ : \"\", text_len(buf_, cap_));")
        else:
            self.post.append(f"result_ = (*env)->{new}(env, (jsize)len_);")
            self.post.append(f"if (result_ != NULL && len_ > 0) (*env)->{setter}(env, result_, 0, (jsize)len_, (const {elem} *)buf_);")

    def _caller_buffer(self, g):
        """Caller-provided output arrays: pinned (hot paths) or copied back."""
        self.decls.append("size_t cap_ = 0, len_ = 0;")
        caps = []
        for p in g.params:
            b = p.type.base
            if b not in ("double", "int32_t"):
                raise ValueError(f"java: {self.f.name}: no rule for the caller buffer {p.name} ({p.type.c()})")
            jarr, jni, new, setter, elem = BUFFER[b]
            cn = self.jp(jarr, p.name)
            self.decls.append(f"{b} *o_{p.name} = NULL;")
            self.decls.append(f"size_t c_{p.name} = 0;")
            self.setup.append(f'if (!non_null(env, {cn}, "{p.name}")) goto done;')
            self.setup.append(f"c_{p.name} = (size_t)(*env)->GetArrayLength(env, {cn});")
            caps.append(f"c_{p.name}")
            if self.pinned:
                self.pin.append((cn, f"o_{p.name}", b, "0"))
            else:
                self.post.append(f"if (len_ > 0) (*env)->{setter}(env, {cn}, 0, (jsize)(len_ < cap_ ? len_ : cap_), (const {elem} *)o_{p.name});")
                self.cleanup.append(f"free(o_{p.name});")
            self.args.append(f"o_{p.name}")
        cap = caps[0]
        for c in caps[1:]:
            cap = f"({c} < {cap} ? {c} : {cap})"
        self.setup.append(f"cap_ = {cap};")
        if not self.pinned:
            for p in g.params:
                self.setup.append(
                    f'if (cap_ > 0 && (o_{p.name} = malloc(cap_ * sizeof({p.type.base}))) == NULL) '
                    f'{{ throw_named(env, "java/lang/OutOfMemoryError", "{p.name}"); goto done; }}'
                )
        self.args.append("cap_")
        if g.out_len is None:
            raise ValueError(f"java: {self.f.name}: a buffer without out_len; list it under [hand]")
        self.args.append("&len_")

    def _out_array(self, g):
        p = g.params[0]
        if p.type.base != "double":
            raise ValueError(f"java: {self.f.name}: no rule for the out array {p.name}")
        cn = self.jp("double[]", p.name)
        self.decls.append(f"double *o_{p.name} = NULL;")
        count = g.count.name
        self.setup.append(f'if (!out_fits(env, {cn}, n_{count})) goto done;')
        self.setup.append(
            f'if (n_{count} > 0 && (o_{p.name} = malloc(n_{count} * sizeof(double))) == NULL) '
            f'{{ throw_named(env, "java/lang/OutOfMemoryError", "{p.name}"); goto done; }}'
        )
        self.cleanup.append(f"free(o_{p.name});")
        self.post.append(f"if (n_{count} > 0) (*env)->SetDoubleArrayRegion(env, {cn}, 0, (jsize)n_{count}, o_{p.name});")
        self.args.append(f"o_{p.name}")

    # ------------------------------------------------------------- output

    def java_decl(self):
        ps = ", ".join(f"{t} {n}" for t, n in self.jparams)
        return f"static native {self.ret_java} {java_name(self.f.name)}({ps});"

    def c_source(self):
        f = self.f
        name = java_name(f.name)
        params = "".join(f", {t} {n}" for t, n in self.cparams)
        out = [f"/* {f.name} */"]
        out.append(f"JNIEXPORT {self.ret_jni} JNICALL Java_{JNI_CLASS}_{name}(JNIEnv *env, jclass cls{params}) {{")
        body = ["(void)env;", "(void)cls;"]
        if self.ret_jni != "void":
            zero = "NULL" if self.ret_jni.endswith("Array") else "0"
            body.append(f"{self.ret_jni} result_ = {zero};")
        uses_fail = any("fail_" in s for s in self.setup)
        if uses_fail:
            body.append("int fail_ = 0;")
        body.extend(self.decls)
        has_done = bool(self.setup) or bool(self.cleanup) or f.fallible
        call = f"{f.name}({', '.join(self.args)})"
        if f.testing_only:
            body = body[:2] + ["#if defined(CFX_TESTING)"] + body[2:]
        body.extend(self.setup)
        if not f.fallible:
            if self.ret_jni == "void":
                body.append(f"{call};")
            elif f.ret.base == "char" and f.ret.stars == 1:
                body.append(f"const char *t_ = {call};")
                body.append("result_ = bytes_out(env, t_ ? t_ : \"\", t_ ? strlen(t_) : 0);")
            else:
                body.append(f"result_ = ({self.ret_jni}){call};")
            has_done = bool(self.setup) or bool(self.cleanup)
        else:
            body.append("cfx_status st_;")
            # pin, call, release
            for i, (arr, ptr, elem, _) in enumerate(self.pin):
                body.append(f"if ({arr} != NULL && ({ptr} = ({elem} *)(*env)->GetPrimitiveArrayCritical(env, {arr}, NULL)) == NULL) {{")
                for arr2, ptr2, _, _ in reversed(self.pin[:i]):
                    body.append(f"    if ({ptr2} != NULL) (*env)->ReleasePrimitiveArrayCritical(env, {arr2}, {ptr2}, JNI_ABORT);")
                body.append("    goto done; /* OutOfMemoryError pending */")
                body.append("}")
            if self.loop:
                b, size = self.loop
                body.append("for (;;) {")
                body.append(f"    st_ = {call};")
                body.append("    if (st_ == CFX_STATUS_BUFFER_TOO_SMALL && len_ > cap_) {")
                body.append("        free(buf_);")
                body.append("        cap_ = len_;")
                body.append(f"        buf_ = malloc(cap_ * {size});")
                body.append('        if (buf_ == NULL) { throw_named(env, "java/lang/OutOfMemoryError", "cfx buffer"); goto done; }')
                body.append("        continue;")
                body.append("    }")
                body.append("    break;")
                body.append("}")
            else:
                body.append(f"st_ = {call};")
            for arr, ptr, _, mode in reversed(self.pin):
                body.append(f"if ({ptr} != NULL) (*env)->ReleasePrimitiveArrayCritical(env, {arr}, {ptr}, {mode});")
            body.append("if (!ok(env, st_)) goto done;")
            body.extend(self.post)
        if f.testing_only:
            body.append("#else")
            for _, n in self.cparams:
                body.append(f"(void){n};")
            body.append('throw_named(env, "java/lang/UnsupportedOperationException", '
                        f'"{f.name} needs a library built with the `testing` feature");')
            body.append("#endif")
            has_done = True
        if has_done:
            if f.testing_only:
                body.append("#if defined(CFX_TESTING)")
            body.append("done:")
            body.extend(self.cleanup if self.cleanup else [";"])
            if f.testing_only:
                body.append("#endif")
        if self.ret_jni != "void":
            body.append("return result_;")
        out.extend("    " + line if not line.startswith("#") else line for line in body)
        out.append("}")
        return "\n".join(out)


GENERATED_NOTE = (
    "Generated by bindings/gen/generate.py (emit_java.py) from include/cfx.h: do not edit by hand.\n"
    "Functions kept by hand are listed, with their reasons, in bindings/gen/overrides_java.toml."
)


def plans(header):
    ov = overrides()
    hand = ov.get("hand", {})
    for name in hand:
        header.function(name)  # must exist
    return [Plan(f, header, ov) for f in header.functions if f.name not in hand]


def c_file(header, ps):
    lines = ["/* " + GENERATED_NOTE.replace("\n", "\n * "),
             " *",
             " * The JNI entry points of org.cfx.NativeGenerated, one per C function, by the",
             " * rules of emit_java.py; the shared helpers and their safety rules are in",
             " * cfx_jni_common.h. */",
             '#include "cfx_jni_common.h"',
             ""]
    for p in ps:
        lines.append(p.c_source())
        lines.append("")
    return "\n".join(lines)


def _javadoc(f):
    first = f.doc.split("\n\n")[0].replace("\n", " ").strip()
    first = re.sub(r"\s+", " ", first)
    first = first.replace("*/", "* /").replace("@", "{@literal @}")
    first = re.sub(r"`([^`]*)`", r"{@code \1}", first)
    text = f"{{@code {f.name}}}" + (f": {first}" if first else ".")
    return text


def java_file(header, ps):
    out = [
        "/* " + GENERATED_NOTE.replace("\n", "\n * ") + " */",
        "package org.cfx;",
        "",
        "/**",
        " * The JNI entry points generated from include/cfx.h (src/main/c/cfx_jni_generated.c), one per C",
        " * function. Package private: the public classes check arguments, keep handles alive around each",
        " * call and turn results into Java values. Handles are {@code long}; strings cross as UTF-8 byte",
        " * arrays; every non-OK status is thrown as a {@link CfxException}. The rules are in",
        " * bindings/gen/emit_java.py; the functions kept by hand are in {@link Native}.",
        " */",
        "final class NativeGenerated {",
        "    static {",
        "        Native.load();",
        "    }",
        "",
        "    private NativeGenerated() {}",
    ]
    for p in ps:
        out.append("")
        out.append("    /**")
        for line in textwrap.wrap(_javadoc(p.f), 96, break_long_words=False, break_on_hyphens=False):
            out.append(f"     * {line}")
        out.append("     */")
        decl = p.java_decl()
        if len(decl) + 4 > 110:
            head, _, rest = decl.partition("(")
            out.append(f"    {head}(")
            params = rest[:-2].split(", ")
            for i, q in enumerate(params):
                out.append(f"            {q}{',' if i + 1 < len(params) else ');'}")
        else:
            out.append(f"    {decl}")
    out.append("}")
    return "\n".join(out) + "\n"


def outputs(header):
    ps = plans(header)
    return {C_OUT: c_file(header, ps), JAVA_OUT: java_file(header, ps)}
