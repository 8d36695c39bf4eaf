"""A stand-in for NeMo-Gym 0.7's Gymnasium resources server, which needs Python >= 3.13.

It has the names :mod:`rewardlab.integrations.nemo_gym` imports (``nemo_gym.base_resources_server.
BaseResourcesServerConfig``, ``resources_servers.gymnasium.GymnasiumServer`` and ``extract_text``) with
the behaviour of NeMo-Gym 0.7's ``resources_servers/gymnasium/base.py``: a pydantic server with
``session_state``; ``/reset`` passes the row less ``responses_create_params`` as ``metadata``; ``/step``
does too, with the response, and calls ``close_session`` after a terminal step; ``close_session`` calls
``_cleanup_session``, which drops the session's state. The HTTP layer (FastAPI, session cookies) is left
out: :meth:`GymnasiumServer.reset_endpoint` and :meth:`GymnasiumServer.step_endpoint` are the two
endpoints' bodies, called with the session id the cookie would carry.
"""

from __future__ import annotations

import sys
import types
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class BaseResourcesServerConfig(BaseModel):
    host: str = "127.0.0.1"
    port: int = 0
    name: str = "rewardlab"


class GymnasiumServer(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    config: BaseResourcesServerConfig
    session_state: dict[str, Any] = Field(default_factory=dict)

    async def reset_endpoint(self, row: dict[str, Any], session_id: str) -> dict[str, Any]:
        observation, info = await self.reset(_metadata(row), session_id)
        return {"observation": observation, "info": info}

    async def step_endpoint(self, row: dict[str, Any], response: Any, session_id: str) -> dict[str, Any]:
        observation, reward, terminated, truncated, info = await self.step(response, _metadata(row), session_id)
        if terminated or truncated:
            await self.close_session(session_id)
        done = {"terminated": terminated, "truncated": truncated}
        return {"observation": observation, "reward": reward, **done, "info": info}

    async def reset(self, metadata: dict, session_id: str | None = None) -> tuple[str | None, dict]:
        return None, {}

    async def step(self, action: Any, metadata: dict, session_id: str | None = None) -> tuple:
        raise NotImplementedError

    async def close_session(self, session_id: str | None) -> None:
        self._cleanup_session(session_id)

    def _cleanup_session(self, session_id: str | None) -> None:
        self.session_state.pop(session_id, None)


def _metadata(row: dict[str, Any]) -> dict[str, Any]:
    """What a request's ``model_extra`` holds: every field but the declared ones."""
    return {key: value for key, value in row.items() if key != "responses_create_params"}


def extract_text(response: Any) -> str:
    """The text of a response's messages (their ``output_text`` parts), as NeMo-Gym's."""
    parts = []
    for item in response.output:
        if item.type == "message":
            if isinstance(item.content, str):
                parts.append(item.content)
            else:
                parts.extend(part.text for part in item.content if part.type == "output_text")
    return "".join(parts)


def response(text: str) -> Any:
    """A Responses API response whose one message says ``text``."""
    part = types.SimpleNamespace(type="output_text", text=text)
    return types.SimpleNamespace(output=[types.SimpleNamespace(type="message", content=[part])])


def modules() -> dict[str, types.ModuleType]:
    """The stand-in modules, by the names NeMo-Gym gives them."""
    base = types.ModuleType("nemo_gym.base_resources_server")
    base.BaseResourcesServerConfig = BaseResourcesServerConfig  # type: ignore[attr-defined]
    gymnasium = types.ModuleType("resources_servers.gymnasium")
    gymnasium.GymnasiumServer = GymnasiumServer  # type: ignore[attr-defined]
    gymnasium.extract_text = extract_text  # type: ignore[attr-defined]
    return {
        "nemo_gym": types.ModuleType("nemo_gym"),
        "nemo_gym.base_resources_server": base,
        "resources_servers": types.ModuleType("resources_servers"),
        "resources_servers.gymnasium": gymnasium,
    }


def install(monkeypatch: Any) -> None:
    """Put the stand-in modules in ``sys.modules`` (undone with ``monkeypatch``)."""
    for name, module in modules().items():
        monkeypatch.setitem(sys.modules, name, module)
