"""Optimizer states files: MXNet 1.9.1's load exactly and train on exactly as in MXNet; files
that would run code, or that are cut, flipped or hand-made, are an MXNetError.

Fixtures: tests/fixtures/extra/states, made by tools/make_extra_fixtures_states.py.
"""
import json
import os
import pickle
import pickletools

import numpy as np
import pytest

import neogluon as mx
from neogluon import gluon
from neogluon.base import MXNetError
from neogluon.optimizer import states as states_io

HERE = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "states")
INFO = json.load(open(os.path.join(HERE, "cases.json")))
CASES = INFO["cases"]
SHAPES = [tuple(s) for s in INFO["shapes"]]
ARRAYS = np.load(os.path.join(HERE, "arrays.npz"))


def read(name):
    with open(os.path.join(HERE, name + ".states"), "rb") as f:
        return f.read()


def make_trainer(case, name):
    params = []
    for i, shape in enumerate(SHAPES):
        p = gluon.Parameter("p%d" % i, shape=shape, dtype=case["dtype"])
        p.initialize(mx.init.Constant(0.0))
        p.set_data(mx.nd.array(ARRAYS["%s/w%d" % (name, i)], dtype=case["dtype"]))
        params.append(p)
    kwargs = {} if name == "sgd_mp_scheduler" else dict(learning_rate=0.5)
    return params, gluon.Trainer(params, case["optimizer"], kwargs)


@pytest.mark.parametrize("name", sorted(CASES))
def test_mxnet_states_file_loads_and_trains_on(name):
    case = CASES[name]
    params, trainer = make_trainer(case, name)
    trainer.load_states(os.path.join(HERE, name + ".states"))
    opt = trainer.optimizer
    assert type(opt).__name__ == case["optimizer_class"]
    for key, value in case["attrs"].items():
        got = getattr(opt, key)
        if key == "_index_update_count":
            got = {str(k): v for k, v in got.items()}
        assert got == value, key
    states = trainer._updaters[0].states
    assert sorted(states) == sorted(int(k) for k in case["states"])
    for i, present in case["states"].items():
        state = states[int(i)]
        parts = state if isinstance(state, (tuple, list)) else [state]
        assert [s is not None for s in parts] == present
        for j, s in enumerate(parts):
            if s is not None:
                np.testing.assert_array_equal(s.asnumpy(), ARRAYS["%s/s%s_%d" % (name, i, j)])
    # the third step, as MXNet took it after loading the same file
    for i, p in enumerate(params):
        p.grad()[:] = mx.nd.array(ARRAYS["%s/g%d" % (name, i)], dtype=case["dtype"])
        p.data()._fresh_grad = True
    trainer.step(4)
    for i, p in enumerate(params):
        np.testing.assert_allclose(p.data().asnumpy(), ARRAYS["%s/after%d" % (name, i)], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(CASES))
def test_neogluon_writes_mxnets_pickle(tmp_path, name):
    """Loaded then saved again, a file has MXNet's globals only, and loads back to the same states."""
    case = CASES[name]
    _, trainer = make_trainer(case, name)
    trainer.load_states(os.path.join(HERE, name + ".states"))
    path = str(tmp_path / "again.states")
    trainer.save_states(path)
    blob = open(path, "rb").read()
    strings = [arg for op, arg, _ in pickletools.genops(blob) if isinstance(arg, str)]
    assert not any(s.startswith("neogluon") for s in strings)
    assert "mxnet.ndarray.ndarray" in strings or name == "sgd_plain"
    again = states_io.loads(blob)
    for (k1, a), (k2, b) in zip(sorted(again[0].items()), sorted(trainer._updaters[0].states.items())):
        assert k1 == k2
        a, b = (x if isinstance(x, (tuple, list)) else [x] for x in (a, b))
        for u, v in zip(a, b):
            assert (u is None) == (v is None)
            if u is not None:
                assert u.dtype == v.dtype
                np.testing.assert_array_equal(u.asnumpy(), v.asnumpy())


def test_older_neogluon_pickles_still_load():
    """Files written before this format change pickled NDArrays as neogluon's _rebuild(numpy array)."""
    from neogluon.ndarray.ndarray import _rebuild
    opt = mx.optimizer.SGD(momentum=0.9)
    old = pickle.dumps(({0: mx.nd.array([1.0, 2.0])}, opt))
    assert b"_rebuild" in old
    states, loaded = states_io.loads(old)
    np.testing.assert_array_equal(states[0].asnumpy(), [1, 2])
    assert loaded.momentum == 0.9 and _rebuild is not None


# ----------------------------------------------------------------------------- refusals
class RunsCode:
    def __reduce__(self):
        return (os.system, ("echo pwned > /dev/null",))


class Evaluates:
    def __reduce__(self):
        return (eval, ("1+1",))


HOSTILE = {
    "os.system": pickle.dumps({0: RunsCode()}),
    "eval": pickle.dumps(({0: None}, Evaluates())),
    "builtins.getattr": b"\x80\x04cbuiltins\ngetattr\n(cos\nR.",
    "subprocess": pickle.dumps({0: __import__("subprocess").Popen}),
    "a class outside the optimizers": b"\x80\x04\x8c\x0eneogluon.gluon\x94\x8c\x07Trainer\x94\x93\x94.",
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_file_that_would_run_code_is_refused(tmp_path, case):
    path = tmp_path / "evil.states"
    path.write_bytes(HOSTILE[case])
    params = [gluon.Parameter("w", shape=(2,))]
    params[0].initialize()
    trainer = gluon.Trainer(params, "sgd")
    with pytest.raises(MXNetError, match="evil.states.*(refused|not a valid)"):
        trainer.load_states(str(path))


def test_refusal_happens_before_any_call(monkeypatch):
    calls = []
    monkeypatch.setattr(os, "system", lambda *a: calls.append(a))
    with pytest.raises(MXNetError, match="refused: the file asks for posix.system"):
        states_io.loads(HOSTILE["os.system"])
    assert calls == []


@pytest.mark.parametrize("blob,message", [
    (b"", "not a valid"),
    (b"\x80\x04N.", "not a dict"),  # None
    (pickle.dumps({0: "text"}), "holds a str"),
    (pickle.dumps({(1, 2): None}), "not a parameter index"),
    # bytearray(2**40) would allocate a terabyte
    (b"\x80\x04cbuiltins\nbytearray\n\x8a\x06\x00\x00\x00\x00\x00\x01\x85R.", "bytearray is rebuilt from bytes"),
    # numpy.ndarray((2**40,)) likewise
    (b"\x80\x04cnumpy\nndarray\n\x8a\x06\x00\x00\x00\x00\x00\x01\x85\x85R.", "not a valid"),
    # a counted string claiming 2**40 bytes
    (b"\x80\x04\x8e\x00\x00\x00\x00\x00\x01\x00\x00abc.", "not a valid"),
    (b"\x80\x04\x95\x00\x00\x00\x00\x00\x01\x00\x00N.", "frame"),
    # a memo index of 2**30 would make the unpickler allocate a 16 GB memo table
    (b"\x80\x04}r\x00\x00\x00\x40.", "memo index"),
])
def test_malformed_states_raise(blob, message):
    with pytest.raises(MXNetError, match=message):
        states_io.loads(blob)


def test_wrongly_typed_optimizer_attribute_is_refused():
    opt = mx.optimizer.SGD(momentum=0.9)
    opt.momentum = "x"
    blob = states_io.dumps(({}, opt))
    with pytest.raises(MXNetError, match="momentum"):
        states_io.loads(blob)


def test_bad_ndarray_handle_is_an_error():
    blob = read("adam").replace(b"\xc9\xfa\x93\xf9", b"\xc9\xfa\x93\xf8", 1)
    with pytest.raises(MXNetError, match="NDArray"):
        states_io.loads(blob)


def test_updater_set_states_round_trip():
    opt = mx.optimizer.Adam()
    updater = mx.optimizer.get_updater(opt)
    w, g = mx.nd.ones((2,)), mx.nd.ones((2,))
    updater(0, g, w)
    blob = updater.get_states(dump_optimizer=False)
    other = mx.optimizer.get_updater(mx.optimizer.Adam())
    other.set_states(blob)
    for a, b in zip(other.states[0], updater.states[0]):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
