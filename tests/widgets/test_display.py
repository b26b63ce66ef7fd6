"""The shared live-view machinery: modes, throttling, final figure."""

import subprocess
import sys

import pytest

from dlbook.widgets import display
from dlbook.widgets.display import LiveView, StaticFigure, Throttle

PNG_MAGIC = b'\x89PNG\r\n\x1a\n'


class Owner:
    """A minimal owner of a LiveView that counts what was asked of it."""

    def __init__(self):
        self.renders = 0
        self.finals = 0
        self.refreshes = 0
        self.value = None

    def __repr__(self):
        return 'Owner()'

    def _build_header(self, widgets):
        return [widgets.HTML('header')]

    def _refresh_header(self):
        self.refreshes += 1

    def _render(self, final=False):
        self.renders += 1
        self.finals += final
        fig, axes = display.new_figure((2, 1), dpi=50)
        axes[0, 0].plot([0, 1], [0, self.value or 0])
        return StaticFigure.from_figure(fig)

    def _status_line(self):
        return None if self.value is None else f'value {self.value}'

    def _summary_line(self):
        return f'final {self.value}'


def test_import_pulls_in_no_plotting_or_notebook_modules():
    code = (
        'import sys, dlbook.widgets; '
        "print([m for m in ('matplotlib', 'ipywidgets', 'IPython') "
        'if m in sys.modules])'
    )
    out = subprocess.run(
        [sys.executable, '-c', code],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out.strip() == '[]'


def test_throttle_with_fake_clock(clock):
    throttle = Throttle(0.2, clock)
    assert throttle.ready()  # the first call always passes
    assert not throttle.ready()
    clock.advance(0.19)
    assert not throttle.due()
    clock.advance(0.01)
    assert throttle.due()
    assert throttle.ready()
    assert not throttle.ready()


def test_mode_resolution_outside_a_kernel(monkeypatch):
    assert display.resolve_mode() == 'text'  # pytest has no kernel
    assert display.resolve_mode('widget') == 'widget'
    monkeypatch.setenv(display.ENV_VAR, 'off')
    assert display.resolve_mode() == 'off'
    display.set_display_mode('text')  # beats the variable
    assert display.resolve_mode() == 'text'
    assert display.resolve_mode('off') == 'off'  # the argument beats all
    with pytest.raises(ValueError, match='display mode'):
        display.resolve_mode('fancy')


def test_auto_mode_needs_a_kernel_and_ipywidgets(monkeypatch):
    monkeypatch.setattr(display, 'in_kernel', lambda: True)
    assert display.resolve_mode('auto') == 'widget'
    monkeypatch.setattr(display, 'widgets_available', lambda: False)
    assert display.resolve_mode('auto') == 'text'


def test_static_figure_repr_and_png():
    fig, axes = display.new_figure((3.5, 2.5), 1, 2)
    picture = StaticFigure.from_figure(fig)
    assert repr(picture) == '<Figure size 350x250 with 2 Axes>'
    assert picture._repr_png_().startswith(PNG_MAGIC)
    assert (picture.width, picture.height) == (350, 250)


def test_widget_redraws_are_throttled(clock, shown):
    owner = Owner()
    view = LiveView(owner, mode='widget', interval=0.2, clock=clock)
    # 128 updates over two seconds: 5 redraws a second at most, the
    # first one at once.
    for step in range(128):
        owner.value = step
        view.dirty = True
        view.update()
        clock.advance(1 / 64)  # exact in binary
    assert view.redraws == 10
    assert owner.refreshes == 10
    assert len(shown) == 1  # displayed once, then updated
    assert bytes(view.image.value).startswith(PNG_MAGIC)
    assert view.image.layout.display == ''


def test_slow_rendering_spaces_out_figure_redraws(clock, shown):
    owner = Owner()
    render = owner._render

    def slow_render(final=False):
        clock.advance(0.1)  # each render takes 0.1 s
        return render(final)

    owner._render = slow_render
    view = LiveView(
        owner, mode='widget', interval=0.2, clock=clock, figure_share=0.1
    )
    for step in range(200):
        owner.value = step
        view.dirty = True
        view.update()
        clock.advance(0.01)
    # Rendering is held near 10% of the time: one render per ~1 s.
    assert view._figure.interval == pytest.approx(1.0)
    assert view.redraws <= 5


def test_finish_shows_static_figure_and_one_line(clock, shown, capsys):
    owner = Owner()
    view = LiveView(owner, mode='widget', clock=clock)
    owner.value = 1
    view.update()
    owner.value = 2  # not drawn yet: throttled
    view.dirty = True
    view.update()
    view.finish()
    widget_view, picture = shown
    assert repr(widget_view) == 'Owner()'
    bundle = widget_view._repr_mimebundle_()
    assert bundle['text/plain'] == 'Owner()'
    assert 'application/vnd.jupyter.widget-view+json' in bundle
    assert isinstance(picture, StaticFigure)
    assert owner.finals == 1  # the last point is drawn
    assert view.image.layout.display == 'none'
    assert capsys.readouterr().out == 'final 2\n'
    view.finish()  # idempotent
    assert len(shown) == 2


def test_text_mode_prints_throttled_lines(clock, shown, capsys):
    owner = Owner()
    view = LiveView(owner, mode='text', text_interval=2.0, clock=clock)
    view.update()  # no data yet: no line
    for step in range(40):  # 5 seconds
        owner.value = step
        view.update()
        clock.advance(0.125)  # exact in binary
    view.finish()
    lines = capsys.readouterr().out.splitlines()
    assert lines == ['value 0', 'value 16', 'value 32', 'final 39']
    assert shown == []  # no kernel: no figure


def test_text_mode_in_a_kernel_still_leaves_the_figure(
    clock, shown, monkeypatch
):
    monkeypatch.setattr(display, 'in_kernel', lambda: True)
    owner = Owner()
    view = LiveView(owner, mode='text', clock=clock)
    owner.value = 3
    view.update()
    view.finish()
    assert [type(obj) for obj in shown] == [StaticFigure]


def test_off_mode_shows_nothing(clock, shown, capsys):
    owner = Owner()
    view = LiveView(owner, mode='off', clock=clock)
    owner.value = 1
    view.update()
    view.finish()
    assert shown == [] and capsys.readouterr().out == ''
    assert owner.renders == 0


def test_open_views_are_finished_together(clock, shown, capsys):
    owner = Owner()
    view = LiveView(owner, mode='widget', clock=clock)
    owner.value = 5
    view.update()
    assert display._open_views == [view]
    display.finish_open_views()  # what post_run_cell does
    assert display._open_views == []
    assert view.state == 'finished'
    assert capsys.readouterr().out == 'final 5\n'


def test_a_new_text_view_finishes_older_ones(clock, capsys):
    first, second = Owner(), Owner()
    first.value, second.value = 1, 2
    LiveView(first, mode='text', clock=clock).update()
    LiveView(second, mode='text', clock=clock).update()
    assert capsys.readouterr().out.splitlines() == [
        'value 1',
        'final 1',
        'value 2',
    ]
