"""CPU-vs-GPU parity of every registered operator, forward and backward.

For every row of the operator case table (``tests/ops/cases_*.py``) and
both float32 and float64: run the operator on ``cpu(0)`` and ``gpu(0)``
with the same inputs, then backpropagate the same random cotangent, and
compare outputs and input gradients by the relative error
``||gpu - cpu|| / ||cpu||`` against MXNet's ``check_consistency``
tolerances (float32 1e-3, float64 1e-5).  Sampling operators are compared
by shape and dtype only (cuRAND and NumPy draw different numbers).

Writes ``parity.json`` and ``parity.md`` (failures first) to ``--out``.
Run from the repository root: ``python benchmarks/gpu/parity.py``.
"""

import argparse
import json
import os
import sys
import time
import traceback

import numpy as np

sys.path.insert(0, os.getcwd())

import dlbook as mx  # noqa: E402
from dlbook import autograd, nd  # noqa: E402
from dlbook.ops import REGISTRY  # noqa: E402
from tests.ops.cases import all_rows, make_inputs  # noqa: E402

TOL = {'float32': 1e-3, 'float64': 1e-5}
RESERVED = {'ctx', 'out', 'name'}


def run(name, case, arrays, ctx, cots=None):
    """Outputs (and input gradients when ``cots`` is given) as NumPy."""
    inputs = [nd.array(a, ctx=ctx, dtype=a.dtype) for a in arrays]
    grad_ids = []
    if cots is not None and REGISTRY[name].differentiable and case.grad != ():
        grad_ids = (
            list(case.grad)
            if case.grad is not None
            else [i for i, a in enumerate(arrays) if a.dtype.kind == 'f']
        )
    for i in grad_ids:
        inputs[i].attach_grad()
    mx.random.seed(0)
    attrs = dict(case.attrs)
    if 'src_ctx' in attrs:
        attrs['src_ctx'] = ctx
    scope = (
        autograd.record(train_mode=case.is_train)
        if grad_ids
        else (
            autograd.train_mode() if case.is_train else autograd.predict_mode()
        )
    )
    with scope:
        if RESERVED & set(attrs) or not hasattr(nd, name):
            out = nd.invoke(REGISTRY[name](**attrs), inputs, ctx=ctx)
        else:
            out = getattr(nd, name)(*inputs, **attrs)
    outs = tuple(out) if isinstance(out, (list, tuple)) else (out,)
    grads = {}
    if grad_ids:
        autograd.backward(
            list(outs),
            [
                nd.array(c, ctx=o.context, dtype=o.dtype).reshape(o.shape)
                for c, o in zip(cots(outs), outs)
            ],
        )
        grads = {
            i: inputs[i].grad.asnumpy()
            for i in grad_ids
            if inputs[i].grad is not None
        }
    return [o.asnumpy() for o in outs], grads


def rel_err(a, b):
    a, b = np.asarray(a, dtype='float64'), np.asarray(b, dtype='float64')
    if a.shape != b.shape:
        return float('inf')
    if a.size == 0:
        return 0.0
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        same = np.array_equal(np.isnan(a), np.isnan(b)) and np.allclose(
            np.nan_to_num(a), np.nan_to_num(b)
        )
        return 0.0 if same else float('inf')
    return float(np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-30))


def check_row(name, index, case, dtype, gpu):
    arrays = make_inputs(case, dtype)
    rng = np.random.RandomState(1)
    cache = {}

    def cots(outs):
        if 'c' not in cache:
            cache['c'] = [rng.uniform(-1, 1, size=o.shape) for o in outs]
        return cache['c']

    want = run(name, case, arrays, mx.cpu(0), cots)
    got = run(name, case, arrays, gpu, cots)
    worst, where = 0.0, ''
    sampling = case.check is not None
    for k, (g, w) in enumerate(zip(got[0], want[0])):
        if sampling:
            err = 0.0 if (g.shape, g.dtype) == (w.shape, w.dtype) else 1.0
        else:
            err = rel_err(g, w)
        if err > worst:
            worst, where = err, f'output {k}'
    if not sampling:
        for i, w in want[1].items():
            err = rel_err(got[1].get(i), w) if i in got[1] else float('inf')
            if err > worst:
                worst, where = err, f'grad of input {i}'
    return worst, where


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--out', default='.')
    parser.add_argument('--only', default='', help='comma-separated op names')
    args = parser.parse_args()
    gpu = mx.gpu(0)
    gpu.backend  # fail early with the reason
    only = set(filter(None, args.only.split(',')))
    results, start = [], time.perf_counter()
    for name, index, case in all_rows():
        if only and name not in only:
            continue
        for dtype in ('float32', 'float64'):
            if dtype not in case.dtypes and dtype != 'float32':
                continue
            row = {'op': name, 'row': index, 'dtype': dtype}
            try:
                err, where = check_row(name, index, case, dtype, gpu)
                row.update(rel_err=err, where=where, ok=err <= TOL[dtype])
            except Exception as exc:  # report, keep going
                row.update(
                    ok=False,
                    rel_err=None,
                    where=f'{type(exc).__name__}: {exc}'[:300],
                    trace=traceback.format_exc()[-2000:],
                )
            results.append(row)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, 'parity.json'), 'w') as f:
        json.dump(results, f, indent=1)
    bad = [r for r in results if not r['ok']]
    lines = [
        f'# CPU vs {gpu} parity ({mx.gpu(0).backend.name})',
        '',
        f'{len(results)} checks, {len(bad)} failures, '
        f'{time.perf_counter() - start:.0f} s',
        '',
        '| op | row | dtype | rel. error | where |',
        '| --- | --- | --- | --- | --- |',
    ]
    for r in sorted(bad, key=lambda r: (r['op'], r['row'], r['dtype'])):
        err = 'error' if r['rel_err'] is None else f"{r['rel_err']:.2e}"
        where = r['where'].replace('|', '\\|').replace('\n', ' ')
        lines.append(
            f"| {r['op']} | {r['row']} | {r['dtype']} | {err} | {where} |"
        )
    with open(os.path.join(args.out, 'parity.md'), 'w') as f:
        f.write('\n'.join(lines) + '\n')
    print('\n'.join(lines[:4]))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
