"""Errors, dtype tables and small helpers shared by every layer of dlbook.

MXNet 1.x raises ``mxnet.base.MXNetError`` for most user mistakes; dlbook
raises its own :class:`DLBookError`, and ``dlbook.base.MXNetError`` is the
same class, so ``except mx.base.MXNetError`` works unchanged.
"""

__all__ = [
    'DLBookError',
    'DLBookIndexError',
    'UsageError',
    'MXNetError',
    'NotImplementedForSymbol',
    'DTYPE_TO_FLAG',
    'FLAG_TO_DTYPE',
    'dtype_name',
    'numeric_types',
    'integer_types',
    'string_types',
    'py_str',
]

import numbers


class DLBookError(RuntimeError):
    """Error raised by dlbook for invalid use (shapes, dtypes, contexts).

    Messages name the operator, the shapes, dtypes or contexts involved and,
    where there is one, the fix.
    """


class DLBookIndexError(DLBookError, IndexError):
    """An index out of range (``x[5]`` on 2 rows).  Also an
    ``IndexError``, as in MXNet and NumPy, so ``except IndexError`` and
    the ``for``-loop protocol work."""


class UsageError(DLBookError, AssertionError):
    """A wrong argument or call where MXNet 1.9.1 fails an ``assert``
    (``Vocabulary(min_freq=0)``, ``TopKAccuracy(top_k=1)``).  Also an
    ``AssertionError``, so ``except AssertionError`` written for MXNet
    still works, and raised even under ``python -O``."""


MXNetError = DLBookError


class NotImplementedForSymbol(MXNetError, NotImplementedError):
    """An NDArray-only function was called on a Symbol (``bool(sym)``).

    An ``MXNetError`` as in MXNet, and also a ``NotImplementedError``."""

    def __init__(self, function, alias, *args):
        super().__init__()
        self.function = function.__name__
        self.alias = alias
        self.args = [str(type(a)) for a in args]

    def __str__(self):
        msg = f'Function {self.function}'
        if self.alias:
            msg += f' (namely operator "{self.alias}")'
        if self.args:
            msg += f' with arguments ({", ".join(self.args)})'
        return msg + (
            ' is not implemented for Symbol and only available in NDArray.'
        )


def py_str(x):
    """Decode C-style bytes to ``str`` (``str`` passes through)."""
    return x.decode('utf-8') if isinstance(x, bytes) else x


numeric_types = (numbers.Number,)
integer_types = (numbers.Integral,)
string_types = (str,)

# MXNet's type flags (3rdparty/mshadow/mshadow/base.h), used by the
# ``.params`` file format.
DTYPE_TO_FLAG = {
    'float32': 0,
    'float64': 1,
    'float16': 2,
    'uint8': 3,
    'int32': 4,
    'int8': 5,
    'int64': 6,
    'bool': 7,
    'int16': 8,
    'uint16': 9,
    'uint32': 10,
    'uint64': 11,
}
FLAG_TO_DTYPE = {flag: name for name, flag in DTYPE_TO_FLAG.items()}


def dtype_name(dtype):
    """Return the canonical string name of a dtype-like (``'float32'``).

    Accepts strings, NumPy/CuPy dtype objects and scalar types such as
    ``numpy.float32``, without importing NumPy here.
    """
    if dtype is None:
        return None
    if isinstance(dtype, str):
        return 'float32' if dtype == 'float' else dtype
    name = getattr(dtype, 'name', None)  # numpy.dtype('float32')
    if isinstance(name, str):
        return name
    name = getattr(dtype, '__name__', None)  # numpy.float32, float, int
    if name == 'float':
        return 'float64'
    if name == 'int':
        return 'int64'
    if name == 'bool':
        return 'bool'
    if isinstance(name, str):
        return name
    raise DLBookError(f'cannot understand dtype {dtype!r}')
