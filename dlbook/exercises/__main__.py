"""Command line: ``python -m dlbook.exercises grade NOTEBOOK...`` and
``python -m dlbook.exercises list``."""

import argparse
import sys

from .grading import grade_notebook
from .registry import describe, list_exercises


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog='python -m dlbook.exercises',
        description='Grade notebooks that use dlbook.exercises.check.',
    )
    commands = parser.add_subparsers(dest='command', required=True)
    grade = commands.add_parser(
        'grade', help='run notebooks (fast mode) and tabulate their checks'
    )
    grade.add_argument('notebooks', nargs='+', metavar='NOTEBOOK')
    grade.add_argument(
        '--timeout',
        type=int,
        default=600,
        help='seconds per cell (default 600)',
    )
    grade.add_argument(
        '--full', action='store_true', help='run without DLBOOK_FAST=1'
    )
    listing = commands.add_parser('list', help='list the exercises')
    listing.add_argument('chapter', nargs='?', help="e.g. 'ch04'")
    args = parser.parse_args(argv)

    if args.command == 'list':
        for exercise_id in list_exercises(args.chapter):
            print(describe(exercise_id))
        return 0
    all_passed = True
    for i, path in enumerate(args.notebooks):
        if i:
            print()
        report = grade_notebook(path, timeout=args.timeout, fast=not args.full)
        all_passed &= (
            report.passed == report.total
            and not report.errors
            and report.total > 0
        )
    return 0 if all_passed else 1


if __name__ == '__main__':
    sys.exit(main())
