#!/usr/bin/python3
# test-layering.py: the rooms of the tree stay apart (docs/architecture.md).
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Prints TAP. Each check reads the sources, so a change that breaks a rule
# fails here before review has to notice it.

import os
import re
import sys

TOP = os.path.abspath(os.environ.get('STW_TOP_SRCDIR') or
                      os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
INCLUDE = re.compile(r'^\s*#\s*include\s+[<"]([^>"]+)[>"]', re.M)


def sources(directory, suffixes=('.c', '.h')):
    root = os.path.join(TOP, directory)
    for name in sorted(os.listdir(root)):
        if name.endswith(suffixes) and not name.startswith(('stw-enum-types', 'stw-resources')):
            with open(os.path.join(root, name), encoding='utf-8') as source:
                yield '%s/%s' % (directory, name), source.read()


def includes(text):
    return INCLUDE.findall(text)


# The exceptions: the core provider says its schemas were checked by
# tests/test-core-schemas.c, which no plugin may say (docs/architecture.md);
# electron_doctor opens libsoup to report whether it can be opened (checked
# by tests/e2e/mcp-sdk.test.mjs), which only the core may do.
CHECKED_BY_TESTS = {('tools/stw-tool-spec.c', 'stw-schema-private.h'),
                    ('tools/stw-core-provider.c', 'stw-tool-provider-private.h'),
                    ('tools/stw-tools-status.c', 'stw-soup-private.h')}


def tools_include_no_private_header():
    bad = ['%s: %s' % (path, header) for path, text in sources('tools')
           for header in includes(text)
           if header.endswith('-private.h') and (path, header) not in CHECKED_BY_TESTS]
    return bad


def the_core_includes_nothing_from_tools():
    tool_headers = {name for name, _ in ((p.split('/')[1], t) for p, t in sources('tools', ('.h',)))}
    bad = []
    for directory in ('stagewright', 'transports'):
        for path, text in sources(directory):
            if path.endswith(('/main.c', '/stagewright.h')):
                continue  # the program and the umbrella header sit on top of everything
            bad += ['%s: %s' % (path, h) for h in includes(text)
                    if os.path.basename(h) in tool_headers or h.startswith('tools/')]
    return bad


def transports_include_nothing_above_them():
    upper = ('stw-session', 'stw-surface', 'stw-dispatcher', 'stw-mcp', 'stw-tool', 'stw-invocation')
    return ['%s: %s' % (path, h) for path, text in sources('transports')
            for h in includes(text) if os.path.basename(h).startswith(upper)]


def one_blocking_loop():
    bad = []
    for directory in ('stagewright', 'transports', 'tools'):
        for path, text in sources(directory):
            if path != 'stagewright/stw-sync.c' and re.search(r'\bg_main_context_iteration\b|\bg_main_loop_run\b', text):
                if path != 'stagewright/main.c':
                    bad.append(path)
    return bad


CHECKS = [tools_include_no_private_header, the_core_includes_nothing_from_tools,
          transports_include_nothing_above_them, one_blocking_loop]


def main():
    print('1..%d' % len(CHECKS))
    failed = 0
    for number, check in enumerate(CHECKS, 1):
        bad = check()
        name = check.__name__.replace('_', ' ')
        if bad:
            failed += 1
            print('not ok %d - %s' % (number, name))
            for line in bad:
                print('# ' + line)
        else:
            print('ok %d - %s' % (number, name))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
