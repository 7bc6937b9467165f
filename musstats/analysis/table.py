"""The strategy table: one row per hand and seat with its odds, mus advice and órdago numbers
(``musstats table``).

Columns (``LANCES`` = grande chica pares juego punto):

* ``hand`` (label, highest card first), ``hand_index``, ``seat``;
* ``deal_freq``: how often the hand is dealt, ``deal_weight / 91390`` (C(40, 4) card
  combinations); it sums to 1 over the hands of a variant;
* ``p_team_<lance>``, ``p_self_<lance>``, ``ev_net_<lance>``: exact (as ``musstats odds``),
  and ``ev_net_total`` = their sum: the expected net stones en paso if the mus is cut now,
  over every deal;
* the mus advice, exactly as ``musstats mus HAND --seat SEAT --seed SEED --trials TRIALS``
  computes it (the same deals): on the deals in which the other three ask for mus
  (``p_others_ask`` of them), ``mus_cut_ev`` = cutting, ``mus_ev_total`` ± ``mus_se_total``
  = one mus round keeping ``best_keep`` (``–`` = throw all four; ``best_discard`` cards
  thrown), the others discarding by the strategy table; ``mus_gain`` ± ``mus_gain_se`` =
  their difference (common random numbers); ``advice`` = ``cut`` when ``mus_gain <= 0``
  else ``mus``, ``advice_close`` when ``|mus_gain| < 2 SE``;
* the same comparison with betting, as ``musstats mus`` prints it ("With betting"): every
  lance bet by the shipped equilibrium strategies (the en-paso stones plus the betting gain
  of the hand kept by cutting and of the final hand after the draw, on the deals in which
  the other three ask): ``mus_keep_bet`` (the keep-set that is best with betting),
  ``mus_gain_bet`` ± ``mus_gain_bet_se`` (asking minus cutting) and ``advice_bet``; NaN and
  ``–`` where the gain tables do not ship (anything but plain 8 reyes, one mus round);
* the equilibrium of the mus decision, as ``musstats mus`` gives it
  (:mod:`musstats.analysis.cut_game`): ``cut_p_eq`` (the probability of cutting),
  ``cut_gain_eq`` ± ``cut_gain_eq_se`` (cutting minus asking, for the seat's team, when he
  speaks) and ``advice_eq``; NaN and ``–`` where it does not ship;
* ``ev_bet_<lance>`` and ``ev_bet_total``: the expected net stones of the hand under
  equilibrium betting of every lance (the shipped strategies, hands as dealt; Monte Carlo
  over 1,000,000 deals, :func:`musstats.analysis.betting.ev_table`), beside the en-paso
  ``ev_net_<lance>``; NaN for rules without shipped strategies (anything but plain 8 reyes);
* ``p_ordago_<lance>``: P(our team wins the lance if an órdago there is seen), exact as
  ``musstats ordago`` (grande, chica: p_team; pares, juego: given the lance is contested;
  punto: given it is played) -- only for the lances this hand can bet in (pares and juego
  when it holds them, punto when it holds no juego; NaN otherwise);
  ``ordago_break_even_call`` = W(0, 0) and ``ordago_break_even_accept`` = W(0, 1) from the
  game model, with our team as mano's team when the seat is mano or third;
  ``ordago_call`` lists the lances where ``p_ordago >= ordago_break_even_call`` (at most
  one of juego and punto).

The work is split by hand (one exact call covers all four seats).  It runs locally, or on
a Dask cluster through a runner (:func:`musstats.engines.distributed.dask_runner`); results
are identical because every random stream is seeded by (seed, seat, hand).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from musstats.base.errors import MusError
from musstats.engines.run import Progress
from musstats.rules import checks
from musstats.rules.labels import LANCES, SEATS
from musstats.rules.seats import FOUR
from musstats.rules.variant import Variant, make_variant
from musstats.tables.hands import hand_tables

__all__ = ["COLUMNS", "DEFAULT_TRIALS", "DEFAULT_SEED", "TableJob", "TableResult", "strategy_table",
           "parse_hands", "parse_seats", "hand_rows", "make_job", "seat_summary", "odds_grid", "bet_grid",
           "BETTING_RULES"]

#: deals per keep-set in the mus evaluation (~50 ms per hand and seat)
DEFAULT_TRIALS = 20_000
#: default seed: tables are reproducible unless asked otherwise
DEFAULT_SEED = 2026
#: card combinations of one 4-card hand from the 40-card deck, C(40, 4)
TOTAL_DEALS = 91_390
#: |mus_gain| below this many standard errors is flagged ``advice_close``
CLOSE_SE = 2.0

COLUMNS = (
    ["hand", "hand_index", "seat", "deal_freq"]
    + [f"{st}_{lance}" for lance in LANCES for st in ("p_team", "p_self", "ev_net")]
    + ["ev_net_total", "p_others_ask", "mus_cut_ev", "best_keep", "best_discard", "mus_ev_total", "mus_se_total",
       "mus_gain", "mus_gain_se", "advice", "advice_close", "mus_keep_bet", "mus_gain_bet", "mus_gain_bet_se",
       "advice_bet", "cut_p_eq", "cut_gain_eq", "cut_gain_eq_se", "advice_eq"]
    + [f"p_ordago_{lance}" for lance in LANCES]
    + ["ordago_break_even_call", "ordago_break_even_accept", "ordago_call"]
    + [f"ev_bet_{lance}" for lance in LANCES] + ["ev_bet_total"]
)
#: the rules of the shipped betting strategies (the ``ev_bet_*`` columns need them)
BETTING_RULES = Variant()


@dataclass(frozen=True, eq=False)
class TableJob:
    """Everything a worker needs to compute the rows of one hand (small and picklable)."""

    variant: Variant
    seats: tuple[int, ...]
    trials: int
    seed: int
    policy: np.ndarray  # uint8 [4, H]: how the others (and we, in later rounds) discard
    policy_name: str
    break_even: tuple[tuple[float, float], tuple[float, float]]  # [team] -> (call, accept)
    model_info: dict | None = None  # the game model's description (metadata only)


@dataclass
class TableResult:
    """The strategy table: a DataFrame (``COLUMNS``) and the run's metadata."""

    frame: Any
    partial: bool = False

    def to_frame(self):
        """One row per hand and seat; metadata in ``attrs``."""
        return self.frame

    def to_dict(self) -> dict[str, Any]:
        """``{"meta": ..., "columns": [...], "rows": [...]}``, as ``--out FILE.json`` writes it."""
        from musstats.base.jsonable import frame_records, jsonable

        return {"meta": jsonable(dict(self.frame.attrs)), "columns": [str(c) for c in self.frame.columns],
                "rows": frame_records(self.frame)}


def parse_hands(spec: str | int | Sequence | None, variant: Variant) -> list[int]:
    """Hand indices from ``--hands``: None (all), a count N (the first N hands, strongest
    at grande first), a comma-separated list of hands such as ``RR3A,R C S A``, or (from
    Python) a list of hand indices."""
    t = hand_tables(variant)
    n = t.n_hands
    accepted = (f"--hands takes a number of hands (1..{n}, the strongest at grande first) or a "
                f"comma-separated list of hands such as 'RRRA,R C 7 A'")
    if spec is None:
        return list(range(n))
    if isinstance(spec, (int, np.integer)) and not isinstance(spec, bool):
        spec = str(int(spec))
    if not isinstance(spec, str):
        items = list(spec)  # type: ignore[arg-type]
        if items and all(isinstance(h, (int, np.integer)) and not isinstance(h, bool) for h in items):
            bad = [int(h) for h in items if not 0 <= h < n]
            if bad:
                raise MusError(f"hand index {bad[0]} is out of range; accepted: 0..{n - 1}")
            return list(dict.fromkeys(int(h) for h in items))
        spec = ",".join(" ".join(map(str, h)) if not isinstance(h, str) else h for h in items)
    s = spec.strip()
    if re.fullmatch(r"\d+", s) and len(s) <= len(str(n)):  # a count; longer digit runs are hands (4567)
        k = int(s)
        if not 1 <= k <= n:
            raise MusError(f"{accepted}; got {k}")
        return list(range(k))
    from musstats.rules.cards import parse_hand

    out: list[int] = []
    items = [x for x in s.split(",")]
    if not s or any(not x.strip() for x in items):
        raise MusError(f"{accepted}; got {spec!r}")
    for item in items:
        try:
            cards = parse_hand(item)
            t.remaining(cards)
            h = t.index_of(cards)
        except MusError as e:
            raise MusError(f"bad hand {item.strip()!r} in --hands: {e}") from None
        if h not in out:
            out.append(h)
    return out


def parse_seats(seat: str | int | Iterable | None) -> tuple[int, ...]:
    """``all`` (or None) → the four seats; otherwise one seat name/number (or several)."""
    if seat is None or (isinstance(seat, str) and seat.strip().lower() == "all"):
        return (0, 1, 2, 3)
    if isinstance(seat, (list, tuple)):
        return tuple(sorted(set(checks.no_repeats([FOUR.parse(s) for s in seat], "the seat"))))
    try:
        return (FOUR.parse(seat),)  # type: ignore[arg-type]
    except MusError:
        raise MusError(f"unknown seat {seat!r}; accepted: all, mano, second, third, postre "
                       "(or 1-4, segundo, tercero)") from None


def _bettable(lance: str, t, h: int) -> bool:
    """Can the hand itself bet in the lance? (pares and juego: when it holds them; punto: when
    it holds no juego, or punto is never played)."""
    from musstats.tables.hands import JUEGO, PARES

    if lance == "pares":
        return bool(t.key[PARES, h] > 0)
    if lance == "juego":
        return bool(t.key[JUEGO, h] > 0)
    if lance == "punto":
        return bool(t.key[JUEGO, h] == 0)
    return True


def hand_rows(h: int, job: TableJob) -> list[dict[str, Any]]:
    """The rows of hand index ``h``, one per seat of ``job.seats``."""
    from musstats._kernels.mus import NO_MUS
    from musstats.analysis.discard import advice_from, keep_set_options
    from musstats.engines.exact import ALL_STATS
    from musstats.engines.jokers import showdown_counts
    from musstats.engines.musphase import evaluate_keeps
    from musstats.tables.context import make_context, redeal_hand
    from musstats.tables.hands import hand_cards

    v = job.variant
    t = hand_tables(v)
    if h == redeal_hand(v) >= 0:
        return []  # shown and replaced before the mus: never played
    ctx0 = make_context(v, hand_cards(h, v), "mano")
    # exact for the plain game; Monte Carlo (fixed seed) when jokers must be fixed per deal
    counts, totals = showdown_counts(ctx0, seats=job.seats, seed=job.seed)
    i_team, i_self, i_played, i_cont, i_ev, i_tc = (ALL_STATS.index(s) for s in (
        "p_team", "p_self", "p_played", "p_contested", "ev_net", "p_team_contested"))
    opts = keep_set_options(ctx0)
    masks = [m for m, _, _ in opts] + [NO_MUS]
    rows = []
    for s in job.seats:
        ctx = replace(ctx0, seat=s)
        c = counts[s].astype(np.float64)
        tot = float(totals[s])
        row: dict[str, Any] = {"hand": t.labels[h], "hand_index": int(h), "seat": SEATS[s],
                               "deal_freq": float(t.deal_weight[h]) / TOTAL_DEALS}
        for li, lance in enumerate(LANCES):
            row[f"p_team_{lance}"] = c[li, i_team] / tot
            row[f"p_self_{lance}"] = c[li, i_self] / tot
            row[f"ev_net_{lance}"] = c[li, i_ev] / tot
        row["ev_net_total"] = float(c[:, i_ev].sum() / tot)
        # exactly the computation of `musstats mus` (same seed, same deals)
        ev = evaluate_keeps(ctx, masks, job.policy, trials=job.trials, seed=job.seed, spawn_key=(s, h),
                            others_ask=not v.mus_visto)
        adv = advice_from(ctx, ev, opts, None, job.policy_name, 1)
        best = [o[2] for o in opts].index(adv.keep)
        row.update({
            "p_others_ask": adv.p_others_ask, "mus_cut_ev": float(adv.cut_ev.sum()),
            "best_keep": adv.keep, "best_discard": 4 - len(opts[best][1]),
            "mus_ev_total": float(adv.mus_ev.sum()), "mus_se_total": adv.mus_total_se,
            "mus_gain": adv.diff, "mus_gain_se": adv.diff_se,
            "advice": "cut" if adv.diff <= 0 else "mus", "advice_close": bool(abs(adv.diff) < CLOSE_SE * adv.diff_se),
        })
        bet = adv.betting  # the same comparison with betting (None where the gain tables do not ship)
        row.update({
            "mus_keep_bet": bet["keep"] if bet else "–",
            "mus_gain_bet": bet["difference"]["value"] if bet else float("nan"),
            "mus_gain_bet_se": bet["difference"]["se"] if bet else float("nan"),
            "advice_bet": ("cut" if bet["difference"]["value"] <= 0 else "mus") if bet else "–",
        })
        eq = adv.equilibrium  # the mus decision's equilibrium (None where it does not ship)
        row.update({
            "cut_p_eq": eq["p_cut"] if eq else float("nan"),
            "cut_gain_eq": eq["cut_minus_ask"] if eq else float("nan"),
            "cut_gain_eq_se": eq["se"] if eq else float("nan"),
            "advice_eq": ("cut" if eq["advice"] == "cut" else "mus") if eq else "–",
        })
        calls = []
        call_be, accept_be = job.break_even[s % 2]
        for li, lance in enumerate(LANCES):
            p = float("nan")
            # with ten kings a hand's pares depend on its jokers' identities: every lance counts
            if v.ten_kings or _bettable(lance, t, h):
                if lance in ("grande", "chica"):
                    p = c[li, i_team] / tot
                elif lance in ("pares", "juego"):
                    p = c[li, i_tc] / c[li, i_cont] if c[li, i_cont] > 0 else float("nan")
                else:
                    p = c[li, i_team] / c[li, i_played] if c[li, i_played] > 0 else float("nan")
            row[f"p_ordago_{lance}"] = float(p)
            if p >= call_be:
                calls.append(lance)
        row["ordago_break_even_call"] = call_be
        row["ordago_break_even_accept"] = accept_be
        row["ordago_call"] = " ".join(calls) if calls else "–"
        rows.append(row)
    return rows


def make_job(variant: Variant, seats: Iterable[int] = (0, 1, 2, 3), *, trials: int = DEFAULT_TRIALS,
             seed: int = DEFAULT_SEED, model=None, policy: str = "table",
             progress: Progress | None = None) -> TableJob:
    """The job description: policy of the others, break-evens at 0-0 from the game model."""
    from musstats.analysis.ordago import break_evens
    from musstats.tables.policies import get_policy

    if model is None:
        from musstats.analysis.game import game_model

        model = game_model(variant, progress=progress)
    pol, pol_name = get_policy(policy, variant)
    be = []
    for mano in ("us", "them"):
        b = break_evens(model, 0, 0, mano)
        be.append((float(b["call"]), float(b["accept"])))
    return TableJob(variant, tuple(seats), int(trials), int(seed), np.array(pol, np.uint8), pol_name,
                    (be[0], be[1]), model.describe())


def strategy_table(
    variant: str | Variant = "8-reyes",
    *,
    juego_real: str = "off",
    target: int | None = None,
    redeal_4567: bool = False,
    mus_visto: bool = False,
    seats: str | int | Iterable | None = "all",
    hands: str | int | Sequence | None = None,
    trials: int | None = None,
    seed: int | None = None,
    model=None,
    runner: Callable | None = None,
    progress: Progress | None = None,
    model_progress: Progress | None = None,
    betting: bool = True,
) -> TableResult:
    """The strategy table, one row per hand × seat (columns ``COLUMNS``).

    ``hands``: see :func:`parse_hands`; ``seats``: ``"all"`` or one seat.  ``trials``
    (default 20,000) and ``seed`` (default 2026) of the mus evaluation.  ``model``: a
    :class:`~musstats.analysis.game.GameModel` for the órdago break-evens (default: the
    cached model of these rules).  ``runner(func, items, job, progress)``: where to run the
    per-hand work (default here; see :func:`musstats.engines.distributed.dask_runner`).
    ``progress(done, total)`` after each hand, ``model_progress`` while the game model is
    simulated (when it is not cached yet).  Ctrl-C between hands returns the rows done,
    marked partial.
    """
    import pandas as pd

    from musstats.engines.run import Interrupt

    v = make_variant(variant, juego_real, target, redeal_4567=redeal_4567, mus_visto=mus_visto)
    trials = checks.trials(trials, DEFAULT_TRIALS, checks.MAX_KEEP_TRIALS)
    seed = DEFAULT_SEED if seed is None else checks.seed(seed)
    seat_ids = parse_seats(seats)
    hand_ids = parse_hands(hands, v)
    t0 = time.perf_counter()
    job = make_job(v, seat_ids, trials=trials, seed=seed, model=model, progress=model_progress)
    t1 = time.perf_counter()
    partial = False
    if runner is None:
        parts = []
        with Interrupt() as ctrl_c:
            for i, h in enumerate(hand_ids):
                if ctrl_c.hit:
                    partial = True
                    break
                try:
                    rows = hand_rows(h, job)
                except KeyboardInterrupt:
                    if not ctrl_c.hit:
                        raise
                    rows = []
                if ctrl_c.hit:  # this hand's Monte Carlo was cut short: leave it out
                    partial = True
                    break
                parts.append(rows)
                if progress:
                    progress(i + 1, len(hand_ids))
        if partial and not parts:
            raise KeyboardInterrupt
        name = "local"
    else:
        parts = runner(hand_rows, hand_ids, job, progress)
        name = getattr(runner, "name", "custom")
    rows = [r for part in parts for r in part]
    df = pd.DataFrame(rows, columns=COLUMNS)
    # an interrupted table stops at once: the betting columns (a long first computation) are left out
    betting_note = _betting_columns(df, v, betting) if not partial else \
        "not computed (the table was interrupted): ev_bet_* columns are NaN"
    df.attrs.update({
        "variant": v.name, "rules": v.describe(), "hands": len(parts), "seats": [SEATS[s] for s in seat_ids],
        "partial": partial,
        "odds": "exact" if not v.ten_kings else "Monte Carlo (400,000 deals per seat, fixed seed)",
        "mus": {"method": "mc", "trials_per_keep_set": trials, "seed": seed, "others_discard_by": job.policy_name,
                "rounds": 1, "given": "the other three ask for mus" if not v.mus_visto else "every deal"},
        "game_model": job.model_info,
        "betting": betting_note,
        "runner": name,
        "seconds": round(time.perf_counter() - t0, 2), "seconds_game_model": round(t1 - t0, 2),
    })
    return TableResult(df, partial)


def _betting_columns(df, v: Variant, betting: bool) -> str:
    """Fill the ``ev_bet_*`` columns (in place); what they hold, in words."""
    if not betting:
        return "not computed (betting=False)"
    if v.cache_key(target=False) != BETTING_RULES.cache_key(target=False) or df.empty:
        return f"no shipped betting strategies for {v.name} with these switches: ev_bet_* columns are NaN"
    from musstats.analysis.betting import ev_table

    ev = ev_table(deal="as-dealt", info="private", variant=v)
    piv = ev.pivot_table(index=["hand_index", "seat"], columns="lance", values="ev_eq")
    keys = list(zip(df["hand_index"], df["seat"]))
    for lance in LANCES:
        col = piv[lance] if lance in piv.columns else None
        df[f"ev_bet_{lance}"] = [float(col.get(k, float("nan"))) if col is not None else float("nan") for k in keys]
    df["ev_bet_total"] = df[[f"ev_bet_{lance}" for lance in LANCES]].fillna(0.0).sum(axis=1)
    return (f"equilibrium betting of the shipped strategies (hands as dealt, private information), Monte Carlo "
            f"over {ev.attrs.get('deals', 0):,} deals")


def seat_summary(df) -> list[dict[str, Any]]:
    """Per seat: hands, the share of the table's deals (weighted by ``deal_freq``) where
    cutting is advised, the deal-weighted mean EV of always cutting and of following the
    advice, and ``deal_share``, the deals the rows cover."""
    out = []
    for seat in [s for s in SEATS if s in set(df["seat"])]:
        d = df[df["seat"] == seat]
        w = d["deal_freq"].to_numpy()
        wsum = w.sum()
        cut = (d["advice"] == "cut").to_numpy()
        # following the advice: the mus gain is added where the advice is to ask for mus
        # (given the others ask; it changes nothing elsewhere)
        gain = np.where(cut, 0.0, d["mus_gain"].to_numpy() * d["p_others_ask"].to_numpy())
        best = d["ev_net_total"].to_numpy() + gain
        out.append({
            "seat": seat, "hands": int(len(d)), "hands_cut": int(cut.sum()),
            "share_cut": float(w[cut].sum() / wsum) if wsum > 0 else float("nan"),
            "mean_ev_cut": float((w * d["ev_net_total"].to_numpy()).sum() / wsum) if wsum > 0 else float("nan"),
            "mean_ev_best": float((w * best).sum() / wsum) if wsum > 0 else float("nan"),
            "deal_share": float(wsum),
        })
    return out


def odds_grid(variant: str | Variant = "8-reyes", *, juego_real: str = "off", hands=None,
              progress: Progress | None = None):
    """Exact P(team), P(self) and EV of every lance for every hand and seat: a DataFrame with
    the odds columns of the strategy table (for the heatmaps)."""
    import pandas as pd

    from musstats.engines.exact import ALL_STATS
    from musstats.engines.jokers import showdown_counts
    from musstats.engines.run import Interrupt
    from musstats.tables.context import make_context, redeal_hand
    from musstats.tables.hands import hand_cards

    v = make_variant(variant, juego_real)
    t = hand_tables(v)
    ids = [h for h in parse_hands(hands, v) if h != redeal_hand(v)]
    rows = []
    with Interrupt() as ctrl_c:
        for i, h in enumerate(ids):
            if ctrl_c.hit:
                raise KeyboardInterrupt
            counts, totals = showdown_counts(make_context(v, hand_cards(h, v), "mano"), seats=range(4))
            for s in range(4):
                r: dict[str, Any] = {"hand": t.labels[h], "hand_index": h, "seat": SEATS[s],
                                     "deal_freq": float(t.deal_weight[h]) / TOTAL_DEALS}
                for li, lance in enumerate(LANCES):
                    for st in ("p_team", "p_self", "ev_net"):
                        r[f"{st}_{lance}"] = float(counts[s, li, ALL_STATS.index(st)] / totals[s])
                rows.append(r)
            if progress:
                progress(i + 1, len(ids))
    df = pd.DataFrame(rows)
    df.attrs.update({"variant": v.name, "rules": v.describe(), "odds": "exact"})
    return df


def bet_grid(lance: str, *, deal: str = "as-dealt", info: str = "private", variant: str | Variant = "8-reyes"):
    """P(bet) and P(órdago) of every hand at every seat's first decision of ``lance`` (everybody
    before him passed; pares and juego: every seat declared the lance), from the equilibrium
    strategy: a DataFrame (hand, hand_index, seat, p_bet, p_ordago) for the betting heatmap."""
    import pandas as pd

    from musstats.analysis.betting import strategy_frame

    lance = checks.lance(lance)
    v = make_variant(variant)
    sf = strategy_frame(lance, info=info, deal=deal, variant=v)
    if lance in ("pares", "juego"):
        from musstats.engines.betting.tree import ALL_SEATS, pattern_text

        sf = sf[sf["pattern"].astype(str) == pattern_text(ALL_SEATS)]
    rows = []
    for q, seat in enumerate(SEATS):
        first = ",".join(["paso"] * q)
        d = sf[(sf["seat"].astype(str) == seat) & (sf["history"].astype(str) == first)]
        if d.empty:
            continue
        piv = d.pivot_table(index=["hand_index", "hand"], columns="action", values="p", observed=True)
        for (h, label), r in piv.iterrows():
            rows.append({"hand": label, "hand_index": int(h), "seat": seat,
                         "p_bet": float(1.0 - r.get("paso", 0.0)), "p_ordago": float(r.get("órdago", 0.0))})
    df = pd.DataFrame(rows)
    df.attrs.update({"variant": v.name, "rules": v.describe(), "lance": lance, "deal": deal, "info": info,
                     "what": "first decision of each seat, everybody before him passed"})
    return df
