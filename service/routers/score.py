"""POST /api/v1/score: a hand photo in, the tiles, their total and the score out.

The same steps as `chickenfoot score`: `load_image` -> `Recognizer.recognize_loaded`
-> `hand_report`, plus `annotate_recognition` for the picture. The reading is kept
(as a "hand") so that a misread tile can be corrected later and the score follows.
"""
from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, File, Form, Query, UploadFile
from fastapi.responses import JSONResponse

from engine import HouseRules

from ..db import GameStore
from ..deps import RecognitionSlots, get_recognizer, get_slots, get_store
from ..schemas import ScoredHand
from .common import RULES_HELP, check_set, jpeg_data_url, read_upload, require_multipart

router = APIRouter(prefix="/api/v1", tags=["score"], default_response_class=JSONResponse)


@router.post("/score", dependencies=[Depends(require_multipart)], response_model=ScoredHand,
             response_model_exclude_unset=True)
def score_photo(
    photo: UploadFile = File(..., description="the hand photo (JPEG, PNG, WebP...)"),
    house_rules: str | None = Form(None, description=RULES_HELP),
    set_max: int | None = Form(None, alias="set", description="the set in use; default: inferred"),
    game_id: str | None = Form(None, description="score under this stored game's rules and set"),
    annotate: bool = Query(True, description="include the annotated photo as a data URL"),
    store: GameStore = Depends(get_store),
    recognizer: Any = Depends(get_recognizer),
    slots: RecognitionSlots = Depends(get_slots),
) -> dict[str, Any]:
    """Read every tile in a hand photo and score it.

    Answers the CLI's `--json` keys (image, tiles, face_down, total, score, set,
    house_rules, warnings, seconds) plus `hand_id` (for corrections), the photo's
    `width` and `height` (tile corners are in those pixels) and `annotated_image`.
    """
    from vision.annotate import annotate_recognition
    from vision.imageio import load_image
    from vision.report import hand_report

    rules = HouseRules.parse(house_rules)
    set_max = check_set(set_max)
    if game_id:
        game = store.get_game(game_id)
        rules = game.rules
        set_max = set_max or game.config.set_max
    data, name = read_upload(photo)
    with slots.hold():
        img = load_image(data, name=name)
        del data
        rec = recognizer.recognize_loaded(img, set_max, level=True)
        report = hand_report(rec, rules)
        annotated = jpeg_data_url(annotate_recognition(img, rec)) if annotate else None
        del img
    report["hand_id"] = store.add_hand(report, rec.width, rec.height, game_id or None)
    report.update(width=rec.width, height=rec.height, game_id=game_id or None)
    if annotated is not None:
        report["annotated_image"] = annotated
    return report
