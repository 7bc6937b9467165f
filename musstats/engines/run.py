"""Running long computations: in batches, interruptible, with progress, on a chosen number of
threads.

numba kernels cannot be interrupted while they run: a KeyboardInterrupt raised inside one
surfaces later as a ``SystemError`` (or, inside a parallel region, can bring the process
down).  So every long computation is cut into batches of about half a second, and
:class:`Interrupt` turns Ctrl-C into a flag that the batch loop checks between batches:
the loop stops, and the caller returns what is done so far, marked *partial*.  A second
Ctrl-C raises KeyboardInterrupt at once.  A Ctrl-C that no loop looked at (it landed during
the last batch of a loop, after its last look) is raised as :class:`LateInterrupt` when the
outermost :class:`Interrupt` exits, so that the next step of a command does not run.  A
Ctrl-C that lands while numba compiles a kernel (Python code that runs for seconds on a
fresh install) calls ``Interrupt.on_compiling``.

Progress is reported through a callback ``progress(done, total)`` (the command line draws
a bar with an ETA from it); engines never print.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator

__all__ = ["Interrupt", "LateInterrupt", "ctrl_c_outside", "Progress", "threads", "is_interrupt", "stopped_a_batch",
           "run_batches", "BATCH_SECONDS"]

#: a progress callback: (work done, total work), in any unit
Progress = Callable[[int, int], None]
#: the length a batch aims at, so that Ctrl-C is honoured quickly and a bar moves
BATCH_SECONDS = 0.5


class LateInterrupt(KeyboardInterrupt):
    """A Ctrl-C that no batch loop looked at, raised when the outermost :class:`Interrupt` exits."""


class _CtrlC:
    """One Ctrl-C, shared by every :class:`Interrupt` it reached: has a loop looked at it?"""

    seen = False


class Interrupt:
    """Context manager: Ctrl-C sets :attr:`hit` instead of raising (in the main thread only).

    Nested ones all see it: a Ctrl-C caught inside (e.g. by the batches of one hand of a
    table) also sets :attr:`hit` of every enclosing one (the table's loop over hands).  A
    second Ctrl-C restores the previous handler and raises KeyboardInterrupt at once.
    Reading :attr:`hit` as True counts as acting on the Ctrl-C; one that nobody read (it
    landed after a loop's last look) raises :class:`LateInterrupt` when the outermost
    context exits normally: a Ctrl-C is never lost between two steps of a command.
    A Ctrl-C that lands while numba compiles (or loads) a kernel calls :attr:`on_compiling`
    when it is set: the command line sets it to exit at once.  Elsewhere (a worker thread)
    Ctrl-C behaves as usual.
    """

    _active: list["Interrupt"] = []
    #: called (after the flags are set) by a Ctrl-C that lands in numba's compiler: Python code
    #: that runs for seconds on a fresh install, before any batch loop can look at the flag.
    #: An exception raised there can be swallowed by one of numba's callbacks or leave a kernel
    #: half built, so the library waits for the compilation; the command line exits at once.
    on_compiling: Callable[[], None] | None = None

    def __init__(self) -> None:
        self._ctrl_c: _CtrlC | None = None
        self._old: Any = None
        self._installed = False

    @property
    def hit(self) -> bool:
        """True once Ctrl-C was pressed (reading it as True marks the Ctrl-C as acted on)."""
        if self._ctrl_c is None:
            return False
        self._ctrl_c.seen = True
        return True

    def __enter__(self) -> "Interrupt":
        if threading.current_thread() is threading.main_thread():
            try:
                self._old = signal.signal(signal.SIGINT, self._handle)
                self._installed = True
                # already stopping: start stopped
                self._ctrl_c = next((c._ctrl_c for c in Interrupt._active if c._ctrl_c is not None), None)
                Interrupt._active.append(self)
            except (ValueError, OSError):  # pragma: no cover - no signals here
                self._old = None
        return self

    def _handle(self, signum, frame) -> None:
        if self._ctrl_c is not None:
            signal.signal(signal.SIGINT, self._old if self._old is not None else signal.default_int_handler)
            raise KeyboardInterrupt
        ctrl_c = _CtrlC()
        for ctx in Interrupt._active:
            ctx._ctrl_c = ctrl_c
        if Interrupt.on_compiling is not None and _in_numba(frame):
            Interrupt.on_compiling()

    def __exit__(self, exc_type, *exc) -> None:
        if self._installed:
            signal.signal(signal.SIGINT, self._old)
            if self in Interrupt._active:
                Interrupt._active.remove(self)
            if exc_type is None and not Interrupt._active and self._ctrl_c is not None and not self._ctrl_c.seen:
                raise LateInterrupt


def ctrl_c_outside(signum, frame) -> None:
    """The Ctrl-C handler of a process while no :class:`Interrupt` is active (the command line
    installs it): :attr:`Interrupt.on_compiling` where the Ctrl-C lands in numba's compiler
    (there a KeyboardInterrupt is swallowed by one of numba's callbacks, and the compilation
    goes on), KeyboardInterrupt elsewhere, as Python's own handler does."""
    if Interrupt.on_compiling is not None and _in_numba(frame):
        Interrupt.on_compiling()
    raise KeyboardInterrupt


#: numba's modules that compile or load a kernel (the Python code of a first call)
_COMPILING = ("numba.core.compiler", "numba.core.compiler_machinery", "numba.core.typed_passes",
              "numba.core.untyped_passes", "numba.core.typeinfer", "numba.core.lowering", "numba.core.codegen",
              "numba.core.caching", "numba.core.dispatcher", "numba.core.registry", "numba.parfors", "numba.np.ufunc",
              "llvmlite.")


def _in_numba(frame: Any) -> bool:
    """True when the main thread runs numba's compiler: compiling or loading a kernel (a
    running kernel is native code, and a signal handler runs only once it has returned).
    Not the small helpers a running kernel calls back into (``numba.core.serialize``
    unpickles a kernel's constants on every call): a Ctrl-C that lands there is an ordinary
    one, for the batch loop to act on."""
    while frame is not None:
        if str(frame.f_globals.get("__name__", "")).startswith(_COMPILING):
            return True
        frame = frame.f_back
    return False


def stopped_a_batch(err: BaseException) -> bool:
    """True for an interrupt that a batch loop turns into a partial result (also when numba
    wrapped it in a SystemError); False for a :class:`LateInterrupt`, which must reach the caller."""
    return not isinstance(err, LateInterrupt) and is_interrupt(err)


def is_interrupt(err: BaseException | None) -> bool:
    """True for a KeyboardInterrupt, also when numba wrapped it in a SystemError."""
    seen = 0
    while err is not None and seen < 10:
        if isinstance(err, KeyboardInterrupt):
            return True
        err = err.__cause__ or err.__context__
        seen += 1
    return False


@contextmanager
def threads(n: int | None, *, dynamic: bool = False) -> Iterator[None]:
    """Run the enclosed kernels on ``n`` numba threads (None: all of them).

    ``dynamic``: threads take the chunks of a parallel loop one at a time, so a thread
    slowed down by other work on the machine does not hold the others up.  The engines
    whose loops run over a few coarse chunks (exact, Monte Carlo, mus phase, jokers) ask
    for it themselves; loops over many small iterations (the betting solvers) must not
    have it, since scheduling every iteration apart costs more than the work.  Results
    never depend on either setting.
    """
    import numba

    old_n = numba.get_num_threads()
    old_chunk = numba.get_parallel_chunksize()
    try:
        if n is not None:
            numba.set_num_threads(n)
        if dynamic:
            numba.set_parallel_chunksize(1)
        yield
    finally:
        numba.set_parallel_chunksize(old_chunk)
        numba.set_num_threads(old_n)


def run_batches(n_chunks: int, batch: int, step: Callable[[int, int], None], *, n_threads: int | None = None,
                progress: Callable[[int], None] | None = None) -> tuple[int, bool]:
    """Run ``step(start, k)`` on consecutive batches of ``k <= batch`` chunks out of
    ``n_chunks``, on ``n_threads`` numba threads; ``progress(chunks done)`` after each batch.

    Ctrl-C between batches stops the loop: returns (chunks done, partial).  An interrupt
    before the first batch is done raises KeyboardInterrupt (there is nothing to return);
    one during the last batch, when no loop encloses this one, raises :class:`LateInterrupt`.
    """
    done = 0
    partial = False
    try:
        with Interrupt() as ctrl_c, threads(n_threads, dynamic=True):
            while done < n_chunks:
                if ctrl_c.hit:
                    partial = True
                    break
                k = min(batch, n_chunks - done)
                step(done, k)
                done += k
                if progress is not None:
                    progress(done)
    except (KeyboardInterrupt, SystemError) as err:
        if not stopped_a_batch(err):
            raise
        partial = True
    if partial and done == 0:
        raise KeyboardInterrupt
    return done, partial
