# cfx — build, test, install and demo entry points.
# `make demo` and `make test` each do their own set-up (`deps-demo`, `deps`),
# so on a fresh Debian machine either command alone is enough.

CBINDGEN_VERSION := 0.29.4
VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
# What building libcfx and running the demo need: HiGHS is compiled from C++ sources by
# highs-sys (cmake, g++, libclang), clarabel links the system OpenBLAS (through pkg-config).
DEMO_APT_PACKAGES := cmake g++ pkg-config libclang-dev libopenblas-dev libgfortran-12-dev
# What `make test` needs on top: valgrind for the C examples, and the three bindings' toolchains.
TEST_APT_PACKAGES := $(DEMO_APT_PACKAGES) valgrind \
  openjdk-17-jdk-headless junit5 mono-mcs mono-runtime r-base-dev r-cran-jsonlite r-cran-testthat python3-venv
# The browser tests/notice_browser.rs renders a notice with (`make test` installs it in the step
# that runs the test): 90 packages, 132 MB download, 433 MB installed on top of TEST_APT_PACKAGES
# on a minimal Debian 12 (apt's simulation, recommends included, as apt_install installs).
BROWSER_APT_PACKAGES := chromium-headless-shell
DATA ?= german
EXPERIMENTS := robustness_tradeoff plans_under_shift sequential_policies
CARGO ?= cargo
export PATH := $(HOME)/.cargo/bin:$(PATH)

# `make install` layout (GNU conventions; DESTDIR for staged installs).
PREFIX ?= /usr/local
DESTDIR ?=
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DATADIR ?= $(PREFIX)/share/cfx
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig

.PHONY: deps deps-demo deps-apt-demo deps-apt-test deps-cbindgen first-build-notice build header \
  demo test ci-free-disk test-install install uninstall java csharp r dist test-dist experiments bench fuzz fuzz-install fuzz-smoke lint \
  peers-scorecard peers-trees peers-pmml peers-heloc-three-ways peers-catboost peers-onnx peers-mlp model-formats onnx-messages test-imports bindings test-bindings-gen test-docs trees-every-applicant \
  plausibility-targets

# Everything `make test` needs; `deps-demo` is the smaller set `make demo` and `make build` need.
deps: deps-apt-test deps-cbindgen
deps-demo: deps-apt-demo

# Installs only the Debian packages of $(1) that are missing (idempotent).
define apt_install
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi
endef

deps-apt-demo:
	$(call apt_install,$(DEMO_APT_PACKAGES))

deps-apt-test:
	$(call apt_install,$(TEST_APT_PACKAGES))

# A pinned cbindgen: different releases format headers differently.
deps-cbindgen:
	@if ! cbindgen --version 2>/dev/null | grep -q '$(CBINDGEN_VERSION)'; then \
	  $(CARGO) install --locked cbindgen --version $(CBINDGEN_VERSION); \
	fi

# Says what the long first build does before it starts (nothing once it has been done).
first-build-notice:
	@if ! ls -d target/release/build/highs-sys-*/out >/dev/null 2>&1; then \
	  echo "cfx: first build: compiling the HiGHS MIP solver (C++, through cmake) and some 250 Rust crates"; \
	  echo "cfx: this takes several minutes (the longer the fewer cores), once; later builds take seconds"; \
	fi

build: deps-demo first-build-notice
	$(CARGO) build --release

# optbinning's own scores of every HELOC row (target/peers/), the oracle of tests/scorecard_parity.rs;
# the script makes its own virtual environment with pinned packages from PyPI.
peers-scorecard:
	python3 benches/peers/scorecard_optbinning.py heloc

# The XGBoost and LightGBM HELOC models, their margins and their own TreeSHAP values
# (pred_contribs / pred_contrib, the notices' oracle) that the tree tests read from
# target/peers (own venv in benches/peers/.venv-trees, pinned from PyPI).
peers-trees:
	python3 benches/peers/trees_train.py
	python3 benches/peers/trees_contribs.py

# The PMML files and jpmml-evaluator's scores committed under tests/data/pmml, made again
# (own venvs in benches/peers/.venv-pmml and .venv-pmml-trees, pinned from PyPI; needs Java
# 17), then cfx's counterfactuals of two boosted PMML models re-scored by jpmml-evaluator (needs
# the release library). Not part of `make test`: the committed files are what the tests read,
# on every machine.
peers-pmml:
	python3 benches/peers/pmml_peers.py
	python3 benches/peers/pmml_reasons.py
	python3 benches/peers/pmml_tree_peers.py write
	cargo build --release --lib
	python3 benches/peers/pmml_tree_peers.py counterfactuals

# The peer's HELOC XGBoost model (peers-trees) also as PMML (sklearn2pmml) and ONNX
# (onnxmltools) in target/peers, for tests/heloc_three_ways.rs (which skips without them). Needs
# the .venv-pmml-trees and .venv-onnx environments (peers-pmml, peers-onnx); not part of `make
# test`, whose CI does not build the converters' environments.
peers-heloc-three-ways: peers-trees
	python3 benches/peers/heloc_three_ways.py

# The bank's HELOC model in every format cfx reads (a PMML scorecard and LightGBM model, ONNX
# logistic, gradient-boosting and ReLU MLP graphs, CatBoost, an EBM), made by the real producers
# into target/peers/formats with their own scores of every row (the pinned .venv-pmml-trees,
# .venv-onnx and .venv-catboost environments; about a minute once they exist), then
# examples/model_formats.rs: scores equal on every row, the first 20 declined applicants
# explained and their counterfactuals re-scored by each producer. A few minutes; not part of
# `make test` (HELOC-derived models are not committed, and CI does not build the producers).
model-formats:
	python3 benches/peers/model_formats_peers.py write
	$(CARGO) run --release --example model_formats -- heloc

# The CatBoost and EBM models, rows and producers' margins committed under tests/data/catboost
# and tests/data/ebm, made again, and cfx's counterfactuals re-scored by CatBoost / interpret
# (own venv in benches/peers/.venv-catboost, pinned from PyPI; `cargo build --release --lib`
# first). `make test-imports` runs the check (retrain, compare, re-score; nothing written).
peers-catboost:
	$(CARGO) build --release --lib
	python3 benches/peers/catboost_ebm_peers.py write
	python3 benches/peers/catboost_ebm_peers.py counterfactuals

# The ONNX files and onnxruntime's outputs committed under tests/data/onnx, made again in a
# temporary folder and compared with the committed ones (own venv in benches/peers/.venv-onnx,
# pinned from PyPI; about 20 s to install on this machine). `python3 benches/peers/onnx_peers.py`
# rewrites them.
peers-onnx:
	python3 benches/peers/onnx_peers.py --check

# The exact engine on ReLU networks against an independent big-M formulation on highspy (issue
# 39): German 1×200 (plain schema and its advice preset), HELOC 2×32 and 2×16 (its preset), the
# first 20 applicants each network declines, in target/peers/mlp_*.json, then tests/mlp_peers.rs
# (which skips a case without its files). Own venv in benches/peers/.venv-mlp, pinned from PyPI.
# Slow (the peer's big-M from interval bounds takes seconds to minutes per applicant — HELOC 2×32
# #14, no bureau record, took 9 min of wall clock at load 12–14 — and cfx's infeasible HELOC
# applicants take minutes; BENCHMARKS.md §12), so not part of `make test`. HELOC 1×200
# (heloc-1x200-preset) is left out: cfx's export stalls there (§12). German 1×200 under its preset
# fails today on applicant #9: cfx's proven optimum is dearer than the peer's (§12).
peers-mlp:
	python3 benches/peers/mlp_peers.py heloc-2x16-preset heloc-2x32-preset --n 20 --limit 300 --peer-limit 900
	python3 benches/peers/mlp_peers.py german-1x200-preset german-1x200 --n 20 --limit 300
	$(CARGO) test --release --test mlp_peers -- --nocapture

# The generated binding files are checked first: a stale one fails in a second, before any build.
test: test-bindings-gen deps peers-scorecard peers-trees
	$(call apt_install,$(BROWSER_APT_PACKAGES))
	$(CARGO) test --release
	$(MAKE) --no-print-directory test-imports
	@$(MAKE) --no-print-directory ci-free-disk
	bash tests/install/run.sh
	$(MAKE) --no-print-directory test-dist
	python3 bindings/check_names.py --self-test
	bash bindings/java/run-tests.sh
	bash bindings/csharp/run-tests.sh
	bash bindings/r/run-tests.sh
	bash bindings/python/run-tests.sh
	python3 tests/docs/run_snippets.py

# Every snippet of README.md and docs/guide/ (issue 26). The Rust ones are doctests
# (src/lib.rs, module `guide`), which `cargo test --release` runs; tests/docs/run_snippets.py
# compiles and runs the others against target/release/libcfx.so and what the bindings' tests
# build (the jar, Cfx.dll, the R package in bindings/r/lib, target/python-venv), and fails on
# a block that is neither run nor marked. `make test` runs it after those tests.
test-docs:
	$(CARGO) build --release --lib --bins
	$(CARGO) test --release --doc
	python3 tests/docs/run_snippets.py

# Under CI only (the CI machine's disk is small): once `cargo test` has run them, the test
# executables (`target/release/deps/<test>-<hash>`, no extension) and the examples (some 2 GB)
# are removed before the bindings' steps and the Python environment need room. Libraries,
# proc-macros and build scripts stay, so later `cargo build` calls do not rebuild anything.
ci-free-disk:
	@if [ -n "$$CI" ]; then \
	  echo "cfx (CI): removing the test executables and examples that have run, to free disk"; \
	  find target/release/deps -maxdepth 1 -type f -executable ! -name '*.*' -delete; \
	  rm -rf target/release/examples; \
	fi

demo: deps-demo first-build-notice
	$(CARGO) run --release --example credit_recourse -- $(DATA)
	$(CARGO) run --release --example sequential_demo -- $(DATA)

# Installs the C library as a system library: libcfx.so.<ABI> (its soname, set by build.rs from
# src/ffi/version.rs) with the libcfx.so link, libcfx.a, cfx.h, cfx.pc, the `cfx` command line in
# $(BINDIR) with its man pages (cfx.1 and cfx-<subcommand>.1) and bash completion (generated by the built binary itself, from the
# same declaration as its parser: `cfx man`, `cfx completions bash`), and the bundled data in
# $(DATADIR) (German credit and its points scorecard; the reviewed reason tables of German and
# HELOC for adverse-action notices in $(DATADIR)/reasons), where libcfx finds it by itself (see
# `cfx_dataset_load_german` and `cfx_scorecard_load_german` in cfx.h). Debug
# information is stripped from the installed copies: it would carry the build folder's path.
# Without cargo on the PATH (as under sudo) it installs what `make build` built before.
install:
	@if command -v $(CARGO) >/dev/null 2>&1; then $(MAKE) --no-print-directory build; \
	elif [ -f target/release/libcfx.so ]; then echo "cfx: no cargo on the PATH: installing the library built before"; \
	else echo "cfx: no cargo on the PATH and no target/release/libcfx.so: run \`make build\` first" >&2; exit 1; fi
	@soname=$$(readelf -d target/release/libcfx.so | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p'); \
	if [ -z "$$soname" ]; then echo "target/release/libcfx.so has no soname" >&2; exit 1; fi; \
	set -ex; \
	install -d "$(DESTDIR)$(LIBDIR)" "$(DESTDIR)$(INCLUDEDIR)" "$(DESTDIR)$(PKGCONFIGDIR)" "$(DESTDIR)$(DATADIR)" \
	  "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(MANDIR)/man1" "$(DESTDIR)$(BASHCOMPDIR)"; \
	install -m 755 target/release/cfx "$(DESTDIR)$(BINDIR)/cfx"; \
	strip --strip-debug "$(DESTDIR)$(BINDIR)/cfx"; \
	target/release/cfx man --dir "$(DESTDIR)$(MANDIR)/man1" >/dev/null; \
	target/release/cfx completions bash > "$(DESTDIR)$(BASHCOMPDIR)/cfx"; \
	install -m 755 target/release/libcfx.so "$(DESTDIR)$(LIBDIR)/$$soname"; \
	strip --strip-debug "$(DESTDIR)$(LIBDIR)/$$soname"; \
	ln -sfn "$$soname" "$(DESTDIR)$(LIBDIR)/libcfx.so"; \
	install -m 644 target/release/libcfx.a "$(DESTDIR)$(LIBDIR)/libcfx.a"; \
	strip --strip-debug "$(DESTDIR)$(LIBDIR)/libcfx.a"; \
	install -m 644 include/cfx.h "$(DESTDIR)$(INCLUDEDIR)/cfx.h"; \
	install -m 644 examples/data/german_credit.csv examples/data/README.md examples/data/german_scorecard_table.csv \
	  examples/data/german_scorecard.md "$(DESTDIR)$(DATADIR)/"; \
	install -d "$(DESTDIR)$(DATADIR)/reasons"; \
	install -m 644 examples/data/reasons/german_reasons.csv examples/data/reasons/heloc_reasons.csv \
	  "$(DESTDIR)$(DATADIR)/reasons/"; \
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	  -e 's|@DATADIR@|$(DATADIR)|' -e 's|@VERSION@|$(VERSION)|' packaging/cfx.pc.in \
	  > "$(DESTDIR)$(PKGCONFIGDIR)/cfx.pc"
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then ldconfig; fi

uninstall:
	rm -f "$(DESTDIR)$(LIBDIR)"/libcfx.so "$(DESTDIR)$(LIBDIR)"/libcfx.so.[0-9]* "$(DESTDIR)$(LIBDIR)/libcfx.a" \
	  "$(DESTDIR)$(INCLUDEDIR)/cfx.h" "$(DESTDIR)$(PKGCONFIGDIR)/cfx.pc" "$(DESTDIR)$(BINDIR)/cfx" \
	  "$(DESTDIR)$(MANDIR)/man1/cfx.1" "$(DESTDIR)$(MANDIR)"/man1/cfx-*.1 "$(DESTDIR)$(BASHCOMPDIR)/cfx"
	rm -rf "$(DESTDIR)$(DATADIR)"

# Installs into a temporary prefix, builds a C example against it through pkg-config (shared
# and static) and runs it from outside the source tree (tests/install/run.sh).
# The adversarial import suite (issue 23): small XGBoost and LightGBM models built with the
# real libraries in the peer environment, each imported exactly or refused with its cause.
test-imports:
	$(CARGO) build --release --lib
	python3 benches/peers/import_adversarial.py
	python3 benches/peers/catboost_ebm_peers.py check
	python3 benches/peers/onnx_peers.py --check

# The ONNX protobuf messages, regenerated from the committed onnx-ml.proto (prost-build with
# protox, no system protoc) into src/model/onnx/onnx_messages.rs, which is committed.
onnx-messages:
	$(CARGO) run --release --manifest-path tools/onnx-messages/Cargo.toml -- src/model/onnx src/model/onnx/onnx_messages.rs

test-install: build
	bash tests/install/run.sh

# The bindings, each with one command (against target/release, built by `make build`):
# bindings/java/build/cfx-$(VERSION).jar (classes, JNI shim and libcfx inside),
# bindings/csharp/build/Cfx.dll, and the R package installed into R's library.
java: build
	$(call apt_install,openjdk-17-jdk-headless)
	bash bindings/java/build.sh

csharp: build
	$(call apt_install,mono-mcs mono-runtime)
	sh bindings/csharp/build.sh

r: build
	$(call apt_install,r-base-dev r-cran-jsonlite)
	CFX_LIB_DIR=$(CURDIR)/target/release CFX_INCLUDE_DIR=$(CURDIR)/include bash bindings/r/install.sh

# The artefact each ecosystem installs, in dist/ (packaging/dist.sh): the Python wheel, the jar,
# the C# archive, the R source package and the C tarball, each with libcfx and the bundled data.
dist: build
	$(call apt_install,openjdk-17-jdk-headless mono-mcs mono-runtime r-base-dev r-cran-jsonlite python3-venv)
	bash packaging/dist.sh

# Installs every dist/ artefact the ecosystem's way in an empty folder outside the source tree,
# with no CFX_* variable, and runs the README's quick start of each language (tests/dist/run.sh).
test-dist: dist
	bash tests/dist/run.sh

# Regenerates the committed C header with the pinned cbindgen (tests/header.rs fails on drift).
header: deps-cbindgen
	cbindgen --config cbindgen.toml --crate cfx --output include/cfx.h

# Regenerates the bindings' mechanical layer from the committed include/cfx.h (bindings/gen/:
# the JNI entry points and Native.java, C#'s DllImports, SafeHandles and enums, R's .Call shims
# and registration, Python's ctypes signatures and enums, and the ABI manifest abi.json). It
# reads the header only, so it needs no build: after changing src/ffi, run `make header` first,
# then `make bindings`, and commit both.
bindings:
	python3 bindings/gen/generate.py

# Fails, naming the files, when a committed generated file differs from what `make bindings`
# writes from the committed header (cheap: Python only; `make test` runs it first).
test-bindings-gen:
	python3 bindings/gen/generate.py --check

# Paper reproductions and long runs (not part of `make test`).
experiments: deps
	@for ex in $(EXPERIMENTS); do \
	  if [ -f examples/$$ex.rs ]; then $(CARGO) run --release --example $$ex || exit 1; fi; \
	done

# Issue 24's oracle over every declined held-out HELOC applicant: the tree
# search against HiGHS (each solve in a child process of its own, killed if it
# overruns its limit) under the 100-tree XGBoost and LightGBM peer models;
# fails unless every answer is identical. About 50 minutes on 2 cores.
trees-every-applicant: deps peers-trees
	$(CARGO) run --release --example trees_scale -- --all --highs-child --strict --model "xgboost 100x4"
	$(CARGO) run --release --example trees_scale -- --all --highs-child --strict --model "lightgbm 100x15"

# Issue 25's targets on both presets (the first 40 declined held-out applicants,
# about 2 minutes once built): every answer of every method valid, at most 5% implausible.
plausibility-targets: deps
	$(CARGO) run --release --example plausibility_table -- german 40 --preset --strict
	$(CARGO) run --release --example plausibility_table -- heloc 40 --preset --strict

bench: deps
	$(CARGO) bench

lint:
	$(CARGO) fmt --check
	$(CARGO) clippy --release --all-targets -- -D warnings
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --no-deps

# Fuzzing (fuzz/): every target asserts that no call ends in CFX_STATUS_PANIC
# and compares round trips value by value. cargo-fuzz needs nightly flags;
# RUSTC_BOOTSTRAP lets the stable toolchain accept them. The committed seeds
# (fuzz/seeds/<target>) and recorded failures (fuzz/regressions/<target>) are
# only read; what the fuzzer finds goes to target/fuzz-corpus/<target>. The
# bodies live in fuzz/bodies and `cargo test` (tests/fuzz_corpus.rs) replays
# every seed and regression through them, and tests/fuzz_bounded.rs runs a
# seeded, bounded, coverage-blind mutation run of every target (a fixed count
# of mutants, about 10-15 s each; CFX_FUZZ_ITERATIONS, CFX_FUZZ_SEED), so
# `make test` needs no fuzz build: the build alone does not fit the CI budget
# (BENCHMARKS.md, "What the fuzz build costs"). `make fuzz` is the coverage-guided libFuzzer run.
FUZZ_TARGETS := json_and_encoding model_prediction policy_json csv_reading uncertainty schema_builder \
  scorecard_import tree_import
FUZZ_SECONDS ?= 120
FUZZ_SMOKE_SECONDS ?= 20

fuzz-install:
	@command -v cargo-fuzz >/dev/null 2>&1 || $(CARGO) install --locked cargo-fuzz

fuzz: deps fuzz-install
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p target/fuzz-corpus/$$t; \
	  RUSTC_BOOTSTRAP=1 $(CARGO) fuzz run $$t $(CURDIR)/target/fuzz-corpus/$$t $(CURDIR)/fuzz/seeds/$$t \
	    $$(test -d fuzz/regressions/$$t && echo $(CURDIR)/fuzz/regressions/$$t) \
	    -- -max_total_time=$(FUZZ_SECONDS) || exit 1; \
	done

# A bounded run of every target (FUZZ_SMOKE_SECONDS each, default 20 s).
fuzz-smoke: deps fuzz-install
	RUSTC_BOOTSTRAP=1 $(CARGO) fuzz build
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p target/fuzz-corpus/$$t; \
	  RUSTC_BOOTSTRAP=1 $(CARGO) fuzz run $$t $(CURDIR)/target/fuzz-corpus/$$t $(CURDIR)/fuzz/seeds/$$t \
	    $$(test -d fuzz/regressions/$$t && echo $(CURDIR)/fuzz/regressions/$$t) \
	    -- -max_total_time=$(FUZZ_SMOKE_SECONDS) || exit 1; \
	done
