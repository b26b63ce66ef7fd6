"""More NumPy-mode operators: ``arctan2``, ``copysign``, ``ldexp``,
``nan_to_num``, ``einsum`` and ``bincount``.

They are what ``mx.np`` needs beyond ``numpy_ops.py`` and has no legacy
twin for (``hypot`` reuses ``broadcast_hypot``; ``isnan`` the contrib
operators; ``diag``/``diagonal`` the legacy ``diag``).  The binary ones
broadcast as NumPy does and sum their gradients back to each input's
shape (``binary._Binary``).
"""

import math

from ..base import DLBookError
from .binary import _Binary
from .op import Op, keep_dtype, register


@register('_npi_arctan2')
class NpArctan2(_Binary):
    """z = the angle of the point (b, a), atan(a / b) in the right
    quadrant, in [-pi, pi];
    da = dz * b / (a**2 + b**2),   db = -dz * a / (a**2 + b**2)"""

    def f(self, xp, a, b):
        return keep_dtype(xp.arctan2(a, b), a.dtype)

    def grads(self, xp, dz, a, b, z):
        r2 = a * a + b * b
        return dz * b / r2, -dz * a / r2


@register('_npi_copysign')
class NpCopysign(_Binary):
    """z = |a| with the sign of b;
    da = dz * sign(a) * sign(b) (the signs as +-1, -0.0 counting as
    negative),   db = 0"""

    def f(self, xp, a, b):
        return keep_dtype(xp.copysign(a, b), a.dtype)

    def grads(self, xp, dz, a, b, z):
        one = xp.ones((), dtype=dz.dtype)
        flip = xp.copysign(one, a) * xp.copysign(one, b)
        return dz * flip.astype(dz.dtype), xp.zeros_like(dz)


@register('_npi_ldexp')
class NpLdexp(_Binary):
    """z = a * 2**b (in a's dtype; integer results are truncated);
    da = dz * 2**b,   db = dz * z * ln(2)"""

    def f(self, xp, a, b):
        return keep_dtype(a * xp.exp2(b), a.dtype)

    def grads(self, xp, dz, a, b, z):
        return dz * xp.exp2(b), dz * z * math.log(2.0)


@register('_npi_nan_to_num')
class NpNanToNum(Op):
    """y = x with NaN replaced by ``nan``, +inf by ``posinf`` and -inf by
    ``neginf`` (None: the dtype's largest / smallest finite value);
    integers pass through;   dx = dy where x is finite, else 0"""

    defaults = {'copy': True, 'nan': 0.0, 'posinf': None, 'neginf': None}
    reads_train_mode = False

    def forward(self, xp, x):
        if x.dtype.kind != 'f':
            self.saved = None
            return x.copy()
        a = self.attrs
        info = xp.finfo(x.dtype)
        hi = info.max if a['posinf'] is None else a['posinf']
        lo = info.min if a['neginf'] is None else a['neginf']
        fill = xp.where(
            x > 0, xp.asarray(hi, x.dtype), xp.asarray(lo, x.dtype)
        )
        finite = xp.isfinite(x)
        self.saved = finite
        y = xp.where(finite, x, fill)
        return xp.where(xp.isnan(x), xp.asarray(a['nan'], x.dtype), y)

    def backward(self, xp, dy):
        if self.saved is None:
            return xp.zeros_like(dy)
        return dy * self.saved.astype(dy.dtype)


# -- einsum -------------------------------------------------------------------

_LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'


def _explicit(subscripts, shapes, op_name):
    """``subscripts`` in explicit form without ``...``: a list of input
    subscripts and the output subscript (NumPy's implicit rule: the
    letters seen once, sorted, after the ellipsis axes)."""
    spec = subscripts.replace(' ', '')
    if '->' in spec:
        lhs, out = spec.split('->')
    else:
        lhs, out = spec, None
    ins = lhs.split(',')
    if len(ins) != len(shapes):
        raise DLBookError(
            f'{op_name}: {len(ins)} operand subscripts for '
            f'{len(shapes)} operands in {subscripts!r}'
        )
    used = set(spec) - set('.,->')
    free = [c for c in reversed(_LETTERS) if c not in used]
    widths = []
    for sub, shape in zip(ins, shapes):
        named = len(sub.replace('...', ''))
        if '...' not in sub and named != len(shape):
            raise DLBookError(
                f'{op_name}: operand subscripts {sub!r} name {named} '
                f'axes, the operand has {len(shape)} (shape {shape})'
            )
        widths.append(len(shape) - named if '...' in sub else 0)
    width = max(widths, default=0)
    ell = ''.join(free[:width])
    ins = [
        sub.replace('...', ell[width - w :] if w else '')
        for sub, w in zip(ins, widths)
    ]
    if out is None:
        counts = {}
        for sub in ins:
            for c in sub:
                counts[c] = counts.get(c, 0) + 1
        out = ell + ''.join(
            sorted(c for c, n in counts.items() if n == 1 and c not in ell)
        )
    else:
        out = out.replace('...', ell)
    return ins, out


@register('_npi_einsum')
class NpEinsum(Op):
    """y = numpy.einsum(subscripts, *operands): sums of products over
    the letters that the output does not name.

    The gradient of operand i is einsum itself again: the output gradient
    and the other operands, contracted onto operand i's subscripts.
    Letters operand i alone carries are broadcast back (an einsum with a
    vector of ones) and a repeated letter (``'ii'``, a diagonal) is put
    back on the diagonal (an einsum with an identity matrix)."""

    variadic = True
    defaults = {'subscripts': '', 'num_args': 1, 'optimize': 0}
    reads_train_mode = False

    def forward(self, xp, *operands):
        subs, out = _explicit(
            self.attrs['subscripts'], [x.shape for x in operands], self.name
        )
        spec = ','.join(subs) + '->' + out
        try:
            y = xp.einsum(spec, *operands)
        except ValueError as err:
            raise DLBookError(f'{self.name}: {err}') from None
        self.saved = (operands, subs, out)
        return xp.asarray(y, dtype=operands[0].dtype)

    def backward(self, xp, dy):
        operands, subs, out = self.saved
        sizes = {}
        for sub, x in zip(subs, operands):
            for c, n in zip(sub, x.shape):
                sizes[c] = max(sizes.get(c, 1), n)
        grads = []
        for i, (target, x) in enumerate(zip(subs, operands)):
            if x.dtype.kind != 'f':
                grads.append(None)
                continue
            terms = [(s, o) for j, (s, o) in enumerate(zip(subs, operands))]
            terms = [terms[j] for j in range(len(terms)) if j != i]
            terms.append((out, dy))
            have = set(''.join(s for s, _ in terms))
            free = [c for c in _LETTERS if c not in have | set(target)]
            wanted, seen = '', set()
            for c in target:
                if c in seen:  # a diagonal: a fresh letter and an identity
                    fresh = free.pop()
                    terms.append((c + fresh, xp.eye(sizes[c], dtype=dy.dtype)))
                    wanted += fresh
                    continue
                seen.add(c)
                if c not in have:  # summed over by operand i alone
                    terms.append((c, xp.ones(sizes[c], dtype=dy.dtype)))
                    have.add(c)
                wanted += c
            spec = ','.join(s for s, _ in terms) + '->' + wanted
            g = xp.einsum(spec, *[o for _, o in terms])
            summed = tuple(
                ax
                for ax, (n, m) in enumerate(zip(x.shape, g.shape))
                if n == 1 and m != 1
            )
            if summed:  # an ellipsis axis broadcast from length 1
                g = g.sum(axis=summed, keepdims=True)
            grads.append(xp.asarray(g, dtype=x.dtype))
        return tuple(grads)


@register('_npi_bincount')
class NpBincount(Op):
    """counts[k] = how many times k occurs in the non-negative integer
    array x (with ``has_weights``: the sum of the weights of those
    elements), at least ``minlength`` entries;  no gradient"""

    arguments = ('data', 'weights')
    defaults = {'minlength': 0, 'has_weights': False}
    differentiable = False
    dynamic_shape = True  # the length depends on the values

    def list_arguments(self):
        return self.arguments if self.attrs['has_weights'] else ('data',)

    def forward(self, xp, x, *weights):
        if x.dtype.kind not in 'iub':
            raise DLBookError(
                f'{self.name}: the input must be an integer array, got '
                f'{x.dtype}'
            )
        if x.ndim != 1:
            raise DLBookError(
                f'{self.name}: the input must be 1-d, got shape {x.shape}'
            )
        if x.size and int(x.min()) < 0:
            raise DLBookError(
                f'{self.name}: the input must be non-negative, got a '
                f'minimum of {int(x.min())}'
            )
        minlength = int(self.attrs['minlength'])
        if weights:
            (w,) = weights
            return xp.bincount(x, weights=w, minlength=minlength).astype(
                w.dtype
            )
        return xp.bincount(x, minlength=minlength).astype('int64')
