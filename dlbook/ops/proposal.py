"""Faster R-CNN's region proposal layer (Ren et al. 2015) as in MXNet 1.x:
``_contrib_Proposal`` and ``_contrib_MultiProposal``
(apache/mxnet@1.9.1:src/operator/contrib/proposal.cc, multi_proposal.cc).

The region proposal network (RPN) scores ``A = len(ratios) *
len(scales)`` anchors at every cell of an ``H x W`` feature map and
predicts four offsets for each.  This layer turns them into proposals:

1. **anchors**: a ``stride x stride`` base box ``(0, 0, s - 1, s - 1)``
   reshaped for each ratio ``r`` (``w = round(sqrt(floor(s^2 / r)))``,
   ``h = round(w r)``) and scaled by each scale, centred on the base
   box's centre; anchor ``a`` of cell ``(i, j)`` is shifted by
   ``(j s, i s)``.  Proposals are numbered ``(i W + j) A + a``.
2. **decoding** (pixel convention, widths count both ends)::

       w = x2 - x1 + 1,  cx = x1 + (w - 1) / 2    (same for y, h)
       cx' = dx w + cx,  w' = exp(dw) w
       box = (cx' - (w' - 1) / 2, cy' - (h' - 1) / 2,
              cx' + (w' - 1) / 2, cy' + (h' - 1) / 2)

   clipped to the image ``[0, im_width - 1] x [0, im_height - 1]``
   (``im_info`` rows are ``(height, width, scale)``).  Cells past the
   image's feature extent (``i >= int(height / stride)`` or ``j >=
   int(width / stride)``) get score -1.
3. **small boxes**: a box narrower or shorter than ``rpn_min_size *
   scale`` gets score -1 and grows by that size (half each side).
4. **ranking and NMS**: the ``rpn_pre_nms_top_n`` best scores (all
   when <= 0), greedy non-maximum suppression (IoU with ``+1`` areas
   ``> threshold`` suppresses), at most ``rpn_post_nms_top_n`` kept.

Output: ``(rpn_post_nms_top_n, 5)`` rows ``(batch index, x1, y1, x2,
y2)`` per image (``MultiProposal`` stacks the images, ``Proposal`` takes
one), the kept boxes repeated cyclically when fewer survive, and with
``output_score`` a second output ``(rows, 1)`` of their scores.

The scores are the second half of ``cls_prob``'s channels (``cls_prob``
is ``(B, 2A, H, W)``: background then foreground probabilities);
``bbox_pred`` is ``(B, 4A, H, W)``, channel ``4a + k`` the ``k``-th
offset of anchor ``a``.  No gradient: MXNet's backward writes zeros to
all three inputs.
"""

import math

from ..backend import get_backend
from ..base import DLBookError
from .op import Op, register
from .windows import parse_bool

__all__ = ['Proposal', 'MultiProposal']

#: The host array module (NumPy): ranking and NMS run on the CPU, as in
#: MXNet's CPU implementation.
host_np = get_backend('cpu').xp


def _floats(value):
    if isinstance(value, str):
        value = value.strip('()[] ').split(',')
        value = [v for v in value if v.strip()]
    if not isinstance(value, (list, tuple)):
        value = (value,)
    return tuple(float(v) for v in value)


def generate_anchors(stride, ratios, scales):
    """The ``(A, 4)`` base anchors (ratios outer, scales inner), computed
    in C ``float`` as MXNet does."""
    f = host_np.float32
    size = f(stride) * f(stride)
    centre = f(0.5) * (f(stride) - f(1))
    rows = []
    for r in ratios:
        for s in scales:
            w = f(math.floor(math.sqrt(math.floor(size / f(r))) + 0.5)) * f(s)
            h = f(math.floor(w / f(s) * f(r) + f(0.5))) * f(s)
            rows.append(
                [
                    centre - f(0.5) * (w - f(1)),
                    centre - f(0.5) * (h - f(1)),
                    centre + f(0.5) * (w - f(1)),
                    centre + f(0.5) * (h - f(1)),
                ]
            )
    return host_np.asarray(rows, dtype=host_np.float32)


def nms(boxes, threshold, limit):
    """Indices kept by greedy NMS of score-ordered ``boxes`` ``(K, 4)``:
    a box suppresses every later one whose IoU (areas with ``+1``)
    exceeds ``threshold``; stops after ``limit`` kept."""
    x1, y1, x2, y2 = (boxes[:, k] for k in range(4))
    area = (x2 - x1 + 1) * (y2 - y1 + 1)
    suppressed = host_np.zeros(len(boxes), bool)
    keep = []
    for i in range(len(boxes)):
        if suppressed[i]:
            continue
        keep.append(i)
        if len(keep) == limit:
            break
        w = host_np.maximum(
            0, host_np.minimum(x2[i], x2) - host_np.maximum(x1[i], x1) + 1
        )
        h = host_np.maximum(
            0, host_np.minimum(y2[i], y2) - host_np.maximum(y1[i], y1) + 1
        )
        inter = w * h
        over = inter / (area[i] + area - inter) > threshold
        over[: i + 1] = False
        suppressed |= over
    return keep


@register('_contrib_MultiProposal')
class MultiProposal(Op):
    """Region proposals for each image of a batch (see the module
    docstring): output ``(B * rpn_post_nms_top_n, 5)`` rows ``(b, x1, y1,
    x2, y2)``, plus ``(B * rpn_post_nms_top_n, 1)`` scores when
    ``output_score``.  ``iou_loss=True`` decodes the offsets as direct
    corner shifts ``(x1 + dx1, y1 + dy1, x2 + dx2, y2 + dy2)`` (clipped
    the same way).  No gradient."""

    arguments = ('cls_prob', 'bbox_pred', 'im_info')
    defaults = {
        'rpn_pre_nms_top_n': 6000,
        'rpn_post_nms_top_n': 300,
        'threshold': 0.7,
        'rpn_min_size': 16,
        'scales': (4.0, 8.0, 16.0, 32.0),
        'ratios': (0.5, 1.0, 2.0),
        'feature_stride': 16,
        'output_score': False,
        'iou_loss': False,
    }
    differentiable = False
    one_image = False

    def __init__(self, **attrs):
        super().__init__(**attrs)
        if parse_bool(self.attrs['output_score']):
            self.num_outputs = 2

    def list_outputs(self):
        if self.num_outputs == 2:
            return ('output', 'score')
        return ('output',)

    def _check(self, cls_shape, bbox_shape, info_shape):
        a = self.attrs
        count = len(_floats(a['scales'])) * len(_floats(a['ratios']))
        if len(cls_shape) != 4 or cls_shape[1] != 2 * count:
            raise DLBookError(
                f'{self.name}: cls_prob must be (batch, 2 * {count} anchors, '
                f'height, width), got {tuple(cls_shape)}'
            )
        b, _, h, w = cls_shape
        if tuple(bbox_shape) != (b, 4 * count, h, w):
            raise DLBookError(
                f'{self.name}: bbox_pred must be {(b, 4 * count, h, w)}, '
                f'got {tuple(bbox_shape)}'
            )
        if tuple(info_shape) != (b, 3):
            raise DLBookError(
                f'{self.name}: im_info must be ({b}, 3) rows of (height, '
                f'width, scale), got {tuple(info_shape)}'
            )
        if self.one_image and b != 1:
            raise DLBookError(
                f'{self.name}: takes one image (batch 1), got batch {b}; '
                'use contrib.MultiProposal for batches'
            )
        return b

    def infer_shape(self, cls_prob=None, bbox_pred=None, im_info=None):
        if cls_prob is None:
            return [cls_prob, bbox_pred, im_info], [None], []
        b, c, h, w = cls_prob
        bbox_pred = (b, 2 * c, h, w)
        im_info = (b, 3)
        b = self._check(cls_prob, bbox_pred, im_info)
        rows = b * int(self.attrs['rpn_post_nms_top_n'])
        outs = [(rows, 5), (rows, 1)][: self.num_outputs]
        return [tuple(cls_prob), bbox_pred, im_info], outs, []

    def forward(self, xp, cls_prob, bbox_pred, im_info):
        a = self.attrs
        batch = self._check(cls_prob.shape, bbox_pred.shape, im_info.shape)
        stride = int(a['feature_stride'])
        post = int(a['rpn_post_nms_top_n'])
        anchors = generate_anchors(
            stride, _floats(a['ratios']), _floats(a['scales'])
        )
        count = anchors.shape[0]
        _, _, height, width = cls_prob.shape
        total = count * height * width
        pre = int(a['rpn_pre_nms_top_n'])
        pre = min(pre, total) if pre > 0 else total
        post = min(post, pre)
        # one transfer of each input: the ranking is sequential
        scores_all, deltas_all, info = (
            (v.get() if hasattr(v, 'get') else v).astype(host_np.float32)
            for v in (cls_prob, bbox_pred, im_info)
        )
        shift_y = host_np.arange(height, dtype=host_np.float32) * stride
        shift_x = host_np.arange(width, dtype=host_np.float32) * stride
        shifts = host_np.stack(
            host_np.broadcast_arrays(
                shift_x[None, :],
                shift_y[:, None],
                shift_x[None, :],
                shift_y[:, None],
            ),
            axis=-1,
        )  # (H, W, 4)
        boxes = (shifts[:, :, None, :] + anchors).reshape(-1, 4)
        # the (row, column) of every proposal's cell
        cells = host_np.stack(
            host_np.meshgrid(
                host_np.arange(height), host_np.arange(width), indexing='ij'
            ),
            axis=-1,
        )
        cells = host_np.repeat(cells.reshape(-1, 2), count, axis=0) * stride
        rows_out = int(a['rpn_post_nms_top_n'])
        out = host_np.zeros((batch, rows_out, 5), host_np.float32)
        out_scores = host_np.zeros((batch, rows_out, 1), host_np.float32)
        for b in range(batch):
            fg = scores_all[b, count:].transpose(1, 2, 0).reshape(-1)
            deltas = deltas_all[b].reshape(count, 4, height, width)
            deltas = deltas.transpose(2, 3, 0, 1).reshape(-1, 4)
            dets = self._decode(boxes, deltas, fg, info[b], cells)
            order = host_np.argsort(-dets[:, 4], kind='stable')[:pre]
            ordered = dets[order]
            keep = nms(ordered[:, :4], host_np.float32(a['threshold']), post)
            if not keep:
                continue
            picks = [keep[i % len(keep)] for i in range(rows_out)]
            out[b, :, 0] = b
            out[b, :, 1:] = ordered[picks, :4]
            out_scores[b, :, 0] = ordered[picks, 4]
        results = (
            xp.asarray(out.reshape(-1, 5).astype(cls_prob.dtype)),
            xp.asarray(out_scores.reshape(-1, 1).astype(cls_prob.dtype)),
        )
        return results if self.num_outputs == 2 else results[0]

    def _decode(self, boxes, deltas, scores, info, cells):
        """``(K, 5)`` decoded, clipped, size-filtered boxes with scores
        (``cells``: each box's cell ``(row, column)`` times the stride)."""
        f = host_np.float32
        im_h, im_w, im_scale = (f(v) for v in info)
        stride = int(self.attrs['feature_stride'])
        if parse_bool(self.attrs['iou_loss']):
            pred = boxes + deltas
        else:
            w = boxes[:, 2] - boxes[:, 0] + f(1)
            h = boxes[:, 3] - boxes[:, 1] + f(1)
            cx = boxes[:, 0] + f(0.5) * (w - f(1))
            cy = boxes[:, 1] + f(0.5) * (h - f(1))
            px = deltas[:, 0] * w + cx
            py = deltas[:, 1] * h + cy
            pw = host_np.exp(deltas[:, 2]) * w
            ph = host_np.exp(deltas[:, 3]) * h
            pred = host_np.stack(
                [
                    px - f(0.5) * (pw - f(1)),
                    py - f(0.5) * (ph - f(1)),
                    px + f(0.5) * (pw - f(1)),
                    py + f(0.5) * (ph - f(1)),
                ],
                axis=1,
            )
        limits = host_np.asarray([im_w, im_h, im_w, im_h], f) - f(1)
        pred = host_np.minimum(host_np.maximum(pred, f(0)), limits)
        # cells of the padding past the image's own extent
        scores = scores.copy()
        outside = (cells[:, 0] >= int(im_h / f(stride)) * stride) | (
            cells[:, 1] >= int(im_w / f(stride)) * stride
        )
        scores[outside] = -1
        min_size = f(self.attrs['rpn_min_size']) * im_scale
        small = (pred[:, 2] - pred[:, 0] + f(1) < min_size) | (
            pred[:, 3] - pred[:, 1] + f(1) < min_size
        )
        half = min_size / f(2)
        pred[small] += host_np.asarray([-half, -half, half, half], f)
        scores[small] = -1
        return host_np.concatenate([pred, scores[:, None]], axis=1)


@register('_contrib_Proposal')
class Proposal(MultiProposal):
    """``MultiProposal`` for a single image (batch 1): output
    ``(rpn_post_nms_top_n, 5)`` rows ``(0, x1, y1, x2, y2)`` and, with
    ``output_score``, ``(rpn_post_nms_top_n, 1)`` scores.  No gradient."""

    one_image = True
