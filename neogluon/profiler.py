"""MXNet's ``mx.profiler`` on torch's profiler.

``set_config(filename=..., profile_all=..., aggregate_stats=...)``, ``set_state('run' |
'stop')``, ``pause()``/``resume()``, ``dump()`` and ``dumps()`` keep MXNet 1.9.1's interface:
``dump`` writes a Chrome-trace JSON file (``{"traceEvents": [...], "displayTimeUnit":
"ms"}``, one ``B``/``E`` pair per recorded call, category ``operator``; open it in
chrome://tracing or Perfetto), ``dumps`` MXNet's aggregate table (or its JSON) of count,
total, min, max and average time per name. The events are what torch's profiler records:
neogluon's operators are torch kernels, so a ``dot`` shows as ``aten::mm`` and so on.
``pause``/``resume`` end and start a torch profiling session; ``dump`` joins them.
MXNet's own instrumentation objects are recorded while the profiler runs, as MXNet writes
them: a ``Domain``'s ``Task`` (``b``/``e`` events of the domain's category), ``Frame``
(``(``/``)``, category ``<domain>,frame``), an ``Event`` (``B``/``E``, category ``event``),
a ``Counter``'s values (``C`` events) and a ``Marker``'s instants (``n`` events, category
``<domain>,instant_marker``). They are torch ``record_function`` ranges underneath, so
they share the operators' clock; ``dumps`` tabulates each category in its own section.
"""
import itertools
import json
import os
import threading
import warnings

import torch

from .base import MXNetError

__all__ = ["set_config", "profiler_set_config", "set_state", "profiler_set_state", "dump", "dump_profile",
           "dumps", "pause", "resume", "set_kvstore_handle", "Domain", "Task", "Frame", "Event", "Counter",
           "Marker"]

# MXNet's profiler parameters and their defaults
_DEFAULTS = {"profile_all": False, "profile_symbolic": True, "profile_imperative": True,
             "profile_memory": True, "profile_api": True, "filename": "profile.json",
             "continuous_dump": False, "dump_period": 1.0, "aggregate_stats": False,
             "profile_process": "worker"}
_config = dict(_DEFAULTS)
_lock = threading.Lock()
_session = {"prof": None, "running": False, "paused": False}
_events = []  # (name, start_us, duration_us, thread, category, kind, args) of finished sessions
_marks = {}  # record_function name -> (kind, category, name, args) of the instrumentation objects
_mark_ids = itertools.count()
_STATES = ("stop", "run")
_PROCESSES = ("worker", "server")


def set_kvstore_handle(handle):
    """MXNet profiles a distributed kvstore's parameter servers through this handle;
    neogluon's distributed kvstores have no servers (they all-reduce), so there is nothing
    to record."""
    return None


def _check_process(profile_process):
    if profile_process not in _PROCESSES:
        raise MXNetError("profile_process must be 'worker' or 'server', got %r" % (profile_process,))
    if profile_process == "server":
        raise MXNetError("profile_process='server' profiles a distributed kvstore's servers, which neogluon "
                         "does not have")


def set_config(**kwargs):
    """Set profiler parameters (MXNet's names: filename, profile_all, profile_symbolic,
    profile_imperative, profile_memory, profile_api, continuous_dump, dump_period,
    aggregate_stats, profile_process)."""
    for key in kwargs:
        if key not in _DEFAULTS:
            raise MXNetError("Cannot find argument '%s', Possible Arguments:\n----------------\n%s"
                             % (key, "\n".join("%s, optional, default=%r" % kv for kv in _DEFAULTS.items())))
    _check_process(kwargs.get("profile_process", "worker"))
    _config.update(kwargs)


def profiler_set_config(mode="symbolic", filename="profile.json"):
    """Deprecated: ``set_config(profile_all=(mode == 'all'), filename=filename)``."""
    warnings.warn("profiler.profiler_set_config() is deprecated. Please use profiler.set_config() instead")
    set_config(profile_all=(mode == "all"), profile_symbolic=True, filename=filename)


def _start():
    activities = [torch.profiler.ProfilerActivity.CPU]
    if torch.cuda.is_available():
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    memory = bool(_config["profile_memory"] or _config["profile_all"])
    prof = torch.profiler.profile(activities=activities, profile_memory=memory)
    prof.start()
    _session["prof"] = prof


def _finish():
    prof, _session["prof"] = _session["prof"], None
    if prof is None:
        return
    prof.stop()
    for e in prof.events():
        if e.name == "[memory]":  # allocation records, not calls
            continue
        start = e.time_range.start
        kind, category, name, args = _marks.pop(e.name, ("operator", "operator", e.name, None))
        _events.append((name, start, e.time_range.end - start, e.thread, category, kind, args))


def set_state(state="stop", profile_process="worker"):
    """Start ('run') or stop ('stop') recording."""
    if state not in _STATES:
        raise MXNetError("profiler state must be 'stop' or 'run', got %r" % (state,))
    _check_process(profile_process)
    with _lock:
        if state == "run" and not _session["running"]:
            _session.update(running=True, paused=False)
            _start()
        elif state == "stop" and _session["running"]:
            _session.update(running=False, paused=False)
            _finish()


def profiler_set_state(state="stop"):
    """Deprecated spelling of :func:`set_state`."""
    warnings.warn("profiler.profiler_set_state() is deprecated. Please use profiler.set_state() instead")
    set_state(state)


def pause(profile_process="worker"):
    """Stop recording until :func:`resume` (what was recorded is kept)."""
    _check_process(profile_process)
    with _lock:
        if _session["running"] and not _session["paused"]:
            _session["paused"] = True
            _finish()


def resume(profile_process="worker"):
    """Record again after :func:`pause`."""
    _check_process(profile_process)
    with _lock:
        if _session["running"] and _session["paused"]:
            _session["paused"] = False
            _start()


_PHASES = {"operator": "BE", "event": "BE", "task": "be", "frame": "()"}


def _trace():
    pid = os.getpid()
    events = [{"ph": "M", "args": {"name": "cpu/0"}, "pid": pid, "name": "process_name"}]
    for name, start, dur, tid, cat, kind, args in sorted(_events, key=lambda e: e[1]):
        base = {"name": name, "cat": cat, "pid": pid, "tid": tid}
        if kind == "counter":
            events.append(dict(base, ph="C", ts=start, args={name: args}))
        elif kind == "marker":
            events.append(dict(base, ph="n", ts=start, s=args))
        else:
            begin, end = _PHASES[kind]
            extra = {"id": args} if kind == "task" else {}
            events.append(dict(base, ph=begin, ts=start, **extra))
            events.append(dict(base, ph=end, ts=start + dur, **extra))
    return {"traceEvents": events, "displayTimeUnit": "ms"}


def dump(finished=True, profile_process="worker"):
    """Write what was recorded to the configured ``filename`` as Chrome-trace JSON; with
    ``finished`` the recorded events are then dropped."""
    _check_process(profile_process)
    with _lock:
        if _session["running"] and not _session["paused"]:
            _finish()  # the events so far; a running profiler goes on in a new session
            _start()
        trace = _trace()
        if finished:
            del _events[:]
    with open(_config["filename"], "w") as f:
        json.dump(trace, f, indent=1)


def dump_profile():
    """Deprecated spelling of ``dump(True)``."""
    warnings.warn("profiler.dump_profile() is deprecated. Please use profiler.dump() instead")
    dump(True)


_SORT = {"total": 1, "avg": 4, "min": 2, "max": 3, "count": 0}


def dumps(reset=False, format="table", sort_by="total", ascending=False):  # pylint: disable=redefined-builtin
    """MXNet's aggregate statistics of what was recorded: per name, the call count and the
    total, min, max and average time in ms, as a table (``format='table'``) or JSON."""
    assert format in ("table", "json"), "Invalid value provided for format: {0}. Support: 'table', 'json'" \
        .format(format)
    assert sort_by in _SORT, "Invalid value provided for sort_by: {0}. Support: 'total', 'avg', 'min', " \
        "'max', 'count'".format(sort_by)
    assert ascending in (False, True), "Invalid value provided for ascending: {0}. Support: False, True" \
        .format(ascending)
    assert reset in (False, True), "Invalid value provided for reset: {0}. Support: False, True".format(reset)
    with _lock:
        if _session["running"] and not _session["paused"]:
            _finish()
            _start()
        stats = {}  # category -> name -> [count, total, min, max]
        for name, _, dur, _, cat, kind, _ in _events:
            ms = 0.0 if kind in ("counter", "marker") else dur / 1000.0
            s = stats.setdefault(cat, {}).setdefault(name, [0, 0.0, ms, ms])
            s[0] += 1
            s[1] += ms
            s[2] = min(s[2], ms)
            s[3] = max(s[3], ms)
        if reset:
            del _events[:]
    tables = {cat: sorted(((n, c, t, lo, hi, t / c) for n, (c, t, lo, hi) in names.items()),
                          key=lambda r: r[1 + _SORT[sort_by]], reverse=not ascending)
              for cat, names in stats.items()}
    if format == "json":
        return json.dumps({"Time": {cat: {n: {"Count": c, "Total": round(t, 4), "Min": round(lo, 4),
                                              "Max": round(hi, 4), "Avg": round(a, 4)}
                                          for n, c, t, lo, hi, a in rows} for cat, rows in tables.items()},
                           "Unit": {"Time": "ms"}}, indent=4)
    lines = ["", "Profile Statistics:", "\tNote the difference in units for different entries."]
    for cat, rows in tables.items():
        lines += [cat, "=================",
                  "%-30s%11s%17s%17s%17s%17s" % ("Name", "Total Count", "Time (ms)", "Min Time (ms)",
                                                "Max Time (ms)", "Avg Time (ms)"),
                  "%-30s%11s%17s%17s%17s%17s" % ("----", "-----------", "---------", "-------------",
                                                "-------------", "-------------")]
        lines += ["%-30s%11d%17.4f%17.4f%17.4f%17.4f" % r for r in rows]
        lines.append("")
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- MXNet's instrumentation objects
def _recording():
    return _session["running"] and not _session["paused"]


def _record(kind, category, name, args=None):
    """A torch ``record_function`` range that ``_finish`` turns back into this object's event."""
    key = "neogluon.profiler#%d" % next(_mark_ids)
    _marks[key] = (kind, category, name, args)
    return torch.profiler.record_function(key)


def _instant(kind, category, name, args):
    if _recording():
        with _record(kind, category, name, args):
            pass


class Domain:
    """A category grouping tasks, frames, counters and markers (MXNet's ``profiler.Domain``)."""

    def __init__(self, name):
        self.name = name

    def __str__(self):
        return self.name

    def new_task(self, name):
        return Task(self, name)

    def new_frame(self, name):
        return Frame(self, name)

    def new_counter(self, name, value=None):
        return Counter(self, name, value)

    def new_marker(self, name):
        return Marker(self, name)


class _Duration:
    """A range recorded between ``start()`` and ``stop()`` while the profiler runs."""
    _kind = None

    def __init__(self, name, category):
        self.name = name
        self._category = category
        self._range = None

    def __str__(self):
        return self.name

    def _args(self):
        return None

    def start(self):
        """Start timing scope for this object."""
        if self._range is None and _recording():
            self._range = _record(self._kind, self._category, self.name, self._args())
            self._range.__enter__()

    def stop(self):
        """Stop timing scope for this object."""
        if self._range is not None:
            rng, self._range = self._range, None
            rng.__exit__(None, None, None)


class Task(_Duration):
    """A logical unit of work of a domain (``b``/``e`` events with the task's id)."""
    _kind = "task"

    def __init__(self, domain, name):
        super().__init__(name, domain.name)

    def _args(self):
        return id(self)


class Frame(_Duration):
    """A numbered period of a domain (``(``/``)`` events, category ``<domain>,frame``)."""
    _kind = "frame"

    def __init__(self, domain, name):
        super().__init__(name, domain.name + ",frame")


class Event(_Duration):
    """A demarcated region of code (``B``/``E`` events, category ``event``)."""
    _kind = "event"

    def __init__(self, name):
        super().__init__(name, "event")


class Counter:
    """A value tracked over time (a ``C`` event at each change while the profiler runs)."""

    def __init__(self, domain, name, value=None):
        self.name = name
        self._category = domain.name
        self._value = 0
        if value is not None:
            self.set_value(value)

    def __str__(self):
        return self.name

    def set_value(self, value):
        """Set the counter's value."""
        self._value = int(value)
        _instant("counter", self._category, self.name, self._value)

    def increment(self, delta=1):
        """Add ``delta`` to the counter."""
        self.set_value(self._value + int(delta))

    def decrement(self, delta=1):
        """Subtract ``delta`` from the counter."""
        self.set_value(self._value - int(delta))

    def __iadd__(self, delta):
        self.increment(delta)
        return self

    def __isub__(self, delta):
        self.decrement(delta)
        return self


_SCOPES = {"global": "g", "process": "p", "thread": "t", "task": "t", "marker": "t"}


class Marker:
    """An instant of a domain (an ``n`` event, category ``<domain>,instant_marker``)."""

    def __init__(self, domain, name):
        self.name = name
        self.domain = domain

    def mark(self, scope="process"):
        """Record the instant; ``scope``: 'global', 'process', 'thread', 'task' or 'marker'."""
        if scope not in _SCOPES:
            raise MXNetError("Invalid Input: '%s', valid values are: {'global', 'marker', 'process', 'task', "
                             "'thread'}" % scope)
        _instant("marker", self.domain.name + ",instant_marker", self.name, _SCOPES[scope])
