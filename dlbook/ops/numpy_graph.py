"""NumPy-mode operators under MXNet's names, for graphs.

In a symbol graph nothing knows the arrays' shapes until it runs, so the
NumPy rules that ``mx.np`` applies eagerly around a legacy operator
(``dot`` of two vectors is 0-d, ``argmax`` of the whole array is int64
0-d, ``broadcast_to`` may add leading axes...) must live in the operator
itself.  These are those operators, registered under the names MXNet
1.9.1 records for ``mx.sym.np``/``F.np`` calls (``_np_dot``,
``_npi_argmax``, ``_npi_concatenate``...), with MXNet's attribute names,
so ``sym.np`` builds the graphs MXNet builds and graphs MXNet exported in
NumPy mode load here.

Where a legacy operator already computes the same thing and only the
attribute names differ (``Concat``'s ``dim`` is ``axis`` here), the twin
translates the attributes and runs the legacy formula
(:func:`_renamed_twin`): one formula per computation.
"""

from ..base import DLBookError
from . import creation, join, random
from . import shape as shape_ops
from .op import Op, normalize_axes, register, unbroadcast

__all__ = ['resolve_shape']


def _renamed_twin(cls, name, defaults, translate, doc):
    """Register ``cls`` again as ``name`` taking MXNet's NumPy-mode
    attributes ``defaults``; ``translate(attrs)`` gives the legacy
    attributes that the inherited ``forward``/``backward`` read.

    ``self.attrs`` stays in the NumPy-mode form between calls, since that
    is what a graph stores and ``export`` writes for this node; the
    legacy form is swapped in only while the inherited code runs.
    """

    def __init__(self, **attrs):
        Op.__init__(self, **attrs)  # checks names against defaults
        self.legacy_attrs = translate(dict(self.attrs))

    def _legacy(method):
        def run(self, xp, *arrays):
            np_attrs, self.attrs = self.attrs, self.legacy_attrs
            try:
                return method(self, xp, *arrays)
            finally:
                self.attrs = np_attrs

        run.__name__ = method.__name__
        return run

    twin = type(
        f'Np{cls.__name__}',
        (cls,),
        {
            'defaults': defaults,
            '__init__': __init__,
            '__doc__': doc,
            'forward': _legacy(cls.forward),
            'backward': _legacy(cls.backward),
        },
    )
    twin.__module__ = __name__
    return register(name)(twin)


def _axes(axis, ndim, name):
    """``axis`` (None, an int or a tuple) as a sorted tuple of axes."""
    if axis is None:
        return tuple(range(ndim))
    return normalize_axes(axis, ndim, op_name=name)


# -- reductions ------------------------------------------------------------------


class _ArgReduce(Op):
    """Index of the extreme value along ``axis`` (of the flattened array
    when None), int64, 0-d for a full reduction;  no gradient."""

    defaults = {'axis': None, 'keepdims': False}
    differentiable = False

    def forward(self, xp, x):
        axis, keepdims = self.attrs['axis'], bool(self.attrs['keepdims'])
        if x.size == 0:
            raise DLBookError(
                f'{self.name}: attempt to get {self.kind} of '
                f'an empty sequence (input shape {x.shape})'
            )
        if axis is None:
            y = self.pick(xp, x.reshape(-1), 0)
            if keepdims:
                y = y.reshape((1,) * x.ndim)
        else:
            axis = _axes(axis, x.ndim, self.name)[0]
            y = self.pick(xp, x, axis)
            if keepdims:
                y = xp.expand_dims(y, axis)
        return xp.asarray(y).astype('int64')


@register('_npi_argmax')
class NpArgmax(_ArgReduce):
    __doc__ = _ArgReduce.__doc__.replace('extreme', 'largest')
    kind = 'argmax'

    def pick(self, xp, x, axis):
        return xp.argmax(x, axis=axis)


@register('_npi_argmin')
class NpArgmin(_ArgReduce):
    __doc__ = _ArgReduce.__doc__.replace('extreme', 'smallest')
    kind = 'argmin'

    def pick(self, xp, x, axis):
        return xp.argmin(x, axis=axis)


@register('_npi_var')
class NpVar(Op):
    """y = sum((x - mean(x))**2) / (n - ddof) over ``axis``;
    dx = 2 (x - mean(x)) / (n - ddof) * dy"""

    defaults = {'axis': None, 'dtype': None, 'ddof': 0, 'keepdims': False}

    def forward(self, xp, x):
        axes = _axes(self.attrs['axis'], x.ndim, self.name)
        n = 1
        for a in axes:
            n *= x.shape[a]
        centred = x - x.mean(axis=axes, keepdims=True)
        dof = n - int(self.attrs['ddof'])
        scale = 1.0 / dof if dof > 0 else float('nan')  # NumPy's answer
        y = (centred * centred).sum(axis=axes, keepdims=True) * scale
        self.saved = (centred, scale, axes, y)
        return self._finish(xp, y, x)

    def _finish(self, xp, y, x):
        axes = self.saved[2]
        if not self.attrs['keepdims']:
            y = y.reshape(
                tuple(n for i, n in enumerate(y.shape) if i not in axes)
            )
        return y.astype(self.attrs['dtype'] or x.dtype, copy=False)

    def _dy(self, dy):
        centred, _, axes, _ = self.saved
        kept = tuple(
            1 if i in axes else n for i, n in enumerate(centred.shape)
        )
        return dy.reshape(kept)

    def backward(self, xp, dy):
        centred, scale, _, _ = self.saved
        dx = 2 * scale * centred * self._dy(dy)
        return dx.astype(centred.dtype, copy=False)


@register('_npi_std')
class NpStd(NpVar):
    """y = sqrt(var(x)) over ``axis``;  dx = (x - mean(x)) / ((n - ddof) y)
    * dy"""

    def forward(self, xp, x):
        NpVar.forward(self, xp, x)
        centred, scale, axes, var = self.saved
        y = xp.sqrt(var)
        self.saved = (centred, scale, axes, y)
        return self._finish(xp, y, x)

    def backward(self, xp, dy):
        centred, scale, _, y = self.saved
        dx = scale * centred / y * self._dy(dy)
        return dx.astype(centred.dtype, copy=False)


class _Logical(Op):
    """Whether all/any elements along ``axis`` are non-zero, bool;
    no gradient"""

    defaults = {'axis': None, 'keepdims': False}
    differentiable = False

    def forward(self, xp, x):
        axis = self.attrs['axis']
        axes = None if axis is None else _axes(axis, x.ndim, self.name)
        return xp.asarray(
            self.reduce(xp, x != 0, axes, bool(self.attrs['keepdims']))
        )


@register('_np_all')
class NpAll(_Logical):
    __doc__ = _Logical.__doc__.replace('all/any', 'all')

    def reduce(self, xp, x, axes, keepdims):
        return xp.all(x, axis=axes, keepdims=keepdims)


@register('_np_any')
class NpAny(_Logical):
    __doc__ = _Logical.__doc__.replace('all/any', 'any')

    def reduce(self, xp, x, axes, keepdims):
        return xp.any(x, axis=axes, keepdims=keepdims)


# -- products -----------------------------------------------------------------------


@register('_np_dot')
class NpDot(Op):
    """NumPy's dot: y = a * b if either is 0-d; else the sum over the last
    axis of a and the second-to-last of b (the only one of a 1-d b), so
    two vectors give a 0-d inner product;
    da = sum over b's other axes of dy * b, db = sum over a's other axes
    of a * dy."""

    arguments = ('a', 'b')
    same_dtype = True

    def forward(self, xp, a, b):
        self.saved = (a, b)
        if a.ndim == 0 or b.ndim == 0:
            return xp.asarray(a * b)
        k = b.shape[0] if b.ndim == 1 else b.shape[-2]
        if a.shape[-1] != k:
            raise DLBookError(
                f'{self.name}: shapes {a.shape} and {b.shape} not aligned: '
                f'{a.shape[-1]} (dim {a.ndim - 1}) != {k} (dim '
                f'{max(b.ndim - 2, 0)})'
            )
        return xp.asarray(xp.dot(a, b))

    def backward(self, xp, dy):
        a, b = self.saved
        if a.ndim == 0 or b.ndim == 0:
            da = unbroadcast(xp, dy * b, a.shape)
            db = unbroadcast(xp, dy * a, b.shape)
            return da, db
        la = a.ndim - 1  # a's axes kept in y
        if b.ndim == 1:
            da = dy[..., None] * b
            if la == 0:  # two vectors: dy is 0-d (CuPy's tensordot refuses it)
                return da, a * dy
            db = xp.tensordot(a, dy, axes=(list(range(la)), list(range(la))))
            return da, db
        lb = b.ndim - 2  # b's leading axes kept in y
        da = xp.tensordot(
            dy,
            b,
            axes=(
                list(range(la, la + lb)) + [dy.ndim - 1],
                list(range(lb)) + [b.ndim - 1],
            ),
        )
        db = xp.tensordot(a, dy, axes=(list(range(la)), list(range(la))))
        db = xp.moveaxis(db, 0, lb)  # (k, *lead, n) -> (*lead, k, n)
        return da, xp.ascontiguousarray(db)


@register('_npi_matmul')
class NpMatmul(Op):
    """NumPy's matmul (``a @ b``): matrix products over the last two axes,
    the leading axes broadcast; a 1-d operand is a row (a) or a column
    (b) vector, dropped from the result;
    da = dy @ b^T, db = a^T @ dy, summed over broadcast axes."""

    arguments = ('a', 'b')
    same_dtype = True

    def forward(self, xp, a, b):
        if a.ndim == 0 or b.ndim == 0:
            raise DLBookError(
                f'{self.name}: operands must not be 0-d, got '
                f'shapes {a.shape} and {b.shape}'
            )
        try:
            y = xp.matmul(a, b)
        except ValueError as err:
            raise DLBookError(
                f'{self.name}: shapes {a.shape} and '
                f'{b.shape} do not fit: {err}'
            ) from None
        self.saved = (a, b)
        return y

    def backward(self, xp, dy):
        a, b = self.saved
        a2 = a[None, :] if a.ndim == 1 else a
        b2 = b[:, None] if b.ndim == 1 else b
        if a.ndim == 1:
            dy = xp.expand_dims(dy, -2)
        if b.ndim == 1:
            dy = xp.expand_dims(dy, -1)
        da = xp.matmul(dy, xp.swapaxes(b2, -1, -2))
        db = xp.matmul(xp.swapaxes(a2, -1, -2), dy)
        da = unbroadcast(xp, da, a2.shape).reshape(a.shape)
        db = unbroadcast(xp, db, b2.shape).reshape(b.shape)
        return da, db


# -- shapes ---------------------------------------------------------------------------


@register('_np_transpose')
class NpTranspose(shape_ops.Transpose):
    """y = x.transpose(axes) (axes=None reverses them);  dx = dy
    transposed back (``transpose`` with NumPy's default ``axes=None``)"""

    defaults = {'axes': None}


@register('_np_squeeze')
class NpSqueeze(Op):
    """y = x without the axes of length 1 (all of them, or those in
    ``axis``);  dx = dy reshaped back to x's shape"""

    defaults = {'axis': None}

    def forward(self, xp, x):
        axis = self.attrs['axis']
        if axis is None:
            axes = tuple(i for i, n in enumerate(x.shape) if n == 1)
        else:
            axes = _axes(axis, x.ndim, self.name)
            for a in axes:
                if x.shape[a] != 1:
                    raise DLBookError(
                        f'{self.name}: cannot select an axis to squeeze '
                        f'out which has size not equal to one (axis {a} '
                        f'of shape {x.shape})'
                    )
        self.saved = x.shape
        return x.reshape(
            tuple(n for i, n in enumerate(x.shape) if i not in axes)
        )

    def backward(self, xp, dy):
        return dy.reshape(self.saved)


@register('_npi_broadcast_to')
class NpBroadcastTo(Op):
    """y = x broadcast to ``shape`` by NumPy's rules (leading axes may be
    added);  dx = dy summed over the broadcast axes"""

    defaults = {'shape': ()}

    def forward(self, xp, x):
        target = self.attrs['shape']
        target = (target,) if isinstance(target, int) else tuple(target)
        try:
            y = xp.broadcast_to(x, target)
        except ValueError:
            raise DLBookError(
                f'{self.name}: cannot broadcast an array of '
                f'shape {x.shape} to {target}'
            ) from None
        self.saved = x.shape
        return xp.ascontiguousarray(y)

    def backward(self, xp, dy):
        return unbroadcast(xp, dy, self.saved)


@register('_npi_concatenate')
class NpConcatenate(join.Concat):
    """y = concatenate(x_0, x_1, ..., axis);  dx_i = the slice of dy that
    came from x_i (``Concat`` with NumPy's attribute name)"""

    defaults = {'axis': 0, 'num_args': 0}
    axis_attr = 'axis'


@register('_npi_stack')
class NpStack(join.Stack):
    __doc__ = join.Stack.__doc__  # the same attributes as ``stack``


@register('_split_v2')
class SplitV2(Op):
    """y_0, ..., y_{n-1} = the parts of x along ``axis`` between the
    ``indices`` (MXNet's form: they start with 0), or ``sections`` equal
    parts;  dx = concatenate(dy_0, ..., dy_{n-1}) (zeros for parts
    without a gradient)"""

    defaults = {'indices': (), 'axis': 0, 'squeeze_axis': False, 'sections': 0}

    def __init__(self, **attrs):
        super().__init__(**attrs)
        sections = int(self.attrs['sections'] or 0)
        self.num_outputs = sections or len(tuple(self.attrs['indices']))

    def forward(self, xp, x):
        axis = _axes(self.attrs['axis'], x.ndim, self.name)[0]
        size = x.shape[axis]
        sections = int(self.attrs['sections'] or 0)
        if sections:
            if size % sections:
                raise DLBookError(
                    f'{self.name}: array split does not result in an equal '
                    f'division ({size} along axis {axis} of shape '
                    f'{x.shape} into {sections})'
                )
            bounds = list(range(0, size + 1, size // sections))
        else:
            bounds = [int(i) for i in self.attrs['indices']] + [size]
        parts = []
        for begin, end in zip(bounds[:-1], bounds[1:]):
            index = (slice(None),) * axis + (slice(begin, end),)
            part = x[index]
            if self.attrs['squeeze_axis']:
                part = part.reshape(part.shape[:axis] + part.shape[axis + 1 :])
            parts.append(xp.ascontiguousarray(part))
        self.saved = (x.shape, x.dtype, axis, bounds)
        return tuple(parts) if len(parts) > 1 else parts[0]

    def backward(self, xp, *dys):
        shape, dtype, axis, bounds = self.saved
        pieces = []
        for d, begin, end in zip(dys, bounds[:-1], bounds[1:]):
            part = shape[:axis] + (end - begin,) + shape[axis + 1 :]
            pieces.append(
                xp.zeros(part, dtype) if d is None else d.reshape(part)
            )
        return xp.concatenate(pieces, axis=axis)


# -- selection ---------------------------------------------------------------------


@register('_npi_where')
class NpWhere(Op):
    """y = x where condition else y, broadcasting all three;
    dx = dy where condition (summed to x's shape), dy_y the rest, no
    gradient for the condition"""

    arguments = ('condition', 'x', 'y')

    def forward(self, xp, c, x, y):
        self.saved = (c, x.shape, y.shape)
        try:
            return xp.where(c != 0, x, y)
        except ValueError:
            raise DLBookError(
                f'{self.name}: shapes {c.shape}, {x.shape} and '
                f'{y.shape} do not broadcast'
            ) from None

    def backward(self, xp, dy):
        c, x_shape, y_shape = self.saved
        mask = c != 0
        zero = xp.zeros((), dy.dtype)
        return (
            xp.zeros(c.shape, c.dtype),
            unbroadcast(xp, xp.where(mask, dy, zero), x_shape),
            unbroadcast(xp, xp.where(mask, zero, dy), y_shape),
        )


class _WhereScalar(Op):
    """``where`` with one branch a number (``scalar``)"""

    arguments = ('condition', 'x')
    defaults = {'scalar': 0.0}

    def forward(self, xp, c, x):
        self.saved = (c, x.shape)
        s = xp.asarray(self.attrs['scalar'], dtype=x.dtype)
        mask = c != 0
        return (
            xp.where(mask, x, s) if self.array_first else xp.where(mask, s, x)
        )

    def backward(self, xp, dy):
        c, x_shape = self.saved
        mask = (c != 0) if self.array_first else (c == 0)
        dx = xp.where(mask, dy, xp.zeros((), dy.dtype))
        return xp.zeros(c.shape, c.dtype), unbroadcast(xp, dx, x_shape)


@register('_npi_where_rscalar')
class NpWhereRScalar(_WhereScalar):
    """y = x where condition else scalar;  dx = dy where condition"""

    array_first = True


@register('_npi_where_lscalar')
class NpWhereLScalar(_WhereScalar):
    """y = scalar where condition else x;  dx = dy where not condition"""

    array_first = False


# -- creation -------------------------------------------------------------------------


def _creation_attrs(attrs):
    """MXNet's NumPy-mode creation attributes as the legacy ones: ``ctx``
    is dropped (a graph runs on the context it is bound to)."""
    attrs.pop('ctx', None)
    shape = attrs.get('shape')
    if isinstance(shape, int):
        attrs['shape'] = (shape,)
    if attrs.get('dtype') is None and 'dtype' in attrs:
        attrs['dtype'] = 'float32'
    return attrs


_SHAPED = {'shape': (), 'ctx': None, 'dtype': 'float32'}
NpZeros = _renamed_twin(
    creation.Zeros,
    '_npi_zeros',
    _SHAPED,
    _creation_attrs,
    creation.Zeros.__doc__,
)
NpOnes = _renamed_twin(
    creation.Ones, '_npi_ones', _SHAPED, _creation_attrs, creation.Ones.__doc__
)


def _arange_attrs(attrs):
    attrs = _creation_attrs(attrs)
    attrs['repeat'] = 1
    return attrs


NpArange = _renamed_twin(
    creation.Arange,
    '_npi_arange',
    {'start': 0.0, 'stop': None, 'step': 1.0, 'ctx': None, 'dtype': 'float32'},
    _arange_attrs,
    creation.Arange.__doc__,
)


def _eye_attrs(attrs):
    attrs = _creation_attrs(attrs)
    attrs['M'] = attrs['M'] or 0
    return attrs


NpEye = _renamed_twin(
    creation.Eye,
    '_npi_eye',
    {'N': 1, 'M': None, 'k': 0, 'ctx': None, 'dtype': 'float32'},
    _eye_attrs,
    creation.Eye.__doc__,
)


@register('_npi_full_like')
class NpFullLike(Op):
    """y = an array shaped like a, filled with ``fill_value`` (a's dtype
    unless ``dtype``);  no gradient"""

    arguments = ('a',)
    defaults = {'fill_value': 0.0, 'ctx': None, 'dtype': None}
    differentiable = False

    def forward(self, xp, a):
        return xp.full(
            a.shape,
            self.attrs['fill_value'],
            dtype=self.attrs['dtype'] or a.dtype,
        )


def _sampler_attrs(attrs):
    attrs = _creation_attrs(attrs)
    size = attrs.pop('size')
    attrs['shape'] = (
        ()
        if size is None
        else ((size,) if isinstance(size, int) else tuple(size))
    )
    return attrs


NpNormal = _renamed_twin(
    random.RandomNormal,
    '_npi_normal',
    {'loc': 0.0, 'scale': 1.0, 'size': None, 'ctx': None, 'dtype': 'float32'},
    _sampler_attrs,
    random.RandomNormal.__doc__,
)
NpUniform = _renamed_twin(
    random.RandomUniform,
    '_npi_uniform',
    {'low': 0.0, 'high': 1.0, 'size': None, 'ctx': None, 'dtype': 'float32'},
    _sampler_attrs,
    random.RandomUniform.__doc__,
)


# -- npx.reshape's codes -------------------------------------------------------------


def resolve_shape(src, newshape, reverse=False):
    """The plain shape that ``newshape`` (with codes) means for ``src``."""
    src, spec = tuple(src), list(newshape)
    if reverse:
        src, spec = src[::-1], spec[::-1]
    out, i, j, infer = [], 0, 0, None

    def fail(why):
        raise DLBookError(
            f'npx.reshape: cannot reshape {tuple(src)} with '
            f'{tuple(newshape)}: {why}'
        )

    while j < len(spec):
        code = spec[j]
        if code >= 0:
            out.append(code)
            i += 1
        elif code == -1:
            if infer is not None:
                fail('more than one -1')
            infer = len(out)
            out.append(-1)
            i += 1
        elif code == -2:
            if i >= len(src):
                fail('-2 past the last input dimension')
            out.append(src[i])
            i += 1
        elif code == -3:
            if i >= len(src) or src[i] != 1:
                fail('-3 skips an input dimension that is not 1')
            i += 1
        elif code == -4:
            out.extend(src[i:])
            i = len(src)
        elif code == -5:
            if i + 1 >= len(src):
                fail('-5 needs two input dimensions')
            out.append(src[i] * src[i + 1])
            i += 2
        elif code == -6:
            if j + 2 >= len(spec):
                fail('-6 needs two values after it')
            a, b = spec[j + 1], spec[j + 2]
            if a == -1:
                a = src[i] // b
            elif b == -1:
                b = src[i] // a
            if a * b != src[i]:
                fail(f'-6 splits {src[i]} into {a} x {b}')
            out.extend([a, b])
            i += 1
            j += 2
        else:
            fail(f'unknown code {code}')
        j += 1
    if infer is not None:
        known = 1
        for k, n in enumerate(out):
            if k != infer:
                known *= n
        total = 1
        for n in src:
            total *= n
        if known == 0 or total % known:
            fail('the inferred dimension does not divide the size')
        out[infer] = total // known
    if reverse:
        out = out[::-1]
    return tuple(out)


@register('_npx_reshape')
class NpxReshape(Op):
    """y = x in the shape that ``newshape`` gives with MXNet's NumPy-mode
    codes (-1 infer, -2 copy, -3 skip a 1, -4 copy the rest, -5 merge two,
    -6 split one; ``reverse`` reads both from the right);
    dx = dy reshaped back"""

    defaults = {'newshape': (), 'reverse': False, 'order': 'C'}

    def forward(self, xp, x):
        spec = self.attrs['newshape']
        spec = (spec,) if isinstance(spec, int) else tuple(spec)
        self.saved = x.shape
        return x.reshape(
            resolve_shape(x.shape, spec, bool(self.attrs['reverse']))
        )

    def backward(self, xp, dy):
        return dy.reshape(self.saved)
