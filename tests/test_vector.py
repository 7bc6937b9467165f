"""The vector solver against a brute-force enumeration and against the deal solver.

The vector solver (musstats.engines.betting.vector) samples three seats' hands and weighs
every hand h of the fourth by P(h | the other three hands) = ways(h | the 28 remaining
cards) / C(28, 4).  Here that weight is counted the slow way: the 28 remaining physical
cards are listed, each of their C(28, 4) = 20,475 four-card subsets is sorted into its
hand by its multiset of card classes (from the hand tables' class counts), and the counts are
divided by 20,475.  A pooled team samples only the opponents (eight cards) and weighs
every pair of its own hands: here P(first | opponents) by the 35,960 subsets of the 32
remaining cards, times P(second | opponents and first) by the 20,475 of the 28 left.
Card removal is exact in both; the count calls no kernel.  The vector solver's regrets
are then checked against the deal solver's on the same deals spelled out one by one,
weighted by those counts.
"""

from __future__ import annotations

import itertools
from collections import Counter
from math import comb

import numpy as np
import pytest

from musstats.rules.variant import Variant


def _brute_weights(counts: np.ndarray, class_count: np.ndarray, others: list[int]) -> np.ndarray:
    """P(the fourth seat holds hand h | the three hands ``others``) for every hand h, by listing the
    remaining physical cards and counting their four-card subsets per class multiset."""
    left = class_count.astype(int).copy()
    for h in others:
        left -= counts[h].astype(int)
    assert (left >= 0).all()
    cards = [c for c, n in enumerate(left) for _ in range(n)]  # one entry per physical card
    assert len(cards) == 40 - 4 * len(others)
    by_multiset = Counter(tuple(sorted(sub)) for sub in itertools.combinations(cards, 4))
    out = np.zeros(counts.shape[0])
    for h in range(counts.shape[0]):
        key = tuple(sorted(c for c, n in enumerate(counts[h]) for _ in range(int(n))))
        out[h] = by_multiset.get(key, 0) / comb(len(cards), 4)
    return out


def _fits(vg, seat, h) -> bool:
    return vg.req[seat] < 0 or vg.hold[h] == vg.req[seat]


def _spelled_out(vg, k, hands, sw, t):
    """The deals of owner k's samples, every hand of its enumerated seat that fits its
    declaration, weighted by sample weight x brute-force P(hand | others); for a pooled team
    that enumerates its partner too, every pair of hands of its two seats that fit, weighted
    by sample weight x P(first hand | the opponents) x P(second | the opponents and the first)."""
    seat = int(vg.eseat[k])
    deals, w = [], []
    partner = vg.partner_seat(k)
    if partner >= 0:
        for s in range(hands.shape[0]):
            opp = [int(hands[s, q]) for q in range(4) if q not in (seat, partner)]
            p1 = _brute_weights(t.counts, t.class_count, opp)
            for h1 in np.nonzero(p1)[0]:
                if not _fits(vg, seat, h1):
                    continue
                p2 = _brute_weights(t.counts, t.class_count, opp + [int(h1)])
                for h2 in np.nonzero(p2)[0]:
                    if not _fits(vg, partner, h2):
                        continue
                    d = hands[s].copy()
                    d[seat], d[partner] = h1, h2
                    deals.append(d)
                    w.append(sw[s] * p1[h1] * p2[h2])
        return np.array(deals), np.array(w)
    for s in range(hands.shape[0]):
        others = [int(hands[s, q]) for q in range(4) if q != seat]
        p = _brute_weights(t.counts, t.class_count, others)
        for h in np.nonzero(p)[0]:
            if vg.req[seat] >= 0 and vg.hold[h] != vg.req[seat]:
                continue
            d = hands[s].copy()
            d[seat] = h
            deals.append(d)
            w.append(sw[s] * p[h])
    return np.array(deals), np.array(w)


def _subgame(lance: str, pattern: int, info: str, seed: int):
    """(variant, hand tables, game, vector game, a random strategy playing every action) of a
    subgame of 8 reyes."""
    from musstats.engines.betting.specs import Spec
    from musstats.engines.betting.vector import vector_game
    from musstats.engines.solving.store import dequantise
    from musstats.tables.hands import hand_tables

    v = Variant()
    spec = Spec(lance=lance, pattern=pattern, info=info, variant=v)
    game = spec.game()
    vg = vector_game(game, v, spec.pattern)
    rng = np.random.default_rng(seed)
    sigma = dequantise(rng.integers(1, 256, game.n_slots).astype(np.uint8), game)
    return v, hand_tables(v), game, vg, sigma


@pytest.mark.parametrize("variant", [Variant(), Variant(deck="4-reyes")], ids=["8-reyes", "4-reyes"])
def test_own_weights_are_the_brute_force_conditional_probabilities(variant):
    from musstats._kernels.vcfr import own_weights
    from musstats.engines.betting.vector import deck_tables
    from musstats.tables.hands import hand_tables

    t = hand_tables(variant)
    d = deck_tables(variant)
    assert (d.cls_cnt == t.class_count).all() and d.cls_cnt.sum() == 40
    rng = np.random.default_rng(7)
    L = np.arange(t.n_hands, dtype=np.int64)
    checked = 0
    for _ in range(6):
        # three hands dealt from a shuffled physical deck: the labels' classes via the hand tables
        deck = [c for c, n in enumerate(t.class_count) for _ in range(int(n))]
        rng.shuffle(deck)
        others = []
        for q in range(3):
            cnt = np.bincount(deck[4 * q: 4 * q + 4], minlength=t.n_classes)
            others.append(int(t.index_of_counts(cnt)))
        for seat in range(4):
            hb = np.full(4, -1, np.int64)
            hb[[q for q in range(4) if q != seat]] = others
            got = own_weights(hb, seat, L, d.cls_cnt, d.nzc, d.nzn, d.nnz, d.binom, 1.0 / comb(28, 4))
            want = _brute_weights(t.counts, t.class_count, others)
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-15)
            assert abs(got.sum() - 1.0) < 1e-12  # every hand of the 28 cards, once
            checked += 1
    assert checked == 24


@pytest.mark.parametrize("lance,pattern,info", [("grande", 15, "private"), ("pares", 0b0111, "private"),
                                                ("juego", 0b1011, "pooled"), ("punto", 15, "pooled")])
def test_vector_regrets_are_the_deal_solvers_on_the_enumerated_deals(lance, pattern, info):
    """One sample of three hands with every hand of the fourth seat, each weighted by its
    brute-force P(hand | the three): the vector kernel's regrets of the owner equal those of
    the deal solver's kernel (checked on Kuhn poker and by brute force in test_betting) on
    the deals spelled out, every hand weighted by sample weight x P(hand | others)."""
    from musstats._kernels.cfr import cfr_regrets
    from musstats.engines.betting.info import prepare
    from musstats.engines.betting.vector import draw_others, vector_regrets
    from musstats.engines.solving.game import chunk_bounds

    v, t, game, vg, sigma = _subgame(lance, pattern, info, 11)
    owners = vg.layout.active()
    assert len(owners) >= 2
    for k in owners:
        hands, _ = draw_others(vg, k, 3, 5, (99, k))
        sw = np.array([1.0, 0.5, 2.0])
        got = vector_regrets(vg, k, sigma, hands, sw)
        deals, w = _spelled_out(vg, k, hands, sw, t)
        st, o, _ = prepare(game, deals, v, lance)
        acc = cfr_regrets(chunk_bounds(len(deals), 8), st, o, w, sigma, game.kernel_args(), game.U, game.n_slots)
        want = acc.sum(axis=0)
        lo = int(game.obase[k])
        hi = lo + int(game.n_states[k] * game.stride[k])
        assert np.abs(got[:lo]).max(initial=0) == 0 and np.abs(got[hi:]).max(initial=0) == 0
        scale = np.abs(want[lo:hi]).max()
        assert scale > 0
        np.testing.assert_allclose(got[lo:hi], want[lo:hi], rtol=0, atol=1e-9 * scale)


@pytest.mark.parametrize("lance,pattern,info", [("grande", 15, "private"), ("pares", 0b1101, "private"),
                                                ("juego", 0b0111, "pooled")])
def test_vector_best_response_gain_is_the_deal_solvers_on_the_enumerated_deals(lance, pattern, info):
    """Each owner's best-response gain and team 0's value of the profile, measured by the
    framework on the vector game with three samples of the others, equal its measure of the
    deal game of the same deals spelled out (checked on Kuhn poker and against brute-force
    pure strategies in test_betting), chosen and valued on them (exact: weighted means)."""
    from musstats.engines.betting.info import prepare
    from musstats.engines.betting.vector import draw_others
    from musstats.engines.solving.dealt import DealGame
    from musstats.engines.solving.exploit import best_response, nashconv, paired_gain, ratio
    from musstats.engines.solving.game import Sample

    v, t, game, vg, sigma = _subgame(lance, pattern, info, 5)
    SIG = vg.layout.from_game(sigma)
    checked = 0
    for k in vg.layout.active():
        hands, _ = draw_others(vg, k, 3, 8, (77, k))
        sw = np.array([1.0, 3.0, 0.25])
        vg.configure(given={k: ((hands, sw), (hands, sw))})  # owner k's samples only
        dev = vg.layout.with_rows(SIG, k, best_response(vg, k, SIG, Sample("choose")))
        gain_in, _ = paired_gain(vg, k, SIG, dev, Sample("choose"))
        gain, _ = paired_gain(vg, k, SIG, dev, Sample("eval"))
        deals, w = _spelled_out(vg, k, hands, sw, t)
        st, o, _ = prepare(game, deals, v, lance)
        dg = DealGame(game, (st, o, w))
        want = nashconv(dg, dg.layout.from_game(sigma))
        assert want.exact and want.gains_in[k] > 1e-6  # a random strategy is exploitable
        assert gain_in == pytest.approx(want.gains_in[k], rel=1e-9, abs=1e-12)
        assert gain == pytest.approx(want.gains_in[k], rel=1e-9, abs=1e-12)  # same set valued
        if int(game.team[k]) == 0:
            value, _ = ratio(*vg.sample_values(k, SIG, Sample("eval")))
            assert value == pytest.approx(want.value, rel=1e-9, abs=1e-12)
        checked += 1
    assert checked >= 2


@pytest.mark.parametrize("lance,pattern", [("grande", 15), ("pares", 15), ("juego", 0b1011)])
def test_pair_tables_give_the_enumerated_pairs_weights(lance, pattern):
    """A pooled team reads the summed weights of its pairs from a table per deck its opponents
    leave (vector.pair_table); the same samples with the pairs enumerated per sample (the
    reference, pair_tables=False) give the same regrets and best-response gains."""
    from musstats.engines.betting.vector import deck_codes, draw_others, remaining_decks, vector_game, vector_regrets
    from musstats.engines.solving.exploit import best_response, paired_gain
    from musstats.engines.solving.game import Sample

    v, t, game, vg, sigma = _subgame(lance, pattern, "pooled", 3)
    ref = vector_game(game, v, pattern, pair_tables=False)
    rmap, radix = deck_codes(vg.deck.cls_cnt)
    rems = remaining_decks(vg.deck.cls_cnt, 8)
    assert rems.shape[0] == (5715 if v.deck == "8-reyes" else -1) and (rmap >= 0).sum() == rems.shape[0]
    assert (rmap[rems @ radix] == np.arange(rems.shape[0])).all()
    pairs = [k for k in vg.layout.active() if vg.partner_seat(k) >= 0]
    assert pairs and all(vg.pair_tables[int(vg.ow[3, k])].shape[0] == rems.shape[0] for k in pairs)
    sigT = vg.layout.from_game(sigma)
    for k in pairs:
        hands, _ = draw_others(vg, k, 40, 9, (55, k))
        sw = np.linspace(0.5, 2.0, 40)
        got, want = vector_regrets(vg, k, sigma, hands, sw), vector_regrets(ref, k, sigma, hands, sw)
        scale = np.abs(want).max()
        assert scale > 0
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12 * scale)
        given = {k: ((hands, sw), (hands, sw))}
        g, w = (paired_gain(x, k, sigT, x.layout.with_rows(sigT, k, best_response(x, k, sigT)), Sample())[0]
                for x in (vg.configure(given=given), ref.configure(given=given)))
        assert g == pytest.approx(w, rel=1e-10, abs=1e-13)


def _team1_pairs_spelled_out(v, t, game, vg, lance, hands):
    """The deals of ``hands``' pairs of team 1 (seats 1 and 3) with every pair of team 0 spelled
    out, as the deal solver's data (states, outcomes, normalised weights): team 1's pairs weighted
    by their brute-force probability, team 0's by theirs given them."""
    from musstats.engines.betting.info import prepare

    first = _brute_weights(t.counts, t.class_count, [])
    sw = np.array([first[h[1]] * _brute_weights(t.counts, t.class_count, [int(h[1])])[h[3]] for h in hands])
    deals, w = _spelled_out(vg, 0, hands, sw, t)
    st, o, _ = prepare(game, deals, v, lance)
    return st, o, w / w.sum()


@pytest.mark.parametrize("lance,pattern,n_pairs", [("grande", 15, 2), ("pares", 15, 3), ("juego", 0b0111, 2)])
def test_exact_pooled_exploitability_is_the_deal_solvers_on_the_enumerated_deals(lance, pattern, n_pairs):
    """The exact NashConv of the pooled game (each team's best response over the exact law of
    the two teams' states, pooled.PooledGame) restricted to a few pairs of team 1 equals the
    exact measure of the deal game of the same deals spelled out: those pairs, weighted by their
    brute-force probability, with every pair of team 0 weighted by its brute-force probability
    given them."""
    from musstats.engines.betting.pooled import PooledGame
    from musstats.engines.betting.vector import draw_others
    from musstats.engines.solving.dealt import DealGame
    from musstats.engines.solving.exploit import measure

    v, t, game, vg, sigma = _subgame(lance, pattern, "pooled", 8)
    hands, _ = draw_others(vg, 0, n_pairs, 4, (66, 0))  # seats 1 and 3 dealt
    want = measure(DealGame(game, _team1_pairs_spelled_out(v, t, game, vg, lance, hands)), sigma, team=False)
    got = measure(PooledGame(vg, pairs1=hands[:, [1, 3]]), sigma, team=False)
    assert got.exact and min(want.gains_in) > 1e-6  # a random strategy is exploitable by both teams
    for k in (0, 1):
        assert got.gains[k] == pytest.approx(want.gains_in[k], rel=1e-9, abs=1e-12)
    assert got.value == pytest.approx(want.value, rel=1e-9, abs=1e-12)
    assert got.nashconv == pytest.approx(want.nashconv_in, rel=1e-9)


@pytest.mark.parametrize("lance,pattern", [("grande", 15), ("pares", 0b0111)])
def test_exact_pooled_regrets_are_the_deal_solvers_on_the_enumerated_deals(lance, pattern):
    """The full-width solver of the pooled game (pooled.solve_pooled) adds, per iteration, each
    team's regrets over the exact law of the states; restricted to two pairs of team 1 they
    equal the deal solver's regrets on the same deals spelled out (team 1's pairs weighted by
    their brute-force probability, every pair of team 0 by its brute-force probability given them)."""
    from musstats._kernels.cfr import cfr_regrets
    from musstats.engines.betting.pooled import pooled_regrets
    from musstats.engines.betting.vector import draw_others
    from musstats.engines.solving.game import chunk_bounds

    v, t, game, vg, sigma = _subgame(lance, pattern, "pooled", 12)
    hands, _ = draw_others(vg, 0, 2, 6, (68, 0))
    st, o, w = _team1_pairs_spelled_out(v, t, game, vg, lance, hands)
    want = cfr_regrets(chunk_bounds(len(st), 8), st, o, w, sigma, game.kernel_args(), game.U, game.n_slots).sum(axis=0)
    for k in (0, 1):
        got = pooled_regrets(vg, k, sigma, pairs1=hands[:, [1, 3]])
        lo = int(game.obase[k])
        hi = lo + int(game.n_states[k] * game.stride[k])
        scale = np.abs(want[lo:hi]).max()
        assert scale > 0 and np.abs(got[:lo]).max(initial=0) == 0 and np.abs(got[hi:]).max(initial=0) == 0
        np.testing.assert_allclose(got[lo:hi], want[lo:hi], rtol=0, atol=1e-9 * scale)


def test_exact_pooled_solutions_respect_the_symmetries_of_the_rules():
    """Two subgames that the rules make the same game have the same value (a two-player
    zero-sum game has one value, and a strategy's value is within its NashConv of it):
    with 8 reyes, reversing the ranks (R and A: 8 cards each; C-4, S-5, 7-6: 4 each) turns
    grande into chica; in pares with one holder per team, only who speaks first (and wins
    ties) matters, so mano+second, mano+postre and third+postre are one game and
    second+third is it with the teams swapped."""
    from musstats.engines.betting.pooled import PooledGame
    from musstats.engines.betting.specs import Spec
    from musstats.engines.betting.vector import vector_game
    from musstats.engines.solving.cfr import SolveConfig, solve
    from musstats.engines.solving.exploit import measure

    v = Variant()

    def solved(lance, pattern, iterations):
        pg = PooledGame(vector_game(Spec(lance=lance, pattern=pattern, info="pooled", variant=v).game(), v, pattern,
                                    pair_tables=False))
        e = measure(pg, solve(pg, SolveConfig(iterations=iterations)).sigma, team=False)
        assert e.exact and 0 < e.nashconv < 0.02
        return e.value, e.nashconv

    (vg_, ng), (vc, nc) = solved("grande", 15, 300), solved("chica", 15, 300)
    assert abs(vg_ - vc) <= ng + nc
    ref, nr = solved("pares", 0b0011, 150)  # mano + second
    for pattern in (0b1001, 0b1100):  # mano+postre, third+postre: the same game, the same solve
        val, n = solved("pares", pattern, 150)
        assert val == pytest.approx(ref, abs=1e-12) and n == pytest.approx(nr, abs=1e-12)
    val, n = solved("pares", 0b0110, 150)  # second+third: the teams swapped (and updated in the other order)
    assert abs(val + ref) <= nr + n


@pytest.mark.parametrize("lance,pattern,team", [("pares", 0b1011, 1), ("juego", 0b0111, 0)])
def test_pair_terminal_sums_are_a_plain_sum_over_the_opponents_hands(lance, pattern, team):
    """A team that sees both its hands (VectorGame.pair_response): for two of its pairs, the
    exact terminal sums equal a plain loop over the opponents' hands, each weighted by its card
    combinations (math.comb over the cards the pair leaves, then the cards the first opponent
    leaves), times the opponents' reach and the team's utility of the outcome -- who holds the
    best hand of the lance (hand keys, ties to the seat nearer to mano) and the holders' values."""
    from math import comb

    from musstats.engines.solving.game import Sample
    from musstats.rules.labels import LANCES

    v, t, game, vg, sigma = _subgame(lance, pattern, "private", 21)
    SIG = vg.layout.from_game(sigma)
    resp = vg.pair_response(team, SIG, Sample())
    starts, rems, pa, pb, pw = vg._pairs(team)
    li = LANCES.index(lance)
    col = {"pares": 2, "juego": 3}.get(lance)
    key = t.key[li]
    val = t.value[col] if col is not None else np.zeros(t.n_hands, int)
    lay = vg.layout
    tnodes = np.nonzero(lay.tr[0] == 1)[0]
    trow = np.zeros(lay.n_tz, np.int64)
    trow[lay.tr[7, tnodes]] = lay.tr[4, tnodes]
    R = {q: vg._seat_reach(SIG, q) for q in range(4)}
    o1, o2 = 1 - team, 3 - team
    rng = np.random.default_rng(4)
    for i in rng.choice(pa.shape[0], 2, replace=False):
        ha, hb = int(pa[i]), int(pb[i])
        left = t.class_count.astype(int) - t.counts[ha].astype(int) - t.counts[hb].astype(int)
        want = np.zeros(lay.n_tz)
        for h1 in vg.lists[o1]:
            c1 = t.counts[h1].astype(int)
            w1 = np.prod([comb(int(n), int(k)) for n, k in zip(left, c1)])
            if w1 == 0:
                continue
            for h2 in vg.lists[o2]:
                w2 = np.prod([comb(int(n), int(k)) for n, k in zip(left - c1, t.counts[h2].astype(int))])
                if w2 == 0:
                    continue
                hands = {team: ha, team + 2: hb, o1: int(h1), o2: int(h2)}
                best = max(range(4), key=lambda q: (key[hands[q]], -q))  # ties to the seat nearer to mano
                v0 = int(val[hands[0]] + val[hands[2]])
                v1 = int(val[hands[1]] + val[hands[3]])
                o = 49 * (best % 2 == 0) + 7 * v0 + v1
                u = game.U[trow, o] * (1 if team == 0 else -1)
                want += float(w1 * w2) * R[o1][h1] * R[o2][h2] * u
        np.testing.assert_allclose(resp["T"][:, i], float(pw[i]) * want, rtol=1e-9, atol=1e-9 * np.abs(want).max())


@pytest.mark.parametrize("lance,pattern,team", [("pares", 0b1011, 1), ("juego", 0b0111, 0)])
def test_pair_sums_against_a_mixture_are_the_mixed_sums(lance, pattern, team):
    """The pair sums against a mixture of the other team's profiles, from one pass over the
    deals with the opponents' joint reach (VectorGame.mixture_pair_sums), are the weighted sum of
    the sums against each profile -- which no product of one reach per seat gives."""
    from musstats.engines.betting.vector import JOINT_MAX
    from musstats.engines.solving.store import dequantise

    v, t, game, vg, _ = _subgame(lance, pattern, "private", 5)
    lay = vg.layout
    rng = np.random.default_rng(6)
    profiles = [lay.from_game(dequantise(rng.integers(1, 256, game.n_slots).astype(np.uint8), game))
                for _ in range(3)]
    w = np.array([0.5, 0.2, 0.3])
    got = vg.mixture_pair_sums(team, profiles, w)
    want = sum(wi * vg.pair_sums(team, S).T for wi, S in zip(w, profiles))
    np.testing.assert_allclose(got.T, want, rtol=1e-9, atol=1e-12 * np.abs(want).max())
    assert got.n == pytest.approx(vg.pair_sums(team, profiles[0]).n, rel=1e-12)
    product = vg.pair_sums(team, sum(wi * S for wi, S in zip(w, profiles))).T  # one behaviour strategy
    assert np.abs(product - want).max() > 1e-3 * np.abs(want).max()
    # the one pass of the joint reach, not the generic sum, computed them
    assert vg.lists[1 - team].shape[0] * vg.lists[3 - team].shape[0] * lay.n_tz <= JOINT_MAX


def test_pair_values_agree_with_the_vector_estimate_and_seeing_more_never_loses():
    """The team's value under the profile, summed exactly over every pair of its hands, agrees
    with the Monte Carlo value of the vector machinery (within 4 standard errors), and seeing
    both hands is worth at least as much as the profile (the best response of every pair)."""
    from musstats.engines.solving.exploit import ratio
    from musstats.engines.solving.game import Sample

    v, t, game, vg, sigma = _subgame("juego", 0b0111, "private", 3)
    SIG = vg.layout.from_game(sigma)
    best, base, W = vg.pair_values(0, SIG, vg.pair_response(0, SIG, Sample()), Sample())
    mc, se = ratio(*vg.configure(n_eval=20_000).sample_values(0, SIG, Sample("eval")))
    assert abs(base[0] / W[0] - mc) <= 4 * se and se > 0
    assert best[0] >= base[0] and (best[0] - base[0]) / W[0] > 0.01  # a random strategy gains from seeing more


@pytest.mark.parametrize("lance,pattern", [("grande", 15), ("pares", 0b1011)])
def test_range_weights_are_the_deal_solvers_on_the_reweighted_deals(lance, pattern):
    """A public history earlier in the hand reweights each seat's range by a factor per hand
    (his own probabilities of his actions on it).  With such factors (random, some hands ruled
    out), the vector kernel's regrets and the framework's best-response gains and value equal
    the deal solver's on the deals spelled out, each weighted by sample weight x P(hand |
    others) x the product of the four seats' factors of their hands."""
    from musstats._kernels.cfr import cfr_regrets
    from musstats.engines.betting.info import prepare
    from musstats.engines.betting.vector import draw_others, vector_regrets
    from musstats.engines.solving.dealt import DealGame
    from musstats.engines.solving.exploit import best_response, nashconv, paired_gain, ratio
    from musstats.engines.solving.game import Sample, chunk_bounds

    v, t, game, vg, sigma = _subgame(lance, pattern, "private", 3)
    rng = np.random.default_rng(19)
    rw = rng.uniform(0.0, 2.0, (4, t.n_hands)) * (rng.random((4, t.n_hands)) > 0.2)
    vg.configure(range_weights=rw)
    SIG = vg.layout.from_game(sigma)
    checked = 0
    for k in vg.layout.active():
        hands, _ = draw_others(vg, k, 3, 8, (55, k))
        sw = np.array([1.0, 2.0, 0.5])
        deals, w = _spelled_out(vg, k, hands, sw, t)
        w = w * np.prod(rw[np.arange(4)[None, :], deals], axis=1)
        st, o, _ = prepare(game, deals, v, lance)
        got = vector_regrets(vg, k, sigma, hands, sw)
        want = cfr_regrets(chunk_bounds(len(deals), 8), st, o, w, sigma, game.kernel_args(), game.U,
                           game.n_slots).sum(axis=0)
        lo, hi = int(game.obase[k]), int(game.obase[k] + game.n_states[k] * game.stride[k])
        scale = np.abs(want[lo:hi]).max()
        assert scale > 0
        np.testing.assert_allclose(got[lo:hi], want[lo:hi], rtol=0, atol=1e-9 * scale)
        vg.configure(given={k: ((hands, sw), (hands, sw))})
        dev = vg.layout.with_rows(SIG, k, best_response(vg, k, SIG, Sample("choose")))
        gain, _ = paired_gain(vg, k, SIG, dev, Sample("eval"))
        dg = DealGame(game, (st, o, w / w.sum()))
        ref = nashconv(dg, dg.layout.from_game(sigma))
        assert ref.gains_in[k] > 1e-6
        assert gain == pytest.approx(ref.gains_in[k], rel=1e-9, abs=1e-12)
        if int(game.team[k]) == 0:
            value, _ = ratio(*vg.sample_values(k, SIG, Sample("eval")))
            assert value == pytest.approx(ref.value, rel=1e-9, abs=1e-12)
        checked += 1
    assert checked >= 2


def test_range_weights_are_checked():
    from musstats.base.errors import MusError

    _, t, _, vg, _ = _subgame("grande", 15, "private", 1)
    with pytest.raises(MusError):
        vg.configure(range_weights=np.ones((3, t.n_hands)))
    with pytest.raises(MusError):
        vg.configure(range_weights=-np.ones((4, t.n_hands)))
    vg.configure(range_weights=np.ones((4, t.n_hands)))
    with pytest.raises(MusError):  # the exact sums over a pair's hands do not read them
        vg.pair_response(0, vg.layout.uniform(), None)
