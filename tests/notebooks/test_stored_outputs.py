"""What a student reads in a chapter notebook before running anything.

The stored outputs come from a full-mode run (``make notebooks``), so they
must agree with the text around them: every training number inside the
range the chapter states, no warnings on stderr, and a first cell that
says which mode the outputs come from.  These checks read the stored
notebooks only; nothing is executed.
"""

import glob
import json
import os

import pytest

from .expectations import (band_text, cell_expectations, check_outputs,
                           notebook_dir)

NOTEBOOKS = sorted(glob.glob(os.path.join(notebook_dir(), 'ch*.ipynb')))


def _load(path):
    with open(path, encoding='utf-8') as f:
        return json.load(f)


def _markdown(nb):
    return '\n'.join(''.join(c['source']) for c in nb['cells']
                     if c['cell_type'] == 'markdown')


@pytest.fixture(params=NOTEBOOKS, ids=os.path.basename)
def notebook(request):
    return _load(request.param)


def test_there_are_chapters():
    assert len(NOTEBOOKS) >= 14


def test_outputs_come_from_full_mode(notebook):
    assert notebook['metadata'].get('dlbook', {}).get('outputs') == 'full'
    first = ''.join(notebook['cells'][0]['source'])
    assert 'full mode' in first, \
        'the first cell must say which mode the stored outputs come from'


def test_every_code_cell_was_run(notebook):
    for index, cell in enumerate(notebook['cells']):
        if cell['cell_type'] == 'code' and ''.join(cell['source']).strip() \
                and not ''.join(cell['source']).lstrip().startswith('#'):
            assert cell['execution_count'] is not None, f'cell {index}'


def test_no_stored_stderr(notebook):
    for index, cell in enumerate(notebook['cells']):
        if 'raises-exception' in cell.get('metadata', {}).get('tags', []):
            continue
        for out in cell.get('outputs', []):
            assert not (out.get('output_type') == 'stream' and
                        out.get('name') == 'stderr'), \
                f'cell {index} stored stderr: {"".join(out["text"])[:300]}'


def test_stored_numbers_lie_in_the_stated_ranges(notebook):
    for index, cell in enumerate(notebook['cells']):
        problems = check_outputs(cell, cell.get('outputs', []), 'full')
        assert not problems, f'cell {index}: {problems}'


def test_the_text_states_each_range(notebook):
    prose = _markdown(notebook)
    for index, cell in enumerate(notebook['cells']):
        for expect in cell_expectations(cell):
            assert band_text(expect['full']) in prose, \
                (f'cell {index}: the text never states the range '
                 f'{band_text(expect["full"])} of {expect["label"]}')


def test_ranges_are_well_formed(notebook):
    for index, cell in enumerate(notebook['cells']):
        for expect in cell_expectations(cell):
            assert set(expect) == {'label', 'pattern', 'full', 'fast'}, index
            for mode in ('full', 'fast'):
                low, high = expect[mode]
                assert low < high, (index, mode)
            assert 'nbval-ignore-output' in cell['metadata'].get('tags', []), \
                f'cell {index} has ranges but nbval still compares its digits'
