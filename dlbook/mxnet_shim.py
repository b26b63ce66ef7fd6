"""Install (or remove) an ``mxnet`` module that loads dlbook, for programs
and packages that ``import mxnet`` (such as ``d2l``)::

    python -m dlbook.mxnet_shim install     # into this environment
    python -m dlbook.mxnet_shim uninstall
    python -m dlbook.mxnet_shim status

``install`` writes one small package, ``mxnet/__init__.py``, into the
environment's ``site-packages`` (or ``--target DIR``); it runs
``import dlbook.as_mxnet``.  Nothing is installed unless you run this
command, and it refuses when a real MXNet is installed in the same
environment (``pip uninstall mxnet`` first, or use another environment).
"""

import argparse
import importlib.util
import os
import shutil
import sys
import sysconfig

MARKER = '# dlbook mxnet shim'
SHIM = f'''{MARKER}: ``import mxnet`` gives dlbook.
# Written by ``python -m dlbook.mxnet_shim install``; remove it with
# ``python -m dlbook.mxnet_shim uninstall``.
import sys
__dlbook_shim__ = True
import dlbook.as_mxnet  # noqa: E402,F401  (aliases mxnet.* to dlbook.*)
sys.modules[__name__] = sys.modules['dlbook']
'''


def _target(args):
    return args.target or sysconfig.get_paths()['purelib']


def _shim_file(directory):
    return os.path.join(directory, 'mxnet', '__init__.py')


def _is_ours(path):
    try:
        with open(path) as f:
            return f.readline().startswith(MARKER)
    except OSError:
        return False


def _real_mxnet(directory):
    """Where a real MXNet is installed, or None."""
    path = _shim_file(directory)
    if os.path.exists(path) and not _is_ours(path):
        return os.path.dirname(path)
    spec = (
        importlib.util.find_spec('mxnet') if not os.path.exists(path) else None
    )
    if spec is not None and spec.origin and not _is_ours(spec.origin):
        return os.path.dirname(spec.origin)
    return None


def install(directory):
    real = _real_mxnet(directory)
    if real:
        raise SystemExit(
            f'refusing: a real MXNet is installed at {real}; '
            f'uninstall it (pip uninstall mxnet) or use '
            f'another environment'
        )
    from dlbook._atomic import atomic_write

    os.makedirs(os.path.join(directory, 'mxnet'), exist_ok=True)
    with atomic_write(_shim_file(directory), 'w') as f:
        f.write(SHIM)
    print(
        f'installed: import mxnet now loads dlbook ({_shim_file(directory)})'
    )


def uninstall(directory):
    path = _shim_file(directory)
    if not _is_ours(path):
        raise SystemExit(f'no dlbook mxnet shim at {path}')
    shutil.rmtree(os.path.dirname(path))
    print(f'removed {os.path.dirname(path)}')


def status(directory):
    path = _shim_file(directory)
    if _is_ours(path):
        print(f'installed at {path}')
    elif _real_mxnet(directory):
        print(f'a real MXNet is installed ({_real_mxnet(directory)})')
    else:
        print('not installed')


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog='python -m dlbook.mxnet_shim',
        description=__doc__.split('\n\n')[0],
    )
    parser.add_argument('command', choices=['install', 'uninstall', 'status'])
    parser.add_argument(
        '--target',
        help='directory on sys.path to write '
        'to (default: this environment\'s site-packages)',
    )
    args = parser.parse_args(argv)
    {'install': install, 'uninstall': uninstall, 'status': status}[
        args.command
    ](_target(args))


if __name__ == '__main__':
    main(sys.argv[1:])
