"""Inputs whose shape is not known yet, and the one place it gets settled.

A Gluon layer made without its input size (``nn.Dense(10)``) has a weight
of shape ``(10, 0)``: the 0 is settled by the first operator that reads
the weight, from the shapes of the other inputs (deferred
initialization).  Gluon hands such a parameter to the operators as a
:class:`Pending` input (its ``DeferredParameter`` subclasses this class),
so the front ends below Gluon see an explicit type, not a duck type, and
import nothing above them.

:func:`settle_shapes` is where every path settles them: an eager operator
call (``nd.FullyConnected`` in ``invoke``) with the operator's own
``infer_shape``, and a hybridized block with the shapes the symbol's
``infer_shape_partial`` found for its graph.  The shape rules themselves
live only in the operators.
"""

from ..base import DLBookError
from .ndarray import NDArray

__all__ = ['Pending', 'settle_shapes', 'settle_inputs']


class Pending:
    """An input that stands for an array whose shape is partly unknown.

    ``shape`` has 0 for every unknown dimension; ``name`` names it in
    messages.  :func:`settle_shapes` calls :meth:`settle` with the full
    shape once an operator's shape rule knows it; :meth:`materialize`
    then gives the array itself.
    """

    name = '?'
    shape = ()

    def settle(self, shape):
        """Take the full ``shape`` (no zeros left)."""
        raise NotImplementedError

    def materialize(self):
        """The NDArray this input stands for, now that its shape is
        known."""
        raise NotImplementedError


def settle_shapes(where, inputs, shapes, partial=False):
    """Give each :class:`Pending` in ``inputs`` its shape from ``shapes``.

    Parameters
    ----------
    where : str
        The operator (or graph) whose shape rule gave ``shapes``, for
        the message.
    inputs : sequence
        Inputs in the order of ``shapes``; only the Pending ones change.
    shapes : sequence of tuple or None
        Inferred shapes (None, or zeros, where nothing is known).
    partial : bool
        False (an eager call): an input still unknown raises MXNet's
        error.  True (a graph inferred partly): it stays pending, for a
        later step to settle.
    """
    pending = [x for x in inputs if isinstance(x, Pending)]
    names = ', '.join(repr(x.name) for x in pending)
    for x, shape in zip(inputs, shapes):
        if not isinstance(x, Pending):
            continue
        if partial:
            if shape and all(shape):
                x.settle(tuple(shape))
        elif shape is None or not all(shape):
            raise DLBookError(
                f'Deferred initialization failed because '
                f'shape cannot be inferred for {names} '
                f'in operator {where!r}'
            )
        else:
            x.settle(tuple(shape))


def settle_inputs(op, inputs):
    """The inputs of an eager call of ``op`` with every Pending one
    settled by ``op``'s shape rule and replaced by its array.

    The operator's ``infer_shape`` fills in the unknown dimensions from
    the known inputs (``FullyConnected`` gets ``weight = (num_hidden,
    in_units)`` from the data), so the shape rule lives in one place.
    """
    pending = [x for x in inputs if isinstance(x, Pending)]
    if not pending:
        bad = next(x for x in inputs if not isinstance(x, NDArray))
        raise DLBookError(
            f'{op.name}: expected NDArray inputs, got {type(bad).__name__}'
        )
    names = ', '.join(repr(x.name) for x in pending)
    rule = getattr(op, 'infer_shape', None)
    if rule is None:
        raise DLBookError(
            f'Deferred initialization failed because shape '
            f'cannot be inferred: operator {op.name!r} has no '
            f'shape rule for parameter(s) {names}'
        )
    known = [
        x.shape
        if isinstance(x, NDArray)
        else (tuple(x.shape) if x.shape and all(x.shape) else None)
        for x in inputs
    ]
    arg_shapes, _, aux_shapes = rule(*known)
    shapes = list(arg_shapes)
    if len(shapes) < len(inputs):
        shapes += list(aux_shapes)
    settle_shapes(op.name, inputs, shapes)
    return [x.materialize() if isinstance(x, Pending) else x for x in inputs]
