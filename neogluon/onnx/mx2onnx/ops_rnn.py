"""ONNX converter of MXNet's fused ``RNN`` operator: one ONNX ``LSTM``/``GRU``/``RNN`` node
per layer.

The flat cuDNN-layout parameter vector (``operator/rnn.py``'s :func:`param_layout`) must be
a constant (the Gluon layers' ``_rnn_param_concat`` of their parameters is folded before
this runs); it is cut into ONNX's W, R and B per layer, the gates reordered (MXNet's LSTM
``i, f, g, o`` to ONNX's ``i, o, f, c``; GRU ``r, z, n`` to ``z, r, h`` with
``linear_before_reset``). A begin state of zeros is left out (ONNX's default);
``use_sequence_length``'s lengths become ONNX's ``sequence_lens``.

An LSTM with ``projection_size`` (LSTMP) has no ONNX operator: each layer and direction is a
``Scan`` whose body is one step in MXNet's gate order (``i, f, g, o``) followed by the
projection, ``h = (o * tanh(c)) @ h2r_weight.T``; the input products of all steps are
computed before it in one MatMul. With lengths, the steps past a sequence's end keep the
state and output zeros, and the reverse direction starts at the sequence's end (its steps
are gathered in reverse within each length, as neogluon's time-step loop does).
"""

import numpy as np

from ...operator.rnn import GATES, param_layout
from .._deps import onnx_module
from .graph import converter, value_info
from .ops_control_flow import _into

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
    flat = c.value(1)
    if flat is None:
        raise c.fail("the parameters must be constants (the model's parameters), not computed in the graph")
    layout = param_layout(mode, layers, hidden, c.shape(0)[2], a["bidirectional"], a["projection_size"])
    tensors = {(s.layer, s.direction, s.kind): flat[s.offset:s.offset + int(np.prod(s.shape))].reshape(s.shape)
               for s in layout}
    if a["projection_size"]:
        return _convert_lstmp(c, tensors, layers, dirs, hidden, a["projection_size"])
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


# ----------------------------------------------------------------------------- LSTM with projection
def _steps_and_lengths(c, x):
    """(mask (T, N, 1) bool, reverse index (T, N) int64) of the lengths input, computed in the graph."""
    lens = c.cast(c.input(4), np.int64)                                      # (N,)
    steps = c.squeeze(c.slice(c.emit("Shape", [x]), [0], [1], [0]), [0])
    t = c.emit("Range", [c.const(np.array(0, np.int64)), steps, c.const(np.array(1, np.int64))])
    t = c.unsqueeze(t, [1])                                                  # (T, 1)
    lens = c.unsqueeze(lens, [0])                                            # (1, N)
    mask = c.unsqueeze(c.emit("Less", [t, lens]), [2])
    rev = c.emit("Sub", [c.emit("Sub", [lens, c.const(np.array(1, np.int64))]), t])
    idx = c.emit("Where", [c.emit("Less", [rev, c.const(np.array(0, np.int64))]), t, rev])
    return mask, idx


def _gather_steps(c, x, idx):
    """x[idx[t, n], n, :] (the steps of each sequence reversed within its length)."""
    full = c.emit("Expand", [c.unsqueeze(idx, [2]), c.emit("Shape", [x])])
    return c.emit("GatherElements", [x, full], axis=0)


def _lstmp_direction(c, gx, h0, c0, w_hh, w_hr, mask, hidden, proj, reverse):
    """One Scan over the steps: states (h (N, P), c (N, H)), scan inputs the input products
    (and the mask), scan output the step's h (zeros past a sequence's end)."""
    dtype = c.dtype(0)
    nodes, formals = [], []
    batch = None if c.dynamic else c.shape(0)[1]

    def formal(hint, shape, dt=dtype):
        name = c.fresh(hint)
        formals.append(value_info(name, dt, list(shape)))
        return name
    h, cell = formal("h", (batch, proj)), formal("c", (batch, hidden))
    g_t = formal("gx", (batch, 4 * hidden))
    m_t = formal("mask", (batch, 1), np.bool_) if mask is not None else None
    w_hh, w_hr = c.const(w_hh.T.copy(), "h2h_weight_t"), c.const(w_hr.T.copy(), "h2r_weight_t")
    zero = c.const(np.array(0, dtype), "zero")
    with _into(c, nodes):
        gates = c.emit("Add", [g_t, c.emit("MatMul", [h, w_hh])])
        i, f, g, o = (c.slice(gates, [k * hidden], [(k + 1) * hidden], [1]) for k in range(4))
        c_new = c.emit("Add", [c.emit("Mul", [c.emit("Sigmoid", [f]), cell]),
                               c.emit("Mul", [c.emit("Sigmoid", [i]), c.emit("Tanh", [g])])])
        h_new = c.emit("MatMul", [c.emit("Mul", [c.emit("Sigmoid", [o]), c.emit("Tanh", [c_new])]), w_hr])
        y = h_new
        if mask is not None:   # past a sequence's end: the state stays, the output is zero
            h_new, c_new, y = (c.emit("Where", [m_t, h_new, h]), c.emit("Where", [m_t, c_new, cell]),
                               c.emit("Where", [m_t, h_new, zero]))
        outs = [c.emit("Identity", [v], out=c.fresh(hint)) for v, hint in ((h_new, "h_out"), (c_new, "c_out"),
                                                                             (y, "y_out"))]
    shapes = [(batch, proj), (batch, hidden), (batch, proj)]
    graph = onnx_module().helper.make_graph(nodes, c.fresh("lstmp_body"), formals,
                                            [value_info(n, dtype, list(sh)) for n, sh in zip(outs, shapes)])
    scans = [gx] + ([mask] if mask is not None else [])
    extra = {}
    if reverse and mask is None:
        extra = dict(scan_input_directions=[1] * len(scans), scan_output_directions=[1])
    return c.emit("Scan", [h0, c0] + scans, n_out=3, num_scan_inputs=len(scans), body=graph, **extra)


def _convert_lstmp(c, tensors, layers, dirs, hidden, proj):
    x, finals_h, finals_c = c.input(0), [], []
    mask = idx = None
    if c.attrs["use_sequence_length"]:
        mask, idx = _steps_and_lengths(c, x)
    for layer in range(layers):
        ys = []
        for d in range(dirs):
            k = layer * dirs + d
            w = {kind: tensors[(layer, d, kind)] for kind in ("i2h_weight", "h2h_weight", "h2r_weight",
                                                              "i2h_bias", "h2h_bias")}
            gx = c.emit("Add", [c.emit("MatMul", [x, c.const(w["i2h_weight"].T.copy(), "i2h_weight_t")]),
                                c.const(w["i2h_bias"] + w["h2h_bias"], "bias")])
            if d == 1 and idx is not None:
                gx = _gather_steps(c, gx, idx)
            h0 = c.squeeze(c.slice(c.input(2), [k], [k + 1], [0]), [0])
            c0 = c.squeeze(c.slice(c.input(3), [k], [k + 1], [0]), [0])
            h_t, c_t, y = _lstmp_direction(c, gx, h0, c0, w["h2h_weight"], w["h2r_weight"], mask, hidden, proj,
                                           reverse=d == 1)
            if d == 1 and idx is not None:
                y = _gather_steps(c, y, idx)
            ys.append(y)
            finals_h.append(c.unsqueeze(h_t, [0]))
            finals_c.append(c.unsqueeze(c_t, [0]))
        last = layer == layers - 1
        x = c.emit("Concat" if dirs == 2 else "Identity", ys, out=c.out() if last else None,
                   **({"axis": 2} if dirs == 2 else {}))
    if c.attrs["state_outputs"]:
        for j, parts in ((1, finals_h), (2, finals_c)):
            c.emit("Concat", parts, out=c.out(j), axis=0)
