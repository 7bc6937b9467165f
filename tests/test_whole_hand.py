"""Whole hands as the table sees them (musstats.analysis.whole_hand): the mus phase and the
lances' public history recorded as the rules say, and what reading it is worth."""

from __future__ import annotations

import numpy as np
import pytest

from musstats.rules.variant import Variant


@pytest.fixture(scope="module")
def hands():
    from musstats.analysis.whole_hand import simulate

    return simulate(20_000, 3)


def test_the_mus_phase_is_recorded_as_the_rules_say(hands):
    """From mano, the first seat whose hand the cut flags cut with ends the mus; only when all
    four ask is the round played, each seat taking 4 minus the cards the discard table keeps;
    after a cut the hands are played as dealt."""
    from musstats.tables.policies import cut_flags, get_policy

    v = Variant()
    flags = cut_flags(v)
    pol, _ = get_policy("table", v)
    h = hands
    for i in range(0, h.n, 97):
        cuts = [bool(flags[q, h.dealt[i, q]]) for q in range(4)]
        want = cuts.index(True) if any(cuts) else -1
        assert h.cutter[i] == want and h.mus[i] == (want < 0)
        if h.mus[i]:
            assert all(h.counts[i, q] == 4 - bin(int(pol[q, h.dealt[i, q]])).count("1") for q in range(4))
            assert all(1 <= h.counts[i, q] <= 4 for q in range(4))
        else:
            assert (h.counts[i] == 0).all() and (h.final[i] == h.dealt[i]).all()
    assert 0.05 < h.mus.mean() < 0.2  # most hands are cut (the shipped flags)


def test_lance_classes_name_the_first_bettor_and_the_end():
    """A lance's class: en paso 0; who bet first (1 + seat) when the bet was refused, (5 + seat)
    when it was seen."""
    from musstats.analysis.whole_hand import lance_classes
    from musstats.engines.betting.tree import betting_tree

    t = betting_tree("grande")
    cls = lance_classes(t)
    n = t.parse_history("paso,paso,paso,paso")
    assert cls[n] == 0
    n = t.parse_history("paso,envido 2,no quiero,no quiero")  # second bets, third and mano refuse
    assert t.nodes[n].is_terminal and cls[n] == 1 + 1
    n = t.parse_history("envido 2,quiero")  # mano bets, second sees it
    assert cls[n] == 5 + 0
    n = t.parse_history("paso,paso,envido 2,no quiero,+2,no quiero,no quiero")  # third bets, postre raises
    assert cls[n] == 1 + 2


def test_an_accepted_ordago_ends_the_hand(hands):
    """After an accepted órdago no later lance is played."""
    from musstats.analysis.whole_hand import LANCE_ORDER

    h = hands
    assert (h.ended >= 0).any()
    for li, lance in enumerate(LANCE_ORDER):
        later = h.ended < li
        assert (h.pattern[lance][later & (h.ended >= 0)] == -1).all()


def test_reading_classes_read_only_what_is_public(hands):
    """The mus round in the lowest bit; who cut, or the others' numbers of cards; a reader's
    own count is not part of his class (he knows it)."""
    from musstats.analysis.whole_hand import reading_classes

    h = hands
    c, n = reading_classes(h, "chica", "mus", 0)
    assert n % 2 == 0 and ((c % 2) == h.mus).all()
    # hands with the same public mus history share a class
    key = [(int(h.cutter[i]), tuple(int(x) for x in h.counts[i, 1:])) for i in range(h.n)]
    seen: dict = {}
    for i, k in enumerate(key):
        assert seen.setdefault(k, c[i]) == c[i]


def test_reading_gain_is_never_negative_in_sample(hands):
    """A best response chosen on a sample never does worse than the strategy on that sample."""
    from musstats.analysis.whole_hand import reading_gain, simulate

    b = simulate(20_000, 4)
    r = reading_gain("chica", "mus", hands, b, seat=3)
    assert r["gain_in"] >= -1e-12 and r["gain_se"] > 0
