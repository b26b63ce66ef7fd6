"""Case rows for the detection operators (``dlbook/ops/detection.py``).

References are written here in NumPy from MXNet's C++ loops; the values
themselves are checked against MXNet 1.9.1 in
``tests/numpy/test_np_detection.py``.
"""

import math

import numpy as np

from tests.ops.cases import Case


def _iou_ref(a, b):
    out = np.zeros((a.shape[0], b.shape[0]))
    for i, p in enumerate(a):
        for j, q in enumerate(b):
            w = max(min(p[2], q[2]) - max(p[0], q[0]), 0)
            h = max(min(p[3], q[3]) - max(p[1], q[1]), 0)
            union = (
                (p[2] - p[0]) * (p[3] - p[1])
                + (q[2] - q[0]) * (q[3] - q[1])
                - w * h
            )
            out[i, j] = w * h / union if union > 0 else 0
    return out


def _boxes(*counts):
    def make(rng, dtype):
        arrays = []
        for n in counts:
            lo = rng.uniform(0, 0.6, size=(n, 2))
            arrays.append(
                np.concatenate(
                    [lo, lo + rng.uniform(0.1, 0.4, size=(n, 2))], 1
                ).astype(dtype)
            )
        return arrays

    return make


def _prior_check(outs, ins):
    boxes = outs[0]
    assert boxes.shape == (1, 3 * 4 * 3, 4)
    centre = (boxes[0, :, :2] + boxes[0, :, 2:]) / 2
    np.testing.assert_allclose(centre[0], [0.5 / 4, 0.5 / 3], rtol=1e-5)


def _nms_inputs(rng, dtype):
    rows = []
    for k in range(6):
        lo = rng.uniform(0, 0.5, size=2)
        rows.append([k % 2, 0.1 + 0.15 * k, *lo, *(lo + 0.3)])
    return [np.asarray(rows, dtype=dtype)[None]]


def _nms_ref(data, use_id=True):
    out = -np.ones_like(data)
    rows = data[0]
    order = np.argsort(-rows[:, 1], kind='stable')
    kept = []
    for i in order:
        if all(
            (use_id and rows[i, 0] != rows[j, 0])
            or _iou_ref(rows[i : i + 1, 2:], rows[j : j + 1, 2:])[0, 0] <= 0.5
            for j in kept
        ):
            kept.append(i)
    out[0, : len(kept)] = rows[kept]
    return out


def _roi_inputs(rng, dtype):
    data = rng.permutation(2 * 2 * 6 * 6).reshape(2, 2, 6, 6) / 10.0
    rois = np.array(
        [[0, 0, 0, 5, 5], [1, 1.2, 0.4, 4.6, 3.0], [0, 2, 2, 2, 2]]
    )
    return [data.astype(dtype), rois.astype(dtype)]


def _roi_ref(data, rois):
    out = np.zeros((rois.shape[0], data.shape[1], 2, 2))
    for r, (b, x1, y1, x2, y2) in enumerate(rois):
        x1, y1, x2, y2 = (int(math.floor(v + 0.5)) for v in (x1, y1, x2, y2))
        h, w = max(y2 - y1 + 1, 1), max(x2 - x1 + 1, 1)
        for ph in range(2):
            for pw in range(2):
                h0 = min(max(math.floor(ph * h / 2) + y1, 0), 6)
                h1 = min(max(math.ceil((ph + 1) * h / 2) + y1, 0), 6)
                w0 = min(max(math.floor(pw * w / 2) + x1, 0), 6)
                w1 = min(max(math.ceil((pw + 1) * w / 2) + x1, 0), 6)
                if h1 > h0 and w1 > w0:
                    out[r, :, ph, pw] = data[int(b), :, h0:h1, w0:w1].max(
                        axis=(1, 2)
                    )
    return out


def _multibox_target_inputs(rng, dtype):
    from tests.numpy import test_np_multibox as mb

    return [
        np.asarray(v, dtype=dtype) for v in (mb.ANCHORS, mb.LABELS, mb.PREDS)
    ]


def _multibox_target_check(outs, ins):
    from tests.numpy import test_np_multibox as mb

    for got, want in zip(outs, mb.TARGET_DEFAULT):
        np.testing.assert_allclose(got, want, atol=2e-5)


def _multibox_detection_inputs(rng, dtype):
    from tests.numpy import test_np_multibox as mb

    return [
        np.asarray(v, dtype=dtype) for v in (mb.probs(), mb.LOC, mb.ANCHORS)
    ]


def _multibox_detection_check(outs, ins):
    from tests.numpy import test_np_multibox as mb

    np.testing.assert_allclose(outs[0], mb.DET_DEFAULT, atol=2e-5)


CASES = {
    # values recorded from MXNet 1.9.1 (tests/numpy/test_np_multibox.py)
    '_contrib_MultiBoxTarget': Case(
        [(1, 6, 4), (2, 3, 5), (2, 3, 6)],
        make_inputs=_multibox_target_inputs,
        check=_multibox_target_check,
    ),
    '_contrib_MultiBoxDetection': Case(
        [(2, 3, 6), (2, 24), (1, 6, 4)],
        make_inputs=_multibox_detection_inputs,
        check=_multibox_detection_check,
    ),
    '_contrib_MultiBoxPrior': Case(
        [(2, 5, 3, 4)],
        attrs={'sizes': (0.5, 0.25), 'ratios': (1, 2)},
        check=_prior_check,
    ),
    '_contrib_box_iou': Case(
        [(3, 4), (5, 4)], make_inputs=_boxes(3, 5), ref=_iou_ref
    ),
    '_contrib_box_nms': [
        # class ids: suppression within a class (ids are not
        # differentiable: moving one breaks the equality)
        Case(
            [(1, 6, 6)],
            make_inputs=_nms_inputs,
            attrs={'id_index': 0},
            ref=_nms_ref,
            grad=(),
        ),
        Case(
            [(1, 6, 6)],
            make_inputs=_nms_inputs,
            ref=lambda d: _nms_ref(d, use_id=False),
        ),
    ],
    'ROIPooling': Case(
        [(2, 2, 6, 6), (3, 5)],
        make_inputs=_roi_inputs,
        attrs={'pooled_size': (2, 2), 'spatial_scale': 1.0},
        ref=_roi_ref,
        grad=(0,),
    ),
}
