"""``mx.contrib.text``: vocabularies and embeddings as in MXNet 1.9.1.
Expected values were recorded from MXNet 1.9.1 on the same inputs; the
embedding files are small ones the tests write (never the network)."""

import collections
import os
import warnings

import numpy as np
import pytest

import dlbook as mx
from dlbook.contrib import text
from dlbook.contrib.text import _pretrained


def test_count_tokens_from_str():
    # MXNet 1.9.1: Counter({'life': 2, 'is': 2, 'great': 1, '!': 1,
    # 'good': 1, '.': 1}) and Counter({'b': 2, 'a': 1, 'c': 1})
    c = text.utils.count_tokens_from_str(
        ' Life is great ! \n life is good . \n', ' ', '\n', True
    )
    assert c == collections.Counter(
        {'life': 2, 'is': 2, 'great': 1, '!': 1, 'good': 1, '.': 1}
    )
    assert text.utils.count_tokens_from_str('a b\nb c') == collections.Counter(
        {'b': 2, 'a': 1, 'c': 1}
    )
    counter = collections.Counter(['a'])
    assert (
        text.utils.count_tokens_from_str('a b', counter_to_update=counter)
        is counter
        and counter['a'] == 2
    )


COUNTER = collections.Counter(['a', 'b', 'b', 'c', 'c', 'c', 'd', 'd', 'e'])


def test_vocabulary():
    v = text.vocab.Vocabulary(
        COUNTER,
        most_freq_count=3,
        min_freq=1,
        unknown_token='<unk>',
        reserved_tokens=['<pad>'],
    )
    # MXNet 1.9.1 gives exactly these
    assert v.idx_to_token == ['<unk>', '<pad>', 'c', 'b', 'd']
    assert v.token_to_idx == {'<unk>': 0, '<pad>': 1, 'c': 2, 'b': 3, 'd': 4}
    assert len(v) == 5
    assert v.to_indices(['c', 'zz', 'a']) == [2, 0, 0]
    assert v.to_indices('b') == 3
    assert v.to_tokens([0, 2]) == ['<unk>', 'c'] and v.to_tokens(1) == '<pad>'
    assert v.unknown_token == '<unk>' and v.reserved_tokens == ['<pad>']
    assert text.vocab.Vocabulary(COUNTER, min_freq=2).idx_to_token == [
        '<unk>',
        'c',
        'b',
        'd',
    ]
    with pytest.raises(
        ValueError, match='Token index 9 in the provided `indices` is invalid.'
    ):
        v.to_tokens(9)
    with pytest.raises(AssertionError):
        text.vocab.Vocabulary(COUNTER, reserved_tokens=['<unk>'])


@pytest.fixture
def files(tmp_path):
    a = tmp_path / 'my.txt'
    a.write_text(
        'hello 0.1 0.2 0.3\nworld 0.4 0.5 0.6\n<unk> 9 9 9\nhello 1 1 1\n'
    )
    b = tmp_path / 'b.txt'
    b.write_text('world,1,2\nfoo,3,4\n')
    return str(a), str(b)


def test_custom_embedding(files):
    with pytest.warns(
        UserWarning, match='At line 4 of the pre-trained token embedding file'
    ):
        e = text.embedding.CustomEmbedding(files[0], elem_delim=' ')
    # MXNet 1.9.1: ['<unk>', 'hello', 'world'], vec_len 3, the file's <unk>
    # vector in row 0
    assert e.idx_to_token == ['<unk>', 'hello', 'world'] and e.vec_len == 3
    np.testing.assert_allclose(
        e.idx_to_vec.asnumpy(),
        [[9, 9, 9], [0.1, 0.2, 0.3], [0.4, 0.5, 0.6]],
        rtol=1e-6,
    )
    np.testing.assert_allclose(
        e.get_vecs_by_tokens('world').asnumpy(), [0.4, 0.5, 0.6], rtol=1e-6
    )
    np.testing.assert_allclose(
        e.get_vecs_by_tokens(
            ['World', 'nope'], lower_case_backup=True
        ).asnumpy(),
        [[0.4, 0.5, 0.6], [9, 9, 9]],
        rtol=1e-6,
    )
    e.update_token_vectors('hello', mx.nd.array([7, 7, 7]))
    assert e.get_vecs_by_tokens('hello').asnumpy().tolist() == [7, 7, 7]
    e.update_token_vectors(['hello', 'world'], mx.nd.ones((2, 3)))
    assert e.get_vecs_by_tokens('world').asnumpy().tolist() == [1, 1, 1]
    with pytest.raises(
        ValueError,
        match='Token nope is unknown. To update '
        'the embedding vector for an '
        'unknown token',
    ):
        e.update_token_vectors('nope', mx.nd.array([7, 7, 7]))
    assert isinstance(e, text.embedding.TokenEmbedding)
    assert isinstance(e, text.vocab.Vocabulary)


def test_header_line_is_skipped(tmp_path):
    path = tmp_path / 'c.txt'
    path.write_text('3 2\nx 1 2\n')
    # MXNet 1.9.1: "At line 1 ... token 3 with 1-dimensional vector [2.0]
    # is likely a header and is skipped."; tokens ['<unk>', 'x']
    with pytest.warns(
        UserWarning,
        match=r'token 3 with 1-dimensional vector '
        r'\[2\.0\] is likely a header',
    ):
        e = text.embedding.CustomEmbedding(str(path))
    assert e.idx_to_token == ['<unk>', 'x']
    assert e.idx_to_vec[0].asnumpy().tolist() == [0, 0]


def test_composite_and_vocabulary_embeddings(files):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        e = text.embedding.CustomEmbedding(files[0])
    e.update_token_vectors('hello', mx.nd.array([7, 7, 7]))
    e2 = text.embedding.CustomEmbedding(files[1], elem_delim=',')
    voc = text.vocab.Vocabulary(
        collections.Counter(['world', 'hello', 'hello', 'bar'])
    )
    assert voc.idx_to_token == ['<unk>', 'hello', 'bar', 'world']
    ce = text.embedding.CompositeEmbedding(voc, [e, e2])
    # MXNet 1.9.1 gives these rows
    assert ce.idx_to_token == ['<unk>', 'hello', 'bar', 'world']
    assert ce.vec_len == 5
    np.testing.assert_allclose(
        ce.idx_to_vec.asnumpy(),
        [
            [9, 9, 9, 0, 0],
            [7, 7, 7, 0, 0],
            [9, 9, 9, 0, 0],
            [0.4, 0.5, 0.6, 1, 2],
        ],
        rtol=1e-6,
    )
    e3 = text.embedding.CustomEmbedding(
        files[1], elem_delim=',', vocabulary=voc
    )
    assert e3.idx_to_token == ['<unk>', 'hello', 'bar', 'world']
    assert e3.idx_to_vec.asnumpy().tolist() == [[0, 0], [0, 0], [0, 0], [1, 2]]


def test_registry():
    # MXNet 1.9.1: names ['fasttext', 'glove']; glove's ten files
    names = text.embedding.get_pretrained_file_names()
    assert {'fasttext', 'glove'} <= set(names)
    assert text.embedding.get_pretrained_file_names('glove') == [
        'glove.42B.300d.txt',
        'glove.6B.50d.txt',
        'glove.6B.100d.txt',
        'glove.6B.200d.txt',
        'glove.6B.300d.txt',
        'glove.840B.300d.txt',
        'glove.twitter.27B.25d.txt',
        'glove.twitter.27B.50d.txt',
        'glove.twitter.27B.100d.txt',
        'glove.twitter.27B.200d.txt',
    ]
    assert 'wiki.simple.vec' in names['fasttext']
    with pytest.raises(KeyError, match='Cannot find `embedding_name` nope'):
        text.embedding.get_pretrained_file_names('nope')
    with pytest.raises(
        KeyError,
        match='Cannot find pretrained file nope.txt for token embedding glove',
    ):
        text.embedding.create('glove', pretrained_file_name='nope.txt')

    @text.embedding.register
    class MyEmbed(text.embedding.TokenEmbedding):
        def __init__(self, size=2):
            super().__init__()
            self.size = size

    made = text.embedding.create('MyEmbed', size=4)
    assert isinstance(made, MyEmbed) and made.size == 4


GLOVE_LINES = 'the 0.1 0.2\nking 0.3 0.4\n'


@pytest.fixture
def offline(monkeypatch, tmp_path):
    """No network: a download attempt fails, and is recorded."""
    attempts = []

    def no_network(url, path, sha1):
        attempts.append(url)
        raise OSError('network disabled in tests')

    monkeypatch.setattr(_pretrained, '_download', no_network)
    monkeypatch.setenv('DLBOOK_HOME', str(tmp_path / 'home'))
    monkeypatch.setenv('MXNET_HOME', str(tmp_path / 'mxhome'))
    monkeypatch.delenv('DLBOOK_DATA', raising=False)
    return attempts


def test_glove_from_embedding_root(tmp_path, offline):
    root = tmp_path / 'emb'
    (root / 'glove').mkdir(parents=True)
    (root / 'glove' / 'glove.6B.50d.txt').write_text(GLOVE_LINES)
    with pytest.warns(UserWarning, match='does not match the SHA-1'):
        g = text.embedding.create(
            'glove',
            pretrained_file_name='glove.6B.50d.txt',
            embedding_root=str(root),
        )
    assert g.idx_to_token == ['<unk>', 'the', 'king'] and offline == []
    np.testing.assert_allclose(
        g.get_vecs_by_tokens('king').asnumpy(), [0.3, 0.4], rtol=1e-6
    )
    with pytest.warns(UserWarning):
        g2 = text.embedding.GloVe('glove.6B.50d.txt', root=str(root / 'glove'))
    assert len(g2) == 3


def test_fasttext_from_dlbook_data(tmp_path, offline, monkeypatch):
    data = tmp_path / 'data'
    (data / 'embeddings' / 'fasttext').mkdir(parents=True)
    (data / 'embeddings' / 'fasttext' / 'wiki.simple.vec').write_text(
        '2 2\nthe 1 2\nking 3 4\n'
    )
    monkeypatch.setenv('DLBOOK_DATA', str(data))
    with pytest.warns(UserWarning):
        f = text.embedding.FastText()
    assert f.idx_to_token == ['<unk>', 'the', 'king'] and offline == []


def test_download_extracts_checked_archive(tmp_path, offline, monkeypatch):
    import zipfile

    archive = tmp_path / 'src.zip'
    with zipfile.ZipFile(archive, 'w') as zf:
        zf.writestr('glove.6B.50d.txt', GLOVE_LINES)
        zf.writestr('glove.6B.100d.txt', 'x 1 2\n')

    def fake_download(url, path, sha1):  # stands in for the network
        offline.append(url)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(archive, 'rb') as src, open(path, 'wb') as dst:
            dst.write(src.read())
        return path

    monkeypatch.setattr(_pretrained, '_download', fake_download)
    # the archive's SHA-1 is checked by the download itself
    g = text.embedding.GloVe('glove.6B.50d.txt')
    assert g.idx_to_token == ['<unk>', 'the', 'king']
    # MXNet's URL layout: <repo>gluon/embeddings/glove/glove.6B.zip
    assert offline == [
        'https://apache-mxnet.s3-accelerate.dualstack.'
        'amazonaws.com/gluon/embeddings/glove/glove.6B.zip'
    ]
    cached = tmp_path / 'home' / 'embeddings' / 'glove' / 'glove.6B.50d.txt'
    assert cached.read_text() == GLOVE_LINES


def test_offline_error_lists_places(tmp_path, offline):
    root = tmp_path / 'emb'
    with pytest.raises(mx.base.MXNetError) as info:
        text.embedding.GloVe('glove.6B.50d.txt', embedding_root=str(root))
    msg = str(info.value)
    assert 'cannot find the pre-trained glove file glove.6B.50d.txt' in msg
    assert str(root / 'glove') in msg
    assert str(tmp_path / 'home' / 'embeddings' / 'glove') in msg
    assert 'network disabled in tests' in msg
    assert 'DLBOOK_DATA' in msg
    assert len(offline) == 1
