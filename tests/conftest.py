"""Test-suite settings: hybridize(static_alloc=True, static_shape=True) / backend='MKLDNN' run the
plain graph here (compiling with inductor takes 10-40 s a graph); tests/test_compiled.py turns
the compiled backend on for its own tests. The intra-op thread count stays fixed (no adapting to
the machine's load), so that no result depends on what else runs beside the suite;
tests/test_threads.py drives the policy with a fake load."""
import os

os.environ.setdefault("NEOGLUON_COMPILE", "0")
os.environ.setdefault("NEOGLUON_ADAPTIVE_THREADS", "0")
