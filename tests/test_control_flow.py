"""Symbolic control flow (``mx.sym.contrib.foreach``/``while_loop``/``cond`` and the
``_foreach``/``_while_loop``/``_cond`` nodes with their subgraphs) against MXNet 1.9.1,
recorded by tools/make_extra_fixtures_control_flow.py; and the graph JSON layout, byte
for byte as MXNet writes it."""
import glob
import os

import pytest

import neogluon as mx

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures")


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(FIXTURES, "mxnet-1.9.1", "models", "*-symbol.json"))))
def test_json_written_byte_for_byte_as_mxnet(path):
    """dmlc's JSONWriter layout: ', ' before each line break, lists of more than 10 items and
    attribute maps of more than one key on several lines."""
    text = open(path, encoding="utf-8").read()
    assert mx.sym.load(path).tojson() == text
