"""The practice table: the player at one seat, his partner and the two rivals played by the
bots, whole games to 40 (or 30) and matches.

Places round the table are fixed: 0 is the player, 1 the rival on his right (who speaks after
him), 2 his partner, 3 the rival on his left.  Mano moves one place round the table every
hand (the player on mano's right is mano next), so the player's seat in the order of speech
changes hand by hand.  Each hand: a shuffled 40-card deck, four cards each; the mus from
mano (the bots by the mus decision's equilibrium), the discards (the bots by the shipped discard
table; the replacements from the stock, the discards shuffled into a new stock when it runs
out, a lone last player's own discards of that round left out); the lances with the bets of
the abstraction; the count (:mod:`.hand`).  Everything is recorded as a hand history
(:mod:`.history`), which :mod:`.review` values.

:class:`PracticeGame` is what ``musstats play`` and the page's table drive: ``state()`` for
what the player sees, ``act()`` for his action (refused in one line, changing nothing, when
it is not legal now), ``next_hand()`` after the count, ``hint()`` and ``review_hand()``.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np

from musstats.analysis.practice.bots import BOT, Player
from musstats.analysis.practice.hand import BETTING, DISCARD, MUS, Hand, cards_text, match_cards
from musstats.analysis.practice.history import MATCHES, GameRecord, HandRecord, Record, team_score, us_them
from musstats.analysis.practice.values import check_rules
from musstats.base.errors import MusError
from musstats.rules.cards import Card, parse_cards
from musstats.rules.labels import SEATS
from musstats.rules.variant import FACES, make_variant

__all__ = ["PracticeGame", "PLACES", "SUITS", "new_deck"]

#: the four places round the table, from the player's: he, the rival on his right, his partner,
#: the rival on his left (the order of speech)
PLACES = ("you", "right", "partner", "left")
SUITS = ("oros", "copas", "espadas", "bastos")
#: the spawn key of a table's random stream (the deals and the bots' draws) under its seed
_TABLE_KEY = 21
#: the stream of each hand's plan seed (apart from the deals and the bots' draws)
_PLAN_KEY = 22


def new_deck() -> list[Card]:
    """The 40 cards of the Spanish deck."""
    return [Card(f, s) for s in SUITS for f in sorted(FACES, reverse=True)]


def _card(c: Card) -> dict[str, Any]:
    return {"face": c.face, "suit": c.suit, "label": c.label}


class PracticeGame:
    """A game (or match) at the practice table; see the module docstring.

    ``seed``: the deals and the bots' draws (None: a random one, recorded in the history);
    ``target``: 40 or 30; ``match``: ``single``, ``best-of-3`` or ``first-to-3``;
    ``autoplay``: a strategy set (``equilibrium``, ``paso``, ``heuristic``, ``random``) that
    plays the player's seat too; ``first_mano``: the place of mano in the first hand (default:
    drawn)."""

    def __init__(self, *, seed: int | None = None, target: int = 40, match: str = "single",
                 autoplay: str | None = None, first_mano: int | None = None) -> None:
        from musstats.rules import checks

        self.variant = make_variant("8-reyes", "off", target)
        check_rules(self.variant)
        if match not in MATCHES:
            raise MusError(f"unknown match {match!r}; accepted: {', '.join(MATCHES)}")
        if seed is None:
            seed = int(np.random.default_rng().integers(0, 1 << 62))
        self.seed = checks.seed(seed)
        self.rng = np.random.default_rng(np.random.SeedSequence(self.seed, spawn_key=(_TABLE_KEY,)))
        self.bots = [Player(BOT, self.variant, self.rng) for _ in range(4)]
        self.autoplay = None
        if autoplay is not None:
            self.autoplay = Player(autoplay, self.variant, self.rng, bot=False)
        meta: dict[str, Any] = {"players": {"you": "autoplay " + self.autoplay.name if self.autoplay else "human",
                                            "partner": "bot", "rivals": "bots"},
                                "bots": "equilibrium betting (shipped strategies; a pair's correlated plans, the "
                                        "hand's plan, where they ship), the mus decision's equilibrium, the shipped discard "
                                        "table",
                                "seed": self.seed}
        if self.autoplay:
            meta["strategy"] = self.autoplay.name
        self.record = Record(self.variant, match, [GameRecord()], meta)
        if first_mano is None:
            first_mano = int(self.rng.integers(0, 4))
        self.mano = int(first_mano) % 4
        self.lock = threading.RLock()
        self.events: list[dict[str, Any]] = []
        self.touched = time.monotonic()
        self._deal()

    # ------------------------------------------------------------------ places and seats

    def seat_of(self, place: int) -> int:
        """The seat in the order of speech (0 = mano) of a place this hand."""
        return (place - self.mano) % 4

    def place_of(self, seat: int) -> int:
        return (seat + self.mano) % 4

    @property
    def you(self) -> int:
        """The player's seat this hand."""
        return self.seat_of(0)

    @property
    def game(self) -> GameRecord:
        return self.record.games[-1]

    def score(self) -> tuple[int, int]:
        """(us, them) now: after the hand when it is over."""
        return self.hr.score_after() if self.hand.over else self.hr.score

    def game_over(self) -> bool:
        return self.hand.over and self.hr.winner() is not None

    def match_over(self) -> bool:
        return self.game_over() and self.record.match_winner() is not None

    # ------------------------------------------------------------------ the deal

    def _deal(self) -> None:
        deck = new_deck()
        order = self.rng.permutation(40)
        cards = [deck[i] for i in order]
        dealt = [cards[4 * q: 4 * q + 4] for q in range(4)]  # by seat, from mano
        self.stock = cards[16:]
        self.discards: list[Card] = []
        self.pending: dict[int, list[Card]] = {}
        score = self.game.hands[-1].score_after() if self.game.hands else (0, 0)
        you = self.seat_of(0)
        plan = np.random.SeedSequence(self.seed, spawn_key=(_PLAN_KEY, len(self.record.games), len(self.game.hands)))
        self.hand = Hand(dealt, self.variant, team_score(score, you), plan_seed=int(plan.generate_state(1)[0]))
        self.hr = HandRecord(len(self.record.games), len(self.game.hands) + 1, you, score, self.hand)
        self.game.hands.append(self.hr)
        self.events = [{"kind": "deal", "mano": self.mano, "dealer": self.place_of(3)}]
        self._emitted = -1
        self._advance()

    # ------------------------------------------------------------------ turns

    def _turn_place(self) -> int | None:
        """The place whose turn it is (None when the hand is over); in the discard, the player
        until he has thrown (the throws are face down: nobody sees another's first)."""
        turn = self.hand.turn()
        if turn is None:
            return None
        if turn["phase"] == DISCARD:
            return None if 0 in self.pending else 0
        return self.place_of(turn["seat"])

    def your_turn(self) -> bool:
        return self._turn_place() == 0

    def _advance(self) -> None:
        """The bots (and an autoplayed player) act until it is the player's turn or the hand is over."""
        while True:
            turn = self.hand.turn()
            if turn is None:
                return
            if turn["phase"] == DISCARD:
                for place in range(4):
                    if place not in self.pending and (place != 0 or self.autoplay is not None):
                        p = self.autoplay if place == 0 and self.autoplay else self.bots[place]
                        assert p is not None
                        self.pending[place] = p.throw(self.hand.holds(self.seat_of(place)), self.seat_of(place))
                if len(self.pending) < 4:
                    return
                self._draw()
                continue
            place = self.place_of(turn["seat"])
            if place == 0 and self.autoplay is None:
                return
            player = self.autoplay if place == 0 else self.bots[place]
            assert player is not None
            seat = turn["seat"]
            if turn["phase"] == MUS:
                self._apply(place, player.mus(self.hand.holds(seat), seat))
            else:
                h = self.hand.hand_index(seat)
                lance, pat, _ = self.hand.lances[self.hand.lance_i]
                self._apply(place, player.bet(h, lance, pat, self.hand.deal, self.hand.node, turn["actions"],
                                              self.hand.plan_seed))

    def _apply(self, place: int, action: str, cards=None, draw=None) -> None:
        seat = self.seat_of(place)
        lance = self.hand.lance
        phase = self.hand.phase
        self.hand.act(seat, action, cards, draw)
        ev: dict[str, Any] = {"kind": "mus" if phase == MUS else "bet", "place": place, "seat": SEATS[seat],
                              "action": self.hand.decisions[-1].action}
        if phase == BETTING:
            ev["lance"] = lance
        self.events.append(ev)
        if phase == MUS and self.hand.phase == BETTING:
            self._lances_begin()
        if phase == BETTING:
            self._lance_events(lance)

    def _lances_begin(self) -> None:
        h = self.hand
        self.events.append({"kind": "mus_end", "rounds": h.mus_round,
                            "cut": self.place_of(h.decisions[-1].seat) if h.decisions[-1].action == "corto" else None})
        self._lance_start_events()

    def _lance_start_events(self) -> None:
        """The declarations and the lances without betting, up to the next lance that is bet (or
        to the last one when the betting is over)."""
        h = self.hand
        upto = h.lance_i if h.phase == BETTING else len(h.lances) - 1
        names = [x[0] for x in h.lances]
        while self._emitted < upto:
            self._emitted += 1
            lance, _, bet = h.lances[self._emitted]
            if lance in ("juego", "punto") and "pares" not in names:
                self.events.append({"kind": "declare", "lance": "pares", "holders": []})
            if lance != "grande" and lance != "chica":
                held = h.pares if lance == "pares" else h.juego
                self.events.append({"kind": "declare", "lance": "pares" if lance == "pares" else "juego",
                                    "holders": [self.place_of(q) for q in range(4) if held[q]]})
            self.events.append({"kind": "lance", "lance": lance, "bet": bet})

    def _lance_events(self, lance: str | None) -> None:
        h = self.hand
        if lance is None:
            return
        if lance in h.bets and not any(e["kind"] == "lance_end" and e["lance"] == lance for e in self.events):
            self.events.append({"kind": "lance_end", "lance": lance, "result": self._bet_dict(h.bets[lance])})
            if not h.over:
                self._lance_start_events()
        if h.over:
            self._hand_over()

    def _bet_dict(self, bet) -> dict[str, Any]:
        """How a lance's betting ended, for the player: kind (paso, accepted, refused, ordago), the
        stake of an accepted bet, the deje of a refused one and who bet it (us / them)."""
        from musstats.engines.scoring import ACCEPTED, ORDAGO_ACCEPTED, PASO

        kind = {PASO: "paso", ACCEPTED: "accepted", ORDAGO_ACCEPTED: "ordago"}.get(bet.kind, "refused")
        out: dict[str, Any] = {"kind": kind}
        if kind == "accepted":
            out["stake"] = bet.amount
        if kind == "refused":
            out["deje"] = bet.amount
            out["by"] = "us" if bet.by == self.you % 2 else "them"
        return out

    def _hand_over(self) -> None:
        if any(e["kind"] == "count" for e in self.events):
            return
        if not self.hand.ended_in_betting:
            self._lance_start_events()
        self.events.append({"kind": "count", **(self.hr.count_dict() or {})})
        if self.game_over():
            self.events.append({"kind": "game_over", "winner": self.hr.winner(),
                                "games": dict(zip(("us", "them"), self.record.games_won()))})
            if self.match_over():
                self.events.append({"kind": "match_over", "winner": self.record.match_winner()})

    def _draw(self) -> None:
        """Deal the replacements of the round's throws, in turn from mano; a stock that runs out
        is made again from the discards (a lone last player's own discards of the round stay out)."""
        throws = {self.seat_of(p): cards for p, cards in self.pending.items()}
        self.discards.extend(c for q in range(4) for c in throws[q])
        draws: dict[int, list[Card]] = {}
        for q in range(4):
            got: list[Card] = []
            need = len(throws[q])
            while len(got) < need:
                if not self.stock:
                    alone = all(len(throws[s]) == 0 for s in range(q + 1, 4))
                    out = list(throws[q]) if alone else []
                    pool = list(self.discards)
                    for c in out:
                        pool.remove(c)
                    self.discards = out
                    self.stock = [pool[i] for i in self.rng.permutation(len(pool))]
                    self.events.append({"kind": "reshuffle", "cards": len(self.stock)})
                    if not self.stock:  # pragma: no cover - 40 cards always leave some
                        raise MusError("internal: no cards left to draw")
                got.append(self.stock.pop(0))
            draws[q] = got
        self.pending = {}
        for q in range(4):
            place = self.place_of(q)
            self.hand.act(q, "throw", throws[q], draws[q])
            self.events.append({"kind": "throw", "place": place, "seat": SEATS[q], "n": len(throws[q])})
        if self.hand.phase == BETTING:  # the last round allowed
            self._lances_begin()

    # ------------------------------------------------------------------ the player

    def act(self, action: str, cards=None) -> None:
        """The player's action: ``mus`` / ``corto``, ``throw`` with ``cards`` (the cards thrown),
        or a bet of the legal ones; MusError (one line, nothing changed) when it is not legal now."""
        with self.lock:
            self.touched = time.monotonic()
            if self.hand.over:
                raise MusError("the hand is over: ask for the next hand")
            if self._turn_place() != 0:
                raise MusError("not your turn")
            turn = self.hand.turn()
            assert turn is not None
            text = " ".join(str(action).strip().lower().split())
            if turn["phase"] == DISCARD:
                if text not in ("throw", "discard", "descarte"):
                    raise MusError(f"now you throw cards (throw, with the cards), not {action!r}")
                if cards is None or (isinstance(cards, (list, str)) and not cards):
                    raise MusError("choose the cards to throw: 1 to 4 of your cards")
                mine = self.hand.holds(self.you)
                thrown = match_cards(mine, parse_cards(cards), f"you cannot throw {cards if isinstance(cards, str) else cards_text(parse_cards(cards))}")
                if not 1 <= len(thrown) <= 4:  # pragma: no cover - parse gives at least one
                    raise MusError("throw 1 to 4 cards")
                self.pending[0] = thrown
                self._advance()
                return
            if cards:
                raise MusError("cards are thrown only in the discard")
            self._apply(0, action)
            self._advance()

    def next_hand(self) -> None:
        """Deal the next hand (of this game, or the first of the next game of the match)."""
        with self.lock:
            self.touched = time.monotonic()
            if not self.hand.over:
                raise MusError("the hand is not over yet")
            if self.match_over():
                raise MusError("the match is over: start a new game")
            if self.game_over() and self.record.match == "single":
                raise MusError("the game is over: start a new game")
            if self.game_over():
                self.record.games.append(GameRecord())
            self.mano = (self.mano + 1) % 4
            self._deal()

    def play_out(self, hands: int | None = None) -> None:
        """Autoplay: play ``hands`` hands (or to the end of the match); with ``match="series"`` the
        games follow one another."""
        if self.autoplay is None:
            raise MusError("play_out needs a strategy set for the player's seat (autoplay)")
        done = 0
        while True:
            self._advance()
            if not self.hand.over:  # pragma: no cover - autoplay always finishes a hand
                raise MusError("internal: the autoplayed hand did not finish")
            done += 1
            if (hands is not None and done >= hands) or (hands is None and self.match_over()):
                return
            self.next_hand()

    # ------------------------------------------------------------------ what the player sees

    def state(self, since: int = 0) -> dict[str, Any]:
        """What the player sees: the score, his cards, whose turn and what he may do, the public
        events of the hand (from ``since``), and at the end the count and every seat's cards."""
        with self.lock:
            h = self.hand
            turn = h.turn()
            place = self._turn_place()
            you = self.you
            out: dict[str, Any] = {
                "game": len(self.record.games), "hand": self.hr.number, "target": self.variant.target,
                "match": self.record.match, "seed": self.seed,
                "mano": self.mano, "seats": {str(p): SEATS[self.seat_of(p)] for p in range(4)},
                "score": dict(zip(("us", "them"), self.score())),
                "score_before": dict(zip(("us", "them"), self.hr.score)),
                "games_won": dict(zip(("us", "them"), self.record.games_won())),
                "cards": [_card(c) for c in h.holds(you)] if h.hands[you] is not None else [],
                "phase": "over" if h.over else h.phase,
                "mus_round": h.mus_round, "deal": h.deal,
                "turn": None, "your_turn": False,
                "events": self.events[since:], "events_total": len(self.events),
                "hand_over": h.over, "game_over": self.game_over(), "match_over": self.match_over(),
                "winner": self.hr.winner(), "match_winner": self.record.match_winner(),
            }
            if turn is not None and place is not None:
                acts = turn["actions"]
                out["turn"] = {"place": place, "seat": SEATS[self.seat_of(place)], "phase": turn["phase"],
                               "lance": turn["lance"], "history": turn["history"],
                               "actions": acts if place == 0 else []}
                out["your_turn"] = place == 0
            elif turn is not None and turn["phase"] == DISCARD:
                out["turn"] = {"place": None, "seat": None, "phase": DISCARD, "lance": None, "history": [],
                               "actions": []}
            if h.phase == BETTING or h.over:
                out["declarations"] = {"pares": [self.place_of(q) for q in range(4) if h.pares[q]],
                                       "juego": [self.place_of(q) for q in range(4) if h.juego[q]]}
                out["lances"] = [{"lance": lance, "bet": bet, "result": self._bet_dict(h.bets[lance]) if lance in h.bets
                                  else None, "actions": [{"place": self.place_of(SEATS.index(e["seat"])),
                                                          "action": e["action"]} for e in h.lance_log.get(lance, [])]}
                                 for lance, _, bet in h.lances]
            if h.over:
                out["shown"] = {str(p): {"dealt": [_card(c) for c in h.dealt[self.seat_of(p)]],
                                         "final": [_card(c) for c in h.holds(self.seat_of(p))]} for p in range(4)}
                out["count"] = self.hr.count_dict()
            return out

    def history(self, unfinished: bool | None = None) -> dict[str, Any]:
        """The game so far as a hand history (JSON-ready)."""
        with self.lock:
            self.record.unfinished = (not self.hand.over) if unfinished is None else unfinished
            return self.record.to_dict()

    # ------------------------------------------------------------------ hints and reviews

    def hint(self) -> dict[str, Any]:
        """The figures of the player's decision now (:mod:`.values`)."""
        from musstats.analysis.practice import values as V

        with self.lock:
            if self._turn_place() != 0:
                raise MusError("a hint is for your turn: it is not your turn")
            h = self.hand
            turn = h.turn()
            assert turn is not None
            you = self.you
            label = h.tables.labels[h.hand_index(you)]
            base = {"seat": SEATS[you], "cards": label, "phase": turn["phase"]}
            if turn["phase"] == BETTING:
                lance = turn["lance"]
                hist = tuple(turn["history"])
                mine = [d for d in h.decisions if d.kind == "bet" and d.lance == lance and d.seat == you]
                start = mine[0].history if mine else hist
                args = (label, you, lance, start, hist, h.declared_text(lance), h.deal)
            elif turn["phase"] == MUS:
                round_ = h.mus_round
            else:
                round_ = h.mus_round
        if turn["phase"] == BETTING:
            v = V.bet_options(*args, plan_seed=h.plan_seed)
            j = V.judge("bet", v["options"], "")
            return {**base, "lance": lance, "history": list(hist), "options": v["options"], "best": j["best"],
                    "rare": v["rare"], "meta": v["meta"], "method": V.METHOD["betting"]}
        if round_ > 0:
            note = "a later mus round: the figures model the first round (hands as dealt)"
        else:
            note = ""
        if turn["phase"] == MUS:
            v = V.mus_options(label, you)
            j = V.judge("mus", v["options"], "")
            return {**base, "options": v["options"], "best": j["best"], "keep": v["keep"],
                    "p_others_ask": v["p_others_ask"], "difference": v["difference"], "se": v["se"],
                    "note": note, "method": V.METHOD["mus"]}
        v = V.discard_options(label, you)
        return {**base, "options": v["options"], "best": v["best"], "by": v["by"], "note": note,
                "method": V.METHOD["discard"]}

    def hand_record(self, game: int | None = None, hand: int | None = None) -> HandRecord:
        """A hand of the record (default: the current one)."""
        with self.lock:
            if game is None and hand is None:
                return self.hr
            for hr in self.record.hands():
                if hr.game == game and hr.number == hand:
                    return hr
        raise MusError(f"no hand {hand} in game {game}")

    def us_them(self, team: tuple[int, int]) -> tuple[int, int]:  # pragma: no cover - convenience
        return us_them(team, self.you)
