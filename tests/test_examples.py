"""examples/: each script's main() on a small setting (in-process, to keep the suite fast)."""
import importlib.util
import os

import pytest

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")


def load_example(name):
    spec = importlib.util.spec_from_file_location("example_" + name, os.path.join(EXAMPLES, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_hybrid_tutorial(tmp_path, capsys):
    assert load_example("hybrid_tutorial").main(["--out", str(tmp_path), "--repeat", "3"]) == 0
    out = capsys.readouterr().out
    imperative, hybrid = out.split("--- hybridize: traced once")
    assert imperative.count("called with NDArray (16, 1, 28, 28)") == 2
    # once traced for hybridize(), once more for hybridize(static_alloc=True, static_shape=True)
    assert hybrid.count("called with Symbol data") == 2 and "called with NDArray" not in hybrid
    assert "hybridized (" in out and "SymbolBlock.imports gives the same outputs: True" in out
    assert (tmp_path / "model-symbol.json").exists() and (tmp_path / "model-0001.params").exists()


def test_lenet_digits(capsys):
    pytest.importorskip("sklearn")
    assert load_example("lenet_digits").main(["--epochs", "1", "--limit", "128", "--batch-size", "64"]) == 0
    out = capsys.readouterr().out
    assert "epoch 1: loss" in out and "after save_parameters/load_parameters" in out


def test_finetune_mxnet_model(tmp_path, capsys):
    pytest.importorskip("sklearn")
    prefix = str(tmp_path / "tuned")
    code = load_example("finetune_mxnet_model").main(["--epochs", "1", "--limit", "128", "--out", prefix])
    assert code == 0
    out = capsys.readouterr().out
    assert "outputs match MXNet 1.9.1's" in out and "epoch 1: test accuracy" in out
    assert "reloaded outputs agree: True" in out
    assert os.path.exists(prefix + "-symbol.json") and os.path.exists(prefix + "-0000.params")


def test_image_recordio_cnn(tmp_path, capsys):
    """A few steps of the RecordIO CNN example: records written, read back through DataLoader
    workers with augmenters, a progress bar and a loss plot."""
    pytest.importorskip("cv2")
    pytest.importorskip("matplotlib")
    pytest.importorskip("tqdm")
    code = load_example("image_recordio_cnn").main(["--out", str(tmp_path), "--images", "60", "--epochs", "1",
                                                    "--batch-size", "16", "--max-steps", "3", "--workers", "1"])
    assert code == 0
    out = capsys.readouterr().out
    assert "wrote 60 JPEG records" in out and "3 steps; final loss" in out
    assert "epoch 1/1" in out  # tqdm's bar
    assert (tmp_path / "shapes.rec").exists() and (tmp_path / "shapes.idx").exists()
    assert (tmp_path / "loss.png").stat().st_size > 1000
    import neogluon as mx
    records = mx.gluon.data.vision.ImageRecordDataset(str(tmp_path / "shapes.rec"))
    img, label = records[4]
    assert img.shape == (40, 40, 3) and float(label) == 1.0


def test_lstm_bucketing(capsys):
    """MXNet's legacy bucketing LSTM script (mx.rnn cells, BucketSentenceIter,
    BucketingModule, Perplexity), seeded: the training perplexity falls."""
    import random
    import numpy as np
    import neogluon as mx
    random.seed(0)
    np.random.seed(0)
    mx.random.seed(0)
    history = load_example("lstm_bucketing").main(["--num-epochs", "3", "--num-hidden", "32", "--disp-batches", "100"])
    assert len(history) == 3 and history[-1] < 0.8 * history[0], history
    assert "training perplexity by epoch" in capsys.readouterr().out
