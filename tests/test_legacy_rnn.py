"""The legacy symbolic ``mx.rnn`` API against MXNet 1.9.1.

``tests/fixtures/extra/legacy_rnn`` (``tools/make_extra_fixtures_legacy_rnn.py``) holds,
for each graph of ``tests/legacy_rnn_cases.py`` (MXNet's ``test_rnn.py`` graphs first, built
by the same code on both sides): the JSON, names and inferred shapes, the outputs and
gradients of ``bind`` on seeded arguments, the unpacked weights, and for ``unfuse`` cases
the unfused stack's outputs. Also ``encode_sentences``, misuse errors, the batches of a
seeded ``BucketSentenceIter``, lstm_bucketing.py's perplexity trajectory from MXNet's
initial parameters, and an RNN checkpoint written by MXNet.
"""
import builtins
import gzip
import json
import os

import numpy as np
import pytest

import neogluon as mx
from neogluon import _names

import legacy_rnn_cases as lc

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "fixtures", "extra", "legacy_rnn")
with open(os.path.join(FIX, "cases.json")) as _f:
    CASES = json.load(_f)
with gzip.open(os.path.join(FIX, "graphs.json.gz"), "rt") as _f:
    GRAPHS = json.load(_f)
with open(os.path.join(FIX, "misc.json")) as _f:
    MISC = json.load(_f)
TOL = dict(rtol=1e-4, atol=1e-5)
MXNET_TESTS = ["deprecated", "rnn", "lstm", "gru", "residual", "residual_bidirectional", "stack",
               "bidirectional", "zoneout", "convrnn", "convlstm", "convgru"]


def listify(x):
    if isinstance(x, (list, tuple)):
        return [listify(v) for v in x]
    if isinstance(x, dict):
        return {k: listify(v) for k, v in x.items()}
    return x


def load(name):
    with np.load(os.path.join(FIX, name + ".npz")) as data:
        return dict(data)


def check_graph(case, meta, key):
    sym, cell = case["sym"], case["cell"]
    assert sym.list_arguments() == meta["arguments"]
    assert sym.list_outputs() == meta["outputs"]
    assert sym.list_auxiliary_states() == meta["aux"]
    assert sorted(cell.params._params) == meta["params"]
    assert listify(cell.state_info) == meta["state_info"]
    args, outs, auxs = sym.infer_shape(**case["shapes"])
    assert [listify(args), listify(outs), listify(auxs)] == [meta["arg_shapes"], meta["out_shapes"], meta["aux_shapes"]]
    # node for node, names, attributes (as strings), inputs, heads; MXNet's writer puts a
    # space before each line break, neogluon's JSON writer does not
    assert json.loads(sym.tojson()) == json.loads(GRAPHS[key])


def bind_run(sym, args, train, heads=None):
    grads = {k: mx.nd.zeros(v.shape) for k, v in args.items()} if train else None
    exe = sym.bind(mx.cpu(), args={k: v.copy() for k, v in args.items()}, args_grad=grads,
                   grad_req="write" if train else "null")
    exe.forward(is_train=train)
    outs = [o.asnumpy() for o in exe.outputs]
    if train:
        exe.backward([mx.nd.array(h) for h in heads])
    return outs, {k: v.asnumpy() for k, v in (grads or {}).items()}


def case_args(name, meta):
    np_args, heads = lc.case_arrays(name, dict(zip(meta["arguments"], meta["arg_shapes"])), meta["out_shapes"])
    return {k: mx.nd.array(v) for k, v in np_args.items()}, heads


# ------------------------------------------------------------------------------- graphs
@pytest.mark.filterwarnings("ignore:NTC layout")
@pytest.mark.parametrize("name", sorted(CASES))
def test_graph_names_shapes_and_json(name):
    """list_arguments/list_outputs/infer_shape/params/state_info and the JSON."""
    meta = CASES[name]
    case = lc.build(mx, name)
    check_graph(case, meta, name)
    if "unfused" in meta:
        check_graph(case["unfused"], meta["unfused"], name + "/unfused")


def test_the_graphs_of_mxnets_test_rnn_are_all_recorded():
    """MXNet 1.9.1's test_rnn.py: the 12 graph tests here, test_unfuse (4 modes), and
    test_lstm_forget_bias / test_encode_sentences / test_residual's eval below."""
    assert set(MXNET_TESTS) <= set(CASES)
    assert {"unfuse_rnn_tanh", "unfuse_rnn_relu", "unfuse_lstm", "unfuse_gru"} <= set(CASES)
    assert CASES["stack"]["outputs"] == ["rnn_stack4_t%d_out_output" % i for i in range(3)]
    assert CASES["bidirectional"]["outputs"] == ["rnn_bi_t%d_output" % i for i in range(3)]


# ----------------------------------------------------------------------- values, gradients
@pytest.mark.filterwarnings("ignore:NTC layout")
@pytest.mark.parametrize("name", sorted(CASES))
def test_forward_and_gradient_equal_mxnet(name):
    meta, rec = CASES[name], load(name)
    case = lc.build(mx, name)
    args, heads = case_args(name, meta)
    outs, grads = bind_run(case["sym"], args, meta["train"], heads)
    assert len(outs) == len(meta["outputs"])
    for i, out in enumerate(outs):
        np.testing.assert_allclose(out, rec["out:%d" % i], **TOL, err_msg="output %d" % i)
    recorded = {k[5:]: v for k, v in rec.items() if k.startswith("grad:")}
    assert bool(recorded) == meta["train"]
    for k, g in recorded.items():
        np.testing.assert_allclose(grads[k], g, rtol=1e-4, atol=1e-4, err_msg="gradient of " + k)


@pytest.mark.filterwarnings("ignore:NTC layout")
@pytest.mark.parametrize("name", sorted(CASES))
def test_unpack_and_pack_weights_round_trip(name):
    meta, rec = CASES[name], load(name)
    case = lc.build(mx, name)
    args, _ = case_args(name, meta)
    params = {k: v for k, v in args.items() if k in case["cell"].params._params}
    unpacked = case["cell"].unpack_weights(params)
    assert sorted(unpacked) == meta["unpacked"]
    if meta["small"]:
        for k, v in unpacked.items():
            np.testing.assert_array_equal(v.asnumpy(), rec["unpacked:" + k], err_msg=k)
    packed = case["cell"].pack_weights(unpacked)
    assert sorted(packed) == sorted(params)
    for k, v in packed.items():
        np.testing.assert_array_equal(v.asnumpy(), params[k].asnumpy(), err_msg=k)


@pytest.mark.filterwarnings("ignore:NTC layout")
@pytest.mark.parametrize("name", sorted(n for n in CASES if "unfused" in CASES[n]))
def test_unfuse_equals_the_fused_cell(name):
    """test_unfuse: the fused cell's weights, unpacked and packed for the unfused stack,
    give the fused cell's outputs (both as MXNet computed them)."""
    meta, rec = CASES[name], load(name)
    case = lc.build(mx, name)
    args, _ = case_args(name, meta)
    fused_out, _ = bind_run(case["sym"], args, False)
    stack = case["unfused"]["cell"]
    stack_args = stack.pack_weights(case["cell"].unpack_weights({k: v for k, v in args.items() if k != "data"}))
    stack_args["data"] = args["data"]
    unfused_out, _ = bind_run(case["unfused"]["sym"], stack_args, False)
    np.testing.assert_allclose(unfused_out[0], rec["unfused_out:0"], **TOL)
    np.testing.assert_allclose(unfused_out[0], fused_out[0], rtol=1e-4, atol=1e-5)
    # and the other way round: the stack's weights packed into the fused vector
    back = case["cell"].pack_weights(stack.unpack_weights({k: v for k, v in stack_args.items() if k != "data"}))
    np.testing.assert_array_equal(back["%sparameters" % case["cell"]._prefix].asnumpy(),
                                  args["%sparameters" % case["cell"]._prefix].asnumpy())


def test_an_output_listed_twice_takes_its_last_head_gradient():
    """A stepped cell's last output is also its last state: grouped together they are one
    graph entry, and MXNet's backward uses the last head gradient given for it."""
    x = mx.sym.Variable("x")
    y = mx.sym.tanh(x, name="t")
    gx = mx.nd.zeros((2,))
    exe = mx.sym.Group([y, y * 2, y]).bind(mx.cpu(), args={"x": mx.nd.array([0.1, 0.2])}, args_grad={"x": gx})
    exe.forward(is_train=True)
    exe.backward([mx.nd.array([1., 1.]), mx.nd.array([0., 0.]), mx.nd.array([10., 10.])])
    np.testing.assert_allclose(gx.asnumpy(), MISC["duplicate_head_grad"], rtol=1e-6)


# ------------------------------------------------------------------ MXNet's other tests
def test_lstm_forget_bias_initialised_through_module():
    stack = mx.rnn.SequentialRNNCell()
    stack.add(mx.rnn.LSTMCell(100, forget_bias=2.0, prefix="l0_"))
    stack.add(mx.rnn.LSTMCell(100, forget_bias=2.0, prefix="l1_"))
    sym, _ = stack.unroll(1, mx.sym.Variable("data"), merge_outputs=True)
    mod = mx.mod.Module(sym, label_names=None, context=mx.cpu(0))
    mod.bind(data_shapes=[("data", (32, 1, 200))], label_shapes=None)
    mod.init_params()
    name, expected = MISC["forget_bias"]
    assert name == next(x for x in sym.list_arguments() if x.endswith("i2h_bias"))
    np.testing.assert_array_equal(mod.get_params()[0][name].asnumpy(), np.array(expected, dtype=np.float32))


def test_residual_eval_with_zero_weights():
    case = lc.build(mx, "residual")
    zeros = dict(rnn_i2h_weight=mx.nd.zeros((150, 50)), rnn_i2h_bias=mx.nd.zeros((150,)),
                 rnn_h2h_weight=mx.nd.zeros((150, 50)), rnn_h2h_bias=mx.nd.zeros((150,)))
    out = case["sym"].eval(rnn_t0_data=mx.nd.ones((10, 50)), rnn_t1_data=mx.nd.ones((10, 50)), **zeros)
    assert [o.asnumpy().tolist()[0] for o in out] == MISC["residual_eval"]
    case = lc.build(mx, "residual_bidirectional")
    zeros = {}
    for side in "lr":
        zeros.update({"rnn_%s_i2h_weight" % side: mx.nd.zeros((75, 50)), "rnn_%s_i2h_bias" % side: mx.nd.zeros((75,)),
                      "rnn_%s_h2h_weight" % side: mx.nd.zeros((75, 25)), "rnn_%s_h2h_bias" % side: mx.nd.zeros((75,))})
    out = case["sym"].eval(rnn_t0_data=mx.nd.ones((10, 50)) + 5, rnn_t1_data=mx.nd.ones((10, 50)) + 5, **zeros)
    assert [o.asnumpy().tolist()[0] for o in out] == MISC["residual_bidirectional_eval"]


def test_encode_sentences():
    sentences = [["a", "b", "c"], ["b", "c", "d"]]
    res = mx.rnn.io.encode_sentences(sentences, vocab={"a": 1, "b": 2, "c": 3}, invalid_label=-1,
                                     invalid_key="\n", start_label=0, unknown_token="UNK")
    assert list(res) == MISC["encode_known_vocab"]
    res = mx.rnn.encode_sentences(sentences, vocab=None, invalid_label=-1, invalid_key="\n",
                                  start_label=0, unknown_token="UNK")
    assert list(res) == MISC["encode_new_vocab_unk"]
    res = mx.rnn.encode_sentences(sentences + [["e", "a"]], invalid_label=0, start_label=0)
    assert list(res) == MISC["encode_new_vocab"]
    with pytest.raises(AssertionError, match=MISC["encode_unknown_error"][1]):
        mx.rnn.encode_sentences([["z"]], vocab={"a": 1})


@pytest.mark.filterwarnings("ignore:rnn_unroll is deprecated")
def test_misuse_raises_mxnets_errors():
    base = mx.rnn.RNNCell(4)
    mx.rnn.ZoneoutCell(base)
    attempts = {
        "modified_begin_state": base.begin_state,
        "fused_step": lambda: mx.rnn.FusedRNNCell(4)(mx.sym.Variable("x"), []),
        "bidirectional_step": lambda: mx.rnn.BidirectionalCell(
            mx.rnn.RNNCell(2, prefix="a_"), mx.rnn.RNNCell(2, prefix="b_"))(mx.sym.Variable("x"), []),
        "zoneout_fused": lambda: mx.rnn.ZoneoutCell(mx.rnn.FusedRNNCell(4)),
        "zoneout_sequential": lambda: mx.rnn.ZoneoutCell(mx.rnn.SequentialRNNCell()),
        "unroll_none": lambda: mx.rnn.RNNCell(4).unroll(3, None),
        "conv_even_kernel": lambda: mx.rnn.ConvRNNCell((1, 2, 4, 4), 3, h2h_kernel=(2, 3)),
        "dropout_not_number": lambda: mx.rnn.DropoutCell("0.5"),
        "rnn_unroll": lambda: mx.rnn.rnn_unroll(mx.rnn.RNNCell(4), 2, [mx.sym.Variable("a"), mx.sym.Variable("b")]),
        "iter_layout": lambda: mx.rnn.BucketSentenceIter([[1, 2]] * 4, 2, layout="TC"),
    }
    assert set(attempts) == set(MISC["errors"])
    for key, attempt in attempts.items():
        kind, message = MISC["errors"][key]
        with pytest.raises(getattr(builtins, kind)) as info:
            attempt()
        assert str(info.value).splitlines()[0] == message, key


def test_modifier_cells_in_training():
    """Train mode: ZoneoutCell keeps, element by element, either the new output or the
    previous one; DropoutCell gives 0 or x / (1 - p). (Predict mode is in the fixtures.)"""
    mx.random.seed(3)
    x = [mx.sym.Variable("x0"), mx.sym.Variable("x1")]
    feed = {"x0": mx.nd.array(np.random.RandomState(0).uniform(-1, 1, (64, 3))),
            "x1": mx.nd.array(np.random.RandomState(1).uniform(-1, 1, (64, 3))),
            "rnn_i2h_weight": mx.nd.array(np.random.RandomState(2).uniform(-1, 1, (5, 3))),
            "rnn_i2h_bias": mx.nd.zeros((5,)), "rnn_h2h_weight": mx.nd.zeros((5, 5)), "rnn_h2h_bias": mx.nd.zeros((5,))}
    plain, _ = mx.rnn.RNNCell(5, prefix="rnn_").unroll(2, x)
    zoned, _ = mx.rnn.ZoneoutCell(mx.rnn.RNNCell(5, prefix="rnn_"), zoneout_outputs=0.5).unroll(2, x)
    ref = [o.asnumpy() for o in mx.sym.Group(plain).bind(mx.cpu(), dict(feed)).forward()]
    exe = mx.sym.Group(zoned).bind(mx.cpu(), dict(feed))
    got = [o.asnumpy() for o in exe.forward(is_train=True)]
    kept_new = np.isclose(got[1], ref[1])
    assert (kept_new | np.isclose(got[1], got[0])).all()
    assert 0.2 < kept_new.mean() < 0.8
    drop, _ = mx.rnn.DropoutCell(0.5).unroll(2, x, merge_outputs=True, layout="NTC")
    out = drop.bind(mx.cpu(), {"x0": feed["x0"], "x1": feed["x1"]}).forward(is_train=True)[0].asnumpy()
    both = np.stack([feed["x0"].asnumpy(), feed["x1"].asnumpy()], axis=1)
    assert (np.isclose(out, 0) | np.isclose(out, 2 * both)).all() and 0.2 < (out == 0).mean() < 0.8


def test_fused_parameters_initialised_gate_by_gate():
    """FusedRNNCell's ``parameters`` carries MXNet's FusedRNN initializer; run through
    Module.init_params it gives the LSTM forget-gate biases ``forget_bias`` and zero other
    biases, and weights from the global initializer."""
    assert mx.rnn.FusedRNNCell(4, num_layers=2, mode="gru")._parameter.attr("__init__") == MISC["fused_initializer"]
    cell = mx.rnn.FusedRNNCell(5, num_layers=2, mode="lstm", forget_bias=3.0, prefix="f_")
    sym, _ = cell.unroll(3, mx.sym.Variable("data"), layout="TNC", merge_outputs=True)
    mod = mx.mod.Module(sym, label_names=None, context=mx.cpu())
    mod.bind(data_shapes=[("data", (3, 2, 4))], label_shapes=None)
    mod.init_params(initializer=mx.init.Uniform(0.5))
    args = cell.unpack_weights(mod.get_params()[0])
    for name, arr in args.items():
        a = arr.asnumpy()
        if name.endswith("_f_bias") and "i2h" in name or name.endswith("_f_bias") and "h2h" in name:
            assert (a == 3.0).all(), name
        elif name.endswith("bias"):
            assert (a == 0).all(), name
        else:
            assert np.abs(a).max() <= 0.5 and a.std() > 0, name


# ------------------------------------------------------------------------- iterator, fit
def test_bucket_sentence_iter_batches_equal_mxnets():
    with open(os.path.join(FIX, "iter.json")) as f:
        rec = json.load(f)
    data_train, _, vocab = lc.bucketing_iters(mx, 7)
    assert vocab == rec["vocab"]
    assert data_train.buckets == rec["buckets"] and data_train.default_bucket_key == rec["default_bucket_key"]
    assert [[d.name, list(d.shape)] for d in data_train.provide_data] == rec["provide_data"]
    for epoch in rec["epochs"]:
        got = [[b.bucket_key, b.data[0].asnumpy().tolist(), b.label[0].asnumpy().tolist(),
                list(b.provide_data[0].shape)] for b in data_train]
        assert got == epoch
        data_train.reset()
    import random
    random.seed(3)
    np.random.seed(3)
    train, _ = mx.rnn.encode_sentences(lc.corpus(40, 1), vocab=dict(vocab), invalid_label=0, start_label=1)
    it = mx.rnn.BucketSentenceIter(train, 4, invalid_label=0, layout="TN")
    assert it.buckets == rec["tn"]["buckets"]
    assert [[d.name, list(d.shape)] for d in it.provide_data] == rec["tn"]["provide_data"]
    assert [[b.bucket_key, b.data[0].asnumpy().tolist()] for b in it] == rec["tn"]["batches"]


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_lstm_bucketing_reaches_mxnets_perplexity_trajectory():
    """example/rnn/bucketing/lstm_bucketing.py (BucketSentenceIter + SequentialRNNCell of
    LSTMCells + BucketingModule + Perplexity, SGD with momentum) on the synthetic corpus,
    from MXNet's initial parameters and with the same shuffles: every batch's running
    training perplexity and every epoch's validation perplexity equal MXNet's."""
    with open(os.path.join(FIX, "bucketing.json")) as f:
        rec = json.load(f)
    init = mx.nd.load(os.path.join(FIX, "bucketing_init.params"))
    assert sorted(init) == rec["params"]
    model, batches, epochs, _ = lc.bucketing_fit(mx, arg_params=init)
    assert len(batches) == len(rec["batch_perplexity"])
    np.testing.assert_allclose(batches, rec["batch_perplexity"], rtol=1e-4)
    np.testing.assert_allclose(epochs, rec["epoch_val_perplexity"], rtol=1e-4)
    assert epochs[-1] < epochs[0]  # it learns
    assert sorted(model.get_params()[0]) == rec["params"]


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_fused_bucketing_checkpoint_and_unfused_score_equal_mxnets(tmp_path):
    """cudnn_lstm_bucketing.py's pattern: a FusedRNNCell trained on 'TN' batches from
    MXNet's initial parameters gives MXNet's per-batch perplexities; ``do_rnn_checkpoint``
    writes the unpacked weights MXNet wrote; loaded into the unfused stack with
    ``load_rnn_checkpoint`` they score the validation set as MXNet's unfused stack did."""
    with open(os.path.join(FIX, "fused_bucketing.json")) as f:
        rec = json.load(f)
    init = mx.nd.load(os.path.join(FIX, "fused_bucketing_init.params"))
    assert sorted(init) == rec["params"]
    prefix = str(tmp_path / "fused_bucketing")
    batches, score = lc.fused_bucketing(mx, prefix, arg_params=init)
    np.testing.assert_allclose(batches, rec["batch_perplexity"], rtol=1e-4)
    np.testing.assert_allclose(score, rec["unfused_val_perplexity"], rtol=1e-4)
    ours = mx.nd.load(prefix + "-0002.params")
    theirs = mx.nd.load(os.path.join(FIX, "fused_bucketing-0002.params"))
    assert sorted(ours) == sorted(theirs) and "arg:lstm_l1_h2h_f_weight" in ours
    for k in theirs:
        np.testing.assert_allclose(ours[k].asnumpy(), theirs[k].asnumpy(), rtol=1e-3, atol=1e-5, err_msg=k)
    with open(os.path.join(FIX, "fused_bucketing-symbol.json")) as f, open(prefix + "-symbol.json") as g:
        assert json.load(f) == json.load(g)


# ------------------------------------------------------------------------- checkpoints
def test_rnn_checkpoint_written_by_mxnet_loads_packed(tmp_path):
    cell = mx.rnn.FusedRNNCell(3, num_layers=1, mode="lstm", prefix="ck_")
    sym, arg, aux = mx.rnn.load_rnn_checkpoint(cell, os.path.join(FIX, "ckpt"), 1)
    with np.load(os.path.join(FIX, "ckpt.npz")) as rec:
        np.testing.assert_array_equal(arg["ck_parameters"].asnumpy(), rec["parameters"])
    assert aux == {}
    saved = mx.nd.load(os.path.join(FIX, "ckpt-0001.params"))
    assert sorted(saved) == sorted("arg:" + k for k in cell.unpack_weights(arg))
    # written again by neogluon: the same parameter file, byte for byte, and the same graph
    mx.rnn.save_rnn_checkpoint([cell], str(tmp_path / "ckpt"), 1, sym, arg, aux)
    with open(os.path.join(FIX, "ckpt-0001.params"), "rb") as f, open(tmp_path / "ckpt-0001.params", "rb") as g:
        assert f.read() == g.read()
    with open(os.path.join(FIX, "ckpt-symbol.json")) as f, open(tmp_path / "ckpt-symbol.json") as g:
        assert json.load(f) == json.load(g)
    # and the callback form saves every ``period`` epochs
    callback = mx.rnn.do_rnn_checkpoint(cell, str(tmp_path / "cb"), period=2)
    callback(0, sym, arg, aux)
    assert not (tmp_path / "cb-0001.params").exists()
    callback(1, sym, arg, aux)
    assert (tmp_path / "cb-0002.params").exists()


# ------------------------------------------------------------------------------- names
def test_every_name_of_mxnets_rnn_modules_is_real():
    for mxmod in ("mxnet.rnn", "mxnet.rnn.rnn_cell", "mxnet.rnn.rnn", "mxnet.rnn.io"):
        module = __import__(_names.neogluon_name(mxmod), fromlist=["_"])
        assert not _names.is_stand_in(module), mxmod
        for name in _names.table()[mxmod]["names"]:
            assert not _names.is_stand_in(getattr(module, name)), mxmod + "." + name
    assert mx.rnn.LSTMCell.__module__ == "neogluon.rnn.rnn_cell"
    assert not _names.is_stand_in(mx.init.FusedRNN)
