"""``mx.init`` / ``mx.initializer``: MXNet 1.9.1's weight initializers.

An initializer is called with an ``InitDesc`` (a parameter name carrying the variable's
attributes) and the NDArray to fill. When the attributes hold ``__init__`` (the JSON that
``Initializer.dumps()`` writes, or a registered name) that initializer's ``_init_weight``
fills the array; otherwise the name's suffix picks the pattern (``weight`` ->
``_init_weight``, ``bias``/``beta`` -> zeros, ``gamma`` -> ones, ...), as in MXNet. Gluon's
``Parameter.initialize`` always passes ``__init__``, so there every parameter goes through
``_init_weight`` of its own or the default initializer.

Random initializers draw from torch's global generator (seeded by ``mx.random.seed``), so
values differ from MXNet's draws but follow the same distributions.
"""
import json
import logging
import re
import warnings
from math import sqrt

import numpy as np
import torch

from .registry import ClassRegistry
from .ndarray import NDArray, load as _nd_load

__all__ = ["InitDesc", "Initializer", "register", "alias", "create", "Load", "Mixed", "Zero", "One",
           "Constant", "Uniform", "Normal", "Orthogonal", "Xavier", "MSRAPrelu", "Bilinear", "LSTMBias",
           "FusedRNN"]


class InitDesc(str):
    """A parameter name with the variable's attributes (``attrs``) and the global
    initializer to fall back to (``global_init``); it is the ``str`` of the name."""

    def __new__(cls, name, attrs=None, global_init=None):
        ret = super().__new__(cls, name)
        ret.attrs = attrs or {}
        ret.global_init = global_init
        return ret


def _draw(arr, dist, a, b):
    """Fill ``arr`` in place from torch's generator: uniform on ``[a, b)`` or normal with
    mean ``a`` and std ``b`` (drawn in float32 and converted for integer arrays)."""
    t = arr._t
    with torch.no_grad():
        target = t if t.is_floating_point() else torch.empty(t.shape, dtype=torch.float32, device=t.device)
        if dist == "uniform":
            target.uniform_(a, b)
        else:
            target.normal_(a, b)
        if target is not t:
            t.copy_(target)


def _fill(arr, value):
    """Write a scalar or array-like ``value`` into all of ``arr`` (broadcast as ``arr[:] = value``)."""
    if isinstance(value, (int, float, np.generic)):
        with torch.no_grad():
            arr._t.fill_(value)
    else:
        arr[:] = value


# ----------------------------------------------------------------------------- registry
_CLASSES = ClassRegistry("initializer")  # its base, Initializer, is set below


def register(klass, name=None):
    """Register an ``Initializer`` subclass under its lower-cased class name (or ``name``),
    so that ``mx.init.create(name)`` and ``initialize('name')`` find it."""
    return _CLASSES.register(klass, name)


def alias(*aliases):
    """Class decorator registering an initializer under extra names (``@alias('zeros')``)."""
    return _CLASSES.alias(*aliases)


def create(*args, **kwargs):
    """An initializer from an instance (returned as is), a registered name (``'xavier'``),
    the JSON ``dumps()`` writes (``'["xavier", {"magnitude": 2}]'``), a JSON object with an
    ``"initializer"`` key, or a dict of keywords, as MXNet's ``mx.init.create``."""
    if args:
        name, args = args[0], args[1:]
    else:
        name = kwargs.pop("initializer")
    if isinstance(name, Initializer):
        if args or kwargs:
            raise AssertionError("initializer is already an instance. Additional arguments are invalid")
        return name
    if isinstance(name, dict):
        return create(**name)
    if not isinstance(name, str):
        raise AssertionError("initializer must be of string type")
    if name.startswith("[") or name.startswith("{"):
        if args or kwargs:
            raise AssertionError("a JSON initializer takes no additional arguments")
        spec = json.loads(name)
        return create(spec[0], **spec[1]) if isinstance(spec, list) else create(**spec)
    return _CLASSES.create(name, *args, **kwargs)


# ----------------------------------------------------------------------------- base class
class Initializer:
    """The base class of an initializer: subclasses implement ``_init_weight``."""

    def __init__(self, **kwargs):
        self._kwargs = kwargs
        self._verbose = False
        self._print_func = None

    def set_verbosity(self, verbose=False, print_func=None):
        """Log each initialized array with ``print_func(arr)`` (default: ``norm(x)/sqrt(size)``)."""
        self._verbose = verbose
        if print_func is None:
            def print_func(x):
                return str(float(torch.linalg.vector_norm(x._t.detach().double())) / sqrt(x.size))
        self._print_func = print_func
        return self

    def _verbose_print(self, desc, init, arr):
        if self._verbose and self._print_func:
            logging.info("Initialized %s as %s: %s", desc, init, self._print_func(arr))

    def dumps(self):
        """The JSON string ``["<lower-case class name>", {constructor keywords}]``."""
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])

    # suffix -> method of the InitDesc dispatch, in MXNet's order
    _PATTERNS = (("weight", "_init_weight"), ("bias", "_init_bias"), ("gamma", "_init_gamma"),
                 ("beta", "_init_beta"), ("min", "_init_zero"), ("max", "_init_one"),
                 ("weight_quantize", "_init_quantized_weight"), ("bias_quantize", "_init_quantized_bias"))

    def __call__(self, desc, arr):
        """Initialize ``arr`` named by ``desc`` (an ``InitDesc``; a plain name takes the
        deprecated legacy path)."""
        if not isinstance(desc, InitDesc):
            self._legacy_init(desc, arr)
            return
        if desc.global_init is None:
            desc.global_init = self
        init = desc.attrs.get("__init__", "")
        if init:
            create(init)._init_weight(desc, arr)
            self._verbose_print(desc, init, arr)
            return
        for suffix, method in self._PATTERNS:
            if desc.endswith(suffix):
                getattr(self, method)(desc, arr)
                self._verbose_print(desc, suffix, arr)
                return
        self._init_default(desc, arr)

    # name test -> method of the legacy (plain name) dispatch, in MXNet's order
    _LEGACY_PATTERNS = (
        (lambda n: n.startswith("upsampling"), "_init_bilinear"),
        (lambda n: n.startswith("stn_loc") and n.endswith("weight"), "_init_zero"),
        (lambda n: n.startswith("stn_loc") and n.endswith("bias"), "_init_loc_bias"),
        (lambda n: n.endswith("bias"), "_init_bias"),
        (lambda n: n.endswith("gamma"), "_init_gamma"),
        (lambda n: n.endswith("beta"), "_init_beta"),
        (lambda n: n.endswith("weight"), "_init_weight"),
        (lambda n: n.endswith("moving_mean"), "_init_zero"),
        (lambda n: n.endswith("moving_var"), "_init_one"),
        (lambda n: n.endswith("moving_inv_var"), "_init_zero"),
        (lambda n: n.endswith("moving_avg"), "_init_zero"),
        (lambda n: n.endswith("min"), "_init_zero"),
        (lambda n: n.endswith("max"), "_init_one"),
    )

    def _legacy_init(self, name, arr):
        """MXNet's deprecated ``init(str, NDArray)``: the pattern comes from the name alone."""
        warnings.warn("Calling initializer with init(str, NDArray) has been deprecated. "
                      "please use init(mx.init.InitDesc(...), NDArray) instead.", DeprecationWarning, stacklevel=3)
        if not isinstance(name, str):
            raise TypeError("name must be string")
        if not isinstance(arr, NDArray):
            raise TypeError("arr must be NDArray")
        for matches, method in self._LEGACY_PATTERNS:
            if matches(name):
                getattr(self, method)(name, arr)
                return
        self._init_default(name, arr)

    def _init_bilinear(self, _, arr):
        _fill(arr, _bilinear_kernel(arr.shape))

    def _init_loc_bias(self, _, arr):
        if arr.shape[0] != 6:
            raise AssertionError("stn_loc bias must have 6 elements, got shape %s" % (arr.shape,))
        _fill(arr, np.array([1.0, 0, 0, 0, 1.0, 0]))

    def _init_zero(self, _, arr):
        _fill(arr, 0.0)

    def _init_one(self, _, arr):
        _fill(arr, 1.0)

    def _init_bias(self, _, arr):
        _fill(arr, 0.0)

    def _init_quantized_bias(self, _, arr):
        _fill(arr, 0)

    def _init_gamma(self, _, arr):
        _fill(arr, 1.0)

    def _init_beta(self, _, arr):
        _fill(arr, 0.0)

    def _init_quantized_weight(self, _, arr):
        with torch.no_grad():
            arr._t.copy_(torch.randint(-127, 127, arr.shape, device=arr._t.device))

    def _init_weight(self, name, arr):
        raise ValueError("%s cannot initialize weights: %s (%s) does not define _init_weight"
                         % (type(self).__name__, name, arr.shape))

    def _init_default(self, name, _):
        raise ValueError('Unknown initialization pattern for %s. Default initialization is now limited to '
                         '"weight", "bias", "gamma" (1.0), and "beta" (0.0).Please use '
                         'mx.sym.Variable(init=mx.init.*) to set initialization pattern' % name)

    def __eq__(self, other):
        if not isinstance(other, Initializer):
            return NotImplemented
        return type(self) is type(other) and self._kwargs == other._kwargs

    __hash__ = object.__hash__


_CLASSES.base = Initializer


def _weight_desc(desc, init):
    """``desc`` carrying ``init`` as its ``__init__``, so that ``init._init_weight`` fills it
    whatever the name's suffix (the Gluon path)."""
    return InitDesc(str(desc), {"__init__": init}, getattr(desc, "global_init", None))


# ----------------------------------------------------------------------------- composites
class Load(Initializer):
    """Initialize by name from a dict (or a ``.params`` file) of arrays; ``arg:``/``aux:``
    prefixes are dropped; names not found go to ``default_init``.

    Unlike MXNet's (a plain callable), it is also accepted by Gluon's ``initialize``,
    where a name not found is filled by ``default_init._init_weight``."""

    def __init__(self, param, default_init=None, verbose=False):
        super().__init__()
        if isinstance(param, str):
            param = _nd_load(param)
        if not isinstance(param, dict):
            raise AssertionError("Load needs a dict of name -> NDArray or a .params file of named arrays")
        self.param = {k[4:] if k.startswith(("arg:", "aux:")) else k: v for k, v in param.items()}
        self.default_init = default_init
        self.verbose = verbose

    def __call__(self, name, arr):
        if name in self.param:
            src = self.param[name]
            if arr.shape != src.shape:
                raise AssertionError("Parameter %s cannot be initialized from loading. Shape mismatch, target %s "
                                     "vs loaded %s" % (name, str(arr.shape), src.shape))
            arr[:] = src
            if self.verbose:
                logging.info("Initialized %s by loading", name)
            return
        if self.default_init is None:
            raise AssertionError("Cannot Initialize %s. Not found in loaded param and no default Initializer "
                                 "is provided." % name)
        self.default_init(name, arr)
        if self.verbose:
            logging.info("Initialized %s by default", name)

    def _init_weight(self, desc, arr):
        """Gluon path: a name not in the dict takes ``default_init``'s ``_init_weight``."""
        if desc in self.param or self.default_init is None:
            self(str(desc), arr)
        else:
            self.default_init(_weight_desc(desc, self.default_init), arr)


class Mixed(Initializer):
    """Initialize each parameter with the initializer of the first regular expression in
    ``patterns`` that matches its name (``re.match``).

    Unlike MXNet's (a plain callable), it is also accepted by Gluon's ``initialize``,
    where the matching initializer's ``_init_weight`` fills every parameter, as Gluon
    does for a single initializer."""

    def __init__(self, patterns, initializers):
        super().__init__()
        if len(patterns) != len(initializers):
            raise AssertionError("Mixed needs as many initializers as patterns: %d vs %d"
                                 % (len(patterns), len(initializers)))
        self.map = list(zip([re.compile(p) for p in patterns], initializers))

    def _match(self, name):
        for prog, init in self.map:
            if prog.match(name):
                return init
        raise ValueError('Parameter name %s did not match any pattern. Consider add a ".*" pattern at the end '
                         'with default Initializer.' % name)

    def __call__(self, name, arr):
        self._match(name)(name, arr)

    def _init_weight(self, desc, arr):
        """Gluon path: the matching initializer's ``_init_weight``, whatever the suffix."""
        init = self._match(desc)
        init(_weight_desc(desc, init), arr)


# ----------------------------------------------------------------------------- initializers
@register
@alias("zeros")
class Zero(Initializer):
    """Initializes weights to zero."""

    def __init__(self):
        super().__init__()

    def _init_weight(self, _, arr):
        _fill(arr, 0)


@register
@alias("ones")
class One(Initializer):
    """Initializes weights to one."""

    def __init__(self):
        super().__init__()

    def _init_weight(self, _, arr):
        _fill(arr, 1)


@register
class Constant(Initializer):
    """Initializes weights to ``value``: a scalar, or an array broadcast to the weight's shape."""

    def __init__(self, value):
        super().__init__(value=value)
        self.value = value

    def _init_weight(self, _, arr):
        _fill(arr, self.value)

    def dumps(self):
        """As the base class, with an array ``value`` written as nested lists."""
        val = self._kwargs["value"]
        if not np.isscalar(val):
            self._kwargs["value"] = (val.asnumpy() if isinstance(val, NDArray) else np.asarray(val)).tolist()
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])


@register
class Uniform(Initializer):
    """Initializes weights uniformly from ``[-scale, scale]``."""

    def __init__(self, scale=0.07):
        super().__init__(scale=scale)
        self.scale = scale

    def _init_weight(self, _, arr):
        _draw(arr, "uniform", -self.scale, self.scale)


@register
class Normal(Initializer):
    """Initializes weights from a normal distribution with mean 0 and std ``sigma``."""

    def __init__(self, sigma=0.01):
        super().__init__(sigma=sigma)
        self.sigma = sigma

    def _init_weight(self, _, arr):
        _draw(arr, "normal", 0.0, self.sigma)


def _orthogonal(tmp, shape, scale):
    """MXNet's Orthogonal from a random ``(nout, nin)`` matrix: the orthonormal SVD factor of
    the matrix's shape (``u``, else ``v``), scaled and reshaped to the weight."""
    u, _, v = np.linalg.svd(tmp, full_matrices=False)
    res = u if u.shape == tmp.shape else v
    return scale * res.reshape(shape)


@register
class Orthogonal(Initializer):
    """Initializes weights as a (scaled) orthogonal matrix (Saxe et al. 2013), from a
    uniform(-1, 1) or standard normal (``rand_type='normal'``) random matrix."""

    def __init__(self, scale=1.414, rand_type="uniform"):
        super().__init__(scale=scale, rand_type=rand_type)
        self.scale = scale
        self.rand_type = rand_type

    def _init_weight(self, _, arr):
        nout, nin = arr.shape[0], int(np.prod(arr.shape[1:]))
        if self.rand_type not in ("uniform", "normal"):
            raise ValueError("Unknown random type %r: Orthogonal takes 'uniform' or 'normal'" % self.rand_type)
        tmp = NDArray(torch.empty((nout, nin), dtype=torch.float32))
        _draw(tmp, self.rand_type, -1.0 if self.rand_type == "uniform" else 0.0, 1.0)
        _fill(arr, _orthogonal(tmp.asnumpy(), arr.shape, self.scale))


def _xavier_scale(shape, factor_type, magnitude):
    """``sqrt(magnitude / factor)`` with MXNet's fans: ``shape[1]`` (in) and ``shape[0]``
    (out), each times the product of the kernel dimensions ``shape[2:]``."""
    hw_scale = np.prod(shape[2:]) if len(shape) > 2 else 1.0
    fan_in, fan_out = shape[1] * hw_scale, shape[0] * hw_scale
    factors = {"avg": (fan_in + fan_out) / 2.0, "in": fan_in, "out": fan_out}
    if factor_type not in factors:
        raise ValueError("Incorrect factor type")
    return np.sqrt(magnitude / factors[factor_type])


@register
class Xavier(Initializer):
    """"Xavier" initialization: uniform in ``[-c, c]`` (``rnd_type='uniform'``) or normal
    with std ``c`` (``'gaussian'``), ``c = sqrt(magnitude / factor)`` where the factor is the
    average of fan-in and fan-out (``'avg'``), the fan-in (``'in'``) or the fan-out (``'out'``)."""

    def __init__(self, rnd_type="uniform", factor_type="avg", magnitude=3):
        super().__init__(rnd_type=rnd_type, factor_type=factor_type, magnitude=magnitude)
        self.rnd_type = rnd_type
        self.factor_type = factor_type
        self.magnitude = float(magnitude)

    def _init_weight(self, name, arr):
        if len(arr.shape) < 2:
            raise ValueError("Xavier initializer cannot be applied to vector {0}. It requires at least 2D."
                             .format(name))
        scale = float(_xavier_scale(arr.shape, self.factor_type, self.magnitude))
        if self.rnd_type == "uniform":
            _draw(arr, "uniform", -scale, scale)
        elif self.rnd_type == "gaussian":
            _draw(arr, "normal", 0.0, scale)
        else:
            raise ValueError("Unknown random type")


@register
class MSRAPrelu(Xavier):
    """He et al.'s initialization for (P)ReLU networks: Gaussian Xavier with
    ``magnitude = 2 / (1 + slope ** 2)``."""

    def __init__(self, factor_type="avg", slope=0.25):
        super().__init__("gaussian", factor_type, 2.0 / (1 + slope ** 2))
        self._kwargs = {"factor_type": factor_type, "slope": slope}


def _bilinear_kernel(shape):
    """MXNet's bilinear upsampling kernel over the last two axes of a 4-d weight."""
    f = np.ceil(shape[3] / 2.0)
    c = (2 * f - 1 - f % 2) / (2.0 * f)
    wx = 1 - np.abs(np.arange(shape[3]) / f - c)
    wy = 1 - np.abs(np.arange(shape[2]) / f - c)
    return np.broadcast_to(np.outer(wy, wx), shape).astype(np.float32)


@register
class Bilinear(Initializer):
    """Initializes a 4-d weight with bilinear interpolation kernels (for Deconvolution upsampling)."""

    def __init__(self):
        super().__init__()

    def _init_weight(self, _, arr):
        _fill(arr, _bilinear_kernel(arr.shape))


@register
class LSTMBias(Initializer):
    """Initializes an LSTM bias to 0 except the forget gate (the second of the four gate
    blocks), set to ``forget_bias``."""

    def __init__(self, forget_bias=1.0):
        super().__init__(forget_bias=forget_bias)
        self.forget_bias = forget_bias

    def _init_weight(self, _, arr):
        num_hidden = int(arr.shape[0] / 4)
        with torch.no_grad():
            arr._t.zero_()
            arr._t[num_hidden:2 * num_hidden] = self.forget_bias


@register
class FusedRNN(Initializer):
    """Initializes the ``parameters`` vector of a fused ``RNN`` (``mx.rnn.FusedRNNCell``)
    gate by gate: the vector is unpacked into the unfused cells' weights and biases, each
    filled by ``init`` (or the global initializer when None; an LSTM's forget-gate biases
    get ``forget_bias``), and packed back.

    Parameters
    ----------
    init : Initializer, str (its ``dumps()``) or None
    num_hidden, num_layers, mode, bidirectional, forget_bias
        As given to the ``FusedRNNCell``.
    """

    def __init__(self, init, num_hidden, num_layers, mode, bidirectional=False, forget_bias=1.0):
        if isinstance(init, str):
            init = create(init)
        super().__init__(init=init.dumps() if init is not None else None, num_hidden=num_hidden,
                         num_layers=num_layers, mode=mode, bidirectional=bidirectional,
                         forget_bias=forget_bias)
        self._init = init
        self._num_hidden = num_hidden
        self._num_layers = num_layers
        self._mode = mode
        self._bidirectional = bidirectional
        self._forget_bias = forget_bias

    def _init_weight(self, desc, arr):
        from .rnn import rnn_cell  # the cells sit above the initializers
        cell = rnn_cell.FusedRNNCell(self._num_hidden, self._num_layers, self._mode, self._bidirectional,
                                     forget_bias=self._forget_bias, prefix='')
        args = cell.unpack_weights({'parameters': arr})
        for name in args:
            arg_desc = InitDesc(name, global_init=desc.global_init)
            if self._mode == 'lstm' and name.endswith("_f_bias"):
                args[name][:] = self._forget_bias
            elif self._init is None:
                desc.global_init(arg_desc, args[name])
            else:
                self._init(arg_desc, args[name])
        arr[:] = cell.pack_weights(args)['parameters']
