"""The mus phase engine: expected stones of user keep-sets on common deals, and deals
after mus rounds in which everyone discards by a policy (see musstats._kernels.mus)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import numpy as np

from musstats.base.errors import MusError
from musstats.rules.cards import Card
from musstats.rules.conditions import redeal_hand
from musstats.rules.labels import LANCES
from musstats.rules.variant import Variant
from musstats.tables.hands import hand_tables
from musstats.tables.policies import cut_flags, get_policy, visto_policy

__all__ = ["KeepEval", "deck_ids", "evaluate_keeps", "deals_after_mus", "deals_as_dealt", "DEFAULT_TRIALS",
           "N_CHUNKS"]

DEFAULT_TRIALS = 60_000
N_CHUNKS = 64


@dataclass
class KeepEval:
    """Monte Carlo estimates for a set of user keep masks on common deals."""

    masks: np.ndarray  # int64 [K]
    trials: int
    seed: int
    ev: np.ndarray  # float [K, 5] mean net stones per lance
    ev_se: np.ndarray  # float [K, 5]
    p_team: np.ndarray  # float [K, 5] our team holds the best hand of the lance
    total: np.ndarray  # float [K] mean of the summed net stones
    total_cov: np.ndarray  # float [K, K] covariance of the totals (per trial)
    ev_m2: np.ndarray  # float [K, 5] mean of the squared net stones per lance
    p_deal_kept: float = 1.0  # share of the dealt deals that met the conditions

    def total_se(self) -> np.ndarray:
        """Standard error of each total."""
        return np.sqrt(np.maximum(np.diag(self.total_cov), 0) / self.trials)

    def diff_se(self, a: int, b: int) -> float:
        """Standard error of total[a] - total[b] (common random numbers)."""
        c = self.total_cov
        return float(np.sqrt(max(c[a, a] + c[b, b] - 2 * c[a, b], 0.0) / self.trials))

    def objective(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """Mean and standard error of the objective for every keep-set."""
        if name == "total":
            return self.total, self.total_se()
        li = LANCES.index(name)
        if name == "juego":  # the fourth count step: juego, or punto when nobody has juego
            # per deal one of the two is 0, so E[(J + P)^2] = E[J^2] + E[P^2]
            mean = self.ev[:, 3] + self.ev[:, 4]
            n = self.trials
            var = np.maximum(self.ev_m2[:, 3] + self.ev_m2[:, 4] - mean**2, 0) * n / max(n - 1, 1)
            return mean, np.sqrt(var / n)
        return self.ev[:, li], self.ev_se[:, li]


def deck_ids(variant: Variant) -> np.ndarray:
    """Class id of each physical card id 0..39."""
    return np.repeat(np.arange(len(variant.classes)), [c.count for c in variant.classes]).astype(np.int64)


def _user_cards(cards: list[Card], variant: Variant) -> tuple[np.ndarray, np.ndarray]:
    """Physical ids for the user's cards (sorted by class, highest first) and the unseen ids."""
    t = hand_tables(variant)
    card_class = deck_ids(variant)
    ids = sorted(t.class_ids(cards), reverse=True)
    used = []
    for c in ids:
        free = [i for i in np.nonzero(card_class == c)[0] if i not in used]
        used.append(int(free[0]))
    unseen = np.array([i for i in range(40) if i not in used], np.int64)
    return np.array(used, np.int64), unseen


def evaluate_keeps(
    cards: list[Card],
    seat: int,
    masks: Iterable[int],
    variant: Variant = Variant(),
    policy: np.ndarray | None = None,
    *,
    rounds: int = 1,
    trials: int = DEFAULT_TRIALS,
    seed: int | None = None,
    spawn_key: tuple[int, ...] = (),
    others_ask: bool = False,
) -> KeepEval:
    """Estimate the net stones en paso after ``rounds`` mus rounds for each user keep mask.

    The other seats (and the user after the first round) discard by ``policy`` [4, H].
    All masks are evaluated on the same deals and draws (common random numbers).  With
    mus visto (``variant.mus_visto``) the masks are the user's change in the visto round
    (15 = keep everything) and the others follow :func:`visto_policy` there.  The mask
    ``NO_MUS`` (16) is "the user cuts": nobody changes cards.  With ``others_ask`` only
    deals in which none of the other three holds a hand he would cut with count (the
    mus happens only when all four ask for it); ``KeepEval.p_deal_kept`` is their share.
    """
    from musstats._kernels.mus import keep_sets_eval
    from musstats.engines.random import seed_states
    from musstats.rules.seats import team_array
    from musstats.tables.jokers import joker_tables
    from musstats.tables.kernel import lance_table
    from musstats.engines.montecarlo import check_seed

    t = hand_tables(variant)
    if policy is None:
        policy, _ = get_policy("table", variant)
    masks = np.asarray(list(masks), np.int64)
    seed = check_seed(seed)
    user, unseen = _user_cards(cards, variant)
    n_chunks = min(N_CHUNKS, max(1, trials))
    per = np.full(n_chunks, trials // n_chunks, np.int64)
    per[: trials % n_chunks] += 1
    seeds = seed_states(seed, n_chunks, key=spawn_key)
    jt = joker_tables(variant)
    visto = bool(variant.mus_visto)
    pol_visto = visto_policy(policy, variant) if visto else policy
    reject = np.zeros((4, t.n_hands), np.int64)
    if variant.redeal_4567:
        reject[:, redeal_hand(variant)] = 1
    if others_ask:
        reject[cut_flags(variant)] = 1
    acc, tot, cross, attempts = keep_sets_eval(seeds, per, user, unseen, seat, masks,
                                               np.ascontiguousarray(policy, np.int64), rounds,
                                               deck_ids(variant), t.n_classes, t.idx4.astype(np.int64),
                                               team_array(4), lance_table(variant), jt.n_options, jt.base, reject, visto,
                                               np.ascontiguousarray(pol_visto, np.int64))
    if (attempts < 0).any():
        raise MusError("no deal satisfies the conditions (every deal was rejected)")
    acc = acc.sum(axis=0).astype(np.float64)
    tot = tot.sum(axis=0).astype(np.float64)
    cross = cross.sum(axis=0).astype(np.float64)
    cross = np.triu(cross) + np.triu(cross, 1).T
    n = float(trials)
    ev = acc[:, :, 1] / n
    var = np.maximum(acc[:, :, 2] / n - ev**2, 0) * n / max(n - 1, 1)
    mean_tot = tot / n
    cov = (cross / n - np.outer(mean_tot, mean_tot)) * n / max(n - 1, 1)
    return KeepEval(masks, trials, seed, ev, np.sqrt(var / n), acc[:, :, 0] / n, mean_tot, cov,
                    acc[:, :, 2] / n, float(trials / attempts.sum()))


def deals_after_mus(n: int, seed: int, variant: Variant = Variant(), *, rounds: int = 1,
                    policy: str = "table") -> np.ndarray:
    """``n`` random deals after ``rounds`` mus rounds in which all four players discard by
    ``policy``: final hand indices int64 [n, 4] in seat order (a deal source for the game model)."""
    from musstats._kernels.mus import deals_after_mus as _kernel
    from musstats.engines.random import seed_states

    t = hand_tables(variant)
    pol, _ = get_policy(policy, variant)
    n = int(n)
    n_chunks = min(N_CHUNKS, max(1, n))
    per = np.full(n_chunks, n // n_chunks, np.int64)
    per[: n % n_chunks] += 1
    offsets = np.concatenate([[0], np.cumsum(per)[:-1]]).astype(np.int64)
    seeds = seed_states(seed, n_chunks)
    visto = bool(variant.mus_visto) and rounds > 0  # hands played as dealt see no visto round
    pol_visto = visto_policy(pol, variant) if visto else pol
    return _kernel(seeds, per, offsets, np.ascontiguousarray(pol, np.int64), rounds, deck_ids(variant),
                   t.n_classes, t.idx4.astype(np.int64), redeal_hand(variant), visto,
                   np.ascontiguousarray(pol_visto, np.int64))




def deals_as_dealt(n: int, seed: int, variant: Variant = Variant()) -> np.ndarray:
    """``n`` uniformly random deals from a full deck: hand indices int64 [n, 4] in seat order.

    The hands are played as dealt (no mus round).  Reproducible for a given seed.
    """
    return deals_after_mus(n, seed, variant, rounds=0)
