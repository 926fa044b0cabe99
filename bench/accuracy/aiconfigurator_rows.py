#!/usr/bin/python3
"""Per-kernel rows for bench/accuracy/kernels.tsv from NVIDIA aiconfigurator's measured tables.

Reads aiconfigurator's Parquet tables (gemm_perf.parquet, generation_attention_perf.parquet
under aic-core/src/aiconfigurator_core/systems/data/<system>/<op>/trtllm/<version>/) straight
from a bare git mirror of ai-dynamo/aiconfigurator, with no pyarrow: a minimal Parquet reader
(Thrift compact protocol for the footer and page headers; PLAIN, RLE/bit-packed hybrid and
dictionary encodings; data pages v1 and v2; zstd through the `zstd` command, snappy not needed).

Run (Python 3 standard library + the zstd CLI):
  aiconfigurator_rows.py [--repo GITDIR] [--commit C] dump SYSTEM OP VERSION [col=value ...]
      print a table's rows (OP: gemm or generation_attention), optionally filtered
  aiconfigurator_rows.py [--repo GITDIR] [--commit C] check
      decode the H100 TRT-LLM 1.3.0rc20 tables and compare with the h100-* aiconfigurator
      rows already in kernels.tsv (exit 1 on any mismatch)
  aiconfigurator_rows.py [--repo GITDIR] [--commit C] rows SYSTEM HW VERSION [fp8]
      print kernels.tsv rows for SYSTEM (e.g. h200_sxm) under hw key HW (e.g. h200): bf16 GEMMs
      and decode attention, or with fp8 the per-tensor fp8 GEMMs (the table's gemm_dtype "fp8")
  aiconfigurator_rows.py [--repo GITDIR] [--commit C] grid SYSTEM HW VERSION bf16|fp8
      every GEMM of the table at that type with n, k >= 1024 as kernels.tsv rows (a header
      first), for `fit_kernels --check`: the committed constants against the whole table
  aiconfigurator_rows.py [--repo GITDIR] [--commit C] weight-only SYSTEM VERSION HW.json
      fit the fixed cost of TRT-LLM's weight-only int8/int4 GEMVs (the tensorrt profile's
      weight_only_kernel_fixed_s) with the device's bandwidth and memory efficiency from HW.json
  aiconfigurator_rows.py [--repo GITDIR] [--commit C] attention SYSTEM VERSION HW.json
      fit the decode attention kernel's memory efficiency, fixed cost and per-block cost
      (kernel_model's attention_memory_efficiency, attention_kernel_fixed_s, attention_block_s)
      to TRT-LLM's generation attention table at the Llama head counts and the serving range of
      batch and context
  aiconfigurator_rows.py [--repo GITDIR] [--commit C] context-attention SYSTEM VERSION HW.json
      fit the prefill attention kernel's efficiency and per-thread-block KV overhead
      (kernel_model's attention_efficiency, attention_kv_overhead) to TRT-LLM's context
      attention table at head dim 128 (other head dims reported out of sample)
  aiconfigurator_rows.py [--repo GITDIR] [--commit C] nccl SYSTEM NCCL_VERSION HW.json
      write the measured NCCL collective times of SYSTEM (all-reduce, all-gather, reduce-scatter,
      all-to-all; fp16 rows, 2-8 GPUs of one node) into HW.json's
      interconnect.measured_collectives (engine/parallel/collectives.h interpolates them)
GITDIR defaults to /work/.mirror/ai-dynamo+aiconfigurator/repo, C to HEAD.
Times in the tables are the `latency` column in milliseconds; rows here give seconds.
"""
import os
import re
import struct
import subprocess
import sys

REPO = "/work/.mirror/ai-dynamo+aiconfigurator/repo"
DATA = "aic-core/src/aiconfigurator_core/systems/data"


# ---------------------------------------------------------------- Thrift compact protocol
class Thrift:
    """Decodes Thrift compact-protocol structs into {field_id: value} dicts."""

    def __init__(self, buf, pos=0):
        self.buf, self.pos = buf, pos

    def byte(self):
        b = self.buf[self.pos]
        self.pos += 1
        return b

    def varint(self):
        shift = result = 0
        while True:
            b = self.byte()
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                return result
            shift += 7

    def zigzag(self):
        v = self.varint()
        return (v >> 1) ^ -(v & 1)

    def value(self, t):
        if t == 1:
            return True
        if t == 2:
            return False
        if t == 3:
            v = self.byte()
            return v - 256 if v > 127 else v
        if t in (4, 5, 6):
            return self.zigzag()
        if t == 7:
            v = struct.unpack_from("<d", self.buf, self.pos)[0]
            self.pos += 8
            return v
        if t == 8:
            n = self.varint()
            v = bytes(self.buf[self.pos:self.pos + n])
            self.pos += n
            return v
        if t in (9, 10):
            h = self.byte()
            n, et = h >> 4, h & 0x0F
            if n == 15:
                n = self.varint()
            if et in (1, 2):  # bools inside a list are one byte each
                return [self.byte() == 1 for _ in range(n)]
            return [self.value(et) for _ in range(n)]
        if t == 11:
            n = self.varint()
            if n == 0:
                return {}
            kv = self.byte()
            return {self.value(kv >> 4): self.value(kv & 0x0F) for _ in range(n)}
        if t == 12:
            return self.struct()
        raise ValueError("thrift type %d" % t)

    def struct(self):
        out, last = {}, 0
        while True:
            h = self.byte()
            if h == 0:
                return out
            t, delta = h & 0x0F, h >> 4
            fid = last + delta if delta else self.zigzag()
            out[fid] = self.value(t)
            last = fid


# ---------------------------------------------------------------- Parquet
def zstd_decompress(data):
    return subprocess.run(["zstd", "-d", "-c", "-q"], input=data, stdout=subprocess.PIPE,
                          check=True).stdout


def decompress(codec, data, size):
    if codec == 0:
        return data
    if codec == 6:
        out = zstd_decompress(data)
    else:
        raise ValueError("codec %d not supported (0 none, 6 zstd)" % codec)
    if len(out) != size:
        raise ValueError("decompressed %d bytes, header says %d" % (len(out), size))
    return out


def rle_hybrid(buf, pos, end, bit_width, count):
    """RLE / bit-packed hybrid: returns count values read from buf[pos:end]."""
    out = []
    vbytes = (bit_width + 7) // 8
    mask = (1 << bit_width) - 1
    while len(out) < count and pos < end:
        r = Thrift(buf, pos)
        header = r.varint()
        pos = r.pos
        if header & 1:  # bit-packed: (header >> 1) groups of 8 values, LSB first
            groups = header >> 1
            nbytes = groups * bit_width
            bits = int.from_bytes(buf[pos:pos + nbytes], "little")
            pos += nbytes
            for i in range(groups * 8):
                out.append((bits >> (i * bit_width)) & mask)
        else:  # run: value repeated (header >> 1) times
            v = int.from_bytes(buf[pos:pos + vbytes], "little")
            pos += vbytes
            out.extend([v] * (header >> 1))
    return out[:count]


def plain(buf, pos, ptype, count, type_length=0):
    out = []
    if ptype == 1:
        out = list(struct.unpack_from("<%di" % count, buf, pos))
    elif ptype == 2:
        out = list(struct.unpack_from("<%dq" % count, buf, pos))
    elif ptype == 4:
        out = list(struct.unpack_from("<%df" % count, buf, pos))
    elif ptype == 5:
        out = list(struct.unpack_from("<%dd" % count, buf, pos))
    elif ptype == 6:
        for _ in range(count):
            n = struct.unpack_from("<I", buf, pos)[0]
            out.append(bytes(buf[pos + 4:pos + 4 + n]).decode())
            pos += 4 + n
    elif ptype == 7:
        for _ in range(count):
            out.append(bytes(buf[pos:pos + type_length]))
            pos += type_length
    elif ptype == 0:
        bits = int.from_bytes(buf[pos:pos + (count + 7) // 8], "little")
        out = [bool((bits >> i) & 1) for i in range(count)]
    else:
        raise ValueError("physical type %d not supported" % ptype)
    return out


def read_parquet(data):
    """Returns {column name: list of values} for a flat (non-nested) Parquet file."""
    if data[:4] != b"PAR1" or data[-4:] != b"PAR1":
        raise ValueError("not a Parquet file")
    flen = struct.unpack_from("<I", data, len(data) - 8)[0]
    meta = Thrift(data, len(data) - 8 - flen).struct()
    schema = meta[2]
    leaves = [s for s in schema[1:] if not s.get(5)]
    if len(leaves) != len(schema) - 1:
        raise ValueError("nested schema not supported")
    cols = {s[4].decode(): [] for s in leaves}
    for rg in meta[4]:
        for i, chunk in enumerate(rg[1]):
            cm = chunk[3]
            el = leaves[i]
            name = b".".join(cm[3]).decode()
            ptype, codec, total = cm[1], cm[4], cm[5]
            optional = el.get(3) == 1
            pos = cm.get(11, cm[9])
            dictionary = None
            got = 0
            while got < total:
                r = Thrift(data, pos)
                ph = r.struct()
                body = data[r.pos:r.pos + ph[3]]
                pos = r.pos + ph[3]
                kind = ph[1]
                if kind == 2:  # dictionary page, PLAIN values
                    page = decompress(codec, body, ph[2])
                    dictionary = plain(page, 0, ptype, ph[7][1], el.get(2, 0))
                    continue
                if kind == 0:  # data page v1: [rep levels][def levels] values, all compressed
                    h = ph[5]
                    n, enc = h[1], h[2]
                    page = decompress(codec, body, ph[2])
                    p = 0
                    defs = None
                    if optional:
                        ln = struct.unpack_from("<I", page, p)[0]
                        defs = rle_hybrid(page, p + 4, p + 4 + ln, 1, n)
                        p += 4 + ln
                elif kind == 3:  # data page v2: levels uncompressed, then values
                    h = ph[8]
                    n, enc = h[1], h[4]
                    dl, rl = h[5], h[6]
                    defs = rle_hybrid(body, rl, rl + dl, 1, n) if optional and dl else None
                    rest = body[rl + dl:]
                    if h.get(7, True):
                        rest = decompress(codec, rest, ph[2] - rl - dl)
                    page, p = rest, 0
                else:
                    raise ValueError("page type %d not supported" % kind)
                present = n if defs is None else sum(defs)
                if enc == 0:
                    vals = plain(page, p, ptype, present, el.get(2, 0))
                elif enc in (2, 8):
                    bw = page[p]
                    idx = rle_hybrid(page, p + 1, len(page), bw, present)
                    vals = [dictionary[j] for j in idx]
                else:
                    raise ValueError("encoding %d not supported" % enc)
                if defs is not None:
                    it = iter(vals)
                    vals = [next(it) if d else None for d in defs]
                cols[name].extend(vals)
                got += n
    if any(len(v) != meta[3] for v in cols.values()):
        raise ValueError("column lengths %s, footer says %d rows"
                         % ({k: len(v) for k, v in cols.items()}, meta[3]))
    return cols


def table(system, op, version, repo=REPO, commit="HEAD"):
    path = "%s/%s/%s/trtllm/%s/%s_perf.parquet" % (
        DATA, system, "gemm" if op == "gemm" else "attention", version, op)
    data = subprocess.run(["git", "-C", repo, "show", "%s:%s" % (commit, path)],
                          stdout=subprocess.PIPE, check=True).stdout
    cols = read_parquet(data)
    names = list(cols)
    rows = [dict(zip(names, vals)) for vals in zip(*cols.values())]
    return path, rows


def select(rows, **want):
    return [r for r in rows if all(str(r.get(k)) == str(v) for k, v in want.items())]


# ---------------------------------------------------------------- kernels.tsv rows
# Shapes of the aiconfigurator rows in kernels.tsv: (id suffix, m, n, k).
GEMMS = [("gemm-4096", 4096, 4096, 4096), ("gemm-8192", 8192, 8192, 8192),
         ("gemm-3328x2560x65536", 3328, 2560, 65536), ("gemm-512x8192x8192", 512, 8192, 8192),
         ("gemm-256x8192x8192", 256, 8192, 8192), ("gemv-16384", 1, 16384, 16384),
         ("gemv-8192", 1, 8192, 8192), ("gemv-4096", 1, 4096, 4096)]
# Vidur Llama-2-7B shapes (H100/A100 rows come from Vidur; taken from aiconfigurator when present).
VIDUR = [("qkv-4096tok", 4096, 12288, 4096), ("oproj-4096tok", 4096, 4096, 4096),
         ("gateup-4096tok", 4096, 22016, 4096), ("down-4096tok", 4096, 4096, 11008),
         ("qkv-1tok", 1, 12288, 4096), ("oproj-1tok", 1, 4096, 4096),
         ("gateup-1tok", 1, 22016, 4096), ("down-1tok", 1, 4096, 11008)]
# fp8 GEMMs: the shapes above plus the decode-batch shapes of the fp8 serving rows (Llama-2-7B
# at 56-1024 sequences in flight: m 64 and 1024 over n = k = 4096).
FP8_EXTRA = [("gemm-64x4096x4096", 64, 4096, 4096), ("gemm-1024x4096x4096", 1024, 4096, 4096)]
# Decode attention: (id suffix, batch, context); 32 q heads, 8 kv heads, head dim 128, bf16 KV.
ATTN = [("decode-attn-bs1-ctx1024", 1, 1024), ("decode-attn-bs8-ctx16384", 8, 16384),
        ("decode-attn-bs32-ctx16384", 32, 16384)]
HQ, HKV, D = 32, 8, 128


def attn_flops_bytes(b, s):
    # QK^T and PV: 2 x (2 b hq s d); bytes: K and V cache (2 b s hkv d x 2 B) + q and o (2 b hq d x 2 B).
    return 4 * b * HQ * s * D, 2 * b * s * HKV * D * 2 + 2 * b * HQ * D * 2


def gemm_time(rows, m, n, k, dtype="bfloat16"):
    hit = [r for r in rows if r["m"] == m and r["n"] == n and r["k"] == k
           and r["gemm_dtype"] == dtype]
    return (hit[0]["latency"] / 1e3, len(hit)) if hit else (None, 0)


def source(path, repo, commit):
    def git(*args):
        return subprocess.run(["git", "-C", repo] + list(args), stdout=subprocess.PIPE,
                              check=True, text=True).stdout.strip()
    short = git("rev-parse", "--short=9", commit)
    last = git("log", "-1", "--format=%h", "--abbrev=9", commit, "--", path)
    return "aiconfigurator measured table (ai-dynamo/aiconfigurator @%s %s, last changed @%s; " \
           "decoded by bench/accuracy/aiconfigurator_rows.py)" % (short, path, last)


def close(table_s, text, rate=None, work=None):
    """True when the table time rounds to the kernels.tsv value as printed (or, for rows written
    from a rate in brackets, the table's rate rounds to that rate)."""
    def ulp_ok(value, printed):
        mant = printed.lower().split("e")[0].lstrip("0").replace(".", "")
        digits = len(mant.lstrip("0")) or 1
        half = 0.5 * 10 ** (int(f"{float(printed):e}".split("e")[1]) - digits + 1)
        return abs(value - float(printed)) <= half * (1 + 1e-9)
    if ulp_ok(table_s, text):
        return True
    return rate is not None and ulp_ok(work / table_s / 1e12, rate)


def read_kernels(path):
    rows = []
    with open(path) as f:
        header = None
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            fields = line.rstrip("\n").split("\t")
            if header is None:
                header = fields
                continue
            rows.append(dict(zip(header, fields)))
    return rows


def check(repo, commit, kernels):
    """Compares the h100-* aiconfigurator rows of kernels.tsv with the decoded H100 tables."""
    _, gemm = table("h100_sxm", "gemm", "1.3.0rc20", repo, commit)
    _, attn = table("h100_sxm", "generation_attention", "1.3.0rc20", repo, commit)
    shapes = {"h100-" + s: (m, n, k, "bfloat16") for s, m, n, k in GEMMS}
    llama_qkv = [("llama2-" + s, m, n, k) for s, m, n, k in VIDUR if s.startswith("qkv")]
    shapes.update({"h100-fp8-" + s: (m, n, k, "fp8") for s, m, n, k in GEMMS + llama_qkv + FP8_EXTRA})
    batches = {"h100-" + s: (b, c) for s, b, c in ATTN}
    bad = seen = 0
    for r in read_kernels(kernels):
        if r["hw"] != "h100" or not r["source"].startswith("aiconfigurator"):
            continue
        seen += 1
        rate = None
        if "TFLOP/s)" in r["source"]:
            rate = r["source"].rsplit("(", 1)[1].split()[0]
        if r["id"] in shapes:
            m, n, k, dtype = shapes[r["id"]]
            t, hits = gemm_time(gemm, m, n, k, dtype)
            work = 2.0 * m * n * k
        elif r["id"] in batches:
            b, c = batches[r["id"]]
            hits_rows = attn_rows(attn, b, c)
            hits, t = len(hits_rows), hits_rows[0]["latency"] / 1e3 if hits_rows else None
            flops, nbytes = attn_flops_bytes(b, c)
            work = flops
            if (str(flops), str(nbytes)) != (r["flops"], r["bytes"]):
                print("MISMATCH %s flops/bytes %d/%d vs %s/%s" % (r["id"], flops, nbytes,
                                                                 r["flops"], r["bytes"]))
                bad += 1
        else:
            print("UNKNOWN %s" % r["id"])
            bad += 1
            continue
        ok = hits == 1 and close(t, r["measured_s"], rate, work)
        bad += not ok
        print("%-8s %-32s tsv %-12s table %.6g s (%d row%s)" % (
            "ok" if ok else "MISMATCH", r["id"], r["measured_s"], t or float("nan"), hits,
            "" if hits == 1 else "s"))
    # The H100 fp8 GEMM 8192^3 of anchors_2026.md 3.2: 1242.5 TFLOP/s.
    t8, hits = gemm_time(gemm, 8192, 8192, 8192, "fp8")
    ok = hits == 1 and close(t8, "8.849e-04") and abs(2 * 8192**3 / t8 / 1e12 - 1242.5) < 0.05
    bad += not ok
    print("%-8s %-32s anchors 0.8849 ms = 1242.5 TFLOP/s, table %.6g s = %.2f TFLOP/s" % (
        "ok" if ok else "MISMATCH", "h100 fp8 gemm 8192^3", t8, 2 * 8192**3 / t8 / 1e12))
    print("%d h100 aiconfigurator rows checked, %d mismatches" % (seen, bad))
    return 0 if bad == 0 and seen else 1


def attn_rows(rows, b, ctx):
    """Decode step at context ctx: the table's `step` is the tokens already cached (ctx - 1)."""
    return [r for r in rows if r["batch_size"] == b and r["step"] == ctx - 1
            and r["num_heads"] == HQ and r["num_key_value_heads"] == HKV and r["head_dim"] == D
            and r["window_size"] == 0 and r["kv_cache_dtype"] == "bfloat16"
            and r["attn_dtype"] == "bfloat16"]


def emit_rows(system, hw, version, repo, commit, dtype="bf16"):
    gpath, gemm = table(system, "gemm", version, repo, commit)
    out = []
    # Llama-2-7B qkv shapes; oproj (4096^3, 1x4096x4096) repeats gemm-4096 / gemv-4096 and the
    # gate-up (n 22016) and down (k 11008) shapes are not in the table.
    extra = [("llama2-" + s, m, n, k) for s, m, n, k in VIDUR if s.startswith("qkv")]
    if dtype == "fp8":
        extra += FP8_EXTRA
    prefix = hw + ("-fp8-" if dtype == "fp8" else "-")
    for s, m, n, k in GEMMS + extra:
        t, hits = gemm_time(gemm, m, n, k, "fp8" if dtype == "fp8" else "bfloat16")
        if hits != 1:
            print("# %s%s: %d table rows, skipped" % (prefix, s, hits), file=sys.stderr)
            continue
        out.append([prefix + s, hw, "gemm", dtype, m, n, k, "-", "-", "%.6g" % t,
                    source(gpath, repo, commit)])
    if dtype == "fp8":
        for r in out:
            print("\t".join(str(x) for x in r))
        return 0
    apath, attn = table(system, "generation_attention", version, repo, commit)
    for s, b, c in ATTN:
        hit = attn_rows(attn, b, c)
        if len(hit) != 1:
            print("# %s-%s: %d table rows, skipped" % (hw, s, len(hit)), file=sys.stderr)
            continue
        flops, nbytes = attn_flops_bytes(b, c)
        out.append([hw + "-" + s, hw, "attention", "bf16", "-", "-", "-", flops, nbytes,
                    "%.6g" % (hit[0]["latency"] / 1e3),
                    source(apath, repo, commit) + "; 32 q / 8 kv heads, d 128, bf16 KV, step "
                    "%d; bytes = K+V cache + q/o" % (c - 1)])
    for r in out:
        print("\t".join(str(x) for x in r))
    return 0


def emit_grid(system, hw, version, dtype, repo, commit):
    """Every GEMM of the table at `dtype` (bf16 or fp8) with n and k >= 1024, as kernels.tsv rows:
    the whole-table check of `fit_kernels --check` (the constants were fitted to a dozen rows)."""
    gpath, gemm = table(system, "gemm", version, repo, commit)
    want = "fp8" if dtype == "fp8" else "bfloat16"
    src = "aiconfigurator %s %s gemm table, whole-table check" % (system, version)
    print("id\thw\tkind\tprecision\tm\tn\tk\tflops\tbytes\tmeasured_s\tsource")
    for r in gemm:
        if r["gemm_dtype"] != want or r["n"] < 1024 or r["k"] < 1024:
            continue
        print("\t".join(str(x) for x in [
            "%s-grid-%s-%dx%dx%d" % (hw, dtype, r["m"], r["n"], r["k"]), hw, "gemm", dtype,
            r["m"], r["n"], r["k"], "-", "-", "%.6g" % (r["latency"] / 1e3), src]))
    return 0


def weight_only(system, version, hw_file, repo, commit):
    """The fixed device time of TRT-LLM's weight-only GEMV kernels (m = 1, n and k >= 4096), with
    the weights streamed at the device's bf16 efficiency: the kernel model's matrix time at m = 1,
    bytes / (BW x e_mem) + fixed (engine/timing.h; the compute term is far below it), solved for
    the one fixed cost that minimizes the squared log error. Prints it for bf16 too (a check
    against the device's fitted kernel_fixed_s) and the error of each fit."""
    import json
    import math
    with open(hw_file) as f:
        hw = json.load(f)
    bw = hw["memory_bandwidth_bytes_per_s"] * hw["kernel_model"]["memory_efficiency"]
    _, gemm = table(system, "gemm", version, repo, commit)
    for dtype, elem in (("bfloat16", 2.0), ("int8_wo", 1.0), ("int4_wo", 0.5)):
        rows = [(r["n"] * r["k"] * elem + (r["n"] + r["k"]) * 2, r["latency"] / 1e3)
                for r in gemm if r["m"] == 1 and r["gemm_dtype"] == dtype
                and r["n"] >= 4096 and r["k"] >= 4096]
        if not rows:
            print("%s: no rows" % dtype)
            continue
        def loss(fixed):
            return sum(math.log((b / bw + fixed) / t) ** 2 for b, t in rows)
        fixed = min((loss(i * 1e-8), i * 1e-8) for i in range(3000))[1]
        errors = sorted(abs((b / bw + fixed) / t - 1) for b, t in rows)
        print("%-8s %3d rows  fixed %.2f us  |error| median %.1f%% max %.1f%%" % (
            dtype, len(rows), fixed * 1e6, 100 * errors[len(errors) // 2], 100 * errors[-1]))
    return 0


# Decode attention fit: the per-GPU head counts (q, kv) of the Llama family under tensor parallelism
# (Llama-2-7B 32/32 MHA; Llama-3 8B 32/8; 70B 64/8 -> TP2 32/4, TP4 16/2, TP8 8/1; MHA at TP) and
# the serving range of batch and context the accuracy rows run.
ATTN_FIT_HEADS = {(32, 32), (16, 16), (8, 8), (32, 8), (64, 8), (32, 4), (16, 2), (8, 1), (4, 1)}
ATTN_FIT_BATCH = (16, 2048)
ATTN_FIT_CONTEXT = (128, 32768)


def attention(system, version, hw_file, repo, commit):
    """The decode attention kernel's own constants (the hardware file's kernel_model
    attention_memory_efficiency e, attention_kernel_fixed_s f, attention_block_s c): TRT-LLM's
    generation attention rows (head dim 128, no sliding window, bf16 math, bf16 and fp8 KV cache)
    at the Llama head counts of ATTN_FIT_HEADS, batch 16-2048 and context 128-32768, timed as the
    kernel model times a decode attention kernel (engine/timing.h; its compute term is a few
    percent of the memory term at these shapes): f + bytes / (BW x e) + c x batch x KV heads, with
    bytes = K and V cache + q and o, and one (sequence, KV head) block per batch x KV head. Least
    squares on log(predicted / measured): a grid (f 0-15 us by 0.5, e 0.40-1.00 by 0.02, c 0-20 ns
    by 1), then a 5x finer grid around its best. Prints the fit and the error by KV type and MHA /
    GQA, beside the device's streaming constants (kernel_fixed_s, memory_efficiency, no block
    term) on the same rows."""
    import json
    import math
    with open(hw_file) as f:
        hw = json.load(f)
    bw = hw["memory_bandwidth_bytes_per_s"]
    km = hw["kernel_model"]
    apath, attn = table(system, "generation_attention", version, repo, commit)
    rows = []
    for r in attn:
        hq, hkv, b, ctx = r["num_heads"], r["num_key_value_heads"], r["batch_size"], r["step"] + 1
        if ((hq, hkv) not in ATTN_FIT_HEADS or r["head_dim"] != 128 or r["window_size"] != 0
                or r["attn_dtype"] != "bfloat16" or r["kv_cache_dtype"] not in ("bfloat16", "fp8")
                or not ATTN_FIT_BATCH[0] <= b <= ATTN_FIT_BATCH[1]
                or not ATTN_FIT_CONTEXT[0] <= ctx <= ATTN_FIT_CONTEXT[1]):
            continue
        elem = 2 if r["kv_cache_dtype"] == "bfloat16" else 1
        nbytes = 2 * b * hkv * ctx * 128 * elem + 2 * b * hq * 128 * 2
        rows.append((nbytes, b * hkv, r["latency"] / 1e3, r["kv_cache_dtype"], hq == hkv, ctx))
    if not rows:
        print("no rows")
        return 1

    def loss(f, e, c):
        return sum(math.log((f + n / (bw * e) + blocks * c) / t) ** 2
                   for n, blocks, t, _, _, _ in rows)

    def grid(fs, es, cs):
        return min((loss(f, e, c), f, e, c) for f in fs for e in es for c in cs)

    _, f0, e0, c0 = grid([i * 0.5e-6 for i in range(31)], [0.4 + j * 0.02 for j in range(31)],
                         [i * 1e-9 for i in range(21)])
    _, fixed, e, c = grid([max(0, f0 + i * 0.1e-6) for i in range(-5, 6)],
                          [e0 + j * 0.004 for j in range(-5, 6)],
                          [max(0, c0 + i * 0.2e-9) for i in range(-5, 6)])

    def report(label, f, eff, per_block):
        print(label)
        groups = [("all", lambda r: True), ("context >= 4096", lambda r: r[5] >= 4096),
                  ("context <= 512", lambda r: r[5] <= 512)] + [
            ("%s %s" % (kv, "MHA" if mha else "GQA"), lambda r, kv=kv, mha=mha: r[3] == kv and r[4] == mha)
            for kv in ("bfloat16", "fp8") for mha in (False, True)]
        for name, keep in groups:
            err = sorted((f + r[0] / (bw * eff) + r[1] * per_block) / r[2] - 1
                         for r in rows if keep(r))
            if not err:
                continue
            mag = sorted(abs(x) for x in err)
            print("  %-15s %4d rows  median error %+.1f%%  median |error| %.1f%%  within 20%% %.0f%%" % (
                name, len(err), 100 * err[len(err) // 2], 100 * mag[len(mag) // 2],
                100 * sum(x <= 0.2 for x in mag) / len(mag)))
    print("%s: %d rows of %s" % (system, len(rows), source(apath, repo, commit)))
    report("streaming constants (kernel_fixed_s %.2f us, memory_efficiency %.3f, no block term):" % (
        km["kernel_fixed_s"] * 1e6, km["memory_efficiency"]), km["kernel_fixed_s"],
        km["memory_efficiency"], 0)
    report("fitted: attention_kernel_fixed_s %.1f us, attention_memory_efficiency %.3f, "
           "attention_block_s %.1f ns" % (fixed * 1e6, e, c * 1e9), fixed, e, c)
    return 0


# Prefill (context) attention fit: causal TRT-LLM context attention, no sliding window, bf16.
CAUSAL_TILE = 128  # query / key positions per tile (engine/cost.cc kCausalTilePositions)


def causal_score_share(m, n, tile=CAUSAL_TILE):
    """engine/cost.cc CausalScoreShare: the share of the score tiles a causal kernel computes."""
    import math
    if not m > 1 or not n >= m:
        return 1.0
    past, key_tiles, query_tiles = n - m, math.ceil(n / tile), math.ceil(m / tile)
    computed = sum(math.ceil(min(n, past + (i + 1) * tile) / tile) for i in range(query_tiles))
    return computed / (query_tiles * key_tiles)


def context_attention(system, version, hw_file, repo, commit):
    """The prefill attention kernel's compute constants (kernel_model attention_efficiency e,
    attention_kv_overhead k0 and, on a device whose file gives attention_exp_per_s R,
    attention_exp_overlap v): TRT-LLM's context attention rows (causal, no sliding window, bf16
    math and KV) at sequence >= 128, timed as the kernel model times them (engine/timing.h): the
    attention kernel, f + Overlap(Overlap(C, X, v) / (q_wave x q_kv), M) + blocks x c, with
    C = score FLOPs / (peak x e) (4 d + 17 FLOPs per computed score), X = computed scores / R (the
    softmax's exponentials; 0 without R), q_wave the last wave's idle SMs over batch x heads x
    ceil(s / 128) thread blocks, q_kv = kv / (kv + k0) with kv the keys each query tile computes
    on average, M = Q, K, V and O bytes at the attention memory efficiency, f, c the decode fit's
    attention_kernel_fixed_s and attention_block_s; plus the op's QKV preprocessing kernel (RoPE,
    KV cache write: reads Q, K, V and writes them once more) as a memory kernel,
    memory_kernel_fixed_s + 2 x QKV bytes / (BW x memory_efficiency). Median |error| minimized on
    a grid (e by 0.05 then 0.01, k0 by 64 then 8 or 16, v by 0.25 then 0.05) over head dim 128,
    and over head dims 128 and 256 when the device has R (v is not identified by one head dim:
    C / X is the same on every row). Prints the fit and the error by head dim and sequence (the
    other head dims out of sample), beside the device's current constants."""
    import json
    import math
    with open(hw_file) as f:
        hw = json.load(f)
    km = hw["kernel_model"]
    peak, bw = hw["peak_flops_per_s"]["bf16"], hw["memory_bandwidth_bytes_per_s"]
    units = km.get("compute_units", 0)
    e_mem = km.get("attention_memory_efficiency", km["memory_efficiency"])
    fixed = km.get("attention_kernel_fixed_s", km["kernel_fixed_s"])
    block = km.get("attention_block_s", 0)
    overlap = km.get("matrix_overlap", 1)
    mem_fixed = km.get("memory_kernel_fixed_s", 3e-6)
    exp_rate = km.get("attention_exp_per_s", 0)
    apath, attn = table(system, "context_attention", version, repo, commit)
    rows = []
    for r in attn:
        if (r["window_size"] != 0 or r["attn_dtype"] != "bfloat16"
                or r["kv_cache_dtype"] != "bfloat16" or r["isl"] < 128):
            continue
        b, s, hq, hkv, d = r["batch_size"], r["isl"], r["num_heads"], r["num_key_value_heads"], r["head_dim"]
        share = causal_score_share(s, s)
        scores = b * hq * s * s
        ctas = b * hq * math.ceil(s / CAUSAL_TILE)
        q_wave = 1.0
        if units > 0:
            q_wave = ctas / (math.ceil(ctas / units) * units)
        fmha_bytes = b * s * d * (2 * hq + 2 * hkv) * 2
        qkv_bytes = b * s * (hq + 2 * hkv) * d * 2
        rest = (fixed + b * hkv * block + mem_fixed
                + 2 * qkv_bytes / (bw * km["memory_efficiency"]))
        rows.append(dict(d=d, s=s, flops=scores * (4 * d + 17) * share, q_wave=q_wave,
                         kv=s * share, exp=scores * share / exp_rate if exp_rate > 0 else 0,
                         mem=fmha_bytes / (bw * e_mem), rest=rest, t=r["latency"] / 1e3))
    if not rows:
        print("no rows")
        return 1

    def predict(r, e, k0, v):
        c = r["flops"] / (peak * e)
        c = max(c, r["exp"]) + (1 - v) * min(c, r["exp"])
        c /= r["q_wave"] * (r["kv"] / (r["kv"] + k0) if k0 > 0 else 1)
        return max(c, r["mem"]) + (1 - overlap) * min(c, r["mem"]) + r["rest"]

    def median_error(sel, e, k0, v):
        err = sorted(abs(predict(r, e, k0, v) / r["t"] - 1) for r in sel)
        return err[len(err) // 2]

    fit_dims = (128, 256) if exp_rate > 0 else (128,)
    fit_rows = [r for r in rows if r["d"] in fit_dims]
    if not any(r["d"] == 128 for r in fit_rows):
        print("no head dim 128 rows")
        return 1
    vs = [0.25 * i for i in range(5)] if exp_rate > 0 else [0.0]
    _, e0, k00, v0 = min((median_error(fit_rows[::3], e, k0, v), e, k0, v)
                         for e in [0.25 + 0.05 * i for i in range(16)]
                         for k0 in range(0, 1025, 64) for v in vs)
    vs = sorted({min(1.0, max(0.0, v0 + 0.05 * i)) for i in range(-5, 6)}) if exp_rate > 0 else [0.0]
    _, e, k0, v = min((median_error(fit_rows, e, k0, v), e, k0, v)
                      for e in [e0 + 0.01 * i for i in range(-5, 6)]
                      for k0 in range(max(0, k00 - 64), k00 + 65, 16 if exp_rate > 0 else 8)
                      for v in vs)

    def report(label, eff, kv0, v):
        print(label)
        for d in sorted({r["d"] for r in rows}):
            for name, lo, hi in (("all", 0, 1 << 30), ("s 128-512", 128, 512),
                                 ("s 1024-4096", 1024, 4096), ("s >= 6144", 6144, 1 << 30)):
                sel = [r for r in rows if r["d"] == d and lo <= r["s"] <= hi]
                if not sel:
                    continue
                err = sorted(predict(r, eff, kv0, v) / r["t"] - 1 for r in sel)
                mag = sorted(abs(x) for x in err)
                print("  d %3d %-12s %5d rows  median error %+6.1f%%  median |error| %5.1f%%  "
                      "within 20%% %3.0f%%" % (d, name, len(err), 100 * err[len(err) // 2],
                                             100 * mag[len(mag) // 2],
                                             100 * sum(x <= 0.2 for x in mag) / len(mag)))
    print("%s: %d rows of %s" % (system, len(rows), source(apath, repo, commit)))
    report("the hardware file's constants (attention_efficiency %.2f, attention_kv_overhead %g, "
           "attention_exp_per_s %g, attention_exp_overlap %g):" % (
               km.get("attention_efficiency", 0.5), km.get("attention_kv_overhead", 0), exp_rate,
               km.get("attention_exp_overlap", 0)),
           km.get("attention_efficiency", 0.5), km.get("attention_kv_overhead", 0),
           km.get("attention_exp_overlap", 0))
    report("fitted to head dim %s: attention_efficiency %.2f, attention_kv_overhead %d, "
           "attention_exp_overlap %.2f" % ("/".join(map(str, fit_dims)), e, k0, v), e, k0, v)
    return 0


def nccl(system, version, hw_file, repo, commit):
    """Measured NCCL collective times (nccl_perf.parquet, fp16 rows) as the hardware file's
    interconnect.measured_collectives: per op and GPU count, message bytes and seconds. The
    table's message_size is nccl-tests' size (each GPU's whole buffer) / element bytes
    (aiconfigurator collector/network/collect_nccl.py; its fp16 and int8 rows end at the same
    512 MiB), so bytes = message_size x 2."""
    import json
    path = "%s/%s/comm/nccl/%s/nccl_perf.parquet" % (DATA, system, version)
    data = subprocess.run(["git", "-C", repo, "show", "%s:%s" % (commit, path)],
                          stdout=subprocess.PIPE, check=True).stdout
    cols = read_parquet(data)
    rows = [dict(zip(cols, vals)) for vals in zip(*cols.values())]
    ops = {"all_reduce": "all_reduce", "all_gather": "all_gather",
           "reduce_scatter": "reduce_scatter", "alltoall": "all_to_all"}
    rows = [r for r in rows if r["op_name"] in ops and r["nccl_dtype"] == "half"]
    tables = []
    for op in ops:
        for gpus in sorted({r["num_gpus"] for r in rows if r["op_name"] == op}):
            mine = sorted((r["message_size"] * 2, r["latency"] / 1e3) for r in rows
                          if r["op_name"] == op and r["num_gpus"] == gpus)
            sizes = [b for b, _ in mine]
            if len(set(sizes)) != len(sizes):
                raise ValueError("%s: %s on %d GPUs lists a size twice" % (path, op, gpus))
            tables.append({"op": ops[op], "gpus": gpus, "bytes": sizes,
                           "seconds": [float("%.6g" % t) for _, t in mine]})
    versions = sorted({r["version"] for r in rows})
    devices = sorted({r["device"] for r in rows})
    with open(hw_file) as f:
        hw = json.load(f)
    hw["interconnect"].pop("measured_all_reduce", None)
    hw["interconnect"]["measured_collectives"] = {
        "source": "NCCL all-reduce, all-gather, reduce-scatter and all-to-all, fp16, measured on "
                  "%s by NVIDIA aiconfigurator with nccl-tests (NCCL %s); %s. Message bytes = "
                  "the table's message_size (nccl-tests' size, each GPU's whole buffer, in "
                  "elements) x 2." % (
                      ", ".join(devices), ", ".join(versions), source(path, repo, commit)),
        "tables": tables}
    text = json.dumps(hw, indent=2, ensure_ascii=False) + "\n"
    # Number arrays on one line each.
    text = re.sub(r"\[\s*([-0-9.e+,\s]+?)\s*\]",
                  lambda m: "[" + ", ".join(m.group(1).split()).replace(",,", ",") + "]", text)
    with open(hw_file, "w") as f:
        f.write(text)
    for t in tables:
        print("%s on %d GPUs: %d sizes, %g-%g bytes" % (t["op"], t["gpus"], len(t["bytes"]),
                                                        t["bytes"][0], t["bytes"][-1]))
    return 0


def main(argv):
    repo, commit = REPO, "HEAD"
    while argv and argv[0] in ("--repo", "--commit"):
        if argv[0] == "--repo":
            repo = argv[1]
        else:
            commit = argv[1]
        argv = argv[2:]
    here = os.path.dirname(os.path.abspath(__file__))
    if argv[:1] == ["check"]:
        return check(repo, commit, os.path.join(here, "kernels.tsv"))
    if argv[:1] == ["rows"] and len(argv) == 4:
        return emit_rows(argv[1], argv[2], argv[3], repo, commit)
    if argv[:1] == ["rows"] and len(argv) == 5 and argv[4] == "fp8":
        return emit_rows(argv[1], argv[2], argv[3], repo, commit, "fp8")
    if argv[:1] == ["grid"] and len(argv) == 5 and argv[4] in ("bf16", "fp8"):
        return emit_grid(argv[1], argv[2], argv[3], argv[4], repo, commit)
    if argv[:1] == ["weight-only"] and len(argv) == 4:
        return weight_only(argv[1], argv[2], argv[3], repo, commit)
    if argv[:1] == ["attention"] and len(argv) == 4:
        return attention(argv[1], argv[2], argv[3], repo, commit)
    if argv[:1] == ["context-attention"] and len(argv) == 4:
        return context_attention(argv[1], argv[2], argv[3], repo, commit)
    if argv[:1] == ["nccl"] and len(argv) == 4:
        return nccl(argv[1], argv[2], argv[3], repo, commit)
    if argv[:1] == ["dump"] and len(argv) >= 4:
        _, rows = table(argv[1], argv[2], argv[3], repo, commit)
        want = dict(a.split("=", 1) for a in argv[4:])
        for r in select(rows, **want):
            print("\t".join(str(v) for v in r.values()))
        return 0
    print(__doc__, file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
