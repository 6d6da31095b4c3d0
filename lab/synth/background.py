"""Procedural table surfaces and clutter.

No photo backgrounds can be downloaded or redistributed, so surfaces are synthesised
from value noise. The point is variety in colour, texture scale and contrast, and
above all surfaces that look like tiles (white paper, woven mats with a lattice,
marble) so the detector learns what a tile is rather than "anything bright".
"""
from __future__ import annotations

import colorsys

import cv2
import numpy as np

SURFACES = ("wood", "felt", "cloth", "marble", "glossy_black", "pattern", "paper", "weave", "knit")


def value_noise(rng: np.random.Generator, h: int, w: int, cell: float, octaves: int = 3) -> np.ndarray:
    """Smooth noise in about [-1, 1], `cell` pixels per lattice step at the first octave."""
    out = np.zeros((h, w), np.float32)
    amp, total = 1.0, 0.0
    for _ in range(octaves):
        gh, gw = max(2, int(h / cell) + 2), max(2, int(w / cell) + 2)
        grid = rng.uniform(-1, 1, (gh, gw)).astype(np.float32)
        out += amp * cv2.resize(grid, (w, h), interpolation=cv2.INTER_CUBIC)
        total += amp
        amp *= 0.5
        cell = max(1.0, cell / 2)
    return out / total


def _rgb(h: float, s: float, v: float) -> np.ndarray:
    return np.array(colorsys.hsv_to_rgb(h % 1, s, v), np.float32) * 255


_SMOOTH = {"wood", "cloth", "marble", "glossy_black", "paper"}


def surface(rng: np.random.Generator, h: int, w: int, tile_px: float, kind: str | None = None) -> np.ndarray:
    """An (h, w, 3) float32 RGB table surface; `tile_px` (a tile's width) sets texture scale.

    Low-frequency surfaces are drawn at half size and enlarged: same look, a quarter of the work.
    """
    kind = kind or str(rng.choice(SURFACES, p=[0.16, 0.1, 0.1, 0.09, 0.13, 0.1, 0.1, 0.12, 0.1]))
    if kind in _SMOOTH and min(h, w) > 200:
        small = _surface(rng, h // 2 + 1, w // 2 + 1, tile_px / 2, kind)
        return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    return _surface(rng, h, w, tile_px, kind)


def _surface(rng: np.random.Generator, h: int, w: int, tile_px: float, kind: str) -> np.ndarray:
    if kind == "wood":
        base = _rgb(rng.uniform(0.04, 0.11), rng.uniform(0.3, 0.8), rng.uniform(0.25, 0.85))
        angle = rng.uniform(0, np.pi)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        t = xx * np.cos(angle) + yy * np.sin(angle)
        warp = value_noise(rng, h, w, tile_px * rng.uniform(1, 4)) * tile_px * rng.uniform(0.3, 1.5)
        freq = 2 * np.pi / (tile_px * rng.uniform(0.08, 0.4))
        grain = 0.5 + 0.5 * np.sin((t + warp) * freq)
        fine = value_noise(rng, h, w, max(2.0, tile_px * 0.05), 2)
        shade = 1 + rng.uniform(0.08, 0.3) * (grain - 0.5) + 0.05 * fine
        plank = tile_px * rng.uniform(2, 6)
        if rng.random() < 0.6:
            seams = (np.mod(xx * -np.sin(angle) + yy * np.cos(angle), plank) < max(1, tile_px * 0.03))
            shade = shade * np.where(seams, 0.6, 1.0)
        img = base[None, None, :] * shade[..., None]
    elif kind == "felt":
        base = _rgb(rng.choice([0.33, 0.6, 0.0, 0.08, rng.random()]), rng.uniform(0.3, 0.9), rng.uniform(0.15, 0.6))
        img = base * (1 + 0.08 * value_noise(rng, h, w, 2, 2)[..., None] + 0.05 * value_noise(rng, h, w, tile_px, 2)[..., None])
    elif kind == "cloth":
        base = _rgb(rng.random(), rng.uniform(0.0, 0.7), rng.uniform(0.2, 0.95))
        wr = value_noise(rng, h, w, tile_px * rng.uniform(0.8, 3), 3)
        img = base * (1 + 0.15 * wr[..., None] + 0.04 * value_noise(rng, h, w, 1.5, 1)[..., None])
    elif kind == "marble":
        base = _rgb(rng.uniform(0, 1), rng.uniform(0, 0.15), rng.uniform(0.55, 0.95))
        n = value_noise(rng, h, w, tile_px * rng.uniform(1, 4), 5)
        veins = np.abs(np.sin(n * rng.uniform(6, 14)))
        img = base * (1 - 0.35 * (1 - veins[..., None]) ** 6)
    elif kind == "glossy_black":
        base = _rgb(rng.random(), rng.uniform(0, 0.3), rng.uniform(0.02, 0.12))
        refl = np.clip(value_noise(rng, h, w, tile_px * rng.uniform(3, 8), 2), 0, 1) ** 2
        img = base + refl[..., None] * rng.uniform(20, 90)
    elif kind == "pattern":
        c1 = _rgb(rng.random(), rng.uniform(0.2, 0.9), rng.uniform(0.4, 1.0))
        c2 = _rgb(rng.random(), rng.uniform(0.0, 0.9), rng.uniform(0.2, 1.0))
        period = tile_px * rng.uniform(0.3, 2.5)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        a = rng.uniform(0, np.pi)
        u = xx * np.cos(a) + yy * np.sin(a)
        v = -xx * np.sin(a) + yy * np.cos(a)
        style = rng.integers(0, 4)
        if style == 0:  # checks
            m = ((np.floor(u / period) + np.floor(v / period)) % 2).astype(np.float32)
        elif style == 1:  # stripes
            m = (np.floor(u / period) % 2).astype(np.float32)
        elif style == 2:  # plaid
            m = 0.5 * (np.floor(u / period) % 2) + 0.5 * (np.floor(v / (period * 1.3)) % 2)
        else:  # polka dots
            m = ((np.mod(u, period) - period / 2) ** 2 + (np.mod(v, period) - period / 2) ** 2 < (period * 0.2) ** 2).astype(np.float32)
        m = cv2.GaussianBlur(m.astype(np.float32), (0, 0), 0.8)
        img = c1 * (1 - m[..., None]) + c2 * m[..., None]
    elif kind == "paper":
        v = rng.uniform(0.75, 1.0)
        base = _rgb(rng.uniform(0.05, 0.15), rng.uniform(0, 0.1), v)
        img = base * (1 + 0.03 * value_noise(rng, h, w, tile_px, 3)[..., None])
    elif kind == "weave":  # carbon-fibre-like and rattan mats
        base = _rgb(rng.random(), rng.uniform(0, 0.4), rng.uniform(0.05, 0.5))
        period = tile_px * rng.uniform(0.06, 0.25)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        a = rng.uniform(0, np.pi)
        u = (xx * np.cos(a) + yy * np.sin(a)) / period
        v = (-xx * np.sin(a) + yy * np.cos(a)) / period
        cell = (np.floor(u) + np.floor(v)) % 2
        ripple = np.where(cell > 0, np.sin(np.pi * np.mod(u, 1)), np.sin(np.pi * np.mod(v, 1)))
        img = base * (0.7 + 0.6 * ripple[..., None])
    else:  # knit
        base = _rgb(rng.random(), rng.uniform(0, 0.5), rng.uniform(0.1, 0.6))
        n = value_noise(rng, h, w, max(1.5, tile_px * 0.04), 2)
        img = base * (1 + 0.35 * n[..., None])
    return img.astype(np.float32)


def skin_rgb(rng: np.random.Generator) -> tuple[int, int, int]:
    h, s, v = rng.uniform(0.02, 0.09), rng.uniform(0.25, 0.6), rng.uniform(0.3, 0.95)
    r, g, b = colorsys.hsv_to_rgb(h, s, v)
    return int(r * 255), int(g * 255), int(b * 255)


def draw_hand(img: np.ndarray, rng: np.random.Generator, cx: float, cy: float, size: float,
              angle: float, mask: np.ndarray | None = None) -> None:
    """A crude hand with fingers reaching in: skin blob occluding tiles, as in live play."""
    col = skin_rgb(rng)
    ca, sa = np.cos(angle), np.sin(angle)

    def pt(u: float, v: float) -> tuple[int, int]:
        return int(cx + u * ca - v * sa), int(cy + u * sa + v * ca)

    palm = [pt(-0.5 * size, -0.4 * size), pt(0.5 * size, -0.4 * size), pt(0.45 * size, 3 * size), pt(-0.45 * size, 3 * size)]
    layers = [(img, col)] + ([(mask, 1)] if mask is not None else [])
    for target, c in layers:
        cv2.fillConvexPoly(target, np.array(palm, np.int32), c, cv2.LINE_AA)
        cv2.ellipse(target, pt(0, 0), (int(size * 0.55), int(size * 0.5)), np.degrees(angle), 0, 360, c, -1, cv2.LINE_AA)
        for k in range(4):
            fu = (-0.38 + 0.25 * k) * size
            flen = size * rng.uniform(0.6, 1.0)
            cv2.line(target, pt(fu, -0.2 * size), pt(fu * 1.1, -0.2 * size - flen), c, max(2, int(size * 0.18)), cv2.LINE_AA)


def _put_text(img: np.ndarray, text: str, org: tuple[int, int], font: int, scale: float, colour, thick: int) -> None:
    """putText for float canvases (OpenCV draws text on 8-bit images only)."""
    mask = np.zeros(img.shape[:2], np.uint8)
    cv2.putText(mask, text, org, font, scale, 255, thick, cv2.LINE_AA)
    ys, xs = np.nonzero(mask)
    if len(xs):
        a = (mask[ys, xs].astype(np.float32) / 255.0)[:, None]
        img[ys, xs] = img[ys, xs] * (1 - a) + np.array(colour, np.float32) * a


def draw_clutter(img: np.ndarray, rng: np.random.Generator, tile_px: float, n: int) -> list[np.ndarray]:
    """Coins, cards, score pads and cups: things on real tables a detector must ignore."""
    h, w = img.shape[:2]
    polys = []
    for _ in range(n):
        kind = rng.choice(["coin", "card", "pad", "cup", "pen"])
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        ang = rng.uniform(0, 180)
        if kind == "coin":
            r = int(tile_px * rng.uniform(0.35, 0.6))
            col = _rgb(rng.uniform(0.08, 0.14), rng.uniform(0.0, 0.7), rng.uniform(0.5, 0.9)).tolist()
            cv2.circle(img, (int(cx), int(cy)), r, col, -1, cv2.LINE_AA)
            cv2.circle(img, (int(cx), int(cy)), int(r * 0.8), [c * 0.85 for c in col], max(1, r // 8), cv2.LINE_AA)
            polys.append(np.array([[cx - r, cy - r], [cx + r, cy - r], [cx + r, cy + r], [cx - r, cy + r]], np.float32))
        elif kind in ("card", "pad"):
            sw, sh = (tile_px * 1.3, tile_px * 1.9) if kind == "card" else (tile_px * 2.2, tile_px * 3.0)
            box = cv2.boxPoints(((cx, cy), (sw, sh), ang)).astype(np.float32)
            col = [245, 245, 240] if kind == "pad" or rng.random() < 0.5 else _rgb(rng.random(), 0.7, 0.7).tolist()
            cv2.fillConvexPoly(img, box.astype(np.int32), col, cv2.LINE_AA)
            if kind == "pad":  # ruled lines and scribbled numbers
                a = np.radians(ang)
                for k in range(1, 9):
                    off = -sh / 2 + k * sh / 9
                    p1 = (cx - sw / 2 * np.cos(a) - off * np.sin(a), cy - sw / 2 * np.sin(a) + off * np.cos(a))
                    p2 = (cx + sw / 2 * np.cos(a) - off * np.sin(a), cy + sw / 2 * np.sin(a) + off * np.cos(a))
                    cv2.line(img, tuple(map(int, p1)), tuple(map(int, p2)), (150, 170, 210), 1, cv2.LINE_AA)
                for _k in range(int(rng.integers(2, 8))):
                    px, py = cx + rng.uniform(-sw / 3, sw / 3), cy + rng.uniform(-sh / 3, sh / 3)
                    _put_text(img, str(int(rng.integers(0, 99))), (int(px), int(py)), cv2.FONT_HERSHEY_SCRIPT_SIMPLEX,
                                tile_px / 60, (40, 40, 90), max(1, int(tile_px / 40)))
            else:
                _put_text(img, str(rng.choice(list("AKQJ23456789"))), (int(cx), int(cy)), cv2.FONT_HERSHEY_SIMPLEX,
                            tile_px / 40, (200, 20, 20), max(1, int(tile_px / 25)))
            polys.append(box)
        elif kind == "cup":
            r = int(tile_px * rng.uniform(0.9, 1.5))
            col = _rgb(rng.random(), rng.uniform(0, 0.8), rng.uniform(0.3, 1.0)).tolist()
            cv2.circle(img, (int(cx), int(cy)), r, col, -1, cv2.LINE_AA)
            cv2.circle(img, (int(cx), int(cy)), int(r * 0.85), [c * 0.5 for c in col], -1, cv2.LINE_AA)
            polys.append(np.array([[cx - r, cy - r], [cx + r, cy - r], [cx + r, cy + r], [cx - r, cy + r]], np.float32))
        else:
            a = np.radians(ang)
            ln = tile_px * 2.5
            p1 = (int(cx - ln * np.cos(a)), int(cy - ln * np.sin(a)))
            p2 = (int(cx + ln * np.cos(a)), int(cy + ln * np.sin(a)))
            cv2.line(img, p1, p2, _rgb(rng.random(), 0.8, 0.6).tolist(), max(2, int(tile_px * 0.15)), cv2.LINE_AA)
    return polys
