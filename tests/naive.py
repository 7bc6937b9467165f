"""Slow, obviously-correct references written from RULES.md, independent of musstats' tables.

Cards are described here from scratch (no musstats.rules.variant / musstats.tables.hands): a card is
its effective rank (higher = better at grande) and its points.  Deals of the other three
hands are enumerated as multisets of card kinds weighted by card combinations.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import combinations_with_replacement
from math import comb

import numpy as np

# (name, effective rank, points, cards in the deck)
DECK_8 = [("A", 1, 1, 8), ("4", 4, 4, 4), ("5", 5, 5, 4), ("6", 6, 6, 4), ("7", 7, 7, 4),
          ("S", 10, 10, 4), ("C", 11, 10, 4), ("R", 12, 10, 8)]
DECK_4 = [("A", 1, 1, 4), ("2", 2, 2, 4), ("3", 3, 3, 4), ("4", 4, 4, 4), ("5", 5, 5, 4),
          ("6", 6, 6, 4), ("7", 7, 7, 4), ("S", 10, 10, 4), ("C", 11, 10, 4), ("R", 12, 10, 4)]
#: physical card name -> kind name, per deck
ALIAS_8 = {"R": "R", "3": "R", "C": "C", "S": "S", "7": "7", "6": "6", "5": "5", "4": "4", "2": "A", "A": "A"}
ALIAS_4 = {k: k for k in ("R", "C", "S", "7", "6", "5", "4", "3", "2", "A")}
JUEGO_BEST_FIRST = [31, 32, 40, 37, 36, 35, 34, 33]


def deck(variant: str):
    return DECK_8 if variant == "8-reyes" else DECK_4


# ---- naive lance evaluation: returns a comparable strength (bigger wins) or None ----

def grande_strength(ranks):
    return tuple(sorted(ranks, reverse=True))


def chica_strength(ranks):
    # lower wins: compare ascending lists; negate so that bigger is better
    return tuple(-r for r in sorted(ranks))


def pares_strength(ranks):
    """(category, high, low) with category 1 par, 2 medias, 3 duples; None without pares."""
    c = Counter(ranks)
    mult = sorted(c.values(), reverse=True)
    if mult[0] == 4:
        r = ranks[0]
        return (3, r, r)
    if mult[:2] == [2, 2]:
        pair_ranks = sorted((r for r, m in c.items() if m == 2), reverse=True)
        return (3, pair_ranks[0], pair_ranks[1])
    if mult[0] == 3:
        return (2, [r for r, m in c.items() if m == 3][0], 0)
    if mult[0] == 2:
        return (1, [r for r, m in c.items() if m == 2][0], 0)
    return None


def pares_value(ranks):
    s = pares_strength(ranks)
    return 0 if s is None else s[0]


def juego_strength(points, real=False):
    """Bigger is better; "31 real" (juego real variants) beats every other juego."""
    if points < 31:
        return None
    return len(JUEGO_BEST_FIRST) - JUEGO_BEST_FIRST.index(points) + (1 if real else 0)


def is_real31(kind_names, juego_real):
    """Three 7s plus a 10-point card (figure) or a sota (sota)."""
    if juego_real == "off" or sorted(kind_names).count("7") != 3:
        return False
    fourth = [k for k in kind_names if k != "7"]
    partners = {"figure": ("R", "C", "S"), "sota": ("S",)}[juego_real]
    return len(fourth) == 1 and fourth[0] in partners


def juego_value(points):
    return 0 if points < 31 else (3 if points == 31 else 2)


def best_seat(strengths):
    """Seat of the best strength (None = not held); ties to the lower seat.  None if nobody."""
    best = None
    for seat, s in enumerate(strengths):
        if s is not None and (best is None or s > strengths[best]):
            best = seat
    return best


def all_hands(variant: str):
    kinds = deck(variant)
    return [h for h in combinations_with_replacement(range(len(kinds)), 4)
            if all(h.count(k) <= kinds[k][3] for k in set(h))]


def showdown_reference(hand_kinds: list[str], variant: str, dead_kinds=(), juego_real="off",
                       condition=None):
    """Exact odds for all four seats as Fractions: {seat: {lance: {stat: Fraction}}}.

    Enumerates every deal of the other three hands (as kind multisets, weighted by the
    number of card combinations).  For each seat s of the user, the other hands fill the
    other seats in seat order.  Vectorised over the last two hands with numpy.
    ``condition(user_seat, seat, kind_names) -> bool`` restricts the other hands.
    """
    kinds = deck(variant)
    nk = len(kinds)
    names = [k[0] for k in kinds]
    rem0 = np.array([k[3] for k in kinds], dtype=np.int64)
    for name in list(hand_kinds) + list(dead_kinds):
        rem0[names.index(name)] -= 1
    assert (rem0 >= 0).all()
    hands = [h for h in all_hands(variant)
             if all(h.count(k) <= rem0[k] + list(hand_kinds).count(names[k]) for k in set(h))]
    H = len(hands)
    cnt = np.zeros((H, nk), np.int64)
    for i, h in enumerate(hands):
        for k in h:
            cnt[i, k] += 1
    ranks = [[kinds[k][1] for k in h] for h in hands]
    pts = [sum(kinds[k][2] for k in h) for h in hands]

    def dense(strengths):
        """Integer codes preserving order; -1 for None (not held)."""
        levels = sorted({s for s in strengths if s is not None})
        pos = {s: i for i, s in enumerate(levels)}
        return np.array([-1 if s is None else pos[s] for s in strengths], np.int64)

    st = {
        "grande": dense([grande_strength(r) for r in ranks]),
        "chica": dense([chica_strength(r) for r in ranks]),
        "pares": dense([pares_strength(r) for r in ranks]),
        "juego": dense([juego_strength(p, is_real31([names[k] for k in h], juego_real))
                        for p, h in zip(pts, hands)]),
        "punto": dense([p if p < 31 else None for p in pts]),
    }
    val = {"pares": np.array([pares_value(r) for r in ranks]), "juego": np.array([juego_value(p) for p in pts])}
    ucnt = np.zeros(nk, np.int64)
    for name in hand_kinds:
        ucnt[names.index(name)] += 1
    u = [i for i in range(H) if (cnt[i] == ucnt).all()][0]

    binom = np.array([[comb(n, k) for k in range(5)] for n in range(9)], np.int64)

    def ways(counts, rem):
        # counts [..., nk], rem broadcastable: product of C(rem, count); 0 if impossible
        ok = (counts <= rem).all(axis=-1)
        r = np.where(rem < 0, 0, rem)
        w = np.prod(binom[np.minimum(r, 8), counts], axis=-1)
        return np.where(ok, w, 0)

    lances = ("grande", "chica", "pares", "juego", "punto")
    acc = {s: {l: Counter() for l in lances} for s in range(4)}
    total = Counter()
    ok = np.ones((4, 4, H), np.int64)  # [user seat, seat, hand]
    if condition is not None:
        for us in range(4):
            for q in range(4):
                for i, h in enumerate(hands):
                    ok[us, q, i] = bool(condition(us, q, [names[k] for k in h]))
    for x in range(H):
        wx = int(ways(cnt[x], rem0))
        if wx == 0:
            continue
        rem1 = rem0 - cnt[x]
        wy = ways(cnt, rem1)  # [H]
        rem2 = rem1[None, :] - cnt  # [H(y), nk]
        wz = ways(cnt[None, :, :], rem2[:, None, :])  # [H(y), H(z)]
        w_all = wx * wy[:, None] * wz  # exact: < 2**53
        yy = np.arange(H)[:, None]  # second other hand, broadcast along rows
        zz = np.arange(H)[None, :]  # third other hand, along columns
        shape = (H, H)
        for s in range(4):
            others = [q for q in range(4) if q != s]
            w = w_all * ok[s, others[0], x] * ok[s, others[1]][yy] * ok[s, others[2]][zz]
            total[s] += int(w.sum())
            at = {s: u, others[0]: x, others[1]: yy, others[2]: zz}
            juego_any = np.zeros(shape, bool)
            for q in range(4):
                juego_any |= st["juego"][at[q]] >= 0
            for lance in lances:
                S = [np.broadcast_to(st[lance][at[q]], shape) for q in range(4)]
                held = [sq >= 0 for sq in S]
                played = held[0] | held[1] | held[2] | held[3]
                if lance == "punto":
                    played &= ~juego_any
                # the winner: the best strength, ties to the seat nearer to mano (first seen)
                win = np.zeros(shape, np.int64)
                best = S[0]
                for q in (1, 2, 3):
                    better = S[q] > best
                    win = np.where(better, q, win)
                    best = np.maximum(best, S[q])
                our = (win % 2) == (s % 2)
                team = played & our
                self_ = played & (win == s)
                if lance in ("pares", "juego"):
                    v = [np.broadcast_to(val[lance][at[q]], shape) for q in range(4)]
                    team_vals = [v[0] + v[2], v[1] + v[3]]
                    gain = np.where(win % 2 == 0, team_vals[0], team_vals[1])
                    ev = np.where(played, np.where(our, gain, -gain), 0)
                    contested = (held[0] | held[2]) & (held[1] | held[3])
                else:
                    ev = np.where(played, np.where(our, 1, -1), 0)
                    contested = np.zeros(shape, bool)
                a = acc[s][lance]
                a["p_team"] += int(w[team].sum())
                a["p_self"] += int(w[self_].sum())
                a["p_played"] += int(w[played].sum())
                a["p_contested"] += int(w[contested].sum())
                a["ev_net"] += int((w * ev).sum())
                a["p_team_contested"] += int(w[team & contested].sum())
    return {s: {l: {k: Fraction(acc[s][l][k], total[s]) for k in
                    ("p_team", "p_self", "p_played", "p_contested", "ev_net",
                                                       "p_team_contested")} for l in lances}
            for s in range(4)}


def lance_winners(hands: list[list[str]], variant: str, juego_real: str = "off") -> dict:
    """Winning seat of each lance for four hands of kind names (None: the lance is not played)."""
    kinds = {k[0]: k for k in deck(variant)}
    ranks = [[kinds[c][1] for c in h] for h in hands]
    pts = [sum(kinds[c][2] for c in h) for h in hands]
    juego = [juego_strength(p, is_real31(h, juego_real)) for p, h in zip(pts, hands)]
    any_juego = any(j is not None for j in juego)
    return {
        "grande": best_seat([grande_strength(r) for r in ranks]),
        "chica": best_seat([chica_strength(r) for r in ranks]),
        "pares": best_seat([pares_strength(r) for r in ranks]),
        "juego": best_seat(juego),
        "punto": None if any_juego else best_seat(pts),
    }
