"""Stored games: one SQLite file, migrated in place, durable before we answer.

Why SQLite in WAL mode with synchronous=FULL, and a transaction per request that
commits before the HTTP answer is sent: a round the players saw acknowledged must
survive the laptop's lid closing, the server being killed, or the power going.

What is stored is what people said or what the camera read, never a derived
number: a round keeps each player's typed points, typed tiles or the photo the
tiles were read from; a photo keeps what the recognizer read and, separately,
every correction made by hand. Scores and the sheet are recomputed from those on
every read, so a corrected tile changes the score everywhere at once and the
original reading is still there to argue about.

This module knows SQLite and the rules engine, not HTTP: it raises `NotFound`,
`Conflict` and `Invalid`, which the routers turn into status codes, and
`StoreUnavailable` when the database itself stops working under the running server
(read-only, deleted, damaged, a full disk: see `service.storefaults`).
"""
from __future__ import annotations

import json
import os
import secrets
import sqlite3
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator, Sequence

from engine import ConfigError, GameConfig, HouseRules, ScoreSheet, Tile, hand_score
from engine.game import RECORD_FORMAT, RECORD_VERSION
from engine.scoring import curved

from .errorshape import shown as _shown
from .storefaults import StoreFault, fault_from_error, inspect_files

MAX_NAME_LENGTH = 40

# Each entry moves the schema one version up; PRAGMA user_version says how many ran.
# Never edit a migration that has shipped: add a new one.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE games (
        id          TEXT PRIMARY KEY,
        created_at  TEXT NOT NULL,
        players     TEXT NOT NULL,      -- JSON list of names, in seat order
        set_max     INTEGER NOT NULL,
        rules       TEXT NOT NULL       -- HouseRules as JSON
    );
    CREATE TABLE hands (
        id          TEXT PRIMARY KEY,
        game_id     TEXT REFERENCES games(id),
        created_at  TEXT NOT NULL,
        image       TEXT NOT NULL,      -- the upload's name, for people
        width       INTEGER NOT NULL,
        height      INTEGER NOT NULL,
        set_max     INTEGER NOT NULL,
        rules       TEXT NOT NULL,
        tiles       TEXT NOT NULL,      -- JSON: the tiles as the recognizer read them
        face_down   INTEGER NOT NULL,
        warnings    TEXT NOT NULL
    );
    CREATE INDEX hands_game ON hands(game_id);
    CREATE TABLE corrections (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        hand_id     TEXT NOT NULL REFERENCES hands(id),
        tile_id     INTEGER NOT NULL,
        pips        TEXT,               -- JSON [a, b], or NULL for "this is not a tile"
        made_at     TEXT NOT NULL
    );
    CREATE INDEX corrections_hand ON corrections(hand_id);
    CREATE TABLE rounds (
        game_id     TEXT NOT NULL REFERENCES games(id),
        idx         INTEGER NOT NULL,
        recorded_at TEXT NOT NULL,
        entries     TEXT NOT NULL,      -- JSON: one {"points"|"tiles"|"hand_id": ...} per seat
        PRIMARY KEY (game_id, idx)
    );
    """,
    """
    CREATE TABLE live_events (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        game_id     TEXT NOT NULL REFERENCES games(id),
        session     TEXT NOT NULL,      -- one live connection
        recorded_at TEXT NOT NULL,
        kind        TEXT NOT NULL,      -- tile_played, violation, tile_taken_back, board_disturbed, ...
        event       TEXT NOT NULL       -- JSON: the event as the camera tracker reported it
    );
    CREATE INDEX live_events_game ON live_events(game_id);
    """,
)


class StoreError(Exception):
    """Base of the errors the store raises for its callers to show."""

    code = "store_error"


class NotFound(StoreError):
    code = "not_found"


class Conflict(StoreError):
    code = "conflict"


class Invalid(StoreError):
    code = "invalid"


class StoreOpenError(StoreError):
    """The database file cannot be used (not SQLite, newer schema, unwritable)."""

    code = "database_unusable"


class StoreUnavailable(StoreError):
    """The database stopped working under the running server (read-only, deleted, damaged, disk full).

    Carries the `StoreFault` saying which, so the answer names the problem instead of "internal error"."""

    def __init__(self, fault: StoreFault, detail: str = "") -> None:
        super().__init__(fault.message)
        self.fault = fault
        self.code = fault.code
        self.detail = detail or fault.message
        """What SQLite said, for the log and for the message at start-up."""


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _new_id() -> str:
    return secrets.token_hex(6)


@dataclass(frozen=True)
class StoredGame:
    id: str
    created_at: str
    players: list[str]
    config: GameConfig

    @property
    def rules(self) -> HouseRules:
        return self.config.rules

    def summary(self) -> dict[str, Any]:
        return {
            "id": self.id, "created_at": self.created_at, "players": list(self.players),
            "set": self.config.set_max, "house_rules": self.rules.to_dict(),
            "rules_summary": self.rules.describe(), "rounds_in_game": self.config.rounds,
        }


class GameStore:
    """All reads and writes of stored games and hand photos."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.last_fault: StoreFault | None = None
        """The fault the last failed operation met, until a write succeeds again."""
        self._uri = Path(os.path.abspath(self.path)).as_uri()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self._connect(create=True) as conn:
                self._migrate(conn)
        except StoreUnavailable as exc:
            raise StoreOpenError(f"{self.path}: cannot use this file as the games database ({exc.detail})") from None
        except sqlite3.DatabaseError as exc:
            raise StoreOpenError(f"{self.path}: cannot use this file as the games database ({exc})") from None
        except OSError as exc:
            raise StoreOpenError(f"{self.path}: {exc.strerror or exc}") from None

    # -- plumbing -----------------------------------------------------------

    @contextmanager
    def _connect(self, create: bool = False, write: bool = False) -> Iterator[sqlite3.Connection]:
        """A connection per operation: cheap for SQLite, and safe from any thread.

        Only opening the store may create the file: a database deleted under the running server
        is reported as gone, not silently replaced by an empty one. An SQLite error that says
        the store itself is at fault (read-only, deleted, damaged, full) leaves as
        `StoreUnavailable`; any other stays what it was."""
        try:
            conn = self._open(create, write)
        except sqlite3.Error as exc:
            raise self._unavailable(exc) from None
        try:
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("PRAGMA synchronous = FULL")
            yield conn
        except sqlite3.Error as exc:
            raise self._unavailable(exc) from None
        finally:
            conn.close()

    def _open(self, create: bool, write: bool) -> sqlite3.Connection:
        conn = sqlite3.connect(f"{self._uri}?mode={'rwc' if create else 'rw'}", uri=True,
                               timeout=15, isolation_level=None)
        if create or write:
            return conn
        try:
            conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
            return conn
        except sqlite3.OperationalError as exc:
            conn.close()
            if not self._can_read_as_immutable(exc):
                raise
        # A read-only folder (or mount) where SQLite cannot make its -shm file: nothing can change
        # the file, so it is read as it stands. Only when no -wal file holds newer pages than it.
        return sqlite3.connect(f"{self._uri}?mode=ro&immutable=1", uri=True, timeout=15, isolation_level=None)

    def _can_read_as_immutable(self, exc: sqlite3.OperationalError) -> bool:
        name = getattr(exc, "sqlite_errorname", "") or ""
        if not (name.startswith("SQLITE_CANTOPEN") or name.startswith("SQLITE_READONLY")):
            return False
        fault = inspect_files(self.path)
        if fault is None or fault.kind != "read_only":
            return False
        wal = self.path.with_name(self.path.name + "-wal")
        try:
            return wal.stat().st_size == 0
        except FileNotFoundError:
            return True
        except OSError:
            return False

    def _unavailable(self, exc: sqlite3.Error) -> Exception:
        fault = fault_from_error(exc, self.path)
        if fault is None:
            return exc
        self.last_fault = fault
        return StoreUnavailable(fault, str(exc))

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; it is committed (and on disk) when the block ends."""
        with self._connect(write=True) as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                if conn.in_transaction:  # SQLite rolls back by itself after some errors (a full disk)
                    conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        self.last_fault = None

    def check(self) -> StoreFault | None:
        """What is wrong with the store now, or None: the file system's view, then a read, then
        what the last failed operation met (a full disk or a damaged page show only when written
        or read)."""
        fault = inspect_files(self.path)
        if fault is not None:
            return fault
        try:
            with self._connect() as conn:
                conn.execute("SELECT COUNT(*) FROM games").fetchone()
        except StoreUnavailable as exc:
            return exc.fault
        return self.last_fault

    def _migrate(self, conn: sqlite3.Connection) -> None:
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise StoreOpenError(f"{self.path}: cannot switch the database to WAL mode (got {mode})")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > len(MIGRATIONS):
            raise StoreOpenError(
                f"{self.path}: written by a newer chickenfoot (schema {version}, this one knows {len(MIGRATIONS)})"
            )
        for number in range(version, len(MIGRATIONS)):
            # The whole step and its version bump commit together, or not at all.
            conn.executescript(
                f"BEGIN IMMEDIATE;\n{MIGRATIONS[number]}\nPRAGMA user_version = {number + 1};\nCOMMIT;"
            )

    def schema_version(self) -> int:
        with self._connect() as conn:
            return conn.execute("PRAGMA user_version").fetchone()[0]

    # -- games --------------------------------------------------------------

    def create_game(self, players: Sequence[str], set_max: int, rules: HouseRules) -> StoredGame:
        names = _clean_names(players)
        try:
            config = GameConfig(len(names), set_max, rules)
        except ConfigError as exc:
            raise Invalid(str(exc)) from None
        game = StoredGame(_new_id(), _now(), names, config)
        with self._write() as conn:
            conn.execute(
                "INSERT INTO games (id, created_at, players, set_max, rules) VALUES (?, ?, ?, ?, ?)",
                (game.id, game.created_at, json.dumps(names), set_max, rules.to_json()),
            )
        return game

    def list_games(self, limit: int | None = None, offset: int = 0) -> list[StoredGame]:
        """Stored games, newest first (ties in the order they were made, newest first); a page of
        `limit` from `offset` when given."""
        sql = "SELECT * FROM games ORDER BY created_at DESC, rowid DESC"
        with self._connect() as conn:
            if limit is None:
                rows = conn.execute(sql).fetchall()
            else:
                rows = conn.execute(sql + " LIMIT ? OFFSET ?", (limit, offset)).fetchall()
        return [_game_from_row(r) for r in rows]

    def count_games(self) -> int:
        with self._connect() as conn:
            return int(conn.execute("SELECT COUNT(*) FROM games").fetchone()[0])

    def get_game(self, game_id: str, conn: sqlite3.Connection | None = None) -> StoredGame:
        if conn is None:
            with self._connect() as c:
                return self.get_game(game_id, c)
        row = conn.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise NotFound(f"no game with id {_shown(game_id)}")
        return _game_from_row(row)

    # -- hand photos --------------------------------------------------------

    def add_hand(self, report: dict[str, Any], width: int, height: int, game_id: str | None = None) -> str:
        """Keep what was read from a hand photo (`vision.report.hand_report`) so it can be corrected."""
        hand_id = _new_id()
        with self._write() as conn:
            if game_id is not None:
                self.get_game(game_id, conn)
            conn.execute(
                "INSERT INTO hands (id, game_id, created_at, image, width, height, set_max, rules, tiles,"
                " face_down, warnings) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (hand_id, game_id, _now(), str(report["image"])[:200], width, height, int(report["set"]),
                 json.dumps(report["house_rules"]), json.dumps(report["tiles"]), int(report["face_down"]),
                 json.dumps(report["warnings"])),
            )
        return hand_id

    def get_hand(self, hand_id: str, conn: sqlite3.Connection | None = None) -> dict[str, Any]:
        """The hand as it stands now: the reading with every correction applied, and its score."""
        if conn is None:
            with self._connect() as c:
                return self.get_hand(hand_id, c)
        row = conn.execute("SELECT * FROM hands WHERE id = ?", (hand_id,)).fetchone()
        if row is None:
            raise NotFound(f"no hand photo with id {_shown(hand_id)}")
        corrections = conn.execute(
            "SELECT tile_id, pips, made_at FROM corrections WHERE hand_id = ? ORDER BY id", (hand_id,)
        ).fetchall()
        return _hand_view(row, corrections)

    def correct_tile(self, hand_id: str, tile_id: int, pips: Sequence[int] | None) -> dict[str, Any]:
        """Store a person's reading of one tile (None: it is not a tile at all) and rescore."""
        with self._write() as conn:
            hand = self.get_hand(hand_id, conn)
            if tile_id not in {t["id"] for t in hand["tiles"]}:
                raise NotFound(f"hand {hand_id} has no tile {tile_id}")
            value = None
            if pips is not None:
                _parse_tile(pips, hand["set"])
                value = json.dumps([int(pips[0]), int(pips[1])])  # kept in end order, as read
            conn.execute(
                "INSERT INTO corrections (hand_id, tile_id, pips, made_at) VALUES (?, ?, ?, ?)",
                (hand_id, tile_id, value, _now()),
            )
            return self.get_hand(hand_id, conn)

    # -- rounds and the sheet -------------------------------------------------

    def record_round(self, game_id: str, entries: Sequence[Any], index: int | None = None) -> dict[str, Any]:
        """Add the next round; `index`, when given, makes a retried request harmless.

        Sending the same round again with the same index returns the stored one
        instead of adding a copy (a phone on poor Wi-Fi retries); a different round
        under a taken index is a conflict.
        """
        with self._write() as conn:
            game = self.get_game(game_id, conn)
            count = conn.execute("SELECT COUNT(*) FROM rounds WHERE game_id = ?", (game_id,)).fetchone()[0]
            resent = index is not None and 0 <= index < count
            normal = self._normalise_entries(conn, game, entries, ignore_round=index if resent else None)
            if index is not None and index != count:
                if 0 <= index < count:
                    stored = conn.execute(
                        "SELECT entries FROM rounds WHERE game_id = ? AND idx = ?", (game_id, index)
                    ).fetchone()
                    if json.loads(stored["entries"]) == normal:
                        return {"index": index, "replayed": True, "sheet": self._sheet(conn, game)}
                    raise Conflict(f"round {index} is already recorded with other scores")
                raise Conflict(f"the next round of this game is round {count}, not {_shown(index)}")
            if count >= game.config.rounds:
                raise Conflict(f"the game is over: all {game.config.rounds} rounds are recorded")
            conn.execute(
                "INSERT INTO rounds (game_id, idx, recorded_at, entries) VALUES (?, ?, ?, ?)",
                (game_id, count, _now(), json.dumps(normal)),
            )
            for entry in normal:
                if "hand_id" in entry:
                    conn.execute("UPDATE hands SET game_id = ? WHERE id = ?", (game_id, entry["hand_id"]))
            return {"index": count, "replayed": False, "sheet": self._sheet(conn, game)}

    def edit_round(self, game_id: str, index: int, entries: Sequence[Any]) -> dict[str, Any]:
        """Replace a recorded round's hands (a typo of 52 for 25), checked as a new round is.

        The round keeps its index and so its double; the sheet is recounted from it.
        """
        with self._write() as conn:
            game = self.get_game(game_id, conn)
            self._require_round(conn, game_id, index)
            normal = self._normalise_entries(conn, game, entries, ignore_round=index)
            conn.execute(
                "UPDATE rounds SET entries = ?, recorded_at = ? WHERE game_id = ? AND idx = ?",
                (json.dumps(normal), _now(), game_id, index),
            )
            for entry in normal:
                if "hand_id" in entry:
                    conn.execute("UPDATE hands SET game_id = ? WHERE id = ?", (game_id, entry["hand_id"]))
            return {"index": index, "sheet": self._sheet(conn, game)}

    def delete_round(self, game_id: str, index: int) -> dict[str, Any]:
        """Take back the last recorded round.

        Only the last: each round's index fixes the double it was played with, so
        removing one in the middle would shift every later round onto the wrong
        double. To fix an earlier round, edit it instead.
        """
        with self._write() as conn:
            game = self.get_game(game_id, conn)
            count = self._require_round(conn, game_id, index)
            if index != count - 1:
                raise Conflict(f"only the last round (round {count - 1}) can be deleted; edit round {index} instead")
            conn.execute("DELETE FROM rounds WHERE game_id = ? AND idx = ?", (game_id, index))
            return {"deleted_index": index, "sheet": self._sheet(conn, game)}

    def delete_game(self, game_id: str) -> None:
        """Remove a game with its rounds, its hand photos' readings and corrections, and its live events."""
        with self._write() as conn:
            self.get_game(game_id, conn)
            conn.execute("DELETE FROM corrections WHERE hand_id IN (SELECT id FROM hands WHERE game_id = ?)",
                         (game_id,))
            conn.execute("DELETE FROM hands WHERE game_id = ?", (game_id,))
            conn.execute("DELETE FROM rounds WHERE game_id = ?", (game_id,))
            conn.execute("DELETE FROM live_events WHERE game_id = ?", (game_id,))
            conn.execute("DELETE FROM games WHERE id = ?", (game_id,))

    def _require_round(self, conn: sqlite3.Connection, game_id: str, index: int) -> int:
        """How many rounds the game has; NotFound unless round `index` is one of them."""
        count = conn.execute("SELECT COUNT(*) FROM rounds WHERE game_id = ?", (game_id,)).fetchone()[0]
        if not 0 <= index < count:
            held = f"rounds 0 to {count - 1}" if count else "no rounds yet"
            raise NotFound(f"this game has no round {_shown(index)} (it has {held})")
        return count

    def sheet(self, game_id: str) -> dict[str, Any]:
        with self._connect() as conn:
            return self._sheet(conn, self.get_game(game_id, conn))

    def export_record(self, game_id: str) -> dict[str, Any]:
        """The game in the engine's record format.

        The service sees only what is left in each hand at the end of a round, not
        the turns, so "rounds" (deals and turns) stays empty and the record
        replays as a game not yet played; the score sheet and how each round was
        counted (typed points, typed tiles, or photo with corrections) go in
        "scores" and "score_rounds".
        """
        with self._connect() as conn:
            game = self.get_game(game_id, conn)
            sheet = self._sheet(conn, game)
        return {
            "format": RECORD_FORMAT,
            "version": RECORD_VERSION,
            "players": game.config.players,
            "set": game.config.set_max,
            "rules": game.rules.to_dict(),
            "player_names": list(game.players),
            "rounds": [],
            "scores": {k: sheet[k] for k in ("players", "rounds", "totals", "standings", "rules", "rules_summary")},
            "score_rounds": sheet["round_details"],
            "game_id": game.id,
            "created_at": game.created_at,
        }

    # -- what the camera saw ---------------------------------------------------

    def add_live_events(self, game_id: str, session: str, events: Sequence[dict[str, Any]]) -> None:
        """Keep what a live connection's tracker reported about this game (plays, take-backs,
        violations, a disturbed board), as it reported it."""
        with self._write() as conn:
            self.get_game(game_id, conn)
            now = _now()
            conn.executemany(
                "INSERT INTO live_events (game_id, session, recorded_at, kind, event) VALUES (?, ?, ?, ?, ?)",
                [(game_id, session[:40], now, str(e.get("event"))[:40], json.dumps(e, default=str)) for e in events],
            )

    def live_events(self, game_id: str) -> dict[str, Any]:
        """Every event the camera tracker reported for this game, oldest first, with a tally."""
        with self._connect() as conn:
            self.get_game(game_id, conn)
            rows = conn.execute(
                "SELECT session, recorded_at, event FROM live_events WHERE game_id = ? ORDER BY id", (game_id,)
            ).fetchall()
        events = [{**json.loads(r["event"]), "session": r["session"], "recorded_at": r["recorded_at"]} for r in rows]
        kinds = [e.get("event") for e in events]
        return {"game_id": game_id, "events": events, "plays": kinds.count("tile_played"),
                "violations": kinds.count("violation"), "take_backs": kinds.count("tile_taken_back"),
                "sessions": len({r["session"] for r in rows})}

    # -- internals ------------------------------------------------------------

    def _normalise_entries(self, conn: sqlite3.Connection, game: StoredGame, entries: Sequence[Any],
                           ignore_round: int | None = None) -> list[dict[str, Any]]:
        if not isinstance(entries, (list, tuple)):
            raise Invalid("\"hands\" must be a list with one entry per player")
        if len(entries) != game.config.players:
            raise Invalid(f"this game has {game.config.players} players; got {len(entries)} hands")
        out: list[dict[str, Any]] = []
        seen_hands: set[str] = set()
        for seat, entry in enumerate(entries):
            who = f"player {seat + 1} ({game.players[seat]})"
            if isinstance(entry, bool) or not isinstance(entry, (int, dict)):
                raise Invalid(f"{who}: give {{\"points\": n}}, {{\"tiles\": [\"6-4\", ...]}} or {{\"hand_id\": id}}")
            if isinstance(entry, int):
                entry = {"points": entry}
            keys = set(entry) & {"points", "tiles", "hand_id"}
            if len(keys) != 1 or set(entry) - keys:
                raise Invalid(f"{who}: give exactly one of \"points\", \"tiles\" or \"hand_id\"")
            if "points" in entry:
                p = entry["points"]
                if isinstance(p, bool) or not isinstance(p, int) or not 0 <= p <= 10_000:
                    raise Invalid(f"{who}: points must be a whole number from 0 to 10000, got {_shown(p)}")
                out.append({"points": p})
            elif "tiles" in entry:
                tiles = entry["tiles"]
                if not isinstance(tiles, list) or len(tiles) > 200:
                    raise Invalid(f"{who}: tiles must be a list like [\"6-4\", \"0-0\"]")
                try:
                    parsed = [_parse_tile(t, game.config.set_max) for t in tiles]
                except Invalid as exc:
                    raise Invalid(f"{who}: {exc}") from None
                out.append({"tiles": [str(t) for t in parsed]})
            else:
                hand_id = entry["hand_id"]
                if not isinstance(hand_id, str):
                    raise Invalid(f"{who}: hand_id must be a string")
                row = conn.execute("SELECT game_id FROM hands WHERE id = ?", (hand_id,)).fetchone()
                if row is None:
                    raise Invalid(f"{who}: no hand photo with id {_shown(hand_id)}")
                if row["game_id"] not in (None, game.id):
                    raise Invalid(f"{who}: hand photo {hand_id} belongs to another game")
                used = conn.execute(
                    "SELECT idx FROM rounds, json_each(rounds.entries) AS e"
                    " WHERE rounds.game_id = ? AND json_extract(e.value, '$.hand_id') = ? AND idx IS NOT ?",
                    (game.id, hand_id, ignore_round),
                ).fetchone()
                if used is not None or hand_id in seen_hands:
                    where = f"round {used['idx']}" if used is not None else "this round"
                    raise Invalid(f"{who}: hand photo {hand_id} is already counted in {where}")
                seen_hands.add(hand_id)
                out.append({"hand_id": hand_id})
        return out

    def _sheet(self, conn: sqlite3.Connection, game: StoredGame) -> dict[str, Any]:
        rules = game.rules
        sheet = ScoreSheet(game.config.players, rules)
        details = []
        for row in conn.execute("SELECT * FROM rounds WHERE game_id = ? ORDER BY idx", (game.id,)):
            counted = []
            for entry in json.loads(row["entries"]):
                if "points" in entry:
                    counted.append({"source": "typed points", "points": entry["points"]})
                elif "tiles" in entry:
                    tiles = [Tile.parse(t) for t in entry["tiles"]]
                    counted.append({"source": "typed tiles", "tiles": entry["tiles"],
                                    "points": hand_score(tiles, rules)})
                else:
                    hand = self.get_hand(entry["hand_id"], conn)
                    tiles = [Tile(*t["pips"]) for t in hand["tiles"] if t["pips"] is not None]
                    counted.append({"source": "photo", "hand_id": hand["hand_id"],
                                    "tiles": [str(t) for t in tiles], "points": hand_score(tiles, rules),
                                    "corrections": len(hand["corrections"])})
            scores = curved([c["points"] for c in counted], rules)  # typed: a 0 is a player who went out
            double = game.config.round_double(row["idx"])
            sheet.add_round(double, scores)
            details.append({"index": row["idx"], "double": double, "recorded_at": row["recorded_at"],
                            "hands": counted, "scores": scores})
        out = sheet.to_dict()
        out.update({
            "game_id": game.id, "player_names": list(game.players), "set": game.config.set_max,
            "rounds_in_game": game.config.rounds, "complete": len(details) >= game.config.rounds,
            "next_double": None if len(details) >= game.config.rounds else game.config.round_double(len(details)),
            "round_details": details,
        })
        return out


def _parse_tile(value: Any, set_max: int) -> Tile:
    """A typed tile: "6-4" (or 6|4, 6:4, 6/4) or [6, 4], each end a whole number from 0 to `set_max`.

    Checked here, before the engine sees it: a float, an infinity or a huge number is refused in
    plain words instead of rounding to a tile or overflowing."""
    if isinstance(value, (list, tuple)):
        if len(value) != 2:
            raise Invalid(f"a tile has two ends, like [6, 4]; got {_shown(value)} with {len(value)} items")
        for end in value:
            if isinstance(end, bool) or not isinstance(end, int) or not 0 <= end <= set_max:
                raise Invalid(f"tile ends must be whole numbers from 0 to {set_max}, got {_shown(end)}")
    elif isinstance(value, str):
        if len(value) > 12:
            raise Invalid(f"cannot read a tile from {_shown(value, 15)}; write it like \"6-4\"")
    else:
        raise Invalid(f"a tile is written like \"6-4\" or [6, 4], got {_shown(value)}")
    try:
        tile = Tile.parse(value)
    except (ValueError, TypeError, OverflowError) as exc:
        raise Invalid(str(exc)) from None
    if not tile.in_set(set_max):
        raise Invalid(f"tile {tile} is not in a double-{set_max} set")
    return tile


def _clean_names(players: Any) -> list[str]:
    if not isinstance(players, (list, tuple)):
        raise Invalid("players must be a list of names")
    names = []
    for i, name in enumerate(players):
        if not isinstance(name, str) or not name.strip():
            raise Invalid(f"player {i + 1}: a name must be a non-empty string")
        name = " ".join(name.split())
        if len(name) > MAX_NAME_LENGTH:
            raise Invalid(f"player {i + 1}: names are at most {MAX_NAME_LENGTH} characters")
        names.append(name)
    return names


def _game_from_row(row: sqlite3.Row) -> StoredGame:
    rules = HouseRules.from_json(row["rules"])
    players = json.loads(row["players"])
    return StoredGame(row["id"], row["created_at"], players, GameConfig(len(players), row["set_max"], rules))


def _hand_view(row: sqlite3.Row, corrections: list[sqlite3.Row]) -> dict[str, Any]:
    latest: dict[int, Any] = {}
    for c in corrections:
        latest[c["tile_id"]] = None if c["pips"] is None else json.loads(c["pips"])
    rules = HouseRules.from_json(row["rules"])
    tiles = []
    for t in json.loads(row["tiles"]):
        t = dict(t)
        if t["id"] in latest:
            t["read_pips"] = t["pips"]
            t["pips"] = latest[t["id"]]
            t["corrected"] = True
        tiles.append(t)
    counted = [Tile(*t["pips"]) for t in tiles if t["pips"] is not None]
    return {
        "hand_id": row["id"], "game_id": row["game_id"], "image": row["image"],
        "width": row["width"], "height": row["height"], "set": row["set_max"],
        "tiles": tiles, "face_down": row["face_down"],
        "total": sum(t.pips for t in counted), "score": hand_score(counted, rules),
        "house_rules": rules.to_dict(), "warnings": json.loads(row["warnings"]),
        "corrections": [{"tile_id": c["tile_id"], "pips": None if c["pips"] is None else json.loads(c["pips"]),
                         "made_at": c["made_at"]} for c in corrections],
    }
