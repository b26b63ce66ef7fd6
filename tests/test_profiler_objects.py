"""``mx.profiler``'s objects (Domain, Task, Frame, Event, Counter,
Marker) and ``dump_profile``, as MXNet 1.9.1 shows them in ``dumps()``
and in the Chrome trace."""

import json
import time

import pytest

import dlbook as mx
from dlbook import profiler
from dlbook.base import DLBookError


@pytest.fixture
def running(tmp_path):
    path = tmp_path / 'prof.json'
    profiler.set_config(
        profile_all=True, aggregate_stats=True, filename=str(path)
    )
    profiler.dumps(reset=True)
    profiler.set_state('run')
    yield path
    profiler.set_state('stop')
    profiler.dumps(reset=True)
    profiler.set_config(filename='profile.json')


def _section(text, name):
    lines = text.split('\n')
    start = lines.index(name)
    rows = []
    for line in lines[start + 4 :]:
        if not line:
            break
        rows.append(line.split())
    return rows


def test_objects_in_table_and_trace(running):
    d = profiler.Domain('mydomain')
    assert str(d) == d.name == 'mydomain'
    t = profiler.Task(d, 'mytask')
    assert str(t) == 'mytask'
    t.start()
    time.sleep(0.002)
    t.stop()
    f = d.new_frame('myframe')
    f.start()
    f.stop()
    e = profiler.Event('myevent')
    e.start()
    e.stop()
    e.start()
    e.stop()
    c = profiler.Counter(d, 'mycounter', 5)
    c.increment(3)
    c.decrement(1)
    c.set_value(10)
    c += 2
    c -= 1
    assert str(c) == 'mycounter'
    n = d.new_counter('nov')
    n.increment()
    m = profiler.Marker(d, 'mymarker')
    m.mark()
    m.mark('global')
    m.mark('thread')
    with pytest.raises(DLBookError, match='Invalid Input'):
        m.mark('bogus')
    (mx.nd.ones((2, 2)) + 1).wait_to_read()
    profiler.set_state('stop')
    text = profiler.dumps()
    # sections in name order, as MXNet's std::map
    heads = [
        ln
        for ln in text.split('\n')
        if ln
        in (
            'event',
            'mydomain',
            'mydomain,frame',
            'mydomain,instant_marker',
            'operator',
        )
    ]
    assert heads == sorted(heads) and len(heads) == 5
    assert [r[0] for r in _section(text, 'event')] == ['myevent']
    assert _section(text, 'event')[0][1] == '2'
    rows = {r[0]: r[1:] for r in _section(text, 'mydomain')}
    assert float(rows['mytask'][1]) >= 2.0
    # MXNet's counter row: values / 1000, the last as total, (max-min)//2
    assert rows['mycounter'] == ['6', '0.0110', '0.0050', '0.0120', '0.0030']
    assert rows['nov'] == ['1', '0.0010', '0.0010', '0.0010', '0.0000']
    assert [r[0] for r in _section(text, 'mydomain,frame')] == ['myframe']
    assert _section(text, 'mydomain,instant_marker') == []
    assert '_plus_scalar' in text
    js = json.loads(profiler.dumps(format='json'))
    assert js['Time']['mydomain']['mycounter']['Count'] == 6
    profiler.dump()
    events = json.loads(running.read_text())['traceEvents']
    names = {ev['args']['name']: ev['pid'] for ev in events if ev['ph'] == 'M'}
    assert {
        'mydomain',
        'mydomain,frame',
        'event',
        'mydomain,instant_marker',
    } <= set(names)
    mine = [
        ev for ev in events if ev['ph'] != 'M' and ev.get('cat') != 'operator'
    ]
    phases = [(ev['name'], ev['ph']) for ev in mine]
    assert phases[:4] == [
        ('mytask', 'b'),
        ('mytask', 'e'),
        ('myframe', '('),
        ('myframe', ')'),
    ]
    assert [
        ev['args']['mycounter'] for ev in mine if ev['name'] == 'mycounter'
    ] == [5, 8, 7, 10, 12, 11]
    assert [ev['s'] for ev in mine if ev['ph'] == 'n'] == ['p', 'g', 't']
    assert all(ev['pid'] == names[ev['cat']] for ev in mine)


def test_nothing_recorded_when_stopped(running):
    profiler.set_state('stop')
    profiler.dumps(reset=True)
    e = profiler.Event('quiet')
    e.start()
    e.stop()
    profiler.Counter(profiler.Domain('dq'), 'cq', 3)
    assert 'quiet' not in profiler.dumps()
    assert 'dq' not in profiler.dumps()


def test_reset_clears_objects(running):
    e = profiler.Event('gone')
    e.start()
    e.stop()
    assert 'gone' in profiler.dumps(reset=True)
    assert 'gone' not in profiler.dumps()


def test_dump_profile_is_deprecated_dump(running):
    e = profiler.Event('ev')
    e.start()
    e.stop()
    with pytest.warns(UserWarning, match='deprecated'):
        profiler.dump_profile()
    assert profiler.state() == 'stop'
    assert any(
        ev.get('name') == 'ev'
        for ev in json.loads(running.read_text())['traceEvents']
    )
