"""Does structural similarity (scikit-image's SSIM) judge a tile's kept place picture as the
tracker's own correlation-plus-brightness check does?

The tracker keeps a small straightened picture of each board tile's place and later asks
`same_picture(then, now)`: a tile whose place still looks as it did has not left the table,
whatever the reader makes of it. This script tracks rendered rounds with the real recognizer
(as `chickenfoot lab eval-tracking --model` does), records every pair of pictures the tracker
compares with the verdict it got, and what the rendered round knows about the place in both
frames: which true tile lay there (if any) and how much of it a hand covered. It then scores the
same pairs with SSIM and asks whether some threshold gives the same verdicts, and which measure
errs less where the truth is plain.

    python scripts/place_similarity_study.py record OUT.npz [--runs 0:2,11:6]
    python scripts/place_similarity_study.py analyse OUT.npz

`record` changes nothing in the tracker: it wraps the comparison to listen, and the verdicts
it records are the tracker's own. `analyse` needs scikit-image on the path.
"""
from __future__ import annotations

import argparse
import sys
import time
import weakref
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SIZE = (1280, 720)
SETS = (6, 9, 12, 15)
"""`eval-tracking`'s defaults: a round's set is SETS[index % 4]."""
MATCH_IOU = 0.5
"""Least overlap (intersection over union) of a pose with a true tile's box to take it for that tile."""
EMPTY_IOU = 0.1
"""Most overlap with any true tile for a place to count as bare table (between the two: unknown)."""
FIT_IOU = 0.85
"""Least overlap of the pose with its true tile, in both frames, for a place to show the tile
squarely: below it (just after a knocked camera, before the board's poses follow) the picture
holds the tile shifted, and "the same" is no plain truth."""
HAND_COVER = 0.05
"""Share of a place a hand may cover for its picture still to count as the tile's."""


# --- recording ---------------------------------------------------------------------------

class Recorder:
    """Listens to `tile_patch` and `same_picture` while a round is tracked: which frame and
    pose each picture came from, and every comparison with its verdict."""

    def __init__(self) -> None:
        self.frame_of_image: dict[int, int] = {}
        self.patch_origin: dict[int, tuple[int, np.ndarray]] = {}
        self.kept: list[np.ndarray] = []  # keeps recorded pictures alive, so their ids stay theirs
        self.pairs: list[dict[str, Any]] = []
        self.site = "?"

    def saw_frame(self, frame: Any, index: int) -> None:
        if isinstance(frame, np.ndarray):
            key = id(frame)
            self.frame_of_image[key] = index
            weakref.finalize(frame, self.frame_of_image.pop, key, None)

    def made_patch(self, image: Any, corners: np.ndarray, patch: np.ndarray | None) -> None:
        if patch is not None:
            self.kept.append(patch)
            self.patch_origin[id(patch)] = (self.frame_of_image.get(id(image), -1), np.array(corners, np.float64))

    def compared(self, ref: np.ndarray, cur: np.ndarray, verdict: bool, site: str) -> None:
        then = self.patch_origin.get(id(ref), (-1, None))
        now = self.patch_origin.get(id(cur), (-1, None))
        self.pairs.append({"ref": np.array(ref), "cur": np.array(cur), "verdict": verdict, "site": site,
                           "then": then, "now": now})


def _install(rec: Recorder) -> None:
    """Wrap the comparison where the tracker's modules reach it (each imported the names)."""
    from vision.tracking import board, changes, corrections, intake, loose, observing, pictures

    real_patch, real_same = board.tile_patch, board.same_picture

    def tile_patch(image, pose):
        out = real_patch(image, pose)
        rec.made_patch(image, pose.corners, out)
        return out

    def same_in(site: str):
        def same_picture(ref, cur):
            verdict = real_same(ref, cur)
            rec.compared(ref, cur, verdict, site)
            return verdict
        return same_picture

    for mod in (board, changes, corrections, loose, observing, pictures):
        if hasattr(mod, "tile_patch"):
            mod.tile_patch = tile_patch
    changes.same_picture = same_in("settled")
    pictures.same_picture = same_in("kept")

    real_push = intake.FrameIntake.push

    def push(self, frame, t=None):
        rec.saw_frame(frame, self.frames)
        return real_push(self, frame, t)

    intake.FrameIntake.push = push

    real_observe = intake.FrameIntake._observe

    def observe(self, obs, fresh, recheck):
        real_observe(self, obs, fresh, recheck)
        if not fresh or obs.image is None or obs.motion is not None:
            return
        # every settled place asked about on this fresh reading, not only those the tracker asked
        # about (the real functions: nothing the tracker keeps is touched)
        for bt in self.board.values():
            if bt.patch is None or bt.missing:
                continue
            cur = real_patch(obs.image, bt.pose)
            if cur is not None:
                rec.made_patch(obs.image, bt.pose.corners, cur)
                rec.compared(bt.patch, cur, real_same(bt.patch, cur), "probe")

    intake.FrameIntake._observe = observe


def _quad_mask(quads: list[np.ndarray], box: tuple[int, int, int, int]) -> np.ndarray:
    x0, y0, x1, y1 = box
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    for q in quads:
        cv2.fillPoly(mask, [np.round((q - [x0, y0]) * 4).astype(np.int32)], 1, shift=2)
    return mask


def place_truth(plan, index: int, corners: np.ndarray) -> tuple[int, float, float]:
    """At frame `index`, the true tile lying at `corners` (-1: none), its overlap, and the share
    of the place a hand covers."""
    frame = plan.frames[index]
    h = plan.homography(frame.camera)
    x0, y0 = np.floor(corners.min(0)).astype(int) - 2
    x1, y1 = np.ceil(corners.max(0)).astype(int) + 2
    box = (int(x0), int(y0), int(x1), int(y1))
    place = _quad_mask([corners], box).astype(bool)
    area = max(int(place.sum()), 1)
    best, best_iou = -1, 0.0
    for tid in frame.tiles:
        q = plan.image_corners(tid, frame.camera).astype(np.float64)
        if q[:, 0].max() < x0 or q[:, 0].min() > x1 or q[:, 1].max() < y0 or q[:, 1].min() > y1:
            continue
        inter, _ = cv2.intersectConvexConvex(q.astype(np.float32), corners.astype(np.float32))
        union = cv2.contourArea(q.astype(np.float32)) + cv2.contourArea(corners.astype(np.float32)) - inter
        iou = inter / union if union > 0 else 0.0
        if iou > best_iou:
            best, best_iou = tid, iou
    cover = 0.0
    if frame.hand is not None:
        polys = [cv2.perspectiveTransform(p.reshape(-1, 1, 2).astype(np.float64), h).reshape(-1, 2)
                 for p in frame.hand.polygons()]
        cover = float((_quad_mask(polys, box).astype(bool) & place).sum() / area)
    return (best if best_iou >= MATCH_IOU else -1), float(best_iou), cover


def record(out: Path, runs: list[tuple[int, int]]) -> None:
    from lab.synth.sequence import plan_sequence, round_name, sequence_rng
    from lab.tracking_eval import run_model
    from lab.tuning_file import Tuning
    from service.commands.common import load_recognizer

    rec = Recorder()
    _install(rec)
    tuning = Tuning.defaults()
    recognizer = load_recognizer(None, tuning.recognizer)
    rows: dict[str, list] = {k: [] for k in ("ref", "cur", "verdict", "site", "round", "then_frame", "now_frame",
                                             "then_tile", "now_tile", "then_iou", "now_iou", "then_hand",
                                             "now_hand")}
    for seed, count in runs:
        for i in range(count):
            t0 = time.perf_counter()
            plan = plan_sequence(sequence_rng(seed, i), SIZE, SETS[i % len(SETS)])
            name = round_name(seed, i)
            rec.pairs.clear()
            run = run_model(plan, recognizer, tuning=tuning.tracker)
            for p in rec.pairs:
                (tf, tc), (nf, nc) = p["then"], p["now"]
                tt = place_truth(plan, tf, tc) if tf >= 0 else (-2, 0.0, 0.0)
                nt = place_truth(plan, nf, nc) if nf >= 0 else (-2, 0.0, 0.0)
                for k, v in (("ref", p["ref"]), ("cur", p["cur"]), ("verdict", p["verdict"]), ("site", p["site"]),
                             ("round", name), ("then_frame", tf), ("now_frame", nf), ("then_tile", tt[0]),
                             ("now_tile", nt[0]), ("then_iou", tt[1]), ("now_iou", nt[1]), ("then_hand", tt[2]),
                             ("now_hand", nt[2])):
                    rows[k].append(v)
            print(f"{name}: {len(plan.frames)} frames, {run.frames_read} read, {len(run.events)} events, "
                  f"{len(rec.pairs)} comparisons ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
            rec.kept.clear()
            rec.patch_origin.clear()
    np.savez_compressed(out, **{k: np.array(v) for k, v in rows.items()})
    print(f"{len(rows['verdict'])} comparisons kept in {out}", file=sys.stderr)


# --- analysing ---------------------------------------------------------------------------

CORRELATION_SAME = 0.75
BRIGHTNESS_SAME = 0.25
"""The hand-written rule SSIM was measured against: same when, for the whole box or its inside,
the correlation is at least CORRELATION_SAME and the mean brightness changed by at most
BRIGHTNESS_SAME of itself."""


def brightness_change(a: np.ndarray, b: np.ndarray) -> float:
    return float(abs(a.mean() - b.mean()) / (a.mean() + 1.0))


def correlation(a: np.ndarray, b: np.ndarray) -> float:
    """Normalised cross-correlation of two pictures (the hand-written measure)."""
    x, y = a - a.mean(), b - b.mean()
    return float((x * y).sum() / np.sqrt((x * x).sum() * (y * y).sum() + 1e-6))


def ncc_scores(ref: np.ndarray, cur: np.ndarray) -> np.ndarray:
    """The correlation rule as one score per pair: the best correlation over the two layers whose
    brightness check passes (-1 where neither does); same iff >= CORRELATION_SAME."""
    out = np.full(len(ref), -1.0)
    for n in range(len(ref)):
        for a, b in zip(ref[n], cur[n]):
            if brightness_change(a, b) <= BRIGHTNESS_SAME:
                out[n] = max(out[n], correlation(a, b))
    return out


def ssim_scores(ref: np.ndarray, cur: np.ndarray, bright: bool = False, **opts: Any) -> np.ndarray:
    """SSIM as one score per pair: the better of the two layers (the whole box, its inside); with
    `bright`, only layers that pass the tracker's brightness check count (-1 where neither does)."""
    from skimage.metrics import structural_similarity

    out = np.full(len(ref), -1.0)
    for n in range(len(ref)):
        for a, b in zip(ref[n], cur[n]):
            if bright and brightness_change(a, b) > BRIGHTNESS_SAME:
                continue
            out[n] = max(out[n], structural_similarity(a, b, data_range=255.0, **opts))
    return out


def best_threshold(scores: np.ndarray, target: np.ndarray) -> tuple[float, int]:
    """The threshold (same iff score >= it) that disagrees with `target` least, and how often it does."""
    cands = np.unique(scores)
    cands = np.concatenate([cands, [cands[-1] + 1e-6]])
    best = (float(cands[0]), len(target) + 1)
    for t in cands:
        wrong = int(((scores >= t) != target).sum())
        if wrong < best[1]:
            best = (float(t), wrong)
    # the middle of the widest run of equally good thresholds, not its edge
    good = [t for t in cands if int(((scores >= t) != target).sum()) == best[1]]
    lo = max([s for s in scores if s < good[0]], default=good[0])
    return float((good[0] + lo) / 2 if lo < good[0] else good[0]), best[1]


def gap(scores: np.ndarray, same: np.ndarray) -> float:
    """Lowest score among pairs judged same minus the highest among those judged different
    (negative: the groups overlap)."""
    if not same.any() or same.all():
        return float("nan")
    return float(scores[same].min() - scores[~same].max())


def analyse(path: Path) -> None:
    d = np.load(path)
    ref, cur, verdict = d["ref"].astype(np.float32), d["cur"].astype(np.float32), d["verdict"].astype(bool)
    n = len(verdict)
    key = np.array([hash((r.tobytes(), c.tobytes())) for r, c in zip(ref, cur)])
    _, first = np.unique(key, return_index=True)
    print(f"comparisons recorded: {n} ({len(first)} distinct pairs of pictures); tracker said same on "
          f"{int(verdict.sum())}, different on {int((~verdict).sum())}")
    for site in np.unique(d["site"]):
        m = d["site"] == site
        print(f"  from {site!s:8s}: {int(m.sum())} ({int(verdict[m].sum())} same)")

    ncc = ncc_scores(ref, cur)
    print(f"the correlation rule gives the recorded verdicts on {int(((ncc >= CORRELATION_SAME) == verdict).sum())} "
          f"of {n} (all of them where the tracker compared by correlation when they were recorded)")
    # truth: where the place is plain (both pictures matched to a true tile or to none, no hand)
    then_t, now_t = d["then_tile"], d["now_tile"]
    origin = (then_t != -2) & (now_t != -2)
    partial = ((then_t == -1) & (d["then_iou"] >= EMPTY_IOU)) | ((now_t == -1) & (d["now_iou"] >= EMPTY_IOU))
    hand = origin & ((d["then_hand"] > HAND_COVER) | (d["now_hand"] > HAND_COVER))
    truth_same = then_t == now_t
    shifted = origin & truth_same & (then_t >= 0) & (np.minimum(d["then_iou"], d["now_iou"]) < FIT_IOU)
    known = origin & ~partial & ~hand & ~shifted
    print(f"truth: {int(known.sum())} plain pairs ({int((known & truth_same).sum())} the same tile or the same bare "
          f"place, {int((known & ~truth_same).sum())} not), {int(hand.sum())} with a hand over the place, "
          f"{int((origin & partial & ~hand).sum())} with a tile partly in the place, {int((shifted & ~hand).sum())} "
          f"with the tile there but the pose off it, {int((~origin).sum())} of "
          f"unknown origin")
    for site in np.unique(d["site"]):
        m = (d["site"] == site) & known
        print(f"  from {site!s:8s}: {int(m.sum())} plain ({int((m & truth_same).sum())} truly the same)")

    variants = {
        "ssim (7x7 uniform window)": {},
        "ssim (7x7) + brightness": {"bright": True},
        "ssim (gaussian sigma 1.5)": {"gaussian_weights": True, "sigma": 1.5, "use_sample_covariance": False},
        "ssim (5x5 uniform window)": {"win_size": 5},
    }
    measures = {"ncc+brightness": (ncc, CORRELATION_SAME)}
    for name, opts in variants.items():
        s = ssim_scores(ref, cur, **opts)
        t, _ = best_threshold(s, verdict)
        measures[name] = (s, t)
    print("(SSIM thresholds: the one agreeing best with the tracker's verdicts over all pairs)")

    groups = {"the tracker's own comparisons": d["site"] != "probe",
              "every settled place, each fresh reading": d["site"] == "probe",
              "all": np.ones(n, bool)}
    for label, g in groups.items():
        if not g.any():
            continue
        print()
        print(f"{label}: {int(g.sum())} pairs ({int((g & verdict).sum())} judged same by the tracker), "
              f"{int((g & known).sum())} plain ({int((g & known & truth_same).sum())} truly the same)")
        print(f"  {'measure':28s} {'thresh':>7s} {'disagree':>8s} {'gap(verdicts)':>13s} {'near(+-0.05)':>12s} "
              f"{'err(plain)':>10s} {'false same':>10s} {'false diff':>10s} {'gap(truth)':>10s}")
        for name, (s, t) in measures.items():
            said = s >= t
            k = known & g
            fs = int((said & ~truth_same & k).sum())
            fd = int((~said & truth_same & k).sum())
            print(f"  {name:28s} {t:7.3f} {int((said != verdict)[g].sum()):8d} {gap(s[g], verdict[g]):13.3f} "
                  f"{int((np.abs(s - t) < 0.05)[g].sum()):12d} {fs + fd:10d} {fs:10d} {fd:10d} "
                  f"{gap(s[k], truth_same[k]):10.3f}")
    # for scale: each measure with a threshold fitted to the truth itself
    print()
    for name, (s, _) in measures.items():
        t, wrong = best_threshold(s[known], truth_same[known])
        print(f"  {name}: fitted to the truth instead, threshold {t:.3f} errs on {wrong} of {int(known.sum())} "
              f"plain pairs")

    # where they disagree, what the truth says
    print()
    for name, (s, t) in list(measures.items())[1:]:
        said = s >= t
        rows = np.flatnonzero(said != verdict)
        print(f"{name}: {len(rows)} disagreements with the tracker's verdicts")
        for r in rows[:25]:
            tr = ("same" if truth_same[r] else "different") if known[r] else \
                ("hand" if hand[r] else ("pose off" if shifted[r] else ("partly" if origin[r] else "?")))
            print(f"  {d['round'][r]} {d['site'][r]} frames {d['then_frame'][r]}->{d['now_frame'][r]} "
                  f"tiles {then_t[r]}->{now_t[r]}: ncc {ncc[r]:.3f} ({'same' if verdict[r] else 'diff'}), "
                  f"ssim {s[r]:.3f} ({'same' if said[r] else 'diff'}); truth {tr}")


def _runs(text: str) -> list[tuple[int, int]]:
    return [(int(a), int(b)) for a, b in (part.split(":") for part in text.split(",") if part.strip())]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record", help="track rendered rounds and keep every place comparison")
    r.add_argument("out", type=Path)
    r.add_argument("--runs", type=_runs, default=[(0, 2), (11, 6)],
                   help="SEED:ROUNDS,... (default 0:2,11:6: the rounds the golden tracking checks use)")
    a = sub.add_parser("analyse", help="score the kept comparisons with SSIM and compare the verdicts")
    a.add_argument("path", type=Path)
    args = ap.parse_args()
    if args.cmd == "record":
        record(args.out, args.runs)
    else:
        analyse(args.path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
