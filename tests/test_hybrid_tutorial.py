"""The hybridization tutorial (both versions of the page), with only ``import mxnet as mx``
changed to ``import neogluon as mx``: the print trace before and after ``hybridize()``,
``export``'s files and ``SymbolBlock.imports`` giving the same outputs."""
import os

import numpy as np
import pytest

TUTORIAL = '''
import mxnet as mx
from mxnet import gluon
from mxnet.gluon import nn

mx.random.seed(42)

class Net(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super(Net, self).__init__(**kwargs)
        with self.name_scope():
            # layers created in name_scope will inherit name space
            # from parent layer.
            self.conv1 = nn.Conv2D(6, kernel_size=5)
            self.pool1 = nn.MaxPool2D(pool_size=2)
            self.conv2 = nn.Conv2D(16, kernel_size=5)
            self.pool2 = nn.MaxPool2D(pool_size=2)
            self.fc1 = nn.Dense(120)
            self.fc2 = nn.Dense(84)
            # You can use a Dense layer for fc3 but we do dot product manually
            # here for illustration purposes.
            self.fc3_weight = self.params.get('fc3_weight', shape=(10, 84))

    def hybrid_forward(self, F, x, fc3_weight):
        # Here `F` can be either mx.nd or mx.sym, x is the input data,
        # and fc3_weight is either self.fc3_weight.data() or
        # self.fc3_weight.var() depending on whether x is Symbol or NDArray
        print(x)
        x = self.pool1(F.relu(self.conv1(x)))
        x = self.pool2(F.relu(self.conv2(x)))
        # 0 means copy over size from corresponding dimension.
        # -1 means infer size from the rest of dimensions.
        x = x.reshape((0, -1))
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = F.dot(x, fc3_weight, transpose_b=True)
        return x

net = Net()
net.initialize()
x = mx.nd.random_normal(shape=(16, 1, 28, 28))
net(x)
x = mx.nd.random_normal(shape=(16, 1, 28, 28))
net(x)
print("--- hybridize ---")
net.hybridize()
x = mx.nd.random_normal(shape=(16, 1, 28, 28))
net(x)
x = mx.nd.random_normal(shape=(16, 1, 28, 28))
out = net(x)
print("--- static ---")
net.hybridize(static_alloc=True)
# or
net.hybridize(static_alloc=True, static_shape=True)
out = net(x)
net.export('model', epoch=1)
'''

IMPORTS = {
    "1.x": "net2 = gluon.SymbolBlock.imports('model-symbol.json', ['data'], 'model-0001.params')\n",
    "newer": ("import warnings\n\nwith warnings.catch_warnings():\n"
              "    net2 = gluon.SymbolBlock.imports('model-symbol.json', ['data'], 'model-0001.params')\n"),
}


@pytest.mark.parametrize("version", sorted(IMPORTS))
def test_tutorial(version, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    source = (TUTORIAL + IMPORTS[version]).replace("import mxnet as mx", "import neogluon as mx")
    source = source.replace("from mxnet", "from neogluon")
    scope = {}
    exec(compile(source, "tutorial", "exec"), scope)  # pylint: disable=exec-used
    printed = capsys.readouterr().out
    before, after = printed.split("--- hybridize ---")
    after, static = after.split("--- static ---")
    assert before.count("<NDArray 16x1x28x28 @cpu(0)>") == 2
    assert after.strip() == "<Symbol data>"  # traced once, then the cached graph runs
    assert static.strip() == "<Symbol data>"  # hybridize() clears the cache: traced again
    assert sorted(os.listdir(tmp_path)) == ["model-0001.params", "model-symbol.json"]
    x, out, net2 = scope["x"], scope["out"], scope["net2"]
    np.testing.assert_allclose(net2(x).asnumpy(), out.asnumpy(), rtol=1e-5, atol=1e-6)
    assert out.shape == (16, 10)
    assert set(net2.collect_params().keys()) == set(scope["net"].collect_params().keys())
