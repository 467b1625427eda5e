#!/usr/bin/python3
# test-potfiles.py: po/POTFILES.in lists exactly the files with messages
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Every C file under stagewright/, transports/, tools/ and plugins/ that
# marks a message for translation (_(), N_(), C_(), NC_(), g_dngettext)
# must be in po/POTFILES.in, or its messages never reach translators; and
# every file listed there must exist. Output is TAP.

import os
import re
import sys
from pathlib import Path

MARKER = re.compile(r'(?<![A-Za-z0-9_])(?:_|N_|C_|NC_|g_dngettext)\s*\(\s*(?:"|[A-Za-z_])')
SCANNED_DIRS = ('stagewright', 'transports', 'tools', 'plugins')


def top_srcdir():
    env = os.environ.get('STW_TOP_SRCDIR')
    return Path(env) if env else Path(__file__).resolve().parent.parent


def strip_comments(text):
    return re.sub(r'/\*.*?\*/|//[^\n]*', '', text, flags=re.S)


def main():
    top = top_srcdir()
    listed = []
    for line in (top / 'po' / 'POTFILES.in').read_text().splitlines():
        line = line.strip()
        if line and not line.startswith('#'):
            listed.append(line)
    marked = set()
    for d in SCANNED_DIRS:
        for path in sorted((top / d).rglob('*.c')) if (top / d).is_dir() else []:
            if MARKER.search(strip_comments(path.read_text(errors='replace'))):
                marked.add(path.relative_to(top).as_posix())

    results = [
        (not (marked - set(listed)), 'every file that marks messages is in po/POTFILES.in',
         'add to po/POTFILES.in: ' + ' '.join(sorted(marked - set(listed)))),
        (all((top / f).is_file() for f in listed), 'every file po/POTFILES.in lists exists',
         'missing: ' + ' '.join(f for f in listed if not (top / f).is_file())),
        (len(listed) == len(set(listed)), 'po/POTFILES.in lists each file once', ''),
    ]
    print('1..%d' % len(results))
    failed = 0
    for n, (ok, name, diag) in enumerate(results, 1):
        print('%s %d - %s' % ('ok' if ok else 'not ok', n, name))
        if not ok:
            failed += 1
            print('# ' + diag)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
