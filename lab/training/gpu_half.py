"""The half reader's GPU recipe: many more rendered ends, trained on the GPU within one call.

On the CPU the half reader learnt from 188,000 ends for 14 epochs (33 minutes on 2 threads).
A lent GPU machine renders scenes on 16 cores in minutes and trains the same network, 1.5x
wider (`width` 24, as the committed reader; 16 read a double-15's 15 at 0.88 on
720p tables, 24 at 0.97, for ~1.7x the half reader's time), on several times the ends for many
more epochs. The hand and table scenes are the ones the detector's GPU stage renders
(`gpu_detector.render`, so one call's data serves both), plus big-set tables and hands
(`BIG_SETS` x `big_scale`), whose values 13-18 are rare elsewhere.

Run on a machine with a GPU:  python -m lab.training.gpu_half --out OUT --deadline 560
(rendering takes ~300 s of that; a second call on the still-warm machine finds the scenes and
samples under --work and trains for the whole call, as the committed reader was trained).
"""
from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from .half_tune import BIG_SMALL_SCENES, HUE_SCENES

BIG_SETS = (("table", 12, 300), ("table", 15, 400), ("table", 18, 400), ("hand", 15, 600), ("hand", 18, 600))
"""(kind, set, count) rendered besides the detector stage's random-set scenes."""


GPU_HUE_TUNE = dict(hands=1600, tables=800, big_scale=0.8, hue_scale=1.25, lr=1e-3, windows=False)
"""The committed reader's last stage: the reader trained from scratch, fine-tuned on
scenes of which a third are hue-coded (`HUE_SCENES`, new draws), the rest the first of those the
first stage drew (same seeds, fewer of them).
One lent call: `python -m lab.training.gpu_half --out OUT --work W --hands 1600 --tables 800
--big-scale 0.8 --hue-scale 1.25 --no-windows --init models/half_reader.onnx --lr 1e-3 --deadline 335`
(its scenes rendered and cut in 202 s on 16 cores by `--prepare-only` first)."""


GPU_BIG_TUNE = dict(hands=1000, tables=500, big_scale=0.5, hue_scale=0.7, big_small_scale=0.8, lr=1e-3,
                    windows=False, seed=331)
"""The big sets' reader (`half_reader_big.onnx`): the committed reader fine-tuned on
scenes with the big sets' small tiles (`BIG_SMALL_SCENES`) beside random, big-set and hue-coded
ones. One lent call: `OUT=... DEADLINE=555 sh scripts/gpu_half_small.sh` (its lr 1e-3 run: rendered
and cut in 204 s on 16 cores, then 18 epochs in 351 s)."""


def render_big_sets(work: Path, workers: int, seed: int, scale: float = 1.0) -> list[Path]:
    from lab.synth.dataset import SynthJob, generate

    dirs = []
    for k, (kind, set_max, n) in enumerate(BIG_SETS):
        count = max(1, round(n * scale))
        d = work / f"big_{kind}{set_max}"
        if not (d / "scenes").is_dir() or len(list((d / "scenes").glob("*.json"))) < count:
            generate(SynthJob(str(d), kind, seed + k, None, set_max, detect=False, pips=False), count,
                     workers=workers, progress=False)
        dirs.append(d / "scenes")
    return dirs


def train_gpu_half(work: Path, out: Path, hours: float, *, hands: int = 4000, tables: int = 2000, seed: int = 71,
                   versions: int = 3, batch: int = 1024, lr: float = 4e-3, width: int = 24, big_scale: float = 2.5,
                   workers: int | None = None, deadline_s: float | None = None, log=print, hue_scale: float = 0.0,
                   init: Path | None = None, windows: bool = True, prepare_only: bool = False,
                   big_small_scale: float = 0.0) -> dict:
    """Render (what is not under `work` yet), cut the ends, train for `hours` and export `out`
    (the half reader's ONNX file); returns the training summary. With `deadline_s`, training
    instead gets what is left of that many seconds, less 40 for the export (one lent call).
    `init`: an exported reader to fine-tune instead of training from scratch; `windows`: also
    cut the detector stage's table windows; `prepare_only`: stop once the ends are cut;
    `big_small_scale`: also `BIG_SMALL_SCENES` (720p tables of the big sets, their tiles 25-60 px)
    at that scale, in a folder of their own (their folder names repeat `HUE_SCENES`')."""
    from .gpu_detector import render
    from .half_data import build_half_dataset
    from .half_train import train_half_reader
    from .half_tune import render_tune_scenes

    t0 = time.perf_counter()
    workers = workers or os.cpu_count() or 2
    render(work, hands, tables, workers, seed, (0.94 * 640, 1.72 * 640), 640, 2, windows=windows)
    dirs = [work / "hand" / "scenes", work / "table" / "scenes", *render_big_sets(work, workers, seed + 10, big_scale)]
    if hue_scale > 0:
        dirs += render_tune_scenes(work, seed + 20, workers, hue_scale, HUE_SCENES)
    if big_small_scale > 0:
        dirs += render_tune_scenes(work / "big_small", seed + 30, workers, big_small_scale, BIG_SMALL_SCENES)
    log(f"rendered ({time.perf_counter() - t0:.0f} s)")
    halves = work / "halves"
    if not (halves / "val.npz").exists():
        counts = build_half_dataset(dirs, halves, versions=versions, workers=workers, seed=seed)
        log(f"half samples {counts} ({time.perf_counter() - t0:.0f} s)")
    if prepare_only:
        return {"prepared": str(halves), "seconds": round(time.perf_counter() - t0)}
    if deadline_s is not None:
        hours = max(0.01, (deadline_s - (time.perf_counter() - t0) - 40) / 3600)
    return train_half_reader(halves, out, hours=hours, batch=batch, lr=lr, width=width, log=log, init=init)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--work", default="/tmp/cf_gpu")
    ap.add_argument("--deadline", type=float, default=560, help="seconds from start by which the model is exported")
    ap.add_argument("--hands", type=int, default=4000)
    ap.add_argument("--tables", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=71)
    ap.add_argument("--versions", type=int, default=3)
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--lr", type=float, default=4e-3)
    ap.add_argument("--width", type=int, default=24)
    ap.add_argument("--big-scale", type=float, default=2.5, help="multiplies BIG_SETS' scene counts")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--hue-scale", type=float, default=0.0, help="multiplies HUE_SCENES' scene counts (0: none)")
    ap.add_argument("--init", default=None, help="an exported reader to fine-tune (default: from scratch)")
    ap.add_argument("--no-windows", action="store_true", help="skip the detector stage's table windows")
    ap.add_argument("--big-small-scale", type=float, default=0.0,
                    help="multiplies BIG_SMALL_SCENES' scene counts (0: none)")
    ap.add_argument("--prepare-only", action="store_true", help="render and cut the ends, do not train")
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    res = train_gpu_half(Path(args.work), out / "half_reader.onnx", 0.0, deadline_s=args.deadline, hands=args.hands,
                         tables=args.tables, seed=args.seed, versions=args.versions, batch=args.batch, lr=args.lr,
                         width=args.width, big_scale=args.big_scale, workers=args.workers, log=lambda m: print(m, flush=True),
                         hue_scale=args.hue_scale, init=Path(args.init) if args.init else None,
                         windows=not args.no_windows, prepare_only=args.prepare_only,
                         big_small_scale=args.big_small_scale)
    res.update(seconds=round(time.perf_counter() - t0), args=vars(args))
    (out / "half_summary.json").write_text(json.dumps(res, indent=1))
    print("done", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
