"""One value, one pip colour: ends read alike but coloured apart are not all that value.

Every domino set draws each value's pips in one colour: a plain set all of them in one, a
colour-coded set (most double-12 to double-18 sets) each value in its own. So where ends read as
the same value show pips of clearly different colours in one picture, at most one of those colour
groups is that value. The half reader, reading small tiles by their pattern, confuses the dense
values of the big sets (on a 45-px double-15 tile a 15 drawn as three rows of five reads as a 13
at 0.66-0.88, 15 second), and it confuses them the same way on every such end, so no one reading
contradicts another; the colour does (in a rendered double-15 round, its brown 15s read as 13
beside two green 13s read at 0.99).

The rule only moves ends the half reader itself finds plausible as another value
(`ColourConfig.alt_prob`), only where the colours are far apart (`apart`, `apart_angle`), and only
where one choice of which group keeps the value is clearly likelier than the others (`margin`).
Ends read by counting dots
(large tiles) are never moved: they anchor their value's colour.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import cv2
import numpy as np

from .halfreader import ClassifiedHalf
from .recognition.colour_config import ColourConfig
from .rectify import CROP_L, CROP_W

@dataclass
class _End:
    tile: int
    end: int
    value: int
    colour: np.ndarray
    probs: np.ndarray | None
    """The half reader's probabilities where the end was read by it; None: read by its dots."""


def pip_colours(crops: list[np.ndarray], config: ColourConfig) -> np.ndarray:
    """Each crop's two ends' pip colours as (a, b) away from the end's face colour, from
    straightened crops (`vision.rectify`): an (N, 2, 2) array, NaN for an end where nothing stands
    out from the face. The face is the end's median colour; its pips are the pixels at least half
    as far from it as the farthest (the 99th percentile); the rows taken leave out the divider and
    the crop's margin; NaN where that is less than `config.min_contrast`. Every other row and
    column is enough: a crop is a small tile enlarged.
    (All crops at once: one crop at a time cost 0.4 ms an end, a table frame's 60 ends 25 ms.)"""
    if not crops:
        return np.zeros((0, 2, 2), np.float32)
    rows, cols = slice(int(0.11 * CROP_L), int(0.45 * CROP_L), 2), slice(int(0.13 * CROP_W), int(0.87 * CROP_W), 2)
    regions = []
    for crop in crops:
        lab = cv2.cvtColor(crop, cv2.COLOR_BGR2LAB)
        regions.append((lab[rows, cols], lab[::-1, ::-1][rows, cols]))
    px = np.asarray(regions, np.float32).reshape(len(crops), 2, -1, 3)
    face = np.median(px, axis=2)
    dist = np.linalg.norm(px - face[:, :, None, :], axis=3)
    k = int(0.99 * (dist.shape[2] - 1))
    far = np.partition(dist, k, axis=2)[:, :, k]
    pips = dist >= 0.5 * far[:, :, None]
    mean = (px * pips[..., None]).sum(axis=2) / np.maximum(pips.sum(axis=2), 1)[..., None]
    out = (mean - face)[:, :, 1:]
    out[far < config.min_contrast] = np.nan
    return out


def _apart(u: np.ndarray, v: np.ndarray, config: ColourConfig) -> bool:
    """Whether two ends' pip colours are not one value's (see `ColourConfig.apart_angle`)."""
    if float(np.linalg.norm(u - v)) < config.apart:
        return False
    cos = float(np.dot(u, v)) / max(float(np.linalg.norm(u) * np.linalg.norm(v)), 1e-9)
    return cos <= float(np.cos(np.radians(config.apart_angle)))


def _linked(items: Sequence[Any], colour_of: Callable[[Any], np.ndarray], config: ColourConfig) -> list[list[Any]]:
    """`items` joined where their colours are not apart (`_apart`; single linkage)."""
    groups: list[list[Any]] = []
    for item in items:
        near = [g for g in groups if any(not _apart(colour_of(item), colour_of(o), config) for o in g)]
        groups = [g for g in groups if not any(g is n for n in near)] + [[item] + [o for g in near for o in g]]
    return groups


def agreed_colours(colours: Sequence[np.ndarray], share: float = 2 / 3,
                   config: ColourConfig = ColourConfig()) -> list[np.ndarray]:
    """Of one value's colours read sure in earlier pictures, those of the colour most of them
    share (at least `share` of them); none where they disagree. Why: a misread can be sure too
    (a brown 15 read 13 at 0.95 now and then among the green 13s at 0.99), and one
    such colour kept beside the value's own made every group of that value's ends hold an end
    that is never moved, so nothing was moved any more."""
    best = max(_linked(colours, lambda c: c, config), key=len, default=[])
    return best if len(best) >= share * len(colours) else []


def _log(p: float) -> float:
    return float(np.log(max(p, 1e-6)))


def _move_to(group: list[_End], value: int, by_value: dict[int, list[_End]], set_max: int,
             config: ColourConfig) -> tuple[int, float] | None:
    """The value a group of ends read `value` would take instead, and its log-likelihood: the one
    the half reader finds likeliest over the group among those each end finds plausible and whose
    ends elsewhere in this picture share the group's colour. None where no such value exists or an
    end was read by its dots."""
    if any(e.probs is None for e in group):
        return None
    best = None
    for alt in range(1, min(set_max, len(group[0].probs) - 1) + 1):  # ends with pips are not blank
        if alt == value or any(float(e.probs[alt]) < config.alt_prob for e in group):
            continue
        # (ends of earlier pictures do not bar a value: one misread there, sure, kept its colour for
        # the value and barred the value's true ends from it in every later frame: brown 15s,
        # barred by a purple end read 15 at 0.95, stayed 13s beside the green 13s)
        others = [o for o in by_value.get(alt, []) if o.tile >= 0 and not any(o is e for e in group)]
        if any(all(_apart(o.colour, e.colour, config) for e in group) for o in others):
            continue
        score = sum(_log(float(e.probs[alt])) for e in group)
        if best is None or score > best[1]:
            best = (alt, score)
    return best


def _keep(group: list[_End], value: int) -> float:
    return sum(_log(float(e.probs[value])) if e.probs is not None else 0.0 for e in group)


def colour_checked(readings: list[Any], crops: list[np.ndarray], set_max: int | None,
                   anchors: Sequence[tuple[int, np.ndarray]] = (), config: ColourConfig = ColourConfig()
                   ) -> tuple[list[Any], int, list[tuple[int, np.ndarray]]]:
    """`readings` (parallel to `crops`) with ends moved off a value whose ends show two or more
    pip colours, how many ends were moved, and the (value, colour) of the ends read sure
    (`ColourConfig.anchor_sure`). For each such value, each way of letting one colour group keep it and moving
    the others to their best plausible value (`_move_to`) is scored by the half reader's
    log-likelihood; the best is taken where it beats every other by `ColourConfig.margin`.

    `anchors`: (value, colour) of ends read sure in earlier pictures of the same set, which count
    as ends that are never moved. Why: a live game's camera does not always see a tile whose
    colour gives a misread away (the true 13s hidden or out of view after a nudge, brown 15s read
    as 13s again), while the set's colours stay what they were."""
    from .pipreader import TileReading

    if not any(isinstance(h, ClassifiedHalf) for r in readings if r is not None for h in r.halves):
        return readings, 0, []  # every end counted by its dots: nothing to move (and no colour kept)
    # where the set is not known, no end is moved above the highest value read: the set's size is
    # inferred from that (`correct.infer_set_max`), and a move must not change it
    top = int(set_max) if set_max else max((h.count for r in readings if r is not None for h in r.halves), default=0)
    ends: list[_End] = []
    with_pips = [t for t, r in enumerate(readings) if r is not None and any(h.count > 0 for h in r.halves)]
    for t, colours in zip(with_pips, pip_colours([crops[t] for t in with_pips], config)):
        for k, h in enumerate(readings[t].halves):
            if h.count > 0 and not np.isnan(colours[k]).any():
                ends.append(_End(t, k, int(h.count), colours[k], h.probs if isinstance(h, ClassifiedHalf) else None))
    ends += [_End(-1, 0, int(v), np.asarray(c, np.float32), None) for v, c in anchors if 0 < int(v) <= max(top, 0)]
    moved: dict[tuple[int, int], int] = {}
    # a value's move may clear the way for another's (an end misread as the value a group needs,
    # in another colour, bars that group until it is moved itself): a few passes
    for _ in range(config.passes):
        before = dict(moved)
        for value in sorted({moved.get((e.tile, e.end), e.value) for e in ends}):
            _settle(value, ends, moved, top, config)
        if moved == before:
            break
    sure = [(e.value, e.colour) for e in ends if e.tile >= 0 and (e.tile, e.end) not in moved
            and (e.probs is None or float(e.probs[e.value]) >= config.anchor_sure)]
    if not moved:
        return readings, 0, sure
    out = list(readings)
    for (t, k), alt in moved.items():
        halves = list(out[t].halves)
        old = halves[k]
        probs = old.probs.copy()
        probs[old.count] = 0.0  # the colour says it is not that value
        probs /= max(float(probs.sum()), 1e-9)
        halves[k] = ClassifiedHalf(alt, probs, old.dots)
        out[t] = TileReading(tuple(halves), out[t].points, out[t].bar, out[t].without_bar)
    return out, len(moved), sure


def _settle(value: int, ends: list[_End], moved: dict[tuple[int, int], int], top: int, config: ColourConfig) -> None:
    """Moves, in `moved`, the ends of every colour group read `value` but the one the best split
    lets keep it (see `colour_checked`)."""
    by_value: dict[int, list[_End]] = {}
    for e in ends:
        by_value.setdefault(moved.get((e.tile, e.end), e.value), []).append(e)
    groups = _linked(by_value.get(value, []), lambda e: e.colour, config)
    if len(groups) < 2:
        return
    choices = []
    for keeper in range(len(groups)):
        total, moves = _keep(groups[keeper], value), []
        for g, group in enumerate(groups):
            if g == keeper:
                continue
            alt = _move_to(group, value, by_value, top, config)
            if alt is None:
                total = None
                break
            total += alt[1]
            moves.append((group, alt[0]))
        if total is not None:
            choices.append((total, moves))
    if not choices:
        return
    choices.sort(key=lambda c: -c[0])
    if len(choices) > 1 and choices[0][0] - choices[1][0] < config.margin:
        return
    for group, alt in choices[0][1]:
        for e in group:
            moved[(e.tile, e.end)] = alt
