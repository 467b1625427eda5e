#!/usr/bin/python3
# test-l10n.py: the program speaks the languages of po/LINGUAS
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Runs `stagewright --help` under each language that has a catalog and a
# generated locale (.ci/setup generates de_DE.UTF-8) and checks that the
# help is translated while option names stay as they are, then checks that
# a usage error is translated too and that `tools` (names, codes, schemas)
# is the same in every language.
#
# In make check the program is tests/stagewright-l10n (main.c built to read
# the catalogs in tests/locale/ of the build tree); installed, it is the
# stagewright on PATH reading the installed catalogs. Output is TAP.

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

# language -> (locale, a --help line that must appear, a usage-error fragment)
EXPECTED = {
    'de': ('de_DE.UTF-8', 'Version ausgeben und beenden', 'unerwartetes Argument'),
}


def program():
    if os.environ.get('STW_L10N_BIN'):
        return os.environ['STW_L10N_BIN']
    if os.environ.get('STAGEWRIGHT_BIN'):
        built = Path(os.environ['STAGEWRIGHT_BIN']).resolve().parent.parent / 'tests' / 'stagewright-l10n'
        if built.exists():
            return str(built)
    return shutil.which('stagewright') or 'stagewright'


def available_locales():
    out = subprocess.run(['locale', '-a'], capture_output=True, text=True).stdout
    return {l.strip().lower().replace('utf-8', 'utf8') for l in out.splitlines()}


def run(args, locale, language):
    env = dict(os.environ, LC_ALL=locale, LANGUAGE=language)
    env.pop('LANG', None)
    return subprocess.run([program()] + args, env=env, capture_output=True, text=True, timeout=60)


def main():
    results = []
    have = available_locales()
    english = run(['--help'], 'C.UTF-8', '').stdout
    manifest = run(['tools'], 'C.UTF-8', '').stdout
    for lang, (locale, help_line, usage) in EXPECTED.items():
        skip = None
        if locale.lower().replace('utf-8', 'utf8') not in have:
            skip = 'locale %s is not generated (locale-gen; .ci/setup does it)' % locale
        if skip:
            for what in ('--help', 'a usage error', 'tools'):
                results.append((True, '%s: %s' % (lang, what), '', skip))
            continue
        out = run(['--help'], locale, lang)
        ok = out.returncode == 0 and help_line in out.stdout and '--tool-profile' in out.stdout \
            and out.stdout != english
        results.append((ok, '%s: --help is translated, options are not' % lang, out.stdout + out.stderr, None))
        err = run(['bogus'], locale, lang)
        results.append((err.returncode == 2 and usage in err.stderr,
                        '%s: a usage error is translated' % lang, err.stderr, None))
        tools = run(['tools'], locale, lang)
        same = tools.returncode == 0 and json.loads(tools.stdout) == json.loads(manifest)
        results.append((same, '%s: the tool manifest is not translated' % lang, '', None))

    print('1..%d' % len(results))
    failed = 0
    for n, (ok, name, diag, skip) in enumerate(results, 1):
        if skip:
            print('ok %d - %s # SKIP %s' % (n, name, skip))
            continue
        print('%s %d - %s' % ('ok' if ok else 'not ok', n, name))
        if not ok:
            failed += 1
            for line in diag.splitlines()[:40]:
                print('# ' + line)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
