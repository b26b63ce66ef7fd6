"""Object-detection operators of MXNet (SSD anchors, IoU, NMS, RoI pooling).

* ``_contrib_MultiBoxPrior`` (``npx.multibox_prior``): anchor boxes
  centred on every pixel of a feature map, as in SSD;
* ``_contrib_box_iou`` (``nd.contrib.box_iou``): the intersection over
  union of every pair of boxes;
* ``_contrib_box_nms`` (``nd.contrib.box_nms``): greedy non-maximum
  suppression;
* ``ROIPooling`` (``npx.roi_pooling``): max pooling of each region of
  interest into a fixed grid, with gradient;
* ``_contrib_MultiBoxTarget`` / ``_contrib_MultiBoxDetection``
  (``npx.multibox_target`` / ``npx.multibox_detection``): SSD's training
  targets and its decoded, non-maximum-suppressed detections.

The formulas follow apache/mxnet@1.9.1:src/operator/contrib/
multibox_prior.cc, multibox_target.cc, multibox_detection.cc,
bounding_box-inl.h and src/operator/roi_pooling.cc,
including their rounding rules.  The loops run over boxes on the host
side of ``xp`` (d2l's detection chapters use a few thousand anchors).
"""

import math

from ..backend import get_backend
from ..base import DLBookError
from .op import Op, register

#: The host array module (NumPy): the box-matching loops below run on the
#: CPU, box by box, as MXNet's own implementations do.
host_np = get_backend('cpu').xp

__all__ = []


@register('_contrib_MultiBoxPrior', '_npx_multibox_prior')
class MultiBoxPrior(Op):
    """Anchor boxes (xmin, ymin, xmax, ymax), normalized to [0, 1], for
    the (N, C, H, W) feature map ``data``: per pixel, every size with the
    first ratio, then the first size with every other ratio.  Output
    shape (1, H*W*(len(sizes)+len(ratios)-1), 4);  no gradient"""

    defaults = {
        'sizes': (1.0,),
        'ratios': (1.0,),
        'clip': False,
        'steps': (-1.0, -1.0),
        'offsets': (0.5, 0.5),
    }
    differentiable = False

    def forward(self, xp, data):
        a = self.attrs
        sizes = _floats(a['sizes'])
        ratios = _floats(a['ratios'])
        height, width = data.shape[2], data.shape[3]
        step_y = a['steps'][0] if a['steps'][0] > 0 else 1.0 / height
        step_x = a['steps'][1] if a['steps'][1] > 0 else 1.0 / width
        # half widths and heights of the anchors of one pixel
        shapes = [
            (
                s * height / width * math.sqrt(ratios[0]) / 2,
                s / math.sqrt(ratios[0]) / 2,
            )
            for s in sizes
        ]
        shapes += [
            (
                sizes[0] * height / width * math.sqrt(r) / 2,
                sizes[0] / math.sqrt(r) / 2,
            )
            for r in ratios[1:]
        ]
        half = xp.asarray(shapes, dtype='float32')  # (K, 2)
        cy = (xp.arange(height, dtype='float32') + a['offsets'][0]) * step_y
        cx = (xp.arange(width, dtype='float32') + a['offsets'][1]) * step_x
        cy, cx = xp.meshgrid(cy, cx, indexing='ij')
        centres = xp.stack([cx, cy], axis=-1).reshape(-1, 1, 2)
        boxes = xp.concatenate([centres - half, centres + half], axis=-1)
        boxes = boxes.reshape(1, -1, 4)
        if a['clip']:
            boxes = xp.clip(boxes, 0, 1)
        return boxes.astype(data.dtype)

    def infer_shape(self, data=None):
        if data is None:
            return [None], [None], []
        count = (
            len(_floats(self.attrs['sizes']))
            + len(_floats(self.attrs['ratios']))
            - 1
        )
        return [data], [(1, data[2] * data[3] * count, 4)], []


def _floats(value):
    return tuple(
        float(v)
        for v in (value if isinstance(value, (list, tuple)) else (value,))
    )


def _corners(xp, boxes, fmt):
    if fmt == 'center':
        x, y, w, h = (boxes[..., i] for i in range(4))
        return x - w / 2, y - h / 2, x + w / 2, y + h / 2
    return tuple(boxes[..., i] for i in range(4))


def box_iou(xp, lhs, rhs, fmt='corner'):
    """IoU of every box in ``lhs`` (..., 4) with every box in ``rhs``."""
    l0, l1, l2, l3 = (c[..., None] for c in _corners(xp, lhs, fmt))
    r0, r1, r2, r3 = (
        c.reshape((1,) * (lhs.ndim - 1) + c.shape)
        for c in _corners(xp, rhs, fmt)
    )
    w = xp.maximum(xp.minimum(l2, r2) - xp.maximum(l0, r0), 0)
    h = xp.maximum(xp.minimum(l3, r3) - xp.maximum(l1, r1), 0)
    inter = w * h
    union = (l2 - l0) * (l3 - l1) + (r2 - r0) * (r3 - r1) - inter
    with_union = union > 0
    return xp.where(with_union, inter / xp.where(with_union, union, 1), 0)


@register('_contrib_box_iou')
class BoxIou(Op):
    """IoU of each box of ``lhs`` (..., 4) with each of ``rhs`` (..., 4):
    shape lhs.shape[:-1] + rhs.shape[:-1]; ``format`` 'corner' (xmin,
    ymin, xmax, ymax) or 'center' (x, y, w, h);  no gradient"""

    arguments = ('lhs', 'rhs')
    defaults = {'format': 'corner'}
    differentiable = False

    def forward(self, xp, lhs, rhs):
        return box_iou(xp, lhs, rhs, self.attrs['format']).astype(lhs.dtype)


@register('_contrib_box_nms', '_contrib_box_non_maximum_suppression')
class BoxNms(Op):
    """Greedy non-maximum suppression per batch row: the valid boxes
    (score > valid_thresh, class id not background_id) sorted by score,
    each suppressing the later ones of its class (of any class with
    force_suppress) that overlap it by more than overlap_thresh; kept
    rows first, the rest filled with -1;  dx routes dy to the kept rows"""

    defaults = {
        'overlap_thresh': 0.5,
        'valid_thresh': 0.0,
        'topk': -1,
        'coord_start': 2,
        'score_index': 1,
        'id_index': -1,
        'background_id': -1,
        'force_suppress': False,
        'in_format': 'corner',
        'out_format': 'corner',
    }

    def forward(self, xp, data):
        shape = data.shape
        rows = data.reshape(-1, shape[-2], shape[-1])
        out = xp.full(rows.shape, -1, dtype=data.dtype)
        sources = []
        for b in range(rows.shape[0]):
            keep = self._keep(xp, rows[b])
            out[b, : len(keep)] = rows[b][keep]
            sources.append(keep)
        self.saved = (shape, sources)
        return out.reshape(shape)

    def _keep(self, xp, boxes):
        a = self.attrs
        scores = boxes[:, a['score_index']]
        valid = scores > a['valid_thresh']
        if a['id_index'] >= 0:
            valid &= boxes[:, a['id_index']] != a['background_id']
        order = [
            int(i)
            for i in xp.argsort(-scores, kind='stable')
            if bool(valid[int(i)])
        ]
        if a['topk'] > 0:
            order = order[: a['topk']]
        start = a['coord_start']
        coords = boxes[:, start : start + 4]
        iou = box_iou(xp, coords, coords, a['in_format'])
        kept = []
        for i in order:
            if all(
                iou[i, j] <= a['overlap_thresh']
                or not (
                    a['force_suppress']
                    or a['id_index'] < 0
                    or boxes[i, a['id_index']] == boxes[j, a['id_index']]
                )
                for j in kept
            ):
                kept.append(i)
        return kept

    def backward(self, xp, dy):
        shape, sources = self.saved
        dy = dy.reshape(-1, shape[-2], shape[-1])
        dx = xp.zeros_like(dy)
        for b, keep in enumerate(sources):
            dx[b][keep] = dy[b, : len(keep)]
        return dx.reshape(shape)


def _c_round(v):
    """C's round(): halves away from zero."""
    return int(math.floor(abs(v) + 0.5)) * (1 if v >= 0 else -1)


@register('ROIPooling', '_npx_roi_pooling')
class ROIPooling(Op):
    """Max pooling of each region of interest (rows of ``rois``: batch
    index, x1, y1, x2, y2 in image coordinates, scaled by spatial_scale
    and rounded) into a pooled_size grid: output (R, C, ph, pw);
    dx[argmax] += dy (empty bins give 0 and no gradient)"""

    arguments = ('data', 'rois')
    defaults = {'pooled_size': (1, 1), 'spatial_scale': 1.0}

    def forward(self, xp, data, rois):
        ph_count, pw_count = self.attrs['pooled_size']
        scale = self.attrs['spatial_scale']
        n_rois = rois.shape[0]
        _, channels, height, width = data.shape
        out = xp.zeros((n_rois, channels, ph_count, pw_count), data.dtype)
        where = []  # (roi, ph, pw, batch, flat argmax/C)
        host_rois = rois.tolist()
        for r, roi in enumerate(host_rois):
            batch = int(roi[0])
            x1, y1, x2, y2 = (_c_round(v * scale) for v in roi[1:5])
            roi_h, roi_w = max(y2 - y1 + 1, 1), max(x2 - x1 + 1, 1)
            bin_h, bin_w = roi_h / ph_count, roi_w / pw_count
            for ph in range(ph_count):
                h0 = min(max(int(math.floor(ph * bin_h)) + y1, 0), height)
                h1 = min(max(int(math.ceil((ph + 1) * bin_h)) + y1, 0), height)
                for pw in range(pw_count):
                    w0 = min(max(int(math.floor(pw * bin_w)) + x1, 0), width)
                    w1 = min(
                        max(int(math.ceil((pw + 1) * bin_w)) + x1, 0), width
                    )
                    if h1 <= h0 or w1 <= w0:
                        continue
                    region = data[batch, :, h0:h1, w0:w1].reshape(channels, -1)
                    k = region.argmax(axis=1)
                    out[r, :, ph, pw] = region[xp.arange(channels), k]
                    rows, cols = k // (w1 - w0) + h0, k % (w1 - w0) + w0
                    where.append((r, ph, pw, batch, rows, cols))
        self.saved = (data.shape, where, rois)
        return out

    def backward(self, xp, dy):
        shape, where, rois = self.saved
        dx = xp.zeros(shape, dtype=dy.dtype)
        channels = xp.arange(shape[1])
        for r, ph, pw, batch, rows, cols in where:
            # one position per channel: no repeated index within a bin
            dx[batch, channels, rows, cols] += dy[r, :, ph, pw]
        return dx, xp.zeros_like(rois)

    def infer_shape(self, data=None, rois=None):
        if data is None or rois is None:
            return [data, rois], [None], []
        ph, pw = self.attrs['pooled_size']
        return [data, rois], [(rois[0], data[1], ph, pw)], []


# -- SSD training targets and detections --------------------------------------


def _host(xp, a):
    """``a`` as a host NumPy array (the loops below run per box)."""
    return a.get() if hasattr(a, 'get') else a


def _f32(value):
    """A float32 NumPy scalar: MXNet compares and computes these in C
    ``float``."""
    return host_np.float32(value)


def _target_iou(anchors, labels):
    """IoU (batch, anchors, labels) of each anchor with each label box, as
    MXNet's MultiBoxTarget computes it (0 where the union is 0)."""
    a = anchors[None, :, None, :]  # (1, A, 1, 4)
    g = labels[:, None, :, 1:5]  # (B, 1, L, 4)
    w = host_np.maximum(
        0,
        host_np.minimum(a[..., 2], g[..., 2])
        - host_np.maximum(a[..., 0], g[..., 0]),
    )
    h = host_np.maximum(
        0,
        host_np.minimum(a[..., 3], g[..., 3])
        - host_np.maximum(a[..., 1], g[..., 1]),
    )
    inter = w * h
    union = (
        (a[..., 2] - a[..., 0]) * (a[..., 3] - a[..., 1])
        + (g[..., 2] - g[..., 0]) * (g[..., 3] - g[..., 1])
        - inter
    )
    with_union = union != 0
    return host_np.where(
        with_union, inter / host_np.where(with_union, union, 1), 0
    ).astype(anchors.dtype)


@register('_contrib_MultiBoxTarget', '_npx_multibox_target')
class MultiBoxTarget(Op):
    """SSD training targets for ``anchor`` (1, A, 4), ``label`` (B, L, >=5)
    rows (class, xmin, ymin, xmax, ymax; a row starting with -1 ends the
    labels) and ``cls_pred`` (B, C, A).  Each label first takes its best
    anchor (greedily, highest IoU first); then every other anchor whose
    best IoU exceeds ``overlap_threshold`` is positive too.  Outputs:
    ``loc_target`` (B, A*4) the offsets ((gx-ax)/aw/v0, (gy-ay)/ah/v1,
    log(gw/aw)/v2, log(gh/ah)/v3), ``loc_mask`` (B, A*4) 1 for positives,
    ``cls_target`` (B, A) class + 1 for positives, 0 for negatives,
    ``ignore_label`` for the rest.  With ``negative_mining_ratio`` > 0
    only the hardest ratio * positives anchors (lowest background
    probability among those with IoU < ``negative_mining_thresh``) are
    negatives;  no gradient"""

    arguments = ('anchor', 'label', 'cls_pred')
    defaults = {
        'overlap_threshold': 0.5,
        'ignore_label': -1.0,
        'negative_mining_ratio': -1.0,
        'negative_mining_thresh': 0.5,
        'minimum_negative_samples': 0,
        'variances': (0.1, 0.1, 0.2, 0.2),
    }
    differentiable = False
    num_outputs = 3

    def list_outputs(self):
        return ('loc_target', 'loc_mask', 'cls_target')

    def forward(self, xp, anchor, label, cls_pred):
        a = self.attrs
        variances = _floats(a['variances'])
        if len(variances) != 4:
            raise DLBookError(
                f'{self.name}: variances must have 4 values, got {variances}'
            )
        if anchor.ndim != 3 or anchor.shape[0] != 1 or anchor.shape[2] != 4:
            raise DLBookError(
                f'{self.name}: anchor must be (1, N, 4), got {anchor.shape}'
            )
        if label.ndim != 3 or label.shape[2] < 5:
            raise DLBookError(
                f'{self.name}: label must be (batch, '
                f'num_labels, >=5), got {label.shape}'
            )
        if cls_pred.ndim != 3 or cls_pred.shape[2] != anchor.shape[1]:
            raise DLBookError(
                f'{self.name}: cls_pred must be (batch, '
                f'num_classes, {anchor.shape[1]}), got '
                f'{cls_pred.shape}'
            )
        dtype = anchor.dtype
        anchors = _host(xp, anchor).reshape(-1, 4)
        labels = _host(xp, label).astype(dtype)
        preds = _host(xp, cls_pred).astype(dtype)
        batch, num_anchors = labels.shape[0], anchors.shape[0]
        loc_target = host_np.zeros((batch, num_anchors, 4), dtype)
        loc_mask = host_np.zeros((batch, num_anchors, 4), dtype)
        cls_target = host_np.full(
            (batch, num_anchors), a['ignore_label'], dtype
        )
        ious = _target_iou(anchors, labels)
        for b in range(batch):
            ends = host_np.flatnonzero(labels[b, :, 0] == -1)
            n = int(ends[0]) if len(ends) else labels.shape[1]
            if n == 0:
                continue
            flags, match = self._match(ious[b, :, :n], preds[b])
            positive = flags == 1
            gts = labels[b, match[positive]]
            cls_target[b, positive] = gts[:, 0] + 1
            cls_target[b, flags == 0] = 0
            loc_mask[b, positive] = 1
            loc_target[b, positive] = _encode(
                anchors[positive], gts[:, 1:5], variances
            )
        return (
            xp.asarray(loc_target.reshape(batch, -1)),
            xp.asarray(loc_mask.reshape(batch, -1)),
            xp.asarray(cls_target),
        )

    def _match(self, iou, preds):
        """Anchor flags (1 positive, 0 negative, -1 ignored) and the label
        each anchor matches, following MXNet's loops."""
        a = self.attrs
        num_anchors, n = iou.shape
        flags = host_np.full(num_anchors, -1, host_np.int8)
        best_iou = host_np.full(num_anchors, -1.0, host_np.float32)
        match = host_np.full(num_anchors, -1, host_np.int64)
        gt_done = host_np.zeros(n, bool)
        num_positive = 0
        while not gt_done.all():
            masked = iou.copy()
            masked[flags == 1] = -1
            masked[:, gt_done] = -1
            j, k = divmod(int(masked.argmax()), n)  # first in j, k order
            if not masked[j, k] > _f32(1e-6):
                break
            best_iou[j], match[j] = masked[j, k], k
            flags[j], gt_done[k] = 1, True
            num_positive += 1
        threshold = _f32(a['overlap_threshold'])
        if threshold > 0:
            for j in host_np.flatnonzero(flags != 1):
                k = int(iou[j].argmax())
                best_iou[j], match[j] = iou[j, k], k
                if iou[j, k] > threshold:
                    flags[j], gt_done[k] = 1, True
                    num_positive += 1
        ratio = _f32(a['negative_mining_ratio'])
        if ratio > 0:
            if not a['negative_mining_thresh'] > 0:
                raise DLBookError(
                    f'{self.name}: negative_mining_thresh must '
                    f'be > 0 when mining negatives'
                )
            num_negative = min(
                int(_f32(num_positive) * ratio), num_anchors - num_positive
            )
            if num_negative > 0:
                free = flags != 1
                unset = free & (best_iou < 0)
                best_iou[unset] = iou[unset].max(axis=1)
                candidates = host_np.flatnonzero(
                    free
                    & (best_iou < _f32(a['negative_mining_thresh']))
                    & (flags == -1)
                )
                if len(candidates) < num_negative:
                    raise DLBookError(
                        f'{self.name}: {num_negative} negative samples '
                        f'wanted but only {len(candidates)} anchors qualify'
                    )
                p = preds[:, candidates]
                e = host_np.exp(p - p.max(axis=0))
                background = e[0] / e.sum(axis=0)
                order = host_np.argsort(background, kind='stable')
                flags[candidates[order[:num_negative]]] = 0
        else:
            flags[flags != 1] = 0
        return flags, match


def _encode(anchors, boxes, variances):
    """Offsets of ``boxes`` from ``anchors`` (corner form), in float32."""
    f = host_np.float32
    al, at, ar, ab = (anchors[:, i].astype(f) for i in range(4))
    gl, gt, gr, gb = (boxes[:, i].astype(f) for i in range(4))
    aw, ah = ar - al, ab - at
    ax, ay = (al + ar) * f(0.5), (at + ab) * f(0.5)
    gw, gh = gr - gl, gb - gt
    gx, gy = (gl + gr) * f(0.5), (gt + gb) * f(0.5)
    v = [f(x) for x in variances]
    return host_np.stack(
        [
            (gx - ax) / aw / v[0],
            (gy - ay) / ah / v[1],
            host_np.log(gw / aw) / v[2],
            host_np.log(gh / ah) / v[3],
        ],
        axis=1,
    )


def _decode(anchors, deltas, variances, clip):
    """Boxes (corner form) from ``anchors`` and predicted offsets."""
    dtype = anchors.dtype
    al, at, ar, ab = (anchors[:, i] for i in range(4))
    aw, ah = ar - al, ab - at
    ax, ay = (al + ar) / dtype.type(2), (at + ab) / dtype.type(2)
    v = [dtype.type(x) for x in variances]
    ox = deltas[:, 0] * v[0] * aw + ax
    oy = deltas[:, 1] * v[1] * ah + ay
    ow = host_np.exp(deltas[:, 2] * v[2]) * aw / 2
    oh = host_np.exp(deltas[:, 3] * v[3]) * ah / 2
    out = host_np.stack([ox - ow, oy - oh, ox + ow, oy + oh], axis=1)
    return host_np.clip(out, 0, 1) if clip else out


def _overlap(p, q):
    """IoU of two corner boxes (0 where the union is not positive)."""
    w = max(0, min(p[2], q[2]) - max(p[0], q[0]))
    h = max(0, min(p[3], q[3]) - max(p[1], q[1]))
    i = w * h
    u = (p[2] - p[0]) * (p[3] - p[1]) + (q[2] - q[0]) * (q[3] - q[1]) - i
    return 0 if u <= 0 else i / u


@register('_contrib_MultiBoxDetection', '_npx_multibox_detection')
class MultiBoxDetection(Op):
    """SSD detections from ``cls_prob`` (B, C, A; class 0 background),
    ``loc_pred`` (B, A*4) and ``anchor`` (1, A, 4): per anchor the most
    likely non-background class (dropped below ``threshold``) and its box
    decoded from the offsets (``variances``, clipped to [0, 1] with
    ``clip``).  Output (B, A, 6) rows [class, score, xmin, ymin, xmax,
    ymax], valid rows first, sorted by score, at most ``nms_topk`` kept;
    non-maximum suppression (IoU >= ``nms_threshold``, within a class
    unless ``force_suppress``) sets the class of suppressed rows to -1;
    unused rows are all -1;  no gradient"""

    arguments = ('cls_prob', 'loc_pred', 'anchor')
    defaults = {
        'clip': True,
        'threshold': 0.01,
        'background_id': 0,
        'nms_threshold': 0.5,
        'force_suppress': False,
        'variances': (0.1, 0.1, 0.2, 0.2),
        'nms_topk': -1,
    }
    differentiable = False

    def forward(self, xp, cls_prob, loc_pred, anchor):
        a = self.attrs
        variances = _floats(a['variances'])
        if len(variances) != 4:
            raise DLBookError(
                f'{self.name}: variances must have 4 values, got {variances}'
            )
        batch, num_classes, num_anchors = cls_prob.shape
        if (
            anchor.size != num_anchors * 4
            or loc_pred.size != batch * num_anchors * 4
        ):
            raise DLBookError(
                f'{self.name}: cls_prob {cls_prob.shape}, loc_pred '
                f'{loc_pred.shape} and anchor {anchor.shape} do not agree '
                f'(want (B, C, N), (B, N*4), (1, N, 4))'
            )
        dtype = cls_prob.dtype
        probs = _host(xp, cls_prob)
        deltas = _host(xp, loc_pred).astype(dtype).reshape(batch, -1, 4)
        anchors = _host(xp, anchor).astype(dtype).reshape(-1, 4)
        out = host_np.full((batch, num_anchors, 6), -1, dtype)
        threshold = dtype.type(a['threshold'])
        nms = float(a['nms_threshold'])
        for b in range(batch):
            if num_classes > 1:
                ids = probs[b, 1:].argmax(axis=0) + 1
                scores = probs[b, 1:].max(axis=0)
                ids[scores < threshold] = 0
            else:
                ids = host_np.zeros(num_anchors, host_np.int64)
                scores = host_np.full(num_anchors, -1, dtype)
            valid = host_np.flatnonzero(ids > 0)
            rows = out[b]
            rows[: len(valid), 0] = ids[valid] - 1
            rows[: len(valid), 1] = scores[valid]
            rows[: len(valid), 2:] = _decode(
                anchors[valid], deltas[b, valid], variances, a['clip']
            )
            count = len(valid)
            if count < 1 or nms <= 0 or nms > 1:
                continue
            order = host_np.argsort(-rows[:count, 1], kind='stable')
            keep = count
            before = rows.copy()
            if 0 < a['nms_topk'] < count:
                keep = a['nms_topk']
                rows[keep:count, 0] = -1  # the rest keep their data
            rows[:keep] = before[order[:keep]]
            for i in range(keep):
                if rows[i, 0] < 0:
                    continue
                for j in range(i + 1, keep):
                    if rows[j, 0] < 0:
                        continue
                    if a['force_suppress'] or rows[i, 0] == rows[j, 0]:
                        if _overlap(rows[i, 2:], rows[j, 2:]) >= nms:
                            rows[j, 0] = -1
        return xp.asarray(out)
