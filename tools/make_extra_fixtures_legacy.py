"""Record MXNet 1.9.1's legacy training/deployment APIs (mx.io, mx.model, mx.mod, mx.callback,
mx.kv, multi-context Trainer) for tests/test_io_iters.py, tests/test_module.py, tests/test_kvstore.py.

Run with the side venv:  /work/mxref/bin/python tools/make_extra_fixtures_legacy.py [NAME ...]
Writes tests/fixtures/extra/legacy/<NAME>.{json,npz} (with NAMEs, only those sections).
"""
import json
import os
import sys

import numpy as np
import mxnet as mx

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "extra", "legacy")


def _save(name, meta, arrays):
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, name + ".json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
    np.savez_compressed(os.path.join(OUT, name + ".npz"), **arrays)


# ----------------------------------------------------------------------------- mx.io core
# (case, kwargs for NDArrayIter other than data/label, data kind, epochs)
NDITER_CASES = [
    ("pad", dict(batch_size=3, last_batch_handle="pad"), "single", 2),
    ("pad_bigger_than_data", dict(batch_size=7, last_batch_handle="pad"), "small", 1),
    ("discard", dict(batch_size=3, last_batch_handle="discard"), "single", 2),
    ("roll_over", dict(batch_size=3, last_batch_handle="roll_over"), "single", 3),
    ("shuffle_pad", dict(batch_size=4, shuffle=True, last_batch_handle="pad"), "single", 2),
    ("shuffle_roll", dict(batch_size=4, shuffle=True, last_batch_handle="roll_over"), "single", 3),
    ("dict_inputs", dict(batch_size=4, last_batch_handle="pad"), "dict", 1),
    ("list_inputs", dict(batch_size=5, shuffle=True, last_batch_handle="discard"), "list", 2),
    ("int_data", dict(batch_size=4), "int", 1),
    ("int_shuffled", dict(batch_size=4, shuffle=True), "int", 1),
    ("layout_tnc", dict(batch_size=2, layout="TNC", data_name="seq", label_name="lab"), "tnc", 1),
    ("no_label", dict(batch_size=4), "nolabel", 1),
]


def _iter_inputs(kind):
    x = np.arange(10 * 3, dtype=np.float32).reshape(10, 3)
    y = np.arange(10, dtype=np.float32)
    if kind == "single":
        return x, y
    if kind == "small":
        return x[:3], y[:3]
    if kind == "dict":
        return {"b_data": x, "a_data": x * 2}, {"lab": y}
    if kind == "list":
        return [x, x + 100], [y, y * 3]
    if kind == "int":
        return mx.nd.array(x, dtype="int32"), np.arange(10, dtype=np.int64)
    if kind == "tnc":
        return np.arange(4 * 6 * 2, dtype=np.float32).reshape(4, 6, 2), np.arange(4 * 6).reshape(4, 6)
    if kind == "nolabel":
        return x, None
    raise ValueError(kind)


def io_core():
    meta, arrays = {}, {}
    for case, kwargs, kind, epochs in NDITER_CASES:
        np.random.seed(7)
        data, label = _iter_inputs(kind)
        it = mx.io.NDArrayIter(data, label, **kwargs)
        rec = dict(kwargs=kwargs, kind=kind, epochs=epochs,
                   provide_data=[[d.name, list(d.shape), np.dtype(d.dtype).name, d.layout] for d in it.provide_data],
                   provide_label=[[d.name, list(d.shape), np.dtype(d.dtype).name, d.layout]
                                  for d in it.provide_label], batches=[])
        for ep in range(epochs):
            for b, batch in enumerate(it):
                key = "%s/%d/%d" % (case, ep, b)
                rec["batches"].append(dict(epoch=ep, pad=batch.pad, n_data=len(batch.data),
                                           n_label=len(batch.label)))
                for i, d in enumerate(batch.data):
                    arrays["%s/d%d" % (key, i)] = d.asnumpy()
                for i, d in enumerate(batch.label):
                    arrays["%s/l%d" % (key, i)] = d.asnumpy()
            it.reset()
        meta[case] = rec
    _save("io_core", meta, arrays)


SECTIONS = {"io_core": io_core}

if __name__ == "__main__":
    for name in sys.argv[1:] or list(SECTIONS):
        SECTIONS[name]()
        print("wrote", name)
