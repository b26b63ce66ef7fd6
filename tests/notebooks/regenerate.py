"""Run chapter notebooks in full mode and store their outputs.

    python -m tests.notebooks.regenerate [notebooks/chNN_name.ipynb ...]

(``make notebooks`` runs it on every chapter.)  Each notebook is executed
top to bottom in a fresh kernel *without* ``DLBOOK_FAST``, so the stored
outputs are what a student who runs the chapter sees.  Before a notebook
is written back, every training cell's numbers are checked against the
``full`` range in its metadata (``expectations.py``) and the outputs are
checked for stderr text (warnings belong fixed, not stored).  A notebook
that fails a check is not written; the problems are printed.

Writing is atomic: the new notebook goes to a temporary file in the same
folder, then replaces the old one.
"""

import glob
import os
import sys
import tempfile
import time

from .expectations import FAST_ENV, check_outputs

STORED_MODE = 'full'


def problems_of(nb):
    """Every reason not to store this executed notebook."""
    found = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != 'code':
            continue
        for out in cell.get('outputs', []):
            if out.get('output_type') == 'stream' and out.get('name') == \
                    'stderr' and 'raises-exception' not in \
                    cell.metadata.get('tags', []):
                found.append(f'cell {index}: stderr output '
                             f'{out.get("text", "")[:200]!r}')
        found += [f'cell {index}: {p}'
                  for p in check_outputs(cell, cell.get('outputs', []),
                                         STORED_MODE)]
    return found


def run(path, timeout=3600):
    """Execute one notebook in full mode; write it back if it passes."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    start = time.time()
    client = NotebookClient(nb, timeout=timeout, kernel_name='python3',
                            resources={'metadata': {
                                'path': os.path.dirname(path)}})
    client.execute()
    seconds = time.time() - start
    found = problems_of(nb)
    if found:
        print(f'{path}: not stored ({seconds:.0f} s)')
        for problem in found:
            print('   ', problem)
        return False
    nb.metadata['dlbook'] = {'outputs': STORED_MODE}
    folder = os.path.dirname(os.path.abspath(path))
    handle, tmp = tempfile.mkstemp(dir=folder, suffix='.ipynb.tmp')
    with os.fdopen(handle, 'w', encoding='utf-8') as f:
        nbformat.write(nb, f)
    os.replace(tmp, path)
    print(f'{path}: stored ({seconds:.0f} s)')
    return True


def main(paths):
    os.environ.pop(FAST_ENV, None)       # the kernel inherits this process's
    paths = paths or sorted(glob.glob('notebooks/ch*.ipynb'))
    ok = [run(p) for p in paths]
    return 0 if all(ok) else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
