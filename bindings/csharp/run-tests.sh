#!/bin/sh
# Builds libcfx (testing feature), the C# binding (Cfx.dll) and its tests
# (Tests.exe) with mcs, then runs them with mono. Last line:
# "csharp: N passed, M failed"; exit status non-zero on any failure. Also
# compiles and runs the C# snippets of bindings/csharp/README.md (those of README.md and
# docs/guide/ are run by tests/docs/run_snippets.py, `make test-docs`).
# Extra arguments select tests by name fragment.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
libdir="$root/target/ffi-testing/release"

(cd "$root" && cargo build --quiet --release --lib --features testing --target-dir target/ffi-testing)

# The binding as `make csharp` builds it (every function family; no -define: flags), and the tests.
OUT="$here/build" sh "$here/build.sh"
mcs -nologo -langversion:7 -warnaserror -r:"$here/build/Cfx.dll" -out:"$here/build/Tests.exe" "$here"/tests/*.cs

# The README snippets, compiled against Cfx.dll and run in an empty folder with libcfx.so on
# LD_LIBRARY_PATH; a snippet's comment "// <output> …" is the start of what it must print.
snip="$here/build/snippets"
rm -rf "$snip" && mkdir -p "$snip"
cp "$here/build/Cfx.dll" "$snip/"
# The scorecard snippet reads a risk team's exported table from the folder it runs in.
cp "$root/examples/data/german_scorecard_table.csv" "$snip/"
n=0
for readme in "$here/README.md"; do
  blocks=$(awk '/^```csharp$/ {inb=1; k++; next} inb && /^```$/ {inb=0; next} inb {print k "\t" $0}' "$readme")
  for k in $(printf '%s\n' "$blocks" | cut -f1 | sort -un); do
    n=$((n + 1))
    body=$(printf '%s\n' "$blocks" | awk -F'\t' -v k="$k" '$1 == k {sub(/^[0-9]+\t/, ""); print}')
    if printf '%s\n' "$body" | grep -q 'static void Main('; then
      # A complete program (the quick start, which make test-dist also compiles as it is).
      printf '%s\n' "$body" >"$snip/Snippet$n.cs"
    else
      { echo "using System; using System.IO; using Cfx;"
        echo "public static class Snippet$n { public static void Main() {"
        printf '%s\n' "$body" | grep -v '^using [A-Za-z.]*;$'
        echo "} }"; } >"$snip/Snippet$n.cs"
    fi
    expect=$(printf '%s\n' "$body" | sed -n 's|.*// \(.*\) …$|\1|p' | head -n 1)
    if ! mcs -nologo -langversion:7 -warnaserror -r:"$snip/Cfx.dll" -out:"$snip/Snippet$n.exe" "$snip/Snippet$n.cs" >"$snip/mcs$n.log" 2>&1; then
      echo "csharp: snippet $n of $readme does not compile:" >&2; cat "$snip/mcs$n.log" >&2; exit 1
    fi
    if ! (cd "$snip" && CFX_DATA_DIR="$root/examples/data" LD_LIBRARY_PATH="$libdir" mono "Snippet$n.exe" >"out$n.txt" 2>&1); then
      echo "csharp: snippet $n of $readme failed:" >&2; cat "$snip/out$n.txt" >&2; exit 1
    fi
    if [ -n "$expect" ] && ! grep -qF -- "$expect" "$snip/out$n.txt"; then
      echo "csharp: snippet $n of $readme printed something else than '$expect':" >&2; cat "$snip/out$n.txt" >&2; exit 1
    fi
  done
done
[ "$n" -ge 1 ] || { echo "csharp: found $n README snippets, expected at least 1" >&2; exit 1; }
echo "csharp: $n README snippets compiled and ran"

export CFX_ROOT="$root"
# The deliberate panic of the testing feature prints one line on stderr; no backtrace.
export RUST_BACKTRACE=0
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
exec mono --debug "$here/build/Tests.exe" "$@"
