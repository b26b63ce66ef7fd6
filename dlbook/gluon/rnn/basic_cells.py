"""The cells that compute a step themselves: :class:`RNNCell`,
:class:`LSTMCell` and :class:`GRUCell` (with the step functions of
``steps.py``) and :class:`DropoutCell`.

Shapes follow MXNet 1.x: a step takes ``x_t`` of shape ``(N, C)`` and
states of shape ``(N, H)``.  Gates are stacked in one weight matrix per
input, so a step costs two matrix products: ``i2h = x_t W_i2h^T + b_i2h``
and ``h2h = h_{t-1} W_h2h^T + b_h2h``, each of shape ``(N, gates * H)``.
"""

from ...base import DLBookError, numeric_types
from .base_cell import HybridRecurrentCell, _format_sequence, _is_tensor
from .steps import gru_step, lstm_step, rnn_step

__all__ = ['RNNCell', 'LSTMCell', 'GRUCell', 'DropoutCell']


class _GatedCell(HybridRecurrentCell):
    """RNN, LSTM and GRU cells: ``gates`` stacked blocks of ``hidden_size``
    rows in ``i2h_weight (G*H, C)``, ``h2h_weight (G*H, H)`` and the two
    biases, and ``num_states`` states of shape ``(N, H)``; a subclass
    supplies ``_step``.  The arguments are :class:`GRUCell`'s."""

    _gates = 1
    _num_states = 1

    def __init__(
        self,
        hidden_size,
        i2h_weight_initializer=None,
        h2h_weight_initializer=None,
        i2h_bias_initializer='zeros',
        h2h_bias_initializer='zeros',
        input_size=0,
        prefix=None,
        params=None,
    ):
        super().__init__(prefix=prefix, params=params)
        self._hidden_size = hidden_size
        self._input_size = input_size
        rows = self._gates * hidden_size
        # input_size=0 leaves i2h_weight's width to the first forward pass
        self.i2h_weight = self.params.get(
            'i2h_weight',
            shape=(rows, input_size),
            init=i2h_weight_initializer,
            allow_deferred_init=True,
        )
        self.h2h_weight = self.params.get(
            'h2h_weight',
            shape=(rows, hidden_size),
            init=h2h_weight_initializer,
            allow_deferred_init=True,
        )
        self.i2h_bias = self.params.get(
            'i2h_bias',
            shape=(rows,),
            init=i2h_bias_initializer,
            allow_deferred_init=True,
        )
        self.h2h_bias = self.params.get(
            'h2h_bias',
            shape=(rows,),
            init=h2h_bias_initializer,
            allow_deferred_init=True,
        )

    def state_info(self, batch_size=0):
        return [
            {'shape': (batch_size, self._hidden_size), '__layout__': 'NC'}
            for _ in range(self._num_states)
        ]

    def _mapping(self):
        # MXNet prints the number of i2h rows, gates * hidden_size
        rows, cols = self.i2h_weight.shape
        return f'{cols if cols else None} -> {rows}'

    def __repr__(self):
        return f'{type(self).__name__}({self._mapping()})'

    def hybrid_forward(
        self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias
    ):
        prefix = f't{self._counter}_'
        rows = self._gates * self._hidden_size
        i2h = F.FullyConnected(
            data=inputs,
            weight=i2h_weight,
            bias=i2h_bias,
            num_hidden=rows,
            name=prefix + 'i2h',
        )
        h2h = F.FullyConnected(
            data=states[0],
            weight=h2h_weight,
            bias=h2h_bias,
            num_hidden=rows,
            name=prefix + 'h2h',
        )
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

    def __init__(
        self,
        hidden_size,
        activation='tanh',
        i2h_weight_initializer=None,
        h2h_weight_initializer=None,
        i2h_bias_initializer='zeros',
        h2h_bias_initializer='zeros',
        input_size=0,
        prefix=None,
        params=None,
    ):
        super().__init__(
            hidden_size,
            i2h_weight_initializer,
            h2h_weight_initializer,
            i2h_bias_initializer,
            h2h_bias_initializer,
            input_size,
            prefix,
            params,
        )
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
    _num_states = 2  # h and c

    def __init__(
        self,
        hidden_size,
        i2h_weight_initializer=None,
        h2h_weight_initializer=None,
        i2h_bias_initializer='zeros',
        h2h_bias_initializer='zeros',
        input_size=0,
        prefix=None,
        params=None,
        activation='tanh',
        recurrent_activation='sigmoid',
    ):
        super().__init__(
            hidden_size,
            i2h_weight_initializer,
            h2h_weight_initializer,
            i2h_bias_initializer,
            h2h_bias_initializer,
            input_size,
            prefix,
            params,
        )
        self._activation = activation
        self._recurrent_activation = recurrent_activation

    def _alias(self):
        return 'lstm'

    def _step(self, F, i2h, h2h, states, prefix):
        return lstm_step(
            F,
            i2h,
            h2h,
            states,
            self._activation,
            self._recurrent_activation,
            prefix,
        )


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

    def _alias(self):
        return 'gru'

    def _step(self, F, i2h, h2h, states, prefix):
        return gru_step(F, i2h, h2h, states, prefix)


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
            raise DLBookError(
                f'DropoutCell: rate must be a number, got {rate!r}'
            )
        self._rate = rate
        self._axes = axes

    def __repr__(self):
        return f'{type(self).__name__}(rate={self._rate}, axes={self._axes})'

    def state_info(self, batch_size=0):
        return []

    def _alias(self):
        return 'dropout'

    def hybrid_forward(self, F, inputs, states):
        if self._rate > 0:
            inputs = F.Dropout(
                data=inputs,
                p=self._rate,
                axes=self._axes,
                name=f't{self._counter}_fwd',
            )
        return inputs, states

    def unroll(
        self,
        length,
        inputs,
        begin_state=None,
        layout='NTC',
        merge_outputs=None,
        valid_length=None,
    ):
        self.reset()
        inputs, _, F, _ = _format_sequence(
            length, inputs, layout, merge_outputs
        )
        if _is_tensor(inputs):
            # one dropout over the whole sequence instead of one per step
            return self.hybrid_forward(F, inputs, begin_state or [])
        return super().unroll(
            length,
            inputs,
            begin_state=begin_state,
            layout=layout,
            merge_outputs=merge_outputs,
            valid_length=None,
        )
