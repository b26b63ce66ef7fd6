"""Fixtures for the widget tests: a fake clock and captured displays."""

import matplotlib
import pytest

from dlbook.widgets import display

# Tests never open windows, whatever the environment says.
matplotlib.use('Agg')


class FakeClock:
    """A clock that only moves when told to: ``clock.advance(0.1)``."""

    def __init__(self, start=100.0):
        self.now = start

    def __call__(self):
        return self.now

    def advance(self, seconds):
        self.now += seconds


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def shown(monkeypatch):
    """Objects passed to ``display.show``, instead of a notebook."""
    captured = []
    monkeypatch.setattr(display, 'show', captured.append)
    return captured


@pytest.fixture(autouse=True)
def isolated_views(monkeypatch):
    """Each test starts and ends with no open views and default mode."""
    monkeypatch.delenv(display.ENV_VAR, raising=False)
    display.set_display_mode('auto')
    display._open_views.clear()
    yield
    display._open_views.clear()
    display.set_display_mode('auto')
