"""The practice table of ``musstats serve``: games against the equilibrium bots over HTTP.

Routes
------
``GET /play``                       the table's page (``static/play.html``)
``POST /api/play``                  a new game (``{"target": 40, "match": "single", "seed": null}``): 201 with
                                    its ``id`` and its state
``GET /api/play/{id}``              the state (``?since=N``: the events from the N-th)
``POST /api/play/{id}/act``         your action (``{"action": "envido 2"}``, ``{"action": "throw", "cards":
                                    "7 A"}``): the new state; an action that is not legal now is a 400 with
                                    one line, and changes nothing
``POST /api/play/{id}/next``        the next hand
``GET /api/play/{id}/hint``         the figures of your decision now (as ``musstats bet`` / ``mus`` /
                                    ``discard``)
``GET /api/play/{id}/review``       the review of a hand (``?game=G&hand=H``, default the current one) and
                                    the totals of the game so far
``GET /api/play/{id}/history``      the hand history (JSON; ``musstats review`` reads it)
``DELETE /api/play/{id}``           forget the game

Games live in the server's memory only (nothing is written to disk): at most
:data:`MAX_GAMES` at once, the least recently used dropped first, and a game untouched for
:data:`MAX_IDLE` seconds is dropped.  A game's id is a random token that only the page that
started it knows: two tabs never see each other's games.  An unknown id is a 404.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from typing import Any, Optional, Union

from fastapi import Body, FastAPI, Query, Request
from fastapi.responses import FileResponse, JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr
from starlette.exceptions import HTTPException as StarletteHTTPException

from musstats.base.errors import MusError

__all__ = ["PlayStore", "add_play_routes", "MAX_GAMES", "MAX_IDLE"]

#: games kept at once (the least recently used is dropped beyond it)
MAX_GAMES = 200
#: seconds a game may stay untouched
MAX_IDLE = 6 * 3600


class NewGame(BaseModel):
    model_config = ConfigDict(extra="forbid")
    target: StrictInt = Field(40, description="Stones to win the game: 40 or 30.")
    match: StrictStr = Field("single", description="single, best-of-3 or first-to-3.")
    seed: Optional[StrictInt] = Field(None, description="Seed of the deals and of the bots' draws (default: fresh).")


class Act(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: StrictStr = Field(..., description="mus, corto, throw, or a bet: paso, envido 2, quiero, +2, órdago...",
                              examples=["paso"])
    cards: Optional[Union[StrictStr, list[StrictStr]]] = Field(None, description="The cards thrown (throw), e.g. "
                                                                                 "\"7/o A/c\".")
    since: Optional[StrictInt] = Field(None, description="Return the events from this one on.")


class PlayStore:
    """The games of this server, by id: bounded in number and idle time."""

    def __init__(self, max_games: int = MAX_GAMES, max_idle: float = MAX_IDLE) -> None:
        self.max_games, self.max_idle = max_games, max_idle
        self._games: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()
        self.created = 0
        self.evicted = 0

    def new(self, **kw: Any) -> tuple[str, Any]:
        from musstats.analysis.practice import PracticeGame

        game = PracticeGame(**kw)
        gid = secrets.token_urlsafe(16)
        with self._lock:
            self._games[gid] = game
            self.created += 1
            self._trim()
        return gid, game

    def get(self, gid: str) -> Any:
        with self._lock:
            self._trim()
            g = self._games.get(gid)
            if g is None:
                raise StarletteHTTPException(404, f"no game {gid!r} on this server (unknown, or dropped after "
                                                  f"{int(self.max_idle // 3600)} hours untouched)")
            self._games.move_to_end(gid)
            g.touched = time.monotonic()
            return g

    def drop(self, gid: str) -> None:
        with self._lock:
            if self._games.pop(gid, None) is None:
                raise StarletteHTTPException(404, f"no game {gid!r} on this server")

    def _trim(self) -> None:
        now = time.monotonic()
        for gid in list(self._games):
            if now - self._games[gid].touched > self.max_idle:
                del self._games[gid]
                self.evicted += 1
        while len(self._games) > self.max_games:
            self._games.popitem(last=False)
            self.evicted += 1

    def status(self) -> dict[str, int]:
        with self._lock:
            return {"games": len(self._games), "max_games": self.max_games, "max_idle_s": int(self.max_idle),
                    "created": self.created, "evicted": self.evicted}


def add_play_routes(app: FastAPI, jobs: Any, static: Any, store: PlayStore | None = None) -> PlayStore:
    """The practice table's page and API on ``app``; heavy figures (hints, reviews) run in the
    job pool ``jobs``."""
    from musstats.web.endpoints import Outcome
    from musstats.web.jobs import Busy, error_status, error_text

    games = store or PlayStore()
    app.state.play = games

    def _json(x: Any) -> Response:
        from musstats.output.render import to_json

        return Response(to_json(x), media_type="application/json")

    def _err(status: int, message: str) -> JSONResponse:
        from musstats.web.jobs import one_line

        return JSONResponse({"error": one_line(message)}, status_code=status)

    async def _computed(request: Request, kind: str, params: dict, fn) -> Response:
        def runner(p: dict, progress, manager) -> Outcome:
            from musstats.output.render import to_json

            return Outcome(to_json(fn()).encode(), cacheable=False)

        try:
            job = jobs.submit(kind, params, runner, share=False, register=False)
        except Busy as e:
            return _err(503, str(e))
        try:
            while not await jobs.wait(job, 0.5):
                if await request.is_disconnected():
                    return Response(status_code=499)
        finally:
            jobs.release(job)
        err = job.error()
        if err is not None:
            return _err(error_status(err), error_text(err))
        out = job.outcome()
        assert out is not None
        return Response(out.body, media_type=out.media_type)

    @app.get("/play", include_in_schema=False)
    async def play_page():
        return FileResponse(static / "play.html", media_type="text/html; charset=utf-8")

    @app.post("/api/play", status_code=201, tags=["play"], summary="Start a game at the practice table")
    def new_game(req: Optional[NewGame] = Body(None)):
        """A new game (or match) against the equilibrium bots: its ``id`` and its state.  The bots
        have acted up to your first turn."""
        req = req or NewGame.model_validate({})
        if req.target not in (40, 30):
            raise MusError(f"unknown target {req.target}; accepted: 40, 30")
        gid, g = games.new(seed=req.seed, target=req.target, match=req.match)
        return JSONResponse({"id": gid, "state": g.state()}, status_code=201)

    @app.get("/api/play/{gid}", tags=["play"], summary="A game's state")
    def game_state(gid: str, since: int = Query(0, ge=0, description="The events from this one on.")):
        """The score, your cards, whose turn and what you may do, the hand's public events, and
        at the end of the hand the count and every seat's cards."""
        return _json(games.get(gid).state(since))

    @app.post("/api/play/{gid}/act", tags=["play"], summary="Your action")
    def game_act(gid: str, req: Act = Body(...)):
        """Take your action; the bots then play up to your next turn (or the end of the hand).
        400 with one line, the game unchanged, for an action that is not legal now."""
        g = games.get(gid)
        g.act(req.action, req.cards)
        return _json(g.state(req.since or 0))

    @app.post("/api/play/{gid}/next", tags=["play"], summary="The next hand")
    def game_next(gid: str):
        """Deal the next hand (mano moves on; after a game of a match, the next game)."""
        g = games.get(gid)
        g.next_hand()
        return _json(g.state())

    @app.get("/api/play/{gid}/hint", tags=["play"], summary="The figures of your decision now")
    async def game_hint(request: Request, gid: str):
        """The equilibrium's probability and expected stones of each legal action (as ``musstats
        bet``), cut or mus (as ``musstats mus``), or every keep-set (as ``musstats discard``)."""
        g = games.get(gid)
        return await _computed(request, "play-hint", {"id": gid, "events": len(g.events), "hand": g.hr.number},
                               g.hint)

    @app.get("/api/play/{gid}/review", tags=["play"], summary="The review of a hand and of the game so far")
    async def game_review(request: Request, gid: str, game: Optional[int] = Query(None, ge=1),
                          hand: Optional[int] = Query(None, ge=1)):
        """Your decisions of the hand with the equilibrium's best action, the expected stones of
        each and the stones lost; and the totals of the game (per lance) so far."""
        g = games.get(gid)
        hr = g.hand_record(game, hand)
        return await _computed(request, "play-review", {"id": gid, "game": hr.game, "hand": hr.number},
                               lambda: _review(g, hr))

    @app.get("/api/play/{gid}/history", tags=["play"], summary="The hand history (JSON)")
    def game_history(gid: str):
        """The game so far in the format ``musstats review`` reads (docs/practice.md)."""
        from musstats.output.render import to_json

        g = games.get(gid)
        return Response(to_json(g.history()), media_type="application/json", headers={
            "Content-Disposition": f'attachment; filename="musstats-game-{g.seed}.json"'})

    @app.delete("/api/play/{gid}", tags=["play"], summary="Forget a game")
    def game_drop(gid: str):
        games.drop(gid)
        return {"dropped": gid}

    @app.get("/api/play", tags=["play"], summary="The practice table's limits")
    def play_status():
        return games.status()

    return games


def _review(game: Any, hr: Any) -> dict[str, Any]:
    """The review of hand ``hr`` of ``game`` and the totals of its game so far (reviews kept in
    the game: each hand is valued once)."""
    from musstats.analysis.practice.review import review_hand, review_meta, summarise

    cache = game.__dict__.setdefault("reviews", {})
    with game.lock:
        hands = [h for h in game.record.hands() if h.game == hr.game and h.complete]
    out = []
    for h in hands + ([hr] if not hr.complete else []):
        key = (h.game, h.number, h.complete, len(h.hand.decisions))
        if key not in cache:
            cache[key] = review_hand(h)
        out.append(cache[key])
    this = next(r for r in out if r.game == hr.game and r.hand == hr.number)
    return {**review_meta(game.record), "hand": this.to_dict(),
            "game_review": summarise([d for r in out if r.complete for d in r.decisions])}
