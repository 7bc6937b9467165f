"""The strategy table (musstats table): numbers against the engines, formats, atomic writes, CLI.

Expected values come from the engines' own entry points (exact_table, lance_probability,
mus), from docs/rules.md, from tests/naive.py or from hand calculation (card combinations).
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import replace
from math import comb
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import naive
from helpers import assert_exit2_one_line, run_cli as _run
from musstats.analysis.game import game_model
from musstats.analysis.table import COLUMNS, parse_hands, strategy_table
from musstats.base.errors import MusError
from musstats.base.files import atomic_write_text
from musstats.engines.exact import exact_table
from musstats.output.files import read_frame, write_frame
from musstats.rules.variant import Variant
from musstats.tables.context import make_context


#: the kernels of these tests run on one numba thread unless a test asks for more (conftest)
pytestmark = pytest.mark.usefixtures("one_numba_thread")


@pytest.fixture(scope="module")
def model8():
    return game_model(Variant(), deals=200_000, seed=3, cache=False)


@pytest.fixture(scope="module")
def small(model8):
    """Three hands at every seat, 8 reyes."""
    res = strategy_table("8-reyes", hands="R R R A, 7 7 A A, R C 6 4", trials=4000, seed=11, model=model8)
    assert not res.partial
    return res.to_frame()


@pytest.fixture(scope="module")
def full(model8):
    """Every 8-reyes hand at every seat (the mus part is cut short: 1 deal per keep-set)."""
    return strategy_table("8-reyes", seats="all", trials=1, seed=1, model=model8).to_frame()


@pytest.fixture(scope="module")
def full_mano(full):
    return full[full["seat"] == "mano"].reset_index(drop=True)


def test_layout(small):
    assert list(small.columns) == COLUMNS
    assert len(small) == 3 * 4
    assert list(small["seat"][:4]) == ["mano", "second", "third", "postre"]
    assert list(small["hand"][::4]) == ["R R R A", "7 7 A A", "R C 6 4"]  # the order asked for
    assert small.attrs["mus"]["trials_per_keep_set"] == 4000 and small.attrs["mus"]["seed"] == 11
    assert small.attrs["mus"]["given"] == "the other three ask for mus"
    assert small.attrs["variant"] == "8-reyes" and small.attrs["partial"] is False


def test_odds_equal_exact_table(small):
    v = Variant()
    for hand in ("R R R A", "7 7 A A", "R C 6 4"):
        for seat_i, seat in enumerate(("mano", "second", "third", "postre")):
            row = small[(small["hand"] == hand) & (small["seat"] == seat)].iloc[0]
            ref = exact_table(make_context(v, hand, seat))  # [lance, (p_team p_self p_played p_contested ev_net)]
            for li, lance in enumerate(("grande", "chica", "pares", "juego", "punto")):
                assert row[f"p_team_{lance}"] == pytest.approx(ref[li, 0], abs=1e-12)
                assert row[f"p_self_{lance}"] == pytest.approx(ref[li, 1], abs=1e-12)
                assert row[f"ev_net_{lance}"] == pytest.approx(ref[li, 4], abs=1e-12)
            assert row["ev_net_total"] == pytest.approx(ref[:, 4].sum(), abs=1e-12)


def test_deal_frequency_by_hand():
    """Card combinations by hand: R R R A with 8 reyes = C(8,3)·C(8,1) of C(40,4)."""
    df = strategy_table("8-reyes", seats="mano", hands="RRRA,77AA,RRRR", trials=1,
                        model=game_model(Variant(), deals=50_000, seed=1, cache=False)).to_frame()
    freq = dict(zip(df["hand"], df["deal_freq"]))
    assert freq["R R R A"] == pytest.approx(comb(8, 3) * 8 / comb(40, 4))
    assert freq["7 7 A A"] == pytest.approx(comb(4, 2) * comb(8, 2) / comb(40, 4))
    assert freq["R R R R"] == pytest.approx(comb(8, 4) / comb(40, 4))


def test_full_table_deal_frequencies_and_reference_figures(full_mano):
    df = full_mano
    assert len(df) == 330 and df["hand_index"].tolist() == list(range(330))
    assert df["deal_freq"].sum() == pytest.approx(1.0, abs=1e-12)
    # docs/rules.md reference figures (8 reyes): any pares 56.58 %, juego 26.75 %, punto 30 3.31 %
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


def _can_bet(hand: str, lance: str) -> bool:
    """docs/rules.md: a hand bets in pares / juego only when it holds them, in punto only
    without juego (tests/naive.py's reading of the rules)."""
    kinds = {k[0]: k for k in naive.DECK_8}
    cards = naive.kinds_of(hand, "8-reyes")
    points = sum(kinds[c][2] for c in cards)
    if lance == "pares":
        return naive.pares_strength([kinds[c][1] for c in cards]) is not None
    if lance == "juego":
        return points >= 31
    if lance == "punto":
        return points < 31
    return True


def test_ordago_columns(small, model8):
    from musstats.analysis.ordago import break_evens, lance_probability

    v = Variant()
    for hand, seat_i, seat in (("R R R A", 0, "mano"), ("7 7 A A", 3, "postre"), ("R C 6 4", 1, "second")):
        row = small[(small["hand"] == hand) & (small["seat"] == seat)].iloc[0]
        for lance in ("grande", "chica", "pares", "juego", "punto"):
            try:
                p = float(lance_probability(make_context(v, hand, seat), lance)["p"])
            except MusError:  # never bet
                p = math.nan
            if not _can_bet(hand, lance):  # only the partner could bet it: not a row of this hand
                p = math.nan
            if math.isnan(p):
                assert math.isnan(row[f"p_ordago_{lance}"]), (hand, seat, lance)
            else:
                assert row[f"p_ordago_{lance}"] == pytest.approx(p, abs=1e-12), (hand, seat, lance)
        be = break_evens(model8, 0, 0, "us" if seat_i % 2 == 0 else "them")
        assert row["ordago_break_even_call"] == pytest.approx(be["call"])
        assert row["ordago_break_even_accept"] == pytest.approx(be["accept"])
        calls = [lance for lance in ("grande", "chica", "pares", "juego", "punto")
                 if row[f"p_ordago_{lance}"] >= row["ordago_break_even_call"]]
        assert row["ordago_call"] == (" ".join(calls) if calls else "–")
    # R C 6 4 holds no pares and R R R A is 31: those lances are NaN (the lance_probability exists)
    rc64 = small[(small["hand"] == "R C 6 4") & (small["seat"] == "second")].iloc[0]
    assert math.isnan(rc64["p_ordago_pares"]) and math.isnan(rc64["p_ordago_juego"])
    # at 0-0 the two teams' chances add up to 1: P(we win | we are mano) + P(we win | they are)
    mano = small[small["seat"] == "mano"].iloc[0]
    second = small[small["seat"] == "second"].iloc[0]
    assert mano["ordago_break_even_call"] + second["ordago_break_even_call"] == pytest.approx(1.0)
    # a refused órdago gives the other team a stone: accepting needs less than calling
    assert (small["ordago_break_even_accept"] < small["ordago_break_even_call"]).all()
    # R R R A = 10 + 10 + 10 + 1 = 31 at mano: nobody can beat it, the juego órdago is won for sure
    rrra = small[(small["hand"] == "R R R A") & (small["seat"] == "mano")].iloc[0]
    assert rrra["p_ordago_juego"] == 1.0 and "juego" in rrra["ordago_call"].split()
    assert math.isnan(rrra["p_ordago_punto"])  # it holds juego: punto is never its lance


def test_mus_columns_are_the_mus_computation(small):
    # the table's mus columns are exactly `musstats mus HAND --seat SEAT --seed SEED --trials TRIALS`
    from musstats.analysis.discard import mus
    from musstats.tables.policies import cut_flags

    for hand, seat in (("R C 6 4", "mano"), ("7 7 A A", "postre"), ("R R R A", "third")):
        row = small[(small["hand"] == hand) & (small["seat"] == seat)].iloc[0]
        adv = mus(hand, seat, trials=4000, seed=11)
        assert row["p_others_ask"] == adv.p_others_ask
        assert row["mus_cut_ev"] == float(adv.cut_ev.sum())
        assert row["best_keep"] == adv.keep
        assert row["mus_ev_total"] == float(adv.mus_ev.sum()) and row["mus_se_total"] == adv.mus_total_se
        assert row["mus_gain"] == adv.diff and row["mus_gain_se"] == adv.diff_se
        assert row["advice"] == ("cut" if adv.advice_en_paso == "cut" else "mus")
        assert row["best_discard"] == 4 - (0 if row["best_keep"] == "–" else len(row["best_keep"].split()))
        bet = adv.betting  # and the comparison with betting, as `mus` prints it
        assert bet is not None and row["mus_keep_bet"] == bet["keep"] == row["best_keep"]  # one keep-set
        assert row["mus_gain_bet"] == bet["difference"]["value"] and row["mus_gain_bet_se"] == bet["difference"]["se"]
        assert row["advice_bet"] == ("cut" if bet["advice"] == "cut" else "mus")
        eq = adv.equilibrium  # and the mus decision's equilibrium, the advice `mus` gives
        assert eq is not None and row["cut_p_eq"] == eq["p_cut"] and row["cut_gain_eq"] == eq["cut_minus_ask"]
        assert row["advice_eq"] == ("cut" if adv.advice == "cut" else "mus")
        # cutting, on the deals in which the other three ask, is the exact showdown with the
        # other seats' hands restricted to those they do not cut with
        ctx = make_context(Variant(), hand, seat)
        ex = exact_table(replace(ctx, allowed=~cut_flags(Variant())))
        assert abs(row["mus_cut_ev"] - np.nansum(ex[:, 4])) < 4 * adv.cut_total_se
    assert np.allclose(small["mus_gain"], small["mus_ev_total"] - small["mus_cut_ev"])
    assert ((small["advice"] == "cut") == (small["mus_gain"] <= 0)).all()
    assert ((small["advice_bet"] == "cut") == (small["mus_gain_bet"] <= 0)).all()
    assert (small["mus_gain_bet_se"] > small["mus_gain_se"]).all()  # the betting gains add their own error
    assert (small["advice_close"] == (small["mus_gain"].abs() < 2 * small["mus_gain_se"])).all()
    assert (small["mus_gain_se"] > 0).all()
    assert ((small["p_others_ask"] > 0) & (small["p_others_ask"] < 1)).all()


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
    assert r0["hand"] == "R R R A" and r0["seat"] == "mano"
    assert r0["p_ordago_punto"] is None  # NaN (R R R A holds juego: no punto for it) is null
    assert isinstance(r0["p_ordago_grande"], float)
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
    import musstats.base.files as bf

    target = tmp_path / "t.csv"
    atomic_write_text(target, "previous content\n")
    real = bf.atomic_write

    def half_written(path, write):
        def broken(tmp):
            with open(tmp, "w") as f:
                f.write("hand,seat\nR R R")  # half a file
            raise exc("boom")
        return real(path, broken)

    # the disk fails half-way through the file
    monkeypatch.setattr(bf, "atomic_write", half_written)
    with pytest.raises(exc):
        write_frame(small, target)
    assert target.read_text() == "previous content\n"
    assert sorted(os.listdir(tmp_path)) == ["t.csv"]
    # forming the CSV fails
    monkeypatch.setattr(bf, "atomic_write", real)

    def broken_csv(self, *a, **k):
        raise exc("boom")

    monkeypatch.setattr(pd.DataFrame, "to_csv", broken_csv)
    with pytest.raises(exc):
        write_frame(small, target)
    assert target.read_text() == "previous content\n"
    assert sorted(os.listdir(tmp_path)) == ["t.csv"]


def test_atomic_write_json_serializer_failure(small, tmp_path, monkeypatch):
    import musstats.output.files as mio

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
    assert out.read_text(encoding="utf-8").startswith("# variant: \"8-reyes\"\n")
    df = read_frame(out)
    assert df["hand"].tolist() == ["R R R A", "7 7 A A"] and (df["seat"] == "postre").all()
    assert list(df.columns) == COLUMNS
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
    (["--trials", "0"], "trials must be a whole number from 1 to 50,000,000, got 0"),
    (["--trials", "x"], "--trials must be a whole number"),
    (["--seed", "-2"], "seed must be a whole number from 0"),
    (["--hands", "2", "--hands", "3"], "--hands is given twice"),
])
def test_cli_table_bad_input(capsys, args, what):
    assert_exit2_one_line(capsys, ["table", *args], what)


def test_the_package_stays_within_its_size_budget():
    """The package (its code and the tables and strategies in musstats/data, what an install
    downloads) stays within about 50 MB, the budget the whole-hand strategies ship in."""
    import musstats

    root = Path(musstats.__file__).resolve().parent
    size = sum(p.stat().st_size for p in root.rglob("*")
               if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".pyc", ".nbi", ".nbc"))
    assert size < 50_000_000, f"{size / 1e6:.1f} MB"


def test_the_npz_writer_and_reader(tmp_path):
    """One .npz writer (atomic) and one memoised reader: a file read once is served from memory,
    a rewrite through the writer is seen at once, an absent or broken file reads as None."""
    import numpy as np

    from musstats.base.files import read_npz, write_npz

    p = tmp_path / "t.npz"
    assert read_npz(p) is None
    write_npz(p, {"a": np.arange(3)})
    assert read_npz(p)["a"].tolist() == [0, 1, 2]
    assert read_npz(p) is read_npz(p)  # read once
    write_npz(p, {"a": np.arange(2), "b": np.ones(1)}, "none")
    got = read_npz(p)
    assert got["a"].tolist() == [0, 1] and got["b"].tolist() == [1.0]
    # lazily: the names at once, an array when first asked for, kept; a rewrite is seen at once
    lazy = read_npz(p, lazy=True)
    assert sorted(lazy) == ["a", "b"] and len(lazy) == 2 and read_npz(p, lazy=True) is lazy
    assert lazy["b"].tolist() == [1.0] and "a" not in lazy._got
    with pytest.raises(KeyError):
        lazy["c"]
    write_npz(p, {"a": np.arange(4)})
    assert list(read_npz(p, lazy=True)) == ["a"] and read_npz(p)["a"].tolist() == [0, 1, 2, 3]
    write_npz(p, {"a": np.arange(2), "b": np.ones(1)}, "none")
    # LZMA: what numpy itself reads, and smaller than deflate where a block repeats beyond 32 KiB
    block = np.random.default_rng(0).integers(0, 255, 40_000, dtype=np.uint8)
    sizes, sub = {}, tmp_path / "sizes"
    sub.mkdir()
    for how in ("zlib", "lzma"):
        q = sub / f"{how}.npz"
        write_npz(q, {"s": np.tile(block, 5)}, how)
        with np.load(q) as z:
            assert np.array_equal(z["s"], np.tile(block, 5))
        sizes[how] = q.stat().st_size
    assert sizes["lzma"] < 50_000 < 4 * 40_000 < sizes["zlib"]
    with pytest.raises(ValueError):
        write_npz(sub / "x.npz", {"a": np.arange(1)}, "gzip")
    assert sorted(os.listdir(tmp_path)) == ["sizes", "t.npz"]  # no temporary file left
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    assert read_npz(bad) is None
