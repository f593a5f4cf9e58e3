"""``mx.contrib.text``: token counting, vocabularies and token embeddings (MXNet 1.9.1's)."""
from . import utils, vocab, embedding  # noqa: F401
