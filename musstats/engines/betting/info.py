"""The information models of a lance's betting: who owns each decision and what he knows.

* ``private``: each seat is an owner (4 owners) who knows his own hand (330 states with
  8 reyes): the real game.
* ``pooled``: each team is an owner (a two-player zero-sum game) that sees both its hands
  through what decides the lance: its better hand in the lance (the hand and which partner
  holds it) and, in pares and juego, the sum of its holders' values (perfect señas for the
  lance).  The cards of the team's other hand are left out of its state (they still shape
  the deal distribution).
* ``pooled-0`` / ``pooled-1``: only team 0 (1) pools; the other team's seats are private.
* ``mus-read``: private, and every seat also knows who cut the mus (the hands played as
  dealt, deal model ``cut``): a seat's state is his hand x 4 + the seat that cut.

:func:`make_game` gives the :class:`musstats.engines.solving.game.Game` of a tree, a model and a
payoff table.
"""

from __future__ import annotations

import numpy as np

from musstats.base.errors import MusError
from musstats.engines.betting.tree import BettingTree
from musstats.engines.solving.game import Game, layout_arrays

__all__ = ["INFO_MODELS", "MUS_CLASSES", "make_game", "prepare"]

INFO_MODELS = ("private", "pooled", "pooled-0", "pooled-1", "mus-read")
#: the classes of the mus a ``mus-read`` state carries: the seat that cut
MUS_CLASSES = 4


def make_game(tree: BettingTree, info: str, U: np.ndarray, n_hands: int, pooled_states: int | None = None) -> Game:
    """The game of a lance's tree under an information model.  ``n_hands``: private states
    per seat; ``pooled_states``: states of a pooled team (default 2 n_hands, or 14 n_hands in
    pares and juego)."""
    if info not in INFO_MODELS:
        raise MusError(f"unknown information model {info!r}; accepted: {', '.join(INFO_MODELS)}")
    if pooled_states is None:
        pooled_states = 2 * n_hands * (7 if tree.lance in ("pares", "juego") else 1)
    if info in ("private", "mus-read"):
        columns = tuple(("seat", q) for q in range(4))
        seat_owner = (0, 1, 2, 3)
        team = [0, 1, 0, 1]
        ns = [n_hands * (MUS_CLASSES if info == "mus-read" else 1)] * 4
    elif info == "pooled":
        columns = (("team", 0), ("team", 1))
        seat_owner = (0, 1, 0, 1)
        team = [0, 1]
        ns = [pooled_states] * 2
    elif info == "pooled-0":
        columns = (("team", 0), ("seat", 1), ("seat", 3))
        seat_owner = (0, 1, 0, 2)
        team = [0, 1, 1]
        ns = [pooled_states, n_hands, n_hands]
    else:
        columns = (("seat", 0), ("team", 1), ("seat", 2))
        seat_owner = (0, 1, 2, 1)
        team = [0, 1, 0]
        ns = [n_hands, pooled_states, n_hands]
    owner = np.array([seat_owner[q] if q >= 0 else -1 for q in tree.seat], np.int64)
    noff, obase, stride, off, ib, inn = layout_arrays(tree.is_term, tree.n_act, owner, ns)
    U = np.ascontiguousarray(U, np.float64)
    if U.shape[0] != tree.n_terminals:
        raise MusError(f"the payoff table has {U.shape[0]} rows for {tree.n_terminals} terminals")
    return Game(tree, info, U, owner, np.array(team, np.int64), np.array(ns, np.int64), noff, obase, stride,
                off, ib, inn, seat_owner, columns)


def prepare(game: Game, deals: np.ndarray, variant, lance: str, cutter: int | np.ndarray | None = None
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(owner states, outcome codes, equal weights) of deals (hand indices [n, 4]) for a game.
    ``cutter``: in the ``mus-read`` model, the seat that cut when it is known (one for every deal,
    or one per deal), instead of the one the cut law of the ``cut`` deal model names on each deal
    (:func:`musstats.tables.policies.betting_cut_flags`)."""
    from musstats.engines.betting import deals as D

    o, stp = D.lance_states(deals, lance, variant, False)
    stq = None
    if any(kind == "team" for kind, _ in game.columns):
        _, stq = D.lance_states(deals, lance, variant, True)
    n = deals.shape[0]
    st = game.states(stp, stq)
    if game.info == "mus-read":
        c = (D.cutter(deals, variant) if cutter is None else
             np.broadcast_to(np.asarray(cutter, np.int64), (n,)))
        if (c < 0).any():
            raise MusError("a deal in which nobody cuts has no state of the mus-read model")
        st = np.ascontiguousarray((st.astype(np.int64) * MUS_CLASSES + c[:, None]).astype(np.int32))
    return st, o, np.full(n, 1.0 / max(n, 1))
