#!/usr/bin/env python3
"""The PyTorch CPU reference of `npm run bench -- --only lm-cpu` (issue 42).

A plain GPT-2 forward written here in torch (no transformers: it is not on this machine), in the
shape the bench times (GPT-2 small unless told: 12 layers, 768 wide, 12 heads, 50,257 tokens,
1,024 positions; random weights), at batch x length tokens, the mean next-token loss; and MeZO's
step per perturbation (princeton-nlp/MeZO's zo_step: perturb +eps z, forward, perturb -2 eps z,
forward, perturb +eps z back, then the update from the same seed: 4 in-place full-rank passes over
the weights and 2 forwards). Prints one JSON line. Installs nothing: exits 3 when torch is missing.

usage: torch-lm-cpu.py THREADS [REPS] [BATCH] [LENGTH]
"""
import json
import math
import sys
import time

try:
    import torch
    import torch.nn.functional as F
except ImportError as err:  # the bench reports "no PyTorch" and goes on
    print(json.dumps({"error": f"no torch: {err}"}))
    sys.exit(3)

threads = int(sys.argv[1]) if len(sys.argv) > 1 else 1
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
batch = int(sys.argv[3]) if len(sys.argv) > 3 else 16
length = int(sys.argv[4]) if len(sys.argv) > 4 else 64
torch.set_num_threads(threads)
torch.set_grad_enabled(False)
torch.manual_seed(0)

L, D, H, V, P = 12, 768, 12, 50257, 1024
std = 0.02


def rand(*shape):
    return torch.randn(*shape) * std


params = {"wte": rand(V, D), "wpe": rand(P, D), "lnf_w": torch.ones(D), "lnf_b": torch.zeros(D)}
for i in range(L):
    params.update({
        f"{i}.ln1_w": torch.ones(D), f"{i}.ln1_b": torch.zeros(D),
        f"{i}.attn_w": rand(D, 3 * D), f"{i}.attn_b": torch.zeros(3 * D),
        f"{i}.proj_w": rand(D, D), f"{i}.proj_b": torch.zeros(D),
        f"{i}.ln2_w": torch.ones(D), f"{i}.ln2_b": torch.zeros(D),
        f"{i}.fc_w": rand(D, 4 * D), f"{i}.fc_b": torch.zeros(4 * D),
        f"{i}.out_w": rand(4 * D, D), f"{i}.out_b": torch.zeros(D),
    })
n_params = sum(p.numel() for p in params.values())
ids = torch.randint(0, V, (batch, length))
mask = torch.full((length, length), float("-inf")).triu(1)


def forward(p):
    x = p["wte"][ids] + p["wpe"][:length]
    hd = D // H
    for i in range(L):
        h = F.layer_norm(x, (D,), p[f"{i}.ln1_w"], p[f"{i}.ln1_b"], 1e-5)
        q, k, v = (h @ p[f"{i}.attn_w"] + p[f"{i}.attn_b"]).split(D, dim=2)
        q, k, v = (t.view(batch, length, H, hd).transpose(1, 2) for t in (q, k, v))
        a = torch.softmax(q @ k.transpose(2, 3) / math.sqrt(hd) + mask, dim=-1) @ v
        x = x + a.transpose(1, 2).reshape(batch, length, D) @ p[f"{i}.proj_w"] + p[f"{i}.proj_b"]
        h = F.layer_norm(x, (D,), p[f"{i}.ln2_w"], p[f"{i}.ln2_b"], 1e-5)
        x = x + F.gelu(h @ p[f"{i}.fc_w"] + p[f"{i}.fc_b"], approximate="tanh") @ p[f"{i}.out_w"] + p[f"{i}.out_b"]
    x = F.layer_norm(x, (D,), p["lnf_w"], p["lnf_b"], 1e-5)
    logits = x[:, :-1] @ p["wte"].T
    return F.cross_entropy(logits.reshape(-1, V), ids[:, 1:].reshape(-1)).item()


def perturb(scale, seed):
    # MeZO's zo_perturb_parameters: the same seed regenerates z for every pass.
    torch.manual_seed(seed)
    for t in params.values():
        t.add_(torch.normal(0, 1, size=t.shape), alpha=scale)


def median(xs):
    s = sorted(xs)
    return s[len(s) // 2] if len(s) % 2 else (s[len(s) // 2 - 1] + s[len(s) // 2]) / 2


def blas():
    # Which BLAS the process loaded: Debian's torch goes through libblas.so.3, whichever provides it.
    with open("/proc/self/maps") as f:
        maps = f.read()
    for name in ("openblas", "mkl", "blis", "libblas"):
        if name in maps:
            return name
    return "unknown"


loss = forward(params)
forwards = []
for _ in range(reps):
    t = time.perf_counter()
    forward(params)
    forwards.append(time.perf_counter() - t)
eps, lr = 1e-3, 1e-6
steps = []
for r in range(max(2, reps // 2)):
    t = time.perf_counter()
    seed = 1000 + r
    perturb(eps, seed)
    lp = forward(params)
    perturb(-2 * eps, seed)
    lm = forward(params)
    perturb(eps, seed)
    perturb(-lr * (lp - lm) / (2 * eps), seed)
    steps.append(time.perf_counter() - t)
t = time.perf_counter()
perturb(eps, 1)
perturb_s = time.perf_counter() - t
print(json.dumps({
    "torch": torch.__version__, "blas": blas(), "threads": threads, "params": n_params,
    "batch": batch, "length": length, "loss": loss,
    "forward_ms": 1000 * median(forwards), "tokens_per_s": batch * length / median(forwards),
    "mezo_step_ms": 1000 * median(steps), "perturb_ms": 1000 * perturb_s,
}))
