"""The compiled backend's inductor pass moving a product's bias into the pointwise code that
reads it (neogluon/executor/unfuse_bias.py)."""
import pytest
import torch
from torch.fx.experimental.proxy_tensor import make_fx

from neogluon.executor import inductor
from neogluon.executor.unfuse_bias import UnfuseBias

aten = torch.ops.aten


def _targets(gm):
    return [n.target for n in gm.graph.nodes if n.op == "call_function"]


def _traced(fn, *args):
    gm = make_fx(fn, tracing_mode="fake")(*args)
    return gm


def test_a_bias_read_only_by_pointwise_code_is_added_there():
    x, w, b = torch.randn(4, 6), torch.randn(6, 5), torch.randn(5)

    def fn(x, w, b):
        return torch.relu(aten.addmm(b, x, w)) * 2
    gm = _traced(fn, x, w, b)
    assert aten.addmm.default in _targets(gm)
    UnfuseBias()(gm.graph)
    gm.recompile()
    assert aten.addmm.default not in _targets(gm)
    assert aten.mm.default in _targets(gm) and aten.add.Tensor in _targets(gm)
    torch.testing.assert_close(gm(x, w, b), fn(x, w, b), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("case", ["output", "matrix_use", "scaled"])
def test_other_products_keep_their_bias(case):
    x, w, b = torch.randn(4, 6), torch.randn(6, 5), torch.randn(5)
    fns = {
        "output": lambda x, w, b: aten.addmm(b, x, w),                            # read by nothing pointwise
        "matrix_use": lambda x, w, b: torch.relu(aten.addmm(b, x, w)) @ w.t(),     # relu is pointwise ...
        "scaled": lambda x, w, b: torch.relu(aten.addmm(b, x, w, beta=0.5)),      # beta != 1
    }
    gm = _traced(fns[case], x, w, b)
    before = _targets(gm).count(aten.addmm.default)
    UnfuseBias()(gm.graph)
    gm.recompile()
    expected = 0 if case == "matrix_use" else before  # ... so that one is unfused
    assert _targets(gm).count(aten.addmm.default) == expected
    torch.testing.assert_close(gm(x, w, b), fns[case](x, w, b), rtol=1e-6, atol=1e-6)


def test_the_pass_is_given_to_every_compilation():
    options = inductor._with_passes({"freezing": True})
    assert options["freezing"] is True and isinstance(options["post_grad_custom_post_pass"], UnfuseBias)
    assert UnfuseBias().uuid() == UnfuseBias().uuid()
