"""Fine-tune the half reader on the sets it reads worst: colour-coded pips told from a coloured
face by hue, not brightness.

Measured (`models/README.md`): on 720p double-9 to double-15 tables whose pips are
within 0.06 of the face's brightness (lilac on orange) the committed reader read 0.51 of the ends
right, and 0.88 where they differ by 0.2-0.3, against 1.0 on sets drawn at random. Such sets
are a few percent of the renderer's draws, too few for the reader to learn from. This stage
renders scenes of them (`random_style(face="hue-coded")`) beside as many drawn at random, so the
reader keeps what it reads well, and trains the exported reader on their ends at a low
learning rate (`train_half_reader(init=...)`). It runs on the CPU in well under an hour.

Run:  python -m lab.training.half_tune --base models/half_reader.onnx --out OUT/half_reader.onnx

Another stage (`--stage big`, tried and not kept: models/README.md) tunes it on the
big sets' small tiles instead (`BIG_TUNE`): `--stage big --hours 0.6 --lr 5e-4 --seed 3101`.
"""
from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

HUE_SCENES = (("table", "hue-coded", 1200), ("hand", "hue-coded", 800))
"""(kind, face, count) of the scenes whose pips differ from the face by hue alone."""
TUNE_SCENES = HUE_SCENES + (("table", None, 1000), ("hand", None, 600),
                            ("table", None, 400, 15), ("table", None, 400, 18))
"""(kind, face, count[, set]) rendered for the stage: hue-coded sets, and as many drawn at random
(big sets among them: their values 13-18 are rare elsewhere) so nothing else is unlearnt."""
BIG_SMALL_SCENES = (("table", None, 700, 15), ("table", None, 500, 18), ("table", None, 300, 12),
                    ("hand", None, 300, 15), ("hand", None, 200, 18), ("table", None, 500), ("hand", None, 500),
                    ("table", "hue-coded", 300), ("hand", "hue-coded", 200))
"""A stage for the big sets' values on small tiles (tried, not kept): 720p tables of double-12 to
double-18, whose tiles are 25-60 px long, where the committed reader read ends of 13-15 right at
0.83-0.90 (15 read as 14 in 11 of 99), beside hands of those sets and sets drawn at random or
hue-coded, so nothing else is unlearnt."""
STAGES = {"hue": TUNE_SCENES, "big": BIG_SMALL_SCENES}
BIG_TUNE = dict(scenes=BIG_SMALL_SCENES, lr=5e-4, seed=3101)
"""`tune_half_reader`'s arguments for the big-set stage as it was measured."""


def render_tune_scenes(work: Path, seed: int, workers: int, scale: float = 1.0,
                       scenes: tuple = TUNE_SCENES) -> list[Path]:
    """Render each of `scenes` ((kind, face, count[, set]), TUNE_SCENES' form) not yet under
    `work`; returns their scene folders."""
    from lab.synth.dataset import SynthJob, generate

    dirs = []
    for k, (kind, face, count, *set_max) in enumerate(scenes):
        n = max(1, round(count * scale))
        d = work / f"{kind}_{face or 'random'}{set_max[0] if set_max else ''}"
        if not (d / "scenes").is_dir() or len(list((d / "scenes").glob("*.json"))) < n:
            job = SynthJob(str(d), kind, seed + k, (1280, 720) if kind == "table" else None,
                           set_max[0] if set_max else None, detect=False, pips=False, face=face)
            generate(job, n, workers=workers, progress=False)
        dirs.append(d / "scenes")
    return dirs


def tune_half_reader(base: Path, work: Path, out: Path, hours: float, *, seed: int = 191, scale: float = 1.0,
                     versions: int = 2, lr: float = 1e-3, batch: int = 256, workers: int | None = None,
                     log=print, scenes: tuple = TUNE_SCENES) -> dict:
    """Render what is not under `work` yet, cut the ends, fine-tune `base` for `hours` and
    export `out`; returns the training summary."""
    from .half_data import build_half_dataset
    from .half_train import train_half_reader

    t0 = time.perf_counter()
    workers = workers or min(2, os.cpu_count() or 1)
    dirs = render_tune_scenes(work, seed, workers, scale, scenes)
    log(f"rendered ({time.perf_counter() - t0:.0f} s)")
    halves = work / "halves"
    if not (halves / "val.npz").exists():
        counts = build_half_dataset(dirs, halves, versions=versions, workers=workers, seed=seed)
        log(f"half samples {counts} ({time.perf_counter() - t0:.0f} s)")
    res = train_half_reader(halves, out, hours=hours, batch=batch, lr=lr, seed=seed, log=log, init=base)
    res["seconds"] = round(time.perf_counter() - t0)
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="models/half_reader.onnx", help="the exported reader to start from")
    ap.add_argument("--out", required=True, help="the tuned reader's ONNX file")
    ap.add_argument("--work", default="data/half_tune", help="folder for the rendered scenes and ends")
    ap.add_argument("--hours", type=float, default=0.4)
    ap.add_argument("--scale", type=float, default=1.0, help="multiplies every TUNE_SCENES count")
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--seed", type=int, default=191)
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--stage", choices=list(STAGES), default="hue", help="which scenes to tune on")
    args = ap.parse_args(argv)
    res = tune_half_reader(Path(args.base), Path(args.work), Path(args.out), args.hours, seed=args.seed,
                           scale=args.scale, lr=args.lr, workers=args.workers, scenes=STAGES[args.stage])
    print(json.dumps({k: v for k, v in res.items() if k != "history"}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
