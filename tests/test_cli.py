"""The ``neogluon`` command: every subcommand through ``python -m neogluon`` in a subprocess,
and the full set of user mistakes through ``neogluon.cli.main`` in-process (the same
code path, minus the interpreter start-up): one line on stderr, non-zero exit."""
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from neogluon.cli import main
from neogluon.compat import unalias_mxnet

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = os.path.join(ROOT, "tests", "fixtures", "mxnet-1.9.1", "models")
LENET = os.path.join(MODELS, "lenet-symbol.json")
LENET_PARAMS = os.path.join(MODELS, "lenet-0000.params")
MLP = os.path.join(MODELS, "mlp_bn_dropout-symbol.json")
MLP_PARAMS = os.path.join(MODELS, "mlp_bn_dropout-0000.params")

LEGACY_SCRIPT = '''
"""An MXNet 1.x script, unchanged."""
import sys
import mxnet as mx
from mxnet import autograd, gluon, nd
from mxnet.gluon import nn
import mxnet.ndarray as F

net = nn.HybridSequential()
net.add(nn.Dense(8, activation="relu"), nn.Dense(3))
net.initialize(mx.init.Xavier())
net.hybridize()
x = mx.nd.ones((4, 5))
trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
with autograd.record():
    loss = mx.gluon.loss.L2Loss()(net(x), nd.zeros((4, 3)))
loss.backward()
trainer.step(4)
data = mx.sym.var("data")
fc = mx.sym.FullyConnected(data, num_hidden=3, name="fc")
arg_shapes, out_shapes, _ = fc.infer_shape(data=(4, 5))
print("module", mx.__name__, "argv", sys.argv[1:])
print("shapes", arg_shapes, out_shapes)
print("relu", F.relu(nd.array([-1, 2])).asnumpy().tolist(), "name", __name__)
sys.exit(int(sys.argv[1]))
'''


def neogluon(*args, cwd=None, timeout=120):
    """``python -m neogluon ARGS`` in a subprocess: (returncode, stdout, stderr)."""
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               MPLBACKEND="Agg")
    proc = subprocess.run([sys.executable, "-m", "neogluon"] + list(args), cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)
    return proc.returncode, proc.stdout, proc.stderr


def assert_one_line_error(code, err, *fragments):
    assert code != 0
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err and "error" in lines[0]
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def call(capsys, *args):
    """``neogluon.cli.main`` in-process: (exit code, stdout, stderr)."""
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


# --- subprocess runs of every subcommand ------------------------------------------------------

def test_demo_end_to_end(tmp_path):
    pytest.importorskip("sklearn")
    pytest.importorskip("matplotlib")
    out_dir = tmp_path / "out"
    code, out, err = neogluon("demo", "--epochs", "1", "--limit", "192", "--batch-size", "64",
                              "--out", str(out_dir), timeout=300)
    assert code == 0, err
    assert "Traceback" not in err
    assert "imperative epoch 1/1" in out and "hybridized epoch 1/1" in out
    assert "test accuracy: imperative" in out
    assert "speed-up of the hybridized training step:" in out and "inference on one image at a time:" in out
    assert "compiled backend: not run (NEOGLUON_COMPILE=0)" in out  # tests/conftest.py turns compiling off
    assert "re-imported model's outputs agree" in out
    for name in ("lenet-symbol.json", "lenet-0000.params", "lenet-curves.png"):
        assert (out_dir / name).stat().st_size > 0
    assert (out_dir / "lenet-curves.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    graph = json.loads((out_dir / "lenet-symbol.json").read_text())
    assert {"nodes", "heads", "arg_nodes"} <= set(graph)
    # same initial weights and batch order: both runs report the same loss and accuracies
    epochs = {line.split()[0]: line.split(":", 1)[1].rsplit("(", 1)[0]
              for line in out.splitlines() if "epoch 1/1:" in line}
    assert epochs["imperative"] == epochs["hybridized"]


def test_run_legacy_script(tmp_path):
    script = tmp_path / "legacy.py"
    script.write_text(LEGACY_SCRIPT)
    code, out, err = neogluon("run", str(script), "3", "--flag", cwd=tmp_path)
    assert code == 3, err
    assert "module mxnet argv ['3', '--flag']" in out  # the alias module, neogluon underneath
    assert "shapes [(4, 5), (3, 5), (3,)] [(4, 3)]" in out
    assert "relu [0.0, 2.0] name __main__" in out


def test_run_script_error_shows_only_the_scripts_traceback(tmp_path):
    script = tmp_path / "broken.py"
    script.write_text("import mxnet as mx\n\ndef f():\n    return mx.nd.ones((2, 3)) + mx.nd.ones((4, 5))\n\nf()\n")
    code, _, err = neogluon("run", str(script))
    assert code == 1
    assert 'broken.py", line 6' in err and "MXNetError" in err
    assert "runpy" not in err and "cli" not in err


def test_inspect_prints_summary_and_checks_params(tmp_path):
    graph = tmp_path / "lenet.gv"
    code, out, err = neogluon("inspect", LENET, "--shape", "data=1,1,28,28", "--params", LENET_PARAMS,
                              "--plot", str(graph))
    assert code == 0, err
    assert "Layer (type)" in out and "Output Shape" in out and "Param #" in out and "Previous Layer" in out
    assert "lenet0_conv0_fwd(Convolution)" in out and "6x24x24" in out
    assert "Total params: 43576" in out
    assert "9 arrays, 44416 values, consistent with the graph; inputs: data" in out
    assert "digraph" in graph.read_text()


def test_inspect_rejects_a_json_that_is_not_a_symbol(tmp_path):
    path = tmp_path / "config.json"
    path.write_text('{"learning_rate": 0.1}')
    code, _, err = neogluon("inspect", str(path))
    assert_one_line_error(code, err, "not an MXNet symbol file")


def test_bench_prints_one_table():
    code, out, err = neogluon("bench", "--only", "ndarray", timeout=300)
    assert code == 0, err
    lines = out.splitlines()
    assert "cores" in lines[0] and "torch" in lines[0]
    assert lines[1].split()[:5] == ["bench", "case", "imperative", "hybridized", "raw"]
    rows = [line for line in lines[2:] if line.startswith("ndarray")]
    assert len(rows) >= 5 and all(line.count("us") == 2 for line in rows)


# --- user mistakes, in-process ----------------------------------------------------------------

@pytest.mark.parametrize("args, fragments", [
    (["frobnicate"], ["invalid choice", "frobnicate"]),
    (["demo", "--epochs", "0"], ["--epochs", "'0'"]),
    (["demo", "--batch-size", "many"], ["--batch-size", "many"]),
    (["demo", "--ctx", "tpu"], ["--ctx", "tpu"]),
    (["run"], ["required", "script"]),
    (["inspect"], ["required"]),
    (["inspect", LENET, "--shape", "data"], ["--shape", "data"]),
    (["inspect", LENET, "--shape", "data=1,a,28"], ["--shape"]),
    (["bench", "--threads", "two"], ["--threads"]),
])
def test_bad_arguments(capsys, args, fragments):
    code, out, err = call(capsys, *args)
    assert code == 2 and out == ""
    assert_one_line_error(code, err, *fragments)


def test_no_command_prints_usage(capsys):
    code, out, err = call(capsys)
    assert code == 2 and out == ""
    for command in ("demo", "run", "inspect", "bench"):
        assert command in err


def test_version(capsys):
    code, out, _ = call(capsys, "--version")
    assert code == 0 and out.startswith("neogluon ") and "MXNet 1.9.1" in out


def test_demo_gpu_without_gpu(capsys, tmp_path):
    import neogluon as mx
    if mx.num_gpus() > 0:
        pytest.skip("this machine has a GPU")
    code, _, err = call(capsys, "demo", "--ctx", "gpu", "--out", str(tmp_path))
    assert_one_line_error(code, err, "--ctx gpu", "no GPU")


@pytest.fixture
def unaliased():
    """Take out the 'mxnet' alias that an in-process 'run' installs."""
    yield
    unalias_mxnet()


def test_run_errors(capsys, tmp_path, unaliased):
    code, _, err = call(capsys, "run", str(tmp_path / "missing.py"))
    assert_one_line_error(code, err, "no such script", "missing.py")
    code, _, err = call(capsys, "run", str(tmp_path))
    assert_one_line_error(code, err, "directory")
    script = tmp_path / "old.py"
    script.write_text("import mxnet.no_such_module\n")
    code, _, err = call(capsys, "run", str(script))
    assert_one_line_error(code, err, "old.py:1", "mxnet.no_such_module")


def _write(path, content, binary=False):
    if binary:
        path.write_bytes(content)
    else:
        path.write_text(content)
    return str(path)


def _inspect_error_cases():
    """case -> (function of a tmp dir giving the arguments after 'inspect', message fragments)."""
    return {
        "missing": (lambda d: [str(d / "nope-symbol.json")], ["no such symbol file"]),
        "directory": (lambda d: [str(d)], ["is a directory"]),
        "not json": (lambda d: [_write(d / "a.json", "{nodes")], ["is not JSON"]),
        "json list": (lambda d: [_write(d / "a.json", "[1, 2]")], ["not an MXNet symbol file"]),
        "bad graph": (lambda d: [_write(d / "a.json", '{"nodes": 3, "heads": 1}')], ["not a valid MXNet symbol"]),
        "missing params": (lambda d: [LENET, "--params", str(d / "x.params")], ["no such params file"]),
        "corrupt params": (lambda d: [LENET, "--params", _write(d / "x.params", b"\x12\x01junk", True)],
                           ["not an MXNet .params file"]),
        "other model's params": (lambda d: [LENET, "--params", MLP_PARAMS], ["does not match the graph", "mlp"]),
        "unnamed params": (lambda d: [LENET, "--params", _save(d / "list.params", lambda p: list(p.values()))],
                           ["unnamed arrays"]),
        "shape mismatch": (lambda d: [LENET, "--params", LENET_PARAMS, "--shape", "data=1,3,28,28"],
                           ["does not match the graph", "Convolution"]),
        "unknown input": (lambda d: [LENET, "--shape", "image=1,1,28,28"], ["--shape image", "no input of that name"]),
        "incomplete shape": (lambda d: [LENET, "--shape", "data=1,1,28"], ["cannot infer the output shapes"]),
        "params without value": (lambda d: [MLP, "--shape", "data=2,20", "--params",
                                            _save(d / "partial.params", _aux_only)], ["no value for"]),
    }


def _save(path, select):
    import neogluon as mx
    mx.nd.save(str(path), select(mx.nd.load(MLP_PARAMS)))
    return str(path)


def _aux_only(params):
    return {k: v for k, v in params.items() if k.startswith("aux:")}


@pytest.mark.parametrize("case", sorted(_inspect_error_cases()))
def test_inspect_errors(capsys, tmp_path, case):
    make_args, fragments = _inspect_error_cases()[case]
    code, out, err = call(capsys, "inspect", *make_args(tmp_path))
    assert code != 0 and "Layer (type)" not in out
    assert_one_line_error(code, err, *fragments)


def test_inspect_without_shapes_and_plot_error(capsys, tmp_path):
    code, out, err = call(capsys, "inspect", LENET)
    assert code == 0 and err == ""
    assert "lenet0_dot0(dot)" in out and "Total params:" in out
    code, _, err = call(capsys, "inspect", LENET, "--plot", str(tmp_path / "graph.nosuchformat"))
    assert_one_line_error(code, err, "cannot draw", "graph.gv")


def test_bench_errors(capsys, tmp_path):
    code, _, err = call(capsys, "bench", "--only", "nosuch")
    assert_one_line_error(code, err, "bench_nosuch.py")
    code, _, err = call(capsys, "bench", "--dir", str(tmp_path / "none"))
    assert_one_line_error(code, err, "no benchmarks directory")


def test_bench_table_format():
    from neogluon.cli.bench import format_table
    table = format_table([("gluon", "lenet b1 infer", {"imperative": 2e-3, "hybridized": 1e-3, "torch": 5e-4}),
                          ("ndarray", "add", {"imperative": 4e-6, "torch": 2e-6})]).splitlines()
    assert table[1].split() == ["gluon", "lenet", "b1", "infer", "2000.0us", "1000.0us", "500.0us", "0.50x", "2.00x"]
    assert table[2].split() == ["ndarray", "add", "4.0us", "-", "2.0us", "-", "2.00x"]


def test_shape_parser():
    from neogluon.cli.inspect_model import parse_shape
    assert parse_shape("data=1,3,224,224") == ("data", (1, 3, 224, 224))
    assert parse_shape(" x = 2,3 ") == ("x", (2, 3))
    for bad in ("data", "=1,2", "data=", "data=a,b", "data=1,-2"):
        with pytest.raises(ValueError):
            parse_shape(bad)


def test_digits_are_shaped_like_mnist():
    pytest.importorskip("sklearn")
    from neogluon.cli.digits import load_digits_28
    x_train, y_train, x_test, y_test = load_digits_28()
    assert x_train.shape[1:] == (1, 28, 28) and x_train.dtype == np.float32
    assert len(x_train) + len(x_test) == 1797 and len(x_test) == 359
    assert x_train.min() == 0 and x_train.max() == 1
    assert np.all(x_train[:, :, :2] == 0) and np.all(x_train[:, :, -2:] == 0)
    assert sorted(set(y_test.tolist())) == list(range(10))


# --- neogluon doctor -----------------------------------------------------------------------------

def _doctor_json(tmp_path, **env):
    """``neogluon doctor --json`` with extra environment variables, as a dict."""
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        code, out, err = neogluon("doctor", "--json", cwd=str(tmp_path))
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    assert code == 0, err
    return json.loads(out)


def test_doctor_reports_versions_threads_extras_and_store(tmp_path):
    import torch
    import neogluon
    store = tmp_path / "home" / "models"
    store.mkdir(parents=True)
    (store / "resnet18_v1-a0666292.params").write_bytes(b"")
    report = _doctor_json(tmp_path, MXNET_HOME=str(tmp_path / "home"))
    assert report["versions"] == {"neogluon": neogluon.__version__, "mxnet_api": "1.9.1",
                                  "torch": torch.__version__, "numpy": np.__version__}
    assert report["python"]["version"] == sys.version.split()[0]
    assert report["cpu"]["logical_cores"] == os.cpu_count()
    threads = report["threads"]
    assert threads["torch_intra_op_threads"] == 1  # the subprocess runs with OMP_NUM_THREADS=1
    assert threads["environment"]["OMP_NUM_THREADS"] == "1"
    assert report["gpus"]["cuda_available"] == torch.cuda.is_available()
    # the extras CI installs, read from the package metadata with each requirement's version
    for extra in ("test", "demo", "viz"):
        assert report["extras"][extra]["installed"], report["extras"][extra]
    assert report["extras"]["demo"]["packages"]["tqdm"]
    assert report["model_store"] == {"directory": str(store), "exists": True,
                                     "params_files": ["resnet18_v1-a0666292.params"]}


def test_doctor_tells_which_mxnet_import_gives(tmp_path):
    report = _doctor_json(tmp_path)
    assert report["mxnet_import"]["provider"] in ("none", "neogluon")
    fake = tmp_path / "site" / "mxnet"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise RuntimeError('doctor must not import mxnet')\n")
    report = _doctor_json(tmp_path, PYTHONPATH=str(tmp_path / "site") + os.pathsep + ROOT)
    assert report["mxnet_import"]["provider"] == "real"
    assert report["mxnet_import"]["origin"] == str(fake / "__init__.py")


def test_doctor_text_has_every_section():
    code, out, err = neogluon("doctor")
    assert code == 0, err
    for heading in ("Python", "Platform", "Cpu", "Threads", "Versions", "Mxnet Import", "Gpus", "Extras",
                    "Model Store"):
        assert "----------%s----------" % heading in out
    assert "torch_intra_op_threads" in out and "mxnet_api               : 1.9.1" in out


@pytest.mark.slow
def test_demo_under_load_never_concludes_beyond_its_measurements(tmp_path):
    """With a CPU-bound process competing for the cores, the demo either states a ratio
    whose 95% interval is narrow enough to support it, or says the machine is too busy."""
    pytest.importorskip("sklearn")
    pytest.importorskip("matplotlib")
    burner = subprocess.Popen([sys.executable, "-c", "import torch\na = torch.randn(384, 384)\n"
                               "for _ in range(10 ** 7): a @ a"])
    try:
        env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
        proc = subprocess.run([sys.executable, "-m", "neogluon", "demo", "--epochs", "1", "--out", str(tmp_path)],
                              env=dict(env, PYTHONPATH=ROOT, MPLBACKEND="Agg"), capture_output=True, text=True,
                              timeout=600)
    finally:
        burner.kill()
        burner.wait()
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stdout.splitlines() if line.startswith("speed-up of")]
    assert len(lines) == 2, proc.stdout
    for line in lines:
        if "too busy to conclude" in line:
            continue
        median, low, high = (float(v) for v in re.search(r": ([\d.]+)x .*interval ([\d.]+)x-([\d.]+)x", line).groups())
        assert low <= median <= high and (high - low) / median <= 0.2 + 0.01, line


def test_bench_passes_mxnet_and_under_load_to_benchmarks_that_take_them(capsys, tmp_path):
    (tmp_path / "bench_takes.py").write_text(
        "def cli_rows(quick, mxnet=None, under_load=False):\n"
        "    return {'case %s %s %s' % (quick, mxnet, under_load): {'imperative': 1e-3}}\n")
    (tmp_path / "bench_plain.py").write_text(
        "def cli_rows(quick):\n    return {'plain %s' % quick: {'imperative': 2e-3}}\n")
    code, out, _ = call(capsys, "bench", "--dir", str(tmp_path), "--mxnet", "/some/python", "--under-load")
    assert code == 0
    assert "case True /some/python True" in out and "plain True" in out
