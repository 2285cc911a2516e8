#!/usr/bin/env bash
# Clean-room install test of the artefacts `make dist` writes (packaging/dist.sh): each one is
# copied into an empty temporary folder outside the source tree and installed the way its
# ecosystem does (pip into a fresh virtual environment, `javac -cp`, `mcs -r:`, `R CMD INSTALL -l`,
# `cc … $(pkg-config …)`), with no CFX_* variable (nor LD_LIBRARY_PATH, PKG_CONFIG_PATH,
# CLASSPATH, MONO_PATH, PYTHONPATH) set, and the README's quick start of the language — the
# fenced block after the line `<!-- quickstart:<language> -->` in README.md, taken as it is — is
# compiled and run from yet another empty folder. Its output must hold the German credit
# scenario's numbers of bindings/scenario_expected.txt: "<n_rows> applicants" and
# "optimal (cost <coherent_cost>, probability <coherent_probability>)" (3 decimals, as
# describe() prints them). No installed file may contain the source tree's path (R's .rds files
# are uncompressed before the search).
# Last line: "dist: N checks passed" (exit status non-zero on the first failure).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DIST="${DIST:-$ROOT/dist}"
README="$ROOT/README.md"
EXPECTED="$ROOT/bindings/scenario_expected.txt"
VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' "$ROOT/Cargo.toml" | head -n 1)
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
case "$TMP/" in "$ROOT"/*) echo "dist: the temporary folder $TMP is inside the source tree" >&2; exit 1 ;; esac
passed=0
ok() { passed=$((passed + 1)); echo "dist: ok: $*"; }
fail() { echo "dist: FAILED: $*" >&2; exit 1; }

# A user's shell: none of cfx's variables, no search paths pointing into this tree.
for v in $(env | sed -n 's/^\(CFX_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
unset LD_LIBRARY_PATH PKG_CONFIG_PATH CLASSPATH MONO_PATH PYTHONPATH VIRTUAL_ENV R_LIBS R_LIBS_USER

ART="$TMP/artefacts"   # the downloaded files
APP="$TMP/app"         # the user's project
RUN="$TMP/elsewhere"   # the folder programs are started from
mkdir -p "$ART" "$APP" "$RUN"
cp "$DIST/cfx-$VERSION"-py3-none-*.whl "$DIST/cfx-$VERSION.jar" "$DIST/cfx-csharp-$VERSION.tar.gz" \
  "$DIST/cfx_$VERSION.tar.gz" "$DIST/cfx-$VERSION"-linux-*.tar.gz "$ART/" \
  || fail "dist/ lacks an artefact (run \`make dist\`)"

expected() { sed -n "s/^$1 = //p" "$EXPECTED"; }
N_ROWS=$(expected n_rows)
COST=$(printf '%.3f' "$(expected coherent_cost)")
PROB=$(printf '%.3f' "$(expected coherent_probability)")
[ -n "$N_ROWS" ] && [ "$COST" != 0.000 ] || fail "cannot read $EXPECTED"

# The quick start of language $1 from README.md into file $2.
snippet() {
  awk -v m="<!-- quickstart:$1 -->" '$0 == m {f = 1; next} f == 1 && /^```/ {f = 2; next}
    f == 2 && /^```$/ {exit} f == 2 {print}' "$README" >"$2"
  [ -s "$2" ] || fail "README.md has no quick start marked <!-- quickstart:$1 -->"
}
# The output file $2 of language $1 holds the scenario's numbers.
check_output() {
  grep -qx "$N_ROWS applicants" "$2" && grep -qF "optimal (cost $COST, probability $PROB): " "$2" \
    || { cat "$2" >&2; fail "$1 quick start: expected '$N_ROWS applicants' and 'optimal (cost $COST, probability $PROB): …'"; }
}
# No file under $2 (installed by $1) names the source tree; .rds files uncompressed too.
check_no_root() {
  python3 "$ROOT/tests/no_build_path.py" "$ROOT" "$2" || fail "$1: installed files name the source tree $ROOT"
}

# 1. C: the tarball unpacked into a prefix, the program built with pkg-config, shared (rpath to
#    the prefix, as the README says for a non-system prefix) and static (data folder from
#    pkg-config compiled in), both run from elsewhere with no variable.
mkdir -p "$TMP/opt"
tar -xzf "$ART"/cfx-"$VERSION"-linux-*.tar.gz -C "$TMP/opt"
PREFIX="$TMP/opt/cfx-$VERSION"
pc() { PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig" pkg-config "$@"; }
mkdir -p "$APP/c"
snippet c "$APP/c/app.c"
(cd "$APP/c" &&
  # shellcheck disable=SC2046
  cc -std=c99 -Wall -Wextra -Werror app.c $(pc --cflags --libs cfx) -Wl,-rpath,"$(pc --variable=libdir cfx)" -o app_shared &&
  static_libs=$(pc --static --libs cfx | sed 's/\(^\| \)-lcfx\( \|$\)/ /') &&
  # shellcheck disable=SC2046,SC2086
  cc -std=c99 -Wall -Wextra -Werror -DCFX_DATADIR="\"$(pc --variable=datadir cfx)\"" app.c $(pc --cflags cfx) \
    "$(pc --variable=libdir cfx)/libcfx.a" $static_libs -o app_static) || fail "C quick start does not build"
(cd "$RUN" && "$APP/c/app_shared" >"$TMP/c_shared.txt" 2>&1) || { cat "$TMP/c_shared.txt" >&2; fail "C (shared) quick start"; }
check_output "C (shared)" "$TMP/c_shared.txt"
static_deps=$(ldd "$APP/c/app_static")
if grep -q libcfx <<<"$static_deps"; then fail "the static C program needs libcfx.so"; fi
(cd "$RUN" && "$APP/c/app_static" >"$TMP/c_static.txt" 2>&1) || { cat "$TMP/c_static.txt" >&2; fail "C (static) quick start"; }
check_output "C (static)" "$TMP/c_static.txt"
check_no_root C "$PREFIX"
ok "C: tarball, pkg-config, shared (rpath) and static programs print the scenario's numbers"

# 1b. The `cfx` command line of the same tarball, run from elsewhere with no variable: the demo
#     finds the bundled data beside the binary (bin/../share/cfx), and a draft schema is inferred
#     from the shipped German file.
(cd "$RUN" && "$PREFIX/bin/cfx" demo german --no-sequential >"$TMP/cli_demo.txt" 2>&1) \
  || { cat "$TMP/cli_demo.txt" >&2; fail "cfx demo from the C tarball"; }
grep -q '^== cfx demo on german credit data ==' "$TMP/cli_demo.txt" || fail "cfx demo output"
(cd "$RUN" && "$PREFIX/bin/cfx" schema infer "$PREFIX/share/cfx/german_credit.csv" --target creditability \
   --favourable good --immutable personal_status_and_sex,foreign_worker -o schema.json >/dev/null) \
  || fail "cfx schema infer from the C tarball"
grep -q '"mutable": false' "$RUN/schema.json" || fail "cfx schema infer wrote no immutable feature"
ok "cfx command line from the C tarball: demo and schema inference with no variable set"

# The reviewed reason tables for adverse-action notices travel with the data (share/cfx/reasons).
reason_tables() {
  for t in german_reasons.csv heloc_reasons.csv; do
    cmp -s "$ROOT/examples/data/reasons/$t" "$2/reasons/$t" || fail "$1: share/cfx/reasons/$t missing or not as shipped"
  done
}
reason_tables C "$PREFIX/share/cfx"

# 2. Python: the wheel into a fresh virtual environment (numpy and pandas from PyPI).
python3 -m venv "$TMP/venv"
"$TMP/venv/bin/python" -m pip install -q --disable-pip-version-check "$ART"/cfx-"$VERSION"-py3-none-*.whl >"$TMP/pip.log" 2>&1 \
  || { cat "$TMP/pip.log" >&2; fail "pip install of the wheel"; }
mkdir -p "$APP/python"
snippet python "$APP/python/quickstart.py"
(cd "$RUN" && "$TMP/venv/bin/python" "$APP/python/quickstart.py" >"$TMP/python.txt" 2>&1) \
  || { cat "$TMP/python.txt" >&2; fail "Python quick start"; }
check_output Python "$TMP/python.txt"
rows=$(cd "$RUN" && "$TMP/venv/bin/python" -c "import cfx; print(len(cfx.load_german()))")
[ "$rows" = "$N_ROWS" ] || fail "python -c 'import cfx; print(len(cfx.load_german()))' printed '$rows'"
check_no_root Python "$TMP/venv/lib"
reason_tables Python "$(echo "$TMP"/venv/lib/python3*/site-packages/cfx/share/cfx)"
# The manylinux wheel brings OpenBLAS and gfortran along (auditwheel): libcfx loads them from
# the installed cfx.libs/, not from the system.
deps=$(ldd "$TMP"/venv/lib/python3*/site-packages/cfx/lib/libcfx.so)
for dep in libopenblas libgfortran; do
  grep -q "$dep.* => .*/site-packages/.*cfx.libs/" <<<"$deps" \
    || { printf '%s\n' "$deps" >&2; fail "the wheel's libcfx does not load $dep from cfx.libs"; }
done
ok "Python: pip install of the wheel, quick start prints the scenario's numbers; OpenBLAS and gfortran vendored"

# 3. Java: the jar on the class path.
JAR="$ART/cfx-$VERSION.jar"
mkdir -p "$APP/java/classes"
snippet java "$TMP/QuickStart.java"
class=$(sed -n 's/^public class \([A-Za-z0-9_]*\).*/\1/p' "$TMP/QuickStart.java" | head -n 1)
[ -n "$class" ] || fail "the Java quick start declares no public class"
mv "$TMP/QuickStart.java" "$APP/java/$class.java"
javac -Xlint:all -Werror -cp "$JAR" -d "$APP/java/classes" "$APP/java/$class.java" || fail "Java quick start does not compile"
(cd "$RUN" && java -cp "$JAR:$APP/java/classes" "$class" >"$TMP/java.txt" 2>&1) || { cat "$TMP/java.txt" >&2; fail "Java quick start"; }
check_output Java "$TMP/java.txt"
mkdir -p "$TMP/jar" && (cd "$TMP/jar" && unzip -q "$JAR")
check_no_root Java "$TMP/jar"
ok "Java: javac/java -cp the jar, quick start prints the scenario's numbers"

# 4. C#: the archive's files copied into the application's folder, compiled with mcs -r:.
tar -xzf "$ART/cfx-csharp-$VERSION.tar.gz" -C "$ART"
BIN="$APP/csharp/bin"
mkdir -p "$BIN"
cp -r "$ART/cfx-csharp-$VERSION/." "$BIN/"
snippet csharp "$APP/csharp/QuickStart.cs"
mcs -nologo -r:"$BIN/Cfx.dll" -out:"$BIN/QuickStart.exe" "$APP/csharp/QuickStart.cs" || fail "C# quick start does not compile"
(cd "$RUN" && mono "$BIN/QuickStart.exe" >"$TMP/csharp.txt" 2>&1) || { cat "$TMP/csharp.txt" >&2; fail "C# quick start"; }
check_output "C#" "$TMP/csharp.txt"
check_no_root "C#" "$BIN"
reason_tables "C#" "$BIN/share/cfx"
ok "C#: mcs -r:Cfx.dll, libcfx.so and share/cfx beside it, quick start prints the scenario's numbers"

# 5. R: the source package installed with R CMD INSTALL -l, first with the library it bundles,
#    then against the C tarball's cfx found through pkg-config.
mkdir -p "$TMP/rlib" "$APP/r"
# (pkg-config sees no .pc file here, so the bundled library is used even where cfx is installed)
mkdir -p "$TMP/no-pc"
(cd "$RUN" && PKG_CONFIG_LIBDIR="$TMP/no-pc" R CMD INSTALL --no-multiarch -l "$TMP/rlib" "$ART/cfx_$VERSION.tar.gz" >"$TMP/r.log" 2>&1) \
  || { cat "$TMP/r.log" >&2; fail "R CMD INSTALL of the source package"; }
grep -q "the library bundled in this package" "$TMP/r.log" || { cat "$TMP/r.log" >&2; fail "R's configure did not use the bundled library"; }
snippet r "$APP/r/quickstart.R"
(cd "$RUN" && R_LIBS="$TMP/rlib" Rscript --vanilla "$APP/r/quickstart.R" >"$TMP/r.txt" 2>&1) || { cat "$TMP/r.txt" >&2; fail "R quick start"; }
check_output R "$TMP/r.txt"
check_no_root R "$TMP/rlib"
ok "R: R CMD INSTALL of the source package (bundled library), quick start prints the scenario's numbers"

mkdir -p "$TMP/rlib-pc"
(cd "$RUN" && PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig" R CMD INSTALL --no-multiarch -l "$TMP/rlib-pc" "$ART/cfx_$VERSION.tar.gz" \
  >"$TMP/r-pc.log" 2>&1) || { cat "$TMP/r-pc.log" >&2; fail "R CMD INSTALL against a pkg-config cfx"; }
grep -q "through pkg-config" "$TMP/r-pc.log" || { cat "$TMP/r-pc.log" >&2; fail "R's configure did not use pkg-config"; }
(cd "$RUN" && R_LIBS="$TMP/rlib-pc" Rscript --vanilla "$APP/r/quickstart.R" >"$TMP/r-pc.txt" 2>&1) \
  || { cat "$TMP/r-pc.txt" >&2; fail "R quick start (pkg-config build)"; }
check_output "R (pkg-config)" "$TMP/r-pc.txt"
check_no_root "R (pkg-config)" "$TMP/rlib-pc"
python3 "$ROOT/tests/no_build_path.py" "$PREFIX" "$TMP/rlib-pc" || fail "R (pkg-config): the installed package names the cfx prefix"
ok "R: R CMD INSTALL against a pkg-config cfx, quick start prints the scenario's numbers"

echo "dist: $passed checks passed"
