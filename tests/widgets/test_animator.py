"""d2l-compatible Animator on the live-view machinery."""

import numpy as np
import pytest

from dlbook.widgets import Animator
from dlbook.widgets.display import StaticFigure

LEGEND = ['train loss', 'train acc', 'test acc']


def test_repr_is_short_and_deterministic():
    assert repr(Animator(mode='off')) == 'Animator()'
    assert repr(Animator(xlabel='epoch', legend=LEGEND, mode='off')) == (
        "Animator(xlabel='epoch', "
        "legend=['train loss', 'train acc', 'test acc'])"
    )


def test_add_follows_d2l():
    animator = Animator(legend=LEGEND, mode='off')
    animator.add(0.5, (1.0, 0.4, None))  # test acc only once per epoch
    animator.add(1, (0.8, 0.6, 0.55))
    animator.add([2, 2, 2], [0.6, 0.7, 0.65])
    assert animator.X == [[0.5, 1.0, 2.0], [0.5, 1.0, 2.0], [1.0, 2.0]]
    assert animator.Y == [[1.0, 0.8, 0.6], [0.4, 0.6, 0.7], [0.55, 0.65]]
    single = Animator(mode='off')
    single.add(1, 3)  # scalar y: one series
    single.add(np.float32(2), np.array(4.0))
    assert single.X == [[1.0, 2.0]] and single.Y == [[3.0, 4.0]]
    assert all(type(v) is float for v in single.Y[0])


def test_axes_have_d2l_shapes():
    assert len(Animator(mode='off').axes) == 1
    assert Animator(ncols=2, mode='off').axes.shape == (2,)
    assert Animator(nrows=2, ncols=2, mode='off').axes.shape == (2, 2)


def test_rendering_keeps_limits_and_legend():
    animator = Animator(
        xlabel='epoch', xlim=[1, 10], legend=LEGEND, mode='off'
    )
    for epoch in range(1, 4):
        animator.add(epoch, (1.0 / epoch, 0.5 + epoch / 10, 0.6))
    picture = animator._render(final=True)
    assert isinstance(picture, StaticFigure)
    assert repr(picture) == '<Figure size 350x250 with 1 Axes>'
    ax = animator.axes[0]
    assert ax.get_xlim() == (1.0, 10.0)
    low, high = ax.get_ylim()  # autoscaled to the data
    assert low <= 1 / 3 and high >= 1.0
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == LEGEND
    assert ax.get_xlabel() == 'epoch'
    animator.add(4, (5.0, 0.9, 0.7))  # y range grows with data
    animator._render()
    assert ax.get_ylim()[1] >= 5.0


def test_widget_mode_throttles_and_leaves_final_figure(clock, shown, capsys):
    animator = Animator(
        xlabel='epoch', legend=LEGEND, mode='widget', clock=clock
    )
    for step in range(1, 33):
        animator.add(step / 8, (1.0 / step, 0.5, None))
        clock.advance(1 / 32)  # 32 points in one second
    assert animator.view.redraws == 5  # at most 5 a second
    animator.finish()
    widget_view, picture = shown
    assert widget_view._repr_mimebundle_()['text/plain'] == repr(animator)
    assert repr(picture) == '<Figure size 350x250 with 1 Axes>'
    assert animator.view.image.layout.display == 'none'
    assert capsys.readouterr().out == (
        'epoch 4: train loss 0.031, train acc 0.500\n'
    )


def test_adding_after_finish_opens_a_new_view(clock, shown):
    animator = Animator(mode='widget', clock=clock)
    animator.add(1, 1.0)
    animator.finish()
    animator.add(2, 2.0)  # e.g. the next notebook cell
    assert animator.view.state == 'open'
    assert len(shown) == 3  # widget, figure, new widget


def test_text_mode(clock, capsys):
    with Animator(
        xlabel='epoch', legend=LEGEND, mode='text', clock=clock
    ) as animator:
        for epoch in range(1, 11):
            animator.add(epoch, (1.0 / epoch, 0.5, 0.6))
            clock.advance(0.5)
    assert capsys.readouterr().out.splitlines() == [
        'epoch 1: train loss 1.000, train acc 0.500, test acc 0.600',
        'epoch 5: train loss 0.200, train acc 0.500, test acc 0.600',
        'epoch 9: train loss 0.111, train acc 0.500, test acc 0.600',
        'epoch 10: train loss 0.100, train acc 0.500, test acc 0.600',
    ]


def test_unnamed_series_and_fractional_x(clock, capsys):
    animator = Animator(mode='text', clock=clock)
    animator.add(1.5, [1, 2])
    animator.finish()
    assert capsys.readouterr().out == 'x 1.50: y0 1.000, y1 2.000\n'


@pytest.mark.parametrize('fmts', [('-',), ('-', 'm--', 'g-.', 'r:')])
def test_more_series_than_formats_are_all_drawn(fmts):
    animator = Animator(fmts=fmts, mode='off')
    animator.add(1, [1, 2, 3, 4, 5])
    animator._render()
    assert len(animator.axes[0].get_lines()) == 5
