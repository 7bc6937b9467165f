"""The public tree of one lance's betting (docs/rules.md, "Betting").

Four seats in the order of speech 0 = mano, 1 = second, 2 = third, 3 = postre; team
0 = {mano, third}, team 1 = {second, postre}.  The *speakers* are all four seats in
grande, chica and punto, and the seats that declared the lance in pares and juego
(the declaration pattern is public; a lance is bet only when both teams have a
speaker, so there is one tree per pattern).

The rules the tree encodes:

* **Opening round.** From mano, each speaker in turn says ``paso`` or bets (an
  ``envido N`` of the abstraction, or ``órdago``).  A pass before any bet keeps the
  player in.  If every speaker passes the lance is played *en paso*.
* **Answering a bet.**  The bet is answered by the speakers of the other team who
  still have a say, in order of speech continuing from the bettor (the next player
  counterclockwise first).  Each in turn says ``no quiero``, ``quiero``, raises
  (``+N``) or calls ``órdago``; the first to accept or raise gives the team's answer.
  A player who says ``no quiero`` drops out of the lance; the bet is refused only when
  every answerer refuses.
* **A raise** is a new bet by the raiser's team, answered in the same way by the
  other team's speakers who still have a say, in order from the raiser.
* **Facing an órdago** only ``quiero`` and ``no quiero``.
* **Dejes.**  A refused first bet (or first órdago) gives the bettors 1 stone; a
  refused raise (or órdago over a bet) the amount that stood before it
  (2, raise to 4, raise to 20 refused: 4).

The tree is stored as flat arrays (children of a node are contiguous, every parent
comes before its children) for the kernels of :mod:`musstats._kernels.cfr`; each
terminal is a :class:`Terminal` whose payoff :mod:`musstats.engines.betting.game` gives.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from musstats.base.errors import MusError
from musstats.engines.betting.abstraction import DEFAULT_ABSTRACTION, Abstraction
from musstats.rules.labels import LANCES, SEATS

__all__ = ["Terminal", "Node", "BettingTree", "betting_tree", "PASO", "ACCEPTED", "REFUSED", "ORDAGO",
           "LANCE_INDEX", "BET_LANCES", "pattern_mask", "pattern_seats", "pattern_text", "subgame_text", "contested",
           "normalise_action", "ALL_SEATS"]

LANCE_INDEX = {name: i for i, name in enumerate(LANCES)}
#: lances whose speakers are the declared holders
BET_LANCES = LANCES
ALL_SEATS = 0b1111
#: terminal kinds
PASO, ACCEPTED, REFUSED, ORDAGO = range(4)
_KIND_NAMES = ("en paso", "accepted", "refused", "órdago accepted")


@dataclass(frozen=True)
class Terminal:
    """How a betting sequence ended: ``kind`` (PASO, ACCEPTED, REFUSED, ORDAGO), the stake of
    an accepted bet, the bettors' team and the deje of a refused one."""

    kind: int
    stake: int = 0
    by: int = -1
    deje: int = 0

    def describe(self, lance: str | None = None) -> str:
        """What the ending pays; with ``lance``, the whole payoff of a refusal (docs/rules.md:
        in pares and juego the bettors also count their own hands' values; at punto they take
        1 more at the count)."""
        if self.kind == PASO:
            return "en paso"
        if self.kind == ACCEPTED:
            return f"{self.stake} accepted"
        if self.kind == ORDAGO:
            return "órdago accepted: the lance decides the game"
        tail = {"pares": f", then at the count the pares of {_TEAM_TEXT[self.by]} (1, 2 or 3 each holder)",
                "juego": f", then at the count the juego of {_TEAM_TEXT[self.by]} (3 for 31, else 2, each holder)",
                "punto": ", then 1 more at the count"}.get(lance or "", "")
        return f"refused: {_TEAM_TEXT[self.by]} take {self.deje} (deje){tail}"


_TEAM_TEXT = ("mano and third", "second and postre")


@dataclass
class Node:
    """One node: the public history that leads to it, the seat to act (-1 at a terminal),
    the actions and the child of each."""

    id: int
    history: tuple[str, ...]
    seat: int = -1
    actions: tuple[str, ...] = ()
    children: tuple[int, ...] = ()
    terminal: int = -1  # index in BettingTree.terminals
    depth: int = 0

    @property
    def is_terminal(self) -> bool:
        return self.seat < 0


# ---------------------------------------------------------------------------
# declaration patterns


def pattern_mask(seats) -> int:
    """Bit mask (bit q = seat q) of an iterable of seat indices."""
    m = 0
    for q in seats:
        m |= 1 << int(q)
    return m


def pattern_seats(mask: int) -> tuple[int, ...]:
    """Seat indices of a mask, in order of speech."""
    return tuple(q for q in range(4) if mask >> q & 1)


def pattern_text(mask: int) -> str:
    """``"mano+second"`` for the mask of mano and second."""
    return "+".join(SEATS[q] for q in pattern_seats(mask)) or "nobody"


def subgame_text(lance: str, mask: int) -> str:
    """Who declared, for a table of subgames: ``pattern_text`` in pares and juego, ``"all"``
    in the lances every seat plays."""
    return pattern_text(mask) if lance in ("pares", "juego") else "all"


def contested(mask: int) -> bool:
    """Both teams have a speaker."""
    return bool(mask & 0b0101) and bool(mask & 0b1010)


# ---------------------------------------------------------------------------
# action names


_ACTION_ALIASES = {
    "paso": "paso", "pass": "paso", "check": "paso", "p": "paso",
    "quiero": "quiero", "accept": "quiero", "call": "quiero", "veo": "quiero", "q": "quiero",
    "no quiero": "no quiero", "noquiero": "no quiero", "no": "no quiero", "fold": "no quiero",
    "refuse": "no quiero", "nq": "no quiero",
    "órdago": "órdago", "ordago": "órdago", "all-in": "órdago", "o": "órdago",
    "envido": "envido 2",
}


def normalise_action(text: str) -> str:
    """The canonical label of an action as typed by a user (``"envido"`` → ``"envido 2"``,
    ``"reenvido 2"``, ``"sube 2"``, ``"2 más"`` → ``"+2"``, ``"ordago"`` → ``"órdago"``)."""
    s = re.sub(r"\s+", " ", str(text).strip().lower())
    if s in _ACTION_ALIASES:
        return _ACTION_ALIASES[s]
    m = re.fullmatch(r"(?:envido|bet|envido de) ?(\d+)", s)
    if m:
        return f"envido {int(m.group(1))}"
    m = re.fullmatch(r"(?:\+ ?|reenvido ?|sube ?|raise ?)(\d+)(?: m[aá]s)?", s) or re.fullmatch(r"(\d+) m[aá]s", s)
    if m:
        return f"+{int(m.group(1))}"
    return s


# ---------------------------------------------------------------------------
# the tree


@dataclass(eq=False)
class BettingTree:
    """The public betting tree of one lance under one declaration pattern.

    ``speakers``: seats that speak, in order; ``nodes[0]`` is the root.  Arrays for the
    kernels: ``is_term``, ``seat``, ``first`` (first child), ``n_act``, ``term`` (terminal
    row, -1 at decisions), all int64 [N].
    """

    lance: str
    speakers: tuple[int, ...]
    abstraction: Abstraction
    nodes: list[Node] = field(default_factory=list)
    terminals: list[Terminal] = field(default_factory=list)

    # -- arrays -------------------------------------------------------------

    def __post_init__(self) -> None:
        n = len(self.nodes)
        self.is_term = np.array([nd.is_terminal for nd in self.nodes], np.int64)
        self.seat = np.array([nd.seat for nd in self.nodes], np.int64)
        self.first = np.array([nd.children[0] if nd.children else -1 for nd in self.nodes], np.int64)
        self.n_act = np.array([len(nd.actions) for nd in self.nodes], np.int64)
        self.term = np.array([nd.terminal for nd in self.nodes], np.int64)
        self.parent = np.full(n, -1, np.int64)
        self.parent_action = np.full(n, -1, np.int64)
        for nd in self.nodes:
            for a, c in enumerate(nd.children):
                self.parent[c] = nd.id
                self.parent_action[c] = a
        self._by_history = {nd.history: nd.id for nd in self.nodes}
        for arr in (self.is_term, self.seat, self.first, self.n_act, self.term):
            arr.setflags(write=False)

    @property
    def pattern(self) -> int:
        """Bit mask of the speakers."""
        return pattern_mask(self.speakers)

    @property
    def n_nodes(self) -> int:
        return len(self.nodes)

    @property
    def decision_nodes(self) -> list[int]:
        return [nd.id for nd in self.nodes if not nd.is_terminal]

    @property
    def n_decisions(self) -> int:
        return int((self.is_term == 0).sum())

    @property
    def n_terminals(self) -> int:
        return len(self.terminals)

    def describe(self) -> dict:
        """JSON-friendly summary."""
        return {"lance": self.lance, "speakers": [SEATS[q] for q in self.speakers],
                "decision_nodes": self.n_decisions, "terminals": self.n_terminals,
                "abstraction": self.abstraction.describe()}

    # -- navigation ---------------------------------------------------------

    def node_id(self, history: tuple[str, ...]) -> int | None:
        return self._by_history.get(tuple(history))

    def subtree(self, node: int) -> list[int]:
        """Node ids of the subtree rooted at ``node`` (itself first), parents before children."""
        out = [node]
        i = 0
        while i < len(out):
            out.extend(self.nodes[out[i]].children)
            i += 1
        return sorted(out)

    def first_turn(self, seat: int) -> int | None:
        """The seat's first decision node: its turn in the opening round after everyone
        before it passed (None if it does not speak)."""
        n = 0
        while not self.nodes[n].is_terminal:
            nd = self.nodes[n]
            if nd.seat == seat:
                return n
            n = nd.children[nd.actions.index("paso")]
        return None

    def parse_history(self, history, seat: int | None = None) -> int:
        """Node id reached by a public history (``"paso,envido 2"`` or a list of actions).

        With ``seat``, the node must be that seat's turn.  MusError (one line) for an
        action that is not legal there, a history that ends the lance, or another
        seat's turn.
        """
        if history is None:
            acts: list[str] = []
        elif isinstance(history, str):
            acts = [a for a in (x.strip() for x in history.split(",")) if a]
        else:
            acts = [str(a) for a in history]
        n = 0
        done: list[str] = []
        for raw in acts:
            nd = self.nodes[n]
            act = normalise_action(raw)
            if nd.is_terminal:
                raise MusError(f"not a legal sequence: the {self.lance} betting is over after "
                               f"'{','.join(done)}' ({self.terminals[nd.terminal].describe()}), "
                               f"so '{raw}' cannot follow")
            if act not in nd.actions:
                where = f"after '{','.join(done)}'" if done else "at the start"
                raise MusError(f"not a legal sequence: {where} {SEATS[nd.seat]} may say "
                               f"{' | '.join(nd.actions)}, not '{raw}'")
            n = nd.children[nd.actions.index(act)]
            done.append(act)
        nd = self.nodes[n]
        if seat is not None:
            where = f"after '{','.join(done)}'" if done else "at the start"
            if nd.is_terminal:
                raise MusError(f"not this seat's turn: the {self.lance} betting is over {where} "
                               f"({self.terminals[nd.terminal].describe()})")
            if nd.seat != seat:
                raise MusError(f"not this seat's turn: {where} it is {SEATS[nd.seat]}'s turn, "
                               f"not {SEATS[seat]}'s")
        return n

    # -- text ---------------------------------------------------------------

    def text(self, max_depth: int | None = None) -> str:
        """The public tree as indented text: one line per action, with the seat to act next
        or how the lance ends."""
        head = (f"{self.lance}: speakers {' '.join(SEATS[q] for q in self.speakers)}; "
                f"{self.n_decisions} decision nodes, {self.n_terminals} terminals; abstraction "
                f"{self.abstraction.tag}")
        lines = [head, f"{SEATS[self.nodes[0].seat]} to act: {' | '.join(self.nodes[0].actions)}"]

        def walk(n: int, depth: int) -> None:
            nd = self.nodes[n]
            for act, c in zip(nd.actions, nd.children):
                ch = self.nodes[c]
                pad = "  " * (depth + 1)
                if ch.is_terminal:
                    lines.append(f"{pad}{SEATS[nd.seat]} {act} → {self.terminals[ch.terminal].describe(self.lance)}")
                else:
                    lines.append(f"{pad}{SEATS[nd.seat]} {act} → {SEATS[ch.seat]}: {' | '.join(ch.actions)}")
                    if max_depth is None or depth + 1 < max_depth:
                        walk(c, depth + 1)

        walk(0, 0)
        return "\n".join(lines)


def _team(q: int) -> int:
    return q % 2


def _build(lance: str, speakers: tuple[int, ...], ab: Abstraction) -> BettingTree:
    nodes: list[Node] = []
    terminals: list[Terminal] = []
    term_ids: dict[Terminal, int] = {}
    spk = set(speakers)
    # a state is ("open", i) or ("bet", stake, ordago, bettor, standing, raises, answerers, say)
    queue: list[tuple[int, tuple]] = []

    def new_node(history: tuple[str, ...], state, depth: int) -> int:
        nid = len(nodes)
        if state[0] == "end":
            t = state[1]
            if t not in term_ids:
                term_ids[t] = len(terminals)
                terminals.append(t)
            nodes.append(Node(nid, history, terminal=term_ids[t], depth=depth))
        else:
            nodes.append(Node(nid, history, depth=depth))
            queue.append((nid, state))
        return nid

    def bet_state(bettor: int, stake: int, ordago: bool, standing: int, raises: int, say: frozenset):
        ans = tuple(q for q in ((bettor + i) % 4 for i in range(1, 4))
                    if _team(q) != _team(bettor) and q in say)
        return ("bet", stake, ordago, bettor, standing, raises, ans, say)

    new_node((), ("open", 0), 0)
    head = 0
    while head < len(queue):
        nid, state = queue[head]
        head += 1
        nd = nodes[nid]
        acts: list[tuple[str, tuple]] = []
        if state[0] == "open":
            i = state[1]
            q = speakers[i]
            say = frozenset(spk)
            nxt = ("open", i + 1) if i + 1 < len(speakers) else ("end", Terminal(PASO))
            acts.append(("paso", nxt))
            for s in ab.opening:
                acts.append((f"envido {s}", bet_state(q, s, False, 1, 0, say)))
            if ab.ordago:
                acts.append(("órdago", bet_state(q, 0, True, 1, 0, say)))
        else:
            _, stake, ordago, bettor, standing, raises, ans, say = state
            q = ans[0]
            by = _team(bettor)
            if len(ans) > 1:
                refuse: tuple = ("bet", stake, ordago, bettor, standing, raises, ans[1:], say - {q})
            else:
                refuse = ("end", Terminal(REFUSED, 0, by, standing))
            acts.append(("no quiero", refuse))
            acts.append(("quiero", ("end", Terminal(ORDAGO) if ordago else Terminal(ACCEPTED, stake))))
            if not ordago:
                if raises < ab.max_raises:
                    for r in ab.raises:
                        acts.append((f"+{r}", bet_state(q, stake + r, False, stake, raises + 1, say)))
                if ab.ordago:
                    acts.append(("órdago", bet_state(q, 0, True, stake, raises, say)))
        children = []
        for label, st in acts:
            children.append(new_node(nd.history + (label,), st, nd.depth + 1))
        nd.seat = q
        nd.actions = tuple(a for a, _ in acts)
        nd.children = tuple(children)
    return BettingTree(lance, speakers, ab, nodes, terminals)


@lru_cache(maxsize=256)
def _tree(lance: str, pattern: int, ab: Abstraction) -> BettingTree:
    return _build(lance, pattern_seats(pattern), ab)


def betting_tree(lance: str, pattern: int | None = None, abstraction: Abstraction = DEFAULT_ABSTRACTION
                 ) -> BettingTree:
    """The public tree of ``lance``; ``pattern`` is the bit mask of the seats that declared
    pares / juego (every seat speaks in grande, chica and punto: the pattern is ignored
    there).  MusError when the lance is not bet under the pattern."""
    if lance not in LANCE_INDEX:
        raise MusError(f"unknown lance {lance!r}; accepted: {', '.join(LANCES)}")
    if lance in ("pares", "juego"):
        if pattern is None:
            raise MusError(f"the {lance} tree needs the declaration pattern (who holds {lance})")
        pattern = int(pattern)
        if not 0 <= pattern <= ALL_SEATS or not contested(pattern):
            raise MusError(f"{lance} is not bet when only {pattern_text(pattern)} hold it: "
                           "betting needs a holder in each team")
    else:
        pattern = ALL_SEATS
    return _tree(lance, pattern, abstraction)


def contested_patterns() -> list[int]:
    """The 9 declaration patterns under which pares or juego is bet, in a fixed order."""
    return [m for m in range(1, 16) if contested(m)]
