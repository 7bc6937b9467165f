"""Hand histories: a game (or a match) as JSON, written by ``musstats play`` and the page's
table, read by ``musstats review`` -- also when typed by hand from a game at a real table.

The format (``docs/practice.md`` has it in full, with an example)::

    {"format": "musstats-history", "version": 1,
     "rules": {"variant": "8-reyes", "target": 40},
     "match": "single",                     # or best-of-3, first-to-3
     "games": [{"hands": [
       {"you": "mano",                      # your seat in this hand (later hands: mano moves on)
        "score": [0, 0],                    # us, them before the hand (checked when given)
        "dealt": {"mano": "R R 7 A", "second": "C C 5 4", "third": "...", "postre": "..."},
        "mus": [{"seat": "mano", "action": "mus"}, ...,
                {"seat": "mano", "action": "throw", "cards": "7 A", "draw": "C 4"}, ...,
                {"seat": "second", "action": "corto"}],
        "hands": {...},                     # after the mus: needed only where a draw is not given
        "lances": {"grande": [{"seat": "mano", "action": "paso"}, ...], "chica": [...],
                   "pares": [...], "juego": [...]},
        "declarations": {...}, "count": {...}}]}]}   # written by musstats; checked when given

Every action is checked against the rules as it is read (whose turn, what may be said
there, the cards a seat holds); the first that is not legal stops the reading with one line
that names it (:class:`~musstats.base.errors.MusError`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from musstats.analysis.practice.hand import BETTING, DISCARD, MUS, Hand, cards_text
from musstats.base.errors import MusError
from musstats.rules.cards import parse_hand
from musstats.rules.labels import SEATS
from musstats.rules.variant import Variant, make_variant

__all__ = ["FORMAT", "VERSION", "MATCHES", "HandRecord", "GameRecord", "Record", "load_history", "read_history",
           "team_score", "us_them"]

FORMAT = "musstats-history"
VERSION = 1
#: match formats and the games a pair needs to win it (``series``: games one after another, no match)
MATCHES = {"single": 1, "best-of-3": 2, "first-to-3": 3, "series": 0}
_LANCE_KEYS = ("grande", "chica", "pares", "juego", "punto")
#: the largest history accepted (bytes): a long match of hands typed by hand fits many times over
MAX_HISTORY_BYTES = 4 << 20


def team_score(us_them: tuple[int, int], you: int) -> tuple[int, int]:
    """(mano's team, the other) from (us, them) for a player at seat ``you``."""
    us, them = us_them
    return (us, them) if you % 2 == 0 else (them, us)


def us_them(team: tuple[int, int], you: int) -> tuple[int, int]:
    """(us, them) from (mano's team, the other) for a player at seat ``you``."""
    a, b = team
    return (a, b) if you % 2 == 0 else (b, a)


@dataclass
class HandRecord:
    """One hand: your seat, the score before it (us, them) and the played :class:`Hand`."""

    game: int
    number: int
    you: int
    score: tuple[int, int]
    hand: Hand

    @property
    def complete(self) -> bool:
        return self.hand.over

    def stones(self) -> tuple[int, int]:
        """(us, them) taken in this hand."""
        r = self.hand.result
        return (0, 0) if r is None else us_them(r.stones, self.you)

    def score_after(self) -> tuple[int, int]:
        s = self.stones()
        return (self.score[0] + s[0], self.score[1] + s[1])

    def winner(self) -> str | None:
        """``us`` / ``them`` when the game was won in this hand."""
        r = self.hand.result
        if r is None or r.winner is None:
            return None
        return "us" if r.winner == self.you % 2 else "them"

    def count_dict(self) -> dict[str, Any] | None:
        r = self.hand.result
        if r is None:
            return None
        mine = self.you % 2
        return {"stones": list(self.stones()), "score": list(self.score_after()), "winner": self.winner(),
                "ended_in_betting": self.hand.ended_in_betting,
                "events": [{"lance": lance, "team": "us" if team == mine else "them", "stones": n, "reason": why}
                           for lance, team, n, why in r.events]}

    def to_dict(self) -> dict[str, Any]:
        h = self.hand
        out: dict[str, Any] = {"you": SEATS[self.you], "score": list(self.score),
                               "dealt": {SEATS[q]: cards_text(h.dealt[q]) for q in range(4)},
                               "mus": list(h.mus_log)}
        if h.plan_seed is not None:
            out["plan"] = int(h.plan_seed)
        if h.phase == BETTING or h.over:
            out["hands"] = {SEATS[q]: cards_text(h.holds(q)) for q in range(4)}
            out["declarations"] = {
                "pares": {SEATS[q]: h.pares[q] for q in range(4)},
                "juego": {SEATS[q]: h.juego[q] for q in range(4)}}
            out["lances"] = {k: list(v) for k, v in h.lance_log.items()}
        cd = self.count_dict()
        if cd is not None:
            out["count"] = cd
        return out


@dataclass
class GameRecord:
    hands: list[HandRecord] = field(default_factory=list)

    def winner(self) -> str | None:
        return self.hands[-1].winner() if self.hands else None

    def score(self) -> tuple[int, int]:
        """(us, them) after the last hand."""
        return self.hands[-1].score_after() if self.hands else (0, 0)


@dataclass
class Record:
    """A game or a match: the rules, the games and what the file says about its players."""

    variant: Variant
    match: str = "single"
    games: list[GameRecord] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    unfinished: bool = False

    def hands(self) -> list[HandRecord]:
        return [h for g in self.games for h in g.hands]

    def games_won(self) -> tuple[int, int]:
        w = [g.winner() for g in self.games]
        return (w.count("us"), w.count("them"))

    def match_winner(self) -> str | None:
        need = MATCHES[self.match]
        if not need:
            return None
        us, them = self.games_won()
        return "us" if us >= need else "them" if them >= need else None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"format": FORMAT, "version": VERSION,
                               "rules": {"variant": self.variant.deck, "juego_real": self.variant.juego_real,
                                         "target": self.variant.target},
                               "match": self.match, **self.meta}
        if self.unfinished:
            out["unfinished"] = True
        out["games"] = [{"hands": [h.to_dict() for h in g.hands], "winner": g.winner(),
                         "score": list(g.score())} for g in self.games]
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=1) + "\n"


# ---------------------------------------------------------------------------- reading


def _seat(x: Any, where: str) -> int:
    from musstats.rules.seats import parse_seat

    try:
        return parse_seat(x)
    except MusError as e:
        raise MusError(f"{where}: {e}") from None


def _obj(x: Any, what: str, where: str) -> dict:
    if not isinstance(x, dict):
        raise MusError(f"{where}: {what} must be a JSON object, got {type(x).__name__}")
    return x


def _list(x: Any, what: str, where: str) -> list:
    if not isinstance(x, list):
        raise MusError(f"{where}: {what} must be a JSON list, got {type(x).__name__}")
    return x


def _four(x: Any, what: str, where: str) -> list:
    """Four hands by seat: {"mano": ..., ...} or a list in seat order."""
    if isinstance(x, dict):
        got: dict[int, Any] = {}
        for k, v in x.items():
            got[_seat(k, f"{where}, {what}")] = v
        missing = [SEATS[q] for q in range(4) if q not in got]
        if missing:
            raise MusError(f"{where}: {what} lacks {', '.join(missing)}")
        vals = [got[q] for q in range(4)]
    elif isinstance(x, list) and len(x) == 4:
        vals = x
    else:
        raise MusError(f"{where}: {what} must give the four seats' cards (mano, second, third, postre)")
    out = []
    for q, v in enumerate(vals):
        try:
            out.append(parse_hand(v))
        except MusError as e:
            raise MusError(f"{where}: {what}, {SEATS[q]}: {e}") from None
    return out


def _pair(x: Any, what: str, where: str) -> tuple[int, int]:
    if not (isinstance(x, list) and len(x) == 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in x)):
        raise MusError(f"{where}: {what} must be a pair [us, them] of whole numbers, got {json.dumps(x)}")
    return int(x[0]), int(x[1])


def _action_text(e: dict) -> str:
    s = f"{e.get('seat', '?')} {e.get('action', '?')}"
    if e.get("cards"):
        s += f" {e['cards']}"
    return s


def _play_hand(h: dict, where: str, variant: Variant, you: int, score: tuple[int, int], last: bool,
               unfinished: bool) -> Hand:
    for k in h:
        if k not in ("you", "score", "dealt", "mus", "plan", "hands", "lances", "declarations", "count", "note"):
            raise MusError(f"{where}: unknown field {k!r}; accepted: you, score, dealt, mus, plan, hands, lances, "
                           "declarations, count, note")
    if "dealt" not in h:
        raise MusError(f"{where}: the hands as dealt (dealt) are missing")
    dealt = _four(h["dealt"], "dealt", where)
    final = _four(h["hands"], "hands", where) if "hands" in h else None
    plan = h.get("plan")
    if plan is not None and (isinstance(plan, bool) or not isinstance(plan, int) or not 0 <= plan < 1 << 63):
        raise MusError(f"{where}: plan is the hand's plan seed, a whole number from 0, got {json.dumps(plan)}")
    hand = Hand(_checked(dealt, where), variant, team_score(score, you), final=final, plan_seed=plan)
    mus = list(_list(h.get("mus", []), "mus", where))
    lances = _obj(h.get("lances", {}), "lances", where)
    for k in lances:
        if k not in _LANCE_KEYS:
            raise MusError(f"{where}: unknown lance {k!r} in lances; accepted: {', '.join(_LANCE_KEYS)}")
    queues = {k: list(_list(v, k, where)) for k, v in lances.items()}
    counters = {"mus": 0, **{k: 0 for k in _LANCE_KEYS}}
    while not hand.over:
        turn = hand.turn()
        assert turn is not None
        key = "mus" if turn["phase"] in (MUS, DISCARD) else turn["lance"]
        queue = mus if key == "mus" else queues.get(key, [])
        if not queue:
            if last and unfinished:
                return hand
            said = ",".join(turn["history"])
            what = (f"the mus stops before {SEATS[turn['seat']]}'s turn" if key == "mus" else
                    f"{key} stops {'after ' + repr(said) if said else 'before it starts'}")
            raise MusError(f"{where}: {what}; {SEATS[turn['seat']]} may still say {' | '.join(turn['actions'])} "
                           f"(a game that stopped there says \"unfinished\": true)")
        e = queue.pop(0)
        counters[key] += 1
        at = f"{where}, {key} action {counters[key]}"
        if not isinstance(e, dict) or "seat" not in e or "action" not in e:
            raise MusError(f"{at}: an action is an object {{\"seat\": ..., \"action\": ...}}, got {json.dumps(e)}")
        for k in e:
            if k not in ("seat", "action", "cards", "draw"):
                raise MusError(f"{at}: unknown field {k!r}; accepted: seat, action, cards, draw")
        at = f"{at} ({_action_text(e)})"
        seat = _seat(e["seat"], at)
        try:
            hand.act(seat, str(e["action"]), e.get("cards"), e.get("draw"))
        except MusError as err:
            raise MusError(f"{at}: {err}") from None
    if mus:
        raise MusError(f"{where}, mus action {counters['mus'] + 1} ({_action_text(mus[0])}): the mus is over "
                       f"({_mus_end(hand)})")
    for k, q in queues.items():
        if q:
            n = counters[k] + 1
            if counters[k]:
                raise MusError(f"{where}, {k} action {n} ({_action_text(q[0])}): the {k} betting is over")
            raise MusError(f"{where}, {k} action 1 ({_action_text(q[0])}): {_why_not(hand, k)}")
    return hand


def _mus_end(hand: Hand) -> str:
    cut = [d for d in hand.decisions if d.kind == "mus" and d.action == "corto"]
    return f"{SEATS[cut[-1].seat]} cut" if cut else "the hands are played"


def _why_not(hand: Hand, lance: str) -> str:
    """Why ``lance`` has no betting in this hand."""
    if hand.ended_in_betting:
        return "the game ended before this lance (a deje reached the target, or an órdago was accepted)"
    planned = {name: bet for name, _, bet in hand.lances}
    if lance not in planned:
        if lance == "pares":
            return "nobody holds pares: the lance is not played"
        return ("somebody holds juego: juego is played, not punto" if lance == "punto" else
                "nobody holds juego: punto is played, not juego")
    holders = [SEATS[q] for q in range(4) if (hand.pares if lance == "pares" else hand.juego)[q]]
    return f"{lance} is not bet: only {' and '.join(holders)} hold {lance} (betting needs a holder in each team)"


def _checked(dealt: list, where: str) -> list:
    from musstats.rules.cards import check_physical

    try:
        check_physical([c for h in dealt for c in h], "the four hands as dealt")
    except MusError as e:
        raise MusError(f"{where}: {e}") from None
    return dealt


def _check_written(h: dict, hand: Hand, where: str, rec: HandRecord) -> None:
    """The fields musstats writes (declarations, count) must agree with the rules."""
    if "declarations" in h and (hand.phase == BETTING or hand.over):
        d = _obj(h["declarations"], "declarations", where)
        for lance, held in (("pares", hand.pares), ("juego", hand.juego)):
            if lance in d:
                for k, v in _obj(d[lance], f"declarations of {lance}", where).items():
                    q = _seat(k, f"{where}, declarations")
                    if bool(v) != held[q]:
                        raise MusError(f"{where}: declarations: {SEATS[q]} {'holds' if held[q] else 'does not hold'} "
                                       f"{lance}, the file says {json.dumps(v)}")
    if "count" in h and hand.over:
        c = _obj(h["count"], "count", where)
        if "stones" in c:
            got = _pair(c["stones"], "count.stones", where)
            if got != rec.stones():
                raise MusError(f"{where}: the count gives us {rec.stones()[0]}, them {rec.stones()[1]} by the rules; "
                               f"the file says {got[0]}-{got[1]}")


def read_history(text: str | bytes) -> Record:
    """A :class:`Record` from the JSON text of a history (MusError: one line naming the first
    thing that is wrong)."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise MusError("the history is not UTF-8 text") from None
    if len(text) > MAX_HISTORY_BYTES:
        raise MusError(f"the history is larger than {MAX_HISTORY_BYTES // (1 << 20)} MB")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise MusError(f"not JSON: {e.msg} at line {e.lineno}, column {e.colno}") from None
    return load_history(doc)


def load_history(doc: Any) -> Record:
    """A :class:`Record` from a parsed history (dict), a path to a JSON file or JSON text."""
    if isinstance(doc, Path) or (isinstance(doc, str) and not doc.lstrip().startswith("{")):
        p = Path(doc)
        try:
            data = p.read_bytes()
        except FileNotFoundError:
            raise MusError(f"no such file: {str(p)!r}") from None
        except IsADirectoryError:
            raise MusError(f"{str(p)!r} is a directory, not a history file") from None
        except OSError as e:
            raise MusError(f"cannot read {str(p)!r}: {e.strerror}") from None
        return read_history(data)
    if isinstance(doc, (str, bytes)):
        return read_history(doc)
    d = _obj(doc, "a history", "the history")
    fmt = d.get("format")
    if fmt != FORMAT:
        raise MusError(f"not a musstats history: \"format\" must be {json.dumps(FORMAT)}, got {json.dumps(fmt)}")
    if d.get("version") != VERSION:
        raise MusError(f"history version {json.dumps(d.get('version'))} is not known; accepted: {VERSION}")
    rules = _obj(d.get("rules", {}), "rules", "the history")
    for k in rules:
        if k not in ("variant", "juego_real", "target"):
            raise MusError(f"rules: unknown field {k!r}; accepted: variant, juego_real, target")
    variant = make_variant(rules.get("variant", "8-reyes"), rules.get("juego_real", "off"), rules.get("target", 40))
    from musstats.analysis.practice.values import check_rules

    check_rules(variant)
    match = str(d.get("match", "single"))
    if match not in MATCHES:
        raise MusError(f"unknown match {match!r}; accepted: {', '.join(MATCHES)}")
    unfinished = d.get("unfinished", False) is True
    games = _list(d.get("games"), "games", "the history")
    if not games:
        raise MusError("the history holds no game")
    meta = {k: d[k] for k in ("players", "bots", "seed", "strategy", "saved", "note") if k in d}
    rec = Record(variant, match, [], meta, unfinished)
    you: int | None = None
    for gi, g in enumerate(games, 1):
        if rec.match_winner() is not None:
            raise MusError(f"game {gi}: the match was over after game {gi - 1}")
        g = _obj(g, "a game", f"game {gi}")
        hands = _list(g.get("hands"), "hands", f"game {gi}")
        if not hands:
            raise MusError(f"game {gi} holds no hand")
        game = GameRecord()
        rec.games.append(game)
        score = (0, 0)
        for hi, h in enumerate(hands, 1):
            where = f"game {gi}, hand {hi}"
            h = _obj(h, "a hand", where)
            if "you" in h:
                you = _seat(h["you"], f"{where}, you")
            elif you is None:
                raise MusError(f"{where}: say which seat is yours (\"you\": \"mano\", ...)")
            else:
                you = (you - 1) % 4  # mano moved on: the seat after mano is mano now
            if "score" in h:
                given = _pair(h["score"], "score", where)
                if hi == 1:
                    score = given
                elif given != score:
                    raise MusError(f"{where}: the score before this hand is {score[0]}-{score[1]} (us-them) by the "
                                   f"hands before it; the file says {given[0]}-{given[1]}")
            if game.winner() is not None:
                raise MusError(f"{where}: game {gi} was won in hand {hi - 1}; this hand belongs to the next game")
            if not all(0 <= s < variant.target for s in score):
                raise MusError(f"{where}: score {score[0]}-{score[1]} out of range for a game to {variant.target}")
            last = gi == len(games) and hi == len(hands)
            hand = _play_hand(h, where, variant, you, score, last, unfinished)
            hr = HandRecord(gi, hi, you, score, hand)
            _check_written(h, hand, where, hr)
            game.hands.append(hr)
            if hand.over:
                score = hr.score_after()
    return rec
