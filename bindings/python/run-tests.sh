#!/usr/bin/env bash
# Installs the cfx Python package (bindings/python) into its own virtual environment
# (target/python-venv, pinned packages from PyPI, no pip cache) and runs its pytest tests,
# including the Spark portfolio audit in Spark's local mode, against the `testing` build of
# libcfx (target/ffi-testing, as the other bindings), then the live-object tests of
# tests_live in the optbinning and XGBoost/LightGBM peer environments of benches/peers
# (skipped when pytest arguments select tests), then runs the Python snippets of
# README.md and bindings/python/README.md from an empty folder.
# Last line: "python: N passed, M failed, K skipped"; exit status non-zero on any failure.
# Needs: python3 with venv, Java 17 (for Spark).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
export PATH="$HOME/.cargo/bin:$PATH"
export CFX_SHARED_DATA="${CFX_SHARED_DATA:-$(dirname "$ROOT")/shared/data}"
VENV="$ROOT/target/python-venv"
# One environment for the package tests and Spark (pyspark alone is some 320 MB).
PINS="numpy==2.4.6 pandas==3.1.1 pytest==9.2.0 scikit-learn==1.9.1 pyarrow==26.0.1 pyspark==4.3.0"

# 1. The library with the `testing` feature (cargo is idempotent and locks concurrent builds).
if [ "${CFX_SKIP_CARGO:-0}" != 1 ]; then
  (cd "$ROOT" && cargo build --quiet --release --lib --features testing --target-dir target/ffi-testing >&2)
fi
export CFX_LIB="$ROOT/target/ffi-testing/release/libcfx.so"

# 2. The environment (made again when the pins change).
if [ "$(cat "$VENV/pins.txt" 2>/dev/null)" != "$PINS" ]; then
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --no-cache-dir $PINS >&2
  echo "$PINS" >"$VENV/pins.txt"
fi
PY="$VENV/bin/python"

# 3. The package, installed as a user would (`pip install bindings/python`), from a copy so
#    that the build leaves nothing in the source tree.
BUILD="$ROOT/target/python-build"
rm -rf "$BUILD" && mkdir -p "$BUILD"
cp -r "$HERE/pyproject.toml" "$HERE/README.md" "$HERE/src" "$BUILD/"
find "$BUILD" -name __pycache__ -prune -exec rm -rf {} +
"$PY" -m pip install -q --no-cache-dir --no-deps --force-reinstall "$BUILD" >&2

# 4. The tests (from the test folder; nothing cached into the tree).
export PYTHONDONTWRITEBYTECODE=1
passed=0; failed=0; skipped=0
# Runs pytest with interpreter $1 in folder $2 (further arguments to pytest) and adds its
# closing line's counts, e.g. "38 passed, 1 skipped, 57 warnings in 130.99s", to the totals.
run_pytest() {
  local py=$1 dir=$2 log status summary p f s e
  shift 2
  log="$BUILD/pytest-$(basename "$dir")-$(basename "$(dirname "$(dirname "$py")")").log"
  set +e
  (cd "$dir" && RUST_BACKTRACE=0 "$py" -m pytest -p no:cacheprovider -q -rs "$@" 2>&1) | tee "$log"
  status=${PIPESTATUS[0]}
  set -e
  summary=$(grep -E '[0-9]+ (passed|failed|error|errors|skipped).* in [0-9.]+s' "$log" | tail -1 || true)
  count() { printf "%s\n" "$summary" | { grep -oE "[0-9]+ $1" || true; } | head -1 | cut -d" " -f1; }
  p=$(count passed); f=$(count failed); s=$(count skipped); e=$(count error)
  f=$(( ${f:-0} + ${e:-0} ))
  if [ "$status" != 0 ] && [ "$f" = 0 ]; then f=1; fi
  passed=$((passed + ${p:-0})); failed=$((failed + f)); skipped=$((skipped + ${s:-0}))
}
run_pytest "$PY" "$HERE/tests" "$@"

# 4b. Live objects of the libraries modellers fit in (tests_live): an optbinning Scorecard and
#     XGBoost/LightGBM Boosters pass into cfx in memory. Those libraries stay out of the
#     environment above (CI disk); the tests run in the peer environments of benches/peers
#     instead (made by `make peers-scorecard`/`peers-trees`, which `make test` runs first;
#     made here from the peer script's own VENV and PINS when missing or when the pins have
#     changed, benches/peers/peer_venv.py, without running the script), with the cfx package
#     (a wheel, --no-deps) and pytest installed into them.
if [ $# -eq 0 ]; then
  "$PY" -m pip wheel -q --no-cache-dir --no-deps -w "$BUILD/wheel" "$BUILD" >&2
  WHEEL=$(ls "$BUILD"/wheel/cfx-*.whl)
  for spec in scorecard_optbinning:test_optbinning_live.py trees_train:test_trees_live.py catboost_ebm_peers:test_catboost_ebm_live.py; do
    script=${spec%%:*}; tests=${spec#*:}
    pvenv=$(cd "$ROOT/benches/peers" && python3 -c "import $script as m; print(m.VENV)")
    (cd "$ROOT/benches/peers" && python3 -c "import peer_venv, $script as m; peer_venv.prepare(m.VENV, m.PINS)" >&2)
    "$pvenv/bin/python" -m pip install -q --no-cache-dir --no-deps --force-reinstall "$WHEEL" >&2
    "$pvenv/bin/python" -c "import pytest" 2>/dev/null ||
      "$pvenv/bin/python" -m pip install -q --no-cache-dir "pytest==9.2.0" >&2
    run_pytest "$pvenv/bin/python" "$HERE/tests_live" "$tests"
  done
fi

# 5. The README snippets, each run by the installed package from an empty folder, with the
#    library given by CFX_LIB and the bundled data by CFX_DATA_DIR. A snippet's comment
#    "# <output> …" is the start of what it must print.
SNIP="$BUILD/snippets"
mkdir -p "$SNIP"
n=0
for readme in "$ROOT/README.md" "$HERE/README.md"; do
  while IFS= read -r -d '' block; do
    n=$((n + 1))
    printf '%s\n' "$block" >"$SNIP/snippet$n.py"
    expect=$(printf '%s\n' "$block" | sed -n 's|.*# \(.*\) …$|\1|p' | head -n 1)
    if ! (cd "$SNIP" && CFX_DATA_DIR="$ROOT/examples/data" "$PY" "snippet$n.py" >"out$n.txt" 2>&1); then
      echo "python: snippet $n of $readme failed:" >&2; cat "$SNIP/out$n.txt" >&2; failed=$((failed + 1)); continue
    fi
    if [ -n "$expect" ] && ! grep -qF -- "$expect" "$SNIP/out$n.txt"; then
      echo "python: snippet $n of $readme printed something else than '$expect':" >&2; cat "$SNIP/out$n.txt" >&2
      failed=$((failed + 1)); continue
    fi
    passed=$((passed + 1))
  done < <(awk '/^```python$/ {inb=1; b=""; next} inb && /^```$/ {inb=0; printf "%s%c", b, 0; next} inb {b = b $0 "\n"}' "$readme")
done
[ "$n" -ge 2 ] || { echo "python: found $n README snippets, expected at least 2" >&2; failed=$((failed + 1)); }
echo "python: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
