"""Checkers of chapter 17: references pass, typical mistakes explained,
and the student's own profiler records survive a check."""

import json

from dlbook import _profile_state, nd, profiler
from dlbook.exercises.checker import run_check

from .failing import fails as _fails


def calls_per_step(table, name, steps):
    for line in table.splitlines():
        fields = line.split()
        if fields and fields[0] == name:
            return int(fields[1]) / steps
    return 0


def test_calls_per_step():
    assert run_check('ch17.calls_per_step', calls_per_step).passed
    _fails(
        'ch17.calls_per_step',
        lambda table, name, steps: calls_per_step(table, name, 1),
        "'Total Count' over all the steps",
    )
    _fails(
        'ch17.calls_per_step',
        lambda table, name, steps: (
            sum(
                int(line.split()[1])
                for line in table.splitlines()
                if name in line
            )
            / steps
        ),
        "you counted '_backward_",
    )
    _fails(
        'ch17.calls_per_step',
        lambda table, name, steps: str(2),
        'expected a number',
    )


def _stats(text):
    return json.loads(text)['Time']['operator']


def top_operators(text, k):
    stats = _stats(text)
    names = [n for n in stats if 'CachedOp' not in n]
    return sorted(names, key=lambda n: stats[n]['Total'], reverse=True)[:k]


def test_top_operators():
    assert run_check('ch17.top_operators', top_operators).passed
    _fails(
        'ch17.top_operators',
        lambda text, k: sorted(
            _stats(text), reverse=True, key=lambda n: _stats(text)[n]['Total']
        )[:k],
        'CachedOp row is the whole hybridized graph',
    )
    _fails(
        'ch17.top_operators',
        lambda text, k: top_operators(text, k)[::-1],
        'largest first',
    )
    _fails(
        'ch17.top_operators',
        lambda text, k: top_operators(text, k + 1),
        'exactly k',
    )


def backward_share(text):
    total = {
        n: v['Total'] for n, v in _stats(text).items() if 'CachedOp' not in n
    }
    back = sum(v for n, v in total.items() if n.startswith('_backward_'))
    return back / sum(total.values())


def test_backward_share():
    assert run_check('ch17.backward_share', backward_share).passed
    _fails(
        'ch17.backward_share',
        lambda text: 1 - backward_share(text),
        'forward share',
    )

    def with_cached(text):
        every = {n: v['Total'] for n, v in _stats(text).items()}
        return sum(
            v for n, v in every.items() if n.startswith('_backward_')
        ) / sum(every.values())

    _fails('ch17.backward_share', with_cached, 'a second time')
    _fails('ch17.backward_share', lambda text: 'half', 'between 0 and 1')


LENET = {'Convolution': 2, 'Activation': 4, 'Pooling': 2, 'FullyConnected': 3}


def test_lenet_counts():
    assert run_check('ch17.lenet_counts', lambda: dict(LENET)).passed
    _fails(
        'ch17.lenet_counts',
        lambda: dict(LENET, Activation=2),
        'hidden Dense layers',
    )
    _fails(
        'ch17.lenet_counts',
        lambda: dict(LENET, Activation=5),
        'last Dense layer has no activation',
    )
    _fails('ch17.lenet_counts', lambda: dict(LENET, Flatten=1), 'flattens its')
    _fails(
        'ch17.lenet_counts',
        lambda: dict(LENET, _backward_Convolution=2),
        'forward pass only',
    )
    _fails('ch17.lenet_counts', lambda: {'Convolution': 2}, 'misses')


def test_checks_leave_the_students_profile_alone():
    profiler.set_config(profile_all=True)
    profiler.set_state('run')
    try:
        nd.relu(nd.ones((2, 2)))
        before = list(_profile_state.RECORDS)
        assert run_check('ch17.lenet_counts', lambda: dict(LENET)).passed
        assert run_check('ch17.calls_per_step', calls_per_step).passed
        assert _profile_state.ON and list(_profile_state.RECORDS) == before
    finally:
        profiler.set_state('stop')
        profiler.dumps(reset=True)
    assert run_check('ch17.lenet_counts', lambda: dict(LENET)).passed
    assert not _profile_state.ON and _profile_state.RECORDS == []
