"""Teacher-facing grading: run a student's notebook and collect its checks.

``grade_notebook`` executes the notebook in a fresh kernel (with nbclient,
in fast mode, every cell even after an error) and reads back each
``check(...)`` result: ``check`` appends one JSON line per result to the
file named by ``DLBOOK_CHECK_LOG``, which is set for that kernel only.
The student's notebook and its outputs are left unchanged.
"""

import json
import os
import tempfile

from .result import FAIL_MARK, PASS_MARK, CheckResult


class GradeReport:
    """The check results and errors of one notebook run.

    Attributes
    ----------
    path : str
    results : list of CheckResult
        In the order the checks ran (a check run twice appears twice).
    errors : list of (int, str)
        ``(cell number, 'NameError: ...')`` for cells that raised.
    """

    def __init__(self, path, results, errors):
        self.path = path
        self.results = results
        self.errors = errors

    @property
    def passed(self):
        """Number of exercises whose last check passed."""
        return sum(r.passed for r in self.final().values())

    @property
    def total(self):
        """Number of distinct exercises checked."""
        return len(self.final())

    def final(self):
        """The last result of each exercise id, in first-seen order."""
        last = {}
        for result in self.results:
            last[result.exercise_id] = result
        return last

    def __repr__(self):
        name = os.path.basename(self.path)
        return (
            f'GradeReport({name!r}, passed={self.passed}, '
            f'total={self.total}, errors={len(self.errors)})'
        )

    def table(self):
        """A plain-text table: one row per exercise, then cell errors."""
        name = os.path.basename(self.path)
        head = (
            f'{name}: {self.passed} of {self.total} exercises passed'
            f', {len(self.errors)} cell error'
            f'{"" if len(self.errors) == 1 else "s"}'
        )
        rows = [
            (
                r.exercise_id,
                PASS_MARK if r.passed else FAIL_MARK,
                r.message.splitlines()[0],
            )
            for r in self.final().values()
        ]
        rows += [
            (f'cell {number}', 'error', text) for number, text in self.errors
        ]
        if not rows:
            return head + '\n  (no check(...) calls found)'
        width = max(len(row[0]) for row in rows)
        lines = [head]
        for ident, mark, text in rows:
            if len(text) > 90:
                text = text[:87] + '...'
            lines.append(f'  {ident:<{width}}  {mark:<5}  {text}')
        return '\n'.join(lines)


class _Environ:
    """Set environment variables for the duration of a block."""

    def __init__(self, **values):
        self.values = values
        self.saved = {}

    def __enter__(self):
        for key, value in self.values.items():
            self.saved[key] = os.environ.get(key)
            os.environ[key] = value

    def __exit__(self, *exc):
        for key, value in self.saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _cell_errors(nb):
    errors = []
    for number, cell in enumerate(nb.cells, start=1):
        for output in cell.get('outputs', []):
            if output.get('output_type') == 'error':
                text = f"{output.get('ename')}: {output.get('evalue')}"
                errors.append((number, text.splitlines()[0]))
    return errors


def _read_log(path):
    results = []
    with open(path, encoding='utf-8') as f:
        for line in f:
            if line.strip():
                data = json.loads(line)
                results.append(
                    CheckResult(
                        data['id'],
                        data['passed'],
                        data['message'],
                        data['hint'],
                    )
                )
    return results


def grade_notebook(
    path, timeout=600, fast=True, kernel_name=None, verbose=True
):
    """Execute a student's notebook and collect every ``check`` result.

    Parameters
    ----------
    path : str
        The ``.ipynb`` file. It is run in its own folder and not modified.
    timeout : int, optional
        Seconds allowed for each cell.
    fast : bool, optional
        Run with ``DLBOOK_FAST=1`` (small data, few epochs).
    kernel_name : str, optional
        Jupyter kernel; default: the one in the notebook's metadata, else
        ``python3``.
    verbose : bool, optional
        Print the table.

    Returns
    -------
    GradeReport

    Examples
    --------
    >>> report = grade_notebook('alice/ch04.ipynb')     # doctest: +SKIP
    ch04.ipynb: 2 of 3 exercises passed, 0 cell errors
      ch04.softmax        ✓      correct on inputs of shape ...
      ch04.cross_entropy  ✗      wrong values for y_hat of shape (4, 3) ...
    """
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    if kernel_name is None:
        spec = nb.metadata.get('kernelspec', {})
        kernel_name = spec.get('name', 'python3')
    folder = os.path.dirname(os.path.abspath(path))
    handle, log = tempfile.mkstemp(prefix='dlbook-checks-', suffix='.jsonl')
    os.close(handle)
    env = {'DLBOOK_CHECK_LOG': log}
    if fast:
        env['DLBOOK_FAST'] = '1'
    try:
        client = NotebookClient(
            nb,
            timeout=timeout,
            kernel_name=kernel_name,
            allow_errors=True,
            resources={'metadata': {'path': folder}},
        )
        with _Environ(**env):  # inherited by the kernel process
            client.execute()
        report = GradeReport(path, _read_log(log), _cell_errors(nb))
    finally:
        os.remove(log)
    if verbose:
        print(report.table(), flush=True)
    return report
