"""The rules engine's view of a round the camera is watching.

A camera sees the board, never the hands, the boneyard or who drew. So the referee
keeps the list of plays it has seen and, whenever it must judge a new one, rebuilds a
`RoundState` by replaying those plays from a deal reconstructed to fit them: each seat
holds the tiles it has played (and the tile being judged), plus one tile nobody has
played so that no hand runs dry before the round really ends; every other tile is in
the boneyard. The engine then judges the play exactly as in live play (whose turn,
the open ends, a spinner or chickie that must be fed first, matching numbers), with
the same `IllegalPlay` codes and messages.

What the camera cannot see is left out of the rebuilt round's house rules: it lets a
player draw at will (a pass seen only as "nobody played"), does not deal the
first-round draw, and skips Chickenlittle calls. None of these changes which tile may
go where, which is all the referee is asked.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine import Deal, EndsDoNotMatch, GameConfig, IllegalPlay, NoSuchOpenEnd, RoundState, Tile, full_set
from engine.board import SLOT_STRIDE

NO_SLOT = SLOT_STRIDE - 1
"""An open-end slot no double ever has: asking the engine about it gets `NoSuchOpenEnd`."""


@dataclass
class SeenPlay:
    player: int
    tile: Tile
    on: Tile
    end: int
    frame: int
    t: float
    touching: int | None = None
    """The value of the new tile's end that touches (None when unknown)."""


@dataclass
class Verdict:
    player: int
    end: int | None
    """The engine's open-end id the play goes on (legal plays)."""
    slot: int | None
    error: IllegalPlay | None

    @property
    def legal(self) -> bool:
        return self.error is None


class Referee:
    """Judges the plays of one round as the camera sees them."""

    def __init__(self, config: GameConfig, spinner: Tile, spinner_player: int) -> None:
        if not spinner.is_double:
            raise ValueError(f"the spinner must be a double, got {spinner}")
        self.config = config
        self.spinner = spinner
        self.spinner_player = spinner_player % config.players
        rules = config.rules.replace(voluntary_draw=True, first_round_draw=False, chickenlittle=False,
                                     start_double="required")
        # the rebuilt round starts with the double the camera saw, whatever the round's number
        self._config = GameConfig(config.players, config.set_max, rules)
        self._round_index = config.set_max - spinner.high
        self.plays: list[SeenPlay] = []
        self.passes: list[tuple[int, int]] = []
        """(number of plays before it, player) for each pass the referee was told about."""
        self.state = self._rebuild(None)

    # --- rebuilding -----------------------------------------------------------------

    def _rebuild(self, extra: tuple[int, Tile] | None) -> RoundState:
        cfg = self._config
        n = cfg.players
        hands: list[list[Tile]] = [[] for _ in range(n)]
        hands[self.spinner_player].append(self.spinner)
        used = {self.spinner}
        for play in self.plays:
            hands[play.player].append(play.tile)
            used.add(play.tile)
        if extra is not None and extra[1].in_set(cfg.set_max) and extra[1] not in used:
            hands[extra[0]].append(extra[1])
            used.add(extra[1])
        spare = [t for t in full_set(cfg.set_max) if t not in used and not t.is_double]
        spare += [t for t in full_set(cfg.set_max) if t not in used and t.is_double and t.high < self.spinner.high]
        # one tile nobody played in each hand, so no hand empties before the round ends,
        # as long as that still leaves the boneyard a tile (a deal needs one)
        # (the player making the newest play needs none: the check happens before their hand
        # could empty; when tiles run short, the players after them get theirs first)
        room = cfg.tile_count - len(used) - 1
        last = extra[0] if extra is not None else (self.plays[-1].player if self.plays else self.spinner_player)
        for k in range(1, n + 1):
            p = (last + k) % n
            if spare and room > 0 and (p != last or room > n):
                hands[p].append(spare.pop())
                room -= 1
        deal = Deal.arrange(cfg, hands)
        state = RoundState(cfg, self._round_index, deal)
        passes = list(self.passes)
        for i, play in enumerate(self.plays):
            self._apply_passes(state, passes, i)
            state.play(play.tile, play.end, player=play.player)
        self._apply_passes(state, passes, len(self.plays))
        return state

    @staticmethod
    def _apply_passes(state: RoundState, passes: list[tuple[int, int]], before: int) -> None:
        while passes and passes[0][0] == before:
            _, player = passes.pop(0)
            if state.is_over() or state.turn != player:
                continue
            try:
                if state.can_draw():
                    state.draw(player=player)
                state.pass_turn(player=player)
            except IllegalPlay:
                pass

    def copy(self) -> "Referee":
        """An independent referee at the same point (for trying plays out)."""
        other = Referee.__new__(Referee)
        other.__dict__.update(self.__dict__)
        other.plays = list(self.plays)
        other.passes = list(self.passes)
        return other

    # --- reading --------------------------------------------------------------------

    @property
    def turn(self) -> int:
        return self.state.turn

    @property
    def first_player(self) -> int:
        return (self.spinner_player + 1) % self.config.players

    @property
    def board(self):
        return self.state.board

    def on_board(self, tile: Tile) -> bool:
        return self.state.board.placement_of(tile) is not None

    def open_slots(self, tile: Tile) -> list[int]:
        """Open-end ids hanging off `tile` (several for a double, at most one otherwise)."""
        b = self.state.board
        p = b.placement_of(tile)
        if p is None:
            return []
        base = p.index * SLOT_STRIDE
        return [base + s for s in range(b.capacity(p)) if base + s in b.open_ends]

    def open_value(self, tile: Tile) -> int | None:
        p = self.state.board.placement_of(tile)
        return None if p is None else p.outer

    def last_play(self) -> SeenPlay | None:
        return self.plays[-1] if self.plays else None

    # --- judging --------------------------------------------------------------------

    def judge(self, tile: Tile, on: Tile | None, touching: int | None = None, player: int | None = None) -> Verdict:
        """What the engine says about `tile` laid against `on` with its `touching` value
        against it, by `player` (default: whoever's turn it is)."""
        p = self.turn if player is None else player
        if on is None:
            return Verdict(p, None, None, NoSuchOpenEnd(f"{tile} is not laid against any open end"))
        state = self._rebuild((p, tile))
        if player is None and not state.is_over() and state.turn != p:
            # the round rebuilt without this tile had run a hand dry; with it, the turn is clear
            p = state.turn
            state = self._rebuild((p, tile))
        board = state.board
        parent = board.placement_of(on)
        if parent is None:
            return Verdict(p, None, None, NoSuchOpenEnd(
                f"{tile} is laid against {on}, which is not part of the layout (it was not a legal play)"))
        base = parent.index * SLOT_STRIDE
        slots = [base + s for s in range(board.capacity(parent)) if base + s in board.open_ends]
        end = slots[0] if slots else base + (NO_SLOT if parent.is_double else 0)
        try:
            state.check_play(tile, end, player=p)
        except IllegalPlay as exc:
            if isinstance(exc, NoSuchOpenEnd) and not slots:
                what = "spinner" if parent.kind == "spinner" else ("chickie" if parent.kind == "chickie" else "tile")
                exc = NoSuchOpenEnd(f"{tile} is laid against {on}, but that {what} has no free end left")
            return Verdict(p, None, None, exc)
        value = board.open_ends[end].value
        if touching is not None and not tile.is_double and touching != value:
            return Verdict(p, None, None, EndsDoNotMatch(
                f"{tile} is laid with its {touching} against the open {value} on {on}; the {value} end must touch"))
        slot = end % SLOT_STRIDE if on.is_double else None
        return Verdict(p, end, slot, None)

    def accept(self, tile: Tile, verdict: Verdict, frame: int, t: float, touching: int | None = None) -> SeenPlay:
        """Add a legal play to the round."""
        if not verdict.legal or verdict.end is None:
            raise ValueError("only legal plays are added to the round")
        on = self.state.board.placements[verdict.end // SLOT_STRIDE].tile
        play = SeenPlay(verdict.player, tile, on, verdict.end, frame, t, touching)
        self.plays.append(play)
        try:
            self.state = self._rebuild(None)
        except IllegalPlay:
            self.plays.pop()
            raise
        return play

    def take_back(self) -> SeenPlay:
        """Undo the last play (the rules allow it before the next player plays)."""
        play = self.plays.pop()
        self.passes = [(k, p) for k, p in self.passes if k <= len(self.plays)]
        self.state = self._rebuild(None)
        return play

    def note_pass(self, player: int | None = None) -> bool:
        """Someone drew and passed (seen by a person, not the camera): the turn moves on."""
        p = self.turn if player is None else player
        self.passes.append((len(self.plays), p))
        before = self.turn
        self.state = self._rebuild(None)
        if self.turn == before:
            self.passes.pop()
            return False
        return True

    def round_record(self, round_index: int, hands_left: list[list[Tile]] | None = None) -> dict[str, Any]:
        """This round as a game-record round: plays as seen, and a deal reconstructed from them
        (each seat's played tiles, then what it held at the end when hand photos said so)."""
        state = self.state
        rec = state.to_record()
        rec["index"] = round_index
        rec["double"] = self.config.set_max - round_index
        rec["observed"] = {
            "note": "hands and the boneyard are not seen by the camera: the deal lists each seat's played "
                    "tiles plus one unplayed tile, draws are inferred",
            "plays": [{"player": p.player, "tile": str(p.tile), "on": str(p.on), "frame": p.frame,
                       "t": round(p.t, 3)} for p in self.plays],
        }
        if hands_left is not None:
            rec["observed"]["hands_left"] = [[str(t) for t in h] for h in hands_left]
        return rec
