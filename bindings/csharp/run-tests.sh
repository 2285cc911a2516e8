#!/bin/sh
# Builds libcfx (testing feature), the C# binding (Cfx.dll) and its tests
# (Tests.exe) with mcs, then runs them with mono. Last line:
# "csharp: N passed, M failed"; exit status non-zero on any failure.
# Extra arguments select tests by name fragment.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
libdir="$root/target/ffi-testing/release"

(cd "$root" && cargo build --quiet --release --lib --features testing --target-dir target/ffi-testing)

# Method families are compiled in when the header declares them (the lead
# merges their C entry points into this tree over time).
defines=""
grep -q 'cfx_robust_generate' "$root/include/cfx.h" && defines="$defines -define:CFX_ROBUST"
grep -q 'cfx_coherent_explain' "$root/include/cfx.h" && defines="$defines -define:CFX_COHERENT"
grep -q 'cfx_policy_train' "$root/include/cfx.h" && defines="$defines -define:CFX_SEQUENTIAL"
grep -q 'cfx_copa_plan_new' "$root/include/cfx.h" && defines="$defines -define:CFX_COPA"
grep -q 'cfx_copa_correct' "$root/include/cfx.h" && defines="$defines -define:CFX_COPA_CORRECT"
grep -q 'cfx_coherent_explain_batch' "$root/include/cfx.h" && defines="$defines -define:CFX_COHERENT_BATCH"
echo "csharp: building with:${defines:- (core only)}"

mkdir -p "$here/build"
mcs -nologo -langversion:7 -warnaserror $defines -target:library -out:"$here/build/Cfx.dll" "$here"/src/*.cs
mcs -nologo -langversion:7 -warnaserror $defines -r:"$here/build/Cfx.dll" -out:"$here/build/Tests.exe" "$here"/tests/*.cs

export CFX_ROOT="$root"
# The deliberate panic of the testing feature prints one line on stderr; no backtrace.
export RUST_BACKTRACE=0
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
exec mono --debug "$here/build/Tests.exe" "$@"
