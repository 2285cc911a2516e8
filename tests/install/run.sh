#!/usr/bin/env bash
# Proof that `make install` gives a usable system library: installs cfx into a temporary prefix,
# builds examples/c/german.c against it the way an application would (`pkg-config --cflags --libs
# cfx`, shared; `pkg-config --static`, static) in a folder outside the source tree, runs it with
# LD_LIBRARY_PATH pointing only at the prefix and compares its output with examples/c/german.expected.
# Also: the soname, the layout of a DESTDIR staged install, no path of the source tree in the
# installed libraries, the bundled data found beside the library after the prefix is moved, and
# CFX_DATA_DIR (honoured, and a clear error when it holds no data), and the shipped German
# scorecard table loaded from the prefix by examples/c/scorecard.c.
# Last line: "install: N checks passed" (exit status non-zero on the first failure).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
passed=0
ok() { passed=$((passed + 1)); echo "install: ok: $*"; }
fail() { echo "install: FAILED: $*" >&2; exit 1; }

MAKE="make --no-print-directory -C $ROOT"
PREFIX="$TMP/prefix"
$MAKE install PREFIX="$PREFIX" >"$TMP/install.log" 2>&1 || { cat "$TMP/install.log" >&2; fail "make install"; }

# 1. Layout and soname.
abi=$(sed -n 's/^pub const ABI_VERSION: u32 = \([0-9]*\);/\1/p' "$ROOT/src/ffi/version.rs")
for f in "lib/libcfx.so.$abi" lib/libcfx.a include/cfx.h lib/pkgconfig/cfx.pc bin/cfx share/cfx/german_credit.csv \
         share/cfx/german_scorecard_table.csv share/cfx/german_scorecard.md; do
  [ -f "$PREFIX/$f" ] || fail "$f not installed"
done
for t in german_reasons.csv heloc_reasons.csv; do
  cmp -s "$ROOT/examples/data/reasons/$t" "$PREFIX/share/cfx/reasons/$t" || fail "share/cfx/reasons/$t not installed as shipped"
done
[ "$(readlink "$PREFIX/lib/libcfx.so")" = "libcfx.so.$abi" ] || fail "lib/libcfx.so is not a link to libcfx.so.$abi"
soname=$(readelf -d "$PREFIX/lib/libcfx.so.$abi" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = "libcfx.so.$abi" ] || fail "soname is '$soname', expected libcfx.so.$abi"
ok "layout; soname $soname"

# 2. No path of the source tree (or its target folder) in the installed libraries or elsewhere in the prefix.
for f in "lib/libcfx.so.$abi" lib/libcfx.a bin/cfx; do
  if strings -a "$PREFIX/$f" | grep -F -q "$ROOT"; then
    strings -a "$PREFIX/$f" | grep -F "$ROOT" | head -5 >&2
    fail "$f contains the source tree's path $ROOT"
  fi
done
python3 "$ROOT/tests/no_build_path.py" "$ROOT" "$PREFIX" || fail "the prefix names the source tree $ROOT"
ok "no '$ROOT' in the installed files"

# 3. An application outside the source tree, built with pkg-config, run against the prefix only.
APP="$TMP/app"
mkdir -p "$APP"
cp "$ROOT/examples/c/german.c" "$ROOT/examples/c/common.h" "$APP/"
# Only pkg-config and R see PKG_CONFIG_PATH: cargo's build scripts rerun when it changes.
pc() { PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig" pkg-config "$@"; }
unset CFX_DATA_DIR CFX_SHARED_DATA
cd "$APP"
# shellcheck disable=SC2046
cc -std=c99 -Wall -Wextra -Werror german.c $(pc --cflags --libs cfx) -o german_shared
[ "$(pc --variable=datadir cfx)" = "$PREFIX/share/cfx" ] || fail "cfx.pc datadir"
resolved=$(env LD_LIBRARY_PATH="$PREFIX/lib" ldd ./german_shared | sed -n 's/.*libcfx\.so[^ ]* => \([^ ]*\).*/\1/p')
[ "$resolved" = "$PREFIX/lib/libcfx.so.$abi" ] || fail "german_shared loads libcfx from '$resolved'"
env LD_LIBRARY_PATH="$PREFIX/lib" ./german_shared >out.txt || fail "german_shared exited with $?"
diff -u "$ROOT/examples/c/german.expected" out.txt || fail "german_shared output"
ok "shared: built with pkg-config, bundled data found in the prefix, output as expected"

# 3b. The shipped German scorecard, imported from the prefix's copy and found again by
#     cfx_scorecard_load_german (NULL path: beside the installed library), from outside the tree.
cp "$ROOT/examples/c/scorecard.c" "$APP/"
# shellcheck disable=SC2046
cc -std=c99 -Wall -Wextra -Werror scorecard.c $(pc --cflags --libs cfx) -lm -o scorecard_shared
cmp -s "$ROOT/examples/data/german_scorecard_table.csv" "$PREFIX/share/cfx/german_scorecard_table.csv" \
  || fail "the installed german_scorecard_table.csv differs from examples/data"
env LD_LIBRARY_PATH="$PREFIX/lib" ./scorecard_shared "$PREFIX/share/cfx/german_scorecard_table.csv" >sc.txt \
  || fail "scorecard_shared exited with $?"
diff -u "$ROOT/examples/c/scorecard.expected" sc.txt || fail "scorecard_shared output"
ok "shipped scorecard: the German table in \$(DATADIR), loaded from the prefix, output as expected"

# 4. The static library with `pkg-config --static` (Libs.private), no libcfx at run time.
static_libs=$(pc --static --libs cfx | sed 's/\(^\| \)-lcfx\( \|$\)/ /')
# shellcheck disable=SC2086
cc -std=c99 -Wall -Wextra -Werror german.c $(pc --cflags cfx) "$PREFIX/lib/libcfx.a" $static_libs -o german_static
if ldd ./german_static | grep -q libcfx; then fail "german_static still needs libcfx.so"; fi
env CFX_DATA_DIR="$PREFIX/share/cfx" ./german_static >out_static.txt || fail "german_static exited with $?"
diff -u "$ROOT/examples/c/german.expected" out_static.txt || fail "german_static output"
ok "static: linked with pkg-config --static, data through CFX_DATA_DIR, output as expected"

# 5. A moved prefix still finds its data (looked up beside the loaded library, not a baked path).
mv "$PREFIX" "$TMP/moved"
env LD_LIBRARY_PATH="$TMP/moved/lib" ./german_shared >out_moved.txt || fail "german_shared in a moved prefix exited with $?"
diff -u "$ROOT/examples/c/german.expected" out_moved.txt || fail "output in a moved prefix"
ok "moved prefix: data found beside the library"

# 5b. The `cfx` command line of the moved prefix, run from outside the tree with no variable:
#     its bundled data found beside the binary (<prefix>/bin/../share/cfx), its man page and
#     bash completion installed.
[ -f "$TMP/moved/share/man/man1/cfx.1" ] && grep -q '^\.TH cfx' "$TMP/moved/share/man/man1/cfx.1" \
  || fail "man page share/man/man1/cfx.1"
for sub in explain book revalidate import-check schema-infer demo; do
  grep -q '^\.TH ' "$TMP/moved/share/man/man1/cfx-$sub.1" 2>/dev/null \
    || fail "man page share/man/man1/cfx-$sub.1"
done
grep -q 'import-check' "$TMP/moved/share/bash-completion/completions/cfx" || fail "bash completion"
env -u CFX_DATA_DIR -u CFX_SHARED_DATA "$TMP/moved/bin/cfx" demo german --no-sequential >cli_demo.txt \
  || fail "cfx demo from the moved prefix exited with $?"
grep -q '^== cfx demo on german credit data ==' cli_demo.txt && grep -q 'the bundled German points scorecard' cli_demo.txt \
  || { cat cli_demo.txt >&2; fail "cfx demo output"; }
ok "cfx command line: man page, completion, demo with the data beside the binary"

# 6. CFX_DATA_DIR without the data: the library says what is wrong and the program stops cleanly.
set +e
env LD_LIBRARY_PATH="$TMP/moved/lib" CFX_DATA_DIR="$TMP/nowhere" ./german_shared >/dev/null 2>err.txt
status=$?
set -e
[ "$status" != 0 ] || fail "a CFX_DATA_DIR without data was accepted"
grep -q "CFX_STATUS_IO_ERROR.*CFX_DATA_DIR is '$TMP/nowhere', but it holds no german_credit.csv" err.txt \
  || { cat err.txt >&2; fail "error message for a CFX_DATA_DIR without data"; }
ok "CFX_DATA_DIR without data: IO_ERROR naming the variable"
mv "$TMP/moved" "$PREFIX"

# 7. The R package against the installed cfx, found through pkg-config (PKG_CONFIG_PATH),
#    installed as `make r` does (bindings/r/install.sh: R CMD build, then R CMD INSTALL of the
#    tarball): it carries its own libcfx and data, names no path of the source tree or the prefix
#    (R's .rds files uncompressed too), and works with the prefix gone.
if command -v R >/dev/null 2>&1; then
  mkdir -p "$TMP/rlib"
  if ! env -u CFX_LIB_DIR -u CFX_INCLUDE_DIR PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig" sh "$ROOT/bindings/r/install.sh" \
        --no-multiarch --library="$TMP/rlib" >"$TMP/r.log" 2>&1; then
    cat "$TMP/r.log" >&2; fail "bindings/r/install.sh against the installed cfx"
  fi
  grep -q "through pkg-config" "$TMP/r.log" || { cat "$TMP/r.log" >&2; fail "R's configure did not use pkg-config"; }
  python3 "$ROOT/tests/no_build_path.py" "$ROOT" "$TMP/rlib/cfx" && python3 "$ROOT/tests/no_build_path.py" "$PREFIX" "$TMP/rlib/cfx" \
    || fail "the installed R package names a build path"
  mv "$PREFIX" "$TMP/gone"
  rows=$(cd "$TMP" && env -u CFX_ROOT -u LD_LIBRARY_PATH R_LIBS="$TMP/rlib" Rscript --vanilla \
         -e 'cat(cfx::cfx_n_rows(cfx::cfx_load_german()))')
  mv "$TMP/gone" "$PREFIX"
  [ "$rows" = 1000 ] || fail "cfx_load_german() in the installed R package gave '$rows' rows"
  ok "R package built against the installed cfx through pkg-config; self-contained"
else
  echo "install: R not found, R package check skipped (make test installs R)"
fi

# 8. A staged install (DESTDIR) for packagers: files under DESTDIR, paths in cfx.pc without it.
cd "$TMP"
$MAKE install DESTDIR="$TMP/stage" PREFIX=/opt/cfx >"$TMP/stage.log" 2>&1 || { cat "$TMP/stage.log" >&2; fail "make install DESTDIR"; }
[ -f "$TMP/stage/opt/cfx/lib/libcfx.so.$abi" ] && [ -f "$TMP/stage/opt/cfx/share/cfx/german_credit.csv" ] \
  && [ -f "$TMP/stage/opt/cfx/share/cfx/german_scorecard_table.csv" ] \
  || fail "DESTDIR layout"
grep -qx 'prefix=/opt/cfx' "$TMP/stage/opt/cfx/lib/pkgconfig/cfx.pc" || fail "cfx.pc prefix under DESTDIR"
if grep -q "$TMP" "$TMP/stage/opt/cfx/lib/pkgconfig/cfx.pc"; then fail "cfx.pc names the DESTDIR"; fi
$MAKE uninstall DESTDIR="$TMP/stage" PREFIX=/opt/cfx >/dev/null
[ -z "$(find "$TMP/stage" -type f -o -type l)" ] || fail "make uninstall left files: $(find "$TMP/stage" -type f -o -type l)"
ok "DESTDIR staged install and uninstall"

echo "install: $passed checks passed"
