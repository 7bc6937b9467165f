"""The strategy table: one row per hand and seat with its odds, best discard, mus advice
and órdago numbers (``musstats table``).

Columns (``LANCES`` = grande chica pares juego punto):

* ``hand`` (label, highest card first), ``hand_index``, ``seat``;
* ``deal_freq``: how often the hand is dealt, ``deal_weight / 91390`` (C(40, 4) card
  combinations); it sums to 1 over the hands of a variant;
* ``p_team_<lance>``, ``p_self_<lance>``, ``ev_net_<lance>``: exact (as
  :func:`musstats.engines.exact.exact_table`), and ``ev_net_total`` = their sum: the expected
  net stones en paso if the mus is cut now;
* ``best_keep`` (keep-set label, ``–`` = throw all four), ``best_discard`` (cards
  thrown), ``mus_ev_total`` ± ``mus_se_total``: expected net stones en paso after one
  mus round with that keep-set, the others discarding by the strategy table (Monte
  Carlo, ``trials`` deals per keep-set, common random numbers, seeded per hand and
  seat); ``mus_gain`` ± ``mus_gain_se`` = ``mus_ev_total - ev_net_total`` (the cut
  side is exact, so the SE is that of ``mus_ev_total``); ``advice`` = ``cut`` when
  ``mus_gain <= 0`` else ``mus`` (the rule of :func:`musstats.analysis.discard.mus_advice`),
  ``advice_close`` when ``|mus_gain| < 2 SE``;
* ``p_ordago_<lance>``: P(our team wins the lance if an órdago there is seen), exact
  as :func:`musstats.analysis.ordago.lance_probability` (grande, chica: p_team; pares, juego:
  given the lance is contested; punto: given it is played; NaN when it can never be
  bet); ``ordago_break_even_call`` = W(0, 0) and ``ordago_break_even_accept`` =
  W(0, 1) from the game model (:func:`musstats.analysis.ordago.break_evens`) with our team as
  mano's team when the seat is mano or third.  In that model the break-even depends on
  the score and on who is mano, not on the lance, so it is one number per row, to be
  compared with each ``p_ordago_<lance>``; ``ordago_call`` lists the lances where
  ``p_ordago >= ordago_break_even_call``.

The work is split by hand (one exact call covers all four seats).  It runs locally,
or on a Dask cluster through a ``runner`` (:func:`musstats.engines.distributed.dask_table_runner`);
results are identical because every random stream is seeded by (seed, seat, hand).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from musstats.base.errors import MusError
from musstats.tables.hands import LANCES, hand_tables
from musstats.rules.seats import SEATS, parse_seat
from musstats.rules.variant import Variant, make_variant

#: deals per keep-set in the discard evaluation (~50 ms per hand and seat)
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
    + ["ev_net_total", "best_keep", "best_discard", "mus_ev_total", "mus_se_total", "mus_gain",
       "mus_gain_se", "advice", "advice_close"]
    + [f"p_ordago_{lance}" for lance in LANCES]
    + ["ordago_break_even_call", "ordago_break_even_accept", "ordago_call"]
)


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
        items = list(spec)
        if items and all(isinstance(h, (int, np.integer)) and not isinstance(h, bool) for h in items):
            bad = [int(h) for h in items if not 0 <= h < n]
            if bad:
                raise MusError(f"hand index {bad[0]} is out of range; accepted: 0..{n - 1}")
            return list(dict.fromkeys(int(h) for h in items))
        spec = ",".join(" ".join(map(str, h)) if not isinstance(h, str) else h for h in items)
    s = spec.strip()
    if re.fullmatch(r"\d+", s):
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
    """``all`` (or None) → the four seats; otherwise one seat name/number."""
    if seat is None or (isinstance(seat, str) and seat.strip().lower() == "all"):
        return (0, 1, 2, 3)
    if isinstance(seat, (list, tuple)):
        return tuple(sorted({parse_seat(s) for s in seat}))
    try:
        return (parse_seat(seat),)
    except MusError:
        raise MusError(f"unknown seat {seat!r}; accepted: all, mano, second, third, postre "
                       "(or 1-4, segundo, tercero)") from None


def hand_rows(h: int, job: TableJob) -> list[dict[str, Any]]:
    """The rows of hand index ``h``, one per seat of ``job.seats``."""
    from musstats.engines.musphase import evaluate_keeps
    from musstats.rules.conditions import redeal_allowed, redeal_hand
    from musstats.engines.exact import ALL_STATS
    from musstats.engines.jokers import showdown_counts
    from musstats.tables.policies import keep_options
    from musstats.analysis.discard_table import hand_cards

    v = job.variant
    t = hand_tables(v)
    cards = hand_cards(h, v)
    if h == redeal_hand(v) >= 0:
        return []  # shown and replaced before the mus: never played
    allowed = redeal_allowed(v, h, None)
    # exact for the plain game; Monte Carlo (fixed seed) when jokers must be fixed per deal
    counts, totals = showdown_counts(cards, v, seats=job.seats, allowed=allowed, seed=job.seed)
    i_team, i_self, i_played, i_cont, i_ev, i_tc = (ALL_STATS.index(s) for s in (
        "p_team", "p_self", "p_played", "p_contested", "ev_net", "p_team_contested"))
    opts = keep_options(h, v)
    masks = [m for m, _, _ in opts]
    rows = []
    for s in job.seats:
        c = counts[s].astype(np.float64)
        tot = float(totals[s])
        row: dict[str, Any] = {"hand": t.labels[h], "hand_index": int(h), "seat": SEATS[s],
                               "deal_freq": float(t.deal_weight[h]) / TOTAL_DEALS}
        for li, lance in enumerate(LANCES):
            row[f"p_team_{lance}"] = c[li, i_team] / tot
            row[f"p_self_{lance}"] = c[li, i_self] / tot
            row[f"ev_net_{lance}"] = c[li, i_ev] / tot
        cut = float(c[:, i_ev].sum() / tot)
        row["ev_net_total"] = cut
        ev = evaluate_keeps(cards, s, masks, v, job.policy, trials=job.trials, seed=job.seed,
                            spawn_key=(s, h))
        best = int(np.argmax(ev.total))
        se = float(ev.total_se()[best])
        gain = float(ev.total[best]) - cut
        row.update({
            "best_keep": opts[best][2], "best_discard": 4 - len(opts[best][1]),
            "mus_ev_total": float(ev.total[best]), "mus_se_total": se,
            "mus_gain": gain, "mus_gain_se": se,
            "advice": "cut" if gain <= 0 else "mus", "advice_close": bool(abs(gain) < CLOSE_SE * se),
        })
        calls = []
        call_be, accept_be = job.break_even[s % 2]
        for li, lance in enumerate(LANCES):
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


def local_runner(func: Callable, items: Sequence, job: Any,
                 progress: Callable[[int], None] | None = None) -> list:
    """Run ``func(item, job)`` for every item here, in order (the default runner)."""
    out = []
    for it in items:
        out.append(func(it, job))
        if progress:
            progress(1)
    return out


def make_job(variant: Variant, seats: Iterable[int] = (0, 1, 2, 3), *, trials: int = DEFAULT_TRIALS,
             seed: int = DEFAULT_SEED, model=None, policy: str = "table") -> TableJob:
    """The job description: policy of the others, break-evens at 0-0 from the game model."""
    from musstats.analysis.ordago import break_evens
    from musstats.tables.policies import get_policy

    if model is None:
        from musstats.analysis.game import game_model

        model = game_model(variant)
    pol, pol_name = get_policy(policy, variant)
    be = []
    for mano in ("us", "them"):
        b = break_evens(model, 0, 0, mano)
        be.append((float(b["call"]), float(b["accept"])))
    return TableJob(variant, tuple(seats), int(trials), int(seed), np.array(pol, np.uint8), pol_name,
                    (be[0], be[1]), model.describe())


def _check_int(x, what: str, lo: int) -> int:
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < lo:
        raise MusError(f"{what} must be a whole number >= {lo}, got {x!r}")
    return int(x)


def strategy_table(
    variant: str | Variant = "8-reyes",
    juego_real: str = "off",
    *,
    seats: str | int | Iterable | None = "all",
    hands: str | int | Sequence | None = None,
    trials: int = DEFAULT_TRIALS,
    seed: int = DEFAULT_SEED,
    model=None,
    runner: Callable | None = None,
    progress: Callable[[int], None] | None = None,
    on_start: Callable[[int], None] | None = None,
):
    """The strategy table as a DataFrame (columns ``COLUMNS``), one row per hand × seat.

    ``hands``: see :func:`parse_hands`; ``seats``: ``"all"`` or one seat.  ``model``: a
    :class:`~musstats.analysis.game.GameModel` for the órdago break-evens (default: the cached
    default model).  ``runner(func, items, job, progress)``: where to run the per-hand
    work (default :func:`local_runner`; see :func:`musstats.engines.distributed.dask_table_runner`).
    ``on_start(n)`` is called with the number of hands before the work starts, and
    ``progress(k)`` after each k hands.  Run metadata and timing in ``df.attrs``.
    """
    import pandas as pd

    v = make_variant(variant, juego_real)
    trials = _check_int(trials, "--trials", 1)
    seed = _check_int(seed, "--seed", 0)
    seat_ids = parse_seats(seats)
    hand_ids = parse_hands(hands, v)
    t0 = time.perf_counter()
    job = make_job(v, seat_ids, trials=trials, seed=seed, model=model)
    t1 = time.perf_counter()
    if on_start:
        on_start(len(hand_ids))
    run = runner or local_runner
    parts = run(hand_rows, hand_ids, job, progress)
    rows = [r for part in parts for r in part]
    df = pd.DataFrame(rows, columns=COLUMNS)
    seconds = time.perf_counter() - t0
    df.attrs.update({
        "rules": v.describe(), "variant": v.name, "hands": len(hand_ids), "seats": [SEATS[s] for s in seat_ids],
        "odds": "exact", "discard": {"method": "mc", "trials_per_keep_set": trials, "seed": seed,
                                     "others_discard_by": job.policy_name, "rounds": 1},
        "game_model": job.model_info,
        "runner": getattr(run, "name", "local"),
        "seconds": round(seconds, 2), "seconds_game_model": round(t1 - t0, 2),
    })
    return df


# --------------------------------------------------------------------------- terminal summary

LANCE_ES = {"grande": "Grande", "chica": "Chica", "pares": "Pares", "juego": "Juego", "punto": "Punto"}
SEAT_ES = {"mano": "Mano", "second": "Segundo", "third": "Tercero", "postre": "Postre"}


def seat_summary(df) -> list[dict[str, Any]]:
    """Per seat: hands, the share of the table's deals (weighted by ``deal_freq``) where
    cutting is advised, the deal-weighted mean EV of always cutting and of following the
    advice (the better of cut and mus), and ``deal_share``, the deals the rows cover."""
    out = []
    for seat in [s for s in SEATS if s in set(df["seat"])]:
        d = df[df["seat"] == seat]
        w = d["deal_freq"].to_numpy()
        wsum = w.sum()
        cut = (d["advice"] == "cut").to_numpy()
        best = np.maximum(d["ev_net_total"].to_numpy(), d["mus_ev_total"].to_numpy())
        out.append({
            "seat": seat, "hands": int(len(d)), "hands_cut": int(cut.sum()),
            "share_cut": float(w[cut].sum() / wsum) if wsum > 0 else float("nan"),
            "mean_ev_cut": float((w * d["ev_net_total"].to_numpy()).sum() / wsum) if wsum > 0 else float("nan"),
            "mean_ev_best": float((w * best).sum() / wsum) if wsum > 0 else float("nan"),
            "deal_share": float(wsum),
        })
    return out


def _advice_cell(r) -> str:
    if r["advice"] == "cut":
        txt = "cut"
    else:
        txt = f"mus, keep {r['best_keep']}"
    return txt + (" ?" if r["advice_close"] else "")


def render_summary(df, width: int = 130) -> str:
    """A readable terminal summary of a strategy table (rich, no colour)."""
    import io

    from rich.console import Console
    from rich.table import Table

    seats = [s for s in SEATS if s in set(df["seat"])]
    a = df.attrs
    disc = a.get("discard", {})
    title = f"Strategy table · {a.get('variant', '')} · {a.get('hands', '?')} hands"
    rules = a.get("rules", {})
    if rules.get("juego_real", "off") != "off":
        title += f" · juego real {rules['juego_real']}"
    caption = (f"EV = exact net stones en paso if the mus is cut now; mus = one mus round keeping the best "
               f"keep-set, the others discarding by {disc.get('others_discard_by', '?')} "
               f"({disc.get('trials_per_keep_set', 0):,} deals per keep-set, seed {disc.get('seed', '?')}); "
               f"? = within 2 SE")
    table = Table(title=title, caption=caption)
    table.add_column("Hand", no_wrap=True)
    table.add_column("Dealt", justify="right", no_wrap=True)
    if len(seats) == 1:
        for lance in LANCES:
            table.add_column(LANCE_ES[lance], justify="right")
        for c in ("EV cut", "Best keep", "Mus − cut", "Advice", "Órdago at 0-0"):
            table.add_column(c, justify="right" if c in ("EV cut", "Mus − cut") else "left",
                             no_wrap=c != "Órdago at 0-0")
        for _, r in df.iterrows():
            table.add_row(r["hand"], f"{100 * r['deal_freq']:.3f} %",
                          *[f"{100 * r[f'p_team_{lance}']:.1f} %" for lance in LANCES],
                          f"{r['ev_net_total']:+.3f}", r["best_keep"],
                          f"{r['mus_gain']:+.3f} ± {r['mus_gain_se']:.3f}",
                          r["advice"] + (" ?" if r["advice_close"] else ""), r["ordago_call"])
    else:
        for s in seats:
            table.add_column(f"{SEAT_ES[s]}: EV cut · advice")
        piv = {s: df[df["seat"] == s].set_index("hand_index") for s in seats}
        first = piv[seats[0]]
        for h, r in first.iterrows():
            cells = []
            for s in seats:
                rs = piv[s].loc[h]
                cells.append(f"{rs['ev_net_total']:+.2f} · {_advice_cell(rs)}")
            table.add_row(r["hand"], f"{100 * r['deal_freq']:.3f} %", *cells)
    buf = io.StringIO()
    Console(file=buf, width=width, force_terminal=False, color_system=None).print(table)
    lines = []
    for s in seat_summary(df):
        lines.append(f"{s['seat']}: cut with {s['hands_cut']} of {s['hands']} hands "
                     f"({100 * s['share_cut']:.1f} % of these deals); mean EV cutting "
                     f"always {s['mean_ev_cut']:+.3f}, following the advice {s['mean_ev_best']:+.3f} stones.")
    be = df[["seat", "ordago_break_even_call", "ordago_break_even_accept"]].drop_duplicates("seat")
    for _, r in be.iterrows():
        lines.append(f"órdago at 0-0, {r['seat']}: call when P(win the lance) ≥ "
                     f"{100 * r['ordago_break_even_call']:.1f} %, accept when > "
                     f"{100 * r['ordago_break_even_accept']:.1f} % (P(win the game) from the game model).")
    lines.append(f"{len(df)} rows in {a.get('seconds', 0):.1f} s ({a.get('runner', 'local')}); "
                 "--out FILE.csv|.parquet|.md|.json writes every column.")
    return buf.getvalue() + "\n".join(lines) + "\n"
