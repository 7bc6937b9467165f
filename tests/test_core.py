"""Core: card parsing, variants, hand index and evaluator tables."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from musstats import MusError, Variant
from musstats.rules.cards import parse_cards, parse_hand
from musstats.tables.hands import CHICA, GRANDE, JUEGO, PARES, PUNTO, hand_tables
from musstats.rules.variant import make_variant

import naive as ref  # noqa: E402

V8 = Variant()
V4 = Variant("4-reyes")


def idx(hand: str, v: Variant = V8) -> int:
    return hand_tables(v).index_of(parse_hand(hand))


def key(lance: int, hand: str, v: Variant = V8) -> int:
    return int(hand_tables(v).key[lance, idx(hand, v)])


# ---------------------------------------------------------------- parsing

@pytest.mark.parametrize("text", ["R R 3 A", "RR3A", "r r 3 a", "rey rey tres as", "12 12 3 1", "R,R,3,A"])
def test_parse_notations_agree(text):
    assert [c.face for c in parse_hand(text)] == [12, 12, 3, 1]


def test_parse_words_and_numbers():
    assert [c.face for c in parse_hand("rey caballo 7 as")] == [12, 11, 7, 1]
    assert [c.face for c in parse_hand("12 11 10 1")] == [12, 11, 10, 1]


def test_parse_suits():
    cards = parse_hand("sota de oros R 7 7")
    assert cards[0].face == 10 and cards[0].suit == "oros"
    assert parse_cards("S/o")[0] == parse_cards("10:oros")[0] == parse_cards("sota/o")[0]
    assert parse_cards("S/c")[0].suit == "copas"


@pytest.mark.parametrize("text, fragment", [
    ("R R 3", "exactly 4 cards"),
    ("R R 3 A 4", "exactly 4 cards"),
    ("R R X A", "unknown card"),
    ("R R 9 A", "unknown card"),
    ("S/o S/o R R", "appears 2 times"),
    ("S/z R R R", "unknown suit"),
    ("1211", "ambiguous"),
    ("R R R R R", "exactly 4 cards"),
])
def test_parse_errors(text, fragment):
    with pytest.raises(MusError, match=fragment):
        parse_hand(text)


def test_five_physical_copies_rejected():
    from musstats.rules.cards import check_physical
    with pytest.raises(MusError, match="deck holds 4"):
        check_physical(parse_cards("7 7 7 7 7"))


def test_variant_validation():
    with pytest.raises(MusError, match="8-reyes, 4-reyes"):
        make_variant("5-reyes")
    with pytest.raises(MusError, match="off, figure, sota, sota-oros"):
        make_variant("8-reyes", "always")
    with pytest.raises(MusError, match="40 or 30|40, 30"):
        make_variant("8-reyes", "off", 50)
    assert make_variant("4-reyes").reyes == 4 and make_variant().reyes == 8


# ---------------------------------------------------------------- index and reference figures

def test_hand_counts():
    # docs/rules.md: 330 distinct hands with 8 reyes, 715 with 4 reyes; C(40, 4) = 91,390 combinations
    for v, n in ((V8, 330), (V4, 715)):
        t = hand_tables(v)
        assert t.n_hands == n
        assert int(t.deal_weight.sum()) == 91390
        assert len(set(t.labels)) == n


def _share(mask, v=V8):
    t = hand_tables(v)
    return round(100 * int(t.deal_weight[mask].sum()) / 91390, 2)


def test_reference_figures_8_reyes():
    # docs/rules.md "Reference figures": any pares 56.58 %; par 47.90 %; medias 4.87 %;
    # duples 3.81 %; juego 26.75 %; 31 9.17 %; punto 30 3.31 %.
    t = hand_tables(V8)
    assert _share(t.pares_cat > 0) == 56.58
    assert _share(t.pares_cat == 1) == 47.90
    assert _share(t.pares_cat == 2) == 4.87
    assert _share(t.pares_cat == 3) == 3.81
    assert _share(t.points >= 31) == 26.75
    assert _share(t.points == 31) == 9.17
    assert _share(t.points == 30) == 3.31


def test_dense_index_roundtrip():
    for v in (V8, V4, Variant(juego_real="sota-oros")):
        t = hand_tables(v)
        for h in range(t.n_hands):
            assert t.index_of_counts(t.counts[h]) == h
            assert sorted(t.cls4[h]) == sorted(c for c in range(t.n_classes) for _ in range(t.counts[h, c]))


# ---------------------------------------------------------------- docs/rules.md worked examples

def test_grande_examples():
    # R-3-4-4 beats R-C-C-C at grande (3 is a Rey) and at chica too (4 is below C)
    assert key(GRANDE, "R 3 4 4") > key(GRANDE, "R C C C")
    assert key(CHICA, "R 3 4 4") > key(CHICA, "R C C C")
    # with 4 reyes the 3 is just a 3
    assert key(GRANDE, "R 3 4 4", V4) < key(GRANDE, "R C C C", V4)


def test_pares_order_examples():
    # any duples beats any medias beats any par
    assert key(PARES, "A A 4 4") > key(PARES, "R R R C") > key(PARES, "R R C S") > key(PARES, "R C S 7") == 0
    # C-C-5-5 beats S-S-S-S; C-C-5-5 beats C-C-4-4; R-R-R-R beats R-R-C-C
    assert key(PARES, "C C 5 5") > key(PARES, "S S S S")
    assert key(PARES, "C C 5 5") > key(PARES, "C C 4 4")
    assert key(PARES, "R R R R") > key(PARES, "R R C C")
    # four of a kind counts as duples (value 3)
    t = hand_tables(V8)
    assert t.value[PARES, idx("S S S S")] == 3 and t.value[PARES, idx("7 7 7 A")] == 2
    assert t.value[PARES, idx("7 7 6 A")] == 1
    # with 8 reyes 3-3 equals R-R and 2-2 equals A-A
    assert key(PARES, "3 3 7 6") == key(PARES, "R R 7 6")
    assert key(PARES, "2 2 7 6") == key(PARES, "A A 7 6")


def test_juego_order_and_values():
    # 31, 32, 40, 37, 36, 35, 34, 33 best to worst; 31 = 3 stones, others 2
    hands = ["R R 7 4", "R R 7 5", "R R 7 6", "R R 7 7", "R R S 6", "R R S 7", "R S 6 6", "R R S S"]
    totals = [31, 32, 33, 34, 36, 37, 32, 40]
    t = hand_tables(V8)
    for h, tot in zip(hands, totals):
        assert t.points[idx(h)] == tot
    order = [key(JUEGO, h) for h in ("R R 7 4", "R R 7 5", "R R S S", "R R S 7", "R R S 6", "R C 7 7", "R R 7 6")]
    assert order == sorted(order, reverse=True) and len(set(order)) == len(order)
    assert t.value[JUEGO, idx("R R 7 4")] == 3 and t.value[JUEGO, idx("R R S S")] == 2
    # punto: 30 best, no punto key for juego hands
    assert key(PUNTO, "R R S A") == 0 and key(PUNTO, "R R S 6") == 0
    assert key(PUNTO, "R R 7 3", V4) > key(PUNTO, "R R 7 2", V4) > 0


def test_juego_real():
    vf = Variant(juego_real="figure")
    vs = Variant(juego_real="sota")
    vo = Variant(juego_real="sota-oros")
    assert key(JUEGO, "7 7 7 C", vf) > key(JUEGO, "R R 7 4", vf)  # real beats plain 31
    assert key(JUEGO, "7 7 7 C", vs) == key(JUEGO, "R R 7 4", vs)  # caballo is no sota
    assert key(JUEGO, "7 7 7 S", vs) > key(JUEGO, "R R 7 4", vs)
    assert key(JUEGO, "7 7 7 S/o", vo) > key(JUEGO, "7 7 7 S/c", vo) == key(JUEGO, "R R 7 4", vo)
    assert key(JUEGO, "7 7 7 C") == key(JUEGO, "R R 7 4")  # off by default
    assert hand_tables(vo).value[JUEGO, idx("7 7 7 S/o", vo)] == 3


def test_worked_example_pares():
    # docs/rules.md: A 7-7-2-As (duples), B 3-3-S-2 (par), C R-R-S-As (par), D C-C-C-6 (medias)
    hands = ["7 7 2 A", "3 3 S 2", "R R S A", "C C C 6"]
    t = hand_tables(V8)
    ids = [idx(h) for h in hands]
    keys = [int(t.key[PARES, i]) for i in ids]
    assert keys.index(max(keys)) == 0  # A's duples are the best
    # team A-C scores A's duples 3 + C's par 1 = 4 en paso
    assert int(t.value[PARES, ids[0]] + t.value[PARES, ids[2]]) == 4
    # grande: B and C both hold R-R-S-A (3 = R, 2 = A): equal keys, so seat decides (B)
    assert t.key[GRANDE, ids[1]] == t.key[GRANDE, ids[2]]


# ---------------------------------------------------------------- properties

faces8 = st.lists(st.sampled_from("RCS7654A32"), min_size=4, max_size=4)


def _naive_ranks(cards, deck):
    table = {k[0]: k[1] for k in ref.deck(deck)}
    alias = ref.ALIAS_8 if deck == "8-reyes" else ref.ALIAS_4
    return [table[alias[c]] for c in cards]


@settings(max_examples=300, deadline=None)
@given(a=faces8, b=faces8, deck=st.sampled_from(["8-reyes", "4-reyes"]))
def test_grande_chica_match_naive_comparison(a, b, deck):
    v = Variant(deck)
    ra, rb = _naive_ranks(a, deck), _naive_ranks(b, deck)
    # naive card-by-card: grande compares high to low, chica low to high (lower wins)
    ga, gb = sorted(ra, reverse=True), sorted(rb, reverse=True)
    ca, cb = sorted(ra), sorted(rb)
    ka, kb = key(GRANDE, " ".join(a), v), key(GRANDE, " ".join(b), v)
    assert (ka > kb) == (ga > gb) and (ka == kb) == (ga == gb)
    ka, kb = key(CHICA, " ".join(a), v), key(CHICA, " ".join(b), v)
    assert (ka > kb) == (ca < cb) and (ka == kb) == (ca == cb)
    pa, pb = ref.pares_strength(ra), ref.pares_strength(rb)
    ka, kb = key(PARES, " ".join(a), v), key(PARES, " ".join(b), v)
    assert (ka > kb) == ((pa or (0,)) > (pb or (0,)))


@settings(max_examples=200, deadline=None)
@given(cards=faces8)
def test_three_is_rey_and_two_is_as_with_8_reyes(cards):
    swapped = ["R" if c == "3" else "A" if c == "2" else c for c in cards]
    assert idx(" ".join(cards)) == idx(" ".join(swapped))
    # ...but not with 4 reyes, unless the hand holds no 3 and no 2
    if "3" in cards or "2" in cards:
        assert idx(" ".join(cards), V4) != idx(" ".join(swapped), V4)
