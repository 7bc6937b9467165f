"""Exact showdown engine against the slow independent reference (tests/naive.py), through the
golden fractions it produced (tests/golden/exact.json, written by tests/make_golden.py)."""

from __future__ import annotations

import json
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import make_golden
import naive
from musstats import Variant
from musstats.engines.exact import ALL_STATS as STATS, exact_counts, exact_fractions, exact_table
from musstats.tables.context import make_context
from musstats.tables.hands import LANCES

GOLDEN = json.loads(Path(make_golden.GOLDEN).read_text(encoding="utf-8"))["cases"]
PLAIN = [c for c in GOLDEN if not c["declared"] and not c["signal"]]


def golden_context(case: dict):
    """The context of a golden case for the engine, at seat index 0."""
    v = Variant(case["deck"], juego_real=case["juego_real"])
    return make_context(v, case["hand"], "mano", dead=case["dead"] or None)


def test_golden_file_lists_the_generator_cases():
    # the golden file is the output of tests/make_golden.py for its case list, every seat
    assert [c["id"] for c in GOLDEN] == [c["id"] for c in make_golden.cases()]
    for c in PLAIN:
        assert c["seats"] == [0, 1, 2, 3] and sorted(c["odds"]) == ["0", "1", "2", "3"]
        for seat in c["odds"].values():
            assert set(seat) == set(LANCES) and all(set(s) == set(STATS) for s in seat.values())


@pytest.mark.parametrize("case", PLAIN, ids=[c["id"] for c in PLAIN])
def test_exact_equals_reference(case):
    expected = naive.fractions_from_json(case["odds"])
    ctx = golden_context(case)
    for seat in range(4):
        got = exact_fractions(replace(ctx, seat=seat))
        for lance in LANCES:
            for stat in STATS:
                assert got[lance][stat] == expected[seat][lance][stat], (seat, lance, stat)


@pytest.mark.slow
@pytest.mark.parametrize("case", PLAIN, ids=[c["id"] for c in PLAIN])
def test_reference_reproduces_the_golden_fractions(case):
    # the live run of the slow reference: the golden fractions are what it computes today
    assert make_golden.reference(case) == naive.fractions_from_json(case["odds"])


def test_seat_numbers_are_one_based_at_the_boundary():
    # make_context takes seat names or numbers from 1 = mano; ctx.seat is the index
    v = Variant()
    for name, number, index in (("mano", 1, 0), ("second", 2, 1), ("third", 3, 2), ("postre", 4, 3)):
        a, b = make_context(v, "C S 4 A", name), make_context(v, "C S 4 A", number)
        assert a.seat == b.seat == index
        assert np.array_equal(exact_table(a), exact_table(b), equal_nan=True)


def test_total_weight_is_number_of_deals():
    v = Variant()
    counts, total = exact_counts(make_context(v, "R R 3 A", "mano"), seats=range(4))
    # C(36,4) * C(32,4) * C(28,4) ordered deals of the other three hands
    assert list(total) == [58905 * 35960 * 20475] * 4
    counts, total = exact_counts(make_context(v, "R R 3 A", "mano", dead="7 7 R"), seats=(1,))
    assert total[1] == 40920 * 23751 * 12650  # 40 - 4 - 3 = 33 cards left: C(33,4) C(29,4) C(25,4)


def test_mano_31_cannot_be_beaten():
    # docs/rules.md: mano's 31 cannot be beaten (without juego real)
    got = exact_fractions(make_context(Variant(), "R R 7 4", "mano"))
    assert got["juego"]["p_self"] == 1 and got["juego"]["p_team"] == 1
    # ...but with juego real a 31 real held by somebody else beats it
    got = exact_fractions(make_context(Variant(juego_real="figure"), "R R 7 4", "mano"))
    assert 0 < 1 - got["juego"]["p_self"] < Fraction(1, 1000)


def test_ev_identities():
    # grande and chica are always played for 1 stone: ev = 2 p_team - 1
    tab = exact_table(make_context(Variant(), "C S 4 A", "second"))
    ev = STATS.index("ev_net")
    for li in (0, 1):
        assert tab[li, ev] == pytest.approx(2 * tab[li, 0] - 1)
    # punto: played only without juego; ev = 2 p_team - p_played
    assert tab[4, ev] == pytest.approx(2 * tab[4, 0] - tab[4, 2])
    # a hand holding juego means punto is never played
    tab = exact_table(make_context(Variant(), "R R 7 4", "third"))
    assert tab[4, 2] == 0 and tab[3, 2] == 1


def test_best_grande_at_mano_always_wins():
    # R R R R is the best grande and mano wins every tie
    tab = exact_table(make_context(Variant(), "R R R R", "mano"))
    assert tab[0, 0] == 1 and tab[0, 1] == 1


hand_text = st.lists(st.sampled_from("RCS7654A32"), min_size=4, max_size=4).map(" ".join)


@settings(max_examples=15, deadline=None)
@given(hand=hand_text, seat=st.integers(1, 4), deck=st.sampled_from(["8-reyes", "4-reyes"]))
def test_probability_ordering(hand, seat, deck):
    tab = exact_table(make_context(Variant(deck), hand, seat))
    p_team, p_self, p_played, p_cont = tab[:, 0], tab[:, 1], tab[:, 2], tab[:, 3]
    assert np.all(p_self <= p_team + 1e-12) and np.all(p_team <= p_played + 1e-12)
    assert np.all((tab[:, :3] >= 0) & (tab[:, :3] <= 1))
    assert np.all(p_cont[2:4] <= p_played[2:4] + 1e-12)
    # juego and punto are complementary
    assert p_played[3] + p_played[4] == pytest.approx(1)
