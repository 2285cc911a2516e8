#!/bin/sh
# Installs the cfx R package without writing into the source tree: `R CMD build` makes a tarball
# in a temporary folder and `R CMD INSTALL` installs it. Arguments go to R CMD INSTALL (e.g.
# --library=DIR). The library is found as bindings/r/cfx/configure says (CFX_LIB_DIR, else an
# installed cfx through pkg-config, else this tree's target/release after `make build`).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
export CFX_ROOT="${CFX_ROOT:-$(cd "$here/../.." && pwd)}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! (cd "$tmp" && R CMD build --no-build-vignettes --no-manual "$here/cfx" >build.log 2>&1); then
  cat "$tmp/build.log" >&2
  exit 1
fi
R CMD INSTALL "$@" "$tmp"/cfx_*.tar.gz
