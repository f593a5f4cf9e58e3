"""ONNX converter of MXNet's fused ``RNN`` operator: one ONNX ``LSTM``/``GRU``/``RNN`` node
per layer.

The flat cuDNN-layout parameter vector (``operator/rnn.py``'s :func:`param_layout`) must be
a constant (the Gluon layers' ``_rnn_param_concat`` of their parameters is folded before
this runs); it is cut into ONNX's W, R and B per layer, the gates reordered (MXNet's LSTM
``i, f, g, o`` to ONNX's ``i, o, f, c``; GRU ``r, z, n`` to ``z, r, h`` with
``linear_before_reset``). A begin state of zeros is left out (ONNX's default);
``use_sequence_length``'s lengths become ONNX's ``sequence_lens``.
"""
import numpy as np

from ...operator.rnn import GATES, param_layout
from .graph import converter

__all__ = []

_ONNX_GATES = {"lstm": [0, 3, 1, 2], "gru": [1, 0, 2], "rnn_tanh": [0], "rnn_relu": [0]}
_ONNX_OP = {"lstm": "LSTM", "gru": "GRU", "rnn_tanh": "RNN", "rnn_relu": "RNN"}


def _reorder(mat, mode, hidden):
    """Rows of a (G*H, ...) matrix or (G*H,) vector in ONNX's gate order."""
    blocks = [mat[g * hidden:(g + 1) * hidden] for g in range(GATES[mode])]
    return np.concatenate([blocks[g] for g in _ONNX_GATES[mode]], axis=0)


def _layer_weights(tensors, mode, layer, dirs, hidden):
    w = np.stack([_reorder(tensors[(layer, d, "i2h_weight")], mode, hidden) for d in range(dirs)])
    r = np.stack([_reorder(tensors[(layer, d, "h2h_weight")], mode, hidden) for d in range(dirs)])
    b = np.stack([np.concatenate([_reorder(tensors[(layer, d, "i2h_bias")], mode, hidden),
                                  _reorder(tensors[(layer, d, "h2h_bias")], mode, hidden)]) for d in range(dirs)])
    return w, r, b


def _initial_state(c, i, layer, dirs):
    """ONNX's initial state of one layer: '' for zeros, else the layer's rows of input ``i``."""
    value = c.value(i)
    if value is not None and not value.any():
        return ""
    return c.slice(c.input(i), [layer * dirs], [(layer + 1) * dirs], [0])


@converter("RNN")
def convert_rnn(c):
    a = c.attrs
    mode, layers, hidden = a["mode"], a["num_layers"], a["state_size"]
    dirs = 2 if a["bidirectional"] else 1
    if a["projection_size"]:
        raise c.fail("an LSTM with projection_size is not exported")
    flat = c.value(1)
    if flat is None:
        raise c.fail("the parameters must be constants (the model's parameters), not computed in the graph")
    layout = param_layout(mode, layers, hidden, c.shape(0)[2], a["bidirectional"])
    tensors = {(s.layer, s.direction, s.kind): flat[s.offset:s.offset + int(np.prod(s.shape))].reshape(s.shape)
               for s in layout}
    extra = {"hidden_size": hidden, "direction": "bidirectional" if dirs == 2 else "forward"}
    if mode == "gru":
        extra["linear_before_reset"] = 1
    if mode.startswith("rnn_"):
        extra["activations"] = ["Tanh" if mode == "rnn_tanh" else "Relu"] * dirs
    x, finals = c.input(0), []
    lens = ""
    if a["use_sequence_length"]:   # ONNX's sequence_lens: steps past a sequence's length give zeros
        lens = c.cast(c.input(4 if mode == "lstm" else 3), np.int32)
    for layer in range(layers):
        w, r, b = _layer_weights(tensors, mode, layer, dirs, hidden)
        ins = [x, c.const(w, "W"), c.const(r, "R"), c.const(b, "B"), lens, _initial_state(c, 2, layer, dirs)]
        if mode == "lstm":
            ins.append(_initial_state(c, 3, layer, dirs))
        n_out = 3 if mode == "lstm" else 2
        outs = c.emit(_ONNX_OP[mode], ins, n_out=n_out, **extra)
        y = outs[0]  # (T, dirs, N, H)
        last = layer == layers - 1
        if dirs == 1:
            x = c.squeeze(y, [1], out=c.out() if last else None)
        else:
            t = c.emit("Transpose", [y], perm=[0, 2, 1, 3])
            x = c.emit("Reshape", [t, c.ints([0, 0, -1])], out=c.out() if last else None)
        finals.append(outs[1:])
    if a["state_outputs"]:
        for j in range(1, c.node.num_visible_outputs()):
            parts = [f[j - 1] for f in finals]
            if len(parts) == 1:
                c.emit("Identity", parts, out=c.out(j))
            else:
                c.emit("Concat", parts, out=c.out(j), axis=0)
