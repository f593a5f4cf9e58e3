"""``mx.contrib.io``: a Gluon ``DataLoader`` seen as a ``DataIter`` (for ``Module.fit``)."""
from .. import ndarray as nd
from ..io import DataDesc, DataIter

__all__ = ["DataLoaderIter"]


class DataLoaderIter(DataIter):
    """The batches of a Gluon DataLoader yielding ``(data, label)`` as a DataIter; a short
    last batch is padded to ``batch_size`` (the first batch's size) and ``getpad`` says by
    how much, as MXNet's."""

    def __init__(self, loader, data_name="data", label_name="softmax_label", dtype="float32"):
        super().__init__()
        self._loader = loader
        data, label = next(iter(loader))
        self.batch_size = data.shape[0]
        self.dtype = dtype
        self.provide_data = [DataDesc(data_name, data.shape, dtype)]
        self.provide_label = [DataDesc(label_name, label.shape, dtype)]
        self._current_batch = None
        self.reset()

    def reset(self):
        self._iter = iter(self._loader)

    def iter_next(self):
        self._current_batch = next(self._iter, None)
        return self._current_batch is not None

    def _padded(self, arr):
        if not self.getpad():
            return [arr.astype(self.dtype)]
        ret = nd.empty(shape=[self.batch_size] + list(arr.shape[1:]))
        ret[:arr.shape[0]] = arr.astype(self.dtype)
        return [ret]

    def getdata(self):
        return self._padded(self._current_batch[0])

    def getlabel(self):
        return self._padded(self._current_batch[1])

    def getpad(self):
        return self.batch_size - self._current_batch[0].shape[0]

    def getindex(self):
        return None
