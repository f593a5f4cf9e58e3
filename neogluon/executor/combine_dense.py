"""One matrix product for the per-step input products of an unrolled RNN cell.

``cell.unroll(T, x, layout='TNC')`` splits the sequence into its steps
(``SliceChannel(axis=0, squeeze_axis=True)``) and every step's cell applies the same
``FullyConnected`` (the ``i2h`` weight and bias) to its slice. None of those products
depends on the recurrence, so the graph compiler runs them as one ``FullyConnected`` over the
whole (T, N, C) sequence and hands each step its row block (a view): one GEMM of T*N rows
instead of T GEMMs of N rows. For the LSTMCell benchmark (T=20, N=32, 256 -> 1024) the
twenty products took 3.9 ms and the one 1.6 ms (two threads). The values are the same
products (the GEMM's blocking may round differently); gradients flow through the views into
the one product, whose weight gradient is then also one GEMM.

:func:`groups` finds them: a ``SliceChannel`` on axis 0 with ``squeeze_axis`` whose every
output is the data of a ``FullyConnected``, all those reading the same weight (and bias)
entries with the same attributes. :func:`combined_kernel` is the kernel the compiler calls
at the first of them, giving every step's output.
"""

__all__ = ["groups", "combined_kernel"]

_FC = "FullyConnected"
_SLICE = ("SliceChannel", "split")


def groups(order):
    """``{id(first FullyConnected node): (SliceChannel node, [FullyConnected node per output])}``
    for the combinable groups of a graph (``order``: its nodes in topological order)."""
    readers = {}
    for node in order:
        if node.op is not None and node.op.name == _FC and node.inputs:
            src, index, _ = node.inputs[0]
            readers.setdefault(id(src), {}).setdefault(index, []).append(node)
    position = {id(n): k for k, n in enumerate(order)}
    found = {}
    for node in order:
        if node.op is None or node.op.name not in _SLICE:
            continue
        attrs = node.parsed
        if attrs.get("axis") != 0 or not attrs.get("squeeze_axis"):
            continue
        steps = attrs["num_outputs"]
        by_output = readers.get(id(node), {})
        if steps < 2 or len(by_output) != steps:
            continue
        chosen = _matching(by_output, steps)
        if chosen is not None:
            first = min(chosen, key=lambda n: position[id(n)])
            found[id(first)] = (node, chosen)
    return found


def _matching(by_output, steps):
    """One FullyConnected per output, all of the same weight/bias entries and attributes; else None."""
    key = None
    chosen = []
    for k in range(steps):
        candidates = by_output.get(k, [])
        if not candidates:
            return None
        fc = candidates[0]
        this = (tuple((id(src), i) for src, i, _ in fc.inputs[1:]),
                tuple(sorted((name, repr(value)) for name, value in fc.parsed.items() if name != "flatten")))
        if key is None:
            key = this
        elif this != key:
            return None
        chosen.append(fc)
    return chosen


def combined_kernel(fc_op, attrs):
    """The kernel ``(sequence, weight[, bias]) -> (step outputs...)`` of a group: the
    FullyConnected operator's own kernel on the whole sequence (``flatten=False``), split
    into its steps."""
    run = fc_op.lower(dict(attrs, flatten=False))
    if run is None:
        kernel = fc_op.fn
        flat = dict(attrs, flatten=False)

        def run(*args):
            return kernel(*args, **flat)

    def steps(*args):
        return tuple(run(*args).unbind(0))
    return steps
