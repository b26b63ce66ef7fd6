"""The text pipeline and language-model helpers of chapter 10."""

import math
import re
from pathlib import Path

import numpy as np
import pytest

import dlbook as mx
from dlbook import autograd, gluon, nd
from dlbook.book import text
from dlbook.gluon import rnn

REPO = Path(__file__).resolve().parents[2]


# -- the corpus --------------------------------------------------------------


def test_corpus_is_packaged_and_matches_the_repository_copy():
    packaged = text.corpus_path()
    assert packaged.is_file()
    assert packaged.parent.name == 'data'
    repo_copy = REPO / 'data' / text.CORPUS_FILE
    assert repo_copy.read_bytes() == packaged.read_bytes()
    size = len(packaged.read_text(encoding='utf-8'))
    assert 25_000 <= size <= 40_000


def test_corpus_readme_states_the_licence_and_size():
    readme = (REPO / 'data' / 'README.md').read_text(encoding='utf-8')
    assert 'CC0' in readme and 'public domain' in readme
    assert text.CORPUS_FILE in readme


def test_pyproject_ships_the_corpus_as_package_data():
    pyproject = (REPO / 'pyproject.toml').read_text(encoding='utf-8')
    assert '"dlbook.book" = ["data/*.txt"]' in pyproject


def test_read_time_machine_keeps_lower_case_letters_and_spaces():
    lines = text.read_time_machine()
    assert lines[0] == 'the tide engine'
    assert all(re.fullmatch('[a-z ]*', line) for line in lines)
    joined = ' '.join(lines)
    assert joined.count('time traveller') >= 10  # d2l's prompt


def test_tokenize_words_and_characters():
    lines = ['the tide', '', 'a b']
    assert text.tokenize(lines) == [['the', 'tide'], [], ['a', 'b']]
    assert text.tokenize(['ab c'], 'char') == [['a', 'b', ' ', 'c']]
    with pytest.raises(ValueError, match="unknown token type 'letter'"):
        text.tokenize(lines, 'letter')


def test_count_corpus_flat_and_nested():
    assert text.count_corpus(['a', 'b', 'a'])['a'] == 2
    assert text.count_corpus([['a', 'b'], ['a']])['a'] == 2
    assert len(text.count_corpus([])) == 0


# -- the vocabulary ----------------------------------------------------------


def test_vocab_orders_by_frequency_with_unk_first():
    vocab = text.Vocab([['b', 'a', 'a'], ['c', 'a', 'b']])
    assert vocab.idx_to_token == ['<unk>', 'a', 'b', 'c']
    assert vocab['a'] == 1 and vocab['zebra'] == vocab.unk == 0
    assert vocab[['c', 'zebra']] == [3, 0]
    assert vocab.to_tokens([1, 3]) == ['a', 'c']
    assert vocab.to_tokens(2) == 'b'
    assert vocab.token_freqs[0] == ('a', 3)
    assert len(vocab) == 4
    assert repr(vocab) == "Vocab(4 tokens: '<unk>', 'a', 'b', 'c')"


def test_vocab_min_freq_and_reserved_tokens():
    vocab = text.Vocab(
        ['a', 'a', 'b'], min_freq=2, reserved_tokens=['<pad>', '<bos>']
    )
    assert vocab.idx_to_token == ['<unk>', '<pad>', '<bos>', 'a']
    assert vocab['b'] == 0
    assert vocab['<pad>'] == 1


def test_vocab_of_nothing_has_only_unk():
    vocab = text.Vocab()
    assert len(vocab) == 1 and vocab['x'] == 0


def test_to_tokens_accepts_numpy_integers():
    vocab = text.Vocab(['a', 'b'])
    assert vocab.to_tokens(np.int64(1)) == 'a'


def test_load_corpus_time_machine():
    corpus, vocab = text.load_corpus_time_machine()
    assert len(vocab) == 28  # <unk>, space and 26 letters
    assert vocab.idx_to_token[1] == ' '
    assert len(corpus) > 25_000
    short, _ = text.load_corpus_time_machine(max_tokens=100)
    assert short == corpus[:100]
    start = ''.join(vocab.to_tokens(corpus[:15]))
    assert start == 'the tide engine'


# -- minibatches -------------------------------------------------------------


def _batches(fn, corpus, batch_size, num_steps):
    return [
        (X.asnumpy().astype(int), Y.asnumpy().astype(int))
        for X, Y in fn(corpus, batch_size, num_steps)
    ]


def test_seq_data_iter_random_shapes_labels_and_disjoint_windows():
    corpus = list(range(35))
    batches = _batches(text.seq_data_iter_random, corpus, 2, 5)
    assert batches, 'no batch'
    starts = []
    for X, Y in batches:
        assert X.shape == Y.shape == (2, 5)
        np.testing.assert_array_equal(Y, X + 1)  # the next token
        for row in X:
            np.testing.assert_array_equal(row, np.arange(row[0], row[0] + 5))
            starts.append(row[0])
    assert len(set(starts)) == len(starts)
    offsets = {s % 5 for s in starts}
    assert len(offsets) == 1  # one random offset per epoch


def test_seq_data_iter_random_is_reproducible_under_mx_random_seed():
    corpus = list(range(200))
    mx.random.seed(3)
    first = _batches(text.seq_data_iter_random, corpus, 4, 6)
    mx.random.seed(3)
    again = _batches(text.seq_data_iter_random, corpus, 4, 6)
    for (X1, _), (X2, _) in zip(first, again):
        np.testing.assert_array_equal(X1, X2)


def test_seq_data_iter_sequential_rows_continue_across_batches():
    corpus = list(range(100))
    batches = _batches(text.seq_data_iter_sequential, corpus, 3, 4)
    assert len(batches) >= 2
    for X, Y in batches:
        assert X.shape == (3, 4)
        np.testing.assert_array_equal(Y, X + 1)
    for (X1, _), (X2, _) in zip(batches, batches[1:]):
        np.testing.assert_array_equal(X2[:, 0], X1[:, -1] + 1)


def test_load_data_time_machine_iterates_every_epoch():
    train_iter, vocab = text.load_data_time_machine(4, 10, max_tokens=500)
    assert len(vocab) == 28
    assert len(train_iter.corpus) == 500
    first = list(train_iter)
    second = list(train_iter)
    assert first and second
    assert first[0][0].shape == (4, 10)
    assert 'sequential' in repr(train_iter)
    random_iter, _ = text.load_data_time_machine(4, 10, True, 500)
    assert 'random' in repr(random_iter)
    assert next(iter(random_iter))[0].shape == (4, 10)


# -- models ------------------------------------------------------------------


def _get_params(vocab_size, num_hiddens, device):
    def normal(shape):
        return nd.random.normal(scale=0.01, shape=shape, ctx=device)

    params = [
        normal((vocab_size, num_hiddens)),
        normal((num_hiddens, num_hiddens)),
        nd.zeros(num_hiddens, ctx=device),
        normal((num_hiddens, vocab_size)),
        nd.zeros(vocab_size, ctx=device),
    ]
    for param in params:
        param.attach_grad()
    return params


def _init_state(batch_size, num_hiddens, device):
    return (nd.zeros((batch_size, num_hiddens), ctx=device),)


def _rnn(inputs, state, params):
    W_xh, W_hh, b_h, W_hq, b_q = params
    (H,) = state
    outputs = []
    for X in inputs:
        H = nd.tanh(nd.dot(X, W_xh) + nd.dot(H, W_hh) + b_h)
        outputs.append(nd.dot(H, W_hq) + b_q)
    return nd.concat(*outputs, dim=0), (H,)


def _scratch(vocab_size=28, num_hiddens=16):
    return text.RNNModelScratch(
        vocab_size, num_hiddens, mx.cpu(), _get_params, _init_state, _rnn
    )


def test_rnn_model_scratch_shapes_and_repr():
    net = _scratch()
    state = net.begin_state(3, mx.cpu())
    Y, new_state = net(nd.zeros((3, 5)), state)
    assert Y.shape == (15, 28)
    assert new_state[0].shape == (3, 16)
    assert repr(net) == (
        'RNNModelScratch(_rnn, vocab_size=28, num_hiddens=16)'
    )


@pytest.mark.parametrize('layer_cls', [rnn.RNN, rnn.LSTM, rnn.GRU])
def test_rnn_model_wraps_gluon_layers(layer_cls):
    net = text.RNNModel(layer_cls(8), vocab_size=28)
    net.initialize()
    state = net.begin_state(batch_size=2)
    assert len(state) == (2 if layer_cls is rnn.LSTM else 1)
    Y, new_state = net(nd.zeros((2, 5)), state)
    assert Y.shape == (10, 28)
    assert new_state[0].shape == (1, 2, 8)


def test_predict_ch8_continues_the_prefix():
    _, vocab = text.load_corpus_time_machine(1000)
    net = _scratch()
    out = text.predict_ch8('time ', 7, net, vocab, mx.cpu())
    assert out.startswith('time ') and len(out) == len('time ') + 7
    assert set(out) <= set(vocab.idx_to_token)


# -- gradient clipping -------------------------------------------------------


def _set_grads(arrays, values):
    for array, value in zip(arrays, values):
        array.grad[:] = nd.array(value)


def test_grad_clipping_rescales_the_joint_norm_of_a_scratch_model():
    net = _scratch(vocab_size=3, num_hiddens=2)
    values = [np.full(p.shape, 1.0) for p in net.params]
    _set_grads(net.params, values)
    norm = math.sqrt(sum(v.size for v in values))
    assert text.grad_clipping(net, 1.0) == pytest.approx(norm, rel=1e-6)
    clipped = math.sqrt(
        sum(float((p.grad**2).sum().asscalar()) for p in net.params)
    )
    assert clipped == pytest.approx(1.0, rel=1e-5)
    # the direction is kept: every entry was scaled by the same factor
    ratio = net.params[0].grad.asnumpy() / values[0]
    np.testing.assert_allclose(ratio, 1.0 / norm, rtol=1e-5)


def test_grad_clipping_leaves_small_gradients_alone():
    net = _scratch(vocab_size=3, num_hiddens=2)
    values = [np.full(p.shape, 0.01) for p in net.params]
    _set_grads(net.params, values)
    text.grad_clipping(net, 1.0)
    np.testing.assert_allclose(
        net.params[0].grad.asnumpy(), values[0], rtol=1e-6
    )


def test_grad_clipping_on_a_gluon_block():
    net = gluon.nn.Dense(2, in_units=3)
    net.initialize()
    with autograd.record():
        loss = (net(nd.ones((4, 3))) * 100).sum()
    loss.backward()
    before = text.grad_clipping(net, 0.5)
    assert before > 0.5
    after = math.sqrt(
        sum(
            float((p.grad() ** 2).sum().asscalar())
            for p in net.collect_params().values()
        )
    )
    assert after == pytest.approx(0.5, rel=1e-5)


# -- training ----------------------------------------------------------------


def test_train_epoch_ch8_detaches_the_state_between_batches():
    train_iter, vocab = text.load_data_time_machine(4, 8, max_tokens=400)
    net = _scratch(len(vocab), 8)
    loss = gluon.loss.SoftmaxCrossEntropyLoss()

    def updater(batch_size):
        for param in net.params:
            param[:] = param - 0.5 * param.grad / batch_size

    ppl, speed = text.train_epoch_ch8(
        net, train_iter, loss, updater, mx.cpu(), use_random_iter=False
    )
    assert 1 < ppl < 40 and speed > 0


def test_train_ch8_prints_like_d2l_and_learns(capsys):
    mx.random.seed(1)
    train_iter, vocab = text.load_data_time_machine(8, 10, max_tokens=1500)
    net = text.RNNModel(rnn.GRU(32), len(vocab))
    result = text.train_ch8(net, train_iter, vocab, 1, 40, mx.cpu())
    out = capsys.readouterr().out.splitlines()
    assert re.fullmatch(
        r'perplexity \d+\.\d, \d+\.\d tokens/sec on '
        r'cpu\(0\)',
        out[-3],
    )
    assert out[-2].startswith('time traveller')
    assert len(out[-2]) == len('time traveller') + 50
    assert out[-1].startswith('traveller')
    assert isinstance(result, text.PerplexityResult)
    assert result.perplexity < 12  # 28 would be a uniform guess
    assert re.fullmatch(
        r"PerplexityResult\(perplexity=\d+\.\d, "
        r"speed='\d+\.\d tokens/sec'\)",
        repr(result),
    )


def test_train_ch8_trains_a_scratch_model_with_random_batches(capsys):
    train_iter, vocab = text.load_data_time_machine(4, 8, True, 400)
    net = _scratch(len(vocab), 8)
    result = text.train_ch8(
        net, train_iter, vocab, 1, 1, mx.cpu(), use_random_iter=True
    )
    assert math.isfinite(result.perplexity)
    assert 'tokens/sec on cpu(0)' in capsys.readouterr().out
