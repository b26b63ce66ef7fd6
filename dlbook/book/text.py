"""Text as data, and the recurrent networks of chapter 10 (d2l chapter 8).

d2l trains its character-level language models on H. G. Wells' *The Time
Machine*, downloaded from a server. dlbook runs offline, so it ships its
own corpus instead: *The Tide Engine*, an original story of about 31,000
characters written for dlbook and dedicated to the public domain (see
``data/README.md``). Its narrator calls its heroine "the Time Traveller",
so d2l's prompts ``'time traveller'`` and ``'traveller'`` work unchanged.

The pipeline, one function per step, as in the book:

``read_time_machine`` -> lines of lower-case letters and spaces
``tokenize``          -> lists of tokens (characters or words)
``Vocab``             -> token <-> index tables, most frequent first
``load_corpus_time_machine`` -> one long list of indices, and the vocab
``seq_data_iter_random`` / ``seq_data_iter_sequential`` -> minibatches
``SeqDataLoader``, ``load_data_time_machine`` -> an iterable, and the vocab

Then the models and the training loop: ``RNNModelScratch`` (parameters
you manage yourself), ``RNNModel`` (a Gluon ``rnn.RNN``/``LSTM``/``GRU``
layer plus a ``Dense`` output), ``predict_ch8``, ``grad_clipping``,
``train_epoch_ch8`` and ``train_ch8``. ``notebooks/ch10_rnn.ipynb``
teaches each of them.
"""
import collections
import math
import re
from collections import namedtuple
from importlib import resources
from pathlib import Path

from .. import autograd, gluon, init, nd
from ..random import numpy_rng
from ..widgets import Accumulator, Animator, Timer
from .data import sgd

CORPUS_FILE = 'time_traveller.txt'

__all__ = ['CORPUS_FILE', 'corpus_path', 'read_time_machine', 'tokenize',
           'count_corpus', 'Vocab', 'load_corpus_time_machine',
           'seq_data_iter_random', 'seq_data_iter_sequential',
           'SeqDataLoader', 'load_data_time_machine', 'RNNModelScratch',
           'RNNModel', 'predict_ch8', 'grad_clipping', 'train_epoch_ch8',
           'train_ch8', 'PerplexityResult']


# -- reading and tokenizing ---------------------------------------------------

def corpus_path():
    """Where the corpus file is: inside the installed package, or ``data/``.

    The package ships a copy under ``dlbook/book/data/`` (package data),
    so an installed dlbook needs no repository. In a source checkout
    whose package copy is missing, the repository's ``data/`` folder is
    used instead.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    FileNotFoundError
        Naming every place that was searched.
    """
    packaged = resources.files(__package__).joinpath('data', CORPUS_FILE)
    candidates = [Path(str(packaged)),
                  Path(__file__).resolve().parents[2] / 'data' / CORPUS_FILE]
    for path in candidates:
        if path.is_file():
            return path
    searched = ', '.join(str(path) for path in candidates)
    raise FileNotFoundError(
        f'the corpus {CORPUS_FILE!r} was not found (searched: {searched}); '
        f'reinstall dlbook, or copy data/{CORPUS_FILE} from the dlbook '
        f'repository into one of those places')


def read_time_machine():
    """Read the corpus into a list of cleaned lines.

    Every run of characters other than ``A-Z``/``a-z`` becomes one space
    and letters become lower case, as in d2l: a character-level model
    then has only 26 letters and the space to learn (plus ``'<unk>'``).

    Returns
    -------
    list of str
        One entry per line of the file; blank lines give ``''``.

    Examples
    --------
    >>> lines = d2l.read_time_machine()
    >>> lines[0]
    'the tide engine'
    """
    with open(corpus_path(), encoding='utf-8') as f:
        lines = f.readlines()
    return [re.sub('[^A-Za-z]+', ' ', line).strip().lower()
            for line in lines]


def tokenize(lines, token='word'):
    """Split lines into tokens.

    Parameters
    ----------
    lines : list of str
    token : {'word', 'char'}
        Words (split on whitespace) or single characters.

    Returns
    -------
    list of list of str
        One list of tokens per line.

    Examples
    --------
    >>> d2l.tokenize(['the tide'], 'char')
    [['t', 'h', 'e', ' ', 't', 'i', 'd', 'e']]
    """
    if token == 'word':
        return [line.split() for line in lines]
    if token == 'char':
        return [list(line) for line in lines]
    raise ValueError(f"unknown token type {token!r}: use 'word' or 'char'")


def count_corpus(tokens):
    """Count token frequencies.

    Parameters
    ----------
    tokens : list of str, or list of list of str
        A flat list of tokens, or one list per line.

    Returns
    -------
    collections.Counter
    """
    if len(tokens) == 0 or isinstance(tokens[0], list):
        tokens = [tok for line in tokens for tok in line]
    return collections.Counter(tokens)


class Vocab:
    """Map tokens to integer indices and back.

    Index 0 is ``'<unk>'``, the unknown token, then come the
    ``reserved_tokens`` (e.g. ``'<pad>'``, ``'<bos>'``), then every token
    seen at least ``min_freq`` times, the most frequent first (ties keep
    the order in which the tokens first appear). A frequent token gets
    a small index, which is all the ordering is for.

    Parameters
    ----------
    tokens : list of str, or list of list of str, optional
    min_freq : int, optional
        Rarer tokens map to ``'<unk>'``.
    reserved_tokens : list of str, optional

    Examples
    --------
    >>> vocab = d2l.Vocab(d2l.tokenize(['a b a'], 'word'))
    >>> vocab['a'], vocab[['b', 'zebra']], vocab.to_tokens([1, 2])
    (1, [2, 0], ['a', 'b'])
    """

    def __init__(self, tokens=None, min_freq=0, reserved_tokens=None):
        if tokens is None:
            tokens = []
        if reserved_tokens is None:
            reserved_tokens = []
        counter = count_corpus(tokens)
        self._token_freqs = sorted(counter.items(), key=lambda x: x[1],
                                   reverse=True)
        self.idx_to_token = ['<unk>'] + list(reserved_tokens)
        self.token_to_idx = {tok: idx
                             for idx, tok in enumerate(self.idx_to_token)}
        for tok, freq in self._token_freqs:
            if freq < min_freq:
                break
            if tok not in self.token_to_idx:
                self.idx_to_token.append(tok)
                self.token_to_idx[tok] = len(self.idx_to_token) - 1

    def __len__(self):
        return len(self.idx_to_token)

    def __getitem__(self, tokens):
        """Index of a token (0 if unknown), or a list of indices."""
        if not isinstance(tokens, (list, tuple)):
            return self.token_to_idx.get(tokens, self.unk)
        return [self.__getitem__(tok) for tok in tokens]

    def to_tokens(self, indices):
        """Token of an index, or a list of tokens for a list of indices."""
        if not isinstance(indices, (list, tuple)):
            return self.idx_to_token[int(indices)]
        return [self.idx_to_token[int(index)] for index in indices]

    @property
    def unk(self):
        """Index of the unknown token: 0."""
        return 0

    @property
    def token_freqs(self):
        """``[(token, count), ...]``, the most frequent first."""
        return self._token_freqs

    def __repr__(self):
        head = ', '.join(repr(tok) for tok in self.idx_to_token[:5])
        more = ', ...' if len(self) > 5 else ''
        return f'Vocab({len(self)} tokens: {head}{more})'


def load_corpus_time_machine(max_tokens=-1):
    """Return the corpus as character indices, and its vocabulary.

    Parameters
    ----------
    max_tokens : int, optional
        Keep only the first ``max_tokens`` characters (all if ``<= 0``).

    Returns
    -------
    corpus : list of int
        The whole text as one sequence: lines are joined without a
        separator, exactly as d2l does.
    vocab : Vocab
        28 tokens: ``'<unk>'``, the space and the 26 letters.
    """
    lines = read_time_machine()
    tokens = tokenize(lines, 'char')
    vocab = Vocab(tokens)
    corpus = [vocab[tok] for line in tokens for tok in line]
    if max_tokens > 0:
        corpus = corpus[:max_tokens]
    return corpus, vocab


# -- minibatches of subsequences ----------------------------------------------

def seq_data_iter_random(corpus, batch_size, num_steps):
    """Yield minibatches of subsequences taken at random places.

    The corpus is cut into non-overlapping pieces of ``num_steps``
    tokens, after dropping a random number (0 to ``num_steps - 1``) of
    tokens at the start so that each epoch cuts in different places. The
    pieces are shuffled; two neighbouring rows of a batch, or the same
    row in two consecutive batches, are *not* neighbours in the text, so
    the model must start every batch from a fresh hidden state.

    Parameters
    ----------
    corpus : list of int
    batch_size, num_steps : int

    Yields
    ------
    X, Y : NDArray, shape ``(batch_size, num_steps)``
        ``Y`` is ``X`` shifted by one token: the label of each position
        is the next token.

    Notes
    -----
    The random draws come from dlbook's generator: ``mx.random.seed(s)``
    makes them reproducible (d2l uses Python's ``random`` module).
    """
    rng = numpy_rng()
    corpus = corpus[rng.randint(0, num_steps):]
    num_subseqs = (len(corpus) - 1) // num_steps
    initial_indices = list(range(0, num_subseqs * num_steps, num_steps))
    rng.shuffle(initial_indices)

    def data(pos):
        return corpus[pos: pos + num_steps]

    num_batches = num_subseqs // batch_size
    for i in range(0, batch_size * num_batches, batch_size):
        starts = initial_indices[i: i + batch_size]
        X = [data(j) for j in starts]
        Y = [data(j + 1) for j in starts]
        yield nd.array(X), nd.array(Y)


def seq_data_iter_sequential(corpus, batch_size, num_steps):
    """Yield minibatches whose rows continue from one batch to the next.

    The corpus (after a random offset of 0 to ``num_steps`` tokens) is
    split into ``batch_size`` long streams, one per row; batch ``k``
    holds the ``k``-th window of ``num_steps`` tokens of every stream.
    Row ``i`` of one batch is therefore followed, in the text, by row
    ``i`` of the next batch, so the hidden state can be carried over
    (and detached) between batches.

    Parameters
    ----------
    corpus : list of int
    batch_size, num_steps : int

    Yields
    ------
    X, Y : NDArray, shape ``(batch_size, num_steps)``
        ``Y`` is ``X`` shifted by one token.
    """
    offset = numpy_rng().randint(0, num_steps + 1)
    num_tokens = ((len(corpus) - offset - 1) // batch_size) * batch_size
    Xs = nd.array(corpus[offset: offset + num_tokens])
    Ys = nd.array(corpus[offset + 1: offset + 1 + num_tokens])
    Xs, Ys = Xs.reshape((batch_size, -1)), Ys.reshape((batch_size, -1))
    num_batches = Xs.shape[1] // num_steps
    for i in range(0, num_steps * num_batches, num_steps):
        yield Xs[:, i: i + num_steps], Ys[:, i: i + num_steps]


class SeqDataLoader:
    """Iterate over minibatches of the corpus, one epoch per ``iter()``.

    Parameters
    ----------
    batch_size, num_steps : int
    use_random_iter : bool
        ``seq_data_iter_random`` if True, else ``seq_data_iter_sequential``.
    max_tokens : int
        Use only the first ``max_tokens`` characters of the corpus.

    Attributes
    ----------
    corpus : list of int
    vocab : Vocab
    """

    def __init__(self, batch_size, num_steps, use_random_iter, max_tokens):
        if use_random_iter:
            self.data_iter_fn = seq_data_iter_random
        else:
            self.data_iter_fn = seq_data_iter_sequential
        self.corpus, self.vocab = load_corpus_time_machine(max_tokens)
        self.batch_size, self.num_steps = batch_size, num_steps

    def __iter__(self):
        return self.data_iter_fn(self.corpus, self.batch_size,
                                 self.num_steps)

    def __repr__(self):
        kind = 'random' if self.data_iter_fn is seq_data_iter_random \
            else 'sequential'
        return (f'SeqDataLoader({len(self.corpus)} tokens, '
                f'batch_size={self.batch_size}, '
                f'num_steps={self.num_steps}, {kind})')


def load_data_time_machine(batch_size, num_steps, use_random_iter=False,
                           max_tokens=10000):
    """Return a minibatch iterator over the corpus, and its vocabulary.

    Parameters
    ----------
    batch_size : int
        Subsequences per minibatch.
    num_steps : int
        Tokens per subsequence (time steps the network is unrolled for).
    use_random_iter : bool, optional
        Random sampling (True) or sequential partitioning (False).
    max_tokens : int, optional
        Use the first 10,000 characters, as d2l does.

    Returns
    -------
    train_iter : SeqDataLoader
    vocab : Vocab

    Examples
    --------
    >>> train_iter, vocab = d2l.load_data_time_machine(32, 35)
    >>> X, Y = next(iter(train_iter))
    >>> X.shape, len(vocab)
    ((32, 35), 28)
    """
    data_iter = SeqDataLoader(batch_size, num_steps, use_random_iter,
                              max_tokens)
    return data_iter, data_iter.vocab


# -- models -----------------------------------------------------------------

class RNNModelScratch:
    """A recurrent network whose parameters you create and update yourself.

    Parameters
    ----------
    vocab_size, num_hiddens : int
    device : Context
        Where the parameters live.
    get_params : callable
        ``get_params(vocab_size, num_hiddens, device)`` returns the list
        of parameter NDArrays, with gradients attached.
    init_state : callable
        ``init_state(batch_size, num_hiddens, device)`` returns the
        initial hidden state, a tuple of NDArrays.
    forward_fn : callable
        ``forward_fn(inputs, state, params)`` returns ``(outputs,
        state)``; ``inputs`` has shape ``(num_steps, batch_size,
        vocab_size)`` (one-hot, time major) and ``outputs`` shape
        ``(num_steps * batch_size, vocab_size)``.
    """

    def __init__(self, vocab_size, num_hiddens, device, get_params,
                 init_state, forward_fn):
        self.vocab_size, self.num_hiddens = vocab_size, num_hiddens
        self.params = get_params(vocab_size, num_hiddens, device)
        self.init_state, self.forward_fn = init_state, forward_fn

    def __call__(self, X, state):
        """Run on token indices ``X`` of shape ``(batch_size, num_steps)``.

        ``X.T`` puts time first; ``one_hot`` turns every index into a
        vector of ``vocab_size`` zeros with a single one.
        """
        X = nd.one_hot(X.T, self.vocab_size)
        return self.forward_fn(X, state, self.params)

    def begin_state(self, batch_size, ctx):
        """The initial hidden state for ``batch_size`` sequences."""
        return self.init_state(batch_size, self.num_hiddens, ctx)

    def __repr__(self):
        name = getattr(self.forward_fn, '__name__', 'forward_fn')
        return (f'RNNModelScratch({name}, vocab_size={self.vocab_size}, '
                f'num_hiddens={self.num_hiddens})')


class RNNModel(gluon.Block):
    """A Gluon recurrent layer followed by a ``Dense`` output layer.

    Parameters
    ----------
    rnn_layer : gluon.rnn.RNN, LSTM or GRU
        Time-major (``layout='TNC'``, the default).
    vocab_size : int

    Examples
    --------
    >>> net = d2l.RNNModel(rnn.LSTM(256), len(vocab))
    >>> net.initialize()
    >>> state = net.begin_state(batch_size=32)
    >>> Y, state = net(X, state)        # Y: (num_steps * 32, len(vocab))
    """

    def __init__(self, rnn_layer, vocab_size, **kwargs):
        super().__init__(**kwargs)
        self.rnn = rnn_layer
        self.vocab_size = vocab_size
        self.dense = gluon.nn.Dense(vocab_size)

    def forward(self, inputs, state):
        X = nd.one_hot(inputs.T, self.vocab_size)
        Y, state = self.rnn(X, state)
        # (num_steps, batch_size, num_hiddens) -> one row per token
        output = self.dense(Y.reshape((-1, Y.shape[-1])))
        return output, state

    def begin_state(self, *args, **kwargs):
        """The layer's initial state (a list: ``[h]``, or ``[h, c]``)."""
        return self.rnn.begin_state(*args, **kwargs)


# -- prediction and training --------------------------------------------------

class PerplexityResult(namedtuple('PerplexityResult',
                                  ['perplexity', 'tokens_per_sec'])):
    """Final numbers of ``train_ch8``: a tuple with a rounded repr.

    The perplexity is shown with one decimal, as d2l prints it; the speed
    is shown in words (``'24543.6 tokens/sec'``) because it changes from
    run to run.
    """

    __slots__ = ()

    def __repr__(self):
        return (f'PerplexityResult(perplexity={self.perplexity:.1f}, '
                f"speed='{self.tokens_per_sec:.1f} tokens/sec')")


def predict_ch8(prefix, num_preds, net, vocab, device):
    """Continue ``prefix`` with ``num_preds`` characters, greedily.

    The prefix is fed in one character at a time only to *warm up* the
    hidden state (its outputs are ignored); then every prediction is the
    most likely next character, and is fed back in as the next input.

    Parameters
    ----------
    prefix : str
    num_preds : int
    net : RNNModelScratch or RNNModel
    vocab : Vocab
    device : Context

    Returns
    -------
    str
        The prefix followed by the predicted characters.
    """
    state = net.begin_state(batch_size=1, ctx=device)
    outputs = [vocab[prefix[0]]]

    def get_input():
        return nd.array([outputs[-1]], ctx=device).reshape((1, 1))

    for y in prefix[1:]:                      # warm-up period
        _, state = net(get_input(), state)
        outputs.append(vocab[y])
    for _ in range(num_preds):                # predict num_preds steps
        y, state = net(get_input(), state)
        outputs.append(int(y.argmax(axis=1).reshape((1,)).asscalar()))
    return ''.join(vocab.idx_to_token[i] for i in outputs)


def _parameter_arrays(net):
    if isinstance(net, gluon.Block):
        return [p.data() for p in net.collect_params().values()
                if p.grad_req != 'null']
    return list(net.params)


def grad_clipping(net, theta):
    """Rescale all gradients together so their joint norm is at most theta.

    With ``g`` the vector of *all* gradients of the model,

    .. math:: \\mathbf{g} \\leftarrow \\min\\left(1,
              \\frac{\\theta}{\\|\\mathbf{g}\\|}\\right) \\mathbf{g}.

    The direction of the update is kept; only a step that would be huge
    (an exploding gradient, common when backpropagating through many
    time steps) is shortened.

    Parameters
    ----------
    net : gluon.Block, or an object with a ``params`` list (scratch model)
    theta : float

    Returns
    -------
    float
        The norm before clipping (d2l returns nothing; this lets you
        watch how often clipping happens).
    """
    params = _parameter_arrays(net)
    norm = math.sqrt(sum(float((p.grad ** 2).sum().asscalar())
                         for p in params))
    if norm > theta:
        for p in params:
            p.grad[:] *= theta / norm
    return norm


def train_epoch_ch8(net, train_iter, loss, updater, device,
                    use_random_iter):
    """Train for one epoch; return ``(perplexity, tokens per second)``.

    With sequential batches the hidden state is carried over from one
    batch to the next, but *detached*: the new batch then starts a new
    computational graph instead of backpropagating into the previous
    (already freed) one. With random batches the state is reset.
    """
    state, timer = None, Timer()
    metric = Accumulator(2)         # sum of losses, number of tokens
    for X, Y in train_iter:
        if state is None or use_random_iter:
            state = net.begin_state(batch_size=X.shape[0], ctx=device)
        else:
            state = [s.detach() for s in state]
        y = Y.T.reshape((-1,))      # time major, as the outputs
        X, y = X.as_in_context(device), y.as_in_context(device)
        with autograd.record():
            y_hat, state = net(X, state)
            l = loss(y_hat, y).mean()
        l.backward()
        grad_clipping(net, 1)
        updater(batch_size=1)       # the loss is already a mean
        metric.add(float(l.asscalar()) * y.size, y.size)
    return math.exp(metric[0] / metric[1]), metric[1] / timer.stop()


def train_ch8(net, train_iter, vocab, lr, num_epochs, device,
              use_random_iter=False):
    """Train a character-level language model, as d2l does.

    A Gluon model is (re)initialized with ``init.Normal(0.01)`` and
    trained with ``Trainer('sgd')``; a scratch model is updated with
    ``sgd(net.params, lr, 1)``. Gradients are clipped to norm 1. The
    perplexity is drawn on a live plot (``dlbook.widgets.Animator``) at
    about 50 points over the run (every 10 epochs for d2l's 500), then
    one line is printed, as in d2l,
    ``perplexity 1.1, 24543.6 tokens/sec on cpu(0)``, followed by the
    model's continuations of ``'time traveller'`` and ``'traveller'``.

    Parameters
    ----------
    net : RNNModelScratch or RNNModel
    train_iter : SeqDataLoader
    vocab : Vocab
    lr : float
    num_epochs : int
    device : Context
    use_random_iter : bool, optional

    Returns
    -------
    PerplexityResult
        ``(perplexity, tokens_per_sec)`` of the last epoch (d2l returns
        nothing).
    """
    loss = gluon.loss.SoftmaxCrossEntropyLoss()
    every = max(1, num_epochs // 50)
    # matplotlib warns about an empty x range such as [1, 1]
    xlim = [every, num_epochs] if num_epochs > every else None
    animator = Animator(xlabel='epoch', ylabel='perplexity',
                        legend=['train'], xlim=xlim)
    if isinstance(net, gluon.Block):
        net.initialize(ctx=device, force_reinit=True, init=init.Normal(0.01))
        trainer = gluon.Trainer(net.collect_params(), 'sgd',
                                {'learning_rate': lr})

        def updater(batch_size):
            trainer.step(batch_size)
    else:
        def updater(batch_size):
            sgd(net.params, lr, batch_size)

    def predict(prefix):
        return predict_ch8(prefix, 50, net, vocab, device)

    ppl, speed = float('nan'), 0.0
    for epoch in range(num_epochs):
        ppl, speed = train_epoch_ch8(net, train_iter, loss, updater, device,
                                     use_random_iter)
        if (epoch + 1) % every == 0:
            animator.add(epoch + 1, [ppl])
    animator.finish()
    print(f'perplexity {ppl:.1f}, {speed:.1f} tokens/sec on {device}')
    print(predict('time traveller'))
    print(predict('traveller'))
    return PerplexityResult(ppl, speed)
