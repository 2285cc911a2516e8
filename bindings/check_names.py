#!/usr/bin/env python3
"""The four bindings name the diverse count and the noise variance as the C header does.

`include/cfx.h` is the reference: its parameter names (`sigma2`, the variance σ², never σ;
`n` of `cfx_config_builder_set_n_diverse`, a count that includes the optimum) are turned into
each language's casing (Java and C# camelCase, R and Python snake_case) and compared with the
parameter names of the binding's public declaration, read from its source. The doc comment of
each binding's diverse-count setting must say that the count includes the optimum.

Usage: python3 bindings/check_names.py [--self-test]
Exits non-zero naming every difference. --self-test first checks that a renamed parameter
and a doc that no longer mentions the optimum are caught (the check can fail).
"""

import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
HEADER = "include/cfx.h"
JAVA = "bindings/java/src/main/java/org/cfx/"
CSHARP = "bindings/csharp/src/"
R = "bindings/r/cfx/R/"
PYTHON = "bindings/python/src/cfx/"


def header_params(text, function):
    """The parameter names of a C function, without handles, lengths and out-pointers."""
    m = re.search(r"\b" + function + r"\(([^)]*)\)", text)
    if not m:
        raise SystemExit(f"check_names: {HEADER} declares no {function}")
    names = []
    for p in m.group(1).split(","):
        name = p.strip().split()[-1].lstrip("*")
        if "struct cfx_" in p or name.startswith("out_") or name.startswith("n_") and name != "n_diverse":
            continue
        names.append(name)
    return names


def camel(name):
    head, *rest = name.split("_")
    return head + "".join(w[:1].upper() + w[1:] for w in rest)


def top_level(sig):
    """The comma-separated parts of a parameter list, commas inside brackets kept."""
    parts, depth, cur = [], 0, ""
    for ch in sig:
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    return parts + [cur]


def params_c_like(sig):
    """`NoiseModel kind, int[] columns, double scale = 1` -> ['kind', 'columns', 'scale']."""
    out = []
    for p in top_level(sig):
        p = p.split("=")[0].strip()
        if p:
            out.append(p.split()[-1])
    return out


def params_script(sig):
    """`cls, schema, sigma2=0.01` / `schema, sigma2 = NULL` -> names, without self/cls."""
    out = []
    for p in top_level(sig):
        p = p.split("=")[0].strip()
        if p and p not in ("self", "cls"):
            out.append(p)
    return out


def declaration(text, pattern, where):
    m = re.search(pattern, text, re.S)
    if not m:
        return None, f"{where}: no declaration matching {pattern!r}"
    return m.group(1), None


# (concept, header function, the binding declarations: language, file, regex whose group 1 is
# the parameter list, how the header's names map, and whether order matters)
CHECKS = [
    ("noise variance σ² of isotropic Gaussian noise", "cfx_noise_gaussian_new", [
        ("java", JAVA + "Noise.java", r"public static Noise gaussian\(Schema schema, ([^)]*)\)", camel),
        ("csharp", CSHARP + "Robust.cs", r"public static Noise Gaussian\(Schema schema, ([^)]*)\)", camel),
        ("r", R + "robust.R", r"cfx_noise_gaussian <- function\(schema, ([^)]*)\)", None),
        ("python", PYTHON + "robust.py", r"def gaussian\(cls, schema, ([^)]*)\)", None),
    ]),
    ("per-column noise scales (variances σ_j² for a Gaussian)", "cfx_noise_new", [
        ("java", JAVA + "Noise.java", r"public static Noise onColumns\(([^)]*)\)", camel),
        ("csharp", CSHARP + "Robust.cs", r"public static Noise OnColumns\(([^)]*)\)", camel),
        ("r", R + "robust.R", r"cfx_noise <- function\((.*?)\) \{", "unordered"),
        ("python", PYTHON + "robust.py", r"def on_columns\(([^)]*)\)", None),
    ]),
    ("robust advice: variance σ² and invalidation target", "cfx_config_builder_set_robust_advice", [
        ("java", JAVA + "ConfigBuilder.java", r"public ConfigBuilder robustAdvice\(([^)]*)\)", camel),
        ("csharp", CSHARP + "Config.cs", r"public ConfigBuilder RobustAdvice\(([^)]*)\)", camel),
        ("r", R + "config.R", r"`robust_advice = c\(([^)]*)\)`", None),
        ("python", PYTHON + "config.py", r"``robust_advice=\(([^)]*)\)``", None),
    ]),
    ("diverse count (the optimum included)", "cfx_config_builder_set_n_diverse", [
        ("java", JAVA + "ConfigBuilder.java", r"public ConfigBuilder nDiverse\(([^)]*)\)", camel),
        ("csharp", CSHARP + "Config.cs", r"public ConfigBuilder NDiverse\(([^)]*)\)", camel),
        # R and Python take settings as named arguments: the name is the setting's own.
        ("r", R + "config.R", r"cfx_config <- function\([^)]*\b(n_diverse) = NULL", "setting"),
        ("python", PYTHON + "config.py", r'key == "(n_diverse)"', "setting"),
    ]),
]

# The doc comment just before each binding's diverse-count setting must say it counts the optimum.
OPTIMUM_DOCS = [
    ("java", JAVA + "ConfigBuilder.java", r"/\*\*((?:(?!\*/).)*)\*/\s*public ConfigBuilder nDiverse\("),
    ("csharp", CSHARP + "Config.cs", r"((?:\s*///[^\n]*\n)+)\s*public ConfigBuilder NDiverse\("),
    ("r", R + "config.R", r"((?:#'[^\n]*\n)+)cfx_config <- function"),
    ("python", PYTHON + "config.py", r'class Config\(Handle\):\s*"""(.*?)"""'),
    ("c", HEADER, r"/\*\*((?:(?!\*/).)*)\*/\s*cfx_status cfx_config_builder_set_n_diverse\("),
]


def run(read):
    """Every difference, as text; `read(path)` gives a file's text."""
    problems = []
    header = read(HEADER)
    for concept, function, bindings in CHECKS:
        want = header_params(header, function)
        for lang, path, pattern, mapping in bindings:
            sig, err = declaration(read(path), pattern, path)
            if err:
                problems.append(f"{concept}: {lang}: {err}")
                continue
            if mapping == "setting":
                names, expected = [sig], ["n_diverse"]
            else:
                names = params_c_like(sig) if lang in ("java", "csharp") else params_script(sig)
                expected = [mapping(w) for w in want] if callable(mapping) else list(want)
                if mapping == "unordered":
                    names, expected = sorted(names), sorted(expected)
            if names != expected:
                problems.append(f"{concept}: {lang} ({path}) names {names}, {HEADER} ({function}) means {expected}")
    for lang, path, pattern in OPTIMUM_DOCS:
        doc, err = declaration(read(path), pattern, path)
        if err:
            problems.append(f"diverse count doc: {lang}: {err}")
        elif "optimum" not in doc:
            problems.append(f"diverse count doc: {lang} ({path}) does not say that the count includes the optimum")
    return problems


def read_file(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


def self_test():
    """A renamed σ² parameter or diverse count and a doc without the optimum must each be
    reported (each planted difference replaces every occurrence in one file)."""
    def mutated(path, old, new):
        def read(p):
            text = read_file(p)
            if p == path:
                assert old in text, f"self-test: {old!r} not in {path}"
                text = text.replace(old, new)
            return text
        return read

    cases = [
        (CSHARP + "Robust.cs", "Gaussian(Schema schema, double sigma2)", "Gaussian(Schema schema, double sigma)"),
        (R + "robust.R", "function(schema, sigma2)", "function(schema, variance)"),
        (JAVA + "ConfigBuilder.java", "nDiverse(int n)", "nDiverse(int count)"),
        (JAVA + "ConfigBuilder.java", "optimum", "best"),
    ]
    for path, old, new in cases:
        if not run(mutated(path, old, new)):
            raise SystemExit(f"check_names self-test: {path} with {new!r} was not caught")
    print(f"check_names: self-test caught all {len(cases)} planted differences")


def main():
    if "--self-test" in sys.argv[1:]:
        self_test()
    problems = run(read_file)
    for p in problems:
        print("check_names: " + p, file=sys.stderr)
    if problems:
        sys.exit(1)
    print(f"check_names: the four bindings name the diverse count and the noise variance as {HEADER}")


if __name__ == "__main__":
    main()
