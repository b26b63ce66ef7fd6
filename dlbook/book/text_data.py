"""Text as data (chapter 10, d2l chapter 8): a corpus, tokens, a
vocabulary and minibatches of sequences.

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

The models trained on it are in ``rnn.py``; ``notebooks/ch10_rnn.ipynb``
teaches each of them.
"""
import collections
import re
from importlib import resources
from pathlib import Path

from .. import nd
from ..random import numpy_rng

CORPUS_FILE = 'time_traveller.txt'

__all__ = ['CORPUS_FILE', 'corpus_path', 'read_time_machine', 'tokenize',
           'count_corpus', 'Vocab', 'load_corpus_time_machine',
           'seq_data_iter_random', 'seq_data_iter_sequential',
           'SeqDataLoader', 'load_data_time_machine']


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
