"""Write MXNet 1.9.1's table of pre-trained embedding files (names and SHA-1 of GloVe and
fastText files and archives) to neogluon/contrib/text/pretrained_files.json.

Run with the side venv:  /work/mxref/bin/python tools/make_text_constants.py
"""
import json
import os

from mxnet.contrib.text import _constants as C

OUT = os.path.join(os.path.dirname(__file__), "..", "neogluon", "contrib", "text", "pretrained_files.json")


def main():
    table = {name: getattr(C, name) for name in dir(C) if name.endswith("_SHA1")}
    with open(OUT, "w") as f:
        json.dump(table, f, indent=0, sort_keys=True)
    print("wrote %s (%s)" % (OUT, ", ".join("%s: %d" % (k, len(v)) for k, v in sorted(table.items()))))


if __name__ == "__main__":
    main()
