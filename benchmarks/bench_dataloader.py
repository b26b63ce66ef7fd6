"""DataLoader throughput: in-process vs worker processes vs threads.

Two pipelines over Fashion-MNIST images (the real training set when
``$DLBOOK_DATA`` or the cache has it, else random 28x28 images):

1. *augmented*: ``RandomResizedCrop(56)``, ``RandomFlipLeftRight``,
   ``RandomColorJitter``, ``ToTensor``, ``Normalize``: random, so each
   sample is transformed on its own (transform-heavy, parallelisable);
2. *ToTensor only*: deterministic, so the loader gathers and converts
   whole batches at once (the d2l chapter 3 pipeline).

Each row is the best epoch (``N_SAMPLES`` samples, batch 256) of five
rounds that interleave the settings; worker pools persist across epochs,
as in MXNet.
Run: ``python benchmarks/bench_dataloader.py [n_samples]``; prints a
Markdown table (the results file is collected separately).
"""

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import dlbook as mx  # noqa: E402
from benchmarks.common import table, write_section  # noqa: E402
from dlbook import gluon  # noqa: E402
from dlbook.gluon.data.vision import transforms  # noqa: E402

#: Samples per epoch (``python bench_dataloader.py N`` sets another).
N_SAMPLES = 6000
BATCH = 256
ROUNDS = 4


def images():
    """(dataset, description): Fashion-MNIST if found, else random."""
    try:
        data = gluon.data.vision.FashionMNIST(train=True)
        return data.take(N_SAMPLES), 'Fashion-MNIST train'
    except mx.DLBookError:
        rng = np.random.RandomState(0)
        x = rng.randint(0, 256, (N_SAMPLES, 28, 28, 1)).astype(np.uint8)
        y = rng.randint(0, 10, N_SAMPLES).astype(np.int32)
        return (
            gluon.data.ArrayDataset(mx.nd.array(x, dtype='uint8'), y),
            'random 28x28 images',
        )


def epoch_seconds(loader):
    """Wall time of one full epoch, and the CPU time the main process
    (all its threads, not the worker processes) spent on it: what is
    left over for training is what workers buy on a busy machine."""
    start, cpu = time.perf_counter(), time.process_time()
    count = 0
    for X, _ in loader:
        count += X.shape[0]
    assert count == N_SAMPLES
    return time.perf_counter() - start, time.process_time() - cpu


def main():
    load = f'{os.getloadavg()[0]:.2f}'
    dataset, source = images()
    augment = transforms.Compose(
        [
            transforms.RandomResizedCrop(56),
            transforms.RandomFlipLeftRight(),
            transforms.RandomColorJitter(brightness=0.3, contrast=0.3),
            transforms.ToTensor(),
            transforms.Normalize(0.286, 0.353),
        ]
    )
    pipelines = [
        ('augmented', dataset.transform_first(augment)),
        ('ToTensor only', dataset.transform_first(transforms.ToTensor())),
    ]
    settings = [
        ('num_workers=0', {}),
        ('num_workers=2 (processes)', {'num_workers': 2}),
        (
            'num_workers=2, thread_pool',
            {'num_workers': 2, 'thread_pool': True},
        ),
    ]
    loaders = {
        (name, label): gluon.data.DataLoader(
            data, BATCH, shuffle=True, **kwargs
        )
        for name, data in pipelines
        for label, kwargs in settings
    }
    best = dict.fromkeys(loaders, (float('inf'), float('inf')))
    # Rounds interleave the settings, so a burst of load from other
    # programs does not favour one of them; the first round warms up
    # (starts the worker pools).
    for _ in range(ROUNDS + 1):
        for key, loader in loaders.items():
            best[key] = min(best[key], epoch_seconds(loader))
    rows = []
    for name, _ in pipelines:
        base = best[(name, settings[0][0])]
        for label, _ in settings:
            seconds, cpu = best[(name, label)]
            rows.append(
                (
                    name,
                    label,
                    f'{seconds:.3f}',
                    f'{N_SAMPLES / seconds:,.0f}',
                    f'{base[0] / seconds:.2f}x',
                    f'{cpu:.3f}',
                )
            )
    body = (
        f'DataLoader, {N_SAMPLES} samples of {source}, batch {BATCH}, '
        f'best epoch of {ROUNDS + 1} interleaved rounds; load average '
        f'before {load}, after {os.getloadavg()[0]:.2f}.\n\n'
        + table(
            (
                'pipeline',
                'loader',
                'epoch (s)',
                'samples/s',
                'speed-up',
                'main-process CPU (s)',
            ),
            rows,
        )
    )
    write_section(
        'dataloader',
        'DataLoader workers (`benchmarks/bench_dataloader.py`)',
        body,
    )


if __name__ == '__main__':
    if len(sys.argv) > 1:
        N_SAMPLES = int(sys.argv[1])
    main()
