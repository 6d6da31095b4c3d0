"""The page in a real headless Chromium against a real server on loopback.

Needs Debian's `chromium` package and the `playwright` Python package (driving
that Chromium through `executable_path`; no browser download). Without either,
the tests skip and say which is missing.
"""
from __future__ import annotations

import importlib.util
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import cv2
import httpx
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("CHICKENFOOT_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
LAUNCH = "import sys; from service.cli import main; sys.exit(main(sys.argv[1:]))"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]

pytestmark = [
    pytest.mark.skipif(not Path(CHROMIUM).is_file(),
                       reason="Chromium is not installed (apt-get install -y chromium)"),
    pytest.mark.skipif(importlib.util.find_spec("playwright") is None,
                       reason="the playwright Python package is not installed (pip install playwright)"),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[str]:
    """`chickenfoot serve` on loopback, as a person would start it."""
    home = tmp_path_factory.mktemp("server")
    port = _free_port()
    log = open(home / "serve.log", "w+b")
    proc = subprocess.Popen([sys.executable, "-c", LAUNCH, "serve", "--port", str(port), "--db", str(home / "g.sqlite3")],
                            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base}/api/v1/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                log.seek(0)
                pytest.fail("server did not start: " + log.read().decode(errors="replace"))
            time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def _write_y4m(path: Path, frames: list[np.ndarray], fps: int = 5) -> None:
    """A raw YUV 4:2:0 video, the format Chromium's fake camera plays (looping)."""
    h, w = frames[0].shape[:2]
    with open(path, "wb") as f:
        f.write(f"YUV4MPEG2 W{w} H{h} F{fps}:1 Ip A1:1 C420jpeg\n".encode())
        for bgr in frames:
            f.write(b"FRAME\n")
            f.write(cv2.cvtColor(bgr, cv2.COLOR_BGR2YUV_I420).tobytes())


def _expect(locator):
    """Playwright's waiting assertions, which run outside the page's scripts: the page's
    Content-Security-Policy forbids evaluating strings, as `wait_for_function` does."""
    from playwright.sync_api import expect

    return expect(locator)


@contextmanager
def chromium(tmp_path: Path, extra_args: list[str] = ()):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(tmp_path / "profile"), executable_path=CHROMIUM, headless=True,
            args=CHROMIUM_ARGS + list(extra_args), viewport={"width": 390, "height": 844},  # a phone
        )
        try:
            yield context
        finally:
            context.close()


def _watch_errors(page) -> list[str]:
    """Script errors and failed requests the page meets. A request the browser abandoned because
    the page navigated or reloaded meanwhile (`net::ERR_ABORTED`, e.g. the icon of the page being
    left) did not fail: the server was never asked to refuse it."""
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("requestfailed", lambda r: None if r.failure == "net::ERR_ABORTED" else
            errors.append(f"request failed: {r.url} ({r.failure})"))
    return errors


def test_uploading_a_hand_photo_shows_the_score(server, tmp_path):
    from lab.synth.scene import render_hand

    photo = tmp_path / "hand.jpg"
    cv2.imwrite(str(photo), render_hand(np.random.default_rng(21), (1280, 960)).image)
    with chromium(tmp_path) as browser:
        page = browser.new_page()
        errors = _watch_errors(page)
        page.goto(server + "/")
        page.set_input_files("#hand-photo", str(photo))
        _expect(page.locator("#hand-score")).to_have_text(re.compile(r"^\d+$"), timeout=30_000)
        assert page.is_visible("#hand-result")
        assert int(page.text_content("#hand-score")) >= 0
        assert "pips" in page.text_content("#hand-detail")
        read = int(page.text_content("#hand-detail").split()[0])  # "N tiles, P pips ..."
        assert page.eval_on_selector_all("#hand-svg polygon", "els => els.length") == read  # one outline per tile
        assert not errors, errors


def test_an_iphone_heic_photo_is_scored_and_shown(server, tmp_path):
    """Chromium cannot show a HEIC file itself: the page shows the server's annotated picture."""
    with chromium(tmp_path) as browser:
        page = browser.new_page()
        errors = _watch_errors(page)
        page.goto(server + "/")
        page.set_input_files("#hand-photo", str(ROOT / "tests" / "fixtures" / "hand_3200x2400.heic"))
        _expect(page.locator("#hand-score")).to_have_text(re.compile(r"^\d+$"), timeout=30_000)
        assert page.text_content("#hand-detail").startswith("7 tiles, 103 pips")
        _expect(page.locator("#hand-img")).to_have_attribute("src", re.compile(r"^data:image/jpeg"), timeout=10_000)
        assert page.eval_on_selector("#hand-img", "img => img.naturalWidth > 0")
        assert not errors, errors


def test_the_live_view_shows_events_from_the_camera(server, tmp_path):
    from lab.synth.scene import render_hand

    scenes = [render_hand(np.random.default_rng(s), (640, 480)).image for s in (31, 32)]
    video = tmp_path / "table.y4m"
    _write_y4m(video, [scenes[0]] * 10 + [scenes[1]] * 10)
    fake_camera = ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
                   f"--use-file-for-fake-video-capture={video}"]
    with chromium(tmp_path, fake_camera) as browser:
        page = browser.new_page()
        errors = _watch_errors(page)
        page.goto(server + "/")
        page.click("nav button[data-tab=live]")
        page.click("#live-start")
        page.wait_for_selector("#live-events li", timeout=30_000)
        first = page.text_content("#live-events li")
        assert "watching" in first or "board changed" in first
        # the overlay is sized from the frames the server read: the fake camera's 640x480 video
        _expect(page.locator("#live-svg")).to_have_attribute("viewBox", "0 0 640 480", timeout=10_000)
        assert page.text_content("#live-state") == "watching"
        page.click("#live-stop")
        assert not errors, errors
