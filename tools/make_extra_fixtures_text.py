"""Record MXNet 1.9.1's mx.contrib.text on a small corpus and embedding files written here:
token counts, vocabularies, CustomEmbedding/CompositeEmbedding vectors, updates, and the
WikiText2 dataset built from a local wiki.train.tokens.

Run with the side venv:  /work/mxref/bin/python tools/make_extra_fixtures_text.py
Writes tests/fixtures/extra/contrib_text/.
"""
import json
import os
import shutil
import tempfile

import mxnet as mx
import numpy as np
from mxnet.contrib import text

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "extra", "contrib_text")
CORPUS = "the cat sat on the mat\nthe dog ate the cat food\n\nA Cat and a dog\n"
EMB_A = "the 0.1 0.2\ncat 0.3 0.4\ndog -0.5 0.6\n<unk> 9 9\nthe 7 7\nheader 3\n"
EMB_B = "cat 1 2 3\nmat 4 5 6\nfood 7 8 9\n"


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, content in (("corpus.txt", CORPUS), ("emb_a.txt", EMB_A), ("emb_b.txt", EMB_B)):
        with open(os.path.join(OUT, name), "w") as f:
            f.write(content)
    rec = {}
    counter = text.utils.count_tokens_from_str(CORPUS)
    rec["counts"] = dict(counter)
    rec["counts_lower"] = dict(text.utils.count_tokens_from_str(CORPUS, to_lower=True))
    vocab = text.vocab.Vocabulary(counter, most_freq_count=4, min_freq=1, reserved_tokens=["<pad>"])
    rec["vocab"] = vocab.idx_to_token
    rec["vocab_min2"] = text.vocab.Vocabulary(counter, min_freq=2).idx_to_token
    rec["to_indices"] = vocab.to_indices(["the", "zebra", "cat"])
    rec["to_tokens"] = vocab.to_tokens([0, 1, 2])
    a = text.embedding.CustomEmbedding(os.path.join(OUT, "emb_a.txt"))
    rec["a_tokens"] = a.idx_to_token
    rec["a_vecs"] = a.idx_to_vec.asnumpy().tolist()
    rec["a_get"] = a.get_vecs_by_tokens(["cat", "zebra", "Dog"], lower_case_backup=True).asnumpy().tolist()
    b = text.embedding.CustomEmbedding(os.path.join(OUT, "emb_b.txt"), vocabulary=vocab)
    rec["b_tokens"] = b.idx_to_token
    rec["b_vecs"] = b.idx_to_vec.asnumpy().tolist()
    comp = text.embedding.CompositeEmbedding(vocab, [a, b])
    rec["comp_vecs"] = comp.idx_to_vec.asnumpy().tolist()
    comp.update_token_vectors(["cat", "the"], mx.nd.ones((2, 5)) * 2)
    rec["comp_updated"] = comp.idx_to_vec.asnumpy().tolist()
    root = tempfile.mkdtemp()
    try:
        shutil.copy(os.path.join(OUT, "corpus.txt"), os.path.join(root, "wiki.train.tokens"))
        import mxnet.gluon.contrib.data.text as wt
        wt.check_sha1 = lambda path, sha1: True  # the synthetic file stands for the real one
        ds = wt.WikiText2(root=root, segment="train", seq_len=4)
        rec["wikitext_vocab"] = ds.vocabulary.idx_to_token
        rec["wikitext_data"] = [ds[i][0].asnumpy().tolist() for i in range(len(ds))]
        rec["wikitext_label"] = [ds[i][1].asnumpy().tolist() for i in range(len(ds))]
        rec["wikitext_dtype"] = str(ds[0][0].dtype.__name__)
    except Exception as err:  # pylint: disable=broad-except
        rec["wikitext_error"] = "%s: %s" % (type(err).__name__, err)
    finally:
        shutil.rmtree(root)
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump(rec, f, indent=1, sort_keys=True)
    print(sorted(rec))


if __name__ == "__main__":
    main()
