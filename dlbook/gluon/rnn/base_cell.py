"""The base classes of recurrent cells, :class:`RecurrentCell` and
:class:`HybridRecurrentCell`, with ``begin_state`` and ``unroll``, and the
helpers that turn a sequence into a list of steps and back.

A cell maps ``(x_t, states_{t-1})`` to ``(output_t, states_t)``: calling it
once is one time step, and ``cell.unroll(T, X)`` calls it ``T`` times,
feeding each step's states to the next.
"""

from ... import ndarray as nd
from ...base import DLBookError
from ...ndarray.ndarray import NDArray
from ..block import Block, HybridBlock
from .steps import _activate

__all__ = ['RecurrentCell', 'HybridRecurrentCell']


# -- NDArray or Symbol --------------------------------------------------------


def _symbol_module():
    """``dlbook.symbol`` (imported lazily: eager code never needs it), or
    None while the symbol API is unavailable."""
    try:
        from ... import symbol
    except ImportError:
        return None
    return symbol if hasattr(symbol, 'Symbol') else None


def _is_tensor(x):
    """An NDArray or a Symbol (as opposed to a list of them)."""
    if isinstance(x, NDArray):
        return True
    symbol = _symbol_module()
    return symbol is not None and isinstance(x, symbol.Symbol)


def _namespace(x):
    """``F`` for ``x``: ``nd`` for NDArrays, ``sym`` for Symbols."""
    return nd if isinstance(x, NDArray) else _symbol_module()


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _unstack(F, x, num, axis=0):
    """Split ``x`` into ``num`` arrays along ``axis``, dropping that axis.

    One ``split`` operator instead of ``num`` slices: its gradient is one
    concatenation, where ``num`` slices would each write a full-size zero
    array in the backward pass.
    """
    out = F.split(x, num_outputs=num, axis=axis, squeeze_axis=True)
    if isinstance(out, (list, tuple)) or num == 1:
        return _as_list(out)
    return [out[i] for i in range(num)]  # a Symbol of num outputs


def _new_state(func, name, info):
    """``func(name=name, **info)``, as MXNet calls a state creator.

    dlbook's ``nd.zeros``/``nd.ones`` do not accept MXNet's ``name`` and
    ``__layout__`` keywords yet; retry without them.
    """
    try:
        return func(name=name, **info)
    except TypeError:
        info = {k: v for k, v in info.items() if not k.startswith('__')}
        return func(**info)


# -- sequences: list of steps <-> one array ----------------------------------


def _format_sequence(length, inputs, layout, merge, in_layout=None):
    """Bring ``inputs`` to the form a loop over time wants.

    ``inputs`` is one array (time on the ``T`` axis of ``in_layout`` or
    ``layout``) or a list of per-step arrays ``(N, ...)``.  With
    ``merge=False`` the result is a list of steps, with ``merge=True`` one
    array with time on the ``T`` axis of ``layout``, with ``merge=None`` it
    is left as it is.

    Returns
    -------
    (inputs, time_axis, F, batch_size)
    """
    if inputs is None:
        raise DLBookError(
            'unroll(inputs=None) has been deprecated. Please '
            'create input variables outside unroll.'
        )
    axis = layout.find('T')
    batch_axis = layout.find('N')
    in_axis = in_layout.find('T') if in_layout is not None else axis
    batch_size = 0
    if _is_tensor(inputs):
        F = _namespace(inputs)
        if F is nd:
            batch_size = inputs.shape[batch_axis]
        if merge is False:
            if F is nd:
                steps = inputs.shape[in_axis]
                if length is not None and length != steps:
                    raise DLBookError(
                        f'unroll: length={length} but the inputs of shape '
                        f'{inputs.shape} have {steps} steps on axis '
                        f'{in_axis} (layout {layout!r})'
                    )
                length = steps
            inputs = _unstack(F, inputs, length, axis=in_axis)
    else:
        inputs = list(inputs)
        if length is not None and len(inputs) != length:
            raise DLBookError(
                f'unroll: length={length} but {len(inputs)} '
                f'input steps were given'
            )
        F = _namespace(inputs[0])
        if F is nd:
            batch_size = inputs[0].shape[0]
        if merge is True:
            inputs = F.stack(*inputs, axis=axis)
            in_axis = axis
    if _is_tensor(inputs) and axis != in_axis:
        inputs = F.swapaxes(inputs, dim1=axis, dim2=in_axis)
    return inputs, axis, F, batch_size


def _mask_sequence_variable_length(
    F, data, length, valid_length, time_axis, merge
):
    """Zero the outputs past each sequence's ``valid_length``."""
    if not _is_tensor(data):
        data = F.stack(*data, axis=time_axis)
    outputs = F.SequenceMask(
        data,
        sequence_length=valid_length,
        use_sequence_length=True,
        axis=time_axis,
    )
    if not merge:
        outputs = _unstack(F, outputs, length, axis=time_axis)
    return outputs


def _get_begin_state(cell, F, begin_state, inputs, batch_size):
    """The given states, or zeros on the inputs' device."""
    if begin_state is not None:
        return begin_state
    if F is nd:
        first = inputs if _is_tensor(inputs) else inputs[0]
        # MXNet makes float32 zeros whatever the inputs; following the
        # inputs' dtype lets a float64 model run without explicit states
        with first.context:
            return cell.begin_state(
                func=F.zeros, batch_size=batch_size, dtype=first.dtype
            )
    return cell.begin_state(func=F.zeros, batch_size=batch_size)


def _cells_state_info(cells, batch_size):
    return sum([c.state_info(batch_size) for c in cells], [])


def _cells_begin_state(cells, **kwargs):
    return sum([c.begin_state(**kwargs) for c in cells], [])


class RecurrentCell(Block):
    """Abstract base class of recurrent cells.

    A subclass defines ``state_info`` and the one-step computation
    (``forward(inputs, states)``, or ``hybrid_forward`` for a
    :class:`HybridRecurrentCell`), which returns ``(output, new_states)``.

    Parameters
    ----------
    prefix : str, optional
        Prefix of the cell's names (``lstm0_``).
    params : ParameterDict, optional
        Share these parameters instead of creating new ones.
    """

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._modified = False
        self.reset()

    def reset(self):
        """Reset the step counters before unrolling again."""
        # the counters number the steps (symbol names 't0_', 't1_', ...)
        # and the states made by begin_state
        self._init_counter = -1
        self._counter = -1
        for cell in self._children.values():
            cell.reset()

    def state_info(self, batch_size=0):
        """Shape and layout of each state:
        ``[{'shape': (N, H), '__layout__': 'NC'}, ...]``."""
        raise NotImplementedError(
            f'{type(self).__name__} must define state_info'
        )

    def _check_not_modified(self):
        if self._modified:
            raise DLBookError(
                'After applying modifier cells (e.g. ZoneoutCell) the base '
                'cell cannot be called directly. Call the modifier cell '
                'instead.'
            )

    def begin_state(self, batch_size=0, func=nd.zeros, **kwargs):
        """Initial states for the first step.

        Parameters
        ----------
        batch_size : int
            Size of the batch (``N``); needed for NDArrays.
        func : callable, default nd.zeros
            Called as ``func(name=..., shape=..., **kwargs)`` for each state
            (``nd.ones``, ``nd.random.uniform``, ``sym.var``...).
        **kwargs
            More arguments for ``func``: ``ctx``, ``dtype``...

        Returns
        -------
        list of NDArray or Symbol
            Named ``<prefix>begin_state_<k>``.

        Examples
        --------
        >>> cell = rnn.LSTMCell(100)
        >>> [s.shape for s in cell.begin_state(batch_size=4)]
        [(4, 100), (4, 100)]
        """
        self._check_not_modified()
        states = []
        for info in self.state_info(batch_size):
            self._init_counter += 1
            info = dict(info or {}, **kwargs)
            name = f'{self._prefix}begin_state_{self._init_counter}'
            states.append(_new_state(func, name, info))
        return states

    def unroll(
        self,
        length,
        inputs,
        begin_state=None,
        layout='NTC',
        merge_outputs=None,
        valid_length=None,
    ):
        """Run the cell over ``length`` time steps.

        Parameters
        ----------
        length : int
            Number of steps.
        inputs : NDArray, Symbol or list of them
            One array of shape ``(N, T, C)`` (``layout='NTC'``) or
            ``(T, N, C)`` (``'TNC'``), or a list of ``T`` arrays ``(N, C)``.
        begin_state : list, optional
            Initial states; zeros (``begin_state()``) when omitted.
        layout : {'NTC', 'TNC'}
            Layout of ``inputs`` (when one array) and of merged outputs.
        merge_outputs : bool, optional
            True: outputs as one array in ``layout``; False: a list of
            ``(N, H)`` arrays; None: whichever is cheaper (here a list,
            or one array when ``valid_length`` is given).
        valid_length : NDArray or Symbol, optional
            Shape ``(N,)``: the true length of each sequence.  Outputs past
            it are zeros and the returned states are those of each
            sequence's last valid step.

        Returns
        -------
        outputs : list or NDArray/Symbol
        states : list
            The states after the last step.
        """
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(
            length, inputs, layout, False
        )
        states = _get_begin_state(self, F, begin_state, inputs, batch_size)
        outputs, all_states = [], []
        for i in range(length):
            output, states = self(inputs[i], states)
            outputs.append(output)
            if valid_length is not None:
                all_states.append(states)
        if valid_length is not None:
            # each state at its sequence's last valid step
            states = [
                F.SequenceLast(
                    F.stack(*steps, axis=0),
                    sequence_length=valid_length,
                    use_sequence_length=True,
                    axis=0,
                )
                for steps in zip(*all_states)
            ]
            outputs = _mask_sequence_variable_length(
                F, outputs, length, valid_length, axis, True
            )
        outputs, _, _, _ = _format_sequence(
            length, outputs, layout, merge_outputs
        )
        return outputs, states

    def _get_activation(self, F, inputs, activation, **kwargs):
        """Apply an activation given by name or as a callable."""
        return _activate(F, inputs, activation, **kwargs)

    def forward(self, inputs, states):
        """One time step: ``(output, new_states)`` from ``inputs`` of shape
        ``(N, C)`` and the previous ``states``."""
        self._counter += 1
        return super().forward(inputs, states)


class HybridRecurrentCell(RecurrentCell, HybridBlock):
    """A recurrent cell written with ``hybrid_forward(F, x, states, ...)``."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError(
            f'{type(self).__name__} must define '
            f'hybrid_forward(self, F, inputs, states, '
            f'...)'
        )
