"""The win-the-game model: :class:`GameModel` and :func:`game_model`.

Two models of a hand:

* **en paso** (the default): every lance is played en paso (no dejes, no órdagos), after
  one mus round in which everyone discards by the strategy table;
* **with betting** (``betting=True``): every lance is bet by the shipped equilibrium
  strategies (:mod:`.betting`), the hands after the mus decision (as dealt when someone
  holds a hand the shipped cut flags cut with, else after one mus round by the table),
  each by the strategies solved for its distribution:
  dejes taken at once, then the count in lance order; an accepted órdago ends the game.

The en-paso model takes the mus round always unless told otherwise (``source``); both
play at most one mus round.  The outcome table is simulated once per
rules (every switch), model, deal source, number of deals and seed and cached in memory
and on disk (:mod:`musstats.engines.cache`); the default tables of 8 reyes ship
(``musstats/data/game_paso_*.npz``, ``game_betting_*.npz``).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence, cast

import numpy as np

from musstats.analysis.game.betting import (BETTING_SOURCE, BETTING_SOURCES, BETTING_TEXT, DEFAULT_BETTING_DEALS,
                                            BettingOutcomes, betting_outcomes)
from musstats.analysis.game.dp import win_probabilities
from musstats.analysis.game.outcomes import Outcomes, paso_outcomes
from musstats.analysis.game.sources import DEFAULT_SOURCE, DealSource
from musstats.base.errors import MusError
from musstats.base.files import read_npz
from musstats.engines import cache
from musstats.engines.run import Progress
from musstats.rules import checks
from musstats.rules.labels import COUNT_LANCES
from musstats.rules.variant import Variant, make_variant

__all__ = ["DEFAULT_DEALS", "DEFAULT_SEED", "MANO_CHOICES", "GameModel", "game_model", "PASO_TEXT", "betting_key",
           "MODEL_CHOICES", "betting_available", "game_report", "ordago_stones", "paso_shipped_path",
           "paso_shipped_key", "load_shipped_paso"]

PASO_TEXT = "none: every lance en paso"

#: deals simulated by default (about 1 s with numba once compiled)
DEFAULT_DEALS = 4_000_000
#: seed used by default, so that the default model is reproducible and cacheable
DEFAULT_SEED = 1
#: which team is mano in the next hand: ours, theirs, or the average of both
MANO_CHOICES = ("us", "them", "avg")


def mano_choice(mano: str) -> str:
    """``us``, ``them`` or ``avg`` from a user's spelling (MusError otherwise)."""
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
    outcomes: Outcomes | BettingOutcomes
    p: np.ndarray  # float64 [2, T, T]
    timings: dict = field(default_factory=dict)
    betting: str = PASO_TEXT

    @property
    def target(self) -> int:
        return self.variant.target

    def grid(self, mano: str = "avg") -> np.ndarray:
        """P(we win) [T, T] indexed [our score, their score], for mano us|them|avg next hand."""
        m = mano_choice(mano)
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
        return {"variant": self.variant.name, "rules": self.variant.describe(), "target": self.target,
                "deals": o.deals,
                "seed": o.seed, "source": o.source, "outcomes": o.n_outcomes,
                "betting": self.betting,
                **({"p_ordago_accepted": o.p_ordago()} if isinstance(o, BettingOutcomes) else {})}

    def to_dict(self, mano: str = "avg") -> dict:
        """The JSON document of ``musstats game --format json`` (:meth:`summary`)."""
        return self.summary(mano)

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
            "mano": mano_choice(mano),
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


#: outcome tables already simulated in this process, by cache key
_MEMO: dict[tuple, Outcomes | BettingOutcomes] = {}


def game_model(
    variant: str | Variant = "8-reyes",
    *,
    juego_real: str = "off",
    target: int | None = None,
    redeal_4567: bool = False,
    mus_visto: bool = False,
    deals: int | None = None,
    seed: int | None = None,
    source: str | DealSource | np.ndarray | None = None,
    outcomes: Outcomes | BettingOutcomes | None = None,
    cache: bool = True,
    progress: Progress | None = None,
    betting: bool = False,
) -> GameModel:
    """The win-the-game model for the rules of ``variant`` (a name or a :class:`Variant`).

    The outcome table of ``deals`` deals (default 4,000,000, seed 1) from ``source``
    (default ``after-mus``; with ``betting`` one of ``mus-decision``, the default, and
    ``as-dealt``) is simulated once per rules (every switch), source, number of deals and
    seed, and cached in memory and on disk (written atomically); the dynamic programme is recomputed each
    time (a few ms).  Pass ``outcomes`` to use a given table (nothing is simulated or
    cached).

    >>> m = game_model("8-reyes")
    >>> 0.5 < m.p_win(0, 0, "us") < 0.6        # mano's team is favoured from 0-0
    True
    """
    v = make_variant(variant, juego_real, target, redeal_4567=redeal_4567, mus_visto=mus_visto)
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    if betting:
        if outcomes is None:
            src = BETTING_SOURCE if source is None else source
            if not (isinstance(src, str) and src in BETTING_SOURCES):
                raise MusError(f"the model with betting plays the hands after the mus decision or as dealt; "
                               f"accepted deal sources: {', '.join(BETTING_SOURCES)}")
            n = checks.deals(deals, DEFAULT_BETTING_DEALS)
            seed = DEFAULT_SEED if seed is None else checks.seed(seed)
            outcomes, key = _cached_betting(v, n, seed, timings, progress, cache, src)
            p = _cached_grid(outcomes, key + (v.target,), v.target, timings, cache)
        else:
            t1 = time.perf_counter()
            p = win_probabilities(outcomes, v.target)
            timings["dp_s"] = time.perf_counter() - t1
        return GameModel(v, outcomes, p, timings, BETTING_TEXT)
    if outcomes is None:
        n = checks.deals(deals, DEFAULT_DEALS)
        seed = DEFAULT_SEED if seed is None else checks.seed(seed)
        if source is None:
            source = DEFAULT_SOURCE
        if cache and isinstance(source, str):
            outcomes = _cached_outcomes(v, source, n, seed, timings, progress)
        else:
            outcomes = paso_outcomes(v, deals=n, seed=seed, source=source, progress=progress)
            timings["simulate_s"] = time.perf_counter() - t0
    t1 = time.perf_counter()
    p = win_probabilities(outcomes, v.target)
    timings["dp_s"] = time.perf_counter() - t1
    return GameModel(v, outcomes, p, timings)


def betting_key(v: Variant, n: int, seed: int, source: str = BETTING_SOURCE) -> dict:
    """Everything the betting outcome table depends on (its cache and shipped key)."""
    from musstats.analysis.betting import plans_key
    from musstats.analysis.game.betting import PLAY_VERSION, reads_who_cut
    from musstats.analysis.game.sources import source_key
    from musstats.engines.betting import deals as D
    from musstats.engines.betting.deals import SUBGAMES
    from musstats.engines.betting.specs import Spec

    if v.ten_kings:
        raise MusError("betting equilibria are not available with ten kings")
    deals = ("as-dealt",) if source == "as-dealt" else ("as-dealt", "after-mus")
    # where the mus decision's equilibrium cuts, the hands as dealt are bet by the strategies that read who cut
    read = source == "mus-decision" and reads_who_cut(v)
    return {"rules": v.cache_key(target=False), "deal": source_key(source, v), "play": PLAY_VERSION, "deals": int(n),
            "seed": int(seed),
            # the fields the shipped strategies are matched by (not their source-hashed cache keys)
            "strategies": [Spec(lance=lance, pattern=pat, deal=D.CUT, info="mus-read", variant=v).fields()
                           for lance, pat in SUBGAMES if read]
            + [Spec(lance=lance, pattern=pat, deal=deal, info="private", variant=v).fields()
                           for deal in deals for lance, pat in SUBGAMES],
            "plans": plans_key(v, deals)}


def _betting_memo_key(k: dict) -> tuple:
    """The memory and disk cache key of a betting outcome table: every field of its
    :func:`betting_key` (the strategies and the plans they are played by included)."""
    return ("betting", json.dumps(k, sort_keys=True))


#: P(win) grids of the betting model already computed in this process (its DP takes about a second)
_GRIDS: dict[tuple, np.ndarray] = {}


def _cached_grid(outcomes: BettingOutcomes, key: tuple, target: int, timings: dict[str, float],
                 use_cache: bool) -> np.ndarray:
    """The DP of a betting outcome table, from memory, the disk cache or computed."""
    t1 = time.perf_counter()

    def read(z):
        return z["p"] if "p" in z and z["p"].shape == (2, target, target) else None

    p, _ = cache.fetch(_GRIDS, key, "betting-grid", read, lambda: win_probabilities(outcomes, target),
                       lambda q: {"p": q}, use_disk=use_cache)
    timings["dp_s"] = time.perf_counter() - t1
    return p


def _cached_betting(v: Variant, n: int, seed: int, timings: dict[str, float], progress: Progress | None,
                    use_cache: bool, source: str = BETTING_SOURCE) -> tuple[BettingOutcomes, tuple]:
    """The betting outcome table of (rules, deal source, deals, seed, strategies): shipped,
    memory, disk or played."""
    from musstats.analysis.game.betting import load_shipped

    t0 = time.perf_counter()
    k = betting_key(v, n, seed, source)
    key = _betting_memo_key(k)
    if key not in _MEMO:
        shipped = load_shipped(v, k)
        if shipped is not None:
            _MEMO[key] = shipped
            timings["load_s"] = time.perf_counter() - t0

    def read(z):
        if not {"signed", "prob"} <= set(z):
            return None
        return BettingOutcomes(z["signed"], z["prob"], deals=n, seed=seed, source=source)

    out, how = cache.fetch(_MEMO, key, "betting-outcomes", read,
                           lambda: betting_outcomes(v, deals=n, seed=seed, progress=progress, source=source),
                           lambda o: {"signed": o.signed.astype(np.int16), "prob": o.prob}, use_disk=use_cache)
    _note_time(timings, how, t0)
    return cast(BettingOutcomes, out), key


def _cached_outcomes(v: Variant, source: str, n: int, seed: int, timings: dict[str, float],
                     progress: Progress | None = None) -> Outcomes:
    """The outcome table of (rules, source, deals, seed), from memory, disk or a simulation."""
    from musstats.analysis.game.sources import source_key

    t0 = time.perf_counter()
    # the deals after a mus round depend on the discard table (and cut flags): key on them
    key = (v.cache_key(target=False), source_key(source, v), n, seed)
    if key not in _MEMO:
        shipped = load_shipped_paso(v, source, key)
        if shipped is not None:
            _MEMO[key] = shipped
            timings["load_s"] = time.perf_counter() - t0

    def read(z):
        if not {"signed", "prob"} <= set(z):
            return None
        try:
            return Outcomes(z["signed"], z["prob"], deals=n, seed=seed, source=source)
        except MusError:
            return None

    out, how = cache.fetch(_MEMO, key, "paso-outcomes", read,
                           lambda: paso_outcomes(v, deals=n, seed=seed, source=source, progress=progress),
                           lambda o: {"signed": o.signed, "prob": o.prob})
    _note_time(timings, how, t0)
    return cast(Outcomes, out)


def paso_shipped_path(variant: Variant) -> Path:
    """``musstats/data/game_paso_<deck>_<juego real>.npz``: the en-paso outcome tables of the
    default deals and seed, per deal source (scripts/build_game_paso.py)."""
    from musstats.base.files import data_file

    return data_file("game_paso", variant)


def paso_shipped_key(v: Variant, source: str, n: int, seed: int) -> tuple:
    """What a shipped en-paso table was made for (its key in :func:`load_shipped_paso`)."""
    from musstats.analysis.game.sources import source_key

    return (v.cache_key(target=False), source_key(source, v), int(n), int(seed))


def load_shipped_paso(v: Variant, source: str, key: tuple) -> Outcomes | None:
    """The shipped en-paso table of ``source`` when it was made for exactly ``key`` (rules,
    deal source with its discard table and cut flags, deals, seed); None otherwise."""
    z = read_npz(paso_shipped_path(v))
    if z is None or f"{source}.meta" not in z:
        return None
    try:
        if tuple(json.loads(bytes(z[f"{source}.meta"]).decode())) != tuple(json.loads(json.dumps(list(key)))):
            return None
        return Outcomes(z[f"{source}.signed"], z[f"{source}.prob"], deals=int(key[2]), seed=int(key[3]), source=source)
    except (KeyError, ValueError, MusError):
        return None


def _note_time(timings: dict[str, float], how: str, t0: float) -> None:
    """``load_s`` (read from disk) or ``simulate_s`` (computed) since ``t0``."""
    if how == "disk":
        timings["load_s"] = time.perf_counter() - t0
    elif how == "made":
        timings["simulate_s"] = time.perf_counter() - t0


#: which models ``musstats game`` reports
MODEL_CHOICES = ("paso", "betting", "both")


def betting_available(v: Variant) -> bool:
    """Whether the model with betting is shipped for these rules (no solving, no waiting)."""
    from musstats.analysis.game.betting import load_shipped

    try:
        return load_shipped(v, betting_key(v, DEFAULT_BETTING_DEALS, DEFAULT_SEED)) is not None
    except MusError:  # e.g. ten kings: no betting equilibria
        return False


def game_report(variant: Variant, *, model: str | None = None, mano: str = "avg", deals: int | None = None,
                seed: int | None = None, progress: Progress | None = None) -> tuple[dict, GameModel]:
    """The document of ``musstats game`` and its primary model.

    ``model``: ``paso`` (the en-paso model), ``betting`` (the model with betting), or
    ``both`` (default when the betting model is shipped for the rules): the en-paso
    summary with the betting model's beside it (``with_betting``) and the effect of
    betting on P(win) from 0-0, both models on the same hands, after the mus decision
    (``betting_effect``)."""
    m = checks.choice(model, MODEL_CHOICES, "game model") if model is not None else (
        "both" if betting_available(variant) else "paso")
    if m == "betting":
        g = game_model(variant, deals=deals, seed=seed, progress=progress, betting=True)
        return g.to_dict(mano), g
    g = game_model(variant, deals=deals, seed=seed, progress=progress)
    doc = g.to_dict(mano)
    if m == "both":
        gb = game_model(variant, deals=deals, seed=seed, progress=progress, betting=True)
        ga = game_model(variant, deals=deals, seed=seed, progress=progress, source=BETTING_SOURCE)
        b = gb.to_dict(mano)
        doc["timings_s"] = {**doc["timings_s"], **{f"betting_{k}": v for k, v in b.pop("timings_s").items()}}
        doc["with_betting"] = b
        x, y = float(ga.p[0, 0, 0]), float(gb.p[0, 0, 0])
        doc["betting_effect"] = {"what": "P(mano's team of the first hand wins the game from 0-0), both models on "
                                         "the hands after the mus decision",
                                 "en_paso": x, "with_betting": y, "difference": y - x}
    return doc, g


def ordago_stones(variant: str | Variant | None = None, *, deals: int = 4_000_000, seed: int = 1) -> float:
    """``K = (1 - W(0, 0)) / dW``, ``dW = (W(1, 0) - W(0, 1)) / 2``, from the en-paso game
    model (average over who is mano): the stones-equivalent of winning the game at 0-0."""
    m = game_model(variant if variant is not None else Variant(), deals=deals, seed=seed)
    g = m.grid("avg")
    dw = (g[1, 0] - g[0, 1]) / 2
    return float((1 - g[0, 0]) / dw)
