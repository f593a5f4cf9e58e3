"""Sockeye 2.3.22 (AWS's MXNet-based neural machine translation toolkit) through ``import
mxnet``: its command lines (train, translate, score, average, prepare_data, lexicon) on a tiny
Transformer and a synthetic corpus, against MXNet 1.9.1's results recorded by
``tools/make_client_fixtures_sockeye.py`` in ``fixtures/extra/sockeye/workflows.json`` (the
workflows are in ``sockeye_workflows.py``; both frameworks start from the same seeded weights).

Needs the clients' environment (``tools/install_clients.sh``); skipped without sockeye."""
import json
import os

import numpy as onp
import pytest

pytest.importorskip("sockeye")
pytest.importorskip("sacrebleu")

import sockeye_workflows  # noqa: E402  (tests/ is on sys.path under pytest's rootdir conftest)

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "sockeye", "workflows.json")
# a few float32 Adam updates: MXNet's and torch's kernels round differently (about 1e-6 relative
# on the perplexities); scores are printed with 6 decimals
RTOL = 1e-4


def _compare(got, expected, where):
    if isinstance(expected, dict):
        assert sorted(got) == sorted(expected), where
        for k in expected:
            _compare(got[k], expected[k], where + "/" + k)
    elif isinstance(expected, list):
        assert len(got) == len(expected), where
        for i, (g, e) in enumerate(zip(got, expected)):
            _compare(g, e, "%s[%d]" % (where, i))
    elif isinstance(expected, str):
        assert got == expected, where
    else:
        onp.testing.assert_allclose(got, expected, rtol=RTOL, atol=RTOL, err_msg=where)


@pytest.mark.slow
@pytest.mark.parametrize("workflow", sockeye_workflows.WORKFLOWS, ids=lambda w: w.__name__)
def test_workflow_matches_mxnet(workflow, tmp_path):
    import mxnet
    assert "neogluon" in mxnet.__file__
    with open(FIXTURE) as f:
        expected = json.load(f)[workflow.__name__]
    _compare(workflow(str(tmp_path)), expected, workflow.__name__)


def test_batches_and_loss_of_the_data_iterator(tmp_path):
    """Sockeye's batches (``squeeze(axis=2, inplace=True)`` views of the padded arrays, the
    source lengths) and its cross-entropy loss on them (``output.astype(label)``) with label
    smoothing, against numpy."""
    import mxnet as mx
    from sockeye import data_io, loss, vocab
    d = str(tmp_path)
    sockeye_workflows.write_corpus(d)
    v = vocab.build_from_paths([d + "/train.src", d + "/train.trg"])
    it = data_io.get_training_data_iters(
        sources=[d + "/train.src"], targets=[d + "/train.trg"], validation_sources=[d + "/dev.src"],
        validation_targets=[d + "/dev.trg"], source_vocabs=[v], target_vocabs=[v], source_vocab_paths=[None],
        target_vocab_paths=[None], shared_vocab=True, batch_size=8, batch_type="sentence", batch_num_devices=1,
        max_seq_len_source=10, max_seq_len_target=10, bucketing=False, bucket_width=10)[0]
    batch = it.next()
    src = batch.source.asnumpy()
    assert src.shape == (8, 10, 1)
    onp.testing.assert_array_equal(batch.source_length.asnumpy(), (src[:, :, 0] != 0).sum(axis=1))
    label = batch.labels["target_label"]
    assert label.shape == (8, 10)
    logits = mx.nd.array(onp.random.RandomState(0).randn(8, 10, len(v)).astype(onp.float32))
    ce = loss.CrossEntropyLossWithoutSoftmaxOutput(ignore_label=0, num_labels=len(v), label_smoothing=0.1)
    value, _ = ce({"logits": logits}, {"target_label": label})
    logp = logits.asnumpy().astype(onp.float64)
    logp = logp - onp.log(onp.exp(logp).sum(-1, keepdims=True))
    lab = label.asnumpy().astype(int)
    nll = -onp.take_along_axis(logp, lab[..., None], axis=-1)[..., 0]
    nll = 0.9 * nll - 0.1 / len(v) * logp.sum(-1)
    mask = lab != 0
    onp.testing.assert_allclose(value.asnumpy(), (nll * mask).sum() / mask.sum(), rtol=1e-5)
