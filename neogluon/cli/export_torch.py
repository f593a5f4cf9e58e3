"""``neogluon export-torch MODEL-symbol.json MODEL-0000.params --out DIR``: an MXNet model as PyTorch.

Writes ``DIR/<model>.py`` (one ``torch.nn.Module`` class, readable torch code importing only
torch), ``DIR/<model>.pt`` (its state_dict) and ``DIR/<model>.pt2`` (a ``torch.export``
ExportedProgram; ``--no-pt2`` skips it). The graph is captured on example inputs, so every
input not in the params needs ``--example-shape NAME=D1,D2,...`` (``D1,D2,...`` when the
model has one input): use sizes above 1 on the dimensions meant to vary (a batch of 2).
``--training`` also captures the training pass, run by ``forward`` in training mode.
"""
import os

from .errors import CLIError
from .inspect_model import load_params, load_symbol, parse_shape, _first_line


def add_arguments(parser):
    parser.add_argument("symbol", metavar="MODEL-symbol.json", help="the model's graph, as MXNet saved it")
    parser.add_argument("params", metavar="MODEL-0000.params", help="the model's parameters")
    parser.add_argument("--out", metavar="DIR", required=True, help="the directory to write into")
    parser.add_argument("--example-shape", metavar="NAME=D1,D2,...", action="append", default=[],
                        help="an input's example shape, e.g. data=2,3,224,224 (repeat for several inputs)")
    parser.add_argument("--name", help="the model's name (default: the symbol file's, without -symbol.json)")
    parser.add_argument("--no-pt2", action="store_true", help="do not write the torch.export program")
    parser.add_argument("--training", action="store_true",
                        help="also capture the training pass (Dropout, BatchNorm on batch statistics), which the "
                             "module's forward runs in training mode")


def _shape(text, inputs):
    if "=" not in text and len(inputs) == 1:
        text = "%s=%s" % (inputs[0], text)
    try:
        return parse_shape(text)
    except ValueError:
        raise CLIError("--example-shape %s: expected NAME=D1,D2,... (e.g. data=2,3,224,224)" % text) from None


def run(args):
    import neogluon as mx
    from ..executor.torch_export import export_torch
    sym = load_symbol(mx, args.symbol)
    load_params(mx, args.params, sym, args.symbol)  # a corrupt or mismatched file: one line naming it
    arrays = mx.nd.load(args.params)
    names = {k.split(":", 1)[-1] for k in arrays}
    inputs = [n for n in sym.list_arguments() if n not in names]
    shapes = dict(_shape(s, inputs) for s in args.example_shape)
    unknown = sorted(set(shapes) - set(inputs))
    if unknown:
        raise CLIError("--example-shape %s: %s has no input of that name (its inputs: %s)"
                       % (unknown[0], args.symbol, ", ".join(inputs)))
    missing = [n for n in inputs if n not in shapes]
    if missing:
        raise CLIError("the graph is captured on example inputs: give --example-shape %s=D1,D2,... "
                       "(inputs of %s: %s)" % (missing[0], args.symbol, ", ".join(inputs)))
    try:
        files = export_torch(args.symbol, arrays, args.out, shapes, name=args.name, exported_program=not args.no_pt2,
                             training=args.training)
    except mx.MXNetError as err:
        raise CLIError(_first_line(err), code=1) from None
    except OSError as err:
        raise CLIError("cannot write into %s: %s" % (args.out, err), code=1) from None
    for kind in ("py", "pt", "pt2"):
        if kind in files:
            print("wrote %s" % os.path.relpath(files[kind]))
    return 0
