"""Rows for the cross-device copy (checked between cpu(0) and cpu(1))."""

import dlbook as mx
from tests.ops.cases import Case

CASES = {
    '_copyto': Case(
        [(3, 4)],
        attrs={'ctx': mx.cpu(1), 'src_ctx': mx.cpu(0)},
        ref=lambda x: x,
    ),
}
