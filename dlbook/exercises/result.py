"""What a check finds: ``CheckResult`` (shown to the student) and
``Failure`` (raised inside a checker to say what is wrong)."""

PASS_MARK = '\u2713'  # ✓
FAIL_MARK = '\u2717'  # ✗


class Failure(Exception):
    """Raised by a checker when the student's answer is wrong.

    Parameters
    ----------
    message : str
        What differed, in the student's terms: which input, which shape
        or value was expected and which one came back.
    hint : str, optional
        A question that points at the likely mistake ("did you sum over
        axis=1?"). The exercise's general hint is used when None.
    """

    def __init__(self, message, hint=None):
        super().__init__(message)
        self.message = message
        self.hint = hint


class CheckResult:
    """The outcome of ``check(...)``: true when the answer passed.

    Attributes
    ----------
    exercise_id : str
    passed : bool
    message : str
        The feedback (for a pass, a short note).
    hint : str or None
        Shown only for a failure.

    Its repr is short and stable, ``CheckResult('ch04.softmax',
    passed=True)``, so a notebook that ends a cell with ``check(...)``
    stores the same text on every run; the feedback itself is printed.
    """

    def __init__(self, exercise_id, passed, message, hint=None):
        self.exercise_id = exercise_id
        self.passed = bool(passed)
        self.message = message
        self.hint = hint

    def __bool__(self):
        return self.passed

    def __repr__(self):
        return f'CheckResult({self.exercise_id!r}, passed={self.passed})'

    def report(self):
        """The feedback as printed: a mark, the id, the message, the hint."""
        mark = PASS_MARK if self.passed else FAIL_MARK
        lines = [f'{mark} {self.exercise_id}: {self.message}']
        if not self.passed and self.hint:
            lines.append(f'  Hint: {self.hint}')
        return '\n'.join(lines)

    def as_dict(self):
        """Plain data, as written to the grading log."""
        return {
            'id': self.exercise_id,
            'passed': self.passed,
            'message': self.message,
            'hint': self.hint,
        }
