#!/bin/sh
# Builds libcfx (with the `testing` feature) if needed, installs the R
# package into a private library (bindings/r/lib) and runs its testthat
# tests, and runs the R snippets of README.md and bindings/r/README.md.
# Last line: "r: N passed, M failed"; exits non-zero on any failure.
# Set CHECK=1 to also run `R CMD check --no-manual`, VALGRIND=1 to run
# valgrind-smoke.R under valgrind memcheck (both before the tests).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export CFX_ROOT="$root"
# The folder of HELOC and Taiwan for the library's loaders called with no path (and the tests).
export CFX_SHARED_DATA="${CFX_SHARED_DATA:-$(dirname "$root")/shared/data}"
export PATH="$HOME/.cargo/bin:$PATH"

# The shared library every binding uses (cargo makes this idempotent and
# serialises concurrent builds with its own lock).
(cd "$root" && cargo build --quiet --release --lib --features testing --target-dir target/ffi-testing)

# Installed as a user would (bindings/r/install.sh: R CMD build, then R CMD INSTALL of the tarball),
# against the testing library.
lib="$here/lib"
rm -rf "$lib" && mkdir -p "$lib"
export CFX_LIB_DIR="$root/target/ffi-testing/release" CFX_INCLUDE_DIR="$root/include"
if ! sh "$here/install.sh" --no-multiarch --library="$lib" >"$here/lib/install.log" 2>&1; then
  cat "$here/lib/install.log" >&2
  echo "r: 0 passed, 1 failed"
  exit 1
fi
# The installed package is self-contained: no path of this tree (no rpath, no baked folder; R's
# .rds files, e.g. help/paths.rds, uncompressed too).
if ! python3 "$root/tests/no_build_path.py" "$root" "$lib/cfx" 2>"$lib/paths.log"; then
  echo "r: the installed package names this tree ($root) in:" >&2; cat "$lib/paths.log" >&2
  echo "r: 0 passed, 1 failed"
  exit 1
fi
# Installing straight from the folder with --clean leaves the source tree as it was.
(cd "$here/cfx" && sh ./cleanup)
before=$(cd "$root" && git status --porcelain --ignored -- bindings/r/cfx)
mkdir -p "$lib/direct"
if ! R CMD INSTALL --clean --no-multiarch --library="$lib/direct" "$here/cfx" >"$lib/direct.log" 2>&1; then
  cat "$lib/direct.log" >&2
  echo "r: 0 passed, 1 failed"
  exit 1
fi
after=$(cd "$root" && git status --porcelain --ignored -- bindings/r/cfx)
# (Installed from a folder, R itself records that folder's help pages in help/paths.rds, gzipped;
# so this looks at the uncompressed files only. The tarball routes above and in make test-dist
# are searched .rds files included.)
if grep -rlF "$root" "$lib/direct/cfx" >"$lib/paths.log"; then
  echo "r: the package installed from the folder names this tree ($root) in:" >&2; cat "$lib/paths.log" >&2
  echo "r: 0 passed, 1 failed"
  exit 1
fi
if [ "$before" != "$after" ]; then
  echo "r: R CMD INSTALL --clean bindings/r/cfx changed the source tree:" >&2
  printf '%s\n' "$after" >&2
  echo "r: 0 passed, 1 failed"
  exit 1
fi

check_status=0
if [ "${CHECK:-0}" = 1 ]; then
  rm -rf "$here/check" && mkdir -p "$here/check"
  (cd "$here/check" && R CMD build --no-build-vignettes "$here/cfx" >/dev/null &&
   _R_CHECK_FORCE_SUGGESTS_=false R_LIBS="$lib" R CMD check --no-manual cfx_*.tar.gz) || check_status=$?
  if [ $check_status = 0 ]; then echo "r: R CMD check passed"; else echo "r: R CMD check FAILED"; fi
fi

if [ "${VALGRIND:-0}" = 1 ]; then
  if R_LIBS="$lib" R -d "valgrind --error-exitcode=3 --quiet" --vanilla -f "$here/valgrind-smoke.R" >"$lib/valgrind.log" 2>&1; then
    echo "r: valgrind smoke run clean"
  else
    cat "$lib/valgrind.log" >&2; echo "r: valgrind smoke run FAILED"; check_status=1
  fi
fi

# The README snippets, run with the installed package from an empty folder (no CFX_DATA_DIR: the
# package carries its data); a snippet's comment `# "<output> …"` is the start of what it prints.
snip="$lib/snippets"
mkdir -p "$snip"
n=0
for readme in "$root/README.md" "$here/README.md"; do
  blocks=$(awk '/^```r$/ {inb=1; k++; next} inb && /^```$/ {inb=0; next} inb {print k "\t" $0}' "$readme")
  for k in $(printf '%s\n' "$blocks" | cut -f1 | sort -un); do
    n=$((n + 1))
    printf '%s\n' "$blocks" | awk -F'\t' -v k="$k" '$1 == k {sub(/^[0-9]+\t/, ""); print}' >"$snip/snippet$n.R"
    expect=$(sed -n 's|.*# "\(.*\) …"$|\1|p' "$snip/snippet$n.R" | head -n 1)
    if ! (cd "$snip" && env -u CFX_DATA_DIR R_LIBS="$lib" Rscript --vanilla "snippet$n.R" >"out$n.txt" 2>&1); then
      echo "r: snippet $n of $readme failed:" >&2; cat "$snip/out$n.txt" >&2; check_status=1; continue
    fi
    if [ -n "$expect" ] && ! grep -qF -- "$expect" "$snip/out$n.txt"; then
      echo "r: snippet $n of $readme printed something else than '$expect':" >&2; cat "$snip/out$n.txt" >&2
      check_status=1; continue
    fi
  done
done
if [ "$n" -lt 2 ]; then echo "r: found $n README snippets, expected at least 2" >&2; check_status=1; fi
[ $check_status = 0 ] && echo "r: $n README snippets ran"

status=0
R_LIBS="$lib${R_LIBS:+:$R_LIBS}" Rscript --vanilla - <<'REOF' || status=$?
lib <- Sys.getenv("R_LIBS")
.libPaths(c(strsplit(lib, ":")[[1]], .libPaths()))
library(testthat)
library(cfx)
dir <- file.path(Sys.getenv("CFX_ROOT"), "bindings", "r", "cfx", "tests", "testthat")
res <- testthat::test_dir(dir, reporter = testthat::ProgressReporter$new(show_praise = FALSE),
                          stop_on_failure = FALSE, package = "cfx", load_package = "none")
df <- as.data.frame(res)
bad <- df$failed > 0 | df$error
skipped <- !bad & df$skipped
passed <- sum(!bad & !skipped)
if (any(skipped)) {
  cat(sprintf("r: skipped: %s\n", paste(df$test[skipped], collapse = "; ")))
}
cat(sprintf("r: %d passed, %d failed\n", passed, sum(bad)))
quit(status = if (any(bad)) 1 else 0)
REOF

[ $check_status = 0 ] || status=1
exit $status
