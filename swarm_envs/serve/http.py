"""What both servers share: the bind address rule and the gate in front of their apps."""

from __future__ import annotations

import hmac
import ipaddress
import json
import logging
from collections.abc import Awaitable, Callable

logger = logging.getLogger("swarm_envs")

#: the environment variable the servers and the clients read a bearer token from
TOKEN_ENV = "SWARM_ENVS_TOKEN"


def is_loopback(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and `localhost`."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Gate:
    """ASGI middleware in front of the app: the bearer token, and quiet disconnects.

    With a token, every HTTP request and WebSocket needs `Authorization: Bearer <token>`;
    `/health` stays open (liveness probes carry no secrets). A WebSocket without it is
    refused before it is accepted (HTTP 403), an HTTP request gets 401. A client that
    vanishes while openenv-core still writes to its WebSocket is an ordinary end of that
    session (closed and cleaned up by openenv-core), not an error of the server.
    """

    def __init__(self, app: Callable[..., Awaitable[None]], token: str | None = None):
        self.app = app
        self._expected = f"Bearer {token}".encode() if token else None

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        """Check the token, then hand the request on."""
        kind = scope.get("type")
        if self._expected and kind in ("http", "websocket") and scope.get("path") != "/health":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self._expected):
                await _refuse(kind, send)
                return
        if kind != "websocket":
            await self.app(scope, receive, send)
            return
        from starlette.websockets import WebSocketDisconnect
        from uvicorn.protocols.utils import ClientDisconnected

        try:
            await self.app(scope, receive, send)
        except (WebSocketDisconnect, ClientDisconnected):
            logger.debug("a client left while its session was answering it")


async def _refuse(kind: str, send: Callable) -> None:
    why = "missing or wrong bearer token: send 'Authorization: Bearer <token>'"
    if kind == "websocket":
        await send({"type": "websocket.close", "code": 1008, "reason": why})
        return
    await send(
        {
            "type": "http.response.start",
            "status": 401,
            "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")],
        }
    )
    await send({"type": "http.response.body", "body": json.dumps({"detail": why}).encode()})
