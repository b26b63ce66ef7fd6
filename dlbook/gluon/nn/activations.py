"""Activation layers: elementwise non-linearities as blocks.

Each layer is one operator call (``Activation`` or ``LeakyReLU``), written
with ``F`` so it runs eagerly (``F = nd``) and in a graph (``F = sym``).
Only :class:`PReLU` has a parameter.  Names and reprs follow MXNet 1.9
(python/mxnet/gluon/nn/activations.py).
"""

import math

from ... import initializer
from ..block import HybridBlock

__all__ = ['Activation', 'LeakyReLU', 'PReLU', 'ELU', 'SELU', 'Swish', 'GELU']


class Activation(HybridBlock):
    r"""Apply an activation function to the input.

    ``y = act(x)`` elementwise, with ``act`` one of

    * ``'relu'``: ``max(x, 0)``
    * ``'sigmoid'``: ``1 / (1 + exp(-x))``
    * ``'tanh'``: ``tanh(x)``
    * ``'softrelu'``: ``log(1 + exp(x))`` (softplus)
    * ``'softsign'``: ``x / (1 + |x|)``

    Parameters
    ----------
    activation : str
        Name of the activation function.  It is also the block's name
        hint: a top-level ``Activation('relu')`` is named ``relu0``.

    Examples
    --------
    >>> act = nn.Activation('relu')
    >>> act
    Activation(relu)
    """

    def __init__(self, activation, **kwargs):
        # set before Block.__init__, which asks _alias() for the name hint
        self._act_type = activation
        super().__init__(**kwargs)

    def _alias(self):
        return self._act_type

    def hybrid_forward(self, F, x):
        return F.Activation(x, act_type=self._act_type, name='fwd')

    def __repr__(self):
        return f'{type(self).__name__}({self._act_type})'


class LeakyReLU(HybridBlock):
    r"""Leaky rectified linear unit.

    ``y = x`` if ``x > 0`` else ``alpha * x``: negative inputs keep a small
    slope, so their gradient is ``alpha`` instead of 0.

    Parameters
    ----------
    alpha : float
        Slope for ``x <= 0``; must be at least 0.
    """

    def __init__(self, alpha, **kwargs):
        if alpha < 0:
            raise AssertionError(
                'Slope coefficient for LeakyReLU must be no less than 0.'
            )
        super().__init__(**kwargs)
        self._alpha = alpha

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type='leaky', slope=self._alpha, name='fwd')

    def __repr__(self):
        return f'{type(self).__name__}({self._alpha})'


class PReLU(HybridBlock):
    r"""Parametric leaky ReLU: the negative slope is learnt.

    ``y = x`` if ``x > 0`` else ``alpha[c] * x``, with one slope per channel
    (axis 1) or one shared slope (``in_channels=1``, the default).

    Parameters
    ----------
    alpha_initializer : Initializer, default Constant(0.25)
        Initial value of the slope(s).
    in_channels : int, default 1
        Number of slopes: 1 (shared) or the number of channels.
    """

    def __init__(
        self,
        alpha_initializer=initializer.Constant(0.25),
        in_channels=1,
        **kwargs,
    ):
        super().__init__(**kwargs)
        with self.name_scope():
            self.alpha = self.params.get(
                'alpha', shape=(in_channels,), init=alpha_initializer
            )

    def hybrid_forward(self, F, x, alpha):
        return F.LeakyReLU(x, gamma=alpha, act_type='prelu', name='fwd')


class ELU(HybridBlock):
    r"""Exponential linear unit (Clevert et al., 2015).

    ``y = x`` if ``x > 0`` else ``alpha * (exp(x) - 1)``: smooth, and
    saturating at ``-alpha`` for very negative inputs.

    Parameters
    ----------
    alpha : float, default 1.0
    """

    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        self._alpha = alpha

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type='elu', slope=self._alpha)


class SELU(HybridBlock):
    r"""Scaled exponential linear unit (Klambauer et al., 2017).

    ``y = lambda * x`` if ``x > 0`` else ``lambda * alpha * (exp(x) - 1)``
    with ``lambda = 1.0507...`` and ``alpha = 1.6733...``, constants chosen
    so activations keep zero mean and unit variance through deep nets.
    """

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type='selu', name='fwd')


class GELU(HybridBlock):
    r"""Gaussian error linear unit (Hendrycks and Gimpel, 2016).

    ``y = x * Phi(x) = x / 2 * (1 + erf(x / sqrt(2)))``, the input weighted
    by the probability that a standard normal variable is below it.

    Parameters
    ----------
    approximation : {'erf', 'tanh'}, default 'erf'
        ``'tanh'`` uses ``x / 2 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 *
        x^3)))`` instead of the exact ``erf``.
    """

    def __init__(self, approximation='erf', **kwargs):
        if approximation not in ('erf', 'tanh'):
            raise ValueError(
                f"Unsupported approximation! Support values "
                f"are 'erf' and 'tanh', but got "
                f"'{approximation}'"
            )
        super().__init__(**kwargs)
        self._approximation = approximation

    def hybrid_forward(self, F, x):
        if self._approximation == 'erf':
            return F.LeakyReLU(x, act_type='gelu', name='fwd')
        # MXNet's 'gelu_tanh' kernel, composed from basic operators
        inner = math.sqrt(2 / math.pi) * (x + 0.044715 * x * x * x)
        return 0.5 * x * (1 + F.tanh(inner))


class Swish(HybridBlock):
    r"""Swish (Ramachandran et al., 2017), also called SiLU for beta = 1.

    ``y = x * sigmoid(beta * x)``: like ReLU for large ``|x|`` but smooth
    and slightly negative just below 0.

    Parameters
    ----------
    beta : float, default 1.0
    """

    def __init__(self, beta=1.0, **kwargs):
        super().__init__(**kwargs)
        self._beta = beta

    def hybrid_forward(self, F, x):
        return x * F.sigmoid(self._beta * x, name='fwd')
