"""``musstats mus``."""

from __future__ import annotations

import click

from musstats.cli.common import SEAT_HELP, format_option, variant_options
from musstats.cli.discard import mus_phase_options


@click.command()
@click.argument("cards", nargs=-1)
@click.option("--seat", default="mano", show_default=True, help=SEAT_HELP)
@variant_options
@mus_phase_options
@format_option
def mus(cards, seat, variant, juego_real, policy, rounds, trials, seed, keep, fmt) -> None:
    """Cut the mus or ask for it: expected stones now and after a mus round.

    Example: musstats mus R R 7 A --seat postre
    """
    from musstats.analysis.discard import mus_advice
    from musstats.output.render import emit_mus

    res = mus_advice(" ".join(cards), seat, variant, juego_real, policy=policy.lower(), rounds=rounds,
                     trials=trials, seed=seed, keep=keep)
    emit_mus(res, fmt.lower())
