# Everything runs inside a local virtual environment (.venv) built from pyproject.toml.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install demo test bench report clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[test]"
	@# bytecode for every installed module, also where PYTHONDONTWRITEBYTECODE is set (fast start-up)
	$(BIN)/python -m compileall -q -j 0 $(VENV)/lib > /dev/null || true
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/musstats odds R R 3 A --seat mano

test: $(STAMP)
	$(BIN)/python -m mypy musstats
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python scripts/bench_exact.py

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
