"""ONNX converters of the element-wise operators: arithmetic and comparisons of two arrays
(``elemwise_*``, ``broadcast_*``) or of an array and a scalar (``_plus_scalar``, ...), the
unary math functions, ``clip``, ``add_n``, ``where`` and the ``*_like`` constants.

MXNet's comparisons return the input's dtype (1.0/0.0), ONNX's a bool: a Cast follows.
A scalar is written in the input's dtype (an integer array truncates it, as MXNet does).
"""
import numpy as np

from .._deps import onnx_module
from .graph import converter

__all__ = []

_ARITH = {"add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div", "power": "Pow",
          "maximum": "Max", "minimum": "Min", "mod": "Mod"}
_COMPARE = {"equal": ("Equal", False), "not_equal": ("Equal", True), "greater": ("Greater", False),
            "greater_equal": ("Less", True), "lesser": ("Less", False), "lesser_equal": ("Greater", True)}
_LOGICAL = {"logical_and": "And", "logical_or": "Or", "logical_xor": "Xor"}
_ELEMWISE = {"elemwise_add": "add", "elemwise_sub": "sub", "elemwise_mul": "mul", "elemwise_div": "div",
             "_mod": "mod", "_power": "power", "_maximum": "maximum", "_minimum": "minimum", "_equal": "equal",
             "_not_equal": "not_equal", "_greater": "greater", "_greater_equal": "greater_equal",
             "_lesser": "lesser", "_lesser_equal": "lesser_equal", "_logical_and": "logical_and",
             "_logical_or": "logical_or", "_logical_xor": "logical_xor", "_grad_add": "add"}


def _binary(c, key, lhs, rhs, reflected=False):
    """``lhs <key> rhs`` (``rhs <key> lhs`` when ``reflected``) into the node's output."""
    if reflected:
        lhs, rhs = rhs, lhs
    if key == "mod" and np.dtype(c.dtype(0)).kind == "f":
        _float_mod(c, lhs, rhs)
    elif key in _ARITH:
        extra = {"fmod": 0} if key == "mod" else {}
        c.emit(_ARITH[key], [lhs, rhs], out=c.out(), **extra)
    elif key in _COMPARE:
        op, negate = _COMPARE[key]
        res = c.emit(op, [lhs, rhs])
        if negate:
            res = c.emit("Not", [res])
        c.cast(res, c.out_dtype(), out=c.out())
    elif key in _LOGICAL:
        zero = c.scalar(0)
        a = c.emit("Not", [c.emit("Equal", [lhs, zero])])
        b = c.emit("Not", [c.emit("Equal", [rhs, zero])])
        c.cast(c.emit(_LOGICAL[key], [a, b]), c.out_dtype(), out=c.out())
    elif key == "hypot":
        s = c.emit("Add", [c.emit("Mul", [lhs, lhs]), c.emit("Mul", [rhs, rhs])])
        c.emit("Sqrt", [s], out=c.out())
    else:
        raise c.fail("no ONNX form")


def _float_mod(c, lhs, rhs):
    """MXNet's (numpy's) float ``mod``: C's fmod, plus ``rhs`` where the signs differ."""
    r = c.emit("Mod", [lhs, rhs], fmod=1)
    nonzero = c.emit("Not", [c.emit("Equal", [r, c.scalar(0)])])
    signs_differ = c.emit("Xor", [c.emit("Less", [r, c.scalar(0)]), c.emit("Less", [rhs, c.scalar(0)])])
    fix = c.emit("And", [nonzero, signs_differ])
    c.emit("Where", [fix, c.emit("Add", [r, rhs]), r], out=c.out())


def _register_binary():
    keys = list(_ARITH) + list(_COMPARE) + list(_LOGICAL) + ["hypot"]
    for key in keys:
        converter("broadcast_" + key)(lambda c, key=key: _binary(c, key, c.input(0), c.input(1)))
    for name, key in _ELEMWISE.items():
        converter(name)(lambda c, key=key: _binary(c, key, c.input(0), c.input(1)))


_register_binary()


def _scalar_value(c):
    value = c.attrs["scalar"]
    dtype = np.dtype(c.dtype(0))
    if dtype.kind in "iub" and c.attrs.get("is_int", True):
        value = int(value)
    return c.scalar(value)


def _register_scalar():
    keys = {"plus": "add", "minus": "sub", "mul": "mul", "div": "div", "mod": "mod", "power": "power",
            "maximum": "maximum", "minimum": "minimum", "hypot": "hypot", "equal": "equal",
            "not_equal": "not_equal", "greater": "greater", "greater_equal": "greater_equal",
            "lesser": "lesser", "lesser_equal": "lesser_equal", "logical_and": "logical_and",
            "logical_or": "logical_or", "logical_xor": "logical_xor"}
    for name, key in keys.items():
        converter("_%s_scalar" % name)(lambda c, key=key: _binary(c, key, c.input(0), _scalar_value(c)))
    for name, key in {"minus": "sub", "div": "div", "mod": "mod", "power": "power"}.items():
        converter("_r%s_scalar" % name)(lambda c, key=key: _binary(c, key, c.input(0), _scalar_value(c), True))


_register_scalar()

_UNARY = {"relu": "Relu", "sigmoid": "Sigmoid", "tanh": "Tanh", "exp": "Exp", "abs": "Abs", "negative": "Neg",
          "sign": "Sign", "floor": "Floor", "ceil": "Ceil", "erf": "Erf", "sin": "Sin", "cos": "Cos", "tan": "Tan",
          "arcsin": "Asin", "arccos": "Acos", "arctan": "Atan", "sinh": "Sinh", "cosh": "Cosh", "arcsinh": "Asinh",
          "arccosh": "Acosh", "arctanh": "Atanh", "log": "Log", "sqrt": "Sqrt", "reciprocal": "Reciprocal",
          "softsign": "Softsign", "fix": None, "trunc": None}


@converter(*[k for k, v in _UNARY.items() if v])
def convert_unary(c):
    c.emit(_UNARY[c.node.op.name], [c.input(0)], out=c.out())


@converter("fix", "trunc")
def convert_trunc(c):
    x = c.input(0)
    c.emit("Mul", [c.emit("Floor", [c.emit("Abs", [x])]), c.emit("Sign", [x])], out=c.out())


@converter("round")
def convert_round(c):
    """MXNet rounds halves away from zero: sign(x) * floor(|x| + 0.5)."""
    x = c.input(0)
    mag = c.emit("Floor", [c.emit("Add", [c.emit("Abs", [x]), c.scalar(0.5)])])
    c.emit("Mul", [c.emit("Sign", [x]), mag], out=c.out())


@converter("square")
def convert_square(c):
    c.emit("Mul", [c.input(0), c.input(0)], out=c.out())


@converter("rsqrt")
def convert_rsqrt(c):
    c.emit("Reciprocal", [c.emit("Sqrt", [c.input(0)])], out=c.out())


@converter("expm1")
def convert_expm1(c):
    c.emit("Sub", [c.emit("Exp", [c.input(0)]), c.scalar(1)], out=c.out())


@converter("log1p")
def convert_log1p(c):
    c.emit("Log", [c.emit("Add", [c.input(0), c.scalar(1)])], out=c.out())


@converter("log2", "log10")
def convert_log_base(c):
    base = 2.0 if c.node.op.name == "log2" else 10.0
    c.emit("Div", [c.emit("Log", [c.input(0)]), c.scalar(np.log(base))], out=c.out())


@converter("hard_sigmoid")
def convert_hard_sigmoid(c):
    c.emit("HardSigmoid", [c.input(0)], out=c.out(), alpha=float(c.attrs["alpha"]), beta=float(c.attrs["beta"]))


@converter("logical_not")
def convert_logical_not(c):
    c.cast(c.emit("Equal", [c.input(0), c.scalar(0)]), c.out_dtype(), out=c.out())


@converter("clip")
def convert_clip(c):
    c.emit("Clip", [c.input(0), c.scalar(c.attrs["a_min"]), c.scalar(c.attrs["a_max"])], out=c.out())


@converter("add_n")
def convert_add_n(c):
    c.emit("Sum", c.inputs, out=c.out())


@converter("where")
def convert_where(c):
    cond = c.emit("Not", [c.emit("Equal", [c.input(0), c.scalar(0)])])
    c.emit("Where", [cond, c.input(1), c.input(2)], out=c.out())


@converter("zeros_like", "ones_like")
def convert_constant_like(c):
    value = np.full((1,), 0 if c.node.op.name == "zeros_like" else 1, dtype=c.dtype(0))
    shape = c.emit("Shape", [c.input(0)])
    c.emit("ConstantOfShape", [shape], out=c.out(), value=onnx_module().numpy_helper.from_array(value))
