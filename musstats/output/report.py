"""The Markdown report (``make report`` → ``scripts/make_report.py`` → :func:`build_report`).

For every deck variant: the full strategy table as CSV, a readable summary per seat,
and charts (per-lance heatmaps, cut or mus, the game and its órdago break-evens, juego
totals, one hand, one convergence run), written under ``out_dir`` with ``README.md`` as
the entry point.  Everything is seeded, nothing depends on the clock or on a cache
(the game models are rebuilt with ``cache=False``), so two builds give the same files.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from musstats.base.errors import MusError
from musstats.base.files import atomic_write_text
from musstats.output.files import frame_to_markdown, write_frame
from musstats.rules.labels import LANCE_ES, LANCES, SEAT_ES, SEATS

__all__ = ["CHART", "CSV_DECIMALS", "GAME_DEALS", "GAME_SEED", "seat_table", "build_report"]

#: charts of the report are this size (pixels at 100 dpi)
CHART = (12.0, 6.0, 100.0)
#: example hand, seat and lance for the hand, totals and convergence charts
EXAMPLE: dict[str, Any] = {"hand": "R R 7 A", "seat": "mano", "keep": "R R", "lance": "pares", "trials": 200_000,
                           "seed": 1}
#: decimals of the numbers in the report's CSV tables
CSV_DECIMALS = 6
#: the game model of the report (the default of ``musstats game``)
GAME_DEALS, GAME_SEED = 4_000_000, 1


def _pct(x: float, d: int = 1) -> str:
    return "–" if x is None or (isinstance(x, float) and np.isnan(x)) else f"{100 * x:.{d}f} %"


def seat_table(df, seat: str):
    """The readable per-seat summary: one row per hand."""
    import pandas as pd

    d = df[df["seat"] == seat]
    out = pd.DataFrame({
        "Hand": d["hand"],
        "Dealt": [_pct(x, 3) for x in d["deal_freq"]],
        **{LANCE_ES[lance]: [_pct(x) for x in d[f"p_team_{lance}"]] for lance in LANCES},
        "EV cut": [f"{x:+.3f}" for x in d["ev_net_total"]],
        "Best keep": d["best_keep"],
        "Mus − cut": [f"{g:+.3f} ± {s:.3f}" for g, s in zip(d["mus_gain"], d["mus_gain_se"])],
        "Advice": [a + (" (close)" if c else "") for a, c in zip(d["advice"], d["advice_close"])],
        "Mus − cut, betting": ["–" if g != g else f"{g:+.3f} ± {s:.3f}"
                               for g, s in zip(d["mus_gain_bet"], d["mus_gain_bet_se"])],
        "Advice, betting": d["advice_bet"],
        "Equilibrium: P(cut)": ["–" if x != x else f"{x:.2f}" for x in d["cut_p_eq"]],
        "Órdago at 0-0": d["ordago_call"],
    })
    return out


def _overview(df) -> str:
    import pandas as pd

    from musstats.analysis.table import seat_summary

    rows = []
    be = df.drop_duplicates("seat").set_index("seat")
    for s in seat_summary(df):
        rows.append({"Seat": SEAT_ES[s["seat"]], "Hands to cut": f"{s['hands_cut']} of {s['hands']}",
                     "Deals to cut": _pct(s["share_cut"]),
                     "Mean EV, always cut": f"{s['mean_ev_cut']:+.3f}",
                     "Mean EV, following the advice": f"{s['mean_ev_best']:+.3f}",
                     "Órdago break-even: call": _pct(be.loc[s["seat"], "ordago_break_even_call"]),
                     "accept": _pct(be.loc[s["seat"], "ordago_break_even_accept"])})
    return frame_to_markdown(pd.DataFrame(rows))


def _variant_section(v, df, img: dict[str, str], csv_name: str, model) -> str:
    a = df.attrs
    disc = a["mus"]
    pol = disc["others_discard_by"]
    lines = [f"## {v.name}", ""]
    if pol != "table":
        lines += [f"> **Note:** the shipped discard strategy table for {v.name} was not available when this "
                  f"report was built, so the other players discard by the `{pol}` heuristic. Rebuild it with "
                  f"`python scripts/build_discard_table.py --variant {v.name}` and run `make report` again.", ""]
    lines += [
        f"{a['hands']} hands × {len(a['seats'])} seats; full table: [{csv_name}]({csv_name}) "
        f"(columns described in `musstats/analysis/table.py`).  Odds exact; the mus advice by Monte Carlo "
        f"on the deals in which the other three ask for mus, {disc['trials_per_keep_set']:,} deals per keep-set, "
        f"seed {disc['seed']}, the others discarding by `{pol}`; game model: {model.outcomes.deals:,} deals (seed {model.outcomes.seed}, {model.outcomes.source}).",
        "",
        "### Overview", "",
        "Deal shares are weighted by how often each hand is dealt; *following the advice* adds, for each hand "
        "where asking for mus is advised, its gain on the deals in which the others ask too.  An órdago at 0-0 pays when "
        "P(win the lance) reaches the break-even to call (P(win the game) without it); accept one when it "
        "exceeds the break-even to accept.", "",
        _overview(df),
        "### Cut or mus", "",
        f"![cut or mus, {v.name}]({img['mus']})", "",
        "### P(team) by lance, hand and seat", "",
    ]
    for lance in ("grande", "chica", "pares", "juego"):
        lines += [f"![{LANCE_ES[lance]} heatmap, {v.name}]({img['heatmap-' + lance]})", ""]
    lines += [
        "### The game and the órdago", "",
        f"![game, {v.name}]({img['game']})", "",
        "### Juego and punto totals", "",
        f"![totals of a dealt hand, {v.name}]({img['totals']})", "",
        f"![totals of {EXAMPLE['hand']} keeping {EXAMPLE['keep']}, {v.name}]({img['totals-keep']})", "",
        f"### One hand: {EXAMPLE['hand']} at {EXAMPLE['seat']}", "",
        f"![{EXAMPLE['hand']}, {v.name}]({img['hand']})", "",
        f"![convergence, {v.name}]({img['convergence']})", "",
        "### Strategy by seat", "",
        "P(team) per lance is exact (cutting now); *Mus − cut* is the gain of one mus round keeping *Best keep*, "
        "on the deals in which the other three ask for mus (as `musstats mus`); *(close)* = within 2 standard "
        "errors; *Mus − cut, betting* and *Advice, betting* are the same comparison with every lance bet by the "
        "shipped equilibrium strategies (8 reyes; the keep-set best with betting), both against the shipped cut "
        "flags; *Equilibrium: P(cut)* is the probability of cutting in the mus decision's equilibrium, the advice "
        "of `musstats mus` (8 reyes); *Órdago at 0-0* lists the lances this hand can bet in where calling pays.", "",
    ]
    for seat in [s for s in SEATS if s in set(df["seat"])]:
        lines += [f"<details><summary>{SEAT_ES[seat]} — {v.name}</summary>", "",
                  frame_to_markdown(seat_table(df, seat)), "</details>", ""]
    return "\n".join(lines)


def _betting_section(out: Path, log: Callable[[str], None], arena: dict, convergence: dict) -> str:
    """The betting section: how close to equilibrium the shipped strategies are, who bets and
    who goes órdago at his first turn, and how the solver converges."""
    from musstats.analysis.betting import convergence_frame, exploitability_table
    from musstats.analysis.table import bet_grid
    from musstats.output import plots

    lines = ["## Betting (8 reyes, equilibrium)", "",
             "The betting of every lance is solved as a game between the two pairs, each player seeing only his "
             "own hand: over the hands as dealt by the team scheme (DCFR with an exploration floor, so that every "
             "answer a partner may face is trained).  An accepted órdago is worth the stones-equivalent of a game "
             "won at 0-0.  See `musstats bet` and the README for the method and its figures.", "",
             "### How close to equilibrium", "",
             "Three measures, in stones per lance.  `nashconv`: the sum over the four seats of what a best "
             "response would gain, each seat changing alone (a lower bound: responses chosen on one sample of "
             "deals and valued on another; `nashconv_in`, valued in sample, is biased up: the truth lies between). "
             "`team0`, `team1`: what the pair of mano and third (second and postre) gains by changing both "
             "partners' play together, each still seeing only his own hand (the partners' alternating best "
             "responses from several starts: a lower bound).  `pooled0`, `pooled1`: what the pair gains when it "
             "also sees both its hands (exact: an upper bound of what any pair gains).", ""]
    ex = exploitability_table(deal="as-dealt", info="private")
    cols = ["lance", "pattern", "decision_nodes", "nashconv", "nashconv_se", "nashconv_in"]
    cols += [c for c in ("team0", "team1", "pooled0", "pooled1") if c in ex and ex[c].notna().any()]
    show = ex[cols + ["value_team0"]]
    lines += [frame_to_markdown(show), ""]
    lines += _value_gap_lines()
    lines += ["### Who bets at his first turn", ""]
    for lance in ("grande", "chica", "pares", "juego"):
        rel = f"img/betting-{lance}.png"
        plots.save_figure(plots.plot_bet_heatmap(bet_grid(lance), size=CHART), out / rel)
        lines += [f"![P(bet) and P(órdago), {LANCE_ES[lance]}]({rel})", ""]
    log("betting: heatmaps")
    rel = "img/betting-convergence.png"
    frames = {lance: convergence_frame(lance, iterations=convergence["iterations"], every=convergence["every"],
                                       team=convergence.get("team", True))
              for lance in ("grande", "chica")}
    plots.save_figure(plots.plot_cfr_convergence(frames, size=CHART), out / rel)
    lines += ["### Convergence of the solver", "", f"![the three measures against training time]({rel})", ""]
    log("betting: convergence")
    lines += _arena_lines(arena) + _game_lines()
    log("betting: arena and game model")
    return "\n".join(lines)


def _value_gap_lines() -> list[str]:
    """The value of each lance for mano's team with private and with pooled information (the
    shipped strategies of both models, hands as dealt)."""
    from musstats.analysis.betting import value_gap_table

    gap = value_gap_table()
    show = gap[["lance", "pattern", "value_private", "value_pooled", "gap", "gap_se", "gap_bound",
                "nashconv_pooled"]]
    return ["### Private against pooled information (perfect señas)", "",
            "The value of each lance for mano's team, in stones, when each player sees only his own hand "
            "(private, the real game: Monte Carlo over the others' hands) and when each team sees both its hands "
            "(pooled: perfect señas; solved and valued exactly), with the Monte Carlo error of the gap and its "
            "bound (the sum of the two solutions' in-sample NashConv); the pooled solution's exact NashConv.  "
            "Where each team has one holder the two games are one.", "", frame_to_markdown(show), ""]


#: the arena of the report: deals and games per match (about a minute in all)
REPORT_ARENA = {"hands": 200_000, "games": 4_000, "seed": 1}
#: the convergence chart of the report: iterations of grande and chica, the measures every so many
REPORT_CONVERGENCE = {"iterations": 400, "every": 100, "team": True}


def _arena_lines(size: dict) -> list[str]:
    """The arena: the equilibrium against the other strategy sets, stones per hand and games won."""
    from musstats.analysis.arena import arena

    lines = ["### The arena: does the equilibrium matter?", "",
             f"`musstats arena --hands {size['hands']} --games {size['games']} --seed "
             f"{size['seed']}`: every deal played twice with the seats swapped (A's expected stones, an "
             "accepted órdago worth 19.8 stones), every game twice on the same deals with each side mano first; "
             "hands as dealt.  *paso* never bets and refuses every bet; *heuristic* bets and answers by P(win the "
             "lance) against random hands; *random* plays every legal action alike.", "",
             "| A | B | stones per hand (A) | games won (A) |", "|---|---|---|---|"]
    for b in ("paso", "heuristic", "random"):
        r = arena("equilibrium", b, **size)
        stones = "–" if r.stones is None else f"{r.stones:+.3f} ± {r.stones_se:.3f}"
        won = "–" if r.won is None else f"{100 * r.won:.1f} ± {100 * (r.won_se or 0.0):.1f} %"
        lines.append(f"| equilibrium | {b} | {stones} | {won} |")
    return lines + [""]


def _game_lines() -> list[str]:
    """P(win the game) at a few scores, en paso and with equilibrium betting (both on the hands after
    the mus decision)."""
    from musstats.analysis.game import game_model
    from musstats.analysis.game.betting import BettingOutcomes

    paso = game_model("8-reyes", source="mus-decision")
    bet = game_model("8-reyes", betting=True)
    assert isinstance(bet.outcomes, BettingOutcomes)
    scores = [(0, 0), (0, 10), (10, 0), (0, 30), (20, 30), (35, 35)]
    lines = ["### The game with betting", "",
             "P(we win the game), our team mano in the next hand, on the hands after the mus decision (as dealt "
             "when a player holds a hand the mus decision's equilibrium cuts with, else after one mus round): "
             "every lance en paso, and every "
             "lance bet by the equilibrium strategies solved for each hand's distribution (as dealt where somebody "
             "cut, those that read who cut; after one mus round where all four asked, the after-mus ones; dejes at "
             "once, then the count; an accepted órdago "
             "ends the "
             f"game, in {100 * bet.outcomes.p_ordago():.2f} % of hands).", "",
             "| score (us-them) | en paso | with betting |", "|---|---|---|"]
    for a, b in scores:
        lines.append(f"| {a}-{b} | {_pct(paso.p_win(a, b, 'us'))} | {_pct(bet.p_win(a, b, 'us'))} |")
    return lines + [""]


def build_report(
    out_dir: str | Path = "reports",
    variants: Sequence[str] = ("8-reyes", "4-reyes"),
    *,
    hands=None,
    trials: int | None = None,
    seed: int | None = None,
    game_deals: int = GAME_DEALS,
    game_seed: int = GAME_SEED,
    example_trials: int = EXAMPLE["trials"],
    runner=None,
    log: Callable[[str], None] | None = None,
    progress_factory: Callable | None = None,
    betting: bool = True,
    arena: dict | None = None,
    convergence: dict | None = None,
) -> dict:
    """Regenerate the report in ``out_dir``; returns the timings (seconds) by step.

    ``hands``: restrict the tables (quick runs, tests); ``arena``: the hands, games and seed
    of the arena (default ``REPORT_ARENA``); ``convergence``: the iterations of the
    convergence chart and how often it measures (default ``REPORT_CONVERGENCE``).  The report
    is built in a hidden folder inside ``out_dir`` and moved into place only once it is
    complete: the charts folder ``out_dir/img`` is swapped in one rename, the CSVs and the
    README replaced, the CSVs of earlier builds removed.  An interrupted or failed build
    leaves ``out_dir`` as it was.
    """
    from musstats.analysis import table as tablegen
    from musstats.analysis.convergence import convergence_data
    from musstats.analysis.game import game_model
    from musstats.analysis.odds import odds
    from musstats.analysis.totals import totals_distribution
    from musstats.output import plots
    from musstats.rules.variant import make_variant

    log = log or (lambda msg: None)
    for name in variants:  # bad input fails before any work or any file is touched
        tablegen.parse_hands(hands, make_variant(name))
    final = Path(out_dir)
    final.mkdir(parents=True, exist_ok=True)
    if not final.is_dir():
        raise MusError(f"cannot write the report into {str(final)!r}")
    with _staged(final) as out:
        (out / "img").mkdir()
        trials = tablegen.DEFAULT_TRIALS if trials is None else trials
        seed = tablegen.DEFAULT_SEED if seed is None else seed
        timings: dict[str, float] = {}
        sections = []
        for name in variants:
            v = make_variant(name)
            t0 = time.perf_counter()
            model = game_model(v, deals=game_deals, seed=game_seed, cache=False)
            t1 = time.perf_counter()
            log(f"{v.name}: game model {t1 - t0:.1f} s")
            bar = progress_factory(f"{v.name} table") if progress_factory is not None else None
            try:
                res = tablegen.strategy_table(v, hands=hands, trials=trials, seed=seed, model=model, runner=runner,
                                              progress=bar)
            finally:
                if bar is not None:
                    bar.close()
            if res.partial:
                raise KeyboardInterrupt
            df = res.to_frame()
            t2 = time.perf_counter()
            timings[f"{v.name} table"] = t2 - t1
            log(f"{v.name}: table of {len(df)} rows {t2 - t1:.1f} s")
            csv_name = f"table-{v.name}.csv"
            # 6 decimals: far below the Monte Carlo noise, and a third of the size of full precision;
            # the metadata without the timings, so that a rebuild writes the same bytes
            meta = {k: v_ for k, v_ in df.attrs.items() if not k.startswith("seconds")}
            write_frame(df.round(CSV_DECIMALS), out / csv_name, meta=meta)
            img: dict[str, str] = {}

            def save(key: str, fig) -> None:
                rel = f"img/{v.name}-{key}.png"
                plots.save_figure(fig, out / rel)
                img[key] = rel

            save("mus", plots.plot_mus(df, v, size=CHART))
            for lance in ("grande", "chica", "pares", "juego"):
                save(f"heatmap-{lance}", plots.plot_heatmap(df, lance, v, size=CHART))
            save("game", plots.plot_game(model, size=CHART))
            save("totals", plots.plot_totals(totals_distribution(v), size=CHART))
            save("totals-keep", plots.plot_totals(totals_distribution(v, cards=EXAMPLE["hand"], keep=EXAMPLE["keep"]),
                                                  size=CHART))
            save("hand", plots.plot_hand(odds(EXAMPLE["hand"], EXAMPLE["seat"], variant=v), size=CHART))
            conv = convergence_data(EXAMPLE["hand"], EXAMPLE["seat"], lance=EXAMPLE["lance"], variant=v,
                                    trials=example_trials, seed=EXAMPLE["seed"])
            save("convergence", plots.plot_convergence(conv, size=CHART))
            t3 = time.perf_counter()
            timings[f"{v.name} charts"] = t3 - t2
            timings[f"{v.name} game model"] = t1 - t0
            log(f"{v.name}: charts {t3 - t2:.1f} s")
            sections.append(_variant_section(v, df, img, csv_name, model))
        if betting:
            t0 = time.perf_counter()
            sections.append(_betting_section(out, log, arena or REPORT_ARENA, convergence or REPORT_CONVERGENCE))
            timings["betting"] = time.perf_counter() - t0
        head = [
            "# musstats report: strategy tables and charts", "",
            "Generated by `make report` (`scripts/make_report.py`); do not edit by hand — every file under "
            "`reports/` is rebuilt from scratch with fixed seeds, so a rebuild gives the same content.", "",
            "Rules: [the rules musstats implements](../musstats/docs/rules.md) (game to 40, juego real off). "
            "*EV* is expected net stones en paso (ours minus theirs, no betting); *P(team)*: our team holds the best "
            "hand of the lance (pares, juego and punto only when the lance is played).  The mus advice compares "
            "cutting now (exact) with one mus round in which we keep the best keep-set and the other three discard "
            "by the strategy table, on the deals in which the other three ask for mus.  The órdago numbers are "
            "those of `musstats ordago` at 0-0.", "",
            "Variants: " + ", ".join(f"[{make_variant(n).name}](#{make_variant(n).name})" for n in variants) + ".", "",
        ]
        text = "\n".join(head) + "\n" + "\n".join(sections)
        atomic_write_text(out / "README.md", text.rstrip("\n") + "\n")
        timings["total"] = sum(timings.values())
    return timings


@contextmanager
def _staged(final: Path) -> Iterator[Path]:
    """An empty hidden folder inside ``final`` to build in; moved into ``final`` when the block
    ends normally, removed in every case."""
    stage = Path(tempfile.mkdtemp(prefix=".building-", dir=final))
    try:
        yield stage
        _install(stage, final)
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def _install(stage: Path, out: Path) -> None:
    """Move the finished build in ``stage`` into ``out`` (each step one rename)."""
    trash = stage / ".old-img"
    if (out / "img").exists():
        (out / "img").rename(trash)
    (stage / "img").rename(out / "img")
    tables = {p.name for p in stage.glob("table-*.csv")}
    for name in sorted(tables):
        os.replace(stage / name, out / name)
    for old in out.glob("table-*.csv"):
        if old.name not in tables:
            old.unlink()
    os.replace(stage / "README.md", out / "README.md")
