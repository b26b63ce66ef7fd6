"""try_gpu / try_all_gpus fall back to the CPU and say why, once."""

import pytest

import dlbook as mx
from dlbook import backend
from dlbook.book import devices


@pytest.fixture(autouse=True)
def fresh_reports(monkeypatch):
    monkeypatch.setattr(devices, '_reported', set())


def no_gpu(monkeypatch, reason):
    monkeypatch.setattr(devices, 'num_gpus', lambda: 0)
    monkeypatch.setattr(backend, 'gpu_unavailable_reason', lambda: reason)


@pytest.mark.parametrize(
    'reason',
    [
        "CuPy is not installed (No module named 'cupy'); install the GPU "
        "extra: pip install 'dlbook[gpu]'",
        'CuPy is installed but found no CUDA device',
        'CuPy could not use CUDA: CUDARuntimeError: cudaErrorInsufficientDriver',
    ],
)
def test_try_gpu_falls_back_and_says_why(monkeypatch, capsys, reason):
    no_gpu(monkeypatch, reason)
    assert devices.try_gpu() == mx.cpu()
    out = capsys.readouterr().out
    assert out == f'try_gpu: using cpu(0) instead of gpu(0): {reason}\n'
    assert devices.gpu_status() == f'no GPU available: {reason}'


def test_fallback_line_is_printed_once(monkeypatch, capsys):
    no_gpu(monkeypatch, 'CuPy is installed but found no CUDA device')
    for _ in range(3):
        devices.try_gpu()
    assert capsys.readouterr().out.count('try_gpu') == 1


def test_try_all_gpus_without_gpu(monkeypatch, capsys):
    no_gpu(monkeypatch, 'CuPy is installed but found no CUDA device')
    assert devices.try_all_gpus() == [mx.cpu()]
    out = capsys.readouterr().out
    assert out.startswith(
        'try_all_gpus: using [cpu(0)], no GPU available: '
        'CuPy is installed but found no CUDA device'
    )


def test_unknown_reason_still_explains(monkeypatch, capsys):
    no_gpu(monkeypatch, None)
    devices.try_gpu()
    assert 'no CUDA device was found' in capsys.readouterr().out


def test_with_gpus_nothing_is_printed(monkeypatch, capsys):
    monkeypatch.setattr(devices, 'num_gpus', lambda: 2)
    assert devices.try_gpu() == mx.gpu(0)
    assert devices.try_gpu(1) == mx.gpu(1)
    assert devices.try_all_gpus() == [mx.gpu(0), mx.gpu(1)]
    assert capsys.readouterr().out == ''
    assert devices.gpu_status() == '2 GPUs available: gpu(0), gpu(1)'


def test_missing_gpu_index(monkeypatch, capsys):
    monkeypatch.setattr(devices, 'num_gpus', lambda: 1)
    assert devices.try_gpu(3) == mx.cpu()
    assert capsys.readouterr().out == (
        'try_gpu: using cpu(0) instead of gpu(3): only 1 GPU found\n'
    )
    assert devices.gpu_status() == '1 GPU available: gpu(0)'


def test_real_machine_is_consistent(capsys):
    status = devices.gpu_status()
    if mx.context.num_gpus():
        assert devices.try_gpu() == mx.gpu(0)
        assert 'available: gpu(0)' in status
    else:
        assert devices.try_gpu() == mx.cpu()
        assert status.startswith('no GPU available: ')
