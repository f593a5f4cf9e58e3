"""mx.lr_scheduler against MXNet 1.9.1's learning rates at updates 0..30
(tools/make_extra_fixtures_train.py), and MXNet's argument checks."""
import json
import os

import pytest

import neogluon as mx

FIX = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "train")
CASES = json.load(open(os.path.join(FIX, "schedulers.json")))


@pytest.mark.parametrize("case", CASES, ids=[c["case"] for c in CASES])
def test_schedule_matches_mxnet(case):
    sched = getattr(mx.lr_scheduler, case["cls"])(**case["kwargs"])
    lrs = [sched(n) for n in range(len(case["lrs"]))]
    assert lrs == pytest.approx(case["lrs"], rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("make, error", [
    (lambda: mx.lr_scheduler.FactorScheduler(step=0), "greater or equal than 1"),
    (lambda: mx.lr_scheduler.FactorScheduler(step=2, factor=1.5), "no more than 1"),
    (lambda: mx.lr_scheduler.MultiFactorScheduler(step=[3, 2]), "increasing integer list"),
    (lambda: mx.lr_scheduler.PolyScheduler(max_update=0), "strictly positive"),
    (lambda: mx.lr_scheduler.CosineScheduler(max_update=10, base_lr=0.1, warmup_begin_lr=0.5, warmup_steps=2),
     "higher than warmup_begin_lr"),
    (lambda: mx.lr_scheduler.LRScheduler(warmup_mode="cubic"), "linear and constant"),
])
def test_invalid_arguments(make, error):
    with pytest.raises(ValueError, match=error):
        make()


def test_scheduler_drives_optimizer():
    opt = mx.optimizer.SGD(lr_scheduler=mx.lr_scheduler.MultiFactorScheduler(step=[1], factor=0.1, base_lr=1.0))
    assert opt.learning_rate == 1.0
    w = mx.nd.ones(1)
    upd = mx.optimizer.get_updater(opt)
    upd(0, mx.nd.ones(1), w)   # update 1: lr 1
    upd(0, mx.nd.ones(1), w)   # update 2: lr 0.1
    assert w.asscalar() == pytest.approx(1 - 1 - 0.1)
