"""The Python client of `swarm-envs serve`: openenv-core's `EnvClient`, typed for swarms.

    from swarm_envs.serve import SwarmEnvClient

    with SwarmEnvClient("http://127.0.0.1:8000").sync() as env:
        result = env.reset(seed=0)
        while not result.done:
            obs = result.observation                      # a SwarmObservation
            calls = {a: policy(obs.observations[a]) for a in obs.ready}
            result = env.step(SwarmAction(actions=calls))

It is async by default, as openenv-core's clients are (`async with SwarmEnvClient(...)`),
and `.sync()` wraps it. The bearer token (`token=`, or the `SWARM_ENVS_TOKEN` environment
variable) is sent with the WebSocket handshake. A server error, a refused session or a
server that went away raises `SessionError` with the server's reason.
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed

from swarm_envs.error import SessionError
from swarm_envs.serve.http import TOKEN_ENV
from swarm_envs.serve.models import SwarmAction, SwarmObservation, SwarmState


def _reason(why: str) -> str:
    if "CAPACITY_REACHED" in why:
        why += "; close a session, or start the server with a larger --max-sessions"
    return why


class SwarmEnvClient(EnvClient[SwarmAction, SwarmObservation, SwarmState]):
    """A session of a `swarm-envs serve` server: one sandboxed swarm episode.

    Args:
        base_url: the server, `http://host:port` or `ws://host:port`.
        token: the bearer token (default: the `SWARM_ENVS_TOKEN` environment variable).
        message_timeout_s: how long to wait for one reply (a step that runs the tests
            takes as long as the tests).
        **kwargs: what `EnvClient` takes (`connect_timeout_s`, `max_message_size_mb`).
    """

    _ws: Any  # openenv-core's WebSocket connection, or None while closed

    def __init__(
        self,
        base_url: str,
        *,
        token: str | None = None,
        message_timeout_s: float = 300.0,
        **kwargs: Any,
    ):
        super().__init__(base_url, message_timeout_s=message_timeout_s, **kwargs)
        self._token = token if token is not None else os.environ.get(TOKEN_ENV)

    async def connect(self) -> SwarmEnvClient:
        """Open the session's WebSocket, with the token when there is one."""
        if self._ws is not None:
            return self
        headers = {"Authorization": f"Bearer {self._token}"} if self._token else None
        try:
            self._ws = await ws_connect(
                self._ws_url,
                open_timeout=self._connect_timeout,
                max_size=self._max_message_size,
                additional_headers=headers,
                proxy=None,  # the server is named directly, never through a proxy
            )
        except Exception as e:
            raise SessionError(f"cannot open a session at {self._ws_url}: {e}") from e
        return self

    async def _send_and_receive(self, message: dict[str, Any]) -> dict[str, Any]:
        try:
            return await super()._send_and_receive(message)
        except ConnectionClosed as e:
            # A server that refuses a session says why and closes at once: the reason may
            # be waiting in the buffer even though our message could not be sent.
            last = await self._last_words()
            self._ws = None
            if last is not None:
                raise SessionError(_reason(last)) from e
            raise SessionError(
                f"the server closed the session ({e}); its episode is gone: open a new "
                "session and reset"
            ) from e
        except RuntimeError as e:  # openenv-core's form of an error response
            raise SessionError(_reason(str(e).removeprefix("Server error: "))) from e

    async def _last_words(self) -> str | None:
        """The error a closed connection left in the buffer, if any."""
        try:
            data = json.loads(await asyncio.wait_for(self._ws.recv(), 1.0))
        except Exception:
            return None
        if not isinstance(data, dict) or data.get("type") != "error":
            return None
        error = data.get("data") or {}
        return f"{error.get('message', 'unknown error')} (code: {error.get('code', 'UNKNOWN')})"

    def _step_payload(self, action: SwarmAction) -> dict[str, Any]:
        return action.model_dump(exclude_defaults=True)

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[SwarmObservation]:
        obs = SwarmObservation(
            **payload.get("observation", {}),
            reward=payload.get("reward"),
            done=payload.get("done", False),
        )
        return StepResult(observation=obs, reward=obs.reward, done=obs.done)

    def _parse_state(self, payload: dict[str, Any]) -> SwarmState:
        return SwarmState(**payload)
