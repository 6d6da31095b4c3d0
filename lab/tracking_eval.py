"""Measure the tracker on rendered game sequences with ground truth.

A tracker play event matches a true play when it names the same tile and is decided
after the tile was laid and before `MATCH_FRAMES` frames have passed (the tracker
waits for the hand to leave and for a few still frames). From the matches:

* play precision / recall: matched tracker plays / tracker plays, matched / true plays
  (true plays include the planted illegal ones: they are plays on the table too);
* attachment: matched plays whose tile it was laid against is right;
* illegal flagged: planted plays matched by a play the tracker flagged illegal (and,
  separately, whether it named the same rule);
* false flags: plays flagged illegal that match no planted play, per 200 true plays;
* player: matched plays credited to the right seat (turn order only: the camera does not
  see draws and passes, so any pass shifts the credit until someone tells the tracker).

Runs come in three kinds, and reports say which: "oracle" (detections derived from
ground truth with simulated recognizer noise, motion from ground truth), "oracle+pixels"
(the same detections, but the real motion gate on rendered frames) and "model" (the
real recognizer and motion gate on rendered frames).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from engine import GameConfig
from vision.tracking.events import TilePlayed, TileTakenBack, TrackEvent
from vision.tracking.tracker import RecognizerDetector, Tracker
from vision.tracking.tuning import TrackerConfig

from .oracle import Noise, OracleDetector, TruthGate, seat_direction
from .synth.sequence import SequencePlan, SequenceRenderer

SET_FIGURES = ("rounds", "true_plays", "play_precision", "play_recall", "attachment_correct", "planted_illegal",
               "planted_flagged", "false_flags", "false_flags_per_200_plays")
"""Figures repeated for each set size."""
MATCH_FRAMES = 200
"""Longest a tracker event may lag the true event it matches (20 s at 10 fps)."""


@dataclass
class RunResult:
    plan: SequencePlan
    events: list[TrackEvent]
    frames: int
    frames_read: int
    seconds: float
    mode: str

    @property
    def fps(self) -> float:
        return self.frames / self.seconds if self.seconds > 0 else float("inf")


def make_tracker(plan: SequencePlan, detector: Any, gate: Any, evidence_dir: str | None = None,
                 seats: bool = True, tuning: TrackerConfig | None = None) -> Tracker:
    """A tracker set up as the players would set it up: players, set, house rules, who laid the
    spinner and (with `seats`) where each player sits around the table; tuned by `tuning` (the
    defaults without it)."""
    config = GameConfig(plan.players, plan.set_max, plan.rules)
    seat_dirs = [seat_direction(plan, p) for p in range(plan.players)] if seats else None
    return Tracker(config, detector=detector, gate=gate, spinner_player=plan.spinner_player,
                   round_index=plan.round_index, evidence_dir=evidence_dir, seats=seat_dirs, tuning=tuning)


def run_oracle(plan: SequencePlan, seed: int = 0, noise: Noise | None = None, pixels: bool = False,
               tuning: TrackerConfig | None = None) -> RunResult:
    """Track a plan on ground-truth-derived detections; `pixels` renders the frames and uses
    the real motion gate instead of the ground-truth one."""
    detector = OracleDetector(plan, seed, noise)
    if not pixels:
        tracker = make_tracker(plan, detector, TruthGate(plan, seed, noise), tuning=tuning)
        events: list[TrackEvent] = []
        t0 = time.perf_counter()
        for f in plan.frames:
            events.extend(tracker.push(f, f.t))
        return RunResult(plan, events, len(plan.frames), tracker.frames_read, time.perf_counter() - t0, "oracle")

    renderer = SequenceRenderer(plan)
    frames = plan.frames
    tracker = make_tracker(plan, lambda _img: detector(frames[tracker.frames - 1]), None, tuning=tuning)
    events = []
    spent = 0.0
    for f in frames:
        img = renderer.frame(f.index)
        t0 = time.perf_counter()
        events.extend(tracker.push(img, f.t))
        spent += time.perf_counter() - t0
    return RunResult(plan, events, len(frames), tracker.frames_read, spent, "oracle+pixels")


def run_model(plan: SequencePlan, recognizer: Any, evidence_dir: str | None = None,
              frames: list[Any] | None = None, tuning: TrackerConfig | None = None) -> RunResult:
    """Track a plan's rendered frames with the real recognizer and motion gate. Rendering is
    not timed; `frames` may hold the pictures already rendered."""
    renderer = None if frames is not None else SequenceRenderer(plan)
    tracker = make_tracker(plan, RecognizerDetector(recognizer, plan.set_max, (tuning or TrackerConfig()).detector),
                           None, evidence_dir, tuning=tuning)
    events: list[TrackEvent] = []
    spent = 0.0
    for f in plan.frames:
        img = frames[f.index] if frames is not None else renderer.frame(f.index)  # type: ignore[union-attr]
        t0 = time.perf_counter()
        events.extend(tracker.push(img, f.t))
        spent += time.perf_counter() - t0
    return RunResult(plan, events, len(plan.frames), tracker.frames_read, spent, "model")


@dataclass
class Tally:
    true_plays: int = 0
    tracker_plays: int = 0
    matched: int = 0
    attached: int = 0
    player_right: int = 0
    planted: int = 0
    planted_flagged: int = 0
    planted_rule_right: int = 0
    false_flags: int = 0
    withdrawn_flags: int = 0
    """Flags the tracker withdrew itself later (counted among `false_flags` too)."""
    corrected_plays: int = 0
    """Legal plays the tracker corrected to another tile later (`PlayCorrected`)."""
    true_take_backs: int = 0
    tracker_take_backs: int = 0
    matched_take_backs: int = 0
    spinners_right: int = 0
    rounds: int = 0
    frames: int = 0
    frames_read: int = 0
    seconds: float = 0.0
    disturbed: int = 0
    camera_moves_true: int = 0
    camera_moves_seen: int = 0
    misses: list[dict[str, Any]] = field(default_factory=list)
    extras: list[dict[str, Any]] = field(default_factory=list)
    wrong_attach: list[dict[str, Any]] = field(default_factory=list)
    unflagged: list[dict[str, Any]] = field(default_factory=list)
    false_flag_list: list[dict[str, Any]] = field(default_factory=list)
    by_set: dict[int, "Tally"] = field(default_factory=dict)
    """The same figures for each set size (a double-6 round and a double-15 round differ a lot)."""

    def add(self, run: RunResult, keep: int = 20, per_set: bool = True) -> None:
        plan = run.plan
        if per_set:
            self.by_set.setdefault(plan.set_max, Tally()).add(run, keep=0, per_set=False)
        self.rounds += 1
        self.frames += run.frames
        self.frames_read += run.frames_read
        self.seconds += run.seconds
        truth = plan.plays()
        # a flag the tracker withdrew later (the tile was read again, or a tile found later made
        # the play legal) is no play of the record, but it was shown: it still counts as a false flag
        withdrawn = [(e.frame, e.read_as) for e in run.events if e.kind == "flag_withdrawn"]
        shown = [e for e in run.events if isinstance(e, TilePlayed)]
        retracted = [e for e in shown if not e.legal and any(e.tile == r and e.frame <= f for f, r in withdrawn)]
        # a legal play the tracker corrected later (a closer look read the tile again) is in the
        # record as the tile it was corrected to; the correction is counted on its own
        # (the plays shown before the correction: a tile moved onto a double found later is
        # corrected to itself, and shown again after the correction where it lies now)
        corrected = [(k, e.read_as) for k, e in enumerate(run.events) if e.kind == "play_corrected"]
        order = {id(e): k for k, e in enumerate(run.events)}
        replaced = [e for e in shown if e.legal and any(e.tile == r and order[id(e)] < k for k, r in corrected)]
        plays = [e for e in shown if not any(e is r for r in retracted + replaced)]
        self.withdrawn_flags += len(retracted)
        self.corrected_plays += len(replaced)
        for ev in retracted:
            self.false_flags += 1
            if len(self.false_flag_list) < keep:
                self.false_flag_list.append({"seq": plan.meta.get("name"), "frame": ev.frame, "tile": ev.tile,
                                             "on": ev.on, "rule": ev.rule, "message": ev.message, "withdrawn": True})
        self.true_plays += len(truth)
        self.tracker_plays += len(plays)
        used: set[int] = set()
        matched_flags: set[int] = set()
        for n, gt in enumerate(truth):
            # a tile laid again later (a planted play taken back, then played right) owns the
            # decisions made after it was laid again: the tracker's play of it then is not a
            # late sighting of the planted one
            again = next((g.frame for g in truth[n + 1:] if g.tile == gt.tile), None)
            hit = None
            for k, ev in enumerate(plays):
                if k in used or ev.tile != gt.tile:
                    continue
                if gt.frame - 2 <= ev.frame <= gt.frame + MATCH_FRAMES and (again is None or ev.frame < again - 2):
                    hit = k
                    break
            if gt.planted:
                self.planted += 1
            if hit is None:
                if len(self.misses) < keep:
                    self.misses.append({"seq": plan.meta.get("name"), "frame": gt.frame, "tile": gt.tile,
                                        "on": gt.on, "planted": gt.planted})
                continue
            used.add(hit)
            ev = plays[hit]
            self.matched += 1
            if ev.on == gt.on:
                self.attached += 1
            elif len(self.wrong_attach) < keep:
                self.wrong_attach.append({"seq": plan.meta.get("name"), "frame": gt.frame, "tile": gt.tile,
                                          "true_on": gt.on, "tracker_on": ev.on})
            if ev.player == gt.player:
                self.player_right += 1
            if gt.planted:
                if not ev.legal:
                    self.planted_flagged += 1
                    matched_flags.add(hit)
                    if ev.rule == gt.rule:
                        self.planted_rule_right += 1
                elif len(self.unflagged) < keep:
                    self.unflagged.append({"seq": plan.meta.get("name"), "frame": gt.frame, "tile": gt.tile,
                                           "on": gt.on, "rule": gt.rule, "planted": gt.planted})
        for k, ev in enumerate(plays):
            if k not in used and len(self.extras) < keep:
                self.extras.append({"seq": plan.meta.get("name"), "frame": ev.frame, "tile": ev.tile, "on": ev.on,
                                    "legal": ev.legal})
            if not ev.legal and k not in matched_flags:
                self.false_flags += 1
                if len(self.false_flag_list) < keep:
                    self.false_flag_list.append({"seq": plan.meta.get("name"), "frame": ev.frame, "tile": ev.tile,
                                                 "on": ev.on, "rule": ev.rule, "message": ev.message})
        # take-backs
        tb_true = [e for e in plan.events if e.kind == "take_back"]
        tb_seen = [e for e in run.events if isinstance(e, TileTakenBack)]
        self.true_take_backs += len(tb_true)
        self.tracker_take_backs += len(tb_seen)
        used = set()
        for gt in tb_true:
            for k, ev in enumerate(tb_seen):
                if k not in used and ev.tile == gt.tile and gt.frame - 2 <= ev.frame <= gt.frame + MATCH_FRAMES:
                    used.add(k)
                    self.matched_take_backs += 1
                    break
        spinner = next((e for e in plan.events if e.kind == "spinner"), None)
        started = [e for e in run.events if e.kind == "round_started"]
        if spinner is not None and started and getattr(started[0], "spinner", None) == spinner.tile:
            self.spinners_right += 1
        self.disturbed += sum(1 for e in run.events if e.kind == "board_disturbed")
        self.camera_moves_true += sum(1 for e in plan.events if e.kind == "nudge")
        self.camera_moves_seen += sum(1 for e in run.events if e.kind == "camera_moved")

    def summary(self) -> dict[str, Any]:
        def ratio(a: int, b: int) -> float | None:
            return round(a / b, 4) if b else None

        return {
            "rounds": self.rounds,
            "true_plays": self.true_plays,
            "tracker_plays": self.tracker_plays,
            "play_precision": ratio(self.matched, self.tracker_plays),
            "play_recall": ratio(self.matched, self.true_plays),
            "attachment_correct": ratio(self.attached, self.matched),
            "planted_illegal": self.planted,
            "planted_flagged": ratio(self.planted_flagged, self.planted),
            "planted_rule_named_right": ratio(self.planted_rule_right, self.planted),
            "false_flags": self.false_flags,
            "false_flags_per_200_plays": round(200 * self.false_flags / self.true_plays, 3) if self.true_plays else None,
            "false_flags_withdrawn_later": self.withdrawn_flags,
            "plays_corrected_later": self.corrected_plays,
            "player_credited_right": ratio(self.player_right, self.matched),
            "take_back_recall": ratio(self.matched_take_backs, self.true_take_backs),
            "take_back_precision": ratio(self.matched_take_backs, self.tracker_take_backs),
            "spinner_right": ratio(self.spinners_right, self.rounds),
            "board_disturbed_events": self.disturbed,
            "camera_nudges": self.camera_moves_true,
            "camera_moved_events": self.camera_moves_seen,
            "frames": self.frames,
            "frames_read": self.frames_read,
            "read_share": ratio(self.frames_read, self.frames),
            "tracker_seconds": round(self.seconds, 2),
            "tracker_fps": round(self.frames / self.seconds, 1) if self.seconds > 0 else None,
            **({"by_set": {f"double-{k}": {n: v for n, v in t.summary().items() if n in SET_FIGURES}
                           for k, t in sorted(self.by_set.items())}} if self.by_set else {}),
        }

    def examples(self) -> dict[str, Any]:
        return {"missed_plays": self.misses, "extra_plays": self.extras, "wrong_attachment": self.wrong_attach,
                "planted_not_flagged": self.unflagged, "false_flags": self.false_flag_list}
