"""A shortened run of examples/char_lstm.py: the perplexity must fall below the unigram baseline."""
import importlib.util
import os

EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "char_lstm.py")


def load_example():
    spec = importlib.util.spec_from_file_location("char_lstm_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_char_lstm_beats_the_unigram_baseline():
    """A fixed number of epochs (no time limit: a busy machine runs the same steps)."""
    example = load_example()
    history, baseline = example.train(epochs=3, seconds=float("inf"), hidden=64, lr=0.02, verbose=False)
    assert len(history) == 3
    assert 15 < baseline < 30
    assert history[-1] < history[0]
    assert history[-1] < 0.75 * baseline, (history, baseline)


def test_unigram_baseline_is_the_frequency_perplexity():
    example = load_example()
    train, valid, vocab = example.load_text()
    assert "".join(vocab[int(i)] for i in train[:9]) == "Four scor"
    uniform = example.unigram_perplexity(train, valid, len(vocab))
    assert 1 < uniform < len(vocab)
