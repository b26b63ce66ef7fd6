"""Weight initializers (``mx.init``).

An initializer is called as ``init(desc, arr)`` and fills the NDArray
``arr`` in place.  ``desc`` is an :class:`InitDesc`: the parameter's name
plus attributes.  Dispatch follows
``apache/mxnet@1.9.1:python/mxnet/initializer.py``:

* if ``desc.attrs`` has ``'__init__'`` (Gluon always sets it to the
  parameter's own initializer), that initializer's ``_init_weight`` runs,
  **whatever the name**: a Gluon bias created without ``init=`` gets the
  block's default initializer, not zeros;
* otherwise (symbolic/Module path) the name suffix decides: ``weight`` ->
  ``_init_weight``; ``bias``/``beta``/``moving_mean``/``running_mean``
  -> 0; ``gamma``/``moving_var``/``running_var`` -> 1; anything else raises.

Random draws use ``nd.random`` so that ``mx.random.seed`` controls them.
Custom initializers subclass :class:`Initializer`, override
``_init_weight(self, name, arr)`` and may be registered with
``@mx.init.register``::

    class MyInit(mx.init.Initializer):
        def _init_weight(self, name, data):
            print('Init', name, data.shape)
            data[:] = nd.random.uniform(low=-10, high=10, shape=data.shape)
"""

import json
import logging
import re
import warnings

import numpy as np

from . import ndarray as nd
from . import registry
from .base import UsageError

__all__ = [
    'InitDesc',
    'Initializer',
    'register',
    'alias',
    'create',
    'Load',
    'Mixed',
    'Zero',
    'One',
    'Constant',
    'Uniform',
    'Normal',
    'Orthogonal',
    'Xavier',
    'MSRAPrelu',
    'Bilinear',
    'LSTMBias',
]


class InitDesc(str):
    """A parameter name with the attributes that steer its initialization.

    Parameters
    ----------
    name : str
        Name of the variable.
    attrs : dict of str to str
        Attributes of this variable taken from ``Symbol.attr_dict``
        (``'__init__'`` names an initializer to use).
    global_init : Initializer
        The global initializer to fall back on.
    """

    def __new__(cls, name, attrs=None, global_init=None):
        ret = super().__new__(cls, name)
        ret.attrs = attrs or {}
        ret.global_init = global_init
        return ret


class Initializer:
    """The base class of an initializer.

    Subclasses implement ``_init_weight(name, arr)``; the keyword arguments
    given to ``__init__`` are what :meth:`dumps` records.
    """

    def __init__(self, **kwargs):
        self._kwargs = kwargs
        self._verbose = False
        self._print_func = None

    def set_verbosity(self, verbose=False, print_func=None):
        """Log each initialized array (through ``logging.info``).

        Parameters
        ----------
        verbose : bool
            Whether to log.
        print_func : function
            ``print_func(arr) -> str``; by default ``norm(arr) /
            sqrt(arr.size)``.
        """
        self._verbose = verbose
        if print_func is None:

            def asum_stat(x):
                """Returns |x|/sqrt(size(x)), a float32 as in MXNet."""
                data = x.asnumpy()
                norm = np.sqrt(np.sum(data * data, dtype=np.float32))
                return str(np.float32(norm / np.sqrt(x.size)))

            print_func = asum_stat
        self._print_func = print_func
        return self

    def _verbose_print(self, desc, init, arr):
        """Log the statistics of ``arr`` when verbose."""
        if self._verbose and self._print_func:
            logging.info(
                'Initialized %s as %s: %s', desc, init, self._print_func(arr)
            )

    def dumps(self):
        """The initializer as a JSON string, e.g.
        ``'["uniform", {"scale": 0.07}]'``; ``mx.init.create`` reads it
        back."""
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])

    def __eq__(self, other):
        if not isinstance(other, Initializer):
            return NotImplemented
        return type(self) is type(other) and self._kwargs == other._kwargs

    __hash__ = None  # as in MXNet: equal by configuration, not hashable

    def __call__(self, desc, arr):
        """Initialize ``arr`` in place.

        Parameters
        ----------
        desc : InitDesc
            The parameter's name and attributes.
        arr : NDArray
            The array to fill.
        """
        if not isinstance(desc, InitDesc):
            self._legacy_init(desc, arr)
            return
        if desc.global_init is None:
            desc.global_init = self
        init = desc.attrs.get('__init__', '')
        if init:
            # A parameter's own initializer, set by Gluon or sym.Variable.
            create(init)._init_weight(desc, arr)
            self._verbose_print(desc, init, arr)
            return
        for suffixes, method, label in _SUFFIX_RULES:
            if desc.endswith(suffixes):
                getattr(self, method)(desc, arr)
                self._verbose_print(desc, label, arr)
                return
        self._init_default(desc, arr)

    def _legacy_init(self, name, arr):
        """``init(str, arr)``: the deprecated form, by name prefix/suffix."""
        warnings.warn(
            'Calling initializer with init(str, NDArray) has been '
            'deprecated. please use init(mx.init.InitDesc(...), '
            'NDArray) instead.',
            DeprecationWarning,
            stacklevel=3,
        )
        if not isinstance(name, str):
            raise TypeError('name must be string')
        if not isinstance(arr, nd.NDArray):
            raise TypeError('arr must be NDArray')
        if name.startswith('upsampling'):
            self._init_bilinear(name, arr)
        elif name.startswith('stn_loc') and name.endswith('weight'):
            self._init_zero(name, arr)
        elif name.startswith('stn_loc') and name.endswith('bias'):
            self._init_loc_bias(name, arr)
        elif name.endswith('bias'):
            self._init_bias(name, arr)
        elif name.endswith('gamma'):
            self._init_gamma(name, arr)
        elif name.endswith('beta'):
            self._init_beta(name, arr)
        elif name.endswith('weight'):
            self._init_weight(name, arr)
        elif name.endswith(
            (
                'moving_mean',
                'moving_inv_var',
                'moving_avg',
                'running_mean',
                'min',
            )
        ):
            self._init_zero(name, arr)
        elif name.endswith(('moving_var', 'running_var', 'max')):
            self._init_one(name, arr)
        else:
            self._init_default(name, arr)

    def _init_bilinear(self, _, arr):
        arr[:] = _bilinear_kernel(arr.shape)

    def _init_loc_bias(self, _, arr):
        if arr.shape[0] != 6:
            raise UsageError(
                f'{_}: a loc bias (a spatial transformer\'s affine '
                f'parameters) needs 6 values, got shape {arr.shape}.'
            )
        arr[:] = np.array([1.0, 0, 0, 0, 1.0, 0])

    def _init_zero(self, _, arr):
        arr[:] = 0.0

    def _init_one(self, _, arr):
        arr[:] = 1.0

    def _init_bias(self, _, arr):
        arr[:] = 0.0

    def _init_gamma(self, _, arr):
        arr[:] = 1.0

    def _init_beta(self, _, arr):
        arr[:] = 0.0

    def _init_weight(self, name, arr):
        """Abstract method to Initialize weight."""
        raise NotImplementedError('Must override it')

    def _init_default(self, name, _):
        raise ValueError(
            f'Unknown initialization pattern for {name}. Default '
            f'initialization is now limited to "weight", "bias", "gamma" '
            f'(1.0), and "beta" (0.0).Please use '
            f'mx.sym.Variable(init=mx.init.*) to set initialization pattern'
        )


# Name-suffix dispatch without '__init__' (checked in this order).  MXNet's
# C++ side tags BatchNorm's moving statistics with an '__init__' of zeros /
# ones; dlbook's symbols may not, so the suffixes are listed here too.
_SUFFIX_RULES = (
    (('weight',), '_init_weight', 'weight'),
    (('bias',), '_init_bias', 'bias'),
    (('gamma',), '_init_gamma', 'gamma'),
    (('beta',), '_init_beta', 'beta'),
    (
        ('moving_mean', 'running_mean', 'moving_inv_var', 'moving_avg'),
        '_init_zero',
        'zero',
    ),
    (('moving_var', 'running_var'), '_init_one', 'one'),
    (('min',), '_init_zero', 'min'),
    (('max',), '_init_one', 'max'),
)


def _bilinear_kernel(shape):
    """Bilinear upsampling weights for a (C_out, C_in, H, W) kernel."""
    f = np.ceil(shape[3] / 2.0)
    c = (2 * f - 1 - f % 2) / (2.0 * f)
    size = int(np.prod(shape))
    x = np.arange(size) % shape[3]
    y = (np.arange(size) // shape[3]) % shape[2]
    weight = (1 - np.abs(x / f - c)) * (1 - np.abs(y / f - c))
    return weight.astype('float32').reshape(shape)


# pylint: disable=invalid-name
register = registry.get_register_func(Initializer, 'initializer')
alias = registry.get_alias_func(Initializer, 'initializer')
create = registry.get_create_func(Initializer, 'initializer')
# pylint: enable=invalid-name


class Load:
    """Initialize parameters from a saved dict of arrays.

    Parameters
    ----------
    param : str or dict of str to NDArray
        A ``.params`` file name or the loaded dict; ``arg:``/``aux:``
        prefixes are dropped.
    default_init : Initializer
        Used for names not in ``param``.
    verbose : bool
        Log how each parameter was initialized.
    """

    def __init__(self, param, default_init=None, verbose=False):
        if isinstance(param, str):
            param = nd.load(param)
        if not isinstance(param, dict):
            raise UsageError(
                f'Load needs a dict of name -> NDArray (what nd.load gives '
                f'for a saved dict) or a file name, got '
                f'{type(param).__name__}.'
            )
        self.param = {}
        for name, arr in param.items():
            if name.startswith('arg:') or name.startswith('aux:'):
                self.param[name[4:]] = arr
            else:
                self.param[name] = arr
        self.default_init = default_init
        self.verbose = verbose

    def __call__(self, name, arr):
        if name in self.param:
            if arr.shape != self.param[name].shape:
                raise UsageError(
                    f'Parameter {name} cannot be initialized from loading. '
                    f'Shape mismatch, target {arr.shape} vs loaded '
                    f'{self.param[name].shape}'
                )
            arr[:] = self.param[name]
            if self.verbose:
                logging.info('Initialized %s by loading', name)
        else:
            if self.default_init is None:
                raise UsageError(
                    f'Cannot Initialize {name}. Not found in loaded param '
                    f'and no default Initializer is provided: pass '
                    f'default_init=mx.init.Uniform() (or another).'
                )
            self.default_init(name, arr)
            if self.verbose:
                logging.info('Initialized %s by default', name)


class Mixed:
    """Pick the initializer by the first regular expression that matches
    the parameter name.

    Parameters
    ----------
    patterns : list of str
        Regular expressions, tried in order with ``re.match``.
    initializers : list of Initializer
        The initializer for each pattern.

    Examples
    --------
    >>> init = mx.initializer.Mixed(['bias', '.*'],
    ...                             [mx.init.Zero(), mx.init.Uniform(0.1)])
    """

    def __init__(self, patterns, initializers):
        if len(patterns) != len(initializers):
            raise UsageError(
                f'Mixed needs one initializer per pattern, got '
                f'{len(patterns)} patterns and {len(initializers)} '
                f'initializers.'
            )
        self.map = list(zip([re.compile(p) for p in patterns], initializers))

    def __call__(self, name, arr):
        for prog, init in self.map:
            if prog.match(name):
                init(name, arr)
                return
        raise ValueError(
            f'Parameter name {name} did not match any pattern. '
            f'Consider add a ".*" pattern at the and with '
            f'default Initializer.'
        )


@register
@alias('zeros')
class Zero(Initializer):
    """Initialize the weight to 0."""

    def __init__(self):
        super().__init__()

    def _init_weight(self, _, arr):
        arr[:] = 0


@register
@alias('ones')
class One(Initializer):
    """Initialize the weight to 1."""

    def __init__(self):
        super().__init__()

    def _init_weight(self, _, arr):
        arr[:] = 1


@register
class Constant(Initializer):
    """Initialize the weight to a given value (a scalar or an array that
    broadcasts to the weight's shape).

    Parameters
    ----------
    value : float or NDArray
        The value to set.
    """

    def __init__(self, value):
        super().__init__(value=value)
        self.value = value

    def _init_weight(self, _, arr):
        arr[:] = self.value

    def dumps(self):
        val = self._kwargs['value']
        if not np.isscalar(val):
            self._kwargs['value'] = (
                val.tolist()
                if isinstance(val, np.ndarray)
                else val.asnumpy().tolist()
            )
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])


@register
class Uniform(Initializer):
    """Weights drawn from U(-scale, scale).

    Parameters
    ----------
    scale : float, optional
        The bound on the range of the generated random values.
    """

    def __init__(self, scale=0.07):
        super().__init__(scale=scale)
        self.scale = scale

    def _init_weight(self, _, arr):
        nd.random.uniform(-self.scale, self.scale, out=arr)


@register
class Normal(Initializer):
    """Weights drawn from N(0, sigma**2).

    Parameters
    ----------
    sigma : float
        Standard deviation of the normal distribution.
    """

    def __init__(self, sigma=0.01):
        super().__init__(sigma=sigma)
        self.sigma = sigma

    def _init_weight(self, _, arr):
        nd.random.normal(0, self.sigma, out=arr)


@register
class Orthogonal(Initializer):
    """A scaled random orthogonal matrix (Saxe et al., arXiv:1312.6120).

    The weight is viewed as ``(shape[0], prod(shape[1:]))``; a random
    matrix of that shape is drawn and replaced by a factor of its SVD.

    Parameters
    ----------
    scale : float, optional
        Scaling factor of the weight.
    rand_type : {'uniform', 'normal'}, optional
        Distribution of the random matrix.
    """

    def __init__(self, scale=1.414, rand_type='uniform'):
        super().__init__(scale=scale, rand_type=rand_type)
        self.scale = scale
        self.rand_type = rand_type

    def _init_weight(self, _, arr):
        nout = arr.shape[0]
        nin = int(np.prod(arr.shape[1:]))
        if self.rand_type == 'uniform':
            tmp = nd.random.uniform(-1.0, 1.0, shape=(nout, nin)).asnumpy()
        elif self.rand_type == 'normal':
            tmp = nd.random.normal(0.0, 1.0, shape=(nout, nin)).asnumpy()
        u, _, v = np.linalg.svd(tmp, full_matrices=False)
        res = u if u.shape == tmp.shape else v
        arr[:] = self.scale * res.reshape(arr.shape)


@register
class Xavier(Initializer):
    """Xavier/Glorot initialization, scaled by the weight's fan.

    ``scale = sqrt(magnitude / factor)`` with ``factor`` the average of
    fan-in and fan-out (``'avg'``), fan-in (``'in'``) or fan-out
    (``'out'``); fans count ``shape[1]`` and ``shape[0]`` times the
    product of the remaining (kernel) dimensions.  Weights are drawn from
    U(-scale, scale) (``'uniform'``) or N(0, scale**2) (``'gaussian'``).

    Parameters
    ----------
    rnd_type : {'uniform', 'gaussian'}, optional
        Random generator type.
    factor_type : {'avg', 'in', 'out'}, optional
        Which fan the variance is scaled by.
    magnitude : float, optional
        Scale of the random numbers.
    """

    def __init__(self, rnd_type='uniform', factor_type='avg', magnitude=3):
        super().__init__(
            rnd_type=rnd_type, factor_type=factor_type, magnitude=magnitude
        )
        self.rnd_type = rnd_type
        self.factor_type = factor_type
        self.magnitude = float(magnitude)

    def _init_weight(self, name, arr):
        shape = arr.shape
        hw_scale = 1.0
        if len(shape) < 2:
            raise ValueError(
                f'Xavier initializer cannot be applied to '
                f'vector {name}. It requires at least 2D.'
            )
        if len(shape) > 2:
            hw_scale = np.prod(shape[2:])
        fan_in, fan_out = shape[1] * hw_scale, shape[0] * hw_scale
        if self.factor_type == 'avg':
            factor = (fan_in + fan_out) / 2.0
        elif self.factor_type == 'in':
            factor = fan_in
        elif self.factor_type == 'out':
            factor = fan_out
        else:
            raise ValueError('Incorrect factor type')
        scale = float(np.sqrt(self.magnitude / factor))
        if self.rnd_type == 'uniform':
            nd.random.uniform(-scale, scale, out=arr)
        elif self.rnd_type == 'gaussian':
            nd.random.normal(0, scale, out=arr)
        else:
            raise ValueError('Unknown random type')


@register
class MSRAPrelu(Xavier):
    """He/MSRA initialization for PReLU (arXiv:1502.01852): Gaussian
    Xavier with ``magnitude = 2 / (1 + slope**2)``.

    Parameters
    ----------
    factor_type : {'avg', 'in', 'out'}, optional
        Which fan the variance is scaled by.
    slope : float, optional
        Initial slope of the PReLU units.
    """

    def __init__(self, factor_type='avg', slope=0.25):
        magnitude = 2.0 / (1 + slope**2)
        super().__init__('gaussian', factor_type, magnitude)
        self._kwargs = {'factor_type': factor_type, 'slope': slope}


@register
class Bilinear(Initializer):
    """Bilinear-upsampling weights for a Deconvolution kernel of shape
    (C_out, C_in, H, W)."""

    def __init__(self):
        super().__init__()

    def _init_weight(self, _, arr):
        arr[:] = _bilinear_kernel(arr.shape)


@register
class LSTMBias(Initializer):
    """LSTM bias: all zeros except the forget gate (the second quarter),
    set to ``forget_bias``.

    Parameters
    ----------
    forget_bias : float, default 1.0
        Bias for the forget gate (Jozefowicz et al., 2015, recommend 1.0).
    """

    def __init__(self, forget_bias=1.0):
        super().__init__(forget_bias=forget_bias)
        self.forget_bias = forget_bias

    def _init_weight(self, name, arr):
        arr[:] = 0.0
        num_hidden = int(arr.shape[0] / 4)
        arr[num_hidden : 2 * num_hidden] = self.forget_bias
