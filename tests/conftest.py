"""Shared fixtures: every context-aware test runs on cpu(0) and, when a
GPU (or the fake-GPU mode ``DLBOOK_FAKE_GPUS=N``) is present, on gpu(0)."""

import os

import pytest

import dlbook as mx
from dlbook.backend import reset_gpu_backend

if 'DLBOOK_DATA' not in os.environ:
    _shared = os.path.join(
        os.path.dirname(__file__), '..', '..', 'shared', 'data'
    )
    if os.path.isdir(_shared):
        os.environ['DLBOOK_DATA'] = os.path.abspath(_shared)

CONTEXTS = [
    pytest.param(mx.cpu(0), id='cpu0'),
    pytest.param(
        mx.gpu(0),
        id='gpu0',
        marks=pytest.mark.skipif(
            mx.context.num_gpus() == 0, reason='needs CuPy and a CUDA device'
        ),
    ),
]


@pytest.fixture(params=CONTEXTS)
def ctx(request):
    """The device under test, also the default context inside the test."""
    with request.param:
        yield request.param


@pytest.fixture
def fake_gpu(monkeypatch):
    """gpu(0) served by the strict fake CuPy, whatever the environment:
    device calls and host syncs can be counted without a GPU."""
    monkeypatch.setenv('DLBOOK_FAKE_GPUS', '1')
    monkeypatch.delenv('DLBOOK_FAKE_CUPY', raising=False)
    reset_gpu_backend()
    yield mx.gpu(0)
    monkeypatch.undo()
    reset_gpu_backend()


@pytest.fixture(autouse=True)
def _seed():
    mx.random.seed(0)
    yield
