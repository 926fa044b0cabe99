#!/usr/bin/python3
"""Traces the zoo models with torch.onnx.export and stores weightless graphs.

Regenerates zoo/models/<name>.onnx and zoo/models/<name>.json for every zoo
entry (or the ones named), using only Debian's python3-torch,
python3-torchvision and python3-onnx:

  /usr/bin/python3 tools/trace_zoo.py                 # all entries
  /usr/bin/python3 tools/trace_zoo.py resnet50 gpt2   # some entries
  /usr/bin/python3 tools/trace_zoo.py --list
  /usr/bin/python3 tools/trace_zoo.py --check         # regenerate into a temp
                                                      # dir, compare bytes

Weightless: every weight initializer keeps its name, dims and dtype and has
no data. It is marked as external data (data_location EXTERNAL, location
"<name>.weights" with the offset and length the weights would have) in a file
that is intentionally absent, and the model carries the metadata property
ridgeline.weightless=1 so that the importer can skip the "external data file
is missing" warning. Small non-weight constants that torch folded into
initializers (shape vectors, rotary frequencies) become Constant nodes with
their values, so that every remaining initializer is a model parameter and the
graph's parameter count is exact.

Determinism: the output is a function of the code and the torch/onnx versions
only. Weights are random (fixed seeds), every tensor distinct, so that
torch.onnx's value-based initializer de-duplication never merges two weights
(with torchvision's default init, all zero BatchNorm-folded biases would be
merged into one, changing the parameter count). doc_strings and value_info
(torch's trace-time shape annotations) are dropped, and protobuf is serialized
deterministically. `--check` verifies byte-for-byte reproduction.

Llama-3.1-8B does not fit this machine's memory at fp32 (32 GB of weights),
so it is traced at full width with 2 decoder layers and export_params=False
(weights are graph inputs, never copied), then repeated to 32 layers by graph
surgery: layer 1's nodes and weights are cloned with renamed tensors and
rewired. The script checks that cloning layer 0 reproduces the traced layer 1
exactly (same ops, attributes and wiring after renaming) before it repeats,
checks the result with onnx's strict shape inference, and asserts the exact
parameter count 8,030,261,248. Llama-2-7B (27 GB at fp32) takes the same path
with its own config (multi-head attention, no rotary scaling) and asserts
6,738,415,616.
"""
import argparse
import collections
import contextlib
import copy
import hashlib
import json
import math
import os
import re
import shutil
import sys
import tempfile
import time
import warnings

import numpy as np
import onnx
from onnx import helper, numpy_helper
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

OPSET = 17
WEIGHTLESS_KEY = "ridgeline.weightless"
ENTRY_KEY = "ridgeline.zoo.entry"
ZOO_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "zoo",
                       "models")


# --------------------------------------------------------------------------
# Models written in plain torch (no transformers package).
# --------------------------------------------------------------------------
class Linear(nn.Module):
  """y = x @ W (+ b) with W stored as [in, out].

  Stored input-major so that torch.onnx exports MatMul(x, W) reading the
  parameter itself (nn.Linear's [out, in] weight is exported as a folded,
  transposed copy with a generated name). MACs and bytes are identical.
  """

  def __init__(self, n_in, n_out, bias=True):
    super().__init__()
    self.weight = nn.Parameter(torch.empty(n_in, n_out))
    self.bias = nn.Parameter(torch.empty(n_out)) if bias else None

  def forward(self, x):
    y = (LazyMatMul.apply(x, self.weight) if LAZY_MATMUL else
         torch.matmul(x, self.weight))
    return y if self.bias is None else y + self.bias


# The 70B and 405B traces: a weight MatMul whose forward only makes a zero
# output of the right shape (the weights are stride-0 views; torch.matmul
# would copy each into a dense temporary) and exports as the same ONNX
# MatMul node.
LAZY_MATMUL = False


class LazyMatMul(torch.autograd.Function):
  @staticmethod
  def forward(ctx, x, w):
    return x.new_zeros(x.shape[:-1] + (w.shape[-1],))

  @staticmethod
  def symbolic(g, x, w):
    return g.op("MatMul", x, w)


@contextlib.contextmanager
def no_weight_clones():
  """torch.onnx's tracer clones every parameter (to return the inputs it
  was traced with, which the export does not use); a clone of a stride-0
  view is dense: 42 GB for two 405B layers. Inside this block a clone of a
  stride-0 tensor returns the tensor itself."""
  clone = torch.Tensor.clone

  def lazy_clone(t, *args, **kwargs):
    if t.dim() > 0 and 0 in t.stride():
      return t
    return clone(t, *args, **kwargs)

  torch.Tensor.clone = lazy_clone
  try:
    yield
  finally:
    torch.Tensor.clone = clone


class Embedding(nn.Module):
  def __init__(self, n, dim):
    super().__init__()
    self.weight = nn.Parameter(torch.empty(n, dim))

  def forward(self, ids):
    return self.weight[ids]  # Gather


# ---- BERT-base (Devlin et al. 2018; HF BertModel layout) ----
class BertConfig:
  vocab = 30522
  hidden = 768
  layers = 12
  heads = 12
  ffn = 3072
  max_positions = 512
  type_vocab = 2
  ln_eps = 1e-12


class BertSelfAttention(nn.Module):
  def __init__(self, c):
    super().__init__()
    self.heads, self.head_dim = c.heads, c.hidden // c.heads
    self.query = Linear(c.hidden, c.hidden)
    self.key = Linear(c.hidden, c.hidden)
    self.value = Linear(c.hidden, c.hidden)

  def split(self, x):
    b, s = x.shape[0], x.shape[1]
    return x.view(b, s, self.heads, self.head_dim).transpose(1, 2)

  def forward(self, h, mask_add):
    b, s = h.shape[0], h.shape[1]
    q = self.split(self.query(h))
    k = self.split(self.key(h))
    v = self.split(self.value(h))
    scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim)
    probs = torch.softmax(scores + mask_add, dim=-1)
    ctx = torch.matmul(probs, v).transpose(1, 2)
    return ctx.reshape(b, s, self.heads * self.head_dim)


class BertLayer(nn.Module):
  def __init__(self, c):
    super().__init__()
    self.attention = BertSelfAttention(c)
    self.attention_output = Linear(c.hidden, c.hidden)
    self.attention_norm = nn.LayerNorm(c.hidden, eps=c.ln_eps)
    self.intermediate = Linear(c.hidden, c.ffn)
    self.output = Linear(c.ffn, c.hidden)
    self.output_norm = nn.LayerNorm(c.hidden, eps=c.ln_eps)

  def forward(self, h, mask_add):
    a = self.attention_output(self.attention(h, mask_add))
    h = self.attention_norm(h + a)
    f = self.output(F.gelu(self.intermediate(h)))  # GELU(erf)
    return self.output_norm(h + f)


class Bert(nn.Module):
  def __init__(self, c=BertConfig):
    super().__init__()
    self.word_embeddings = Embedding(c.vocab, c.hidden)
    self.position_embeddings = Embedding(c.max_positions, c.hidden)
    self.token_type_embeddings = Embedding(c.type_vocab, c.hidden)
    self.embeddings_norm = nn.LayerNorm(c.hidden, eps=c.ln_eps)
    self.layers = nn.ModuleList([BertLayer(c) for _ in range(c.layers)])
    self.pooler = Linear(c.hidden, c.hidden)

  def forward(self, input_ids, attention_mask, token_type_ids):
    s = input_ids.shape[1]
    positions = torch.arange(s, dtype=torch.long)
    h = (self.word_embeddings(input_ids) +
         self.position_embeddings(positions)[None] +
         self.token_type_embeddings(token_type_ids))
    h = self.embeddings_norm(h)
    mask_add = (1.0 - attention_mask[:, None, None, :].to(h.dtype)) * -10000.0
    for layer in self.layers:
      h = layer(h, mask_add)
    pooled = torch.tanh(self.pooler(h[:, 0]))
    return h, pooled


# ---- GPT-2 small, 124M (Radford et al. 2019; HF GPT2LMHeadModel layout) ----
class Gpt2Config:
  vocab = 50257
  hidden = 768
  layers = 12
  heads = 12
  ffn = 3072
  context = 1024
  ln_eps = 1e-5


def causal_mask(q_len, k_len, past_len, dtype):
  """Additive mask [q_len, k_len]: -inf where key position > query position."""
  q_pos = torch.arange(q_len, dtype=torch.long) + past_len
  k_pos = torch.arange(k_len, dtype=torch.long)
  future = k_pos[None, :] > q_pos[:, None]
  zero = torch.zeros((), dtype=dtype)
  return torch.where(future, torch.tensor(float("-inf"), dtype=dtype), zero)


class Gpt2Block(nn.Module):
  def __init__(self, c):
    super().__init__()
    self.heads, self.head_dim = c.heads, c.hidden // c.heads
    self.ln_1 = nn.LayerNorm(c.hidden, eps=c.ln_eps)
    self.c_attn = Linear(c.hidden, 3 * c.hidden)
    self.attn_proj = Linear(c.hidden, c.hidden)
    self.ln_2 = nn.LayerNorm(c.hidden, eps=c.ln_eps)
    self.c_fc = Linear(c.hidden, c.ffn)
    self.mlp_proj = Linear(c.ffn, c.hidden)

  def forward(self, h, mask):
    b, s = h.shape[0], h.shape[1]
    qkv = self.c_attn(self.ln_1(h))
    q, k, v = qkv.split(self.heads * self.head_dim, dim=2)
    q, k, v = [t.view(b, s, self.heads, self.head_dim).transpose(1, 2)
               for t in (q, k, v)]
    scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim)
    probs = torch.softmax(scores + mask, dim=-1)
    ctx = torch.matmul(probs, v).transpose(1, 2).reshape(b, s, -1)
    h = h + self.attn_proj(ctx)
    f = self.mlp_proj(F.gelu(self.c_fc(self.ln_2(h)), approximate="tanh"))
    return h + f


class Gpt2(nn.Module):
  def __init__(self, c=Gpt2Config):
    super().__init__()
    self.c = c
    self.wte = Embedding(c.vocab, c.hidden)
    self.wpe = Embedding(c.context, c.hidden)
    self.layers = nn.ModuleList([Gpt2Block(c) for _ in range(c.layers)])
    self.ln_f = nn.LayerNorm(c.hidden, eps=c.ln_eps)

  def forward(self, input_ids):
    b, s = input_ids.shape[0], input_ids.shape[1]
    h = self.wte(input_ids) + self.wpe(torch.arange(s, dtype=torch.long))[None]
    mask = causal_mask(s, s, 0, h.dtype)
    for layer in self.layers:
      h = layer(h, mask)
    h = self.ln_f(h)
    # Tied LM head: torch.mm exports as Gemm(transB=1) reading wte itself, so
    # the tied matrix is stored once (one initializer, two consumers).
    logits = torch.mm(h.reshape(b * s, self.c.hidden), self.wte.weight.t())
    return logits.reshape(b, s, self.c.vocab)


# ---- Llama-3.1-8B (Meta, July 2024; HF LlamaForCausalLM layout) ----
class LlamaConfig:
  checkpoint = "meta-llama/Llama-3.1-8B"
  label = "Llama-3.1-8B"
  vocab = 128256
  hidden = 4096
  layers = 32
  heads = 32
  kv_heads = 8
  head_dim = 128
  ffn = 14336
  rms_eps = 1e-5
  rope_theta = 500000.0
  # rope_scaling {"rope_type": "llama3", ...} of Llama 3.1: changes only the
  # values of inv_freq, never the graph.
  rope_scaling = "llama3"
  rope_factor = 8.0
  rope_low_freq_factor = 1.0
  rope_high_freq_factor = 4.0
  rope_original_context = 8192
  # embedding 128256*4096 = 525,336,576; per layer q,o 2*4096^2 + k,v
  # 2*4096*1024 + gate/up/down 3*4096*14336 + 2 norms 2*4096 = 218,112,000;
  # 32 layers 6,979,584,000; final norm 4,096; LM head 525,336,576.
  params = 8030261248
  native_precision = "bf16"  # config.json torch_dtype bfloat16
  reference = {
      "params": params,
      "source": ("meta-llama/Llama-3.1-8B config.json; 8,030,261,248 "
                 "counted from the config (embedding 525,336,576 + 32 x "
                 "218,112,000 + norm 4,096 + LM head 525,336,576)"),
      "mlsysim_params": 8.03e9,
      "mlsysim_inference_flops_per_token": 16.06e9,
  }


# ---- Llama-2-7B (Meta, July 2023; HF LlamaForCausalLM layout) ----
class Llama2Config:
  checkpoint = "meta-llama/Llama-2-7b-hf"
  label = "Llama-2-7B"
  vocab = 32000
  hidden = 4096
  layers = 32
  heads = 32
  kv_heads = 32  # multi-head attention: no grouped-query attention
  head_dim = 128
  ffn = 11008
  rms_eps = 1e-5
  rope_theta = 10000.0
  rope_scaling = None  # plain rotary inverse frequencies, no llama3 scaling
  # embedding 32000*4096 = 131,072,000; per layer q,k,v,o 4*4096*4096 =
  # 67,108,864 + gate/up/down 3*4096*11008 = 135,266,304 + 2 norms 2*4096 =
  # 8,192, together 202,383,360; 32 layers 6,476,267,520; final norm 4,096;
  # LM head (untied) 32000*4096 = 131,072,000. Total 131,072,000 +
  # 6,476,267,520 + 4,096 + 131,072,000 = 6,738,415,616.
  params = 6738415616
  native_precision = "fp16"  # config.json torch_dtype float16
  reference = {
      "params": params,
      "source": ("meta-llama/Llama-2-7b-hf config.json; 6,738,415,616 "
                 "counted from the config (embedding 131,072,000 + 32 x "
                 "202,383,360 + norm 4,096 + LM head 131,072,000)"),
      # mlsysim 0.1.x has no Llama-2-7B; its dev YAML registry (language.yaml
      # @087dd538) lists Llama2_7B with these figures. No published results.
      "mlsysim_params": 7e9,
      "mlsysim_inference_flops_per_token": 14e9,
      "mlsysim_source": ("mlsysim dev YAML registry Llama2_7B "
                         "(language.yaml @087dd538); not in the 0.1.x "
                         "registry"),
  }


# ---- Llama-3.1-70B and -405B (Meta, July 2024): the 8B's architecture at
# the widths of their config.json files; rotary and norms as the 8B. ----
class Llama70Config(LlamaConfig):
  checkpoint = "meta-llama/Llama-3.1-70B"
  label = "Llama-3.1-70B"
  lazy_matmul = True  # see LazyMatMul
  hidden = 8192
  layers = 80
  heads = 64
  kv_heads = 8
  head_dim = 128
  ffn = 28672
  # embedding 128256*8192 = 1,050,673,152; per layer q,o 2*8192^2 =
  # 134,217,728 + k,v 2*8192*1024 = 16,777,216 + gate/up/down 3*8192*28672 =
  # 704,643,072 + 2 norms 16,384, together 855,654,400; 80 layers
  # 68,452,352,000; final norm 8,192; LM head 1,050,673,152. Total
  # 70,553,706,496.
  params = 70553706496
  reference = {
      "params": params,
      "source": ("meta-llama/Llama-3.1-70B config.json (80 layers, hidden "
                 "8192, 64 heads, 8 KV heads, FFN 28672, vocab 128256); "
                 "70,553,706,496 counted from the config (embedding "
                 "1,050,673,152 + 80 x 855,654,400 + norm 8,192 + LM head "
                 "1,050,673,152)"),
      # mlsysim 0.1.x Language.Llama3_70B (shared/reference/mlsysim.md 2.1).
      "mlsysim_params": 70.6e9,
      "mlsysim_inference_flops_per_token": 141.2e9,
  }


class Llama2_70Config(Llama70Config):
  checkpoint = "meta-llama/Llama-2-70b-hf"
  """Llama-2-70B (Meta, July 2023): the 70B widths with Llama 2's vocabulary
  and plain rotary frequencies."""
  label = "Llama-2-70B"
  vocab = 32000
  rope_theta = 10000.0
  rope_scaling = None  # plain rotary inverse frequencies, no llama3 scaling
  # embedding 32000*8192 = 262,144,000; per layer 855,654,400 (as the
  # Llama-3.1-70B above); 80 layers 68,452,352,000; final norm 8,192; LM
  # head (untied) 262,144,000. Total 68,976,648,192.
  params = 68976648192
  native_precision = "fp16"  # config.json torch_dtype float16
  reference = {
      "params": params,
      "source": ("meta-llama/Llama-2-70b-hf config.json (80 layers, hidden "
                 "8192, 64 heads, 8 KV heads, FFN 28672, vocab 32000); "
                 "68,976,648,192 counted from the config (embedding "
                 "262,144,000 + 80 x 855,654,400 + norm 8,192 + LM head "
                 "262,144,000)"),
      # mlsysim 0.1.x Language.Llama2_70B (shared/reference/mlsysim.md 2.1).
      "mlsysim_params": 70e9,
      "mlsysim_inference_flops_per_token": 140e9,
  }


class Llama405Config(LlamaConfig):
  checkpoint = "meta-llama/Llama-3.1-405B"
  label = "Llama-3.1-405B"
  lazy_matmul = True
  hidden = 16384
  layers = 126
  heads = 128
  kv_heads = 8
  head_dim = 128
  ffn = 53248
  # embedding 128256*16384 = 2,101,346,304; per layer q,o 2*16384^2 =
  # 536,870,912 + k,v 2*16384*1024 = 33,554,432 + gate/up/down
  # 3*16384*53248 = 2,617,245,696 + 2 norms 32,768, together 3,187,703,808;
  # 126 layers 401,650,679,808; final norm 16,384; LM head 2,101,346,304.
  # Total 405,853,388,800.
  params = 405853388800
  reference = {
      "params": params,
      "source": ("meta-llama/Llama-3.1-405B config.json (126 layers, hidden "
                 "16384, 128 heads, 8 KV heads, FFN 53248, vocab 128256); "
                 "405,853,388,800 counted from the config (embedding "
                 "2,101,346,304 + 126 x 3,187,703,808 + norm 16,384 + LM "
                 "head 2,101,346,304)"),
      "mlsysim_params": 405e9,
      "mlsysim_inference_flops_per_token": 8.1e11,
      "mlsysim_source": ("mlsysim dev YAML registry Llama3_405B "
                         "(language.yaml @087dd538); not in the 0.1.x "
                         "registry"),
  }


# ---- Mixtral-8x7B (Mistral AI, Dec 2023; HF MixtralForCausalLM layout):
# Llama-2-style attention with grouped-query heads, and in place of the MLP a
# sparse mixture of 8 SwiGLU experts, top-2 per token. ----
class MixtralConfig(LlamaConfig):
  checkpoint = "mistralai/Mixtral-8x7B-v0.1"
  label = "Mixtral-8x7B"
  hf_class = "MixtralForCausalLM"
  lazy_matmul = True  # see LazyMatMul: 2 layers of experts are 11 GB at fp32
  vocab = 32000
  hidden = 4096
  layers = 32
  heads = 32
  kv_heads = 8
  head_dim = 128
  ffn = 14336
  experts = 8
  experts_per_token = 2
  rms_eps = 1e-5
  rope_theta = 1000000.0
  rope_scaling = None
  # embedding 32000*4096 = 131,072,000; per layer q,o 2*4096^2 = 33,554,432
  # + k,v 2*4096*1024 = 8,388,608 + router 4096*8 = 32,768 + experts
  # 8*3*4096*14336 = 1,409,286,144 + 2 norms 8,192, together 1,451,270,144;
  # 32 layers 46,440,644,608; final norm 4,096; LM head 131,072,000. Total
  # 46,702,792,704. Active per token (2 of 8 experts): 6 experts of
  # 176,160,768 fewer per layer, 46,702,792,704 - 32*6*176,160,768 =
  # 12,879,925,248.
  params = 46702792704
  active_params = 12879925248
  native_precision = "bf16"  # config.json torch_dtype bfloat16
  reference = {
      "params": params,
      "active_params": active_params,
      "source": ("mistralai/Mixtral-8x7B-v0.1 config.json (32 layers, hidden "
                 "4096, 32 heads, 8 KV heads, FFN 14336, 8 local experts, 2 "
                 "experts per token, vocab 32000, rope theta 1e6); "
                 "46,702,792,704 counted from the config (embedding "
                 "131,072,000 + 32 x 1,451,270,144 + norm 4,096 + LM head "
                 "131,072,000); Mistral AI's announcement (mistral.ai/news/"
                 "mixtral-of-experts, Dec 2023): 46.7B total, 12.9B used per "
                 "token"),
  }


class MoEPlaceholder(torch.autograd.Function):
  """The experts of one MoE layer, exported as one node that trace_mixtral
  rewrites into onnxruntime's com.microsoft MoE op (its optional bias inputs
  are empty, which a torch symbolic cannot write). Forward only shapes."""

  @staticmethod
  def forward(ctx, x, logits, w1, w2, w3):
    return x.new_zeros(x.shape)

  @staticmethod
  def symbolic(g, x, logits, w1, w2, w3):
    return g.op("ridgeline.trace::MoEPlaceholder", x, logits, w1, w2, w3)


class MixtralMoe(nn.Module):
  """Router (a MatMul to 8 logits per token) and the experts as onnxruntime's
  MoE op: input [tokens, hidden], router logits [tokens, 8], fc1 (gate)
  [8, hidden, ffn], fc2 (down) [8, ffn, hidden], fc3 (up) [8, hidden, ffn];
  k=2, softmax over the top-2 logits (normalize_routing_weights=1), SiLU."""

  def __init__(self, c):
    super().__init__()
    self.c = c
    self.gate = Linear(c.hidden, c.experts, bias=False)
    self.w1 = nn.Parameter(torch.empty(c.experts, c.hidden, c.ffn))
    self.w2 = nn.Parameter(torch.empty(c.experts, c.ffn, c.hidden))
    self.w3 = nn.Parameter(torch.empty(c.experts, c.hidden, c.ffn))

  def forward(self, x):
    b, s = x.shape[0], x.shape[1]
    flat = x.reshape(b * s, self.c.hidden)
    logits = self.gate(flat)
    y = MoEPlaceholder.apply(flat, logits, self.w1, self.w2, self.w3)
    return y.reshape(b, s, self.c.hidden)


def llama3_inv_freq(c):
  """Rotary inverse frequencies with Llama 3.1's "llama3" scaling (float64)."""
  inv = 1.0 / (c.rope_theta ** (np.arange(0, c.head_dim, 2) / c.head_dim))
  low_wavelen = c.rope_original_context / c.rope_low_freq_factor
  high_wavelen = c.rope_original_context / c.rope_high_freq_factor
  out = []
  for f in inv:
    wavelen = 2 * math.pi / f
    if wavelen < high_wavelen:
      out.append(f)
    elif wavelen > low_wavelen:
      out.append(f / c.rope_factor)
    else:
      smooth = ((c.rope_original_context / wavelen - c.rope_low_freq_factor) /
                (c.rope_high_freq_factor - c.rope_low_freq_factor))
      out.append((1 - smooth) * f / c.rope_factor + smooth * f)
  return [float(np.float32(x)) for x in out]


def rope_inv_freq(c):
  """Rotary inverse frequencies of config c, rounded to float32."""
  if c.rope_scaling == "llama3":
    return llama3_inv_freq(c)
  assert c.rope_scaling is None, c.rope_scaling
  inv = 1.0 / (c.rope_theta ** (np.arange(0, c.head_dim, 2) / c.head_dim))
  return [float(np.float32(x)) for x in inv]


class RmsNorm(nn.Module):
  def __init__(self, dim, eps):
    super().__init__()
    self.eps = eps
    self.weight = nn.Parameter(torch.empty(dim))

  def forward(self, x):
    var = x.pow(2).mean(-1, keepdim=True)
    return self.weight * (x * torch.rsqrt(var + self.eps))


def rotate_half(x):
  half = x.shape[-1] // 2
  return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class LlamaAttention(nn.Module):
  def __init__(self, c):
    super().__init__()
    self.c = c
    self.q_proj = Linear(c.hidden, c.heads * c.head_dim, bias=False)
    self.k_proj = Linear(c.hidden, c.kv_heads * c.head_dim, bias=False)
    self.v_proj = Linear(c.hidden, c.kv_heads * c.head_dim, bias=False)
    self.o_proj = Linear(c.heads * c.head_dim, c.hidden, bias=False)

  def forward(self, x, cos, sin, mask, past_k, past_v):
    c = self.c
    b, s = x.shape[0], x.shape[1]
    q = self.q_proj(x).view(b, s, c.heads, c.head_dim).transpose(1, 2)
    k = self.k_proj(x).view(b, s, c.kv_heads, c.head_dim).transpose(1, 2)
    v = self.v_proj(x).view(b, s, c.kv_heads, c.head_dim).transpose(1, 2)
    q = q * cos + rotate_half(q) * sin
    k = k * cos + rotate_half(k) * sin
    if past_k is not None:
      k = torch.cat([past_k, k], dim=2)
      v = torch.cat([past_v, v], dim=2)
    present_k, present_v = k, v
    if c.kv_heads == c.heads:
      # Multi-head attention (Llama-2-7B): HF's repeat_kv is the identity.
      scores = torch.matmul(q, k.transpose(-1, -2))
      scores = scores / math.sqrt(c.head_dim) + mask
      probs = torch.softmax(scores, dim=-1)
      ctx = torch.matmul(probs, v).transpose(1, 2)  # [b, s, heads, d]
      return self.o_proj(ctx.reshape(b, s, c.heads * c.head_dim)), \
          present_k, present_v
    # Grouped-query attention without repeating K/V: the 4 query heads of a
    # KV head are one broadcast MatMul batch dim.
    group = c.heads // c.kv_heads
    q = q.reshape(b, c.kv_heads, group, s, c.head_dim)
    scores = torch.matmul(q, k.unsqueeze(2).transpose(-1, -2))
    scores = scores / math.sqrt(c.head_dim) + mask
    probs = torch.softmax(scores, dim=-1)
    ctx = torch.matmul(probs, v.unsqueeze(2))  # [b, kv, group, s, d]
    ctx = ctx.reshape(b, c.heads, s, c.head_dim).transpose(1, 2)
    return self.o_proj(ctx.reshape(b, s, c.heads * c.head_dim)), present_k, \
        present_v


class LlamaMlp(nn.Module):
  def __init__(self, c):
    super().__init__()
    self.gate_proj = Linear(c.hidden, c.ffn, bias=False)
    self.up_proj = Linear(c.hidden, c.ffn, bias=False)
    self.down_proj = Linear(c.ffn, c.hidden, bias=False)

  def forward(self, x):
    return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class LlamaLayer(nn.Module):
  def __init__(self, c):
    super().__init__()
    self.input_layernorm = RmsNorm(c.hidden, c.rms_eps)
    self.self_attn = LlamaAttention(c)
    self.post_attention_layernorm = RmsNorm(c.hidden, c.rms_eps)
    self.mlp = MixtralMoe(c) if getattr(c, "experts", 0) else LlamaMlp(c)

  def forward(self, h, cos, sin, mask, past_k, past_v):
    a, pk, pv = self.self_attn(self.input_layernorm(h), cos, sin, mask, past_k,
                               past_v)
    h = h + a
    h = h + self.mlp(self.post_attention_layernorm(h))
    return h, pk, pv


class Llama(nn.Module):
  def __init__(self, c, layers, with_past, last_token_logits):
    super().__init__()
    self.c = c
    self.with_past = with_past
    self.last_token_logits = last_token_logits
    self.inv_freq = rope_inv_freq(c)
    self.embed_tokens = Embedding(c.vocab, c.hidden)
    self.layers = nn.ModuleList([LlamaLayer(c) for _ in range(layers)])
    self.norm = RmsNorm(c.hidden, c.rms_eps)
    self.lm_head = Linear(c.hidden, c.vocab, bias=False)

  def forward(self, input_ids, *past):
    s = input_ids.shape[1]
    past_len = past[0].shape[2] if self.with_past else 0
    positions = torch.arange(s, dtype=torch.long) + past_len
    inv_freq = torch.tensor(self.inv_freq, dtype=torch.float32)
    freqs = positions.to(torch.float32)[:, None] * inv_freq[None, :]
    emb = torch.cat((freqs, freqs), dim=-1)  # [s, head_dim]
    cos, sin = emb.cos(), emb.sin()
    mask = causal_mask(s, s + past_len, past_len, torch.float32)
    h = self.embed_tokens(input_ids)
    presents = []
    for i, layer in enumerate(self.layers):
      pk = past[2 * i] if self.with_past else None
      pv = past[2 * i + 1] if self.with_past else None
      h, k, v = layer(h, cos, sin, mask, pk, pv)
      presents += [k, v]
    h = self.norm(h)
    if self.last_token_logits:
      h = h[:, -1:, :]
    return (self.lm_head(h), *presents)


# --------------------------------------------------------------------------
# Zoo entries.
# --------------------------------------------------------------------------
TORCHVISION_REFERENCE = {
    # num_params: torchvision 0.14 weights meta (IMAGENET1K_V1) — the count
    # of model.parameters(). gflops: the "GFLOPS" column of torchvision's
    # model tables (0.15+ docs), which counts multiply-adds (MACs).
    "resnet50": (25557032, 4.09, "ResNet50_Weights.IMAGENET1K_V1"),
    "mobilenet_v2": (3504872, 0.30, "MobileNet_V2_Weights.IMAGENET1K_V1"),
    "efficientnet_b0": (5288548, 0.39, "EfficientNet_B0_Weights.IMAGENET1K_V1"),
    "vit_b_16": (86567656, 17.56, "ViT_B_16_Weights.IMAGENET1K_V1"),
}

# mlsysim 0.1.x results as published (blog "MLSys·im Roofline tutorial
# notes", reproduced by Engine.solve V3; see /work/shared/reference/mlsysim.md
# section 4). Figures: latency_ms, throughput_per_s, bound, intensity
# (FLOP/byte, mlsysim's FLOPs), mfu (fraction), t_memory_ms, t_compute_ms.
MLSYSIM_SOURCE = ("mlsysim 0.1.1 Engine.solve, fp16, efficiency 0.5; "
                  "published in 'MLSys·im Roofline tutorial notes' (blog) and "
                  "the mlsysim v0.1.0 release quickstart")
MLSYSIM_PUBLISHED = {
    "resnet50": [
        {"hw": "a100", "precision": "fp16", "batch": 1,
         "bound": "memory", "latency_ms": 0.543, "throughput_per_s": 1843,
         "intensity": 72.8, "mfu": 0.024, "source": MLSYSIM_SOURCE},
        {"hw": "a100", "precision": "fp16", "batch": 2,
         "bound": "compute", "intensity": 133.5, "source": MLSYSIM_SOURCE},
        {"hw": "a100", "precision": "fp16", "batch": 256,
         "bound": "compute", "latency_ms": 7.24, "mfu": 0.464,
         "throughput_ratio_vs_batch_1": 19.2, "source": MLSYSIM_SOURCE},
        {"hw": "h100", "precision": "fp16", "batch": 1,
         "bound": "memory", "throughput_per_s": 1898,
         "crossover_batch": 4,
         "crossover_sweep": [1, 2, 4, 8, 16, 32, 64, 128, 256],
         "source": MLSYSIM_SOURCE},
    ],
    "llama-3.1-8b-decode": [
        {"hw": "a100", "precision": "fp16", "batch": 1,
         "bound": "memory", "latency_ms": 9.0, "throughput_per_s": 111,
         "t_memory_ms": 8.66, "t_compute_ms": 0.10, "intensity": 0.91,
         "source": MLSYSIM_SOURCE},
    ],
}


def entry(name, **kw):
  kw["name"] = name
  return kw


ENTRIES = [
    entry("resnet50", kind="torchvision", tv="resnet50",
          description="ResNet-50 image classifier (torchvision), 224x224",
          mlsysim={"class": "cnn", "layers": 50}),
    entry("mobilenet_v2", kind="torchvision", tv="mobilenet_v2",
          description="MobileNetV2 image classifier (torchvision), 224x224",
          mlsysim={"class": "cnn", "layers": 54}),
    entry("efficientnet_b0", kind="torchvision", tv="efficientnet_b0",
          description="EfficientNet-B0 image classifier (torchvision), "
          "224x224",
          # mlsysim (dev registry) has EfficientNetB0 with no layer count;
          # 82 = its 81 convolutions + 1 classifier (MAC layers).
          mlsysim={"class": "cnn", "layers": 82}),
    entry("vit_b_16", kind="torchvision", tv="vit_b_16",
          description="Vision Transformer ViT-B/16 (torchvision), 224x224",
          # 196 patches + the class token per image.
          mlsysim={"class": "transformer", "layers": 12, "tokens": 197}),
    entry("bert-base", kind="bert",
          description="BERT-base encoder (uncased layout) with pooler, "
          "sequence 128 by default",
          mlsysim={"class": "transformer", "layers": 12,
                   "tokens": "sequence"}),
    entry("gpt2", kind="gpt2",
          description="GPT-2 small (124M) with tied LM head, full-context "
          "forward (no KV cache), sequence 1024 by default",
          mlsysim={"class": "transformer", "layers": 12,
                   "tokens": "sequence"}),
    entry("llama-3.1-8b-prefill", kind="llama", phase="prefill",
          config=LlamaConfig,
          description="Llama-3.1-8B prefill: 2048 prompt tokens, no past, "
          "returns the KV cache and the last token's logits",
          mlsysim={"class": "transformer", "layers": 32,
                   "tokens": "sequence"}),
    entry("llama-3.1-8b-decode", kind="llama", phase="decode",
          config=LlamaConfig,
          description="Llama-3.1-8B decode: 1 new token with a KV cache of "
          "2048 past tokens",
          mlsysim={"class": "transformer", "layers": 32,
                   "tokens": "sequence"}),
    entry("llama-3.1-70b-prefill", kind="llama", phase="prefill",
          config=Llama70Config,
          description="Llama-3.1-70B prefill: 2048 prompt tokens, no past, "
          "returns the KV cache and the last token's logits",
          mlsysim={"class": "transformer", "layers": 80,
                   "tokens": "sequence"}),
    entry("llama-3.1-70b-decode", kind="llama", phase="decode",
          config=Llama70Config,
          description="Llama-3.1-70B decode: 1 new token with a KV cache of "
          "2048 past tokens",
          mlsysim={"class": "transformer", "layers": 80,
                   "tokens": "sequence"}),
    entry("llama-3.1-405b-prefill", kind="llama", phase="prefill",
          config=Llama405Config,
          description="Llama-3.1-405B prefill: 2048 prompt tokens, no past, "
          "returns the KV cache and the last token's logits",
          mlsysim={"class": "transformer", "layers": 126,
                   "tokens": "sequence"}),
    entry("llama-3.1-405b-decode", kind="llama", phase="decode",
          config=Llama405Config,
          description="Llama-3.1-405B decode: 1 new token with a KV cache of "
          "2048 past tokens",
          mlsysim={"class": "transformer", "layers": 126,
                   "tokens": "sequence"}),
    entry("mixtral-8x7b-prefill", kind="llama", phase="prefill",
          config=MixtralConfig,
          description="Mixtral-8x7B prefill (top-2 of 8 experts): 2048 "
          "prompt tokens, no past, returns the KV cache and the last "
          "token's logits",
          mlsysim={"class": "transformer", "layers": 32,
                   "tokens": "sequence"}),
    entry("mixtral-8x7b-decode", kind="llama", phase="decode",
          config=MixtralConfig,
          description="Mixtral-8x7B decode (top-2 of 8 experts): 1 new token "
          "with a KV cache of 2048 past tokens",
          mlsysim={"class": "transformer", "layers": 32,
                   "tokens": "sequence"}),
    entry("llama-2-70b-prefill", kind="llama", phase="prefill",
          config=Llama2_70Config,
          description="Llama-2-70B prefill: 2048 prompt tokens, no past, "
          "returns the KV cache and the last token's logits",
          mlsysim={"class": "transformer", "layers": 80,
                   "tokens": "sequence"}),
    entry("llama-2-70b-decode", kind="llama", phase="decode",
          config=Llama2_70Config,
          description="Llama-2-70B decode: 1 new token with a KV cache of "
          "2048 past tokens",
          mlsysim={"class": "transformer", "layers": 80,
                   "tokens": "sequence"}),
    entry("llama-2-7b-prefill", kind="llama", phase="prefill",
          config=Llama2Config,
          description="Llama-2-7B prefill: 2048 prompt tokens, no past, "
          "returns the KV cache and the last token's logits",
          mlsysim={"class": "transformer", "layers": 32,
                   "tokens": "sequence"}),
    entry("llama-2-7b-decode", kind="llama", phase="decode",
          config=Llama2Config,
          description="Llama-2-7B decode: 1 new token with a KV cache of "
          "2048 past tokens",
          mlsysim={"class": "transformer", "layers": 32,
                   "tokens": "sequence"}),
]


def randomize(model, seed):
  """Distinct random values in every parameter and buffer (see header)."""
  g = torch.Generator().manual_seed(seed)
  with torch.no_grad():
    for name, t in list(model.named_parameters()) + list(
        model.named_buffers()):
      if not t.is_floating_point():
        continue
      if name.endswith("running_var"):
        t.copy_(torch.rand(t.shape, generator=g) + 0.5)
      else:
        t.copy_(torch.randn(t.shape, generator=g) * 0.02)


def tiny_weights(model):
  """Replaces every parameter by a stride-0 view of one distinct scalar: the
  trace sees full-size weights while each one stores a single number, and
  distinct values keep torch.onnx from merging equal weights."""
  for k, (name, p) in enumerate(list(model.named_parameters())):
    module = model.get_submodule(name.rpartition(".")[0])
    attr = name.rpartition(".")[2]
    value = torch.full((1,) * p.dim(), float(k + 1)).expand(p.shape)
    setattr(module, attr, nn.Parameter(value, requires_grad=False))


def param_count(model):
  return sum(p.numel() for p in model.parameters())


def batchnorm_channels(model):
  return sum(m.num_features for m in model.modules()
             if isinstance(m, nn.modules.batchnorm._BatchNorm))


def export(model, args, path, input_names, output_names, dynamic_axes,
           export_params=True):
  with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    torch.onnx.export(model, args, path, opset_version=OPSET,
                      input_names=input_names, output_names=output_names,
                      dynamic_axes=dynamic_axes, do_constant_folding=True,
                      export_params=export_params)


def tensor_numel(t):
  return int(np.prod(t.dims, dtype=np.int64)) if len(t.dims) else 1


FLOAT_TYPES = {onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16,
               onnx.TensorProto.BFLOAT16, onnx.TensorProto.DOUBLE}


def weights_to_initializers(model, param_names):
  """export_params=False leaves weights as graph inputs: make them
  (dataless) initializers again."""
  g = model.graph
  keep = []
  for inp in g.input:
    if inp.name not in param_names:
      keep.append(inp)
      continue
    tt = inp.type.tensor_type
    t = onnx.TensorProto(name=inp.name, data_type=tt.elem_type,
                         dims=[d.dim_value for d in tt.shape.dim])
    g.initializer.append(t)
  del g.input[:]
  g.input.extend(keep)


def constants_from_initializers(model, param_names=None, max_elements=4096):
  """Turns initializers that are not weights into Constant nodes that keep
  their values: non-float ones (folded shape vectors) and, when param_names
  is given, every initializer not named there (folded rotary frequencies,
  scalars). Returns how many."""
  g = model.graph
  consts, keep = [], []
  for init in g.initializer:
    is_weight = (init.name in param_names if param_names is not None else
                 init.data_type in FLOAT_TYPES)
    if is_weight:
      keep.append(init)
      continue
    assert tensor_numel(init) <= max_elements, init.name
    consts.append(helper.make_node("Constant", [], [init.name],
                                   name=f"Constant_{init.name}",
                                   value=copy.deepcopy(init)))
  del g.initializer[:]
  g.initializer.extend(keep)
  nodes = consts + list(g.node)
  del g.node[:]
  g.node.extend(nodes)
  return len(consts)


def strip_weights(model, entry_name):
  """Removes every initializer's data; marks it external in an absent file."""
  location = f"{entry_name}.weights"
  offset = 0
  for init in model.graph.initializer:
    nbytes = tensor_numel(init) * {
        onnx.TensorProto.FLOAT: 4, onnx.TensorProto.FLOAT16: 2,
        onnx.TensorProto.BFLOAT16: 2, onnx.TensorProto.DOUBLE: 8}[
            init.data_type]
    for field in ("raw_data", "float_data", "int32_data", "int64_data",
                  "double_data", "uint64_data", "string_data",
                  "external_data"):
      init.ClearField(field)
    init.data_location = onnx.TensorProto.EXTERNAL
    for key, value in (("location", location), ("offset", str(offset)),
                       ("length", str(nbytes))):
      init.external_data.add(key=key, value=value)
    offset += nbytes


def clean(model, entry_name):
  """Deterministic, minimal graph: no doc strings or value_info."""
  model.ClearField("doc_string")
  model.graph.ClearField("doc_string")
  for n in model.graph.node:
    n.ClearField("doc_string")
  del model.graph.value_info[:]
  del model.metadata_props[:]
  for key, value in ((WEIGHTLESS_KEY, "1"), (ENTRY_KEY, entry_name)):
    model.metadata_props.add(key=key, value=value)


def float_param_count(model):
  return sum(tensor_numel(i) for i in model.graph.initializer
             if i.data_type in FLOAT_TYPES)


def load_exported(path):
  return onnx.load(path, load_external_data=False)


# ---- per-kind tracing ----
def trace_torchvision(e, tmp):
  torch.manual_seed(0)
  model = getattr(torchvision.models, e["tv"])(weights=None).eval()
  randomize(model, 0)
  path = os.path.join(tmp, "m.onnx")
  # Not under torch.no_grad(): torch 1.13's nn.MultiheadAttention would take
  # its fused fast path, which has no ONNX export.
  export(model, torch.randn(1, 3, 224, 224), path, ["input"], ["logits"],
         {"input": {0: "batch"}, "logits": {0: "batch"}})
  m = load_exported(path)
  constants_from_initializers(m)
  # torch.onnx's eval export folds each BatchNorm into the preceding conv:
  # its gamma and beta (2C parameters) become a conv bias (C).
  expected = param_count(model) - batchnorm_channels(model)
  got = float_param_count(m)
  assert got == expected, (e["name"], got, expected)
  ref_params, gmacs, weights = TORCHVISION_REFERENCE[e["tv"]]
  assert param_count(model) == ref_params, (param_count(model), ref_params)
  info = {
      "source": (f"torchvision {torchvision.__version__} models.{e['tv']}"
                 f"(weights=None) (architecture of {weights}), traced with "
                 f"torch.onnx.export (torch {torch.__version__}, opset "
                 f"{OPSET}, eval mode, constant folding)"),
      "inputs": {"input": ["batch", 3, 224, 224]},
      "default_dims": {"batch": 1},
      "notes": ("torch.onnx's eval export folds every BatchNorm into its "
                "convolution, so the graph has "
                f"{expected:,} parameters: torchvision's {ref_params:,} minus "
                f"{batchnorm_channels(model):,} (each BatchNorm's gamma and "
                "beta become one conv bias per channel)."),
      "reference": {
          "torchvision_params": ref_params,
          "torchvision_gflops": gmacs,
          "torchvision_gflops_convention": "multiply-adds (MACs)",
          "source": (f"torchvision {weights}.meta['num_params']; 'GFLOPS' "
                     "column of the torchvision model tables "
                     "(pytorch.org/vision/stable/models.html)"),
      },
  }
  return m, expected, info


def trace_bert(e, tmp):
  torch.manual_seed(0)
  model = Bert().eval()
  randomize(model, 0)
  c = BertConfig
  path = os.path.join(tmp, "m.onnx")
  ids = torch.zeros(2, 8, dtype=torch.long)
  dyn = {0: "batch", 1: "sequence"}
  export(model, (ids, torch.ones(2, 8, dtype=torch.long), ids.clone()), path,
         ["input_ids", "attention_mask", "token_type_ids"],
         ["last_hidden_state", "pooler_output"],
         {"input_ids": dyn, "attention_mask": dyn, "token_type_ids": dyn,
          "last_hidden_state": dyn, "pooler_output": {0: "batch"}})
  m = load_exported(path)
  constants_from_initializers(m, {n for n, _ in model.named_parameters()})
  expected = param_count(model)
  assert expected == 109482240, expected  # HF bert-base-uncased BertModel
  assert float_param_count(m) == expected, float_param_count(m)
  info = {
      "source": (f"BERT-base encoder written in plain torch in "
                 f"tools/trace_zoo.py (HF BertModel layout): {c.layers} "
                 f"layers, hidden {c.hidden}, {c.heads} heads, FFN {c.ffn}, "
                 f"vocab {c.vocab}, {c.max_positions} positions, type vocab "
                 f"{c.type_vocab}, post-LayerNorm (eps {c.ln_eps}), GELU "
                 f"(erf), tanh pooler; traced with torch.onnx.export (torch "
                 f"{torch.__version__}, opset {OPSET})"),
      "inputs": {"input_ids": ["batch", "sequence"],
                 "attention_mask": ["batch", "sequence"],
                 "token_type_ids": ["batch", "sequence"]},
      "default_dims": {"batch": 1, "sequence": 128},
      "reference": {
          "params": 109482240,
          "source": ("bert-base-uncased BertModel (Devlin et al. 2018, "
                     "Table/Appendix: 110M); 109,482,240 counted from the "
                     "config"),
          "mlsysim_inference_flops": 22e9,
          "mlsysim_note": ("mlsysim's BERT_Base entry: 110e6 params, 22 "
                           "GFLOP at sequence 128 (2 FLOPs per MAC)"),
      },
  }
  return m, expected, info


def trace_gpt2(e, tmp):
  torch.manual_seed(0)
  model = Gpt2().eval()
  randomize(model, 0)
  c = Gpt2Config
  path = os.path.join(tmp, "m.onnx")
  dyn = {0: "batch", 1: "sequence"}
  export(model, (torch.zeros(2, 8, dtype=torch.long),), path, ["input_ids"],
         ["logits"], {"input_ids": dyn, "logits": dyn})
  m = load_exported(path)
  constants_from_initializers(m, {n for n, _ in model.named_parameters()})
  expected = param_count(model)
  assert expected == 124439808, expected  # HF gpt2 (tied LM head)
  assert float_param_count(m) == expected, float_param_count(m)
  info = {
      "source": (f"GPT-2 small written in plain torch in tools/trace_zoo.py "
                 f"(HF GPT2LMHeadModel layout): {c.layers} layers, hidden "
                 f"{c.hidden}, {c.heads} heads, FFN {c.ffn}, vocab {c.vocab}, "
                 f"context {c.context}, pre-LayerNorm, GELU (tanh), causal "
                 f"mask computed from positions, LM head tied to the token "
                 f"embedding; traced with torch.onnx.export (torch "
                 f"{torch.__version__}, opset {OPSET})"),
      "inputs": {"input_ids": ["batch", "sequence"]},
      "default_dims": {"batch": 1, "sequence": 1024},
      "notes": ("Tied weights are stored once: the initializer wte.weight "
                "[50257, 768] is read by the embedding Gather and by the LM "
                "head Gemm (transB=1)."),
      "reference": {
          "params": 124439808,
          "source": "HF gpt2 (Radford et al. 2019: 117M as reported; "
                    "124,439,808 counted from the config)",
      },
  }
  return m, expected, info


# ---- Llama: trace 2 layers, verify, repeat to 32 by graph surgery ----
LAYER_RE = re.compile(r"(?<![0-9])layers\.(\d+)(?=[./])")


def layer_of_node(n):
  m = re.match(r"/layers\.(\d+)/", n.name)
  return int(m.group(1)) if m else None


def rename_for_layer(name, src, dst):
  """Renames a tensor/node name of layer `src` to layer `dst`."""
  out = name.replace(f"/layers.{src}/", f"/layers.{dst}/")
  out = out.replace(f"layers.{src}.", f"layers.{dst}.")
  out = re.sub(rf"^(present|past_key_values)\.{src}\.", rf"\g<1>.{dst}.", out)
  if out == name:
    out = f"{name}__layers.{dst}"
  return out


def layer_nodes(graph, layer):
  """The nodes of decoder layer `layer`: those in its scope, plus unscoped
  helper nodes (torch's symbolic constants) read only by them."""
  nodes = [n for n in graph.node if layer_of_node(n) == layer]
  inside = {o for n in nodes for o in n.output}
  consumers = collections.defaultdict(set)
  for n in graph.node:
    for i in n.input:
      consumers[i].add(id(n))
  ids = {id(n) for n in nodes}
  for n in graph.node:
    if layer_of_node(n) is None and n.name and not n.name.startswith("/"):
      outs = list(n.output)
      if outs and all(consumers[o] and consumers[o] <= ids for o in outs):
        nodes.append(n)
        ids.add(id(n))
        inside.update(outs)
  order = {id(n): k for k, n in enumerate(graph.node)}
  nodes.sort(key=lambda n: order[id(n)])
  return nodes


def layer_interface(graph, nodes):
  produced = {o for n in nodes for o in n.output}
  consumed = [i for n in nodes for i in n.input if i]
  external = []
  for i in consumed:
    if i not in produced and i not in external:
      external.append(i)
  node_ids = {id(n) for n in nodes}
  exported = []
  for n in graph.node:
    if id(n) in node_ids:
      continue
    for i in n.input:
      if i in produced and i not in exported:
        exported.append(i)
  for o in (x.name for x in graph.output):
    if o in produced and o not in exported:
      exported.append(o)
  return external, exported


def clone_layer(nodes, src, dst, external_map):
  """Clones `nodes` of layer src as layer dst. External inputs are mapped by
  external_map (name -> name); everything produced inside is renamed."""
  produced = {o for n in nodes for o in n.output}
  out = []
  for n in nodes:
    c = copy.deepcopy(n)
    c.name = rename_for_layer(n.name, src, dst)
    for k, i in enumerate(n.input):
      if not i:
        continue
      c.input[k] = (rename_for_layer(i, src, dst) if i in produced else
                    external_map.get(i, i))
    for k, o in enumerate(n.output):
      c.output[k] = rename_for_layer(o, src, dst)
    out.append(c)
  return out


def canonical(nodes, src):
  """Layer-independent form of a layer's nodes, for comparison: tensors
  produced inside are numbered in production order, node names dropped,
  external names normalized."""
  def norm(s):
    return re.sub(rf"layers\.{src}(?=[./])", "layers.L",
                  re.sub(rf"^(present|past_key_values)\.{src}\.",
                         r"\1.L.", s))
  produced = {}
  for n in nodes:
    for o in n.output:
      produced[o] = f"p{len(produced)}"
  out = []
  for n in nodes:
    m = copy.deepcopy(n)
    m.name = ""
    for k in range(len(m.input)):
      m.input[k] = produced.get(m.input[k], norm(m.input[k]))
    for k in range(len(m.output)):
      m.output[k] = produced[m.output[k]]
    out.append(m.SerializeToString(deterministic=True))
  return out


def repeat_layers(model, traced, target, with_past):
  """Repeats the last traced decoder layer to `target` layers."""
  g = model.graph
  src = traced - 1
  prev = traced - 2
  nodes = layer_nodes(g, src)
  ext, exported = layer_interface(g, nodes)
  prev_nodes = layer_nodes(g, prev)
  _, prev_exported = layer_interface(g, prev_nodes)
  # Hidden-state input of layer src: the external input produced by layer
  # prev. Hidden-state output: the exported tensor that is not a present.
  prev_produced = {o for n in prev_nodes for o in n.output}
  hidden_in = [i for i in ext if i in prev_produced]
  assert len(hidden_in) == 1, hidden_in
  hidden_in = hidden_in[0]
  hidden_out = [o for o in exported if not o.startswith("present.")]
  assert len(hidden_out) == 1, hidden_out
  hidden_out = hidden_out[0]
  # Check: cloning layer prev as layer src reproduces the traced layer src.
  prev_ext, _ = layer_interface(g, prev_nodes)
  prev_hidden_in = [i for i in prev_ext if i not in
                    {x.name for x in g.initializer} and
                    not i.startswith("past_key_values.") and
                    i not in ext]
  emap = {i: rename_for_layer(i, prev, src) for i in prev_ext
          if LAYER_RE.search(i) or i.startswith("past_key_values.")}
  for i in prev_hidden_in:
    emap[i] = hidden_in
  check = clone_layer(prev_nodes, prev, src, emap)
  assert canonical(check, src) == canonical(nodes, src), \
      "cloned layer differs from the traced one"

  inits = {i.name: i for i in g.initializer}
  inputs = {i.name: i for i in g.input}
  outputs = {o.name: o for o in g.output}
  consumers_of_out = [n for n in g.node if hidden_out in n.input and
                      layer_of_node(n) != src]
  insert_at = max(k for k, n in enumerate(g.node) if n in nodes) + 1
  new_nodes = []
  new_inits, new_inputs, new_outputs = [], [], []
  cur_hidden = hidden_out
  for dst in range(traced, target):
    emap = {hidden_in: cur_hidden}
    for i in ext:
      if i in inits or i in inputs:
        if i != rename_for_layer(i, src, dst) and not i.endswith(
            f"__layers.{dst}"):
          emap[i] = rename_for_layer(i, src, dst)
          if i in inits:
            t = copy.deepcopy(inits[i])
            t.name = emap[i]
            new_inits.append(t)
          else:
            t = copy.deepcopy(inputs[i])
            t.name = emap[i]
            new_inputs.append(t)
    cl = clone_layer(nodes, src, dst, emap)
    new_nodes += cl
    for o in exported:
      if o in outputs:
        t = copy.deepcopy(outputs[o])
        t.name = rename_for_layer(o, src, dst)
        new_outputs.append(t)
    cur_hidden = rename_for_layer(hidden_out, src, dst)
  for n in consumers_of_out:
    for k, i in enumerate(n.input):
      if i == hidden_out:
        n.input[k] = cur_hidden
  all_nodes = list(g.node)
  all_nodes[insert_at:insert_at] = new_nodes
  del g.node[:]
  g.node.extend(all_nodes)
  g.initializer.extend(new_inits)
  # Inputs/outputs: keep the per-layer ones in layer order.
  g.input.extend(new_inputs)
  g.output.extend(new_outputs)


def moe_to_onnxruntime(model, c):
  """Rewrites every MoEPlaceholder node into onnxruntime's com.microsoft MoE
  (inputs input, router_probs, fc1_experts_weights, fc1_experts_bias,
  fc2_experts_weights, fc2_experts_bias, fc3_experts_weights; the biases
  empty), as onnxruntime's Mixtral tests and optimizer write it."""
  g = model.graph
  count = 0
  for n in g.node:
    if n.op_type != "MoEPlaceholder":
      continue
    x, logits, w1, w2, w3 = n.input
    del n.input[:]
    n.input.extend([x, logits, w1, "", w2, "", w3])
    n.op_type = "MoE"
    n.domain = "com.microsoft"
    del n.attribute[:]
    n.attribute.extend([
        helper.make_attribute("k", c.experts_per_token),
        helper.make_attribute("normalize_routing_weights", 1),
        helper.make_attribute("activation_type", "silu")])
    n.name = n.name.replace("MoEPlaceholder", "MoE")
    for k, o in enumerate(n.output):
      renamed = o.replace("MoEPlaceholder", "MoE")
      for other in g.node:
        for j, i in enumerate(other.input):
          if i == o:
            other.input[j] = renamed
      n.output[k] = renamed
    count += 1
  assert count >= 1, "no MoE node traced"
  keep = [o for o in model.opset_import if o.domain != "ridgeline.trace"]
  del model.opset_import[:]
  model.opset_import.extend(keep)
  model.opset_import.add(domain="com.microsoft", version=1)


def trace_llama(e, tmp):
  c = e["config"]
  traced = 2
  decode = e["phase"] == "decode"
  torch.manual_seed(0)
  model = Llama(c, traced, with_past=decode,
                last_token_logits=not decode).eval()
  names = [n for n, _ in model.named_parameters()]
  tiny_weights(model)
  path = os.path.join(tmp, "m.onnx")
  b, s, past = 1, 3, 5
  args = [torch.zeros(b, s, dtype=torch.long)]
  in_names = ["input_ids"]
  out_names = ["logits"]
  dyn = {"input_ids": {0: "batch", 1: "sequence"},
         "logits": {0: "batch"} if not decode else {0: "batch",
                                                    1: "sequence"}}
  for i in range(traced):
    for kv in ("key", "value"):
      if decode:
        args.append(torch.zeros(b, c.kv_heads, past, c.head_dim))
        in_names.append(f"past_key_values.{i}.{kv}")
        dyn[in_names[-1]] = {0: "batch", 2: "past_sequence"}
      out_names.append(f"present.{i}.{kv}")
      dyn[out_names[-1]] = {0: "batch", 2: "present_sequence" if decode
                            else "sequence"}
  global LAZY_MATMUL
  LAZY_MATMUL = getattr(c, "lazy_matmul", False)
  with torch.no_grad(), (no_weight_clones() if LAZY_MATMUL else
                         contextlib.nullcontext()):
    export(model, tuple(args), path, in_names, out_names, dyn,
           export_params=False)
  LAZY_MATMUL = False
  del model
  m = load_exported(path)
  weights_to_initializers(m, set(names))
  constants_from_initializers(m, set(names))
  if getattr(c, "experts", 0):
    moe_to_onnxruntime(m, c)
  repeat_layers(m, traced, c.layers, decode)
  expected = c.params
  got = float_param_count(m)
  assert got == expected, got
  kv_dims = f"[batch, {c.kv_heads}, past_sequence, {c.head_dim}]"
  rope = (f"with llama3 scaling (factor {c.rope_factor:g})"
          if c.rope_scaling == "llama3" else "without scaling")
  info = {
      "source": (f"{c.label} written in plain torch in tools/trace_zoo.py "
                 f"(HF {getattr(c, 'hf_class', 'LlamaForCausalLM')} layout): "
                 f"{c.layers} layers, hidden "
                 f"{c.hidden}, {c.heads} heads, {c.kv_heads} KV heads, head "
                 f"dim {c.head_dim}, FFN {c.ffn} (SwiGLU), vocab {c.vocab}, "
                 f"RMSNorm eps {c.rms_eps}, rotary theta {c.rope_theta:g} "
                 f"{rope}, untied embedding and LM head; traced with "
                 f"torch.onnx.export (torch {torch.__version__}, opset "
                 f"{OPSET}, export_params=False)"),
      "traced_layers": traced,
      "repeated_to": c.layers,
      "surgery": (f"traced at full width with 2 decoder layers ({c.layers} "
                  "layers of fp32 weights do not fit this machine's memory), "
                  f"then layer 1 was cloned to layers 2..{c.layers - 1} with "
                  "renamed tensors "
                  "and rewired by tools/trace_zoo.py; the script checks that "
                  "cloning layer 0 reproduces the traced layer 1 exactly"),
      "inputs": ({"input_ids": ["batch", "sequence"],
                  "past_key_values.N.key": kv_dims,
                  "past_key_values.N.value": kv_dims} if decode else
                 {"input_ids": ["batch", "sequence"]}),
      "outputs": ({"logits": ["batch", "sequence", c.vocab],
                   "present.N.key": f"[batch, {c.kv_heads}, past_sequence + "
                                    f"sequence, {c.head_dim}]"} if decode else
                  {"logits": ["batch", 1, c.vocab],
                   "present.N.key": f"[batch, {c.kv_heads}, sequence, "
                                    f"{c.head_dim}]"}),
      "default_dims": ({"batch": 1, "sequence": 1, "past_sequence": 2048}
                       if decode else {"batch": 1, "sequence": 2048}),
      "native_precision": c.native_precision,
      "native_precision_source": (
          f"{c.checkpoint} config.json: torch_dtype "
          f"{ {'bf16': 'bfloat16', 'fp16': 'float16'}[c.native_precision]}"),
      "notes": ((f"Grouped-query attention is a broadcast MatMul over the "
                 f"{c.heads // c.kv_heads} query heads of each KV head (no "
                 f"repeat_kv copy). " if c.kv_heads != c.heads else
                 "Multi-head attention (as many KV heads as query heads): "
                 "plain batched MatMuls, no repeat_kv. ") +
                ("Prefill computes logits for the last position only, as "
                 "serving engines do." if not decode else
                 "Attention reads the whole KV cache (past + new tokens).") +
                (f" Each layer's MLP is a mixture of {c.experts} SwiGLU "
                 f"experts, top-{c.experts_per_token} per token: a router "
                 f"MatMul to {c.experts} logits per token, then one "
                 "onnxruntime com.microsoft MoE node (fc1 = gate, fc2 = "
                 "down, fc3 = up, stacked per expert; k = "
                 f"{c.experts_per_token}, normalize_routing_weights = 1, "
                 "activation silu)." if getattr(c, "experts", 0) else "")),
      "reference": dict(c.reference),
  }
  return m, expected, info


TRACERS = {"torchvision": trace_torchvision, "bert": trace_bert,
           "gpt2": trace_gpt2, "llama": trace_llama}


def check_model(data, entry_name):
  """onnx's checker (with an empty stand-in for the absent weights file) and
  strict shape inference on the stored graph. Returns the inferred model."""
  with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, f"{entry_name}.onnx")
    with open(path, "wb") as f:
      f.write(data)
    open(os.path.join(tmp, f"{entry_name}.weights"), "wb").close()
    onnx.checker.check_model(path)
  m = onnx.load_from_string(data)
  return onnx.shape_inference.infer_shapes(m, check_type=True,
                                           strict_mode=True)


def build(e, out_dir):
  t0 = time.time()
  with tempfile.TemporaryDirectory() as tmp:
    m, params, info = TRACERS[e["kind"]](e, tmp)
  clean(m, e["name"])
  strip_weights(m, e["name"])
  data = m.SerializeToString(deterministic=True)
  check_model(data, e["name"])
  onnx_path = os.path.join(out_dir, f"{e['name']}.onnx")
  with open(onnx_path, "wb") as f:
    f.write(data)
  meta = {
      "name": e["name"],
      "description": e["description"],
      "file": f"{e['name']}.onnx",
      "source": info.pop("source"),
      "params": params,
      "params_convention": ("elements of the graph's initializers (every "
                            "initializer is a weight)"),
  }
  for k in ("traced_layers", "repeated_to", "surgery"):
    if k in info:
      meta[k] = info.pop(k)
  meta["inputs"] = info.pop("inputs")
  if "outputs" in info:
    meta["outputs"] = info.pop("outputs")
  meta["default_dims"] = info.pop("default_dims")
  ml = dict(e["mlsysim"])
  ml["ops_rule"] = ("ops = MACs (mlsysim's CNN FLOPs are MAC counts)"
                    if ml["class"] == "cnn" else
                    "ops = 2 x params x tokens per sample (mlsysim's LM "
                    "rule: 2 FLOPs per parameter per token)")
  ml["published"] = MLSYSIM_PUBLISHED.get(e["name"], [])
  meta["mlsysim"] = ml
  meta.update(info)
  meta["weightless"] = ("initializers keep name, dims and dtype; data is "
                        "marked external in an absent file; metadata_props "
                        f"{WEIGHTLESS_KEY}=1")
  meta["regenerate"] = f"/usr/bin/python3 tools/trace_zoo.py {e['name']}"
  with open(os.path.join(out_dir, f"{e['name']}.json"), "w") as f:
    f.write(json.dumps(meta, indent=2, ensure_ascii=False) + "\n")
  dt = time.time() - t0
  print(f"{e['name']}: {params:,} params, {len(m.graph.node)} nodes, "
        f"{len(data):,} bytes, sha256 {hashlib.sha256(data).hexdigest()[:16]}"
        f", {dt:.1f} s", flush=True)


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("entries", nargs="*", help="entry names (default all)")
  parser.add_argument("--out", default=ZOO_DIR, help="output directory")
  parser.add_argument("--list", action="store_true", help="list entries")
  parser.add_argument("--check", action="store_true",
                      help="regenerate into a temporary directory and "
                      "compare byte-for-byte with --out")
  args = parser.parse_args()
  by_name = {e["name"]: e for e in ENTRIES}
  if args.list:
    for e in ENTRIES:
      print(f"{e['name']:24} {e['description']}")
    return 0
  unknown = [n for n in args.entries if n not in by_name]
  if unknown:
    parser.error(f"unknown entries: {', '.join(unknown)}")
  chosen = [by_name[n] for n in args.entries] if args.entries else ENTRIES
  torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
  if args.check:
    with tempfile.TemporaryDirectory() as tmp:
      for e in chosen:
        build(e, tmp)
      bad = []
      for e in chosen:
        for ext in ("onnx", "json"):
          a = os.path.join(tmp, f"{e['name']}.{ext}")
          b = os.path.join(args.out, f"{e['name']}.{ext}")
          if not os.path.exists(b) or open(a, "rb").read() != open(
              b, "rb").read():
            bad.append(b)
      for b in bad:
        print(f"differs: {b}")
      print("identical" if not bad else f"{len(bad)} file(s) differ")
      return 1 if bad else 0
  os.makedirs(args.out, exist_ok=True)
  for e in chosen:
    build(e, args.out)
  return 0


if __name__ == "__main__":
  sys.exit(main())
