#!/usr/bin/python3
"""Exports a Llama-style decoder (written in plain torch) to ONNX.

The model has what exported Llama-family decoders have: grouped-query
attention (n_kv_heads < n_heads), RMSNorm written out as pow/mean/rsqrt, a
SwiGLU MLP, rotary position embeddings computed from position_ids, past
key/value cache inputs and present outputs. Symbolic dims (dynamic_axes):
batch, sequence, past_sequence (and total_sequence for the optional
attention_mask). Weights are random; shapes, FLOPs and bytes do not depend on
them. Uses Debian's python3-torch; no transformers package needed.

  /usr/bin/python3 tools/export_llama.py OUT.onnx                 # tiny model
  /usr/bin/python3 tools/export_llama.py OUT.onnx --config llama3.1-8b \\
      --layers 2          # full width of Llama-3.1-8B, 2 layers; weights go
                          # to external data next to OUT.onnx (> 2 GB)

Import with the dims bound, e.g.
  analyze OUT.onnx --dim batch=1 --dim sequence=16 --dim past_sequence=32
"""
import argparse
import math
import os
import sys

import torch
from torch import nn

# Llama-3.1-8B (meta-llama/Llama-3.1-8B config.json): hidden_size 4096,
# intermediate_size 14336, num_attention_heads 32, num_key_value_heads 8,
# vocab_size 128256, num_hidden_layers 32, rms_norm_eps 1e-5,
# rope_theta 500000.
CONFIGS = {
    "tiny": dict(layers=2, hidden=64, heads=4, kv_heads=2, ffn=176,
                 vocab=256, rope_theta=10000.0, eps=1e-5),
    "llama3.1-8b": dict(layers=32, hidden=4096, heads=32, kv_heads=8,
                        ffn=14336, vocab=128256, rope_theta=500000.0,
                        eps=1e-5),
}


class RMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        # Written out so the export shows Pow, ReduceMean, Add, Sqrt/Div.
        variance = x.pow(2).mean(-1, keepdim=True)
        return self.weight * (x * torch.rsqrt(variance + self.eps))


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class Rotary(nn.Module):
    def __init__(self, head_dim, theta):
        super().__init__()
        inv_freq = 1.0 / (theta ** (torch.arange(0, head_dim, 2).float()
                                    / head_dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    def forward(self, position_ids):
        # [B, S, 1] * [1, 1, D/2] -> [B, S, D/2] -> [B, 1, S, D]
        freqs = position_ids[:, :, None].float() * self.inv_freq[None, None]
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos()[:, None], emb.sin()[:, None]


class Attention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.heads = cfg["heads"]
        self.kv_heads = cfg["kv_heads"]
        self.head_dim = cfg["hidden"] // cfg["heads"]
        hidden = cfg["hidden"]
        self.q_proj = nn.Linear(hidden, self.heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(hidden, self.kv_heads * self.head_dim,
                                bias=False)
        self.v_proj = nn.Linear(hidden, self.kv_heads * self.head_dim,
                                bias=False)
        self.o_proj = nn.Linear(self.heads * self.head_dim, hidden, bias=False)

    def forward(self, x, cos, sin, past_k, past_v, mask):
        b, s, _ = x.shape
        q = self.q_proj(x).view(b, s, self.heads, self.head_dim)
        k = self.k_proj(x).view(b, s, self.kv_heads, self.head_dim)
        v = self.v_proj(x).view(b, s, self.kv_heads, self.head_dim)
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k = torch.cat((past_k, k), dim=2)
        v = torch.cat((past_v, v), dim=2)
        present = (k, v)
        # Grouped-query attention: each KV head serves heads/kv_heads queries.
        rep = self.heads // self.kv_heads
        t = k.shape[2]
        k = k[:, :, None].expand(b, self.kv_heads, rep, t, self.head_dim)
        k = k.reshape(b, self.heads, t, self.head_dim)
        v = v[:, :, None].expand(b, self.kv_heads, rep, t, self.head_dim)
        v = v.reshape(b, self.heads, t, self.head_dim)
        scores = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(self.head_dim)
        scores = scores + mask
        probs = torch.softmax(scores.float(), dim=-1).to(q.dtype)
        out = torch.matmul(probs, v).transpose(1, 2).reshape(b, s, -1)
        return self.o_proj(out), present


class MLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.gate_proj = nn.Linear(cfg["hidden"], cfg["ffn"], bias=False)
        self.up_proj = nn.Linear(cfg["hidden"], cfg["ffn"], bias=False)
        self.down_proj = nn.Linear(cfg["ffn"], cfg["hidden"], bias=False)

    def forward(self, x):
        return self.down_proj(nn.functional.silu(self.gate_proj(x))
                              * self.up_proj(x))


class Layer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.input_layernorm = RMSNorm(cfg["hidden"], cfg["eps"])
        self.self_attn = Attention(cfg)
        self.post_attention_layernorm = RMSNorm(cfg["hidden"], cfg["eps"])
        self.mlp = MLP(cfg)

    def forward(self, x, cos, sin, past_k, past_v, mask):
        h, present = self.self_attn(self.input_layernorm(x), cos, sin,
                                    past_k, past_v, mask)
        x = x + h
        x = x + self.mlp(self.post_attention_layernorm(x))
        return x, present


class Decoder(nn.Module):
    def __init__(self, cfg, use_attention_mask):
        super().__init__()
        self.cfg = cfg
        self.use_attention_mask = use_attention_mask
        self.embed_tokens = nn.Embedding(cfg["vocab"], cfg["hidden"])
        self.layers = nn.ModuleList(Layer(cfg) for _ in range(cfg["layers"]))
        self.norm = RMSNorm(cfg["hidden"], cfg["eps"])
        self.lm_head = nn.Linear(cfg["hidden"], cfg["vocab"], bias=False)
        self.rotary = Rotary(cfg["hidden"] // cfg["heads"], cfg["rope_theta"])

    def forward(self, input_ids, position_ids, *rest):
        if self.use_attention_mask:
            attention_mask, past = rest[0], rest[1:]
        else:
            attention_mask, past = None, rest
        x = self.embed_tokens(input_ids)
        cos, sin = self.rotary(position_ids)
        s = input_ids.shape[1]
        p = past[0].shape[2]
        # Causal mask over past + new positions: query i sees keys <= p + i.
        rows = torch.arange(s)[:, None] + p
        cols = torch.arange(p + s)[None, :]
        mask = torch.where(cols <= rows, torch.tensor(0.0),
                           torch.tensor(torch.finfo(torch.float32).min))
        mask = mask[None, None]
        if attention_mask is not None:
            pad = (1.0 - attention_mask[:, None, None, :].float()) * \
                torch.finfo(torch.float32).min
            mask = mask + pad
        presents = []
        for i, layer in enumerate(self.layers):
            x, present = layer(x, cos, sin, past[2 * i], past[2 * i + 1], mask)
            presents.extend(present)
        logits = self.lm_head(self.norm(x))
        return (logits, *presents)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--config", choices=sorted(CONFIGS), default="tiny")
    parser.add_argument("--layers", type=int)
    parser.add_argument("--hidden", type=int)
    parser.add_argument("--heads", type=int)
    parser.add_argument("--kv-heads", type=int)
    parser.add_argument("--ffn", type=int)
    parser.add_argument("--vocab", type=int)
    parser.add_argument("--opset", type=int, default=14)
    parser.add_argument("--attention-mask", action="store_true",
                        help="add an attention_mask input [batch, "
                             "total_sequence]")
    args = parser.parse_args()
    cfg = dict(CONFIGS[args.config])
    for key in ["layers", "hidden", "heads", "kv_heads", "ffn", "vocab"]:
        if getattr(args, key) is not None:
            cfg[key] = getattr(args, key)
    if cfg["hidden"] % cfg["heads"] or cfg["heads"] % cfg["kv_heads"]:
        sys.exit("hidden must divide by heads, heads by kv_heads")
    torch.manual_seed(0)
    model = Decoder(cfg, args.attention_mask).eval()
    head_dim = cfg["hidden"] // cfg["heads"]
    b, s, p = 1, 3, 2  # trace sizes; all three are exported as symbolic
    inputs = [torch.zeros(b, s, dtype=torch.int64),
              torch.arange(p, p + s, dtype=torch.int64)[None]]
    names = ["input_ids", "position_ids"]
    axes = {"input_ids": {0: "batch", 1: "sequence"},
            "position_ids": {0: "batch", 1: "sequence"},
            "logits": {0: "batch", 1: "sequence"}}
    if args.attention_mask:
        inputs.append(torch.ones(b, p + s, dtype=torch.int64))
        names.append("attention_mask")
        axes["attention_mask"] = {0: "batch", 1: "total_sequence"}
    outputs = ["logits"]
    for i in range(cfg["layers"]):
        for kind in ["key", "value"]:
            inputs.append(torch.zeros(b, cfg["kv_heads"], p, head_dim))
            name = f"past_key_values.{i}.{kind}"
            names.append(name)
            axes[name] = {0: "batch", 2: "past_sequence"}
            present = f"present.{i}.{kind}"
            outputs.append(present)
            axes[present] = {0: "batch", 2: "total_sequence"}
    out_dir = os.path.dirname(os.path.abspath(args.out))
    os.makedirs(out_dir, exist_ok=True)
    with torch.no_grad():
        torch.onnx.export(model, tuple(inputs), args.out,
                          opset_version=args.opset, input_names=names,
                          output_names=outputs, dynamic_axes=axes,
                          do_constant_folding=True)
    params = sum(t.numel() for t in model.parameters())
    print(f"wrote {args.out}: {cfg['layers']} layers, hidden {cfg['hidden']},"
          f" heads {cfg['heads']}/{cfg['kv_heads']} (q/kv), ffn {cfg['ffn']},"
          f" vocab {cfg['vocab']}, {params} parameters")
    return 0


if __name__ == "__main__":
    sys.exit(main())
