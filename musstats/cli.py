"""The ``musstats`` command line: parses, calls the API, formats.

Heavy modules (numpy, numba, pandas) are imported inside the commands, so
``musstats --help`` stays fast and never imports numba.
"""

from __future__ import annotations

import sys

import click

from musstats.errors import MusError

#: Options that take several cards: ``--dead 7 7 R`` collects tokens up to the next option.
VARIADIC_OPTIONS = ("--dead", "--keep")
FORMATS = ("table", "json", "csv")


def _join_variadic(argv: list[str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(argv):
        tok = argv[i]
        if tok in VARIADIC_OPTIONS:
            j = i + 1
            vals = []
            while j < len(argv) and not argv[j].startswith("-"):
                vals.append(argv[j])
                j += 1
            out += [tok, " ".join(vals)]
            i = j
        else:
            out.append(tok)
            i += 1
    return out


def _fail(msg: str) -> None:
    click.echo(f"musstats: error: {msg}", err=True)
    sys.exit(2)


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="musstats")
def cli() -> None:
    """Odds engine for the Spanish card game Mus.

    Hands are written as 4 cards: R C S 7 6 5 4 3 2 A (also RR3A, 12 11 10 1,
    rey caballo sota ... as; a suit as S/o for sota de oros).
    """


def variant_options(f):
    """Options shared by every command that depends on the rule variant."""
    f = click.option("--juego-real", default="off", show_default=True,
                     type=click.Choice(["off", "figure", "sota", "sota-oros"], case_sensitive=False),
                     help="31 real: three 7s plus any 10-point card / a sota / the sota de oros.")(f)
    f = click.option("--variant", "variant", default="8-reyes", show_default=True,
                     type=click.Choice(["8-reyes", "4-reyes"], case_sensitive=False),
                     help="Deck variant.")(f)
    return f


@cli.command()
@click.argument("cards", nargs=-1)
@click.option("--seat", default="mano", show_default=True,
              help="mano|second|third|postre (or 1-4, segundo, tercero); 6 players: mano, 2-5, postre.")
@variant_options
@click.option("--format", "fmt", default="table", show_default=True,
              type=click.Choice(FORMATS, case_sensitive=False), help="Output format.")
@click.option("--method", default="exact", show_default=True,
              type=click.Choice(["exact", "mc"], case_sensitive=False),
              help="Exact enumeration or Monte Carlo.")
@click.option("--trials", type=int, default=None, help="Monte Carlo: number of deals.")
@click.option("--target-se", type=float, default=None,
              help="Monte Carlo: run until every standard error is below this.")
@click.option("--seed", type=int, default=None, help="Monte Carlo: seed (printed when not given).")
@click.option("--threads", type=int, default=None, help="Monte Carlo: worker threads.")
@click.option("--dead", default=None, help="Cards seen on the table, e.g. --dead 7 7 R.")
@click.option("--players", type=click.Choice(["4", "6"]), default="4", show_default=True,
              help="Players at the table (6 needs --method mc).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def odds(cards, seat, variant, juego_real, fmt, method, trials, target_se, seed, threads, dead,
         players, quiet) -> None:
    """Chance of winning each lance, and its worth, for a hand at a seat.

    Example: musstats odds R R 3 A --seat mano
    """
    from musstats.api import compute_odds
    from musstats import output

    res = compute_odds(" ".join(cards), seat, variant, juego_real, method=method, dead=dead,
                       trials=trials, target_se=target_se, seed=seed, threads=threads,
                       players=int(players), progress=not quiet and fmt == "table")
    output.emit(res, fmt.lower())


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: one clear line and exit status 2 on bad input."""
    args = _join_variadic(list(sys.argv[1:] if argv is None else argv))
    try:
        cli.main(args=args, prog_name="musstats", standalone_mode=False)
    except MusError as e:
        _fail(str(e))
    except click.UsageError as e:
        if type(e).__name__.startswith("NoArgsIsHelp") and e.ctx is not None:
            click.echo(e.ctx.get_help())
            sys.exit(0)
        hint = f" (see '{e.ctx.command_path} --help')" if e.ctx is not None else ""
        _fail(e.format_message().replace("\n", " ") + hint)
    except click.ClickException as e:
        _fail(e.format_message().replace("\n", " "))
    except click.exceptions.Abort:
        click.echo("musstats: interrupted", err=True)
        sys.exit(130)
    except KeyboardInterrupt:
        click.echo("musstats: interrupted", err=True)
        sys.exit(130)
    except BrokenPipeError:  # pragma: no cover
        sys.exit(0)


if __name__ == "__main__":  # pragma: no cover
    main()
