"""What one hand yields with equilibrium betting: the stones in the order they are taken.

Every deal -- by default after the mus decision (``"mus-decision"`` of :mod:`.sources`: the
hands as dealt when someone cuts by the mus decision's equilibrium, else after one mus round
by the discard table) -- is played by the shipped equilibrium strategies of every lance
solved for its distribution -- hands as dealt where somebody cut (those that read who cut,
as ``musstats hand`` bets them), after one mus round where all four asked --
(:func:`musstats.analysis.play.hand_steps`, actions drawn, seeded): a hand's
outcome is eight signed steps (``STEP_NAMES``), the dejes taken at once lance by lance
and then the count in lance order, ``+n`` stones to team 0 (mano's team), ``-n`` to
team 1; an accepted órdago is a step that reaches any target (``ORDAGO_STEP``) for the
winner of its lance.  Distinct outcomes aggregate into a table with probabilities
(:class:`BettingOutcomes`) that the dynamic programme of :mod:`.dp` plays like the
en-paso table.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from musstats.analysis.play import ORDAGO_STEP, STEP_NAMES, hand_steps
from musstats.base.errors import MusError
from musstats.engines.betting import deals as D
from musstats.engines.run import Interrupt, Progress
from musstats.rules.variant import Variant

__all__ = ["BettingOutcomes", "betting_outcomes", "play_decided", "reads_who_cut", "DEFAULT_BETTING_DEALS", "BETTING_TEXT",
           "BETTING_SOURCE", "BETTING_SOURCES", "shipped_path", "load_shipped", "write_shipped", "PLAY_VERSION"]

#: version of the way hands are played (:mod:`musstats.analysis.play`): part of every key
PLAY_VERSION = 4

#: deals played for the betting outcome table by default
DEFAULT_BETTING_DEALS = 2_000_000
#: where the hands of the model with betting come from (:mod:`.sources`), and the choices:
#: the hands after the mus decision, or as dealt (the distribution the strategies were solved for)
BETTING_SOURCE = "mus-decision"
BETTING_SOURCES = ("mus-decision", "as-dealt")
BETTING_TEXT = ("equilibrium betting (shipped strategies, hands after the mus decision cut by its equilibrium: "
                "the strategies that read who cut for hands as dealt, those for hands after one mus round where "
                "all four asked): dejes at once, then the count")
_CHUNK = 1 << 18


@dataclass(frozen=True, eq=False)
class BettingOutcomes:
    """Distribution of one hand's stones with betting: ``signed`` int [K, 8] in
    ``STEP_NAMES`` order (+ team 0, - team 1; ``±ORDAGO_STEP`` an accepted órdago) and
    ``prob`` [K] summing to 1."""

    signed: np.ndarray
    prob: np.ndarray
    deals: int | None = None
    seed: int | None = None
    source: str = BETTING_SOURCE

    def __post_init__(self) -> None:
        s, p = np.asarray(self.signed), np.asarray(self.prob, np.float64)
        if s.ndim != 2 or s.shape[1] != len(STEP_NAMES) or p.shape != (s.shape[0],) or s.shape[0] == 0:
            raise MusError("a betting outcome table needs signed stones [K, 8] and K probabilities")
        if (p < 0).any() or not np.isclose(p.sum(), 1.0, atol=1e-9):
            raise MusError("outcome probabilities must be >= 0 and sum to 1")
        object.__setattr__(self, "signed", s.astype(np.int64))
        object.__setattr__(self, "prob", p / p.sum())

    @property
    def n_outcomes(self) -> int:
        return int(self.signed.shape[0])

    def team_stones(self) -> np.ndarray:
        """Stones per step and team: int64 [K, 8, 2] (an accepted órdago: ``ORDAGO_STEP``)."""
        s = self.signed
        return np.stack([np.maximum(s, 0), np.maximum(-s, 0)], axis=-1)

    def p_ordago(self) -> float:
        """P(an órdago is accepted in the hand)."""
        return float(self.prob[(np.abs(self.signed) >= ORDAGO_STEP).any(axis=1)].sum())

    def mean_stones(self) -> np.ndarray:
        """Expected stones per hand of team 0 and team 1, hands without an accepted órdago
        counted whole and those with one counted up to it (float [2])."""
        ts = np.where(self.team_stones() >= ORDAGO_STEP, 0, self.team_stones())
        return self.prob @ ts.sum(axis=1)

    def p_step(self, step: int, team: int) -> float:
        """P(lance ``step`` (0..3: grande, chica, pares, juego-or-punto) gives ``team`` stones,
        at once or at the count)."""
        s = self.signed[:, [step, 4 + step]]
        hit = (s > 0) if team == 0 else (s < 0)
        return float(self.prob[hit.any(axis=1)].sum())

    def to_frame(self):
        """One row per distinct outcome: the signed stones of each step and the probability."""
        import pandas as pd

        df = pd.DataFrame(self.signed, columns=list(STEP_NAMES))
        df["prob"] = self.prob
        df.attrs.update({"deals": self.deals, "seed": self.seed, "source": self.source,
                         "sign": "+n: stones to the mano's team, -n: to the other team",
                         "ordago": f"±{ORDAGO_STEP}: an accepted órdago won by that team"})
        return df.sort_values("prob", ascending=False, ignore_index=True)


def _aggregate(rows: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    s = np.concatenate(rows)
    u, counts = np.unique(s, axis=0, return_counts=True)
    return u, counts.astype(np.float64)


def reads_who_cut(variant: Variant) -> bool:
    """Whether the hands after a cut are bet by the strategies that read who cut: where the mus
    decision's equilibrium cuts the ``"mus-decision"`` deals."""
    from musstats.analysis.cut_game import played_cut_rule

    return played_cut_rule(variant) == "equilibrium"


def play_decided(deals: np.ndarray, mus: np.ndarray, variant: Variant, seed: int) -> np.ndarray:
    """The steps of each deal after the mus decision (int64 [N, 8], as
    :func:`musstats.analysis.play.hand_steps`), each played by the equilibrium strategies of
    its own distribution: after one mus round where it was played (``mus`` bool [N]), as
    dealt where somebody cut -- where the mus decision's equilibrium cuts the deals
    (:func:`.sources.decision_flags`), by the strategies that read who cut, as
    ``musstats hand`` bets them."""
    from musstats.analysis.game.sources import decision_flags

    steps = np.zeros((deals.shape[0], len(STEP_NAMES)), np.int64)
    read_cut = reads_who_cut(variant)
    for deal, sel, k in (("as-dealt", ~mus, 0), ("after-mus", mus, 1)):
        if sel.any():
            cutter = D.cutter(deals[sel], variant, decision_flags(variant)) if read_cut and deal == "as-dealt" else None
            steps[sel] = hand_steps(deals[sel], variant, "equilibrium", "equilibrium", seed + k, deal=deal,
                                    cutter=cutter)
    return steps


def betting_outcomes(variant: Variant, *, deals: int = DEFAULT_BETTING_DEALS, seed: int = 1,
                     progress: Progress | None = None, source: str = BETTING_SOURCE) -> BettingOutcomes:
    """Play ``deals`` deals from ``source`` (:data:`BETTING_SOURCES`) with the equilibrium
    strategies and tabulate the outcomes.  Ctrl-C between chunks raises KeyboardInterrupt."""
    from musstats.analysis.game.sources import deals_and_decisions

    if source not in BETTING_SOURCES:
        raise MusError(f"unknown deal source {source!r} of the model with betting; accepted: "
                       f"{', '.join(BETTING_SOURCES)}")
    rows = []
    with Interrupt() as ctrl_c:
        for start in range(0, deals, _CHUNK):
            if ctrl_c.hit:
                raise KeyboardInterrupt
            n = min(_CHUNK, deals - start)
            play_seed = seed * 7_919 + start
            if source == "as-dealt":
                d = D.stream_deals(variant, seed, start, n, D.GAME_KEY)
                rows.append(hand_steps(d, variant, "equilibrium", "equilibrium", play_seed))
            else:
                d, mus = deals_and_decisions(n, seed, variant, key=(D.GAME_KEY, start // _CHUNK))
                rows.append(play_decided(d, mus, variant, play_seed))
            if progress is not None:
                progress(start + n, deals)
    signed, counts = _aggregate(rows)
    meta: dict[str, Any] = {"deals": int(deals), "seed": int(seed), "source": source}
    return BettingOutcomes(signed, counts / counts.sum(), **meta)


def shipped_path(variant: Variant) -> Path:
    """``musstats/data/game_betting_<deck>_<juego real>.npz``."""
    from musstats.base.files import data_file

    return data_file("game_betting", variant)


def load_shipped(variant: Variant, key: dict) -> BettingOutcomes | None:
    """The shipped table (of :data:`BETTING_SOURCE`) when it was made for exactly ``key`` (rules,
    deal source, strategies, deals, seed)."""
    from musstats.base.files import read_npz

    z = read_npz(shipped_path(variant))
    try:
        if z is None or json.loads(bytes(z["meta"]).decode()) != key:
            return None
        return BettingOutcomes(z["signed"], z["prob"], deals=key["deals"], seed=key["seed"])
    except (ValueError, KeyError):
        return None


def write_shipped(out: BettingOutcomes, variant: Variant, key: dict) -> Path:
    """Write the table for ``key`` to the shipped file (atomically)."""
    from musstats.base.files import write_npz

    return write_npz(shipped_path(variant), dict(signed=out.signed.astype(np.int16), prob=out.prob,
                                                 meta=np.frombuffer(json.dumps(key, sort_keys=True).encode(), np.uint8)))
