"""NDArray methods that forward to ``nd`` functions (``x.sum(axis=1)``).

MXNet generates these from its operator list; listing them explicitly
keeps the set reviewable and documented in one place.
"""

METHOD_NAMES = (
    # reductions
    'sum', 'nansum', 'prod', 'nanprod', 'mean', 'max', 'min', 'norm',
    'argmax', 'argmin', 'argmax_channel',
    # element-wise math
    'abs', 'sign', 'round', 'rint', 'fix', 'floor', 'ceil', 'trunc',
    'sqrt', 'rsqrt', 'cbrt', 'square', 'reciprocal', 'exp', 'expm1', 'log',
    'log10', 'log2', 'log1p', 'sin', 'cos', 'tan', 'arcsin', 'arccos',
    'arctan', 'sinh', 'cosh', 'tanh', 'arcsinh', 'arccosh', 'arctanh',
    'degrees', 'radians', 'relu', 'sigmoid', 'softsign', 'clip',
    # nn
    'softmax', 'log_softmax',
    # shape
    'flatten', 'expand_dims', 'squeeze', 'swapaxes', 'flip', 'tile',
    'repeat', 'pad', 'split', 'slice', 'slice_axis', 'slice_like', 'take',
    'pick', 'one_hot', 'topk', 'sort', 'argsort', 'broadcast_like',
    'broadcast_axes', 'reshape_like', 'zeros_like', 'ones_like',
    'shape_array', 'size_array', 'diag',
)


#: methods that take MXNet's ``inplace=`` keyword (a view instead of a
#: copy there; results here share memory when NumPy can make a view)
_INPLACE = ('flatten', 'expand_dims', 'squeeze')


def _method(function):
    def method(self, *args, **kwargs):
        if function.__name__ in _INPLACE:
            kwargs.pop('inplace', None)
        return function(self, *args, **kwargs)
    method.__name__ = function.__name__
    method.__doc__ = function.__doc__
    return method


def attach_methods(cls, namespace):
    """Add every available name in ``METHOD_NAMES`` as a method of ``cls``
    (names already defined on the class keep their own definition)."""
    for name in METHOD_NAMES:
        function = namespace.get(name)
        if function is not None and name not in cls.__dict__:
            setattr(cls, name, _method(function))
