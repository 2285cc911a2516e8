#!/usr/bin/env bash
# Builds the cfx Java binding (JNI shim + classes) and runs its JUnit 5 tests.
# Last line: "java: N passed, M failed"; exit status non-zero on any failure.
# Also compiles the Java snippets of bindings/java/README.md against the jar and runs them (those of
# README.md and docs/guide/ are run by tests/docs/run_snippets.py, `make test-docs`).
# Needs: JDK 17 (javac, java), gcc, junit5 jars in /usr/share/java (Debian `junit5`).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
BUILD="$HERE/build"
LIBDIR="$ROOT/target/ffi-testing/release"
JAVA_HOME="${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}"
JUNIT="${JUNIT_JAR:-/usr/share/java/junit-platform-console-standalone.jar}"

# 1. The library with the `testing` feature (cargo is idempotent and locks concurrent builds).
if [ "${CFX_SKIP_CARGO:-0}" != 1 ]; then
  (cd "$ROOT" && cargo build --release --lib --features testing --target-dir target/ffi-testing >&2)
fi

# 2. The JNI shim (every function family of the header, plus the testing entry point), the
#    classes and the jar, as `make java` builds them but against the testing library.
OUT="$BUILD" CFX_LIB_DIR="$LIBDIR" CFX_TESTING=1 bash "$HERE/build.sh" >&2
mkdir -p "$BUILD/test-classes"

# 3. Tests.
javac -Xlint:all,-processing,-try -d "$BUILD/test-classes" -cp "$BUILD/classes:$JUNIT" \
  $(find "$HERE/src/test/java" -name '*.java')

JOPTS=(-Djava.library.path="$BUILD/native" -Dcfx.root="$ROOT" -Xcheck:jni)
LOG="$BUILD/junit.log"
set +e
RUST_BACKTRACE=0 java "${JOPTS[@]}" -jar "$JUNIT" --disable-banner --disable-ansi-colors --details=tree \
  --class-path "$BUILD/classes:$BUILD/test-classes" --select-package org.cfx 2>&1 | tee "$LOG"
status=${PIPESTATUS[0]}
set -e
passed=$(sed -n 's/^\[ *\([0-9]*\) tests successful *\]$/\1/p' "$LOG" | tail -1)
failed=$(sed -n 's/^\[ *\([0-9]*\) tests failed *\]$/\1/p' "$LOG" | tail -1)
aborted=$(sed -n 's/^\[ *\([0-9]*\) tests aborted *\]$/\1/p' "$LOG" | tail -1)
passed=${passed:-0}
failed=${failed:-0}
aborted=${aborted:-0}
if [ "$passed" = 0 ] && [ "$failed" = 0 ]; then failed=1; fi

# 4. The binding README's snippets, compiled against the jar alone and run from an empty folder with no
#    java.library.path, LD_LIBRARY_PATH or CFX_DATA_DIR: the binding loads its natives and finds
#    the bundled data from inside the jar.
#    A snippet's comment "// <output> …" is the start of what it must print.
JAR="$BUILD/cfx-$(sed -n 's/^version = "\(.*\)"/\1/p' "$ROOT/Cargo.toml" | head -n 1).jar"
SNIP="$BUILD/snippets"
rm -rf "$SNIP" && mkdir -p "$SNIP"
n=0
for readme in "$HERE/README.md"; do
  while IFS= read -r -d '' block; do
    n=$((n + 1))
    if printf '%s\n' "$block" | grep -q 'public static void main('; then
      # A complete program (the quick start, which make test-dist also compiles as it is).
      printf '%s\n' "$block" | sed "s/^public class [A-Za-z0-9_]*/public class Snippet$n/" >"$SNIP/Snippet$n.java"
    else
      { echo "import org.cfx.*;"
        echo "public class Snippet$n { public static void main(String[] args) throws Exception {"
        printf '%s\n' "$block"
        echo "} }"; } >"$SNIP/Snippet$n.java"
    fi
    expect=$(printf '%s\n' "$block" | sed -n 's|.*// \(.*\) …$|\1|p' | head -n 1)
    if ! javac -Xlint:all -Werror -d "$SNIP" -cp "$JAR" "$SNIP/Snippet$n.java" 2>"$SNIP/javac$n.log"; then
      echo "java: snippet $n of $readme does not compile:" >&2; cat "$SNIP/javac$n.log" >&2; failed=$((failed + 1)); continue
    fi
    if ! (cd "$SNIP" && env -u LD_LIBRARY_PATH -u CFX_DATA_DIR \
          java -cp "$JAR:$SNIP" "Snippet$n" >"$SNIP/out$n.txt" 2>&1); then
      echo "java: snippet $n of $readme failed:" >&2; cat "$SNIP/out$n.txt" >&2; failed=$((failed + 1)); continue
    fi
    if [ -n "$expect" ] && ! grep -qF -- "$expect" "$SNIP/out$n.txt"; then
      echo "java: snippet $n of $readme printed something else than '$expect':" >&2; cat "$SNIP/out$n.txt" >&2
      failed=$((failed + 1)); continue
    fi
    passed=$((passed + 1))
  done < <(awk '/^```java$/ {inb=1; b=""; next} inb && /^```$/ {inb=0; printf "%s%c", b, 0; next} inb {b = b $0 "\n"}' "$readme")
done
[ "$n" -ge 1 ] || { echo "java: found $n README snippets, expected at least 1" >&2; failed=$((failed + 1)); }
# Skipped = tests of entry points that this cfx.h does not declare yet (assumptions).
echo "java: $passed passed, $failed failed, $aborted skipped"
[ "$status" = 0 ] && [ "$failed" = 0 ]
