"""Load a model MXNet 1.9.1 exported (`lenet-symbol.json` + `lenet-0000.params`, shipped in
tests/fixtures/) with plain MXNet code, two ways, and compare with the outputs MXNet itself
recorded for the same inputs. Nothing here is neogluon-specific: run it with
`neogluon alias install` done, or with `neogluon run examples/run_mxnet_model.py`."""
import os

import numpy as np
import mxnet as mx

here = os.path.dirname(os.path.abspath(__file__))
prefix = os.path.join(here, "..", "tests", "fixtures", "mxnet-1.9.1", "models", "lenet")
recorded = np.load(prefix + "-io.npz")  # inputs and outputs recorded by MXNet 1.9.1
x = mx.nd.array(recorded["data:0"])

# Gluon: the exported graph as a block
net = mx.gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"], prefix + "-0000.params")
gluon_out = net(x).asnumpy()

# the legacy Module API, as deployment scripts use it
sym, arg_params, aux_params = mx.model.load_checkpoint(prefix, 0)
mod = mx.mod.Module(sym, data_names=["data"], label_names=None)
mod.bind(data_shapes=[("data", x.shape)], for_training=False)
mod.set_params(arg_params, aux_params)
mod.forward(mx.io.DataBatch([x]))
module_out = mod.get_outputs()[0].asnumpy()

print("mxnet", mx.__version__)
print("SymbolBlock.imports vs MXNet 1.9.1: max difference %.1e" % np.abs(gluon_out - recorded["out:0"]).max())
print("Module.forward      vs MXNet 1.9.1: max difference %.1e" % np.abs(module_out - recorded["out:0"]).max())
print("predicted classes:", gluon_out.argmax(axis=1).tolist())
