"""Text input for the ``mx.rnn`` language models (MXNet 1.9.1's ``mxnet/rnn/io.py``):
``encode_sentences`` maps tokens to integers, ``BucketSentenceIter`` batches sentences of
similar length into buckets for ``mx.mod.BucketingModule``."""
import bisect
import random

import numpy as np

from ..io import DataIter, DataBatch, DataDesc
from .. import ndarray


def encode_sentences(sentences, vocab=None, invalid_label=-1, invalid_key='\n', start_label=0,
                     unknown_token=None):
    """Encode sentences (lists of str tokens) as lists of int, building the vocabulary.

    Parameters
    ----------
    sentences : list of list of str
    vocab : dict of str -> int, optional
        Without one, a new vocabulary ``{invalid_key: invalid_label}`` is built and every
        new token is added; with one, an unknown token is an error unless ``unknown_token``.
    invalid_label : int, default -1
        The index skipped when numbering new tokens.
    invalid_key : str, default '\\n'
    start_label : int, default 0
        The first index given to a new token.
    unknown_token : str, optional
        What an unknown token is recorded as (it is added to the vocabulary as new).

    Returns
    -------
    (list of list of int, dict of str -> int)
    """
    idx = start_label
    new_vocab = vocab is None
    if new_vocab:
        vocab = {invalid_key: invalid_label}
    res = []
    for sent in sentences:
        coded = []
        for word in sent:
            if word not in vocab:
                assert new_vocab or unknown_token, "Unknown token %s" % word
                if idx == invalid_label:
                    idx += 1
                if unknown_token:
                    word = unknown_token
                vocab[word] = idx
                idx += 1
            coded.append(vocab[word])
        res.append(coded)
    return res, vocab


class BucketSentenceIter(DataIter):
    """A language-model iterator: each sentence is padded with ``invalid_label`` to the
    smallest bucket that holds it (longer ones are discarded); the label of a step is the
    next token. Batches come from one bucket at a time, ``bucket_key`` = its length.
    ``reset()`` shuffles the batch order (``random.shuffle``) and the sentences of each
    bucket (``np.random.shuffle``), as MXNet's does.

    Parameters
    ----------
    sentences : list of list of int
        Encoded sentences.
    batch_size : int
    buckets : list of int, optional
        Bucket lengths; by default every length with at least ``batch_size`` sentences.
    invalid_label : int, default -1
    data_name : str, default 'data'
    label_name : str, default 'softmax_label'
    dtype : str, default 'float32'
    layout : str, default 'NT'
        'NT' (batch, length) or 'TN' (length, batch).
    """

    def __init__(self, sentences, batch_size, buckets=None, invalid_label=-1, data_name='data',
                 label_name='softmax_label', dtype='float32', layout='NT'):
        super().__init__()
        if not buckets:
            buckets = [i for i, j in enumerate(np.bincount([len(s) for s in sentences])) if j >= batch_size]
        buckets.sort()

        ndiscard = 0
        self.data = [[] for _ in buckets]
        used = [False] * len(buckets)
        for sent in sentences:
            buck = bisect.bisect_left(buckets, len(sent))
            if buck == len(buckets):
                ndiscard += 1
                continue
            used[buck] = True
            buff = np.full((buckets[buck],), invalid_label, dtype=dtype)
            buff[:len(sent)] = sent
            self.data[buck].append(buff)
        buckets = [b for b, u in zip(buckets, used) if u]
        self.data = [np.asarray(i, dtype=dtype) for i in self.data if i]
        print("WARNING: discarded %d sentences longer than the largest bucket." % ndiscard)

        self.batch_size = batch_size
        self.buckets = buckets
        self.data_name = data_name
        self.label_name = label_name
        self.dtype = dtype
        self.invalid_label = invalid_label
        self.nddata = []
        self.ndlabel = []
        self.major_axis = layout.find('N')
        self.layout = layout
        self.default_bucket_key = max(buckets)
        if self.major_axis not in (0, 1):
            raise ValueError("Invalid layout %s: Must by NT (batch major) or TN (time major)")
        shape = (batch_size, self.default_bucket_key)[::1 if self.major_axis == 0 else -1]
        self.provide_data = [DataDesc(name=self.data_name, shape=shape, layout=self.layout)]
        self.provide_label = [DataDesc(name=self.label_name, shape=shape, layout=self.layout)]

        self.idx = []
        for i, buck in enumerate(self.data):
            self.idx.extend([(i, j) for j in range(0, len(buck) - batch_size + 1, batch_size)])
        self.curr_idx = 0
        self.reset()

    def reset(self):
        """Shuffle the batches and the sentences of each bucket, and start again."""
        self.curr_idx = 0
        random.shuffle(self.idx)
        for buck in self.data:
            np.random.shuffle(buck)
        self.nddata = []
        self.ndlabel = []
        for buck in self.data:
            label = np.empty_like(buck)
            label[:, :-1] = buck[:, 1:]
            label[:, -1] = self.invalid_label
            self.nddata.append(ndarray.array(buck, dtype=self.dtype))
            self.ndlabel.append(ndarray.array(label, dtype=self.dtype))

    def next(self):
        """The next batch (a ``DataBatch`` with ``bucket_key``)."""
        if self.curr_idx == len(self.idx):
            raise StopIteration
        i, j = self.idx[self.curr_idx]
        self.curr_idx += 1
        data = self.nddata[i][j:j + self.batch_size]
        label = self.ndlabel[i][j:j + self.batch_size]
        if self.major_axis == 1:
            data, label = data.T, label.T
        return DataBatch([data], [label], pad=0, bucket_key=self.buckets[i],
                         provide_data=[DataDesc(name=self.data_name, shape=data.shape, layout=self.layout)],
                         provide_label=[DataDesc(name=self.label_name, shape=label.shape, layout=self.layout)])
