"""Record MXNet 1.9.1's results for tests/test_client_sockeye.py into
tests/fixtures/extra/sockeye/workflows.json: every workflow of tests/sockeye_workflows.py
(Sockeye 2.3.22's command lines on a synthetic corpus, from seeded parameters, no dropout),
each in a temporary directory.

Needs real MXNet 1.9.1 and Sockeye 2.3.22 (never imported by neogluon or its tests)::

    /work/mxclients/bin/python tools/make_client_fixtures_sockeye.py
"""
import json
import os
import sys
import tempfile

TESTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests")

if __name__ == "__main__":
    import mxnet
    if "neogluon" in mxnet.__file__:
        sys.exit("this records real MXNet 1.9.1's results; run it where `import mxnet` is MXNet")
    sys.path.insert(0, TESTS)
    import sockeye_workflows
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for workflow in sockeye_workflows.WORKFLOWS:
            results[workflow.__name__] = workflow(os.path.join(tmp, workflow.__name__))
    path = os.path.join(TESTS, "fixtures", "extra", "sockeye", "workflows.json")
    with open(path, "w") as f:
        json.dump(results, f, indent=0, sort_keys=True)
    print("wrote %s (%d bytes)" % (os.path.normpath(path), os.path.getsize(path)))
