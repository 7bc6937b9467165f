"""A hand of Mus as the table has seen it: what the public history says of each player's
cards, and the decision it leaves you.

``musstats hand CARDS --seat S --history "..."`` reads the history of the hand so far in a
notation a player can type (:func:`parse_history`; parts separated by ``;``):

* the mus, from mano: ``mus,mus,corto`` (the first ``corto`` ends it) or ``mus,mus,mus,mus``;
* after four ``mus``, the number of cards each seat threw, from mano: ``1,3,2,4``
  (``descarte 1,3,2,4`` also reads); one mus round is modelled (the next speech may be given,
  ``mus,corto``, and must be cut: the hands after a second discard are not modelled);
* each lance, in order, with its actions so far: ``grande: paso,envido 2,quiero`` (an action
  may name its seat, ``grande: mano paso,second envido 2``, and is then checked against it),
  ``chica: paso,paso,paso,paso``, ``pares mano+third: envido 2,no`` (who declared pares;
  ``pares none`` when nobody did), ``juego second: ...`` (who declared juego) or
  ``punto: ...`` when nobody holds juego.  A lance held by one team only is not bet: its part
  names the declarations alone.

The reading (:func:`hand`) is Bayes' rule over the deals, by Monte Carlo: the other three
hands are dealt from the cards you do not hold (and, after the mus, thrown by the shipped
discard table and redrawn); each deal is weighted by how likely the other players make the
history: the mus decision's equilibrium for their mus calls (:mod:`musstats.analysis.cut_game`;
the shipped cut flags where it does not ship), the discard table for the numbers of
cards they threw, the declarations, and the shipped betting strategies for every bet and
answer (after a cut those that read who cut, information model ``mus-read``; after a mus
round the after-mus ones).  Each of those is softened by a tremble of :data:`TREMBLE` (a player may
depart from the model) so that no history the rules allow has no weight.  The prior is the
deal before anything was said: only your cards known.

Your own cards thrown in the mus are not given: they count among the unseen cards.

At your decision in a lance the answer gives the probabilities of the equilibrium of the lance
given who cut (after a mus round, the after-mus one; they read nothing of the earlier
lances) and the expected stones of each
action for your team in the lance from that point, over the deals weighted by the history
(the others playing the shipped strategies on): what reading the table is worth there.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from musstats.base.errors import MusError
from musstats.engines.betting.tree import ORDAGO, betting_tree, contested, normalise_action, pattern_text
from musstats.rules.labels import SEATS
from musstats.rules.variant import Variant

__all__ = ["History", "Lance", "HandReading", "parse_history", "hand", "TREMBLE", "READS", "DEFAULT_SAMPLES"]

#: the departure from the model a player is allowed at each public action (module doc)
TREMBLE = 0.01
#: deals drawn for a reading, in one batch; more batches (at most ``MAX_BATCHES``) while the
#: deals that fit the history weigh less than ``TARGET_ESS`` deals (the effective sample size)
DEFAULT_SAMPLES = 200_000
MAX_BATCHES = 10
TARGET_ESS = 1_500
#: a deal whose mus (calls and cards thrown) is this much less likely than the likeliest one's
#: is dropped
LIGHT = 1e-4
#: what is read of each other player's hand: key, description
READS = (("pares", "P(pares)"), ("juego", "P(juego)"), ("31", "P(31)"), ("reyes2", "P(two or more reyes)"),
         ("points", "expected points"))
_LANCES = ("grande", "chica", "pares", "juego", "punto")
_MUS_WORDS = {"mus": "mus", "corto": "corto", "cut": "corto", "no": "corto", "nohaymus": "corto"}
_DISCARD_WORDS = ("descarte", "discard", "throws", "thrown", "cards", "cartas")
_NONE_WORDS = ("none", "nobody", "nadie", "-")
_EXAMPLE = '"mus,mus,corto; grande: paso,envido 2"'


@dataclass
class Lance:
    """One lance of the history: its name, declaration pattern (bit q: seat q declared it; 15 in
    grande, chica and punto), actions, the node of its tree they reach and whether it is bet."""

    lance: str
    pattern: int
    actions: list[str]
    node: int = 0
    bet: bool = True

    def tree(self):
        return betting_tree(self.lance, self.pattern)

    @property
    def over(self) -> bool:
        return not self.bet or bool(self.tree().nodes[self.node].is_terminal)

    @property
    def ordago(self) -> bool:
        if not self.bet:
            return False
        t = self.tree()
        nd = t.nodes[self.node]
        return bool(nd.is_terminal) and t.terminals[nd.terminal].kind == ORDAGO


@dataclass
class History:
    """The public history of a hand (:func:`parse_history`): ``calls`` the mus calls from mano,
    ``counts`` the cards each seat threw (None: no mus round), ``again`` the calls after the
    discard, ``lances`` the lances so far; ``next`` what comes now: ``("mus", seat)``,
    ``("discard", None)``, ``("bet", seat)`` in the last lance, ``("declare", lance)`` or
    ``("over", None)``."""

    calls: list[str]
    counts: list[int] | None
    again: list[str]
    lances: list[Lance]
    next: tuple[str, Any]
    #: whether the strategies that read who cut apply (False when the player's own call departs
    #: from the shipped cut flags: those strategies never meet his hand there)
    flags_fit: bool = True

    @property
    def mus(self) -> bool:
        return self.counts is not None

    @property
    def deal(self) -> str:
        return "after-mus" if self.mus else "as-dealt"

    @property
    def cutter(self) -> int | None:
        """The seat that cut the mus (None: a mus round, or the mus not told)."""
        if self.mus or "corto" not in self.calls:
            return None
        return self.calls.index("corto")

    @property
    def reads_cut(self) -> bool:
        """Whether the lances are bet by the strategies that read who cut."""
        return self.cutter is not None and self.flags_fit

    def text(self) -> str:
        parts = [",".join(self.calls)] if self.calls else []
        if self.counts is not None:
            parts.append(",".join(str(c) for c in self.counts))
        if self.again:
            parts.append(",".join(self.again))
        for ln in self.lances:
            head = ln.lance
            if ln.lance in ("pares", "juego"):
                head += " " + (pattern_text(ln.pattern).replace("nobody", "none"))
            parts.append(head + (": " + ",".join(ln.actions) if ln.actions else ""))
        return "; ".join(parts)


def _split(text: str) -> list[str]:
    return [x for x in (y.strip() for y in re.split(r"[,\s]+", text)) if x]


def _mus_calls(words: list[str]) -> list[str] | None:
    out = []
    for w in words:
        c = _MUS_WORDS.get(w.lower().replace(" ", ""))
        if c is None:
            return None
        out.append(c)
    return out


def _seats(text: str, lance: str) -> int:
    words = [w for w in re.split(r"[+,\s]+", text.strip()) if w]
    if not words:
        raise MusError(f"{lance}: say who declared it, e.g. '{lance} mano+third:' ('{lance} none' when nobody did)")
    if len(words) == 1 and words[0].lower() in _NONE_WORDS:
        return 0
    from musstats.rules.seats import parse_seat

    mask = 0
    for w in words:
        try:
            mask |= 1 << parse_seat(w)
        except MusError:
            raise MusError(f"{lance}: unknown seat {w!r} among those who declared it (mano, second, third, postre, "
                           "joined by +)") from None
    return mask


def parse_history(text: str | None, seat: int, hand_index: int, variant: Variant) -> History:
    """The public history of a hand (module doc), checked against the rules and the tree of
    each lance; MusError (one line) for anything out of order or not legal, and where your
    own declarations do not fit your hand (``hand_index``, at ``seat``)."""
    from musstats.tables.hands import JUEGO, PARES, hand_tables

    parts = [p.strip() for p in re.split(r"[;\n]", text or "")]
    parts = [p for p in parts if p]
    calls: list[str] = []
    counts: list[int] | None = None
    again: list[str] = []
    lances: list[Lance] = []
    key = hand_tables(variant).key
    mine = {"pares": bool(key[PARES, hand_index] > 0), "juego": bool(key[JUEGO, hand_index] > 0)}
    stage = "mus"  # mus -> discard -> again -> lances
    if not parts:
        return History([], None, [], [], ("mus", 0))
    for i, raw in enumerate(parts):
        last = i == len(parts) - 1
        m = re.match(r"^([a-záéíóú]+)\b\s*([^:]*?)\s*(?::(.*))?$", raw, re.I)
        head = m.group(1).lower() if m else ""
        if m and head in _LANCES:
            if stage in ("mus", "discard") and not (stage == "mus" and calls and "corto" in calls):
                raise MusError(f"'{raw}': the lances follow the mus; give it first, e.g. {_EXAMPLE}")
            if lances and not lances[-1].over:
                raise MusError(f"'{raw}': {lances[-1].lance}'s betting is not over after "
                               f"'{','.join(lances[-1].actions)}'")
            if lances and lances[-1].ordago:
                raise MusError(f"'{raw}': the hand ended with the órdago accepted in {lances[-1].lance}")
            lance = head
            done = [x.lance for x in lances]
            expect = _next_lance(done)
            if expect is None:
                raise MusError(f"'{raw}': the hand has no lance after {done[-1]}")
            if lance != expect and not (expect == "juego" and lance == "punto"):
                raise MusError(f"'{raw}': the next lance is {expect if expect != 'juego' else 'juego or punto'}, "
                               f"not {lance}")
            decl = m.group(2) or ""
            if lance in ("pares", "juego"):
                pattern = _seats(decl, lance)
                holds = bool(pattern >> seat & 1)
                if holds != mine[lance]:
                    raise MusError(f"'{raw}': your hand {'holds' if mine[lance] else 'does not hold'} {lance}, so you "
                                   f"{'declare it' if mine[lance] else 'cannot declare it'}")
                if lance == "juego" and pattern == 0:
                    raise MusError(f"'{raw}': when nobody declares juego the lance is punto ('punto: ...')")
            else:
                if decl:
                    raise MusError(f"'{raw}': {lance} has no declarations; write '{lance}: actions'")
                if lance == "punto" and mine["juego"]:
                    raise MusError(f"'{raw}': your hand holds juego, so the lance is juego, not punto")
                pattern = 15
            acts = [a for a in (x.strip() for x in (m.group(3) or "").split(",")) if a]
            bet = lance in ("grande", "chica", "punto") or contested(pattern)
            if not bet and acts:
                who = "nobody declared it" if pattern == 0 else f"only {pattern_text(pattern)} declared it"
                raise MusError(f"'{raw}': {lance} is not bet ({who}: one team at most holds it)")
            node = 0
            if bet:
                tree = betting_tree(lance, pattern)
                acts = _tagged(acts, tree, raw)
                node = tree.parse_history(acts)
                acts = [normalise_action(a) for a in acts]
            lances.append(Lance(lance, pattern, acts, node, bet))
            stage = "lances"
            continue
        words = _split(re.sub(r"^(" + "|".join(_DISCARD_WORDS) + r")\b", "", raw, flags=re.I))
        if words and all(re.fullmatch(r"-?\d+", w) for w in words):
            if stage != "discard":
                raise MusError(f"'{raw}': cards are thrown only after all four ask for mus (mus,mus,mus,mus)")
            got = [int(w) for w in words]
            if len(got) != 4:
                raise MusError(f"'{raw}': give the cards thrown by each of the four seats, from mano (e.g. 1,3,2,4)")
            bad = [f"{SEATS[q]} {c}" for q, c in enumerate(got) if not 1 <= c <= 4]
            if bad:
                raise MusError(f"'{raw}': each seat throws 1 to 4 cards, not {', '.join(bad)}")
            counts = got
            stage = "again"
            continue
        said = _mus_calls(_split(raw))
        if said is None:
            raise MusError(f"cannot read '{raw}': a part of the history is the mus (mus,mus,corto), the cards thrown "
                           f"(1,3,2,4) or a lance (grande: paso,envido 2)")
        if stage == "mus":
            if calls:
                raise MusError(f"'{raw}': give the mus calls in one part, from mano (e.g. mus,mus,corto)")
            if "corto" in said and said.index("corto") < len(said) - 1:
                q = said.index("corto")
                raise MusError(f"'{raw}': the mus is over when {SEATS[q]} cuts; nobody speaks after him")
            if len(said) > 4:
                raise MusError(f"'{raw}': four seats ask for mus or cut, not {len(said)}")
            calls = said
            if len(said) == 4 and "corto" not in said:
                stage = "discard"
            elif "corto" not in said and not last:
                raise MusError(f"'{raw}': the mus goes on until somebody cuts or all four ask")
            continue
        if stage == "again":
            if "corto" in said and said.index("corto") < len(said) - 1:
                q = said.index("corto")
                raise MusError(f"'{raw}': the mus is over when {SEATS[q]} cuts; nobody speaks after him")
            if len(said) >= 4 and "corto" not in said:
                raise MusError(f"'{raw}': musstats models one mus round; the hands after a second discard are not "
                               "modelled")
            if "corto" not in said and not last:
                raise MusError(f"'{raw}': the mus goes on until somebody cuts")
            again = said
            stage = "lances"
            continue
        raise MusError(f"'{raw}': the mus is over; the lances follow (grande: ...)")
    # what comes now
    if stage == "mus":
        nxt: tuple[str, Any] = ("bet", 0) if "corto" in calls else ("mus", len(calls))
        if "corto" in calls:
            lances.append(Lance("grande", 15, [], 0, True))
    elif stage == "discard":
        nxt = ("discard", None)
    elif stage == "again" or (stage == "lances" and not lances):
        if again and "corto" not in again:
            nxt = ("mus", len(again))
        else:
            lances.append(Lance("grande", 15, [], 0, True))
            nxt = ("bet", 0)
    else:
        ln = lances[-1]
        if ln.ordago:
            nxt = ("over", None)
        elif not ln.over:
            nxt = ("bet", int(ln.tree().nodes[ln.node].seat))
        else:
            expect = _next_lance([x.lance for x in lances])
            if expect is None:
                nxt = ("over", None)
            elif expect == "chica":
                lances.append(Lance("chica", 15, [], 0, True))
                nxt = ("bet", 0)
            else:
                nxt = ("declare", expect)
    return History(calls, counts, again, lances, nxt)


def _tagged(acts: list[str], tree, raw: str) -> list[str]:
    """The actions of a lance without their optional seat names (``second envido 2``), each name
    checked against the seat whose turn it is."""
    from musstats.rules.seats import parse_seat

    out: list[str] = []
    node = 0
    for a in acts:
        words = a.split()
        who = None
        if len(words) > 1 and words[0].isalpha():
            try:
                who = parse_seat(words[0])
            except MusError:
                who = None
            if who is not None:
                a = " ".join(words[1:])
        nd = tree.nodes[node]
        if who is not None and not nd.is_terminal and who != nd.seat:
            if who not in tree.speakers:
                raise MusError(f"'{raw}': {SEATS[who]} has no say in {tree.lance} (only "
                               f"{pattern_text(sum(1 << x for x in tree.speakers))} speak)")
            raise MusError(f"'{raw}': after '{','.join(out)}' it is {SEATS[nd.seat]}'s turn, not {SEATS[who]}'s")
        out.append(a)
        if not nd.is_terminal and normalise_action(a) in nd.actions:
            node = nd.children[nd.actions.index(normalise_action(a))]
    return out


def _next_lance(done: list[str]) -> str | None:
    if not done:
        return "grande"
    last = done[-1]
    return {"grande": "chica", "chica": "pares", "pares": "juego"}.get(last)


# ---------------------------------------------------------------------------
# the deals and their weights


def _solved(lance: str, pattern: int, hist: "History", v: Variant):
    """The strategy of a lance for a history: after a cut the equilibrium of the lance given who
    cut (information model ``mus-read``), and in chica, pares and juego, where the public state
    (who cut, the earlier lances' betting, in juego the pares declarations) has one shipped, the
    lance solved in that state; after a mus round the after-mus one; where the mus is not told,
    or the player's own call departs from the cut flags, the per-lance one of the hands as
    dealt."""
    from musstats.analysis.betting import played_strategy

    from musstats.engines.betting.store import SOLVED_LANCES, STATE_KEY, get_state_solved

    if lance in SOLVED_LANCES and hist.reads_cut and hist.cutter is not None:
        before = {ln.lance: ln for ln in hist.lances if ln.lance in ("grande", "chica", "pares") and ln.over}
        fields = {"pattern": pattern, "cutter": hist.cutter, "chica": -1}
        fields.update({x: ln.node for x, ln in before.items() if x != "pares"})
        if "pares" in before:  # the declarations, and pares' node where it was bet
            fields.update(pares=before["pares"].pattern, pares_node=before["pares"].node if before["pares"].bet else -1)
        if all(f in fields for f in STATE_KEY[lance]) and (lance == "chica" or "chica" in before):
            got = get_state_solved(v.lance_rules, tuple(fields[f] for f in STATE_KEY[lance]), lance)
            if got is not None:
                return got
    return played_strategy(lance, pattern, hist.deal, v.lance_rules, read_cut=hist.reads_cut, solve_missing=False)


def _lance_states(sol, deals: np.ndarray, hist: "History", v: Variant, lance: str):
    from musstats.engines.betting.info import prepare

    return prepare(sol.game, deals, v, lance, cutter=hist.cutter if sol.game.info == "mus-read" else None)


def _deals(v: Variant, cards, seat: int, mus: bool, n: int, seed: int, batch: int = 0):
    from musstats._kernels.reads import deal_history
    from musstats.engines.musphase import _user_cards, deck_ids
    from musstats.engines.random import chunk_trials, seed_states
    from musstats.tables.hands import hand_tables
    from musstats.tables.policies import get_policy

    t = hand_tables(v)
    _, unseen = _user_cards(list(cards), v)
    n_chunks = 16
    per, offsets = chunk_trials(n, n_chunks)
    seeds = seed_states(int(seed), n_chunks, key=(READ_KEY, int(seat), int(mus), int(batch)))
    policy = get_policy("table", v)[0].astype(np.int64)
    return deal_history(seeds, per, offsets, unseen, int(seat), bool(mus), policy, deck_ids(v), t.n_classes,
                        t.idx4.astype(np.int64))


#: the spawn key of the reading's deals
READ_KEY = 0x7EAD


def _tremble(p: np.ndarray, n_act: int) -> np.ndarray:
    return (1.0 - TREMBLE) * p + TREMBLE / n_act


def _lance_weight(ln: Lance, final: np.ndarray, seat: int, hist: "History", v: Variant) -> np.ndarray:
    """The probability of the other seats' actions of ``ln`` in each deal, under the shipped
    strategies (:func:`_solved`)."""
    w = np.ones(final.shape[0])
    acts = ln.actions
    if not ln.bet or not acts:
        return w
    sol = _solved(ln.lance, ln.pattern, hist, v)
    game, sigma = sol.game, sol.sigma
    st, _, _ = _lance_states(sol, final, hist, v, ln.lance)
    tree = game.tree
    node = 0
    for a in acts:
        nd = tree.nodes[node]
        q = int(nd.seat)
        i = nd.actions.index(a)
        if q != seat:
            p = game.block(sigma, node)[st[:, int(game.owner[node])], i]
            w *= _tremble(np.clip(p, 0.0, 1.0), len(nd.actions))
        node = nd.children[i]
    return w


def _weights(h: History, dealt, final, thrown, seat: int, v: Variant
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(the deals kept, the weight of each before the current lance's actions, the current
    lance's factor).  A deal whose mus weighs under :data:`LIGHT` of the likeliest's is
    dropped before the lances are weighed."""
    from musstats.analysis.cut_game import cut_probabilities
    from musstats.engines.betting import deals as D

    n = final.shape[0]
    w = np.ones(n)
    P = cut_probabilities(v)  # the mus decision's equilibrium (the cut flags where it does not ship)
    for q, c in enumerate(h.calls):
        if q == seat:
            continue
        p = P[q, dealt[:, q]]
        w *= TREMBLE + (1.0 - 2.0 * TREMBLE) * (p if c == "corto" else 1.0 - p)
    if h.counts is not None:
        for q in range(4):
            if q != seat:
                w *= np.where(thrown[:, q] == h.counts[q], 1.0 - TREMBLE, TREMBLE / 3)
    kept = np.nonzero(w >= LIGHT * w.max())[0]
    w, final = w[kept], final[kept]
    n = kept.size
    pm, jm = D.holder_masks(final, v)
    cur = np.ones(n)
    for i, ln in enumerate(h.lances):
        if ln.lance == "pares":
            w *= pm == ln.pattern
        elif ln.lance == "juego":
            w *= jm == ln.pattern
        elif ln.lance == "punto":
            w *= jm == 0
        f = _lance_weight(ln, final, seat, h, v)
        if i == len(h.lances) - 1:
            cur = f
        else:
            w *= f
    return kept, w, cur


def _features(idx: np.ndarray, v: Variant) -> dict[str, np.ndarray]:
    from musstats.tables.hands import JUEGO, PARES, hand_tables

    t = hand_tables(v)
    rey = len(v.classes) - 1
    return {"pares": (t.key[PARES, idx] > 0).astype(float), "juego": (t.key[JUEGO, idx] > 0).astype(float),
            "31": (t.points[idx] == 31).astype(float), "reyes2": ((t.cls4[idx] == rey).sum(axis=1) >= 2).astype(float),
            "points": t.points[idx].astype(float)}


def _mean_se(x: np.ndarray, w: np.ndarray) -> tuple[float, float]:
    s = w.sum()
    m = float((w * x).sum() / s)
    var = float((w * w * (x - m) ** 2).sum() / (s * s))
    return m, float(np.sqrt(var))


# ---------------------------------------------------------------------------
# the answer


@dataclass
class HandReading:
    """The answer of :func:`hand`: ``decision`` (None where it is not your turn) and ``reads``
    (per other seat: each of :data:`READS` as ``{"posterior", "se", "prior"}``)."""

    hand: str
    seat: str
    history: str
    decision: dict | None
    reads: dict[str, dict[str, dict[str, float]]]
    meta: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {**self.meta, "hand": self.hand, "seat": self.seat, "history": self.history,
                "decision": self.decision, "reads": self.reads}

    def to_frame(self):
        """One row per other seat and read: seat, read, posterior, se, prior."""
        import pandas as pd

        rows = [{"seat": s, "read": r, **x} for s, d in self.reads.items() for r, x in d.items()]
        df = pd.DataFrame(rows, columns=["seat", "read", "posterior", "se", "prior"])
        df.attrs.update(self.meta)
        return df


def hand(hand, seat: str | int, *, history: str | None = None, variant: str | Variant = "8-reyes",
         samples: int = DEFAULT_SAMPLES, seed: int = 1) -> HandReading:
    """What the public ``history`` of the hand (module doc) says of each other player's hand,
    against the prior, and, where it is your turn, your decision: the shipped strategy's
    probabilities and the expected stones of each action over the deals the history weights.
    Monte Carlo over ``samples`` deals (``seed``), more while few fit the history."""
    from musstats.analysis.betting import _variant
    from musstats.rules.cards import parse_hand
    from musstats.rules.checks import positive
    from musstats.rules.seats import parse_seat
    from musstats.tables.hands import hand_tables

    t0 = time.perf_counter()
    v = _variant(variant, "off")
    if v.deck != "8-reyes" or v.juego_real != "off" or v.redeal_4567 or v.mus_visto:
        raise MusError(f"musstats hand reads the rules whose strategies ship, 8 reyes without juego real, "
                       f"4-5-6-7 redeal or mus visto; got {v.name}"
                       + (f", juego real {v.juego_real}" if v.juego_real != "off" else "")
                       + (", 4-5-6-7 redeal" if v.redeal_4567 else "") + (", mus visto" if v.mus_visto else ""))
    samples = positive(samples, "samples", 5_000_000)
    seed = int(seed)
    if seed < 0:
        raise MusError(f"seed must be a non-negative whole number, got {seed}")
    cards = parse_hand(hand)
    q = parse_seat(seat)
    t = hand_tables(v)
    t.remaining(cards)
    h = t.index_of(cards)
    hist = parse_history(history, q, h, v)
    notes = []
    if not hist.mus and q < len(hist.calls):
        from musstats.analysis.betting import OFF_FLAGS
        from musstats.tables.policies import betting_cut_flags

        if bool(betting_cut_flags(v)[q, h]) != (hist.calls[q] == "corto"):
            hist.flags_fit = False
            notes.append(OFF_FLAGS)
    parts: list[tuple[np.ndarray, ...]] = []
    ess = 0.0
    prior: dict[int, dict[str, np.ndarray]] = {}
    drawn = 0
    for batch in range(MAX_BATCHES):  # more deals while few of them fit the history
        dealt, final, thrown = _deals(v, cards, q, hist.mus, samples, seed, batch)
        final[:, q] = h
        dealt[:, q] = h
        drawn += final.shape[0]
        if batch == 0:  # the prior: the deal as dealt, only your cards known
            prior = {s: _features(dealt[:, s], v) for s in range(4) if s != q}
        kept, w, cur = _weights(hist, dealt, final, thrown, q, v)
        parts.append((final[kept], w, cur))
        wr = np.concatenate([x[1] * x[2] for x in parts])
        ess = float(wr.sum() ** 2 / (wr * wr).sum()) if wr.sum() > 0 else 0.0
        if ess >= TARGET_ESS:
            break
    if wr.sum() <= 0:
        raise MusError("no deal fits this history (check the declarations against the cards)")
    keep = _heavy(wr)
    final, w, cur = (np.concatenate([x[i] for x in parts])[keep] for i in range(3))
    wr = w * cur
    reads: dict[str, dict[str, dict[str, float]]] = {}
    for s in range(4):
        if s == q:
            continue
        post = _features(final[:, s], v)
        d = {}
        for key_, _ in READS:
            m, se = _mean_se(post[key_], wr)
            d[key_] = {"posterior": round(m, 4), "se": round(se, 4), "prior": round(float(prior[s][key_].mean()), 4)}
        reads[SEATS[s]] = d
    decision = _decision(hist, q, h, cards, final, w, v)
    if ess < 1000:
        notes.append(f"few deals fit the history (effective sample {ess:,.0f}): the reads are rough")
    if hist.again:
        notes.append("the calls after the discard are not read (one mus round is modelled)")
    meta = {"variant": v.name, "rules": v.describe(), "deal": hist.deal,
            "method": "Bayes over Monte Carlo deals: the other hands dealt from the unseen cards (after the mus thrown "
                      "by the discard table and redrawn), weighted by the mus decision's equilibrium, the discard table, "
                      "declarations and betting strategies",
            "strategies": ("after a cut the equilibrium of each lance given who cut (chica, pares and juego, in "
                           "the public states that ship, solved given the earlier lances' betting too), after a mus "
                           "round the after-mus one" if hist.reads_cut or hist.mus else
                           "the shipped per-lance equilibrium (equilibrium set)")
                          + ", the mus decision's equilibrium and the discard table", "tremble": TREMBLE,
            "samples": int(drawn), "seed": seed, "effective_samples": round(ess, 1),
            "prior": "the deal with only your cards known", "notes": notes,
            "seconds": round(time.perf_counter() - t0, 3)}
    return HandReading(" ".join(c.label for c in cards), SEATS[q], hist.text(), decision, reads, meta)


def _decision(hist: History, q: int, h: int, cards, final: np.ndarray, w: np.ndarray, v: Variant) -> dict | None:
    kind, who = hist.next
    if kind == "over":
        return None
    if kind == "declare":
        return {"kind": "declare", "seat": None, "lance": who, "actions": {},
                "note": f"the {who} declarations come next: give them in the history ({who} mano+third: ...)"}
    if kind == "discard":
        from musstats.analysis.practice.values import keep_label
        from musstats.tables.policies import get_policy

        from musstats.analysis.practice.values import discard_options

        mask = int(get_policy("table", v)[0][q, h])
        srt = sorted(cards, key=lambda c: -v.class_of(c.face, c.suit))
        keep = keep_label([v.class_of(srt[i].face, srt[i].suit) for i in range(4) if mask >> i & 1], v)
        opts = discard_options(_label(h, v), q)
        acts = {f"keep {k}": {"p": 1.0 if k == keep else 0.0, "ev": x["ev"], "se": x["se"]}
                for k, x in list(opts["options"].items())[:DISCARD_SHOWN]}
        acts.setdefault(f"keep {keep}", {"p": 1.0, "ev": opts["options"].get(keep, {}).get("ev"),
                                         "se": opts["options"].get(keep, {}).get("se")})
        return {"kind": "discard", "seat": SEATS[q], "lance": None, "actions": acts, "keep": keep,
                "best_reading": f"keep {opts['best']}",
                "source": "P: the shipped discard table; EV: musstats discard (stones of the hand with betting, "
                          "the others throwing by the table; the history is not read)"}
    if who != q:
        return {"kind": kind, "seat": SEATS[who], "lance": hist.lances[-1].lance if kind == "bet" else None,
                "actions": {}, "note": f"it is {SEATS[who]}'s turn, not yours"}
    if kind == "mus":
        from musstats.tables.policies import cut_flags

        from musstats.analysis.cut_game import EQUILIBRIUM_NOTE, cut_advice, ships
        from musstats.analysis.practice.values import mus_options

        if ships(v):  # the mus decision's equilibrium: the answer `musstats mus` gives
            e = cut_advice(h, q, v)
            return {"kind": "mus", "seat": SEATS[q], "lance": None,
                    "actions": {"mus": {"p": round(1.0 - e["p_cut"], 4), "ev": round(e["ev_ask"], 4), "se": None},
                                "corto": {"p": round(e["p_cut"], 4), "ev": round(e["ev_cut"], 4), "se": None}},
                    "best_reading": "mus" if e["ev_ask"] > e["ev_cut"] else "corto",
                    "difference": round(-e["cut_minus_ask"], 4), "difference_se": round(e["se"], 4),
                    "source": f"P and EV: the {EQUILIBRIUM_NOTE} (the calls so far are not read: you speak only "
                              "when everybody before you asked)"}
        cut = bool(cut_flags(v)[q, h])
        m = mus_options(_label(h, v), q)
        o = m["options"]
        return {"kind": "mus", "seat": SEATS[q], "lance": None,
                "actions": {"mus": {"p": 0.0 if cut else 1.0, "ev": o["mus"]["ev"], "se": None},
                            "corto": {"p": 1.0 if cut else 0.0, "ev": o["corto"]["ev"], "se": None}},
                "best_reading": "mus" if o["mus"]["ev"] > o["corto"]["ev"] else "corto",
                "difference": m["difference"], "difference_se": m["se"],
                "source": "P: the shipped cut flags (a rule, not an equilibrium); EV: musstats mus (stones of the "
                          "hand with betting on the deals in which the other three ask, where the choice matters; "
                          "the calls so far are not read)"}
    return _bet_decision(hist, q, h, final, w, v)


#: deals the decision's values are computed on at most (the weighted deals are thinned to them)
DECISION_DEALS = 100_000


def _heavy(w: np.ndarray) -> np.ndarray:
    """The deals without the lightest ones that together weigh under 0.1 % of the whole (deals
    the history all but rules out)."""
    ws = np.sort(w)
    cum = np.cumsum(ws)
    k = int(np.searchsorted(cum, 1e-3 * cum[-1], side="right"))
    return np.nonzero(w >= ws[min(k, ws.size - 1)])[0]


def _valuing(w: np.ndarray) -> np.ndarray:
    """The deals the decision is valued on (the :func:`_heavy` ones): if more than
    :data:`DECISION_DEALS`, that many of them drawn at random (their weights kept: an unbiased
    thinning)."""
    keep = np.nonzero(w > 0)[0]
    if keep.size > DECISION_DEALS:
        rng = np.random.default_rng(keep.size)
        keep = np.sort(rng.choice(keep, DECISION_DEALS, replace=False))
    return keep


#: the keep-sets shown at a discard decision (best first; the table's keep always)
DISCARD_SHOWN = 5


def _label(h: int, v: Variant) -> str:
    from musstats.tables.hands import hand_tables

    return hand_tables(v).labels[h]


def _bet_decision(hist: History, q: int, h: int, final: np.ndarray, w: np.ndarray, v: Variant) -> dict:
    from musstats._kernels.cfr import node_sums
    from musstats.analysis.betting import action_ev
    from musstats.engines.betting.store import STATE_SOURCE
    from musstats.engines.solving.game import chunk_bounds

    ln = hist.lances[-1]
    sol = _solved(ln.lance, ln.pattern, hist, v)
    game, sigma = sol.game, sol.sigma
    sel = _valuing(w)
    deals = np.ascontiguousarray(final[sel])
    ws = w[sel] / w[sel].sum()
    st, o, _ = _lance_states(sol, deals, hist, v, ln.lance)
    tree = game.tree
    k = int(game.seat_owner[q])
    max_act = int(np.asarray(tree.n_act).max())
    acc = node_sums(chunk_bounds(st.shape[0]), st, o, ws, sigma, game.kernel_args(), game.U, k, max_act).sum(axis=0)
    nd = tree.nodes[ln.node]
    own = game.strategy_at(sigma, ln.node, int(st[0, k]))
    acts: dict[str, dict[str, float | None]] = {}
    for a, label in enumerate(nd.actions):
        acts[label] = {"p": round(float(own[a]), 4), **action_ev(acc[ln.node][a])}
    valued: dict[str, float] = {a: float(x["ev"]) for a, x in acts.items() if x["ev"] is not None}
    return {"kind": "bet", "seat": SEATS[q], "lance": ln.lance, "history": list(ln.actions),
            "declared": pattern_text(ln.pattern) if ln.lance in ("pares", "juego") else None,
            "actions": acts, "best_reading": max(valued, key=lambda a: valued[a]) if valued else None,
            "units": "stones for your team in this lance, from here",
            "source": (f"P: {ln.lance} solved in this public state (who cut and the earlier lances' betting"
                       f"{', the pares declarations' if ln.lance == 'juego' else ''}), "
                       "every seat's range weighted by the history" if sol.source == STATE_SOURCE else
                       ("P: the equilibrium of the lance given who cut" if sol.game.info == "mus-read" else
                        "P: the shipped per-lance equilibrium") + " (it reads nothing of the earlier lances)")
                      + "; EV: over the deals the history weights, the others playing the same strategies on"}
