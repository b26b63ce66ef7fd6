"""The exercise registry: ``@exercise(id)`` adds a checker.

Exercise ids are ``'chNN.name'``; the checkers of chapter NN live in the
module ``dlbook.exercises.chNN``, imported the first time one of its ids
is asked for. A new chapter is one new module: nothing else to edit.
"""

import difflib
import importlib
import pkgutil
import re

_EXERCISES = {}
_ID = re.compile(r'^(ch\d+)\.\w+$')


class Exercise:
    """A registered exercise: its id, checker function and hint."""

    def __init__(self, exercise_id, checker, hint=None, title=None):
        self.id = exercise_id
        self.checker = checker
        self.hint = hint
        doc = (checker.__doc__ or '').strip().splitlines()
        self.title = title or (doc[0] if doc else exercise_id)

    def __repr__(self):
        return f'Exercise({self.id!r})'


def exercise(exercise_id, hint=None, title=None):
    """Register the decorated function as the checker of ``exercise_id``.

    The checker is called as ``checker(student_obj, **kw)``. It raises
    ``Failure`` to report a wrong answer, and returns a short note (or
    None) when the answer is right. The first line of its docstring is
    the exercise's title in ``list_exercises()``.

    Parameters
    ----------
    exercise_id : str
        ``'chNN.name'``, e.g. ``'ch04.softmax'``.
    hint : str, optional
        General advice shown with a failure when the checker has no more
        specific hint.
    title : str, optional
        Overrides the docstring's first line.

    Examples
    --------
    >>> @exercise('ch05.relu', hint='nd.maximum(X, 0)')
    ... def _relu(student):
    ...     '''relu(X): max(X, 0) elementwise.'''
    ...     ...
    """
    if not _ID.match(exercise_id):
        raise ValueError(
            f"exercise ids look like 'ch04.softmax', got {exercise_id!r}"
        )

    def register(checker):
        _EXERCISES[exercise_id] = Exercise(exercise_id, checker, hint, title)
        return checker

    return register


def _import_chapter(chapter):
    try:
        importlib.import_module(f'{__package__}.{chapter}')
    except ModuleNotFoundError as err:
        if err.name != f'{__package__}.{chapter}':
            raise  # a real import error inside the module


def _import_all():
    package = importlib.import_module(__package__)
    for info in pkgutil.iter_modules(package.__path__):
        if re.match(r'^ch\d+$', info.name):
            _import_chapter(info.name)


def get(exercise_id):
    """The ``Exercise`` for an id; ``KeyError`` with suggestions if none."""
    match = _ID.match(str(exercise_id))
    if match and exercise_id not in _EXERCISES:
        _import_chapter(match.group(1))
    if exercise_id in _EXERCISES:
        return _EXERCISES[exercise_id]
    _import_all()
    close = difflib.get_close_matches(str(exercise_id), list(_EXERCISES), n=3)
    raise KeyError(exercise_id, close)


def list_exercises(chapter=None):
    """Ids of all registered exercises, sorted (optionally one chapter's).

    Parameters
    ----------
    chapter : str, optional
        ``'ch04'`` lists only that chapter's exercises.

    Returns
    -------
    list of str
    """
    if chapter is None:
        _import_all()
    else:
        _import_chapter(chapter)
    return sorted(
        ex_id
        for ex_id in _EXERCISES
        if chapter is None or ex_id.startswith(chapter + '.')
    )


def describe(exercise_id):
    """One line: the id and the exercise's title."""
    return f'{exercise_id}: {get(exercise_id).title}'
