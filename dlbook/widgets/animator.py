"""``Animator``: d2l's live line plot, redrawn in place.

d2l's ``Animator`` calls ``display(fig)`` and ``clear_output(wait=True)``
for every point: the output flickers (worst in VS Code), every point
costs a full redraw, and strict nbval fails because it ignores
``clear_output``. This one has the same constructor and ``add(x, y)``
but draws through a ``LiveView`` (``display.py``): one widget updated in
place, at most 5 redraws a second, the last point always drawn, a
static PNG of the final figure left in the notebook, and throttled text
lines where there is no notebook.

The end of training is the end of the notebook cell (or of the script),
or ``finish()``, or leaving a ``with Animator(...) as animator:`` block.
"""

from .display import LiveView, StaticFigure, new_figure
from .history import to_float
from .plotting import DEFAULT_FMTS, set_axes


def _is_sequence(value):
    """True for lists, tuples and 1-D arrays; False for numbers."""
    if isinstance(value, (list, tuple)):
        return True
    try:
        len(value)
    except TypeError:  # no len(): a number or a 0-d array
        return False
    return True


def _format_x(x):
    x = float(x)
    return f'{int(x)}' if x.is_integer() else f'{x:.2f}'


class Animator:
    """Plot data points as they arrive, d2l-style.

    Parameters
    ----------
    xlabel, ylabel : str, optional
    legend : list of str, optional
        One name per series, in the order of ``add``'s y values.
    xlim, ylim : pair of float, optional
    xscale, yscale : {'linear', 'log', ...}
    fmts : sequence of str
        matplotlib format strings, one per series.
    nrows, ncols : int
        Subplot grid (data is drawn in the first subplot, as in d2l).
    figsize : pair of float
        Figure size in inches.
    mode : {'auto', 'widget', 'text', 'off'}, optional
        How to display; see ``set_display_mode``. Keyword only, like the
        remaining parameters, which d2l does not have.
    interval : float
        Minimum seconds between two redraws.
    text_interval : float
        Minimum seconds between two text lines in text mode.
    clock : callable, optional
        Current time in seconds; tests inject a fake clock.
    dpi : int
        Figure resolution.

    Examples
    --------
    >>> animator = Animator(xlabel='epoch', xlim=[1, num_epochs],
    ...                     legend=['train loss', 'train acc', 'test acc'])
    >>> for epoch in range(num_epochs):
    ...     train_loss, train_acc = train_epoch(net, train_iter)
    ...     animator.add(epoch + 1, (train_loss, train_acc, test_acc))

    Pass Python floats: the values are stored as floats, and converting
    an array here would wait for the device at every point.
    """

    def __init__(
        self,
        xlabel=None,
        ylabel=None,
        legend=None,
        xlim=None,
        ylim=None,
        xscale='linear',
        yscale='linear',
        fmts=DEFAULT_FMTS,
        nrows=1,
        ncols=1,
        figsize=(3.5, 2.5),
        *,
        mode=None,
        interval=0.2,
        text_interval=2.0,
        clock=None,
        dpi=100,
    ):
        if legend is None:
            legend = []
        self.xlabel, self.ylabel, self.legend = xlabel, ylabel, legend
        self.xlim, self.ylim = xlim, ylim
        self.xscale, self.yscale = xscale, yscale
        self.fig, grid = new_figure(figsize, nrows, ncols, dpi=dpi)
        # The same shapes as d2l's plt.subplots: a list for one subplot,
        # a 1-D array for one row or column, else 2-D.
        if nrows * ncols == 1:
            self.axes = [grid[0, 0]]
        elif nrows == 1 or ncols == 1:
            self.axes = grid.ravel()
        else:
            self.axes = grid
        self._main_axes = grid[0, 0]
        self.X, self.Y, self.fmts = None, None, fmts
        self._lines = []
        self.view = LiveView(
            self,
            mode=mode,
            interval=interval,
            text_interval=text_interval,
            clock=clock,
        )

    def __repr__(self):
        args = []
        if self.xlabel is not None:
            args.append(f'xlabel={self.xlabel!r}')
        if self.ylabel is not None:
            args.append(f'ylabel={self.ylabel!r}')
        if self.legend:
            args.append(f'legend={list(self.legend)!r}')
        return f'Animator({", ".join(args)})'

    def config_axes(self):
        """Apply labels, limits, scales and legend (d2l's name)."""
        set_axes(
            self._main_axes,
            self.xlabel,
            self.ylabel,
            self.xlim,
            self.ylim,
            self.xscale,
            self.yscale,
            self.legend,
        )

    def add(self, x, y):
        """Add one point to each series.

        Parameters
        ----------
        x : float or list of float
            One x for all series, or one per series.
        y : float or list of float
            One value per series; None leaves that series out this time
            (d2l's ``train_ch6`` adds the test accuracy once per epoch).
        """
        y = list(y) if _is_sequence(y) else [y]
        n = len(y)
        x = list(x) if _is_sequence(x) else [x] * n
        if not self.X:
            self.X = [[] for _ in range(n)]
        if not self.Y:
            self.Y = [[] for _ in range(n)]
        while len(self.X) < n:  # more series than the first time
            self.X.append([])
            self.Y.append([])
        for i, (a, b) in enumerate(zip(x, y)):
            if a is not None and b is not None:
                self.X[i].append(to_float(a))
                self.Y[i].append(to_float(b))
        self.view.dirty = True
        self.view.update()

    def finish(self):
        """Show the final figure and the last values now."""
        self.view.finish()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        self.finish()
        return False

    # -- what the view shows -------------------------------------------

    def _names(self):
        count = len(self.Y or [])
        names = list(self.legend)[:count]
        return names + [f'y{i}' for i in range(len(names), count)]

    def _last_values_line(self):
        if not self.Y or not any(self.Y):
            return None
        last_x = max((xs[-1] for xs in self.X if xs), default=None)
        values = ', '.join(
            f'{name} {ys[-1]:.3f}'
            for name, ys in zip(self._names(), self.Y)
            if ys
        )
        return f'{self.xlabel or "x"} {_format_x(last_x)}: {values}'

    def _status_line(self):
        return self._last_values_line()

    def _summary_line(self):
        return self._last_values_line()

    def _build_header(self, widgets):
        return []

    def _refresh_header(self):
        pass

    def _render(self, final=False):
        if not self.X:
            return None
        ax = self._main_axes
        added = False
        while len(self._lines) < len(self.X):
            # Cycle the formats so that no series is silently left out.
            fmt = self.fmts[len(self._lines) % len(self.fmts)]
            self._lines.append(ax.plot([], [], fmt)[0])
            added = True
        # Only new data for existing lines: d2l clears the axes and
        # plots everything again for every point, which costs far more.
        for line, x, y in zip(self._lines, self.X, self.Y):
            line.set_data(x, y)
        ax.relim()
        ax.autoscale_view()
        if added:
            self.config_axes()
        if added or final:
            self.fig.tight_layout()
        return StaticFigure.from_figure(self.fig)
