"""File misuse: saving into a missing folder, leftovers of killed saves,
and readers that name the file they refuse."""

import os
import re
import subprocess
import sys

import numpy as np
import pytest

from dlbook import nd
from dlbook._imaging.imread import imread
from dlbook.base import DLBookError
from dlbook.gluon.data.vision import ImageFolderDataset


def test_save_into_a_missing_folder_names_the_given_path(tmp_path):
    # Without the check the error named the hidden temporary file.
    target = str(tmp_path / 'no_such_dir' / 'w.params')
    with pytest.raises(
        FileNotFoundError,
        match=re.escape(
            f"cannot save {target!r}: the folder "
            f"{str(tmp_path / 'no_such_dir')!r} does not exist (create it "
            f"first, e.g. with os.makedirs)"
        ),
    ):
        nd.save(target, [nd.ones((2,))])
    assert not os.path.exists(tmp_path / 'no_such_dir')


def _dead_pid():
    proc = subprocess.Popen([sys.executable, '-c', 'pass'])
    proc.wait()
    return proc.pid


@pytest.mark.skipif(os.name == 'nt', reason='POSIX process probe')
def test_next_save_removes_the_leftover_of_a_killed_save(tmp_path):
    target = tmp_path / 'w.params'
    stale = tmp_path / f'.w.params.{_dead_pid()}.abc123.part'
    alive = tmp_path / f'.w.params.{os.getppid()}.def456.part'
    other = tmp_path / f'.x.params.{_dead_pid()}.abc123.part'
    for path in (stale, alive, other):
        path.write_bytes(b'half a file')
    nd.save(str(target), [nd.ones((2,))])
    assert not stale.exists()  # its writer is gone
    assert alive.exists()  # a running process may be writing
    assert other.exists()  # another target's file
    np.testing.assert_array_equal(nd.load(str(target))[0].asnumpy(), [1, 1])


def test_object_npy_image_names_the_file(tmp_path):
    path = str(tmp_path / 'cat.npy')
    np.save(path, np.array([{'a': 1}], dtype=object), allow_pickle=True)
    with pytest.raises(
        DLBookError,
        match=re.escape(
            f'cannot read image {path}: it holds Python objects (dlbook '
            f'never unpickles files); save a uint8 array'
        ),
    ):
        imread(path)


def test_image_folder_with_an_object_npy_names_the_file(tmp_path):
    (tmp_path / 'cat').mkdir()
    path = str(tmp_path / 'cat' / 'bad.npy')
    np.save(path, np.array([None], dtype=object), allow_pickle=True)
    dataset = ImageFolderDataset(str(tmp_path))
    with pytest.raises(
        DLBookError,
        match=re.escape(f'cannot read image {path}: it holds Python objects'),
    ):
        dataset[0]


def test_npy_image_whose_header_promises_more_data(tmp_path):
    path = str(tmp_path / 'big.npy')
    np.save(path, np.zeros((2, 2, 3), np.uint8))
    data = open(path, 'rb').read().replace(b'(2, 2, 3)', b'(9, 9, 3)')
    open(path, 'wb').write(data)
    with pytest.raises(
        DLBookError,
        match=re.escape(
            f'cannot read image {path}: the file is not a valid .npy array '
            f'(its header declares 243 bytes of data, the file holds 12)'
        ),
    ):
        imread(path)
