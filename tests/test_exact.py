"""Exact showdown engine against the slow independent reference (tests/naive.py)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from musstats import Variant
from musstats.rules.cards import parse_cards, parse_hand
from musstats.engines.exact import ALL_STATS as STATS, exact_counts, exact_fractions, exact_table
from musstats.tables.hands import LANCES

import naive as ref  # noqa: E402


def _kinds(text, deck):
    alias = ref.ALIAS_8 if deck == "8-reyes" else ref.ALIAS_4
    return [alias[c.label[0] if c.face not in (1,) else "A"] for c in parse_cards(text)]


CASES = [
    # (hand, deck, dead, juego_real)
    ("R R 3 A", "8-reyes", "", "off"),
    ("C S 4 A", "8-reyes", "", "off"),
    ("7 7 6 5", "8-reyes", "R R 3 A A 2 4", "off"),
    ("7 7 7 S", "8-reyes", "C 4 5", "figure"),
    ("R 7 3 A", "4-reyes", "2 2 2 2 5 5 5 5 6 6 6 6", "off"),
    ("A 2 4 4", "4-reyes", "R R R R C C C C 7 7 7 7", "sota"),
]


@pytest.mark.parametrize("hand, deck, dead, jr", CASES)
def test_exact_equals_reference(hand, deck, dead, jr):
    v = Variant(deck, juego_real=jr)
    expected = ref.showdown_reference(_kinds(hand, deck), deck, _kinds(dead, deck), juego_real=jr)
    cards, dead_cards = parse_hand(hand), parse_cards(dead)
    for seat in range(4):
        got = exact_fractions(cards, seat, v, dead_cards)
        for lance in LANCES:
            for stat in STATS:
                assert got[lance][stat] == expected[seat][lance][stat], (seat, lance, stat)


def test_total_weight_is_number_of_deals():
    counts, total = exact_counts(parse_hand("R R 3 A"))
    # C(36,4) * C(32,4) * C(28,4) ordered deals of the other three hands
    assert list(total) == [58905 * 35960 * 20475] * 4
    counts, total = exact_counts(parse_hand("R R 3 A"), dead=parse_cards("7 7 R"), seats=(1,))
    assert total[1] == 40920 * 23751 * 12650  # 40 - 4 - 3 = 33 cards left: C(33,4) C(29,4) C(25,4)


def test_mano_31_cannot_be_beaten():
    # RULES.md: mano's 31 cannot be beaten (without juego real)
    got = exact_fractions(parse_hand("R R 7 4"), 0)
    assert got["juego"]["p_self"] == 1 and got["juego"]["p_team"] == 1
    # ...but with juego real a 31 real held by somebody else beats it
    got = exact_fractions(parse_hand("R R 7 4"), 0, Variant(juego_real="figure"))
    assert 0 < 1 - got["juego"]["p_self"] < Fraction(1, 1000)


def test_ev_identities():
    # grande and chica are always played for 1 stone: ev = 2 p_team - 1
    tab = exact_table(parse_hand("C S 4 A"), 1)
    for li in (0, 1):
        assert tab[li, STATS.index("ev_net")] == pytest.approx(2 * tab[li, 0] - 1)
    # punto: played only without juego; ev = 2 p_team - p_played
    assert tab[4, 4] == pytest.approx(2 * tab[4, 0] - tab[4, 2])
    # a hand holding juego means punto is never played
    tab = exact_table(parse_hand("R R 7 4"), 2)
    assert tab[4, 2] == 0 and tab[3, 2] == 1


def test_best_grande_at_mano_always_wins():
    # R R R R is the best grande and mano wins every tie
    tab = exact_table(parse_hand("R R R R"), 0)
    assert tab[0, 0] == 1 and tab[0, 1] == 1


hand_text = st.lists(st.sampled_from("RCS7654A32"), min_size=4, max_size=4).map(" ".join)


@settings(max_examples=15, deadline=None)
@given(hand=hand_text, seat=st.integers(0, 3), deck=st.sampled_from(["8-reyes", "4-reyes"]))
def test_probability_ordering(hand, seat, deck):
    tab = exact_table(parse_hand(hand), seat, Variant(deck))
    p_team, p_self, p_played, p_cont = tab[:, 0], tab[:, 1], tab[:, 2], tab[:, 3]
    assert np.all(p_self <= p_team + 1e-12) and np.all(p_team <= p_played + 1e-12)
    assert np.all((tab[:, :3] >= 0) & (tab[:, :3] <= 1))
    assert np.all(p_cont[2:4] <= p_played[2:4] + 1e-12)
    # juego and punto are complementary
    assert p_played[3] + p_played[4] == pytest.approx(1)
