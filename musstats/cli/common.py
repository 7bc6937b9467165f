"""Options and behaviour shared by every command: parse, call the API, render.

* An option that takes one value may be given once: a repeat is an error (exit 2), never a
  silent choice of the last one.  Options that collect values (``--declared``, ``--dead``,
  ``--joker``, ``--signal``) merge their repeats, and the API rejects contradictions.
* ``--quiet`` and ``--threads`` on every command that runs a kernel; a progress bar with an
  ETA on stderr for runs longer than a second (on a terminal).
* A partial result (Ctrl-C during a Monte Carlo run) is printed, marked partial, and the
  exit status is 130.
"""

from __future__ import annotations

import functools
import os
import sys
from contextlib import contextmanager
from typing import Any, Iterator, overload

import click

from musstats.base.errors import MusError
from musstats.rules.labels import POLICY_HELP as _POLICIES

__all__ = ["exit_now", "FORMATS", "SEAT_HELP", "POLICY_HELP", "RULES_EPILOG", "Command", "Group", "variant_options",
           "deal_option", "target_option", "format_option", "run_options", "mc_options", "condition_options", "number",
           "real", "progress_bar", "finish"]

FORMATS = ("table", "json", "csv")
SEAT_HELP = ("mano|second|third|postre (or 1-4, segundo, tercero); other tables: mano, second, third, fourth, "
             "fifth, postre (or 1-6).")
POLICY_HELP = "How the other players discard: " + "; ".join(f"{k} = {v}" for k, v in _POLICIES.items()) + "."
RULES_EPILOG = "The rules musstats implements: musstats rules (musstats/docs/rules.md)."


class Command(click.Command):
    """A click command that refuses an option of one value given twice."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        _refuse_repeats(self, args)
        return super().parse_args(ctx, args)


class Group(click.Group):
    """A click group whose commands are :class:`Command`."""

    command_class = Command


def _refuse_repeats(cmd: click.Command, args: list[str]) -> None:
    single = {}
    for p in cmd.params:
        if isinstance(p, click.Option) and not p.multiple and not p.is_flag and not p.count:
            for o in p.opts + p.secondary_opts:
                single[o] = p.opts[-1]
    seen: dict[str, int] = {}
    for a in args:
        if a == "--":
            break
        name = a.split("=", 1)[0]
        if name in single:
            key = single[name]
            seen[key] = seen.get(key, 0) + 1
            if seen[key] > 1:
                raise click.UsageError(f"{key} is given twice; give it once")


def variant_options(f):
    """--variant, --juego-real, --redeal-4567 and --mus-visto.

    The command receives ``variant`` as a :class:`musstats.rules.variant.Variant` holding every
    switch (and ``juego_real`` as given).
    """

    @functools.wraps(f)
    def wrapper(*args, redeal_4567=False, mus_visto=False, **kwargs):
        from musstats.rules.variant import make_variant

        kwargs["variant"] = make_variant(kwargs["variant"], kwargs.get("juego_real", "off"),
                                         kwargs.pop("target", None), redeal_4567=redeal_4567, mus_visto=mus_visto)
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


def target_option(f):
    """--target 40|30 (folded into the variant by :func:`variant_options`; put it above it)."""
    return click.option("--target", type=click.Choice(["40", "30"]), default="40", show_default=True,
                        callback=lambda ctx, p, v: int(v), help="Stones to win the game.")(f)


def format_option(f):
    """--format table|json|csv."""
    return click.option("--format", "fmt", default="table", show_default=True,
                        type=click.Choice(FORMATS, case_sensitive=False), help="Output format.")(f)


def deal_option(f):
    """--deal as-dealt|after-mus: the deal model of a betting equilibrium."""
    return click.option("--deal", default="as-dealt", show_default=True,
                        type=click.Choice(["as-dealt", "after-mus"], case_sensitive=False),
                        callback=lambda ctx, p, v: v.lower(),
                        help="The hands as dealt, or after a mus round (all four asked, then discarded by "
                             "the table).")(f)


def run_options(f=None, *, threads_default: str = "all (NUMBA_NUM_THREADS)"):
    """--threads and --quiet: every command that runs a kernel (``@run_options``, or
    ``@run_options(threads_default=...)`` for a command whose default is not all threads)."""
    def deco(g):
        g = click.option("--quiet", is_flag=True, help="No progress bar.")(g)
        g = click.option("--threads", type=str, default=None,
                         help=f"numba threads for this run [default: {threads_default}].")(g)
        return g

    return deco if f is None else deco(f)


def mc_options(f):
    """--trials, --target-se, --seed, then --threads and --quiet."""
    f = run_options(f)
    f = click.option("--seed", type=str, default=None, help="Monte Carlo: seed (printed when not given).")(f)
    f = click.option("--target-se", type=str, default=None,
                     help="Monte Carlo: run until every standard error is below this (0.0001..0.5).")(f)
    f = click.option("--trials", type=str, default=None,
                     help="Monte Carlo: number of deals [default: 1,000,000; at most 2,000,000,000].")(f)
    return f


def condition_options(f):
    """--declared and --signal (both may be repeated: declarations merge)."""
    f = click.option("--signal", default=None, multiple=True,
                     help="Partner's seña: duples|medias|31|two-reyes|four-reyes|two-ases|four-ases|"
                          "three-reyes|three-ases|punto-30|bad.")(f)
    f = click.option("--declared", default=None, multiple=True,
                     help="Declarations, e.g. second:pares,postre:no-pares,third:juego (repeatable).")(f)
    return f


@overload
def number(text: str, what: str, lo: int | None = None, hi: int | None = None) -> int: ...


@overload
def number(text: None, what: str, lo: int | None = None, hi: int | None = None) -> None: ...


def number(text: str | None, what: str, lo: int | None = None, hi: int | None = None) -> int | None:
    """A whole-number option (given as text, so that huge or malformed values get a clear error)."""
    if text is None:
        return None
    from musstats.rules import checks

    return checks.whole(text, what, lo, hi)


def real(text: str | None, what: str) -> float | None:
    """A number option given as text."""
    if text is None:
        return None
    try:
        return float(text)
    except ValueError:
        raise MusError(f"{what} must be a number, got {text!r}") from None


@contextmanager
def progress_bar(quiet: bool, label: str = "deals") -> Iterator[Any]:
    """A progress callback drawing a bar on stderr (None when quiet or not on a terminal)."""
    if quiet or not sys.stderr.isatty():
        yield None
        return
    from musstats.output.progress import ProgressBar

    with ProgressBar(label) as bar:
        yield bar


def finish(text: str, partial: bool = False) -> None:
    """Print a command's output; exit 130 when the result is partial (interrupted)."""
    sys.stdout.write(text)
    sys.stdout.flush()
    if partial:
        click.echo("musstats: interrupted; the result above is partial", err=True)
        sys.exit(130)


def exit_now(line: str) -> None:
    """Exit 130 at once, whatever still runs: remove the temporary files of the writes in
    progress, flush what was printed, say ``line`` on stderr, ``os._exit``."""
    from musstats.base.files import remove_temporary_files

    try:
        remove_temporary_files()
        sys.stdout.flush()
        click.echo(line, err=True)
        sys.stderr.flush()
    finally:
        os._exit(130)
