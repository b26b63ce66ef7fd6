"""The training-curve figure of ``TrainingMonitor``: one panel per metric.

Each panel holds one metric (``loss``, ``acc``, ...) with a line per data
split: training as a solid line sampled during the epoch, validation and
test as dashed lines with a marker per epoch. The x axis counts epochs,
so a point taken half-way through the third epoch sits at x = 2.5, as in
d2l's ``train_ch6``. Norms per layer, when logged, get one more panel: a
heat strip with a row per layer.
"""

from .display import StaticFigure, new_figure
from .history import SPLITS, split_name

PANEL_SIZE = (3.5, 2.5)
MAX_COLUMNS = 3
MAX_POINTS = 1000  # per line; denser data is thinned for drawing
NORM_PANEL = 'norm per layer'

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
    keep = sorted({int(i * step) for i in range(limit - 1)} | {len(xs) - 1})
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
        self._axes = {}  # base name -> Axes
        self._lines = {}  # metric name -> Line2D
        self._strip = None  # the heat strip's AxesImage

    def _layout(self, bases):
        if bases == self._bases:
            return
        ncols = min(len(bases), MAX_COLUMNS)
        nrows = -(-len(bases) // ncols)
        figsize = (PANEL_SIZE[0] * ncols, PANEL_SIZE[1] * nrows)
        self.fig, grid = new_figure(figsize, nrows, ncols, dpi=self.dpi)
        axes = list(grid.ravel())
        for ax in axes[len(bases) :]:
            ax.set_visible(False)
        self._axes = dict(zip(bases, axes))
        for base, ax in self._axes.items():
            ax.set_title(base, fontsize=10)
            ax.set_xlabel('epoch')
            if base != NORM_PANEL:
                ax.grid(True, alpha=0.3)
        self._lines = {}
        self._strip = None
        self._bases = list(bases)

    def _draw_norms(self, history, progress):
        """The heat strip: one row per layer, one column per sample.

        Colours are log10 of the norm, so layers whose norms differ by
        orders of magnitude (vanishing gradients) stay comparable.
        Returns True when the strip was created by this call.
        """
        import numpy as np

        ax = self._axes[NORM_PANEL]
        names = history.norm_names
        samples = history.norm_points
        _, samples = thin(list(range(len(samples))), samples)
        values = np.full((len(names), len(samples)), np.nan)
        for j, (_, _, norms) in enumerate(samples):
            for i, name in enumerate(names):
                norm = norms.get(name)
                if norm is not None and norm > 0:
                    values[i, j] = np.log10(norm)
        xs = [point_x(e, b, progress) for e, b, _ in samples]
        # Samples are usually evenly spaced: one column each.
        half = (xs[-1] - xs[0]) / (2 * (len(xs) - 1)) if len(xs) > 1 else 0.5
        extent = (xs[0] - half, xs[-1] + half, len(names) - 0.5, -0.5)
        created = self._strip is None
        if created:
            self._strip = ax.imshow(
                values,
                aspect='auto',
                extent=extent,
                interpolation='nearest',
                cmap='viridis',
            )
            self.fig.colorbar(self._strip, ax=ax, label='log10 norm')
        else:
            self._strip.set_data(values)
            self._strip.set_extent(extent)
        finite = values[np.isfinite(values)]
        if finite.size:
            low, high = float(finite.min()), float(finite.max())
            self._strip.set_clim(low, high if high > low else low + 1.0)
        ax.set_yticks(range(len(names)), names, fontsize=7)
        ax.set_ylim(len(names) - 0.5, -0.5)
        return created

    def render(self, history, progress, final=False):
        """Return a ``StaticFigure`` of the curves, or None without data.

        ``final`` also re-fits the layout to the final tick labels.
        """
        bases = history.panels()
        if history.norm_points:
            bases.append(NORM_PANEL)
        if not bases:
            return None
        self._layout(bases)
        new_strip = False
        if history.norm_points:
            new_strip = self._draw_norms(history, progress)
        new_lines = set()
        for name in history.names:
            split, base = split_name(name)
            line = self._lines.get(name)
            if line is None:
                ax = self._axes[base]
                (line,) = ax.plot([], [], label=name, **STYLES[split])
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
                key=lambda ln: SPLITS.index(split_name(ln.get_label())[0]),
            )
            ax.legend(handles=handles, fontsize=8)
        for base, ax in self._axes.items():
            if base != NORM_PANEL:
                ax.relim()
                ax.autoscale_view()
            if progress.num_epochs:
                ax.set_xlim(0, progress.num_epochs)
        if new_lines or new_strip or final:
            self.fig.tight_layout()
        return StaticFigure.from_figure(self.fig)
