"""One hand of Mus, action by action: the mus phase, the declarations, every lance's betting
and the count (docs/rules.md).

:class:`Hand` holds the four hands by seat in the order of speech (0 = mano, 1 = second,
2 = third, 3 = postre; team = seat % 2) and takes the actions in the order the rules give
them, refusing (one-line :class:`~musstats.base.errors.MusError`) any that is not legal at
that moment:

* **the mus**: from mano each says ``mus`` or ``corto``; the first ``corto`` ends the mus
  phase; when all four say ``mus`` each throws 1 to 4 cards in turn from mano (``throw``,
  with the cards drawn in their place) and the mus is asked again;
* **the lances**: grande and chica, then pares and juego (or punto when nobody holds juego),
  the declarations of pares and juego made truthfully by the hands; a lance is bet only when
  both teams hold it (pares, juego); each bet follows the public tree of the abstraction
  (:func:`musstats.engines.betting.tree.betting_tree`: who speaks, who answers, the legal
  bets);
* **the count**: :func:`musstats.engines.scoring.score_hand`, the one scoring of a hand: the
  dejes at once, then the count in lance order, the game won by the first team to reach
  the target; a deje that reaches it, or an accepted órdago, ends the hand (and the game)
  during the betting.

Both the live table (:mod:`.table`) and the hand histories (:mod:`.history`) drive this one
class, so a saved game replays exactly as it was played.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from musstats.base.errors import MusError
from musstats.engines.betting.tree import ACCEPTED, ORDAGO, PASO, REFUSED, betting_tree, contested, normalise_action
from musstats.engines.scoring import Bet, HandScore, score_hand
from musstats.rules.cards import Card, check_physical, parse_cards
from musstats.rules.labels import SEATS
from musstats.rules.variant import Variant

__all__ = ["Hand", "Decision", "MUS", "DISCARD", "BETTING", "OVER", "MUS_SAYS", "hand_text", "cards_text",
           "MAX_MUS_ROUNDS"]

#: the phases of a hand
MUS, DISCARD, BETTING, OVER = "mus", "discard", "betting", "over"
#: what a player may say in the mus
MUS_SAYS = ("mus", "corto")
_MUS_ALIASES = {"mus": "mus", "corto": "corto", "cut": "corto", "no hay mus": "corto", "no mus": "corto",
                "cuts": "corto"}
#: the most mus rounds of a hand: after them the hands are played as they stand (a limit of this
#: program; the rules repeat the mus until somebody cuts)
MAX_MUS_ROUNDS = 8


def cards_text(cards: list[Card]) -> str:
    """``R/o 7/c A/e 4/b``: the cards as they are written in a history (with their suits)."""
    return " ".join(c.label for c in cards)


def hand_text(cards: list[Card], variant: Variant) -> str:
    """The hand as musstats names it (``R R 7 A``: highest first, 3 as R with 8 reyes)."""
    from musstats.tables.hands import hand_tables

    t = hand_tables(variant)
    return t.labels[t.index_of(cards)]


@dataclass
class Decision:
    """One action of a seat, with what the seat knew when taking it (for the review).

    ``kind``: ``mus`` (mus or corto), ``throw`` or ``bet``; ``lance``: the lance of a bet
    (``mus`` / ``discard`` otherwise); ``history``: the lance's public actions before it;
    ``pattern``: the seats that declared the lance (pares, juego); ``deal``: the deal model
    of the hand (as dealt where somebody cut, after the mus where a round was played);
    ``round``: the mus round (0 = the first)."""

    seat: int
    kind: str
    lance: str
    action: str
    hand: list[Card]
    history: tuple[str, ...] = ()
    pattern: int = 15
    deal: str = "as-dealt"
    round: int = 0
    cards: list[Card] = field(default_factory=list)
    index: int = 0  # the action's place among the hand's actions


def match_cards(hand: list[Card], cards: list[Card], what: str) -> list[Card]:
    """The cards of ``hand`` that ``cards`` name (a card without a suit names any of its face),
    as the physical cards of the hand; MusError (``what``: the hand is ...) when it does not
    hold them."""
    rest = list(hand)
    out = []
    for c in cards:
        m = next((x for x in rest if x == c), None)
        if m is None and c.suit is None:
            m = next((x for x in rest if x.face == c.face), None)
        if m is None:
            raise MusError(f"{what}: the hand is {cards_text(hand)}")
        rest.remove(m)
        out.append(m)
    return out


def _bet_of(term) -> Bet:
    if term.kind == PASO:
        return Bet.paso()
    if term.kind == ACCEPTED:
        return Bet.accepted(term.stake)
    if term.kind == REFUSED:
        return Bet.refused(term.deje, by=term.by)
    assert term.kind == ORDAGO
    return Bet.ordago_accepted()


class Hand:
    """The state of one hand; see the module docstring.

    ``dealt``: the four hands as dealt, in seat order; ``score``: the score before the hand,
    (mano's team, the other team); ``variant``: the rules (its ``target`` ends the game).
    ``final``: the hands after the mus, for a history in which some cards drawn are not
    known (then they are taken from it; where every draw is known they must agree).
    ``plan_seed``: the number that draws the plan a pair plays where it plays correlated plans
    (both partners the same; :mod:`musstats.analysis.practice.bots`).
    """

    def __init__(self, dealt: list[list[Card]], variant: Variant, score: tuple[int, int] = (0, 0),
                 final: list[list[Card]] | None = None, plan_seed: int | None = None) -> None:
        from musstats.tables.hands import hand_tables

        if len(dealt) != 4:
            raise MusError(f"a hand needs the cards of the four seats, got {len(dealt)}")
        self.variant = variant
        self.tables = hand_tables(variant)
        self.dealt = [list(h) for h in dealt]
        for q, h in enumerate(self.dealt):
            if len(h) != 4:
                raise MusError(f"{SEATS[q]} holds {len(h)} cards as dealt; a hand has 4")
        check_physical([c for h in self.dealt for c in h], "the four hands as dealt")
        self.score = (int(score[0]), int(score[1]))
        self.final_given = [list(h) for h in final] if final is not None else None
        self.hands: list[list[Card] | None] = [list(h) for h in self.dealt]
        self.phase = MUS
        self.mus_round = 0
        self.said: list[str] = []  # this round's mus calls, from mano
        self.throws: list[tuple[list[Card], list[Card] | None]] = []  # this round's throws
        self.mus_log: list[dict[str, Any]] = []
        self.deal = "as-dealt"
        self.plan_seed = plan_seed
        self.decisions: list[Decision] = []
        self.lances: list[tuple[str, int, bool]] = []  # (lance, pattern, bet) of the lances played
        self.lance_i = 0
        self.node = 0
        self.lance_log: dict[str, list[dict[str, str]]] = {}
        self.bets: dict[str, Bet] = {}
        self.pares: list[bool] = []
        self.juego: list[bool] = []
        self.result: HandScore | None = None
        self.ended_in_betting = False
        self.n_actions = 0

    # ------------------------------------------------------------------ the state

    @property
    def over(self) -> bool:
        return self.phase == OVER

    @property
    def lance(self) -> str | None:
        """The lance being bet, if any."""
        return self.lances[self.lance_i][0] if self.phase == BETTING else None

    def tree(self):
        lance, pat, _ = self.lances[self.lance_i]
        return betting_tree(lance, pat)

    def turn(self) -> dict[str, Any] | None:
        """Whose turn and what he may do: ``{"phase", "seat", "actions", "lance", "history"}``
        (None when the hand is over)."""
        if self.phase == MUS:
            return {"phase": MUS, "seat": len(self.said), "actions": list(MUS_SAYS), "lance": None, "history": []}
        if self.phase == DISCARD:
            return {"phase": DISCARD, "seat": len(self.throws), "actions": ["throw"], "lance": None, "history": []}
        if self.phase == BETTING:
            t = self.tree()
            nd = t.nodes[self.node]
            return {"phase": BETTING, "seat": nd.seat, "actions": list(nd.actions), "lance": t.lance,
                    "history": list(nd.history)}
        return None

    def holds(self, seat: int) -> list[Card]:
        """The seat's cards now (MusError when they are not known: a history without the draws)."""
        h = self.hands[seat]
        if h is None:
            raise MusError(f"{SEATS[seat]}'s cards after the mus are not known")
        return h

    def final_hands(self) -> list[list[Card]]:
        return [self.holds(q) for q in range(4)]

    def hand_index(self, seat: int) -> int:
        return self.tables.index_of(self.holds(seat))

    # ------------------------------------------------------------------ actions

    def act(self, seat: int, action: str, cards=None, draw=None) -> Decision:
        """Take ``seat``'s ``action`` (``mus``, ``corto``, ``throw`` with ``cards`` thrown and the
        cards drawn ``draw`` -- None when not known --, or a bet of the lance's tree); MusError
        (one line, nothing changed) when it is not legal now."""
        turn = self.turn()
        if turn is None:
            raise MusError("the hand is over: no more actions")
        if not isinstance(seat, int) or not 0 <= seat < 4:
            raise MusError(f"unknown seat {seat!r}")
        if seat != turn["seat"]:
            what = {MUS: "the mus", DISCARD: "the discard", BETTING: f"the {turn['lance']} betting"}[turn["phase"]]
            raise MusError(f"not {SEATS[seat]}'s turn: in {what} it is {SEATS[turn['seat']]}'s turn")
        text = " ".join(str(action).strip().lower().split())
        if self.phase == MUS:
            say = _MUS_ALIASES.get(text)
            if say is None:
                raise MusError(f"in the mus {SEATS[seat]} may say mus | corto, not {action!r}")
            return self._mus(seat, say)
        if self.phase == DISCARD:
            if text not in ("throw", "discard", "descarte", "tira", "echa"):
                raise MusError(f"in the discard {SEATS[seat]} throws cards (throw), not {action!r}")
            return self._throw(seat, cards, draw)
        return self._bet(seat, text, action)

    def _record(self, d: Decision) -> Decision:
        d.index = self.n_actions
        self.n_actions += 1
        self.decisions.append(d)
        return d

    def _mus(self, seat: int, say: str) -> Decision:
        hand = self.hands[seat]
        d = self._record(Decision(seat, "mus", "mus", say, list(hand) if hand is not None else [],
                                  round=self.mus_round))
        self.mus_log.append({"seat": SEATS[seat], "action": say})
        self.said.append(say)
        if say == "corto":
            self._start_lances()
        elif len(self.said) == 4:
            self.phase = DISCARD
            self.throws = []
        return d

    def _throw(self, seat: int, cards, draw) -> Decision:
        if cards is None:
            raise MusError(f"{SEATS[seat]}'s throw needs the cards thrown (1 to 4)")
        thrown = parse_cards(cards)
        if not 1 <= len(thrown) <= 4:
            raise MusError(f"{SEATS[seat]} throws 1 to 4 cards, not {len(thrown)}")
        hand = self.hands[seat]
        if hand is not None:
            thrown = match_cards(hand, thrown, f"{SEATS[seat]} cannot throw {cards_text(thrown)}")
        drawn = None
        if draw is not None:
            drawn = parse_cards(draw)
            if len(drawn) != len(thrown):
                raise MusError(f"{SEATS[seat]} threw {len(thrown)} card(s) and must draw as many, "
                               f"not {len(drawn)}")
        d = self._record(Decision(seat, "throw", "discard", "throw", list(hand) if hand is not None else [],
                                  round=self.mus_round, cards=list(thrown)))
        entry: dict[str, Any] = {"seat": SEATS[seat], "action": "throw", "cards": cards_text(thrown)}
        if drawn is not None:
            entry["draw"] = cards_text(drawn)
        self.mus_log.append(entry)
        self.throws.append((thrown, drawn))
        if len(self.throws) == 4:
            self._end_round()
        return d

    def _end_round(self) -> None:
        for q, (thrown, drawn) in enumerate(self.throws):
            h = self.hands[q]
            if h is None or drawn is None:
                self.hands[q] = None
                continue
            rest = list(h)
            for c in thrown:
                rest.remove(c)
            new = rest + drawn
            check_physical(new, f"{SEATS[q]}'s hand after the mus")
            self.hands[q] = new
        known = [c for h in self.hands if h is not None for c in h]
        check_physical(known, f"the hands after mus round {self.mus_round + 1}")
        self.mus_round += 1
        self.deal = "after-mus"
        self.throws = []
        self.said = []
        self.phase = MUS
        if self.mus_round >= MAX_MUS_ROUNDS:
            self._start_lances()

    def _start_lances(self) -> None:
        from musstats.tables.hands import JUEGO, PARES

        if self.final_given is not None:
            fin = self.final_given
            for q in range(4):
                h = self.hands[q]
                if h is not None and self.tables.index_of(h) != self.tables.index_of(fin[q]):
                    raise MusError(f"{SEATS[q]} ends the mus with {cards_text(h)}, but the hands after the mus "
                                   f"give {cards_text(fin[q])}")
            self.hands = [list(h) for h in fin]
        missing = [SEATS[q] for q in range(4) if self.hands[q] is None]
        if missing:
            raise MusError(f"the cards drawn by {', '.join(missing)} are not given: give them (draw) or the hands "
                           "after the mus (hands)")
        check_physical([c for h in self.final_hands() for c in h], "the four hands after the mus")
        idx = [self.hand_index(q) for q in range(4)]
        key = self.tables.key
        self.pares = [bool(key[PARES, h] > 0) for h in idx]
        self.juego = [bool(key[JUEGO, h] > 0) for h in idx]
        pm = sum(1 << q for q in range(4) if self.pares[q])
        jm = sum(1 << q for q in range(4) if self.juego[q])
        plan = [("grande", 15, True), ("chica", 15, True)]
        if pm:
            plan.append(("pares", pm, contested(pm)))
        plan.append(("juego", jm, contested(jm)) if jm else ("punto", 15, True))
        self.lances = plan
        self.phase = BETTING
        self.lance_i = -1
        self._next_lance()

    def _next_lance(self) -> None:
        self.lance_i += 1
        while self.lance_i < len(self.lances) and not self.lances[self.lance_i][2]:
            self.lance_i += 1
        if self.lance_i >= len(self.lances):
            self._count()
            return
        self.node = 0
        self.lance_log[self.lances[self.lance_i][0]] = []

    def _bet(self, seat: int, text: str, raw) -> Decision:
        t = self.tree()
        nd = t.nodes[self.node]
        act = normalise_action(text)
        if act not in nd.actions:
            where = f"after '{','.join(nd.history)}'" if nd.history else "at the start"
            raise MusError(f"not legal in {t.lance}: {where} {SEATS[seat]} may say {' | '.join(nd.actions)}, "
                           f"not {str(raw)!r}")
        lance, pat, _ = self.lances[self.lance_i]
        d = self._record(Decision(seat, "bet", lance, act, list(self.holds(seat)), history=tuple(nd.history),
                                  pattern=pat, deal=self.deal, round=self.mus_round))
        self.lance_log[lance].append({"seat": SEATS[seat], "action": act})
        self.node = nd.children[nd.actions.index(act)]
        end = t.nodes[self.node]
        if end.is_terminal:
            term = t.terminals[end.terminal]
            self.bets[lance] = _bet_of(term)
            if term.kind in (REFUSED, ORDAGO):  # a deje or an órdago may end the game now
                sc = score_hand(self.final_hands(), self.variant, dict(self.bets), self.score)
                if sc.winner is not None and sc.events and sc.events[-1][3] in ("deje", "órdago"):
                    self.result = sc
                    self.ended_in_betting = True
                    self.phase = OVER
                    return d
            self._next_lance()
        return d

    def _count(self) -> None:
        self.result = score_hand(self.final_hands(), self.variant, dict(self.bets), self.score)
        self.phase = OVER

    # ------------------------------------------------------------------ reading

    def declared_text(self, lance: str) -> str | None:
        """``"mano:pares,second:no-pares,..."``: the declarations of ``lance`` (pares / juego; punto:
        nobody holds juego) as :func:`musstats.analysis.betting.bet` reads them."""
        if lance == "pares":
            return ",".join(f"{SEATS[q]}:{'' if self.pares[q] else 'no-'}pares" for q in range(4))
        if lance in ("juego", "punto"):
            return ",".join(f"{SEATS[q]}:{'' if self.juego[q] else 'no-'}juego" for q in range(4))
        return None

    def others_ask(self, seat: int) -> bool | None:
        """Whether the other three asked for mus in the round of ``seat``'s first mus decision:
        True / False from what they said; None where some did not speak (``seat`` cut first)."""
        says = [d for d in self.decisions if d.kind == "mus" and d.round == 0]
        mine = next((d for d in says if d.seat == seat), None)
        if mine is None:
            return None
        others = {d.seat: d.action for d in says if d.seat != seat}
        if any(a == "corto" for a in others.values()):
            return False
        return True if len(others) == 3 else None
