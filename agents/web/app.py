"""The Starlette app of ``machiavelli serve``: the play page, its assets and a small JSON API.

Routes (every API answer is JSON; an error is ``{"error": MESSAGE}`` with a 4xx status, or 503
when the server holds its most games; nothing changes on an error):

* ``GET /`` the page; ``GET /static/NAME`` one of a fixed set of packaged files (no request names a
  file: the names are keys of a table, never joined to a path);
* ``GET /api/options`` the presets, the opponents a game may have, the player counts;
* ``POST /api/games`` a new game (``{"rules", "players", "opponents", "name", "seat", "seed"}``);
* ``GET /api/games/ID`` a game's view; ``DELETE`` abandons it (no record);
* ``POST /api/games/ID/play`` (``{"cards": [...]}``), ``/draw``, ``/advance`` (one opponent move);
* ``GET /api/games/ID/hints?limit=N`` the person's legal plays, most cards first.

Requests are bounded: bodies of at most :data:`MAX_BODY` bytes (413), ``application/json`` only
on POST (415; a cross-site form cannot post one without a preflight that this app never answers),
strict JSON (:func:`machiavelli_env.records.loads`, 400). With a loopback bind only loopback
``Host`` names are served (a DNS-rebinding page gets 400). Engine work runs in Starlette's
thread pool, serialised by the :class:`~agents.web.games.GameStore` lock.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from machiavelli_env.records import JSONInputError, loads

from ..tableview import card_css, card_js
from .games import GameStore, WebError

__all__ = ["LOOPBACK_HOSTS", "MAX_BODY", "create_app"]

#: Largest request body accepted (bytes); a play of 60 cards is under 300.
MAX_BODY = 4096
#: ``Host`` names served when the server is bound to a loopback address.
LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "[::1]", "::1", "testserver"]

_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


def _static(name: str) -> str:
    return resources.files(__package__).joinpath("static", name).read_text(encoding="utf-8")


def _assets() -> dict[str, tuple[str, str]]:
    """The files ``GET /static/NAME`` serves: name -> (media type, text), read once."""
    return {
        "cards.css": ("text/css", card_css()),
        "cards.js": ("text/javascript", card_js()),
        "play.css": ("text/css", _static("play.css")),
        "play.js": ("text/javascript", _static("play.js")),
    }


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=_HEADERS)


async def _json_body(request: Request) -> Any:
    """The request's JSON (``None`` for an empty body), or :class:`WebError`."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise WebError(415, "send the request as Content-Type: application/json")
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
        raise WebError(413, f"the request body is larger than {MAX_BODY} bytes")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise WebError(413, f"the request body is larger than {MAX_BODY} bytes")
    if not body.strip():
        return None
    try:
        return loads(bytes(body), max_depth=8)
    except JSONInputError as exc:
        raise WebError(400, f"the request body is not valid JSON: {exc}") from None


def create_app(store: GameStore, *, loopback_only: bool = True, pace_ms: int = 800) -> Starlette:
    """The app serving ``store``'s games; ``loopback_only`` restricts the ``Host`` header to
    :data:`LOOPBACK_HOSTS`; ``pace_ms`` is the page's default pause between opponent moves."""
    assets = _assets()
    page = _static("play.html").replace("%%PACE%%", str(int(pace_ms)))

    async def index(request: Request) -> Response:
        return Response(page, media_type="text/html; charset=utf-8", headers=_HEADERS)

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in assets:
            raise WebError(404, "no such file")
        media, text = assets[name]
        return Response(text, media_type=f"{media}; charset=utf-8", headers=_HEADERS)

    async def options(request: Request) -> Response:
        return JSONResponse(store.options(), headers=_HEADERS)

    async def new_game(request: Request) -> Response:
        data = await _json_body(request)
        view = await run_in_threadpool(store.create, {} if data is None else data)
        return JSONResponse(view, status_code=201, headers=_HEADERS)

    async def one_game(request: Request) -> Response:
        gid = request.path_params["gid"]
        if request.method == "DELETE":
            await run_in_threadpool(store.drop, gid)
            return JSONResponse({"dropped": gid}, headers=_HEADERS)
        return JSONResponse(await run_in_threadpool(store.view, gid), headers=_HEADERS)

    def action(what: str) -> Any:
        async def endpoint(request: Request) -> Response:
            data = await _json_body(request)
            view = await run_in_threadpool(store.act, request.path_params["gid"], what, data)
            return JSONResponse(view, headers=_HEADERS)

        return endpoint

    async def hints(request: Request) -> Response:
        raw = request.query_params.get("limit", "8")
        if not raw.isdigit() or len(raw) > 3:
            raise WebError(422, f"limit must be a whole number 1..20, got {raw[:10]!r}")
        return JSONResponse(await run_in_threadpool(store.hints, request.path_params["gid"], int(raw)),
                            headers=_HEADERS)

    async def web_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, WebError)
        return _error(exc.status, exc.message)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        message = {404: "no such page", 405: f"{request.method} is not allowed here"}.get(exc.status_code,
                                                                                         str(exc.detail))
        return _error(exc.status_code, message)

    routes = [
        Route("/", index, methods=["GET"]),
        Route("/static/{name}", static, methods=["GET"]),
        Route("/api/options", options, methods=["GET"]),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/{gid}", one_game, methods=["GET", "DELETE"]),
        Route("/api/games/{gid}/play", action("play"), methods=["POST"]),
        Route("/api/games/{gid}/draw", action("draw"), methods=["POST"]),
        Route("/api/games/{gid}/advance", action("advance"), methods=["POST"]),
        Route("/api/games/{gid}/hints", hints, methods=["GET"]),
    ]
    middleware = [Middleware(TrustedHostMiddleware, allowed_hosts=LOOPBACK_HOSTS)] if loopback_only else []
    app = Starlette(routes=routes, middleware=middleware,
                    exception_handlers={WebError: web_error, HTTPException: http_error})
    app.state.store = store
    return app
