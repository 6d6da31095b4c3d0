"""`chickenfoot serve` as a real process on loopback: kill it, drop sockets on it, lock it."""
from __future__ import annotations

import base64
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Sequence

import cv2
import httpx
import numpy as np

from service.cli import main

ROOT = Path(__file__).resolve().parents[1]
LAUNCH = "import sys; from service.cli import main; sys.exit(main(sys.argv[1:]))"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serve(db: Path, *extra: str, token: str | None = None, host: str | None = None,
          wrap: Sequence[str] = (), log_dir: Path | None = None) -> Iterator[tuple[subprocess.Popen, str]]:
    """Start `chickenfoot serve` on a free loopback port; yields (process, base URL) once it answers.

    With `host`, the server listens there and the base URL is the one it printed at start. `wrap`
    goes before the command (a program that sets the server's surroundings up, then runs it)."""
    port = _free_port()
    log_dir = log_dir or db.parent
    log = open(log_dir / f"serve-{port}.log", "w+b")  # a file, not a pipe nobody reads (it would fill up)
    proc = subprocess.Popen(
        [*wrap, sys.executable, "-c", LAUNCH, "serve", "--port", str(port), "--db", str(db), *extra,
         *(("--host", host) if host else ())],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    if host:
        deadline = time.monotonic() + 60
        while b"chickenfoot: open " not in (printed := Path(log.name).read_bytes()):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"server printed no address: {printed.decode(errors='replace')}")
            time.sleep(0.1)
        base = printed.decode().split("chickenfoot: open ", 1)[1].split()[0].rstrip("/")
    headers = {"authorization": f"Bearer {token}"} if token else {}
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                log.seek(0)
                raise AssertionError(f"server exited: {log.read().decode(errors='replace')}")
            try:
                if httpx.get(f"{base}/api/v1/health", headers=headers, timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError("server did not start in 60 s")
            time.sleep(0.2)
        yield proc, base
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        log.close()


def test_a_killed_server_keeps_every_round_it_acknowledged(tmp_path):
    db = tmp_path / "games.sqlite3"
    acked: list[tuple[str, int, list[int]]] = []
    lock = threading.Lock()
    stop = threading.Event()

    def recorder(base: str, seed: int) -> None:
        rng = np.random.default_rng(seed)
        with httpx.Client(base_url=base, timeout=10) as http:
            gid = None
            while not stop.is_set():
                try:
                    if gid is None:
                        gid = http.post("/api/v1/games", json={"players": ["A", "B", "C"], "set": 18}).json()["id"]
                    scores = [int(x) for x in rng.integers(0, 200, 3)]
                    r = http.post(f"/api/v1/games/{gid}/rounds", json={"hands": scores})
                except httpx.TransportError:
                    return  # the server is gone
                if r.status_code == 409:  # game over: start another
                    gid = None
                    continue
                assert r.status_code == 201, r.text
                with lock:
                    acked.append((gid, r.json()["index"], scores))

    with serve(db) as (proc, base):
        threads = [threading.Thread(target=recorder, args=(base, s)) for s in range(3)]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 30
        while len(acked) < 40 and time.monotonic() < deadline:
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)  # mid-stream: the recorders are still sending
        proc.wait()
        stop.set()
        for t in threads:
            t.join(15)
    assert len(acked) >= 40, "too few rounds were recorded to test anything"

    with serve(db) as (_, base):
        sheets: dict[str, dict] = {}
        for gid, index, scores in acked:
            if gid not in sheets:
                sheets[gid] = httpx.get(f"{base}/api/v1/games/{gid}/sheet").json()
            assert sheets[gid]["rounds"][index]["scores"] == scores
        for gid, sheet in sheets.items():
            mine = [i for g, i, _ in acked if g == gid]
            assert len(sheet["rounds"]) in (len(mine), len(mine) + 1)  # at most one committed, unanswered


def _ws_handshake(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((
        f"GET /api/v1/live HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
    ).encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(4096)
    assert head.startswith(b"HTTP/1.1 101"), head[:200]
    return sock


def _frame_header(length: int, opcode: int = 0x2) -> bytes:
    """A client (masked) WebSocket frame header announcing `length` payload bytes."""
    return bytes([0x80 | opcode, 0x80 | 127]) + struct.pack(">Q", length) + os.urandom(4)


def _masked(payload: bytes, opcode: int = 0x2) -> bytes:
    mask = os.urandom(4)
    body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return bytes([0x80 | opcode, 0x80 | 127]) + struct.pack(">Q", len(payload)) + mask + body


def test_sockets_that_vanish_mid_frame_leave_the_server_healthy(tmp_path):
    from websockets.sync.client import connect
    from lab.synth.scene import render_hand

    ok, jpeg = cv2.imencode(".jpg", render_hand(np.random.default_rng(2), (640, 480)).image)
    frame = jpeg.tobytes()
    with serve(tmp_path / "g.sqlite3") as (_, base):
        port = int(base.rsplit(":", 1)[1])
        # 1. announces 200 kB, sends 5 kB of it, hangs up
        sock = _ws_handshake(port)
        sock.sendall(_frame_header(200_000) + os.urandom(5_000))
        sock.close()
        # 2. sends a whole frame and hangs up while it is being read
        sock = _ws_handshake(port)
        sock.sendall(_masked(frame))
        sock.close()
        # 3. garbage that is not even WebSocket framing
        sock = _ws_handshake(port)
        sock.sendall(os.urandom(3_000))
        sock.close()
        # 4. a plain TCP connection that sends half a request line
        with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
            raw.sendall(b"POST /api/v1/score HTTP/1.1\r\nContent-Length: 1000000\r\n\r\npartial")
        # 5. an upload over the 25 MB default: answered 413 while it is still arriving
        big = httpx.post(f"{base}/api/v1/score", files={"photo": ("big.jpg", b"\xff" * (26 * 2**20), "image/jpeg")},
                         timeout=30)
        assert big.status_code == 413 and big.json()["error"] == "upload_too_large"
        time.sleep(0.5)
        assert httpx.get(f"{base}/api/v1/health").json()["status"] == "ok"
        with connect(f"ws://127.0.0.1:{port}/api/v1/live", open_timeout=10) as ws:
            assert json.loads(ws.recv(10))["type"] == "ready"
            ws.send(frame)
            assert json.loads(ws.recv(30))["type"] == "overlay"
        log = (tmp_path / f"serve-{port}.log").read_text(errors="replace")
        assert "Traceback" not in log, log


def test_a_token_server_turns_away_requests_without_it(tmp_path):
    with serve(tmp_path / "g.sqlite3", "--token", "correct-horse", token="correct-horse") as (_, base):
        assert httpx.get(f"{base}/api/v1/health").status_code == 401
        assert httpx.get(f"{base}/api/v1/health", headers={"authorization": "Bearer correct-horse"}).status_code == 200
        with httpx.Client(base_url=base) as browser:  # what a person does: open the link once, then use the page
            assert browser.get("/?token=correct-horse").status_code == 200
            assert browser.post("/api/v1/games", json={"players": ["A", "B"]}).status_code == 201


def test_serve_refuses_other_addresses_without_a_token(capsys, monkeypatch):
    monkeypatch.delenv("CHICKENFOOT_TOKEN", raising=False)
    assert main(["serve", "--host", "0.0.0.0", "--port", "1"]) == 2
    assert "access token" in capsys.readouterr().err


def test_serve_explains_a_file_that_is_not_a_games_database(tmp_path, capsys):
    bad = tmp_path / "notes.txt"
    bad.write_text("shopping list: milk, dominoes\n" * 100)
    assert main(["serve", "--db", str(bad), "--port", "1"]) == 2
    err = capsys.readouterr().err
    assert "notes.txt" in err and "Traceback" not in err


def test_serve_on_another_loopback_address_answers_at_the_address_it_prints(tmp_path):
    # `--host 127.0.0.2` without a token used to start and refuse every request (host_not_allowed)
    with serve(tmp_path / "g.sqlite3", host="127.0.0.2") as (_, base):
        assert base.startswith("http://127.0.0.2:")
        assert httpx.get(f"{base}/api/v1/health", timeout=5).status_code == 200
        assert httpx.get(f"{base}/", timeout=5).status_code == 200


def _ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::1", 0))
        return True
    except OSError:
        return False


def test_serve_on_ipv6_loopback_prints_one_pair_of_brackets_and_answers_there(tmp_path):
    import pytest

    if not _ipv6_loopback():
        pytest.skip("no IPv6 loopback here")
    for given in ("[::1]", "::1"):
        with serve(tmp_path / "g.sqlite3", host=given) as (_, base):
            assert base.startswith("http://[::1]:") and "[[" not in base, base
            assert httpx.get(f"{base}/api/v1/health", timeout=5).status_code == 200


def test_the_address_serve_prints_is_always_one_it_answers():
    from service.commands.serve import allowed_names, shown_url

    assert shown_url("[::1]", 8000, None) == "http://[::1]:8000/"
    assert shown_url("::1", 8000, None) == "http://[::1]:8000/"
    assert shown_url("0.0.0.0", 8000, "tok") == "http://127.0.0.1:8000/?token=tok"
    assert shown_url("127.0.0.2", 80, None) == "http://127.0.0.2:80/"
    assert "127.0.0.2" in allowed_names("127.0.0.2") and "::1" in allowed_names("[0:0:0:0:0:0:0:1]")
    assert "127.0.0.1" in allowed_names("127.0.0.2") and "localhost" in allowed_names("::1")


def test_after_an_unexpected_error_the_keep_alive_connection_still_answers(tmp_path):
    # an exception escaping the app made uvicorn drop the connection after its 500, without a word
    import uvicorn

    from service.app import create_app
    from service.deps import Settings

    app = create_app(Settings(db_path=tmp_path / "g.sqlite3"))

    @app.get("/boom")
    def boom():
        raise RuntimeError("a bug")

    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="critical"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started:
            assert time.monotonic() < deadline and thread.is_alive(), "server did not start"
            time.sleep(0.05)
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            answers = []
            for path in ("/boom", "/api/v1/health"):
                sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
                answers.append(_read_response(sock))
        (status1, body1), (status2, _) = answers
        assert status1 == 500 and json.loads(body1)["error"] == "internal_error"
        assert status2 == 200
    finally:
        server.should_exit = True
        thread.join(10)


def _read_response(sock: socket.socket) -> tuple[int, bytes]:
    """One HTTP/1.1 response with a Content-Length from a kept-alive socket: (status, body); (0, b"") if it closed."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return 0, b""
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")[1:]
                  if line.lower().startswith(b"content-length:"))
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            return 0, b""
        body += chunk
    return int(head.split()[1]), body[:length]


def test_a_killed_server_keeps_every_edit_and_deletion_it_acknowledged(tmp_path):
    """A round fixed, a last round taken back and a game deleted are on disk once answered: the
    server killed at once after the answers loses none of them."""
    db = tmp_path / "games.sqlite3"
    with serve(db) as (proc, base), httpx.Client(base_url=base, timeout=10) as http:
        gid = http.post("/api/v1/games", json={"players": ["A", "B", "C"], "set": 9}).json()["id"]
        gone = http.post("/api/v1/games", json={"players": ["D", "E"], "set": 6}).json()["id"]
        for scores in ([52, 0, 10], [5, 6, 0], [1, 1, 0]):
            assert http.post(f"/api/v1/games/{gid}/rounds", json={"hands": scores}).status_code == 201
        assert http.put(f"/api/v1/games/{gid}/rounds/0", json={"hands": [25, 0, 10]}).status_code == 200
        assert http.delete(f"/api/v1/games/{gid}/rounds/2").status_code == 200
        assert http.delete(f"/api/v1/games/{gone}").status_code == 200
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    with serve(db) as (_, base):
        sheet = httpx.get(f"{base}/api/v1/games/{gid}/sheet").json()
        assert [r["scores"] for r in sheet["rounds"]] == [[25, 0, 10], [5, 6, 0]]
        assert httpx.get(f"{base}/api/v1/games/{gone}").status_code == 404
