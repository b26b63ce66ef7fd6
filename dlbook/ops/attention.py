"""Operators: the interleaved attention matmuls of GluonNLP's BERT.

Multi-head attention keeps queries, keys and values in one projection,
laid out time-major and *interleaved per head*::

    self-attention  qkv (S, B, H * 3 * D)  viewed as (S, B, H, 3, D):
                    qkv[s, b, h, 0] is the query, 1 the key, 2 the value
                    of head h at position s of sequence b
    encoder-decoder queries (S, B, H * D)  viewed as (S, B, H, D),
                    keys_values (T, B, H * 2 * D) as (T, B, H, 2, D)

(S query positions, T key positions, B sequences, H heads, D = the size of
one head).  Scores and attention weights are ``(B * H, S, T)``, row
``b * H + h``.  The four operators::

    selfatt_qk:      scores = q @ k^T / sqrt(D)        (B*H, S, S)
    selfatt_valatt:  out = att @ v  -> (S, B, H * D)
    encdec_qk:       scores = q @ k^T / sqrt(D)        (B*H, S, T)
    encdec_valatt:   out = att @ v  -> (S, B, H * D)

Gradients are those of the matrix products: for ``scores = a @ b^T``,
``da = dscores @ b`` and ``db = dscores^T @ a``; for ``out = att @ v``,
``datt = dout @ v^T`` and ``dv = att^T @ dout``; the slots of the packed
input that the operator does not read get 0.

Reference: src/operator/contrib/transformer.cc (MXNet's CPU kernels take
float32 only; these take every float type).
"""

import math

from ..base import DLBookError
from .op import Op, register

__all__ = ['SelfAttQK', 'SelfAttValAtt', 'EncDecQK', 'EncDecValAtt']


def _heads(name, array, heads, parts):
    """``array`` (L, B, H * parts * D) as (B, H, parts, L, D)."""
    heads = int(heads)
    if array.ndim != 3 or heads < 1 or array.shape[2] % (heads * parts):
        raise DLBookError(
            f'{name}: input of shape {array.shape} must be (length, batch, '
            f'heads * {parts} * head_dim) with heads={heads}'
        )
    length, batch, width = array.shape
    d = width // (heads * parts)
    view = array.reshape(length, batch, heads, parts, d)
    return view.transpose(1, 2, 3, 0, 4)


def _pack(xp, grads, like, parts):
    """Gradients per slot, each (B, H, L, D) or None, back into the packed
    (L, B, H * parts * D) layout of ``like``."""
    length, batch, width = like.shape
    out = xp.zeros(like.shape, dtype=like.dtype)
    heads = next(g.shape[1] for g in grads if g is not None)
    view = out.reshape(length, batch, heads, parts, width // (heads * parts))
    for slot, g in enumerate(grads):
        if g is not None:
            view[:, :, :, slot] = g.transpose(2, 0, 1, 3)
    return out


def _scores(xp, q, k):
    """q (B, H, S, D) @ k (B, H, T, D)^T / sqrt(D) -> (B*H, S, T)."""
    b, h, s, d = q.shape
    scale = q.dtype.type(1 / math.sqrt(d))
    out = xp.matmul(q * scale, k.transpose(0, 1, 3, 2))
    return out.reshape(b * h, s, k.shape[2])


def _scores_grads(xp, dy, q, k):
    b, h, s, d = q.shape
    scale = q.dtype.type(1 / math.sqrt(d))
    g = dy.reshape(b, h, s, k.shape[2])
    return xp.matmul(g, k) * scale, xp.matmul(
        g.transpose(0, 1, 3, 2), q
    ) * scale


def _check_att(name, att, v):
    b, h, t, d = v.shape
    if att.ndim != 3 or att.shape[0] != b * h or att.shape[2] != t:
        raise DLBookError(
            f'{name}: attention of shape {att.shape} must be (batch * '
            f'heads, query length, {t}) = ({b * h}, ?, {t})'
        )
    return att.reshape(b, h, att.shape[1], t)


def _weighted(xp, att, v):
    """att (B, H, S, T) @ v (B, H, T, D) -> (S, B, H * D)."""
    out = xp.matmul(att, v)  # (B, H, S, D)
    b, h, s, d = out.shape
    return xp.ascontiguousarray(out.transpose(2, 0, 1, 3)).reshape(s, b, h * d)


def _weighted_grads(xp, dy, att, v):
    b, h, s, t = att.shape
    g = dy.reshape(s, b, h, v.shape[3]).transpose(1, 2, 0, 3)
    datt = xp.matmul(g, v.transpose(0, 1, 3, 2)).reshape(b * h, s, t)
    return datt, xp.matmul(att.transpose(0, 1, 3, 2), g)


@register('_contrib_interleaved_matmul_selfatt_qk')
class SelfAttQK(Op):
    """scores = q @ k^T / sqrt(D) from one interleaved (S, B, H*3*D)
    projection (see the module docstring);  dq = dscores @ k / sqrt(D),
    dk = dscores^T @ q / sqrt(D), dv = 0."""

    arguments = ('queries_keys_values',)
    defaults = {'heads': None}

    def forward(self, xp, qkv):
        view = _heads(self.name, qkv, self.attrs['heads'], 3)
        q, k = view[:, :, 0], view[:, :, 1]
        self.saved = (qkv, q, k)
        return _scores(xp, q, k)

    def backward(self, xp, dy):
        qkv, q, k = self.saved
        dq, dk = _scores_grads(xp, dy, q, k)
        return _pack(xp, (dq, dk, None), qkv, 3)


@register('_contrib_interleaved_matmul_selfatt_valatt')
class SelfAttValAtt(Op):
    """out = attention @ v, v from the interleaved (S, B, H*3*D)
    projection, out (S, B, H*D);  dattention = dout @ v^T,
    dv = attention^T @ dout, dq = dk = 0."""

    arguments = ('queries_keys_values', 'attention')
    defaults = {'heads': None}

    def forward(self, xp, qkv, attention):
        v = _heads(self.name, qkv, self.attrs['heads'], 3)[:, :, 2]
        att = _check_att(self.name, attention, v)
        self.saved = (qkv, att, v)
        return _weighted(xp, att, v)

    def backward(self, xp, dy):
        qkv, att, v = self.saved
        datt, dv = _weighted_grads(xp, dy, att, v)
        return _pack(xp, (None, None, dv), qkv, 3), datt


@register('_contrib_interleaved_matmul_encdec_qk')
class EncDecQK(Op):
    """scores = q @ k^T / sqrt(D), q from (S, B, H*D), k from the
    interleaved (T, B, H*2*D) keys_values; scores (B*H, S, T);
    dq = dscores @ k / sqrt(D), dk = dscores^T @ q / sqrt(D), dv = 0."""

    arguments = ('queries', 'keys_values')
    defaults = {'heads': None}

    def forward(self, xp, queries, keys_values):
        q = _heads(self.name, queries, self.attrs['heads'], 1)[:, :, 0]
        k = _heads(self.name, keys_values, self.attrs['heads'], 2)[:, :, 0]
        if q.shape[0] != k.shape[0] or q.shape[3] != k.shape[3]:
            raise DLBookError(
                f'{self.name}: queries {queries.shape} and keys_values '
                f'{keys_values.shape} disagree on batch or head size'
            )
        self.saved = (queries, keys_values, q, k)
        return _scores(xp, q, k)

    def backward(self, xp, dy):
        queries, keys_values, q, k = self.saved
        dq, dk = _scores_grads(xp, dy, q, k)
        return (
            _pack(xp, (dq,), queries, 1),
            _pack(xp, (dk, None), keys_values, 2),
        )


@register('_contrib_interleaved_matmul_encdec_valatt')
class EncDecValAtt(Op):
    """out = attention @ v, v from the interleaved (T, B, H*2*D)
    keys_values, attention (B*H, S, T), out (S, B, H*D);
    dattention = dout @ v^T, dv = attention^T @ dout, dk = 0."""

    arguments = ('keys_values', 'attention')
    defaults = {'heads': None}

    def forward(self, xp, keys_values, attention):
        v = _heads(self.name, keys_values, self.attrs['heads'], 2)[:, :, 1]
        att = _check_att(self.name, attention, v)
        self.saved = (keys_values, att, v)
        return _weighted(xp, att, v)

    def backward(self, xp, dy):
        keys_values, att, v = self.saved
        datt, dv = _weighted_grads(xp, dy, att, v)
        return _pack(xp, (None, dv), keys_values, 2), datt
