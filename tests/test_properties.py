"""Property tests: reshape codes, broadcasting arithmetic and NDArray indexing against
numpy references written here from MXNet's documented rules.

MXNet 1.x has no 0-d arrays: where numpy returns a 0-d result, MXNet returns shape
``(1,)``. Hard-coded examples (checked against MXNet 1.9.1) pin the tricky cases.
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import neogluon as mx
from neogluon.base import MXNetError

SETTINGS = settings(deadline=None, max_examples=40)


def mxnet_shape(shape):
    """The shape MXNet 1.x gives where numpy gives ``shape`` (no 0-d arrays)."""
    return tuple(shape) or (1,)


# ----------------------------------------------------------------------------- reshape codes
def reference_reshape(dshape, codes, reverse=False):
    """MXNet's documented reshape rules, evaluated left to right on a queue of input dims:
    a positive code is taken as is and consumes one input dim; 0 copies one input dim;
    -1 is inferred at the end and consumes one input dim; -2 copies all remaining input
    dims; -3 multiplies the next two; -4 splits the next one into the two codes after it
    (one of which may be -1). ``reverse`` applies the rules from the right."""
    if reverse:
        return tuple(reversed(reference_reshape(tuple(reversed(dshape)), tuple(reversed(codes)))))
    dims, codes, out, infer_at = list(dshape), list(codes), [], None
    while codes:
        c = codes.pop(0)
        if c == -2:
            out += dims
            dims = []
            continue
        if c == -4:
            d, a, b = dims.pop(0), codes.pop(0), codes.pop(0)
            out += [d // b if a == -1 else a, d // a if b == -1 else b]
            continue
        d = dims.pop(0) if dims else None
        if c == -3:
            out.append(d * dims.pop(0))
        elif c == -1:
            infer_at = len(out)
            out.append(1)
        else:
            out.append(d if c == 0 else c)
    if infer_at is not None:
        out[infer_at] = int(np.prod(dshape)) // int(np.prod(out))
    return tuple(out)


@st.composite
def reshape_cases(draw):
    """An input shape and a valid list of codes for it (with reverse when it is safe)."""
    dshape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=4)))
    reverse = draw(st.booleans())
    codes, i, inferred = [], 0, False
    while i < len(dshape):
        choices = ["keep", "explicit"]
        if not inferred:
            choices.append("infer")
        if i + 1 < len(dshape):
            choices.append("merge")
        if not reverse:
            choices.append("split")  # MXNet 1.9.1 rejects -4 with reverse=True
        if i > 0 and not reverse:
            choices.append("rest")  # from the right, -2 would leave nothing for the codes after it
        kind = draw(st.sampled_from(choices))
        d = dshape[i]
        if kind == "rest":
            codes.append(-2)
            i = len(dshape)
            continue
        if kind == "keep":
            codes.append(0)
        elif kind == "explicit":
            codes.append(d)
        elif kind == "infer":
            codes.append(-1)
            inferred = True
        elif kind == "merge":
            codes.append(-3)
            i += 1
        else:
            a = draw(st.sampled_from([k for k in range(1, d + 1) if d % k == 0]))
            pair = draw(st.sampled_from([(a, d // a), (-1, d // a), (a, -1)]))
            codes += [-4, *pair]
        i += 1
    ones = [1] * draw(st.integers(0, 1))  # an extra unit axis, on the side the codes are read from last
    codes = ones + codes if reverse else codes + ones
    return dshape, tuple(codes), reverse


@SETTINGS
@given(reshape_cases())
def test_reshape_codes_match_the_documented_rules(case):
    dshape, codes, reverse = case
    x = np.arange(int(np.prod(dshape)), dtype=np.float32).reshape(dshape)
    out = mx.nd.array(x).reshape(codes, reverse=reverse)
    expected = reference_reshape(dshape, codes, reverse)
    assert out.shape == expected
    np.testing.assert_array_equal(out.asnumpy(), x.reshape(expected))


# answers of MXNet 1.9.1 (its documentation's examples and a few more)
RESHAPE_EXAMPLES = [
    ((2, 3, 4), (4, 0, 2), False, (4, 3, 2)),
    ((2, 3, 4), (2, 0, 0), False, (2, 3, 4)),
    ((2, 3, 4), (6, 1, -1), False, (6, 1, 4)),
    ((2, 3, 4), (3, 2, -1), False, (3, 2, 4)),
    ((2, 3, 4), (2, -2), False, (2, 3, 4)),
    ((2, 3, 4), (-2, 1, 1), False, (2, 3, 4, 1, 1)),
    ((2, 3, 4, 5), (-3, -3), False, (6, 20)),
    ((2, 3, 4), (0, -3), False, (2, 12)),
    ((2, 3, 4), (-3, -2), False, (6, 4)),
    ((2, 3, 4), (-4, 1, 2, -2), False, (1, 2, 3, 4)),
    ((2, 3, 4), (2, -4, -1, 3, -2), False, (2, 1, 3, 4)),
    ((2, 3, 4), (0, -4, -1, 1, 0), False, (2, 3, 1, 4)),
    ((2, 3, 4), (-4, 1, -1, 0, 0), False, (1, 2, 3, 4)),
    ((10, 5, 4), (-1, 0), False, (40, 5)),
    ((10, 5, 4), (-1, 0), True, (50, 4)),
    ((2, 3, 4), (0, -1, 2), True, (2, 6, 2)),
]


@pytest.mark.parametrize("dshape,codes,reverse,expected", RESHAPE_EXAMPLES)
def test_reshape_examples_from_mxnet(dshape, codes, reverse, expected):
    assert mx.nd.zeros(dshape).reshape(codes, reverse=reverse).shape == expected
    assert reference_reshape(dshape, codes, reverse) == expected


@pytest.mark.parametrize("dshape,codes,reverse", [
    ((2, 3, 4), (2, -1, -1), False),        # two inferred dims
    ((2, 3, 4), (0, 0, 0, 0), False),       # more 0s than input dims
    ((2, 3, 4), (-3, -3), False),           # nothing left to merge
    ((2, 3, 4), (-4, -1, -1, -2), False),   # a split with two unknowns
    ((2, 3, 4), (-4, 1, 2, -2), True),      # MXNet 1.9.1 cannot apply -4 from the right
    ((2, 3, 4), (5, -1), False),            # sizes differ
])
def test_reshape_errors_like_mxnet(dshape, codes, reverse):
    with pytest.raises(MXNetError, match="Reshape"):
        mx.nd.zeros(dshape).reshape(codes, reverse=reverse)


# ----------------------------------------------------------------------------- broadcasting
DTYPES = st.sampled_from([np.float32, np.int32])
ARITH = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b}
COMPARE = {"eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "lt": lambda a, b: a < b,
           "ge": lambda a, b: a >= b, "gt": lambda a, b: a > b}


@st.composite
def broadcast_pairs(draw):
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=1, max_dims=4, max_side=4))
    dtype = draw(DTYPES)
    elems = st.integers(-5, 5)
    a, b = (draw(hnp.arrays(dtype, s, elements=elems)) for s in shapes.input_shapes)
    return a, b


@SETTINGS
@given(broadcast_pairs(), st.sampled_from(sorted(ARITH)))
def test_broadcast_arithmetic_matches_numpy(pair, op):
    a, b = pair
    out = ARITH[op](mx.nd.array(a, dtype=a.dtype), mx.nd.array(b, dtype=b.dtype))
    expected = ARITH[op](a, b)
    assert out.dtype == a.dtype and out.shape == expected.shape
    np.testing.assert_array_equal(out.asnumpy(), expected)


@SETTINGS
@given(broadcast_pairs(), st.sampled_from(sorted(COMPARE)))
def test_comparisons_give_zero_one_in_the_input_dtype(pair, op):
    a, b = pair
    out = COMPARE[op](mx.nd.array(a, dtype=a.dtype), mx.nd.array(b, dtype=b.dtype))
    assert out.dtype == a.dtype
    np.testing.assert_array_equal(out.asnumpy(), COMPARE[op](a, b).astype(a.dtype))


@SETTINGS
@given(hnp.arrays(np.float32, hnp.array_shapes(max_dims=3, max_side=4), elements=st.integers(-5, 5)),
       st.integers(-3, 3), st.sampled_from(sorted(ARITH) + sorted(COMPARE)))
def test_scalar_operands_match_numpy(a, scalar, op):
    fn = ARITH.get(op) or COMPARE[op]
    out = fn(mx.nd.array(a), scalar)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out.asnumpy(), fn(a, np.float32(scalar)).astype(np.float32))


# ----------------------------------------------------------------------------- indexing
SHAPES = hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=5)


def arange(shape):
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)


def check_getitem(x, key):
    expected = x[key]
    out = mx.nd.array(x)[key]
    assert out.shape == mxnet_shape(expected.shape)
    np.testing.assert_array_equal(out.asnumpy(), np.reshape(expected, out.shape))


@SETTINGS
@given(st.data())
def test_basic_indexing_matches_numpy(data):
    """Ints, slices with any step (negative included), None and Ellipsis."""
    shape = data.draw(SHAPES)
    key = data.draw(hnp.basic_indices(shape, min_dims=0, allow_newaxis=True, allow_ellipsis=True))
    check_getitem(arange(shape), key)


def as_index(kind, arr):
    return {"list": arr.tolist(), "numpy": arr, "ndarray": mx.nd.array(arr, dtype="int64")}[kind]


@SETTINGS
@given(st.data(), st.sampled_from(["list", "numpy", "ndarray"]))
def test_integer_array_indexing_matches_numpy(data, kind):
    shape = data.draw(SHAPES)
    arrays = data.draw(hnp.integer_array_indices(shape, result_shape=hnp.array_shapes(min_dims=1, max_dims=2)))
    x = arange(shape)
    key = tuple(as_index(kind, a) for a in arrays)
    expected = x[arrays]
    out = mx.nd.array(x)[key if len(key) > 1 else key[0]]
    assert out.shape == mxnet_shape(expected.shape)
    np.testing.assert_array_equal(out.asnumpy(), np.reshape(expected, out.shape))


@SETTINGS
@given(st.data(), st.sampled_from(["list", "numpy", "ndarray"]))
def test_an_index_array_among_slices_matches_numpy(data, kind):
    """One integer array at any position, slices (any step) elsewhere. (MXNet 1.9.1
    misplaces the new axis when ``None`` is combined with an index array, so None is
    left out here.)"""
    shape = data.draw(SHAPES)
    pos = data.draw(st.integers(0, len(shape) - 1))
    key = []
    for axis, n in enumerate(shape):
        if axis == pos:
            arr = np.array(data.draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=3)))
            key.append(arr)
        else:
            key.append(slice(data.draw(st.integers(-n, n) | st.none()), data.draw(st.integers(-n, n) | st.none()),
                             data.draw(st.sampled_from([None, 1, 2, -1, -2]))))
    x = arange(shape)
    expected = x[tuple(key)]
    out = mx.nd.array(x)[tuple(as_index(kind, k) if isinstance(k, np.ndarray) else k for k in key)]
    assert out.shape == mxnet_shape(expected.shape)
    np.testing.assert_array_equal(out.asnumpy(), np.reshape(expected, out.shape))


@SETTINGS
@given(st.data())
def test_setitem_with_a_scalar_matches_numpy(data):
    shape = data.draw(SHAPES)
    key = data.draw(hnp.basic_indices(shape, allow_ellipsis=True))
    value = data.draw(st.integers(-9, 9))
    x = arange(shape)
    a = mx.nd.array(x)
    a[key] = value
    x[key] = value
    np.testing.assert_array_equal(a.asnumpy(), x)


@SETTINGS
@given(st.data(), st.sampled_from(["numpy", "ndarray"]))
def test_setitem_with_an_array_matches_numpy(data, kind):
    """The value may be any shape that broadcasts to the indexed region."""
    shape = data.draw(SHAPES)
    key = data.draw(hnp.basic_indices(shape, allow_ellipsis=True))
    x = arange(shape)
    target = x[key].shape
    trailing = target[data.draw(st.integers(0, len(target))):]
    vshape = tuple(1 if data.draw(st.booleans()) else d for d in trailing)
    value = data.draw(hnp.arrays(np.float32, vshape, elements=st.integers(-9, 9)))
    a = mx.nd.array(x)
    a[key] = value if kind == "numpy" else mx.nd.array(value)
    x[key] = value
    np.testing.assert_array_equal(a.asnumpy(), x)


@SETTINGS
@given(st.data())
def test_setitem_with_index_arrays_matches_numpy(data):
    shape = data.draw(SHAPES)
    arrays = data.draw(hnp.integer_array_indices(shape, result_shape=hnp.array_shapes(min_dims=1, max_dims=2)))
    x = arange(shape)
    # distinct positions, so that the written value does not depend on the write order
    flat = np.ravel_multi_index(tuple(np.where(a < 0, a + n, a) for a, n in zip(arrays, shape)), shape)
    if len(np.unique(flat)) != flat.size:
        arrays = tuple(a.reshape(-1)[:1] for a in arrays)
    a = mx.nd.array(x)
    a[arrays] = -1.0
    x[arrays] = -1.0
    np.testing.assert_array_equal(a.asnumpy(), x)


@pytest.mark.parametrize("key,shape", [
    ((1, 2, 3), (1,)),                                   # a scalar element is (1,), not ()
    (([0, 1], slice(1, 3)), (2, 2, 4)),
    ((slice(None), [0, 2], [1, 3]), (2, 2)),
    ((1, slice(None, None, -2)), (2, 4)),
    ((Ellipsis, None), (2, 3, 4, 1)),
    ((None, Ellipsis, 1), (1, 2, 3)),
])
def test_indexing_examples_from_mxnet(key, shape):
    assert mx.nd.arange(24).reshape((2, 3, 4))[key].shape == shape
