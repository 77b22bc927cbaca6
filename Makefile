# The two commands of the README's quick start, and what they need.
#   make demo   install, then run the headline experiment
#   make test   install, then run every check and test (Rust and Python), and the
#               installed wheel from outside the source tree (scripts/check-wheel.sh)

VENV ?= .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin

.PHONY: install demo test bench system-deps

system-deps:
	bash scripts/install-system-deps.sh

$(VENV)/.deps: pyproject.toml | system-deps
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip maturin
	$(PY) -m pip install -q -e ".[test]"
	touch $@

# Rebuilds the Rust extension incrementally after source changes.
install: $(VENV)/.deps
	$(BIN)/maturin develop --release -q

demo: install
	$(BIN)/airtcp demo

test: install
	bash scripts/install-system-deps.sh --test
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings
	cargo test --workspace
	$(BIN)/ruff format --check python tests bench
	$(BIN)/ruff check python tests bench
	$(PY) -m pytest -q
	bash scripts/check-wheel.sh

bench: install
	$(PY) bench/sim_speed.py
	$(PY) bench/sweep_speed.py
	$(PY) bench/memory.py
	$(PY) bench/scale.py
	$(PY) bench/startup.py
	$(PY) bench/asymmetric.py
	$(PY) bench/tcp_variants.py
	$(PY) bench/emu_link.py
	$(PY) bench/emu_bss.py
	$(PY) bench/ns3_compare.py --upload  # ns-3 in its own venv: NS3_PYTHON=.../bin/python
	$(PY) bench/ns3_spatial.py
