"""The live tracker's speed for the bench: processed frames per second and play latency.

Rounds are rendered first (not timed), then fed to the tracker with the real recognizer frame
by frame, each frame timed on its own, with a reference pass (`bench_reference`) every few
frames outside the timed steps so the tracker's cost can be given as a ratio too.

Play latency is what a player waits: from the frame where the hand that laid a tile has left
the view to the moment the tracker announces the play. Frames are taken to arrive at the
sequence's frame rate and are fed the way the product's live sources feed them: whenever the
tracker is free it takes the newest frame that has arrived (a camera keeps one frame, see
`vision.sources.CaptureSource`; the page sends its next frame once the last is answered), so
frames it had no time for are dropped, and the time a slow frame costs shows in the latency of
the plays that follow it. The clock is a replay of the measured costs, not of sleeps.
"""
from __future__ import annotations

import math
import statistics
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from vision.tracking.tuning import TrackerConfig

MATCH_FRAMES = 200
"""Latest frame after the true play at which a tracker event may still be that play."""


@dataclass(frozen=True)
class TrackerBenchConfig:
    rounds: int = 1
    seed: int = 0
    set_max: int = 6
    """Double-6 rounds are the shortest (~220 frames, ~10 plays): one renders in ~10 s."""
    size: tuple[int, int] = (1280, 720)
    fps: float = 30.0
    """Frames per second the rounds are filmed at: a webcam's rate, so that the tracker is timed on
    as many frames as it would be given live (a whole multiple of the renderer's planning rate)."""
    reference_every: int = 10
    """Tracker frames between two reference passes."""
    tuning: TrackerConfig = field(default_factory=TrackerConfig)
    """The tracker's tuning: speed is measured for a configuration, as figures are."""


def hand_left_frame(frames: Sequence[Any], laid: int) -> int | None:
    """First frame at or after `laid` (the first frame showing the tile) with no hand in view."""
    return next((f.index for f in frames[laid:] if f.hand is None), None)


def feed_live(frames: int, fps: float, push: Callable[[int], float]) -> dict[int, float]:
    """Feed frames 0..frames-1, frame i arriving at i / fps, to `push` (which processes one and
    returns what it cost, in seconds) as a live source does: each time it is free it gets the
    newest frame that has arrived, or waits for the next. Returns when each pushed frame's
    processing ended, by frame index; the frames missing from it were dropped."""
    clock, i, finish = 0.0, 0, {}
    while i < frames:
        clock = max(clock, i / fps) + push(i)
        finish[i] = clock
        newest = min(frames - 1, math.floor(clock * fps + 1e-9))
        i = newest if newest > i else i + 1
    return finish


def play_latencies(plan: Any, events: Sequence[tuple[int, Any]], finish_s: dict[int, float], fps: float) -> list[float]:
    """Seconds from each true play's hand leaving to the tracker's play event for it (plays the
    tracker missed have none). `events` pairs each event with the frame whose push returned it;
    `finish_s` says when that push ended (see `feed_live`)."""
    from vision.tracking.events import TilePlayed

    used: set[int] = set()
    out = []
    for gt in plan.plays():
        left = hand_left_frame(plan.frames, gt.frame)
        if left is None:
            continue
        for k, (pushed, ev) in enumerate(events):
            if k in used or not isinstance(ev, TilePlayed) or ev.tile != gt.tile:
                continue
            if gt.frame - 2 <= pushed <= gt.frame + MATCH_FRAMES:
                used.add(k)
                out.append(finish_s[pushed] - left / fps)
                break
    return out


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0-100): a value that occurred, as figures from few plays should be."""
    s = sorted(values)
    return s[min(len(s), max(1, math.ceil(q / 100 * len(s) - 1e-9))) - 1]


def run_tracker_bench(recognizer: Any, reference: Callable[[], float], config: TrackerBenchConfig) -> dict:
    from vision.tracking.tracker import RecognizerDetector

    from .synth.sequence import SequenceRenderer, plan_sequence, sequence_rng
    from .tracking_eval import make_tracker

    costs_all: list[float] = []
    refs: list[float] = []
    latencies: list[float] = []
    reads = plays = filmed = 0
    render_s = 0.0
    for k in range(config.rounds):
        plan = plan_sequence(sequence_rng(config.seed, 10_000 + k), config.size, config.set_max, fps=config.fps)
        t0 = time.perf_counter()
        renderer = SequenceRenderer(plan)
        pics = [renderer.frame(f.index) for f in plan.frames]
        render_s += time.perf_counter() - t0
        tracker = make_tracker(plan, RecognizerDetector(recognizer, plan.set_max, config.tuning.detector), None,
                               tuning=config.tuning)
        costs: list[float] = []
        events: list[tuple[int, Any]] = []

        def push(i: int) -> float:
            if len(costs) % config.reference_every == 0:
                refs.append(reference())
            t = time.perf_counter()
            out = tracker.push(pics[i], plan.frames[i].t)
            costs.append(time.perf_counter() - t)
            events.extend((i, e) for e in out)
            return costs[-1]

        finish = feed_live(len(plan.frames), plan.fps, push)
        latencies += play_latencies(plan, events, finish, plan.fps)
        reads += tracker.frames_read
        plays += len(plan.plays())
        filmed += len(plan.frames)
        costs_all += costs
    spent = sum(costs_all)
    ms_per_frame = 1000 * spent / len(costs_all)
    ref_ms = statistics.median(refs)
    return {
        "size": f"{config.size[0]}x{config.size[1]}", "rounds": config.rounds, "set": f"double-{config.set_max}",
        "sequence_fps": config.fps, "frames": filmed, "frames_processed": len(costs_all),
        "frames_dropped": filmed - len(costs_all), "recognizer_reads": reads,
        "processed_fps": round(len(costs_all) / spent, 1),
        "ms_per_frame": round(ms_per_frame, 1),
        "ratio_per_frame": round(ms_per_frame / ref_ms, 3),
        "reference_ms_median": round(ref_ms, 1),
        "plays": plays, "plays_announced": len(latencies),
        "play_latency_s_median": round(statistics.median(latencies), 2) if latencies else None,
        "play_latency_s_p95": round(percentile(latencies, 95), 2) if latencies else None,
        "play_latency_s_max": round(max(latencies), 2) if latencies else None,
        "render_seconds_untimed": round(render_s, 1),
    }
