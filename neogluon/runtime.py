"""MXNet's ``mx.runtime``: which features this build has (``Features``, ``feature_list``).

MXNet reports its compile-time features; neogluon's kernels are torch's, so each feature
is answered for the torch build and machine neogluon runs on (CUDA and cuDNN compiled in,
OpenMP, MKL-DNN, the BLAS and LAPACK torch links, the CPU instruction level torch
dispatches to), and for neogluon itself (the profiler works, tensor sizes are 64-bit; no
distributed kvstore, TensorRT, TVM or Caffe). Names, order, ``repr`` and errors are
MXNet 1.9.1's.
"""
import collections
import importlib.util

import torch

__all__ = ["Feature", "Features", "feature_list"]

NAMES = ["CUDA", "CUDNN", "NCCL", "CUDA_RTC", "TENSORRT", "CPU_SSE", "CPU_SSE2", "CPU_SSE3", "CPU_SSE4_1",
         "CPU_SSE4_2", "CPU_SSE4A", "CPU_AVX", "CPU_AVX2", "OPENMP", "SSE", "F16C", "JEMALLOC", "BLAS_OPEN",
         "BLAS_ATLAS", "BLAS_MKL", "BLAS_APPLE", "LAPACK", "MKLDNN", "OPENCV", "CAFFE", "PROFILER",
         "DIST_KVSTORE", "CXX14", "INT64_TENSOR_SIZE", "SIGNAL_HANDLER", "DEBUG", "TVM_OP"]


class Feature:
    """One feature: ``name`` and ``enabled``; shown as ``✔ NAME`` or ``✖ NAME``."""
    __slots__ = ("name", "enabled")

    def __init__(self, name, enabled):
        self.name = name
        self.enabled = bool(enabled)

    def __repr__(self):
        return ("✔ {}" if self.enabled else "✖ {}").format(self.name)


def _cpu_level():
    """The x86 instruction sets torch's CPU kernels use here."""
    try:
        level = torch.backends.cpu.get_cpu_capability()
    except AttributeError:
        level = "DEFAULT"
    import platform
    x86 = platform.machine().lower() in ("x86_64", "amd64", "i386", "i686")
    avx2 = x86 and level in ("AVX2", "AVX512")
    return {"CPU_SSE": x86, "CPU_SSE2": x86, "CPU_SSE3": avx2, "CPU_SSE4_1": avx2, "CPU_SSE4_2": avx2,
            "CPU_SSE4A": False, "CPU_AVX": avx2, "CPU_AVX2": avx2, "SSE": x86, "F16C": avx2}


def _detect():
    config = torch.__config__.show().lower()
    blas = next((line.split("=", 1)[1] for line in config.replace(",", "\n").split("\n")
                 if "blas_info=" in line), "")
    found = {
        "CUDA": torch.backends.cuda.is_built(),
        "CUDNN": torch.backends.cudnn.is_available(),
        "NCCL": torch.cuda.is_available() and torch.distributed.is_available()
        and torch.distributed.is_nccl_available(),
        "CUDA_RTC": False, "TENSORRT": False,
        "OPENMP": torch.backends.openmp.is_available(),
        "JEMALLOC": False,
        "BLAS_OPEN": "open" in blas, "BLAS_ATLAS": "atlas" in blas,
        "BLAS_MKL": torch.backends.mkl.is_available() or "mkl" in blas,
        "BLAS_APPLE": "accelerate" in blas,
        "LAPACK": "lapack is enabled" in config,  # torch's public build summary, not torch._C
        "MKLDNN": torch.backends.mkldnn.is_available(),
        "OPENCV": importlib.util.find_spec("cv2") is not None,
        "CAFFE": False, "PROFILER": True, "DIST_KVSTORE": False, "CXX14": True,
        "INT64_TENSOR_SIZE": True, "SIGNAL_HANDLER": False,
        "DEBUG": bool(getattr(torch.version, "debug", False)), "TVM_OP": False,
    }
    found.update(_cpu_level())
    return found


def feature_list():
    """Every feature, in MXNet's order."""
    found = _detect()
    return [Feature(name, found[name]) for name in NAMES]


class Features(collections.OrderedDict):
    """The features by name (one instance per process, as in MXNet)."""
    instance = None

    def __new__(cls):
        if cls.instance is None:
            cls.instance = super().__new__(cls)
            super(Features, cls.instance).__init__([(f.name, f) for f in feature_list()])
        return cls.instance

    def __init__(self):  # filled once, in __new__
        pass

    def __repr__(self):
        return str(list(self.values()))

    def is_enabled(self, feature_name):
        """Whether a feature (by name, any case) is enabled; RuntimeError for an unknown name."""
        feature_name = feature_name.upper()
        if feature_name not in self:
            raise RuntimeError("Feature '{}' is unknown, known features are: {}".format(
                feature_name, list(self.keys())))
        return self[feature_name].enabled
