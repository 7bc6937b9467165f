"""The odds of every lance for one hand at one seat: :func:`odds`."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Iterable

import numpy as np

from musstats.base.errors import MusError
from musstats.engines.exact import CONTESTED_LANCES, STATS
from musstats.engines.run import Progress
from musstats.rules import checks
from musstats.rules.cards import Card, parse_cards
from musstats.rules.labels import LANCES
from musstats.rules.seats import Seating
from musstats.rules.variant import Variant, make_variant
from musstats.tables.context import Context, make_context

__all__ = ["OddsResult", "odds", "METHODS", "STATS"]

METHODS = ("exact", "mc")


@dataclass
class OddsResult:
    """Per-lance odds for one hand and seat, with their standard errors.

    ``mean`` and ``se`` are float [5 lances, 5 stats] (``LANCES`` x ``STATS``); ``p_contested``
    is NaN where it does not apply and the standard errors are 0 for exact results.
    """

    context: Context
    method: str
    mean: np.ndarray
    se: np.ndarray
    trials: int | None = None
    seed: int | None = None
    partial: bool = False
    #: ten kings: per fixed identity of the user's jokers, {"identity", "mean", "se"}
    identities: list = field(default_factory=list)

    @property
    def variant(self) -> Variant:
        return self.context.variant

    @property
    def hand(self) -> list[Card]:
        return list(self.context.hand)

    @property
    def seat(self) -> int:
        """Seat index (0 = mano)."""
        return self.context.seat

    def to_frame(self):
        """One row per lance; columns the stats and ``se_<stat>``; run metadata in ``attrs``."""
        import pandas as pd

        df = pd.DataFrame(self.mean, index=pd.Index(LANCES, name="lance"), columns=list(STATS))
        for si, st in enumerate(STATS):
            df["se_" + st] = self.se[:, si]
        df.attrs.update({k: v for k, v in self.to_dict().items() if k != "lances"})
        return df

    def to_dict(self) -> dict[str, Any]:
        """The JSON document printed by ``musstats odds --format json``."""
        from musstats.engines.jokers import IDENTITY_RULE

        out = {
            **self.context.describe(),
            "method": self.method,
            "trials": self.trials,
            "seed": self.seed,
            "partial": self.partial,
            "lances": _lances_dict(self.mean, self.se),
        }
        if self.variant.ten_kings:
            out["identity_rule"] = IDENTITY_RULE
            out["identities"] = [{"identity": d["identity"], "lances": _lances_dict(d["mean"], d["se"])}
                                 for d in self.identities]
        return out


def _lances_dict(mean: np.ndarray, se_arr: np.ndarray) -> dict[str, Any]:
    lances: dict[str, Any] = {}
    for li, lance in enumerate(LANCES):
        entry: dict[str, Any] = {}
        se: dict[str, float | None] = {}
        for si, st in enumerate(STATS):
            if st == "p_contested" and lance not in CONTESTED_LANCES:
                continue
            entry[st] = None if np.isnan(mean[li, si]) else float(mean[li, si])
            se[st] = None if np.isnan(se_arr[li, si]) else float(se_arr[li, si])
        entry["se"] = se
        lances[lance] = entry
    return lances


def odds(
    hand: str | Iterable,
    seat: str | int = "mano",
    *,
    variant: str | Variant = "8-reyes",
    juego_real: str = "off",
    target: int | None = None,
    redeal_4567: bool = False,
    mus_visto: bool = False,
    players: int = 4,
    individual: bool = False,
    method: str | None = None,
    dead: str | Iterable | None = None,
    declared: str | Iterable[str] | None = None,
    signal: str | Iterable[str] | None = None,
    joker: str | Iterable[str] | None = None,
    trials: int | None = None,
    target_se: float | None = None,
    seed: int | None = None,
    threads: int | None = None,
    progress: Progress | None = None,
) -> OddsResult:
    """Odds of each lance for ``hand`` at ``seat`` (a name or a number from 1 = mano).

    Per lance: ``p_team`` (the best hand of the lance is our team's), ``p_self`` (it is
    ours), ``p_played`` (the lance is played), ``p_contested`` (pares/juego: two teams hold
    it), ``ev_net`` (expected net stones en paso, ours minus theirs), each with its standard
    error.  ``method``: ``"exact"`` (the default for four players in partnerships and for two
    players) or ``"mc"`` (the default with ten kings and other tables).  ``dead``: cards seen
    on the table; ``declared`` (``"second:pares,postre:no-juego"``) and ``signal`` (the
    partner's seña) condition the other hands.  ``joker`` (ten kings): fix your jokers, e.g.
    ``"S/o=A"``.  ``players`` 2..6 with ``individual`` (no partners), or 4 or 6 in
    partnerships.  Monte Carlo: ``trials`` or ``target_se``, ``seed``, ``threads``;
    ``progress(done, total)`` after every batch.

    >>> r = odds("R R 3 A", "mano")
    >>> float(round(r.mean[0, 0], 4)), r.method   # P(our team wins grande)
    (0.9917, 'exact')
    """
    if hand is None:
        raise MusError('a hand is required, e.g. "R R 3 A"')
    v = make_variant(variant, juego_real, target, redeal_4567=redeal_4567, mus_visto=mus_visto)
    seating = Seating(checks.whole(players, "players", 2, 6), individual)
    ctx = make_context(v, hand, seat, dead=dead, declared=declared, signal=signal, seating=seating)
    exact_ok = not v.ten_kings and ((seating.players == 4 and not seating.individual) or
                                    (seating.players == 2 and seating.individual))
    if method is None:  # sampling options ask for Monte Carlo
        sampling = trials is not None or target_se is not None or seed is not None
        method = "exact" if exact_ok and not sampling else "mc"
    method = checks.choice(method, METHODS, "method")
    if joker and not v.ten_kings:
        raise MusError("--joker fixes a joker's identity and goes with --variant ten-kings")
    if method == "exact":
        if not exact_ok:
            raise MusError("exact odds cover four players in partnerships and two players individually"
                           + (" without ten kings (each joker's identity depends on all four hands)"
                              if v.ten_kings else "") + "; use --method mc")
        if trials is not None or target_se is not None or seed is not None:
            raise MusError("--trials, --target-se and --seed go with --method mc (exact odds have no sampling)")
        checks.threads(threads)
        mean = _exact_mean(ctx)
        se = np.where(np.isnan(mean), np.nan, 0.0)
        return OddsResult(ctx, "exact", mean, se)
    if v.ten_kings:
        return _ten_kings_odds(ctx, joker, trials, target_se, seed, threads, progress)
    from musstats.engines.montecarlo import simulate

    r = simulate(ctx, trials=trials, target_se=target_se, seed=seed, threads=threads, progress=progress)
    return OddsResult(ctx, "mc", r.mean, r.se, trials=r.trials, seed=r.seed, partial=r.partial)


def _exact_mean(ctx: Context) -> np.ndarray:
    if ctx.seating.players == 2:
        from musstats.engines.exact import exact_two

        return exact_two(ctx)
    from musstats.engines.exact import exact_table

    return exact_table(ctx)


def _joker_option(ctx: Context, joker: str | Iterable[str]) -> int:
    """Option index (= number of jokers fixed as an as) from ``S/o=A``-style items."""
    items = [joker] if isinstance(joker, str) else list(joker)
    items = [x.strip() for it in items for x in str(it).replace(";", ",").split(",") if x.strip()]
    held = [c for c in ctx.hand if c.face == 10 and c.suit in ("copas", "oros")]
    pairs = []
    for it in items:
        if "=" not in it:
            raise MusError(f"--joker takes CARD=R or CARD=A, e.g. S/o=A; got {it!r}")
        card_txt, ident = it.split("=", 1)
        card = parse_cards(card_txt)
        if len(card) != 1:
            raise MusError(f"--joker names one card, got {card_txt!r}")
        c = card[0]
        if not (c.face == 10 and c.suit in ("copas", "oros")):
            raise MusError(f"{c.label} is not a joker; with ten kings the jokers are S/c and S/o")
        if c not in held:
            raise MusError(f"the joker {c.label} is not in your hand")
        ident = ident.strip().upper()
        ident = {"REY": "R", "AS": "A", "12": "R", "1": "A"}.get(ident, ident)
        if ident not in ("R", "A"):
            raise MusError(f"a joker stands for a rey or an as: write {c.label}=R or {c.label}=A")
        pairs.append((c.label, ident))
    fixed = checks.one_of_each(pairs, "the joker")
    if len(fixed) != len(held):
        raise MusError("fix every joker you hold with --joker (e.g. --joker S/c=R --joker S/o=A)")
    return sum(1 for x in fixed.values() if x == "A")


def _ten_kings_odds(ctx: Context, joker, trials, target_se, seed, threads, progress) -> OddsResult:
    from musstats.engines.jokers import simulate_ten_kings

    if target_se is not None:
        raise MusError("with ten kings give the number of deals with --trials (no --target-se)")
    n = checks.trials(trials, 1_000_000, checks.MAX_TK_TRIALS)
    fixed = _joker_option(ctx, joker) if joker else -1
    r = simulate_ten_kings(ctx, trials=n, seed=seed, fixed_option=fixed, threads=threads, progress=progress)
    jt = ctx.jokers
    u = ctx.user
    if fixed >= 0:
        ctx = replace(ctx, conditions={**ctx.conditions, "joker": jt.labels[u][fixed]})
    res = OddsResult(ctx, "mc", r.mean, r.se, trials=r.trials, seed=r.seed, partial=r.partial)
    if fixed >= 0 or r.partial:
        return res
    for k in range(int(jt.n_options[u]) if jt.n_options[u] > 1 else 0):
        rk = simulate_ten_kings(ctx, trials=n, seed=r.seed, fixed_option=k, threads=threads)
        if rk.partial:
            res.partial = True
            break
        res.identities.append({"identity": jt.labels[u][k], "mean": rk.mean, "se": rk.se})
    return res
