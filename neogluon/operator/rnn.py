"""The fused ``RNN`` operator (MXNet 1.9.1) with cuDNN's flat parameter layout.

One flat ``parameters`` vector holds every weight of a multi-layer, possibly
bidirectional RNN/LSTM/GRU: first all weights, layer by layer and direction by
direction (``i2h`` weight, ``h2h`` weight, then the LSTM projection ``h2r`` weight),
then all biases in the same order (``i2h`` bias, ``h2h`` bias). :func:`param_layout`
is the single definition of that layout; :func:`unpack_params` / :func:`pack_params`
convert between the flat vector and per-(layer, direction, kind) tensors (what the
Gluon fused layers use).

Gate orders are cuDNN's, which are also torch's: LSTM ``i, f, g, o``; GRU ``r, z, n``
with the reset gate applied after the hidden-to-hidden product. The computation uses
torch's fused kernels whenever they apply and a time-step loop for what they lack
(LSTM state clipping).

``sequence_length`` and ``lstm_state_clip_*``: MXNet 1.9.1's CPU kernel accepts them,
checks the shapes and otherwise ignores them (every sequence runs over all ``T`` steps,
the cell state is never clipped); its cuDNN kernel honours them (outputs past a
sequence's end are zero, the final states are those of its last valid step, the
reverse direction starts there; the cell state is clamped to [min, max]). Both are
reproduced, chosen by the data's device as in MXNet.
"""
import collections
import functools
import math
import warnings

import torch
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from ..base import MXNetError
from .registry import CACHE_SIZE, Bool, Float, Int, Str, register
from .shape import SYMBOLIC_SIZES as EXPORT_CAPTURE, concat  # the flag: set while export_torch captures

# torch notes (once per process) that oneDNN has no projected LSTM; its own kernel is exact.
warnings.filterwarnings("ignore", message="LSTM with projections is not supported with oneDNN")

__all__ = ["GATES", "ParamSlot", "param_layout", "param_size", "unpack_params", "pack_params",
           "rnn_forward"]

GATES = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}
WEIGHT_KINDS = ("i2h_weight", "h2h_weight", "h2r_weight")
BIAS_KINDS = ("i2h_bias", "h2h_bias")

ParamSlot = collections.namedtuple("ParamSlot", "layer direction kind offset shape")
ParamSlot.__doc__ = """One tensor in the flat vector: ``parameters[offset:offset+numel].reshape(shape)``.

``direction`` is 0 (forward, Gluon's ``l``) or 1 (backward, Gluon's ``r``); ``kind`` is
one of ``i2h_weight, h2h_weight, h2r_weight, i2h_bias, h2h_bias``."""


# ----------------------------------------------------------------------------- the flat layout
def _slot_shapes(mode, num_layers, state_size, input_size, bidirectional, projection_size):
    """(layer, direction, kind, shape) for every tensor, weights first, in MXNet's order."""
    ng, nh, dirs = GATES[mode], state_size, 2 if bidirectional else 1
    nr = projection_size or nh          # width of the recurrent state
    weights, biases = [], []
    ni = input_size
    for layer in range(num_layers):
        for d in range(dirs):
            weights.append((layer, d, "i2h_weight", (ng * nh, ni)))
            weights.append((layer, d, "h2h_weight", (ng * nh, nr)))
            if projection_size:
                weights.append((layer, d, "h2r_weight", (nr, nh)))
            biases.append((layer, d, "i2h_bias", (ng * nh,)))
            biases.append((layer, d, "h2h_bias", (ng * nh,)))
        ni = nr * dirs
    return weights + biases


@functools.lru_cache(maxsize=CACHE_SIZE)  # the dispatch caches' one bound (registry.CACHE_SIZE)
def param_layout(mode, num_layers, state_size, input_size, bidirectional=False, projection_size=None):
    """The :class:`ParamSlot` tuple of MXNet's flat RNN parameter vector, in storage order."""
    slots, offset = [], 0
    for layer, d, kind, shape in _slot_shapes(mode, num_layers, state_size, input_size,
                                              bidirectional, projection_size):
        slots.append(ParamSlot(layer, d, kind, offset, shape))
        offset += math.prod(shape)
    return tuple(slots)


def param_size(mode, num_layers, state_size, input_size, bidirectional=False, projection_size=None):
    """The length of the flat parameter vector (MXNet's ``GetRnnParamSize``)."""
    last = param_layout(mode, num_layers, state_size, input_size, bidirectional, projection_size)[-1]
    return last.offset + math.prod(last.shape)


def unpack_params(flat, layout):
    """``{(layer, direction, kind): view}`` of a flat parameter tensor (views keep autograd).
    When the pieces tile the vector, one ``split``: its backward writes each piece's
    gradient into one new vector, where a ``narrow`` per piece costs a zero-filled vector
    per piece, summed (the LSTM LM's training step spent 8 ms of 100 there)."""
    pieces = sorted(layout, key=lambda s: s.offset)
    sizes = [math.prod(s.shape) for s in pieces]
    offsets = [0]
    for size in sizes[:-1]:
        offsets.append(offsets[-1] + size)
    if [s.offset for s in pieces] == offsets and sum(sizes) == flat.shape[0]:
        return {(s.layer, s.direction, s.kind): v.view(s.shape)
                for s, v in zip(pieces, torch.split(flat, sizes))}
    return {(s.layer, s.direction, s.kind): flat.narrow(0, s.offset, math.prod(s.shape)).view(s.shape)
            for s in layout}


def pack_params(tensors, layout):
    """The flat parameter vector from ``{(layer, direction, kind): tensor}``."""
    return torch.cat([tensors[(s.layer, s.direction, s.kind)].reshape(-1) for s in layout])


# ----------------------------------------------------------------------------- schema
def _inputs(attrs):
    names = ["data", "parameters", "state"]
    if attrs["mode"] == "lstm":
        names.append("state_cell")
    if attrs["use_sequence_length"]:
        names.append("sequence_length")
    return tuple(names)


def _num_outputs(attrs):
    if not attrs["state_outputs"]:
        return 1
    return 3 if attrs["mode"] == "lstm" else 2


def _output_names(attrs):
    return ("output", "state_output", "statecell_output")[:_num_outputs(attrs)]


def _state_shapes(attrs, batch):
    """Shapes of (state, state_cell): (L*D, N, P or H) and (L*D, N, H)."""
    ld = attrs["num_layers"] * (2 if attrs["bidirectional"] else 1)
    h = attrs["state_size"]
    return (ld, batch, attrs["projection_size"] or h), (ld, batch, h)


def _unknown(shape):
    return shape is None or any(d <= 0 for d in shape)


def _infer_args(attrs, shapes):
    """Fill unknown input shapes from the data's (T, N, C): parameters, states, lengths."""
    data = shapes[0]
    if _unknown(data):
        return shapes
    t, n, c = data
    state, cell = _state_shapes(attrs, n)
    fill = {"parameters": (param_size(attrs["mode"], attrs["num_layers"], attrs["state_size"], c,
                                      attrs["bidirectional"], attrs["projection_size"]),),
            "state": state, "state_cell": cell, "sequence_length": (n,)}
    return [fill[name] if _unknown(s) and name in fill else s
            for name, s in zip(_inputs(attrs), shapes)]


def _infer_shape(attrs, shapes):
    """Output shapes: (T, N, D*(P or H)), then the final states' shapes."""
    t, n, _ = shapes[0]
    state, cell = _state_shapes(attrs, n)
    out = [(t, n, (2 if attrs["bidirectional"] else 1) * state[2])]
    return (out + [state, cell])[:_num_outputs(attrs)]


# ----------------------------------------------------------------------------- checks
def _check_shape(name, tensor, expected, data):
    if tuple(tensor.shape) != tuple(expected):
        raise MXNetError("Operator RNN: Shape inconsistent for input '%s', Provided = %s, inferred shape=%s "
                         "from data %s" % (name, tuple(tensor.shape), tuple(expected), tuple(data.shape)))


def _check_inputs(data, parameters, state, state_cell, sequence_length, attrs):
    if data.dim() != 3:
        raise MXNetError("Operator RNN: data must be 3-d (T, N, C) in 'TNC' layout, got shape %s"
                         % (tuple(data.shape),))
    proj = attrs["projection_size"]
    if proj is not None and (attrs["mode"] != "lstm" or not 0 < proj <= attrs["state_size"]):
        raise MXNetError("Operator RNN: projection_size=%s needs mode='lstm' and 0 < projection_size <= "
                         "state_size=%d" % (proj, attrs["state_size"]))
    clip = (attrs["lstm_state_clip_min"], attrs["lstm_state_clip_max"])
    if (clip[0] is None) != (clip[1] is None):
        raise MXNetError("Operator RNN: lstm_state_clip_min and lstm_state_clip_max must be given together")
    n = data.shape[1]
    state_shape, cell_shape = _state_shapes(attrs, n)
    _check_shape("parameters", parameters, (param_size(attrs["mode"], attrs["num_layers"], attrs["state_size"],
                                                       data.shape[2], attrs["bidirectional"], proj),), data)
    _check_shape("state", state, state_shape, data)
    if state_cell is not None:
        _check_shape("state_cell", state_cell, cell_shape, data)
    if sequence_length is not None:
        _check_shape("sequence_length", sequence_length, (n,), data)


# ----------------------------------------------------------------------------- fused torch kernels
_FUSED = {"lstm": torch._VF.lstm, "gru": torch._VF.gru,
          "rnn_tanh": torch._VF.rnn_tanh, "rnn_relu": torch._VF.rnn_relu}


def _torch_weights(params, num_layers, dirs, projection):
    """The flat weights in torch's order: per layer and direction w_ih, w_hh, b_ih, b_hh[, w_hr]."""
    kinds = ("i2h_weight", "h2h_weight", "i2h_bias", "h2h_bias") + (("h2r_weight",) if projection else ())
    return [params[(layer, d, k)] for layer in range(num_layers) for d in range(dirs) for k in kinds]


def _fused(mode, data, weights, state, state_cell, lengths, num_layers, p, train, bidirectional):
    """Run torch's fused multi-layer kernel; with ``lengths``, on a packed sequence."""
    hx = (state, state_cell) if mode == "lstm" else state
    if lengths is None:
        res = _FUSED[mode](data, hx, weights, True, num_layers, p, train, bidirectional, False)
        return res[0], list(res[1:])
    packed = pack_padded_sequence(data, lengths.cpu().long(), enforce_sorted=False)
    order, unorder = packed.sorted_indices, packed.unsorted_indices
    hx = tuple(h.index_select(1, order) for h in hx) if mode == "lstm" else hx.index_select(1, order)
    res = _FUSED[mode](packed.data, packed.batch_sizes, hx, weights, True, num_layers, p, train, bidirectional)
    out, _ = pad_packed_sequence(packed._replace(data=res[0]), total_length=data.shape[0])
    return out, [h.index_select(1, unorder) for h in res[1:]]


# :func:`_fused` kept out of a recorded graph (an input needing a gradient) that
# ``torch.compile`` traces (the compiled training graph, executor/inductor.py; not
# ``export_torch``'s capture, which needs the whole graph): traced, the fused LSTM is decomposed
# into one matrix product per step and gate, and the compiled LSTM LM's training step took
# 1.18x the time of the graph around torch's fused (oneDNN) kernel, which is what
# ``torch.compile`` of ``nn.LSTM`` runs too (dynamo does not trace RNN modules). Made by
# :func:`prepare_compiled` when the compiled backend first compiles: ``torch.compiler.disable``
# imports torch._dynamo (1-2 s), which a process that never compiles does not pay.
_OPAQUE = []


def prepare_compiled():
    """Make the opaque fused kernel (above); the compiled backend calls this before compiling."""
    if not _OPAQUE:
        _OPAQUE.append(torch.compiler.disable(_fused))


# ----------------------------------------------------------------------------- the time-step loop
def _lstm_cell(clip, clip_nan):
    def cell(gx, h, c, w_hh, b_hh, w_hr):
        i, f, g, o = (gx + F.linear(h, w_hh, b_hh)).chunk(4, dim=-1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        if clip is not None:
            c = _clip_state(c, clip, clip_nan)
        h = torch.sigmoid(o) * torch.tanh(c)
        return (h if w_hr is None else F.linear(h, w_hr)), c
    return cell


def _clip_state(c, clip, clip_nan):
    """cuDNN's cell clipping: clamp to [min, max]; NaN becomes ``min`` with clip_nan, else stays NaN."""
    clipped = c.clamp(clip[0], clip[1])
    if clip_nan:
        clipped = torch.where(torch.isnan(c), torch.full_like(c, clip[0]), clipped)
    return clipped


def _gru_cell(gx, h, c, w_hh, b_hh, w_hr):
    xr, xz, xn = gx.chunk(3, dim=-1)
    hr, hz, hn = F.linear(h, w_hh, b_hh).chunk(3, dim=-1)
    r, z = torch.sigmoid(xr + hr), torch.sigmoid(xz + hz)
    n = torch.tanh(xn + r * hn)
    return n + z * (h - n), c


def _simple_cell(act):
    def cell(gx, h, c, w_hh, b_hh, w_hr):
        return act(gx + F.linear(h, w_hh, b_hh)), c
    return cell


def _reverse_index(lengths, steps, device):
    """idx[t, b]: the step read at t when sequence b is reversed within its length."""
    t = torch.arange(steps, device=device).unsqueeze(1)
    if lengths is None:
        return (steps - 1 - t).expand(steps, 1)
    rev = lengths.to(device).long().unsqueeze(0) - 1 - t
    return torch.where(rev >= 0, rev, t)


def _gather_steps(x, idx):
    return x.gather(0, idx.unsqueeze(2).expand(-1, x.shape[1], x.shape[2]))


def _run_direction(cell, x, h, c, w, mask, reverse_idx):
    """One direction of one layer over all steps; masked steps keep the state and output 0."""
    if reverse_idx is not None:
        x = _gather_steps(x, reverse_idx)
    gx = F.linear(x, w["i2h_weight"], w["i2h_bias"])      # all input products at once
    outs = []
    for t in range(x.shape[0]):
        h_new, c_new = cell(gx[t], h, c, w["h2h_weight"], w["h2h_bias"], w.get("h2r_weight"))
        if mask is None:
            h, c = h_new, c_new
            outs.append(h)
        else:
            m = mask[t]
            h = torch.where(m, h_new, h)
            c = c_new if c is None else torch.where(m, c_new, c)
            outs.append(torch.where(m, h_new, torch.zeros_like(h_new)))
    out = torch.stack(outs)
    if reverse_idx is not None:
        out = _gather_steps(out, reverse_idx)
    return out, h, c


def _looped(mode, data, params, state, state_cell, lengths, clip, clip_nan, num_layers, p, train, bidirectional):
    """The multi-layer RNN as a Python loop over layers, directions and time steps."""
    cell = {"lstm": _lstm_cell(clip, clip_nan), "gru": _gru_cell,
            "rnn_tanh": _simple_cell(torch.tanh), "rnn_relu": _simple_cell(torch.relu)}[mode]
    steps, dirs = data.shape[0], 2 if bidirectional else 1
    mask = None
    if lengths is not None:
        mask = torch.arange(steps, device=data.device).unsqueeze(1) < lengths.to(data.device).unsqueeze(0)
        mask = mask.unsqueeze(2)
    reverse_idx = _reverse_index(lengths, steps, data.device) if dirs == 2 else None
    hs, cs, x = [], [], data
    for layer in range(num_layers):
        if layer > 0 and p > 0:
            x = F.dropout(x, p, training=train)
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            w = {kind: params[(layer, d, kind)] for kind in WEIGHT_KINDS + BIAS_KINDS if (layer, d, kind) in params}
            c0 = state_cell[k] if state_cell is not None else None
            out, h, c = _run_direction(cell, x, state[k], c0, w, mask, reverse_idx if d == 1 else None)
            outs.append(out)
            hs.append(h)
            cs.append(c)
        x = torch.cat(outs, dim=2) if dirs == 2 else outs[0]
    finals = [torch.stack(hs)] + ([torch.stack(cs)] if mode == "lstm" else [])
    return x, finals


# ----------------------------------------------------------------------------- the operator
def rnn_forward(data, parameters, state, state_cell=None, lengths=None, clip=None, clip_nan=False, *,
                mode, num_layers, state_size, bidirectional=False, projection_size=None, p=0.0,
                is_train=False, fused=True):
    """The multi-layer RNN on torch tensors, with cuDNN's semantics: ``(output, [hy[, cy]])``.

    ``lengths`` (valid length per sequence, or None) masks the sequences; ``clip``
    (``(min, max)`` or None) clips the LSTM cell state, ``clip_nan`` turning NaN into
    ``min``. torch's fused kernel runs when ``fused`` and it can express the
    configuration (no clipping, a projection narrower than the state); otherwise the
    time-step loop does."""
    layout = param_layout(mode, num_layers, state_size, data.shape[2], bidirectional, projection_size)
    params = unpack_params(parameters, layout)
    if lengths is not None and not bool(((lengths >= 1) & (lengths <= data.shape[0])).all()):
        raise MXNetError("Operator RNN: sequence_length values must lie in [1, %d], got %s"
                         % (data.shape[0], lengths.tolist()))
    clip = clip if mode == "lstm" else None
    if fused and clip is None and (projection_size is None or projection_size < state_size):
        dirs = 2 if bidirectional else 1
        weights = _torch_weights(params, num_layers, dirs, projection_size is not None)
        recorded = torch.is_grad_enabled() and (data.requires_grad or parameters.requires_grad)
        compiled = torch.compiler.is_compiling() and not EXPORT_CAPTURE[0]  # export_torch needs one graph
        run = _OPAQUE[0] if recorded and compiled and _OPAQUE else _fused
        return run(mode, data, weights, state, state_cell, lengths, num_layers, p, is_train, bidirectional)
    return _looped(mode, data, params, state, state_cell, lengths, clip, clip_nan, num_layers, p, is_train,
                   bidirectional)


@register("RNN", inputs=_inputs, num_outputs=_num_outputs, output_names=_output_names,
          signature=("data", "parameters", "state", "state_cell", "sequence_length"),
          infer_args=_infer_args, infer_shape=_infer_shape, mode_dependent=True, aliases=["_npx_rnn"],
          params=dict(state_size=Int(), num_layers=Int(), bidirectional=Bool(False),
                      mode=Str(choices=("gru", "lstm", "rnn_relu", "rnn_tanh")), p=Float(0.0),
                      state_outputs=Bool(False), projection_size=Int(None),
                      lstm_state_clip_min=Float(None), lstm_state_clip_max=Float(None),
                      lstm_state_clip_nan=Bool(False), use_sequence_length=Bool(False)))
def rnn(data, parameters, state, *rest, is_train=False, **attrs):
    """MXNet's fused ``RNN`` (rnn_relu, rnn_tanh, lstm, gru) on 'TNC' data with a flat
    cuDNN-layout parameter vector; dropout ``p`` between layers in train mode only,
    LSTM projection. ``sequence_length`` and cell-state clipping are honoured on a GPU
    and ignored on the CPU, as MXNet 1.9.1's kernels do. Returns ``output`` and, with
    ``state_outputs``, the final ``hy`` (and ``cy`` for LSTM)."""
    rest = list(rest)
    state_cell = rest.pop(0) if attrs["mode"] == "lstm" else None
    sequence_length = rest.pop(0) if attrs["use_sequence_length"] else None
    _check_inputs(data, parameters, state, state_cell, sequence_length, attrs)
    cudnn = data.is_cuda   # MXNet's CPU kernel ignores sequence lengths and state clipping
    clip = None
    if cudnn and attrs["lstm_state_clip_min"] is not None:
        clip = (attrs["lstm_state_clip_min"], attrs["lstm_state_clip_max"])
    out, finals = rnn_forward(data, parameters, state, state_cell, sequence_length if cudnn else None, clip,
                              attrs["lstm_state_clip_nan"], mode=attrs["mode"], num_layers=attrs["num_layers"],
                              state_size=attrs["state_size"], bidirectional=attrs["bidirectional"],
                              projection_size=attrs["projection_size"], p=attrs["p"], is_train=is_train)
    if not attrs["state_outputs"]:
        return out
    return (out, *finals)


def _param_concat_infer_inputs(attrs, shapes, outs):
    """As MXNet: the inputs of unknown size along ``dim`` share equally what the (known) output
    leaves (how deferred ``l0_i2h_weight``/``r0_i2h_weight`` learn their size from the RNN's
    parameter vector)."""
    dim, out = attrs["dim"], outs[0]
    missing = [i for i, s in enumerate(shapes) if s is None or not s[dim]]
    if not missing:
        return shapes
    left = out[dim] - sum(s[dim] for i, s in enumerate(shapes) if i not in missing)
    if left <= 0 or left % len(missing):
        return shapes
    filled = list(shapes)
    for i in missing:
        filled[i] = out[:dim] + (left // len(missing),) + out[dim + 1:]
    return filled


@register("_rnn_param_concat", aliases=["_npi_rnn_param_concat"], variadic="num_args",
          infer_inputs=_param_concat_infer_inputs, params=dict(num_args=Int(), dim=Int(1)))
def rnn_param_concat(*data, num_args, dim):
    """The Concat that Gluon's fused RNN layers use to build the flat parameter vector
    (MXNet gives it its own shape inference; its forward and gradient are Concat's)."""
    return concat(*data, num_args=num_args, dim=dim)
