#!/usr/bin/python3
"""Writes bench/model_gen.cc's synthetic chain (BuildSyntheticGraph) as a
file, for whole-process scaling runs of the analyze CLI.

Blocks of MatMul (own external [64,64] float weight, in a data file that
does not exist) -> Add (bias) -> Relu -> Mul (scale) -> Add (residual),
chained; input "x" float [batch, 64]; opset 17. Node and tensor names as
bench/onnx_builder.h makes them.

  /usr/bin/python3 bench/synthetic_chain.py NODES OUT.onnx
"""
import sys

import onnx
from onnx import TensorProto, helper


def build(num_nodes):
    width = 64
    nodes, inits = [], []
    inits.append(helper.make_tensor("bias", TensorProto.FLOAT, [width],
                                    [0.5] * width))
    inits.append(helper.make_tensor("scale", TensorProto.FLOAT, [], [0.9]))
    count = [0]

    def node(op, inputs):
        count[0] += 1
        name = f"{op}_{count[0]}"
        nodes.append(helper.make_node(op, inputs, [name + "_out"], name=name))
        return name + "_out"

    h, offset = "x", 0
    length = width * width * 4
    for i in range(num_nodes // 5):
        w = f"blocks.{i}.weight"
        t = TensorProto(name=w, data_type=TensorProto.FLOAT,
                        dims=[width, width],
                        data_location=TensorProto.EXTERNAL)
        for k, v in (("location", "synthetic.onnx.data"),
                     ("offset", str(offset)), ("length", str(length))):
            e = t.external_data.add()
            e.key, e.value = k, v
        offset += (length + 4095) // 4096 * 4096
        inits.append(t)
        y = node("MatMul", [h, w])
        y = node("Relu", [node("Add", [y, "bias"])])
        h = node("Add", [h, node("Mul", [y, "scale"])])
    graph = helper.make_graph(
        nodes, f"synthetic_{num_nodes}",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       ["batch", width])],
        [helper.make_tensor_value_info(h, TensorProto.FLOAT, None)],
        initializer=inits)
    return helper.make_model(graph,
                             opset_imports=[helper.make_opsetid("", 17)])


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    model = build(int(sys.argv[1]))
    with open(sys.argv[2], "wb") as f:
        f.write(model.SerializeToString())


if __name__ == "__main__":
    main()
