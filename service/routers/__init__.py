"""One router per area of the API; `service.app` includes them all, in this order.

Each JSON route names its answer's model (`service.schemas`) for /openapi.json and /docs, and
each router answers through `JSONResponse` (Python's json.dumps) rather than FastAPI's shortcut
that writes a model with pydantic's own JSON writer: that writer spells some numbers differently
(1e-05 as 0.00001), and the answers stay byte for byte what clients already read.
"""
from . import audit, games, hands, health, live, pages, score, study

ROUTERS = [health.router, score.router, hands.router, games.router, games.rules_router, audit.router, study.router, live.router, pages.router]
