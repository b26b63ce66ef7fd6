"""Fixtures for the book helpers: headless plotting, text-mode widgets."""

import os

import matplotlib
import pytest

from dlbook.widgets import display

matplotlib.use('Agg')

DATA = os.environ.get('DLBOOK_DATA')
HAS_FASHION_MNIST = bool(DATA) and os.path.isdir(
    os.path.join(DATA, 'fashion-mnist')
)
needs_fashion_mnist = pytest.mark.skipif(
    not HAS_FASHION_MNIST,
    reason='Fashion-MNIST files not found (set DLBOOK_DATA)',
)


@pytest.fixture(autouse=True)
def text_widgets(monkeypatch):
    """Animators print text lines; none stays open after a test."""
    monkeypatch.delenv(display.ENV_VAR, raising=False)
    display.set_display_mode('text')
    yield
    display.finish_open_views()
    display.set_display_mode('auto')


@pytest.fixture
def fast(monkeypatch):
    monkeypatch.setenv('DLBOOK_FAST', '1')


@pytest.fixture
def full(monkeypatch):
    monkeypatch.delenv('DLBOOK_FAST', raising=False)
