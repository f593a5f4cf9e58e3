"""Run one benchmark script's worker on neogluon and on MXNet 1.9.1 in turn, a fresh process
each, alternating which goes first from round to round (shared by ``bench_module.py`` and
``bench_legacy_rnn.py``). A worker prints its result as JSON on its last line of output."""
import json
import os
import subprocess
import sys

__all__ = ["run_worker", "alternating_rounds"]


def run_worker(script, python, framework):
    """The JSON result of ``python script --worker framework``."""
    res = subprocess.run([python, os.path.abspath(script), "--worker", framework], capture_output=True,
                         text=True, check=True, env=dict(os.environ))
    return json.loads(res.stdout.strip().splitlines()[-1])


def alternating_rounds(script, rounds, mxnet_python, report):
    """``rounds`` dicts ``{"neogluon": result, "mxnet": result}``; ``report(r, got)`` prints a round."""
    rows = []
    for r in range(rounds):
        order = [("neogluon", sys.executable), ("mxnet", mxnet_python)]
        if r % 2:
            order.reverse()
        got = {name: run_worker(script, py, name) for name, py in order}
        rows.append(got)
        report(r, got)
    return rows
