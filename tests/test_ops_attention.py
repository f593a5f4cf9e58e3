"""The fused attention operators against MXNet 1.9.1 (cases recorded by
tools/make_extra_fixtures_attention.py, replayed imperatively and through ``bind`` with
MXNet's JSON; see tests/opcases.py), and a hybridized block that uses them."""
import json

import numpy as np

import neogluon as mx
from opcases import make_tests

test_imperative, test_graph, test_hybridized, test_error = make_tests("attention", tolerance={})


class SelfAttention(mx.gluon.HybridBlock):
    def __init__(self, heads, **kwargs):
        super().__init__(**kwargs)
        self.heads = heads

    def hybrid_forward(self, F, qkv):
        scores = F.contrib.interleaved_matmul_selfatt_qk(qkv, heads=self.heads)
        return F.contrib.interleaved_matmul_selfatt_valatt(qkv, F.softmax(scores, axis=-1), heads=self.heads)


def test_self_attention_block_hybridizes_and_matches_the_reference_formula():
    rng = np.random.RandomState(0)
    length, batch, heads, dim = 4, 2, 2, 3
    x = rng.uniform(-1, 1, (length, batch, heads * dim * 3)).astype(np.float32)
    block = SelfAttention(heads)
    block.hybridize()
    out = block(mx.nd.array(x)).asnumpy()
    t = x.reshape(length, batch, heads, 3, dim).transpose(1, 2, 0, 3, 4).reshape(batch * heads, length, 3, dim)
    q, k, v = t[:, :, 0] / np.sqrt(dim), t[:, :, 1], t[:, :, 2]
    s = q @ k.transpose(0, 2, 1)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    ref = (p @ v).reshape(batch, heads, length, dim).transpose(2, 0, 1, 3).reshape(length, batch, heads * dim)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)
    ops = [n["op"] for n in json.loads(block(mx.sym.var("data")).tojson())["nodes"]]
    assert ops == ["null", "_contrib_interleaved_matmul_selfatt_qk", "softmax",
                   "_contrib_interleaved_matmul_selfatt_valatt"]
