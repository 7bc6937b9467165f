"""``musstats ordago``: call, accept or refuse an órdago at a given score; ``--chart``: the
push/fold chart of a lance at a score."""

from __future__ import annotations

import click

from musstats.cli.common import (RULES_EPILOG, Command, condition_options, deal_option, finish, progress_bar,
                                 run_options, target_option, variant_options)
from musstats.rules.seats import ACCEPTED_SEATS

__all__ = ["LANCE_HELP", "ordago"]

LANCE_HELP = "grande|chica|pares|juego|punto"


@click.command(cls=Command, epilog=RULES_EPILOG)
@click.argument("cards", nargs=-1)
@click.option("--seat", default=None, help=ACCEPTED_SEATS + ". [default: mano]")
@click.option("--lance", required=True, help=f"The lance of the órdago: {LANCE_HELP}.")
@click.option("--score", required=True, help="The score before the hand, ours first: A-B, e.g. 12-30 "
                                             "(with --chart: mano's team first).")
@condition_options
@target_option
@variant_options
@click.option("--equilibrium/--no-equilibrium", default=True, show_default=True,
              help="Answer against equilibrium opponents: the lance's betting solved at the score with P(win the "
                   "game) as the payoff (cached); --no-equilibrium: the random-hands comparison alone.")
@deal_option
@click.option("--iterations", type=str, default=None,
              help="Iterations of the equilibrium solve, always from scratch [default: as dealt 200, or 30 more "
                   "from the solve of a score at most 8 points away when one is cached; after the mus 400].")
@click.option("--chart", is_flag=True, help="Draw the push/fold chart of the lance at the score (every hand and "
                                            "seat: call / accept frequency) to --out; no CARDS.")
@click.option("--out", "out", type=str, default=None, help="With --chart: the image file (.png .svg .pdf).")
@run_options(threads_default="1: a question's kernels are small, and one thread keeps its time on a busy machine")
@click.option("--format", "fmt", default="table", show_default=True,
              type=click.Choice(["table", "json", "csv"], case_sensitive=False), help="Output format.")
def ordago(cards, seat, lance, score, declared, signal, variant, juego_real, equilibrium, deal, iterations, chart,
           out, threads, quiet, fmt) -> None:
    """Should we call an órdago at a lance, and accept or refuse one?

    The answer is against equilibrium opponents: the lance's betting solved at the score
    with P(win the game) as the payoff gives P(they accept our órdago), P(we win the lance |
    they accept), P(we win the game) if we call or pass, and against an órdago P(we win the
    lance | they called it) from the callers' range and P(we win the game) if we accept or
    refuse; the best action is the one with the higher P(win the game).  Beside it, the
    random-hands comparison: P(our team wins the lance), exact, against P(we win the game)
    from the score without it.  In pares and juego a player not named in --declared is
    assumed to hold the lance (the title says so).  --deal after-mus: the equilibrium for
    the hands after a mus round (a cold solve: 15 s for a new score of grande, more for a
    rare lance the first time; cached).

    Example: musstats ordago R R R R --seat mano --lance grande --score 20-35

    Chart:   musstats ordago --chart --lance grande --score 0-35 --out chart.png
    """
    from musstats.base.errors import MusError
    from musstats.cli.common import number
    from musstats.output.render import ordago_csv, render_ordago, to_json
    from musstats.rules import checks

    it = number(iterations, "--iterations", 1, checks.MAX_ITERATIONS)
    if chart:
        if cards:
            raise MusError("--chart draws every hand: give no CARDS")
        if seat is not None:
            raise MusError("--chart draws every seat: give no --seat")
        if signal:
            raise MusError("--chart has no seña (--signal): the equilibrium is private information")
        if not out:
            raise MusError("--chart needs --out FILE (.png .svg .pdf)")
        if not equilibrium:
            raise MusError("--chart is the equilibrium's chart: drop --no-equilibrium")
        _chart(lance, score, declared, variant, it, out, threads, quiet, deal)
        return
    if out:
        raise MusError("--out goes with --chart")
    from musstats.analysis.ordago import ordago as compute

    with _bars(quiet, f"solving {lance} at {score}") as (bar, bar2):
        res = compute(" ".join(cards), seat or "mano", lance=lance, score=score, variant=variant,
                      declared=declared or None, signal=signal or None, progress=bar, equilibrium=equilibrium,
                      iterations=it, solve_progress=bar2, deal=deal, threads=number(threads, "--threads"))
    f = fmt.lower()
    finish(ordago_csv(res) if f == "csv" else to_json(res) if f == "json" else render_ordago(res))


def _chart(lance, score, declared, variant, iterations, out, threads, quiet, deal) -> None:
    from musstats.analysis.ordago import pushfold
    from musstats.base.files import check_output
    from musstats.cli.common import number
    from musstats.output.files import IMAGE_EXTS
    from musstats.engines.run import threads as run_threads
    from musstats.output.plots import plot_pushfold_chart, save_figure
    from musstats.output.render import deal_text, warm_note
    from musstats.rules import checks

    check_output(out, IMAGE_EXTS, "image")  # before any long computation
    from musstats.analysis.ordago import QUESTION_THREADS

    n = number(threads, "--threads")
    with run_threads(QUESTION_THREADS if n is None else checks.threads(n)):
        with _bars(quiet, f"solving {lance} at {score}") as (bar, bar2):
            df = pushfold(lance=lance, score=score, variant=variant, declared=declared or None,
                          iterations=iterations, progress=bar, solve_progress=bar2, deal=deal)
    p = save_figure(plot_pushfold_chart(df, variant), out)
    nc = (df.attrs.get("nashconv") or {}).get("nashconv")
    sc = df.attrs["score"]
    finish(f"wrote {p}: push/fold chart of the órdago at {df.attrs['lance']}, {sc['us']}-{sc['them']} "
           f"(mano's team first), {deal_text(df.attrs['deal'])}, {df.attrs['iterations']} iterations"
           + warm_note(df.attrs.get("warm_start"))
           + ", NashConv "
           f"{'–' if nc is None else f'{nc:.4f}'} P(win the game)\n")


class _bars:
    """Two progress bars in turn: the game model's, then the solve's (the first is closed
    when the second starts: one live display at a time)."""

    def __init__(self, quiet: bool, label: str) -> None:
        self.quiet, self.label = quiet, label

    def __enter__(self):
        self._a = progress_bar(self.quiet, "game model: deals")
        self._b = progress_bar(self.quiet, self.label)
        a = self._a.__enter__()
        b = self._b.__enter__()
        if b is None:
            return a, None

        def solve(done: int, total: int) -> None:
            if a is not None:
                a.close()
            b(done, total)

        return a, solve

    def __exit__(self, *exc):
        self._b.__exit__(*exc)
        self._a.__exit__(*exc)
        return False
