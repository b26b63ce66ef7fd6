"""d2l's static plotting helpers: ``plot``, ``set_figsize``, ``show_images``.

Same names and arguments as d2l (d2l-ai/d2l-en, ``d2l/mxnet.py``), with
two differences: figures stay PNG (see ``use_svg_display``), and arrays
may be NumPy arrays or anything with ``.asnumpy()`` (dlbook's and
MXNet's NDArrays), converted once per call.

These draw with pyplot, so in a notebook the inline backend shows the
figure when the cell ends, exactly as in d2l. For a plot that updates
while a loop runs, use ``Animator``.
"""

from .display import in_kernel

DEFAULT_FMTS = ('-', 'm--', 'g-.', 'r:')


def _pyplot():
    # Imported on first use: `import dlbook` must not load matplotlib.
    import matplotlib.pyplot as plt

    return plt


def _to_host(x):
    """NumPy data for an NDArray (one copy), anything else unchanged."""
    if hasattr(x, 'asnumpy'):
        return x.asnumpy()
    return x


def use_svg_display():
    """Keep notebook figures as PNG, although d2l's name says SVG.

    d2l switches the inline backend to SVG for crisp figures. We keep
    PNG on purpose: nbval compares SVG outputs, and matplotlib's SVG
    differs on every run (dates and random ids), so strict notebook
    tests would fail; PNG outputs are never compared. The function is
    kept so d2l code runs unchanged. It uses
    ``matplotlib_inline.backend_inline.set_matplotlib_formats``, since
    ``IPython.display.set_matplotlib_formats`` is deprecated.
    """
    if not in_kernel():
        return
    try:
        from matplotlib_inline.backend_inline import set_matplotlib_formats
    except ImportError:
        return
    set_matplotlib_formats('png')


def set_figsize(figsize=(3.5, 2.5)):
    """Set the size of figures made from now on, in inches."""
    use_svg_display()
    _pyplot().rcParams['figure.figsize'] = figsize


def set_axes(axes, xlabel, ylabel, xlim, ylim, xscale, yscale, legend):
    """Set labels, limits, scales and legend of a matplotlib Axes.

    A limit of None leaves that axis autoscaled. (d2l calls
    ``set_xlim(None)``, which switches autoscaling off; harmless when the
    axes are cleared and redrawn for every point, wrong for an Animator
    that only updates its lines.)
    """
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    axes.set_xscale(xscale)
    axes.set_yscale(yscale)
    if xlim is not None:
        axes.set_xlim(xlim)
    if ylim is not None:
        axes.set_ylim(ylim)
    if legend:
        axes.legend(legend)
    axes.grid()


def _has_one_axis(X):
    """True for one series (a 1-D array or a flat list of numbers)."""
    if hasattr(X, 'ndim'):
        return X.ndim == 1
    return (
        isinstance(X, (list, tuple))
        and len(X) > 0
        and not hasattr(X[0], '__len__')
    )


def plot(
    X,
    Y=None,
    xlabel=None,
    ylabel=None,
    legend=None,
    xlim=None,
    ylim=None,
    xscale='linear',
    yscale='linear',
    fmts=DEFAULT_FMTS,
    figsize=(3.5, 2.5),
    axes=None,
):
    """Plot one or several data series, as d2l's ``plot``.

    Parameters
    ----------
    X : array or list of arrays
        x values; or, when ``Y`` is None, the y values (plotted against
        their index).
    Y : array or list of arrays, optional
        y values, one array per series. A single ``X`` is shared by all.
    xlabel, ylabel : str, optional
    legend : list of str, optional
        One name per series.
    xlim, ylim : pair of float, optional
    xscale, yscale : {'linear', 'log', ...}
    fmts : sequence of str
        matplotlib format strings, one per series.
    figsize : pair of float
        Figure size in inches.
    axes : matplotlib Axes, optional
        Where to draw; the current Axes by default.

    Examples
    --------
    >>> x = np.arange(0, 3, 0.1)
    >>> plot(x, [x ** 2, 2 * x - 1], 'x', 'f(x)', legend=['f(x)', 'tangent'])
    """
    if legend is None:
        legend = []
    X = _to_host(X)
    Y = _to_host(Y)
    if _has_one_axis(X):
        X = [X]
    if Y is None:
        X, Y = [[]] * len(X), X
    elif _has_one_axis(Y):
        Y = [Y]
    X, Y = list(X), list(Y)
    if len(X) != len(Y):
        X = X * len(Y)
    set_figsize(figsize)
    if axes is None:
        axes = _pyplot().gca()
    axes.cla()
    for x, y, fmt in zip(X, Y, fmts):
        x, y = _to_host(x), _to_host(y)
        if len(x):
            axes.plot(x, y, fmt)
        else:
            axes.plot(y, fmt)
    set_axes(axes, xlabel, ylabel, xlim, ylim, xscale, yscale, legend)


def show_images(imgs, num_rows, num_cols, titles=None, scale=1.5):
    """Show images in a grid, as d2l's ``show_images``.

    Parameters
    ----------
    imgs : sequence of images, or one array of images
        Each image is ``(H, W)`` or ``(H, W, C)``, as NumPy data or an
        object with ``.asnumpy()``. A whole batch is copied to the host
        once, not image by image.
    num_rows, num_cols : int
        Grid size.
    titles : list of str, optional
        One title per image.
    scale : float
        Size of one image, in inches.

    Returns
    -------
    numpy array of matplotlib Axes
        Flattened, one per grid cell (end a notebook line with ``;`` to
        keep its repr out of the output).
    """
    imgs = _to_host(imgs)
    figsize = (num_cols * scale, num_rows * scale)
    _, axes = _pyplot().subplots(
        num_rows, num_cols, figsize=figsize, squeeze=False
    )
    axes = axes.flatten()
    for i, (ax, img) in enumerate(zip(axes, imgs)):
        img = _to_host(img)
        if getattr(img, 'ndim', 0) == 3 and img.shape[-1] == 1:
            img = img[..., 0]  # (H, W, 1): imshow wants (H, W)
        ax.imshow(img)
        ax.axes.get_xaxis().set_visible(False)
        ax.axes.get_yaxis().set_visible(False)
        if titles:
            ax.set_title(titles[i])
    return axes
