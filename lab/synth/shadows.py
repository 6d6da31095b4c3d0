"""Cast shadows of box-shaped tiles: on the table, and from tall tiles onto the flat tiles near them.

Each box's eight corners are pushed along a light's direction onto a plane and hulled: the
shadow of a convex box on a plane is exactly that hull. Shadows on the table are drawn in
the table texture's own pixels (small, and already on the table plane) before it is warped
into the picture; shadows that standing, leaning and stacked tiles throw on flat tiles are
drawn on the canvas at quarter size and kept to those tiles' pixels by the id buffer. The
first light casts the darker shadow, a second light a fainter one in its own direction.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class ShadowConfig:
    softness: tuple[float, float] = (0.03, 0.2)  # blur sigma, tile widths
    strength: tuple[float, float] = (0.25, 0.6)  # share of the light the key light's shadow takes away
    min_light_sine: float = 0.2  # lights lower than this are treated as this high (shadows stay finite)
    downscale: int = 4  # canvas shadows are soft: drawn at 1/downscale and enlarged
    tall: float = 1.6  # casters onto tiles: boxes whose top is this many thicknesses up or more


SHADOWS = ShadowConfig()


def push_to_plane(corners: np.ndarray, light: np.ndarray, z: float, min_sine: float) -> np.ndarray:
    """(..., 3) points moved along -`light` (unit vector toward the light) onto height `z`."""
    return corners - light * ((corners[..., 2:3] - z) / max(float(light[2]), min_sine))


@dataclass
class CastShadows:
    """One scene's shadows: the boxes' corners, the lights, and how soft and dark they are."""

    corners: np.ndarray  # (N, 8, 3) world corners of every box
    dirs: list[np.ndarray]  # unit vectors toward the lights, key light first
    strengths: list[float]
    softness: float  # tile widths
    cfg: ShadowConfig = SHADOWS
    n_tiles: int | None = None  # corners past this many are props (racks): they cast, never receive

    @classmethod
    def draw(cls, rng: np.random.Generator, corners: np.ndarray, dirs: list[np.ndarray], power: list[float],
             cfg: ShadowConfig = SHADOWS, n_tiles: int | None = None) -> "CastShadows":
        key = float(rng.uniform(*cfg.strength))
        strengths = [key * min(1.0, p / power[0]) for p in power]
        return cls(corners, dirs, strengths, float(rng.uniform(*cfg.softness)), cfg, n_tiles)

    def on_table(self, tex_from_world: np.ndarray, size: tuple[int, int], px_per_width: float) -> np.ndarray:
        """(h, w) float32 light factor (1 lit, below 1 in shadow) over a table texture whose pixels
        come from table coordinates by the 3x3 affine `tex_from_world`."""
        w, h = size
        if not len(self.corners):
            return np.ones((h, w), np.float32)
        sigma = self.softness * px_per_width
        ds = 2 if sigma > 3 else 1  # soft shadows: drawn and blurred at half the texture's size
        sw, sh = -(-w // ds), -(-h // ds)
        light = np.ones((sh, sw), np.float32)
        for d, s in zip(self.dirs, self.strengths):
            flat = push_to_plane(self.corners, d, 0.0, self.cfg.min_light_sine)[..., :2]
            uv = (flat @ tex_from_world[:2, :2].T + tex_from_world[:2, 2] + 0.5) / ds - 0.5
            mask = np.zeros((sh, sw), np.float32)
            for poly in uv:
                cv2.fillConvexPoly(mask, cv2.convexHull((poly * 16).astype(np.int32)), 1.0, cv2.LINE_AA, 4)
            mask = cv2.GaussianBlur(mask, (0, 0), max(0.6, sigma / ds))
            light *= 1 - s * mask
        if ds > 1:
            light = cv2.resize(light, (sw * ds, sh * ds), interpolation=cv2.INTER_LINEAR)[:h, :w]
        return light

    def on_tiles(self, canvas: np.ndarray, idbuf: np.ndarray, project, tile_px: float, id_walls: int) -> int:
        """Darken flat tiles (faces and walls, by the id buffer) where tall boxes block a light;
        `project` maps world points to (canvas uv, depth). Returns how many boxes cast."""
        n = len(self.corners) if self.n_tiles is None else self.n_tiles
        if not n:
            return 0
        tops = self.corners[:, :, 2].max(1)
        thick = float(np.min(tops[:n]))
        tall = np.nonzero(tops >= self.cfg.tall * thick)[0]
        low = tops[:n] <= 1.3 * thick
        if not len(tall) or not low.any():
            return 0
        ch, cw = canvas.shape[:2]
        ds = self.cfg.downscale
        shade = np.ones((ch // ds + 1, cw // ds + 1), np.float32)
        for d, s in zip(self.dirs, self.strengths):
            flat = push_to_plane(self.corners[tall], d, thick, self.cfg.min_light_sine)
            uv, z = project(flat.reshape(-1, 3))
            uv, z = uv.reshape(len(tall), 8, 2), z.reshape(len(tall), 8)
            mask = np.zeros_like(shade)
            for poly, depth in zip(uv, z):
                if (depth > 0.05).all():
                    cv2.fillConvexPoly(mask, cv2.convexHull((poly / ds * 16).astype(np.int32)), 1.0, cv2.LINE_AA, 4)
            mask = cv2.GaussianBlur(mask, (0, 0), max(0.6, self.softness * tile_px / ds))
            shade *= 1 - s * mask
        ys, xs = np.nonzero(shade < 0.995)
        if not len(xs):
            return len(tall)
        # enlarge only the shadowed part (one low-res cell of margin keeps the interpolation exact)
        sx0, sy0, sx1, sy1 = max(0, xs.min() - 1), max(0, ys.min() - 1), xs.max() + 2, ys.max() + 2
        big = cv2.resize(shade[sy0:sy1, sx0:sx1], ((sx1 - sx0) * ds, (sy1 - sy0) * ds), interpolation=cv2.INTER_LINEAR)
        x0, y0, x1, y1 = sx0 * ds, sy0 * ds, min(cw, sx1 * ds), min(ch, sy1 * ds)
        ids = idbuf[y0:y1, x0:x1]
        box = np.where(ids >= id_walls, ids - id_walls, ids)
        receive = np.zeros(n + 1, bool)  # index 0: no tile (table, hand, wall, prop)
        receive[1:] = low
        hit = receive[np.where(box >= 0, box + 1, 0)]
        factor = np.where(hit, big[:y1 - y0, :x1 - x0], 1.0).astype(np.float32)
        roi = canvas[y0:y1, x0:x1]
        roi[:] = (roi * factor[..., None]).astype(np.uint8)
        return len(tall)
