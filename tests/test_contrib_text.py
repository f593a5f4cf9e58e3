"""``mx.contrib.text`` (token counts, Vocabulary, CustomEmbedding, CompositeEmbedding, GloVe
from a local file) and ``gluon.contrib.data.text.WikiText2`` against MXNet 1.9.1's results
on the same files (tools/make_extra_fixtures_text.py)."""
import collections
import hashlib
import json
import os
import shutil

import numpy as np
import pytest

import neogluon as mx
from neogluon.contrib import text
from neogluon.gluon.contrib.data.text import WikiText2, WikiText103

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "extra", "contrib_text")
with open(os.path.join(HERE, "cases.json")) as _f:
    REC = json.load(_f)
with open(os.path.join(HERE, "corpus.txt")) as _f:
    CORPUS = _f.read()


def _vocab():
    return text.vocab.Vocabulary(text.utils.count_tokens_from_str(CORPUS), most_freq_count=4, min_freq=1,
                                 reserved_tokens=["<pad>"])


def test_counts_and_vocabulary():
    counter = text.utils.count_tokens_from_str(CORPUS)
    assert isinstance(counter, collections.Counter) and dict(counter) == REC["counts"]
    assert dict(text.utils.count_tokens_from_str(CORPUS, to_lower=True)) == REC["counts_lower"]
    vocab = _vocab()
    assert vocab.idx_to_token == REC["vocab"] and len(vocab) == len(REC["vocab"])
    assert text.vocab.Vocabulary(counter, min_freq=2).idx_to_token == REC["vocab_min2"]
    assert vocab.to_indices(["the", "zebra", "cat"]) == REC["to_indices"] and vocab.to_indices("the") == 2
    assert vocab.to_tokens([0, 1, 2]) == REC["to_tokens"]
    with pytest.raises(ValueError, match="Token index 99"):
        vocab.to_tokens(99)
    with pytest.raises(AssertionError, match="duplicate"):
        text.vocab.Vocabulary(reserved_tokens=["a", "a"])


def test_custom_and_composite_embeddings():
    with pytest.warns(UserWarning):  # the duplicate 'the' and the 1-element header line, as MXNet warns
        a = text.embedding.CustomEmbedding(os.path.join(HERE, "emb_a.txt"))
    assert a.idx_to_token == REC["a_tokens"] and a.vec_len == 2
    np.testing.assert_allclose(a.idx_to_vec.asnumpy(), REC["a_vecs"], rtol=1e-6)
    got = a.get_vecs_by_tokens(["cat", "zebra", "Dog"], lower_case_backup=True)
    np.testing.assert_allclose(got.asnumpy(), REC["a_get"], rtol=1e-6)
    vocab = _vocab()
    b = text.embedding.CustomEmbedding(os.path.join(HERE, "emb_b.txt"), vocabulary=vocab)
    assert b.idx_to_token == REC["b_tokens"]
    np.testing.assert_allclose(b.idx_to_vec.asnumpy(), REC["b_vecs"], rtol=1e-6)
    comp = text.embedding.CompositeEmbedding(vocab, [a, b])
    np.testing.assert_allclose(comp.idx_to_vec.asnumpy(), REC["comp_vecs"], rtol=1e-6)
    comp.update_token_vectors(["cat", "the"], mx.nd.ones((2, 5)) * 2)
    np.testing.assert_allclose(comp.idx_to_vec.asnumpy(), REC["comp_updated"], rtol=1e-6)
    with pytest.raises(ValueError, match="Token zebra is unknown"):
        comp.update_token_vectors("zebra", mx.nd.ones(5))


def test_glove_reads_a_local_file_checked_by_sha1(tmp_path, monkeypatch):
    """GloVe takes ``<embedding_root>/glove/<file>`` when its SHA-1 is MXNet's (patched here to
    the synthetic file's); registered names and the file list come from MXNet's table."""
    assert "glove.6B.50d.txt" in text.embedding.get_pretrained_file_names("glove")
    assert "wiki.simple.vec" in text.embedding.get_pretrained_file_names()["fasttext"]
    with pytest.raises(KeyError, match="Cannot find pretrained file nope.txt"):
        text.embedding.GloVe("nope.txt")
    (tmp_path / "glove").mkdir()
    target = tmp_path / "glove" / "glove.6B.50d.txt"
    shutil.copy(os.path.join(HERE, "emb_b.txt"), target)
    sha1 = hashlib.sha1(target.read_bytes()).hexdigest()
    monkeypatch.setitem(text.embedding.GloVe.pretrained_file_name_sha1, "glove.6B.50d.txt", sha1)
    glove = text.embedding.create("glove", pretrained_file_name="glove.6B.50d.txt", embedding_root=str(tmp_path))
    assert glove.idx_to_token == ["<unk>", "cat", "mat", "food"] and glove.vec_len == 3
    np.testing.assert_array_equal(glove.get_vecs_by_tokens("mat").asnumpy(), [4, 5, 6])


def test_wikitext2_from_local_files(tmp_path):
    with pytest.raises(mx.MXNetError, match="(?s)wiki.train.tokens.*wikitext-2-v1.zip"):
        WikiText2(root=str(tmp_path))
    shutil.copy(os.path.join(HERE, "corpus.txt"), tmp_path / "wiki.train.tokens")
    ds = WikiText2(root=str(tmp_path), seq_len=4)
    assert ds.vocabulary.idx_to_token == REC["wikitext_vocab"]
    assert [ds[i][0].asnumpy().tolist() for i in range(len(ds))] == REC["wikitext_data"]
    assert [ds[i][1].asnumpy().tolist() for i in range(len(ds))] == REC["wikitext_label"]
    assert ds[0][0].dtype == np.int32 and REC["wikitext_dtype"] == "int32"
    import zipfile
    with zipfile.ZipFile(tmp_path / "wikitext-103-v1.zip", "w") as zf:
        zf.write(tmp_path / "wiki.train.tokens", "wikitext-103/wiki.test.tokens")
    assert len(WikiText103(root=str(tmp_path), segment="test", seq_len=4)) == len(ds)
