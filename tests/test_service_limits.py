"""`chickenfoot serve` against slow, incomplete and oversized clients: a real server on loopback."""
from __future__ import annotations

import base64
import json
import os
import socket
import time

import httpx
import pytest

from service.cli import main
from service.connlimits import ServerLimits

from test_service_server import serve


def _port(base: str) -> int:
    return int(base.rsplit(":", 1)[1])


def _read_until_closed(sock: socket.socket, limit: float) -> tuple[bytes, float]:
    """Everything the server sends until it closes the connection, and how long that took."""
    sock.settimeout(limit)
    start = time.monotonic()
    got = b""
    try:
        while chunk := sock.recv(65536):
            got += chunk
    except ConnectionResetError:
        pass
    except socket.timeout:
        raise AssertionError(f"the server kept the connection open for {limit} s; it sent {got[:200]!r}") from None
    return got, time.monotonic() - start


def _health_seconds(base: str, token: str | None = None) -> float:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    start = time.monotonic()
    resp = httpx.get(f"{base}/api/v1/health", headers=headers, timeout=5)
    took = time.monotonic() - start
    assert resp.status_code == 200, resp.text
    return took


def _hold(port: int, count: int) -> list[socket.socket]:
    """`count` connections: a third send nothing, a third half a header, a third 4 of 100 body bytes."""
    held = []
    for i in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        if i % 3 == 1:
            sock.sendall(b"GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Half: ")
        elif i % 3 == 2:
            sock.sendall(b"POST /api/v1/games HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                         b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"pl")
        held.append(sock)
    return held


def test_limits_refuse_nonsense():
    with pytest.raises(ValueError):
        ServerLimits(header_timeout=0)
    with pytest.raises(ValueError):
        ServerLimits(max_connections=0)
    options = ServerLimits(header_timeout=1).uvicorn_options()
    assert options["http"].limits.header_timeout == 1 and options["timeout_keep_alive"] == 5


@pytest.mark.parametrize("option", [("--header-timeout", "0"), ("--body-timeout", "-1"), ("--max-connections", "0")])
def test_serve_refuses_nonsense_limits(tmp_path, capsys, option):
    assert main(["serve", "--db", str(tmp_path / "g.sqlite3"), "--port", "1", *option]) == 2
    err = capsys.readouterr().err
    assert "must be" in err and "Traceback" not in err


@pytest.mark.parametrize("token", [None, "correct-horse"])
def test_held_connections_do_not_slow_health_and_are_closed_in_time(tmp_path, token):
    extra = ("--token", token) if token else ()
    with serve(tmp_path / "g.sqlite3", *extra, "--header-timeout", "3", "--body-timeout", "3",
               token=token) as (_, base):
        port = _port(base)
        held = _hold(port, 150)
        try:
            time.sleep(0.3)
            worst = max(_health_seconds(base, token) for _ in range(5))
            assert worst < 1.0, f"health took {worst:.2f} s with 150 connections held"
            # every held connection is closed by the server within the timeouts (3 s, plus slack)
            deadline = time.monotonic() + 8
            for sock in held:
                got, _ = _read_until_closed(sock, max(0.1, deadline - time.monotonic()))
                if got:  # a half head gets a 408; a stalled body may be answered by the app or just closed
                    assert got.startswith(b"HTTP/1.1 "), got[:200]
        finally:
            for sock in held:
                sock.close()
        assert _health_seconds(base, token) < 1.0


def test_a_half_header_connection_is_closed_within_the_header_timeout(tmp_path):
    with serve(tmp_path / "g.sqlite3", "--header-timeout", "1") as (_, base):
        with socket.create_connection(("127.0.0.1", _port(base)), timeout=5) as sock:
            sock.sendall(b"GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            start = time.monotonic()
            # a byte now and then does not extend the deadline
            sock.sendall(b"a")
            got, _ = _read_until_closed(sock, 5)
            took = time.monotonic() - start
        assert 0.8 < took < 2.0, took
        assert got.startswith(b"HTTP/1.1 408"), got[:200]
        assert json.loads(got.split(b"\r\n\r\n", 1)[1])["error"] == "request_timeout"
        # a connection that never sends a byte is closed too, without an answer
        with socket.create_connection(("127.0.0.1", _port(base)), timeout=5) as sock:
            got, took = _read_until_closed(sock, 5)
        assert got == b"" and 0.8 < took < 2.0, (got, took)


def test_a_stalled_body_is_closed_within_the_body_timeout(tmp_path):
    with serve(tmp_path / "g.sqlite3", "--body-timeout", "1") as (_, base):
        with socket.create_connection(("127.0.0.1", _port(base)), timeout=5) as sock:
            sock.sendall(b"POST /api/v1/games HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                         b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"pl")
            got, took = _read_until_closed(sock, 5)
        assert took < 2.0, took
        assert _health_seconds(base) < 1.0


def test_keep_alive_connections_still_serve_several_requests(tmp_path):
    with serve(tmp_path / "g.sqlite3", "--header-timeout", "1", "--keep-alive", "3") as (_, base):
        with httpx.Client(base_url=base) as client:
            for _ in range(3):
                assert client.get("/api/v1/health").status_code == 200
                time.sleep(1.2)  # longer than the header timeout, shorter than the keep-alive one
            gid = client.post("/api/v1/games", json={"players": ["A", "B"]}).json()["id"]
            assert client.get(f"/api/v1/games/{gid}/sheet").status_code == 200


def test_connections_over_the_cap_are_turned_away_and_the_server_recovers(tmp_path):
    with serve(tmp_path / "g.sqlite3", "--max-connections", "20", "--header-timeout", "2") as (_, base):
        held = _hold(_port(base), 20)
        try:
            time.sleep(0.3)
            resp = httpx.get(f"{base}/api/v1/health", timeout=5)
            assert resp.status_code == 503 and resp.json()["error"] == "too_many_connections"
        except httpx.TransportError:
            pass  # the 503 may be lost when the server closes before reading the request; refused either way
        finally:
            for sock in held:
                sock.close()
        time.sleep(0.3)
        assert _health_seconds(base) < 1.0


def _upgrade(port: int, target: str) -> bytes:
    key = base64.b64encode(os.urandom(16)).decode()
    return (f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode()


@pytest.mark.parametrize("depth", [3000, 5000, 9000])
def test_an_over_long_websocket_url_is_answered(tmp_path, depth):
    with serve(tmp_path / "g.sqlite3") as (_, base):
        port = _port(base)
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            sock.sendall(_upgrade(port, "/api/v1/live?house_rules=" + "%5B" * depth))
            got, took = _read_until_closed(sock, 2)
        status = int(got.split(b" ", 2)[1])
        assert status in (400, 414, 431), got[:300]
        assert json.loads(got.split(b"\r\n\r\n", 1)[1])["error"], got[:300]
        assert took < 2.0
        assert _health_seconds(base) < 1.0
        log = (tmp_path / f"serve-{port}.log").read_text(errors="replace")
        assert "Traceback" not in log, log


def test_a_request_head_growing_past_the_limit_is_answered_with_json(tmp_path):
    with serve(tmp_path / "g.sqlite3") as (_, base):
        with socket.create_connection(("127.0.0.1", _port(base)), timeout=5) as sock:
            # no blank line yet: the server would have to keep buffering the head
            sock.sendall(b"GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 40_000)
            got, _ = _read_until_closed(sock, 2)
        assert got.startswith(b"HTTP/1.1 431"), got[:200]
        assert json.loads(got.split(b"\r\n\r\n", 1)[1])["error"] == "request_head_too_large"


def test_the_websocket_line_limit_is_the_parsers_own(tmp_path):
    """A request line of exactly the parser's limit still reaches the app; one byte more is refused with 414."""
    from websockets.http11 import MAX_LINE_LENGTH

    with serve(tmp_path / "g.sqlite3") as (_, base):
        port = _port(base)
        prefix = "/api/v1/live?x="
        fill = MAX_LINE_LENGTH - len(f"GET {prefix} HTTP/1.1\r\n")
        for extra, refused in ((0, False), (1, True)):
            with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
                sock.sendall(_upgrade(port, prefix + "a" * (fill + extra)))
                sock.settimeout(5)
                got = sock.recv(4096)
            assert got.startswith(b"HTTP/1.1 414" if refused else b"HTTP/1.1 101"), (extra, got[:200])


def test_a_live_websocket_outlives_the_request_timeouts(tmp_path):
    """The body timer must not follow a connection once it is a WebSocket (it closed live sockets at 30 s)."""
    from websockets.sync.client import connect

    with serve(tmp_path / "g.sqlite3", "--header-timeout", "1", "--body-timeout", "1") as (_, base):
        with connect(base.replace("http://", "ws://") + "/api/v1/live", open_timeout=10) as ws:
            assert json.loads(ws.recv(10))["type"] == "ready"
            time.sleep(2.5)
            ws.send(json.dumps({"type": "ping"}))
            assert json.loads(ws.recv(5)) == {"type": "pong"}
