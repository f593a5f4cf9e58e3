"""MXNet's legacy Python operators, ``mx.operator.PythonOp``, ``NumpyOp`` and ``NDArrayOp``
(deprecated in MXNet 1.x for ``CustomOp``, still in 1.9.1's ``mxnet/operator.py``).

A user subclasses ``NumpyOp`` (``forward(in_data, out_data)`` and ``backward(out_grad,
in_data, out_data, in_grad)`` on NumPy float32 buffers) or ``NDArrayOp`` (the same on
NDArrays), describes it with ``list_arguments``, ``list_outputs``, ``infer_shape`` and
``need_top_grad``, and calls an instance on Symbols to get a graph node.

MXNet runs them through its ``_Native``/``_NDArray`` operators and C callbacks; here each
instance is registered as a :mod:`~neogluon.operator.custom` operator (one ``Custom``
node of ``op_type`` ``_python_op_<n>``), whose prop asks the instance for its names and
shapes and whose ``CustomOp`` calls the instance's ``forward``/``backward``. So executors,
Modules and autograd run them as they run any ``CustomOp``.
"""
import itertools
import warnings

import numpy as np

from .custom import CustomOp, CustomOpProp, register

__all__ = ["PythonOp", "NumpyOp", "NDArrayOp"]

_COUNT = itertools.count()


class PythonOp:
    """Base class for operators implemented in Python (MXNet's ``mx.operator.PythonOp``).

    Parameters
    ----------
    need_top_grad : bool
        what the default :meth:`need_top_grad` returns (False for loss layers, whose
        backward does not read the head gradient).
    """
    _ref_holder = []

    def __init__(self, need_top_grad=True):
        self.info_ = None
        self.need_top_grad_ = need_top_grad
        warnings.warn("PythonOp has been deprecated. Please use CustomOp")

    def __call__(self, *args, **kwargs):
        return self.get_symbol(*args, **kwargs)

    def get_symbol(self, *args, **kwargs):
        """A Symbol running this operator on the Symbols ``args`` (or named ``kwargs``)."""
        raise NotImplementedError("Must override this")

    def forward(self, in_data, out_data):
        """Compute ``out_data`` (written in place) from ``in_data``."""
        out_data[0][:] = in_data[0]

    def backward(self, out_grad, in_data, out_data, in_grad):
        """Compute ``in_grad`` (written in place)."""
        in_grad[0][:] = 1.0

    def infer_shape(self, in_shape):
        """(argument shapes, output shapes) from the argument shapes."""
        return in_shape, [in_shape[0]]

    def list_outputs(self):
        return ["output"]

    def list_arguments(self):
        return ["data"]

    def need_top_grad(self):
        """Whether :meth:`backward` needs ``out_grad`` (False for loss layers)."""
        return self.need_top_grad_

    # ---------------------------------------------------------------- neogluon's Custom node
    def _custom_symbol(self, buffers, args, kwargs):
        """The ``Custom`` node of this instance, its prop registered on first use;
        ``buffers`` turns the operator's NDArrays into what forward/backward receive
        (NumPy arrays for NumpyOp, the NDArrays themselves for NDArrayOp)."""
        if self.info_ is None:
            self.info_ = "_python_op_%d" % next(_COUNT)
            register(self.info_)(_prop_class(self, buffers))
            PythonOp._ref_holder.append(self)
        from ..symbol import Custom
        return Custom(*args, op_type=self.info_, **kwargs)


class NumpyOp(PythonOp):
    """A Python operator whose ``forward``/``backward`` compute on NumPy float32 arrays
    (MXNet's ``mx.operator.NumpyOp``): write outputs and gradients in place
    (``y[:] = ...``)."""

    def __init__(self, need_top_grad=True):
        super().__init__(need_top_grad)
        warnings.warn("NumpyOp has been deprecated. Please use CustomOp")

    def get_symbol(self, *args, **kwargs):
        return self._custom_symbol(_NumpyBuffers, args, kwargs)


class NDArrayOp(PythonOp):
    """A Python operator whose ``forward``/``backward`` compute on NDArrays (MXNet's
    ``mx.operator.NDArrayOp``)."""

    def __init__(self, need_top_grad=True):
        super().__init__(need_top_grad)
        warnings.warn("NDArrayOp has been deprecated. Please use CustomOp")

    def get_symbol(self, *args, **kwargs):
        return self._custom_symbol(_NDArrayBuffers, args, kwargs)

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        """The ids of the blobs :meth:`backward` reads."""
        deps = []
        if self.need_top_grad():
            deps.extend(out_grad)
        deps.extend(in_data)
        deps.extend(out_data)
        return deps


class _NumpyBuffers:
    """NumpyOp's view: float32 NumPy copies; the written ones go back through ``assign``."""

    @staticmethod
    def read(arrays):
        return [np.ascontiguousarray(a.asnumpy(), dtype=np.float32) for a in arrays]

    @staticmethod
    def writable(arrays):
        return [np.zeros(a.shape, dtype=np.float32) for a in arrays]

    @staticmethod
    def store(op, dsts, reqs, bufs):
        for dst, req, buf in zip(dsts, reqs, bufs):
            op.assign(dst, req, buf)


class _NDArrayBuffers:
    """NDArrayOp's view: the operator's own NDArrays, written in place."""

    @staticmethod
    def read(arrays):
        return list(arrays)

    @staticmethod
    def writable(arrays):
        return list(arrays)

    @staticmethod
    def store(op, dsts, reqs, bufs):
        pass


def _prop_class(pyop, buffers):
    """The CustomOpProp subclass describing ``pyop`` (a PythonOp instance)."""

    class _PythonOpCompute(CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            outs = buffers.writable(out_data)
            pyop.forward(in_data=buffers.read(in_data), out_data=outs)
            buffers.store(self, out_data, req, outs)

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            grads = buffers.writable(in_grad)
            pyop.backward(out_grad=buffers.read(out_grad) if pyop.need_top_grad() else [],
                          in_data=buffers.read(in_data), out_data=buffers.read(out_data), in_grad=grads)
            buffers.store(self, in_grad, req, grads)

    class _PythonOpProp(CustomOpProp):
        def __init__(self):
            super().__init__(need_top_grad=pyop.need_top_grad())

        def list_arguments(self):
            return pyop.list_arguments()

        def list_outputs(self):
            return pyop.list_outputs()

        def infer_shape(self, in_shape):
            ishape, oshape = pyop.infer_shape(in_shape)
            assert len(oshape) == len(pyop.list_outputs())
            assert len(ishape) == len(pyop.list_arguments())
            return ishape, oshape, []

        def create_operator(self, ctx, in_shapes, in_dtypes):
            return _PythonOpCompute()

    _PythonOpProp.__name__ = _PythonOpProp.__qualname__ = type(pyop).__name__ + "Prop"
    return _PythonOpProp
