"""d2l 1.0.3's MXNet edition through ``import mxnet``: the book's workflows (Module/Trainer/
DataModule, classifiers, CNN blocks on two CPU contexts, RNN language models with gradient
clipping and predict, seq2seq with Adam and masked loss, attention and Transformer encoder,
anchor boxes; then, in ``d2l_workflows_more``, fine-tuning and augmentation, FCN, style
transfer, SSD, word2vec/GloVe, BERT pretraining and fine-tuning, sentiment and NLI, GANs,
recommender systems, computational performance, image files, learning-rate schedulers) on
synthetic data, against MXNet 1.9.1's numbers recorded by
``tools/make_client_fixtures_d2l.py`` in ``fixtures/extra/d2l/workflows.npz``.

Needs the clients' environment (``tools/install_clients.sh``); skipped without d2l."""
import os

import numpy as onp
import pytest

pytest.importorskip("d2l")
pytest.importorskip("matplotlib")

import d2l_workflows  # noqa: E402  (tests/ is on sys.path under pytest's rootdir conftest)
import d2l_workflows_more  # noqa: E402

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "d2l", "workflows.npz")
# float32 training runs of a few dozen steps; MXNet's and torch's kernels round differently
TOLERANCE = {"rnns": 2e-4, "seq2seq_attention": 1e-4}


@pytest.fixture(autouse=True)
def _np_mode():
    from mxnet import npx
    yield
    npx.reset_np()


@pytest.mark.slow
@pytest.mark.parametrize("workflow", d2l_workflows.WORKFLOWS + d2l_workflows_more.WORKFLOWS, ids=lambda w: w.__name__)
def test_workflow_matches_mxnet(workflow):
    import mxnet
    assert "neogluon" in mxnet.__file__ or "mxnet" in mxnet.__file__
    recorded = onp.load(FIXTURE)
    got = workflow()
    expected = {k.split("/", 1)[1]: recorded[k] for k in recorded.files if k.startswith(workflow.__name__ + "/")}
    assert sorted(got) == sorted(expected)
    tol = TOLERANCE.get(workflow.__name__, 2e-5)
    for name, value in got.items():
        onp.testing.assert_allclose(value, expected[name], rtol=tol, atol=tol, err_msg=name)


def test_save_load_parameters_and_npx_files(tmp_path):
    """The file I/O section: npx.save/npx.load of an array, a list and a dict, and
    save_parameters/load_parameters of a Block built by the book's MLP class."""
    from d2l import mxnet as d2l  # noqa: F401
    from mxnet import np, npx
    from mxnet.gluon import nn
    npx.set_np()
    x, y = np.arange(4), np.zeros(4)
    npx.save(str(tmp_path / "x-files"), [x, y])
    x2, y2 = npx.load(str(tmp_path / "x-files"))
    npx.save(str(tmp_path / "mydict"), {"x": x, "y": y})
    assert (x2 == x).all() and (y2 == y).all()
    assert (npx.load(str(tmp_path / "mydict"))["x"] == x).all()

    class MLP(nn.Block):
        def __init__(self):
            super().__init__()
            self.hidden = nn.Dense(16, activation="relu")
            self.output = nn.Dense(4)

        def forward(self, X):
            return self.output(self.hidden(X))
    net = MLP()
    net.initialize()
    X = np.random.uniform(size=(2, 8))
    Y = net(X)
    net.save_parameters(str(tmp_path / "mlp.params"))
    clone = MLP()
    clone.load_parameters(str(tmp_path / "mlp.params"))
    assert (clone(X) == Y).all()
    assert repr(MLP().hidden) == "Dense(-1 -> 16, Activation(relu))"


def test_plot_helpers_take_np_arrays():
    """Chapters 14.3-14.4 draw boxes from mx.np arrays: bbox_to_rect hands 0-d arrays to matplotlib's
    Rectangle, show_bboxes one row at a time, show_heatmaps and show_images whole arrays."""
    from d2l import mxnet as d2l
    from mxnet import np, npx
    npx.set_np()
    fig = d2l.plt.imshow(np.zeros((16, 20, 3)).asnumpy())
    rect = d2l.bbox_to_rect(np.array([1.0, 2.0, 5.0, 8.0]), 'red')
    fig.axes.add_patch(rect)
    assert (float(rect.get_x()), float(rect.get_y()), float(rect.get_width()), float(rect.get_height())) == \
        (1.0, 2.0, 4.0, 6.0)
    d2l.show_bboxes(fig.axes, np.array([[0.1, 0.1, 0.5, 0.5], [0.2, 0.3, 0.9, 0.8]]) * np.array((20, 16, 20, 16)),
                    ['dog', 'cat'])
    assert len(fig.axes.patches) == 3 and [t.get_text() for t in fig.axes.texts] == ['dog', 'cat']
    d2l.show_heatmaps(np.eye(4).reshape((1, 1, 4, 4)), xlabel='Keys', ylabel='Queries')
    d2l.show_images(np.ones((2, 4, 4)), 1, 2, titles=['a', 'b'])
    d2l.plt.close('all')
