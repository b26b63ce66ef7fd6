"""Generate ``nd.<op>`` functions from the operator registry.

Each generated function maps MXNet's calling convention onto an operator
instance: leading NDArray arguments (or keywords named after the
operator's inputs) are inputs, the remaining positional arguments fill the
attributes in declaration order, and ``out=``/``ctx=``/``name=`` are
handled by the front end.  ``nd.tanh??`` in Jupyter shows the operator
class, with its forward and backward rules side by side, through
``__wrapped__``.
"""

from ..base import DLBookError
from ..ops import REGISTRY
from ..ops.op import Op
from .invoke import invoke
from .ndarray import NDArray
from .pending import Pending

#: ``cls()`` for operators whose ``bare`` says it is the same instance
_new = object.__new__

__all__ = ['make_function', 'split_arguments', 'function_for']


def _is_input(value):
    """Arrays, missing optional inputs (None) and inputs still waiting for
    their shape (:class:`~dlbook.ndarray.pending.Pending`: Gluon
    parameters under deferred initialization) are inputs."""
    return isinstance(value, (NDArray, Pending)) or value is None


def split_arguments(cls, args, kwargs, input_type=NDArray):
    """Sort a call's arguments into ``(inputs by name, attrs)``.

    Returns ``(named_inputs, positional_inputs, attrs)``: variadic
    operators (``concat``) take every leading array positionally.
    ``input_type`` is NDArray for ``nd`` and Symbol for ``sym``.
    """
    input_names = tuple(cls.arguments) + tuple(cls.aux_states)
    attr_names = list(cls.defaults)
    named, positional, attrs = {}, [], {}
    i = 0
    if cls.variadic:
        while i < len(args) and isinstance(args[i], input_type):
            positional.append(args[i])
            i += 1
    else:
        while (
            i < len(args)
            and i < len(input_names)
            and (isinstance(args[i], input_type) or _is_input(args[i]))
        ):
            named[input_names[i]] = args[i]
            i += 1
    rest = args[i:]
    if len(rest) > len(attr_names):
        raise DLBookError(
            f'{cls.name}: too many positional arguments '
            f'({len(args)}); attributes are '
            f'{", ".join(attr_names) or "none"}'
        )
    attrs.update(zip(attr_names, rest))
    for key, value in kwargs.items():
        if key in input_names:
            named[key] = value
        elif key in attrs:
            raise DLBookError(
                f'{cls.name}: got multiple values for argument {key!r}'
            )
        else:
            attrs[key] = value
    return named, positional, attrs


def make_function(cls, name):
    """Build the ``nd.<name>`` function for operator class ``cls``."""
    in_order = tuple(cls.arguments) + tuple(cls.aux_states)
    input_names = frozenset(in_order)
    variadic = cls.variadic
    # Whether every instance takes all of ``in_order`` (no attribute such
    # as ``no_bias`` drops an input): then a call with that many arrays
    # gives them all, without asking the instance.
    all_inputs = (
        not variadic
        and cls.list_arguments is Op.list_arguments
        and cls.list_inputs is Op.list_inputs
    )
    n_inputs = len(in_order)
    bare = cls.bare

    def function(*args, out=None, name=None, ctx=None, **kwargs):
        # The common call, ``nd.relu(x)`` or ``nd.softmax(x, axis=1)``:
        # the arrays the operator takes, in order, then attributes by
        # keyword.  It needs no sorting of its arguments (a third of the
        # front end's time on a small array).
        if (
            not variadic
            and all(isinstance(x, NDArray) for x in args)
            and (not kwargs or input_names.isdisjoint(kwargs))
        ):
            if kwargs:
                op = cls(**kwargs)
            else:
                op = _new(cls) if bare else cls()
            # the inputs this instance takes are the leading ones, all
            # given (else the careful path names what is missing)
            if (
                len(args) == n_inputs
                if all_inputs
                else op.list_inputs() == in_order[: len(args)]
            ):
                return invoke(op, args, out=out, ctx=ctx)
        named, inputs, attrs = split_arguments(cls, args, kwargs)
        if cls.variadic and 'num_args' in cls.defaults:
            attrs.setdefault('num_args', len(inputs))
        op = cls(**attrs)
        if not cls.variadic:
            # Leading positional arrays fill the inputs this instance takes
            # (as in MXNet): ctc_loss(data, label, label_lengths,
            # use_label_lengths=True) has no data_lengths input.
            wanted = tuple(op.list_inputs())
            npos = 0
            while npos < min(len(args), n_inputs) and _is_input(args[npos]):
                npos += 1
            if npos and wanted[:npos] != in_order[:npos]:
                given = [named.pop(n) for n in in_order[:npos]]
                named.update(zip(wanted, given))
            inputs = []
            for input_name in op.list_inputs():
                x = named.get(input_name)
                if x is None:
                    raise DLBookError(
                        f'{cls.name}: missing input {input_name!r} (inputs: '
                        f'{", ".join(op.list_inputs())})'
                    )
                inputs.append(x)
        return invoke(op, inputs, out=out, ctx=ctx)

    function.__name__ = name
    function.__qualname__ = name
    function.__doc__ = cls.__doc__
    function.__wrapped__ = cls
    return function


_made = {}


def function_for(name):
    """The ``nd.<name>`` function of the operator registered as ``name``,
    made once: ``nd`` and the modules below it (NDArray's methods, the
    sparse front end) share it without importing ``nd``."""
    function = _made.get(name)
    if function is None:
        function = _made[name] = make_function(REGISTRY[name], name)
    return function
