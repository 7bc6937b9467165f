"""Scale-out on a Dask distributed cluster.

The strategy table and the discard strategy are embarrassingly parallel over hands.
Both run locally by default; with ``--scheduler ADDRESS`` the same functions run as
Dask tasks (``client.map`` + ``gather``) on the cluster whose scheduler listens at
ADDRESS (``tcp://host:8786``, or an in-process ``inproc://`` address):

A *runner* is ``runner(func, items, job, progress)`` → ``[func(item, job) for item in
items]``: :func:`local_runner` runs here, :func:`dask_runner` as Dask tasks.  The strategy
table, the discard strategy table and the betting solves take one.

The workers need musstats (same version) installed.  Every random stream is seeded
by (seed, seat, hand), so a cluster returns exactly what the local run returns.
Start a cluster with ``dask scheduler`` and ``dask worker tcp://HOST:8786`` on each
machine (or ``dask.distributed.LocalCluster``).  Dask is an optional dependency:
``pip install 'musstats[dask]'``.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

__all__ = ["connect", "local_runner", "dask_runner", "CONNECT_TIMEOUT"]

from musstats.base.errors import MusError
from musstats.engines.run import Progress

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


def local_runner(func: Callable, items: Sequence, job: Any, progress: Progress | None = None) -> list:
    """Run ``func(item, job)`` for every item here, in order (the default runner);
    ``progress(done, total)`` after each item."""
    out = []
    items = list(items)
    for i, it in enumerate(items):
        out.append(func(it, job))
        if progress:
            progress(i + 1, len(items))
    return out


def dask_runner(address: Any, timeout: float = CONNECT_TIMEOUT) -> Callable:
    """A runner with the signature of :func:`local_runner` whose items run as Dask tasks, one
    task per item, results gathered in the order of the items; ``progress(done, total)`` as
    each task finishes.

    ``address``: scheduler address (or a Client / LocalCluster).  The client connects on
    the first call and is reused for the next ones (``run.close()`` closes it).
    """
    lazy = _Lazy(address, timeout)

    def run(func: Callable, items: Sequence, job: Any, progress: Progress | None = None) -> list:
        from dask.distributed import as_completed

        client = lazy.client
        [job_f] = client.scatter([job], broadcast=True, hash=False)
        futures = client.map(func, list(items), job=job_f, pure=False)
        try:
            for i, _ in enumerate(as_completed(futures)):
                if progress:
                    progress(i + 1, len(futures))
            return client.gather(futures)
        finally:
            client.cancel(futures)

    run.name = f"dask {address if isinstance(address, str) else 'cluster'}"  # type: ignore[attr-defined]
    run.close = lazy.close  # type: ignore[attr-defined]
    return run
