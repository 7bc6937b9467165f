"""``musstats discard``."""

from __future__ import annotations

import click

from musstats.cli.common import SEAT_HELP, format_option, variant_options


def mus_phase_options(f):
    """--policy, --rounds, --trials, --seed, --keep shared by discard and mus."""
    f = click.option("--keep", default=None, help="Your own keep-set, e.g. --keep R R.")(f)
    f = click.option("--seed", type=int, default=None, help="Seed (printed when not given).")(f)
    f = click.option("--trials", type=int, default=None, help="Deals per keep-set (default 60000).")(f)
    f = click.option("--rounds", type=int, default=1, show_default=True, help="Mus rounds.")(f)
    f = click.option("--policy", default="table", show_default=True,
                     type=click.Choice(["table", "reyes-pairs", "grande", "chica", "31"], case_sensitive=False),
                     help="How the other players discard.")(f)
    return f


@click.command()
@click.argument("cards", nargs=-1)
@click.option("--seat", default="mano", show_default=True, help=SEAT_HELP)
@variant_options
@click.option("--objective", default="total", show_default=True,
              type=click.Choice(["total", "grande", "chica", "pares", "juego"], case_sensitive=False),
              help="What to maximise: total net stones en paso, or one lance.")
@mus_phase_options
@format_option
def discard(cards, seat, variant, juego_real, objective, policy, rounds, trials, seed, keep, fmt) -> None:
    """Which cards to throw: every keep-set with its expected stones, best first.

    Example: musstats discard R R 7 A --seat mano
    """
    from musstats.analysis.discard import best_discards
    from musstats.output.render import emit_discard

    res = best_discards(" ".join(cards), seat, variant, juego_real, objective=objective.lower(),
                        policy=policy.lower(), rounds=rounds, trials=trials, seed=seed, keep=keep)
    emit_discard(res, fmt.lower())
