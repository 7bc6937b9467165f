"""The mus phase: card bookkeeping, draws, best discards, strategy table, CLI; mus and discard
agree on the keep-set."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from itertools import combinations_with_replacement
from math import comb, prod

import numpy as np
import pytest

import naive
from helpers import assert_exit2_one_line, run_cli
from musstats import Variant
from musstats.analysis.discard import discard
from musstats.analysis.discard_table import best_response, build_table
from musstats.engines.exact import exact_table
from musstats.engines.musphase import deck_ids, evaluate_keeps
from musstats.rules.cards import Card, parse_cards, parse_hand
from musstats.tables.context import make_context
from musstats.tables.hands import hand_tables
from musstats.tables.policies import KEEP_ALL, get_policy, heuristic_policy, keep_mask_for, keep_options


#: the kernels of these tests run on one numba thread unless a test asks for more (conftest)
pytestmark = pytest.mark.usefixtures("one_numba_thread")


V = Variant()


def ctx_at(hand, seat, *, dead=None, allowed=None):
    """The context of ``hand`` at seat index ``seat`` (0 = mano), 8 reyes."""
    ctx = make_context(V, hand, seat + 1, dead=dead or None)
    return ctx if allowed is None else replace(ctx, allowed=allowed)


def _kernel_state(seed=0):
    """A fresh deal of 40 physical cards: hands [4,4], stock, empty pile."""
    rng = np.random.default_rng(seed)
    deck = rng.permutation(40).astype(np.int64)
    hands = deck[:16].reshape(4, 4).copy()
    stock = np.zeros(40, np.int64)
    stock[:24] = deck[16:]
    return hands, stock, 24, np.zeros(40, np.int64), np.zeros(40, np.int64), 0


def _run(hands, stock, n_stock, pile, owner, n_pile, first, rounds, masks, seed=1):
    from musstats._kernels.mus import mus_rounds

    t = hand_tables(V)
    policy = np.array([np.full(t.n_hands, m, np.int64) for m in masks])
    st = np.random.SeedSequence(seed).generate_state(4, np.uint64)
    return mus_rounds(hands, stock, n_stock, pile, owner, n_pile, first, rounds, 0, masks[0], policy,
                      deck_ids(V), t.n_classes, t.idx4.astype(np.int64), st)


def _all_cards(hands, stock, n_stock, pile, n_pile):
    return list(hands.ravel()) + list(stock[:n_stock]) + list(pile[:n_pile])


def test_many_rounds_of_four_card_discards_keep_40_distinct_cards():
    hands, stock, n_stock, pile, owner, n_pile = _kernel_state(7)
    for r in range(12):  # stock runs out every other round
        n_stock, n_pile = _run(hands, stock, n_stock, pile, owner, n_pile, r, 1, [0, 0, 0, 0], seed=r)
        cards = _all_cards(hands, stock, n_stock, pile, n_pile)
        assert sorted(cards) == list(range(40)), f"round {r}"


def test_reshuffle_leaves_out_the_last_players_own_discards():
    hands, stock, n_stock, pile, owner, n_pile = _kernel_state(3)
    # round 0: everyone throws 4 -> 24 - 16 = 8 cards left in the stock
    n_stock, n_pile = _run(hands, stock, n_stock, pile, owner, n_pile, 0, 1, [0, 0, 0, 0])
    assert n_stock == 8 and n_pile == 16
    before = hands.copy()
    # round 1: mano throws 4, second 3 (mask 1 keeps card 0), third 1 (mask 7), postre 2 (mask 3):
    # 4 + 3 + 1 = 8 empties the stock exactly when only postre still needs cards
    n_stock, n_pile = _run(hands, stock, n_stock, pile, owner, n_pile, 1, 1, [0, 1, 7, 3])
    cards = _all_cards(hands, stock, n_stock, pile, n_pile)
    assert sorted(cards) == list(range(40))
    # postre's two discards of this round stayed out of the new stock: they are the pile now
    assert n_pile == 2 and set(owner[:2]) == {3 * 64 + 1}
    postre_thrown = set(pile[:2])
    assert postre_thrown <= set(before[3]) and not postre_thrown & set(hands[3])
    # the new stock held the other 16 + 8 discards; postre drew 2 of them
    assert n_stock == 22


def test_reshuffle_with_several_players_owed_uses_all_discards():
    hands, stock, n_stock, pile, owner, n_pile = _kernel_state(5)
    n_stock, n_pile = _run(hands, stock, n_stock, pile, owner, n_pile, 0, 1, [0, 0, 0, 0])
    # round 1: everyone throws 4: the stock (8) runs out while third and postre are owed cards
    n_stock, n_pile = _run(hands, stock, n_stock, pile, owner, n_pile, 1, 1, [0, 0, 0, 0])
    assert n_pile == 0 and n_stock == 32 - 8
    assert sorted(_all_cards(hands, stock, n_stock, pile, n_pile)) == list(range(40))


def test_single_discard_draws_are_hypergeometric():
    # mano holds R R 7 A and keeps R R; nobody else changes cards.  His final hand is
    # R R plus 2 cards drawn from the 36 unseen: R 6, C 4, S 4, 7 3, 6 4, 5 4, 4 4, A 7.
    from musstats._kernels.mus import mus_rounds

    t = hand_tables(V)
    cards = parse_hand("R R 7 A")
    mask = keep_mask_for(cards, parse_cards("R R"))
    unseen = {"R": 6, "C": 4, "S": 4, "7": 3, "6": 4, "5": 4, "4": 4, "A": 7}
    expected = {}
    for pair in combinations_with_replacement(unseen, 2):
        c = Counter(pair)
        w = prod(comb(unseen[k], n) for k, n in c.items()) / comb(36, 2)
        expected[t.index_of(parse_hand("R R " + " ".join(pair)))] = w
    assert abs(sum(expected.values()) - 1) < 1e-12
    card_class = deck_ids(V)
    ids = {lab: [i for i in range(40) if V.classes[card_class[i]].label == lab] for lab in unseen}
    user = np.array([ids["R"][0], ids["R"][1], ids["7"][0], ids["A"][0]], np.int64)
    rest = np.array([i for i in range(40) if i not in set(user)], np.int64)
    policy = np.full((4, t.n_hands), KEEP_ALL, np.int64)
    rng = np.random.default_rng(11)
    n = 40_000
    counts = Counter()
    for trial in range(n):
        perm = rng.permutation(rest)
        hands = np.empty((4, 4), np.int64)
        hands[0] = user
        hands[1:] = perm[:12].reshape(3, 4)
        stock = np.zeros(40, np.int64)
        stock[:24] = perm[12:]
        st = np.random.SeedSequence([11, trial]).generate_state(4, np.uint64)
        mus_rounds(hands, stock, 24, np.zeros(40, np.int64), np.zeros(40, np.int64), 0, 0, 1, 0, mask, policy,
                   card_class, t.n_classes, t.idx4.astype(np.int64), st)
        counts[t.index_of([_card(card_class[i]) for i in hands[0]])] += 1
    assert set(counts) <= set(expected)
    for h, p in expected.items():
        se = np.sqrt(p * (1 - p) / n)
        assert abs(counts[h] / n - p) < 4 * se + 1e-9, (t.labels[h], counts[h] / n, p)


def _card(cls: int) -> Card:
    c = V.classes[int(cls)]
    return Card(c.faces[0])


def test_no_discards_reproduce_the_exact_showdown():
    # with nobody changing cards (keep-all everywhere), the mus engine is a plain showdown
    policy = np.full((4, hand_tables(V).n_hands), KEEP_ALL, np.uint8)
    for seat in (0, 3):
        ctx = ctx_at("C S 5 A", seat)
        ev = evaluate_keeps(ctx, [KEEP_ALL], policy, trials=200_000, seed=5)
        ex = exact_table(ctx)
        assert np.all(np.abs(ev.ev[0] - ex[:, 4]) <= 4 * ev.ev_se[0] + 1e-12)


def test_best_discard_matches_brute_force():
    # Others never change cards.  Then keeping K and throwing D gives a final hand K + draw,
    # the draw hypergeometric from the 36 unseen cards, and the other hands dealt from the
    # rest with D out of play: brute force = sum over draws of P(draw) * exact odds with
    # dead = D.  Fixture: R R 7 7 at second, the keep-sets that throw one or two cards.
    cards = parse_hand("R R 7 7")
    t = hand_tables(V)
    seat = 1
    opts = [o for o in keep_options(t.index_of(cards)) if len(o[1]) >= 2]
    unseen = {"R": 6, "C": 4, "S": 4, "7": 2, "6": 4, "5": 4, "4": 4, "A": 8}
    brute = []
    for mask, kept, label in opts:
        kept_labels = [V.classes[c].label for c in kept]
        thrown = [x for x, n in (Counter(["R", "R", "7", "7"]) - Counter(kept_labels)).items() for _ in range(n)]
        d = len(thrown)
        total = 0.0
        for draw in combinations_with_replacement(unseen, d):
            c = Counter(draw)
            w = prod(comb(unseen[k], n) for k, n in c.items()) / comb(36, d)
            if w == 0:
                continue
            tab = exact_table(ctx_at(" ".join(kept_labels + list(draw)), seat, dead=" ".join(thrown)))
            total += w * float(np.nansum(tab[:, 4]))
        brute.append(total)
    policy = np.full((4, t.n_hands), KEEP_ALL, np.uint8)
    ev = evaluate_keeps(ctx_at("R R 7 7", seat), [m for m, _, _ in opts], policy, trials=300_000, seed=8)
    se = ev.total_se()
    for i in range(len(opts)):
        assert abs(ev.total[i] - brute[i]) < 4 * se[i], (opts[i][2], ev.total[i], brute[i])
    order = np.argsort(brute)[::-1]
    assert brute[order[0]] - brute[order[1]] > 4 * ev.diff_se(order[0], order[1])
    assert int(np.argmax(ev.total)) == int(order[0])


def test_iterated_best_response_converges_and_is_stable():
    t = hand_tables(V)
    labels = ["R R 7 A", "C S 5 4", "7 7 6 A", "R C 4 A", "A A 5 4"]
    hands = [t.index_of(parse_hand(x)) for x in labels]
    table = build_table(V, start="grande", trials=4000, max_iter=6, seed=1, hands=hands, seats=(0, 3))
    assert table.converged and table.sweeps[-1].changed == 0
    assert table.sweeps[0].changed > 0  # "keep reyes only" is not a best response for these hands
    # every final entry is a best response: no keep-set beats it by more than 2 SE
    res = best_response([(s, h) for s in (0, 3) for h in hands], table.policy, V, 4000, 1)
    for s, h, mask, gain, se in res:
        assert gain <= 2 * se + 1e-12
    # deterministic: the same seed gives the same table
    again = build_table(V, start="grande", trials=4000, max_iter=6, seed=1, hands=hands, seats=(0, 3))
    assert np.array_equal(table.policy, again.policy)


def test_heuristics_keep_what_they_say():
    t = hand_tables(V)
    h = t.index_of(parse_hand("R R 7 A"))
    kept = lambda pol: [V.classes[t.cls4[h][i]].label for i in range(4) if heuristic_policy(pol)[0, h] >> i & 1]
    assert kept("reyes-pairs") == ["R", "R"]
    assert kept("grande") == ["R", "R"]
    assert kept("chica") == ["A"]
    h = t.index_of(parse_hand("R C S A"))
    assert [V.classes[t.cls4[h][i]].label for i in range(4) if heuristic_policy("31")[0, h] >> i & 1] == ["R", "C", "S"]
    # a keep-all result must still throw one card
    assert all(heuristic_policy(p)[0, t.index_of(parse_hand("R R R R"))] != KEEP_ALL for p in ("reyes-pairs", "grande"))


def test_keep_options_are_distinct():
    t = hand_tables(V)
    assert len(keep_options(t.index_of(parse_hand("R C 7 A")))) == 15
    assert len(keep_options(t.index_of(parse_hand("R R R R")))) == 4  # keep 0..3 reyes
    assert len(keep_options(t.index_of(parse_hand("R R 7 A")))) == 11


@pytest.mark.parametrize("args, fragment", [
    (["discard", "R", "R", "7", "A", "--keep", "C"], "not part of the hand"),
    (["discard", "R", "R", "7", "A", "--keep", "R", "R", "7", "A"], "at least one card must go"),
    (["mus", "R", "R", "7", "A", "--rounds", "0"], "rounds must be a whole number from 1 to 8, got 0"),
    (["mus", "R", "R", "7", "A", "--rounds", "9"], "rounds must be a whole number from 1 to 8, got 9"),
    (["mus", "R", "R", "7", "A", "--policy", "nope"], "'table', 'reyes-pairs'"),
    (["discard", "R", "R", "7", "A", "--objective", "punto"], "'total', 'grande'"),
    (["discard", "R", "R", "7"], "exactly 4 cards"),
    (["discard", "R", "R", "7", "A", "--trials", "0"], "trials must be a whole number from 1 to 50,000,000, got 0"),
    (["discard", "R", "R", "7", "A", "--trials", "2.5"], "trials must be a whole number"),
    (["discard", "R", "R", "7", "A", "--seed", "-1"], "seed must be a whole number from 0"),
    (["mus", "R", "R", "7", "A", "--seat", "second", "--seat", "third"], "--seat is given twice"),
    (["discard", "R", "R", "7", "A", "--trials", "100", "--trials", "100"], "--trials is given twice"),
])
def test_bad_input(args, fragment, capsys):
    assert_exit2_one_line(capsys, args, fragment)


def test_discard_and_mus_json(capsys):
    code, out, err = run_cli(capsys, ["discard", "R", "R", "7", "A", "--seat", "postre", "--trials", "20000",
                                      "--seed", "4", "--format", "json"])
    assert code == 0, err
    doc = json.loads(out)
    assert doc["seat"] == "postre" and doc["trials"] == 20000 and doc["seed"] == 4
    assert len(doc["keep_sets"]) == 11 and doc["keep_sets"][0]["recommended"]
    assert [k["recommended"] for k in doc["keep_sets"]] == [True] + [False] * 10
    # ranked by the total with betting (tests/test_betting_value.py), which is the objective
    assert doc["ranked_by"] == "total with betting"
    totals = [k["objective"] for k in doc["keep_sets"]]
    assert totals == sorted(totals, reverse=True)
    assert all(k["objective"] == k["ev_total_with_betting"] for k in doc["keep_sets"])
    # the JSON starts with the context, then the run
    keys = list(doc)
    assert keys[:10] == ["variant", "rules", "players", "individual", "teams", "hand", "seat", "team", "dead",
                         "conditions"]
    assert keys.index("method") < keys.index("trials") < keys.index("seed") < keys.index("partial")
    # --keep compares one keep-set with the best one: the same deals, so the same numbers
    best = doc["keep_sets"][0]["keep"]
    by_keep = {k["keep"]: k for k in doc["keep_sets"]}
    for keep in (best, "7 A"):
        code, out, err = run_cli(capsys, ["discard", "R", "R", "7", "A", "--seat", "postre", "--trials", "20000",
                                          "--seed", "4", "--format", "json", "--keep", *keep.split()])
        assert code == 0, err
        kept = json.loads(out)
        assert [k["keep"] for k in kept["keep_sets"]] == list(dict.fromkeys([best, keep]))
        assert [k["yours"] for k in kept["keep_sets"]] == ([True] if keep == best else [False, True])
        assert kept["keep_sets"][0]["recommended"] and kept["recommended"] == best
        for row in kept["keep_sets"]:
            assert row["ev_total"] == by_keep[row["keep"]]["ev_total"]
            assert row["gap_to_best"] == by_keep[row["keep"]]["gap_to_best"]
    code, out, err = run_cli(capsys, ["mus", "R", "R", "7", "A", "--seat", "postre", "--trials", "20000",
                                      "--seed", "4", "--format", "json"])
    assert code == 0, err
    mdoc = json.loads(out)
    assert mdoc["advice_en_paso"] == ("cut" if mdoc["difference"]["value"] <= 0 else "ask for mus")
    assert mdoc["difference"]["value"] == pytest.approx(mdoc["mus"]["ev_total"] - mdoc["cut"]["ev_total"])
    assert 0 < mdoc["p_others_ask"] < 1 and mdoc["given"] == "the other three ask for mus"
    assert 0 < mdoc["difference"]["se"] < mdoc["cut"]["se"] + mdoc["mus"]["se"]  # common random numbers
    # the answer is the mus decision's equilibrium (it ships for 8 reyes); the comparison with
    # betting against the shipped cut flags is kept beside it, and the keep-set is discard's best
    b, eq = mdoc["with_betting"], mdoc["equilibrium"]
    assert mdoc["advice"] == mdoc["recommended"] == eq["advice"] == ("cut" if eq["p_cut"] >= 0.5 else "ask for mus")
    assert mdoc["advice_by"] == "equilibrium of the mus decision" and 0 < eq["speaks"] <= 1
    assert eq["cut_minus_ask"] == pytest.approx(eq["ev_cut"] - eq["ev_ask"])
    assert b["advice"] == ("cut" if b["difference"]["value"] <= 0 else "ask for mus")
    assert mdoc["keep"] == b["keep"] == doc["recommended"] and mdoc["keep_ranked_by"] == "total with betting"
    # one computation: the same seed gives mus the numbers discard shows for that keep-set
    row = by_keep[mdoc["keep"]]
    assert mdoc["mus"]["ev_total"] == pytest.approx(row["ev_total"], abs=1e-12)
    assert b["mus"]["ev_total"] == pytest.approx(row["ev_total_with_betting"], abs=1e-12)
    assert doc["given"].startswith("the mus round happens: the other three ask for mus")


@pytest.mark.parametrize("hand, seat", [("5 5 4 4", "postre"), ("R R 7 A", "mano")])
def test_mus_keeps_what_discard_recommends(hand, seat):
    """The mus happens only when the other three ask: discard ranks the keep-sets on those
    deals, with betting, and mus takes its keep-set from that ranking (the same seed, the
    same deals)."""
    from musstats.analysis.discard import mus

    d = discard(hand, seat, trials=20_000, seed=1)
    m = mus(hand, seat, trials=20_000, seed=1)
    assert m.keep == d.rows[0]["keep"] and m.ranked_by == "total with betting" == d.to_dict()["ranked_by"]
    assert m.betting is not None and m.betting["keep"] == m.keep
    assert float(m.mus_ev.sum()) == pytest.approx(d.rows[0]["ev_total"], abs=1e-12)


def test_repeated_keep_merges_and_csv_has_metadata(capsys):
    base = ["mus", "R", "C", "7", "A", "--seat", "third", "--trials", "5000", "--seed", "2", "--format", "json"]
    code, one, err = run_cli(capsys, base + ["--keep", "R", "C"])
    assert code == 0, err
    code, two, err = run_cli(capsys, base + ["--keep", "R", "--keep", "C"])
    assert code == 0, err
    assert one == two and json.loads(one)["keep"] == "R C"
    for cmd in ("discard", "mus"):
        code, out, err = run_cli(capsys, [cmd, "R", "C", "7", "A", "--trials", "5000", "--seed", "2",
                                          "--format", "csv"])
        assert code == 0, err
        lines = out.splitlines()
        assert lines[0] == '# variant: "8-reyes"' and '# seed: 2' in lines and '# trials: 5000' in lines
        assert not lines[sum(1 for ln in lines if ln.startswith("#"))].startswith("#")


def test_cutting_given_the_others_ask_is_the_exact_conditional_showdown():
    # "cut" on the deals in which the other three ask for mus = the exact showdown with the
    # other seats restricted to hands they would not cut with (the exact engine's masks)
    from musstats._kernels.mus import NO_MUS
    from musstats.engines.exact import exact_counts
    from musstats.tables.policies import cut_flags

    policy, _ = get_policy("table", V)
    allowed = ~cut_flags(V)
    for seat in (0, 3):
        ev = evaluate_keeps(ctx_at("C S 5 A", seat), [NO_MUS], policy, trials=200_000, seed=6, others_ask=True)
        ex = exact_table(ctx_at("C S 5 A", seat, allowed=allowed))
        assert np.all(np.abs(ev.ev[0] - ex[:, 4]) <= 4 * ev.ev_se[0] + 1e-12), seat
        assert np.all(np.abs(ev.p_team[0] - ex[:, 0]) <= 4 * np.sqrt(ex[:, 0] * (1 - ex[:, 0]) / 200_000) + 1e-12)
    # the share of kept deals is P(no other seat holds a cut hand), from the exact engine's totals
    _, tot_all = exact_counts(ctx_at("C S 5 A", 3), seats=(3,))  # the last ev above is postre's
    _, tot_ok = exact_counts(ctx_at("C S 5 A", 3, allowed=allowed), seats=(3,))
    p = tot_ok[3] / tot_all[3]
    assert abs(ev.p_deal_kept - p) < 4 * np.sqrt(p * (1 - p) / 200_000 / p)


def test_same_seed_same_answer():
    a = discard("C S 4 A", "third", trials=5000, seed=9)
    b = discard("C S 4 A", "third", trials=5000, seed=9)
    assert a.rows == b.rows and a.seed == 9 and a.trials == 5000
    c = discard("C S 4 A", "third", trials=5000, seed=10)
    assert [r["ev_total"] for r in c.rows] != [r["ev_total"] for r in a.rows]


def test_discard_result_frame_and_dict():
    res = discard("R R 7 A", 4, trials=5000, seed=3)
    df = res.to_frame()
    assert list(df["keep"]) == [r["keep"] for r in res.rows] and len(df) == 11
    assert df.attrs["seat"] == "postre" and df.attrs["trials"] == 5000 and "keep_sets" not in df.attrs
    d = res.to_dict()
    assert d["recommended"] == res.rows[0]["keep"] and d["keep_sets"] == res.rows


@pytest.mark.slow
def test_deals_after_mus_match_a_plain_python_mus_round():
    # Independent bookkeeping (tests/naive.py): shuffle 40 cards, deal 4 x 4, each seat in turn
    # throws what the policy says and draws from the top of the stock.  Compare the frequencies
    # of pares and juego after the round with the kernel's deals.
    from musstats.engines.musphase import deals_after_mus

    t = hand_tables(V)
    policy, _ = get_policy("reyes-pairs", V)
    card_class = deck_ids(V)
    rng = np.random.default_rng(2)
    n_py = 20_000

    def index(cards):
        return t.index_of([_card(card_class[c]) for c in cards])

    stats_py = np.zeros((n_py, 3))
    for i in range(n_py):
        hands = naive.mus_round(rng, card_class, lambda q, hand: policy[q, index(hand)])
        idx = [index(hh) for hh in hands]
        stats_py[i] = [t.pares_cat[idx[0]] > 0, t.points[idx[0]] >= 31, t.points[idx[3]] >= 31]
    deals = deals_after_mus(400_000, 3, V, policy="reyes-pairs")
    stats_k = np.stack([t.pares_cat[deals[:, 0]] > 0, t.points[deals[:, 0]] >= 31,
                        t.points[deals[:, 3]] >= 31], axis=1).astype(float)
    for j in range(3):
        p_py, p_k = stats_py[:, j].mean(), stats_k[:, j].mean()
        se = np.sqrt(p_py * (1 - p_py) / n_py + p_k * (1 - p_k) / len(stats_k))
        assert abs(p_py - p_k) < 4 * se, (j, p_py, p_k)
    # the mus round changes hands: pares after keeping reyes and pairs are more common than dealt
    dealt_pares = int(t.deal_weight[t.pares_cat > 0].sum()) / 91390
    assert stats_k[:, 0].mean() > dealt_pares + 0.05


def test_partial_shuffle_is_uniform_on_the_drawn_positions():
    # shuffling the last 2 of 5 positions must give each of the 20 ordered pairs with p = 1/20
    from musstats._kernels.dealing import shuffle as _shuffle

    st = np.random.SeedSequence(1).generate_state(4, np.uint64)
    n = 40_000
    counts = Counter()
    for _ in range(n):
        a = np.arange(5, dtype=np.int64)
        _shuffle(a, 5, st, 2)
        counts[(int(a[3]), int(a[4]))] += 1
        assert sorted(a) == list(range(5))
    assert len(counts) == 20
    p, se = 1 / 20, np.sqrt(1 / 20 * 19 / 20 / n)
    for k, c in counts.items():
        assert abs(c / n - p) < 4.5 * se, k
