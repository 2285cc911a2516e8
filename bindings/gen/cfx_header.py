"""Reads include/cfx.h into a model of the C API that every binding emitter shares.

cbindgen writes the header in a regular shape (src/ffi is the one source), so a
small reader is enough: functions with their doc comments, parameter names and
C types; enums with their values; opaque handle types; plain structs; callback
types; and the `CFX_*` constants. `types.toml` beside this file says what the
header cannot: which `int32_t` parameter carries which enum, and which carries
a boolean (the C ABI passes booleans as `int32_t` so every language can).

Every emitter (`emit_*.py`) takes the `Header` this module returns, so a new C
function reaches all four bindings through one regeneration (`make bindings`).
"""

import os
import re
import tomllib
from dataclasses import dataclass

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
HEADER = os.path.join(ROOT, "include", "cfx.h")


@dataclass(frozen=True)
class CType:
    """A C type as written in the header: `const struct cfx_schema *` is
    CType(base='cfx_schema', stars=1, const=True)."""

    base: str  # e.g. 'double', 'size_t', 'char', 'cfx_model', 'cfx_progress_fn', 'void'
    stars: int = 0
    const: bool = False  # the pointee (or the value, for stars == 0) is const

    def c(self):
        """The type as C source."""
        struct = "struct " if self.base in _STRUCT_TAGGED else ""
        const = "const " if self.const else ""
        return f"{const}{struct}{self.base}" + (" " + "*" * self.stars if self.stars else "")


# Type names the header spells with `struct` in parameter lists (filled by parse()).
_STRUCT_TAGGED = set()


@dataclass
class Param:
    name: str
    type: CType
    # What types.toml says of an int32_t (or int32_t *) parameter: the name of
    # a cfx enum (e.g. 'cfx_solver_choice'), 'bool', or None for a plain number.
    meaning: str = None


@dataclass
class Function:
    name: str
    doc: str
    ret: CType
    params: list
    testing_only: bool = False  # only in a library built with the `testing` feature

    @property
    def fallible(self):
        """True when the function returns a cfx_status."""
        return self.ret.base == "cfx_status" and self.ret.stars == 0


@dataclass
class EnumVariant:
    name: str  # e.g. 'CFX_SOLVER_CHOICE_TREE_SEARCH'
    value: int
    doc: str

    def short(self, enum_name):
        """The variant without its enum's prefix: 'TREE_SEARCH'."""
        prefix = enum_name.upper() + "_"
        return self.name[len(prefix):] if self.name.startswith(prefix) else self.name


@dataclass
class Enum:
    name: str  # e.g. 'cfx_solver_choice'
    doc: str
    variants: list


@dataclass
class StructField:
    name: str
    type: CType
    doc: str


@dataclass
class Struct:
    name: str
    doc: str
    fields: list


@dataclass
class Callback:
    name: str  # e.g. 'cfx_progress_fn'
    doc: str
    ret: CType
    params: list


@dataclass
class Header:
    functions: list
    enums: list
    handles: list  # opaque handle type names, e.g. 'cfx_model' (header order)
    handle_docs: dict
    structs: list
    callbacks: list
    constants: dict  # 'CFX_ABI_VERSION' -> 2, 'CFX_VERSION_STRING' -> '0.1.0'
    rows: dict = None  # types.toml [rows]: 'fn.array' -> what a row's width is
    out_arrays: dict = None  # types.toml [out_arrays]: 'fn.param' -> count parameter

    def function(self, name):
        for f in self.functions:
            if f.name == name:
                return f
        raise KeyError(name)

    def enum(self, name):
        for e in self.enums:
            if e.name == name:
                return e
        raise KeyError(name)

    def free_function(self, handle):
        """The `_free` function of a handle type, e.g. 'cfx_model_free'."""
        return self.function(handle + "_free").name


def _doc(comment):
    """The text of a `/** ... */` comment, its ` * ` prefixes removed."""
    if comment is None:
        return ""
    body = comment.strip()
    body = re.sub(r"^/\*\*?", "", body)
    body = re.sub(r"\*/$", "", body)
    lines = []
    for line in body.splitlines():
        line = re.sub(r"^\s*\* ?", "", line.rstrip())
        lines.append(line)
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines)


def _ctype(text):
    t = " ".join(text.split())
    const = bool(re.match(r"^const\b", t))
    stars = t.count("*")
    words = [w for w in re.sub(r"\*", " ", t).split() if w not in ("const", "struct")]
    if len(words) != 1:
        raise ValueError(f"cannot read the C type {text!r}")
    return CType(words[0], stars, const)


def _params(name, text):
    text = " ".join(text.split())
    if text in ("", "void"):
        return []
    out = []
    for p in text.split(","):
        p = p.strip()
        m = re.match(r"^(.*?[\s*])([A-Za-z_][A-Za-z0-9_]*)$", p)
        if not m:
            raise ValueError(f"{name}: cannot read the parameter {p!r}")
        out.append(Param(m.group(2), _ctype(m.group(1))))
    return out


# A doc comment (optional) followed by one top-level item of the header.
_ITEM = re.compile(
    r"(?P<doc>/\*\*(?:(?!\*/).)*\*/\s*)?"
    r"(?:"
    r"(?P<testing>#if defined\(CFX_TESTING\))|(?P<endif>#endif)"
    r"|(?P<enum>enum (?P<enum_name>cfx_\w+)\s*(?:#if[^\n]*\n[^\n]*\n#endif[^\n]*\n)?\s*\{(?P<enum_body>.*?)\n\};)"
    r"|(?P<opaque>typedef struct (?P<opaque_name>\w+) (?P=opaque_name);)"
    r"|(?P<struct>typedef struct (?P<struct_name>cfx_\w+) \{(?P<struct_body>[^}]*)\} (?P=struct_name);)"
    r"|(?P<callback>typedef (?P<cb_ret>[\w ]+?\**)\s*\(\*(?P<cb_name>cfx_\w+)\)\((?P<cb_params>[^)]*)\);)"
    r"|(?P<define>#define (?P<def_name>CFX_\w+) (?P<def_value>[^\n]+))"
    r"|(?P<function>(?P<ret>[A-Za-z_][\w ]*?\**)\s*\b(?P<name>cfx_[a-z0-9_]+)\((?P<fparams>[^)]*)\);)"
    r")",
    re.S,
)


def _enum_body(name, body):
    variants = []
    for m in re.finditer(r"(/\*\*(?:(?!\*/).)*\*/\s*)?(CFX_\w+) = (-?\d+),", body, re.S):
        variants.append(EnumVariant(m.group(2), int(m.group(3)), _doc(m.group(1))))
    if not variants:
        raise ValueError(f"enum {name}: no variants read")
    return variants


def _struct_body(name, body):
    fields = []
    doc = None
    for m in re.finditer(r"(/\*\*(?:(?!\*/).)*\*/)|([^;/]+);", body, re.S):
        if m.group(1):
            doc = m.group(1)
            continue
        decl = " ".join(m.group(2).split())
        fm = re.match(r"^(.*?[\s*])([A-Za-z_]\w*)$", decl)
        if not fm:
            raise ValueError(f"struct {name}: cannot read the field {decl!r}")
        fields.append(StructField(fm.group(2), _ctype(fm.group(1)), _doc(doc)))
        doc = None
    return fields


def _load_types(path):
    with open(path, "rb") as f:
        data = tomllib.load(f)
    return data


def parse(text, types_path=os.path.join(HERE, "types.toml")):
    """The Header of the header text `text`."""
    functions, enums, handles, structs, callbacks = [], [], [], [], []
    handle_docs, constants = {}, {}
    testing = False
    # Drop the plain (non-doc) comments, keeping `/** */` docs.
    text = re.sub(r"/\*(?!\*)(?:(?!\*/).)*\*/", "", text, flags=re.S)
    text = re.sub(r"(?m)\s*// .*$", "", text)
    for m in _ITEM.finditer(text):
        doc = _doc(m.group("doc"))
        if m.group("testing"):
            testing = True
        elif m.group("endif"):
            testing = False
        elif m.group("enum"):
            enums.append(Enum(m.group("enum_name"), doc, _enum_body(m.group("enum_name"), m.group("enum_body"))))
        elif m.group("opaque"):
            name = m.group("opaque_name")
            if name.startswith("cfx_"):
                handles.append(name)
                handle_docs[name] = doc
        elif m.group("struct"):
            structs.append(Struct(m.group("struct_name"), doc, _struct_body(m.group("struct_name"), m.group("struct_body"))))
        elif m.group("callback"):
            callbacks.append(
                Callback(m.group("cb_name"), doc, _ctype(m.group("cb_ret")), _params(m.group("cb_name"), m.group("cb_params")))
            )
        elif m.group("define"):
            value = m.group("def_value").strip()
            if re.fullmatch(r"-?\d+", value):
                constants[m.group("def_name")] = int(value)
            elif re.fullmatch(r'"[^"]*"', value):
                constants[m.group("def_name")] = value[1:-1]
        elif m.group("function"):
            ret = m.group("ret").strip()
            if ret.startswith(("typedef", "return")):
                continue
            name = m.group("name")
            functions.append(Function(name, doc, _ctype(ret), _params(name, m.group("fparams")), testing))
    _STRUCT_TAGGED.update(handles)
    _STRUCT_TAGGED.update(s.name for s in structs)
    header = Header(functions, enums, handles, handle_docs, structs, callbacks, constants)
    _apply_types(header, _load_types(types_path))
    _check(header)
    for f in header.functions:
        groups(f, header)  # every parameter list must follow a convention
    return header


def _apply_types(header, types):
    header.rows = dict(types.get("rows", {}))
    header.out_arrays = dict(types.get("out_arrays", {}))
    enum_names = {e.name for e in header.enums}
    for key, meaning in types.get("int32", {}).items():
        fname, _, pname = key.partition(".")
        try:
            f = header.function(fname)
        except KeyError:
            raise ValueError(f"types.toml: no function {fname} in the header") from None
        params = [p for p in f.params if p.name == pname]
        if not params:
            raise ValueError(f"types.toml: {fname} has no parameter {pname}")
        p = params[0]
        if p.type.base != "int32_t":
            raise ValueError(f"types.toml: {key} is {p.type.c()}, not int32_t")
        if meaning not in ("bool", "int") and meaning not in enum_names:
            raise ValueError(f"types.toml: {key} = {meaning!r} is neither 'bool' nor a cfx enum")
        p.meaning = meaning


def _check(header):
    """Every int32_t parameter must be typed in types.toml (enum, bool or
    'int'), so a new function cannot slip through with an untyped flag."""
    missing = []
    for f in header.functions:
        for p in f.params:
            if p.type.base == "int32_t" and p.meaning is None:
                missing.append(f"{f.name}.{p.name}")
    if missing:
        raise ValueError(
            "types.toml does not say what these int32_t parameters carry "
            "(an enum name, 'bool' or 'int'): " + ", ".join(missing)
        )


def load(path=HEADER):
    with open(path, encoding="utf-8") as f:
        return parse(f.read())




# ------------------------------------------------------------ parameter groups
#
# The C API follows a few conventions (see the header's opening comment), so
# every parameter list reads as a sequence of groups that each binding
# marshals the same way. `groups(function, header)` returns them in order:
#
#   handle      one handle in (`const cfx_model *model`)
#   handle_out  a new handle written on success (`const cfx_model **out_model`)
#   str         a NUL-terminated UTF-8 string in (`const char *json`)
#   scalar      a number, char or flag by value (meaning set for int32_t)
#   arrays      one or more input arrays and their shared count:
#               (`const double *x, size_t x_len`); `count` is the size_t that
#               follows; `per_element` is False when it counts rows of a
#               row-major matrix rather than elements (types.toml [rows]), so
#               the caller must supply it
#   buffer      the caller-buffer protocol: one or more output arrays (or a
#               char string) followed by `size_t cap, size_t *out_len`;
#               BUFFER_TOO_SMALL writes the needed length to *out_len
#   out         one value written on success (`double *out_rate`,
#               `struct cfx_portfolio_counts *out_counts`); may be NULL when
#               the doc says so
#   out_array   an output array without a cap of its own, whose length is
#               another parameter's count (types.toml [out_arrays]), e.g.
#               `out_gamma` of cfx_estimator_estimate_batch (n_points values)
#   callback    a callback type and its `void *user_data`
#   nullable string arrays are `arrays` whose element type is `const char *`.


@dataclass
class Group:
    kind: str
    params: list  # the C parameters of the group, in order
    count: Param = None  # arrays: the shared count; buffer: `cap`
    out_len: Param = None  # buffer only
    per_element: bool = True  # arrays: the count counts elements of each array

    @property
    def names(self):
        return [p.name for p in self.params]


def groups(function, header):
    """The parameter groups of `function` (see above); raises ValueError for a
    parameter list that follows none of the conventions, so a new function
    with a new shape is noticed when the bindings are regenerated."""
    ps = function.params
    out = []
    i = 0
    handles = set(header.handles)
    callbacks = {c.name for c in header.callbacks}
    while i < len(ps):
        p = ps[i]
        t = p.type
        if t.base in handles and t.stars == 1:
            out.append(Group("handle", [p]))
            i += 1
        elif t.base in handles and t.stars == 2:
            out.append(Group("handle_out", [p]))
            i += 1
        elif t.base in callbacks:
            if i + 1 >= len(ps) or ps[i + 1].type != CType("void", 1):
                raise ValueError(f"{function.name}: callback {p.name} without user_data")
            out.append(Group("callback", [p, ps[i + 1]]))
            i += 2
        elif t.const and t.stars >= 1 and not (t.base == "char" and t.stars == 1):
            # input arrays (numbers, or strings when `const char **`) up to their count
            j = i
            while j < len(ps) and ps[j].type.const and ps[j].type.stars >= 1 and not (
                ps[j].type.base == "char" and ps[j].type.stars == 1
            ):
                j += 1
            if j >= len(ps) or ps[j].type != CType("size_t"):
                raise ValueError(f"{function.name}: input array {p.name} is not followed by its size_t count")
            arrays = ps[i:j]
            count = ps[j]
            per = not any(f"{function.name}.{a.name}" in header.rows for a in arrays)
            out.append(Group("arrays", arrays, count=count, per_element=per))
            i = j + 1
        elif t.base == "char" and t.stars == 1 and t.const:
            out.append(Group("str", [p]))
            i += 1
        elif t.stars == 1 and not t.const and t.base != "void":
            # caller buffers up to `size_t cap, size_t *out_len`, else out-parameters
            j = i
            while j < len(ps) and ps[j].type.stars == 1 and not ps[j].type.const and ps[j].name != "out_len":
                j += 1
            if j + 1 == len(ps) and ps[j].type == CType("size_t") and ps[j].name == "cap":
                # `char *buf, size_t cap` with no out_len (cfx_last_error_message:
                # the length comes from cfx_last_error_length)
                out.append(Group("buffer", ps[i:j], count=ps[j]))
                i = j + 1
            elif (
                j + 1 < len(ps)
                and ps[j].type == CType("size_t")
                and ps[j].name == "cap"
                and ps[j + 1].type == CType("size_t", 1)
                and ps[j + 1].name == "out_len"
            ):
                out.append(Group("buffer", ps[i:j], count=ps[j], out_len=ps[j + 1]))
                i = j + 2
            elif p.name.startswith("out_"):
                key = f"{function.name}.{p.name}"
                if key in header.out_arrays:
                    # an output array whose length another parameter gives
                    # (types.toml [out_arrays]); it has no cap of its own
                    cp = [q for q in ps if q.name == header.out_arrays[key]]
                    if not cp:
                        raise ValueError(f"types.toml: {function.name} has no parameter {header.out_arrays[key]}")
                    out.append(Group("out_array", [p], count=cp[0]))
                else:
                    out.append(Group("out", [p]))
                i += 1
            else:
                raise ValueError(f"{function.name}: buffer {p.name} is not followed by `size_t cap, size_t *out_len`")
        elif t.stars == 0:
            out.append(Group("scalar", [p]))
            i += 1
        else:
            raise ValueError(f"{function.name}: no convention reads the parameter {p.name} ({t.c()})")
    return out


if __name__ == "__main__":
    h = load()
    print(f"{len(h.functions)} functions, {len(h.enums)} enums, {len(h.handles)} handles, "
          f"{len(h.structs)} structs, {len(h.callbacks)} callbacks, constants {sorted(h.constants)}")
