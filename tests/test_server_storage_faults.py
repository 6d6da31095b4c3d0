"""The game store failing under a running server: health names the problem, writes are refused
with a 503 and a plain sentence, reads go on where the database can still be read."""
from __future__ import annotations

import os
import shutil
import subprocess
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest
from fastapi.testclient import TestClient

from service.app import create_app
from service.db import GameStore
from service.deps import Settings

BASE = "http://127.0.0.1:8000"


@pytest.fixture
def db(tmp_path) -> Path:
    return tmp_path / "store" / "games.sqlite3"


@pytest.fixture
def client(db):
    with TestClient(create_app(Settings(db_path=db)), base_url=BASE) as c:
        yield c


def _game(client: TestClient) -> str:
    resp = client.post("/api/v1/games", json={"players": ["Ann", "Bob"]})
    assert resp.status_code == 201, resp.text
    gid = resp.json()["id"]
    assert client.post(f"/api/v1/games/{gid}/rounds", json={"hands": [12, 0]}).status_code == 201
    return gid


def _refused(resp, kind: str) -> dict:
    assert resp.status_code == 503, (resp.status_code, resp.text[:300])
    body = resp.json()
    assert body["error"] == f"store_{kind}" and body["message"].startswith("the game store"), body
    assert "Traceback" not in body["message"] and len(body["message"]) < 400
    return body


def _health_problem(client: TestClient, kind: str) -> dict:
    health = client.get("/api/v1/health")
    assert health.status_code == 200
    body = health.json()
    assert body["status"] == "degraded" and body["storage"]["ok"] is False, body
    assert body["storage"]["problem"] == kind, body
    return body["storage"]


def _writes_refused(client: TestClient, gid: str, kind: str) -> None:
    _refused(client.post("/api/v1/games", json={"players": ["C", "D"]}), kind)
    _refused(client.post(f"/api/v1/games/{gid}/rounds", json={"hands": [3, 0]}), kind)
    _refused(client.put(f"/api/v1/games/{gid}/rounds/0", json={"hands": [5, 0]}), kind)
    _refused(client.delete(f"/api/v1/games/{gid}"), kind)


def _reads_work(client: TestClient, gid: str) -> None:
    assert [g["id"] for g in client.get("/api/v1/games").json()["games"]] == [gid]
    assert client.get(f"/api/v1/games/{gid}/sheet").json()["rounds"][0]["scores"] == [12, 0]
    assert client.get(f"/api/v1/games/{gid}/record").status_code == 200


@contextmanager
def _read_only(path: Path) -> Iterator[None]:
    """Make a file or folder unwritable for this process: permissions for an ordinary user, the
    immutable attribute for root (whom permissions do not stop)."""
    if os.geteuid() != 0:
        mode = path.stat().st_mode
        path.chmod(0o555 if path.is_dir() else 0o444)
        try:
            yield
        finally:
            path.chmod(mode)
        return
    if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode:
        pytest.skip("running as root without a way to make a file read-only (chattr +i)")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


def test_a_healthy_store_says_so(client):
    body = client.get("/api/v1/health").json()
    assert body["status"] == "ok" and body["storage"] == {"ok": True, "readable": True, "writable": True}


def test_a_read_only_database_file_refuses_writes_and_still_reads(client, db):
    gid = _game(client)
    with _read_only(db):
        storage = _health_problem(client, "read_only")
        assert storage["readable"] is True and storage["writable"] is False and str(db) in storage["message"]
        _writes_refused(client, gid, "read_only")
        _reads_work(client, gid)
    assert client.post("/api/v1/games", json={"players": ["C", "D"]}).status_code == 201
    assert client.get("/api/v1/health").json()["status"] == "ok"


def test_a_read_only_folder_refuses_writes_and_still_reads(client, db):
    gid = _game(client)
    with _read_only(db.parent):
        assert not db.with_name(db.name + "-shm").exists()  # SQLite cannot make its shared-memory file here
        _health_problem(client, "read_only")
        _writes_refused(client, gid, "read_only")
        _reads_work(client, gid)
    assert client.post("/api/v1/games", json={"players": ["C", "D"]}).status_code == 201


def test_a_deleted_folder_is_reported_gone_and_not_recreated(client, db):
    gid = _game(client)
    shutil.rmtree(db.parent)
    storage = _health_problem(client, "missing")
    assert "folder" in storage["message"] and storage["readable"] is False
    _writes_refused(client, gid, "missing")
    _refused(client.get(f"/api/v1/games/{gid}/sheet"), "missing")
    assert not db.parent.exists()


def test_a_deleted_database_file_is_not_replaced_by_an_empty_one(client, db):
    gid = _game(client)
    for suffix in ("", "-wal", "-shm"):
        db.with_name(db.name + suffix).unlink(missing_ok=True)
    _health_problem(client, "missing")
    _writes_refused(client, gid, "missing")
    _refused(client.get("/api/v1/games"), "missing")
    assert not db.exists()


@pytest.mark.parametrize("damage", ["pages", "not-sqlite", "empty"])
def test_a_damaged_database_is_reported_corrupt(client, db, damage):
    gid = _game(client)
    data = bytearray(db.read_bytes())
    if damage == "pages":  # the header is intact, the schema page behind it is not
        data[100:4096] = os.urandom(3996)
    elif damage == "not-sqlite":
        data = bytearray(b"shopping list: milk, dominoes\n" * 200)
    else:
        data = bytearray()
    db.write_bytes(bytes(data))
    storage = _health_problem(client, "corrupt")
    assert "backup" in storage["message"]
    _writes_refused(client, gid, "corrupt")
    _refused(client.get(f"/api/v1/games/{gid}/sheet"), "corrupt")


class _CappedStore(GameStore):
    """SQLite's own size cap, set to what the database holds now: the next page a write needs
    fails with SQLITE_FULL, the code a full disk gives."""

    pages: int | None = None

    @contextmanager
    def _connect(self, *args, **kwargs):
        with super()._connect(*args, **kwargs) as conn:
            if self.pages is not None:
                conn.execute(f"PRAGMA max_page_count = {self.pages}")
            yield conn


def test_a_full_disk_refuses_writes_keeps_reads_and_recovers(db):
    app = create_app(Settings(db_path=db))
    store = _CappedStore(db)
    app.state.store = store
    with TestClient(app, base_url=BASE) as client:
        gid = _game(client)
        with store._connect() as conn:
            store.pages = conn.execute("PRAGMA page_count").fetchone()[0]
        big = {"players": ["x" * 40] * 10, "set": 18}
        for _ in range(50):  # the last page may have room for a row or two
            resp = client.post("/api/v1/games", json=big)
            if resp.status_code != 201:
                break
        _refused(resp, "full")
        storage = _health_problem(client, "full")
        assert storage["readable"] is True
        assert client.get(f"/api/v1/games/{gid}/sheet").json()["rounds"][0]["scores"] == [12, 0]
        store.pages = None  # space freed
        assert client.post(f"/api/v1/games/{gid}/rounds", json={"hands": [3, 0]}).status_code == 201
        assert client.get("/api/v1/health").json()["status"] == "ok"


def _can_mount_tmpfs(where: Path) -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-m", "sh", "-c", f"mount -t tmpfs -o size=64k tmpfs '{where}'"],
                           capture_output=True)
    return probe.returncode == 0


def test_a_really_full_disk_under_a_real_server(tmp_path):
    """A small RAM disk mounted for the server alone (its own mount namespace), filled by its own writes."""
    import httpx

    from test_service_server import serve

    disk = tmp_path / "disk"
    disk.mkdir()
    if not _can_mount_tmpfs(disk):
        pytest.skip("cannot mount a RAM disk here (needs unshare -m and mount permission)")
    wrap = ["unshare", "-m", "sh", "-c", f"mount -t tmpfs -o size=400k tmpfs '{disk}' && exec \"$@\"", "sh"]
    with serve(disk / "games.sqlite3", wrap=wrap, log_dir=tmp_path) as (_, base):
        with httpx.Client(base_url=base, timeout=10) as http:
            gid = _game(http)
            hand = {"tiles": [f"{a}-{b}" for a in range(19) for b in range(a, 19)][:200]}  # ~1.2 kB a hand
            resp = None
            for _ in range(100):  # about 14 kB a round: the disk is full within some 30 rounds
                if resp is None or resp.status_code == 409:  # a game's rounds are all played: the next game
                    game = http.post("/api/v1/games", json={"players": ["x" * 40] * 10, "set": 18})
                    if game.status_code != 201:
                        resp = game
                        break
                    big = game.json()["id"]
                resp = http.post(f"/api/v1/games/{big}/rounds", json={"hands": [hand] * 10})
                if resp.status_code not in (201, 409):
                    break
            _refused(resp, "full")
            storage = _health_problem(http, "full")
            assert storage["readable"] is True and "KiB free" in storage["message"]
            assert http.get("/api/v1/health").json()["schema"] is not None  # health itself still reads
            assert http.get(f"/api/v1/games/{gid}/sheet").json()["rounds"][0]["scores"] == [12, 0]
            assert http.get("/api/v1/games?limit=1").status_code == 200
