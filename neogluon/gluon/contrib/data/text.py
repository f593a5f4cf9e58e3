"""WikiText-2 and WikiText-103 (``gluon.contrib.data.text``): token-index sequences for
language modelling, read from the standard files under ``root`` (``wiki.train.tokens``,
``wiki.valid.tokens``, ``wiki.test.tokens``, or the ``wikitext-*-v1.zip`` archive, which is
extracted). neogluon downloads nothing: missing files are an error saying where to put them.

Each line gets an ``<eos>`` token; the vocabulary (``mx.contrib.text.vocab.Vocabulary`` with
``<eos>`` reserved) is built from the segment's own tokens unless ``vocab`` is given; the
sequence is cut into rows of ``seq_len`` with the label the next token, as MXNet's."""
import os
import shutil
import zipfile

import numpy as np

from .... import ndarray as nd
from ....contrib import text
from ...data.vision.datasets import _DownloadedDataset, _data_home

__all__ = ["WikiText2", "WikiText103"]

EOS_TOKEN = "<eos>"


class _WikiText(_DownloadedDataset):
    _archive = None

    def __init__(self, root, segment, vocab, seq_len):
        assert segment in ("train", "validation", "test"), "segment must be 'train', 'validation' or 'test'"
        self._segment, self._seq_len = segment, seq_len
        self._vocab, self._counter = vocab, None
        super().__init__(root, None)

    @property
    def vocabulary(self):
        return self._vocab

    @property
    def frequencies(self):
        return self._counter

    def _build_vocab(self, content):
        if not self._counter:
            self._counter = text.utils.count_tokens_from_str(content)
        if not self._vocab:
            self._vocab = text.vocab.Vocabulary(counter=self.frequencies, reserved_tokens=[EOS_TOKEN])

    def _read_batch(self, filename):
        with open(filename, "r", encoding="utf8") as fin:
            content = fin.read()
        self._build_vocab(content)
        lines = [line for line in (x.strip().split() for x in content.splitlines()) if line]
        tokens = [t for line in lines for t in line + [EOS_TOKEN] if t]
        indices = self.vocabulary.to_indices(tokens)
        return np.array(indices[:-1], dtype=np.int32), np.array(indices[1:], dtype=np.int32)

    def _get_data(self):
        name = {"train": "wiki.train.tokens", "validation": "wiki.valid.tokens", "test": "wiki.test.tokens"}
        path = os.path.join(self._root, name[self._segment])
        archive = os.path.join(self._root, self._archive)
        if not os.path.exists(path) and os.path.exists(archive):
            with zipfile.ZipFile(archive, "r") as zf:
                for member in zf.namelist():
                    filename = os.path.basename(member)
                    if filename:
                        with zf.open(member) as source, open(os.path.join(self._root, filename), "wb") as target:
                            shutil.copyfileobj(source, target)
        if not os.path.exists(path):
            self._missing([name[self._segment]], self._archive)
        data, label = self._read_batch(path)
        rows = len(data) // self._seq_len * self._seq_len
        self._data = nd.array(data, dtype=data.dtype)[:rows].reshape((-1, self._seq_len))
        self._label = nd.array(label, dtype=label.dtype)[:rows].reshape((-1, self._seq_len))


class WikiText2(_WikiText):
    """WikiText-2 (``root`` default ``$MXNET_HOME/datasets/wikitext-2``)."""
    _archive = "wikitext-2-v1.zip"

    def __init__(self, root=os.path.join(_data_home(), "datasets", "wikitext-2"), segment="train", vocab=None,
                 seq_len=35):
        super().__init__(root, segment, vocab, seq_len)


class WikiText103(_WikiText):
    """WikiText-103 (``root`` default ``$MXNET_HOME/datasets/wikitext-103``)."""
    _archive = "wikitext-103-v1.zip"

    def __init__(self, root=os.path.join(_data_home(), "datasets", "wikitext-103"), segment="train", vocab=None,
                 seq_len=35):
        super().__init__(root, segment, vocab, seq_len)
