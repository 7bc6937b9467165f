"""The FastAPI application of ``musstats serve``: the page, the JSON API, the job API and an
offline API reference.

Routes
------
``GET /``                    the page (``static/index.html``; ``/static/...`` its CSS and script)
``POST /api/<name>``         ``odds discard mus ordago game bet tree``: the parameters as a JSON object,
                             the answer exactly ``musstats <name> --format json`` (``to_json``)
``GET /api/<name>?...``      the same with the parameters in the query string
``POST|GET /api/chart``      the hand's lance chart (``plots.plot_hand``) as SVG
``POST /api/jobs``           ``{"kind": "odds", "params": {...}, "replaces": "<job id>"}``: start a
                             job (202), cancelling the one it replaces
``GET /api/jobs/{id}``       its state, progress ``done``/``total`` and, when done, ``result``
                             (``?wait=S`` waits up to S seconds for the end)
``GET /api/jobs/{id}/result`` the answer with its media type (SVG for a chart)
``DELETE /api/jobs/{id}``    cancel it
``GET /api/status``          the pool, the cache and the limits
``GET /docs``                the API reference (offline HTML); ``/openapi.json`` the OpenAPI document

``GET /play``, ``/api/play...`` the practice table: games against the equilibrium bots (:mod:`.play`)
``GET /api/tree?...``         the public betting tree at a point (lance, speakers, history): whose
                             turn, the legal actions, or how the lance ended

Errors are ``{"error": "<one line>"}``: 400 for a bad value (the message the command line
prints after ``musstats: error:``) or a request above the server's limits, 422 for a
parameter of the wrong JSON type or an unknown one, 404 for an unknown page or job, 405 for
a method a route does not take (PUT, PATCH, DELETE of an endpoint ...), 413 for a body
larger than 8 KB, 415 for a POST body that is not JSON, 503 when an engine is not installed.
"""

import asyncio
import html
import json
import logging
import re
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Optional

from fastapi import Body, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.types import Message, Receive, Scope, Send

from musstats import __version__
from musstats.base.errors import MusError
from musstats.web.endpoints import (ENDPOINTS, LIMITS, MAX_BODY_BYTES, TEN_KINGS_TRIALS, Endpoint, check_limits,
                                    query_params, validation_message)
from musstats.web.jobs import Busy, JobManager, error_status, error_text, one_line

__all__ = ["create_app", "STATIC", "LOCAL_HOSTS"]

STATIC = Path(__file__).with_name("static")
#: host names a server bound to loopback answers to (DNS rebinding protection)
LOCAL_HOSTS = ["127.0.0.1", "localhost", "::1", "[::1]"]
log = logging.getLogger("musstats.web")

#: the page may load only what this server serves
CSP = ("default-src 'self'; img-src 'self' blob: data:; style-src 'self'; script-src 'self'; "
       "connect-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")


class ErrorBody(BaseModel):
    error: str = Field(description="One line: what was wrong and what is accepted.")


class JobRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: str = Field(description="The endpoint: " + ", ".join(ENDPOINTS) + ".", examples=["odds"])
    params: dict[str, Any] = Field(default_factory=dict, description="Its parameters, as for POST /api/<kind>.",
                                   examples=[{"hand": "R R 3 A", "seat": "mano"}])
    replaces: Optional[str] = Field(None, description="A job of this client to cancel (the request it replaces).")


def _error(status: int, message: str, headers: dict | None = None) -> JSONResponse:
    return JSONResponse({"error": one_line(message)}, status_code=status, headers=headers)


# --------------------------------------------------------------------------- middleware

class Guard:
    """Refuses bodies and query strings above ``max_bytes`` (413/414) and API POST bodies that
    are not JSON (415), and adds security headers to every response.  Other methods go on to
    the routes, which answer 405 where they are not accepted."""

    def __init__(self, app: Any, max_bytes: int = MAX_BODY_BYTES) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                h = MutableHeaders(scope=message)
                h.setdefault("X-Content-Type-Options", "nosniff")
                h.setdefault("Referrer-Policy", "no-referrer")
                h.setdefault("Content-Security-Policy", CSP)
                h.setdefault("Cache-Control", "no-store")
            await send(message)

        limit = self.max_bytes
        if len(scope.get("query_string", b"")) > limit:
            await _error(414, f"the query string is longer than this server's limit of {limit:,} bytes")(
                scope, receive, send_with_headers)
            return
        headers = {k.lower(): v for k, v in scope.get("headers", [])}
        length = headers.get(b"content-length")
        if length is not None:
            try:
                n = int(length)
            except ValueError:
                n = -1
            if n < 0:
                await _error(400, "bad Content-Length header")(scope, receive, send_with_headers)
                return
            if n > limit:
                await _error(413, f"the request body of {n:,} bytes is larger than this server's limit of "
                                  f"{limit:,} bytes")(scope, receive, send_with_headers)
                return
        if scope["method"] == "POST" and scope["path"].startswith("/api/") and (
                length is None or length != b"0"):
            ctype = headers.get(b"content-type", b"").split(b";")[0].strip().lower()
            if ctype != b"application/json":
                await _error(415, "send the parameters as a JSON object with Content-Type: application/json")(
                    scope, receive, send_with_headers)
                return
        received = 0

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise StarletteHTTPException(413, f"the request body is larger than this server's limit of "
                                                      f"{limit:,} bytes")
            return message

        await self.app(scope, limited_receive, send_with_headers)


# --------------------------------------------------------------------------- the application

def create_app(*, manager: JobManager | None = None, workers: int | None = None,
               allowed_hosts: list[str] | None = None, warmup: bool = True) -> FastAPI:
    """The application.  ``manager``: the job manager (default: a new one with ``workers``
    threads); ``allowed_hosts``: the Host headers accepted (None: any); ``warmup``: load the
    compiled kernels at start-up (one exact odds question) so the first answer is quick."""
    jobs = manager or JobManager(workers)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        # serialise until numba shows a thread-safe threading layer (workqueue is not)
        jobs.serialise()
        tasks = [asyncio.create_task(_sweeper(jobs))]
        if warmup:
            tasks.append(asyncio.create_task(_warm_up(jobs)))
        else:
            jobs.parallelise()
        try:
            yield
        finally:
            for t in tasks:
                t.cancel()
            jobs.shutdown()

    app = FastAPI(
        title="musstats",
        version=__version__,
        summary="Odds and strategy engine for the Spanish card game Mus: the Python API over HTTP.",
        description=_DESCRIPTION,
        docs_url=None,
        redoc_url=None,
        lifespan=lifespan,
    )
    app.state.jobs = jobs
    if allowed_hosts is not None:
        app.add_middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts)
    app.add_middleware(Guard)

    # ------------------------------------------------------------------ errors

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        return _error(422, validation_message(list(exc.errors()), _model_for(request)))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException):
        detail = exc.detail if isinstance(exc.detail, str) else json.dumps(exc.detail)
        if exc.status_code == 404 and detail == "Not Found":
            detail = f"no such page or endpoint: {request.url.path} (the API is listed at /docs)"
        if exc.status_code == 405:
            hdrs = {k.lower(): v for k, v in (getattr(exc, "headers", None) or {}).items()}
            allowed = hdrs.get("allow")
            detail = (f"{request.method} is not accepted at {request.url.path}"
                      + (f"; accepted: {allowed}" if allowed else "") + " (see /docs)")
        return _error(exc.status_code, detail, headers=getattr(exc, "headers", None))

    @app.exception_handler(MusError)
    async def _mus_error(request: Request, exc: MusError):
        return _error(400, str(exc))

    @app.exception_handler(Exception)
    async def _internal(request: Request, exc: Exception):
        log.exception("internal error at %s", request.url.path)
        return _error(500, error_text(exc))

    # ------------------------------------------------------------------ the page

    @app.get("/", include_in_schema=False)
    async def index():
        return FileResponse(STATIC / "index.html", media_type="text/html; charset=utf-8")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    # ------------------------------------------------------------------ the API

    async def answer(request: Request, ep: Endpoint, params: dict) -> Response:
        try:
            check_limits(ep.name, params)
        except MusError as e:
            return _error(400, str(e))
        try:
            job = jobs.submit(ep.name, params, ep.run, share=ep.deterministic(params), register=False)
        except Busy as e:
            return _error(503, str(e), headers={"Retry-After": "2"})
        try:
            while not await jobs.wait(job, 0.5):
                if await request.is_disconnected():  # nobody is waiting any more: stop the work
                    return Response(status_code=499)
        finally:
            jobs.release(job)
        err = job.error()
        if err is not None:
            return _error(error_status(err), error_text(err))
        out = job.outcome()
        assert out is not None
        return Response(out.body, media_type=out.media_type)

    for ep in ENDPOINTS.values():
        _add_endpoint(app, ep, answer)

    from musstats.web.play import add_play_routes

    add_play_routes(app, jobs, STATIC)  # the practice table: /play and /api/play

    @app.post("/api/jobs", status_code=202, tags=["jobs"], summary="Start a job",
              responses={400: {"model": ErrorBody}, 422: {"model": ErrorBody}, 503: {"model": ErrorBody}})
    async def start_job(req: JobRequest = Body(...)):
        """Start a computation of ``kind`` with ``params`` (the parameters of ``POST /api/<kind>``) and
        return at once; poll ``GET /api/jobs/{id}``.  ``replaces``: a job to cancel, e.g. the request
        this one supersedes.  An identical request answered before is done at once (``cached``)."""
        ep = ENDPOINTS.get(req.kind)
        if ep is None:
            return _error(400, f"unknown kind {req.kind!r}; accepted: {', '.join(ENDPOINTS)}")
        try:
            params = ep.model.model_validate(req.params).model_dump(exclude_unset=True)
        except ValidationError as e:
            return _error(422, validation_message(e, ep.model))
        try:
            check_limits(ep.name, params)
            job = jobs.submit(ep.name, params, ep.run, share=ep.deterministic(params))
        except MusError as e:
            return _error(400, str(e))
        except Busy as e:
            return _error(503, str(e), headers={"Retry-After": "2"})
        if req.replaces:
            old = jobs.get(req.replaces)
            if old is not None and old.id != job.id:
                jobs.cancel(old)
        return JSONResponse(job.status(), status_code=202)

    def _job_or_404(job_id: str):
        job = jobs.get(job_id)
        if job is None:
            raise StarletteHTTPException(404, f"no job {job_id!r} (unknown, or finished more than "
                                              f"{int(jobs.keep_finished // 60)} minutes ago)")
        return job

    @app.get("/api/jobs/{job_id}", tags=["jobs"], summary="A job's state, progress and result",
             responses={404: {"model": ErrorBody}})
    async def job_status(job_id: str, wait: float = Query(0.0, ge=0.0, le=10.0,
                                                          description="Wait up to this many seconds for the end.")):
        """``state``: queued, running, done, error or cancelled; ``done``/``total``: progress in the
        engine's units (deals); when done, ``result`` (JSON kinds) and ``result_url``; on error,
        ``error`` and its HTTP ``status``."""
        job = _job_or_404(job_id)
        if wait > 0:
            await jobs.wait(job, wait)
        return job.status()

    @app.get("/api/jobs/{job_id}/result", tags=["jobs"], summary="A finished job's answer",
             responses={404: {"model": ErrorBody}, 409: {"model": ErrorBody}})
    async def job_result(job_id: str):
        """The answer with its media type, exactly as ``POST /api/<kind>`` gives it."""
        job = _job_or_404(job_id)
        err = job.error()
        if err is not None:
            return _error(error_status(err), error_text(err))
        out = job.outcome()
        if out is None:
            return _error(409, f"job {job_id} is still {job.state}")
        return Response(out.body, media_type=out.media_type)

    @app.delete("/api/jobs/{job_id}", tags=["jobs"], summary="Cancel a job",
                responses={404: {"model": ErrorBody}})
    async def cancel_job(job_id: str):
        """Cancel the job (its engine stops at the end of the current batch); a finished job is left
        as it is."""
        job = _job_or_404(job_id)
        jobs.cancel(job)
        return job.status(with_result=False)

    @app.get("/api/status", tags=["server"], summary="The pool, the cache and the limits")
    async def status():
        return {"version": __version__, **jobs.status(), "limits": _limits_doc()}

    @app.get("/api", tags=["server"], summary="The endpoints")
    async def api_index():
        return {"version": __version__, "docs": "/docs", "openapi": "/openapi.json",
                "endpoints": {f"/api/{e.name}": {"summary": e.summary, "python": e.python, "cli": e.cli,
                                                 "parameters": list(e.model.model_fields)}
                              for e in ENDPOINTS.values()},
                "jobs": "/api/jobs", "limits": _limits_doc()}

    @app.get("/docs", include_in_schema=False)
    async def docs():
        return HTMLResponse(_docs_html(app.openapi()))

    return app


def _limits_doc() -> dict[str, Any]:
    return {"max_body_bytes": MAX_BODY_BYTES, "ten_kings_trials": TEN_KINGS_TRIALS,
            **{f"/api/{k}": v for k, v in LIMITS.items()}}


def _model_for(request: Request):
    path = request.url.path
    if path.startswith("/api/"):
        ep = ENDPOINTS.get(path[len("/api/"):].strip("/"))
        if ep is not None:
            return ep.model
        if path.rstrip("/") == "/api/jobs":
            return JobRequest
    return None


def _add_endpoint(app: FastAPI, ep: Endpoint, answer) -> None:
    model = ep.model
    doc = (f"{ep.summary}.\n\nPython: `{ep.python}`.  The answer is exactly `{ep.cli}` for the same "
           f"parameters (the Python function's names).  Limits of this server: "
           f"{', '.join(f'{k} ≤ {v:,}' for k, v in LIMITS.get(ep.name, {}).items()) or 'none beyond the API'}.")
    if ep.name == "bet":
        doc += "  Answers 503 when the betting engine is not part of this installation."
    ok: dict[str, Any] = {"description": f"exactly `{ep.cli}`", "content": {ep.media_type: {}}}
    errors: dict[int | str, dict[str, Any]] = {400: {"model": ErrorBody, "description": "a bad value: the command line's one-line message"},
              413: {"model": ErrorBody, "description": "a body larger than 8 KB"},
              422: {"model": ErrorBody, "description": "an unknown parameter or one of the wrong JSON type"}}
    if ep.name == "bet":
        errors[503] = {"model": ErrorBody, "description": "the betting engine is not installed"}

    async def post(request: Request, params: model = Body(...)):  # type: ignore[valid-type]
        return await answer(request, ep, params.model_dump(exclude_unset=True))  # type: ignore[attr-defined]

    async def get(request: Request):
        try:
            params = model.model_validate(query_params(model, list(request.query_params.multi_items())))
        except ValidationError as e:
            return _error(422, validation_message(e, model))
        return await answer(request, ep, params.model_dump(exclude_unset=True))

    tag = "chart" if ep.name == "chart" else "api"
    app.add_api_route(f"/api/{ep.name}", post, methods=["POST"], response_class=Response, summary=ep.summary,
                      description=doc, responses={200: ok, **errors}, tags=[tag], name=f"{ep.name}_post")
    app.add_api_route(f"/api/{ep.name}", get, methods=["GET"], response_class=Response,
                      summary=ep.summary + " (query string)",
                      description=f"`POST /api/{ep.name}` with the parameters in the query string: "
                                  f"`?hand=R R 3 A&seat=mano`; a repeated key gives a list.",
                      responses={200: ok, **errors}, tags=[tag], name=f"{ep.name}_get")


async def _sweeper(jobs: JobManager) -> None:
    while True:
        await asyncio.sleep(5)
        jobs.sweep()


async def _warm_up(jobs: JobManager) -> None:
    """One exact odds question (loads numba and the compiled kernels), then check that numba's
    threading layer lets two workers run parallel kernels at once."""
    ep = ENDPOINTS["odds"]
    try:
        job = jobs.submit("odds", {"hand": "R R 3 A", "seat": "mano"}, ep.run, share=True, register=False)
        await jobs.wait(job, None)
        jobs.release(job)
        import numba

        layer = numba.threading_layer()
    except Exception as e:  # noqa: BLE001
        log.warning("warm-up failed (%s); computations stay serialised", e)
        return
    if layer == "workqueue":
        log.warning("numba's threading layer is workqueue (not thread-safe): one computation at a time; "
                    "install tbb or use OpenMP for parallel workers")
        return
    jobs.parallelise()


_DESCRIPTION = """\
The JSON API of `musstats serve`.  Every endpoint mirrors one function of the Python API, with
the same parameter names, and answers exactly what the matching command prints with
`--format json`.  A bad value gives status 400 and `{"error": "..."}` with the one line the
command line prints after `musstats: error:`.

Long computations can run as jobs (`POST /api/jobs`, then `GET /api/jobs/{id}` for progress
and the result, `DELETE` to cancel).  Identical requests are answered from a small cache when
their answer is unique (exact results, or Monte Carlo with a seed).
"""


# --------------------------------------------------------------------------- /docs, offline

def _esc(x: Any) -> str:
    return html.escape(str(x), quote=True)


def _md(x: Any) -> str:
    """Escaped text with `code` spans."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", _esc(x))


def _schema_rows(schema: dict, components: dict) -> list[tuple[str, str, str, str]]:
    if "$ref" in schema:
        schema = components.get(schema["$ref"].rsplit("/", 1)[-1], {})
    rows = []
    required = set(schema.get("required", []))
    for name, prop in schema.get("properties", {}).items():
        types: list[str] = []
        for alt in prop.get("anyOf", [prop]):
            t = alt.get("type", "")
            if t == "array":
                t = f"list of {alt.get('items', {}).get('type', 'values')}"
            t = "number" if t == "integer" and any(a.get("type") == "number" for a in prop.get("anyOf", [])) else t
            if t and t != "null" and t not in types:
                types.append(t)
        default = "required" if name in required else json.dumps(prop.get("default"), ensure_ascii=False)
        rows.append((name, " or ".join(types), default, prop.get("description", "")))
    return rows


def _docs_html(spec: dict) -> str:
    """The API reference as one HTML page (no script, nothing from the network)."""
    comps = spec.get("components", {}).get("schemas", {})
    out = ['<!doctype html><html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f'<title>musstats API {_esc(spec["info"]["version"])}</title>',
           '<link rel="stylesheet" href="/static/style.css"></head><body class="docs">',
           '<main id="main"><h1>musstats API</h1>',
           f'<p>Version {_esc(spec["info"]["version"])}. '
           '<a href="/">The page</a> · <a href="/openapi.json">OpenAPI document</a> · '
           '<a href="/api/status">status and limits</a></p>']
    for para in spec["info"].get("description", "").split("\n\n"):
        out.append(f"<p>{_md(para)}</p>")
    order = {"post": 0, "get": 1, "delete": 2}
    for path, methods in spec.get("paths", {}).items():
        for method, op in sorted(methods.items(), key=lambda kv: order.get(kv[0], 3)):
            out.append(f'<section class="endpoint"><h2><code>{_esc(method.upper())} {_esc(path)}</code></h2>')
            out.append(f"<p><strong>{_esc(op.get('summary', ''))}</strong></p>")
            for para in (op.get("description") or "").split("\n\n"):
                if para.strip():
                    out.append(f"<p>{_md(para)}</p>")
            rows = []
            body = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
            if body:
                rows = _schema_rows(body, comps)
            for prm in op.get("parameters", []):
                rows.append((prm["name"], prm.get("schema", {}).get("type", ""),
                             "required" if prm.get("required") else json.dumps(prm.get("schema", {}).get("default")),
                             prm.get("description", "")))
            if rows:
                out.append('<div class="scroll"><table><thead><tr><th scope="col">parameter</th>'
                           '<th scope="col">type</th><th scope="col">default</th><th scope="col">meaning</th>'
                           '</tr></thead><tbody>')
                for r in rows:
                    out.append("<tr>" + "".join(f"<td>{'<code>' + _esc(c) + '</code>' if i == 0 else _esc(c)}</td>"
                                                for i, c in enumerate(r)) + "</tr>")
                out.append("</tbody></table></div>")
            codes = ", ".join(f"{_esc(c)} {_md(r.get('description', ''))}" for c, r in op.get("responses", {}).items())
            out.append(f'<p class="codes">Responses: {codes}</p></section>')
    out.append("</main></body></html>")
    return "\n".join(out)
