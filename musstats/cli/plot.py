"""``musstats plot KIND ...``: charts as PNG, SVG or PDF."""

from __future__ import annotations

import click

from musstats.cli.common import (RULES_EPILOG, SEAT_HELP, Group, number, progress_bar, run_options, target_option,
                                 variant_options)

__all__ = ["SIZE_HELP", "output_options", "plot", "hand", "heatmap", "totals", "convergence", "mus", "game"]

SIZE_HELP = ("Image size: --size WxH in pixels (at --dpi), or --width/--height in inches "
             "[default: 12 x 7 in at 100 dpi = 1200x700 px].")


def output_options(f):
    """--out (required), --size, --width, --height, --dpi."""
    f = click.option("--dpi", type=float, default=None, help="Dots per inch [default: 100].")(f)
    f = click.option("--height", type=float, default=None, help="Height in inches.")(f)
    f = click.option("--width", type=float, default=None, help="Width in inches.")(f)
    f = click.option("--size", default=None, metavar="WxH", help="Size in pixels, e.g. 1600x900.")(f)
    f = click.option("--out", required=True, metavar="FILE",
                     help="FILE.png, FILE.svg or FILE.pdf (written atomically; the folder must exist).")(f)
    return f


def _prepare(out, size, width, height, dpi):
    from musstats.base.files import check_output
    from musstats.output.files import IMAGE_EXTS
    from musstats.output.plots import figure_size

    check_output(out, IMAGE_EXTS, "image")
    return figure_size(width, height, size, dpi)


def _save(fig, out) -> None:
    from musstats.output.plots import save_figure

    path = save_figure(fig, out)
    w, h = fig.get_size_inches()
    click.echo(f"wrote {path} ({w * fig.dpi:.0f}x{h * fig.dpi:.0f} px at {fig.dpi:g} dpi)", err=True)


def _threads(threads):
    from musstats.engines.run import threads as run_threads
    from musstats.rules import checks

    return run_threads(checks.threads(number(threads, "--threads")))


def _table_for(table_file, variant):
    """Read a strategy table and check that it belongs to ``variant``."""
    from musstats.base.errors import MusError
    from musstats.output.files import read_frame
    from musstats.tables.hands import hand_tables

    df = read_frame(table_file)
    if not {"hand", "hand_index", "seat"} <= set(df.columns):
        raise MusError(f"{table_file!r} is not a table from 'musstats table' (needs hand, hand_index, seat)")
    t = hand_tables(variant)
    ok = df["hand_index"].between(0, t.n_hands - 1).all() and all(
        t.labels[int(h)] == lab for h, lab in zip(df["hand_index"], df["hand"]))
    if not ok:
        raise MusError(f"the table {table_file!r} does not match --variant {variant.name}; pass the variant "
                       "it was built with")
    df.attrs.setdefault("rules", variant.describe())
    df.attrs.setdefault("variant", variant.name)
    return df


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]}, epilog=RULES_EPILOG)
def plot() -> None:
    """Charts as PNG, SVG or PDF: hand, heatmap, totals, convergence, mus, game, bet, convergence-cfr.

    Every kind takes --out FILE and the size as --size WxH (pixels, at --dpi, default
    100) or --width/--height (inches); default 12 x 7 in = 1200x700 px.  Colours are
    colour-blind safe (Okabe-Ito, cividis).

    Example: musstats plot hand R R 3 A --seat mano --out rr3a.png
    """


@plot.command("hand")
@click.argument("cards", nargs=-1)
@click.option("--seat", default="mano", show_default=True, help=SEAT_HELP)
@variant_options
@click.option("--method", default=None, type=click.Choice(["exact", "mc"], case_sensitive=False),
              help="Exact enumeration or Monte Carlo (with 95 % error bars) [default: as musstats odds].")
@click.option("--trials", type=str, default=None, help="Monte Carlo: deals [default: 1,000,000].")
@click.option("--seed", type=str, default=None, help="Monte Carlo: seed.")
@run_options
@output_options
def hand(cards, seat, variant, juego_real, method, trials, seed, threads, quiet, out, size, width, height,
         dpi) -> None:
    """Per-lance P(team) and net EV for one hand at one seat.

    Example: musstats plot hand R C 7 A --seat postre --method mc --out rc7a.png
    """
    from musstats.analysis.odds import odds
    from musstats.output.plots import plot_hand

    sz = _prepare(out, size, width, height, dpi)
    with progress_bar(quiet) as bar:
        res = odds(" ".join(cards), seat, variant=variant, method=method, trials=number(trials, "--trials"),
                   seed=number(seed, "--seed"), threads=number(threads, "--threads"), progress=bar)
    if res.partial:
        raise KeyboardInterrupt
    _save(plot_hand(res, size=sz), out)


@plot.command("heatmap")
@click.option("--lance", required=True, help="grande|chica|pares|juego|punto.")
@variant_options
@click.option("--table", "table_file", default=None, metavar="FILE",
              help="Use a table from 'musstats table' (.csv/.parquet/.json) instead of computing the odds.")
@click.option("--hands", default=None, metavar="N|LIST", help="Only these hands (see musstats table --hands).")
@run_options
@output_options
def heatmap(lance, variant, juego_real, table_file, hands, threads, quiet, out, size, width, height, dpi) -> None:
    """One lance's P(team) for every hand (strongest at that lance first) and seat.

    Example: musstats plot heatmap --lance pares --out pares.png
    """
    from musstats.analysis.table import odds_grid
    from musstats.output.plots import plot_heatmap
    from musstats.rules import checks

    lance = checks.lance(lance)
    sz = _prepare(out, size, width, height, dpi)
    if table_file:
        df = _table_for(table_file, variant)
    else:
        with progress_bar(quiet, "hands") as bar, _threads(threads):
            df = odds_grid(variant, hands=hands, progress=bar)
    _save(plot_heatmap(df, lance, variant, size=sz), out)


@plot.command("totals")
@click.argument("cards", nargs=-1)
@click.option("--keep", default=None, multiple=True,
              help="With CARDS: the cards kept in the discard, e.g. --keep R R (none: throw all four).")
@variant_options
@output_options
def totals(cards, keep, variant, juego_real, out, size, width, height, dpi) -> None:
    """Distribution of the juego/punto total: of a dealt hand, or of CARDS after keeping --keep
    and drawing the rest from the 36 unseen cards (exact).

    Example: musstats plot totals R R 7 A --keep R R --out draw.png
    """
    from musstats.analysis.totals import totals_distribution
    from musstats.output.plots import plot_totals

    sz = _prepare(out, size, width, height, dpi)
    dist = totals_distribution(variant, cards=" ".join(cards) if cards else None, keep=" ".join(keep) if keep else None)
    _save(plot_totals(dist, size=sz), out)


@plot.command("convergence")
@click.argument("cards", nargs=-1)
@click.option("--seat", default="mano", show_default=True, help=SEAT_HELP)
@click.option("--lance", required=True, help="grande|chica|pares|juego|punto.")
@variant_options
@click.option("--trials", type=str, default="200000", show_default=True,
              help="Largest number of deals (1,000 to 200,000,000).")
@click.option("--seed", type=str, default="1", show_default=True, help="Seed of every run.")
@run_options
@output_options
def convergence(cards, seat, lance, variant, juego_real, trials, seed, threads, quiet, out, size, width, height,
                dpi) -> None:
    """Monte Carlo P(team) and its 95 % band against the number of deals, with the exact value.

    Example: musstats plot convergence R R 3 A --seat mano --lance pares --out conv.png
    """
    from musstats.analysis.convergence import convergence_data
    from musstats.output.plots import plot_convergence

    sz = _prepare(out, size, width, height, dpi)
    with _threads(threads):
        df = convergence_data(" ".join(cards), seat, lance=lance, variant=variant, trials=number(trials, "--trials"),
                              seed=number(seed, "--seed"))
    _save(plot_convergence(df, size=sz), out)


@plot.command("mus")
@variant_options
@click.option("--table", "table_file", default=None, metavar="FILE",
              help="Use a table from 'musstats table' (.csv/.parquet/.json) instead of computing it.")
@click.option("--hands", default=None, metavar="N|LIST", help="Only these hands (see musstats table --hands).")
@click.option("--trials", type=str, default=None, help="Deals per keep-set [default: 20000].")
@click.option("--seed", type=str, default=None, help="Seed [default: 2026].")
@run_options
@output_options
def mus(variant, juego_real, table_file, hands, trials, seed, threads, quiet, out, size, width, height, dpi) -> None:
    """Which hands should cut the mus, by seat (from the strategy table).

    Example: musstats plot mus --table tabla8.csv --out mus8.png
    """
    from musstats.analysis.table import strategy_table
    from musstats.output.plots import plot_mus

    sz = _prepare(out, size, width, height, dpi)
    if table_file:
        df = _table_for(table_file, variant)
    else:
        with progress_bar(quiet, "hands") as bar, _threads(threads):
            res = strategy_table(variant, hands=hands, trials=number(trials, "--trials"), seed=number(seed, "--seed"),
                                 progress=bar)
        if res.partial:
            raise KeyboardInterrupt
        df = res.to_frame()
    _save(plot_mus(df, variant, size=sz), out)


@plot.command("game")
@target_option
@variant_options
@click.option("--mano", default="avg", show_default=True, type=click.Choice(["us", "them", "avg"], case_sensitive=False),
              help="Whose team is mano in the next hand.")
@click.option("--deals", type=str, default=None, help="Deals of the game model [default: 4,000,000, cached].")
@click.option("--seed", type=str, default=None, help="Seed of the game model [default: 1].")
@run_options
@output_options
def game(variant, juego_real, mano, deals, seed, threads, quiet, out, size, width, height, dpi) -> None:
    """P(win the game) over scores, with the órdago break-evens to call and to accept.

    Example: musstats plot game --target 30 --out game30.svg
    """
    from musstats.analysis.game import game_model
    from musstats.output.plots import plot_game

    sz = _prepare(out, size, width, height, dpi)
    with _threads(threads):
        model = game_model(variant, deals=number(deals, "--deals"), seed=number(seed, "--seed"))
    _save(plot_game(model, mano.lower(), size=sz), out)


@plot.command("bet")
@click.option("--lance", required=True, help="grande|chica|pares|juego|punto.")
@click.option("--deal", default="as-dealt", show_default=True,
              type=click.Choice(["as-dealt", "after-mus"], case_sensitive=False),
              help="The deal model: the hands as dealt, or after a mus round (all four asked).")
@click.option("--info", default="private", show_default=True, type=click.Choice(["private", "pooled"],
              case_sensitive=False), help="The information model.")
@variant_options
@run_options
@output_options
def bet_chart(lance, deal, info, variant, juego_real, threads, quiet, out, size, width, height, dpi) -> None:
    """P(bet) and P(órdago) at each seat's first decision of a lance, for every hand and seat.

    Example: musstats plot bet --lance grande --out bet-grande.png
    """
    from musstats.analysis.table import bet_grid
    from musstats.output.plots import plot_bet_heatmap

    sz = _prepare(out, size, width, height, dpi)
    with _threads(threads):
        df = bet_grid(lance, deal=deal.lower(), info=info.lower(), variant=variant)
    _save(plot_bet_heatmap(df, variant, size=sz), out)


@plot.command("convergence-cfr")
@click.option("--lance", "lances", default="grande", show_default=True,
              help="Comma-separated lances (pares and juego: every seat declared them).")
@click.option("--iterations", type=str, default="400", show_default=True, help="CFR iterations (1..1,000,000).")
@click.option("--every", type=str, default="100", show_default=True, help="Measure every this many iterations.")
@click.option("--deal", default="as-dealt", show_default=True,
              type=click.Choice(["as-dealt", "after-mus"], case_sensitive=False),
              help="The deal model: the hands as dealt, or after a mus round (all four asked).")
@click.option("--info", default="private", show_default=True, type=click.Choice(["private", "pooled"],
              case_sensitive=False), help="The information model.")
@variant_options
@run_options
@output_options
def convergence_cfr(lances, iterations, every, deal, info, variant, juego_real, threads, quiet, out, size, width,
                    height, dpi) -> None:
    """The betting solver's exploitability against training time: what a player gains by
    changing alone (NashConv), what a pair gains by changing together, and (private
    information, hands as dealt) what a pair seeing both its hands gains, in stones per lance.

    Trains each lance from scratch with the shipped scheme (cached; each measurement of the
    pairs takes seconds to a minute). Example: musstats plot convergence-cfr --lance grande --out cfr.png
    """
    from musstats.analysis.betting import convergence_frame
    from musstats.output.plots import plot_cfr_convergence
    from musstats.rules import checks

    sz = _prepare(out, size, width, height, dpi)
    names = [checks.lance(x) for x in lances.split(",") if x.strip()]
    its = checks.whole(iterations, "--iterations", 1, checks.MAX_ITERATIONS)
    ev = checks.whole(every, "--every", 1, its)
    with _threads(threads):
        frames = {n: convergence_frame(n, deal=deal.lower(), info=info.lower(), variant=variant, iterations=its,
                                       every=ev) for n in names}
    _save(plot_cfr_convergence(frames, size=sz), out)
