"""Detection and spatial operators against MXNet 1.9.1: box_nms/box_iou/box_encode/box_decode,
bipartite_matching, MultiBoxPrior/Target/Detection, Proposal/MultiProposal, ROIAlign,
ROIPooling, PSROIPooling, DeformablePSROIPooling, the deformable convolutions,
BilinearSampler, GridGenerator, SpatialTransformer, Correlation and Crop.

Every recorded case (tools/make_extra_fixtures_detection.py, tests/fixtures/extra/detection/)
is replayed three ways: imperatively (``mx.nd``), through MXNet's ``-symbol.json`` read by
``sym.load_json`` and ``bind``, and inside a hybridized block; outputs and the gradients for
the recorded head gradients must match MXNet's, and the JSON must be written back as MXNet
wrote it.
"""
import json
import os

import numpy as np
import pytest

import neogluon as mx
from neogluon.ndarray.ndarray import invoke
from neogluon.operator import registry

HERE = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "detection")
MANIFEST = json.load(open(os.path.join(HERE, "cases.json")))["cases"]
ARRAYS = np.load(os.path.join(HERE, "cases.npz"))
RTOL, ATOL = 1e-4, 1e-5
VALUE_CASES = sorted(n for n, c in MANIFEST.items() if not c["json_only"])
for _spec in MANIFEST.values():  # JSON turned the generator's tuples into lists
    _spec["attrs"] = {k: tuple(v) if isinstance(v, list) else v for k, v in _spec["attrs"].items()}


def fixture(case, key):
    return ARRAYS["%s/%s" % (case, key)]


def inputs_of(case):
    return [mx.nd.array(fixture(case, "in:" + n), dtype=fixture(case, "in:" + n).dtype)
            for n in MANIFEST[case]["inputs"]]


def heads_of(case, count):
    return [mx.nd.array(fixture(case, "head:%d" % i), dtype=fixture(case, "head:%d" % i).dtype)
            for i in range(count)]


def check(actual, expected, what):
    a = actual.asnumpy()
    assert a.shape == expected.shape, "%s: shape %s, MXNet gave %s" % (what, a.shape, expected.shape)
    assert a.dtype == expected.dtype, "%s: dtype %s, MXNet gave %s" % (what, a.dtype, expected.dtype)
    np.testing.assert_allclose(a.astype(np.float64), expected.astype(np.float64), rtol=RTOL, atol=ATOL,
                               err_msg=what)


def check_outputs_and_grads(case, outs, grads):
    spec = MANIFEST[case]
    assert len(outs) == spec["outputs"]
    for i, o in enumerate(outs):
        check(o, fixture(case, "out:%d" % i), "%s output %d" % (case, i))
    for name, g in zip(spec["grads"], grads):
        check(g, fixture(case, "grad:" + name), "%s gradient of %s" % (case, name))


@pytest.mark.parametrize("case", VALUE_CASES)
def test_imperative(case):
    spec = MANIFEST[case]
    inputs = inputs_of(case)
    for name, x in zip(spec["inputs"], inputs):
        if name in spec["grads"]:
            x.attach_grad()
    with mx.autograd.record():
        out = invoke(spec["op"], inputs, spec["attrs"])
    outs = out if isinstance(out, list) else [out]
    if spec["grads"]:
        mx.autograd.backward(outs, heads_of(case, len(outs)))
    grads = [x.grad for name, x in zip(spec["inputs"], inputs) if name in spec["grads"]]
    check_outputs_and_grads(case, outs, grads)


@pytest.mark.parametrize("case", VALUE_CASES)
def test_symbol_bind(case):
    spec = MANIFEST[case]
    sym = mx.sym.load_json(spec["json"])
    args = dict(zip(spec["inputs"], inputs_of(case)))
    grads = {n: mx.nd.zeros(args[n].shape, dtype=args[n].dtype) for n in spec["grads"]}
    exe = sym.bind(mx.cpu(), args, args_grad=grads or None,
                   grad_req={n: ("write" if n in grads else "null") for n in args})
    outs = exe.forward(is_train=bool(grads))
    if grads:
        exe.backward(heads_of(case, len(outs)))
    check_outputs_and_grads(case, outs, [grads[n] for n in spec["grads"]])


class _OneOp(mx.gluon.HybridBlock):
    def __init__(self, op, attrs):
        super().__init__()
        self._op, self._attrs = op, attrs

    def hybrid_forward(self, F, *xs):
        if self._op.startswith("_contrib_"):
            fn = getattr(F.contrib, self._op[len("_contrib_"):])
        else:
            fn = getattr(F, self._op)
        return fn(*xs, **self._attrs)


@pytest.mark.parametrize("case", VALUE_CASES)
def test_hybridized(case):
    spec = MANIFEST[case]
    block = _OneOp(spec["op"], spec["attrs"])
    block.hybridize()
    inputs = inputs_of(case)
    for name, x in zip(spec["inputs"], inputs):
        if name in spec["grads"]:
            x.attach_grad()
    with mx.autograd.record():
        out = block(*inputs)
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    if spec["grads"]:
        mx.autograd.backward(outs, heads_of(case, len(outs)))
    grads = [x.grad for name, x in zip(spec["inputs"], inputs) if name in spec["grads"]]
    check_outputs_and_grads(case, outs, grads)


@pytest.mark.parametrize("case", sorted(MANIFEST))
def test_json_round_trip(case):
    spec = MANIFEST[case]
    theirs = json.loads(spec["json"])
    sym = mx.sym.load_json(spec["json"])
    ours = json.loads(sym.tojson())
    assert [(n["op"], n["name"], n.get("attrs", {}), n["inputs"]) for n in ours["nodes"]] == \
        [(n["op"], n["name"], n.get("attrs", {}), n["inputs"]) for n in theirs["nodes"]]
    assert ours["heads"] == theirs["heads"]
    assert sym.list_outputs() == spec["output_names"]
    # the same graph built through mx.sym writes the same JSON
    fn = (getattr(mx.sym.contrib, spec["op"][len("_contrib_"):]) if spec["op"].startswith("_contrib_")
          else getattr(mx.sym, spec["op"]))
    built = json.loads(fn(*[mx.sym.var(n) for n in spec["inputs"]], name="op", **spec["attrs"]).tojson())
    assert [(n["op"], n["name"], n.get("attrs", {})) for n in built["nodes"]] == \
        [(n["op"], n["name"], n.get("attrs", {})) for n in theirs["nodes"]]


@pytest.mark.parametrize("case", VALUE_CASES)
def test_shape_inference(case):
    spec = MANIFEST[case]
    sym = mx.sym.load_json(spec["json"])
    shapes = {n: fixture(case, "in:" + n).shape for n in spec["inputs"]}
    _, out_shapes, _ = sym.infer_shape(**shapes)
    assert [tuple(s) for s in out_shapes] == [fixture(case, "out:%d" % i).shape for i in range(spec["outputs"])]


def test_aliases():
    assert registry.get("_contrib_box_non_maximum_suppression") is registry.get("_contrib_box_nms")
    for npx, name in (("_npx_multibox_prior", "_contrib_MultiBoxPrior"),
                      ("_npx_multibox_target", "_contrib_MultiBoxTarget"),
                      ("_npx_multibox_detection", "_contrib_MultiBoxDetection")):
        assert registry.get(npx) is registry.get(name)
