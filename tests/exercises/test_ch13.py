"""Checkers of chapter 13: references pass, typical mistakes explained."""

import dlbook as mx
from dlbook import gluon, nd
from dlbook.exercises.checker import run_check

from .failing import fails as _fails


def allreduce(data):
    for i in range(1, len(data)):
        data[0][:] += data[i].copyto(data[0].context)
    for i in range(1, len(data)):
        data[0].copyto(data[i])


def test_allreduce_reference_passes():
    assert run_check('ch13.allreduce', allreduce).passed


def test_allreduce_without_broadcast_is_explained():
    def reduce_only(data):
        for i in range(1, len(data)):
            data[0][:] += data[i].copyto(data[0].context)

    _fails('ch13.allreduce', reduce_only, 'data[1] did not change')


def test_allreduce_that_moves_arrays_is_caught():
    def moving(data):
        total = sum(d.copyto(mx.cpu(0)) for d in data)
        for i in range(len(data)):
            data[i] = total

    _fails('ch13.allreduce', moving, 'is on cpu(0), expected cpu(1)')


def split_batch(X, y, devices):
    n = X.shape[0] // len(devices)
    return (
        [X[i * n : (i + 1) * n].copyto(d) for i, d in enumerate(devices)],
        [y[i * n : (i + 1) * n].copyto(d) for i, d in enumerate(devices)],
    )


def test_split_batch_reference_and_split_and_load_pass():
    assert run_check('ch13.split_batch', split_batch).passed

    def with_gluon(X, y, devices):
        return (
            gluon.utils.split_and_load(X, devices),
            gluon.utils.split_and_load(y, devices),
        )

    assert run_check('ch13.split_batch', with_gluon).passed


def test_split_batch_mistakes():
    def not_copied(X, y, devices):
        n = X.shape[0] // len(devices)
        return (
            [X[i * n : (i + 1) * n] for i in range(len(devices))],
            [y[i * n : (i + 1) * n] for i in range(len(devices))],
        )

    _fails('ch13.split_batch', not_copied, 'expected cpu(1)', 'copyto')

    def interleaved(X, y, devices):
        k = len(devices)
        return (
            [X[i::k].copyto(d) for i, d in enumerate(devices)],
            [y[i::k].copyto(d) for i, d in enumerate(devices)],
        )

    _fails('ch13.split_batch', interleaved, 'slice 0')
    _fails('ch13.split_batch', lambda X, y, d: X, 'two lists')


def kv_average(values):
    kv = mx.kv.create('local')
    kv.init(0, nd.zeros(values[0].shape))
    kv.push(0, values)
    outs = [nd.zeros(v.shape, ctx=v.context) for v in values]
    kv.pull(0, out=outs)
    return [out / len(values) for out in outs]


def test_kv_average_reference_passes():
    assert run_check('ch13.kv_average', kv_average).passed


def test_kv_average_sum_is_explained():
    def kv_sum(values):
        return [out * len(values) for out in kv_average(values)]

    _fails('ch13.kv_average', kv_sum, 'that is the sum')


def replicas_identical(net):
    for param in net.collect_params().values():
        ctxs = param.list_ctx()
        first = param.data(ctxs[0]).asnumpy()
        for ctx in ctxs[1:]:
            if not (param.data(ctx).asnumpy() == first).all():
                return False
    return True


def test_replicas_identical_reference_passes():
    assert run_check('ch13.replicas_identical', replicas_identical).passed


def test_replicas_identical_checking_too_little():
    def first_param_only(net):
        param = list(net.collect_params().values())[0]
        ctxs = param.list_ctx()
        return all(
            (param.data(c).asnumpy() == param.data(ctxs[0]).asnumpy()).all()
            for c in ctxs
        )

    _fails('ch13.replicas_identical', first_param_only, 'differs on cpu(2)')
    _fails('ch13.replicas_identical', lambda net: 1, 'True or False')
