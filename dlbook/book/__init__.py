"""d2l-style helpers for the chapter notebooks: ``from dlbook import book as d2l``.

The names and signatures are those of the MXNet editions of *Dive into
Deep Learning* (d2l-en v0.x, d2l-zh v1), so code from the books runs as
printed: ``d2l.load_data_fashion_mnist(256)``, ``d2l.train_ch3(...)``,
``d2l.try_gpu()``. Each submodule holds one idea:

``_fast``
    The fast mode that CI uses (``DLBOOK_FAST=1``, ``scale``).
``data``
    Data sets and loaders (Fashion-MNIST, synthetic regression data).
``scratch``
    Linear regression written by hand: ``linreg``, ``squared_loss``,
    ``sgd``.
``training``
    Accuracy, evaluation and the training loops of chapters 3, 6 and 13.
``cnn``
    Convolutions by hand and the networks of chapters 8 and 9.
``text_data``, ``rnn`` (together also ``text``)
    Text as sequences, and the recurrent networks of chapter 10.
``optimization``
    The optimizers' playground of chapter 11.
``devices``
    Choosing a device, and saying why a GPU could not be used.

The plotting and bookkeeping helpers (``Animator``, ``Timer``,
``Accumulator``, ``plot``, ``set_figsize``, ``show_images``,
``use_svg_display``) live in ``dlbook.widgets`` and are re-exported here.
Importing this package loads neither matplotlib nor IPython; they are
imported when something is drawn.

This file is only a list of re-exports: each chapter's helpers go in a
module of their own, plus one import line below.
"""
from ..widgets import (  # noqa: F401
    Accumulator,
    Animator,
    Timer,
    plot,
    set_axes,
    set_figsize,
    show_images,
    use_svg_display,
)
from ._fast import fast_mode, scale  # noqa: F401
from .cnn import (  # noqa: F401
    BatchNorm,
    Residual,
    batch_norm,
    comp_conv2d,
    conv_output_shape,
    corr2d,
    corr2d_multi_in,
    corr2d_multi_in_out,
    corr2d_multi_in_out_1x1,
    nin_block,
    pool2d,
    resnet18,
    resnet_block,
    vgg,
    vgg_block,
)
from .data import (  # noqa: F401
    get_dataloader_workers,
    get_fashion_mnist_labels,
    load_array,
    load_data_fashion_mnist,
    show_fashion_mnist,
    synthetic_data,
)
from .devices import gpu_status, try_all_gpus, try_gpu  # noqa: F401
from .optimization import (  # noqa: F401
    get_data_ch11,
    show_trace,
    show_trace_2d,
    train_2d,
    train_ch11,
    train_concise_ch11,
    train_with_scheduler,
)
from .rnn import (  # noqa: F401
    PerplexityResult,
    RNNModel,
    RNNModelScratch,
    grad_clipping,
    predict_ch8,
    train_ch8,
    train_epoch_ch8,
)
from .scratch import linreg, sgd, squared_loss  # noqa: F401
from .text_data import (  # noqa: F401
    SeqDataLoader,
    Vocab,
    count_corpus,
    load_corpus_time_machine,
    load_data_time_machine,
    read_time_machine,
    seq_data_iter_random,
    seq_data_iter_sequential,
    tokenize,
)
from .training import (  # noqa: F401
    TrainResult,
    accuracy,
    evaluate_accuracy,
    evaluate_accuracy_gpu,
    evaluate_accuracy_gpus,
    evaluate_loss,
    predict_ch3,
    split_batch,
    train_batch_ch13,
    train_ch3,
    train_ch6,
    train_ch13,
    train_epoch_ch3,
)
