"""``neogluon alias install | remove | status`` and the import hook it installs: in a fresh
virtual environment (which reuses this one's packages through a ``.pth`` file, so nothing
is downloaded), ``import mxnet`` gives neogluon with ``__version__ == "1.9.1"``; a real
MXNet installed there always wins; GluonCV's torch-version check is adjusted."""
import os
import subprocess
import sys
import sysconfig
import textwrap
import venv

import pytest

import neogluon
import neogluon_alias
from neogluon.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(neogluon.__file__)))


@pytest.fixture(scope="module")
def fresh_venv(tmp_path_factory):
    """A new venv (no pip) seeing this environment's packages and this neogluon checkout."""
    path = tmp_path_factory.mktemp("venv")
    venv.EnvBuilder(with_pip=False, symlinks=os.name != "nt").create(path)
    python = str(path / ("Scripts/python.exe" if os.name == "nt" else "bin/python"))
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    # '_' sorts before 'n': these paths are on sys.path when the alias .pth line runs. Every
    # site directory of this interpreter: a venv that itself reuses another's packages through
    # a .pth file (tools/install_clients.sh VENV BASE) has torch there, not in its purelib
    parents = [ROOT, sysconfig.get_paths()["purelib"]] + [p for p in sys.path if p.endswith("site-packages")]
    with open(os.path.join(site, "_parent_env.pth"), "w") as f:
        f.write("".join("%s\n" % p for p in dict.fromkeys(parents)))
    return python, site


def _run(python, code, **kwargs):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([python, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env,
                          timeout=300, **kwargs)


def test_install_status_remove_in_a_fresh_venv(fresh_venv, capsys):
    python, site = fresh_venv
    pth = os.path.join(site, neogluon_alias.PTH_NAME)
    assert main(["alias", "status", "--site-dir", site]) == 0
    assert "import mxnet gives: ModuleNotFoundError" in capsys.readouterr().out
    assert main(["alias", "install", "--site-dir", site]) == 0
    out = capsys.readouterr().out
    assert os.path.exists(pth) and "import mxnet gives: neogluon" in out and "'1.9.1'" in out
    result = _run(python, """
        import sys
        assert "neogluon" not in sys.modules and "torch" not in sys.modules  # nothing loaded at start
        import mxnet as mx
        import mxnet.gluon.nn as nn
        from mxnet.test_utils import *
        import neogluon
        print(mx.__version__, neogluon.__version__, nn is neogluon.gluon.nn, mx.nd.ones((2,)).sum().asscalar())
        import mxnet.module, mxnet.contrib.onnx  # modules neogluon serves from MXNet's table
        print(type(np).__name__, mx is sys.modules["mxnet"])
    """)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.split("\n")
    assert lines[0] == "1.9.1 %s True 2.0" % neogluon.__version__
    assert lines[1] == "module True"
    assert main(["alias", "remove", "--site-dir", site]) == 0
    assert not os.path.exists(pth) and "ModuleNotFoundError" in capsys.readouterr().out
    result = _run(python, "import mxnet")
    assert result.returncode != 0 and "No module named 'mxnet'" in result.stderr


def test_a_real_mxnet_is_never_shadowed(fresh_venv, tmp_path, capsys, monkeypatch):
    python, site = fresh_venv
    with open(os.path.join(site, neogluon_alias.PTH_NAME), "w") as f:
        f.write(neogluon_alias.PTH_LINE)
    real = tmp_path / "mxnet"
    real.mkdir()
    (real / "__init__.py").write_text("__version__ = 'real'\n")
    (real / "gluon.py").write_text("WHO = 'real gluon'\n")
    try:
        result = _run(python, "import mxnet, mxnet.gluon; print(mxnet.__version__, mxnet.gluon.WHO)",
                      cwd=str(tmp_path))  # the real package is first on sys.path ('' = cwd)
    finally:
        os.remove(os.path.join(site, neogluon_alias.PTH_NAME))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "real real gluon"
    # 'install' refuses, 'status' names the real one
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["alias", "install", "--site-dir", site]) == 1
    err = capsys.readouterr().err
    assert "a real MXNet is installed" in err and str(real) in err
    assert not os.path.exists(os.path.join(site, neogluon_alias.PTH_NAME))
    assert main(["alias", "status", "--site-dir", site]) == 0
    assert "the real MXNet at %s" % real in capsys.readouterr().out


@pytest.mark.parametrize("finders", [1, 2])
def test_gluoncv_torch_version_check_becomes_an_import_error(tmp_path, monkeypatch, finders):
    """GluonCV 0.10.5 raises RuntimeError for torch >= 2 in a check it expects to raise
    ImportError when the torch backend is unusable; under the alias it does. With two
    finders on ``sys.meta_path`` (the alias's .pth one and another) neither asks the other."""
    pkg = tmp_path / "gluoncv"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "check.py").write_text(textwrap.dedent("""
        def _require_pytorch_version(torch_version, max_torch_version='2.0.0'):
            raise RuntimeError("Legacy torch==2.13.0 detected")
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("gluoncv", "gluoncv.check"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    added = [neogluon_alias.ThirdPartyChecksFinder() for _ in range(finders)]
    monkeypatch.setattr(sys, "meta_path", added + sys.meta_path)
    import gluoncv.check  # pylint: disable=import-error
    with pytest.raises(ImportError, match="uses its MXNet backend") as err:
        gluoncv.check._require_pytorch_version("1.4.0", "2.0.0")  # pylint: disable=protected-access
    assert isinstance(err.value.__cause__, RuntimeError)
    for name in ("gluoncv", "gluoncv.check"):
        sys.modules.pop(name, None)
