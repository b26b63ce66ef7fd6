"""Symbolic recurrent cells: ``mx.rnn.LSTMCell`` and friends (MXNet 1.x).

A *cell* builds the graph of one time step of a recurrent network out of
ordinary symbols (``FullyConnected``, ``SliceChannel``, ``Activation``...).
Calling it once, ``output, states = cell(x_t, states)``, adds one step;
:meth:`BaseRNNCell.unroll` calls it ``length`` times on the slices of a
sequence, sharing the same weight variables between the steps::

    cell = mx.rnn.LSTMCell(num_hidden=100, prefix='lstm_')
    data = mx.sym.var('data')                     # (batch, T, C)
    outputs, states = cell.unroll(T, data, layout='NTC', merge_outputs=True)
    outputs.list_arguments()
    # ['data', 'lstm_i2h_weight', 'lstm_i2h_bias',
    #  'lstm_h2h_weight', 'lstm_h2h_bias']

Names follow MXNet exactly, because saved checkpoints depend on them:
weights are ``<prefix>i2h_weight`` (input to hidden) and
``<prefix>h2h_weight`` (hidden to hidden), the gates of all steps stacked
in one matrix; the nodes of step ``t`` are named ``<prefix>t<t>_...``
(``lstm_t2_out`` is the output of the third step); the begin states are
``<prefix>begin_state_<k>``.

The cells here:

* :class:`RNNCell`, :class:`LSTMCell`, :class:`GRUCell`: one layer,
  stepped with plain operators (runs anywhere);
* :class:`FusedRNNCell`: a whole multi-layer, maybe bidirectional stack
  as one ``RNN`` operator, its weights in a single ``parameters`` vector;
  :meth:`FusedRNNCell.unfuse` gives the equivalent stack of plain cells;
* :class:`SequentialRNNCell` stacks cells, :class:`BidirectionalCell`
  runs one cell forward and one backward in time;
* modifiers wrap a cell: :class:`DropoutCell` (dropout on the input),
  :class:`ZoneoutCell`, :class:`ResidualCell`;
* :class:`ConvRNNCell`, :class:`ConvLSTMCell`, :class:`ConvGRUCell`:
  the same gates with convolutions instead of matrix products.

This is ``apache/mxnet@1.9.1:python/mxnet/rnn/rnn_cell.py``, ported to
dlbook's symbols.  The Gluon cells (``mx.gluon.rnn``) compute the same
thing imperatively.
"""

import functools
import json
import numbers
import warnings

from .. import initializer, ndarray, symbol

__all__ = [
    'RNNParams',
    'BaseRNNCell',
    'RNNCell',
    'LSTMCell',
    'GRUCell',
    'FusedRNNCell',
    'SequentialRNNCell',
    'DropoutCell',
    'ModifierCell',
    'ZoneoutCell',
    'ResidualCell',
    'BidirectionalCell',
    'BaseConvRNNCell',
    'ConvRNNCell',
    'ConvLSTMCell',
    'ConvGRUCell',
]


def _cells_state_info(cells):
    return sum([c.state_info for c in cells], [])


def _cells_begin_state(cells, **kwargs):
    return sum([c.begin_state(**kwargs) for c in cells], [])


def _cells_unpack_weights(cells, args):
    for cell in cells:
        args = cell.unpack_weights(args)
    return args


def _cells_pack_weights(cells, args):
    for cell in cells:
        args = cell.pack_weights(args)
    return args


def _normalize_sequence(length, inputs, layout, merge):
    """Bring a sequence to the form a cell wants.

    ``inputs`` is either one symbol holding the whole sequence (time on
    the axis where ``layout`` has its ``T``) or a list of ``length``
    per-step symbols.  ``merge=False`` asks for the list (a single symbol
    is split along time, the time axis squeezed away), ``merge=True`` for
    the single symbol (the steps are stacked along time), ``merge=None``
    keeps what was given.

    Returns the sequence and the time axis.
    """
    if inputs is None:
        raise ValueError(
            'unroll(inputs=None) has been deprecated. '
            'Please create input variables outside unroll.'
        )
    axis = layout.find('T')
    if isinstance(inputs, symbol.Symbol):
        if merge is False:
            if len(inputs.list_outputs()) != 1:
                raise ValueError(
                    "unroll doesn't allow grouped symbol as input. Please "
                    'convert to list with list(inputs) first or let unroll '
                    'handle splitting.'
                )
            inputs = list(
                symbol.split(
                    inputs, axis=axis, num_outputs=length, squeeze_axis=1
                )
            )
    else:
        if length is not None and len(inputs) != length:
            raise ValueError(
                f'unroll: got {len(inputs)} inputs for length {length}'
            )
        if merge is True:
            inputs = [symbol.expand_dims(i, axis=axis) for i in inputs]
            inputs = symbol.Concat(*inputs, dim=axis)
    return inputs, axis


class RNNParams:
    """The weight variables of a cell, by name, for sharing.

    ``get(name)`` returns the variable ``prefix + name``, creating it the
    first time.  Two cells given the same ``RNNParams`` use the same
    weights (an encoder and a decoder sharing one LSTM, say).

    Parameters
    ----------
    prefix : str
        Prepended to the name of every variable made here.
    """

    def __init__(self, prefix=''):
        self._prefix = prefix
        self._params = {}

    def get(self, name, **kwargs):
        """The variable ``prefix + name``, created if missing.

        Parameters
        ----------
        name : str
            Name of the variable, without the prefix.
        **kwargs :
            Passed to ``symbol.Variable`` when it is created (``init``,
            ``shape``...).
        """
        name = self._prefix + name
        if name not in self._params:
            self._params[name] = symbol.Variable(name, **kwargs)
        return self._params[name]


class BaseRNNCell:
    """Base class of the symbolic recurrent cells.

    A subclass defines :meth:`__call__` (one step) and :attr:`state_info`
    (the shapes of its states); this class adds :meth:`begin_state`,
    :meth:`unroll` and the weight (un)packing.

    Parameters
    ----------
    prefix : str, optional
        Prefix of the names of the step nodes, and of the weights when
        ``params`` is None.
    params : RNNParams, optional
        Shared weights; a new container with ``prefix`` is made if None.
    """

    def __init__(self, prefix='', params=None):
        if params is None:
            params = RNNParams(prefix)
            self._own_params = True
        else:
            self._own_params = False
        self._prefix = prefix
        self._params = params
        self._modified = False
        self.reset()

    def reset(self):
        """Restart the step counters, before building another graph.

        Steps are numbered from 0 again (``lstm_t0_...``), and so are the
        begin states.  :meth:`unroll` calls this itself.
        """
        self._init_counter = -1
        self._counter = -1
        for cell in getattr(self, '_cells', ()):
            cell.reset()

    def __call__(self, inputs, states):
        """Add one time step to the graph.

        Parameters
        ----------
        inputs : Symbol
            The input of this step, ``(batch, num_inputs)``.
        states : list of Symbol
            The states after the previous step, or :meth:`begin_state`.

        Returns
        -------
        output : Symbol
            The output of this step.
        states : list of Symbol
            The new states, to give to the next step.
        """
        raise NotImplementedError()

    @property
    def params(self):
        """The :class:`RNNParams` holding this cell's weights.

        Reading it marks the container as shared: a cell whose params
        were handed to someone else can no longer be given other params
        by a :class:`SequentialRNNCell` or :class:`BidirectionalCell`.
        """
        self._own_params = False
        return self._params

    @property
    def state_info(self):
        """One dict per state: ``{'shape': ..., '__layout__': ...}``; a 0
        in the shape (the batch size) is left to shape inference."""
        raise NotImplementedError()

    @property
    def state_shape(self):
        """The shape of each state."""
        return [ele['shape'] for ele in self.state_info]

    @property
    def _gate_names(self):
        """Suffixes of the gates stacked in the weights, in order
        (``'_i', '_f', '_c', '_o'`` for an LSTM); see
        :meth:`unpack_weights`."""
        return ()

    def begin_state(self, func=symbol.zeros, **kwargs):
        """The states before the first step.

        Parameters
        ----------
        func : callable, default ``symbol.zeros``
            Makes each state from ``name``, ``shape``, ``__layout__`` and
            ``kwargs``.  ``symbol.zeros`` starts from zero;
            ``symbol.Variable`` makes the states inputs of the graph
            (to carry them over from the previous batch, say).
        **kwargs :
            Passed on to ``func`` (``dtype``...).

        Returns
        -------
        list of Symbol
            Named ``<prefix>begin_state_<k>``, ``k`` counting from 0
            since the last :meth:`reset`.
        """
        if self._modified:
            raise RuntimeError(
                'After applying modifier cells (e.g. DropoutCell) the base '
                'cell cannot be called directly. Call the modifier cell '
                'instead.'
            )
        states = []
        for info in self.state_info:
            self._init_counter += 1
            if info is not None:
                kwargs.update(info)
            name = '%sbegin_state_%d' % (self._prefix, self._init_counter)
            states.append(func(name=name, **kwargs))
        return states

    def unpack_weights(self, args):
        """Split each stacked weight into one array per gate.

        ``lstm_i2h_weight`` ``(4*H, C)`` becomes ``lstm_i2h_i_weight``,
        ``lstm_i2h_f_weight``, ``lstm_i2h_c_weight`` and
        ``lstm_i2h_o_weight``, each ``(H, C)``; the same for the ``h2h``
        weight and both biases.  Used before saving, so that checkpoints
        read the same whatever cell (fused or not) made them.

        Parameters
        ----------
        args : dict of str to NDArray
            Parameters, e.g. ``Module.get_params()[0]``.

        Returns
        -------
        dict of str to NDArray
            A new dict, this cell's weights unpacked (copies).
        """
        args = args.copy()
        if not self._gate_names:
            return args
        h = self._num_hidden
        for group_name in ['i2h', 'h2h']:
            weight = args.pop('%s%s_weight' % (self._prefix, group_name))
            bias = args.pop('%s%s_bias' % (self._prefix, group_name))
            for j, gate in enumerate(self._gate_names):
                wname = '%s%s%s_weight' % (self._prefix, group_name, gate)
                args[wname] = weight[j * h : (j + 1) * h].copy()
                bname = '%s%s%s_bias' % (self._prefix, group_name, gate)
                args[bname] = bias[j * h : (j + 1) * h].copy()
        return args

    def pack_weights(self, args):
        """The inverse of :meth:`unpack_weights`: stack the per-gate
        arrays back into this cell's weights (a new dict)."""
        args = args.copy()
        if not self._gate_names:
            return args
        for group_name in ['i2h', 'h2h']:
            weight = []
            bias = []
            for gate in self._gate_names:
                wname = '%s%s%s_weight' % (self._prefix, group_name, gate)
                weight.append(args.pop(wname))
                bname = '%s%s%s_bias' % (self._prefix, group_name, gate)
                bias.append(args.pop(bname))
            args['%s%s_weight' % (self._prefix, group_name)] = (
                ndarray.concatenate(weight)
            )
            args['%s%s_bias' % (self._prefix, group_name)] = (
                ndarray.concatenate(bias)
            )
        return args

    def unroll(
        self,
        length,
        inputs,
        begin_state=None,
        layout='NTC',
        merge_outputs=None,
    ):
        """Add ``length`` steps to the graph.

        Parameters
        ----------
        length : int
            Number of steps.
        inputs : Symbol or list of Symbol
            The whole sequence as one symbol, ``(batch, length, ...)``
            for layout ``'NTC'`` or ``(length, batch, ...)`` for
            ``'TNC'`` (an ``Embedding``'s output, say), or a list of
            ``length`` symbols ``(batch, ...)`` (another unroll's
            outputs).
        begin_state : list of Symbol, optional
            The states before the first step; :meth:`begin_state` if None.
        layout : str, default ``'NTC'``
            Where the time axis is, in ``inputs`` and merged outputs.
        merge_outputs : bool, optional
            True: the outputs as one symbol, time on the ``layout`` axis;
            False: a list of one symbol per step; None: whichever the
            cell makes anyway (a list, for the stepped cells).

        Returns
        -------
        outputs : Symbol or list of Symbol
        states : list of Symbol
            The states after the last step.
        """
        self.reset()
        inputs, _ = _normalize_sequence(length, inputs, layout, False)
        if begin_state is None:
            begin_state = self.begin_state()
        states = begin_state
        outputs = []
        for i in range(length):
            output, states = self(inputs[i], states)
            outputs.append(output)
        outputs, _ = _normalize_sequence(
            length, outputs, layout, merge_outputs
        )
        return outputs, states

    def _get_activation(self, inputs, activation, **kwargs):
        """``activation`` applied to ``inputs``: a name (``'tanh'``) is
        an ``Activation`` node, anything else is called."""
        if isinstance(activation, str):
            return symbol.Activation(inputs, act_type=activation, **kwargs)
        return activation(inputs, **kwargs)

    def _lstm_step(self, gates, prev_c, name, activation='tanh', axis=None):
        """``(next_h, next_c)`` of an LSTM from its summed gate inputs
        ``gates`` (``i2h + h2h``, four gates along ``axis``)::

            i, f, o = sigmoid(...), c~ = act(...)
            next_c = f * prev_c + i * c~;   next_h = o * act(next_c)

        with MXNet's node names (``<name>i``, ``<name>state``...)."""
        where = {} if axis is None else {'axis': axis}
        sliced = symbol.SliceChannel(
            gates, num_outputs=4, name='%sslice' % name, **where
        )
        in_gate = symbol.Activation(
            sliced[0], act_type='sigmoid', name='%si' % name
        )
        forget_gate = symbol.Activation(
            sliced[1], act_type='sigmoid', name='%sf' % name
        )
        in_transform = self._get_activation(
            sliced[2], activation, name='%sc' % name
        )
        out_gate = symbol.Activation(
            sliced[3], act_type='sigmoid', name='%so' % name
        )
        next_c = symbol._plus(
            forget_gate * prev_c, in_gate * in_transform, name='%sstate' % name
        )
        next_h = symbol._mul(
            out_gate,
            self._get_activation(next_c, activation),
            name='%sout' % name,
        )
        return next_h, next_c

    def _gru_step(self, i2h, h2h, prev_h, name, activation='tanh'):
        """``next_h`` of a GRU from its input and state projections (three
        gates each)::

            r, z = sigmoid(i2h_r + h2h_r), sigmoid(i2h_z + h2h_z)
            h~ = act(i2h + r * h2h);   next_h = (1 - z) * h~ + z * prev_h
        """
        i2h_r, i2h_z, i2h = symbol.SliceChannel(
            i2h, num_outputs=3, name='%s_i2h_slice' % name
        )
        h2h_r, h2h_z, h2h = symbol.SliceChannel(
            h2h, num_outputs=3, name='%s_h2h_slice' % name
        )
        reset_gate = symbol.Activation(
            i2h_r + h2h_r, act_type='sigmoid', name='%s_r_act' % name
        )
        update_gate = symbol.Activation(
            i2h_z + h2h_z, act_type='sigmoid', name='%s_z_act' % name
        )
        next_h_tmp = self._get_activation(
            i2h + reset_gate * h2h, activation, name='%s_h_act' % name
        )
        return symbol._plus(
            (1.0 - update_gate) * next_h_tmp,
            update_gate * prev_h,
            name='%sout' % name,
        )


class RNNCell(BaseRNNCell):
    """Elman cell: ``h_t = act(W_i x_t + b_i + W_h h_{t-1} + b_h)``.

    Parameters
    ----------
    num_hidden : int
        Size of the output (and state).
    activation : str or callable, default ``'tanh'``
        ``'tanh'``, ``'relu'``..., or a function of a symbol.
    prefix : str, default ``'rnn_'``
    params : RNNParams, optional
    """

    def __init__(
        self, num_hidden, activation='tanh', prefix='rnn_', params=None
    ):
        super().__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._activation = activation
        self._iW = self.params.get('i2h_weight')
        self._iB = self.params.get('i2h_bias')
        self._hW = self.params.get('h2h_weight')
        self._hB = self.params.get('h2h_bias')

    @property
    def state_info(self):
        return [{'shape': (0, self._num_hidden), '__layout__': 'NC'}]

    @property
    def _gate_names(self):
        return ('',)

    def __call__(self, inputs, states):
        self._counter += 1
        name = '%st%d_' % (self._prefix, self._counter)
        i2h = symbol.FullyConnected(
            data=inputs,
            weight=self._iW,
            bias=self._iB,
            num_hidden=self._num_hidden,
            name='%si2h' % name,
        )
        h2h = symbol.FullyConnected(
            data=states[0],
            weight=self._hW,
            bias=self._hB,
            num_hidden=self._num_hidden,
            name='%sh2h' % name,
        )
        output = self._get_activation(
            i2h + h2h, self._activation, name='%sout' % name
        )
        return output, [output]


class LSTMCell(BaseRNNCell):
    """Long short-term memory cell (Hochreiter & Schmidhuber, 1997).

    The four gates come from one product each for input and state,
    ``W_i x_t + b_i + W_h h_{t-1} + b_h`` (``4*num_hidden`` rows, gates in
    the order input, forget, cell candidate, output)::

        i, f, o = sigmoid(...);  g = tanh(...)
        c_t = f * c_{t-1} + i * g        (node <prefix>t<t>_state)
        h_t = o * tanh(c_t)              (node <prefix>t<t>_out)

    The states are ``[h, c]``.

    Parameters
    ----------
    num_hidden : int
        Size of the output and of each state.
    prefix : str, default ``'lstm_'``
    params : RNNParams, optional
    forget_bias : float, default 1.0
        Initial value of the forget gate's bias, through the
        ``LSTMBias`` initializer of ``i2h_bias``: remembering by default
        helps training (Jozefowicz et al., 2015).
    """

    def __init__(
        self, num_hidden, prefix='lstm_', params=None, forget_bias=1.0
    ):
        super().__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._iW = self.params.get('i2h_weight')
        self._hW = self.params.get('h2h_weight')
        self._iB = self.params.get(
            'i2h_bias', init=initializer.LSTMBias(forget_bias=forget_bias)
        )
        self._hB = self.params.get('h2h_bias')

    @property
    def state_info(self):
        return [
            {'shape': (0, self._num_hidden), '__layout__': 'NC'},
            {'shape': (0, self._num_hidden), '__layout__': 'NC'},
        ]

    @property
    def _gate_names(self):
        return ['_i', '_f', '_c', '_o']

    def __call__(self, inputs, states):
        self._counter += 1
        name = '%st%d_' % (self._prefix, self._counter)
        i2h = symbol.FullyConnected(
            data=inputs,
            weight=self._iW,
            bias=self._iB,
            num_hidden=self._num_hidden * 4,
            name='%si2h' % name,
        )
        h2h = symbol.FullyConnected(
            data=states[0],
            weight=self._hW,
            bias=self._hB,
            num_hidden=self._num_hidden * 4,
            name='%sh2h' % name,
        )
        next_h, next_c = self._lstm_step(i2h + h2h, states[1], name)
        return next_h, [next_h, next_c]


class GRUCell(BaseRNNCell):
    """Gated recurrent unit, cuDNN's variant (the reset gate multiplies
    the state's projection, not the state)::

        r, z = sigmoid(i2h_r + h2h_r), sigmoid(i2h_z + h2h_z)
        n = tanh(i2h_n + r * h2h_n)
        h_t = (1 - z) * n + z * h_{t-1}

    Parameters
    ----------
    num_hidden : int
        Size of the output (and state).
    prefix : str, default ``'gru_'``
    params : RNNParams, optional
    """

    def __init__(self, num_hidden, prefix='gru_', params=None):
        super().__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._iW = self.params.get('i2h_weight')
        self._iB = self.params.get('i2h_bias')
        self._hW = self.params.get('h2h_weight')
        self._hB = self.params.get('h2h_bias')

    @property
    def state_info(self):
        return [{'shape': (0, self._num_hidden), '__layout__': 'NC'}]

    @property
    def _gate_names(self):
        return ['_r', '_z', '_o']

    def __call__(self, inputs, states):
        self._counter += 1
        # MXNet writes '%s_i2h' after a name ending in '_': the nodes are
        # 'gru_t0__i2h' (two underscores), kept for identical graphs.
        name = '%st%d_' % (self._prefix, self._counter)
        prev_state_h = states[0]
        i2h = symbol.FullyConnected(
            data=inputs,
            weight=self._iW,
            bias=self._iB,
            num_hidden=self._num_hidden * 3,
            name='%s_i2h' % name,
        )
        h2h = symbol.FullyConnected(
            data=prev_state_h,
            weight=self._hW,
            bias=self._hB,
            num_hidden=self._num_hidden * 3,
            name='%s_h2h' % name,
        )
        next_h = self._gru_step(i2h, h2h, prev_state_h, name)
        return next_h, [next_h]


class FusedRNNCell(BaseRNNCell):
    """A whole recurrent stack as one ``RNN`` operator.

    All weights of all layers and directions live in one vector,
    ``<prefix>parameters``, in the ``RNN`` operator's order (every
    weight, then every bias; see ``dlbook/ops/rnn.py``).  The cell cannot
    be stepped, only unrolled; :meth:`unfuse` gives the same network as
    a stack of stepped cells, and :meth:`unpack_weights` names the pieces
    of the vector as those cells name their weights
    (``lstm_l0_i2h_i_weight``: layer 0, left-to-right, input gate).

    Parameters
    ----------
    num_hidden : int
        Size of each layer's state.
    num_layers : int, default 1
    mode : str, default ``'lstm'``
        ``'rnn_relu'``, ``'rnn_tanh'``, ``'lstm'`` or ``'gru'``.
    bidirectional : bool, default False
        Also run each layer backward in time; outputs are twice as wide.
    dropout : float, default 0
        Dropout between layers, in training.
    get_next_state : bool, default False
        Whether :meth:`unroll` returns the final states (else ``[]``).
    forget_bias : float, default 1.0
        Initial forget-gate bias (LSTM).
    prefix : str, default ``'<mode>_'``
    params : RNNParams, optional
    """

    def __init__(
        self,
        num_hidden,
        num_layers=1,
        mode='lstm',
        bidirectional=False,
        dropout=0.0,
        get_next_state=False,
        forget_bias=1.0,
        prefix=None,
        params=None,
    ):
        if prefix is None:
            prefix = '%s_' % mode
        super().__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._num_layers = num_layers
        self._mode = mode
        self._bidirectional = bidirectional
        self._dropout = dropout
        self._get_next_state = get_next_state
        self._directions = ['l', 'r'] if bidirectional else ['l']
        init = FusedRNN(
            None, num_hidden, num_layers, mode, bidirectional, forget_bias
        )
        self._parameter = self.params.get('parameters', init=init)

    @property
    def state_info(self):
        b = self._bidirectional + 1
        n = (self._mode == 'lstm') + 1
        return [
            {
                'shape': (b * self._num_layers, 0, self._num_hidden),
                '__layout__': 'LNC',
            }
            for _ in range(n)
        ]

    @property
    def _gate_names(self):
        return {
            'rnn_relu': [''],
            'rnn_tanh': [''],
            'lstm': ['_i', '_f', '_c', '_o'],
            'gru': ['_r', '_z', '_o'],
        }[self._mode]

    @property
    def _num_gates(self):
        return len(self._gate_names)

    def _slice_weights(self, arr, li, lh):
        """Name the pieces of the flat vector ``arr`` (views into it):
        ``li`` inputs, ``lh`` hidden units."""
        args = {}
        gate_names = self._gate_names
        directions = self._directions
        b = len(directions)
        p = 0
        for layer in range(self._num_layers):
            for direction in directions:
                for gate in gate_names:
                    name = '%s%s%d_i2h%s_weight' % (
                        self._prefix,
                        direction,
                        layer,
                        gate,
                    )
                    if layer > 0:
                        size = b * lh * lh
                        args[name] = arr[p : p + size].reshape((lh, b * lh))
                    else:
                        size = li * lh
                        args[name] = arr[p : p + size].reshape((lh, li))
                    p += size
                for gate in gate_names:
                    name = '%s%s%d_h2h%s_weight' % (
                        self._prefix,
                        direction,
                        layer,
                        gate,
                    )
                    size = lh**2
                    args[name] = arr[p : p + size].reshape((lh, lh))
                    p += size
        for layer in range(self._num_layers):
            for direction in directions:
                for group in ['i2h', 'h2h']:
                    for gate in gate_names:
                        name = '%s%s%d_%s%s_bias' % (
                            self._prefix,
                            direction,
                            layer,
                            group,
                            gate,
                        )
                        args[name] = arr[p : p + lh]
                        p += lh
        if p != arr.size:
            raise ValueError('Invalid parameters size for FusedRNNCell')
        return args

    def unpack_weights(self, args):
        args = args.copy()
        arr = args.pop(self._parameter.name)
        b = len(self._directions)
        m = self._num_gates
        h = self._num_hidden
        # size = b*m*h*(C + h + 2) + (L-1)*b*m*h*(b*h + h + 2), solved for C
        num_input = (
            arr.size // b // h // m
            - (self._num_layers - 1) * (h + b * h + 2)
            - h
            - 2
        )
        nargs = self._slice_weights(arr, num_input, self._num_hidden)
        args.update({name: nd.copy() for name, nd in nargs.items()})
        return args

    def pack_weights(self, args):
        args = args.copy()
        b = self._bidirectional + 1
        m = self._num_gates
        c = self._gate_names
        h = self._num_hidden
        w0 = args['%sl0_i2h%s_weight' % (self._prefix, c[0])]
        num_input = w0.shape[1]
        total = (num_input + h + 2) * h * m * b + (
            self._num_layers - 1
        ) * m * h * (h + b * h + 2) * b
        arr = ndarray.zeros((total,), ctx=w0.context, dtype=w0.dtype)
        for name, nd in self._slice_weights(arr, num_input, h).items():
            nd[:] = args.pop(name)
        args[self._parameter.name] = arr
        return args

    def __call__(self, inputs, states):
        raise NotImplementedError(
            'FusedRNNCell cannot be stepped. Please use unroll'
        )

    def unroll(
        self,
        length,
        inputs,
        begin_state=None,
        layout='NTC',
        merge_outputs=None,
    ):
        self.reset()
        inputs, axis = _normalize_sequence(length, inputs, layout, True)
        if axis == 1:
            warnings.warn(
                'NTC layout detected. Consider using '
                'TNC for FusedRNNCell for faster speed',
                stacklevel=2,
            )
            inputs = symbol.swapaxes(inputs, dim1=0, dim2=1)
        elif axis != 0:
            raise ValueError('Unsupported layout %s' % layout)
        if begin_state is None:
            begin_state = self.begin_state()
        states = {'state': begin_state[0]}
        if self._mode == 'lstm':
            states['state_cell'] = begin_state[1]
        rnn = symbol.RNN(
            data=inputs,
            parameters=self._parameter,
            state_size=self._num_hidden,
            num_layers=self._num_layers,
            bidirectional=self._bidirectional,
            p=self._dropout,
            state_outputs=self._get_next_state,
            mode=self._mode,
            name=self._prefix + 'rnn',
            **states,
        )
        if not self._get_next_state:
            outputs, states = rnn, []
        else:
            outputs = rnn[0]
            states = [rnn[k] for k in range(1, len(begin_state) + 1)]
            for state in states:
                state._set_attr(__layout__='LNC')
        if axis == 1:
            outputs = symbol.swapaxes(outputs, dim1=0, dim2=1)
        outputs, _ = _normalize_sequence(
            length, outputs, layout, merge_outputs
        )
        return outputs, states

    def unfuse(self):
        """The same network as a :class:`SequentialRNNCell` of stepped
        cells (with :class:`BidirectionalCell` layers if bidirectional,
        :class:`DropoutCell` between layers if ``dropout``), named so that
        :meth:`unpack_weights` fills their weights."""
        stack = SequentialRNNCell()
        get_cell = {
            'rnn_relu': lambda cell_prefix: RNNCell(
                self._num_hidden, activation='relu', prefix=cell_prefix
            ),
            'rnn_tanh': lambda cell_prefix: RNNCell(
                self._num_hidden, activation='tanh', prefix=cell_prefix
            ),
            'lstm': lambda cell_prefix: LSTMCell(
                self._num_hidden, prefix=cell_prefix
            ),
            'gru': lambda cell_prefix: GRUCell(
                self._num_hidden, prefix=cell_prefix
            ),
        }[self._mode]
        for i in range(self._num_layers):
            if self._bidirectional:
                stack.add(
                    BidirectionalCell(
                        get_cell('%sl%d_' % (self._prefix, i)),
                        get_cell('%sr%d_' % (self._prefix, i)),
                        output_prefix='%sbi_l%d_' % (self._prefix, i),
                    )
                )
            else:
                stack.add(get_cell('%sl%d_' % (self._prefix, i)))
            if self._dropout > 0 and i != self._num_layers - 1:
                stack.add(
                    DropoutCell(
                        self._dropout,
                        prefix='%s_dropout%d_' % (self._prefix, i),
                    )
                )
        return stack


class SequentialRNNCell(BaseRNNCell):
    """A stack of cells: each cell's output is the next one's input.

    The states are those of all cells, concatenated in order.

    Parameters
    ----------
    params : RNNParams, optional
        Weights for all the cells (then the cells must not have been
        given their own).
    """

    def __init__(self, params=None):
        super().__init__(prefix='', params=params)
        self._override_cell_params = params is not None
        self._cells = []

    def add(self, cell):
        """Append ``cell`` to the top of the stack."""
        self._cells.append(cell)
        if self._override_cell_params:
            if not cell._own_params:
                raise ValueError(
                    'Either specify params for SequentialRNNCell '
                    'or child cells, not both.'
                )
            cell.params._params.update(self.params._params)
        self.params._params.update(cell.params._params)

    @property
    def state_info(self):
        return _cells_state_info(self._cells)

    def begin_state(self, **kwargs):
        if self._modified:
            raise RuntimeError(
                'After applying modifier cells (e.g. ZoneoutCell) the base '
                'cell cannot be called directly. Call the modifier cell '
                'instead.'
            )
        return _cells_begin_state(self._cells, **kwargs)

    def unpack_weights(self, args):
        return _cells_unpack_weights(self._cells, args)

    def pack_weights(self, args):
        return _cells_pack_weights(self._cells, args)

    def __call__(self, inputs, states):
        self._counter += 1
        next_states = []
        p = 0
        for cell in self._cells:
            if isinstance(cell, BidirectionalCell):
                raise NotImplementedError(
                    'Bidirectional cannot be stepped. Please use unroll'
                )
            n = len(cell.state_info)
            state = states[p : p + n]
            p += n
            inputs, state = cell(inputs, state)
            next_states.append(state)
        return inputs, sum(next_states, [])

    def unroll(
        self,
        length,
        inputs,
        begin_state=None,
        layout='NTC',
        merge_outputs=None,
    ):
        """Unroll each cell over the whole sequence in turn (not step by
        step), so that fused and bidirectional cells can be stacked; the
        lower cells keep their natural output form, only the top one
        follows ``merge_outputs``."""
        self.reset()
        num_cells = len(self._cells)
        if begin_state is None:
            begin_state = self.begin_state()
        p = 0
        next_states = []
        for i, cell in enumerate(self._cells):
            n = len(cell.state_info)
            states = begin_state[p : p + n]
            p += n
            inputs, states = cell.unroll(
                length,
                inputs=inputs,
                begin_state=states,
                layout=layout,
                merge_outputs=None if i < num_cells - 1 else merge_outputs,
            )
            next_states.extend(states)
        return inputs, next_states


class DropoutCell(BaseRNNCell):
    """Dropout on the input, with no state; put between stacked cells.

    Parameters
    ----------
    dropout : float
        Fraction of elements dropped (in training).
    prefix : str, default ``'dropout_'``
    params : RNNParams, optional
    """

    def __init__(self, dropout, prefix='dropout_', params=None):
        super().__init__(prefix, params)
        if not isinstance(dropout, numbers.Number):
            raise TypeError('dropout probability must be a number')
        self.dropout = dropout

    @property
    def state_info(self):
        return []

    def __call__(self, inputs, states):
        if self.dropout > 0:
            inputs = symbol.Dropout(data=inputs, p=self.dropout)
        return inputs, states

    def unroll(
        self,
        length,
        inputs,
        begin_state=None,
        layout='NTC',
        merge_outputs=None,
    ):
        """A merged sequence gets one ``Dropout`` node for all steps."""
        self.reset()
        inputs, _ = _normalize_sequence(length, inputs, layout, merge_outputs)
        if isinstance(inputs, symbol.Symbol):
            return self(inputs, [])
        return super().unroll(
            length,
            inputs,
            begin_state=begin_state,
            layout=layout,
            merge_outputs=merge_outputs,
        )


class ModifierCell(BaseRNNCell):
    """Base class of cells that wrap another cell and change what it
    computes (:class:`ZoneoutCell`, :class:`ResidualCell`).

    The wrapped ``base_cell`` shares its weights and states with the
    modifier and must not be used directly afterwards.
    """

    def __init__(self, base_cell):
        super().__init__()
        base_cell._modified = True
        self.base_cell = base_cell

    @property
    def params(self):
        self._own_params = False
        return self.base_cell.params

    @property
    def state_info(self):
        return self.base_cell.state_info

    def begin_state(self, init_sym=symbol.zeros, **kwargs):
        """The base cell's begin states; ``init_sym`` is what the other
        cells call ``func`` (accepted as well: a stack passes ``func=``
        to each of its cells, which MXNet refuses with a TypeError)."""
        init_sym = kwargs.pop('func', init_sym)
        if self._modified:
            raise RuntimeError(
                'After applying modifier cells (e.g. DropoutCell) the base '
                'cell cannot be called directly. Call the modifier cell '
                'instead.'
            )
        self.base_cell._modified = False
        begin = self.base_cell.begin_state(init_sym, **kwargs)
        self.base_cell._modified = True
        return begin

    def unpack_weights(self, args):
        return self.base_cell.unpack_weights(args)

    def pack_weights(self, args):
        return self.base_cell.pack_weights(args)

    def __call__(self, inputs, states):
        raise NotImplementedError


class ZoneoutCell(ModifierCell):
    """Zoneout (Krueger et al., 2016): in training, each unit of the
    output (and of the states) keeps its previous value with probability
    ``zoneout_outputs`` (``zoneout_states``) instead of updating.

    Parameters
    ----------
    base_cell : BaseRNNCell
        A cell that can be stepped (not fused, not bidirectional).
    zoneout_outputs : float, default 0
    zoneout_states : float, default 0
    """

    def __init__(self, base_cell, zoneout_outputs=0.0, zoneout_states=0.0):
        if isinstance(base_cell, FusedRNNCell):
            raise TypeError(
                "FusedRNNCell doesn't support zoneout. Please unfuse first."
            )
        if isinstance(base_cell, BidirectionalCell) or (
            isinstance(base_cell, SequentialRNNCell)
            and any(isinstance(c, BidirectionalCell) for c in base_cell._cells)
        ):
            raise TypeError(
                "Bidirectional cells don't support zoneout since they can't "
                'be stepped. Please add ZoneoutCell to the cells underneath '
                'instead.'
            )
        super().__init__(base_cell)
        self.zoneout_outputs = zoneout_outputs
        self.zoneout_states = zoneout_states
        self.prev_output = None

    def reset(self):
        super().reset()
        self.prev_output = None

    def __call__(self, inputs, states):
        cell = self.base_cell
        p_outputs, p_states = self.zoneout_outputs, self.zoneout_states
        next_output, next_states = cell(inputs, states)

        def mask(p, like):
            # 1 where the new value is kept: Dropout of ones is 0 with
            # probability p (and 1/(1-p), still true, otherwise)
            return symbol.Dropout(symbol.ones_like(like), p=p)

        # MXNet starts from symbol.zeros((0, 0)) and lets shape inference
        # size it; zeros_like(next_output) is the same array, sized here
        prev_output = (
            self.prev_output
            if self.prev_output is not None
            else symbol.zeros_like(next_output)
        )
        output = (
            symbol.where(
                mask(p_outputs, next_output), next_output, prev_output
            )
            if p_outputs != 0.0
            else next_output
        )
        states = (
            [
                symbol.where(mask(p_states, new_s), new_s, old_s)
                for new_s, old_s in zip(next_states, states)
            ]
            if p_states != 0.0
            else next_states
        )
        self.prev_output = output
        return output, states


class ResidualCell(ModifierCell):
    """Adds the input to the base cell's output (Wu et al., 2016): the
    node ``<output name>_plus_residual``.  Input and output must have the
    same size."""

    def __call__(self, inputs, states):
        output, states = self.base_cell(inputs, states)
        output = symbol.elemwise_add(
            output, inputs, name='%s_plus_residual' % output.name
        )
        return output, states

    def unroll(
        self,
        length,
        inputs,
        begin_state=None,
        layout='NTC',
        merge_outputs=None,
    ):
        self.reset()
        self.base_cell._modified = False
        outputs, states = self.base_cell.unroll(
            length,
            inputs=inputs,
            begin_state=begin_state,
            layout=layout,
            merge_outputs=merge_outputs,
        )
        self.base_cell._modified = True
        if merge_outputs is None:
            merge_outputs = isinstance(outputs, symbol.Symbol)
        inputs, _ = _normalize_sequence(length, inputs, layout, merge_outputs)
        if merge_outputs:
            outputs = symbol.elemwise_add(
                outputs, inputs, name='%s_plus_residual' % outputs.name
            )
        else:
            outputs = [
                symbol.elemwise_add(
                    output_sym,
                    input_sym,
                    name='%s_plus_residual' % output_sym.name,
                )
                for output_sym, input_sym in zip(outputs, inputs)
            ]
        return outputs, states


class BidirectionalCell(BaseRNNCell):
    """Runs ``l_cell`` forward and ``r_cell`` backward in time and
    concatenates their outputs at each step (``<output_prefix>t<t>``, or
    ``<output_prefix>out`` merged).

    It can only be unrolled.  The states returned by :meth:`unroll` are
    ``[l_states, r_states]``, two lists, as in MXNet.

    Parameters
    ----------
    l_cell, r_cell : BaseRNNCell
    params : RNNParams, optional
        Weights for both cells (then they must not have their own).
    output_prefix : str, default ``'bi_'``
    """

    def __init__(self, l_cell, r_cell, params=None, output_prefix='bi_'):
        super().__init__('', params=params)
        self._output_prefix = output_prefix
        self._override_cell_params = params is not None
        if self._override_cell_params:
            if not (l_cell._own_params and r_cell._own_params):
                raise ValueError(
                    'Either specify params for BidirectionalCell '
                    'or child cells, not both.'
                )
            l_cell.params._params.update(self.params._params)
            r_cell.params._params.update(self.params._params)
        self.params._params.update(l_cell.params._params)
        self.params._params.update(r_cell.params._params)
        self._cells = [l_cell, r_cell]

    def unpack_weights(self, args):
        return _cells_unpack_weights(self._cells, args)

    def pack_weights(self, args):
        return _cells_pack_weights(self._cells, args)

    def __call__(self, inputs, states):
        raise NotImplementedError(
            'Bidirectional cannot be stepped. Please use unroll'
        )

    @property
    def state_info(self):
        return _cells_state_info(self._cells)

    def begin_state(self, **kwargs):
        if self._modified:
            raise RuntimeError(
                'After applying modifier cells (e.g. DropoutCell) the base '
                'cell cannot be called directly. Call the modifier cell '
                'instead.'
            )
        return _cells_begin_state(self._cells, **kwargs)

    def unroll(
        self,
        length,
        inputs,
        begin_state=None,
        layout='NTC',
        merge_outputs=None,
    ):
        self.reset()
        inputs, axis = _normalize_sequence(length, inputs, layout, False)
        if begin_state is None:
            begin_state = self.begin_state()
        states = begin_state
        l_cell, r_cell = self._cells
        n_left = len(l_cell.state_info)
        l_outputs, l_states = l_cell.unroll(
            length,
            inputs=inputs,
            begin_state=states[:n_left],
            layout=layout,
            merge_outputs=merge_outputs,
        )
        r_outputs, r_states = r_cell.unroll(
            length,
            inputs=list(reversed(inputs)),
            begin_state=states[n_left:],
            layout=layout,
            merge_outputs=merge_outputs,
        )
        if merge_outputs is None:
            merge_outputs = isinstance(
                l_outputs, symbol.Symbol
            ) and isinstance(r_outputs, symbol.Symbol)
            if not merge_outputs:
                if isinstance(l_outputs, symbol.Symbol):
                    l_outputs = list(
                        symbol.SliceChannel(
                            l_outputs,
                            axis=axis,
                            num_outputs=length,
                            squeeze_axis=1,
                        )
                    )
                if isinstance(r_outputs, symbol.Symbol):
                    r_outputs = list(
                        symbol.SliceChannel(
                            r_outputs,
                            axis=axis,
                            num_outputs=length,
                            squeeze_axis=1,
                        )
                    )
        if merge_outputs:
            l_outputs = [l_outputs]
            r_outputs = [symbol.reverse(r_outputs, axis=axis)]
        else:
            r_outputs = list(reversed(r_outputs))
        # per step the outputs are (N, C): join on 1; merged they are
        # (N, T, C) or (T, N, C): join on 2
        outputs = [
            symbol.Concat(
                l_o,
                r_o,
                dim=1 + merge_outputs,
                name=(
                    '%sout' % self._output_prefix
                    if merge_outputs
                    else '%st%d' % (self._output_prefix, i)
                ),
            )
            for i, (l_o, r_o) in enumerate(zip(l_outputs, r_outputs))
        ]
        if merge_outputs:
            outputs = outputs[0]
        states = [l_states, r_states]
        return outputs, states


class BaseConvRNNCell(BaseRNNCell):
    """Base class of the convolutional cells: the gates come from a
    convolution of the input (``i2h``, any stride and padding) plus a
    convolution of the state (``h2h``, stride 1, padded to keep the
    state's size, so its kernel must be odd).

    The state's shape is what the ``i2h`` convolution makes of
    ``input_shape`` (the batch dimension left to inference).
    """

    #: how many states of that shape the cell carries (h, and c for LSTM)
    _num_states = 2

    #: the prefix of a cell made without one (``ConvLSTM_``...)
    _default_prefix = ''

    def __init__(
        self,
        input_shape,
        num_hidden,
        h2h_kernel=(3, 3),
        h2h_dilate=(1, 1),
        i2h_kernel=(3, 3),
        i2h_stride=(1, 1),
        i2h_pad=(1, 1),
        i2h_dilate=(1, 1),
        i2h_weight_initializer=None,
        h2h_weight_initializer=None,
        i2h_bias_initializer='zeros',
        h2h_bias_initializer='zeros',
        activation=None,
        prefix=None,
        params=None,
        conv_layout='NCHW',
    ):
        if prefix is None:
            prefix = self._default_prefix
        if activation is None:
            activation = _LEAKY
        super().__init__(prefix=prefix, params=params)
        if h2h_kernel[0] % 2 != 1 or h2h_kernel[1] % 2 != 1:
            raise ValueError(
                'Only support odd number, get h2h_kernel= %s' % str(h2h_kernel)
            )
        self._h2h_kernel = h2h_kernel
        self._h2h_pad = (
            h2h_dilate[0] * (h2h_kernel[0] - 1) // 2,
            h2h_dilate[1] * (h2h_kernel[1] - 1) // 2,
        )
        self._h2h_dilate = h2h_dilate
        self._i2h_kernel = i2h_kernel
        self._i2h_stride = i2h_stride
        self._i2h_pad = i2h_pad
        self._i2h_dilate = i2h_dilate
        self._num_hidden = num_hidden
        self._input_shape = input_shape
        self._conv_layout = conv_layout
        self._activation = activation

        data = symbol.Variable('data')
        conv = symbol.Convolution(
            data=data,
            num_filter=self._num_hidden,
            kernel=self._i2h_kernel,
            stride=self._i2h_stride,
            pad=self._i2h_pad,
            dilate=self._i2h_dilate,
            layout=conv_layout,
        )
        state_shape = conv.infer_shape(data=input_shape)[1][0]
        self._state_shape = (0,) + tuple(state_shape[1:])

        self._iW = self.params.get('i2h_weight', init=i2h_weight_initializer)
        self._hW = self.params.get('h2h_weight', init=h2h_weight_initializer)
        self._iB = self.params.get('i2h_bias', init=i2h_bias_initializer)
        self._hB = self.params.get('h2h_bias', init=h2h_bias_initializer)

    @property
    def _num_gates(self):
        return len(self._gate_names)

    @property
    def state_info(self):
        return [
            {'shape': self._state_shape, '__layout__': self._conv_layout}
            for _ in range(self._num_states)
        ]

    def _conv_forward(self, inputs, states, name):
        i2h = symbol.Convolution(
            name='%si2h' % name,
            data=inputs,
            num_filter=self._num_hidden * self._num_gates,
            kernel=self._i2h_kernel,
            stride=self._i2h_stride,
            pad=self._i2h_pad,
            dilate=self._i2h_dilate,
            weight=self._iW,
            bias=self._iB,
            layout=self._conv_layout,
        )
        h2h = symbol.Convolution(
            name='%sh2h' % name,
            data=states[0],
            num_filter=self._num_hidden * self._num_gates,
            kernel=self._h2h_kernel,
            dilate=self._h2h_dilate,
            pad=self._h2h_pad,
            stride=(1, 1),
            weight=self._hW,
            bias=self._hB,
            layout=self._conv_layout,
        )
        return i2h, h2h

    def __call__(self, inputs, states):
        raise NotImplementedError(
            'BaseConvRNNCell is abstract class for convolutional RNN'
        )


_CONV_CELL_PARAMETERS = """
    Parameters
    ----------
    input_shape : tuple of int
        Shape of the input of one step, batch included (``(N, C, H, W)``).
    num_hidden : int
        Channels of the output (and states).
    h2h_kernel, h2h_dilate : tuple of int, default (3, 3), (1, 1)
        The state-to-state convolution (odd kernel; stride 1).
    i2h_kernel, i2h_stride, i2h_pad, i2h_dilate : tuple of int
        The input-to-state convolution; defaults (3, 3), (1, 1), (1, 1),
        (1, 1).
    i2h_weight_initializer, h2h_weight_initializer : str or Initializer
        Initializers of the two kernels (None: the global one).
    i2h_bias_initializer, h2h_bias_initializer : str or Initializer
        Default ``'zeros'``.
    activation : str or callable
        Default: leaky ReLU with slope 0.2.
    prefix : str
    params : RNNParams, optional
    conv_layout : str, default ``'NCHW'``
"""

_LEAKY = functools.partial(symbol.LeakyReLU, act_type='leaky', slope=0.2)


class ConvRNNCell(BaseConvRNNCell):
    __doc__ = (
        """Convolutional Elman cell:
    ``h_t = act(conv(x_t) + conv(h_{t-1}))``.
"""
        + _CONV_CELL_PARAMETERS
    )

    _num_states = 1

    _default_prefix = 'ConvRNN_'

    @property
    def _gate_names(self):
        return ('',)

    def __call__(self, inputs, states):
        self._counter += 1
        name = '%st%d_' % (self._prefix, self._counter)
        i2h, h2h = self._conv_forward(inputs, states, name)
        output = self._get_activation(
            i2h + h2h, self._activation, name='%sout' % name
        )
        return output, [output]


class ConvLSTMCell(BaseConvRNNCell):
    __doc__ = (
        """Convolutional LSTM cell (Shi et al., NIPS 2015): the gates of
    :class:`LSTMCell` from convolutions, split along the channel axis;
    ``activation`` replaces both ``tanh``.
"""
        + _CONV_CELL_PARAMETERS
    )

    _default_prefix = 'ConvLSTM_'

    @property
    def _gate_names(self):
        return ['_i', '_f', '_c', '_o']

    def __call__(self, inputs, states):
        self._counter += 1
        name = '%st%d_' % (self._prefix, self._counter)
        i2h, h2h = self._conv_forward(inputs, states, name)
        next_h, next_c = self._lstm_step(
            i2h + h2h,
            states[1],
            name,
            self._activation,
            axis=self._conv_layout.find('C'),
        )
        return next_h, [next_h, next_c]


class ConvGRUCell(BaseConvRNNCell):
    __doc__ = (
        """Convolutional GRU cell: the gates of :class:`GRUCell` from
    convolutions; ``activation`` replaces ``tanh``.
"""
        + _CONV_CELL_PARAMETERS
    )

    _num_states = 1

    _default_prefix = 'ConvGRU_'

    @property
    def _gate_names(self):
        return ['_r', '_z', '_o']

    def __call__(self, inputs, states):
        self._counter += 1
        name = '%st%d_' % (self._prefix, self._counter)
        i2h, h2h = self._conv_forward(inputs, states, name)
        next_h = self._gru_step(i2h, h2h, states[0], name, self._activation)
        return next_h, [next_h]


@initializer.register
class FusedRNN(initializer.Initializer):
    """Initializer of a :class:`FusedRNNCell`'s flat ``parameters``
    vector: it is cut into the per-gate matrices and biases
    (:meth:`FusedRNNCell.unpack_weights`), each initialized on its own
    (by ``init``, or the global initializer when None), and packed back.
    LSTM forget-gate biases are set to ``forget_bias``.

    MXNet has this class as ``mx.init.FusedRNN``; here it is registered
    under the same name (``'fusedrnn'``), so symbols and files that name
    it load, but it is reached as ``mx.rnn.rnn_cell.FusedRNN``.

    Parameters
    ----------
    init : Initializer, str or None
        For the pieces; a JSON string (as ``dumps`` writes) is read back.
    num_hidden, num_layers, mode, bidirectional, forget_bias :
        As the :class:`FusedRNNCell` whose vector this initializes.
    """

    def __init__(
        self,
        init,
        num_hidden,
        num_layers,
        mode,
        bidirectional=False,
        forget_bias=1.0,
    ):
        if isinstance(init, str):
            klass, kwargs = json.loads(init)
            init = initializer.create(klass, **kwargs)
        super().__init__(
            init=init.dumps() if init is not None else None,
            num_hidden=num_hidden,
            num_layers=num_layers,
            mode=mode,
            bidirectional=bidirectional,
            forget_bias=forget_bias,
        )
        self._init = init
        self._num_hidden = num_hidden
        self._num_layers = num_layers
        self._mode = mode
        self._bidirectional = bidirectional
        self._forget_bias = forget_bias

    def _init_weight(self, desc, arr):
        cell = FusedRNNCell(
            self._num_hidden,
            self._num_layers,
            self._mode,
            self._bidirectional,
            forget_bias=self._forget_bias,
            prefix='',
        )
        args = cell.unpack_weights({'parameters': arr})
        for name in args:
            arg_desc = initializer.InitDesc(name, global_init=desc.global_init)
            if self._mode == 'lstm' and name.endswith('_f_bias'):
                args[name][:] = self._forget_bias
            elif self._init is None:
                desc.global_init(arg_desc, args[name])
            else:
                self._init(arg_desc, args[name])
        arr[:] = cell.pack_weights(args)['parameters']
