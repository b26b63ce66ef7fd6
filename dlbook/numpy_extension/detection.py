"""``npx`` detection operators (d2l's object-detection chapters)."""

from ..numpy._core import call
from ..numpy.creation import as_array

__all__ = [
    'multibox_prior',
    'roi_pooling',
    'box_iou',
    'box_nms',
    'multibox_target',
    'multibox_detection',
]


def multibox_prior(
    data,
    sizes=(1.0,),
    ratios=(1.0,),
    clip=False,
    steps=(-1.0, -1.0),
    offsets=(0.5, 0.5),
):
    """SSD anchor boxes for the feature map ``data`` (N, C, H, W):
    shape (1, H*W*(len(sizes)+len(ratios)-1), 4), corners in [0, 1]."""
    return call(
        '_contrib_MultiBoxPrior',
        as_array(data),
        sizes=tuple(sizes),
        ratios=tuple(ratios),
        clip=clip,
        steps=tuple(steps),
        offsets=tuple(offsets),
    )


def roi_pooling(data, rois, pooled_size, spatial_scale):
    """Max-pool each region of interest (batch index, x1, y1, x2, y2)
    into a ``pooled_size`` grid: shape (R, C, ph, pw)."""
    return call(
        'ROIPooling',
        as_array(data),
        as_array(rois),
        pooled_size=tuple(pooled_size),
        spatial_scale=spatial_scale,
    )


def box_iou(lhs, rhs, format='corner'):  # noqa: A002
    """Intersection over union of every pair of boxes."""
    return call(
        '_contrib_box_iou', as_array(lhs), as_array(rhs), format=format
    )


def box_nms(
    data,
    overlap_thresh=0.5,
    valid_thresh=0.0,
    topk=-1,
    coord_start=2,
    score_index=1,
    id_index=-1,
    background_id=-1,
    force_suppress=False,
    in_format='corner',
    out_format='corner',
):
    """Greedy non-maximum suppression (kept rows first, the rest -1)."""
    return call(
        '_contrib_box_nms',
        as_array(data),
        overlap_thresh=overlap_thresh,
        valid_thresh=valid_thresh,
        topk=topk,
        coord_start=coord_start,
        score_index=score_index,
        id_index=id_index,
        background_id=background_id,
        force_suppress=force_suppress,
        in_format=in_format,
        out_format=out_format,
    )


def multibox_target(
    anchor,
    label,
    cls_pred,
    overlap_threshold=0.5,
    ignore_label=-1.0,
    negative_mining_ratio=-1.0,
    negative_mining_thresh=0.5,
    minimum_negative_samples=0,
    variances=(0.1, 0.1, 0.2, 0.2),
):
    """SSD training targets: a list ``[loc_target (B, N*4), loc_mask
    (B, N*4), cls_target (B, N)]`` for the anchors (1, N, 4), labels
    (B, L, 5) rows ``[class, xmin, ymin, xmax, ymax]`` (a row of -1 ends
    them) and class predictions (B, C, N).  ``cls_target`` is class + 1
    for matched anchors, 0 for background, ``ignore_label`` for anchors
    left out by negative mining (``negative_mining_ratio`` > 0)."""
    return call(
        '_contrib_MultiBoxTarget',
        as_array(anchor),
        as_array(label),
        as_array(cls_pred),
        overlap_threshold=overlap_threshold,
        ignore_label=ignore_label,
        negative_mining_ratio=negative_mining_ratio,
        negative_mining_thresh=negative_mining_thresh,
        minimum_negative_samples=minimum_negative_samples,
        variances=tuple(variances),
    )


def multibox_detection(
    cls_prob,
    loc_pred,
    anchor,
    clip=True,
    threshold=0.01,
    background_id=0,
    nms_threshold=0.5,
    force_suppress=False,
    variances=(0.1, 0.1, 0.2, 0.2),
    nms_topk=-1,
):
    """SSD detections (B, N, 6): rows ``[class, score, xmin, ymin, xmax,
    ymax]`` sorted by score after non-maximum suppression; suppressed and
    background rows have class -1."""
    return call(
        '_contrib_MultiBoxDetection',
        as_array(cls_prob),
        as_array(loc_pred),
        as_array(anchor),
        clip=clip,
        threshold=threshold,
        background_id=background_id,
        nms_threshold=nms_threshold,
        force_suppress=force_suppress,
        variances=tuple(variances),
        nms_topk=nms_topk,
    )
