"""Observing: readings matched to the board, and what they show changed.

An observation is one reading of a still frame; the board changes only on what several agree on
(a tile new at one place, a tile's place read as another tile, a tile gone), and a tile's place
is compared by its picture, which the reader cannot lose.
"""
from __future__ import annotations

import math
from collections import Counter

import numpy as np

from engine import Tile

from ..capture import small_tiles_warning
from ..types import tile_length
from .board import BoardTile, Observation, TileStatus, associate, at_place_of, identity, mean_pose, register, tile_patch
from .changes import looks_unchanged, still_there
from .events import CameraMoved, Notice, TrackEvent
from .geometry import TilePose, motion_size
from .pictures import read_at_place, turned_end_for_end


def clusters(observations: list[Observation]) -> list[list[tuple[int, TilePose]]]:
    """New-tile readings grouped by place: (observation number, pose) lists."""
    clusters: list[list[tuple[int, TilePose]]] = []
    refs: list[tuple[float, float, float]] = []  # each cluster's first centre and reach, as floats
    for k, obs in enumerate(observations):
        for pose in obs.new:
            cx, cy = (float(v) for v in pose.centre)
            for cl, (rx, ry, reach) in zip(clusters, refs):
                if math.hypot(rx - cx, ry - cy) < reach:
                    cl.append((k, pose))
                    break
            else:
                clusters.append([(k, pose)])
                refs.append((cx, cy, 0.4 * pose.length))
    return clusters


def fresh_observations(observations: list[Observation]) -> list[Observation]:
    """One observation per run of the recognizer: a reused reading shows nothing its first
    showing did not."""
    return list({o.read: o for o in observations}.values())


class Observing:
    """What the tracker's observations show: methods of `Tracker` (a mixin: voting new tiles over
    the window corrects misread board tiles as it goes, through `misreads` and `closer`)."""

    def _associate(self, obs: Observation) -> None:
        register(obs, self.board, self.config.set_max, self.tuning)
        associate(obs, self.board, self.config.set_max)
        for old, (other, _) in obs.conflicts.items():
            bt = self.board.get(old)
            if bt is not None and obs.frame >= bt.frame:
                self.table.note_place_read(bt, other, obs.read)

    def _reassociate(self) -> None:
        for obs in self.window:
            self._associate(obs)

    def _picture_new_tiles(self) -> None:
        """Tiles just placed take their settled picture from the newest still frame of this
        stretch that read a tile at their place. Without it the picture waited for the next
        still frame that read them, and a hand often comes in first: when the next tile laid
        against one made the reader box the two across their seam (a 7-5 and a 7-6, end to end
        with like pips, read as 7-7 between two phantom doubles), the tile had no picture to
        show it still lay there, so it was taken back and the phantom 5-5 played as a chickie."""
        for bt in self.board.values():
            if bt.patch is not None or bt.missing:
                continue
            for o in reversed(self.window):
                if o.image is not None and o.motion is None and o.drift is None and \
                        any(at_place_of(p, bt.pose) for p in o.poses):
                    bt.patch = tile_patch(o.image, bt.pose, self.tuning.pictures)
                    break

    def _turned_around(self, recent: list[Observation]) -> list[tuple[BoardTile, TilePose]]:
        """Flagged tiles that every one of `recent` finds in their place turned end for end, each
        with its pose now (taken back and judged again on two runs of the recognizer at least).

        A tile laid the wrong way round is put right by turning it where it lies, often under
        the hand that laid it, so no take-back is seen: the flagged 9-8 stayed on the board, the
        legal play was never seen, and every tile laid beyond it lay "apart" from the layout (a
        planted play among them went unflagged)."""
        out = []
        for bt in self.board.values():
            if bt.status != TileStatus.ILLEGAL or bt.missing or bt.tile.is_double:
                continue
            poses = [o.seen_poses.get(bt.tile) for o in recent]
            if any(p is None or not turned_end_for_end(bt.pose, p) for p in poses):
                continue
            out.append((bt, mean_pose([p for p in poses if p is not None])))
        return out

    def _refresh_poses(self, observations: list[Observation]) -> None:
        """Where the tiles are now, averaged over the still readings: keeps the board in step
        with a camera that crept, and replaces a first reading that was off."""
        if any(o.motion is not None for o in observations):
            return
        for tile, bt in self.board.items():
            poses = [o.seen_poses[tile] for o in observations if tile in o.seen_poses]
            if len(poses) >= max(2, len(observations) - 1):
                mean = mean_pose(poses)
                if not tile.is_double and turned_end_for_end(bt.pose, mean):
                    continue  # turned end for end: a change to judge (see `_turned_around`), not a drift
                # (how sure the reading that placed it was stays: see `_correct_misread_play`)
                bt.pose = TilePose(mean.corners, bt.pose.pips, bt.pose.second)
        # and how each place looks now, for telling a tile the reader lost from one taken away
        image = observations[-1].image if observations else None
        if image is not None and all(not o.new for o in observations):
            # (a board settled with a reading still unplaced keeps the picture from before it)
            self.table.settle_picture(image)
        for bt in self.board.values():
            # only where the reader read a tile there: a place read as nothing keeps the picture it had
            # (a play taken back unseen leaves bare table there, which would become the "settled"
            # picture of a tile still counted as lying there, so it would never be seen to go)
            if not bt.missing and any(read_at_place(bt.tile, o) for o in observations):
                bt.patch = tile_patch(image, bt.pose, self.tuning.pictures)

    def _unresolved(self, observations: list[Observation]) -> bool:
        """Whether something was read at one place in two or more of these observations without
        being decided (a tile the reader cannot make out yet): not the moment to settle."""
        for cl in clusters(observations):
            if len({k for k, _ in cl}) >= 2:
                return True
        counts = Counter(old for o in observations for old in o.conflicts)
        return any(n >= 2 for n in counts.values())

    def _new_tiles(self, recent: list[Observation]) -> list[tuple[Tile, TilePose, Observation]]:
        """Tiles not on the board seen in all but one of the recent observations, at one place.

        Their values are voted over every still reading since the last motion; when the
        readings disagree (a pip misread), the tracker reads more frames rather than decide,
        and if they stay split, the engine's verdict breaks the tie (see `PlayEntry.enter`)."""
        need = max(2, self.window_size - 1)
        offset = len(self.window) - len(recent)
        out = []
        taken: set[Tile] = set()
        for cl in clusters(self.window):
            if len({k for k, _ in cl if k >= offset}) < need:
                continue
            voted = self._voted_tile(cl, need, taken)
            if voted is not None:
                found = self._found_tile(*voted, recent, taken)
                if found is not None:
                    out.append(found)
        return out

    def _voted_tile(self, cl: list[tuple[int, TilePose]], need: int, taken: set[Tile]) \
            -> tuple[list[tuple[int, TilePose]], Tile, int, list[tuple[Tile, int]]] | None:
        """The tile the readings at one place vote for, with at least `need` of them: (the readings
        counted, the tile, its votes, every reading's votes best first). None where no tile wins
        yet: too few votes, a gap between tiles read as a tile, or a split vote still being read."""
        window = self.window
        # a reading naming a board tile that the same reading also saw in its own place is
        # impossible (a set holds each tile once): one tile boxed twice, the second box
        # taking in a neighbour's end; it must not outvote the tile's true reading
        possible = [(k, p) for k, p in cl
                    if not ((t := identity(p, self.config.set_max)) in self.board and t in window[k].seen)]
        if any(identity(p, self.config.set_max) is not None for _, p in possible):
            cl = possible
        votes = Counter(identity(p, self.config.set_max) for _, p in cl)
        ranked = [(t, n) for t, n in votes.most_common() if t is not None]
        if not ranked:
            return None
        tile, n = ranked[0]
        second = ranked[1][1] if len(ranked) > 1 else 0
        if n < need or tile in taken:
            return None
        if not self.table.played_legally_this_round(tile) and self._place_unchanged(cl[-1][1], window[-1]) and \
                not self._fits_open_end(mean_pose([p for _, p in cl if identity(p, self.config.set_max) == tile])):
            return None  # nothing was laid there: a gap between tiles read as a tile
        if second and n < second + 2 and len(window) < self.tuning.max_window:
            pick = self._legal_of_twin_boxes(cl, tile, ranked[1][0], need)
            if pick is None:
                self.runs.ask_fresh()  # the readings disagree: read a few more frames afresh first
                return None
            if pick != tile:
                ranked = [(pick, second), (tile, n)] + ranked[2:]
                tile, n = pick, second
        return cl, tile, n, ranked

    def _found_tile(self, cl: list[tuple[int, TilePose]], tile: Tile, n: int, ranked: list[tuple[Tile, int]],
                    recent: list[Observation], taken: set[Tile]) -> tuple[Tile, TilePose, Observation] | None:
        """The voted `tile` as found (its pose the mean of its readings, with the observation that
        first read it), its support and alternatives noted on the board model. A tile already on
        the board is moved where it no longer lies in its place; where it does, one of the two is
        misread (a set has one of each) and the misreading is corrected, or nothing is found."""
        window = self.window
        k0 = min(k for k, p in cl if identity(p, self.config.set_max) == tile)
        pose = mean_pose([p for k, p in cl if identity(p, self.config.set_max) == tile])
        # frames read once and reused count once here: a reading the reader made twice of
        # two pictures is worth more than one reading kept over ten still frames
        runs: dict[Tile | None, set[int]] = {}
        for k, p in cl:
            runs.setdefault(identity(p, self.config.set_max), set()).add(window[k].read)
        self.table.note_support(tile, runs[tile])  # (older readings leave the window)
        self.table.note_alternatives(tile, [
            (alt, mean_pose([p for _, p in cl if identity(p, self.config.set_max) == alt]))
            for alt, c in ranked[1:] if alt not in self.board and
            ((c >= 2 and c >= n - 1) or runs[alt])])
        known = self.board.get(tile)
        if known is not None and known.status == TileStatus.LOOSE and self.judge.candidates(pose):
            # read apart from the layout before (often a second box on a tile, or a misread)
            # and now where it can be played: the set has one, and this is where play goes on
            self.table.lift(tile)
            known = None
        if known is None:
            taken.add(tile)
            return tile, pose, window[k0]
        # a tile already on the board, seen somewhere else: moved, or a misreading
        if known.missing or not any(self._still_there(known, o) for o in recent):
            known.pose = pose
            known.missing = False
            taken.add(tile)
            return tile, pose, window[k0]  # reported as a move (not a play)
        # still lying in its place: this is another tile, misread (a set has one of each)
        fixed = self._misread_in_place(tile, pose)
        if fixed is not None and fixed[0] not in taken:
            taken.add(fixed[0])
            # (a flag on it waits for as many runs as on any tile: see `FlagKeeper.unsure`)
            self.table.note_support(fixed[0], runs[tile])
            return fixed[0], fixed[1], window[k0]
        if fixed is None and self._board_tile_misread(known, tile, pose, recent):
            taken.add(tile)  # the board tile was the misread one: this is `tile`, new
            return tile, pose, window[k0]
        return None

    def _camera_moved(self, recent: list[Observation]) -> list[TrackEvent]:
        m = recent[-1].motion
        assert m is not None
        centre = np.mean([bt.pose.centre for bt in self.board.values()], axis=0)
        shift, turn = motion_size(m, centre)
        self._follow_camera(m)
        last = recent[-1]
        return [CameraMoved(recent[0].frame, recent[0].t, round(shift, 1), round(turn, 2), last.matched)]

    def _follow_camera(self, m: np.ndarray) -> None:
        """The camera moved by `m` (old picture -> new): the board's tiles, each flag's view and
        the pictures kept for comparison move with it. Why the pictures: dropped on every move,
        they left a reading at a place nothing was laid nothing to be compared with; in a rendered
        double-15 round a box across two tiles of the layout, read 6-2 only from the
        camera's new position, was taken for a play the moment the camera had moved, and flagged."""
        self.table.follow_camera(m)
        self._reassociate()

    def _still_there(self, bt: BoardTile, obs: Observation) -> bool:
        """Whether `obs` shows something at `bt`'s place (`changes.still_there`)."""
        return still_there(bt, obs, self.book.last_played(), self.tuning.pictures)

    def _lost_in_place(self, bt: BoardTile, recent: list[Observation]) -> bool:
        """Whether a play the reader no longer reads still lies in its place as the tile it was
        taken for: the place looks as it did, and a closer look (where the detector can look)
        reads that tile there. Only the reader lost it (beside the tile laid against it: taken
        back and then found again on a closer look, a 14-9 had been played twice); a closer look
        reading another tile there means the play was that tile misread (a 9-1 taken for 9-9),
        and it is taken back for the tile there to be played. A closer look that reads no tile
        at its place says nothing against a place that looks unchanged: the next tile laid end
        to end with like pips can make even the closer look box the pair across their seam.
        That does not hold for a double, which may be such a box itself."""
        if not any(looks_unchanged(bt, o, self.tuning.pictures) for o in recent):
            return False
        looks = self._closer_looks(bt.pose)
        if not looks:
            return True
        top = self.config.set_max
        if bt.tile.is_double:
            # a double is often a box across the seam of two like ends (a 9-1 laid on a 9-4 read
            # 9-9): one the reader lost is kept only where a closer look reads it there again
            return bool(self._found_in_every_look(
                looks, lambda p: identity(p, top) == bt.tile and at_place_of(p, bt.pose)))
        return not self._found_in_every_look(
            looks, lambda p: identity(p, top) != bt.tile and at_place_of(p, bt.pose))

    def _advise_on_size(self, obs: Observation) -> list[TrackEvent]:
        """Advice where the tiles on the table are too small for their values to be read
        reliably (`vision.capture`): a person can move the camera, and the plays and flags that
        follow are otherwise misreadings reported without a word. Given once, and again only
        where the camera's view has changed the tiles' size by a quarter (a nudged camera
        changes it by a few per cent and need not repeat it)."""
        lengths = [tile_length(bt.pose.corners) for bt in self.board.values() if not bt.missing]
        advice = small_tiles_warning(lengths, self.config.set_max, "in the camera's view")
        if advice is None:
            return []
        px = float(np.median(lengths))
        if self._advised_px is not None and \
                abs(px - self._advised_px) < self.tuning.advice_size_change * self._advised_px:
            return []
        self._advised_px = px
        return [Notice(obs.frame, obs.t, advice)]
