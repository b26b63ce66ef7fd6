"""gluon.utils: split_and_load, clip_global_norm, check_sha1, download."""

import hashlib
import io
import os
import urllib.error

import numpy as np
import pytest

import dlbook as mx
from dlbook import (
    _download,  # noqa: E402
    nd,
)
from dlbook.base import DLBookError
from dlbook.gluon import utils


def test_split_data_even_and_uneven():
    x = nd.array(np.arange(20).reshape(10, 2))
    parts = utils.split_data(x, 5)
    assert [p.shape for p in parts] == [(2, 2)] * 5
    np.testing.assert_array_equal(parts[1].asnumpy(), [[4, 5], [6, 7]])
    with pytest.raises(ValueError) as info:
        utils.split_data(x, 3)
    assert str(info.value) == (
        'data with shape (10, 2) cannot be evenly split into 3 slices along '
        "axis 0. Use a batch size that's multiple of 3 or set "
        'even_split=False to allow uneven partitioning of data.'
    )
    uneven = utils.split_data(x, 3, even_split=False)
    assert [p.shape[0] for p in uneven] == [3, 3, 4]
    few = utils.split_data(nd.ones((2, 3)), 4, even_split=False)
    assert [p.shape for p in few] == [(1, 3), (1, 3)]
    cols = utils.split_data(
        nd.array(np.arange(12).reshape(2, 6)), 3, batch_axis=1
    )
    assert [c.shape for c in cols] == [(2, 2)] * 3
    np.testing.assert_array_equal(cols[2].asnumpy(), [[4, 5], [10, 11]])


def test_split_and_load_to_two_cpus():
    x = nd.array(np.arange(8).reshape(4, 2))
    a, b = utils.split_and_load(x, [mx.cpu(0), mx.cpu(1)])
    assert a.context == mx.cpu(0) and b.context == mx.cpu(1)
    np.testing.assert_array_equal(b.asnumpy(), [[4, 5], [6, 7]])
    (whole,) = utils.split_and_load(np.ones((3, 2)), [mx.cpu(1)])
    assert whole.shape == (3, 2) and whole.context == mx.cpu(1)
    assert whole.dtype == np.float32


def test_clip_global_norm():
    a = nd.array([3.0, 0.0])
    b = nd.array([[4.0]])
    norm = utils.clip_global_norm([a, b], 1.0)
    assert isinstance(norm, np.float32) and norm == pytest.approx(5.0)
    np.testing.assert_allclose(a.asnumpy(), [0.6, 0.0], rtol=1e-6)
    np.testing.assert_allclose(b.asnumpy(), [[0.8]], rtol=1e-6)
    c = nd.array([0.3, 0.4])
    assert utils.clip_global_norm([c], 10.0) == pytest.approx(0.5)
    np.testing.assert_allclose(c.asnumpy(), [0.3, 0.4])
    as_nd = utils.clip_global_norm(
        [nd.array([1.0])], 1.0, check_isfinite=False
    )
    assert isinstance(as_nd, nd.NDArray)
    with (
        pytest.warns(UserWarning, match='nan or inf'),
        np.errstate(invalid='ignore'),
    ):
        utils.clip_global_norm([nd.array([np.inf])], 1.0)


class FakeResponse(io.BytesIO):
    status = 200


@pytest.fixture
def network(monkeypatch):
    served, calls = {}, []

    def urlopen(url, timeout=None, context=None):
        calls.append(url)
        if url in served:
            return FakeResponse(served[url])
        raise urllib.error.URLError('offline')

    monkeypatch.setattr(_download, '_urlopen', urlopen)
    monkeypatch.setattr(_download, '_RETRY_DELAY_S', 0)
    return served, calls


def test_check_sha1(tmp_path):
    path = tmp_path / 'f'
    path.write_bytes(b'hello')
    assert utils.check_sha1(str(path), hashlib.sha1(b'hello').hexdigest())
    assert not utils.check_sha1(str(path), '0' * 40)


def test_download(tmp_path, network):
    served, calls = network
    url = 'https://example.com/files/weights.params'
    served[url] = b'payload'
    sha1 = hashlib.sha1(b'payload').hexdigest()
    fname = utils.download(url, path=str(tmp_path), sha1_hash=sha1)
    assert fname == str(tmp_path / 'weights.params')
    with open(fname, 'rb') as f:
        assert f.read() == b'payload'
    utils.download(url, path=str(tmp_path), sha1_hash=sha1)
    assert len(calls) == 1  # good copy: not fetched
    utils.download(url, path=str(tmp_path), overwrite=True)
    assert len(calls) == 2
    other = utils.download(url, path=str(tmp_path / 'sub' / 'w.bin'))
    assert other.endswith('w.bin') and os.path.isfile(other)


def test_download_rejects_bad_hash_and_retries(tmp_path, network):
    served, calls = network
    url = 'https://example.com/x.bin'
    served[url] = b'tampered'
    with pytest.raises(DLBookError, match='hash does not match'):
        utils.download(url, path=str(tmp_path), sha1_hash='0' * 40, retries=2)
    assert len(calls) == 3
    assert os.listdir(tmp_path) == []  # nothing half written
    with pytest.raises(DLBookError, match='offline'):
        utils.download(
            'https://example.com/missing.bin', path=str(tmp_path), retries=0
        )
    with pytest.raises(ValueError, match='retries'):
        utils.download(url, path=str(tmp_path), retries=-1)
