"""GluonNLP 0.10.0 workflows through ``import mxnet`` (neogluon), against MXNet 1.9.1.

Each ``wf_*`` function is what a GluonNLP user runs (fine-tune a small BERT, train a
Transformer NMT step and beam-search it, train language models, train sparse embeddings,
evaluate word embeddings, batch data): parameters come from a seeded numpy generator and the
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
    V = 10

    class Decoder(mx.gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.emb = mx.gluon.nn.Embedding(V, 8)
                self.cell = mx.gluon.rnn.GRUCell(8)
                self.out = mx.gluon.nn.Dense(V, flatten=False)

        def hybrid_forward(self, F, x, s):
            o, ns = self.cell(self.emb(x), [s])
            return F.log_softmax(self.out(o)), ns[0]

    dec = Decoder()
    dec.initialize()
    dec(mx.nd.array([1, 2]), mx.nd.zeros((2, 8)))
    _seed_params(dec, 21, 0.5)
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
