"""The one assertion every checker test makes about a wrong answer."""

from dlbook.exercises.checker import run_check


def fails(exercise_id, answer, *fragments):
    """Check that ``answer`` fails exercise ``exercise_id`` and that the
    message or hint names each of ``fragments``; return the result."""
    result = run_check(exercise_id, answer)
    assert not result.passed, result.report()
    text = result.message + ' ' + (result.hint or '')
    for fragment in fragments:
        assert fragment in text, result.report()
    return result
