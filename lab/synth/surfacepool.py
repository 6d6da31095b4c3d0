"""Table surfaces drawn once per process and reused, recoloured, turned and rescaled per scene.

A procedural surface costs tens of milliseconds, more than all the rest of a 3D scene's
background, and a renderer that must make many scenes a second cannot draw one per scene. A small pool of
surfaces (every kind, each drawn from its own fixed seed) is built lazily in each worker
process; a scene draws which one, how it is recoloured (hue turned about the grey axis,
saturation, brightness), turned and scaled. Entries depend only on their index, so a scene
is the same whichever worker draws it and in whatever order.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .background import SURFACES, surface


@dataclass(frozen=True)
class PoolConfig:
    """How many surfaces a process keeps, their size, and how far a scene may change one."""

    entries: int = 27  # three of each kind
    side: int = 512  # pixels
    tile_px: float = 24.0  # a tile's width on the pool's surfaces
    scale: tuple[float, float] = (0.75, 1.35)  # a scene's texture scale, relative to tile_px
    natural_hue: float = 0.08  # most a wood, paper or marble hue turns, as a fraction of the circle
    saturation: tuple[float, float] = (0.6, 1.4)
    brightness: tuple[float, float] = (0.75, 1.2)
    seed: int = 9173


POOL = PoolConfig()
NATURAL = {"wood", "paper", "marble"}
"""Materials whose colour has a narrow natural range: their hue turns only a little."""

_entries: dict[tuple[PoolConfig, int], tuple[str, list[np.ndarray]]] = {}
"""This process's surfaces, 8-bit (resampling 8-bit pictures costs a fraction of float ones), each
with its halvings, so a far table is cut from a level near its own scale rather than shrunk from
a large crop."""


def _entry(cfg: PoolConfig, k: int) -> tuple[str, list[np.ndarray]]:
    key = (cfg, k)
    if key not in _entries:
        kind = SURFACES[k % len(SURFACES)]
        rng = np.random.default_rng(np.random.SeedSequence([cfg.seed, k]))
        levels = [np.clip(surface(rng, cfg.side, cfg.side, cfg.tile_px, kind), 0, 255).astype(np.uint8)]
        while levels[-1].shape[0] > 64:
            levels.append(cv2.pyrDown(levels[-1]))
        _entries[key] = (kind, levels)
    return _entries[key]


def recolour_matrix(hue_turn: float, saturation: float, brightness: float) -> np.ndarray:
    """3x3 RGB matrix: turn the hue by `hue_turn` of the circle about the grey axis, scale the
    distance from grey by `saturation` and everything by `brightness`."""
    grey = np.full((3, 3), 1 / 3)
    a = 2 * np.pi * hue_turn
    k = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]]) / np.sqrt(3)  # cross-product matrix of (1,1,1)/sqrt(3)
    rot = np.eye(3) + np.sin(a) * k + (1 - np.cos(a)) * (k @ k)
    return brightness * (grey + saturation * rot @ (np.eye(3) - grey))


def table_texture(rng: np.random.Generator, size: tuple[int, int], px_per_width: float,
                  cfg: PoolConfig = POOL) -> tuple[str, np.ndarray]:
    """A (h, w, 3) uint8 RGB table surface `size` = (w, h) at `px_per_width` pixels per tile width,
    cut from this process's pool: one of its surfaces, turned or mirrored (eight ways), scaled,
    extended by reflection where the table is larger than it, and recoloured. Returns its kind too."""
    k = int(rng.integers(0, cfg.entries))
    kind, levels = _entry(cfg, k)
    turn = rng.uniform(-cfg.natural_hue, cfg.natural_hue) if kind in NATURAL else rng.uniform(-0.5, 0.5)
    m = recolour_matrix(turn, rng.uniform(*cfg.saturation), rng.uniform(*cfg.brightness))
    way = int(rng.integers(0, 8))
    f = cfg.tile_px * rng.uniform(*cfg.scale) / px_per_width  # pool pixels per texture pixel
    level = min(len(levels) - 1, max(0, int(np.floor(np.log2(max(f, 1e-9) / 0.75)))))
    img, f = levels[level], f / 2 ** level
    side = img.shape[0]
    w, h = size if way % 2 == 0 else size[::-1]  # cut upright, turned at the end
    need_w, need_h = int(np.ceil(w * f)) + 1, int(np.ceil(h * f)) + 1
    ox, oy = (int(v) for v in rng.integers(0, side, 2))
    pad_r, pad_b = max(0, ox + need_w - side), max(0, oy + need_h - side)
    if pad_r or pad_b:
        img = cv2.copyMakeBorder(img, 0, pad_b, 0, pad_r, cv2.BORDER_REFLECT_101)
    crop = img[oy:oy + need_h, ox:ox + need_w]
    tex = cv2.resize(crop, (w, h), interpolation=cv2.INTER_LINEAR)  # the level keeps f below 1.5: no aliasing
    if way % 4:
        tex = cv2.rotate(tex, (cv2.ROTATE_90_CLOCKWISE, cv2.ROTATE_180, cv2.ROTATE_90_COUNTERCLOCKWISE)[way % 4 - 1])
    if way >= 4:
        tex = cv2.flip(tex, 1)
    return kind, cv2.transform(tex, m.astype(np.float32))
