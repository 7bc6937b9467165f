"""What one hand yields en paso: the distribution of the stones of each count step.

Every deal is scored with the en-paso count (:mod:`musstats._kernels.outcomes`): each of
the four count steps (grande, chica, pares, juego-or-punto, in count order) awards stones
to one team, or nothing (pares when nobody holds pares).  A deal's outcome is the vector
of four signed stones, ``+n`` for team 0 (the mano's team), ``-n`` for team 1, ``0`` for
nothing; random deals (seeded, reproducible) aggregate into a small table of distinct
outcome vectors with their probabilities (:class:`Outcomes`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from musstats.analysis.game.sources import DEAL_SOURCES, DealSource
from musstats.base.errors import MusError
from musstats.engines.run import Interrupt, Progress
from musstats.rules import checks
from musstats.rules.labels import COUNT_LANCES
from musstats.rules.variant import Variant

__all__ = ["Outcomes", "paso_outcomes", "MAX_STEP"]

#: stones a single count step can award: 1 (grande, chica, punto) up to 6 (two duples, two 31s)
MAX_STEP = 7
_BASE = 2 * MAX_STEP + 1
#: deals simulated per kernel call (Ctrl-C is honoured between calls)
BATCH_DEALS = 1 << 19


@dataclass(frozen=True, eq=False)
class Outcomes:
    """Distribution of the en-paso stones of one hand: distinct outcome vectors and probabilities.

    ``signed[k, i]`` is what count step ``i`` (``COUNT_LANCES`` order: grande, chica,
    pares, juego-or-punto) awards in outcome ``k``: ``+n`` stones to team 0 (the
    mano's team), ``-n`` to team 1, 0 for nothing.  ``prob`` sums to 1.
    """

    signed: np.ndarray  # int8 [K, 4]
    prob: np.ndarray  # float64 [K]
    deals: int | None = None  # deals simulated (None for a hand-made table)
    seed: int | None = None
    source: str = "hand-made"

    def __post_init__(self) -> None:
        s = np.asarray(self.signed)
        p = np.asarray(self.prob, dtype=np.float64)
        if s.ndim != 2 or s.shape[1] != 4 or p.shape != (s.shape[0],) or s.shape[0] == 0:
            raise MusError("an outcome table needs signed stones [K, 4] (one column per count step) "
                           "and K probabilities")
        if (np.abs(s) >= MAX_STEP + 1).any():
            raise MusError(f"a count step awards at most {MAX_STEP} stones")
        if (p < 0).any() or not np.isclose(p.sum(), 1.0, atol=1e-9):
            raise MusError(f"outcome probabilities must be >= 0 and sum to 1, got sum {p.sum()!r}")
        if (np.abs(s).sum(axis=1)[p > 0] == 0).any():
            raise MusError("every hand must award at least one stone (grande and chica always do)")
        object.__setattr__(self, "signed", s.astype(np.int8))
        object.__setattr__(self, "prob", p / p.sum())

    # -- construction -------------------------------------------------------

    @classmethod
    def from_list(cls, items: Sequence[tuple[Sequence[tuple[int, int] | None], float]]) -> "Outcomes":
        """A hand-made table: ``[([(team, stones) or None for each step], probability), ...]``.

        Fewer than four steps may be given (the rest award nothing).  Example: mano's
        team takes grande and chica, the others 3 at pares, half the time::

            Outcomes.from_list([([(0, 1), (0, 1), (1, 3)], 0.5), ([(1, 1), (1, 1)], 0.5)])
        """
        rows, probs = [], []
        for steps, prob in items:
            if len(steps) > 4:
                raise MusError(f"a hand has 4 count steps ({', '.join(COUNT_LANCES)}), got {len(steps)}")
            row = [0, 0, 0, 0]
            for i, st in enumerate(steps):
                if st is None:
                    continue
                team, n = st
                if team not in (0, 1) or n < 0:
                    raise MusError(f"a step outcome is (team 0|1, stones >= 0), got {st!r}")
                row[i] = n if team == 0 else -n
            rows.append(row)
            probs.append(float(prob))
        return cls(np.array(rows, np.int64), np.array(probs), source="hand-made")

    @classmethod
    def from_codes(cls, codes: np.ndarray, counts: np.ndarray, **meta: Any) -> "Outcomes":
        """From packed outcome codes (see :func:`_encode`) and how often each occurred."""
        digits = np.empty((codes.shape[0], 4), np.int64)
        c = codes.astype(np.int64)
        for i in range(4):
            digits[:, i] = c % _BASE - MAX_STEP
            c //= _BASE
        return cls(digits, counts / counts.sum(), **meta)

    # -- views --------------------------------------------------------------

    @property
    def n_outcomes(self) -> int:
        return int(self.signed.shape[0])

    def team_stones(self) -> np.ndarray:
        """Stones per step and team: int64 [K, 4 steps, 2 teams]."""
        s = self.signed.astype(np.int64)
        return np.stack([np.maximum(s, 0), np.maximum(-s, 0)], axis=-1)

    def mean_stones(self) -> np.ndarray:
        """Expected stones per hand of team 0 (mano's) and team 1: float [2]."""
        return self.prob @ self.team_stones().sum(axis=1)

    def p_step(self, step: int | str, team: int) -> float:
        """P(count step ``step`` awards stones to ``team``)."""
        i = COUNT_LANCES.index(step) if isinstance(step, str) else int(step)
        s = self.signed[:, i]
        return float(self.prob[(s > 0) if team == 0 else (s < 0)].sum())

    def swapped(self) -> "Outcomes":
        """The same table with the two teams' roles exchanged."""
        return Outcomes(-self.signed.astype(np.int64), self.prob, self.deals, self.seed, self.source)

    def symmetrised(self) -> "Outcomes":
        """Each outcome and its team-swapped mirror at half the probability: mano no longer matters."""
        s = np.concatenate([self.signed, -self.signed.astype(np.int64)])
        p = np.concatenate([self.prob, self.prob]) / 2
        return _aggregate(s, p, deals=self.deals, seed=self.seed, source=self.source + " (symmetrised)")

    def to_frame(self):
        """One row per distinct outcome: the signed stones of each step and the probability."""
        import pandas as pd

        df = pd.DataFrame(self.signed.astype(np.int64), columns=list(COUNT_LANCES))
        df["prob"] = self.prob
        df.attrs.update({"deals": self.deals, "seed": self.seed, "source": self.source,
                         "sign": "+n: stones to the mano's team, -n: to the other team"})
        return df.sort_values("prob", ascending=False, ignore_index=True)


def _encode(signed: np.ndarray) -> np.ndarray:
    """Pack signed step stones [N, 4] into one int64 per row."""
    s = signed.astype(np.int64) + MAX_STEP
    return ((s[:, 3] * _BASE + s[:, 2]) * _BASE + s[:, 1]) * _BASE + s[:, 0]


def _aggregate(signed: np.ndarray, weight: np.ndarray, **meta: Any) -> Outcomes:
    codes, inv = np.unique(_encode(signed), return_inverse=True)
    w = np.bincount(inv.ravel(), weights=weight, minlength=codes.shape[0])
    return Outcomes.from_codes(codes, w, **meta)


def _check_deals(deals, n_hands: int) -> np.ndarray:
    try:
        d = np.asarray(deals)
    except Exception:  # pragma: no cover - numpy accepts nearly anything
        raise MusError("deals must be an integer array [N, 4] of hand indices") from None
    if d.ndim != 2 or d.shape[1] != 4 or d.shape[0] == 0:
        raise MusError(f"deals must be an integer array [N, 4] of hand indices in seat order, got shape {d.shape}")
    if not np.issubdtype(d.dtype, np.integer):
        raise MusError(f"deals must hold integer hand indices, got dtype {d.dtype}")
    if d.min() < 0 or d.max() >= n_hands:
        raise MusError(f"hand index out of range in deals; accepted: 0..{n_hands - 1}")
    return np.ascontiguousarray(d, dtype=np.int32)


def paso_outcomes(
    variant: Variant = Variant(),
    *,
    deals: int | None = None,
    seed: int | None = None,
    source: str | DealSource | np.ndarray = "as-dealt",
    progress: Progress | None = None,
) -> Outcomes:
    """Simulate ``deals`` deals (default 4,000,000) and tabulate the en-paso stones of each count step.

    ``source``: a registered name (``"as-dealt"``: hands played as dealt, the default
    here; ``"after-mus"``: one mus round with the table policy, the default of
    :func:`~musstats.analysis.game.model.game_model`), a callable ``source(n, seed,
    variant) -> int [n, 4]``, or an array of final deals (hand indices [N, 4] in seat order;
    ``deals`` and ``seed`` are then ignored).  ``seed`` None draws a fresh seed (recorded on
    the result).  The deals are simulated in batches of ``BATCH_DEALS`` (batch ``b`` seeded
    from ``SeedSequence([seed, b])``); Ctrl-C between batches raises KeyboardInterrupt.
    """
    from musstats.tables.hands import hand_tables

    t = hand_tables(variant)
    if isinstance(source, np.ndarray) or (not callable(source) and not isinstance(source, str)):
        codes, counts = _codes(_check_deals(source, t.n_hands), variant)
        return Outcomes.from_codes(codes, counts.astype(np.float64), deals=int(counts.sum()), seed=None,
                                   source="array")
    if isinstance(source, str):
        if source not in DEAL_SOURCES:
            raise MusError(f"unknown deal source {source!r}; accepted: {', '.join(DEAL_SOURCES)}")
        name, fn = source, DEAL_SOURCES[source]
    else:
        name, fn = getattr(source, "__name__", "custom"), source
    n = checks.deals(deals, 4_000_000)
    seed = checks.seed(seed)
    tally: dict[int, int] = {}
    with Interrupt() as ctrl_c:
        for b, start in enumerate(range(0, n, BATCH_DEALS)):
            if ctrl_c.hit:
                raise KeyboardInterrupt
            size = min(BATCH_DEALS, n - start)
            sub = int(np.random.SeedSequence([seed, b]).generate_state(1, np.uint64)[0] >> np.uint64(1))
            codes, counts = _codes(_check_deals(fn(size, sub, variant), t.n_hands), variant)
            for c, k in zip(codes.tolist(), counts.tolist()):
                tally[c] = tally.get(c, 0) + k
            if progress is not None:
                progress(start + size, n)
    keys = np.array(sorted(tally), np.int64)
    return Outcomes.from_codes(keys, np.array([tally[k] for k in keys.tolist()], np.float64), deals=n,
                               seed=seed, source=name)


def _codes(d: np.ndarray, variant: Variant) -> tuple[np.ndarray, np.ndarray]:
    """Distinct packed outcome codes of the deals ``d`` and how often each occurred."""
    from musstats._kernels.outcomes import outcome_codes
    from musstats.rules.seats import team_array
    from musstats.tables.kernel import lance_table

    if variant.ten_kings:  # every joker fixed by its holder, then the plain tables
        from musstats.engines.jokers import resolve_deals

        d = resolve_deals(d, variant)
        variant = variant.lance_rules
    codes = outcome_codes(np.ascontiguousarray(d, np.int64), team_array(4), lance_table(variant), MAX_STEP, _BASE)
    return np.unique(codes, return_counts=True)
