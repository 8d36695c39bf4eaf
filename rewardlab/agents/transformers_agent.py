"""TransformersAgent: any local causal LM with its chat template as a RewardLab agent."""

from __future__ import annotations

import os
from typing import Any

from rewardlab.agents.chat import ChatState
from rewardlab.errors import ConfigError, require


class TransformersAgent:
    """Samples each action from a Hugging Face causal LM.

    The prompt is the chat (``info["messages"]`` from :class:`~rewardlab.wrappers.ChatHistory`
    when present, else ``[system prompt, observation, ...]`` kept by the agent) rendered with the
    tokenizer's chat template, with ``info["tools"]`` passed as ``tools=`` when the env has tools.
    The action is the decoded continuation up to the end-of-turn token. ``temperature=0`` is
    greedy decoding (the default, so evaluations repeat); with ``temperature > 0`` and a ``seed``
    sampling repeats too.

    Example:
        >>> agent = TransformersAgent.from_pretrained("smollm2")  # doctest: +SKIP
        >>> agent.act("Say hi.", {"system_prompt": "Be brief."})  # doctest: +SKIP
    """

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        *,
        max_new_tokens: int = 256,
        temperature: float = 0.0,
        top_p: float = 1.0,
        seed: int | None = None,
    ):
        if not isinstance(max_new_tokens, int) or max_new_tokens < 1:
            raise ConfigError(f"max_new_tokens must be a positive int, got {max_new_tokens!r}")
        if not temperature >= 0:
            raise ConfigError(f"temperature must be >= 0, got {temperature!r}")
        if not 0 < top_p <= 1:
            raise ConfigError(f"top_p must be in (0, 1], got {top_p!r}")
        self.model = model
        self.tokenizer = tokenizer
        self.max_new_tokens = max_new_tokens
        self.temperature = temperature
        self.top_p = top_p
        self.seed = seed
        self.chat = ChatState()
        self.generator = None

    @classmethod
    def from_pretrained(cls, name: str | os.PathLike[str] = "smollm2", *, device: str | None = None, **kwargs: Any):
        """Load ``name`` (``"smollm2"``, an HF id or a local folder) with :func:`~rewardlab.agents.load_model`."""
        from rewardlab.agents.models import load_model

        model, tokenizer = load_model(name, device=device)
        return cls(model, tokenizer, **kwargs)

    def prompt_ids(self, messages: list[dict[str, str]], tools: list[dict[str, Any]] | None) -> list[int]:
        """Token ids of ``messages`` rendered with the chat template and the assistant header."""
        kwargs: dict[str, Any] = {"tokenize": False, "add_generation_prompt": True}
        if tools:
            kwargs["tools"] = tools
        text = self.tokenizer.apply_chat_template(messages, **kwargs)
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def act(self, observation: str, info: dict[str, Any]) -> str:
        torch = require("torch", "train")
        messages = self.chat.turn(observation, info)
        ids = torch.tensor([self.prompt_ids(messages, self.chat.tools)], device=self.model.device)
        sampling: dict[str, Any] = {"do_sample": self.temperature > 0}
        if self.temperature > 0:
            sampling.update(temperature=self.temperature, top_p=self.top_p, top_k=0)
            if self.seed is not None:
                torch.manual_seed(self.seed)
                self.seed += 1
        with torch.no_grad():
            output = self.model.generate(
                input_ids=ids,
                attention_mask=torch.ones_like(ids),
                max_new_tokens=self.max_new_tokens,
                pad_token_id=pad if (pad := self.tokenizer.pad_token_id) is not None else self.tokenizer.eos_token_id,
                eos_token_id=self.tokenizer.eos_token_id,
                **sampling,
            )
        action = self.tokenizer.decode(output[0, ids.shape[1] :], skip_special_tokens=True)
        self.chat.record(action)
        return action

    def reset(self) -> None:
        self.chat.reset()
