"""Containers that run their children one after another."""

import warnings

from ..block import Block, HybridBlock, _indent

__all__ = ['Sequential', 'HybridSequential']


class _SequentialMixin:
    """``add``, the forward loop, indexing, ``len`` and the repr shared by
    both containers."""

    #: ``summary()`` lists the children, not the container itself
    summarized_by_children = True

    def add(self, *blocks):
        """Append blocks; they run in the order added."""
        for block in blocks:
            self.register_child(block)
        return self

    def _run_children(self, x, *args):
        """Feed ``x`` through the children in order.  A child that
        returns a tuple or list passes its first item on as ``x`` and the
        rest as extra arguments of the next child (or of the result)."""
        for block in self._children.values():
            x = block(x, *args)
            args = ()
            if isinstance(x, (tuple, list)):
                args = x[1:]
                x = x[0]
        if args:
            x = tuple([x] + list(args))
        return x

    def __repr__(self):
        body = '\n'.join(
            f'  ({key}): {_indent(repr(block), 2)}'
            for key, block in self._children.items()
        )
        return f'{type(self).__name__}(\n{body}\n)'

    def __getitem__(self, key):
        layers = list(self._children.values())[key]
        if not isinstance(layers, list):
            return layers
        net = type(self)(prefix=self._prefix)
        with net.name_scope():
            net.add(*layers)
        return net

    def __len__(self):
        return len(self._children)


class Sequential(_SequentialMixin, Block):
    """Stack blocks sequentially::

    net = nn.Sequential()
    net.add(nn.Dense(256, activation='relu'), nn.Dense(10))
    """

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def forward(self, x, *args):
        return self._run_children(x, *args)

    def hybridize(self, active=True, **kwargs):
        """Hybridize the children (a Sequential itself runs eagerly).

        As MXNet, warns when every child is a HybridBlock: a
        HybridSequential would compile the whole stack into one graph."""
        if self._children and all(
            isinstance(c, HybridBlock) for c in self._children.values()
        ):
            warnings.warn(
                f"All children of this Sequential layer "
                f"'{self.prefix}' are HybridBlocks. Consider using "
                f"HybridSequential for the best performance.",
                stacklevel=2,
            )
        super().hybridize(active, **kwargs)


class HybridSequential(_SequentialMixin, HybridBlock):
    """Stack HybridBlocks sequentially; can be hybridized as a whole."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F, x, *args):
        return self._run_children(x, *args)
