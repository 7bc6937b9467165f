"""``musstats review``: the review of a saved game (or of a history typed by hand)."""

from __future__ import annotations

import click

from musstats.cli.common import Command, finish, format_option, number, progress_bar

__all__ = ["review"]


@click.command(cls=Command, epilog="The history format: docs/practice.md. The rules: musstats rules.")
@click.argument("file", metavar="FILE.json")
@click.option("--trials", type=str, default=None,
              help="Deals of each betting valuation [default: 20,000; at most 1,000,000].")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@format_option
def review(file, trials, quiet, fmt) -> None:
    """Review every decision of a game: your action, the equilibrium's best, the expected
    stones of each and the stones lost against the best, per hand, per lance and in total.

    FILE.json is a hand history: a game saved by musstats play or the page's table, or one
    typed by hand from a real table (docs/practice.md).  A file that breaks the rules is
    refused with one line naming the first bad action.

    Example: musstats review game.json --format csv
    """
    from pathlib import Path

    from musstats.analysis.practice import load_history
    from musstats.analysis.practice.review import review as run_review
    from musstats.analysis.practice.values import BET_TRIALS
    from musstats.output.practice import emit_review

    n = BET_TRIALS if trials is None else number(trials, "--trials", 1000, 1_000_000)
    rec = load_history(Path(file))
    with progress_bar(quiet, "review: hands") as bar:
        rv = run_review(rec, trials=n, progress=bar)
    finish(emit_review(rv.to_dict(), fmt.lower()), partial=bool(rv.meta.get("partial")))
