"""Turn a recognition into the hand report the CLI and the API both return."""
from __future__ import annotations

from engine import HouseRules, Tile
from engine.scoring import hand_score

from .types import Recognition


def hand_report(rec: Recognition, rules: HouseRules) -> dict:
    """The keys `chickenfoot score --json` promises: image, tiles, face_down, total, score."""
    tiles = [t for t in rec.tiles if t.pips is not None]
    score = hand_score([Tile(*t.pips) for t in tiles], rules)
    return {
        "image": rec.image,
        "tiles": [t.to_dict() for t in tiles],
        "face_down": len(rec.face_down),
        "total": rec.total,
        "score": score,
        "set": rec.set_max,
        "house_rules": rules.to_dict(),
        "warnings": rec.warnings,
        "seconds": round(rec.seconds, 3),
    }
