"""contrib.text misuse: each test names the user's mistake and the exact
message.  MXNet 1.9.1 fails an ``assert`` in each case, so dlbook raises
``UsageError``: a ``DLBookError`` that is also an ``AssertionError``."""

import collections
import re

import pytest

from dlbook import nd
from dlbook.base import UsageError
from dlbook.contrib import text


def _raises(message, fn, *args, **kwargs):
    with pytest.raises(UsageError, match=f'^{re.escape(message)}$') as info:
        fn(*args, **kwargs)
    assert isinstance(info.value, AssertionError)


def _counter():
    return collections.Counter(['a', 'b', 'a'])


def test_vocabulary_with_min_freq_zero():
    # MXNet 1.9.1: AssertionError "`min_freq` must be set to a positive
    # value."
    _raises(
        '`min_freq` must be set to a positive value, got 0: tokens '
        'seen fewer than min_freq times are left out.',
        text.vocab.Vocabulary,
        _counter(),
        min_freq=0,
    )


def test_vocabulary_reserving_the_unknown_token():
    _raises(
        "`reserved_token` cannot contain `unknown_token` ('<unk>'): it "
        'always gets index 0; remove it from reserved_tokens.',
        text.vocab.Vocabulary,
        _counter(),
        reserved_tokens=['<unk>'],
    )


def test_vocabulary_with_duplicate_reserved_tokens():
    _raises(
        "`reserved_tokens` cannot contain duplicate reserved tokens: "
        "['<pad>'] appear more than once.",
        text.vocab.Vocabulary,
        _counter(),
        reserved_tokens=['<pad>', '<pad>'],
    )


def test_vocabulary_from_a_dict_instead_of_a_counter():
    _raises(
        '`counter` must be an instance of collections.Counter, got '
        'dict; build one with collections.Counter(tokens) or '
        'text.utils.count_tokens_from_str(text).',
        text.vocab.Vocabulary,
        {'a': 2},
    )


def _write(tmp_path, content):
    path = tmp_path / 'vectors.txt'
    path.write_text(content)
    return str(path)


def test_embedding_file_with_a_token_without_values(tmp_path):
    # MXNet 1.9.1: AssertionError "At line 2 of the pre-trained text
    # embedding file: the data format ... is unexpected."
    path = _write(tmp_path, 'a 1 2\nb\n')
    _raises(
        f'At line 2 of the pre-trained text embedding file: the data '
        f'format of the pre-trained token embedding file {path} is '
        f"unexpected: expected a token and its values separated by ' ', "
        f"got 'b'.",
        text.embedding.CustomEmbedding,
        path,
    )


def test_embedding_file_with_vectors_of_two_lengths(tmp_path):
    path = _write(tmp_path, 'a 1 2\nb 1 2 3\n')
    _raises(
        'At line 2 of the pre-trained token embedding file: the '
        'dimension of token b is 3 but the dimension of previous tokens '
        'is 2. Dimensions of all the tokens must be the same.',
        text.embedding.CustomEmbedding,
        path,
    )


@pytest.fixture
def embedding(tmp_path):
    return text.embedding.CustomEmbedding(_write(tmp_path, 'a 1 2\nb 3 4\n'))


def test_update_one_token_with_a_3d_array(embedding):
    _raises(
        '`new_vectors` must be a 1-D or 2-D NDArray if `tokens` is a '
        'singleton, got an NDArray of shape (1, 1, 2).',
        embedding.update_token_vectors,
        'a',
        nd.ones((1, 1, 2)),
    )


def test_update_one_token_with_a_list(embedding):
    _raises(
        '`new_vectors` must be a 1-D or 2-D NDArray if `tokens` is a '
        'singleton, got a list.',
        embedding.update_token_vectors,
        'a',
        [1, 2],
    )


def test_update_two_tokens_with_a_1d_array(embedding):
    _raises(
        '`new_vectors` must be a 2-D NDArray if `tokens` is a list of '
        'multiple strings, got an NDArray of shape (4,).',
        embedding.update_token_vectors,
        ['a', 'b'],
        nd.ones((4,)),
    )


def test_update_two_tokens_with_vectors_of_the_wrong_width(embedding):
    _raises(
        'The length of new_vectors must be equal to the number of '
        'tokens and the width of new_vectors must be equal to the '
        'dimension of embeddings of the glossary: expected shape (2, 2) '
        'for 2 token(s), got (2, 3).',
        embedding.update_token_vectors,
        ['a', 'b'],
        nd.ones((2, 3)),
    )


def test_embedding_with_a_dict_as_vocabulary(tmp_path):
    path = _write(tmp_path, 'a 1 2\n')
    _raises(
        'The argument `vocabulary` must be an instance of '
        'mxnet.contrib.text.vocab.Vocabulary, got dict.',
        text.embedding.CustomEmbedding,
        path,
        vocabulary={'a': 1},
    )


def test_composite_embedding_of_something_else(embedding):
    vocab = text.vocab.Vocabulary(_counter())
    _raises(
        'The argument `vocabulary` must be an instance of '
        'mxnet.contrib.text.vocab.Vocabulary, got dict.',
        text.embedding.CompositeEmbedding,
        {'a': 1},
        embedding,
    )
    _raises(
        'The argument `token_embeddings` must be an instance or a list '
        'of instances of token embeddings, got int.',
        text.embedding.CompositeEmbedding,
        vocab,
        [embedding, 3],
    )
