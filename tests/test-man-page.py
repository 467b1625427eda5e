#!/usr/bin/python3
# test-man-page.py: stagewright --help and the manual page list the same options
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Reads every long option `stagewright --help-all` prints (all groups) and
# every option the OPTIONS section of stagewright(1) describes, and fails on
# any option that only one of them has. It also checks that the page names
# each exit status the program uses and has the sections packagers expect.
#
# Environment: STAGEWRIGHT_BIN (default: stagewright on PATH) and
# STW_MAN_PAGE (default: the page beside the build tree, docs/stagewright.1,
# else the installed one; .gz is read too). Output is TAP.

import gzip
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HELP_OPTION = re.compile(r'^\s+(?:-[A-Za-z], )?--([a-z][a-z0-9-]*)')
TROFF_FONT = re.compile(r'\\f[BIRP]|\\f\([A-Z]{2}')


def binary():
    return os.environ.get('STAGEWRIGHT_BIN') or shutil.which('stagewright') or 'stagewright'


def man_page():
    if os.environ.get('STW_MAN_PAGE'):
        page = Path(os.environ['STW_MAN_PAGE'])
        # Distributions compress installed pages.
        gz = page.with_name(page.name + '.gz')
        return gz if not page.exists() and gz.exists() else page
    candidates = []
    if os.environ.get('STAGEWRIGHT_BIN'):
        builddir = Path(os.environ['STAGEWRIGHT_BIN']).resolve().parent.parent
        candidates.append(builddir / 'docs' / 'stagewright.1')
    if os.environ.get('STW_TOP_SRCDIR'):
        candidates.append(Path(os.environ['STW_TOP_SRCDIR']) / 'docs' / 'stagewright.1')
    candidates += [Path('/usr/share/man/man1/stagewright.1.gz'),
                   Path('/usr/share/man/man1/stagewright.1'),
                   Path('/usr/local/share/man/man1/stagewright.1')]
    for c in candidates:
        if c.exists():
            return c
    return candidates[0]


def read_page(path):
    data = path.read_bytes()
    if path.suffix == '.gz':
        data = gzip.decompress(data)
    return data.decode('utf-8')


def untroff(line):
    return TROFF_FONT.sub('', line).replace('\\-', '-').replace('\\(aq', "'")


def sections(text):
    """Section name -> list of its lines (troff requests kept)."""
    out, name = {}, None
    for line in text.splitlines():
        if line.startswith('.SH '):
            name = untroff(line[4:]).strip().strip('"')
            out[name] = []
        elif name is not None:
            out[name].append(line)
    return out


def page_options(lines):
    """Long options named in the tag line after each .TP."""
    found = set()
    for i, line in enumerate(lines):
        if line.strip() == '.TP' and i + 1 < len(lines):
            tag = untroff(lines[i + 1])
            found.update(re.findall(r'--([a-z][a-z0-9-]*)', tag))
    return found


def help_options():
    env = dict(os.environ, LC_ALL='C.UTF-8', LANGUAGE='')
    out = subprocess.run([binary(), '--help-all'], env=env, check=True,
                         capture_output=True, text=True, timeout=60).stdout
    found = set()
    for line in out.splitlines():
        m = HELP_OPTION.match(line)
        if m:
            found.add(m.group(1))
    return found


def main():
    results = []

    def check(ok, name, diag=''):
        results.append((ok, name, diag))

    page = man_page()
    if not page.exists():
        print('1..0 # SKIP no manual page at %s (build it: make docs/stagewright.1)' % page)
        return 0
    text = read_page(page)
    secs = sections(text)

    for wanted in ('NAME', 'SYNOPSIS', 'DESCRIPTION', 'OPTIONS', 'EXIT STATUS',
                   'ENVIRONMENT', 'FILES', 'EXAMPLES', 'SEE ALSO'):
        check(wanted in secs, 'the page has a %s section' % wanted)

    in_help = help_options()
    # GLib's --help-all and --help-GROUP switches are GLib's, not ours.
    in_help = {o for o in in_help if not o.startswith('help-')}
    in_page = page_options(secs.get('OPTIONS', []))
    check(len(in_help) >= 5, '--help-all lists options', 'found %s' % sorted(in_help))
    check(not (in_help - in_page), 'every option of --help is in the manual page',
          'missing from %s: %s' % (page, ', '.join('--' + o for o in sorted(in_help - in_page))))
    check(not (in_page - in_help), 'every option of the manual page is in --help',
          'not in --help: %s' % ', '.join('--' + o for o in sorted(in_page - in_help)))

    exit_lines = secs.get('EXIT STATUS', [])
    exit_lines = [re.sub(r'^\.B\s+', '', untroff(exit_lines[i + 1])).strip()
                  for i, l in enumerate(exit_lines[:-1]) if l.strip() == '.TP']
    for status in ('0', '1', '2'):
        check(status in exit_lines, 'the page explains exit status %s' % status)

    # The hosts' configuration forms are shown.
    examples = '\n'.join(secs.get('EXAMPLES', []))
    for key in ('mcpServers', 'servers'):
        check(key in examples, 'EXAMPLES shows the %s form' % key)

    print('1..%d' % len(results))
    failed = 0
    for n, (ok, name, diag) in enumerate(results, 1):
        print('%s %d - %s' % ('ok' if ok else 'not ok', n, name))
        if not ok:
            failed += 1
            if diag:
                print('# ' + diag)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
