"""Property-based fuzzing of the loaders and operators (issue 13): random truncations, bit
flips, byte writes and header-field edits of MXNet 1.9.1's fixture files (.params, nd.save
lists and dicts, sparse, states), random JSON mutations of -symbol.json files and random
bad operator arguments. Each input must give an MXNetError or a consistent result, with
Python/numpy allocations within a constant times its size (tests/safe_cases.py).

The examples are few, so the file runs in seconds; tools/fuzz_safe_files.py runs the same
checks on thousands of inputs under an address-space limit.
"""
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import safe_cases as sc

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow],
                derandomize=True)
INTS = st.integers(0, 1 << 20)


@FUZZ
@given(name=st.sampled_from(sc.PARAMS_FILES), kinds=st.lists(st.sampled_from(sc.BYTE_KINDS), min_size=1, max_size=3),
       a=INTS, b=st.integers(0, 255))
def test_fuzz_params_files(name, kinds, a, b):
    blob = sc.fixture(name)
    for i, kind in enumerate(kinds):
        blob = sc.mutate_bytes(blob, kind, a * (i + 1), b + i)
    assert sc.check_params(blob) in ("ok", "error")


@pytest.mark.parametrize("name", sc.PARAMS_FILES)
def test_every_truncation_of_every_params_fixture_is_an_error(name):
    blob = sc.fixture(name)
    step = max(1, len(blob) // 400)
    for cut in range(0, len(blob), step):
        assert sc.check_params(blob[:cut]) == "error", cut


@FUZZ
@given(name=st.sampled_from(sc.STATES_FILES), kind=st.sampled_from(sc.BYTE_KINDS), a=INTS, b=st.integers(0, 255))
def test_fuzz_states_files(name, kind, a, b):
    assert sc.check_states(sc.mutate_bytes(sc.fixture(name), kind, a, b)) in ("ok", "error")


@FUZZ
@given(name=st.sampled_from(sc.JSON_FILES), kind=st.sampled_from(sc.JSON_KINDS), a=INTS, b=st.integers(0, 255))
def test_fuzz_symbol_json(name, kind, a, b):
    text = sc.mutate_json(sc.fixture(name).decode(), kind, a, b)
    assert sc.check_json(text) in ("ok", "error")


@FUZZ
@given(op=st.sampled_from(sorted(sc.OP_CASES)), data=st.data())
def test_fuzz_operator_arguments(op, data):
    values = [data.draw(st.sampled_from(sc.ARG_VALUES + [None])) for _ in sc.OP_CASES[op][1]]
    assert sc.check_op(op, values) in ("ok", "error")


def test_unmutated_fixtures_load():
    for name in sc.PARAMS_FILES:
        assert sc.check_params(sc.fixture(name)) == "ok", name
    for name in sc.STATES_FILES:
        assert sc.check_states(sc.fixture(name)) == "ok", name
    for name in sc.JSON_FILES:
        assert sc.check_json(sc.fixture(name).decode()) == "ok", name
