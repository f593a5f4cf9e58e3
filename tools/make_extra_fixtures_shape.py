"""Record MXNet 1.9.1's answers for shape and indexing operator cases the shared
fixtures do not cover.

Run with the reference interpreter (never imported by neogluon or its tests)::

    /tmp/mxref/bin/python tools/make_extra_fixtures_shape.py

Each case calls one operator (``mx.nd.<op>``, or ``mx.nd._internal``/``mx.nd.contrib``
for internal names) on small inputs. The outputs, and for cases with ``grad`` the
gradients of the named inputs for a random head gradient, go to
``tests/fixtures/extra/shape/<case>.npz``; ``cases.json`` lists each case's operator,
attributes, input order and whether MXNet raised an error (cases MXNet rejects are
recorded with the first line of its message). ``tests/test_ops_shape.py`` replays them.
Each case runs in a process of its own, with random data seeded by the case's name.
"""
import contextlib
import json
import os
import subprocess
import sys

import numpy as np
import mxnet as mx

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "extra", "shape")
RNG = np.random.RandomState(1234)
CASES = {}


def arr(*shape, dtype="float32"):
    return RNG.uniform(-2, 2, size=shape).astype(dtype)


def ar(*shape, dtype="float32"):
    return np.arange(int(np.prod(shape))).reshape(shape).astype(dtype)


def idx(values, dtype="float32"):
    return np.array(values, dtype=dtype)


def case(name, op, inputs, attrs=None, grad=()):
    """``inputs``: ordered (name, numpy array) pairs; ``grad``: inputs to differentiate."""
    CASES[name] = dict(op=op, inputs=list(inputs), attrs=attrs or {}, grad=list(grad))


def op_function(op):
    if op.startswith("_contrib_"):
        return getattr(mx.nd.contrib, op[len("_contrib_"):])
    if op.startswith("_"):
        return getattr(mx.nd._internal, op)
    return getattr(mx.nd, op)


# ----------------------------------------------------------------------------- Reshape family
X234 = ar(2, 3, 4)
for i, (shape, reverse) in enumerate([
        ((0, -1, 2), True), ((-1, 0), True), ((0, -4, -1, 1, 0), False), ((-4, 2, -1, -2), False),
        ((-2, 1, 1), False), ((0, 0, 0, 1), False), ((-3, -1), False), ((-2, -2), False),
        ((-4, 1, -1, 0, 0), False), ((2, -3), True), ((-1,), False), ((4, 0, -1), True)]):
    case("Reshape_%d" % i, "Reshape", [("data", X234)], dict(shape=shape, reverse=reverse), grad=["data"])
case("Reshape_legacy_target", "Reshape", [("data", X234)], dict(target_shape=(0, 4)))
case("Reshape_legacy_keep_highest", "Reshape", [("data", X234)], dict(target_shape=(4, 0), keep_highest=True))
for i, shape in enumerate([(2, -1, -1), (0, 0, 0, 0), (-3, -3), (-4, 3, -1, -2), (-4, -1, -1, -2),
                           (-5,)]):
    case("Reshape_error_%d" % i, "Reshape", [("data", X234)], dict(shape=shape))
case("Reshape_error_reverse_m4", "Reshape", [("data", X234)], dict(shape=(-4, 1, 2, -2), reverse=True))
case("Flatten_1d", "Flatten", [("data", ar(5))], grad=["data"])
case("Flatten_4d", "Flatten", [("data", arr(2, 3, 2, 2))], grad=["data"])
case("transpose_4d", "transpose", [("data", arr(2, 3, 4, 5))], dict(axes=(1, 3, 0, 2)), grad=["data"])
case("SwapAxis_neg", "SwapAxis", [("data", arr(2, 3, 4))], dict(dim1=1, dim2=-1), grad=["data"])
case("expand_dims_neg", "expand_dims", [("data", arr(2, 3))], dict(axis=-3), grad=["data"])
case("expand_dims_error", "expand_dims", [("data", arr(2, 3))], dict(axis=3))
case("squeeze_all_to_1", "squeeze", [("data", arr(1, 1, 1))], grad=["data"])
case("squeeze_tuple", "squeeze", [("data", arr(1, 3, 1, 2))], dict(axis=(0, -2)), grad=["data"])
case("squeeze_error", "squeeze", [("data", arr(1, 2))], dict(axis=1))
case("reshape_like_ranges", "reshape_like", [("lhs", ar(2, 3, 4)), ("rhs", arr(6, 2))],
     dict(lhs_begin=1, rhs_begin=0), grad=["lhs"])
case("reshape_like_neg", "reshape_like", [("lhs", ar(2, 3, 4)), ("rhs", arr(5, 12))],
     dict(lhs_begin=-2, rhs_begin=-1), grad=["lhs"])
case("reshape_like_error", "reshape_like", [("lhs", ar(2, 3, 4)), ("rhs", arr(6, 2))],
     dict(lhs_begin=-2, rhs_begin=-2, rhs_end=-1))

# ----------------------------------------------------------------------------- slicing
X10 = ar(10)
for i, (b, e, s) in enumerate([((None,), (None,), (-1,)), ((7,), (-20,), (-2,)), ((20,), (0,), (-2,)),
                                ((8,), (2,), ()), ((0,), (20,), ()), ((3,), (5,), (-1,)), ((-3,), (None,), (1,))]):
    # MXNet cannot differentiate an empty slice (it fails in its allocator)
    empty = len(range(*slice(b[0], e[0], s[0] if s else 1).indices(10))) == 0
    case("slice_1d_%d" % i, "slice", [("data", X10)], dict(begin=b, end=e, step=s), grad=[] if empty else ["data"])
case("slice_3d_steps", "slice", [("data", arr(4, 5, 6))],
     dict(begin=(None, 4, 1), end=(None, 0, None), step=(2, -2, 3)), grad=["data"])
case("slice_partial_axes", "slice", [("data", arr(3, 4, 5))], dict(begin=(1,), end=(3,)), grad=["data"])
case("slice_int32", "slice", [("data", ar(4, 4, dtype="int32"))], dict(begin=(1, None), end=(None, None),
                                                                        step=(None, -1)))
case("slice_error_step0", "slice", [("data", X10)], dict(begin=(1,), end=(3,), step=(0,)))
case("slice_error_too_many", "slice", [("data", X10)], dict(begin=(1, 1), end=(3, 3)))
case("slice_axis_none", "slice_axis", [("data", arr(2, 3, 4))], dict(axis=-1, begin=-3, end=None),
     grad=["data"])
case("slice_axis_error", "slice_axis", [("data", arr(2, 3, 4))], dict(axis=2, begin=3, end=1))
case("slice_like_axes", "slice_like", [("data", arr(2, 3, 4)), ("shape_like", arr(1, 2, 3))],
     dict(axes=(0, -1)), grad=["data"])
case("slice_like_all", "slice_like", [("data", arr(3, 4)), ("shape_like", arr(2, 2))], grad=["data"])
case("slice_like_error", "slice_like", [("data", arr(2, 3, 4)), ("shape_like", arr(1, 2))])
case("slice_assign", "_slice_assign", [("lhs", arr(4, 5)), ("rhs", arr(2, 2))],
     dict(begin=(0, 4), end=(4, 0), step=(2, -2)))  # MXNet registers no gradient for these
case("slice_assign_scalar", "_slice_assign_scalar", [("data", arr(4, 5))],
     dict(scalar=3.5, begin=(1, None), end=(3, None), step=(None, 2)))

# ----------------------------------------------------------------------------- split / join
case("split_axis_neg", "SliceChannel", [("data", arr(2, 3, 4))], dict(num_outputs=2, axis=-1), grad=["data"])
case("split_axis0_squeeze", "SliceChannel", [("data", arr(2, 3))], dict(num_outputs=2, axis=0,
                                                                         squeeze_axis=True), grad=["data"])
case("split_error", "SliceChannel", [("data", arr(2, 3, 4))], dict(num_outputs=2, axis=1))
case("split_v2_indices", "_split_v2", [("data", arr(2, 7))], dict(indices=(0, 2, 5), axis=1), grad=["data"])
case("split_v2_sections", "_split_v2", [("data", arr(6, 2))], dict(indices=(), sections=3, axis=0),
     grad=["data"])
case("split_v2_squeeze", "_split_v2", [("data", arr(2, 3, 2))], dict(indices=(0, 1, 2), axis=1,
                                                                      squeeze_axis=True), grad=["data"])
case("split_v2_error", "_split_v2", [("data", arr(2, 3, 4))], dict(indices=(0, 3, 1), axis=-1))
case("concat_three_dim0", "Concat", [("a", arr(1, 3)), ("b", arr(2, 3)), ("c", arr(3, 3))],
     dict(dim=0), grad=["a", "b", "c"])
case("concat_neg_dim", "Concat", [("a", arr(2, 3, 4)), ("b", arr(2, 2, 4))], dict(dim=-2), grad=["a", "b"])
case("concat_error", "Concat", [("a", arr(2, 3, 4)), ("b", arr(2, 2, 4))], dict(dim=2))
case("stack_neg_axis", "stack", [("a", arr(2, 3)), ("b", arr(2, 3)), ("c", arr(2, 3))], dict(axis=-1),
     grad=["a", "b", "c"])
case("stack_error", "stack", [("a", arr(2, 3)), ("b", arr(3, 2))], dict(axis=0))

# ----------------------------------------------------------------------------- repeat / broadcast
case("tile_short_reps", "tile", [("data", arr(2, 3, 4))], dict(reps=(2,)), grad=["data"])
case("tile_long_reps", "tile", [("data", arr(2, 3))], dict(reps=(2, 1, 3)), grad=["data"])
case("repeat_flat", "repeat", [("data", arr(2, 3))], dict(repeats=2), grad=["data"])
case("repeat_neg_axis", "repeat", [("data", arr(2, 3))], dict(repeats=3, axis=-1), grad=["data"])
case("reverse_two_axes", "reverse", [("data", arr(2, 3, 4))], dict(axis=(0, 2)), grad=["data"])
case("broadcast_axis_two", "broadcast_axis", [("data", arr(1, 3, 1))], dict(axis=(0, 2), size=(2, 4)),
     grad=["data"])
case("broadcast_axis_error", "broadcast_axis", [("data", arr(2, 1))], dict(axis=(0,), size=(3,)))
case("broadcast_to_error_ndim", "broadcast_to", [("data", arr(3))], dict(shape=(2, 3)))
case("broadcast_to_error_size", "broadcast_to", [("data", arr(2, 3))], dict(shape=(4, 3)))
case("broadcast_like_axes", "broadcast_like", [("lhs", arr(2, 1)), ("rhs", arr(4, 5, 6))],
     dict(lhs_axes=(1,), rhs_axes=(-1,)), grad=["lhs"])

# ----------------------------------------------------------------------------- pad, space/depth, diag
case("Pad_constant_5d", "Pad", [("data", arr(1, 2, 2, 3, 2))],
     dict(mode="constant", pad_width=(0, 0, 0, 0, 1, 0, 0, 2, 1, 1), constant_value=-1.5), grad=["data"])
case("Pad_edge_5d", "Pad", [("data", arr(1, 1, 2, 3, 2))],
     dict(mode="edge", pad_width=(0, 0, 0, 0, 2, 1, 1, 0, 0, 2)), grad=["data"])
case("Pad_reflect_4d", "Pad", [("data", arr(2, 1, 3, 4))],
     dict(mode="reflect", pad_width=(0, 0, 0, 0, 2, 1, 3, 0)), grad=["data"])
case("Pad_error_2d", "Pad", [("data", arr(2, 3))], dict(mode="constant", pad_width=(0, 0, 1, 1)))
case("Pad_error_batch_axis", "Pad", [("data", arr(1, 2, 3, 4))], dict(mode="constant",
                                                                      pad_width=(1, 0, 0, 0, 1, 1, 0, 0)))
case("Pad_error_reflect_size", "Pad", [("data", arr(1, 2, 3, 4))], dict(mode="reflect",
                                                                        pad_width=(0, 0, 0, 0, 3, 3, 0, 0)))
case("depth_to_space_b3", "depth_to_space", [("data", arr(2, 18, 2, 3))], dict(block_size=3), grad=["data"])
case("space_to_depth_b3", "space_to_depth", [("data", arr(2, 2, 6, 3))], dict(block_size=3), grad=["data"])
case("depth_to_space_error", "depth_to_space", [("data", arr(1, 6, 2, 2))], dict(block_size=2))
case("diag_1d_k", "diag", [("data", arr(3))], dict(k=-1), grad=["data"])
case("diag_3d_axes", "diag", [("data", arr(2, 3, 4))], dict(k=1, axis1=-1, axis2=0), grad=["data"])
case("diag_2d_neg_k", "diag", [("data", arr(4, 3))], dict(k=-2), grad=["data"])
case("diag_error", "diag", [("data", arr(2, 3, 4))], dict(k=5))
case("shape_array_4d", "shape_array", [("data", arr(2, 1, 3, 4))])
case("size_array_3d", "size_array", [("data", arr(2, 5, 3))])

# ----------------------------------------------------------------------------- indexing
A34 = arr(3, 4)
case("take_wrap_negative", "take", [("a", A34), ("indices", idx([[-1, 0], [3, 5.7]]))], dict(mode="wrap"),
     grad=["a"])
case("take_clip_float_idx", "take", [("a", A34), ("indices", idx([-1.5, 2.5, 7]))], grad=["a"])
case("take_axis_neg", "take", [("a", A34), ("indices", idx([[3, 0], [1, 1]]))], dict(axis=-1), grad=["a"])
case("take_int32_data", "take", [("a", ar(3, 4, dtype="int32")), ("indices", idx([2, 0], "int64"))])
case("take_raise_ok", "take", [("a", A34), ("indices", idx([2, 1]))], dict(mode="raise"), grad=["a"])
case("take_raise_error", "take", [("a", A34), ("indices", idx([-1, 1]))], dict(mode="raise"))
case("take_axis_error", "take", [("a", A34), ("indices", idx([1]))], dict(axis=2))
case("pick_wrap", "pick", [("data", A34), ("index", idx([-1, 5, 2]))], dict(axis=1, mode="wrap"), grad=["data"])
case("pick_clip_axis0", "pick", [("data", A34), ("index", idx([-1, 5, 2, 1]))], dict(axis=0), grad=["data"])
case("pick_default_axis_keepdims", "pick", [("data", arr(2, 3, 4)), ("index", idx([[0, 3, 1], [2, 2, 0]]))],
     dict(keepdims=True), grad=["data"])
case("pick_axis_none_error", "pick", [("data", A34), ("index", idx([1]))], dict(axis=None))
case("one_hot_out_of_range", "one_hot", [("indices", idx([-1, 0, 2.7, 5, 6]))], dict(depth=6))
case("one_hot_int32", "one_hot", [("indices", idx([[1, 2], [0, 0]]))], dict(depth=3, on_value=5.6,
                                                                             off_value=-2, dtype="int32"))
case("one_hot_float64", "one_hot", [("indices", idx([1, 3], "int32"))], dict(depth=4, dtype="float64"))
case("gather_nd_negative", "gather_nd", [("data", A34), ("indices", idx([[-1, 2], [0, -4]]))], grad=["data"])
case("gather_nd_partial_dup", "gather_nd", [("data", arr(3, 4, 2)), ("indices", idx([[1, 1, 2], [0, 0, 3]]))],
     grad=["data"])
case("gather_nd_error", "gather_nd", [("data", A34), ("indices", idx([[4, 2], [0, 1]]))])
case("scatter_nd_2d", "scatter_nd", [("data", arr(3)), ("indices", idx([[0, 1, 1], [1, 2, 0]]))],
     dict(shape=(2, 3)), grad=["data"])
case("scatter_nd_rows", "scatter_nd", [("data", arr(2, 3)), ("indices", idx([[2, 0]]))], dict(shape=(4, 3)),
     grad=["data"])
case("batch_take_clip", "batch_take", [("a", A34), ("indices", idx([-1, 5, 2], "int32"))])
case("Embedding_clip_dup", "Embedding", [("data", idx([[-1, 7, 2.5], [1, 1, 0]])), ("weight", arr(3, 4))],
     dict(input_dim=3, output_dim=4), grad=["weight"])
case("Embedding_float64", "Embedding", [("data", idx([1, 2])), ("weight", arr(3, 2, dtype="float64"))],
     dict(input_dim=3, output_dim=2, dtype="float64"), grad=["weight"])
X524 = arr(5, 2, 4)
LEN = idx([3, 1])
case("SequenceMask_axis1_value", "SequenceMask", [("data", arr(2, 5, 3)), ("sequence_length", idx([1.5, 4]))],
     dict(use_sequence_length=True, value=3, axis=1), grad=["data"])
case("SequenceMask_nolen", "SequenceMask", [("data", X524)], dict(value=3), grad=["data"])
case("SequenceMask_2d", "SequenceMask", [("data", arr(3, 2)), ("sequence_length", idx([2, 1]))],
     dict(use_sequence_length=True, value=-1), grad=["data"])
case("SequenceLast_axis1", "SequenceLast", [("data", arr(2, 5, 3)), ("sequence_length", idx([2, 5]))],
     dict(use_sequence_length=True, axis=1), grad=["data"])
case("SequenceLast_2d", "SequenceLast", [("data", arr(3, 2)), ("sequence_length", idx([2, 1]))],
     dict(use_sequence_length=True), grad=["data"])
case("SequenceReverse_nolen", "SequenceReverse", [("data", X524)], grad=["data"])
case("SequenceReverse_lengths", "SequenceReverse", [("data", X524), ("sequence_length", LEN)],
     dict(use_sequence_length=True), grad=["data"])
case("SequenceMask_extra_input_error", "SequenceMask", [("data", X524), ("sequence_length", LEN)])
case("boolean_mask_rows", "_contrib_boolean_mask", [("data", A34), ("index", idx([0, 1, 1]))], grad=["data"])
case("boolean_mask_none", "_contrib_boolean_mask", [("data", A34), ("index", idx([0, 0, 0]))])
case("index_copy_rows", "_contrib_index_copy",
     [("old_tensor", A34), ("index_vector", idx([2, 0])), ("new_tensor", arr(2, 4))],
     grad=["old_tensor", "new_tensor"])


def run(name, spec):
    rng = np.random.RandomState(sum(map(ord, name)))
    fn = op_function(spec["op"])
    inputs = [mx.nd.array(v, dtype=v.dtype) for _, v in spec["inputs"]]
    names = [n for n, _ in spec["inputs"]]
    for n in spec["grad"]:
        inputs[names.index(n)].attach_grad()
    # recording is only turned on when needed: MXNet fails to record an empty output
    with mx.autograd.record() if spec["grad"] else contextlib.nullcontext():
        out = fn(*inputs, **spec["attrs"])
    outs = out if isinstance(out, (list, tuple)) else [out]
    data = {"in:" + n: v for n, v in spec["inputs"]}
    for i, o in enumerate(outs):
        data["out:%d" % i] = o.asnumpy()
    if spec["grad"]:
        heads = [mx.nd.array(rng.uniform(-1, 1, size=o.shape), dtype=o.dtype) for o in outs]
        mx.autograd.backward(outs, heads)
        for i, h in enumerate(heads):
            data["head:%d" % i] = h.asnumpy()
        for n in spec["grad"]:
            data["grad:" + n] = inputs[names.index(n)].grad.asnumpy()
    mx.nd.waitall()
    np.savez(os.path.join(OUT, name + ".npz"), **data)


def run_isolated(name):
    """Run one case in a fresh process; MXNet's message when it rejects the case.

    Some of these cases leave MXNet 1.9.1's heap or engine damaged (an error, an
    out-of-range index), and a later, unrelated operator then crashes or hangs."""
    proc = subprocess.run([sys.executable, __file__, "--case", name], capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise RuntimeError("case %s crashed MXNet:\n%s" % (name, proc.stderr[-2000:]))
    out = proc.stdout.strip()
    return out.splitlines()[-1] if out else None


def run_case(name):
    """The body of one isolated run: prints MXNet's message if it raises."""
    try:
        run(name, CASES[name])
    except (mx.base.MXNetError, IndexError, ValueError) as e:
        lines = [ln for ln in str(e).splitlines() if "Error" in ln or "Check failed" in ln]
        print((lines[-1] if lines else str(e).splitlines()[0]).strip())
    sys.stdout.flush()
    os._exit(0)  # skip MXNet's shutdown hook, which fails after an error


def main():
    os.makedirs(OUT, exist_ok=True)
    index = {}
    for name, spec in sorted(CASES.items()):
        entry = dict(op=spec["op"], inputs=[n for n, _ in spec["inputs"]], attrs=spec["attrs"], grad=spec["grad"])
        error = run_isolated(name)
        if error is not None:
            entry["error"] = error
            np.savez(os.path.join(OUT, name + ".npz"), **{"in:" + n: v for n, v in spec["inputs"]})
        index[name] = entry
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump(index, f, indent=1, sort_keys=True)
    print("%d cases, %d errors" % (len(index), sum("error" in e for e in index.values())))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--case":
        run_case(sys.argv[2])
    else:
        main()
