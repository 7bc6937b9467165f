"""The Dask path gives exactly what the local path gives (an in-process LocalCluster)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("dask.distributed")

from dask.distributed import LocalCluster  # noqa: E402

from musstats.analysis.discard_table import build_table  # noqa: E402
from musstats.analysis.game import game_model  # noqa: E402
from musstats.analysis.table import strategy_table  # noqa: E402
from musstats.base.errors import MusError  # noqa: E402
from musstats.engines.distributed import connect, dask_runner, local_runner  # noqa: E402
from musstats.rules.variant import Variant  # noqa: E402


@pytest.fixture(scope="module")
def cluster():
    with LocalCluster(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None) as c:
        yield c


def test_table_dask_equals_local(cluster):
    model = game_model(Variant(), deals=100_000, seed=4, cache=False)
    kw = dict(hands="R R 7 A, C C S 4, 5 5 5 A", trials=3000, seed=9, model=model)
    runner = dask_runner(cluster.scheduler_address)
    try:
        remote = strategy_table("8-reyes", runner=runner, **kw).to_frame()
    finally:
        runner.close()
    local = strategy_table("8-reyes", **kw).to_frame()
    assert remote.attrs["runner"].startswith("dask") and local.attrs["runner"] == "local"
    assert len(local) == 3 * 4
    pd.testing.assert_frame_equal(remote, local, check_exact=True)


def test_table_dask_progress(cluster):
    model = game_model(Variant(), deals=50_000, seed=4, cache=False)
    ticks = []
    runner = dask_runner(cluster.scheduler_address)
    try:
        df = strategy_table("8-reyes", seats="third", hands=3, trials=200, model=model, runner=runner,
                            progress=lambda done, total: ticks.append((done, total))).to_frame()
    finally:
        runner.close()
    # progress(done, total) as each hand finishes
    assert len(df) == 3 and ticks == [(1, 3), (2, 3), (3, 3)]


def test_local_runner_is_the_runner_protocol():
    ticks = []
    out = local_runner(lambda item, job: (item, job), [3, 1, 2], "job", lambda done, total: ticks.append((done, total)))
    assert out == [(3, "job"), (1, "job"), (2, "job")] and ticks == [(1, 3), (2, 3), (3, 3)]


def test_build_table_dask_equals_local(cluster):
    kw = dict(hands=[0, 37, 200], seats=(0, 3), trials=3000, max_iter=3, seed=17)
    runner = dask_runner(cluster.scheduler_address)
    try:
        remote = build_table(Variant(), runner=runner, **kw)
    finally:
        runner.close()
    local = build_table(Variant(), **kw)
    assert np.array_equal(remote.policy, local.policy)
    assert [(s.changed, s.mean_gain) for s in remote.sweeps] == [(s.changed, s.mean_gain) for s in local.sweeps]


def test_bad_scheduler_is_one_line_error():
    with pytest.raises(MusError, match="cannot connect to the Dask scheduler"):
        connect("tcp://127.0.0.1:9", timeout=1)
    with pytest.raises(MusError, match="scheduler address"):
        connect("")


def test_betting_solves_on_dask_equal_local(cluster):
    from musstats.engines.betting.runner import solve_many
    from musstats.engines.betting.specs import Spec

    specs = [Spec(lance="pares", pattern=0b0011, iterations=15, batch=32, seed=3),
             Spec(lance="juego", pattern=0b1001, iterations=15, batch=32, seed=4)]
    job = {"eval_deals": 1000}
    runner = dask_runner(cluster.scheduler_address)
    ticks = []
    try:
        remote = solve_many(specs, runner, job=job, use_cache=False,
                            progress=lambda done, total: ticks.append((done, total)))
    finally:
        runner.close()
    local = solve_many(specs, job=job, use_cache=False)
    assert [s.spec for s in remote] == specs and ticks[-1] == (2, 2)
    for r, loc in zip(remote, local):
        assert np.array_equal(r.sigma, loc.sigma)  # same seeds: the same strategies
        assert r.exploit["nashconv"] == loc.exploit["nashconv"]
