"""Whether a box is a face, a back or a patch of the table: the judgments the stages that sort
faces from backs go by (each a function of a reading, a crop and the half reader's belief, judged
by the thresholds of a `FaceConfig`, the recognizer's `config.faces`)."""
from __future__ import annotations

from typing import Any, Callable, Sequence

import cv2
import numpy as np

from ..pipreader import TileReading, colour_distance_view, faint_pips_view, find_bar
from .config import FaceConfig


def looks_face_down(reading: TileReading) -> bool:
    """A box with no dot and no divider is a tile's back: every face, the double blank
    included, has its divider; a back has none (a blank read here counts 0 either way)."""
    dots = tuple(getattr(h, "dots", h.count) for h in reading.halves)  # a classified end keeps its dot count
    return dots == (0, 0) and reading.bar is None


def _turned_bar(crop: np.ndarray, config: FaceConfig = FaceConfig()) -> bool:
    """Whether the crop, turned by one of `FaceConfig.bar_turns` about its middle, shows a faint divider
    with the same face on both sides of it. Why both sides: a box over a table's straight edge has
    a line across its middle too, with the table on one side (a phantom 0-0 on a steep copy of a
    real photo, `scripts/stress_real.py`)."""
    h, w = crop.shape[:2]
    for deg in config.bar_turns:
        m = cv2.getRotationMatrix2D((w / 2, h / 2), deg, 1.0)
        turned = cv2.warpAffine(crop, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        bar = find_bar(turned, contrast=config.faint_bar_contrast)
        if bar is None:
            continue
        row, thick = bar
        lab = cv2.cvtColor(turned, cv2.COLOR_BGR2LAB).astype(np.float32)[:, int(0.2 * w):int(0.8 * w)]
        above = np.median(lab[int(0.15 * h):max(int(row - thick), int(0.15 * h) + 1)].reshape(-1, 3), axis=0)
        below = np.median(lab[min(int(row + thick) + 1, int(0.85 * h) - 1):int(0.85 * h)].reshape(-1, 3), axis=0)
        if float(np.linalg.norm(above - below)) < config.same_face:
            return True
    return False


def dots_agree(counted: tuple[int, int] | Any, want: tuple[int, int], config: FaceConfig = FaceConfig()) -> bool:
    """Whether the dot detector's count (`counted`) agrees with the half reader's (`want`) within
    `FaceConfig.dot_count_margin`, end by end."""
    margin = int(max(want) * config.dot_count_margin)
    return all(abs(int(c) - int(w)) <= margin for c, w in zip(counted, want))


def looks_a_face_by_pattern(reading: TileReading, crop,
                            count_dots: Callable[[Any, Any], tuple[int, int]] | None = None,
                            config: FaceConfig = FaceConfig()) -> bool:
    """Whether a blank-looking small box is a face after all: the half reader is sure of both ends,
    one of them at least a dot, and a fainter look finds the divider every face has. The divider
    is needed: the half reader reads a back with a dimple in each half as 1-1, sure at 0.9 and
    more. One blank end is allowed: a 43-px 15-0 whose pale 15 showed the dot detector nothing
    was a back in every frame of a rendered round after its first, and the five plays
    built on its 0 were lost; both ends blank is the double blank's own test (`looks_double_blank`)."""
    halves = reading.halves
    if not all(hasattr(h, "probs") for h in halves) or not any(h.count > 0 for h in halves):
        return False
    want = tuple(h.count for h in halves)
    if not all(h.confidence >= config.face_sure for h in halves):
        # an end of dots read sure beside a blank end read unsure: the face where the divider shows
        # at a fainter look and a colour view counts those dots on both ends, within `dots_agree`'s
        # margin (a back's own pattern stays faint there). Why: in a rendered round, an 8-0 toe of
        # yellow-green pips on a lilac face showed the dot detector nothing; the half reader was sure
        # of the 8 (0.94) but not of the blank beside it (0.24), and the tile was a back in every frame.
        if not all(h.confidence >= config.face_sure for h in halves if h.count > 0):
            return False
        bar = find_bar(crop, contrast=config.faint_bar_contrast)
        return bar is not None and count_dots is not None and \
            any(dots_agree(count_dots(view(crop), bar), want, config) for view in PALE_PIP_VIEWS)
    if find_bar(crop, contrast=config.faint_bar_contrast) is not None:
        return True
    # where both ends need several dots, a divider fainter still will do (a 54-px 10-10 spinner
    # with a dashed pale red divider and small pale pips, read 10-10 at 0.94 and 0.95, was a back
    # in every frame of a rendered round, and the round was followed from its first arm):
    # a back's ring, dimples or stripe read as a 0 or a 1 on an end, never as two values of 2 or more
    groove = find_bar(crop, contrast=config.groove_bar_contrast)
    if groove is None:
        return False
    if all(h.count >= 2 for h in halves):
        return True
    # pale pips the dot detector missed on the crop as it is may show on a colour view: where one
    # (`count_dots`, the dot detector's count on a view, given the divider) finds the half reader's
    # dots on both ends (`dots_agree`), it is that face. A back's pattern drawn in its own colour
    # (dimples, a ring) stays far fainter on these views than a pip of another colour.
    return count_dots is not None and \
        any(dots_agree(count_dots(view(crop), groove), want, config) for view in PALE_PIP_VIEWS)


def looks_mottled(crop: np.ndarray, dots: Sequence[tuple[float, float, float, int]] = (),
                  inside: np.ndarray | None = None, config: FaceConfig = FaceConfig()) -> bool:
    """Whether a straightened crop's face, away from the divider's band and the `dots` found on it
    (crop x, y first), is streaked all over (see `FaceConfig.mottled_share`). A shadow's edge or a glare spot
    steps across a line or a patch, not everywhere, so the share of steep pixels is asked, not how
    far they lie from the face's colour. `inside`: the crop's pixels that come from inside the
    picture (`rectify.inside_picture`); only those are judged, as the picture's edge repeated
    beyond it lies in streaks, and a blank tile cut by the edge of a photo would be taken for a
    patch of table."""
    h, w = crop.shape[:2]
    light = cv2.cvtColor(crop, cv2.COLOR_BGR2LAB)[..., 0].astype(np.float32)
    step = np.hypot(cv2.Sobel(light, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(light, cv2.CV_32F, 0, 1, ksize=3)) / 8
    face = np.zeros((h, w), np.uint8)
    face[np.r_[int(h * 0.1):int(h * 0.36), int(h * 0.64):int(h * 0.9)], int(w * 0.12):int(w * 0.88)] = 1
    whole = int(face.sum())
    for x, y, *_ in dots:
        cv2.circle(face, (int(round(x)), int(round(y))), int(round(config.mottled_dot * w)), 0, -1)
    plain = face.astype(bool)
    if inside is not None:
        # a pixel whose 3x3 step reaches outside the picture is not judged either
        plain &= cv2.erode(inside.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    if plain.sum() < config.mottled_seen * whole:
        return False
    return float((step[plain] > config.mottled_step).mean()) > config.mottled_share


def looks_a_face_by_its_dots(probs: np.ndarray, dots: tuple[int, int] | None,
                             config: FaceConfig = FaceConfig()) -> bool:
    """Whether a small box the detector called a back is a face: the half reader is sure of both
    ends (`FaceConfig.face_sure`), at least one dot, and the dot detector counts those dots on its crop
    (`dots`, compared by `dots_agree`; None asks only the half reader's part). Why: a 1-0 toe with
    one pale yellow pip on a lilac face, crosswise on a lilac table in a rendered round, was boxed as
    a back in every frame though both readers read it 1-0, and the plays built on its chickie were lost. A
    back's dimples read 1-1 to the half reader, so the dots must agree too: of the 14,234 small boxes
    called backs on 240 rendered 720p tables of double-9 to double-15 (seeds 3601-3603), none passed."""
    want = tuple(int(np.argmax(p)) for p in probs)
    if min(float(np.max(p)) for p in probs) < config.face_sure or sum(want) == 0:
        return False
    return dots is None or dots_agree(dots, want, config)


def looks_double_blank(reading: TileReading, crop, probs=None, config: FaceConfig = FaceConfig()) -> bool:
    """Whether a box with neither dot nor divider (see `looks_face_down`) is the double blank after
    all: its divider may be too faint for the reader's test, and then the dots it does not have
    are all there is to tell it from a back. Small tiles go by the half reader (sure of 0 on both
    ends); larger ones by a second, fainter look for the divider, and where the half reader's
    `probs` for the box are sure of 0 on both ends, by a third, fainter still (an engraved groove
    hardly darker than a cream face: a 0-0 spinner was thrown away as a back in every frame of a
    fresh rendered double-6 round, and the round was followed from the wrong tile)."""
    halves = reading.halves
    if all(hasattr(h, "probs") for h in halves):
        return all(h.count == 0 and h.confidence >= config.blank_sure for h in halves)
    if find_bar(crop, contrast=config.faint_bar_contrast) is not None or _turned_bar(crop, config):
        return True
    return probs is not None and all(float(p[0]) >= config.groove_blank_sure for p in probs) and \
        find_bar(crop, contrast=config.groove_bar_contrast) is not None


def cut_by_edge(corners, width: int, height: int, margin: float = 0.005) -> bool:
    """Whether a box reaches the picture's edge: the tile may go on outside it, so a blank-looking
    box there is the visible part of a face, not a back, and its dots may be incomplete."""
    m = margin * max(width, height)
    x, y = corners[:, 0], corners[:, 1]
    return bool((x < m).any() or (y < m).any() or (x > width - 1 - m).any() or (y > height - 1 - m).any())


PALE_PIP_VIEWS = (colour_distance_view, faint_pips_view)
"""Views on which a small blank-looking box's pale pips are counted (`looks_a_face_by_pattern`).
Why: a rendered double-12 round laid its 1-1 spinner and arms with pale cyan 1s and pale
blue 2s; no dot showed on the crop and the divider only at the faintest look, so the spinner and
four arms were backs in every frame and the tracker followed 14 of 41 plays. The faint view
counted each of them exactly as the half reader read them."""
