"""A lance after the exact public history (chica, pares, juego): each public state measured (and
solved again) with every seat's range weighted by what the table saw.

A lance is bet after the mus and the earlier lances' betting.  With private strategies, the
probability of the public history given the four hands is a product over the seats of each
one's own probabilities of his actions on it: for a hand cut by seat ``c``, the seats before
``c`` asked for mus and ``c`` cut (the set's cut rule), and each seat's own reach of the earlier
lances' terminal nodes (the set's strategies for that cut, or the strategy of that lance's own
public state where one ships); a declaration is a fact of the hand (1 where it matches, 0 where
not).  So a lance in a *public state* -- who cut, the earlier lances' exact betting, the
declarations (:data:`STATE_LANCES`) -- is its subgame with each seat's range multiplied by his
factor, card removal still exact (:meth:`musstats.engines.betting.vector.VectorGame.configure`,
``range_weights``).  Solved and measured by public chance sampling as the lances are:

* :func:`state_exploitability` -- what each seat's best response gains against a strategy in one
  public state: exact over the enumerated seat's hands, chosen on one sample of the others'
  hands and valued on an independent one (a lower bound), stones per hand *in that state*;
* :func:`measure_states` -- the states of a subgame met in simulated whole hands, the most
  frequent first, each with its share of all hands: summed, share x gain is what a seat that
  reads the exact history gains in the lance against the set's strategies, stones per hand (a
  lower bound: the states not measured and the hands after a mus round count zero);
* :func:`resolve_state` -- the subgame of one public state solved (DCFR) with those ranges.

Hands as dealt only (the vector game deals from the full deck); after a mus round the deal law
is the discards', which this game does not carry.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from musstats.analysis import whole_hand as W
from musstats.base.errors import MusError
from musstats.rules.variant import Variant

__all__ = ["PublicState", "cut_rule", "public_states", "range_weights", "state_strategy", "state_exploitability",
           "resolve_state", "measure_states", "summary", "with_exact_history", "history_blocks", "PRIOR_LANCES",
           "PAIRS", "STATE_LANCES", "STATE_TEXT", "SOURCE"]

#: the lances bet before pares whose betting a public state holds
PRIOR_LANCES = ("grande", "chica")
#: the lances a public state is measured in, and the lances bet before each whose betting it holds
STATE_LANCES = {"chica": ("grande",), "pares": PRIOR_LANCES, "juego": ("grande", "chica", "pares")}


@dataclass(frozen=True)
class PublicState:
    """What the table saw before a lance in a hand as dealt: the declaration ``pattern`` of the
    lance's subgame (15 in chica), the seat that cut (``cutter``) and the terminal node of each
    earlier lance's tree (grande's; chica's before pares and juego, -1 in a state of chica); in
    juego also the pares declarations (``pares``, bit q: seat q held pares) and pares' terminal
    node (``pares_node``, -1 where pares was not bet)."""

    pattern: int
    cutter: int
    grande: int
    chica: int = -1
    lance: str = "pares"
    pares: int = -1
    pares_node: int = -1

    def nodes(self) -> tuple[int, ...]:
        """The terminal nodes of the lances bet before, in :data:`STATE_LANCES` order."""
        return (self.grande, self.chica, self.pares_node)[: len(STATE_LANCES[self.lance])]

    @classmethod
    def from_row(cls, r: dict) -> "PublicState":
        """The state of a row of :func:`measure_states` (or of a measurement's file)."""
        return cls(int(r["pattern"]), int(r["cutter"]), int(r["grande"]), int(r["chica"]), r.get("lance", "pares"),
                   int(r.get("pares", -1)), int(r.get("pares_node", -1)))

    def store_key(self) -> tuple[int, ...]:
        """What its strategy ships under (:func:`musstats.engines.betting.store.get_state_solved`;
        the fields :data:`musstats.engines.betting.store.STATE_KEY` names for its lance)."""
        from musstats.engines.betting.store import STATE_KEY

        return tuple(int(getattr(self, f)) for f in STATE_KEY[self.lance])

    def key(self) -> tuple[int, ...]:
        """The state as non-negative whole numbers (its samples' seeds and disk cache entries)."""
        if self.lance == "pares":
            return self.store_key()
        tail = (self.pares, self.pares_node + 1) if self.lance == "juego" else ()
        return (1000 + list(STATE_LANCES).index(self.lance), self.pattern, self.cutter, self.grande,
                self.chica + 1, *tail)


def cut_rule(strategies: str) -> str:
    """The cut rule whole hands of a strategy set are played with here: the mus decision's
    equilibrium for the set ``musstats hand`` plays, the shipped flags for the per-lance set."""
    return "equilibrium" if W._check_set(strategies) == "mus-read" else "flags"


def _lance(lance: str) -> str:
    if lance not in STATE_LANCES:
        raise MusError(f"public states are measured in {', '.join(STATE_LANCES)}, not {lance!r}")
    return lance


def public_states(h: W.Hands, pattern: int, lance: str = "pares") -> tuple[list[PublicState], np.ndarray]:
    """The public states of the subgame ``pattern`` of ``lance`` among the hands as dealt of
    ``h``, the most frequent first, and the number of hands in each."""
    from musstats.engines.betting.store import STATE_KEY

    sel = np.nonzero((h.pattern[_lance(lance)] == pattern) & ~h.mus)[0]
    if not sel.size:
        return [], np.zeros(0, np.int64)
    u, cnt = np.unique(W.state_columns(h, sel, lance, int(pattern)), axis=0, return_counts=True)
    order = np.argsort(-cnt, kind="stable")
    return ([PublicState(**{f: int(x) for f, x in zip(STATE_KEY[lance], u[i])}, lance=lance) for i in order],
            cnt[order])


def _played(lance: str, pattern: int, state: tuple[int, ...] | None, v: Variant, strategies: str):
    """The strategy the set plays ``lance`` by in a public state (``state``: its store key): for
    the set ``musstats hand`` plays, the state's own where one ships; else the set's strategy of
    the subgame, given who cut (the ``mus-read`` information model)."""
    if state is not None and W._check_set(strategies) == "mus-read":
        from musstats.engines.betting.store import SOLVED_LANCES, get_state_solved

        own = get_state_solved(v, state, lance) if lance in SOLVED_LANCES else None
        if own is not None:
            return own
    return W._lance_strategy(lance, pattern, "as-dealt", strategies, v)


def _shipped(lance: str, v: Variant) -> int:
    """Which shipped per-state strategies of ``lance`` are read (a key of :func:`_own_reach`'s
    memo: another file read means other reaches)."""
    from musstats.engines.betting.store import state_keys

    return id(state_keys(v, lance))


@lru_cache(maxsize=64)
def _own_reach(lance: str, cutter: int, v: Variant, strategies: str, pattern: int = 15,
               state: tuple[int, ...] | None = None, shipped: int = 0) -> list[np.ndarray]:
    """Per seat, his own reach of every node of the subgame's tree with every hand (the set's
    strategy for the hands cut by ``cutter``; ``state`` the store key of the public state whose
    shipped strategy the set plays there, if any): float
    [H, nodes] (``shipped``: :func:`_shipped`).  Kept: every public state with that cutter reads
    the same (read only)."""
    from musstats.engines.betting.info import prepare
    from musstats.tables.hands import hand_tables

    H = hand_tables(v).n_hands
    sol = _played(lance, pattern, state, v, strategies)
    g = sol.game
    nodes = np.arange(int(g.tree.n_nodes))
    hands = np.repeat(np.arange(H, dtype=np.int64)[:, None], 4, 1)  # each seat's state of every hand
    st, _, _ = prepare(g, hands, v, lance, cutter if g.info == "mus-read" else None)
    out = []
    for q in range(4):
        k = int(g.seat_owner[q])
        r = g.own_reach_of(np.asarray(sol.sigma)[None], k, nodes)[:, :, 0][st[:, k]]
        r.setflags(write=False)
        out.append(r)
    return out


def range_weights(state: PublicState, variant: Variant | None = None, strategies: str = "mus-read") -> np.ndarray:
    """Each seat's factor per hand: P(his own actions in the public history | his hand) -- asked
    for mus (the seats before the cutter) or cut (the cutter), by the set's cut rule; his actions
    in grande and chica, by the set's strategies: float [4, H]."""
    from musstats.analysis.cut_game import cut_rule_flags

    v = variant or Variant()
    flags = cut_rule_flags(cut_rule(strategies), v)
    rw = np.ones(flags.shape, np.float64)
    c = state.cutter
    if not 0 <= c < 4:
        raise MusError("a public state of the hands as dealt names the seat that cut")
    for q in range(4):
        if q < c:
            rw[q] *= ~flags[q]
        elif q == c:
            rw[q] *= flags[q]
    for lance, node in zip(STATE_LANCES[_lance(state.lance)], state.nodes()):
        if lance == "pares":  # the declarations, then pares' betting where it was bet
            from musstats.engines.betting.deals import _held

            held = _held(v)[0]
            for q in range(4):
                rw[q] *= held == (state.pares >> q & 1)
            if node < 0:
                continue
            R = _own_reach("pares", c, v, strategies, state.pares, (state.pares, c, state.grande, state.chica),
                           _shipped("pares", v))
        elif lance == "chica":  # chica's strategy of its own public state where one ships
            R = _own_reach("chica", c, v, strategies, 15, (15, c, state.grande, -1), _shipped("chica", v))
        else:
            R = _own_reach(lance, c, v, strategies)
        for q in range(4):
            rw[q] *= R[q][:, node]
    return rw


def _vector(state: PublicState, v: Variant, strategies: str, n_eval: int, seed: int):
    from musstats.engines.betting.specs import Spec
    from musstats.engines.betting.vector import vector_game

    spec = Spec(lance=state.lance, pattern=state.pattern, info="private", variant=v)
    game = spec.game()
    vg = vector_game(game, v, spec.pattern).configure(range_weights=range_weights(state, v, strategies),
                                                     n_eval=int(n_eval), seed=int(seed))
    return game, vg


def state_strategy(game, state: PublicState, v: Variant, strategies: str = "mus-read") -> np.ndarray:
    """The set's strategy of the lance in the public state, in the private game ``game``'s
    layout: for the set ``musstats hand`` plays, the state's own where one ships
    (:func:`musstats.engines.betting.store.get_state_solved`); else the strategies that read who
    cut, their block for ``state.cutter``."""
    from musstats.engines.betting.store import STATE_SOURCE

    old = _played(state.lance, state.pattern, state.store_key(), v, strategies)
    if old.source == STATE_SOURCE:
        return np.asarray(old.sigma)
    og = old.game
    sigma = game.uniform()
    for q in range(4):
        k, ko = int(game.seat_owner[q]), int(og.seat_owner[q])
        sd = int(game.stride[k])
        if sd == 0:
            continue
        blk = np.asarray(old.sigma)[int(og.obase[ko]): int(og.obase[ko]) + int(og.n_states[ko]) * sd]
        blk = blk.reshape(int(game.n_states[k]), -1, sd)
        blk = blk[:, state.cutter] if og.info == "mus-read" else blk[:, 0]
        sigma[int(game.obase[k]): int(game.obase[k]) + blk.size] = blk.ravel()
    return sigma


def _gains(vg, SIG) -> dict:
    """Each seat's best-response gain ± SE (chosen on one sample, valued on the other) and team
    0's value, stones per hand of the state."""
    from musstats.engines.solving.exploit import owner_gain, ratio
    from musstats.engines.solving.game import Sample

    per_seat = [owner_gain(vg, int(vg.game.seat_owner[q]), SIG, in_sample=False)[:2] for q in range(4)]
    value, _ = ratio(*vg.sample_values(0, SIG, Sample("eval")))
    return {"gains": [float(g) for g, _ in per_seat], "gains_se": [float(se) for _, se in per_seat],
            "value": float(value)}


def _team_gains(vg, SIG) -> dict:
    """Each pair's joint deviation (:func:`musstats.engines.solving.exploit.team_deviation`:
    alternating best responses of the partners, each seeing his own hand, from several starts;
    chosen on one sample, valued on the other) ± SE, stones per hand of the state; pair 0 is
    mano+third."""
    from musstats.engines.solving.exploit import team_deviation

    got = [team_deviation(vg, SIG, t) for t in (0, 1)]
    return {"team_gains": [float(x.gain) for x in got], "team_gains_se": [float(x.gain_se) for x in got]}


def state_exploitability(state: PublicState, variant: Variant | None = None, *, strategies: str = "mus-read",
                         sigma: np.ndarray | None = None, n_eval: int = 10_000, seed: int = 1,
                         team: bool = False) -> dict:
    """Per-player NashConv of the set's strategy of the lance (or ``sigma``, the private game's
    layout) in one public state: ``{"gains", "gains_se", "value"}`` per seat (owner = seat in the
    private game), stones per hand of that state; with ``team`` only each pair's joint deviation
    (``{"team_gains", "team_gains_se"}``, mano+third first)."""
    v = variant or Variant()
    game, vg = _vector(state, v, strategies, n_eval, seed)
    s = state_strategy(game, state, v, strategies) if sigma is None else sigma
    SIG = vg.layout.from_game(s)
    return _team_gains(vg, SIG) if team else _gains(vg, SIG)


def resolve_state(state: PublicState, variant: Variant | None = None, *, strategies: str = "mus-read",
                  iterations: int = 1000, n_eval: int = 10_000, seed: int = 1, measure: bool = True,
                  scheme: str = "dcfr", **config):
    """The lance's subgame in one public state solved with the seats' ranges weighted
    (:func:`range_weights`) by the CFR preset ``scheme`` (DCFR; ``config``: its fields changed,
    e.g. ``team_every`` with the team scheme): (the solved strategy, its per-player NashConv on
    the solve's own evaluation samples, or None without ``measure``).  ``strat.sigma`` is in
    the private game's layout (what :func:`state_exploitability` and the shipped states read)."""
    from musstats.engines.solving.cfr import SolveConfig, solve

    v = variant or Variant()
    _, vg = _vector(state, v, strategies, n_eval, seed)
    strat = solve(vg, SolveConfig.preset(scheme, int(iterations), **config))
    return strat, (_gains(vg, vg.layout.from_game(strat.sigma)) if measure else None)


def measure_states(hands: W.Hands, patterns, *, top: int, variant: Variant | None = None,
                   strategies: str = "mus-read", n_eval: int = 10_000, seed: int = 1, progress=None,
                   cached=None, lance: str = "pares", team_top: int = 0) -> list[dict]:
    """Per subgame of ``lance`` in ``patterns``, its ``top`` most frequent public states in ``hands``
    (played with the set ``strategies``), each measured by :func:`state_exploitability`: rows
    ``{"lance", "pattern", "cutter", "grande", "chica", "share", "gains", "gains_se", "value"}``, ``share``
    the state's fraction of all hands; in the ``team_top`` most frequent of each subgame also each
    pair's joint deviation (``team_gains``, ``team_gains_se``).  A state's samples come from
    ``seed`` and the state itself (the same whatever else is measured).  ``cached(state, seed,
    make, kind)``: where a row (``kind`` "seat") or a pair's figures ("team") are kept between
    runs; ``progress(done, total)``."""
    from musstats.engines.betting.deals import derived_seed

    v = variant or Variant()
    todo = []
    for pat in patterns:
        states, cnt = public_states(hands, int(pat), lance)
        todo += [(s, c / hands.n, j < team_top) for j, (s, c) in enumerate(zip(states[:top], cnt[:top]))]
    rows = []
    for i, (s, share, team) in enumerate(todo):
        si = derived_seed(seed, *s.key())
        r = {}
        for kind in ("seat", "team")[: 1 + team]:
            def make(s=s, si=si, kind=kind):
                return state_exploitability(s, v, strategies=strategies, n_eval=n_eval, seed=si, team=kind == "team")
            r.update(cached(s, si, make, kind) if cached is not None else make())
        rows.append({"lance": s.lance, "pattern": s.pattern, "cutter": s.cutter, "grande": s.grande,
                     "chica": s.chica, **({"pares": s.pares, "pares_node": s.pares_node} if s.lance == "juego" else {}),
                     "share": float(share), **r})
        if progress is not None:
            progress(i + 1, len(todo))
    return rows


#: the whole-hand document's source of the rows measured here: the exact public history before
#: pares (who cut, grande's and chica's betting), hands as dealt
SOURCE = "history"


#: the seats of each pair (mano+third, second+postre)
PAIRS = ((0, 2), (1, 3))


def summary(rows: list[dict]) -> dict:
    """Per seat, the sum over the measured states of share x gain (stones per hand) ± SE, and
    the share of all hands the states hold.  Per pair (mano+third, second+postre) the same of
    the pair's gain: in a state whose pair deviation was measured the larger of it and each
    partner's own (a partner changing alone is a joint deviation too), elsewhere the larger of
    the partners' own; ``team_states``, ``team_share``: the states with the pair deviation
    measured."""
    share = np.array([r["share"] for r in rows])
    G = np.array([r["gains"] for r in rows]).reshape(-1, 4)
    S = np.array([r["gains_se"] for r in rows]).reshape(-1, 4)
    TG = np.full((len(rows), 2), -np.inf)
    TS = np.zeros((len(rows), 2))
    has = np.array([("team_gains" in r) for r in rows], bool)
    for i in np.nonzero(has)[0]:
        TG[i], TS[i] = rows[i]["team_gains"], rows[i]["team_gains_se"]
    pair, pair_se = np.zeros((len(rows), 2)), np.zeros((len(rows), 2))
    for t, (a, b) in enumerate(PAIRS):
        cand = np.stack([TG[:, t], G[:, a], G[:, b]], 1).reshape(-1, 3)
        cse = np.stack([TS[:, t], S[:, a], S[:, b]], 1).reshape(-1, 3)
        j = cand.argmax(axis=1)
        pair[:, t] = cand[np.arange(len(rows)), j]
        pair_se[:, t] = cse[np.arange(len(rows)), j]
    return {"per_seat": [float(x) for x in (share[:, None] * G).sum(axis=0)],
            "per_seat_se": [float(x) for x in np.sqrt(((share[:, None] * S) ** 2).sum(axis=0))],
            "per_team": [float(x) for x in (share[:, None] * pair).sum(axis=0)],
            "per_team_se": [float(x) for x in np.sqrt(((share[:, None] * pair_se) ** 2).sum(axis=0))],
            "team_states": int(has.sum()), "team_share": float(share[has].sum()),
            "share_measured": float(share.sum()), "states": len(rows)}


#: what a public state holds, per lance whose states are measured
STATE_TEXT = {"chica": "who cut, grande's exact betting",
              "pares": "who cut, grande's and chica's exact betting, the declarations",
              "juego": "who cut, grande's, chica's and pares' exact betting, the pares and juego declarations"}


def history_blocks(doc: dict) -> tuple[dict, tuple[float, float] | None]:
    """The exact-history blocks of a shipped whole-hand document, per lance, and the baseline's
    figure without their rows (None: no block yet)."""
    eh = doc.get("exact_history") or {}
    if "lances" in eh:
        b, se = eh["baseline_without"]
        return dict(eh["lances"]), (float(b), float(se))
    if "lance" in eh:  # one lance's block, as first shipped
        blk = {k: x for k, x in eh.items() if k not in ("baseline_without", "baseline_pares_rows")}
        blk["baseline_rows"] = eh["baseline_pares_rows"]
        b, se = eh["baseline_without"]
        return {eh["lance"]: blk}, (float(b), float(se))
    return {}, None


def with_exact_history(doc: dict, measured: dict, baseline_measured: dict, baseline_rows: list,
                       solved: dict | None = None, lance: str = "pares") -> dict:
    """The shipped whole-hand document (:func:`musstats.analysis.whole_hand.exploitability_document`)
    with the rows of a seat reading the exact public history in ``lance`` (:data:`SOURCE`;
    ``measured``: :func:`summary` of the set's states) and its figures again: per lance and seat
    the source that gains most.  The baseline's rows are not in the document: ``baseline_rows``
    gives its best row of the lance per seat ``(gain, se)`` in the same measurement, replaced where
    ``baseline_measured`` (the per-lance set's states) gains more.  ``solved``: what the states
    solved and shipped for the set hold (recorded; kept from the document when not given).  The
    other lances' blocks stay."""
    import pandas as pd

    from musstats.analysis.whole_hand import seat_total, summed_figures
    from musstats.rules.labels import SEATS

    def rounded(x: float) -> float:
        return round(float(x), 4)

    blocks, without = history_blocks(doc)
    if without is None:  # the baseline without any of these rows
        without = (float(doc["baseline_nashconv"]), float(doc["baseline_nashconv_se"]))
    old = blocks.get(lance, {})
    blocks[lance] = {
        "lance": lance, "hands": "as dealt",
        "method": (f"per public state ({STATE_TEXT[_lance(lance)]}), each seat's best response with every seat's "
                   "range weighted by his own probabilities of the history; exact over the responder's hands, "
                   "chosen on one sample of the others' hands and valued on another; summed as share x gain over "
                   "the states measured (the others and the hands after a mus round count zero)"),
        "set": {k: measured[k] for k in ("per_seat", "per_seat_se", "per_team", "per_team_se", "team_states",
                                         "team_share", "share_measured", "states") if k in measured},
        "baseline": {k: baseline_measured[k] for k in ("per_seat", "per_seat_se", "share_measured", "states")},
        "baseline_rows": [list(map(float, x)) for x in baseline_rows]}
    if solved is not None or "solved" in old:
        blocks[lance]["solved"] = solved if solved is not None else old["solved"]
    new = [{"lance": lance, "source": SOURCE, "reader": SEATS[q], "kind": "seat",
            "gain": rounded(measured["per_seat"][q]), "gain_se": rounded(measured["per_seat_se"][q]),
            "gain_in": None, "gate": None} for q in range(4)]
    if "per_team" in measured:  # each pair reading the history together
        new += [{"lance": lance, "source": SOURCE, "reader": "+".join(SEATS[q] for q in PAIRS[t]), "kind": "team",
                 "gain": rounded(measured["per_team"][t]), "gain_se": rounded(measured["per_team_se"][t]),
                 "gain_in": None, "gate": None} for t in range(2)]
    rows = [r for r in doc["rows"] if not (r.get("source") == SOURCE and r["lance"] == lance)] + new
    base, base_var = float(without[0]), float(without[1]) ** 2
    for blk in blocks.values():  # each lance's rows of the baseline replaced where its states gain more
        for q in range(4):
            g0, se0 = (float(x) for x in blk["baseline_rows"][q])
            g1, se1 = float(blk["baseline"]["per_seat"][q]), float(blk["baseline"]["per_seat_se"][q])
            if g1 > max(g0, 0.0):
                base += g1 - max(g0, 0.0)
                base_var += se1 ** 2 - (se0 ** 2 if g0 > 0 else 0.0)
    by_source = dict(doc["by_source"])
    by_source[SOURCE] = dict(zip(("gain", "gain_se"),
                                 seat_total(pd.DataFrame([r for r in rows if r.get("source") == SOURCE]))))
    out = dict(doc)
    out.update(**summed_figures(pd.DataFrame(rows)), baseline_nashconv=round(base, 4),
               baseline_nashconv_se=round(float(np.sqrt(max(base_var, 0.0))), 4), by_source=by_source, rows=rows)
    out["exact_history"] = {"baseline_without": [float(without[0]), float(without[1])],
                            "lances": {x: blocks[x] for x in STATE_LANCES if x in blocks}}
    return out
