"""Numba kernels of the exact showdown engine (private; see musstats.engines.exact)."""

from __future__ import annotations

import numpy as np
from numba import njit, prange


# stats; TEAM_CONTESTED = our team holds the best hand and both teams hold the lance
TEAM, SELF, PLAYED, CONTESTED, EV, TEAM_CONTESTED = range(6)
N_STATS = 6
from musstats._kernels.lances import CHICA, GRANDE, JUEGO, PARES, PUNTO, paso_stones, resolve, seat_row, winner_seat

__all__ = ["TEAM", "SELF", "PLAYED", "CONTESTED", "EV", "TEAM_CONTESTED", "N_STATS", "exact_counts",
           "exact_two"]


@njit(cache=True, inline="always")
def _ways(h, rem, nz_cls, nz_cnt, nnz, binom):
    """Card combinations that give hand ``h`` from a stock with class counts ``rem``."""
    w = np.int64(1)
    for j in range(nnz[h]):
        w *= binom[rem[nz_cls[h, j]], nz_cnt[h, j]]
    return w


@njit(cache=True)
def _pairs_by_group(rem0, counts, nz_cls, nz_cnt, nnz, binom, binom_big):
    """All feasible (first, second) other hands, bucketed by their combined 8-card multiset.

    Returns pair arrays (x, y, weight) sorted by group, and the start offset of each
    non-empty group.
    """
    n_hands, n_cls = counts.shape
    cap = n_hands * n_hands
    px = np.empty(cap, np.int32)
    py = np.empty(cap, np.int32)
    pw = np.empty(cap, np.int64)
    pg = np.empty(cap, np.int64)
    rem1 = np.empty(n_cls, np.int64)
    n = 0
    for x in range(n_hands):
        wx = _ways(x, rem0, nz_cls, nz_cnt, nnz, binom)
        if wx == 0:
            continue
        for k in range(n_cls):
            rem1[k] = rem0[k] - counts[x, k]
        for y in range(n_hands):
            wy = _ways(y, rem1, nz_cls, nz_cnt, nnz, binom)
            if wy == 0:
                continue
            # combinatorial rank of the sorted 8-class multiset (dense over all multisets)
            r = np.int64(0)
            i = 0
            for k in range(n_cls):
                for _ in range(counts[x, k] + counts[y, k]):
                    r += binom_big[k + i, i + 1]
                    i += 1
            px[n] = x
            py[n] = y
            pw[n] = wx * wy
            pg[n] = r
            n += 1
    n_groups = binom_big[n_cls + 7, 8]
    cnt = np.zeros(n_groups + 1, np.int64)
    for i in range(n):
        cnt[pg[i] + 1] += 1
    for g in range(n_groups):
        cnt[g + 1] += cnt[g]
    pos = cnt[:-1].copy()
    sx = np.empty(n, np.int32)
    sy = np.empty(n, np.int32)
    sw = np.empty(n, np.int64)
    for i in range(n):
        j = pos[pg[i]]
        pos[pg[i]] += 1
        sx[j] = px[i]
        sy[j] = py[i]
        sw[j] = pw[i]
    n_ne = 0
    for g in range(n_groups):
        if cnt[g + 1] > cnt[g]:
            n_ne += 1
    starts = np.empty(n_ne + 1, np.int64)
    j = 0
    for g in range(n_groups):
        if cnt[g + 1] > cnt[g]:
            starts[j] = cnt[g]
            j += 1
    starts[n_ne] = n
    return sx, sy, sw, starts


@njit(cache=True, parallel=True)
def exact_counts(u, rem0, seat_mask, allowed, key, value, tab, team, counts, nz_cls, nz_cnt, nnz, binom,
                 binom_big, n_chunks):
    """Weighted counts [seat, lance, stat] over every deal of the other three hands.

    ``allowed[seat, h]`` (0/1) restricts the hand a seat may hold (conditions); the user's
    own row is ignored.  Returns (counts int64 [4, 5, 5], total weight per seat int64 [4]);
    probabilities are counts[s] / total[s].
    """
    n_hands, n_cls = counts.shape
    sx, sy, sw, starts = _pairs_by_group(rem0, counts, nz_cls, nz_cnt, nnz, binom, binom_big)
    n_groups = starts.shape[0] - 1
    n_lev = 0
    for lance in range(5):
        for h in range(n_hands):
            if key[lance, h] + 2 > n_lev:
                n_lev = key[lance, h] + 2
    others = np.empty((4, 3), np.int64)
    for s in range(4):
        j = 0
        for o in range(4):
            if o != s:
                others[s, j] = o
                j += 1
    if n_chunks > n_groups:
        n_chunks = max(n_groups, 1)
    # the last other hand sits at seat 3, or at seat 2 when the user is postre
    need = np.zeros(2, np.bool_)
    for s in range(4):
        if seat_mask[s]:
            need[1 if s == 3 else 0] = True
    same_z = True
    for h in range(n_hands):
        if allowed[2, h] != allowed[3, h]:
            same_z = False
    acc = np.zeros((n_chunks, 4, 5, N_STATS), np.int64)
    wsum = np.zeros((n_chunks, 4), np.int64)
    for c in prange(n_chunks):
        g0 = n_groups * c // n_chunks
        g1 = n_groups * (c + 1) // n_chunks
        cw2 = np.zeros((2, 5, n_lev), np.int64)
        cv2 = np.zeros((2, 5, n_lev), np.int64)
        rem2 = np.empty(n_cls, np.int64)
        hand_at = np.empty(4, np.int64)
        for g in range(g0, g1):
            a = starts[g]
            b = starts[g + 1]
            for k in range(n_cls):
                rem2[k] = rem0[k] - counts[sx[a], k] - counts[sy[a], k]
            for zi in range(2):
                if not need[zi] or (zi == 1 and need[0] and same_z):
                    continue
                zseat = 3 - zi
                cw = cw2[zi]
                cv = cv2[zi]
                cw[:, :] = 0
                cv[:, :] = 0
                for z in range(n_hands):
                    if allowed[zseat, z] == 0:
                        continue
                    wz = _ways(z, rem2, nz_cls, nz_cnt, nnz, binom)
                    if wz == 0:
                        continue
                    for lance in range(5):
                        cw[lance, key[lance, z]] += wz
                        cv[lance, key[lance, z]] += wz * value[lance, z]
                for lance in range(5):
                    for lv in range(n_lev - 2, -1, -1):
                        cw[lance, lv] += cw[lance, lv + 1]
                        cv[lance, lv] += cv[lance, lv + 1]
            if need[1] and need[0] and same_z:
                cw2[1, :, :] = cw2[0]
                cv2[1, :, :] = cv2[0]
            for p in range(a, b):
                wp = sw[p]
                for s in range(4):
                    if not seat_mask[s]:
                        continue
                    if allowed[others[s, 0], sx[p]] == 0 or allowed[others[s, 1], sy[p]] == 0:
                        continue
                    zi = 1 if s == 3 else 0
                    cw = cw2[zi]
                    cv = cv2[zi]
                    w_tot = cw[GRANDE, 0]
                    if w_tot == 0:
                        continue
                    wsum[c, s] += wp * w_tot
                    ut = team[s]
                    z = others[s, 2]
                    tz = team[z]
                    hand_at[s] = u
                    hand_at[others[s, 0]] = sx[p]
                    hand_at[others[s, 1]] = sy[p]
                    # the known hands (Z, the last one, is counted through the cumulative tables):
                    # best seat score per lance; pares/juego held and summed values per team
                    kg = -1
                    kc = -1
                    kp = -1
                    kj = -1
                    ku = -1
                    hp0 = False
                    hp1 = False
                    hj0 = False
                    hj1 = False
                    vp0 = 0
                    vp1 = 0
                    vj0 = 0
                    vj1 = 0
                    for q in range(4):
                        if q == z:
                            continue
                        g, ch, pp, jj, uu, vp, vj = seat_row(hand_at[q], q, tab)
                        kg = max(kg, g)
                        kc = max(kc, ch)
                        kp = max(kp, pp)
                        kj = max(kj, jj)
                        ku = max(ku, uu)
                        if team[q] == 0:
                            hp0 = hp0 or pp >= 8
                            hj0 = hj0 or jj >= 8
                            vp0 += vp
                            vj0 += vj
                        else:
                            hp1 = hp1 or pp >= 8
                            hj1 = hj1 or jj >= 8
                            vp1 += vp
                            vj1 += vj
                    for lance in range(5):
                        if lance == PUNTO and kj >= 8:
                            continue
                        ks = kg if lance == GRANDE else kc if lance == CHICA else kp if lance == PARES else \
                            kj if lance == JUEGO else ku
                        best = ks >> 3  # best key of the known hands
                        sb = winner_seat(ks)
                        # Z beats the known best with a higher key, or the same key nearer to mano
                        t = best + (1 if z > sb else 0)
                        tb = team[sb]
                        vs0 = vp0 if lance == PARES else vj0
                        vs1 = vp1 if lance == PARES else vj1
                        hold0 = hp0 if lance == PARES else hj0
                        hold1 = hp1 if lance == PARES else hj1
                        if lance == GRANDE or lance == CHICA:
                            played = w_tot
                            zwin = cw[lance, t]
                            rest = w_tot - zwin
                        elif lance == PUNTO:
                            played = w_tot - cw[JUEGO, 1]
                            zwin = cw[lance, t]
                            rest = played - zwin
                        else:
                            if t < 1:
                                t = 1
                            zwin = cw[lance, t]
                            if best > 0:
                                played = w_tot
                                rest = w_tot - zwin
                            else:
                                played = cw[lance, 1]
                                rest = 0
                        team_w = (zwin if tz == ut else 0) + (rest if tb == ut else 0)
                        self_w = rest if sb == s else 0
                        if lance == PARES or lance == JUEGO:
                            vz = vs0 if tz == 0 else vs1
                            vb = vs0 if tb == 0 else vs1
                            net_z = vz * zwin + cv[lance, t]
                            net_b = vb * rest
                            if tz == tb:
                                net_b += cv[lance, 1] - cv[lance, t]
                            ev = (net_z if tz == ut else -net_z) + (net_b if tb == ut else -net_b)
                            hz = hold0 if tz == 0 else hold1
                            ho = hold1 if tz == 0 else hold0
                            if hz and ho:
                                cont = w_tot
                                team_c = team_w
                            elif ho:
                                # contested only when Z holds; rest-deals where Z holds: cw[1] - zwin
                                cont = cw[lance, 1]
                                team_c = (zwin if tz == ut else 0)
                                if best > 0 and tb == ut:
                                    team_c += cw[lance, 1] - zwin
                            else:
                                cont = 0
                                team_c = 0
                        else:
                            ev = 2 * team_w - played
                            cont = 0
                            team_c = 0
                        acc[c, s, lance, TEAM] += wp * team_w
                        acc[c, s, lance, SELF] += wp * self_w
                        acc[c, s, lance, PLAYED] += wp * played
                        acc[c, s, lance, CONTESTED] += wp * cont
                        acc[c, s, lance, EV] += wp * ev
                        acc[c, s, lance, TEAM_CONTESTED] += wp * team_c
    out = np.zeros((4, 5, N_STATS), np.int64)
    total = np.zeros(4, np.int64)
    for c in range(n_chunks):
        out += acc[c]
        total += wsum[c]
    return out, total


@njit(cache=True)
def exact_two(u, seat, rem0, allowed, tab, nz_cls, nz_cnt, nnz, binom):
    """Weighted counts [5, 6] and total weight of every deal of the one other hand (restricted
    to ``allowed`` [H]), two players each for himself, the user's hand ``u`` at ``seat``
    (0 = mano, 1 = postre)."""
    n_hands = nnz.shape[0]
    out = np.zeros((5, N_STATS), np.int64)
    total = np.int64(0)
    hs = np.empty(2, np.int64)
    team = np.arange(2).astype(np.int64)
    for h in range(n_hands):
        w = _ways(h, rem0, nz_cls, nz_cnt, nnz, binom)
        if w == 0 or allowed[h] == 0:
            continue
        total += w
        hs[seat] = u
        hs[1 - seat] = h
        bg, bc, bp, bj, bu, cp, cj, vp, vj = resolve(hs, team, tab)
        for lance in range(5):
            best = bg if lance == GRANDE else bc if lance == CHICA else bp if lance == PARES else \
                bj if lance == JUEGO else bu
            wt, v = paso_stones(lance, best, bp, bj, vp, vj, team)
            if wt < 0:
                continue
            mine = wt == seat
            out[lance, PLAYED] += w
            if mine:
                out[lance, TEAM] += w
                out[lance, SELF] += w
            out[lance, EV] += w * (v if mine else -v)
            if (lance == PARES and cp) or (lance == JUEGO and cj):
                out[lance, CONTESTED] += w
                if mine:
                    out[lance, TEAM_CONTESTED] += w
    return out, total
