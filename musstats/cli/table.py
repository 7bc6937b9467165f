"""``musstats table``: the strategy table, one row per hand and seat."""

from __future__ import annotations

import sys

import click

from musstats.cli.common import variant_options


def progress_bar(enabled: bool, label: str):
    """(on_start, advance, close) callbacks of a rich progress bar on stderr; no-ops when disabled."""
    if not enabled:
        return None, None, lambda: None
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, \
        TimeRemainingColumn

    prog = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), TimeRemainingColumn(), console=Console(stderr=True), transient=True)
    state = {}

    def start(n: int) -> None:
        prog.start()
        state["task"] = prog.add_task(label, total=n)

    def advance(k: int) -> None:
        if "task" in state:
            prog.advance(state["task"], k)

    return start, advance, prog.stop


@click.command()
@variant_options
@click.option("--seat", default="all", show_default=True,
              help="all, or one seat: mano|second|third|postre (or 1-4, segundo, tercero).")
@click.option("--hands", default=None, metavar="N|LIST",
              help="Only the first N hands (strongest at grande first), or a comma-separated list "
                   "such as 'RRRA,R C 7 A' [default: every hand].")
@click.option("--out", default=None, metavar="FILE",
              help="Write every column to FILE.csv, .parquet, .md or .json (atomically).")
@click.option("--trials", type=int, default=None,
              help="Deals per keep-set in the discard evaluation [default: 20000].")
@click.option("--seed", type=int, default=None, help="Seed of the discard evaluation [default: 2026].")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Run on a Dask cluster, e.g. tcp://10.0.0.5:8786 [default: run locally].")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def table(variant, juego_real, seat, hands, out, trials, seed, scheduler, quiet) -> None:
    """Strategy table: every hand at every seat, with its odds, best discard, mus advice
    and órdago numbers.

    Per row: how often the hand is dealt; exact P(team), P(self) and net EV per lance and
    in total (cutting the mus now); the best keep-set and what a mus round gains over
    cutting (± SE); cut or mus; P(win each lance if an órdago there is seen) against the
    break-evens at 0-0 from the game model.

    Example: musstats table --variant 8-reyes --out tabla8.csv
    """
    from musstats.analysis import table as tablegen
    from musstats.base.errors import MusError
    from musstats.base.files import TABLE_EXTS, check_output, write_frame

    if out:
        check_output(out, TABLE_EXTS, "table")
    v_trials = tablegen.DEFAULT_TRIALS if trials is None else trials
    v_seed = tablegen.DEFAULT_SEED if seed is None else seed
    if isinstance(v_trials, int) and v_trials < 1:
        raise MusError(f"--trials must be a whole number >= 1, got {v_trials}")
    if isinstance(v_seed, int) and v_seed < 0:
        raise MusError(f"--seed must be a whole number >= 0, got {v_seed}")
    runner = None
    if scheduler:
        from musstats.engines.distributed import dask_table_runner

        runner = dask_table_runner(scheduler)
    start, advance, close = progress_bar(not quiet and sys.stderr.isatty(), "hands")
    try:
        df = tablegen.strategy_table(variant, juego_real, seats=seat, hands=hands, trials=v_trials,
                                     seed=v_seed, runner=runner, progress=advance, on_start=start)
    finally:
        close()
        if runner is not None:
            runner.close()
    if out:
        a = df.attrs
        path = write_frame(df, out, title=f"musstats strategy table · {a['variant']}")
        click.echo(f"wrote {path} ({len(df)} rows, {a['seconds']:.1f} s)", err=True)
        return
    click.echo(tablegen.render_summary(df), nl=False)
