"""Pictures and tables of networks: ``mx.viz``.

``plot_network(symbol, shape=...)``
    MXNet 1.x's graph drawing: one filled box per operator, one oval per
    input, edges labelled with the tensor shape that flows along them.
    Returns a ``graphviz.Digraph``; a Jupyter cell shows it as SVG.
``print_summary(symbol, shape=...)``
    MXNet 1.x's text table: each layer's output shape and parameter count.
``plot_tape(y)``
    (dlbook) the autograd tape recorded for ``y``: which operators ran,
    on which arrays, and the gradient each variable received.

The first two also take a Gluon block instead of a symbol (a dlbook
extension): ``plot_network(net, shape=(1, 1, 28, 28))`` traces it by
calling ``net(mx.sym.var('data'))``, as the book's hybridization chapter
explains.

Two programs are involved in a drawing: the Python package ``graphviz``
builds the DOT text (``dot.source``) and is imported only when a function
here is called, so ``import dlbook`` stays light; the ``dot`` program
turns that text into SVG when the notebook displays it.  Without ``dot``
the graph still builds, and displaying it shows how to install ``dot``
next to the DOT source instead of a traceback.

The package has one module per job: ``_dot`` (the graphviz package and
the Digraph returned), ``_graph`` (a Symbol, or a Gluon block traced into
one, and the shapes that flow through it), ``network`` (plot_network),
``summary`` (print_summary) and ``tape`` (plot_tape).
"""

from .network import PALETTE, WEIGHT_SUFFIXES, plot_network
from .summary import print_summary
from .tape import plot_tape

__all__ = ['plot_network', 'print_summary', 'plot_tape']
