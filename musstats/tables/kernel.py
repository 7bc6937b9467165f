"""Kernel-ready arrays derived from the hand tables (numpy only, no numba)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from math import comb

import numpy as np

from musstats.tables.hands import hand_tables
from musstats.rules.variant import Variant

__all__ = ["KernelTables", "kernel_tables", "lance_table"]


@dataclass(frozen=True, eq=False)
class KernelTables:
    """Contiguous arrays the numba kernels take as arguments."""

    key: np.ndarray  # int32 [5, H]
    value: np.ndarray  # int64 [5, H]
    counts: np.ndarray  # int64 [H, K]
    nz_cls: np.ndarray  # int64 [H, 4] classes present in the hand
    nz_cnt: np.ndarray  # int64 [H, 4] how many of each
    nnz: np.ndarray  # int64 [H]
    binom: np.ndarray  # int64 [9, 5]  C(n, k)
    binom_big: np.ndarray  # int64 [64, 9] C(n, k)
    idx4: np.ndarray  # int64 [K**4]


@lru_cache(maxsize=None)
def kernel_tables(variant: Variant = Variant()) -> KernelTables:
    """Arrays for the kernels of one variant (built once)."""
    t = hand_tables(variant)
    h, k = t.counts.shape
    nz_cls = np.zeros((h, 4), np.int64)
    nz_cnt = np.zeros((h, 4), np.int64)
    nnz = np.zeros(h, np.int64)
    for i in range(h):
        present = np.nonzero(t.counts[i])[0]
        nnz[i] = len(present)
        nz_cls[i, : len(present)] = present
        nz_cnt[i, : len(present)] = t.counts[i, present]
    binom = np.array([[comb(n, j) for j in range(5)] for n in range(9)], np.int64)
    binom_big = np.array([[comb(n, j) for j in range(9)] for n in range(64)], np.int64)
    return KernelTables(
        key=np.ascontiguousarray(t.key),
        value=t.value.astype(np.int64),
        counts=t.counts.astype(np.int64),
        nz_cls=nz_cls,
        nz_cnt=nz_cnt,
        nnz=nnz,
        binom=binom,
        binom_big=binom_big,
        idx4=t.idx4.astype(np.int64),
    )


@lru_cache(maxsize=None)
def lance_table(variant: Variant = Variant()) -> np.ndarray:
    """int64 [H, 8] of the plain hands (``hand_tables(variant.lance_rules)``): the five lance
    keys, the pares value, the juego value and a zero -- the table of
    :mod:`musstats._kernels.lances`."""
    p = hand_tables(variant.lance_rules)
    tab = np.zeros((p.n_hands, 8), np.int64)
    tab[:, :5] = p.key.T
    tab[:, 5] = p.value[2]
    tab[:, 6] = p.value[3]
    tab.setflags(write=False)
    return tab
