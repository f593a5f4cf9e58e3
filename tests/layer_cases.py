"""Replays the Gluon layer and loss cases recorded from MXNet 1.9.1 by
``tools/make_extra_fixtures_layers.py`` (``tests/fixtures/extra/layers``).

Each case is rebuilt from its spec in a fresh ``NameManager``, initialised, run once
(deferred initialisation), given the recorded parameter values, then run in prediction
and under ``autograd.record`` with the recorded head gradient; outputs, gradients and
the parameters after the training pass are compared with MXNet's, imperatively or after
``hybridize()``.
"""
import json
import os

import numpy as np

import neogluon as mx
from neogluon import autograd, gluon

HERE = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "layers")
with open(os.path.join(HERE, "cases.json")) as _f:
    CASES = json.load(_f)


def case_names(is_loss):
    """The recorded cases of losses (``is_loss``) or of layers."""
    return sorted(n for n, m in CASES.items() if m["spec"]["cls"].startswith("loss.") == is_loss)


def load(name):
    with np.load(os.path.join(HERE, name + ".npz")) as data:
        return CASES[name], dict(data)


def _untuple(value):
    """JSON turned the specs' tuples into lists; turn them back."""
    return tuple(value) if isinstance(value, list) else value


def build(spec):
    """The block a spec describes (children added inside its name scope)."""
    module, _, cls = spec["cls"].rpartition(".")
    namespace = {"nn": gluon.nn, "contrib.nn": gluon.contrib.nn, "loss": gluon.loss}[module]
    args = [_untuple(a) for a in spec["args"]]
    kwargs = {k: _untuple(v) for k, v in spec["kwargs"].items()}
    blk = getattr(namespace, cls)(*args, **kwargs)
    if spec["children"]:
        with blk.name_scope():
            blk.add(*[build(child) for child in spec["children"]])
    return blk


def build_fresh(meta):
    with mx.name.NameManager():
        return build(meta["spec"])


def param_info(blk):
    return [[p.name, list(p.shape) if p.shape is not None else None, p.grad_req]
            for p in blk.collect_params().values()]


def tolerance(dtype):
    return dict(rtol=1e-10, atol=1e-12) if dtype == np.float64 else dict(rtol=1e-4, atol=2e-5)


def assert_close(actual, expected, what):
    actual = actual.asnumpy() if hasattr(actual, "asnumpy") else actual
    assert actual.shape == expected.shape, "%s: shape %s, MXNet %s" % (what, actual.shape,
                                                                       expected.shape)
    assert actual.dtype == expected.dtype, "%s: dtype %s, MXNet %s" % (what, actual.dtype,
                                                                       expected.dtype)
    np.testing.assert_allclose(actual, expected, err_msg=what, **tolerance(expected.dtype))


def inputs_of(meta, data):
    return [None if n in meta["none_inputs"] else mx.nd.array(data["in%d" % i],
                                                              dtype=data["in%d" % i].dtype)
            for i, n in enumerate(meta["inputs"])]


def prepared(name, hybridize):
    """The case's block, initialised and holding the recorded parameters, and its inputs."""
    meta, data = load(name)
    blk = build_fresh(meta)
    if hybridize:
        blk.hybridize()
    inputs = inputs_of(meta, data)
    blk.initialize()
    blk(*inputs)
    params = list(blk.collect_params().values())
    for j, p in enumerate(params):
        p.set_data(mx.nd.array(data["param%d" % j], dtype=data["param%d" % j].dtype))
    return meta, data, blk, inputs, params


def replay(name, hybridize=False):
    """Runs the case and compares every recorded array with neogluon's."""
    meta, data, blk, inputs, params = prepared(name, hybridize)
    assert_close(blk(*inputs), data["predict"], name + " predict")
    if meta["predict_only"]:
        return
    grads = [i for i, n in enumerate(meta["inputs"]) if n in meta["grad"]]
    for i in grads:
        inputs[i].attach_grad()
    with autograd.record():
        out = blk(*inputs)
    out.backward(mx.nd.array(data["head"], dtype=data["head"].dtype))
    assert_close(out, data["train"], name + " train")
    for i in grads:
        assert_close(inputs[i].grad, data["grad_in%d" % i], "%s d/d%s" % (name, meta["inputs"][i]))
    for j, p in enumerate(params):
        if "grad_param%d" % j in data:
            assert_close(p.grad(), data["grad_param%d" % j], "%s d/d%s" % (name, p.name))
        assert_close(p.data(), data["after_param%d" % j], "%s %s after training" % (name, p.name))


def check_structure(name):
    """Prefix, parameter names/shapes/grad_reqs and reprs, before and after initialisation."""
    meta, data, blk, _, _ = prepared(name, hybridize=False)
    assert param_info(blk) == meta["params_after"]
    assert repr(blk) == meta["repr_after"]
    fresh = build_fresh(meta)
    assert fresh.prefix == meta["prefix"]
    assert param_info(fresh) == meta["params_before"]
    assert repr(fresh) == meta["repr_before"]


def symbolic_nodes(name):
    """[op, name] of the graph the block builds when called on ``mx.sym.var`` inputs."""
    meta, _, blk, _, _ = prepared(name, hybridize=False)
    args = [None if n in meta["none_inputs"] else mx.sym.var(n) for n in meta["inputs"]]
    graph = json.loads(blk(*args).tojson())
    return [[node["op"], node["name"]] for node in graph["nodes"]]
