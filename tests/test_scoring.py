"""Tests of musstats.engines.scoring.

Every expected value below comes from docs/rules.md, from the arithmetic written in the
comment beside it, or from the independent count of tests/naive.py, never from running the code.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import naive
from musstats.rules.cards import Card, parse_hand
from musstats.base.errors import MusError
from musstats.tables.hands import hand_tables
from musstats.engines.scoring import (
    Bet,
    HandScore,
    lance_winners,
    paso_stones,
    paso_stones_batch,
    score_hand,
)
from musstats.rules.variant import Variant

V40 = Variant()
V30 = Variant(target=30)

# docs/rules.md worked example, seats mano A, B, C, postre D (8 reyes).
# A 7-7-2-As: duples (7-7, A-A), 16 points.     B 3-3-S-2 = R-R-S-A: par of reyes, 31.
# C R-R-S-As: par of reyes, 31.                 D C-C-C-6: medias of caballos, 36.
WORKED = ["7 7 2 A", "3 3 S 2", "R R S A", "C C C 6"]

# A deal without juego (punto is played), 8 reyes.
# seat 0 R-C-7-A  = 10+10+7+1 = 28, no pares      seat 1 S-S-6-4 = 10+10+6+4 = 30, par of sotas
# seat 2 7-6-5-4  = 22, no pares                  seat 3 A-2-5-4 = 1+1+5+4 = 11, par of ases (2 = As)
PUNTO_DEAL = ["R C 7 A", "S S 6 4", "7 6 5 4", "A 2 5 4"]


def by_lance(hs: HandScore, lance: str, reason_prefix: str = "") -> list[int]:
    """Stones per team taken at ``lance`` (optionally only events whose reason starts with a prefix)."""
    out = [0, 0]
    for name, team, n, reason in hs.events:
        if name == lance and reason.startswith(reason_prefix):
            out[team] += n
    return out


# ---------------------------------------------------------------------------
# Bet


def test_bet_constructors_and_validation():
    assert Bet.paso().is_paso
    assert Bet.accepted(4).amount == 4
    assert Bet.accepted(2, by=1).by == 1
    b = Bet.refused(4, by=0)
    assert b.is_refused and b.amount == 4 and b.by == 0
    assert Bet.refused(by=1).amount == 1  # a refused first bet gives 1
    assert Bet.ordago_refused(by=1).amount == 1
    assert Bet.ordago_refused(by=1, level=6).amount == 6
    assert Bet.ordago_accepted().kind == "ordago_accepted"
    with pytest.raises(MusError, match="at least 2"):
        Bet.accepted(1)
    with pytest.raises(MusError, match="at least 1"):
        Bet.refused(0, by=0)
    with pytest.raises(MusError, match="team"):
        Bet.refused(2, by=2)
    with pytest.raises(MusError, match="needs the bettors' team"):
        Bet("refused", 2)
    with pytest.raises(MusError, match="whole number"):
        Bet.accepted(2.5)
    with pytest.raises(MusError, match="unknown bet kind"):
        Bet("envido", 2)
    with pytest.raises(ValueError):  # MusError is a ValueError
        Bet.accepted(True)


def test_bet_is_frozen():
    b = Bet.accepted(4)
    with pytest.raises(Exception):
        b.amount = 5  # type: ignore[misc]


# ---------------------------------------------------------------------------
# docs/rules.md worked example


def test_worked_example_lance_winners():
    t = hand_tables(V40)
    idx = [t.index_of(parse_hand(h)) for h in WORKED]
    w = lance_winners(idx, V40)
    # Grande: B and C both hold R-R-S-A; B (seat 1) is nearer to mano.
    assert w["grande"] == 1
    # Chica, low to high: A = A-A-7-7 beats B, C = A-S-R-R and D = 6-C-C-C.
    assert w["chica"] == 0
    # Pares: A's duples are the best.
    assert w["pares"] == 0
    # Juego: B's 31 and C's 31 tie, B nearer to mano; punto not played.
    assert w["juego"] == 1
    assert w["punto"] is None


def test_worked_example_grande_goes_to_b_by_seat():
    hs = score_hand(WORKED)
    assert by_lance(hs, "grande") == [0, 1]


def test_worked_example_pares_en_paso():
    # A's duples 3 + C's par 1 = 4 to team A-C.
    hs = score_hand(WORKED)
    assert by_lance(hs, "pares") == [4, 0]
    assert ("pares", 0, 3, "count: duples") in hs.events
    assert ("pares", 0, 1, "count: par") in hs.events


def test_worked_example_pares_bet_accepted():
    # 4 (values) + 4 (bet) = 8.
    hs = score_hand(WORKED, bets={"pares": Bet.accepted(4, by=0)})
    assert by_lance(hs, "pares") == [8, 0]


def test_worked_example_pares_raise_refused():
    # A-C bet 4, B-D raise to 10, A-C refuse: B-D take 4 at once,
    # then B's par 1 + D's medias 2 at the count = 7; A-C nothing in pares.
    hs = score_hand(WORKED, bets={"pares": Bet.refused(4, by=1)})
    assert by_lance(hs, "pares") == [0, 7]
    assert by_lance(hs, "pares", "deje") == [0, 4]
    assert hs.events[0] == ("pares", 1, 4, "deje")  # the deje comes before the count
    assert ("pares", 1, 1, "count: par") in hs.events
    assert ("pares", 1, 2, "count: medias") in hs.events


def test_worked_example_whole_hand_en_paso():
    # grande 1 -> B-D; chica 1 -> A-C; pares 3 + 1 = 4 -> A-C;
    # juego: B's 31 wins, B-D take B's 3 + D's 2 (36) = 5.
    # team 0: 1 + 4 = 5; team 1: 1 + 5 = 6.
    hs = score_hand(WORKED, score=(10, 20))
    assert hs.stones == (5, 6)
    assert hs.final_score == (15, 26)
    assert hs.winner is None
    assert [e[0] for e in hs.events] == ["grande", "chica", "pares", "pares", "juego", "juego"]


def test_deje_example_refused_raise_gives_amount_before_it():
    # docs/rules.md: A bets 2, B raises to 4, A raises to 20, B's side refuses: A's side takes 4.
    # Played at grande (B-D hold the best grande): A-C take 4 at once, nothing at the grande count.
    hs = score_hand(WORKED, bets={"grande": Bet.refused(4, by=0)})
    assert hs.events[0] == ("grande", 0, 4, "deje")
    assert by_lance(hs, "grande") == [4, 0]
    # rest en paso: chica 1 (A-C), pares 4 (A-C), juego 5 (B-D) -> (4+1+4, 5) = (9, 5)
    assert hs.stones == (9, 5)


# ---------------------------------------------------------------------------
# hand-computed cases


def test_deje_after_a_raise_at_chica():
    # B-D bet 2 at chica, A-C raise to 5, B-D raise to 12, A-C refuse: B-D take 5 at once.
    hs = score_hand(WORKED, bets={"chica": Bet.refused(5, by=1)})
    assert by_lance(hs, "chica") == [0, 5]
    # grande 1 (B-D), chica 5 deje (B-D), pares 4 (A-C), juego 5 (B-D): (4, 11)
    assert hs.stones == (4, 11)


def test_accepted_grande_bet_goes_to_the_best_hand():
    # A-C bet 3 at grande and B-D accept: B wins grande, B-D take 3 (no extra stone).
    hs = score_hand(WORKED, bets={"grande": Bet.accepted(3, by=0)})
    assert by_lance(hs, "grande") == [0, 3]


def test_punto_en_paso_and_accepted():
    # Nobody has juego (28, 30, 22, 11): seat 1's 30 wins punto, team 1.
    hs = score_hand(PUNTO_DEAL)
    assert by_lance(hs, "punto") == [0, 1]
    assert not any(e[0] == "juego" for e in hs.events)
    # accepted bet of 3: the bet + 1 = 4
    hs = score_hand(PUNTO_DEAL, bets={"punto": Bet.accepted(3)})
    assert by_lance(hs, "punto") == [0, 4]


def test_refused_punto_one_now_and_one_at_the_count():
    # Team 0 bets at punto, team 1 (holding the 30) refuses: team 0 takes 1 at once
    # and 1 more at the count; team 1 gets nothing at punto.
    hs = score_hand(PUNTO_DEAL, bets={"punto": Bet.refused(1, by=0)})
    assert hs.events[0] == ("punto", 0, 1, "deje")
    assert hs.events[-1] == ("punto", 0, 1, "count: punto")
    assert by_lance(hs, "punto") == [2, 0]
    # grande: seat 0 R-C-7-A has the only Rey -> team 0, 1
    # chica: seat 3 A-A-4-5 (the 2 is an As) is lowest -> team 1, 1
    # pares: only team 1 holds (S-S par 1, A-A par 1) -> 2
    # totals: team 0 = 1 + 2 = 3; team 1 = 1 + 2 = 3
    assert hs.stones == (3, 3)


def test_refused_raise_at_punto():
    # Team 1 bets 2, team 0 raises to 6, team 1 refuses: team 0 takes 2 now + 1 at the count.
    hs = score_hand(PUNTO_DEAL, bets={"punto": Bet.refused(2, by=0)})
    assert by_lance(hs, "punto") == [3, 0]


def test_refused_first_pares_bet_with_worse_cards():
    # B-D (par of reyes, medias of caballos) bet first at pares, A-C (with A's duples) refuse:
    # B-D take 1 at once, then B's par 1 + D's medias 2 at the count = 4; A-C forfeit the lance.
    hs = score_hand(WORKED, bets={"pares": Bet.refused(1, by=1)})
    assert by_lance(hs, "pares") == [0, 4]


def test_refused_juego_bettors_collect_their_own():
    # A-C (only C has juego: 31) bet first at juego, B-D refuse: A-C take 1 at once + C's 31 (3)
    # at the count = 4, although B's 31 is better; B-D get nothing at juego.
    hs = score_hand(WORKED, bets={"juego": Bet.refused(1, by=0)})
    assert by_lance(hs, "juego") == [4, 0]


def test_pares_held_by_one_team_scores_without_betting():
    # PUNTO_DEAL: only team 1 holds pares: S-S par 1 + A-A par 1 = 2, en paso.
    hs = score_hand(PUNTO_DEAL, bets={"pares": Bet.paso()})
    assert by_lance(hs, "pares") == [0, 2]


def test_pares_void_when_nobody_holds_pares():
    # 8 reyes: R-C-7-6, S-5-4-A, 7-6-5-4, C-S-5-A: no two cards of one rank in any hand.
    deal = ["R C 7 6", "S 5 4 A", "7 6 5 4", "C S 5 A"]
    hs = score_hand(deal)
    assert by_lance(hs, "pares") == [0, 0]
    assert lance_winners([hand_tables(V40).index_of(parse_hand(h)) for h in deal])["pares"] is None


def test_team_reaches_40_at_grande_rest_not_counted():
    # Score (20, 39): B-D win grande en paso -> 40; chica, pares, juego are not counted.
    hs = score_hand(WORKED, score=(20, 39))
    assert hs.winner == 1
    assert hs.final_score == (20, 40)
    assert hs.stones == (0, 1)
    assert hs.events == [("grande", 1, 1, "count: en paso")]


def test_team_reaches_30_at_grande_with_target_30():
    # Same at 30: (20, 29) + 1 = (20, 30).
    hs = score_hand(WORKED, variant=V30, score=(20, 29))
    assert hs.winner == 1
    assert hs.final_score == (20, 30)
    assert hs.events == [("grande", 1, 1, "count: en paso")]
    # With target 40 the same score is no win: 29 + 6 = 35, 20 + 5 = 25.
    hs = score_hand(WORKED, variant=V40, score=(20, 29))
    assert hs.winner is None and hs.final_score == (25, 35)


def test_accepted_bet_reaches_target_at_grande():
    # (35, 35) with 5 accepted at grande: B-D take 5 -> 40 before A-C's chica and pares.
    hs = score_hand(WORKED, score=(35, 35), bets={"grande": Bet.accepted(5)})
    assert hs.winner == 1 and hs.final_score == (35, 40)


def test_count_stops_in_the_middle_of_a_lance():
    # (37, 0): grande -> B-D; chica -> A-C 38; pares: A's duples 3 -> 41, game over;
    # C's par is not counted, nor is juego.
    hs = score_hand(WORKED, score=(37, 0))
    assert hs.winner == 0
    assert hs.final_score == (41, 1)
    assert hs.events[-1] == ("pares", 0, 3, "count: duples")


def test_deje_reaches_target_before_the_count():
    # (39, 37): at the count A-C would win at chica (39 + 1).  But in the betting of juego
    # (both teams hold juego: C's 31, B's 31 and D's 36), A-C refuse B-D's raise over 3:
    # B-D take 3 at once -> 40 and win; nothing is counted.
    hs = score_hand(WORKED, score=(39, 37), bets={"juego": Bet.refused(3, by=1)})
    assert hs.winner == 1
    assert hs.final_score == (39, 40)
    assert hs.events == [("juego", 1, 3, "deje")]
    # the same at 30
    hs = score_hand(WORKED, variant=V30, score=(29, 27), bets={"juego": Bet.refused(3, by=1)})
    assert hs.winner == 1 and hs.final_score == (29, 30)


def test_deje_ends_game_and_later_betting_is_ignored():
    # (0, 39): B-D's refused first bet at grande gives 1 at once -> 40; the pares deje never happens.
    hs = score_hand(WORKED, score=(0, 39),
                    bets={"grande": Bet.refused(1, by=1), "pares": Bet.refused(4, by=0)})
    assert hs.winner == 1 and hs.events == [("grande", 1, 1, "deje")]


def test_accepted_ordago_decides_by_that_lance_alone():
    # (10, 30): B-D's first grande bet is refused (1 at once -> 31); then A-C's órdago at
    # chica is accepted: A wins chica, so A-C win the game although B-D lead on stones.
    hs = score_hand(WORKED, score=(10, 30),
                    bets={"grande": Bet.refused(1, by=1), "chica": Bet.ordago_accepted(by=0)})
    assert hs.winner == 0
    assert hs.final_score == (40, 31)  # recorded as the 30 stones that take A-C to 40
    assert hs.events == [("grande", 1, 1, "deje"), ("chica", 0, 30, "órdago")]


def test_accepted_ordago_at_juego_ignores_earlier_accepted_bets():
    # An accepted 20 at grande (which B-D would win) is never counted: the órdago at juego
    # is shown at once and B's 31 (seat 1, ahead of C's 31) wins the game for B-D.
    hs = score_hand(WORKED, variant=V30, score=(25, 0),
                    bets={"grande": Bet.accepted(20), "juego": Bet.ordago_accepted(by=0)})
    assert hs.winner == 1
    assert hs.final_score == (25, 30)
    assert hs.events == [("juego", 1, 30, "órdago")]


def test_ordago_at_juego_with_juego_real():
    # juego real (sota): seat 1's 7-7-7-S is "31 real" and beats mano's R-R-S-A 31.
    # seat 2 C-4-5-6 = 25, seat 3 4-4-5-6 = 19: both teams hold juego, so juego can be bet.
    v = Variant(juego_real="sota")
    deal = ["R R S A", "7 7 7 S", "C 4 5 6", "4 4 5 6"]
    hs = score_hand(deal, variant=v, bets={"juego": Bet.ordago_accepted()})
    assert hs.winner == 1
    # Without juego real mano's 31 wins.
    hs = score_hand(deal, bets={"juego": Bet.ordago_accepted()})
    assert hs.winner == 0
    # En paso with juego real: 31 real is worth 3, like any 31.
    hs = score_hand(deal, variant=v)
    assert ("juego", 1, 3, "count: 31 real") in hs.events


def test_refused_ordago_is_a_deje():
    # A first órdago refused gives 1; over an earlier bet, the amount that stood (here 2).
    hs = score_hand(WORKED, bets={"grande": Bet.ordago_refused(by=0)})
    assert by_lance(hs, "grande") == [1, 0]
    hs = score_hand(WORKED, bets={"grande": Bet.ordago_refused(by=0, level=2)})
    assert by_lance(hs, "grande") == [2, 0] and hs.winner is None


# ---------------------------------------------------------------------------
# input validation


def test_bet_on_punto_when_somebody_has_juego_is_rejected():
    with pytest.raises(MusError, match="punto"):
        score_hand(WORKED, bets={"punto": Bet.accepted(2)})
    # a paso there is fine: the hand is counted en paso (as in test_worked_example_whole_hand_en_paso)
    hs = score_hand(WORKED, bets={"punto": Bet.paso()})
    assert hs.stones == (5, 6) and hs.events == score_hand(WORKED).events


def test_bet_on_juego_when_nobody_has_juego_is_rejected():
    with pytest.raises(MusError, match="nobody holds juego"):
        score_hand(PUNTO_DEAL, bets={"juego": Bet.accepted(2)})


def test_bet_on_pares_held_by_one_team_is_rejected():
    with pytest.raises(MusError, match="only team 1 holds pares"):
        score_hand(PUNTO_DEAL, bets={"pares": Bet.refused(1, by=1)})


def test_bet_on_void_pares_is_rejected():
    with pytest.raises(MusError, match="nobody holds pares"):
        score_hand(["R C 7 6", "S 5 4 A", "7 6 5 4", "C S 5 A"], bets={"pares": Bet.accepted(2)})


def test_bet_after_accepted_ordago_is_rejected():
    with pytest.raises(MusError, match="órdago"):
        score_hand(WORKED, bets={"grande": Bet.ordago_accepted(), "pares": Bet.accepted(2)})


@pytest.mark.parametrize("bets, msg", [
    ({"envite": Bet.accepted(2)}, "unknown lance"),
    ({"grande": 2}, "must be a Bet"),
    ([("grande", Bet.paso())], "dict"),
])
def test_bad_bets(bets, msg):
    with pytest.raises(MusError, match=msg):
        score_hand(WORKED, bets=bets)


@pytest.mark.parametrize("score", [(40, 0), (0, -1), (0, 40), (1, 2, 3), "ab", (1.5, 0)])
def test_bad_scores(score):
    with pytest.raises(MusError):
        score_hand(WORKED, score=score)


def test_score_range_follows_the_target():
    with pytest.raises(MusError, match="0..29"):
        score_hand(WORKED, variant=V30, score=(30, 0))
    # 30 is a score of a game to 40: + 5 and + 6 en paso (test_worked_example_whole_hand_en_paso)
    hs = score_hand(WORKED, variant=V40, score=(30, 0))
    assert hs.final_score == (35, 6) and hs.winner is None


@pytest.mark.parametrize("hands, msg", [
    (WORKED[:3], "expected 4 hands"),
    ("R R 3 A", "list"),
    (["R R R R", "R R R R", "A A A A", "C C C C"], "4"),  # 8 Reyes of face 12
    (["R R 3", "3 3 S 2", "R R S A", "C C C 6"], "seat 0"),
])
def test_bad_hands(hands, msg):
    with pytest.raises(MusError, match=msg):
        score_hand(hands)


def test_lance_winners_validates_indices():
    with pytest.raises(MusError, match="4 hand indices"):
        lance_winners([0, 1, 2])
    with pytest.raises(MusError, match="out of range"):
        lance_winners([0, 1, 2, 10_000])


def test_hands_as_cards():
    hs = score_hand([parse_hand(h) for h in WORKED])
    assert hs.stones == (5, 6)  # as in test_worked_example_whole_hand_en_paso


# ---------------------------------------------------------------------------
# properties: the independent en-paso count of tests/naive.py (from the card faces, juego real off)


def _expected_steps_en_paso(hands: list[list[Card]], deck: str) -> np.ndarray:
    """Stones per count step and team [4, 2] en paso, from the rules text (tests/naive.py)."""
    return naive.paso_steps([[c.face for c in h] for h in hands], deck)


def _expected_total_en_paso(hands: list[list[Card]], deck: str) -> int:
    return int(_expected_steps_en_paso(hands, deck).sum())


DECK = [Card(f, s) for f in (12, 11, 10, 7, 6, 5, 4, 3, 2, 1)
        for s in ("oros", "copas", "espadas", "bastos")]


@st.composite
def deals(draw):
    cards = draw(st.permutations(DECK))
    return [list(cards[4 * i: 4 * i + 4]) for i in range(4)]


@settings(max_examples=300, deadline=None)
@given(deal=deals(), deck=st.sampled_from(["8-reyes", "4-reyes"]))
def test_en_paso_total_property(deal, deck):
    v = Variant(deck=deck)
    hs = score_hand(deal, variant=v)
    assert hs.winner is None  # at most 2 + 6 + 6 = 14 stones from (0, 0)
    assert sum(hs.stones) == _expected_total_en_paso(deal, deck)
    assert hs.final_score == hs.stones


@settings(max_examples=300, deadline=None)
@given(deal=deals(), deck=st.sampled_from(["8-reyes", "4-reyes"]),
       jr=st.sampled_from(["off", "figure", "sota", "sota-oros"]))
def test_compiled_paso_count_agrees_with_score_hand_and_the_rules(deal, deck, jr):
    v = Variant(deck=deck, juego_real=jr)
    t = hand_tables(v)
    idx = [t.index_of(h) for h in deal]
    hs = score_hand(deal, variant=v)
    expected = np.zeros((4, 2), np.int64)
    for name, team, n, _ in hs.events:
        expected[min(("grande", "chica", "pares", "juego", "punto").index(name), 3), team] += n
    got = paso_stones(idx, v)
    assert got.shape == (4, 2)
    np.testing.assert_array_equal(got, expected)
    if jr == "off":
        np.testing.assert_array_equal(got, _expected_steps_en_paso(deal, deck))


def test_batch_count_agrees_with_the_rules_text():
    rng = np.random.default_rng(5)
    v = Variant()
    t = hand_tables(v)
    rows, hands = [], []
    for _ in range(200):
        order = rng.permutation(40)
        deal = [[DECK[j] for j in order[4 * i: 4 * i + 4]] for i in range(4)]
        hands.append(deal)
        rows.append([t.index_of(h) for h in deal])
    got = paso_stones_batch(np.array(rows, np.int64), v)
    assert got.shape == (200, 4, 2)
    for i in range(200):
        np.testing.assert_array_equal(got[i], _expected_steps_en_paso(hands[i], "8-reyes"))
