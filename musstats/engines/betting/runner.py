"""Scale-out: independent solves (lances, declaration patterns, deal and information
models, variants) through a *runner*.

A runner is a callable ``runner(func, specs, progress) -> list`` that returns
``[func(spec) for spec in specs]`` in order, calling ``progress(1)`` as each one ends.
:func:`local_runner` runs them here, one after the other (each solve uses every numba
thread); :func:`dask_runner` runs one Dask task per spec on a cluster, the pattern of
:mod:`musstats.engines.distributed` (same seeds, so the same strategies).
"""

from __future__ import annotations

from typing import Any, Callable, Protocol, Sequence, cast

from musstats.engines.betting.store import Solved, Spec, get_solved, solve_subgame

__all__ = ["SpecRunner", "DaskSpecRunner", "local_runner", "dask_runner", "solve_many", "solve_task"]


class SpecRunner(Protocol):
    """A runner: ``runner(func, specs, progress) -> [func(spec) for spec in specs]``, with a
    ``name`` for reports."""

    name: str

    def __call__(self, func: Callable, specs: Sequence[Spec],
                 progress: Callable[[int], None] | None = None) -> list: ...


class DaskSpecRunner(SpecRunner, Protocol):
    """A runner that holds a Dask client: ``close()`` closes it."""

    close: Callable[[], None]


def solve_task(spec: Spec, eval_deals: int | None = None, history_every: int = 0) -> Solved:
    """One solve (what a worker runs): the spec solved from scratch and measured."""
    kw: dict[str, Any] = {} if eval_deals is None else {"eval_deals": eval_deals}
    return solve_subgame(spec, history_every=history_every, **kw)


def local_runner(func: Callable, specs: Sequence[Spec], progress: Callable[[int], None] | None = None) -> list:
    out = []
    for s in specs:
        out.append(func(s))
        if progress:
            progress(1)
    return out


cast(SpecRunner, local_runner).name = "local"


def dask_runner(address: Any, timeout: float | None = None) -> DaskSpecRunner:
    """A runner that solves each spec as one Dask task on the cluster at ``address`` (a
    scheduler address, a Client or a LocalCluster); results in the order of the specs."""
    from musstats.engines.distributed import CONNECT_TIMEOUT, _Lazy

    lazy = _Lazy(address, CONNECT_TIMEOUT if timeout is None else timeout)

    def run(func: Callable, specs: Sequence[Spec], progress: Callable[[int], None] | None = None) -> list:
        from dask.distributed import as_completed

        client = lazy.client
        futures = client.map(func, list(specs), pure=False)
        try:
            for _ in as_completed(futures):
                if progress:
                    progress(1)
            return client.gather(futures)
        finally:
            client.cancel(futures)

    runner = cast(DaskSpecRunner, run)  # the function, given the attributes of the protocol
    runner.name = f"dask {address if isinstance(address, str) else 'cluster'}"
    runner.close = lazy.close
    return runner


def solve_many(specs: Sequence[Spec], runner: Callable | None = None, *, func: Callable = solve_task,
               progress: Callable[[int], None] | None = None, use_cache: bool = True) -> list[Solved]:
    """Solve several specs through ``runner`` (local by default).  With ``use_cache`` the
    specs already shipped or cached are loaded instead of solved."""
    runner = runner or local_runner
    out: list[Solved | None] = [get_solved(s, solve=False) if use_cache else None for s in specs]
    todo = [i for i, s in enumerate(out) if s is None]
    if todo:
        res = runner(func, [specs[i] for i in todo], progress)
        for i, r in zip(todo, res):
            out[i] = r
    return out  # type: ignore[return-value]
