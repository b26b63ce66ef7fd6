"""One LSTM time step, forward and backward, as one GPU kernel each.

With array operations a step is about thirty operations (four gate
activations, the cell update, its clipping, ``h``), and backpropagation
through it about thirty more; over 35 time steps a small LSTM issues two
thousand kernel launches per training step.  Each kernel here gives one
thread to each ``(n, j)`` of the ``(N, H)`` state and lets it read its four
gate pre-activations ``a[n, k*H + j]`` (``k`` = i, f, g, o, the order of
MXNet's fused RNN)::

    i, f, o = sigmoid(a_i, a_f, a_o);  g = tanh(a_g)
    c = f * c_prev + i * g    (clipped into [low, high] when clip_on)
    h = o * tanh(c)

and backward, given ``dh`` and ``dc`` (``dc`` stops at a clipped ``c``)::

    dc' = dc + dh * o * (1 - tanh(c)^2)
    da_i = dc' * g * i * (1 - i)      da_f = dc' * c_prev * f * (1 - f)
    da_g = dc' * i * (1 - g^2)        da_o = dh * tanh(c) * o * (1 - o)
    dc_prev = dc' * f

The twins (what NumPy runs) are the same formulas with ``xp``.
"""

from .kernels import Elementwise
from .unary import sigmoid

__all__ = ['LSTM_STEP', 'LSTM_STEP_GRAD']

_GATES = """
    const long long n = i / H;
    const long long b = n * 4 * H + i % H;  // gate i of element (n, j)
"""

_CLIP = """
    if (clip_on) {
        cn = stop_nan ? fmin(fmax(cn, low), high)
                      : (cn < low ? low : (cn > high ? high : cn));
    }
"""


def _clip(xp, c, low, high, stop_nan):
    """``c`` clipped into ``[low, high]`` in place; NaN becomes a bound
    with ``stop_nan`` (``fmax``/``fmin``) and stays NaN without."""
    if stop_nan:
        xp.fmin(xp.fmax(c, low, out=c), high, out=c)
    else:
        xp.minimum(xp.maximum(c, low, out=c), high, out=c)
    return c


def _step_steps(
    xp, xw, hw, c_prev, H, clip_on, low, high, stop_nan, gates, h, c
):
    """:data:`LSTM_STEP` with array operations."""
    a = xw + hw
    gates[:, : 2 * H] = sigmoid(xp, a[:, : 2 * H])  # i, f
    gates[:, 2 * H : 3 * H] = xp.tanh(a[:, 2 * H : 3 * H])  # g
    gates[:, 3 * H :] = sigmoid(xp, a[:, 3 * H :])  # o
    i, f, g, o = (gates[:, k * H : (k + 1) * H] for k in range(4))
    xp.multiply(f, c_prev, out=c)
    c += i * g
    if clip_on:
        _clip(xp, c, low, high, stop_nan)
    xp.multiply(o, xp.tanh(c), out=h)


#: Forward step: gates ``(N, 4H)``, ``h`` and ``c`` ``(N, H)`` written
#: from the pre-activations ``xw + hw`` ``(N, 4H)`` and ``c_prev``.
LSTM_STEP = Elementwise(
    'dlbook_lstm_step',
    'raw T xw, raw T hw, T c_prev, int32 H, int32 clip_on, T low, T high, '
    'int32 stop_nan',
    'raw T gates, T h, T c',
    _GATES
    + """
    T ai = xw[b] + hw[b];
    T af = xw[b + H] + hw[b + H];
    T ag = xw[b + 2 * H] + hw[b + 2 * H];
    T ao = xw[b + 3 * H] + hw[b + 3 * H];
    T gi = 1 / (1 + exp(-ai));
    T gf = 1 / (1 + exp(-af));
    T gg = tanh(ag);
    T go = 1 / (1 + exp(-ao));
    gates[b] = gi;
    gates[b + H] = gf;
    gates[b + 2 * H] = gg;
    gates[b + 3 * H] = go;
    T cn = gf * c_prev + gi * gg;
    """
    + _CLIP
    + """
    c = cn;
    h = go * tanh(cn);
    """,
    _step_steps,
)


def _grad_steps(
    xp, dh, dc, gates, c, c_prev, H, clip_on, low, high, stop_nan, da, dc_prev
):
    """:data:`LSTM_STEP_GRAD` with array operations."""
    i, f, g, o = (gates[:, k * H : (k + 1) * H] for k in range(4))
    tanh_c = xp.tanh(c)
    dc = dc + dh * o * (1 - tanh_c * tanh_c)
    if clip_on:
        # no gradient flows through a clipped cell state
        raw = f * c_prev + i * g
        dc = dc * (_clip(xp, raw.copy(), low, high, stop_nan) == raw)
    da[:, :H] = dc * g * i * (1 - i)
    da[:, H : 2 * H] = dc * c_prev * f * (1 - f)
    da[:, 2 * H : 3 * H] = dc * i * (1 - g * g)
    da[:, 3 * H :] = dh * tanh_c * o * (1 - o)
    xp.multiply(dc, f, out=dc_prev)


#: Backward step: the pre-activation gradient ``da`` ``(N, 4H)`` and
#: ``dc_prev`` ``(N, H)`` from ``dh``, ``dc`` and the step's saved gates.
LSTM_STEP_GRAD = Elementwise(
    'dlbook_lstm_step_grad',
    'T dh, T dc, raw T gates, T c, T c_prev, int32 H, int32 clip_on, '
    'T low, T high, int32 stop_nan',
    'raw T da, T dc_prev',
    _GATES
    + """
    T gi = gates[b], gf = gates[b + H], gg = gates[b + 2 * H],
      go = gates[b + 3 * H];
    T tc = tanh(c);
    T dcn = dc + dh * go * (1 - tc * tc);
    if (clip_on) {
        T cn = gf * c_prev + gi * gg;
        T raw = cn;
    """
    + _CLIP.replace('if (clip_on) {', '{')
    + """
        if (!(cn == raw)) dcn = 0;
    }
    da[b] = dcn * gg * gi * (1 - gi);
    da[b + H] = dcn * c_prev * gf * (1 - gf);
    da[b + 2 * H] = dcn * gi * (1 - gg * gg);
    da[b + 3 * H] = dh * tc * go * (1 - go);
    dc_prev = dcn * gf;
    """,
    _grad_steps,
)
