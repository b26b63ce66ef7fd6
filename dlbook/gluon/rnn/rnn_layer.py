"""Recurrent layers: ``rnn.RNN``, ``rnn.LSTM`` and ``rnn.GRU``.

A layer runs a whole sequence through ``num_layers`` stacked recurrent
layers (each optionally bidirectional) in one call: ``(T, N, C)`` in,
``(T, N, D*H)`` out, with states of shape ``(L*D, N, H)`` (``L`` layers,
``D`` = 2 directions if bidirectional, else 1).  Parameters and results
are those of MXNet 1.x's fused (cuDNN-style) layers.

As in MXNet, the whole computation is one fused ``RNN`` operator
(``dlbook/ops/rnn.py``), eagerly, hybridized and in a symbol graph alike.
The layer keeps one Parameter per layer, direction and matrix
(``l0_i2h_weight``, ...) and packs them into the operator's flat
parameter vector inside ``hybrid_forward`` (``F.Reshape`` to vectors,
then one ``F.concat``), so gradients flow back to each Parameter and an
exported graph reads the same Parameters.  The step-by-step version of
the same computation is the cells' ``unroll`` (``basic_cells.py``).
"""

import re

from ... import ndarray as nd
from ...base import DLBookError
from ...ndarray.ndarray import NDArray
from ..block import HybridBlock
from .base_cell import _new_state, _symbol_module

__all__ = ['RNN', 'LSTM', 'GRU']

# key of a fused parameter: direction, layer, projection, kind
_PARAM_KEY = re.compile(r'(l|r)(\d+)_(i2h|h2h|h2r)_(weight|bias)\Z')


class _RNNLayer(HybridBlock):
    """Shared implementation of the recurrent layers.

    Parameters are ``{d}{k}_{i2h|h2h}_{weight|bias}`` for direction
    ``d`` in ``l`` (forward in time) / ``r`` (backward) and layer ``k``:
    ``lstm0_l0_i2h_weight`` has shape ``(G*H, C)`` with ``G`` the number of
    gates (1 RNN, 3 GRU, 4 LSTM).  An LSTM with a projection (LSTMP,
    ``projection_size=P``) has ``h2h_weight`` ``(4H, P)`` and one more
    matrix per layer and direction, ``{d}{k}_h2r_weight`` ``(P, H)``; the
    layers above the first then read ``D*P`` features.
    """

    def __init__(
        self,
        hidden_size,
        num_layers,
        layout,
        dropout,
        bidirectional,
        input_size,
        i2h_weight_initializer,
        h2h_weight_initializer,
        i2h_bias_initializer,
        h2h_bias_initializer,
        mode,
        dtype='float32',
        use_sequence_length=False,
        projection_size=None,
        h2r_weight_initializer=None,
        lstm_state_clip_min=None,
        lstm_state_clip_max=None,
        lstm_state_clip_nan=False,
        **kwargs,
    ):
        super().__init__(**kwargs)
        # as MXNet, 0 means no projection
        self._projection_size = projection_size if projection_size else None
        self._h2r_weight_initializer = h2r_weight_initializer
        self._lstm_state_clip_min = lstm_state_clip_min
        self._lstm_state_clip_max = lstm_state_clip_max
        self._lstm_state_clip_nan = lstm_state_clip_nan
        self._use_sequence_length = use_sequence_length
        self._initializers = (
            i2h_weight_initializer,
            h2h_weight_initializer,
            i2h_bias_initializer,
            h2h_bias_initializer,
        )
        if layout not in ('TNC', 'NTC'):
            raise DLBookError(
                f"Invalid layout {layout}; must be one of ['TNC' or 'NTC']"
            )
        self._hidden_size = hidden_size
        self._num_layers = num_layers
        self._mode = mode
        self._layout = layout
        self._dropout = dropout
        self._dir = 2 if bidirectional else 1
        self._input_size = input_size
        self._dtype = dtype
        self._gates = {'rnn_relu': 1, 'rnn_tanh': 1, 'lstm': 4, 'gru': 3}[mode]
        rows, width = self._gates * hidden_size, input_size
        # features of the state fed back (and of each layer's output)
        recurrent = self._projection_size or hidden_size
        for i in range(num_layers):
            for j in 'lr'[: self._dir]:
                # width 0 (input_size unknown) is set from the first
                # input by infer_shape
                self._register_param(
                    f'{j}{i}_i2h_weight',
                    (rows, width),
                    i2h_weight_initializer,
                    dtype,
                )
                self._register_param(
                    f'{j}{i}_h2h_weight',
                    (rows, recurrent),
                    h2h_weight_initializer,
                    dtype,
                )
                self._register_param(
                    f'{j}{i}_i2h_bias', (rows,), i2h_bias_initializer, dtype
                )
                self._register_param(
                    f'{j}{i}_h2h_bias', (rows,), h2h_bias_initializer, dtype
                )
                if self._projection_size:  # registered last, as MXNet
                    self._register_param(
                        f'{j}{i}_h2r_weight',
                        (recurrent, hidden_size),
                        h2r_weight_initializer,
                        dtype,
                    )
            # the next layer reads both directions' outputs
            width = recurrent * self._dir

    def _register_param(self, name, shape, init, dtype):
        param = self.params.get(
            name, shape=shape, init=init, allow_deferred_init=True, dtype=dtype
        )
        setattr(self, name, param)
        return param

    def __repr__(self):
        extra = ''
        if self._num_layers != 1:
            extra += f', num_layers={self._num_layers}'
        if self._dropout != 0:
            extra += f', dropout={self._dropout}'
        if self._dir == 2:
            extra += ', bidirectional'
        rows, cols = self.l0_i2h_weight.shape
        mapping = f'{cols if cols else None} -> {rows // self._gates}'
        return f'{type(self).__name__}({mapping}, {self._layout}{extra})'

    def _collect_params_with_prefix(self, prefix=''):
        """Structural names as MXNet writes them for fused layers
        (``_unfused.0.i2h_weight``, bidirectional
        ``_unfused.0.l_cell.i2h_weight``), so ``.params`` files load in
        both."""
        if prefix:
            prefix += '.'
        bidirectional = self._dir == 2
        found = {}
        for key, param in self._reg_params.items():
            d, layer, proj, kind = _PARAM_KEY.match(key).groups()
            cell = f'{d}_cell.' if bidirectional else ''
            found[f'{prefix}_unfused.{layer}.{cell}{proj}_{kind}'] = param
        for name, child in self._children.items():
            found.update(child._collect_params_with_prefix(prefix + name))
        return found

    def state_info(self, batch_size=0):
        """One state for RNN and GRU (h), two for LSTM (h, c), each of
        shape ``(num_layers * num_directions, batch_size, hidden_size)``.
        """
        rows = self._num_layers * self._dir
        widths = [self._projection_size or self._hidden_size]
        if self._mode == 'lstm':  # LSTMP: h has P features, c has H
            widths.append(self._hidden_size)
        return [
            {
                'shape': (rows, batch_size, width),
                '__layout__': 'LNC',
                'dtype': self._dtype,
            }
            for width in widths
        ]

    def cast(self, dtype):
        super().cast(dtype)
        self._dtype = dtype

    def begin_state(self, batch_size=0, func=nd.zeros, **kwargs):
        """Initial states: a list of arrays of shape
        ``(num_layers * num_directions, batch_size, hidden_size)``, one
        for GRU and RNN, two (h, c) for LSTM.

        Parameters
        ----------
        batch_size : int
            Size of the batch (``N``).
        func : callable, default nd.zeros
            Called as ``func(name=..., shape=..., dtype=..., **kwargs)``.
        **kwargs
            More arguments for ``func``, such as ``ctx``.

        Examples
        --------
        >>> layer = rnn.LSTM(256, num_layers=2)
        >>> [s.shape for s in layer.begin_state(batch_size=32)]
        [(2, 32, 256), (2, 32, 256)]
        """
        states = []
        for i, info in enumerate(self.state_info(batch_size)):
            info = dict(info or {}, **kwargs)
            states.append(_new_state(func, f'{self.prefix}h0_{i}', info))
        return states

    def infer_shape(self, inputs, *args):
        """Set the input width of the first layer's ``i2h_weight`` from
        ``inputs`` (MXNet's ``_RNNLayer.infer_shape``); every other shape
        follows from ``hidden_size``."""
        if inputs.ndim != 3:
            raise DLBookError(
                f'{type(self).__name__}: input data should '
                f'be a rank-3 tensor of dim {self._layout}, '
                f'got shape {inputs.shape}'
            )
        width = inputs.shape[2]
        for i in range(self._num_layers):
            for j in 'lr'[: self._dir]:
                param = getattr(self, f'{j}{i}_i2h_weight')
                param.shape = (self._gates * self._hidden_size, width)
            width = (self._projection_size or self._hidden_size) * self._dir

    def _init_deferred_params(self, inputs):
        """Initialize parameters still waiting for the input width."""
        if any(p._deferred_init for p in self._reg_params.values()):
            self.infer_shape(inputs)
            for param in self._reg_params.values():
                param._finish_deferred_init()

    def __call__(self, inputs, states=None, sequence_length=None, **kwargs):
        # ``layer(x, sequence_length=lengths)``, as MXNet's signature
        if sequence_length is None:
            return super().__call__(inputs, states, **kwargs)
        return super().__call__(inputs, states, sequence_length, **kwargs)

    def forward(self, inputs, states=None, sequence_length=None):
        """Run the layer over a whole sequence.

        Parameters
        ----------
        inputs : NDArray
            ``(T, N, C)`` for layout 'TNC', ``(N, T, C)`` for 'NTC'.
        states : NDArray or list of NDArray, optional
            Initial states (see :meth:`begin_state`); zeros if omitted.

        Returns
        -------
        output : NDArray
            ``(T, N, D*H)`` (or ``(N, T, D*H)``): the last layer's hidden
            state at every step, both directions concatenated.
        new_states : list of NDArray
            The states after the last step, like ``states``.  Returned
            (as ``(output, new_states)``) only when ``states`` was given.
        """
        skip_states = states is None
        if isinstance(inputs, NDArray):
            self._init_deferred_params(inputs)
            if skip_states:
                batch_size = inputs.shape[self._layout.find('N')]
                states = self.begin_state(
                    batch_size, ctx=inputs.context, dtype=inputs.dtype
                )
        else:
            symbol = _symbol_module()
            if symbol is None or not isinstance(inputs, symbol.Symbol):
                raise DLBookError(
                    f'{type(self).__name__} expects '
                    f'NDArray or Symbol input, got '
                    f'{type(inputs).__name__}'
                )
            if skip_states:
                states = self._symbol_begin_state(symbol, inputs)
        if not isinstance(states, (list, tuple)):
            states = [states]
        if self._use_sequence_length:
            if sequence_length is None:
                raise DLBookError(
                    f'{type(self).__name__}: '
                    f'use_sequence_length=True needs '
                    f'sequence_length='
                )
            out = super().forward(inputs, list(states), sequence_length)
        else:
            # MXNet ignores sequence_length without use_sequence_length
            out = super().forward(inputs, list(states))
        return out[0] if skip_states else out

    def _unfuse(self):
        """The same network as a stack of cells sharing this layer's
        parameters (MXNet's ``_RNNLayer._unfuse``): one cell (or a
        :class:`BidirectionalCell`) per layer, ``l<k>_``/``r<k>_``
        prefixes, a :class:`DropoutCell` between layers."""
        from . import basic_cells, container_cells

        if self._lstm_state_clip_min is not None:
            raise DLBookError('_unfuse does not support state clipping yet!')
        hidden = self._hidden_size
        projection = self._projection_size
        make = {
            'rnn_relu': lambda **kw: basic_cells.RNNCell(
                hidden, activation='relu', **kw
            ),
            'rnn_tanh': lambda **kw: basic_cells.RNNCell(
                hidden, activation='tanh', **kw
            ),
            'lstm': lambda **kw: basic_cells.LSTMCell(hidden, **kw),
            # LSTMP: gluon.contrib's LSTMPCell (MXNet's _unfuse refuses)
            'lstmp': lambda **kw: _lstmp_cell(
                hidden, projection, self._h2r_weight_initializer, **kw
            ),
            'gru': lambda **kw: basic_cells.GRUCell(hidden, **kw),
        }['lstmp' if projection else self._mode]
        i2h_w, h2h_w, i2h_b, h2h_b = self._initializers
        stack = container_cells.HybridSequentialRNNCell(
            prefix=self.prefix, params=self.params
        )
        with stack.name_scope():
            width = self._input_size
            for i in range(self._num_layers):
                kwargs = {
                    'input_size': width,
                    'i2h_weight_initializer': i2h_w,
                    'h2h_weight_initializer': h2h_w,
                    'i2h_bias_initializer': i2h_b,
                    'h2h_bias_initializer': h2h_b,
                }
                if self._dir == 2:
                    stack.add(
                        container_cells.BidirectionalCell(
                            make(prefix=f'l{i}_', **kwargs),
                            make(prefix=f'r{i}_', **kwargs),
                        )
                    )
                else:
                    stack.add(make(prefix=f'l{i}_', **kwargs))
                if self._dropout > 0 and i != self._num_layers - 1:
                    stack.add(basic_cells.DropoutCell(self._dropout))
                width = (projection or hidden) * self._dir
        return stack

    def _symbol_begin_state(self, F, inputs):
        """Zero begin states for a symbolic ``inputs``, shaped from it.

        MXNet uses ``sym.zeros(shape=(L*D, 0, H))`` and lets shape
        inference fill in the batch size; dlbook's graphs run ``_zeros``
        with the shape it was given, so the zeros are cut from the data
        instead: ``(1, N, 1)`` zeros broadcast to ``(L*D, N, H)``.
        """
        time_axis = self._layout.find('T')
        x = F.slice_axis(inputs, axis=time_axis, begin=0, end=1)
        x = F.slice_axis(x, axis=2, begin=0, end=1)
        if time_axis != 0:
            x = F.swapaxes(x, dim1=0, dim2=1)
        zeros = F.zeros_like(x)  # (1, N, 1)
        return [
            F.broadcast_axis(
                zeros, axis=(0, 2), size=(info['shape'][0], info['shape'][2])
            )
            for info in self.state_info()
        ]

    def hybrid_forward(
        self, F, inputs, states, sequence_length=None, **params
    ):
        if F is nd:
            batch_size = inputs.shape[self._layout.find('N')]
            for state, info in zip(states, self.state_info(batch_size)):
                if state.shape != info['shape']:
                    raise ValueError(
                        f"Invalid recurrent state shape. "
                        f"Expecting {info['shape']}, got "
                        f"{state.shape}."
                    )
        if self._layout == 'NTC':
            inputs = F.swapaxes(inputs, dim1=0, dim2=1)
        # MXNet's packing: every weight, then every bias; each ordered by
        # layer, direction and i2h, h2h (, h2r: a weight without bias)
        flat = [
            F.Reshape(params[f'{d}{layer}_{proj}_{kind}'], shape=(-1,))
            for kind in ('weight', 'bias')
            for layer in range(self._num_layers)
            for d in 'lr'[: self._dir]
            for proj in ('i2h', 'h2h', 'h2r')
            if f'{d}{layer}_{proj}_{kind}' in params
        ]
        lengths = [] if sequence_length is None else [sequence_length]
        extra = {}
        if self._projection_size:
            extra['projection_size'] = self._projection_size
        if self._lstm_state_clip_min is not None or (
            self._lstm_state_clip_max is not None
        ):
            extra['lstm_state_clip_min'] = self._lstm_state_clip_min
            extra['lstm_state_clip_max'] = self._lstm_state_clip_max
            extra['lstm_state_clip_nan'] = self._lstm_state_clip_nan
        rnn = F.RNN(
            inputs,
            F.concat(*flat, dim=0),
            *states,
            *lengths,
            use_sequence_length=sequence_length is not None,
            state_size=self._hidden_size,
            num_layers=self._num_layers,
            bidirectional=self._dir == 2,
            p=self._dropout,
            state_outputs=True,
            mode=self._mode,
            **extra,
        )
        outputs = rnn[0]
        states = [rnn[i] for i in range(1, 1 + len(states))]
        if self._layout == 'NTC':
            outputs = F.swapaxes(outputs, dim1=0, dim2=1)
        return outputs, states


def _lstmp_cell(hidden, projection, h2r_weight_initializer, **kwargs):
    from ..contrib.rnn import LSTMPCell

    return LSTMPCell(
        hidden,
        projection,
        h2r_weight_initializer=h2r_weight_initializer,
        **kwargs,
    )


class RNN(_RNNLayer):
    r"""Multi-layer Elman RNN with tanh or ReLU.

    Each layer computes, at each step ``t``::

        h_t = act(W_i2h x_t + b_i2h + W_h2h h_{t-1} + b_h2h)

    where ``x_t`` is the input for the first layer and the previous
    layer's output ``h_t`` above it.

    Parameters
    ----------
    hidden_size : int
        Number of features H of the hidden state.
    num_layers : int, default 1
    activation : {'relu', 'tanh'}, default 'relu'
    layout : {'TNC', 'NTC'}, default 'TNC'
        Layout of inputs and outputs (T time, N batch, C features).
    dropout : float, default 0
        Dropout on each layer's outputs except the last (training only).
    bidirectional : bool, default False
        Add a layer reading the sequence backwards; outputs are
        concatenated, ``(T, N, 2H)``.
    i2h_weight_initializer, h2h_weight_initializer : Initializer
    i2h_bias_initializer, h2h_bias_initializer : default 'zeros'
    input_size : int, default 0
        C; 0 infers it from the first input.
    dtype : str, default 'float32'
    prefix, params : see Block

    Inputs: ``data (T, N, C)`` and optionally ``states``, a list of one
    ``(L*D, N, H)`` array.  Outputs: ``out (T, N, D*H)`` and, only if
    states were given, ``out_states``.

    Examples
    --------
    >>> layer = rnn.RNN(100, 3)
    >>> layer.initialize()
    >>> x = nd.random.uniform(shape=(5, 3, 10))
    >>> output = layer(x)                      # zeros as begin state
    >>> h0 = nd.random.uniform(shape=(3, 3, 100))
    >>> output, hn = layer(x, h0)
    """

    def __init__(
        self,
        hidden_size,
        num_layers=1,
        activation='relu',
        layout='TNC',
        dropout=0,
        bidirectional=False,
        i2h_weight_initializer=None,
        h2h_weight_initializer=None,
        i2h_bias_initializer='zeros',
        h2h_bias_initializer='zeros',
        input_size=0,
        dtype='float32',
        **kwargs,
    ):
        super().__init__(
            hidden_size,
            num_layers,
            layout,
            dropout,
            bidirectional,
            input_size,
            i2h_weight_initializer,
            h2h_weight_initializer,
            i2h_bias_initializer,
            h2h_bias_initializer,
            'rnn_' + activation,
            dtype,
            **kwargs,
        )


class LSTM(_RNNLayer):
    r"""Multi-layer long short-term memory (LSTM) RNN.

    Each layer computes, at each step ``t``::

        i_t = sigmoid(W_ii x_t + b_ii + W_hi h_{t-1} + b_hi)   # input gate
        f_t = sigmoid(W_if x_t + b_if + W_hf h_{t-1} + b_hf)   # forget gate
        g_t = tanh(W_ig x_t + b_ig + W_hg h_{t-1} + b_hg)      # candidate
        o_t = sigmoid(W_io x_t + b_io + W_ho h_{t-1} + b_ho)   # output gate
        c_t = f_t * c_{t-1} + i_t * g_t
        h_t = o_t * tanh(c_t)

    ``i2h_weight`` stacks the four ``(H, C)`` blocks in the order i, f, g,
    o.

    Parameters
    ----------
    hidden_size : int
        Number of features H of the hidden state.
    num_layers : int, default 1
    layout : {'TNC', 'NTC'}, default 'TNC'
    dropout : float, default 0
        Dropout on each layer's outputs except the last (training only).
    bidirectional : bool, default False
    input_size : int, default 0
        C; 0 infers it from the first input.
    i2h_weight_initializer, h2h_weight_initializer : Initializer
    i2h_bias_initializer, h2h_bias_initializer : default 'zeros'
    projection_size : int, optional
        LSTMP (Sak et al., 2014): the state fed back and output is
        ``r_t = W_h2r h_t`` with ``projection_size`` features ``P <= H``
        instead of ``h_t``.  Adds ``h2r_weight`` ``(P, H)`` per layer and
        direction; ``h2h_weight`` is then ``(4H, P)``.
    h2r_weight_initializer : Initializer
    state_clip_min, state_clip_max : float, optional
        Clip the cell state ``c_t`` to this range after each step (both
        or neither); no gradient flows where it was clipped.
    state_clip_nan : bool, default False
        Whether NaN cell states become the clip bounds too.
    dtype : str, default 'float32'
    prefix, params : see Block

    Inputs: ``data (T, N, C)`` and optionally ``states`` = ``[h0, c0]``,
    each ``(L*D, N, H)``.  Outputs: ``out (T, N, D*H)`` and, only if
    states were given, ``[h_T, c_T]``.  With a projection ``h0``, ``h_T``
    are ``(L*D, N, P)`` and ``out`` is ``(T, N, D*P)``.

    Examples
    --------
    >>> layer = rnn.LSTM(100, 3)
    >>> layer.initialize()
    >>> x = nd.random.uniform(shape=(5, 3, 10))
    >>> h0 = nd.random.uniform(shape=(3, 3, 100))
    >>> c0 = nd.random.uniform(shape=(3, 3, 100))
    >>> output, (hn, cn) = layer(x, [h0, c0])
    """

    def __init__(
        self,
        hidden_size,
        num_layers=1,
        layout='TNC',
        dropout=0,
        bidirectional=False,
        input_size=0,
        i2h_weight_initializer=None,
        h2h_weight_initializer=None,
        i2h_bias_initializer='zeros',
        h2h_bias_initializer='zeros',
        projection_size=None,
        h2r_weight_initializer=None,
        state_clip_min=None,
        state_clip_max=None,
        state_clip_nan=False,
        dtype='float32',
        **kwargs,
    ):
        super().__init__(
            hidden_size,
            num_layers,
            layout,
            dropout,
            bidirectional,
            input_size,
            i2h_weight_initializer,
            h2h_weight_initializer,
            i2h_bias_initializer,
            h2h_bias_initializer,
            'lstm',
            dtype,
            projection_size=projection_size,
            h2r_weight_initializer=h2r_weight_initializer,
            lstm_state_clip_min=state_clip_min,
            lstm_state_clip_max=state_clip_max,
            lstm_state_clip_nan=state_clip_nan,
            **kwargs,
        )


class GRU(_RNNLayer):
    r"""Multi-layer gated recurrent unit (GRU) RNN, cuDNN's variant (the
    reset gate scales ``W_hn h + b_hn`` after the product).

    Each layer computes, at each step ``t``::

        r_t = sigmoid(W_ir x_t + b_ir + W_hr h_{t-1} + b_hr)   # reset
        z_t = sigmoid(W_iz x_t + b_iz + W_hz h_{t-1} + b_hz)   # update
        n_t = tanh(W_in x_t + b_in + r_t * (W_hn h_{t-1} + b_hn))
        h_t = (1 - z_t) * n_t + z_t * h_{t-1}

    Parameters
    ----------
    hidden_size : int
        Number of features H of the hidden state.
    num_layers : int, default 1
    layout : {'TNC', 'NTC'}, default 'TNC'
    dropout : float, default 0
        Dropout on each layer's outputs except the last (training only).
    bidirectional : bool, default False
    input_size : int, default 0
        C; 0 infers it from the first input.
    i2h_weight_initializer, h2h_weight_initializer : Initializer
    i2h_bias_initializer, h2h_bias_initializer : default 'zeros'
    dtype : str, default 'float32'
    prefix, params : see Block

    Inputs: ``data (T, N, C)`` and optionally ``states``, a list of one
    ``(L*D, N, H)`` array.  Outputs: ``out (T, N, D*H)`` and, only if
    states were given, ``out_states``.

    Examples
    --------
    >>> layer = rnn.GRU(100, 3)
    >>> layer.initialize()
    >>> x = nd.random.uniform(shape=(5, 3, 10))
    >>> output, hn = layer(x, nd.zeros((3, 3, 100)))
    """

    def __init__(
        self,
        hidden_size,
        num_layers=1,
        layout='TNC',
        dropout=0,
        bidirectional=False,
        input_size=0,
        i2h_weight_initializer=None,
        h2h_weight_initializer=None,
        i2h_bias_initializer='zeros',
        h2h_bias_initializer='zeros',
        dtype='float32',
        **kwargs,
    ):
        super().__init__(
            hidden_size,
            num_layers,
            layout,
            dropout,
            bidirectional,
            input_size,
            i2h_weight_initializer,
            h2h_weight_initializer,
            i2h_bias_initializer,
            h2h_bias_initializer,
            'gru',
            dtype,
            **kwargs,
        )
