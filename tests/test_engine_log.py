"""``mx.engine`` (bulk size remembered; dlbook runs operators as called)
and ``mx.log`` (MXNet's logger line), as MXNet 1.9.1 behaves."""

import logging
import re

import pytest

import dlbook as mx


def test_bulk_size_is_returned_and_restored():
    first = mx.engine.set_bulk_size(5)
    assert mx.engine.set_bulk_size(15) == 5
    with mx.engine.bulk(10):
        assert mx.engine.set_bulk_size(10) == 10
        x = mx.nd.zeros((1,))
        for _ in range(3):
            x += 1
    assert x.asscalar() == 3
    assert mx.engine.set_bulk_size(first) == 15


def test_logger_writes_mxnets_line(capsys):
    logger = mx.log.get_logger('dlbook_test_log', level=mx.log.INFO)
    logger.info('epoch 1')
    logger.debug('hidden')
    line = capsys.readouterr().err.strip()
    assert re.fullmatch(
        r'\x1b\[32mI\d{4} \d\d:\d\d:\d\d \d+ .*test_engine_log\.py:'
        r'test_logger_writes_mxnets_line:\d+\]\x1b\[0m epoch 1',
        line,
    ), line
    assert mx.log.get_logger('dlbook_test_log') is logger
    assert len(logger.handlers) == 1  # set up once


def test_logger_to_a_file_and_the_deprecated_name(tmp_path):
    path = tmp_path / 'run.log'
    logger = mx.log.get_logger('dlbook_file_log', filename=str(path))
    logger.warning('careful')
    for handler in logger.handlers:
        handler.flush()
    assert path.read_text() == 'careful\n'
    with pytest.warns(DeprecationWarning):
        assert mx.log.getLogger('dlbook_file_log') is logger
    assert mx.log.WARNING == logging.WARNING
