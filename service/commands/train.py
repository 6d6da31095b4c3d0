"""`chickenfoot train`: reproduce the committed models from scratch (data generation included)."""
from __future__ import annotations

import json
from pathlib import Path

from ..cli import UserError


def register(sub) -> None:
    p = sub.add_parser("train", help="render training data and train the tile and pip detectors")
    p.add_argument("--data", default="data/synth", help="folder for the rendered training data")
    p.add_argument("--scenes", type=int, default=2400, help="hand scenes to render (skipped if present)")
    p.add_argument("--table-scenes", type=int, default=0, help="table scenes to render in addition")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--det-epochs", type=int, default=None, help="default: 80 on a GPU, 15 on the CPU")
    p.add_argument("--pip-epochs", type=int, default=None, help="default: 60 on a GPU, 12 on the CPU")
    p.add_argument("--imgsz", type=int, default=None, help="detector input size (default: 640 GPU, 320 CPU)")
    p.add_argument("--out", default="models", help="where the ONNX models are written")
    p.set_defaults(func=run)


def run(args) -> int:
    try:
        from vision.training.train import train_all
    except ImportError as exc:
        raise UserError(f"training needs the [train] extra ({exc.name} is missing): pip install -e '.[train]'") from None
    from vision.synth.dataset import SynthJob, generate

    root = Path(args.data)
    if not (root / "detect" / "data.yaml").exists() or not any((root / "scenes").glob("*.json")):
        print(json.dumps(generate(SynthJob(str(root), "hand", args.seed, None, None), args.scenes)))
        if args.table_scenes:
            print(json.dumps(generate(SynthJob(str(root), "table", args.seed, None, None), args.table_scenes)))
    result = train_all(root, Path(args.out), args.det_epochs, args.pip_epochs, args.imgsz)
    print(json.dumps(result, indent=2))
    return 0
