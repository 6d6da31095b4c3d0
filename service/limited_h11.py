"""`LimitedH11Protocol`: uvicorn's h11 protocol with the limits of `connlimits.ServerLimits` in force."""
from __future__ import annotations

import asyncio
import re
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from .connlimits import ServerLimits
from .errorshape import raw_json_response

try:  # the WebSocket parser's own limits: an upgrade request over them cannot be parsed there
    from websockets.http11 import MAX_LINE_LENGTH as WS_MAX_LINE, MAX_NUM_HEADERS as WS_MAX_HEADERS
except ImportError:  # pragma: no cover - websockets is a dependency of the service
    WS_MAX_LINE, WS_MAX_HEADERS = 8192, 128


_HEAD_END = re.compile(rb"\n\r?\n")
"""Where a request head ends, as h11 finds it (a blank line, with or without the carriage return)."""


class LimitedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with header/body timeouts, a connection cap and a WebSocket head check."""

    limits: ServerLimits = ServerLimits()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._timer: asyncio.TimerHandle | None = None
        self._phase: str | None = None  # "head", "body" or None (no timer: idle keep-alive or app at work)
        self._seen_bytes = False  # any byte of the current request head
        self._upgraded = False  # handed to the WebSocket protocol: the connection is no longer this one's

    # connection lifecycle

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self.limits.max_connections:
            self.connections.discard(self)
            self._warn_refused()
            transport.write(raw_json_response(503, "too_many_connections",
                                              "the server has too many open connections; try again shortly"))
            transport.close()
            return
        self._sync_timer(data_arrived=False)

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_timer()
        self._phase = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if data and self.conn.their_state is h11.IDLE:
            self._seen_bytes = True
            if self._head_too_long(data):
                self._cancel_timer()
                self._phase = None
                self.transport.write(self._head_too_long_answer())
                self.transport.close()
                return
        super().data_received(data)
        self._sync_timer(data_arrived=True)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._sync_timer(data_arrived=False)

    def send_400_response(self, msg: str) -> None:
        """A request h11 cannot parse (or a head over the size limit): JSON, like every other error."""
        self._cancel_timer()
        self._phase = None
        too_big = len(self.conn.trailing_data[0]) > self.limits.max_head_bytes
        if too_big:
            answer = self._head_too_long_answer()
        else:
            answer = raw_json_response(400, "bad_request", "the request is not valid HTTP/1.1 "
                                                           "(a broken request line, header, Content-Length or chunk)")
        self.transport.write(answer)
        self.transport.close()

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        self._cancel_timer()
        self._phase = None
        request_line = len(event.method) + len(event.target) + len(b"  HTTP/1.1\r\n")  # as the parser counts it
        if request_line > WS_MAX_LINE:
            self._refuse(414, "uri_too_long",
                         f"a WebSocket request line may have at most {WS_MAX_LINE} bytes (this one has {request_line})")
            return
        if len(self.headers) > WS_MAX_HEADERS or any(len(k) + len(v) + 4 > WS_MAX_LINE for k, v in self.headers):
            self._refuse(431, "headers_too_large",
                         f"a WebSocket request may carry at most {WS_MAX_HEADERS} headers of at most {WS_MAX_LINE} bytes")
            return
        self._upgraded = True
        super().handle_websocket_upgrade(event)

    # helpers

    def _head_too_long(self, data: bytes) -> bool:
        """Whether the request head now arriving is over the limit. h11 checks its limit only while a
        head is incomplete, so a long head that arrives in one piece would pass; this counts it whole."""
        limit = self.limits.max_head_bytes
        buffered = self.conn.trailing_data[0]
        if len(buffered) + len(data) <= limit:
            return False
        window = (buffered + data)[:limit + 4]
        return _HEAD_END.search(window) is None

    def _head_too_long_answer(self) -> bytes:
        return raw_json_response(431, "request_head_too_large",
                                 f"the request line and headers must fit in {self.limits.max_head_bytes} bytes")

    _refused = 0
    _refused_logged_at = float("-inf")

    def _warn_refused(self) -> None:
        """One line per 10 s however many are refused: a flood must not flood the log as well."""
        cls = LimitedH11Protocol
        cls._refused += 1
        now = self.loop.time()
        if now - cls._refused_logged_at >= 10:
            self.logger.warning("Refused %d connection(s): %d open already (--max-connections).",
                                cls._refused, self.limits.max_connections)
            cls._refused, cls._refused_logged_at = 0, now

    def _refuse(self, status: int, code: str, message: str) -> None:
        self.logger.warning("Refused a WebSocket upgrade: %s", message)
        self.transport.write(raw_json_response(status, code, message))
        self.transport.close()

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _arm(self, seconds: float) -> None:
        self._cancel_timer()
        self._timer = self.loop.call_later(seconds, self._on_timeout)

    def _sync_timer(self, data_arrived: bool) -> None:
        """Arm, keep or cancel the timer for the state the connection is now in."""
        if self._upgraded or self.transport is None or self.transport.is_closing():
            self._cancel_timer()
            self._phase = None
            return
        theirs = self.conn.their_state
        if theirs is h11.IDLE and self.conn.our_state is h11.IDLE:
            # waiting for a request head: a fresh connection, or a keep-alive one whose next request began
            phase = None if (self.timeout_keep_alive_task is not None and not self._seen_bytes) else "head"
        elif theirs is h11.SEND_BODY:
            phase = "body"
        else:
            phase = None  # the app has the request (or the connection is closing)
        if phase != "head":
            self._seen_bytes = False
        if phase == self._phase and not (phase == "body" and data_arrived):
            return  # the head deadline is fixed from its start; the body one restarts with every piece
        self._phase = phase
        if phase is None:
            self._cancel_timer()
        elif phase == "head":
            self._arm(self.limits.header_timeout)
        else:
            self._arm(self.limits.body_timeout)

    def _on_timeout(self) -> None:
        self._timer = None
        if self._upgraded or self.transport is None or self.transport.is_closing():
            return
        if self._phase == "body" and ((self.flow is not None and self.flow.read_paused)
                                      or (self.cycle is not None and self.cycle.waiting_for_100_continue)):
            self._arm(self.limits.body_timeout)  # the app has not asked for the body yet: not the client's fault
            return
        if self._phase == "head":
            if self._seen_bytes:
                self.transport.write(raw_json_response(
                    408, "request_timeout",
                    f"the request head did not arrive within {self.limits.header_timeout:g} s"))
            self.logger.info("Closed a connection whose request head was not complete in time.")
        elif self._phase == "body":
            self.logger.info("Closed a connection whose request body stalled.")
        self._phase = None
        self.transport.close()
