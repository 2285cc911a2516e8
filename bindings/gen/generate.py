#!/usr/bin/env python3
"""Regenerates every binding's mechanical layer from include/cfx.h (`make bindings`).

Each `emit_*.py` module beside this file owns the files of one language and
exposes `outputs(header) -> {path relative to the repository: text}`; this
driver runs them all over the one parsed header (`cfx_header.parse`) and writes
the files. `--check` writes nothing and exits 1 naming every committed file
that differs from what the generators write (the test `make test-bindings-gen`
runs it), so a header change that was not regenerated cannot land.
"""

import argparse
import glob
import importlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import cfx_header  # noqa: E402


def emitters():
    """The emitter modules, in a fixed order (file name)."""
    names = sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(HERE, "emit_*.py")))
    return [importlib.import_module(n) for n in names]


def all_outputs(header):
    out = {}
    for mod in emitters():
        for path, text in mod.outputs(header).items():
            if path in out:
                raise ValueError(f"{path} is written by two emitters")
            out[path] = text
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--check", action="store_true", help="compare instead of writing; exit 1 on any difference")
    p.add_argument("--header", default=cfx_header.HEADER)
    a = p.parse_args()
    header = cfx_header.load(a.header)
    outputs = all_outputs(header)
    stale = []
    for rel, text in sorted(outputs.items()):
        path = os.path.join(cfx_header.ROOT, rel)
        old = None
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                old = f.read()
        if old == text:
            continue
        if a.check:
            stale.append(rel)
        else:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            print(f"wrote {rel}")
    if a.check:
        if stale:
            print("generated binding files differ from include/cfx.h; run `make bindings` and commit:", file=sys.stderr)
            for rel in stale:
                print(f"  {rel}", file=sys.stderr)
            sys.exit(1)
        print(f"bindings: {len(outputs)} generated files match include/cfx.h ({len(header.functions)} functions)")


if __name__ == "__main__":
    main()
