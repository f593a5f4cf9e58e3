"""``mx.npx.image``: MXNet 1.9.1's image operators of the NumPy interface
(``mxnet/numpy_extension/image.py``): the ``_image_*`` operators of ``mx.nd.image`` (the
same registrations), results ``mx.np.ndarray``; on Symbols (``F.npx.image`` in a
hybridized ``hybrid_forward``, ``mx.sym.npx.image``) graph nodes."""
import functools as _functools

from ..ndarray import image as _nd_image
from ..numpy.multiarray import as_np as _np
from ..symbol import Symbol as _Symbol

__all__ = ["adjust_lighting", "crop", "flip_left_right", "flip_top_bottom", "normalize", "random_brightness",
           "random_color_jitter", "random_contrast", "random_flip_left_right", "random_flip_top_bottom",
           "random_hue", "random_lighting", "random_saturation", "resize", "to_tensor"]


def _image(name):
    fn = getattr(_nd_image, name)

    @_functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if args and isinstance(args[0], _Symbol):
            from ..symbol import image as _sym_image
            return getattr(_sym_image, name)(*args, **kwargs)
        return _np(fn(*args, **kwargs))
    wrapper.__doc__ = "``npx.image.%s``: ``mx.nd.image.%s`` with mx.np arrays.\n\n%s" % (name, name, fn.__doc__ or "")
    return wrapper


for _name in __all__:
    globals()[_name] = _image(_name)
