"""OpenMP settings chosen before torch starts its thread pool (issue 17, speed under load).

torch's CPU kernels run on OpenMP threads that spin-wait between parallel regions (the
default ``OMP_WAIT_POLICY=ACTIVE``-like behaviour). When another CPU-bound process shares
the cores, a spinning thread holds a core its sibling needs, and a parallel region waits
for a thread that is not running. Measured with ``benchmarks/thread_load.py`` on a shared
2-core machine (medians of 240 calls, alone -> beside one torch process doing matmuls):
a hybridized LeNet at batch 16 went 0.68 -> 136 ms with torch's defaults, 0.84 -> 0.84 ms
with ``OMP_WAIT_POLICY=PASSIVE`` and 0.67 -> 0.68 ms with one thread; a 3-layer MLP at
batch 64 went 1.35 -> 1.37 ms with PASSIVE and 1.16 -> 1.18 ms with one thread (torch's
defaults: 24 -> 36 ms, already collapsed by the other jobs on the machine). Passive
waiting costs about 20% on a small network's call when alone, and avoids the collapse.
So, unless the user chose otherwise, neogluon asks for passive waiting; it must be set
before torch is imported (OpenMP reads it once), so it has no effect when torch was
imported first. ``OMP_NUM_THREADS`` (the
number of threads) is left to the user and torch.
"""
import os
import sys

__all__ = ["configure"]


def configure(environ=os.environ, modules=sys.modules):
    """Set ``OMP_WAIT_POLICY=PASSIVE`` unless it is set or torch is already loaded; whether set."""
    if "OMP_WAIT_POLICY" in environ or "torch" in modules:
        return False
    environ["OMP_WAIT_POLICY"] = "PASSIVE"
    return True


configure()
