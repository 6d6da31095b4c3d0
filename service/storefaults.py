"""What is wrong with the game store, in words a person can act on.

A games database can stop working under a running server: its file or folder made
read-only, deleted, overwritten with something else or damaged, or the disk it lives on
filled up. SQLite reports each of these as an error code; left alone they reach the
caller as "internal error" and health still says "ok". This module turns them into a
`StoreFault`: which kind of problem it is, one sentence saying what to do, and whether
reading games still works (so the page can keep showing them while writes are refused).

Two ways in: `fault_from_error` for an error an operation met, and `inspect_files` for
what the file system says now (cheap enough for every health check: a few stat calls and
the first bytes of the file).
"""
from __future__ import annotations

import errno
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SQLITE_HEADER = b"SQLite format 3\x00"
MIN_FREE_BYTES = 1 << 20
"""Below this much free space the disk counts as full: SQLite needs room for its journal
as well as the new pages, and a write that fails half-way leaves nothing behind but an error."""

KINDS = ("read_only", "missing", "corrupt", "full", "locked", "io_error")


@dataclass(frozen=True)
class StoreFault:
    """One problem with the game store, as health reports it and a refused request explains it."""

    kind: str
    """One of `KINDS`."""
    message: str
    """One sentence for a person, starting "the game store ..."."""
    reads_work: bool
    """Whether stored games can still be read (writes never can while the fault lasts)."""

    @property
    def code(self) -> str:
        """The API error code a refused request carries."""
        return f"store_{self.kind}"

    def to_dict(self) -> dict[str, Any]:
        return {"ok": False, "problem": self.kind, "error": self.code, "message": self.message,
                "readable": self.reads_work, "writable": False}


def read_only(path: Path, why: str) -> StoreFault:
    return StoreFault("read_only", f"the game store is read-only: {path} cannot be written ({why}); "
                                   "stored games can be read but nothing can be recorded", True)


def missing(path: Path) -> StoreFault:
    gone = path.parent if not path.parent.is_dir() else path
    what = "folder" if gone != path else "file"
    return StoreFault("missing", f"the game store is gone: its {what} {gone} was deleted while the server ran; "
                                 "restore it, or restart the server to start an empty one", False)


def corrupt(path: Path, why: str) -> StoreFault:
    return StoreFault("corrupt", f"the game store is damaged: {path} cannot be read as a games database "
                                 f"({why}); restore it from a backup", False)


def full(path: Path, free: int | None = None) -> StoreFault:
    room = f" ({free // 1024} KiB free)" if free is not None else ""
    return StoreFault("full", f"the game store's disk is full{room}: nothing more can be written to {path}; "
                              "free some space", True)


def locked(path: Path) -> StoreFault:
    return StoreFault("locked", f"the game store is locked: another program holds {path} open for writing; "
                                "try again when it has finished", True)


def io_error(path: Path, why: str) -> StoreFault:
    return StoreFault("io_error", f"the game store cannot be read or written: {path} ({why})", False)


def fault_from_error(exc: sqlite3.Error, path: Path) -> StoreFault | None:
    """The fault behind an SQLite error, or None when the error is not about the store itself
    (a constraint or a malformed statement: a bug, which stays an internal error)."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    why = str(exc)
    if name.startswith("SQLITE_READONLY") or name == "SQLITE_PERM":
        return inspect_files(path) or read_only(path, why)
    if name.startswith("SQLITE_CANTOPEN"):
        return inspect_files(path) or io_error(path, why)
    if name.startswith("SQLITE_CORRUPT") or name == "SQLITE_NOTADB":
        return corrupt(path, why)
    if name == "SQLITE_FULL":
        return full(path, free_bytes(path))
    if name.startswith("SQLITE_BUSY") or name.startswith("SQLITE_LOCKED"):
        return locked(path)
    if name.startswith("SQLITE_IOERR"):
        return inspect_files(path) or io_error(path, why)
    if name == "SQLITE_ERROR" and why.startswith("no such table"):
        return corrupt(path, f"{why}: the file was replaced by another database")
    return None


def fault_from_os_error(exc: OSError, path: Path) -> StoreFault:
    if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return read_only(path, exc.strerror or str(exc))
    if exc.errno == errno.ENOSPC:
        return full(path, free_bytes(path))
    if exc.errno == errno.ENOENT:
        return missing(path)
    return io_error(path, exc.strerror or str(exc))


def free_bytes(path: Path) -> int | None:
    """Bytes an ordinary process may still write on the file system holding `path`'s folder."""
    try:
        st = os.statvfs(path.parent)
    except (OSError, AttributeError):  # a deleted folder; statvfs does not exist on Windows
        return None
    return st.f_bavail * st.f_frsize


def inspect_files(path: Path) -> StoreFault | None:
    """What the file system says about the database now, without opening it as a database.

    Checked in the order a person would fix them: the file is there, it is an SQLite file,
    it and its folder can be written (the folder holds SQLite's -wal and -shm files), the disk
    has room."""
    if not path.parent.is_dir() or not path.is_file():
        return missing(path)
    try:
        with open(path, "rb") as f:
            head = f.read(len(SQLITE_HEADER))
    except OSError as exc:
        return fault_from_os_error(exc, path)
    if head != SQLITE_HEADER:
        return corrupt(path, "the file does not start like an SQLite database" if head else "the file is empty")
    try:
        os.close(os.open(path, os.O_RDWR))  # opens for writing, writes nothing: exact even for root
    except OSError as exc:
        return read_only(path, exc.strerror or str(exc))
    if not _folder_writable(path.parent):
        return read_only(path, f"its folder {path.parent} is read-only")
    free = free_bytes(path)
    if free is not None and free < MIN_FREE_BYTES:
        return full(path, free)
    return None


def _folder_writable(folder: Path) -> bool:
    try:
        st = os.statvfs(folder)
        if st.f_flag & os.ST_RDONLY:
            return False
    except (OSError, AttributeError):
        pass
    return os.access(folder, os.W_OK)
