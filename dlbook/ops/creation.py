"""Operators that create arrays from attributes alone (no inputs).

``nd.zeros((2, 3))`` and ``sym.zeros((2, 3))`` both run these; the device
comes from the front end (the ``ctx`` argument or the default context).
"""

from .op import Op, cast_scalar, register

_SHAPE_DTYPE = {'shape': (), 'dtype': 'float32'}


class _Creation(Op):
    arguments = ()
    differentiable = False
    defaults = _SHAPE_DTYPE


@register('_zeros', 'zeros')
class Zeros(_Creation):
    """y = 0 everywhere, of the given shape and dtype."""

    def forward(self, xp):
        return xp.zeros(self.attrs['shape'], dtype=self.attrs['dtype'])


@register('_ones', 'ones')
class Ones(_Creation):
    """y = 1 everywhere, of the given shape and dtype."""

    def forward(self, xp):
        return xp.ones(self.attrs['shape'], dtype=self.attrs['dtype'])


@register('_full', 'full')
class Full(_Creation):
    """y = value everywhere, of the given shape and dtype."""

    defaults = {'shape': (), 'value': 0.0, 'dtype': 'float32'}

    def forward(self, xp):
        dtype = xp.dtype(self.attrs['dtype'])
        return xp.full(
            self.attrs['shape'],
            cast_scalar(xp, self.attrs['value'], dtype),
            dtype=dtype,
        )


@register('_arange', 'arange')
class Arange(_Creation):
    """y = start, start + step, ... < stop, each value repeated ``repeat``
    times (MXNet's ``arange(start, stop=None, step=1.0, repeat=1)``)."""

    defaults = {
        'start': 0.0,
        'stop': None,
        'step': 1.0,
        'repeat': 1,
        'infer_range': False,
        'dtype': 'float32',
    }

    def forward(self, xp):
        a = self.attrs
        start, stop = a['start'], a['stop']
        if stop is None:
            start, stop = 0.0, start
        y = xp.arange(start, stop, a['step']).astype(a['dtype'])
        if a['repeat'] != 1:
            y = xp.repeat(y, int(a['repeat']))
        return y


@register('_linspace', 'linspace')
class Linspace(_Creation):
    """``num`` evenly spaced values from start to stop."""

    defaults = {
        'start': 0.0,
        'stop': 1.0,
        'num': 50,
        'endpoint': True,
        'dtype': 'float32',
    }

    def forward(self, xp):
        a = self.attrs
        return xp.linspace(
            a['start'], a['stop'], int(a['num']), endpoint=a['endpoint']
        ).astype(a['dtype'])


@register('_eye', 'eye')
class Eye(_Creation):
    """Ones on the k-th diagonal of an N x M matrix, zeros elsewhere."""

    defaults = {'N': 1, 'M': 0, 'k': 0, 'dtype': 'float32'}

    def forward(self, xp):
        a = self.attrs
        return xp.eye(
            int(a['N']), int(a['M']) or None, int(a['k']), dtype=a['dtype']
        )


@register('_empty', 'empty')
class Empty(_Creation):
    """Uninitialised memory of the given shape (zeros in dlbook, so runs
    stay reproducible)."""

    def forward(self, xp):
        return xp.zeros(self.attrs['shape'], dtype=self.attrs['dtype'])
