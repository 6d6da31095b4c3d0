"""Judging a play: the tile it lies against and the engine's verdict; the play entered as judged.

Where a reading could lie against several tiles, the place the rules accept is preferred when it
fits nearly as well as one they refuse. The questions (where could it go, what would the rules
say) are a `Judge`, over the board model and the game's book; entering the answer (the play, or
its flag) is a `PlayEntry`, which also needs the flags.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from engine import Tile

from .board import BoardTile, Observation, TileStatus, at_place_of
from .events import TilePlayed, TrackEvent
from .geometry import TilePose, contact_on_double, contact_on_tile
from .pictures import with_first_reading
from .referee import Referee, Verdict
from .tuning import WAITING_DOUBLE_RULES, TrackerConfig

if TYPE_CHECKING:
    from .bookkeeping import GameBook
    from .flags import FlagKeeper
    from .table import TableModel


class Judge:
    """Where a tile read at a place would go and what the rules say of it, changing nothing: the
    board's tiles it may lie against (`candidates`) and the engine's verdict on the likeliest
    reading (`ruling`). Asked by every part that enters, flags or corrects a play."""

    def __init__(self, table: TableModel, book: GameBook, tuning: TrackerConfig) -> None:
        self.table = table
        self.book = book
        self.tuning = tuning

    def candidates(self, pose: TilePose, extra: dict[Tile, BoardTile] | None = None,
                    referee: Referee | None = None, reach: float = 1.0) -> list[tuple[float, BoardTile, Any]]:
        """Board tiles `pose` may lie against, best first: (mismatch, tile, contact); `reach`
        widens the tolerance."""
        if referee is None:
            referee = self.book.current.referee if self.book.current is not None else None
        out = []
        tiles = list(self.table.tiles.values()) + (list(extra.values()) if extra else [])
        for bt in tiles:
            if bt.status == TileStatus.LOOSE or bt.missing:
                continue
            if np.hypot(*(bt.pose.centre - pose.centre)) > 2.5 * bt.pose.length:
                continue
            if bt.tile.is_double and bt.status in (TileStatus.SPINNER, TileStatus.LEGAL, TileStatus.JOINED):
                contact = contact_on_double(pose, bt.pose)
            elif bt.free_end is not None:
                contact = contact_on_tile(pose, bt.pose, bt.free_end)
            else:
                continue
            score = contact.score
            if referee is not None and bt.status in (TileStatus.SPINNER, TileStatus.LEGAL) and \
                    not referee.open_slots(bt.tile):
                score += 0.15  # prefer a place where a tile may go, when two are equally close
            if score <= self.tuning.attach_max * reach:
                out.append((score, bt, contact))
        out.sort(key=lambda c: c[0])
        return out

    def ruling(self, tile: Tile, pose: TilePose, candidates: list[tuple[float, BoardTile, Any]]
                ) -> tuple[Tile, TilePose, Verdict, BoardTile | None, int | None, bool]:
        """The engine's verdict on the play, changing nothing: (tile, pose, verdict, the tile it
        goes on, its touching end, whether the reading taken is the reader's second). Where the
        geometry allows two places nearly equally well, a legal one is preferred; where no place
        is legal, another reading the rules accept there is: first one the readings stayed split
        with (the legal reading wins the tie), then the reader's own close second (a misread dot
        is likelier than an illegal play)."""
        assert self.book.current is not None
        referee = self.book.current.referee
        verdicts = []
        for score, bt, contact in candidates:
            if verdicts and score > candidates[0][0] + self.tuning.alternative_margin:
                break
            verdict = referee.judge(tile, bt.tile, pose.pips[contact.touching])
            verdicts.append((verdict, bt, contact.touching))
            if verdict.legal:
                return tile, pose, verdict, bt, contact.touching, False
        if not verdicts:
            verdicts.append((referee.judge(tile, None), None, None))
        others = [(alt, alt_pose, False) for alt, alt_pose in self.table.alternatives_of(tile)]
        others += [(Tile(*pips), TilePose(pose.corners, pips), True) for pips, cost in pose.second
                   if cost <= self.tuning.second_reading_cost]
        for alt, alt_pose, misread in others:
            if alt in self.table or alt == tile:
                continue
            for score, bt, contact in self.candidates(alt_pose)[:2]:
                v = referee.judge(alt, bt.tile, alt_pose.pips[contact.touching])
                if v.legal:
                    # the reading taken is not the reader's first: the play keeps the first as a
                    # close second, so sure later readings of its place may correct it
                    return alt, with_first_reading(alt_pose, pose), v, bt, contact.touching, misread
        verdict, parent, touching = verdicts[0]
        return tile, pose, verdict, parent, touching, False


class PlayEntry:
    """A play entered on the board and in the round as the rules judge it: played, or flagged.
    Entering it may first let flagged plays stand that the table kept (the next play is made
    with them there), and a flag is raised through the `FlagKeeper`."""

    def __init__(self, table: TableModel, book: GameBook, judge: Judge, flags: FlagKeeper) -> None:
        self.table = table
        self.book = book
        self.judge = judge
        self.flags = flags

    def enter(self, tile: Tile, pose: TilePose, obs: Observation,
              candidates: list[tuple[float, BoardTile, Any]]) -> TrackEvent:
        """Ask the engine about the play and enter its verdict (see `Judge.ruling`)."""
        assert self.book.current is not None
        # (also for tiles set apart before and judged again now, which skip `_place`'s checks)
        if self.flags.let_stand(candidates[0][1] if candidates else None, obs):
            candidates = self.judge.candidates(pose) or candidates
        referee = self.book.current.referee
        read_as = tile
        tile, pose, verdict, parent, touching, misread = self.judge.ruling(tile, pose, candidates)
        self.table.forget_alternatives(read_as)
        if misread:
            self.table.supersede(tile, read_as)
        on = parent.tile if parent is not None else None
        # a tile set apart earlier at this very place was this tile, misread (tiles do not overlap)
        for bt in [b for b in self.table.tiles.values() if b.status == TileStatus.LOOSE and at_place_of(b.pose, pose)]:
            self.table.lift(bt.tile)
        if verdict.legal:
            referee.accept(tile, verdict, obs.frame, obs.t, pose.pips[touching] if touching is not None else None)
            self.table.note_legal_play(tile)
            self.table.lay(BoardTile(tile, pose, TileStatus.LEGAL, verdict.player, on, touching, obs.frame))
            return TilePlayed(obs.frame, obs.t, str(tile), verdict.player, str(on), verdict.slot, verdict.end)
        err = verdict.error
        assert err is not None
        if err.code in WAITING_DOUBLE_RULES and parent is not None:
            earlier = self.flags.laid_before_last(tile, pose, parent, touching, obs)
            if earlier is not None:
                return earlier
        self.table.lay(BoardTile(tile, pose, TileStatus.ILLEGAL, verdict.player, on, touching, obs.frame))
        if err.code in WAITING_DOUBLE_RULES and obs.image is not None:
            self.table.keep_flag_view(tile, obs.image, np.eye(3))
        return self.flags.raise_flag(tile, pose, verdict.player, parent, on, err.code, err.message, obs)
