"""The L2 cache size that sizes the convolution fast path's blocks."""

import pytest

from dlbook.backend import cpu_cache
from dlbook.ops import conv_fast


def write_cache_dir(root, entries):
    """A fake ``/sys/.../cache`` with ``(level, type, size)`` entries."""
    for i, (level, kind, size) in enumerate(entries):
        index = root / f'index{i}'
        index.mkdir()
        (index / 'level').write_text(f'{level}\n')
        (index / 'type').write_text(f'{kind}\n')
        (index / 'size').write_text(f'{size}\n')
    return str(root)


@pytest.mark.parametrize(
    'text,expected',
    [('2048K', 2048 * 1024), ('1M', 2**20), ('512', 512), ('', None)],
)
def test_parse_size(text, expected):
    assert cpu_cache._parse_size(text) == expected


def test_reads_the_level_2_data_cache(tmp_path):
    root = write_cache_dir(
        tmp_path,
        [
            (1, 'Data', '48K'),
            (1, 'Instruction', '32K'),
            (2, 'Unified', '2048K'),
            (3, 'Unified', '260M'),
        ],
    )
    assert cpu_cache._read_l2(root) == 2 * 2**20


def test_unreadable_cache_info_gives_none(tmp_path):
    assert cpu_cache._read_l2(str(tmp_path)) is None
    root = write_cache_dir(tmp_path, [(2, 'Unified', 'garbage')])
    assert cpu_cache._read_l2(root) is None


def test_l2_cache_bytes_falls_back_to_the_default(monkeypatch):
    monkeypatch.setattr(cpu_cache, '_read_l2', lambda: None)
    cpu_cache.l2_cache_bytes.cache_clear()
    try:
        assert cpu_cache.l2_cache_bytes() == cpu_cache.DEFAULT_L2_BYTES
    finally:
        cpu_cache.l2_cache_bytes.cache_clear()  # the real size next time


@pytest.mark.parametrize(
    'l2,expected',
    [(256 * 2**10, 512 * 2**10), (2**20, 512 * 2**10), (2**21, 2**20)],
)
def test_block_bytes_is_half_the_l2_cache_at_least_512k(
    monkeypatch, l2, expected
):
    monkeypatch.setattr(conv_fast, 'l2_cache_bytes', lambda: l2)
    assert conv_fast.block_bytes() == expected
    monkeypatch.setattr(conv_fast, 'BLOCK_BYTES', 4096)
    assert conv_fast.block_bytes() == 4096
