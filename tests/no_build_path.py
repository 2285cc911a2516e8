"""Fails when an installed file names a build folder: the proof that an installed cfx (an R
package, a Python environment, a C prefix, an unpacked jar) holds no path of the machine that
built it. Every file is searched byte for byte, and R's serialised objects (`.rds`: gzip, bzip2
or xz, e.g. `help/paths.rds`, which records where the help pages were built) also after
uncompressing, since compression hides a path from grep.

    python3 tests/no_build_path.py FORBIDDEN_PATH DIR...

Prints each offending file (and what it names) on stderr; exit status 1 if there is one.
"""

import bz2
import gzip
import lzma
import os
import sys


def uncompressed(raw):
    for opener in (gzip.decompress, bz2.decompress, lzma.decompress):
        try:
            return opener(raw)
        except Exception:
            continue
    return raw


def offenders(forbidden, top):
    needle = os.fsencode(forbidden)
    for folder, _, files in os.walk(top):
        for name in files:
            path = os.path.join(folder, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            with open(path, "rb") as f:
                raw = f.read()
            if needle in raw:
                yield path
            elif name.endswith(".rds") and needle in uncompressed(raw):
                yield path + " (uncompressed)"


def main(argv):
    if len(argv) < 3 or not argv[1]:
        raise SystemExit(__doc__)
    found = [p for top in argv[2:] for p in offenders(argv[1], top)]
    for p in found:
        print(f"no_build_path: {p} names {argv[1]}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
