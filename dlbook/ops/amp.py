"""Operators for mixed precision and quantization-aware training.

``amp_cast`` and ``amp_multicast`` are the casts that MXNet's automatic
mixed precision (``mx.contrib.amp``) inserts into a graph; unlike
``Cast`` they leave non-float arrays alone.  ``reset_arrays`` zeroes
arrays in place (what AMP's and the multi-tensor optimizers' gradient
resets call).  ``round_ste`` and ``sign_ste`` round with a
*straight-through estimator*: the forward pass rounds, the backward pass
pretends it did not (the gradient passes unchanged), so a network with
quantized weights can still be trained.

References: src/operator/tensor/amp_cast.{h,cc},
src/operator/contrib/reset_arrays.cc, src/operator/contrib/stes_op.cc.
"""

from ..base import DLBookError
from .op import Op, register

__all__ = ['AmpCast', 'AmpMultiCast', 'ResetArrays', 'RoundSTE', 'SignSTE']

_FLOATS = ('float16', 'float32', 'float64')


def _is_float(dtype):
    return dtype.name in _FLOATS


@register('amp_cast')
class AmpCast(Op):
    """y = x converted to ``dtype`` if x is a float array, else x unchanged
    (an int32 array stays int32);   dx = dy converted back to x's dtype.

    A float cast to an integer type truncates towards zero, as ``Cast``.
    (MXNet's MKL-DNN CPU kernel rounds float32 to nearest instead, and
    fails for float64; its generic and GPU kernels truncate.)
    """

    defaults = {'dtype': None}

    def forward(self, xp, x):
        dtype = self.attrs['dtype']
        if dtype is None:
            raise DLBookError(
                "amp_cast: the dtype attribute is required, e.g. "
                "nd.amp_cast(x, dtype='float16')"
            )
        self.saved = (x.dtype,)
        return x.astype(dtype) if _is_float(x.dtype) else x.copy()

    def out_dtypes(self, in_dtypes):
        d = in_dtypes[0]
        return [self.attrs['dtype'] if d in _FLOATS else d]

    def backward(self, xp, dy):
        return dy.astype(self.saved[0], copy=False)


@register('amp_multicast')
class AmpMultiCast(Op):
    """y_i = x_i cast to one common float type; dx_i = dy_i cast back to
    x_i's dtype.

    Only float16 and float32 inputs take part: they are all cast to the
    widest of them (float32 if any is), or with ``cast_narrow=True`` to
    the narrowest (float16 if any is).  float64 and integer inputs pass
    unchanged, so that the operands of a binary operator agree before
    it runs.  ``num_outputs`` is the number of inputs (and outputs).
    """

    variadic = True
    defaults = {'num_outputs': None, 'cast_narrow': False}

    def __init__(self, **attrs):
        super().__init__(**attrs)
        self.num_outputs = int(self.attrs['num_outputs'] or 1)

    def list_arguments(self):
        return tuple(f'data_{i}' for i in range(self.num_outputs))

    def list_outputs(self):
        return tuple(f'output{i}' for i in range(self.num_outputs))

    def _target(self, names):
        taking_part = [n for n in names if n in ('float16', 'float32')]
        if not taking_part:
            return None
        wide = 'float32' in taking_part
        narrow = 'float16' in taking_part
        if self.attrs['cast_narrow']:
            return 'float16' if narrow else 'float32'
        return 'float32' if wide else 'float16'

    def out_dtypes(self, in_dtypes):
        target = self._target(in_dtypes)
        return [
            target if d in ('float16', 'float32') else d for d in in_dtypes
        ]

    def forward(self, xp, *arrays):
        if len(arrays) != self.num_outputs:
            raise DLBookError(
                f'amp_multicast: num_outputs={self.attrs["num_outputs"]} '
                f'but {len(arrays)} inputs were given'
            )
        target = self._target([a.dtype.name for a in arrays])
        self.saved = tuple(a.dtype for a in arrays)
        out = tuple(
            a.astype(target)
            if a.dtype.name in ('float16', 'float32')
            else a.copy()
            for a in arrays
        )
        return out if len(out) > 1 else out[0]

    def backward(self, xp, *dys):
        return tuple(
            None if d is None else d.astype(t, copy=False)
            for d, t in zip(dys, self.saved)
        )


@register('reset_arrays')
class ResetArrays(Op):
    """Set every input to zero in place; no outputs, no gradient.

    ``nd.reset_arrays(a, b, num_arrays=2)`` returns an empty list and
    leaves ``a`` and ``b`` filled with zeros.  Only float arrays are
    accepted, as in MXNet.
    """

    variadic = True
    differentiable = False
    num_outputs = 0
    defaults = {'num_arrays': None}

    def list_arguments(self):
        return tuple(
            f'data_{i}' for i in range(int(self.attrs['num_arrays'] or 0))
        )

    def list_outputs(self):
        return ()

    def forward(self, xp, *arrays):
        count = self.attrs['num_arrays']
        if count is None or int(count) != len(arrays):
            raise DLBookError(
                f'reset_arrays: num_arrays={count!r} must be the number of '
                f'inputs ({len(arrays)})'
            )
        for a in arrays:
            if not _is_float(a.dtype):
                raise DLBookError(
                    f'reset_arrays: only float arrays can be reset, got '
                    f'{a.dtype.name}'
                )
        for a in arrays:
            a[...] = 0
        return ()


@register('_contrib_round_ste')
class RoundSTE(Op):
    """y = round(x) (halves away from zero: 2.5 -> 3, -2.5 -> -3);
    dx = dy (straight-through: rounding is treated as the identity).
    Integer arrays are returned unchanged (a copy)."""

    def forward(self, xp, x):
        if x.dtype.kind != 'f':
            return x.copy()
        t = xp.trunc(x)
        return xp.where(xp.abs(x - t) >= 0.5, t + xp.sign(x), t).astype(
            x.dtype, copy=False
        )

    def backward(self, xp, dy):
        return dy


@register('_contrib_sign_ste')
class SignSTE(Op):
    """y = sign(x) (-1, 0 or 1);   dx = dy (straight-through)."""

    def forward(self, xp, x):
        return xp.sign(x)

    def backward(self, xp, dy):
        return dy
