"""``musstats mus``."""

from __future__ import annotations

import click

from musstats.cli.common import (RULES_EPILOG, SEAT_HELP, Command, finish, format_option, progress_bar,
                                 variant_options)
from musstats.cli.discard import mus_phase_args, mus_phase_options

__all__ = ["mus"]


@click.command(cls=Command, epilog=RULES_EPILOG)
@click.argument("cards", nargs=-1)
@click.option("--seat", default="mano", show_default=True, help=SEAT_HELP)
@variant_options
@mus_phase_options
@format_option
def mus(cards, seat, variant, juego_real, policy, rounds, trials, seed, keep, threads, quiet, fmt) -> None:
    """Cut the mus or ask for it: expected stones now and after a mus round, on the deals in
    which the other three ask for mus.

    Example: musstats mus R R 7 A --seat postre
    """
    from musstats.analysis.discard import mus as compute
    from musstats.output.render import emit

    with progress_bar(quiet or fmt != "table") as bar:
        res = compute(" ".join(cards), seat, variant=variant, progress=bar,
                      **mus_phase_args(policy, rounds, trials, seed, keep, threads))
    finish(emit(res, fmt.lower()), res.partial)
