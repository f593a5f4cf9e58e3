"""Classic MXNet programs (InsightFace-style training, example/ scripts, Symbol/Executor/Module work,
kvstore, optimizers with schedulers, bucketing RNNs) run on neogluon and compared with the answers
MXNet 1.9.1 gave for the same programs (``tests/legacy_program_cases.py``; recorded by
``tools/make_legacy_program_fixtures.py`` into ``tests/fixtures/extra/legacy_programs``)."""
import os

import numpy as np
import pytest

import neogluon as mx
import legacy_program_cases as cases

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "legacy_programs")

# float tolerances per case (default 1e-5): ArcFace's arccos near |cos| = 1 and several training steps
# amplify float32 rounding differences between the two frameworks' kernels
TOL = {"insightface_arcface": 2e-4, "insightface_cosface": 1e-4, "bucketing_lstm_language_model": 1e-4,
       "optimizers_under_cosine_schedule": 1e-4}


def as_array(value):
    if isinstance(value, mx.nd.NDArray):
        return value.asnumpy()
    return np.asarray(value)


def compare(name, key, got, want):
    if want.dtype.kind in "US":
        assert str(got) == str(want), "%s[%s]: %r != MXNet's %r" % (name, key, str(got), str(want))
        return
    assert got.shape == want.shape, "%s[%s]: shape %s != MXNet's %s" % (name, key, got.shape, want.shape)
    if want.dtype.kind in "fc":
        tol = TOL.get(name, 1e-5)
        np.testing.assert_allclose(got.astype(want.dtype), want, rtol=tol, atol=tol, equal_nan=True,
                                   err_msg="%s[%s]" % (name, key))
    else:
        np.testing.assert_array_equal(got, want, err_msg="%s[%s]" % (name, key))


@pytest.mark.parametrize("name", sorted(cases.CASES))  # each under 2 s
def test_program_matches_mxnet(name, tmp_path):
    want = np.load(os.path.join(FIXTURES, name + ".npz"))
    got = cases.run(name, mx, str(tmp_path))
    assert sorted(got) == sorted(want.files)
    for key in want.files:
        compare(name, key, as_array(got[key]), want[key])
