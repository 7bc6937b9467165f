"""A hand as the table has seen it (musstats.analysis.reading, ``musstats hand``): the history
notation and its errors, and what the history says of the other hands, checked against an
exact enumeration and hand calculations."""

from __future__ import annotations

import json
from math import comb

import numpy as np
import pytest

from helpers import run_cli
from musstats.base.errors import MusError
from musstats.rules.variant import Variant

V = Variant()
GRANDE_BET = "mus,corto; grande: paso,envido 2"


def _parse(text, seat=0, cards="R R 3 A"):
    from musstats.analysis.reading import parse_history
    from musstats.rules.cards import parse_hand
    from musstats.tables.hands import hand_tables

    return parse_history(text, seat, hand_tables(V).index_of(parse_hand(cards)), V)


# ---------------------------------------------------------------------------- the notation


@pytest.mark.parametrize("text, nxt", [
    (None, ("mus", 0)),
    ("mus,mus", ("mus", 2)),
    ("mus,mus,corto", ("bet", 0)),  # grande opens at mano
    ("mus,mus,mus,mus", ("discard", None)),
    ("mus,mus,mus,mus; 1,3,2,4", ("bet", 0)),  # the mus taken as cut after the one round modelled
    ("mus,mus,mus,mus; descarte 1 3 2 4; mus,corto; grande: paso", ("bet", 1)),
    ("corto; grande: paso,envido 2", ("bet", 2)),  # answered counterclockwise from the bettor: third first
    ("corto; grande: paso,paso,paso,paso", ("bet", 0)),  # chica opens
    ("corto; grande: paso,paso,paso,paso; chica: paso,paso,paso,paso", ("declare", "pares")),
    ("corto; grande: órdago,quiero", ("over", None)),
    ("corto; grande: paso,paso,paso,paso; chica: paso,paso,paso,paso; pares mano+second: paso", ("bet", 1)),
    ("corto; grande: paso,paso,paso,paso; chica: paso,paso,paso,paso; pares mano+third", ("declare", "juego")),
    ("corto; grande: mano paso, second envido 2, third no, mano no", ("bet", 0)),
])
def test_a_history_reads_as_the_rules_order_it(text, nxt):
    """Mus from mano until a cut, the throws after four mus, then grande, chica, the pares
    declarations and juego or punto; whose turn it is follows the rules (RULES.md)."""
    assert _parse(text).next == nxt


@pytest.mark.parametrize("text, words", [
    ("grande: paso", "the lances follow the mus"),  # out of order
    ("corto; chica: paso", "the next lance is grande"),
    ("corto,mus", "nobody speaks after him"),
    ("mus,mus,mus,mus; 1,5,2,3", "1 to 4 cards"),  # discard counts out of 1-4
    ("mus,mus,mus,mus; 0,1,2,3", "1 to 4 cards"),
    ("mus,mus,mus,mus; 1,2,3", "each of the four seats"),
    ("mus,corto; 1,2,3,4", "only after all four ask"),
    ("corto; grande: órdago,quiero; chica: paso", "ended with the órdago accepted in grande"),  # after an órdago
    ("corto; grande: paso,paso,paso,paso; chica: paso,paso,paso,paso; pares mano+second: third paso",
     "third has no say in pares"),  # a bet by a player who has no say
    ("corto; grande: mano paso, third envido 2", "second's turn, not third's"),
    ("corto; grande: paso,paso,paso,paso; chica: paso,paso,paso,paso; pares mano+third: paso", "is not bet"),
    ("corto; grande: paso,paso,paso,paso; chica: paso,paso,paso,paso; pares second", "your hand holds pares"),
    ("corto; grande: paso; chica: paso", "grande's betting is not over"),
    ("corto; grande: paso,quiero", "not a legal sequence"),
    ("mus,mus,mus,mus; 1,1,1,1; mus,mus,mus,mus", "one mus round"),
    ("corto; envido", "cannot read"),
])
def test_a_bad_history_is_one_clear_error(text, words):
    with pytest.raises(MusError, match=words):
        _parse(text)


@pytest.mark.parametrize("text, words", [
    ("chica: paso; corto", "the lances follow the mus"),  # out of order
    ("corto; grande: paso,paso,paso,paso; chica: paso,paso,paso,paso; pares mano+second: postre paso",
     "postre has no say"),  # a bet by a player who has no say
    ("mus,mus,mus,mus; 2,0,1,3", "1 to 4 cards"),  # discard counts out of 1-4
    ("corto; grande: órdago,quiero; chica: paso", "órdago accepted"),  # a lance after an accepted órdago
])
def test_a_bad_history_exits_2_with_one_line(capsys, text, words):
    code, out, err = run_cli(capsys, ["hand", "R", "R", "3", "A", "--seat", "mano", "--history", text])
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and words in err


# ---------------------------------------------------------------------------- the reads


def _class_counts(cards: str) -> np.ndarray:
    from musstats.rules.cards import parse_hand
    from musstats.tables.hands import hand_tables

    return hand_tables(V).remaining(parse_hand(cards))


def _ways(hands: np.ndarray, left: np.ndarray) -> np.ndarray:
    """Card combinations giving each hand (class counts [H, K]) from ``left`` [K] (0 where short)."""
    out = np.ones(hands.shape[0])
    for k in range(hands.shape[1]):
        out *= np.array([comb(int(left[k]), int(n)) for n in hands[:, k]], float)
    return out


def test_the_prior_is_a_deal_with_only_your_cards_known():
    """Hand calculation: with no rey in your hand, 8 of the 36 unseen cards are reyes, so a seat
    holds two or more with probability 1 - (C(28,4) + 8 C(28,3)) / C(36,4)."""
    from musstats.analysis.reading import hand

    r = hand("C S 7 4", "third", history=GRANDE_BET)
    want = 1 - (comb(28, 4) + 8 * comb(28, 3)) / comb(36, 4)
    for seat in ("mano", "second", "postre"):
        assert r.reads[seat]["reyes2"]["prior"] == pytest.approx(want, abs=0.005)


def test_a_grande_envite_reads_as_an_exact_enumeration_gives_it():
    """Mano asked for mus, second cut, mano passed and second envided in grande; third reads them.
    The posterior of second's and mano's hands by Bayes' rule over every pair of their hands
    (exact card-removal counts, the calls by the mus decision's shipped equilibrium and the
    grande strategies of a hand that second cut, the tremble of the definition) against the
    Monte Carlo reading; second's P(two or more reyes) is far above the prior, mano's below it."""
    from musstats.analysis.betting import _strategy
    from musstats.analysis.reading import TREMBLE, hand
    from musstats.engines.betting.tree import betting_tree
    from musstats.analysis.cut_game import load_equilibrium
    from musstats.tables.hands import hand_tables

    t = hand_tables(V)
    H = t.n_hands
    left = _class_counts("C S 7 4")
    p_cut = load_equilibrium(V).p_cut
    tree = betting_tree("grande", 15)
    n_paso = tree.parse_history([])
    n_env = tree.parse_history(["paso"])
    env = tree.nodes[n_env].actions.index("envido 2")

    def tremble(p, n):
        return (1 - TREMBLE) * p + TREMBLE / n

    sol = _strategy("grande", 15, "cut", "mus-read", V)  # the strategies given who cut: second (state hand x 4 + 1)
    asks, cuts = 1 - p_cut[0], p_cut[1]  # mano asked, second cut
    f0 = (TREMBLE + (1 - 2 * TREMBLE) * asks) * tremble(sol.game.block(sol.sigma, n_paso)[1::4, 0], 4)
    f1 = (TREMBLE + (1 - 2 * TREMBLE) * cuts) * tremble(sol.game.block(sol.sigma, n_env)[1::4, env], 4)
    p0 = _ways(t.counts, left)
    joint = np.zeros((H, H))
    for h0 in range(H):
        if p0[h0] == 0:
            continue
        joint[h0] = p0[h0] * f0[h0] * _ways(t.counts, left - t.counts[h0]) * f1
    joint /= joint.sum()
    rey = len(V.classes) - 1
    reyes2 = (t.counts[:, rey] >= 2).astype(float)
    pares = (t.pares_cat > 0).astype(float)
    r = hand("C S 7 4", "third", history=GRANDE_BET, samples=400_000)
    for seat, marg in (("second", joint.sum(axis=0)), ("mano", joint.sum(axis=1))):
        for key, x in (("reyes2", reyes2), ("pares", pares)):
            got = r.reads[seat][key]
            assert got["posterior"] == pytest.approx(float(marg @ x), abs=max(4 * got["se"], 0.004)), (seat, key)
    assert r.reads["second"]["reyes2"]["posterior"] > 2 * r.reads["second"]["reyes2"]["prior"]
    assert r.reads["mano"]["reyes2"]["posterior"] < r.reads["mano"]["reyes2"]["prior"]
    assert r.decision["kind"] == "bet" and r.decision["seat"] == "third"  # third answers first


def _fresh_pares(left: np.ndarray) -> float:
    """P(pares) of four cards drawn from the class counts ``left`` (exact)."""
    from musstats.tables.hands import hand_tables

    t = hand_tables(V)
    w = _ways(t.counts, left)
    return float(w @ (t.pares_cat > 0) / w.sum())


def test_one_card_taken_reads_stronger_than_four():
    """After a mus round, second took 1 card and third 4: second holds pares and juego far more
    often; third's hand is four fresh cards, so his P(pares) is close to that of four cards drawn
    from the unseen ones (hand calculation, within what the others' kept cards change)."""
    from musstats.analysis.reading import hand

    r = hand("R C 7 5", "mano", history="mus,mus,mus,mus; 2,1,4,2")
    one, four = r.reads["second"], r.reads["third"]
    for key in ("pares", "juego"):
        gap = one[key]["posterior"] - four[key]["posterior"]
        assert gap > 0.1 and gap > 6 * np.hypot(one[key]["se"], four[key]["se"]), key
    assert four["pares"]["posterior"] == pytest.approx(_fresh_pares(_class_counts("R C 7 5")), abs=0.04)


def test_no_history_after_your_own_cut_reads_nothing_and_plays_the_strategy_given_the_cut():
    """Mano cut first: nobody else spoke, so the reads are the prior; the decision at grande's
    opening is the strategy of a hand that mano cut (his hand's row, state hand x 4 + 0), and its
    values are that strategy's over deals of the other three hands from the unseen cards (an
    independent Monte Carlo run on its own deals, as musstats bet values an action)."""
    from musstats._kernels.cfr import node_sums
    from musstats.analysis.betting import _strategy, action_ev
    from musstats.analysis.reading import hand
    from musstats.engines.betting import deals as D
    from musstats.engines.betting.info import prepare
    from musstats.engines.solving.game import chunk_bounds
    from musstats.rules.cards import parse_hand
    from musstats.tables.hands import hand_tables

    r = hand("R R 3 A", "mano", history="corto", samples=100_000, seed=5)
    for x in r.reads.values():
        for key in ("pares", "juego", "reyes2"):
            assert x[key]["posterior"] == pytest.approx(x[key]["prior"], abs=0.003)
    sol = _strategy("grande", 15, "cut", "mus-read", V)
    cards = parse_hand("R R 3 A")
    h = hand_tables(V).index_of(cards)
    deals = D.conditioned_deals("as-dealt", V, h, 0, 100_000, 9, cards=cards)
    st, o, w = prepare(sol.game, deals, V, "grande", cutter=0)
    k = int(sol.game.seat_owner[0])
    acc = node_sums(chunk_bounds(st.shape[0]), st, o, w, sol.sigma, sol.game.kernel_args(), sol.game.U, k,
                    int(np.asarray(sol.game.tree.n_act).max())).sum(axis=0)
    own = sol.game.strategy_at(sol.sigma, 0, h * 4 + 0)
    for i, (a, x) in enumerate(r.decision["actions"].items()):
        want = action_ev(acc[0][i])
        assert x["p"] == pytest.approx(float(own[i]), abs=1e-4)
        assert x["ev"] == pytest.approx(want["ev"], abs=4 * np.hypot(x["se"], want["se"]) + 1e-3), a
    assert "given who cut" in r.decision["source"]


def test_the_command_gives_the_decision_and_the_reads_as_json(capsys):
    code, out, err = run_cli(capsys, ["hand", "R", "R", "3", "A", "--seat", "third", "--history", GRANDE_BET,
                                      "--format", "json", "--samples", "50000"])
    assert code == 0, err
    d = json.loads(out)
    acts = d["decision"]["actions"]
    assert set(acts) == {"no quiero", "quiero", "+2", "órdago"}
    assert abs(sum(x["p"] for x in acts.values()) - 1) < 1e-3 and all(x["ev"] is not None for x in acts.values())
    assert set(d["reads"]) == {"mano", "second", "postre"}
    assert {"pares", "juego", "31", "reyes2", "points"} <= set(d["reads"]["second"])
    for key in ("variant", "method", "strategies", "samples", "seed", "effective_samples", "tremble"):
        assert key in d
    code, out, _ = run_cli(capsys, ["hand", "R", "R", "3", "A", "--seat", "third", "--history", GRANDE_BET,
                                    "--samples", "50000"])
    assert code == 0 and "What the table has shown" in out and "P(shipped)" in out


def test_the_mus_and_the_discard_decisions_are_those_of_mus_and_discard():
    """At your mus call the mus decision's equilibrium, as musstats mus gives it; at the
    discard the table's keep and musstats discard's values of the best keep-sets."""
    import musstats
    from musstats.analysis.practice.values import MUS_SEED, MUS_TRIALS
    from musstats.analysis.reading import hand

    r = hand("R R 7 A", "second", history="mus", samples=20_000)
    d = r.decision
    assert d["kind"] == "mus" and set(d["actions"]) == {"mus", "corto"}
    # the mus call: the equilibrium of the mus decision, as `musstats mus` gives it
    m = musstats.mus("R R 7 A", "second", trials=MUS_TRIALS, seed=MUS_SEED)
    eq = m.equilibrium
    assert eq is not None
    assert d["actions"]["corto"]["p"] == pytest.approx(eq["p_cut"], abs=1e-4)
    assert d["actions"]["mus"]["p"] == pytest.approx(1 - eq["p_cut"], abs=1e-4)
    assert d["actions"]["corto"]["ev"] == pytest.approx(eq["ev_cut"], abs=1e-4)
    assert d["actions"]["mus"]["ev"] == pytest.approx(eq["ev_ask"], abs=1e-4)
    assert (d["actions"]["corto"]["p"] >= 0.5) == (m.advice == "cut")
    r = hand("R R 7 A", "second", history="mus,mus,mus,mus", samples=20_000)
    d = r.decision
    got = musstats.discard("R R 7 A", "second", trials=MUS_TRIALS, seed=MUS_SEED)
    best = got.rows[0]
    assert d["kind"] == "discard" and d["best_reading"] == f"keep {best['keep']}"
    assert d["actions"][f"keep {best['keep']}"]["ev"] == pytest.approx(best["objective"], abs=1e-4)
    assert sum(x["p"] for x in d["actions"].values()) == 1.0


@pytest.mark.parametrize("variant", ["4-reyes", "ten-kings", Variant(juego_real="figure"), Variant(mus_visto=True)])
def test_rules_whose_strategies_do_not_ship_are_refused(variant):
    from musstats.analysis.reading import hand

    with pytest.raises(MusError, match="8 reyes|ten kings"):
        hand("R R 3 A", "mano", history="corto", variant=variant)


def test_the_deals_throw_what_the_discard_table_throws_and_keep_the_rest():
    """After a mus round each other seat threw 4 minus the cards its keep mask keeps (the
    shipped table), his final hand holds the cards kept, and your cards are nobody else's."""
    from musstats.analysis.reading import _deals
    from musstats.rules.cards import parse_hand
    from musstats.tables.hands import hand_tables
    from musstats.tables.policies import get_policy

    t = hand_tables(V)
    pol = get_policy("table", V)[0]
    mine = parse_hand("R R 7 5")
    dealt, final, thrown = _deals(V, mine, 1, True, 4000, 3)
    assert (dealt[:, 1] == -1).all() and (thrown[:, 1] == -1).all()
    own = t.counts[t.index_of(mine)]
    for i in range(0, 4000, 7):
        used = own.copy()
        for q in (0, 2, 3):
            mask = int(pol[q, dealt[i, q]])
            kept = [int(t.cls4[dealt[i, q], b]) for b in range(4) if mask >> b & 1]
            assert thrown[i, q] == 4 - len(kept)
            fin = t.counts[final[i, q]]
            assert all(fin[c] >= kept.count(c) for c in set(kept))
            used = used + fin
        assert (used <= t.class_count).all()  # the four hands played come from one deck


def test_a_call_against_the_cut_law_is_read_with_the_per_lance_strategies():
    """Mano holds a hand the cut law of the strategies that read who cut cuts with, yet asked
    for mus and second cut: those strategies never meet his hand there, so the answer says so
    and bets by the per-lance ones; with a hand that law asks with, the same history is read
    with them."""
    from musstats.analysis.reading import hand
    from musstats.tables.hands import hand_cards
    from musstats.tables.policies import betting_cut_flags

    flags = betting_cut_flags(V)
    label = {True: None, False: None}
    for h in range(flags.shape[1]):
        if label[bool(flags[0, h])] is None:
            label[bool(flags[0, h])] = " ".join(c.label for c in hand_cards(h, V))
    off = hand(label[True], "mano", history="mus,corto", samples=20_000)
    fit = hand(label[False], "mano", history="mus,corto", samples=20_000)
    assert any("departs from the cut law" in n for n in off.meta["notes"])
    assert "per-lance" in off.decision["source"]
    assert not any("departs" in n for n in fit.meta["notes"]) and "given who cut" in fit.decision["source"]
