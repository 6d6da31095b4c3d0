"""Read the pips on each end of a tile by detecting the dots on its straightened crop.

Counting detections reads every value 0-18 and any pip colour with one class, and a
miscount is off by one dot rather than confused with an unrelated value. Each half's
count comes with a confidence: the margin between the weakest pip counted and the
strongest one left out, which the rule-based correction uses to pick second readings.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .onnx_yolo import Letterbox, input_size, letterbox, make_session, nms_axis, to_blob
from .rectify import CROP_L, CROP_W, PAD, rectify_tile


PACK_KEY = "chickenfoot_crops_per_input"  # model metadata: "2" when trained on packed crops
ROW_TOLERANCE = 0.025  # of the crop's length: dots this close in y are in one row
BAR_CONTRAST = 28
"""How far (largest LAB channel difference) from the face's colour a pixel must be to count as
divider when reading dots: low enough for a thin grey bar, high enough that a pip's soft edge
or a shadow across the face is not a bar."""


@dataclass
class HalfReading:
    count: int
    scores: list[float]  # scores of all candidate pips in this half, best first
    confidence: float

    def alternatives(self, threshold: float) -> list[tuple[int, float]]:
        """Other plausible counts (count, cost): adding the next dot or dropping the weakest."""
        alts = []
        n = self.count
        if n < len(self.scores):
            alts.append((n + 1, threshold - self.scores[n]))
        if n > 0:
            alts.append((n - 1, self.scores[n - 1] - threshold))
        return alts


@dataclass
class TileReading:
    halves: tuple[HalfReading, HalfReading]
    points: list[tuple[float, float, float, int]]  # crop-space x, y, score, half
    bar: tuple[float, float] | None = None  # the divider's (row, thickness) in the crop, if seen
    without_bar: "TileReading | None" = None
    """Where one or two dots lay on the divider found: the reading that counts them and splits
    the halves at the widest gap instead (the "divider" may have been a pair of big pips)."""

    @property
    def pips(self) -> tuple[int, int]:
        return self.halves[0].count, self.halves[1].count

    @property
    def confidence(self) -> float:
        return min(h.confidence for h in self.halves)


class PipReader:
    def __init__(self, path: str | Path, conf: float = 0.5, iou: float = 0.45, threads: int | None = None,
                 max_pips: int = 18, pack: bool | None = None):
        self.session = make_session(path, threads)
        inp = self.session.get_inputs()[0]
        self.input_name = inp.name
        self.size = input_size(self.session)
        self.dynamic_batch = not isinstance(inp.shape[0], int)
        self.conf = conf
        self.iou = iou
        self.max_pips = max_pips
        meta = self.session.get_modelmeta().custom_metadata_map
        self.pack = meta.get(PACK_KEY) == "2" if pack is None else pack

    def read_crops(self, crops: list[np.ndarray], bars: list | None = None) -> list[TileReading]:
        """`bars`: each crop's `find_bar`, where the caller has looked for it already."""
        if not crops:
            return []
        images, frames = self._layout(crops)
        outs = []
        if self.dynamic_batch:
            for i in range(0, len(images), 32):
                outs.extend(self.session.run(None, {self.input_name: to_blob(images[i:i + 32])})[0])
        else:
            for im in images:
                outs.append(self.session.run(None, {self.input_name: to_blob([im])})[0][0])
        bars = bars if bars is not None else [find_bar(c) for c in crops]
        return [self._decode(outs[k], lb, bar) for (k, lb), bar in zip(frames, bars)]

    def _layout(self, crops: list[np.ndarray]) -> tuple[list[np.ndarray], list[tuple[int, Letterbox]]]:
        """Model inputs, and for each crop (input index, crop-to-input mapping).

        A straightened crop is half as wide as the square input, so letterboxing one crop per
        input spends half the pixels on grey; two crops side by side halve the pip reader's
        cost. Dots of the neighbouring crop fall outside this crop's face and are dropped by
        `_decode`, just as neighbours' dots in the crop's own margin are.
        """
        tw, th = self.size
        if not (self.pack and all(c.shape[:2] == (CROP_L, CROP_W) for c in crops) and 2 * CROP_W <= tw
                and CROP_L <= th):
            boxed = [letterbox(c, self.size) for c in crops]
            return [b[0] for b in boxed], [(i, b[1]) for i, b in enumerate(boxed)]
        images, frames = [], []
        top = (th - CROP_L) // 2
        for i in range(0, len(crops), 2):
            pair = crops[i:i + 2]
            canvas = np.full((th, tw, 3), 114, np.uint8)
            for x, c in zip(pack_offsets(len(pair), tw), pair):
                canvas[top:top + CROP_L, x:x + CROP_W] = c
                frames.append((len(images), Letterbox(1.0, x, top)))
            images.append(canvas)
        return images, frames

    def _decode(self, out: np.ndarray, lb, bar: tuple[float, float] | None = None) -> TileReading:
        score = out[4]
        low = self.conf * 0.4  # keep weaker candidates to estimate the count's margin
        sel = score >= low
        xywh = out[:4, sel].T
        s = score[sel]
        if len(s):
            xyxy = np.concatenate([xywh[:, :2] - xywh[:, 2:] / 2, xywh[:, :2] + xywh[:, 2:] / 2], 1)
            keep = nms_axis(xyxy, s, self.iou)
            xy = lb.to_source(xywh[keep, :2])
            s = s[keep]
        else:
            xy = np.zeros((0, 2), np.float32)
        # Only dots on the face count: the crop's margin shows neighbours' pips. Real pips sit
        # well inside the face (at least ~8 % of its length from an end), so a margin of 3 %
        # inside the outline tolerates outline error without admitting neighbours.
        mx, my = (PAD + 0.03) * CROP_W, (PAD + 0.03) * CROP_L
        across = (xy[:, 0] > mx) & (xy[:, 0] < CROP_W - mx)
        inside = across & (xy[:, 1] > my) & (xy[:, 1] < CROP_L - my)
        # An outline short at an end pushes that end's outer row of pips into the margin. A dot
        # there in line with a counted dot of the face (same row, within a pip's radius) is the
        # rest of that row: a neighbour beyond the end lies a tile's gap further out.
        strong = xy[inside & (s >= self.conf)]
        if len(strong):
            edge = across & ~inside & (xy[:, 1] > 0.02 * CROP_L) & (xy[:, 1] < 0.98 * CROP_L)
            for k in np.flatnonzero(edge):
                if np.any(np.abs(strong[:, 1] - xy[k, 1]) < ROW_TOLERANCE * CROP_L):
                    inside[k] = True
        xy, s = xy[inside], s[inside]
        widest_gap = _split_row(xy[s >= self.conf, 1])
        without_bar = None
        if bar is not None:
            centre, thick = bar
            off_bar = np.abs(xy[:, 1] - centre) > thick / 2 + 0.02 * CROP_L
            on_bar = int(((~off_bar) & (s >= self.conf)).sum())
            if on_bar >= PIP_ROW_ON_BAR:
                # a row of big pips touching each other looks like a bar (a face whose divider
                # is faint); the bar's rounded ends look like two dots at most
                bar = None
            elif on_bar:
                # ...but two dots on it may also be a pair of big pips (the lower pair of a 5)
                # taken for a faint divider: the reading that counts them is kept beside, for
                # the half reader to choose (`halfreader.bar_checked`)
                without_bar = self._count(xy, s, widest_gap, None)
        if bar is not None:
            # the bar's rounded ends look like dots; nothing real lies on the bar
            reading = self._count(xy[off_bar], s[off_bar], centre, bar)
        else:
            reading = self._count(xy, s, widest_gap, None)
        reading.without_bar = without_bar
        return reading

    def _count(self, xy: np.ndarray, s: np.ndarray, split: float, bar: tuple[float, float] | None) -> TileReading:
        """The reading of dots at `xy` (scores `s`) split into halves at row `split`."""
        half = (xy[:, 1] >= split).astype(int)
        halves = []
        counted: list[int] = []
        for hi in (0, 1):
            idx = np.flatnonzero(half == hi)
            order = idx[np.argsort(-s[idx], kind="stable")]
            sc = s[order]
            n = min(int((sc >= self.conf).sum()), self.max_pips)
            n, by_parity = parity_count(xy[order], sc, n, self.conf)
            weakest_in = sc[n - 1] if n else 1.0
            strongest_out = sc[n] if n < len(sc) else 0.0
            conf = float(np.clip(min(weakest_in - self.conf, self.conf - strongest_out) / self.conf + 0.5, 0, 1))
            halves.append(HalfReading(n, sc.tolist(), min(conf, 0.5) if by_parity else conf))
            counted.extend(order[:n].tolist())
        pts = [(float(xy[k, 0]), float(xy[k, 1]), float(s[k]), int(half[k])) for k in sorted(counted)]
        return TileReading((halves[0], halves[1]), pts, bar)

    def read(self, image: np.ndarray, corners_list: list[np.ndarray]) -> list[TileReading]:
        crops = [rectify_tile(image, c)[0] for c in corners_list]
        return self.read_crops(crops)


PIP_ROW_ON_BAR = 3
"""Confident dots on a "divider" that make it a row of pips instead."""
PARITY_MAX = 12  # values up to 12 follow the parity rule on every standard face; 13-18 do not
PARITY_ADD_COST = 0.3  # how far under the threshold a dot may be to be added for parity
PARITY_DROP_COST = 0.1  # how far over it a dot may be to be dropped for parity


def centre_taken(xy: np.ndarray) -> bool:
    """Whether one of these dots sits at the centre of the pattern they make. Every standard
    face is symmetric about its half's centre, so the dots' centroid is that centre even when
    the outline is off; "at" means within a third of the pattern's dot spacing."""
    if len(xy) < 2:
        return len(xy) == 1
    c = xy.mean(0)
    d = np.linalg.norm(xy[:, None] - xy[None], axis=2)
    np.fill_diagonal(d, np.inf)
    spacing = float(np.median(d.min(1)))
    return bool(np.linalg.norm(xy - c, axis=1).min() < spacing / 3)


def parity_count(xy: np.ndarray, scores: np.ndarray, n: int, conf: float) -> tuple[int, bool]:
    """The count for one half, checked against the faces' parity rule: values 0-12 have a dot
    at the centre exactly when they are odd (a 7 is a 6 plus the centre; a 10 leaves it empty).
    A count that breaks it missed a dot or took one too many; the cheaper of adding the next
    candidate dot or dropping the weakest fixes it when that dot was near the threshold.
    `xy`, `scores`: candidate dots best first. Returns (count, whether parity changed it)."""
    if n < 2 or n > PARITY_MAX or (n % 2 == 1) == centre_taken(xy[:n]):
        return n, False
    options = []
    if n + 1 <= PARITY_MAX and n < len(scores) and conf - scores[n] <= PARITY_ADD_COST \
            and ((n + 1) % 2 == 1) == centre_taken(xy[:n + 1]):
        options.append((conf - float(scores[n]), n + 1))
    if scores[n - 1] - conf <= PARITY_DROP_COST and ((n - 1) % 2 == 1) == centre_taken(xy[:n - 1]):
        options.append((float(scores[n - 1]) - conf, n - 1))
    if not options:
        return n, False
    return min(options)[1], True


SECOND_LOOK_GAIN = 3.0
"""Grey levels per unit of LAB distance from the face's colour in `colour_distance_view`: at 3 a
pale pink pip on a pink-tinted face comes out mid grey, while dark pips stay distinct dots (at 4
and more the nine dots of a dark 9 began to merge)."""


def colour_distance_view(crop: np.ndarray, gain: float = SECOND_LOOK_GAIN) -> np.ndarray:
    """The crop redrawn as dark-on-white by each pixel's colour distance from the face's colour:
    every pip colour, and light pips on a dark face, become the dark dots on white that the
    detector reads best.

    Why: the detector misses some clearly visible colours. In a rendered webcam round, every 2
    (salmon) and 6 (pink) of a colour-coded double-9 set on a pink-tinted table scored under
    0.4 and read 0, so the round's plays with them were lost or flagged wrongly; on this view
    they read right. Used only as a second look where the half reader disputes the count."""
    import cv2

    lab = cv2.cvtColor(crop, cv2.COLOR_BGR2LAB).astype(np.float32)
    return _dark_on_white(lab, np.median(_face_middle(lab).reshape(-1, 3), axis=0), gain)


def _face_middle(a: np.ndarray) -> np.ndarray:
    """The middle of a straightened crop, clear of its margin and the tile's edge: the face."""
    h, w = a.shape[:2]
    return a[h // 6:h - h // 6, w // 5:w - w // 5]


def _dark_on_white(lab: np.ndarray, face: np.ndarray, gain: float) -> np.ndarray:
    """A BGR view, white where `lab` is the face's colour (`face`: one Lab colour, or one per
    pixel) and darker by `gain` per Lab unit away from it."""
    import cv2

    grey = np.clip(255.0 - gain * np.sqrt(((lab - face) ** 2).sum(2)), 0, 255).astype(np.uint8)
    return cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR)


LOCAL_FACE_PX = 31
"""Width of the median filter that takes the pips out of a straightened crop (80 px wide, pips
~15 px across) to leave the face's own light, glare and shade included (`evenly_lit_view`)."""


def evenly_lit_view(crop: np.ndarray, gain: float = SECOND_LOOK_GAIN) -> np.ndarray:
    """`colour_distance_view` against the face's colour where each pixel lies, not one colour for
    the whole face: pips under a glare or a shadow stand out from the face around them.

    Why: on copies of the real photos with soft glares (`scripts/stress_real.py`, glare) three
    purple pips of a 9, lifted nearly to the face's white, fell under the dot detector's threshold
    on the crop and on every other look, which measure them against the face's unlit median; the
    5-9 was read 5-6, though the half reader read the 9 at 0.94. On this view they read 9."""
    import cv2

    lab = cv2.cvtColor(crop, cv2.COLOR_BGR2LAB).astype(np.float32)
    face = cv2.cvtColor(cv2.medianBlur(crop, LOCAL_FACE_PX), cv2.COLOR_BGR2LAB).astype(np.float32)
    return _dark_on_white(lab, face, gain)


SHADE_KERNEL_PX = 21
"""Width of the closing that takes the pips out of a straightened crop (80 px wide, pips ~15 px
across) in `shade_flattened_view`: wider than a pip, so it fills each one, and a closing keeps the
step of a shadow's sharp edge where a median of that width rounds it off."""


DARK_FACE_GREY = 75
"""Median grey under which a face is a dark one (a black tile's ~20-60), not a white face in shade
or dim light (~90-130)."""


def shade_flattened_view(crop: np.ndarray) -> np.ndarray:
    """The crop as it is, each pixel divided by the light falling on the face there: a shadow's
    sharp edge across a face is taken out and the pips keep their own colours.

    Why: on copies of the real photos with a cast shadow's sharp band (`scripts/stress_real.py`,
    castshadow) two pips of a 7 that the band's edge crossed were missed by the dot detector on
    the crop and on every other look, though plain to the eye and read 7 by the half reader (sure at
    0.86); the 4-7 read 4-5. The colour-distance looks measure pips against one face colour or a
    median of the face around them, and the median rounds the edge off into a streak through the
    pips. On a dark face (its light pips taken out by an opening instead) the same holds."""
    import cv2

    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    dark_face = float(np.median(_face_middle(grey))) < DARK_FACE_GREY
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (SHADE_KERNEL_PX, SHADE_KERNEL_PX))
    face = cv2.morphologyEx(grey, cv2.MORPH_OPEN if dark_face else cv2.MORPH_CLOSE, kernel)
    light = cv2.GaussianBlur(face.astype(np.float32), (0, 0), 1.0)
    floor = 4.0 if dark_face else 8.0
    out = crop.astype(np.float32) * (float(np.percentile(light, 90)) / np.maximum(light, floor))[..., None]
    return np.clip(out, 0, 255).astype(np.uint8)


FAINT_PIPS_GAIN = 6.0


def faint_pips_view(crop: np.ndarray) -> np.ndarray:
    """`colour_distance_view` at twice the gain: pale pips on an overexposed face (a light grey 12
    lit nearly to white, still plain to the eye) lie a few LAB units from the face, too close for
    the first colour look. Merged dots of dark pips at this gain (they read 7 or 8 for a 9) only
    fail to match the classifier's value, so they change nothing."""
    return colour_distance_view(crop, FAINT_PIPS_GAIN)


FAINTEST_PIPS_GAIN = 16.0


def faintest_pips_view(crop: np.ndarray) -> np.ndarray:
    """`evenly_lit_view` at five times the first colour look's gain: pale grey 12s on a face
    overexposed and then recompressed lie barely off the face's white, a ghost of their grid.

    Why: on copies of the real photos moved onto white paper, overexposed, turned 135 degrees and
    recompressed (`scripts/restage_real.py`, then `scripts/stress_real.py` rot135+bright+jpeg),
    a 6-12 read 0-6 and the 12s of IMG-20210324-WA0001 read 0-6: no other look found more than 8
    of a 12's dots, though the half reader read the 12s at 0.84-0.96. At this gain they read 12.
    Merged or invented dots at this gain only fail to match the half reader's value, so they
    change nothing."""
    return evenly_lit_view(crop, FAINTEST_PIPS_GAIN)


SHARPEN_SIGMA = 3.0
SHARPEN_AMOUNT = 2.0
"""Unsharp mask of `sharpened_view`, in pixels of the straightened crop (160 px long) and as a
multiple of the detail it restores."""


def sharpened_view(crop: np.ndarray, sigma: float = SHARPEN_SIGMA, amount: float = SHARPEN_AMOUNT) -> np.ndarray:
    """The crop with its blur partly undone (an unsharp mask): dots blurred into the face become
    dots again.

    Why: the dot detector learnt from crops little blurred, and a photo a little out of focus
    (a Gaussian of 2 % of the tile's length: the pips still plain to a person) dropped most of a
    pale 12's dots and every dot of some 7s under its threshold, while the half reader, which
    reads ends shrunk to 32 px, still read them right. Used only as a further look where the half
    reader disputes the count (`recognize`), as the colour view is."""
    import cv2

    f = crop.astype(np.float32)
    return np.clip(f + amount * (f - cv2.GaussianBlur(f, (0, 0), sigma)), 0, 255).astype(np.uint8)


def pack_offsets(n: int, width: int) -> list[int]:
    """x of each of `n` (1 or 2) crops packed side by side, centred in an input `width` wide;
    training images are packed by the same rule (`lab.training.pack_pips`)."""
    left = (width - n * CROP_W) // 2
    return [left + j * CROP_W for j in range(n)]


def _split_row(ys: np.ndarray, band: tuple[float, float] = (0.36, 0.64)) -> float:
    """Where the divider is: the widest gap between dots near the middle of the crop.

    Detector outlines are a little off along the tile (a side wall or a shadow included),
    so the crop's exact middle can put dots next to the bar in the wrong half; the bar
    always sits in the widest dot-free gap near the middle.
    """
    mid = CROP_L / 2
    lo, hi = band[0] * CROP_L, band[1] * CROP_L
    inner = np.sort(ys[(ys > lo) & (ys < hi)])
    if inner.size == 0:
        return mid
    edges = np.concatenate([[lo], inner, [hi]])
    gaps = np.diff(edges)
    k = int(np.argmax(gaps))
    return float((edges[k] + edges[k + 1]) / 2)


def channel_medians(pixels: np.ndarray) -> np.ndarray:
    """Each channel's median over an H×W×C (or N×C) uint8 array, as `np.median` gives it (the
    mean of the two middle values of an even count), from each channel's histogram: several
    times cheaper than sorting, and `find_bar` runs on every crop."""
    px = pixels.reshape(-1, pixels.shape[-1])
    n = len(px)
    out = np.empty(px.shape[1])
    for k in range(px.shape[1]):
        below = np.cumsum(np.bincount(px[:, k], minlength=256))
        lo, hi = np.searchsorted(below, [(n - 1) // 2 + 1, n // 2 + 1])
        out[k] = (lo + hi) / 2
    return out


def find_bar(crop: np.ndarray, band: tuple[float, float] = (0.36, 0.64),
             contrast: int = BAR_CONTRAST) -> tuple[float, float] | None:
    """(row, thickness) of the divider bar in a straightened crop, or None if it is not visible.

    The bar is the one thing on a face that runs most of the way across it in an unbroken
    line; pips break every row they sit on into short runs. Rows near the middle whose
    longest run of "not face-coloured" pixels spans over 45 % of the tile's width are bar.
    A spinner stud (often nearly face-coloured) can interrupt the bar at the centre, so a run
    may bridge the centre fifth, but only if it reaches well beyond it on both sides: a row
    through two pips next to the centre (the lower row of a 5) reaches just past it, and
    taking that row for the bar drops both pips as "on the bar".
    """
    import cv2

    h, w = crop.shape[:2]
    g = cv2.cvtColor(crop, cv2.COLOR_BGR2LAB)
    x0, x1 = int(w * 0.12), int(w * 0.88)
    y0, y1 = int(h * band[0]), int(h * band[1])
    face = channel_medians(g[int(h * 0.1):int(h * 0.9):2, x0:x1:2])  # every other pixel: same median, 4x cheaper
    # a pixel differs from the face where any channel is over `contrast` from it: for whole
    # levels, outside [ceil(face - contrast), floor(face + contrast)] (one OpenCV pass)
    lo = tuple(float(v) for v in np.clip(np.ceil(face - contrast), 0, 255))
    hi = tuple(float(v) for v in np.clip(np.floor(face + contrast), 0, 255))
    diff = cv2.inRange(np.ascontiguousarray(g[y0:y1, x0:x1]), lo, hi) == 0
    c0, c1 = int(w * 0.4) - x0, int(w * 0.6) - x0
    bridged = diff.copy()
    bridged[:, c0:c1] = True
    need, reach = 0.45 * w, 0.2 * w
    a, b = _runs_through(bridged, (c0 + c1) // 2)
    is_bar = (_longest_runs(diff) >= need) | ((b - a >= need) & (np.minimum(c0 - a, b - c1) >= reach))
    rows_arr = y0 + np.flatnonzero(is_bar)
    if not rows_arr.size:
        return None
    # of the blocks of bar rows, the one nearest the middle (the outline is off by a few
    # per cent at most); ties go to the thicker
    breaks = np.flatnonzero(np.diff(rows_arr) > 1)
    blocks = np.split(rows_arr, breaks + 1)
    block = min(blocks, key=lambda b: (abs(b.mean() - h / 2) - 0.5 * len(b)))
    if len(block) > 0.12 * h:  # a "bar" thicker than this is a shadow or the tile edge
        return None
    return float(block.mean()), float(len(block))


def _longest_runs(mask: np.ndarray) -> np.ndarray:
    """Length of the longest run of True in each row of a 2-D boolean array."""
    r, c = mask.shape
    padded = np.zeros((r, c + 2), np.int8)
    padded[:, 1:-1] = mask
    d = np.diff(padded, axis=1)
    starts, ends = np.nonzero(d == 1), np.nonzero(d == -1)
    out = np.zeros(r, np.int64)
    np.maximum.at(out, starts[0], ends[1] - starts[1])
    return out


def _runs_through(mask: np.ndarray, x: int) -> tuple[np.ndarray, np.ndarray]:
    """Per row, [start, end) of the run of True containing column x (start == end == x where
    mask[row, x] is False)."""
    left = ~mask[:, :x + 1][:, ::-1]
    right = ~mask[:, x:]
    k_left = np.where(left.any(1), left.argmax(1), left.shape[1])
    k_right = np.where(right.any(1), right.argmax(1), right.shape[1])
    start = np.where(mask[:, x], x - k_left + 1, x)
    end = np.where(mask[:, x], x + k_right, x)
    return start, end
