"""Cells made of other cells: the stacks :class:`SequentialRNNCell` and
:class:`HybridSequentialRNNCell`, and :class:`BidirectionalCell`, which
reads a sequence both ways."""

from ...base import DLBookError
from ..block import _indent
from .base_cell import (
    HybridRecurrentCell,
    RecurrentCell,
    _cells_begin_state,
    _cells_state_info,
    _format_sequence,
    _get_begin_state,
    _is_tensor,
    _mask_sequence_variable_length,
    _unstack,
)

__all__ = ['SequentialRNNCell', 'HybridSequentialRNNCell', 'BidirectionalCell']


def _reverse_steps(F, steps, length, valid_length):
    """The list of ``length`` time steps ``steps`` in reverse order.

    With ``valid_length`` (shape ``(N,)``) each sequence is reversed within
    its own length and its padding stays at the end, so that the backward
    cell of :class:`BidirectionalCell` starts at each sequence's last real
    step.  Reversing twice gives the steps back, which is how the backward
    outputs are put back in time order.
    """
    if valid_length is None:
        return list(reversed(steps))
    return _unstack(
        F,
        F.SequenceReverse(
            F.stack(*steps, axis=0),
            sequence_length=valid_length,
            use_sequence_length=True,
            axis=0,
        ),
        length,
    )


class _SequentialCellMixin:
    """Stacking: each cell's output is the next cell's input; the states
    are the concatenation of every cell's states."""

    def __repr__(self):
        # MXNet does not indent the children here
        body = '\n'.join(
            f'({key}): {_indent(repr(cell), 2)}'
            for key, cell in self._children.items()
        )
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
                raise DLBookError(
                    'A BidirectionalCell in a sequential stack '
                    'cannot be stepped; use unroll instead.'
                )
            n = len(cell.state_info())
            inputs, state = cell(inputs, states[p : p + n])
            p += n
            next_states.extend(state)
        return inputs, next_states

    def unroll(
        self,
        length,
        inputs,
        begin_state=None,
        layout='NTC',
        merge_outputs=None,
        valid_length=None,
    ):
        """Unroll each cell over the whole sequence in turn (see
        :meth:`RecurrentCell.unroll`)."""
        self.reset()
        inputs, _, F, batch_size = _format_sequence(
            length, inputs, layout, None
        )
        num_cells = len(self._children)
        begin_state = _get_begin_state(
            self, F, begin_state, inputs, batch_size
        )
        p = 0
        next_states = []
        for i, cell in enumerate(self._children.values()):
            n = len(cell.state_info())
            states = begin_state[p : p + n]
            p += n
            inputs, states = cell.unroll(
                length,
                inputs=inputs,
                begin_state=states,
                layout=layout,
                merge_outputs=None if i < num_cells - 1 else merge_outputs,
                valid_length=valid_length,
            )
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
        raise NotImplementedError(
            'Bidirectional cannot be stepped. Please use unroll'
        )

    def __repr__(self):
        return (
            f'{type(self).__name__}(forward={self._children["l_cell"]}, '
            f'backward={self._children["r_cell"]})'
        )

    def state_info(self, batch_size=0):
        return _cells_state_info(self._children.values(), batch_size)

    def begin_state(self, **kwargs):
        self._check_not_modified()
        return _cells_begin_state(self._children.values(), **kwargs)

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
        inputs, axis, F, batch_size = _format_sequence(
            length, inputs, layout, False
        )
        reversed_inputs = _reverse_steps(F, inputs, length, valid_length)
        begin_state = _get_begin_state(
            self, F, begin_state, inputs, batch_size
        )
        l_cell, r_cell = self._children.values()
        n_l = len(l_cell.state_info(batch_size))
        l_outputs, l_states = l_cell.unroll(
            length,
            inputs=inputs,
            begin_state=begin_state[:n_l],
            layout=layout,
            merge_outputs=merge_outputs,
            valid_length=valid_length,
        )
        r_outputs, r_states = r_cell.unroll(
            length,
            inputs=reversed_inputs,
            begin_state=begin_state[n_l:],
            layout=layout,
            merge_outputs=False,
            valid_length=valid_length,
        )
        reversed_r_outputs = _reverse_steps(F, r_outputs, length, valid_length)
        if merge_outputs is None:
            merge_outputs = _is_tensor(l_outputs)
        # both directions in the same form: one array in ``layout`` or a
        # list of steps (the l_cell may have returned either, and the
        # reversed r outputs are a list)
        l_outputs, _, _, _ = _format_sequence(
            None, l_outputs, layout, merge_outputs
        )
        reversed_r_outputs, _, _, _ = _format_sequence(
            None, reversed_r_outputs, layout, merge_outputs
        )
        if merge_outputs:
            outputs = F.concat(
                l_outputs,
                reversed_r_outputs,
                dim=2,
                name=f'{self._output_prefix}out',
            )
        else:
            outputs = [
                F.concat(l_o, r_o, dim=1, name=f'{self._output_prefix}t{i}')
                for i, (l_o, r_o) in enumerate(
                    zip(l_outputs, reversed_r_outputs)
                )
            ]
        if valid_length is not None:
            outputs = _mask_sequence_variable_length(
                F, outputs, length, valid_length, axis, merge_outputs
            )
        return outputs, l_states + r_states
