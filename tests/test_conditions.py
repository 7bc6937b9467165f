"""Conditional odds: declarations and partner signals (issue 5)."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import combinations_with_replacement
from math import comb, prod

import numpy as np
import pytest

from musstats import MusError, Variant
from musstats.analysis.odds import compute_odds
from musstats.rules.cards import parse_hand
from musstats.rules.conditions import SIGNALS, build_allowed, signal_mask
from musstats.engines.exact import ALL_STATS as STATS, exact_fractions
from musstats.tables.hands import LANCES, hand_tables

import naive as ref  # noqa: E402


def _points(kinds, deck="8-reyes"):
    pts = {k[0]: k[2] for k in ref.deck(deck)}
    return sum(pts[k] for k in kinds)


def test_condition_always_true_changes_nothing():
    # declaring what the user himself holds is always true
    plain = compute_odds("R R 3 A", "mano").mean
    cond = compute_odds("R R 3 A", "mano", declared="mano:pares,mano:juego").mean
    assert np.array_equal(plain, cond, equal_nan=True)


def test_partner_31_juego_by_hand_calculation():
    # Mano holds R C 7 A (28, no juego); the partner (third) signals 31.  Third's 31 loses
    # only to a 31 of second (seat 2 is nearer to mano than seat 3; postre's 31 loses to
    # third's).  So P(team wins juego) = 1 - P(second holds 31 | third holds 31).
    deck = ref.DECK_8
    names = [k[0] for k in deck]
    rem = Counter({k[0]: k[3] for k in deck})
    for c in ("R", "C", "7", "A"):
        rem[c] -= 1
    hands = list(combinations_with_replacement(names, 4))

    def ways(h, stock):
        c = Counter(h)
        return prod(comb(stock[k], n) for k, n in c.items())

    num = den = 0
    for third in hands:
        if _points(third) != 31:
            continue
        w3 = ways(third, rem)
        if not w3:
            continue
        stock = rem - Counter(third)
        stock = Counter({k: stock.get(k, 0) for k in names})
        second31 = sum(ways(h, stock) for h in hands if _points(h) == 31)
        num += w3 * second31
        den += w3 * comb(32, 4)
    p_second31 = Fraction(num, den)
    got = exact_fractions(parse_hand("R C 7 A"), 0,
                          allowed=build_allowed(Variant(), hand_tables().index_of(parse_hand("R C 7 A")), 0,
                                                signal="31"))
    assert got["juego"]["p_team"] == 1 - p_second31
    assert got["juego"]["p_played"] == 1 and got["punto"]["p_played"] == 0


def _decl_condition(declared: dict, signal_pred=None):
    def cond(user_seat, seat, kinds):
        ranks = [dict((k[0], k[1]) for k in ref.DECK_8)[x] for x in kinds]
        if seat in declared:
            what = declared[seat]
            has = ref.pares_strength(ranks) is not None if "pares" in what else _points(kinds) >= 31
            if has == what.startswith("no-"):
                return False
        if signal_pred is not None and seat == (user_seat + 2) % 4:
            return signal_pred(kinds, ranks)
        return True
    return cond


@pytest.mark.parametrize("hand, kinds, declared, text, signal, pred", [
    ("C S 4 A", ["C", "S", "4", "A"], {1: "pares", 3: "no-pares"}, "second:pares,postre:no-pares", None, None),
    ("R 7 7 5", ["R", "7", "7", "5"], {0: "juego"}, "mano:juego", "duples",
     lambda k, r: ref.pares_value(r) == 3),
])
def test_conditional_exact_equals_reference(hand, kinds, declared, text, signal, pred):
    expected = ref.showdown_reference(kinds, "8-reyes", condition=_decl_condition(declared, pred))
    t = hand_tables()
    for seat in (1, 3):  # the user's seat must not carry a declaration
        if seat in declared:
            continue
        allowed = build_allowed(Variant(), t.index_of(parse_hand(hand)), seat, text, signal)
        got = exact_fractions(parse_hand(hand), seat, allowed=allowed)
        for lance in LANCES:
            for stat in STATS:
                assert got[lance][stat] == expected[seat][lance][stat], (seat, lance, stat)


def test_signal_masks_by_definition():
    t = hand_tables()
    lab = {t.labels[h]: h for h in range(t.n_hands)}
    assert signal_mask("two-reyes")[lab["R R C A"]] and not signal_mask("two-reyes")[lab["R R R A"]]
    assert signal_mask("three-ases")[lab["R A A A"]]
    assert signal_mask("four-reyes")[lab["R R R R"]]
    assert signal_mask("duples")[lab["S S S S"]] and signal_mask("duples")[lab["7 7 A A"]]
    assert signal_mask("medias")[lab["7 7 7 A"]]
    assert signal_mask("31")[lab["R R 7 4"]] and signal_mask("punto-30")[lab["R R S A"]] is np.False_
    assert signal_mask("punto-30")[lab["R R 6 4"]]
    assert signal_mask("bad")[lab["R C 6 4"]] and not signal_mask("bad")[lab["R R 6 4"]]
    for s in SIGNALS:
        assert signal_mask(s).any()


@pytest.mark.parametrize("kwargs, fragment", [
    ({"declared": "mano:no-pares"}, "contradicts your own hand"),
    ({"declared": "second:pairs"}, "unknown declaration"),
    ({"declared": "second"}, "SEAT:WHAT"),
    ({"declared": "sixth:pares"}, "unknown seat"),
    ({"signal": "wink"}, "unknown signal"),
    # we hold two of the 8 reyes and three 3s (reyes too) are dead: 3 left, the partner
    # cannot hold four
    ({"signal": "four-reyes", "dead": "3 3 3"}, "no deal can satisfy"),
])
def test_condition_errors(kwargs, fragment):
    with pytest.raises(MusError, match=fragment):
        compute_odds("R R 7 7", "mano", **kwargs)
