"""The README's "Coming from MXNet" commands, run as a new user would, in a fresh virtual
environment: ``neogluon alias install``, then an unchanged MXNet script. The install line
(``pip install torch==2.13.0 && pip install -e '.[vision]'``) is the one step replaced: the
fresh environment sees this checkout and this environment's packages through a ``.pth``
file, so nothing is downloaded; every later line runs as the README writes it (``neogluon``
and ``python`` being that environment's)."""
import os
import re
import shlex
import subprocess
import sysconfig
import venv

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def front_door_commands():
    with open(os.path.join(ROOT, "README.md")) as f:
        text = f.read()
    block = re.search(r"<!-- front-door:begin -->\s*```bash\n(.*?)```\s*<!-- front-door:end -->", text, re.S)
    assert block, "README.md has no front-door block"
    lines = [line.split("#", 1)[0].strip() for line in block.group(1).strip().splitlines()]
    assert lines[0].startswith("pip install"), lines[0]
    return lines[1:]


@pytest.mark.slow
def test_readme_front_door_runs_an_unchanged_mxnet_script(tmp_path):
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = str(env_dir / "bin" / "python")
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    with open(os.path.join(site, "_parent_env.pth"), "w") as f:
        f.write("%s\n%s\n" % (ROOT, sysconfig.get_paths()["purelib"]))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    outputs = []
    for command in front_door_commands():
        argv = shlex.split(command)
        argv = {"neogluon": [python, "-m", "neogluon"], "python": [python]}[argv[0]] + argv[1:]
        result = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, (command, result.stderr[-2000:])
        outputs.append(result.stdout)
    assert "import mxnet gives: neogluon" in outputs[0]
    script = outputs[-1]
    assert script.startswith("mxnet 1.9.1\n"), script
    diffs = [float(v) for v in re.findall(r"max difference ([\d.e+-]+)", script)]
    assert len(diffs) == 2 and max(diffs) < 1e-5, script
