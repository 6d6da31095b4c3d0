"""Measure the recognizer on labelled photos.

Real labels (`../shared/data/real/labels.json` format) name each photo's tiles but not
where they lie, so detections are matched to labels by value: tiles are paired to
maximise agreeing ends (Hungarian assignment), which is the most favourable pairing a
position-free label allows, and the figures say so. Rendered scenes carry corners, so
there matching is by polygon overlap.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from vision.imageio import IMAGE_SUFFIXES, ImageError
from vision.onnx_yolo import ModelError, polygon_iou


@dataclass
class ImageScore:
    image: str
    true_tiles: int
    found_tiles: int
    matched: int  # detections paired with a labelled tile
    exact: int  # pairs whose identity (unordered values) is right
    ends_right: int
    true_total: int
    found_total: int
    error: str | None = None
    read: list[list[int]] = field(default_factory=list)
    truth: list[list[int]] = field(default_factory=list)
    true_face_down: int | None = None  # where the label counts the tiles lying face down
    found_face_down: int | None = None


def _assign(pred: list[tuple[int, int]], truth: list[tuple[int, int]]) -> list[tuple[int, int, int]]:
    """Pairs (i_pred, j_truth, ends_agreeing) maximising agreeing ends."""
    if not pred or not truth:
        return []
    gain = np.zeros((len(pred), len(truth)))
    for i, (a, b) in enumerate(pred):
        for j, (c, d) in enumerate(truth):
            gain[i, j] = max((a == c) + (b == d), (a == d) + (b == c)) + 0.01  # +0.01: pair even if both wrong
    pairs = hungarian(-gain)
    return [(i, j, int(round(gain[i, j] - 0.01))) for i, j in pairs]


def hungarian(cost: np.ndarray) -> list[tuple[int, int]]:
    """Minimum-cost assignment (rectangular allowed), O(n^3); avoids a SciPy dependency."""
    cost = np.asarray(cost, float)
    transposed = cost.shape[0] > cost.shape[1]
    if transposed:
        cost = cost.T
    n, m = cost.shape
    u, v = np.zeros(n + 1), np.zeros(m + 1)
    p, way = np.zeros(m + 1, int), np.zeros(m + 1, int)
    for i in range(1, n + 1):
        p[0] = i
        j0 = 0
        minv = np.full(m + 1, np.inf)
        used = np.zeros(m + 1, bool)
        while True:
            used[j0] = True
            i0 = p[j0]
            delta, j1 = np.inf, 0
            for j in range(1, m + 1):
                if not used[j]:
                    cur = cost[i0 - 1, j - 1] - u[i0] - v[j]
                    if cur < minv[j]:
                        minv[j], way[j] = cur, j0
                    if minv[j] < delta:
                        delta, j1 = minv[j], j
            for j in range(m + 1):
                if used[j]:
                    u[p[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while True:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
            if j0 == 0:
                break
    pairs = [(int(p[j]) - 1, j - 1) for j in range(1, m + 1) if p[j] != 0]
    return [(b, a) for a, b in pairs] if transposed else pairs


def score_image(name: str, pred: list[tuple[int, int]], truth: list[tuple[int, int]]) -> ImageScore:
    pairs = _assign(pred, truth)
    exact = sum(1 for i, j, _ in pairs if sorted(pred[i]) == sorted(truth[j]))
    return ImageScore(name, len(truth), len(pred), len(pairs), exact, sum(e for _, _, e in pairs),
                      sum(map(sum, truth)), sum(map(sum, pred)), None,
                      [list(p) for p in pred], [list(t) for t in truth])


def summarise(scores: list[ImageScore]) -> dict:
    ok = [s for s in scores if s.error is None]
    true_n = sum(s.true_tiles for s in ok)
    found_n = sum(s.found_tiles for s in ok)
    matched = sum(s.matched for s in ok)
    counted = [s for s in ok if s.true_face_down is not None]
    return {
        "images": len(scores),
        "failed": len(scores) - len(ok),
        "tiles": true_n,
        "tile_recall": round(matched / true_n, 4) if true_n else None,
        "tile_precision": round(matched / found_n, 4) if found_n else None,
        "exact_tile": round(sum(s.exact for s in ok) / true_n, 4) if true_n else None,
        "per_end": round(sum(s.ends_right for s in ok) / (2 * true_n), 4) if true_n else None,
        "exact_hand_total": round(sum(s.true_total == s.found_total for s in ok) / len(ok), 4) if ok else None,
        "exact_face_down": round(sum(s.true_face_down == s.found_face_down for s in counted) / len(counted), 4)
        if counted else None,
    }


def eval_labelled(folder: Path, labels_file: Path, recognizer, only: str | None = None) -> tuple[dict, list[ImageScore]]:
    labels = json.loads(Path(labels_file).read_text())
    scores: list[ImageScore] = []
    for rel, entry in sorted(labels.items()):
        if only and only not in rel:
            continue
        truth = [tuple(t) for t in entry.get("tiles", [])]
        path = Path(folder) / rel
        set_max = _set_from_label(entry.get("set", ""))
        try:
            rec = recognizer.recognize(path, set_max=set_max, name=rel)
        except (ImageError, ModelError) as exc:
            scores.append(ImageScore(rel, len(truth), 0, 0, 0, 0, sum(map(sum, truth)), 0, str(exc)))
            continue
        pred = [t.pips for t in rec.tiles if t.pips is not None]
        score = score_image(rel, pred, truth)
        if isinstance(entry.get("face_down"), int):
            score.true_face_down, score.found_face_down = entry["face_down"], len(rec.face_down)
        scores.append(score)
    return summarise(scores), scores


def _set_from_label(text: str) -> int | None:
    import re

    m = re.match(r"double-(\d+)", text or "")
    return int(m.group(1)) if m and "+" not in text.split()[0] else None


@dataclass
class RenderedScore:
    """One rendered scene's tallies (see `score_rendered`)."""

    true_tiles: int
    matched: int
    extra: int
    exact: int
    ends_right: int
    total_right: bool


def score_rendered(truth: list[dict], found: list[tuple[np.ndarray, tuple[int, int]]], iou: float = 0.5
                   ) -> RenderedScore:
    """Score the face-up tiles found (corners, pips) against a rendered scene's tiles.

    A tile less than 80 % visible is neither asked for nor wrong to find (the usual "ignore"
    region), so a box over one counts neither for precision nor in the found hand total: the
    truth's total leaves such tiles out too. (Counting their pips in the found total alone made
    every hand with a partly hidden tile, read right, a wrong total: fresh double-12 hands read
    0.783 exact totals by that count, 0.883 by this one.)"""
    shown = [t for t in truth if not t["face_down"] and t["visible"] >= 0.8]
    partial = [np.array(t["corners"], np.float32) for t in truth if not t["face_down"] and t["visible"] < 0.8]
    used: set[int] = set()
    matched = extra = exact = ends = found_total = 0
    for corners, (p, q) in found:
        corners = np.asarray(corners, np.float32)
        if any(polygon_iou(corners, c) >= iou for c in partial):
            continue
        found_total += p + q
        best, bj = 0.0, None
        for j, t in enumerate(shown):
            if j not in used:
                v = polygon_iou(corners, np.array(t["corners"], np.float32))
                if v > best:
                    best, bj = v, j
        if bj is None or best < iou:
            extra += 1
            continue
        used.add(bj)
        matched += 1
        a, b = shown[bj]["pips"]
        exact += sorted((a, b)) == sorted((p, q))
        ends += max((a == p) + (b == q), (a == q) + (b == p))
    true_total = sum(sum(t["pips"]) for t in shown)
    return RenderedScore(len(shown), matched, extra, exact, ends, true_total == found_total)


def eval_rendered(scene_dir: Path, recognizer, limit: int | None = None, iou: float = 0.5) -> dict:
    """Rendered scenes (JSON labels with corners): detection matched by polygon IoU."""
    files = sorted(Path(scene_dir).glob("*.json"))[:limit]
    scores = []
    for f in files:
        lab = json.loads(f.read_text())
        rec = recognizer.recognize(Path(scene_dir) / lab["image"], set_max=lab["set"])
        scores.append(score_rendered(lab["tiles"], [(d.corners, d.pips) for d in rec.tiles], iou))
    n = sum(s.true_tiles for s in scores)
    tp = sum(s.matched for s in scores)
    fp = sum(s.extra for s in scores)
    return {"images": len(files), "tiles": n, "tile_recall": round(tp / n, 4) if n else None,
            "tile_precision": round(tp / (tp + fp), 4) if tp + fp else None,
            "exact_tile": round(sum(s.exact for s in scores) / n, 4) if n else None,
            "per_end": round(sum(s.ends_right for s in scores) / (2 * n), 4) if n else None,
            "exact_hand_total": round(sum(s.total_right for s in scores) / len(files), 4) if files else None}


def crop_identity(path: Path) -> tuple[int, int] | None:
    """`3x1/<photo>.jpg` (folder names the tile) or `10-12.jpg` (file names it)."""
    import re

    for text in (path.stem, path.parent.name):
        m = re.fullmatch(r"(\d+)[x-](\d+)", text)
        if m:
            return int(m.group(1)), int(m.group(2))
    return None


def eval_single_tiles(folder: Path, recognizer, per_class: int | None = None, set_max: int | None = None) -> dict:
    """Photos of one tile each (identity in the path): found rate, exact identity, per-end accuracy."""
    groups: dict[tuple[int, int], list[Path]] = {}
    for p in sorted(Path(folder).rglob("*")):
        if p.suffix.lower() in IMAGE_SUFFIXES and (ident := crop_identity(p)) is not None:
            groups.setdefault(ident, []).append(p)
    n = found = exact = ends = 0
    confusions: dict[str, int] = {}
    for ident, paths in sorted(groups.items()):
        for p in paths[:per_class] if per_class else paths:
            n += 1
            try:
                rec = recognizer.recognize(p, set_max=set_max)
            except ImageError:
                continue
            if not rec.tiles:
                continue
            found += 1
            best = max(rec.tiles, key=lambda t: t.confidence)
            a, b = ident
            p0, p1 = best.pips
            ok = sorted((a, b)) == sorted((p0, p1))
            exact += ok
            ends += max((a == p0) + (b == p1), (a == p1) + (b == p0))
            if not ok:
                key = f"{min(a, b)}-{max(a, b)} as {min(p0, p1)}-{max(p0, p1)}"
                confusions[key] = confusions.get(key, 0) + 1
    top = sorted(confusions.items(), key=lambda kv: -kv[1])[:10]
    return {"images": n, "found": round(found / n, 4) if n else None, "exact_tile": round(exact / n, 4) if n else None,
            "per_end": round(ends / (2 * n), 4) if n else None, "top_confusions": top}
