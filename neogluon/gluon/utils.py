"""``mx.gluon.utils``: data-parallel splitting, gradient clipping, downloads, and the small
helpers Gluon's blocks share, as in MXNet 1.9.1."""
import collections
import os
import shutil
import ssl
import urllib.error
import urllib.request
import uuid
import warnings
import weakref

import numpy as np
import torch

from .. import ndarray
from ..fileio import file_digest
from ..ndarray import NDArray

__all__ = ["split_data", "split_and_load", "clip_global_norm", "check_sha1", "download",
           "replace_file"]


# ---------------------------------------------------------------------- data parallelism
def split_data(data, num_slice, batch_axis=0, even_split=True):
    """Split ``data`` into ``num_slice`` slices along ``batch_axis`` (always a list).

    As MXNet: with ``even_split`` the axis length must be a multiple of ``num_slice``
    (ValueError otherwise); without, the first ``size % num_slice`` slices get one more
    element, and slices beyond the data are empty. Slices along axis 0 are views."""
    size = data.shape[batch_axis]
    if even_split and size % num_slice != 0:
        raise ValueError(
            "data with shape %s cannot be evenly split into %d slices along axis %d. "
            "Use a batch size that's multiple of %d or set even_split=False to allow "
            "uneven partitioning of data." % (str(data.shape), num_slice, batch_axis, num_slice))
    n_each, extras = divmod(size, num_slice)
    sizes = [n_each + 1] * extras + [n_each] * (num_slice - extras)
    bounds = np.concatenate([[0], np.cumsum(sizes)]).tolist()
    if batch_axis == 0:
        return [data[bounds[i]:bounds[i + 1]] for i in range(num_slice)]
    return [ndarray.slice_axis(data, axis=batch_axis, begin=bounds[i], end=bounds[i + 1])
            for i in range(num_slice)]


def split_and_load(data, ctx_list, batch_axis=0, even_split=True):
    """Split ``data`` (an NDArray, or anything ``nd.array`` accepts) into
    ``len(ctx_list)`` slices along ``batch_axis`` and copy slice ``i`` to ``ctx_list[i]``."""
    if not isinstance(data, NDArray):
        data = ndarray.array(data, ctx=ctx_list[0])
    if len(ctx_list) == 1:
        return [data.as_in_context(ctx_list[0])]
    slices = split_data(data, len(ctx_list), batch_axis, even_split)
    return [s.as_in_context(ctx) for s, ctx in zip(slices, ctx_list)]


def clip_global_norm(arrays, max_norm, check_isfinite=True):
    """Rescale ``arrays`` in place so that their joint 2-norm is at most ``max_norm``.

    As MXNet: the scale is ``min(max_norm / (total_norm + 1e-8), 1)``; the total norm
    is returned as a float (a numpy scalar of the arrays' dtype) after warning when it is
    nan or inf, or, with ``check_isfinite=False``, as a shape-(1,) NDArray without
    blocking. Norms come from torch's fused multi-tensor kernels (float16 works on CPU
    too, where MXNet's ``dot`` refuses it)."""
    assert len(arrays) > 0
    tensors = [arr._t for arr in arrays]
    first = tensors[0]
    norms = torch._foreach_norm([t.detach() for t in tensors])
    total = torch.linalg.vector_norm(torch.stack([n.to(first.device, first.dtype) for n in norms]))
    total = total.reshape(1)
    if check_isfinite and not torch.isfinite(total).all():
        warnings.warn(UserWarning("nan or inf is detected. Clipping results will be undefined."),
                      stacklevel=2)
    scale = torch.clamp(max_norm / (total + 1e-8), max=1.0)
    with torch.no_grad():
        torch._foreach_mul_(tensors, [scale.to(t.device, t.dtype) for t in tensors])
    result = NDArray(total)
    return result.asscalar() if check_isfinite else result


# ---------------------------------------------------------------------- files
def check_sha1(filename, sha1_hash):
    """Whether the SHA-1 of the file's contents is ``sha1_hash`` (hexadecimal)."""
    return file_digest(filename, "sha1") == sha1_hash


def replace_file(src, dst):
    """Move ``src`` onto ``dst`` atomically (``os.replace``); on failure ``src`` is removed
    and OSError raised, as MXNet."""
    try:
        os.replace(src, dst)
    except OSError as err:
        try:
            os.remove(src)
        except OSError:
            pass
        raise OSError("Moving downloaded temp file - {}, to {} failed. Please retry the "
                      "download.".format(src, dst)) from err


def _target_path(url, path):
    """Where ``download`` stores ``url``: ``path`` itself, or the URL's file name inside
    the directory ``path`` (the current directory by default)."""
    if path is None:
        fname = url.split("/")[-1]
        assert fname, "Can't construct file-name from this URL. Please set the `path` option manually."
        return fname
    path = os.path.expanduser(path)
    if os.path.isdir(path):
        return os.path.join(path, url.split("/")[-1])
    return path


def _copy_url(url, dst, verify_ssl):
    """Copy the contents of ``url`` into the file ``dst``; RuntimeError names the URL and
    the reason when that fails."""
    context = None if verify_ssl else ssl._create_unverified_context()  # pylint: disable=protected-access
    try:
        with urllib.request.urlopen(url, context=context) as response, open(dst, "wb") as f:
            status = getattr(response, "status", None)
            if status is not None and status != 200:
                raise RuntimeError("Failed downloading url {}: HTTP status {}".format(url, status))
            shutil.copyfileobj(response, f)
    except (urllib.error.URLError, OSError, ValueError) as err:
        raise RuntimeError("Failed downloading url {}: {}".format(url, err)) from err


def _fetch(url, fname, sha1_hash, verify_ssl, overwrite):
    """One download attempt of ``url`` into ``fname``, through a temporary file that
    replaces ``fname`` unless another process has meanwhile put a good file there."""
    tmp = "{}.{}".format(fname, uuid.uuid4())
    try:
        _copy_url(url, tmp, verify_ssl)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    if overwrite or not os.path.exists(fname) or (sha1_hash and not check_sha1(fname, sha1_hash)):
        replace_file(tmp, fname)
    else:
        os.remove(tmp)
        warnings.warn("File {} exists in file system so the downloaded file is deleted".format(fname))
    if sha1_hash and not check_sha1(fname, sha1_hash):
        raise UserWarning("File {} is downloaded but the content hash does not match. The repo "
                          "may be outdated or download may be incomplete. If the \"repo_url\" is "
                          "overridden, consider switching to the default repo.".format(fname))


def download(url, path=None, overwrite=False, sha1_hash=None, retries=5, verify_ssl=True):
    """Download ``url`` to ``path`` (a file, or a directory to put the URL's file name in;
    the current directory by default) and return the file's path, as MXNet.

    An existing file is kept unless ``overwrite`` or its SHA-1 differs from ``sha1_hash``
    (MXNet 1.9.1 fetches but then keeps the old file when ``overwrite`` is given without a
    hash; here ``overwrite`` replaces it).
    Any URL scheme of ``urllib`` works, ``file://`` included (so it works offline); a
    failed download is retried ``retries`` times, then raises RuntimeError naming the URL
    and the reason (or UserWarning when the content does not match ``sha1_hash``)."""
    fname = _target_path(url, path)
    assert retries >= 0, "Number of retries should be at least 0, currently it's {}".format(retries)
    if not verify_ssl:
        warnings.warn("Unverified HTTPS request is being made (verify_ssl=False). "
                      "Adding certificate verification is strongly advised.")
    if not (overwrite or not os.path.exists(fname) or (sha1_hash and not check_sha1(fname, sha1_hash))):
        return fname
    os.makedirs(os.path.dirname(os.path.abspath(fname)), exist_ok=True)
    while True:
        try:
            print("Downloading {} from {}...".format(fname, url))
            _fetch(url, fname, sha1_hash, verify_ssl, overwrite)
            return fname
        except (RuntimeError, UserWarning, OSError) as err:
            retries -= 1
            if retries <= 0:
                raise
            print("download failed due to {}, retrying, {} attempt{} left"
                  .format(repr(err), retries, "s" if retries > 1 else ""))


def _get_repo_url():
    """The base URL of the Gluon data and model repository (``$MXNET_GLUON_REPO``)."""
    repo_url = os.environ.get("MXNET_GLUON_REPO",
                              "https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/")
    return repo_url if repo_url.endswith("/") else repo_url + "/"


def _get_repo_file_url(namespace, filename):
    """The URL of ``filename`` in ``namespace`` of the Gluon repository."""
    return "{}{}/{}".format(_get_repo_url(), namespace, filename)


# ---------------------------------------------------------------------- helpers for blocks
def _indent(s_, numSpaces):  # pylint: disable=invalid-name
    """Indent every line of ``s_`` but the first by ``numSpaces`` spaces (Block reprs)."""
    lines = s_.split("\n")
    if len(lines) == 1:
        return s_
    return "\n".join([lines[0]] + [numSpaces * " " + line for line in lines[1:]])


def _brief_print_list(lst, limit=7):
    """``'a', 'b', ..., 'y', 'z'``: at most about ``limit`` quoted items of ``lst``."""
    lst = list(lst)
    if len(lst) > limit:
        return (_brief_print_list(lst[:limit // 2], limit) + ", ..., "
                + _brief_print_list(lst[-limit // 2:], limit))
    return ", ".join(["'%s'" % str(i) for i in lst])


def shape_is_known(shape):
    """Whether every dimension of ``shape`` is known (MXNet 1.x shapes: 0 is unknown, and
    an empty shape counts as unknown)."""
    if shape is None or len(shape) == 0:
        return False
    for dim_size in shape:
        if dim_size == 0:
            return False
        assert dim_size > 0, \
            "shape dimension size cannot be less than 0, while received {}".format(dim_size)
    return True


class HookHandle:
    """A handle on a hook registered in a dict of hooks: ``detach()`` removes it, and as
    a context manager it detaches on exit (``register_forward_hook``'s return value)."""

    def __init__(self):
        self._hooks_dict_ref = None
        self._id = None

    def attach(self, hooks_dict, hook):
        assert not self._hooks_dict_ref, "The same handle cannot be attached twice."
        self._id = id(hook)
        hooks_dict[self._id] = hook
        self._hooks_dict_ref = weakref.ref(hooks_dict)

    def detach(self):
        hooks_dict = self._hooks_dict_ref()
        if hooks_dict is not None and self._id in hooks_dict:
            del hooks_dict[self._id]

    def __getstate__(self):
        return (self._hooks_dict_ref(), self._id)

    def __setstate__(self, state):
        hooks = state[0] if state[0] is not None else collections.OrderedDict()
        self._hooks_dict_ref = weakref.ref(hooks)
        self._id = state[1]

    def __enter__(self):
        return self

    def __exit__(self, ptype, value, trace):
        self.detach()
