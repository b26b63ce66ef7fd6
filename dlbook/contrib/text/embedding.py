"""Word embeddings (``mx.contrib.text.embedding``).

An embedding is a :class:`~.vocab.Vocabulary` whose tokens also have
vectors, ``idx_to_vec`` (an NDArray of shape ``(len(self), vec_len)``; row
0 is the unknown token's).  ``GloVe`` and ``FastText`` load published
vectors (see ``_pretrained`` for where files are found), ``CustomEmbedding``
a local text file of ``token v1 v2 ...`` lines, and ``CompositeEmbedding``
concatenates several embeddings over one vocabulary.  ``create('glove',
pretrained_file_name=...)`` builds one by name.

Example (d2l, chapter "word embeddings")::

    glove = text.embedding.create('glove',
                                  pretrained_file_name='glove.6B.50d.txt')
    glove.get_vecs_by_tokens(['king', 'queen'])
"""

import logging
import os
import warnings

from ... import ndarray as nd
from ... import registry
from ...base import UsageError
from . import _pretrained, vocab
from .vocab import UNKNOWN_IDX

__all__ = [
    'register',
    'create',
    'get_pretrained_file_names',
    'TokenEmbedding',
    'GloVe',
    'FastText',
    'CustomEmbedding',
    'CompositeEmbedding',
]


def _describe(value):
    """``'an NDArray of shape (3,)'`` or ``'a list'`` for messages."""
    if isinstance(value, nd.NDArray):
        return f'an NDArray of shape {value.shape}'
    return f'a {type(value).__name__}'


class TokenEmbedding(vocab.Vocabulary):
    """Base class of token embeddings (MXNet's ``_TokenEmbedding``).

    Attributes
    ----------
    idx_to_vec : NDArray
        ``(len(self), vec_len)``: the vector of each indexed token.
    vec_len : int
        The length of each vector.
    """

    #: pre-trained file name -> SHA-1, for the registered subclasses
    pretrained_file_name_sha1 = {}

    def __init__(self, **kwargs):
        super().__init__(**kwargs)

    @classmethod
    def _archive_name(cls, pretrained_file_name):
        return pretrained_file_name

    @classmethod
    def _get_pretrained_file(cls, embedding_root, pretrained_file_name):
        archive = cls._archive_name(pretrained_file_name)
        return _pretrained.find_or_download(
            cls.__name__.lower(),
            pretrained_file_name,
            cls.pretrained_file_name_sha1[pretrained_file_name],
            archive,
            cls.pretrained_archive_name_sha1[archive],
            root=embedding_root,
        )

    @classmethod
    def _check_pretrained_file_names(cls, pretrained_file_name):
        name = cls.__name__.lower()
        if pretrained_file_name not in cls.pretrained_file_name_sha1:
            raise KeyError(
                f'Cannot find pretrained file {pretrained_file_name} for '
                f'token embedding {name}. Valid pretrained files for '
                f'embedding {name}: '
                f'{", ".join(cls.pretrained_file_name_sha1)}'
            )

    def _load_embedding(
        self,
        pretrained_file_path,
        elem_delim,
        init_unknown_vec,
        encoding='utf8',
    ):
        """Read ``token v1 v2 ...`` lines; the first vector of a token
        wins; a line with one number is taken for a header and skipped;
        the unknown token's vector is the file's, else
        ``init_unknown_vec``'s."""
        path = os.path.expanduser(pretrained_file_path)
        if not os.path.isfile(path):
            raise ValueError(
                '`pretrained_file_path` must be a valid path to '
                'the pre-trained token embedding file.'
            )
        logging.info(
            'Loading pre-trained token embedding vectors from %s', path
        )
        vec_len, rows, seen, unknown_vec = None, [], set(), None
        with open(path, 'r', encoding=encoding) as f:
            for line_num, line in enumerate(f, 1):
                elems = line.rstrip().split(elem_delim)
                if len(elems) <= 1:
                    raise UsageError(
                        f'At line {line_num} of the pre-trained text '
                        f'embedding file: the data format of the pre-trained '
                        f'token embedding file {path} is unexpected: '
                        f'expected a token and its values separated by '
                        f'{elem_delim!r}, got {line.rstrip()[:40]!r}.'
                    )
                token, values = elems[0], [float(i) for i in elems[1:]]
                if token == self.unknown_token and unknown_vec is None:
                    unknown_vec = values
                    seen.add(token)
                elif token in seen:
                    warnings.warn(
                        f'At line {line_num} of the pre-trained token '
                        f'embedding file: the embedding vector for token '
                        f'{token} has been loaded and a duplicate embedding '
                        f'for the  same token is seen and skipped.'
                    )
                elif len(values) == 1:
                    warnings.warn(
                        f'At line {line_num} of the pre-trained text '
                        f'embedding file: token {token} with 1-dimensional '
                        f'vector {values} is likely a header and is skipped.'
                    )
                else:
                    if vec_len is None:
                        vec_len = len(values)
                    if len(values) != vec_len:
                        raise UsageError(
                            f'At line {line_num} of the pre-trained token '
                            f'embedding file: the dimension of token {token} is '
                            f'{len(values)} but the dimension of previous tokens '
                            f'is {vec_len}. Dimensions of all the tokens must be '
                            f'the same.'
                        )
                    rows.append(values)
                    self._idx_to_token.append(token)
                    self._token_to_idx[token] = len(self._idx_to_token) - 1
                    seen.add(token)
        self._vec_len = vec_len
        self._idx_to_vec = nd.array([[0.0] * vec_len] + rows)
        if unknown_vec is None:
            self._idx_to_vec[UNKNOWN_IDX] = init_unknown_vec(shape=vec_len)
        else:
            self._idx_to_vec[UNKNOWN_IDX] = nd.array(unknown_vec)

    def _index_tokens_from_vocabulary(self, vocabulary):
        self._token_to_idx = dict(vocabulary.token_to_idx)
        self._idx_to_token = vocabulary.idx_to_token[:]
        self._unknown_token = vocabulary.unknown_token
        self._reserved_tokens = (
            None
            if vocabulary.reserved_tokens is None
            else vocabulary.reserved_tokens[:]
        )

    def _set_idx_to_vec_by_embeddings(
        self, token_embeddings, vocab_len, vocab_idx_to_token
    ):
        """Rows for the vocabulary's tokens: the embeddings' vectors side by
        side (their unknown vectors for tokens they lack)."""
        new_vec_len = sum(embed.vec_len for embed in token_embeddings)
        new_idx_to_vec = nd.zeros((vocab_len, new_vec_len))
        col = 0
        for embed in token_embeddings:
            end = col + embed.vec_len
            new_idx_to_vec[0, col:end] = embed.idx_to_vec[0]
            if vocab_len > 1:
                new_idx_to_vec[1:, col:end] = embed.get_vecs_by_tokens(
                    vocab_idx_to_token[1:]
                )
            col = end
        self._vec_len = new_vec_len
        self._idx_to_vec = new_idx_to_vec

    def _build_embedding_for_vocabulary(self, vocabulary):
        if vocabulary is not None:
            if not isinstance(vocabulary, vocab.Vocabulary):
                raise UsageError(
                    f'The argument `vocabulary` must be an instance of '
                    f'mxnet.contrib.text.vocab.Vocabulary, got '
                    f'{type(vocabulary).__name__}.'
                )
            self._set_idx_to_vec_by_embeddings(
                [self], len(vocabulary), vocabulary.idx_to_token
            )
            self._index_tokens_from_vocabulary(vocabulary)

    @property
    def vec_len(self):
        """The length of each embedding vector."""
        return self._vec_len

    @property
    def idx_to_vec(self):
        """NDArray ``(len(self), vec_len)`` of the tokens' vectors."""
        return self._idx_to_vec

    def get_vecs_by_tokens(self, tokens, lower_case_backup=False):
        """The vector of a token (1-d) or vectors of a list of tokens
        (2-d); unknown tokens get row 0.  With ``lower_case_backup`` a
        token not found is looked up again in lower case."""
        single = not isinstance(tokens, list)
        tokens = [tokens] if single else tokens
        if lower_case_backup:
            indices = [
                self.token_to_idx[t]
                if t in self.token_to_idx
                else self.token_to_idx.get(t.lower(), UNKNOWN_IDX)
                for t in tokens
            ]
        else:
            indices = [self.token_to_idx.get(t, UNKNOWN_IDX) for t in tokens]
        vecs = nd.Embedding(
            nd.array(indices),
            self.idx_to_vec,
            input_dim=self.idx_to_vec.shape[0],
            output_dim=self.idx_to_vec.shape[1],
        )
        return vecs[0] if single else vecs

    def update_token_vectors(self, tokens, new_vectors):
        """Replace the vectors of known ``tokens`` with ``new_vectors``
        (``(len(tokens), vec_len)``, or 1-d for one token); ValueError for
        an unknown token."""
        if self.idx_to_vec is None:
            raise UsageError(
                'The property `idx_to_vec` has not been '
                'properly set: load or build the embedding '
                'before update_token_vectors().'
            )
        if not isinstance(tokens, list) or len(tokens) == 1:
            if not (
                isinstance(new_vectors, nd.NDArray)
                and len(new_vectors.shape) in [1, 2]
            ):
                raise UsageError(
                    f'`new_vectors` must be a 1-D or 2-D NDArray if '
                    f'`tokens` is a singleton, got '
                    f'{_describe(new_vectors)}.'
                )
            if not isinstance(tokens, list):
                tokens = [tokens]
            if len(new_vectors.shape) == 1:
                new_vectors = nd.expand_dims(new_vectors, axis=0)
        else:
            if not (
                isinstance(new_vectors, nd.NDArray)
                and len(new_vectors.shape) == 2
            ):
                raise UsageError(
                    f'`new_vectors` must be a 2-D NDArray if `tokens` is a '
                    f'list of multiple strings, got '
                    f'{_describe(new_vectors)}.'
                )
        if new_vectors.shape != (len(tokens), self.vec_len):
            raise UsageError(
                f'The length of new_vectors must be equal to the number of '
                f'tokens and the width of new_vectors must be equal to the '
                f'dimension of embeddings of the glossary: expected shape '
                f'{(len(tokens), self.vec_len)} for {len(tokens)} token(s), '
                f'got {new_vectors.shape}.'
            )
        indices = []
        for token in tokens:
            if token not in self.token_to_idx:
                raise ValueError(
                    f'Token {token} is unknown. To update the embedding '
                    f'vector for an unknown token, please specify it '
                    f'explicitly as the `unknown_token` '
                    f'{self.idx_to_token[UNKNOWN_IDX]} in `tokens`. This is '
                    f'to avoid unintended updates.'
                )
            indices.append(self.token_to_idx[token])
        for row, idx in enumerate(indices):
            self._idx_to_vec[idx] = new_vectors[row]


#: MXNet's private name of the base class
_TokenEmbedding = TokenEmbedding

_register = registry.get_register_func(TokenEmbedding, 'token embedding')
_create = registry.get_create_func(TokenEmbedding, 'token embedding')


def register(embedding_cls):
    """Class decorator: make ``embedding_cls`` available to
    :func:`create` under its lower-cased class name."""
    return _register(embedding_cls)


def create(embedding_name, **kwargs):
    """An embedding by (case-insensitive) name: ``create('glove',
    pretrained_file_name='glove.6B.50d.txt')``."""
    return _create(embedding_name, **kwargs)


def get_pretrained_file_names(embedding_name=None):
    """The pre-trained file names of one embedding (a list), or of all
    (a dict name -> list)."""
    table = registry.get_registry(TokenEmbedding)
    if embedding_name is not None:
        if embedding_name not in table:
            raise KeyError(
                f'Cannot find `embedding_name` {embedding_name}. Use '
                f'`get_pretrained_file_names(embedding_name=None).keys()` to '
                f'get all the valid embedding names.'
            )
        return list(table[embedding_name].pretrained_file_name_sha1)
    return {
        name: list(cls.pretrained_file_name_sha1)
        for name, cls in table.items()
    }


def _root(embedding_root, root):
    return root if root is not None else embedding_root


@register
class GloVe(TokenEmbedding):
    """GloVe vectors (Pennington, Socher and Manning, 2014;
    https://nlp.stanford.edu/projects/glove/, PDDL licence).

    Parameters
    ----------
    pretrained_file_name : str
        One of :func:`get_pretrained_file_names('glove')`,
        ``'glove.840B.300d.txt'`` by default.
    embedding_root : str, optional
        A folder holding ``glove/<file>`` (or ``<file>``), searched first;
        ``root`` is the same.  Then ``$DLBOOK_DATA/embeddings/glove`` and
        the user cache are searched before any download.
    init_unknown_vec : callable
        ``init_unknown_vec(shape=vec_len)`` gives the unknown token's
        vector (``nd.zeros``).
    vocabulary : Vocabulary, optional
        Index only these tokens (default: every token of the file).
    """

    pretrained_archive_name_sha1 = _pretrained.GLOVE_ARCHIVES
    pretrained_file_name_sha1 = _pretrained.GLOVE_FILES

    @classmethod
    def _archive_name(cls, pretrained_file_name):
        by_corpus = {
            a.split('.')[1]: a for a in cls.pretrained_archive_name_sha1
        }
        return by_corpus[pretrained_file_name.split('.')[1]]

    def __init__(
        self,
        pretrained_file_name='glove.840B.300d.txt',
        embedding_root=None,
        init_unknown_vec=nd.zeros,
        vocabulary=None,
        root=None,
        **kwargs,
    ):
        GloVe._check_pretrained_file_names(pretrained_file_name)
        super().__init__(**kwargs)
        path = GloVe._get_pretrained_file(
            _root(embedding_root, root), pretrained_file_name
        )
        self._load_embedding(path, ' ', init_unknown_vec)
        if vocabulary is not None:
            self._build_embedding_for_vocabulary(vocabulary)


@register
class FastText(TokenEmbedding):
    """fastText vectors (Bojanowski et al., 2017; https://fasttext.cc/,
    CC BY-SA 3.0).  Parameters as :class:`GloVe`'s; the default file is
    ``'wiki.simple.vec'``."""

    pretrained_archive_name_sha1 = _pretrained.FASTTEXT_ARCHIVES
    pretrained_file_name_sha1 = _pretrained.FASTTEXT_FILES

    @classmethod
    def _archive_name(cls, pretrained_file_name):
        return '.'.join(pretrained_file_name.split('.')[:-1]) + '.zip'

    def __init__(
        self,
        pretrained_file_name='wiki.simple.vec',
        embedding_root=None,
        init_unknown_vec=nd.zeros,
        vocabulary=None,
        root=None,
        **kwargs,
    ):
        FastText._check_pretrained_file_names(pretrained_file_name)
        super().__init__(**kwargs)
        path = FastText._get_pretrained_file(
            _root(embedding_root, root), pretrained_file_name
        )
        self._load_embedding(path, ' ', init_unknown_vec)
        if vocabulary is not None:
            self._build_embedding_for_vocabulary(vocabulary)


class CustomEmbedding(TokenEmbedding):
    """Vectors from a local file of lines ``token<d>v1<d>v2...``.

    Parameters
    ----------
    pretrained_file_path : str
    elem_delim : str
        The delimiter ``<d>`` (a space by default).
    encoding : str
    init_unknown_vec : callable
    vocabulary : Vocabulary, optional
    """

    def __init__(
        self,
        pretrained_file_path,
        elem_delim=' ',
        encoding='utf8',
        init_unknown_vec=nd.zeros,
        vocabulary=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self._load_embedding(
            pretrained_file_path, elem_delim, init_unknown_vec, encoding
        )
        if vocabulary is not None:
            self._build_embedding_for_vocabulary(vocabulary)


class CompositeEmbedding(TokenEmbedding):
    """One vocabulary's tokens with the vectors of several embeddings
    concatenated (``vec_len`` is their sum)."""

    def __init__(self, vocabulary, token_embeddings):
        if not isinstance(vocabulary, vocab.Vocabulary):
            raise UsageError(
                f'The argument `vocabulary` must be an instance of '
                f'mxnet.contrib.text.vocab.Vocabulary, got '
                f'{type(vocabulary).__name__}.'
            )
        if not isinstance(token_embeddings, list):
            token_embeddings = [token_embeddings]
        for embed in token_embeddings:
            if not isinstance(embed, TokenEmbedding):
                raise UsageError(
                    f'The argument `token_embeddings` must be an instance or '
                    f'a list of instances of token embeddings, got '
                    f'{type(embed).__name__}.'
                )
        self._index_tokens_from_vocabulary(vocabulary)
        self._set_idx_to_vec_by_embeddings(
            token_embeddings, len(self), self.idx_to_token
        )
