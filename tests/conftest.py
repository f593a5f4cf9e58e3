"""Test-suite settings: hybridize(static_alloc=True, static_shape=True) / backend='MKLDNN' run the
plain graph here (compiling with inductor takes 10-40 s a graph); tests/test_compiled.py turns
the compiled backend on for its own tests."""
import os

os.environ.setdefault("NEOGLUON_COMPILE", "0")
