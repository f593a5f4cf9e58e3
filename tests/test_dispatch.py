"""The one dispatch path (``Operator.call``): tracing parameter arithmetic, errors raised
once, no second run of a failing graph, and the per-operator cache."""
import json

import numpy as np
import pytest

import neogluon as mx
from neogluon import gluon, nd
from neogluon.operator import registry


class _Scaled(gluon.HybridBlock):
    """Overrides ``forward`` and computes with its parameter's data: arithmetic, indexing
    and reshape on ``self.scale.data()`` must become graph nodes when hybridized."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.scale = self.params.get("scale", shape=(2, 3), init=mx.init.Constant(1.5))

    def forward(self, x):  # pylint: disable=arguments-differ
        s = self.scale.data()
        y = x * (s * 2)
        y = y + s[0] - s[1:2] + (1 - s[:, 1:]).reshape((0, -1)).sum(axis=1, keepdims=True)
        return y / (s.reshape((3, 2)).reshape((2, 3)) + 1)


def _reference(x, s):
    y = x * (s * 2)
    y = y + s[0] - s[1:2] + (1 - s[:, 1:]).reshape(2, -1).sum(axis=1, keepdims=True)
    return y / (s + 1)


def test_parameter_arithmetic_is_traced_and_exported(tmp_path):
    block = _Scaled(prefix="scaled_")
    block.initialize()
    block.scale.set_data(nd.array(np.arange(6, dtype=np.float32).reshape(2, 3) / 4))
    x = nd.array(np.random.RandomState(0).uniform(-1, 1, (2, 3)))
    expected = _reference(x.asnumpy(), block.scale.data().asnumpy())
    imperative = block(x).asnumpy()
    np.testing.assert_allclose(imperative, expected, rtol=1e-6)
    block.hybridize()
    np.testing.assert_allclose(block(x).asnumpy(), expected, rtol=1e-6)
    # the traced graph reads the parameter: a new value changes the hybridized result
    block.scale.set_data(block.scale.data() * 3)
    np.testing.assert_allclose(block(x).asnumpy(), _reference(x.asnumpy(), block.scale.data().asnumpy()),
                               rtol=1e-6)
    block.export(str(tmp_path / "scaled"))
    graph = json.loads((tmp_path / "scaled-symbol.json").read_text())
    ops = {n["op"] for n in graph["nodes"]}
    assert {"_mul_scalar", "broadcast_mul", "slice", "squeeze", "Reshape"} <= ops
    loaded = gluon.SymbolBlock.imports(str(tmp_path / "scaled-symbol.json"), ["data"],
                                       str(tmp_path / "scaled-0000.params"))
    np.testing.assert_allclose(loaded(x).asnumpy(), block(x).asnumpy(), rtol=1e-6)


def test_parameter_gradient_through_traced_arithmetic():
    block = _Scaled()
    block.initialize()
    x = nd.ones((2, 3))
    grads = []
    for hybrid in (False, True):
        if hybrid:
            block.hybridize()
        with mx.autograd.record():
            y = block(x).sum()
        y.backward()
        grads.append(block.scale.grad().asnumpy().copy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-5)


def test_advanced_index_of_parameter_data_is_refused_when_traced():
    class Picked(gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            self.w = self.params.get("w", shape=(3, 2))

        def forward(self, x):  # pylint: disable=arguments-differ
            return x + self.w.data()[[0, 2]]
    block = Picked()
    block.initialize()
    x = nd.ones((2, 2))
    assert block(x).shape == (2, 2)
    block.hybridize()
    with pytest.raises(mx.base.NotImplementedForSymbol, match="only integers and slices"):
        block(x)


def test_an_operator_error_is_raised_once_with_mxnet_words():
    a = nd.ones((2, 3))
    with pytest.raises(mx.MXNetError, match=r"broadcast_add.*\(2, 3\).*\(4, 3\)"):
        a + nd.ones((4, 3))  # pylint: disable=expression-not-assigned
    # an operator with a lowering: its check rule (the implementation on meta tensors) words it
    with pytest.raises(mx.MXNetError, match="FullyConnected"):
        nd.FullyConnected(nd.ones((2, 5)), nd.ones((4, 3)), nd.ones((4,)), num_hidden=4)
    with pytest.raises(mx.MXNetError, match="Convolution"):
        nd.Convolution(nd.ones((1, 3, 8, 8)), nd.ones((4, 2, 3, 3)), nd.ones((4,)), kernel=(3, 3),
                       num_filter=4)


def test_failing_train_graph_does_not_update_batchnorm_twice():
    """A train-mode graph that fails after its BatchNorm is explained on meta tensors: the
    BatchNorm runs once on data (the failed run), never a second time."""
    op = registry.get("BatchNorm")
    original, runs = op.lowering, []  # its implementation: the kernel factory

    def counting(**attrs):
        kernel = original(**attrs)

        def run(*args):
            runs.append(args[0].device.type)
            return kernel(*args)
        return run
    data, w = mx.sym.var("data"), mx.sym.var("w")
    net = mx.sym.dot(mx.sym.BatchNorm(data, name="bn"), w, name="prod")
    x = np.random.RandomState(1).uniform(0, 4, (4, 3)).astype(np.float32)
    args = {"data": nd.array(x), "w": nd.ones((5, 7)), "bn_gamma": nd.ones((3,)), "bn_beta": nd.zeros((3,))}
    aux = {"bn_moving_mean": nd.zeros((3,)), "bn_moving_var": nd.ones((3,))}
    op.lowering = counting
    try:
        ex = net.bind(mx.cpu(), args, aux_states=aux)
        with pytest.raises(mx.MXNetError, match=r"node prod.*\(4, 3\).*\(5, 7\)") as info:
            ex.forward(is_train=True)
    finally:
        op.lowering = original
    assert str(info.value).count("Error in node") == 1  # reported once
    assert runs == ["cpu", "meta"]  # the run that failed, then the check on shapes only
    np.testing.assert_array_equal(aux["bn_moving_mean"].asnumpy(), np.zeros(3))


def test_one_cache_entry_per_raw_attributes():
    op = registry.get("sum")
    x = nd.ones((2, 3))
    nd.sum(x, axis=1)
    e1 = op.entry({"axis": 1})
    assert op.entry({"axis": 1}) is e1 and e1.attrs["axis"] == (1,)
    assert op.parse_attrs({"axis": 1}) == e1.attrs  # the parser itself (overridable) is not cached
    # a keyword call, a positional call and a method call share the operator's entries
    before = len(op._entries)
    for _ in range(3):
        nd.sum(x, axis=0)
        x.sum(axis=0)
    assert len(op._entries) <= before + 2
    assert len(op._entries) <= registry.CACHE_SIZE


def test_list_attributes_are_cached_as_their_own_entry():
    """``nd.image.normalize(x, mean=[...])`` (lists, as the gluon tutorials write them) finds
    its entry in the cache instead of parsing and building its constants at every call; the
    entry keeps its own copy of the lists (the caller may change them) and stays apart from
    the tuple call's (a traced graph writes the raw value into the JSON as given)."""
    op = registry.get("_image_normalize")
    x = nd.array(np.arange(12.0).reshape(3, 2, 2))
    mean, std = [1.0, 2.0, 3.0], [1.0, 2.0, 4.0]
    first = nd.image.normalize(x, mean=mean, std=std)
    entry = op.entry({"mean": mean, "std": std})
    before = len(op._entries)
    for _ in range(3):
        again = nd.image.normalize(x, mean=mean, std=std)
        assert op.entry({"mean": mean, "std": std}) is entry
    assert len(op._entries) == before
    np.testing.assert_array_equal(again.asnumpy(), first.asnumpy())
    expected = (np.arange(12.0).reshape(3, 2, 2) - np.array(mean)[:, None, None]) / np.array(std)[:, None, None]
    np.testing.assert_allclose(first.asnumpy(), expected, rtol=1e-6)
    mean[0] = 5.0  # the caller's list changes: a new entry, the new value
    moved = nd.image.normalize(x, mean=mean, std=std)
    assert entry.raw["mean"] == [1.0, 2.0, 3.0] and isinstance(entry.raw["mean"], list)
    np.testing.assert_allclose(moved.asnumpy()[0], (np.arange(4.0).reshape(2, 2) - 5.0), rtol=1e-6)
    assert op.entry({"mean": (1.0, 2.0, 3.0), "std": (1.0, 2.0, 4.0)}) is not entry


def test_register_keeps_its_keywords_and_takes_a_check_rule():
    """The registration API other operator files use is unchanged; ``check=`` is new."""
    seen = []

    def check(attrs, tensors):
        seen.append(tuple(t.shape for t in tensors))
        if tensors[0].shape[-1] != attrs["width"]:
            raise mx.MXNetError("_test_widened: data %s does not have width %d"
                                % (tuple(tensors[0].shape), attrs["width"]))

    name = "_test_widened"
    if not registry.exists(name):
        @registry.register(name, inputs=("data",), params=dict(width=registry.Int()), check=check)
        def widened(data, *, width):
            return data.reshape(-1, width) * 2

        @registry.shape_rule(name)
        def _rule(attrs, shapes):
            return [(int(np.prod(shapes[0])) // attrs["width"], attrs["width"])]
    op = registry.get(name)
    assert op.infer_shape_fn is not None and op.check is check
    y = op.call((nd.ones((2, 4)),), {"width": 4})
    np.testing.assert_array_equal(y.asnumpy(), np.full((2, 4), 2.0))
    assert not seen  # the check runs only when the kernel fails
    with pytest.raises(mx.MXNetError, match="does not have width 3"):
        op.call((nd.ones((2, 4)),), {"width": 3})
    assert seen == [((2, 4),)]
    s = mx.sym.var("d")
    assert op.call((s,), {"width": 4}, trace=mx.sym.symbol.compose(None, None, name)).list_arguments() == ["d"]
    # registered after import: mx.nd and mx.sym still get its generated functions
    np.testing.assert_array_equal(mx.nd._test_widened(nd.ones((2, 4)), width=2).asnumpy(), np.full((4, 2), 2.0))
    assert mx.sym._internal._test_widened(s, width=4).list_arguments() == ["d"]
    assert mx.nd.op._test_widened is mx.nd._test_widened


def test_old_generator_signatures_still_work():
    """make_function(op, fname, invoke) and (op, fname, create, symbolic=True), as
    operator code written before Operator.call calls them."""
    from neogluon.ndarray import register as gen
    from neogluon.symbol.symbol import create
    relu = registry.get("relu")
    nd_fn = gen.make_function(relu, "relu", nd.ndarray.invoke)
    np.testing.assert_array_equal(nd_fn(nd.array([-1.0, 2.0])).asnumpy(), [0.0, 2.0])
    sym_fn = gen.make_function(relu, "relu", create, symbolic=True)
    assert sym_fn(mx.sym.var("x"), name="r").name == "r"


def test_gradient_buffer_views_see_later_gradients():
    """``.grad`` takes torch's gradient tensor until a view of it is taken; a reshape view
    or a detached array taken before a backward sees the next gradient."""
    x = nd.ones((4, 6))
    x.attach_grad()
    assert repr(x.grad).endswith("<NDArray 4x6 @cpu(0)>") and isinstance(x.grad, nd.NDArray)
    flat, detached = x.grad.reshape((-1,)), x.grad.detach()
    for scale in (2.0, 3.0):
        with mx.autograd.record():
            y = (x * scale).sum()
        y.backward()
        np.testing.assert_array_equal(flat.asnumpy(), np.full(24, scale))
        np.testing.assert_array_equal(detached.asnumpy(), np.full((4, 6), scale))


@pytest.mark.parametrize("call", [
    lambda x: x + x, lambda x: x * 2.0, lambda x: 2.0 - x, lambda x: x / x, lambda x: nd.relu(x),
    lambda x: x[0:1], lambda x: x[1], lambda x: x[0:1, 1:3], lambda x: x.reshape((-1,)), lambda x: nd.FullyConnected(
        x, nd.ones((3, 3)), nd.zeros((3,)), num_hidden=3), lambda x: nd.sum(x, axis=1)])
def test_every_call_site_applies_the_recording_rule(call):
    """The generated sites (mx.nd functions, dunders, x[key], x.reshape) detach outside
    autograd.record() and record inside it, on their first and later calls."""
    x = nd.ones((2, 3))
    x.attach_grad()
    for _ in range(2):
        assert not call(x)._t.requires_grad
        with mx.autograd.record():
            assert call(x)._t.requires_grad


def test_call_sites_are_traced_by_the_hook():
    """While a hook is installed, every site hands the call to it (nothing is computed)."""
    from neogluon import core
    seen = []

    def hook(op, inputs, raw, out):
        seen.append(op.name)
        return "node"
    x = nd.ones((2, 3))
    calls = lambda: [x + x, x * 2.0, x[0:1], x.reshape((-1,)), nd.relu(x), nd.dot(x, x, transpose_b=True),
                     nd.sum(x, axis=1), x[0:1, 1:2]]
    calls()  # the entries exist: the sites' fast paths
    prev = core.set_tracing(hook)
    try:
        assert core.ACTIVE.dense is None  # storage-rule operators' one class test fails while tracing
        assert calls() == ["node"] * 8
    finally:
        core.set_tracing(prev)
    assert core.ACTIVE.dense is nd.NDArray
    assert seen == ["broadcast_add", "_mul_scalar", "_getitem", "Reshape", "relu", "dot", "sum", "_getitem"]
    assert type(nd.relu(x)) is nd.NDArray and nd.dot(x, x, transpose_b=True).shape == (2, 2)


def test_a_crop_finds_no_entry():
    """x[a:b, c:d] (a random crop's key is new every time) runs t[key] without a cache entry
    of its own: a view, numpy's values, and MXNet's IndexError for too many axes."""
    from neogluon.ndarray import indexing
    a = np.arange(60.0).reshape(3, 4, 5)
    x = nd.array(a)
    before = len(indexing.GETITEM._entries)
    for y0, x0 in ((0, 1), (1, 2), (2, 0), (-2, -3)):
        v = x[y0:y0 + 2, x0:]
        np.testing.assert_array_equal(v.asnumpy(), a[y0:y0 + 2, x0:])
    assert len(indexing.GETITEM._entries) == before
    x[0:1, 0:1] += 100  # a view
    assert x.asnumpy()[0, 0, 0] == 100
    with pytest.raises(IndexError, match="too many indices"):
        x[0:1, 0:1, 0:1, 0:1]


def test_implementation_registers_a_kernel_factory_beside_its_check_rule():
    name = "_test_scaled_by"
    if not registry.exists(name):
        @registry.implementation(name, params=dict(k=registry.Int()))
        def scaled_by(*, k):
            """``data * k`` (a test operator)."""
            return lambda data: data * k

        @registry.check_rule(name)
        def _check(attrs, tensors):
            if tensors[0].dim() != 2:
                raise mx.MXNetError("%s: data must be 2-d, got %s" % (name, tuple(tensors[0].shape)))
    op = registry.get(name)
    np.testing.assert_array_equal(mx.nd._test_scaled_by(nd.ones((2, 2)), k=3).asnumpy(), np.full((2, 2), 3.0))
    assert op.doc.strip() == "``data * k`` (a test operator)."
    np.testing.assert_array_equal(op.fn(nd.ones((1, 2))._t, k=2).numpy(), [[2.0, 2.0]])  # the implementation
    s = mx.sym._internal._test_scaled_by(mx.sym.var("d"), k=2)
    assert s.infer_shape(d=(2, 5))[1] == [(2, 5)]  # a meta run of the kernel factory's kernel


def test_builtin_names_as_operator_arguments():
    """The generated sites' own names never meet an argument's (``type``, ``kernel``)."""
    img = nd.ones((2, 2, 3), dtype="uint8")
    assert mx.image.copyMakeBorder(img, 1, 1, 1, 1, type=0, value=0).shape == (4, 4, 3)
    w = nd.ones((1, 1, 3, 3))
    assert nd.Convolution(nd.ones((1, 1, 4, 4)), w, kernel=(3, 3), num_filter=1, no_bias=True).shape == (1, 1, 2, 2)


def test_failing_hybridized_train_step_runs_batchnorm_once():
    """The same through a hybridized Gluon block (CachedOp): the failed train-mode call
    runs BatchNorm's kernel once on data, then the explanation runs on shapes only; the
    next good step moves the running mean by one momentum step (not two)."""
    op = registry.get("BatchNorm")
    original, runs = op.lowering, []

    def counting(**attrs):
        kernel = original(**attrs)

        def run(*args):
            runs.append(args[0].device.type)
            return kernel(*args)
        return run

    class Net(gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            with self.name_scope():
                self.bn = gluon.nn.BatchNorm(in_channels=3)

        def hybrid_forward(self, F, x, w):  # pylint: disable=arguments-differ
            return F.dot(self.bn(x), w)
    net = Net()
    net.initialize()
    net.hybridize()
    x = np.random.RandomState(1).uniform(0, 4, (4, 3)).astype(np.float32)
    net(nd.array(x), nd.ones((3, 2)))  # predict mode: the statistics stay
    op.lowering = counting
    try:
        with pytest.raises(mx.MXNetError, match=r"dot.*\(4, 3\).*\(5, 7\)") as info:
            with mx.autograd.record():
                net(nd.array(x), nd.ones((5, 7)))
        assert str(info.value).count("Error in node") == 1
        assert runs == ["cpu", "meta"]
        before = net.bn.running_mean.data().asnumpy()
        with mx.autograd.record():
            y = net(nd.array(x), nd.ones((3, 2)))
        y.backward()  # as in MXNet, the moving statistics are written by the backward
    finally:
        op.lowering = original
    np.testing.assert_allclose(net.bn.running_mean.data().asnumpy(), 0.9 * before + 0.1 * x.mean(axis=0),
                               rtol=1e-5)


# ARCHITECTURE.md's layers, lowest first: a module imports (at module level) only from its
# own layer or the ones before it
_LAYERS = [("neogluon.base", "neogluon.context"), ("neogluon.core",), ("neogluon.operator",), ("neogluon.ndarray",),
           ("neogluon.autograd",), ("neogluon.symbol",), ("neogluon.executor",), ("neogluon.gluon",)]


def _module_imports(root):
    """{module: {(imported module, line)}} of neogluon's module-level imports (also inside
    top-level if/try; imports inside functions are left out: they run when called)."""
    import ast
    import os
    out = {}
    for d, _, files in os.walk(os.path.join(root, "neogluon")):
        for f in files:
            if not f.endswith(".py"):
                continue
            path = os.path.join(d, f)
            mod = os.path.relpath(path, root)[:-3].replace(os.sep, ".")
            pkg = mod.endswith(".__init__")
            mod = mod[:-len(".__init__")] if pkg else mod
            here = mod.split(".") if pkg else mod.split(".")[:-1]
            found = out[mod] = set()
            stack = list(ast.parse(open(path).read()).body)
            while stack:
                n = stack.pop()
                if isinstance(n, (ast.If, ast.Try)):
                    stack += n.body + n.orelse + getattr(n, "finalbody", [])
                    stack += [s for h in getattr(n, "handlers", []) for s in h.body]
                elif isinstance(n, ast.Import):
                    found.update((a.name, n.lineno) for a in n.names)
                elif isinstance(n, ast.ImportFrom):
                    m = n.module or ""
                    if n.level:
                        m = ".".join(here[:len(here) - n.level + 1] + ([n.module] if n.module else []))
                    found.update((m + "." + a.name, n.lineno) for a in n.names)  # a name or a submodule
                    found.add((m, n.lineno))
    return out


def _layer(mod):
    for i, prefixes in enumerate(_LAYERS):
        if any(mod == p or mod.startswith(p + ".") for p in prefixes):
            return i
    return None


def test_module_level_imports_follow_the_layers():
    """No module imports a layer above its own (ndarray does not import autograd for the
    recording state, symbol does not import the executor), and the modules named in
    issue 10 import each other in one direction only."""
    import os
    imports = _module_imports(os.path.dirname(os.path.dirname(os.path.abspath(mx.__file__))))
    upward = sorted((m, t, line) for m, found in imports.items() if _layer(m) is not None
                    for t, line in found if _layer(t) is not None and _layer(t) > _layer(m))
    assert upward == []

    def imports_of(mod):
        return {t for t, _ in imports[mod]}
    assert "neogluon.autograd" not in imports_of("neogluon.ndarray.ndarray")
    assert not {"neogluon.autograd", "neogluon.ndarray.ndarray"} & imports_of("neogluon.ndarray.indexing")
    assert not any(t.startswith("neogluon.executor") for t in imports_of("neogluon.symbol.symbol"))


def test_one_output_is_known_only_for_constant_counts():
    """The generated mx.nd function of an operator with one output for any attributes
    writes the kernel's tensor into the new array untested; operators whose output count
    depends on their attributes keep the test (a list of arrays when there are several)."""
    assert registry.get("relu").one_output and registry.get("dot").one_output
    assert not registry.get("split").one_output and not registry.get("topk").one_output
    assert not registry.get("BatchNorm").one_output  # three outputs, one visible
    x = nd.array(np.arange(12, dtype=np.float32).reshape(3, 4))
    for _ in range(2):  # the entry's first call, then its cached entry
        r = nd.relu(x - 5)
        assert type(r) is nd.NDArray and r.shape == (3, 4)
        assert np.array_equal(r.asnumpy(), np.maximum(np.arange(12).reshape(3, 4) - 5, 0))
        parts = nd.split(x, num_outputs=2, axis=1)
        assert [p.shape for p in parts] == [(3, 2), (3, 2)]
        val, idx = nd.topk(x, k=2, ret_typ="both")
        assert val.shape == idx.shape == (3, 2)
