"""Menu mode's options (`MenuConfig`) and how they are told apart from the text env's.

Owns the move kinds, their thinking-token costs and the option checks; imports only
`swarm_envs.core` and the errors.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from swarm_envs.core.config import EnvConfig, over_defaults
from swarm_envs.error import ConfigError, close_matches, describe_invalid

MoveKind = Literal["claim", "apply", "run_tests", "wait", "done"]
MOVE_KINDS: tuple[str, ...] = ("claim", "apply", "run_tests", "wait", "done")


def _default_move_tokens() -> dict[str, int]:
    # Thinking tokens of each move, as an LLM agent would spend them deciding; apply
    # also pays for the code it writes (4 characters a token, text mode's estimate).
    return {"claim": 50, "apply": 200, "run_tests": 50, "wait": 20, "done": 20}


class MenuConfig(BaseModel):
    """The options of menu mode (the text env's options are those of `EnvConfig`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_units: int = Field(
        default=128, ge=1, le=4096, description="unit slots of the observation and actions"
    )
    n_wrong: int = Field(default=3, ge=0, le=16, description="wrong candidates per unit")
    candidate_seed: int = Field(default=0, description="seed of the candidate mutants and order")
    move_tokens: dict[str, int] = Field(
        default_factory=_default_move_tokens,
        description="thinking tokens of each move kind (claim, apply, run_tests, wait, done)",
    )
    wait_s: float = Field(default=5.0, gt=0, description="longest wait of the wait move")
    dependency_feature: bool = Field(
        default=False,
        description="one more feature per unit slot: every unit it depends on passes all "
        "its tests (1 for a unit without dependencies)",
    )
    dict_obs: bool = Field(
        default=True,
        description="observation {'observation', 'action_mask'} (True) or the Box alone "
        "(False; the mask stays in infos)",
    )

    @field_validator("move_tokens")
    @classmethod
    def _tokens(cls, v: dict[str, int]) -> dict[str, int]:
        return over_defaults(v, _default_move_tokens(), "move kinds", "token counts")

    @property
    def n_candidates(self) -> int:
        """The candidates of a unit: the right one and `n_wrong` wrong ones."""
        return self.n_wrong + 1


def split_config(config: Mapping[str, Any]) -> tuple[MenuConfig, dict[str, Any]]:
    """Split keyword options into the menu's and the text env's, naming unknown ones."""
    menu_keys, env_keys = set(MenuConfig.model_fields), set(EnvConfig.model_fields)
    unknown = sorted(set(config) - menu_keys - env_keys)
    if unknown:
        allowed = sorted(menu_keys | env_keys)
        said = ", ".join(
            f"{k!r}" + (f" (did you mean {h[0]!r}?)" if (h := close_matches(k, allowed, 1)) else "")
            for k in unknown
        )
        raise ConfigError(f"unknown option {said} for mode='menu'; allowed options: {allowed}")
    try:
        menu = MenuConfig.model_validate({k: v for k, v in config.items() if k in menu_keys})
    except ValidationError as e:
        raise ConfigError(
            "invalid menu option: " + describe_invalid(e, noun="option", allowed={"": menu_keys})
        ) from None
    return menu, {k: v for k, v in config.items() if k in env_keys}
