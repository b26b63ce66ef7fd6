"""MXNet 1.9.1's ``gluon.contrib.rnn`` cells.

* :class:`VariationalDropoutCell`: variational dropout (Gal & Ghahramani,
  2016), one dropout mask per sequence, shared by every time step, on a
  base cell's inputs, first state and outputs.
* :class:`LSTMPCell`: an LSTM whose recurrent state is a projection
  ``r_t = W_hr h_t`` of the hidden state (Sak et al., 2014).
"""

from ...rnn.base_cell import (
    HybridRecurrentCell,
    _format_sequence,
    _get_begin_state,
    _is_tensor,
    _mask_sequence_variable_length,
)
from ...rnn.container_cells import BidirectionalCell, SequentialRNNCell
from ...rnn.modifier_cells import ModifierCell

__all__ = ['VariationalDropoutCell', 'LSTMPCell']


class VariationalDropoutCell(ModifierCell):
    """Apply variational dropout to ``base_cell``.

    The masks are drawn at the first step and kept until :meth:`reset`
    (which :meth:`unroll` calls), so a cell stepped by hand must be reset
    after each sequence.  In prediction mode dropout is the identity and
    the cell behaves as its base cell.
    """

    def __init__(
        self, base_cell, drop_inputs=0.0, drop_states=0.0, drop_outputs=0.0
    ):
        assert not drop_states or not isinstance(
            base_cell, BidirectionalCell
        ), (
            "BidirectionalCell doesn't support variational state dropout. "
            'Please add VariationalDropoutCell to the cells underneath instead.'
        )
        assert (
            not drop_states
            or not isinstance(base_cell, SequentialRNNCell)
            or not getattr(base_cell, '_bidirectional', False)
        ), (
            "Bidirectional SequentialRNNCell doesn't support variational state "
            'dropout. Please add VariationalDropoutCell to the cells underneath '
            'instead.'
        )
        super().__init__(base_cell)
        self.drop_inputs = drop_inputs
        self.drop_states = drop_states
        self.drop_outputs = drop_outputs
        self.drop_inputs_mask = None
        self.drop_states_mask = None
        self.drop_outputs_mask = None

    def _alias(self):
        return 'vardrop'

    def reset(self):
        super().reset()
        self.drop_inputs_mask = None
        self.drop_states_mask = None
        self.drop_outputs_mask = None

    def _initialize_input_masks(self, F, inputs, states):
        if self.drop_states and self.drop_states_mask is None:
            self.drop_states_mask = F.Dropout(
                F.ones_like(states[0]), p=self.drop_states
            )
        if self.drop_inputs and self.drop_inputs_mask is None:
            self.drop_inputs_mask = F.Dropout(
                F.ones_like(inputs), p=self.drop_inputs
            )

    def _initialize_output_mask(self, F, output):
        if self.drop_outputs and self.drop_outputs_mask is None:
            self.drop_outputs_mask = F.Dropout(
                F.ones_like(output), p=self.drop_outputs
            )

    def hybrid_forward(self, F, inputs, states):
        cell = self.base_cell
        self._initialize_input_masks(F, inputs, states)
        if self.drop_states:
            states = list(states)
            # only h, always the first state, is dropped
            states[0] = states[0] * self.drop_states_mask
        if self.drop_inputs:
            inputs = inputs * self.drop_inputs_mask
        next_output, next_states = cell(inputs, states)
        self._initialize_output_mask(F, next_output)
        if self.drop_outputs:
            next_output = next_output * self.drop_outputs_mask
        return next_output, next_states

    def __repr__(self):
        return (
            f'{type(self).__name__}(p_out = {self.drop_outputs}, '
            f'p_state = {self.drop_states})'
        )

    def unroll(
        self,
        length,
        inputs,
        begin_state=None,
        layout='NTC',
        merge_outputs=None,
        valid_length=None,
    ):
        # without state dropout, input and output dropout act on the whole
        # sequence at once (one mask broadcast along the time axis)
        if self.drop_states:
            return super().unroll(
                length,
                inputs,
                begin_state,
                layout,
                merge_outputs,
                valid_length=valid_length,
            )
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(
            length, inputs, layout, True
        )
        states = _get_begin_state(self, F, begin_state, inputs, batch_size)
        if self.drop_inputs:
            inputs = F.Dropout(inputs, p=self.drop_inputs, axes=(axis,))
        self.base_cell._modified = False
        try:
            outputs, states = self.base_cell.unroll(
                length,
                inputs,
                states,
                layout,
                merge_outputs=True,
                valid_length=valid_length,
            )
        finally:
            self.base_cell._modified = True
        if self.drop_outputs:
            outputs = F.Dropout(outputs, p=self.drop_outputs, axes=(axis,))
        if merge_outputs is None:
            merge_outputs = _is_tensor(outputs)
        outputs, _, _, _ = _format_sequence(
            length, outputs, layout, merge_outputs
        )
        if valid_length is not None:
            outputs = _mask_sequence_variable_length(
                F, outputs, length, valid_length, axis, merge_outputs
            )
        return outputs, states


class LSTMPCell(HybridRecurrentCell):
    r"""Long short-term memory cell with a projected recurrent state::

        i, f, g, o = split(W_i2h x_t + b_i2h + W_h2h r_{t-1} + b_h2h)
        c_t = sigmoid(f) * c_{t-1} + sigmoid(i) * tanh(g)
        h_t = sigmoid(o) * tanh(c_t)
        r_t = W_h2r h_t

    States are ``[r (N, projection_size), c (N, hidden_size)]``; the
    output is ``r_t``.
    """

    def __init__(
        self,
        hidden_size,
        projection_size,
        i2h_weight_initializer=None,
        h2h_weight_initializer=None,
        h2r_weight_initializer=None,
        i2h_bias_initializer='zeros',
        h2h_bias_initializer='zeros',
        input_size=0,
        prefix=None,
        params=None,
    ):
        super().__init__(prefix=prefix, params=params)
        self._hidden_size = hidden_size
        self._input_size = input_size
        self._projection_size = projection_size
        self.i2h_weight = self.params.get(
            'i2h_weight',
            shape=(4 * hidden_size, input_size),
            init=i2h_weight_initializer,
            allow_deferred_init=True,
        )
        self.h2h_weight = self.params.get(
            'h2h_weight',
            shape=(4 * hidden_size, projection_size),
            init=h2h_weight_initializer,
            allow_deferred_init=True,
        )
        self.h2r_weight = self.params.get(
            'h2r_weight',
            shape=(projection_size, hidden_size),
            init=h2r_weight_initializer,
            allow_deferred_init=True,
        )
        self.i2h_bias = self.params.get(
            'i2h_bias',
            shape=(4 * hidden_size,),
            init=i2h_bias_initializer,
            allow_deferred_init=True,
        )
        self.h2h_bias = self.params.get(
            'h2h_bias',
            shape=(4 * hidden_size,),
            init=h2h_bias_initializer,
            allow_deferred_init=True,
        )

    def state_info(self, batch_size=0):
        return [
            {'shape': (batch_size, self._projection_size), '__layout__': 'NC'},
            {'shape': (batch_size, self._hidden_size), '__layout__': 'NC'},
        ]

    def _alias(self):
        return 'lstmp'

    def __repr__(self):
        shape = self.i2h_weight.shape
        proj_shape = self.h2r_weight.shape
        mapping = f'{shape[1] if shape[1] else None} -> {shape[0]} -> {proj_shape[0]}'
        return f'{type(self).__name__}({mapping})'

    def hybrid_forward(
        self,
        F,
        inputs,
        states,
        i2h_weight,
        h2h_weight,
        h2r_weight,
        i2h_bias,
        h2h_bias,
    ):
        prefix = f't{self._counter}_'
        i2h = F.FullyConnected(
            data=inputs,
            weight=i2h_weight,
            bias=i2h_bias,
            num_hidden=self._hidden_size * 4,
            name=prefix + 'i2h',
        )
        h2h = F.FullyConnected(
            data=states[0],
            weight=h2h_weight,
            bias=h2h_bias,
            num_hidden=self._hidden_size * 4,
            name=prefix + 'h2h',
        )
        gates = i2h + h2h
        slice_gates = F.SliceChannel(
            gates, num_outputs=4, name=prefix + 'slice'
        )
        in_gate = F.Activation(
            slice_gates[0], act_type='sigmoid', name=prefix + 'i'
        )
        forget_gate = F.Activation(
            slice_gates[1], act_type='sigmoid', name=prefix + 'f'
        )
        in_transform = F.Activation(
            slice_gates[2], act_type='tanh', name=prefix + 'c'
        )
        out_gate = F.Activation(
            slice_gates[3], act_type='sigmoid', name=prefix + 'o'
        )
        next_c = F.elemwise_add(
            forget_gate * states[1],
            in_gate * in_transform,
            name=prefix + 'state',
        )
        hidden = F.elemwise_mul(
            out_gate,
            F.Activation(next_c, act_type='tanh'),
            name=prefix + 'hidden',
        )
        next_r = F.FullyConnected(
            data=hidden,
            num_hidden=self._projection_size,
            weight=h2r_weight,
            no_bias=True,
            name=prefix + 'out',
        )
        return next_r, [next_r, next_c]
