#!/usr/bin/python3
# test-symbols.py: the Debian symbols file lists exactly what the library exports
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# debian/libstagewright-1.0-0.symbols is the ABI record packagers rely on
# (and debian/libstagewright-plugins-1.0-0.symbols that of the first-party
# plugins' library):
# a symbol the library exports without a line there reaches users with no
# minimum version, and a line for a symbol that is gone hides an ABI break
# until dpkg-gensymbols runs on a buildd. Both directions are checked here,
# against the library this tree built, so a new public function fails
# `make check` until its line is added. Output is TAP.

import os
import subprocess
import sys
from pathlib import Path

# Each shared library with the symbols file of its package.
LIBRARIES = [
    ('debian/libstagewright-1.0-0.symbols', '.libs/libstagewright-1.0.so.0'),
    ('debian/libstagewright-plugins-1.0-0.symbols', '.libs/libstagewright-plugins-1.0.so.0'),
]


def top_srcdir():
    env = os.environ.get('STW_TOP_SRCDIR')
    return Path(env) if env else Path(__file__).resolve().parent.parent


def top_builddir():
    # STAGEWRIGHT_BIN is $(abs_top_builddir)/stagewright/stagewright.
    program = os.environ.get('STAGEWRIGHT_BIN')
    return Path(program).resolve().parent.parent if program else top_srcdir()


def exported(library):
    out = subprocess.run(['nm', '-D', '--defined-only', str(library)],
                         check=True, capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        fields = line.split()
        # Functions and data the library defines; not the linker's own
        # markers (_init, _fini, _edata, ...), which are not stw_*.
        if len(fields) == 3 and fields[1] in 'TDBR' and fields[2].startswith('stw'):
            names.add(fields[2])
    return names


def listed(symbols_file):
    names = {}
    lines = symbols_file.read_text().splitlines()
    for number, line in enumerate(lines, 1):
        if not line.startswith(' '):
            continue  # the header line and the '* field: value' lines
        name, _, version = line.strip().partition(' ')
        if not name.endswith('@Base') or not version:
            raise ValueError('%s:%d: not "name@Base version": %r' % (symbols_file, number, line))
        names[name[:-len('@Base')]] = number
    return names


def check(number, symbols_path, library_path):
    """Prints the two TAP lines of one library; returns how many failed."""
    symbols_file = top_srcdir() / symbols_path
    library = top_builddir() / library_path
    if not symbols_file.exists():
        # A release tarball carries no debian/ directory: there is no
        # symbols file to keep in step.
        for n in (number, number + 1):
            print('ok %d # SKIP %s is not in this tree (a release tarball)' % (n, symbols_path))
        return 0
    have = exported(library)
    want = listed(symbols_file)
    failed = 0

    missing = sorted(have - set(want))
    if missing:
        failed += 1
        print('not ok %d - every exported symbol has a line in %s' % (number, symbols_path))
        for name in missing:
            print('#   exported, not listed: %s' % name)
    else:
        print('ok %d - every exported symbol (%d) has a line in %s' % (number, len(have), symbols_path))

    gone = sorted(set(want) - have, key=want.get)
    if gone:
        failed += 1
        print('not ok %d - every line of %s names an exported symbol' % (number + 1, symbols_path))
        for name in gone:
            print('#   line %d: %s is not exported' % (want[name], name))
    else:
        print('ok %d - every line of %s names an exported symbol' % (number + 1, symbols_path))

    if list(want) != sorted(want):
        print('# note: the lines of %s are not in sorted order' % symbols_path)
    return failed


def main():
    print('1..%d' % (2 * len(LIBRARIES)))
    failed = 0
    for index, (symbols_path, library_path) in enumerate(LIBRARIES):
        failed += check(2 * index + 1, symbols_path, library_path)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
