"""Level a photo taken at an angle, so its tiles are read as if seen from straight above.

A phone held by someone seated at the table sees the tiles foreshortened across the tilt and
smaller towards the far edge. The detector learnt tiles seen nearly from above: on copies of the
real photos seen from 55-65 degrees its boxes come out a tile's end short and tiles are missed
(`scripts/stress_real.py`). Training for such views on the CPU pulled the detector off what it read
well (models/README.md, the detector's card), so the view is undone instead, from what every photo
of one set shares: each face is twice as long as wide, all are the same size, and every pip is
round. The tilt that makes the boxes and pips found so is searched for, the picture is warped by
it, and the tiles are read again there.

The search runs over a symmetric keystone in any direction: in coordinates centred on the picture
and turned so the tilt runs along v, (u, v) -> (u, a v) / (1 + p v), where `a` undoes the
shortening across the tilt and `p` the shrinking towards the far edge (a camera turned about an
axis through its centre maps the table so, up to scale).
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

ASPECT = 2.0
"""A domino's length over its width (sets measured: 1.95-2.1; boxes on the top-down development
photos: 1.95-2.10)."""
LEVEL_ASPECTS = (1.8, 2.3)
"""Boxes whose length over width all lie in this range are taken as seen from above and the view
is left as it is (the development photos, all taken from above: 1.95-2.10 on every box)."""
LEVEL_OFF_SHARE = 0.5
STRETCHES = np.array([1.0, 1.12, 1.25, 1.4, 1.6, 1.8, 2.05, 2.35, 2.7])
"""Candidate `a`: 1/cos of 0, 27, 37, 44, 51, 56, 61, 65 and 68 degrees off straight down."""
KEYSTONES = np.linspace(-2.4, 2.4, 13)
TURNS = np.radians(np.arange(0, 180, 15.0))
MIN_STRETCH = 1.12
"""The levelling is applied only where the view found lengthens the tiles across the tilt by more
than this (about 27 degrees off straight down): below, the detector reads tiles as they are."""
PRIOR = 0.002
"""Cost per unit of log(a)^2 + p^2: of two views that explain the boxes about as well, the
one nearer straight down is taken (a lone tile cannot tell which way it was shortened)."""
MAX_PIXELS_GAIN = 1.6
"""The levelled picture holds at most this many times the pixels of the one it came from: the
stretched direction needs more rows, and the far edge is enlarged, but pixels added by
interpolation carry no detail."""


@dataclass
class LevelView:
    """How a picture was levelled: `homography` maps its pixels to the levelled picture's."""

    homography: np.ndarray  # 3x3, picture -> levelled
    size: tuple[int, int]  # levelled picture (w, h)
    stretch: float  # a: how much the middle of the picture is lengthened across the tilt
    keystone: float
    turn: float  # radians: the direction of the tilt in the picture
    degrees: float = 0.0
    """The angle off straight down at the tiles: arccos of how much shorter than wide the view
    makes a round dot there."""

    def near(self, other: "LevelView") -> bool:
        """Whether two views differ too little for a second reading to be worth it."""
        turn = abs((self.turn - other.turn + np.pi / 2) % np.pi - np.pi / 2)
        return abs(np.log(self.stretch / other.stretch)) < 0.1 and abs(self.keystone - other.keystone) < 0.25 \
            and turn < np.radians(10)

    def to_picture(self, pts: np.ndarray) -> np.ndarray:
        """Levelled-picture points (n×2) back to the picture's pixels."""
        return _apply(np.linalg.inv(self.homography), pts)

    def warp(self, image: np.ndarray) -> np.ndarray:
        """The levelled picture; outside the picture, its edges' median colour (repeating the edge
        would smear a tile cut by it into a long bright bar)."""
        edge = np.concatenate([image[0], image[-1], image[:, 0], image[:, -1]])
        fill = tuple(float(v) for v in np.median(edge.reshape(len(edge), -1), axis=0))
        return cv2.warpPerspective(image, self.homography, self.size, flags=cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_CONSTANT, borderValue=fill)


def _apply(hm: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.asarray(pts, np.float64).reshape(-1, 2)
    q = np.c_[p, np.ones(len(p))] @ hm.T
    return (q[:, :2] / q[:, 2:3]).reshape(np.shape(pts)).astype(np.float32)


def _off_shape(boxes: list[np.ndarray]) -> int:
    """How many boxes (4×2 corners, label order) are not a domino's shape as seen from above."""
    length, width = _sides(np.stack(boxes)[None].astype(np.float64))
    aspect = length[0] / np.maximum(width[0], 1e-6)
    return int((~((aspect >= LEVEL_ASPECTS[0]) & (aspect <= LEVEL_ASPECTS[1]))).sum())


def looks_level(boxes: list[np.ndarray]) -> bool:
    """Whether every box is a domino's shape as seen from above: then the picture is read as it is,
    and nothing more is measured (the development photos, all from above)."""
    return not boxes or _off_shape(boxes) == 0


def mostly_level(boxes: list[np.ndarray]) -> bool:
    """Whether fewer than two, and less than half, of the boxes are out of a domino's shape: what
    the boxes alone are allowed to say where the pips cannot be measured. From above, small tiles
    are boxed loosely (a rendered 720p table of ~50-px tiles from the usual camera: 9 of 32 boxes
    1.4-1.8 long per wide); at an angle, most tiles are out of shape."""
    off = _off_shape(boxes) if boxes else 0
    return off < 2 or off < LEVEL_OFF_SHARE * len(boxes)


def _sides(c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Length and width of boxes (...×4×2, label order: corners 0-1 and 2-3 are the ends)."""
    d = lambda i, j: np.linalg.norm(c[..., i, :] - c[..., j, :], axis=-1)  # noqa: E731
    return (d(0, 3) + d(1, 2)) / 2, (d(0, 1) + d(2, 3)) / 2


def _keystone_maps(turns: np.ndarray, stretches: np.ndarray, keystones: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Every candidate's map in centred, scaled coordinates (k×3×3) and its (a, p, turn) (k×3)."""
    t, a, p = (g.ravel() for g in np.meshgrid(turns, stretches, keystones, indexing="ij"))
    c, s = np.cos(t), np.sin(t)
    rot = np.zeros((len(t), 3, 3))
    rot[:, 0, 0], rot[:, 0, 1], rot[:, 1, 0], rot[:, 1, 1], rot[:, 2, 2] = c, s, -s, c, 1
    key = np.zeros((len(t), 3, 3))
    key[:, 0, 0], key[:, 1, 1], key[:, 2, 1], key[:, 2, 2] = 1, a, p, 1
    # turn the tilt onto v, level, turn back: the levelled picture keeps the picture's bearing
    return np.transpose(rot, (0, 2, 1)) @ key @ rot, np.stack([a, p, t], 1)


PIP_PATCH = 0.12
"""Half the side of the patch a pip's shape is measured in, as a share of its tile's length: a
pip of the densest layout (twelve to a half) is ~0.08 of the length across, ~0.12 from the next."""
MIN_PIP_PIXELS = 20
"""A pip of fewer pixels has too little shape to measure: with 14, pips 4-5 px across on ~50-px
tiles of rendered tables seen from above measured 0.42-0.85 short/long axis, and five of 40 such
tables were levelled (exact tile 0.909 → 0.894)."""
PIP_CONTRAST = 14.0


def pip_shapes(image: np.ndarray, corners: list[np.ndarray], points: list[list[tuple[float, float]]]
               ) -> tuple[np.ndarray, np.ndarray]:
    """Where the pips found lie in the picture (m×2) and the covariance of each one's pixels (m×2×2).

    Why: a pip is a round dot on the face, so in a picture taken at an angle it is an ellipse
    whose short axis runs along the tilt, shortened as the table is. Boxes are a poor measure of
    that: the detector learnt tiles seen from above and boxes a squashed tile nearer a domino's
    shape than it shows (copies of the real photos seen from 55 degrees: boxes 1.4-1.7 long per
    wide on tiles ~1.15). `corners`: each tile's box in the picture; `points`: its pips, in the
    coordinates of its crop (`rectify.rectify_tile`)."""
    from .rectify import crop_to_picture

    centres, covs = [], []
    h, w = image.shape[:2]
    for box, pts in zip(corners, points):
        if not pts:
            continue
        box = np.asarray(box, np.float64)
        length = float(np.linalg.norm(box[0] - box[3]) + np.linalg.norm(box[1] - box[2])) / 2
        r = int(round(PIP_PATCH * length))
        if r < 4:
            continue
        # the tile's neighbourhood alone, in Lab (the whole picture costs ~10 ms at 1280x720)
        x0, y0 = np.maximum(np.floor(box.min(0)).astype(int) - r, 0)
        x1, y1 = np.minimum(np.ceil(box.max(0)).astype(int) + r + 1, (w, h))
        if x1 <= x0 or y1 <= y0:
            continue
        lab = cv2.cvtColor(image[y0:y1, x0:x1], cv2.COLOR_BGR2LAB).astype(np.float32)
        face = _face_colour(lab, box - (x0, y0))
        at = crop_to_picture(box, pts).astype(np.float32)
        for x, y in np.round(at).astype(int) - (x0, y0):
            if not (r <= x < lab.shape[1] - r and r <= y < lab.shape[0] - r):
                continue
            dist = np.sqrt(((lab[y - r:y + r + 1, x - r:x + r + 1] - face) ** 2).sum(2))
            # the pip's own contrast, at its middle: the patch's most distant pixel may be the
            # divider or the table, half of which a pale pip's body does not reach (only its
            # shaded rim did, measured as a thin crescent)
            own = float(np.median(dist[r - 1:r + 2, r - 1:r + 2]))
            if own < 2 * PIP_CONTRAST:
                continue
            mask = (dist > max(PIP_CONTRAST, own / 2)).astype(np.uint8)
            n, lab_img, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
            if n < 2:
                continue
            k = 1 + int(np.argmin(((cents[1:] - r) ** 2).sum(1)))
            bx, by, bw, bh, area = stats[k]
            if area < MIN_PIP_PIXELS or bx == 0 or by == 0 or bx + bw > 2 * r or by + bh > 2 * r:
                continue  # too few pixels to have a shape, or running out of the patch: not one pip
            ys, xs = np.nonzero(lab_img == k)
            covs.append(np.cov(np.stack([xs, ys]).astype(np.float64)))
            centres.append((x0 + x - r + cents[k][0], y0 + y - r + cents[k][1]))
    if not centres:
        return np.zeros((0, 2)), np.zeros((0, 2, 2))
    return np.array(centres, np.float64), np.array(covs)


def _face_colour(lab: np.ndarray, box: np.ndarray) -> np.ndarray:
    """The median colour inside the tile's box, drawn in a little from its outline: the face,
    since pips cover far less of it. Why not the box's neighbourhood: a tile turned 30-60 degrees
    fills half of the rectangle around it, and on a steep photo of white tiles on dark cloth the
    cloth's colour was taken for the face, every pip of it looked as plain as the face, and two of
    thirty pips were measured (a real copy seen from 65 degrees, `scripts/stress_real.py`)."""
    centre = box.mean(0)
    inner = np.round(centre + FACE_INSET * (box - centre)).astype(np.int32)
    mask = np.zeros(lab.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, inner, 1)
    inside = lab[mask.astype(bool)]
    return np.median(inside[::3] if len(inside) >= 3 else lab.reshape(-1, 3), axis=0)  # (every third pixel will do)


FACE_INSET = 0.8
"""Share of the box kept, about its centre, where the face's colour is taken (a box's edge may
lie on the table or the tile's side)."""
MIN_PIPS = 10
"""Pip shapes needed before they, rather than the boxes alone, say how the picture was taken
(with 6 and pips of 14 pixels, fresh rendered hands seen steeply read exact tile 0.914 instead of
0.890, but tables from above worse: see MIN_PIP_PIXELS)."""
MAX_PIPS = 48
"""Pips the search weighs at most (spread over the picture): a table holds hundreds, and the
search's cost grows with each (a rendered 32-tile table: 182 ms with all 121)."""
ROUND_PIPS = 0.88
"""Pips whose median short over long axis is at least this are round: the picture is seen from
above and left as it is, whatever the boxes' shapes (a close-up of one tile filling the picture
is boxed loosely: levelling the real double-6 tile photos by their boxes alone read 0.986 of
them exactly instead of 0.998). Pips are measured on every photo, not only where some box is out
of shape (`looks_level`), and against the face and by each pip's own contrast: measured against the
table's colour where tiles lay turned (see `_face_colour`), the development photos, all from above,
measured 0.76-0.98, and one of those was levelled; measured so, they measure 0.91-0.99. A photo
whose boxes all look 2:1 is levelled where its pips say so: the detector
boxes a squashed tile, or the halves of two neighbours, as a domino (real copies seen by a camera
turned 55 degrees, `scripts/stress_real.py` cam55: their pips 0.53-0.64, every box 2:1)."""
PIP_WEIGHT = 3.0


def _roundness_err(maps: np.ndarray, at: np.ndarray, covs: np.ndarray) -> np.ndarray:
    """Mean over pips of log(long axis / short axis)^2 of each pip's pixels mapped by each
    candidate (k×3×3, centred and scaled coordinates; `at` and `covs` in the same): near 0
    where the candidate makes the pips round."""
    hom = np.concatenate([at, np.ones((len(at), 1))], 1)
    q = hom[None] @ np.swapaxes(maps, 1, 2)  # k×m×3
    w = q[..., 2:3]
    xy = q[..., :2] / w
    # Jacobian of the map at each pip: (A - x' b^T) / w
    jac = (maps[:, None, :2, :2] - xy[..., :, None] * maps[:, None, 2, None, :2]) / w[..., None]
    c = jac @ covs[None] @ np.swapaxes(jac, -1, -2)
    tr = c[..., 0, 0] + c[..., 1, 1]
    det = np.maximum(c[..., 0, 0] * c[..., 1, 1] - c[..., 0, 1] ** 2, 1e-18)
    disc = np.sqrt(np.maximum(tr * tr - 4 * det, 0))
    ratio = (tr + disc) / np.maximum(tr - disc, 1e-18)  # long^2 / short^2
    return ((0.5 * np.log(ratio)) ** 2).mean(1)


def _best_view(pts: np.ndarray, shapes: tuple[np.ndarray, np.ndarray] | None, corners: np.ndarray,
               turns: np.ndarray, stretches: np.ndarray, keystones: np.ndarray) -> tuple[float, float, float]:
    """The candidate (a, p, turn) of least cost for boxes `pts` (n×4×2) and pip `shapes`, all in
    centred, scaled coordinates; `corners`: the picture's, which no candidate may send to or past
    the horizon."""
    maps, params = _keystone_maps(turns, stretches[stretches >= 1.0], keystones)
    den = maps[:, 2, :2] @ corners.T + maps[:, 2, 2][:, None]
    ok = (den > 0.35).all(1)
    maps, params = maps[ok], params[ok]
    hom = np.concatenate([pts, np.ones(pts.shape[:2] + (1,))], -1).reshape(-1, 3)  # (n·4)×3
    q = hom[None] @ np.swapaxes(maps, 1, 2)  # k×(n·4)×3
    q = (q[..., :2] / q[..., 2:3]).reshape(len(maps), len(pts), 4, 2)
    length, wide = _sides(q)
    aspect_err = (np.log(length / np.maximum(wide, 1e-9)) - np.log(ASPECT)) ** 2
    log_len = np.log(np.maximum(length, 1e-9))
    size_err = log_len.var(1) if len(pts) > 1 else np.zeros(len(maps))
    cost = aspect_err.mean(1) + size_err + PRIOR * (np.log(params[:, 0]) ** 2 + params[:, 1] ** 2)
    if shapes is not None:
        cost = cost + PIP_WEIGHT * _roundness_err(maps, *shapes)
    a, p, turn = params[int(np.argmin(cost))]
    return float(a), float(p), float(turn)


def pip_squash(pips: tuple[np.ndarray, np.ndarray]) -> float:
    """The median over the pips measured (`pip_shapes`) of short over long axis: 1 for pips seen
    from straight above, about the cosine of the angle off it for pips seen at an angle."""
    ev = np.linalg.eigvalsh(pips[1])
    return float(np.median(np.sqrt(np.maximum(ev[:, 0], 0) / np.maximum(ev[:, 1], 1e-12))))


def pips_look_round(pips: tuple[np.ndarray, np.ndarray]) -> bool:
    """Whether the pips measured (`pip_shapes`) are round, as seen from above (see `ROUND_PIPS`)."""
    return pip_squash(pips) >= ROUND_PIPS


GUESS_SQUASH = float(np.cos(np.radians(50)))
"""Pips squashed to this or less bear out a guessed steep view (`pips_show_a_tilt`): at least 50
degrees off straight down. Why not merely "not round": the default rendered camera's tilt
squashes a table's pips a little, and a 720p double-12 table seen nearly from above,
where most small faces show no divider, had its guessed view borne out by pips at 0.73
and was levelled at 40 degrees (two tiles misread). The guessed views of the real photos' cam65
copies measured 0.37-0.45."""


def pips_show_a_tilt(pips: tuple[np.ndarray, np.ndarray]) -> bool:
    """Whether enough pips were measured (`MIN_PIPS`) and they are squashed as from 50 degrees or
    more (`GUESS_SQUASH`): the test a guessed view (`guessed_steep_view`) must pass, since boxes
    read in a view stretched to suit them prove nothing about the table."""
    return len(pips[0]) >= MIN_PIPS and pip_squash(pips) <= GUESS_SQUASH


FEW_PIPS_ROUND = 4
"""Pips measured round (`pips_look_round`) that show a photo of a tile or two was taken from
above, so that no steep view need be guessed (`looks_from_above`); fewer than `MIN_PIPS`, as
ruling out a guess is a smaller step than choosing a view."""


def looks_from_above(pips: tuple[np.ndarray, np.ndarray]) -> bool:
    """Whether a few pips measured (`FEW_PIPS_ROUND`) are round. Why: a guessed view costs a
    second reading with the detector's closest look (a 640x480 webcam photo of one tile 84 ->
    260 ms), which the pips of the one tile read can spare."""
    return len(pips[0]) >= FEW_PIPS_ROUND and pips_look_round(pips)


GUESSED_STRETCH = 2.0
"""The stretch of the view tried where a photo shows too few tiles for its angle to be found
(`guessed_steep_view`): 60 degrees off straight down, from which the levelling refines it."""


def guessed_steep_view(width: int, height: int) -> LevelView:
    """The picture lengthened along its height as if seen from 60 degrees off straight down, the
    far side at its top, as a phone held upright by someone seated at the table sees the table.

    Why: the detector learnt tiles seen from at most ~62 degrees, and boxes none of those seen
    from further: copies of the real photos as a camera turned 65 degrees sees them
    (`scripts/stress_real.py`, cam65) showed no face at all in 6 of 16, so the boxes that
    `find_level_view` needs were never there to show the angle."""
    view = _level_view(GUESSED_STRETCH, 0.0, 0.0, width, height)
    view.degrees = float(np.degrees(np.arccos(1 / GUESSED_STRETCH)))
    return view


def find_level_view(boxes: list[np.ndarray], width: int, height: int,
                    pips: tuple[np.ndarray, np.ndarray] | None = None) -> LevelView | None:
    """The view in which the boxes (4×2 corners each, in the picture's pixels) are most nearly
    dominoes of one size seen from above, and the pips (`pip_shapes`) round, or None where the
    boxes already look so or the view found is too near straight down to be worth a second
    reading."""
    measured = pips is not None and len(pips[0]) >= MIN_PIPS
    if looks_level(boxes) and not measured:
        return None
    if measured:
        # the pips decide: round, it was seen from above whatever the boxes' shapes; squashed, at
        # an angle, though the boxes be nearer a domino's shape than the tiles (the detector
        # learnt tiles seen from above: rendered hands seen from 50-60 degrees, pips 0.45-0.58,
        # most boxes 1.8-2.3 long per wide)
        if pips_look_round(pips):
            return None
    elif len(boxes) < 2 or mostly_level(boxes):
        return None  # no pips to measure, and the boxes not evidence enough
    scale = float(max(width, height))
    centre = np.array([width / 2, height / 2])
    pts = (np.stack(boxes).astype(np.float64) - centre) / scale  # n×4×2
    shapes = None
    if measured:
        some = np.linspace(0, len(pips[0]) - 1, min(len(pips[0]), MAX_PIPS)).round().astype(int)
        shapes = ((pips[0][some] - centre) / scale, pips[1][some] / scale ** 2)
    corners = (np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float64) - centre) / scale
    a, p, turn = _best_view(pts, shapes, corners, TURNS, STRETCHES, KEYSTONES)
    # then finer, around the best of the coarse grid
    a, p, turn = _best_view(pts, shapes, corners, turn + np.radians(np.linspace(-7.5, 7.5, 7)),
                            a * np.exp(np.linspace(-0.08, 0.08, 9)), p + np.linspace(-0.3, 0.3, 7))
    view = _level_view(float(a), float(p), float(turn), width, height, np.stack(boxes))
    squash = _squash_at(view.homography, np.stack(boxes).reshape(-1, 2).mean(0))
    if squash > 1 / MIN_STRETCH:
        return None
    view.degrees = float(np.degrees(np.arccos(squash)))
    return view


def _squash_at(hm: np.ndarray, at: np.ndarray) -> float:
    """How much shorter than wide the map's inverse makes a round dot at `at` (0-1]."""
    d = np.array([[1.0, 0.0], [0.0, 1.0]])
    jac = np.stack([(_apply(hm, at + e) - _apply(hm, at - e)) / 2 for e in d], 1).astype(np.float64)
    s = np.linalg.svd(jac, compute_uv=False)
    return float(s[1] / s[0])


FRAME_MARGIN = 3.0
"""How far beyond the boxes found, in their median length, the levelled picture reaches
(`_level_view`): tiles the first reading missed lie among or beside those it found."""


def _level_view(a: float, p: float, turn: float, width: int, height: int,
                boxes: np.ndarray | None = None) -> LevelView:
    """The picture-pixel homography for the candidate (a, p, turn), scaled and shifted so the
    levelled picture starts at (0, 0) and holds at most MAX_PIXELS_GAIN times the pixels.

    With `boxes` (n×4×2, the tiles found), the levelled picture is framed on the part of the
    picture that holds them (`FRAME_MARGIN`) and keeps their scale where they lie. Why: a camera
    low across a table sees the room above the table too; levelled as a whole about the
    picture's centre, the far side (walls, people) is blown up many times, and the pixel cap then
    shrank the tiles on the near side to a few pixels: on real frames from a seat at the table
    the levelled reading found none of 21 tiles the photo as it was showed 18 of. Where the tiles
    fill the picture, the frame is the whole picture, as before."""
    scale = float(max(width, height))
    centre = np.array([width / 2, height / 2])
    m, _ = _keystone_maps(np.array([turn]), np.array([a]), np.array([p]))
    to_norm = np.array([[1 / scale, 0, -centre[0] / scale], [0, 1 / scale, -centre[1] / scale], [0, 0, 1]])
    hm = m[0] @ to_norm
    frame = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float64)
    k = scale  # levelled units -> pixels: as many pixels per unit as the picture had at its centre
    if boxes is not None and len(boxes):
        pts = np.asarray(boxes, np.float64).reshape(-1, 2)
        length = float(np.median(_sides(np.asarray(boxes, np.float64))[0]))
        lo, hi = pts.min(0) - FRAME_MARGIN * length, pts.max(0) + FRAME_MARGIN * length
        lo, hi = np.maximum(lo, 0), np.minimum(hi, [width, height])
        frame = np.array([[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]])
        # the tiles keep their size across the tilt where they lie (at the centre, as before)
        k = 1.0 / _least_gain(hm, pts.mean(0))
    out = _apply(hm, frame).astype(np.float64)
    lo, hi = out.min(0), out.max(0)
    area = (hi - lo).prod() * k * k
    if area > MAX_PIXELS_GAIN * width * height:
        k *= np.sqrt(MAX_PIXELS_GAIN * width * height / area)
    fit = np.array([[k, 0, -lo[0] * k], [0, k, -lo[1] * k], [0, 0, 1]])
    size = (int(np.ceil((hi[0] - lo[0]) * k)), int(np.ceil((hi[1] - lo[1]) * k)))
    return LevelView(fit @ hm, size, a, p, turn)


def _least_gain(hm: np.ndarray, at: np.ndarray) -> float:
    """The smaller singular value of the map's Jacobian at `at` (levelled units per pixel)."""
    d = np.array([[1.0, 0.0], [0.0, 1.0]])
    jac = np.stack([(_apply(hm, at + e) - _apply(hm, at - e)) / 2 for e in d], 1).astype(np.float64)
    return float(np.linalg.svd(jac, compute_uv=False)[1])


__all__ = ["LevelView", "find_level_view", "guessed_steep_view", "looks_from_above", "looks_level", "mostly_level",
           "pip_shapes", "pip_squash", "pips_look_round", "pips_show_a_tilt"]
