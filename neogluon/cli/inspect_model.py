"""``neogluon inspect MODEL-symbol.json``: the layer table of an MXNet model.

Prints the table MXNet's ``mx.viz.print_summary`` prints (layer, output shape, parameter
count, previous layer, totals). ``--shape data=1,3,224,224`` gives the input shapes the
output shapes are inferred from; ``--params FILE`` checks that a ``.params`` file fits
the graph (every name and shape); ``--plot FILE`` draws the graph with
``mx.viz.plot_network`` (the format follows FILE's extension: .pdf, .png, .svg, ...; .gv
writes the Graphviz source).
"""
import json
import math
import os
import warnings

from ..base import MXNetError
from ..fileio import atomic_write, read_file
from .errors import CLIError


def add_arguments(parser):
    parser.add_argument("symbol", metavar="MODEL-symbol.json", help="the model's graph, as MXNet saved it")
    parser.add_argument("--params", metavar="FILE", help="a .params file to check against the graph")
    parser.add_argument("--shape", metavar="NAME=D1,D2,...", action="append", type=parse_shape, default=[],
                        help="an input's shape, e.g. data=1,3,224,224 (repeat for several inputs)")
    parser.add_argument("--plot", metavar="FILE", help="also draw the graph into FILE")


def parse_shape(text):
    """'data=1,3,224,224' -> ('data', (1, 3, 224, 224))."""
    name, sep, dims = text.partition("=")
    try:
        shape = tuple(int(d) for d in dims.replace("x", ",").split(",") if d.strip())
    except ValueError:
        shape = ()
    if not sep or not name.strip() or not shape or min(shape) < 0:
        raise ValueError(text)
    return name.strip(), shape


parse_shape.__name__ = "NAME=D1,D2,... shape"


def run(args):
    import neogluon as mx
    sym = load_symbol(mx, args.symbol)
    shapes = dict(args.shape)
    unknown = sorted(set(shapes) - set(sym.list_arguments()))
    if unknown:
        raise CLIError("--shape %s: %s has no input of that name (its inputs: %s)"
                       % (unknown[0], args.symbol, ", ".join(sym.list_arguments())))
    params = load_params(mx, args.params, sym, args.symbol) if args.params else {}
    _check_shapes(sym, shapes, params, args)
    viz = _visualization()
    summary_shapes = dict(shapes, **params) if shapes else None
    try:
        with warnings.catch_warnings():  # incomplete shapes: reported below as one line
            warnings.simplefilter("ignore")
            viz.print_summary(sym, shape=summary_shapes)
    except (ValueError, mx.MXNetError) as err:
        raise CLIError("cannot infer the output shapes: %s (give every input's shape with --shape)"
                       % _first_line(err)) from None
    if params:
        print("%s: %d arrays, %d values, consistent with the graph; inputs: %s" % (
            args.params, len(params), sum(math.prod(s) for s in params.values()), ", ".join(_inputs(sym, params))))
    if args.plot:
        _plot(viz, sym, summary_shapes, args.plot)
    return 0


def load_symbol(mx, path):
    """The Symbol in ``path``, or a CLIError saying why the file is not one."""
    text = _read(path, "symbol file")
    try:
        graph = json.loads(text)
    except ValueError as err:
        raise CLIError("%s is not JSON (%s)" % (path, err)) from None
    if not isinstance(graph, dict) or not {"nodes", "heads"} <= set(graph):
        raise CLIError("%s is JSON but not an MXNet symbol file (no 'nodes' and 'heads')" % path)
    try:
        return mx.sym.load_json(text)
    except Exception as err:  # pylint: disable=broad-except
        raise CLIError("%s is not a valid MXNet symbol file: %s" % (path, _first_line(err))) from None


def load_params(mx, path, sym, symbol_path):
    """{name: shape} of a .params file, checked against the graph's arguments and aux states."""
    _read(path, "params file", binary=True)
    try:
        arrays = mx.nd.load(path)
    except Exception as err:  # pylint: disable=broad-except
        raise CLIError("%s is not an MXNet .params file: %s" % (path, _first_line(err))) from None
    if not isinstance(arrays, dict):
        raise CLIError("%s holds a list of %d unnamed arrays, not named parameters" % (path, len(arrays)))
    args, aux = set(sym.list_arguments()), set(sym.list_auxiliary_states())
    shapes = {}
    for key, value in arrays.items():
        kind, _, name = key.partition(":") if key[:4] in ("arg:", "aux:") else ("", "", key)
        if name not in (aux if kind == "aux" else args if kind == "arg" else args | aux):
            raise CLIError("%s does not match the graph: it has '%s', but %s has no %s of that name"
                           % (path, key, symbol_path, "auxiliary state" if kind == "aux" else "argument"))
        shapes[name] = tuple(value.shape)
    missing = sorted(aux - set(shapes))
    if missing:
        raise CLIError("%s does not match the graph: it has no value for the auxiliary state '%s'"
                       % (path, missing[0]))
    return shapes


def _check_shapes(sym, shapes, params, args):
    """The given input shapes and the params' shapes must be consistent with each other."""
    import neogluon as mx
    if shapes and params:
        missing = [n for n in sym.list_arguments() if n not in shapes and n not in params]
        if missing:
            raise CLIError("%s has no value for '%s' and no --shape was given for it" % (args.params, missing[0]))
    if not params:
        return
    try:
        sym.infer_shape_partial(**dict(shapes, **params))
    except mx.MXNetError as err:
        raise CLIError("%s does not match the graph%s: %s" % (
            args.params, " and the --shape given" if shapes else "", _first_line(err))) from None


def _inputs(sym, params):
    return [n for n in sym.list_arguments() if n not in params]


def _plot(viz, sym, shapes, path):
    """Draw the graph into ``path`` (.gv/.dot: the Graphviz source, needing no ``dot``)."""
    base, ext = os.path.splitext(path)
    fmt = ext[1:].lower() or "pdf"
    try:
        graph = viz.plot_network(sym, shape=shapes, save_format="pdf" if fmt in ("gv", "dot") else fmt)
        if fmt in ("gv", "dot"):
            atomic_write(path, graph.source, "--plot")
        else:
            graph.render(outfile=path, cleanup=True)
    except Exception as err:  # pylint: disable=broad-except
        raise CLIError("cannot draw %s: %s (--plot %s.gv writes the graph's Graphviz source instead)"
                       % (path, _first_line(err), base), code=1) from None
    print("wrote %s" % path)


def _visualization():
    try:
        from .. import visualization
    except ImportError as err:
        if err.name not in ("neogluon.visualization",):
            raise
        raise CLIError("this build of neogluon has no mx.viz (neogluon/visualization.py)", code=1) from None
    return visualization


def _read(path, what, binary=False):
    if not os.path.exists(path):
        raise CLIError("no such %s: %s" % (what, path))
    if os.path.isdir(path):
        raise CLIError("%s is a directory, not a %s" % (path, what))
    try:
        return read_file(path, "cannot read %s" % what, text=not binary)
    except MXNetError as err:
        raise CLIError(str(err)) from None


def _first_line(err):
    text = str(err).strip() or type(err).__name__
    return text.splitlines()[0]


