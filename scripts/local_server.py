"""`chickenfoot serve` started for a script: a free loopback port, a throw-away database, stopped after.

The scripts that drive a real server (bad input, the API fuzz run) share this so each starts it
the same way and waits for health the same way.
"""
from __future__ import annotations

import json
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parents[1]
LAUNCH = "import sys; from service.cli import main; sys.exit(main(sys.argv[1:]))"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def scratch_dir(prefix: str) -> Path:
    """A temporary folder, in memory where the system has one: these databases need no durability,
    and syncing every write to a disk would make the runs slow for nothing."""
    shm = Path("/dev/shm")
    return Path(tempfile.mkdtemp(prefix=prefix, dir=shm if shm.is_dir() else None))


def answers(base: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base}/api/v1/health", timeout=2) as resp:
            return resp.status == 200 and "status" in json.loads(resp.read())
    except (OSError, ValueError):
        return False


@contextmanager
def local_server(workdir: Path, *extra: str) -> Iterator[tuple[str, subprocess.Popen]]:
    """Yields (base URL, process) once the server answers health; the log is workdir/serve.log."""
    port = free_port()
    with open(workdir / "serve.log", "wb") as log:
        proc = subprocess.Popen([sys.executable, "-c", LAUNCH, "serve", "--port", str(port),
                                 "--db", str(workdir / "games.sqlite3"), *extra],
                                cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while not answers(base):
                if proc.poll() is not None:
                    raise SystemExit(f"server exited; see {workdir / 'serve.log'}")
                if time.monotonic() > deadline:
                    raise SystemExit("server did not start within 60 s")
                time.sleep(0.2)
            yield base, proc
        finally:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
