"""The Live tab on a phone (390x844, real headless Chromium) when the connection is poor: a lost
connection, a server falling behind, the screen kept awake, a play against the rules signalled.

The page and its HTTP API come from a real server in this process; the live WebSocket is played
by the test (Playwright's `route_web_socket`), so it can drop, stall and answer late on cue.
Chromium's fake camera supplies the frames. Screenshots go under /tmp/pa_shots when that folder
exists (for a person to look at), else under the test's tmp dir.
"""
from __future__ import annotations

import json
import re
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

from test_browser import CHROMIUM, CHROMIUM_ARGS, _expect, _free_port, _watch_errors, pytestmark  # noqa: F401

FAKE_CAMERA = ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"]
SHOTS = Path("/tmp/pa_shots")

# Stand-ins for the phone's buzzer, speaker and screen lock that count what the page asks of them.
SIGNAL_PROBES = """
window.__signals = { vibrate: 0, beeps: 0, wake: [] };
Object.defineProperty(navigator, "vibrate", { configurable: true,
  value: () => { window.__signals.vibrate += 1; return true; } });
const makeOscillator = AudioContext.prototype.createOscillator;
AudioContext.prototype.createOscillator = function () { window.__signals.beeps += 1; return makeOscillator.call(this); };
Object.defineProperty(navigator, "wakeLock", { configurable: true, value: { request: async (type) => {
  window.__signals.wake.push("request " + type);
  const lock = new EventTarget();
  lock.release = async () => { window.__signals.wake.push("release"); };
  return lock;
} } });
"""


def shot(page, tmp_path: Path, name: str) -> None:
    folder = SHOTS if SHOTS.is_dir() else tmp_path
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)


@contextmanager
def phone_browser(extra_args=()):
    """One headless Chromium for a module's tests (each gets its own context: no shared storage)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS + list(extra_args))
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def phone_page(browser):
    """A fresh page at a phone's size (390x844) in its own context."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        yield context.new_page()
    finally:
        context.close()


@contextmanager
def serve_in_process(app, **config) -> Iterator[str]:
    """Run a FastAPI app with uvicorn on a loopback port in a thread; yield its base URL.
    `config`: more of uvicorn's settings (e.g. the WebSocket protocol)."""
    import uvicorn

    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", **config))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.fixture(scope="module")
def browser():
    with phone_browser(FAKE_CAMERA) as b:
        yield b


@pytest.fixture(scope="module")
def page_server(tmp_path_factory) -> Iterator[str]:
    from service.app import create_app
    from service.deps import Settings

    home = tmp_path_factory.mktemp("live_server")
    with serve_in_process(create_app(Settings(db_path=home / "g.sqlite3"))) as base:
        yield base


class FakeLive:
    """The live endpoint as the test plays it. `up`: answer the handshake with "ready"; else the
    server is away (every connection is closed at once). `answer`: answer each frame at once; else
    frames wait in `held` until the test answers them."""

    def __init__(self) -> None:
        self.up = True
        self.refuse: str | None = None
        self.answer = True
        self.sockets: list = []
        self.opened_at: list[float] = []
        self.held: list = []
        self.frames = 0

    def __call__(self, ws) -> None:
        self.sockets.append(ws)
        self.opened_at.append(time.monotonic())
        if not self.up:
            ws.close(code=1011, reason="away")
            return
        if self.refuse:  # the server will not watch this game: it says why, then closes
            ws.send(json.dumps({"type": "error", "error": "game_not_found", "message": self.refuse}))
            ws.close(code=1008, reason=self.refuse)
            return
        ws.on_message(lambda message: self._message(ws, message))
        ws.send(json.dumps({"type": "ready", "min_interval": 0.2}))

    def _message(self, ws, message) -> None:
        if not isinstance(message, bytes):
            return
        self.frames += 1
        if self.answer:
            self.reply(ws)
        else:
            self.held.append(ws)

    def reply(self, ws) -> None:
        ws.send(json.dumps({"type": "overlay", "frame": self.frames, "width": 640, "height": 480, "tiles": []}))

    def event(self, **fields) -> None:
        self.sockets[-1].send(json.dumps({"type": "event", "frame": self.frames, **fields}))


def _start(page, base: str, fake: FakeLive) -> None:
    page.route_web_socket(re.compile(r".*/api/v1/live.*"), fake)
    page.goto(base + "/")
    page.click("nav button[data-tab=live]")
    page.click("#live-start")
    _expect(page.locator("#live-state")).to_have_text("watching", timeout=15_000)
    _expect(page.locator("#live-svg")).to_have_attribute("viewBox", "0 0 640 480", timeout=10_000)  # a frame answered


def test_a_lost_connection_stops_the_camera_says_so_and_comes_back_by_itself(browser, page_server, tmp_path):
    fake = FakeLive()
    with phone_page(browser) as page:
        errors = _watch_errors(page)
        _start(page, page_server, fake)
        _expect(page.locator("#live-lost")).to_be_hidden()

        fake.up = False  # the server goes away
        dropped = time.monotonic()
        fake.sockets[-1].close(code=1001, reason="server going away")
        banner = page.locator("#live-lost")
        _expect(banner).to_be_visible()
        _expect(banner).to_contain_text("Connection lost: the camera is stopped. Trying again in 1 s")
        _expect(page.locator("#live-start")).to_be_enabled()
        _expect(page.locator("#live-stop")).to_be_enabled()  # to stop trying
        assert page.eval_on_selector("#live-video", "v => v.srcObject === null")  # the camera is off
        shot(page, tmp_path, "live-connection-lost")

        # it tries again by itself, waiting longer after each failure; the server is back for the second try
        _expect(banner).to_contain_text("Trying again in 2 s (try 2)", timeout=5_000)
        assert len(fake.sockets) == 2
        fake.up = True
        _expect(page.locator("#live-state")).to_have_text("watching", timeout=10_000)
        assert len(fake.sockets) == 3
        first_wait = fake.opened_at[1] - dropped
        second_wait = fake.opened_at[2] - fake.opened_at[1]
        assert 0.8 < first_wait < 2.0 and 1.8 < second_wait < 3.5, (first_wait, second_wait)
        _expect(banner).to_be_hidden()
        _expect(page.locator("#live-events li").first).to_contain_text("Connection back: watching again.")
        _expect(page.locator("#live-stop")).to_be_enabled()
        shot(page, tmp_path, "live-reconnected")

        # Stop means stop: no more tries after a drop the user ends
        fake.up = False
        fake.sockets[-1].close(code=1001, reason="server going away")
        _expect(banner).to_be_visible()
        page.click("#live-stop")
        _expect(banner).to_be_hidden()
        page.wait_for_timeout(1300)  # longer than the first wait between tries
        assert len(fake.sockets) == 3

        # a server that will not watch at all is not asked again and again
        fake.up, fake.refuse = True, "no game with id abc"
        page.click("#live-start")
        _expect(page.locator("#live-state")).to_have_text("No game with id abc.")
        _expect(banner).to_be_hidden()
        _expect(page.locator("#live-start")).to_be_enabled()
        page.wait_for_timeout(1300)
        assert len(fake.sockets) == 4
        assert not errors, errors


def test_a_slow_server_a_play_against_the_rules_and_the_screen_kept_on(browser, page_server, tmp_path):
    fake = FakeLive()
    with phone_page(browser) as page:
        page.add_init_script(script=SIGNAL_PROBES)
        errors = _watch_errors(page)
        _start(page, page_server, fake)
        _expect(page.locator("#live-awake")).to_be_visible()
        assert page.evaluate("window.__signals.wake") == ["request screen"]

        # answers stop coming: after a few seconds the page says it is behind, and stops saying so after
        fake.answer = False
        lag = page.locator("#live-lag")
        _expect(lag).to_be_visible(timeout=6_000)
        _expect(lag).to_contain_text("Falling behind")
        shot(page, tmp_path, "live-falling-behind")
        fake.answer = True
        fake.reply(fake.held[-1])
        _expect(lag).to_be_hidden()

        # a play against the rules: a beep and a buzz, and words without the engine's codes
        fake.event(event="violation", tile="6-3", player=1, on="6-6", rule="ends_do_not_match",
                   rule_message="the 3 end does not match 6 (ends_do_not_match)",
                   message="ILLEGAL: player 1 played 6-3 on 6-6: the 3 end does not match 6 (ends_do_not_match)")
        newest = page.locator("#live-events li").first
        _expect(newest).to_contain_text("Against the rules: Player 2 played 6-3 on 6-6. "
                                        "The touching ends must show the same number")
        assert page.evaluate("window.__signals.vibrate") == 1
        assert page.evaluate("window.__signals.beeps") == 1
        # events the page has no words of its own for still come out without codes
        fake.event(event="violation", rule="chickie_unfinished",
                   message="ILLEGAL: someone played a tile: feed the chickie (chickie_unfinished)")
        _expect(page.locator("#live-events li")).to_have_count(2)
        assert page.evaluate("window.__signals.vibrate") == 2
        fake.event(event="stream_resumed")
        fake.event(event="some_new_event", message="player 2 did a new_thing (new_code)")
        _expect(page.locator("#live-events li")).to_have_count(4)
        log = page.inner_text("#live-events")
        assert not re.search(r"\b[a-z]+_[a-z_]+\b", log), log
        assert "ILLEGAL" not in log, log
        shot(page, tmp_path, "live-illegal-play")

        # switched off, and remembered
        page.uncheck("#live-alert")
        fake.event(event="violation", tile="5-2", player=0, on="5-5", rule="not_your_turn")
        _expect(page.locator("#live-events li").first).to_contain_text("Play in turn")
        assert page.evaluate("window.__signals.vibrate") == 2
        assert page.evaluate("window.__signals.beeps") == 2
        page.click("#live-stop")
        assert page.evaluate("window.__signals.wake")[-1] == "release"
        _expect(page.locator("#live-awake")).to_be_hidden()
        page.reload()
        page.click("nav button[data-tab=live]")
        _expect(page.locator("#live-alert")).not_to_be_checked()
        assert not errors, errors
