"""What both servers share: the bind address rule, the task lookup, and the gate in front.

The gate refuses, before any route runs: a request without the bearer token (when there
is one); a request from a web page (an `Origin` header not on the allow-list), which with
no token would let any site the user visits drive sandboxes; and a request whose `Host`
is not the server's (DNS rebinding: a page whose name resolves to 127.0.0.1). It also
hands every WebSocket message to a check of the server's own (`guard`), so that a message
the app could not take is answered with a typed error and never reaches it.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence

from swarm_envs.error import ConfigError
from swarm_envs.tasks import Task, get_task

logger = logging.getLogger("swarm_envs")

#: the environment variable the servers and the clients read a bearer token from
TOKEN_ENV = "SWARM_ENVS_TOKEN"
#: the loopback names, as a `Host` header or an origin writes them
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
#: bind addresses that listen on every interface (any name may reach them)
WILDCARD_ADDRESSES = ("0.0.0.0", "::", "")


def is_loopback(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and `localhost`."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def default_allowed_hosts(host: str) -> list[str]:
    """The `Host` values a server bound to `host` answers (`name:*`: any port).

    The loopback names, and the bound address itself; on a wildcard address any name
    (`*`), since the machine's names are not known here: the token guards it there.
    """
    if host in WILDCARD_ADDRESSES:
        return ["*"]
    names = list(LOOPBACK_NAMES)
    if not is_loopback(host):
        names.append(f"[{host}]" if ":" in host else host)
    return [n for name in names for n in (name, f"{name}:*")]


def default_allowed_origins(host: str) -> list[str]:
    """The `Origin` values a server answers by default: pages served from this machine.

    A request without an `Origin` header (every non-browser client) is always answered.
    """
    return [f"{scheme}://{name}:*" for scheme in ("http", "https") for name in LOOPBACK_NAMES]


def _allowed(value: str, patterns: Sequence[str]) -> bool:
    """`value` matches one of `patterns` (exact, `base:*` for any port, `*` for any)."""
    for p in patterns:
        if p == "*" or value == p:
            return True
        if p.endswith(":*") and value.startswith(p[:-1]) and value[len(p) - 1 :].isdigit():
            return True
    return False


def find_task(task: str) -> Task:
    """`get_task(task)`, with a name the filesystem refuses (too long) as a `ConfigError`."""
    try:
        return get_task(task)
    except OSError as e:  # a name looked up as a folder: too long, or unreadable
        shown = task if len(task) <= 80 else f"{task[:60]}... ({len(task)} characters)"
        raise ConfigError(
            f"task {shown!r}: not a task id, name or folder ({e.strerror or e}); see "
            "`swarm-envs list`"
        ) from None


def netloc(host: str, port: int) -> str:
    """`host:port` as a URL writes it (`[::1]:8000` for an IPv6 address)."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


class Gate:
    """ASGI middleware in front of the app: token, origin, host, messages, quiet disconnects.

    With a token, every HTTP request and WebSocket needs `Authorization: Bearer <token>`;
    `/health` stays open (liveness probes carry no secrets). A WebSocket without it is
    refused before it is accepted (HTTP 403), an HTTP request gets 401. A request whose
    `Origin` is not in `allowed_origins` is refused (403), one whose `Host` is not in
    `allowed_hosts` too (421 for HTTP, as the MCP SDK answers it). `guards[path](text,
    data)` sees every message of a WebSocket at `path` first: it returns the reply to a
    message the app must not see (a typed error), or None to hand the message on. A
    client that vanishes while openenv-core still writes to its WebSocket is an ordinary
    end of that session (closed and cleaned up by openenv-core), not an error of the
    server.

    Args:
        app: the ASGI app behind the gate.
        token: the bearer token (None: no check).
        allowed_hosts: `Host` values answered (`name:*` any port, `*` any host).
        allowed_origins: `Origin` values answered (`http://name:*`, `*` any origin);
            a request without an `Origin` is always answered.
        guards: WebSocket path -> the check of each of its messages.
    """

    def __init__(
        self,
        app: Callable[..., Awaitable[None]],
        token: str | None = None,
        *,
        allowed_hosts: Sequence[str] = ("*",),
        allowed_origins: Sequence[str] = ("*",),
        guards: Mapping[str, Callable[[str | None, bytes | None], str | None]] | None = None,
    ):
        self.app = app
        self._expected = f"Bearer {token}".encode() if token else None
        self.allowed_hosts = list(allowed_hosts)
        self.allowed_origins = list(allowed_origins)
        self._guards = dict(guards or {})

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        """Check the token, the origin and the host, then hand the request on."""
        kind = scope.get("type")
        if kind in ("http", "websocket"):
            why = self._refusal(scope)
            if why is not None:
                await _refuse(kind, send, *why)
                return
        if kind != "websocket":
            await self.app(scope, receive, send)
            return
        from starlette.websockets import WebSocketDisconnect
        from uvicorn.protocols.utils import ClientDisconnected

        guard = self._guards.get(scope.get("path", ""))
        if guard is not None:
            receive = _guarded(guard, receive, send)
        try:
            await self.app(scope, receive, send)
        except (WebSocketDisconnect, ClientDisconnected):
            logger.debug("a client left while its session was answering it")

    def _refusal(self, scope: dict) -> tuple[int, str] | None:
        """(status, reason) of a request the gate refuses, or None."""
        headers: dict[bytes, bytes] = {}
        for k, v in scope.get("headers") or []:
            headers.setdefault(k, v)
        origin = headers.get(b"origin")
        if origin is not None and not _allowed(origin.decode("latin-1"), self.allowed_origins):
            return 403, (
                f"requests from web pages at {origin.decode('latin-1')!r} are refused (a "
                "page the user visits must not drive sandboxes); allow its origin with "
                "--allow-origin if it is yours"
            )
        host = headers.get(b"host", b"").decode("latin-1")
        if not _allowed(host, self.allowed_hosts):
            return 421, (
                f"Host {host!r} is not this server's (a DNS rebinding page?); allow the "
                "name with --allow-host if clients reach the server by it"
            )
        if self._expected and scope.get("path") != "/health":
            given = headers.get(b"authorization", b"")
            if not hmac.compare_digest(given, self._expected):
                return 401, "missing or wrong bearer token: send 'Authorization: Bearer <token>'"
        return None


def _guarded(
    guard: Callable[[str | None, bytes | None], str | None], receive: Callable, send: Callable
) -> Callable:
    """`receive` that answers the messages `guard` refuses itself and returns the others."""

    async def receive_checked() -> dict:
        # The app reads one message, answers it, then reads the next: an answer sent
        # here never interleaves with one of its own.
        while True:
            message = await receive()
            if message.get("type") != "websocket.receive":
                return message
            reply = guard(message.get("text"), message.get("bytes"))
            if reply is None:
                return message
            await send({"type": "websocket.send", "text": reply})

    return receive_checked


async def _refuse(kind: str, send: Callable, status: int, why: str) -> None:
    if kind == "websocket":
        reason = why.encode()[:120].decode(errors="ignore")  # a close frame holds 123 bytes
        await send({"type": "websocket.close", "code": 1008, "reason": reason})
        return
    headers = [(b"content-type", b"application/json")]
    if status == 401:
        headers.append((b"www-authenticate", b"Bearer"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": json.dumps({"detail": why}).encode()})
