"""The fused RNN operator beyond the shared fixtures.

Expected values come from MXNet 1.9.1 (``tools/make_extra_fixtures_rnn.py`` writes them
to ``tests/fixtures/extra/rnn``): LSTM projection (uni- and bidirectional, gradients from
MXNet's unrolled LSTMPCell stack), sequence lengths and state clipping (which MXNet's
CPU kernel ignores), the flat parameter layout against Gluon's named parameters, and
shape inference. The cuDNN semantics (lengths honoured, cell clipped) and the agreement
of torch's fused kernels with the time-step loop are checked on torch tensors directly.
"""
import itertools
import json
import os

import numpy as np
import pytest
import torch

import neogluon as mx
from neogluon.base import MXNetError
from neogluon.operator import registry
from neogluon.operator.rnn import pack_params, param_layout, param_size, rnn_forward, unpack_params

EXTRA = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "rnn")
OP_CASES = ["lstm_proj_2layer", "lstm_proj_bidir", "lstm_seqlen_bidir", "gru_seqlen_bidir_2layer",
            "lstm_clip_nan", "rnn_relu_3layer", "rnn_tanh_dropout_predict"]
GLUON_CASES = ["lstm_bidir", "gru_bidir"]
INFER = json.load(open(os.path.join(EXTRA, "infer.json")))
RTOL, ATOL = 1e-4, 1e-5


def load(name):
    """A recorded case: arrays, with the JSON strings (attrs, inputs) as str."""
    rec = dict(np.load(os.path.join(EXTRA, name + ".npz")))
    return {k: str(v) if v.dtype.kind == "U" else v for k, v in rec.items()}


def close(actual, expected, what):
    a = actual.asnumpy() if hasattr(actual, "asnumpy") else np.asarray(actual)
    assert a.shape == expected.shape and a.dtype == expected.dtype, (what, a.shape, a.dtype, expected.shape)
    np.testing.assert_allclose(a, expected, rtol=RTOL, atol=ATOL, err_msg=what)


def run_case(rec, train=False):
    """mx.nd.RNN on a recorded case's inputs; returns (outputs, input NDArrays)."""
    names = json.loads(rec["inputs"])
    arrays = {n: mx.nd.array(rec["in:" + n], dtype=rec["in:" + n].dtype) for n in names}
    if not train:
        return mx.nd.RNN(*[arrays[n] for n in names], **json.loads(rec["attrs"])), arrays
    for n in names:
        if "grad:" + n in rec:
            arrays[n].attach_grad()
    with mx.autograd.record(train_mode=True):
        outs = mx.nd.RNN(*[arrays[n] for n in names], **json.loads(rec["attrs"]))
    return outs, arrays


# ----------------------------------------------------------------------------- against MXNet
@pytest.mark.parametrize("case", OP_CASES)
def test_outputs_match_mxnet(case):
    rec = load(case)
    with mx.autograd.predict_mode():
        outs, _ = run_case(rec)
    assert len(outs) == len([k for k in rec if k.startswith("out:")])
    for i, o in enumerate(outs):
        close(o, rec["out:%d" % i], "%s output %d" % (case, i))


@pytest.mark.parametrize("case", [c for c in OP_CASES if "grad:data" in load(c)])
def test_gradients_match_mxnet(case):
    rec = load(case)
    outs, arrays = run_case(rec, train=True)
    for i, o in enumerate(outs):
        close(o, rec["out:%d" % i], "%s train output %d" % (case, i))
    mx.autograd.backward(outs, [mx.nd.array(rec["head:%d" % i]) for i in range(len(outs))])
    for name, arr in arrays.items():
        if "grad:" + name in rec:
            close(arr.grad, rec["grad:" + name], "%s gradient of %s" % (case, name))


def test_dropout_only_in_train_mode():
    rec = load("rnn_tanh_dropout_predict")
    outs, _ = run_case(rec, train=True)
    assert not np.allclose(outs[0].asnumpy(), rec["out:0"]), "p=0.5 between 3 layers changed nothing in training"
    with mx.autograd.predict_mode():
        again, _ = run_case(rec)
    close(again[0], rec["out:0"], "predict output after a train pass")


@pytest.mark.parametrize("case", GLUON_CASES)
def test_flat_layout_matches_gluon(case):
    """Packing Gluon's named parameters with param_layout reproduces Gluon's fused layer."""
    rec = load("gluon_" + case)
    named = {k[6:]: v for k, v in rec.items() if k.startswith("param:")}
    mode = "lstm" if case.startswith("lstm") else "gru"
    layers = 1 + max(int(k[1]) for k in named)
    bidir = any(k.startswith("r") for k in named)
    layout = param_layout(mode, layers, named["l0_h2h_weight"].shape[1], rec["in:data"].shape[2], bidir)
    tensors = {(int(k[1]), "lr".index(k[0]), k[3:]): torch.tensor(v) for k, v in named.items()}
    assert set(tensors) == {(s.layer, s.direction, s.kind) for s in layout}
    flat = pack_params(tensors, layout)
    for key, view in unpack_params(flat, layout).items():
        assert torch.equal(view, tensors[key]), key
    states = [mx.nd.array(rec["in:state%d" % i]) for i in range(2 if mode == "lstm" else 1)]
    hidden = named["l0_h2h_weight"].shape[1]
    outs = mx.nd.RNN(mx.nd.array(rec["in:data"]), mx.nd.array(flat.numpy()), *states, mode=mode,
                     state_size=hidden, num_layers=layers, bidirectional=bidir, state_outputs=True)
    for i, o in enumerate(outs):
        close(o, rec["out:%d" % i], "%s output %d" % (case, i))


@pytest.mark.parametrize("case", ["lstm_proj_2layer", "lstm_proj_bidir"])
def test_projection_layout_matches_gluon_names(case):
    rec = load(case)
    attrs = json.loads(rec["attrs"])
    layout = param_layout("lstm", attrs["num_layers"], attrs["state_size"], rec["in:data"].shape[2],
                          attrs["bidirectional"], attrs["projection_size"])
    views = unpack_params(torch.tensor(rec["in:parameters"]), layout)
    named = {k[6:]: v for k, v in rec.items() if k.startswith("param:")}
    assert len(named) == len(views)
    for (layer, d, kind), view in views.items():
        np.testing.assert_array_equal(view.numpy(), named["%s%d_%s" % ("lr"[d], layer, kind)])


@pytest.mark.parametrize("row", INFER, ids=lambda r: "-".join("%s=%s" % kv for kv in sorted(r["attrs"].items())))
def test_infer_args_and_outputs_match_mxnet(row):
    op = registry.get("RNN")
    attrs = op.parse_attrs(row["attrs"])
    names = op.input_names(attrs)
    assert list(names) == [n for n, _ in row["shapes"]]
    shapes = op.infer_args(attrs, [tuple(row["data"])] + [None] * (len(names) - 1))
    assert [[n, list(s)] for n, s in zip(names, shapes)] == row["shapes"]
    assert op.output_names(attrs) == [o.split("_", 1)[1] for o in row["outputs"]]
    assert op.num_outputs(attrs) == len(row["outputs"])
    assert [list(s) for s in op.infer_shape_fn(attrs, shapes)] == row["out_shapes"]
    a = row["attrs"]
    assert param_size(a["mode"], a["num_layers"], a["state_size"], row["data"][2], a["bidirectional"],
                      a.get("projection_size")) == row["shapes"][1][1][0]


def test_infer_args_keeps_known_shapes():
    op = registry.get("RNN")
    attrs = op.parse_attrs(dict(mode="gru", state_size=3, num_layers=1))
    assert op.infer_args(attrs, [None, None, (1, 2, 3)]) == [None, None, (1, 2, 3)]
    assert op.infer_args(attrs, [(4, 2, 5), None, (1, 2, 3)]) == [(4, 2, 5), (90,), (1, 2, 3)]


def test_rnn_param_concat_builds_the_flat_vector():
    """Gluon's fused layers join their reshaped parameters with _rnn_param_concat(dim=0)."""
    rec = load("gluon_gru_bidir")
    named = {k[6:]: v for k, v in rec.items() if k.startswith("param:")}
    layout = param_layout("gru", 2, 3, 4, True)
    parts = [mx.nd.array(named["%s%d_%s" % ("lr"[s.direction], s.layer, s.kind)]).reshape(-1) for s in layout]
    for x in parts:
        x.attach_grad()
    with mx.autograd.record():
        flat = mx.nd._internal._rnn_param_concat(*parts, dim=0)
    flat.backward(mx.nd.ones(flat.shape))
    tensors = {(s.layer, s.direction, s.kind): torch.tensor(named["%s%d_%s" % ("lr"[s.direction], s.layer, s.kind)])
               for s in layout}
    np.testing.assert_array_equal(flat.asnumpy(), pack_params(tensors, layout).numpy())
    assert all((x.grad.asnumpy() == 1).all() for x in parts)


# ----------------------------------------------------------------------------- user errors
def _lstm_inputs(params=176, state=(1, 3, 4), cell=(1, 3, 4)):
    return [mx.nd.ones((4, 3, 5)), mx.nd.ones((params,)), mx.nd.zeros(state), mx.nd.zeros(cell)]


@pytest.mark.parametrize("inputs, kwargs, words", [
    (_lstm_inputs(params=150), {}, ["parameters", "(150,)", "(176,)"]),
    (_lstm_inputs(state=(1, 2, 4)), {}, ["state", "(1, 2, 4)", "(1, 3, 4)"]),
    (_lstm_inputs(cell=(2, 3, 4)), {}, ["state_cell", "(2, 3, 4)"]),
    (_lstm_inputs(), dict(lstm_state_clip_min=-1.0), ["lstm_state_clip_max"]),
    (_lstm_inputs(params=192), dict(projection_size=6), ["projection_size"]),
    (_lstm_inputs() + [mx.nd.array([1, 2])], dict(use_sequence_length=True), ["sequence_length", "(2,)"]),
])
def test_user_errors_name_the_argument(inputs, kwargs, words):
    with pytest.raises(MXNetError) as err:
        mx.nd.RNN(*inputs, mode="lstm", state_size=4, num_layers=1, **kwargs)
    for w in words:
        assert w in str(err.value)


def test_state_outputs_false_gives_one_array():
    x, _, h, _ = _lstm_inputs()
    p = mx.nd.ones((param_size("gru", 1, 4, 5),))
    out = mx.nd.RNN(x, p, h, mode="gru", state_size=4, num_layers=1)
    assert isinstance(out, mx.nd.NDArray) and out.shape == (4, 3, 4)


def test_keyword_inputs_skip_state_cell():
    """gru has no state_cell: sequence_length given by keyword is the fourth input."""
    x, _, h, _ = _lstm_inputs()
    p = mx.nd.array(np.linspace(-0.5, 0.5, param_size("gru", 1, 4, 5)))
    attrs = dict(mode="gru", state_size=4, num_layers=1, state_outputs=True)
    by_keyword = mx.nd.RNN(data=x, parameters=p, state=h, sequence_length=mx.nd.array([1, 2, 3]),
                           use_sequence_length=True, **attrs)
    plain = mx.nd.RNN(x, p, h, **attrs)
    for a, b in zip(by_keyword, plain):
        close(a, b.asnumpy(), "gru with sequence_length by keyword")


# ----------------------------------------------------------------------------- cuDNN semantics, fused vs loop
def _random_inputs(mode, layers, hidden, bidir, proj=None, steps=5, batch=3, width=4, seed=0):
    g = torch.Generator().manual_seed(seed)
    dirs = 2 if bidir else 1
    rand = lambda *s: (torch.rand(*s, generator=g, dtype=torch.float64) - 0.5).requires_grad_()
    n = param_size(mode, layers, hidden, width, bidir, proj)
    cell = rand(layers * dirs, batch, hidden) if mode == "lstm" else None
    return [rand(steps, batch, width), rand(n), rand(layers * dirs, batch, proj or hidden), cell]


CONFIGS = [(m, layers, bidir, proj) for m in ("lstm", "gru", "rnn_tanh", "rnn_relu")
           for layers, bidir in itertools.product((1, 2), (False, True)) for proj in (None, 2)
           if proj is None or m == "lstm"]


def _forward_and_grads(inputs, lengths, fused, **attrs):
    out, finals = rnn_forward(*inputs, lengths, fused=fused, **attrs)
    heads = [torch.cos(torch.arange(t.numel(), dtype=t.dtype)).view(t.shape) for t in [out] + finals]
    live = [t for t in inputs if t is not None]
    grads = torch.autograd.grad([out] + finals, live, heads)
    return [out] + finals, grads


@pytest.mark.parametrize("mode, layers, bidir, proj", CONFIGS)
@pytest.mark.parametrize("lengths", [None, [5, 2, 3]])
def test_fused_and_loop_agree(mode, layers, bidir, proj, lengths):
    inputs = _random_inputs(mode, layers, 4, bidir, proj)
    lengths = None if lengths is None else torch.tensor(lengths)
    attrs = dict(mode=mode, num_layers=layers, state_size=4, bidirectional=bidir, projection_size=proj)
    fused_out, fused_grads = _forward_and_grads(inputs, lengths, True, **attrs)
    loop_out, loop_grads = _forward_and_grads(inputs, lengths, False, **attrs)
    for a, b in zip(fused_out + list(fused_grads), loop_out + list(loop_grads)):
        torch.testing.assert_close(a, b, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("fused", [True, False])
@pytest.mark.parametrize("mode", ["lstm", "gru"])
def test_lengths_equal_truncated_sequences(mode, fused):
    """With lengths (cuDNN), each sequence runs alone over its valid steps; the rest is zero."""
    inputs = _random_inputs(mode, 2, 3, True)
    lengths = [5, 1, 3]
    attrs = dict(mode=mode, num_layers=2, state_size=3, bidirectional=True)
    out, finals = rnn_forward(*inputs, torch.tensor(lengths), fused=fused, **attrs)
    x, params, h0, c0 = inputs
    for b, n in enumerate(lengths):
        cell = None if c0 is None else c0[:, b:b + 1]
        one, one_finals = rnn_forward(x[:n, b:b + 1], params, h0[:, b:b + 1], cell, **attrs)
        torch.testing.assert_close(out[:n, b:b + 1], one)
        assert not out[n:, b].any()
        for f, g in zip(finals, one_finals):
            torch.testing.assert_close(f[:, b:b + 1], g)


def test_projection_as_wide_as_the_state():
    """P == H (the loop: torch cannot tell it from no projection); an identity h2r is plain LSTM."""
    x, params, h0, c0 = _random_inputs("lstm", 2, 4, True)
    plain = unpack_params(params.detach(), param_layout("lstm", 2, 4, 4, True))
    layout = param_layout("lstm", 2, 4, 4, True, 4)
    tensors = {(s.layer, s.direction, s.kind): torch.eye(4, dtype=params.dtype) if s.kind == "h2r_weight"
               else plain[(s.layer, s.direction, s.kind)] for s in layout}
    attrs = dict(mode="lstm", num_layers=2, state_size=4, bidirectional=True)
    projected = rnn_forward(x, pack_params(tensors, layout), h0, c0, projection_size=4, **attrs)
    expected = rnn_forward(x, params, h0, c0, **attrs)
    for a, b in zip([projected[0]] + projected[1], [expected[0]] + expected[1]):
        torch.testing.assert_close(a, b)


def test_lengths_out_of_range():
    with pytest.raises(MXNetError, match="sequence_length"):
        rnn_forward(*_random_inputs("gru", 1, 3, False), torch.tensor([5, 0, 3]), mode="gru", num_layers=1,
                    state_size=3)


def _clipped(clip_nan, data_scale=1.0, nan=False):
    x, params, h0, c0 = _random_inputs("lstm", 2, 4, True)
    x = x.detach() * data_scale
    if nan:
        x[2, 1, 0] = float("nan")
    return rnn_forward(x, params, h0, c0, clip=(-0.1, 0.1), clip_nan=clip_nan, mode="lstm", num_layers=2,
                       state_size=4, bidirectional=True)


def test_clipping_bounds_the_cell_state():
    out, (_, cy) = _clipped(False, data_scale=8.0)
    assert 0.09 < cy.abs().max() <= 0.1 + 1e-12
    assert out.abs().max() <= np.tanh(0.1) + 1e-12
    x, params, h0, c0 = _random_inputs("lstm", 2, 4, True)
    attrs = dict(mode="lstm", num_layers=2, state_size=4, bidirectional=True)
    wide = rnn_forward(x, params, h0, c0, clip=(-1e9, 1e9), **attrs)
    plain = rnn_forward(x, params, h0, c0, **attrs)
    for a, b in zip([wide[0]] + wide[1], [plain[0]] + plain[1]):
        torch.testing.assert_close(a, b)


def test_clip_nan_stops_nan_in_the_cell_state():
    _, (_, cy) = _clipped(True, nan=True)
    assert not torch.isnan(cy).any() and (cy[0, 1] == -0.1).all()
    _, (_, cy) = _clipped(False, nan=True)
    assert torch.isnan(cy[0, 1]).all()


def test_cpu_ignores_lengths_and_clipping_like_mxnet():
    """MXNet 1.9.1's CPU kernel: the same result with and without lengths/clipping."""
    for case, drop in [("lstm_seqlen_bidir", ["use_sequence_length"]),
                       ("lstm_clip_nan", ["lstm_state_clip_min", "lstm_state_clip_max", "lstm_state_clip_nan"])]:
        rec = load(case)
        attrs = {k: v for k, v in json.loads(rec["attrs"]).items() if k not in drop}
        names = [n for n in json.loads(rec["inputs"]) if n != "sequence_length"]
        outs = mx.nd.RNN(*[mx.nd.array(rec["in:" + n]) for n in names], **attrs)
        for i, o in enumerate(outs):
            close(o, rec["out:%d" % i], "%s without %s, output %d" % (case, drop, i))


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU (cuDNN semantics)")
def test_gpu_honours_lengths_and_clipping():
    rec = load("lstm_seqlen_bidir")
    attrs = json.loads(rec["attrs"])
    attrs.update(lstm_state_clip_min=-0.2, lstm_state_clip_max=0.2)
    names = json.loads(rec["inputs"])
    ctx = mx.gpu(0)
    outs = mx.nd.RNN(*[mx.nd.array(rec["in:" + n], ctx=ctx, dtype=rec["in:" + n].dtype) for n in names], **attrs)
    tensors = [torch.tensor(rec["in:" + n]) for n in names]
    ref, finals = rnn_forward(*tensors, clip=(-0.2, 0.2), mode="lstm", num_layers=1, state_size=4,
                              bidirectional=True)
    for o, r in zip(outs, [ref] + finals):
        np.testing.assert_allclose(o.asnumpy(), r.numpy(), rtol=1e-4, atol=1e-5)
