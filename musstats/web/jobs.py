"""The worker pool behind the web API: jobs with progress and cancellation, and a small cache.

* Computations run in a pool of threads.  numba releases the GIL inside its kernels, so a
  long Monte Carlo run in one worker does not hold up a quick exact question in another.
  Each computation uses ``kernel_threads`` numba threads (default 1): the pool is the
  parallelism.  A parallel kernel that has to wait for a core busy with other work runs many
  times slower than a single thread (here, 1.2 s against 70 ms for one exact odds question
  with another process on the second core), and results never depend on the number of
  threads.
  (The ``workqueue`` threading layer of numba cannot run parallel kernels from two threads
  at once; when numba uses it, computations are serialised.)
* Every long computation of the library reports ``progress(done, total)`` between its
  batches.  A job's callback records the figures and raises :class:`Cancelled` once the
  job is cancelled: the engine stops cleanly at the end of the batch (a running kernel is
  never interrupted) and nothing is cached.  Short computations without batches (exact
  odds, tens of milliseconds) run to their end and their answer is dropped.
* Identical requests (same endpoint, same parameters) are computed once: a finished answer
  comes from the cache (``cache_size`` answers, least recently used dropped first) when it
  is the only possible answer (exact results, or Monte Carlo with a seed); a request that
  arrives while an identical deterministic one is running shares it.  A computation shared
  by several jobs is cancelled only when every one of them is.
* A job nobody has polled for ``abandon_after`` seconds is cancelled (the page was closed).
* Some kinds run in lanes of their own, so that they never occupy the workers of the
  others: ``ordago`` and ``game`` need the game model, whose first simulation for a set of
  rules takes seconds (five órdago questions waiting for it must not hold every worker),
  and ``bet`` cannot be stopped and may be long (solving a betting strategy that is not
  shipped takes minutes and reports no progress).  ``bet`` has one lane per set of rules
  and information model (:data:`LANE_PARAMS`), so that such a solve holds up only the
  questions that wait for it, never the betting of the shipped strategies.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
import time
import traceback
import uuid
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager, nullcontext
from typing import Any, Callable, Iterator

from musstats.base.errors import MusError
from musstats.web.endpoints import Outcome, Unavailable

__all__ = ["Cancelled", "Busy", "Computation", "Job", "JobManager", "default_workers", "error_status", "error_text",
           "one_line", "MAX_ERROR_CHARS"]

log = logging.getLogger("musstats.web")


class Cancelled(Exception):
    """Raised by a job's progress callback once the job is cancelled (stops the engine between
    batches).  Not a KeyboardInterrupt: the engines turn those into partial results."""


class Busy(Exception):
    """Too many computations are waiting (HTTP 503)."""


#: kind -> (lane, threads of the lane)
DEFAULT_LANES = {"ordago": ("model", 1), "game": ("model", 1), "bet": ("bet", 1)}
#: kind -> the parameters that split its lane: one lane (of the kind's threads) per value of them
LANE_PARAMS = {"bet": ("variant", "juego_real", "deal", "info")}
#: the most lanes made that way; past it, the kind's own lane takes the rest
MAX_SPLIT_LANES = 8


def default_workers() -> int:
    """Worker threads by default: twice the CPUs (4 to 8), so that a quick question rarely
    waits behind Monte Carlo runs (each computation uses one numba thread; see above)."""
    return max(4, min(8, 2 * (os.cpu_count() or 2)))


def error_status(err: BaseException) -> int:
    """The HTTP status of a computation's error."""
    if isinstance(err, MusError):
        return 400
    if isinstance(err, Cancelled):
        return 409
    if isinstance(err, (Unavailable, Busy)):
        return 503
    return 500


#: the longest error line of a job (a longer one is cut, with an ellipsis)
MAX_ERROR_CHARS = 400


def one_line(message: object) -> str:
    """A message as one line of at most :data:`MAX_ERROR_CHARS` characters."""
    text = " ".join(str(message).split()) or "bad request"
    return text if len(text) <= MAX_ERROR_CHARS else text[:MAX_ERROR_CHARS - 1] + "…"


def error_text(err: BaseException) -> str:
    """The one line a client sees for a computation's error."""
    if isinstance(err, (MusError, Unavailable, Busy)):
        return one_line(err)
    if isinstance(err, Cancelled):
        return "the job was cancelled"
    # the first line of an unexpected error (the whole of it is in the server's log)
    first = str(err).strip().splitlines()[0] if str(err).strip() else ""
    return one_line(f"internal error: {type(err).__name__}" + (f": {first}" if first else ""))


class Computation:
    """One run of an endpoint's runner, possibly shared by several identical jobs."""

    def __init__(self, kind: str, key: str, params: dict, runner: Callable, share: bool) -> None:
        self.kind, self.key, self.params, self.runner, self.share = kind, key, params, runner, share
        self.future: Future = Future()
        self.cancel_event = threading.Event()
        self.state = "queued"  # queued, running, done, error, cancelled
        self.done = 0
        self.total = 0
        self.holders = 0
        self.created = time.monotonic()
        self.started: float | None = None
        self.finished: float | None = None

    def progress(self, done: int, total: int) -> None:
        """The runner's progress callback: records, and stops a cancelled run."""
        self.done, self.total = int(done), int(total)
        if self.cancel_event.is_set():
            raise Cancelled()


class Job:
    """One request's interest in a computation."""

    def __init__(self, kind: str, comp: Computation, cached: bool = False) -> None:
        self.id = uuid.uuid4().hex[:16]
        self.kind = kind
        self.comp = comp
        self.cached = cached
        self.cancelled = False
        self.released = False
        self.created = time.monotonic()
        self.seen = self.created

    @property
    def state(self) -> str:
        if self.cancelled:
            return "cancelled"
        if not self.comp.future.done():  # the final state counts once the answer is there
            return "queued" if self.comp.state == "queued" else "running"
        return self.comp.state

    def outcome(self) -> Outcome | None:
        f = self.comp.future
        if self.cancelled or not f.done() or f.exception() is not None:
            return None
        return f.result()

    def error(self) -> BaseException | None:
        f = self.comp.future
        if self.cancelled:
            return Cancelled()
        if not f.done():
            return None
        return f.exception()

    def status(self, with_result: bool = True) -> dict[str, Any]:
        """The JSON of ``GET /api/jobs/{id}``."""
        c = self.comp
        now = time.monotonic()
        out: dict[str, Any] = {"id": self.id, "kind": self.kind, "state": self.state, "done": c.done,
                               "total": c.total, "cached": self.cached,
                               "elapsed_s": round(((c.finished or now) - (c.started or now)), 3)}
        if self.state == "done":
            o = self.outcome()
            out["result_url"] = f"/api/jobs/{self.id}/result"
            if with_result and o is not None and o.media_type.startswith("application/json"):
                out["result"] = json.loads(o.body)
        elif self.state in ("error", "cancelled"):
            e = self.error()
            if e is not None:
                out["status"] = error_status(e)
                out["error"] = error_text(e)
        return out


class JobManager:
    """Jobs, their computations in a thread pool, and the cache of identical requests."""

    def __init__(self, workers: int | None = None, *, cache_size: int = 256, cache_bytes: int = 32 << 20,
                 max_jobs: int = 2000, max_pending: int = 1000, abandon_after: float = 30.0,
                 keep_finished: float = 600.0, lanes: dict[str, tuple[str, int]] | None = None,
                 kernel_threads: int | None = 1) -> None:
        self.workers = workers or default_workers()
        self.kernel_threads = kernel_threads
        self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="musstats-web")
        #: kind -> (lane, threads): pools of their own (see the module docstring)
        lanes = DEFAULT_LANES if lanes is None else lanes
        pools: dict[str, ThreadPoolExecutor] = {}
        for lane, n in lanes.values():
            pools.setdefault(lane, ThreadPoolExecutor(n, thread_name_prefix=f"musstats-web-{lane}"))
        self._lane_pools = pools
        self._lanes = {kind: pools[lane] for kind, (lane, _) in lanes.items()}
        self._lane_threads = {kind: n for kind, (_, n) in lanes.items()}
        self._split_pools: dict[str, ThreadPoolExecutor] = {}
        self._lock = threading.RLock()
        self._cache: OrderedDict[str, Outcome] = OrderedDict()
        self._cache_used = 0
        self.cache_size, self.cache_bytes = cache_size, cache_bytes
        self._inflight: dict[str, Computation] = {}
        self._live: set[Computation] = set()  # queued or running
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self.max_jobs, self.max_pending = max_jobs, max_pending
        self.abandon_after, self.keep_finished = abandon_after, keep_finished
        self._pending = 0
        self._running = 0
        #: a lock around every computation when numba's threading layer is not thread-safe
        self._serial: threading.Lock | None = None
        self.counts = {"submitted": 0, "computed": 0, "cache_hits": 0, "shared": 0, "cancelled": 0, "errors": 0}
        self._closed = False

    # ------------------------------------------------------------------ submitting

    @staticmethod
    def key(kind: str, params: dict) -> str:
        return kind + " " + json.dumps(params, sort_keys=True, ensure_ascii=False, default=str)

    def lookup(self, kind: str, params: dict) -> Outcome | None:
        """A cached answer of an identical request, if any."""
        k = self.key(kind, params)
        with self._lock:
            o = self._cache.get(k)
            if o is not None:
                self._cache.move_to_end(k)
            return o

    def submit(self, kind: str, params: dict, runner: Callable, *, share: bool, register: bool = True) -> Job:
        """A job for ``runner(params, progress, manager)``: from the cache, joined to an identical
        running computation (when ``share``), or queued in the pool.  ``register``: keep the job
        for the job API (``get``); synchronous requests are not registered."""
        if self._closed:
            raise Busy("the server is shutting down")
        k = self.key(kind, params)
        with self._lock:
            self.counts["submitted"] += 1
            hit = self._cache.get(k)
            if hit is not None:
                self._cache.move_to_end(k)
                comp = Computation(kind, k, params, runner, False)
                comp.state, comp.started, comp.finished = "done", time.monotonic(), time.monotonic()
                comp.future.set_result(hit)
                self.counts["cache_hits"] += 1
                job = Job(kind, comp, cached=True)
            else:
                shared = self._inflight.get(k) if share else None
                if shared is not None and not shared.cancel_event.is_set():
                    comp = shared
                    self.counts["shared"] += 1
                else:
                    if self._pending >= self.max_pending:
                        raise Busy(f"the server is busy ({self._pending} computations waiting); try again shortly")
                    comp = Computation(kind, k, params, runner, share)
                    if share:
                        self._inflight[k] = comp
                    self._pending += 1
                    self._live.add(comp)
                    self._pool_for(kind, params).submit(self._run, comp)
                comp.holders += 1
                job = Job(kind, comp)
            if register:
                self._jobs[job.id] = job
                self._trim()
        return job

    def _pool_for(self, kind: str, params: dict) -> ThreadPoolExecutor:
        """The pool a computation runs in: the kind's lane, split by :data:`LANE_PARAMS`
        (called with the lock held)."""
        base = self._lanes.get(kind, self._pool)
        split = LANE_PARAMS.get(kind)
        if not split or kind not in self._lanes:
            return base
        values = [params.get(p) for p in split]
        if all(v is None for v in values):
            return base
        name = f"{kind}:" + ",".join("" if v is None else str(v) for v in values)
        pool = self._split_pools.get(name)
        if pool is None:
            if len(self._split_pools) >= MAX_SPLIT_LANES:
                return base
            pool = ThreadPoolExecutor(self._lane_threads.get(kind, 1), thread_name_prefix=f"musstats-web-{kind}")
            self._split_pools[name] = pool
            self._lane_pools[name] = pool
        return pool

    def _run(self, comp: Computation) -> None:
        try:
            if comp.cancel_event.is_set():
                raise Cancelled()
            comp.state, comp.started = "running", time.monotonic()
            with self._serial or nullcontext(), self._numba_threads():
                out = comp.runner(dict(comp.params), comp.progress, self)
        except Cancelled as e:
            self._finish(comp, "cancelled", error=e)
        except Exception as e:  # noqa: BLE001 - every error becomes the job's answer
            if error_status(e) == 500:
                log.error("%s failed: %s", comp.key, "".join(traceback.format_exception(e)))
            self._finish(comp, "error", error=e)
        else:
            self._finish(comp, "done", out=out)

    @contextmanager
    def _numba_threads(self) -> Iterator[None]:
        """The computation's numba threads (``kernel_threads``; None: all of them)."""
        from musstats.engines.run import threads

        with self._lock:
            self._running += 1
        try:
            with threads(self.kernel_threads):
                yield
        finally:
            with self._lock:
                self._running -= 1

    def _finish(self, comp: Computation, state: str, out: Outcome | None = None,
                error: BaseException | None = None) -> None:
        with self._lock:
            if comp not in self._live:  # finished already (at shut-down)
                return
            self._live.discard(comp)
            comp.state = state
            comp.finished = time.monotonic()
            self._pending -= 1
            if self._inflight.get(comp.key) is comp:
                del self._inflight[comp.key]
            if out is not None:
                self.counts["computed"] += 1
                if out.cacheable:
                    self._store(comp.key, out)
            elif isinstance(error, Cancelled):
                self.counts["cancelled"] += 1
            else:
                self.counts["errors"] += 1
        if out is not None:
            comp.future.set_result(out)
        else:
            comp.future.set_exception(error if error is not None else Cancelled())

    def _store(self, key: str, out: Outcome) -> None:
        old = self._cache.pop(key, None)
        if old is not None:
            self._cache_used -= len(old.body)
        self._cache[key] = out
        self._cache_used += len(out.body)
        while self._cache and (len(self._cache) > self.cache_size or self._cache_used > self.cache_bytes):
            _, dropped = self._cache.popitem(last=False)
            self._cache_used -= len(dropped.body)

    def _trim(self) -> None:
        """Forget finished jobs beyond ``max_jobs`` or older than ``keep_finished`` seconds."""
        now = time.monotonic()
        for jid in list(self._jobs):
            j = self._jobs[jid]
            done = j.state in ("done", "error", "cancelled")
            if done and (len(self._jobs) > self.max_jobs or now - j.seen > self.keep_finished):
                del self._jobs[jid]

    # ------------------------------------------------------------------ jobs

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            j = self._jobs.get(job_id)
            if j is not None:
                j.seen = time.monotonic()
            return j

    def release(self, job: Job) -> None:
        """The job no longer wants its computation; the computation stops when nobody does."""
        with self._lock:
            if job.released:
                return
            job.released = True
            comp = job.comp
            comp.holders -= 1
            if comp.holders <= 0 and not comp.future.done():
                comp.cancel_event.set()
                if self._inflight.get(comp.key) is comp:
                    del self._inflight[comp.key]

    def cancel(self, job: Job) -> None:
        """Cancel a job (a no-op once it has finished)."""
        with self._lock:
            if job.comp.future.done() or job.cancelled:
                return
            job.cancelled = True
            self.release(job)

    def sweep(self) -> None:
        """Cancel running jobs nobody has asked about for ``abandon_after`` seconds; forget old ones."""
        now = time.monotonic()
        with self._lock:
            for j in list(self._jobs.values()):
                if j.state in ("queued", "running") and now - j.seen > self.abandon_after:
                    self.cancel(j)
            self._trim()

    async def wait(self, job: Job, timeout: float | None) -> bool:
        """Wait until the job's computation has finished (True) or ``timeout`` seconds (False)."""
        f = job.comp.future
        if f.done():
            return True
        af = asyncio.wrap_future(f)
        af.add_done_callback(lambda x: x.cancelled() or x.exception())  # retrieved: no warning
        try:
            await asyncio.wait_for(asyncio.shield(af), timeout)
        except asyncio.TimeoutError:
            return False
        except Exception:  # noqa: BLE001 - the error is the job's answer
            return True
        return True

    # ------------------------------------------------------------------ the pool

    def serialise(self) -> None:
        """Run one computation at a time (numba's threading layer is not thread-safe)."""
        if self._serial is None:
            self._serial = threading.Lock()

    def parallelise(self) -> None:
        """Let the workers compute at once (numba's threading layer is thread-safe)."""
        self._serial = None

    def status(self) -> dict[str, Any]:
        with self._lock:
            by_kind: dict[str, int] = {}
            for c in self._live:
                by_kind[c.kind] = by_kind.get(c.kind, 0) + 1
            return {"workers": self.workers, "lanes": {k: p._max_workers for k, p in self._lane_pools.items()},
                    "serialised": self._serial is not None, "pending": self._pending,
                    "pending_by_kind": dict(sorted(by_kind.items())), "running": self._running,
                    "jobs": len(self._jobs), "cache_entries": len(self._cache),
                    "cache_bytes": self._cache_used, **self.counts}

    def idle(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for every computation to end; True when none is left."""
        end = time.monotonic() + timeout
        while True:
            with self._lock:
                running = self._running
            if running == 0 or time.monotonic() >= end:
                return running == 0
            time.sleep(0.05)

    def shutdown(self) -> None:
        """Cancel everything and stop the pool (running computations stop after their batch)."""
        with self._lock:
            self._closed = True
            for j in list(self._jobs.values()):
                self.cancel(j)
            live = list(self._live)
            for c in live:
                c.cancel_event.set()
        for pool in (self._pool, *self._lane_pools.values()):
            pool.shutdown(wait=False, cancel_futures=True)
        for c in live:  # those that never started: answer their waiters
            if c.state == "queued":
                self._finish(c, "error", error=Busy("the server is shutting down"))
