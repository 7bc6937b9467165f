"""Public Python API: validated entry points that return pandas DataFrames."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

import numpy as np

from musstats.rules.cards import Card, check_physical, parse_cards, parse_hand
from musstats.base.errors import MusError
from musstats.tables.hands import LANCES, hand_tables
from musstats.rules.seats import SEATS, parse_seat
from musstats.rules.variant import Variant, make_variant

STATS = ("p_team", "p_self", "p_played", "p_contested", "ev_net")
METHODS = ("exact", "mc")
CONTESTED_LANCES = ("pares", "juego")


@dataclass
class OddsResult:
    """Per-lance odds for one hand and seat, with their standard errors."""

    hand: list[Card]
    seat: int
    variant: Variant
    method: str
    mean: np.ndarray  # float [5 lances, 5 stats]; NaN p_contested where it does not apply
    se: np.ndarray  # same shape; zeros for exact
    trials: int | None = None
    seed: int | None = None
    partial: bool = False
    dead: list[Card] = field(default_factory=list)
    players: int = 4
    conditions: dict = field(default_factory=dict)
    #: ten kings: per fixed identity of the user's jokers, {"identity", "mean", "se"}
    identities: list = field(default_factory=list)

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
        out = {
            "hand": [c.label for c in self.hand],
            "seat": _seat_name(self.seat, self.players),
            "variant": self.variant.name,
            "rules": self.variant.describe(),
            "players": self.players,
            "dead": [c.label for c in self.dead],
            "conditions": self.conditions,
            "method": self.method,
            "trials": self.trials,
            "seed": self.seed,
            "partial": self.partial,
            "lances": _lances_dict(self.mean, self.se),
        }
        if self.variant.ten_kings:
            out["identity_rule"] = "each holder fixes his jokers to maximise his team's stones at the count"
            out["identities"] = [{"identity": d["identity"], "lances": _lances_dict(d["mean"], d["se"])}
                                 for d in self.identities]
        return out


def _lances_dict(mean: np.ndarray, se_arr: np.ndarray) -> dict[str, Any]:
    lances: dict[str, Any] = {}
    for li, lance in enumerate(LANCES):
        entry: dict[str, Any] = {}
        se: dict[str, float] = {}
        for si, st in enumerate(STATS):
            if st == "p_contested" and lance not in CONTESTED_LANCES:
                continue
            entry[st] = float(mean[li, si])
            se[st] = float(se_arr[li, si])
        entry["se"] = se
        lances[lance] = entry
    return lances


def _seat_name(seat: int, players: int = 4) -> str:
    if players == 4:
        return SEATS[seat]
    return "mano" if seat == 0 else ("postre" if seat == players - 1 else str(seat + 1))


def _parse_dead(dead: str | Iterable | None) -> list[Card]:
    if dead is None:
        return []
    return parse_cards(dead)


def compute_odds(
    hand: str | Iterable,
    seat: str | int = "mano",
    variant: str | Variant = "8-reyes",
    juego_real: str = "off",
    *,
    method: str | None = None,
    dead: str | Iterable | None = None,
    trials: int | None = None,
    target_se: float | None = None,
    seed: int | None = None,
    threads: int | None = None,
    players: int = 4,
    declared: str | None = None,
    signal: str | None = None,
    redeal_4567: bool = False,
    mus_visto: bool = False,
    joker: str | Iterable[str] | None = None,
    progress: bool = False,
) -> OddsResult:
    """Validate the inputs and compute the per-lance odds (see :func:`odds`)."""
    v = make_variant(variant, juego_real, redeal_4567=redeal_4567, mus_visto=mus_visto)
    cards = parse_hand(hand)
    dead_cards = _parse_dead(dead)
    check_physical(cards + dead_cards, "hand and dead cards")
    if players not in (4, 6):
        raise MusError(f"players must be 4 or 6, got {players!r}")
    s = parse_seat(seat) if players == 4 else _parse_seat6(seat)
    tables = hand_tables(v)
    tables.remaining(cards + dead_cards)
    allowed = None
    if declared or signal:
        if players != 4:
            raise MusError("--declared and --signal are available for 4 players")
        from musstats.rules.conditions import build_allowed

        allowed = build_allowed(v, tables.index_of(cards), s, declared, signal)
    conds = {k: val for k, val in (("declared", declared), ("signal", signal)) if val}
    if v.redeal_4567:
        from musstats.rules.conditions import redeal_allowed

        allowed = redeal_allowed(v, tables.index_of(cards), allowed)
    method = ("mc" if v.ten_kings or players == 6 else "exact") if method is None else str(method).lower()
    if method not in METHODS:
        raise MusError(f"unknown method {method!r}; accepted: {', '.join(METHODS)}")
    if joker and not v.ten_kings:
        raise MusError("--joker fixes a joker's identity and goes with --variant ten-kings")
    if v.ten_kings:
        fixed = _joker_option(cards, joker) if joker else -1
        return _ten_kings_odds(cards, s, v, method, dead_cards, trials, target_se, seed, players, conds,
                               allowed, fixed)
    if method == "exact":
        if players != 4:
            raise MusError("the exact method covers 4 players; use --method mc for 6 players")
        if trials is not None or target_se is not None:
            raise MusError("--trials and --target-se go with --method mc")
        from musstats.engines.exact import exact_table

        mean = exact_table(cards, s, v, dead_cards, allowed=allowed)
        se = np.where(np.isnan(mean), np.nan, 0.0)
        return OddsResult(cards, s, v, "exact", mean, se, dead=dead_cards, players=players,
                          conditions=conds)
    from musstats.engines.montecarlo import simulate

    r = simulate(cards, s, v, dead=dead_cards, trials=trials, target_se=target_se, seed=seed,
                 threads=threads, players=players, allowed=allowed, progress=progress)
    return OddsResult(cards, s, v, "mc", r.mean, r.se, trials=r.trials, seed=r.seed,
                      partial=r.partial, dead=dead_cards, players=players, conditions=conds)


def _joker_option(cards: list[Card], joker: str | Iterable[str]) -> int:
    """Option index (= number of jokers fixed as an as) from ``S/o=A``-style items."""
    items = [joker] if isinstance(joker, str) else list(joker)
    items = [x.strip() for it in items for x in str(it).replace(";", ",").split(",") if x.strip()]
    held = [c for c in cards if c.face == 10 and c.suit in ("copas", "oros")]
    fixed: dict[str, str] = {}
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
        fixed[c.label] = ident
    if len(fixed) != len(held):
        raise MusError("fix every joker you hold with --joker (e.g. --joker S/c=R --joker S/o=A)")
    return sum(1 for x in fixed.values() if x == "A")


def _ten_kings_odds(cards, s, v, method, dead_cards, trials, target_se, seed, players, conds, allowed,
                    fixed: int = -1):
    from musstats.engines.jokers import joker_tables, simulate_ten_kings

    if method == "exact":
        raise MusError("exact odds are not available with ten kings (each joker's identity depends on "
                       "all four hands); use --method mc")
    if players != 4:
        raise MusError("ten kings is available for 4 players")
    if conds:
        raise MusError("--declared and --signal are not available with ten kings")
    if target_se is not None:
        raise MusError("with ten kings give the number of deals with --trials (no --target-se)")
    if trials is not None and (isinstance(trials, bool) or not isinstance(trials, (int, np.integer)) or trials < 1):
        raise MusError(f"--trials must be a whole number of at least 1, got {trials!r}")
    n = int(trials or 1_000_000)
    r = simulate_ten_kings(cards, s, v, dead=dead_cards, trials=n, seed=seed, allowed=allowed,
                           fixed_option=fixed)
    res = OddsResult(cards, s, v, "mc", r.mean, r.se, trials=r.trials, seed=r.seed, dead=dead_cards,
                     players=players, conditions=conds)
    jt = joker_tables(v)
    u = hand_tables(v).index_of(cards)
    if fixed >= 0:
        res.conditions["joker"] = jt.labels[u][fixed]
        return res
    for k in range(int(jt.n_options[u]) if jt.n_options[u] > 1 else 0):
        rk = simulate_ten_kings(cards, s, v, dead=dead_cards, trials=n, seed=r.seed, allowed=allowed,
                                fixed_option=k)
        res.identities.append({"identity": jt.labels[u][k], "mean": rk.mean, "se": rk.se})
    return res


def _parse_seat6(seat: str | int) -> int:
    s = str(seat).strip().lower()
    names = {"mano": 0, "1": 0, "postre": 5, "6": 5}
    names.update({str(i): i - 1 for i in range(2, 6)})
    if s in names:
        return names[s]
    raise MusError(f"unknown seat {seat!r} for 6 players; accepted: mano, 2, 3, 4, 5, postre (or 1-6)")


def odds(
    hand: str | Iterable,
    seat: str | int = "mano",
    variant: str | Variant = "8-reyes",
    juego_real: str = "off",
    **options: Any,
):
    """Odds of each lance for ``hand`` at ``seat``: a DataFrame with one row per lance.

    Columns: ``p_team`` (the best hand of the lance is our team's), ``p_self`` (it is
    ours), ``p_played`` (the lance is played), ``p_contested`` (pares/juego: both teams
    hold it), ``ev_net`` (expected net stones en paso), and ``se_*`` standard errors.
    Options: ``method`` ("exact" or "mc"), ``dead``, ``trials``, ``target_se``, ``seed``,
    ``threads``, ``players``, ``declared`` ("second:pares,postre:no-juego"), ``signal``
    (the partner's seña, e.g. "duples").
    """
    return compute_odds(hand, seat, variant, juego_real, **options).to_frame()
