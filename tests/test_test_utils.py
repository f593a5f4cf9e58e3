"""mx.test_utils against MXNet 1.9.1 (recorded cases), plus its failure messages."""
import numpy as np
import pytest

import neogluon as mx
from neogluon import test_utils as tu
from api_cases import cases, run_case


@pytest.mark.parametrize("case", cases("test_utils"))
def test_mxnet_case(case):
    run_case(case)


def test_failure_message_names_the_worst_element():
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    b = np.array([[1.0, 2.5], [3.0, 4.1]])
    with pytest.raises(AssertionError) as info:
        tu.assert_almost_equal(a, b, rtol=0, atol=0.01, names=("mine", "theirs"))
    msg = str(info.value)
    assert "Location of maximum error: (0, 1), mine=2.00000000, theirs=2.50000000" in msg
    assert "mismatch 50.000000%" in msg
    assert "rtol=0.000000e+00, atol=1.000000e-02" in msg
    assert "(1, 1)" in msg  # the second mismatch is listed too


def test_failure_message_with_nan():
    with pytest.raises(AssertionError, match="Location of maximum error: \\(1,\\)"):
        tu.assert_almost_equal(np.array([1.0, np.nan]), np.array([1.0, 2.0]))


def test_ndarray_inputs_use_their_dtype_tolerance():
    tu.assert_almost_equal(mx.nd.array([1.0], dtype="float16"), mx.nd.array([1.05], dtype="float16"))
    with pytest.raises(AssertionError):
        tu.assert_almost_equal(mx.nd.array([1.0], dtype="float64"), mx.nd.array([1.0001], dtype="float64"))


def test_ignore_nan():
    tu.assert_almost_equal_ignore_nan(np.array([np.nan, 1.0]), np.array([5.0, 1.0]))
    with pytest.raises(AssertionError):
        tu.assert_almost_equal_ignore_nan(np.array([np.nan, 1.0]), np.array([5.0, 2.0]))


def test_assert_exception_reports_a_missing_error():
    with pytest.raises(AssertionError, match="did not raise ValueError"):
        tu.assert_exception(lambda: None, ValueError)


def test_rand_ndarray_context_and_sparse_refused():
    x = tu.rand_ndarray((2, 3), ctx=mx.cpu())
    assert x.shape == (2, 3) and x.dtype == np.float32 and x.context == mx.cpu()
    with pytest.raises(mx.MXNetError, match="stype 'csr'"):
        tu.rand_ndarray((2, 3), stype="csr")


def test_random_uniform_arrays_range():
    a, b = tu.random_uniform_arrays((100,), (3, 2), low=-2.0, high=-1.0)
    assert a.dtype == np.float32 and b.shape == (3, 2)
    assert ((a >= -2.0) & (a < -1.0)).all()


def test_rand_shape_bounds():
    for _ in range(20):
        shape = tu.rand_shape_nd(3, dim=2)
        assert len(shape) == 3 and all(1 <= d <= 2 for d in shape)
        assert all(0 <= d <= 1 for d in tu.rand_shape_3d(1, 1, 1, allow_zero_size=True))


def test_same_array_detects_shared_memory():
    a = mx.nd.zeros((2, 3))
    assert tu.same_array(a, a.reshape((2, 3)))
    assert not tu.same_array(a, a.copy())


def test_small_helpers():
    assert tu.default_numeric_eps()[np.dtype(np.float32)] == 1.0 / 2 ** 9
    assert tu.get_etol() == 0 and tu.get_etol(0.1) == 0.1
    assert tu.effective_dtype(mx.nd.zeros((1,))) == np.dtype(np.float32)
    assert tu.list_gpus() == list(range(mx.num_gpus()))
    with pytest.raises(ValueError):
        with tu.environment("A", "b", "c"):
            pass


def test_retry_reruns_failed_assertions():
    calls = []

    @tu.retry(3)
    def flaky():
        calls.append(1)
        assert len(calls) == 2

    flaky()
    assert len(calls) == 2

    @tu.retry(2)
    def broken():
        calls.append(1)
        raise AssertionError("always")

    with pytest.raises(AssertionError, match="always"):
        broken()


def test_random_sample():
    sample = tu.random_sample([1, 2, 3, 4], 3)
    assert len(sample) == 3 and len(set(sample)) == 3 and set(sample) <= {1, 2, 3, 4}
    with pytest.raises(ValueError):
        tu.random_sample([1], 2)
