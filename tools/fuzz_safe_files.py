"""A long fuzz campaign over the loaders and operators (issue 13), run offline.

    PYTHONPATH=$PWD python tools/fuzz_safe_files.py [--n 2000] [--seed 0] [--classes params,states,json,ops]

Mutates the fixture files (truncations, bit flips, byte writes, header-field edits; JSON
value replacements, deletions, hostile attributes, cuts and deep nesting) and draws bad
operator arguments, with the checks of tests/safe_cases.py: every input must give an
MXNetError or a consistent result, allocating at most a constant times its size. The
process runs under an address-space limit (RLIMIT_AS), so a loader that asked for what a
file claims would fail here instead of swapping. Prints per class: inputs tried, results,
MXNetErrors and failures (with the first few failures shown).
"""
import argparse
import collections
import os
import random
import resource
import sys
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

import safe_cases as sc  # noqa: E402  pylint: disable=wrong-import-position


def limit_memory(extra_bytes):
    with open("/proc/self/status") as f:
        vm = int(f.read().split("VmSize:")[1].split()[0]) * 1024
    resource.setrlimit(resource.RLIMIT_AS, (vm + extra_bytes, vm + extra_bytes))


def params_case(rng):
    blob = sc.fixture(rng.choice(sc.PARAMS_FILES))
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        blob = sc.mutate_bytes(blob, rng.choice(sc.BYTE_KINDS), rng.randrange(1 << 20), rng.randrange(1 << 8))
    return lambda: sc.check_params(blob)


def states_case(rng):
    blob = sc.fixture(rng.choice(sc.STATES_FILES))
    for _ in range(rng.choice([1, 1, 2])):
        blob = sc.mutate_bytes(blob, rng.choice(sc.BYTE_KINDS), rng.randrange(1 << 20), rng.randrange(1 << 8))
    return lambda: sc.check_states(blob)


def json_case(rng):
    text = sc.fixture(rng.choice(sc.JSON_FILES)).decode()
    for _ in range(rng.choice([1, 1, 2])):
        kind = rng.choice(sc.JSON_KINDS)
        try:
            text = sc.mutate_json(text, kind, rng.randrange(1 << 20), rng.randrange(1 << 8))
        except (ValueError, KeyError, IndexError, TypeError, AttributeError, RecursionError):
            break  # the previous mutation left something the next cannot walk
    return lambda: sc.check_json(text)


def ops_case(rng):
    op = rng.choice(sorted(sc.OP_CASES))
    values = [rng.choice(sc.ARG_VALUES + [None] * 4) for _ in sc.OP_CASES[op][1]]
    return lambda: sc.check_op(op, values)


CLASSES = {"params": params_case, "states": states_case, "json": json_case, "ops": ops_case}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000, help="inputs per class")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--classes", default=",".join(CLASSES))
    parser.add_argument("--memory", type=int, default=2 << 30, help="address space allowed beyond start-up")
    args = parser.parse_args()
    limit_memory(args.memory)
    for name in args.classes.split(","):
        rng = random.Random("%s-%d" % (name, args.seed))
        counts, failures = collections.Counter(), []
        for i in range(args.n):
            case = CLASSES[name](rng)
            try:
                counts[case()] += 1
            except Exception as e:  # pylint: disable=broad-except
                counts["FAILED"] += 1
                if len(failures) < 5:
                    failures.append((i, "%s: %s" % (type(e).__name__, str(e)[:300]), traceback.format_exc(limit=-4)))
        print("%-7s tried %6d: %6d results, %6d MXNetErrors, %d failures"
              % (name, args.n, counts["ok"], counts["error"], counts["FAILED"]))
        for i, msg, tb in failures:
            print("   #%d %s\n%s" % (i, msg, tb))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
