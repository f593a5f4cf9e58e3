"""Record which results share memory with their input in MXNet 1.9.1: after the input is
overwritten (``a[:] = 9``) or a backward writes the ``.grad`` the result was taken from,
does the result see the new values?

In MXNet only ``NDArray.reshape``, basic indexing (``x[i]``, ``x[a:b]``; over several axes
only when the selection is contiguous in memory, else a copy: ``x[0:2, 1:3]``) and
``astype(copy=False)`` of the same dtype give views; every operator (``mx.nd.reshape``,
``transpose``/``.T``, ``flatten``, ``expand_dims``, ``split``, ...) writes new memory,
so a result taken from ``x.grad`` before a backward keeps the old gradient. Under
``npx.set_np()`` even ``ndarray.reshape`` is an operator.

Run with the reference interpreter (never imported by neogluon or its tests)::

    /work/mxref/bin/python tools/make_extra_fixtures_views.py

It writes ``tests/fixtures/extra/views/views.json``: each case's code (run with ``mx``,
``nd``, ``np`` and ``npx`` bound) and the nested list it printed; ``tests/test_views.py``
runs the same code under neogluon.
"""
import json
import os

import mxnet as mx

# name -> code whose last expression's asnumpy().tolist() is recorded
OVERWRITE = "a = nd.array([[1., 2.], [3., 4.]])\nv = {}\na[:] = 9\nresult = v"
CASES = {
    "method_reshape": OVERWRITE.format("a.reshape((4,))"),
    "method_reshape_kwargs": OVERWRITE.format("a.reshape(shape=(4,), reverse=True)"),
    "nd_reshape": OVERWRITE.format("nd.reshape(a, shape=(4,))"),
    "nd_Reshape": OVERWRITE.format("nd.Reshape(a, shape=(-1,))"),
    "getitem_slice": OVERWRITE.format("a[0:1]"),
    "getitem_int": OVERWRITE.format("a[1]"),
    "nd_slice": OVERWRITE.format("nd.slice(a, begin=(0,), end=(1,))"),
    "nd_flatten": OVERWRITE.format("nd.flatten(a)"),
    "method_flatten": OVERWRITE.format("a.flatten()"),
    "method_expand_dims": OVERWRITE.format("a.expand_dims(0)"),
    "nd_expand_dims": OVERWRITE.format("nd.expand_dims(a, axis=0)"),
    "T": OVERWRITE.format("a.T"),
    "nd_transpose": OVERWRITE.format("nd.transpose(a)"),
    "nd_swapaxes": OVERWRITE.format("nd.swapaxes(a, 0, 1)"),
    "nd_squeeze": OVERWRITE.format("nd.squeeze(a)"),
    "nd_split": OVERWRITE.format("nd.split(a, num_outputs=2, axis=0)[0]"),
    "nd_reshape_like": OVERWRITE.format("nd.reshape_like(a, nd.zeros((4,)))"),
    "nd_Dropout_predict": OVERWRITE.format("nd.Dropout(a, p=0.5)"),
    "astype_no_copy": OVERWRITE.format("a.astype('float32', copy=False)"),
    "grad_views_before_backward": (
        "x = nd.array([[1., 2.], [3., 4.]])\nx.attach_grad()\n"
        "views = [x.grad.reshape((4,)), x.grad[0:1], x.grad[1], nd.reshape(x.grad, shape=(1, 4)), x.grad.T,\n"
        "         nd.flatten(x.grad), nd.expand_dims(x.grad, axis=0)]\n"
        "with mx.autograd.record():\n    y = (x * x).sum()\ny.backward()\n"
        "result = [x.grad] + views"),
    "grad_add_view": (
        "x = nd.array([1., 2.])\nx.attach_grad(grad_req='add')\nv = x.grad[0:1]\nw = nd.reshape(x.grad, shape=(2,))\n"
        "for _ in range(2):\n    with mx.autograd.record():\n        y = (x * 3).sum()\n    y.backward()\n"
        "result = [x.grad, v, w]"),
    "np_reshape_method": "npx.set_np()\ntry:\n" + "\n".join(
        "    " + line for line in OVERWRITE.replace("nd.array", "np.array").format("a.reshape((4,))").split("\n"))
                         + "\nfinally:\n    npx.reset_np()",
    "np_transpose": "npx.set_np()\ntry:\n" + "\n".join(
        "    " + line for line in OVERWRITE.replace("nd.array", "np.array").format("np.transpose(a)").split("\n"))
                    + "\nfinally:\n    npx.reset_np()",
}


def _np_case(expr, array="[[1., 2.], [3., 4.]]"):
    """A case under ``npx.set_np()``: ``expr`` of ``a = np.array(array)``, then ``a`` overwritten."""
    body = OVERWRITE.replace("nd.array([[1., 2.], [3., 4.]])", "np.array(%s)" % array).format(expr)
    return "npx.set_np()\ntry:\n" + "\n".join("    " + line for line in body.split("\n")) + "\nfinally:\n    npx.reset_np()"


# mx.np's split family: MXNet's _npi_split writes new memory (numpy itself gives views)
CASES.update({
    "np_split": _np_case("np.split(a, 2, axis=0)[0]"),
    "np_split_indices": _np_case("np.split(a, [1], axis=1)[1]"),
    "np_array_split": _np_case("np.array_split(a, 2)[1]"),
    "np_hsplit": _np_case("np.hsplit(a, 2)[0]"),
    "np_vsplit": _np_case("np.vsplit(a, 2)[1]"),
    "np_dsplit": _np_case("np.dsplit(a, 2)[1]", "[[[1., 2.], [3., 4.]]]"),
})


# basic indexing over several axes: a view only when the selection is contiguous in memory
# (MXNet's _basic_indexing_slice_is_contiguous), else ``slice``'s new memory (a crop)
CUBE = "a = nd.arange(60).reshape((3, 4, 5))\nv = {}\na[:] = 9\nresult = v"
CASES.update({
    "getitem_crop": CUBE.format("a[0:2, 1:3]"),
    "getitem_crop_all_axes": CUBE.format("a[1:3, 0:2, 2:4]"),
    "getitem_rows_full": CUBE.format("a[1:3, 0:4]"),
    "getitem_rows_clamped": CUBE.format("a[1:3, 0:9]"),
    "getitem_one_row_crop": CUBE.format("a[1:2, 1:3]"),
    "getitem_crop_int": CUBE.format("a[1:3, 1]"),
    "getitem_int_crop": CUBE.format("a[1, 1:3]"),
    "getitem_step": CUBE.format("a[0:3:2]"),
    "getitem_one_element": CUBE.format("a[1:2, 2:3, 3:4]"),
    "getitem_empty": CUBE.format("a[1:1, 2:3]"),
})


def run(code):
    scope = {"mx": mx, "nd": mx.nd, "np": mx.np, "npx": mx.npx}
    exec(code, scope)  # pylint: disable=exec-used
    res = scope["result"]
    if isinstance(res, list):
        return [r.asnumpy().tolist() for r in res]
    return res.asnumpy().tolist()


def main():
    out = {name: {"code": code, "result": run(code)} for name, code in CASES.items()}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "extra", "views")
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "views.json"), "w") as f:
        json.dump({"mxnet": mx.__version__, "cases": out}, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
