"""The web page and the API docs, both served from this app with no network needed.

FastAPI's stock /docs loads Swagger UI from a CDN; here the same page loads the
copy of swagger-ui-dist kept in static/vendor/swagger-ui, and ReDoc (which also
wants a CDN and web fonts) is switched off.
"""
from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse

STATIC_DIR = Path(__file__).resolve().parents[1] / "static"
SWAGGER = "/static/vendor/swagger-ui"

router = APIRouter(include_in_schema=False)


@router.get("/")
def index() -> FileResponse:
    return FileResponse(STATIC_DIR / "index.html", headers={"Cache-Control": "no-cache"})


@router.get("/docs")
def docs() -> HTMLResponse:
    return get_swagger_ui_html(
        openapi_url="/openapi.json", title="chickenfoot API",
        swagger_js_url=f"{SWAGGER}/swagger-ui-bundle.js", swagger_css_url=f"{SWAGGER}/swagger-ui.css",
        swagger_favicon_url=f"{SWAGGER}/favicon-32x32.png",
        swagger_ui_parameters={"validatorUrl": None},
    )
