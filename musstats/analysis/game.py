"""Win-the-game model: P(our team wins the game) from any score (RULES.md "Game").

Two parts.

1. **What one hand yields en paso** (:func:`paso_outcomes`).  Every deal is scored
   with the en-paso count of :func:`musstats.engines.scoring.paso_stones`: each of the four
   count steps (grande, chica, pares, juego-or-punto, in count order) awards
   ``stones`` to one team, or nothing (pares when nobody holds pares).  A deal's
   outcome is the vector of four signed stones, ``+n`` for team 0 (the mano's team),
   ``-n`` for team 1, ``0`` for nothing.  Random deals (seeded, reproducible) are
   aggregated into a small table of distinct outcome vectors with their
   probabilities (:class:`Outcomes`).

   The deals come from a pluggable *deal source*: a callable
   ``source(n, seed, variant) -> int array [n, 4]`` of hand indices
   (:func:`musstats.tables.hands.hand_tables`) in seat order (mano, second, third, postre),
   or such an array itself.  The default (``"after-mus"``) plays each hand after one
   mus round in which all four players discard by the shipped discard strategy
   table (:mod:`musstats.analysis.discard`); ``"as-dealt"`` plays the hands as dealt.  More
   sources can be added with :func:`register_deal_source`.

2. **Dynamic programming over scores** (:func:`win_probabilities`).  The state is
   (a, b, who is mano in the next hand), a and b in ``0..target-1``.  A hand's
   outcome is drawn from the table; its steps are counted in order and the first
   team to reach the target wins at that moment (so the order of the count decides
   when both could get there in one hand).  Otherwise the score moves on and mano
   passes to the other team (mano rotates counterclockwise, to a player of the
   other pair).  Every hand awards at least one stone (really at least 2: grande
   and chica), so a + b strictly grows and the states can be solved from the
   highest total down: no iteration, no cycles.

What the model leaves out: betting (every lance is played en paso, no dejes, no
órdagos), and the decision to cut the mus (every hand gets exactly one mus round).  :class:`GameModel` holds the result;
:func:`game_model` builds it, caching the outcome table on disk (it depends on the
deck, juego real, deal source, number of deals and seed, not on the target).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from musstats.base.errors import MusError
from musstats.engines.scoring import COUNT_LANCES
from musstats.engines.musphase import deals_as_dealt
from musstats.rules.variant import Variant, make_variant

__all__ = [
    "Outcomes",
    "GameModel",
    "DealSource",
    "register_deal_source",
    "DEAL_SOURCES",
    "paso_outcomes",
    "win_probabilities",
    "game_model",
    "cache_dir",
    "write_table",
    "write_heatmap",
    "DEFAULT_DEALS",
    "DEFAULT_SEED",
    "MANO_CHOICES",
]

#: deals simulated by default (about 1 s with numba once compiled)
DEFAULT_DEALS = 4_000_000
#: seed used by default, so that the default model is reproducible and cacheable
DEFAULT_SEED = 1
#: which team is mano in the next hand: ours, theirs, or the average of both
MANO_CHOICES = ("us", "them", "avg")
#: bump when the cached outcome table would change for the same key
CACHE_VERSION = 1
#: stones a single count step can award: 1 (grande, chica, punto) up to 6 (two duples, two 31s)
_MAX_STEP = 7
_BASE = 2 * _MAX_STEP + 1

#: ``source(n, seed, variant) -> int [n, 4]`` hand indices in seat order
DealSource = Callable[[int, int, Variant], np.ndarray]


# ---------------------------------------------------------------------------
# deal sources


def deals_after_mus(n: int, seed: int, variant: Variant = Variant()) -> np.ndarray:
    """``n`` random deals after one mus round in which all four players discard by the
    shipped discard strategy table: hand indices [n, 4] in seat order."""
    from musstats.engines.musphase import deals_after_mus as _after_mus

    return _after_mus(n, seed, variant)


#: named deal sources; a named source's outcome table can be cached on disk
DEAL_SOURCES: dict[str, DealSource] = {"as-dealt": deals_as_dealt, "after-mus": deals_after_mus}
#: the default: hands as played after a mus round, everyone discarding by the table policy
DEFAULT_SOURCE = "after-mus"


def register_deal_source(name: str, source: DealSource) -> None:
    """Make ``source`` available as ``paso_outcomes(..., source=name)`` (and cacheable).

    Meant for the discard module: deals after a mus round in which both teams
    discard by the table policy.  Changing what a name deals needs a new name (or
    a new ``CACHE_VERSION``) so that stale cached tables are not reused.
    """
    if not callable(source):
        raise MusError(f"a deal source must be callable as source(n, seed, variant), got {source!r}")
    DEAL_SOURCES[str(name)] = source


# ---------------------------------------------------------------------------
# the outcome table


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
        if (np.abs(s) >= _MAX_STEP + 1).any():
            raise MusError(f"a count step awards at most {_MAX_STEP} stones")
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
            digits[:, i] = c % _BASE - _MAX_STEP
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
    s = signed.astype(np.int64) + _MAX_STEP
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


def _check_positive_int(x, what: str) -> int:
    if isinstance(x, bool):
        raise MusError(f"{what} must be a positive whole number, got {x!r}")
    try:
        v = int(x)
    except (TypeError, ValueError):
        raise MusError(f"{what} must be a positive whole number, got {x!r}") from None
    if v != x or v < 1:
        raise MusError(f"{what} must be a positive whole number, got {x!r}")
    return v


def _check_seed(seed) -> int | None:
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise MusError(f"the seed must be a whole number >= 0, got {seed!r}")
    return int(seed)


def paso_outcomes(
    variant: Variant = Variant(),
    *,
    deals: int = DEFAULT_DEALS,
    seed: int | None = DEFAULT_SEED,
    source: str | DealSource | np.ndarray = "as-dealt",
) -> Outcomes:
    """Simulate ``deals`` deals and tabulate the en-paso stones of each count step.

    ``source``: a registered name (``"as-dealt"``: hands played as dealt, the default
    here; ``"after-mus"``: one mus round with the table policy, the default of
    :func:`game_model`),
    a callable ``source(n, seed, variant) -> int [n, 4]``, or an array of final
    deals (hand indices [N, 4] in seat order; ``deals`` and ``seed`` are then
    ignored).  ``seed`` None draws a fresh seed (recorded on the result).
    """
    from musstats._kernels.outcomes import outcome_codes
    from musstats.rules.seats import team_array
    from musstats.tables.hands import hand_tables
    from musstats.tables.kernel import lance_table

    t = hand_tables(variant)
    seed = _check_seed(seed)
    if isinstance(source, np.ndarray) or (not callable(source) and not isinstance(source, str)):
        d = _check_deals(source, t.n_hands)
        name, seed = "array", None
    else:
        if isinstance(source, str):
            if source not in DEAL_SOURCES:
                raise MusError(f"unknown deal source {source!r}; accepted: {', '.join(DEAL_SOURCES)}")
            name, fn = source, DEAL_SOURCES[source]
        else:
            name, fn = getattr(source, "__name__", "custom"), source
        n = _check_positive_int(deals, "the number of deals")
        if seed is None:
            seed = int(np.random.SeedSequence().entropy % (2**63))
        d = _check_deals(fn(n, seed, variant), t.n_hands)
    if variant.ten_kings:  # every joker fixed by its holder, then the plain tables
        from musstats.engines.jokers import resolve_deals

        d = resolve_deals(d, variant)
        variant = variant.lance_rules
    codes = outcome_codes(np.ascontiguousarray(d, np.int64), team_array(4), lance_table(variant), _MAX_STEP, _BASE)
    codes, counts = np.unique(codes, return_counts=True)
    return Outcomes.from_codes(codes, counts.astype(np.float64), deals=int(d.shape[0]), seed=seed,
                               source=name)


# ---------------------------------------------------------------------------
# dynamic programming


def win_probabilities(outcomes: Outcomes, target: int = 40) -> np.ndarray:
    """P(team A wins the game): float64 [2, target, target], indexed ``[m, a, b]``.

    ``a``, ``b``: the scores of teams A and B before a hand; ``m`` = 0 when team A
    is mano's team in that hand, 1 when team B is.  Mano alternates between the
    teams from hand to hand.  Within a hand the count steps are taken in order and
    the first team to reach ``target`` wins at that moment.
    """
    target = _check_positive_int(target, "the target")
    ts = outcomes.team_stones()  # [K, 4, 2]: team 0 = mano's team
    prob = outcomes.prob
    need = np.arange(target + 1)
    first, total = [], []
    for m in (0, 1):
        # m = 0: A is mano's team (team 0 of the table); m = 1: A is team 1
        ga, gb = ts[:, :, m], ts[:, :, 1 - m]
        ca, cb = np.cumsum(ga, axis=1), np.cumsum(gb, axis=1)
        # first step at which the running total reaches `need` (4 = never): [K, target+1]
        fa = (ca[:, :, None] < need[None, None, :]).sum(axis=1)
        fb = (cb[:, :, None] < need[None, None, :]).sum(axis=1)
        first.append((fa, fb))
        total.append((ca[:, -1], cb[:, -1]))
    p = np.zeros((2, target, target))
    for s in range(2 * target - 2, -1, -1):
        a = np.arange(max(0, s - target + 1), min(s, target - 1) + 1)
        b = s - a
        for m in (0, 1):
            fa, fb = first[m]
            ta, tb = total[m]
            ra = fa[:, target - a].T  # [J, K] step at which A reaches the target
            rb = fb[:, target - b].T
            a_wins = (ra < 4) & (ra < rb)
            b_wins = (rb < 4) & (rb < ra)
            go_on = ~(a_wins | b_wins)
            a2 = np.minimum(a[:, None] + ta[None, :], target - 1)
            b2 = np.minimum(b[:, None] + tb[None, :], target - 1)
            nxt = p[1 - m][a2, b2]
            p[m, a, b] = (a_wins * prob).sum(axis=1) + (go_on * nxt * prob).sum(axis=1)
    return p


# ---------------------------------------------------------------------------
# the model


def _mano_index(mano: str) -> str:
    m = str(mano).strip().lower()
    aliases = {"us": "us", "we": "us", "nosotros": "us", "them": "them", "they": "them",
               "ellos": "them", "avg": "avg", "average": "avg", "media": "avg"}
    if m not in aliases:
        raise MusError(f"unknown mano {mano!r}; accepted: {'|'.join(MANO_CHOICES)}")
    return aliases[m]


@dataclass(frozen=True, eq=False)
class GameModel:
    """P(win the game) from every score; ``p[m, us, them]`` with m = 0 when we are mano's team."""

    variant: Variant
    outcomes: Outcomes
    p: np.ndarray  # float64 [2, T, T]
    timings: dict = field(default_factory=dict)

    @property
    def target(self) -> int:
        return self.variant.target

    def grid(self, mano: str = "avg") -> np.ndarray:
        """P(we win) [T, T] indexed [our score, their score], for mano us|them|avg next hand."""
        m = _mano_index(mano)
        if m == "us":
            return self.p[0]
        if m == "them":
            return self.p[1]
        return (self.p[0] + self.p[1]) / 2

    def p_win(self, us: int, them: int, mano: str = "avg") -> float:
        """P(we win the game) at score ``us``-``them`` before a hand (1 if ``us`` >= target)."""
        t = self.target
        if us >= t and them >= t:
            raise MusError("both teams cannot have reached the target")
        if us >= t:
            return 1.0
        if them >= t:
            return 0.0
        if min(us, them) < 0:
            raise MusError(f"scores are 0..{t - 1}, got {us}-{them}")
        return float(self.grid(mano)[us, them])

    def to_frame(self):
        """Long table: one row per score (us, them); P(win) with us / them mano next hand, and avg."""
        import pandas as pd

        t = self.target
        us, them = np.meshgrid(np.arange(t), np.arange(t), indexing="ij")
        df = pd.DataFrame({
            "us": us.ravel(), "them": them.ravel(),
            "p_win_us_mano": self.p[0].ravel(), "p_win_them_mano": self.p[1].ravel(),
            "p_win_avg": ((self.p[0] + self.p[1]) / 2).ravel(),
        })
        df.attrs.update(self.describe())
        return df

    def describe(self) -> dict:
        """Run metadata, JSON-friendly."""
        o = self.outcomes
        return {"rules": self.variant.describe(), "target": self.target, "deals": o.deals,
                "seed": o.seed, "source": o.source, "outcomes": o.n_outcomes,
                "betting": "none: every lance en paso"}

    def summary(self, mano: str = "avg", scores: Sequence[int] | None = None) -> dict:
        """A compact JSON-friendly summary: hand statistics and P(win) at a few scores."""
        t = self.target
        if scores is None:
            scores = sorted({0, t // 4, t // 2, 3 * t // 4, t - 5, t - 1})
        g = self.grid(mano)
        o = self.outcomes
        mean = o.mean_stones()
        return {
            **self.describe(),
            "mano": _mano_index(mano),
            "hand": {
                "mean_stones_mano_team": float(mean[0]), "mean_stones_other_team": float(mean[1]),
                **{f"p_mano_team_{lance.split('-')[0]}": o.p_step(i, 0) for i, lance in enumerate(COUNT_LANCES)},
                **{f"p_other_team_{lance.split('-')[0]}": o.p_step(i, 1) for i, lance in enumerate(COUNT_LANCES)},
            },
            "p_win_from_0_0": {"us_mano": float(self.p[0, 0, 0]), "them_mano": float(self.p[1, 0, 0])},
            "scores": [int(s) for s in scores],
            "p_win": [[float(g[a, b]) for b in scores] for a in scores],
            "timings_s": {k: round(v, 4) for k, v in self.timings.items()},
        }

    def save(self, path: str | os.PathLike, mano: str = "avg") -> Path:
        """Write the table (.csv, .parquet) or the heatmap (.png, .svg, .pdf), atomically."""
        path = Path(path)
        ext = path.suffix.lower()
        try:
            if ext in TABLE_EXTS:
                return write_table(self.to_frame(), path)
            if ext in IMAGE_EXTS:
                return write_heatmap(self, path, mano)
        except OSError as e:
            raise MusError(f"cannot write {str(path)!r}: {e.strerror or e}") from None
        raise MusError(f"unknown output type {path.name!r}; accepted: "
                       f"{', '.join('FILE' + e for e in TABLE_EXTS + IMAGE_EXTS)}")


TABLE_EXTS = (".csv", ".parquet")
IMAGE_EXTS = (".png", ".svg", ".pdf")


# ---------------------------------------------------------------------------
# caching


def cache_dir() -> Path | None:
    """Where cached models live: ``$MUSSTATS_CACHE``, else ``$XDG_CACHE_HOME/musstats``,
    else ``~/.cache/musstats``.  ``MUSSTATS_CACHE=off`` disables the disk cache."""
    env = os.environ.get("MUSSTATS_CACHE")
    if env is not None:
        if env.strip().lower() in ("", "off", "0", "none", "no"):
            return None
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "musstats"


def _cache_file(variant: Variant, source: str, deals: int, seed: int) -> Path | None:
    d = cache_dir()
    if d is None:
        return None
    if source == "after-mus":  # the deals depend on the discard table: key on its content
        from musstats.tables.policies import policy_digest

        source = f"{source}-{policy_digest('table', variant)}"
    tag = f"v{CACHE_VERSION}-{variant.deck}-{variant.juego_real}-{source}-{deals}-{seed}"
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in tag)
    if len(safe) > 120:
        safe = safe[:80] + "-" + hashlib.sha1(tag.encode()).hexdigest()[:16]
    return d / f"paso-outcomes-{safe}.npz"


def _load_outcomes(path: Path, deals: int, seed: int, source: str) -> Outcomes | None:
    try:
        with np.load(path) as z:
            return Outcomes(z["signed"], z["prob"], deals=deals, seed=seed, source=source)
    except Exception:  # missing, partial or corrupt: recompute
        return None


def _atomic_write(path: Path, write: Callable[[str], None]) -> Path:
    """Create the parent folder, then write atomically (:func:`musstats.base.files.atomic_write`)."""
    from musstats.base.files import atomic_write

    path.parent.mkdir(parents=True, exist_ok=True)
    return atomic_write(path, write)


def _save_outcomes(path: Path, o: Outcomes) -> None:
    def write(tmp: str) -> None:
        with open(tmp, "wb") as f:
            np.savez(f, signed=o.signed, prob=o.prob)

    try:
        _atomic_write(path, write)
    except OSError:  # an unwritable cache is not an error: the model is just recomputed next time
        pass


_MEMO: dict[tuple, Outcomes] = {}


def game_model(
    variant: Variant = Variant(),
    target: int | None = None,
    *,
    deals: int = DEFAULT_DEALS,
    seed: int | None = DEFAULT_SEED,
    source: str | DealSource | np.ndarray = DEFAULT_SOURCE,
    outcomes: Outcomes | None = None,
    cache: bool = True,
) -> GameModel:
    """The win-the-game model for ``variant`` (target ``target`` or ``variant.target``).

    The outcome table is simulated once per (deck, juego real, named source, deals,
    seed) and cached in memory and on disk (:func:`cache_dir`, written atomically);
    the dynamic programming is recomputed each time (a few ms).  Pass ``outcomes``
    to use a given table (nothing is simulated or cached).
    """
    import time

    if target is not None:
        variant = make_variant(variant, target=target)  # raises the clear error

    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    if outcomes is None:
        seed = _check_seed(seed)
        named = isinstance(source, str)
        cacheable = cache and named and seed is not None
        if cacheable:
            deals = _check_positive_int(deals, "the number of deals")
            key = (variant.deck, variant.juego_real, source, deals, seed)
            outcomes = _MEMO.get(key)
            path = _cache_file(variant, source, deals, seed)
            if outcomes is None and path is not None and path.exists():
                outcomes = _load_outcomes(path, deals, seed, source)
                if outcomes is not None:
                    timings["load_s"] = time.perf_counter() - t0
            if outcomes is None:
                outcomes = paso_outcomes(variant, deals=deals, seed=seed, source=source)
                timings["simulate_s"] = time.perf_counter() - t0
                if path is not None:
                    _save_outcomes(path, outcomes)
            _MEMO[key] = outcomes
        else:
            outcomes = paso_outcomes(variant, deals=deals, seed=seed, source=source)
            timings["simulate_s"] = time.perf_counter() - t0
    t1 = time.perf_counter()
    p = win_probabilities(outcomes, variant.target)
    timings["dp_s"] = time.perf_counter() - t1
    return GameModel(variant, outcomes, p, timings)


# ---------------------------------------------------------------------------
# export


def write_table(df, path: str | os.PathLike) -> Path:
    """Write a DataFrame as CSV or Parquet (by extension), atomically (temp file + rename)."""
    from musstats.base.files import write_frame

    path = Path(path)
    if path.suffix.lower() in (".csv", ".parquet"):
        path.parent.mkdir(parents=True, exist_ok=True)
        return write_frame(df, path)
    raise MusError(f"unknown table type {path.name!r}; accepted: FILE.csv, FILE.parquet")


_MANO_LABEL = {"us": "mano: nosotros / us", "them": "mano: ellos / them",
               "avg": "mano: media de ambos / average of both"}


def write_heatmap(model: GameModel, path: str | os.PathLike, mano: str = "avg") -> Path:
    """Heatmap of P(we win) over (our score, their score), atomically; format by extension."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    path = Path(path)
    fmt = path.suffix.lower().lstrip(".")
    if "." + fmt not in IMAGE_EXTS:
        raise MusError(f"unknown image type {path.name!r}; accepted: FILE.png, FILE.svg, FILE.pdf")
    m = _mano_index(mano)
    g = model.grid(m)
    t = model.target
    fig, ax = plt.subplots(figsize=(7.2, 6.2), dpi=120)
    try:
        im = ax.imshow(g, origin="lower", cmap="cividis", vmin=0.0, vmax=1.0, aspect="equal",
                       extent=(-0.5, t - 0.5, -0.5, t - 0.5), interpolation="nearest")
        levels = [0.1, 0.25, 0.5, 0.75, 0.9]
        # dark lines on the light (high) end of cividis, light lines on the dark end
        cs = ax.contour(np.arange(t), np.arange(t), g, levels=levels, linewidths=0.8,
                        colors=["white" if lv < 0.5 else "black" for lv in levels])
        ax.clabel(cs, fmt=lambda v: f"{v:.0%}".replace("%", " %"), fontsize=7)
        ax.set_xlabel("Tanteo de ellos / their score (piedras / stones)")
        ax.set_ylabel("Nuestro tanteo / our score (piedras / stones)")
        rules = model.variant
        ax.set_title(f"P(ganar la partida / win the game) · a {t} / to {t} · {rules.deck}"
                     + (f" · juego real {rules.juego_real}" if rules.juego_real != "off" else "")
                     + f"\n{_MANO_LABEL[m]} · en paso, {model.outcomes.source}", fontsize=10)
        step = 5
        ax.set_xticks(range(0, t, step))
        ax.set_yticks(range(0, t, step))
        cb = fig.colorbar(im, ax=ax)
        cb.set_label("P(ganar / win)")
        fig.tight_layout()
        _atomic_write(path, lambda tmp: fig.savefig(tmp, format=fmt))
    finally:
        plt.close(fig)
    return path
