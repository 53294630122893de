"""The anchor of gpu_vs_torch_ratio: PyTorch's GPT-2 forward with its next-token loss, float32
(PyTorch's default: TF32 off for matrix products), on the same shape and batch as seedswarm's
WebGPU pass. Random weights (the speed does not depend on them). Prints one JSON line.
Usage: python3 torch-lm-forward.py SEQUENCES LENGTH VOCAB REPS"""
import json
import sys
import time

import torch
from transformers import GPT2Config, GPT2LMHeadModel

seqs, length, vocab, reps = (int(a) for a in sys.argv[1:5])
if not torch.cuda.is_available():
    print(json.dumps({"error": "no CUDA device"}))
    sys.exit(0)
cfg = GPT2Config(vocab_size=vocab, n_positions=1024, n_embd=768, n_layer=12, n_head=12)
model = GPT2LMHeadModel(cfg).cuda().eval()
ids = torch.randint(0, vocab, (seqs, length), device="cuda")
with torch.no_grad():
    for _ in range(3):
        model(ids, labels=ids).loss.item()
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(reps):
        model(ids, labels=ids).loss.item()
    ms = (time.perf_counter() - t) / reps * 1000
print(json.dumps({
    "ms": ms,
    "tokens_per_s": seqs * length * 1000 / ms,
    "device": torch.cuda.get_device_name(),
    "torch": torch.__version__,
    "tf32": bool(torch.backends.cuda.matmul.allow_tf32),
    "attention": model.config._attn_implementation,
}))
