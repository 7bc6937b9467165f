"""Every slow, obviously-correct reference of the tests, written from the rules text
(musstats/docs/rules.md) and independent of musstats: nothing here imports the package.

Cards are described here from scratch (no musstats.rules.variant / musstats.tables.hands).
Two card models, both from the rules' "Deck":

* *kinds* (``DECK_8``, ``DECK_4``): a card is its effective rank (higher = better at grande)
  and its points; hands are multisets of kinds.  The exact reference enumerates the other
  three hands as multisets of kinds weighted by their card combinations.
* *faces* (``FACES_8``, ``FACES_4``): a physical face (12 rey ... 1 as) and its (rank,
  points); the plain-Python simulations deal physical cards.

Contents: lance strengths and winners; the exact showdown of every deal
(:func:`showdown_reference`); a plain-Python Monte Carlo of the showdown
(:func:`simulate_showdown`); the en-paso count of a deal (:func:`paso_steps`); plain-Python
simulations of dealt hands (:func:`simulate_paso_deals`, :func:`ten_kings_hand_frequencies`)
and of a mus round (:func:`mus_round`); the game by plain recursion
(:func:`game_win_probability`); xoshiro256** and Lemire's bounded draw in plain Python.
"""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from functools import lru_cache
from itertools import combinations_with_replacement
from math import comb

import numpy as np

LANCES = ("grande", "chica", "pares", "juego", "punto")
STATS = ("p_team", "p_self", "p_played", "p_contested", "ev_net", "p_team_contested")

# (name, effective rank, points, cards in the deck)
DECK_8 = [("A", 1, 1, 8), ("4", 4, 4, 4), ("5", 5, 5, 4), ("6", 6, 6, 4), ("7", 7, 7, 4),
          ("S", 10, 10, 4), ("C", 11, 10, 4), ("R", 12, 10, 8)]
DECK_4 = [("A", 1, 1, 4), ("2", 2, 2, 4), ("3", 3, 3, 4), ("4", 4, 4, 4), ("5", 5, 5, 4),
          ("6", 6, 6, 4), ("7", 7, 7, 4), ("S", 10, 10, 4), ("C", 11, 10, 4), ("R", 12, 10, 4)]
#: physical card name -> kind name, per deck
ALIAS_8 = {"R": "R", "3": "R", "C": "C", "S": "S", "7": "7", "6": "6", "5": "5", "4": "4", "2": "A", "A": "A"}
ALIAS_4 = {k: k for k in ("R", "C", "S", "7", "6", "5", "4", "3", "2", "A")}
#: (rank for grande/chica/pares, points) per physical face (12 rey, 11 caballo, 10 sota, ..., 1 as)
FACES_8 = {12: (12, 10), 3: (12, 10), 11: (11, 10), 10: (10, 10), 7: (7, 7), 6: (6, 6),
           5: (5, 5), 4: (4, 4), 2: (1, 1), 1: (1, 1)}
FACES_4 = {12: (12, 10), 11: (11, 10), 10: (10, 10), 7: (7, 7), 6: (6, 6), 5: (5, 5), 4: (4, 4),
           3: (3, 3), 2: (2, 2), 1: (1, 1)}
#: the 40 physical faces of the deck (four suits of every face)
PHYSICAL_FACES = (12, 11, 10, 7, 6, 5, 4, 3, 2, 1)
JUEGO_BEST_FIRST = [31, 32, 40, 37, 36, 35, 34, 33]


def deck(variant: str):
    return DECK_8 if variant == "8-reyes" else DECK_4


def faces(variant: str) -> dict:
    return FACES_8 if variant == "8-reyes" else FACES_4


# ---- naive lance evaluation: returns a comparable strength (bigger wins) or None ----

def grande_strength(ranks):
    return tuple(sorted(ranks, reverse=True))


def chica_strength(ranks):
    # lower wins: compare ascending lists; negate so that bigger is better
    return tuple(-r for r in sorted(ranks))


def pares_strength(ranks):
    """(category, high, low) with category 1 par, 2 medias, 3 duples; None without pares.

    Four of a kind counts as duples (of that rank twice)."""
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


# ---------------------------------------------------------------------------
# the exact showdown: every deal of the other three hands

def showdown_reference(hand_kinds: list[str], variant: str, dead_kinds=(), juego_real="off",
                       condition=None):
    """Exact odds for all four seats as Fractions: {seat: {lance: {stat: Fraction}}}.

    Enumerates every deal of the other three hands (as kind multisets, weighted by the
    number of card combinations).  For each seat s of the user, the other hands fill the
    other seats in seat order.  ``condition(user_seat, seat, kind_names) -> bool``
    restricts the other hands.

    How: a Python loop over the first other hand, numpy over the second (rows) and the
    third (columns), only the hands the cards left can make.  Each lance is decided by the
    lance's codes of the four hands (a strength, -1 when the hand does not hold the lance),
    so the deals are first grouped -- exactly, in integers -- by what decides the lance:

    * grande, chica (always played, 1 stone): by how the user's hand compares with the best
      of the three other hands (better, equal, worse) and which of them holds that best one
      (the first in seat order among equals);
    * pares, juego, punto: by the codes of the second and third other hands (the first
      other hand is the loop's);

    and then every group is settled by the rules: the best hand wins, ties to the seat
    nearer to mano; pares and juego score the values of both hands of the winning team;
    punto is played only when nobody holds juego.
    """
    kinds = deck(variant)
    nk = len(kinds)
    names = [k[0] for k in kinds]
    rem0 = np.array([k[3] for k in kinds], dtype=np.int64)
    for name in list(hand_kinds) + list(dead_kinds):
        rem0[names.index(name)] -= 1
    assert (rem0 >= 0).all()
    # the hands the other players can hold, and the user's hand last
    others = [h for h in all_hands(variant) if all(h.count(k) <= rem0[k] for k in set(h))]
    user = tuple(sorted(names.index(n) for n in hand_kinds))
    everyone = others + [user]
    H = len(others)
    cnt = np.zeros((H, nk), np.int64)
    for i, h in enumerate(others):
        for k in h:
            cnt[i, k] += 1
    ranks = [[kinds[k][1] for k in h] for h in everyone]
    pts = [sum(kinds[k][2] for k in h) for h in everyone]

    def dense(strengths):
        """Integer codes preserving order; -1 for None (not held)."""
        levels = sorted({s for s in strengths if s is not None})
        pos = {s: i for i, s in enumerate(levels)}
        return np.array([-1 if s is None else pos[s] for s in strengths], np.int64)

    code = {
        "grande": dense([grande_strength(r) for r in ranks]),
        "chica": dense([chica_strength(r) for r in ranks]),
        "pares": dense([pares_strength(r) for r in ranks]),
        "juego": dense([juego_strength(p, is_real31([names[k] for k in h], juego_real))
                        for p, h in zip(pts, everyone)]),
        # a hand with juego takes no part in punto (and punto is played only without juego)
        "punto": dense([p if p < 31 else None for p in pts]),
    }
    value = {"pares": [pares_value(r) for r in ranks], "juego": [juego_value(p) for p in pts]}
    # the stones a hand scores at pares / juego follow from its code: a table by code (+ 1)
    value_of = {}
    for lance in ("pares", "juego"):
        table = {}
        for cd, v in zip(code[lance].tolist(), value[lance]):
            assert table.setdefault(cd, v) == v
        value_of[lance] = np.array([table.get(cd, 0) for cd in range(-1, int(code[lance].max()) + 1)], np.int64)
    st = {lance: cd[:H] for lance, cd in code.items()}  # the other hands' codes
    su = {lance: int(cd[H]) for lance, cd in code.items()}  # the user's

    binom = np.array([[comb(n, k) for k in range(5)] for n in range(9)], np.int64)

    def ways(counts, rem):
        """Card combinations: the product over kinds of C(rem, count), 0 if impossible
        (C(n, k) = 0 for k > n); counts [..., nk], rem broadcastable."""
        r = np.clip(rem, 0, 8)
        w = binom[r[..., 0], counts[..., 0]]
        for k in range(1, nk):
            w = w * binom[r[..., k], counts[..., k]]
        return w

    def wsum(w, mask):
        """The exact integer sum of the deal weights ``w`` where ``mask``."""
        return int(np.einsum("ij,ij->", w, np.broadcast_to(mask, w.shape)))

    def grouped_sum(w, labels, n):
        """Exact integer sums of the weights ``w`` by ``labels`` (0..n-1).  np.bincount adds
        float64s, which hold every whole number below 2**53 exactly, and no partial sum here
        exceeds the number of deals, C(36, 4) C(32, 4) C(28, 4) < 2**46."""
        sums = np.bincount(labels.ravel(), weights=w.ravel(), minlength=n)
        out = sums.astype(np.int64)
        assert int(out.sum()) == int(w.sum()) < 2**53
        return out

    # pares, juego, punto: every pair of codes (-1 = not held) of the second and third other hands
    n_codes = {lance: int(code[lance].max()) + 2 for lance in ("pares", "juego", "punto")}
    grid = {lance: (np.arange(-1, n - 1)[:, None], np.arange(-1, n - 1)[None, :]) for lance, n in n_codes.items()}

    def groups(w, x, Y, Z):
        """The deals of weights ``w`` [second, third] grouped per lance (see the docstring)."""
        out = {}
        for lance in ("grande", "chica"):
            a, b, c = st[lance][x], st[lance][Y][:, None], st[lance][Z][None, :]
            top = np.maximum(np.maximum(a, b), c)  # the best of the three other hands...
            k = np.where(a == top, 0, np.where(b == top, 1, 2))  # ...and which one holds it
            mine = su[lance]
            rel = np.where(mine > top, 0, np.where(mine == top, 1, 2))  # user better, equal, worse
            sums = grouped_sum(w, rel * 3 + k, 9).reshape(3, 3)
            out[lance] = {"better": sums[0], "equal": sums[1], "worse": sums[2]}
        for lance in ("pares", "juego", "punto"):
            n = n_codes[lance]
            lab = (st[lance][Y][:, None] + 1) * n + (st[lance][Z][None, :] + 1)
            out[lance] = (st[lance][x], *grid[lance], grouped_sum(w, lab, n * n).reshape(n, n))
        return out

    ok = np.ones((4, 4, H), bool)  # [user seat, seat, hand]: the condition
    if condition is not None:
        for us in range(4):
            for q in range(4):
                if q != us:
                    ok[us, q] = [bool(condition(us, q, [names[k] for k in h])) for h in others]
    acc = {s: {lance: dict.fromkeys(STATS, 0) for lance in LANCES} for s in range(4)}
    total = dict.fromkeys(range(4), 0)
    for x in range(H):
        wx = int(ways(cnt[x], rem0))
        rem1 = rem0 - cnt[x]
        wy = ways(cnt, rem1)
        Y = np.nonzero(wy)[0]  # second other hand: the hands the cards left can make
        # the third other hand is one of those too (fewer cards are left for it)
        wz = ways(cnt[None, Y, :], (rem1[None, :] - cnt[Y])[:, None, :])  # [second, third]
        Z = Y[wz.any(axis=0)]
        w_all = wx * wy[Y][:, None] * wz[:, wz.any(axis=0)]  # deals with these three hands; < 2**53
        shared = groups(w_all, x, Y, Z) if condition is None else None
        for s in range(4):
            q = [p for p in range(4) if p != s]  # the seats of the three other hands, in order
            partner = [q[j] % 2 == s % 2 for j in range(3)]  # is the other hand j our partner's?
            if condition is None:
                w, g = w_all, shared
            else:  # only the deals whose other hands meet the condition
                if not ok[s, q[0], x]:
                    continue
                rows, cols = ok[s, q[1], Y], ok[s, q[2], Z]
                w = w_all[np.ix_(rows, cols)]
                g = groups(w, x, Y[rows], Z[cols])
            n = int(w.sum())
            total[s] += n
            for lance in ("grande", "chica"):
                rel = g[lance]
                assert sum(map(sum, rel.values())) == n
                # the other hand j sits before the user exactly when j < s: a tie with it goes
                # to the user when j >= s
                user_wins = sum(rel["better"]) + sum(rel["equal"][j] for j in range(3) if j >= s)
                other_wins = [rel["worse"][j] + (rel["equal"][j] if j < s else 0) for j in range(3)]
                team = user_wins + sum(other_wins[j] for j in range(3) if partner[j])
                a = acc[s][lance]
                a["p_team"] += team
                a["p_self"] += user_wins
                a["p_played"] += n  # always played
                a["ev_net"] += team - (n - team)  # one stone, to one team or the other
                # never contested (only pares and juego are)
            for lance in ("pares", "juego", "punto"):
                a_cd, b_cd, c_cd, cells = g[lance]
                mine = su[lance]
                top = np.maximum(np.maximum(a_cd, b_cd), c_cd)
                k = np.where(a_cd == top, 0, np.where(b_cd == top, 1, 2))
                # the user's hand wins when it is better than the best other, or as good and
                # his seat comes first
                user_wins = (mine >= 0) & ((mine > top) | ((mine == top) & (k >= s)))
                ours = user_wins | np.array(partner)[k]
                if lance == "punto":  # played when nobody holds juego, i.e. every hand holds punto
                    played = (mine >= 0) & (a_cd >= 0) & (b_cd >= 0) & (c_cd >= 0)
                else:
                    played = (mine >= 0) | (top >= 0)
                if lance == "punto":  # one stone
                    ev = np.where(ours, 1, -1)
                    contested = np.zeros((1, 1), bool)
                else:  # the winning team scores the values of both its hands
                    # by seat: who holds the lance, and the stones his hand scores en paso
                    held = {s: mine >= 0, q[0]: a_cd >= 0, q[1]: b_cd >= 0, q[2]: c_cd >= 0}
                    vals = {s: value_of[lance][mine + 1], q[0]: value_of[lance][a_cd + 1],
                            q[1]: value_of[lance][b_cd + 1], q[2]: value_of[lance][c_cd + 1]}
                    team_value = [vals[0] + vals[2], vals[1] + vals[3]]
                    ev = np.where(ours, team_value[s % 2], -team_value[1 - s % 2])
                    contested = (held[0] | held[2]) & (held[1] | held[3])
                team = played & ours
                a = acc[s][lance]
                a["p_team"] += wsum(cells, team)
                a["p_self"] += wsum(cells, played & user_wins)
                a["p_played"] += wsum(cells, played)
                a["p_contested"] += wsum(cells, contested)
                a["ev_net"] += wsum(cells * np.where(played, ev, 0), True)
                a["p_team_contested"] += wsum(cells, team & contested)
    return {s: {lance: {k: Fraction(acc[s][lance][k], total[s]) for k in STATS} for lance in LANCES}
            for s in range(4)}


def fractions_to_json(ref: dict) -> dict:
    """:func:`showdown_reference`'s result as JSON: {seat: {lance: {stat: "num/den"}}}."""
    return {str(s): {lance: {st: f"{f.numerator}/{f.denominator}" for st, f in stats.items()}
                     for lance, stats in lances.items()} for s, lances in ref.items()}


def fractions_from_json(doc: dict) -> dict:
    """The inverse of :func:`fractions_to_json`: {seat (int): {lance: {stat: Fraction}}}."""
    return {int(s): {lance: {st: Fraction(f) for st, f in stats.items()} for lance, stats in lances.items()}
            for s, lances in doc.items()}


# ---------------------------------------------------------------------------
# a plain-Python Monte Carlo of the showdown (physical cards, any number of players)

def deal_lances(hand):
    """Per lance (strength or None, stones en paso) for one hand of (rank, points) cards."""
    ranks = [r for r, _ in hand]
    pts = sum(p for _, p in hand)
    pares = pares_strength(ranks)
    juego = juego_strength(pts)
    return {
        "grande": (grande_strength(ranks), 1),
        "chica": (chica_strength(ranks), 1),
        "pares": (pares, pares[0] if pares else 0),
        "juego": (juego, juego_value(pts)),
        "punto": (pts if pts < 31 else None, 1),
    }


def deal_stats(hands, seat, teams=None):
    """[5 lances, 5 stats] outcome of one deal for ``seat`` (STATS order without
    p_team_contested; p_contested NaN where it does not apply).

    ``hands``: (rank, points) cards of every seat in seat order; ``teams``: the team of
    each seat (default: partners, even and odd seats; individual play: every seat its own).
    """
    n = len(hands)
    teams = [q % 2 for q in range(n)] if teams is None else list(teams)
    ev = [deal_lances(h) for h in hands]
    out = np.zeros((5, 5))
    anyone_juego = any(e["juego"][0] is not None for e in ev)
    for li, lance in enumerate(LANCES):
        strengths = [e[lance][0] for e in ev]
        best = best_seat(strengths)  # ties go to the seat nearer to mano
        played = best is not None and not (lance == "punto" and anyone_juego)
        if lance in ("pares", "juego"):
            holders = {teams[q] for q in range(n) if strengths[q] is not None}
            out[li, 3] = float(len(holders) >= 2)
        else:
            out[li, 3] = np.nan
        if not played:
            continue
        ours = teams[best] == teams[seat]
        if lance in ("pares", "juego"):
            stones = sum(ev[q][lance][1] for q in range(n) if teams[q] == teams[best])
        else:
            stones = 1
        out[li, :3] = (ours, best == seat, 1.0)
        out[li, 4] = stones if ours else -stones
    return out


def simulate_showdown(hand, seat, face_table, n_players, deals, seed, dead=(), accept=None, teams=None):
    """Plain-Python Monte Carlo: mean [5, 5] and SE [5, 5] over ``deals`` accepted deals.

    ``hand`` and ``dead``: physical faces; ``accept(seat, hand) -> bool`` rejects deals (the
    hand as (rank, points) cards); ``teams`` as in :func:`deal_stats`.
    """
    rng = random.Random(seed)
    cards = [f for f in face_table for _ in range(4)]  # four suits of every face
    for c in list(hand) + list(dead):
        cards.remove(c)
    mine = [face_table[f] for f in hand]
    rows = []
    while len(rows) < deals:
        drawn = rng.sample(cards, 4 * (n_players - 1))
        hands, k = [], 0
        for q in range(n_players):
            if q == seat:
                hands.append(mine)
            else:
                hands.append([face_table[f] for f in drawn[k:k + 4]])
                k += 4
        if accept is not None and not all(accept(q, hands[q]) for q in range(n_players) if q != seat):
            continue
        rows.append(deal_stats(hands, seat, teams))
    a = np.array(rows)
    return a.mean(axis=0), a.std(axis=0, ddof=1) / np.sqrt(len(rows))


# ---------------------------------------------------------------------------
# the en-paso count of one deal (four players in partnerships, no juego real)

def paso_steps(hands_faces, variant: str) -> np.ndarray:
    """Stones per count step (grande, chica, pares, juego-or-punto) and team [4, 2] en paso,
    for four hands of physical faces in seat order (team = seat % 2)."""
    table = faces(variant)
    ev = [deal_lances([table[f] for f in h]) for h in hands_faces]
    out = np.zeros((4, 2), np.int64)
    for step, lance in enumerate(("grande", "chica", "pares")):
        w = best_seat([e[lance][0] for e in ev])
        if w is not None:
            out[step, w % 2] += sum(ev[q][lance][1] for q in (w % 2, w % 2 + 2)) if lance == "pares" else 1
    w = best_seat([e["juego"][0] for e in ev])
    if w is None:  # nobody holds juego: punto, 1 stone
        out[3, best_seat([e["punto"][0] for e in ev]) % 2] += 1
    else:
        out[3, w % 2] += sum(ev[q]["juego"][1] for q in (w % 2, w % 2 + 2))
    return out


def simulate_paso_deals(variant: str, n: int, seed: int) -> np.ndarray:
    """Deal physical cards with random.shuffle and count en paso: one row per deal with
    (stones team 0, stones team 1, team 0 grande, team 0 pares, pares void, team 0 juego or punto)."""
    kinds = deck(variant)
    cards = [k for k, (_, _, _, cnt) in enumerate(kinds) for _ in range(cnt)]
    assert len(cards) == 40
    rng = random.Random(seed)
    rows = []
    for _ in range(n):
        rng.shuffle(cards)
        hands = [cards[4 * s: 4 * s + 4] for s in range(4)]
        ranks = [[kinds[k][1] for k in h] for h in hands]
        pts = [sum(kinds[k][2] for k in h) for h in hands]
        g = best_seat([grande_strength(r) for r in ranks]) % 2
        c = best_seat([chica_strength(r) for r in ranks]) % 2
        stones = [0, 0]
        stones[g] += 1
        stones[c] += 1
        ps = best_seat([pares_strength(r) for r in ranks])
        pares_team = None
        if ps is not None:
            pares_team = ps % 2
            stones[pares_team] += sum(pares_value(ranks[s]) for s in (pares_team, pares_team + 2))
        js = best_seat([juego_strength(p) for p in pts])
        if js is not None:
            last = js % 2
            stones[last] += sum(juego_value(pts[s]) for s in (last, last + 2))
        else:
            last = best_seat(list(pts)) % 2
            stones[last] += 1
        rows.append((stones[0], stones[1], g == 0, pares_team == 0, pares_team is None, last == 0))
    return np.array(rows, dtype=np.float64)


def ten_kings_hand_frequencies(n: int, seed: int, tests: dict) -> dict:
    """Ten kings, plain Python: the share of ``n`` random 4-card hands that can satisfy each
    test for *some* identity of its jokers.  ``tests``: {name: f(kind names) -> bool}.

    The physical deck of 8 reyes with the sotas de copas and de oros as jokers ("J"), each
    fixed as a rey or an as.
    """
    cards = []
    for kind in ("R", "R", "C", "7", "6", "5", "4", "A", "A"):  # R = 12 and 3, A = 1 and 2
        cards += [kind] * 4
    cards += ["S", "S", "J", "J"]  # sotas de espadas and bastos; copas and oros are jokers
    assert len(cards) == 40
    rng = random.Random(seed)
    hits = dict.fromkeys(tests, 0)
    for _ in range(n):
        hand = rng.sample(cards, 4)
        jokers = hand.count("J")
        rest = [k for k in hand if k != "J"]
        options = [rest + ["R"] * (jokers - n_as) + ["A"] * n_as for n_as in range(jokers + 1)]
        for name, test in tests.items():
            hits[name] += any(test(o) for o in options)
    return {name: h / n for name, h in hits.items()}


# ---------------------------------------------------------------------------
# a mus round with physical cards

def mus_round(rng, card_kind, keep_mask, players: int = 4):
    """One deal and one mus round of physical cards 0..39: shuffle, deal 4 x 4 from the top,
    then each seat in turn sorts his hand by ``card_kind`` (highest first), keeps the cards
    of ``keep_mask(seat, sorted hand)`` (bit i = keep card i) and draws the rest from the
    top of the stock.  Returns the final hands (lists of card ids)."""
    cards = list(rng.permutation(40))
    hands = [cards[4 * q: 4 * q + 4] for q in range(players)]
    stock = cards[4 * players:]
    for q in range(players):
        sorted_hand = sorted(hands[q], key=lambda c: -card_kind[c])
        m = int(keep_mask(q, sorted_hand))
        kept = [sorted_hand[j] for j in range(4) if m >> j & 1]
        hands[q] = kept + [stock.pop() for _ in range(4 - len(kept))]
    return hands


# ---------------------------------------------------------------------------
# the game, by plain recursion over the definition

def game_win_probability(outcomes: list, target: int):
    """P(team A wins the game), by recursion with Fractions: ``P(a, b, m)`` with ``m = 0``
    when team A is mano's team in the next hand.

    ``outcomes``: ``[(steps, probability)]``, ``steps`` the count steps in order, each
    ``(team, stones)`` (team 0 = mano's team) or None.  The first team to reach ``target``
    in the count wins at once; otherwise mano passes to the other team.
    """

    @lru_cache(maxsize=None)
    def P(a: int, b: int, m: int) -> Fraction:
        total = Fraction(0)
        for steps, prob in outcomes:
            sa, sb, res = a, b, None
            for step in steps:
                if step is None:
                    continue
                team, n = step
                if (team == 0) == (m == 0):
                    sa += n
                    if sa >= target:
                        res = Fraction(1)
                        break
                else:
                    sb += n
                    if sb >= target:
                        res = Fraction(0)
                        break
            if res is None:
                res = P(sa, sb, 1 - m)
            total += prob * res
        return total

    return P


# ---------------------------------------------------------------------------
# xoshiro256** and Lemire's bounded draw, in plain Python

M64 = (1 << 64) - 1


def rotl(x: int, k: int) -> int:
    return ((x << k) | (x >> (64 - k))) & M64


def xoshiro_next(s: list[int]) -> int:
    """xoshiro256** in plain Python, from the reference C code; advances the state ``s``."""
    r = (rotl((s[1] * 5) & M64, 7) * 9) & M64
    t = (s[1] << 17) & M64
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = rotl(s[3], 45)
    return r


def bounded(x: int, n: int, bits: int, s: list[int]) -> int:
    """Lemire's multiply-and-reject draw in [0, n) from ``bits`` random bits."""
    mask = (1 << bits) - 1
    m = x * n
    if (m & mask) < n:
        thresh = ((1 << bits) - n) % n
        while (m & mask) < thresh:
            m = (xoshiro_next(s) >> (64 - bits)) * n
    return m >> bits


# ---------------------------------------------------------------------------
# hands written as text, and the conditions of declarations and señas (for the references)

SEAT_NAMES = ("mano", "second", "third", "postre")


def kinds_of(text: str, variant: str) -> list[str]:
    """Kind names of cards written one character each, e.g. ``"R R 3 A"`` (3 is a rey with 8 reyes)."""
    alias = ALIAS_8 if variant == "8-reyes" else ALIAS_4
    return [alias[c] for c in text.split()]


def signal_test(signal: str, variant: str):
    """f(kind names) -> bool: the partner's hand makes the seña ``signal`` (rules: "Partner signals")."""
    kinds = {k[0]: k for k in deck(variant)}
    top = max(k[1] for k in deck(variant))
    low = min(k[1] for k in deck(variant))

    def ranks(h):
        return [kinds[c][1] for c in h]

    def points(h):
        return sum(kinds[c][2] for c in h)

    counts = {"two": 2, "three": 3, "four": 4}
    if signal in ("duples", "medias"):
        return lambda h: pares_value(ranks(h)) == (3 if signal == "duples" else 2)
    if signal == "31":
        return lambda h: points(h) == 31
    if signal == "punto-30":
        return lambda h: points(h) == 30
    if signal == "bad":
        return lambda h: pares_value(ranks(h)) == 0 and points(h) < 31
    n, what = signal.split("-")
    rank = top if what == "reyes" else low
    return lambda h: ranks(h).count(rank) == counts[n]


def condition_of(declared: str | None, signal: str | None, variant: str):
    """``condition(user_seat, seat, kind names) -> bool`` for showdown_reference, from declarations
    such as ``"second:pares,postre:no-juego"`` and the seña of the user's partner."""
    kinds = {k[0]: k for k in deck(variant)}
    rules = {}
    for item in (declared or "").split(","):
        if item.strip():
            seat, what = item.strip().split(":")
            rules.setdefault(SEAT_NAMES.index(seat), []).append(what)
    sig = signal_test(signal, variant) if signal else None

    def cond(user_seat, seat, h):
        for what in rules.get(seat, []):
            if what.endswith("pares"):
                has = pares_strength([kinds[c][1] for c in h]) is not None
            else:
                has = sum(kinds[c][2] for c in h) >= 31
            if has == what.startswith("no-"):
                return False
        if sig is not None and seat == (user_seat + 2) % 4:
            return sig(h)
        return True

    return cond
