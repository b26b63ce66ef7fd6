"""The training-curve figure of ``TrainingMonitor``: one panel per metric.

Each panel holds one metric (``loss``, ``acc``, ...) with a line per data
split: training as a solid line sampled during the epoch, validation and
test as dashed lines with a marker per epoch. The x axis counts epochs,
so a point taken half-way through the third epoch sits at x = 2.5, as in
d2l's ``train_ch6``.
"""
from .display import StaticFigure, new_figure
from .history import SPLITS, split_name

PANEL_SIZE = (3.5, 2.5)
MAX_COLUMNS = 3
MAX_POINTS = 1000           # per line; denser data is thinned for drawing

STYLES = {
    'train': dict(color='C0', linestyle='-'),
    'val': dict(color='C1', linestyle='--', marker='o', markersize=3),
    'test': dict(color='C2', linestyle='-.', marker='s', markersize=3),
}


def point_x(epoch, batches, progress):
    """x coordinate, in epochs, of a point taken after ``batches``."""
    if batches is None:
        return epoch + 1.0
    per_epoch = progress.batches_per_epoch(epoch)
    if not per_epoch or batches > per_epoch:
        per_epoch = batches
    return epoch + batches / per_epoch


def thin(xs, ys, limit=MAX_POINTS):
    """Keep at most ``limit`` evenly spaced points, always the last one."""
    if len(xs) <= limit:
        return xs, ys
    step = len(xs) / (limit - 1)
    keep = sorted({int(i * step) for i in range(limit - 1)}
                  | {len(xs) - 1})
    return [xs[i] for i in keep], [ys[i] for i in keep]


class CurveFigure:
    """Draws a ``MetricHistory`` into a figure and renders it to PNG.

    The figure, its panels and one line per metric are created once and
    then only get new data (``set_data``): clearing the axes and plotting
    again, as d2l does, rebuilds every tick and label and costs several
    times more. The figure is rebuilt only when a new metric adds a
    panel.
    """

    def __init__(self, dpi=100):
        self.dpi = dpi
        self.fig = None
        self._bases = None
        self._axes = {}        # base name -> Axes
        self._lines = {}       # metric name -> Line2D

    def _layout(self, bases):
        if bases == self._bases:
            return
        ncols = min(len(bases), MAX_COLUMNS)
        nrows = -(-len(bases) // ncols)
        figsize = (PANEL_SIZE[0] * ncols, PANEL_SIZE[1] * nrows)
        self.fig, grid = new_figure(figsize, nrows, ncols, dpi=self.dpi)
        axes = list(grid.ravel())
        for ax in axes[len(bases):]:
            ax.set_visible(False)
        self._axes = dict(zip(bases, axes))
        for base, ax in self._axes.items():
            ax.set_title(base, fontsize=10)
            ax.set_xlabel('epoch')
            ax.grid(True, alpha=0.3)
        self._lines = {}
        self._bases = list(bases)

    def render(self, history, progress, final=False):
        """Return a ``StaticFigure`` of the curves, or None without data.

        ``final`` also re-fits the layout to the final tick labels.
        """
        bases = history.panels()
        if not bases:
            return None
        self._layout(bases)
        new_lines = set()
        for name in history.names:
            split, base = split_name(name)
            line = self._lines.get(name)
            if line is None:
                ax = self._axes[base]
                line, = ax.plot([], [], label=name, **STYLES[split])
                self._lines[name] = line
                new_lines.add(ax)
            points = history.points[name]
            xs = [point_x(e, b, progress) for e, b, _ in points]
            ys = [v for _, _, v in points]
            line.set_data(*thin(xs, ys))
        for ax in new_lines:
            # Legend entries in split order: train, val, test.
            handles = sorted(
                ax.get_lines(),
                key=lambda ln: SPLITS.index(split_name(ln.get_label())[0]))
            ax.legend(handles=handles, fontsize=8)
        for ax in self._axes.values():
            ax.relim()
            ax.autoscale_view()
            if progress.num_epochs:
                ax.set_xlim(0, progress.num_epochs)
        if new_lines or final:
            self.fig.tight_layout()
        return StaticFigure.from_figure(self.fig)
