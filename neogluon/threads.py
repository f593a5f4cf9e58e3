"""OpenMP settings chosen before torch starts its thread pool (issue 17, speed under load).

torch's CPU kernels run on OpenMP threads that spin-wait between parallel regions (the
default ``OMP_WAIT_POLICY=ACTIVE``-like behaviour). When another CPU-bound process shares
the cores, a spinning thread holds a core its sibling needs, and a parallel region waits
for a thread that is not running: measured with ``benchmarks/thread_load.py`` on a loaded
2-core machine, a hybridized LeNet (batch 16) call took 25 ms (median) with torch's
defaults against 0.85 ms with ``OMP_WAIT_POLICY=PASSIVE`` and 0.71 ms with one thread, and
an MLP (batch 64) 128 ms against 1.4 ms and 1.3 ms. So, unless the user chose otherwise,
neogluon asks for passive waiting; it must be set before torch is imported (OpenMP reads
it once), so it has no effect when torch was imported first. ``OMP_NUM_THREADS`` (the
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
