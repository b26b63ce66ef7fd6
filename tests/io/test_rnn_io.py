"""mx.rnn: encode_sentences and BucketSentenceIter (MXNet 1.9.1's
``python/mxnet/rnn/io.py``), and a tiny bucketed language model trained
with ``mx.mod.BucketingModule`` from the iterator."""

import numpy as np
import pytest

import dlbook as mx
from dlbook import sym
from dlbook.io import DataBatch, DataDesc, DataIter
from dlbook.rnn import BucketSentenceIter, encode_sentences

# -- encode_sentences ---------------------------------------------------------


def test_encode_sentences_builds_a_vocabulary():
    sents = [['the', 'cat', 'sat'], ['the', 'dog']]
    coded, vocab = encode_sentences(sents)
    assert coded == [[0, 1, 2], [0, 3]]
    assert vocab == {'\n': -1, 'the': 0, 'cat': 1, 'sat': 2, 'dog': 3}


def test_encode_sentences_skips_the_invalid_label():
    coded, vocab = encode_sentences(
        [['a', 'b', 'c']], invalid_label=1, invalid_key='<eos>', start_label=0
    )
    assert coded == [[0, 2, 3]]
    assert vocab == {'<eos>': 1, 'a': 0, 'b': 2, 'c': 3}
    coded, _ = encode_sentences([['a', 'b']], invalid_label=0, start_label=1)
    assert coded == [[1, 2]]


def test_encode_sentences_with_a_given_vocabulary():
    vocab = {'\n': -1, 'a': 0, 'b': 1}
    coded, out = encode_sentences([['b', 'a', 'b']], vocab=vocab)
    assert coded == [[1, 0, 1]] and out is vocab
    with pytest.raises(AssertionError, match='Unknown token z'):
        encode_sentences([['a', 'z']], vocab=vocab)


def test_encode_sentences_unknown_token_gets_a_new_id_each_time():
    # MXNet's rule, kept as is: the unknown token is (re)assigned the
    # next id from start_label whenever a missing token is met.
    vocab = {'\n': -1, 'a': 0, 'b': 1}
    coded, out = encode_sentences(
        [['a', 'z', 'b', 'y', 'z']],
        vocab=vocab,
        start_label=2,
        unknown_token='<unk>',
    )
    assert coded == [[0, 2, 1, 3, 4]]
    assert out == {'\n': -1, 'a': 0, 'b': 1, '<unk>': 4}
    coded, out = encode_sentences([['a', 'a']], unknown_token='<unk>')
    assert coded == [[0, 1]] and out == {'\n': -1, '<unk>': 1}


# -- BucketSentenceIter -------------------------------------------------------


def corpus(n=60, seed=0, lengths=(3, 4, 6), vocab=10):
    """Counting sentences: ``s, s+1, s+2, ...`` (ids 1..vocab-1)."""
    rng = np.random.RandomState(seed)
    sents = []
    for _ in range(n):
        length = lengths[rng.randint(len(lengths))]
        start = rng.randint(vocab - 1)
        sents.append([1 + (start + k) % (vocab - 1) for k in range(length)])
    return sents


def test_automatic_buckets_and_discarded_sentences(capsys):
    sents = [[1, 2]] * 4 + [[1, 2, 3]] * 2 + [[1, 2, 3, 4]] * 5 + [[1] * 7]
    it = BucketSentenceIter(sents, batch_size=3)
    # Lengths shared by at least 3 sentences: 2 and 4.
    assert it.buckets == [2, 4] and it.default_bucket_key == 4
    assert (
        capsys.readouterr().out
        == 'WARNING: discarded 1 sentences longer than the largest bucket.\n'
    )
    assert [len(b) for b in it.data] == [4, 7]
    # The length-3 sentences are padded into bucket 4.
    assert (
        sorted(map(tuple, it.data[1].tolist()))
        == [(1, 2, 3, -1)] * 2 + [(1, 2, 3, 4)] * 5
    )
    # Full batches only: one from bucket 2, two from bucket 4.
    assert sorted(it.idx) == [(0, 0), (1, 0), (1, 3)]


def test_batches_labels_and_descriptions(capsys):
    sents = corpus()
    it = BucketSentenceIter(
        sents, batch_size=4, buckets=[4, 6], invalid_label=0
    )
    assert 'discarded 0 sentences' in capsys.readouterr().out
    assert isinstance(it, DataIter) and it.batch_size == 4
    assert it.provide_data == [DataDesc('data', (4, 6))]
    assert it.provide_label == [DataDesc('softmax_label', (4, 6))]
    assert it.provide_data[0].layout == 'NT'
    batches = list(it)
    assert len(batches) == len(it.idx) > 0
    seen = []
    for batch in batches:
        assert isinstance(batch, DataBatch) and batch.pad == 0
        data, label = batch.data[0].asnumpy(), batch.label[0].asnumpy()
        assert data.dtype == np.float32 and label.dtype == np.float32
        assert data.shape == (4, batch.bucket_key)
        np.testing.assert_array_equal(label[:, :-1], data[:, 1:])
        assert (label[:, -1] == 0).all()
        (desc,), (ldesc,) = batch.provide_data, batch.provide_label
        assert (desc.name, desc.shape, desc.layout) == (
            'data',
            data.shape,
            'NT',
        )
        assert (ldesc.name, ldesc.shape) == ('softmax_label', label.shape)
        seen += [tuple(r[r != 0].astype(int)) for r in data]
    assert {b.bucket_key for b in batches} == {4, 6}
    assert set(seen) <= {tuple(s) for s in sents}
    with pytest.raises(StopIteration):
        it.next()


def test_time_major_layout():
    it = BucketSentenceIter(
        corpus(), batch_size=4, buckets=[4, 6], layout='TN'
    )
    assert it.provide_data[0].shape == (6, 4)
    assert it.provide_label[0].layout == 'TN'
    for batch in it:
        data, label = batch.data[0].asnumpy(), batch.label[0].asnumpy()
        assert data.shape == (batch.bucket_key, 4)
        np.testing.assert_array_equal(label[:-1], data[1:])
        assert (label[-1] == -1).all()
        assert batch.provide_data[0].shape == data.shape
    with pytest.raises(ValueError, match='Invalid layout CT'):
        BucketSentenceIter(corpus(), batch_size=4, layout='CT')


def test_dtype_and_names():
    it = BucketSentenceIter(
        corpus(),
        batch_size=5,
        dtype='int32',
        data_name='words',
        label_name='next',
    )
    batch = it.next()
    assert batch.data[0].dtype == np.int32
    assert batch.label[0].dtype == np.int32
    assert batch.provide_data[0].name == 'words'
    assert it.provide_label[0].name == 'next'


def test_empty_or_missing_buckets():
    it = BucketSentenceIter(corpus(), batch_size=4, buckets=[2, 6])
    assert it.data[0].shape == (0, 2)
    assert {b.bucket_key for b in it} == {6}
    with pytest.raises(ValueError, match='no bucket'):
        BucketSentenceIter([[1, 2], [1, 2, 3]], batch_size=4)


def _epoch(it):
    return [(b.bucket_key, b.data[0].asnumpy().tolist()) for b in it]


def test_reset_shuffles_reproducibly_under_mx_random_seed():
    sents = corpus(120)
    mx.random.seed(7)
    it = BucketSentenceIter(sents, batch_size=4)
    first = _epoch(it)
    it.reset()
    second = _epoch(it)
    assert first != second
    assert sorted(k for k, _ in first) == sorted(k for k, _ in second)
    mx.random.seed(7)
    again = BucketSentenceIter(sents, batch_size=4)
    assert _epoch(again) == first
    again.reset()
    assert _epoch(again) == second


def test_mx_rnn_namespace():
    assert mx.rnn.BucketSentenceIter is BucketSentenceIter
    assert mx.rnn.encode_sentences is encode_sentences
    assert mx.rnn.io.BucketSentenceIter is BucketSentenceIter
    assert mx.gluon.rnn.LSTM is not None  # no clash
    assert mx.rnn is not mx.gluon.rnn


# -- a bucketed language model ------------------------------------------------

VOCAB, EMBED, HIDDEN, BATCH = 10, 8, 16, 4


def lm_sym_gen_for(layout):
    """``sym_gen`` of a tiny language model: Embedding -> tanh RNN ->
    per-step softmax over the vocabulary; padding (id 0) is ignored.
    ``sym.RNN`` is time-major, so 'NT' batches are swapped in and out."""

    def sym_gen(seq_len):
        data = sym.var('data')
        label = sym.var('softmax_label')
        embed = sym.Embedding(
            data, input_dim=VOCAB, output_dim=EMBED, name='embed'
        )
        if layout == 'NT':
            embed = sym.SwapAxis(embed, dim1=0, dim2=1)
        state = sym.zeros(shape=(1, BATCH, HIDDEN))
        out = sym.RNN(
            embed,
            sym.var('rnn_weight'),
            state,
            state_size=HIDDEN,
            num_layers=1,
            mode='rnn_tanh',
            name='rnn',
        )
        if layout == 'NT':
            out = sym.SwapAxis(out, dim1=0, dim2=1)
        pred = sym.FullyConnected(
            sym.Reshape(out, shape=(-1, HIDDEN)), num_hidden=VOCAB, name='pred'
        )
        label = sym.Reshape(label, shape=(-1,))
        return (
            sym.SoftmaxOutput(
                pred, label, use_ignore=True, ignore_label=0, name='softmax'
            ),
            ('data',),
            ('softmax_label',),
        )

    return sym_gen


@pytest.mark.parametrize('layout', ['TN', 'NT'])
def test_bucket_sentence_iter_drives_a_bucketing_module(layout):
    words = [[str(i) for i in s] for s in corpus(48, lengths=(3, 6))]
    sents, vocab = encode_sentences(words, invalid_label=0, start_label=1)
    assert len(vocab) == VOCAB
    mx.random.seed(0)
    it = BucketSentenceIter(
        sents, batch_size=BATCH, buckets=[3, 6], invalid_label=0, layout=layout
    )
    mod = mx.mod.BucketingModule(
        lm_sym_gen_for(layout), default_bucket_key=it.default_bucket_key
    )
    metric = mx.metric.Perplexity(ignore_label=0)
    mod.bind(it.provide_data, it.provide_label)
    mod.init_params(mx.init.Uniform(0.1))
    mod.init_optimizer(
        optimizer='adam', optimizer_params={'learning_rate': 0.05}
    )

    def run_epoch(train):
        it.reset()
        metric.reset()
        for batch in it:
            mod.forward(batch, is_train=train)
            mod.update_metric(metric, batch.label)
            if train:
                mod.backward()
                mod.update()
        return metric.get()[1]

    before = run_epoch(train=False)
    for _ in range(3):
        run_epoch(train=True)
    after = run_epoch(train=False)
    assert sorted(mod._buckets) == [3, 6]
    weights = [m._exec_group.param_arrays[0][0] for m in mod._buckets.values()]
    assert weights[0] is weights[1]
    args, _ = mod.get_params()
    assert sorted(args) == [
        'embed_weight',
        'pred_bias',
        'pred_weight',
        'rnn_weight',
    ]
    # Counting sentences are easy to predict: from about VOCAB - 1 down.
    assert before > 6 and after < before / 2


def test_bucketing_module_fit_reads_the_iterator(caplog):
    sents = corpus(32, lengths=(3, 6))
    it = BucketSentenceIter(
        sents, batch_size=BATCH, buckets=[3, 6], invalid_label=0, layout='TN'
    )
    mod = mx.mod.BucketingModule(
        lm_sym_gen_for('TN'), default_bucket_key=it.default_bucket_key
    )
    with caplog.at_level('INFO'):
        mod.fit(
            it,
            num_epoch=2,
            eval_metric=mx.metric.Perplexity(0),
            initializer=mx.init.Uniform(0.1),
            optimizer='lars',
            optimizer_params={
                'learning_rate': 1.0,
                'momentum': 0.9,
                'eta': 0.02,
            },
        )
    assert 'Epoch[1] Train-perplexity=' in caplog.text
    assert sorted(mod._buckets) == [3, 6]
