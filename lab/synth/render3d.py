"""Render dominoes as 3D boxes on a table seen by a pinhole camera, with exact labels.

The flat renderer (`scene.py`) warps sprites with one homography, which is right for a
camera nearly above the table. A camera on a chair or a webcam across the table sees tile
side walls, standing racks, stacks and backs, tiles hiding each other and a bent (wide-angle)
lens; none of that comes out of a single homography. Here every tile is a box (width 1,
length = the set's ratio, thickness 0.25-0.33, all in tile widths), its faces are projected
through a camera with 10-90 degrees elevation and 65-100 degrees field of view, and drawn
far-to-near (painter's algorithm) in pure NumPy/OpenCV so it stays fast on a CPU. Rows of
standing tiles sometimes stand in players' racks (`props`); every box casts shadows on the table
and tall ones on the flat tiles beside them (`shadows`); glossy faces show the key light's streak.

Speed comes from doing each thing once where it can be shared: a set's blank faces and each
value's half are drawn once per scene and width (`tileface.FaceSprites`), table surfaces and
sensor noise once per process (`surfacepool`, `_noise_bank`), lighting on the small sprite
rather than on its footprint in the picture, and the background at half size. Per-process
caches depend only on fixed seeds, so a scene is the same whichever worker renders it.

Labels follow `scene.TileLabel` (corners of the broad face the camera sees, pips, face_down,
visible fraction from an id buffer) plus the tile's pose, so training can keep or drop poses.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import math

import cv2
import numpy as np

from engine.tiles import SUPPORTED_SETS

from .background import draw_clutter, draw_hand, value_noise
from .scene import Scene, TileLabel, _random_tiles, arrange_hand, motion_blur
from .props import RACK, Prop, draw_prop, rack_slot, random_rack_look
from .shadows import CastShadows
from .surfacepool import table_texture
from .tileface import FaceSprites, Sprite, TileStyle, random_style

POSES = ("flat_up", "flat_down", "stand_toward", "stand_away", "lean_toward", "lean_away", "stack_up", "stack_down")
"""Pose classes: how a tile rests and whether its pip face or its back is toward the camera."""
READABLE_POSES = ("flat_up", "stand_toward", "lean_toward", "stack_up")

ELEVATION = (10.0, 90.0)
"""Camera elevation above the table plane, degrees: a webcam across the table to straight down."""
LOW_ELEVATION = (10.0, 45.0)
"""`steep=True`: someone seated at the table or a webcam, never from above."""
FOV = (65.0, 100.0)
"""Horizontal field of view of the undistorted pinhole, degrees: phone main camera to wide webcam."""


# ---------------------------------------------------------------------------- data

@dataclass
class Box:
    """A tile in the world (z up, units of tile widths). Axes: v runs end 0 -> end 1, n is the
    pip face's outward normal, r = n x v is the face's 'right' as seen from outside."""

    centre: np.ndarray  # (3,)
    v: np.ndarray
    n: np.ndarray
    length: float
    thick: float
    a: int
    b: int
    group: str = "loose"  # loose, rack, stack, layout
    level: int = 0  # 0 on the table, 1.. on top of another tile
    node: int | None = None
    base: tuple[float, float] | None = None  # where a stack stands (its bottom tile's centre)

    @property
    def r(self) -> np.ndarray:
        return _cross(self.n, self.v)

    def face_quad(self, back: bool = False) -> np.ndarray:
        """(4, 3) corners of the pip face (or back) in sprite order: end0-left, end0-right,
        end1-right, end1-left, 'left/right' as seen from outside that face (no mirroring)."""
        n = -self.n if back else self.n
        r = _cross(n, self.v)
        c = self.centre + n * self.thick / 2
        hl = self.v * self.length / 2
        return np.array([c - r / 2 - hl, c + r / 2 - hl, c + r / 2 + hl, c - r / 2 + hl])

    def corners(self) -> np.ndarray:
        """(8, 3) box corners: the four face corners then the four back corners below them."""
        f = self.face_quad()
        return np.vstack([f, f - self.n * self.thick])

    def footprint(self) -> np.ndarray:
        """Convex hull of the box on the table plane (x, y)."""
        return cv2.convexHull(self.corners()[:, :2].astype(np.float32)).reshape(-1, 2)


def _cross(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Cross product of two 3-vectors (np.cross costs more than the arithmetic on 3 numbers)."""
    return np.array([p[1] * q[2] - p[2] * q[1], p[2] * q[0] - p[0] * q[2], p[0] * q[1] - p[1] * q[0]])


@dataclass
class PinholeCamera:
    """World -> image: rotation rows (right, down, forward), centre, focal, principal point,
    and a radial lens (`k1`, `k2`) applied to the output image after rendering."""

    R: np.ndarray
    C: np.ndarray
    f: float  # output focal length, pixels
    size: tuple[int, int]  # output W, H
    k1: float = 0.0
    k2: float = 0.0
    elevation: float = 45.0
    azimuth: float = 0.0
    fov: float = 70.0
    # the undistorted canvas the scene is drawn on before the lens bends it
    canvas_size: tuple[int, int] = (0, 0)
    canvas_f: float = 0.0

    def to_cam(self, P: np.ndarray) -> np.ndarray:
        return (np.asarray(P, np.float64) - self.C) @ self.R.T

    def project(self, P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Canvas pixels and depth of world points (depth <= 0: behind the camera)."""
        pc = self.to_cam(P)
        z = pc[:, 2]
        zs = np.where(np.abs(z) < 1e-6, 1e-6, z)
        cw, ch = self.canvas_size
        uv = np.stack([self.canvas_f * pc[:, 0] / zs + cw / 2, self.canvas_f * pc[:, 1] / zs + ch / 2], 1)
        return uv, z

    def ground_homography(self) -> np.ndarray:
        """Table plane (world x, y, z=0) -> canvas pixels."""
        cw, ch = self.canvas_size
        K = np.array([[self.canvas_f, 0, cw / 2], [0, self.canvas_f, ch / 2], [0, 0, 1]])
        return K @ np.column_stack([self.R[:, 0], self.R[:, 1], -self.R @ self.C])

    def _lens(self, r2: np.ndarray) -> np.ndarray:
        return 1 + self.k1 * r2 + self.k2 * r2 * r2

    def canvas_to_image(self, uv: np.ndarray) -> np.ndarray:
        """Undistorted canvas pixels -> output (lens-bent) pixels; inverts the lens by iteration."""
        uv = np.asarray(uv, np.float64).reshape(-1, 2)
        cw, ch = self.canvas_size
        xu = (uv - [cw / 2, ch / 2]) / self.canvas_f
        xd = xu.copy()
        for _ in range(8):
            xd = xu / self._lens((xd ** 2).sum(1))[:, None]
        W, H = self.size
        return xd * self.f + [W / 2, H / 2]

    def image_to_canvas(self, uv: np.ndarray) -> np.ndarray:
        uv = np.asarray(uv, np.float64).reshape(-1, 2)
        W, H = self.size
        xd = (uv - [W / 2, H / 2]) / self.f
        xu = xd * self._lens((xd ** 2).sum(1))[:, None]
        cw, ch = self.canvas_size
        return xu * self.canvas_f + [cw / 2, ch / 2]

    @property
    def bent(self) -> bool:
        return self.k1 != 0 or self.k2 != 0 or self.canvas_size != self.size

    def to_dict(self) -> dict:
        return {"elevation": round(self.elevation, 2), "azimuth": round(self.azimuth, 2), "fov": round(self.fov, 2),
                "k1": round(self.k1, 4), "k2": round(self.k2, 4), "position": np.round(self.C, 3).tolist()}


@dataclass
class Lights:
    """One or two directional lights (unit vectors toward the light) and ambient; each casts a shadow,
    the second a fainter one; the first is the one glossy plastic mirrors."""

    dirs: list[np.ndarray]
    power: list[float]
    ambient: float
    gloss: float  # specular strength of the plastic

    def _raw(self, n) -> float:
        return self.ambient + sum(p * max(0.0, n[0] * d[0] + n[1] * d[1] + n[2] * d[2])
                                  for d, p in zip(self.dirs, self.power))

    def shade(self, normal: np.ndarray) -> float:
        """Lambert brightness relative to a face pointing straight up, so top faces keep their colour.
        (Plain float arithmetic: it runs for every face of every tile.)"""
        up = self.ambient + sum(p * max(0.0, float(d[2])) for d, p in zip(self.dirs, self.power))
        return min(1.2, max(0.3, self._raw(normal) / up))

    def specular(self, normal: np.ndarray, to_eye: np.ndarray) -> float:
        if self.gloss <= 0:
            return 0.0
        e = to_eye / (math.sqrt(float(to_eye @ to_eye)) + 1e-9)
        h = self.dirs[0] + e
        h /= math.sqrt(float(h @ h)) + 1e-9
        return self.gloss * max(0.0, float(normal @ h)) ** 40


@dataclass
class TileLabel3D(TileLabel):
    """A `TileLabel` plus how the tile rests: its pose class, stack level and group (rack, stack...)."""

    pose: str = "flat_up"
    level: int = 0
    group: str = "loose"

    @property
    def readable(self) -> bool:
        return not self.face_down

    def to_dict(self) -> dict:
        return {**super().to_dict(), "pose": self.pose, "level": self.level, "group": self.group}


# ---------------------------------------------------------------------------- poses

def _heading(phi: float) -> np.ndarray:
    return np.array([np.cos(phi), np.sin(phi), 0.0])


def _rest_on(box: Box, base_z: float) -> Box:
    """Lift or lower the box so its lowest corner touches height `base_z`."""
    box.centre = box.centre + [0, 0, base_z - box.corners()[:, 2].min()]
    return box


def flat_box(x: float, y: float, phi: float, up: bool, length: float, thick: float, a: int, b: int,
             base_z: float = 0.0, **kw) -> Box:
    """Lying on the table (or on another tile at `base_z`), pip face up or down."""
    n = np.array([0.0, 0.0, 1.0 if up else -1.0])
    return _rest_on(Box(np.array([x, y, 0.0]), _heading(phi), n, length, thick, a, b, **kw), base_z)


def standing_box(x: float, y: float, phi: float, facing: np.ndarray, lean: float, length: float, thick: float,
                 a: int, b: int, base_z: float = 0.0, **kw) -> Box:
    """On its long edge (on the table, or on a rack's tray at `base_z`), pip face toward horizontal
    direction `facing`, tipped back by `lean` radians (the face turned up, as against a rack's wall)."""
    v = _heading(phi)
    nh = np.asarray(facing, np.float64) - v * float(np.dot(facing, v))
    nh[2] = 0.0
    nh /= np.linalg.norm(nh) + 1e-9
    n = nh * np.cos(lean) + np.array([0, 0, 1.0]) * np.sin(lean)
    return _rest_on(Box(np.array([x, y, 0.0]), v, n, length, thick, a, b, **kw), base_z)


def pose_of(box: Box, eye: np.ndarray, stacked_on: bool) -> tuple[str, bool]:
    """Pose class and whether the back (not the pip face) is the broad side toward the camera."""
    back = bool(float(box.n @ (eye - box.centre)) < 0)
    if abs(box.n[2]) > 0.9:
        down = bool(box.n[2] < 0)
        if box.level > 0 or stacked_on:
            return ("stack_down" if down else "stack_up"), down
        return ("flat_down" if down else "flat_up"), down
    lean = abs(box.n[2]) > 0.05
    return f"{'lean' if lean else 'stand'}_{'away' if back else 'toward'}", back


# ---------------------------------------------------------------------------- arrangements (world, tile widths)

def _convex_overlap(p: np.ndarray, q: np.ndarray, gap: float = 0.0) -> bool:
    """Separating-axis test for convex polygons of any vertex count."""
    for poly in (p, q):
        for i in range(len(poly)):
            e = poly[(i + 1) % len(poly)] - poly[i]
            nrm = np.array([-e[1], e[0]]) / (np.hypot(*e) + 1e-9)
            a, b = p @ nrm, q @ nrm
            if a.max() + gap <= b.min() or b.max() + gap <= a.min():
                return False
    return True


def _fits(box: Box, placed: list[np.ndarray], gap: float = 0.02) -> bool:
    fp = box.footprint()
    return all(not _convex_overlap(fp, o, gap) for o in placed)


@dataclass
class Arrangement:
    boxes: list[Box]
    style: str
    extras: dict = field(default_factory=dict)
    props: list[Prop] = field(default_factory=list)


RACK_HOLDER_P = 0.6
"""Chance that a row of standing tiles stands in a rack (tray, lip, back wall) rather than free."""


def arrange_3d(rng: np.random.Generator, values: list[tuple[int, int]], ratio: float, thick: float,
               toward_camera: np.ndarray) -> Arrangement:
    """A hand on a table in 3D: flat tiles (the flat renderer's arrangements), a rack of standing
    tiles facing the camera's player, a rack seen from behind, stacks, a few standing or leaning
    strays. `toward_camera`: horizontal unit vector from the scene toward the camera."""
    n = len(values)
    todo = list(values)
    boxes: list[Box] = []
    placed: list[np.ndarray] = []
    side = np.array([-toward_camera[1], toward_camera[0], 0.0])
    extras: dict = {}
    props: list[Prop] = []

    n_near = int(rng.integers(3, min(n, 12) + 1)) if n >= 3 and rng.random() < 0.45 else 0
    n_far = int(rng.integers(3, min(n - n_near, 10) + 1)) if n - n_near >= 3 and rng.random() < 0.3 else 0
    n_stack = int(rng.integers(2, 4)) if n - n_near - n_far >= 3 and rng.random() < 0.35 else 0
    n_flat = n - n_near - n_far - n_stack

    # flat tiles: reuse the flat renderer's arrangements (loose, grid, block, row, touching...)
    if n_flat > 0:
        centres, style = arrange_hand(rng, n_flat, ratio)
        down_p = 0.15 if rng.random() < 0.4 else 0.0
        rot = rng.uniform(0, 2 * np.pi)
        cr, sr = np.cos(rot), np.sin(rot)
        ctr = np.mean([(x, -y) for x, y, _ in centres], 0)
        for x, y, ang in centres:
            a, b = todo.pop()
            wx, wy = x - ctr[0], -y - ctr[1]  # plane y runs down the picture, world y away from it
            wx, wy = cr * wx - sr * wy, sr * wx + cr * wy
            phi = float(np.arctan2(-np.cos(ang), -np.sin(ang))) + rot
            up = rng.random() >= down_p
            box = flat_box(wx, wy, phi, up, ratio, thick, a, b)
            if _fits(box, placed, gap=-0.03):  # heaps would interpenetrate: the later tile is left out
                boxes.append(box)
                placed.append(box.footprint())
        extras["flat"] = style
    spread = max([np.abs(p).max() for p in placed], default=1.0) + ratio

    def rack(k: int, facing: np.ndarray, offset: float, lean: float, name: str) -> None:
        holder = random_rack_look(rng) if rng.random() < RACK_HOLDER_P else None
        gap = rng.uniform(0.0, 0.15) if holder is None else rng.uniform(0.02, 0.08)
        tilt = rng.normal(0, 0.05) if holder is None else 0.0
        jitter = 0.04 if holder is None else 0.0  # a holder keeps its tiles in line
        if holder is not None and lean == 0.0:
            lean = rng.uniform(0.15, 0.35)  # tiles in a holder lean on its wall
        start = -(k - 1) * (ratio + gap) / 2
        before = len(placed)  # a holder's slots abut: each is checked against what was there before the rack
        for i in range(k):
            a, b = todo.pop()
            along = start + i * (ratio + gap)
            # the row runs across the view, a little skewed; near racks between camera and tiles
            pos = toward_camera * (offset * (1 if name == "near" else -1) + tilt * along) + side * along
            phi = float(np.arctan2(side[1], side[0])) + rng.normal(0, jitter)
            base_z = 0.0 if holder is None else RACK.tray_height
            box = standing_box(pos[0], pos[1], phi, facing, lean + rng.normal(0, 0.03) * (lean > 0), ratio, thick,
                               a, b, base_z=base_z, group="rack")
            slot = [] if holder is None else rack_slot(box.corners(), side, facing, ratio + gap, holder)
            slot_shapes = [p.footprint() for p in slot]
            clear = all(not _convex_overlap(f, o, 0.02) for f in slot_shapes for o in placed[:before])
            if clear and _fits(box, placed):
                boxes.append(box)
                props.extend(slot)
                placed.extend([box.footprint()] + slot_shapes)
        if holder is not None:
            extras[f"{name}_holder"] = True

    if n_near:
        lean = rng.uniform(0.1, 0.45) if rng.random() < 0.5 else 0.0
        rack(n_near, toward_camera, spread + rng.uniform(0.5, 2.0), lean, "near")
        extras["near_rack"] = n_near
    if n_far:
        lean = rng.uniform(0.1, 0.45) if rng.random() < 0.5 else 0.0
        rack(n_far, -toward_camera, spread + rng.uniform(0.5, 2.5), lean, "far")
        extras["far_rack"] = n_far
    if n_stack:
        for _ in range(40):
            x, y = rng.uniform(-spread, spread, 2)
            phi = rng.uniform(0, 2 * np.pi)
            base = flat_box(x, y, phi, rng.random() < 0.3, ratio, thick, 0, 0)
            if _fits(base, placed, 0.05):
                break
        else:
            base = None
        if base is not None:
            placed.append(base.footprint())
            z = 0.0
            for lvl in range(n_stack):
                a, b = todo.pop()
                up = rng.random() < (0.3 if lvl == 0 else 0.5)
                box = flat_box(x + rng.normal(0, 0.05), y + rng.normal(0, 0.05), phi + rng.normal(0, 0.06), up, ratio,
                               thick, a, b, base_z=z, group="stack", level=lvl, base=(x, y))
                boxes.append(box)
                z = box.corners()[:, 2].max()
            extras["stack"] = n_stack
    # what is left: strays standing, leaning or flat, anywhere around
    while todo:
        a, b = todo.pop()
        for _ in range(30):
            x, y = rng.uniform(-spread * 1.2, spread * 1.2, 2)
            phi = rng.uniform(0, 2 * np.pi)
            kind = rng.random()
            if kind < 0.5:
                box = flat_box(x, y, phi, rng.random() < 0.8, ratio, thick, a, b)
            else:
                facing = _heading(rng.uniform(0, 2 * np.pi))
                lean = rng.uniform(0.1, 0.6) if kind > 0.75 else 0.0
                box = standing_box(x, y, phi, facing, lean, ratio, thick, a, b)
            if _fits(box, placed, 0.05):
                boxes.append(box)
                placed.append(box.footprint())
                break
    return Arrangement(boxes, extras.get("flat", "racks"), extras, props)


# ---------------------------------------------------------------------------- camera

def look_at_camera(rng: np.random.Generator, size: tuple[int, int], elevation: float, azimuth: float, fov: float,
                   target: np.ndarray, distance: float, roll: float, k1: float, k2: float) -> PinholeCamera:
    """A camera `distance` from `target`, `elevation` degrees above the table, looking along `azimuth`."""
    W, H = size
    e, az = np.radians(elevation), np.radians(azimuth)
    fwd = np.array([np.cos(e) * np.cos(az), np.cos(e) * np.sin(az), -np.sin(e)])
    right = np.array([np.sin(az), -np.cos(az), 0.0])
    down = np.cross(fwd, right)
    cr, sr = np.cos(roll), np.sin(roll)
    right, down = cr * right + sr * down, -sr * right + cr * down
    R = np.vstack([right, down, fwd])
    f = (max(W, H) / 2) / np.tan(np.radians(fov) / 2)
    cam = PinholeCamera(R, target - fwd * distance, f, size, k1, k2, elevation, azimuth, fov, size, f)
    # the canvas must hold every point the lens pulls into the frame; beyond 1.2x it is drawn smaller
    border = np.array([[0, 0], [W / 2, 0], [W, 0], [W, H / 2], [W, H], [W / 2, H], [0, H], [0, H / 2]], np.float64)
    xd = (border - [W / 2, H / 2]) / f
    xu = xd * cam._lens((xd ** 2).sum(1))[:, None]
    need = np.abs(xu).max(0) * f * 2 + 4  # canvas W, H at the output's focal length
    scale = min(1.0, 1.2 * max(W, H) / need.max())
    cam.canvas_f = f * scale
    cam.canvas_size = (int(np.ceil(need[0] * scale)), int(np.ceil(need[1] * scale)))
    if k1 == 0 and k2 == 0:
        cam.canvas_size = (W, H)
    return cam


def random_camera_3d(rng: np.random.Generator, size: tuple[int, int], low: bool = False) -> dict:
    """Elevation, azimuth, field of view, roll and lens, drawn; the distance is fitted later."""
    elev = rng.uniform(*(LOW_ELEVATION if low else ELEVATION))
    if not low and rng.random() < 0.5:  # seated players and webcams are the point: weight low views
        elev = rng.uniform(*LOW_ELEVATION)
    fov = rng.uniform(*FOV)
    wide = (fov - FOV[0]) / (FOV[1] - FOV[0])
    lens = rng.random()
    # phones straighten their pictures; wide webcams mostly do not (barrel), a few bend inward
    k1 = 0.0 if lens < 0.3 else rng.uniform(0.0, 0.05 + 0.2 * wide) if lens < 0.85 else rng.uniform(-0.04, 0.0)
    k2 = rng.uniform(0.0, 0.03) * wide if k1 > 0 else 0.0
    return {"elevation": float(elev), "azimuth": float(rng.uniform(0, 360)), "fov": float(fov),
            "roll": float(rng.normal(0, np.radians(3))), "k1": float(k1), "k2": float(k2)}


def fit_camera(rng: np.random.Generator, size: tuple[int, int], params: dict, points: np.ndarray,
               fill: float) -> PinholeCamera:
    """Move the camera back along its view ray until `points` (world) span `fill` of the frame."""
    target = np.array([*points[:, :2].mean(0), 0.0]) + np.r_[rng.normal(0, 0.5, 2), 0.0]
    dist = 10.0
    W, H = size
    for _ in range(10):
        cam = look_at_camera(rng, size, params["elevation"], params["azimuth"], params["fov"], target, dist,
                             params["roll"], 0.0, 0.0)
        uv, z = cam.project(points)
        if (z <= 0.3).any():
            dist *= 1.5
            continue
        span = np.abs((uv - [W / 2, H / 2]) / [W / 2, H / 2]).max()
        dist *= float(np.clip(span / fill, 0.4, 2.5))
    return look_at_camera(rng, size, params["elevation"], params["azimuth"], params["fov"], target, dist,
                          params["roll"], params["k1"], params["k2"])


def random_gloss(rng: np.random.Generator, lights: Lights) -> Gloss:
    """The streak a long lamp or window leaves on glossy faces (none where the plastic is matte)."""
    a = rng.uniform(0, 2 * np.pi)
    return Gloss(np.array([np.cos(a), np.sin(a), 0.0]), float(rng.uniform(0.1, 0.35)), float(rng.uniform(1.0, 6.0)),
                 float(lights.gloss * rng.uniform(0.5, 1.0)))


def random_lights(rng: np.random.Generator) -> Lights:
    dirs, power = [], []
    for k in range(1 + int(rng.random() < 0.5)):
        el, az = np.radians(rng.uniform(30, 80)), rng.uniform(0, 2 * np.pi)
        dirs.append(np.array([np.cos(el) * np.cos(az), np.cos(el) * np.sin(az), np.sin(el)]))
        power.append(rng.uniform(0.5, 0.9) * (1 if k == 0 else 0.5))
    return Lights(dirs, power, float(rng.uniform(0.3, 0.55)), float(rng.uniform(0, 0.6) if rng.random() < 0.6 else 0))


# ---------------------------------------------------------------------------- background

def _clip_near(pc: np.ndarray, near: float = 0.05) -> np.ndarray:
    """Sutherland-Hodgman clip of a camera-space polygon to depth >= near."""
    out = []
    for i in range(len(pc)):
        p, q = pc[i], pc[(i + 1) % len(pc)]
        pin, qin = p[2] >= near, q[2] >= near
        if pin:
            out.append(p)
        if pin != qin:
            t = (near - p[2]) / (q[2] - p[2])
            out.append(p + t * (q - p))
    return np.array(out)


def draw_table(rng: np.random.Generator, cam: PinholeCamera, focus: np.ndarray, clutter: int,
               shade: CastShadows | None = None) -> np.ndarray:
    """The canvas background: a finite table with a surface from the process's pool
    (`surfacepool`), the boxes' shadows drawn on it (`shade`), a room wall beyond it."""
    cw, ch = cam.canvas_size
    # wall: a soft gradient with blotches; only seen from low cameras
    wall_rgb = np.array(rng.uniform(40, 220, 3), np.float32) * rng.uniform(0.5, 1.0)
    small = wall_rgb * (1 + 0.25 * value_noise(rng, 12, 16, 3, 2)[..., None])
    small *= np.linspace(0.8, 1.1, 12, dtype=np.float32)[:, None, None]
    wall = np.clip(small, 0, 255).astype(np.uint8)

    # the table: a rectangle around the tiles that ends some way behind them
    half = np.array(rng.uniform(12, 30, 2))
    centre = focus[:2] + rng.normal(0, 3, 2)
    x0, y0, x1, y1 = *(centre - half), *(centre + half)
    poly = np.array([[x0, y0, 0], [x1, y0, 0], [x1, y1, 0], [x0, y1, 0]], np.float64)
    clipped = _clip_near(cam.to_cam(poly))
    if len(clipped) < 3:
        return cv2.resize(wall, (cw, ch), interpolation=cv2.INTER_LINEAR)
    # texture only the part of the table the camera can see, at a resolution the far side needs
    Hg = cam.ground_homography()
    grid = np.array([[u, v] for u in np.linspace(0, cw, 9) for v in np.linspace(0, ch, 7)], np.float64)
    w = grid @ np.linalg.inv(Hg)[:, :2].T + np.linalg.inv(Hg)[:, 2]
    ok = w[:, 2] > 1e-9
    pts = w[ok, :2] / w[ok, 2:3] if ok.any() else np.zeros((0, 2))
    if len(pts):
        vx0, vy0 = np.maximum(pts.min(0), [x0, y0])
        vx1, vy1 = np.minimum(pts.max(0), [x1, y1])
        if vx1 > vx0 and vy1 > vy0:
            x0, y0, x1, y1 = vx0, vy0, vx1, vy1
    ppw = float(min(40.0, 640.0 / max(x1 - x0, y1 - y0)))
    tw_, th_ = max(8, int((x1 - x0) * ppw)), max(8, int((y1 - y0) * ppw))
    A = np.array([[1 / ppw, 0, x0], [0, -1 / ppw, y1], [0, 0, 1]])  # texture row 0 at the table's far y
    _, tex = table_texture(rng, (tw_, th_), ppw)
    if clutter:
        draw_clutter(tex, rng, ppw, clutter)
    # lamp light falls off across the table (done on the small texture, not the photo: cheaper)
    falloff = cv2.resize(rng.uniform(0.65, 1.2, (3, 3)).astype(np.float32), (tw_, th_), interpolation=cv2.INTER_CUBIC)
    if shade is not None:  # shadows lie on the table's surface: drawn there, they cost a small texture's work
        falloff *= shade.on_table(np.linalg.inv(A), (tw_, th_), ppw)
    tex = cv2.multiply(tex, cv2.merge([falloff] * 3), dtype=cv2.CV_8U)
    # table and wall are put together at half size and enlarged once: the surface texture is
    # softer than that anyway, and full-size warps and copies were the background's largest cost
    hw, hh = (cw + 1) // 2, (ch + 1) // 2
    to_half = np.array([[0.5, 0, -0.25], [0, 0.5, -0.25], [0, 0, 1]])  # pixel centres: (x + 0.5) / 2 - 0.5
    warped = cv2.warpPerspective(tex, to_half @ Hg @ A, (hw, hh), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REFLECT)
    uv = clipped[:, :2] / clipped[:, 2:3] * cam.canvas_f + [cw / 2, ch / 2]
    hull = uv.astype(np.float32).reshape(-1, 1, 2)
    view = ((0.0, 0.0), (float(cw), 0.0), (float(cw), float(ch)), (0.0, float(ch)))
    if not all(cv2.pointPolygonTest(hull, pt, False) >= 0 for pt in view):  # the wall shows beyond the table
        half = cv2.resize(wall, (hw, hh), interpolation=cv2.INTER_LINEAR)
        mask = np.zeros((hh, hw), np.uint8)
        cv2.fillPoly(mask, [np.round(((uv + 0.5) / 2 - 0.5) * 16).astype(np.int32)], 255, cv2.LINE_8, 4)
        cv2.copyTo(warped, mask, half)
        warped = half
    return cv2.resize(warped, (cw, ch), interpolation=cv2.INTER_LINEAR)


# ---------------------------------------------------------------------------- the tiles

ID_OTHER = 100000  # id-buffer offset for a tile's walls and back (its labelled face is its index)
NEXT = [1, 2, 3, 0]
"""Each corner of a face's four, the next one round."""
BACK_ORDER = [5, 4, 7, 6]
"""`Box.corners` indices of the back in sprite order (as `Box.face_quad(back=True)`)."""


def _paint_poly(canvas: np.ndarray, idbuf: np.ndarray, uv: np.ndarray, colour, ident: int,
                edge: tuple | None, edge_w: int) -> None:
    pts = np.round(uv * 16).astype(np.int32)
    cv2.fillConvexPoly(canvas, pts, colour, cv2.LINE_AA, 4)
    cv2.fillConvexPoly(idbuf, np.round(uv).astype(np.int32), ident)
    if edge is not None:
        cv2.polylines(canvas, [pts], True, edge, edge_w, cv2.LINE_AA, 4)


@dataclass
class Gloss:
    """A long lamp or window mirrored in glossy plastic: a soft streak on the faces where the key
    light's reflection reaches the eye. The streak's centre is where the mirror ray meets the
    face's plane, so flat tiles side by side share one streak, as on a real table."""

    axis: np.ndarray  # horizontal world direction the streak runs along
    width: float  # standard deviation across the streak, tile widths
    length: float  # standard deviation along it, tile widths
    strength: float  # share of full white added at its centre

    def streak(self, quad: np.ndarray, n: np.ndarray, eye: np.ndarray, light: np.ndarray, w: int,
               length: int) -> np.ndarray | None:
        """(length, w) float32 highlight over a face's sprite (`quad`: its world corners in sprite
        order), or None where the reflection misses it."""
        if self.strength <= 0:
            return None
        m = light - 2 * float(light @ n) * n  # from the eye along m, the face mirrors the light
        mn = float(m @ n)
        if abs(mn) < 1e-6:
            return None
        t = float((quad[0] - eye) @ n) / mn
        if t <= 0:
            return None
        centre = eye + t * m
        mid = quad.mean(0)
        if np.linalg.norm(centre - mid) > 3 * max(self.width, self.length) + 1.5:
            return None
        e = self.axis - float(self.axis @ n) * n
        if np.linalg.norm(e) < 1e-3:
            e = quad[1] - quad[0]
        e = e / np.linalg.norm(e)
        f = _cross(n, e)
        eu, ev = (quad[1] - quad[0]) / w, (quad[3] - quad[0]) / length
        d0 = quad[0] - centre
        xs = np.arange(w, dtype=np.float32) + 0.5
        ys = np.arange(length, dtype=np.float32)[:, None] + 0.5
        along = float(d0 @ e) + xs * float(eu @ e) + ys * float(ev @ e)
        across = float(d0 @ f) + xs * float(eu @ f) + ys * float(ev @ f)
        g = np.exp(-0.5 * ((across / self.width) ** 2 + (along / self.length) ** 2)) * self.strength
        return g.astype(np.float32) if g.max() > 0.01 else None


def _lit(sprite: Sprite, gain: float, spec: float, streak: np.ndarray | None) -> np.ndarray:
    """The sprite under the scene's light: Lambert gain, specular sheen and a glossy streak, done
    on the small sprite rather than on its footprint in the picture."""
    rgb = sprite.rgba[..., :3].astype(np.float32) * gain + spec * 255
    if streak is not None:
        rgb += streak[..., None] * 255
    return np.dstack([np.clip(rgb, 0, 255).astype(np.uint8), sprite.rgba[..., 3]])


def _paint_sprite(canvas: np.ndarray, idbuf: np.ndarray, sprite: Sprite, rgba: np.ndarray, uv: np.ndarray,
                  ident: int) -> np.ndarray | None:
    """Warp a lit face sprite (`rgba`, the size of `sprite`) onto its projected quad, only over the
    quad's bounding box; returns the sprite -> canvas homography (for pips)."""
    ch, cw = canvas.shape[:2]
    x0, y0 = np.maximum(np.floor(uv.min(0)).astype(int) - 1, 0)
    x1, y1 = np.minimum(np.ceil(uv.max(0)).astype(int) + 2, [cw, ch])
    src = np.array([[0, 0], [sprite.width, 0], [sprite.width, sprite.length], [0, sprite.length]], np.float32)
    hm = cv2.getPerspectiveTransform(src, uv.astype(np.float32))
    if x1 <= x0 or y1 <= y0:
        return hm
    T = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64)
    patch = cv2.warpPerspective(rgba, T @ hm, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_CONSTANT)
    a = patch[..., 3].astype(np.float32)
    roi = canvas[y0:y1, x0:x1]
    roi[:] = cv2.blendLinear(np.ascontiguousarray(patch[..., :3]), roi, a, 255 - a)
    cv2.fillConvexPoly(idbuf, np.round(uv).astype(np.int32), ident)
    return hm


@dataclass
class DrawnFace:
    """What labelling needs about the broad face a tile shows the camera."""

    uv: np.ndarray  # (4, 2) canvas corners in sprite order
    hm: np.ndarray | None  # sprite -> canvas
    sprite: Sprite
    back: bool


def draw_boxes(rng: np.random.Generator, canvas: np.ndarray, idbuf: np.ndarray, cam: PinholeCamera,
               boxes: list[Box], style: TileStyle, lights: Lights, gloss: Gloss | None = None,
               all_corners: np.ndarray | None = None, props: list[Prop] | None = None) -> dict[int, DrawnFace]:
    """Painter's algorithm: stacks, tiles and props (racks) far to near, lower levels first; per box
    its walls, then the broad face it shows (a convex box's visible faces never overlap each other).
    `all_corners`: the boxes' (N, 8, 3) corners when the caller has them already."""
    ch, cw = canvas.shape[:2]
    body = np.array(style.body, np.float64) * rng.uniform(0.85, 1.0)
    back_body = np.array(style.back_rgb, np.float64)
    if all_corners is None:
        all_corners = np.array([b.corners() for b in boxes]).reshape(-1, 8, 3)
    uv_boxes, z_boxes = cam.project(all_corners.reshape(-1, 3))
    uv_boxes, z_boxes = uv_boxes.reshape(-1, 8, 2), z_boxes.reshape(-1, 8)

    props = props or []
    n = len(boxes)

    def depth(i: int) -> tuple[float, int]:
        # a stack is drawn where its bottom tile is, bottom up, so jitter cannot reorder its levels
        if i >= n:
            p = props[i - n]
            anchor = np.array([*(p.anchor if p.anchor is not None else p.centre)[:2], 0.0])
            return -float(np.linalg.norm(anchor - cam.C)), p.level
        b = boxes[i]
        anchor = np.array([*(b.base if b.base is not None else b.centre[:2]), 0.0])
        return -float(np.linalg.norm(anchor - cam.C)), b.level

    order = sorted(range(n + len(props)), key=depth)
    for_props = {}
    if props:
        puv, pz = cam.project(np.array([p.corners() for p in props]).reshape(-1, 3))
        for_props = {j: (puv[8 * j:8 * j + 8], pz[8 * j:8 * j + 8]) for j in range(len(props))}
    sprites = FaceSprites(style, rng, (-0.6, -0.8))
    drawn: dict[int, DrawnFace] = {}
    for i in order:
        if i >= n:
            uv_p, z_p = for_props[i - n]
            if (z_p > 0.05).all():
                draw_prop(canvas, idbuf, uv_p, props[i - n], cam.C, lights.shade)
            continue
        box = boxes[i]
        corners, uv_all, z = all_corners[i], uv_boxes[i], z_boxes[i]
        if (z <= 0.05).any():
            continue
        px = math.hypot(*(uv_all[0] - uv_all[1]))  # tile width on the canvas
        if uv_all[:, 0].max() < 0 or uv_all[:, 1].max() < 0 or uv_all[:, 0].min() > cw or uv_all[:, 1].min() > ch:
            continue
        edge_w = 1 if px < 60 else 2
        # the walls, from the corners already projected: outward normals and centres of all four at once
        top, bottom = corners[:4], corners[4:]
        edge_mid = (top + top[NEXT]) / 2
        normals = edge_mid - top.mean(0)
        normals /= np.sqrt((normals ** 2).sum(1))[:, None] + 1e-9
        mids = (edge_mid + (bottom + bottom[NEXT]) / 2) / 2
        facing = ((cam.C - mids) * normals).sum(1) > 0
        for k in np.nonzero(facing)[0]:
            idx = [k, (k + 1) % 4, (k + 1) % 4 + 4, k + 4]
            nrm, mid = normals[k], mids[k]
            col = body * lights.shade(nrm) * (1 + lights.specular(nrm, cam.C - mid))
            edge = tuple((col * 0.7).tolist()) if px > 14 else None
            _paint_poly(canvas, idbuf, uv_all[idx], tuple(np.clip(col, 0, 255).tolist()), ID_OTHER + i, edge, edge_w)
        back = bool(float(box.n @ (cam.C - box.centre)) < 0)
        quad_idx = BACK_ORDER if back else [0, 1, 2, 3]
        quad = corners[quad_idx]
        nrm = -box.n if back else box.n
        uv = uv_all[quad_idx]
        seen = max(math.hypot(*(uv[1] - uv[0])), math.hypot(*(uv[2] - uv[1])) / box.length)
        wpx = int(np.clip(8 * round(seen / 8), 16, 96))
        sprite = sprites.get(box.a, box.b, wpx, back)
        gain = lights.shade(nrm)
        spec = lights.specular(nrm, cam.C - quad.mean(0))
        streak = gloss.streak(quad, nrm, cam.C, lights.dirs[0], sprite.width, sprite.length) if gloss else None
        # under the sprite's rounded corners: the rounded plastic edge, a little darker than the face
        under_col = np.clip((back_body if back else body) * gain * 0.8, 0, 255)
        cv2.fillConvexPoly(canvas, np.round(uv * 16).astype(np.int32), tuple(under_col.tolist()), cv2.LINE_AA, 4)
        hm = _paint_sprite(canvas, idbuf, sprite, _lit(sprite, gain, spec, streak), uv, i)
        if px > 14:
            edge_col = tuple(((back_body if back else body) * gain * 0.75).tolist())
            cv2.polylines(canvas, [np.round(uv * 16).astype(np.int32)], True, edge_col, 1, cv2.LINE_AA, 4)
        drawn[i] = DrawnFace(uv, hm, sprite, back)
    return drawn


# ---------------------------------------------------------------------------- the photo

def lens_maps(cam: PinholeCamera, step: int = 8) -> np.ndarray:
    """Output pixel -> canvas pixel maps for cv2.remap. The lens is smooth, so the maps are
    evaluated on a coarse grid and enlarged; the grid sits at the pixel centres cv2.resize
    samples and has one spare cell each side, so the enlarged maps are exact interpolations
    everywhere, borders included."""
    W, H = cam.size
    nx, ny = -(-W // step) + 2, -(-H // step) + 2
    gx = (np.arange(nx) + 0.5) * step - 0.5 - step
    gy = (np.arange(ny) + 0.5) * step - 0.5 - step
    X, Y = np.meshgrid(gx, gy)
    src = cam.image_to_canvas(np.column_stack([X.ravel(), Y.ravel()])).astype(np.float32).reshape(ny, nx, 2)
    full = cv2.resize(src, (nx * step, ny * step), interpolation=cv2.INTER_LINEAR)[step:step + H, step:step + W]
    return np.ascontiguousarray(full)  # (H, W, 2) float32: x and y in one map


NOISE_UNIT = 16.0
"""The noise bank's standard deviation, in int16 steps (fine enough to scale down to sigma 1)."""
_bank: list[np.ndarray] = []


def _noise_bank(side: int = 1024) -> np.ndarray:
    """Gaussian noise drawn once per process from a fixed seed: a scene cuts its noise from a
    random place in it, which costs a fraction of drawing a frame of Gaussian numbers."""
    if not _bank:
        g = np.random.default_rng(np.random.SeedSequence([7151, side]))
        _bank.append((g.standard_normal((side, side, 3), np.float32) * NOISE_UNIT).astype(np.int16))
    return _bank[0]


def photo_effects(rng: np.random.Generator, img: np.ndarray) -> tuple[np.ndarray, bytes]:
    """Light falloff, white balance, blur, noise, exposure and JPEG: the flat renderer's camera
    effects, restructured around lookup tables and integer maths so a frame costs milliseconds.
    Returns the decoded photo and its JPEG file."""
    h, w = img.shape[:2]
    temp = rng.uniform(-0.15, 0.15)
    wb = np.array([1 + temp, 1.0, 1 - temp], np.float32) * rng.uniform(0.88, 1.12, 3).astype(np.float32)  # BGR
    out = img
    if rng.random() < 0.5:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.3, 1.4) * max(1.0, min(h, w) / 720))
    if rng.random() < 0.12:
        k = int(rng.integers(3, 10))
        out = motion_blur(out, k, rng.uniform(0, 180))
    if rng.random() < 0.3:  # small sensors and webcams: resolution lost, then scaled up
        f = rng.uniform(0.35, 0.8)
        # bilinear, not area, shrinking: area resampling at a fractional scale costs tens of ms a frame,
        # and the aliasing it avoids is what cheap sensors show anyway
        small = cv2.resize(out, (max(8, int(w * f)), max(8, int(h * f))), interpolation=cv2.INTER_LINEAR)
        out = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    # white balance, gamma, contrast and exposure in one per-channel lookup table
    x = np.clip(np.arange(256, dtype=np.float32)[:, None] * wb[None, :], 0, 255) / 255
    lut = 255 * x ** rng.uniform(0.8, 1.25)
    lut = (lut - 128) * rng.uniform(0.8, 1.15) + 128 + rng.uniform(-20, 20)
    out = cv2.LUT(out, np.clip(lut, 0, 255).astype(np.uint8).reshape(1, 256, 3))
    if rng.random() < 0.7:  # sensor noise in 2x2 blocks, cut from the process's bank of noise
        sigma = rng.uniform(1, 8)
        bank = _noise_bank()
        nh, nw = h // 2, w // 2
        if nh <= bank.shape[0] and nw <= bank.shape[1]:
            oy, ox = rng.integers(0, bank.shape[0] - nh + 1), rng.integers(0, bank.shape[1] - nw + 1)
            noise = bank[oy:oy + nh, ox:ox + nw]
            scale = sigma / NOISE_UNIT
        else:
            noise = np.empty((nh, nw, 3), np.int16)
            cv2.setRNGSeed(int(rng.integers(0, 2**31 - 1)))
            cv2.randn(noise, (0, 0, 0), (sigma,) * 3)
            scale = 1.0
        noise = cv2.resize(noise, (w, h), interpolation=cv2.INTER_NEAREST)
        out = cv2.addWeighted(out, 1.0, noise, scale, 0, dtype=cv2.CV_8U)
    q = int(rng.integers(40, 96))
    _, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR), buf.tobytes()


# ---------------------------------------------------------------------------- labels

def _labels(cam: PinholeCamera, boxes: list[Box], drawn: dict[int, DrawnFace], idbuf: np.ndarray,
            frame_mask: np.ndarray | None) -> list[TileLabel3D]:
    """Label each drawn tile: the broad face it shows, its pose, pips where the id buffer says the
    face is on top, and the share of the face that is in frame and not covered."""
    W, H = cam.size
    ch, cw = idbuf.shape
    under = {j for j, b in enumerate(boxes) for o in boxes if o.group == "stack" and b.group == "stack"
             and o.level == b.level + 1 and np.linalg.norm(o.centre[:2] - b.centre[:2]) < 0.5}
    out: list[TileLabel3D] = []
    order = [i for i in range(len(boxes)) if i in drawn]
    # every label's corners through the lens in one call: the lens inverts by iteration, per call
    bent = cam.canvas_to_image(np.concatenate([drawn[i].uv for i in order])).astype(np.float32) if order else None
    for n_done, i in enumerate(order):
        box = boxes[i]
        d = drawn[i]
        pose, back = pose_of(box, cam.C, i in under)
        area = abs(cv2.contourArea(d.uv.astype(np.float32)))
        x0, y0 = np.maximum(np.floor(d.uv.min(0)).astype(int), 0)
        x1, y1 = np.minimum(np.ceil(d.uv.max(0)).astype(int) + 1, [cw, ch])
        seen = 0
        if x1 > x0 and y1 > y0:
            hit = idbuf[y0:y1, x0:x1] == i
            if frame_mask is not None:
                hit &= frame_mask[y0:y1, x0:x1] > 0
            seen = int(hit.sum())
        visible = min(1.0, seen / area) if area > 1 else 0.0
        corners = bent[4 * n_done:4 * n_done + 4]
        pts, hidden = [], 0
        if not back and d.hm is not None and d.sprite.pips:
            sp = np.array(d.sprite.pips, np.float64)
            both = np.vstack([sp[:, :2], sp[:, :2] + np.column_stack([sp[:, 2], np.zeros(len(sp))])])
            p = cv2.perspectiveTransform(both.reshape(-1, 1, 2), d.hm).reshape(-1, 2)
            q = cam.canvas_to_image(p)
            k = len(sp)
            ix, iy = p[:k, 0].astype(int), p[:k, 1].astype(int)  # truncation, as the pixel a pip centre is in
            inside = (ix >= 0) & (ix < cw) & (iy >= 0) & (iy < ch)
            on_top = np.zeros(k, bool)
            on_top[inside] = idbuf[iy[inside], ix[inside]] == i
            ok = on_top & (q[:k, 0] >= 0) & (q[:k, 0] < W) & (q[:k, 1] >= 0) & (q[:k, 1] < H)
            radii = np.hypot(*(q[k:] - q[:k]).T)
            pts = [(float(q[j, 0]), float(q[j, 1]), float(radii[j]), d.sprite.pips[j][3]) for j in np.nonzero(ok)[0]]
            hidden = int(k - ok.sum())
        elif not back:
            hidden = box.a + box.b
        out.append(TileLabel3D(i, (box.a, box.b), corners, back, pts, hidden, visible, box.node,
                               pose=pose, level=box.level, group=box.group))
    return out


# ---------------------------------------------------------------------------- scenes

@dataclass
class World:
    """A scene before the camera: boxes, the set's look and how they were arranged."""

    boxes: list[Box]
    style: TileStyle
    set_max: int
    arrangement: str
    extras: dict = field(default_factory=dict)
    props: list[Prop] = field(default_factory=list)


def render_world(rng: np.random.Generator, world: World, size: tuple[int, int], kind: str,
                 low: bool = False, hands: int = 0, clutter: int = 0, cam_params: dict | None = None,
                 effects: bool = True, lights: Lights | None = None) -> Scene:
    """Photograph a world: fit a random camera to it, draw table, shadows, tiles, a hand, the lens.
    `cam_params`: as `random_camera_3d` returns (drawn when None); `effects` False leaves out the
    sensor and JPEG effects, for checks that compare exact colours; `lights` fixes the lighting
    (drawn when None)."""
    W, H = size
    params = cam_params or random_camera_3d(rng, size, low)
    pts = np.vstack([b.corners() for b in world.boxes]) if world.boxes else np.zeros((1, 3))
    cam = fit_camera(rng, size, params, pts, float(rng.uniform(0.55, 0.95)))
    lights = lights or random_lights(rng)
    corners = pts.reshape(-1, 8, 3) if world.boxes else np.zeros((0, 8, 3))
    prop_corners = np.array([p.corners() for p in world.props]).reshape(-1, 8, 3)
    shadows = CastShadows.draw(rng, np.concatenate([corners, prop_corners]), lights.dirs, lights.power,
                               n_tiles=len(corners))
    canvas = draw_table(rng, cam, pts.mean(0), clutter, shadows)
    cw, ch = cam.canvas_size
    # a tile's width on the canvas at the middle of the scene sets shadow softness and hand size
    mid_uv, _ = cam.project(np.array([pts.mean(0), pts.mean(0) + [1, 0, 0]]))
    tile_px = float(np.linalg.norm(mid_uv[1] - mid_uv[0]))
    idbuf = np.full((ch, cw), -1, np.int32)
    gloss = random_gloss(rng, lights)
    drawn = draw_boxes(rng, canvas, idbuf, cam, world.boxes, world.style, lights, gloss, corners, world.props)
    shadows.on_tiles(canvas, idbuf, cam.project, tile_px, ID_OTHER)
    for _ in range(hands):
        hx, hy = rng.uniform(0.1, 0.9) * cw, rng.uniform(0.5, 1.0) * ch
        mask = np.zeros((ch, cw), np.uint8)
        draw_hand(canvas, rng, hx, hy, tile_px * rng.uniform(1.5, 3), rng.uniform(0, 2 * np.pi), mask)
        idbuf[mask > 0] = -2
    frame_mask = None
    if cam.bent:
        border = np.concatenate([np.column_stack([np.linspace(0, W, 33), np.zeros(33)]),
                                 np.column_stack([np.full(33, W), np.linspace(0, H, 33)]),
                                 np.column_stack([np.linspace(W, 0, 33), np.full(33, H)]),
                                 np.column_stack([np.zeros(33), np.linspace(H, 0, 33)])])
        frame_mask = np.zeros((ch, cw), np.uint8)
        cv2.fillPoly(frame_mask, [np.round(cam.image_to_canvas(border)).astype(np.int32)], 1)
        img = cv2.remap(canvas, lens_maps(cam), None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    else:
        img = canvas
    tiles = _labels(cam, world.boxes, drawn, idbuf, frame_mask)
    img = cv2.cvtColor(img, cv2.COLOR_RGB2BGR)
    jpeg = None
    if effects:
        img, jpeg = photo_effects(rng, img)
    meta = {"camera": cam.to_dict(), "arrangement": world.arrangement, **world.extras,
            "lights": len(lights.dirs), "thickness": round(float(world.boxes[0].thick), 3) if world.boxes else None}
    return Scene(img, list(tiles), kind, world.set_max, meta=meta, jpeg=jpeg)


def _thickness(rng: np.random.Generator) -> float:
    return float(rng.uniform(0.25, 0.33))


def render_hand3d(rng: np.random.Generator, size: tuple[int, int] = (1280, 960), set_max: int | None = None,
                  n: int | None = None, face: str | None = None, steep: bool = False) -> Scene:
    """Tiles on a table in 3D (flat, face down, racks, stacks, standing, leaning) from a random
    camera; `steep` keeps the camera low (a seated player or a webcam). Same shape as `render_hand`."""
    set_max = int(set_max if set_max is not None else rng.choice(SUPPORTED_SETS, p=[0.3, 0.25, 0.25, 0.1, 0.1]))
    style = random_style(rng, set_max, face)
    if n is None:
        n = int(rng.choice([rng.integers(1, 5), rng.integers(4, 11), rng.integers(8, 22)], p=[0.3, 0.5, 0.2]))
    values = _random_tiles(rng, set_max, n)
    params = random_camera_3d(rng, size, steep)
    az = np.radians(params["azimuth"])
    toward = -np.array([np.cos(az), np.sin(az), 0.0])
    arr = arrange_3d(rng, values, style.ratio, _thickness(rng), toward)
    world = World(arr.boxes, style, set_max, arr.style, arr.extras, arr.props)
    return render_world(rng, world, size, "hand3d", steep, hands=int(rng.random() < 0.1),
                        clutter=int(rng.integers(0, 4)) if rng.random() < 0.35 else 0, cam_params=params)


def render_table3d(rng: np.random.Generator, size: tuple[int, int] = (1280, 960), set_max: int | None = None,
                   face: str | None = None, steep: bool = False) -> Scene:
    """A Chicken Foot table (the flat renderer's planned round: layout, hands, boneyard) as boxes,
    with the boneyard sometimes stacked and the camera-side hand sometimes stood up as a rack."""
    from .table import plan_table

    plan = plan_table(rng, size, set_max, face=face)
    params = random_camera_3d(rng, size, steep)
    az = np.radians(params["azimuth"])
    toward = -np.array([np.cos(az), np.sin(az), 0.0])
    thick = _thickness(rng)
    tw = plan.tile_w
    ratio = plan.style.ratio
    xy = np.array([(p.cx / tw, -p.cy / tw) for p in plan.placements])
    centre = xy[[i for i, p in enumerate(plan.placements) if p.node is not None]].mean(0) if any(
        p.node is not None for p in plan.placements) else xy.mean(0)
    xy -= centre
    boxes: list[Box] = []
    stack_base: Box | None = None
    stacked = 0
    for (x, y), p in zip(xy, plan.placements):
        phi = float(np.arctan2(-np.cos(p.angle), -np.sin(p.angle)))
        group = "layout" if p.node is not None else "loose"
        if p.face_down and p.node is None and stack_base is not None and rng.random() < 0.3:
            z = stack_base.corners()[:, 2].max()
            c = stack_base.centre
            box = flat_box(c[0] + rng.normal(0, 0.05), c[1] + rng.normal(0, 0.05), phi, False, ratio, thick, p.a, p.b,
                           base_z=z, group="stack", level=stack_base.level + 1, base=stack_base.base or (c[0], c[1]))
            stack_base.group = "stack"
            stacked += 1
        else:
            box = flat_box(x, y, phi, not p.face_down, ratio, thick, p.a, p.b, group=group, node=p.node)
        boxes.append(box)
        stack_base = box if p.face_down and p.node is None else None
    # the hand nearest the camera stood up as its owner's rack, facing the camera
    loose = [i for i, b in enumerate(boxes) if b.group == "loose" and not b.n[2] < 0]
    stood = 0
    if loose and rng.random() < 0.5:
        near = min(loose, key=lambda i: -float(boxes[i].centre[:2] @ toward[:2]))
        for i in loose:
            if np.linalg.norm(boxes[i].centre[:2] - boxes[near].centre[:2]) < 6:
                b = boxes[i]
                side = np.array([-toward[1], toward[0]])
                phi = float(np.arctan2(side[1], side[0]))
                boxes[i] = standing_box(b.centre[0], b.centre[1], phi, toward, rng.uniform(0, 0.4), ratio, thick,
                                        b.a, b.b, group="rack")
                stood += 1
    world = World(boxes, plan.style, plan.set_max, "table", {"stacked": stacked, "rack": stood})
    scene = render_world(rng, world, size, "table3d", steep, hands=int(rng.random() < 0.1),
                         clutter=int(rng.integers(0, 3)) if rng.random() < 0.3 else 0, cam_params=params)
    scene.layout = plan.layout
    scene.meta = {**plan.meta, **scene.meta}
    return scene
