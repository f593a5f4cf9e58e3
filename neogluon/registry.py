"""MXNet's registry of named classes (``mx.registry``): per base class, a table from a
lower-cased name to a subclass, with the register, alias and create functions MXNet's
initializers, optimizers and metrics are built on, and that client packages (GluonNLP)
use for their own families of classes. Behaviour as MXNet 1.9.1: names are case-blind,
a re-registered name warns and replaces, and ``create`` accepts an instance, a name, a
dict of keywords or the JSON forms ``'["name", {kwargs}]'`` and ``'{"nickname": ...}'``."""
import json
import warnings

from .base import string_types

__all__ = ["get_registry", "get_register_func", "get_alias_func", "get_create_func", "ClassRegistry"]

_REGISTRY = {}


def _table(base_class):
    return _REGISTRY.setdefault(base_class, {})


def get_registry(base_class):
    """A copy of the {name: class} table of ``base_class``."""
    return dict(_table(base_class))


def get_register_func(base_class, nickname):
    """``register(klass, name=None)``: add a subclass of ``base_class`` under ``name``
    (its class name by default), lower-cased."""
    table = _table(base_class)

    def register(klass, name=None):
        assert issubclass(klass, base_class), "Can only register subclass of %s" % base_class.__name__
        name = (klass.__name__ if name is None else name).lower()
        old = table.get(name)
        if old is not None:
            warnings.warn("New %s %s.%s registered with name %s is overriding existing %s %s.%s"
                          % (nickname, klass.__module__, klass.__name__, name, nickname,
                             old.__module__, old.__name__), UserWarning, stacklevel=2)
        table[name] = klass
        return klass
    register.__doc__ = "Register %s to the %s factory" % (nickname, nickname)
    return register


def get_alias_func(base_class, nickname):
    """``alias(*names)``: a class decorator registering the class under every name."""
    register = get_register_func(base_class, nickname)

    def alias(*aliases):
        def reg(klass):
            for name in aliases:
                register(klass, name)
            return klass
        return reg
    return alias


def get_create_func(base_class, nickname):
    """``create(name_or_instance, *args, **kwargs)``: an instance of the class registered
    under the name (an instance is returned as it is)."""
    table = _table(base_class)

    def create(*args, **kwargs):
        if args:
            name, args = args[0], args[1:]
        else:
            name = kwargs.pop(nickname)
        if isinstance(name, base_class):
            assert not args and not kwargs, \
                "%s is already an instance. Additional arguments are invalid" % nickname
            return name
        if isinstance(name, dict):
            return create(**name)
        assert isinstance(name, string_types), "%s must be of string type" % nickname
        if name.startswith("["):
            assert not args and not kwargs
            name, kwargs = json.loads(name)
            return create(name, **kwargs)
        if name.startswith("{"):
            assert not args and not kwargs
            return create(**json.loads(name))
        name = name.lower()
        assert name in table, "%s is not registered. Please register with %s.register first" % (name, nickname)
        return table[name](*args, **kwargs)
    create.__doc__ = ("Create a %s instance from config: a %s instance is returned as it is; a "
                      "name (with constructor arguments) creates the class registered under it."
                      % (nickname, base_class.__name__))
    return create


class ClassRegistry:
    """One family's table (``kind``: 'initializer', 'metric') as an object, for the modules
    that define the family: ``register``, ``alias`` and ``create`` are MXNet's functions
    above on ``base``'s table. ``base`` may be set after the registry is made (a module
    defines its registry before its base class)."""

    def __init__(self, kind, base=None):
        self.kind = kind
        self.base = base

    @property
    def classes(self):
        return _table(self.base)

    def register(self, klass, name=None):
        """Register ``klass`` under its lower-cased class name (or ``name``); returns it."""
        return get_register_func(self.base, self.kind)(klass, name)

    def alias(self, *aliases):
        """Class decorator registering a class under further names."""
        return get_alias_func(self.base, self.kind)(*aliases)

    def create(self, name, *args, **kwargs):
        """An instance of the class registered as ``name`` (any case)."""
        return get_create_func(self.base, self.kind)(name, *args, **kwargs)
