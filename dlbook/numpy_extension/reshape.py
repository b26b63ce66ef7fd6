"""``npx.reshape``: MXNet's NumPy-mode reshape codes.

The codes differ from legacy ``nd.reshape``'s (0, -1, -2, -3, -4):

=====  ==============================================================
 -1    infer this dimension from the others
 -2    copy this dimension of the input
 -3    skip this dimension of the input (it must be 1)
 -4    copy all remaining input dimensions
 -5    merge two consecutive input dimensions
 -6    split one input dimension into the next two values (one may be -1)
=====  ==============================================================

The codes only compute the new shape; the data moves through the
``_np_reshape`` operator.
"""

from ..base import DLBookError
from ..numpy._core import call
from ..numpy.creation import as_array

__all__ = ['reshape', 'resolve_shape']


def resolve_shape(src, newshape, reverse=False):
    """The plain shape that ``newshape`` (with codes) means for ``src``."""
    src, spec = tuple(src), list(newshape)
    if reverse:
        src, spec = src[::-1], spec[::-1]
    out, i, j, infer = [], 0, 0, None

    def fail(why):
        raise DLBookError(f'npx.reshape: cannot reshape {tuple(src)} with '
                          f'{tuple(newshape)}: {why}')

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


def reshape(a, newshape, reverse=False, order='C'):
    """Reshape ``a`` with MXNet's NumPy-mode codes (see the module).

    >>> npx.reshape(np.ones((2, 3, 4)), (-2, -1)).shape
    (2, 12)
    >>> npx.reshape(np.ones((2, 3, 4)), (-6, 1, 2, -4)).shape
    (1, 2, 3, 4)
    """
    a = as_array(a)
    newshape = (newshape,) if isinstance(newshape, int) else newshape
    return call('_np_reshape', a,
                newshape=resolve_shape(a.shape, newshape, reverse))
