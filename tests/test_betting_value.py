"""What equilibrium betting adds to a hand, and the mus decisions that use it.

References: a brute-force enumeration of the physical cards drawn (the final-hand
distribution), a rebuild of the shipped gain table from the equilibrium EV table, and
the definitions (with betting = en paso + the expected gain of the final hand)."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import combinations

import numpy as np
import pytest

from musstats.analysis.discard import discard, draw_distribution, mus
from musstats.rules.variant import Variant
from musstats.tables.context import make_context


@pytest.mark.parametrize("hand,seat,keep", [("R R 7 A", "postre", (0, 1)), ("C S 5 4", "mano", (0,)),
                                            ("7 7 A A", "second", (0, 1, 3)), ("R 6 5 4", "third", ())])
def test_draw_distribution_is_the_enumeration_of_the_cards_drawn(hand, seat, keep):
    ctx = make_context(Variant(), hand, seat)
    t = ctx.tables
    # keep: positions in the hand (highest first) of the cards kept
    kept = tuple(int(t.cls4[ctx.user][i]) for i in keep)
    hs, p = draw_distribution(ctx, kept)
    # the 36 physical cards not in the hand, as class ids
    deck = [c for c, n in enumerate(ctx.unseen.tolist()) for _ in range(n)]
    assert len(deck) == 36
    want: Counter = Counter()
    total = 0
    for draw in combinations(range(36), 4 - len(kept)):
        counts = np.bincount(np.array(kept + tuple(deck[i] for i in draw), np.int64), minlength=t.n_classes)
        want[t.index_of_counts(counts)] += 1
        total += 1
    got = dict(zip(hs.tolist(), p.tolist()))
    assert set(got) == set(want)
    for h, n in want.items():
        assert got[h] == pytest.approx(float(Fraction(n, total)), abs=1e-12)


@pytest.mark.parametrize("deal", ["as-dealt", "after-mus"])
def test_shipped_gain_is_the_rebuild_and_says_what_a_player_expects(deal):
    from musstats.analysis.betting import GAIN_DEALS, GAIN_MIN_DEALS, _compute_gain, betting_gain, ev_table
    from musstats.tables.hands import hand_tables

    v = Variant()
    gain, se = betting_gain(v, table=deal)
    g2, s2 = _compute_gain(v, deal)  # from the equilibrium EV table, 1,000,000 deals
    np.testing.assert_allclose(gain, g2)
    np.testing.assert_allclose(se, s2)
    labels = hand_tables(v).labels
    rrrr = labels.index("R R R R")
    # a hand that never loses grande at mano gains from betting (they pay dejes and accept
    # nothing); the gains are what betting adds, the same hand at every seat in one team's sum
    assert gain[0, rrrr] > 1.0
    assert (se > 0).all() and np.isfinite(gain).all()
    # zero sum: over the deals, what one team gains the other loses, and partners share it
    df = ev_table(deal=deal, deals=GAIN_DEALS)
    per_seat = (df["gain"].fillna(0) * df["deals"]).groupby(df["seat"]).sum() / GAIN_DEALS
    assert per_seat["mano"] == pytest.approx(per_seat["third"], abs=1e-9)
    assert per_seat["second"] == pytest.approx(per_seat["postre"], abs=1e-9)
    assert per_seat["mano"] == pytest.approx(-per_seat["second"], abs=1e-9)
    if deal == "after-mus":  # hands too rare after the round take their gain as dealt, the others not
        g0, _ = betting_gain(v, table="as-dealt")
        r = df[df["lance"] == "grande"]
        cnt = np.stack([r[r["seat"] == s].sort_values("hand_index")["deals"].to_numpy() for s in
                        ("mano", "second", "third", "postre")])
        rare = cnt < GAIN_MIN_DEALS
        # after a round that all four asked for, most final hands are still common (921 of
        # the 1,320 seat x hand entries; 1,000+ when every deal had a round)
        assert rare.any() and (~rare).sum() > cnt.size // 2
        np.testing.assert_array_equal(gain[rare], g0[rare])
        assert (gain[~rare] != g0[~rare]).all()


def test_shipped_gain_is_read_again_when_its_file_changes(tmp_path, monkeypatch):
    """The gain tables are read once per process, but a changed file is read again: a file
    whose key is not the rules' one gives no table (and a caller's edit never reaches the memo)."""
    import json
    import os
    import shutil

    from musstats.analysis import betting as B

    v = Variant()
    path = tmp_path / "gain.npz"
    shutil.copy(B._gain_path(v), path)
    monkeypatch.setattr(B, "_gain_path", lambda variant: path)
    g, s = B.shipped_gain(v, "as-dealt")
    with np.load(path, allow_pickle=False) as z:
        np.testing.assert_array_equal(g, z["gain_as-dealt"])
        arrays = {k: z[k] for k in z.files}
    g[:] = 99.0
    assert not (B.shipped_gain(v, "as-dealt")[0] == 99.0).any()
    meta = json.loads(bytes(arrays["meta"]).decode())
    meta["seed"] += 1
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), np.uint8)
    np.savez_compressed(path, **arrays)
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    assert B.shipped_gain(v, "as-dealt") is None


@pytest.mark.parametrize("table", ["cut-others-ask", "mus-others-ask"])
def test_gain_on_the_deals_in_which_the_others_ask(table):
    """The mus decision's gain tables are their rebuild; the cut side agrees with the deals of
    the mus kernel, which draws the other three hands among their asking ones (no rejection)."""
    from musstats._kernels.mus import NO_MUS
    from musstats.analysis.betting import GAIN_MIN_DEALS, _compute_gain, _others_ask_deals, betting_gain
    from musstats.analysis.play import hand_values
    from musstats.engines.musphase import evaluate_keeps
    from musstats.tables.policies import cut_flags, get_policy

    v = Variant()
    gain, se = betting_gain(v, table=table)
    g2, s2 = _compute_gain(v, table)
    np.testing.assert_allclose(gain, g2)
    np.testing.assert_allclose(se, s2)
    flags = cut_flags(v)
    for q in range(4):  # the deals: the other three hold hands they ask with (before the round)
        d = _others_ask_deals(v, table, q, 20_000)
        others = [r for r in range(4) if r != q]
        if table == "cut-others-ask":
            assert not flags[others][np.arange(3)[None, :], d[:, others]].any()
        assert d.shape == (20_000, 4)
    if table == "mus-others-ask":
        return
    pol = get_policy("table", v)[0]
    for hand, seat in (("R R 7 A", "postre"), ("C S 5 4", "mano"), ("7 7 A A", "second")):
        ctx = make_context(v, hand, seat)
        ev = evaluate_keeps(ctx, [NO_MUS], pol, trials=20_000, seed=11, others_ask=True, record_hands=True)
        dd = ev.hands[:, 0, :]
        x = (hand_values(dd, v, "equilibrium", "equilibrium") - hand_values(dd, v, "paso", "paso"))
        x = x * (1.0 if ctx.seat % 2 == 0 else -1.0)
        g, e = gain[ctx.seat, ctx.user], se[ctx.seat, ctx.user]
        assert abs(x.mean() - g) < 4 * np.hypot(x.std() / np.sqrt(x.size), e), (hand, seat, x.mean(), g, e)
        assert e < 0.1


def test_discard_ranks_by_the_total_with_betting():
    res = discard("R R 7 A", "postre", trials=4000, seed=3)
    assert res.betting and res.to_dict()["ranked_by"] == "total with betting"
    tot = [r["ev_total_with_betting"] for r in res.rows]
    assert tot == sorted(tot, reverse=True)
    for r in res.rows:
        assert r["ev_total_with_betting"] == pytest.approx(r["ev_total"] + r["ev_betting_gain"])
        assert r["gap_to_best"] == pytest.approx(tot[0] - r["ev_total_with_betting"])
    # not covered by the shipped equilibrium: en paso, as before
    for kw in ({"rounds": 2}, {"mus_visto": True}, {"objective": "grande"}):
        r2 = discard("R R 7 A", "postre", trials=2000, seed=3, **kw)
        assert not r2.betting and "ev_total_with_betting" not in r2.rows[0]


def test_mus_with_betting_is_en_paso_plus_the_gains():
    from musstats.analysis.betting import betting_gain
    from musstats.tables.hands import hand_tables

    adv = mus("R R 7 A", "postre", trials=4000, seed=3)
    b = adv.to_dict()["with_betting"]
    gain, _ = betting_gain(table="cut-others-ask")
    h = hand_tables(Variant()).labels.index("R R 7 A")
    assert b["cut"]["betting_gain"] == pytest.approx(gain[3, h])  # cutting keeps the hand: its own gain
    # drawing: the final hands' gains after the mus round (everybody's hands after it)
    after, _ = betting_gain(table="mus-others-ask")
    res = discard("R R 7 A", "postre", trials=4000, seed=3, keep="R R A")
    ctx = make_context(Variant(), "R R 7 A", "postre")
    t = ctx.tables
    kept = tuple(int(t.cls4[ctx.user][i]) for i in (0, 1, 3))
    hs, p = draw_distribution(ctx, kept)
    b2 = mus("R R 7 A", "postre", trials=4000, seed=3, keep="R R A").to_dict()["with_betting"]
    assert b2["keep"] == "R R A" and b2["mus"]["betting_gain"] == pytest.approx(float(p @ after[3, hs]))
    assert "after the mus round" in b["what"] and "the other three ask" in b["what"]
    # discard values the keep-sets where the round happens, when the other three ask: the same gains
    mine = next(r for r in res.rows if r["yours"])
    assert mine["ev_betting_gain"] == pytest.approx(float(p @ after[3, hs]))
    assert b["cut"]["ev_total"] == pytest.approx(float(adv.cut_ev.sum()) + gain[3, h])
    assert b["difference"]["value"] == pytest.approx(b["mus"]["ev_total"] - b["cut"]["ev_total"])
    assert b["advice"] == ("cut" if b["difference"]["value"] <= 0 else "ask for mus")
    assert adv.advice_en_paso == ("cut" if adv.diff <= 0 else "ask for mus")  # the en-paso advice is kept


def test_no_betting_column_where_the_gain_table_does_not_ship():
    # 4 reyes: no shipped strategies, so no betting column (and nothing is solved on the way)
    import time

    t0 = time.perf_counter()
    r = discard("R R 7 A", "postre", variant="4-reyes", trials=2000, seed=3)
    assert not r.betting and r.to_dict()["ranked_by"] == "total en paso"
    assert mus("R R 7 A", "postre", variant="4-reyes", trials=2000, seed=3).betting is None
    assert time.perf_counter() - t0 < 60
