"""The ``neogluon`` command (also ``python -m neogluon``).

    neogluon demo      the hybridization tutorial end to end on scikit-learn's digits
    neogluon run       run an MXNet 1.x script unchanged (``import mxnet`` gives neogluon)
    neogluon inspect   the layer table of a ``-symbol.json`` model, optionally its graph
    neogluon export-torch  a ``-symbol.json`` + ``.params`` model as a standalone PyTorch module
    neogluon bench     the benchmarks in benchmarks/ as one table
    neogluon doctor    versions, threads, GPUs, extras and what 'import mxnet' gives, for bug reports
    neogluon alias     install | remove | status of 'import mxnet' resolving to neogluon
    neogluon launch    start N workers of a distributed training script

A user's mistake (a bad argument, a missing or malformed file) is reported as one line on
stderr with a non-zero exit code, never as a traceback.
"""
import argparse
import sys

from .errors import CLIError

__all__ = ["main", "CLIError"]

# subcommand -> (module, one-line help); modules are imported only when their command runs
COMMANDS = {
    "demo": ("demo", "train the tutorial's LeNet on scikit-learn's digits, imperative vs hybridized"),
    "run": ("runner", "run an MXNet 1.x script with 'import mxnet' resolving to neogluon"),
    "inspect": ("inspect_model", "print the layer table of an MXNet -symbol.json model"),
    "export-torch": ("export_torch", "write an MXNet model as a standalone PyTorch module and state_dict"),
    "bench": ("bench", "run the benchmarks in benchmarks/ and print one table"),
    "doctor": ("doctor", "print the facts a bug report needs (versions, threads, GPUs, extras, 'import mxnet')"),
    "alias": ("alias", "install, remove or show the hook making 'import mxnet' give neogluon"),
    "launch": ("launch", "start N workers of a distributed training script (dist_sync, ...)"),
}
# what only some commands need (the 'demo' extra), reported as one line when missing
OPTIONAL_DEPENDENCIES = {"sklearn", "matplotlib", "tqdm", "graphviz"}


class _Parser(argparse.ArgumentParser):
    """argparse, with its usage errors raised as CLIError (one line, exit 2)."""

    def error(self, message):
        raise CLIError("%s (see '%s --help')" % (message, self.prog), prog=self.prog)


def _command_module(name):
    import importlib
    return importlib.import_module("%s.%s" % (__name__, COMMANDS[name][0]))


def build_parser(prog="neogluon"):
    parser = _Parser(prog=prog, description="neogluon: MXNet 1.9.1's Gluon on PyTorch.",
                     formatter_class=argparse.RawDescriptionHelpFormatter,
                     epilog="Run '%s COMMAND --help' for a command's options." % prog)
    parser.add_argument("--version", action="store_true", help="print the versions and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, (_, helptext) in COMMANDS.items():
        module = _command_module(name)
        cmd = sub.add_parser(name, help=helptext, description=module.__doc__.strip().split("\n\n")[0],
                             formatter_class=argparse.RawDescriptionHelpFormatter)
        module.add_arguments(cmd)
    return parser


def _versions():
    import neogluon
    import torch
    return "neogluon %s (MXNet %s API) on torch %s, Python %s" % (
        neogluon.__version__, neogluon.mxnet_version, torch.__version__, sys.version.split()[0])


def main(argv=None, prog="neogluon"):
    """Entry point of the console script; returns the exit code."""
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        parser = build_parser(prog)
        args = parser.parse_args(argv)
        if args.version:
            print(_versions())
            return 0
        if args.command is None:
            parser.print_help(sys.stderr)
            return 2
        return _command_module(args.command).run(args) or 0
    except CLIError as err:
        print("%s: error: %s" % (err.prog or prog, err), file=sys.stderr)
        return err.code
    except KeyboardInterrupt:
        print("%s: interrupted" % prog, file=sys.stderr)
        return 130
    except ImportError as err:
        if err.name not in OPTIONAL_DEPENDENCIES:
            raise
        print("%s: error: %s is not installed: pip install 'neogluon[demo]'" % (prog, err.name), file=sys.stderr)
        return 1
