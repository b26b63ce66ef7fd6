"""Rows for dlbook/ops/ctc.py.

The reference enumerates every alignment path (``C ** T`` of them, so the
shapes stay tiny), collapses repeats, removes blanks and sums the
probabilities of the paths that give the label: the definition of CTC,
independent of the forward-backward recursion under test.
"""

import itertools

import numpy as np

from tests.ops.cases import Case

T, N, C = 4, 3, 3


def brute_force_ctc(
    data, label, data_len=None, label_len=None, blank_label='first'
):
    """``-log p(label | data)`` per sequence by enumerating all paths."""
    steps, batch, classes = data.shape
    blank, pad = (0, 0) if blank_label == 'first' else (classes - 1, -1)
    losses = []
    for n in range(batch):
        t_n = steps if data_len is None else int(data_len[n])
        lab = [int(v) for v in label[n]]
        if label_len is not None:
            lab = lab[: int(label_len[n])]
        elif pad in lab:
            lab = lab[: lab.index(pad)]
        x = data[:t_n, n].astype(np.float64)
        p = np.exp(x - x.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        total = 0.0
        for path in itertools.product(range(classes), repeat=t_n):
            merged = [
                k for i, k in enumerate(path) if i == 0 or k != path[i - 1]
            ]
            if [k for k in merged if k != blank] == lab:
                total += np.prod([p[t, k] for t, k in enumerate(path)])
        losses.append(-np.log(total))
    return np.array(losses, dtype=data.dtype)


def _inputs(labels, data_len=None, label_len=None):
    def make(rng, dtype):
        arrays = [
            rng.uniform(-2, 2, size=(T, N, C)).astype(dtype),
            np.array(labels, dtype=dtype),
        ]
        for extra in (data_len, label_len):
            if extra is not None:
                arrays.append(np.array(extra, dtype=dtype))
        return arrays

    return make


CASES = {
    'CTCLoss': [
        # blank 0, labels padded with 0; a repeated label needs a blank
        Case(
            [(T, N, C), (N, 2)],
            make_inputs=_inputs([[1, 2], [2, 2], [1, 0]]),
            ref=brute_force_ctc,
            grad=(0,),
        ),
        # blank C - 1, labels padded with -1 (Gluon's CTCLoss)
        Case(
            [(T, N, C), (N, 2)],
            attrs={'blank_label': 'last'},
            make_inputs=_inputs([[0, 1], [1, -1], [-1, -1]]),
            ref=lambda x, y: brute_force_ctc(x, y, blank_label='last'),
            grad=(0,),
        ),
        # explicit sequence and label lengths
        Case(
            [(T, N, C), (N, 2), (N,), (N,)],
            attrs={'use_data_lengths': True, 'use_label_lengths': True},
            make_inputs=_inputs(
                [[1, 2], [2, 1], [1, 1]],
                data_len=[4, 3, 2],
                label_len=[2, 1, 0],
            ),
            ref=brute_force_ctc,
            grad=(0,),
        ),
    ],
}
