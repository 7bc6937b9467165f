"""``musstats plot KIND ...``: charts as PNG, SVG or PDF."""

from __future__ import annotations

import sys

import click

from musstats.cli.common import SEAT_HELP, variant_options

SIZE_HELP = ("Image size: --size WxH in pixels (at --dpi), or --width/--height in inches "
             "[default: 12 x 7 in at 100 dpi = 1200x700 px].")


def output_options(f):
    """--out (required), --size, --width, --height, --dpi."""
    f = click.option("--dpi", type=float, default=None, help="Dots per inch [default: 100].")(f)
    f = click.option("--height", type=float, default=None, help="Height in inches.")(f)
    f = click.option("--width", type=float, default=None, help="Width in inches.")(f)
    f = click.option("--size", default=None, metavar="WxH", help="Size in pixels, e.g. 1600x900.")(f)
    f = click.option("--out", required=True, metavar="FILE", help="FILE.png, FILE.svg or FILE.pdf.")(f)
    return f


def _prepare(out, size, width, height, dpi):
    from musstats.base.files import IMAGE_EXTS, check_output
    from musstats.output.plots import figure_size

    check_output(out, IMAGE_EXTS, "image")
    return figure_size(width, height, size, dpi)


def _save(fig, out) -> None:
    from musstats.output.plots import save_figure

    path = save_figure(fig, out)
    w, h = fig.get_size_inches()
    click.echo(f"wrote {path} ({w * fig.dpi:.0f}x{h * fig.dpi:.0f} px at {fig.dpi:g} dpi)", err=True)


def _progress(quiet: bool, label: str):
    from musstats.cli.table import progress_bar

    return progress_bar(not quiet and sys.stderr.isatty(), label)


def _table_for(table_file, variant):
    """Read a strategy table and check that it belongs to ``variant``."""
    from musstats.base.errors import MusError
    from musstats.tables.hands import hand_tables
    from musstats.base.files import read_frame

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


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def plot() -> None:
    """Charts as PNG, SVG or PDF: hand, heatmap, totals, convergence, mus, game.

    Every kind takes --out FILE and the size as --size WxH (pixels, at --dpi, default
    100) or --width/--height (inches); default 12 x 7 in = 1200x700 px.  Colours are
    colour-blind safe (Okabe-Ito, cividis).

    Example: musstats plot hand R R 3 A --seat mano --out rr3a.png
    """


@plot.command("hand")
@click.argument("cards", nargs=-1)
@click.option("--seat", default="mano", show_default=True, help=SEAT_HELP)
@variant_options
@click.option("--method", default="exact", show_default=True, type=click.Choice(["exact", "mc"], case_sensitive=False),
              help="Exact enumeration or Monte Carlo (with 95 % error bars).")
@click.option("--trials", type=int, default=None, help="Monte Carlo: deals [default: 1,000,000].")
@click.option("--seed", type=int, default=None, help="Monte Carlo: seed.")
@output_options
def hand(cards, seat, variant, juego_real, method, trials, seed, out, size, width, height, dpi) -> None:
    """Per-lance P(team) and net EV for one hand at one seat.

    Example: musstats plot hand R C 7 A --seat postre --method mc --out rc7a.png
    """
    from musstats.output.plots import plot_hand

    sz = _prepare(out, size, width, height, dpi)
    _save(plot_hand(" ".join(cards), seat, variant, juego_real, method=method.lower(), trials=trials,
                    seed=seed, size=sz), out)


@plot.command("heatmap")
@click.option("--lance", required=True, help="grande|chica|pares|juego|punto.")
@variant_options
@click.option("--table", "table_file", default=None, metavar="FILE",
              help="Use a table from 'musstats table' (.csv/.parquet/.json) instead of computing the odds.")
@click.option("--hands", default=None, metavar="N|LIST", help="Only these hands (see musstats table --hands).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@output_options
def heatmap(lance, variant, juego_real, table_file, hands, quiet, out, size, width, height, dpi) -> None:
    """One lance's P(team) for every hand (strongest at that lance first) and seat.

    Example: musstats plot heatmap --lance pares --out pares.png
    """
    from musstats.analysis.ordago import parse_lance
    from musstats.output.plots import odds_grid, plot_heatmap
    from musstats.rules.variant import make_variant

    lance = parse_lance(lance)
    sz = _prepare(out, size, width, height, dpi)
    v = make_variant(variant, juego_real)
    if table_file:
        df = _table_for(table_file, v)
    else:
        start, advance, close = _progress(quiet, "exact odds")
        try:
            df = odds_grid(v, hands=hands, progress=advance, on_start=start)
        finally:
            close()
    _save(plot_heatmap(df, lance, v, size=sz), out)


@plot.command("totals")
@click.argument("cards", nargs=-1)
@click.option("--keep", default=None,
              help="With CARDS: the cards kept in the discard, e.g. --keep R R (none: throw all four).")
@variant_options
@output_options
def totals(cards, keep, variant, juego_real, out, size, width, height, dpi) -> None:
    """Distribution of the juego/punto total: of a dealt hand, or of CARDS after keeping --keep
    and drawing the rest from the 36 unseen cards (exact).

    Example: musstats plot totals R R 7 A --keep R R --out draw.png
    """
    from musstats.output.plots import plot_totals, totals_distribution

    sz = _prepare(out, size, width, height, dpi)
    dist = totals_distribution(variant, juego_real, cards=" ".join(cards) if cards else None, keep=keep)
    _save(plot_totals(dist, size=sz), out)


@plot.command("convergence")
@click.argument("cards", nargs=-1)
@click.option("--seat", default="mano", show_default=True, help=SEAT_HELP)
@click.option("--lance", required=True, help="grande|chica|pares|juego|punto.")
@variant_options
@click.option("--trials", type=int, default=200_000, show_default=True, help="Largest number of deals.")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of every run.")
@output_options
def convergence(cards, seat, lance, variant, juego_real, trials, seed, out, size, width, height, dpi) -> None:
    """Monte Carlo P(team) and its 95 % band against the number of deals, with the exact value.

    Example: musstats plot convergence R R 3 A --seat mano --lance pares --out conv.png
    """
    from musstats.output.plots import convergence_data, plot_convergence

    sz = _prepare(out, size, width, height, dpi)
    df = convergence_data(" ".join(cards), seat, lance, variant, juego_real, trials=trials, seed=seed)
    _save(plot_convergence(df, size=sz), out)


@plot.command("mus")
@variant_options
@click.option("--table", "table_file", default=None, metavar="FILE",
              help="Use a table from 'musstats table' (.csv/.parquet/.json) instead of computing it.")
@click.option("--hands", default=None, metavar="N|LIST", help="Only these hands (see musstats table --hands).")
@click.option("--trials", type=int, default=None, help="Deals per keep-set [default: 20000].")
@click.option("--seed", type=int, default=None, help="Seed [default: 2026].")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@output_options
def mus(variant, juego_real, table_file, hands, trials, seed, quiet, out, size, width, height, dpi) -> None:
    """Which hands should cut the mus, by seat (from the strategy table).

    Example: musstats plot mus --table tabla8.csv --out mus8.png
    """
    from musstats.analysis import table as tablegen
    from musstats.output.plots import plot_mus
    from musstats.rules.variant import make_variant

    sz = _prepare(out, size, width, height, dpi)
    v = make_variant(variant, juego_real)
    if table_file:
        df = _table_for(table_file, v)
    else:
        start, advance, close = _progress(quiet, "hands")
        try:
            df = tablegen.strategy_table(v, hands=hands,
                                         trials=tablegen.DEFAULT_TRIALS if trials is None else trials,
                                         seed=tablegen.DEFAULT_SEED if seed is None else seed,
                                         progress=advance, on_start=start)
        finally:
            close()
    _save(plot_mus(df, v, size=sz), out)


@plot.command("game")
@click.option("--target", type=click.Choice(["40", "30"]), default="40", show_default=True,
              help="Stones to win the game.")
@variant_options
@click.option("--mano", default="avg", show_default=True, type=click.Choice(["us", "them", "avg"], case_sensitive=False),
              help="Whose team is mano in the next hand.")
@click.option("--deals", type=int, default=None, help="Deals of the game model [default: 4,000,000, cached].")
@click.option("--seed", type=int, default=None, help="Seed of the game model [default: 1].")
@output_options
def game(target, variant, juego_real, mano, deals, seed, out, size, width, height, dpi) -> None:
    """P(win the game) over scores, with the órdago break-evens to call and to accept.

    Example: musstats plot game --target 30 --out game30.svg
    """
    from musstats.base.errors import MusError
    from musstats.analysis.game import DEFAULT_DEALS, DEFAULT_SEED, game_model
    from musstats.output.plots import plot_game
    from musstats.rules.variant import make_variant

    if deals is not None and deals < 1:
        raise MusError(f"--deals must be a positive whole number, got {deals}")
    if seed is not None and seed < 0:
        raise MusError(f"--seed must be a whole number >= 0, got {seed}")
    import dataclasses

    sz = _prepare(out, size, width, height, dpi)
    v = make_variant(variant, juego_real)  # a Variant with every switch, or a deck name
    if v.target != int(target):
        v = dataclasses.replace(v, target=int(target))
    model = game_model(v, deals=DEFAULT_DEALS if deals is None else deals,
                       seed=DEFAULT_SEED if seed is None else seed)
    _save(plot_game(model, mano.lower(), size=sz), out)
