"""Who cuts the mus: the restricted dealer of the others' hands and the cut-flag fixed point."""

from __future__ import annotations

from pathlib import Path
from math import comb, prod

import numpy as np
import pytest

from musstats.engines import musphase
from musstats.engines.musphase import _restricted_deal, _user_cards, deck_ids, evaluate_keeps
from musstats.engines.random import seed_states
from musstats.rules.variant import Variant
from musstats.tables.context import make_context
from musstats.tables.hands import hand_cards, hand_tables
from musstats.tables.policies import cut_flags, get_policy, table_path
from tests.naive import bounded as bounded_py
from tests.naive import xoshiro_next

V = Variant()
T = hand_tables(V)
CC = deck_ids(V)  # the class of each card id


def _shipped() -> dict:
    """Every array of the shipped discard-table file of 8 reyes."""
    import musstats

    with np.load(Path(musstats.__file__).parent / "data" / table_path(V)) as z:
        return {k: z[k] for k in z.files}


def _setup(hand: str, seat: int, allowed_rows: np.ndarray):
    ctx = make_context(V, hand.split(), seat + 1)
    user, unseen = _user_cards(list(ctx.hand), V)
    reject = np.where(allowed_rows, 0, 1).astype(np.int64)
    args, scale, _ = _restricted_deal(ctx, unseen, reject)
    return ctx, user, unseen, args, scale


def _deal_py(seat, user, pool, n_pool, ok_list, cum, n_ok, hcls, hmul, hk, s):
    """Plain-Python walk of the restricted dealer: each other seat's hand drawn on its own
    among the allowed ones, the deal kept when no card repeats."""
    att = 0
    while True:
        att += 1
        used, hands, ok = set(), [None] * 4, True
        for q in range(4):
            if q == seat:
                hands[q] = list(user)
                continue
            r = bounded_py(xoshiro_next(s) & 0xFFFFFFFF, int(cum[q, n_ok[q] - 1]), 32, s)
            h = int(ok_list[q, next(i for i in range(n_ok[q]) if cum[q, i] > r)])
            cards = []
            for i in range(hk[h]):
                c, top = int(hcls[h, i]), int(n_pool[hcls[h, i]])
                for _ in range(hmul[h, i]):
                    k = bounded_py(xoshiro_next(s) & 0xFFFFFFFF, top, 32, s)
                    top -= 1
                    pool[c, k], pool[c, top] = pool[c, top], pool[c, k]
                    card = int(pool[c, top])
                    ok = ok and card not in used
                    used.add(card)
                    cards.append(card)
            hands[q] = cards
            if not ok:
                break
        if ok:
            return att, hands


def _two_reyes(seat: int) -> np.ndarray:
    """Allowed [4, H]: hands with at least two reyes (class 0) at every seat but ``seat``."""
    a = np.tile(T.counts[:, 0] >= 2, (4, 1))
    a[seat] = True
    return a


def test_restricted_dealer_equals_a_plain_python_walk():
    from musstats._kernels.mus import deal_restricted

    _, user, _, args, _ = _setup("C S 5 A", 1, _two_reyes(1))
    _, pool, n_pool, ok_list, cum, n_ok, hcls, hmul, hk = args
    st = seed_states(5, 1)[0].copy()
    s = [int(x) for x in st]
    pool_k, pool_p = pool.copy(), pool.copy()
    hands = np.zeros((4, 4), np.int64)
    for _ in range(300):
        att, dealt = deal_restricted(hands, 1, user, pool_k, n_pool, ok_list, cum, n_ok, hcls, hmul, hk, st, 10**6)
        att_p, hands_p = _deal_py(1, user, pool_p, n_pool, ok_list, cum, n_ok, hcls, hmul, hk, s)
        assert att == att_p and hands.tolist() == hands_p
        assert int(dealt) == sum(1 << c for q in (0, 2, 3) for c in hands_p[q])  # the other seats' cards
        assert len(set(hands.ravel().tolist())) == 16
        for q in (0, 2, 3):
            assert (CC[hands[q]] == 0).sum() >= 2  # two reyes or more


def _exact_conditional(user_counts: np.ndarray, allowed: np.ndarray, seat: int):
    """By counting: the share of deals in which every other seat holds an allowed hand, and
    the distribution of each other seat's hand class given that (uniform deals)."""
    full = np.array([c.count for c in V.classes]) - user_counts
    ok = [h for h in range(T.n_hands) if allowed[h]]

    def ways(h, avail):
        return prod(comb(int(avail[c]), int(T.counts[h, c])) for c in range(T.n_classes))

    others = [q for q in range(4) if q != seat]
    marg = {q: np.zeros(T.n_hands) for q in others}
    total = 0
    for h1 in ok:
        w1 = ways(h1, full)
        if not w1:
            continue
        a1 = full - T.counts[h1]
        for h2 in ok:
            w2 = ways(h2, a1)
            if not w2:
                continue
            a2 = a1 - T.counts[h2]
            for h3 in ok:
                w = w1 * w2 * ways(h3, a2)
                if w:
                    total += w
                    for q, h in zip(others, (h1, h2, h3)):
                        marg[q][h] += w
    n_unseen = int(full.sum())
    p = total / (comb(n_unseen, 4) * comb(n_unseen - 4, 4) * comb(n_unseen - 8, 4))
    return p, {q: m / total for q, m in marg.items()}


def test_restricted_deals_follow_the_exact_conditional_distribution(monkeypatch):
    # others must hold two reyes or more: about 1 deal in 1,500 meets it
    from musstats._kernels.mus import NO_MUS, deal_restricted

    allowed = _two_reyes(3)
    ctx, user, _, args, scale = _setup("C S 5 A", 3, allowed)
    p, marg = _exact_conditional(T.counts[ctx.user].astype(np.int64), allowed[0], 3)
    _, pool, n_pool, ok_list, cum, n_ok, hcls, hmul, hk = args
    st = seed_states(8, 1)[0].copy()
    n = 40_000
    freq = {q: np.zeros(T.n_hands) for q in (0, 1, 2)}
    hands = np.zeros((4, 4), np.int64)
    for _ in range(n):
        deal_restricted(hands, 3, user, pool, n_pool, ok_list, cum, n_ok, hcls, hmul, hk, st, 10**6)
        for q in (0, 1, 2):
            freq[q][T.index_of_counts(np.bincount(CC[hands[q]], minlength=T.n_classes))] += 1
    for q in (0, 1, 2):
        f = freq[q] / n
        se = np.sqrt(marg[q] * (1 - marg[q]) / n)
        assert np.all(np.abs(f - marg[q]) <= 5 * se + 1e-12), q
        assert np.all(f[~allowed[q]] == 0)
    # the share of kept deals: counted by the kernel, and estimated from the proposals when
    # there are too many allowed hands to count, against the plain-Python count
    assert 0.0005 < p < 0.001
    pol = get_policy("table", V)[0]
    ev = evaluate_keeps(replace_allowed(ctx, allowed), [NO_MUS], pol, trials=20_000, seed=3)
    assert ev.p_deal_kept == pytest.approx(p, rel=1e-12)
    monkeypatch.setattr(musphase, "EXACT_SHARE_MAX", 0)
    ev = evaluate_keeps(replace_allowed(ctx, allowed), [NO_MUS], pol, trials=100_000, seed=3)
    assert ev.p_deal_kept != p and abs(ev.p_deal_kept - p) < 5 * p * np.sqrt(1 / 100_000)


def replace_allowed(ctx, allowed):
    from dataclasses import replace

    return replace(ctx, allowed=allowed)


def test_a_rare_condition_needs_few_proposals_per_deal():
    # with rejection of whole deals 1 deal in ~1,500 would be kept; the restricted dealer
    # proposes far fewer per kept deal
    from musstats._kernels.mus import NO_MUS

    pol = get_policy("table", V)[0]
    ctx, _, _, _, scale = _setup("C S 5 A", 3, _two_reyes(3))
    rare = evaluate_keeps(replace_allowed(ctx, _two_reyes(3)), [NO_MUS], pol, trials=20_000, seed=1)
    assert rare.p_deal_kept < 0.001
    proposals_per_deal = scale / rare.p_deal_kept  # the share = deals / proposals * scale
    assert proposals_per_deal < 50


def test_recorded_cut_fixed_point_answers_itself():
    # the fixed point recorded beside the shipped flags: with the build's deals (same trials,
    # seed and streams) no flag would switch by more than 2 SE.  It is degenerate, as the
    # README says: one seat (second) cuts with every hand, so the mus never happens and the
    # others' flags do not matter; a third of that seat's hands are checked, a quarter of the others
    from musstats.analysis.discard_table import SWITCH_SE, cut_response

    z = _shipped()
    fixed = z["cut_fixed"]
    assert bool(z["cut_converged"]) and z["cut_history"][-1, 1] == 0
    assert fixed.sum(axis=1).tolist()[1] == T.n_hands and (fixed.sum(axis=1) < T.n_hands).sum() == 3
    entries = [(s, h) for s in range(4) for h in (range(0, T.n_hands, 3) if s == 1 else range(s, T.n_hands, 4))]
    for s, h, gain, se in cut_response(entries, get_policy("table", V)[0], fixed, V, int(z["trials"]),
                                       int(z["seed"])):
        assert not (abs(gain) > SWITCH_SE * se and (gain > 0) != fixed[s, h]), (s, h, gain, se)
        if s != 1:
            assert gain == 0.0 and se == 0.0  # second never asks: the mus cannot happen


def test_fixed_point_sweeps_on_a_game_with_a_known_answer():
    # a toy runner: cutting gains g + 0.001 * (entries cutting), as in Mus the more the others
    # cut, the weaker the hands that ask and the better cutting is; from nobody cutting the
    # sweeps must climb to the least fixed point k = #{g + 0.001 k > 0} and stop there
    from musstats.analysis import discard_table as dt

    h_n = T.n_hands
    g = np.tile(np.linspace(-1, 1, h_n), (4, 1))

    def runner(func, chunks, job):
        _, cut, *_ = job
        k = cut.sum()
        return [[(s, h, g[s, h] + 0.001 * k, 1e-9) for s, h in chunk] for chunk in chunks]

    pol = get_policy("table", V)[0]
    fp = dt.cut_fixed_point(pol, V, start=np.zeros((4, h_n), bool), runner=runner, max_iter=50)
    assert fp.converged and fp.sweeps[-1].changed == 0
    k = int(fp.cut.sum())
    assert np.array_equal(fp.cut, g + 0.001 * k > 0) and len(fp.sweeps) > 2
    least = next(m for m in range(g.size + 1) if (g + 0.001 * m > 0).sum() == m)
    assert k == least


@pytest.mark.parametrize("start", ["nobody", "plain"])
@pytest.mark.parametrize("zero_sum", [True, False])
def test_sweeps_on_a_zero_sum_game_end_with_no_mus(start, zero_sum):
    # the no-trade theorem (Milgrom and Stokey 1982; README, "Cut flags"): when the mus adds
    # G to one team and -G to the other, and the hand is played the same whoever cut, no flags
    # under which the mus happens are a fixed point unless every asking hand is indifferent.
    # A toy Mus: independent hands, the round adds g(h) to its holder's team (weak hands gain),
    # with the exact pivot gains.  From nobody cutting, and from the plain comparison (cut when
    # g(h) < 0, ignoring who asks), the sweeps must end where some seat cuts with every hand;
    # the same sweeps on a game of common interest (the round adds g(h) to everybody) end with
    # everybody asking when his hand gains.
    from musstats.analysis import discard_table as dt

    h_n = T.n_hands
    g = np.linspace(-1.0, 1.0, h_n) ** 3  # what a round adds to the holder's team
    sign = np.array([1.0, -1.0, 1.0, -1.0]) if zero_sum else np.ones(4)  # whom the holder's gain goes to

    def runner(func, chunks, job):
        _, cut, *_ = job
        ask = ~cut
        out = []
        for chunk in chunks:
            part = []
            for s, h in chunk:
                if any(not ask[q].any() for q in range(4) if q != s):
                    part.append((s, h, 0.0, 0.0))  # the mus cannot happen: the flag does not matter
                    continue
                # E[G for s's team | h, the other three ask]: their hands are uniform on their asking hands
                mus = g[h] + sum(sign[s] * sign[q] * g[ask[q]].mean() for q in range(4) if q != s)
                part.append((s, h, -mus, 1e-9))  # the gain of cutting over the round
            out.append(part)
        return out

    pol = get_policy("table", V)[0]
    first = np.zeros((4, h_n), bool) if start == "nobody" else np.tile(g < 0, (4, 1))
    fp = dt.cut_fixed_point(pol, V, start=first, runner=runner, max_iter=50)
    assert fp.converged and fp.sweeps[-1].changed == 0
    p_all_ask = np.prod((~fp.cut).mean(axis=1))
    if zero_sum:
        assert p_all_ask == 0.0 and fp.cut.all(axis=1).any()  # somebody cuts with every hand
    else:
        assert p_all_ask > 0.3 and not fp.cut[:, g > 0].any()


def test_recorded_fixed_points_never_play_the_mus():
    # the fixed point recorded beside the shipped flags obeys the theorem: a seat cuts with every hand
    assert _shipped()["cut_fixed"].all(axis=1).any()


def test_shipped_cut_flags_rebuild():
    # the shipped flags (the plain comparison, the fixed point's start), rebuilt for every 16th hand
    from musstats.analysis.discard_table import cut_flags_for

    z = _shipped()
    hands = list(range(0, T.n_hands, 16))
    got = cut_flags_for(get_policy("table", V)[0], V, trials=int(z["trials"]), seed=int(z["seed"]), hands=hands)
    assert np.array_equal(got[:, hands], z["cut"][:, hands]) and np.array_equal(cut_flags(V), z["cut"])


def test_recorded_hands_are_the_deals_the_kernel_counted():
    # the final hands recorded per keep mask, counted by the plain-Python rules (tests/naive.py),
    # give exactly the kernel's en-paso totals; the other three were dealt hands they ask with
    from musstats._kernels.mus import NO_MUS
    from tests.naive import paso_steps

    pol, flags = get_policy("table", V)[0], cut_flags(V)
    ctx = make_context(V, "R 7 6 A".split(), 2)  # second
    h = ctx.user
    ev = evaluate_keeps(ctx, [NO_MUS, int(pol[1, h])], pol, trials=600, seed=5, others_ask=True, record_hands=True)
    assert ev.hands is not None and ev.hands.shape == (600, 2, 4)
    dealt = ev.hands[:, 0]
    assert (dealt[:, 1] == h).all() and not (ev.hands[:, 1, 1] == h).all()
    for q in (0, 2, 3):
        assert not flags[q, dealt[:, q]].any()
    for k in range(2):
        nets = []
        for deal in ev.hands[:, k]:
            st = paso_steps([[c.face for c in hand_cards(int(x), V)] for x in deal], "8-reyes")
            nets.append(st[:, 1].sum() - st[:, 0].sum())  # second's team is team 1
        assert np.mean(nets) == pytest.approx(ev.total[k], abs=1e-12)
    assert evaluate_keeps(ctx, [NO_MUS], pol, trials=50, seed=5).hands is None


def test_betting_cut_values_with_paso_players_are_the_en_paso_comparison(monkeypatch):
    # valued "with betting" by players who never bet, the cut comparison must be the en-paso one
    # deal for deal: the recorded hands, their valuation and the team's sign all line up
    from musstats.analysis import discard_table as dt
    from musstats.analysis import play
    from musstats.base.errors import MusError

    real = play.hand_values
    asked = []

    def paso_values(deals, v, a, b, deal):
        asked.append((a, b, deal))
        return real(deals, v, "paso", "paso")

    monkeypatch.setattr(play, "hand_values", paso_values)
    pol, flags = get_policy("table", V)[0], cut_flags(V)
    entries = [(0, 5), (1, 100), (2, 200), (3, 329)]
    bet = dt.cut_response(entries, pol, flags, V, 2000, 3, values="betting")
    paso = dt.cut_response(entries, pol, flags, V, 2000, 3)
    # the cut side by the strategies for hands as dealt, the mus side by those after the round
    assert asked == [("equilibrium", "equilibrium", "as-dealt"), ("equilibrium", "equilibrium", "after-mus")]
    assert any(abs(g) > 0.05 for _, _, g, _ in paso)
    for (s, h, g1, se1), (_, _, g0, se0) in zip(bet, paso):
        assert g1 == pytest.approx(g0, abs=1e-9) and se1 == pytest.approx(se0, rel=1e-6, abs=1e-12), (s, h)
    with pytest.raises(MusError, match="unknown cut values"):
        dt.cut_response(entries, pol, flags, V, 10, 1, values="nope")
