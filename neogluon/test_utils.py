"""``mx.test_utils``: the helpers MXNet 1.9.1's tests (and users' tests) rely on.

Comparisons follow MXNet: tolerances default per dtype (the larger of the two inputs'
defaults), inputs may be numpy arrays, NDArrays or Python numbers, and a failure raises
AssertionError naming the largest violation, its location and the mismatch fraction.
"""
import contextlib
import functools
import os
import io
import sys

import numpy as np
import numpy.random as rnd
import numpy.testing as npt
import torch

from .base import MXNetError
from .context import Context, current_context

__all__ = ["default_context", "set_default_context", "default_dtype", "default_rtols", "default_atols",
           "default_numeric_eps", "effective_dtype", "get_tolerance", "get_tols", "get_atol", "get_rtol",
           "get_etol", "random_arrays", "random_uniform_arrays", "rand_ndarray", "rand_sparse_ndarray",
           "create_sparse_array", "create_sparse_array_zd", "shuffle_csr_column_indices", "rand_shape_2d",
           "rand_shape_3d", "rand_shape_nd", "rand_coord_2d", "np_reduce", "same", "almost_equal",
           "assert_almost_equal", "assert_allclose", "assert_almost_equal_ignore_nan", "assert_exception",
           "environment", "list_gpus", "same_array", "retry", "random_sample"]

_INT_TYPES = (np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64)


def default_context():
    """The context tests run on: the current default context."""
    return current_context()


def set_default_context(ctx):
    """Make ``ctx`` the default context of this thread."""
    Context._default.value = ctx


def default_dtype():
    """The dtype of generated test data."""
    return np.float32


def _per_dtype(f16, f32, f64):
    tols = {np.dtype(np.float16): f16, np.dtype(np.float32): f32, np.dtype(np.float64): f64}
    tols.update({np.dtype(t): 0 for t in _INT_TYPES})
    return tols


def default_rtols():
    """Relative tolerance by dtype (MXNet's table; exact for integer and boolean types)."""
    return _per_dtype(1e-2, 1e-4, 1e-5)


def default_atols():
    """Absolute tolerance by dtype (MXNet's table; exact for integer and boolean types)."""
    return _per_dtype(1e-1, 1e-3, 1e-20)


def default_numeric_eps():
    """Finite-difference step by dtype (powers of two, so the step is exact)."""
    return {np.dtype(np.float16): 1.0 / 2 ** 6, np.dtype(np.float32): 1.0 / 2 ** 9,
            np.dtype(np.float64): 1.0 / 2 ** 14}


def _tf32_active(ctx):
    """Whether float32 matmuls/convolutions on ``ctx`` may run in TF32 (Ampere and later)."""
    if ctx is None or ctx.device_type != "gpu" or not torch.cuda.is_available():
        return False
    if not (torch.backends.cuda.matmul.allow_tf32 or torch.backends.cudnn.allow_tf32):
        return False
    return torch.cuda.get_device_capability(ctx.device_id)[0] >= 8 and os.environ.get("NVIDIA_TF32_OVERRIDE") != "0"


def effective_dtype(dat):
    """The dtype whose tolerance fits ``dat``: float16 for float32 data computed with TF32."""
    dtype = np.dtype(dat.dtype)
    if dtype == np.float32 and _tf32_active(getattr(dat, "ctx", None)):
        return np.dtype(np.float16)
    return dtype


def get_tolerance(dat, tol, default_tol):
    """``tol`` itself if it is a number; else its (or the default table's) entry for ``dat``'s dtype."""
    if isinstance(tol, (int, float, np.number)):
        return tol
    dtype = effective_dtype(dat)
    tol = {} if tol is None else tol
    return tol.get(dtype, default_tol[dtype])


def get_tols(x, y, rtol, atol):
    """The (rtol, atol) to compare ``x`` with ``y``: the larger default of the two dtypes."""
    x = np.array(x) if isinstance(x, (int, float)) else x
    y = np.array(y) if isinstance(y, (int, float)) else y
    rtol = max(get_tolerance(x, rtol, default_rtols()), get_tolerance(y, rtol, default_rtols()))
    atol = max(get_tolerance(x, atol, default_atols()), get_tolerance(y, atol, default_atols()))
    return rtol, atol


def get_atol(atol=None, dtype=np.dtype(np.float64)):
    """``atol``, or the default absolute tolerance of ``dtype``."""
    return default_atols()[np.dtype(dtype)] if atol is None else atol


def get_rtol(rtol=None, dtype=np.dtype(np.float64)):
    """``rtol``, or the default relative tolerance of ``dtype``."""
    return default_rtols()[np.dtype(dtype)] if rtol is None else rtol


def get_etol(etol=None):
    """The tolerated fraction of mismatching elements (0 by default)."""
    return 0 if etol is None else etol


# ----------------------------------------------------------------------------- random data
def random_arrays(*shapes):
    """Standard-normal numpy arrays of ``default_dtype()``, one per shape (a single array for one shape)."""
    arrays = [np.array(rnd.randn(), dtype=default_dtype()) if len(s) == 0
              else rnd.randn(*s).astype(default_dtype()) for s in shapes]
    return arrays[0] if len(arrays) == 1 else arrays


def random_uniform_arrays(*shapes, low=0.0, high=1.0, dtype=None):
    """Uniform numpy arrays in ``[low, high)``, one per shape (always a list)."""
    dtype = default_dtype() if dtype is None else dtype
    return [rnd.uniform(low, high, size=s).astype(dtype) for s in shapes]


def rand_ndarray(shape, stype="default", density=None, dtype=None, modifier_func=None,
                 shuffle_csr_indices=False, distribution=None, ctx=None):
    """A random NDArray of ``shape`` on ``ctx``: standard-normal values (float32 unless
    ``dtype``) for ``stype='default'``, else :func:`rand_sparse_ndarray`'s array."""
    from . import ndarray as nd
    ctx = ctx if ctx else default_context()
    if stype == "default":
        return nd.array(random_arrays(shape), dtype=dtype, ctx=ctx)
    arr, _ = rand_sparse_ndarray(shape, stype, density=density, modifier_func=modifier_func, dtype=dtype,
                                 shuffle_csr_indices=shuffle_csr_indices, distribution=distribution, ctx=ctx)
    return arr


# ----------------------------------------------------------------------------- sparse arrays
def _check_csr_request(num_rows, num_cols, density, distribution="uniform"):
    if density < 0 or density > 1:
        raise ValueError("density has to be between 0 and 1")
    if num_rows <= 0 or num_cols <= 0:
        raise ValueError("num_rows or num_cols should be greater than 0")
    if distribution == "powerlaw" and int(num_rows * num_cols * density) < 2 * num_rows:
        raise ValueError("not supported for this density: %s for this shape (%s, %s) Please keep : "
                         "num_rows * num_cols * density >= 2 * num_rows" % (density, num_rows, num_cols))


def shuffle_csr_column_indices(csr):
    """Shuffle the column indices within each row of a scipy csr matrix, in place (a CSR
    matrix need not keep them sorted)."""
    for row in range(len(csr.indptr) - 1):
        start, end = csr.indptr[row], csr.indptr[row + 1]
        block = np.array(csr.indices[start:end])
        np.random.shuffle(block)
        csr.indices[start:end] = block


def _uniform_csr(num_rows, num_cols, density, dtype, data_init, shuffle_csr_indices):
    """A CSRNDArray with ``density`` of its entries set, uniform in [0, 1) (scipy's
    ``sparse.rand``; without scipy, a masked dense uniform array)."""
    from . import ndarray as nd
    _check_csr_request(num_rows, num_cols, density)
    try:
        from scipy import sparse as spsp
    except ImportError:
        assert data_init is None, "data_init option is not supported when scipy is absent"
        assert not shuffle_csr_indices, "shuffle_csr_indices option is not supported when scipy is absent"
        dense = nd.random.uniform(shape=(num_rows, num_cols), dtype=dtype)
        return (dense * (dense < density)).tostype("csr")
    csr = spsp.rand(num_rows, num_cols, density, dtype=dtype, format="csr")
    if data_init is not None:
        csr.data.fill(data_init)
    if shuffle_csr_indices is True:
        shuffle_csr_column_indices(csr)
    return nd.sparse.csr_matrix((csr.data, csr.indices, csr.indptr), shape=(num_rows, num_cols), dtype=dtype)


def _powerlaw_csr(num_rows, num_cols, density, dtype):
    """A CSRNDArray whose rows hold 1, 2, 4, ... values (first a value at the head of every
    row), until ``num_rows * num_cols * density`` values are placed."""
    from . import ndarray as nd
    _check_csr_request(num_rows, num_cols, density, distribution="powerlaw")
    unused = int(num_rows * num_cols * density)
    out = np.zeros((num_rows, num_cols), dtype=dtype)

    def result():
        return nd.array(out).tostype("csr")
    for row in range(num_rows):
        out[row][0] = 1 + rnd.uniform(0.001, 2)
        unused -= 1
        if unused <= 0:
            return result()
    col_max = 2
    for row in range(num_rows):
        col_limit = min(num_cols, col_max)
        if col_limit == num_cols and unused > col_limit:  # a full row at once
            out[row] = 1 + rnd.uniform(0.001, 2)
            unused = unused - col_limit + 1
            if unused <= 0:
                return result()
            continue
        for col in range(1, col_limit):
            out[row][col] = 1 + rnd.uniform(0.001, 2)
            unused -= 1
            if unused <= 0:
                return result()
        col_max *= 2
    if unused > 0:
        raise ValueError("not supported for this density: %s for this shape (%s,%s)" % (density, num_rows, num_cols))
    return result()


def rand_sparse_ndarray(shape, stype, density=None, dtype=None, distribution=None, data_init=None,
                        rsp_indices=None, modifier_func=None, shuffle_csr_indices=False, ctx=None):
    """A random sparse NDArray and its parts as MXNet's test helper gives them:
    ``(row_sparse array, (values, row indices))`` for ``stype='row_sparse'`` (rows kept with
    probability ``density``, or ``rsp_indices``; values uniform in [0, 1)), ``(csr array,
    (indptr, indices, data))`` for ``stype='csr'`` (``distribution`` 'uniform' or 'powerlaw').
    ``data_init`` fills the values with one number; ``modifier_func`` maps each value."""
    from . import ndarray as nd
    ctx = ctx if ctx else default_context()
    density = rnd.rand() if density is None else density
    dtype = default_dtype() if dtype is None else dtype
    distribution = "uniform" if distribution is None else distribution
    if stype == "row_sparse":
        assert distribution == "uniform", "Distribution %s not supported for row_sparse" % distribution
        if rsp_indices is not None:
            indices = rsp_indices
            assert len(indices) <= shape[0]
        else:
            indices = np.argwhere(rnd.rand(shape[0]) < density).flatten()
        if indices.shape[0] == 0:
            return nd.zeros(shape, stype="row_sparse", dtype=dtype, ctx=ctx), (np.array([], dtype=dtype),
                                                                                 np.array([]))
        val = rnd.rand(indices.shape[0], *shape[1:]).astype(dtype)
        if data_init is not None:
            val.fill(data_init)
        if modifier_func is not None:
            val = assign_each(val, modifier_func)
        return nd.sparse.row_sparse_array((val, indices), shape=shape, dtype=dtype, ctx=ctx), (val, indices)
    if stype == "csr":
        assert len(shape) == 2
        if distribution == "uniform":
            csr = _uniform_csr(shape[0], shape[1], density, dtype, data_init, shuffle_csr_indices)
        elif distribution == "powerlaw":
            csr = _powerlaw_csr(shape[0], shape[1], density, dtype)
        else:
            raise AssertionError("Distribution not supported: %s" % distribution)
        csr = csr.as_in_context(ctx)
        return csr, (csr.indptr, csr.indices, csr.data)
    raise AssertionError("unknown storage type")


def create_sparse_array(shape, stype, data_init=None, rsp_indices=None, dtype=None, modifier_func=None,
                        density=.5, shuffle_csr_indices=False):
    """A random sparse array (:func:`rand_sparse_ndarray`), row_sparse indices sorted."""
    if stype == "row_sparse":
        indices = None
        if rsp_indices is not None:
            indices = np.asarray(rsp_indices)
            indices.sort()
        return rand_sparse_ndarray(shape, stype, density=density, data_init=data_init, rsp_indices=indices,
                                   dtype=dtype, modifier_func=modifier_func)[0]
    if stype == "csr":
        return rand_sparse_ndarray(shape, stype, density=density, data_init=data_init, dtype=dtype,
                                   modifier_func=modifier_func, shuffle_csr_indices=shuffle_csr_indices)[0]
    raise AssertionError("Unknown storage type: " + stype)


def create_sparse_array_zd(shape, stype, density, data_init=None, rsp_indices=None, dtype=None,
                           modifier_func=None, shuffle_csr_indices=False):
    """:func:`create_sparse_array` whose row_sparse rows are only ``rsp_indices`` (density 0)."""
    if stype == "row_sparse":
        density = 0.0
        if rsp_indices is not None:
            assert len(rsp_indices) <= shape[0]
    return create_sparse_array(shape, stype, data_init=data_init, rsp_indices=rsp_indices, dtype=dtype,
                               modifier_func=modifier_func, density=density, shuffle_csr_indices=shuffle_csr_indices)


def rand_shape_2d(dim0=10, dim1=10, allow_zero_size=False):
    """A random 2-d shape with sides in ``[1, dim]`` (``[0, dim]`` with ``allow_zero_size``)."""
    low = 0 if allow_zero_size else 1
    return rnd.randint(low, dim0 + 1), rnd.randint(low, dim1 + 1)


def rand_shape_3d(dim0=10, dim1=10, dim2=10, allow_zero_size=False):
    """A random 3-d shape with sides in ``[1, dim]`` (``[0, dim]`` with ``allow_zero_size``)."""
    low = 0 if allow_zero_size else 1
    return rnd.randint(low, dim0 + 1), rnd.randint(low, dim1 + 1), rnd.randint(low, dim2 + 1)


def rand_shape_nd(num_dim, dim=10, allow_zero_size=False):
    """A random ``num_dim``-d shape with sides in ``[1, dim]`` (``[0, dim]`` with ``allow_zero_size``)."""
    low = 0 if allow_zero_size else 1
    return tuple(rnd.randint(low, dim + 1, size=num_dim))


def rand_coord_2d(x_low, x_high, y_low, y_high):
    """A random integer point in ``[x_low, x_high) x [y_low, y_high)``."""
    return rnd.randint(x_low, x_high, dtype=np.int64), rnd.randint(y_low, y_high, dtype=np.int64)


def np_reduce(dat, axis, keepdims, numpy_reduce_func):
    """Reduce ``dat`` over ``axis`` (int, list or None for all) one axis at a time with a
    numpy reduction such as ``np.sum``, optionally keeping the reduced axes."""
    if isinstance(axis, int):
        axis = [axis]
    else:
        axis = list(axis) if axis is not None else range(len(dat.shape))
    ret = dat
    for i in reversed(sorted(axis)):
        ret = numpy_reduce_func(ret, axis=i)
    if keepdims:
        keepdims_shape = list(dat.shape)
        for i in axis:
            keepdims_shape[i] = 1
        ret = ret.reshape(tuple(keepdims_shape))
    return ret


# ----------------------------------------------------------------------------- comparisons
def _numpy(x):
    return x.asnumpy() if hasattr(x, "asnumpy") else x


def same(a, b):
    """Whether two arrays have the same shape and elements."""
    return np.array_equal(_numpy(a), _numpy(b))


def same_array(array1, array2):
    """Whether two NDArrays share their memory (writing one changes the other)."""
    t1, t2 = array1._t, array2._t
    return t1.shape == t2.shape and t1.untyped_storage().data_ptr() == t2.untyped_storage().data_ptr() \
        and t1.storage_offset() == t2.storage_offset()


def _check_shapes(a, b):
    if a.shape != b.shape:
        raise AssertionError(npt.build_err_msg([a, b], err_msg="a.shape = %s and b.shape = %s are not equal"
                                                                % (a.shape, b.shape)))


def almost_equal(a, b, rtol=None, atol=None, equal_nan=False, use_broadcast=True):
    """Whether two arrays are element-wise equal within ``atol + rtol * |b|``
    (float64 defaults: rtol 1e-5, atol 1e-20)."""
    a, b = _numpy(a), _numpy(b)
    if not use_broadcast:
        _check_shapes(a, b)
    return np.allclose(a, b, rtol=get_rtol(rtol), atol=get_atol(atol), equal_nan=equal_nan)


def _violations(a, b, rtol, atol, equal_nan):
    """Per-element ratio of the error to the tolerance (> 1 is a mismatch; NaN counts as infinite)."""
    a, b = np.broadcast_arrays(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64))
    with np.errstate(invalid="ignore", divide="ignore"):
        viol = np.where(np.equal(a, b), 0, np.abs(a - b)) / (atol + rtol * np.abs(b) + 1e-20)
    viol = np.where(np.isnan(viol), np.inf, viol)
    if equal_nan:
        viol = np.where(np.isnan(a) & np.isnan(b), 0, viol)
    return a, b, viol


def _location(a, b, index, names):
    return "%s=%.8f, %s=%.8f" % (names[0], a[index], names[1], b[index])


def assert_almost_equal(a, b, rtol=None, atol=None, names=("a", "b"), equal_nan=False,
                        use_broadcast=True, mismatches=(10, 10)):
    """Assert that two arrays (numpy, NDArray or numbers) are almost equal.

    Default tolerances come from the dtypes of both inputs; the AssertionError reports
    the largest violation, where it is, the fraction of mismatching elements and up to
    ``mismatches[0]`` of the worst locations."""
    rtol, atol = get_tols(a, b, rtol, atol)
    a, b = _numpy(a), _numpy(b)
    if not use_broadcast:
        _check_shapes(a, b)
    if getattr(a, "dtype", None) == np.bool_ and getattr(b, "dtype", None) == np.bool_:
        npt.assert_equal(a, b)
        return
    if almost_equal(a, b, rtol, atol, equal_nan=equal_nan):
        return
    raise AssertionError(_failure_message(a, b, rtol, atol, names, equal_nan, mismatches[0]))


def _failure_message(a, b, rtol, atol, names, equal_nan, shown):
    """The largest violation, the mismatch fraction and the ``shown`` worst locations."""
    fa, fb, viol = _violations(a, b, rtol, atol, equal_nan)
    order = np.argsort(viol, axis=None)[::-1]
    worst = [tuple(int(i) for i in np.unravel_index(k, viol.shape)) for k in order[:max(shown, 1)] if viol.flat[k] > 1]
    top = worst[0]
    lines = ["%3d: Error %f  Location of error: %s, %s" % (i + 1, viol[idx], idx, _location(fa, fb, idx, names))
             for i, idx in enumerate(worst)]
    err = "Error %f exceeds tolerance rtol=%e, atol=%e (mismatch %f%%).\nLocation of maximum error: %s, %s\n%s" % (
        viol[top], rtol, atol, 100.0 * np.count_nonzero(viol > 1) / max(viol.size, 1), top,
        _location(fa, fb, top, names), "\n".join(lines))
    with np.printoptions(threshold=4, suppress=True):
        return npt.build_err_msg([a, b], err_msg=err, names=names)


def assert_allclose(a, b, rtol=1e-07, atol=0, equal_nan=True):
    """``assert_almost_equal`` with numpy's ``assert_allclose`` defaults."""
    assert_almost_equal(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


def assert_almost_equal_ignore_nan(a, b, rtol=None, atol=None, names=("a", "b")):
    """``assert_almost_equal`` ignoring the positions where either input is NaN."""
    a, b = np.copy(_numpy(a)), np.copy(_numpy(b))
    nan_mask = np.logical_or(np.isnan(a), np.isnan(b))
    a[nan_mask] = 0
    b[nan_mask] = 0
    assert_almost_equal(a, b, rtol, atol, names)


def assert_exception(f, exception_type, *args, **kwargs):
    """Assert that ``f(*args, **kwargs)`` raises ``exception_type``."""
    try:
        f(*args, **kwargs)
    except exception_type:
        return
    raise AssertionError("%s did not raise %s" % (getattr(f, "__name__", f), getattr(exception_type, "__name__",
                                                                                     exception_type)))


@contextlib.contextmanager
def environment(*args):
    """Set environment variables for the body of a ``with`` block, restoring them after.

    ``environment(name, value)`` or ``environment({name: value, ...})``; a value of
    None unsets the variable."""
    if len(args) == 1 and isinstance(args[0], dict):
        env_vars = args[0]
    elif len(args) == 2:
        env_vars = {args[0]: args[1]}
    else:
        raise ValueError("environment() takes one dict, or an env var name and value")
    snapshot = {name: os.environ.get(name) for name in env_vars}
    _set_environ(env_vars)
    try:
        yield
    finally:
        from .ndarray import waitall
        waitall()
        _set_environ(snapshot)


def _set_environ(env_vars):
    for name, value in env_vars.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def retry(n):
    """Decorator: run a stochastic test up to ``n`` times until it passes (AssertionError retries)."""
    if n <= 0:
        raise ValueError("retry(n) needs n > 0, got %r" % (n,))

    def decorate(f):
        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            for i in range(n):
                try:
                    return f(*args, **kwargs)
                except AssertionError:
                    if i == n - 1:
                        raise
        return wrapper
    return decorate


def random_sample(population, k):
    """``k`` distinct elements of a list, in random order (numpy's global random state)."""
    if not 0 <= k <= len(population):
        raise ValueError("random_sample: k=%d must be between 0 and %d" % (k, len(population)))
    population = list(population)
    rnd.shuffle(population)
    return population[:k]


def list_gpus():
    """The ids of the visible GPUs."""
    return list(range(torch.cuda.device_count())) if torch.cuda.is_available() else []


# ----------------------------------------------------------------------------- symbolic checks
# (Symbols and the executor: check_numeric_gradient, check_symbolic_forward/backward)
def _sym_location(sym, location, ctx, dtype=None):
    """Argument arrays by name, from a dict or a list in ``list_arguments`` order."""
    from .ndarray import NDArray, array
    if isinstance(location, dict):
        unknown = set(location) - set(sym.list_arguments())
        if unknown:
            raise ValueError("Symbol arguments and keys of the given location do not match: %s not in %s"
                             % (sorted(unknown), sym.list_arguments()))
    else:
        location = dict(zip(sym.list_arguments(), location))

    def to_nd(v):
        if isinstance(v, NDArray):
            return v.as_in_context(ctx)
        v = np.asarray(v)
        return array(v, ctx=ctx, dtype=dtype if dtype is not None and v.dtype.kind == "f" else v.dtype)
    return {k: to_nd(v) for k, v in location.items()}


def _sym_aux(sym, aux_states, ctx):
    if aux_states is None:
        return None
    if not isinstance(aux_states, dict):
        aux_states = dict(zip(sym.list_auxiliary_states(), aux_states))
    from .ndarray import NDArray, array
    return {k: v.copy() if isinstance(v, NDArray) else array(v, ctx=ctx, dtype=np.asarray(v).dtype)
            for k, v in aux_states.items()}


def _by_name(values, names):
    return [values[n] for n in names] if isinstance(values, dict) else list(values)


def check_symbolic_forward(sym, location, expected, rtol=None, atol=None, aux_states=None, ctx=None,
                           equal_nan=False, dtype=None):
    """Bind ``sym`` to ``location``, run forward in predict mode and compare the outputs with
    ``expected`` (a list, or a dict by output name); returns the outputs as numpy arrays."""
    ctx = ctx or default_context()
    ex = sym.bind(ctx, _sym_location(sym, location, ctx, dtype), grad_req="null",
                  aux_states=_sym_aux(sym, aux_states, ctx))
    outputs = [o.asnumpy() for o in ex.forward(is_train=False)]
    for name, out, exp in zip(sym.list_outputs(), outputs, _by_name(expected, sym.list_outputs())):
        assert_almost_equal(exp, out, rtol, atol, ("EXPECTED_%s" % name, "FORWARD_%s" % name), equal_nan=equal_nan)
    return outputs


def check_symbolic_backward(sym, location, out_grads, expected, rtol=None, atol=None, aux_states=None,
                            grad_req="write", ctx=None, grad_stypes=None, equal_nan=False, dtype=None):
    """Bind ``sym``, run forward in train mode and backward with ``out_grads``, and compare the
    argument gradients with ``expected`` (a list or a dict by argument name). With
    ``grad_req='add'`` the gradient buffers start random and the added amount is compared.
    Returns the gradients as a dict of numpy arrays."""
    ctx = ctx or default_context()
    from .ndarray import array
    args = _sym_location(sym, location, ctx, dtype)
    names = sym.list_arguments()
    expected = dict(zip(names, expected)) if not isinstance(expected, dict) else expected
    reqs = grad_req if isinstance(grad_req, dict) else {n: grad_req for n in names}
    start = {n: np.random.normal(size=args[n].shape).astype(args[n].dtype) if reqs.get(n) == "add"
             else np.zeros(args[n].shape, dtype=args[n].dtype) for n in expected}
    grads = {n: array(v, ctx=ctx, dtype=v.dtype) for n, v in start.items()}
    ex = sym.bind(ctx, args, args_grad=grads, grad_req=reqs, aux_states=_sym_aux(sym, aux_states, ctx))
    outs = ex.forward(is_train=True)
    if out_grads is not None:
        out_grads = [array(g, ctx=ctx, dtype=np.asarray(g).dtype) if not hasattr(g, "asnumpy") else g
                     for g in _by_name(out_grads, sym.list_outputs())]
    ex.backward(out_grads)
    result = {}
    for name, exp in expected.items():
        got = ex.grad_dict[name].asnumpy()
        if reqs.get(name) == "add":
            got = got - start[name]
        result[name] = got
        if reqs.get(name) != "null":
            assert_almost_equal(exp, got, rtol, atol, ("EXPECTED_%s" % name, "BACKWARD_%s" % name),
                                equal_nan=equal_nan)
    del outs
    return result


def check_numeric_gradient(sym, location, aux_states=None, numeric_eps=None, rtol=None, atol=None,
                           grad_nodes=None, use_forward_train=True, ctx=None, grad_stype_dict=None,
                           dtype=np.float64):
    """Compare the symbolic gradient of ``sum(outputs * random projection)`` with central
    finite differences, for the arguments in ``grad_nodes`` (all float arguments by default)."""
    ctx = ctx or default_context()
    from .ndarray import array
    args = _sym_location(sym, location, ctx, dtype)
    names = sym.list_arguments()
    grad_nodes = list(grad_nodes or [n for n in names if np.dtype(args[n].dtype).kind == "f"])
    eps = numeric_eps if numeric_eps is not None else (1e-6 if np.dtype(dtype) == np.float64 else 1e-3)
    grads = {n: array(np.zeros(args[n].shape), ctx=ctx, dtype=args[n].dtype) for n in grad_nodes}
    ex = sym.bind(ctx, args, args_grad=grads, grad_req={n: "write" for n in grad_nodes},
                  aux_states=_sym_aux(sym, aux_states, ctx))
    outs = ex.forward(is_train=use_forward_train)
    projs = [np.random.normal(0, 0.01, size=o.shape).astype(o.dtype) for o in outs]
    ex.backward([array(p, ctx=ctx, dtype=p.dtype) for p in projs])
    symbolic = {n: ex.grad_dict[n].asnumpy() for n in grad_nodes}

    def loss(**changed):
        return sum(float((o.asnumpy().astype(np.float64) * p).sum())
                   for o, p in zip(ex.forward(is_train=use_forward_train, **changed), projs))
    for name in grad_nodes:
        base = args[name].asnumpy()
        numeric = np.zeros(base.shape, dtype=np.float64)
        for i in range(base.size):
            for sign in (1, -1):
                moved = base.copy()
                moved.flat[i] += sign * eps
                numeric.flat[i] += sign * loss(**{name: moved}) / (2 * eps)
        ex.copy_params_from({name: base})
        assert_almost_equal(numeric, symbolic[name], rtol or 1e-2, atol or 1e-4,
                            ("NUMERICAL_%s" % name, "BACKWARD_%s" % name))


__all__ += ["check_symbolic_forward", "check_symbolic_backward", "check_numeric_gradient"]


@contextlib.contextmanager
def discard_stderr():
    """Discard what the block writes to the process's stderr (file descriptor 2 included,
    so output of native code goes too), as MXNet's ``discard_stderr``."""
    with open(os.devnull, "w") as bit_bucket:
        try:
            stderr_fileno = sys.stderr.fileno()
        except (AttributeError, ValueError, io.UnsupportedOperation):
            stderr_fileno = 2  # sys.stderr is not a file here (a captured stream): the process's
        old_stderr = os.dup(stderr_fileno)
        try:
            sys.stderr.flush()
            os.dup2(bit_bucket.fileno(), stderr_fileno)
            yield
        finally:
            sys.stderr.flush()  # what Python buffered inside the block goes to the bucket too
            os.dup2(old_stderr, stderr_fileno)
            os.close(old_stderr)


# ----------------------------------------------------------------------------- the rest of MXNet's helpers
def checkShapes(a, b):  # pylint: disable=invalid-name
    """AssertionError unless ``a`` and ``b`` have one shape (MXNet's spelling)."""
    _check_shapes(a, b)


def locationError(a, b, index, names, maxError=False):  # pylint: disable=invalid-name
    """The message naming an element mismatch: where, and both values."""
    return "Location of %serror: %s, %s=%.8f, %s=%.8f" % ("maximum " if maxError else "", str(index), names[0],
                                                        a[index], names[1], b[index])


def assert_almost_equal_with_err(a, b, rtol=None, atol=None, etol=None, names=("a", "b"), equal_nan=False,
                                 mismatches=(10, 10)):
    """Like :func:`assert_almost_equal`, but passes while the fraction of mismatching
    elements is at most ``etol`` (MXNet's error rate)."""
    etol = get_etol(etol)
    if etol <= 0:
        assert_almost_equal(a, b, rtol, atol, names, equal_nan, mismatches=mismatches)
        return
    rtol, atol = get_tols(a, b, rtol, atol)
    a, b = _numpy(a), _numpy(b)
    equals = np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    err = 1 - np.count_nonzero(equals) / equals.size
    if err > etol:
        raise AssertionError("Error rate %f exceeds etol=%f\n%s"
                             % (err, etol, _failure_message(a, b, rtol, atol, names, equal_nan, mismatches[0])))


def assign_each(the_input, function):
    """A float64 array of ``function`` applied to each element (a copy when None)."""
    if function is None:
        return np.array(the_input)
    return np.vectorize(lambda v: function(v), otypes=[np.float64])(the_input)  # pylint: disable=unnecessary-lambda


def assign_each2(input1, input2, function):
    """A float64 array of ``function`` applied to each pair of elements (``input1`` copied when None)."""
    if function is None:
        return np.array(input1)
    assert input1.shape == input2.shape
    return np.vectorize(lambda x, y: function(x, y), otypes=[np.float64])(input1, input2)  # pylint: disable=unnecessary-lambda


def create_2d_tensor(rows, columns, dtype=np.int64):
    """``rows`` x ``columns`` whose row i holds i (MXNet's large-tensor test input)."""
    from . import ndarray as nd
    return nd.broadcast_to(nd.arange(0, rows, dtype=dtype).reshape((rows, 1)), shape=(rows, columns))


def create_vector(size, dtype=np.int64):
    """0, 1, ..., size - 1."""
    from . import ndarray as nd
    return nd.arange(0, size, dtype=dtype)


def get_identity_mat(size):
    """The ``size`` x ``size`` identity as a float32 NDArray."""
    from . import ndarray as nd
    return nd.array(np.eye(size, dtype=np.float32))


def get_identity_mat_batch(size):
    """Two stacked identities, (2, size, size)."""
    from . import ndarray as nd
    return nd.array(np.stack([np.eye(size, dtype=np.float32)] * 2))


def simple_forward(sym, ctx=None, is_train=False, **inputs):
    """The outputs (numpy) of binding ``sym`` to the given inputs and running forward; a
    single output is returned alone."""
    from .ndarray import array
    ctx = ctx or default_context()
    exe = sym.bind(ctx, args={k: array(v) for k, v in inputs.items()})
    exe.forward(is_train=is_train)
    outputs = [x.asnumpy() for x in exe.outputs]
    return outputs[0] if len(outputs) == 1 else outputs


def numeric_grad(executor, location, aux_states=None, eps=1e-4, use_forward_train=True, dtype=np.float32):
    """Central finite differences of the sum of the executor's first output with respect to
    each floating-point array of ``location`` (a dict name -> numpy array), as MXNet's:
    ``(f(x + eps/2) - f(x - eps/2)) / eps`` per element."""
    from .ndarray import array
    assert dtype in (np.float16, np.float32, np.float64)
    grads = {k: np.zeros(np.shape(v), dtype=dtype) for k, v in location.items()}
    location = {k: np.asarray(v, order="C") for k, v in location.items()}

    def run():
        if aux_states is not None:
            for key, val in aux_states.items():
                executor.aux_dict[key][:] = val
        executor.forward(is_train=use_forward_train)
        return executor.outputs[0].asnumpy().astype(np.float64).sum()
    for k, v in location.items():
        executor.arg_dict[k][:] = array(v, dtype=dtype)
    for k, v in location.items():
        if v.dtype.kind != "f":
            continue
        flat = v.copy().ravel()
        for i in range(flat.size):
            old = flat[i]
            flat[i] = old + eps / 2.0
            executor.arg_dict[k][:] = array(flat.reshape(v.shape), dtype=dtype)
            f_plus = run()
            flat[i] = old - eps / 2.0
            executor.arg_dict[k][:] = array(flat.reshape(v.shape), dtype=dtype)
            f_minus = run()
            grads[k].ravel()[i] = (f_plus - f_minus) / eps
            flat[i] = old
        executor.arg_dict[k][:] = array(v, dtype=dtype)
    return grads


def check_speed(sym, location=None, ctx=None, N=20, grad_req=None, typ="whole", **kwargs):  # pylint: disable=invalid-name
    """Seconds per forward+backward (``typ='whole'``) or per forward (``'forward'``) of
    ``sym``, averaged over ``N`` runs after one warm-up."""
    import time
    ctx = ctx or default_context()
    grad_req = grad_req or "write"
    if location is None:
        exe = sym.simple_bind(grad_req=grad_req, ctx=ctx, **kwargs)
        location = {k: np.random.normal(size=arr.shape, scale=1.0) for k, arr in exe.arg_dict.items()}
    else:
        assert isinstance(location, dict), 'Expect dict, get "location"=%s' % str(location)
        exe = sym.simple_bind(grad_req=grad_req, ctx=ctx, **{k: v.shape for k, v in location.items()})
    for name, iarr in location.items():
        exe.arg_dict[name][:] = iarr.astype(exe.arg_dict[name].dtype)
    if typ not in ("whole", "forward"):
        raise ValueError('typ can only be "whole" or "forward".')

    def step():
        exe.forward(is_train=typ == "whole")
        if typ == "whole":
            exe.backward(out_grads=exe.outputs)
    step()
    for output in exe.outputs:
        output.wait_to_read()
    tic = time.time()
    for _ in range(N):
        step()
    from .ndarray import waitall
    waitall()
    return (time.time() - tic) / N


def _sorted_items(d):
    return sorted(d.items(), key=lambda kv: kv[0])


def check_consistency(sym, ctx_list, scale=1.0, grad_req="write", arg_params=None, aux_params=None, rtol=None,
                      atol=None, raise_on_err=True, ground_truth=None, equal_nan=False, use_uniform=False,
                      rand_type=np.float64):
    """Check that ``sym`` (or one symbol per entry) gives the same outputs and gradients on
    every entry of ``ctx_list`` (dicts of ``ctx``, input shapes and ``type_dict``), compared
    with the entry of the widest output dtype (or ``ground_truth``), as MXNet's."""
    import traceback
    from .ndarray import array
    assert len(ctx_list) > 1
    syms = [sym] * len(ctx_list) if not isinstance(sym, (list, tuple)) else list(sym)
    assert len(syms) == len(ctx_list)
    output_names, arg_names = syms[0].list_outputs(), syms[0].list_arguments()
    exe_list = []
    for s, ctx in zip(syms, ctx_list):
        assert s.list_arguments() == arg_names and s.list_outputs() == output_names
        exe_list.append(s.simple_bind(grad_req=grad_req, **ctx))
    arg_params = {} if arg_params is None else arg_params
    aux_params = {} if aux_params is None else aux_params
    for n, arr in _sorted_items(exe_list[0].arg_dict):
        if n not in arg_params:
            arg_params[n] = (np.random.uniform(low=-0.92 * scale, high=0.92 * scale, size=arr.shape) if use_uniform
                             else np.random.normal(size=arr.shape, scale=scale)).astype(rand_type)
    for n in exe_list[0].aux_dict:
        aux_params.setdefault(n, 0)
    for exe in exe_list:
        for name, arr in exe.arg_dict.items():
            arr[:] = arg_params[name]
        for name, arr in exe.aux_dict.items():
            arr[:] = aux_params[name]
        if grad_req == "add":
            for arr in exe.grad_arrays:
                if arr is not None:
                    arr[:] = 0
    for exe in exe_list:
        exe.forward(is_train=False)
    dtypes = [np.dtype(exe.outputs[0].dtype) for exe in exe_list]
    gt_idx = int(np.argmax(dtypes))

    def compare(i, name, arr, gtarr, rt, at):
        try:
            assert_almost_equal(arr, gtarr, rtol=rt, atol=at, equal_nan=equal_nan)
        except AssertionError as err:
            print("%s Err: ctx %d vs ctx %d at %s" % ("Predict" if name in output_names else "Train", i, gt_idx,
                                                      name))
            traceback.print_exc()
            if raise_on_err:
                raise err
            print(str(err))
    gt = ground_truth if ground_truth is not None else dict(zip(output_names, exe_list[gt_idx].outputs))
    for i, exe in enumerate(exe_list):
        if i != gt_idx:
            for name, arr in zip(output_names, exe.outputs):
                compare(i, name, arr, gt[name], rtol, atol)
    if grad_req == "null":
        return gt
    for exe in exe_list:
        exe.forward(is_train=True)

    def smaller(dt1, dt2):
        return dt1 if dt2 is None or np.dtype(dt1).itemsize < np.dtype(dt2).itemsize else dt2
    least = [None] * len(output_names)
    for exe in exe_list:
        least = [smaller(o.dtype, dt) for o, dt in zip(exe.outputs, least)]
    golden = [o.asnumpy().astype(dt) for o, dt in zip(exe_list[0].outputs, least)]
    for exe in exe_list:
        exe.backward([array(g, ctx=exe.outputs[k].context, dtype=exe.outputs[k].dtype)
                      for k, g in enumerate(golden)])
    if ground_truth is None:
        gt = dict(zip(output_names, exe_list[gt_idx].outputs))
        gt.update(exe_list[gt_idx].grad_dict)
    for i, exe in enumerate(exe_list):
        if i == gt_idx:
            continue
        for name, arr in zip(output_names + arg_names, list(exe.outputs) + list(exe.grad_arrays)):
            if gt.get(name) is None:
                assert arr is None
                continue
            compare(i, name, arr, gt[name], rtol, atol)
    return gt


class DummyIter:
    """An iterator that returns the first batch of ``real_iter`` forever (for speed tests)."""

    def __init__(self, real_iter):
        self.real_iter = real_iter
        self.provide_data = real_iter.provide_data
        self.provide_label = real_iter.provide_label
        self.batch_size = real_iter.batch_size
        self.the_batch = next(real_iter)

    def __iter__(self):
        return self

    def __next__(self):
        return self.the_batch

    next = __next__

    def reset(self):
        """Nothing to rewind."""


def gen_buckets_probs_with_ppf(ppf, nbuckets):
    """``nbuckets`` equally likely buckets of a distribution from its inverse CDF."""
    assert nbuckets > 0
    probs = [1.0 / nbuckets] * nbuckets
    buckets = [(ppf(i / float(nbuckets)), ppf((i + 1) / float(nbuckets))) for i in range(nbuckets)]
    return buckets, probs


def mean_check(generator, mu, sigma, nsamples=1000000):
    """Whether the sample mean of ``generator(nsamples)`` is within 3 standard errors of ``mu``."""
    mean = np.array(generator(nsamples)).mean()
    return bool(mu - 3 * sigma / np.sqrt(nsamples) < mean < mu + 3 * sigma / np.sqrt(nsamples))


def var_check(generator, sigma, nsamples=1000000):
    """Whether the sample variance is within 3 standard errors of ``sigma**2``."""
    var = np.array(generator(nsamples)).var(ddof=1)
    bound = 3 * np.sqrt(2 * sigma ** 4 / (nsamples - 1))
    return bool(sigma ** 2 - bound < var < sigma ** 2 + bound)


def chi_square_check(generator, buckets, probs, nsamples=1000000):
    """Pearson's chi-square test of ``generator(nsamples)`` against ``probs`` over
    ``buckets`` (value ranges, or the discrete values): ``(p-value, observed, expected)``.
    Needs scipy. The expected counts are MXNet's (truncated to integers); the test scales
    them to the observed total, which scipy >= 1.9 requires."""
    try:
        import scipy.stats as ss  # pylint: disable=import-outside-toplevel
    except ImportError:
        raise ImportError("scipy is not available. Please check if the scipy python bindings are installed.") \
            from None
    assert isinstance(buckets, list) and len(probs) == len(buckets)
    samples = np.asarray(generator(nsamples))
    expected = (nsamples * np.array(probs, dtype=np.float32)).astype(np.int32)
    if isinstance(buckets[0], (list, tuple)):
        edges = np.zeros(len(buckets) * 2, dtype=np.float32)
        for i, (lo, hi) in enumerate(buckets):
            assert lo <= hi and (i == len(buckets) - 1 or hi <= buckets[i + 1][0])
            edges[2 * i], edges[2 * i + 1] = lo, hi
        ids = np.searchsorted(edges, samples, side="right") // 2
        observed = np.array([(ids == i).sum() for i in range(len(buckets))], dtype=np.int64)
    else:
        observed = np.array([(samples == b).sum() for b in buckets], dtype=np.int64)
    _, p = ss.chisquare(f_obs=observed, f_exp=expected * (observed.sum() / max(expected.sum(), 1)))
    return p, observed, expected


def verify_generator(generator, buckets, probs, nsamples=1000000, nrepeat=5, success_rate=0.2, alpha=0.05):
    """Repeat :func:`chi_square_check`; AssertionError unless at least ``success_rate`` of
    the runs have p > ``alpha``. Returns the p-values."""
    runs = [chi_square_check(generator, buckets, probs, nsamples) for _ in range(nrepeat)]
    ps = [r[0] for r in runs]
    if (np.array(ps) > alpha).sum() < nrepeat * success_rate:
        raise AssertionError("Generator test fails, Chi-square p=%s, obs_freq=%s, expected_freq=%s.\nbuckets=%s, "
                             "probs=%s" % (ps, [r[1] for r in runs], [r[2] for r in runs], buckets, probs))
    return ps


def compare_ndarray_tuple(t1, t2, rtol=None, atol=None):
    """Compare two (nested tuples of) arrays; None on either side is skipped."""
    if t1 is None or t2 is None:
        return
    if isinstance(t1, tuple):
        for s1, s2 in zip(t1, t2):
            compare_ndarray_tuple(s1, s2, rtol, atol)
    else:
        assert_almost_equal(t1, t2, rtol=rtol, atol=atol)


def compare_optimizer(opt1, opt2, shape, dtype, w_stype="default", g_stype="default", rtol=1e-4, atol=1e-5,
                      compare_states=True, ntensors=1):
    """One update of two optimizers on the same random weight and gradient (dense storage),
    comparing states and weights; with a list of shapes, ``opt2`` updates all tensors in
    one multi-tensor call and ``opt1`` one by one."""
    import copy
    from . import random as mxrandom
    if (w_stype, g_stype) != ("default", "default"):
        raise MXNetError("compare_optimizer: sparse weights or gradients (w_stype=%r, g_stype=%r) are not "
                         "implemented yet (neogluon stores every array dense)" % (w_stype, g_stype))
    ctx = default_context()
    if not isinstance(shape, list):
        assert ntensors == 1
        w2 = mxrandom.uniform(shape=shape, ctx=ctx, dtype=dtype)
        w1 = w2.copyto(ctx)
        g2 = mxrandom.uniform(shape=shape, ctx=ctx, dtype=dtype)
        g1 = g2.copyto(ctx)
        state1 = opt1.create_state_multi_precision(0, w1)
        state2 = opt2.create_state_multi_precision(0, w2)
        if compare_states:
            compare_ndarray_tuple(state1, state2)
        opt1.update_multi_precision(0, w1, g1, state1)
        opt2.update_multi_precision(0, w2, g2, state2)
        if compare_states:
            compare_ndarray_tuple(state1, state2, rtol=rtol, atol=atol)
        assert_almost_equal(w1, w2, rtol=rtol, atol=atol)
        return
    w1 = tuple(mxrandom.uniform(shape=s, ctx=ctx, dtype=dtype) for s in shape)
    g1 = tuple(mxrandom.uniform(shape=s, ctx=ctx, dtype=dtype) for s in shape)
    w2, g2 = copy.deepcopy(w1), copy.deepcopy(g1)
    state2 = [opt2.create_state_multi_precision(0, w2[i]) for i in range(ntensors)]
    opt2.update_multi_precision(list(range(ntensors)), w2, g2, state2)
    for i in range(ntensors):
        state1 = opt1.create_state_multi_precision(i, w1[i])
        opt1.update_multi_precision(i, w1[i], g1[i], state1)
        if compare_states:
            compare_ndarray_tuple(state1, state2[i], rtol, atol)
        compare_ndarray_tuple(w1[i], w2[i], rtol, atol)


def same_symbol_structure(sym1, sym2):
    """Whether two symbols have the same operators node by node (names may differ)."""
    import json
    nodes1, nodes2 = json.loads(sym1.tojson())["nodes"], json.loads(sym2.tojson())["nodes"]
    return all(n1["op"] == n2["op"] for n1, n2 in zip(nodes1, nodes2))


def collapse_sum_like(a, shape):
    """``a`` summed over the axes broadcasting added to reach its shape from ``shape``."""
    assert len(a.shape) >= len(shape)
    if np.prod(shape) == 0 or a.size == 0:
        return np.zeros(shape, dtype=a.dtype)
    diff = len(a.shape) - len(shape)
    axes = list(range(diff))
    for i, s in enumerate(shape):
        if s != a.shape[i + diff]:
            assert s == 1
            axes.append(i + diff)
    return np.sum(a, axis=tuple(axes)).reshape(shape)


def is_cd_run():
    """Whether this runs in MXNet's continuous-delivery job (``CD_JOB=1``)."""
    return os.environ.get("CD_JOB", 0) == "1"


def is_aarch64_run():
    """Whether the machine is aarch64."""
    import platform
    return platform.machine() == "aarch64"


def has_tvm_ops():
    """Whether operators built with TVM are available: never in neogluon (no TVM_OP feature)."""
    from .runtime import Features
    return Features().is_enabled("TVM_OP")


def is_op_runnable():
    """Whether the TVM-built operators can run on the current context (always, without TVM)."""
    return True


def get_im2rec_path(home_env="MXNET_HOME"):
    """The path of ``tools/im2rec.py`` under ``$MXNET_HOME`` (or beside the package); IOError
    when there is none."""
    root = os.environ.get(home_env) or os.path.dirname(os.path.abspath(__file__))
    for path in (os.path.join(root, "tools", "im2rec.py"), os.path.join(root, "..", "..", "tools", "im2rec.py")):
        if os.path.isfile(path):
            return path
    raise IOError("Could not find path to tools/im2rec.py")


def check_gluon_hybridize_consistency(net_builder, data_l, numpy_func=None, test_grad=True, rtol=1e-4,
                                      atol=1e-4):
    """Build the net four times (imperative / hybridized, with and without autograd) with the
    same parameters and check that outputs (and input gradients) agree, and with
    ``numpy_func`` when given."""
    from . import autograd
    from . import initializer

    class _NumpyParamDictInit(initializer.Initializer):
        def __init__(self, np_params):
            super().__init__()
            self._np_params = np_params

        def _init_weight(self, name, arr):
            arr[()] = self._np_params[name]

    saved_out, saved_grads, params_init = None, None, None
    for hybridize in (False, True):
        for use_autograd in ([False, True] if test_grad else [False]):
            net = net_builder(prefix="net_")
            net.initialize(params_init)
            if hybridize:
                net.hybridize()
            inputs = [ele.copy() for ele in data_l]
            if use_autograd:
                for ele in inputs:
                    ele.attach_grad()
                with autograd.record():
                    out = net(*inputs)
                out.backward(out)
            else:
                out = net(*inputs)
            if params_init is None:
                params_init = _NumpyParamDictInit({k: v.data().asnumpy() for k, v in net.collect_params().items()})
            if saved_out is None:
                saved_out = out.asnumpy()
            else:
                assert_almost_equal(out.asnumpy(), saved_out, rtol=rtol, atol=atol)
            if use_autograd:
                grads = [ele.grad.asnumpy() for ele in inputs]
                if saved_grads is None:
                    saved_grads = grads
                else:
                    for got, saved in zip(grads, saved_grads):
                        assert_almost_equal(got, saved, rtol=rtol, atol=atol)
    if numpy_func is not None:
        assert_almost_equal(saved_out, numpy_func(*[ele.asnumpy() for ele in data_l]), rtol=rtol, atol=atol)


def new_matrix_with_real_eigvals_2d(n):
    """A random ``n`` x ``n`` matrix with real eigenvalues in [-10, 10] and a well-conditioned
    eigenbasis (a Householder reflection times a diagonal)."""
    while True:
        v = np.random.uniform(-1., 1., n).reshape(n, 1)
        v = v / np.linalg.norm(v, axis=-2, keepdims=True)
        q = np.matmul(np.eye(n) - 2 * np.matmul(v, v.T), np.diag(np.random.uniform(-1.0, 1.0, n)))
        if np.linalg.cond(q, 2) < 3:
            break
    return np.matmul(np.matmul(np.linalg.inv(q), np.diag(np.random.uniform(-10.0, 10.0, n))), q)


def new_matrix_with_real_eigvals_nd(shape):
    """A batch of :func:`new_matrix_with_real_eigvals_2d` of ``shape``."""
    n = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    return np.array([new_matrix_with_real_eigvals_2d(shape[-1]) for _ in range(n)]).reshape(shape)


def new_orthonormal_matrix_2d(n):
    """A random ``n`` x ``n`` orthonormal matrix."""
    x = np.random.randn(n, n)
    return np.linalg.qr(np.matmul(x.T, x))[0]


def new_sym_matrix_with_real_eigvals_2d(n):
    """A random symmetric ``n`` x ``n`` matrix with eigenvalues in [-10, 10]."""
    q = new_orthonormal_matrix_2d(n)
    return np.matmul(np.matmul(q.T, np.diag(np.random.uniform(-10.0, 10.0, n))), q)


def new_sym_matrix_with_real_eigvals_nd(shape):
    """A batch of :func:`new_sym_matrix_with_real_eigvals_2d` of ``shape``."""
    n = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    return np.array([new_sym_matrix_with_real_eigvals_2d(shape[-1]) for _ in range(n)]).reshape(shape)


# ----------------------------------------------------------------------------- data files
def download(url, fname=None, dirname=None, overwrite=False, retries=5):
    """Download ``url`` to ``fname`` (the URL's file name by default) in ``dirname`` and
    return the path; an existing file is kept unless ``overwrite``, as MXNet's. The transfer
    is :func:`neogluon.gluon.utils.download`'s (any urllib scheme, ``file://`` included;
    retried ``retries`` times, then RuntimeError naming the URL)."""
    from .gluon.utils import download as _download
    assert retries >= 0, "Number of retries should be at least 0"
    fname = fname or url.split("/")[-1]
    if dirname is None:
        dirname = os.path.dirname(fname)
    else:
        fname = os.path.join(dirname, fname)
    if dirname:
        os.makedirs(dirname, exist_ok=True)
    if os.path.exists(fname) and not overwrite:
        return fname
    return _download(url, fname, overwrite=True, retries=retries)


_MODEL_URL = "http://data.mxnet.io/models/"
_MODELS = {
    "imagenet1k-inception-bn": "imagenet/inception-bn/Inception-BN-symbol.json imagenet/inception-bn/Inception-BN-0126.params",
    "imagenet1k-resnet-18": "imagenet/resnet/18-layers/resnet-18-symbol.json imagenet/resnet/18-layers/resnet-18-0000.params",
    "imagenet1k-resnet-34": "imagenet/resnet/34-layers/resnet-34-symbol.json imagenet/resnet/34-layers/resnet-34-0000.params",
    "imagenet1k-resnet-50": "imagenet/resnet/50-layers/resnet-50-symbol.json imagenet/resnet/50-layers/resnet-50-0000.params",
    "imagenet1k-resnet-101": "imagenet/resnet/101-layers/resnet-101-symbol.json imagenet/resnet/101-layers/resnet-101-0000.params",
    "imagenet1k-resnet-152": "imagenet/resnet/152-layers/resnet-152-symbol.json imagenet/resnet/152-layers/resnet-152-0000.params",
    "imagenet1k-resnext-50": "imagenet/resnext/50-layers/resnext-50-symbol.json imagenet/resnext/50-layers/resnext-50-0000.params",
    "imagenet1k-resnext-101": "imagenet/resnext/101-layers/resnext-101-symbol.json imagenet/resnext/101-layers/resnext-101-0000.params",
    "imagenet1k-resnext-101-64x4d": "imagenet/resnext/101-layers/resnext-101-64x4d-symbol.json imagenet/resnext/101-layers/resnext-101-64x4d-0000.params",
    "imagenet11k-resnet-152": "imagenet-11k/resnet-152/resnet-152-symbol.json imagenet-11k/resnet-152/resnet-152-0000.params",
    "imagenet11k-place365ch-resnet-152": "imagenet-11k-place365-ch/resnet-152-symbol.json imagenet-11k-place365-ch/resnet-152-0000.params",
    "imagenet11k-place365ch-resnet-50": "imagenet-11k-place365-ch/resnet-50-symbol.json imagenet-11k-place365-ch/resnet-50-0000.params",
}


def download_model(model_name, dst_dir="./", meta_info=None):
    """``(prefix, 0)`` of a model's ``<dst_dir>/<model_name>-symbol.json`` and ``-0000.params``
    (MXNet's model list, or ``meta_info``: name -> {'symbol': url, 'params': url}),
    downloaded unless present. ``(None, 0)`` for an unknown name."""
    if meta_info is None:
        meta_info = {k: dict(zip(("symbol", "params"), (_MODEL_URL + u for u in v.split())))
                     for k, v in _MODELS.items()}
    if model_name not in meta_info:
        return (None, 0)
    os.makedirs(dst_dir, exist_ok=True)
    meta = dict(meta_info[model_name])
    assert "symbol" in meta, "missing symbol url"
    prefix = os.path.join(dst_dir, model_name)
    download(meta["symbol"], prefix + "-symbol.json")
    assert "params" in meta, "mssing parameter file url"
    download(meta["params"], prefix + "-0000.params")
    return (prefix, 0)


def get_mnist():
    """MNIST from ``train-labels-idx1-ubyte.gz``, ``train-images-idx3-ubyte.gz``,
    ``t10k-labels-idx1-ubyte.gz`` and ``t10k-images-idx3-ubyte.gz`` in the working
    directory (downloaded when missing): ``{'train_data', 'train_label', 'test_data',
    'test_label'}``, images as
    float32 (N, 1, 28, 28) in [0, 1] and labels as int8, as MXNet's."""
    import gzip
    import struct
    url = "http://data.mxnet.io/data/mnist/"

    def read(label_name, image_name):
        with gzip.open(download(url + label_name)) as flbl:
            struct.unpack(">II", flbl.read(8))
            label = np.frombuffer(flbl.read(), dtype=np.int8)
        with gzip.open(download(url + image_name), "rb") as fimg:
            _, _, rows, cols = struct.unpack(">IIII", fimg.read(16))
            image = np.frombuffer(fimg.read(), dtype=np.uint8).reshape(len(label), 1, rows, cols)
        return label, image.astype(np.float32) / 255
    train_lbl, train_img = read("train-labels-idx1-ubyte.gz", "train-images-idx3-ubyte.gz")
    test_lbl, test_img = read("t10k-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz")
    return {"train_data": train_img, "train_label": train_lbl, "test_data": test_img, "test_label": test_lbl}


def get_mnist_pkl():
    """``data/mnist.pkl.gz``, downloaded when missing."""
    os.makedirs("data", exist_ok=True)
    if not os.path.exists("data/mnist.pkl.gz"):
        download("http://deeplearning.net/data/mnist/mnist.pkl.gz", dirname="data")


def _extract_unless_present(zip_url, wanted):
    import zipfile
    if not all(os.path.exists(os.path.join("data", w)) for w in wanted):
        with zipfile.ZipFile(download(zip_url, dirname="data")) as zf:
            zf.extractall("data")


def get_mnist_ubyte():
    """The four MNIST idx files in ``data/`` (extracted from ``data/mnist.zip`` when needed)."""
    os.makedirs("data", exist_ok=True)
    _extract_unless_present("http://data.mxnet.io/mxnet/data/mnist.zip",
                            ["train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
                             "t10k-labels-idx1-ubyte"])


def get_cifar10():
    """CIFAR-10's ``.rec``/``.lst`` files in ``data/cifar/`` (extracted from ``data/cifar10.zip``
    when needed)."""
    os.makedirs("data", exist_ok=True)
    _extract_unless_present("http://data.mxnet.io/mxnet/data/cifar10.zip",
                            ["cifar/train.rec", "cifar/test.rec", "cifar/train.lst", "cifar/test.lst"])


def get_mnist_iterator(batch_size, input_shape, num_parts=1, part_index=0):
    """``(train, val)`` MNISTIters over ``data/``'s idx files (shuffled training set)."""
    from .io import MNISTIter
    get_mnist_ubyte()
    flat = len(input_shape) != 3
    common = dict(input_shape=input_shape, batch_size=batch_size, flat=flat, num_parts=num_parts,
                  part_index=part_index)
    return (MNISTIter(image="data/train-images-idx3-ubyte", label="data/train-labels-idx1-ubyte", shuffle=True,
                      **common),
            MNISTIter(image="data/t10k-images-idx3-ubyte", label="data/t10k-labels-idx1-ubyte", **common))


def get_zip_data(data_dir, url, data_origin_name):
    """Extract ``data_dir/data_origin_name`` (a zip of ``url``) into ``data_dir``, unless done."""
    import zipfile
    origin = os.path.join(data_dir, data_origin_name)
    if not os.path.exists(origin):
        download(url, dirname=data_dir, overwrite=False)
        with zipfile.ZipFile(origin) as zf:
            zf.extractall(path=data_dir)


def get_bz2_data(data_dir, data_name, url, data_origin_name):
    """Decompress ``data_dir/data_origin_name`` (bzip2 of ``url``) into ``data_dir/data_name``
    unless it exists; the compressed file is removed, as MXNet does."""
    import bz2
    import shutil
    target, origin = os.path.join(data_dir, data_name), os.path.join(data_dir, data_origin_name)
    if not os.path.exists(target):
        download(url, fname=origin, dirname=data_dir, overwrite=False)
        with bz2.BZ2File(origin, "rb") as src, open(target, "wb") as out:
            shutil.copyfileobj(src, out)
        os.remove(origin)
