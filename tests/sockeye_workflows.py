"""Sockeye 2.3.22 workflows through its command lines (run in-process, as Sockeye's own
integration tests do): a tiny Transformer on a synthetic reversal corpus, trained a few updates
on CPU from parameters drawn from a seeded numpy generator (so MXNet 1.9.1 and neogluon start
from the same weights), then translate (beam, greedy, n-best JSON, restricted lexicon,
ensemble, constraints), score, average, prepared data and training continuation.
``tools/make_client_fixtures_sockeye.py`` runs them under real MXNet and records the results in
``fixtures/extra/sockeye/workflows.json``; ``test_client_sockeye.py`` runs them through
``import mxnet`` and compares. Dropout is off: the random streams differ between frameworks.

Bucketing stays off (--no-bucketing): with several buckets Sockeye's checkpoint np.save()s a
ragged list of permutations, which numpy >= 1.24 refuses whatever the backend."""
import json
import os
import random
import sys
from unittest import mock

import numpy as onp

MODEL = ("--num-layers 1 --transformer-attention-heads 2 --transformer-model-size 16 --num-embed 16 "
         "--transformer-feed-forward-num-hidden 32 --batch-size 16 --batch-type sentence --max-seq-len 10 "
         "--use-cpu --seed 13 --decode-and-evaluate 0 --quiet-secondary-workers --no-bucketing "
         "--transformer-dropout-attention 0 --transformer-dropout-act 0 --transformer-dropout-prepost 0 "
         "--optimizer adam --initial-learning-rate 0.01").split()


def write_corpus(d):
    """Sentences of 2-8 letters a-h; the target is the source reversed; factors mark a-d/e-h."""
    os.makedirs(d, exist_ok=True)
    rg = random.Random(7)
    for name, n in (("train", 300), ("dev", 20), ("test", 8)):
        with open(os.path.join(d, name + ".src"), "w") as s, open(os.path.join(d, name + ".trg"), "w") as t, \
                open(os.path.join(d, name + ".sf"), "w") as f:
            for _ in range(n):
                toks = [rg.choice("abcdefgh") for _ in range(rg.randint(2, 8))]
                s.write(" ".join(toks) + "\n")
                t.write(" ".join(reversed(toks)) + "\n")
                f.write(" ".join("L" if c < "e" else "H" for c in toks) + "\n")


def cli(module, *args):
    """``python -m sockeye.<module> args`` in this process."""
    import importlib
    mod = importlib.import_module("sockeye." + module)
    with mock.patch.object(sys, "argv", [mod.__file__] + [str(a) for a in args]):
        mod.main()


def seeded_params(params_in, params_out, seed=0):
    """Every parameter of a Sockeye params file redrawn from a seeded numpy generator (by
    sorted name; layer-norm gains around 1), saved with mx.nd.save like Sockeye's files."""
    import mxnet as mx
    rng = onp.random.RandomState(seed)
    loaded = mx.nd.load(params_in)
    out = {}
    for name in sorted(loaded):
        shape = loaded[name].shape
        value = rng.uniform(-0.15, 0.15, shape)
        if name.endswith("gamma"):
            value = 1.0 + value
        out[name] = mx.nd.array(value.astype(onp.float32))
    mx.nd.save(params_out, out)


def metrics(model_dir):
    """Sockeye's metrics file: per checkpoint, the train and validation perplexities (and
    whatever else it logs as numbers, except time and learning rate)."""
    rows = []
    with open(os.path.join(model_dir, "metrics")) as f:
        for line in f:
            fields = dict(kv.split("=", 1) for kv in line.split("\t")[1:])
            rows.append({k: float(v) for k, v in sorted(fields.items())
                         if ("-train" in k or "-val" in k) and v not in ("None",)})
    return rows


def read_scored(path):
    """translation_with_score output: [[score, text], ...]."""
    out = []
    with open(path) as f:
        for line in f:
            score, text = line.rstrip("\n").split("\t", 1)
            out.append([float(score), text])
    return out


def read_json_lines(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


def init_params(work, *train_args):
    """The model's parameter names and shapes from a one-update run (Sockeye needs a stopping
    criterion above 0), its values redrawn from the seeded generator into ``init.params``."""
    cli("train", *train_args, "-o", work + "/init", "--max-updates", 1, "--checkpoint-interval", 1, *MODEL)
    seeded_params(work + "/init/params.00001", work + "/init.params")
    return work + "/init.params"


def train_translate_score(work):
    """Train 4 updates (checkpoints after 2 and 4) from the seeded weights, hybridized; then
    translate the test set (beam 3 with scores, greedy, 2-best JSON, an ensemble of both
    checkpoints, length penalties), score the references and average the checkpoints."""
    d = os.path.join(work, "data")
    write_corpus(d)
    data = ["-s", d + "/train.src", "-t", d + "/train.trg", "-vs", d + "/dev.src", "-vt", d + "/dev.trg"]
    init = init_params(work, *data)
    m = work + "/model"
    cli("train", *data, "-o", m, "--max-updates", 4, "--checkpoint-interval", 2, "--params", init, *MODEL)
    res = {"metrics": metrics(m)}
    common = ["-m", m, "-i", d + "/test.src", "--use-cpu"]
    cli("translate", *common, "-o", work + "/beam.out", "--beam-size", 3, "--output-type", "translation_with_score")
    res["beam"] = read_scored(work + "/beam.out")
    cli("translate", *common, "-o", work + "/greedy.out", "--greedy", "--beam-size", 1,
        "--output-type", "translation_with_score")
    res["greedy"] = read_scored(work + "/greedy.out")
    cli("translate", *common, "-o", work + "/nbest.out", "--beam-size", 3, "--nbest-size", 2, "--batch-size", 3,
        "--output-type", "json")
    res["nbest"] = [[r["translations"], r["scores"]] for r in read_json_lines(work + "/nbest.out")]
    cli("translate", "-m", m, m, "-c", 1, 2, "-i", d + "/test.src", "--use-cpu", "-o", work + "/ens.out",
        "--beam-size", 2, "--length-penalty-alpha", 1.0, "--length-penalty-beta", 2.0,
        "--output-type", "translation_with_score")
    res["ensemble"] = read_scored(work + "/ens.out")
    cli("score", "-m", m, "-s", d + "/test.src", "-t", d + "/test.trg", "-o", work + "/score.out",
        "--use-cpu", "--batch-size", 4)
    with open(work + "/score.out") as f:
        res["score"] = [float(line) for line in f]
    cli("average", "-o", work + "/avg.params", m + "/params.00001", m + "/params.00002")
    import mxnet as mx
    avg = mx.nd.load(work + "/avg.params")
    res["average"] = {k: float(v.asnumpy().astype(onp.float64).sum()) for k, v in sorted(avg.items())}
    return res


def prepared_data_factors_resume(work):
    """prepare_data (shards of 100 sentences, shared vocabulary), then training on the prepared
    data with a source factor (concatenated), a length-ratio task, the SSRU decoder and label
    smoothing (not --lhuc: with the rest of the model frozen, MXNet 1.9.1's encoder LHUC gradient
    varies from run to run, sometimes 1e11; neogluon's equals the unfrozen model's); the training continued from its saved state (optimizer and data iterator) to 6 updates; then
    translation with the factor input, a restricted lexicon and an avoid list (``--json-input``
    fails in Sockeye 2.3 on Python >= 3.9: json.loads(encoding=...))."""
    d = os.path.join(work, "data")
    write_corpus(d)
    prep = work + "/prep"
    cli("prepare_data", "-s", d + "/train.src", "-t", d + "/train.trg", "-sf", d + "/train.sf", "-o", prep,
        "--max-seq-len", 10, "--shared-vocab", "--num-samples-per-shard", 100, "--seed", 13, "--no-bucketing")
    extra = ["--shared-vocab", "--source-factors-num-embed", 4, "--source-factors-combine", "concat",
             "--num-embed", "12:16",
             "--weight-tying-type", "trg_softmax", "--length-task", "ratio", "--decoder", "ssru_transformer",
             "--label-smoothing", 0.1]
    data = ["-d", prep, "-vs", d + "/dev.src", "-vt", d + "/dev.trg", "-vsf", d + "/dev.sf", *extra]
    init = init_params(work, *data)
    m = work + "/model"
    args = [*data, "-o", m, "--checkpoint-interval", 2, "--params", init, *MODEL]
    cli("train", *args, "--max-updates", 4)
    cli("train", *args, "--max-updates", 6)  # continues from model/training_state
    res = {"metrics": metrics(m)}
    with open(work + "/ttable", "w") as f:
        f.write("a\tb\t0.5\nb\ta\t0.5\nc\tc\t0.4\nd\td\t0.3\ne\te\t0.1\nf\tf\t0.1\n")
    cli("lexicon", "create", "-i", work + "/ttable", "-m", m, "-k", 3, "-o", work + "/lex")
    common = ["-m", m, "-i", d + "/test.src", "-if", d + "/test.sf", "--use-cpu", "--beam-size", 3]
    cli("translate", *common, "-o", work + "/beam.out", "--output-type", "translation_with_score")
    res["beam"] = read_scored(work + "/beam.out")
    cli("translate", *common, "-o", work + "/restrict.out", "--restrict-lexicon", work + "/lex",
        "--output-type", "translation_with_score")
    res["restrict"] = read_scored(work + "/restrict.out")
    with open(work + "/avoid", "w") as f:
        f.write("d d\n")
    cli("translate", *common, "-o", work + "/avoid.out", "--avoid-list", work + "/avoid",
        "--output-type", "translation_with_score")
    res["avoid"] = read_scored(work + "/avoid.out")
    return res


WORKFLOWS = [train_translate_score, prepared_data_factors_resume]
