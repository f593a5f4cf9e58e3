"""The convolutional recurrent cells (Conv{1,2,3}D{RNN,LSTM,GRU}Cell) against MXNet 1.9.1.

The recorded cases (channel-first layouts: MXNet 1.9.1 cannot run these cells channel-last
on a CPU) are replayed as in ``test_rnn_cells``; the channel-last layouts are checked
against the channel-first cells with permuted inputs and weights.
"""
import numpy as np
import pytest

import neogluon as mx
from neogluon import autograd, nd
from neogluon.base import MXNetError
from neogluon.gluon import nn, rnn

import test_rnn_cells as rc

CONV = rc.case_names(conv=True)


@pytest.mark.parametrize("name", CONV)
def test_imperative_unroll_matches_mxnet(name):
    rc.replay_imperative(name)


@pytest.mark.parametrize("name", CONV)
def test_symbolic_unroll_names_and_values(name):
    rc.replay_symbolic(name)


@pytest.mark.parametrize("name", CONV)
def test_unroll_inside_hybridized_block(name):
    rc.replay_hybridized(name, rc.Unroller)


@pytest.mark.parametrize("name", CONV[::3])
def test_unroll_inside_traced_forward(name):
    rc.replay_hybridized(name, rc.ForwardUnroller)


@pytest.mark.parametrize("name", CONV)
def test_hybridized_cell_stepped_by_unroll(name):
    rc.replay_stepwise_hybridized(name)


@pytest.mark.parametrize("name", CONV)
def test_parameters_states_and_repr(name):
    cell, meta, _ = rc.make_cell(name)
    params = cell.collect_params()
    assert list(params.keys()) == meta["params"]
    assert {k: list(p.shape) for k, p in params.items()} == meta["shapes"]
    batch = meta["state_info"][0]["shape"][0]
    assert [dict(shape=list(i["shape"]), layout=i["__layout__"]) for i in cell.state_info(batch)] == \
        meta["state_info"]
    assert repr(cell) == meta["repr"]


def _to_last(a):
    """Channel-first (N or O, C, *spatial) -> channel-last (N or O, *spatial, C)."""
    return np.moveaxis(a, 1, -1)


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("dims,first,last", [(1, "NCW", "NWC"), (2, "NCHW", "NHWC"), (3, "NCDHW", "NDHWC")])
def test_channel_last_layouts_match_channel_first(kind, dims, first, last):
    cls = getattr(rnn, "Conv%dD%sCell" % (dims, kind))
    spatial = (5, 4, 3)[:dims]
    kwargs = dict(hidden_channels=2, i2h_kernel=3, h2h_kernel=3, i2h_pad=1)
    ref = cls((3,) + spatial, conv_layout=first, **kwargs)
    cell = cls(spatial + (3,), conv_layout=last, **kwargs)
    ref.initialize(mx.init.Uniform(0.5))
    cell.initialize()
    for name in ("i2h_weight", "h2h_weight", "i2h_bias", "h2h_bias"):
        value = getattr(ref, name).data().asnumpy()
        getattr(cell, name).set_data(nd.array(_to_last(value) if value.ndim > 1 else value))
    x = np.random.RandomState(dims).uniform(-1, 1, size=(2, 3, 3) + spatial).astype("float32")  # N, T, C, ...
    out, states = ref.unroll(3, nd.array(x), merge_outputs=True)
    x_last = nd.array(np.moveaxis(x, 2, -1))
    got, got_states = cell.unroll(3, x_last, merge_outputs=True)
    np.testing.assert_allclose(got.asnumpy(), np.moveaxis(out.asnumpy(), 2, -1), rtol=1e-5, atol=1e-6)
    for s, r in zip(got_states, states):
        assert cell.state_info(2)[0]["shape"] == s.shape
        np.testing.assert_allclose(s.asnumpy(), _to_last(r.asnumpy()), rtol=1e-5, atol=1e-6)
    cell.hybridize()
    again, _ = cell.unroll(3, x_last, merge_outputs=True)  # the graph convolves views, the imperative run copies
    np.testing.assert_allclose(again.asnumpy(), got.asnumpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_activation_block_equals_activation_name(kind):
    cls = getattr(rnn, "Conv2D%sCell" % kind)
    by_name = cls((2, 4, 4), 3, 3, 3, i2h_pad=1, activation="relu")
    by_block = cls((2, 4, 4), 3, 3, 3, i2h_pad=1, activation=nn.Activation("relu"))
    by_name.initialize(mx.init.Uniform(0.5))
    by_block.initialize()
    for name in ("i2h_weight", "h2h_weight", "i2h_bias", "h2h_bias"):
        getattr(by_block, name).set_data(getattr(by_name, name).data())
    x = nd.random.uniform(-1, 1, shape=(2, 3, 2, 4, 4))
    x.attach_grad()
    with autograd.record():
        ref, _ = by_name.unroll(3, x, merge_outputs=True)
    ref.backward()
    ref_grad = x.grad.asnumpy().copy()
    with autograd.record():
        out, _ = by_block.unroll(3, x, merge_outputs=True)
    out.backward()
    np.testing.assert_allclose(out.asnumpy(), ref.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(x.grad.asnumpy(), ref_grad, rtol=1e-5, atol=1e-7)


def test_shapes_padding_and_dilation():
    with mx.name.NameManager():
        cell = rnn.Conv2DLSTMCell((3, 9, 8), 4, i2h_kernel=(3, 5), h2h_kernel=(5, 3), i2h_pad=(0, 1),
                                  i2h_dilate=(2, 1), h2h_dilate=(1, 2))
    assert cell.i2h_weight.shape == (16, 3, 3, 5) and cell.h2h_weight.shape == (16, 4, 5, 3)
    assert cell.i2h_bias.shape == (16,) and cell._h2h_pad == (2, 2)
    assert cell.state_info(2) == [{"shape": (2, 4, 5, 6), "__layout__": "NCHW"}] * 2
    cell.initialize()
    out, states = cell.unroll(2, nd.ones((2, 2, 3, 9, 8)), merge_outputs=True)
    assert out.shape == (2, 2, 4, 5, 6) and [s.shape for s in states] == [(2, 4, 5, 6)] * 2
    assert repr(cell) == "Conv2DLSTMCell(3 -> 16, tanh, NCHW)"
    assert list(cell.collect_params().keys()) == ["conv_lstm0_i2h_weight", "conv_lstm0_h2h_weight",
                                                  "conv_lstm0_i2h_bias", "conv_lstm0_h2h_bias"]


def test_conv_cell_errors():
    with pytest.raises(MXNetError, match="odd"):
        rnn.Conv2DGRUCell((2, 4, 4), 3, 3, (3, 2))
    with pytest.raises(MXNetError, match="conv_layout"):
        rnn.Conv1DRNNCell((2, 4), 3, 3, 3, conv_layout="NCHW")
    with pytest.raises(MXNetError, match="list/tuple of length 3"):
        rnn.Conv3DLSTMCell((2, 4, 4, 4), 3, (3, 3), 3)
    with pytest.raises(MXNetError, match="input_shape"):
        rnn.Conv2DRNNCell((2, 4), 3, 3, 3)
