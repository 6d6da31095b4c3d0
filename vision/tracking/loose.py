"""Tiles lying apart from the layout, explained by re-reading the tiles around them.

A tile touching nothing is usually a play whose parent the reader missed or misread; a re-reading
is believed only when it turns several such tiles into legal plays at once.
"""
from __future__ import annotations

import numpy as np

from engine import Tile
from engine.board import SLOT_STRIDE

from .board import BoardTile, Observation, TileStatus, tile_patch
from .events import Notice, PlayCorrected, TilePlayed, TrackEvent
from .geometry import TilePose, contact_on_double


class LooseTiles:
    """Loose tiles explained: methods of `Tracker` (a mixin: it weighs the window's readings and
    enters what it explains through the corrections of `closer`)."""

    def _explain_loose(self, obs: Observation) -> list[TrackEvent]:
        """Tiles set apart from the layout, explained as plays by reading them, and the board tiles
        they lie near, another way the pictures support: a board tile as the other tile its place
        has been read as (same value against its parent), a tile lying across an end as a double
        of one of its values (no other tile is laid across an end), and an open end with loose
        tiles of its value around it as carrying a double the reader never saw, whose toes they
        are. Each loose tile a combination turns into a legal play counts 1, each guess costs
        `TrackerConfig.guess_cost`; the best combination is
        entered (the corrections, then those plays) when it scores `TrackerConfig.loose_explained` and
        `TrackerConfig.explain_margin` more than any other. Loose tiles that then touch the layout are judged
        as they lie (a planted play among them is flagged).

        Why: on small double-15 tiles the reader can be sure and wrong about a whole stretch. A
        15-5 read 13-5 was played; the 15-15 chickie laid across its 15 end read 15-13 and was
        set apart, and with it every toe and every tile built beyond them: 37 of 101 plays of a rendered
        round missed, though the 15-5's place read 15-5 in half the readings. Each reading
        alone was kept, as it should be; only together do they make a table the rules accept. And
        in another round a 12-12 chickie was never read at all: its four toes lay apart, 17 plays
        in all found 700 frames late."""
        if self.current is None:
            return []
        loose = sorted((b for b in self.board.values() if b.status == TileStatus.LOOSE and not b.missing),
                       key=lambda b: b.frame)
        if not loose:
            return []
        options: dict[Tile, list[tuple[Tile, TilePose]]] = {}
        for (old, frame), reads in self.table.place_readings():
            bt = self.board.get(old)
            if bt is None or bt.frame != frame or bt.status != TileStatus.LEGAL or bt.touching is None or \
                    not any(np.hypot(*(bt.pose.centre - b.pose.centre)) < 2.5 * bt.pose.length for b in loose):
                continue
            value = bt.pose.pips[bt.touching]
            for new, runs in sorted(reads.items()):
                if len(runs) < self.tuning.place_reads or new in self.board or self.table.is_superseded(old, new) or \
                        new.is_double != old.is_double or not new.has(value):
                    continue
                free = new.other(value)
                options.setdefault(old, []).append(
                    (new, TilePose(bt.pose.corners, (value, free) if bt.touching == 0 else (free, value))))
        unseen = self._unseen_doubles(loose)
        tried = (frozenset(b.tile for b in loose),
                 frozenset([(o, n) for o, ns in options.items() for n, _ in ns] + [(d, d) for _, d, _, _ in unseen]))
        if tried == self._explained:
            return []
        self._explained = tried
        combos: list[dict[Tile, tuple[Tile, TilePose]]] = [{}]
        for old, alts in options.items():
            combos = [c | {old: alt} for c in combos for alt in alts] + combos
        with_doubles = [(fixes, [u for k, u in enumerate(unseen) if mask >> k & 1])
                        for fixes in combos[:64] for mask in range(1 << min(len(unseen), 3))]
        results = []
        for fixes, doubles in with_doubles[:128]:
            placed = self._loose_as_plays(loose, fixes, doubles)
            if placed is not None:
                toes = [p for p in placed if p[0] is not None]
                guesses = len(fixes) + len(doubles) + sum(t != lb.tile for lb, t, *_ in toes)
                results.append((len(toes) - self.tuning.guess_cost * guesses, fixes, placed, doubles))
        results.sort(key=lambda r: r[0], reverse=True)
        if not results or results[0][0] < self.tuning.loose_explained or \
                (len(results) > 1 and results[1][0] > results[0][0] - self.tuning.explain_margin):
            return []
        _, fixes, placed, doubles = results[0]
        return self._enter_explained(fixes, placed, obs, {d: toe for _, d, _, toe in doubles if toe is not None})

    def _unseen_doubles(self, loose: list[BoardTile]) -> list[tuple[BoardTile, Tile, TilePose, BoardTile | None]]:
        """Ends of ordinary board tiles with two or more loose tiles of the end's value near them:
        (the tile, the double of that value, where it would lie across the end, and the toe
        already laid on that end, if one was). An end counts while it is open, or while the tile
        laid on it lies a double's width beyond it (`TrackerConfig.straight_toe_gap`): a toe laid straight on
        beyond a chickie the reader never saw passes for a play on the end the double covers."""
        assert self.current is not None
        out = []
        for bt in self.board.values():
            if bt.status != TileStatus.LEGAL or bt.tile.is_double or bt.free_end is None:
                continue
            v = bt.pose.pips[bt.free_end]
            double = Tile(v, v)
            if double in self.board:
                continue
            toe = None
            if not self.current.referee.open_slots(bt.tile):
                toe = self._straight_toe(bt)
                if toe is None:
                    continue
            out_dir = bt.pose.axis(bt.free_end)
            side = np.array([-out_dir[1], out_dir[0]])
            w, length = bt.pose.width, bt.pose.length
            centre = bt.pose.end_mid(bt.free_end) + out_dir * (w / 2)
            if sum(b.tile.has(v) and np.hypot(*(b.pose.centre - centre)) < 1.5 * length for b in loose) < 2:
                continue
            corners = np.array([centre - side * length / 2 + out_dir * w / 2, centre - side * length / 2 - out_dir * w / 2,
                                centre + side * length / 2 - out_dir * w / 2, centre + side * length / 2 + out_dir * w / 2])
            out.append((bt, double, TilePose(corners, (v, v)), toe))
        return out

    def _straight_toe(self, bt: BoardTile) -> BoardTile | None:
        """The ordinary tile laid on `bt`'s free end, where its touching end lies a double's width
        beyond that end (`TrackerConfig.straight_toe_gap`), not against it."""
        assert bt.free_end is not None
        end = bt.pose.end_mid(bt.free_end)
        for c in self.board.values():
            if c.status == TileStatus.LEGAL and c.on == bt.tile and not c.tile.is_double and c.touching is not None:
                gap = float(np.hypot(*(c.pose.end_mid(c.touching) - end))) / bt.pose.width
                return c if self.tuning.straight_toe_gap[0] <= gap <= self.tuning.straight_toe_gap[1] else None
        return None

    @staticmethod
    def _fellow_toes(double: TilePose, loose: list[BoardTile], attach_max: float) -> list[tuple[BoardTile, int]]:
        """The (at most two) tiles set apart that lie as toes of `double` would, with its value at
        the end against it (within `attach_max` tile widths): (loose tile, its end touching the
        double), closest first."""
        v = double.pips[0]
        fits = []
        for lb in loose:
            if lb.tile.is_double or not lb.tile.has(v):
                continue
            contact = contact_on_double(lb.pose, double)
            if contact.score <= attach_max and lb.pose.pips[contact.touching] == v:
                fits.append((contact.score, lb, contact.touching))
        fits.sort(key=lambda f: f[0])
        return [(lb, k) for _, lb, k in fits[:2]]

    def _loose_hypotheses(self, bt: BoardTile) -> list[tuple[Tile, TilePose]]:
        """What a loose tile may be: as read, or (not read as a double) a double of either value."""
        out = [(bt.tile, bt.pose)]
        if not bt.tile.is_double:
            for v in bt.pose.pips:
                out.append((Tile(v, v), TilePose(bt.pose.corners, (v, v))))
        return out

    def _loose_as_plays(self, loose: list[BoardTile], fixes: dict[Tile, tuple[Tile, TilePose]],
                        doubles: list[tuple[BoardTile, Tile, TilePose, BoardTile | None]] = ()  # type: ignore[assignment]
                        ) -> list[tuple[BoardTile | None, Tile, TilePose, Tile, int | None, int]] | None:
        """The loose tiles that become legal plays, in turn, once `fixes` (board tile -> its other
        reading) are made and the unseen `doubles` played (one with a toe laid before its toe, the
        toe moved onto it): (loose tile, or None for an unseen double; played as, pose, laid on,
        touching end, frame). None when the round does not replay with the fixes, or a double
        cannot be played."""
        assert self.current is not None
        referee = self.current.referee.copy()
        if fixes and referee.replace_many({old: (new, pose.pips[self.board[old].touching])  # type: ignore[index]
                                           for old, (new, pose) in fixes.items()}) is None:
            return None
        taken = {new for new, _ in fixes.values()}
        # the corrected tiles under their new values (the old entries, off the trial's layout,
        # rank behind them)
        extra = {new: BoardTile(new, pose, TileStatus.LEGAL, None, self.board[old].on, self.board[old].touching,
                                self.board[old].frame) for old, (new, pose) in fixes.items()}
        placed: list[tuple[BoardTile | None, Tile, TilePose, Tile, int | None, int]] = []
        frame = min(b.frame for b in loose)  # an unseen double was laid before its first toe was seen
        waiting = list(loose)
        for parent, double, pose, toe in doubles:
            on = fixes[parent.tile][0] if parent.tile in fixes else parent.tile
            if double in taken:
                return None
            if toe is not None:  # laid before its toe, which moves onto it, and its fellow toes with it
                fellows = self._fellow_toes(pose, [lb for lb in waiting if lb.tile not in taken],
                                            self.tuning.attach_max)
                if toe.tile in fixes or referee.slip_double_under(
                        toe.tile, double, [(lb.tile, lb.pose.pips[k], lb.frame, 0.0) for lb, k in fellows]) is None:
                    return None
                first = min([toe.frame] + [lb.frame for lb, _ in fellows])
                extra[double] = BoardTile(double, pose, TileStatus.LEGAL, None, on, 0, first)
                placed.append((None, double, pose, on, 0, first))
                taken.add(double)
                for lb, k in fellows:
                    extra[lb.tile] = BoardTile(lb.tile, lb.pose, TileStatus.LEGAL, None, double, k, lb.frame)
                    placed.append((lb, lb.tile, lb.pose, double, k, lb.frame))
                    taken.add(lb.tile)
                    waiting.remove(lb)
                continue
            verdict = referee.judge(double, on)
            if not verdict.legal:
                return None
            referee.accept(double, verdict, frame, 0.0, pose.pips[0])
            extra[double] = BoardTile(double, pose, TileStatus.LEGAL, None, on, 0, frame)
            placed.append((None, double, pose, on, 0, frame))
            taken.add(double)
        progress = True
        while progress and waiting:
            progress = False
            for lb in list(waiting):
                for tile, pose in self._loose_hypotheses(lb):
                    if tile in taken or (tile in self.board and tile != lb.tile):
                        continue
                    played = None
                    for _, parent, contact in self.judge.candidates(pose, extra, referee)[:2]:
                        on = fixes[parent.tile][0] if parent.tile in fixes else parent.tile
                        verdict = referee.judge(tile, on, pose.pips[contact.touching])
                        if verdict.legal:
                            referee.accept(tile, verdict, lb.frame, 0.0, pose.pips[contact.touching])
                            played = (on, contact.touching)
                            break
                    if played is None:
                        continue
                    on, touching = played
                    extra[tile] = BoardTile(tile, pose, TileStatus.LEGAL, None, on, touching, lb.frame)
                    placed.append((lb, tile, pose, on, touching, lb.frame))
                    taken.add(tile)
                    waiting.remove(lb)
                    progress = True
                    break
        return placed

    def _enter_explained(self, fixes: dict[Tile, tuple[Tile, TilePose]],
                         placed: list[tuple[BoardTile | None, Tile, TilePose, Tile, int | None, int]],
                         obs: Observation, toes: dict[Tile, BoardTile] | None = None) -> list[TrackEvent]:
        """Enter what `_explain_loose` chose: the board tiles corrected, unseen doubles (those in
        `toes` laid before the toe already played, which moves onto them) and the loose tiles
        played."""
        assert self.current is not None
        referee = self.current.referee
        events: list[TrackEvent] = []
        names = ", ".join(str(t) if lb is None or t == lb.tile else f"{lb.tile} (read as {t})" for lb, t, *_ in placed)
        if fixes:
            plays = referee.replace_many({old: (new, pose.pips[self.board[old].touching])  # type: ignore[index]
                                          for old, (new, pose) in fixes.items()})
            if plays is None:
                return []
            for (old, (new, pose)), play in zip(list(fixes.items()), plays):
                bt = self.board[old]
                events.extend(self._enter_correction(
                    bt, new, pose, bt.touching, play, obs,
                    f"{old} was {new} misread: its place has read {new} too, and with {new} the tiles "
                    f"set apart beside it ({names}) are plays the rules accept"))
        entered: set[int] = set()
        for n, (lb, tile, pose, on, touching, frame) in enumerate(placed):
            if n in entered:
                continue
            if lb is None and toes and tile in toes:
                fellows = [k for k in range(n + 1, len(placed)) if placed[k][3] == tile and placed[k][0] is not None]
                moved = self._slip_double_under(toes[tile], tile, pose, on, [placed[k] for k in fellows], obs)
                if moved is None:
                    break
                events.extend(moved)
                entered.update(fellows)
                continue
            value = None if touching is None else pose.pips[touching]
            verdict = referee.judge(tile, on, value)
            if not verdict.legal or (lb is not None and self.board.get(lb.tile) is not lb):
                break
            first = next((o for o in self.window if o.frame == frame), obs)
            if lb is None:
                events.append(Notice(obs.frame, obs.t, f"{tile} was never read, but the tiles set apart "
                                                       f"around {on}'s open end are its toes ({names}): played"))
            else:
                self.table.lift(lb.tile)
                if tile != lb.tile:
                    self.table.supersede(tile, lb.tile)
            referee.accept(tile, verdict, frame, first.t, value)
            self.table.note_legal_play(tile)
            # (an unseen double's place keeps the picture it shows now: the reader never finds it)
            pictured = obs.image is not None and obs.motion is None
            patch = lb.patch if lb is not None else \
                tile_patch(obs.image, pose, self.tuning.pictures) if pictured else None
            self.table.lay(BoardTile(tile, pose, TileStatus.LEGAL, verdict.player, on, touching, frame, patch=patch))
            events.append(TilePlayed(frame, first.t, str(tile), verdict.player, str(on), verdict.slot, verdict.end))
        # tiles still set apart that now touch the layout: judged as they lie
        for bt in sorted((b for b in self.board.values() if b.status == TileStatus.LOOSE), key=lambda b: b.frame):
            cands = self.judge.candidates(bt.pose)
            if cands:
                self.table.lift(bt.tile)
                events.append(self.plays.enter(bt.tile, bt.pose, obs, cands))
        return events

    def _slip_double_under(self, toe: BoardTile, double: Tile, pose: TilePose, on: Tile,
                           fellows: list[tuple[BoardTile | None, Tile, TilePose, Tile, int | None, int]],
                           obs: Observation) -> list[TrackEvent] | None:
        """Play `double`, never read, on `on` just before `toe`, move `toe` onto it, and play the
        loose `fellows` (entries of `_loose_as_plays`) on it with them (see `_straight_toe`); None
        with nothing changed where the round does not replay so."""
        assert self.current is not None
        referee = self.current.referee
        if self.board.get(toe.tile) is not toe or any(lb is None or self.board.get(lb.tile) is not lb
                                                      for lb, *_ in fellows):
            return None
        seen = {o.frame: o.t for o in self.window}
        entries = [(t, p.pips[k], f, seen.get(f, obs.t)) for _, t, p, _, k, f in fellows]  # type: ignore[index]
        if referee.slip_double_under(toe.tile, double, entries) is None:
            return None
        others = " and ".join(str(t) for _, t, *_ in fellows) or f"tiles with a {double.high}"
        message = (f"{double} was never read, but {toe.tile} lies a double's width beyond {on}'s end, and {others} "
                   f"lie apart around it as its other toes: {double} was played on {on} before {toe.tile}, which "
                   f"lies on it")
        plays = {p.tile: p for p in referee.plays}
        self.table.note_legal_play(double)
        pictured = obs.image is not None and obs.motion is None
        patch = tile_patch(obs.image, pose, self.tuning.pictures) if pictured else None
        self.table.lay(BoardTile(double, pose, TileStatus.LEGAL, plays[double].player, on, 0, plays[double].frame,
                                 patch=patch))
        toe.on = double
        for lb, tile, tpose, _, k, frame in fellows:
            assert lb is not None
            self.table.lift(lb.tile)
            if tile != lb.tile:
                self.table.supersede(tile, lb.tile)
            self.table.note_legal_play(tile)
            self.table.lay(BoardTile(tile, tpose, TileStatus.LEGAL, plays[tile].player, double, k, frame,
                                     patch=lb.patch))
        for p in referee.plays:  # each play after the double was made a turn later than it seemed
            if p.tile in self.board and self.board[p.tile].status == TileStatus.LEGAL:
                self.board[p.tile].player = p.player
        shown = [p for p in referee.plays if p.on == double]
        return [Notice(obs.frame, obs.t, message),
                TilePlayed(plays[double].frame, plays[double].t, str(double), plays[double].player, str(on), None,
                           plays[double].end),
                PlayCorrected(obs.frame, obs.t, str(toe.tile), str(toe.tile),
                              f"{toe.tile} lies on {double}, not on {on}: moved")] + \
            [TilePlayed(p.frame, p.t, str(p.tile), p.player, str(double), p.end % SLOT_STRIDE, p.end) for p in shown]
