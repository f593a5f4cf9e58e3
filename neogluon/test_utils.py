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
           "get_etol", "random_arrays", "random_uniform_arrays", "rand_ndarray", "rand_shape_2d",
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
    """A standard-normal NDArray of ``shape`` (float32 unless ``dtype``) on ``ctx``.

    neogluon stores every array densely, so only ``stype='default'`` exists."""
    from . import ndarray as nd
    if stype != "default":
        raise MXNetError("rand_ndarray: stype %r is not supported; neogluon arrays are dense ('default')" % stype)
    return nd.array(random_arrays(shape), dtype=dtype, ctx=ctx if ctx else default_context())


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
