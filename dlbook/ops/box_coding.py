"""Box coding and matching operators of MXNet's contrib detection set
(apache/mxnet@1.9.1:src/operator/contrib/bounding_box-inl.h).

* ``_contrib_box_encode`` (``nd.contrib.box_encode``): the regression
  targets of matched anchors, as Faster R-CNN and GluonCV's SSD train them;
* ``_contrib_box_decode`` (``nd.contrib.box_decode``): the inverse, boxes
  from predicted offsets;
* ``_contrib_bipartite_matching`` (``nd.contrib.bipartite_matching``):
  greedy one-to-one matching of rows to columns by score.

The three have no gradient in MXNet (its backward writes zeros); here
they are not recorded on the tape, so the inputs' gradients stay zero.

The centre-size offsets of a box ``g`` from an anchor ``a`` (both as
centre ``x, y``, width ``w`` and height ``h``) are::

    t_x = (g_x - a_x) / a_w      t_w = log(g_w / a_w)
    t_y = (g_y - a_y) / a_h      t_h = log(g_h / a_h)

``box_encode`` subtracts ``means`` and divides by ``stds``;
``box_decode`` multiplies by ``std0..3`` and inverts.
"""

from ..backend import get_backend
from ..base import DLBookError
from .op import Op, register
from .windows import parse_bool

__all__ = ['BoxEncode', 'BoxDecode', 'BipartiteMatching']

#: The host array module (NumPy): the greedy matching runs box by box.
host_np = get_backend('cpu').xp


def _centre_size(boxes):
    """``(x, y, w, h)`` of corner boxes ``(..., 4)``."""
    w = boxes[..., 2] - boxes[..., 0]
    h = boxes[..., 3] - boxes[..., 1]
    return boxes[..., 0] + w * 0.5, boxes[..., 1] + h * 0.5, w, h


@register('_contrib_box_encode')
class BoxEncode(Op):
    """Regression targets of anchors matched to reference boxes.

    Parameters
    ----------
    samples : (B, N)
        +1 for a positive anchor, -1 negative, 0 ignored; only anchors
        with ``samples > 0.5`` get targets.
    matches : (B, N)
        The index in ``[0, M)`` of the reference box each anchor matches.
    anchors : (B, N, 4)
        Anchors in corner form ``(xmin, ymin, xmax, ymax)``.
    refs : (B, M, 4)
        Reference (ground-truth) boxes in corner form.
    means, stds : (4,)
        Normalisation of the four offsets.

    Returns
    -------
    targets : (B, N, 4)
        ``(t_k - means[k]) / stds[k]`` for positive anchors (the offsets
        ``t`` of the module docstring, ``g = refs[b, matches[b, n]]``,
        ``a = anchors[b, n]``), 0 elsewhere.
    masks : (B, N, 4)
        1 for positive anchors, 0 elsewhere.

    No gradient (MXNet's is zero).
    """

    arguments = ('samples', 'matches', 'anchors', 'refs', 'means', 'stds')
    defaults = {}
    differentiable = False
    num_outputs = 2

    def forward(self, xp, samples, matches, anchors, refs, means, stds):
        if (
            anchors.ndim != 3
            or anchors.shape[2] != 4
            or refs.ndim != 3
            or refs.shape[2] != 4
            or samples.shape != anchors.shape[:2]
            or matches.shape != anchors.shape[:2]
            or refs.shape[0] != anchors.shape[0]
            or means.size != 4
            or stds.size != 4
        ):
            raise DLBookError(
                'box_encode: want samples and matches (B, N), anchors '
                '(B, N, 4), refs (B, M, 4), means and stds (4,); got '
                f'{samples.shape}, {matches.shape}, {anchors.shape}, '
                f'{refs.shape}, {means.shape}, {stds.shape}'
            )
        dtype = anchors.dtype
        index = matches.astype(xp.int64)
        index = xp.clip(index, 0, refs.shape[1] - 1)[..., None]
        index = xp.broadcast_to(index, anchors.shape)
        ref = xp.take_along_axis(refs, index, axis=1)
        gx, gy, gw, gh = _centre_size(ref)
        ax, ay, aw, ah = _centre_size(anchors)
        valid = samples > 0.5
        # keep the logarithm's argument positive where it is unused
        ratio_w = xp.where(valid, gw / aw, 1)
        ratio_h = xp.where(valid, gh / ah, 1)
        t = xp.stack(
            [(gx - ax) / aw, (gy - ay) / ah, xp.log(ratio_w), xp.log(ratio_h)],
            axis=-1,
        )
        t = (t - means.astype(dtype)) / stds.astype(dtype)
        mask = xp.broadcast_to(valid[..., None], t.shape)
        targets = xp.where(mask, t, 0).astype(dtype)
        return targets, mask.astype(dtype)

    def infer_shape(self, *shapes):
        anchors = shapes[2] if len(shapes) > 2 else None
        if anchors is None:
            return list(shapes), [None, None], []
        return list(shapes), [tuple(anchors), tuple(anchors)], []

    def list_outputs(self):
        return ('targets', 'masks')


@register('_contrib_box_decode')
class BoxDecode(Op):
    """Boxes from predicted offsets: the inverse of ``box_encode``.

    ``data`` ``(B, N, 4)`` holds offsets ``(dx, dy, dw, dh)``; ``anchors``
    ``(1, N, 4)`` is in ``format`` ``'center'`` ``(x, y, w, h)`` (the
    default) or ``'corner'``.  With ``s_k = std_k``::

        x = dx s0 a_w + a_x        w/2 = exp(min(dw s2, clip)) a_w / 2
        y = dy s1 a_h + a_y        h/2 = exp(min(dh s3, clip)) a_h / 2

    (``clip`` applies only when it is > 0).  The output ``(B, N, 4)`` is
    always in corner form ``(x - w/2, y - h/2, x + w/2, y + h/2)``.

    No gradient (MXNet's is zero).
    """

    arguments = ('data', 'anchors')
    defaults = {
        'std0': 1.0,
        'std1': 1.0,
        'std2': 1.0,
        'std3': 1.0,
        'clip': -1.0,
        'format': 'center',
    }
    differentiable = False

    def forward(self, xp, data, anchors):
        a = self.attrs
        if a['format'] not in ('center', 'corner'):
            raise DLBookError(
                "box_decode: format must be 'center' or 'corner', got "
                f'{a["format"]!r}'
            )
        if (
            data.ndim != 3
            or data.shape[2] != 4
            or anchors.ndim != 3
            or anchors.shape[2] != 4
            or anchors.shape[1] != data.shape[1]
        ):
            raise DLBookError(
                'box_decode: want data (B, N, 4) and anchors (1, N, 4), got '
                f'{data.shape} and {anchors.shape}'
            )
        dtype = data.dtype
        anchors = anchors.astype(dtype)
        if a['format'] == 'corner':
            ax, ay, aw, ah = _centre_size(anchors)
        else:
            ax, ay, aw, ah = (anchors[..., k] for k in range(4))
        std = [dtype.type(a[f'std{k}']) for k in range(4)]
        x = data[..., 0] * std[0] * aw + ax
        y = data[..., 1] * std[1] * ah + ay
        dw = data[..., 2] * std[2]
        dh = data[..., 3] * std[3]
        clip = float(a['clip'])
        if clip > 0:
            dw = xp.minimum(dw, dtype.type(clip))
            dh = xp.minimum(dh, dtype.type(clip))
        half_w = xp.exp(dw) * aw * 0.5
        half_h = xp.exp(dh) * ah * 0.5
        out = xp.stack([x - half_w, y - half_h, x + half_w, y + half_h], -1)
        return out.astype(dtype)

    def infer_shape(self, data=None, anchors=None):
        return [data, anchors], [None if data is None else tuple(data)], []


@register('_contrib_bipartite_matching')
class BipartiteMatching(Op):
    """Greedy bipartite matching of the rows and columns of a score
    matrix ``data`` ``(..., N, M)``.

    All ``N M`` scores of one matrix are visited best first (descending,
    or ascending with ``is_ascend``; ties in row-major order); a score
    whose row and column are both free matches them, unless it fails the
    ``threshold`` (``score > threshold``, or ``< threshold`` when
    ascending), which ends the matching.  As in MXNet, matching stops
    only once the count *exceeds* ``topk`` (when ``topk > 0``), so up to
    ``topk + 1`` pairs are made.

    Returns
    -------
    row_marker : (..., N)
        The column each row matched, -1 for none.
    col_marker : (..., M)
        The row each column matched, -1 for none.

    Both have ``data``'s dtype.  No gradient (MXNet's is zero).
    """

    defaults = {'is_ascend': False, 'threshold': None, 'topk': -1}
    differentiable = False
    num_outputs = 2

    def forward(self, xp, data):
        a = self.attrs
        if a['threshold'] is None:
            raise DLBookError(
                'bipartite_matching: the threshold argument is required'
            )
        if data.ndim < 2:
            raise DLBookError(
                'bipartite_matching: data must be (..., N, M), got shape '
                f'{data.shape}'
            )
        ascend = parse_bool(a['is_ascend'])
        threshold = host_np.float32(a['threshold'])
        topk = int(a['topk'])
        n, m = data.shape[-2:]
        host = data.get() if hasattr(data, 'get') else data
        scores = host.reshape(-1, n * m)
        rows = host_np.full((scores.shape[0], n), -1, data.dtype)
        cols = host_np.full((scores.shape[0], m), -1, data.dtype)
        for b, row in enumerate(scores):
            order = host_np.argsort(row if ascend else -row, kind='stable')
            count = 0
            for flat in order.tolist():
                r, c = divmod(flat, m)
                if rows[b, r] != -1 or cols[b, c] != -1:
                    continue
                score = row[flat]
                if not (score < threshold if ascend else score > threshold):
                    break
                rows[b, r], cols[b, c] = c, r
                count += 1
                if 0 < topk < count:
                    break
        lead = data.shape[:-2]
        return (
            xp.asarray(rows.reshape(lead + (n,))),
            xp.asarray(cols.reshape(lead + (m,))),
        )

    def infer_shape(self, data=None):
        if data is None:
            return [None], [None, None], []
        return [data], [tuple(data[:-1]), tuple(data[:-2]) + (data[-1],)], []
