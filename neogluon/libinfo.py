"""MXNet's ``mx.libinfo``: the version, and where the native library and headers are.

neogluon has no ``libmxnet.so``: its kernels are torch's. ``find_lib_path`` therefore
raises the RuntimeError MXNet raises when its library is missing, saying so;
``find_include_path`` gives torch's C++ headers; ``find_conf_path`` neogluon's package
directory (MXNet's holds the make configuration of the build, which neogluon has none of).
"""
import os

__version__ = "1.9.1"  # the MXNet API level (neogluon.__version__ is neogluon's own)

__all__ = ["find_lib_path", "find_include_path", "find_conf_path", "__version__"]


def find_lib_path(prefix="libmxnet"):
    """MXNet's native library; neogluon has none, so this raises RuntimeError."""
    raise RuntimeError("Cannot find the MXNet library (%s): neogluon implements MXNet 1.9.1's API in Python "
                       "on torch's kernels and has no native MXNet library" % prefix)


def find_include_path():
    """The C++ headers of the kernels in use (torch's ``include`` directory)."""
    import torch.utils.cpp_extension
    return torch.utils.cpp_extension.include_paths()[0]


def find_conf_path(prefix="tvmop"):
    """The directory of neogluon's package (MXNet's build configuration has no equivalent)."""
    return os.path.dirname(os.path.abspath(__file__))
