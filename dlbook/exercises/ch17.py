"""Chapter 17 (the profiler): reading the profiler's tables.

The tables the checkers hand to the student are made by
``mx.profiler.dumps`` itself, from invented timings, so they have exactly
the layout the notebook shows.  The student's own profiler records are
set aside while a checker runs and put back afterwards.
"""

import contextlib
import json

import numpy as np

from .. import _profile_state as _state
from .. import profiler
from .compare import call, rng
from .registry import exercise
from .result import Failure


@contextlib.contextmanager
def _own_records(recording=False):
    """Run a block with an empty record list (and the profiler switched
    on when ``recording``), then restore the student's records and
    switches exactly."""
    saved = list(_state.RECORDS)
    on, kinds = _state.ON, dict(_state.KINDS)
    _state.RECORDS.clear()
    _state.ON = recording
    if recording:
        _state.KINDS.update(imperative=True, symbolic=True)
    try:
        yield _state.RECORDS
    finally:
        _state.RECORDS[:] = saved
        _state.ON = on
        _state.KINDS.clear()
        _state.KINDS.update(kinds)


def _profile(rows, format='table'):
    """``dumps()`` of invented calls: ``rows`` maps an operator name to a
    list of call durations in ms."""
    records, clock = [], 0
    for name, durations in rows.items():
        for ms in durations:
            records.append((name, 'cpu/0', clock, clock + int(ms * 1e6)))
            clock += int(ms * 1e6) + 1000
    with _own_records() as own:
        own.extend(records)
        return profiler.dumps(format=format)


def _lenet_like(r, steps, with_cached=False):
    """Invented calls of ``steps`` LeNet training steps."""
    per_step = {
        'Convolution': (2, 5.0),
        '_backward_Convolution': (2, 9.0),
        'Activation': (4, 1.5),
        '_backward_Activation': (4, 0.4),
        'Pooling': (2, 0.8),
        '_backward_Pooling': (2, 0.6),
        'FullyConnected': (3, 0.2),
        '_backward_FullyConnected': (3, 0.3),
        'log_softmax': (1, 0.06),
        'pick': (1, 0.1),
    }
    rows = {}
    for name, (count, ms) in per_step.items():
        rows[name] = list(r.uniform(0.5, 1.5, count * steps) * ms)
    if with_cached:
        forward = sum(
            sum(rows[n]) for n in rows if not n.startswith('_backward_')
        )
        backward = sum(
            sum(rows[n]) for n in rows if n.startswith('_backward_')
        )
        # a graph call lasts a little longer than the operators inside it
        rows['CachedOp'] = [forward / steps + 2.0] * steps
        rows['_backward_CachedOp'] = [backward / steps + 0.5] * steps
    return rows


# -- calls per step (worked example) -----------------------------------------


@exercise(
    'ch17.calls_per_step',
    hint="split the table into lines; the line of an operator starts "
    "with its name, and line.split() gives [name, count, total, "
    "min, max, avg]. Compare the name exactly: 'Convolution' is "
    "not '_backward_Convolution'.",
)
def _calls_per_step(student):
    """calls_per_step(table, name, steps): an operator's calls per step."""
    r = rng(1700)
    cases = []
    for steps, cached in ((5, False), (3, True), (1, False)):
        rows = _lenet_like(r, steps, cached)
        table = _profile(rows)
        for name in (
            'Convolution',
            '_backward_Convolution',
            'Activation',
            'FullyConnected',
            'CachedOp',
        ):
            if name in rows:
                cases.append((table, name, steps, len(rows[name]) / steps))
    for table, name, steps, expected in cases:
        inputs = {'name': name, 'steps': steps}
        got = call(
            student,
            table,
            name,
            steps,
            inputs={'table': 'a dumps() table', **inputs},
        )
        if isinstance(got, bool) or not isinstance(
            got, (int, float, np.integer, np.floating)
        ):
            raise Failure(
                f'for {name!r} the result is {got!r:.60}, '
                f'expected a number such as {expected:g}.'
            )
        if got != expected:
            hint = None
            if got == expected * steps:
                hint = (
                    "that is the 'Total Count' over all the steps; "
                    "divide it by steps."
                )
            elif name == 'Convolution' and got == 2 * expected:
                hint = (
                    "you counted '_backward_Convolution' too: match "
                    "the whole name, not a part of it."
                )
            raise Failure(
                f'for {name!r} over {steps} step(s) the answer '
                f'is {expected:g} calls per step, got {got!r}.',
                hint,
            )
    return (
        f'correct: {len(cases)} operators read from three tables, '
        'forward and backward told apart.'
    )


# -- the slowest operators ---------------------------------------------------


@exercise(
    'ch17.top_operators',
    hint="json.loads(text)['Time']['operator'] is a dict name -> "
    "{'Count', 'Total', ...}; leave out the names that contain "
    "'CachedOp', then sort by 'Total', largest first.",
)
def _top_operators(student):
    """top_operators(text, k): the k operators with the most time."""
    r = rng(1701)
    cases = []
    for steps, cached, k in ((4, False, 3), (2, True, 3), (3, True, 5)):
        rows = _lenet_like(r, steps, cached)
        text = _profile(rows, format='json')
        totals = {n: sum(d) for n, d in rows.items() if 'CachedOp' not in n}
        expected = sorted(totals, key=totals.get, reverse=True)[:k]
        cases.append((text, k, expected, rows))
    for text, k, expected, rows in cases:
        got = call(
            student,
            text,
            k,
            inputs={'text': 'a dumps(format="json") text', 'k': k},
        )
        if not isinstance(got, (list, tuple)):
            raise Failure(
                f'the result is a {type(got).__name__}, expected '
                f'a list of {k} operator names.'
            )
        got = list(got)
        if got != expected:
            hint = None
            if any('CachedOp' in str(n) for n in got):
                hint = (
                    'a CachedOp row is the whole hybridized graph: its '
                    'time contains the operators inside it. Leave it '
                    'out.'
                )
            elif sorted(map(str, got)) == sorted(expected):
                hint = 'the right names in the wrong order: largest first.'
            elif len(got) != k:
                hint = f'return exactly k = {k} names.'
            raise Failure(
                f'with k = {k} the answer is {expected}, got {got}.', hint
            )
    return 'correct: the slowest operators, CachedOp rows left out.'


# -- the backward share ------------------------------------------------------


@exercise(
    'ch17.backward_share',
    hint="sum 'Total' over the names that start with '_backward_', "
    "divide by the sum over all names; leave out the CachedOp "
    "rows in both sums.",
)
def _backward_share(student):
    """backward_share(text): the fraction of time spent in backward ops."""
    r = rng(1702)
    for steps, cached in ((4, False), (2, True)):
        rows = _lenet_like(r, steps, cached)
        text = _profile(rows, format='json')
        stats = json.loads(text)['Time']['operator']
        plain = {
            n: v['Total'] for n, v in stats.items() if 'CachedOp' not in n
        }
        back = sum(v for n, v in plain.items() if n.startswith('_backward_'))
        expected = back / sum(plain.values())
        got = call(
            student, text, inputs={'text': 'a dumps(format="json") text'}
        )
        try:
            value = float(got)
        except (TypeError, ValueError):
            raise Failure(
                f'the result is {got!r:.60}, expected a number '
                f'between 0 and 1.'
            ) from None
        if not abs(value - expected) <= 1e-6:
            hint = None
            if cached:
                every = {n: v['Total'] for n, v in stats.items()}
                with_cached = sum(
                    v for n, v in every.items() if n.startswith('_backward_')
                ) / sum(every.values())
                if abs(value - with_cached) <= 1e-6:
                    hint = (
                        'the CachedOp rows count the operators inside '
                        'them a second time: leave them out.'
                    )
            if abs(value - back / (sum(plain.values()) - back)) <= 1e-6:
                hint = 'divide by the total of ALL operators, not of forward.'
            if abs(value - (1 - expected)) <= 1e-6:
                hint = 'that is the forward share.'
            raise Failure(
                f'the backward share of this table is '
                f'{expected:.4f}, got {value:.4f}.',
                hint,
            )
    return 'correct: the share of operator time spent going backward.'


# -- predicting the calls of LeNet -------------------------------------------


def _lenet():
    from ..gluon import nn

    net = nn.HybridSequential()
    net.add(
        nn.Conv2D(channels=6, kernel_size=5, padding=2, activation='sigmoid'),
        nn.AvgPool2D(pool_size=2, strides=2),
        nn.Conv2D(channels=16, kernel_size=5, activation='sigmoid'),
        nn.AvgPool2D(pool_size=2, strides=2),
        nn.Dense(120, activation='sigmoid'),
        nn.Dense(84, activation='sigmoid'),
        nn.Dense(10),
    )
    return net


def _lenet_forward_counts():
    """Profile one forward pass of a fresh LeNet, with the student's
    records set aside."""
    from .. import initializer, nd

    with _own_records():
        net = _lenet()
        net.initialize(initializer.Xavier())
        x = nd.array(rng(1703).uniform(size=(2, 1, 28, 28)))
        net(x)  # shapes are inferred here
        with _own_records(recording=True) as own:
            net(x)
            counts = {}
            for name, *_ in own:
                counts[name] = counts.get(name, 0) + 1
    return counts


@exercise(
    'ch17.lenet_counts',
    hint="go through the layers: each Conv2D runs a Convolution, each "
    "pooling layer a Pooling, each Dense a FullyConnected, and a "
    "layer made with activation='sigmoid' one Activation more.",
)
def _lenet_counts(student):
    """lenet_counts(): operator calls of one forward pass of LeNet."""
    expected = _lenet_forward_counts()
    got = call(student, inputs={})
    if not isinstance(got, dict):
        raise Failure(
            f'the result is a {type(got).__name__}, expected a '
            f'dict such as {{"Convolution": ...}}.'
        )
    extra = sorted(set(got) - set(expected))
    if extra:
        hint = None
        if any(str(n).startswith('_backward_') for n in extra):
            hint = 'one forward pass only: no backward operators.'
        elif any('latten' in str(n) for n in extra):
            hint = (
                'Dense flattens its (batch, 16, 5, 5) input itself '
                '(FullyConnected with flatten=True): no extra operator.'
            )
        raise Failure(
            f'a forward pass of LeNet runs no {extra}; its '
            f'operators are {sorted(expected)}.',
            hint,
        )
    missing = sorted(set(expected) - set(got))
    if missing:
        raise Failure(f'the dict misses {missing}.')
    for name in sorted(expected):
        if got[name] != expected[name]:
            hint = None
            if name == 'Activation' and got[name] == 2:
                hint = (
                    'the two hidden Dense layers have '
                    "activation='sigmoid' too."
                )
            elif name == 'Activation' and got[name] == expected[name] + 1:
                hint = 'the last Dense layer has no activation.'
            raise Failure(
                f'{name} runs {expected[name]} time(s) per forward '
                f'pass, not {got[name]!r}.',
                hint,
            )
    return (
        'correct: '
        + ', '.join(f'{n} x{c}' for n, c in sorted(expected.items()))
        + '.'
    )
