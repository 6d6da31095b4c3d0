"""`JsonHandshakeWebSockets`: uvicorn's WebSocket protocol, answering a handshake it cannot accept
with the JSON error shape.

The WebSocket library checks the handshake (method, Sec-WebSocket-Key, -Version, Upgrade,
Connection) before the app sees anything, and refuses a bad one with a plain-text 400 or 405
that quotes the offending header back. Here the refusal keeps its status but carries
`{"error", "message"}` like every other answer, with what is quoted cut short. Imported only
when the server starts (it needs uvicorn's protocol classes).
"""
from __future__ import annotations

import json
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from .errorshape import error_body, one_line


def json_refusal(response: Response, problem: BaseException | None) -> Response:
    """The library's refusal with the same status, as JSON."""
    if response.status_code == 405:
        code, message = "method_not_allowed", "a WebSocket connection is opened with GET"
    else:
        detail = one_line(str(problem), 120) if problem is not None else "refused"
        code, message = "bad_websocket_handshake", f"not a WebSocket handshake this server can accept: {detail}"
    body = json.dumps(error_body(code, message)).encode()
    headers = Headers([(k, v) for k, v in response.headers.raw_items()
                       if k.lower() not in ("content-type", "content-length")])
    headers["Content-Type"] = "application/json"
    headers["Content-Length"] = str(len(body))
    return Response(response.status_code, response.reason_phrase, headers, body)


class JsonHandshakeWebSockets(WebSocketsSansIOProtocol):
    """The sans-I/O websockets protocol uvicorn picks by default, with JSON handshake refusals."""

    def handle_connect(self, event: Request) -> None:
        accept = self.conn.accept

        def accept_or_refuse_in_json(request: Request) -> Any:
            response = accept(request)
            if response.status_code == 101:
                return response
            return json_refusal(response, self.conn.handshake_exc)

        self.conn.accept = accept_or_refuse_in_json  # type: ignore[method-assign]
        try:
            super().handle_connect(event)
        finally:
            del self.conn.accept
