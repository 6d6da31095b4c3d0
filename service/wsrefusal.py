"""A WebSocket the app will not accept is refused with an HTTP answer in the JSON error shape.

An ASGI app that closes a WebSocket before accepting it makes the server answer an empty
403: the client cannot tell a wrong address from a missing token. Servers that offer the
"websocket.http.response" extension (uvicorn does, and Starlette's test client) let the app
send a whole HTTP response instead; `refuse` does that, and falls back to the bare close
where the extension is missing. `RefusalsAsJson` applies it to any close before accept,
`websocket_not_found` to an address with no WebSocket endpoint.
"""
from __future__ import annotations

from typing import Any

from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .errorshape import error_body, shown

DENIAL_EXTENSION = "websocket.http.response"


async def refuse(scope: Scope, receive: Receive, send: Send, status: int, code: str, message: str,
                 close_code: int = 1008) -> None:
    """Refuse a WebSocket before accepting it: a JSON HTTP answer where the server allows one."""
    if DENIAL_EXTENSION in (scope.get("extensions") or {}):
        await JSONResponse(error_body(code, message), status_code=status)(scope, receive, send)
    else:
        await send({"type": "websocket.close", "code": close_code, "reason": message[:120]})


def websocket_not_found(default: Any) -> Any:
    """The router's fallback, answering a WebSocket at an address without one with a JSON 404."""

    async def not_found(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            await refuse(scope, receive, send, 404, "not_found",
                         f"no WebSocket endpoint at {shown(scope.get('path', ''), 80)}")
            return
        await default(scope, receive, send)

    return not_found


class RefusalsAsJson:
    """Turn a close sent before accept (a refusal with no words) into a JSON 403."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket" or DENIAL_EXTENSION not in (scope.get("extensions") or {}):
            await self.app(scope, receive, send)
            return
        answered = False

        async def wrapped(message: Message) -> None:
            nonlocal answered
            if not answered and message["type"] == "websocket.close":
                answered = True
                reason = message.get("reason") or "this WebSocket connection was refused"
                await refuse(scope, receive, send, 403, "websocket_refused", reason)
                return
            if message["type"] in ("websocket.accept", "websocket.http.response.start"):
                answered = True
            await send(message)

        await self.app(scope, receive, wrapped)
