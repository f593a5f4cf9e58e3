"""Name -> class registries for families of classes created by name (MXNet's
``mx.registry``): ``mx.init.create('xavier')``, ``mx.metric.create('acc')``.

One :class:`ClassRegistry` per family keeps the lower-cased names, warns when a name is
registered again (as MXNet does) and creates instances by name.
"""
import warnings

__all__ = ["ClassRegistry"]


class ClassRegistry:
    """The classes of one family (``kind``: 'initializer', 'metric') by lower-cased name.

    ``base`` is the family's base class; it may be set after the registry is made (a
    module defines its registry before its base class)."""

    def __init__(self, kind, base=None):
        self.kind = kind
        self.base = base
        self.classes = {}

    def register(self, klass, name=None):
        """Register ``klass`` under its lower-cased class name (or ``name``); returns it."""
        if not (isinstance(klass, type) and issubclass(klass, self.base)):
            raise AssertionError("Can only register subclass of %s" % self.base.__name__)
        name = (name or klass.__name__).lower()
        old = self.classes.get(name)
        if old is not None:
            warnings.warn("New %s %s.%s registered with name %s is overriding existing %s %s.%s"
                          % (self.kind, klass.__module__, klass.__name__, name, self.kind, old.__module__,
                             old.__name__), UserWarning, stacklevel=3)
        self.classes[name] = klass
        return klass

    def alias(self, *aliases):
        """Class decorator registering a class under further names."""
        def reg(klass):
            for name in aliases:
                self.register(klass, name)
            return klass
        return reg

    def create(self, name, *args, **kwargs):
        """An instance of the class registered as ``name`` (any case)."""
        key = name.lower()
        if key not in self.classes:
            raise AssertionError("%s is not registered. Please register with %s.register first" % (key, self.kind))
        return self.classes[key](*args, **kwargs)
