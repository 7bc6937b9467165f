"""Options shared by several commands."""

from __future__ import annotations

import click

FORMATS = ("table", "json", "csv")
SEAT_HELP = "mano|second|third|postre (or 1-4, segundo, tercero); 6 players: mano, 2-5, postre."


def variant_options(f):
    """--variant, --juego-real, --redeal-4567 and --mus-visto.

    The command receives ``variant`` as a :class:`musstats.rules.variant.Variant` holding every
    switch (and ``juego_real`` as given).
    """
    import functools

    @functools.wraps(f)
    def wrapper(*args, redeal_4567=False, mus_visto=False, **kwargs):
        from musstats.rules.variant import make_variant

        kwargs["variant"] = make_variant(kwargs["variant"], kwargs.get("juego_real", "off"),
                                         redeal_4567=redeal_4567, mus_visto=mus_visto)
        return f(*args, **kwargs)

    w = click.option("--mus-visto", is_flag=True,
                     help="Mus visto: one free change of any number of cards before the mus.")(wrapper)
    w = click.option("--redeal-4567", is_flag=True,
                     help="A player dealt exactly 4-5-6-7 shows it and takes a new hand.")(w)
    w = click.option("--juego-real", default="off", show_default=True,
                     type=click.Choice(["off", "figure", "sota", "sota-oros"], case_sensitive=False),
                     help="31 real: three 7s plus any 10-point card / a sota / the sota de oros.")(w)
    w = click.option("--variant", "variant", default="8-reyes", show_default=True,
                     type=click.Choice(["8-reyes", "4-reyes", "ten-kings"], case_sensitive=False),
                     help="Deck variant; ten-kings = 8 reyes with the sotas de copas and oros as jokers.")(w)
    return w


def format_option(f):
    """--format table|json|csv."""
    return click.option("--format", "fmt", default="table", show_default=True,
                        type=click.Choice(FORMATS, case_sensitive=False), help="Output format.")(f)


def mc_options(f):
    """--trials, --target-se, --seed, --threads, --quiet."""
    f = click.option("--quiet", is_flag=True, help="No progress bar.")(f)
    f = click.option("--threads", type=int, default=None, help="Monte Carlo: worker threads.")(f)
    f = click.option("--seed", type=int, default=None, help="Monte Carlo: seed (printed when not given).")(f)
    f = click.option("--target-se", type=float, default=None,
                     help="Monte Carlo: run until every standard error is below this.")(f)
    f = click.option("--trials", type=int, default=None, help="Monte Carlo: number of deals.")(f)
    return f


def condition_options(f):
    """--declared and --signal."""
    f = click.option("--signal", default=None,
                     help="Partner's seña: duples|medias|31|two-reyes|four-reyes|two-ases|four-ases|"
                          "three-reyes|three-ases|punto-30|bad.")(f)
    f = click.option("--declared", default=None,
                     help="Declarations, e.g. second:pares,postre:no-pares,third:juego.")(f)
    return f
