"""Chapter 13 (several devices): all-reduce, splitting, key-value stores.

``cpu(0)``, ``cpu(1)``, ``cpu(2)`` are distinct devices in dlbook, so
these checks run on any machine.
"""

import numpy as np

from .. import init, nd
from ..context import cpu
from ..gluon import nn
from .compare import call, rng
from .registry import exercise
from .result import Failure

DEVICES = [cpu(0), cpu(1)]


def _fmt(array):
    return str([round(float(v), 3) for v in np.ravel(array)])


def _on(values, devices, what):
    """Check a list of arrays: one per device, each on its device."""
    if not isinstance(values, (list, tuple)):
        raise Failure(
            f'{what} is a {type(values).__name__}; expected a list '
            f'with one NDArray per device.'
        )
    if len(values) != len(devices):
        raise Failure(
            f'{what} has {len(values)} items for {len(devices)} devices.'
        )
    for i, (value, device) in enumerate(zip(values, devices)):
        context = getattr(value, 'context', None)
        if context is None:
            raise Failure(
                f'item {i} of {what} is a {type(value).__name__}, '
                f'not an NDArray.'
            )
        if context != device:
            raise Failure(
                f'item {i} of {what} is on {context}, expected {device}.',
                hint='copy with x.copyto(device) or x.as_in_context(device).',
            )


# -- all-reduce (worked example) ----------------------------------------------


@exercise(
    'ch13.allreduce',
    hint='add every other array into data[0] (after copying it to '
    "data[0]'s device), then copy data[0] back into the "
    'others: data[0].copyto(data[i]).',
)
def _allreduce(student):
    """allreduce(data): leave the sum of all arrays on every device."""
    r = rng(1300)
    for devices, shape in (
        [DEVICES, (2, 3)],
        [[cpu(0), cpu(1), cpu(2)], (4,)],
    ):
        values = [r.normal(size=shape) for _ in devices]
        data = [nd.array(v, ctx=d) for v, d in zip(values, devices)]
        call(
            student,
            data,
            inputs={'data': f'{len(devices)} arrays of shape {shape}'},
        )
        _on(data, devices, 'data after allreduce')
        expected = np.sum(values, axis=0)
        for i, array in enumerate(data):
            got = array.asnumpy()
            if not np.allclose(got, expected, rtol=1e-5, atol=1e-5):
                hint = None
                if np.allclose(got, values[i], rtol=1e-5, atol=1e-5):
                    hint = (
                        f'data[{i}] did not change: write into the '
                        'arrays in place (data[0][:] += ..., '
                        'data[0].copyto(data[i])).'
                    )
                raise Failure(
                    f'with {len(devices)} devices, data[{i}] is '
                    f'{_fmt(got)}, '
                    f'expected the sum '
                    f'{_fmt(expected)}.',
                    hint,
                )
    return 'correct: every device holds the sum, on 2 and on 3 devices.'


# -- splitting a batch --------------------------------------------------------


@exercise(
    'ch13.split_batch',
    hint='n = X.shape[0] // len(devices); slice i is '
    'X[i * n:(i + 1) * n].copyto(devices[i]), the same for y.',
)
def _split_batch(student):
    """split_batch(X, y, devices): one slice per device, in order."""
    for devices, batch in ([DEVICES, 6], [[cpu(0), cpu(1), cpu(2)], 9]):
        X = rng(1301).normal(size=(batch, 2, 3))
        y = np.arange(batch, dtype=np.float32)
        got = call(
            student, nd.array(X), nd.array(y), devices, inputs={'X': X, 'y': y}
        )
        if not isinstance(got, (list, tuple)) or len(got) != 2:
            raise Failure(
                'split_batch must return two lists: the X slices '
                'and the y slices.'
            )
        X_shards, y_shards = got
        _on(X_shards, devices, 'the X slices')
        _on(y_shards, devices, 'the y slices')
        n = batch // len(devices)
        for i in range(len(devices)):
            for name, full, shards in (('X', X, X_shards), ('y', y, y_shards)):
                expected = full[i * n : (i + 1) * n]
                piece = shards[i].asnumpy()
                if piece.shape != expected.shape or not np.allclose(
                    piece, expected
                ):
                    raise Failure(
                        f'with {len(devices)} devices and a batch of '
                        f'{batch}, {name} slice {i} has shape '
                        f'{piece.shape}, expected rows {i * n} to '
                        f'{(i + 1) * n - 1} of {name}, shape '
                        f'{expected.shape}.'
                    )
    return 'correct: consecutive, equal slices on 2 and 3 devices.'


# -- averaging with a key-value store -----------------------------------------


@exercise(
    'ch13.kv_average',
    hint="kv = mx.kv.create('local'); kv.init(0, nd.zeros(shape)); "
    'kv.push(0, values) stores the sum; pull into one array '
    'per device (kv.pull(0, out=outs)) and divide by '
    'len(values).',
)
def _kv_average(student):
    """kv_average(values): the average of all arrays, on every device."""
    r = rng(1302)
    for devices, shape in (
        [DEVICES, (2, 2)],
        [[cpu(0), cpu(1), cpu(2)], (3,)],
    ):
        values = [r.normal(size=shape) for _ in devices]
        arrays = [nd.array(v, ctx=d) for v, d in zip(values, devices)]
        got = call(
            student,
            arrays,
            inputs={'values': f'{len(devices)} arrays of shape {shape}'},
        )
        _on(got, devices, 'the result')
        expected = np.mean(values, axis=0)
        for i, array in enumerate(got):
            value = array.asnumpy()
            if not np.allclose(value, expected, rtol=1e-5, atol=1e-5):
                hint = None
                if np.allclose(
                    value, expected * len(devices), rtol=1e-5, atol=1e-5
                ):
                    hint = (
                        'that is the sum: push adds the values up; '
                        'divide by the number of devices.'
                    )
                raise Failure(
                    f'with {len(devices)} devices, result {i} is '
                    f'{_fmt(value)}, '
                    f'expected '
                    f'{_fmt(expected)}.',
                    hint,
                )
    return 'correct: push sums, pull broadcasts, one division averages.'


# -- identical replicas -------------------------------------------------------


def _net(devices):
    net = nn.Sequential()
    net.add(nn.Dense(4, in_units=3), nn.Dense(2, in_units=4))
    net.initialize(init.Normal(0.1), ctx=devices)
    return net


@exercise(
    'ch13.replicas_identical',
    hint='for each param in net.collect_params().values(), compare '
    'param.data(ctx).asnumpy() for every ctx in '
    'param.list_ctx() with the first one.',
)
def _replicas_identical(student):
    """replicas_identical(net): True iff all replicas hold equal values."""
    cases = []
    net = _net(DEVICES)
    cases.append((net, True, 'a freshly initialised network'))
    net = _net([cpu(0), cpu(1), cpu(2)])
    weight = net[1].weight
    changed = weight.data(cpu(2)).asnumpy()
    changed[0, 0] += 1e-3
    weight.data(cpu(2))[:] = nd.array(changed, ctx=cpu(2))
    cases.append(
        (net, False, 'a network whose second layer differs on cpu(2)')
    )
    net = _net(DEVICES)
    bias = net[0].bias
    bias.data(cpu(1))[:] = bias.data(cpu(1)) + 1
    cases.append((net, False, 'a network whose first bias differs on cpu(1)'))
    cases.append((_net([cpu(0)]), True, 'a network on one device'))
    for net, expected, what in cases:
        got = call(student, net, inputs={'net': what})
        if not isinstance(got, (bool, np.bool_)):
            raise Failure(
                f'replicas_identical returned {got!r:.60}; '
                f'expected True or False.'
            )
        if bool(got) != expected:
            hint = None
            if not expected:
                hint = (
                    'check every parameter (weights and biases) on '
                    'every device, not only the first two.'
                )
            raise Failure(
                f'for {what} the answer is {expected}, got {bool(got)}.', hint
            )
    return 'correct: it finds a difference in any parameter on any device.'
