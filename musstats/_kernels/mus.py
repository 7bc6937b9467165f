"""Numba kernels of the mus phase: deal, discards by policy lookup, draws with the
reshuffle rule of RULES.md, and the showdown of the final hands (private; see
musstats.analysis.discard).

Cards are physical ids 0..39 (``card_class`` maps them to class ids), so that the
bookkeeping of stock, hands and discards can be checked card by card.  A keep mask
is 4 bits over the hand's cards sorted by class, highest first (``cls4`` order):
bit i set = keep card i.  15 (keep all) means "change nothing" (mus visto).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from musstats._kernels.dealing import hand_index, shuffle, sorted_hand
from musstats._kernels.exact import _ways
from musstats._kernels.jokers import fix_jokers, work_arrays
from musstats._kernels.lances import team_net
from musstats._kernels.rng import M32, bounded
from musstats._kernels.rng import next64 as _next
from musstats._kernels.rng import seed_state as _seed_state

__all__ = ["WIN", "EV_SUM", "EV_SQ", "N_COL", "NO_MUS", "mus_rounds", "deal_restricted", "count_restricted",
           "keep_sets_eval", "deals_after_mus"]

# columns per keep-set and lance
WIN, EV_SUM, EV_SQ = range(3)
N_COL = 3
#: keep mask meaning "the user cuts the mus": nobody changes cards
NO_MUS = 16


@njit(cache=True)
def mus_rounds(hands, stock, n_stock, pile, pile_owner, n_pile, first_round, rounds, seat, user_mask,
               policy, card_class, k_cls, idx4, st):
    """Play mus rounds ``first_round .. first_round + rounds - 1`` in place.

    hands int64 [players, 4] card ids; stock[0:n_stock] is drawn from the top (index
    n_stock-1); pile / pile_owner [40] hold the discards not in the stock (owner = seat*64 +
    round).  The user at ``seat`` keeps ``user_mask`` in round 0 and follows ``policy``
    [players, H] afterwards; other seats follow ``policy``.  Returns (n_stock, n_pile).
    """
    return _mus_rounds(hands, stock, n_stock, pile, pile_owner, n_pile, first_round, rounds, seat,
                       user_mask, policy, card_class, k_cls, idx4, st, np.empty(4, np.int64),
                       np.zeros(hands.shape[0], np.int64))


@njit(cache=True)
def _mus_rounds(hands, stock, n_stock, pile, pile_owner, n_pile, first_round, rounds, seat, user_mask,
                policy, card_class, k_cls, idx4, st, srt, need):
    """:func:`mus_rounds` with its work arrays (``srt`` int64 [4], ``need`` int64 [players]) passed in."""
    n = hands.shape[0]
    for r in range(first_round, first_round + rounds):
        # everyone discards, in turn from mano (decisions depend only on one's own hand)
        for q in range(n):
            sorted_hand(hands[q], card_class, srt)
            if q == seat and r == 0:
                mask = user_mask
            else:
                mask = policy[q, hand_index(srt, card_class, k_cls, idx4)]
            n_keep = 0
            for i in range(4):
                if mask & (1 << i):
                    hands[q, n_keep] = srt[i]
                    n_keep += 1
                else:
                    pile[n_pile] = srt[i]
                    pile_owner[n_pile] = q * 64 + r
                    n_pile += 1
            need[q] = 4 - n_keep
        # postre deals the replacements, in turn from mano
        for q in range(n):
            for k in range(4 - need[q], 4):
                if n_stock == 0:
                    # reshuffle the discards; if only this player still needs cards,
                    # his own discards of this round stay out
                    alone = True
                    for q2 in range(q + 1, n):
                        if need[q2] > 0:
                            alone = False
                    keep_out = q * 64 + r if alone else -1
                    m = 0
                    for i in range(n_pile):
                        if pile_owner[i] == keep_out:
                            pile[m] = pile[i]
                            pile_owner[m] = pile_owner[i]
                            m += 1
                        else:
                            stock[n_stock] = pile[i]
                            n_stock += 1
                    n_pile = m
                    shuffle(stock, n_stock, st)
                n_stock -= 1
                hands[q, k] = stock[n_stock]
    return n_stock, n_pile


@njit(cache=True)
def deal_restricted(hands, seat, user_cards, pool, n_pool, ok_list, cum, n_ok, hcls, hmul, hk, st, max_attempts):
    """Deal every seat but ``seat`` a hand uniformly among the deals in which seat q's hand
    is one of ``ok_list[q, :n_ok[q]]``, without dealing and rejecting whole hands at random.

    Each seat's hand is drawn on its own, uniformly among the allowed physical hands that
    the unseen cards make (a class by its share of combinations, ``cum[q]`` cumulative,
    then its cards); the deal is kept when no card was drawn twice.  Every allowed deal
    is then equally likely.  ``pool[c, :n_pool[c]]``: the unseen card ids of class c
    (reordered in place); ``hcls``/``hmul``/``hk``: distinct classes of each hand, their
    multiplicities, how many.  Returns the proposals made (-1 after ``max_attempts``) and the
    dealt cards as a bitmask (bit c = card id c)."""
    n = hands.shape[0]
    att = 0
    while True:
        att += 1
        if att > max_attempts:
            return -1, np.uint64(0)
        used = np.uint64(0)
        ok = True
        for q in range(n):
            if q == seat:
                for i in range(4):
                    hands[q, i] = user_cards[i]
                continue
            # the class: the first cumulative count above a uniform draw (binary search)
            r = bounded(_next(st) & M32, cum[q, n_ok[q] - 1], st)
            lo = 0
            hi = n_ok[q] - 1
            while lo < hi:
                mid = (lo + hi) // 2
                if cum[q, mid] > r:
                    hi = mid
                else:
                    lo = mid + 1
            h = ok_list[q, lo]
            j = 0
            for i in range(hk[h]):
                c = hcls[h, i]
                top = n_pool[c]
                for _ in range(hmul[h, i]):
                    k = bounded(_next(st) & M32, top, st)
                    top -= 1
                    card = pool[c, k]
                    pool[c, k] = pool[c, top]
                    pool[c, top] = card
                    bit = np.uint64(1) << np.uint64(card)
                    if used & bit:
                        ok = False
                    used |= bit
                    hands[q, j] = card
                    j += 1
            if not ok:
                break
        if ok:
            return att, used


@njit(cache=True)
def count_restricted(others, n_pool, ok_list, n_ok, counts, hcls, hmul, hk, binom):
    """The number of deals of the unseen cards to the three seats ``others`` in which each
    holds one of his allowed hands (``ok_list``/``n_ok`` as for :func:`deal_restricted`),
    counted class by class: sum over allowed h1, h2, h3 of the ways to deal them in turn
    (``counts`` [H, K]: the class counts of each hand)."""
    k_cls = n_pool.shape[0]
    rem1 = np.empty(k_cls, np.int64)
    rem2 = np.empty(k_cls, np.int64)
    q1, q2, q3 = others[0], others[1], others[2]
    total = 0
    for a in range(n_ok[q1]):
        h1 = ok_list[q1, a]
        w1 = _ways(h1, n_pool, hcls, hmul, hk, binom)
        if w1 == 0:
            continue
        for k in range(k_cls):
            rem1[k] = n_pool[k] - counts[h1, k]
        for b in range(n_ok[q2]):
            h2 = ok_list[q2, b]
            w2 = _ways(h2, rem1, hcls, hmul, hk, binom)
            if w2 == 0:
                continue
            for k in range(k_cls):
                rem2[k] = rem1[k] - counts[h2, k]
            w3 = 0
            for c in range(n_ok[q3]):
                w3 += _ways(ok_list[q3, c], rem2, hcls, hmul, hk, binom)
            total += w1 * w2 * w3
    return total


@njit(cache=True, parallel=True)
def keep_sets_eval(seeds, chunk_trials, user_cards, unseen, seat, keep_masks, policy, rounds,
                   card_class, k_cls, idx4, team, tab, n_opt, base, visto, policy_visto, restricted, pool0, n_pool,
                   ok_list, cum, n_ok, hcls, hmul, hk, hands_out, out_off):
    """Evaluate each user keep mask on the same deals (common random numbers).

    ``n_opt``/``base``: joker identity options per hand (ten kings; trivial otherwise), the
    showdown uses ``tab`` rows of the plain hands.  With ``restricted`` the other seats'
    first-dealt hands are drawn by :func:`deal_restricted` (its arguments ``pool0`` ..
    ``hk``) among the allowed ones only (the 4-5-6-7 redeal; the condition that the others
    ask for mus).  With ``visto`` the keep masks are for a mus-visto round (others follow ``policy_visto``, 15 = change nothing), followed by
    ``rounds`` ordinary rounds by ``policy``.  The mask ``NO_MUS`` (16) means the user cuts:
    nobody changes cards (with ``visto`` the visto round still happens, the user keeping all).
    ``hands_out`` int64 [deals, n_keep, players] receives every deal's final hand indices per
    keep mask (chunk ``ch``'s deals from row ``out_off[ch]``); an empty array records nothing.

    Returns (acc int64 [chunks, n_keep, 5, 3] with per lance: team-best count, sum and
    sum of squares of net stones; tot int64 [chunks, n_keep] sum of total net stones;
    cross int64 [chunks, n_keep, n_keep] sum of products of the totals; attempts int64
    [chunks] deals proposed, rejected ones included; -1 when none met the conditions).
    """
    n_chunks = seeds.shape[0]
    n_keep = keep_masks.shape[0]
    n_unseen = unseen.shape[0]
    n = team.shape[0]
    acc = np.zeros((n_chunks, n_keep, 5, N_COL), np.int64)
    tot = np.zeros((n_chunks, n_keep), np.int64)
    cross = np.zeros((n_chunks, n_keep, n_keep), np.int64)
    attempts = np.zeros(n_chunks, np.int64)
    for ch in prange(n_chunks):
        st = seeds[ch].copy()
        st_round = np.empty(4, np.uint64)
        rs = np.empty(4, np.uint64)
        srt = np.empty(4, np.int64)
        need = np.zeros(n, np.int64)
        deck = unseen.copy()
        hands0 = np.empty((n, 4), np.int64)
        hands = np.empty((n, 4), np.int64)
        stock = np.empty(40, np.int64)
        pile = np.empty(40, np.int64)
        owner = np.empty(40, np.int64)
        hs = np.empty(n, np.int64)
        wk = work_arrays()
        net, win = wk
        totals = np.empty(n_keep, np.int64)
        loc = np.zeros((n_keep, 5, N_COL), np.int64)
        loc_tot = np.zeros(n_keep, np.int64)
        loc_cross = np.zeros((n_keep, n_keep), np.int64)
        # one round needs 4 (n - 1) dealt cards and at most 4 n draws from the top of the stock
        n_shuffle = 8 * n - 4 if rounds == 1 and not visto else -1
        plain = np.empty(n, np.int64)
        n_att = 0
        hopeless = False
        pool = pool0.copy()
        for t in range(chunk_trials[ch]):
            if restricted:
                a, dealt = deal_restricted(hands0, seat, user_cards, pool, n_pool, ok_list, cum, n_ok, hcls, hmul,
                                           hk, st, 1_000_000)
                if a < 0:
                    hopeless = True
                    break
                n_att += a
                # the stock: the unseen cards nobody was dealt, shuffled
                j = 0
                for i in range(n_unseen):
                    if not (dealt >> np.uint64(unseen[i])) & np.uint64(1):
                        deck[j] = unseen[i]
                        j += 1
                shuffle(deck, j, st)
            else:
                n_att += 1
                shuffle(deck, n_unseen, st, n_shuffle)
                # the shuffled cards are at the end of ``deck``: deal from there, the stock's
                # top (drawn first) is just below the dealt cards
                j = n_unseen
                for q in range(n):
                    for i in range(4):
                        if q == seat:
                            hands0[q, i] = user_cards[i]
                        else:
                            j -= 1
                            hands0[q, i] = deck[j]
            # the reshuffles of this trial's mus rounds use their own stream, the same
            # for every keep-set (common random numbers)
            _seed_state(_next(st), st_round)
            for k in range(n_keep):
                for i in range(4):
                    for q in range(n):
                        hands[q, i] = hands0[q, i]
                n_stock = j
                for i in range(n_stock):
                    stock[i] = deck[i]
                for i in range(4):
                    rs[i] = st_round[i]
                n_pile = 0
                cut = keep_masks[k] == NO_MUS
                if visto:
                    n_stock, n_pile = _mus_rounds(hands, stock, n_stock, pile, owner, 0, 0, 1, seat,
                                                  15 if cut else keep_masks[k], policy_visto, card_class,
                                                  k_cls, idx4, rs, srt, need)
                if not cut:
                    _mus_rounds(hands, stock, n_stock, pile, owner, n_pile, 1 if visto else 0, rounds, seat,
                                keep_masks[k], policy, card_class, k_cls, idx4, rs, srt, need)
                for q in range(n):
                    hs[q] = hand_index(hands[q], card_class, k_cls, idx4)
                if hands_out.shape[0] > 0:
                    for q in range(n):
                        hands_out[out_off[ch] + t, k, q] = hs[q]
                fix_jokers(hs, n_opt, base, team, tab, -1, 0, plain, wk)
                team_net(plain, team, tab, team[seat], net, win)
                s = 0
                for lance in range(5):
                    loc[k, lance, WIN] += win[lance]
                    loc[k, lance, EV_SUM] += net[lance]
                    loc[k, lance, EV_SQ] += net[lance] * net[lance]
                    s += net[lance]
                totals[k] = s
                loc_tot[k] += s
            for a in range(n_keep):
                for b in range(a, n_keep):
                    loc_cross[a, b] += totals[a] * totals[b]
        acc[ch] = loc
        tot[ch] = loc_tot
        cross[ch] = loc_cross
        attempts[ch] = -1 if hopeless else n_att
    return acc, tot, cross, attempts


@njit(cache=True, parallel=True)
def deals_after_mus(seeds, chunk_trials, offsets, policy, rounds, card_class, k_cls, idx4, no_hand, visto,
                    policy_visto, cut, dealt=False):
    """Random deals from a full deck followed by ``rounds`` mus rounds (0: the hands as dealt)
    in which every seat discards by ``policy``: final hand indices int64 [sum(chunk_trials), 4]
    in seat order, and in a fifth column the number of mus rounds played (the visto round
    not counted).  With ``visto`` a mus-visto round by ``policy_visto`` (15 = change
    nothing) comes first.  No seat keeps a first-dealt hand ``no_hand`` (the 4-5-6-7 redeal;
    -1 for none).  ``cut`` bool [4, H] (the mus decision) or [0, H] (everyone asks): before
    each round, if any seat holds a hand it cuts with, the mus ends and the hands are played.
    With ``dealt``, four more columns: the hands as first dealt (the same deals)."""
    n_chunks = seeds.shape[0]
    out = np.empty((offsets[n_chunks - 1] + chunk_trials[n_chunks - 1], 9 if dealt else 5), np.int64)
    for ch in prange(n_chunks):
        st = seeds[ch].copy()
        deck = np.arange(40).astype(np.int64)
        hands = np.empty((4, 4), np.int64)
        stock = np.empty(40, np.int64)
        pile = np.empty(40, np.int64)
        owner = np.empty(40, np.int64)
        srt = np.empty(4, np.int64)
        need = np.zeros(4, np.int64)
        # 16 dealt + at most 16 drawn in one round: only those positions need shuffling
        n_shuffle = -1 if visto or rounds > 1 else 16 + 16 * rounds
        for t in range(chunk_trials[ch]):
            redo = True
            while redo:
                shuffle(deck, 40, st, n_shuffle)
                redo = False
                for q in range(4):
                    for i in range(4):
                        hands[q, i] = deck[39 - 4 * q - i]
                    if no_hand >= 0 and hand_index(hands[q], card_class, k_cls, idx4) == no_hand:
                        redo = True
            if dealt:
                for q in range(4):
                    out[offsets[ch] + t, 5 + q] = hand_index(hands[q], card_class, k_cls, idx4)
            for i in range(24):
                stock[i] = deck[i]
            n_stock = 24
            n_pile = 0
            if visto:
                n_stock, n_pile = _mus_rounds(hands, stock, n_stock, pile, owner, n_pile, 0, 1, -1, 0,
                                              policy_visto, card_class, k_cls, idx4, st, srt, need)
            played = 0
            for r in range(rounds):  # one round at a time: the same draws as all rounds at once
                asked = True
                if cut.shape[0] > 0:
                    for q in range(4):
                        if cut[q, hand_index(hands[q], card_class, k_cls, idx4)]:
                            asked = False
                if not asked:
                    break
                n_stock, n_pile = _mus_rounds(hands, stock, n_stock, pile, owner, n_pile, r + (1 if visto else 0),
                                              1, -1, 0, policy, card_class, k_cls, idx4, st, srt, need)
                played += 1
            for q in range(4):
                out[offsets[ch] + t, q] = hand_index(hands[q], card_class, k_cls, idx4)
            out[offsets[ch] + t, 4] = played
    return out
