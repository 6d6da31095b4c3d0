"""Uploading a hand photo at a phone's size (390x844) in real headless Chromium: the page shrinks
a large photo before sending it, sends what it cannot decode (HEIC) as it is, and shows what was
read (score, tiles, warnings, what the outline colours mean) above the photo.

Shares `test_browser`'s server and Chromium.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import cv2
import httpx
import numpy as np
import pytest

from test_browser import ROOT, _expect, _watch_errors, chromium, pytestmark, server  # noqa: F401

DEMO = ROOT / "datasets" / "demo" / "hand.jpg"
HEIC = ROOT / "tests" / "fixtures" / "hand_3200x2400.heic"


@pytest.fixture(scope="module")
def big_photo(tmp_path_factory) -> Path:
    """A phone-sized photo: the demo hand blown up to 4000x3000 with sensor-like noise, several MB."""
    image = cv2.resize(cv2.imread(str(DEMO)), (4000, 3000), interpolation=cv2.INTER_CUBIC)
    noise = np.random.default_rng(5).normal(0, 6, image.shape)
    image = np.clip(image.astype(np.float32) + noise, 0, 255).astype(np.uint8)
    path = tmp_path_factory.mktemp("photos") / "IMG_0001.jpg"
    cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, 95])
    assert path.stat().st_size > 3_000_000, path.stat().st_size
    return path


def _record_score_uploads(page) -> list[dict]:
    """Each POST the page sends to /api/v1/score once answered: the bytes it sent (its Content-Length
    as it went on the wire; nothing intercepts it) and the server's answer, which says the width and
    height of the picture the server got."""
    sent: list[dict] = []

    def finished(r):
        if r.method == "POST" and r.url.endswith("/api/v1/score"):
            sent.append({"length": int(r.all_headers()["content-length"]), "answer": r.response().json()})

    page.on("requestfinished", finished)
    return sent


def _uploads(page, sent: list[dict], count: int, timeout_ms: int = 10_000) -> list[dict]:
    """`sent` once it holds `count` uploads. Playwright reports a finished request on its own
    channel, which can arrive after the page has already drawn the answer, so the list is awaited
    rather than read at once; a missing upload still fails, after `timeout_ms`."""
    waited = 0
    while len(sent) < count and waited < timeout_ms:
        page.wait_for_timeout(50)
        waited += 50
    return sent


def _shape(answer: dict) -> tuple[int, int]:
    return answer["width"], answer["height"]


# -- 1. a phone's photo is shrunk before it is sent -------------------------------------------

def test_a_large_photo_is_shrunk_before_it_is_sent_and_still_scored(server, tmp_path, big_photo):
    with chromium(tmp_path) as browser:
        page = browser.new_page()
        errors = _watch_errors(page)
        sent = _record_score_uploads(page)
        page.goto(server + "/")
        page.set_input_files("#hand-photo", str(big_photo))
        _expect(page.locator("#hand-score")).to_have_text(re.compile(r"^\d+$"), timeout=60_000)
        page.screenshot(path=str(tmp_path / "big-photo.png"))
        _expect(page.locator("#tab-hand")).to_have_attribute("aria-busy", "false")
        assert len(_uploads(page, sent, 1)) == 1
        size = sent[0]["length"]
        assert size < 1_500_000, f"sent {size} bytes for a {big_photo.stat().st_size}-byte photo"
        assert _shape(sent[0]["answer"]) == (2048, 1536)  # long side 2048, shape kept
        assert sent[0]["answer"]["image"] == "IMG_0001.jpg"  # under its own name
        assert page.text_content("#hand-detail").startswith("7 tiles, 103 pips")  # the demo hand
        # the same photo read again under other rules goes as small
        page.select_option("#hand-blank", "50")
        _expect(page.locator("#hand-detail")).to_contain_text("double-blank counts 50", timeout=60_000)
        _expect(page.locator("#tab-hand")).to_have_attribute("aria-busy", "false")
        assert len(_uploads(page, sent, 2)) == 2 and abs(sent[1]["length"] - size) < 100
        assert not errors, errors


def _sent_as_it_is(server, tmp_path, photo, shape, timeout, detail=None) -> None:
    """`photo` picked on the Hand tab goes to the server byte for byte (give or take the form's
    headers) and is read there at its own `shape`."""
    with chromium(tmp_path) as browser:
        page = browser.new_page()
        errors = _watch_errors(page)
        sent = _record_score_uploads(page)
        page.goto(server + "/")
        page.set_input_files("#hand-photo", str(photo))
        _expect(page.locator("#hand-score")).to_have_text(re.compile(r"^\d+$"), timeout=timeout)
        if detail:
            assert page.text_content("#hand-detail").startswith(detail)
        _expect(page.locator("#tab-hand")).to_have_attribute("aria-busy", "false")
        assert len(_uploads(page, sent, 1)) == 1 and photo.stat().st_size < sent[0]["length"] < photo.stat().st_size + 1000
        assert _shape(sent[0]["answer"]) == shape
        assert sent[0]["answer"]["image"] == photo.name
        assert not errors, errors


def test_a_small_photo_is_sent_as_it_is(server, tmp_path):
    _sent_as_it_is(server, tmp_path, DEMO, (1280, 960), 30_000)


def test_a_heic_photo_the_browser_cannot_decode_is_sent_as_it_is(server, tmp_path):
    _sent_as_it_is(server, tmp_path, HEIC, (3200, 2400), 60_000, "7 tiles, 103 pips")


# -- 2. what was read, and what to check, above the photo ------------------------------------------

@pytest.fixture(scope="module")
def real_hand(server) -> dict:
    """A real answer from POST /api/v1/score, for its shape."""
    with open(DEMO, "rb") as f:
        res = httpx.post(f"{server}/api/v1/score", files={"photo": ("hand.jpg", f, "image/jpeg")}, timeout=60)
    res.raise_for_status()
    hand = res.json()
    assert hand["tiles"] and "warnings" in hand
    return hand


def _with_warnings(hand: dict, warnings: list[str], unsure: int | None = None) -> str:
    hand = json.loads(json.dumps(hand))
    hand["warnings"] = warnings
    if unsure is not None:
        hand["tiles"][unsure]["pip_confidence"] = 0.2
        hand["tiles"][unsure]["notes"] = ["a pip is hidden by glare"]
    return json.dumps(hand)


def _box(page, selector) -> dict:
    box = page.locator(selector).bounding_box()
    assert box is not None, f"{selector} is not shown"
    return box


def test_warnings_show_above_the_photo_and_the_score_is_not_green(server, tmp_path, real_hand):
    warning = "tile 6-6 appears 3 times; a set has one of each"
    body = _with_warnings(real_hand, [warning, "2 tiles cut off at the photo's edge"], unsure=0)
    with chromium(tmp_path) as browser:
        page = browser.new_page()
        errors = _watch_errors(page)
        page.route("**/api/v1/score", lambda r: r.fulfill(status=200, content_type="application/json", body=body))
        page.goto(server + "/")
        page.set_input_files("#hand-photo", str(DEMO))
        _expect(page.locator("#hand-score")).to_have_text(str(real_hand["score"]), timeout=30_000)
        _expect(page.locator("#hand-img")).to_be_visible()
        page.screenshot(path=str(tmp_path / "warned.png"))
        shown = page.get_by_text(warning)
        _expect(shown).to_be_visible()
        _expect(page.get_by_text("2 tiles cut off")).to_be_visible()
        image = _box(page, "#hand-img")
        assert shown.bounding_box()["y"] < image["y"], "the warning is below the photo"
        assert shown.bounding_box()["y"] + shown.bounding_box()["height"] <= 844, "the warning is off-screen"
        assert _box(page, "#hand-score")["y"] < image["y"]
        _expect(page.locator("#hand-score")).not_to_have_class(re.compile(r"\bsuccess\b"))
        # not in the success colour either
        green = page.eval_on_selector("#hand-score", "el => getComputedStyle(el).color")
        assert green != "rgb(31, 111, 74)", green
        # the tiles as chips, the unsure one marked as its outline is, and a legend for the colours
        read = [t for t in real_hand["tiles"] if t["pips"]]
        _expect(page.locator("#hand-chips .chip")).to_have_count(len(read))
        _expect(page.locator("#hand-chips .chip").first).to_have_text("-".join(map(str, read[0]["pips"])))
        _expect(page.locator("#hand-chips .chip.unsure")).to_have_count(1)
        _expect(page.locator("#hand-svg polygon.unsure")).to_have_count(1)
        legend = page.locator("#hand-legend")
        _expect(legend).to_be_visible()
        _expect(legend).to_contain_text("read surely")
        _expect(legend).to_contain_text("unsure")
        assert legend.bounding_box()["y"] < image["y"]
        assert not errors, errors


def test_a_clean_reading_shows_the_score_in_the_success_colour_without_warnings(server, tmp_path, real_hand):
    body = _with_warnings(real_hand, [])
    with chromium(tmp_path) as browser:
        page = browser.new_page()
        errors = _watch_errors(page)
        page.route("**/api/v1/score", lambda r: r.fulfill(status=200, content_type="application/json", body=body))
        page.goto(server + "/")
        page.set_input_files("#hand-photo", str(DEMO))
        _expect(page.locator("#hand-score")).to_have_text(str(real_hand["score"]), timeout=30_000)
        _expect(page.locator("#hand-score")).to_have_class(re.compile(r"\bsuccess\b"))
        _expect(page.locator("#hand-warnings")).to_be_hidden()
        _expect(page.locator("#hand-chips .chip")).to_have_count(len([t for t in real_hand["tiles"] if t["pips"]]))
        # a chip opens the same editor as the tile's outline
        page.locator("#hand-chips .chip").first.click()
        _expect(page.locator("#tile-dialog")).to_be_visible()
        page.screenshot(path=str(tmp_path / "clean.png"))
        assert not errors, errors
