# cfx — build, test and demo entry points.
# `make demo` and `make test` each do their own set-up through `deps`,
# so on a fresh Debian machine either command alone is enough.

CBINDGEN_VERSION := 0.29.4
APT_PACKAGES := cmake g++ pkg-config libclang-dev libopenblas-dev libgfortran-12-dev valgrind \
  openjdk-17-jdk-headless junit5 mono-mcs mono-runtime r-base-dev r-cran-testthat
DATA ?= german
EXPERIMENTS := robustness_tradeoff plans_under_shift sequential_policies
CARGO ?= cargo
export PATH := $(HOME)/.cargo/bin:$(PATH)

.PHONY: deps deps-apt deps-cbindgen build header demo test experiments bench fuzz fuzz-install fuzz-smoke lint

deps: deps-apt deps-cbindgen

# Install only the Debian packages that are missing (idempotent).
deps-apt:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

# A pinned cbindgen: different releases format headers differently.
deps-cbindgen:
	@if ! cbindgen --version 2>/dev/null | grep -q '$(CBINDGEN_VERSION)'; then \
	  $(CARGO) install --locked cbindgen --version $(CBINDGEN_VERSION); \
	fi

build: deps
	$(CARGO) build --release

test: deps
	$(CARGO) test --release
	bash bindings/java/run-tests.sh
	bash bindings/csharp/run-tests.sh
	bash bindings/r/run-tests.sh

demo: deps
	$(CARGO) run --release --example credit_recourse -- $(DATA)
	$(CARGO) run --release --example sequential_demo -- $(DATA)

# Regenerates the committed C header with the pinned cbindgen (tests/header.rs fails on drift).
header: deps-cbindgen
	cbindgen --config cbindgen.toml --crate cfx --output include/cfx.h

# Paper reproductions and long runs (not part of `make test`).
experiments: deps
	@for ex in $(EXPERIMENTS); do \
	  if [ -f examples/$$ex.rs ]; then $(CARGO) run --release --example $$ex || exit 1; fi; \
	done

bench: deps
	$(CARGO) bench

lint:
	$(CARGO) fmt --check
	$(CARGO) clippy --release --all-targets -- -D warnings
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --no-deps

# Fuzzing (fuzz/): every target asserts that no call ends in CFX_STATUS_PANIC
# and compares round trips value by value. cargo-fuzz needs nightly flags;
# RUSTC_BOOTSTRAP lets the stable toolchain accept them. The committed seeds
# (fuzz/seeds/<target>) are only read; what the fuzzer finds goes to
# target/fuzz-corpus/<target>.
FUZZ_TARGETS := json_and_encoding model_prediction policy_json csv_reading uncertainty schema_builder
FUZZ_SECONDS ?= 120
FUZZ_SMOKE_SECONDS ?= 20

fuzz-install:
	@command -v cargo-fuzz >/dev/null 2>&1 || $(CARGO) install --locked cargo-fuzz

fuzz: deps fuzz-install
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p target/fuzz-corpus/$$t; \
	  RUSTC_BOOTSTRAP=1 $(CARGO) fuzz run $$t $(CURDIR)/target/fuzz-corpus/$$t $(CURDIR)/fuzz/seeds/$$t \
	    -- -max_total_time=$(FUZZ_SECONDS) || exit 1; \
	done

# A bounded run of every target (FUZZ_SMOKE_SECONDS each, default 20 s).
fuzz-smoke: deps fuzz-install
	RUSTC_BOOTSTRAP=1 $(CARGO) fuzz build
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p target/fuzz-corpus/$$t; \
	  RUSTC_BOOTSTRAP=1 $(CARGO) fuzz run $$t $(CURDIR)/target/fuzz-corpus/$$t $(CURDIR)/fuzz/seeds/$$t \
	    -- -max_total_time=$(FUZZ_SMOKE_SECONDS) || exit 1; \
	done
