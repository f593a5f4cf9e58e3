"""benchmarks/bench_workloads.py (issue 17's suite) runs: a --quick smoke run of the
smallest workload in this process, without MXNet, fresh processes or compiled variants.
Nothing about speed is asserted: the rows exist and hold positive numbers."""
import importlib.util
import io
import math
import os

import pytest

PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks", "bench_workloads.py")


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_workloads", PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow  # ~10 s: the first training steps import torch.optim and autograd machinery
def test_quick_run_gives_every_row(bench):
    out = io.StringIO()
    variants = ("imperative", "hybridized", "torch")
    rows = bench.run(["lenet_b1"], quick=True, variants=variants, in_process=True, out=out)
    assert set(rows) == {("lenet_b1", m, v) for m in ("infer", "train") for v in variants}
    for key, row in rows.items():
        for field in ("ms", "warm_first_s"):
            assert math.isfinite(row[field]) and row[field] > 0, (key, field, row)
        med, lo, hi = row.get("vs_torch") or bench.ratio_stats([1.0], [1.0])
        assert 0 < lo <= med <= hi
    text = out.getvalue()
    assert "vs mx hybridized" in text and "load95" in text
    assert sum(1 for line in text.splitlines() if line.startswith("lenet_b1")) == len(rows)


def test_inputs_and_networks_agree_on_shapes(bench):
    """Each workload's torch network accepts its inputs (the Gluon ones are run above and
    by the suite); outputs have the batch the workload names."""
    import torch
    for workload, batch in bench.WORKLOADS.items():
        if workload in ("resnet18_b1", "bert_b8", "lstm_lm_b32"):
            continue  # the larger ones: the suite itself runs them
        xs = [torch.from_numpy(a) for a in bench.inputs(workload)]
        with torch.no_grad():
            out = bench.torch_net(workload).eval()(*xs)
        assert batch in out.shape[:2], (workload, out.shape)
