"""The whole hand as the table sees it, and what reading it is worth.

A hand of Mus is one sequence: the mus (from mano, each player asks for mus or cuts; if
all four ask, each discards and draws, the numbers of cards public), then grande, chica,
pares (after the declarations) and juego or punto, each bet in turn.  The shipped betting
strategies solve each lance on its own: a player's strategy in chica reads nothing of
what was bet in grande, of who cut, of how many cards each took.  This module plays whole
hands with those strategies (:func:`simulate`: the shipped cut flags and discard table,
then every lance by the strategies of its deal model -- as dealt after a cut, after the mus
when all four asked -- actions drawn) and records the public history; then measures what a
player, or a pair, gains by reading it (:func:`reading_gain`): in one lance, a best response
whose information is the player's hand *and* a class of the public history, against the
others playing the shipped strategies.  The response is chosen on one sample of hands and
valued on an independent one: a lower bound of what reading that history gains.

What a reader sees (``SOURCES``):

* ``"mus"`` -- who cut (mano, second, third or postre), or that all four asked and how many
  cards each of the other three took;
* ``"lances"`` -- for each earlier lance, who bet first and whether the bet was refused or
  seen (or that it went en paso);
* ``"declarations"`` -- in juego and punto, who declared pares;
* ``"all"`` -- all three at once.

Two sets of strategies (``STRATEGY_SETS``): ``"per-lance"``, the shipped ones, and
``"mus-read"``, where the hands played as dealt are bet by the strategies that read who cut
(information model ``mus-read``), the hands after a mus round by the shipped after-mus ones.
A class always carries what the set's strategies read of the mus (whether the round was
played; with ``"mus-read"`` also who cut); beyond ``MAX_CLASSES`` classes (or the cap a
measurement asks for: a reader's memory grows with them) the rarest merge into one.  Stones
per hand: an accepted órdago is worth ``K`` stones (the solver's payoff) and ends the hand.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from musstats.analysis.cut_game import CUT_RULES, cut_rule_flags
from musstats.base.errors import MusError
from musstats.engines.betting import deals as D
from musstats.engines.betting.store import SOLVED_LANCES, STATE_KEY
from musstats.engines.betting.tree import ACCEPTED, ORDAGO, PASO, REFUSED, BettingTree, betting_tree
from musstats.rules.variant import Variant

__all__ = ["Hands", "deal_hands", "simulate", "hand_scores", "SOURCES", "reading_classes", "reading_gain",
           "reading_table", "sources_of",
           "LANCE_ORDER", "lance_classes", "exploitability_document", "write_exploitability", "ship_document",
           "whole_hand_exploitability", "STRATEGY_SETS", "mus_class", "seat_total", "team_totals",
           "summed_figures", "state_columns"]

#: the lances in the order they are played (juego and punto exclude each other)
LANCE_ORDER = ("grande", "chica", "pares", "juego", "punto")
#: what a reader may read of the public history (module doc)
SOURCES = ("mus", "lances", "declarations", "all")
#: classes of one lance's betting: en paso; the first bettor's seat and whether the bet was refused or seen
N_LANCE_CLASSES = 9
#: the strategy sets whole hands are played with (module doc)
STRATEGY_SETS = ("per-lance", "mus-read")
#: the most classes a reader's history falls into (the mus bit included): beyond them the rarest
#: histories are read as one (juego and punto reading everything: some 40,000 occur)
MAX_CLASSES = 4096
#: the gates a seat's response is tried with, stones per hand: it changes the strategy only in the
#: states (hand, class) where it gains more than the gate on the hands that chose it; the gate is
#: the one whose responses, chosen on one half of those hands, gain most on the other half
GATES = (0.0, 1e-6, 3e-6, 1e-5, 3e-5, 1e-4, 3e-4, 1e-3)


@dataclass
class Hands:
    """Whole hands played by the shipped strategies (arrays over the hands).

    ``dealt``/``final``: hand indices [n, 4] as dealt and as played; ``mus``: whether the mus
    round was played (all four asked); ``cutter``: the seat that cut (-1: all asked);
    ``counts``: the cards each seat took in the round (0 without it); ``pares``/``juego``: the
    bit masks of the seats that hold them (the declarations); per lance ``pattern`` (the
    declaration pattern of the subgame it was bet in, -1: not bet), ``node`` (the terminal node
    of its tree, -1) and ``klass`` (:func:`lance_classes`, -1 where not bet); ``ended``: the
    lance whose accepted órdago ended the hand (-1: none)."""

    dealt: np.ndarray
    final: np.ndarray
    mus: np.ndarray
    cutter: np.ndarray
    counts: np.ndarray
    pares: np.ndarray
    juego: np.ndarray
    pattern: dict = field(default_factory=dict)
    node: dict = field(default_factory=dict)
    klass: dict = field(default_factory=dict)
    ended: np.ndarray | None = None

    @property
    def n(self) -> int:
        return int(self.final.shape[0])


def lance_classes(tree: BettingTree) -> np.ndarray:
    """Per node of ``tree`` (terminals are what matter): 0 en paso, ``1 + q`` the first bettor
    was seat ``q`` and the betting ended refused, ``5 + q`` it ended accepted (a bet, a raise or
    an órdago seen)."""
    out = np.zeros(tree.n_nodes, np.int64)
    for nd in tree.nodes:
        if not nd.is_terminal:
            continue
        kind = tree.terminals[nd.terminal].kind
        if kind == PASO:
            continue
        n = 0
        first = -1
        for act in nd.history:
            if act != "paso":
                first = tree.nodes[n].seat
                break
            n = tree.nodes[n].children[tree.nodes[n].actions.index(act)]
        out[nd.id] = (1 if kind == REFUSED else 5) + first
    return out


def _sample_nodes(game, sigma, st, u) -> np.ndarray:
    """Terminal node reached by each deal, actions drawn from ``sigma`` with the uniforms ``u``."""
    from musstats.analysis.play import sample_nodes

    return sample_nodes(game, sigma, st, u)


def state_columns(h: Hands, part: np.ndarray, lance: str, pattern: int) -> np.ndarray:
    """The public state of ``lance`` (subgame ``pattern``) of each of the hands ``part`` of ``h``,
    as dealt: int [len(part), fields], the fields of its store key
    (:data:`musstats.engines.betting.store.STATE_KEY`: who cut, the earlier lances' terminal
    nodes, -1 for chica's in a state of chica; in juego the pares declarations and pares' node,
    -1 where it was not bet)."""
    n = part.size
    col = {"pattern": np.full(n, pattern, np.int64), "cutter": h.cutter[part], "grande": h.node["grande"][part],
           "chica": h.node["chica"][part] if lance != "chica" else np.full(n, -1, np.int64)}
    if lance == "juego":
        col.update(pares=h.pares[part], pares_node=h.node["pares"][part])
    return np.stack([col[f] for f in STATE_KEY[lance]], 1)


def _in_states(nodes: np.ndarray, h: Hands, part: np.ndarray, lance: str, pattern: int, u: np.ndarray,
               v: Variant) -> None:
    """``lance`` (chica, pares or juego) of the hands as dealt ``part`` (subgame ``pattern``)
    played, where the public state (who cut, the earlier lances' nodes, in juego the pares
    declarations) has a shipped strategy, by that one: ``nodes`` redrawn there with the same
    uniforms ``u``."""
    from musstats.engines.betting.info import prepare

    for m, _, sol in _shipped_states(h, part, lance, pattern, v):
        st, _, _ = prepare(sol.game, h.final[part[m]], v, lance, None)
        nodes[m] = _sample_nodes(sol.game, sol.sigma, st, u[m])


def _shipped_states(h: Hands, part: np.ndarray, lance: str, pattern: int, v: Variant) -> list:
    """The hands as dealt ``part`` of ``h`` grouped by their public state of ``lance`` (subgame
    ``pattern``; the earlier lances' nodes ``h.node``), where the state has a shipped strategy:
    (positions in ``part``, the state's store key, its strategy)."""
    from musstats.engines.betting.store import get_state_solved, state_keys

    if lance not in SOLVED_LANCES or not part.size or not state_keys(v, lance):
        return []
    keys, inv = _state_groups(h, part, lance, pattern)
    out = []
    for j, key in enumerate(keys):
        sol = get_state_solved(v, key, lance)
        if sol is not None:
            out.append((np.nonzero(inv == j)[0], key, sol))
    return out


def _state_groups(h: Hands, part: np.ndarray, lance: str, pattern: int) -> tuple[list[tuple[int, ...]], np.ndarray]:
    """The public states of ``lance`` (subgame ``pattern``) that the hands ``part`` of ``h`` meet, as
    store keys, and each hand's index among them."""
    uniq, inv = np.unique(state_columns(h, part, lance, pattern), axis=0, return_inverse=True)
    return [tuple(int(x) for x in k) for k in uniq], inv.reshape(-1)


def outside_shipped(h: Hands, part: np.ndarray, lance: str, pattern: int, v: Variant) -> np.ndarray:
    """The hands of ``part`` (subgame ``pattern`` of ``lance``) that no strategy shipped for their
    public state bets: those after a mus round, and those as dealt whose state has none."""
    from musstats.engines.betting.store import state_keys

    keys = state_keys(v, lance) if lance in SOLVED_LANCES else {}
    dealt = part[~np.asarray(h.mus[part], bool)]
    if not keys or not dealt.size:
        return part
    met, inv = _state_groups(h, dealt, lance, pattern)
    ships = np.array([k in keys for k in met], bool)
    drop = np.zeros(h.n, bool)
    drop[dealt[ships[inv]]] = True
    return part[~drop[part]]


def _check_set(strategies: str) -> str:
    if strategies not in STRATEGY_SETS:
        raise MusError(f"unknown strategy set {strategies!r}; accepted: {', '.join(STRATEGY_SETS)}")
    return strategies


def _lance_strategy(lance: str, pattern: int, deal: str, strategies: str, v: Variant):
    """The strategy a set plays a subgame with, for the hands of a deal model."""
    from musstats.analysis.betting import played_strategy

    return played_strategy(lance, pattern, deal, v, read_cut=strategies == "mus-read")


def mus_class(h: Hands, strategies: str) -> tuple[np.ndarray, int]:
    """What a set's strategies read of the mus, per hand, and how many values it takes: whether
    the round was played (``"per-lance"``: 0 or 1), or the seat that cut and 4 for the round
    (``"mus-read"``)."""
    if _check_set(strategies) == "mus-read":
        return np.where(h.mus, 4, h.cutter).astype(np.int64), 5
    return h.mus.astype(np.int64), 2


def deal_hands(n: int, seed: int, variant: Variant | None = None, cut: np.ndarray | None = None) -> Hands:
    """``n`` hands dealt and through the mus phase with the shipped cut flags (or the flags
    ``cut``, bool [4, H], a row per seat) and discard table (seed ``seed``), before any lance is
    bet.  The same seed deals the same cards whatever the flags."""
    from musstats.engines.musphase import deals_after_mus
    from musstats.tables.policies import cut_flags, get_policy

    v = variant or Variant()
    flags = cut_flags(v) if cut is None else np.asarray(cut, bool)
    out = deals_after_mus(int(n), int(seed), v, rounds=1, cut=flags, with_dealt=True, key=(D.PLAY_KEY, 1))
    final, mus, dealt = np.ascontiguousarray(out[:, :4]), out[:, 4] > 0, np.ascontiguousarray(out[:, 5:9])
    pol, _ = get_policy("table", v)
    kept = np.array([[bin(int(x)).count("1") for x in row] for row in pol], np.int64)
    counts = np.where(mus[:, None], 4 - kept[np.arange(4)[None, :], dealt], 0)
    pm, jm = D.holder_masks(final, v)
    return Hands(dealt, final, mus, D.cutter(dealt, v, flags), counts, pm.astype(np.int64), jm.astype(np.int64))


def simulate(n: int, seed: int, variant: Variant | None = None, strategies: str = "per-lance",
             cuts: str = "flags") -> Hands:
    """Play ``n`` whole hands with the shipped cut flags (``cuts="equilibrium"``: the mus
    decision's equilibrium, each hand by its likelier choice), discard table and the betting
    strategies of a set (:data:`STRATEGY_SETS`; private information; after a cut the hands as
    dealt, after the mus when all four asked)."""
    from musstats.engines.betting.info import prepare

    _check_set(strategies)
    v = variant or Variant()
    h = deal_hands(n, seed, v, cut_rule_flags(cuts, v))
    rng = np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=(D.PLAY_KEY, 2)))
    ended = np.full(h.n, -1, np.int64)
    for li, (lance, o, played, subs) in enumerate(D.lance_parts(h.final, v)):
        pattern = np.full(h.n, -1, np.int64)
        node = np.full(h.n, -1, np.int64)
        klass = np.full(h.n, -1, np.int64)
        for pat, sel in subs:
            sel = sel[ended[sel] < 0]
            cls = lance_classes(betting_tree(lance, pat))
            for deal, part in (("as-dealt", sel[~h.mus[sel]]), ("after-mus", sel[h.mus[sel]])):
                if not part.size:
                    continue
                sol = _lance_strategy(lance, pat, deal, strategies, v)
                st, _, _ = prepare(sol.game, h.final[part], v, lance,
                                   h.cutter[part] if sol.game.info == "mus-read" else None)
                u = rng.random((part.size, 32))
                nodes = _sample_nodes(sol.game, sol.sigma, st, u)
                if lance in SOLVED_LANCES and deal == "as-dealt" and strategies == "mus-read":
                    _in_states(nodes, h, part, lance, pat, u, v)
                node[part], pattern[part], klass[part] = nodes, pat, cls[nodes]
                tree = sol.game.tree
                kinds = np.array([tree.terminals[tree.nodes[x].terminal].kind for x in range(tree.n_nodes)
                                  if tree.nodes[x].is_terminal])
                tn = np.cumsum(np.asarray(tree.is_term)) - 1
                ended[part[kinds[tn[nodes]] == ORDAGO]] = li
        h.pattern[lance], h.node[lance], h.klass[lance] = pattern, node, klass
    h.ended = ended
    return h


def reading_classes(h: Hands, lance: str, source: str, seat: int, strategies: str = "per-lance",
                    max_classes: int | None = None) -> tuple[np.ndarray, int]:
    """What ``seat`` reads of the public history before ``lance`` (``source``, module doc), as a
    class per hand (what the set's strategies read of the mus, :func:`mus_class`, in its lowest
    place) and the number of classes, at most ``max_classes`` (default :data:`MAX_CLASSES`)."""
    cap = MAX_CLASSES if max_classes is None else int(max_classes)
    if source not in SOURCES:
        raise MusError(f"unknown source {source!r}; accepted: {', '.join(SOURCES)}")
    base, B = mus_class(h, strategies)
    parts: list[tuple[np.ndarray, int]] = [(base, B)]  # read apart: the lowest place
    if source in ("mus", "all"):
        others = [q for q in range(4) if q != seat]
        code = np.where(h.cutter >= 0, h.cutter, 4 + sum((h.counts[:, q] - 1).clip(0) * 4 ** i
                                                          for i, q in enumerate(others)))
        parts.append((code.astype(np.int64), 4 + 64))
    if source in ("lances", "all"):
        for earlier in LANCE_ORDER[: LANCE_ORDER.index(lance)]:
            if earlier in ("juego", "punto"):
                continue
            parts.append((h.klass[earlier] + 1, N_LANCE_CLASSES + 1))  # 0: not bet
    if source in ("declarations", "all") and lance in ("juego", "punto"):
        parts.append((h.pares, 16))
    code = np.zeros(h.n, np.int64)
    size = 1
    for x, k in parts[1:]:
        code = code + size * x
        size *= k
    # keep only the classes that occur (a reader's states are his hand times these), what the
    # strategies read of the mus in the lowest place; beyond the cap the rarest merge into one
    uniq, inv, cnt = np.unique(code, return_inverse=True, return_counts=True)
    inv = inv.astype(np.int64)
    if B * uniq.shape[0] > cap:
        keep = cap // B - 1
        rank = np.empty(uniq.shape[0], np.int64)
        rank[np.argsort(-cnt, kind="stable")] = np.arange(uniq.shape[0])
        inv = np.minimum(rank[inv], keep)
        return base + B * inv, B * (keep + 1)
    return base + B * inv, B * int(uniq.shape[0])


def _augmented(lance: str, pattern: int, readers: tuple[int, ...], n_classes: int, v: Variant,
               strategies: str = "per-lance", dealt: np.ndarray | None = None):
    """The game of one subgame in which the seats of ``readers`` hold (hand, class) and the
    others (hand, what the set's strategies read of the mus: :func:`mus_class`), with every
    seat's strategy of the set in it (readers: the same for every class of a hand and mus
    class).  ``dealt``: the profile the hands as dealt are bet by instead of the set's (one plan
    of a pair's correlated plans)."""
    from musstats.engines.solving.game import make_custom_game
    from musstats.tables.hands import hand_tables

    H = hand_tables(v).n_hands
    sols = [_lance_strategy(lance, pattern, deal, strategies, v) for deal in ("as-dealt", "after-mus")]
    B = 5 if strategies == "mus-read" else 2
    g0 = sols[1].game
    t = g0.tree
    ns = [H * n_classes if q in readers else B * H for q in range(4)]
    game = make_custom_game({"is_term": t.is_term, "first": t.first, "n_act": t.n_act, "term": t.term,
                             "owner": g0.owner}, g0.U, [0, 1, 0, 1], ns)
    game.tree = t  # the lance's tree (its actions' names)
    sigma = game.uniform()
    for q in range(4):
        k = int(g0.seat_owner[q])
        stride = int(g0.stride[k])
        full = [x[int(s.game.obase[k]): int(s.game.obase[k]) + int(s.game.n_states[k]) * stride].reshape(
            int(s.game.n_states[k]), stride) for s, x in zip(sols, (sols[0].sigma if dealt is None else dealt,
                                                                      sols[1].sigma))]
        if B == 5:  # the cut strategies' state is hand * 4 + the seat that cut
            blocks = [full[0].reshape(H, 4, stride)[:, m] for m in range(4)] + [full[1]]
        else:
            blocks = full
        if q in readers:
            # state hand * n_classes + class; the class's lowest place: the mus class
            rows = np.empty((H, n_classes, stride))
            for c in range(n_classes):
                rows[:, c] = blocks[c % B]
            mine = rows.reshape(-1)
        else:
            mine = np.concatenate(blocks).reshape(-1)
        sigma[int(game.obase[k]): int(game.obase[k]) + mine.shape[0]] = mine  # private: owner k is seat q
    return game, sigma


def reading_gain(lance: str, source: str, a: Hands, b: Hands, *, team: int | None = None, seat: int | None = None,
                 variant: Variant | None = None, strategies: str = "per-lance", max_classes: int | None = None
                 ) -> dict:
    """What reading ``source`` in ``lance`` is worth, in stones per hand: for ``seat`` (one
    player) or ``team`` (its two players reading together, each still seeing only his own
    hand: the team deviation), the best response over (hand, class of the public history)
    against the others' shipped strategies, chosen on the hands ``a`` and valued on the
    independent hands ``b`` (both played with the set ``strategies``), summed over the lance's
    subgames: ``{"gain", "gain_se", "gain_in", "hands", "gate"}``.

    A seat's response is sparing: it changes the strategy only in the states where it gains more
    than a gate on ``a`` (:func:`musstats.engines.solving.exploit.sparing_block`; a reader's
    states are his hands times up to ``max_classes`` classes (default :data:`MAX_CLASSES`; the
    memory a response takes grows with them), and in the many that few hands
    reach a response learns the sample's noise).  The gate (of :data:`GATES`, one for the lance)
    is chosen on ``a`` alone: responses chosen on one half of its hands, valued on the other.
    ``b`` values the chosen gate's response once, so ``gain`` stays an unbiased value of one
    response: a lower bound.  A pair's response is the team deviation's (``gate`` None).  With
    the set ``"mus-read"``, the hands that a strategy shipped for their public state bets
    (:func:`outside_shipped`) are left out: the augmented game holds the set's strategies given
    who cut, and those hands are measured through the exact history
    (:mod:`musstats.analysis.public_states`)."""
    from musstats.engines.solving.dealt import DealGame
    from musstats.engines.solving.exploit import paired_gains, sparing_block, state_gains, team_deviation
    from musstats.engines.solving.game import Sample
    from musstats.tables.hands import hand_tables

    v = variant or Variant()
    H = hand_tables(v).n_hands
    if (team is None) == (seat is None):
        raise MusError("give a seat or a team")
    readers: tuple[int, ...] = (int(seat),) if seat is not None else (int(team or 0), int(team or 0) + 2)
    gain = gain_in = var = 0.0
    # a seat's sparing responses, per subgame: its share of the hands and per gate the (gain, se)
    # on the tuning halves, and on the valuing then the choosing hands
    shares: list[float] = []
    tuning: list[list] = []
    valued: list[list] = []
    for pat in sorted(set(np.unique(a.pattern[lance])) - {-1}):
        sel = [np.nonzero(x.pattern[lance] == pat)[0] for x in (a, b)]
        if strategies == "mus-read":
            sel = [outside_shipped(x, s, lance, int(pat), v) for x, s in zip((a, b), sel)]
        if min(s.size for s in sel) < 100:
            continue
        # the classes of both samples on one scale
        cat = {f: np.concatenate([getattr(a, f)[sel[0]], getattr(b, f)[sel[1]]])
               for f in ("dealt", "final", "mus", "cutter", "counts", "pares", "juego")}
        both = Hands(cat["dealt"], cat["final"], cat["mus"], cat["cutter"], cat["counts"], cat["pares"], cat["juego"],
                     klass={k: np.concatenate([a.klass[k][sel[0]], b.klass[k][sel[1]]]) for k in a.klass})
        cls = {}
        nc = 1
        for q in readers:
            cls[q], n_q = reading_classes(both, lance, source, q, strategies, max_classes)
            nc = max(nc, n_q)
        game, sigma = _augmented(lance, int(pat), readers, nc, v, strategies)
        data = []
        for i, (x, s) in enumerate(((a, sel[0]), (b, sel[1]))):
            st, o = _states(game, x, s, v, lance, strategies)
            off = 0 if i == 0 else sel[0].size
            for q in readers:  # private: owner q is seat q
                st[:, q] = x.final[s, q] * nc + cls[q][off: off + s.size]
            w = np.full(s.size, 1.0 / s.size)
            data.append((st, o, w))
        dg = DealGame(game, data[0], choose=data[0], evaluate=data[1], chunks=4)
        SIG = dg.layout.from_game(sigma)
        share = sel[1].size / b.n  # the subgame's share of the hands
        if seat is not None:
            k = int(seat)
            # each gate's response chosen on one half of the choosing hands, valued on the other
            st_a, o_a, _ = data[0]
            halves = [(st_a[p], o_a[p], np.full(p.shape[0], 1.0 / p.shape[0]))
                      for p in np.array_split(np.arange(sel[0].size), 2)]
            on_a = sel[0].size / a.n
            own = dg.layout.owner_rows(SIG, k)  # the strategy's block, kept where a response does not gain enough
            for smp, acc, samples in ((dg.on_samples(halves[0], halves[1]), tuning, (Sample("eval"),)),
                                      (dg, valued, (Sample("eval"), Sample("choose")))):
                br, gains = state_gains(smp, k, SIG, Sample("choose"))
                blocks = (sparing_block(br, own, gains, gate / on_a) for gate in GATES)
                acc.append(paired_gains(smp, k, SIG, blocks, samples))
                del br, gains  # before the next response's (a reader's block can take gigabytes)
            shares.append(share)
            continue
        r = team_deviation(dg, SIG, int(team or 0))
        gain += share * r.gain
        gain_in += share * r.gain_in
        var += (share * r.gain_se) ** 2
    gate = None
    if shares:  # the gate whose responses gain most on the tuning halves, summed over the subgames
        i = int(np.argmax([sum(sh * t[j][0][0] for sh, t in zip(shares, tuning)) for j in range(len(GATES))]))
        gate = GATES[i]
        gain = sum(sh * g[i][0][0] for sh, g in zip(shares, valued))
        var = sum((sh * g[i][0][1]) ** 2 for sh, g in zip(shares, valued))
        gain_in = sum(sh * g[i][1][0] for sh, g in zip(shares, valued))
    return {"gain": gain, "gain_se": float(np.sqrt(var)), "gain_in": gain_in, "hands": int(b.n), "H": H,
            "gate": gate}


def _states(game, h: Hands, sel: np.ndarray, v: Variant, lance: str, strategies: str = "per-lance"):
    """Owner states (hand + H x the mus class, :func:`mus_class`) and outcome codes of the hands
    ``sel``."""
    from musstats.engines.betting.info import prepare
    from musstats.tables.hands import hand_tables

    H = hand_tables(v).n_hands
    st, o, _ = prepare(game, h.final[sel], v, lance)
    st = st.astype(np.int64) + H * mus_class(h, strategies)[0][sel, None]
    return np.ascontiguousarray(st.astype(np.int32)), o


def hand_scores(h: Hands, a: str, b: str, variant: Variant | None = None, seed: int = 0,
                per_state: bool = True) -> np.ndarray:
    """Per hand of ``h`` (its mus phase; the lances bet by the strategy sets), team 0's expected
    stones summed over the lances bet, with the set ``a`` at mano and third and ``b`` at second
    and postre (column 0), then the other way round (column 1): float [n, 2].  Each lance is
    exact over the players' randomisation given the public state it is bet in: where the set
    ``musstats hand`` plays (``"mus-read"``) has a strategy solved for that state (chica,
    pares, juego as dealt), its seats bet by it (unless ``per_state`` is false), and the earlier
    lances' betting that decides the state is drawn (seed ``seed``) from the seating's
    strategies, so that the sum is an unbiased value of the whole hand.  An accepted órdago
    counts its ``K`` stones and the later lances are still counted (as in the arena); lances
    that are not bet give both seatings the same.  Where shipped correlated plans are played,
    the per-lance set bets the hands as dealt by them (each pair that plays plans drawing its
    own, by their weights; a lone holder by his strategy against the pair's plans)."""
    from musstats.analysis.betting import played_profiles
    from musstats.engines.betting.store import state_keys
    from musstats.engines.solving.dealt import MixedValues
    from musstats.engines.solving.game import make_custom_game

    v = variant or Variant()
    _check_set(a)
    _check_set(b)
    out = np.zeros((h.n, 2))
    reads = per_state and "mus-read" in (a, b) and any(state_keys(v, x) for x in SOLVED_LANCES)
    rng = np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=(D.PLAY_KEY, 3)))
    # per seating, the terminal node each earlier lance reached (drawn): the public states of the later ones
    seen: list[dict] = [{}, {}]
    for lance, _, _, subs in D.lance_parts(h.final, v):
        if reads:
            for col in (0, 1):
                seen[col][lance] = np.full(h.n, -1, np.int64)
        for pat, sel in subs:
            sets = {x: _augmented(lance, int(pat), (), 1, v, x) for x in {a, b}}
            states = {x: _states(g, h, sel, v, lance, x) for x, (g, _) in sets.items()}
            # the hands as dealt are bet by the shipped correlated plans, as the per-lance equilibrium plays them:
            # the per-lance set's strategy in the augmented game under the profile and under each plan, made once
            dealt, mix = played_profiles(_lance_strategy(lance, int(pat), "as-dealt", "per-lance", v))
            lifts: dict = {}
            if "per-lance" in sets:
                def lift(profile: np.ndarray) -> np.ndarray:
                    return _augmented(lance, int(pat), (), 1, v, "per-lance", profile)[1]

                lifts = {"dealt": lift(dealt), **{tm: [lift(P) for P in plans] for tm, (plans, _) in mix.items()}}
            g0 = sets[a][0]
            t = g0.tree
            o = states[a][1]
            # the lances a later state reads are drawn, with the same uniforms for both seatings (a set against
            # itself draws the same states)
            read_later = LANCE_ORDER.index(lance) < LANCE_ORDER.index(SOLVED_LANCES[-1])
            u = rng.random((sel.size, 33)) if reads and read_later else None
            for col, first in enumerate((a, b)):
                plays = [first if q % 2 == 0 else (b if first == a else a) for q in range(4)]
                game = make_custom_game({"is_term": t.is_term, "first": t.first, "n_act": t.n_act, "term": t.term,
                                         "owner": g0.owner}, g0.U, [0, 1, 0, 1],
                                        [int(sets[x][0].n_states[q]) for q, x in enumerate(plays)])
                st = np.stack([states[x][0][:, q] for q, x in enumerate(plays)], axis=1).astype(np.int32)

                def seated(per_lance: np.ndarray | None) -> np.ndarray:
                    """The seats' profile, the per-lance set's seats playing ``per_lance``."""
                    sigma = game.uniform()
                    for q, x in enumerate(plays):  # private: owner q is seat q
                        gx, sx = sets[x]
                        if x == "per-lance":
                            sx = per_lance
                        n = int(gx.n_states[q]) * int(gx.stride[q])
                        sigma[int(game.obase[q]): int(game.obase[q]) + n] = sx[int(gx.obase[q]): int(gx.obase[q]) + n]
                    return sigma

                # the teams whose seats play the per-lance set draw their plans (each team apart)
                mixtures = {tm: (np.stack([seated(x) for x in lifts[tm]]), w) for tm, (_, w) in mix.items()
                            if plays[tm] == "per-lance"}
                base = seated(lifts.get("dealt"))
                values = MixedValues(game, base, mixtures)
                # the hands as dealt in a public state whose strategy ships: its readers' seats play it
                groups = _state_profiles(h, sel, seen[col], lance, int(pat), plays, game, base, v) if reads else []
                rest = np.ones(sel.size, bool)
                for pos, _ in groups:
                    rest[pos] = False
                vals = np.empty(sel.size)
                vals[rest] = values(st[rest], o[rest])
                for pos, sigma in groups:
                    vals[pos] = values.playing(sigma)(st[pos], o[pos])
                out[sel, col] += vals
                if u is not None:
                    seen[col][lance][sel] = _drawn(game, st, base, groups, mixtures, u)
    return out


def _state_profiles(h: Hands, sel: np.ndarray, seen: dict, lance: str, pattern: int, plays: list, game,
                    base: np.ndarray, v: Variant) -> list:
    """(positions in ``sel``, the seats' profile) of the hands as dealt of ``sel`` whose public
    state (the earlier lances' nodes ``seen``) has a shipped strategy of ``lance``: the seats of
    the set ``musstats hand`` plays bet by it (in the block of the seat that cut), the others
    as in ``base``."""
    from dataclasses import replace

    from musstats.tables.hands import hand_tables

    dealt = np.nonzero(~h.mus[sel])[0]
    H = hand_tables(v).n_hands
    out = []
    for m, key, sol in _shipped_states(replace(h, node=seen), sel[dealt], lance, pattern, v):
        c, g = key[STATE_KEY[lance].index("cutter")], sol.game
        sigma = base.copy()
        for q, x in enumerate(plays):
            if x != "mus-read":
                continue
            kk = int(g.seat_owner[q])
            stride = int(game.stride[q])
            assert int(g.stride[kk]) == stride and int(g.n_states[kk]) == H, "a state's game must be the subgame's"
            lo = int(game.obase[q]) + c * H * stride  # the block of the hands cut by seat c (hand + H x cutter)
            own = np.asarray(sol.sigma, np.float64)[int(g.obase[kk]): int(g.obase[kk]) + H * stride]
            sigma[lo: lo + H * stride] = own
        out.append((dealt[m], sigma))
    return out


def _drawn(game, st: np.ndarray, base: np.ndarray, groups: list, mixtures: dict, u: np.ndarray) -> np.ndarray:
    """The terminal node each deal reaches, actions drawn with the uniforms ``u`` [n, 33] (the
    last one draws the plan): the seats of a team in ``mixtures`` by one of its profiles drawn
    by the weights per deal, the others by ``base`` or, in a group of ``groups``, its profile."""
    n = st.shape[0]
    prof = np.full(n, -1, np.int64)  # -1: base, else the group
    for i, (pos, _) in enumerate(groups):
        prof[pos] = i
    plan = np.zeros(n, np.int64)
    assert len(mixtures) <= 1, "a set that reads the public states plays at one of the two teams"
    tm = next(iter(mixtures), None)
    if tm is not None:
        w = np.asarray(mixtures[tm][1], np.float64)
        plan = np.minimum(np.searchsorted(np.cumsum(w) / w.sum(), u[:, -1], side="right"), w.size - 1)
    nodes = np.empty(n, np.int64)
    for key in set(zip(prof.tolist(), plan.tolist())):
        m = np.nonzero((prof == key[0]) & (plan == key[1]))[0]
        sigma = base if key[0] < 0 else groups[key[0]][1]
        if tm is not None:  # the mixed team's seats by the plan drawn
            sigma = sigma.copy()
            P = mixtures[tm][0][key[1]]
            for q in range(4):
                if int(game.team[q]) == tm:
                    lo, hi = int(game.obase[q]), int(game.obase[q]) + int(game.n_states[q]) * int(game.stride[q])
                    sigma[lo:hi] = P[lo:hi]
        nodes[m] = _sample_nodes(game, sigma, st[m], u[m, :-1])
    return nodes


def _inputs_digest(v: Variant, code: bool = True, states: bool | tuple[str, ...] = True) -> str:
    """A hash of what the simulated hands are played with: the shipped betting strategies and
    pairs' correlated plans, the mus decision's equilibrium, the discard table (with its cut
    flags), the strategies solved per public state (``states``: all, or those of the lances
    named), and with ``code`` the solving sources; a file counts by its arrays, not by how it is
    compressed."""
    import hashlib

    from musstats.base.files import DATA_DIR, data_file, read_npz
    from musstats.engines.solving.store import source_digest

    h = hashlib.sha256(source_digest().encode() if code else b"data")
    shipped = [p for stem in ("betting", "plans")
               for p in sorted(DATA_DIR.glob(f"{stem}_{v.deck}_{v.juego_real}_*.npz"))]
    lances = SOLVED_LANCES if states is True else tuple(states or ())
    more = [data_file(stem, v) for stem in ("discard", "cut_equilibrium") + tuple(f"{x}_states" for x in lances)]
    for p in shipped + more:
        z = read_npz(p) if p.is_file() else None
        if z is not None:  # the arrays, not the file's bytes: how a file is compressed does not count
            h.update(p.name.encode())
            for name in sorted(z):
                a = np.ascontiguousarray(z[name])
                h.update(f"{name}:{a.dtype.str}:{a.shape}".encode())
                h.update(a.tobytes())
    return h.hexdigest()[:16]


def sources_of(lance: str) -> tuple[str, ...]:
    """The sources a reader can read before ``lance``."""
    if lance == "grande":
        return ("mus",)
    if lance in ("juego", "punto"):
        return SOURCES
    return ("mus", "lances", "all")


def reading_table(n: int = 2_000_000, seed: int = 1, *, variant: Variant | None = None, teams: bool = True,
                  progress=None, strategies: str = "per-lance", sources: tuple[str, ...] = SOURCES,
                  team_lances: tuple[str, ...] = LANCE_ORDER, cuts: str = "flags",
                  lances: tuple[str, ...] = LANCE_ORDER, max_classes: int = MAX_CLASSES):
    """What reading the public history is worth against a set of strategies, in
    stones per hand: one row per lance, source and reader (each seat, and with ``teams`` each
    pair reading together in ``team_lances``; without, the pairs' rows the disk cache holds),
    the gain chosen on ``n`` hands and valued on ``n`` independent ones (``gain`` ± ``gain_se``:
    a lower bound) and in sample (``gain_in``, biased up).  The hands are played by :func:`simulate` (seeds
    ``seed`` and ``seed + 1``) with the set ``strategies`` and the cut rule ``cuts``
    (:data:`musstats.analysis.cut_game.CUT_RULES`); ``sources`` and ``lances``: the sources and lances
    measured; ``max_classes``: the most classes a reader's history is read in (:func:`reading_classes`;
    each row says it in ``classes``)."""
    import pandas as pd

    from musstats.rules.labels import SEATS
    from musstats.tables.policies import flags_digest

    from musstats.engines import cache

    v = variant or Variant()
    _check_set(strategies)
    a, b = simulate(n, seed, v, strategies, cuts), simulate(n, seed + 1, v, strategies, cuts)
    jobs = [(lance, src, who) for lance in LANCE_ORDER if lance in lances
            for src in sources_of(lance) if src in sources
            for who in [("seat", q) for q in range(4)] + [("team", t) for t in (0, 1)]]
    rows = []
    inputs = _inputs_digest(v) + ("" if strategies == "per-lance" else f"-{strategies}") + \
        ("" if cuts == "flags" else f"-cuts-{cuts}-{flags_digest(cut_rule_flags(cuts, v))}")
    for i, (lance, src, (kind, x)) in enumerate(jobs):
        # each row is kept in the disk cache as soon as it is measured: a run that stops resumes
        path = cache.entry_path("whole-hand-reading", n, seed, v.name, lance, src, kind, x, inputs,
                                *(("sparing",) + GATES if kind == "seat" else ()),
                                *(("classes", max_classes) if max_classes != MAX_CLASSES else ()),
                                *(("outside-shipped",) if strategies == "mus-read" and lance in SOLVED_LANCES else ()))
        z = cache.load(path)
        if z is None and kind == "team" and not (teams and lance in team_lances):
            continue
        if z is None:
            r = reading_gain(lance, src, a, b, variant=v, seat=x if kind == "seat" else None,
                             team=x if kind == "team" else None, strategies=strategies, max_classes=max_classes)
            cache.save(path, True, gain=np.asarray(r["gain"], float), gain_se=np.asarray(r["gain_se"], float),
                       gain_in=np.asarray(r["gain_in"], float),
                       gate=np.asarray(np.nan if r["gate"] is None else r["gate"], float))
        else:
            r = {k: float(z[k]) if k in z else None for k in ("gain", "gain_se", "gain_in", "gate")}
        gate = None if r["gate"] is None or np.isnan(r["gate"]) else float(r["gate"])
        rows.append({"lance": lance, "source": src,
                     "reader": SEATS[x] if kind == "seat" else ("mano+third", "second+postre")[x], "kind": kind,
                     "gain": r["gain"], "gain_se": r["gain_se"], "gain_in": r["gain_in"], "gate": gate,
                     "classes": max_classes})
        if progress is not None:
            progress(i + 1, len(jobs))
    df = pd.DataFrame(rows)
    df.attrs.update({"hands": n, "seed": seed, "variant": v.name, "units": "stones per hand", "strategies": strategies,
                     "cuts": cuts,
                     "mus_share": float(np.mean(a.mus)), "ordago_ended": float(np.mean(np.asarray(a.ended) >= 0)),
                     "method": "per lance, a best response over (hand, class of the public history read) against "
                               + ("the shipped per-lance strategies" if strategies == "per-lance" else
                                  "the strategies that read who cut (hands as dealt) and the shipped after-mus ones")
                               + ", chosen on one sample of whole hands and valued on "
                               "an independent one (gain: a lower bound) and in sample (gain_in); a seat's "
                               "response changes the strategy only in the states where it gains more than a gate "
                               "(stones per hand) on the choosing hands, the gate chosen on halves of them"
                               + ("" if strategies == "per-lance" else
                                  "; in chica, pares and juego the hands that a strategy shipped for their public "
                                  "state bets are left to the exact history's rows")})
    return df


def _data_path(v: Variant):
    from musstats.base.files import data_file

    return data_file("whole_hand", v, ext="json")


#: what the shipped whole-hand figures are of, per strategy set
SET_TEXT = {"per-lance": "the per-lance strategies, cut flags and discard table",
            "mus-read": "the strategies musstats hand bets by: those that read who cut for the hands played as "
                        "dealt, the after-mus ones after a mus round; the shipped cut flags and discard table"}
#: what a set plays when the mus decision's equilibrium cuts (a cut rule of :data:`musstats.analysis.cut_game.CUT_RULES`)
CUTS_TEXT = {"per-lance": "the per-lance strategies, the mus decision's equilibrium and the discard table",
             "mus-read": "the strategies musstats hand bets by: those that read who cut for the hands played as "
                         "dealt, the after-mus ones after a mus round; the mus decision's equilibrium (each hand by "
                         "its likelier choice) and the discard table"}


def _floored(rows):
    """A row's lower bound counted at max(gain, 0) (column ``floor``)."""
    return rows.assign(floor=rows.gain.clip(lower=0.0))


def _best(rows):
    """Per lance and reader, the row of the source that gains most."""
    if not len(rows):
        return rows
    return rows.loc[rows.groupby(["lance", "reader"]).floor.idxmax()]


def _total(rows) -> tuple[float, float]:
    se = np.where(rows.gain > 0, rows.gain_se, 0.0)  # a row at the floor adds no error
    return round(float(rows.floor.sum()), 4), round(float(np.sqrt((se ** 2).sum())), 4)


def seat_total(rows) -> tuple[float, float]:
    """The whole-hand NashConv of a table of rows (a DataFrame with ``lance``, ``source``,
    ``reader``, ``kind``, ``gain``, ``gain_se``): per lance and seat the source whose response
    gains most, at max(gain, 0), summed; ± SE."""
    d = _floored(rows)
    return _total(_best(d[d.kind == "seat"]))


def team_totals(rows) -> tuple[list, list, list]:
    """Per pair (mano+third, second+postre) of a table of rows (as :func:`seat_total`'s): the
    pair's rows (``kind`` team), per lance the source whose response gains most, at max(gain,
    0), summed; its SE; the lances with a row of that pair (None and [] where it has none)."""
    d = _floored(rows)
    team, team_se, team_lances = [], [], []
    for who in ("mano+third", "second+postre"):
        r = _best(d[(d.kind == "team") & (d.reader == who)])
        g, se = _total(r) if len(r) else (None, None)
        team.append(g)
        team_se.append(se)
        team_lances.append([x for x in LANCE_ORDER if len(r) and (r.lance == x).any()])
    return team, team_se, team_lances


def exploitability_document(df, baseline=None) -> dict:
    """The whole-hand figures of a :func:`reading_table` (stones per hand); ``baseline``: the
    table of the per-lance strategies on the same hands (default: ``df`` itself), whose
    NashConv is ``baseline_nashconv``.  A reader's true gain
    is never negative (his best response can ignore what he reads), so each row's lower bound
    counts as ``max(gain, 0)``; per lance and reader the source whose response gains most on
    the valuing sample is kept (picking the largest of a few estimates adds about one standard
    error).  ``nashconv``: the sum over the four seats and the lances; ``team_gain``: per pair
    the same for the pair reading together, over the lances ``team_lances`` whose pairs' rows
    were measured; each ± SE; ``by_source``: per source the sum over the seats and lances;
    ``rows``: the table."""
    a = df.attrs
    figures = summed_figures(df)
    base, base_se = (figures["nashconv"], figures["nashconv_se"]) if baseline is None else seat_total(baseline)
    return {"variant": a.get("variant"), "units": "stones per hand", "hands": a.get("hands"), "seed": a.get("seed"),
            "strategies": (CUTS_TEXT if a.get("cuts") == "equilibrium" else SET_TEXT)[a.get("strategies", "per-lance")],
            "cuts": a.get("cuts", "flags"),
            "baseline": SET_TEXT["per-lance"],
            "method": a.get("method"),
            **figures,
            "baseline_nashconv": base, "baseline_nashconv_se": base_se,
            "by_source": _by_source(df), "mus_share": a.get("mus_share"), "ordago_ended": a.get("ordago_ended"),
            "rows": [{k: _row_value(k, x) for k, x in r.items()} for r in df.to_dict("records")]}


def summed_figures(rows) -> dict:
    """The sums of a table of rows (as :func:`seat_total`'s): ``nashconv`` ± ``nashconv_se``
    (:func:`seat_total`), ``team_gain`` ± ``team_gain_se`` and ``team_lances``
    (:func:`team_totals`)."""
    nash, nash_se = seat_total(rows)
    team, team_se, team_lances = team_totals(rows)
    return {"nashconv": nash, "nashconv_se": nash_se, "team_gain": team, "team_gain_se": team_se,
            "team_lances": team_lances}


def _by_source(rows) -> dict:
    """Per source, the seats' rows (at max(gain, 0)) summed over the seats and lances, ± SE."""
    import pandas as pd

    d = _floored(rows)
    return {src: dict(zip(("gain", "gain_se"), _total(pd.DataFrame(r))))
            for src, r in d[d.kind == "seat"].groupby("source")}


def with_rows(doc: dict, df) -> dict:
    """The shipped whole-hand document (:func:`exploitability_document`) with the rows of ``df`` (a
    :func:`reading_table` on the same hands and seed: some lances or sources measured again) in place of
    its rows of the same lance, source and reader, and its figures again; the baseline stays."""
    import pandas as pd

    if (df.attrs.get("hands"), df.attrs.get("seed")) != (doc.get("hands"), doc.get("seed")):
        raise MusError(f"the rows were measured on {df.attrs.get('hands')} hands of seed {df.attrs.get('seed')}, the "
                       f"document on {doc.get('hands')} of seed {doc.get('seed')}")

    def ident(r):
        return r["lance"], r["source"], r["reader"]

    new = {ident(r): r for r in ({k: _row_value(k, x) for k, x in r.items()} for r in df.to_dict("records"))}
    rows = [new.pop(ident(r), r) for r in doc["rows"]]
    rows += list(new.values())
    t = pd.DataFrame(rows)
    return {**doc, **summed_figures(t), "by_source": _by_source(t), "rows": rows,
            "method": df.attrs.get("method", doc.get("method"))}


def _row_value(key: str, x):
    """A row's value as the document keeps it: gains to 4 decimals, a gate as it is, a missing
    gate (a pair's row) None."""
    if not isinstance(x, float):
        return x
    if key == "gate":
        return None if np.isnan(x) else x
    return round(x, 4)


def write_exploitability(df, baseline=None, variant: Variant | None = None):
    """Ship :func:`exploitability_document` of ``df`` and ``baseline`` (atomically) for
    ``musstats hand --exploitability``."""
    return ship_document(exploitability_document(df, baseline), variant)


def ship_document(doc: dict, variant: Variant | None = None):
    """Write a whole-hand document as the shipped figures of ``variant`` (atomically): its path."""
    import json

    from musstats.base.files import atomic_write_text

    path = _data_path(variant or Variant())
    atomic_write_text(path, json.dumps(doc, ensure_ascii=False, indent=1) + "\n")
    return path


def whole_hand_exploitability(variant: Variant | str | None = None) -> dict:
    """The shipped whole-hand figures of the variant (:func:`exploitability_document`); MusError
    where none ships."""
    import json

    from musstats.analysis.betting import _variant

    v = _variant(variant or "8-reyes", "off")
    path = _data_path(v)
    if not path.exists():
        raise MusError(f"no whole-hand measurement ships for {v.name} (scripts/measure_whole_hand.py --ship "
                       "builds it)")
    return json.loads(path.read_text(encoding="utf-8"))
