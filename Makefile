# Everything runs inside a local virtual environment (.venv) built from pyproject.toml.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install warm-up demo test bench bench-commands report clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[test]"
	@# bytecode for every installed module, also where PYTHONDONTWRITEBYTECODE is set (fast start-up)
	$(BIN)/python -m compileall -q -j 0 $(VENV)/lib musstats > /dev/null || true
	@# every command once on a small input: numba compiles and caches its kernels, matplotlib its
	@# fonts, and the default tables a first run needs go to the disk cache (scripts/warm_up.py)
	$(BIN)/python scripts/warm_up.py --quiet
	touch $(STAMP)

install: $(STAMP)

# the install's warm-up again (e.g. after the kernels changed, or to fill a new cache folder)
warm-up: $(STAMP)
	$(BIN)/python scripts/warm_up.py

demo: $(STAMP)
	$(BIN)/musstats odds R R 3 A --seat mano

# two processes (the 2-core machine), each test file in one of them (its module fixtures computed once)
test: $(STAMP)
	$(BIN)/python -m mypy musstats
	$(BIN)/python -m pytest -q -n 2 --dist loadfile

bench: $(STAMP)
	$(BIN)/python scripts/bench_exact.py

# every command cold (first run after the install step, fresh clones) and warm: docs/benchmarks.md
bench-commands: $(STAMP)
	$(BIN)/python scripts/bench_commands.py

# The Markdown report under reports/ (strategy tables and charts, 8 and 4 reyes), rebuilt from
# scratch with fixed seeds.  `make report` always rebuilds; `make reports/README.md` only when an
# input (the package, its discard tables, the script) changed.
REPORT_DEPS := scripts/make_report.py $(wildcard musstats/*.py musstats/*/*.py musstats/*/*/*.py musstats/data/*.npz)

report: $(STAMP)
	$(BIN)/python scripts/make_report.py --out-dir reports

reports/README.md: $(STAMP) $(REPORT_DEPS)
	$(BIN)/python scripts/make_report.py --out-dir reports

clean:
	rm -rf $(VENV) build *.egg-info
