"""The shared kernel pieces: the generator, the seeding, the lance resolution, the cache stamp.

Expected values come from published test vectors, from plain-Python versions written here
from the algorithms' definitions, or from the rules text (tests/naive.py).
"""

from __future__ import annotations

from pathlib import Path

import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as hst

import naive
from helpers import ROOT
from musstats.engines.random import seed_states

#: xoshiro256** from the state (1, 2, 3, 4): the test vector of the rand_xoshiro crate
#: (Rust), which follows the reference C code of Blackman and Vigna.
XOSHIRO_1234 = [11520, 0, 1509978240, 1215971899390074240, 1216172134540287360, 607988272756665600,
                16172922978634559625, 8476171486693032832, 10595114339597558777, 2904607092377533576]
_next_py = naive.xoshiro_next
_bounded_py = naive.bounded


def test_generator_matches_the_published_vectors_and_plain_python():
    from numba import njit

    from musstats._kernels.rng import next64

    @njit
    def run(st, k):
        out = np.empty(k, np.uint64)
        for i in range(k):
            out[i] = next64(st)
        return out

    st = np.array([1, 2, 3, 4], np.uint64)
    assert [int(x) for x in run(st.copy(), 10)] == XOSHIRO_1234
    ref = [1, 2, 3, 4]
    assert [_next_py(ref) for _ in range(10)] == XOSHIRO_1234
    seed = [int(x) for x in seed_states(7, 1)[0]]
    got = run(np.array(seed, np.uint64), 2000)
    assert [int(x) for x in got] == [_next_py(seed) for _ in range(2000)]


@pytest.mark.parametrize("bits", [16, 32])
def test_bounded_draws_match_plain_python(bits):
    from numba import njit

    from musstats._kernels.rng import M16, M32, bounded, bounded16, next64

    @njit
    def draws16(st, bounds):
        out = np.empty(bounds.shape[0], np.int64)
        for i in range(bounds.shape[0]):
            out[i] = bounded16(next64(st) & M16, np.uint64(bounds[i]), st)
        return out

    @njit
    def draws32(st, bounds):
        out = np.empty(bounds.shape[0], np.int64)
        for i in range(bounds.shape[0]):
            out[i] = bounded(next64(st) & M32, bounds[i], st)
        return out

    # bounds near 2**bits / k make the rejection branch frequent
    bounds = np.array([1, 2, 3, 5, 7, 36, 40, 1000, 21845, 32769, 65535] * 300, np.int64)
    if bits == 32:
        bounds = np.concatenate([bounds, np.array([2**31 + 1, 3 * 2**30, 2**32 - 1] * 300, np.int64)])
    st = seed_states(11, 1)[0]
    got = (draws16 if bits == 16 else draws32)(st.copy(), bounds)
    s = [int(x) for x in st]
    want = [_bounded_py(_next_py(s) & ((1 << bits) - 1), int(n), bits, s) for n in bounds]
    assert got.tolist() == want
    assert ((got >= 0) & (got < bounds)).all()


def test_bounded16_is_exactly_uniform_over_its_accepted_words():
    # every 16-bit word x either maps to a value or is rejected; the accepted words must
    # spread over [0, n) exactly evenly (Lemire 2019, "Fast random integer generation")
    for n in (3, 7, 40, 1000, 40000):
        counts = np.zeros(n, np.int64)
        thresh = (65536 - n) % n
        for x in range(65536):
            m = x * n
            if (m & 0xFFFF) >= thresh:
                counts[m >> 16] += 1
        assert counts.min() == counts.max()


def test_seed_states_are_the_seedsequence_children_and_never_all_zero(monkeypatch):
    kids = np.random.SeedSequence(123).spawn(3)
    got = seed_states(123, 3)
    for i, kid in enumerate(kids):
        assert np.array_equal(got[i], kid.generate_state(4, np.uint64))
    assert np.array_equal(seed_states(123, 1, start=2)[0], got[2])
    assert np.array_equal(seed_states(123, 1, key=(5,))[0],
                          np.random.SeedSequence(123, spawn_key=(5, 0)).generate_state(4, np.uint64))

    import musstats._kernels.seeding as K

    monkeypatch.setattr(K, "spawn_states", lambda prefix, start, out: out.fill(0))
    assert seed_states(1, 2).tolist() == [[1, 0, 0, 0], [1, 0, 0, 0]]


@settings(max_examples=150, deadline=None)
@given(seed=hst.integers(0, 2**96), key=hst.lists(hst.integers(0, 2**40), max_size=4),
       start=hst.integers(0, 2**33), count=hst.integers(1, 4))
def test_seed_states_kernel_equals_numpy_seedsequence(seed, key, start, count):
    # the reference is NumPy's own SeedSequence, one object per chunk
    got = seed_states(seed, count, start, tuple(key))
    for i in range(count):
        want = np.random.SeedSequence(seed, spawn_key=tuple(key) + (start + i,)).generate_state(4, np.uint64)
        assert np.array_equal(got[i], want)


def _random_deals(n: int, variant, seed: int) -> np.ndarray:
    from musstats.tables.hands import hand_tables

    t = hand_tables(variant)
    deck = np.repeat(np.arange(t.n_classes), t.class_count)
    rng = np.random.default_rng(seed)
    out = np.empty((n, 4), np.int64)
    for i in range(n):
        d = rng.permutation(deck)[:16].reshape(4, 4)
        out[i] = [t.index_of_counts(np.bincount(h, minlength=t.n_classes)) for h in d]
    return out


def test_resolution_fast_path_equals_the_general_one_and_the_rules_text():
    """The unrolled four-seat path, the loop over any seats, and tests/naive.py agree."""
    from numba import njit

    from musstats._kernels.lances import resolve, resolve_any, winner_seat
    from musstats.rules.variant import Variant
    from musstats.tables.hands import hand_tables
    from musstats.tables.kernel import lance_table

    @njit
    def both(deals, team, tab):
        out = np.empty((deals.shape[0], 2, 9), np.int64)
        for i in range(deals.shape[0]):
            for r, res in enumerate((resolve(deals[i], team, tab), resolve_any(deals[i], team, tab))):
                bg, bc, bp, bj, bu, cp, cj, vp, vj = res
                out[i, r, 0] = bg
                out[i, r, 1] = bc
                out[i, r, 2] = bp
                out[i, r, 3] = bj
                out[i, r, 4] = bu
                out[i, r, 5] = cp
                out[i, r, 6] = cj
                out[i, r, 7] = vp
                out[i, r, 8] = vj
        return out

    v = Variant()
    t = hand_tables(v)
    deals = _random_deals(3000, v, 4)
    res = both(deals, np.array([0, 1, 0, 1], np.int64), lance_table(v))
    np.testing.assert_array_equal(res[:, 0], res[:, 1])
    for i in range(0, 3000, 7):
        kinds = [t.labels[h].split() for h in deals[i]]
        want = naive.lance_winners(kinds, "8-reyes")
        got = res[i, 0]
        for li, lance in enumerate(("grande", "chica", "pares", "juego", "punto")):
            held = got[li] >= 8 if lance in ("pares", "juego") else (lance != "punto" or got[3] < 8)
            assert (winner_seat(got[li]) if held else None) == want[lance], (lance, kinds)


def test_individual_teams_resolve_each_seat_for_himself():
    from numba import njit

    from musstats._kernels.lances import resolve
    from musstats.rules.cards import parse_hand
    from musstats.rules.variant import Variant
    from musstats.tables.hands import hand_tables
    from musstats.tables.kernel import lance_table

    @njit
    def run(hs, team, tab):
        return resolve(hs, team, tab)

    t = hand_tables(Variant())
    # seat 0 R R 5 4 (par of reyes), seat 1 C C 7 A (par of caballos), seat 2 R R R 4 (medias)
    hs = np.array([t.index_of(parse_hand(h)) for h in ("R R 5 4", "C C 7 A", "R R R 4")], np.int64)
    tab = lance_table(Variant())
    # partners 0 and 2 against 1: pares contested, won by seat 2 whose team holds par 1 + medias 2
    bg, bc, bp, bj, bu, cp, cj, vp, vj = run(hs, np.array([0, 1, 0], np.int64), tab)
    assert 7 - (bp & 7) == 2 and cp and vp == 3
    # every player for himself: seat 2 takes only his own medias
    bg, bc, bp, bj, bu, cp, cj, vp, vj = run(hs, np.array([0, 1, 2], np.int64), tab)
    assert 7 - (bp & 7) == 2 and cp and vp == 2
    # with one player left out, seat 0 and seat 2 alone (the same team): not contested
    hs2 = hs.copy()
    hs2[1] = -1
    assert not run(hs2, np.array([0, 1, 0], np.int64), tab)[5]


def test_kernel_cache_is_cleared_when_a_stamp_changes(tmp_path, monkeypatch):
    import json

    import musstats._kernels as k

    monkeypatch.setattr(k, "cache_dir", lambda: tmp_path)
    for name in ("rng.next64-28.py311.nbi", "lances.resolve-40.py311.1.nbc", "mc.mc_counts-1.py311.nbi",
                 "other.f-1.py311.nbi"):
        (tmp_path / name).write_text("x")
    stamps = dict(k._STAMPS)
    old = dict(stamps, rng="an old stamp", lances="an old stamp")  # rng and lances changed
    (tmp_path / "musstats-kernels.stamp").write_text(json.dumps(old))
    k._check_stamp()
    # the changed modules' kernels are gone; the others (and foreign files) are kept
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mc.mc_counts-1.py311.nbi", "musstats-kernels.stamp",
                                                          "other.f-1.py311.nbi"]
    assert json.loads((tmp_path / "musstats-kernels.stamp").read_text()) == stamps
    k._check_stamp()  # same stamps: the cache is kept
    assert (tmp_path / "mc.mc_counts-1.py311.nbi").exists()


def test_a_module_stamp_covers_the_kernel_modules_it_imports(tmp_path, monkeypatch):
    import musstats._kernels as k

    here = Path(k.__file__).parent
    base = k.module_stamps()
    # mc imports rng and lances: a change in rng changes mc's stamp, not exact's (exact does not use rng)
    src = (here / "rng.py").read_bytes()
    monkeypatch.setattr(Path, "read_bytes", lambda self: src + b"# edit" if self.name == "rng.py" else
                        open(self, "rb").read())
    changed = k.module_stamps()
    assert changed["rng"] != base["rng"] and changed["mc"] != base["mc"] and changed["mus"] != base["mus"]
    assert changed["exact"] == base["exact"] and changed["lances"] == base["lances"]


def test_every_kernel_lives_in_the_kernels_folder():
    import musstats._kernels as k

    here = Path(k.__file__).parent
    pkg = here.parent
    outside = [str(p.relative_to(pkg)) for p in pkg.rglob("*.py")
               if p.parent != here and ("@njit" in p.read_text() or "prange" in p.read_text())]
    assert outside == []


_KERNEL_CHILD = """
from musstats.analysis.game import game_model
from musstats.analysis.odds import odds
from musstats.analysis.discard import mus
game_model("8-reyes", deals=20_000, seed=5, cache=False)
game_model("ten-kings", deals=5_000, seed=5, cache=False)
odds("R R 3 A", "mano")
odds("R C 7 A", "postre", method="mc", trials=20_000, seed=1)
mus("R R 7 A", "mano", trials=2_000, seed=1)
import sys
print(" ".join(sorted(m.split(".")[-1] for m in sys.modules if m.startswith("musstats._kernels."))))
"""


def _compiled_files(pkg, modules=None):
    """{path: (size, mtime)} of the numba cache files under the package folder (of ``modules``
    of musstats/_kernels only, when given: other work on the machine may compile other kernels)."""
    return {str(p.relative_to(pkg)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in pkg.rglob("*") if p.suffix in (".nbi", ".nbc")
            and (modules is None or p.name.split(".")[0] in modules)}


def test_no_process_writes_new_compiled_kernels():
    # A kernel closing over a dispatcher would write a new cache file in every process.  Kernels are module-level functions of musstats/_kernels only: once they
    # are compiled, another process that runs the same work loads them and writes nothing.
    import musstats._kernels as k

    pkg = ROOT / "musstats"
    env = dict(os.environ, NUMBA_NUM_THREADS="1")

    def run():
        res = subprocess.run([sys.executable, "-c", _KERNEL_CHILD], cwd=ROOT, env=env, capture_output=True,
                             text=True, timeout=600)
        assert res.returncode == 0, res.stderr
        return set(res.stdout.split())

    stamp = k.cache_dir() / "musstats-kernels.stamp"
    for attempt in range(2):  # a kernel source edited meanwhile (a new stamp) recompiles everything once
        used = run()
        before, stamp_before = _compiled_files(pkg, used), stamp.read_text()
        run()
        after = _compiled_files(pkg, used)
        if stamp.read_text() == stamp_before:
            break
    assert {"exact", "mc", "mus", "outcomes", "jokers"} <= used
    kernel_cache = str(k.cache_dir().relative_to(pkg))
    outside = [p for p in _compiled_files(pkg) if os.path.dirname(p) != kernel_cache]
    assert outside == []  # every compiled kernel is a kernel of musstats/_kernels
    assert before and after == before
