#!/usr/bin/python3
# gen-reference.py: the generated pages of the API reference
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
#   gen-reference.py error-codes OUT   the error registry as a table (GI)
#   gen-reference.py tools STAGEWRIGHT OUT   the tool manifest of `stagewright tools`
#
# Both read the built library or program, never a copy of their tables, so
# the reference cannot drift from the code.

import json
import subprocess
import sys


def error_codes(out):
    import gi
    gi.require_version('Stagewright', '1.0')
    from gi.repository import Stagewright

    registry = Stagewright.ErrorRegistry.get_default()
    rows = []
    for code in sorted(registry.list_codes()):
        found, http, retryable, hint = registry.lookup(code)
        if found:
            rows.append('| `%s` | %d | %s | %s |' % (code, http, 'yes' if retryable else 'no',
                                                   (hint or '').replace('|', '\\|')))
    with open(out, 'w') as f:
        f.write('Title: Error codes\n\n# Error codes\n\n'
                'Every failed call answers one of these codes (`code` in the envelope, the '
                '[class@Stagewright.ErrorRegistry] in the library), with the HTTP status it maps '
                'to, whether trying again can help, and the hint a client sees. Generated from '
                'the registry of this build.\n\n'
                '| code | HTTP | retryable | hint |\n| --- | --- | --- | --- |\n')
        f.write('\n'.join(rows) + '\n')


def tools(program, out):
    manifest = json.loads(subprocess.run([program, 'tools'], check=True, capture_output=True,
                                         text=True, env={'LC_ALL': 'C.UTF-8', 'PATH': '/usr/bin:/bin'}).stdout)
    with open(out, 'w') as f:
        f.write('Title: Tool manifest\n\n# Tool manifest\n\n'
                'The tools `stagewright` serves with `--tool-profile=full` (generated from '
                '`stagewright tools` of this build; eval tools appear only with `--allow-eval`).\n\n'
                '| tool | operation | description |\n| --- | --- | --- |\n')
        for tool in manifest:
            f.write('| `%s` | %s | %s |\n' % (tool['name'], tool.get('operationType', ''),
                                             tool.get('description', '').replace('|', '\\|')
                                             .replace('\n', ' ')))


if __name__ == '__main__':
    if sys.argv[1] == 'error-codes':
        error_codes(sys.argv[2])
    elif sys.argv[1] == 'tools':
        tools(sys.argv[2], sys.argv[3])
    else:
        sys.exit('usage: gen-reference.py error-codes OUT | tools STAGEWRIGHT OUT')
