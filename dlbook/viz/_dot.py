"""The ``graphviz`` package, imported lazily, and the Digraph that
``mx.viz`` functions return.

``import dlbook`` must not import graphviz: it is imported the first time
a drawing is asked for.  The returned graph is a ``graphviz.Digraph``
subclass with a short repr and a display that works without ``dot``.
"""

import re

INSTALL_DOT_HINT = (
    'Install the `dot` program (Debian/Ubuntu: `apt-get install '
    'graphviz`; conda: `conda install graphviz`) to draw this graph.'
)


def _import_graphviz():
    """The ``graphviz`` package, imported only when a drawing is asked
    for (``import dlbook`` must not pull it in)."""
    try:
        import graphviz
    except ImportError as err:
        raise ImportError(
            'Draw network requires graphviz library: install the Python '
            'package with `pip install graphviz` (and, to render the '
            'pictures, the `dot` program: `apt-get install graphviz` or '
            '`conda install graphviz`)'
        ) from err
    return graphviz


_DIGRAPH_CLASS = None

# A DOT identifier: a quoted string or a bare word (``fc1``, ``"a b"``).
_DOT_ID = r'(?:"(?:[^"\\]|\\.)*"|[^\s"\[\]=;{}]+)'
_EDGE_LINE = re.compile(rf'\t{_DOT_ID}(?::\S+)? -[->] ')
_NODE_LINE = re.compile(rf'\t({_DOT_ID})(?: \[.*)?\s*$', re.S)


def _count_nodes_and_edges(body):
    """Count the node and edge statements in a graph's DOT body."""
    nodes = edges = 0
    for line in body:
        if _EDGE_LINE.match(line):
            edges += 1
            continue
        match = _NODE_LINE.match(line)
        if match and match.group(1) not in ('graph', 'node', 'edge'):
            nodes += 1
    return nodes, edges


def _missing_dot_bundle(source):
    """What a notebook shows when ``dot`` is missing: the install hint
    and the DOT source, as text and as Markdown."""
    plain = f'{INSTALL_DOT_HINT}\nDOT source:\n{source}'
    markdown = (
        f'**graphviz: the `dot` program was not found.** '
        f'{INSTALL_DOT_HINT}\n\nDOT source:\n\n```dot\n'
        f'{source}```\n'
    )
    return {'text/plain': plain, 'text/markdown': markdown}


def _digraph_class():
    """``graphviz.Digraph`` with a notebook-friendly display.

    Built on first use because graphviz is imported lazily.  It differs
    from its parent in two ways only:

    * its ``repr`` is short and has no memory address, so notebook checks
      (nbval) that compare text outputs see the same text every run;
    * displaying it without the ``dot`` program shows the install hint and
      the DOT source instead of raising ``ExecutableNotFound``;
    * displaying it does not print ``dot``'s warnings.  MXNet's fixed box
      size (1.3 x 0.8 inches) is slightly too small for labels such as
      ``FullyConnected\n256``, and ``dot`` says so for every such node on
      stderr; the picture is the same as MXNet's, so the notebook is
      spared that noise.  ``dot.pipe()`` and ``dot.render()`` still warn.
    """
    global _DIGRAPH_CLASS
    if _DIGRAPH_CLASS is not None:
        return _DIGRAPH_CLASS
    graphviz = _import_graphviz()

    class Digraph(graphviz.Digraph):
        """A ``graphviz.Digraph`` that displays even without ``dot``.

        ``dot.source`` is the DOT text; ``dot.render(...)`` and
        ``dot.pipe(...)`` need the ``dot`` program, as in graphviz.
        """

        def __repr__(self):
            nodes, edges = _count_nodes_and_edges(self.body)
            return (
                f'<Digraph {self.name!r} with {nodes} nodes and {edges} edges>'
            )

        def _repr_image_svg_xml(self):
            return self.pipe(format='svg', encoding='utf-8', quiet=True)

        def _repr_image_png(self):
            return self.pipe(format='png', quiet=True)

        def _repr_image_jpeg(self):
            return self.pipe(format='jpeg', quiet=True)

        def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
            try:
                return super()._repr_mimebundle_(
                    include=include, exclude=exclude, **kwargs
                )
            except graphviz.ExecutableNotFound:
                return _missing_dot_bundle(self.source)

    Digraph.__module__ = __name__
    _DIGRAPH_CLASS = Digraph
    return Digraph


def new_digraph(**kwargs):
    """A fresh, empty :func:`_digraph_class` graph (``name=``, ``format=``,
    ``graph_attr=``... as for ``graphviz.Digraph``)."""
    return _digraph_class()(**kwargs)
