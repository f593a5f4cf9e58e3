"""``mx.profiler``'s instrumentation objects (Domain, Task, Frame, Event, Counter, Marker):
the Chrome-trace events and aggregate sections MXNet 1.9.1 writes for them (its trace of
the same script: tasks ``b``/``e`` in the domain's category, frames ``(``/``)`` in
``<domain>,frame``, events ``B``/``E`` in ``event``, counters ``C`` with the value in
``args``, markers ``n`` in ``<domain>,instant_marker`` with scope ``p``/``t``)."""
import json

import pytest

import neogluon as mx
from neogluon.base import MXNetError


@pytest.fixture
def profile_file(tmp_path):
    path = str(tmp_path / "profile.json")
    mx.profiler.set_config(filename=path, profile_all=True, aggregate_stats=True)
    mx.profiler.dumps(reset=True)
    yield path
    mx.profiler.set_state("stop")
    mx.profiler.dumps(reset=True)
    mx.profiler.set_config(filename="profile.json", profile_all=False, aggregate_stats=False)


def _mine(path):
    with open(path) as f:
        return [e for e in json.load(f)["traceEvents"] if e.get("name", "").startswith("my")]


def test_objects_write_mxnets_trace_events(profile_file):
    domain = mx.profiler.Domain("mydomain")
    counter = domain.new_counter("mycounter", 5)  # before the profiler runs: nothing recorded
    mx.profiler.set_state("run")
    task = domain.new_task("mytask")
    task.start()
    mx.nd.ones((4, 4)).sum().asnumpy()
    task.stop()
    frame = domain.new_frame("myframe")
    frame.start()
    frame.stop()
    event = mx.profiler.Event("myevent")
    event.start()
    event.stop()
    counter.set_value(7)
    counter += 3
    counter -= 1
    counter.increment(2)
    counter.decrement(1)
    marker = domain.new_marker("mymarker")
    marker.mark("process")
    marker.mark("thread")
    mx.profiler.set_state("stop")
    task.start()  # not running: not recorded
    task.stop()
    table = mx.profiler.dumps()
    mx.profiler.dump()
    events = _mine(profile_file)
    phases = [(e["name"], e["cat"], e["ph"]) for e in events]
    assert phases == [("mytask", "mydomain", "b"), ("mytask", "mydomain", "e"),
                      ("myframe", "mydomain,frame", "("), ("myframe", "mydomain,frame", ")"),
                      ("myevent", "event", "B"), ("myevent", "event", "E")] + \
        [("mycounter", "mydomain", "C")] * 5 + [("mymarker", "mydomain,instant_marker", "n")] * 2
    assert [e["args"]["mycounter"] for e in events if e["ph"] == "C"] == [7, 10, 9, 11, 10]
    assert [e["s"] for e in events if e["ph"] == "n"] == ["p", "t"]
    assert events[0]["id"] == events[1]["id"] and events[0]["ts"] < events[1]["ts"]
    assert all(a["ts"] <= b["ts"] for a, b in zip(events, events[1:]))
    # the task spans the operators run inside it (one clock)
    with open(profile_file) as f:
        ops = [e for e in json.load(f)["traceEvents"] if e.get("cat") == "operator" and e["name"] == "aten::sum"]
    assert ops and all(events[0]["ts"] <= e["ts"] <= events[1]["ts"] for e in ops)
    for section in ("\nmydomain\n", "\nmydomain,frame\n", "\nevent\n", "\nmydomain,instant_marker\n",
                    "\noperator\n"):
        assert section in table
    assert str(domain) == "mydomain" and str(task) == "mytask" and str(counter) == "mycounter"


def test_marker_scope_is_checked(profile_file):
    marker = mx.profiler.Domain("d").new_marker("m")
    with pytest.raises(MXNetError, match="Invalid Input: 'bad', valid values are"):
        marker.mark("bad")
    for scope in ("global", "process", "thread", "task", "marker"):
        marker.mark(scope)
