"""Operator: Connectionist Temporal Classification loss (``CTCLoss``).

CTC (Graves et al., 2006) scores an unsegmented label sequence ``l``
against per-step class scores: it sums the probabilities of every
alignment path that collapses to ``l`` once repeats are merged and blanks
removed.  The sum is computed by dynamic programming over the *extended*
label ``l' = (blank, l_1, blank, l_2, ..., l_L, blank)`` of length
``S = 2L + 1``, forward (``alpha``) and backward (``beta``), in log space
so that long sequences do not underflow.

Interface of ``apache/mxnet@1.9.1:src/operator/nn/ctc_loss.cc`` (also
registered as ``ctc_loss``, ``_contrib_CTCLoss``, ``_contrib_ctc_loss``):
``data`` is ``(T, N, C)`` unnormalized scores (a softmax is applied
inside), ``label`` is ``(N, L)``; the output is the loss ``-log p(l|x)``
of shape ``(N,)``.  With ``blank_label='first'`` the blank is class 0 and
labels are padded with 0; with ``'last'`` it is class ``C - 1`` and labels
are padded with -1.  Without ``label_lengths`` a label ends at its first
padding value.
"""

import math

from ..base import DLBookError
from .activation import stable_log_softmax
from .op import Op, register


def _label_lengths(xp, label, pad):
    """Length of each label row: the index of its first ``pad`` value."""
    is_pad = label == pad
    first = xp.argmax(is_pad.astype('int8'), axis=1)
    return xp.where(is_pad.any(axis=1), first, label.shape[1])


def _extended_labels(xp, label, lengths, blank):
    """``l'`` of shape ``(N, 2L + 1)`` (blanks at even positions) and the
    mask of the positions used by each sequence (``s < 2 L_n + 1``)."""
    n, max_len = label.shape
    ext = xp.full((n, 2 * max_len + 1), blank, dtype=label.dtype)
    ext[:, 1::2] = label
    positions = xp.arange(2 * max_len + 1)
    used = positions[None, :] < (2 * lengths + 1)[:, None]
    # Padding positions become blanks, so every index is a valid class.
    ext = xp.where(used, ext, blank)
    return ext, used


def _logsumexp3(xp, a, b, c):
    """``log(e^a + e^b + e^c)`` elementwise; -inf entries are fine."""
    return xp.logaddexp(xp.logaddexp(a, b), c)


def _shift(xp, x, by, fill):
    """``x`` moved ``by`` places to the right (left if negative) along the
    last axis, filled with ``fill``: row ``s`` of the result holds
    ``x[s - by]``."""
    out = xp.full(x.shape, fill, dtype=x.dtype)
    if by > 0:
        out[:, by:] = x[:, :-by]
    else:
        out[:, :by] = x[:, -by:]
    return out


@register('CTCLoss', 'ctc_loss', '_contrib_CTCLoss', '_contrib_ctc_loss')
class CTCLoss(Op):
    """loss[n] = -log sum over paths pi collapsing to label[n] of
    prod_t softmax(data)[t, n, pi_t]  (forward-backward in log space);
    ddata[t, n, k] = dloss[n] * (softmax(data)[t, n, k]
    - sum_{s: l'_s = k} exp(alpha[t, s] + beta[t, s] - e[t, s] + loss[n]))
    for t < T_n (0 after the sequence ends)."""

    arguments = ('data', 'label', 'data_lengths', 'label_lengths')
    defaults = {
        'use_data_lengths': False,
        'use_label_lengths': False,
        'blank_label': 'first',
    }

    def list_arguments(self):
        names = ['data', 'label']
        if self.attrs['use_data_lengths']:
            names.append('data_lengths')
        if self.attrs['use_label_lengths']:
            names.append('label_lengths')
        return tuple(names)

    def _lengths(self, xp, data, label, extra):
        """Per-sequence input lengths ``T_n`` and label lengths ``L_n``."""
        steps, batch, _ = data.shape
        extra = list(extra)
        if self.attrs['use_data_lengths']:
            data_len = extra.pop(0).astype('int64')
        else:
            data_len = xp.full((batch,), steps, dtype='int64')
        if self.attrs['use_label_lengths']:
            label_len = extra.pop(0).astype('int64')
        else:
            pad = 0 if self.attrs['blank_label'] == 'first' else -1
            label_len = _label_lengths(xp, label, pad)
        return data_len, label_len

    def forward(self, xp, data, label, *extra):
        if (
            data.ndim != 3
            or label.ndim != 2
            or label.shape[0] != data.shape[1]
        ):
            raise DLBookError(
                f'{self.name}: expected data (T, N, C) and label (N, L), '
                f'got data {data.shape} and label {label.shape}'
            )
        blank_label = self.attrs['blank_label']
        if blank_label not in ('first', 'last'):
            raise DLBookError(
                f"{self.name}: blank_label must be 'first' "
                f"or 'last', got {blank_label!r}"
            )
        steps, batch, classes = data.shape
        blank = 0 if blank_label == 'first' else classes - 1
        label = label.astype('int64')
        data_len, label_len = self._lengths(xp, data, label, extra)
        ext, used = _extended_labels(xp, label, label_len, blank)

        logp = stable_log_softmax(xp, data, 2)
        # e[t, n, s] = log p_t(l'_s): the emission of each extended label.
        emit = logp[
            xp.arange(steps)[:, None, None],
            xp.arange(batch)[None, :, None],
            ext[None],
        ]
        # 0-d arrays of the data's dtype keep where() from promoting.
        neg_inf = xp.asarray(-math.inf, dtype=data.dtype)
        zero = xp.zeros((), dtype=data.dtype)
        emit = xp.where(used[None], emit, neg_inf)
        # A path may skip a blank between two different labels only.
        skip = xp.zeros(ext.shape, dtype=bool)
        skip[:, 2:] = (ext[:, 2:] != ext[:, :-2]) & (ext[:, 2:] != blank)
        skip_back = _shift(xp, skip, -2, False)  # skip into s from s + 2

        alpha = xp.full(emit.shape, -math.inf, dtype=data.dtype)
        start = xp.full(ext.shape, -math.inf, dtype=data.dtype)
        start[:, :2] = 0
        alpha[0] = start + emit[0]
        for t in range(1, steps):
            prev = alpha[t - 1]
            two = xp.where(skip, _shift(xp, prev, 2, -math.inf), neg_inf)
            alpha[t] = (
                _logsumexp3(xp, prev, _shift(xp, prev, 1, -math.inf), two)
                + emit[t]
            )

        # beta starts at each sequence's own last step T_n - 1.
        ends = xp.arange(ext.shape[1])[None, :]
        last = 2 * label_len[:, None]
        end_mask = (ends == last) | (ends == last - 1)
        beta = xp.full(emit.shape, -math.inf, dtype=data.dtype)
        nxt = xp.full(ext.shape, -math.inf, dtype=data.dtype)
        for t in range(steps - 1, -1, -1):
            two = xp.where(skip_back, _shift(xp, nxt, -2, -math.inf), neg_inf)
            inner = _logsumexp3(xp, nxt, _shift(xp, nxt, -1, -math.inf), two)
            at_end = (data_len == t + 1)[:, None]
            inner = xp.where(at_end, xp.where(end_mask, zero, neg_inf), inner)
            beta[t] = inner + emit[t]
            nxt = beta[t]

        # p(l|x) = alpha at the last step, ending on the last label or on
        # the blank after it.
        rows = xp.arange(batch)
        final = alpha[data_len - 1, rows]  # (N, S)
        on_blank = final[rows, 2 * label_len]
        on_label = xp.where(
            label_len > 0,
            final[rows, xp.maximum(2 * label_len - 1, 0)],
            neg_inf,
        )
        log_like = xp.logaddexp(on_blank, on_label)
        self.saved = (logp, alpha, beta, emit, ext, data_len, log_like)
        return -log_like

    def backward(self, xp, dy):
        logp, alpha, beta, emit, ext, data_len, log_like = self.saved
        steps, _, classes = logp.shape
        feasible = xp.isfinite(log_like)
        safe_like = xp.where(feasible, log_like, 0)
        # Occupancy of extended position s at step t, then summed per class.
        occ = xp.exp(
            alpha
            + beta
            - xp.where(xp.isfinite(emit), emit, 0)
            - safe_like[None, :, None]
        )
        occ = xp.where(xp.isfinite(emit), occ, 0)
        onehot = (ext[..., None] == xp.arange(classes)).astype(logp.dtype)
        posterior = xp.einsum('tns,nsc->tnc', occ, onehot)
        grad = xp.exp(logp) - posterior
        alive = xp.arange(steps)[:, None] < data_len[None, :]
        # An impossible alignment has an infinite loss and no gradient.
        keep = alive & feasible[None, :]
        grad = xp.where(keep[..., None], grad, 0) * dy[None, :, None]
        return (grad.astype(logp.dtype, copy=False),) + (None,) * (
            len(self.list_arguments()) - 1
        )
