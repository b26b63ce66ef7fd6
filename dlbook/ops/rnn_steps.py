"""One LSTM or GRU time step, forward and backward, as one GPU kernel each.

With array operations an LSTM step is about thirty operations (four gate
activations, the cell update, its clipping, ``h``), and backpropagation
through it about thirty more; over 35 time steps a small LSTM issues two
thousand kernel launches per training step (a GRU step about a dozen
each way).  Each kernel here gives one thread to each ``(n, j)`` of the
``(N, H)`` state and lets it read its gate pre-activations
``a[n, k*H + j]`` (the gate order of MXNet's fused RNN).

LSTM, gates i, f, g, o::

    i, f, o = sigmoid(a_i, a_f, a_o);  g = tanh(a_g)
    c = f * c_prev + i * g    (clipped into [low, high] when clip_on)
    h = o * tanh(c)

and backward, given ``dh`` and ``dc`` (``dc`` stops at a clipped ``c``)::

    dc' = dc + dh * o * (1 - tanh(c)^2)
    da_i = dc' * g * i * (1 - i)      da_f = dc' * c_prev * f * (1 - f)
    da_g = dc' * i * (1 - g^2)        da_o = dh * tanh(c) * o * (1 - o)
    dc_prev = dc' * f

GRU (cuDNN's variant), gates r, z, n, with ``hw_n = h_prev W_hn^T + b_hn``::

    r, z = sigmoid(xw_r + hw_r, xw_z + hw_z)
    n = tanh(xw_n + r * hw_n);         h = n + z * (h_prev - n)

    da_n = dh * (1 - z) * (1 - n^2);   da_r = da_n * hw_n * r * (1 - r)
    da_z = dh * (h_prev - n) * z * (1 - z)
    d(xw) = (da_r, da_z, da_n);  d(hw) = (da_r, da_z, da_n * r);  dh * z

The twins (what NumPy runs) are the same formulas with ``xp``.
"""

from .kernels import Elementwise
from .unary import sigmoid

__all__ = ['LSTM_STEP', 'LSTM_STEP_GRAD', 'GRU_STEP', 'GRU_STEP_GRAD']

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
    xp,
    dy,
    dh,
    dc,
    gates,
    c,
    c_prev,
    H,
    clip_on,
    low,
    high,
    stop_nan,
    da,
    dc_prev,
):
    """:data:`LSTM_STEP_GRAD` with array operations."""
    dh = dy + dh
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
#: ``dc_prev`` ``(N, H)`` from the step's ``dh = dy + dh`` (its output's
#: gradient and the one from the next step), ``dc`` and the saved gates.
LSTM_STEP_GRAD = Elementwise(
    'dlbook_lstm_step_grad',
    'T dy, T dh_next, T dc, raw T gates, T c, T c_prev, int32 H, '
    'int32 clip_on, T low, T high, int32 stop_nan',
    'raw T da, T dc_prev',
    _GATES
    + """
    const T dh = dy + dh_next;
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


_GRU_GATES = """
    const long long n = i / H;
    const long long b = n * 3 * H + i % H;  // gate r of element (n, j)
"""


def _gru_step_steps(xp, xw, hw, bh, h_prev, H, gates, h2h_n, h):
    """:data:`GRU_STEP` with array operations."""
    hw = hw + bh
    gates[:, : 2 * H] = sigmoid(xp, xw[:, : 2 * H] + hw[:, : 2 * H])
    r, z = gates[:, :H], gates[:, H : 2 * H]
    h2h_n[...] = hw[:, 2 * H :]
    gates[:, 2 * H :] = xp.tanh(xw[:, 2 * H :] + r * hw[:, 2 * H :])
    n = gates[:, 2 * H :]
    # (1 - z) * n + z * h_prev, with one operation fewer
    xp.add(n, z * (h_prev - n), out=h)


#: GRU forward step: gates ``(N, 3H)``, the step's ``hw_n`` and ``h``
#: ``(N, H)`` from ``xw`` and ``hw`` ``(N, 3H)`` (``hw`` without its bias
#: ``bh`` ``(3H,)``, which the step adds) and ``h_prev``.
GRU_STEP = Elementwise(
    'dlbook_gru_step',
    'raw T xw, raw T hw, raw T bh, T h_prev, int32 H',
    'raw T gates, T h2h_n, T h',
    _GRU_GATES
    + """
    const long long j = i % H;
    T r = 1 / (1 + exp(-(xw[b] + (hw[b] + bh[j]))));
    T z = 1 / (1 + exp(-(xw[b + H] + (hw[b + H] + bh[j + H]))));
    T hn = hw[b + 2 * H] + bh[j + 2 * H];
    T nn = tanh(xw[b + 2 * H] + r * hn);
    gates[b] = r;
    gates[b + H] = z;
    gates[b + 2 * H] = nn;
    h2h_n = hn;
    h = nn + z * (h_prev - nn);
    """,
    _gru_step_steps,
)


def _gru_grad_steps(
    xp, dy, dh, dh_next, gates, h2h_n, h_prev, H, dxw, dhw, dh_direct
):
    """:data:`GRU_STEP_GRAD` with array operations."""
    dh = dy + dh + dh_next
    r, z, n = (gates[:, k * H : (k + 1) * H] for k in range(3))
    da_n = dh * (1 - z) * (1 - n * n)
    da_r = da_n * h2h_n * r * (1 - r)
    da_z = dh * (h_prev - n) * z * (1 - z)
    for target in (dxw, dhw):
        target[:, :H] = da_r
        target[:, H : 2 * H] = da_z
    dxw[:, 2 * H :] = da_n
    xp.multiply(da_n, r, out=dhw[:, 2 * H :])
    xp.multiply(dh, z, out=dh_direct)


#: GRU backward step: the gradients of ``xw`` and ``hw`` ``(N, 3H)`` and
#: the direct part of ``dh_prev`` from the step's ``dh = dy + dh_w +
#: dh_next`` (its output's gradient, the product from the next step and
#: that step's direct part) and the saved gates.
GRU_STEP_GRAD = Elementwise(
    'dlbook_gru_step_grad',
    'T dy, T dh_w, T dh_next, raw T gates, T h2h_n, T h_prev, int32 H',
    'raw T dxw, raw T dhw, T dh_direct',
    _GRU_GATES
    + """
    const T dh = dy + dh_w + dh_next;
    T r = gates[b], z = gates[b + H], nn = gates[b + 2 * H];
    T da_n = dh * (1 - z) * (1 - nn * nn);
    T da_r = da_n * h2h_n * r * (1 - r);
    T da_z = dh * (h_prev - nn) * z * (1 - z);
    dxw[b] = da_r;
    dxw[b + H] = da_z;
    dxw[b + 2 * H] = da_n;
    dhw[b] = da_r;
    dhw[b + H] = da_z;
    dhw[b + 2 * H] = da_n * r;
    dh_direct = dh * z;
    """,
    _gru_grad_steps,
)
