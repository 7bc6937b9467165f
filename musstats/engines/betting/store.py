"""Keep solved subgames: in memory, in the shipped files of ``musstats/data/betting_*.npz``,
in the disk cache, or solve them (:func:`get_solved`); and a pair's correlated plans where they
are shipped (``musstats/data/plans_*.npz``, :func:`get_plans`).  The storage primitives (keys,
quantisation, files) are :mod:`musstats.engines.solving.store`'s.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from musstats.engines.betting.solve import Solved, solve_subgame
from musstats.engines.betting.specs import Spec
from musstats.engines.solving import store as S
from musstats.rules.variant import Variant

__all__ = ["get_solved", "shipped_path", "write_shipped", "entry_of", "solved_of", "keep", "cached", "plans_path",
           "plans_meta", "get_plans", "states_path", "write_states", "state_keys", "state_strategies",
           "get_state_solved", "SOLVED_LANCES", "STATE_KEY", "STATE_SOURCE", "STATE_LEVELS"]


def shipped_path(variant: Variant, deal: str, info: str = "private", method: str | None = None) -> Path:
    """``musstats/data/betting_<deck>_<juego real>_<deal>_<info>.npz``, with ``_<method>`` before
    the extension for strategies of a scheme other than the default (kept for comparison)."""
    tail = f"_{method}" if method else ""
    from musstats.base.files import data_file

    return data_file("betting", variant, f"_{deal}_{info}{tail}")


def _shipped_of(spec: Spec) -> Path:
    from musstats.engines.betting.specs import default_method

    other = spec.method != default_method(spec.deal, spec.info, spec.payoff, spec.lance)
    return shipped_path(spec.variant, spec.deal, spec.info, spec.method if other else None)


def _name(spec: Spec) -> str:
    return f"{spec.lance}-{spec.pattern}"


def entry_of(s: Solved) -> dict:
    """The stored arrays of a solved subgame."""
    return S.pack(s.sigma, s.describe(), s.history)


def solved_of(arrays: dict, spec: Spec, source: str) -> Solved | None:
    """A solved subgame read back (None when it does not fit the spec's game)."""
    try:
        meta = S.unpack_meta(arrays)
        game = spec.game()
        if arrays["sigma"].shape[0] != game.n_slots:
            return None
        sig = S.dequantise(arrays["sigma"], game)
        hist = [tuple(r) for r in arrays.get("history", [])]
        return Solved(spec, game, sig, int(meta.get("iterations_done", spec._sizes()[0])), bool(meta.get("partial")),
                      float(meta.get("seconds", 0.0)), meta.get("exploitability"), hist, source,
                      meta.get("train_seconds"), moves=list(meta.get("team_moves") or []))
    except (KeyError, ValueError, TypeError):
        return None


def write_shipped(solved: list[Solved], path: Path) -> Path:
    """Write solved subgames (one deal model and information model) to a shipped file."""
    return S.write_shipped({_name(s.spec): entry_of(s) for s in solved}, path)


def _kind(spec: Spec) -> str:
    return f"strategy-{spec.lance}-{spec.pattern}-{spec.deal}-{spec.info}"


def get_solved(spec: Spec, *, solve: bool = True, progress=None, stop=None, cache: bool = True,
               eval_deals: int | None = None, start=None, keep_state: bool = False) -> Solved | None:
    """The solved subgame of ``spec``: from memory, the shipped file, the disk cache, or
    (with ``solve``) a fresh solve that is then cached.  None if absent and not solved.
    ``start`` and ``keep_state`` go to a fresh solve (:func:`.solve.solve_subgame`); the
    state is not cached here."""
    key = spec.key
    if key in S.MEMO:
        return S.MEMO[key]
    got = None
    z = S.read_shipped(_shipped_of(spec), _name(spec), spec.fields())
    if z is not None:
        got = solved_of(z, spec, "shipped")
    if got is None and cache:
        z = S.cache_load(_kind(spec), key)
        if z is not None:
            got = solved_of(z, spec, "cache")
    if got is None:
        if not solve:
            return None
        got = solve_subgame(spec, progress=progress, stop=stop, eval_deals=eval_deals, start=start,
                            keep_state=keep_state)
        if cache and not got.partial:
            S.cache_save(_kind(spec), key, entry_of(got))
    if not got.partial:
        S.MEMO[key] = got
    return got


def keep(s: Solved) -> None:
    """Keep a solved subgame in memory and in the disk cache (under its spec's key)."""
    if s.partial:
        return
    S.MEMO[s.spec.key] = s
    S.cache_save(_kind(s.spec), s.spec.key, entry_of(s))


def cached(spec: Spec) -> Solved | None:
    """The subgame of ``spec`` from the disk cache only (None if absent)."""
    z = S.cache_load(_kind(spec), spec.key)
    return None if z is None else solved_of(z, spec, "cache")


# ---------------------------------------------------------------------------
# correlated plans


def plans_path(variant: Variant, deal: str, info: str = "private") -> Path:
    """``musstats/data/plans_<deck>_<juego real>_<deal>_<info>.npz``: a pair's correlated plans
    (:class:`~musstats.engines.solving.team.PlanMixture`), one entry per subgame."""
    from musstats.base.files import data_file

    return data_file("plans", variant, f"_{deal}_{info}")


def _plans_entry(spec: Spec) -> dict | None:
    """The shipped entry of ``spec``'s correlated plans when it fits the spec's game (else None)."""
    z = S.read_shipped(plans_path(spec.variant, spec.deal, spec.info), _name(spec), spec.fields())
    if z is None or z["sigma"].ndim != 2 or z["sigma"].shape[1] != spec.game().n_slots:
        return None
    return z


def plans_meta(spec: Spec) -> dict | None:
    """How the shipped correlated plans of ``spec``'s subgame were built and measured (None where
    none ship), without reading the plans themselves; a subgame with a mirror
    (:attr:`.specs.Spec.mirror`) plays its mirror's plans renamed, with their figures."""
    if spec.mirror is not None:
        m = plans_meta(spec.mirror)
        return None if m is None else _renamed_meta(spec, m)
    z = _plans_entry(spec)
    return None if z is None else S.unpack_meta(z)


def _renamed_meta(spec: Spec, meta: dict) -> dict:
    """A mirror's plan metadata for ``spec``: the pair's team and the lone holder (owner = seat)
    as ``spec`` names them; every figure (stones for the pair's side) is the mirror's."""
    seats, _ = spec.mirror_map()
    opponent = seats.index(int(meta["opponent"]))
    return {**meta, **spec.fields(), "team": 1 - opponent % 2, "opponent": opponent,
            "mirror_of": spec.mirror.name if spec.mirror else None}


def plans_digest(spec: Spec) -> str | None:
    """A short digest of the shipped correlated plans of ``spec``'s subgame (their quantised
    profiles and weights; None where none ship): what a table computed by playing them is keyed by."""
    import hashlib

    if spec.mirror is not None:  # its mirror's plans, renamed
        return plans_digest(spec.mirror)
    z = _plans_entry(spec)
    if z is None:
        return None
    h = hashlib.sha1(np.ascontiguousarray(z["sigma"]).tobytes())
    h.update(np.ascontiguousarray(z["weights"], np.float64).tobytes())
    return h.hexdigest()[:12]


def get_plans(spec: Spec) -> dict:
    """The shipped correlated plans of ``spec``'s subgame, by team: ``{team: PlanMixture}``
    (empty where none are shipped); each plan a whole profile in the stored layout, quantised as
    strategies are.  Where a pair of holders plays against one holder, its team's mixture (the
    lone holder's strategy in every profile); where both pairs play plans (the entry's
    ``teams``: how many plans of each, stored one team after the other), one mixture per team,
    each read for its team's owners and drawn from its own stream of a seed."""
    from musstats.engines.solving.team import PlanMixture

    key = "plans:" + spec.key
    if key not in S.MEMO and spec.mirror is not None:  # its mirror's plans, renamed
        from musstats.engines.betting.solve import mirror_sigma

        src = get_plans(spec.mirror)
        S.MEMO[key] = {}
        for m in src.values():
            meta = _renamed_meta(spec, m.meta)
            S.MEMO[key][int(meta["team"])] = PlanMixture(
                int(meta["team"]), int(meta["opponent"]),
                mirror_sigma(spec, spec.game(), spec.mirror.game(), m.sigmas), m.weights, meta)
    if key not in S.MEMO:
        z = _plans_entry(spec)
        S.MEMO[key] = {}
        if z is not None:
            meta = S.unpack_meta(z)
            sigmas, weights = S.dequantise(z["sigma"], spec.game()), np.asarray(z["weights"], float)
            if "teams" in meta:
                cut = int(meta["teams"][0])
                for t, part in ((0, slice(0, cut)), (1, slice(cut, None))):
                    S.MEMO[key][t] = PlanMixture(t, -1, sigmas[part], weights[part], meta)
            else:
                S.MEMO[key][int(meta["team"])] = PlanMixture(int(meta["team"]), int(meta["opponent"]), sigmas,
                                                             weights, meta)
    return S.MEMO[key]


# ---------------------------------------------------------------------------
# a lance solved per public state (the hands as dealt: who cut and the earlier lances' betting)

#: the lances whose strategies can ship per public state, in the order they are bet
SOLVED_LANCES = ("chica", "pares", "juego")

#: what a public state's key (:func:`get_state_solved`) holds, per lance solved per state
STATE_KEY = {"chica": ("pattern", "cutter", "grande", "chica"), "pares": ("pattern", "cutter", "grande", "chica"),
             "juego": ("pattern", "cutter", "grande", "chica", "pares", "pares_node")}


def states_path(variant: Variant, lance: str = "pares") -> Path:
    """``musstats/data/<lance>_states_<deck>_<juego real>.npz``: a lance solved per public state."""
    from musstats.base.files import data_file

    return data_file(f"{lance}_states", variant)


#: the steps a probability of a per-state strategy is kept in (a byte each; 32 keeps the shipped
#: file small, and the figures are measured on the strategies so kept)
STATE_LEVELS = 32


def write_states(entries: list[tuple[tuple[int, ...], np.ndarray]], meta: dict, path: Path) -> Path:
    """Write strategies solved per public state: ``entries`` of (the state's key, as
    :data:`STATE_KEY` says, all of one length; the private game's strategy quantised in
    :data:`STATE_LEVELS` steps), to ``path`` atomically: the keys, the metadata and each
    state's strategy an array of its own (``sigma.<row>``), LZMA-compressed, so that a process
    reads only the states it plays."""
    from musstats.base.files import write_npz

    width = len(entries[0][0]) if entries else 4
    keys = np.array([k for k, _ in entries], np.int64).reshape(-1, width)
    arrays = {"keys": keys, "meta": S.meta_array(meta)}
    arrays.update((f"sigma.{i}", np.asarray(q, np.uint8)) for i, (_, q) in enumerate(entries))
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_npz(path, arrays, "lzma")


def state_keys(variant: Variant, lance: str = "pares") -> dict[tuple[int, ...], int]:
    """The public states whose strategy of ``lance`` ships: the state's key (:data:`STATE_KEY`)
    -> its row in the file (empty where none ship)."""
    from musstats.base.files import read_npz

    path = states_path(variant, lance)
    z = read_npz(path, lazy=True)
    if z is None:
        return {}
    mk = (str(path), id(z))
    if mk not in _STATES:
        _STATES[mk] = {tuple(int(x) for x in k): i for i, k in enumerate(z["keys"])}
    return _STATES[mk]


def _quantised(z, i: int) -> np.ndarray:
    """Row ``i`` of a per-state file's arrays: that state's strategy as kept."""
    return z[f"sigma.{i}"]


def state_strategies(variant: Variant, lance: str = "pares") -> dict[tuple[int, ...], np.ndarray]:
    """Every shipped per-state strategy of ``lance`` as kept (quantised): state -> strategy."""
    from musstats.base.files import read_npz

    z = read_npz(states_path(variant, lance), lazy=True)
    return {} if z is None else {k: _quantised(z, i) for k, i in state_keys(variant, lance).items()}


#: what was read of the shipped per-state strategies, keyed by the file and its arrays as read
_STATES: dict = {}
#: the ``source`` of a strategy solved for the public state it is played in
STATE_SOURCE = "shipped public state"


def get_state_solved(variant: Variant, key: tuple[int, ...], lance: str = "pares") -> Solved | None:
    """The strategy of ``lance`` shipped for one public state (private information, hands as
    dealt), or None where the state has none: the set's strategy given who cut is played there.
    ``key``: the state as :data:`STATE_KEY` says (the subgame's pattern first; the earlier
    lances' terminal nodes, -1 for chica's in a state of chica and for pares' where it was not
    bet)."""
    from musstats.base.files import read_npz

    key = tuple(int(x) for x in key)
    pattern = key[0]
    i = state_keys(variant, lance).get(key)
    if i is None:
        return None
    path = states_path(variant, lance)
    z = read_npz(path, lazy=True)
    assert z is not None
    mk = (str(path), id(z), key)
    if mk not in _STATES:
        spec = Spec(lance=lance, pattern=int(pattern), info="private", variant=variant)
        game = spec.game()
        q = _quantised(z, i)
        if q.shape[0] != game.n_slots:
            return None
        meta = S.unpack_meta(z)
        _STATES[mk] = Solved(spec, game, S.dequantise(q, game), int(meta.get("iterations", 0)), source=STATE_SOURCE)
    return _STATES[mk]
