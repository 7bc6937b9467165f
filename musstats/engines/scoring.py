"""Scoring of one hand of Mus (RULES.md "Betting", "Scoring at the count", "Game").

Given the four hands in seat order (0 = mano, 1 = second, 2 = third, 3 = postre;
team = seat % 2), the variant, the score before the hand and the outcome of the
betting of each lance, :func:`score_hand` gives the stones of each team, in the
order they are taken:

1. **The betting, in lance order** (grande, chica, pares, juego *or* punto).
   A refused bet (deje) is taken at once; an accepted órdago ends the game at
   once (the team that wins that lance wins the game, later lances are not
   played).  Stones taken at once count immediately: a deje that takes a team
   to the target ends the game there.
2. **The count, in lance order** grande, chica, pares, juego/punto.  The first
   team to reach ``variant.target`` wins at that moment; the rest is not counted.

The outcome of a lance's betting is a :class:`Bet`.  A lance in which nobody
can bet (pares or juego held by one team only, or by nobody) takes only
``Bet.paso()``; any other bet there is a :class:`~musstats.base.errors.MusError`.

:func:`paso_stones` and :func:`paso_stones_batch` are the en-paso count of whole
deals by the compiled kernels.  Winners come from the one lance resolution of
:mod:`musstats._kernels.lances`, like every engine's.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from musstats.rules.cards import Card, check_physical, parse_hand
from musstats.base.errors import MusError
from musstats.tables.hands import JUEGO, LANCES, PARES, PARES_NAMES, hand_tables
from musstats.rules.variant import Variant

__all__ = [
    "Bet",
    "HandScore",
    "score_hand",
    "lance_winners",
    "paso_stones",
    "paso_stones_batch",
    "COUNT_LANCES",
]

#: The four counted lances; the last one is juego when anybody holds juego, else punto.
COUNT_LANCES = ("grande", "chica", "pares", "juego-or-punto")

PASO, ACCEPTED, REFUSED, ORDAGO_ACCEPTED, ORDAGO_REFUSED = (
    "paso", "accepted", "refused", "ordago_accepted", "ordago_refused")
BET_KINDS = (PASO, ACCEPTED, REFUSED, ORDAGO_ACCEPTED, ORDAGO_REFUSED)


def _int(x, what: str) -> int:
    if isinstance(x, bool):
        raise MusError(f"{what} must be a whole number, got {x!r}")
    try:
        return operator.index(x)
    except TypeError:
        raise MusError(f"{what} must be a whole number, got {x!r}") from None


def _team(by, what: str, required: bool) -> int | None:
    if by is None:
        if required:
            raise MusError(f"{what} needs the bettors' team: by=0 (mano and third) or by=1 (second and postre)")
        return None
    t = _int(by, "the bettors' team 'by'")
    if t not in (0, 1):
        raise MusError(f"the bettors' team 'by' must be 0 (mano and third) or 1 (second and postre), got {by!r}")
    return t


@dataclass(frozen=True)
class Bet:
    """How the betting of one lance ended.  Build it with the class methods.

    ``kind`` is one of ``BET_KINDS``; ``amount`` is the stake of an accepted bet
    or, for a refused bet, the *level* the bettors take at once (the deje);
    ``by`` is the bettors' team (0 = mano and third, 1 = second and postre).

    * ``Bet.paso()``: everybody passed; the lance is counted en paso.
    * ``Bet.accepted(n, by=None)``: a bet (or the last raise) of ``n >= 2`` stones
      was accepted; the team that wins the lance takes ``n`` at the count.  ``by``
      is optional (the stake goes to the lance winner whoever bet).
    * ``Bet.refused(level, by=team)``: the other team refused; team ``by`` takes
      ``level`` stones at once.  ``level`` is 1 for a refused first bet, or the
      amount that stood before a refused raise (e.g. 2, raise to 4, raise to 20,
      refused: level 4).
    * ``Bet.ordago_accepted(by=None)``: an accepted órdago; the team that wins
      the lance wins the game.
    * ``Bet.ordago_refused(by=team, level=1)``: a refused órdago; like a refused
      bet, 1 stone for a first órdago, or the amount that stood before it.
    """

    kind: str = PASO
    amount: int = 0
    by: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in BET_KINDS:
            raise MusError(f"unknown bet kind {self.kind!r}; accepted: {', '.join(BET_KINDS)}")
        amount = _int(self.amount, "a bet amount")
        object.__setattr__(self, "amount", amount)
        if self.kind == PASO:
            if amount != 0 or self.by is not None:
                raise MusError("Bet.paso() takes no amount and no team")
        elif self.kind == ACCEPTED:
            if amount < 2:
                raise MusError(f"an accepted bet is at least 2 stones, got {amount}")
            object.__setattr__(self, "by", _team(self.by, "an accepted bet", False))
        elif self.kind in (REFUSED, ORDAGO_REFUSED):
            if amount < 1:
                raise MusError(
                    f"a refused bet gives at least 1 stone (1 for a first bet, else the amount that "
                    f"stood before the refused raise), got {amount}")
            object.__setattr__(self, "by", _team(self.by, "a refused bet", True))
        else:  # ORDAGO_ACCEPTED
            if amount != 0:
                raise MusError("an accepted órdago takes no amount: it stakes the game")
            object.__setattr__(self, "by", _team(self.by, "an órdago", False))

    @classmethod
    def paso(cls) -> "Bet":
        """Everybody passed: the lance is counted en paso."""
        return cls(PASO)

    @classmethod
    def accepted(cls, n: int, by: int | None = None) -> "Bet":
        """A bet of ``n >= 2`` stones was accepted (``by``: bettors' team, optional)."""
        return cls(ACCEPTED, n, by)

    @classmethod
    def refused(cls, level: int = 1, *, by: int) -> "Bet":
        """Team ``by`` bet and the others refused: ``by`` takes ``level`` stones at once."""
        return cls(REFUSED, level, by)

    @classmethod
    def ordago_accepted(cls, by: int | None = None) -> "Bet":
        """An accepted órdago: the winner of the lance wins the game."""
        return cls(ORDAGO_ACCEPTED, 0, by)

    @classmethod
    def ordago_refused(cls, *, by: int, level: int = 1) -> "Bet":
        """Team ``by``'s órdago was refused: ``by`` takes ``level`` stones at once (1 if first bet)."""
        return cls(ORDAGO_REFUSED, level, by)

    @property
    def is_paso(self) -> bool:
        return self.kind == PASO

    @property
    def is_refused(self) -> bool:
        """A refused bet or órdago (a deje)."""
        return self.kind in (REFUSED, ORDAGO_REFUSED)

    def __str__(self) -> str:
        if self.kind == PASO:
            return "paso"
        if self.kind == ACCEPTED:
            return f"{self.amount} accepted"
        if self.kind == ORDAGO_ACCEPTED:
            return "órdago accepted"
        what = "órdago" if self.kind == ORDAGO_REFUSED else "bet"
        return f"{what} by team {self.by} refused ({self.amount} at once)"


@dataclass
class HandScore:
    """Result of :func:`score_hand`."""

    #: stones won by team 0 / team 1 in this hand (as counted until the game ended)
    stones: tuple[int, int]
    #: score after the hand
    final_score: tuple[int, int]
    #: team that won the game in this hand, else None
    winner: int | None
    #: (lance, team, stones, reason) in the order they were taken,
    #: e.g. ("pares", 1, 4, "deje"), ("pares", 0, 3, "count: duples")
    events: list[tuple[str, int, int, str]] = field(default_factory=list)


# ---------------------------------------------------------------------------
# winners


def _winners(hs: Sequence[int], variant: Variant) -> dict[str, int | None]:
    """Winning seat of each lance (None: not played), by the kernels' one lance resolution."""
    from musstats._kernels.lances import played, resolve, winner_seat
    from musstats.rules.seats import team_array
    from musstats.tables.kernel import lance_table

    bg, bc, bp, bj, bu, *_ = resolve(np.asarray(hs, np.int64), team_array(4), lance_table(variant))
    return {name: (int(winner_seat(best)) if played(li, bp, bj) else None)
            for li, (name, best) in enumerate(zip(LANCES, (bg, bc, bp, bj, bu)))}


def _check_indices(hand_indices, n_hands: int) -> list[int]:
    try:
        hs = list(hand_indices)
    except TypeError:
        raise MusError(f"expected 4 hand indices (mano, second, third, postre), got {hand_indices!r}") from None
    if len(hs) != 4:
        raise MusError(f"expected 4 hand indices (mano, second, third, postre), got {len(hs)}")
    out = []
    for h in hs:
        h = _int(h, "a hand index")
        if not 0 <= h < n_hands:
            raise MusError(f"hand index {h} out of range; accepted: 0..{n_hands - 1}")
        out.append(h)
    return out


def lance_winners(hand_indices: Sequence[int], variant: Variant = Variant()) -> dict[str, int | None]:
    """Winning seat of each lance (keys ``LANCES``) for four dense hand indices in seat order.

    Pares is None when nobody holds pares; juego is None when nobody holds juego,
    and punto is None when somebody does (only one of the two is played).
    """
    t = hand_tables(variant)
    return _winners(_check_indices(hand_indices, t.n_hands), variant)


# ---------------------------------------------------------------------------
# input checks


def _hand_indices(hands, variant: Variant) -> list[int]:
    if isinstance(hands, str):
        raise MusError("give the four hands as a list in seat order (mano, second, third, postre), "
                       "e.g. ['7 7 2 A', '3 3 S 2', 'R R S A', 'C C C 6']")
    try:
        hands = list(hands)
    except TypeError:
        raise MusError(f"expected 4 hands (mano, second, third, postre), got {hands!r}") from None
    if len(hands) != 4:
        raise MusError(f"expected 4 hands in seat order (mano, second, third, postre), got {len(hands)}")
    t = hand_tables(variant)
    parsed: list[list[Card]] = []
    for seat, h in enumerate(hands):
        try:
            parsed.append(parse_hand(h))
        except MusError as e:
            raise MusError(f"seat {seat}: {e}") from None
    check_physical([c for h in parsed for c in h], "the four hands together")
    return [t.index_of(h) for h in parsed]


def _check_score(score, target: int) -> tuple[int, int]:
    try:
        a, b = score
    except (TypeError, ValueError):
        raise MusError(f"the score is a pair (team 0, team 1), got {score!r}") from None
    a, b = _int(a, "a score"), _int(b, "a score")
    for s in (a, b):
        if not 0 <= s < target:
            raise MusError(f"score {s} out of range for a game to {target}; accepted: 0..{target - 1}")
    return a, b


def _check_bets(bets, hs: list[int], key) -> dict[str, Bet]:
    """Bets for the four counted lances, keyed grande/chica/pares/juego-or-punto's real name."""
    any_juego = any(key[JUEGO, h] > 0 for h in hs)
    last = "juego" if any_juego else "punto"
    order = ("grande", "chica", "pares", last)
    out = {name: Bet.paso() for name in order}
    if bets is None:
        return out
    if not isinstance(bets, dict):
        raise MusError(f"bets must be a dict {{lance: Bet}}, got {type(bets).__name__}")
    for raw, bet in bets.items():
        name = str(raw).strip().lower()
        if name not in LANCES:
            raise MusError(f"unknown lance {raw!r} in bets; accepted: {', '.join(LANCES)}")
        if not isinstance(bet, Bet):
            raise MusError(f"the bet on {name} must be a Bet (e.g. Bet.accepted(4)), got {bet!r}")
        if bet.is_paso:
            continue
        if name in ("juego", "punto") and name != last:
            if name == "punto":
                raise MusError("no betting on punto: somebody holds juego, so juego is played instead")
            raise MusError("no betting on juego: nobody holds juego, so punto is played instead")
        if name in ("pares", "juego"):
            li = PARES if name == "pares" else JUEGO
            held = [any(key[li, hs[s]] > 0 for s in (t, t + 2)) for t in (0, 1)]
            if not (held[0] and held[1]):
                who = ("nobody holds " + name) if not any(held) else \
                    f"only team {0 if held[0] else 1} holds {name}"
                raise MusError(f"no betting on {name}: {who} (betting needs a player of each team)")
        out[name] = bet
    seen_ordago = None
    for name in order:
        if seen_ordago is not None and not out[name].is_paso:
            raise MusError(f"a bet on {name} after the órdago accepted at {seen_ordago}: "
                           "an accepted órdago ends the game, later lances are not played")
        if out[name].kind == ORDAGO_ACCEPTED:
            seen_ordago = name
    return out


# ---------------------------------------------------------------------------
# scoring


def _juego_name(t, h: int) -> str:
    pts = int(t.points[h])
    if pts == 31 and bool(t.real31[h]):
        return "31 real"
    return str(pts)


def _by(bet: Bet) -> int:
    """The bettors' team of a refused bet (always set for one)."""
    assert bet.by is not None
    return bet.by


def _seat(seat: int | None) -> int:
    """A lance winner that exists (a lance that was bet is played)."""
    assert seat is not None
    return seat


def _count_items(name: str, bet: Bet, hs: list[int], t, win: dict) -> list[tuple[int, int, str]]:
    """(team, stones, reason) taken at the count for one lance, in order."""
    if name in ("grande", "chica", "punto"):
        w = _seat(win[name]) % 2
        if bet.is_paso:
            return [(w, 1, "count: en paso")]
        if bet.kind == ACCEPTED:
            return [(w, bet.amount, "count: bet")] + ([(w, 1, "count: punto")] if name == "punto" else [])
        # refused: the deje was taken at once; punto gives the bettors 1 more at the count
        return [(_by(bet), 1, "count: punto")] if name == "punto" else []
    seat = win[name]
    if seat is None:  # pares void
        return []
    team = _by(bet) if bet.is_refused else seat % 2
    li = PARES if name == "pares" else JUEGO
    items = []
    for s in (team, team + 2):
        v = int(t.value[li, hs[s]])
        if t.key[li, hs[s]] > 0 and v > 0:
            what = PARES_NAMES[int(t.pares_cat[hs[s]])] if li == PARES else _juego_name(t, hs[s])
            items.append((team, v, f"count: {what}"))
    if bet.kind == ACCEPTED:
        items.append((team, bet.amount, "count: bet"))
    return items


def score_hand(
    hands: list[list[Card]] | list[str],
    variant: Variant = Variant(),
    bets: dict[str, Bet] | None = None,
    score: tuple[int, int] = (0, 0),
) -> HandScore:
    """Stones of each team for one hand (RULES.md "Scoring at the count").

    ``hands``: four hands in seat order (mano, second, third, postre), each a
    string like ``"R R 3 A"`` or a list of :class:`~musstats.rules.cards.Card`.
    ``bets``: ``{lance: Bet}`` for any of grande, chica, pares, juego, punto;
    missing lances are paso.  ``score``: (team 0, team 1) before the hand, each
    in ``0..variant.target - 1``.

    Dejes are taken at once in lance order, then the count runs in lance order;
    scoring stops at the event that takes a team to the target.  An accepted
    órdago ends the game at once: the winner of that lance is recorded as taking
    the stones that bring it to the target (reason "órdago"), so
    ``final_score[winner] == target``.
    """
    t = hand_tables(variant)
    hs = _hand_indices(hands, variant)
    start = _check_score(score, variant.target)
    bets_ = _check_bets(bets, hs, t.key)
    win = _winners(hs, variant)
    target = variant.target
    tally = list(start)
    events: list[tuple[str, int, int, str]] = []

    def take(name: str, team: int, n: int, reason: str) -> bool:
        tally[team] += n
        events.append((name, team, n, reason))
        return tally[team] >= target

    def result(winner: int | None) -> HandScore:
        return HandScore(stones=(tally[0] - start[0], tally[1] - start[1]),
                         final_score=(tally[0], tally[1]), winner=winner, events=events)

    # 1. the betting, lance by lance: dejes at once, an accepted órdago ends the game
    for name, bet in bets_.items():
        if bet.is_refused:
            if take(name, _by(bet), bet.amount, "deje"):
                return result(_by(bet))
        elif bet.kind == ORDAGO_ACCEPTED:
            w = _seat(win[name]) % 2
            take(name, w, target - tally[w], "órdago")
            return result(w)
    # 2. the count
    for name, bet in bets_.items():
        for team, n, reason in _count_items(name, bet, hs, t, win):
            if take(name, team, n, reason):
                return result(team)
    return result(None)


# ---------------------------------------------------------------------------
# the en-paso count of many deals, compiled


def paso_stones(hand_indices: Sequence[int], variant: Variant = Variant()) -> np.ndarray:
    """En-paso stones per count step of one deal: int64 [4 steps, 2 teams].

    Steps in count order grande, chica, pares, juego-or-punto (``COUNT_LANCES``); the
    hands are four dense hand indices in seat order.  The target is not applied here.
    """
    return paso_stones_batch(np.array([_check_indices(hand_indices, hand_tables(variant).n_hands)]),
                             variant)[0]


def paso_stones_batch(deals, variant: Variant = Variant()) -> np.ndarray:
    """:func:`paso_stones` of many deals: hand indices int [N, 4] -> int64 [N, 4, 2]."""
    from musstats._kernels.outcomes import count_steps_batch
    from musstats.rules.seats import team_array
    from musstats.tables.kernel import lance_table

    d = np.ascontiguousarray(deals, np.int64)
    if d.ndim != 2 or d.shape[1] != 4:
        raise MusError(f"deals must be hand indices [N, 4] in seat order, got shape {d.shape}")
    n = hand_tables(variant).n_hands
    if d.size and (d.min() < 0 or d.max() >= n):
        raise MusError(f"hand index out of range in deals; accepted: 0..{n - 1}")
    return count_steps_batch(d, team_array(4), lance_table(variant), 2)
