"""Token embeddings (``mx.contrib.text.embedding``): GloVe, fastText, a custom file, or a
concatenation of embeddings, indexed like a :class:`~.vocab.Vocabulary`.

Pre-trained files are looked for under ``embedding_root/<glove|fasttext>/`` and checked by
MXNet's SHA-1; a missing one is fetched from MXNet's repository by
:func:`neogluon.gluon.utils.download` (on a machine without network, place the file there).
Under ``npx.set_np()`` the vectors are ``mx.np`` arrays, as MXNet's."""
import logging
import os
import tarfile
import warnings
import zipfile

from . import _constants as C
from . import vocab
from ... import ndarray as nd
from ... import registry
from ...base import data_dir
from ...util import is_np_array

__all__ = ["register", "create", "get_pretrained_file_names", "GloVe", "FastText", "CustomEmbedding",
           "CompositeEmbedding"]


def register(embedding_cls):
    """Register a token embedding class under its lower-case name (for :func:`create`)."""
    return registry.get_register_func(_TokenEmbedding, "token embedding")(embedding_cls)


def create(embedding_name, **kwargs):
    """A registered token embedding by name: ``create('glove', pretrained_file_name=...)``."""
    return registry.get_create_func(_TokenEmbedding, "token embedding")(embedding_name, **kwargs)


def get_pretrained_file_names(embedding_name=None):
    """The pre-trained file names of one registered embedding, or of all as a dict."""
    table = registry.get_registry(_TokenEmbedding)
    if embedding_name is not None:
        if embedding_name not in table:
            raise KeyError("Cannot find `embedding_name` %s. Use `get_pretrained_file_names(embedding_name=None)"
                           ".keys()` to get all the valid embedding names." % embedding_name)
        return list(table[embedding_name].pretrained_file_name_sha1.keys())
    return {name: list(cls.pretrained_file_name_sha1.keys()) for name, cls in table.items()}


def _np():
    from ... import numpy as mx_np, numpy_extension as mx_npx
    return mx_np, mx_npx


class _TokenEmbedding(vocab.Vocabulary):
    """A vocabulary with a vector per token (``idx_to_vec``, ``vec_len``)."""

    @classmethod
    def _get_download_file_name(cls, pretrained_file_name):
        return pretrained_file_name

    @classmethod
    def _get_pretrained_file_url(cls, pretrained_file_name):
        repo_url = os.environ.get("MXNET_GLUON_REPO", C.APACHE_REPO_URL)
        return "{}gluon/embeddings/{}/{}".format(repo_url, cls.__name__.lower(),
                                                 cls._get_download_file_name(pretrained_file_name))

    @classmethod
    def _get_pretrained_file(cls, embedding_root, pretrained_file_name):
        from ...gluon.utils import check_sha1, download
        embedding_dir = os.path.join(os.path.expanduser(embedding_root), cls.__name__.lower())
        path = os.path.join(embedding_dir, pretrained_file_name)
        expected = cls.pretrained_file_name_sha1[pretrained_file_name]
        if os.path.exists(path) and check_sha1(path, expected):
            return path
        url = cls._get_pretrained_file_url(pretrained_file_name)
        archive = os.path.basename(url)
        archive_hash = getattr(cls, "pretrained_archive_name_sha1", {}).get(archive, expected)
        archive_path = download(url, os.path.join(embedding_dir, archive), sha1_hash=archive_hash)
        ext = os.path.splitext(archive)[1]
        if ext == ".zip":
            with zipfile.ZipFile(archive_path, "r") as zf:
                zf.extractall(embedding_dir)
        elif ext == ".gz":
            with tarfile.open(archive_path, "r:gz") as tar:
                tar.extractall(path=embedding_dir)
        return path

    def _load_embedding(self, pretrained_file_path, elem_delim, init_unknown_vec, encoding="utf8"):
        """Read ``token v1 v2 ...`` lines: duplicate tokens and 1-element lines (headers) are
        skipped with a warning, the unknown token's vector is taken from the file or made by
        ``init_unknown_vec``."""
        path = os.path.expanduser(pretrained_file_path)
        if not os.path.isfile(path):
            raise ValueError("`pretrained_file_path` must be a valid path to the pre-trained token embedding file.")
        logging.info("Loading pre-trained token embedding vectors from %s", path)
        vec_len, all_elems, tokens, loaded_unknown = None, [], set(), None
        with open(path, "r", encoding=encoding) as f:
            for line_num, line in enumerate(f, 1):
                elems = line.rstrip().split(elem_delim)
                assert len(elems) > 1, "At line %d of the pre-trained text embedding file: the data format of the " \
                                       "pre-trained token embedding file %s is unexpected." % (line_num, path)
                token, elems = elems[0], [float(i) for i in elems[1:]]
                if token == self.unknown_token and loaded_unknown is None:
                    loaded_unknown = elems
                    tokens.add(self.unknown_token)
                elif token in tokens:
                    warnings.warn("At line %d of the pre-trained token embedding file: the embedding vector for "
                                  "token %s has been loaded and a duplicate embedding for the  same token is seen "
                                  "and skipped." % (line_num, token))
                elif len(elems) == 1:
                    warnings.warn("At line %d of the pre-trained text embedding file: token %s with 1-dimensional "
                                  "vector %s is likely a header and is skipped." % (line_num, token, elems))
                else:
                    if vec_len is None:
                        vec_len = len(elems)
                        all_elems.extend([0] * vec_len)
                    else:
                        assert len(elems) == vec_len, \
                            "At line %d of the pre-trained token embedding file: the dimension of token %s is %d " \
                            "but the dimension of previous tokens is %d. Dimensions of all the tokens must be " \
                            "the same." % (line_num, token, len(elems), vec_len)
                    all_elems.extend(elems)
                    self._idx_to_token.append(token)
                    self._token_to_idx[token] = len(self._idx_to_token) - 1
                    tokens.add(token)
        self._vec_len = vec_len
        array_fn = _np()[0].array if is_np_array() else nd.array
        self._idx_to_vec = array_fn(all_elems).reshape((-1, self.vec_len))
        if loaded_unknown is None:
            init = init_unknown_vec(shape=self.vec_len)
            self._idx_to_vec[C.UNKNOWN_IDX] = init.as_np_ndarray() if is_np_array() else init
        else:
            self._idx_to_vec[C.UNKNOWN_IDX] = array_fn(loaded_unknown)

    def _index_tokens_from_vocabulary(self, vocabulary):
        self._token_to_idx = vocabulary.token_to_idx.copy() if vocabulary.token_to_idx is not None else None
        self._idx_to_token = vocabulary.idx_to_token[:] if vocabulary.idx_to_token is not None else None
        self._unknown_token = vocabulary.unknown_token
        self._reserved_tokens = vocabulary.reserved_tokens[:] if vocabulary.reserved_tokens is not None else None

    def _set_idx_to_vec_by_embeddings(self, token_embeddings, vocab_len, vocab_idx_to_token):
        new_vec_len = sum(embed.vec_len for embed in token_embeddings)
        zeros_fn = _np()[0].zeros if is_np_array() else nd.zeros
        new_idx_to_vec = zeros_fn(shape=(vocab_len, new_vec_len))
        col = 0
        for embed in token_embeddings:
            end = col + embed.vec_len
            new_idx_to_vec[0, col:end] = embed.idx_to_vec[0]
            new_idx_to_vec[1:, col:end] = embed.get_vecs_by_tokens(vocab_idx_to_token[1:])
            col = end
        self._vec_len = new_vec_len
        self._idx_to_vec = new_idx_to_vec

    def _build_embedding_for_vocabulary(self, vocabulary):
        if vocabulary is not None:
            assert isinstance(vocabulary, vocab.Vocabulary), \
                "The argument `vocabulary` must be an instance of mxnet.contrib.text.vocab.Vocabulary."
            self._set_idx_to_vec_by_embeddings([self], len(vocabulary), vocabulary.idx_to_token)
            self._index_tokens_from_vocabulary(vocabulary)

    @property
    def vec_len(self):
        return self._vec_len

    @property
    def idx_to_vec(self):
        return self._idx_to_vec

    def get_vecs_by_tokens(self, tokens, lower_case_backup=False):
        """The vector of a token, or a 2-D array of the vectors of a list of tokens (unknown
        tokens get the unknown vector; ``lower_case_backup`` tries the lower-cased token)."""
        single = not isinstance(tokens, list)
        tokens = [tokens] if single else tokens
        if lower_case_backup:
            indices = [self.token_to_idx[t] if t in self.token_to_idx else self.token_to_idx.get(t.lower(),
                                                                                                  C.UNKNOWN_IDX)
                       for t in tokens]
        else:
            indices = [self.token_to_idx.get(t, C.UNKNOWN_IDX) for t in tokens]
        if is_np_array():
            mx_np, mx_npx = _np()
            embedding_fn, array_fn = mx_npx.embedding, mx_np.array
        else:
            embedding_fn, array_fn = nd.Embedding, nd.array
        vecs = embedding_fn(array_fn(indices), self.idx_to_vec, self.idx_to_vec.shape[0], self.idx_to_vec.shape[1])
        return vecs[0] if single else vecs

    def update_token_vectors(self, tokens, new_vectors):
        """Replace the vectors of known tokens (a 1-D or 2-D NDArray for one token, 2-D for several)."""
        assert self.idx_to_vec is not None, "The property `idx_to_vec` has not been properly set."
        if not isinstance(tokens, list) or len(tokens) == 1:
            assert isinstance(new_vectors, nd.NDArray) and len(new_vectors.shape) in (1, 2), \
                "`new_vectors` must be a 1-D or 2-D NDArray if `tokens` is a singleton."
            tokens = tokens if isinstance(tokens, list) else [tokens]
            if len(new_vectors.shape) == 1:
                new_vectors = (_np()[0].expand_dims if is_np_array() else nd.expand_dims)(new_vectors, axis=0)
        else:
            assert isinstance(new_vectors, nd.NDArray) and len(new_vectors.shape) == 2, \
                "`new_vectors` must be a 2-D NDArray if `tokens` is a list of multiple strings."
        assert new_vectors.shape == (len(tokens), self.vec_len), \
            "The length of new_vectors must be equal to the number of tokens and the width of" \
            "new_vectors must be equal to the dimension of embeddings of the glossary."
        indices = []
        for token in tokens:
            if token not in self.token_to_idx:
                raise ValueError("Token %s is unknown. To update the embedding vector for an unknown token, please "
                                 "specify it explicitly as the `unknown_token` %s in `tokens`. This is to avoid "
                                 "unintended updates." % (token, self.idx_to_token[C.UNKNOWN_IDX]))
            indices.append(self.token_to_idx[token])
        array_fn = _np()[0].array if is_np_array() else nd.array
        self._idx_to_vec[array_fn(indices)] = new_vectors

    @classmethod
    def _check_pretrained_file_names(cls, pretrained_file_name):
        name = cls.__name__.lower()
        if pretrained_file_name not in cls.pretrained_file_name_sha1:
            raise KeyError("Cannot find pretrained file %s for token embedding %s. Valid pretrained files for "
                           "embedding %s: %s" % (pretrained_file_name, name, name,
                                                 ", ".join(cls.pretrained_file_name_sha1.keys())))


class _Pretrained(_TokenEmbedding):
    """GloVe and fastText: a pre-trained file of MXNet's table, read from ``embedding_root``."""

    def __init__(self, pretrained_file_name, embedding_root, init_unknown_vec, vocabulary, **kwargs):
        type(self)._check_pretrained_file_names(pretrained_file_name)
        super().__init__(**kwargs)
        self._load_embedding(type(self)._get_pretrained_file(embedding_root, pretrained_file_name), " ",
                             init_unknown_vec)
        if vocabulary is not None:
            self._build_embedding_for_vocabulary(vocabulary)


@register
class GloVe(_Pretrained):
    """GloVe vectors (``glove.6B.50d.txt``, ... ``glove.840B.300d.txt``)."""
    pretrained_archive_name_sha1 = C.GLOVE_PRETRAINED_FILE_SHA1
    pretrained_file_name_sha1 = C.GLOVE_PRETRAINED_ARCHIVE_SHA1

    @classmethod
    def _get_download_file_name(cls, pretrained_file_name):
        archives = {a.split(".")[1]: a for a in GloVe.pretrained_archive_name_sha1}
        return archives[pretrained_file_name.split(".")[1]]

    def __init__(self, pretrained_file_name="glove.840B.300d.txt",
                 embedding_root=os.path.join(data_dir(), "embeddings"), init_unknown_vec=nd.zeros,
                 vocabulary=None, **kwargs):
        super().__init__(pretrained_file_name, embedding_root, init_unknown_vec, vocabulary, **kwargs)


@register
class FastText(_Pretrained):
    """fastText vectors (``wiki.simple.vec``, ``wiki.en.vec``, ... ``crawl-300d-2M.vec``)."""
    pretrained_archive_name_sha1 = C.FAST_TEXT_ARCHIVE_SHA1
    pretrained_file_name_sha1 = C.FAST_TEXT_FILE_SHA1

    @classmethod
    def _get_download_file_name(cls, pretrained_file_name):
        return ".".join(pretrained_file_name.split(".")[:-1]) + ".zip"

    def __init__(self, pretrained_file_name="wiki.simple.vec",
                 embedding_root=os.path.join(data_dir(), "embeddings"), init_unknown_vec=nd.zeros,
                 vocabulary=None, **kwargs):
        super().__init__(pretrained_file_name, embedding_root, init_unknown_vec, vocabulary, **kwargs)


class CustomEmbedding(_TokenEmbedding):
    """Vectors from a user's file of ``token<elem_delim>v1<elem_delim>v2 ...`` lines."""

    def __init__(self, pretrained_file_path, elem_delim=" ", encoding="utf8", init_unknown_vec=nd.zeros,
                 vocabulary=None, **kwargs):
        super().__init__(**kwargs)
        self._load_embedding(pretrained_file_path, elem_delim, init_unknown_vec, encoding)
        if vocabulary is not None:
            self._build_embedding_for_vocabulary(vocabulary)


class CompositeEmbedding(_TokenEmbedding):
    """The tokens of ``vocabulary`` with the concatenated vectors of ``token_embeddings``."""

    def __init__(self, vocabulary, token_embeddings):  # pylint: disable=super-init-not-called
        assert isinstance(vocabulary, vocab.Vocabulary), \
            "The argument `vocabulary` must be an instance of mxnet.contrib.text.indexer.Vocabulary."
        token_embeddings = token_embeddings if isinstance(token_embeddings, list) else [token_embeddings]
        for embed in token_embeddings:
            assert isinstance(embed, _TokenEmbedding), \
                "The argument `token_embeddings` must be an instance or a list of instances of " \
                "`mxnet.contrib.text.embedding.TextEmbedding` whose embedding vectors will beloaded or " \
                "concatenated-then-loaded to map to the indexed tokens."
        self._index_tokens_from_vocabulary(vocabulary)
        self._set_idx_to_vec_by_embeddings(token_embeddings, len(self), self.idx_to_token)
