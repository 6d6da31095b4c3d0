"""Compose rendered tiles into photographed scenes with exact labels.

Tiles are laid on a flat "table plane" canvas (top view), then a homography plays the
camera: tilt (far side wider), roll and a little keystone. Every label point (tile
corners, pip centres) goes through the same transforms as the pixels, so labels match
pixels by construction; tests check that they do.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from engine.tiles import SUPPORTED_SETS

from .background import draw_clutter, draw_hand, surface
from .tileface import Sprite, TileStyle, draw_tile, random_style



@dataclass
class Placement:
    """A tile on the table plane: centre, rotation, values; `angle` turns end 0 from 'up'."""

    cx: float
    cy: float
    angle: float  # radians
    a: int
    b: int
    face_down: bool = False
    node: int | None = None  # layout node id for table scenes


@dataclass
class TileLabel:
    id: int
    pips: tuple[int, int]
    corners: np.ndarray  # (4, 2): end0-left, end0-right, end1-right, end1-left, image pixels
    face_down: bool
    pip_points: list[tuple[float, float, float, int]]  # x, y, radius, half; visible pips only
    pip_hidden: int  # pips covered by another tile or a hand
    visible: float  # fraction of the face that is in frame and not covered
    node: int | None = None

    def halves(self) -> tuple[np.ndarray, np.ndarray]:
        c = self.corners
        m0 = (c[0] + c[3]) / 2
        m1 = (c[1] + c[2]) / 2
        return np.array([c[0], c[1], m1, m0]), np.array([m0, m1, c[2], c[3]])

    def to_dict(self) -> dict:
        h0, h1 = self.halves()
        return {
            "id": self.id,
            "pips": list(self.pips),
            "corners": np.round(self.corners, 2).tolist(),
            "halves": [np.round(h0, 2).tolist(), np.round(h1, 2).tolist()],
            "face_down": self.face_down,
            "pip_points": [[round(x, 2), round(y, 2), round(r, 2), h] for x, y, r, h in self.pip_points],
            "pip_hidden": self.pip_hidden,
            "visible": round(self.visible, 3),
            "node": self.node,
        }


@dataclass
class Scene:
    image: np.ndarray  # (H, W, 3) uint8 BGR, ready for cv2.imwrite
    tiles: list[TileLabel]
    kind: str
    set_max: int
    layout: dict | None = None
    meta: dict = field(default_factory=dict)
    jpeg: bytes | None = None
    """`image` as the simulated camera already encoded it, where it did: written out as is, since
    encoding it again costs time and adds a second round of artefacts."""

    def to_dict(self) -> dict:
        h, w = self.image.shape[:2]
        return {"width": w, "height": h, "kind": self.kind, "set": self.set_max,
                "tiles": [t.to_dict() for t in self.tiles], "layout": self.layout, "meta": self.meta}


# ---------------------------------------------------------------------------- geometry

def tile_corners(p: Placement, w: float, length: float) -> np.ndarray:
    """Face corners on the plane in label order (end0-left, end0-right, end1-right, end1-left)."""
    local = np.array([[-w / 2, -length / 2], [w / 2, -length / 2], [w / 2, length / 2], [-w / 2, length / 2]], np.float32)
    c, s = np.cos(p.angle), np.sin(p.angle)
    rot = np.array([[c, -s], [s, c]], np.float32)
    return local @ rot.T + np.array([p.cx, p.cy], np.float32)


def _sprite_affine(p: Placement, sprite: Sprite) -> np.ndarray:
    """2x3 affine taking sprite pixels to plane pixels (sprite centre to placement centre)."""
    c, s = np.cos(p.angle), np.sin(p.angle)
    ox, oy = sprite.width / 2, sprite.length / 2
    return np.array([[c, -s, p.cx - (c * ox - s * oy)], [s, c, p.cy - (s * ox + c * oy)]], np.float32)


def quads_overlap(q1: np.ndarray, q2: np.ndarray, gap: float = 0.0) -> bool:
    """Separating-axis test for two convex quads; `gap` > 0 demands clearance."""
    for q in (q1, q2):
        for i in range(4):
            e = q[(i + 1) % 4] - q[i]
            n = np.array([-e[1], e[0]]) / (np.hypot(*e) + 1e-9)
            p1, p2 = q1 @ n, q2 @ n
            if p1.max() + gap <= p2.min() or p2.max() + gap <= p1.min():
                return False
    return True


def _apply_h(hm: np.ndarray, pts: np.ndarray) -> np.ndarray:
    pts = np.asarray(pts, np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(pts, hm).reshape(-1, 2)


# ---------------------------------------------------------------------------- arrangements (tile-width units)

def _random_tiles(rng: np.random.Generator, set_max: int, n: int) -> list[tuple[int, int]]:
    all_tiles = [(a, b) for a in range(set_max + 1) for b in range(a, set_max + 1)]
    idx = rng.choice(len(all_tiles), size=min(n, len(all_tiles)), replace=False)
    out = []
    for i in idx:
        a, b = all_tiles[i]
        out.append((a, b) if rng.random() < 0.5 else (b, a))
    return out


def arrange_hand(rng: np.random.Generator, n: int, ratio: float) -> tuple[list[tuple[float, float, float]], str]:
    """Centres and angles (tile-width units) for n tiles as people leave them on a table."""
    style = str(rng.choice(["loose", "grid", "block", "row", "heap", "touching"],
                           p=[0.2, 0.2, 0.15, 0.1, 0.1, 0.25]))
    L = ratio
    out: list[tuple[float, float, float]] = []
    if style in ("grid", "block") or (style == "row" and n > 12):
        # "block": tiles pushed together in rows, edge against edge, as people line up a hand;
        # the real photos the detector failed on most were such blocks (one box spanning two tiles)
        cols = int(rng.integers(1, min(n, 8) + 1)) if style != "row" else n
        if style == "block":
            cols = int(rng.integers(2, min(n, 6) + 1)) if n > 1 else 1
            gapx, gapy = rng.uniform(0, 0.03), rng.uniform(0, 0.03)
        else:
            gapx, gapy = rng.uniform(0, 0.25) * (rng.random() < 0.7), rng.uniform(0, 0.4) * (rng.random() < 0.6)
        vertical = rng.random() < 0.6
        for i in range(n):
            r, c = divmod(i, cols)
            x, y = c * (1 + gapx), r * (L + gapy)
            ang = rng.normal(0, 0.03)
            if not vertical:
                x, y = r * (L + gapy), c * (1 + gapx)
                ang += np.pi / 2
            out.append((x, y, ang + (np.pi if rng.random() < 0.5 else 0)))
    elif style == "row":
        gap = rng.uniform(0, 0.3)
        arc = rng.uniform(-0.08, 0.08)
        for i in range(n):
            out.append((i * (1 + gap), arc * (i - n / 2) ** 2, rng.normal(0, 0.05) + (np.pi if rng.random() < 0.5 else 0)))
    else:
        allow = {"loose": -0.3, "heap": 0.15, "touching": 0.0}[style]
        spread = np.sqrt(n) * (2.2 if style == "loose" else 1.5)
        quads: list[np.ndarray] = []
        for _ in range(n):
            for _attempt in range(60):
                if quads and style == "touching" and rng.random() < 0.8:
                    # snap against a placed tile: side by side or end to end, small jitter
                    j = int(rng.integers(0, len(out)))
                    x0, y0, a0 = out[j]
                    side = rng.random() < 0.6
                    off = (1.0 + rng.uniform(0, 0.06)) if side else (L + rng.uniform(0, 0.06))
                    sign = 1 if rng.random() < 0.5 else -1
                    slide = rng.uniform(-0.5, 0.5) * (L if side else 1)
                    ca, sa = np.cos(a0), np.sin(a0)
                    ux, uy = (ca, sa) if side else (-sa, ca)  # across / along the tile
                    vx, vy = (-sa, ca) if side else (ca, sa)
                    x = x0 + sign * off * ux + slide * vx
                    y = y0 + sign * off * uy + slide * vy
                    ang = a0 + rng.normal(0, 0.08) + (np.pi if rng.random() < 0.5 else 0)
                else:
                    x, y = rng.uniform(-spread, spread), rng.uniform(-spread, spread)
                    ang = rng.uniform(0, 2 * np.pi)
                q = tile_corners(Placement(x, y, ang, 0, 0), 1.0, L)
                shrink = q.mean(0) + (q - q.mean(0)) * (1 - max(allow, 0) - 0.02)
                if all(not quads_overlap(shrink, o, gap=max(-allow, 0) * 0.2) for o in quads):
                    break
            out.append((x, y, ang))
            quads.append(tile_corners(Placement(x, y, ang, 0, 0), 1.0, L))
    return out, style


# ---------------------------------------------------------------------------- the camera

@dataclass
class Camera:
    hm: np.ndarray  # plane -> image homography
    canvas_w: int
    canvas_h: int
    region: tuple[float, float, float, float]  # x0, y0, x1, y1 on the plane that is in view (inner box)


STEEP_DEGREES = (35.0, 62.0)
"""Range of a steep camera's angle off straight down (`random_camera(steep=True)`)."""


def random_camera(rng: np.random.Generator, w: int, h: int, tilt_max: float = 0.9, steep: bool = False) -> Camera:
    """Tilt widens the far edge of the visible trapezoid; corner jitter adds roll and keystone.

    The default camera looks nearly straight down: a tile at the middle of the picture is
    foreshortened by at most ~5 % (16 degrees), at the far edge ~20 %. `steep`: a phone held by
    someone seated at the table, 35-62 degrees off straight down: the table seen shortened to
    cos(angle) across the tilt besides a stronger keystone. (Real photos squashed so read 1.0 at
    45 degrees but exact tile 0.94 at 55 and 0.43 at 65 with the detector trained on the default
    camera alone; `scripts/stress_real.py`, models/README.md.)"""
    if steep:
        k = rng.uniform(0.3, 1.5)
        squash = float(np.cos(np.radians(rng.uniform(*STEEP_DEGREES))))
    else:
        k = 0.0 if rng.random() < 0.35 else rng.uniform(0, tilt_max)
        squash = 1.0
    wb, wt = w, w * (1 + k)
    ht = h * (1 + 0.5 * k) / squash
    margin = 0.04 * w
    cw, ch = int(wt + 2 * margin), int(ht + 2 * margin)
    cx = cw / 2
    top, bot = margin, margin + ht
    src = np.array([[cx - wt / 2, top], [cx + wt / 2, top], [cx + wb / 2, bot], [cx - wb / 2, bot]], np.float32)
    src += rng.normal(0, 0.02 * w, src.shape).astype(np.float32)
    dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    hm = cv2.getPerspectiveTransform(src, dst)
    return Camera(hm, cw, ch, (cx - wb / 2, top + 0.2 * k * ht, cx + wb / 2, bot))


# ---------------------------------------------------------------------------- rendering

def _composite(canvas: np.ndarray, rgba: np.ndarray, M: np.ndarray, idmask: np.ndarray | None, tid: int) -> None:
    """Alpha-blend a sprite warped by affine M into the canvas, only over its bounding box."""
    h, w = rgba.shape[:2]
    corners = np.array([[0, 0, 1], [w, 0, 1], [w, h, 1], [0, h, 1]], np.float32) @ M.T
    x0, y0 = np.floor(corners.min(0)).astype(int) - 1
    x1, y1 = np.ceil(corners.max(0)).astype(int) + 1
    H, W = canvas.shape[:2]
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(W, x1), min(H, y1)
    if x1 <= x0 or y1 <= y0:
        return
    Mt = M.copy()
    Mt[:, 2] -= (x0, y0)
    patch = cv2.warpAffine(rgba, Mt, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    a = patch[..., 3:4].astype(np.float32) / 255.0
    roi = canvas[y0:y1, x0:x1]
    roi[:] = roi * (1 - a) + patch[..., :3].astype(np.float32) * a
    if idmask is not None:
        idmask[y0:y1, x0:x1][a[..., 0] > 0.5] = tid


def render_scene(rng: np.random.Generator, placements: list[Placement], style: TileStyle, size: tuple[int, int],
                 tile_w_plane: float, camera: Camera, kind: str, set_max: int, hands: int = 0,
                 clutter: int = 0, plane_offset: tuple[float, float] = (0.0, 0.0)) -> Scene:
    """Draw placements (plane pixels, already scaled) seen through `camera`; returns image + labels."""
    W, H = size
    cw, ch = camera.canvas_w, camera.canvas_h
    canvas = surface(rng, ch, cw, tile_w_plane)
    idmask = np.full((ch, cw), -1, np.int32)
    light = rng.normal(0, 1, 2)
    light /= np.linalg.norm(light) + 1e-9
    if clutter:
        draw_clutter(canvas, rng, tile_w_plane, clutter)

    length = tile_w_plane * style.ratio
    sprites = [draw_tile(style, p.a, p.b, tile_w_plane, rng, p.face_down, tuple(light)) for p in placements]

    # soft or hard drop shadows, all cast by one light
    sigma = tile_w_plane * (rng.uniform(0.01, 0.04) if rng.random() < 0.4 else rng.uniform(0.06, 0.25))
    ds = 4 if sigma > 6 else 1  # soft shadows are low-frequency: blur them at quarter size
    shadow = np.zeros((ch // ds + (ds > 1), cw // ds + (ds > 1)), np.float32)
    sh_off = -light * tile_w_plane * rng.uniform(0.02, 0.25)
    for p in placements:
        q = (tile_corners(p, tile_w_plane, length) + sh_off) / ds
        cv2.fillConvexPoly(shadow, (q * 16).astype(np.int32), 1.0, cv2.LINE_AA, 4)
    shadow = cv2.GaussianBlur(shadow, (0, 0), max(0.5, sigma / ds))
    if ds > 1:
        shadow = cv2.resize(shadow, (cw, ch), interpolation=cv2.INTER_LINEAR)
    canvas *= (1 - rng.uniform(0.15, 0.55) * shadow)[..., None]

    # tile side (thickness), seen on the camera's side, then the face
    thick = np.array([rng.normal(0, 0.3), 1.0]) * style.thickness * tile_w_plane * rng.uniform(0.1, 0.6)
    side_rgb = np.array(style.side_rgb, np.float32)
    for i, (p, sp) in enumerate(zip(placements, sprites)):
        q = tile_corners(p, tile_w_plane, length)
        base = q + thick
        hull = cv2.convexHull(np.vstack([q, base]).astype(np.float32))
        cv2.fillConvexPoly(canvas, (hull * 16).astype(np.int32), (side_rgb * rng.uniform(0.85, 1.1)).tolist(), cv2.LINE_AA, 4)
        _composite(canvas, sp.rgba, _sprite_affine(p, sp), idmask, i)

    # glare on glossy faces
    if rng.random() < 0.45:
        for _ in range(int(rng.integers(1, 4))):
            gx, gy = rng.uniform(camera.region[0], camera.region[2]), rng.uniform(camera.region[1], camera.region[3])
            ax = int(tile_w_plane * rng.uniform(0.2, 1.5))
            pad = int(ax * 2.2) + 2
            x0, y0 = max(0, int(gx) - pad), max(0, int(gy) - pad)
            x1, y1 = min(cw, int(gx) + pad), min(ch, int(gy) + pad)
            if x1 <= x0 or y1 <= y0:
                continue
            blob = np.zeros((y1 - y0, x1 - x0), np.float32)
            cv2.ellipse(blob, (int(gx) - x0, int(gy) - y0), (ax, int(ax * rng.uniform(0.2, 1))), rng.uniform(0, 180), 0, 360, 1.0, -1)
            blob = cv2.GaussianBlur(blob, (0, 0), max(1.0, ax * 0.3))
            gain = np.where(idmask[y0:y1, x0:x1] >= 0, 1.0, 0.4).astype(np.float32)
            canvas[y0:y1, x0:x1] += (blob * rng.uniform(60, 255) * gain)[..., None]

    for _ in range(hands):
        ang = rng.uniform(0, 2 * np.pi)
        hx = rng.uniform(camera.region[0], camera.region[2])
        hy = rng.uniform(camera.region[1], camera.region[3])
        hand_mask = np.zeros((ch, cw), np.uint8)
        draw_hand(canvas, rng, hx, hy, tile_w_plane * rng.uniform(1.5, 3), ang, hand_mask)
        idmask[hand_mask > 0] = -2

    # global light: gradient, colour temperature, vignette
    grad = cv2.resize(rng.uniform(0.6, 1.25, (3, 3)).astype(np.float32), (cw, ch), interpolation=cv2.INTER_CUBIC)
    temp = rng.uniform(-0.15, 0.15)
    gains = np.array([1 - temp, 1.0, 1 + temp], np.float32) * rng.uniform(0.85, 1.15, 3).astype(np.float32)
    canvas = canvas * grad[..., None] * gains[None, None, :]

    img = cv2.warpPerspective(np.clip(canvas, 0, 255).astype(np.uint8), camera.hm, (W, H), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REFLECT)
    img = _camera_effects(rng, np.ascontiguousarray(img[..., ::-1]))  # RGB canvas -> BGR photo

    tiles: list[TileLabel] = []
    frame = np.array([[0, 0], [W, 0], [W, H], [0, H]], np.float32)
    for i, (p, sp) in enumerate(zip(placements, sprites)):
        q = tile_corners(p, tile_w_plane, length)
        corners = _apply_h(camera.hm, q).astype(np.float32)
        area = abs(cv2.contourArea(corners))
        inter, _ = cv2.intersectConvexConvex(corners, frame) if area > 0 else (0.0, None)
        in_frame = float(inter) / area if area > 0 else 0.0
        qi = np.clip(q.astype(int), 0, [cw - 1, ch - 1])
        x0, y0 = qi.min(0)
        x1, y1 = qi.max(0) + 1
        face = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillConvexPoly(face, (q - [x0, y0]).astype(np.int32), 1)
        total = max(1, int(face.sum()))
        unocc = float(((idmask[y0:y1, x0:x1] == i) & (face > 0)).sum()) / total
        M = _sprite_affine(p, sp)
        pts, hidden = [], 0
        for (x, y, r, half) in sp.pips:
            px, py = M @ np.array([x, y, 1.0])
            ix, iy = int(px), int(py)
            ok = 0 <= ix < cw and 0 <= iy < ch and idmask[iy, ix] == i
            ix_, iy_ = _apply_h(camera.hm, [[px, py]])[0]
            # radius in the image: scale of the homography near the pip
            ex = _apply_h(camera.hm, [[px + r, py]])[0]
            ri = float(np.hypot(*(ex - [ix_, iy_])))
            if ok and 0 <= ix_ < W and 0 <= iy_ < H:
                pts.append((float(ix_), float(iy_), ri, half))
            else:
                hidden += 1
        tiles.append(TileLabel(i, (p.a, p.b), corners, p.face_down, pts, hidden, in_frame * unocc, p.node))
    return Scene(img, tiles, kind, set_max)


def motion_blur(img: np.ndarray, length: int, degrees: float) -> np.ndarray:
    """The picture smeared along a line of `length` pixels at `degrees`: a hand that moved."""
    kern = np.zeros((length, length), np.float32)
    kern[length // 2, :] = 1.0 / length
    rot = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), degrees, 1.0)
    kern = cv2.warpAffine(kern, rot, (length, length))
    return cv2.filter2D(img, -1, kern / max(kern.sum(), 1e-6))


def _camera_effects(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """Lens, motion, sensor and compression: what turns a clean render into a phone photo."""
    h, w = img.shape[:2]
    out = img
    if rng.random() < 0.5:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.3, 1.6) * max(1.0, min(h, w) / 720))
    if rng.random() < 0.15:
        k = int(rng.integers(3, 12))
        out = motion_blur(out, k, rng.uniform(0, 180))
    if rng.random() < 0.3:  # resolution loss: a small sensor or digital zoom
        f = rng.uniform(0.35, 0.8)
        small = cv2.resize(out, (max(8, int(w * f)), max(8, int(h * f))), interpolation=cv2.INTER_AREA)
        out = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    out = out.astype(np.float32)
    gamma = rng.uniform(0.8, 1.25)
    out = 255.0 * (out / 255.0) ** gamma
    out = (out - 128) * rng.uniform(0.75, 1.2) + 128 + rng.uniform(-25, 25)
    if rng.random() < 0.7:
        sigma = rng.uniform(1, 9)
        noise = np.empty((h, w), np.float32)
        cv2.setRNGSeed(int(rng.integers(0, 2**31 - 1)))
        cv2.randn(noise, 0.0, sigma)
        out += noise[..., None]
        chroma = np.empty((h // 2, w // 2, 3), np.float32)
        cv2.randn(chroma, (0.0, 0.0, 0.0), (sigma * 0.5,) * 3)
        out += cv2.resize(chroma, (w, h), interpolation=cv2.INTER_NEAREST)
    out = np.clip(out, 0, 255).astype(np.uint8)
    for _ in range(1 + int(rng.random() < 0.3)):  # messengers re-compress phone JPEGs
        q = int(rng.integers(35, 96))
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


# ---------------------------------------------------------------------------- scene kinds

def _fit_to_region(cam: Camera, pts: np.ndarray, rng: np.random.Generator, tile_long_frac: float, ratio: float,
                   h: int) -> tuple[float, np.ndarray]:
    """Scale so a tile's long side is `tile_long_frac` of the image height; centre within the view."""
    tw = tile_long_frac * h / ratio
    x0, y0, x1, y1 = cam.region
    pts = pts * tw
    lo, hi = pts.min(0) - tw * ratio / 2, pts.max(0) + tw * ratio / 2
    span = hi - lo
    room = np.array([x1 - x0, y1 - y0])
    if (span > room).any():  # shrink to fit, most of the time; sometimes let it overflow the frame
        if rng.random() < 0.85:
            f = float(min(room / span)) * 0.95
            tw *= f
            pts *= f
            lo, hi = lo * f, hi * f
            span = hi - lo
    slack = room - span
    off = np.array([x0, y0]) - lo + np.where(slack > 0, rng.uniform(0, 1, 2) * slack, slack / 2)
    return tw, pts + off


def render_hand(rng: np.random.Generator, size: tuple[int, int] = (1280, 960), set_max: int | None = None,
                n: int | None = None, face: str | None = None, steep: bool = False) -> Scene:
    W, H = size
    set_max = int(set_max if set_max is not None else rng.choice(SUPPORTED_SETS, p=[0.3, 0.25, 0.25, 0.1, 0.1]))
    style = random_style(rng, set_max, face)
    if n is None:
        n = int(rng.choice([rng.integers(1, 5), rng.integers(4, 11), rng.integers(8, 22)], p=[0.3, 0.5, 0.2]))
    n_down = int(rng.binomial(n, 0.15)) if rng.random() < 0.3 else 0
    values = _random_tiles(rng, set_max, n)
    centres, arrangement = arrange_hand(rng, len(values), style.ratio)
    cam = random_camera(rng, W, H, steep=steep)
    pts = np.array([(x, y) for x, y, _ in centres], np.float64)
    frac = rng.uniform(0.12, 0.45) if len(values) <= 10 else rng.uniform(0.08, 0.25)
    tw, pts = _fit_to_region(cam, pts, rng, frac, style.ratio, H)
    rot = rng.uniform(0, 2 * np.pi)  # turn the whole arrangement about its centre
    c = pts.mean(0)
    R = np.array([[np.cos(rot), -np.sin(rot)], [np.sin(rot), np.cos(rot)]])
    pts_r = (pts - c) @ R.T + c
    span_ok = (pts_r.min(0) >= [cam.region[0], cam.region[1]]).all() and (pts_r.max(0) <= [cam.region[2], cam.region[3]]).all()
    if span_ok or rng.random() < 0.3:
        pts, extra = pts_r, rot
    else:
        extra = 0.0
    placements = []
    down_idx = set(rng.choice(len(values), size=n_down, replace=False).tolist()) if n_down else set()
    for i, ((a, b), (x, y), (_, _, ang)) in enumerate(zip(values, pts, centres)):
        placements.append(Placement(float(x), float(y), float(ang + extra), a, b, i in down_idx))
    scene = render_scene(rng, placements, style, size, tw, cam, "hand", set_max,
                         hands=int(rng.random() < 0.1), clutter=int(rng.integers(0, 4)) if rng.random() < 0.35 else 0)
    scene.meta = {"arrangement": arrangement, "tile_width_plane": round(tw, 2)}
    return scene
