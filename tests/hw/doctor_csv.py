#!/usr/bin/env python3
"""doctor_csv.py IN OUT COLUMN [KEY=VALUE]: copies the CSV IN to OUT with
COLUMN of its first row (the first whose KEY is VALUE, if given) multiplied
by 3, two decimals. The report tests of tests/hw feed the result to their
docs check, which must then fail: their checks can fail."""
import csv
import sys


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    src, dst, column = sys.argv[1:4]
    key, _, value = sys.argv[4].partition("=") if len(sys.argv) == 5 else ("", "", "")
    rows = list(csv.DictReader(open(src)))
    row = next(r for r in rows if not key or r[key] == value)
    row[column] = f"{float(row[column]) * 3:.2f}"
    with open(dst, "w", newline="") as f:
        w = csv.DictWriter(f, rows[0].keys())
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    main()
