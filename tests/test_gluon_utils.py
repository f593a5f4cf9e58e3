"""gluon.utils against MXNet 1.9.1 (recorded cases), plus what MXNet cannot record here:
offline ``download`` through file:// URLs, and clipping in dtypes MXNet's CPU ``dot`` refuses."""
import collections
import hashlib
import os
import warnings

import numpy as np
import pytest

import neogluon as mx
from neogluon import gluon
from neogluon.gluon import utils

from test_gluon_data import cases, check_case


@pytest.mark.parametrize("case", cases("utils"))
def test_mxnet_case(case):
    check_case(case)


def test_split_data_slices_are_views_along_axis0():
    data = mx.nd.zeros((4, 2))
    first, _ = utils.split_data(data, 2)
    first[:] = 7
    assert data.asnumpy()[:2].tolist() == [[7, 7], [7, 7]]


@pytest.mark.parametrize("dtype", ["float64", "float16"])
def test_clip_global_norm_other_dtypes(dtype):
    rng = np.random.RandomState(0)
    values = [rng.randn(3, 4), rng.randn(5)]
    arrays = [mx.nd.array(v, dtype=dtype) for v in values]
    total = np.sqrt(sum((v.astype(dtype).astype(np.float64) ** 2).sum() for v in values))
    norm = utils.clip_global_norm(arrays, 1.0)
    tol = 1e-2 if dtype == "float16" else 1e-12
    assert isinstance(norm, np.generic) and norm.dtype == np.dtype(dtype)
    np.testing.assert_allclose(float(norm), total, rtol=tol)
    for arr, v in zip(arrays, values):
        assert arr.dtype == np.dtype(dtype)
        expected = v.astype(dtype).astype(np.float64) / (total + 1e-8)
        np.testing.assert_allclose(arr.asnumpy().astype(np.float64), expected, rtol=tol, atol=tol)


def test_clip_global_norm_inside_record_and_on_grads():
    x = mx.nd.ones((2, 2))
    x.attach_grad()
    with mx.autograd.record():
        y = (x * 3).sum()
    y.backward()
    assert utils.clip_global_norm([x.grad], 1.0) == pytest.approx(6.0)
    np.testing.assert_allclose(x.grad.asnumpy(), np.full((2, 2), 0.5), rtol=1e-6)


def _write(path, payload):
    with open(path, "wb") as f:
        f.write(payload)
    return path


def test_download_file_url(tmp_path, capsys):
    payload = b"neogluon data " * 100
    src = _write(str(tmp_path / "src.bin"), payload)
    sha1 = hashlib.sha1(payload).hexdigest()
    dest_dir = tmp_path / "out"
    dest_dir.mkdir()
    got = utils.download("file://" + src, path=str(dest_dir), sha1_hash=sha1)
    assert got == str(dest_dir / "src.bin") and open(got, "rb").read() == payload
    assert "Downloading" in capsys.readouterr().out
    # an existing file with the right hash is kept, not fetched again
    assert utils.download("file://" + src, path=got, sha1_hash=sha1) == got
    assert capsys.readouterr().out == ""
    assert sorted(os.listdir(dest_dir)) == ["src.bin"]


def test_download_refreshes_stale_file_and_overwrite(tmp_path):
    src = _write(str(tmp_path / "src.bin"), b"fresh")
    dest = _write(str(tmp_path / "dest.bin"), b"stale")
    utils.download("file://" + src, path=dest, sha1_hash=hashlib.sha1(b"fresh").hexdigest())
    assert open(dest, "rb").read() == b"fresh"
    _write(src, b"newer")
    utils.download("file://" + src, path=dest, overwrite=True)
    assert open(dest, "rb").read() == b"newer"


def test_download_hash_mismatch_raises(tmp_path):
    src = _write(str(tmp_path / "src.bin"), b"abc")
    with pytest.raises(UserWarning, match="content hash does not match"):
        utils.download("file://" + src, path=str(tmp_path / "d.bin"), sha1_hash="0" * 40, retries=1)


def test_download_failure_is_clear_and_leaves_nothing(tmp_path, capsys):
    missing = "file://" + str(tmp_path / "missing.bin")
    with pytest.raises(RuntimeError, match="Failed downloading url file://.*missing.bin"):
        utils.download(missing, path=str(tmp_path / "x.bin"), retries=2)
    assert "retrying, 1 attempt left" in capsys.readouterr().out
    assert os.listdir(tmp_path) == []
    with pytest.raises(RuntimeError, match="Failed downloading url http://127.0.0.1:9/f"):
        utils.download("http://127.0.0.1:9/f", path=str(tmp_path / "y.bin"), retries=0)


def test_download_argument_checks(tmp_path):
    with pytest.raises(AssertionError, match="Number of retries should be at least 0"):
        utils.download("file:///nonexistent", path=str(tmp_path / "z"), retries=-1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        src = _write(str(tmp_path / "s"), b"1")
        utils.download("file://" + src, path=str(tmp_path / "t"), verify_ssl=False)
    assert any("Unverified HTTPS request" in str(w.message) for w in caught)


def test_repo_urls(monkeypatch):
    monkeypatch.setenv("MXNET_GLUON_REPO", "https://mirror.example/gluon")
    assert utils._get_repo_file_url("models", "a.params") == "https://mirror.example/gluon/models/a.params"


def test_hook_handle_detach_and_context_manager():
    hooks = collections.OrderedDict()
    handle = utils.HookHandle()
    hook = lambda *args: None  # noqa: E731
    handle.attach(hooks, hook)
    assert list(hooks.values()) == [hook]
    with pytest.raises(AssertionError, match="cannot be attached twice"):
        handle.attach(hooks, hook)
    with handle:
        pass
    assert not hooks


def test_gluon_namespace_exports():
    assert gluon.utils is utils
    for name in ("split_data", "split_and_load", "clip_global_norm", "check_sha1", "download"):
        assert callable(getattr(gluon.utils, name))
