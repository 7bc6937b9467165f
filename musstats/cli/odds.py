"""``musstats odds``."""

from __future__ import annotations

import click

from musstats.cli.common import (RULES_EPILOG, SEAT_HELP, Command, condition_options, finish, format_option,
                                 mc_options, number, progress_bar, real, variant_options)

__all__ = ["odds"]


@click.command(cls=Command, epilog=RULES_EPILOG)
@click.argument("cards", nargs=-1)
@click.option("--seat", default="mano", show_default=True, help=SEAT_HELP)
@variant_options
@format_option
@click.option("--method", default=None, type=click.Choice(["exact", "mc"], case_sensitive=False),
              help="Exact enumeration (default for 4 players in partnerships and for 2 players) or Monte Carlo "
                   "(default with ten kings and other tables).")
@mc_options
@click.option("--dead", default=None, multiple=True, help="Cards seen on the table, e.g. --dead 7 7 R.")
@condition_options
@click.option("--joker", multiple=True,
              help="Ten kings: fix your joker, e.g. --joker S/o=A (default: the best identity per deal).")
@click.option("--players", default="4", show_default=True,
              help="Players at the table: 4 or 6 in partnerships, 2 to 6 with --individual.")
@click.option("--individual", is_flag=True, help="No partners: every player for himself.")
def odds(cards, seat, variant, juego_real, fmt, method, trials, target_se, seed, threads, quiet, dead,
         declared, signal, joker, players, individual) -> None:
    """Chance of winning each lance, and its worth, for a hand at a seat.

    Example: musstats odds R R 3 A --seat mano
    """
    from musstats.analysis.odds import odds as compute
    from musstats.output.render import emit

    with progress_bar(quiet or fmt != "table") as bar:
        res = compute(" ".join(cards), seat, variant=variant, method=method, dead=" ".join(dead) or None,
                      trials=number(trials, "--trials"), target_se=real(target_se, "--target-se"),
                      seed=number(seed, "--seed"), threads=number(threads, "--threads"),
                      players=number(players, "--players"), individual=individual, declared=declared or None,
                      signal=signal or None, joker=joker or None, progress=bar)
    if res.method == "mc" and fmt == "table":
        click.echo(f"seed {res.seed} (repeat with --seed {res.seed})", err=True)
    finish(emit(res, fmt.lower()), res.partial)
