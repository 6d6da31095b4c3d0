"""Players' racks: the wooden or plastic holders that keep a hand's tiles standing at the table's edge.

A rack is drawn as plain cuboids, one set per tile slot (a tray under the tile, a lip at its
front, a back wall it leans on), so the far-to-near drawing order stays right along a long row
seen at a slant. Racks matter to a detector because from the owner's side their lip hides the
bottom of every face, and from across the table their wall hides most of the tiles' backs;
neither is a tile. They are never labelled, but they block tiles in the id buffer, so the
tiles' visible fractions count them.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

ID_PROP = -3
"""Id-buffer value of a prop's pixels (tiles are 0.., the hand -2, nothing -1)."""


@dataclass
class Prop:
    """A cuboid that is not a tile: centre, three unit axes and half extents along them (world)."""

    centre: np.ndarray
    axes: np.ndarray  # (3, 3) rows: length, depth, up
    half: np.ndarray  # (3,)
    rgb: tuple[float, float, float]
    anchor: np.ndarray | None = None  # where it is sorted for drawing (its own centre when None)
    level: int = 0  # drawn before tiles at the same place when below 0

    def corners(self) -> np.ndarray:
        """(8, 3): the top face's four corners, then the bottom face's below them."""
        s = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64)
        flat = s[:, :1] * self.axes[0] * self.half[0] + s[:, 1:] * self.axes[1] * self.half[1]
        top = self.centre + flat + self.axes[2] * self.half[2]
        return np.vstack([top, top - 2 * self.axes[2] * self.half[2]])

    def footprint(self) -> np.ndarray:
        return cv2.convexHull(self.corners()[:, :2].astype(np.float32)).reshape(-1, 2)

    def faces(self) -> list[tuple[list[int], np.ndarray]]:
        """The six faces as corner indices and outward normals."""
        a = self.axes
        return [([0, 1, 2, 3], a[2]), ([7, 6, 5, 4], -a[2]), ([0, 1, 5, 4], -a[1]), ([2, 3, 7, 6], a[1]),
                ([1, 2, 6, 5], a[0]), ([3, 0, 4, 7], -a[0])]


@dataclass(frozen=True)
class RackShape:
    """A rack's proportions in tile widths (a tile standing on its long edge is one width high)."""

    tray_height: float = 0.1
    lip_height: tuple[float, float] = (0.1, 0.22)
    lip_depth: float = 0.08
    wall_height: tuple[float, float] = (0.55, 0.85)
    wall_depth: tuple[float, float] = (0.1, 0.2)
    colours: tuple[tuple[int, int, int], ...] = ((120, 78, 40), (160, 110, 60), (70, 45, 25), (30, 30, 32),
                                                  (200, 40, 40), (40, 90, 170), (230, 225, 210))


RACK = RackShape()


def random_rack_look(rng: np.random.Generator, shape: RackShape = RACK) -> dict:
    """One rack's colour and measures, shared by all its slots."""
    base = np.array(shape.colours[int(rng.integers(0, len(shape.colours)))], np.float64)
    return {"rgb": tuple(np.clip(base * rng.uniform(0.8, 1.15, 3), 0, 255)),
            "lip": float(rng.uniform(*shape.lip_height)), "wall": float(rng.uniform(*shape.wall_height)),
            "wall_depth": float(rng.uniform(*shape.wall_depth))}


def rack_slot(tile_corners: np.ndarray, along: np.ndarray, facing: np.ndarray, slot_length: float, look: dict,
              shape: RackShape = RACK) -> list[Prop]:
    """Tray, lip and back wall of one slot holding a tile whose corners are `tile_corners` (the tile
    already lifted onto the tray). `along`: the row's direction; `facing`: horizontal direction the
    tile's face looks (toward its owner); the wall stands on the other side, touching the tile."""
    along = along / np.linalg.norm(along)
    facing = facing - along * float(facing @ along)
    facing = facing / np.linalg.norm(facing)
    up = np.array([0.0, 0.0, 1.0])
    base = tile_corners.mean(0)
    base[2] = 0.0
    d = (tile_corners - base) @ facing
    back, front = float(d.min()), float(d.max())
    wall_in = back - 0.01
    lip_in = front + 0.01
    h = slot_length / 2
    th = shape.tray_height
    tray_mid = (wall_in + lip_in) / 2
    wall_d, lip_d = look["wall_depth"], shape.lip_depth
    axes = np.array([along, facing, up])
    tray = Prop(base + facing * tray_mid + up * th / 2, axes, np.array([h, (lip_in - wall_in) / 2, th / 2]),
                look["rgb"])
    lip = Prop(base + facing * (lip_in + lip_d / 2) + up * look["lip"] / 2, axes,
               np.array([h, lip_d / 2, look["lip"] / 2]), look["rgb"])
    wall = Prop(base + facing * (wall_in - wall_d / 2) + up * look["wall"] / 2, axes,
                np.array([h, wall_d / 2, look["wall"] / 2]), look["rgb"])
    # the tray lies under the tile: it is drawn where the tile is, before it
    tray.anchor, tray.level = base, -1
    return [tray, lip, wall]


def draw_prop(canvas: np.ndarray, idbuf: np.ndarray, uv: np.ndarray, prop: Prop, eye: np.ndarray, shade) -> None:
    """Paint the faces of `prop` the camera sees (`uv`: its corners on the canvas); `shade(normal)`
    gives a face's brightness."""
    corners = prop.corners()
    body = np.array(prop.rgb, np.float64)
    for idx, nrm in prop.faces():
        if float(nrm @ (eye - corners[idx].mean(0))) <= 0:
            continue
        col = tuple(np.clip(body * shade(nrm), 0, 255).tolist())
        pts = np.round(uv[idx] * 16).astype(np.int32)
        cv2.fillConvexPoly(canvas, pts, col, cv2.LINE_AA, 4)
        cv2.fillConvexPoly(idbuf, np.round(uv[idx]).astype(np.int32), ID_PROP)
