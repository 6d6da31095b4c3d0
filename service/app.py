"""The FastAPI application: routers per area, shared dependencies, one error shape.

Every error a caller can meet is JSON `{"error": code, "message": one line}` with
a 4xx status when the request was at fault; nothing a client sends produces a
traceback in the answer or stops the server. Two guards run before any router:

- `AccessGuard`: without a token the server answers only to loopback host names
  (a web page elsewhere cannot reach it through DNS rebinding); with a token every
  request must carry it. Requests that change something must come from the
  server's own page when they come from a browser (checked with Origin), so
  another site open in the same browser cannot record rounds.
- `UploadLimit`: a body over the limit is refused with 413 before it is parsed.

Around them, `CatchAll` answers any unexpected exception with the JSON 500 (the
connection stays usable: an exception escaping to the server would drop it), and
`SecurityHeaders` puts a Content-Security-Policy (`frame-ancestors 'none'`: no
other site may frame the page) and X-Frame-Options on every response.
"""
from __future__ import annotations

import hmac
import logging
import re
from http.cookies import SimpleCookie
from typing import Any, Callable
from urllib.parse import parse_qs, urlsplit

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from engine import ConfigError, HouseRulesError
from vision.imageio import ImageError

from . import apischema
from .db import Conflict, GameStore, Invalid, NotFound, StoreError, StoreOpenError, StoreUnavailable
from .deps import ApiError, RecognitionSlots, Settings
from .errorshape import error_body, one_line, shown
from .routers import ROUTERS
from .routers.live import default_tracker_factory
from .routers.pages import STATIC_DIR
from .wsrefusal import RefusalsAsJson, refuse, websocket_not_found

log = logging.getLogger("chickenfoot.service")
TOKEN_COOKIE = "chickenfoot_token"
API_VERSION = "1"


def error_response(status: int, code: str, message: str, **extra: Any) -> JSONResponse:
    return JSONResponse(error_body(code, message, **extra), status_code=status)


class AccessGuard:
    """Host, token and origin checks for HTTP and WebSocket alike (see the module docstring)."""

    SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        problem, token_from_query = self._check(scope, headers)
        if problem is not None:
            status, code, message = problem
            if scope["type"] == "http":
                await error_response(status, code, message)(scope, receive, send)
            else:
                await refuse(scope, receive, send, status, code, message)
            return
        if token_from_query and scope["type"] == "http":
            send = self._with_cookie(send)
        await self.app(scope, receive, send)

    def _check(self, scope: Scope, headers: Headers) -> tuple[tuple[int, str, str] | None, bool]:
        host = headers.get("host", "")
        token = self.settings.token
        if token is None:
            name = _host_name(host)
            if name not in self.settings.allowed_hosts:
                return (403, "host_not_allowed",
                        f"this server answers to {', '.join(self.settings.allowed_hosts)} only, "
                        f"not {shown(name, 60) if name else 'no host'}"), False
        else:
            given, from_query = _given_token(scope, headers)
            if given is None or not hmac.compare_digest(given.encode(), token.encode()):
                return (401, "token_required",
                        "this server needs its access token: open the page as /?token=... or send Authorization: Bearer ..."), False
        changes = scope["type"] == "websocket" or scope.get("method", "GET") not in self.SAFE_METHODS
        origin = headers.get("origin")
        if changes and origin is not None and urlsplit(origin).netloc.lower() != host.lower():
            return (403, "cross_origin", f"requests from {shown(origin, 80)} may not change anything on this server"), False
        return None, token is not None and from_query

    def _with_cookie(self, send: Send) -> Send:
        cookie = f"{TOKEN_COOKIE}={self.settings.token}; Path=/; HttpOnly; SameSite=Strict"

        async def wrapped(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = dict(message)
                message["headers"] = list(message.get("headers", [])) + [(b"set-cookie", cookie.encode("latin-1"))]
            await send(message)

        return wrapped


def _host_name(host: str) -> str:
    if host.startswith("["):
        return host[1:].partition("]")[0]
    return host.rpartition(":")[0] if host.count(":") == 1 else host


def _given_token(scope: Scope, headers: Headers) -> tuple[str | None, bool]:
    auth = headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip(), False
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    if query.get("token"):
        return query["token"][0], True
    cookie = SimpleCookie()
    try:
        cookie.load(headers.get("cookie", ""))
    except Exception:  # noqa: BLE001 - a mangled cookie header is just "no token"
        return None, False
    if TOKEN_COOKIE in cookie:
        return cookie[TOKEN_COOKIE].value, False
    return None, False


class UploadLimit:
    """Refuse request bodies over `limit` bytes with a JSON 413, before anything parses them.

    The body is read here (up to the limit) and handed on whole: photos are read
    into memory to be decoded anyway, and a stream cut off half-way through
    multipart parsing would surface as a confusing parse error instead of 413.
    """

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        too_big = error_response(
            413, "upload_too_large", f"the upload is over the {self.limit / 2**20:.0f} MB limit",
        )
        length = Headers(scope=scope).get("content-length")
        if length is not None and length.isdigit() and int(length) > self.limit:
            await too_big(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return  # the client left before finishing its upload; nobody to answer
            body = message.get("body", b"")
            size += len(body)
            if size > self.limit:
                await too_big(scope, receive, send)
                return
            chunks.append(body)
            if not message.get("more_body", False):
                break
        whole = b"".join(chunks)
        del chunks
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": whole, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


PAGE_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
            "media-src 'self' blob:; connect-src 'self'{ws}; object-src 'none'; base-uri 'none'; "
            "form-action 'self'; frame-ancestors 'none'")
"""The page (static/index.html, app.js, app.css) loads only from this server: photos show as blob:
and data: URLs, the live tab opens a WebSocket back to the same host."""
DOCS_CSP = ("default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
            "img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'")
"""/docs: FastAPI's Swagger page starts Swagger UI from an inline script, and Swagger UI styles inline."""
MAX_HOST = 260
"""Longest Host header put into the policy (a DNS name has at most 253 characters, then a port):
a longer one is not repeated back in every answer's headers."""
_PLAIN_HOST = re.compile(r"^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$")


class SecurityHeaders:
    """Content-Security-Policy and X-Frame-Options on every HTTP response, errors included."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope.get("path", "") == "/docs":
            csp = DOCS_CSP
        else:
            host = Headers(scope=scope).get("host", "")
            ws = f" ws://{host} wss://{host}" if len(host) <= MAX_HOST and _PLAIN_HOST.match(host) else ""
            csp = PAGE_CSP.format(ws=ws)
        extra = [(b"content-security-policy", csp.encode("latin-1")), (b"x-frame-options", b"DENY"),
                 (b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer")]

        async def wrapped(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = dict(message)
                names = {k.lower() for k, _ in message.get("headers", [])}
                message["headers"] = list(message.get("headers", [])) + [h for h in extra if h[0] not in names]
            await send(message)

        await self.app(scope, receive, wrapped)


class CatchAll:
    """Answer an exception nothing else handled with the JSON 500, instead of letting it reach the
    server (which logs it and then drops the keep-alive connection without a word). A WebSocket is
    closed with code 1011 and a reason."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        started = False

        async def wrapped(message: Message) -> None:
            nonlocal started
            if message["type"] in ("http.response.start", "websocket.accept", "websocket.close"):
                started = True
            await send(message)

        try:
            await self.app(scope, receive, wrapped)
        except Exception:  # noqa: BLE001 - the point of this class
            log.exception("unhandled error in %s %s", scope.get("method", "WEBSOCKET"), scope.get("path", ""))
            message = "something went wrong on the server; it has been logged"
            try:
                if scope["type"] == "http" and not started:
                    await error_response(500, "internal_error", message)(scope, receive, send)
                elif scope["type"] == "websocket" and not started:
                    await refuse(scope, receive, send, 500, "internal_error", message, close_code=1011)
                elif scope["type"] == "websocket":
                    await send({"type": "websocket.close", "code": 1011, "reason": "internal error"})
            except Exception:  # noqa: BLE001 - the client is gone or the response half sent: nothing more to say
                pass


def _validation_message(exc: RequestValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        loc = [str(x) for x in err.get("loc", ()) if x not in ("body", "query", "path", "form")]
        where = one_line(".".join(loc), 60)
        if err.get("type") == "json_invalid":
            parts.append(f"the body is not valid JSON ({err.get('ctx', {}).get('error', 'decode error')})")
        elif err.get("type") == "missing":
            parts.append(f"{where or 'body'}: required" + (" (send the photo as multipart/form-data)" if where == "photo" else ""))
        else:
            parts.append(f"{where or 'body'}: {one_line(err.get('msg', 'invalid'), 160)}")
    return "; ".join(parts) or "the request is not valid"


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def _api_error(_: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc.status, exc.code, exc.message, **exc.extra)

    @app.exception_handler(StoreError)
    async def _store_error(request: Request, exc: StoreError) -> JSONResponse:
        if isinstance(exc, StoreUnavailable):
            log.warning("%s %s: %s (%s)", request.method, request.url.path, exc.fault.message, exc.detail)
        status = {NotFound: 404, Conflict: 409, Invalid: 422, StoreOpenError: 503, StoreUnavailable: 503}.get(type(exc), 500)
        return error_response(status, exc.code, str(exc))

    @app.exception_handler(HouseRulesError)
    async def _rules_error(_: Request, exc: HouseRulesError) -> JSONResponse:
        return error_response(422, exc.code, str(exc))

    @app.exception_handler(ConfigError)
    async def _config_error(_: Request, exc: ConfigError) -> JSONResponse:
        return error_response(422, "invalid_game", str(exc))

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        return error_response(422, "invalid_request", _validation_message(exc))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        codes = {400: "bad_request", 404: "not_found", 405: "method_not_allowed", 413: "upload_too_large"}
        message = exc.detail if isinstance(exc.detail, str) else "request refused"
        if exc.status_code == 400 and "parsing the body" in message:
            if "json" in request.headers.get("content-type", "").lower():
                message = "the body could not be read as JSON (nested too deeply, or a number too long to read)"
            else:
                message = "the request body could not be parsed (a broken multipart form, or a part header too long?)"
        return error_response(exc.status_code, codes.get(exc.status_code, f"http_{exc.status_code}"), message)

    @app.exception_handler(ImageError)
    async def _image_error(_: Request, exc: ImageError) -> JSONResponse:
        # vision.imageio says what is wrong in one line and which kind of problem it is
        too_big = exc.kind == "too_large"
        return error_response(413 if too_big else 422, "image_too_large" if too_big else "bad_image", str(exc))

    @app.exception_handler(Exception)
    async def _crash(_: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error")
        return error_response(500, "internal_error", "something went wrong on the server; it has been logged")


def create_app(settings: Settings | None = None,
               tracker_factory: Callable[..., Any] | None = None) -> FastAPI:
    """Build the app around one database; opening it (and migrating it) happens here, not per request."""
    settings = settings or Settings()
    app = FastAPI(
        title="chickenfoot", version=API_VERSION,
        description="Read Chicken Foot dominoes from photos, audit layouts, keep score. "
                    "Errors are JSON: {\"error\": code, \"message\": text}.",
        docs_url=None, redoc_url=None,
    )
    app.state.settings = settings
    app.state.store = GameStore(settings.db_path)
    app.state.slots = RecognitionSlots(settings.recognition_slots)
    app.state.tracker_factory = tracker_factory or default_tracker_factory
    _install_error_handlers(app)
    apischema.install(app)
    for router in ROUTERS:
        app.include_router(router)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    app.router.default = websocket_not_found(app.router.default)
    app.add_middleware(RefusalsAsJson)
    app.add_middleware(UploadLimit, limit=settings.max_upload_bytes)
    app.add_middleware(AccessGuard, settings=settings)
    app.add_middleware(CatchAll)
    app.add_middleware(SecurityHeaders)  # added last = runs first
    return app
