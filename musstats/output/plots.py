"""Charts (``musstats plot``): matplotlib figures, written atomically as PNG, SVG or PDF.

Kinds: :func:`plot_hand` (per-lance odds of one hand), :func:`plot_heatmap` (one
lance's P(team) for every hand and seat), :func:`plot_totals` (juego/punto totals),
:func:`plot_convergence` (a Monte Carlo estimate against the exact value),
:func:`plot_mus` (cut or mus, by hand and seat) and :func:`plot_game` (P(win the game)
over scores with the órdago break-evens).  Every function returns a
``matplotlib.figure.Figure`` built without pyplot (Agg canvas, no global state);
:func:`save_figure` writes it.

Size: a figure is ``width`` × ``height`` inches at ``dpi`` dots per inch
(default 12 × 7 in at 100 dpi, i.e. 1200 × 700 pixels); :func:`figure_size` also
takes a pixel size ``"WxH"``, which means W/dpi × H/dpi inches.  A PNG then has exactly
W × H pixels; an SVG or PDF has the same physical size (W/dpi × 72 by H/dpi × 72 points).

Colours: the Okabe–Ito palette for categories and cividis for continuous scales, both
readable with colour-vision deficiencies; lance names are the Spanish ones.
"""

from __future__ import annotations

import math
import os
import re
from itertools import combinations_with_replacement
from math import comb
from pathlib import Path
from typing import Callable, Iterable, Sequence

import numpy as np

from musstats.base.errors import MusError
from musstats.tables.hands import LANCES, hand_tables
from musstats.base.files import IMAGE_EXTS, atomic_write, check_output
from musstats.rules.seats import SEATS
from musstats.rules.variant import Variant, make_variant

#: Okabe & Ito (2008) colour-blind-safe palette
OKABE_ITO = {"black": "#000000", "orange": "#E69F00", "sky": "#56B4E9", "green": "#009E73",
             "yellow": "#F0E442", "blue": "#0072B2", "vermillion": "#D55E00", "purple": "#CC79A7"}
LANCE_ES = {"grande": "Grande", "chica": "Chica", "pares": "Pares", "juego": "Juego", "punto": "Punto"}
LANCE_COLOR = {"grande": OKABE_ITO["blue"], "chica": OKABE_ITO["sky"], "pares": OKABE_ITO["green"],
               "juego": OKABE_ITO["orange"], "punto": OKABE_ITO["purple"]}
SEAT_ES = {"mano": "Mano", "second": "Segundo", "third": "Tercero", "postre": "Postre"}
CMAP = "cividis"
DEFAULT_WIDTH, DEFAULT_HEIGHT, DEFAULT_DPI = 12.0, 7.0, 100
#: largest image side accepted, in pixels
MAX_PIXELS = 20_000
PLOT_KINDS = ("hand", "heatmap", "totals", "convergence", "mus", "game")


# --------------------------------------------------------------------------- size and saving

def figure_size(width: float | None = None, height: float | None = None, size: str | None = None,
                dpi: float | None = None) -> tuple[float, float, float]:
    """(width in, height in, dpi) from ``width``/``height`` in inches or ``size`` "WxH" pixels."""
    dpi = DEFAULT_DPI if dpi is None else dpi
    if isinstance(dpi, bool) or not isinstance(dpi, (int, float)) or not 10 <= dpi <= 1200:
        raise MusError(f"--dpi must be a number from 10 to 1200, got {dpi!r}")
    if size is not None:
        if width is not None or height is not None:
            raise MusError("give either --size WxH (pixels) or --width/--height (inches), not both")
        m = re.fullmatch(r"\s*(\d+)\s*[xX×]\s*(\d+)\s*", str(size))
        if not m:
            raise MusError(f"--size takes WIDTHxHEIGHT in pixels, e.g. 1200x800; got {size!r}")
        w_px, h_px = int(m.group(1)), int(m.group(2))
        for what, v in (("width", w_px), ("height", h_px)):
            if not 100 <= v <= MAX_PIXELS:
                raise MusError(f"--size {what} must be 100..{MAX_PIXELS} pixels, got {v}")
        return w_px / dpi, h_px / dpi, float(dpi)
    w = DEFAULT_WIDTH if width is None else width
    h = DEFAULT_HEIGHT if height is None else height
    for what, v in (("--width", w), ("--height", h)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
            raise MusError(f"{what} must be a positive number of inches, got {v!r}")
        if v * dpi < 100 or v * dpi > MAX_PIXELS:
            raise MusError(f"{what} {v} in at {dpi:g} dpi gives {v * dpi:.0f} pixels; accepted: 100..{MAX_PIXELS}")
    return float(w), float(h), float(dpi)


def new_figure(size: tuple[float, float, float] | None = None):
    """A Figure (Agg canvas, constrained layout) of ``size`` = (width in, height in, dpi)."""
    from matplotlib.figure import Figure

    w, h, dpi = size or (DEFAULT_WIDTH, DEFAULT_HEIGHT, DEFAULT_DPI)
    return Figure(figsize=(w, h), dpi=dpi, layout="constrained")


def save_figure(fig, path: str | os.PathLike) -> Path:
    """Write ``fig`` as PNG, SVG or PDF (by extension), atomically, at the figure's own size and dpi."""
    p = check_output(path, IMAGE_EXTS, "image")
    fmt = p.suffix.lower().lstrip(".")
    # no creation date or random ids: the same figure gives the same file
    meta = {"png": {"Software": "musstats"}, "svg": {"Date": None}, "pdf": {"CreationDate": None}}[fmt]
    import matplotlib

    try:
        with matplotlib.rc_context({"svg.hashsalt": "musstats"}):
            atomic_write(p, lambda tmp: fig.savefig(tmp, format=fmt, dpi=fig.dpi, metadata=meta))
    except OSError as e:
        raise MusError(f"cannot write {str(p)!r}: {e.strerror or e}") from None
    return p


def _title(fig, text: str) -> None:
    fig.suptitle(text, fontsize=12)


def _variant_tag(v: Variant) -> str:
    return v.name + (f" · juego real {v.juego_real}" if v.juego_real != "off" else "")


# --------------------------------------------------------------------------- hand

def plot_hand(cards, seat: str | int = "mano", variant: str | Variant = "8-reyes", juego_real: str = "off",
              *, method: str = "exact", trials: int | None = None, seed: int | None = None,
              size=None, result=None):
    """Per-lance P(team) and net EV bars for one hand and seat; 95 % error bars for Monte Carlo."""
    from musstats.analysis.odds import compute_odds

    res = result if result is not None else compute_odds(
        cards, seat, variant, juego_real, method=method, trials=trials, seed=seed)
    fig = new_figure(size)
    ax1, ax2 = fig.subplots(1, 2)
    names = [LANCE_ES[lance] for lance in LANCES]
    colors = [LANCE_COLOR[lance] for lance in LANCES]
    x = np.arange(len(LANCES))
    p, p_se = res.mean[:, 0], res.se[:, 0]
    ev, ev_se = res.mean[:, 4], res.se[:, 4]
    mc = res.method == "mc"
    ax1.bar(x, 100 * p, color=colors, edgecolor="black", linewidth=0.6,
            yerr=100 * 1.96 * p_se if mc else None, capsize=4 if mc else 0)
    ax1.set_xticks(x, names)
    ax1.set_ylim(0, 105)
    ax1.set_ylabel("P(team) — nuestra pareja gana el lance / our team wins (%)")
    ax1.set_title("Probabilidad / probability")
    for xi, v in zip(x, p):
        ax1.annotate(f"{100 * v:.1f} %", (xi, 100 * v), ha="center", va="bottom", fontsize=9,
                     xytext=(0, 3), textcoords="offset points")
    ax2.bar(x, ev, color=colors, edgecolor="black", linewidth=0.6,
            yerr=1.96 * ev_se if mc else None, capsize=4 if mc else 0)
    ax2.axhline(0, color="black", linewidth=0.8)
    ax2.set_xticks(x, names)
    ax2.set_ylabel("EV neto en paso / net stones (ours − theirs)")
    ax2.set_title(f"Piedras esperadas / expected stones (total {ev.sum():+.2f})")
    for xi, v in zip(x, ev):
        ax2.annotate(f"{v:+.2f}", (xi, v), ha="center", va="bottom" if v >= 0 else "top", fontsize=9,
                     xytext=(0, 3 if v >= 0 else -3), textcoords="offset points")
    how = "exact" if not mc else f"Monte Carlo, {res.trials:,} deals, seed {res.seed}; bars ± 1.96 SE"
    _title(fig, f"{' '.join(c.label for c in res.hand)} · {SEAT_ES[SEATS[res.seat]]} · "
                f"{_variant_tag(res.variant)} · {how}")
    return fig


# --------------------------------------------------------------------------- heatmap

def odds_grid(variant: str | Variant = "8-reyes", juego_real: str = "off", hands=None,
              progress: Callable[[int], None] | None = None, on_start: Callable[[int], None] | None = None):
    """Exact ``p_team_<lance>`` and ``ev_net_<lance>`` for every hand and seat (a slim table
    with the columns of :mod:`musstats.analysis.table` that the heatmap needs)."""
    import pandas as pd

    from musstats.engines.exact import ALL_STATS, exact_counts
    from musstats.analysis.discard_table import hand_cards
    from musstats.analysis.table import TOTAL_DEALS, parse_hands

    v = make_variant(variant, juego_real)
    t = hand_tables(v)
    ids = parse_hands(hands, v)
    if on_start:
        on_start(len(ids))
    rows = []
    i_team, i_ev = ALL_STATS.index("p_team"), ALL_STATS.index("ev_net")
    for h in ids:
        counts, totals = exact_counts(hand_cards(h, v), v)
        for s in range(4):
            r = {"hand": t.labels[h], "hand_index": h, "seat": SEATS[s],
                 "deal_freq": float(t.deal_weight[h]) / TOTAL_DEALS}
            for li, lance in enumerate(LANCES):
                r[f"p_team_{lance}"] = counts[s, li, i_team] / totals[s]
                r[f"ev_net_{lance}"] = counts[s, li, i_ev] / totals[s]
            rows.append(r)
        if progress:
            progress(1)
    df = pd.DataFrame(rows)
    df.attrs.update({"variant": v.name, "rules": v.describe()})
    return df


def hand_order(variant: Variant, lance: str, hand_ids: Iterable[int]) -> list[int]:
    """Hands from the strongest to the weakest at ``lance`` (ties: grande strength).

    Juego: hands with juego by juego order, then the rest by punto."""
    t = hand_tables(variant)
    li = LANCES.index(lance)
    g = t.key[LANCES.index("grande")]
    if lance == "juego":
        j, pu = t.key[LANCES.index("juego")], t.key[LANCES.index("punto")]
        return sorted(hand_ids, key=lambda h: (-int(j[h]), -int(pu[h]), -int(g[h]), h))
    return sorted(hand_ids, key=lambda h: (-int(t.key[li, h]), -int(g[h]), h))


def _variant_of(df) -> Variant:
    """The variant a strategy table was computed for: from its metadata, else from its hands."""
    rules = df.attrs.get("rules") or {}
    if rules:
        name = "ten-kings" if rules.get("ten_kings") else rules.get("deck", "8-reyes")
        return make_variant(name, rules.get("juego_real", "off"), rules.get("target"),
                            redeal_4567=bool(rules.get("redeal_4567")), mus_visto=bool(rules.get("mus_visto")))
    # no metadata (e.g. a plain CSV): the deck whose hand index gives every row's hand label
    for name in ("8-reyes", "4-reyes", "ten-kings"):
        v = make_variant(name)
        labels = hand_tables(v).labels
        if all(0 <= int(h) < len(labels) and labels[int(h)] == str(lab)
               for h, lab in zip(df["hand_index"], df["hand"])):
            return v
    raise MusError("cannot tell the variant of this table (no metadata, hands match no deck); "
                   "give --variant")


def _hand_axis(ax, labels: Sequence[str], max_ticks: int = 60) -> None:
    n = len(labels)
    step = max(1, math.ceil(n / max_ticks))
    pos = list(range(0, n, step))
    ax.set_xticks(pos, [labels[i].replace(" ", "") for i in pos], rotation=90,
                  fontsize=7 if n > 40 else 9, family="monospace")


def _seat_grid(df, column: str, order: list[int]) -> tuple[np.ndarray, list[str]]:
    seats = [s for s in SEATS if s in set(df["seat"])]
    pos = {h: i for i, h in enumerate(order)}
    grid = np.full((len(seats), len(order)), np.nan)
    for s_i, s in enumerate(seats):
        d = df[df["seat"] == s]
        for h, val in zip(d["hand_index"], d[column]):
            grid[s_i, pos[int(h)]] = val
    return grid, seats


def plot_heatmap(df, lance: str, variant: Variant | None = None, size=None):
    """``p_team`` of ``lance`` for every hand (columns, strongest at that lance first) and seat (rows).

    ``df``: a table from :func:`musstats.analysis.table.strategy_table` or :func:`odds_grid`."""
    from musstats.analysis.ordago import parse_lance

    lance = parse_lance(lance)
    v = variant or _variant_of(df)
    t = hand_tables(v)
    order = hand_order(v, lance, sorted(set(int(h) for h in df["hand_index"])))
    grid, seats = _seat_grid(df, f"p_team_{lance}", order)
    fig = new_figure(size)
    ax = fig.subplots()
    im = ax.imshow(100 * grid, aspect="auto", cmap=CMAP, vmin=0, vmax=100, interpolation="nearest")
    ax.set_yticks(range(len(seats)), [SEAT_ES[s] for s in seats])
    _hand_axis(ax, [t.labels[h] for h in order])
    ax.set_xlabel(f"Mano (hand), de la mejor a la peor a {LANCE_ES[lance]} / strongest at "
                  f"{LANCE_ES[lance]} on the left ({len(order)} hands)")
    ax.set_ylabel("Asiento / seat")
    cb = fig.colorbar(im, ax=ax, fraction=0.05, pad=0.01)
    cb.set_label("P(team) %")
    note = {"pares": "  (0 when nobody holds pares)", "juego": "  (0 when nobody holds juego)",
            "punto": "  (0 when someone holds juego)"}.get(lance, "")
    _title(fig, f"{LANCE_ES[lance]}: P(nuestra pareja gana / our team wins) por mano y asiento · "
                f"{_variant_tag(v)}{note}")
    return fig


# --------------------------------------------------------------------------- totals

def totals_distribution(variant: str | Variant = "8-reyes", juego_real: str = "off", cards=None, keep=None):
    """Distribution of the juego/punto total (points) of a 4-card hand, exact.

    Without ``cards``: a hand dealt from the full deck (weights ``deal_weight`` / 91,390).
    With ``cards`` and ``keep`` (a sub-multiset, at most 3 cards; ``"none"`` or ``[]`` to
    throw all four): the hand after the discard, keep + a draw of the missing cards from
    the 36 cards not in the hand, every draw equally likely (hypergeometric over card
    classes).  Returns a pandas Series: probability indexed by total (only totals that
    can occur), summing to 1, with ``attrs`` describing the case.
    """
    import pandas as pd

    from musstats.rules.cards import parse_cards, parse_hand
    from musstats.tables.policies import keep_mask_for

    v = make_variant(variant, juego_real)
    t = hand_tables(v)
    probs: dict[int, float] = {}
    if cards is None:
        if keep is not None:
            raise MusError("--keep needs the hand's cards: musstats plot totals R R 7 A --keep R R")
        for h in range(t.n_hands):
            pts = int(t.points[h])
            probs[pts] = probs.get(pts, 0.0) + float(t.deal_weight[h])
        total = float(sum(probs.values()))
        desc = "dealt hand"
    else:
        hand = parse_hand(cards)
        rem = t.remaining(hand)
        if keep is None:
            raise MusError("totals for a hand needs --keep: the cards you keep (at most 3; "
                           "--keep none to throw all four)")
        if isinstance(keep, str) and keep.strip().lower() in ("none", "nada", "–", ""):
            kept: list = []
        else:
            kept = parse_cards(keep)
        mask = keep_mask_for(hand, kept, v) if kept else 0
        kept_cls = [int(t.cls4[t.index_of(hand)][i]) for i in range(4) if mask >> i & 1]
        base = sum(v.classes[c].points for c in kept_cls)
        n_draw = 4 - len(kept_cls)
        k = t.n_classes
        for draw in combinations_with_replacement(range(k), n_draw):
            w = 1
            for c in set(draw):
                w *= comb(int(rem[c]), draw.count(c))
            if w:
                pts = base + sum(v.classes[c].points for c in draw)
                probs[pts] = probs.get(pts, 0.0) + float(w)
        total = float(comb(int(rem.sum()), n_draw))
        desc = (f"{' '.join(c.label for c in hand)}, keep {' '.join(v.classes[c].label for c in kept_cls) or '–'}"
                f", draw {n_draw} of {int(rem.sum())}")
    s = pd.Series({k_: w / total for k_, w in sorted(probs.items())}, name="probability")
    s.index.name = "total"
    s.attrs.update({"variant": v.name, "case": desc})
    return s


def plot_totals(dist, size=None):
    """Bars of a :func:`totals_distribution`: punto totals, juego totals and 31 in three colours."""
    fig = new_figure(size)
    ax = fig.subplots()
    x = np.array(dist.index, dtype=int)
    p = 100 * dist.to_numpy()
    col = [OKABE_ITO["vermillion"] if v == 31 else (OKABE_ITO["orange"] if v >= 31 else OKABE_ITO["blue"])
           for v in x]
    bars = ax.bar(x, p, color=col, edgecolor="black", linewidth=0.5, width=0.8)
    for b, v in zip(bars, x):
        if v == 31:
            b.set_hatch("//")
    ax.set_xlabel("Puntos de la mano / hand total (juego 31+, punto below 31)")
    ax.set_ylabel("Probabilidad / probability (%)")
    ax.set_xlim(min(3.5, x.min() - 0.5), 40.5)
    ax.set_xticks(range(4, 41, 2))
    from matplotlib.patches import Patch

    pj = float(dist[dist.index >= 31].sum())
    p31 = float(dist.get(31, 0.0))
    p30 = float(dist.get(30, 0.0))
    ax.legend(handles=[Patch(color=OKABE_ITO["blue"], label=f"Punto (< 31): {100 * (1 - pj):.2f} %"),
                       Patch(color=OKABE_ITO["orange"], label=f"Juego (≥ 31): {100 * pj:.2f} %"),
                       Patch(facecolor=OKABE_ITO["vermillion"], hatch="//", edgecolor="black",
                             label=f"31: {100 * p31:.2f} %")],
              loc="upper left", title=f"punto 30: {100 * p30:.2f} %")
    ax.grid(axis="y", alpha=0.3)
    _title(fig, f"Juego / punto: distribución de puntos / distribution of the total · "
                f"{dist.attrs.get('case', '')} · {dist.attrs.get('variant', '')}")
    return fig


# --------------------------------------------------------------------------- convergence

def convergence_data(cards, seat: str | int = "mano", lance: str = "grande", variant: str | Variant = "8-reyes",
                     juego_real: str = "off", *, trials: int = 200_000, seed: int = 1, points: int = 14):
    """Monte Carlo ``p_team`` of ``lance`` at a geometric grid of trial counts (500 … ``trials``),
    each a run with the same seed, with its SE; the exact value in ``attrs["exact"]``."""
    import pandas as pd

    from musstats.rules.cards import parse_hand
    from musstats.engines.exact import exact_table
    from musstats.engines.montecarlo import simulate
    from musstats.analysis.ordago import parse_lance
    from musstats.rules.seats import parse_seat

    v = make_variant(variant, juego_real)
    hand = parse_hand(cards)
    hand_tables(v).remaining(hand)
    s = parse_seat(seat)
    lance = parse_lance(lance)
    if isinstance(trials, bool) or not isinstance(trials, (int, np.integer)) or trials < 1000:
        raise MusError(f"--trials must be a whole number >= 1000 for a convergence plot, got {trials!r}")
    li = LANCES.index(lance)
    grid = np.unique(np.geomspace(min(500, trials), trials, points).round().astype(np.int64))
    rows = []
    for n in grid:
        r = simulate(hand, s, v, trials=int(n), seed=seed)
        rows.append({"trials": int(n), "p_team": float(r.mean[li, 0]), "se": float(r.se[li, 0])})
    df = pd.DataFrame(rows)
    df.attrs.update({"exact": float(exact_table(hand, s, v)[li, 0]), "hand": " ".join(c.label for c in hand),
                     "seat": SEATS[s], "lance": lance, "seed": seed, "variant": v.name})
    return df


def plot_convergence(df, size=None):
    """Estimate and 95 % band against the number of trials, with the exact value as a line."""
    fig = new_figure(size)
    ax = fig.subplots()
    a = df.attrs
    n = df["trials"].to_numpy()
    m = 100 * df["p_team"].to_numpy()
    half = 100 * 1.96 * df["se"].to_numpy()
    ax.fill_between(n, m - half, m + half, color=OKABE_ITO["sky"], alpha=0.45, linewidth=0,
                    label="95 % band (± 1.96 SE)")
    ax.plot(n, m, "o-", color=OKABE_ITO["blue"], label="Monte Carlo estimate", markersize=4)
    ax.axhline(100 * a["exact"], color=OKABE_ITO["vermillion"], linewidth=1.6, linestyle="--",
               label=f"exact {100 * a['exact']:.3f} %")
    ax.set_xscale("log")
    ax.set_xlabel("Repartos simulados / trials (log scale)")
    ax.set_ylabel(f"P(team) a {LANCE_ES[a['lance']]} (%)")
    ax.legend(loc="best")
    ax.grid(alpha=0.3, which="both")
    _title(fig, f"Convergencia / convergence: {LANCE_ES[a['lance']]} · {a['hand']} · "
                f"{SEAT_ES[a['seat']]} · {a['variant']} · seed {a['seed']}")
    return fig


# --------------------------------------------------------------------------- mus

MUS_CATEGORIES = (
    ("cut", False, "Cortar / cut", OKABE_ITO["blue"]),
    ("cut", True, "Cortar, por poco / cut, within 2 SE", OKABE_ITO["sky"]),
    ("mus", True, "Mus, por poco / mus, within 2 SE", OKABE_ITO["yellow"]),
    ("mus", False, "Mus", OKABE_ITO["orange"]),
)


def plot_mus(df, variant: Variant | None = None, size=None):
    """Cut the mus or ask for it, for every hand (columns, strongest at grande first) and seat,
    from a strategy table; with the share of deals where cutting is advised, by seat."""
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    from musstats.analysis.table import seat_summary

    need = {"hand_index", "seat", "advice", "advice_close", "deal_freq"}
    if not need <= set(df.columns):
        raise MusError(f"the mus chart needs a table from 'musstats table' (columns {', '.join(sorted(need))})")
    v = variant or _variant_of(df)
    t = hand_tables(v)
    order = sorted(set(int(h) for h in df["hand_index"]))
    cat = df.apply(lambda r: next(i for i, (a, c, _, _) in enumerate(MUS_CATEGORIES)
                                  if a == r["advice"] and c == bool(r["advice_close"])), axis=1)
    d2 = df.assign(_cat=cat.astype(float))
    grid, seats = _seat_grid(d2, "_cat", order)
    fig = new_figure(size)
    ax, axb = fig.subplots(2, 1, height_ratios=[3, 1.4])
    cmap = ListedColormap([c for *_, c in MUS_CATEGORIES])
    ax.imshow(grid, aspect="auto", cmap=cmap, vmin=-0.5, vmax=len(MUS_CATEGORIES) - 0.5, interpolation="nearest")
    ax.set_yticks(range(len(seats)), [SEAT_ES[s] for s in seats])
    _hand_axis(ax, [t.labels[h] for h in order])
    ax.set_xlabel(f"Mano (hand), de la mejor a la peor a Grande / strongest at Grande on the left "
                  f"({len(order)} hands)")
    ax.legend(handles=[Patch(color=c, label=lab) for *_, lab, c in MUS_CATEGORIES], loc="lower center",
              bbox_to_anchor=(0.5, 1.0), ncols=4, fontsize=8, frameon=False)
    summ = seat_summary(df)
    y = np.arange(len(summ))
    share = [100 * s["share_cut"] for s in summ]
    axb.barh(y, share, color=OKABE_ITO["blue"], edgecolor="black", linewidth=0.5)
    axb.barh(y, [100 - x for x in share], left=share, color=OKABE_ITO["orange"], edgecolor="black", linewidth=0.5)
    for yi, s in zip(y, summ):
        axb.text(1, yi, f"cortar / cut {100 * s['share_cut']:.1f} % of deals ({s['hands_cut']} of {s['hands']} hands)",
                 va="center", fontsize=8, color="black",
                 bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.85, "pad": 1.5})
    axb.set_yticks(y, [SEAT_ES[s["seat"]] for s in summ])
    axb.invert_yaxis()
    axb.set_xlim(0, 100)
    axb.set_xlabel("Repartos / share of deals, weighted by how often each hand is dealt (%)")
    disc = df.attrs.get("discard", {})
    extra = (f" · {disc.get('trials_per_keep_set', 0):,} deals per keep-set, others discard by "
             f"{disc.get('others_discard_by', '?')}") if disc else ""
    _title(fig, f"¿Cortar o mus? / cut the mus or ask for it · {_variant_tag(v)}{extra}")
    return fig


# --------------------------------------------------------------------------- game

def plot_game(model, mano: str = "avg", scores: Sequence[int] | None = None, size=None):
    """P(win the game) over scores (= the break-even to call an órdago there), and the
    break-evens to call (W(a, b)) and to accept (W(a, b + 1)) against their score."""
    from musstats.analysis.game import _mano_index

    m = _mano_index(mano)
    g = model.grid(m)
    tgt = model.target
    fig = new_figure(size)
    ax1, ax2 = fig.subplots(1, 2, width_ratios=[1, 1.15])
    im = ax1.imshow(100 * g, origin="lower", cmap=CMAP, vmin=0, vmax=100, aspect="equal",
                    extent=(-0.5, tgt - 0.5, -0.5, tgt - 0.5), interpolation="nearest")
    levels = [10, 25, 50, 75, 90]
    cs = ax1.contour(np.arange(tgt), np.arange(tgt), 100 * g, levels=levels, linewidths=0.8,
                     colors=["white" if lv < 50 else "black" for lv in levels])
    ax1.clabel(cs, fmt=lambda v: f"{v:.0f} %", fontsize=7)
    ax1.set_xlabel("Tanteo de ellos / their score")
    ax1.set_ylabel("Nuestro tanteo / our score")
    ax1.set_xticks(range(0, tgt, 5))
    ax1.set_yticks(range(0, tgt, 5))
    cb = fig.colorbar(im, ax=ax1, fraction=0.046, pad=0.03)
    cb.set_label("P(ganar la partida / win the game) %")
    ax1.set_title("P(ganar la partida / win the game)\n= break-even para echar órdago / to call one", fontsize=9)
    if scores is None:
        scores = [0, tgt // 4, tgt // 2, 3 * tgt // 4, tgt - 5]
    palette = [OKABE_ITO[k] for k in ("blue", "orange", "green", "vermillion", "purple", "sky")]
    b = np.arange(tgt)
    for i, a in enumerate(scores):
        call = [model.p_win(a, bb, m) for bb in b]
        accept = [model.p_win(a, bb + 1, m) for bb in b]
        col = palette[i % len(palette)]
        ax2.plot(b, 100 * np.array(call), "-", color=col, label=f"{a}: echar / call")
        ax2.plot(b, 100 * np.array(accept), "--", color=col, label=f"{a}: querer / accept")
    ax2.set_xlabel("Tanteo de ellos / their score")
    ax2.set_ylabel("break-even P(ganar el lance / win the lance) %")
    ax2.set_ylim(0, 100)
    ax2.grid(alpha=0.3)
    ax2.legend(title="nuestro tanteo\nour score", fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax2.set_title("Órdago: echar / call si P ≥ línea continua,\nquerer / accept si P > discontinua", fontsize=9)
    mano_txt = {"us": "mano: nosotros / us", "them": "mano: ellos / them", "avg": "mano: media / average"}[m]
    o = model.outcomes
    model_txt = f" · en paso, {o.deals:,} deals ({o.source})" if o.deals else ""
    _title(fig, f"Partida a {tgt} / game to {tgt} · {_variant_tag(model.variant)} · {mano_txt}{model_txt}")
    return fig


def describe_kinds() -> dict[str, str]:
    """One line per plot kind (for help texts)."""
    return {
        "hand": "per-lance P(team) and net EV for one hand and seat",
        "heatmap": "one lance's P(team) for every hand and seat",
        "totals": "distribution of juego/punto totals (deck, or a hand after a discard)",
        "convergence": "Monte Carlo P(team) and its 95 % band against trials, with the exact value",
        "mus": "cut the mus or ask for it, by hand and seat (from a strategy table)",
        "game": "P(win the game) over scores with the órdago break-evens",
    }
