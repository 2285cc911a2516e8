#!/usr/bin/env python3
"""Compiles and runs every code snippet of README.md and docs/guide/*.md (issue 26), so that
none can go stale. `make test-docs` runs it; `make test` runs it after the bindings' tests,
which build what the snippets need.

Each fenced block's tag says what happens to it:
  rust                    a doctest: `cargo test --release` runs it (src/lib.rs includes every
                          Markdown file under `#[cfg(doctest)]`; this script checks that it does)
  c                       compiled with -Wall -Wextra -Werror against include/ and
                          target/release/libcfx.so, then run
  java, csharp            compiled against the jar / Cfx.dll and run; a block without `main(` is
                          the body of a main method (with `import org.cfx.*;` / `using Cfx;`)
  r, python               run with Rscript (the package the R tests install into bindings/r/lib)
                          and with the Python tests' virtual environment (target/python-venv)
  sh                      run with bash -eu
  text, console           output, diagrams or sessions: never run
A comment in a snippet whose text ends with `…` (`// optimal (cost 2.906, …`) is the start of a
line the snippet must print. Every snippet runs in its own empty folder, with CFX_DATA_DIR set
to examples/data.

An HTML comment on the line before a block changes that:
  <!-- snippet: not run: REASON -->       a command the reader runs (make, cargo run, spark-submit)
  <!-- snippet: in tests/docs/harness/F --> a fragment: the line `/* SNIPPET */` (or `// SNIPPET`,
                                          `# SNIPPET`) of that harness is replaced by the block,
                                          and the whole is compiled and run
  <!-- snippet: with FILE ... -->          run with these files of examples/data in its folder
                                          (a book of applicants, as a reader has one); a name
                                          `shared/FILE` is copied from the shared data folder
                                          ($CFX_SHARED_DATA, else ../shared/data beside the tree),
                                          and the word `peers/trees` puts the tree peers' Python
                                          (benches/peers/.venv-trees: xgboost, lightgbm, pandas;
                                          `make peers-trees`) first on the PATH as python3. When
                                          either is missing the block is skipped with a notice,
                                          except under CI (CI set, not 0/false), where it fails.
`sh` blocks find the built `cfx` command line (target/release/cfx) first on the PATH.
Any other tag, or none, fails: nobody can add a snippet that is not run or marked.

Usage: run_snippets.py [--only LANG[,LANG]] [--list]. Last line: "docs: N snippets ran, M not
run (marked), K doctests (cargo test)"; exit status non-zero on any failure.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUNNABLE = {"c", "java", "csharp", "r", "python", "sh"}
NOT_CODE = {"text", "console"}
MARKER = re.compile(r"^<!-- snippet: (.*?) -->$")
FENCE = re.compile(r"^(```+)(.*)$")


class Block:
    def __init__(self, path, line, tag, body, marker):
        self.path, self.line, self.tag, self.body, self.marker = path, line, tag, body, marker

    def where(self):
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def documents():
    return [ROOT / "README.md"] + sorted((ROOT / "docs" / "guide").glob("*.md"))


def blocks(path):
    """The fenced blocks of a Markdown file, each with the snippet marker right before it."""
    lines = path.read_text(encoding="utf-8").split("\n")
    out, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            if lines[i].lstrip().startswith("```"):
                sys.exit(f"docs: {path.relative_to(ROOT)}:{i + 1}: an indented fence; "
                         "fences start at the line's beginning here")
            i += 1
            continue
        fence, tag = m.group(1), m.group(2).strip()
        marker = MARKER.match(lines[i - 1]) if i > 0 else None
        start, i = i, i + 1
        while i < len(lines) and lines[i] != fence:
            i += 1
        if i == len(lines):
            sys.exit(f"docs: {path.relative_to(ROOT)}:{start + 1}: a fence that is never closed")
        out.append(Block(path, start + 1, tag, "\n".join(lines[start + 1:i]) + "\n",
                         marker.group(1) if marker else None))
        i += 1
    return out


def expectations(block):
    """The lines the snippet must print: comments whose text ends with '…'."""
    if block.tag in ("python", "r", "sh"):
        pattern = r"#\s*(.*?)\s*…"
    else:
        pattern = r"(?://|/\*)\s*(.*?)\s*…"
    found = []
    for line in block.body.split("\n"):
        m = re.search(pattern + r"\"?\s*(?:\*/)?\s*$", line)
        if m and m.group(1):
            found.append(m.group(1).strip('"'))
    return found


def version():
    m = re.search(r'^version = "(.*)"', (ROOT / "Cargo.toml").read_text(), re.M)
    return m.group(1)


def need(path, how):
    if not path.exists():
        raise Failure(f"{path.relative_to(ROOT)} is missing: {how}")
    return path


class Failure(Exception):
    pass


class Skipped(Exception):
    pass


def in_ci():
    v = os.environ.get("CI", "")
    return v not in ("", "0") and v.lower() != "false"


def shared_dir():
    v = os.environ.get("CFX_SHARED_DATA")
    return Path(v) if v else ROOT.parent / "shared" / "data"


def optional(path, how):
    """A file only some machines have: skipped when absent, except under CI."""
    if path.exists():
        return path
    if in_ci():
        raise Failure(f"{path} is missing under CI: {how}")
    raise Skipped(f"{path} not found ({how})")


def run(cmd, cwd, env, what):
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=600)
    if p.returncode != 0:
        raise Failure(f"{what} failed ({' '.join(map(str, cmd[:2]))} …, exit {p.returncode}):\n{p.stdout}")
    return p.stdout


def source(block):
    """The program to compile or run: the block, or the block inside its harness."""
    body = block.body
    m = re.match(r"in (\S+)$", block.marker or "")
    if m:
        harness = need(ROOT / m.group(1), "the harness named by the snippet marker")
        text = harness.read_text(encoding="utf-8")
        lines = text.split("\n")
        slot = [k for k, l in enumerate(lines) if l.strip() in ("/* SNIPPET */", "// SNIPPET", "# SNIPPET")]
        if len(slot) != 1:
            raise Failure(f"{m.group(1)} must hold exactly one SNIPPET line")
        indent = lines[slot[0]][: len(lines[slot[0]]) - len(lines[slot[0]].lstrip())]
        lines[slot[0]:slot[0] + 1] = [indent + l if l else l for l in body.rstrip("\n").split("\n")]
        body = "\n".join(lines)
    return body


def run_block(block, n, work, base_env):
    d = work / f"snippet{n}"
    d.mkdir()
    env = dict(base_env)
    code = source(block)
    m = re.match(r"with (.+)$", block.marker or "")
    for name in m.group(1).split() if m else []:
        if name == "peers/trees":
            venv = optional(ROOT / "benches" / "peers" / ".venv-trees" / "bin", "run `make peers-trees`")
            env["PATH"] = f"{venv}:{env.get('PATH', '')}"
        elif name.startswith("shared/"):
            src = optional(shared_dir() / name[len("shared/"):], "set CFX_SHARED_DATA")
            shutil.copy(src, d / src.name)
        else:
            shutil.copy(need(ROOT / "examples" / "data" / name, "a file the snippet marker names"),
                        d / name)
    lib = ROOT / "target" / "release"
    if block.tag == "c":
        need(lib / "libcfx.so", "run `cargo build --release`")
        (d / "snippet.c").write_text(code)
        run(["cc", "-std=c99", "-Wall", "-Wextra", "-Werror", f"-I{ROOT / 'include'}",
             f"-I{ROOT / 'examples' / 'c'}", "snippet.c",
             f"-L{lib}", "-lcfx", f"-Wl,-rpath,{lib}", "-o", "snippet"], d, env, "compiling")
        out = run(["./snippet"], d, env, "running")
    elif block.tag == "java":
        jar = need(ROOT / "bindings" / "java" / "build" / f"cfx-{version()}.jar",
                   "run `bash bindings/java/run-tests.sh` (or `make java`)")
        m = re.search(r"^public class (\w+)", code, re.M)
        if "public static void main(" in code and m:
            cls = m.group(1)
        else:
            cls = f"Snippet{n}"
            code = ("import org.cfx.*;\npublic class " + cls +
                    " { public static void main(String[] args) throws Exception {\n" + code + "} }\n")
        (d / f"{cls}.java").write_text(code)
        run(["javac", "-Xlint:all", "-Werror", "-d", ".", "-cp", str(jar), f"{cls}.java"], d, env, "compiling")
        env.pop("LD_LIBRARY_PATH", None)
        env.pop("CFX_DATA_DIR", None)   # the jar carries libcfx and the data
        out = run(["java", "-cp", f"{jar}:.", cls], d, env, "running")
    elif block.tag == "csharp":
        dll = need(ROOT / "bindings" / "csharp" / "build" / "Cfx.dll",
                   "run `bash bindings/csharp/run-tests.sh` (or `make csharp`)")
        need(lib / "libcfx.so", "run `cargo build --release`")
        shutil.copy(dll, d / "Cfx.dll")
        if "static void Main(" not in code:
            kept = "\n".join(l for l in code.split("\n") if not re.match(r"^using [A-Za-z.]*;$", l))
            code = ("using System; using System.IO; using Cfx;\npublic static class Snippet" + str(n) +
                    " { public static void Main() {\n" + kept + "\n} }\n")
        (d / "Snippet.cs").write_text(code)
        run(["mcs", "-nologo", "-langversion:7", "-warnaserror", "-r:Cfx.dll", "-out:Snippet.exe",
             "Snippet.cs"], d, env, "compiling")
        env["LD_LIBRARY_PATH"] = str(lib)
        out = run(["mono", "Snippet.exe"], d, env, "running")
    elif block.tag == "r":
        rlib = need(ROOT / "bindings" / "r" / "lib" / "cfx", "run `bash bindings/r/run-tests.sh`").parent
        (d / "snippet.R").write_text(code)
        env["R_LIBS"] = str(rlib)
        out = run(["Rscript", "--vanilla", "snippet.R"], d, env, "running")
    elif block.tag == "python":
        venv = ROOT / "target" / "python-venv" / "bin" / "python"
        need(venv, "run `bash bindings/python/run-tests.sh`")
        need(lib / "libcfx.so", "run `cargo build --release`")
        (d / "snippet.py").write_text(code)
        env["CFX_LIB"] = str(lib / "libcfx.so")
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        out = run([str(venv), "snippet.py"], d, env, "running")
    elif block.tag == "sh":
        need(lib / "cfx", "run `cargo build --release`")
        env["PATH"] = f"{lib}:{env.get('PATH', '')}"
        (d / "snippet.sh").write_text(code)
        out = run(["bash", "-eu", "snippet.sh"], d, env, "running")
    else:
        raise AssertionError(block.tag)
    for want in expectations(block):
        if want not in out:
            raise Failure(f"printed no line containing '{want}':\n{out}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", help="comma-separated languages to run (the rest is only checked)")
    ap.add_argument("--list", action="store_true", help="list the blocks and what happens to each")
    args = ap.parse_args()
    only = set(args.only.split(",")) if args.only else None

    lib_rs = (ROOT / "src" / "lib.rs").read_text()
    errors, todo, marked, doctests = [], [], 0, 0
    for doc in documents():
        rel = doc.relative_to(ROOT).as_posix()
        if f'include_str!("../{rel}")' not in lib_rs:
            errors.append(f"{rel} is not included as a doctest in src/lib.rs (module `guide`)")
        for b in blocks(doc):
            tag = b.tag.split(",")[0].strip()
            if b.marker is not None and not re.match(r"(not run: .+|in \S+|with .+)$", b.marker):
                errors.append(f"{b.where()}: unknown snippet marker '{b.marker}'")
            elif tag in NOT_CODE:
                if b.marker:
                    errors.append(f"{b.where()}: a {tag} block is never run; drop its marker")
            elif tag == "rust":
                doctests += 1
                if b.marker:
                    errors.append(f"{b.where()}: Rust blocks are doctests; use hidden `# ` lines, not a marker")
            elif tag in RUNNABLE:
                if b.marker and b.marker.startswith("not run: "):
                    marked += 1
                else:
                    todo.append(b)
            else:
                errors.append(f"{b.where()}: a block tagged '{b.tag}': tag it with its language "
                              f"({', '.join(sorted(RUNNABLE | {'rust'}))}) or as text/console")
            if args.list:
                print(f"{b.where()}\t{b.tag}\t{b.marker or ''}")
    if errors:
        for e in errors:
            print(f"docs: {e}", file=sys.stderr)
        print(f"docs: {len(errors)} problems", file=sys.stderr)
        return 1
    if args.list:
        return 0

    env = {k: v for k, v in os.environ.items() if not k.startswith("CFX_")}
    env["CFX_DATA_DIR"] = str(ROOT / "examples" / "data")
    env["RUST_BACKTRACE"] = "0"
    failed, ran, skipped = 0, 0, 0
    with tempfile.TemporaryDirectory(prefix="cfx-docs-") as tmp:
        for n, b in enumerate(todo, 1):
            if only and b.tag not in only:
                continue
            try:
                run_block(b, n, Path(tmp), env)
                ran += 1
                print(f"docs: ok: {b.where()} ({b.tag})")
            except Skipped as e:
                skipped += 1
                print(f"docs: notice: {b.where()} ({b.tag}) skipped: {e}")
            except (Failure, subprocess.TimeoutExpired) as e:
                failed += 1
                print(f"docs: FAILED: {b.where()} ({b.tag}): {e}", file=sys.stderr)
    print(f"docs: {ran} snippets ran, {failed} failed, {skipped} skipped, {marked} not run (marked), "
          f"{doctests} doctests (cargo test)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
