"""Thread settings that hold under load (issue 17): OpenMP's wait policy and spin count, chosen
before torch starts its thread pool, and the number of intra-op threads, adapted to the cores other work
leaves free.

**Wait policy.** torch's CPU kernels run on OpenMP threads that spin-wait between parallel
regions. When another CPU-bound process shares the cores, a spinning thread holds a core its
sibling needs, and a parallel region waits for a thread that is not running. Measured with
``benchmarks/thread_load.py`` on a shared 2-core machine (medians of 240 calls, alone ->
beside one torch process doing matmuls): a hybridized LeNet at batch 16 went 0.68 -> 136 ms
with torch's defaults, 0.84 -> 0.84 ms with ``OMP_WAIT_POLICY=PASSIVE`` and 0.67 -> 0.68 ms
with one thread. So, unless the user chose otherwise, neogluon asks for passive waiting; it
must be set before torch is imported (OpenMP reads it once), so it has no effect when torch
was imported first.

**Spin count.** PASSIVE alone means libgomp's zero spin: a thread sleeps in the kernel as
soon as a parallel region ends, and every region then wakes it through a futex, so a small
graph of many short regions pays a wake-up in each. The MLP's three GEMMs (batch 64,
784-512-512-10, raw torch, 2 threads, idle machine) took 0.47 ms with libgomp's default
spin (300000 spins), 0.69 ms with PASSIVE and 0.46 ms with PASSIVE and ``GOMP_SPINCOUNT=10000``
(the lead's measurement, 2026-11-28). With one other job running (load 1-2), raw torch at a
fixed 2 threads took 1.94 ms with PASSIVE, 0.48 ms with the default spin, 0.48 ms with 50000
spins and 2.42 ms [0.47-2.65] with 10000 (medians of 6 alternating rounds of 300 calls): a
fixed pair of threads beside another job needs the long spin, which is why the adaptive count
below drops to one thread then. libgomp spins roughly 55000-75000 times per ms here (a
worker thread's CPU time after the last region: at most 5.4 ms for 300000 spins, 1.3 ms for
100000), so 10000 spins keep a thread awake for about 0.15 ms after a region: enough between the
regions of one call and between back-to-back calls, and short enough that a thread idle
for longer gives its core back. So neogluon sets ``GOMP_SPINCOUNT=10000`` with PASSIVE
(:data:`SPIN_COUNT`); a user's ``GOMP_SPINCOUNT`` is kept, and a user's
``OMP_WAIT_POLICY`` leaves both alone. Beside a CPU-bound neighbour the adaptive count
below runs one thread, which has nobody to wait for, so the spin costs nothing there:
``benchmarks/thread_load.py`` (the compiled MLP b64, 6 rounds, 2026-11-28, load 3-5 from
other jobs throughout) slowed 1.03x in the median and p95 for inference with the spin and
the adaptive count, 1.00x / 1.43x with PASSIVE and the adaptive count; with the adaptive count
off, 2 threads and a spin beside that load are as bad as PASSIVE (both several times slower).
The training steps were dominated by the other jobs in both (2.8-2.9 ms alone, 10.8-11.0
beside the neighbour). Not measured on an idle machine (there was none that day).

**Intra-op threads.** Even with passive waiting, a parallel region ends when its slowest
thread does: with ``n`` threads on ``n`` cores and one other runnable thread, one of ours
shares a core and the whole call runs at about half speed (benchmarks/thread_study.py). So
between graph calls (a hybridized block's call, ``Trainer.step``) neogluon sets torch's
number of threads to the cores the other runnable threads leave free: ``cores - others``,
at least 1, at most torch's own default, where ``cores`` is this process's CPU affinity and
``others`` the runnable threads of the machine (``/proc/loadavg``'s running count) less the
calling one. The count is read at most every ``interval`` seconds (0.1; one small read of
/proc), so a call costs a clock read; the number goes down at once and up only after
``up_after`` (3) readings in a row allow it, so a neighbour that pauses briefly does not make
it flap. ``torch.set_num_threads`` costs about 0.1 us when the number changes; libgomp keeps
its idle threads, so a change creates no pool.

**More threads than the fair share, on trial.** One thread beside a neighbour caps the call
at one core, so a graph that runs T1/T2 ~ 1.7-2x faster on two threads alone slows by about
that much (ResNet-18, BERT, the LSTMs: 1.7-2.1x median, 2026-11-28). When the neighbour is in
our session (a child process, as in ``bench_workloads.py --under-load``), Linux shares the
cores between threads: two threads of ours beside it get 2/3 of a core each, but a static
OpenMP split waits for the one that shares a core; three would get half a core each, 1.5
cores in all, evenly. Between sessions the kernel shares per session, and one thread is the
most a neighbour leaves. Neither the graph nor the neighbour's session is known from
/proc/loadavg, so beside other runnable threads the policy *tries* ``cores + base`` threads
against the ``base`` count above, by the measured time between a block's (or a Trainer's)
calls: the two counts alternate call by call, the faster by the median ratio of consecutive
calls is kept for 10 s (:class:`Adaptive`'s ``hold``), then tried again. Alone (no other
runnable thread) nothing is tried and nothing changes. ``benchmarks/thread_trials.py``
compares it with the count from the load alone.

Busy DataLoader worker processes are runnable threads too: the parent's threads take the
cores the workers leave (each worker itself runs torch on one thread and never adapts).

The number is the user's when they chose it: with ``OMP_NUM_THREADS`` or MXNet's
``MXNET_CPU_WORKER_NTHREADS`` set when neogluon is imported, or after they call
``torch.set_num_threads`` themselves (seen as a number neogluon did not set), neogluon never
adapts it. ``NEOGLUON_ADAPTIVE_THREADS=0`` turns the adaptation off. On a system without
``/proc/loadavg`` there is nothing to read and nothing adapts.
"""
import os
import sys
import time

__all__ = ["configure", "Adaptive", "adapt", "fix", "policy", "runnable_others"]

USER_VARIABLES = ("OMP_NUM_THREADS", "MXNET_CPU_WORKER_NTHREADS")
LOADAVG = "/proc/loadavg"


SPIN_COUNT = "10000"  # libgomp's spins before a waiting thread sleeps: about 0.15 ms here (docstring)


def configure(environ=os.environ, modules=sys.modules):
    """Before torch loads: ``OMP_WAIT_POLICY=PASSIVE`` with a short spin
    (``GOMP_SPINCOUNT=``:data:`SPIN_COUNT`), unless the user chose a wait policy (then
    neither is touched) or a spin count (then kept). The variables set (a dict), empty when
    torch was already loaded (OpenMP read its settings then) or the user chose."""
    if "OMP_WAIT_POLICY" in environ or "torch" in modules:
        return {}
    chosen = {"OMP_WAIT_POLICY": "PASSIVE"}
    if "GOMP_SPINCOUNT" not in environ:
        chosen["GOMP_SPINCOUNT"] = SPIN_COUNT
    environ.update(chosen)
    return chosen


def user_choice(environ=os.environ):
    """Why the number of threads is not neogluon's to adapt (a string), or None."""
    if environ.get("NEOGLUON_ADAPTIVE_THREADS", "1").strip() in ("0", "false", "False", "off"):
        return "NEOGLUON_ADAPTIVE_THREADS=0"
    for name in USER_VARIABLES:
        if environ.get(name, "").strip():
            return "%s is set" % name
    return None


def runnable_others(path=LOADAVG):
    """The runnable threads of the machine other than the calling one (from the ``running/total``
    field of ``/proc/loadavg``, which counts the reader); None when it cannot be read."""
    try:
        with open(path, "rb") as f:
            field = f.read().split()[3]
        return max(0, int(field.split(b"/")[0]) - 1)
    except (OSError, IndexError, ValueError):
        return None


def _affinity():
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class Adaptive:
    """The intra-op thread policy: call the instance between graph calls.

    ``load()`` gives the other runnable threads (None: unknown, leave the number alone);
    ``get_threads``/``set_threads`` read and set the number (torch's by default);
    ``cores`` is the number of CPUs this process may run on; ``limit`` the most threads to
    use (torch's number when the policy first runs). Everything is injectable for tests.

    Beside other runnable threads the count from the load (``base``) may be tried against
    ``alt = cores + base`` (:meth:`candidates`): each call's ``site`` (the calling block or
    Trainer) gives one sample, the time since that site's previous call, when the count did
    not change in between; the two counts alternate sample by sample, and ``alt`` wins if
    the median ratio of consecutive samples of one site (alt's / base's) is below 1 after
    ``2 * samples - 1`` ratios (base wins after ``4 * samples`` samples without them). The
    winner is kept for ``hold`` seconds, then tried again. ``samples=0`` turns trials off.
    """

    def __init__(self, load=runnable_others, clock=time.monotonic, cores=None, limit=None, interval=0.1,
                 up_after=3, get_threads=None, set_threads=None, reason=None, samples=4, hold=10.0, gain=1.25):
        self.load, self.clock = load, clock
        self.cores, self.limit = cores, limit
        self.interval, self.up_after = interval, up_after
        self.samples, self.hold, self.gain = samples, hold, gain
        self._get, self._set = get_threads, set_threads
        self.reason = reason  # why it does not adapt (None: it does)
        self.current = None  # the number neogluon last set or found
        self.base = None  # the number the load allows (what runs when nothing is on trial)
        self._next = 0.0
        self._raise = []  # the numbers allowed by the readings since the last decrease
        self._pid = os.getpid()
        self.chosen = None  # the last trial's winner and until when it holds: (count, until)
        self._cands = ()
        self._trial = None  # the trial's samples in order: [(site, seconds since its last call)]; None: holding
        self._ratios = []  # alt's time / base's time, for consecutive samples of one site
        self._last = {}  # site -> time of its last call
        self._since = 0.0  # when the current count was set

    def _torch(self):
        if self._get is None:
            import torch  # pylint: disable=import-outside-toplevel
            self._get, self._set = torch.get_num_threads, torch.set_num_threads

    def __call__(self, site=None):
        """Adapt the number of threads if the last reading is ``interval`` old; the number.
        ``site``: who calls (a block, a Trainer), for the trials of :meth:`candidates`."""
        if self.reason is not None:
            return None
        now = self.clock()
        if len(self._cands) == 2:
            self._sample(site, now)
        if now < self._next:
            return self.current
        self._next = now + self.interval
        return self.update(now)

    def update(self, now=None):
        """Read the load and set the number of threads now; the number (None: not adapting)."""
        if self.reason is not None:
            return None
        if os.getpid() != self._pid:  # a forked child (a DataLoader worker) keeps what it has
            self.reason = "forked process"
            return None
        now = self.clock() if now is None else now
        self._torch()
        found = self._get()
        if self.current is None:
            self.current = self.base = found
            self.limit = self.limit or found
            self.cores = self.cores or _affinity()
        elif found != self.current:  # someone else set it: theirs from now on
            self.reason = "set by torch.set_num_threads(%d)" % found
            return None
        others = self.load()
        if others is None:
            return self.current
        want = max(1, min(self.limit, self.cores - others))
        if want < self.base:
            self._raise = []
            self.base = want
        elif want > self.base:
            self._raise.append(want)
            if len(self._raise) >= self.up_after:
                self.base = min(self._raise[-self.up_after:])
                self._raise = []
        else:
            self._raise = []
        cands = self.candidates()
        if cands != self._cands:  # a new trial (or none) for the new load
            self._cands = cands
            self._start(now)
        if len(cands) == 1:
            self._apply(cands[0], now)
        elif self._trial is None:  # holding a trial's winner
            count, until = self.chosen
            if now >= until:
                self._start(now)
            elif count != self.current:
                self._apply(count, now)
        elif self.current not in cands:
            self._apply(cands[0], now)
        return self.current

    def _start(self, now):
        """A new trial: samples from now on."""
        self._trial, self._ratios, self._since = [], [], now

    def candidates(self):
        """The counts to try for the current load: ``(base,)``, or ``(base, cores + base)`` when
        other threads run and that many would get at least ``gain`` times base's share of the
        cores, if the scheduler shares them per thread (it does between the threads of one
        session; between sessions it shares per session, so the trial decides)."""
        base = self.base
        alt = min(self.cores + base, 2 * self.limit)
        if not self.samples or base >= self.limit or alt < 2 * self.gain * base:
            return (base,)
        return (base, alt)

    def _sample(self, site, now):
        last = self._last.get(site)
        self._last[site] = now
        if self._trial is None or last is None or last < self._since:
            return  # holding a choice, a site's first call, or the count changed since its last call
        found = self._get()
        if found != self.current:  # someone else set it: theirs from now on
            self.reason = "set by torch.set_num_threads(%d)" % found
            return
        base, alt = self._cands
        prev = self._trial[-1] if self._trial else None
        self._trial.append((site, now - last))
        if prev is not None and prev[0] == site:  # the other count's sample just before, same site
            ratio = (now - last) / prev[1] if prev[1] > 0 else 1.0
            self._ratios.append(ratio if self.current == alt else 1.0 / ratio)
        if len(self._ratios) >= 2 * self.samples - 1 or len(self._trial) >= 4 * self.samples:
            best = alt if self._ratios and _median(self._ratios) < 1.0 else base
            self.chosen = (best, now + self.hold)
            self._trial = None
            self._apply(best, now)
        else:
            self._apply(base if self.current == alt else alt, now)

    def _apply(self, n, now=None):
        if n != self.current:
            self._set(n)
            self.current = n
            self._since = self.clock() if now is None else now

    def fix(self, n, reason):
        """Set ``n`` threads and stop adapting (a DataLoader worker: ``fix(1, ...)``)."""
        self._torch()
        self._set(n)
        self.current = n
        self.reason = reason


def _median(v):
    v = sorted(v)
    return (v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2


_POLICY = Adaptive(reason=user_choice())


def policy():
    """The process's :class:`Adaptive` policy."""
    return _POLICY


def adapt(site=None):
    """Between graph calls: adapt the number of intra-op threads (cheap unless a reading is due);
    ``site`` identifies the caller (e.g. ``id(block)``) for the policy's trials."""
    if _POLICY.reason is None:
        _POLICY(site)


def fix(n, reason):
    """Use ``n`` intra-op threads from now on, never adapting (e.g. in a DataLoader worker)."""
    _POLICY.fix(n, reason)


configure()
