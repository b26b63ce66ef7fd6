"""Live training widgets and d2l's plotting helpers.

``TrainingMonitor``
    Dashboard for a training loop: progress bars, loss and metric
    curves, throughput, ETA, device and a Stop button. Feed it from a
    hand-written loop, from ``Module.fit`` callbacks, or as a Gluon
    estimator event handler.
``Animator``
    d2l's live line plot (``Animator(...).add(x, y)``), redrawn in place.
``plot``, ``set_figsize``, ``set_axes``, ``use_svg_display``, ``show_images``
    d2l's static plotting helpers (figures stay PNG).
``Timer``, ``Accumulator``
    d2l's small timing and summing helpers.
``set_display_mode``
    Force ``'widget'``, ``'text'`` or ``'off'`` display everywhere
    (or set the environment variable ``DLBOOK_WIDGETS``).

This package imports nothing from the rest of dlbook (it takes plain
Python floats) and does not import matplotlib, IPython or ipywidgets
until they are needed, so ``import dlbook`` stays fast and works in a
bare terminal.
"""

from .animator import Animator
from .display import set_display_mode
from .monitor import TrainingMonitor
from .plotting import plot, set_axes, set_figsize, show_images, use_svg_display
from .stopping import StopTraining
from .timing import Accumulator, Timer

__all__ = [
    'Accumulator',
    'Animator',
    'StopTraining',
    'Timer',
    'TrainingMonitor',
    'plot',
    'set_axes',
    'set_display_mode',
    'set_figsize',
    'show_images',
    'use_svg_display',
]
