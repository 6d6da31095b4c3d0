"""Draw one domino (face or back) as an RGBA sprite with exact pip positions.

The sprite is upright: end 0 at the top, end 1 at the bottom, width `w` and length
`round(w * style.ratio)`. It is drawn at twice the size and shrunk, so edges and pips
are anti-aliased the way a camera sees them rather than as hard-edged stamps.
"""
from __future__ import annotations

import colorsys
from dataclasses import dataclass, field

import cv2
import numpy as np

from .pips import MAX_FILL, nearest_pip_distance, pip_layout, pip_radius_factor

SS = 2  # supersampling factor


@dataclass
class TileStyle:
    """Everything that makes one physical set look the way it does; fixed per scene set."""

    body: tuple[int, int, int]  # RGB of the face
    ratio: float  # length / width
    corner_frac: float  # corner radius / width
    bevel_frac: float  # darker rim width / width
    bar_rgb: tuple[int, int, int]
    bar_frac: float  # bar thickness / length
    bar_inset: float  # bar inset from the long sides / width
    bar_round: bool  # rounded (moulded) bar ends
    stud: bool
    stud_rgb: tuple[int, int, int]
    pip_colours: list[tuple[int, int, int]]  # index = value
    pip_depth: float  # 0..1 strength of the drilled-hole shading
    pip_gloss: float  # 0..1 chance-weighted specular dot
    pip_scale: float  # multiplies the radius factor
    margin: float  # pip lattice inset within a half (fraction of the half side)
    layout_style: str
    transpose: bool
    back_rgb: tuple[int, int, int]
    back_pattern: str
    texture: float  # body grain amplitude
    thickness: float  # tile thickness / width (for the visible side)
    side_rgb: tuple[int, int, int] = field(default=(0, 0, 0))


def _hsv(h: float, s: float, v: float) -> tuple[int, int, int]:
    r, g, b = colorsys.hsv_to_rgb(h % 1.0, s, v)
    return int(r * 255), int(g * 255), int(b * 255)


def _luma(c: tuple[int, int, int]) -> float:
    return (0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2]) / 255.0


def random_pip_colour(rng: np.random.Generator, dark_body: bool) -> tuple[int, int, int]:
    """A pip colour a real set could use: vivid or dark on light tiles, light on dark tiles.

    Pale colours on a white face are rejected (no set prints them: they would not read),
    but yellow and light blue are kept since real sets do use them.
    """
    for _ in range(50):
        h = rng.random()
        s = rng.uniform(0.25, 1.0)
        v = rng.uniform(0.08, 0.97)
        c = _hsv(h, s, v)
        lum = _luma(c)
        if dark_body:
            if lum > 0.45:
                return c
        elif lum < 0.8:  # light greys and yellows included: real coded sets use them
            return c
    return (20, 20, 20) if not dark_body else (235, 235, 235)


def hue_pip_colour(rng: np.random.Generator, body: tuple[int, int, int]) -> tuple[int, int, int]:
    """A pip colour about as bright as a coloured face and told from it by hue alone (lilac
    on orange, green on pink): a reader that goes by brightness sees no dots at all."""
    hb = colorsys.rgb_to_hsv(*(c / 255.0 for c in body))[0]
    lb = _luma(body)
    best, gap = (20, 20, 20), 1.0
    for _ in range(200):
        c = _hsv((hb + rng.uniform(0.15, 0.85)) % 1.0, rng.uniform(0.35, 0.95), rng.uniform(0.2, 1.0))
        d = abs(_luma(c) - lb)
        if d < HUE_PIP_LUMA_GAP:
            return c
        if d < gap:
            best, gap = c, d
    return best


HUE_PIP_LUMA_GAP = 0.15
"""Most a hue-coded pip's brightness (luma, 0-1) differs from its face's."""
FACE_KINDS = ("white", "ivory", "cream", "black", "coloured")


def random_style(rng: np.random.Generator, set_max: int, face: str | None = None) -> TileStyle:
    """`face` None draws the set's look at random; "hue-coded" asks for a coloured face with
    colour-coded pips told from it by hue (`hue_pip_colour`), which random draws give rarely
    (a coloured face, coded, a pip colour near its brightness): a stress set for the readers
    (`chickenfoot lab synth --face hue-coded`) and the data of `lab.training.half_tune`. Random
    draws are left as they were, so rendered sets and rounds of a seed stay comparable."""
    if face not in (None, "hue-coded"):
        raise ValueError(f"unknown face {face!r} (expected hue-coded or none)")
    if face is None:
        kind = rng.choice(FACE_KINDS, p=[0.36, 0.26, 0.16, 0.14, 0.08])
    else:
        kind = "coloured"
    if kind == "white":
        body = tuple(int(x) for x in rng.integers(236, 256, 3))
    elif kind == "ivory":
        body = _hsv(rng.uniform(0.09, 0.15), rng.uniform(0.06, 0.2), rng.uniform(0.88, 1.0))
    elif kind == "cream":
        body = _hsv(rng.uniform(0.08, 0.14), rng.uniform(0.15, 0.35), rng.uniform(0.82, 0.97))
    elif kind == "black":
        body = _hsv(rng.random(), rng.uniform(0, 0.2), rng.uniform(0.05, 0.2))
    else:  # pastel or saturated plastic faces exist (kids' sets, travel sets)
        body = _hsv(rng.random(), rng.uniform(0.15, 0.6), rng.uniform(0.55, 0.95))
    dark = _luma(body) < 0.4

    mode = "coded" if face else rng.choice(["mono", "coded"], p=[0.5, 0.5] if set_max > 6 else [0.85, 0.15])
    if mode == "mono":
        if dark:
            base = (int(rng.integers(220, 256)),) * 3 if rng.random() < 0.7 else random_pip_colour(rng, True)
        else:
            base = (_hsv(rng.random(), rng.uniform(0, 0.3), rng.uniform(0.02, 0.22))
                    if rng.random() < 0.8 else random_pip_colour(rng, False))
        colours = [base] * 19
    elif face == "hue-coded":
        colours = [hue_pip_colour(rng, body) for _ in range(19)]
    else:
        colours = [random_pip_colour(rng, dark) for _ in range(19)]
        if rng.random() < 0.5:  # many coded sets keep some values black
            for v in rng.choice(np.arange(1, 19), size=int(rng.integers(1, 4)), replace=False):
                colours[v] = (15, 15, 15) if not dark else (240, 240, 240)

    if dark:
        bar = tuple(int(x) for x in rng.integers(150, 256, 3)) if rng.random() < 0.6 else _hsv(0.12, 0.6, 0.8)
    elif rng.random() < 0.75:
        bar = tuple(int(x) for x in rng.integers(0, 60, 1).repeat(3))
    else:  # engraved groove: a bar only slightly darker than the face
        bar = tuple(int(c * rng.uniform(0.55, 0.85)) for c in body)
    stud_rgb = _hsv(rng.uniform(0.1, 0.15), rng.uniform(0.0, 0.6), rng.uniform(0.6, 0.95))
    back_rgb = body if rng.random() < 0.6 else _hsv(rng.random(), rng.uniform(0.2, 0.8), rng.uniform(0.2, 0.8))
    side_rgb = tuple(int(c * rng.uniform(0.6, 0.85)) for c in body)
    return TileStyle(
        body=body,
        ratio=float(rng.uniform(1.88, 2.08)),
        corner_frac=float(rng.uniform(0.04, 0.16)),
        bevel_frac=float(rng.uniform(0.0, 0.08)),
        bar_rgb=bar,
        bar_frac=float(rng.uniform(0.01, 0.045)),
        bar_inset=float(rng.uniform(0.04, 0.16)),
        bar_round=bool(rng.random() < 0.6),
        stud=bool(rng.random() < 0.5),
        stud_rgb=stud_rgb,
        pip_colours=colours,
        pip_depth=float(rng.uniform(0.0, 1.0)),
        pip_gloss=float(rng.uniform(0.0, 1.0)),
        pip_scale=float(rng.uniform(0.8, 1.2)),
        margin=float(rng.uniform(0.17, 0.27)),
        layout_style=str(rng.choice(["piecepackr", "rows"])),
        transpose=bool(rng.random() < 0.5),
        back_rgb=back_rgb,
        back_pattern=str(rng.choice(["plain", "ring", "dimples", "stripe"])),
        texture=float(rng.uniform(0.0, 6.0)),
        thickness=float(rng.uniform(0.2, 0.38)),
        side_rgb=side_rgb,
    )


@dataclass
class Sprite:
    rgba: np.ndarray  # (L, w, 4) uint8
    pips: list[tuple[float, float, float, int]]  # x, y, radius, half (0 top / 1 bottom)
    width: int
    length: int


def _rounded_rect_mask(h: int, w: int, r: int, inset: int = 0) -> np.ndarray:
    mask = np.zeros((h, w), np.uint8)
    x0, y0, x1, y1 = inset, inset, w - 1 - inset, h - 1 - inset
    r = max(0, min(r - inset, (x1 - x0) // 2, (y1 - y0) // 2))
    cv2.rectangle(mask, (x0 + r, y0), (x1 - r, y1), 255, -1)
    cv2.rectangle(mask, (x0, y0 + r), (x1, y1 - r), 255, -1)
    for cx, cy in ((x0 + r, y0 + r), (x1 - r, y0 + r), (x0 + r, y1 - r), (x1 - r, y1 - r)):
        cv2.circle(mask, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return mask


def draw_tile(style: TileStyle, a: int, b: int, w: int, rng: np.random.Generator,
              face_down: bool = False, light_dir: tuple[float, float] = (-0.6, -0.8)) -> Sprite:
    """Render tile a|b (a at the top) `w` pixels wide."""
    img, outer, w, length = _blank(style, w, rng, face_down, light_dir)
    pips: list[tuple[float, float, float, int]] = []
    if not face_down:
        _draw_divider(img, style, rng)
        pips = _draw_values(img, style, a, b, light_dir)
    return _finish(img, outer, w, length, pips)


def _blank(style: TileStyle, w: int, rng: np.random.Generator, face_down: bool,
           light_dir: tuple[float, float]) -> tuple[np.ndarray, np.ndarray, int, int]:
    """The supersampled face or back without divider and pips: body, light gradient, grain,
    bevel (and a back's pattern); returns the float canvas, its outline mask, width, length."""
    w = max(8, int(w))
    length = int(round(w * style.ratio))
    W, L = w * SS, length * SS
    body = np.array(style.back_rgb if face_down else style.body, np.float32)
    img = np.empty((L, W, 3), np.float32)
    img[:] = body
    # gentle lighting gradient across the face and plastic grain
    yy, xx = np.mgrid[0:L, 0:W].astype(np.float32)
    grad = 1.0 + 0.06 * ((xx / W - 0.5) * light_dir[0] + (yy / L - 0.5) * light_dir[1]) * -1
    img *= grad[..., None]
    if style.texture > 0:
        small = rng.normal(0, style.texture, (max(2, L // 16), max(2, W // 16), 1)).astype(np.float32)
        img += cv2.resize(small, (W, L), interpolation=cv2.INTER_CUBIC)[..., None]

    radius = int(style.corner_frac * W)
    outer = _rounded_rect_mask(L, W, radius)
    bevel = int(style.bevel_frac * W)
    if bevel > 0:
        inner = _rounded_rect_mask(L, W, radius, bevel)
        rim = cv2.GaussianBlur((outer > 0).astype(np.float32) - (inner > 0).astype(np.float32), (0, 0), bevel * 0.6 + 0.5)
        img *= (1.0 - 0.25 * np.clip(rim, 0, 1))[..., None]

    if face_down:
        c = (body * 0.8).tolist()
        if style.back_pattern == "ring":
            cv2.circle(img, (W // 2, L // 2), int(W * 0.28), c, max(1, W // 30), cv2.LINE_AA)
        elif style.back_pattern == "dimples":
            for yv in (0.25, 0.5, 0.75):
                cv2.circle(img, (W // 2, int(L * yv)), int(W * 0.07), c, -1, cv2.LINE_AA)
        elif style.back_pattern == "stripe":
            cv2.line(img, (int(W * 0.2), int(L * 0.15)), (int(W * 0.8), int(L * 0.85)), c, max(1, W // 25), cv2.LINE_AA)
    return img, outer, w, length


def _draw_divider(img: np.ndarray, style: TileStyle, rng: np.random.Generator) -> None:
    """The bar between the halves, and the brass stud on it if the set has one."""
    L, W = img.shape[:2]
    half = L / 2.0
    bar_t = max(SS, int(style.bar_frac * L))
    inset = int(style.bar_inset * W)
    y0 = int(half - bar_t / 2)
    if style.bar_round:  # moulded bars have rounded ends, which look like dots to a naive reader
        r_cap = bar_t // 2
        cv2.line(img, (inset + r_cap, y0 + r_cap), (W - 1 - inset - r_cap, y0 + r_cap), style.bar_rgb,
                 max(1, bar_t), cv2.LINE_AA)
    else:
        cv2.rectangle(img, (inset, y0), (W - 1 - inset, y0 + bar_t), style.bar_rgb, -1, cv2.LINE_AA)
    if style.stud:
        sr = max(SS, int(W * rng.uniform(0.05, 0.09)))
        cv2.circle(img, (W // 2, int(half)), sr, style.stud_rgb, -1, cv2.LINE_AA)
        cv2.circle(img, (W // 2 - sr // 3, int(half) - sr // 3), max(1, sr // 3), (255, 255, 240), -1, cv2.LINE_AA)


def _divider_rows(L: int, style: TileStyle) -> tuple[int, int]:
    """Supersampled rows where the bar begins and ends (the halves' pips stay outside them)."""
    bar_t = max(SS, int(style.bar_frac * L))
    y0 = int(L / 2.0 - bar_t / 2)
    return y0, y0 + bar_t


def _draw_half(img: np.ndarray, style: TileStyle, value: int, hi: int,
               light_dir: tuple[float, float]) -> list[tuple[float, float, float, int]]:
    """One half's pips (`hi` 0 top, 1 bottom) on a supersampled face; returns their centres and
    radii in sprite pixels."""
    L, W = img.shape[:2]
    half = L / 2.0
    bar_t = max(SS, int(style.bar_frac * L))
    side = min(W, half - bar_t / 2)  # the half's square pip field
    m = style.margin * side
    x_off = (W - side) / 2
    y_off = 0.0 if hi == 0 else half + bar_t / 2
    y_off += (half - bar_t / 2 - side) / 2
    r = pip_radius_factor(value) * style.pip_scale * side
    r = min(r, 0.5 * MAX_FILL * nearest_pip_distance(value, style.layout_style, style.transpose) * (side - 2 * m))
    colour = np.array(style.pip_colours[value], np.float32)
    pips = []
    for u, v in pip_layout(value, style.layout_style, style.transpose):
        if hi == 1:  # the bottom half is the top half turned 180 degrees
            u, v = 1 - u, 1 - v
        px = x_off + m + u * (side - 2 * m)
        py = y_off + m + v * (side - 2 * m)
        _draw_pip(img, px, py, r, colour, style, light_dir)
        pips.append((px / SS, py / SS, r / SS, hi))
    return pips


def _draw_values(img: np.ndarray, style: TileStyle, a: int, b: int,
                 light_dir: tuple[float, float]) -> list[tuple[float, float, float, int]]:
    """Both halves' pips on a supersampled face; returns their centres and radii in sprite pixels."""
    return _draw_half(img, style, a, 0, light_dir) + _draw_half(img, style, b, 1, light_dir)


def _finish(img: np.ndarray, outer: np.ndarray | None, w: int, length: int,
            pips: list[tuple[float, float, float, int]], alpha: np.ndarray | None = None) -> Sprite:
    """Shrink the supersampled canvas to the sprite (the anti-aliasing) and attach the outline."""
    out = cv2.resize(np.clip(img, 0, 255), (w, length), interpolation=cv2.INTER_AREA).astype(np.uint8)
    if alpha is None:
        alpha = cv2.resize(outer, (w, length), interpolation=cv2.INTER_AREA)
    return Sprite(np.dstack([out, alpha]), pips, w, length)


class FaceSprites:
    """One scene's sprites of one set, drawn at a few quantised widths. The blank face (body,
    grain, bevel, divider, stud) and the back are drawn once per width, and each half once per
    value and width; a tile's sprite is its blank with its two halves' rows pasted in. A real
    set's tiles share all of that, and a table shows the same values many times over."""

    def __init__(self, style: TileStyle, rng: np.random.Generator, light_dir: tuple[float, float] = (-0.6, -0.8)):
        self.style, self.rng, self.light_dir = style, rng, light_dir
        self._blanks: dict[tuple[int, bool], tuple[np.ndarray, Sprite]] = {}
        self._halves: dict[tuple[int, int, int], tuple[np.ndarray, list]] = {}

    def _blank(self, w: int, back: bool) -> tuple[np.ndarray, Sprite]:
        """The supersampled blank and its finished sprite."""
        key = (w, back)
        if key not in self._blanks:
            img, outer, w2, length = _blank(self.style, w, self.rng, back, self.light_dir)
            if not back:
                _draw_divider(img, self.style, self.rng)
            self._blanks[key] = (img, _finish(img, outer, w2, length, []))
        return self._blanks[key]

    def _half(self, value: int, hi: int, w: int) -> tuple[np.ndarray, list]:
        """A half's rows of the finished sprite (its pips drawn) and the pips."""
        key = (value, hi, w)
        if key not in self._halves:
            img, blank = self._blank(w, False)
            img = img.copy()
            pips = _draw_half(img, self.style, value, hi, self.light_dir)
            done = _finish(img, None, blank.width, blank.length, pips, blank.rgba[..., 3])
            y0, y1 = _divider_rows(img.shape[0], self.style)
            rows = slice(0, y0 // SS) if hi == 0 else slice(-(-y1 // SS), blank.length)
            self._halves[key] = (done.rgba[rows], pips)
        return self._halves[key]

    def get(self, a: int, b: int, w: int, back: bool) -> Sprite:
        ss, blank = self._blank(w, back)
        if back:
            return blank
        top, pips0 = self._half(a, 0, w)
        bottom, pips1 = self._half(b, 1, w)
        rgba = blank.rgba.copy()
        rgba[:len(top)] = top
        rgba[len(rgba) - len(bottom):] = bottom
        return Sprite(rgba, pips0 + pips1, blank.width, blank.length)


def _draw_pip(img: np.ndarray, x: float, y: float, r: float, colour: np.ndarray, style: TileStyle,
              light_dir: tuple[float, float]) -> None:
    """A drilled, painted dot: the rim on the light side shades the inside of the hole."""
    shift = 4  # fixed-point sub-pixel drawing
    f = 1 << shift
    ri = max(1, int(r * f))
    cv2.circle(img, (int(x * f), int(y * f)), ri, colour.tolist(), -1, cv2.LINE_AA, shift)
    if style.pip_depth > 0.15:
        dark = (colour * (1 - 0.5 * style.pip_depth)).tolist()
        ox, oy = light_dir[0] * r * 0.35, light_dir[1] * r * 0.35
        # crescent: darker disc on the light side, then the colour disc offset away from it
        cv2.circle(img, (int((x + ox * 0.3) * f), int((y + oy * 0.3) * f)), int(ri * 0.92), dark, -1, cv2.LINE_AA, shift)
        cv2.circle(img, (int((x - ox * 0.4) * f), int((y - oy * 0.4) * f)), int(ri * 0.72), colour.tolist(), -1, cv2.LINE_AA, shift)
    if style.pip_gloss > 0.6:
        hl = (np.minimum(255, colour * 0.5 + 150)).tolist()
        cv2.circle(img, (int((x - light_dir[0] * r * 0.35) * f), int((y - light_dir[1] * r * 0.35) * f)),
                   max(1, int(ri * 0.22)), hl, -1, cv2.LINE_AA, shift)
