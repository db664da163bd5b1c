"""script_main.py: how the hw/h200 scripts run their main.

Bad input (a file that is missing or unreadable, a CSV or JSON without the
columns, keys or rows a script needs, a value that does not parse, an unknown
command) ends in one line on stderr and exit status 2, never a traceback; a
script raises BadInput for what it checks itself, and Usage (its usage text
on stderr, exit status 2) for arguments it cannot run with. A reader that stops early
(head, grep -q) ends the output quietly. A simulation or build that fails is
not bad input: a script ends on it with SystemExit and its message (status 1).

    if __name__ == '__main__':
        script_main.run('name.py', main)
"""
import csv
import signal
import sys


class BadInput(ValueError):
    """What a script found wrong with its input, in one line."""


class Usage(Exception):
    """Arguments a script cannot run with: its usage text, exit status 2."""


# json.JSONDecodeError is a ValueError; KeyError and IndexError are a CSV row
# or JSON file without the column, key or field a script reads.
BAD_INPUT = (OSError, ValueError, KeyError, IndexError, csv.Error)


def describe(e):
    if isinstance(e, KeyError):
        return f'no {e} in the input'
    if isinstance(e, IndexError):
        return f'a row or list is shorter than expected ({e})'
    return str(e)


def run(name, main, *args):
    """Runs main(*args) and exits: its return value (0 for None), or 2 with
    'name: what' on stderr for bad input."""
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    try:
        status = main(*args)
    except Usage as e:
        print(str(e).strip(), file=sys.stderr)
        sys.exit(2)
    except BAD_INPUT as e:
        print(f'{name}: {describe(e)}', file=sys.stderr)
        sys.exit(2)
    sys.exit(status if isinstance(status, int) else 0)
