"""The range checker used for the notebooks' training cells."""

from .expectations import band_text, check_outputs, output_text

CELL = {'metadata': {'dlbook': {'expect': [
    {'label': 'test accuracy', 'pattern': r'test acc ([0-9.]+)',
     'full': [0.82, 0.86], 'fast': [0.3, 0.9]}]}}}


def _stdout(text):
    return [{'output_type': 'stream', 'name': 'stdout', 'text': text}]


def test_last_match_is_checked():
    out = _stdout('epoch 1: test acc 0.500\nepoch 10: test acc 0.840\n')
    assert check_outputs(CELL, out, 'full') == []
    out = _stdout('epoch 1: test acc 0.840\nepoch 10: test acc 0.500\n')
    assert check_outputs(CELL, out, 'full') == [
        'test accuracy is 0.5, outside the full-mode range 0.82–0.86']


def test_mode_picks_the_range():
    out = _stdout('test acc 0.5\n')
    assert check_outputs(CELL, out, 'fast') == []
    assert check_outputs(CELL, out, 'full') != []


def test_missing_number_is_a_problem():
    problems = check_outputs(CELL, _stdout('loss 0.3\n'), 'fast')
    assert problems and 'no output matches' in problems[0]


def test_nan_is_never_inside():
    assert check_outputs(CELL, _stdout('test acc nan\n'), 'fast') != []


def test_displayed_values_are_read():
    out = [{'output_type': 'execute_result',
            'data': {'text/plain': 'TrainResult(test acc 0.85)'}}]
    assert 'test acc 0.85' in output_text(out)
    assert check_outputs(CELL, out, 'full') == []


def test_band_text():
    assert band_text((0.82, 0.86)) == '0.82–0.86'
    assert band_text([1, 1.3]) == '1–1.3'
