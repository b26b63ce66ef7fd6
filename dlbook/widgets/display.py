"""Shared machinery for live views: where they appear and how they redraw.

A *live view* is one place on screen that a training loop updates while it
runs. ``Animator`` and ``TrainingMonitor`` both own one. This module
decides how it looks in the current environment:

``'widget'``
    An IPython kernel with ipywidgets (JupyterLab, classic Notebook,
    VS Code, and also nbclient/nbval). The view is an ipywidgets box (any
    header widgets the owner wants, then an ``ipywidgets.Image``), shown
    **once**. Every redraw assigns new PNG bytes to ``image.value``: a
    widget *trait update* travels as a comm message, not as a cell
    output, so nothing flickers and nbval sees no changing output. When
    training ends the image is hidden, the finished figure is displayed
    once as a static PNG (so GitHub and nbval see a picture, not a dead
    widget) and one summary line is printed.
``'text'``
    No kernel (a terminal or a script), or no ipywidgets. A short status
    line at most every few seconds, and a final summary line. In a kernel
    the finished figure is still displayed at the end.
``'off'``
    Record only; show nothing.

Why not the other ways of animating a plot? ``clear_output`` plus a full
redraw (d2l's ``Animator``, livelossplot) flickers, and strict nbval fails
on it; ``display(fig, display_id=True)`` plus ``handle.update`` and plots
inside an ``ipywidgets.Output`` also fail strict nbval because nbval
ignores ``clear_output`` and update messages. The measurements are in
``reference/jupyter-testing.md``.

Nothing here imports matplotlib, IPython or ipywidgets at import time:
``import dlbook`` must stay light, and a terminal never needs them.
"""

import atexit
import io
import os
import sys
import time

MODES = ('auto', 'widget', 'text', 'off')
MAX_FIGURE_GAP = 2.0  # seconds: redraw the figure at least this often
ENV_VAR = 'DLBOOK_WIDGETS'

_default_mode = None


def set_display_mode(mode='auto'):
    """Choose how every live view created from now on is shown.

    Parameters
    ----------
    mode : {'auto', 'widget', 'text', 'off'}
        ``'auto'`` picks ``'widget'`` inside an IPython kernel that has
        ipywidgets and ``'text'`` everywhere else. The environment
        variable ``DLBOOK_WIDGETS`` sets the same choice without changing
        code (for example ``DLBOOK_WIDGETS=text`` in CI); a mode passed
        to this function wins over it, and a ``mode=`` argument given to a
        single view wins over both.
    """
    global _default_mode
    _check_mode(mode)
    _default_mode = None if mode == 'auto' else mode


def _check_mode(mode):
    if mode not in MODES:
        raise ValueError(f'display mode must be one of {MODES}, got {mode!r}')


def resolve_mode(mode=None):
    """Return ``'widget'``, ``'text'`` or ``'off'`` for a requested mode.

    ``None`` means: the mode from ``set_display_mode``, else from the
    ``DLBOOK_WIDGETS`` environment variable, else ``'auto'``. The
    environment is read here, when a view is created, never at import.
    """
    if mode is None:
        mode = _default_mode or os.environ.get(ENV_VAR, '') or 'auto'
    mode = mode.strip().lower()
    _check_mode(mode)
    if mode == 'auto':
        return 'widget' if in_kernel() and widgets_available() else 'text'
    return mode


def ipython_shell():
    """Return the running IPython shell, or None.

    IPython is only consulted when something already imported it: a
    kernel always has, a plain ``python`` process has not, and importing
    IPython there would only cost time.
    """
    if 'IPython' not in sys.modules:
        return None
    from IPython import get_ipython

    return get_ipython()


def in_kernel():
    """True inside an IPython *kernel*, the process behind a notebook.

    A kernel has a comm channel to its front end (JupyterLab, Notebook,
    VS Code, or nbclient when notebooks are tested), which is what widgets
    need. The terminal ``ipython`` shell has no ``kernel`` attribute.
    """
    shell = ipython_shell()
    return getattr(shell, 'kernel', None) is not None


def widgets_available():
    """True when ipywidgets can be imported."""
    try:
        import ipywidgets  # noqa: F401
    except ImportError:
        return False
    return True


def show(obj):
    """Display ``obj`` in the notebook output (tests replace this)."""
    from IPython.display import display

    display(obj)


class Throttle:
    """Let an action through at most once per ``interval`` seconds.

    Parameters
    ----------
    interval : float
        Minimum number of seconds between two actions.
    clock : callable, optional
        Returns the current time in seconds; ``time.monotonic`` by
        default. Tests inject a fake clock to make timing deterministic.

    Examples
    --------
    >>> throttle = Throttle(0.2)
    >>> if throttle.ready():     # True the first time, then 5 times a
    ...     pass                 # second at most
    """

    def __init__(self, interval, clock=None):
        self.interval = float(interval)
        self.clock = clock if clock is not None else time.monotonic
        self.last = None

    def due(self, now=None):
        """True if the action may run now (does not record it)."""
        if self.last is None:
            return True
        now = self.clock() if now is None else now
        return now - self.last >= self.interval

    def mark(self, now=None):
        """Record that the action ran now."""
        self.last = self.clock() if now is None else now

    def ready(self, now=None):
        """``due`` and, if so, ``mark``: the usual one-call form."""
        now = self.clock() if now is None else now
        if self.due(now):
            self.mark(now)
            return True
        return False


def new_figure(figsize, nrows=1, ncols=1, dpi=100):
    """Create a matplotlib Figure that pyplot does not know about.

    pyplot keeps every figure it creates until ``plt.close`` and, inside
    a notebook, displays it automatically when the cell ends: the
    "picture shown twice" problem. A bare ``Figure`` is just an object
    that we render to PNG ourselves. A fixed ``dpi`` keeps its repr
    (``<Figure size 350x250 with 1 Axes>``) the same on every machine.

    Returns
    -------
    fig : matplotlib.figure.Figure
    axes : 2-D numpy array of Axes, shape ``(nrows, ncols)``
    """
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, dpi=dpi)
    axes = fig.subplots(nrows, ncols, squeeze=False)
    return fig, axes


class StaticFigure:
    """A rendered figure: PNG bytes plus matplotlib's familiar repr.

    Displaying it gives an ``image/png`` output whose ``text/plain``
    part is ``<Figure size WxH with N Axes>``, exactly what
    ``display(fig)`` would give with the inline backend, but it works
    whatever matplotlib backend is active, and it is PNG on purpose:
    nbval never compares PNG data, while matplotlib's SVG changes on
    every run.
    """

    def __init__(self, png, width, height, num_axes):
        self.png = png
        self.width = int(width)
        self.height = int(height)
        self.num_axes = int(num_axes)

    @classmethod
    def from_figure(cls, fig):
        """Render ``fig`` with the Agg rasterizer at the figure's dpi."""
        buf = io.BytesIO()
        # savefig picks the Agg PNG writer whatever the active backend is.
        fig.savefig(buf, format='png', dpi=fig.dpi)
        width, height = fig.bbox.size
        return cls(buf.getvalue(), round(width), round(height), len(fig.axes))

    def _repr_png_(self):
        return self.png

    def __repr__(self):
        return (
            f'<Figure size {self.width}x{self.height} '
            f'with {self.num_axes} Axes>'
        )


class _WidgetView:
    """What gets displayed in widget mode: the box, with a short repr.

    A widget's own ``text/plain`` repr lists its children and values, so
    it changes from run to run; nbval compares it. We keep the widget
    view and replace the text with the owner's short, deterministic repr
    (``TrainingMonitor(epochs=10)``), which is also what a viewer without
    widget support (GitHub) shows.
    """

    def __init__(self, owner, box):
        self.owner = owner
        self.box = box

    def _repr_mimebundle_(self, include=None, exclude=None):
        data = dict(self.box._repr_mimebundle_() or {})
        data['text/plain'] = repr(self.owner)
        return data

    def __repr__(self):
        return repr(self.owner)


class LiveView:
    """One live area on screen, updated in place while a loop runs.

    The owner (an ``Animator`` or a ``TrainingMonitor``) keeps the data;
    the view decides when and how to show it. The owner provides:

    - ``_build_header(widgets)``: ipywidgets to place above the figure
      (``widgets`` is the imported ipywidgets module), maybe none;
    - ``_refresh_header()``: copy current numbers into those widgets;
    - ``_render(final=False)``: a ``StaticFigure`` of the current data,
      or None (``final`` for the picture that stays in the notebook);
    - ``_status_line()``: one line of text for text mode;
    - ``_summary_line()``: the final line, or None;
    - ``__repr__``: the short text shown instead of the widget.

    Parameters
    ----------
    owner : object
        See above.
    mode : {'auto', 'widget', 'text', 'off'}, optional
        See ``set_display_mode``.
    interval : float
        Minimum seconds between two redraws (0.2: at most 5 a second).
    text_interval : float
        Minimum seconds between two status lines in text mode.
    clock : callable, optional
        Current time in seconds; injected by tests.
    figure_share : float
        Rendering a figure costs tens of milliseconds, so the figure is
        redrawn less often than the progress numbers when needed to keep
        its share of the wall time below this fraction.
    """

    def __init__(
        self,
        owner,
        mode=None,
        interval=0.2,
        text_interval=2.0,
        clock=None,
        figure_share=0.1,
    ):
        self.owner = owner
        self.mode = resolve_mode(mode)
        self.clock = clock if clock is not None else time.monotonic
        self.interval = float(interval)
        self.figure_share = float(figure_share)
        self._redraw = Throttle(interval, self.clock)
        self._figure = Throttle(interval, self.clock)
        self._text = Throttle(text_interval, self.clock)
        self.state = 'new'  # 'new' -> 'open' -> 'finished'
        self.dirty = False  # data changed since the last picture
        self.redraws = 0  # pictures pushed to the live image
        self.lines = 0  # lines printed
        self.last_line = None
        self.box = None
        self.image = None
        self._render_cost = None

    # -- life cycle ----------------------------------------------------

    def open(self):
        """Show the view (once); called by the first ``update``."""
        if self.state == 'open':
            return
        if self.mode == 'text':
            # In a script, a new run means earlier ones are over: print
            # their final lines now, in order, rather than at exit.
            for view in list(_open_views):
                if view.mode == 'text':
                    _finish(view)
        self.state = 'open'
        self.dirty = True
        for name in ('_redraw', '_figure', '_text'):
            getattr(self, name).last = None
        if self.mode == 'widget':
            self._open_widget()
        _register(self)

    def _open_widget(self):
        import ipywidgets as widgets

        header = list(self.owner._build_header(widgets))
        # Hidden until the first picture arrives: an Image with no data
        # would show a broken-image icon.
        self.image = widgets.Image(
            format='png', layout=widgets.Layout(display='none')
        )
        self.box = widgets.VBox(header + [self.image])
        show(_WidgetView(self.owner, self.box))

    def update(self, force=False):
        """Redraw if enough time has passed (or if ``force``).

        Call this after every change of the data; it returns at once
        when a redraw is not due, so calling it once per batch is cheap.
        """
        if self.state != 'open':
            self.open()
        now = self.clock()
        if self.mode == 'widget':
            if self._redraw.ready(now) or force:
                self._redraw.mark(now)
                self.owner._refresh_header()
                if self.dirty and (force or self._figure.due(now)):
                    self._push_picture(now)
        elif self.mode == 'text':
            if self._text.due(now) or force:
                line = self.owner._status_line()
                if line:  # nothing to say before the first data
                    self._text.mark(now)
                    self._print(line)

    def _print(self, line):
        print(line, flush=True)  # flush: nbval compares whole streams
        self.lines += 1
        self.last_line = line

    def due(self):
        """True if ``update()`` would redraw something now.

        Callers whose data is expensive to read (a metric that would
        copy from the device) check this first and read only when due.
        """
        if self.state != 'open':
            return True
        if self.mode == 'widget':
            return self._redraw.due()
        if self.mode == 'text':
            return self._text.due()
        return False

    def _push_picture(self, now):
        picture = self.owner._render()
        self._figure.mark(now)
        if picture is None:
            return
        # Keep plotting to about `figure_share` of the wall time. The
        # first render also pays one-time costs (fonts, layout), so judge
        # by the cheaper of the last two, and redraw every few seconds
        # at least.
        cost = self.clock() - now
        if self._render_cost is not None:
            cost = min(cost, self._render_cost)
        self._render_cost = cost
        self._figure.interval = min(
            max(self.interval, cost / self.figure_share), MAX_FIGURE_GAP
        )
        self.dirty = False
        self.redraws += 1
        self.image.value = picture.png
        self.image.width = str(picture.width)
        self.image.layout.display = ''

    def finish(self):
        """Final state: static figure and summary line. Idempotent."""
        if self.state != 'open':
            return
        self.state = 'finished'
        _unregister(self)
        if self.mode == 'off':
            return
        if self.mode == 'widget':
            self.owner._refresh_header()
            if self.image is not None:
                self.image.layout.display = 'none'
        picture = None
        if self.mode == 'widget' or in_kernel():
            picture = self.owner._render(final=True)
        if picture is not None:
            show(picture)
        line = self.owner._summary_line()
        if line and line != self.last_line:
            self._print(line)


# -- views still open when a cell (or the program) ends -----------------
#
# d2l-style code never says "training is over": an Animator is created
# inside train_ch3 and simply stops receiving points. To still draw the
# last point and leave a static figure, open views are finished when the
# notebook cell ends (IPython's post_run_cell event) or, in a script, when
# the interpreter exits. The list holds strong references on purpose: an
# Animator that was local to a training function is gone by then
# otherwise, together with its final figure.

_open_views = []
_hooked_shells = []
_atexit_registered = False


def finish_open_views(*_):
    """Finish every live view that is still open."""
    while _open_views:
        _finish(_open_views[0])


def _finish(view):
    # Through the owner, which may have more to close than its view (a
    # TrainingMonitor also gives back the interrupt handler).
    try:
        getattr(view.owner, 'finish', view.finish)()
    finally:
        _unregister(view)  # even if finish() failed half-way


def _register(view):
    global _atexit_registered
    if view not in _open_views:
        _open_views.append(view)
    shell = ipython_shell()
    if shell is not None and not any(s is shell for s in _hooked_shells):
        shell.events.register('post_run_cell', finish_open_views)
        _hooked_shells.append(shell)
    if not _atexit_registered:
        atexit.register(finish_open_views)
        _atexit_registered = True


def _unregister(view):
    if view in _open_views:
        _open_views.remove(view)
