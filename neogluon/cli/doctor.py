"""``neogluon doctor``: the facts a bug report needs, as MXNet's ``tools/diagnose.py`` gave them.

Python and platform, the CPU and its thread settings (OpenMP, torch's intra- and inter-op
threads), the versions of numpy, torch and neogluon with the MXNet API level it follows,
what ``import mxnet`` gives in this environment (neogluon through its alias, a real MXNet,
or nothing), the GPUs torch sees, which optional extras are installed (read from the
package's own metadata, so the list cannot drift from ``pyproject.toml``) and the local
model-store directory. ``--json`` prints the same as one JSON object.
"""
import importlib
import importlib.metadata
import importlib.util
import json
import os
import platform
import re
import shutil
import sys

from .bench import cpu_name

# environment variables that decide how many threads the kernels use, and how they wait
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KMP_BLOCKTIME", "MKL_NUM_THREADS",
                    "OPENBLAS_NUM_THREADS", "OPENBLAS_CORETYPE", "MXNET_CPU_WORKER_NTHREADS",
                    "MXNET_ENGINE_TYPE", "MXNET_HOME", "CUDA_VISIBLE_DEVICES", "NEOGLUON_ADAPTIVE_THREADS")


def _adaptive():
    from .. import threads  # pylint: disable=import-outside-toplevel
    reason = threads.policy().reason
    return "on (the cores other processes leave free)" if reason is None else "off: %s" % reason


def add_arguments(parser):
    parser.add_argument("--json", action="store_true", help="print the report as one JSON object")


def run(args):
    report = collect()
    if args.json:
        print(json.dumps(report, indent=2, sort_keys=False))
    else:
        print(format_text(report))
    return 0


def collect():
    """The report as a dict of sections, each a dict of plain values."""
    import neogluon
    return {
        "python": {"version": sys.version.split()[0], "implementation": platform.python_implementation(),
                   "executable": sys.executable},
        "platform": {"system": platform.system(), "release": platform.release(), "machine": platform.machine(),
                     "platform": platform.platform()},
        "cpu": _cpu(),
        "threads": _threads(),
        "versions": {"neogluon": neogluon.__version__, "mxnet_api": neogluon.mxnet_version,
                     "torch": _version("torch"), "numpy": _version("numpy")},
        "mxnet_import": mxnet_resolution(),
        "gpus": _gpus(),
        "extras": extras(),
        "model_store": _model_store(),
    }


def _version(module):
    return getattr(importlib.import_module(module), "__version__", "unknown")


def _cpu():
    info = {"model": cpu_name(), "logical_cores": os.cpu_count() or 0}
    if hasattr(os, "sched_getaffinity"):
        info["usable_cores"] = len(os.sched_getaffinity(0))
    if hasattr(os, "getloadavg"):
        info["load_average_1min"] = round(os.getloadavg()[0], 2)
    import torch
    info["capability"] = torch.backends.cpu.get_cpu_capability()
    return info


def _threads():
    import torch
    parallel = torch.__config__.parallel_info()
    backend = re.search(r"ATen parallel backend: (.*)", parallel)
    return {
        "torch_intra_op_threads": torch.get_num_threads(),
        "torch_inter_op_threads": torch.get_num_interop_threads(),
        # neogluon/threads.py: whether the intra-op threads follow the free cores, or why not
        "adaptive_threads": _adaptive(),
        "parallel_backend": backend.group(1).strip() if backend else "unknown",
        "openmp": "OpenMP" in parallel,
        "environment": {name: os.environ[name] for name in THREAD_VARIABLES if name in os.environ},
    }


def mxnet_resolution():
    """What ``import mxnet`` gives here: 'neogluon', 'real', or 'none', and where it comes from."""
    if "mxnet" in sys.modules:
        module = sys.modules["mxnet"]
        origin = getattr(module, "__file__", None)
        return _describe_mxnet(origin, module.__name__.startswith("neogluon") or _is_neogluon_path(origin))
    try:
        spec = importlib.util.find_spec("mxnet")
    except (ImportError, ValueError) as err:
        return {"provider": "error", "detail": str(err)}
    if spec is None:
        return {"provider": "none", "origin": None,
                "detail": "'import mxnet' fails here: run 'neogluon alias install', or 'neogluon run script.py'"}
    loader = type(spec.loader).__module__ if spec.loader is not None else ""
    return _describe_mxnet(spec.origin, loader.startswith("neogluon") or _is_neogluon_path(spec.origin))


def _is_neogluon_path(origin):
    if not origin:
        return False
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return os.path.abspath(origin).startswith(package + os.sep)


def _describe_mxnet(origin, is_neogluon):
    if is_neogluon:
        return {"provider": "neogluon", "origin": origin, "detail": "'import mxnet' gives neogluon (the alias)"}
    return {"provider": "real", "origin": origin,
            "detail": "'import mxnet' gives a real MXNet installation; neogluon does not shadow it"}


def _gpus():
    import torch
    if not torch.cuda.is_available():
        return {"cuda_available": False, "torch_cuda": torch.version.cuda, "devices": []}
    return {"cuda_available": True, "torch_cuda": torch.version.cuda,
            "devices": [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]}


def extras():
    """Each optional extra of the installed neogluon: its requirements and whether each is installed."""
    try:
        dist = importlib.metadata.distribution("neogluon")
    except importlib.metadata.PackageNotFoundError:
        return {}
    found = {}
    for requirement in dist.requires or ():
        match = re.match(r"\s*([A-Za-z0-9_.\-]+)[^;]*;\s*extra\s*==\s*['\"]([^'\"]+)['\"]", requirement)
        if not match:
            continue
        package, extra = match.groups()
        found.setdefault(extra, {})[package] = _installed(package)
    result = {}
    for extra, packages in sorted(found.items()):
        result[extra] = {"installed": all(v is not None for v in packages.values()), "packages": packages}
    if "viz" in result:
        result["viz"]["graphviz_dot_program"] = shutil.which("dot")
    return result


def _installed(package):
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def _model_store():
    root = os.path.expanduser(os.environ.get("MXNET_HOME", os.path.join("~", ".mxnet")))
    models = os.path.join(root, "models")
    files = sorted(f for f in os.listdir(models) if f.endswith(".params")) if os.path.isdir(models) else []
    return {"directory": models, "exists": os.path.isdir(models), "params_files": files}


def format_text(report):
    """The report as aligned ``key : value`` lines under a heading per section."""
    lines = []
    for section, values in report.items():
        lines.append("----------%s----------" % section.replace("_", " ").title())
        lines.extend(_format_values(values, indent="", none_text="none"))
    return "\n".join(lines)


def _format_values(values, indent, none_text):
    lines = []
    for key, value in values.items():
        if isinstance(value, dict):
            if not value:
                lines.append("%s%-24s: (none)" % (indent, key))
                continue
            lines.append("%s%s:" % (indent, key))
            lines.extend(_format_values(value, indent + "  ", "not installed" if key == "packages" else none_text))
        elif isinstance(value, list):
            lines.append("%s%-24s: %s" % (indent, key, ", ".join(map(str, value)) if value else "(none)"))
        else:
            lines.append("%s%-24s: %s" % (indent, key, none_text if value is None else value))
    return lines
