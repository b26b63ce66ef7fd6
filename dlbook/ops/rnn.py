"""Operator: the fused recurrent layer ``RNN`` (Elman RNN, LSTM, GRU).

One operator runs ``num_layers`` stacked recurrent layers, each optionally
bidirectional, over a whole sequence.  Interface of
``apache/mxnet@1.9.1:src/operator/rnn.cc`` (the operator behind
``gluon.rnn.RNN/LSTM/GRU``):

* ``data`` ``(T, N, C)``: time, batch, features;
* ``parameters``: one flat vector, every weight then every bias.  For each
  layer ``l`` and direction ``d`` (forward, then backward in time) the
  weights are ``W_x`` ``(G*H, C_l)`` then ``W_h`` ``(G*H, H)``, row-major;
  after all weights come the biases ``b_x`` ``(G*H,)`` then ``b_h``, in
  the same order.  ``G`` is the number of gates (1 RNN, 4 LSTM, 3 GRU),
  ``C_0 = C`` and ``C_l = D*H`` above the first layer;
* ``state`` (and ``state_cell`` for LSTM) ``(L*D, N, H)``: the begin
  states, row ``k = l*D + d``;
* ``sequence_length`` ``(N,)`` with ``use_sequence_length=True``.

Outputs: ``out`` ``(T, N, D*H)`` (both directions concatenated), and with
``state_outputs=True`` the final ``hy`` (and ``cy`` for LSTM), shaped like
the begin states.

How it runs.  The input projection ``x_t W_x^T + b_x`` does not depend on
the previous step, so it is computed for every step at once: one
``(T*N, C) x (C, G*H)`` product per layer and direction.  Only the
recurrent product ``h_{t-1} W_h^T`` waits for the previous step, in a
Python loop over time.  Backward (backpropagation through time) walks the
same loop in reverse, carrying ``dh`` (and ``dc``) back one step at a
time and collecting the gate gradients of every step; the weight
gradients are then again one large product each.

The per-step rules are those of ``dlbook/gluon/rnn/steps.py`` (MXNet's
cells).  With ``xw_t = x_t W_x^T + b_x`` and ``hw_t = h_{t-1} W_h^T + b_h``
(``G*H`` columns each, one block per gate) and ``a_t = xw_t + hw_t``,
forward on the left, backward on the right::

    Elman  h_t = act(a_t)                  da = dh * act'(a_t)

    LSTM   i, f, o = sigmoid(a_i, a_f, a_o)
           g = tanh(a_g)                   dc += dh * o * (1 - tanh(c_t)^2)
           c_t = f * c_{t-1} + i * g       di = dc * g;   df = dc * c_{t-1}
           h_t = o * tanh(c_t)             dg = dc * i;   do = dh * tanh(c_t)
                                           dc_{t-1} = dc * f
                                           da = d(gate) * gate' per block

    GRU    r, z = sigmoid(a_r, a_z)        dn = dh * (1 - z)
           n = tanh(xw_n + r * hw_n)       dz = dh * (h_{t-1} - n)
           h_t = (1 - z) * n + z * h_{t-1} dxw_n = dn * (1 - n^2)
                                           dr = dxw_n * hw_n
                                           dhw_n = dxw_n * r
                                           dh_{t-1} gets dh * z directly

Every step also sends ``dh_{t-1} += dhw_t W_h`` back to the step before
(``dhw = dxw = da`` except for the GRU's ``n`` block).  Over all steps
``dW_x = sum_t dxw_t^T x_t``, ``dW_h = sum_t dhw_t^T h_{t-1}``, ``db_x``
and ``db_h`` are the sums of ``dxw`` and ``dhw``, and the layer's input
gradient is ``dx_t = dxw_t W_x``.

Between layers, in training, dropout with rate ``p`` is applied to each
layer's output except the last (``x_{l+1} = y_l * mask / (1 - p)``);
the backward pass multiplies by the same mask.

LSTM with a projection (LSTMP, ``projection_size=P``, ``P <= H``): the
state fed back and output is ``r_t = h_t W_r^T`` (``P`` features) instead
of ``h_t``; the cell state keeps ``H``.  In the flat vector each layer
and direction then holds ``W_x`` ``(4H, C_l)``, ``W_h`` ``(4H, P)`` and
``W_r`` ``(P, H)`` in this order (biases unchanged, ``W_r`` has none),
with ``C_l = D*P`` above the first layer; ``state`` and ``hy`` are
``(L*D, N, P)``, ``state_cell`` and ``cy`` ``(L*D, N, H)``, ``out``
``(T, N, D*P)``.  Backward turns the gradient ``dr_t`` of each state into
``dh_t = dr_t W_r`` before the cell rule, and ``dW_r = sum_t dr_t^T h_t``.
MXNet 1.9.1 runs LSTMP only on GPU (cuDNN) for training; its CPU kernel
only for inference.  dlbook runs both everywhere.

With ``use_sequence_length``, sequence ``n`` stops after
``sequence_length[n]`` steps: later outputs are 0, the states stop
changing (so ``hy`` is the state at the sequence's own last step) and the
backward direction starts at that step, as cuDNN does.
"""

from ..base import DLBookError
from .op import Op, register
from .rnn_steps import GRU_STEP, GRU_STEP_GRAD, LSTM_STEP, LSTM_STEP_GRAD

__all__ = ['RNN', 'rnn_param_size']

#: gates per mode: the rows of W_x and W_h are ``G*H``
_GATES = {'rnn_relu': 1, 'rnn_tanh': 1, 'lstm': 4, 'gru': 3}


def rnn_param_size(
    mode, num_layers, input_size, state_size, directions=1, projection=None
):
    """Length of the flat ``parameters`` vector (MXNet's
    ``GetRnnParamSize``): per layer and direction ``G*H`` rows of
    ``W_x``, ``W_h``, ``b_x`` and ``b_h``, plus ``W_r`` ``(P, H)`` with a
    ``projection`` size ``P`` (then ``W_h`` has ``P`` columns)."""
    rows = _GATES[mode] * state_size
    recurrent = state_size if projection is None else projection
    size = 0
    width = input_size
    for _ in range(num_layers):
        size += directions * rows * (width + recurrent + 2)
        if projection is not None:
            size += directions * projection * state_size
        width = directions * recurrent
    return size


def _unpack(
    flat, mode, num_layers, input_size, hidden, directions, projection=None
):
    """Views ``(W_x, W_h, b_x, b_h, W_r)`` of the flat vector, one tuple
    per layer and direction in the order ``k = layer * D + d``; ``W_r``
    (stored after ``W_h``) is None without a projection."""
    rows = _GATES[mode] * hidden
    recurrent = hidden if projection is None else projection
    weights, width, offset = [], input_size, 0
    for _ in range(num_layers):
        for _ in range(directions):
            wx = flat[offset : offset + rows * width].reshape(rows, width)
            offset += rows * width
            wh = flat[offset : offset + rows * recurrent]
            wh = wh.reshape(rows, recurrent)
            offset += rows * recurrent
            wr = None
            if projection is not None:
                wr = flat[offset : offset + projection * hidden]
                wr = wr.reshape(projection, hidden)
                offset += projection * hidden
            weights.append((wx, wh, wr))
        width = directions * recurrent
    biases = []
    for _ in range(num_layers * directions):
        bx = flat[offset : offset + rows]
        bh = flat[offset + rows : offset + 2 * rows]
        offset += 2 * rows
        biases.append((bx, bh))
    return [w[:2] + b + w[2:] for w, b in zip(weights, biases)]


# -- the cells: one time step, forward and backward --------------------------
#
# A cell object lives for one layer and direction of one call.  forward()
# computes step t from the step's projections ``xw = x_t W_x^T + b_x`` and
# ``hw = h_{t-1} W_h^T (+ b_h)`` and the previous states, and stores what
# its backward needs in arrays indexed by t.  backward() gets the
# gradients of the new states (``dh_terms``, whose sum is dh) and the
# rows it may write into (``out``: those of dxw and dhw and a buffer for
# the previous state's gradient), and returns the gradients of xw and hw,
# plus any direct gradient of the previous states.


class _ElmanCell:
    """h_t = act(a_t);   da = dh * act'(a_t), read off h_t."""

    has_cell = False
    fold_h2h_bias = True  # b_h may join b_x in the input projection

    def __init__(self, relu):
        self.relu = relu

    def forward(self, xp, t, xw, hw, h_prev, c_prev, out=None):
        a = xw + hw
        return (xp.maximum(a, 0) if self.relu else xp.tanh(a)), None

    def backward(self, xp, t, dh_terms, dc, h_prev, h, c_prev, c, out):
        dh = sum(dh_terms)
        da = dh * (h > 0) if self.relu else dh * (1 - h * h)
        return da, da, None, None


class _LSTMCell:
    """Gates i, f, g, o (in this order along the 4H axis); see the module
    docstring for the rules.  Saves the activated gates of every step.
    Each step is one kernel on a GPU (:mod:`~dlbook.ops.rnn_steps`)."""

    has_cell = True
    fold_h2h_bias = True

    def __init__(self, xp, steps, batch, hidden, dtype, clip):
        self.hidden = hidden
        self.gate_values = xp.empty((steps, batch, 4 * hidden), dtype=dtype)
        # (clip_on, low, high, stop_nan) as the kernels take them
        self.clip = (0, 0.0, 0.0, 0) if clip is None else (1,) + clip

    def forward(self, xp, t, xw, hw, h_prev, c_prev, out=None):
        if out is None:  # no rows of hs and cs to write into
            out = (xp.empty_like(c_prev), xp.empty_like(c_prev))
        h, c = out
        LSTM_STEP(
            xp,
            xw,
            hw,
            c_prev,
            self.hidden,
            *self.clip,
            self.gate_values[t],
            h,
            c,
        )
        return h, c

    def backward(self, xp, t, dh_terms, dc, h_prev, h, c_prev, c, out):
        # out: the rows of dxw (and of dhw, the same array here) and a
        # buffer for dc_prev
        da, _, dc_prev = out
        dy, dh = dh_terms  # the kernel adds them
        LSTM_STEP_GRAD(
            xp,
            dy,
            dh,
            dc,
            self.gate_values[t],
            c,
            c_prev,
            self.hidden,
            *self.clip,
            da,
            dc_prev,
        )
        return da, da, None, dc_prev


class _GRUCell:
    """Gates r, z, n (cuDNN's GRU: r scales ``h_{t-1} W_hn^T + b_hn``).
    Saves the gates and ``h_n`` of every step.  Each step is one kernel
    on a GPU (:mod:`~dlbook.ops.rnn_steps`)."""

    has_cell = False
    fold_h2h_bias = False  # b_hn sits inside r * (...): the step adds b_h
    h2h_bias = None  # b_h, set before the first step

    def __init__(self, xp, steps, batch, hidden, dtype):
        self.hidden = hidden
        self.gate_values = xp.empty((steps, batch, 3 * hidden), dtype=dtype)
        self.h2h_n = xp.empty((steps, batch, hidden), dtype=dtype)

    def forward(self, xp, t, xw, hw, h_prev, c_prev, out=None):
        h = out[0] if out is not None else xp.empty_like(h_prev)
        GRU_STEP(
            xp,
            xw,
            hw,
            self.h2h_bias,
            h_prev,
            self.hidden,
            self.gate_values[t],
            self.h2h_n[t],
            h,
        )
        return h, None

    def backward(self, xp, t, dh_terms, dc, h_prev, h, c_prev, c, out):
        # out: the rows of dxw and dhw, and a buffer for dh_direct
        dxw, dhw, dh_direct = out
        # dy, the product from the next step and that step's direct part
        # (0 at the last step): the kernel adds them
        dy, dh, dh_next = (list(dh_terms) + [0.0])[:3]
        GRU_STEP_GRAD(
            xp,
            dy,
            dh,
            dh_next,
            self.gate_values[t],
            self.h2h_n[t],
            h_prev,
            self.hidden,
            dxw,
            dhw,
            dh_direct,
        )
        return dxw, dhw, dh_direct, None


# -- one layer in one direction ---------------------------------------------


def _make_cell(xp, mode, steps, batch, hidden, dtype, clip):
    if mode == 'lstm':
        return _LSTMCell(xp, steps, batch, hidden, dtype, clip)
    if mode == 'gru':
        return _GRUCell(xp, steps, batch, hidden, dtype)
    return _ElmanCell(relu=mode == 'rnn_relu')


def _slots(steps, reverse):
    """Time steps in the order they run, and where the states live.

    ``hs`` has ``T + 1`` rows: the begin state and one per step.  Going
    forward, step t reads row t and writes row t + 1 (row 0 holds the
    begin state); going backward it reads row t + 1 and writes row t (row
    T holds the begin state).

    Returns ``(order, read, write, begin)``: step t reads ``hs[t + read]``
    and writes ``hs[t + write]``; the begin state is ``hs[begin]``.
    """
    if reverse:
        return range(steps - 1, -1, -1), 1, 0, steps
    return range(steps), 0, 1, 0


def _direction_forward(xp, cell, x, weights, h0, c0, reverse, keep):
    """Run one layer in one direction over ``x (T, N, C)``.

    Returns ``hs (T+1, N, H)`` and ``cs`` (LSTM, else None) laid out as
    :func:`_slots` says, and ``us``: with a projection ``W_r`` (LSTMP)
    ``hs`` holds ``r_t = W_r h_t`` (``P`` columns) and ``us (T, N, H)``
    the unprojected ``h_t`` of step t; else None.  ``keep (T, N, 1)``
    (bool) marks the steps inside each sequence; outside, the states stay
    as they were.
    """
    wx, wh, bx, bh, wr = weights
    steps, batch = x.shape[:2]
    # the input projection of every step at once: (T, N, G*H)
    xw = (x.reshape(steps * batch, -1) @ wx.T).reshape(steps, batch, -1)
    xw += bx
    if cell.fold_h2h_bias:
        xw += bh
    hs = xp.empty((steps + 1,) + h0.shape, dtype=x.dtype)
    cs = None
    if cell.has_cell:
        cs = xp.empty((steps + 1,) + c0.shape, dtype=x.dtype)
    us = None
    if wr is not None:
        us = xp.empty((steps,) + c0.shape, dtype=x.dtype)
    order, read, write, begin = _slots(steps, reverse)
    hs[begin] = h0
    if cs is not None:
        cs[begin] = c0
    if not cell.fold_h2h_bias:
        cell.h2h_bias = bh  # the cell's step adds it to hw
    for t in order:
        h_prev = hs[t + read]
        c_prev = cs[t + read] if cs is not None else None
        hw = h_prev @ wh.T
        # a cell may write h (and c) into their rows of hs (and cs)
        slots = None
        if keep is None:
            slots = (
                hs[t + write] if us is None else us[t],
                None if cs is None else cs[t + write],
            )
        h, c = cell.forward(xp, t, xw[t], hw, h_prev, c_prev, slots)
        if us is not None:
            if slots is None:
                us[t] = h
            h = h @ wr.T  # the projection: r_t, the new state
            slots = None if slots is None else (None, slots[1])
        if keep is not None:
            h = xp.where(keep[t], h, h_prev)
            if c is not None:
                c = xp.where(keep[t], c, c_prev)
        if slots is None or h is not slots[0]:
            hs[t + write] = h
        if c is not None and (slots is None or c is not slots[1]):
            cs[t + write] = c
    return hs, cs, us


def _direction_backward(
    xp, cell, x, weights, hs, cs, us, dy, dh, dc, reverse, keep, need_dx
):
    """Backpropagation through time for one layer in one direction.

    ``dy (T, N, H)`` is the gradient of this direction's outputs, ``dh``
    and ``dc`` those of its final states.  Returns ``(dx, (dW_x, dW_h,
    db_x, db_h, dW_r), dh0, dc0)``; ``dx`` is None unless ``need_dx``,
    ``dW_r`` None without a projection.  With a projection (``us`` the
    unprojected states) the gradient ``dr_t`` of each step's state goes
    to ``h_t`` as ``dr_t W_r``, and ``dW_r = sum_t dr_t^T h_t``.
    """
    wx, wh, bx, bh, wr = weights
    steps, batch = x.shape[:2]
    rows = wh.shape[0]
    drs = None if wr is None else xp.empty_like(dy)
    dxw = xp.empty((steps, batch, rows), dtype=x.dtype)
    dhw = dxw if cell.fold_h2h_bias else xp.empty_like(dxw)
    # two buffers taken in turn for the state gradient a step hands to
    # the step before (LSTM's dc_prev, GRU's direct part of dh_prev):
    # one step reads one while it writes the other
    like = dh if dc is None else dc
    state_rows = (xp.empty_like(like), xp.empty_like(like))
    order, read, write, _ = _slots(steps, reverse)
    dh_direct = None  # the direct part of dh from the step after (GRU)
    for t in reversed(order):
        h_prev, h = hs[t + read], hs[t + write]
        c_prev = cs[t + read] if cs is not None else None
        c = cs[t + write] if cs is not None else None
        dc_new = dc
        if keep is None:
            # dh of this step is the sum of these; a cell's kernel adds
            # them (one launch fewer per term on a GPU)
            dh_terms = (
                (dy[t], dh) if dh_direct is None else (dy[t], dh, dh_direct)
            )
        else:
            # outside the sequence the state passed through unchanged
            if dh_direct is not None:
                dh = dh + dh_direct
            dh_terms = (xp.where(keep[t], dy[t] + dh, 0), 0.0)
            dh_skip = xp.where(keep[t], 0, dh)
            if dc is not None:
                dc_new = xp.where(keep[t], dc, 0)
                dc_skip = xp.where(keep[t], 0, dc)
        if drs is not None:  # through the projection r_t = h_t W_r^T
            drs[t] = dh_terms[0] + dh_terms[1]
            dh_terms = (drs[t] @ wr, 0.0)
        # a cell may write its gradients there
        slots = (dxw[t], dhw[t], state_rows[t % 2])
        dxw_t, dhw_t, dh_direct, dc = cell.backward(
            xp, t, dh_terms, dc_new, h_prev, h, c_prev, c, slots
        )
        if dxw_t is not slots[0]:
            dxw[t] = dxw_t
        if dhw is not dxw and dhw_t is not slots[1]:
            dhw[t] = dhw_t
        dh = dhw_t @ wh
        if keep is not None:
            dh += dh_skip
            if dc is not None:
                dc = dc + dc_skip
    if dh_direct is not None:
        dh = dh + dh_direct
    # weight gradients: one product over all steps each
    flat_dxw = dxw.reshape(steps * batch, rows)
    flat_dhw = dhw.reshape(steps * batch, rows)
    h_prevs = hs[read : read + steps]  # h_{t-1} of every step t
    dwx = flat_dxw.T @ x.reshape(steps * batch, -1)
    dwh = flat_dhw.T @ h_prevs.reshape(steps * batch, -1)
    dbx = flat_dxw.sum(axis=0)
    dbh = dbx if dhw is dxw else flat_dhw.sum(axis=0)
    dwr = None
    if drs is not None:
        dwr = drs.reshape(steps * batch, -1).T @ us.reshape(steps * batch, -1)
    dx = None
    if need_dx:
        dx = (flat_dxw @ wx).reshape(x.shape)
    return dx, (dwx, dwh, dbx, dbh, dwr), dh, dc


# -- the operator ----------------------------------------------------------


@register('RNN')
class RNN(Op):
    """Fused multi-layer (bidirectional) Elman RNN, LSTM or GRU.

    forward:  per layer and direction, xw = x W_x^T + b_x for all steps,
              then for t in time order a_t = xw_t + h_{t-1} W_h^T + b_h
              and the cell rule (module docstring) gives h_t (and c_t)
    backward: for t in reverse order, da_t from dh_t (and dc_t) by the
              cell rule, dh_{t-1} = da_t W_h (+ direct terms);
              dW_x = sum da^T x,  dW_h = sum da^T h_{t-1},  db = sum da,
              dx = da W_x
    """

    skips_unneeded_grads = True

    arguments = (
        'data',
        'parameters',
        'state',
        'state_cell',
        'sequence_length',
    )
    learned_inputs = ('parameters',)
    defaults = {
        'state_size': None,
        'num_layers': None,
        'bidirectional': False,
        'mode': None,
        'p': 0.0,
        'state_outputs': False,
        'projection_size': None,
        'lstm_state_clip_min': None,
        'lstm_state_clip_max': None,
        'lstm_state_clip_nan': False,
        'use_sequence_length': False,
    }
    needs_rng = True

    def __init__(self, **attrs):
        super().__init__(**attrs)
        a = self.attrs
        mode = a['mode']
        if mode not in _GATES:
            raise DLBookError(
                f'RNN: mode must be one of {list(_GATES)}, got {mode!r}'
            )
        if a['state_size'] is None or a['num_layers'] is None:
            raise DLBookError('RNN: state_size and num_layers are required')
        self.projection = None
        if a['projection_size'] is not None:
            # MXNet's checks on GPU (cuDNN); its CPU kernel runs LSTMP
            # only for inference, and other modes not at all
            if mode != 'lstm':
                raise DLBookError(
                    'RNN: Projection is only supported for LSTM.'
                )
            self.projection = int(a['projection_size'])
            if not 0 < self.projection <= int(a['state_size']):
                raise DLBookError(
                    f'RNN: State size must be larger than projection '
                    f'size (and projection_size positive), got '
                    f'state_size={a["state_size"]}, '
                    f'projection_size={self.projection}.'
                )
        clip = (a['lstm_state_clip_min'], a['lstm_state_clip_max'])
        if clip != (None, None):
            if mode != 'lstm':
                raise DLBookError(
                    'RNN: state clipping is only supported for LSTM'
                )
            if None in clip or float(clip[0]) > float(clip[1]):
                raise DLBookError(
                    f'RNN: lstm_state_clip_min and lstm_state_clip_max '
                    f'must be given together with min <= max, got {clip}'
                )
        if not 0 <= float(a['p']) < 1:
            raise DLBookError(
                f'RNN: dropout p must be in [0, 1), got {a["p"]}'
            )
        self.mode = mode
        self.hidden = int(a['state_size'])
        self.layers = int(a['num_layers'])
        self.directions = 2 if bool(a['bidirectional']) else 1
        self.state_outputs = bool(a['state_outputs'])
        self.use_length = bool(a['use_sequence_length'])
        if self.state_outputs:
            self.num_outputs = 3 if mode == 'lstm' else 2

    # -- interface ---------------------------------------------------------
    def list_arguments(self):
        names = ['data', 'parameters', 'state']
        if self.mode == 'lstm':
            names.append('state_cell')
        if self.use_length:
            names.append('sequence_length')
        return tuple(names)

    def list_outputs(self):
        names = ['output']
        if self.state_outputs:
            names.append('state_output')
            if self.mode == 'lstm':
                names.append('statecell_output')
        return tuple(names)

    def infer_shape(self, *in_shapes):
        data = in_shapes[0]
        if data is None or len(data) != 3 or not all(data):
            return list(in_shapes), [None] * self.num_outputs, []
        steps, batch, width = (int(n) for n in data)
        D, H, P = self.directions, self.hidden, self.projection
        R = H if P is None else P  # width of the recurrent state
        state = (self.layers * D, batch, R)
        cell = (self.layers * D, batch, H)
        size = rnn_param_size(self.mode, self.layers, width, H, D, P)
        args = [(steps, batch, width), (size,), state]
        if self.mode == 'lstm':
            args.append(cell)
        if self.use_length:
            args.append((batch,))
        outs = [(steps, batch, D * R)]
        if self.state_outputs:
            outs += [state, cell][: self.num_outputs - 1]
        return args, outs, []

    # -- forward -----------------------------------------------------------
    def _split_inputs(self, inputs):
        """``(data, parameters, state, state_cell, sequence_length)``,
        None where the mode or attributes leave an input out."""
        named = dict(zip(self.list_arguments(), inputs))
        return tuple(named.get(n) for n in self.arguments)

    def _check_inputs(self, inputs):
        x = inputs[0]
        if x.ndim != 3:
            raise DLBookError(
                f'RNN: data must be (T, N, C), got shape {x.shape}'
            )
        expected, _, _ = self.infer_shape(x.shape)
        for name, array, shape in zip(self.list_arguments(), inputs, expected):
            if array.shape != shape:
                raise DLBookError(
                    f'RNN: {name} has shape {array.shape}, expected '
                    f'{shape} for data {x.shape} with mode={self.mode!r}, '
                    f'state_size={self.hidden}, num_layers={self.layers}, '
                    f'bidirectional={self.directions == 2}, '
                    f'projection_size={self.projection}'
                )
            if name != 'sequence_length' and array.dtype != x.dtype:
                raise DLBookError(
                    f'RNN: {name} has dtype {array.dtype} '
                    f'but data has {x.dtype}; the inputs '
                    f'must share one dtype'
                )

    def _clip(self):
        """``(low, high, stop_nan)`` for LSTM state clipping, or None."""
        low = self.attrs['lstm_state_clip_min']
        if low is None:
            return None
        return (
            float(low),
            float(self.attrs['lstm_state_clip_max']),
            bool(self.attrs['lstm_state_clip_nan']),
        )

    def _dropout_mask(self, xp, shape, dtype):
        p = float(self.attrs['p'])
        draw = xp.asarray(self.rng.uniform(0.0, 1.0, size=shape))
        return (draw >= p).astype(dtype) * (1 / (1 - p))

    def forward(self, xp, *inputs):
        if len(inputs) != len(self.list_arguments()):
            raise DLBookError(
                f'RNN: expected inputs {self.list_arguments()} for '
                f'mode={self.mode!r}, got {len(inputs)} array(s)'
            )
        self._check_inputs(inputs)
        x, params, h0, c0, length = self._split_inputs(inputs)
        steps, batch, width = x.shape
        D, H, L = self.directions, self.hidden, self.layers
        weights = _unpack(params, self.mode, L, width, H, D, self.projection)
        keep = None
        if length is not None:
            # (T, N, 1): step t lies inside sequence n
            lengths = length.astype('int64')
            keep = (xp.arange(steps)[:, None] < lengths[None, :])[..., None]
        dropout = self.is_train and float(self.attrs['p']) > 0
        hy = xp.empty(h0.shape, dtype=x.dtype)
        cy = xp.empty(c0.shape, dtype=x.dtype) if c0 is not None else None
        layer_inputs, runs, masks = [], [], []
        layer_in = x
        for layer in range(L):
            outputs = []
            for d in range(D):
                k = layer * D + d
                reverse = d == 1
                cell = _make_cell(
                    xp, self.mode, steps, batch, H, x.dtype, self._clip()
                )
                hs, cs, us = _direction_forward(
                    xp,
                    cell,
                    layer_in,
                    weights[k],
                    h0[k],
                    None if c0 is None else c0[k],
                    reverse,
                    keep,
                )
                runs.append((cell, hs, cs, us))
                # the last state: row 0 going backward, row T going forward
                last = 0 if reverse else steps
                hy[k] = hs[last]
                if cy is not None:
                    cy[k] = cs[last]
                outputs.append(hs[:-1] if reverse else hs[1:])
            # a fresh array: the saved states must not share the output
            out = (
                outputs[0].copy()
                if D == 1
                else xp.concatenate(outputs, axis=2)
            )
            if keep is not None:  # zeros after each sequence's end
                out = xp.where(keep, out, 0)
            layer_inputs.append(layer_in)
            mask = None
            if dropout and layer < L - 1:
                mask = self._dropout_mask(xp, out.shape, x.dtype)
                out = out * mask
            masks.append(mask)
            layer_in = out
        self.saved = (
            weights,
            layer_inputs,
            runs,
            masks,
            keep,
            params.shape,
            h0.shape,
            None if c0 is None else c0.shape,
        )
        if not self.state_outputs:
            return out
        if cy is not None:
            return out, hy, cy
        return out, hy

    # -- backward ----------------------------------------------------------
    def backward(self, xp, dy, dhy=None, dcy=None):
        (
            weights,
            layer_inputs,
            runs,
            masks,
            keep,
            params_shape,
            state_shape,
            cell_shape,
        ) = self.saved
        has_cell = cell_shape is not None
        D, H, L = self.directions, self.hidden, self.layers
        dtype = dy.dtype
        if dhy is None:
            dhy = xp.zeros(state_shape, dtype=dtype)
        if has_cell and dcy is None:
            dcy = xp.zeros(cell_shape, dtype=dtype)
        dparams = xp.zeros(params_shape, dtype=dtype)
        dweights = _unpack(
            dparams,
            self.mode,
            L,
            layer_inputs[0].shape[2],
            H,
            D,
            self.projection,
        )
        dh0 = xp.empty(state_shape, dtype=dtype)
        dc0 = xp.empty(cell_shape, dtype=dtype) if has_cell else None
        R = state_shape[2]  # H, or P with a projection
        # the data gradient of the first layer only when someone wants it
        needs = self.needs_input_grad
        want_data = needs is None or needs[0]
        d_out = dy
        for layer in range(L - 1, -1, -1):
            x = layer_inputs[layer]
            d_in = None
            for d in range(D):
                k = layer * D + d
                cell, hs, cs, us = runs[k]
                dx, grads, dh, dc = _direction_backward(
                    xp,
                    cell,
                    x,
                    weights[k],
                    hs,
                    cs,
                    us,
                    d_out[:, :, d * R : (d + 1) * R],
                    dhy[k],
                    dcy[k] if has_cell else None,
                    d == 1,
                    keep,
                    layer > 0 or want_data,
                )
                dh0[k] = dh
                if has_cell:
                    dc0[k] = dc
                for target, grad in zip(dweights[k], grads):
                    if target is not None:
                        target[...] = grad
                if dx is not None:
                    d_in = dx if d_in is None else d_in + dx
            # below the top layer, the output gradient is the input
            # gradient of the layer above, through its dropout mask
            if layer > 0 and masks[layer - 1] is not None:
                d_in = d_in * masks[layer - 1]
            d_out = d_in
        grads = [d_out, dparams, dh0]
        if has_cell:
            grads.append(dc0)
        if self.use_length:
            grads.append(None)
        return tuple(grads)
