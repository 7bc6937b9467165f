"""The strategy table (musstats table): numbers against the engines, formats, atomic writes, CLI.

Expected values come from the engines' own entry points (exact_table, lance_probability,
best_discards), from RULES.md or from hand calculation (card combinations).
"""

from __future__ import annotations

import json
import math
import os
from math import comb

import numpy as np
import pandas as pd
import pytest

from musstats.rules.cards import parse_hand
from musstats.base.errors import MusError
from musstats.engines.exact import exact_table
from musstats.analysis.game import game_model
from musstats.base.files import atomic_write_text, read_frame, write_frame
from musstats.analysis.table import COLUMNS, parse_hands, strategy_table
from musstats.rules.variant import Variant
from helpers import run_cli as _run  # noqa: E402


@pytest.fixture(scope="module")
def model8():
    return game_model(Variant(), deals=200_000, seed=3, cache=False)


@pytest.fixture(scope="module")
def small(model8):
    """Three hands at every seat, 8 reyes."""
    return strategy_table("8-reyes", hands="R R R A, 7 7 A A, R C 6 4", trials=4000, seed=11, model=model8)


@pytest.fixture(scope="module")
def full(model8):
    """Every 8-reyes hand at every seat (the discard part is skipped: 1 deal per keep-set)."""
    return strategy_table("8-reyes", seats="all", trials=1, seed=1, model=model8)


@pytest.fixture(scope="module")
def full_mano(full):
    return full[full["seat"] == "mano"].reset_index(drop=True)


def test_layout(small):
    assert list(small.columns) == COLUMNS
    assert len(small) == 3 * 4
    assert list(small["seat"][:4]) == ["mano", "second", "third", "postre"]
    assert list(small["hand"][::4]) == ["R R R A", "7 7 A A", "R C 6 4"]  # the order asked for
    assert small.attrs["discard"]["trials_per_keep_set"] == 4000


def test_odds_equal_exact_table(small):
    v = Variant()
    for hand in ("R R R A", "7 7 A A", "R C 6 4"):
        for seat_i, seat in enumerate(("mano", "second", "third", "postre")):
            row = small[(small["hand"] == hand) & (small["seat"] == seat)].iloc[0]
            ref = exact_table(parse_hand(hand), seat_i, v)  # [lance, (p_team p_self p_played p_contested ev_net)]
            for li, lance in enumerate(("grande", "chica", "pares", "juego", "punto")):
                assert row[f"p_team_{lance}"] == pytest.approx(ref[li, 0], abs=1e-12)
                assert row[f"p_self_{lance}"] == pytest.approx(ref[li, 1], abs=1e-12)
                assert row[f"ev_net_{lance}"] == pytest.approx(ref[li, 4], abs=1e-12)
            assert row["ev_net_total"] == pytest.approx(ref[:, 4].sum(), abs=1e-12)


def test_deal_frequency_by_hand():
    """Card combinations by hand: R R R A with 8 reyes = C(8,3)·C(8,1) of C(40,4)."""
    df = strategy_table("8-reyes", seats="mano", hands="RRRA,77AA,RRRR", trials=1,
                        model=game_model(Variant(), deals=50_000, seed=1, cache=False))
    freq = dict(zip(df["hand"], df["deal_freq"]))
    assert freq["R R R A"] == pytest.approx(comb(8, 3) * 8 / comb(40, 4))
    assert freq["7 7 A A"] == pytest.approx(comb(4, 2) * comb(8, 2) / comb(40, 4))
    assert freq["R R R R"] == pytest.approx(comb(8, 4) / comb(40, 4))


def test_full_table_deal_frequencies_and_reference_figures(full_mano):
    df = full_mano
    assert len(df) == 330 and df["hand_index"].tolist() == list(range(330))
    assert df["deal_freq"].sum() == pytest.approx(1.0, abs=1e-12)
    # RULES.md reference figures (8 reyes): any pares 56.58 %, juego 26.75 %, punto 30 3.31 %
    from musstats.tables.hands import hand_tables

    t = hand_tables(Variant())
    pares = df["hand_index"].map(lambda h: t.pares_cat[h] > 0)
    juego = df["hand_index"].map(lambda h: t.points[h] >= 31)
    p30 = df["hand_index"].map(lambda h: t.points[h] == 30)
    assert df.loc[pares, "deal_freq"].sum() == pytest.approx(0.5658, abs=5e-5)
    assert df.loc[juego, "deal_freq"].sum() == pytest.approx(0.2675, abs=5e-5)
    assert df.loc[p30, "deal_freq"].sum() == pytest.approx(0.0331, abs=5e-5)
    # the mano's 31 cannot be beaten: p_team at juego is 1 for every 31 at mano
    p31 = df["hand_index"].map(lambda h: t.points[h] == 31)
    assert (df.loc[p31, "p_self_juego"] == 1.0).all()


def test_full_table_team_symmetry(full):
    """Averaged over every deal, what one team wins the other loses, whatever the seat."""
    w = {s: full[full["seat"] == s] for s in ("mano", "second", "third", "postre")}

    def mean(seat, col):
        d = w[seat]
        return float((d["deal_freq"] * d[col]).sum())

    for col in ["ev_net_total"] + [f"ev_net_{lance}" for lance in ("grande", "chica", "pares", "juego", "punto")]:
        assert mean("mano", col) == pytest.approx(-mean("second", col), abs=1e-12)
        assert mean("mano", col) == pytest.approx(mean("third", col), abs=1e-12)
        assert mean("second", col) == pytest.approx(mean("postre", col), abs=1e-12)
    # grande and chica are always played: one of the two teams takes them
    for lance in ("grande", "chica"):
        assert mean("mano", f"p_team_{lance}") + mean("second", f"p_team_{lance}") == pytest.approx(1.0)
    # pares, juego, punto: the two teams' shares add up to P(the lance is played), whichever seats
    for lance in ("pares", "juego", "punto"):
        played = mean("mano", f"p_team_{lance}") + mean("second", f"p_team_{lance}")
        assert mean("third", f"p_team_{lance}") + mean("postre", f"p_team_{lance}") == pytest.approx(played)
        assert 0.5 < played < 1.0 if lance != "punto" else 0.0 < played < 0.5


def test_ordago_columns(small, model8):
    from musstats.analysis.ordago import break_evens, lance_probability

    v = Variant()
    for hand, seat_i, seat in (("R R R A", 0, "mano"), ("7 7 A A", 3, "postre"), ("R C 6 4", 1, "second")):
        row = small[(small["hand"] == hand) & (small["seat"] == seat)].iloc[0]
        for lance in ("grande", "chica", "pares", "juego", "punto"):
            try:
                p = float(lance_probability(parse_hand(hand), seat_i, lance, v)["p"])
            except MusError:  # never bet
                p = math.nan
            if math.isnan(p):
                assert math.isnan(row[f"p_ordago_{lance}"]), (hand, seat, lance)
            else:
                assert row[f"p_ordago_{lance}"] == pytest.approx(p, abs=1e-12), (hand, seat, lance)
        be = break_evens(model8, 0, 0, "us" if seat_i % 2 == 0 else "them")
        assert row["ordago_break_even_call"] == pytest.approx(be["call"])
        assert row["ordago_break_even_accept"] == pytest.approx(be["accept"])
    # at 0-0 the two teams' chances add up to 1: P(we win | we are mano) + P(we win | they are)
    mano = small[small["seat"] == "mano"].iloc[0]
    second = small[small["seat"] == "second"].iloc[0]
    assert mano["ordago_break_even_call"] + second["ordago_break_even_call"] == pytest.approx(1.0)
    # a refused órdago gives the other team a stone: accepting needs less than calling
    assert (small["ordago_break_even_accept"] < small["ordago_break_even_call"]).all()
    # R R R A = 10 + 10 + 10 + 1 = 31 at mano: nobody can beat it, the juego órdago is won for sure
    rrra = small[(small["hand"] == "R R R A") & (small["seat"] == "mano")].iloc[0]
    assert rrra["p_ordago_juego"] == 1.0 and "juego" in rrra["ordago_call"].split()


def test_discard_columns_agree_with_best_discards(small):
    from musstats.analysis.discard import best_discards

    for hand, seat in (("R C 6 4", "mano"), ("7 7 A A", "postre")):
        row = small[(small["hand"] == hand) & (small["seat"] == seat)].iloc[0]
        ref = best_discards(hand, seat, trials=40_000, seed=5)
        by_keep = {r["keep"]: r for r in ref.rows}
        other = by_keep[row["best_keep"]]
        se = math.hypot(other["se_total"], row["mus_se_total"])
        assert abs(other["ev_total"] - row["mus_ev_total"]) < 4 * se
        # the table's pick is within noise of the independent run's best
        assert by_keep[row["best_keep"]]["gap_to_best"] < 4 * max(se, 0.02)
        assert row["best_discard"] == 4 - (0 if row["best_keep"] == "–" else len(row["best_keep"].split()))
    assert np.allclose(small["mus_gain"], small["mus_ev_total"] - small["ev_net_total"])
    assert ((small["advice"] == "cut") == (small["mus_gain"] <= 0)).all()
    assert (small["mus_gain_se"] > 0).all()


def test_parse_hands():
    v = Variant()
    assert parse_hands(None, v) == list(range(330))
    assert parse_hands("5", v) == [0, 1, 2, 3, 4]
    assert parse_hands(3, v) == [0, 1, 2]
    assert parse_hands("RRRR, R R R R, 3333", v) == [0]  # 3 is a rey with 8 reyes
    for bad in ("0", "331", "", "RRRRR", "R R, R", "X X X X", "R,,R R R R"):
        with pytest.raises(MusError):
            parse_hands(bad, v)
    assert len(parse_hands(None, Variant("4-reyes"))) == 715
    assert parse_hands([7, 2, 7], v) == [7, 2]
    with pytest.raises(MusError, match="out of range"):
        parse_hands([330], v)


# --------------------------------------------------------------------------- formats

def test_roundtrip_csv_parquet(small, tmp_path):
    for ext in (".csv", ".parquet"):
        p = write_frame(small, tmp_path / f"t{ext}")
        back = read_frame(p)
        pd.testing.assert_frame_equal(back, small, check_exact=True, check_dtype=True)


def test_markdown_and_json(small, tmp_path):
    md = write_frame(small, tmp_path / "t.md", title="t").read_text(encoding="utf-8")
    table_lines = [ln for ln in md.splitlines() if ln.startswith("|")]
    assert len(table_lines) == len(small) + 2
    assert table_lines[0].split("|")[1].strip() == "hand"
    doc = json.loads((write_frame(small, tmp_path / "t.json")).read_text(encoding="utf-8"))
    assert doc["columns"] == COLUMNS and len(doc["rows"]) == len(small)
    assert doc["meta"]["variant"] == "8-reyes"
    r0 = doc["rows"][0]
    assert r0["p_ordago_punto"] is None or isinstance(r0["p_ordago_punto"], float)
    assert r0["p_team_grande"] == small.iloc[0]["p_team_grande"]


def test_unknown_extension_and_unwritable(small, tmp_path):
    with pytest.raises(MusError, match="accepted"):
        write_frame(small, tmp_path / "t.xlsx")
    with pytest.raises(MusError, match="does not exist"):
        write_frame(small, tmp_path / "nope" / "t.csv")
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------- atomic writes

@pytest.mark.parametrize("exc", [RuntimeError, KeyboardInterrupt])
def test_atomic_write_failure_keeps_previous_file(small, tmp_path, monkeypatch, exc):
    target = tmp_path / "t.csv"
    atomic_write_text(target, "previous content\n")

    def broken(self, path, *a, **k):
        with open(path, "w") as f:
            f.write("hand,seat\nR R R")  # half a file
        raise exc("boom")

    monkeypatch.setattr(pd.DataFrame, "to_csv", broken)
    with pytest.raises(exc):
        write_frame(small, target)
    assert target.read_text() == "previous content\n"
    assert sorted(os.listdir(tmp_path)) == ["t.csv"]


def test_atomic_write_json_serializer_failure(small, tmp_path, monkeypatch):
    import musstats.base.files as mio

    target = tmp_path / "t.json"
    write_frame(small, target)
    before = target.read_bytes()
    monkeypatch.setattr(mio.json, "dumps", lambda *a, **k: (_ for _ in ()).throw(ValueError("boom")))
    with pytest.raises(ValueError):
        write_frame(small, target)
    assert target.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["t.json"]


# --------------------------------------------------------------------------- CLI


def test_cli_table_out_and_summary(capsys, tmp_path):
    out = tmp_path / "t.csv"
    code, _, err = _run(capsys, ["table", "--hands", "RRRA,77AA", "--seat", "postre", "--trials", "2000",
                                 "--out", str(out)])
    assert code == 0, err
    df = pd.read_csv(out)
    assert df["hand"].tolist() == ["R R R A", "7 7 A A"] and (df["seat"] == "postre").all()
    assert "wrote" in err
    code, text, err = _run(capsys, ["table", "--hands", "2", "--trials", "500", "--quiet"])
    assert code == 0, err
    assert "R R R R" in text and "Mano" in text and "Postre" in text and "órdago" in text


@pytest.mark.parametrize("args,what", [
    (["--out", "t.xlsx"], "accepted: FILE.csv"),
    (["--out", "/nonexistent-dir/t.csv"], "does not exist"),
    (["--hands", "0"], "--hands"),
    (["--hands", "R R X A"], "--hands"),
    (["--seat", "fifth"], "accepted: all"),
    (["--trials", "0"], "--trials"),
])
def test_cli_table_bad_input(capsys, args, what):
    code, out, err = _run(capsys, ["table", *args])
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("musstats: error:") and what in lines[0], err
