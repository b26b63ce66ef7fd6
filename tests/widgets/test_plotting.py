"""d2l's static plotting helpers."""

import matplotlib.pyplot as plt
import numpy as np
import pytest

from dlbook.widgets import (
    plot,
    set_axes,
    set_figsize,
    show_images,
    use_svg_display,
)


class FakeNDArray:
    """Anything with ``asnumpy()``, like dlbook's and MXNet's NDArray."""

    def __init__(self, data):
        self.data = np.asarray(data)
        self.copies = 0

    def asnumpy(self):
        self.copies += 1
        return self.data


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close('all')


def lines_of(ax):
    return [
        (list(line.get_xdata()), list(line.get_ydata()))
        for line in ax.get_lines()
    ]


def test_plot_one_series_against_x():
    x = np.arange(3.0)
    plot(x, x**2, 'x', 'f(x)')
    ax = plt.gca()
    assert lines_of(ax) == [([0, 1, 2], [0, 1, 4])]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ('x', 'f(x)')


def test_plot_several_series_with_legend_and_figsize():
    x = np.arange(3.0)
    plot(x, [x, 2 * x], legend=['a', 'b'], figsize=(5, 3))
    ax = plt.gca()
    assert len(ax.get_lines()) == 2
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ['a', 'b']
    assert tuple(plt.rcParams['figure.figsize']) == (5, 3)


def test_plot_y_only_and_ndarray_like():
    y = FakeNDArray([3.0, 1.0, 2.0])
    plot(y)
    assert lines_of(plt.gca()) == [([0, 1, 2], [3, 1, 2])]
    assert y.copies == 1


def test_plot_on_given_axes_with_scales_and_limits():
    _, ax = plt.subplots()
    x = np.arange(1.0, 4.0)
    plot(x, [x, x**2], xlim=[1, 3], yscale='log', axes=ax)
    assert ax.get_xlim() == (1.0, 3.0)
    assert ax.get_yscale() == 'log'


def test_set_axes_leaves_missing_limits_autoscaled():
    _, ax = plt.subplots()
    set_axes(ax, 'x', 'y', None, None, 'linear', 'linear', [])
    assert ax.get_autoscalex_on() and ax.get_autoscaley_on()


def test_set_figsize():
    set_figsize((2, 1))
    assert tuple(plt.rcParams['figure.figsize']) == (2, 1)
    set_figsize()
    assert tuple(plt.rcParams['figure.figsize']) == (3.5, 2.5)


def test_use_svg_display_is_harmless_outside_a_kernel():
    assert use_svg_display() is None


def test_show_images_from_a_batch_and_from_a_list():
    batch = FakeNDArray(np.random.rand(4, 5, 5))
    axes = show_images(batch, 2, 2, titles=list('abcd'))
    assert axes.shape == (4,)
    assert batch.copies == 1  # one copy for the whole batch
    assert [ax.get_title() for ax in axes] == list('abcd')
    assert not axes[0].get_xaxis().get_visible()
    images = [FakeNDArray(np.random.rand(5, 5, 1)) for _ in range(2)]
    axes = show_images(images, 1, 1, scale=1.0)  # (H, W, 1) is fine
    assert axes.shape == (1,)
    assert axes[0].get_images()[0].get_array().shape == (5, 5)
    assert plt.gcf().get_size_inches().tolist() == [1.0, 1.0]
