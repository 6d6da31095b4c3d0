"""Photo -> dominoes with pip values: the one function the CLI, the API and the tracker call."""
from __future__ import annotations

import os
import time
from concurrent.futures import Future, ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Sequence

import cv2
import numpy as np

from .capture import small_tiles_warning
from .colour_check import colour_checked
from .correct import (apply_rules, drop_boxes_sharing_dots, drop_duplicate_boxes, drop_overlapping_boxes,
                      infer_set_max, read_twice, second_readings, DEFAULT_SET, SURE_READING)
from .detector import CLASS_BACK, TileDetector
from .imageio import LoadedImage, load_image
from .halfreader import (SMALL_TILE_PX, HalfReader, bar_checked, blank_ends_in_doubt, classified_reading,
                         dense_checked, disputed_ends, double_checked, pale_ends_checked, pattern_checked,
                         second_look_checked, split_checked)
from .pipreader import (PipReader, TileReading, colour_distance_view, evenly_lit_view, faint_pips_view,
                        faintest_pips_view, find_bar, shade_flattened_view, sharpened_view)
from .perspective import (LevelView, find_level_view, guessed_steep_view, looks_from_above, pip_shapes,
                          pips_show_a_tilt)
from .rectify import inside_picture, rectify_tile
from .types import COLOUR_NOTE, Recognition, TileDetection, tile_length

REPO_MODELS = Path(__file__).resolve().parents[1] / "models"
DETECTOR_FILE = "tile_detector.onnx"
PIPS_FILE = "pip_detector.onnx"
HALVES_FILE = "half_reader.onnx"
BIG_HALVES_FILE = "half_reader_big.onnx"
BIG_SET_MIN = 13
"""A picture of a set declared double-13 or more is read by the big sets' half reader
(`BIG_HALVES_FILE`, where the model folder has one): fine-tuned on their small tiles, it reads
13-15 better, but with no set or a small set declared it reads some pale small ends as dense 16s
and 17s, so everywhere else the general half reader reads (models/README.md, the big reader's card)."""


def models_dir() -> Path:
    return Path(os.environ.get("CHICKENFOOT_MODELS", REPO_MODELS))


def looks_face_down(reading: TileReading) -> bool:
    """A box with no dot and no divider is a tile's back: every face, the double blank
    included, has its divider; a back has none (a blank read here counts 0 either way)."""
    dots = tuple(getattr(h, "dots", h.count) for h in reading.halves)  # a classified end keeps its dot count
    return dots == (0, 0) and reading.bar is None


FAINT_BAR_CONTRAST = 16
"""Contrast at which a large blank box's divider is looked for again (the reader's is 28): a
double blank's bar is often faint (a thin grey line on a cream face); a back has nothing running
straight across its middle (a ring or a dimple is short, a stripe slanted)."""
BAR_TURNS = (-10.0, -5.0, 5.0, 10.0)
"""Degrees a large blank box's crop is turned to look for a divider the box does not lie square
to (`_turned_bar`). Why: a crosswise 112-px 0-0 chickie in a rendered double-6 round
was boxed 8 degrees off its outline; its thin grey divider, slanted across the crop, filled no row
of it, so the tile was taken for a back in every frame and its two toes were never followed. A
back's stripe runs some 60 degrees off square, a ring or a dimple short."""


def _turned_bar(crop: np.ndarray) -> bool:
    """Whether the crop, turned by one of `BAR_TURNS` about its middle, shows a faint divider
    with the same face on both sides of it. Why both sides: a box over a table's straight edge has
    a line across its middle too, with the table on one side (a phantom 0-0 on a steep copy of a
    real photo, `scripts/stress_real.py`)."""
    h, w = crop.shape[:2]
    for deg in BAR_TURNS:
        m = cv2.getRotationMatrix2D((w / 2, h / 2), deg, 1.0)
        turned = cv2.warpAffine(crop, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        bar = find_bar(turned, contrast=FAINT_BAR_CONTRAST)
        if bar is None:
            continue
        row, thick = bar
        lab = cv2.cvtColor(turned, cv2.COLOR_BGR2LAB).astype(np.float32)[:, int(0.2 * w):int(0.8 * w)]
        above = np.median(lab[int(0.15 * h):max(int(row - thick), int(0.15 * h) + 1)].reshape(-1, 3), axis=0)
        below = np.median(lab[min(int(row + thick) + 1, int(0.85 * h) - 1):int(0.85 * h)].reshape(-1, 3), axis=0)
        if float(np.linalg.norm(above - below)) < SAME_FACE:
            return True
    return False


SAME_FACE = 20.0
"""Largest Lab distance between the median colours on either side of a turned divider for both
to be one face (`_turned_bar`)."""


BLANK_SURE = 0.6
"""How sure the half reader must be of a 0 on each end of a small blank box to call it the double
blank (on rendered tables, double blanks read 0.73 or more, backs at most 0.49)."""


GROOVE_BAR_CONTRAST = 8
GROOVE_BLANK_SURE = 0.8
"""The faintest divider a large blank box may show to count as the double blank, and how sure of
0 the half reader must then be on each end (see `looks_double_blank`)."""


DOT_COUNT_MARGIN = 0.25
"""Where the dot detector's count must agree with the half reader's (a small box called a back or
a blank judged a face by its dots), each end may differ by this share of the larger end's value,
rounded down: an end of 8 dots beside a blank end agrees with a count of 7 to 9 and up to 2 stray
dots on the blank end, while ends of 0-3 dots must match exactly. Why: the dot detector's count
of a pale pattern on a colour view moves by a dot or two between builds of the same libraries
(an 8-0 counted 8-0 on one machine and 8-1 or 8-2 on another), and an exact match made whether a
tile was seen at all depend on the build. A back's dimples or ring read as 0 to 2 dots an end,
so the small counts that could be a back stay exact."""


def dots_agree(counted: tuple[int, int] | Any, want: tuple[int, int]) -> bool:
    """Whether the dot detector's count (`counted`) agrees with the half reader's (`want`) within
    `DOT_COUNT_MARGIN`, end by end."""
    margin = int(max(want) * DOT_COUNT_MARGIN)
    return all(abs(int(c) - int(w)) <= margin for c, w in zip(counted, want))


FACE_SURE = 0.9
"""How sure the half reader must be of both ends of a small box with neither dot nor divider to
read it as that face, not a back (a 43-px double-13 drawn in pale lilac with a pale divider showed
no dot to the dot detector and was thrown away as a back in every frame of a rendered round,
while the half reader read it 13-13 at 0.96)."""


def looks_a_face_by_pattern(reading: TileReading, crop,
                            count_dots: Callable[[Any, Any], tuple[int, int]] | None = None) -> bool:
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
    if not all(h.confidence >= FACE_SURE for h in halves):
        # an end of dots read sure beside a blank end read unsure: the face where the divider shows
        # at a fainter look and a colour view counts those dots on both ends, within `dots_agree`'s
        # margin (a back's own pattern stays faint there). Why: in a rendered round, an 8-0 toe of
        # yellow-green pips on a lilac face showed the dot detector nothing; the half reader was sure
        # of the 8 (0.94) but not of the blank beside it (0.24), and the tile was a back in every frame.
        if not all(h.confidence >= FACE_SURE for h in halves if h.count > 0):
            return False
        bar = find_bar(crop, contrast=FAINT_BAR_CONTRAST)
        return bar is not None and count_dots is not None and \
            any(dots_agree(count_dots(view(crop), bar), want) for view in PALE_PIP_VIEWS)
    if find_bar(crop, contrast=FAINT_BAR_CONTRAST) is not None:
        return True
    # where both ends need several dots, a divider fainter still will do (a 54-px 10-10 spinner
    # with a dashed pale red divider and small pale pips, read 10-10 at 0.94 and 0.95, was a back
    # in every frame of a rendered round, and the round was followed from its first arm):
    # a back's ring, dimples or stripe read as a 0 or a 1 on an end, never as two values of 2 or more
    groove = find_bar(crop, contrast=GROOVE_BAR_CONTRAST)
    if groove is None:
        return False
    if all(h.count >= 2 for h in halves):
        return True
    # pale pips the dot detector missed on the crop as it is may show on a colour view: where one
    # (`count_dots`, the dot detector's count on a view, given the divider) finds the half reader's
    # dots on both ends (`dots_agree`), it is that face. A back's pattern drawn in its own colour
    # (dimples, a ring) stays far fainter on these views than a pip of another colour.
    return count_dots is not None and \
        any(dots_agree(count_dots(view(crop), groove), want) for view in PALE_PIP_VIEWS)


MOTTLED_STEP = 9.0
MOTTLED_SHARE = 0.21
"""A box read with at most one dot is a patch of the table, not a tile, where more than
`MOTTLED_SHARE` of its face, away from the divider's band and its dot, steps by over
`MOTTLED_STEP` lightness levels a pixel (`looks_mottled`). Why: such a face is plain but for its
divider and its dot, while glossy or woven table tops are streaked all over, and their streaks can
pass for a divider and a speck for a pip; the detector boxed such patches on copies of the real
photos turned 45 degrees or seen at a slant (`scripts/stress_real.py`), and each was read as a 0-0
or a 1-0 that is not there. Shares measured: such patches 0.27-0.48 on the real
copies, and two boxes read falsely on rendered steep tables 0.26 and 0.37; tiles read with a dot
or none at most 0.07 on the real photos and their copies, 0.16 on rendered tables and hands (a box
loose or turned on its tile takes in the tile's edges, a dim render its sensor noise, which the
step of 9 mostly passes over). Faces of more dots are left alone: the halos of a blurred photo's
pips step too."""
MOTTLED_DOT = 0.18
"""Radius, in crop widths, of the disc about a dot found that `looks_mottled` leaves out: a large
pip of a double-6 set with its rim and blur."""
MOTTLED_SEEN = 0.25
"""Share of the face that must lie inside the picture for `looks_mottled` to judge it."""


def looks_mottled(crop: np.ndarray, dots: Sequence[tuple[float, float, float, int]] = (),
                  inside: np.ndarray | None = None) -> bool:
    """Whether a straightened crop's face, away from the divider's band and the `dots` found on it
    (crop x, y first), is streaked all over (see `MOTTLED_SHARE`). A shadow's edge or a glare spot
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
        cv2.circle(face, (int(round(x)), int(round(y))), int(round(MOTTLED_DOT * w)), 0, -1)
    plain = face.astype(bool)
    if inside is not None:
        # a pixel whose 3x3 step reaches outside the picture is not judged either
        plain &= cv2.erode(inside.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    if plain.sum() < MOTTLED_SEEN * whole:
        return False
    return float((step[plain] > MOTTLED_STEP).mean()) > MOTTLED_SHARE


BESIDE_A_FACE = 1.2
"""How near a face's centre (in its lengths) a small box called a back must lie to be looked at again
(`Recognizer._faces_among_backs`): a toe or an arm lies against the tile it was played on."""


def looks_a_face_by_its_dots(probs: np.ndarray, dots: tuple[int, int] | None) -> bool:
    """Whether a small box the detector called a back is a face: the half reader is sure of both
    ends (`FACE_SURE`), at least one dot, and the dot detector counts those dots on its crop
    (`dots`, compared by `dots_agree`; None asks only the half reader's part). Why: a 1-0 toe with
    one pale yellow pip on a lilac face, crosswise on a lilac table in a rendered round, was boxed as
    a back in every frame though both readers read it 1-0, and the plays built on its chickie were lost. A
    back's dimples read 1-1 to the half reader, so the dots must agree too: of the 14,234 small boxes
    called backs on 240 rendered 720p tables of double-9 to double-15 (seeds 3601-3603), none passed."""
    want = tuple(int(np.argmax(p)) for p in probs)
    if min(float(np.max(p)) for p in probs) < FACE_SURE or sum(want) == 0:
        return False
    return dots is None or dots_agree(dots, want)


def looks_double_blank(reading: TileReading, crop, probs=None) -> bool:
    """Whether a box with neither dot nor divider (see `looks_face_down`) is the double blank after
    all: its divider may be too faint for the reader's test, and then the dots it does not have
    are all there is to tell it from a back. Small tiles go by the half reader (sure of 0 on both
    ends); larger ones by a second, fainter look for the divider, and where the half reader's
    `probs` for the box are sure of 0 on both ends, by a third, fainter still (an engraved groove
    hardly darker than a cream face: a 0-0 spinner was thrown away as a back in every frame of a
    fresh rendered double-6 round, and the round was followed from the wrong tile)."""
    halves = reading.halves
    if all(hasattr(h, "probs") for h in halves):
        return all(h.count == 0 and h.confidence >= BLANK_SURE for h in halves)
    if find_bar(crop, contrast=FAINT_BAR_CONTRAST) is not None or _turned_bar(crop):
        return True
    return probs is not None and all(float(p[0]) >= GROOVE_BLANK_SURE for p in probs) and \
        find_bar(crop, contrast=GROOVE_BAR_CONTRAST) is not None


def cut_by_edge(corners, width: int, height: int, margin: float = 0.005) -> bool:
    """Whether a box reaches the picture's edge: the tile may go on outside it, so a blank-looking
    box there is the visible part of a face, not a back, and its dots may be incomplete."""
    m = margin * max(width, height)
    x, y = corners[:, 0], corners[:, 1]
    return bool((x < m).any() or (y < m).any() or (x > width - 1 - m).any() or (y > height - 1 - m).any())


def shows_divider(image, corners: np.ndarray) -> bool:
    """Whether a box the detector calls a back shows a divider across its middle after all, and so
    is a face: every face has one and a back has none (a ring or a dimple is short, a stripe
    slanted). The detector told a double blank from a back by little more than its missing dots,
    and a real 0-0 whose divider was plain, seen from low down (the far row of a tilted photo,
    `scripts/stress_real.py`), was boxed as a back. Asked only of large boxes: on rendered tables a
    small box across two backs pushed together took the seam between them for a divider."""
    return find_bar(rectify_tile(image, corners)[0]) is not None


LEVEL_MORE_TWICE = 2
"""Tiles read twice more in a levelled reading than in the photo as it is, above which the levelled
reading is not taken. A set holds each tile once, so a reading full of repeats is full of misreads.
Why: a dense 1280x720 table seen from above, blurred, with its boxes packed too tight to look like
dominoes (a rendered double-12 table), was "levelled" as if seen from 59 degrees; the
levelled reading found 68 faces against 53 and was taken, but read 17 tiles twice and 17 of 52
right, against 51 of 52 as it was. On the steep rendered tables (seed 2613) every levelled reading
taken reads no more repeats than the photo as it is, but for one with one more."""


LEVEL_BACK_SHARE = 0.25
"""A back shorter than this share of the faces' median length is left out of the search for the
picture's angle (`_backs_of_a_size`)."""


def _backs_of_a_size(rec: Recognition) -> list[TileDetection]:
    """The backs that may be tiles of the set whose faces were read: the search for the angle
    looks for the view in which every box is a domino of one size. Why: a back is a plain box,
    and the detector's phantoms are most often backs; on a real copy seen from 65 degrees, two
    phantom backs on the coarse cloth at the picture's near edge, a tenth of the tiles' length,
    turned the view found from the tiles' 53 degrees to a skewed 63, and the levelled reading
    boxed halves as tiles. Real backs of the set stay: leaving every back out instead read fewer
    tiles of rendered steep tables exactly (seed 2613: 0.852 -> 0.790)."""
    if len(rec.tiles) < 2:
        return list(rec.face_down)
    median = float(np.median([t.length for t in rec.tiles]))
    return [t for t in rec.face_down if t.length >= LEVEL_BACK_SHARE * median]


LEVEL_ROUNDS = 2
"""Times a tilted photo is levelled: boxes on tiles seen steeply are nearer a domino's shape than
the tiles are, so the first view found undoes only part of the tilt; the boxes found on the
levelled picture, mapped back, show the rest."""


GUESS_BELOW_FACES = 2
"""Faces showing a divider in a photo as it is, below which, where the boxes show no angle, the
photo is read again in a guessed steep view (`perspective.guessed_steep_view`). Why: a table seen
from 65 degrees off straight down is boxed by the detector hardly at all (copies of the real
photos so seen: exact tile 0.449), or its tiles' halves are boxed as tiles, which show no divider
and whose boxes look like dominoes; a guessed view read the copies 0.876. With more such faces
their boxes and pips show the angle, or that there is none; and a guess costs a second reading
(1.4 s instead of 0.5 s for a 2718x2718 close-up of two tiles seen from above, where the guess
was tried with fewer than three faces)."""


def _faces_with_a_divider(img: LoadedImage, tiles: list[TileDetection]) -> int:
    """How many of the faces read show a divider, counted up to `GUESS_BELOW_FACES`. Why not the
    faces alone: seen from further than the detector learnt, a tile's two halves are boxed as two
    tiles, and a half shows no divider (rendered double-12 hands seen from 60-72 degrees: 41 of 204
    faces read showed one; hands from above 110 of 148)."""
    n = 0
    for t in tiles:
        if shows_divider(img.bgr, t.corners / img.scale):
            n += 1
            if n >= GUESS_BELOW_FACES:
                break
    return n


PALE_PIP_VIEWS = (colour_distance_view, faint_pips_view)
"""Views on which a small blank-looking box's pale pips are counted (`looks_a_face_by_pattern`).
Why: a rendered double-12 round laid its 1-1 spinner and arms with pale cyan 1s and pale
blue 2s; no dot showed on the crop and the divider only at the faintest look, so the spinner and
four arms were backs in every frame and the tracker followed 14 of 41 plays. The faint view
counted each of them exactly as the half reader read them."""


FURTHER_LOOKS = (colour_distance_view, sharpened_view, faint_pips_view, evenly_lit_view, shade_flattened_view,
                 faintest_pips_view)
"""Views of a large tile's crop read again, in turn, where the half reader is sure of more dots than
were counted: pips of a colour the dot detector is blind to, dots a blur has faded, pale pips on a
face lit to white, pips under a glare, pips a shadow's sharp edge crosses, pale pips all but washed
out. The classifier's value is taken only where a look finds exactly the dots it needs
(`halfreader.second_look_checked`), so a look that merges or invents dots costs nothing but its
time, and an end the dots already explain is never looked at again."""


class Recognizer:
    def __init__(self, model_dir: str | Path | None = None, detector_conf: float = 0.5, pip_conf: float = 0.5,
                 threads: int | None = None, small_tiles: bool = True):
        d = Path(model_dir) if model_dir else models_dir()
        if d.is_file():  # --model may name the detector file itself
            det_path, d = d, d.parent
        else:
            det_path = d / DETECTOR_FILE
        self.detector = TileDetector(det_path, conf=detector_conf, threads=threads)
        self.pips = PipReader(d / PIPS_FILE, conf=pip_conf, threads=threads)
        # a model folder without the half reader (an older one) reads every tile by its dots
        self.halves = HalfReader(d / HALVES_FILE, threads=threads) if small_tiles and (d / HALVES_FILE).exists() \
            else None
        self.big_halves = HalfReader(d / BIG_HALVES_FILE, threads=threads) \
            if self.halves is not None and (d / BIG_HALVES_FILE).exists() else None
        self.small_tile_px = SMALL_TILE_PX
        self._helper = ThreadPoolExecutor(1, thread_name_prefix="half-reader")  # its thread starts at first use

    def _beside(self, fn: Callable[..., Any], *args: Any) -> Future:
        """`fn(*args)` started on the recognizer's one helper thread. Why: the two small readers'
        runs are too short to keep both cores busy alone (onnxruntime splits little of a 36x32
        end's work), so the half reader run after the dot detector costs a hand frame ~6 ms and a
        table frame ~10 ms more than run beside it (measured paired, in one process; every real
        photo and webcam frame read the same either way). Made with the recognizer, not at first
        use, so that requests the service reads side by side share one."""
        return self._helper.submit(fn, *args)

    def _faces_among_backs(self, img: LoadedImage, backs: list, faces: list, halves: HalfReader) -> list:
        """The small boxes the detector called backs that lie beside a face and show a face after
        all (see `looks_a_face_by_its_dots`). Only those beside a face are looked at: a tile played
        lies against another, and a table's boneyard of backs would cost a reading each."""
        reach = [BESIDE_A_FACE * tile_length(f.corners) for f in faces]
        centres = [f.corners.mean(0) for f in faces]
        near = [b for b in backs if tile_length(b.corners) < self.small_tile_px and
                any(np.linalg.norm(b.corners.mean(0) - c) < r for c, r in zip(centres, reach))]
        if not near:
            return []
        crops = [rectify_tile(img.bgr, b.corners)[0] for b in near]
        probs = halves.probabilities(crops)
        sure = [i for i, p in enumerate(probs) if looks_a_face_by_its_dots(p, None)]
        if not sure:
            return []
        dots = self.pips.read_crops([crops[i] for i in sure], [find_bar(crops[i]) for i in sure])
        return [near[i] for i, d in zip(sure, dots) if looks_a_face_by_its_dots(probs[i], d.pips)]

    def _count_dots(self, view, bar) -> tuple[int, int]:
        return self.pips.read_crops([view], [bar])[0].pips

    def recognize_loaded(self, img: LoadedImage, set_max: int | None = None,
                         tile_px: float | None = None, level: bool = False,
                         colour_anchors: Sequence[tuple[int, Any]] = ()) -> Recognition:
        """`tile_px`: the tiles' length in the picture read, where the caller knows it (see
        `TileDetector.detect`). `level`: where the boxes found show the picture was taken at an
        angle, read it again levelled (see `levelled`); for photos, not for a webcam's frames,
        whose tracker knows the view from the frames before. `colour_anchors`: the
        `Recognition.pip_colours` of earlier pictures of the same set (see `colour_check`)."""
        rec = self._read(img, set_max, tile_px, colour_anchors)
        rec = self.levelled(img, rec, set_max) if level else rec
        if set_max is None and rec.highest_read > rec.set_max and rec.set_max < DEFAULT_SET:
            # enough faces read sure show a small set, and faces read unsure gave values it does
            # not hold: read again within that set, so that the readers choose among its values
            # (see `infer_set_max`). Not where the set is only the default: read again as a named
            # double-12, real low-seat frames lost tiles they had read unconstrained
            first = rec.seconds
            rec = self.recognize_loaded(img, rec.set_max, tile_px, level, colour_anchors)
            rec.seconds += first
        return rec

    def _read(self, img: LoadedImage, set_max: int | None = None, tile_px: float | None = None,
              colour_anchors: Sequence[tuple[int, Any]] = ()) -> Recognition:
        t0 = time.perf_counter()
        halves = self.big_halves if self.big_halves is not None and set_max and set_max >= BIG_SET_MIN \
            else self.halves
        boxes = self.detector.detect(img.bgr, tile_px / img.scale if tile_px else None)
        up, down = [], []
        for b in boxes:
            # (a large "back" whose divider shows is a face: see `shows_divider`)
            is_back = b.cls == CLASS_BACK and (tile_length(b.corners) < self.small_tile_px
                                               or not shows_divider(img.bgr, b.corners))
            (down if is_back else up).append(b)
        if down and up and self.halves is not None:
            faces = self._faces_among_backs(img, down, up, halves)
            up += faces
            down = [b for b in down if not any(b is f for f in faces)]
        crops = [rectify_tile(img.bgr, b.corners)[0] for b in up]
        bars = [find_bar(c) for c in crops]
        small = [i for i, b in enumerate(up) if tile_length(b.corners) < self.small_tile_px] \
            if self.halves is not None else []
        # a small tile's values come from the half reader; its dots are counted only when no
        # divider shows, to tell a back from a face (see `classified_reading`)
        counted = sorted(set(range(len(up))) - {i for i in small if bars[i] is not None})
        # a large tile's faint end may hold dots under the threshold that its pattern shows (a box
        # that looks blank too: its faint divider may yet make it a face, see `looks_double_blank`)
        large = sorted(set(range(len(up))) - set(small)) if self.halves is not None else []
        # the half reader runs beside the dot detector (see `_beside`)
        pending = self._beside(halves.probabilities, [crops[i] for i in small + large]) if small or large else None
        readings: list = [None] * len(up)
        for i, r in zip(counted, self.pips.read_crops([crops[i] for i in counted], [bars[i] for i in counted])):
            readings[i] = r
        large_probs: dict = {}
        if pending is not None:
            probs = pending.result()
            for i, p in zip(small, probs):
                readings[i] = classified_reading(readings[i], p, set_max, bars[i])
            large_probs = dict(zip(large, probs[len(small):]))
            for i in large:
                readings[i] = bar_checked(readings[i], large_probs[i], set_max)
                readings[i] = split_checked(readings[i], large_probs[i], set_max)
                readings[i] = pattern_checked(readings[i], large_probs[i], set_max, self.pips.conf)
            # ends still disputed get further looks, each on another view of the crop, until the
            # dots of the classifier's value are found or the looks run out (see `FURTHER_LOOKS`)
            disputed = [i for i in large if disputed_ends(readings[i], large_probs[i], set_max)]
            for look in FURTHER_LOOKS:
                if not disputed:
                    break
                views = self.pips.read_crops([look(crops[i]) for i in disputed], [bars[i] for i in disputed])
                for i, view in zip(disputed, views):
                    readings[i] = second_look_checked(readings[i], view, large_probs[i], set_max, self.pips.conf)
                disputed = [i for i in disputed if disputed_ends(readings[i], large_probs[i], set_max)]
            # a dense end still disputed may have dots no look can part (see `halfreader.dense_checked`)
            # and an end of a double may have lost its dots under a glare (see `halfreader.double_checked`;
            # not where the picture's edge cuts the tile: the dots missing may lie beyond it)
            for i in disputed:
                readings[i] = dense_checked(readings[i], large_probs[i], set_max)
                if not cut_by_edge(up[i].corners, img.bgr.shape[1], img.bgr.shape[0]):
                    readings[i] = double_checked(readings[i], large_probs[i], set_max)
            # ends read blank that the half reader is not sure are blank: pips of one pale colour
            # both readers may miss (see `halfreader.pale_ends_checked`)
            doubtful = [i for i in large if blank_ends_in_doubt(readings[i], large_probs[i])]
            if doubtful:
                views = [colour_distance_view(crops[i]) for i in doubtful]
                view_probs = self._beside(halves.probabilities, views)
                view_dots = self.pips.read_crops(views, [bars[i] for i in doubtful])
                for i, dots, probs in zip(doubtful, view_dots, view_probs.result()):
                    readings[i] = pale_ends_checked(readings[i], large_probs[i], dots, probs, set_max)
        # one value, one pip colour: ends read alike but coloured apart are not all that value
        checked, _, sure_colours = colour_checked(readings, crops, set_max, colour_anchors)
        tiles = [TileDetection(i, b.corners * img.scale, b.score) for i, b in enumerate(up)]
        for t, r, c in zip(tiles, readings, checked):
            if c.pips != r.pips:
                t.notes.append(f"{COLOUR_NOTE}: read {r.pips[0]}-{r.pips[1]}, but another tile's end of that value "
                               f"has pips of another colour")
        readings = checked
        for t, r in zip(tiles, readings):
            t.pip_points = [(x, y, c, h) for x, y, c, h in r.points]
        tiles, readings = drop_duplicate_boxes(tiles, readings)
        tiles, readings = drop_overlapping_boxes(tiles, readings)
        tiles, readings = drop_boxes_sharing_dots(tiles, readings)
        # a box of a dot or none, streaked all over, is a patch of the table, neither face nor back
        # (see `MOTTLED_SHARE`)
        table = {i for i, r in enumerate(readings) if sum(r.pips) <= 1 and looks_mottled(
            crops[tiles[i].id], r.points, inside_picture(img.bgr.shape, up[tiles[i].id].corners))}
        if table:
            tiles = [t for i, t in enumerate(tiles) if i not in table]
            readings = [r for i, r in enumerate(readings) if i not in table]
        cut = [cut_by_edge(t.corners, img.width, img.height) for t in tiles]
        blank = [i for i, r in enumerate(readings) if looks_face_down(r) and not cut[i]
                 and not looks_double_blank(r, crops[tiles[i].id], large_probs.get(tiles[i].id))
                 and not looks_a_face_by_pattern(r, crops[tiles[i].id], self._count_dots)]
        for t, c in zip(tiles, cut):
            if c:
                t.notes.append("cut off by the edge of the picture: part of it may not be seen")
        backs = [tiles[i] for i in blank]
        tiles = [t for i, t in enumerate(tiles) if i not in blank]
        readings = [r for i, r in enumerate(readings) if i not in blank]
        crop_of = [t.id for t in tiles]
        for i, t in enumerate(tiles):
            t.id = i
        smax = set_max or infer_set_max([max(r.pips) for r in readings if r.confidence >= SURE_READING])
        highest = max((max(r.pips) for r in readings), default=0)
        warnings = apply_rules(tiles, readings, smax, self.pips.conf)
        for t, r, k in zip(tiles, readings, crop_of):
            t.second_readings = second_readings(t.pips, r, smax, self.pips.conf)
            if k in large_probs:
                t.second_readings = backed_costs(t.second_readings, t.pips, large_probs[k])
        n_cut = sum(1 for t in tiles if any(n.startswith("cut off") for n in t.notes))
        if n_cut:
            warnings.append(f"{n_cut} tile{'s' if n_cut > 1 else ''} cut off by the edge of the picture: "
                            "the total may miss dots outside it")
        advice = small_tiles_warning([tile_length(t.corners) for t in tiles], smax)
        if advice:
            warnings.append(advice)
        faces_down = [TileDetection(0, b.corners * img.scale, b.score, face_down=True) for b in down]
        for t in backs:
            t.face_down = True
            t.notes.append("boxed as face up, but it shows neither a dot nor a divider: a tile's back")
        faces_down += backs
        for i, t in enumerate(faces_down):
            t.id = len(tiles) + i
        return Recognition(img.source, img.width, img.height, tiles, faces_down, smax,
                           time.perf_counter() - t0, warnings, sure_colours, highest_read=highest)

    def recognize(self, src: str | Path | bytes, set_max: int | None = None, name: str | None = None,
                  level: bool = True) -> Recognition:
        """A photo's tiles, as `chickenfoot score` reads them. `level`: where the boxes found show
        the photo was taken at an angle, read it again levelled (see `vision.perspective`)."""
        return self.recognize_loaded(load_image(src, name=name), set_max, level=level)

    def levelled(self, img: LoadedImage, rec: Recognition, set_max: int | None = None) -> Recognition:
        """`rec` read again on the picture levelled (`vision.perspective.find_level_view`), its
        corners mapped back to the photo's pixels, where the boxes show the photo was taken at an
        angle. Of the levelled readings, the one with the most faces is kept, the later of equals
        (a second round may go astray where the first read well: a real copy seen from 45 degrees
        lost a tile in it), unless it reads more tiles twice than the photo as it is (see
        `LEVEL_MORE_TWICE`); where every levelled reading does, `rec` is kept. A photo of too
        few faces showing a divider to show its angle is read again in a guessed steep view
        (`GUESS_BELOW_FACES`), kept only where the pips read in it are squashed in the photo as
        from 50 degrees or more (`perspective.pips_show_a_tilt`), and levelled from there."""
        readings: list[tuple[Recognition, LevelView | None]] = [(rec, None)]
        seconds, view, again = rec.seconds, None, rec
        rounds, guessed = LEVEL_ROUNDS, False
        while rounds > 0:
            rounds -= 1
            boxes = [t.corners / img.scale for t in again.tiles + _backs_of_a_size(again)]
            pips = pip_shapes(img.bgr, boxes[:len(again.tiles)], [[p[:2] for p in t.pip_points] for t in again.tiles])
            if guessed and not pips_show_a_tilt(pips):
                readings.pop()  # the pips read in the guessed view do not bear it out
                break
            guessed = False
            found = find_level_view(boxes, img.bgr.shape[1], img.bgr.shape[0], pips)
            if found is None and view is None and not looks_from_above(pips) \
                    and _faces_with_a_divider(img, rec.tiles) < GUESS_BELOW_FACES:
                # too few faces with a divider to show the angle: guess it, and let its pips judge it
                found, guessed, rounds = guessed_steep_view(img.bgr.shape[1], img.bgr.shape[0]), True, rounds + 1
            if found is None or (view is not None and found.near(view)):
                break
            view = found
            flat = LoadedImage(view.warp(img.bgr), 1.0, view.size[0], view.size[1], img.source)
            again = self._read(flat, set_max)
            seconds += again.seconds
            found_here = again.tiles + again.face_down
            if found_here:
                back = view.to_picture(np.stack([t.corners for t in found_here])) * img.scale
                for t, c in zip(found_here, back):
                    t.corners = c
            again.width, again.height = img.width, img.height
            readings.append((again, view))
        # a levelled reading that reads more tiles twice than the photo as it is did misreads them
        # (see `LEVEL_MORE_TWICE`): the view it was read in is not the table's
        plain = read_twice(rec.tiles)
        trusted = [rv for rv in readings[1:] if read_twice(rv[0].tiles) <= plain + LEVEL_MORE_TWICE]
        best, best_view = max(reversed(trusted), key=lambda rv: len(rv[0].tiles)) if trusted else readings[0]
        best.seconds = seconds
        if best_view is not None:
            best.warnings.append(f"taken at an angle (about {best_view.degrees:.0f} degrees off straight down): "
                                 "read on a levelled view of the photo")
        return best


def backed_costs(seconds: list[tuple[tuple[int, int], float]], pips: tuple[int, int], probs
                 ) -> list[tuple[tuple[int, int], float]]:
    """A large tile's second readings, each made dearer by how much more the half reader believes
    the value read than the other: a dot both readers see is not dropped to make a play legal.

    Why: the tracker takes a second reading that makes a play legal when it costs less than
    `SECOND_READING_COST`, and a large tile's reading cost only its dot scores. In a rendered round,
    a planted 2-1 on a 0 had its 1's dot scored 0.65 (cost 0.15 to drop) and was taken
    as a legal 2-0, though the half reader read that end 1. Only the tracker reads these costs."""
    out = []
    for alt, cost in seconds:
        end = 0 if alt[0] != pips[0] else 1
        if max(alt[end], pips[end]) < len(probs[end]):
            cost += max(0.0, float(probs[end][pips[end]] - probs[end][alt[end]]))
        out.append((alt, round(float(cost), 3)))
    return sorted(out, key=lambda a: a[1])


@lru_cache(maxsize=4)
def get_recognizer(model_dir: str | None = None) -> Recognizer:
    """One loaded model per process: sessions take ~100 ms to build."""
    return Recognizer(model_dir)


def tile_identities(rec: Recognition) -> list[tuple[int, int]]:
    return sorted((min(t.pips), max(t.pips)) for t in rec.tiles if t.pips is not None)


__all__ = ["Recognizer", "get_recognizer", "tile_identities"]
