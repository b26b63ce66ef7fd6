"""Recurrent layers: ``rnn.RNN``, ``rnn.LSTM`` and ``rnn.GRU``.

A layer runs a whole sequence through ``num_layers`` stacked recurrent
layers (each optionally bidirectional) in one call: ``(T, N, C)`` in,
``(T, N, D*H)`` out, with states of shape ``(L*D, N, H)`` (``L`` layers,
``D`` = 2 directions if bidirectional, else 1).  Parameters and results
are those of MXNet 1.x's fused (cuDNN-style) layers.

MXNet computes the layer with one fused ``RNN`` operator.  Here it is
written out: a Python loop over layers, directions and time steps, each
step one call of the cell step functions of ``steps.py`` on the whole
batch.  The input projection does not depend on the previous step, so it
is done for all steps at once: one ``(T*N, C) x (C, G*H)`` product per
layer and direction instead of ``T`` small ones.  Only the recurrent
product ``h_{t-1} W_h2h^T`` has to wait for the previous step.
"""

import re

from ... import ndarray as nd
from ...base import DLBookError
from ...ndarray.ndarray import NDArray
from ...ops import REGISTRY
from ..block import HybridBlock
from .base_cell import _new_state, _symbol_module, _unstack
from .steps import gru_step, lstm_step, rnn_step

__all__ = ['RNN', 'LSTM', 'GRU']

# key of a fused parameter: direction, layer, projection, kind
_PARAM_KEY = re.compile(r'(l|r)(\d+)_(i2h|h2h)_(weight|bias)\Z')


class _RNNLayer(HybridBlock):
    """Shared implementation of the recurrent layers.

    Parameters are ``{d}{k}_{i2h|h2h}_{weight|bias}`` for direction
    ``d`` in ``l`` (forward in time) / ``r`` (backward) and layer ``k``:
    ``lstm0_l0_i2h_weight`` has shape ``(G*H, C)`` with ``G`` the number of
    gates (1 RNN, 3 GRU, 4 LSTM).
    """

    def __init__(self, hidden_size, num_layers, layout, dropout,
                 bidirectional, input_size, i2h_weight_initializer,
                 h2h_weight_initializer, i2h_bias_initializer,
                 h2h_bias_initializer, mode, dtype='float32', **kwargs):
        super().__init__(**kwargs)
        if layout not in ('TNC', 'NTC'):
            raise DLBookError(f"Invalid layout {layout}; must be one of "
                              f"['TNC' or 'NTC']")
        self._hidden_size = hidden_size
        self._num_layers = num_layers
        self._mode = mode
        self._layout = layout
        self._dropout = dropout
        self._dir = 2 if bidirectional else 1
        self._input_size = input_size
        self._dtype = dtype
        self._gates = {'rnn_relu': 1, 'rnn_tanh': 1, 'lstm': 4,
                       'gru': 3}[mode]
        rows, width = self._gates * hidden_size, input_size
        for i in range(num_layers):
            for j in 'lr'[:self._dir]:
                # width 0 (input_size unknown) is inferred by the first
                # FullyConnected that uses the weight
                self._register_param(f'{j}{i}_i2h_weight', (rows, width),
                                     i2h_weight_initializer, dtype)
                self._register_param(f'{j}{i}_h2h_weight',
                                     (rows, hidden_size),
                                     h2h_weight_initializer, dtype)
                self._register_param(f'{j}{i}_i2h_bias', (rows,),
                                     i2h_bias_initializer, dtype)
                self._register_param(f'{j}{i}_h2h_bias', (rows,),
                                     h2h_bias_initializer, dtype)
            # the next layer reads both directions' outputs
            width = hidden_size * self._dir

    def _register_param(self, name, shape, init, dtype):
        param = self.params.get(name, shape=shape, init=init,
                                allow_deferred_init=True, dtype=dtype)
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
        shape = (self._num_layers * self._dir, batch_size, self._hidden_size)
        num_states = 2 if self._mode == 'lstm' else 1
        return [{'shape': shape, '__layout__': 'LNC', 'dtype': self._dtype}
                for _ in range(num_states)]

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

    def forward(self, inputs, states=None):
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
        if skip_states:
            if isinstance(inputs, NDArray):
                batch_size = inputs.shape[self._layout.find('N')]
                states = self.begin_state(batch_size, ctx=inputs.context,
                                          dtype=inputs.dtype)
            else:
                symbol = _symbol_module()
                if symbol is None or not isinstance(inputs, symbol.Symbol):
                    raise DLBookError(f'{type(self).__name__} expects '
                                      f'NDArray or Symbol input, got '
                                      f'{type(inputs).__name__}')
                states = self.begin_state(0, func=symbol.zeros)
        if not isinstance(states, (list, tuple)):
            states = [states]
        out = super().forward(inputs, list(states))
        return out[0] if skip_states else out

    def _call_cached_op(self, *args):
        # A graph of this layer needs the fused RNN operator; until dlbook
        # has one, a hybridized layer keeps running eagerly.
        if 'RNN' not in REGISTRY:
            return NotImplemented
        return super()._call_cached_op(*args)

    def hybrid_forward(self, F, inputs, states, **params):
        if F is not nd:
            return self._forward_fused(F, inputs, states, params)
        batch_size = inputs.shape[self._layout.find('N')]
        for state, info in zip(states, self.state_info(batch_size)):
            if state.shape != info['shape']:
                raise ValueError(f"Invalid recurrent state shape. Expecting "
                                 f"{info['shape']}, got {state.shape}.")
        return self._forward_steps(F, inputs, states, params)

    # -- the computation -----------------------------------------------------
    def _forward_steps(self, F, inputs, states, params):
        """Layer by layer, direction by direction, step by step."""
        if self._layout == 'NTC':
            inputs = F.swapaxes(inputs, dim1=0, dim2=1)
        num_slots = self._num_layers * self._dir
        # state k = layer * D + direction, as in MXNet and cuDNN
        begin = [_unstack(F, s, num_slots) for s in states]
        final = [[] for _ in states]
        x = inputs
        for layer in range(self._num_layers):
            outputs = []
            for d, direction in enumerate('lr'[:self._dir]):
                k = layer * self._dir + d
                name = f'{direction}{layer}_'
                out, last = self._run_direction(
                    F, x, [s[k] for s in begin],
                    params[name + 'i2h_weight'], params[name + 'i2h_bias'],
                    params[name + 'h2h_weight'], params[name + 'h2h_bias'],
                    reverse=d == 1)
                outputs.append(out)
                for acc, s in zip(final, last):
                    acc.append(s)
            x = outputs[0] if len(outputs) == 1 else \
                F.concat(*outputs, dim=2)
            if self._dropout and layer < self._num_layers - 1:
                # between layers only; F.Dropout is the identity outside
                # training mode
                x = F.Dropout(x, p=self._dropout)
        if self._layout == 'NTC':
            x = F.swapaxes(x, dim1=0, dim2=1)
        return x, [F.stack(*acc, axis=0) for acc in final]

    def _run_direction(self, F, x, states, i2h_weight, i2h_bias, h2h_weight,
                       h2h_bias, reverse):
        """One layer in one direction over ``x (T, N, C)``; returns the
        outputs ``(T, N, H)`` (in input order) and the last states."""
        rows = self._gates * self._hidden_size
        num_steps = x.shape[0]
        # the input projection of every step in one product: (T, N, G*H)
        i2h = F.FullyConnected(x, i2h_weight, i2h_bias, num_hidden=rows,
                               flatten=False)
        i2h = _unstack(F, i2h, num_steps)
        steps = range(num_steps - 1, -1, -1) if reverse else \
            range(num_steps)
        outputs = [None] * num_steps
        for t in steps:
            h2h = F.FullyConnected(states[0], h2h_weight, h2h_bias,
                                   num_hidden=rows)
            outputs[t], states = self._step(F, i2h[t], h2h, states)
        return F.stack(*outputs, axis=0), states

    def _step(self, F, i2h, h2h, states):
        if self._mode == 'lstm':
            return lstm_step(F, i2h, h2h, states)
        if self._mode == 'gru':
            return gru_step(F, i2h, h2h, states)
        return rnn_step(F, i2h, h2h, states, self._mode[len('rnn_'):])

    def _forward_fused(self, F, inputs, states, params):
        """A symbolic graph holds MXNet's one fused ``RNN`` node; its
        parameter vector packs every weight, then every bias, ordered by
        layer, direction and i2h/h2h."""
        if not hasattr(F, 'RNN'):
            raise DLBookError(
                f'{type(self).__name__}: a symbolic graph of a recurrent '
                f'layer needs the fused RNN operator, which dlbook does not '
                f'provide yet; call the layer on NDArrays without '
                f'hybridize().')
        if self._layout == 'NTC':
            inputs = F.swapaxes(inputs, dim1=0, dim2=1)
        flat = [F.reshape(params[f'{d}{layer}_{proj}_{kind}'], shape=(-1,))
                for kind in ('weight', 'bias')
                for layer in range(self._num_layers)
                for d in 'lr'[:self._dir]
                for proj in ('i2h', 'h2h')]
        rnn = F.RNN(inputs, F.concat(*flat, dim=0), *states,
                    state_size=self._hidden_size,
                    num_layers=self._num_layers,
                    bidirectional=self._dir == 2, p=self._dropout,
                    state_outputs=True, mode=self._mode)
        outputs = rnn[0]
        states = [rnn[1], rnn[2]] if self._mode == 'lstm' else [rnn[1]]
        if self._layout == 'NTC':
            outputs = F.swapaxes(outputs, dim1=0, dim2=1)
        return outputs, states


def _no_projection(name, projection_size, state_clip_min, state_clip_max,
                   state_clip_nan):
    if projection_size or state_clip_min is not None or \
            state_clip_max is not None or state_clip_nan:
        raise DLBookError(f'{name}: projection_size and state clipping '
                          f'(LSTMP) are not supported by dlbook')


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

    def __init__(self, hidden_size, num_layers=1, activation='relu',
                 layout='TNC', dropout=0, bidirectional=False,
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 input_size=0, dtype='float32', **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout,
                         bidirectional, input_size, i2h_weight_initializer,
                         h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, 'rnn_' + activation, dtype,
                         **kwargs)


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
    projection_size, h2r_weight_initializer, state_clip_min,
    state_clip_max, state_clip_nan
        MXNet's LSTMP options; not supported.
    dtype : str, default 'float32'
    prefix, params : see Block

    Inputs: ``data (T, N, C)`` and optionally ``states`` = ``[h0, c0]``,
    each ``(L*D, N, H)``.  Outputs: ``out (T, N, D*H)`` and, only if
    states were given, ``[h_T, c_T]``.

    Examples
    --------
    >>> layer = rnn.LSTM(100, 3)
    >>> layer.initialize()
    >>> x = nd.random.uniform(shape=(5, 3, 10))
    >>> h0 = nd.random.uniform(shape=(3, 3, 100))
    >>> c0 = nd.random.uniform(shape=(3, 3, 100))
    >>> output, (hn, cn) = layer(x, [h0, c0])
    """

    def __init__(self, hidden_size, num_layers=1, layout='TNC', dropout=0,
                 bidirectional=False, input_size=0,
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 projection_size=None, h2r_weight_initializer=None,
                 state_clip_min=None, state_clip_max=None,
                 state_clip_nan=False, dtype='float32', **kwargs):
        _no_projection('LSTM', projection_size, state_clip_min,
                       state_clip_max, state_clip_nan)
        super().__init__(hidden_size, num_layers, layout, dropout,
                         bidirectional, input_size, i2h_weight_initializer,
                         h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, 'lstm', dtype, **kwargs)


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

    def __init__(self, hidden_size, num_layers=1, layout='TNC', dropout=0,
                 bidirectional=False, input_size=0,
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 dtype='float32', **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout,
                         bidirectional, input_size, i2h_weight_initializer,
                         h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, 'gru', dtype, **kwargs)
