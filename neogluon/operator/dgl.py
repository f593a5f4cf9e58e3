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


# ----------------------------------------------------------------------------- neighbour sampling
_SAMPLE_PARAMS = dict(num_args=Int(), num_hops=Int(1), num_neighbor=Int(2), max_num_vertices=Int(100))


def _sample_inputs(fixed):
    def names(attrs):
        return fixed + tuple("seed_arrays%d" % i for i in range(attrs["num_args"] - len(fixed)))
    return names


def _sample_outputs(fixed, sets):
    def count(attrs):
        return sets * (attrs["num_args"] - len(fixed))
    return count


register("_contrib_dgl_csr_neighbor_uniform_sample", inputs=_sample_inputs(("csr_matrix",)), variadic="num_args",
         num_outputs=_sample_outputs(("csr_matrix",), 3), params=dict(_SAMPLE_PARAMS))(
    _dense_refused("_contrib_dgl_csr_neighbor_uniform_sample"))
register("_contrib_dgl_csr_neighbor_non_uniform_sample", inputs=_sample_inputs(("csr_matrix", "probability")),
         variadic="num_args", num_outputs=_sample_outputs(("csr_matrix", "probability"), 4),
         params=dict(_SAMPLE_PARAMS))(_dense_refused("_contrib_dgl_csr_neighbor_non_uniform_sample"))


def _pick(cols, edges, num_neighbor, prob):
    """Up to ``num_neighbor`` of a vertex's neighbours, without replacement, kept in the
    graph's order: all of them when there are few enough, else drawn uniformly or with
    probability ``prob[neighbour]`` (torch's generator: ``mx.random.seed`` seeds it)."""
    if cols.numel() <= num_neighbor:
        return cols, edges
    if prob is None:
        chosen = torch.randperm(cols.numel())[:num_neighbor]
    else:
        chosen = torch.multinomial(prob[cols].double(), num_neighbor, replacement=False)
    chosen = chosen.sort().values
    return cols[chosen], edges[chosen]


def _sample_one(g, seeds, attrs, prob):
    """MXNet's SampleSubgraph: a breadth-first walk from the seeds, sampling each vertex's
    neighbours until ``num_hops`` or ``max_num_vertices``. Gives the sorted vertex ids
    (the count last), the sampled edges as a (max_num_vertices, n) csr whose rows follow
    the vertex ids, and each vertex's layer; MXNet leaves the unused tail of the id and
    layer arrays uninitialised, it is 0 here."""
    hops, k, cap = attrs["num_hops"], attrs["num_neighbor"], attrs["max_num_vertices"]
    indptr, indices, values = g.indptr.tolist(), g.indices, g.data.detach()
    layer = {}
    queue = []
    for v in seeds.tolist():
        if v not in layer:
            layer[v] = 0
            queue.append(v)
    picked = {}
    idx = 0
    while idx < len(queue) and len(layer) < cap:
        v = queue[idx]
        idx += 1
        if layer[v] >= hops:
            continue
        lo, hi = indptr[v], indptr[v + 1]
        cols, edges = _pick(indices[lo:hi], values[lo:hi], k, prob)
        picked[v] = (cols, edges)
        for c in cols.tolist():
            if c not in layer:
                layer[c] = layer[v] + 1
                queue.append(c)
    vertices = sorted(layer)[:cap]
    ids = torch.zeros(cap + 1, dtype=INDEX_DTYPE)
    ids[:len(vertices)] = torch.tensor(vertices, dtype=INDEX_DTYPE)
    ids[cap] = len(layer)
    layers = torch.zeros(cap, dtype=INDEX_DTYPE)
    layers[:len(vertices)] = torch.tensor([layer[v] for v in vertices], dtype=INDEX_DTYPE)
    rows = [picked.get(v, (indices[:0], values[:0])) for v in vertices]
    counts = torch.tensor([c.numel() for c, _ in rows] + [0] * (cap - len(vertices)), dtype=INDEX_DTYPE)
    indptr_out = torch.zeros(cap + 1, dtype=INDEX_DTYPE)
    torch.cumsum(counts, 0, out=indptr_out[1:])
    csr = CSR((cap, g.shape[1]), torch.cat([e for _, e in rows]) if rows else values[:0],
              torch.cat([c for c, _ in rows]) if rows else indices[:0], indptr_out)
    probs = None
    if prob is not None:
        probs = torch.zeros(cap, dtype=prob.dtype)
        probs[:len(vertices)] = prob[torch.tensor(vertices, dtype=INDEX_DTYPE)]
    return ids, csr, probs, layers


def _sample_rule(name, non_uniform):
    def rule(attrs, inputs, out=None):
        g = _graph(name, inputs[0], "csr_matrix")
        prob = inputs[1]._t.detach() if non_uniform else None
        seeds = inputs[2:] if non_uniform else inputs[1:]
        samples = [_sample_one(g, _index(s), attrs, prob) for s in seeds]
        res = [s[0] for s in samples] + [s[1] for s in samples]
        if non_uniform:
            res += [s[2] for s in samples]
        return res + [s[3] for s in samples]
    rule.__name__ = "_%s_rule" % name.lstrip("_")
    return rule


storage_rule("_contrib_dgl_csr_neighbor_uniform_sample")(_sample_rule("_contrib_dgl_csr_neighbor_uniform_sample",
                                                                       False))
storage_rule("_contrib_dgl_csr_neighbor_non_uniform_sample")(
    _sample_rule("_contrib_dgl_csr_neighbor_non_uniform_sample", True))
