"""Special functions: the error function ``erf`` and its inverse
``erfinv``; the gamma function ``gamma``, its logarithm ``gammaln`` and
their derivative's ingredient ``digamma``.

::

    erf(x) = 2/sqrt(pi) * integral from 0 to x of exp(-t^2) dt

rises from -1 to 1; the normal distribution's CDF is
``Phi(x) = (1 + erf(x / sqrt(2))) / 2``, which is how GELU uses it
(``activation.py``).  ``erfinv`` undoes it: ``erf(erfinv(y)) = y`` for
``-1 < y < 1``.  NumPy has neither function and SciPy is not a dependency,
so both are computed here with ``xp`` arithmetic only:

* ``erf``: rational approximations from the Cephes library, accurate to
  about 1e-16 relative in float64;
* ``erfinv``: a polynomial first guess (about 1e-7 relative where
  ``1 - |y| > 1e-7``), polished by Newton's method on ``erf(x) = y`` to
  about 1e-15.

The operators ``nd.erf`` and ``nd.erfinv`` compute in float64 and return
the input's dtype, so a float32 result is the float64 value rounded once:
its relative error is below 2**-24 (about 6e-8).

::

    gamma(x) = integral from 0 to inf of t^(x-1) exp(-t) dt,
    gamma(n) = (n - 1)!,   gammaln(x) = log|gamma(x)|,
    digamma(x) = gammaln'(x),   gamma'(x) = gamma(x) * digamma(x)

computed with Lanczos' approximation (about 1e-15 relative in float64)
and, for ``x < 1/2``, the reflection ``gamma(x) gamma(1 - x) =
pi / sin(pi x)``; ``digamma`` with its recurrence and asymptotic series.
At the poles (0, -1, -2, ...) they give what C's ``tgamma``/``lgamma``
and Cephes' ``psi`` give, as MXNet does: ``gamma(+-0) = +-inf``,
``gamma(-1) = nan``, ``gammaln = inf``, ``digamma`` = the largest
float64.
"""

import math

from .op import Op, register
from .unary import _Unary

TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)  # erf'(x) = this * exp(-x^2)
SQRT_PI_OVER_TWO = math.sqrt(math.pi) / 2  # erfinv'(y) = this * exp(x^2)

# -- erf ----------------------------------------------------------------------
# The rational approximations of the Cephes library (S. Moshier, ndtr.c;
# the same ones SciPy compiles):
#   |x| <= 1:     erf(x)  = x * T(x^2) / U(x^2)
#   1 < |x| < 8:  erfc(x) = exp(-x^2) * P(x) / Q(x)
#   |x| >= 8:     erfc(x) = exp(-x^2) * R(x) / S(x)
# with erfc(x) = 1 - erf(x).  Coefficients are listed from the highest power
# down; U, Q and S have an implicit leading 1.  Because the forward is this
# accurate, the exact derivative 2/sqrt(pi) * exp(-x^2) is also the
# derivative of our forward (to ~1e-10), which is what the gradient checks
# need.
_ERF_T = (
    9.60497373987051638749e0,
    9.00260197203842689217e1,
    2.23200534594684319226e3,
    7.00332514112805075473e3,
    5.55923013010394962768e4,
)
_ERF_U = (
    1.0,
    3.35617141647503099647e1,
    5.21357949780152679795e2,
    4.59432382970980127987e3,
    2.26290000613890934246e4,
    4.92673942608635921086e4,
)
_ERFC_P = (
    2.46196981473530512524e-10,
    5.64189564831068821977e-1,
    7.46321056442269912687e0,
    4.86371970985681366614e1,
    1.96520832956077098242e2,
    5.26445194995477358631e2,
    9.34528527171957607540e2,
    1.02755188689515710272e3,
    5.57535335369399327526e2,
)
_ERFC_Q = (
    1.0,
    1.32281951154744992508e1,
    8.67072140885989742329e1,
    3.54937778887819891062e2,
    9.75708501743205489753e2,
    1.82390916687909736289e3,
    2.24633760818710981792e3,
    1.65666309194161350182e3,
    5.57535340817727675546e2,
)
_ERFC_R = (
    5.64189583547755073984e-1,
    1.27536670759978104416e0,
    5.01905042251180477414e0,
    6.16021097993053585195e0,
    7.40974269950448939160e0,
    2.97886665372100240670e0,
)
_ERFC_S = (
    1.0,
    2.26052863220117276590e0,
    9.39603524938001434673e0,
    1.20489539808096656605e1,
    1.70814450747565897222e1,
    9.60896809063285878198e0,
    3.36907645100081516050e0,
)


def _polyval(coefs, x):
    """Horner's rule; ``coefs`` from the highest power down."""
    result = coefs[0] + 0 * x
    for c in coefs[1:]:
        result = result * x + c
    return result


def _erf_small(xp, x):
    """``erf(x)`` for ``|x| <= 1`` (larger ``|x|`` are clipped to 1)."""
    small = xp.clip(x, -1.0, 1.0)
    z = small * small
    return small * _polyval(_ERF_T, z) / _polyval(_ERF_U, z)


def _erfc_large(xp, ax):
    """``erfc(ax)`` for ``ax >= 1`` (smaller values are clipped to 1).

    Each branch runs on a clipped copy, so none overflows; ``where`` then
    picks the right one.
    """
    mid = xp.clip(ax, 1.0, 8.0)
    big = xp.clip(ax, 8.0, 30.0)  # erfc(30) underflows to 0 anyway
    erfc_mid = (
        xp.exp(-mid * mid) * _polyval(_ERFC_P, mid) / _polyval(_ERFC_Q, mid)
    )
    erfc_big = (
        xp.exp(-big * big) * _polyval(_ERFC_R, big) / _polyval(_ERFC_S, big)
    )
    return xp.where(ax < 8.0, erfc_mid, erfc_big)


def erf(xp, x):
    """The error function, elementwise, in the dtype of ``x``.

    For ``|x| > 1``, ``erf(x) = sign(x) * (1 - erfc(|x|))``.
    """
    ax = xp.abs(x)
    erfc_abs = _erfc_large(xp, ax)
    erf_large = xp.where(x < 0, erfc_abs - 1, 1 - erfc_abs)
    return xp.where(ax <= 1.0, _erf_small(xp, x), erf_large)


# -- erfinv -------------------------------------------------------------------
# First guess: M. Giles, "Approximating the erfinv function" (GPU Computing
# Gems, Jade Edition, 2011), single-precision version.  With
# w = -log((1 - y) (1 + y)):
#   w < 5:   erfinv(y) ~ y * C(w - 2.5)
#   w >= 5:  erfinv(y) ~ y * D(sqrt(w) - 3)
# (coefficients from the highest power down).
_ERFINV_C = (
    2.81022636e-08,
    3.43273939e-07,
    -3.5233877e-06,
    -4.39150654e-06,
    0.00021858087,
    -0.00125372503,
    -0.00417768164,
    0.246640727,
    1.50140941,
)
_ERFINV_D = (
    -0.000200214257,
    0.000100950558,
    0.00134934322,
    -0.00367342844,
    0.00573950773,
    -0.0076224613,
    0.00943887047,
    1.00167406,
    2.83297682,
)
_NEWTON_STEPS = 4


def erfinv(xp, y):
    """The inverse error function, elementwise, in the dtype of ``y``.

    ``erfinv(+-1) = +-inf``; ``|y| > 1`` gives nan.  By symmetry
    (``erfinv(-y) = -erfinv(y)``) the work is done on ``a = |y|``:

    1. guess ``x`` with Giles' polynomials (see above);
    2. take Newton steps ``x -= g(x) / g'(x)``.  For ``a <= 1/2`` the
       equation is ``g(x) = erf(x) - a = 0``.  Near 1, ``erf(x)`` and ``a``
       agree in their leading digits, so their difference would be mostly
       rounding error; there we solve ``log(erfc(x)) = log(1 - a)``
       instead, whose slope is ``-2/sqrt(pi) * exp(-x^2) / erfc(x)``.
       ``log(erfc)`` is concave, so Newton's method cannot overshoot it
       twice.  Four steps reach float64 precision everywhere, even at
       ``1 - a ~ 1e-16``, beyond the range Giles fitted (first guess ~10%
       off there).
    """
    a_in = xp.abs(y)
    inside = a_in < 1
    a = xp.where(inside, a_in, 0.0)  # the ends are set at the end
    w = -xp.log((1 - a) * (1 + a))
    central = _polyval(_ERFINV_C, w - 2.5)
    tail = _polyval(_ERFINV_D, xp.sqrt(xp.maximum(w, 5.0)) - 3)
    x = xp.where(w < 5, central, tail) * a
    near_one = a > 0.5
    log_q = xp.log1p(-a)  # log(1 - a), exact near a = 0
    for _ in range(_NEWTON_STEPS):
        small, large = _erf_small(xp, x), _erfc_large(xp, x)
        erf_x = xp.where(x <= 1, small, 1 - large)
        erfc_x = xp.where(x <= 1, 1 - small, large)
        slope = TWO_OVER_SQRT_PI * xp.exp(-x * x)
        x = xp.where(
            near_one,
            x + (xp.log(erfc_x) - log_q) * erfc_x / slope,
            x - (erf_x - a) / slope,
        )
    x = xp.where(y < 0, -x, x)
    ends = xp.where(a_in == 1, xp.copysign(math.inf, y), math.nan)
    return xp.where(inside, x, ends)


# -- gamma, gammaln, digamma ----------------------------------------------------
# Lanczos' approximation with g = 7 and 9 terms: for x >= 1/2,
#   gamma(x) = sqrt(2 pi) t^(x - 1/2) exp(-t) A(x),  t = x + g - 1/2,
#   A(x) = c0 + sum over k >= 1 of ck / (x - 1 + k)
_LANCZOS_G = 7
_LANCZOS = (
    0.99999999999980993,
    676.5203681218851,
    -1259.1392167224028,
    771.32342877765313,
    -176.61502916214059,
    12.507343278686905,
    -0.13857109526572012,
    9.9843695780195716e-6,
    1.5056327351493116e-7,
)
_HALF_LOG_TWO_PI = 0.5 * math.log(2 * math.pi)


def _lanczos_log(xp, x):
    """``log gamma(x)`` for ``1/2 <= x < inf`` (other ``x`` read as 1)."""
    x = xp.where((x >= 0.5) & (x < math.inf), x, 1.0) - 1
    series = _LANCZOS[0] + 0 * x
    for k, c in enumerate(_LANCZOS[1:], start=1):
        series = series + c / (x + k)
    t = x + _LANCZOS_G + 0.5
    return _HALF_LOG_TWO_PI + (x + 0.5) * xp.log(t) - t + xp.log(series)


def _poles(xp, x):
    """Where gamma has its poles: 0, -1, -2, ... (and -inf)."""
    return (x <= 0) & (x == xp.floor(x))


def _sin_pi(xp, x):
    """``sin(pi x)`` with ``x`` reduced exactly to ``[-1, 1]`` first (the
    period is 2), so large ``|x|`` lose nothing to rounding ``pi x``."""
    return xp.sin(math.pi * (x - 2 * xp.round(x / 2)))


def gammaln(xp, x):
    """``log|gamma(x)|``, elementwise; ``inf`` at the poles and at
    ``+-inf``.  Every branch runs on inputs made safe for it, and
    ``where`` picks (no warnings from the branches not taken)."""
    pole = _poles(xp, x)
    reflect = (x < 0.5) & ~pole
    left = xp.where(reflect, x, 0.5)
    reflected = (
        math.log(math.pi)
        - xp.log(xp.abs(_sin_pi(xp, left)))
        - _lanczos_log(xp, 1 - left)
    )
    result = xp.where(reflect, reflected, _lanczos_log(xp, x))
    result = xp.where(pole | (x == math.inf), math.inf, result)
    result = xp.where((x == 1) | (x == 2), 0.0, result)  # 0! = 1! = 1
    return xp.where(xp.isnan(x), x, result)


_LOG_FLOAT64_MAX = 709.782712893384  # exp of more overflows


def gamma(xp, x):
    """``gamma(x)``, elementwise: ``exp(gammaln(x))`` with the sign of
    ``sin(pi x)`` for ``x < 0`` (gamma alternates between the poles);
    ``+-inf`` at ``+-0``, nan at the negative poles and ``-inf``."""
    pole = _poles(xp, x)
    negative = (x < 0) & ~pole
    sign = xp.where(
        negative & (_sin_pi(xp, xp.where(negative, x, 0.5)) < 0), -1.0, 1.0
    )
    log_size = gammaln(xp, xp.where(pole, 1.0, x))
    size = xp.where(
        log_size > _LOG_FLOAT64_MAX,
        math.inf,
        xp.exp(xp.minimum(log_size, _LOG_FLOAT64_MAX)),
    )
    at_pole = xp.where(x == 0, xp.copysign(math.inf, x), math.nan)
    return xp.where(pole, at_pole, sign * size)


# digamma(x) = log x - 1/(2x) - sum of B_2k / (2k x^2k) for large x, with
# the Bernoulli numbers B_2 ... B_14; used from x >= 10, where the error
# is below 1e-17
_DIGAMMA_SERIES = (
    1 / 12,
    -1 / 120,
    1 / 252,
    -1 / 240,
    1 / 132,
    -691 / 32760,
    1 / 12,
)
_DIGAMMA_LARGE = 10.0
_FLOAT64_MAX = 1.7976931348623157e308  # Cephes' psi at the poles


def digamma(xp, x):
    """``digamma(x) = d/dx log|gamma(x)|``, elementwise.

    For ``x < 10`` the recurrence ``digamma(x) = digamma(x + 1) - 1/x``
    climbs to 10; below 0 the reflection ``digamma(x) = digamma(1 - x) -
    pi / tan(pi x)`` first (``tan`` on ``x`` reduced exactly to
    ``[-1/2, 1/2]``, its period being 1).
    """
    pole = _poles(xp, x)
    reflect = (x < 0) & ~pole
    y = xp.where(pole | xp.isnan(x), 1.0, xp.where(reflect, 1 - x, x))
    shift = xp.zeros_like(y)
    for _ in range(int(_DIGAMMA_LARGE)):
        small = y < _DIGAMMA_LARGE
        shift = shift + xp.where(small, 1 / y, 0.0)
        y = xp.where(small, y + 1, y)
    z = 1 / (y * y)
    series = 0 * z
    for c in reversed(_DIGAMMA_SERIES):
        series = (series + c) * z
    result = xp.log(y) - 0.5 / y - series - shift
    left = xp.where(reflect, x, 0.25)
    cot = xp.where(
        reflect, math.pi / xp.tan(math.pi * (left - xp.round(left))), 0.0
    )
    result = xp.where(pole, _FLOAT64_MAX, result - cot)
    return xp.where(xp.isnan(x), x, result)


# -- operators ----------------------------------------------------------------


@register('erf')
class Erf(_Unary):
    """y = erf(x) = 2/sqrt(pi) * integral_0^x exp(-t^2) dt;
    dx = dy * 2/sqrt(pi) * exp(-x^2)"""

    def f(self, xp, x):
        # float64 inside, rounded once to x's dtype by _Unary.forward
        return erf(xp, x.astype('float64', copy=False))

    def df(self, xp, x, y):
        return TWO_OVER_SQRT_PI * xp.exp(-x * x)


@register('erfinv')
class Erfinv(_Unary):
    """y = erfinv(x), the y with erf(y) = x (+-inf at x = +-1, nan for
    |x| > 1);   dx = dy * sqrt(pi)/2 * exp(y^2)"""

    def f(self, xp, x):
        return erfinv(xp, x.astype('float64', copy=False))

    def df(self, xp, x, y):
        return SQRT_PI_OVER_TWO * xp.exp(y * y)


class _Float64Special(_Unary):
    """A special function ``f64`` computed in float64 and rounded once to
    the input's dtype, as is its derivative ``df64``; values beyond the
    dtype's range become infinities (quietly, as they do in MXNet's
    float32 arithmetic).  No higher-order gradient (``digamma``'s
    derivative is not here)."""

    def f(self, xp, x):
        return _rounded(xp, self.f64(xp, x.astype('float64')), x.dtype)

    def df(self, xp, x, y):
        return _rounded(xp, self.df64(xp, x.astype('float64')), x.dtype)

    def graph_grads(self, F, inputs, dys):
        return Op.graph_grads(self, F, inputs, dys)  # raises, naming it


def _rounded(xp, y, dtype):
    """float64 ``y`` in ``dtype``, out-of-range values as infinities."""
    if xp.dtype(dtype).kind != 'f' or xp.dtype(dtype).itemsize == 8:
        return y.astype(dtype, copy=False)
    top = float(xp.finfo(dtype).max)
    return xp.where(xp.abs(y) > top, xp.copysign(math.inf, y), y).astype(dtype)


@register('gamma')
class Gamma(_Float64Special):
    """y = gamma(x) (``gamma(n) = (n - 1)!``);
    dx = dy * gamma(x) * digamma(x)"""

    def f64(self, xp, x):
        return gamma(xp, x)

    def df64(self, xp, x):
        return gamma(xp, x) * digamma(xp, x)


@register('gammaln')
class Gammaln(_Float64Special):
    """y = log|gamma(x)|;   dx = dy * digamma(x)"""

    def f64(self, xp, x):
        return gammaln(xp, x)

    def df64(self, xp, x):
        return digamma(xp, x)
