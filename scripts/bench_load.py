#!/usr/bin/env python3
"""Load benchmark: N clients scoring hand photos against a real server on loopback.

    .venv/bin/python scripts/bench_load.py --clients 8 --seconds 60

Starts `chickenfoot serve` on a free loopback port with a throw-away database
(or uses --url), renders a few hand photos with the project's renderer, warms
the server up with one request per photo, then lets every client send
POST /api/v1/score back to back for the given time. Prints requests per second,
p50/p95/p99 latency, the error count and the server's resident memory (at the
start of the timed run, its peak, at the end, and samples along the way, so a
leak shows as a climb). Exits 1 if any request failed.

With --mixed the clients take turns at what a table does instead: a quarter score photos, a
quarter record games (a game, then rounds until it is over, then the next), the rest read
(the games list, a sheet, health), and one live WebSocket sends a camera frame five times a
second for the whole run. Figures are given per kind; a live frame counts as an error unless
it is answered (an overlay, or "skipped" when it came too soon).
"""
from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
LAUNCH = "import sys; from service.cli import main; sys.exit(main(sys.argv[1:]))"


def rss_bytes(pid: int) -> int | None:
    """Resident set size of a process (Linux /proc; psutil elsewhere if it is installed)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        import psutil

        return psutil.Process(pid).memory_info().rss
    except Exception:  # noqa: BLE001 - no way to measure here
        return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def render_photos(count: int, size: tuple[int, int]) -> list[bytes]:
    import cv2
    import numpy as np

    from lab.synth.scene import render_hand

    photos = []
    for seed in range(count):
        ok, buf = cv2.imencode(".jpg", render_hand(np.random.default_rng(1000 + seed), size).image,
                               [cv2.IMWRITE_JPEG_QUALITY, 90])
        photos.append(buf.tobytes())
    return photos


def start_server(workdir: Path) -> tuple[subprocess.Popen, str]:
    import httpx

    port = free_port()
    log = open(workdir / "serve.log", "wb")
    proc = subprocess.Popen([sys.executable, "-c", LAUNCH, "serve", "--port", str(port), "--db", str(workdir / "bench.sqlite3")],
                            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server exited; see {workdir / 'serve.log'}")
        try:
            if httpx.get(f"{base}/api/v1/health", timeout=2).status_code == 200:
                return proc, base
        except httpx.TransportError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("server did not start within 60 s")


def percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    k = min(len(sorted_values) - 1, max(0, round(q / 100 * (len(sorted_values) - 1))))
    return sorted_values[k]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--photos", type=int, default=4, help="distinct photos to cycle through")
    ap.add_argument("--size", default="1280x960", help="photo size WxH (default 1280x960)")
    ap.add_argument("--no-annotate", action="store_true", help="skip the annotated image in each answer")
    ap.add_argument("--url", help="benchmark a server that is already running (memory then needs --pid)")
    ap.add_argument("--pid", type=int, help="that server's process id, to watch its memory")
    ap.add_argument("--json", action="store_true", help="also print the figures as one JSON line")
    ap.add_argument("--mixed", action="store_true",
                    help="scoring, game writes and reads side by side, plus one live WebSocket")
    args = ap.parse_args()
    if args.clients < 1 or args.seconds <= 0:
        ap.error("--clients and --seconds must be positive")

    import httpx

    w, h = (int(v) for v in args.size.lower().split("x"))
    photos = render_photos(args.photos, (w, h))
    workdir = Path(tempfile.mkdtemp(prefix="chickenfoot-bench-"))
    proc = None
    if args.url:
        base, pid = args.url.rstrip("/"), args.pid
    else:
        proc, base = start_server(workdir)
        pid = proc.pid
    path = "/api/v1/score" + ("?annotate=false" if args.no_annotate else "")

    try:
        with httpx.Client(base_url=base, timeout=120) as warm:
            for i, photo in enumerate(photos):
                r = warm.post(path, files={"photo": (f"warm{i}.jpg", photo, "image/jpeg")})
                if r.status_code != 200:
                    raise SystemExit(f"warm-up request failed: {r.status_code} {r.text[:200]}")

        latencies: list[float] = []
        errors: list[str] = []
        kinds: dict[str, list[float]] = {}
        kind_errors: dict[str, int] = {}
        lock = threading.Lock()
        samples: list[tuple[float, int]] = []
        start_rss = rss_bytes(pid) if pid else None
        t0 = time.monotonic()
        end = t0 + args.seconds
        done = threading.Event()

        def sampler() -> None:
            while not done.is_set():
                value = rss_bytes(pid) if pid else None
                if value is not None:
                    samples.append((time.monotonic() - t0, value))
                done.wait(0.25)

        def note(kind: str, elapsed: float, problem: str | None) -> None:
            with lock:
                if problem:
                    errors.append(f"{kind}: {problem}")
                    kind_errors[kind] = kind_errors.get(kind, 0) + 1
                else:
                    latencies.append(elapsed)
                    kinds.setdefault(kind, []).append(elapsed)

        def timed(kind: str, call, ok) -> Any:
            t = time.monotonic()
            result = None
            try:
                result = call()
                problem = None if ok(result) else f"HTTP {result.status_code}: {result.text[:120]}"
            except (httpx.HTTPError, ValueError, KeyError) as exc:
                problem = f"{type(exc).__name__}: {exc}"
            note(kind, time.monotonic() - t, problem)
            return result

        def scorer(http: httpx.Client, i: int) -> None:
            photo = photos[i % len(photos)]
            timed("score", lambda: http.post(path, files={"photo": (f"hand{i}.jpg", photo, "image/jpeg")}),
                  lambda r: r.status_code == 200 and "score" in r.json())

        game: dict[int, str | None] = {}

        def writer(http: httpx.Client, i: int, n: int) -> None:
            if game.get(n) is None:
                r = timed("game write", lambda: http.post("/api/v1/games", json={"players": ["A", "B", "C"], "set": 9}),
                          lambda r: r.status_code == 201)
                game[n] = r.json()["id"] if r is not None and r.status_code == 201 else None
                return
            gid = game[n]
            r = timed("game write", lambda: http.post(f"/api/v1/games/{gid}/rounds", json={"hands": [i % 50, 0, 7]}),
                      lambda r: r.status_code in (201, 409))
            if r is not None and r.status_code == 409:  # all rounds played: the next game
                game[n] = None

        def reader(http: httpx.Client, i: int) -> None:
            listed = timed("read", lambda: http.get("/api/v1/games?limit=20"), lambda r: r.status_code == 200)
            ids = [g["id"] for g in listed.json()["games"]] if listed is not None and listed.status_code == 200 else []
            if ids:
                gid = ids[i % len(ids)]
                timed("read", lambda: http.get(f"/api/v1/games/{gid}/sheet"), lambda r: r.status_code == 200)
            timed("read", lambda: http.get("/api/v1/health"), lambda r: r.status_code == 200)

        def client(n: int) -> None:
            with httpx.Client(base_url=base, timeout=120) as http:
                i = n
                while time.monotonic() < end:
                    i += 1
                    role = n % 4 if args.mixed else 0
                    if role == 0:
                        scorer(http, i)
                    elif role == 1:
                        writer(http, i, n)
                    else:
                        reader(http, i)

        def live_socket() -> None:
            from websockets.sync.client import connect

            url = base.replace("http://", "ws://") + "/api/v1/live"
            try:
                with connect(url, open_timeout=30, max_size=2**24) as ws:
                    json.loads(ws.recv(30))  # ready
                    i = 0
                    while time.monotonic() < end:
                        t = time.monotonic()
                        ws.send(photos[i % len(photos)])
                        i += 1
                        problem = None
                        while True:  # events may follow an overlay; the frame's answer is overlay/skipped/error
                            reply = json.loads(ws.recv(60))
                            if reply.get("type") in ("overlay", "skipped", "error"):
                                break
                        if reply.get("type") == "error":
                            problem = f"{reply.get('error')}: {reply.get('message')}"
                        note("live frame", time.monotonic() - t, problem)
                        time.sleep(max(0.0, 0.2 - (time.monotonic() - t)))
            except Exception as exc:  # noqa: BLE001 - the socket failing is a figure, not a crash
                note("live frame", 0.0, f"{type(exc).__name__}: {exc}")

        watcher = threading.Thread(target=sampler, daemon=True)
        watcher.start()
        threads = [threading.Thread(target=client, args=(n,)) for n in range(args.clients)]
        if args.mixed:
            threads.append(threading.Thread(target=live_socket))
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.monotonic() - t0
        done.set()
        watcher.join()
        end_rss = rss_bytes(pid) if pid else None
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()

    lat = sorted(latencies)
    mib = lambda b: None if b is None else round(b / 2**20, 1)  # noqa: E731
    peak = max((v for _, v in samples), default=None)
    figures = {
        "clients": args.clients, "seconds": round(wall, 1), "photo": f"{w}x{h} JPEG",
        "annotated": not args.no_annotate, "requests": len(lat), "errors": len(errors),
        "rps": round(len(lat) / wall, 2),
        "p50_ms": round(percentile(lat, 50) * 1000), "p95_ms": round(percentile(lat, 95) * 1000),
        "p99_ms": round(percentile(lat, 99) * 1000),
        "server_rss_mib": {"start": mib(start_rss), "peak": mib(peak), "end": mib(end_rss)},
    }
    if args.mixed:
        figures["kinds"] = {
            kind: {"count": len(v), "errors": kind_errors.get(kind, 0), "per_s": round(len(v) / wall, 2),
                   "p50_ms": round(percentile(sorted(v), 50) * 1000), "p95_ms": round(percentile(sorted(v), 95) * 1000)}
            for kind, v in sorted(kinds.items())}
    print(f"{figures['clients']} clients, {figures['seconds']} s, {figures['photo']}"
          f"{' with annotated image' if figures['annotated'] else ''}, server pid {pid or '?'}, cpus {os.cpu_count()}")
    print(f"requests {figures['requests']}  errors {figures['errors']}  {figures['rps']} req/s")
    print(f"latency p50 {figures['p50_ms']} ms  p95 {figures['p95_ms']} ms  p99 {figures['p99_ms']} ms")
    for kind, k in figures.get("kinds", {}).items():
        print(f"  {kind:<11} {k['count']:>6} done  {k['errors']} errors  {k['per_s']}/s  "
              f"p50 {k['p50_ms']} ms  p95 {k['p95_ms']} ms")
    rss = figures["server_rss_mib"]
    print(f"server RSS: start {rss['start']} MiB, peak {rss['peak']} MiB, end {rss['end']} MiB")
    if samples:
        step = max(1, len(samples) // 6)
        print("RSS over time: " + ", ".join(f"{t:.0f}s {v / 2**20:.0f}" for t, v in samples[::step]) + " (MiB)")
    for e in sorted(set(errors))[:5]:
        print(f"error: {e}")
    if args.json:
        print(json.dumps(figures))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
