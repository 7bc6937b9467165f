"""``musstats discard``."""

from __future__ import annotations

import click

from musstats.cli.common import (POLICY_HELP, RULES_EPILOG, SEAT_HELP, Command, finish, format_option, number,
                                 progress_bar, run_options, variant_options)

__all__ = ["mus_phase_options", "mus_phase_args", "discard"]


def mus_phase_options(f):
    """--policy, --rounds, --trials, --seed, --keep, --threads, --quiet shared by discard and mus."""
    f = run_options(f)
    f = click.option("--keep", default=None, multiple=True,
                     help="Your own keep-set, e.g. --keep R R: compared with the best one.")(f)
    f = click.option("--seed", type=str, default=None, help="Seed (printed in the output).")(f)
    f = click.option("--trials", type=str, default=None,
                     help="Deals per keep-set [default: 60,000; at most 50,000,000].")(f)
    f = click.option("--rounds", type=str, default="1", show_default=True, help="Mus rounds (1..8).")(f)
    f = click.option("--policy", default="table", show_default=True,
                     type=click.Choice(["table", "reyes-pairs", "grande", "chica", "31"], case_sensitive=False),
                     help=POLICY_HELP)(f)
    return f


def mus_phase_args(policy, rounds, trials, seed, keep, threads) -> dict:
    """The API arguments of the mus-phase options."""
    return {"policy": policy.lower(), "rounds": number(rounds, "--rounds"), "trials": number(trials, "--trials"),
            "seed": number(seed, "--seed"), "keep": " ".join(keep) or None, "threads": number(threads, "--threads")}


@click.command(cls=Command, epilog=RULES_EPILOG)
@click.argument("cards", nargs=-1)
@click.option("--seat", default="mano", show_default=True, help=SEAT_HELP)
@variant_options
@click.option("--objective", default="total", show_default=True,
              type=click.Choice(["total", "grande", "chica", "pares", "juego"], case_sensitive=False),
              help="What to maximise: total net stones en paso, or one lance (juego = juego or punto).")
@mus_phase_options
@click.option("--players", default="4", show_default=True,
              help="Players at the table: 4 in partnerships, or 2 to 6 with --individual.")
@click.option("--individual", is_flag=True, help="No partners: every player for himself.")
@format_option
def discard(cards, seat, variant, juego_real, objective, policy, rounds, trials, seed, keep, threads, quiet,
            players, individual, fmt) -> None:
    """Which cards to throw: every keep-set with its expected stones, best first.

    Keep masks: a keep-set is written as the cards kept (– = throw all four).

    Example: musstats discard R R 7 A --seat mano
    """
    from musstats.analysis.discard import discard as compute
    from musstats.output.render import emit

    with progress_bar(quiet or fmt != "table") as bar:
        res = compute(" ".join(cards), seat, variant=variant, objective=objective.lower(), progress=bar,
                      players=number(players, "--players"), individual=individual,
                      **mus_phase_args(policy, rounds, trials, seed, keep, threads))
    finish(emit(res, fmt.lower()), res.partial)
