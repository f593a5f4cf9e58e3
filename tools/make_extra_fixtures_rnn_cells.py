"""Record MXNet 1.9.1's answers for the recurrent cells of gluon.rnn and gluon.contrib.rnn.

Run with the reference interpreter (never imported by neogluon or its tests)::

    /tmp/mxref/bin/python tools/make_extra_fixtures_rnn_cells.py

Each case builds one cell from a JSON-able spec (class path, positional and keyword
arguments, ``children``: cells given positionally to modifier/bidirectional cells or
``add``-ed to sequential ones; a keyword value that is itself a spec is built as a block)
inside a fresh ``mx.name.NameManager``, unrolls it once to finish deferred
initialisation, then overwrites every parameter with seeded random values. Then, in
predict mode (``autograd.record(train_mode=False)``: dropout and zoneout are off, so every
case is deterministic), it unrolls the cell over ``x`` with the case's ``unroll`` keywords
(and ``begin_state``/``valid_length`` where given) and back-propagates
``sum(out * head_out) + sum_i sum(state_i * head_st<i>)``.

``tests/fixtures/extra/rnn_cells/<case>.npz`` holds ``x``, ``vl``, ``s<i>`` (begin states),
``p:<name>`` (parameters), ``out`` (the outputs; stacked along the time axis when unroll
returns a list), ``st<i>`` (the states returned), the heads, and the gradients ``g:x``,
``g:s<i>``, ``g:p:<name>``. ``cases.json`` holds each spec, the unroll keywords, whether
the inputs are given as a list of steps, the parameter names and shapes, ``state_info``,
the repr after initialisation, whether the outputs came back as a list, and, for the same
unroll over ``mx.sym.var`` inputs (``data``, ``s<i>``, ``vl``), the graph's
``list_outputs`` and ``list_arguments`` (None where MXNet fails to build it: ResidualCell
with ``valid_length`` and list outputs splits a Symbol into one grouped element).
``tests/test_rnn_cells.py`` and ``tests/test_conv_rnn_cells.py`` replay them.
"""
import json
import os
import shutil

# MXNet's oneDNN convolutions fail on some of these recurrent graphs ("Check failed:
# to.IsDefaultData()"); its reference CPU kernels run them all.
os.environ["MXNET_MKLDNN_ENABLED"] = "0"
os.environ["MXNET_ONEDNN_ENABLED"] = "0"

import numpy as np  # noqa: E402
import mxnet as mx  # noqa: E402
from mxnet import autograd, gluon, nd  # noqa: E402
from mxnet.gluon import contrib, nn, rnn  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "extra", "rnn_cells")
RNG = np.random.RandomState(5151)
CASES = {}
NAMESPACES = {"rnn": rnn, "nn": nn, "contrib.rnn": contrib.rnn}


def cell(cls, *args, children=(), **kwargs):
    """A JSON-able description of a cell: ``cls`` is 'rnn.LSTMCell', 'contrib.rnn.LSTMPCell', ..."""
    return dict(cls=cls, args=list(args), kwargs=kwargs, children=list(children))


def activation_block(spec):
    """An activation block for a cell. MXNet 1.9.1's ``RecurrentCell.reset`` calls ``reset``
    on every child, which a plain block lacks (an MXNet bug): give it a no-op one."""
    block = build(spec)
    block.reset = lambda: None
    return block


def build(spec):
    """The block a spec describes (the same function lives in the tests)."""
    ns, name = spec["cls"].rsplit(".", 1)
    cls = getattr(NAMESPACES[ns], name)
    kwargs = {k: activation_block(v) if isinstance(v, dict) else v for k, v in spec["kwargs"].items()}
    children = [build(c) for c in spec["children"]]
    if name in ("SequentialRNNCell", "HybridSequentialRNNCell"):
        block = cls(*spec["args"], **kwargs)
        for child in children:
            block.add(child)
        return block
    return cls(*(children + list(spec["args"])), **kwargs)


def uni(*shape, lo=-1.0, hi=1.0):
    return RNG.uniform(lo, hi, size=shape).astype("float32")


def case(name, spec, x, length, layout="NTC", merge_outputs=None, valid_length=None, begin_state=False,
         as_list=False):
    CASES[name] = dict(spec=spec, length=length, layout=layout, merge_outputs=merge_outputs,
                       valid_length=valid_length is not None, begin_state=begin_state, as_list=as_list,
                       x=x, vl=valid_length)


def stacked(outputs, layout):
    if isinstance(outputs, (list, tuple)):
        return nd.stack(*outputs, axis=layout.find("T"))
    return outputs


def symbolic_names(spec, c):
    """list_outputs/list_arguments of the same unroll over variables (a fresh cell and names)."""
    with mx.name.NameManager():
        blk = build(spec)
        x = mx.sym.var("data")
        inputs = list(mx.sym.split(x, axis=c["layout"].find("T"), num_outputs=c["length"], squeeze_axis=1)) \
            if c["as_list"] else x
        states = [mx.sym.var("s%d" % i) for i in range(len(blk.state_info()))] if c["begin_state"] else None
        vl = mx.sym.var("vl") if c["valid_length"] else None
        try:
            outputs, states = blk.unroll(c["length"], inputs, begin_state=states, layout=c["layout"],
                                         merge_outputs=c["merge_outputs"], valid_length=vl)
        except mx.base.MXNetError:  # MXNet cannot build some unrolls over symbols (recorded as None)
            return None, None
        group = mx.sym.Group((list(outputs) if isinstance(outputs, list) else [outputs]) + list(states))
    return group.list_outputs(), group.list_arguments()


def record(name, c):
    spec = c["spec"]
    with mx.name.NameManager():
        blk = build(spec)
    blk.initialize(mx.init.Uniform(0.5))
    x = nd.array(c["x"])
    batch = c["x"].shape[c["layout"].find("N")]
    n_states = len(blk.state_info())
    arrays = {"x": c["x"]}
    begin = None
    if c["begin_state"]:
        begin = [nd.array(uni(*info["shape"])) for info in blk.state_info(batch)]
        arrays.update({"s%d" % i: s.asnumpy() for i, s in enumerate(begin)})
    vl = None
    if c["vl"] is not None:
        vl = nd.array(np.array(c["vl"], "float32"))
        arrays["vl"] = vl.asnumpy()

    def unroll(inputs):
        if c["as_list"]:
            inputs = list(nd.split(inputs, axis=c["layout"].find("T"), num_outputs=c["length"], squeeze_axis=1))
        return blk.unroll(c["length"], inputs, begin_state=begin, layout=c["layout"],
                          merge_outputs=c["merge_outputs"], valid_length=vl)

    unroll(x)  # finishes deferred initialisation
    params = blk.collect_params()
    for pname in sorted(params.keys()):
        value = uni(*params[pname].shape)
        params[pname].set_data(nd.array(value))
        arrays["p:" + pname] = value
    x.attach_grad()
    for s in begin or []:
        s.attach_grad()
    with autograd.record(train_mode=False):
        outputs, states = unroll(x)
        out = stacked(outputs, c["layout"])
        heads = [uni(*out.shape)] + [uni(*s.shape) for s in states]
        loss = (out * nd.array(heads[0])).sum()
        for s, h in zip(states, heads[1:]):
            loss = loss + (s * nd.array(h)).sum()
    loss.backward()
    arrays["out"] = out.asnumpy()
    arrays["head_out"] = heads[0]
    for i, (s, h) in enumerate(zip(states, heads[1:])):
        arrays["st%d" % i] = s.asnumpy()
        arrays["head_st%d" % i] = h
    arrays["g:x"] = x.grad.asnumpy()
    for i, s in enumerate(begin or []):
        arrays["g:s%d" % i] = s.grad.asnumpy()
    for pname in sorted(params.keys()):
        arrays["g:p:" + pname] = params[pname].grad().asnumpy()
    sym_outputs, sym_args = symbolic_names(spec, c)
    np.savez(os.path.join(OUT, name + ".npz"), **arrays)
    return dict(spec=spec, length=c["length"], layout=c["layout"], merge_outputs=c["merge_outputs"],
                valid_length=c["valid_length"], begin_state=c["begin_state"], as_list=c["as_list"],
                params=list(params.keys()), shapes={k: list(p.shape) for k, p in params.items()},
                state_info=[dict(shape=list(i["shape"]), layout=i["__layout__"]) for i in blk.state_info(batch)],
                num_states=n_states, repr=repr(blk), outputs_list=isinstance(outputs, list),
                hybrid=isinstance(blk, gluon.HybridBlock), sym_outputs=sym_outputs, sym_args=sym_args)


# ----------------------------------------------------------------------------- dense cells
X = uni(3, 4, 5)          # N=3, T=4, C=5 (NTC)
XT = uni(4, 3, 5)         # the same sizes in TNC
VL = [4, 2, 3]

case("rnn_tanh", cell("rnn.RNNCell", 6), X, 4, merge_outputs=True)
case("rnn_relu_tnc_list", cell("rnn.RNNCell", 6, activation="relu", input_size=5), XT, 4, layout="TNC",
     merge_outputs=False)
case("rnn_softrelu_begin", cell("rnn.RNNCell", 4, activation="softrelu"), X, 4, begin_state=True)
case("rnn_leaky_block", cell("rnn.RNNCell", 4, activation=cell("nn.LeakyReLU", 0.1)), X, 4, merge_outputs=True)
case("rnn_valid_length", cell("rnn.RNNCell", 5, prefix="myrnn_"), X, 4, merge_outputs=True, valid_length=VL)
case("lstm", cell("rnn.LSTMCell", 7), X, 4, merge_outputs=True)
case("lstm_begin_tnc", cell("rnn.LSTMCell", 4, input_size=5), XT, 4, layout="TNC", begin_state=True,
     merge_outputs=True)
case("lstm_activations", cell("rnn.LSTMCell", 4, activation="relu", recurrent_activation="tanh"), X, 4,
     merge_outputs=False)
case("lstm_valid_length_list", cell("rnn.LSTMCell", 3), X, 4, valid_length=VL, merge_outputs=False,
     as_list=True)
case("gru", cell("rnn.GRUCell", 6), X, 4, merge_outputs=True)
case("gru_tnc_valid_length", cell("rnn.GRUCell", 4), XT, 4, layout="TNC", valid_length=VL, begin_state=True)
case("lstmp", cell("contrib.rnn.LSTMPCell", 6, 3), X, 4, merge_outputs=True, begin_state=True)
case("lstmp_valid_length", cell("contrib.rnn.LSTMPCell", 5, 2, input_size=5), XT, 4, layout="TNC",
     valid_length=VL, merge_outputs=True)

# ----------------------------------------------------------------------------- stacks and modifiers
case("sequential", cell("rnn.SequentialRNNCell", children=[cell("rnn.LSTMCell", 5), cell("rnn.GRUCell", 4)]),
     X, 4, merge_outputs=True, begin_state=True)
case("sequential_valid_length", cell("rnn.SequentialRNNCell", children=[cell("rnn.RNNCell", 5),
                                                                         cell("rnn.LSTMCell", 3)]),
     X, 4, valid_length=VL)
case("hybrid_sequential", cell("rnn.HybridSequentialRNNCell", children=[cell("rnn.RNNCell", 5),
                                                                         cell("rnn.LSTMCell", 4)]),
     XT, 4, layout="TNC", merge_outputs=False)
case("hybrid_sequential_residual", cell("rnn.HybridSequentialRNNCell", children=[
    cell("rnn.LSTMCell", 5), cell("rnn.ResidualCell", children=[cell("rnn.GRUCell", 5)]),
    cell("rnn.DropoutCell", 0.5), cell("rnn.RNNCell", 3)]), X, 4, merge_outputs=True, valid_length=VL)
case("residual", cell("rnn.ResidualCell", children=[cell("rnn.GRUCell", 5)]), X, 4, merge_outputs=True)
case("residual_valid_length_list", cell("rnn.ResidualCell", children=[cell("rnn.RNNCell", 5)]), X, 4,
     merge_outputs=False, valid_length=VL)
case("bidirectional", cell("rnn.BidirectionalCell", children=[cell("rnn.LSTMCell", 4), cell("rnn.GRUCell", 3)]),
     X, 4, merge_outputs=True)
case("bidirectional_tnc_list", cell("rnn.BidirectionalCell", children=[cell("rnn.RNNCell", 3),
                                                                        cell("rnn.RNNCell", 2)]),
     XT, 4, layout="TNC", merge_outputs=False, begin_state=True)
case("bidirectional_valid_length", cell("rnn.BidirectionalCell", children=[cell("rnn.GRUCell", 4),
                                                                            cell("rnn.LSTMCell", 3)]),
     X, 4, valid_length=VL, merge_outputs=True)
case("bidirectional_valid_length_list", cell("rnn.BidirectionalCell", children=[cell("rnn.GRUCell", 2),
                                                                                 cell("rnn.GRUCell", 3)]),
     XT, 4, layout="TNC", valid_length=VL, merge_outputs=False)
case("dropout_predict", cell("rnn.DropoutCell", 0.5), X, 4, merge_outputs=True)
case("zoneout_predict", cell("rnn.ZoneoutCell", 0.5, 0.5, children=[cell("rnn.LSTMCell", 4)]), X, 4,
     merge_outputs=True)
case("zoneout_valid_length", cell("rnn.ZoneoutCell", 0.3, 0.0, children=[cell("rnn.GRUCell", 4)]), X, 4,
     merge_outputs=False, valid_length=VL)
case("vardrop_states_predict", cell("contrib.rnn.VariationalDropoutCell", 0.3, 0.3, 0.3,
                                    children=[cell("rnn.LSTMCell", 4)]), X, 4, merge_outputs=True)
case("vardrop_predict_valid_length", cell("contrib.rnn.VariationalDropoutCell", 0.5, 0.0, 0.5,
                                          children=[cell("rnn.GRUCell", 4)]), XT, 4, layout="TNC",
     merge_outputs=None, valid_length=VL)

# ----------------------------------------------------------------------------- convolutional cells
C1 = uni(2, 3, 2, 6)          # N, T, C, W
C2 = uni(2, 3, 2, 5, 4)       # N, T, C, H, W
C2T = uni(3, 2, 2, 5, 4)      # T, N, C, H, W
C3 = uni(2, 2, 2, 3, 4, 3)    # N, T, C, D, H, W
# MXNet 1.9.1 on CPU cannot run these cells in the channel-last layouts (NWC is no
# Convolution layout; NHWC/NDHWC fail in oneDNN), so only channel-first cases are recorded:
# the tests check the channel-last layouts against them with permuted weights.
for kind in ("RNN", "LSTM", "GRU"):
    case("conv1d_%s" % kind.lower(), cell("contrib.rnn.Conv1D%sCell" % kind, (2, 6), 3, 3, 3, i2h_pad=1), C1, 3,
         merge_outputs=True)
    case("conv1d_%s_dilate" % kind.lower(), cell("contrib.rnn.Conv1D%sCell" % kind, (2, 6), 2, 3, 3,
                                                 i2h_dilate=2, h2h_dilate=2), C1, 3, merge_outputs=True,
         begin_state=True)
    case("conv2d_%s" % kind.lower(), cell("contrib.rnn.Conv2D%sCell" % kind, (2, 5, 4), 3, (3, 1), (3, 5),
                                          i2h_pad=(1, 0)), C2, 3, merge_outputs=True)
    case("conv2d_%s_relu_tnc" % kind.lower(), cell("contrib.rnn.Conv2D%sCell" % kind, (2, 5, 4), 2, 2, 3,
                                                   activation="relu"), C2T, 3, layout="TNC", merge_outputs=False)
    case("conv3d_%s" % kind.lower(), cell("contrib.rnn.Conv3D%sCell" % kind, (2, 3, 4, 3), 2, 3, 1,
                                          i2h_pad=1), C3, 2, merge_outputs=True)
    case("conv3d_%s_kernels" % kind.lower(), cell("contrib.rnn.Conv3D%sCell" % kind, (2, 3, 4, 3), 2, (1, 3, 3),
                                                  (3, 1, 3), h2h_dilate=(1, 1, 2)), C3, 2, merge_outputs=True)
case("conv2d_lstm_valid_length", cell("contrib.rnn.Conv2DLSTMCell", (2, 5, 4), 2, 3, 3, i2h_pad=1), C2, 3,
     merge_outputs=True, valid_length=[3, 1])
case("conv2d_gru_leaky", cell("contrib.rnn.Conv2DGRUCell", (2, 5, 4), 2, 3, 3, i2h_pad=1,
                              activation=cell("nn.LeakyReLU", 0.2)), C2, 3, merge_outputs=True)
case("conv1d_rnn_softsign", cell("contrib.rnn.Conv1DRNNCell", (2, 6), 2, 1, 1, activation="softsign",
                                 prefix="crnn_"), C1, 3, merge_outputs=True)


def main():
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    cases = {name: record(name, c) for name, c in CASES.items()}
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump(cases, f, indent=1, sort_keys=True)
    print("wrote %d cases to %s" % (len(cases), OUT))


if __name__ == "__main__":
    main()
