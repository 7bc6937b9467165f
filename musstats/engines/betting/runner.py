"""Scale-out: independent solves (lances, declaration patterns, deal and information
models, variants) through a runner of :mod:`musstats.engines.distributed`.

A runner is ``runner(func, items, job, progress)`` → ``[func(item, job) for item in
items]``: :func:`musstats.engines.distributed.local_runner` solves here, one spec after the
other (each solve uses every numba thread); :func:`musstats.engines.distributed.dask_runner`
solves one spec per Dask task on a cluster.  Every solve is seeded by its spec, so a
cluster returns exactly the strategies of the local run.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from musstats.engines.betting.solve import Solved, solve_subgame
from musstats.engines.betting.specs import Spec
from musstats.engines.betting.store import get_solved
from musstats.engines.run import Progress

__all__ = ["solve_task", "solve_many"]


def solve_task(spec: Spec, job: dict[str, Any] | None = None) -> Solved:
    """One solve (what a worker runs): ``spec`` solved from scratch and measured; ``job``:
    keyword arguments of :func:`~musstats.engines.betting.solve.solve_subgame` shared by
    every spec (e.g. ``eval_deals``)."""
    return solve_subgame(spec, **(job or {}))


def solve_many(specs: Sequence[Spec], runner: Callable | None = None, *, job: dict[str, Any] | None = None,
               progress: Progress | None = None, use_cache: bool = True) -> list[Solved]:
    """Solve several specs through ``runner`` (local by default), in the order of the specs.
    With ``use_cache`` the specs already shipped or cached are loaded instead of solved."""
    from musstats.engines.distributed import local_runner

    run = runner or local_runner
    out: list[Solved | None] = [get_solved(s, solve=False) if use_cache else None for s in specs]
    todo = [i for i, s in enumerate(out) if s is None]
    if todo:
        res = run(solve_task, [specs[i] for i in todo], job, progress)
        for i, r in zip(todo, res):
            out[i] = r
    return [s for s in out if s is not None]
