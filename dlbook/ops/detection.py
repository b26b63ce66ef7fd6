"""Object-detection operators of MXNet (SSD anchors, IoU, NMS, RoI pooling).

* ``_contrib_MultiBoxPrior`` (``npx.multibox_prior``): anchor boxes
  centred on every pixel of a feature map, as in SSD;
* ``_contrib_box_iou`` (``nd.contrib.box_iou``): the intersection over
  union of every pair of boxes;
* ``_contrib_box_nms`` (``nd.contrib.box_nms``): greedy non-maximum
  suppression;
* ``ROIPooling`` (``npx.roi_pooling``): max pooling of each region of
  interest into a fixed grid, with gradient.

The formulas follow apache/mxnet@1.9.1:src/operator/contrib/
multibox_prior.cc, bounding_box-inl.h and src/operator/roi_pooling.cc,
including their rounding rules.  The loops run over boxes on the host
side of ``xp`` (d2l's detection chapters use a few thousand anchors).
"""

import math

from .op import Op, register

__all__ = []


@register('_contrib_MultiBoxPrior', '_npx_multibox_prior')
class MultiBoxPrior(Op):
    """Anchor boxes (xmin, ymin, xmax, ymax), normalized to [0, 1], for
    the (N, C, H, W) feature map ``data``: per pixel, every size with the
    first ratio, then the first size with every other ratio.  Output
    shape (1, H*W*(len(sizes)+len(ratios)-1), 4);  no gradient"""
    defaults = {'sizes': (1.0,), 'ratios': (1.0,), 'clip': False,
                'steps': (-1.0, -1.0), 'offsets': (0.5, 0.5)}
    differentiable = False

    def forward(self, xp, data):
        a = self.attrs
        sizes = _floats(a['sizes'])
        ratios = _floats(a['ratios'])
        height, width = data.shape[2], data.shape[3]
        step_y = a['steps'][0] if a['steps'][0] > 0 else 1.0 / height
        step_x = a['steps'][1] if a['steps'][1] > 0 else 1.0 / width
        # half widths and heights of the anchors of one pixel
        shapes = [(s * height / width * math.sqrt(ratios[0]) / 2,
                   s / math.sqrt(ratios[0]) / 2) for s in sizes]
        shapes += [(sizes[0] * height / width * math.sqrt(r) / 2,
                    sizes[0] / math.sqrt(r) / 2) for r in ratios[1:]]
        half = xp.asarray(shapes, dtype='float32')          # (K, 2)
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
        count = len(_floats(self.attrs['sizes'])) + \
            len(_floats(self.attrs['ratios'])) - 1
        return [data], [(1, data[2] * data[3] * count, 4)], []


def _floats(value):
    return tuple(float(v) for v in (value if isinstance(value, (list, tuple))
                                    else (value,)))


def _corners(xp, boxes, fmt):
    if fmt == 'center':
        x, y, w, h = (boxes[..., i] for i in range(4))
        return x - w / 2, y - h / 2, x + w / 2, y + h / 2
    return tuple(boxes[..., i] for i in range(4))


def box_iou(xp, lhs, rhs, fmt='corner'):
    """IoU of every box in ``lhs`` (..., 4) with every box in ``rhs``."""
    l0, l1, l2, l3 = (c[..., None] for c in _corners(xp, lhs, fmt))
    r0, r1, r2, r3 = (c.reshape((1,) * (lhs.ndim - 1) + c.shape)
                      for c in _corners(xp, rhs, fmt))
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
    defaults = {'overlap_thresh': 0.5, 'valid_thresh': 0.0, 'topk': -1,
                'coord_start': 2, 'score_index': 1, 'id_index': -1,
                'background_id': -1, 'force_suppress': False,
                'in_format': 'corner', 'out_format': 'corner'}

    def forward(self, xp, data):
        shape = data.shape
        rows = data.reshape(-1, shape[-2], shape[-1])
        out = xp.full(rows.shape, -1, dtype=data.dtype)
        sources = []
        for b in range(rows.shape[0]):
            keep = self._keep(xp, rows[b])
            out[b, :len(keep)] = rows[b][keep]
            sources.append(keep)
        self.saved = (shape, sources)
        return out.reshape(shape)

    def _keep(self, xp, boxes):
        a = self.attrs
        scores = boxes[:, a['score_index']]
        valid = scores > a['valid_thresh']
        if a['id_index'] >= 0:
            valid &= boxes[:, a['id_index']] != a['background_id']
        order = [int(i) for i in xp.argsort(-scores, kind='stable')
                 if bool(valid[int(i)])]
        if a['topk'] > 0:
            order = order[:a['topk']]
        start = a['coord_start']
        coords = boxes[:, start:start + 4]
        iou = box_iou(xp, coords, coords, a['in_format'])
        kept = []
        for i in order:
            if all(iou[i, j] <= a['overlap_thresh'] or not (
                    a['force_suppress'] or a['id_index'] < 0 or
                    boxes[i, a['id_index']] == boxes[j, a['id_index']])
                   for j in kept):
                kept.append(i)
        return kept

    def backward(self, xp, dy):
        shape, sources = self.saved
        dy = dy.reshape(-1, shape[-2], shape[-1])
        dx = xp.zeros_like(dy)
        for b, keep in enumerate(sources):
            dx[b][keep] = dy[b, :len(keep)]
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
        where = []                  # (roi, ph, pw, batch, flat argmax/C)
        host_rois = rois.tolist()
        for r, roi in enumerate(host_rois):
            batch = int(roi[0])
            x1, y1, x2, y2 = (_c_round(v * scale) for v in roi[1:5])
            roi_h, roi_w = max(y2 - y1 + 1, 1), max(x2 - x1 + 1, 1)
            bin_h, bin_w = roi_h / ph_count, roi_w / pw_count
            for ph in range(ph_count):
                h0 = min(max(int(math.floor(ph * bin_h)) + y1, 0), height)
                h1 = min(max(int(math.ceil((ph + 1) * bin_h)) + y1, 0),
                         height)
                for pw in range(pw_count):
                    w0 = min(max(int(math.floor(pw * bin_w)) + x1, 0), width)
                    w1 = min(max(int(math.ceil((pw + 1) * bin_w)) + x1, 0),
                             width)
                    if h1 <= h0 or w1 <= w0:
                        continue
                    region = data[batch, :, h0:h1, w0:w1].reshape(
                        channels, -1)
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
