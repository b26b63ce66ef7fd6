"""Learning-rate schedulers against MXNet 1.9.1's formulas and logs."""

import logging
import math

import pytest

from dlbook import lr_scheduler as lrs


def test_factor_scheduler_values():
    sched = lrs.FactorScheduler(step=3, factor=0.5, base_lr=1.0)
    got = [sched(n) for n in range(1, 11)]
    # The rate changes once num_update exceeds count + step.
    want = [1.0 * 0.5 ** ((n - 1) // 3) for n in range(1, 11)]
    assert got == pytest.approx(want)


def test_factor_scheduler_is_stateful():
    sched = lrs.FactorScheduler(step=2, factor=0.1, base_lr=1.0)
    assert sched(7) == pytest.approx(1e-3)  # catches up in one call
    assert sched(1) == pytest.approx(1e-3)  # never goes back
    assert sched.count == 6 and sched.base_lr == pytest.approx(1e-3)


def test_factor_scheduler_logs_changes(caplog):
    sched = lrs.FactorScheduler(
        step=1, factor=0.5, base_lr=1.0, stop_factor_lr=0.2
    )
    with caplog.at_level(logging.INFO):
        sched(2)
        sched(3)
        sched(4)
    messages = [r.getMessage() for r in caplog.records]
    assert messages[0] == 'Update[2]: Change learning rate to 5.00000e-01'
    assert messages[1] == 'Update[3]: Change learning rate to 2.50000e-01'
    assert messages[2] == (
        'Update[4]: now learning rate arrived at '
        '2.00000e-01, will not change in the future'
    )
    assert sched(10) == 0.2


def test_factor_scheduler_warmup_linear_and_constant():
    sched = lrs.FactorScheduler(
        step=10, base_lr=1.0, warmup_steps=4, warmup_begin_lr=0.2
    )
    assert [sched(n) for n in range(4)] == pytest.approx([0.2, 0.4, 0.6, 0.8])
    assert sched(4) == 1.0
    const = lrs.FactorScheduler(
        step=10,
        base_lr=1.0,
        warmup_steps=4,
        warmup_begin_lr=0.2,
        warmup_mode='constant',
    )
    assert [const(n) for n in range(4)] == [0.2] * 4


def test_factor_scheduler_errors():
    with pytest.raises(ValueError, match='greater or equal than 1'):
        lrs.FactorScheduler(step=0)
    with pytest.raises(ValueError, match='no more than 1'):
        lrs.FactorScheduler(step=1, factor=1.5)
    with pytest.raises(ValueError, match='higher than warmup_begin_lr'):
        lrs.FactorScheduler(step=1, base_lr=0.1, warmup_begin_lr=0.5)
    with pytest.raises(ValueError, match='linear and constant'):
        lrs.FactorScheduler(step=1, warmup_mode='cosine')
    with pytest.raises(ValueError, match='positive or 0'):
        lrs.FactorScheduler(step=1, warmup_steps=-1)


def test_multifactor_scheduler(caplog):
    sched = lrs.MultiFactorScheduler(step=[2, 5], factor=0.1, base_lr=1.0)
    with caplog.at_level(logging.INFO):
        got = [sched(n) for n in range(1, 8)]
    assert got == pytest.approx([1, 1, 0.1, 0.1, 0.1, 0.01, 0.01])
    assert len(caplog.records) == 2
    assert (
        caplog.records[0].getMessage()
        == 'Update[3]: Change learning rate to 1.00000e-01'
    )
    with pytest.raises(ValueError, match='increasing integer list'):
        lrs.MultiFactorScheduler(step=[3, 2])
    with pytest.raises(AssertionError):
        lrs.MultiFactorScheduler(step=3)


def test_poly_scheduler():
    sched = lrs.PolyScheduler(max_update=10, base_lr=1.0, pwr=2, final_lr=0.1)
    for n in (0, 3, 10):
        assert sched(n) == pytest.approx(0.1 + 0.9 * (1 - n / 10) ** 2)
    assert sched(20) == pytest.approx(0.1)  # keeps the last value
    warm = lrs.PolyScheduler(max_update=10, base_lr=1.0, warmup_steps=2)
    assert warm(1) == pytest.approx(0.5)
    assert warm(6) == pytest.approx((1 - 4 / 8) ** 2)
    with pytest.raises(AssertionError):
        lrs.PolyScheduler(max_update=10.0)


def test_cosine_scheduler():
    sched = lrs.CosineScheduler(max_update=100, base_lr=0.5, final_lr=0.01)
    for n in (0, 25, 50, 100):
        want = 0.01 + 0.49 * (1 + math.cos(math.pi * n / 100)) / 2
        assert sched(n) == pytest.approx(want)
    assert sched(500) == pytest.approx(0.01)
    warm = lrs.CosineScheduler(
        max_update=20, base_lr=1.0, warmup_steps=5, warmup_begin_lr=0.0
    )
    assert warm(0) == 0.0 and warm(4) == pytest.approx(0.8)
    assert warm(5) == pytest.approx(1.0)
    assert warm(20) == pytest.approx(0.0)


def test_base_class_is_abstract():
    with pytest.raises(NotImplementedError):
        lrs.LRScheduler()(1)
