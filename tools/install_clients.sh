#!/usr/bin/env bash
# Install four MXNet client code bases into a virtual environment of their own, to check
# that they import through neogluon's `mxnet` alias (tests/test_clients_import.py):
#
#   bash tools/install_clients.sh VENV [BASE_VENV]
#
# VENV is created if missing. With BASE_VENV (a venv that already has torch==2.13.0,
# numpy 1.26 and pytest), VENV reuses its packages through a .pth file instead of
# downloading torch again; without it, torch==2.13.0 and numpy 1.26 are installed first.
# Each client is installed with --no-deps (their pins name mxnet and old numpy/torch
# releases), then the light dependencies their import needs. numpy stays at 1.26:
# GluonTS 0.14 and d2l 1.0.3 pin numpy < 2. Then neogluon is made importable (the
# worktree, through a .pth file) and `neogluon alias install` puts the mxnet hook in.
#
#   VENV/bin/python -m pytest tests/test_clients_import.py     # the import checks
set -euo pipefail
VENV=${1:?usage: install_clients.sh VENV [BASE_VENV]}
BASE=${2:-}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
SITE=$("$VENV/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
if [ -n "$BASE" ]; then
    "$BASE/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])" > "$SITE/_base_venv.pth"
else
    "$VENV/bin/pip" install -q torch==2.13.0 "numpy==1.26.*" pytest
fi
PIP="$VENV/bin/pip install -q"
# the clients themselves, without their pins
$PIP --no-deps gluoncv==0.10.5.post0 gluonnlp==0.10.0 gluonts==0.14.4 d2l==1.0.3
# what importing them needs: GluonCV (images, configs, downloads), GluonTS (pydantic models,
# pandas), GluonNLP (nothing beyond numpy), d2l (pandas, requests, IPython's display).
# pandas < 2.2: GluonTS 0.14 spells frequencies "H", "T", "S", which pandas 2.2 deprecates and
# pandas 3 rejects (DeepAREstimator(freq="H") raises in get_lags_for_frequency)
$PIP "numpy==1.26.*" portalocker yacs pyyaml autocfg requests "pandas<2.2" scipy Pillow \
    opencv-python-headless matplotlib tqdm "pydantic<3" toolz typing_extensions \
    ipython matplotlib-inline
# DGL 1.1.3 for its MXNet backend (DGLBACKEND=mxnet; it imports torch too) and its light dependencies
$PIP --no-deps dgl==1.1.3 networkx psutil
# Sockeye 2.3.22 (its last MXNet major version; its pins name mxnet): sacrebleu 1.4.14 is its pin
$PIP --no-deps sockeye==2.3.22 && $PIP "numpy==1.26.*" sacrebleu==1.4.14 portalocker pyyaml
echo "$ROOT" > "$SITE/_neogluon_worktree.pth"
"$VENV/bin/python" -m neogluon alias install
"$VENV/bin/python" -m neogluon alias status
# the clients are there (their tests skip, not fail, where they are missing)
"$VENV/bin/python" -c "import importlib.util as u, sys; m = [p for p in ('gluoncv', 'gluonnlp', 'gluonts', 'd2l') if u.find_spec(p) is None]; sys.exit('missing: %s' % m if m else 0)"
