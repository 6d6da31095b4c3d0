"""One router per area of the API; `service.app` includes them all, in this order."""
from . import audit, games, hands, health, live, pages, score, study

ROUTERS = [health.router, score.router, hands.router, games.router, games.rules_router, audit.router, study.router, live.router, pages.router]
