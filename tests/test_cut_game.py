"""The mus decision as a game (musstats.analysis.cut_game): toy games solved by hand, the
no-trade theorem, the per-seat table by hand calculation, the deal values against the game
model's independent valuation, and the shipped equilibrium."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from musstats.analysis import cut_game as C
from musstats.engines.solving.cfr import SolveConfig, solve
from musstats.engines.solving.dealt import DealGame
from musstats.engines.solving.exploit import measure


def _solve(U, st, w, iterations=3000):
    n_states = int(st.max()) + 1
    g = C.cut_game(U, n_states)
    dg = DealGame(g, (np.ascontiguousarray(st, np.int32), np.arange(st.shape[0], dtype=np.int64), w))
    s = solve(dg, SolveConfig.preset("dcfr", iterations))
    return g, dg, s.sigma


def test_a_hand_solved_toy_with_mixed_cuts():
    """Mano holds A or B (even chances), the others one hand each.  Team 0's stones: mano
    cuts 0; second cuts -1 with A, +1 with B; the round +2 with A, -1 with B, and a cut by
    third or postre is worth what the round is (their choice changes nothing).

    By hand, with y second's probability of cutting and x_A, x_B mano's of asking: mano asks
    with A iff 2 - 3y > 0, with B iff 2y - 1 > 0; second cuts iff -x_A + x_B < 2 x_A - x_B.
    No pure y fits (y < 1/2: only A asks, so second cuts; 1/2 < y < 2/3: both ask, second
    cuts; y > 2/3: only B asks, second asks), so y = 2/3, A is indifferent and second is
    too: x_A = 2/3, x_B = 1.  Value: (0 + (2 y - 1)) / 2 = 1/6."""
    U = np.array([[0, 0], [-1, 1], [2, -1], [2, -1], [2, -1]], float)  # columns: A, B
    st = np.array([[0, 0, 0, 0], [1, 0, 0, 0]])
    g, dg, sigma = _solve(U, st, np.array([0.5, 0.5]), 6000)
    mano = g.block(sigma, C.SEAT_NODE[0])[:, C.CUT]
    assert abs(mano[0] - 1 / 3) < 0.02 and mano[1] < 0.01
    assert abs(g.block(sigma, C.SEAT_NODE[1])[0, C.CUT] - 2 / 3) < 0.02
    ex = measure(dg, sigma, team=True, pooled=False)
    assert ex.exact and abs(ex.value - 1 / 6) < 0.01 and ex.nashconv < 0.01


def test_no_trade_when_a_cut_is_played_the_same_whoever_cut():
    """Milgrom and Stokey: when the hand after a cut is worth the same whoever cut (a[d]) and
    the round adds G[d] to mano's team, every equilibrium has E[G; all four ask] = 0, so its
    value is E[a] whatever G is.  Here the round helps a seat's team with his first hand,
    a little with his second and hurts with his third (more for mano's team), so players who
    ask whenever the round helps their team on average over their hand are no equilibrium."""
    rng = np.random.default_rng(7)
    deals = np.array(list(itertools.product(range(3), repeat=4)))
    a = rng.normal(0, 1, deals.shape[0])
    g0, g1 = np.array([1.0, 0.3, -1.0]), np.array([0.5, 0.2, -1.0])
    G = g0[deals[:, 0]] + g0[deals[:, 2]] - g1[deals[:, 1]] - g1[deals[:, 3]] + rng.normal(0, 0.5, deals.shape[0])
    U = np.vstack([a, a, a, a, a + G])
    w = np.full(deals.shape[0], 1 / deals.shape[0])
    g, dg, sigma = _solve(U, deals, w, 4000)
    ex = measure(dg, sigma, team=True, pooled=False)
    assert ex.nashconv < 0.01
    assert abs(ex.value - float(a.mean())) < 0.01
    assert abs(float(np.sum(w * (U[4] - a) * _all_ask(g, sigma, deals)))) < 0.01
    # the flags "ask when the round helps my team on average over my hand" are not an equilibrium
    gain = np.zeros((4, 3))
    for q in range(4):
        sign = 1 if q % 2 == 0 else -1
        gain[q] = [sign * G[deals[:, q] == h].mean() for h in range(3)]
    flags = gain <= 0
    naive = measure(dg, C.flags_sigma(g, flags), team=False)
    assert naive.exact and naive.nashconv > 0.02  # exact: 0.028


def _all_ask(g, sigma, deals):
    P = C.p_cut(g, sigma)
    ask = np.ones(deals.shape[0])
    for q in range(4):
        ask *= 1 - P[q, deals[:, q]]
    return ask


def test_cut_table_by_hand():
    """Two deals, two hands per seat.  P: mano cuts with hand 1 only, second with probability
    1/2 with hand 0, third and postre never."""
    dealt = np.array([[0, 0, 0, 0], [1, 0, 1, 1]])
    U = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0], [9.0, 10.0]])
    P = np.array([[0, 1], [0.5, 0], [0, 0], [0, 0]], float)
    t = C.cut_table(P, dealt, U)
    # mano: speaks always; hand 0 (deal 0): cut 1, ask: second cuts half (3) or the rest ask (9) -> 6
    assert t["reach"][0, 0] == 1 and t["ev_cut"][0, 0] == 1 and t["ev_ask"][0, 0] == 6
    # second holds hand 0 in both deals; he speaks only in deal 0 (mano cut with hand 1 in deal 1)
    assert t["deals"][1, 0] == 2 and t["reach"][1, 0] == 0.5
    assert t["ev_cut"][1, 0] == -3 and t["ev_ask"][1, 0] == -9  # his team's stones: minus team 0's
    # third: hand 0 in deal 0, reached with (1 - 0)(1 - 0.5) = 1/2, his team is team 0
    assert t["reach"][2, 0] == 0.5 and t["ev_cut"][2, 0] == 5 and t["ev_ask"][2, 0] == 9
    assert t["deals"][2, 1] == 1 and t["reach"][2, 1] == 0


def test_values_of_a_cut_match_the_game_models_valuation():
    """With betting that does not read who cut, a cut by any seat is worth the game model's
    valuation of the hands as dealt (analysis.play.hand_values: another code path over the
    same strategies), and the round its valuation of the hands after it."""
    from musstats.analysis.play import hand_values
    from musstats.engines.musphase import deals_after_mus
    from musstats.rules.variant import Variant

    v = Variant()
    out = deals_after_mus(3000, 11, v, rounds=1, cut=None, with_dealt=True, key=(5,))
    dealt, final = np.ascontiguousarray(out[:, 5:9]), np.ascontiguousarray(out[:, :4])
    U = C.cut_values(dealt, final, v, "per-lance")
    ref_cut = hand_values(dealt, v, "equilibrium", "equilibrium", "as-dealt")
    ref_mus = hand_values(final, v, "equilibrium", "equilibrium", "after-mus")
    for k in range(4):
        np.testing.assert_allclose(U[k], ref_cut, atol=1e-9)
    np.testing.assert_allclose(U[4], ref_mus, atol=1e-9)
    # the strategies that read who cut bet a hand differently by who cut
    R = C.cut_values(dealt[:500], final[:500], v, "mus-read")
    assert np.abs(R[0] - R[1]).max() > 0.01
    np.testing.assert_allclose(R[4], U[4, :500], atol=1e-9)  # after the round: the same after-mus strategies


def test_bad_values_and_betting_are_errors():
    from musstats.base.errors import MusError

    with pytest.raises(MusError):
        C.cut_game(np.zeros((4, 3)), 2)
    with pytest.raises(MusError):
        C.cut_values(np.zeros((1, 4), np.int64), np.zeros((1, 4), np.int64), None, "flags")  # type: ignore[arg-type]


def test_the_shipped_equilibrium_is_measured_and_answers_mus():
    """The shipped mus-decision equilibrium: probabilities, its measured exploitability within
    the goal of 0.02 stones per hand (per player and for each pair changing together), and the
    answer `musstats mus` gives for a hand is the one in the file."""
    from musstats.analysis.discard import mus
    from musstats.tables.hands import hand_tables
    from musstats.rules.variant import Variant

    eq = C.load_equilibrium()
    assert eq.p_cut.shape == (4, hand_tables(Variant()).n_hands) and not eq.partial
    assert ((eq.p_cut >= 0) & (eq.p_cut <= 1)).all()
    m = eq.measures
    assert m["nashconv"] + 2 * m["nashconv_se"] <= 0.02
    assert all(g + 2 * se <= 0.02 for g, se in zip(m["team_gain"], m["team_gain_se"]))
    assert 0 < eq.mus_share[0] < 1  # reading who cut, the mus is played
    h = hand_tables(Variant()).labels.index("R R 7 A")
    adv = mus("R R 7 A", "postre", trials=2000, seed=1)
    assert adv.equilibrium is not None and adv.equilibrium["p_cut"] == pytest.approx(eq.p_cut[3, h], abs=1e-6)
    assert adv.advice == ("cut" if eq.p_cut[3, h] >= 0.5 else "ask for mus")
    # where it does not answer the question, none is given: the comparison stands alone
    assert mus("R R 7 A", "postre", trials=2000, seed=1, rounds=2).equilibrium is None
    assert mus("R R 7 A", "postre", trials=2000, seed=1, mus_visto=True).equilibrium is None


def test_whole_hands_cut_by_the_equilibrium_when_asked():
    """simulate(cuts="equilibrium") plays the mus phase by the equilibrium's flags (each hand by
    its likelier choice): the seat that cut is the first from mano they cut with."""
    from musstats.analysis.whole_hand import simulate
    from musstats.base.errors import MusError
    from musstats.rules.variant import Variant

    v = Variant()
    h = simulate(2000, 3, v, "mus-read", cuts="equilibrium")
    flags = C.equilibrium_flags(v)
    cuts = flags[np.arange(4)[None, :], h.dealt]
    assert (h.cutter == np.where(cuts.any(axis=1), cuts.argmax(axis=1), -1)).all()
    with pytest.raises(MusError, match="cut rule"):
        simulate(10, 1, v, cuts="bogus")


def test_the_strategies_that_read_who_cut_ship_for_the_cut_law_beside_them(monkeypatch):
    """The strategies that read who cut were solved on the hands the mus decision's equilibrium
    cuts: the law ships beside them (read here from the file), it is not the cut flags, and the
    shipped strategies are found under its key; without the file the deal model falls back to
    the cut flags, and the key changes with the law, so strategies of one law are never read
    for another."""
    from musstats.base import files
    from musstats.engines.betting import deals as D
    from musstats.engines.betting.specs import Spec
    from musstats.engines.betting.store import get_solved
    from musstats.rules.variant import Variant
    from musstats.tables import policies

    v = Variant()
    z = np.load(files.DATA_DIR / "cut_betting_8-reyes_off.npz")
    law = z["flags"].astype(bool)
    assert np.array_equal(policies.betting_cut_flags(v), law) and (law != policies.cut_flags(v)).any()
    spec = Spec("grande", 15, deal=D.CUT, info="mus-read", variant=v)
    assert get_solved(spec, solve=False) is not None
    key = spec.key
    monkeypatch.setattr(files, "data_file", lambda stem, variant, suffix="", ext="npz":
                        files.DATA_DIR / f"nothing_{stem}.npz")
    assert np.array_equal(policies.betting_cut_flags(v), policies.cut_flags(v))
    assert Spec("grande", 15, deal=D.CUT, info="mus-read", variant=v).key != key
