import contextlib
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))


def pytest_configure(config):
    # `make test` (and CI) run everything; `pytest -m "not slow"` skips the live runs of the
    # slow references (tests/naive.py, whose results the fast tests read from tests/golden/),
    # the Ctrl-C harness and the long solves.
    config.addinivalue_line("markers", "slow: a long run: a live slow reference of tests/naive.py, the "
                                       "Ctrl-C harness, a long solve (deselect with -m \"not slow\")")


@pytest.fixture(autouse=True, scope="session")
def _musstats_cache(tmp_path_factory):
    """Keep the disk cache of the tests out of the user's cache folder: one folder for the
    session, set before any fixture (of any scope) computes something it caches."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MUSSTATS_CACHE", str(tmp_path_factory.getbasetemp() / "musstats-cache"))
        yield


@pytest.fixture(autouse=True, scope="session")
def _one_thread_per_worker():
    """Where pytest-xdist runs the tests in several processes (``make test``: one per core), each
    runs its kernels on one numba thread: two processes of two-thread kernels on two cores wait
    at every barrier (``one_numba_thread``).  A test that asks for more threads still gets them.
    (Not through NUMBA_NUM_THREADS: numba reads it again when it compiles, and refuses a value
    other than its pool's once the pool has started.)"""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        yield
        return
    with _numba_threads(1):
        yield


@pytest.fixture(scope="session")
def cache_folder(tmp_path_factory):
    """The game-model disk cache folder every test uses (see ``_musstats_cache``)."""
    return tmp_path_factory.getbasetemp() / "musstats-cache"


@pytest.fixture(scope="module")
def one_numba_thread():
    """The kernels of a module's tests run on one numba thread unless a test asks for more: on a
    machine with other work, a kernel on two threads waits at every barrier (test_table and
    test_discard on the busy 2-core machine: 66 s on one thread, over 800 s on two).  A module
    asks for it with ``pytestmark = pytest.mark.usefixtures("one_numba_thread")``."""
    with _numba_threads(1):
        yield


@contextlib.contextmanager
def _numba_threads(n: int):
    """Run the kernels on ``n`` numba threads inside the block, then as before."""
    import numba

    old = numba.get_num_threads()
    numba.set_num_threads(n)
    try:
        yield
    finally:
        numba.set_num_threads(old)

