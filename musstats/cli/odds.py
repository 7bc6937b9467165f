"""``musstats odds``."""

from __future__ import annotations

import click

from musstats.cli.common import SEAT_HELP, condition_options, format_option, mc_options, variant_options


@click.command()
@click.argument("cards", nargs=-1)
@click.option("--seat", default="mano", show_default=True, help=SEAT_HELP)
@variant_options
@format_option
@click.option("--method", default=None,
              type=click.Choice(["exact", "mc"], case_sensitive=False),
              help="Exact enumeration (default) or Monte Carlo (default with ten kings or 6 players).")
@mc_options
@click.option("--dead", default=None, help="Cards seen on the table, e.g. --dead 7 7 R.")
@condition_options
@click.option("--joker", multiple=True,
              help="Ten kings: fix your joker, e.g. --joker S/o=A (default: the best identity per deal).")
@click.option("--players", type=click.Choice(["4", "6"]), default="4", show_default=True,
              help="Players at the table (6 players are simulated).")
def odds(cards, seat, variant, juego_real, fmt, method, trials, target_se, seed, threads, quiet, dead,
         declared, signal, joker, players) -> None:
    """Chance of winning each lance, and its worth, for a hand at a seat.

    Example: musstats odds R R 3 A --seat mano
    """
    from musstats.output import render as output
    from musstats.analysis.odds import compute_odds

    res = compute_odds(" ".join(cards), seat, variant, juego_real, method=method, dead=dead,
                       trials=trials, target_se=target_se, seed=seed, threads=threads,
                       players=int(players), declared=declared, signal=signal, joker=joker or None,
                       progress=not quiet and fmt == "table")
    output.emit(res, fmt.lower())
