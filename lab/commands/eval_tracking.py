"""`chickenfoot lab eval-tracking`: measure the live-game tracker on rendered game sequences.

Three kinds of run, always named in the output so no figure is mistaken for another:

* oracle (default): detections derived from ground truth with simulated recognizer
  noise, motion from ground truth; no pixels, so 50+ rounds take a couple of minutes;
* oracle+pixels (`--pixels`): the same detections, but frames are rendered and the real
  motion gate decides when to read;
* model (`--model`): the real recognizer and motion gate on rendered frames.

`--speed` times the tracker with the real recognizer on rendered 1280x720 frames
(rendering is done first and not timed) and reports processed frames per second.
`--events FILE` keeps what the summary is made from: every round's event stream, so a
change in the tracker can be compared event by event, not only figure by figure.
"""
from __future__ import annotations

import argparse
import json
import sys
import time

from engine.tiles import SUPPORTED_SETS

from lab.tuning_file import Tuning, add_config_arg, load_config_arg, tuning_line
from service.errors import UserError

NOISE_LEVELS = ("default", "harsh", "none")


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"size must look like 1280x720, not {text!r}") from None
    if not (320 <= w <= 4000 and 240 <= h <= 4000):
        raise argparse.ArgumentTypeError("width must be 320-4000 and height 240-4000")
    return w, h


def _sets(text: str) -> list[int]:
    try:
        sets = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--sets takes numbers like 6,9,12, not {text!r}") from None
    bad = [s for s in sets if s not in SUPPORTED_SETS]
    if not sets or bad:
        raise argparse.ArgumentTypeError(f"sets must be among {', '.join(map(str, SUPPORTED_SETS))}")
    return sets


def _indices(text: str) -> set[int]:
    try:
        out = {int(v) for v in text.split(",") if v.strip()}
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected round numbers like 10,27, not {text!r}") from None
    if not out or min(out) < 0:
        raise argparse.ArgumentTypeError(f"expected round numbers like 10,27, not {text!r}")
    return out


def register(sub) -> None:
    p = sub.add_parser("eval-tracking", help="measure the live-game tracker on rendered game sequences")
    p.add_argument("--rounds", type=int, default=50, help="rounds to render and track (default 50)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--sets", type=_sets, default=[6, 9, 12, 15], help="set sizes, cycled (default 6,9,12,15)")
    p.add_argument("--size", type=_size, default=(1280, 720), help="frame size (default 1280x720)")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--oracle", action="store_true", help="ground-truth-derived detections (the default)")
    how.add_argument("--model", nargs="?", const="", metavar="PATH",
                     help="the real recognizer (optionally its model file or folder) on rendered frames")
    p.add_argument("--pixels", action="store_true", help="with --oracle: render frames and use the real motion gate")
    p.add_argument("--noise", choices=NOISE_LEVELS, default="default",
                   help="simulated recognizer noise for --oracle (default, harsh, none)")
    p.add_argument("--speed", action="store_true",
                   help="benchmark: processed frames per second with the real recognizer at --size")
    p.add_argument("--speed-frames", type=int, default=600, help="frames for --speed (default 600)")
    p.add_argument("--from", dest="folder", metavar="DIR",
                   help="track sequences written by `chickenfoot lab synth --kind sequence` instead of new ones")
    p.add_argument("--workers", type=int, default=1,
                   help="rounds tracked side by side in this many processes (default 1; the frames-per-second "
                        "figure is then shared between them: use --speed for speed)")
    p.add_argument("--only", type=_indices, default=None, metavar="K,K,...",
                   help="track only these rounds of the --rounds (by index: 10,27 are seedS-10 and seedS-27)")
    p.add_argument("--examples", action="store_true", help="also print up to 20 examples of each kind of error")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    p.add_argument("--events", metavar="FILE",
                   help="also write every round's events to FILE, one JSON object a line with the round's name")
    add_config_arg(p)
    p.set_defaults(func=run)


def noise_for(level: str):
    from lab.oracle import Noise

    if level == "none":
        return Noise.none()
    if level == "harsh":
        return Noise(jitter=0.06, drop=0.06, misread=0.02, hidden=0.6, partial_miss=0.5, false_tile=0.05,
                     motion_miss=0.15, false_motion=0.03)
    return Noise()


def _plans(args):
    from pathlib import Path

    from lab.synth.sequence import load_sequence, plan_sequence, round_name, sequence_rng

    if args.folder:
        folders = sorted(p for p in Path(args.folder).iterdir() if (p / "truth.json").is_file())
        if not folders:
            raise UserError(f"{args.folder}: no sequences (folders with truth.json) here")
        for i, f in enumerate(folders[: args.rounds]):
            if args.only is not None and i not in args.only:
                continue
            try:
                plan = load_sequence(f)
            except ValueError as exc:
                raise UserError(str(exc)) from None
            plan.meta["name"] = f.name
            plan.meta["frames_dir"] = str(f / "frames")
            yield plan
        return
    for i in range(args.rounds):
        if args.only is not None and i not in args.only:
            continue
        plan = plan_sequence(sequence_rng(args.seed, i), args.size, args.sets[i % len(args.sets)])
        plan.meta["name"] = round_name(args.seed, i)
        yield plan


def _load_recognizer(path: str | None, tuning: Tuning):
    from service.commands.common import load_recognizer

    return load_recognizer(path or None, tuning.recognizer)


def _read_frames(plan):
    """Frames from disk for a sequence written by the synth command (None when not there)."""
    from pathlib import Path

    import cv2

    folder = plan.meta.get("frames_dir")
    if not folder or not Path(folder).is_dir():
        return None
    frames = []
    for f in plan.frames:
        img = cv2.imread(str(Path(folder) / f"{f.index:06d}.jpg"))
        if img is None:
            return None
        frames.append(img)
    return frames


_RECOGNIZERS: dict[tuple[str, Tuning], object] = {}


def _track(job):
    """Track one planned round (in this process or a worker): its `RunResult`."""
    from lab.tracking_eval import run_model, run_oracle

    k, plan, model, noise_level, pixels, seed, tuning = job
    if model is not None:
        if (model, tuning) not in _RECOGNIZERS:
            _RECOGNIZERS[model, tuning] = _load_recognizer(model, tuning)
        return run_model(plan, _RECOGNIZERS[model, tuning], frames=_read_frames(plan), tuning=tuning.tracker)
    return run_oracle(plan, seed=seed * 1000 + k, noise=noise_for(noise_level), pixels=pixels, tuning=tuning.tracker)


def run(args) -> int:
    from lab.tracking_eval import Tally

    if args.rounds < 1:
        raise UserError("--rounds must be at least 1")
    tuning = load_config_arg(args.config)
    if args.speed:
        if args.events:
            raise UserError("--events goes with tracked rounds, not --speed")
        return _speed(args, tuning)
    if args.pixels and args.model is not None:
        raise UserError("--pixels goes with --oracle; --model always renders frames")
    if not 1 <= args.workers <= 64:
        raise UserError("--workers must be 1-64")
    if args.model is not None:
        _load_recognizer(args.model, tuning)  # a bad model path is one clear error, before any work
    tally = Tally()
    t0 = time.perf_counter()
    sizes: set[tuple[int, int]] = set()
    jobs = ((k, plan, args.model, args.noise, args.pixels, args.seed, tuning) for k, plan in enumerate(_plans(args)))
    events = _open_events(args.events)
    if args.workers > 1:
        import multiprocessing

        pool = multiprocessing.get_context("spawn").Pool(args.workers)
        results = pool.imap(_track, jobs)
    else:
        pool, results = None, map(_track, jobs)
    for run in results:
        plan = run.plan
        sizes.add(tuple(plan.size))
        tally.add(run)
        if events is not None:
            _write_events(events, plan.meta["name"], run.events)
        if not args.json:
            one = Tally()
            one.add(run, keep=0, per_set=False)
            r = one.summary()
            print(f"  {plan.meta['name']}: double-{plan.set_max}, {plan.players} players, {len(plan.plays())} plays, "
                  f"{len(plan.frames)} frames: precision {r['play_precision']}, recall {r['play_recall']}, "
                  f"planted flagged {r['planted_flagged']}, false flags {r['false_flags']}", file=sys.stderr)
    if pool is not None:
        pool.close()
    if events is not None:
        events.close()
    summary = tally.summary()
    kind = "model" if args.model is not None else ("oracle+pixels" if args.pixels else "oracle")
    summary = {"kind": kind, "noise": None if args.model is not None else args.noise,
               "sets": sorted({p for p in args.sets}) if not args.folder else "from folder",
               "size": list(sorted(sizes)[0]) if len(sizes) == 1 else [list(x) for x in sorted(sizes)],
               "seed": args.seed, **summary,
               "seconds": round(time.perf_counter() - t0, 1), "config": tuning.to_dict()}
    if args.json:
        out = dict(summary)
        if args.examples:
            out["examples"] = tally.examples()
        print(json.dumps(out, indent=1))
    else:
        _print(summary)
        print(f"  {tuning_line(tuning, args.config)}")
        if args.examples:
            print(json.dumps(tally.examples(), indent=1))
    return 0


def _open_events(path: str | None):
    """The file `--events` names, open for writing (None without the option); a path that
    cannot be written is a one-line error before any round is tracked."""
    if not path:
        return None
    try:
        return open(path, "w", encoding="utf-8")
    except OSError as exc:
        raise UserError(f"--events: cannot write {path}: {exc.strerror}") from None


def _write_events(out, round_name: str, events) -> None:
    """One round's event stream, a JSON line per event, each naming its round (the stream of
    several rounds in one file stays readable line by line)."""
    for event in events:
        out.write(json.dumps({"round": round_name, **event.to_dict()}) + "\n")
    out.flush()


TARGETS = {"play_precision": 0.99, "play_recall": 0.99, "attachment_correct": 0.99, "planted_flagged": 0.98}


def _print(s: dict) -> None:
    what = {"oracle": "detections derived from ground truth (simulated recognizer noise: %s), motion from ground truth"
                      % s["noise"],
            "oracle+pixels": "detections derived from ground truth (noise: %s), real motion gate on rendered frames"
                             % s["noise"],
            "model": "the real recognizer and motion gate on rendered frames"}[s["kind"]]
    size = s["size"]
    size_text = f"{size[0]}x{size[1]}" if size and isinstance(size[0], int) else "mixed sizes"
    print(f"tracker on {s['rounds']} rendered rounds (sets {s['sets']}, {size_text}): {what}")
    rows = [
        ("play precision", s["play_precision"], TARGETS["play_precision"]),
        ("play recall", s["play_recall"], TARGETS["play_recall"]),
        ("attachment point correct", s["attachment_correct"], TARGETS["attachment_correct"]),
        ("planted illegal plays flagged", s["planted_flagged"], TARGETS["planted_flagged"]),
    ]
    for name, value, target in rows:
        mark = "" if value is None else ("  ok" if value >= target else f"  BELOW target {target}")
        print(f"  {name:32s} {'-' if value is None else f'{value:.4f}'}{mark}")
    ff = s["false_flags_per_200_plays"]
    later = s.get("false_flags_withdrawn_later")
    print(f"  {'false flags per 200 plays':32s} {ff} ({s['false_flags']} in {s['true_plays']} plays"
          + (f"; {later} withdrawn later by the tracker" if later else "") + ")"
          + ("" if ff is None else ("  ok" if ff <= 1 else "  ABOVE target 1")))
    print(f"  {'plays corrected later':32s} {s['plays_corrected_later']} (a closer look read the tile again)")
    print(f"  {'rule named right (planted)':32s} {s['planted_rule_named_right']}")
    print(f"  {'player credited right':32s} {s['player_credited_right']}")
    print(f"  {'take-backs found / right':32s} {s['take_back_recall']} / {s['take_back_precision']}")
    print(f"  true plays {s['true_plays']}, tracker plays {s['tracker_plays']}, planted {s['planted_illegal']}, "
          f"camera nudges {s['camera_nudges']} (camera_moved events {s['camera_moved_events']}), "
          f"board_disturbed events {s['board_disturbed_events']}")
    print(f"  frames {s['frames']}, recognizer ran on {s['frames_read']} ({s['read_share']}), "
          f"tracker time {s['tracker_seconds']} s ({s['tracker_fps']} frames/s), wall {s['seconds']} s")
    if len(s.get("by_set", {})) > 1:
        def f(v):
            return "-" if v is None else f"{v:.4f}"

        print("  by set:      rounds  plays  precision  recall  attachment  planted flagged  false flags /200")
        for name, t in s["by_set"].items():
            print(f"    {name:10s} {t['rounds']:6d} {t['true_plays']:6d}  {f(t['play_precision']):>9s}  "
                  f"{f(t['play_recall']):>6s}  {f(t['attachment_correct']):>10s}  {f(t['planted_flagged']):>15s}  "
                  f"{t['false_flags_per_200_plays']}")


def _speed(args, tuning: Tuning) -> int:
    """Processed frames per second with the real recognizer (rendering first, untimed)."""
    from lab.synth.sequence import SequenceRenderer, plan_sequence, sequence_rng
    from lab.tracking_eval import run_model

    recognizer = _load_recognizer(args.model, tuning)
    frames_left = args.speed_frames
    total_frames = total_reads = 0
    spent = 0.0
    render = 0.0
    k = 0
    while frames_left > 0:
        plan = plan_sequence(sequence_rng(args.seed, 10_000 + k), args.size, args.sets[k % len(args.sets)])
        k += 1
        n = min(frames_left, len(plan.frames))
        plan.frames = plan.frames[:n]
        t0 = time.perf_counter()
        renderer = SequenceRenderer(plan)
        pics = [renderer.frame(i) for i in range(n)]
        render += time.perf_counter() - t0
        run = run_model(plan, recognizer, frames=pics, tuning=tuning.tracker)
        total_frames += run.frames
        total_reads += run.frames_read
        spent += run.seconds
        frames_left -= n
    # the recognizer alone, on frames like these
    t0 = time.perf_counter()
    from vision.imageio import LoadedImage

    h, w = pics[-1].shape[:2]
    for img in pics[-5:]:
        recognizer.recognize_loaded(LoadedImage(img, 1.0, w, h, "frame"), None)
    per_read = (time.perf_counter() - t0) / min(5, len(pics))
    out = {"kind": "speed", "size": list(args.size), "frames": total_frames, "recognizer_reads": total_reads,
           "tracker_seconds": round(spent, 2), "processed_fps": round(total_frames / spent, 1) if spent else None,
           "recognizer_ms_per_read": round(per_read * 1000, 1), "render_seconds_untimed": round(render, 1),
           "target_fps": 15, "config": tuning.to_dict()}
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        print(f"speed at {args.size[0]}x{args.size[1]}: {out['processed_fps']} processed frames/s over {total_frames} "
              f"frames (recognizer ran on {total_reads}, {out['recognizer_ms_per_read']} ms each); target 15")
        print(tuning_line(tuning, args.config))
    return 0
