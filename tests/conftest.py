"""Test-suite settings: hybridize(static_alloc=True, static_shape=True) / backend='MKLDNN' run the
plain graph here (compiling with inductor takes 10-40 s a graph); tests/test_compiled.py turns
the compiled backend on for its own tests, and Winograd's per-shape kernel choice for frozen
graphs stays off (timing it compiles three graphs a shape; tests/test_winograd.py turns it
on). The intra-op thread count stays fixed (no adapting to
the machine's load), so that no result depends on what else runs beside the suite;
tests/test_threads.py drives the policy with a fake load."""
import os

os.environ.setdefault("NEOGLUON_COMPILE", "0")
os.environ.setdefault("NEOGLUON_ADAPTIVE_THREADS", "0")
os.environ.setdefault("NEOGLUON_WINOGRAD", "0")
