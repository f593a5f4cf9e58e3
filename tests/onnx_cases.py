"""Single-operator graphs for the ONNX exporter and importer tests: (case id, builder on
input Symbols, input specs). An input spec is (shape, kind): 'f' uniform in [-2, 2), 'p'
in [0.5, 2), 'iN' integers in [0, N) stored as float32, 'lN' the same as int32, 'b' 0/1."""
import numpy as np

import neogluon as mx

S = mx.sym


def _case(name, fn, *specs):
    return (name, fn, list(specs))


X4 = ((2, 3, 6, 6), "f")
X3 = ((2, 4, 5), "f")
X2 = ((3, 5), "f")

CASES = [
    # layers
    _case("conv", lambda x: S.Convolution(x, S.var("w", shape=(4, 3, 3, 3)), S.var("b", shape=(4,)), kernel=(3, 3),
                                          num_filter=4, pad=(1, 1), stride=(2, 1)), X4),
    _case("conv_group_dilate", lambda x: S.Convolution(x, num_filter=6, kernel=(3, 3), num_group=3, dilate=(2, 2),
                                                       no_bias=True, name="c"), ((2, 3, 7, 7), "f")),
    _case("conv1d", lambda x: S.Convolution(x, num_filter=2, kernel=(3,), name="c"), X3),
    _case("deconv", lambda x: S.Deconvolution(x, num_filter=2, kernel=(3, 3), stride=(2, 2), pad=(1, 1), adj=(1, 1),
                                              name="d"), X4),
    _case("pool_max", lambda x: S.Pooling(x, kernel=(3, 3), stride=(2, 2), pool_type="max"), X4),
    _case("pool_max_full", lambda x: S.Pooling(x, kernel=(3, 3), stride=(2, 2), pool_type="max",
                                               pooling_convention="full"), ((1, 2, 7, 7), "f")),
    _case("pool_avg_pad", lambda x: S.Pooling(x, kernel=(3, 3), stride=(1, 1), pad=(1, 1), pool_type="avg"), X4),
    _case("pool_avg_nopad", lambda x: S.Pooling(x, kernel=(3, 3), pad=(1, 1), pool_type="avg",
                                                count_include_pad=False), X4),
    _case("pool_sum", lambda x: S.Pooling(x, kernel=(2, 2), stride=(2, 2), pool_type="sum"), X4),
    _case("pool_global_avg", lambda x: S.Pooling(x, kernel=(1, 1), global_pool=True, pool_type="avg"), X4),
    _case("pool_global_max", lambda x: S.Pooling(x, kernel=(1, 1), global_pool=True, pool_type="max"), X4),
    _case("batchnorm", lambda x: S.BatchNorm(x, fix_gamma=False, eps=1e-3, name="bn"), X4),
    _case("batchnorm_fix_gamma_axis", lambda x: S.BatchNorm(x, axis=-1, name="bn"), X3),
    _case("instancenorm", lambda x: S.InstanceNorm(x, name="in"), X4),
    _case("layernorm", lambda x: S.LayerNorm(x, name="ln"), X3),
    _case("layernorm_axis1", lambda x: S.LayerNorm(x, axis=1, name="ln"), X3),
    _case("l2norm", lambda x: S.L2Normalization(x, mode="channel"), X4),
    _case("fc", lambda x: S.FullyConnected(x, num_hidden=7, name="fc"), X4),
    _case("fc_noflatten_nobias", lambda x: S.FullyConnected(x, num_hidden=7, flatten=False, no_bias=True,
                                                            name="fc"), X3),
    *[_case("act_" + a, lambda x, a=a: S.Activation(x, act_type=a), X2)
      for a in ("relu", "sigmoid", "tanh", "softrelu", "softsign")],
    *[_case("leaky_" + a, lambda x, a=a: S.LeakyReLU(x, act_type=a, slope=0.3), X2)
      for a in ("leaky", "elu", "selu", "gelu")],
    _case("leaky_rrelu", lambda x: S.LeakyReLU(x, act_type="rrelu")[0], X2),
    _case("prelu", lambda x: S.LeakyReLU(x, act_type="prelu", name="p"), X4),
    _case("softmax", lambda x: S.softmax(x), X3),
    _case("softmax_axis1_temperature", lambda x: S.softmax(x, axis=1, temperature=2.0), X3),
    _case("log_softmax", lambda x: S.log_softmax(x, axis=1), X3),
    _case("softmax_length", lambda x, n: S.softmax(x, n, axis=-1, use_length=True), ((2, 5), "f"),
          ((2,), "l6")),
    _case("softmax_output", lambda x: S.SoftmaxOutput(x, name="sm"), X2),
    _case("dropout", lambda x: S.Dropout(x, p=0.5), X2),
    _case("embedding", lambda i: S.Embedding(i, input_dim=10, output_dim=4, name="e"), ((2, 3), "i10")),
    # element-wise
    *[_case(op, lambda a, b, op=op: getattr(S, op)(a, b), ((2, 3, 4), "p"), ((3, 1), "p"))
      for op in ("broadcast_add", "broadcast_sub", "broadcast_mul", "broadcast_div", "broadcast_power",
                 "broadcast_maximum", "broadcast_minimum", "broadcast_mod", "broadcast_equal",
                 "broadcast_greater", "broadcast_lesser_equal", "broadcast_logical_and", "broadcast_hypot")],
    *[_case(op, lambda a, b, op=op: getattr(S, op)(a, b), X2, X2)
      for op in ("elemwise_add", "elemwise_sub", "elemwise_mul", "elemwise_div")],
    *[_case(op, lambda a, op=op: getattr(S, op)(a, scalar=1.5), ((2, 3), "p"))
      for op in ("_plus_scalar", "_minus_scalar", "_rminus_scalar", "_mul_scalar", "_div_scalar", "_rdiv_scalar",
                 "_power_scalar", "_rpower_scalar", "_maximum_scalar", "_minimum_scalar", "_mod_scalar",
                 "_greater_scalar", "_equal_scalar")],
    *[_case(op, lambda a, op=op: getattr(S, op)(a), ((2, 3), "p"))
      for op in ("exp", "log", "sqrt", "rsqrt", "square", "abs", "negative", "sigmoid", "tanh", "relu", "erf",
                 "sin", "cos", "floor", "ceil", "round", "fix", "reciprocal", "log1p", "expm1", "log2", "sign")],
    _case("clip", lambda x: S.clip(x, -0.5, 0.7), X2),
    _case("add_n", lambda a, b, c: S.add_n(a, b, c), X2, X2, X2),
    _case("where", lambda c, a, b: S.where(c, a, b), ((3, 5), "b"), X2, X2),
    _case("zeros_like", lambda x: S.zeros_like(x) + x, X2),
    # shapes
    _case("reshape", lambda x: S.reshape(x, shape=(0, -1)), X4),
    _case("reshape_codes", lambda x: S.reshape(x, shape=(-3, -2)), X4),
    _case("reshape_split", lambda x: S.reshape(x, shape=(0, -4, 2, -1, 5)), ((2, 4, 5), "f")),
    _case("reshape_like", lambda a, b: S.reshape_like(a, b), ((2, 6), "f"), ((3, 4), "f")),
    _case("flatten", lambda x: S.Flatten(x), X4),
    _case("transpose", lambda x: S.transpose(x, axes=(0, 2, 1)), X3),
    _case("transpose_default", lambda x: S.transpose(x), X3),
    _case("swapaxes", lambda x: S.SwapAxis(x, dim1=0, dim2=2), X3),
    _case("expand_dims", lambda x: S.expand_dims(x, axis=-1), X2),
    _case("squeeze", lambda x: S.squeeze(x, axis=1), ((3, 1, 4), "f")),
    _case("concat", lambda a, b: S.Concat(a, b, dim=1), X3, X3),
    _case("stack", lambda a, b: S.stack(a, b, axis=1), X2, X2),
    _case("slice_axis", lambda x: S.slice_axis(x, axis=2, begin=1, end=None), X3),
    _case("slice", lambda x: S.slice(x, begin=(None, 1, -4), end=(1, None, -1), step=(1, 2, 1)), X3),
    _case("slice_neg_step", lambda x: S.slice(x, begin=(None, None), end=(None, None), step=(-1, -2)), X2),
    _case("split", lambda x: S.split(x, num_outputs=2, axis=1), ((2, 4, 3), "f")),
    _case("split_squeeze", lambda x: S.split(x, num_outputs=3, axis=2, squeeze_axis=True), ((2, 4, 3), "f")),
    _case("batch_dot", lambda a, b: S.batch_dot(a, b), ((2, 3, 4), "f"), ((2, 4, 5), "f")),
    _case("batch_dot_t", lambda a, b: S.batch_dot(a, b, transpose_a=True, transpose_b=True), ((2, 4, 3), "f"),
          ((2, 5, 4), "f")),
    _case("dot", lambda a, b: S.dot(a, b), ((3, 4), "f"), ((4, 5), "f")),
    _case("dot_t", lambda a, b: S.dot(a, b, transpose_b=True), ((3, 4), "f"), ((5, 4), "f")),
    _case("dot_nd", lambda a, b: S.dot(a, b), ((2, 3, 4), "f"), ((4, 2, 2), "f")),
    _case("sum", lambda x: S.sum(x, axis=1), X3),
    _case("sum_all", lambda x: S.sum(x), X3),
    _case("mean_keep", lambda x: S.mean(x, axis=(1, 2), keepdims=True), X3),
    _case("max_exclude", lambda x: S.max(x, axis=1, exclude=True), X3),
    _case("min", lambda x: S.min(x, axis=-1), X3),
    _case("prod", lambda x: S.prod(x, axis=0), ((2, 3), "p")),
    _case("norm", lambda x: S.norm(x, axis=1), X3),
    _case("argmax", lambda x: S.argmax(x, axis=1), X3),
    _case("cast", lambda x: S.Cast(x, dtype="int32"), ((2, 3), "i9")),
    _case("broadcast_to", lambda x: S.broadcast_to(x, shape=(4, 3, 5)), ((1, 3, 1), "f")),
    _case("broadcast_axis", lambda x: S.broadcast_axis(x, axis=0, size=3), ((1, 4), "f")),
    _case("broadcast_like", lambda a, b: S.broadcast_like(a, b), ((1, 4), "f"), ((3, 4), "f")),
    _case("arange_like", lambda x: S.contrib.arange_like(x, axis=1) + S.sum(x, axis=0), X2),
    _case("arange_like_all", lambda x: S.contrib.arange_like(x, start=1.0, step=0.5) + x, X2),
    _case("pad", lambda x: S.Pad(x, mode="constant", pad_width=(0, 0, 0, 0, 1, 2, 2, 1), constant_value=0.5), X4),
    _case("pad_edge", lambda x: S.Pad(x, mode="edge", pad_width=(0, 0, 0, 0, 1, 1, 1, 1)), X4),
    _case("take", lambda a, i: S.take(a, i, axis=1), X3, ((2, 2), "i4")),
    _case("tile", lambda x: S.tile(x, reps=(2, 1, 3)), X2),
    _case("selfatt_qk", lambda x: S.contrib.interleaved_matmul_selfatt_qk(x, heads=2), ((5, 2, 24), "f")),
    _case("selfatt_valatt", lambda x, a: S.contrib.interleaved_matmul_selfatt_valatt(x, a, heads=2),
          ((5, 2, 24), "f"), ((4, 5, 5), "f")),
    _case("encdec_qk", lambda q, kv: S.contrib.interleaved_matmul_encdec_qk(q, kv, heads=2), ((3, 2, 8), "f"),
          ((5, 2, 16), "f")),
    _case("encdec_valatt", lambda kv, a: S.contrib.interleaved_matmul_encdec_valatt(kv, a, heads=2),
          ((5, 2, 16), "f"), ((4, 3, 5), "f")),
    _case("sequence_mask", lambda x, n: S.SequenceMask(x, n, use_sequence_length=True, value=-1.0), X3,
          ((4,), "i6")),
    _case("sequence_mask_axis1", lambda x, n: S.SequenceMask(x, n, use_sequence_length=True, axis=1), X3,
          ((2,), "i6")),
    _case("upsampling", lambda x: S.UpSampling(x, scale=2, sample_type="nearest", num_args=1), X4),
    _case("upsampling_concat", lambda a, b: S.UpSampling(a, b, scale=2, sample_type="nearest", num_args=2), X4,
          ((2, 1, 12, 12), "f")),
    _case("upsampling_bilinear", lambda x: S.UpSampling(x, S.var("w", shape=(3, 1, 4, 4)), scale=2,
                                                        sample_type="bilinear", num_filter=3, num_args=2), X4),
    _case("bilinear_resize", lambda x: S.contrib.BilinearResize2D(x, height=9, width=4), X4),
    _case("bilinear_resize_half_pixel", lambda x: S.contrib.BilinearResize2D(x, height=9, width=13,
                                                                             align_corners=False), X4),
    _case("adaptive_avg_pool", lambda x: S.contrib.AdaptiveAvgPooling2D(x, output_size=(3, 2)), X4),
]


def inputs_for(specs, seed=0):
    rng = np.random.RandomState(seed)
    out = []
    for shape, kind in specs:
        if kind == "f":
            out.append(rng.uniform(-2, 2, shape).astype(np.float32))
        elif kind == "p":
            out.append(rng.uniform(0.5, 2, shape).astype(np.float32))
        elif kind == "b":
            out.append(rng.randint(0, 2, shape).astype(np.float32))
        else:
            dtype = np.int32 if kind[0] == "l" else np.float32
            out.append(rng.randint(0, int(kind[1:]), shape).astype(dtype))
    return out


def build(fn, specs, seed=0):
    """(symbol, {input name: array} of data inputs, {name: array} of parameters, data names in order)."""
    names = ["x%d" % i for i in range(len(specs))]
    sym = fn(*[S.var(n) for n in names])
    arrays = dict(zip(names, inputs_for(specs, seed)))
    arg_shapes, _, aux_shapes = sym.infer_shape(**{n: a.shape for n, a in arrays.items()})
    rng = np.random.RandomState(seed + 1)
    params = {}
    for name, shape in list(zip(sym.list_arguments(), arg_shapes)) + list(zip(sym.list_auxiliary_states(),
                                                                              aux_shapes)):
        if name not in arrays:
            low = 0.5 if "var" in name else -1
            params[name] = rng.uniform(low, 1.5, shape).astype(np.float32)
    return sym, arrays, params, [n for n in sym.list_inputs() if n in arrays]


def reference(sym, arrays, params):
    """neogluon's outputs of the graph (inference mode)."""
    args = {n: mx.nd.array(a, dtype=a.dtype) for n, a in arrays.items()}
    args.update({n: mx.nd.array(a) for n, a in params.items() if n in sym.list_arguments()})
    aux = {n: mx.nd.array(a) for n, a in params.items() if n in sym.list_auxiliary_states()}
    ex = sym.bind(mx.cpu(), args, aux_states=aux, grad_req="null")
    return [o.asnumpy() for o in ex.forward(is_train=False)]
