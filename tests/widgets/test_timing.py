"""d2l's Timer and Accumulator."""

import numpy as np
import pytest

from dlbook.widgets import Accumulator, Timer


def test_timer_with_fake_clock(clock):
    timer = Timer(clock=clock)
    clock.advance(1.0)
    assert timer.stop() == 1.0
    timer.start()
    clock.advance(3.0)
    timer.stop()
    assert timer.times == [1.0, 3.0]
    assert timer.sum() == 4.0
    assert timer.avg() == 2.0
    assert timer.cumsum() == [1.0, 4.0]
    assert repr(timer) == 'Timer(intervals=2)'


def test_timer_uses_a_real_clock_by_default():
    timer = Timer()
    assert timer.stop() >= 0.0


def test_accumulator():
    metric = Accumulator(2)
    metric.add(3.0, 4)
    metric.add(np.float32(1.0), 2)
    assert metric[0] / metric[1] == pytest.approx(4 / 6)
    assert metric.data == [4.0, 6.0]
    assert type(metric[0]) is float
    metric.reset()
    assert metric.data == [0.0, 0.0]
    assert len(metric) == 2 and repr(metric) == 'Accumulator(2)'
    with pytest.raises(ValueError, match='takes 2 values, got 1'):
        metric.add(1.0)
