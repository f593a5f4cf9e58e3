"""MXNet 1.9.1's DGL graph operators on csr graphs (``_contrib_edge_id``,
``_contrib_dgl_adjacency``, ``_contrib_dgl_subgraph``, ``_contrib_dgl_graph_compact``).

A graph is a square csr array whose stored values are edge ids (int64 in DGL). These
operators exist only for csr storage: each is a storage rule (see
``registry.storage_rule``), and its dense kernel raises MXNet's refusal. MXNet's answers,
including its quirks, are recorded by ``tools/make_extra_fixtures_sparse.py``:

* ``dgl_subgraph`` numbers the edges of each induced subgraph from 0 in row order (so the
  first edge's id, 0, is a stored zero) and returns every subgraph, then every mapping;
* ``dgl_graph_compact`` gives the first ``graph_size`` rows with columns renumbered by their
  position in the vertex list, edges numbered from 0; the mapping output MXNet 1.9.1
  returns is empty (nothing stored), and so is it here.
"""
# pylint: disable=unused-argument  (storage rules share one signature: attrs, inputs, out)
import torch

from ..base import MXNetError
from .registry import register, storage_rule, Bool, Int, Shape
from . import storage as st
from .storage import CSR, INDEX_DTYPE

__all__ = []


def _graph(op, x, what="data"):
    s = getattr(x, "_storage", None)
    if s is None or s.stype != "csr":
        raise MXNetError("Operator %s: %s must be a csr array, got %s storage" % (op, what, getattr(x, "stype", "?")))
    return s


def _dense_refused(name):
    def kernel(*tensors, **attrs):
        raise MXNetError("Operator %s: its inputs must be csr arrays (default storage is not supported)" % name)
    kernel.__name__ = name.lstrip("_")
    kernel.__doc__ = "Refused on dense storage, as MXNet 1.9.1 (see its storage rule)."
    return kernel


def _outputs(res):
    """One output is returned alone, several as a list (as MXNet's generated functions)."""
    return res[0] if len(res) == 1 else res


def _index(x):
    return x._t.detach().to(INDEX_DTYPE).reshape(-1)


# ----------------------------------------------------------------------------- edge_id
register("_contrib_edge_id", inputs=("data", "u", "v"))(_dense_refused("_contrib_edge_id"))


@storage_rule("_contrib_edge_id")
def _edge_id(attrs, inputs, out=None):
    """``output[i] = data[u[i], v[i]]`` where an edge is stored, else -1 (in data's dtype)."""
    g = _graph("_contrib_edge_id", inputs[0])
    u, v = _index(inputs[1]), _index(inputs[2])
    ncols = g.shape[1]
    keys = st.csr_rows(g) * ncols + g.indices  # sorted: csr rows are in order, columns sorted in a row
    want = u * ncols + v
    pos = torch.searchsorted(keys, want).clamp_(max=max(keys.numel() - 1, 0))
    res = torch.full(want.shape, -1, dtype=g.data.dtype)
    if keys.numel():
        found = keys[pos] == want
        res[found] = g.data.detach()[pos[found]]
    return res.reshape(inputs[1].shape)


# ----------------------------------------------------------------------------- adjacency
register("_contrib_dgl_adjacency")(_dense_refused("_contrib_dgl_adjacency"))


@storage_rule("_contrib_dgl_adjacency")
def _adjacency(attrs, inputs, out=None):
    """The graph's structure with every stored value 1 (float32)."""
    g = _graph("_contrib_dgl_adjacency", inputs[0])
    return CSR(g.shape, torch.ones(g.indices.numel(), dtype=torch.float32), g.indices.clone(), g.indptr.clone())


# ----------------------------------------------------------------------------- subgraph
def _subgraph_inputs(attrs):
    return ("graph",) + tuple("data%d" % i for i in range(attrs["num_args"] - 1))


def _subgraph_outputs(attrs):
    return (attrs["num_args"] - 1) * (2 if attrs["return_mapping"] else 1)


register("_contrib_dgl_subgraph", inputs=_subgraph_inputs, variadic="num_args", num_outputs=_subgraph_outputs,
         params=dict(num_args=Int(), return_mapping=Bool()))(_dense_refused("_contrib_dgl_subgraph"))


def _induced(g, vids):
    """The rows and columns ``vids`` (sorted) of csr ``g``: (indices, indptr, original values)."""
    n = vids.numel()
    lookup = torch.full((g.shape[1],), -1, dtype=INDEX_DTYPE)
    lookup[vids] = torch.arange(n, dtype=INDEX_DTYPE)
    starts, ends = g.indptr[vids], g.indptr[vids + 1]
    counts = ends - starts
    pos = torch.repeat_interleave(starts - torch.cumsum(counts, 0) + counts, counts) + torch.arange(int(counts.sum()))
    rows = torch.repeat_interleave(torch.arange(n), counts)
    cols = lookup[g.indices[pos]]
    keep = cols >= 0
    indptr = torch.zeros(n + 1, dtype=INDEX_DTYPE)
    torch.cumsum(torch.bincount(rows[keep], minlength=n), 0, out=indptr[1:])
    return cols[keep], indptr, g.data.detach()[pos[keep]]


@storage_rule("_contrib_dgl_subgraph")
def _subgraph(attrs, inputs, out=None):
    """For each sorted vertex list: the induced subgraph, its edges numbered from 0 in row
    order; with ``return_mapping`` then the same subgraphs with the original edge ids."""
    g = _graph("_contrib_dgl_subgraph", inputs[0], "graph")
    subs, maps = [], []
    for x in inputs[1:]:
        vids = _index(x)
        if vids.numel() > 1 and bool((vids[1:] < vids[:-1]).any()):
            raise MXNetError("Operator _contrib_dgl_subgraph: The input vertex list has to be sorted")
        cols, indptr, original = _induced(g, vids)
        n = vids.numel()
        subs.append(CSR((n, n), torch.arange(cols.numel(), dtype=g.data.dtype), cols, indptr))
        maps.append(CSR((n, n), original, cols.clone(), indptr.clone()))
    return _outputs(subs + maps if attrs["return_mapping"] else subs)


# ----------------------------------------------------------------------------- graph_compact
def _compact_outputs(attrs):
    return len(attrs["graph_sizes"]) * (2 if attrs["return_mapping"] else 1)


def _compact_inputs(attrs):
    return tuple("graph_data%d" % i for i in range(attrs["num_args"]))


register("_contrib_dgl_graph_compact", inputs=_compact_inputs, variadic="num_args", num_outputs=_compact_outputs,
         params=dict(num_args=Int(), return_mapping=Bool(), graph_sizes=Shape()))(
    _dense_refused("_contrib_dgl_graph_compact"))


@storage_rule("_contrib_dgl_graph_compact")
def _graph_compact(attrs, inputs, out=None):
    """Each sampled graph (csr) with its vertex list: its first ``graph_size`` rows, columns
    renumbered by their vertex's position in the list, edges numbered from 0."""
    sizes = attrs["graph_sizes"]
    k = len(sizes)
    if len(inputs) != 2 * k:
        raise MXNetError("Operator _contrib_dgl_graph_compact: %d graph sizes need %d graphs and %d vertex lists, "
                         "got %d inputs" % (k, k, k, len(inputs)))
    graphs, maps = [], []
    for g_arr, v_arr, size in zip(inputs[:k], inputs[k:], sizes):
        g = _graph("_contrib_dgl_graph_compact", g_arr, "graph_data")
        vids = _index(v_arr)[:size]
        lookup = torch.full((max(g.shape[1], int(vids.max()) + 1 if vids.numel() else 0),), -1, dtype=INDEX_DTYPE)
        lookup[vids] = torch.arange(vids.numel(), dtype=INDEX_DTYPE)
        nnz = int(g.indptr[size])
        cols = lookup[g.indices[:nnz]]
        indptr = g.indptr[:size + 1].clone()
        graphs.append(CSR((size, size), torch.arange(nnz, dtype=g.data.dtype), cols, indptr))
        maps.append(st.empty("csr", (size, size), g.data.dtype, g.data.device))
    return _outputs(graphs + maps if attrs["return_mapping"] else graphs)
