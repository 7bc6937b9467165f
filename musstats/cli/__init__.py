"""The ``musstats`` command line: parses, calls the API, formats.

Heavy modules (numpy, numba, pandas) are imported inside the commands, so
``musstats --help`` stays fast and never imports numba.
"""

from __future__ import annotations

import sys

import click

from musstats.base.errors import MusError

__all__ = ["COMMANDS", "VARIADIC_OPTIONS", "cli", "main"]

#: one module per command (musstats.cli.<name>, defining the click command <name>), in help order;
#: they import only click and light modules at import time, so ``--help`` never imports numba
COMMANDS = ("odds", "discard", "mus", "ordago", "bet", "hand", "arena", "table", "plot", "game", "play", "review", "serve",
            "rules")
#: Options that take several cards: ``--dead 7 7 R`` collects tokens up to the next option.
VARIADIC_OPTIONS = ("--dead", "--keep")


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


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
             epilog="The rules musstats implements: musstats rules (musstats/docs/rules.md).")
@click.version_option(package_name="musstats")
def cli() -> None:
    """Odds engine for the Spanish card game Mus.

    Hands are written as 4 cards: R C S 7 6 5 4 3 2 A (also RR3A, 12 11 10 1,
    rey caballo sota ... as; a suit as S/o for sota de oros).
    """


def _register() -> None:
    import importlib

    for name in COMMANDS:
        mod = importlib.import_module(f"musstats.cli.{name}")
        cli.add_command(getattr(mod, name))


_register()


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: one clear line and exit status 2 on bad input."""
    import signal
    import threading

    from musstats.engines.run import Interrupt, ctrl_c_outside

    args = _join_variadic(list(sys.argv[1:] if argv is None else argv))
    old = Interrupt.on_compiling  # restored: the command line may run inside a Python process
    Interrupt.on_compiling = _interrupted_now
    # a Ctrl-C before any batch loop (while a first kernel compiles) exits at once too
    handler = signal.getsignal(signal.SIGINT) if threading.current_thread() is threading.main_thread() else None
    if handler is signal.default_int_handler:
        signal.signal(signal.SIGINT, ctrl_c_outside)
    try:
        _run(args)
    finally:
        Interrupt.on_compiling = old
        if handler is signal.default_int_handler:
            signal.signal(signal.SIGINT, handler)


def _run(args: list[str]) -> None:
    """The command, its errors as one line and exit 2, Ctrl-C as exit 130."""
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
        _interrupted()
    except BrokenPipeError:  # pragma: no cover
        sys.exit(0)
    except BaseException as e:  # Ctrl-C, also when numba wrapped it in a SystemError
        from musstats.engines.run import is_interrupt

        if is_interrupt(e):
            _interrupted()
        raise


def _interrupted_now() -> None:
    """Ctrl-C while numba compiles a kernel: exit 130 at once.  Raising there could be swallowed
    by one of numba's callbacks or leave the kernel half built, and waiting would take seconds;
    what was computed before is dropped, and no file is left behind."""
    from musstats.cli.common import exit_now

    exit_now("musstats: interrupted")


def _interrupted() -> None:
    """One line and exit status 130 (a command with a partial result printed it already)."""
    try:
        click.echo("musstats: interrupted", err=True)
    finally:
        sys.exit(130)


if __name__ == "__main__":  # pragma: no cover
    main()
