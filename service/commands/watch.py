"""`chickenfoot watch`: follow a live game from a camera, a video, a stream or a folder of frames.

Prints each event as it happens (plays, illegal plays with the rule broken, take-backs,
a disturbed board, a moved camera, a dropped stream), keeps the game record on disk
after every change (so a crash or a lost stream loses nothing), and at the end prints
the score sheet with the house rules it was counted by. Rounds are scored from
`--scores` (typed hand totals, hand tiles, or hand photos read by the recognizer).
"""
from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path
from typing import Any

from engine.tiles import SUPPORTED_SETS

from ..cli import UserError
from .common import add_rules_arg, load_rules

SEAT_NAMES = {"bottom": 90.0, "near": 90.0, "left": 180.0, "top": -90.0, "far": -90.0, "right": 0.0,
              "bottom-left": 135.0, "bottom-right": 45.0, "top-left": -135.0, "top-right": -45.0}


def register(sub) -> None:
    p = sub.add_parser("watch", help="follow a live game: print plays and illegal plays, keep the record and scores")
    p.add_argument("source", metavar="SOURCE",
                   help="camera index (0), video file, folder of images, or http/rtsp stream URL")
    p.add_argument("--players", nargs="+", default=["4"], metavar="N|NAME",
                   help="number of players, or their names in seat order (default 4)")
    p.add_argument("--set", type=int, choices=SUPPORTED_SETS, default=9, dest="set_max",
                   help="the set in use (default double-9)")
    add_rules_arg(p)
    p.add_argument("--record", metavar="OUT.json", help="write the game record here (rewritten after every change)")
    p.add_argument("--events-jsonl", metavar="OUT", help="append every event here, one JSON object per line")
    p.add_argument("--annotate", metavar="OUT",
                   help="annotated output: a video (.mp4/.avi) of every frame, or a folder of frames where events happened")
    p.add_argument("--evidence", metavar="DIR", help="save the frame of each illegal play here (default: next to --record)")
    p.add_argument("--scores", metavar="FILE",
                   help="JSON list, one entry per round: {\"totals\": [...]}, {\"hands\": [[\"6-4\", ...], ...]} "
                        "or {\"hand_photos\": [\"p0.jpg\", ...]}; used when a round's layout is cleared or the source ends")
    p.add_argument("--spinner-player", type=int, default=0, metavar="SEAT",
                   help="seat (from 0) that lays the first round's spinner (default 0)")
    p.add_argument("--round", type=int, default=None, metavar="N",
                   help="round number (from 1) being played when watching starts (default: from the spinner)")
    p.add_argument("--seats", metavar="LIST",
                   help="where each seat's arm comes into the picture, in seat order: bottom,left,top,right "
                        "or angles in degrees; lets the tracker credit plays after unseen passes")
    p.add_argument("--fps", type=float, default=None, help="frame rate of a folder of images (default 10)")
    p.add_argument("--max-frames", type=int, default=None, metavar="N", help="stop after N frames")
    p.add_argument("--model", metavar="PATH", help="detector .onnx file or folder holding both models")
    p.add_argument("--json", action="store_true", help="print events as JSON lines instead of sentences")
    p.set_defaults(func=run)


def parse_players(values: list[str]) -> tuple[int, list[str] | None]:
    if len(values) == 1 and values[0].isdigit():
        return int(values[0]), None
    if any(v.isdigit() for v in values):
        raise UserError("--players takes a number of players or their names, not both")
    return len(values), list(values)


def parse_seats(text: str | None, players: int) -> list[float] | None:
    if not text:
        return None
    parts = [p.strip().lower() for p in text.split(",") if p.strip()]
    if len(parts) != players:
        raise UserError(f"--seats names {len(parts)} seats for {players} players")
    out = []
    for p in parts:
        if p in SEAT_NAMES:
            out.append(math.radians(SEAT_NAMES[p]))
            continue
        try:
            out.append(math.radians(float(p)))
        except ValueError:
            raise UserError(f"--seats: {p!r} is not a side ({', '.join(SEAT_NAMES)}) or an angle in degrees") from None
    return out


def load_scores(path: str | None) -> list[dict[str, Any]]:
    if not path:
        return []
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise UserError(f"--scores {path}: not a readable JSON file ({exc})") from None
    if isinstance(data, dict):
        data = data.get("rounds", [data])
    if not isinstance(data, list) or not all(isinstance(x, dict) for x in data):
        raise UserError(f"--scores {path}: expected a list of objects, one per round")
    for i, entry in enumerate(data):
        if not any(k in entry for k in ("totals", "hands", "hand_photos")):
            raise UserError(f"--scores {path}: round {i + 1} needs \"totals\", \"hands\" or \"hand_photos\"")
    return data


def write_atomic(path: Path, text: str) -> None:
    """Replace `path` in one step, so a crash mid-write never leaves half a record."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


class _Annotator:
    def __init__(self, target: str | None, fps: float) -> None:
        self.target = Path(target) if target else None
        self.video = self.target is not None and self.target.suffix.lower() in (".mp4", ".avi", ".mov", ".mkv")
        self.writer = None
        self.fps = fps
        self.recent: list[Any] = []
        if self.target is not None and not self.video:
            self.target.mkdir(parents=True, exist_ok=True)

    def add(self, frame, index: int, state, events: list[Any]) -> None:
        if self.target is None:
            return
        import cv2

        from vision.tracking.annotate import annotate_frame

        self.recent.extend(e for e in events if e.kind not in ("frame_rejected",))
        self.recent = self.recent[-3:]
        if self.video:
            img = annotate_frame(frame, state, self.recent)
            if self.writer is None:
                fourcc = cv2.VideoWriter_fourcc(*("mp4v" if self.target.suffix.lower() != ".avi" else "MJPG"))
                self.size = img.shape[1::-1]
                self.writer = cv2.VideoWriter(str(self.target), fourcc, self.fps, self.size)
            if img.shape[1::-1] != self.size:  # a frame of another size: fit it to the video
                img = cv2.resize(img, self.size, interpolation=cv2.INTER_AREA)
            self.writer.write(img)
        elif any(e.kind not in ("frame_rejected",) for e in events):
            img = annotate_frame(frame, state, self.recent)
            cv2.imwrite(str(self.target / f"frame_{index:06d}.jpg"), img)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.release()


def _hands_from_photos(photos: list[str], recognizer, set_max: int) -> list[list]:
    from vision.imageio import ImageError, load_image
    from vision.tracking import Tracker

    hands = []
    for photo in photos:
        try:
            rec = recognizer.recognize_loaded(load_image(photo), set_max, level=True)
        except ImageError as exc:
            raise ValueError(str(exc)) from None
        hands.append(Tracker.hand_from_recognition(rec))
    return hands


def run(args) -> int:
    from engine import ConfigError, GameConfig
    from vision.onnx_yolo import ModelError
    from vision.recognize import Recognizer
    from vision.sources import Frame, SourceError, open_source
    from vision.tracking import FrameRejected, RecognizerDetector, Tracker

    players, names = parse_players(args.players)
    rules = load_rules(args.rules)
    try:
        config = GameConfig(players, args.set_max, rules)
    except ConfigError as exc:
        raise UserError(str(exc)) from None
    if not 0 <= args.spinner_player < players:
        raise UserError(f"--spinner-player must be a seat between 0 and {players - 1}")
    if args.round is not None and not 1 <= args.round <= config.rounds:
        raise UserError(f"--round must be between 1 and {config.rounds} for a double-{args.set_max} set")
    seats = parse_seats(args.seats, players)
    scores = load_scores(args.scores)
    try:
        source = open_source(args.source, fps=args.fps)
    except SourceError as exc:
        raise UserError(str(exc)) from None
    try:
        recognizer = Recognizer(args.model)
    except ModelError as exc:
        raise UserError(str(exc)) from None

    record_path = Path(args.record) if args.record else None
    evidence = args.evidence or (str(record_path.with_name(record_path.stem + "_evidence")) if record_path else None)
    tracker = Tracker(config, detector=RecognizerDetector(recognizer, args.set_max), spinner_player=args.spinner_player,
                      round_index=None if args.round is None else args.round - 1, evidence_dir=evidence,
                      player_names=names, seats=seats)
    events_file = open(args.events_jsonl, "a") if args.events_jsonl else None
    annotator = _Annotator(args.annotate, getattr(source, "fps", 0) or 10.0)
    out = sys.stdout

    def emit(events: list[Any]) -> None:
        for ev in events:
            if args.json:
                print(json.dumps(ev.to_dict()), file=out)
            else:
                print(f"[{ev.t:8.2f}s] {ev.describe()}", file=out)
            if events_file is not None:
                events_file.write(json.dumps(ev.to_dict()) + "\n")
                events_file.flush()
        if record_path is not None and any(ev.kind not in ("frame_rejected",) for ev in events):
            write_atomic(record_path, json.dumps(tracker.record(), indent=1))

    def score_round() -> None:
        """Score the round in progress from the next `--scores` entry, if there is one."""
        if not scores or tracker.current is None:
            return
        entry = scores.pop(0)
        try:
            if "totals" in entry:
                ev = tracker.end_round(hand_totals=[int(x) for x in entry["totals"]])
            elif "hands" in entry:
                ev = tracker.end_round(hands=entry["hands"])
            else:
                ev = tracker.end_round(hands=_hands_from_photos(entry["hand_photos"], recognizer, args.set_max))
        except (ValueError, TypeError) as exc:
            print(f"chickenfoot watch: cannot score this round: {exc}", file=sys.stderr)
            return
        emit([ev])

    print(f"watching {source.describe()}: {players} players, double-{args.set_max}, rules: {rules.describe()}",
          file=sys.stderr)
    frames = 0
    try:
        for item in source:
            if not isinstance(item, Frame):
                if item.kind == "dropped":
                    emit(tracker.stream_lost(item.message, item.t))
                elif item.kind == "bad_frame":
                    emit([FrameRejected(tracker.frames, item.t, item.message)])
                elif item.kind == "ended":
                    break
                continue
            events = tracker.push(item.image, item.t)
            emit(events)
            annotator.add(item.image, item.index, tracker.state, events)
            if any(ev.kind == "board_cleared" for ev in events):
                score_round()
            frames += 1
            if args.max_frames is not None and frames >= args.max_frames:
                break
    except KeyboardInterrupt:
        print("stopped; the game so far is kept", file=sys.stderr)
    finally:
        source.close()
        annotator.close()
    score_round()
    if record_path is not None:
        write_atomic(record_path, json.dumps(tracker.record(), indent=1))
    if events_file is not None:
        events_file.close()
    state = tracker.state
    print(f"{frames} frames, recognizer ran on {state.frames_read}", file=sys.stderr)
    if tracker.sheet.rounds:
        print(str(tracker.sheet), file=out)
    else:
        print(f"no round scored yet; house rules: {rules.describe()}", file=out)
    if record_path is not None:
        print(f"game record: {record_path}", file=sys.stderr)
    return 0
