"""The web API's endpoints: one per function of the Python API, with the same parameter names.

Each endpoint has a parameter model (pydantic; an unknown parameter or a value of the wrong
JSON type is refused with one line), the server's limits, and a runner that calls the
Python function and returns exactly the text of the command's ``--format json`` (that is
``to_json(result)``), so that the page, ``curl`` and the command line agree to the byte.

Values are checked by the Python API itself (:mod:`musstats.rules.checks` and the
parsers): a bad hand, seat, score... gives the same one-line message as the command line
prints after ``musstats: error:``.  The models only check JSON types, so that no value can
reach the API in a form it does not expect.

Limits of this server (a request above them is refused with status 400; the command line
has the library's own, higher limits):

=============================  ===========================================================
``/api/odds``, ``/api/chart``  ``trials`` up to 20,000,000 Monte Carlo deals (5,000,000 with
                               ten kings, where up to four runs share the number);
                               ``target_se`` is refused once it would need more deals
``/api/discard``, ``/api/mus`` ``trials`` up to 2,000,000 deals per keep-set (every keep-set
                               is evaluated on each deal: up to 30,000,000 evaluations)
``/api/game``                  ``deals`` up to 20,000,000
``/api/bet``                   ``trials`` up to 1,000,000
every request                  a body or query string of at most 8 KB; no number beyond
                               2**63 - 1 (a larger one is refused before the API sees it)
=============================  ===========================================================
"""

from __future__ import annotations

import json
import re
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr, ValidationError

from musstats.base.errors import MusError

__all__ = ["MAX_BODY_BYTES", "LIMITS", "TEN_KINGS_TRIALS", "MAX_NUMBER", "Endpoint", "ENDPOINTS", "Unavailable",
           "check_limits", "short_number", "validation_message", "query_params", "OddsParams", "ChartParams",
           "DiscardParams", "MusParams", "OrdagoParams", "GameParams", "BetParams", "TreeParams"]

#: the largest request body (and query string) accepted, in bytes
MAX_BODY_BYTES = 8 * 1024
#: per endpoint: parameter -> the largest value this server accepts
LIMITS: dict[str, dict[str, int]] = {
    "odds": {"trials": 20_000_000},
    "chart": {"trials": 20_000_000},
    "discard": {"trials": 2_000_000},
    "mus": {"trials": 2_000_000},
    "game": {"deals": 20_000_000},
    "bet": {"trials": 1_000_000},
    "hand": {"samples": 1_000_000},
}
#: ten kings: Monte Carlo deals of each of the (up to four) runs of one odds request
TEN_KINGS_TRIALS = 5_000_000
#: the largest number any parameter may hold (the largest seed); beyond it a request is refused
MAX_NUMBER = 2 ** 63 - 1

JSON_TYPE = "application/json"
SVG_TYPE = "image/svg+xml"


class Unavailable(Exception):
    """The endpoint's engine is not part of this installation (HTTP 503)."""


# --------------------------------------------------------------------------- parameter models

Cards = Union[StrictStr, list[StrictStr]]
Texts = Union[StrictStr, list[StrictStr]]
Number = Union[StrictInt, StrictFloat]  # whole numbers are checked by the API (musstats.rules.checks)
Seat = Union[StrictStr, StrictInt]
Score = Union[StrictStr, list[Number]]

_EXPECTS = {
    "cards": 'cards as text, e.g. "R R 3 A", or a list of cards, e.g. ["R", "R", "3", "A"]',
    "seat": "a seat: a name (mano, second, third, postre) or a number from 1 = mano",
    "text": "text",
    "texts": "text or a list of texts",
    "bool": "true or false",
    "whole": "a whole number",
    "number": "a number",
    "score": 'a score "A-B", our stones first (e.g. "12-30"), or a pair [12, 30]',
}


def _p(default: Any, kind: str, description: str, **kw: Any) -> Any:
    return Field(default, description=description, json_schema_extra={"x-expects": _EXPECTS[kind]}, **kw)


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Rules(_Params):  # after the hand's fields: class X(_Rules, _Hand)
    variant: StrictStr = _p("8-reyes", "text", "Deck variant: 8-reyes, 4-reyes or ten-kings (8 reyes with the "
                                               "sotas de copas and oros as jokers).")
    juego_real: StrictStr = _p("off", "text", "31 real: off, figure, sota or sota-oros.")
    target: Optional[StrictInt] = _p(None, "whole", "Stones to win the game: 40 (default) or 30.")
    redeal_4567: StrictBool = _p(False, "bool", "A player dealt exactly 4-5-6-7 shows it and takes a new hand.")
    mus_visto: StrictBool = _p(False, "bool", "Mus visto: one free change of any number of cards before the mus.")


class _Hand(_Params):
    hand: Cards = _p(..., "cards", "Your four cards: R C S 7 6 5 4 3 2 A (also 12 11 10 1, Spanish words, "
                                   "RR3A); a suit after a slash where the variant needs one (S/o, S/c).",
                     examples=["R R 3 A"])
    seat: Seat = _p("mano", "seat", "Your seat: mano, second, third, postre (or 1-4).")


class OddsParams(_Rules, _Hand):
    """Parameters of :func:`musstats.analysis.odds.odds`."""

    declared: Optional[Texts] = _p(None, "texts", "Declarations, e.g. \"second:pares,postre:no-juego\".")
    signal: Optional[Texts] = _p(None, "texts", "Your partner's seña: duples, medias, 31, two-reyes, three-reyes, "
                                                "four-reyes, two-ases, three-ases, four-ases, punto-30, bad.")
    players: Number = _p(4, "whole", "Players at the table: 4 or 6 in partnerships, 2 to 6 with individual.")
    individual: StrictBool = _p(False, "bool", "No partners: every player for himself.")
    method: Optional[StrictStr] = _p(None, "text", "exact or mc (default: exact where it is possible).")
    dead: Optional[Cards] = _p(None, "cards", "Cards seen on the table, e.g. \"7 7 R\".")
    joker: Optional[Texts] = _p(None, "texts", "Ten kings: fix your jokers, e.g. \"S/o=A\".")
    trials: Optional[Number] = _p(None, "whole", "Monte Carlo deals (default 1,000,000; at most 20,000,000 here).")
    target_se: Optional[Number] = _p(None, "number", "Monte Carlo: run until every standard error is below this.")
    seed: Optional[Number] = _p(None, "whole", "Monte Carlo seed (0 .. 2**63 - 1).")


class ChartParams(OddsParams):
    """The odds parameters, and the chart's size."""

    size: Optional[StrictStr] = _p(None, "text", "Chart size WxH in pixels at 100 dpi (default 1200x700).")


class _MusPhase(_Rules, _Hand):
    policy: StrictStr = _p("table", "text", "How the others discard: table, reyes-pairs, grande, chica, 31.")
    rounds: Number = _p(1, "whole", "Mus rounds (1..8).")
    trials: Optional[Number] = _p(None, "whole", "Deals per keep-set (default 60,000; at most 2,000,000 here).")
    seed: Optional[Number] = _p(None, "whole", "Seed (0 .. 2**63 - 1).")
    keep: Optional[Cards] = _p(None, "cards", "Your own keep-set, e.g. \"R R\": compared with the best one.")


class DiscardParams(_MusPhase):
    """Parameters of :func:`musstats.analysis.discard.discard`."""

    players: Number = _p(4, "whole", "Players: 4 in partnerships, or 2 to 6 with individual.")
    individual: StrictBool = _p(False, "bool", "No partners: every player for himself.")
    objective: StrictStr = _p("total", "text", "What to maximise: total, grande, chica, pares, juego.")


class MusParams(_MusPhase):
    """Parameters of :func:`musstats.analysis.discard.mus`."""


class OrdagoParams(_Rules, _Hand):
    """Parameters of :func:`musstats.analysis.ordago.ordago`."""

    lance: StrictStr = _p("grande", "text", "The lance of the órdago: grande, chica, pares, juego, punto.")
    score: Score = _p("0-0", "score", "The score before the hand, ours first: \"12-30\".")
    declared: Optional[Texts] = _p(None, "texts", "Declarations, e.g. \"second:pares,postre:no-juego\".")
    signal: Optional[Texts] = _p(None, "texts", "Your partner's seña (see /api/odds).")
    equilibrium: StrictBool = _p(True, "bool", "Against equilibrium opponents (the default, as the command "
                                               "line): solve the lance's betting at the score (cached); false "
                                               "for the random-hands figures alone.")
    deal: StrictStr = _p("as-dealt", "text", "With equilibrium: the hands as-dealt or after-mus (a new score "
                                             "of after-mus is a cold solve; cached).")


class GameParams(_Rules):
    """Parameters of :func:`musstats.analysis.game.game_model` and of ``GameModel.to_dict(mano)``
    (and, with ``match``, of ``musstats game --match``)."""

    deals: Optional[Number] = _p(None, "whole", "Deals of the hand-outcome table (default 4,000,000, cached).")
    seed: Optional[Number] = _p(None, "whole", "Seed of the simulation (default 1).")
    mano: StrictStr = _p("avg", "text", "Whose team is mano in the next hand: us, them, avg.")
    model: Optional[StrictStr] = _p(None, "text", "paso, betting or both (default: both where the betting model "
                                                   "ships, else paso).")
    match: Optional[StrictStr] = _p(None, "text", "P(we win the match): best-of-3 or first-to-3.")
    games: Score = _p("0-0", "score", "With match: games won so far, ours first.")
    score: Score = _p("0-0", "score", "With match: the score of the game in progress.")


class BetParams(_Params):
    """Parameters of :func:`musstats.analysis.betting.bet`."""

    hand: Cards = _p(..., "cards", "Your four cards, e.g. \"R R 3 A\".", examples=["R R 3 A"])
    seat: Seat = _p(..., "seat", "Your seat: mano, second, third, postre (or 1-4).", examples=["mano"])
    lance: StrictStr = _p(..., "text", "The lance: grande, chica, pares, juego, punto.", examples=["grande"])
    history: Optional[Texts] = _p(None, "texts", "The public actions so far, e.g. \"paso,envido 2\".")
    declared: Optional[StrictStr] = _p(None, "text", "Who declared pares / juego, e.g. \"second:pares\".")
    deal: StrictStr = _p("as-dealt", "text", "as-dealt or after-mus.")
    info: StrictStr = _p("private", "text", "private or pooled.")
    variant: StrictStr = _p("8-reyes", "text", "8-reyes or 4-reyes.")
    juego_real: StrictStr = _p("off", "text", "31 real: off, figure, sota or sota-oros.")
    partner: Optional[Cards] = _p(None, "cards", "Pooled model: your partner's hand.")
    cut: Optional[Seat] = _p(None, "seat", "The seat that cut the mus (hands as dealt): the lance is bet by the "
                                          "equilibrium given who cut.")
    plan_seed: Optional[Number] = _p(None, "whole", "Where your pair plays correlated plans (pares and juego with "
                                                    "three declared, juego with all four): the number the partners "
                                                    "agreed, which draws the plan they both play.")
    trials: Optional[Number] = _p(None, "whole", "Monte Carlo deals of the expected stones (at most 1,000,000 here).")
    seed: Optional[Number] = _p(None, "whole", "Seed of those deals.")


class HandParams(_Params):
    """Parameters of :func:`musstats.analysis.reading.hand`."""

    hand: Cards = _p(..., "cards", "Your four cards, e.g. \"R R 3 A\".", examples=["R R 3 A"])
    seat: Seat = _p(..., "seat", "Your seat: mano, second, third, postre (or 1-4).", examples=["mano"])
    history: Optional[StrictStr] = _p(None, "text", "The hand so far, parts separated by \";\": the mus from mano, "
                                                    "the cards each seat threw, each lance's actions, e.g. "
                                                    "\"mus,corto; grande: paso,envido 2\".")
    variant: StrictStr = _p("8-reyes", "text", "8-reyes (the variant whose strategies ship).")
    samples: Optional[Number] = _p(None, "whole", "Deals drawn for the reading (at most 1,000,000 here).")
    seed: Optional[Number] = _p(None, "whole", "Seed of those deals.")


class TreeParams(_Params):
    """Parameters of the public betting tree (:func:`musstats.engines.betting.tree.betting_tree`)
    at a point: the legal actions after ``history``, or how the lance ended."""

    lance: StrictStr = _p(..., "text", "The lance: grande, chica, pares, juego, punto.", examples=["grande"])
    speakers: Optional[Texts] = _p(None, "texts", "Pares and juego: the seats that hold the lance, e.g. "
                                                  "\"mano+second+postre\" (the \"declared\" of /api/bet); "
                                                  "default every seat.")
    history: Optional[Texts] = _p(None, "texts", "The public actions so far, e.g. \"paso,envido 2\".")


# --------------------------------------------------------------------------- messages

def _expects(f: Any) -> str | None:
    """What a model field accepts, in words (its ``x-expects``)."""
    extra = f.json_schema_extra
    return extra.get("x-expects") if isinstance(extra, dict) else None


def validation_message(err: ValidationError | list[dict], model: type[BaseModel] | None) -> str:
    """One line from a pydantic validation error: the first problem, in words."""
    errors = err.errors() if isinstance(err, ValidationError) else list(err)
    if not errors:
        return "bad request"
    e = errors[0]
    loc = [str(x) for x in e.get("loc", ()) if x not in ("body", "query")]
    typ = e.get("type", "")
    if typ == "json_invalid":
        why = (e.get("ctx") or {}).get("error", "")
        return f"the request body is not valid JSON{': ' + str(why) if why else ''}"
    if not loc or typ in ("model_attributes_type", "dict_type", "model_type"):
        return 'the parameters must be a JSON object, e.g. {"hand": "R R 3 A", "seat": "mano"}'
    name = loc[0]
    fields = model.model_fields if model is not None else {}
    if typ == "extra_forbidden":
        accepted = ", ".join(fields) if fields else "see /docs"
        return f"unknown parameter {name!r}; accepted: {accepted}"
    if typ == "missing":
        ex = fields[name].examples if name in fields and fields[name].examples else None
        return f"{name} is required" + (f", e.g. {json.dumps(ex[0], ensure_ascii=False)}" if ex else "")
    expects = _expects(fields[name]) if name in fields else None
    got = json.dumps(e.get("input"), ensure_ascii=False, default=str)
    if len(got) > 60:
        got = got[:57] + "..."
    if expects:
        return f"{name} must be {expects}; got {got}"
    return f"{name}: {e.get('msg', 'invalid value')}; got {got}"


# --------------------------------------------------------------------------- limits

def _is_ten_kings(variant: Any) -> bool:
    key = str(variant).strip().lower().replace("_", "-").replace(" ", "-")
    return key in ("ten-kings", "tenkings", "10-kings")


def short_number(v: int | float) -> str:
    """A number as a reader wants it in a one-line message: ``12,000``, ``0.25``, ``1e+300``,
    never hundreds of digits."""
    if isinstance(v, int):
        if abs(v) < 10 ** 15:
            return f"{v:,}"
        digits = str(abs(v))
        return f"{'-' if v < 0 else ''}{digits[0]}.{digits[1:3]}e+{len(digits) - 1}"
    if v != v or v in (float("inf"), float("-inf")):
        return repr(v)
    if float(v).is_integer() and abs(v) < 1e15:
        return f"{int(v):,}"
    return f"{v:.6g}"


def _numbers(params: dict[str, Any]):
    for name, v in params.items():
        for x in (v if isinstance(v, list) else [v]):
            if isinstance(x, (int, float)) and not isinstance(x, bool):
                yield name, x


def check_limits(kind: str, params: dict[str, Any]) -> None:
    """MusError when a parameter is above this server's limit for ``kind``, or a number is
    beyond :data:`MAX_NUMBER` (no parameter of the API takes one)."""
    for name, v in _numbers(params):
        if abs(v) > MAX_NUMBER:
            raise MusError(f"{name} {short_number(v)} is too large: no parameter takes a number beyond "
                           f"{MAX_NUMBER:,}")
    for name, cap in LIMITS.get(kind, {}).items():
        if kind in ("odds", "chart") and name == "trials" and _is_ten_kings(params.get("variant")):
            cap = TEN_KINGS_TRIALS
        v = params.get(name)
        if isinstance(v, (int, float)) and not isinstance(v, bool) and v > cap:
            raise MusError(f"{name} {short_number(v)} is above this server's limit of {cap:,} for /api/{kind}; "
                           f"use the command line for longer runs")


# --------------------------------------------------------------------------- runners

@dataclass
class Outcome:
    """The answer of a computation: the response body, its media type, the result object
    (kept for reuse, e.g. the odds of a chart) and whether identical requests may reuse it."""

    body: bytes
    media_type: str = JSON_TYPE
    obj: Any = None
    cacheable: bool = True


Progress = Callable[[int, int], None]
Runner = Callable[[dict, Progress, Any], Outcome]

#: one game model is simulated at a time (órdago questions at five lances want the same one)
_GAME_LOCK = threading.Lock()
#: matplotlib's rc settings are global: one chart is drawn at a time
_PLOT_LOCK = threading.Lock()


def _json(res: Any) -> bytes:
    from musstats.output.render import to_json

    return to_json(res).encode("utf-8")


def _odds_progress(params: dict, progress: Progress) -> Progress:
    """The progress callback of an odds run, refusing a ``target_se`` run that would need more
    deals than the server's limit (its goal is re-estimated after every batch)."""
    cap = LIMITS["odds"]["trials"]
    if params.get("target_se") is None:
        return progress

    def guarded(done: int, total: int) -> None:
        if total > cap:
            raise MusError(f"target_se {params['target_se']} needs about {total:,} deals, above this server's "
                           f"limit of {cap:,}; ask for a larger target_se or use the command line")
        progress(done, total)

    return guarded


def _run_odds(p: dict, progress: Progress, jobs: Any) -> Outcome:
    from musstats.analysis.odds import odds

    res = odds(**p, progress=_odds_progress(p, progress))
    return Outcome(_json(res), obj=res, cacheable=res.method == "exact" or p.get("seed") is not None)


def _run_chart(p: dict, progress: Progress, jobs: Any) -> Outcome:
    from musstats.analysis.odds import odds
    from musstats.output.plots import figure_size, plot_hand, save_figure

    p = dict(p)
    size = p.pop("size", None)
    sz = figure_size(size=size) if size is not None else None
    known = jobs.lookup("odds", p) if jobs is not None else None
    res = known.obj if known is not None and known.obj is not None else odds(**p,
                                                                               progress=_odds_progress(p, progress))
    with _PLOT_LOCK, tempfile.TemporaryDirectory(prefix="musstats-web-") as tmp:
        fig = plot_hand(res, size=sz)
        body = save_figure(fig, Path(tmp) / "chart.svg").read_bytes()
    return Outcome(body, SVG_TYPE, cacheable=res.method == "exact" or p.get("seed") is not None)


def _run_discard(p: dict, progress: Progress, jobs: Any) -> Outcome:
    from musstats.analysis.discard import discard

    res = discard(**p, progress=progress)
    return Outcome(_json(res), obj=res, cacheable=p.get("seed") is not None)


def _run_mus(p: dict, progress: Progress, jobs: Any) -> Outcome:
    from musstats.analysis.discard import mus

    res = mus(**p, progress=progress)
    return Outcome(_json(res), obj=res, cacheable=p.get("seed") is not None)


def _variant_of(p: dict):
    from musstats.rules.variant import make_variant

    return make_variant(p.get("variant", "8-reyes"), p.get("juego_real", "off"), p.get("target"),
                        redeal_4567=p.get("redeal_4567", False), mus_visto=p.get("mus_visto", False))


def _shared_game_model(v, progress: Progress, **kw: Any):
    from musstats.analysis.game import game_model

    with _GAME_LOCK:
        return game_model(v, progress=progress, **kw)


def _run_ordago(p: dict, progress: Progress, jobs: Any) -> Outcome:
    from musstats.analysis.ordago import ordago
    from musstats.engines.betting.deals import check_deal
    from musstats.rules import checks
    from musstats.tables.context import make_context

    # the question's own checks first (cheap), so that a bad hand does not wait for the game model
    v = _variant_of(p)
    make_context(v, p["hand"], p.get("seat", "mano"), declared=p.get("declared"), signal=p.get("signal"))
    checks.lance(p.get("lance", "grande"))
    checks.score(p.get("score", "0-0"), v.target)
    check_deal(p.get("deal", "as-dealt"))
    model = _shared_game_model(v, progress)
    res = ordago(**p, model=model, solve_progress=progress)
    return Outcome(_json(res), obj=res)


def _run_game(p: dict, progress: Progress, jobs: Any) -> Outcome:
    p = dict(p)
    mano = p.pop("mano", "avg")
    match = p.pop("match", None)
    games, score = p.pop("games", "0-0"), p.pop("score", "0-0")
    v = _variant_of(p)
    from musstats.analysis.game.model import game_report

    with _GAME_LOCK:
        doc, model = game_report(v, model=p.get("model"), mano=mano, deals=p.get("deals"), seed=p.get("seed"),
                                 progress=progress)
    if match is not None:
        from musstats.analysis.game.match import match_probability

        return Outcome(_json(match_probability(model, match, games, score, mano)))
    return Outcome(_json(doc))


def _betting_module():
    try:
        from musstats.analysis import betting
    except ImportError as e:
        raise Unavailable(f"the betting engine (musstats.analysis.betting) is not available in this "
                          f"installation ({e}); /api/bet cannot answer") from None
    if not hasattr(betting, "bet"):
        raise Unavailable("the betting engine (musstats.analysis.betting) has no bet() in this installation; "
                          "/api/bet cannot answer")
    return betting


def _run_bet(p: dict, progress: Progress, jobs: Any) -> Outcome:
    from musstats.rules import checks

    betting = _betting_module()
    if p.get("seed") is not None:  # bet() converts the seed with int(); give the usual message instead
        p = {**p, "seed": checks.whole(p["seed"], "seed", 0, checks.MAX_SEED)}
    res = betting.bet(**p)
    return Outcome(_json(res), obj=res)


def _run_hand(p: dict, progress: Progress, jobs: Any) -> Outcome:
    from musstats.analysis.reading import hand
    from musstats.rules import checks

    if p.get("seed") is not None:
        p = {**p, "seed": checks.whole(p["seed"], "seed", 0, checks.MAX_SEED)}
    res = hand(**p)
    return Outcome(_json(res), obj=res)


def _seat_list(x: Any) -> list[int]:
    from musstats.rules.seats import parse_seat

    items = x if isinstance(x, list) else re.split(r"[+,\s]+", str(x))
    seats = sorted({parse_seat(i.strip() if isinstance(i, str) else i) for i in items
                    if not (isinstance(i, str) and not i.strip())})
    if not seats:
        raise MusError("speakers: name the seats that hold the lance, e.g. \"mano+second+postre\"")
    return seats


def tree_point(lance: Any, speakers: Any = None, history: Any = None) -> dict[str, Any]:
    """The public betting tree at a point, as JSON: who has spoken, whose turn it is and the
    legal actions there (or how the lance ended).  The tree of ``musstats bet --tree``."""
    from musstats.engines.betting.tree import betting_tree, pattern_mask, pattern_seats
    from musstats.rules import checks
    from musstats.rules.labels import SEATS

    name = checks.lance(lance)
    mask = pattern_mask(_seat_list(speakers)) if speakers is not None else 0b1111
    tree = betting_tree(name, mask)
    node = tree.parse_history(history)
    nd = tree.nodes[node]
    steps, n = [], 0
    for act in nd.history:
        parent = tree.nodes[n]
        steps.append({"seat": SEATS[parent.seat], "action": act})
        n = parent.children[parent.actions.index(act)]
    over = nd.is_terminal
    return {"lance": name, "speakers": [SEATS[q] for q in pattern_seats(tree.pattern)],
            "abstraction": tree.abstraction.describe(), "history": list(nd.history), "steps": steps,
            "over": over, "turn": None if over else SEATS[nd.seat], "actions": [] if over else list(nd.actions),
            "ending": tree.terminals[nd.terminal].describe() if over else None}


def _run_tree(p: dict, progress: Progress, jobs: Any) -> Outcome:
    from musstats.output.render import to_json

    return Outcome(to_json(tree_point(**p)).encode("utf-8"))


def _odds_deterministic(p: dict) -> bool:
    """True when an odds request has one answer (a seed, or exact odds by default), so that
    identical requests in flight can share one computation."""
    if p.get("seed") is not None:
        return True
    return (p.get("method") in (None, "exact") and p.get("trials") is None and p.get("target_se") is None
            and not _is_ten_kings(p.get("variant", "8-reyes")) and p.get("players", 4) == 4
            and not p.get("individual", False))


@dataclass
class Endpoint:
    """One endpoint: its parameter model, runner and documentation."""

    name: str
    model: type[BaseModel]
    run: Runner
    summary: str
    python: str
    cli: str
    media_type: str = JSON_TYPE
    #: params -> True when identical requests have one answer (may share a computation)
    deterministic: Callable[[dict], bool] = field(default=lambda p: True)


ENDPOINTS: dict[str, Endpoint] = {e.name: e for e in (
    Endpoint("odds", OddsParams, _run_odds, "P(win) and net stones of each lance",
             "musstats.odds(hand, seat, ...)", "musstats odds CARDS --format json",
             deterministic=_odds_deterministic),
    Endpoint("discard", DiscardParams, _run_discard, "Every keep-set with its expected stones, best first",
             "musstats.discard(hand, seat, ...)", "musstats discard CARDS --format json",
             deterministic=lambda p: p.get("seed") is not None),
    Endpoint("mus", MusParams, _run_mus, "Cut the mus now, or ask for it",
             "musstats.mus(hand, seat, ...)", "musstats mus CARDS --format json",
             deterministic=lambda p: p.get("seed") is not None),
    Endpoint("ordago", OrdagoParams, _run_ordago, "Call / accept an órdago at a score, with break-evens",
             "musstats.ordago(hand, seat, lance=..., score=..., ...)", "musstats ordago CARDS --format json"),
    Endpoint("game", GameParams, _run_game, "P(win the game) from every score (en paso, and with betting)",
             "musstats.analysis.game.model.game_report(variant, ...)", "musstats game --format json"),
    Endpoint("bet", BetParams, _run_bet, "Equilibrium betting of a hand in a lance",
             "musstats.analysis.betting.bet(hand, seat, lance=..., ...)", "musstats bet CARDS --format json"),
    Endpoint("hand", HandParams, _run_hand, "A hand as the table has seen it: the reads of each other hand and "
             "your decision", "musstats.hand(hand, seat, history=..., ...)", "musstats hand CARDS --format json"),
    Endpoint("tree", TreeParams, _run_tree, "The public betting tree at a point: whose turn, the legal actions",
             "musstats.engines.betting.tree.betting_tree(lance, pattern).parse_history(history)",
             "musstats bet --tree --lance LANCE (as text)"),
    Endpoint("chart", ChartParams, _run_chart, "The hand's lance chart (plots.plot_hand) as SVG",
             "musstats.output.plots.plot_hand(musstats.odds(...))", "musstats plot hand CARDS --out FILE.svg",
             media_type=SVG_TYPE, deterministic=_odds_deterministic),
)}


# --------------------------------------------------------------------------- query strings

_TRUE = ("true", "1", "yes", "on")
_FALSE = ("false", "0", "no", "off")


def query_params(model: type[BaseModel], items: list[tuple[str, str]]) -> dict[str, Any]:
    """Parameters from a query string (``?hand=R R 3 A&seat=mano&trials=100000``): numbers and
    booleans are converted for the fields that take them; a repeated key gives a list."""
    out: dict[str, Any] = {}
    for k, v in items:
        if k in out:
            out[k] = (out[k] if isinstance(out[k], list) else [out[k]]) + [v]
        else:
            out[k] = v
    for k, v in list(out.items()):
        f = model.model_fields.get(k)
        if f is None or isinstance(v, list):
            continue
        expects = _expects(f)
        if expects == _EXPECTS["bool"]:
            low = v.strip().lower()
            out[k] = True if low in _TRUE else False if low in _FALSE else v
        elif expects in (_EXPECTS["whole"], _EXPECTS["number"]):
            for conv in (int, float):
                try:
                    out[k] = conv(v)
                    break
                except ValueError:
                    pass
    return out
