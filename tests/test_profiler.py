"""``mx.profiler`` with MXNet 1.9.1's API.  MXNet 1.9.1's dumps() for
``tanh(x) * 2`` with backward lists (among its engine rows) the operators
tanh, _mul_scalar, _backward_tanh and _backward_mul_scalar, each with
Total Count 1, under the header 'Name  Total Count  Time (ms)  Min Time
(ms)  Max Time (ms)  Avg Time (ms)'; dump() writes a JSON object with
'traceEvents' and 'displayTimeUnit'."""

import json

import pytest

import dlbook as mx
from dlbook import _profile_state


@pytest.fixture(autouse=True)
def clean():
    mx.profiler.set_state('stop')
    mx.profiler.resume()
    mx.profiler.dumps(reset=True)
    yield
    mx.profiler.set_state('stop')
    mx.profiler.resume()
    mx.profiler.dumps(reset=True)
    mx.profiler.set_config(profile_symbolic=True, profile_imperative=True)


def _rows(table):
    rows = {}
    for line in table.splitlines():
        parts = line.split()
        if len(parts) == 6 and parts[1].isdigit():
            rows[parts[0]] = int(parts[1]), [float(p) for p in parts[2:]]
    return rows


def _run():
    x = mx.nd.ones((10, 10))
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.tanh(x) * 2
    y.backward()


def test_table_counts_forward_and_backward(tmp_path):
    mx.profiler.set_config(
        profile_all=True,
        aggregate_stats=True,
        filename=str(tmp_path / 'p.json'),
    )
    mx.profiler.set_state('run')
    assert mx.profiler.state() == 'run'
    _run()
    mx.profiler.set_state('stop')
    table = mx.profiler.dumps()
    assert (
        'Name                          Total Count        Time (ms)    '
        'Min Time (ms)    Max Time (ms)    Avg Time (ms)' in table
    )
    rows = _rows(table)
    for name in (
        'tanh',
        '_mul_scalar',
        '_backward_tanh',
        '_backward_mul_scalar',
    ):
        count, (total, low, high, avg) = rows[name]
        assert count == 1 and low <= avg <= high and total >= 0
    # reset=False keeps, reset=True clears
    assert _rows(mx.profiler.dumps(reset=True)) == rows
    assert _rows(mx.profiler.dumps()) == {}


def test_pause_resume_and_stopped_is_free():
    _run()
    assert _profile_state.RECORDS == [] and not _profile_state.ON
    mx.profiler.set_state('run')
    mx.profiler.pause()
    _run()
    assert _profile_state.RECORDS == []
    mx.profiler.resume()
    mx.nd.ones(3) + 1
    assert _rows(mx.profiler.dumps())['_plus_scalar'][0] == 1


def test_symbolic_and_hybridized_runs(tmp_path):
    mx.profiler.set_config(profile_imperative=False, profile_symbolic=True)
    net = mx.gluon.nn.Dense(3)
    net.initialize()
    net.hybridize()
    x = mx.nd.ones((2, 4))
    net(x)  # builds the graph
    mx.profiler.set_state('run')
    with mx.autograd.record():
        y = net(x)
    y.backward()
    mx.nd.ones(2)  # imperative: not recorded
    mx.profiler.set_state('stop')
    rows = _rows(mx.profiler.dumps())
    assert 'FullyConnected' in rows and '_ones' not in rows


def test_dump_writes_chrome_trace(tmp_path):
    path = tmp_path / 'trace.json'
    mx.profiler.set_config(profile_all=True, filename=str(path))
    mx.profiler.set_state('run')
    _run()
    mx.profiler.dump(finished=True)
    assert mx.profiler.state() == 'stop'
    trace = json.loads(path.read_text())
    assert set(trace) == {'traceEvents', 'displayTimeUnit'}
    names = {e['name'] for e in trace['traceEvents'] if e['ph'] == 'X'}
    assert {'tanh', '_backward_tanh'} <= names
    meta = [e for e in trace['traceEvents'] if e['ph'] == 'M']
    assert meta[0]['args'] == {'name': 'cpu/0'}


def test_bad_arguments():
    with pytest.raises(mx.base.MXNetError, match='unknown option'):
        mx.profiler.set_config(profile_everything=True)
    with pytest.raises(mx.base.MXNetError, match="'run' or 'stop'"):
        mx.profiler.set_state('go')
