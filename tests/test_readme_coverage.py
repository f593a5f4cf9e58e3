"""README.md's coverage block is what tools/readme_coverage.py computes from the name table,
the operator table and the client import checks: a change that moves a figure must
regenerate it (``python tools/readme_coverage.py --write``)."""
import importlib.util
import os

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("readme_coverage", os.path.join(HERE, "..", "tools",
                                                                                "readme_coverage.py"))
readme_coverage = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(readme_coverage)


def test_readme_coverage_block_is_current():
    with open(readme_coverage.README) as f:
        text = f.read()
    assert readme_coverage.readme_block(text) == readme_coverage.block(), (
        "README.md's coverage block is stale: run python tools/readme_coverage.py --write")
