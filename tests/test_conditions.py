"""Conditional odds: declarations and partner signals."""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction
from itertools import combinations_with_replacement
from math import comb, prod
from pathlib import Path

import numpy as np
import pytest

import make_golden
import naive as ref
from musstats import MusError, Variant
from musstats.analysis.odds import odds
from musstats.engines.exact import ALL_STATS as STATS, exact_fractions
from musstats.rules.conditions import SIGNALS, parse_declared, parse_signal
from musstats.tables.context import make_context, signal_mask
from musstats.tables.hands import LANCES, hand_tables

GOLDEN = [c for c in json.loads(Path(make_golden.GOLDEN).read_text(encoding="utf-8"))["cases"]
          if c["declared"] or c["signal"]]


def _points(kinds, deck="8-reyes"):
    pts = {k[0]: k[2] for k in ref.deck(deck)}
    return sum(pts[k] for k in kinds)


def test_condition_always_true_changes_nothing():
    # declaring what the user himself holds is always true
    plain = odds("R R 3 A", "mano").mean
    cond = odds("R R 3 A", "mano", declared="mano:pares,mano:juego").mean
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
    got = exact_fractions(make_context(Variant(), "R C 7 A", "mano", signal="31"))
    assert got["juego"]["p_team"] == 1 - p_second31
    assert got["juego"]["p_played"] == 1 and got["punto"]["p_played"] == 0


def test_golden_conditional_cases_cover_every_undeclared_seat():
    assert len(GOLDEN) == 2
    # the user can sit at any seat that makes no declaration (a seat that declares is another player)
    assert GOLDEN[0]["declared"] == "second:pares,postre:no-pares" and GOLDEN[0]["seats"] == [0, 2]
    assert GOLDEN[1]["declared"] == "mano:juego" and GOLDEN[1]["seats"] == [1, 2, 3]
    for case in GOLDEN:
        assert sorted(map(int, case["odds"])) == case["seats"]


@pytest.mark.parametrize("case", GOLDEN, ids=[c["id"] for c in GOLDEN])
def test_conditional_exact_equals_reference(case):
    expected = ref.fractions_from_json(case["odds"])
    v = Variant(case["deck"], juego_real=case["juego_real"])
    for seat in case["seats"]:
        ctx = make_context(v, case["hand"], seat + 1, dead=case["dead"] or None, declared=case["declared"],
                           signal=case["signal"])
        got = exact_fractions(ctx)
        for lance in LANCES:
            for stat in STATS:
                assert got[lance][stat] == expected[seat][lance][stat], (seat, lance, stat)


@pytest.mark.slow
@pytest.mark.parametrize("case", GOLDEN, ids=[c["id"] for c in GOLDEN])
def test_reference_reproduces_the_golden_conditional_fractions(case):
    assert make_golden.reference(case) == ref.fractions_from_json(case["odds"])


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


def test_signal_masks_equal_the_rules_text():
    # every seña against tests/naive.py's reading of the rules, hand by hand
    t = hand_tables()
    for s in SIGNALS:
        test = ref.signal_test(s, "8-reyes")
        want = np.array([test(t.labels[h].split()) for h in range(t.n_hands)])
        assert np.array_equal(signal_mask(s), want), s


def test_repeated_declarations_merge_and_contradictions_are_errors():
    # --declared may be repeated: the items merge; the same item twice is one
    assert parse_declared(["second:pares", "postre:no-juego,second:pares"]) == {1: {"pares": True},
                                                                                 3: {"juego": False}}
    with pytest.raises(MusError, match="both pares and no-pares"):
        parse_declared(["second:pares", "second:no-pares"])
    assert parse_signal(["31", "31"]) == "31"
    with pytest.raises(MusError, match="one seña"):
        parse_signal(["31", "duples"])


@pytest.mark.parametrize("kwargs, fragment", [
    ({"declared": "mano:no-pares"}, "contradicts your own hand"),
    ({"declared": "second:pairs"}, "unknown declaration"),
    ({"declared": "second"}, "SEAT:WHAT"),
    ({"declared": "sixth:pares"}, "unknown seat"),
    ({"signal": "wink"}, "unknown signal"),
    # we hold two of the 8 reyes and three 3s (reyes too) are dead: 3 left, the partner
    # cannot hold four
    ({"signal": "four-reyes", "dead": "3 3 3"}, "no deal satisfies the conditions"),
])
def test_condition_errors(kwargs, fragment):
    with pytest.raises(MusError, match=fragment) as info:
        odds("R R 7 7", "mano", **kwargs)
    assert "\n" not in str(info.value)
