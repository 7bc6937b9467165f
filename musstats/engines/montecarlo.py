"""Monte Carlo showdown engine: sampled deals of the unseen cards, with standard errors.

Same statistics and semantics as the exact engine (``musstats.engines.exact``), for four or six
players, with dead cards and with restrictions on the other hands (``allowed``: deals
outside it are redrawn).

Reproducibility: trials are split into chunks of ``CHUNK`` deals (the last one may be
shorter); chunk ``j`` runs its own xoshiro256** generator seeded from
``numpy.random.SeedSequence(seed, spawn_key=(j,))`` (the ``j``-th child of
``SeedSequence(seed).spawn``).  Counts are integers, so the result depends only on the
seed and the number of chunks, never on the number of threads.

numba is imported only when a simulation runs.
"""

from __future__ import annotations

import math
import secrets
import signal
import sys
import threading
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable

import numpy as np

from musstats.rules.cards import Card, check_physical, parse_cards, parse_hand
from musstats.base.errors import MusError
from musstats.engines.exact import STATS
from musstats.engines.random import seed_states
from musstats.tables.hands import LANCES, hand_tables
from musstats.rules.variant import Variant

#: deals per chunk (the unit of seeding and of parallel work)
CHUNK = 1 << 16
#: trials when neither ``trials`` nor ``target_se`` is given
DEFAULT_TRIALS = 1_000_000
#: hard cap on the trials of a ``target_se`` run (whole chunks)
MAX_TRIALS = 2_000_000_000
#: chunks of the first batch (fewer with restrictions, whose cost is unknown up front)
FIRST_BATCH_CHUNKS = 16
FIRST_BATCH_CHUNKS_ALLOWED = 2
#: a batch is sized to draw about this many deals (about half a second), so that a
#: progress bar moves and Ctrl-C is honoured between batches
BATCH_ATTEMPTS = 1 << 25
#: seconds a run must last before its progress bar appears
PROGRESS_AFTER = 1.0
PLAYERS = (4, 6)
_CONTESTED = STATS.index("p_contested")
_EV = STATS.index("ev_net")
_HAS_CONTESTED = np.array([lance in ("pares", "juego") for lance in LANCES])


@dataclass
class McResult:
    """Monte Carlo estimates for one seat.

    ``mean`` and ``se`` are float [5 lances, 5 stats] in ``LANCES`` x ``STATS`` order;
    ``p_contested`` is NaN for grande, chica and punto.  ``trials`` counts accepted deals,
    ``rejected`` the deals redrawn because of ``allowed``.  ``seed`` reproduces the run
    (it is the drawn one when none was given).  ``partial`` is True when the run stopped
    before its goal (interrupted, or ``target_se`` not reached within ``MAX_TRIALS``).
    """

    mean: np.ndarray
    se: np.ndarray
    trials: int
    seed: int
    partial: bool
    rejected: int = 0

    @property
    def max_se(self) -> float:
        """Largest standard error over every lance and stat that applies."""
        return float(np.nanmax(self.se))


# --------------------------------------------------------------------------- validation

def _whole(x, what: str) -> int:
    if isinstance(x, bool):
        raise MusError(f"{what} must be a whole number, got {x!r}")
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)) and math.isfinite(x) and float(x).is_integer():
        return int(x)
    raise MusError(f"{what} must be a whole number, got {x!r}")


def _check_players(players) -> int:
    if isinstance(players, bool) or players not in PLAYERS:
        raise MusError(f"players must be 4 or 6, got {players!r}")
    return int(players)


def _check_seat(seat, players: int) -> int:
    try:
        s = _whole(seat, "seat")
    except MusError:
        s = -1
    if not 0 <= s < players:
        raise MusError(f"seat must be 0..{players - 1} (0 = mano, {players - 1} = postre) "
                       f"with {players} players, got {seat!r}")
    return s


def _check_budget(trials, target_se) -> tuple[int | None, float | None]:
    if trials is not None and target_se is not None:
        raise MusError("give either trials or target_se, not both")
    if target_se is not None:
        if isinstance(target_se, bool) or not isinstance(target_se, (int, float, np.integer, np.floating)):
            raise MusError(f"target_se must be a number in (0, 0.5), got {target_se!r}")
        x = float(target_se)
        if not (0.0 < x < 0.5):
            raise MusError(f"target_se must be in (0, 0.5) exclusive, got {target_se!r}")
        return None, x
    if trials is None:
        return DEFAULT_TRIALS, None
    n = _whole(trials, "trials")
    if n < 1:
        raise MusError(f"trials must be at least 1, got {trials!r}")
    return n, None


def check_seed(seed) -> int:
    """The seed to use: fresh entropy for None, else a whole number >= 0 (MusError otherwise)."""
    if seed is None:
        return secrets.randbits(63)
    s = _whole(seed, "seed")
    if s < 0:
        raise MusError(f"seed must be a whole number >= 0, got {seed!r}")
    return s


def _check_threads(threads) -> int | None:
    if threads is None:
        return None
    import numba

    n = _whole(threads, "threads")
    top = int(numba.config.NUMBA_NUM_THREADS)
    if not 1 <= n <= top:
        raise MusError(f"threads must be 1..{top} on this machine (NUMBA_NUM_THREADS), got {threads!r}")
    return n


def _check_allowed(allowed, players: int, seat: int, n_hands: int, counts: np.ndarray,
                   rem: np.ndarray) -> np.ndarray | None:
    if allowed is None:
        return None
    a = np.asarray(allowed)
    if a.shape != (players, n_hands) or not (a.dtype == np.bool_ or np.issubdtype(a.dtype, np.integer)):
        raise MusError(f"allowed must be a boolean array of shape ({players}, {n_hands}) "
                       f"(seats x hands of this variant), got {a.dtype} {a.shape}")
    a = np.ascontiguousarray(a.astype(np.bool_))
    fits = (counts <= rem[None, :]).all(axis=1)  # hands the unseen cards can still make
    for q in range(players):
        if q != seat and not (a[q] & fits).any():
            raise MusError(f"conditions no deal can satisfy: no allowed hand for seat {q} "
                           "can be made from the unseen cards")
    return a


# --------------------------------------------------------------------------- engine

@lru_cache(maxsize=None)
def _packed(variant: Variant) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Kernel tables of a variant: (lance table, class weights, hand index by weight sum)."""
    from musstats._kernels.mc import sum_index
    from musstats.tables.kernel import lance_table

    t = hand_tables(variant)
    weights, by_sum = sum_index(t.cls4, t.n_classes)
    return lance_table(variant), weights, by_sum


def _run_batch(job: dict, start: int, chunk_trials: np.ndarray) -> tuple[np.ndarray, int, bool]:
    """Run chunks ``start ..`` with the given trial counts; (acc [5, 6], attempts, hopeless)."""
    import numba

    from musstats._kernels.mc import mc_counts

    seeds = seed_states(job["seed"], len(chunk_trials), start)
    # threads take chunks one at a time (dynamic scheduling): a thread slowed down by other
    # work on the machine does not hold the batch up; results do not depend on it
    old = numba.set_parallel_chunksize(1)
    try:
        team = np.arange(job["players"], dtype=np.int64) % 2
        acc, att, hopeless = mc_counts(seeds, chunk_trials, job["stock"], job["user"], job["seat"],
                                       team, job["by_sum"], job["tab"], job["allowed"],
                                       job["use_allowed"])
    finally:
        numba.set_parallel_chunksize(old)
    return acc.sum(axis=0), int(att.sum()), bool(hopeless.any())


def _estimates(acc: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Means and standard errors [5, 5] from integer counts [5, 6] over ``n`` trials."""
    mean = np.full((5, 5), np.nan)
    se = np.full((5, 5), np.nan)
    if n < 1:
        return mean, se
    for li in range(5):
        for si in range(4):
            if si == _CONTESTED and not _HAS_CONTESTED[li]:
                continue
            p = int(acc[li, si]) / n
            mean[li, si] = p
            se[li, si] = math.sqrt(max(p * (1.0 - p), 0.0) / n)
        s, s2 = int(acc[li, 4]), int(acc[li, 5])
        mean[li, _EV] = s / n
        if n > 1:
            var = (n * s2 - s * s) / (n * (n - 1))  # exact integers, then one division
            se[li, _EV] = math.sqrt(max(var, 0.0) / n)
    return mean, se


class _CtrlC:
    """Turns Ctrl-C into a flag checked between batches (a KeyboardInterrupt raised while a
    numba kernel runs surfaces as a SystemError, and the batch would be lost).  A second
    Ctrl-C raises KeyboardInterrupt at once.  Only in the main thread; elsewhere Ctrl-C
    behaves as usual."""

    def __init__(self) -> None:
        self.hit = False
        self.old = None

    def __enter__(self) -> "_CtrlC":
        if threading.current_thread() is threading.main_thread():
            try:
                self.old = signal.signal(signal.SIGINT, self._handle)
            except (ValueError, OSError):  # pragma: no cover - no signals here
                self.old = None
        return self

    def _handle(self, signum, frame) -> None:
        if self.hit:
            signal.signal(signal.SIGINT, self.old)
            raise KeyboardInterrupt
        self.hit = True

    def __exit__(self, *exc) -> None:
        if self.old is not None:
            signal.signal(signal.SIGINT, self.old)


def _is_interrupt(err: BaseException) -> bool:
    """True for a KeyboardInterrupt, also when numba wrapped it in a SystemError."""
    seen = 0
    while err is not None and seen < 10:
        if isinstance(err, KeyboardInterrupt):
            return True
        err = err.__cause__ or err.__context__
        seen += 1
    return False


class _Progress:
    """A rich progress bar on stderr, shown only on a TTY once a run passes ``PROGRESS_AFTER``."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self.t0 = time.perf_counter()
        self.bar = None
        self.task = None

    def update(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self.bar is None:
            if time.perf_counter() - self.t0 < PROGRESS_AFTER:
                return
            from rich.console import Console
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                       TimeElapsedColumn, TimeRemainingColumn)

            self.bar = Progress(TextColumn("deals"), BarColumn(), MofNCompleteColumn(),
                                TimeElapsedColumn(), TimeRemainingColumn(),
                                console=Console(stderr=True), transient=True)
            self.bar.start()
            self.task = self.bar.add_task("deals", total=total)
        self.bar.update(self.task, completed=done, total=max(total, done))

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


def simulate(hand: list[Card], seat: int, variant: Variant = Variant(), *, dead: Iterable[Card] = (),
             trials: int | None = None, target_se: float | None = None, seed: int | None = None,
             threads: int | None = None, players: int = 4, allowed: np.ndarray | None = None,
             progress: bool = False) -> McResult:
    """Monte Carlo odds of every lance for ``hand`` at ``seat`` (0 = mano).

    ``dead``: cards known to be out of play.  ``trials``: fixed number of deals (default
    1,000,000); or ``target_se``: run batches until every standard error is below it
    (at most ``MAX_TRIALS`` deals; ``partial`` if that cap stops the run).  ``seed``:
    reproducible results (bit-identical for any thread count); without one a fresh
    seed is drawn and reported in the result.  ``threads``: numba threads for this run.
    ``players``: 4 or 6 (teams are the even and the odd seats).  ``allowed``: bool
    [players, H] by absolute seat; deals giving another seat a hand outside its row are
    redrawn (the user's own row is ignored).  ``progress``: a progress bar on stderr for
    runs longer than about a second.  Ctrl-C between batches returns the deals done so
    far with ``partial=True``.
    """
    if not isinstance(variant, Variant):
        raise MusError(f"variant must be a musstats Variant, got {type(variant).__name__}")
    players = _check_players(players)
    seat = _check_seat(seat, players)
    hand_cards = parse_hand(hand)
    dead_cards = parse_cards(dead) if (isinstance(dead, str) or dead) else []
    check_physical(hand_cards + dead_cards, "hand and dead cards")
    t = hand_tables(variant)
    rem = t.remaining(hand_cards + dead_cards)
    n_stock = int(rem.sum())
    need = 4 * (players - 1)
    if n_stock < need:
        raise MusError(f"{len(dead_cards)} dead cards leave {n_stock} unseen cards, but "
                       f"{players - 1} other hands need {need}")
    fixed, target = _check_budget(trials, target_se)
    seed = check_seed(seed)
    n_threads = _check_threads(threads)
    allowed_arr = _check_allowed(allowed, players, seat, t.n_hands, t.counts, rem)

    tab, weights, by_sum = _packed(variant)
    job = {
        "seed": seed,
        "stock": weights[np.repeat(np.arange(t.n_classes), rem)],
        "user": t.index_of(hand_cards),
        "seat": seat,
        "players": players,
        "by_sum": by_sum,
        "tab": tab,
        "allowed": allowed_arr if allowed_arr is not None else np.ones((players, 1), np.bool_),
        "use_allowed": allowed_arr is not None,
    }
    first = FIRST_BATCH_CHUNKS_ALLOWED if allowed_arr is not None else FIRST_BATCH_CHUNKS
    max_chunks = MAX_TRIALS // CHUNK

    import numba

    old_threads = numba.get_num_threads()
    if n_threads is not None:
        numba.set_num_threads(n_threads)
    bar = _Progress(progress)
    # the running state is replaced in one assignment, so an interrupt never half-applies it
    state = (np.zeros((5, 6), np.int64), 0, 0, 0)  # acc, trials, attempts, chunks done
    partial = False
    try:
        with _CtrlC() as ctrl_c:
            while True:
                acc, n, att, done = state
                rate = n / att if att else 1.0  # acceptance so far (deterministic)
                cap = max(1, int(BATCH_ATTEMPTS * rate) // CHUNK) if done else first
                if fixed is not None:
                    total_chunks = -(-fixed // CHUNK)
                    if done >= total_chunks:
                        break
                    k = min(cap, total_chunks - done)
                    sizes = np.minimum(CHUNK, fixed - CHUNK * np.arange(done, done + k, dtype=np.int64))
                    goal = fixed
                else:
                    if done:
                        worst = float(np.nanmax(_estimates(acc, n)[1]))
                        if worst < target:
                            break
                        if done >= max_chunks:
                            partial = True
                            break
                        need_n = n * (worst / target) ** 2
                        k = min(cap, max(1, math.ceil(need_n / CHUNK) - done), max_chunks - done)
                        goal = max(int(need_n), n + CHUNK)
                    else:
                        k = cap
                        goal = k * CHUNK
                    sizes = np.full(k, CHUNK, np.int64)
                if ctrl_c.hit:  # Ctrl-C during the last batch: stop with what is done
                    if n == 0:
                        raise KeyboardInterrupt
                    partial = True
                    break
                b_acc, b_att, hopeless = _run_batch(job, done, sizes)
                if hopeless:
                    from musstats._kernels.mc import HOPELESS_ATTEMPTS

                    raise MusError(f"conditions no deal can satisfy: none of {HOPELESS_ATTEMPTS:,} "
                                   "random deals met the restrictions on the other hands")
                state = (acc + b_acc, n + int(sizes.sum()), att + b_att, done + k)
                bar.update(state[1], goal)
    except (KeyboardInterrupt, SystemError) as err:
        if not _is_interrupt(err):
            raise
        if state[1] == 0:
            raise KeyboardInterrupt from None
        partial = True
    finally:
        bar.close()
        if n_threads is not None:
            numba.set_num_threads(old_threads)
    acc, n, att, _ = state
    mean, se = _estimates(acc, n)
    return McResult(mean=mean, se=se, trials=n, seed=seed, partial=partial, rejected=att - n)
