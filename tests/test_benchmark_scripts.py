"""The benchmark scripts still fit the code they measure.

Benchmarks are not run by the test suite (timing has no place in
pass/fail tests), but a script that no longer imports, or whose hooks
into dlbook's internals no longer match, would only be found when
someone runs it.  This imports every ``benchmarks/bench_*.py`` and runs
the cheap hooks.
"""

import importlib
import pathlib

import pytest

from dlbook import autograd, nd

SCRIPTS = sorted(
    path.stem
    for path in (pathlib.Path(__file__).parents[1] / 'benchmarks').glob(
        'bench_*.py'
    )
)


@pytest.mark.parametrize('name', SCRIPTS)
def test_benchmark_script_imports(name):
    module = importlib.import_module(f'benchmarks.{name}')
    assert callable(module.main)


def test_stale_input_benchmark_builds_invoke_without_the_check():
    """``bench_stale_inputs`` rewrites ``invoke``'s source; the rewritten
    function must still run an operator and its backward."""
    bench = importlib.import_module('benchmarks.bench_stale_inputs')
    without = bench._invoke_without_check()
    caller = bench._caller_module
    shipped = caller.invoke
    a, b = nd.ones((2, 2)), nd.ones((2, 2))
    a.attach_grad()
    caller.invoke = without
    try:
        with autograd.record():
            c = a + b
        c.backward()
    finally:
        caller.invoke = shipped
    assert c.asnumpy().tolist() == [[2.0, 2.0], [2.0, 2.0]]
    assert a.grad.asnumpy().tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_mxnet_workloads_run_on_dlbook():
    """The workload file shared with MXNet runs its cheapest workloads on
    dlbook (``import dlbook as mx``)."""
    workloads = importlib.import_module('benchmarks.mxnet_workloads')
    workloads.use('dlbook')
    for name in ('add', 'conv'):
        make, _ = workloads.WORKLOADS[name]
        assert workloads.median_seconds(make(), 1) > 0


def test_gpu_call_counts_attribute_calls_to_operators(monkeypatch):
    """``bench_gpu_calls`` counts a step's fake-GPU calls by operator and
    puts the operators' methods back afterwards."""
    import dlbook as mx
    from dlbook.backend import fake_cupy, reset_gpu_backend
    from dlbook.ops import REGISTRY

    bench = importlib.import_module('benchmarks.bench_gpu_calls')
    monkeypatch.setenv('DLBOOK_FAKE_GPUS', '1')
    monkeypatch.delenv('DLBOOK_FAKE_CUPY', raising=False)
    reset_gpu_backend()
    try:
        forward = REGISTRY['FullyConnected'].forward
        x = nd.ones((2, 3), ctx=mx.gpu(0))
        w = nd.ones((4, 3), ctx=mx.gpu(0))
        calls, by_op = bench._by_operator(
            lambda: nd.FullyConnected(x, w, no_bias=True, num_hidden=4),
            fake_cupy,
        )
        assert calls['matmul'] == 1
        assert by_op['FullyConnected forward'] == sum(calls.values())
        assert REGISTRY['FullyConnected'].forward is forward
    finally:
        monkeypatch.undo()
        reset_gpu_backend()
