#!/usr/bin/env bash
# Builds the cfx Java binding into one jar, OUT/cfx-<version>.jar: the org.cfx classes, the JNI
# shim compiled with every function family of include/cfx.h, and libcfx itself, under
# org/cfx/native/<os>-<arch>/ (Native.java loads them from there when java.library.path has no
# libcfx_jni), and the bundled German credit data under org/cfx/data/. Also leaves OUT/classes and OUT/native/libcfx_jni.so (+ libcfx.so.<ABI>) for
# running from the file system: java -Djava.library.path=OUT/native -cp OUT/classes ...
#
# Environment: CFX_LIB_DIR, the folder of the libcfx.so to link and bundle (default target/release
# of this tree, built by `make build`); CFX_TESTING=1 compiles the shim's testing entry point (for
# a library built with `--features testing`); OUT (default bindings/java/build).
# Needs: JDK 17 (javac, jar), cc.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
OUT="${OUT:-$HERE/build}"
LIBDIR="${CFX_LIB_DIR:-$ROOT/target/release}"
JAVA_HOME="${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}"
VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' "$ROOT/Cargo.toml" | head -n 1)
ABI=$(sed -n 's/^#define CFX_ABI_VERSION \([0-9]*\)$/\1/p' "$ROOT/include/cfx.h")
if [ ! -f "$LIBDIR/libcfx.so" ]; then
  echo "java: no libcfx.so in $LIBDIR (run \`make build\` first, or set CFX_LIB_DIR)" >&2
  exit 1
fi
case "$(uname -m)" in x86_64|amd64) ARCH=x86_64 ;; aarch64|arm64) ARCH=aarch64 ;; *) ARCH=$(uname -m) ;; esac
PLATFORM="$(uname -s | tr '[:upper:]' '[:lower:]')-$ARCH"
TESTING=()
[ "${CFX_TESTING:-0}" = 1 ] && TESTING=(-DCFX_TESTING)

rm -rf "$OUT/classes" "$OUT/native" "$OUT/jar-native"
mkdir -p "$OUT/classes" "$OUT/native" "$OUT/jar-native/org/cfx/native/$PLATFORM" "$OUT/jar-native/org/cfx/data"

# 1. The shim. $ORIGIN: it finds libcfx.so.<ABI> in its own folder (as in the jar's temporary
#    folder and OUT/native), else through the system's library path; no build path is recorded.
cc -std=c11 -O2 -Wall -Wextra -Werror -fPIC -shared "${TESTING[@]}" \
  -I"$JAVA_HOME/include" -I"$JAVA_HOME/include/linux" -I"$ROOT/include" \
  "$HERE/src/main/c/cfx_jni.c" "$HERE/src/main/c/cfx_jni_generated.c" -o "$OUT/native/libcfx_jni.so" \
  -L"$LIBDIR" -lcfx -Wl,-rpath,'$ORIGIN'
cp "$LIBDIR/libcfx.so" "$OUT/native/libcfx.so.$ABI"
strip --strip-debug "$OUT/native/libcfx.so.$ABI"

# 2. Classes.
javac -Xlint:all -Werror --release 17 -d "$OUT/classes" $(find "$HERE/src/main/java" -name '*.java')

# 3. The jar.
cp "$OUT/native/libcfx_jni.so" "$OUT/native/libcfx.so.$ABI" "$OUT/jar-native/org/cfx/native/$PLATFORM/"
cp "$ROOT/examples/data/german_credit.csv" "$ROOT/examples/data/german_scorecard_table.csv" "$OUT/jar-native/org/cfx/data/"
JAR="$OUT/cfx-$VERSION.jar"
rm -f "$JAR"
jar --create --file "$JAR" -C "$OUT/classes" . -C "$OUT/jar-native" .
echo "java: built $JAR (natives for $PLATFORM, libcfx ABI $ABI)"
