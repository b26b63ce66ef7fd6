"""NumPy-mode operators behind ``np.around``, the bit-wise functions,
``np.lcm``, ``np.roll``, ``np.rot90``, ``np.tril``, ``np.pad`` and
``np.percentile``, under MXNet 1.9.1's operator names.

Rounding follows MXNet's kernel, not NumPy's: the value is scaled by ten
``|decimals|`` times in its own dtype (integer division truncates for
integer arrays), rounded half to even, and scaled back; its gradient is
zero.  ``_npi_pad`` has a gradient only in ``'constant'`` mode, as in
MXNet; ``_npi_percentile`` records a zero gradient.
"""

from ..base import DLBookError
from .binary import _Binary
from .op import Op, normalize_axis, register


def _integer(op_name, *arrays):
    for a in arrays:
        if a.dtype.kind not in 'iu':
            raise DLBookError(
                f'{op_name}: only integer arrays are supported, got {a.dtype}'
            )
    dtypes = {a.dtype for a in arrays}
    if len(dtypes) > 1:
        raise DLBookError(
            f'{op_name}: the inputs must share one dtype, got '
            f'{sorted(str(d) for d in dtypes)}'
        )


@register('_npi_around')
class NpAround(Op):
    """y = x rounded to ``decimals`` decimal places, half to even
    (integer arrays: unchanged for decimals >= 0, else truncated to a
    multiple of 10**-decimals);  dx = 0"""

    defaults = {'decimals': 0}
    reads_train_mode = False

    def forward(self, xp, x):
        decimals = int(self.attrs['decimals'])
        if x.dtype.kind in 'iub':
            if decimals >= 0:
                return x.copy()
            y = x
            for _ in range(-decimals):  # C division: truncates toward 0
                y = (xp.abs(y) // 10 * xp.sign(y)).astype(x.dtype)
            for _ in range(-decimals):
                y = y * 10
            return y.astype(x.dtype)
        ten = xp.asarray(10, dtype=x.dtype)
        t = x
        for _ in range(abs(decimals)):
            t = t * ten if decimals > 0 else t / ten
        # C's round (half away from zero) in double, then MXNet's
        # correction of odd results at exact halves: half to even
        t64 = t.astype('float64')
        r = xp.sign(t64) * xp.floor(xp.abs(t64) + 0.5)
        odd = xp.fmod(r, 2) != 0
        down = odd & (r - t64 == 0.5)
        up = odd & (t64 - r == 0.5)
        r = xp.where(down, r - 1, xp.where(up, r + 1, r))
        r = r.astype(x.dtype)
        for _ in range(abs(decimals)):
            r = r / ten if decimals > 0 else r * ten
        return r.astype(x.dtype)

    def backward(self, xp, dy):
        return xp.zeros_like(dy)


class _Bitwise(_Binary):
    """Integer-only binary operator without a gradient."""

    differentiable = False
    needs_values = False

    def f(self, xp, a, b):
        _integer(self.name, a, b)
        return getattr(xp, self.function)(a, b)

    def infer_shape(self, a, b):
        """The broadcast shape, without running on (float) stand-ins."""
        if a is None or b is None:
            return [a, b], [None], []
        n = max(len(a), len(b))
        a1, b1 = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
        if any(x != y and 1 not in (x, y) for x, y in zip(a1, b1)):
            raise DLBookError(
                f'{self.name}: shapes {a} and {b} cannot be broadcast'
            )
        return [a, b], [tuple(max(x, y) for x, y in zip(a1, b1))], []


@register('_npi_bitwise_and')
class NpBitwiseAnd(_Bitwise):
    """z = a & b (integers)"""

    function = 'bitwise_and'


@register('_npi_bitwise_or')
class NpBitwiseOr(_Bitwise):
    """z = a | b (integers)"""

    function = 'bitwise_or'


@register('_npi_bitwise_xor')
class NpBitwiseXor(_Bitwise):
    """z = a ^ b (integers)"""

    function = 'bitwise_xor'


@register('_npi_lcm')
class NpLcm(_Bitwise):
    """z = the lowest common multiple of |a| and |b| (0 when either is 0)"""

    function = 'lcm'


@register('_npi_bitwise_not')
class NpBitwiseNot(Op):
    """y = ~x (integers)"""

    differentiable = False
    reads_train_mode = False

    def forward(self, xp, x):
        _integer(self.name, x)
        return xp.invert(x)

    def infer_shape(self, x):
        return [x], [x], []


def _roll_spec(attrs, ndim, name):
    shift, axis = attrs['shift'], attrs['axis']
    if axis is None:
        if isinstance(shift, (tuple, list)):
            if len(shift) != 1:
                raise DLBookError(
                    f'{name}: shift must be an int when axis is None, got '
                    f'{shift}'
                )
            shift = shift[0]
        return int(shift), None
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    axes = tuple(normalize_axis(a, ndim, name) for a in axes)
    shifts = tuple(shift) if isinstance(shift, (tuple, list)) else (shift,)
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    if len(shifts) != len(axes):
        raise DLBookError(
            f'{name}: shift and axis must have the same length, got '
            f'{shift} and {axis}'
        )
    return tuple(int(s) for s in shifts), axes


@register('_np_roll')
class NpRoll(Op):
    """y = x with its elements shifted by ``shift`` along ``axis``
    (the flattened array when ``axis`` is None), wrapping around;
    dx = dy shifted back"""

    defaults = {'shift': None, 'axis': None}
    reads_train_mode = False

    def forward(self, xp, x):
        self.saved = _roll_spec(self.attrs, x.ndim, self.name)
        shift, axes = self.saved
        return xp.roll(x, shift, axis=axes)

    def backward(self, xp, dy):
        shift, axes = self.saved
        if axes is None:
            return xp.roll(dy, -shift)
        return xp.roll(dy, tuple(-s for s in shift), axis=axes)


@register('_npi_rot90')
class NpRot90(Op):
    """y = x rotated by 90 degrees ``k`` times in the plane of ``axes``
    (from the first axis towards the second);  dx = dy rotated -k times"""

    defaults = {'k': 1, 'axes': (0, 1)}
    reads_train_mode = False

    def _axes(self, ndim):
        axes = tuple(self.attrs['axes'])
        if ndim < 2 or len(axes) != 2:
            raise DLBookError(
                f'{self.name}: needs an input of at least 2 dimensions and '
                f'two axes, got ndim {ndim} and axes {axes}'
            )
        a, b = (normalize_axis(v, ndim, self.name) for v in axes)
        if a == b:
            raise DLBookError(f'{self.name}: axes must be different')
        return a, b

    def forward(self, xp, x):
        axes = self._axes(x.ndim)
        self.saved = axes
        return xp.ascontiguousarray(
            xp.rot90(x, int(self.attrs['k']), axes=axes)
        )

    def backward(self, xp, dy):
        return xp.ascontiguousarray(
            xp.rot90(dy, -int(self.attrs['k']), axes=self.saved)
        )


@register('_npi_tril')
class NpTril(Op):
    """y = x with the elements above the ``k``-th diagonal of its last
    two axes set to zero (a 1-d x is first repeated into a square
    matrix, as NumPy does);  dx = tril(dy)"""

    defaults = {'k': 0}
    reads_train_mode = False

    def forward(self, xp, x):
        self.saved = x.shape
        y = xp.tril(x, int(self.attrs['k']))
        return y.astype(x.dtype) if x.dtype.kind != 'b' else y

    def backward(self, xp, dy):
        g = xp.tril(dy, int(self.attrs['k']))
        if len(self.saved) == 1:
            g = g.sum(axis=0)
        return g


_PAD_MODES = ('constant', 'edge', 'reflect', 'symmetric', 'maximum', 'minimum')


@register('_npi_pad')
class NpPad(Op):
    """y = x padded by ``pad_width`` ((before, after) per axis) in
    ``mode`` ('constant' with ``constant_value``, 'edge', 'reflect',
    'symmetric', 'maximum', 'minimum');
    dx = dy's central block ('constant' mode only, as in MXNet)"""

    defaults = {
        'pad_width': (),
        'mode': 'constant',
        'constant_value': 0.0,
        'reflect_type': 'even',
    }
    reads_train_mode = False

    def _widths(self, ndim):
        flat = [int(v) for v in _flatten(self.attrs['pad_width'])]
        if len(flat) == 1:
            flat = flat * 2
        if len(flat) == 2:
            flat = flat * ndim
        if len(flat) != 2 * ndim or min(flat, default=0) < 0:
            raise DLBookError(
                f'{self.name}: pad_width {self.attrs["pad_width"]} does not '
                f'give a non-negative (before, after) pair for each of the '
                f'{ndim} axes'
            )
        return [(flat[2 * i], flat[2 * i + 1]) for i in range(ndim)]

    def forward(self, xp, x):
        mode = self.attrs['mode']
        if mode not in _PAD_MODES:
            raise DLBookError(
                f'{self.name}: mode must be one of {_PAD_MODES}, got {mode!r}'
            )
        widths = self._widths(x.ndim)
        self.saved = widths
        if mode == 'constant':
            value = self.attrs['constant_value']
            return xp.pad(x, widths, mode='constant', constant_values=value)
        if x.size == 0 and any(w != (0, 0) for w in widths):
            raise DLBookError(
                f'{self.name}: cannot pad an empty array in {mode!r} mode'
            )
        return xp.pad(x, widths, mode=mode)

    def backward(self, xp, dy):
        if self.attrs['mode'] != 'constant':
            raise DLBookError(
                f'{self.name}: the gradient exists for mode "constant" only '
                f'(MXNet: "Other modes are not supported"), got '
                f'{self.attrs["mode"]!r}'
            )
        index = tuple(
            slice(before, n - after)
            for (before, after), n in zip(self.saved, dy.shape)
        )
        return xp.ascontiguousarray(dy[index])


def _flatten(value):
    if isinstance(value, (tuple, list)):
        for v in value:
            yield from _flatten(v)
    else:
        yield value


_INTERPOLATIONS = ('linear', 'lower', 'higher', 'midpoint', 'nearest')


@register('_npi_percentile')
class NpPercentile(Op):
    """y = the ``q``-th percentiles (0..100) of a along ``axis`` (all
    axes when None), ``q`` given as the second input or as ``q_scalar``;
    positions between two sorted values follow ``interpolation``
    ('nearest' rounds a half position up, as MXNet does); the result is
    float32 unless ``a`` is float64;  da = 0 (MXNet records a zero
    gradient)"""

    arguments = ('a', 'q')
    defaults = {
        'axis': None,
        'interpolation': 'linear',
        'keepdims': False,
        'q_scalar': None,
    }
    reads_train_mode = False

    def list_arguments(self):
        return ('a',) if self.attrs['q_scalar'] is not None else self.arguments

    def forward(self, xp, a, *q):
        name, attrs = self.name, self.attrs
        method = attrs['interpolation']
        if method not in _INTERPOLATIONS:
            raise DLBookError(
                f"{name}: Invalid Input: {method!r}, valid values are: "
                f'{_INTERPOLATIONS}'
            )
        if q:
            q = q[0].astype('float64')
            if q.ndim > 1:
                raise DLBookError(
                    f'{name}: q must be 0-d or 1-d, got {q.shape}'
                )
        else:
            q = xp.asarray(float(attrs['q_scalar']), dtype='float64')
        if q.size and (bool((q < 0).any()) or bool((q > 100).any())):
            raise DLBookError(f'{name}: percentile exceeds the valid range')
        axis = attrs['axis']
        ndim = a.ndim
        if axis is None:
            axes = tuple(range(ndim))
        else:
            axes = axis if isinstance(axis, (tuple, list)) else (axis,)
            axes = tuple(sorted(normalize_axis(v, ndim, name) for v in axes))
        kept = [i for i in range(ndim) if i not in axes]
        data = xp.transpose(a, kept + list(axes)).astype('float64')
        data = data.reshape(tuple(a.shape[i] for i in kept) + (-1,))
        data = xp.sort(data, axis=-1)
        n = data.shape[-1]
        pos = q / 100.0 * (n - 1)
        lo = xp.floor(pos).astype('int64')
        hi = xp.ceil(pos).astype('int64')
        if method == 'lower':
            hi = lo
        elif method == 'higher':
            lo = hi
        elif method == 'nearest':
            lo = hi = xp.floor(pos + 0.5).astype('int64')
        low = xp.take(data, lo.reshape(-1), axis=-1)
        high = xp.take(data, hi.reshape(-1), axis=-1)
        if method == 'linear':
            frac = (pos - lo).reshape(-1)
            y = low + (high - low) * frac
        elif method == 'midpoint':
            y = (low + high) / 2.0
        else:
            y = low
        y = xp.moveaxis(y, -1, 0).reshape(q.shape + data.shape[:-1])
        if attrs['keepdims']:
            full = [1 if i in axes else a.shape[i] for i in range(ndim)]
            y = y.reshape(q.shape + tuple(full))
        dtype = 'float64' if a.dtype == 'float64' else 'float32'
        self.saved = (a.shape, a.dtype, self.attrs['q_scalar'] is None)
        return xp.ascontiguousarray(y.astype(dtype))

    def backward(self, xp, dy):
        shape, dtype, has_q = self.saved
        grads = [xp.zeros(shape, dtype=dtype)]
        if has_q:
            grads.append(None)
        return tuple(grads) if len(grads) > 1 else grads[0]
