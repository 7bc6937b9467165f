"""Scale-out on a Dask distributed cluster.

The strategy table and the discard strategy are embarrassingly parallel over hands.
Both run locally by default; with ``--scheduler ADDRESS`` the same functions run as
Dask tasks (``client.map`` + ``gather``) on the cluster whose scheduler listens at
ADDRESS (``tcp://host:8786``, or an in-process ``inproc://`` address):

* :func:`dask_runner` plugs into :func:`musstats.analysis.discard_table.build_table`
  (``runner(chunks, policy, variant, trials, seed)`` → one result list per chunk);
* :func:`dask_table_runner` plugs into :func:`musstats.analysis.table.strategy_table`
  (``runner(func, items, job, progress)`` → one result per item).

The workers need musstats (same version) installed.  Every random stream is seeded
by (seed, seat, hand), so a cluster returns exactly what the local run returns.
Start a cluster with ``dask scheduler`` and ``dask worker tcp://HOST:8786`` on each
machine (or ``dask.distributed.LocalCluster``).  Dask is an optional dependency:
``pip install 'musstats[dask]'``.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from musstats.base.errors import MusError

#: seconds to wait for the scheduler when connecting
CONNECT_TIMEOUT = 10


def _client_class():
    try:
        from dask.distributed import Client
    except ImportError:
        raise MusError("--scheduler needs Dask: pip install 'dask[distributed]' "
                       "(or pip install 'musstats[dask]')") from None
    return Client


def connect(address: Any, timeout: float = CONNECT_TIMEOUT):
    """A ``dask.distributed.Client`` for ``address`` (a scheduler address, or a Client
    / LocalCluster to use as is).  MusError in one line when it cannot connect."""
    Client = _client_class()
    if isinstance(address, Client):
        return address
    if hasattr(address, "scheduler_address"):  # a LocalCluster or similar
        address = address.scheduler_address
    if not isinstance(address, str) or not address.strip():
        raise MusError(f"--scheduler takes a Dask scheduler address such as tcp://127.0.0.1:8786, "
                       f"got {address!r}")
    try:
        return Client(address.strip(), timeout=timeout)
    except (OSError, TimeoutError, ValueError) as e:
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise MusError(f"cannot connect to the Dask scheduler at {address!r}: {msg}") from None


class _Lazy:
    """Connect on first use, then reuse the same client."""

    def __init__(self, address: Any, timeout: float):
        self.address = address
        self.timeout = timeout
        self._client = None

    @property
    def client(self):
        if self._client is None:
            self._client = connect(self.address, self.timeout)
        return self._client

    def close(self) -> None:
        """Close the client if this runner opened it (a Client passed in is left open)."""
        if self._client is not None and self._client is not self.address:
            self._client.close()
        self._client = None


def dask_runner(address: Any, timeout: float = CONNECT_TIMEOUT) -> Callable:
    """A runner for :func:`musstats.analysis.discard_table.build_table` that evaluates the chunks of
    (seat, hand) entries of each sweep as Dask tasks, one per chunk.

    ``address``: scheduler address (or a Client / LocalCluster).  The client connects on
    the first sweep and is reused for the next ones.
    """
    lazy = _Lazy(address, timeout)

    def run(chunks: Sequence[Sequence[tuple[int, int]]], policy, variant, trials: int, seed: int) -> list:
        from musstats.analysis.discard_table import best_response

        client = lazy.client
        [pol] = client.scatter([policy], broadcast=True, hash=True)
        futures = client.map(best_response, [list(ch) for ch in chunks], policy=pol, variant=variant,
                             trials=trials, seed=seed, pure=False)
        try:
            return client.gather(futures)
        finally:
            client.cancel(futures)

    run.name = f"dask {address if isinstance(address, str) else 'cluster'}"
    run.close = lazy.close
    return run


def dask_table_runner(address: Any, timeout: float = CONNECT_TIMEOUT) -> Callable:
    """A runner for :func:`musstats.analysis.table.strategy_table`: one Dask task per hand,
    results gathered in the order of the hands; ``progress(1)`` as each task finishes."""
    lazy = _Lazy(address, timeout)

    def run(func: Callable, items: Sequence, job: Any, progress: Callable[[int], None] | None = None) -> list:
        from dask.distributed import as_completed

        client = lazy.client
        [job_f] = client.scatter([job], broadcast=True, hash=False)
        futures = client.map(func, list(items), job=job_f, pure=False)
        try:
            for _ in as_completed(futures):
                if progress:
                    progress(1)
            return client.gather(futures)
        finally:
            client.cancel(futures)

    run.name = f"dask {address if isinstance(address, str) else 'cluster'}"
    run.close = lazy.close
    return run
