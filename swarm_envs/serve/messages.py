"""The schema of what a client may send the OpenEnv server, and the check of each message.

openenv-core's WebSocket loop reads `message["type"]` before its own checks, so a message
that is valid JSON but not an object (or a binary frame) ends in its catch-all, which
destroys the session; a wrong type in `reset`'s fields reaches the environment, and a
malformed step is answered "Invalid message" without the field. `check_message` sees every
message first (through the gate, `swarm_envs.serve.http.Gate`): what the server cannot
take is answered here with openenv-core's error shape, `{"type": "error", "data":
{"message", "code", "errors"}}`, naming the field (`data.seed`, `data.usage.agent_0`), and
never reaches openenv-core, so the session lives on. What passes is a message of the
protocol with fields of the right types; the environment still checks what depends on
the episode (unknown agents, a step before `reset`).
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt, ValidationError

from swarm_envs.core.actions import Usage
from swarm_envs.serve.models import SwarmAction

#: the message types a client may send (openenv-core's `mcp` type serves MCP environments,
#: which a swarm episode is not)
MESSAGE_TYPES = ("reset", "step", "state", "close")
#: the longest `episode_id`, and the characters it may hold (it is echoed in replies and
#: logs; nothing ever makes a path of it)
EPISODE_ID_MAX = 128
EPISODE_ID_PATTERN = r"^[A-Za-z0-9._:-]+$"
#: seeds seed numpy and the sandbox's `PYTHONHASHSEED`, which takes 0 to 2**32 - 1
SEED_MAX = 2**32 - 1

#: a time cap: a number (not a bool, not a string) above 0; Infinity: no cap
_Cap = Annotated[StrictFloat, Field(gt=0)]


class ResetOptions(BaseModel):
    """`reset`'s `options` (those of `env.reset(options=...)`)."""

    model_config = ConfigDict(extra="forbid")

    time_cap: _Cap | None = Field(default=None, description="virtual seconds; Infinity: none")


class ResetData(BaseModel):
    """The fields of a `reset` message."""

    model_config = ConfigDict(extra="forbid")

    seed: Annotated[StrictInt, Field(ge=0, le=SEED_MAX)] | None = None
    episode_id: (
        Annotated[str, Field(min_length=1, max_length=EPISODE_ID_MAX, pattern=EPISODE_ID_PATTERN)]
        | None
    ) = None
    time_cap: _Cap | None = Field(default=None, description="virtual seconds; Infinity: none")
    options: ResetOptions | None = None


class StepData(SwarmAction):
    """The fields of a `step` message: a `SwarmAction` whose usages are `Usage`s."""

    usage: dict[str, Usage] = Field(  # type: ignore[assignment]
        default_factory=dict, description="agent name -> the usage its model reported"
    )


_DATA: dict[str, type[BaseModel] | None] = {
    "reset": ResetData,
    "step": StepData,
    "state": None,
    "close": None,
}


def _error(code: str, message: str, errors: list[dict[str, Any]] | None = None) -> str:
    data: dict[str, Any] = {"message": message, "code": code}
    if errors is not None:
        data["errors"] = errors
    return json.dumps({"type": "error", "data": data})


def _where(loc: tuple[Any, ...]) -> str:
    return ".".join(map(str, loc)) or "(the message)"


def _invalid(kind: str, e: ValidationError, prefix: tuple[str, ...] = ("data",)) -> str:
    errors = [
        {"loc": [*prefix, *map(str, err["loc"])], "msg": err["msg"], "type": err["type"]}
        for err in e.errors(include_url=False, include_input=False, include_context=False)
    ]
    said = "; ".join(f"{_where(tuple(x['loc']))}: {x['msg']}" for x in errors[:5])
    more = f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""
    return _error("VALIDATION_ERROR", f"{kind}: {said}{more}", errors)


def check_message(text: str | None, data: bytes | None = None) -> str | None:
    """The error reply to a WebSocket message the server cannot take, or None to pass it.

    Args:
        text: the message of a text frame (None for a binary frame).
        data: the message of a binary frame.
    """
    if text is None:
        size = len(data or b"")
        return _error(
            "INVALID_JSON",
            f"a binary frame ({size} bytes): send each message as a text frame of JSON",
        )
    try:
        message = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as e:
        return _error("INVALID_JSON", f"Invalid JSON: {e}")
    if not isinstance(message, dict):
        return _error(
            "INVALID_JSON",
            f'a message is a JSON object such as {{"type": "state"}}, not a '
            f"{type(message).__name__}",
        )
    kind = message.get("type")
    if not isinstance(kind, str) or kind not in _DATA:
        return _error(
            "UNKNOWN_TYPE",
            f"type: {kind!r} is not a message type; expected one of {list(MESSAGE_TYPES)}",
        )
    extra = sorted(map(str, set(message) - {"type", "data"}))
    if extra:
        return _error(
            "VALIDATION_ERROR",
            f"{kind}: unknown key(s) {extra}; a message has `type` and `data`",
            [
                {"loc": [k], "msg": "Extra inputs are not permitted", "type": "extra_forbidden"}
                for k in extra
            ],
        )
    model = _DATA[kind]
    if model is None:
        if message.get("data") not in (None, {}):
            return _error(
                "VALIDATION_ERROR",
                f"{kind}: data: a {kind} message carries no data",
                [{"loc": ["data"], "msg": "no data expected", "type": "extra_forbidden"}],
            )
        return None
    body = message.get("data", {} if kind == "reset" else None)
    if not isinstance(body, dict):
        return _error(
            "VALIDATION_ERROR",
            f"{kind}: data: expected a JSON object, got {_type_name(body)}",
            [{"loc": ["data"], "msg": "Input should be an object", "type": "dict_type"}],
        )
    try:
        model.model_validate(body)
    except ValidationError as e:
        return _invalid(kind, e)
    except (RecursionError, ValueError, TypeError) as e:  # a validator's own failure
        return _error("VALIDATION_ERROR", f"{kind}: data: {e}")
    return None


def _type_name(value: Any) -> str:
    return "null" if value is None else type(value).__name__


__all__ = [
    "EPISODE_ID_MAX",
    "MESSAGE_TYPES",
    "ResetData",
    "ResetOptions",
    "StepData",
    "check_message",
]
