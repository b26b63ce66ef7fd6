"""``Constant``: a parameter that is never trained.

A Block keeps fixed arrays (a lookup table, a mask) as constants, created
with ``self.params.get_constant(name, value)``: they are saved, loaded and
moved between devices like any parameter, but have no gradient.
"""

import warnings

from .. import ndarray as nd
from .parameter_core import Parameter


class Constant(Parameter):
    """A parameter that never changes (``grad_req='null'``).

    Parameters
    ----------
    name : str
    value : array-like or NDArray
    """

    def __init__(self, name, value):
        if not isinstance(value, nd.NDArray):
            value = nd.array(value)
        self.value = value
        from .. import initializer

        class _ConstantInit(initializer.Initializer):
            def _init_weight(self, _, arr):
                arr[:] = value

        super().__init__(
            name,
            grad_req='null',
            shape=value.shape,
            dtype=value.dtype,
            init=_ConstantInit(),
        )

    def __repr__(self):
        return f'Constant {self.name} (shape={self.shape}, dtype={self.dtype})'

    @property
    def grad_req(self):
        return 'null'

    @grad_req.setter
    def grad_req(self, req):
        if req != 'null':
            warnings.warn(
                f'Constant parameter "{self.name}" does not '
                f'support grad_req other than "null", and new '
                f'value "{req}" is ignored.',
                stacklevel=2,
            )
        self._grad_req = 'null'
