"""The one estimator: means and standard errors from the integer counts of the kernels.

Monte Carlo kernels count in integers (how often an event happened; sums and sums of
squares of whole stones; sums of products for covariances), so that results do not
depend on the order of the chunks.  The estimates are formed here once, in exact
integer arithmetic until the final division.
"""

from __future__ import annotations

import numpy as np

__all__ = ["proportion", "mean_se", "covariance"]


def proportion(k, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Share ``k / n`` of the trials in which an event happened, and its standard error
    ``sqrt(p (1 - p) / n)``.  ``k`` may be an array; NaN when ``n`` is 0."""
    k = np.asarray(k, dtype=np.float64)
    if n < 1:
        return np.full(k.shape, np.nan), np.full(k.shape, np.nan)
    p = k / n
    return p, np.sqrt(np.maximum(p * (1.0 - p), 0.0) / n)


def mean_se(s, s2, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Mean ``s / n`` of a quantity from its sum ``s`` and sum of squares ``s2`` over ``n``
    trials, and the standard error of that mean (sample variance with n - 1).

    With integer sums the variance ``(n s2 - s^2) / (n (n - 1))`` is computed from exact
    integers before one division.
    """
    s_arr = np.asarray(s)
    s2_arr = np.asarray(s2)
    if n < 1:
        return np.full(s_arr.shape, np.nan), np.full(s_arr.shape, np.nan)
    mean = s_arr.astype(np.float64) / n
    if n < 2:
        return mean, np.full(s_arr.shape, np.nan)
    if np.issubdtype(s_arr.dtype, np.integer) and np.issubdtype(s2_arr.dtype, np.integer):
        flat_s = [int(x) for x in s_arr.ravel()]
        flat_s2 = [int(x) for x in s2_arr.ravel()]
        var = np.array([(n * b - a * a) / (n * (n - 1)) for a, b in zip(flat_s, flat_s2)],
                       np.float64).reshape(s_arr.shape)
    else:
        var = (s2_arr / n - mean**2) * n / (n - 1)
    return mean, np.sqrt(np.maximum(var, 0.0) / n)


def covariance(s, cross, n: int) -> np.ndarray:
    """Sample covariance matrix [K, K] of K quantities from their sums ``s`` [K] and the sums
    of their pairwise products ``cross`` [K, K] over ``n`` trials (per trial, not of the mean)."""
    s = np.asarray(s, np.float64)
    cross = np.asarray(cross, np.float64)
    if n < 2:
        return np.full(cross.shape, np.nan)
    m = s / n
    return (cross / n - np.outer(m, m)) * n / (n - 1)
