"""The committed operator coverage table (tests/fixtures/op_coverage.tsv, written by
tools/make_op_coverage.py) against the registry and the recorded fixtures.

A name the table marks ``registered`` must be registered and its operator must be run by
a recorded MXNet fixture (or carry the reason there can be none, e.g. random sampling).
A name the table marks ``open`` or ``omitted`` may be registered meanwhile (another
branch added it): the table is then stale, which is reported, not failed; regenerating it
makes the name ``registered`` and holds it to the same checks.
"""
import importlib.util
import os

import pytest

from neogluon.operator import registry

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("make_op_coverage",
                                               os.path.join(HERE, "..", "tools", "make_op_coverage.py"))
coverage = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(coverage)


def read_table():
    rows = []
    with open(coverage.TABLE) as f:
        lines = [line.rstrip("\n") for line in f if not line.startswith("#")]
    assert lines[0].split("\t") == ["name", "status", "cases", "note"]
    for line in lines[1:]:
        name, status, cases, note = line.split("\t")
        rows.append((name, status, cases, note))
    return rows


ROWS = read_table()


@pytest.fixture(scope="module")
def recorded():
    return coverage.recorded_ops()


def test_table_lists_exactly_mxnets_legacy_operators():
    assert [r[0] for r in ROWS] == coverage.mxnet_names()


def test_statuses_and_reasons():
    for name, status, cases, note in ROWS:
        assert status in ("registered", "open", "omitted"), name
        if status == "registered":
            assert cases != "-", name
        else:
            assert note, "%s is not registered and the table gives no reason" % name
            if status == "omitted":
                assert not note.startswith(coverage.OPEN), name


def test_registered_names_are_registered_and_have_recorded_cases(recorded):
    by_op = {}
    for op_name, files in recorded.items():
        if registry.exists(op_name):
            by_op.setdefault(registry.get(op_name), set()).update(files)
    missing, uncovered = [], []
    for name, status, cases, _ in ROWS:
        if status != "registered":
            continue
        if not registry.exists(name):
            missing.append(name)
            continue
        if cases.startswith("none:"):
            if cases == "none: not recorded":
                uncovered.append(name)
            continue
        files = by_op.get(registry.get(name), set())
        listed = set(cases.split("; "))
        assert listed <= files, "%s: the table lists %s but only %s record it" % (name, listed - files, files)
    assert not missing, "marked registered but not registered: %s" % missing
    assert not uncovered, "registered without a recorded MXNet case: %s" % uncovered


def test_report_coverage(recorded, capsys):
    stale = [r[0] for r in ROWS if r[1] != "registered" and registry.exists(r[0])]
    with capsys.disabled():
        print("\noperator coverage: " + coverage.summary(ROWS))
        if stale:
            print("registered since the table was written (regenerate it with tools/make_op_coverage.py): "
                  + " ".join(stale))
