"""``mx.sym.npx.image``: ``mx.npx.image``'s operators making graph nodes."""
from ...numpy_extension import image as _image
from ..numpy._symbol import frontend as _frontend

__all__ = _frontend(globals(), _image, "mxnet.symbol.numpy_extension.image")
