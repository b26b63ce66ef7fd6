"""Cells that wrap a base cell and change what it does:
:class:`ModifierCell` and its :class:`ZoneoutCell` and
:class:`ResidualCell`."""

from ... import ndarray as nd
from ...base import DLBookError
from .base_cell import (
    HybridRecurrentCell,
    _format_sequence,
    _is_tensor,
    _mask_sequence_variable_length,
)
from .container_cells import BidirectionalCell

__all__ = ['ModifierCell', 'ZoneoutCell', 'ResidualCell']


class ModifierCell(HybridRecurrentCell):
    """Base class of cells that wrap a ``base_cell`` and change its
    behaviour (zoneout, residual connection).

    Once wrapped, the base cell must not be called directly; the modifier
    shares its parameters.
    """

    def __init__(self, base_cell):
        if base_cell._modified:
            raise DLBookError(
                f'Cell {base_cell.name} is already modified. '
                f'One cell cannot be modified twice'
            )
        base_cell._modified = True
        super().__init__(prefix=base_cell.prefix + self._alias(), params=None)
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

    def __init__(self, base_cell, zoneout_outputs=0.0, zoneout_states=0.0):
        if isinstance(base_cell, BidirectionalCell):
            raise DLBookError(
                "BidirectionalCell doesn't support zoneout since it doesn't "
                "support step. Please add ZoneoutCell to the cells "
                "underneath instead."
            )
        super().__init__(base_cell)
        self.zoneout_outputs = zoneout_outputs
        self.zoneout_states = zoneout_states
        self._prev_output = None

    def __repr__(self):
        return (
            f'{type(self).__name__}(p_out={self.zoneout_outputs}, '
            f'p_state={self.zoneout_states}, {self.base_cell})'
        )

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
        if p_out != 0.0:
            output = F.where(
                mask(p_out, next_output), next_output, prev_output
            )
        if p_state != 0.0:
            next_states = [
                F.where(mask(p_state, new), new, old)
                for new, old in zip(next_states, states)
            ]
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
        self.base_cell._modified = False
        try:
            outputs, states = self.base_cell.unroll(
                length,
                inputs=inputs,
                begin_state=begin_state,
                layout=layout,
                merge_outputs=merge_outputs,
                valid_length=valid_length,
            )
        finally:
            self.base_cell._modified = True
        if merge_outputs is None:
            merge_outputs = _is_tensor(outputs)
        inputs, axis, F, _ = _format_sequence(
            length, inputs, layout, merge_outputs
        )
        if valid_length is not None:
            # padded steps have zero outputs: add zeros there, too
            inputs = _mask_sequence_variable_length(
                F, inputs, length, valid_length, axis, merge_outputs
            )
        if merge_outputs:
            outputs = F.elemwise_add(outputs, inputs)
        else:
            outputs = [F.elemwise_add(o, x) for o, x in zip(outputs, inputs)]
        return outputs, states
