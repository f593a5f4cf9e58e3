"""The intra-op thread policy of neogluon/threads.py, driven by a fake load, clock and thread
setter (no timing): what it sets for which load, how often it reads, when it stops adapting."""
import os
import subprocess
import sys

import pytest

from neogluon import threads

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Fake:
    """A machine: ``others`` runnable threads, a clock, torch's thread number."""

    def __init__(self, threads_now=2, others=0):
        self.n, self.others, self.t = threads_now, others, 0.0
        self.reads, self.sets = 0, []

    def load(self):
        self.reads += 1
        return self.others

    def set(self, n):
        self.sets.append(n)
        self.n = n

    def policy(self, cores=2, **kw):
        return threads.Adaptive(load=self.load, clock=lambda: self.t, cores=cores, get_threads=lambda: self.n,
                                set_threads=self.set, **kw)


def test_threads_follow_the_free_cores_down_at_once_up_after_three_readings():
    m = Fake(threads_now=4, others=0)
    p = m.policy(cores=4)
    assert p.update() == 4 and m.sets == []          # all 4 cores free: torch's 4 kept
    m.others = 1
    assert p.update() == 3 and m.sets == [3]          # one busy neighbour: down at once
    m.others = 5
    assert p.update() == 1 and m.sets == [3, 1]       # more runnable than cores: one thread
    m.others = 0
    assert [p.update(), p.update()] == [1, 1]         # free again: not yet
    m.others = 2
    assert p.update() == 2 and m.sets == [3, 1, 2]    # third reading: the least of the three (4, 4, 2)
    m.others = 0
    assert [p.update() for _ in range(3)] == [2, 2, 4]
    assert p.update() == 4 and m.sets == [3, 1, 2, 4]  # never above torch's own number


def test_a_dip_interrupts_the_climb():
    m = Fake(threads_now=2, others=1)
    p = m.policy()
    assert p.update() == 1
    m.others = 0
    p.update(), p.update()
    m.others = 1
    assert p.update() == 1                            # busy again: the count restarts
    m.others = 0
    assert [p.update() for _ in range(3)] == [1, 1, 2]


def test_the_load_is_read_at_most_once_per_interval():
    m = Fake(threads_now=2, others=1)
    p = m.policy(interval=0.1)
    for _ in range(50):
        p()
    assert m.reads == 1 and m.n == 1
    m.t = 0.05
    p()
    assert m.reads == 1
    m.t = 0.1
    p()
    assert m.reads == 2


def test_a_number_set_by_someone_else_stops_the_adaptation():
    m = Fake(threads_now=2, others=1)
    p = m.policy()
    p.update()
    m.n = 2  # the user's torch.set_num_threads(2)
    m.others = 3
    assert p.update() is None and m.n == 2 and m.sets == [1]
    assert "set_num_threads(2)" in p.reason


def test_unknown_load_leaves_the_number():
    m = Fake(threads_now=2)
    p = m.policy()
    m.load = lambda: None
    p.load = m.load
    assert p.update() == 2 and m.sets == []


def test_fix_sets_and_never_adapts_again():
    m = Fake(threads_now=2, others=0)
    p = m.policy()
    p.fix(1, "DataLoader worker")
    m.others = 0
    for _ in range(5):
        m.t += 1
        assert p() is None
    assert m.n == 1 and m.sets == [1] and m.reads == 0


@pytest.mark.parametrize("environ, reason", [
    ({}, None),
    ({"OMP_NUM_THREADS": "2"}, "OMP_NUM_THREADS is set"),
    ({"MXNET_CPU_WORKER_NTHREADS": "1"}, "MXNET_CPU_WORKER_NTHREADS is set"),
    ({"NEOGLUON_ADAPTIVE_THREADS": "0"}, "NEOGLUON_ADAPTIVE_THREADS=0"),
    ({"NEOGLUON_ADAPTIVE_THREADS": "1"}, None),
])
def test_the_users_choice_is_honoured(environ, reason):
    assert threads.user_choice(environ) == reason
    m = Fake(threads_now=2, others=1)
    p = m.policy(reason=threads.user_choice(environ))
    p()
    assert m.sets == ([] if reason else [1])


def _stat(idle0, iowait0, idle1, iowait1, idle2=0, running=1):
    return ("cpu  900 0 300 %d %d 0 0 0 0 0\n" % (idle0 + idle1 + idle2, iowait0 + iowait1)
            + "cpu0 400 0 100 %d %d 0 0 0 0 0\n" % (idle0, iowait0)
            + "cpu1 300 0 100 %d %d 0 0 0 0 0\n" % (idle1, iowait1)
            + "cpu2 200 0 100 %d 0 0 0 0 0 0\n" % idle2
            + "intr 12345 0 0 7\nctxt 999\nprocs_running %d\nprocs_blocked 0\n" % running)


def test_others_use_is_the_cpus_busy_time_less_our_own(tmp_path):
    """The policy read /proc/loadavg's running count, which counted this process's OpenMP
    worker spinning after a parallel region: on an idle machine the MLP b64's hybridized
    predictions ran on one thread in 54% of calls. Our own CPU time is nobody else's."""
    f = tmp_path / "stat"
    clock = {"t": 10.0, "own": 3.0}
    use = threads.OthersUse(str(f), cpus=[0, 1], own=lambda: clock["own"], clock=lambda: clock["t"], ticks=100,
                            running=lambda: 1)
    f.write_text(_stat(1000, 10, 2000, 0, idle2=5000, running=2))
    assert use() is None                              # a first reading has no span
    # one second later: cpu0 idle half of it, cpu1 busy all of it; we used 0.5 s: others 1.0
    clock.update(t=11.0, own=3.5)
    f.write_text(_stat(1040, 20, 2000, 0, idle2=5000, running=2))
    assert use() == pytest.approx(1.0)
    # then our own two threads take both CPUs for 0.2 s (spinning or working): nobody else's
    clock.update(t=11.2, own=3.9)
    f.write_text(_stat(1040, 20, 2000, 0, idle2=5100, running=2))  # cpu2 is not ours: its load is not counted
    assert use() == pytest.approx(0.0)
    # idle CPUs: nothing, never negative (ticks are coarser than our own CPU time)
    clock.update(t=11.3, own=3.91)
    f.write_text(_stat(1050, 20, 2010, 0, running=2))
    assert use() == 0.0


def test_others_use_is_the_lesser_of_the_windows_time_and_the_threads_runnable_now(tmp_path):
    """A window also holds what others did while we were not running: in bench_workloads
    (MXNet's turns alternate with neogluon's) the CPU time alone put every neogluon turn on one
    thread. A concurrent neighbour is both in the window and runnable now."""
    f = tmp_path / "stat"
    clock = {"t": 0.0, "own": 0.0}
    ours = {"n": 2}
    use = threads.OthersUse(str(f), cpus=[0, 1], own=lambda: clock["own"], clock=lambda: clock["t"], ticks=100,
                            running=lambda: ours["n"])
    f.write_text(_stat(0, 0, 0, 0, running=3))
    assert use() is None
    # another process's turn kept both CPUs busy for most of the window, and waits now
    clock.update(t=0.2, own=0.05)
    f.write_text(_stat(0, 0, 5, 0, running=2))
    assert use() == 0.0                               # 2 running, both ours
    # a neighbour beside us: in the window and runnable now
    clock.update(t=0.4, own=0.25)
    f.write_text(_stat(0, 0, 5, 0, running=3))
    assert use() == pytest.approx(1.0)
    # a command runnable at this instant that hardly ran in the window
    clock.update(t=0.5, own=0.44)
    f.write_text(_stat(0, 0, 5, 0, running=3))
    assert use() == pytest.approx(0.0, abs=0.11)      # the window: 0.2 CPU-seconds, 0.19 ours
    # a host's threads on CPUs that are not ours: runnable, but not on our CPUs' time
    clock.update(t=0.6, own=0.64)
    f.write_text(_stat(0, 0, 5, 0, running=40))
    assert use() == 0.0


def test_others_use_without_proc_stat(tmp_path):
    use = threads.OthersUse(str(tmp_path / "missing"), cpus=[0])
    assert use() is None and use() is None
    f = tmp_path / "stat"
    f.write_text("cpu0 1 2\n")                        # truncated: unreadable, not a crash
    assert threads.OthersUse(str(f), cpus=[0])() is None
    f.write_text(_stat(1, 1, 1, 1))
    assert threads.OthersUse(str(f), cpus=[7])() is None  # none of our CPUs is listed
    if os.path.exists("/proc/stat"):
        assert 1 <= threads._own_running() <= len(os.listdir("/proc/self/task"))
        real = threads.OthersUse()
        assert real() is None
        sum(range(100000))
        assert real() >= 0.0


def test_a_half_taken_cpu_counts_as_taken():
    m = Fake(threads_now=2, others=0.3)
    p = m.policy()
    assert p.update() == 2
    m.others = 0.6
    assert p.update() == 1


def test_hybridized_calls_and_trainer_steps_adapt(monkeypatch):
    import neogluon as mx
    calls = []
    monkeypatch.setattr(threads, "adapt", lambda tiny=None, graph=None: calls.append(tiny))
    monkeypatch.setattr(threads, "adapting", lambda: True)
    net = mx.gluon.nn.Dense(3)
    net.initialize()
    net.hybridize()
    x = mx.nd.ones((2, 4))
    net(x)
    assert calls == [True]                            # 24 multiply-adds: tiny
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd")
    with mx.autograd.record():
        y = net(x)
    y.backward()
    trainer.step(2)
    assert calls == [True, True, None, None]          # backward and the Trainer keep what the graph chose
    w = mx.nd.ones((3, 3))
    w.attach_grad()
    with mx.autograd.record():
        z = (w * w).sum()
    z.backward()                                      # an imperative loop (no graph, no Trainer) adapts too
    assert calls == [True, True, None, None, None]


# ---------------------------------------------------------------------- tiny graphs: one thread
def test_a_tiny_graph_runs_on_one_thread_until_a_larger_graph_runs():
    m = Fake(threads_now=2, others=0)
    p = m.policy(interval=0.1)
    assert p(tiny=False) == 2 and m.sets == []
    assert p(tiny=True) == 1 and m.sets == [1]        # at once, though no reading is due
    for _ in range(5):
        m.t += 1                                      # readings due: the load allows 2
        assert p() == 1                               # backward, Trainer.step: still one
        assert p(tiny=True) == 1
    assert m.sets == [1]
    assert p(tiny=False) == 2 and m.sets == [1, 2]    # a larger graph: the load's number at once
    assert p() == 2 and m.sets == [1, 2]


def test_one_thread_only_while_every_graph_of_the_iteration_is_tiny():
    """A larger network followed by a tiny hybridized loss keeps the load's number through
    its backward and update; the iteration begins again when a graph is called again."""
    m = Fake(threads_now=2, others=0)
    p = m.policy(interval=0.1)
    net, loss, other = 1, 2, 3
    for _ in range(3):
        assert p(tiny=False, graph=net) == 2
        assert p(tiny=True, graph=loss) == 2          # the larger net of this iteration decides
        assert p() == 2                               # backward, Trainer.step
    assert m.sets == []
    assert p(tiny=True, graph=loss) == 1 and m.sets == [1]   # called again: a new iteration, tiny so far
    assert p(tiny=True, graph=other) == 1
    assert p(tiny=False, graph=net) == 2 and m.sets == [1, 2]
    for k in range(threads.ITERATION_GRAPHS + 1):     # graphs made anew each call: the set stays bounded
        p(tiny=True, graph=100 + k)
    assert len(p._iteration) <= threads.ITERATION_GRAPHS and m.n == 1


def test_the_load_is_followed_while_tiny_graphs_run():
    m = Fake(threads_now=2, others=0)
    p = m.policy(interval=0.1)
    p(tiny=True)
    m.others, m.t = 1, 1.0                            # a neighbour starts while tiny graphs run
    assert p(tiny=True) == 1 and p.base == 1
    assert p(tiny=False) == 1 and m.sets == [1]       # the larger graph gets the load's one thread
    m.others = 0
    assert p(tiny=True) == 1                          # tiny again: one thread at once, no reading
    for _ in range(3):                                # up after three readings, as before
        m.t += 1
        p(tiny=True)
    assert p.base == 2 and m.n == 1
    assert p(tiny=False) == 2 and m.sets == [1, 2]


def test_tiny_graphs_leave_the_users_number_alone():
    m = Fake(threads_now=2, others=0)
    p = m.policy(reason="OMP_NUM_THREADS is set")
    assert p(tiny=True) is None and m.sets == []
    m = Fake(threads_now=2, others=0)
    p = m.policy()
    p(tiny=False)
    m.n = 2
    m.set(3)                                          # the user's torch.set_num_threads(3)
    assert p(tiny=True) is None and m.n == 3 and "set_num_threads(3)" in p.reason
    assert p(tiny=False) is None and m.sets == [3]


def test_a_forked_child_keeps_its_threads_for_tiny_graphs(monkeypatch):
    m = Fake(threads_now=2, others=0)
    p = m.policy()
    p(tiny=False)
    monkeypatch.setattr(os, "getpid", lambda: -1)
    assert p(tiny=True) is None and m.sets == [] and p.reason == "forked process"
    m = Fake(threads_now=2, others=0)
    p = m.policy()
    p.fix(1, "DataLoader worker")
    assert p(tiny=False) is None and p(tiny=True) is None and m.sets == [1]


def test_what_is_tiny():
    assert threads.is_tiny(threads.TINY_MACS, threads.GRAIN_SIZE)
    assert not threads.is_tiny(threads.TINY_MACS + 1, 10)
    assert not threads.is_tiny(10, threads.GRAIN_SIZE + 1)  # an elementwise loop torch would split
    assert not threads.is_tiny(float("inf"), float("inf"))


def test_the_work_of_a_graph():
    import neogluon as mx
    from neogluon.cli.lenet import build_lenet
    from neogluon.executor.work import work
    net = build_lenet(mx)
    sym = net(mx.sym.var("data"))
    macs, largest = work(sym, {"data": (1, 1, 28, 28)})
    # conv 6x24x24 outputs of 25, conv 16x8x8 of 150, dense 256 -> 120 -> 84, dot 84 -> 10
    assert macs == 6 * 24 * 24 * 25 + 16 * 8 * 8 * 150 + 256 * 120 + 120 * 84 + 84 * 10 == 281640
    assert largest == 6 * 24 * 24
    assert threads.is_tiny(macs, largest)
    macs16, largest16 = work(sym, {"data": (16, 1, 28, 28)})
    assert (macs16, largest16) == (16 * macs, 16 * largest) and not threads.is_tiny(macs16, largest16)
    assert work(sym, {}) == (float("inf"), float("inf"))   # shapes unknown: not tiny
    assert work(mx.sym.RNN(mx.sym.var("x"), mx.sym.var("p"), mx.sym.var("s"), state_size=4, num_layers=1,
                           mode="rnn_tanh"), {"x": (2, 1, 3), "p": (36,), "s": (1, 1, 4)})[0] == float("inf")
    deconv = mx.sym.Deconvolution(mx.sym.var("x"), kernel=(2, 2), num_filter=3, no_bias=True)
    assert work(deconv, {"x": (1, 4, 5, 5)})[0] == 4 * 5 * 5 * 3 * 2 * 2


def _hybridized_dense(monkeypatch, *units):
    """A fake machine whose policy is the process's, and hybridized Dense layers of ``units``."""
    import neogluon as mx
    m = Fake(threads_now=2, others=0)
    monkeypatch.setattr(threads, "_POLICY", m.policy())
    nets = [mx.gluon.nn.Dense(u) for u in units]
    for net in nets:
        net.initialize()
        net.hybridize()
    return m, nets


def test_hybridized_graphs_set_one_thread_when_tiny_and_restore_the_load_count(monkeypatch):
    import neogluon as mx
    m, (small, large) = _hybridized_dense(monkeypatch, 3, 512)
    trainer = mx.gluon.Trainer(small.collect_params(), "sgd")
    x = mx.nd.ones((2, 4))
    with mx.autograd.record():
        y = small(x)
        assert m.n == 1
        z = (y * y).sum()                             # an eager loss: the iteration's one thread still
    assert m.n == 1
    z.backward()
    assert m.n == 2 and m.sets == [1, 2]              # the tiny work is done: the load's number again
    trainer.step(2)
    assert m.n == 2 and m.sets == [1, 2]
    with mx.autograd.record():
        small(x)
        small(mx.nd.ones((4096, 4)))                  # another shape, estimated again: 4096 x 3 outputs...
        assert m.sets == [1, 2, 1]                    # ... still tiny
        small(mx.nd.ones((16384, 4)))                 # 49152 outputs: torch would split them
        assert m.sets == [1, 2, 1, 2]
        small(x)
        assert m.sets == [1, 2, 1, 2, 1]
        large(mx.nd.ones((64, 512)))                  # 64 x 512 x 512 multiply-adds: the load's number at once
        assert m.sets == [1, 2, 1, 2, 1, 2]


def test_eager_work_after_a_tiny_graph_gets_the_load_number_back(monkeypatch):
    """Eager operators (an un-hybridized network, NDArray or numpy work) after a tiny
    prediction or a tiny training step used to stay on one thread until a larger graph was
    called; now the count goes back when the tiny work is done."""
    import neogluon as mx
    m, (small, other) = _hybridized_dense(monkeypatch, 3, 2)
    x = mx.nd.ones((2, 4))
    small(x)                                          # a prediction: one thread for its call only
    assert m.sets == [1, 2] and m.n == 2
    small(x)
    assert m.sets == [1, 2, 1, 2]
    with mx.autograd.record():
        y = small(x)
    with mx.autograd.pause():
        other(x)                                      # a prediction inside a tiny iteration leaves its one thread
    assert m.n == 1 and m.sets == [1, 2, 1, 2, 1]
    y.backward()
    assert m.n == 2 and m.sets == [1, 2, 1, 2, 1, 2]
    x.attach_grad()
    with mx.autograd.record():
        y = small(x)
    assert m.n == 1
    mx.autograd.grad(y, [x])                          # autograd.grad ends the tiny work as backward() does
    assert m.n == 2 and m.sets == [1, 2, 1, 2, 1, 2, 1, 2]


def test_a_tiny_prediction_that_raises_gives_the_number_back(monkeypatch):
    import neogluon as mx
    m, (small,) = _hybridized_dense(monkeypatch, 3)
    small(mx.nd.ones((2, 4)))
    assert m.sets == [1, 2]
    monkeypatch.setattr(small._cached_op, "compiled", lambda *a: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        small(mx.nd.ones((2, 4)))
    assert m.n == 2 and m.sets == [1, 2, 1, 2]
    out = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=3, name="fc")
    exe = out.simple_bind(mx.cpu(), data=(2, 4))
    exe.forward(is_train=False)
    monkeypatch.setattr(exe, "_compiled", lambda *a: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        exe.forward(is_train=False)
    assert m.n == 2 and m.sets == [1, 2, 1, 2, 1, 2, 1, 2]


def test_release_ends_the_tiny_iteration():
    m = Fake(threads_now=2, others=0)
    p = m.policy(interval=0.1)
    assert p.release() is None and m.sets == []        # before the policy ran: nothing to give back
    assert p(tiny=True, graph=1) == 1 and m.sets == [1]
    assert p.release() == 2 and m.sets == [1, 2] and not p.tiny
    assert p.release() == 2 and m.sets == [1, 2]        # nothing tiny runs: nothing to do
    assert p(tiny=True, graph=2) == 1 and m.sets == [1, 2, 1]   # a new iteration, tiny so far
    m.others, m.t = 1, 1.0
    assert p() == 1 and p.base == 1
    assert p.release() == 1 and m.sets == [1, 2, 1]     # the load's number is one now
    m.n = 2                                             # the user's torch.set_num_threads(2)
    p(tiny=True, graph=3)
    assert p.reason is not None and p.release() is None and m.n == 2
    m = Fake(threads_now=2, others=0)
    p = m.policy()
    p(tiny=True, graph=1)
    p.fix(1, "DataLoader worker")                       # fixed during a tiny iteration: stays fixed
    assert p.release() is None and m.n == 1 and m.sets == [1, 1]


def test_the_work_is_estimated_only_while_the_policy_adapts(monkeypatch):
    """The estimate (about 2 ms per new shape for a larger graph) is for the policy only: not
    made when the user chose the number (OMP_NUM_THREADS, torch.set_num_threads) or turned the
    adaptation off."""
    import neogluon as mx
    from neogluon.executor import executor
    from neogluon.gluon import cached
    estimates = []

    def counted(symbol, shapes, dtypes=None):
        estimates.append(dict(shapes))
        return 0, 0
    monkeypatch.setattr(cached, "work", counted)
    monkeypatch.setattr(executor, "work", counted)
    m = Fake(threads_now=2, others=0)
    monkeypatch.setattr(threads, "_POLICY", m.policy(reason="OMP_NUM_THREADS is set"))
    net = mx.gluon.nn.Dense(3)
    net.initialize()
    net.hybridize()
    for n in (1, 2, 3):
        net(mx.nd.ones((n, 4)))
    exe = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=3, name="fc").simple_bind(mx.cpu(), data=(2, 4))
    exe.forward(is_train=False)
    assert estimates == [] and m.sets == []
    monkeypatch.setattr(threads, "_POLICY", m.policy())  # adapting: estimated once per shape
    net(mx.nd.ones((4, 4)))
    net(mx.nd.ones((4, 4)))
    exe.forward(is_train=False)
    assert len(estimates) == 2


def test_executor_forward_and_backward_give_the_number_back(monkeypatch):
    import neogluon as mx
    m = Fake(threads_now=2, others=0)
    monkeypatch.setattr(threads, "_POLICY", m.policy())
    out = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=3, name="fc")
    exe = out.simple_bind(mx.cpu(), data=(2, 4))
    exe.forward(is_train=False, data=mx.nd.ones((2, 4)))
    assert m.sets == [1, 2]                           # a prediction: one thread for its call only
    exe.forward(is_train=True)
    assert m.n == 1
    exe.backward()
    assert m.n == 2 and m.sets == [1, 2, 1, 2]


def test_a_tiny_hybridized_loss_leaves_a_larger_network_its_threads(monkeypatch):
    import neogluon as mx
    m = Fake(threads_now=2, others=0)
    monkeypatch.setattr(threads, "_POLICY", m.policy())
    net = mx.gluon.nn.Dense(512)
    loss = mx.gluon.loss.L2Loss()
    for block in (net, loss):
        block.initialize()
        block.hybridize()
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd")
    x, y = mx.nd.ones((64, 512)), mx.nd.zeros((64, 512))
    for _ in range(3):
        with mx.autograd.record():
            out = loss(net(x), y)                     # the loss graph: 64 x 512 outputs, no products...
        out.backward()
        trainer.step(64)
    assert m.sets == [] and m.n == 2                  # ... but the network's products keep both threads


def test_module_and_executor_calls_adapt(monkeypatch):
    """The legacy API's graph calls adapt too: ``Module.fit`` on the MNIST MLP ran 6x slower
    than MXNet beside two busy processes at torch's fixed two threads, 1.03x adapting
    (benchmarks/bench_module.py, 2026-11-28, load 2.5)."""
    import numpy as np
    import neogluon as mx
    calls = []
    monkeypatch.setattr(threads, "adapt", lambda tiny=None, graph=None: calls.append(tiny))
    monkeypatch.setattr(threads, "adapting", lambda: True)
    data = mx.sym.Variable("data")
    out = mx.sym.FullyConnected(data, num_hidden=3, name="fc")
    exe = out.simple_bind(mx.cpu(), data=(2, 4))
    exe.forward(is_train=False, data=mx.nd.ones((2, 4)))
    assert calls == [True]                            # 24 multiply-adds: tiny
    big = mx.sym.FullyConnected(data, num_hidden=512, name="big").simple_bind(mx.cpu(), data=(64, 512))
    big.forward(is_train=False)
    assert calls == [True, False]                     # 64 x 512 x 512: the load's number
    mod = mx.mod.Module(mx.sym.SoftmaxOutput(out, name="softmax"), context=mx.cpu())
    train = mx.io.NDArrayIter(np.ones((4, 4), "float32"), np.zeros(4, "float32"), batch_size=2)
    mod.fit(train, num_epoch=1)
    assert len(calls) >= 3  # one forward per batch


def test_the_process_policy_honours_the_environment_at_import():
    code = ("import neogluon, torch; from neogluon import threads; p = threads.policy(); threads.adapt(); "
            "print(p.reason, torch.get_num_threads())")
    env = {k: v for k, v in os.environ.items()
           if k not in ("OMP_NUM_THREADS", "MXNET_CPU_WORKER_NTHREADS", "NEOGLUON_ADAPTIVE_THREADS")}
    env["PYTHONPATH"] = ROOT
    out = subprocess.run([sys.executable, "-c", code], env=dict(env, OMP_NUM_THREADS="1"), capture_output=True,
                         text=True, check=True).stdout.split()
    assert out[:2] == ["OMP_NUM_THREADS", "is"] and out[-1] == "1"
    out = subprocess.run([sys.executable, "-c", code], env=dict(env, NEOGLUON_ADAPTIVE_THREADS="0"),
                         capture_output=True, text=True, check=True).stdout.split()
    assert out[0] == "NEOGLUON_ADAPTIVE_THREADS=0"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out[0] == "None" and 1 <= int(out[1]) <= len(os.sched_getaffinity(0))


# ---------------------------------------------------------------------- OpenMP's wait policy (configure)
def test_wait_policy_is_passive_with_a_short_spin_unless_chosen():
    env = {}
    assert threads.configure(env, {}) == {"OMP_WAIT_POLICY": "PASSIVE", "GOMP_SPINCOUNT": threads.SPIN_COUNT}
    assert env == {"OMP_WAIT_POLICY": "PASSIVE", "GOMP_SPINCOUNT": threads.SPIN_COUNT}


def test_a_chosen_wait_policy_is_left_alone_spin_count_and_all():
    for chosen in ({"OMP_WAIT_POLICY": "ACTIVE"}, {"OMP_WAIT_POLICY": "PASSIVE"},
                   {"OMP_WAIT_POLICY": "passive", "GOMP_SPINCOUNT": "0"}):
        env = dict(chosen)
        assert threads.configure(env, {}) == {} and env == chosen


def test_a_chosen_spin_count_is_kept_with_the_passive_policy():
    for spins in ("0", "300000", "infinite"):
        env = {"GOMP_SPINCOUNT": spins}
        assert threads.configure(env, {}) == {"OMP_WAIT_POLICY": "PASSIVE"}
        assert env == {"OMP_WAIT_POLICY": "PASSIVE", "GOMP_SPINCOUNT": spins}


def test_nothing_is_set_once_torch_is_loaded():
    env = {}
    assert threads.configure(env, {"torch": object()}) == {} and env == {}  # too late: OpenMP read it already


def test_the_thread_count_variables_do_not_change_the_wait_policy():
    for name in threads.USER_VARIABLES:
        env = {name: "1"}
        threads.configure(env, {})
        assert env == {name: "1", "OMP_WAIT_POLICY": "PASSIVE", "GOMP_SPINCOUNT": threads.SPIN_COUNT}


def test_import_sets_the_wait_policy_in_a_fresh_process():
    code = "import os, neogluon; print(os.environ.get('OMP_WAIT_POLICY'), os.environ.get('GOMP_SPINCOUNT'))"
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    env["PYTHONPATH"] = ROOT
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["PASSIVE", threads.SPIN_COUNT]
    out = subprocess.run([sys.executable, "-c", code], env=dict(env, GOMP_SPINCOUNT="5"), capture_output=True,
                         text=True, check=True)
    assert out.stdout.split() == ["PASSIVE", "5"]
