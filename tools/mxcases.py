"""Recording one-operator cases from MXNet 1.9.1, for the ``make_extra_fixtures_<area>.py``
generators that import it (run them with the reference interpreter, never from neogluon).

A case calls one operator on named inputs, twice:

- imperatively (``mx.nd``): its outputs, and with ``grad`` the gradients of the named
  inputs for random head gradients; with ``mutates`` the named inputs after the call
  (the states an optimizer updates in place);
- as a graph: ``mx.sym`` builds the one-node symbol from variables named like the inputs,
  its JSON is written to ``<case>-symbol.json`` exactly as MXNet writes it, and
  ``bind`` + ``forward``/``backward`` (same heads) gives the ``sym_out:``/``sym_grad:``/
  ``sym_after:`` entries (or, where MXNet's executor fails on an operator it runs
  imperatively, ``graph_error`` and no ``sym_`` entries: the imperative answers stand).

``<case>.npz`` holds ``in:<name>``, ``out:<i>``, ``head:<i>``, ``grad:<name>``,
``after:<name>`` and the ``sym_`` entries; ``cases.json`` lists each case's operator,
input names, Python attributes, differentiated and mutated inputs, and for a case MXNet
rejects the first line of its error (``error``). ``tests/opcases.py`` replays them.
"""
import json
import os
import re
import zlib

import numpy as np
import mxnet as mx

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "extra")


def _resolve(module_nd, module_sym, name):
    for nd_ns, sym_ns in ((module_nd.op, module_sym.op), (module_nd._internal, module_sym._internal)):
        if hasattr(nd_ns, name):
            return getattr(nd_ns, name), getattr(sym_ns, name)
    for prefix, nd_ns, sym_ns in (("_contrib_", module_nd.contrib, module_sym.contrib),
                                  ("_sparse_", module_nd.sparse, module_sym.sparse),
                                  ("_linalg_", module_nd.linalg, module_sym.linalg)):
        if name.startswith(prefix) and hasattr(nd_ns, name[len(prefix):]):
            return getattr(nd_ns, name[len(prefix):]), getattr(sym_ns, name[len(prefix):])
    raise KeyError(name)


def functions(name):
    """MXNet's ``mx.nd`` and ``mx.sym`` functions of an operator name."""
    return _resolve(mx.nd, mx.sym, name)


def raw_invoke(name):
    """An imperative call of operator ``name`` through MXNet's C API, for operators whose
    generated function cannot take all inputs positionally (auxiliary states such as
    IdentityAttachKLSparseReg's ``moving_avg``)."""
    import ctypes
    from mxnet._ctypes.ndarray import _imperative_invoke
    handle = mx.base.OpHandle()
    mx.base.check_call(mx.base._LIB.NNGetOpHandle(mx.base.c_str(name), ctypes.byref(handle)))

    def call(*arrays, out=None, **attrs):
        return _imperative_invoke(handle.value, list(arrays), list(attrs), list(attrs.values()), out, False, False)
    return call


def _message(line):
    """An MXNet error line without what changes from run to run (time stamps, addresses)."""
    line = re.sub(r"^\[[0-9:]+\] ", "", line.replace("MXNetError: ", ""))
    return re.sub(r"0x[0-9a-f]+", "0x...", line)[:300]


def _jsonable(v):
    if isinstance(v, tuple):
        return [_jsonable(x) for x in v]
    if isinstance(v, np.generic):
        return v.item()
    return v


class Recorder:
    """Collects the cases of one area and writes them to ``tests/fixtures/extra/<area>``."""

    def __init__(self, area):
        self.area = area
        self.out = os.path.join(FIXTURES, area)
        self.cases = {}
        os.makedirs(self.out, exist_ok=True)

    def case(self, name, op, inputs, attrs=None, grad=(), mutates=(), symbolic=True, heads=None, out_like=(),
             raw=False):
        """``out_like``: inputs the call writes its outputs to (``out=``), as MXNet's
        optimizers call the aggregated updates (MXNet cannot run them without ``out=``)."""
        if os.environ.get("MXCASES_VERBOSE"):
            print(name, flush=True)
        """Record ``op`` on ``inputs`` (ordered ``(name, array)`` pairs) with ``attrs``."""
        assert name not in self.cases, name
        attrs = dict(attrs or {})
        rng = np.random.RandomState(zlib.crc32(name.encode()))
        spec = dict(op=op, inputs=[n for n, _ in inputs], attrs={k: _jsonable(v) for k, v in attrs.items()},
                    grad=list(grad), mutates=list(mutates), symbolic=symbolic)
        data = {"in:" + n: np.asarray(v) for n, v in inputs}
        nd_fn, sym_fn = functions(op)
        if raw:
            nd_fn = raw_invoke(op)
        try:
            arrays = [mx.nd.array(v, dtype=np.asarray(v).dtype) for _, v in inputs]
            for n in grad:
                arrays[spec["inputs"].index(n)].attach_grad()
            if out_like:
                attrs_out = dict(attrs, out=[arrays[spec["inputs"].index(n)] for n in out_like])
            else:
                attrs_out = attrs
            with mx.autograd.record():
                outs = nd_fn(*arrays, **attrs_out)
            outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
            for i, o in enumerate(outs):
                data["out:%d" % i] = o.asnumpy()
                h = heads[i] if heads is not None else rng.uniform(-1, 1, o.shape)
                data["head:%d" % i] = np.asarray(h).astype(o.dtype)
            if grad:
                mx.autograd.backward(outs, [mx.nd.array(data["head:%d" % i], dtype=o.dtype)
                                            for i, o in enumerate(outs)])
                for n in grad:
                    data["grad:" + n] = arrays[spec["inputs"].index(n)].grad.asnumpy()
            for n in mutates:
                data["after:" + n] = arrays[spec["inputs"].index(n)].asnumpy()
        except mx.base.MXNetError as e:
            lines = [ln for ln in str(e).strip().split("\n") if ln.strip()]
            message = [ln for ln in lines if ln.startswith("MXNetError:")] or lines[-1:]
            spec["error"] = _message(message[0])
            self._save(name, spec, data)
            return
        if symbolic:
            self._symbolic(name, spec, data, sym_fn, attrs, raw)
        self._save(name, spec, data)

    def _symbolic(self, name, spec, data, sym_fn, attrs, raw=False):
        variables = [mx.sym.var(n) for n in spec["inputs"]]
        try:
            if raw:  # auxiliary states are not positional inputs: compose by name
                sym = sym_fn(name="op0", **dict(zip(spec["inputs"], variables)), **attrs)
            else:
                try:
                    sym = sym_fn(*variables, name="op0", **attrs)
                except TypeError:
                    sym = sym_fn(name="op0", **dict(zip(spec["inputs"], variables)), **attrs)
            text = sym.tojson()
        except mx.base.MXNetError as e:  # MXNet cannot even build the graph (multi_sgd_mom_update)
            spec["symbolic"] = False
            spec["graph_error"] = _message(str(e).strip().split("\n")[0])
            return
        with open(os.path.join(self.out, name + "-symbol.json"), "w") as f:
            f.write(text)
        args = {n: mx.nd.array(data["in:" + n], dtype=data["in:" + n].dtype) for n in spec["inputs"]}
        grads = {n: mx.nd.zeros(args[n].shape, dtype=args[n].dtype) for n in spec["grad"]}
        names = sym.list_arguments()
        aux_names = sym.list_auxiliary_states()
        try:
            exe = sym.bind(mx.cpu(), {n: args[n] for n in names}, args_grad=grads or None,
                           grad_req={n: ("write" if n in grads else "null") for n in names},
                           aux_states={n: args[n] for n in aux_names})
            outs = exe.forward(is_train=bool(spec["grad"]))
            outs[0].wait_to_read()
        except mx.base.MXNetError as e:
            # MXNet's executor cannot run some operators it runs imperatively (the aggregated
            # optimizer updates fail its shape or type inference): the imperative answers stand
            lines = [ln for ln in str(e).strip().split("\n") if ln.strip()]
            message = [ln for ln in lines if ln.startswith("MXNetError:")] or lines[-1:]
            spec["graph_error"] = _message(message[0])
            return
        for i, o in enumerate(outs):
            data["sym_out:%d" % i] = o.asnumpy()
        if spec["grad"]:
            exe.backward([mx.nd.array(data["head:%d" % i], dtype=o.dtype) for i, o in enumerate(outs)])
            for n in spec["grad"]:
                data["sym_grad:" + n] = grads[n].asnumpy()
        for n in spec["mutates"]:
            data["sym_after:" + n] = args[n].asnumpy()

    def _save(self, name, spec, data):
        os.makedirs(self.out, exist_ok=True)
        np.savez(os.path.join(self.out, name + ".npz"), **data)
        self.cases[name] = spec

    def write(self):
        with open(os.path.join(self.out, "cases.json"), "w") as f:
            json.dump(self.cases, f, indent=1, sort_keys=True)
        print("%s: %d cases (%d errors)" % (self.area, len(self.cases),
                                            sum("error" in c for c in self.cases.values())))
