"""GluonNLP 0.10.0 workflows through ``import mxnet`` (neogluon), against MXNet 1.9.1.

Each ``wf_*`` function is what a GluonNLP user runs (fine-tune a small BERT, train a
Transformer NMT step and beam-search it, train language models, train sparse embeddings,
evaluate word embeddings, batch data; BERTAdam/LAMB steps, GluonNLP's losses and metrics,
decoding with the samplers, AWD-LSTM training, BERT export and re-import, text transforms
and samplers, the model blocks): parameters come from a seeded numpy generator and the
inputs are fixed, so the numbers are deterministic. ``tools/make_client_fixtures_gluonnlp.py``
runs the same functions under real MXNet 1.9.1 and records their results in
``tests/fixtures/extra/gluonnlp/<workflow>.npz``; here they run on neogluon and must agree.
Skipped where GluonNLP is not installed: run it with the interpreter of the environment
``tools/install_clients.sh`` makes (CI's venv has no clients).
"""
import os
import tempfile

import numpy as np

try:
    import pytest
except ImportError:  # the MXNet venv of tools/make_client_fixtures_gluonnlp.py has no pytest
    pytest = None

if pytest is not None:
    pytest.importorskip("gluonnlp")

import mxnet as mx  # noqa: E402
import gluonnlp as nlp  # noqa: E402

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "extra", "gluonnlp")
WORDS = "the quick brown fox jumps over the lazy dog the end a b c d e f g h i j k l m n o p".split()


def _np(x):
    return x.asnumpy() if hasattr(x, "asnumpy") else np.asarray(x)


def _seed_params(block, seed, scale=0.05):
    """Every parameter of ``block`` from a seeded normal, in registration order."""
    rng = np.random.RandomState(seed)
    for p in block.collect_params().values():
        value = mx.nd.array(rng.normal(0, scale, p.shape).astype(np.float32))
        p.set_data(value.tostype("row_sparse") if getattr(p, "_stype", "default") == "row_sparse" else value)


def _vocabs():
    counter = nlp.data.count_tokens(WORDS)
    return nlp.Vocab(counter), nlp.vocab.BERTVocab(counter)


def _small_bert(bvocab, **kw):
    model, _ = nlp.model.get_model("bert_12_768_12", dataset_name=None, vocab=bvocab, pretrained=False,
                                   num_layers=2, units=16, hidden_size=32, num_heads=2, max_length=16,
                                   embed_size=16, hparam_allow_override=True, dropout=0.0, **kw)
    return model


def wf_bert_finetune():
    """BERT from get_model (pretrained=False): MLM/NSP heads imperative, hybridized, exported and
    re-imported; then a BERTClassifier fine-tuned two steps with BERTAdam, gradient
    accumulation (grad_req 'add'), no weight decay on LayerNorm/bias and clip_grad_global_norm."""
    out, tmp = {}, tempfile.mkdtemp()
    _, bvocab = _vocabs()
    rng = np.random.RandomState(42)
    tok = mx.nd.array(rng.randint(0, len(bvocab), (4, 8)))
    types = mx.nd.array(rng.randint(0, 2, (4, 8)))
    valid = mx.nd.array([8, 5, 6, 3])
    masked = mx.nd.array([[1, 2], [3, 4], [0, 5], [1, 1]])
    bert = _small_bert(bvocab)
    bert.initialize()
    bert(tok, types, valid, masked)
    _seed_params(bert, 1)
    for i, o in enumerate(bert(tok, types, valid, masked)):
        out["heads%d" % i] = _np(o)
    bert.hybridize()
    for i, o in enumerate(bert(tok, types, valid, masked)):
        out["hybrid%d" % i] = _np(o)
    prefix = os.path.join(tmp, "bert")
    bert.export(prefix)
    imported = mx.gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data0", "data1", "data2", "data3"],
                                            prefix + "-0000.params")
    out["imported_mlm"] = _np(imported(tok, types, valid, masked)[3])

    encoder = _small_bert(bvocab, use_decoder=False, use_classifier=False)
    encoder.initialize()
    encoder(tok, types, valid)
    _seed_params(encoder, 2)
    cls = nlp.model.BERTClassifier(encoder, num_classes=3, dropout=0.0)
    cls.classifier.initialize()
    cls(tok, types, valid)
    _seed_params(cls.classifier, 3)
    cls.hybridize(static_alloc=True)
    for p in cls.collect_params(".*beta|.*gamma|.*bias").values():
        p.wd_mult = 0.0
    params = [p for p in cls.collect_params().values() if p.grad_req != "null"]
    for p in params:
        p.grad_req = "add"
    trainer = mx.gluon.Trainer(cls.collect_params(), "bertadam",
                               {"learning_rate": 5e-3, "epsilon": 1e-6, "wd": 0.01}, update_on_kvstore=False)
    loss_fn = mx.gluon.loss.SoftmaxCELoss()
    label = mx.nd.array([0, 2, 1, 2])
    losses, norms = [], []
    for step in range(2):
        trainer.set_learning_rate(5e-3 * (step + 1) / 2)
        for part in (slice(0, 2), slice(2, 4)):
            with mx.autograd.record():
                loss = loss_fn(cls(tok[part], types[part], valid[part]), label[part]).mean()
            loss.backward()
            losses.append(loss.asscalar())
        trainer.allreduce_grads()
        norms.append(float(_np(nlp.utils.clip_grad_global_norm(params, 1.0)).reshape(-1)[0]))
        trainer.update(2)
        for p in params:
            p.zero_grad()
    out["losses"], out["norms"] = np.array(losses), np.array(norms)
    out["logits"] = _np(cls(tok, types, valid))
    cls.save_parameters(os.path.join(tmp, "cls.params"))
    again = nlp.model.BERTClassifier(_small_bert(bvocab, use_decoder=False, use_classifier=False),
                                     num_classes=3, dropout=0.0)
    again.load_parameters(os.path.join(tmp, "cls.params"))
    out["reloaded_logits"] = _np(again(tok, types, valid))
    return out


def wf_roberta():
    """RoBERTa (no token types) with its MLM decoder, imperative and hybridized, and a
    RoBERTaClassifier."""
    out = {}
    _, bvocab = _vocabs()
    rng = np.random.RandomState(7)
    tok = mx.nd.array(rng.randint(0, len(bvocab), (2, 8)))
    valid, masked = mx.nd.array([8, 5]), mx.nd.array([[1, 2], [3, 4]])
    def roberta(**kw):
        return nlp.model.get_model("roberta_12_768_12", dataset_name=None, vocab=bvocab, pretrained=False,
                                   num_layers=2, units=16, hidden_size=32, num_heads=2, max_length=16,
                                   embed_size=16, hparam_allow_override=True, dropout=0.0, **kw)[0]
    model = roberta()
    model.initialize()
    model(tok, valid, masked)
    _seed_params(model, 2)
    seq, mlm = model(tok, valid, masked)
    out["seq"], out["mlm"] = _np(seq), _np(mlm)
    model.hybridize()
    out["hybrid_mlm"] = _np(model(tok, valid, masked)[1])
    cls = nlp.model.RoBERTaClassifier(roberta(use_decoder=False), num_classes=2, dropout=0.0)
    cls.initialize()
    cls(tok, valid)
    _seed_params(cls, 5)
    out["cls"] = _np(cls(tok, valid))
    return out


def wf_transformer_nmt():
    """Transformer NMT (encoder, decoder, one-step decoder, shared tied embeddings): forward,
    MaskedSoftmaxCELoss with and without LabelSmoothing, two Adam steps hybridized, then beam
    search over the one-step decoder."""
    out = {}
    vocab, _ = _vocabs()
    V = len(vocab)
    from gluonnlp.model.transformer import get_transformer_encoder_decoder
    from gluonnlp.model.translation import NMTModel
    enc, dec, one_step = get_transformer_encoder_decoder(num_layers=2, units=16, hidden_size=32, num_heads=2,
                                                         dropout=0.0, max_src_length=20, max_tgt_length=20)
    model = NMTModel(src_vocab=vocab, tgt_vocab=vocab, encoder=enc, decoder=dec, one_step_ahead_decoder=one_step,
                     share_embed=True, embed_size=16, tie_weights=True, prefix="transformer_")
    model.initialize(mx.init.Xavier())
    rng = np.random.RandomState(15)
    src, tgt = mx.nd.array(rng.randint(0, V, (2, 7))), mx.nd.array(rng.randint(0, V, (2, 6)))
    src_len, tgt_len = mx.nd.array([7, 4]), mx.nd.array([6, 3])
    model(src, tgt, src_len, tgt_len)
    _seed_params(model, 7)
    logits, _ = model(src, tgt, src_len, tgt_len)
    out["logits"] = _np(logits)
    loss_fn = nlp.loss.MaskedSoftmaxCELoss()
    out["loss"] = _np(loss_fn(logits, tgt, tgt_len))
    smooth = nlp.loss.LabelSmoothing(epsilon=0.1, units=V)
    out["smoothed_loss"] = _np(nlp.loss.MaskedSoftmaxCELoss(sparse_label=False)(logits, smooth(tgt), tgt_len))
    model.hybridize()
    trainer = mx.gluon.Trainer(model.collect_params(), "adam", {"learning_rate": 1e-3})
    losses = []
    for _ in range(2):
        with mx.autograd.record():
            o, _ = model(src, tgt[:, :-1], src_len, tgt_len - 1)
            loss = loss_fn(o, tgt[:, 1:], tgt_len - 1).sum()
        loss.backward()
        trainer.step(2)
        losses.append(loss.asscalar())
    out["losses"] = np.array(losses)
    enc_out, _ = model.encode(src, valid_length=src_len)
    out["encoded"] = _np(enc_out)
    states = model.decoder.init_state_from_encoder(enc_out, src_len)

    def decode_logprob(step_input, step_states):  # as the NMT scripts' BeamSearchTranslator
        step_out, step_states, _ = model.decode_step(step_input, step_states)
        return mx.nd.log_softmax(step_out), step_states

    sampler = nlp.model.BeamSearchSampler(beam_size=3, decoder=decode_logprob, eos_id=vocab[vocab.eos_token],
                                          scorer=nlp.model.BeamSearchScorer(alpha=0.6, K=5), max_length=6)
    samples, scores, lengths = sampler(mx.nd.array([vocab[vocab.bos_token]] * 2), states)
    out["beam_samples"], out["beam_scores"], out["beam_lengths"] = _np(samples), _np(scores), _np(lengths)
    return out


def wf_language_models():
    """Word-level LMs: standard_lstm_lm_200 trained two SGD steps with clip_global_norm, the
    cache LM on top of it, an AWD-LSTM hybridized, its export and save/load_parameters."""
    out, tmp = {}, tempfile.mkdtemp()
    vocab, _ = _vocabs()
    V = len(vocab)
    rng = np.random.RandomState(9)
    x = mx.nd.array(rng.randint(0, V, (5, 2)))
    lm, _ = nlp.model.get_model("standard_lstm_lm_200", vocab=vocab, pretrained=False, dropout=0)
    lm.initialize()
    lm(x, lm.begin_state(batch_size=2, func=mx.nd.zeros))
    _seed_params(lm, 19)
    trainer = mx.gluon.Trainer(lm.collect_params(), "sgd", {"learning_rate": 1})
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    losses = []
    for _ in range(2):
        hidden = lm.begin_state(batch_size=2, func=mx.nd.zeros)
        with mx.autograd.record():
            o, hidden = lm(x, hidden)
            loss = loss_fn(o.reshape(-3, -1), x.reshape(-1)).mean()
        loss.backward()
        mx.gluon.utils.clip_global_norm([p.grad() for p in lm.collect_params().values()], 0.25)
        trainer.step(1)
        losses.append(loss.asscalar())
    out["lstm_losses"] = np.array(losses)
    cache = nlp.model.train.CacheCell(lm, V, window=3, theta=0.6, lambdas=0.2)
    probs, _, _, _ = cache(x[:, :1], x[:, :1], None, None, lm.begin_state(batch_size=1, func=mx.nd.zeros))
    out["cache_probs"] = _np(probs)
    awd, _ = nlp.model.get_model("awd_lstm_lm_600", vocab=vocab, pretrained=False, dropout=0, weight_drop=0,
                                 drop_h=0, drop_i=0, drop_e=0)
    awd.initialize()
    awd(x, awd.begin_state(batch_size=2, func=mx.nd.zeros))
    _seed_params(awd, 17)
    out["awd"] = _np(awd(x, awd.begin_state(batch_size=2, func=mx.nd.zeros))[0])
    awd.hybridize()
    out["awd_hybrid"] = _np(awd(x, awd.begin_state(batch_size=2, func=mx.nd.zeros))[0])
    awd.save_parameters(os.path.join(tmp, "awd.params"))
    again, _ = nlp.model.get_model("awd_lstm_lm_600", vocab=vocab, pretrained=False, dropout=0, weight_drop=0,
                                   drop_h=0, drop_i=0, drop_e=0)
    again.load_parameters(os.path.join(tmp, "awd.params"))
    out["awd_reloaded"] = _np(again(x, again.begin_state(batch_size=2, func=mx.nd.zeros))[0])
    return out


def wf_big_rnn_sparse():
    """The GBW BigRNN training model (SparseEmbedding + SparseISDense, row_sparse weights and
    gradients), two SGD steps, then the evaluation BigRNN sharing its parameters."""
    out = {}
    V = 20
    rng = np.random.RandomState(1)
    x, y = mx.nd.array(rng.randint(0, V, (4, 2))), mx.nd.array(rng.randint(0, V, (4, 2)))
    sampled = (mx.nd.array([1, 5, 7, 3, 11]), mx.nd.array([.1, .2, .3, .2, .1]), mx.nd.ones((4, 2)) * 0.2)
    for sparse in (True, False):
        model = nlp.model.train.BigRNN(V, 8, 12, 1, 6, num_sampled=5, sparse_weight=sparse, sparse_grad=True,
                                       prefix="big_")
        model.initialize(mx.init.Uniform(0.1))
        trainer = mx.gluon.Trainer(model.collect_params(), "sgd", {"learning_rate": 0.5})
        model(x, y, model.begin_state(batch_size=2, func=mx.nd.zeros), sampled)
        _seed_params(model, 2, 0.2)
        loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
        for step in range(2):
            with mx.autograd.record():
                o, _, target = model(x, y, model.begin_state(batch_size=2, func=mx.nd.zeros), sampled)
                loss = loss_fn(o, target).mean()
            loss.backward()
            trainer.step(1)
            out["sparse%d_loss%d" % (sparse, step)] = _np(loss)
        out["sparse%d_logits" % sparse], out["sparse%d_target" % sparse] = _np(o), _np(target)
        embed = list(model.collect_params().values())[0]
        out["sparse%d_embed" % sparse] = _np(embed.row_sparse_data(mx.nd.arange(V)) if sparse else embed.data())
        if not sparse:
            evaluation = nlp.model.BigRNN(V, 8, 12, 1, 6, prefix="big_", params=model.collect_params())
            out["eval"] = _np(evaluation(x, evaluation.begin_state(batch_size=2, func=mx.nd.zeros))[0])
    return out


def wf_parallel_big_rnn():
    """Data-parallel BigRNN on two CPU contexts: split_and_load, ParallelBigRNN through
    nlp.utils.Parallel, allreduce_grads and update (each context's gradients its own)."""
    out = {}
    V, ctxs = 20, [mx.cpu(0), mx.cpu(1)]
    from gluonnlp.model.train.language_model import ParallelBigRNN
    model = nlp.model.train.BigRNN(V, 8, 12, 1, 6, num_sampled=5, sparse_weight=False, sparse_grad=False,
                                   prefix="pb_")
    model.initialize(mx.init.Uniform(0.1), ctx=ctxs)
    sampled = (mx.nd.array([1, 5, 7, 3, 11]), mx.nd.array([.1, .2, .3, .2, .1]), mx.nd.ones((4, 2)) * 0.2)
    model(mx.nd.ones((4, 2)), mx.nd.ones((4, 2)), model.begin_state(batch_size=2, func=mx.nd.zeros), sampled)
    _seed_params(model, 2, 0.2)
    trainer = mx.gluon.Trainer(model.collect_params(), "sgd", {"learning_rate": 0.5}, update_on_kvstore=False)
    parallel = nlp.utils.Parallel(len(ctxs), ParallelBigRNN(model, mx.gluon.loss.SoftmaxCrossEntropyLoss(), 4))
    rng = np.random.RandomState(1)
    x, y = mx.nd.array(rng.randint(0, V, (4, 4))), mx.nd.array(rng.randint(0, V, (4, 4)))
    split = [mx.gluon.utils.split_and_load(a, ctxs, batch_axis=1) for a in (x, y, mx.nd.ones((4, 4)))]
    for i, c in enumerate(ctxs):
        parallel.put((split[0][i], split[1][i], split[2][i], [s.as_in_context(c) for s in sampled],
                      model.begin_state(batch_size=2, func=mx.nd.zeros, ctx=c)))
    losses = [parallel.get()[1] for _ in ctxs]
    out["losses"] = np.sort([float(loss.sum().asscalar()) for loss in losses])
    weight = list(model.collect_params().values())[1]
    out["grads"] = np.stack([_np(weight.grad(c)) for c in ctxs])
    trainer.allreduce_grads()
    trainer.update(1)
    out["updated"] = np.stack([_np(weight.data(c)) for c in ctxs])
    return out


def wf_word_embeddings():
    """TokenEmbedding from a local text file, attached to a Vocab, serialized, similarity and
    analogy evaluation (hybridized too), and a skip-gram-like AdaGrad step on a sparse-gradient
    CSREmbeddingModel fed by EmbeddingCenterContextBatchify."""
    out, tmp = {}, tempfile.mkdtemp()
    words = ["king", "queen", "man", "woman", "apple", "orange", "paris", "france"]
    vecs = np.random.RandomState(3).normal(size=(len(words), 6)).astype(np.float32)
    path = os.path.join(tmp, "emb.txt")
    with open(path, "w") as f:
        for w, v in zip(words, vecs):
            f.write(w + " " + " ".join("%.5f" % x for x in v) + "\n")
    emb = nlp.embedding.TokenEmbedding.from_file(path)
    vocab = nlp.Vocab(nlp.data.count_tokens(words + ["zzz"]))
    vocab.set_embedding(emb)
    out["vocab_vectors"] = _np(vocab.embedding.idx_to_vec)
    emb.serialize(os.path.join(tmp, "emb.npz"))
    out["deserialized"] = _np(nlp.embedding.TokenEmbedding.deserialize(os.path.join(tmp, "emb.npz")).idx_to_vec)
    sim = nlp.embedding.evaluation.WordEmbeddingSimilarity(idx_to_vec=vocab.embedding.idx_to_vec,
                                                           similarity_function="CosineSimilarity")
    sim.initialize()
    w1, w2 = mx.nd.array(vocab[["king", "man", "apple"]]), mx.nd.array(vocab[["queen", "woman", "orange"]])
    out["similarity"] = _np(sim(w1, w2))
    sim.hybridize()
    out["similarity_hybrid"] = _np(sim(w1, w2))
    a, b, c = (mx.nd.array(vocab[ws]) for ws in (["man", "paris"], ["king", "france"], ["woman", "apple"]))
    for fn in ("ThreeCosMul", "ThreeCosAdd"):
        analogy = nlp.embedding.evaluation.WordEmbeddingAnalogy(idx_to_vec=vocab.embedding.idx_to_vec,
                                                                analogy_function=fn, k=2,
                                                                exclude_question_words=True)
        analogy.initialize()
        analogy.hybridize()
        out["analogy_" + fn] = _np(analogy(a, b, c))
    t2i = {w: i for i, w in enumerate("a b c d e f g h".split())}
    model = nlp.model.train.CSREmbeddingModel(t2i, 4, sparse_grad=True)
    model.initialize()
    model.weight.set_data(mx.nd.array(np.random.RandomState(5).normal(0, .1, (8, 4))))
    trainer = mx.gluon.Trainer(model.collect_params(), "adagrad", {"learning_rate": 0.1})
    batches = nlp.data.batchify.EmbeddingCenterContextBatchify(batch_size=4, window_size=2, shuffle=False,
                                                               reduce_window_size_randomly=False)
    center, (data, row, col) = next(iter(batches([[0, 1, 2, 3, 4], [5, 6, 7, 1]])))
    n = len(center)
    center_csr = mx.nd.sparse.csr_matrix((np.ones(n), (np.arange(n), center.ravel().astype(int))), shape=(n, 8),
                                         dtype="float32")
    context_csr = mx.nd.sparse.csr_matrix((data, (row, col)), shape=(n, 8), dtype="float32")
    with mx.autograd.record():
        loss = (model(center_csr) * model(context_csr)).sum(axis=1).sigmoid().log().sum()
    loss.backward()
    trainer.step(1)
    out["sg_loss"], out["sg_weight"] = _np(loss), _np(model.weight.data())
    return out


def wf_data_pipeline():
    """FixedBucketSampler with Tuple(Pad, Stack) through a DataLoader, BERTSentenceTransform
    on pairs, CorpusBPTTBatchify and StreamBPTTBatchify over local files."""
    out, tmp = {}, tempfile.mkdtemp()
    rng = np.random.RandomState(0)
    lengths = rng.randint(3, 30, 50).tolist()
    data = [(rng.randint(0, 100, n).astype("int32"), rng.randint(0, 5)) for n in lengths]
    sampler = nlp.data.FixedBucketSampler(lengths, batch_size=8, num_buckets=4, shuffle=False)
    batchify = nlp.data.batchify.Tuple(nlp.data.batchify.Pad(axis=0, pad_val=-1, ret_length=True),
                                       nlp.data.batchify.Stack("float32"))
    loader = mx.gluon.data.DataLoader(mx.gluon.data.SimpleDataset(data), batch_sampler=sampler,
                                      batchify_fn=batchify)
    shapes, first = [], None
    for (x, x_len), y in loader:
        shapes.append(x.shape)
        if first is None:
            first = (_np(x), _np(x_len), _np(y))
    out["batch_shapes"] = np.array(shapes)
    out["first_x"], out["first_len"], out["first_y"] = first
    counter = nlp.data.count_tokens("hello world un ##ic ##ode text , !".split())
    tokenizer = nlp.data.BERTTokenizer(nlp.vocab.BERTVocab(counter), lower=True)
    ids, valid, segments = nlp.data.BERTSentenceTransform(tokenizer, max_seq_length=10, pair=True)(
        ("Hello, world!", "unicode text"))
    out["bert_ids"], out["bert_valid"], out["bert_segments"] = np.asarray(ids), np.asarray(valid), segments
    for i in range(3):
        with open(os.path.join(tmp, "c%d.txt" % i), "w") as f:
            f.write("the quick brown fox\njumps over the lazy dog\n\nhello world %d\n" % i)
    pattern = os.path.join(tmp, "c*.txt")
    tokens = [w for ds in nlp.data.SimpleDatasetStream(nlp.data.CorpusDataset, pattern, file_sampler="sequential")
              for s in ds for w in s]
    vocab = nlp.Vocab(nlp.data.count_tokens(tokens), bos_token=None)
    corpus = nlp.data.CorpusDataset(os.path.join(tmp, "c0.txt"), eos="<eos>", flatten=True)
    bptt = nlp.data.batchify.CorpusBPTTBatchify(vocab, seq_len=3, batch_size=2, last_batch="discard")
    out["bptt"] = np.stack([np.concatenate([_np(a), _np(b)]) for a, b in bptt(corpus)])
    stream = nlp.data.SimpleDatasetStream(nlp.data.CorpusDataset, pattern, file_sampler="sequential", eos="<eos>")
    sbptt = nlp.data.batchify.StreamBPTTBatchify(vocab, seq_len=3, batch_size=2, sampler="sequential",
                                                 last_batch="discard")
    out["stream_bptt"] = np.stack([np.concatenate([_np(a), _np(b)]) for a, b in sbptt(stream)])
    return out


class _GRUDecoder(mx.gluon.HybridBlock):
    """A one-step decoder for the samplers: embedding, GRU cell, log-softmax over 10 words."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.emb = mx.gluon.nn.Embedding(10, 8)
            self.cell = mx.gluon.rnn.GRUCell(8)
            self.out = mx.gluon.nn.Dense(10, flatten=False)

    def hybrid_forward(self, F, x, s):
        o, ns = self.cell(self.emb(x), [s])
        return F.log_softmax(self.out(o)), ns[0]


def _gru_decoder():
    dec = _GRUDecoder()
    dec.initialize()
    dec(mx.nd.array([1, 2]), mx.nd.zeros((2, 8)))
    _seed_params(dec, 21, 0.5)
    return dec


def wf_attention_and_beam_search():
    """The attention cells (multi-head, MLP, dot product) with a mask, imperative and
    hybridized, and BeamSearchSampler over a small GRU decoder."""
    out = {}
    rng = np.random.RandomState(5)
    q, k = mx.nd.array(rng.normal(size=(2, 3, 8))), mx.nd.array(rng.normal(size=(2, 4, 8)))
    mask = mx.nd.array(rng.randint(0, 2, (2, 3, 4)))
    mask[:, :, 0] = 1
    cells = [("multi_head", nlp.model.MultiHeadAttentionCell(nlp.model.DotProductAttentionCell(scaled=True),
                                                             8, 8, 8, 2)),
             ("mlp", nlp.model.MLPAttentionCell(units=6, normalized=True)),
             ("dot", nlp.model.DotProductAttentionCell(units=8, luong_style=True, scaled=False, normalized=True))]
    for name, cell in cells:
        cell.initialize()
        cell(q, k, k, mask)
        _seed_params(cell, 9, 0.2)
        o, w = cell(q, k, None, mask)
        out[name + "_out"], out[name + "_weights"] = _np(o), _np(w)
        cell.hybridize()
        out[name + "_hybrid"] = _np(cell(q, k, None, mask)[0])
    dec = _gru_decoder()
    start, state = mx.nd.array([2, 3]), mx.nd.array(np.random.RandomState(1).normal(size=(2, 8)))
    for alpha, beam in ((0.0, 3), (0.6, 4)):
        sampler = nlp.model.BeamSearchSampler(beam_size=beam, decoder=dec, eos_id=1, max_length=6,
                                              scorer=nlp.model.BeamSearchScorer(alpha=alpha, K=5.0))
        samples, scores, lengths = sampler(start, state)
        out["beam%d_samples" % beam], out["beam%d_scores" % beam] = _np(samples), _np(scores)
        out["beam%d_lengths" % beam] = _np(lengths)
    return out


def wf_elmo():
    """An ELMo BiLM (character CNN, highway, LSTMP cells with clipping) imperative and
    hybridized. (MXNet 1.9.1 records it with MKLDNN off: its MKLDNN build fails to read
    these outputs back.)"""
    out = {}
    model = nlp.model.ELMoBiLM(rnn_type="lstmpc", output_size=16, filters=[[1, 8], [2, 16]], char_embed_size=8,
                               char_vocab_size=262, num_highway=1, conv_layer_activation="relu",
                               max_chars_per_token=10, input_size=16, hidden_size=32, proj_size=16, num_layers=2,
                               cell_clip=3, proj_clip=3, skip_connection=True)
    model.initialize()
    chars = mx.nd.array(np.random.RandomState(4).randint(0, 262, (2, 5, 10)))
    model(chars, model.begin_state(mx.nd.zeros, batch_size=2))
    _seed_params(model, 11, 0.1)
    layers, _ = model(chars, model.begin_state(mx.nd.zeros, batch_size=2))
    for i, o in enumerate(layers):
        out["layer%d" % i] = _np(o.copy())
    model.hybridize()
    layers, _ = model(chars, model.begin_state(mx.nd.zeros, batch_size=2))
    out["hybrid_top"] = _np(layers[-1].copy())
    return out


class _Scale(mx.gluon.HybridBlock):
    """Parameters without a FullyConnected (MXNet's CPU build has no float16 one)."""

    def __init__(self, n, **kwargs):
        super().__init__(**kwargs)
        for i in range(n):
            setattr(self, "w%d" % i, self.params.get("w%d" % i, shape=(3, 4)))

    def hybrid_forward(self, F, x, **ws):
        for k in sorted(ws):
            x = F.tanh(x * ws[k])
        return x


def wf_optimizers():
    """BERTAdam and LAMB through gluon.Trainer (aggregated updates), float32 and float16
    weights with multi_precision, fixed gradients: three steps each, the weights after them
    and the gradients left behind (MXNet's aggregated AdamW does not overwrite them); then
    BERTAdam's update called directly, and a two-context Trainer on a 'device' kvstore."""
    out = {}
    rng = np.random.RandomState(4)
    grads = [[rng.normal(0, 1, (3, 4)).astype(np.float32) for _ in range(6)] for _ in range(3)]
    cases = (("bertadam", {"learning_rate": 0.01, "wd": 0.01}, "float32"),
             ("bertadam", {"learning_rate": 0.01, "wd": 0.01, "clip_gradient": 0.5}, "float32"),
             ("bertadam", {"learning_rate": 0.01, "wd": 0.01, "multi_precision": True}, "float16"),
             ("lamb", {"learning_rate": 0.01, "wd": 0.01}, "float32"),
             ("lamb", {"learning_rate": 0.01, "wd": 0.01, "bias_correction": False, "lower_bound": 1e-3,
                       "upper_bound": 10.0}, "float32"),
             ("lamb", {"learning_rate": 0.01, "wd": 0.01, "multi_precision": True}, "float16"))
    for i, (name, kwargs, dtype) in enumerate(cases):
        net = _Scale(6)
        net.initialize()
        _seed_params(net, 3, 0.5)
        net.cast(dtype)
        params = list(net.collect_params().values())
        trainer = mx.gluon.Trainer(net.collect_params(), name, dict(kwargs))
        for step in grads:
            with mx.autograd.record():
                loss = net(mx.nd.ones((3, 4), dtype=dtype)).sum()
            loss.backward()  # (marks the gradients fresh; they are then replaced)
            for p, g in zip(params, step):
                p.grad()[:] = mx.nd.array(g, dtype=dtype)
            trainer.step(2)
        out["%s%d_weights" % (name, i)] = np.stack([_np(p.data()).astype(np.float32) for p in params])
        out["%s%d_grads" % (name, i)] = np.stack([_np(p.grad()).astype(np.float32) for p in params])
    opt = nlp.optimizer.BERTAdam(learning_rate=0.1, wd=0.01)
    w, g = mx.nd.array([1.0, -2.0, 3.0]), mx.nd.array([0.5, 0.1, -0.3])
    state = opt.create_state(0, w)
    for _ in range(2):
        opt.update(0, w, g, state)
    out["direct"] = _np(w)
    ctxs = [mx.cpu(0), mx.cpu(1)]
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(5, in_units=4, activation="tanh"), mx.gluon.nn.Dense(3, in_units=5))
    net.initialize(ctx=ctxs)
    _seed_params(net, 3, 0.5)
    trainer = mx.gluon.Trainer(net.collect_params(), "bertadam", {"learning_rate": 0.01, "wd": 0.01},
                               kvstore="device", update_on_kvstore=True)
    xs = mx.gluon.utils.split_and_load(mx.nd.array(rng.normal(size=(4, 4))), ctxs)
    for _ in range(2):
        with mx.autograd.record():
            losses = [(net(x) ** 2).sum() for x in xs]
        for loss in losses:
            loss.backward()
        trainer.step(4)
    out["kvstore"] = np.concatenate([_np(p.data(ctxs[1])).ravel() for p in net.collect_params().values()])
    return out


def wf_losses_and_metrics():
    """GluonNLP's losses (AR/TAR, masked softmax CE, label smoothing) imperative and
    hybridized, their gradients; the hybridized TAR loss fails in MXNet 1.9.1 (it slices a
    one-output symbol); MaskedAccuracy, LengthNormalizedLoss, grad_global_norm and
    clip_grad_global_norm (with an infinite gradient too)."""
    out = {}
    rng = np.random.RandomState(0)
    x = mx.nd.array(rng.normal(size=(4, 3, 5)))
    ar = nlp.loss.ActivationRegularizationLoss(alpha=2.0)
    tar = nlp.loss.TemporalActivationRegularizationLoss(beta=1.5)
    out["ar"], out["tar"] = _np(ar(x)), _np(tar(x))
    out["ar2"], out["tar2"] = _np(ar(x, x * 2)), _np(tar(x, x * 2))
    xx = x.copy()
    xx.attach_grad()
    with mx.autograd.record():
        loss = ar(xx).sum() + tar(xx).sum()
    loss.backward()
    out["ar_tar_grad"] = _np(xx.grad)
    ar.hybridize()
    out["ar_hybrid"] = _np(ar(x))
    tar.hybridize()
    try:
        tar(x)
        out["tar_hybrid_error"] = np.array("")
    except Exception as e:  # pylint: disable=broad-except
        out["tar_hybrid_error"] = np.array(type(e).__name__)
    logits, label = mx.nd.array(rng.normal(size=(2, 4, 6))), mx.nd.array(rng.randint(0, 6, (2, 4)))
    valid = mx.nd.array([4, 2])
    masked = nlp.loss.MaskedSoftmaxCELoss()
    out["masked_ce"] = _np(masked(logits, label, valid))
    masked.hybridize()
    out["masked_ce_hybrid"] = _np(masked(logits, label, valid))
    smooth = nlp.loss.LabelSmoothing(epsilon=0.2, units=6)
    smooth.hybridize()
    out["smoothed"] = _np(smooth(label))
    metric = nlp.metric.MaskedAccuracy()
    metric.update([mx.nd.array([0, 1, 1, 2])], [mx.nd.array([[.1, .9, 0], [.2, .7, .1], [.9, 0, .1], [0, 0, 1]])],
                  [mx.nd.array([1, 1, 0, 1])])
    metric.update(mx.nd.array([1, 1]), mx.nd.array([[.1, .9], [.8, .2]]))
    out["masked_accuracy"] = np.array(metric.get()[1])
    lnl = nlp.metric.LengthNormalizedLoss()
    lnl.update([mx.nd.array([1, 2]), mx.nd.array([3, 4])], [mx.nd.array([0.5, 1.0])])
    out["length_normalized"] = np.array(lnl.get()[1])
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(4, in_units=3), mx.gluon.nn.Dense(2, in_units=4))
    net.initialize()
    _seed_params(net, 7, 0.5)
    with mx.autograd.record():
        loss = (net(mx.nd.array(rng.normal(size=(2, 3)))) ** 2).sum()
    loss.backward()
    params = list(net.collect_params().values())
    out["grad_norm"] = _np(nlp.utils.grad_global_norm(params))
    out["clip_norm"] = _np(nlp.utils.clip_grad_global_norm(params, 0.5))
    out["clipped"] = np.concatenate([_np(p.grad()).ravel() for p in params])
    params[0].grad()[0, 0] = np.inf
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out["inf_norm"] = _np(nlp.utils.clip_grad_global_norm(params, 1.0))
    out["inf_clipped"] = np.isnan(_np(params[1].grad()))
    return out


def _transformer_encoder():
    """A seeded two-layer Transformer encoder and its inputs (batch 2, length 5, valid 5 and 3)."""
    from gluonnlp.model import transformer
    enc = transformer.TransformerEncoder(num_layers=2, units=8, hidden_size=16, num_heads=2, max_length=10,
                                         dropout=0.0, prefix="enc_")
    enc.initialize()
    x, valid = mx.nd.array(np.random.RandomState(0).normal(size=(2, 5, 8))), mx.nd.array([5, 3])
    enc(x, None, valid)
    _seed_params(enc, 3, 0.2)
    return enc, x, valid


def wf_decoding():
    """HybridBeamSearchSampler (imperatively: MXNet 1.9.1's hybridized one fails type
    inference), a hybridized BeamSearchScorer, SequenceSampler at a near-zero temperature
    (argmax), BeamSearchSampler over an LSTM LM with its state_info (layout LNC) and over a
    hybridized Transformer one-step decoder."""
    out = {}
    V, dec = 10, _gru_decoder()
    state = mx.nd.array(np.random.RandomState(1).normal(size=(2, 8)))
    sampler = nlp.model.HybridBeamSearchSampler(batch_size=2, beam_size=3, decoder=dec, eos_id=1, vocab_size=V,
                                                max_length=6, scorer=nlp.model.BeamSearchScorer(alpha=0.6, K=5.0))
    samples, scores, lengths = sampler(mx.nd.array([2, 3]), state)
    out["hybrid_beam_samples"], out["hybrid_beam_scores"] = _np(samples), _np(scores)
    out["hybrid_beam_lengths"] = _np(lengths)
    scorer = nlp.model.BeamSearchScorer(alpha=0.6, K=5.0)
    scorer.initialize()
    log_probs = mx.nd.array(np.random.RandomState(2).normal(size=(2, 3, 5)))
    out["scorer"] = _np(scorer(log_probs, mx.nd.ones((2, 3)), mx.nd.array([3])))
    scorer.hybridize()
    out["scorer_hybrid"] = _np(scorer(log_probs, mx.nd.ones((2, 3)), mx.nd.array([3])))
    greedy = nlp.model.SequenceSampler(beam_size=4, decoder=dec, eos_id=1, max_length=6, temperature=1e-4)
    samples, scores, lengths = greedy(mx.nd.array([2, 3]), state)
    out["greedy_samples"], out["greedy_scores"], out["greedy_lengths"] = _np(samples), _np(scores), _np(lengths)

    vocab, _ = _vocabs()
    lm, _ = nlp.model.get_model("standard_lstm_lm_200", vocab=vocab, pretrained=False, dropout=0)
    lm.initialize()
    lm(mx.nd.ones((2, 2)), lm.begin_state(batch_size=2, func=mx.nd.zeros))
    _seed_params(lm, 19, 0.2)

    class LMDecoder:
        def __call__(self, inputs, states):
            o, states = lm(mx.nd.expand_dims(inputs, axis=0), states)
            return mx.nd.log_softmax(o[0]), states

        def state_info(self, *args, **kwargs):
            return lm.state_info(*args, **kwargs)

    sampler = nlp.model.BeamSearchSampler(beam_size=3, decoder=LMDecoder(), eos_id=vocab["<eos>"],
                                          scorer=nlp.model.BeamSearchScorer(alpha=0, K=5), max_length=5)
    samples, scores, lengths = sampler(mx.nd.array([vocab["the"], vocab["fox"]]),
                                       lm.begin_state(batch_size=2, func=mx.nd.zeros))
    out["lm_samples"], out["lm_scores"], out["lm_lengths"] = _np(samples), _np(scores), _np(lengths)

    from gluonnlp.model import transformer
    enc, x, valid = _transformer_encoder()
    encoded = enc(x, None, valid)[0]
    one_step = transformer.TransformerOneStepDecoder(num_layers=2, units=8, hidden_size=16, num_heads=2,
                                                     max_length=10, dropout=0.0, prefix="dec_")
    proj, emb = mx.gluon.nn.Dense(7, flatten=False, in_units=8), mx.gluon.nn.Embedding(7, 8)
    for block in (one_step, proj, emb):
        block.initialize()
    one_step(emb(mx.nd.array([1, 2])), one_step.init_state_from_encoder(encoded, valid))
    for i, block in enumerate((one_step, proj, emb)):
        _seed_params(block, 4 + i, 0.5)
    one_step.hybridize()

    def step(step_input, states):
        o, states, _ = one_step(emb(step_input), states)
        return mx.nd.log_softmax(proj(o)), states

    sampler = nlp.model.BeamSearchSampler(beam_size=2, decoder=step, eos_id=1, max_length=5,
                                          scorer=nlp.model.BeamSearchScorer(alpha=1.0, K=5))
    samples, scores, lengths = sampler(mx.nd.array([2, 3]), one_step.init_state_from_encoder(encoded, valid))
    out["nmt_samples"], out["nmt_scores"], out["nmt_lengths"] = _np(samples), _np(scores), _np(lengths)
    return out


def wf_awd_training():
    """AWD-LSTM training steps as the word LM script does them (AR and TAR on the dropped and
    encoded states, clip_grad_global_norm, SGD with momentum, hybridized, detached hidden
    states); an AWD-LSTM with weight drop in predict mode; StandardRNN in GRU/tanh/relu modes,
    the evaluation StandardRNN and the CacheCell failing to hybridize (as in MXNet) and
    awd_lstm_lm_1150."""
    out = {}
    vocab, _ = _vocabs()
    V = len(vocab)
    rng = np.random.RandomState(9)
    x, y = mx.nd.array(rng.randint(0, V, (5, 2))), mx.nd.array(rng.randint(0, V, (5, 2)))
    from gluonnlp.model.train import AWDRNN, StandardRNN
    model = AWDRNN("lstm", V, embed_size=8, hidden_size=10, num_layers=2, tie_weights=True, dropout=0,
                   weight_drop=0, drop_h=0, drop_i=0, drop_e=0)
    model.initialize()
    model(x, model.begin_state(batch_size=2, func=mx.nd.zeros))
    _seed_params(model, 4, 0.2)
    model.hybridize()
    trainer = mx.gluon.Trainer(model.collect_params(), "sgd", {"learning_rate": 1.0, "momentum": 0.9})
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    ar, tar = nlp.loss.ActivationRegularizationLoss(2), nlp.loss.TemporalActivationRegularizationLoss(1)
    hidden, losses, norms = model.begin_state(batch_size=2, func=mx.nd.zeros), [], []
    for _ in range(3):
        hidden = [[h.detach() for h in hs] for hs in hidden]
        with mx.autograd.record():
            o, hidden, encoded, dropped = model(x, hidden)
            loss = loss_fn(o.reshape(-3, -1), y.reshape(-1)).mean()
            loss = loss + ar(*dropped[-1:]).mean() + tar(*encoded[-1:]).mean()
        loss.backward()
        norms.append(float(_np(nlp.utils.clip_grad_global_norm(list(model.collect_params().values()), 0.25))
                           .reshape(-1)[0]))
        trainer.step(1)
        losses.append(loss.asscalar())
    out["losses"], out["norms"] = np.array(losses), np.array(norms)
    dropped = AWDRNN("lstm", V, embed_size=8, hidden_size=10, num_layers=2, tie_weights=False, dropout=0.4,
                     weight_drop=0.5, drop_h=0.3, drop_i=0.6, drop_e=0.1)
    dropped.initialize()
    dropped(x, dropped.begin_state(batch_size=2, func=mx.nd.zeros))
    _seed_params(dropped, 5, 0.2)
    out["weight_drop_predict"] = _np(dropped(x, dropped.begin_state(batch_size=2, func=mx.nd.zeros))[0])
    dropped.hybridize()
    out["weight_drop_hybrid"] = _np(dropped(x, dropped.begin_state(batch_size=2, func=mx.nd.zeros))[0])
    for mode in ("gru", "rnn_tanh", "rnn_relu"):
        std = StandardRNN(mode, V, 8, 10, 2, dropout=0, tie_weights=False)
        std.initialize()
        std(x, std.begin_state(batch_size=2, func=mx.nd.zeros))
        _seed_params(std, 6, 0.2)
        out["standard_" + mode] = _np(std(x, std.begin_state(batch_size=2, func=mx.nd.zeros))[0])
    evaluation, _ = nlp.model.get_model("standard_lstm_lm_200", vocab=vocab, pretrained=False)
    evaluation.initialize()
    evaluation.hybridize()  # its hybrid_forward calls nd.Dropout: MXNet asserts an NDArray argument
    try:
        evaluation(x, evaluation.begin_state(batch_size=2, func=mx.nd.zeros))
        out["evaluation_hybrid_error"] = np.array("")
    except AssertionError:
        out["evaluation_hybrid_error"] = np.array("AssertionError")
    cache = nlp.model.train.CacheCell(evaluation, V, window=3, theta=0.6, lambdas=0.2)
    cache.hybridize()  # reshape(-3, -2) on a Symbol is shape=-3, reverse=-2: MXNet's parameter error
    try:
        cache(x[:, :1], y[:, :1], None, None, evaluation.begin_state(batch_size=1, func=mx.nd.zeros))
        out["cache_hybrid_error"] = np.array("")
    except mx.base.MXNetError as e:
        out["cache_hybrid_error"] = np.array("reverse" in str(e))
    big, _ = nlp.model.get_model("awd_lstm_lm_1150", vocab=vocab, pretrained=False, dropout=0, weight_drop=0,
                                 drop_h=0, drop_i=0, drop_e=0)
    big.initialize()
    big(x, big.begin_state(batch_size=2, func=mx.nd.zeros))
    _seed_params(big, 8, 0.05)
    out["awd_1150"] = _np(big(x, big.begin_state(batch_size=2, func=mx.nd.zeros))[0])
    return out


def _flatten(outputs):
    """The arrays of nested lists/tuples of outputs, depth first, as numpy."""
    if isinstance(outputs, (list, tuple)):
        return [a for o in outputs for a in _flatten(o)]
    return [_np(outputs)]


def wf_bert_regression_export():
    """A one-output BERTClassifier (regression) fine-tuned two Adam steps hybridized, exported
    at epoch 3 and re-imported (imperative and hybridized); a classifier called without
    valid_length, exported, imported and fine-tuned one SGD step as a SymbolBlock; BERT
    without pooler, without token types (MLM only), with all encodings and attention;
    DistilBERT and ERNIE."""
    out, tmp = {}, tempfile.mkdtemp()
    _, bvocab = _vocabs()
    rng = np.random.RandomState(3)
    tok, types = mx.nd.array(rng.randint(0, len(bvocab), (4, 8))), mx.nd.array(rng.randint(0, 2, (4, 8)))
    valid = mx.nd.array([8, 5, 6, 3])
    encoder = _small_bert(bvocab, use_decoder=False, use_classifier=False)
    reg = nlp.model.BERTClassifier(encoder, num_classes=1, dropout=0.0)
    reg.initialize()
    reg(tok, types, valid)
    _seed_params(reg, 4)
    reg.hybridize()
    trainer = mx.gluon.Trainer(reg.collect_params(), "adam", {"learning_rate": 1e-2})
    target, losses = mx.nd.array([0.5, -1, 2, 0.1]), []
    for _ in range(2):
        with mx.autograd.record():
            loss = mx.gluon.loss.L2Loss()(reg(tok, types, valid), target).mean()
        loss.backward()
        trainer.step(1)
        losses.append(loss.asscalar())
    out["losses"], out["pred"] = np.array(losses), _np(reg(tok, types, valid))
    reg.export(os.path.join(tmp, "reg"), epoch=3)
    imported = mx.gluon.SymbolBlock.imports(os.path.join(tmp, "reg-symbol.json"), ["data0", "data1", "data2"],
                                            os.path.join(tmp, "reg-0003.params"))
    out["imported"] = _np(imported(tok, types, valid))
    imported.hybridize()
    out["imported_hybrid"] = _np(imported(tok, types, valid))
    cls = nlp.model.BERTClassifier(encoder, num_classes=2, dropout=0.0)
    cls.classifier.initialize()
    cls(tok, types)
    _seed_params(cls.classifier, 5)
    cls.hybridize()
    out["no_valid_length"] = _np(cls(tok, types))
    cls.export(os.path.join(tmp, "cls"))
    imported = mx.gluon.SymbolBlock.imports(os.path.join(tmp, "cls-symbol.json"), ["data0", "data1"],
                                            os.path.join(tmp, "cls-0000.params"))
    out["imported_cls"] = _np(imported(tok, types))
    trainer = mx.gluon.Trainer(imported.collect_params(), "sgd", {"learning_rate": 0.1})
    with mx.autograd.record():
        loss = mx.gluon.loss.SoftmaxCELoss()(imported(tok, types), mx.nd.array([0, 1, 1, 0])).mean()
    loss.backward()
    trainer.step(1)
    out["imported_cls_tuned"] = _np(imported(tok, types))
    tok, types, valid, masked = tok[:2], types[:2], valid[:2], mx.nd.array([[1, 2], [3, 4]])
    for i, (kwargs, args) in enumerate((({"use_pooler": False, "use_decoder": False, "use_classifier": False},
                                         (tok, types, valid)),
                                        ({"use_token_type_embed": False, "use_classifier": False},
                                         (tok, None, valid, masked)),
                                        ({"output_all_encodings": True, "use_decoder": False,
                                          "use_classifier": False, "output_attention": True},
                                         (tok, types, valid)))):
        model = _small_bert(bvocab, **kwargs)
        model.initialize()
        model(*args)
        _seed_params(model, 10 + i)
        for j, o in enumerate(_flatten(model(*args))):
            out["variant%d_%d" % (i, j)] = o
        model.hybridize()
        out["variant%d_hybrid" % i] = _flatten(model(*args))[0]
    distil, _ = nlp.model.get_model("distilbert_6_768_12", dataset_name=None, vocab=bvocab, pretrained=False,
                                    num_layers=2, units=16, hidden_size=32, num_heads=2, max_length=16,
                                    embed_size=16, hparam_allow_override=True, dropout=0.0)
    distil.initialize()
    distil(tok, valid)
    _seed_params(distil, 3)
    out["distilbert"] = _np(distil(tok, valid))
    ernie, _ = nlp.model.get_model("ernie_12_768_12", dataset_name=None, vocab=bvocab, pretrained=False,
                                   num_layers=2, units=16, hidden_size=32, num_heads=2, max_length=16,
                                   embed_size=16, hparam_allow_override=True, dropout=0.0, use_decoder=False,
                                   use_classifier=False)
    ernie.initialize()
    ernie(tok, types, valid)
    _seed_params(ernie, 4)
    seq, pooled = ernie(tok, types, valid)
    out["ernie_seq"], out["ernie_pooled"] = _np(seq), _np(pooled)
    return out


def wf_text_data():
    """Tokenizers (BERTTokenizer on a local vocab, BERTBasicTokenizer), ClipSequence,
    PadSequence, BERTSentenceTransform single and pair, the bucket schemes of
    FixedBucketSampler, SortedBucketSampler, CorpusBPTTBatchify keeping the last batch,
    batchify Pad/Stack/Dict/NamedTuple/List, multi-worker DataLoader and ShardedDataLoader,
    PrefetchingStream, slice_sequence, TokenEmbedding assignment, UnigramCandidateSampler's
    tables, NGramHashes/ByteSubwords and ELMoCharVocab."""
    out, tmp = {}, tempfile.mkdtemp()
    counter = nlp.data.count_tokens("hello world un ##ic ##ode text , ! the quick ##ly brown fox".split())
    tokenizer = nlp.data.BERTTokenizer(nlp.vocab.BERTVocab(counter), lower=True)
    text = "Hello, World! Unicode quickly the brownfox \u4f60\u597d caf\u00e9 \t na\u00efve"
    out["bert_tokens"] = np.array(tokenizer(text))
    out["bert_ids"] = np.array(tokenizer.convert_tokens_to_ids(tokenizer(text)))
    out["basic_tokens"] = np.array(nlp.data.BERTBasicTokenizer(lower=False)(text))
    out["clip"] = np.array(nlp.data.ClipSequence(3)([1, 2, 3, 4, 5]))
    out["clip_nd"] = _np(nlp.data.ClipSequence(3)(mx.nd.array([1, 2, 3, 4, 5])))
    out["pad"] = np.array(nlp.data.PadSequence(6, pad_val=-1)([1, 2, 3]))
    out["pad_clip"] = np.array(nlp.data.PadSequence(2, pad_val=-1, clip=True)([1, 2, 3]))
    out["pad_nd"] = _np(nlp.data.PadSequence(6, pad_val=-1)(mx.nd.array([1, 2, 3])))
    ids, valid, segments = nlp.data.BERTSentenceTransform(tokenizer, max_seq_length=12, pair=False)(
        ("Hello quickly brown fox world text",))
    out["sentence"] = np.concatenate([ids, [valid], segments])
    ids, valid, segments = nlp.data.BERTSentenceTransform(tokenizer, max_seq_length=9, pair=True, pad=False)(
        ("Hello quickly brown fox world text", "unicode text the fox"))
    out["sentence_pair"] = np.concatenate([ids, [valid], segments])
    lengths = np.random.RandomState(0).randint(3, 40, 60).tolist()
    for scheme in (nlp.data.ConstWidthBucket(), nlp.data.LinearWidthBucket(), nlp.data.ExpWidthBucket(1.5)):
        sampler = nlp.data.FixedBucketSampler(lengths, batch_size=8, num_buckets=5, bucket_scheme=scheme,
                                              shuffle=False, ratio=0.5)
        name = type(scheme).__name__
        out["buckets_" + name] = np.array([len(b) for b in sampler] + [sum(b) for b in sampler])
        out["bucket_keys_" + name] = np.array(sampler._bucket_keys)  # pylint: disable=protected-access
    sampler = nlp.data.FixedBucketSampler(list(zip(lengths, lengths[::-1])), batch_size=8, num_buckets=4,
                                          shuffle=False)
    out["buckets_pairs"] = np.array([sum(b) for b in sampler])
    out["sorted_buckets"] = np.array([b[0] for b in nlp.data.SortedBucketSampler(lengths, batch_size=8, mult=2,
                                                                                 shuffle=False)])
    path = os.path.join(tmp, "corpus.txt")
    with open(path, "w") as f:
        f.write("the quick brown fox\njumps over the lazy dog\n\nhello world again and again\n")
    corpus = nlp.data.CorpusDataset(path, eos="<eos>", flatten=True)
    vocab = nlp.Vocab(nlp.data.count_tokens(corpus), bos_token=None)
    bptt = nlp.data.batchify.CorpusBPTTBatchify(vocab, 4, 2, last_batch="keep")
    out["bptt_keep"] = np.concatenate([np.concatenate([_np(a).ravel(), _np(b).ravel()]) for a, b in bptt(corpus)])
    out["corpus_bos"] = np.array([" ".join(s) for s in nlp.data.CorpusDataset(path, bos="<bos>", eos="<eos>")])
    B = nlp.data.batchify
    samples = [([1, 2, 3], 0.5, np.ones((2, 2))), ([4, 5], 1.5, np.zeros((2, 2))), ([6], 2.0, np.ones((2, 2)))]
    (padded, length), floats, stacked = B.Tuple(B.Pad(pad_val=0, round_to=4, dtype="int64", ret_length=True),
                                                B.Stack("float64"), B.Stack())(samples)
    out["pad_round"], out["pad_length"], out["stack_float64"] = _np(padded), _np(length), _np(floats)
    out["stack"] = _np(stacked)
    out["batch_dtypes"] = np.array([str(padded.dtype), str(floats.dtype), str(length.dtype)])
    batch = B.Dict({"a": B.Pad(axis=0, pad_val=-1), "b": B.Stack()})([{"a": [1, 2], "b": 3}, {"a": [4], "b": 5}])
    out["dict_a"], out["dict_b"] = _np(batch["a"]), _np(batch["b"])
    import collections
    Pair = collections.namedtuple("Pair", ["a", "b"])
    batch = B.NamedTuple(Pair, {"a": B.Pad(pad_val=-2), "b": B.List()})([Pair([1, 2, 3], "x"), Pair([4], "y")])
    out["namedtuple_a"], out["namedtuple_b"] = _np(batch.a), np.array(batch.b)
    out["pad_axis1"] = _np(B.Pad(axis=1, pad_val=-1)([np.ones((2, 3)), np.ones((2, 1))]))
    padded = B.Pad(pad_val=0)([mx.nd.array([1, 2]), mx.nd.array([3])])
    out["pad_ndarrays"], out["pad_ndarrays_dtype"] = _np(padded), np.array(str(padded.dtype))
    rng = np.random.RandomState(0)
    data = [(rng.randint(0, 100, n).astype("int32"), n) for n in rng.randint(2, 9, 24)]
    batchify = B.Tuple(B.Pad(pad_val=0), B.Stack())
    sampler = nlp.data.FixedBucketSampler([d[1] for d in data], batch_size=4, num_buckets=3, shuffle=False)
    for workers, threads in ((2, False), (2, True)):
        loader = mx.gluon.data.DataLoader(mx.gluon.data.SimpleDataset(data), batch_sampler=sampler,
                                          batchify_fn=batchify, num_workers=workers, thread_pool=threads)
        out["loader_threads%d" % threads] = np.array([float(_np(x).sum()) for x, _ in loader])
    sharded = nlp.data.FixedBucketSampler([d[1] for d in data], batch_size=4, num_buckets=3, shuffle=False,
                                          num_shards=2)
    loader = nlp.data.ShardedDataLoader(mx.gluon.data.SimpleDataset(data), batch_sampler=sharded,
                                        batchify_fn=batchify, num_workers=2)
    out["sharded"] = np.array([float(_np(b[0]).sum()) for shard in loader for b in shard])
    for i in range(3):
        with open(os.path.join(tmp, "c%d.txt" % i), "w") as f:
            f.write("a b c\nd e %d\n" % i)
    stream = nlp.data.SimpleDatasetStream(nlp.data.CorpusDataset, os.path.join(tmp, "c*.txt"),
                                          file_sampler="sequential")
    out["prefetch"] = np.array([len(ds) for ds in nlp.data.PrefetchingStream(stream, worker_type="thread")])
    out["slices"] = np.array(nlp.data.slice_sequence(list(range(10)), 4, pad_last=True, pad_val=-1, overlap=1))
    emb = nlp.embedding.TokenEmbedding(unknown_token="<unk>", init_unknown_vec=mx.nd.zeros, allow_extend=True)
    emb["hello"] = mx.nd.array([[1, 2, 3]])
    emb[["a", "b"]] = mx.nd.array([[4, 5, 6], [7, 8, 9]])
    out["embedding_lookup"], out["embedding_vectors"] = _np(emb[["hello", "b", "zz"]]), _np(emb.idx_to_vec)
    vocab = nlp.Vocab(nlp.data.count_tokens(["a", "b", "hello", "a"]), reserved_tokens=["<sep>"])
    vocab.set_embedding(emb)
    out["vocab_vectors"], out["vocab_tokens"] = _np(vocab.embedding.idx_to_vec), np.array(vocab.idx_to_token)
    unigram = nlp.data.UnigramCandidateSampler(mx.nd.array([.1, .2, .3, .4, 0.05, 0.5]))
    unigram.initialize()
    out["unigram_prob"], out["unigram_alias"] = _np(unigram.prob.data()), _np(unigram.alias.data())
    drawn = unigram(mx.nd.ones((200000,)))  # (random: frequencies to one decimal, each 8 sigma from a boundary)
    out["unigram_dtype"] = np.array(str(drawn.dtype))
    out["unigram_frequencies"] = np.round(np.bincount(_np(drawn).astype(int), minlength=6) / 200000, 1)
    ngrams = nlp.vocab.create_subword_function("NGramHashes", ngrams=[3, 4], num_subwords=50)
    out["ngram_hashes"] = np.concatenate([np.asarray(i) for i in ngrams(["hello", "world", "fox"])])
    out["byte_subwords"] = np.concatenate([np.asarray(i) for i in
                                           nlp.vocab.create_subword_function("ByteSubwords")(["h\u00e9llo", "ab"])])
    out["elmo_chars"] = np.array(nlp.vocab.ELMoCharVocab()[["hello", "<bos>", "w\u00f6rld"]])
    return out


def wf_blocks():
    """Highway, ConvolutionalEncoder with a mask, ISDense/NCEDense with and without removing
    accidental hits (outputs, input gradients, hybridized), GELU (erf and tanh), L2Normalization,
    a BiLMEncoder of LSTMP cells with a mask and a plain LSTM one, a FastText embedding model
    on subword CSR input (AdaGrad steps; GroupAdaGrad on a row_sparse gradient), the
    evaluation functions (CosineSimilarity, ThreeCosMul/ThreeCosAdd with and without the
    question words) and a Transformer encoder exported and imported."""
    out, tmp = {}, tempfile.mkdtemp()
    rng = np.random.RandomState(2)
    x = mx.nd.array(rng.normal(size=(3, 6)))
    highway = nlp.model.Highway(6, num_layers=2)
    highway.initialize()
    highway(x)
    _seed_params(highway, 3, 0.3)
    out["highway"] = _np(highway(x))
    highway.hybridize()
    out["highway_hybrid"] = _np(highway(x))
    conv = nlp.model.ConvolutionalEncoder(embed_size=6, num_filters=(3, 4), ngram_filter_sizes=(2, 3),
                                          conv_layer_activation="tanh", num_highway=1, output_size=5)
    conv.initialize()
    seq, mask = mx.nd.array(rng.normal(size=(7, 2, 6))), mx.nd.array(np.array([[1] * 7, [1] * 4 + [0] * 3]).T)
    conv(seq, mask)
    _seed_params(conv, 4, 0.3)
    out["conv_encoder"] = _np(conv(seq, mask))
    conv.hybridize()
    out["conv_encoder_hybrid"] = _np(conv(seq, mask))
    sampled = (mx.nd.array([1, 5, 7]), mx.nd.array([.1, .2, .3]), mx.nd.ones((3,)) * 0.2)
    hidden, label = mx.nd.array(rng.normal(size=(3, 6))), mx.nd.array([2, 5, 9])
    for cls, loss_fn in ((nlp.model.ISDense, mx.gluon.loss.SoftmaxCELoss()),
                         (nlp.model.NCEDense, mx.gluon.loss.SigmoidBCELoss())):
        for remove in (True, False):
            name = "%s%d" % (cls.__name__, remove)
            block = cls(12, 3, 6, remove_accidental_hits=remove)
            block.initialize()
            block(hidden, sampled, label)
            _seed_params(block, 5, 0.3)
            h = hidden.copy()
            h.attach_grad()
            with mx.autograd.record():
                logits, new_label = block(h, sampled, label)
                loss = loss_fn(logits, new_label).sum()
            loss.backward()
            out[name], out[name + "_label"], out[name + "_grad"] = _np(logits), _np(new_label), _np(h.grad)
            block.hybridize()
            out[name + "_hybrid"] = _np(block(hidden, sampled, label)[0])
    out["gelu"] = _np(nlp.model.GELU()(x))
    gelu = nlp.model.GELU(approximate=True)
    gelu.hybridize()
    out["gelu_tanh"] = _np(gelu(x))
    out["l2_normalized"] = _np(nlp.model.L2Normalization(axis=-1)(x))
    inputs = mx.nd.array(np.random.RandomState(0).normal(size=(4, 2, 6)))
    seq_mask = mx.nd.array([[1, 1, 1, 1], [1, 1, 0, 0]])
    bilm = nlp.model.BiLMEncoder(mode="lstmpc", num_layers=2, input_size=6, hidden_size=10, dropout=0.0,
                                 skip_connection=True, proj_size=6, cell_clip=1, proj_clip=1)
    bilm.initialize()
    bilm(inputs, bilm.begin_state(mx.nd.zeros, batch_size=2), seq_mask)
    _seed_params(bilm, 3, 0.3)
    out["bilm"] = _np(bilm(inputs, bilm.begin_state(mx.nd.zeros, batch_size=2), seq_mask)[0])
    bilm.hybridize()
    out["bilm_hybrid"] = _np(bilm(inputs, bilm.begin_state(mx.nd.zeros, batch_size=2), seq_mask)[0])
    bilm = nlp.model.BiLMEncoder(mode="lstm", num_layers=1, input_size=6, hidden_size=5, dropout=0.0)
    bilm.initialize()
    bilm(inputs, bilm.begin_state(mx.nd.zeros, batch_size=2))
    _seed_params(bilm, 4, 0.3)
    out["bilm_lstm"] = _np(bilm(inputs, bilm.begin_state(mx.nd.zeros, batch_size=2))[0])
    words = ["hello", "world", "fox", "quick"]
    ngrams = nlp.vocab.create_subword_function("NGramHashes", ngrams=[3, 4], num_subwords=50)
    subwords = [np.asarray(i) + 4 for i in ngrams(["hello", "fox"])]
    rows = np.concatenate([np.full(len(s) + 1, i) for i, s in enumerate(subwords)])
    cols = np.concatenate([[w] + list(s) for w, s in zip([0, 2], subwords)])
    csr = mx.nd.sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(2, 54), dtype="float32")
    for sparse, optimizer in ((False, "adagrad"), (True, "groupadagrad")):  # groupadagrad: the fastText script's
        model = nlp.model.train.FasttextEmbeddingModel({w: i for i, w in enumerate(words)}, ngrams, 5,
                                                       sparse_grad=sparse)
        model.initialize()
        model.weight.set_data(mx.nd.array(np.random.RandomState(0).normal(size=(54, 5))))
        out["fasttext_lookup"] = _np(model[["hello", "unseen"]])
        trainer = mx.gluon.Trainer(model.collect_params(), optimizer, {"learning_rate": 0.1})
        for _ in range(2):
            with mx.autograd.record():
                embedded = model(csr)
                loss = (embedded ** 2).sum()
            loss.backward()
            trainer.step(1)
        out["fasttext_%s_embedded" % optimizer] = _np(embedded)
        out["fasttext_%s_weight" % optimizer] = _np(model.weight.data())
    a, b = mx.nd.array(rng.normal(size=(4, 5))), mx.nd.array(rng.normal(size=(4, 5)))
    cosine = nlp.embedding.evaluation.CosineSimilarity()
    out["cosine"], out["cosine_zero"] = _np(cosine(a, b)), _np(cosine(mx.nd.zeros((1, 5)), b[:1]))
    vectors = mx.nd.array(rng.normal(size=(12, 5)))
    for fn in ("ThreeCosMul", "ThreeCosAdd"):
        for exclude in (True, False):
            analogy = nlp.embedding.evaluation.create("analogy", fn, idx_to_vec=vectors, k=3,
                                                      exclude_question_words=exclude)
            analogy.initialize()
            args = (mx.nd.array([0, 1]), mx.nd.array([2, 3]), mx.nd.array([4, 5]))
            out["%s%d" % (fn, exclude)] = _np(analogy(*args))
            analogy.hybridize()
            out["%s%d_hybrid" % (fn, exclude)] = _np(analogy(*args))
    from gluonnlp.model import transformer
    enc, x, valid = _transformer_encoder()
    enc.hybridize()
    out["encoder"] = _np(enc(x, None, valid)[0])
    enc.export(os.path.join(tmp, "enc"))
    imported = mx.gluon.SymbolBlock.imports(os.path.join(tmp, "enc-symbol.json"), ["data0", "data1"],
                                            os.path.join(tmp, "enc-0000.params"))
    out["encoder_imported"] = _flatten(imported(x, valid))[0]
    ffn = transformer.PositionwiseFFN(units=8, hidden_size=16, dropout=0.0, activation="gelu")
    ffn.initialize()
    ffn(x)
    _seed_params(ffn, 5, 0.3)
    out["ffn_gelu"] = _np(ffn(x))
    return out


WORKFLOWS = {name[3:]: fn for name, fn in sorted(globals().items()) if name.startswith("wf_")}
# float32 results of different kernels (and a few training steps on them)
RTOL, ATOL = 1e-4, 2e-5


def _load(name):
    with np.load(os.path.join(FIXTURES, name + ".npz")) as f:
        return dict(f)


if pytest is not None:
    @pytest.mark.parametrize("name", list(WORKFLOWS))
    def test_workflow_matches_mxnet(name):
        expected = _load(name)
        got = WORKFLOWS[name]()
        assert sorted(got) == sorted(expected)
        for key, want in expected.items():
            have = np.asarray(got[key])
            assert have.shape == want.shape, key
            if want.dtype.kind in "fc":
                np.testing.assert_allclose(have, want, rtol=RTOL, atol=ATOL, err_msg=key)
            else:
                np.testing.assert_array_equal(have, want, err_msg=key)
