"""Recurrent cells: one time step of an RNN, an LSTM or a GRU.

A cell maps ``(x_t, states_{t-1})`` to ``(output_t, states_t)``: calling it
once is one time step, and ``cell.unroll(T, X)`` calls it ``T`` times,
feeding each step's states to the next.  The fused layers of
``rnn_layer.py`` (``rnn.LSTM``...) run the same step functions, defined
once below, over whole sequences.

Shapes follow MXNet 1.x: a step takes ``x_t`` of shape ``(N, C)`` and
states of shape ``(N, H)``; ``unroll`` takes ``(N, T, C)`` by default
(``layout='NTC'``).  Gates are stacked in one weight matrix per input, so a
step costs two matrix products: ``i2h = x_t W_i2h^T + b_i2h`` and
``h2h = h_{t-1} W_h2h^T + b_h2h``, each of shape ``(N, gates * H)``.

The chapters on RNNs, GRUs and LSTMs (d2l ch. 8 and 9) build these cells
from scratch first, then use them through ``rnn.RNN/GRU/LSTM``.
"""

from ... import ndarray as nd
from ...base import DLBookError, numeric_types
from ...ndarray.ndarray import NDArray
from ..block import Block, HybridBlock, _indent

__all__ = ['RecurrentCell', 'HybridRecurrentCell', 'RNNCell', 'LSTMCell',
           'GRUCell', 'SequentialRNNCell', 'HybridSequentialRNNCell',
           'DropoutCell', 'ModifierCell', 'ZoneoutCell', 'ResidualCell',
           'BidirectionalCell']


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
    return _as_list(F.split(x, num_outputs=num, axis=axis,
                            squeeze_axis=True))


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
        raise DLBookError('unroll(inputs=None) has been deprecated. Please '
                          'create input variables outside unroll.')
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
                        f'{in_axis} (layout {layout!r})')
                length = steps
            inputs = _unstack(F, inputs, length, axis=in_axis)
    else:
        inputs = list(inputs)
        if length is not None and len(inputs) != length:
            raise DLBookError(f'unroll: length={length} but {len(inputs)} '
                              f'input steps were given')
        F = _namespace(inputs[0])
        if F is nd:
            batch_size = inputs[0].shape[0]
        if merge is True:
            inputs = F.stack(*inputs, axis=axis)
            in_axis = axis
    if _is_tensor(inputs) and axis != in_axis:
        inputs = F.swapaxes(inputs, dim1=axis, dim2=in_axis)
    return inputs, axis, F, batch_size


def _mask_sequence_variable_length(F, data, length, valid_length, time_axis,
                                   merge):
    """Zero the outputs past each sequence's ``valid_length``."""
    if not _is_tensor(data):
        data = F.stack(*data, axis=time_axis)
    outputs = F.SequenceMask(data, sequence_length=valid_length,
                             use_sequence_length=True, axis=time_axis)
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
            return cell.begin_state(func=F.zeros, batch_size=batch_size,
                                    dtype=first.dtype)
    return cell.begin_state(func=F.zeros, batch_size=batch_size)


def _cells_state_info(cells, batch_size):
    return sum([c.state_info(batch_size) for c in cells], [])


def _cells_begin_state(cells, **kwargs):
    return sum([c.begin_state(**kwargs) for c in cells], [])


# -- the step functions, shared by the cells and the fused layers -------------

def _nn():
    # imported on use, to keep imports one-way; LeakyReLU is looked up
    # with getattr because gluon.nn may not define it
    from .. import nn
    return nn


def _activate(F, x, activation, **kwargs):
    """Apply ``activation``: a name (``'tanh'``), a LeakyReLU block or any
    callable."""
    func = {'tanh': F.tanh, 'relu': F.relu, 'sigmoid': F.sigmoid,
            'softsign': F.softsign}.get(activation)
    if func is not None:
        return func(x, **kwargs)
    if isinstance(activation, str):
        return F.Activation(x, act_type=activation, **kwargs)
    leaky_relu = getattr(_nn(), 'LeakyReLU', None)
    if leaky_relu is not None and isinstance(activation, leaky_relu):
        return F.LeakyReLU(x, act_type='leaky', slope=activation._alpha,
                           **kwargs)
    return activation(x, **kwargs)


def rnn_step(F, i2h, h2h, states, activation='tanh', prefix=''):
    """Elman RNN step: ``h_t = act(i2h + h2h)``; output and state are h_t.
    """
    total = F.elemwise_add(i2h, h2h, name=prefix + 'plus0')
    output = _activate(F, total, activation, name=prefix + 'out')
    return output, [output]


def lstm_step(F, i2h, h2h, states, activation='tanh',
              recurrent_activation='sigmoid', prefix=''):
    """LSTM step; the 4H gate columns are in the order i, f, g, o.

    ::

        i, f, o = sigmoid(slices 0, 1, 3 of i2h + h2h)    # gates in (0, 1)
        g = tanh(slice 2 of i2h + h2h)                    # candidate cell
        c_t = f * c_{t-1} + i * g
        h_t = o * tanh(c_t)

    ``states`` is ``[h_{t-1}, c_{t-1}]``; returns ``h_t, [h_t, c_t]``.
    """
    gates = F.elemwise_add(i2h, h2h, name=prefix + 'plus0')
    slices = F.SliceChannel(gates, num_outputs=4, name=prefix + 'slice')
    in_gate = _activate(F, slices[0], recurrent_activation,
                        name=prefix + 'i')
    forget_gate = _activate(F, slices[1], recurrent_activation,
                            name=prefix + 'f')
    in_transform = _activate(F, slices[2], activation, name=prefix + 'c')
    out_gate = _activate(F, slices[3], recurrent_activation,
                         name=prefix + 'o')
    next_c = F.elemwise_add(
        F.elemwise_mul(forget_gate, states[1], name=prefix + 'mul0'),
        F.elemwise_mul(in_gate, in_transform, name=prefix + 'mul1'),
        name=prefix + 'state')
    next_h = F.elemwise_mul(
        out_gate,
        F.Activation(next_c, act_type=activation,
                     name=prefix + 'activation0'),
        name=prefix + 'out')
    return next_h, [next_h, next_c]


def gru_step(F, i2h, h2h, states, prefix=''):
    """GRU step (cuDNN's variant); the 3H gate columns are r, z, n.

    ::

        r = sigmoid(i2h_r + h2h_r)              # reset gate
        z = sigmoid(i2h_z + h2h_z)              # update gate
        n = tanh(i2h_n + r * h2h_n)             # candidate; h2h_n includes
                                                # b_hn, so r scales it too
        h_t = (1 - z) * n + z * h_{t-1}

    Returns ``h_t, [h_t]``.
    """
    prev_h = states[0]
    i2h_r, i2h_z, i2h_n = F.SliceChannel(i2h, num_outputs=3,
                                         name=prefix + 'i2h_slice')
    h2h_r, h2h_z, h2h_n = F.SliceChannel(h2h, num_outputs=3,
                                         name=prefix + 'h2h_slice')
    reset_gate = F.Activation(F.elemwise_add(i2h_r, h2h_r,
                                             name=prefix + 'plus0'),
                              act_type='sigmoid', name=prefix + 'r_act')
    update_gate = F.Activation(F.elemwise_add(i2h_z, h2h_z,
                                              name=prefix + 'plus1'),
                               act_type='sigmoid', name=prefix + 'z_act')
    candidate = F.Activation(
        F.elemwise_add(i2h_n, F.elemwise_mul(reset_gate, h2h_n,
                                             name=prefix + 'mul0'),
                       name=prefix + 'plus2'),
        act_type='tanh', name=prefix + 'h_act')
    # (1 - z) * n + z * h  ==  n + z * (h - n): the same value, two
    # operators fewer per step
    next_h = F.elemwise_add(
        candidate,
        F.elemwise_mul(update_gate,
                       F.elemwise_sub(prev_h, candidate,
                                      name=prefix + 'minus0'),
                       name=prefix + 'mul1'),
        name=prefix + 'out')
    return next_h, [next_h]


# -- base classes -------------------------------------------------------------

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
        raise NotImplementedError(f'{type(self).__name__} must define '
                                  f'state_info')

    def _check_not_modified(self):
        if self._modified:
            raise DLBookError(
                'After applying modifier cells (e.g. ZoneoutCell) the base '
                'cell cannot be called directly. Call the modifier cell '
                'instead.')

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

    def unroll(self, length, inputs, begin_state=None, layout='NTC',
               merge_outputs=None, valid_length=None):
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
        inputs, axis, F, batch_size = _format_sequence(length, inputs,
                                                       layout, False)
        states = _get_begin_state(self, F, begin_state, inputs, batch_size)
        outputs, all_states = [], []
        for i in range(length):
            output, states = self(inputs[i], states)
            outputs.append(output)
            if valid_length is not None:
                all_states.append(states)
        if valid_length is not None:
            # each state at its sequence's last valid step
            states = [F.SequenceLast(F.stack(*steps, axis=0),
                                     sequence_length=valid_length,
                                     use_sequence_length=True, axis=0)
                      for steps in zip(*all_states)]
            outputs = _mask_sequence_variable_length(
                F, outputs, length, valid_length, axis, True)
        outputs, _, _, _ = _format_sequence(length, outputs, layout,
                                            merge_outputs)
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
    """A recurrent cell written with ``hybrid_forward(F, x, states, ...)``.
    """

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError(f'{type(self).__name__} must define '
                                  f'hybrid_forward(self, F, inputs, states, '
                                  f'...)')


class _GatedCell(HybridRecurrentCell):
    """RNN, LSTM and GRU cells: ``gates`` stacked blocks of ``hidden_size``
    rows in ``i2h_weight (G*H, C)``, ``h2h_weight (G*H, H)`` and the two
    biases; a subclass supplies ``_step``."""

    _gates = 1

    def __init__(self, hidden_size, i2h_weight_initializer,
                 h2h_weight_initializer, i2h_bias_initializer,
                 h2h_bias_initializer, input_size, prefix, params):
        super().__init__(prefix=prefix, params=params)
        self._hidden_size = hidden_size
        self._input_size = input_size
        rows = self._gates * hidden_size
        # input_size=0 leaves i2h_weight's width to the first forward pass
        self.i2h_weight = self.params.get(
            'i2h_weight', shape=(rows, input_size),
            init=i2h_weight_initializer, allow_deferred_init=True)
        self.h2h_weight = self.params.get(
            'h2h_weight', shape=(rows, hidden_size),
            init=h2h_weight_initializer, allow_deferred_init=True)
        self.i2h_bias = self.params.get(
            'i2h_bias', shape=(rows,), init=i2h_bias_initializer,
            allow_deferred_init=True)
        self.h2h_bias = self.params.get(
            'h2h_bias', shape=(rows,), init=h2h_bias_initializer,
            allow_deferred_init=True)

    def state_info(self, batch_size=0):
        return [{'shape': (batch_size, self._hidden_size),
                 '__layout__': 'NC'}]

    def _mapping(self):
        # MXNet prints the number of i2h rows, gates * hidden_size
        rows, cols = self.i2h_weight.shape
        return f'{cols if cols else None} -> {rows}'

    def __repr__(self):
        return f'{type(self).__name__}({self._mapping()})'

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight,
                       i2h_bias, h2h_bias):
        prefix = f't{self._counter}_'
        rows = self._gates * self._hidden_size
        i2h = F.FullyConnected(data=inputs, weight=i2h_weight, bias=i2h_bias,
                               num_hidden=rows, name=prefix + 'i2h')
        h2h = F.FullyConnected(data=states[0], weight=h2h_weight,
                               bias=h2h_bias, num_hidden=rows,
                               name=prefix + 'h2h')
        return self._step(F, i2h, h2h, states, prefix)


class RNNCell(_GatedCell):
    r"""Elman RNN cell: ``h_t = act(W_i2h x_t + b_i2h + W_h2h h_{t-1} +
    b_h2h)``.

    Parameters
    ----------
    hidden_size : int
        Number of hidden units H.
    activation : str or callable, default 'tanh'
    i2h_weight_initializer, h2h_weight_initializer : Initializer, optional
        Initializers of ``i2h_weight (H, C)`` and ``h2h_weight (H, H)``.
    i2h_bias_initializer, h2h_bias_initializer : default 'zeros'
    input_size : int, default 0
        C; 0 infers it from the first input.
    prefix : str, default 'rnn<k>_'
    params : ParameterDict, optional

    Inputs: ``data (N, C)`` and ``states`` = ``[h (N, H)]``.
    Outputs: ``out (N, H)`` and ``next_states`` = ``[out]``.

    Examples
    --------
    >>> cell = rnn.RNNCell(100)
    >>> cell
    RNNCell(None -> 100, tanh)
    """

    def __init__(self, hidden_size, activation='tanh',
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 input_size=0, prefix=None, params=None):
        super().__init__(hidden_size, i2h_weight_initializer,
                         h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, input_size, prefix, params)
        self._activation = activation

    def _alias(self):
        return 'rnn'

    def __repr__(self):
        return f'{type(self).__name__}({self._mapping()}, {self._activation})'

    def _step(self, F, i2h, h2h, states, prefix):
        return rnn_step(F, i2h, h2h, states, self._activation, prefix)


class LSTMCell(_GatedCell):
    r"""Long short-term memory cell.

    ::

        i_t = sigmoid(W_ii x_t + b_ii + W_hi h_{t-1} + b_hi)   # input gate
        f_t = sigmoid(W_if x_t + b_if + W_hf h_{t-1} + b_hf)   # forget gate
        g_t = tanh(W_ig x_t + b_ig + W_hg h_{t-1} + b_hg)      # candidate
        o_t = sigmoid(W_io x_t + b_io + W_ho h_{t-1} + b_ho)   # output gate
        c_t = f_t * c_{t-1} + i_t * g_t
        h_t = o_t * tanh(c_t)

    ``i2h_weight`` stacks ``W_ii, W_if, W_ig, W_io`` (shape ``(4H, C)``),
    ``h2h_weight`` the matching ``(4H, H)`` blocks, in this order.

    Parameters
    ----------
    hidden_size : int
        Number of hidden units H.
    i2h_weight_initializer, h2h_weight_initializer : Initializer, optional
    i2h_bias_initializer, h2h_bias_initializer : default 'zeros'
    input_size : int, default 0
        C; 0 infers it from the first input.
    prefix : str, default 'lstm<k>_'
    params : ParameterDict, optional
    activation : str, default 'tanh'
        Used for ``g_t`` and for ``tanh(c_t)``.
    recurrent_activation : str, default 'sigmoid'
        Used for the gates i, f, o.

    Inputs: ``data (N, C)`` and ``states`` = ``[h (N, H), c (N, H)]``.
    Outputs: ``out`` = ``h_t`` and ``next_states`` = ``[h_t, c_t]``.

    Examples
    --------
    >>> rnn.LSTMCell(100)        # MXNet shows the 4H rows of i2h_weight
    LSTMCell(None -> 400)
    """

    _gates = 4

    def __init__(self, hidden_size, i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer='zeros',
                 h2h_bias_initializer='zeros', input_size=0, prefix=None,
                 params=None, activation='tanh',
                 recurrent_activation='sigmoid'):
        super().__init__(hidden_size, i2h_weight_initializer,
                         h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, input_size, prefix, params)
        self._activation = activation
        self._recurrent_activation = recurrent_activation

    def _alias(self):
        return 'lstm'

    def state_info(self, batch_size=0):
        return [{'shape': (batch_size, self._hidden_size),
                 '__layout__': 'NC'},
                {'shape': (batch_size, self._hidden_size),
                 '__layout__': 'NC'}]

    def _step(self, F, i2h, h2h, states, prefix):
        return lstm_step(F, i2h, h2h, states, self._activation,
                         self._recurrent_activation, prefix)


class GRUCell(_GatedCell):
    r"""Gated recurrent unit cell, cuDNN's variant (the reset gate scales
    ``W_hn h + b_hn`` after the product, unlike Cho et al. 2014).

    ::

        r_t = sigmoid(W_ir x_t + b_ir + W_hr h_{t-1} + b_hr)   # reset
        z_t = sigmoid(W_iz x_t + b_iz + W_hz h_{t-1} + b_hz)   # update
        n_t = tanh(W_in x_t + b_in + r_t * (W_hn h_{t-1} + b_hn))
        h_t = (1 - z_t) * n_t + z_t * h_{t-1}

    ``i2h_weight`` stacks ``W_ir, W_iz, W_in`` (shape ``(3H, C)``) and
    ``h2h_weight`` ``W_hr, W_hz, W_hn`` (shape ``(3H, H)``).

    Parameters
    ----------
    hidden_size : int
        Number of hidden units H.
    i2h_weight_initializer, h2h_weight_initializer : Initializer, optional
    i2h_bias_initializer, h2h_bias_initializer : default 'zeros'
    input_size : int, default 0
        C; 0 infers it from the first input.
    prefix : str, default 'gru<k>_'
    params : ParameterDict, optional

    Inputs: ``data (N, C)`` and ``states`` = ``[h (N, H)]``.
    Outputs: ``out`` = ``h_t`` and ``next_states`` = ``[h_t]``.
    """

    _gates = 3

    def __init__(self, hidden_size, i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer='zeros',
                 h2h_bias_initializer='zeros', input_size=0, prefix=None,
                 params=None):
        super().__init__(hidden_size, i2h_weight_initializer,
                         h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, input_size, prefix, params)

    def _alias(self):
        return 'gru'

    def _step(self, F, i2h, h2h, states, prefix):
        return gru_step(F, i2h, h2h, states, prefix)


# -- containers ---------------------------------------------------------------

class _SequentialCellMixin:
    """Stacking: each cell's output is the next cell's input; the states
    are the concatenation of every cell's states."""

    def __repr__(self):
        # MXNet does not indent the children here
        body = '\n'.join(f'({key}): {_indent(repr(cell), 2)}'
                         for key, cell in self._children.items())
        return f'{type(self).__name__}(\n{body}\n)'

    def add(self, cell):
        """Append ``cell`` to the stack."""
        self.register_child(cell)

    def state_info(self, batch_size=0):
        return _cells_state_info(self._children.values(), batch_size)

    def begin_state(self, **kwargs):
        """The begin states of every cell, in order."""
        self._check_not_modified()
        return _cells_begin_state(self._children.values(), **kwargs)

    def __call__(self, inputs, states):
        self._counter += 1
        next_states = []
        p = 0
        for cell in self._children.values():
            if isinstance(cell, BidirectionalCell):
                raise DLBookError('A BidirectionalCell in a sequential stack '
                                  'cannot be stepped; use unroll instead.')
            n = len(cell.state_info())
            inputs, state = cell(inputs, states[p:p + n])
            p += n
            next_states.extend(state)
        return inputs, next_states

    def unroll(self, length, inputs, begin_state=None, layout='NTC',
               merge_outputs=None, valid_length=None):
        """Unroll each cell over the whole sequence in turn (see
        :meth:`RecurrentCell.unroll`)."""
        self.reset()
        inputs, _, F, batch_size = _format_sequence(length, inputs, layout,
                                                    None)
        num_cells = len(self._children)
        begin_state = _get_begin_state(self, F, begin_state, inputs,
                                       batch_size)
        p = 0
        next_states = []
        for i, cell in enumerate(self._children.values()):
            n = len(cell.state_info())
            states = begin_state[p:p + n]
            p += n
            inputs, states = cell.unroll(
                length, inputs=inputs, begin_state=states, layout=layout,
                merge_outputs=None if i < num_cells - 1 else merge_outputs,
                valid_length=valid_length)
            next_states.extend(states)
        return inputs, next_states

    def __getitem__(self, i):
        return self._children[str(i)]

    def __len__(self):
        return len(self._children)


class SequentialRNNCell(_SequentialCellMixin, RecurrentCell):
    """A stack of cells run one after the other at each step.

    Examples
    --------
    >>> stack = rnn.SequentialRNNCell()
    >>> with stack.name_scope():
    ...     stack.add(rnn.LSTMCell(100))
    ...     stack.add(rnn.LSTMCell(100))
    >>> outputs, states = stack.unroll(5, x, merge_outputs=True)
    """

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, *args, **kwargs):
        raise NotImplementedError


class HybridSequentialRNNCell(_SequentialCellMixin, HybridRecurrentCell):
    """A stack of hybrid cells (see :class:`SequentialRNNCell`)."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F, inputs, states):
        return self.__call__(inputs, states)


# -- cells that wrap or modify others -----------------------------------------

class DropoutCell(HybridRecurrentCell):
    """Dropout on the inputs: ``y = dropout(x, rate)`` in training mode,
    ``y = x`` otherwise; the states pass through.

    Parameters
    ----------
    rate : float
        Fraction of the elements to drop.
    axes : tuple of int, default ()
        Axes along which one mask value is shared.
    """

    def __init__(self, rate, axes=(), prefix=None, params=None):
        super().__init__(prefix, params)
        if not isinstance(rate, numeric_types):
            raise DLBookError(f'DropoutCell: rate must be a number, got '
                              f'{rate!r}')
        self._rate = rate
        self._axes = axes

    def __repr__(self):
        return (f'{type(self).__name__}(rate={self._rate}, '
                f'axes={self._axes})')

    def state_info(self, batch_size=0):
        return []

    def _alias(self):
        return 'dropout'

    def hybrid_forward(self, F, inputs, states):
        if self._rate > 0:
            inputs = F.Dropout(data=inputs, p=self._rate, axes=self._axes,
                               name=f't{self._counter}_fwd')
        return inputs, states

    def unroll(self, length, inputs, begin_state=None, layout='NTC',
               merge_outputs=None, valid_length=None):
        self.reset()
        inputs, _, F, _ = _format_sequence(length, inputs, layout,
                                           merge_outputs)
        if _is_tensor(inputs):
            # one dropout over the whole sequence instead of one per step
            return self.hybrid_forward(F, inputs, begin_state or [])
        return super().unroll(length, inputs, begin_state=begin_state,
                              layout=layout, merge_outputs=merge_outputs,
                              valid_length=None)


class ModifierCell(HybridRecurrentCell):
    """Base class of cells that wrap a ``base_cell`` and change its
    behaviour (zoneout, residual connection).

    Once wrapped, the base cell must not be called directly; the modifier
    shares its parameters.
    """

    def __init__(self, base_cell):
        if base_cell._modified:
            raise DLBookError(f'Cell {base_cell.name} is already modified. '
                              f'One cell cannot be modified twice')
        base_cell._modified = True
        super().__init__(prefix=base_cell.prefix + self._alias(),
                         params=None)
        self.base_cell = base_cell

    @property
    def params(self):
        return self.base_cell.params

    def state_info(self, batch_size=0):
        return self.base_cell.state_info(batch_size)

    def begin_state(self, func=nd.zeros, **kwargs):
        self._check_not_modified()
        self.base_cell._modified = False
        try:
            return self.base_cell.begin_state(func=func, **kwargs)
        finally:
            self.base_cell._modified = True

    def hybrid_forward(self, F, inputs, states):
        raise NotImplementedError

    def __repr__(self):
        return f'{type(self).__name__}({self.base_cell})'


class ZoneoutCell(ModifierCell):
    """Zoneout (Krueger et al. 2016): in training, each output and state
    unit keeps its previous value with probability ``zoneout_outputs`` /
    ``zoneout_states`` instead of taking the new one.

    Parameters
    ----------
    base_cell : RecurrentCell
    zoneout_outputs, zoneout_states : float, default 0
    """

    def __init__(self, base_cell, zoneout_outputs=0., zoneout_states=0.):
        if isinstance(base_cell, BidirectionalCell):
            raise DLBookError(
                "BidirectionalCell doesn't support zoneout since it doesn't "
                "support step. Please add ZoneoutCell to the cells "
                "underneath instead.")
        super().__init__(base_cell)
        self.zoneout_outputs = zoneout_outputs
        self.zoneout_states = zoneout_states
        self._prev_output = None

    def __repr__(self):
        return (f'{type(self).__name__}(p_out={self.zoneout_outputs}, '
                f'p_state={self.zoneout_states}, {self.base_cell})')

    def _alias(self):
        return 'zoneout'

    def reset(self):
        super().reset()
        self._prev_output = None

    def hybrid_forward(self, F, inputs, states):
        next_output, next_states = self.base_cell(inputs, states)

        def mask(p, like):
            # ones where the new value is taken: 1 - p of them in
            # training, all of them otherwise (Dropout is then identity)
            return F.Dropout(F.ones_like(like), p=p)

        prev_output = self._prev_output
        if prev_output is None:
            prev_output = F.zeros_like(next_output)
        p_out, p_state = self.zoneout_outputs, self.zoneout_states
        output = next_output
        if p_out != 0.:
            output = F.where(mask(p_out, next_output), next_output,
                             prev_output)
        if p_state != 0.:
            next_states = [F.where(mask(p_state, new), new, old)
                           for new, old in zip(next_states, states)]
        self._prev_output = output
        return output, next_states


class ResidualCell(ModifierCell):
    """Adds the input to the base cell's output, ``y_t = cell(x_t) + x_t``
    (Wu et al. 2016); input and output sizes must match."""

    def __init__(self, base_cell):
        super().__init__(base_cell)

    def hybrid_forward(self, F, inputs, states):
        output, states = self.base_cell(inputs, states)
        output = F.elemwise_add(output, inputs, name=f't{self._counter}_fwd')
        return output, states

    def unroll(self, length, inputs, begin_state=None, layout='NTC',
               merge_outputs=None, valid_length=None):
        self.reset()
        self.base_cell._modified = False
        try:
            outputs, states = self.base_cell.unroll(
                length, inputs=inputs, begin_state=begin_state,
                layout=layout, merge_outputs=merge_outputs,
                valid_length=valid_length)
        finally:
            self.base_cell._modified = True
        if merge_outputs is None:
            merge_outputs = _is_tensor(outputs)
        inputs, axis, F, _ = _format_sequence(length, inputs, layout,
                                              merge_outputs)
        if valid_length is not None:
            # padded steps have zero outputs: add zeros there, too
            inputs = _mask_sequence_variable_length(
                F, inputs, length, valid_length, axis, merge_outputs)
        if merge_outputs:
            outputs = F.elemwise_add(outputs, inputs)
        else:
            outputs = [F.elemwise_add(o, x) for o, x in zip(outputs, inputs)]
        return outputs, states


class BidirectionalCell(HybridRecurrentCell):
    """Runs ``l_cell`` forward and ``r_cell`` backward in time and
    concatenates their outputs at each step, ``[h_fwd_t, h_bwd_t]``.

    It can only be unrolled, not stepped: the backward pass over time
    needs the whole sequence.

    Parameters
    ----------
    l_cell : RecurrentCell
        Reads the sequence from first step to last.
    r_cell : RecurrentCell
        Reads it from last step to first.
    output_prefix : str, default 'bi_'
    """

    def __init__(self, l_cell, r_cell, output_prefix='bi_'):
        super().__init__(prefix='', params=None)
        self.register_child(l_cell, 'l_cell')
        self.register_child(r_cell, 'r_cell')
        self._output_prefix = output_prefix

    def __call__(self, inputs, states):
        raise NotImplementedError('Bidirectional cannot be stepped. Please '
                                  'use unroll')

    def __repr__(self):
        return (f'{type(self).__name__}(forward={self._children["l_cell"]}, '
                f'backward={self._children["r_cell"]})')

    def state_info(self, batch_size=0):
        return _cells_state_info(self._children.values(), batch_size)

    def begin_state(self, **kwargs):
        self._check_not_modified()
        return _cells_begin_state(self._children.values(), **kwargs)

    def unroll(self, length, inputs, begin_state=None, layout='NTC',
               merge_outputs=None, valid_length=None):
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs,
                                                       layout, False)
        if valid_length is None:
            reversed_inputs = list(reversed(inputs))
        else:
            # reverse each sequence within its own length, keeping the
            # padding at the end
            reversed_inputs = _unstack(F, F.SequenceReverse(
                F.stack(*inputs, axis=0), sequence_length=valid_length,
                use_sequence_length=True), length)
        begin_state = _get_begin_state(self, F, begin_state, inputs,
                                       batch_size)
        l_cell, r_cell = self._children.values()
        n_l = len(l_cell.state_info(batch_size))
        l_outputs, l_states = l_cell.unroll(
            length, inputs=inputs, begin_state=begin_state[:n_l],
            layout=layout, merge_outputs=merge_outputs,
            valid_length=valid_length)
        r_outputs, r_states = r_cell.unroll(
            length, inputs=reversed_inputs, begin_state=begin_state[n_l:],
            layout=layout, merge_outputs=False, valid_length=valid_length)
        if valid_length is None:
            reversed_r_outputs = list(reversed(r_outputs))
        else:
            reversed_r_outputs = _unstack(F, F.SequenceReverse(
                F.stack(*r_outputs, axis=0), sequence_length=valid_length,
                use_sequence_length=True, axis=0), length)
        if merge_outputs is None:
            merge_outputs = _is_tensor(l_outputs)
            l_outputs, _, _, _ = _format_sequence(None, l_outputs, layout,
                                                  merge_outputs)
            reversed_r_outputs, _, _, _ = _format_sequence(
                None, reversed_r_outputs, layout, merge_outputs)
        if merge_outputs:
            reversed_r_outputs = F.stack(*reversed_r_outputs, axis=axis)
            outputs = F.concat(l_outputs, reversed_r_outputs, dim=2,
                               name=f'{self._output_prefix}out')
        else:
            outputs = [F.concat(l_o, r_o, dim=1,
                                name=f'{self._output_prefix}t{i}')
                       for i, (l_o, r_o) in enumerate(
                           zip(l_outputs, reversed_r_outputs))]
        if valid_length is not None:
            outputs = _mask_sequence_variable_length(
                F, outputs, length, valid_length, axis, merge_outputs)
        return outputs, l_states + r_states
