# cfx — build, test and demo entry points.
# `make demo` and `make test` each do their own set-up through `deps`,
# so on a fresh Debian machine either command alone is enough.

CBINDGEN_VERSION := 0.29.4
APT_PACKAGES := cmake g++ pkg-config libclang-dev libopenblas-dev libgfortran-12-dev valgrind \
  openjdk-17-jdk-headless junit5 mono-mcs mono-runtime r-base-dev r-cran-testthat python3-venv
DATA ?= german
EXPERIMENTS := robustness_tradeoff plans_under_shift sequential_policies
CARGO ?= cargo
export PATH := $(HOME)/.cargo/bin:$(PATH)

.PHONY: deps deps-apt deps-cbindgen build header demo test experiments bench fuzz lint peers-trees

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

# The XGBoost and LightGBM HELOC models and their margins that the tree tests
# read from target/peers (own venv in benches/peers/.venv-trees, pinned from PyPI).
peers-trees:
	python3 benches/peers/trees_train.py

test: deps peers-trees
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

# Bounded fuzzing of schema/model JSON loading and encode/decode through the C ABI
# (not in CI). cargo-fuzz needs nightly flags; RUSTC_BOOTSTRAP lets the stable
# toolchain accept them.
FUZZ_SECONDS ?= 120
fuzz: deps
	@command -v cargo-fuzz >/dev/null 2>&1 || $(CARGO) install --locked cargo-fuzz
	RUSTC_BOOTSTRAP=1 $(CARGO) fuzz run json_and_encoding -- -max_total_time=$(FUZZ_SECONDS)
