"""The constants of ``mx.contrib.text``: the unknown token's index, the repository URL and
the names and SHA-1 of the pre-trained GloVe and fastText files (MXNet 1.9.1's table,
written to ``pretrained_files.json`` by tools/make_text_constants.py)."""
import json
import os

UNKNOWN_IDX = 0
APACHE_REPO_URL = "https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/"

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "pretrained_files.json")) as _f:
    _TABLE = json.load(_f)
# MXNet's names: the GloVe "ARCHIVE" table lists the .txt files and the "FILE" table the archives
GLOVE_PRETRAINED_ARCHIVE_SHA1 = _TABLE["GLOVE_PRETRAINED_ARCHIVE_SHA1"]
GLOVE_PRETRAINED_FILE_SHA1 = _TABLE["GLOVE_PRETRAINED_FILE_SHA1"]
FAST_TEXT_ARCHIVE_SHA1 = _TABLE["FAST_TEXT_ARCHIVE_SHA1"]
FAST_TEXT_FILE_SHA1 = _TABLE["FAST_TEXT_FILE_SHA1"]
