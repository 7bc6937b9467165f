"""The report build (scripts/make_report.py → musstats.output.report), restricted to a few hands."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from PIL import Image

from helpers import check_one_line_error
from musstats.analysis.game import game_model
from musstats.analysis.table import strategy_table
from musstats.output import report
from musstats.output.files import read_frame
from musstats.rules.variant import Variant

ROOT = os.path.join(os.path.dirname(__file__), "..")
SMALL = dict(hands="R R R A, 7 7 A A, R C 6 4", trials=500, seed=5, game_deals=100_000, example_trials=5000,
             arena={"hands": 4000, "games": 40, "seed": 1}, convergence={"iterations": 100, "every": 50, "team": False})


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    (out / "img").mkdir()
    (out / "img" / "stale.png").write_bytes(b"old")
    (out / "table-old.csv").write_text("old\n")
    timings = report.build_report(out, ("8-reyes", "4-reyes"), **SMALL)
    return out, timings


def test_files_and_links(built):
    out, timings = built
    assert not (out / "img" / "stale.png").exists() and not (out / "table-old.csv").exists()
    text = (out / "README.md").read_text(encoding="utf-8")
    assert text.startswith("# musstats report")
    assert "## 8-reyes" in text and "## 4-reyes" in text
    links = re.findall(r"\]\(((?:img/|table-)[^)]+)\)", text)
    assert len(links) >= 2 * 11
    for rel in links:
        p = out / rel
        assert p.is_file() and p.stat().st_size > 0, rel
        if rel.endswith(".png"):
            with Image.open(p) as im:
                assert im.size == (1200, 600), rel
    # a summary table per seat and variant
    assert text.count("<details><summary>") == 8
    for seat in ("Mano", "Segundo", "Tercero", "Postre"):
        assert f"<summary>{seat}" in text
    assert set(timings) >= {"8-reyes table", "4-reyes table", "total"}
    # the betting section: the arena against every other strategy set, the game with betting
    assert "### The arena" in text and "### The game with betting" in text
    # the value gap of the two information models, one row per subgame (21), read from the shipped files
    gap = text.split("### Private against pooled information")[1].split("###")[0]
    assert len(re.findall(r"^\| (?:grande|chica|pares|juego|punto) \|", gap, flags=re.M)) == 21
    for b in ("paso", "heuristic", "random"):
        assert re.search(rf"\| equilibrium \| {b} \| [+-]\d\.\d{{3}} ± \d\.\d{{3}} \| \d+\.\d ± \d+\.\d % \|", text), b
    assert re.search(r"\| 0-0 \| 5\d\.\d % \| 5\d\.\d % \|", text)  # mano's team is favoured from 0-0
    # the report links to the rules the project implements, inside the project
    (rules,) = set(re.findall(r"\]\(([^)]*rules\.md)\)", text))
    assert (Path(ROOT) / "reports" / rules).resolve() == (Path(ROOT) / "musstats" / "docs" / "rules.md").resolve()
    assert (Path(ROOT) / "musstats" / "docs" / "rules.md").is_file()


def test_csv_is_the_strategy_table(built):
    out, _ = built
    text = (out / "table-8-reyes.csv").read_text(encoding="utf-8")
    assert text.startswith("# variant: \"8-reyes\"\n")  # the run's metadata in '#' lines
    csv = read_frame(out / "table-8-reyes.csv")
    model = game_model(Variant(), deals=SMALL["game_deals"], seed=report.GAME_SEED, cache=False)
    ref = strategy_table("8-reyes", hands=SMALL["hands"], trials=SMALL["trials"], seed=SMALL["seed"],
                         model=model).to_frame()
    pd.testing.assert_frame_equal(csv, ref, check_exact=False, rtol=0, atol=5e-7)
    assert len(read_frame(out / "table-4-reyes.csv")) == 3 * 4


def test_seat_table_rows_match_csv(built):
    out, _ = built
    text = (out / "README.md").read_text(encoding="utf-8")
    csv = read_frame(out / "table-8-reyes.csv")
    row = csv[(csv["hand"] == "7 7 A A") & (csv["seat"] == "postre")].iloc[0]
    section = text.split("<summary>Postre — 8-reyes</summary>")[1].split("</details>")[0]
    line = next(ln for ln in section.splitlines() if ln.startswith("| 7 7 A A |"))
    cells = [c.strip() for c in line.strip("|").split("|")]
    assert cells[1] == f"{100 * row['deal_freq']:.3f} %"
    assert cells[2] == f"{100 * row['p_team_grande']:.1f} %"
    assert cells[7] == f"{row['ev_net_total']:+.3f}"
    assert cells[8] == row["best_keep"]


def test_rebuild_is_identical(built, tmp_path):
    out, _ = built
    report.build_report(tmp_path, ("8-reyes",), **SMALL)
    for rel in ["table-8-reyes.csv"] + sorted(f"img/{p}" for p in os.listdir(tmp_path / "img")):
        assert (tmp_path / rel).read_bytes() == (out / rel).read_bytes(), rel
    # 10 charts of the deck, plus the betting section's 4 heatmaps and its convergence chart
    assert sorted(os.listdir(tmp_path / "img")) == sorted(
        [f"8-reyes-{k}.png" for k in ("hand", "convergence", "game", "mus", "totals", "totals-keep")]
        + [f"8-reyes-heatmap-{lance}.png" for lance in ("grande", "chica", "pares", "juego")]
        + [f"betting-{lance}.png" for lance in ("grande", "chica", "pares", "juego")] + ["betting-convergence.png"])


def test_script_bad_input(tmp_path):
    r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "make_report.py"), "--out-dir",
                        str(tmp_path), "--variants", "8-reyes", "--hands", "0", "--quiet"],
                       capture_output=True, text=True, timeout=120)
    line = check_one_line_error(r.returncode, "", r.stderr, "--hands", prog="make_report")
    assert line.startswith("make_report: error: --hands")
    assert not (tmp_path / "README.md").exists()


def test_an_interrupted_build_leaves_the_folder_as_it_was(tmp_path, monkeypatch):
    # the report is built aside and moved into place at the end: a Ctrl-C in the middle (here
    # while the charts of the first variant are drawn) leaves the earlier report whole
    from musstats.output import plots

    (tmp_path / "img").mkdir()
    before = {"README.md": b"# an earlier report\n", "table-8-reyes.csv": b"old\n", "img/8-reyes-mus.png": b"png"}
    for rel, data in before.items():
        (tmp_path / rel).write_bytes(data)

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(plots, "plot_game", interrupted)
    with pytest.raises(KeyboardInterrupt):
        report.build_report(tmp_path, ("8-reyes",), **{**SMALL, "hands": "R R R A"})
    files = {str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file()}
    assert files == set(before) and not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
    for rel, data in before.items():
        assert (tmp_path / rel).read_bytes() == data
