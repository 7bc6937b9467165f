"""Órdago decisions: call one, accept one, or not (RULES.md "Betting", "Game").

An órdago stakes the game on one lance.  Two numbers decide it:

* ``p`` = P(our team wins the lance if the órdago is seen), exact over every deal of
  the other three hands consistent with the declarations and the partner's seña:

  - grande, chica: ``p_team`` (P(our team holds the best hand));
  - pares, juego: conditional on the lance being contested (both teams hold it,
    otherwise there is no betting): ``p_team_contested / p_contested``;
  - punto: conditional on punto being played (nobody holds juego):
    ``p_team / p_played``.

* ``W(a, b)`` = P(we win the game from our ``a`` stones against their ``b``) without
  the órdago, from the win-the-game model (:mod:`musstats.analysis.game`), with our team as
  mano's team in the hand when our seat is mano or third.

Break-evens (with ``W(target, ·) = 1`` and ``W(·, target) = 0``):

* **Calling.**  If they accept, the lance decides the game: we win with ``p``.  If
  they refuse, we take the deje of 1 stone at once and play on: ``W(a + 1, b)``.
  Not calling leaves ``W(a, b)``.  With ``q`` = P(they accept), calling gains
  ``q (p - W(a, b)) + (1 - q) (W(a + 1, b) - W(a, b))``.  The second term is never
  negative, so against an opponent who accepts (the safe assumption) the
  break-even is **p_call = W(a, b)**: call when ``p >= W(a, b)``.  Below it a call
  is a bluff, which still pays when they accept less often than
  ``q* = g / (g + W(a, b) - p)``, ``g = W(a + 1, b) - W(a, b)`` (reported).
* **Accepting.**  Accepting wins the game with ``p``; refusing gives them 1 stone:
  ``W(a, b + 1)``.  Break-even **p_accept = W(a, b + 1)**: accept when ``p`` is above it.

Approximations (also listed in every result):

1. ``W`` is the en-paso model evaluated at the *start* of a hand with the current
   mano, as if this hand had not been dealt: it ignores what our known cards are
   worth in the rest of this hand (the other lances, the count after a refused
   órdago) and all betting in later hands.
2. The deje is 1 stone: the órdago is the first bet of the lance (a refused órdago
   over an earlier bet gives the amount that stood before it).
3. ``p`` treats the other hands as random given the stated conditions: nothing is
   read from the mus phase or from how the others bet.
4. The game model plays every hand after one mus round in which all four players
   discard by the shipped strategy table (nobody cuts the mus).
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from musstats.base.errors import MusError
from musstats.tables.hands import LANCES

__all__ = ["ORDAGO_LANCES", "parse_score", "parse_lance", "lance_probability", "break_evens",
           "decide", "ordago", "APPROXIMATIONS"]

ORDAGO_LANCES = LANCES
APPROXIMATIONS = (
    "P(win the game) is the en-paso model at the start of a hand with the current mano; "
    "the rest of this hand and later betting are ignored",
    "the deje of a refused órdago is 1 stone (the órdago is the first bet of the lance)",
    "the other hands are random given the stated declarations and seña",
    "the game model plays every hand after one mus round, all players discarding by the strategy table",
)
_LANCE_ES = {"grande": "grande", "chica": "chica", "pares": "pares", "juego": "juego", "punto": "punto"}
_LANCE_ALIASES = {"grande": "grande", "chica": "chica", "pares": "pares", "par": "pares",
                  "juego": "juego", "punto": "punto", "big": "grande", "small": "chica",
                  "pairs": "pares", "game": "juego", "point": "punto"}
_SCORE_RE = re.compile(r"^\s*(\d+)\s*[-:]\s*(\d+)\s*$")


def parse_lance(lance: str) -> str:
    """Normalise a lance name; MusError for an unknown one."""
    name = _LANCE_ALIASES.get(str(lance).strip().lower())
    if name is None:
        raise MusError(f"unknown lance {lance!r}; accepted: {', '.join(ORDAGO_LANCES)}")
    return name


def parse_score(score: str | tuple[int, int], target: int = 40) -> tuple[int, int]:
    """``"A-B"`` (our stones first, then theirs) → (A, B), each in ``0..target-1``."""
    if isinstance(score, str):
        m = _SCORE_RE.match(score)
        if not m:
            raise MusError(f"malformed score {score!r}; expected A-B, our stones first, e.g. 12-30")
        a, b = int(m.group(1)), int(m.group(2))
    else:
        try:
            a, b = score
        except (TypeError, ValueError):
            raise MusError(f"malformed score {score!r}; expected A-B, our stones first, e.g. 12-30") from None
        if isinstance(a, bool) or isinstance(b, bool) or not isinstance(a, int) or not isinstance(b, int):
            raise MusError(f"malformed score {score!r}; expected two whole numbers, our stones first")
    for who, s in (("our", a), ("their", b)):
        if not 0 <= s < target:
            raise MusError(f"{who} score {s} is out of range for a game to {target}; "
                           f"accepted: 0..{target - 1} (at {target} the game is over)")
    return a, b


def lance_probability(hand, seat: int, lance: str, variant, declared: str | None = None,
                      signal: str | None = None) -> dict[str, Any]:
    """P(our team wins ``lance`` if an órdago there is seen), exact, with the conditions.

    Returns ``{"p": Fraction, "basis": str, "p_contested" | "p_played": Fraction}``;
    MusError when the lance can never be bet under the conditions (pares/juego never
    contested, punto never played).
    """
    from musstats.rules.conditions import build_allowed, redeal_allowed
    from musstats.engines.exact import ALL_STATS
    from musstats.tables.hands import hand_tables
    from musstats.engines.jokers import showdown_counts

    t = hand_tables(variant)
    if variant.ten_kings and (declared or signal):
        raise MusError("--declared and --signal are not available with ten kings")
    allowed = build_allowed(variant, t.index_of(list(hand)), seat, declared, signal)
    allowed = redeal_allowed(variant, t.index_of(list(hand)), allowed)
    # exact fractions for the plain game; Monte Carlo frequencies with ten kings
    counts, totals = showdown_counts(list(hand), variant, seats=(seat,), allowed=allowed)
    li = LANCES.index(lance)
    conv = Fraction if not variant.ten_kings else (lambda a, b: a / b)
    fr = {st: conv(int(counts[seat, li, si]), int(totals[seat])) for si, st in enumerate(ALL_STATS)}
    if lance in ("grande", "chica"):
        return {"p": fr["p_team"], "basis": "p_team"}
    if lance in ("pares", "juego"):
        if fr["p_contested"] == 0:
            raise MusError(f"no órdago at {lance}: under these conditions both teams never hold {lance}, "
                           "so there is no betting on it")
        return {"p": fr["p_team_contested"] / fr["p_contested"], "basis": "p_team_contested / p_contested",
                "p_contested": fr["p_contested"]}
    if fr["p_played"] == 0:
        u = t.index_of(list(hand))
        if t.points[u] >= 31:
            raise MusError(f"no órdago at punto: you hold juego ({int(t.points[u])} points), "
                           "so punto is never played")
        raise MusError("no órdago at punto: under these conditions somebody always holds juego, "
                       "so punto is never played")
    return {"p": fr["p_team"] / fr["p_played"], "basis": "p_team / p_played", "p_played": fr["p_played"]}


def break_evens(model, us: int, them: int, mano: str) -> dict[str, float]:
    """W(a, b), W(a + 1, b), W(a, b + 1) from a :class:`~musstats.analysis.game.GameModel` and the break-evens."""
    w = model.p_win(us, them, mano)
    w_deje_us = model.p_win(us + 1, them, mano)
    w_deje_them = model.p_win(us, them + 1, mano)
    return {"p_game": w, "p_game_if_they_refuse": w_deje_us, "p_game_if_we_refuse": w_deje_them,
            "call": w, "accept": w_deje_them}


def decide(p: float, be: dict[str, float], lance: str = "lance") -> dict[str, Any]:
    """The decision and a one-line advice from ``p`` and :func:`break_evens`."""
    call = p >= be["call"]
    accept = p > be["accept"]
    gain = be["p_game_if_they_refuse"] - be["p_game"]
    bluff_q = None if call else (gain / (gain + be["call"] - p) if gain + be["call"] - p > 0 else 0.0)

    def pct(x: float) -> str:
        return f"{100 * x:.1f} %"

    def close(x: float, y: float) -> str:
        return " (close)" if abs(x - y) < 0.01 else ""

    if call:
        first = f"Call the órdago: P(win {lance}) {pct(p)} ≥ break-even {pct(be['call'])}{close(p, be['call'])}"
    else:
        first = (f"Don't call: P(win {lance}) {pct(p)} < break-even {pct(be['call'])}{close(p, be['call'])}"
                 f" (as a bluff it pays only if they accept under {pct(bluff_q)} of the time)")
    second = (f"against theirs, {'accept' if accept else 'refuse'} "
              f"({pct(p)} {'>' if accept else '≤'} {pct(be['accept'])}{close(p, be['accept'])}).")
    return {"call": call, "accept": accept, "bluff_max_accept_rate": bluff_q, "advice": f"{first}; {second}"}


def ordago(
    hand,
    seat: str | int = "mano",
    lance: str = "grande",
    score: str | tuple[int, int] = "0-0",
    variant: str = "8-reyes",
    juego_real: str = "off",
    target: int = 40,
    *,
    declared: str | None = None,
    signal: str | None = None,
    model=None,
) -> dict[str, Any]:
    """Should we call an órdago at ``lance`` (or accept one) at ``score`` (ours first)?

    Returns a JSON-friendly dict: the lance probability (float and exact fraction),
    P(win the game) without the órdago, the break-evens, the decision and a
    one-line ``advice``; see the module docstring for the derivation and the
    approximations.  ``model``: a :class:`~musstats.analysis.game.GameModel` to use instead of
    the cached default one (its target must match).
    """
    from musstats.rules.cards import parse_hand
    from musstats.rules.seats import SEATS, parse_seat
    from musstats.rules.variant import make_variant

    v = make_variant(variant, juego_real, target)
    cards = parse_hand(hand)
    s = parse_seat(seat)
    name = parse_lance(lance)
    us, them = parse_score(score, v.target)
    from musstats.tables.hands import hand_tables

    hand_tables(v).remaining(cards)  # physical check for this deck
    lp = lance_probability(cards, s, name, v, declared, signal)
    if model is None:
        from musstats.analysis.game import game_model

        model = game_model(v)
    elif model.target != v.target:
        raise MusError(f"the game model is for a game to {model.target}, not {v.target}")
    mano = "us" if s % 2 == 0 else "them"
    be = break_evens(model, us, them, mano)
    p = float(lp["p"])
    dec = decide(p, be, _LANCE_ES[name])
    notes = []
    t = hand_tables(v)
    from musstats.tables.hands import JUEGO, PARES

    li = {"pares": PARES, "juego": JUEGO}.get(name)
    if li is not None and t.key[li, t.index_of(cards)] == 0:
        notes.append(f"you do not hold {name}: only your partner can bet or answer it")
    return {
        "hand": [c.label for c in cards],
        "seat": SEATS[s],
        "team": "mano and third" if mano == "us" else "second and postre",
        "variant": v.name,
        "rules": v.describe(),
        "conditions": {k: val for k, val in (("declared", declared), ("signal", signal)) if val},
        "lance": name,
        "score": {"us": us, "them": them, "target": v.target},
        "p_lance": p,
        "p_lance_exact": str(lp["p"]) if not v.ten_kings else None,
        "p_lance_method": "exact" if not v.ten_kings else "Monte Carlo (400,000 deals, seed 2026)",
        "p_lance_basis": lp["basis"],
        "p_game": be["p_game"],
        "p_game_if_they_refuse": be["p_game_if_they_refuse"],
        "p_game_if_we_refuse": be["p_game_if_we_refuse"],
        "break_even": {"call": be["call"], "accept": be["accept"]},
        "call": dec["call"],
        "accept": dec["accept"],
        "bluff_max_accept_rate": dec["bluff_max_accept_rate"],
        "advice": dec["advice"],
        "game_model": {**model.describe(), "mano": "us" if mano == "us" else "them",
                       "evaluated_at": "start of the hand"},
        "approximations": list(APPROXIMATIONS),
        "notes": notes,
    }
