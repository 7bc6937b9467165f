"""``musstats table``: the strategy table, one row per hand and seat."""

from __future__ import annotations

import click

from musstats.cli.common import (RULES_EPILOG, Command, finish, number, progress_bar, run_options, target_option,
                                 variant_options)

__all__ = ["table"]


@click.command(cls=Command, epilog=RULES_EPILOG)
@target_option
@variant_options
@click.option("--seat", default="all", show_default=True,
              help="all, or one seat: mano|second|third|postre (or 1-4, segundo, tercero).")
@click.option("--hands", default=None, metavar="N|LIST",
              help="Only the first N hands (strongest at grande first), or a comma-separated list "
                   "such as 'RRRA,R C 7 A' [default: every hand].")
@click.option("--out", default=None, metavar="FILE",
              help="Write every column to FILE.csv, .parquet, .md or .json (atomically; the folder must exist).")
@click.option("--trials", type=str, default=None,
              help="Deals per keep-set in the mus evaluation [default: 20000; at most 50,000,000].")
@click.option("--seed", type=str, default=None, help="Seed of the mus evaluation [default: 2026].")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Run on a Dask cluster, e.g. tcp://10.0.0.5:8786 [default: run locally].")
@run_options
def table(variant, juego_real, seat, hands, out, trials, seed, scheduler, threads, quiet) -> None:
    """Strategy table: every hand at every seat, with its odds, mus advice and órdago numbers.

    Per row: how often the hand is dealt; exact P(team), P(self) and net EV per lance and
    in total (cutting the mus now); the best keep-set and what a mus round gains over
    cutting on the deals in which the others ask for mus (± SE), as `musstats mus`; cut or
    mus; P(win each lance the hand can bet in if an órdago there is seen) against the
    break-evens at 0-0 from the game model.  Ctrl-C prints the rows done, marked partial.

    Example: musstats table --variant 8-reyes --out tabla8.csv
    """
    from musstats.analysis.table import strategy_table
    from musstats.engines.run import threads as run_threads
    from musstats.output.files import TABLE_EXTS, write_frame
    from musstats.output.render import render_table_summary
    from musstats.rules import checks

    if out:
        from musstats.base.files import check_output

        check_output(out, TABLE_EXTS, "table")
    runner = None
    if scheduler:
        from musstats.engines.distributed import dask_runner

        runner = dask_runner(scheduler)
    try:
        with run_threads(checks.threads(number(threads, "--threads"))), \
                progress_bar(quiet, "game model: deals") as model_bar, progress_bar(quiet, "hands") as bar:
            res = strategy_table(variant, seats=seat, hands=hands, trials=number(trials, "--trials"),
                                 seed=number(seed, "--seed"), runner=runner, progress=bar, model_progress=model_bar)
    finally:
        if runner is not None:
            runner.close()  # type: ignore[attr-defined]
    df = res.to_frame()
    if out:
        if res.partial:  # never a partial file: the rows done go to the terminal
            finish(render_table_summary(df), True)
        path = write_frame(df, out, title=f"musstats strategy table · {df.attrs['variant']}")
        click.echo(f"wrote {path} ({len(df)} rows, {df.attrs['seconds']:.1f} s)", err=True)
        return
    finish(render_table_summary(df), res.partial)
