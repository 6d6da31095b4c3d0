"""POST /api/v1/audit: a photo of the table in, the layout and what breaks the rules out.

The layout reader (`vision.layout`) is built separately; until it is installed
this endpoint answers 503 "audit not available" rather than failing at import,
so the rest of the API works without it.
"""
from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from fastapi import APIRouter, Depends, File, Form, Query, UploadFile
from fastapi.responses import JSONResponse

from engine import HouseRules

from ..deps import ApiError, RecognitionSlots, get_recognizer, get_slots
from ..schemas import Audit
from .common import RULES_HELP, check_set, jpeg_data_url, read_upload, require_multipart

router = APIRouter(prefix="/api/v1", tags=["audit"], default_response_class=JSONResponse)


def layout_module() -> ModuleType | None:
    """`vision.layout` if it is there and offers `audit_photo`, else None."""
    try:
        module = importlib.import_module("vision.layout")
    except ModuleNotFoundError as exc:
        if exc.name == "vision.layout":
            return None
        raise
    return module if hasattr(module, "audit_photo") else None


def require_layout() -> ModuleType:
    module = layout_module()
    if module is None:
        raise ApiError(503, "audit_unavailable",
                       "audit not available: this installation has no layout reader (vision.layout) yet")
    return module


def audit_drawer(layout: ModuleType):
    """The function that draws an audit on the photo, `(LoadedImage, Recognition, audit JSON object) -> BGR`.

    Looked for in vision.layout, then vision.annotate; until one exists the
    picture shows the tiles as read (the audit itself is still complete).
    """
    for module in (layout, importlib.import_module("vision.annotate")):
        for name in ("annotate_audit", "annotate_layout"):
            draw = getattr(module, name, None)
            if callable(draw):
                return draw
    return None


@router.post("/audit", dependencies=[Depends(require_multipart)], response_model=Audit,
             response_model_exclude_unset=True)
def audit_photo(
    photo: UploadFile = File(..., description="a photo of the table, from above"),
    house_rules: str | None = Form(None, description=RULES_HELP),
    set_max: int | None = Form(None, alias="set", description="the set in use; default: inferred"),
    round_double: int | None = Form(None, description="the double this round started with, if known"),
    annotate: bool = Query(True, description="include the audit drawn on the photo as a data URL"),
    explain_block: bool = Query(True, description="include `blocked`: whether play can go on, as far as the "
                                                  "picture shows (see `engine.blocked`)"),
    layout: ModuleType = Depends(require_layout),
    recognizer: Any = Depends(get_recognizer),
    slots: RecognitionSlots = Depends(get_slots),
) -> dict[str, Any]:
    """Read the layout: spinner, lines and chickie feet, open ends, rule violations, loose tiles."""
    from vision.annotate import annotate_recognition
    from vision.imageio import load_image

    rules = HouseRules.parse(house_rules)
    set_max = check_set(set_max)
    if round_double is not None and not 0 <= round_double <= 18:
        raise ApiError(422, "invalid_round_double", f"round_double must be between 0 and 18, got {round_double}")
    data, name = read_upload(photo)
    with slots.hold():
        img = load_image(data, name=name)
        del data
        rec = recognizer.recognize_loaded(img, set_max, level=True)
        result = _plain(layout.audit_photo(rec, rec.set_max, rules, round_double,
                                           pixels=img.bgr, to_pixels=1 / img.scale).to_dict())
        if annotate:
            draw = audit_drawer(layout)
            picture = draw(img, rec, result) if draw is not None else annotate_recognition(img, rec)
            result["annotated_image"] = jpeg_data_url(picture)
        del img
    if explain_block:
        from engine.blocked import explain_audit

        result["blocked"] = explain_audit(result, rec.set_max).to_dict()
    result.setdefault("image", rec.image)
    result.update(width=rec.width, height=rec.height, set=rec.set_max, house_rules=rules.to_dict())
    return result


def _plain(value: Any) -> Any:
    """JSON-ready copy: numpy numbers and arrays from the vision side become lists and numbers."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "tolist") and callable(value.tolist):  # numpy array or scalar
        return _plain(value.tolist())
    return value
