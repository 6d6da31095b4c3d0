"""Pieces the photo endpoints share: reading an upload, the set, images out.

House rules are read by `HouseRules.parse`, the one parser the CLI uses too.
"""
from __future__ import annotations

import base64
from typing import Any

from fastapi import Request, UploadFile

from engine import SUPPORTED_SETS

from ..deps import ApiError
from ..errorshape import shown

JPEG_QUALITY = 85
RULES_HELP = "house rules: a preset name (plain, encyclopedia, montgomery, howto, escale) or a JSON object"


def require_multipart(request: Request) -> None:
    """A photo endpoint says so plainly when it is sent JSON or raw bytes instead of a form."""
    ctype = request.headers.get("content-type", "")
    if not ctype.lower().startswith("multipart/form-data"):
        raise ApiError(
            415, "unsupported_media_type",
            f"send the photo as multipart/form-data with the file in the \"photo\" field "
            f"(got {shown(ctype, 60) if ctype else 'no content type'})",
        )


def read_upload(photo: UploadFile) -> tuple[bytes, str]:
    """The upload's bytes and a name to call it by; the size limit was enforced before this."""
    data = photo.file.read()
    name = (photo.filename or "upload").replace("\n", " ")[:120] or "upload"
    if not data:
        raise ApiError(422, "empty_upload", f"{name}: the uploaded file is empty")
    return data, name


def check_set(set_max: int | None) -> int | None:
    if set_max is not None and set_max not in SUPPORTED_SETS:
        raise ApiError(422, "invalid_set", f"set must be one of {', '.join(map(str, SUPPORTED_SETS))}, got {shown(set_max)}")
    return set_max


def jpeg_data_url(bgr: Any) -> str:
    """An image inline in the JSON answer, so the page and scripts need no second request."""
    import cv2

    ok, buf = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise ApiError(500, "encode_failed", "could not encode the annotated image")
    return "data:image/jpeg;base64," + base64.b64encode(buf.tobytes()).decode("ascii")


__all__ = ["RULES_HELP", "check_set", "jpeg_data_url", "read_upload", "require_multipart"]
