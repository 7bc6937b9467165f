"""musstats plot: every kind writes a non-empty image of the requested size; the data behind
the charts against hand calculation, docs/rules.md and the golden fractions of tests/naive.py;
bad input; atomic writes; the user's matplotlib backend is left alone."""

from __future__ import annotations

import json
import os
import re
from math import comb
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import make_golden
import naive
from helpers import assert_exit2_one_line, run_cli as _run
from musstats.analysis.convergence import convergence_data
from musstats.analysis.game import game_model
from musstats.analysis.odds import odds
from musstats.analysis.table import strategy_table
from musstats.analysis.totals import totals_distribution
from musstats.base.errors import MusError
from musstats.output import plots
from musstats.rules.variant import Variant


@pytest.fixture(scope="module")
def model():
    return game_model(Variant(), deals=100_000, seed=2, cache=False)


@pytest.fixture(scope="module")
def table(model):
    return strategy_table("8-reyes", hands=8, trials=500, seed=3, model=model).to_frame()


@pytest.fixture(scope="module")
def table_csv(table, tmp_path_factory):
    from musstats.output.files import write_frame

    return str(write_frame(table, tmp_path_factory.mktemp("tab") / "t.csv"))


def png_size(path) -> tuple[int, int]:
    with Image.open(path) as im:
        im.load()
        return im.size


def svg_size_pt(path) -> tuple[float, float]:
    head = open(path, encoding="utf-8").read(2000)
    assert head.startswith("<?xml") and "<svg" in head
    m = re.search(r'<svg[^>]*width="([\d.]+)pt" height="([\d.]+)pt"', head)
    return float(m.group(1)), float(m.group(2))


def pdf_size_pt(path) -> tuple[float, float]:
    data = open(path, "rb").read()
    assert data.startswith(b"%PDF-") and data.rstrip().endswith(b"%%EOF")
    m = re.search(rb"/MediaBox \[ *0 0 ([\d.]+) ([\d.]+) *\]", data)
    return float(m.group(1)), float(m.group(2))


# --------------------------------------------------------------------------- every kind, API

def _figures(model, table):
    v = Variant()
    yield "hand", lambda sz: plots.plot_hand(odds("R R 3 A", "mano"), size=sz)
    yield "hand-mc", lambda sz: plots.plot_hand(odds("R C 7 A", "postre", method="mc", trials=20_000, seed=1), size=sz)
    yield "heatmap", lambda sz: plots.plot_heatmap(table, "pares", v, size=sz)
    yield "totals", lambda sz: plots.plot_totals(totals_distribution(v), size=sz)
    yield "totals-keep", lambda sz: plots.plot_totals(totals_distribution(v, cards="R R 7 A", keep="R R"), size=sz)
    yield "convergence", lambda sz: plots.plot_convergence(
        convergence_data("R R 3 A", "mano", lance="juego", trials=5000, seed=2, points=5), size=sz)
    yield "mus", lambda sz: plots.plot_mus(table, v, size=sz)
    yield "game", lambda sz: plots.plot_game(model, size=sz)


def test_every_kind_png_of_requested_size(model, table, tmp_path):
    import matplotlib

    backend = matplotlib.get_backend()
    for (name, make), (w, h) in zip(_figures(model, table), [(640, 480), (1000, 667), (1234, 567), (800, 800),
                                                            (333, 777), (1600, 900), (900, 700), (1001, 501)]):
        path = plots.save_figure(make(plots.figure_size(size=f"{w}x{h}")), tmp_path / f"{name}.png")
        assert path.stat().st_size > 5000, name
        assert png_size(path) == (w, h), name
    assert sorted(os.listdir(tmp_path)) == sorted(f"{n}.png" for n, _ in _figures(model, table))
    assert matplotlib.get_backend() == backend  # plotting never switches the user's backend


def test_svg_and_pdf_physical_size(model, table, tmp_path):
    sz = plots.figure_size(width=8, height=5)
    svg = plots.save_figure(plots.plot_game(model, size=sz), tmp_path / "g.svg")
    assert svg_size_pt(svg) == (8 * 72, 5 * 72)
    pdf = plots.save_figure(plots.plot_heatmap(table, "grande", size=sz), tmp_path / "h.pdf")
    assert pdf_size_pt(pdf) == (8 * 72, 5 * 72)
    # pixels at a dpi: 1500x900 at 150 dpi = 10 x 6 in
    png = plots.save_figure(plots.plot_totals(totals_distribution(), size=plots.figure_size(
        size="1500x900", dpi=150)), tmp_path / "t.png")
    assert png_size(png) == (1500, 900)


def test_figure_size_rules():
    assert plots.figure_size() == (12.0, 7.0, 100.0)
    assert plots.figure_size(size="1200x800") == (12.0, 8.0, 100.0)
    assert plots.figure_size(width=5, height=3, dpi=200) == (5.0, 3.0, 200.0)
    for kw in ({"size": "12x8"}, {"size": "big"}, {"size": "800x600", "width": 3}, {"width": -1},
               {"width": 0.5}, {"dpi": 0}):
        with pytest.raises(MusError):
            plots.figure_size(**kw)


# --------------------------------------------------------------------------- data behind the charts

def test_totals_deck_matches_rules_reference():
    d = totals_distribution("8-reyes")
    assert d.sum() == pytest.approx(1.0)
    # docs/rules.md reference figures: juego 26.75 %, 31 9.17 %, punto 30 3.31 %
    assert d[d.index >= 31].sum() == pytest.approx(0.2675, abs=5e-5)
    assert d[31] == pytest.approx(0.0917, abs=5e-5)
    assert d[30] == pytest.approx(0.0331, abs=5e-5)
    assert 38 not in d.index and 39 not in d.index  # cannot occur
    # 40 points with 8 reyes: four cards of 10 points out of 16 (R x8, C, S): C(16,4) / C(40,4)
    assert d[40] == pytest.approx(comb(16, 4) / comb(40, 4))


def test_totals_after_discard_by_hand():
    # keep R R R of R R R A (8 reyes): one card from the 36 unseen: 5 R, 4 C, 4 S -> 40; 7 A -> 31
    d = totals_distribution("8-reyes", cards="R R R A", keep="R R R")
    assert d[40] == pytest.approx(13 / 36) and d[31] == pytest.approx(7 / 36)
    assert d[37] == pytest.approx(4 / 36) and d.sum() == pytest.approx(1.0)
    # 4 reyes, keep R R of R R 7 A; draw 2 from 36 (2 R, 4 C, 4 S, 3 7s, 3 As, 4 each of 6..2)
    d = totals_distribution("4-reyes", cards="R R 7 A", keep="R R")
    # 40 = two more 10-point cards: 10 of them left -> C(10,2) / C(36,2)
    assert d[40] == pytest.approx(comb(10, 2) / comb(36, 2))
    # 31 = 20 + 11: 10-point + A (10·3), 7 + 4 (3·4), 6 + 5 (4·4)
    assert d[31] == pytest.approx((10 * 3 + 3 * 4 + 4 * 4) / comb(36, 2))
    # throwing all four: the dealt-hand distribution of the 36 other cards
    d = totals_distribution("8-reyes", cards="R R R R", keep="none")
    assert d.sum() == pytest.approx(1.0) and d[40] == pytest.approx(comb(12, 4) / comb(36, 4))


def test_totals_bad_input():
    with pytest.raises(MusError, match="--keep"):
        totals_distribution(cards="R R 7 A")
    with pytest.raises(MusError, match="at most 3"):
        totals_distribution(cards="R R 7 A", keep="R R 7 A")
    with pytest.raises(MusError, match="not part of the hand"):
        totals_distribution(cards="R R 7 A", keep="C")
    with pytest.raises(MusError):
        totals_distribution(keep="R")


def _golden_p_team(hand: str, seat: int, lance: str) -> float:
    """P(team) of ``lance`` from the golden fractions of the slow reference (tests/naive.py)."""
    doc = json.loads(Path(make_golden.GOLDEN).read_text(encoding="utf-8"))
    case = next(c for c in doc["cases"] if c["hand"] == hand and c["deck"] == "8-reyes" and not c["dead"]
                and not c["declared"] and not c["signal"] and c["juego_real"] == "off")
    return float(naive.fractions_from_json(case["odds"])[seat][lance]["p_team"])


def test_convergence_agrees_with_exact():
    df = convergence_data("R R 3 A", "mano", lance="pares", trials=20_000, seed=4, points=4)
    assert df["trials"].iloc[-1] == 20_000 and df["trials"].is_monotonic_increasing
    # the exact P(team) at pares of R R 3 A at mano, from the independent reference
    assert df.attrs["exact"] == pytest.approx(_golden_p_team("R R 3 A", 0, "pares"), abs=1e-12)
    last = df.iloc[-1]
    assert abs(last["p_team"] - df.attrs["exact"]) < 4 * last["se"]
    assert (np.diff(df["se"]) < 0).all()
    assert df.attrs["lance"] == "pares" and df.attrs["seat"] == "mano" and df.attrs["seed"] == 4


def test_heatmap_order_and_grid(table):
    v = Variant()
    # grande: the hand index is already grande order (R R R R first)
    assert plots.hand_order(v, "grande", [5, 0, 3]) == [0, 3, 5]
    # chica: A A A A is the best chica hand
    from musstats.tables.hands import hand_tables

    t = hand_tables(v)
    best_chica = plots.hand_order(v, "chica", range(t.n_hands))[0]
    assert t.labels[best_chica] == "A A A A"
    best_juego = plots.hand_order(v, "juego", range(t.n_hands))[0]
    assert t.points[best_juego] == 31
    grid, seats = plots._seat_grid(table, "p_team_grande", list(range(8)))
    assert seats == ["mano", "second", "third", "postre"] and grid.shape == (4, 8)
    assert grid[0, 0] == 1.0  # R R R R at mano: grande is won for sure


def test_save_failure_keeps_previous_image(tmp_path, monkeypatch):
    from matplotlib.figure import Figure

    target = tmp_path / "x.png"
    plots.save_figure(plots.plot_totals(totals_distribution()), target)
    before = target.read_bytes()

    def broken(self, fname, *a, **k):
        with open(fname, "wb") as f:
            f.write(b"\x89PNG half")
        raise RuntimeError("disk full")

    monkeypatch.setattr(Figure, "savefig", broken)
    with pytest.raises(RuntimeError):
        plots.save_figure(plots.plot_totals(totals_distribution()), target)
    assert target.read_bytes() == before
    assert os.listdir(tmp_path) == ["x.png"]


# --------------------------------------------------------------------------- CLI


def test_cli_every_kind(capsys, tmp_path, table_csv):
    cases = [
        ["hand", "R", "R", "3", "A", "--seat", "postre"],
        ["hand", "RC7A", "--method", "mc", "--trials", "20000", "--seed", "3"],
        ["heatmap", "--lance", "juego", "--hands", "6", "--quiet"],
        ["heatmap", "--lance", "chica", "--table", table_csv],
        ["totals"],
        ["totals", "R", "R", "7", "A", "--keep", "R", "R"],
        ["convergence", "R", "R", "3", "A", "--lance", "grande", "--trials", "4000"],
        ["mus", "--table", table_csv],
        ["game", "--target", "30", "--deals", "50000", "--seed", "3"],
    ]
    for i, args in enumerate(cases):
        out = tmp_path / f"c{i}.png"
        code, _, err = _run(capsys, ["plot", *args, "--out", str(out), "--size", "900x600"])
        assert code == 0, (args, err)
        assert png_size(out) == (900, 600), args
        assert "wrote" in err
    code, _, err = _run(capsys, ["plot", "totals", "--out", str(tmp_path / "t.svg"), "--width", "5",
                                 "--height", "4"])
    assert code == 0, err
    assert svg_size_pt(tmp_path / "t.svg") == (360, 288)
    code, _, err = _run(capsys, ["plot", "game", "--deals", "50000", "--out", str(tmp_path / "g.pdf"),
                                 "--size", "1000x500", "--dpi", "50"])
    assert code == 0, err
    assert pdf_size_pt(tmp_path / "g.pdf") == (1440, 720)


@pytest.mark.parametrize("args,what", [
    (["totals", "--out", "x.gif"], "accepted: FILE.png"),
    (["totals", "--out", "/nonexistent-dir/x.png"], "does not exist"),
    (["totals", "--out", "x.png", "--size", "wide"], "--size"),
    (["totals", "--out", "x.png", "--size", "800x600", "--height", "3"], "not both"),
    (["heatmap", "--lance", "envido", "--out", "x.png"], "unknown lance"),
    (["hand", "R", "R", "X", "A", "--out", "x.png"], "unknown card"),
    (["totals", "R", "R", "7", "A", "--out", "x.png"], "--keep"),
    (["mus", "--table", "missing.csv", "--out", "x.png"], "no such table"),
    (["heatmap", "--lance", "grande", "--table", "TABLE", "--variant", "4-reyes", "--out", "x.png"],
     "does not match"),
])
def test_cli_bad_input(capsys, tmp_path, monkeypatch, table_csv, args, what):
    monkeypatch.chdir(tmp_path)
    args = [table_csv if a == "TABLE" else a for a in args]
    assert_exit2_one_line(capsys, ["plot", *args], what)
    assert os.listdir(tmp_path) == []


def test_cli_game_target_reaches_the_model(capsys, tmp_path, monkeypatch):
    seen = {}
    real = plots.plot_game

    def spy(model, *a, **k):
        seen["target"] = model.target
        return real(model, *a, **k)

    monkeypatch.setattr(plots, "plot_game", spy)
    code, _, err = _run(capsys, ["plot", "game", "--target", "30", "--deals", "50000",
                                 "--out", str(tmp_path / "g.png")])
    assert code == 0, err
    assert seen["target"] == 30


# --------------------------------------------------------------------------- legibility

def test_hand_chart_stacks_its_panels_in_a_portrait_figure():
    res = odds("R R 3 A", "mano")
    tall = plots.plot_hand(res, size=plots.figure_size(size="340x460"))
    top, bottom = (ax.get_position() for ax in tall.axes[:2])
    assert bottom.y1 <= top.y0  # one above the other: each as wide as a phone
    wide = plots.plot_hand(res, size=plots.figure_size(size="1000x560"))
    left, right = (ax.get_position() for ax in wide.axes[:2])
    assert left.x1 <= right.x0  # side by side
    for fig in (tall, wide):  # readable text: nothing under 8 points
        fig.canvas.draw()
        sizes = [t.get_fontsize() for ax in fig.axes for t in ax.texts + ax.get_xticklabels() if t.get_text()]
        assert min(sizes) >= 8


def test_quantile_bounds_give_each_band_its_share():
    x = np.arange(1000) / 10.0
    b = plots.quantile_bounds(x, bands=10)
    assert (np.diff(b) > 0).all() and b[0] <= x.min() and b[-1] >= x.max()
    counts, _ = np.histogram(x, bins=b)
    assert counts.min() >= 90 and counts.max() <= 110  # about a tenth each
    # grande-like values: most hands within a few points: the bands follow them, not 0-100
    y = np.concatenate([np.full(280, 33.3) + np.linspace(0, 3, 280), np.linspace(40, 100, 50)])
    b = plots.quantile_bounds(y, bands=12)
    assert (b < 37).sum() >= 8  # most bands where most values are
    assert plots.quantile_bounds(np.full(5, 50.0)).tolist() == [49.5, 50.5]  # one value: one band


def test_heatmap_colours_separate_hands_a_linear_scale_paints_alike(table):
    # the 8 strongest hands at grande win it nearly always: within a few points of 100 %, one colour on a
    # 0-100 % scale; the equal-count bands give them several
    fig = plots.plot_heatmap(table, "grande", Variant())
    im = fig.axes[0].images[0]
    data = im.get_array()
    assert np.nanmin(data) > 90
    colours = {tuple(np.round(c, 3)) for c in im.to_rgba(data).reshape(-1, 4)}
    import matplotlib

    linear = {tuple(np.round(c, 3)) for c in matplotlib.colormaps[plots.CMAP](np.asarray(data).ravel() / 100.0)}
    assert len(colours) >= 8 and len(colours) >= 2 * len(linear), (len(colours), len(linear))
    # the seat effect: centred on zero, the seats' differences around each hand's mean
    effect = fig.axes[1].images[0]
    e = np.asarray(effect.get_array())
    assert np.allclose(np.nansum(e, axis=0), 0, atol=1e-9)
    assert effect.norm(0.0) == pytest.approx(0.5)


def _pushfold_frame():
    import pandas as pd
    from musstats.tables.hands import hand_tables

    v = Variant()
    t = hand_tables(v)
    order = plots.hand_order(v, "grande", range(t.n_hands))
    rows = []
    for seat in ("mano", "second", "third", "postre"):
        for rank, h in enumerate(order):
            call = 1.0 if (seat == "postre" and rank < 3) else 0.3 if (seat == "postre" and rank == 3) else 0.0
            accept = 1.0 if rank < 10 else 0.02 if rank == 200 else 0.0
            rows.append({"seat": seat, "hand": t.labels[h], "hand_index": h, "p_call": call, "p_accept": accept})
    df = pd.DataFrame(rows)
    df.attrs.update({"variant": "8-reyes", "lance": "grande", "score": {"us": 0, "them": 0, "target": 40},
                     "iterations": 10, "nashconv": {"nashconv": 0.001}, "deal": "as-dealt",
                     "call_node": {"second": "paso"}, "answer_node": {"second": "órdago"}})
    return df, order, t


def test_pushfold_chart_lists_the_hands_that_play_in_large_cells(tmp_path):
    df, order, t = _pushfold_frame()
    listed, rest = plots.pushfold_rows(df, Variant(), "grande")
    assert listed == order[:10]  # the hands someone plays 5 % of the time or more, the strongest first
    assert len(rest) == len(order) - 10 and order[200] in rest  # 2 % is not "plays"
    fig = plots.plot_pushfold_chart(df)
    w, h = fig.get_size_inches() * fig.dpi
    assert w <= 1600 and h <= 1100
    tab = fig.axes[2]
    fig.canvas.draw()
    rows = len(tab.get_yticklabels())
    assert rows == 11 and "320" in tab.get_yticklabels()[-1].get_text()
    height_px = tab.get_window_extent().height / rows
    assert height_px >= 20  # a cell a player can read
    texts = {(round(x.get_position()[1]), round(x.get_position()[0])): x.get_text() for x in tab.texts}
    assert texts[(3, 3)] == "30"  # postre calls with the 4th hand 30 % of the time
    assert texts[(0, 4)] == "100" and texts[(10, 4)] == "≤2"  # the other hands: at most 2 %
    assert min(x.get_fontsize() for x in tab.texts) >= 6.5
    path = plots.save_figure(fig, tmp_path / "pf.png")
    assert png_size(path) == (1400, 1000)
