"""Distributed training on torch.distributed (gloo on 127.0.0.1) behind MXNet's KVStore API.

Two workers started by ``neogluon launch`` each train on half of every global batch (with
``tests/_dist_worker.py``, which also asserts the KVStore API across workers) and must end
with the parameters of one process training on the whole batch split over two contexts,
which is what MXNet's per-worker BatchNorm statistics amount to. A killed worker must make
the other fail with MXNetError naming it; a wrong world size, an unreachable rendezvous or
missing variables are MXNetErrors.
"""
import json
import os
import random
import subprocess
import sys
import time

import numpy as np
import pytest

import neogluon as mx
from neogluon.base import MXNetError
from neogluon.cli import main
from neogluon.cli.launch import free_port
from neogluon.kvstore.compression import create_compression

sys.path.insert(0, os.path.dirname(__file__))
import _dist_worker as worker  # noqa: E402  pylint: disable=wrong-import-position

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
WORKER = os.path.join(HERE, "_dist_worker.py")


def _env(**extra):
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    env["OMP_NUM_THREADS"] = "1"
    env["NEOGLUON_DIST_TIMEOUT"] = "40"
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def two_workers(tmp_path_factory):
    """Run the two-worker job once: its output and the saved parameters of each rank."""
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run([sys.executable, "-m", "neogluon", "launch", "-n", "2", WORKER, "train", str(out)],
                          env=_env(), capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout, [dict(np.load(out / ("rank%d.npz" % r))) for r in range(2)]


def test_launch_prefixes_each_line_with_the_rank(two_workers):
    stdout, _ = two_workers
    assert "[0] worker 0 done" in stdout and "[1] worker 1 done" in stdout


@pytest.mark.parametrize("case", range(len(worker.GLUON_CASES)))
def test_trainer_two_workers_match_one_process_with_the_whole_batch(two_workers, case):
    _, saved = two_workers
    kind, kvstore, uok, ndev = worker.GLUON_CASES[case]
    local_uok = None if kvstore != "horovod" else False
    ref = worker.train_gluon(kind, [mx.cpu(k) for k in range(2 * ndev)], slice(None), "device", local_uok)
    for j, copies in enumerate(ref):
        for rank in range(2):  # rank r's device k has context r*ndev+k's BatchNorm statistics
            for k in range(ndev):
                np.testing.assert_allclose(saved[rank]["gluon%d_%d_%d" % (case, j, k)], copies[rank * ndev + k],
                                           rtol=1e-5, atol=1e-5,
                                           err_msg="%s %s parameter %d rank %d" % (kind, kvstore, j, rank))


def test_module_fit_two_workers_match_one_process(two_workers):
    _, saved = two_workers
    ref = worker.train_module([mx.cpu(0), mx.cpu(1)], slice(None), "local")
    assert ref
    for name, value in ref.items():
        for rank in range(2):
            np.testing.assert_allclose(saved[rank]["module_" + name], value, rtol=1e-5, atol=1e-5)


def test_a_killed_worker_makes_the_other_fail_naming_it():
    port = str(free_port())
    procs = [subprocess.Popen([sys.executable, WORKER, "kill"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, cwd=ROOT,
                              env=_env(MASTER_ADDR="127.0.0.1", MASTER_PORT=port, WORLD_SIZE="2", RANK=str(r)))
             for r in range(2)]
    start = time.monotonic()
    _, err0 = procs[0].communicate(timeout=60)
    procs[1].communicate(timeout=10)
    assert time.monotonic() - start < 60
    assert procs[1].returncode == -9
    assert procs[0].returncode != 0
    assert "MXNetError" in err0 and "rank 0 of 2" in err0 and "worker rank 1 exited" in err0, err0


def test_launch_stops_the_others_when_one_fails(tmp_path, capsys):
    script = tmp_path / "fail.py"
    script.write_text("import os, sys, time\n"
                      "if os.environ['RANK'] == '1':\n    print('bye', file=sys.stderr)\n    sys.exit(3)\n"
                      "time.sleep(120)\n")
    start = time.monotonic()
    code = main(["launch", "-n", "2", "--grace", "0.5", str(script)])
    assert code == 3 and time.monotonic() - start < 60
    err = capsys.readouterr().err
    assert "[1] bye" in err and "worker rank 1 exited with code 3" in err


def test_launch_ssh_commands(tmp_path):
    from neogluon.cli import build_parser
    from neogluon.cli.launch import worker_commands
    hosts = tmp_path / "hosts"
    hosts.write_text("# the machines\nnode-a\nnode-b  # second\n\n")
    script = tmp_path / "train.py"
    script.write_text("")
    args = build_parser().parse_args(["launch", "-n", "3", "--launcher", "ssh", "-H", str(hosts), "--port", "9000",
                                      str(script), "--lr", "0.1"])
    commands = worker_commands(args)
    assert [c[1][3] for c in commands] == ["node-a", "node-b", "node-a"]
    remote = commands[2][1][4]
    for var in ("MASTER_ADDR=node-a", "MASTER_PORT=9000", "RANK=2", "WORLD_SIZE=3", "LOCAL_RANK=1",
                "DMLC_PS_ROOT_URI=node-a", "DMLC_WORKER_ID=2", "DMLC_NUM_WORKER=3", "DMLC_ROLE=worker"):
        assert var in remote
    assert remote.endswith("--lr 0.1")


def test_launch_needs_a_hostfile_for_ssh(tmp_path, capsys):
    script = tmp_path / "train.py"
    script.write_text("")
    assert main(["launch", "-n", "2", "--launcher", "ssh", str(script)]) == 2
    assert "host file" in capsys.readouterr().err


RENDEZVOUS_CASES = ("import os, neogluon as mx\n"
                    "for case in CASES:\n"
                    "    for k in [k for k in os.environ if k.startswith(('MASTER_', 'DMLC_', 'RANK', 'WORLD_'))]:\n"
                    "        del os.environ[k]\n"
                    "    os.environ.update(case)\n"
                    "    try:\n        mx.kv.create('dist_sync')\n"
                    "    except mx.base.MXNetError as e:\n        print('MXNetError:', e)\n"
                    "    else:\n        print('no error')\n")


def test_rendezvous_errors():
    """Missing variables, a rank outside the world, a world size nobody completes and an
    address nobody listens on: each an MXNetError (one process, to start Python once)."""
    port = str(free_port())
    cases = [{}, dict(MASTER_ADDR="127.0.0.1", MASTER_PORT="1", WORLD_SIZE="2", DMLC_WORKER_ID="2")]
    # one worker of a world of 2 (nobody else comes); rank 1 alone (nobody listens)
    cases += [dict(DMLC_PS_ROOT_URI="127.0.0.1", DMLC_PS_ROOT_PORT=port, DMLC_NUM_WORKER="2", RANK=rank)
              for rank in ("0", "1")]
    proc = subprocess.run([sys.executable, "-c", "CASES = %r\n" % (cases,) + RENDEZVOUS_CASES],
                          env=_env(NEOGLUON_DIST_TIMEOUT="2"), capture_output=True, text=True, timeout=60, cwd=ROOT)
    lines = proc.stdout.splitlines()
    assert len(lines) == 4 and all(line.startswith("MXNetError") for line in lines), proc.stdout + proc.stderr
    assert "MASTER_ADDR (or DMLC_PS_ROOT_URI)" in lines[0] and "neogluon launch" in lines[0]
    assert "RANK=2 is not in [0, WORLD_SIZE=2)" in lines[1]
    for line in lines[2:]:
        assert "could not join the 2 workers at 127.0.0.1:%s within 2s" % port in line, line


def test_two_bit_compression_quantizes_with_a_residual():
    comp = create_compression({"type": "2bit", "threshold": 0.5})
    import torch
    g = torch.tensor([0.3, 0.6, -0.7, -0.2, 1.4])
    assert comp(0, g).tolist() == [0, 0.5, -0.5, 0, 0.5]
    assert comp(0, g).tolist() == [0.5, 0.5, -0.5, 0, 0.5]  # residual 0.6, 0.7, -0.9, -0.4, 1.8
    assert create_compression({"type": "2bit"}).threshold == 0.5
    with pytest.raises(MXNetError, match="Unknown type for gradient compression 1bit"):
        create_compression({"type": "1bit"})
    with pytest.raises(MXNetError, match="greater than 0"):
        create_compression({"type": "2bit", "threshold": 0})


def test_unknown_kvstore_type():
    with pytest.raises(MXNetError, match="unknown KVStore type 'dist_foo'"):
        mx.kv.create("dist_foo")


def test_split_sampler_as_mxnet_examples_define_it():
    sampler = mx.gluon.data.SplitSampler(10, num_parts=3, part_index=2)
    assert len(sampler) == 3
    random.seed(0)
    first = list(sampler)
    random.seed(0)
    expected = [6, 7, 8]
    random.shuffle(expected)
    assert first == expected
    parts = [sorted(mx.gluon.data.SplitSampler(10, 3, k)) for k in range(3)]
    assert parts == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    with pytest.raises(ValueError):
        mx.gluon.data.SplitSampler(10, 2, 2)


TWO_BIT = json.load(open(os.path.join(HERE, "fixtures", "extra", "kvstore", "two_bit.json")))


@pytest.mark.parametrize("case", range(len(TWO_BIT["cases"])))
def test_two_bit_compression_matches_mxnet_device_kvstore(case):
    """MXNet's 'device' store quantizes each device's push with its own residual."""
    rec = TWO_BIT["cases"][case]
    params = {"type": "2bit"} if rec["threshold"] is None else {"type": "2bit", "threshold": rec["threshold"]}
    kv = mx.kv.create("device")
    kv.set_gradient_compression(params)
    kv.init(0, mx.nd.zeros(len(rec["grads"][0])))
    out = mx.nd.zeros(len(rec["grads"][0]))
    comps = [create_compression(params) for _ in rec["grads"]]  # what each dist worker sends
    import torch
    for pulled in rec["pulled"]:
        kv.push(0, [mx.nd.array(g, ctx=mx.cpu(i)) for i, g in enumerate(rec["grads"])])
        kv.pull(0, out=out)
        np.testing.assert_allclose(out.asnumpy(), pulled, rtol=1e-6)
        sent = sum(c(0, torch.tensor(g, dtype=torch.float32)) for c, g in zip(comps, rec["grads"]))
        np.testing.assert_allclose(sent.numpy(), pulled, rtol=1e-6)


def test_compressed_adam_push_matches_mxnet():
    kv = mx.kv.create("device")
    kv.set_gradient_compression({"type": "2bit", "threshold": 0.5})
    kv.set_optimizer(mx.optimizer.Adam(learning_rate=0.1))
    kv.init("w", mx.nd.ones((3,)))
    kv.push("w", mx.nd.ones((3,)))
    w = mx.nd.zeros(3)
    kv.pull("w", out=w)
    np.testing.assert_allclose(w.asnumpy(), TWO_BIT["adam_weight_after_push_of_ones"], rtol=1e-6)
