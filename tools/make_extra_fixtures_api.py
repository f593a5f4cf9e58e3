"""Record MXNet 1.9.1's answers for the NDArray API, autograd and test_utils cases.

Run with the reference interpreter (never imported by neogluon or its tests)::

    /tmp/mxref/bin/python tools/make_extra_fixtures_api.py

Each case is a small Python snippet using ``mx``, ``np``, ``os`` and ``pickle``; its last line is an
expression whose value is recorded (arrays with dtype, shape and values; Python and
numpy scalars with their type; dtypes; contexts; strings), or the exception it raises
(its class and the builtin exception classes it derives from). The snippets and the
answers go to ``tests/fixtures/extra/api/cases.json``; ``tests/test_ndarray.py`` and
``tests/test_autograd.py`` run the same snippets with ``import neogluon as mx``.

``needs`` lists the operators a snippet uses beyond the core arithmetic, so the tests
can skip a case until the operator is registered.
"""
import ast
import json
import os
import pickle
import textwrap

import numpy as np

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "extra", "api", "cases.json")

# (group, name, needs, snippet)
CASES = []


def case(group, name, snippet, needs=()):
    """Add a case; its first line may be a one-line setup (``G``) before an indented body."""
    first, _, rest = snippet.partition("\n")
    code = first + "\n" + textwrap.dedent(rest) if first.strip() else textwrap.dedent(rest)
    CASES.append((group, name, list(needs), code.strip()))


# ----------------------------------------------------------------------------- creation
case("creation", "array_list_default_float32", "mx.nd.array([[1, 2], [3, 4]])")
case("creation", "array_int_numpy_default_float32", "mx.nd.array(np.arange(4, dtype=np.int64))")
case("creation", "array_float64_numpy_default_float32", "mx.nd.array(np.ones(3))")
case("creation", "array_dtype_int32", "mx.nd.array([1.7, 2.2], dtype='int32')")
case("creation", "array_dtype_np_type", "mx.nd.array([1, 2], dtype=np.float64)")
case("creation", "array_from_ndarray_keeps_dtype", "mx.nd.array(mx.nd.array([1, 2], dtype='int32'))")
case("creation", "array_from_ndarray_with_dtype", "mx.nd.array(mx.nd.array([1, 2], dtype='int32'), dtype='float16')")
case("creation", "array_from_ndarray_is_copy", """
    a = mx.nd.array([1, 2])
    b = mx.nd.array(a)
    b[0] = 5
    a
""")
case("creation", "array_scalar_gives_1d", "mx.nd.array(3.5)")
case("creation", "array_numpy_scalar", "mx.nd.array(np.float64(2))")
case("creation", "array_scalar_repr", "repr(mx.nd.array(2.5))")
case("creation", "array_scalar_asscalar", "mx.nd.array(2.5).asscalar()")
case("creation", "array_nested_tuple", "mx.nd.array(((1, 2), (3, 4)), dtype='int64')")
case("creation", "array_ctx", "mx.nd.array([1], ctx=mx.cpu(0)).context")
case("creation", "array_uint8", "mx.nd.array(np.array([1, 255], dtype=np.uint8), dtype=np.uint8)")
case("creation", "array_bad_source", "mx.nd.array('abc')")
case("creation", "array_ragged", "mx.nd.array([[1, 2], [3]])")
case("creation", "zeros_default", "mx.nd.zeros((2, 3))")
case("creation", "zeros_int_shape", "mx.nd.zeros(3)")
case("creation", "zeros_dtype", "mx.nd.zeros((2,), dtype='int32')")
case("creation", "zeros_dtype_np", "mx.nd.zeros((2,), dtype=np.float16)")
case("creation", "zeros_ctx", "mx.nd.zeros((1,), ctx=mx.cpu()).ctx")
case("creation", "ones_default", "mx.nd.ones((2, 2))")
case("creation", "ones_dtype", "mx.nd.ones(2, dtype='int64')")
case("creation", "full_default", "mx.nd.full((2, 2), 7)")
case("creation", "full_float_value", "mx.nd.full(3, 0.5)")
case("creation", "full_dtype_int", "mx.nd.full((2,), 3.7, dtype='int32')")
case("creation", "empty_shape_dtype", "e = mx.nd.empty((2, 3), dtype='float64'); (e.shape, e.dtype)")
case("creation", "empty_default", "e = mx.nd.empty(4); (e.shape, e.dtype)")
case("creation", "arange_stop", "mx.nd.arange(5)")
case("creation", "arange_start_stop_step", "mx.nd.arange(1, 4, 0.5)")
case("creation", "arange_repeat", "mx.nd.arange(3, repeat=2)")
case("creation", "arange_dtype", "mx.nd.arange(0, 6, 2, dtype='int32')")
case("creation", "arange_negative_step", "mx.nd.arange(5, 1, -1)")
case("creation", "linspace", "mx.nd.linspace(0, 1, 5)")
case("creation", "linspace_no_endpoint", "mx.nd.linspace(0, 1, 4, endpoint=False)")
case("creation", "linspace_dtype", "mx.nd.linspace(0, 10, 3, dtype='int32')")
case("creation", "eye", "mx.nd.eye(3)")
case("creation", "eye_rect_k", "mx.nd.eye(2, 3, 1)")
case("creation", "eye_dtype", "mx.nd.eye(2, dtype='int32')")
case("creation", "zeros_like_method", "mx.nd.array([[1, 2]], dtype='int32').zeros_like()")
case("creation", "ones_like_method", "mx.nd.array([[1, 2]]).ones_like()")
case("creation", "waitall", "mx.nd.waitall()")

# ----------------------------------------------------------------------------- properties
case("properties", "shape", "mx.nd.zeros((2, 3, 4)).shape")
case("properties", "dtype_is_numpy_type", "mx.nd.zeros((2,)).dtype")
case("properties", "dtype_int", "mx.nd.zeros((2,), dtype='int32').dtype")
case("properties", "dtype_float16", "mx.nd.zeros((2,), dtype='float16').dtype")
case("properties", "dtype_uint8", "mx.nd.zeros((2,), dtype='uint8').dtype")
case("properties", "size", "mx.nd.zeros((2, 3, 4)).size")
case("properties", "ndim", "mx.nd.zeros((2, 3, 4)).ndim")
case("properties", "context", "mx.nd.zeros((2,)).context")
case("properties", "ctx", "mx.nd.zeros((2,)).ctx")
case("properties", "stype", "mx.nd.zeros((2,)).stype")
case("properties", "grad_none", "mx.nd.zeros((2,)).grad")
case("properties", "grad_after_attach", "x = mx.nd.array([1, 2]); x.attach_grad(); x.grad")
case("properties", "T_2d", "mx.nd.array([[1, 2, 3], [4, 5, 6]]).T", needs=["transpose"])
case("properties", "T_3d", "mx.nd.arange(24).reshape((2, 3, 4)).T.shape", needs=["transpose", "Reshape"])
case("properties", "T_1d", "mx.nd.array([1, 2]).T")
case("properties", "len", "len(mx.nd.zeros((3, 2)))")
case("properties", "iter", "list(mx.nd.array([[1, 2], [3, 4]]))")
case("properties", "iter_1d", "[v.shape for v in mx.nd.array([1, 2, 3])]")
case("properties", "bool_single_true", "bool(mx.nd.array([5]))")
case("properties", "bool_single_false", "bool(mx.nd.array([0]))")
case("properties", "bool_many", "bool(mx.nd.array([1, 2]))")
case("properties", "repr_float", "repr(mx.nd.array([[1, 2], [3, 4]]))")
case("properties", "repr_int", "repr(mx.nd.array([1, 2, 3], dtype='int32'))")
case("properties", "repr_1elem", "repr(mx.nd.array([0.5]))")
case("properties", "str_same_as_repr", "str(mx.nd.array([1.5, -2]))")
case("properties", "repr_3d", "repr(mx.nd.zeros((2, 1, 2)))")
case("properties", "pickle_roundtrip", "pickle.loads(pickle.dumps(mx.nd.array([[1, 2], [3, 4]], dtype='int32')))")
case("properties", "pickle_float16", "pickle.loads(pickle.dumps(mx.nd.array([1.5], dtype='float16')))")
# np.array(nd) raises ValueError in MXNet 1.9.1 (NDArray has no __array__); neogluon supports
# it (tests/test_ndarray.py), a deliberate superset, so it is not recorded here.
case("properties", "T_1d_is_same_object", "a = mx.nd.array([1, 2]); a.T is a")
case("properties", "len_0d", "len(mx.nd.array(1.0))")
case("properties", "iter_0d", "list(mx.nd.array(1.0))")

# ----------------------------------------------------------------------------- conversions
case("conversions", "asnumpy", "mx.nd.array([[1, 2]], dtype='int32').asnumpy()")
case("conversions", "asnumpy_is_copy", """
    a = mx.nd.array([1, 2])
    n = a.asnumpy()
    n[0] = 10
    a
""")
case("conversions", "asscalar", "mx.nd.array([3.5]).asscalar()")
case("conversions", "asscalar_int", "mx.nd.array([3], dtype='int32').asscalar()")
case("conversions", "asscalar_2d_single", "mx.nd.array([[3]]).asscalar()")
case("conversions", "asscalar_many", "mx.nd.array([1, 2]).asscalar()")
case("conversions", "astype", "mx.nd.array([1.7, -1.7]).astype('int32')", needs=["Cast"])
case("conversions", "astype_np_type", "mx.nd.array([1, 2]).astype(np.float64)", needs=["Cast"])
case("conversions", "astype_copy_false_same", "a = mx.nd.array([1]); a.astype('float32', copy=False) is a")
case("conversions", "astype_copy_true_same", "a = mx.nd.array([1]); a.astype('float32') is a", needs=["Cast"])
case("conversions", "astype_copy_false_other", "a = mx.nd.array([1]); a.astype('float64', copy=False) is a",
     needs=["Cast"])
case("conversions", "astype_to_uint8", "mx.nd.array([1, 300]).astype('uint8')", needs=["Cast"])
case("conversions", "copy", """
    a = mx.nd.array([1, 2])
    b = a.copy()
    b[0] = 9
    (a, b)
""")
case("conversions", "copyto_ndarray", """
    a = mx.nd.array([1, 2])
    b = mx.nd.zeros((2,))
    r = a.copyto(b)
    (r is b, b)
""")
case("conversions", "copyto_dtype_converts", """
    b = mx.nd.zeros((2,), dtype='int32')
    mx.nd.array([1.5, 2.5]).copyto(b)
    b
""")
case("conversions", "copyto_self", "a = mx.nd.array([1, 2]); a.copyto(a)")
case("conversions", "reshape_shares_memory", "a = mx.nd.zeros((2, 2)); b = a.reshape((4,)); b[0] = 9; a",
     needs=["Reshape"])
case("conversions", "reshape_unknown_kwarg", "mx.nd.zeros((2, 2)).reshape((4,), foo=1)", needs=["Reshape"])
case("conversions", "copyto_context", "mx.nd.array([1, 2]).copyto(mx.cpu())")
case("conversions", "copyto_shape_mismatch", "mx.nd.array([1, 2]).copyto(mx.nd.zeros((3,)))")
case("conversions", "copyto_bad_type", "mx.nd.array([1, 2]).copyto(5)")
case("conversions", "as_in_context_same", "a = mx.nd.array([1]); a.as_in_context(mx.cpu()) is a")
case("conversions", "wait_to_read", "mx.nd.array([1]).wait_to_read()")
case("conversions", "tostype_default", "mx.nd.array([1, 2]).tostype('default')")
case("conversions", "detach_values", "mx.nd.array([1, 2]).detach()")
case("conversions", "reshape_tuple", "mx.nd.arange(6).reshape((0, -1))", needs=["Reshape"])
case("conversions", "reshape_args", "mx.nd.arange(6).reshape(3, -1)", needs=["Reshape"])
case("conversions", "reshape_kwarg", "mx.nd.arange(6).reshape(shape=(2, 3))", needs=["Reshape"])
case("conversions", "reshape_special_codes", "mx.nd.zeros((2, 3, 4)).reshape((-3, -2)).shape", needs=["Reshape"])
case("conversions", "reshape_reverse", "mx.nd.zeros((2, 3, 4)).reshape((-1, 0), reverse=True).shape", needs=["Reshape"])
case("conversions", "reshape_bad", "mx.nd.zeros((2, 3)).reshape((4, 2))", needs=["Reshape"])
case("conversions", "broadcast_to", "mx.nd.array([[1], [2]]).broadcast_to((2, 3))", needs=["broadcast_to"])

# ----------------------------------------------------------------------------- arithmetic
A = "a = mx.nd.array([[1, 2], [3, 4]]); "
I = "i = mx.nd.array([1, 2, 3, 7], dtype='int32'); "
case("arith", "add_arrays", A + "a + a")
case("arith", "add_broadcast", A + "a + mx.nd.array([10, 20])")
case("arith", "add_scalar", A + "a + 1")
case("arith", "radd_scalar", A + "1.5 + a")
case("arith", "add_np_scalar", A + "a + np.float64(2)")
case("arith", "add_numpy_array", A + "a + np.array([1.0, 2.0])")
case("arith", "radd_numpy_array", A + "np.array([1.0, 2.0]) + a")
case("arith", "rmul_numpy_scalar", A + "np.float32(2) * a")
case("arith", "rsub_numpy_scalar", A + "np.float64(1) - a")
case("arith", "gt_numpy_scalar_reflected", A + "np.float32(2) > a")
case("arith", "sub_scalar", A + "a - 1")
case("arith", "rsub_scalar", A + "10 - a")
case("arith", "mul", A + "a * a")
case("arith", "rmul", A + "3 * a")
case("arith", "div", A + "a / a")
case("arith", "div_scalar", A + "a / 2")
case("arith", "rdiv_scalar", A + "1 / a")
case("arith", "mod_scalar", A + "a % 3")
case("arith", "rmod_scalar", A + "7 % a")
case("arith", "mod_negative", "mx.nd.array([-3, 3]) % 2")
case("arith", "pow_scalar", A + "a ** 2")
case("arith", "rpow_scalar", A + "2 ** a")
case("arith", "pow_arrays", A + "a ** a")
case("arith", "neg", A + "-a")
case("arith", "pos", A + "+a")
case("arith", "abs", "abs(mx.nd.array([-1, 2]))")
case("arith", "int_mul_float_scalar", I + "i * 1.5")
case("arith", "int_add_float_scalar", I + "i + 0.7")
case("arith", "int_div_int_scalar", I + "i / 2")
case("arith", "int_rdiv_scalar", I + "10 / i")
case("arith", "int_div_arrays", I + "i / mx.nd.array([2, 2, 2, 2], dtype='int32')")
case("arith", "int_mod", I + "i % 3")
case("arith", "int_pow_float", I + "i ** 0.5")
case("arith", "int_neg", I + "-i")
case("arith", "int_eq_float_scalar_truncates", I + "i == 1.5")
case("arith", "int_mod_float_scalar_truncates", I + "i % 2.5")
case("arith", "int_rsub_float_scalar_truncates", I + "0.5 - i")
case("arith", "int_rpow_float_scalar_truncates", I + "2.5 ** i")
case("arith", "float16_add_scalar", "mx.nd.array([1, 2], dtype='float16') + 0.1")
case("arith", "float64_mul", "mx.nd.array([1, 2], dtype='float64') * 0.1")
case("arith", "uint8_add_wraps", "mx.nd.array([250], dtype='uint8') + 10")
case("arith", "mixed_dtype_arrays", "mx.nd.array([1, 2], dtype='int32') + mx.nd.array([1, 2])")
case("arith", "shape_mismatch", A + "a + mx.nd.ones((3,))")
case("arith", "bad_operand", A + "a + 'x'")
case("arith", "bad_operand_list", A + "a + [1, 2]")
case("arith", "nd_add_helper_scalars", "mx.nd.add(1, 2)")
case("arith", "nd_add_helper", A + "mx.nd.add(a, 1)")
case("arith", "nd_subtract_helper_reflected", A + "mx.nd.subtract(10, a)")
case("arith", "nd_divide_helper_reflected", A + "mx.nd.divide(1, a)")
case("arith", "nd_power_helper_reflected", A + "mx.nd.power(2, a)")
case("arith", "nd_modulo_helper_reflected", A + "mx.nd.modulo(7, a)")
case("arith", "nd_maximum_helper", A + "mx.nd.maximum(a, 2.5)")
case("arith", "nd_minimum_helper_reflected", A + "mx.nd.minimum(2.5, a)")
case("arith", "nd_multiply_arrays", A + "mx.nd.multiply(a, mx.nd.array([1, -1]))")
case("arith", "nd_true_divide", A + "mx.nd.true_divide(a, 2)")
case("arith", "nd_hypot", "mx.nd.hypot(mx.nd.array([3, 5]), 4)")

# ----------------------------------------------------------------------------- comparisons
case("compare", "eq_scalar", A + "a == 2")
case("compare", "ne_scalar", A + "a != 2")
case("compare", "gt_array", A + "a > mx.nd.array([[2, 2], [2, 2]])")
case("compare", "ge_broadcast", A + "a >= mx.nd.array([2, 3])")
case("compare", "lt_scalar", A + "a < 3")
case("compare", "le_scalar", A + "a <= 3")
case("compare", "reflected_lt", A + "2 < a")
case("compare", "reflected_ge", A + "2 >= a")
case("compare", "int_comparison_dtype", I + "i > 2")
case("compare", "int_compare_float_scalar", I + "i == 1.0")
case("compare", "eq_none", A + "a == None")
case("compare", "ne_none", A + "a != None")
case("compare", "nd_equal_helper", A + "mx.nd.equal(a, 2)")
case("compare", "nd_greater_helper_reflected", A + "mx.nd.greater(2, a)")
case("compare", "nd_lesser_equal_helper_reflected", A + "mx.nd.lesser_equal(2, a)")
case("compare", "nd_logical_and", "mx.nd.logical_and(mx.nd.array([0, 1, 2]), mx.nd.array([1, 1, 0]))")
case("compare", "nd_logical_or_scalar", "mx.nd.logical_or(mx.nd.array([0, 1, 2]), 0)")
case("compare", "nd_logical_xor", "mx.nd.logical_xor(mx.nd.array([0, 1, 2]), mx.nd.array([1, 1, 0]))")
case("compare", "nd_not_equal_helper", "mx.nd.not_equal(mx.nd.array([1, 2]), mx.nd.array([1, 3]))")

case("compare", "hashable", "a = mx.nd.array([1]); len({a, a, mx.nd.array([1])})")

# ----------------------------------------------------------------------------- in-place
case("inplace", "iadd_same_object", A + "b = a; a += 1; (b is a, a)")
case("inplace", "iadd_array", A + "a += mx.nd.ones((2, 2)); a")
case("inplace", "iadd_broadcast", A + "a += mx.nd.array([1, 2]); a")
case("inplace", "isub", A + "a -= 1; a")
case("inplace", "imul", A + "a *= 2; a")
case("inplace", "itruediv", A + "a /= 2; a")
case("inplace", "imod", A + "a %= 3; a")
case("inplace", "int_iadd_float", I + "i += 1.5; i")
case("inplace", "int_imul_float", I + "i *= 1.5; i")
case("inplace", "int_idiv", I + "i /= 2; i")
case("inplace", "iadd_view_writes_through", """
    a = mx.nd.zeros((2, 3))
    v = a[1]
    v += 5
    a
""")
case("inplace", "iadd_shape_growth", "a = mx.nd.ones((2,)); a += mx.nd.ones((3, 2)); a")
case("inplace", "iadd_numpy", A + "a += np.array([1, 1]); a")

# ----------------------------------------------------------------------------- indexing
X = "x = mx.nd.arange(12).reshape((3, 4)); "
case("indexing", "int", X + "x[1]", needs=["Reshape"])
case("indexing", "int_int", X + "x[1, 2]", needs=["Reshape"])
case("indexing", "negative", X + "x[-1]", needs=["Reshape"])
case("indexing", "slice", X + "x[1:]", needs=["Reshape"])
case("indexing", "slice_step", X + "x[:, ::2]", needs=["Reshape"])
case("indexing", "slice_negative_step", X + "x[::-1, 1]", needs=["Reshape"])
case("indexing", "ellipsis", X + "x[..., 1]", needs=["Reshape"])
case("indexing", "newaxis", X + "x[None, 1].shape", needs=["Reshape"])
case("indexing", "list", X + "x[[0, 2]]", needs=["Reshape"])
case("indexing", "ndarray_index", X + "x[mx.nd.array([2, 0])]", needs=["Reshape"])
case("indexing", "numpy_index", X + "x[np.array([1, 1])]", needs=["Reshape"])
case("indexing", "advanced_pair", X + "x[[0, 1], [1, 2]]", needs=["Reshape"])
case("indexing", "out_of_range", X + "x[3]", needs=["Reshape"])
case("indexing", "too_many", X + "x[0, 0, 0]", needs=["Reshape"])
case("indexing", "float_index", X + "x[1.5]", needs=["Reshape"])
case("indexing", "1d_int_gives_1elem", "mx.nd.array([1, 2, 3])[1]")
case("indexing", "set_int", X + "x[1] = 0; x", needs=["Reshape"])
case("indexing", "set_slice_array", X + "x[:, 1:3] = mx.nd.ones((3, 2)); x", needs=["Reshape"])
case("indexing", "set_all_scalar", X + "x[:] = 7; x", needs=["Reshape"])
case("indexing", "set_numpy", X + "x[0] = np.array([9, 8, 7, 6]); x", needs=["Reshape"])
case("indexing", "set_broadcast_row", X + "x[:] = mx.nd.array([1, 2, 3, 4]); x", needs=["Reshape"])
case("indexing", "set_bad_shape", X + "x[0] = mx.nd.ones((3,))", needs=["Reshape"])
case("indexing", "set_int_array", "i = mx.nd.zeros((3,), dtype='int32'); i[1] = 2.7; i")
case("indexing", "view_shares_memory", "a = mx.nd.zeros((2, 2)); v = a[0]; v[:] = 3; a")

# ----------------------------------------------------------------------------- methods and front helpers
M = "m = mx.nd.array([[1, -2, 3], [-4, 5, -6]]); "
case("methods", "sum_axis", M + "m.sum(axis=1)", needs=["sum"])
case("methods", "sum_all", M + "m.sum()", needs=["sum"])
case("methods", "mean_keepdims", M + "m.mean(axis=0, keepdims=True)", needs=["mean"])
case("methods", "max_min", M + "(m.max(), m.min(axis=1))", needs=["max", "min"])
case("methods", "relu", M + "m.relu()")
case("methods", "abs", M + "m.abs()")
case("methods", "sigmoid", M + "m.sigmoid()")
case("methods", "exp_log", "mx.nd.array([1, 2]).exp().log()")
case("methods", "clip", M + "m.clip(-1, 2)", needs=["clip"])
case("methods", "square_sqrt", M + "m.square().sqrt()")
case("methods", "slice_axis", M + "m.slice_axis(axis=1, begin=1, end=3)", needs=["slice_axis"])
case("methods", "slice", M + "m.slice(begin=(0, 1), end=(2, 3))", needs=["slice"])
case("methods", "transpose", M + "m.transpose()", needs=["transpose"])
case("methods", "transpose_axes", "mx.nd.zeros((2, 3, 4)).transpose(axes=(2, 0, 1)).shape", needs=["transpose"])
case("methods", "expand_dims", M + "m.expand_dims(axis=1).shape", needs=["expand_dims"])
case("methods", "flatten", "mx.nd.zeros((2, 3, 4)).flatten().shape", needs=["Flatten"])
case("methods", "squeeze", "mx.nd.zeros((2, 1, 3)).squeeze().shape", needs=["squeeze"])
case("methods", "argmax", M + "m.argmax(axis=1)", needs=["argmax"])
case("methods", "one_hot", "mx.nd.array([0, 2]).one_hot(3)", needs=["one_hot"])
case("methods", "tile", "mx.nd.array([1, 2]).tile(reps=(2,))", needs=["tile"])
case("methods", "softmax", "mx.nd.array([[1, 2, 3]]).softmax()", needs=["softmax"])
case("methods", "split_method", M + "m.split(num_outputs=3, axis=1)", needs=["SliceChannel"])
case("methods", "swapaxes", M + "m.swapaxes(0, 1)", needs=["SwapAxis"])
case("methods", "norm", M + "m.norm()", needs=["norm"])
case("methods", "topk", M + "m.topk(k=2)", needs=["topk"])
case("methods", "sort", M + "m.sort()", needs=["sort"])
case("methods", "take", M + "m.take(mx.nd.array([1]))", needs=["take"])
case("methods", "pick", M + "m.pick(mx.nd.array([0, 2]), axis=1)", needs=["pick"])
case("methods", "nd_concat", "mx.nd.concat(mx.nd.ones((1, 2)), mx.nd.zeros((2, 2)), dim=0)", needs=["Concat"])
case("methods", "nd_concat_default_dim", "mx.nd.concat(mx.nd.ones((2, 1)), mx.nd.zeros((2, 2)))", needs=["Concat"])
case("methods", "nd_Concat_alias", "mx.nd.Concat(mx.nd.ones((2, 1)), mx.nd.zeros((2, 2)), dim=1)", needs=["Concat"])
case("methods", "nd_concat_bad", "mx.nd.concat(mx.nd.ones((1, 2)), mx.nd.zeros((2, 3)), dim=0)", needs=["Concat"])
case("methods", "nd_stack", "mx.nd.stack(mx.nd.ones((2,)), mx.nd.zeros((2,)))", needs=["stack"])
case("methods", "nd_stack_axis", "mx.nd.stack(mx.nd.ones((2,)), mx.nd.zeros((2,)), axis=1)", needs=["stack"])
case("methods", "nd_split", "mx.nd.split(mx.nd.arange(6).reshape((2, 3)), num_outputs=3, axis=1)",
     needs=["SliceChannel", "Reshape"])
case("methods", "nd_split_squeeze", "mx.nd.split(mx.nd.arange(6).reshape((2, 3)), 2, axis=0, squeeze_axis=True)",
     needs=["SliceChannel", "Reshape"])
case("methods", "nd_split_one_output", "mx.nd.split(mx.nd.arange(3), num_outputs=1)", needs=["SliceChannel"])
case("methods", "nd_split_uneven", "mx.nd.split(mx.nd.arange(5), num_outputs=2)", needs=["SliceChannel"])
case("methods", "nd_concatenate", "mx.nd.concatenate([mx.nd.ones((1, 2)), mx.nd.zeros((2, 2))])", needs=["Concat"])
case("methods", "nd_concatenate_axis1", "mx.nd.concatenate([mx.nd.ones((2, 1)), mx.nd.zeros((2, 2))], axis=1)",
     needs=["Concat"])
case("methods", "nd_concatenate_single_no_copy", "a = mx.nd.ones((2,)); mx.nd.concatenate([a], always_copy=False) is a")
case("methods", "nd_moveaxis", "mx.nd.moveaxis(mx.nd.zeros((2, 3, 4)), 0, -1).shape", needs=["transpose"])
case("methods", "nd_moveaxis_multiple", "mx.nd.moveaxis(mx.nd.zeros((2, 3, 4)), [0, 1], [2, 0]).shape",
     needs=["transpose"])
case("methods", "nd_moveaxis_bad", "mx.nd.moveaxis(mx.nd.zeros((2, 3)), 0, 5)", needs=["transpose"])
case("methods", "nd_split_v2_sections", "mx.nd.split_v2(mx.nd.arange(6), 3)", needs=["_split_v2"])
case("methods", "nd_split_v2_indices", "mx.nd.split_v2(mx.nd.arange(12).reshape((3, 4)), (1, 3), axis=1)",
     needs=["_split_v2", "Reshape"])
case("methods", "nd_split_v2_unequal", "mx.nd.split_v2(mx.nd.arange(5), 2)", needs=["_split_v2"])
case("methods", "nd_onehot_encode", "o = mx.nd.zeros((2, 4)); mx.nd.onehot_encode(mx.nd.array([3, 1]), o); o",
     needs=["one_hot"])
case("methods", "nd_from_numpy_shares",
     "n = np.arange(3, dtype=np.float64); a = mx.nd.from_numpy(n); (a, n.flags['WRITEABLE'])")
case("methods", "nd_from_numpy_copy",
     "n = np.arange(3, dtype=np.int32); a = mx.nd.from_numpy(n, zero_copy=False); n[0] = 7; a")
case("methods", "nd_dlpack_roundtrip", "a = mx.nd.array([[1, 2]]); mx.nd.from_dlpack(mx.nd.to_dlpack_for_read(a))")
case("methods", "nd_op_out", "o = mx.nd.zeros((2,)); r = mx.nd.relu(mx.nd.array([-1, 2]), out=o); (r is o, o)")

# ----------------------------------------------------------------------------- autograd
G = "x = mx.nd.array([1, 2, 3]); x.attach_grad(); "
case("autograd", "record_flags", """
    flags = [(mx.autograd.is_recording(), mx.autograd.is_training())]
    with mx.autograd.record():
        flags.append((mx.autograd.is_recording(), mx.autograd.is_training()))
        with mx.autograd.pause():
            flags.append((mx.autograd.is_recording(), mx.autograd.is_training()))
        with mx.autograd.predict_mode():
            flags.append((mx.autograd.is_recording(), mx.autograd.is_training()))
    with mx.autograd.record(train_mode=False):
        flags.append((mx.autograd.is_recording(), mx.autograd.is_training()))
    with mx.autograd.train_mode():
        flags.append((mx.autograd.is_recording(), mx.autograd.is_training()))
        with mx.autograd.pause(train_mode=True):
            flags.append((mx.autograd.is_recording(), mx.autograd.is_training()))
    flags.append((mx.autograd.is_recording(), mx.autograd.is_training()))
    flags
""")
case("autograd", "set_recording_returns_previous", """
    a = mx.autograd.set_recording(True)
    b = mx.autograd.set_recording(False)
    c = mx.autograd.set_training(True)
    d = mx.autograd.set_training(False)
    (a, b, c, d)
""")
case("autograd", "backward_square", G + """
    with mx.autograd.record():
        y = x * x
    y.backward()
    x.grad
""")
case("autograd", "backward_head_grad", G + """
    with mx.autograd.record():
        y = x * x
    y.backward(mx.nd.array([1, 0.5, 2]))
    x.grad
""")
case("autograd", "backward_inside_record", G + """
    with mx.autograd.record():
        y = 3 * x + x ** 2
        y.backward()
    x.grad
""")
case("autograd", "grad_req_write_overwrites", G + """
    for _ in range(2):
        with mx.autograd.record():
            y = x * 2
        y.backward()
    x.grad
""")
case("autograd", "grad_req_add_accumulates", """
    x = mx.nd.array([1, 2, 3])
    x.attach_grad(grad_req='add')
    for _ in range(3):
        with mx.autograd.record():
            y = x * x
        y.backward()
    x.grad
""")
case("autograd", "grad_req_null", """
    x = mx.nd.array([1, 2, 3])
    x.attach_grad(grad_req='null')
    w = mx.nd.array([1, 1, 1])
    w.attach_grad()
    with mx.autograd.record():
        y = x * w
    y.backward()
    (x.grad, w.grad)
""")
case("autograd", "attach_grad_resets_grad", G + """
    with mx.autograd.record():
        y = x * 2
    y.backward()
    x.attach_grad()
    x.grad
""")
case("autograd", "unreached_variable_write_zeroed", """
    x = mx.nd.array([1, 2]); x.attach_grad()
    z = mx.nd.array([5, 5]); z.attach_grad()
    with mx.autograd.record():
        y = z * 2
    y.backward()
    with mx.autograd.record():
        y = x * 3
    y.backward()
    (x.grad, z.grad)
""")
case("autograd", "backward_multiple_heads", """
    x = mx.nd.array([1, 2]); x.attach_grad()
    with mx.autograd.record():
        a = x * 2
        b = x * x
    mx.autograd.backward([a, b])
    x.grad
""")
case("autograd", "backward_multiple_heads_with_grads", """
    x = mx.nd.array([1, 2]); x.attach_grad()
    with mx.autograd.record():
        a = x * 2
        b = x * x
    mx.autograd.backward([a, b], [mx.nd.array([1, 1]), mx.nd.array([0.5, 0.5])])
    x.grad
""")
case("autograd", "backward_twice_without_retain", G + """
    with mx.autograd.record():
        y = x * x
    y.backward()
    y.backward()
""")
case("autograd", "backward_twice_with_retain", G + """
    with mx.autograd.record():
        y = x * x
    y.backward(retain_graph=True)
    y.backward()
    x.grad
""")
case("autograd", "backward_not_recorded", G + "y = x * 2; y.backward()")
case("autograd", "backward_of_variable_itself", G + "x.backward()")
case("autograd", "no_graph_outside_record", G + """
    y = x * 2
    with mx.autograd.record():
        z = y * x
    z.backward()
    x.grad
""")
case("autograd", "pause_blocks_gradient", G + """
    with mx.autograd.record():
        with mx.autograd.pause():
            c = x * 10
        y = c * x
    y.backward()
    x.grad
""")
case("autograd", "detach_blocks_gradient", G + """
    with mx.autograd.record():
        y = x.detach() * x
    y.backward()
    x.grad
""")
case("autograd", "grad_function_list", G + """
    with mx.autograd.record():
        y = x * x * x
    mx.autograd.grad(y, [x])
""")
case("autograd", "grad_function_single_variable", G + """
    with mx.autograd.record():
        y = x * x
    mx.autograd.grad(y, x)
""")
case("autograd", "grad_does_not_touch_grad_buffer", G + """
    with mx.autograd.record():
        y = x * x
    mx.autograd.grad(y, [x])
    x.grad
""")
case("autograd", "grad_head_grads", G + """
    with mx.autograd.record():
        y = x * x
    mx.autograd.grad(y, [x], head_grads=mx.nd.array([1, 2, 3]))
""")
case("autograd", "second_order_sin", """
    x = mx.nd.array([0.5, 1]); x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.sin(x)
        dy = mx.autograd.grad(y, [x], create_graph=True)[0]
    dy.backward()
    (dy, x.grad)
""")
case("autograd", "grad_two_variables", """
    a = mx.nd.array([1, 2]); a.attach_grad()
    b = mx.nd.array([3, 4]); b.attach_grad()
    with mx.autograd.record():
        y = a * b + a
    mx.autograd.grad(y, [a, b])
""")
case("autograd", "mark_variables", """
    x = mx.nd.array([1, 2])
    g = mx.nd.zeros((2,))
    mx.autograd.mark_variables([x], [g])
    with mx.autograd.record():
        y = x * x * 2
    y.backward()
    (g, x.grad)
""")
case("autograd", "mark_variables_add", """
    x = mx.nd.array([1, 2])
    g = mx.nd.ones((2,))
    mx.autograd.mark_variables(x, g, grad_reqs='add')
    with mx.autograd.record():
        y = x * 3
    y.backward()
    g
""")
case("autograd", "function_sigmoid", """
    class sigmoid(mx.autograd.Function):
        def forward(self, x):
            y = 1 / (1 + mx.nd.exp(-x))
            self.save_for_backward(y)
            return y

        def backward(self, dy):
            y, = self.saved_tensors
            return dy * y * (1 - y)

    x = mx.nd.array([-1, 0, 2]); x.attach_grad()
    with mx.autograd.record():
        m = sigmoid()(x)
        m.backward()
    (m, x.grad)
""")
case("autograd", "function_custom_gradient", """
    class Twice(mx.autograd.Function):
        def forward(self, x):
            return x * 1
        def backward(self, dy):
            return dy * 2
    x = mx.nd.array([1, 2]); x.attach_grad()
    with mx.autograd.record():
        y = Twice()(x) * x
    y.backward()
    x.grad
""")
case("autograd", "function_two_inputs_outputs", """
    class AddSub(mx.autograd.Function):
        def forward(self, a, b):
            return a + b, a - b
        def backward(self, da, db):
            return da + db, da - db
    a = mx.nd.array([1, 2]); a.attach_grad()
    b = mx.nd.array([3, 5]); b.attach_grad()
    with mx.autograd.record():
        s, d = AddSub()(a, b)
        z = s * 2 + d * 3
    z.backward()
    (s, d, a.grad, b.grad)
""")
case("autograd", "function_outside_record", """
    class Double(mx.autograd.Function):
        def forward(self, x):
            return x * 2
        def backward(self, dy):
            return dy * 2
    Double()(mx.nd.array([1, 2]))
""")
case("autograd", "function_called_twice", """
    class Ident(mx.autograd.Function):
        def forward(self, x):
            return x * 1
        def backward(self, dy):
            return dy
    f = Ident()
    f(mx.nd.array([1]))
    f(mx.nd.array([1]))
""")
case("autograd", "inplace_while_recording", G + """
    with mx.autograd.record():
        y = x * 2
        y += x
        z = y * x
    z.backward()
    x.grad
""")
case("autograd", "setitem_recorded_intermediate", G + """
    with mx.autograd.record():
        y = x * 2
        y[1] = 0
        z = y * x
    z.backward()
    x.grad
""")
case("autograd", "inplace_on_variable_while_recording", G + """
    with mx.autograd.record():
        x += 1
""")
case("autograd", "setitem_on_variable_while_recording", G + "with mx.autograd.record():\n    x[0] = 1")
case("autograd", "inplace_from_variable_while_recording", G + """
    y = mx.nd.array([1, 2, 3])
    with mx.autograd.record():
        y += x
""")
case("autograd", "inplace_plain_array_while_recording", """
    y = mx.nd.array([1, 2])
    with mx.autograd.record():
        y += 1
    y
""")
case("autograd", "inplace_on_variable_outside_record", G + """
    x += 1
    (x, x.grad)
""")
case("autograd", "inplace_on_result_outside_record", G + """
    with mx.autograd.record():
        y = x * 2
    y += 1
    y[0] = 5
    y
""")
case("autograd", "out_fresh_array_while_recording", G + """
    with mx.autograd.record():
        y = x * 2
        o = mx.nd.zeros((3,))
        mx.nd.relu(y, out=o)
        z = o * x
    z.backward()
    x.grad
""")
case("autograd", "getitem_recorded", G + """
    with mx.autograd.record():
        y = x[1:] * 3
    y.backward()
    x.grad
""")
case("autograd", "int_grad_attach", "i = mx.nd.array([1, 2], dtype='int32'); i.attach_grad(); i.grad")
case("autograd", "dropout_follows_training", """
    x = mx.nd.ones((1000,))
    with mx.autograd.record():
        train = mx.nd.Dropout(x, p=0.5)
    with mx.autograd.record(train_mode=False):
        pred = mx.nd.Dropout(x, p=0.5)
    with mx.autograd.train_mode():
        tm = mx.nd.Dropout(x, p=0.5)
    plain = mx.nd.Dropout(x, p=0.5)
    ((train == 0).sum().asscalar() > 300, pred, (tm == 0).sum().asscalar() > 300, plain)
""", needs=["Dropout", "sum"])
case("autograd", "broadcast_grad_reduces", """
    a = mx.nd.array([[1, 2], [3, 4]]); a.attach_grad()
    b = mx.nd.array([10, 20]); b.attach_grad()
    with mx.autograd.record():
        y = a * b
    y.backward()
    (a.grad, b.grad)
""")
case("autograd", "float64_grad_dtype", """
    x = mx.nd.array([1, 2], dtype='float64'); x.attach_grad()
    with mx.autograd.record():
        y = x * x
    y.backward()
    x.grad
""")


# ----------------------------------------------------------------------------- test_utils
T = "tu = mx.test_utils; aae = tu.assert_almost_equal; "
case("test_utils", "default_context", T + "tu.default_context()")
case("test_utils", "default_dtype", T + "tu.default_dtype()")
case("test_utils", "set_default_context", T + """
    prev = tu.default_context()
    tu.set_default_context(mx.cpu(1))
    now = tu.default_context()
    tu.set_default_context(prev)
    now
""")
case("test_utils", "get_tols_float32", T + "tu.get_tols(np.ones(1, np.float32), np.ones(1, np.float32), None, None)")
case("test_utils", "get_tols_mixed_float16", T + "tu.get_tols(np.ones(1, np.float16), mx.nd.ones((1,)), None, None)")
case("test_utils", "get_tols_float64", T + "tu.get_tols(np.ones(1), np.ones(1), None, None)")
case("test_utils", "get_tols_int", T + "tu.get_tols(np.ones(1, np.int32), np.ones(1, np.int64), None, None)")
case("test_utils", "get_tols_python_numbers", T + "tu.get_tols(1.0, 2, None, None)")
case("test_utils", "get_tols_explicit", T + "tu.get_tols(np.ones(1), np.ones(1), 0.5, 0.25)")
case("test_utils", "get_tols_dict", T + "tu.get_tols(np.ones(1, np.float32), np.ones(1, np.float32), "
     "{np.dtype(np.float32): 0.2}, {np.dtype(np.float64): 0.3})")
case("test_utils", "get_rtol_atol",
     T + "(tu.get_rtol(), tu.get_atol(), tu.get_rtol(0.1), tu.get_atol(dtype=np.dtype(np.float16)))")
case("test_utils", "almost_equal_default_float64", T + "(tu.almost_equal(np.array([1.0]), np.array([1.000001])), "
     "tu.almost_equal(np.array([1.0]), np.array([1.001])))")
case("test_utils", "almost_equal_tolerances",
     T + "tu.almost_equal(np.array([1.0, 2.0]), np.array([1.1, 2.0]), rtol=0, atol=0.2)")
case("test_utils", "almost_equal_nan", T + "(tu.almost_equal(np.array([np.nan]), np.array([np.nan])), "
     "tu.almost_equal(np.array([np.nan]), np.array([np.nan]), equal_nan=True))")
case("test_utils", "almost_equal_broadcast", T + "tu.almost_equal(np.ones((2, 3)), np.ones(3))")
case("test_utils", "assert_float32_default_passes", T + "aae(np.array([1.0, 2.0], np.float32), "
     "np.array([1.0005, 2.0], np.float32))")
case("test_utils", "assert_float64_default_fails", T + "aae(np.array([1.0, 2.0]), np.array([1.0005, 2.0]))")
case("test_utils", "assert_float16_loose", T + "aae(np.array([1.0], np.float16), np.array([1.05], np.float32))")
case("test_utils", "assert_ndarray_inputs", T + "aae(mx.nd.array([1, 2]), mx.nd.array([1, 2.00001]))")
case("test_utils", "assert_ndarray_numpy_mixed", T + "aae(mx.nd.array([1, 2]), np.array([1.0, 2.5]))")
case("test_utils", "assert_int_exact", T + "aae(np.array([1, 2]), np.array([1, 3]))")
case("test_utils", "assert_int_equal", T + "aae(mx.nd.array([1, 2], dtype='int32'), np.array([1, 2], np.int32))")
case("test_utils", "assert_bool", T + "aae(np.array([True, False]), np.array([True, True]))")
case("test_utils", "assert_explicit_tols", T + "aae(np.array([1.0]), np.array([1.4]), rtol=0.5, atol=0)")
case("test_utils", "assert_nan_default_fails", T + "aae(np.array([np.nan, 1.0]), np.array([np.nan, 1.0]))")
case("test_utils", "assert_nan_equal_nan", T + "aae(np.array([np.nan, 1.0]), np.array([np.nan, 1.0]), "
     "equal_nan=True)")
case("test_utils", "assert_shape_mismatch_no_broadcast", T + "aae(np.ones((2, 2)), np.ones(2), use_broadcast=False)")
case("test_utils", "assert_allclose", T + "tu.assert_allclose(np.array([1.0, np.nan]), np.array([1.0, np.nan]))")
case("test_utils", "same", T + "(tu.same(np.array([1, 2]), np.array([1, 2])), "
     "tu.same(np.array([1, 2]), np.array([1, 3])), "
     "tu.same(np.ones(2), np.ones(3)))")
case("test_utils", "np_reduce_axis_list", T + "tu.np_reduce(np.arange(24.0).reshape(2, 3, 4), [0, 2], True, np.sum)")
case("test_utils", "np_reduce_all", T + "tu.np_reduce(np.arange(6.0).reshape(2, 3), None, False, np.max)")
case("test_utils", "np_reduce_int_axis", T + "tu.np_reduce(np.arange(6.0).reshape(2, 3), 1, False, np.prod)")
case("test_utils", "random_arrays_seeded", T + "np.random.seed(7); tu.random_arrays((2, 3), (), (1,))")
case("test_utils", "random_arrays_single", T + "np.random.seed(7); tu.random_arrays((2,))")
case("test_utils", "rand_ndarray_seeded", T + "np.random.seed(3); tu.rand_ndarray((2, 2))")
case("test_utils", "rand_ndarray_dtype", T + "np.random.seed(3); tu.rand_ndarray((3,), dtype='float64')")
case("test_utils", "rand_shapes_seeded", T + "np.random.seed(11); (tu.rand_shape_2d(), tu.rand_shape_3d(4, 5, 6), "
     "[int(d) for d in tu.rand_shape_nd(4, 3)], tu.rand_shape_2d(2, 2, allow_zero_size=True))")
case("test_utils", "assert_exception_passes", T + "tu.assert_exception(int, ValueError, 'x')")
case("test_utils", "assert_exception_other_error", T + "tu.assert_exception(int, TypeError, 'x')")
case("test_utils", "environment_single", T + """
    os.environ.pop('NEOGLUON_TEST_ENV', None)
    with tu.environment('NEOGLUON_TEST_ENV', '42'):
        inside = os.environ.get('NEOGLUON_TEST_ENV')
    (inside, os.environ.get('NEOGLUON_TEST_ENV'))
""")
case("test_utils", "environment_dict_restores", T + """
    os.environ['NEOGLUON_TEST_A'] = 'old'
    os.environ.pop('NEOGLUON_TEST_B', None)
    with tu.environment({'NEOGLUON_TEST_A': None, 'NEOGLUON_TEST_B': 'b'}):
        inside = (os.environ.get('NEOGLUON_TEST_A'), os.environ.get('NEOGLUON_TEST_B'))
    after = (os.environ.pop('NEOGLUON_TEST_A', None), os.environ.get('NEOGLUON_TEST_B'))
    (inside, after)
""")
case("test_utils", "environment_restores_on_error", T + """
    os.environ.pop('NEOGLUON_TEST_C', None)
    try:
        with tu.environment('NEOGLUON_TEST_C', 'x'):
            raise KeyError('boom')
    except KeyError:
        pass
    os.environ.get('NEOGLUON_TEST_C')
""")


# ----------------------------------------------------------------------------- recording the answers
def run(snippet, env):
    """Execute ``snippet``; the value of its last line (an expression) is returned."""
    tree = ast.parse(snippet)
    last = tree.body[-1]
    if isinstance(last, ast.Expr):
        tree.body.pop()
        exec(compile(tree, "<case>", "exec"), env)  # pylint: disable=exec-used
        return eval(compile(ast.Expression(last.value), "<case>", "eval"), env)  # pylint: disable=eval-used
    exec(compile(tree, "<case>", "exec"), env)  # pylint: disable=exec-used
    return None


def encode(v, mx):
    if isinstance(v, mx.nd.NDArray):
        return {"kind": "ndarray", "dtype": np.dtype(v.dtype).name, "shape": list(v.shape),
                "value": v.asnumpy().astype(np.float64).tolist()}
    if isinstance(v, np.ndarray):
        return {"kind": "numpy", "dtype": v.dtype.name, "shape": list(v.shape),
                "value": v.astype(np.float64).tolist()}
    if isinstance(v, (list, tuple)):
        return {"kind": type(v).__name__, "items": [encode(x, mx) for x in v]}
    if isinstance(v, np.generic):
        return {"kind": "npscalar", "dtype": v.dtype.name, "value": v.item()}
    if isinstance(v, type):
        return {"kind": "type", "value": "%s.%s" % (v.__module__, v.__name__)}
    if isinstance(v, mx.Context):
        return {"kind": "context", "value": str(v)}
    if v is None or isinstance(v, (bool, int, float, str)):
        return {"kind": type(v).__name__, "value": v}
    raise TypeError("cannot record %r" % (v,))


def error_info(e, mx):
    bases = [c.__name__ for c in type(e).__mro__ if c.__module__ == "builtins"
             and c not in (Exception, BaseException, object, RuntimeError)]
    return {"kind": "error", "mxnet_error": isinstance(e, mx.base.MXNetError),
            "builtin": bases, "message": str(e).split("\n")[-1][:300]}


def main():
    import mxnet as mx
    out = []
    for group, name, needs, snippet in CASES:
        env = {"mx": mx, "np": np, "pickle": pickle, "os": os}
        mx.autograd.set_recording(False)
        mx.autograd.set_training(False)
        try:
            result = encode(run(snippet, env), mx)
        except Exception as e:  # pylint: disable=broad-except
            result = error_info(e, mx)
        out.append({"group": group, "name": name, "needs": needs, "code": snippet, "expected": result})
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump({"mxnet": mx.__version__, "cases": out}, f, indent=1)
    print("wrote %d cases to %s" % (len(out), os.path.normpath(OUT)))


if __name__ == "__main__":
    main()
