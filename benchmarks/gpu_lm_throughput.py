"""Generation and PPO-update throughput of causal LMs built from a config, GPU against CPU.

    python benchmarks/gpu_lm_throughput.py --out lm_throughput.json            # GPU and CPU
    python benchmarks/gpu_lm_throughput.py --devices cpu --out cpu.json        # CPU only

Self-contained (torch and transformers only, nothing of swarm-envs, nothing downloaded):
it is what a GPU machine with torch, transformers, peft and accelerate runs as it is. Two
model sizes are built from a config with random weights, in the shapes of the SmolLM2
family: `135m` (the model of docs/real-model.md) and `1.7b`. For each size and device:

- generation: tokens per second of `model.generate` (plain sampling at temperature 1, as
  the trainer samples), one prompt and a batch of prompts, bf16 on the GPU (fp32 on CPU);
- the PPO update: generated tokens per second of the trainer's update (a forward pass
  over prompt + reply with logits only at reply tokens, token log-probabilities, the
  two-sided clipped loss, backward, AdamW step) on a batch of turns, full weights.

Every measurement is bounded in time (`--budget-s` each; the whole run stays under
eight minutes on a GPU) and the figures go to `--out` as JSON, with the device's name,
so a rerun compares like with like. A ratio GPU/CPU is printed per figure.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from typing import Any

import torch

SIZES: dict[str, dict[str, Any]] = {
    # SmolLM2-135M's shape (docs/real-model.md) and SmolLM2-1.7B's.
    "135m": dict(
        hidden_size=576, intermediate_size=1536, num_hidden_layers=30,
        num_attention_heads=9, num_key_value_heads=3,
    ),
    "1.7b": dict(
        hidden_size=2048, intermediate_size=8192, num_hidden_layers=24,
        num_attention_heads=32, num_key_value_heads=32,
    ),
}  # fmt: skip
VOCAB = 49152
FIGURES = (
    ("generate_1", "tokens_per_s"),
    ("generate_batch", "tokens_per_s"),
    ("ppo_update", "update_tokens_per_s"),
)


def build(size: str, device: str, dtype: torch.dtype) -> Any:
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(
        vocab_size=VOCAB,
        max_position_embeddings=8192,
        tie_word_embeddings=True,
        rope_theta=100000.0,
        **SIZES[size],
    )
    with torch.device(device):
        model = LlamaForCausalLM(config)
    return model.to(dtype)


def timed(fn, budget_s: float, min_runs: int = 1) -> tuple[float, int]:
    """Mean seconds per call of `fn` over as many calls as fit in `budget_s` (after one warmup)."""
    fn()
    sync()
    runs, t0 = 0, time.perf_counter()
    while runs < min_runs or time.perf_counter() - t0 < budget_s:
        fn()
        sync()
        runs += 1
        if time.perf_counter() - t0 > budget_s:
            break
    return (time.perf_counter() - t0) / runs, runs


def sync() -> None:
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def generation(model, device: str, batch: int, prompt: int, new: int, budget_s: float):
    from transformers import GenerationConfig

    cfg = GenerationConfig(
        do_sample=True, temperature=1.0, top_k=0, top_p=1.0, max_new_tokens=new,
        min_new_tokens=new, pad_token_id=0, eos_token_id=None,
    )  # fmt: skip
    ids = torch.randint(10, VOCAB, (batch, prompt), device=device)
    mask = torch.ones_like(ids)

    def run():
        with torch.no_grad():
            model.generate(input_ids=ids, attention_mask=mask, generation_config=cfg)

    seconds, runs = timed(run, budget_s)
    return {
        "batch": batch,
        "prompt_tokens": prompt,
        "new_tokens": new,
        "tokens_per_s": batch * new / seconds,
        "seconds_per_call": seconds,
        "runs": runs,
    }


def ppo_update(model, device: str, turns: int, prompt: int, reply: int, budget_s: float, autocast):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-6)
    ids = torch.randint(10, VOCAB, (turns, prompt + reply), device=device)
    behaviour = torch.full((turns, reply), -5.0, device=device)
    adv = torch.randn(turns, reply, device=device)
    targets = ids[:, prompt:]

    parts = {"forward": 0.0, "backward": 0.0, "optimizer": 0.0}

    def run():
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        with autocast:
            out = model.model(input_ids=ids[:, :-1])
            hidden = out.last_hidden_state[:, prompt - 1 :]  # positions that predict replies
            logits = model.lm_head(hidden).float()
        logp = torch.log_softmax(logits, -1).gather(-1, targets.unsqueeze(-1)).squeeze(-1)
        ratio = (logp - behaviour).exp()
        inside = ((ratio > 0.8) & (ratio < 1.2)).float()  # SAO's strict two-sided clip
        loss = -(adv * ratio * inside).mean() - 1e-3 * logp.mean()
        sync()
        t1 = time.perf_counter()
        loss.backward()
        sync()
        t2 = time.perf_counter()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sync()
        t3 = time.perf_counter()
        parts["forward"] += t1 - t0
        parts["backward"] += t2 - t1
        parts["optimizer"] += t3 - t2

    seconds, runs = timed(run, budget_s)
    total = sum(parts.values())
    return {"turns": turns, "prompt_tokens": prompt, "reply_tokens": reply,
            "update_tokens_per_s": turns * reply / seconds, "seconds_per_update": seconds,
            "runs": runs, "share": {k: v / total for k, v in parts.items()}}  # fmt: skip


def measure(device: str, sizes: list[str], budget_s: float, quick: bool) -> dict[str, Any]:
    gpu = device.startswith("cuda")
    dtype = torch.bfloat16 if gpu else torch.float32
    out: dict[str, Any] = {}
    for size in sizes:
        t0 = time.perf_counter()
        model = build(size, device, dtype).eval()
        built = time.perf_counter() - t0
        small = quick or (not gpu)
        gen_one = generation(model, device, 1, 512, 32 if small else 128, budget_s)
        gen_batch = generation(
            model, device, 8 if small else 32, 512, 32 if small else 128, budget_s
        )
        model.train()
        # The update in fp32 weights with bf16 autocast on the GPU, as `--bf16` trains.
        if gpu:
            model = model.float()
        autocast = torch.autocast(device.split(":")[0], dtype=torch.bfloat16, enabled=gpu)
        upd = ppo_update(model, device, 2 if small else 8, 512, 64, budget_s, autocast)
        out[size] = {"build_s": built, "generate_1": gen_one, "generate_batch": gen_batch,
                     "ppo_update": upd, "dtype": "bf16" if gpu else "fp32"}  # fmt: skip
        print(json.dumps({device: {size: out[size]}}), flush=True)
        del model
        if gpu:
            torch.cuda.empty_cache()
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--devices", nargs="+", default=None, help="default: cuda (if any) and cpu")
    p.add_argument("--sizes", nargs="+", default=list(SIZES), choices=list(SIZES))
    p.add_argument("--cpu-sizes", nargs="+", default=["135m"], choices=list(SIZES),
                   help="sizes measured on the CPU (1.7b takes minutes a call there)")  # fmt: skip
    p.add_argument("--budget-s", type=float, default=15.0, help="seconds per measurement")
    p.add_argument("--threads", type=int, default=None, help="CPU threads (torch default)")
    p.add_argument("--out", default="lm_throughput.json")
    args = p.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    devices = args.devices or (["cuda", "cpu"] if torch.cuda.is_available() else ["cpu"])
    import transformers

    result: dict[str, Any] = {
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "cpu": platform.processor() or platform.machine(),
        "cpu_threads": torch.get_num_threads(),
        "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
        "budget_s": args.budget_s,
        "devices": {},
    }
    t0 = time.perf_counter()
    for device in devices:
        sizes = args.sizes if device.startswith("cuda") else args.cpu_sizes
        result["devices"][device] = measure(device, sizes, args.budget_s, quick=False)
        with open(args.out, "w") as f:  # after each device: a cut run keeps what it has
            json.dump(result, f, indent=2)
    result["wall_s"] = time.perf_counter() - t0
    with open(args.out, "w") as f:
        json.dump(result, f, indent=2)
    gpu = next((d for d in result["devices"] if d.startswith("cuda")), None)
    if gpu and "cpu" in result["devices"]:
        for size, cpu_fig in result["devices"]["cpu"].items():
            g = result["devices"][gpu].get(size)
            if g:
                for key, field in FIGURES:
                    gf, cf = g[key][field], cpu_fig[key][field]
                    ratio = gf / max(cf, 1e-9)
                    print(f"{size} {key}: GPU {gf:.1f}/s, CPU {cf:.1f}/s, x{ratio:.0f}")
    print(f"wrote {args.out} in {result['wall_s']:.0f} s")


if __name__ == "__main__":
    main()
