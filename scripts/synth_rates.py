"""CPU seconds per rendered scene for each kind of scene a training call renders.

One process, the way `chickenfoot lab synth` workers and `lab.training.gpu_any_seat` render:
random sizes, detector images only (full scenes where windows are cut from them), a few scenes
first so each process's caches (table surfaces, sensor noise) are warm. CPU time, not wall time,
so a machine shared with other work still gives usable figures; repeat to see the spread.

    python scripts/synth_rates.py [--count 40] [--out /tmp/rates]
"""
from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lab.synth.dataset import SynthJob, _prepare, render_one  # noqa: E402

KINDS = [("hand3d", True, False), ("hand3d", False, False), ("table3d", True, True), ("hand", False, False),
         ("table", False, True)]
"""(kind, low camera, full scenes written) as `gpu_any_seat.FULL` renders them."""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=40, help="scenes per 3D hand kind (a third of it for tables)")
    ap.add_argument("--out", default="/tmp/synth_rates")
    ap.add_argument("--seed", type=int, default=77)
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    for kind, steep, scenes in KINDS:
        out = Path(args.out) / f"{kind}{'_low' if steep else ''}"
        shutil.rmtree(out, ignore_errors=True)
        job = SynthJob(str(out), kind, args.seed, None, None, pips=False, scenes=scenes, steep=steep)
        _prepare(out)
        for i in range(3):
            render_one(job, 10_000 + i)
        n = args.count if kind == "hand3d" else max(4, args.count // 3)
        c0, t0 = time.process_time(), time.perf_counter()
        for i in range(n):
            render_one(job, i)
        print(f"{kind:8s} low={steep!s:5s} {n:3d} scenes: {(time.process_time() - c0) / n:.3f} CPU-s/scene, "
              f"{(time.perf_counter() - t0) / n:.3f} wall-s/scene", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
