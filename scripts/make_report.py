"""Regenerate the Markdown report under reports/ (``make report``): strategy tables and charts
for 8 reyes and 4 reyes, from scratch and deterministically (fixed seeds, no caches).

    python scripts/make_report.py                    # the full report into reports/
    python scripts/make_report.py --hands 12 --out-dir /tmp/r   # a quick look
    python scripts/make_report.py --scheduler tcp://10.0.0.5:8786  # tables on a Dask cluster

Timings are printed here, not written into the report (so that it stays reproducible).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from musstats.base.errors import MusError  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    ap.add_argument("--out-dir", default=os.path.join(root, "reports"), help="where to write (default: reports/)")
    ap.add_argument("--variants", default="8-reyes,4-reyes", help="comma-separated deck variants")
    ap.add_argument("--hands", default=None, help="only these hands (N or a list; quick runs)")
    ap.add_argument("--trials", type=int, default=None, help="deals per keep-set (default 20000)")
    ap.add_argument("--seed", type=int, default=None, help="seed of the discard evaluation (default 2026)")
    ap.add_argument("--game-deals", type=int, default=None, help="deals of the game model (default 4,000,000)")
    ap.add_argument("--example-trials", type=int, default=None, help="largest run of the convergence chart")
    ap.add_argument("--scheduler", default=None, help="Dask scheduler address (default: run locally)")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    a = ap.parse_args(argv)

    from musstats.output import report

    runner = None
    if a.scheduler:
        from musstats.engines.distributed import dask_runner

        runner = dask_runner(a.scheduler)
    factory = None
    if not a.quiet and sys.stderr.isatty():
        from musstats.output.progress import ProgressBar as factory

    kw = {}
    if a.game_deals is not None:
        kw["game_deals"] = a.game_deals
    if a.example_trials is not None:
        kw["example_trials"] = a.example_trials
    t0 = time.perf_counter()
    try:
        timings = report.build_report(a.out_dir, [s.strip() for s in a.variants.split(",") if s.strip()],
                                      hands=a.hands, trials=a.trials, seed=a.seed, runner=runner,
                                      log=lambda m: print(m, flush=True), progress_factory=factory, **kw)
    except MusError as e:
        print(f"make_report: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"make_report: interrupted; {os.path.normpath(a.out_dir)} is as it was", file=sys.stderr)
        return 130
    finally:
        if runner is not None:
            runner.close()
    print(f"report written to {os.path.normpath(os.path.join(a.out_dir, 'README.md'))} in "
          f"{time.perf_counter() - t0:.0f} s (" + ", ".join(f"{k} {v:.0f} s" for k, v in timings.items()) + ")")
    return 0


if __name__ == "__main__":
    sys.exit(main())
