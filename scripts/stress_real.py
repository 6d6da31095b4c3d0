"""Copies of labelled photos changed the way other people's photos differ from ours (turned,
tilted, dim, warm or cool light, a shadow across, a cast shadow's sharp band, glare, blur, noise,
heavy JPEG, heavy sharpening, specks of dirt), to see what the recognizer loses on real pixels
under conditions the development photos do not show.

    python scripts/stress_real.py ../shared/data/real --out /tmp/stress
    for d in /tmp/stress/*/; do chickenfoot lab eval $d --labels ../shared/data/real/labels.json --only photos; done

Every change is applied to the whole photo with the same strength for every photo, fixed before
looking at any result; blur and noise are scaled by the photo's tile length (from the committed
models' boxes on the untouched photo), so a 4k photo is not blurred less than a 900-px one.
Nothing is written inside the repository unless --out points there: the photos are not ours to
redistribute.
"""
from __future__ import annotations

import argparse
from typing import Callable

import cv2
import numpy as np
from real_photos import add_photo_args, labelled_photos


def _border_colour(img: np.ndarray) -> tuple[float, ...]:
    edge = np.concatenate([img[0], img[-1], img[:, 0], img[:, -1]])
    return tuple(float(v) for v in np.median(edge, axis=0))


def rotate(deg: float) -> Callable[[np.ndarray, float], np.ndarray]:
    def f(img: np.ndarray, _tile: float) -> np.ndarray:
        h, w = img.shape[:2]
        m = cv2.getRotationMatrix2D((w / 2, h / 2), deg, 1.0)
        c, s = abs(m[0, 0]), abs(m[0, 1])
        nw, nh = int(h * s + w * c), int(h * c + w * s)
        m[0, 2] += nw / 2 - w / 2
        m[1, 2] += nh / 2 - h / 2
        return cv2.warpAffine(img, m, (nw, nh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                              borderValue=_border_colour(img))
    return f


def tilt(img: np.ndarray, _tile: float) -> np.ndarray:
    """Seen from lower down: the far edge 30 % narrower and the picture 20 % shorter."""
    h, w = img.shape[:2]
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    dst = np.float32([[0.15 * w, 0], [0.85 * w, 0], [w, 0.8 * h], [0, 0.8 * h]])
    return cv2.warpPerspective(img, cv2.getPerspectiveTransform(src, dst), (w, int(0.8 * h)),
                               borderMode=cv2.BORDER_CONSTANT, borderValue=_border_colour(img))


def _tilted(f_up: Callable[[np.ndarray], np.ndarray], sideways: bool) -> Callable[[np.ndarray, float], np.ndarray]:
    """A change tilting the picture away at its top, or (`sideways`) along its width instead."""
    def f(img: np.ndarray, _tile: float) -> np.ndarray:
        if sideways:
            return np.ascontiguousarray(np.rot90(f_up(np.ascontiguousarray(np.rot90(img, 1))), -1))
        return f_up(img)
    return f


def steep(deg: float, sideways: bool = False) -> Callable[[np.ndarray, float], np.ndarray]:
    """Seen from `deg` degrees off straight down (a phone held by someone seated at the table):
    the picture shortened to cos(deg) across the tilt, the far edge narrower by sin(deg) / 1.5.
    `sideways`: tilted along the picture's width instead of its height."""
    def f_up(img: np.ndarray) -> np.ndarray:
        h, w = img.shape[:2]
        squash, narrow = np.cos(np.radians(deg)), np.sin(np.radians(deg)) / 3
        src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
        dst = np.float32([[narrow * w, 0], [(1 - narrow) * w, 0], [w, squash * h], [0, squash * h]])
        return cv2.warpPerspective(img, cv2.getPerspectiveTransform(src, dst), (w, int(squash * h)),
                                   borderMode=cv2.BORDER_CONSTANT, borderValue=_border_colour(img))
    return _tilted(f_up, sideways)


PHONE_FOCAL = 0.75
"""A phone's main camera: focal length over the picture's long side (about 67 degrees across)."""


def camera(deg: float, sideways: bool = False) -> Callable[[np.ndarray, float], np.ndarray]:
    """The table as a pinhole camera sees it when turned `deg` degrees off straight down about
    the picture's middle, at the distance that keeps the middle's scale: the middle shortened to
    cos(deg) across the tilt, the far side smaller in both directions, as a phone held by someone
    seated at the table sees it. Unlike `steep` (a keystone named by its squash, which at the
    picture's middle shortens a pip less than that: about 0.79 for its 55), the angle is the
    camera's. The picture is cut to the table's image, its long side kept."""
    def f_up(img: np.ndarray) -> np.ndarray:
        h, w = img.shape[:2]
        focal = PHONE_FOCAL * max(h, w)
        t = np.radians(deg)
        src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
        x, y = src[:, 0] - w / 2, src[:, 1] - h / 2
        depth = focal - y * np.sin(t)  # the top of the picture is the far side
        dst = np.stack([focal * x / depth, focal * y * np.cos(t) / depth], 1)
        dst -= dst.min(0)
        scale = max(h, w) / float(dst.max())
        dst = (dst * scale).astype(np.float32)
        size = (int(np.ceil(dst[:, 0].max())), int(np.ceil(dst[:, 1].max())))
        return cv2.warpPerspective(img, cv2.getPerspectiveTransform(src, dst), size,
                                   borderMode=cv2.BORDER_CONSTANT, borderValue=_border_colour(img))
    return _tilted(f_up, sideways)


def dim(img: np.ndarray, _tile: float) -> np.ndarray:
    """A dim room: 40 % of the light, then the phone's gain lifts the noise with it."""
    f = img.astype(np.float32) * 0.4
    return np.clip(f, 0, 255).astype(np.uint8)


def warm(img: np.ndarray, _tile: float) -> np.ndarray:
    """Tungsten light, not white-balanced: blue down, red up."""
    f = img.astype(np.float32) * np.array([0.7, 0.95, 1.15], np.float32)
    return np.clip(f, 0, 255).astype(np.uint8)


def shadow(img: np.ndarray, _tile: float) -> np.ndarray:
    """A soft shadow over the left half (a player leaning over): down to 45 % of the light."""
    h, w = img.shape[:2]
    ramp = np.clip((np.arange(w, dtype=np.float32) / w - 0.35) / 0.3, 0, 1)
    gain = 0.45 + 0.55 * ramp
    return np.clip(img.astype(np.float32) * gain[None, :, None], 0, 255).astype(np.uint8)


def castshadow(angle: float = 35.0, shift: float = 0.0) -> Callable[[np.ndarray, float], np.ndarray]:
    """The phone's own shadow under a ceiling lamp: a sharp-edged band across the picture, `angle`
    degrees off its rows and `shift` of its short side off its middle, down to 50 % of the light,
    its edges (a penumbra of 3 % of a tile) crossing tiles where a faint line may pass for a
    divider or part an end's dots."""
    def change(img: np.ndarray, tile: float) -> np.ndarray:
        h, w = img.shape[:2]
        y, x = np.mgrid[0:h, 0:w].astype(np.float32)
        a = np.radians(angle)
        d = (x - w / 2) * np.sin(a) + (y - h / 2) * np.cos(a) - shift * min(h, w)  # across the band
        half = 0.18 * min(h, w)
        inside = np.clip((half - np.abs(d)) / max(1.0, 0.03 * tile) + 0.5, 0, 1)
        gain = 1.0 - 0.5 * inside
        return np.clip(img.astype(np.float32) * gain[..., None], 0, 255).astype(np.uint8)
    return change


def sharpen(img: np.ndarray, tile: float) -> np.ndarray:
    """A phone's heavy sharpening: an unsharp mask of 1.5 % of the tile's length at 1.5 times the
    detail, with the light and dark halos it draws around every pip and edge."""
    soft = cv2.GaussianBlur(img, (0, 0), max(0.7, 0.015 * tile))
    return cv2.addWeighted(img, 2.5, soft, -1.5, 0)


def specks(img: np.ndarray, tile: float) -> np.ndarray:
    """An old, used set: dark specks of dirt (a fifth to a third of a pip across) and fine scratches
    scattered over the picture, about ten for every tile's area, faces included."""
    h, w = img.shape[:2]
    rng = _seeded(img)
    out = img.copy()
    n = int(round(10 * h * w / (tile * tile / 2)))
    for _ in range(n):
        x, y = int(rng.uniform(0, w)), int(rng.uniform(0, h))
        grey = tuple(int(v) for v in rng.uniform(40, 110, 3))
        if rng.random() < 0.7:
            cv2.circle(out, (x, y), max(1, int(round(tile * rng.uniform(0.008, 0.015)))), grey, -1, cv2.LINE_AA)
        else:
            a, r = rng.uniform(0, np.pi), tile * rng.uniform(0.05, 0.2)
            cv2.line(out, (x, y), (int(x + r * np.cos(a)), int(y + r * np.sin(a))), grey, 1, cv2.LINE_AA)
    return out


def blur(img: np.ndarray, tile: float) -> np.ndarray:
    """Out of focus: a Gaussian of 2 % of the tile's length (2 px on a 100-px tile)."""
    return cv2.GaussianBlur(img, (0, 0), max(0.5, 0.02 * tile))


def shake(img: np.ndarray, tile: float) -> np.ndarray:
    """A hand that moved: a straight smear 4 % of the tile's length, at 30° to the picture's rows."""
    n = max(3, int(round(0.04 * tile)) | 1)
    k = np.zeros((n, n), np.float32)
    c = n // 2
    d = np.array([np.cos(np.radians(30)), np.sin(np.radians(30))])
    for t in np.linspace(-c, c, 4 * n):
        x, y = np.round(c + t * d).astype(int)
        k[y, x] = 1.0
    return cv2.filter2D(img, -1, k / k.sum())


def bright(img: np.ndarray, _tile: float) -> np.ndarray:
    """Overexposed: 1.6 times the light, white faces clipped."""
    return np.clip(img.astype(np.float32) * 1.6, 0, 255).astype(np.uint8)


def noise(img: np.ndarray, tile: float) -> np.ndarray:
    """Sensor noise (sigma 10 grey levels) at a 100-px tile's scale, then shrunk back."""
    f = max(1.0, tile / 100)
    small = cv2.resize(img, None, fx=1 / f, fy=1 / f, interpolation=cv2.INTER_AREA)
    n = np.random.default_rng(0).normal(0, 10, small.shape)
    small = np.clip(small.astype(np.float32) + n, 0, 255).astype(np.uint8)
    return cv2.resize(small, (img.shape[1], img.shape[0]), interpolation=cv2.INTER_LINEAR)


def jpeg(img: np.ndarray, tile: float) -> np.ndarray:
    """A messenger's recompression: quality 25 at a 100-px tile's scale."""
    f = max(1.0, tile / 100)
    small = cv2.resize(img, None, fx=1 / f, fy=1 / f, interpolation=cv2.INTER_AREA)
    small = cv2.imdecode(cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 25])[1], cv2.IMREAD_COLOR)
    return cv2.resize(small, (img.shape[1], img.shape[0]), interpolation=cv2.INTER_LINEAR)


def negative(img: np.ndarray, _tile: float) -> np.ndarray:
    """A dark set: the photo's negative turns white faces black and their dark pips light (each
    pip colour its complement), on a light table; no dark set is among the development photos."""
    return 255 - img


def grey(img: np.ndarray, _tile: float) -> np.ndarray:
    """No colour to go by: the photo in grey (a colour-coded set's pips all one grey each)."""
    return cv2.cvtColor(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)


def _seeded(img: np.ndarray) -> np.random.Generator:
    """The same random draw for the same photo on every run."""
    return np.random.default_rng(int(img.shape[0]) * 7919 + int(img.shape[1]))


def glare(img: np.ndarray, tile: float) -> np.ndarray:
    """Light reflected off glossy faces: soft white ovals half a tile to a tile across, one for
    every 12 tile areas of the picture (at least three), at random places, each lifting the picture
    by up to 200 grey levels at its middle, so pips under one wash out."""
    h, w = img.shape[:2]
    rng = _seeded(img)
    n = max(3, int(round(h * w / (12 * tile * tile / 2))))
    gain = np.zeros((h, w), np.float32)
    for _ in range(n):
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        ax = tile * rng.uniform(0.25, 0.5)
        cv2.ellipse(gain, (int(cx), int(cy)), (int(ax), int(ax * rng.uniform(0.3, 0.8))),
                    float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
    gain = cv2.GaussianBlur(gain, (0, 0), max(1.0, 0.15 * tile))
    return np.clip(img.astype(np.float32) + 200 * gain[..., None], 0, 255).astype(np.uint8)


def lowlight(img: np.ndarray, tile: float) -> np.ndarray:
    """An evening room: 35 % of the light, the sensor's noise (sigma 6 grey levels at a 100-px
    tile's scale) lifted with the gain, and the slight softness of a longer exposure."""
    f = max(1.0, tile / 100)
    small = cv2.resize(img, None, fx=1 / f, fy=1 / f, interpolation=cv2.INTER_AREA).astype(np.float32) * 0.35
    small = cv2.GaussianBlur(small, (0, 0), 0.7)
    small += np.random.default_rng(1).normal(0, 6, small.shape)
    small = np.clip(small, 0, 255).astype(np.uint8)
    return cv2.resize(small, (img.shape[1], img.shape[0]), interpolation=cv2.INTER_LINEAR)


def cool(img: np.ndarray, _tile: float) -> np.ndarray:
    """Fluorescent or shade light, not white-balanced: red down, green and blue up."""
    f = img.astype(np.float32) * np.array([1.15, 1.05, 0.75], np.float32)
    return np.clip(f, 0, 255).astype(np.uint8)


def vignette(img: np.ndarray, _tile: float) -> np.ndarray:
    """A cheap lens, or a lamp over the middle: the corners down to 35 % of the light."""
    h, w = img.shape[:2]
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    r = np.hypot((x - w / 2) / (w / 2), (y - h / 2) / (h / 2)) / np.sqrt(2)
    gain = 1.0 - 0.65 * np.clip(r, 0, 1) ** 2
    return np.clip(img.astype(np.float32) * gain[..., None], 0, 255).astype(np.uint8)


CHANGES: dict[str, Callable[[np.ndarray, float], np.ndarray]] = {
    "rot30": rotate(30), "rot45": rotate(45), "rot135": rotate(135), "tilt": tilt,
    "steep45": steep(45), "steep55": steep(55), "steep65": steep(65), "steep55side": steep(55, True),
    "cam45": camera(45), "cam55": camera(55), "cam65": camera(65), "cam55side": camera(55, True), "dim": dim,
    "warm": warm, "shadow": shadow, "blur": blur, "noise": noise, "jpeg": jpeg, "shake": shake,
    "bright": bright, "negative": negative, "grey": grey,
    "glare": glare, "lowlight": lowlight, "cool": cool, "vignette": vignette,
    "castshadow": castshadow(), "castshadow2": castshadow(-20, 0.15), "castshadow3": castshadow(70, -0.2),
    "sharpen": sharpen, "specks": specks,
}


def compound(*names: str) -> Callable[[np.ndarray, float], np.ndarray]:
    """Several of the changes above, one after another: a real photo meets them together (a glare
    on a glossy face, in a photo a messenger recompressed). Each passes alone with every tile read
    right, and together some do not."""
    def change(img: np.ndarray, tile: float) -> np.ndarray:
        for name in names:
            img = CHANGES[name](img, tile)
        return img
    return change


COMPOUNDS = ("glare+jpeg", "glare+noise", "glare+blur", "steep45+glare", "steep45+noise", "steep45+glare+noise",
             "bright+noise", "dim+jpeg", "cam45+jpeg", "cam45+dim+jpeg", "cam55+vignette+warm", "lowlight+blur",
             "rot30+blur+warm", "rot135+bright+jpeg", "shadow+shake+cool", "tilt+grey+noise")
CHANGES.update({name: compound(*name.split("+")) for name in COMPOUNDS})


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_photo_args(ap)
    ap.add_argument("--changes", nargs="+", default=list(CHANGES), choices=list(CHANGES))
    args = ap.parse_args()

    for key, img, median in labelled_photos(args):
        tile = median or 100.0
        for name in args.changes:
            out = args.out / name / key
            out.parent.mkdir(parents=True, exist_ok=True)
            jpg = out.suffix.lower() in (".jpg", ".jpeg")
            cv2.imwrite(str(out), CHANGES[name](img.bgr, tile), [cv2.IMWRITE_JPEG_QUALITY, 95] if jpg else [])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
