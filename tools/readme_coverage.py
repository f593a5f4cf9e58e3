"""The README's "what is covered" block, computed from the project's own coverage lists so
that it cannot drift from the truth:

- MXNet 1.9.1's modules and public names (``neogluon/_mxnet_names.json``, checked by
  tests/test_mxnet_names.py): how many neogluon implements, how many it serves as
  "not implemented yet";
- MXNet 1.9.1's legacy operators (``tests/fixtures/op_coverage.tsv``, checked by
  tests/test_op_coverage.py);
- the client code bases whose imports tests/test_clients_import.py checks.

``python tools/readme_coverage.py`` prints the block; ``--write`` puts it into README.md
between its ``<!-- coverage:begin -->`` and ``<!-- coverage:end -->`` markers.
tests/test_readme_coverage.py fails when README.md's block differs from a fresh one.
"""
import argparse
import csv
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
OP_TABLE = os.path.join(ROOT, "tests", "fixtures", "op_coverage.tsv")
BEGIN, END = "<!-- coverage:begin -->", "<!-- coverage:end -->"


def op_counts():
    with open(OP_TABLE) as f:
        rows = list(csv.reader((line for line in f if not line.startswith("#")), delimiter="\t"))[1:]
    total = len(rows)
    registered = sum(r[1] == "registered" for r in rows)
    recorded = sum(r[1] == "registered" and not r[2].startswith("none") for r in rows)
    omitted = sum(r[1] == "omitted" for r in rows)
    return total, registered, recorded, omitted


def name_counts():
    """(modules with a neogluon file, modules, names implemented, names). A name MXNet takes
    from numpy (``in1d``, ``trapz``, ... in ``mx.np``'s fallback) counts as implemented
    whether or not the installed numpy still has it (numpy 2 removed a few), so that the
    figures do not depend on the numpy version."""
    from neogluon import _names
    report = _names.coverage()
    modules, names = report["modules"], report["names"]
    table = _names.table()

    def external(full):
        module, _, name = full.rpartition(".")
        entry = table[module]["names"][name]
        return entry[0] in "xX" and (entry[1] == "numpy" or entry[1].startswith("numpy."))
    implemented = len(names["implemented"]) + sum(external(n) for n in names["not_implemented"])
    return (len(modules["real"]), len(modules["real"]) + len(modules["synthesised"]),
            implemented, len(names["implemented"]) + len(names["not_implemented"]))


def client_statements():
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    try:
        import test_clients_import
    finally:
        sys.path.pop(0)
    return [stmt for stmts in test_clients_import.STATEMENTS.values() for stmt in stmts]


def block():
    real_mods, all_mods, real_names, all_names = name_counts()
    total, registered, recorded, omitted = op_counts()
    lines = [
        BEGIN,
        "| MXNet 1.9.1 | covered by neogluon |",
        "|---|---|",
        "| modules of the `mxnet` package | all %d import; %d (%.0f%%) have their own implementation, the rest "
        "are served from MXNet's recorded name table |" % (all_mods, real_mods, 100.0 * real_mods / all_mods),
        "| public names in those modules | %d of %d (%.0f%%) implemented; every other name exists and raises "
        "`MXNetError(\"... is not implemented yet\")` when used |" % (real_names, all_names,
                                                                     100.0 * real_names / all_names),
        "| legacy operators (`mx.nd.*`/`mx.sym.*`, no `_backward_*`, no NumPy interface) | %d of %d (%.0f%%) "
        "registered, %d of them checked against recorded MXNet cases; %d omitted with a reason "
        "([table](tests/fixtures/op_coverage.tsv)) |" % (registered, total, 100.0 * registered / total, recorded,
                                                          omitted),
        "| real client code bases through `import mxnet` | %s import (`tests/test_clients_import.py`, in the "
        "environment `tools/install_clients.sh` makes, which CI's last stage builds) |"
        % ", ".join("`%s`" % s for s in client_statements()),
        END,
    ]
    return "\n".join(lines)


def readme_block(text):
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[start:end]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true", help="rewrite README.md's block")
    args = parser.parse_args()
    new = block()
    if args.write:
        with open(README) as f:
            text = f.read()
        with open(README, "w") as f:
            f.write(text.replace(readme_block(text), new))
    print(new)


if __name__ == "__main__":
    sys.path.insert(0, ROOT)
    main()
