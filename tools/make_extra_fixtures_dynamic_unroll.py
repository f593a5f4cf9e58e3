"""Record MXNet 1.9.1's gluon.contrib.rnn.rnn_cell.dynamic_unroll: an LSTMCell stepped over
'TNC' and 'NTC' inputs, with and without valid_length.

Run with the side venv:  /work/mxref/bin/python tools/make_extra_fixtures_dynamic_unroll.py
Writes tests/fixtures/extra/contrib_rnn/dynamic_unroll.{params,npz}.
"""
import os

import mxnet as mx
import numpy as np
from mxnet.gluon.contrib.rnn.rnn_cell import dynamic_unroll

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "extra", "contrib_rnn")


def main():
    os.makedirs(OUT, exist_ok=True)
    cell = mx.gluon.rnn.LSTMCell(4, input_size=3, prefix="l_")
    cell.initialize(mx.init.Uniform(0.5))
    x = mx.nd.array(np.random.RandomState(0).rand(5, 2, 3))
    valid_length = mx.nd.array([3, 5])
    record = {"x": x.asnumpy(), "valid_length": valid_length.asnumpy()}
    for layout, inp in (("TNC", x), ("NTC", x.transpose((1, 0, 2)))):
        for masked in (False, True):
            out, states = dynamic_unroll(cell, inp, cell.begin_state(2), layout=layout,
                                         valid_length=valid_length if masked else None)
            key = "%s_%s" % (layout, "masked" if masked else "full")
            record[key + "_out"] = out.asnumpy()
            for i, s in enumerate(states):
                record["%s_state%d" % (key, i)] = s.asnumpy()
    cell.save_parameters(os.path.join(OUT, "dynamic_unroll.params"))
    np.savez(os.path.join(OUT, "dynamic_unroll.npz"), **record)


if __name__ == "__main__":
    main()
