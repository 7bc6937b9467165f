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

Colours: the Okabe–Ito palette for categories, cividis or viridis for continuous scales and
PuOr for differences around zero, all readable with colour-vision deficiencies; lance names
are the Spanish ones.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from musstats.base.errors import MusError
from musstats.base.files import atomic_write, check_output
from musstats.output.files import IMAGE_EXTS
from musstats.rules import checks
from musstats.rules.labels import LANCE_ES, LANCES, SEAT_ES, SEATS
from musstats.rules.variant import Variant, make_variant
from musstats.tables.hands import hand_tables

__all__ = ["OKABE_ITO", "LANCE_COLOR", "CMAP", "HEATMAP_CMAP", "SEAT_EFFECT_CMAP", "DEFAULT_WIDTH", "DEFAULT_HEIGHT",
           "DEFAULT_DPI", "MAX_PIXELS", "PLOT_KINDS", "figure_size", "new_figure", "save_figure", "plot_hand",
           "hand_order", "quantile_bounds", "plot_heatmap", "plot_totals", "plot_convergence", "MUS_CATEGORIES",
           "plot_mus", "plot_game", "save_game", "plot_pushfold_chart", "pushfold_rows", "describe_kinds"]

#: Okabe & Ito (2008) colour-blind-safe palette
OKABE_ITO = {"black": "#000000", "orange": "#E69F00", "sky": "#56B4E9", "green": "#009E73",
             "yellow": "#F0E442", "blue": "#0072B2", "vermillion": "#D55E00", "purple": "#CC79A7"}
LANCE_COLOR = {"grande": OKABE_ITO["blue"], "chica": OKABE_ITO["sky"], "pares": OKABE_ITO["green"],
               "juego": OKABE_ITO["orange"], "punto": OKABE_ITO["purple"]}
CMAP = "cividis"
DEFAULT_WIDTH, DEFAULT_HEIGHT, DEFAULT_DPI = 12.0, 7.0, 100.0
#: largest image side accepted, in pixels
MAX_PIXELS = 20_000
PLOT_KINDS = ("hand", "heatmap", "totals", "convergence", "mus", "game", "bet", "convergence-cfr")


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
        for what, px in (("width", w_px), ("height", h_px)):
            if not 100 <= px <= MAX_PIXELS:
                raise MusError(f"--size {what} must be 100..{MAX_PIXELS} pixels, got {px}")
        return w_px / dpi, h_px / dpi, float(dpi)
    w: float = DEFAULT_WIDTH if width is None else width
    h: float = DEFAULT_HEIGHT if height is None else height
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

def plot_hand(res, size=None):
    """Per-lance P(team) and net EV bars of an :class:`~musstats.analysis.odds.OddsResult`;
    95 % error bars for Monte Carlo.  The two panels sit side by side in a landscape figure
    and one above the other in a portrait one (a phone), with titles wrapped to the width."""
    fig = new_figure(size)
    w, h = fig.get_size_inches()
    portrait = h > w
    ax1, ax2 = fig.subplots(2, 1) if portrait else fig.subplots(1, 2)
    names = [LANCE_ES[lance] for lance in LANCES]
    colors = [LANCE_COLOR[lance] for lance in LANCES]
    x = np.arange(len(LANCES))
    p, p_se = res.mean[:, 0], res.se[:, 0]
    ev, ev_se = res.mean[:, 4], res.se[:, 4]
    mc = res.method == "mc"
    small = w * fig.dpi < 700  # a narrow figure: shorter labels, smaller ticks
    ax1.bar(x, 100 * p, color=colors, edgecolor="black", linewidth=0.6,
            yerr=100 * 1.96 * p_se if mc else None, capsize=4 if mc else 0)
    ax1.set_xticks(x, names)
    ax1.set_ylim(0, 112)
    ax1.set_yticks(range(0, 101, 20))
    ax1.set_ylabel("P(team) %" if small else "P(team): nuestra pareja gana / our team wins (%)")
    ax1.set_title("Probabilidad de ganar el lance / P(our team wins the lance)", wrap=True, fontsize=10)
    for xi, v in zip(x, p):
        ax1.annotate(f"{100 * v:.1f} %", (xi, 100 * v), ha="center", va="bottom", fontsize=9,
                     xytext=(0, 3), textcoords="offset points")
    ax2.bar(x, ev, color=colors, edgecolor="black", linewidth=0.6,
            yerr=1.96 * ev_se if mc else None, capsize=4 if mc else 0)
    ax2.axhline(0, color="black", linewidth=0.8)
    ax2.set_xticks(x, names)
    ax2.set_ylabel("EV" if small else "EV neto / net stones (ours − theirs)")
    ax2.set_title(f"Piedras esperadas en paso / expected stones en paso (total {ev.sum():+.2f})", wrap=True,
                  fontsize=10)
    lo, hi = min(0.0, float(ev.min())), max(0.0, float(ev.max()))
    pad = 0.18 * (hi - lo or 1.0)
    ax2.set_ylim(lo - (pad if lo < 0 else 0), hi + (pad if hi > 0 else 0))
    for xi, v in zip(x, ev):
        ax2.annotate(f"{v:+.2f}", (xi, v), ha="center", va="bottom" if v >= 0 else "top", fontsize=9,
                     xytext=(0, 3 if v >= 0 else -3), textcoords="offset points")
    for ax in (ax1, ax2):
        ax.grid(axis="y", alpha=0.3)
        ax.set_axisbelow(True)
        if small:
            ax.tick_params(axis="x", labelsize=8.5)
    how = "exact" if not mc else f"Monte Carlo, {res.trials:,} deals, seed {res.seed}; bars ± 1.96 SE"
    fig.suptitle(f"{' '.join(c.label for c in res.hand)} · {SEAT_ES[res.context.seating.name(res.seat)]} · "
                 f"{_variant_tag(res.variant)} · {how}", fontsize=11, wrap=True)
    return fig


# --------------------------------------------------------------------------- heatmap

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


#: colour map of the P(team) heatmap (perceptually uniform, colour-blind safe) and of the seat effect
HEATMAP_CMAP = "viridis"
SEAT_EFFECT_CMAP = "PuOr"
#: colour bands of the P(team) heatmap: each holds about the same number of cells
HEATMAP_BANDS = 12


def quantile_bounds(values: np.ndarray, bands: int = HEATMAP_BANDS) -> np.ndarray:
    """Band limits (in the values' units) such that each band holds about the same number of
    values: a colour scale that spends its colours where the values are, rounded to 0.1 and
    strictly increasing (fewer bands when many values are equal)."""
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    if x.size == 0:
        return np.array([0.0, 100.0])
    q = np.round(np.quantile(x, np.linspace(0, 1, bands + 1)), 1)
    q[0], q[-1] = min(q[0], np.floor(x.min() * 10) / 10), max(q[-1], np.ceil(x.max() * 10) / 10)
    b = np.unique(q)
    if b.size < 2:
        b = np.array([b[0] - 0.5, b[0] + 0.5])
    return b


def plot_heatmap(df, lance: str, variant: Variant | None = None, size=None):
    """``p_team`` of ``lance`` for every hand (columns, strongest at that lance first) and seat (rows).

    Top: P(team) on a colour scale of equal-count bands (most hands of grande sit within a few
    points of each other; a linear 0-100 % scale paints them one grey), the band limits on the
    colour bar.  Bottom: the seat effect, each seat's P(team) minus the hand's mean over the
    seats, in percentage points on a diverging scale centred on 0 (mano's ties, postre's
    position).  ``df``: a table from :func:`musstats.analysis.table.strategy_table` or
    :func:`musstats.analysis.table.odds_grid`."""
    from matplotlib.colors import BoundaryNorm, TwoSlopeNorm

    lance = checks.lance(lance)
    v = variant or _variant_of(df)
    t = hand_tables(v)
    order = hand_order(v, lance, sorted(set(int(h) for h in df["hand_index"])))
    grid, seats = _seat_grid(df, f"p_team_{lance}", order)
    pct_grid = 100 * grid
    fig = new_figure(size)
    ax, ax2 = fig.subplots(2, 1, sharex=True, height_ratios=[1.25, 1.0])
    bounds = quantile_bounds(pct_grid)
    import matplotlib

    cmap = matplotlib.colormaps[HEATMAP_CMAP]
    norm = BoundaryNorm(bounds, cmap.N)
    im = ax.imshow(pct_grid, aspect="auto", cmap=cmap, norm=norm, interpolation="nearest")
    ax.set_yticks(range(len(seats)), [SEAT_ES[s] for s in seats])
    ax.set_ylabel("Asiento / seat")
    ax.set_title(f"P(team) % — colour bands of equal size (about {100 // max(1, len(bounds) - 1)} % of the cells "
                 f"each)", fontsize=10)
    cb = fig.colorbar(im, ax=ax, fraction=0.05, pad=0.01, spacing="uniform", ticks=bounds)
    cb.ax.set_yticklabels([f"{b:.1f}" for b in bounds], fontsize=8)
    cb.set_label("P(team) %")
    effect = pct_grid - np.nanmean(pct_grid, axis=0, keepdims=True) if len(seats) > 1 else pct_grid * 0
    span = float(np.nanmax(np.abs(effect))) if np.isfinite(effect).any() else 0.0
    span = max(span, 0.1)
    im2 = ax2.imshow(effect, aspect="auto", cmap=SEAT_EFFECT_CMAP, norm=TwoSlopeNorm(0.0, -span, span),
                     interpolation="nearest")
    ax2.set_yticks(range(len(seats)), [SEAT_ES[s] for s in seats])
    ax2.set_ylabel("Asiento / seat")
    ax2.set_title("Efecto del asiento / seat effect: P(team) − the hand's mean over the seats (points)", fontsize=10)
    cb2 = fig.colorbar(im2, ax=ax2, fraction=0.05, pad=0.01)
    cb2.set_label("points of P(team)")
    _hand_axis(ax2, [t.labels[h] for h in order])
    ax2.set_xlabel(f"Mano (hand), de la mejor a la peor a {LANCE_ES[lance]} / strongest at "
                   f"{LANCE_ES[lance]} on the left ({len(order)} hands)")
    note = {"pares": "  (0 when nobody holds pares)", "juego": "  (0 when nobody holds juego)",
            "punto": "  (0 when someone holds juego)"}.get(lance, "")
    _title(fig, f"{LANCE_ES[lance]}: P(nuestra pareja gana / our team wins) por mano y asiento · "
                f"{_variant_tag(v)}{note}")
    return fig


# --------------------------------------------------------------------------- totals

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
    disc = df.attrs.get("mus", {})
    extra = (f" · {disc.get('trials_per_keep_set', 0):,} deals per keep-set, others discard by "
             f"{disc.get('others_discard_by', '?')}, given the others ask for mus") if disc else ""
    _title(fig, f"¿Cortar o mus? / cut the mus or ask for it · {_variant_tag(v)}{extra}")
    return fig


# --------------------------------------------------------------------------- game

def plot_game(model, mano: str = "avg", scores: Sequence[int] | None = None, size=None):
    """P(win the game) over scores (= the break-even to call an órdago there), and the
    break-evens to call (W(a, b)) and to accept (W(a, b + 1)) against their score."""
    from musstats.analysis.game.model import mano_choice

    m = mano_choice(mano)
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


def plot_bet_heatmap(df, variant: Variant | None = None, size=None):
    """P(bet) and P(órdago) at each seat's first decision of a lance, for every hand (columns,
    strongest at that lance first) and seat (rows): a :func:`musstats.analysis.table.bet_grid`."""
    a = df.attrs
    lance = a["lance"]
    v = variant or make_variant(a.get("variant", "8-reyes"))
    t = hand_tables(v)
    order = hand_order(v, lance, sorted(set(int(h) for h in df["hand_index"])))
    fig = new_figure(size)
    axes = fig.subplots(2, 1, sharex=True)
    for ax, col, name in zip(axes, ("p_bet", "p_ordago"), ("P(envidar / bet)", "P(órdago)")):
        grid, seats = _seat_grid(df, col, order)
        im = ax.imshow(100 * grid, aspect="auto", cmap=CMAP, vmin=0, vmax=100, interpolation="nearest")
        ax.set_yticks(range(len(seats)), [SEAT_ES[s] for s in seats])
        ax.set_ylabel(name)
        cb = fig.colorbar(im, ax=ax, fraction=0.04, pad=0.01)
        cb.set_label("%")
    _hand_axis(axes[1], [t.labels[h] for h in order])
    axes[1].set_xlabel(f"Mano (hand), de la mejor a la peor a {LANCE_ES[lance]} / strongest at {LANCE_ES[lance]} "
                       f"on the left ({len(order)} hands)")
    _title(fig, f"{LANCE_ES[lance]}: primera decisión de cada asiento / first decision of each seat (everybody "
                f"before passed) · equilibrium, {a.get('deal')}, {a.get('info')} · {_variant_tag(v)}")
    return fig


def plot_cfr_convergence(frames: dict, size=None):
    """The three measures of exploitability against training time, one colour per lance
    (``frames`` maps a label to a :func:`musstats.analysis.betting.convergence_frame`): per
    player (NashConv in sample, solid), the better of the two pairs changing together
    (dashed) and the better of the two pairs seeing both their hands (dotted)."""
    fig = new_figure(size)
    ax = fig.subplots()
    colors = list(LANCE_COLOR.values()) + [OKABE_ITO["black"], OKABE_ITO["vermillion"]]
    styles = (("nashconv_in", "o-", "per player (NashConv)"), (("team0", "team1"), "s--", "a pair together"),
              (("pooled0", "pooled1"), "^:", "a pair seeing both hands"))
    for i, (label, df) in enumerate(frames.items()):
        for cols, style, what in styles:
            y = df[cols] if isinstance(cols, str) else df[list(cols)].max(axis=1)
            if not np.isfinite(np.asarray(y, float)).any():
                continue
            ax.plot(df["seconds"], np.maximum(np.asarray(y, float), 1e-4), style, color=colors[i % len(colors)],
                    markersize=3, label=f"{label}: {what}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.axhline(0.02, color="grey", linewidth=0.8, linestyle="--")
    ax.axhline(0.01, color="grey", linewidth=0.8, linestyle=":")
    ax.set_xlabel("Segundos de entrenamiento / training seconds (log scale)")
    ax.set_ylabel("Piedras por lance / stones per lance (in-sample estimates)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(loc="upper right", fontsize="small")
    _title(fig, "Convergencia al equilibrio / convergence: what a player, a pair and a pair seeing both hands gain "
                "(dashed 0.02, dotted 0.01 stones)")
    return fig


def _pair_axis(variant: Variant) -> list[tuple[int, int]]:
    """The pairs of ranks (high, low), strongest first: the rows and columns of a push/fold grid."""
    ranks = sorted({c.rank for c in variant.classes if c.label != "J"}, reverse=True)
    return [(a, b) for i, a in enumerate(ranks) for b in ranks[i:]]


def pushfold_grid(df, column: str, seat: str, variant: Variant) -> tuple[np.ndarray, list[str]]:
    """A hand's frequency in a square grid: row = its two highest cards, column = its two
    lowest (both by effective rank, strongest first); cells of no hand are NaN."""
    t = hand_tables(variant)
    pairs = _pair_axis(variant)
    pos = {p: i for i, p in enumerate(pairs)}
    label = {c.rank: c.label for c in reversed(variant.classes)}
    grid = np.full((len(pairs), len(pairs)), np.nan)
    d = df[df["seat"] == seat]
    for h, x in zip(d["hand_index"], d[column]):
        r = sorted((variant.classes[int(c)].rank for c in t.cls4[int(h)]), reverse=True)
        grid[pos[(r[0], r[1])], pos[(r[2], r[3])]] = x
    return grid, [label[a] + label[b] for a, b in pairs]


def plot_pushfold(df, variant: Variant | None = None, size=None):
    """The push/fold chart of an órdago at a score: for every hand and seat, how often it calls
    the órdago (top row) and accepts one (bottom row), as a grid a player reads at a glance --
    row = the hand's two highest cards, column = its two lowest; mixed frequencies (strictly
    between 5 % and 95 %) are marked with a dot."""
    a = df.attrs
    v = variant or make_variant(a.get("variant", "8-reyes"))
    seats = [s for s in SEATS if s in set(df["seat"])]
    fig = new_figure(size)
    axes = np.atleast_2d(fig.subplots(2, len(seats), sharex=True, sharey=True))
    im = None
    for j, seat in enumerate(seats):
        for i, (col, name) in enumerate((("p_call", "echar / call"), ("p_accept", "querer / accept"))):
            ax = axes[i, j]
            grid, labels = pushfold_grid(df, col, seat, v)
            im = ax.imshow(100 * grid, cmap=CMAP, vmin=0, vmax=100, interpolation="nearest")
            mixed = (grid > 0.05) & (grid < 0.95)
            yy, xx = np.nonzero(mixed)
            ax.scatter(xx, yy, s=2, color=OKABE_ITO["vermillion"], marker=".")
            ax.set_title(f"{SEAT_ES[seat]} · {name}", fontsize=9)
            step = max(1, len(labels) // 12)
            ax.set_xticks(range(0, len(labels), step), labels[::step], rotation=90, fontsize=6, family="monospace")
            ax.set_yticks(range(0, len(labels), step), labels[::step], fontsize=6, family="monospace")
    if im is not None:
        cb = fig.colorbar(im, ax=axes, fraction=0.02, pad=0.01)
        cb.set_label("% (dot: mixed)")
    sc = a.get("score", {})
    _title(fig, f"Órdago a {LANCE_ES.get(a.get('lance', ''), a.get('lance', ''))} at {sc.get('us', '?')}-"
                f"{sc.get('them', '?')} (mano's team first) · row: two highest cards, column: two lowest · "
                f"{_variant_tag(v)}")
    return fig


def save_game(model, path: str | os.PathLike, mano: str = "avg") -> Path:
    """Write a game model as a table (.csv .parquet .md .json: one row per score) or as the
    heatmap of :func:`plot_game` (.png .svg .pdf), atomically."""
    from musstats.output.files import TABLE_EXTS, write_frame

    p = check_output(path, TABLE_EXTS + IMAGE_EXTS, "output")
    if p.suffix.lower() in TABLE_EXTS:
        return write_frame(model.to_frame(), p)
    return save_figure(plot_game(model, mano), p)


def describe_kinds() -> dict[str, str]:
    """One line per plot kind (for help texts)."""
    return {
        "hand": "per-lance P(team) and net EV for one hand and seat",
        "heatmap": "one lance's P(team) for every hand and seat",
        "totals": "distribution of juego/punto totals (deck, or a hand after a discard)",
        "convergence": "Monte Carlo P(team) and its 95 % band against trials, with the exact value",
        "mus": "cut the mus or ask for it, by hand and seat (from a strategy table)",
        "game": "P(win the game) over scores with the órdago break-evens",
        "bet": "P(bet) and P(órdago) at each seat's first decision of a lance (equilibrium)",
        "convergence-cfr": "the betting solver's exploitability against iterations",
    }


# --------------------------------------------------------------------------- push/fold chart

#: hands per row of a push/fold panel
PUSHFOLD_COLUMNS = 22


def pushfold_cells(df, column: str, seat: str, variant: Variant, lance: str,
                   columns: int = PUSHFOLD_COLUMNS) -> tuple[np.ndarray, list[list[str]]]:
    """One seat's frequencies as a grid of its hands from the strongest at ``lance`` (top left)
    to the weakest, ``columns`` per row: (values [rows, columns] with NaN past the last hand,
    labels per cell such as ``RRC7``)."""
    t = hand_tables(variant)
    d = df[df["seat"] == seat]
    val = dict(zip((int(h) for h in d["hand_index"]), d[column]))
    order = hand_order(variant, lance, list(val))
    rows = max(1, math.ceil(len(order) / columns))
    grid = np.full((rows, columns), np.nan)
    labels = [["" for _ in range(columns)] for _ in range(rows)]
    for i, h in enumerate(order):
        r, c = divmod(i, columns)
        grid[r, c] = val[h]
        labels[r][c] = t.labels[h].replace(" ", "")
    return grid, labels


#: the most hands listed one by one in the table of a push/fold chart
PUSHFOLD_ROWS = 40
#: a frequency at or above this is "plays"; strictly between it and 1 - it, "mixed"
PUSHFOLD_ACTIVE = 0.05
#: line styles of the four seats (colour and dash, readable in grey too)
_SEAT_STYLE = {"mano": (OKABE_ITO["blue"], "-"), "second": (OKABE_ITO["vermillion"], "--"),
               "third": (OKABE_ITO["green"], "-."), "postre": (OKABE_ITO["orange"], ":")}


def pushfold_rows(df, variant: Variant, lance: str, max_rows: int = PUSHFOLD_ROWS,
                  active: float = PUSHFOLD_ACTIVE) -> tuple[list[int], list[int]]:
    """The hands of a push/fold table: (listed, rest).  Listed: the hands that some seat calls or
    accepts at least ``active`` of the time, from the strongest at ``lance``, at most
    ``max_rows``; rest: every other hand of the table."""
    hands = sorted(set(int(h) for h in df["hand_index"]))
    order = hand_order(variant, lance, hands)
    hit = df[(df["p_call"] >= active) | (df["p_accept"] >= active)]
    on = set(int(h) for h in hit["hand_index"])
    listed = [h for h in order if h in on][:max_rows]
    chosen = set(listed)
    return listed, [h for h in order if h not in chosen]


def plot_pushfold_chart(df, variant: Variant | None = None, size=None):
    """The push/fold chart of an órdago at a score (``musstats ordago --chart``), in two parts.

    Left, every hand: how often each seat calls an órdago at its first turn (everyone before it
    passed; top) and accepts an opening órdago of the other team (bottom), one line per seat,
    against the hands from the strongest at the lance to the weakest (labelled every few
    hands).  Right, the hands that play: a table of every hand some seat calls or accepts at
    least 5 % of the time (the strongest first, up to :data:`PUSHFOLD_ROWS`), one column per
    seat and decision, the frequency written in each cell and a last row for all the other
    hands (the most often any of them plays)."""
    from matplotlib.colors import Normalize

    a = df.attrs
    v = variant or make_variant(a.get("variant", "8-reyes"))
    lance = a.get("lance", "grande")
    t = hand_tables(v)
    seats = [s for s in SEATS if s in set(df["seat"])]
    if size is None:
        size = (14.0, 10.0, DEFAULT_DPI)
    fig = new_figure(size)
    grid = fig.add_gridspec(2, 2, width_ratios=[1.25, 1.0])
    ax_call, ax_acc = fig.add_subplot(grid[0, 0]), fig.add_subplot(grid[1, 0])
    ax_tab = fig.add_subplot(grid[:, 1])
    order = hand_order(v, lance, sorted(set(int(h) for h in df["hand_index"])))
    pos = {h: i for i, h in enumerate(order)}
    nodes = (a.get("call_node") or {}, a.get("answer_node") or {})
    x = np.arange(len(order))
    for ax, (col, name), node in zip((ax_call, ax_acc), (("p_call", "echar / call"), ("p_accept", "querer / accept")),
                                     nodes):
        for seat in seats:
            d = df[df["seat"] == seat]
            y = np.full(len(order), np.nan)
            for h, val in zip(d["hand_index"], d[col]):
                y[pos[int(h)]] = 100 * val
            on = int(np.nansum(y > 50))
            mixed = int(np.nansum((y > 100 * PUSHFOLD_ACTIVE) & (y < 100 * (1 - PUSHFOLD_ACTIVE))))
            colour, dash = _SEAT_STYLE[seat]
            where = node.get(seat)
            ax.step(x, y, where="mid", color=colour, linestyle=dash, linewidth=1.8,
                    label=f"{SEAT_ES[seat]}" + (f" (after {where})" if where else "")
                          + f": {on} > 50 %, {mixed} mixed")
        ax.axhline(50, color="grey", linewidth=0.7, linestyle=":")
        ax.set_ylim(-3, 103)
        ax.set_xlim(-0.5, len(order) - 0.5)
        ax.set_ylabel(f"{name} (% of the time)")
        ax.grid(alpha=0.25)
        ax.legend(loc="upper right", fontsize=8.5, framealpha=0.9)
        step = max(1, math.ceil(len(order) / 24))
        ax.set_xticks(range(0, len(order), step), [t.labels[order[i]].replace(" ", "") for i in range(0, len(order), step)],
                      rotation=90, fontsize=8, family="monospace")
    ax_call.set_title(f"Cada mano / every hand, de la mejor a la peor a {LANCE_ES.get(lance, lance)} (strongest left)",
                      fontsize=10)
    ax_acc.set_xlabel(f"mano (hand), {len(order)} in all")

    listed, rest = pushfold_rows(df, v, lance)
    cols = [(seat, c) for c in ("p_call", "p_accept") for seat in seats]
    val = {(s, c): dict(zip((int(h) for h in df[df["seat"] == s]["hand_index"]), df[df["seat"] == s][c]))
           for s, c in cols}
    rows = len(listed) + 1
    table = np.full((rows, len(cols)), np.nan)
    for i, h in enumerate(listed):
        for j, key in enumerate(cols):
            table[i, j] = val[key].get(h, np.nan)
    for j, key in enumerate(cols):
        others = [val[key][h] for h in rest if h in val[key]]
        table[-1, j] = max(others) if others else np.nan
    im = ax_tab.imshow(100 * table, cmap=CMAP, norm=Normalize(0, 100), aspect="auto", interpolation="nearest")
    font = 8.5 if rows <= 30 else 7.5 if rows <= 36 else 6.8
    for i in range(rows):
        for j in range(len(cols)):
            p = table[i, j]
            if p != p:
                continue
            txt = f"{100 * p:.0f}" if p >= 0.005 else "·"
            if i == rows - 1:
                txt = f"≤{100 * p:.0f}" if p >= 0.005 else "0"
            ax_tab.text(j, i, txt, ha="center", va="center", fontsize=font,
                        color="black" if p > 0.6 else "white", fontweight="bold" if 0.05 < p < 0.95 else "normal")
    ax_tab.set_yticks(range(rows), [t.labels[h] for h in listed] + [f"las otras {len(rest)} / the other {len(rest)}"],
                      fontsize=font, family="monospace")
    ax_tab.set_xticks(range(len(cols)), [f"{SEAT_ES[s]}\n{'echar' if c == 'p_call' else 'querer'}" for s, c in cols],
                      fontsize=8.5)
    ax_tab.xaxis.tick_top()
    ax_tab.axvline(len(seats) - 0.5, color="white", linewidth=3)
    ax_tab.axhline(rows - 1.5, color="white", linewidth=3)
    ax_tab.tick_params(length=0)
    ax_tab.set_title(f"Las manos que juegan / hands some seat plays ≥ {100 * PUSHFOLD_ACTIVE:.0f} % of the time\n"
                     f"(% of the time in the cell; · under 0.5 %)", fontsize=10)
    cb = fig.colorbar(im, ax=ax_tab, fraction=0.04, pad=0.02)
    cb.set_label("% of the time")
    sc = a.get("score", {})
    nc = (a.get("nashconv") or {}).get("nashconv")
    decl = f" · {a['declared']} declared" if a.get("declared") else ""
    _title(fig, f"Órdago a {LANCE_ES.get(lance, lance)} at {sc.get('us', '?')}-{sc.get('them', '?')} "
                f"(mano's team first, a {sc.get('target', '?')}){decl} · "
                f"{'after the mus · ' if a.get('deal') == 'after-mus' else ''}equilibrium in P(win the game), "
                f"{a.get('iterations', '?')} iterations, NashConv {'–' if nc is None else f'{nc:.4f}'} · "
                f"{_variant_tag(v)}")
    return fig
