"""``musstats serve``: the web page and JSON API on this machine."""

from __future__ import annotations

import os
import sys
import threading

import click

from musstats.cli.common import RULES_EPILOG, Command, exit_now, number

__all__ = ["serve"]


@click.command(cls=Command, epilog=RULES_EPILOG)
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on; 127.0.0.1 is this machine only (0.0.0.0: every network, with a warning).")
@click.option("--port", default="8000", show_default=True, help="Port to listen on (0: any free port).")
@click.option("--open", "open_browser", is_flag=True, help="Open the page in the web browser.")
@click.option("--workers", default=None,
              help="Worker threads for the computations [default: twice the CPUs, 4 to 8].")
def serve(host, port, open_browser, workers) -> None:
    """A local web page for players, in Spanish or English: pick four cards, a seat, the score
    and the rules, and see whether to call or accept an órdago against equilibrium opponents,
    the equilibrium betting of each lance step by step, whether to cut the mus, what to
    throw and the odds of each lance, with a chart.

    The same server answers a JSON API (/api/odds, /api/discard, /api/mus, /api/ordago,
    /api/game, /api/bet, /api/tree, /api/chart) whose answers are the commands' --format
    json; the reference is at /docs.  Ctrl-C stops it.

    Example: musstats serve --open
    """
    from musstats.base.errors import MusError

    port_n = number(port, "--port", 0, 65535)
    n_workers = number(workers, "--workers", 1, 32)
    host = host.strip()
    if not host:
        raise MusError("--host must be an address such as 127.0.0.1 or 0.0.0.0")
    sock = _listen(host, port_n)
    try:
        import uvicorn

        from musstats.web.app import LOCAL_HOSTS, create_app
    except ImportError as e:  # pragma: no cover - the web extra is missing
        sock.close()
        raise MusError(f"musstats serve needs FastAPI and uvicorn ({e.name} is missing): "
                       "pip install 'musstats[web]'") from None

    bound_port = sock.getsockname()[1]
    url = f"http://{_url_host(host)}:{bound_port}/"
    local = _is_loopback(host)
    if local:
        click.echo(f"musstats serve: {url} (listening on {host} only: this machine; Ctrl-C stops)")
    else:
        click.echo(f"musstats serve: {url} (listening on {host}; Ctrl-C stops)")
        click.echo(f"musstats: warning: --host {host} makes the page and its API reachable from other machines on "
                   "the network, without a password; use 127.0.0.1 for this machine only", err=True)
    sys.stdout.flush()

    allowed = LOCAL_HOSTS if local else None  # a loopback server answers only to loopback names (DNS rebinding)
    app = create_app(workers=n_workers, allowed_hosts=allowed)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on", timeout_graceful_shutdown=3,
                            timeout_keep_alive=5)
    server = _stopping_server(uvicorn.Server)(config)
    if open_browser:
        import webbrowser

        threading.Timer(0.8, webbrowser.open, args=(url,)).start()
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    if not server.started:
        raise MusError("the server could not start (see the messages above)")
    # cancelled computations stop at the end of their batch; one that cannot be interrupted
    # (solving a betting strategy) is abandoned rather than waited for
    if app.state.jobs.idle(5.0):
        click.echo("musstats serve: stopped", err=True)
        sys.exit(130)
    exit_now("musstats serve: stopped (a computation that cannot be interrupted was abandoned)")


#: seconds a stopping server may take before it exits anyway (more than the graceful 3 s and
#: the 5 s given to the computations)
STOP_SECONDS = 12.0
STOPPED_LATE = "musstats serve: stopped (the shutdown took too long)"


def _stopping_server(base: type) -> type:
    """uvicorn's Server that, once Ctrl-C has asked it to stop, exits 130 after
    :data:`STOP_SECONDS` whatever still runs: a bound on the stop, should the graceful shutdown
    or the lifespan's end hang."""

    class Server(base):
        def handle_exit(self, sig, frame) -> None:
            if not getattr(self, "_deadline", None):
                self._deadline = threading.Timer(STOP_SECONDS, lambda: exit_now(STOPPED_LATE))
                self._deadline.daemon = True
                self._deadline.start()
            super().handle_exit(sig, frame)

    return Server


def _listen(host: str, port: int):
    """A listening socket on host:port, or MusError with one line (address in use, unknown host...)."""
    import socket

    from musstats.base.errors import MusError

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as e:
        raise MusError(f"cannot listen on {host!r}: {e.strerror or e}") from None
    family, kind, proto, _, addr = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        if os.name != "nt":  # on Windows the option would let two servers share the port
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(addr)
        sock.listen(2048)  # a burst of connections waits here (as uvicorn's own default)
    except OSError as e:
        sock.close()
        what = "the port is in use" if e.errno in (98, 48, 10048) else (e.strerror or str(e))
        raise MusError(f"cannot listen on {host}:{port}: {what}"
                       + ("; choose another with --port" if e.errno in (98, 48, 10048) else "")) from None
    sock.setblocking(False)
    return sock


def _is_loopback(host: str) -> bool:
    import ipaddress

    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _url_host(host: str) -> str:
    if host in ("0.0.0.0", "::"):
        return "127.0.0.1" if host == "0.0.0.0" else "[::1]"
    return f"[{host}]" if ":" in host and not host.startswith("[") else host
