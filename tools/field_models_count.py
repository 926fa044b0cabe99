#!/usr/bin/python3
"""Independent parameter and MAC count of an ONNX model (issue 15).

Usage: field_models_count.py MODEL.onnx [--input NAME=D0xD1x..] [--dim NAME=V]
                             [--value NAME=V]

Shares no code with ridgeline: it walks the graph with numpy the way a
runtime would run it, carrying real values for integer and small float
tensors (so Shape/Gather/Concat chains and If conditions fold) and only
shapes for the activations. Each If runs the branch its condition picks;
when the condition depends on activations (unknown), both branches run and
both are counted, the upper bound. MACs follow the README's conventions
(Conv gather form, ConvTranspose scatter form, Gemm/MatMul M*N*K, LSTM/GRU
D*T*B*G*H*(I+H)). Parameters: elements of the weights, that is floating or
8/4-bit integer initializers (in every subgraph) other than the scales and
zero points of quantize/dequantize/integer ops, plus, in a model whose
Constant nodes hold more such elements than its initializers, the Constant
outputs of more than one floating or 8/4-bit element. Integer shape
operands (int64 Reshape shapes, Resize sizes, Slice starts) are never
parameters. Needs Debian's python3-onnx (/usr/bin/python3).

Prints one JSON line: {"params": P, "macs": M, "nodes": N, "unknown": [...]}.
"""
import json
import sys

import numpy as np
import onnx
from onnx import numpy_helper

FLOAT = {1, 10, 11, 16}
SMALL_INT = {2, 3, 21, 22}  # uint8, int8, uint4, int4
NP_OF = {1: np.float32, 10: np.float16, 11: np.float64, 16: np.float32,
         2: np.uint8, 3: np.int8, 5: np.int16, 6: np.int32, 7: np.int64,
         9: np.bool_, 12: np.uint32, 13: np.uint64}
# Inputs (by position) that are quantization metadata, not weights.
QMETA = {
    'QuantizeLinear': {1, 2}, 'DequantizeLinear': {1, 2},
    'DynamicQuantizeLinear': set(),
    'ConvInteger': {2, 3}, 'MatMulInteger': {2, 3},
    'QLinearConv': {1, 2, 4, 5, 6, 7}, 'QLinearMatMul': {1, 2, 4, 5, 6, 7},
}
SMALL = 1 << 16  # float tensors up to this many elements keep their values


def _window(a, n):
  """strides, dilations, pads and auto_pad of a Conv/Pool over n axes."""
  strides = list(a.get('strides', [1] * n))
  dil = list(a.get('dilations', [1] * n))
  pads = list(a.get('pads', [0] * (2 * n)))
  auto = a.get('auto_pad', b'NOTSET')
  auto = auto.decode() if isinstance(auto, bytes) else auto
  return strides, dil, pads, auto


class Sh:
  """A tensor whose values do not matter: shape and numpy dtype only."""

  def __init__(self, shape, dtype):
    self.shape = tuple(int(d) for d in shape)
    self.dtype = np.dtype(dtype)


def shape(v):
  return tuple(v.shape)


def nelem(s):
  return int(np.prod(s, dtype=np.int64)) if len(s) else 1


def attrs(node):
  return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def real(v):
  return not isinstance(v, Sh)


def as_sh(v):
  return v if isinstance(v, Sh) else Sh(v.shape, v.dtype)


def maybe_keep(arr):
  """Keeps small results as values; large floats become shapes."""
  arr = np.asarray(arr)
  if arr.dtype.kind == 'f' and arr.size > SMALL:
    return Sh(arr.shape, arr.dtype)
  return arr


def subgraph_inputs(node):
  """Names a node reads, including outer names its subgraphs read."""
  names = [i for i in node.input if i]
  for att in node.attribute:
    graphs = [att.g] if att.type == onnx.AttributeProto.GRAPH else list(
        att.graphs)
    for g in graphs:
      inner = {t.name for t in g.initializer} | {i.name for i in g.input}
      for n in g.node:
        names += [i for i in subgraph_inputs(n) if i not in inner]
        inner |= set(n.output)
  return names


def topo_order(graph, env):
  """The graph's nodes in an order that runs (exports are not always
  sorted)."""
  ready = set(env) | {t.name for t in graph.initializer}
  pending = list(graph.node)
  order = []
  while pending:
    rest = []
    for n in pending:
      if all(i in ready for i in subgraph_inputs(n)):
        order.append(n)
        ready |= set(n.output)
      else:
        rest.append(n)
    if len(rest) == len(pending):
      raise RuntimeError('graph has a cycle or a missing input: ' +
                         rest[0].name)
    pending = rest
  return order


class Counter:

  def __init__(self, model, values):
    self.model = model
    self.values = values
    self.macs = 0
    self.nodes = 0
    self.unknown = set()

  # -- graph walk ---------------------------------------------------------
  def run_graph(self, graph, env, bound_inputs=None):
    env = dict(env)
    for init in graph.initializer:
      arr = numpy_helper.to_array(init)
      env[init.name] = maybe_keep(arr)
    if bound_inputs is not None:
      env.update(bound_inputs)
    for node in topo_order(graph, env):
      outs = self.run_node(node, env)
      for name, val in zip(node.output, outs):
        if name:
          env[name] = val
    return [env[o.name] for o in graph.output], env

  def run_node(self, node, env):
    self.nodes += 1
    ins = [env[i] if i else None for i in node.input]
    fn = getattr(self, 'op_' + node.op_type, None)
    if fn is None:
      self.unknown.add(node.op_type)
      raise RuntimeError('no rule for op ' + node.op_type)
    out = fn(node, ins, attrs(node), env)
    return out if isinstance(out, list) else [out]

  # -- elementwise --------------------------------------------------------
  def _elementwise(self, ins, f, dtype=None):
    ins = [i for i in ins if i is not None]
    if all(real(i) for i in ins):
      try:
        return maybe_keep(f(*ins))
      except (TypeError, ValueError, FloatingPointError):
        pass
    out_shape = np.broadcast_shapes(*[shape(i) for i in ins])
    return Sh(out_shape, dtype or ins[0].dtype)

  def _unary(name, f):  # pylint: disable=no-self-argument
    def op(self, node, ins, a, env):
      return self._elementwise(ins[:1], f)
    return op

  def _binary(name, f, dtype=None):  # pylint: disable=no-self-argument
    def op(self, node, ins, a, env):
      return self._elementwise(ins, f, dtype)
    return op

  op_Add = _binary('Add', np.add)
  op_Sub = _binary('Sub', np.subtract)
  op_Mul = _binary('Mul', np.multiply)
  op_Pow = _binary('Pow', np.power)
  op_Equal = _binary('Equal', np.equal, np.bool_)
  op_Greater = _binary('Greater', np.greater, np.bool_)
  op_GreaterOrEqual = _binary('GreaterOrEqual', np.greater_equal, np.bool_)
  op_Less = _binary('Less', np.less, np.bool_)
  op_LessOrEqual = _binary('LessOrEqual', np.less_equal, np.bool_)
  op_And = _binary('And', np.logical_and, np.bool_)
  op_Or = _binary('Or', np.logical_or, np.bool_)
  op_Not = _unary('Not', np.logical_not)
  op_Neg = _unary('Neg', np.negative)
  op_Relu = _unary('Relu', lambda x: np.maximum(x, 0))
  op_Sigmoid = _unary('Sigmoid', lambda x: 1 / (1 + np.exp(-x)))
  op_Sqrt = _unary('Sqrt', np.sqrt)
  op_Log = _unary('Log', np.log)
  op_Exp = _unary('Exp', np.exp)
  op_Tanh = _unary('Tanh', np.tanh)
  op_Abs = _unary('Abs', np.abs)
  op_Floor = _unary('Floor', np.floor)
  op_Ceil = _unary('Ceil', np.ceil)
  op_Identity = _unary('Identity', lambda x: x)
  op_Softmax = _unary('Softmax', lambda x: x)
  op_HardSigmoid = _unary('HardSigmoid', lambda x: x)
  op_LeakyRelu = _unary('LeakyRelu', lambda x: x)
  op_Erf = _unary('Erf', lambda x: x)

  def op_Div(self, node, ins, a, env):
    def div(x, y):
      if x.dtype.kind in 'iu' and y.dtype.kind in 'iu':
        return (x // y).astype(x.dtype)
      return x / y
    return self._elementwise(ins, div)

  def op_Max(self, node, ins, a, env):
    return self._elementwise(ins, lambda *x: np.maximum.reduce(
        np.broadcast_arrays(*x)))

  def op_Min(self, node, ins, a, env):
    return self._elementwise(ins, lambda *x: np.minimum.reduce(
        np.broadcast_arrays(*x)))

  def op_Clip(self, node, ins, a, env):
    return self._elementwise(ins[:1], lambda x: x)

  def op_Dropout(self, node, ins, a, env):
    return [ins[0], Sh(shape(ins[0]), np.bool_)]

  def op_Cast(self, node, ins, a, env):
    to = NP_OF[a['to']]
    x = ins[0]
    if real(x):
      return maybe_keep(x.astype(to))
    return Sh(x.shape, to)

  def op_BatchNormalization(self, node, ins, a, env):
    return as_sh(ins[0])

  # -- reductions ---------------------------------------------------------
  def _reduce(self, node, ins, a, f):
    x = ins[0]
    axes = a.get('axes')
    if axes is None and len(ins) > 1 and ins[1] is not None:
      axes = [int(v) for v in ins[1].ravel()]
    keep = a.get('keepdims', 1)
    r = len(shape(x))
    axes = list(range(r)) if not axes else [ax % r for ax in axes]
    if real(x):
      return maybe_keep(f(x, axis=tuple(axes), keepdims=bool(keep)))
    out = [1 if i in axes else d for i, d in enumerate(x.shape)
           if keep or i not in axes]
    return Sh(out, x.dtype)

  def op_ReduceMean(self, node, ins, a, env):
    return self._reduce(node, ins, a, np.mean)

  def op_ReduceMax(self, node, ins, a, env):
    return self._reduce(node, ins, a, np.max)

  def op_ReduceSum(self, node, ins, a, env):
    return self._reduce(node, ins, a, np.sum)

  # -- shape and data movement -------------------------------------------
  def op_Constant(self, node, ins, a, env):
    if 'value' in a:
      return maybe_keep(numpy_helper.to_array(a['value']))
    for k in ('value_float', 'value_int'):
      if k in a:
        return np.array(a[k], dtype=np.float32 if 'float' in k else np.int64)
    for k in ('value_floats', 'value_ints'):
      if k in a:
        return np.array(a[k], dtype=np.float32 if 'float' in k else np.int64)
    raise RuntimeError('Constant without a value')

  def op_ConstantOfShape(self, node, ins, a, env):
    dims = [int(d) for d in ins[0].ravel()]
    val = numpy_helper.to_array(a['value']) if 'value' in a else np.zeros(
        1, np.float32)
    return maybe_keep(np.full(dims, val.ravel()[0], dtype=val.dtype)) if \
        nelem(dims) <= SMALL else Sh(dims, val.dtype)

  def op_Shape(self, node, ins, a, env):
    s = np.array(shape(ins[0]), dtype=np.int64)
    start = a.get('start', 0)
    end = a.get('end', len(s))
    return s[start:end]

  def op_Size(self, node, ins, a, env):
    return np.array(nelem(shape(ins[0])), dtype=np.int64)

  def op_Gather(self, node, ins, a, env):
    x, idx = ins
    axis = a.get('axis', 0) % len(shape(x))
    if real(x) and real(idx):
      return maybe_keep(np.take(x, idx, axis=axis))
    s = shape(x)
    return Sh(s[:axis] + shape(idx) + s[axis + 1:], x.dtype)

  def _axes(self, a, ins):
    if 'axes' in a:
      return list(a['axes'])
    if len(ins) > 1 and ins[1] is not None:
      return [int(v) for v in ins[1].ravel()]
    return None

  def op_Unsqueeze(self, node, ins, a, env):
    x = ins[0]
    axes = self._axes(a, ins)
    r = len(shape(x)) + len(axes)
    axes = sorted(ax % r for ax in axes)
    s = list(shape(x))
    for ax in axes:
      s.insert(ax, 1)
    return x.reshape(s) if real(x) else Sh(s, x.dtype)

  def op_Squeeze(self, node, ins, a, env):
    x = ins[0]
    axes = self._axes(a, ins)
    s = shape(x)
    if axes is None:
      axes = [i for i, d in enumerate(s) if d == 1]
    axes = {ax % len(s) for ax in axes}
    out = [d for i, d in enumerate(s) if i not in axes]
    return x.reshape(out) if real(x) else Sh(out, x.dtype)

  def op_Concat(self, node, ins, a, env):
    ins = [i for i in ins if i is not None]
    axis = a['axis'] % len(shape(ins[0]))
    if all(real(i) for i in ins):
      return maybe_keep(np.concatenate(ins, axis=axis))
    s = list(shape(ins[0]))
    s[axis] = sum(shape(i)[axis] for i in ins)
    return Sh(s, ins[0].dtype)

  def op_Reshape(self, node, ins, a, env):
    x, target = ins
    target = [int(d) for d in target.ravel()]
    s = shape(x)
    out = [s[i] if d == 0 and not a.get('allowzero', 0) else d
           for i, d in enumerate(target)]
    if -1 in out:
      known = nelem([d for d in out if d != -1])
      out[out.index(-1)] = nelem(s) // known if known else 0
    assert nelem(out) == nelem(s), (node.name, s, target)
    return x.reshape(out) if real(x) else Sh(out, x.dtype)

  def op_Flatten(self, node, ins, a, env):
    x = ins[0]
    s = shape(x)
    axis = a.get('axis', 1) % (len(s) + 1) if s else 0
    out = [nelem(s[:axis]), nelem(s[axis:])]
    return x.reshape(out) if real(x) else Sh(out, x.dtype)

  def op_Transpose(self, node, ins, a, env):
    x = ins[0]
    perm = a.get('perm', list(reversed(range(len(shape(x))))))
    if real(x):
      return np.transpose(x, perm)
    return Sh([x.shape[p] for p in perm], x.dtype)

  def op_Slice(self, node, ins, a, env):
    x = ins[0]
    s = shape(x)
    if len(ins) == 1:  # opset < 10: attributes
      starts, ends = list(a['starts']), list(a['ends'])
      axes = list(a.get('axes', range(len(starts))))
      steps = [1] * len(starts)
    else:
      starts = [int(v) for v in ins[1].ravel()]
      ends = [int(v) for v in ins[2].ravel()]
      axes = ([int(v) for v in ins[3].ravel()] if len(ins) > 3 and
              ins[3] is not None else list(range(len(starts))))
      steps = ([int(v) for v in ins[4].ravel()] if len(ins) > 4 and
               ins[4] is not None else [1] * len(starts))
    sl = [slice(None)] * len(s)
    for st, en, ax, sp in zip(starts, ends, axes, steps):
      sl[ax % len(s)] = slice(st, en, sp)
    if real(x):
      return x[tuple(sl)]
    out = [len(range(*sl[i].indices(d))) for i, d in enumerate(s)]
    return Sh(out, x.dtype)

  def op_Split(self, node, ins, a, env):
    x = ins[0]
    s = shape(x)
    axis = a.get('axis', 0) % len(s)
    if len(ins) > 1 and ins[1] is not None:
      parts = [int(v) for v in ins[1].ravel()]
    elif 'split' in a:
      parts = list(a['split'])
    else:
      n = len(node.output)
      parts = [-(-s[axis] // n)] * n
      parts[-1] = s[axis] - parts[0] * (n - 1)
    if real(x):
      return [maybe_keep(v) for v in np.split(x, np.cumsum(parts)[:-1],
                                               axis=axis)]
    outs = []
    for p in parts:
      o = list(s)
      o[axis] = p
      outs.append(Sh(o, x.dtype))
    return outs

  def op_Pad(self, node, ins, a, env):
    x = ins[0]
    pads = ([int(v) for v in ins[1].ravel()] if len(ins) > 1 else
            list(a['pads']))
    r = len(shape(x))
    axes = (list(range(r)) if len(ins) < 4 or ins[3] is None else
            [int(v) % r for v in ins[3].ravel()])
    out = list(shape(x))
    for k, ax in enumerate(axes):
      out[ax] += pads[k] + pads[k + len(axes)]
    return Sh(out, x.dtype)

  # -- compute ------------------------------------------------------------
  def _conv_out(self, s, w, a, transpose=False):
    k = list(a.get('kernel_shape', w[2:]))
    n = len(k)
    strides, dil, pads, auto = _window(a, n)
    out = []
    for i in range(n):
      x = s[2 + i]
      ek = (k[i] - 1) * dil[i] + 1
      if transpose:
        outpad = list(a.get('output_padding', [0] * n))
        if 'output_shape' in a:
          out.append(a['output_shape'][-n + i])
        elif auto in ('SAME_UPPER', 'SAME_LOWER'):
          out.append(x * strides[i])
        else:
          out.append(strides[i] * (x - 1) + outpad[i] + ek - pads[i] -
                     pads[i + n])
      elif auto in ('SAME_UPPER', 'SAME_LOWER'):
        out.append(-(-x // strides[i]))
      elif auto == 'VALID':
        out.append((x - ek) // strides[i] + 1)
      else:
        out.append((x + pads[i] + pads[i + n] - ek) // strides[i] + 1)
    return out, k

  def op_Conv(self, node, ins, a, env):
    x, w = ins[0], ins[1]
    s, ws = shape(x), shape(w)
    sp, k = self._conv_out(s, ws, a)
    out = [s[0], ws[0]] + sp
    # N * C_out * out spatial * (C_in / group) * kernel
    self.macs += nelem(out) * ws[1] * nelem(k)
    return Sh(out, np.float32 if x.dtype.kind in 'iu' else x.dtype)

  def op_ConvInteger(self, node, ins, a, env):
    out = self.op_Conv(node, ins, a, env)
    return Sh(out.shape, np.int32)

  def op_ConvTranspose(self, node, ins, a, env):
    x, w = ins[0], ins[1]
    s, ws = shape(x), shape(w)
    g = a.get('group', 1)
    sp, k = self._conv_out(s, ws, a, transpose=True)
    out = [s[0], ws[1] * g] + sp
    # scatter form: N * C_in * in spatial * (C_out / group) * kernel
    self.macs += nelem(s) * ws[1] * nelem(k)
    return Sh(out, x.dtype)

  def op_MatMul(self, node, ins, a, env):
    sa, sb = list(shape(ins[0])), list(shape(ins[1]))
    va = sa if len(sa) > 1 else [1] + sa
    vb = sb if len(sb) > 1 else sb + [1]
    batch = np.broadcast_shapes(tuple(va[:-2]), tuple(vb[:-2]))
    m, kk, n = va[-2], va[-1], vb[-1]
    self.macs += nelem(batch) * m * n * kk
    out = list(batch) + ([m] if len(sa) > 1 else []) + (
        [n] if len(sb) > 1 else [])
    return Sh(out, ins[0].dtype)

  def op_Gemm(self, node, ins, a, env):
    sa, sb = shape(ins[0]), shape(ins[1])
    m, kk = (sa[1], sa[0]) if a.get('transA', 0) else sa
    n = sb[0] if a.get('transB', 0) else sb[1]
    self.macs += m * n * kk
    return Sh([m, n], ins[0].dtype)

  def _rnn(self, ins, a, gates):
    x, w = ins[0], ins[1]
    t, b, i_size = shape(x) if a.get('layout', 0) == 0 else (
        shape(x)[1], shape(x)[0], shape(x)[2])
    d = shape(w)[0]
    h = a['hidden_size']
    self.macs += d * t * b * gates * h * (i_size + h)
    y = [t, d, b, h] if a.get('layout', 0) == 0 else [b, t, d, h]
    state = [d, b, h] if a.get('layout', 0) == 0 else [b, d, h]
    return y, state

  def op_LSTM(self, node, ins, a, env):
    y, st = self._rnn(ins, a, 4)
    dt = ins[0].dtype
    return [Sh(y, dt), Sh(st, dt), Sh(st, dt)]

  def op_GRU(self, node, ins, a, env):
    y, st = self._rnn(ins, a, 3)
    return [Sh(y, ins[0].dtype), Sh(st, ins[0].dtype)]

  def _pool(self, node, ins, a, env):
    x = ins[0]
    s = shape(x)
    k = a['kernel_shape']
    n = len(k)
    strides, dil, pads, auto = _window(a, n)
    ceil = a.get('ceil_mode', 0)
    out = [s[0], s[1]]
    for i in range(n):
      ek = (k[i] - 1) * dil[i] + 1
      if auto in ('SAME_UPPER', 'SAME_LOWER'):
        out.append(-(-s[2 + i] // strides[i]))
        continue
      num = s[2 + i] + pads[i] + pads[i + n] - ek
      o = (-(-num // strides[i]) if ceil else num // strides[i]) + 1
      if ceil and (o - 1) * strides[i] >= s[2 + i] + pads[i]:
        o -= 1
      out.append(o)
    return Sh(out, x.dtype)

  op_MaxPool = _pool
  op_AveragePool = _pool

  def op_GlobalAveragePool(self, node, ins, a, env):
    s = shape(ins[0])
    return Sh(list(s[:2]) + [1] * (len(s) - 2), ins[0].dtype)

  op_GlobalMaxPool = op_GlobalAveragePool

  def op_Resize(self, node, ins, a, env):
    x = ins[0]
    s = shape(x)
    scales = ins[2] if len(ins) > 2 and ins[2] is not None else None
    sizes = ins[3] if len(ins) > 3 and ins[3] is not None else None
    if sizes is not None and sizes.size:
      out = [int(v) for v in sizes.ravel()]
    else:
      out = [int(np.floor(d * float(f))) for d, f in zip(s, scales.ravel())]
    return Sh(out, x.dtype)

  def op_DynamicQuantizeLinear(self, node, ins, a, env):
    return [Sh(shape(ins[0]), np.uint8), np.array(1.0, np.float32),
            np.array(0, np.uint8)]

  def op_If(self, node, ins, a, env):
    cond = ins[0]
    if real(cond):
      branch = a['then_branch'] if bool(np.asarray(cond).ravel()[0]) else \
          a['else_branch']
      outs, _ = self.run_graph(branch, env)
      return outs
    then_outs, _ = self.run_graph(a['then_branch'], env)
    self.run_graph(a['else_branch'], env)
    return [as_sh(o) for o in then_outs]


def count_params(model):
  """Elements of the model's weights (see the module docstring)."""
  inits, consts, uses = [], [], {}

  def walk(graph):
    for t in graph.initializer:
      inits.append(t)
    for node in graph.node:
      for k, name in enumerate(node.input):
        uses.setdefault(name, []).append((node.op_type, k))
      if node.op_type == 'Constant':
        for att in node.attribute:
          if att.name == 'value':
            consts.append((node.output[0], att.t))
      for att in node.attribute:
        if att.type == onnx.AttributeProto.GRAPH:
          walk(att.g)
        for g in att.graphs:
          walk(g)

  walk(model.graph)

  def is_weight_type(t):
    return t.data_type in FLOAT or t.data_type in SMALL_INT

  def metadata_only(name):
    u = uses.get(name, [])
    return u and all(k in QMETA.get(op, ()) for op, k in u)

  def elems(t):
    return nelem(list(t.dims))

  total = 0
  for t in inits:
    if is_weight_type(t) and not metadata_only(t.name):
      total += elems(t)
  init_elems = sum(elems(t) for t in inits if is_weight_type(t))
  const_elems = sum(elems(t) for _, t in consts if is_weight_type(t))
  if const_elems > init_elems:
    for name, t in consts:
      if is_weight_type(t) and elems(t) > 1 and not metadata_only(name):
        total += elems(t)
  return total


def main(argv):
  path = argv[1]
  dims, per_input, values = {}, {}, {}
  i = 2
  while i < len(argv):
    flag, arg = argv[i], argv[i + 1]
    name, val = arg.split('=', 1)
    if flag == '--dim':
      dims[name] = int(val)
    elif flag == '--input':
      per_input[name] = val.split('x')
    elif flag == '--value':
      values[name] = val
    else:
      raise SystemExit('unknown flag ' + flag)
    i += 2
  model = onnx.load(path)
  init_names = {t.name for t in model.graph.initializer}
  bound = {}
  for inp in model.graph.input:
    if inp.name in init_names:
      continue
    tt = inp.type.tensor_type
    dt = NP_OF[tt.elem_type]
    if inp.name in values:
      bound[inp.name] = np.array(
          [float(v) for v in values[inp.name].split(',')]).astype(dt)
      if len(tt.shape.dim) == 0:
        bound[inp.name] = bound[inp.name].reshape(())
      continue
    s = []
    for k, d in enumerate(tt.shape.dim):
      given = per_input.get(inp.name)
      if given and given[k] != '?':
        s.append(int(given[k]))
      elif d.HasField('dim_value'):
        s.append(d.dim_value)
      elif d.dim_param in dims:
        s.append(dims[d.dim_param])
      else:
        raise SystemExit('unbound dim %d of input %s' % (k, inp.name))
    bound[inp.name] = Sh(s, dt)
  counter = Counter(model, values)
  with np.errstate(all='ignore'):
    counter.run_graph(model.graph, {}, bound)
  print(json.dumps({'params': count_params(model), 'macs': counter.macs,
                    'nodes': counter.nodes,
                    'unknown': sorted(counter.unknown)}))


if __name__ == '__main__':
  main(sys.argv)
