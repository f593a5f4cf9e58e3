"""``neogluon run SCRIPT [ARGS...]``: run an MXNet 1.x script unchanged.

Inside the script ``import mxnet``, ``from mxnet import gluon, nd``, ``import mxnet.gluon.nn``
and the like give neogluon's modules (``neogluon.compat.alias_mxnet``). The script runs as
``__main__`` with ``sys.argv = [SCRIPT, ARGS...]`` and its directory first on ``sys.path``,
as ``python SCRIPT ARGS...`` would run it; its exit code is the command's.
"""
import argparse
import os
import runpy
import sys
import traceback

from ..compat import alias_mxnet
from .errors import CLIError


def add_arguments(parser):
    parser.add_argument("script", help="the Python script to run")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="arguments passed on to the script")


def run(args):
    path = args.script
    if not os.path.exists(path):
        raise CLIError("no such script: %s" % path)
    if os.path.isdir(path) and not os.path.exists(os.path.join(path, "__main__.py")):
        raise CLIError("%s is a directory without a __main__.py" % path)
    alias_mxnet()
    saved = sys.argv[:], sys.path[:]
    sys.argv = [path] + list(args.args)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        return _run_script(path)
    finally:  # for callers of main() in-process; a script run by the command exits after
        sys.argv[:], sys.path[:] = saved


def _run_script(path):
    """Run ``path`` as __main__: 0, or 1 with the script's error on stderr."""
    try:
        runpy.run_path(path, run_name="__main__")
    except ModuleNotFoundError as err:
        if not (err.name or "").startswith("mxnet"):
            return _report(err, path)
        print("%s: 'import %s' has no neogluon counterpart (neogluon provides MXNet 1.9.1's mx.nd, "
              "mx.autograd, mx.sym, mx.gluon, mx.init, mx.optimizer, mx.metric, ...)"
              % (_location(err, path), err.name), file=sys.stderr)
        return 1
    except Exception as err:  # pylint: disable=broad-except
        return _report(err, path)
    return 0


def _script_frames(tb, path):
    """The traceback from the script's first frame on (the runner's own frames dropped);
    None when the script never ran (a syntax error: the exception says where)."""
    target = os.path.abspath(path)
    while tb is not None and os.path.abspath(tb.tb_frame.f_code.co_filename) != target:
        tb = tb.tb_next
    return tb


def _location(err, path):
    """'script.py:12', the line of the script where ``err`` was raised."""
    frames = traceback.extract_tb(_script_frames(err.__traceback__, path))
    script = [f for f in frames if os.path.abspath(f.filename) == os.path.abspath(path)]
    return "%s:%d" % (path, script[-1].lineno) if script else path


def _report(err, path):
    """Print the script's exception as Python would (minus the runner's frames); exit code 1."""
    traceback.print_exception(type(err), err, _script_frames(err.__traceback__, path), file=sys.stderr)
    return 1
