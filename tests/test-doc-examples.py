#!/usr/bin/python3
# test-doc-examples.py: every code example of the docs runs.
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The fenced ```c, ```python and ```js blocks of docs/**/*.md, README.md and
# the gtk-doc comments of the public headers are extracted and run against
# the build tree: Python under GI_PYTHON, JS under gjs, C compiled with
# STW_EXAMPLE_CC against the build tree's library and run when it has a
# main() (a C block without main() is compiled only). In an example,
# /abs/electron and /abs/app stand for the Electron stand-in and the demo
# app of tests/fixtures, and the installed GJS module's path
# (/usr/share/stagewright-1.0/gjs/stagewright.js) the build tree's.
#
# An HTML comment on the line before a fence says how to take the block:
#   <!-- example: needs demo-window -->   run after a prelude that launches
#       the demo app (session, window) and stops it after; `needs imports`
#       only imports the namespaces (and makes a dispatcher)
#   <!-- example: pytest -->              a test module: run by pytest with the
#       plugin, the stand-in and the demo app; it must pass
#   <!-- example: fragment: why -->       not run; the reason is required
# Prints TAP, one test per block.

import os
import re
import shutil
import subprocess
import sys
import tempfile

TOP_SRCDIR = os.path.abspath(os.environ.get('STW_TOP_SRCDIR') or
                             os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
FIXTURES = os.path.join(TOP_SRCDIR, 'tests', 'fixtures')
ELECTRON = os.path.join(FIXTURES, 'electron')
DEMO_APP = os.path.join(FIXTURES, 'demo-app')
CHROMIUM = os.environ.get('STW_CHROMIUM', '/usr/lib/chromium/chromium')
LANGUAGES = {'c': 'c', 'python': 'python', 'py': 'python', 'js': 'js', 'javascript': 'js'}
TIMEOUT = 120
GJS = os.environ.get('GJS') or shutil.which('gjs')

FENCE = re.compile(r'^(?P<indent>[ ]*)```(?P<lang>[A-Za-z]*)[ ]*$')
MARKER = re.compile(r'<!--\s*example:\s*(?P<what>needs\s+[\w-]+|pytest|fragment:\s*\S.*?)\s*-->')

PRELUDES = {
    ('python', 'imports'): (
        'import json\nimport gi\ngi.require_version("Stagewright", "1.0")\n'
        'from gi.repository import GLib, Json, Stagewright\n'
        'dispatcher = Stagewright.Dispatcher.new()\ndispatcher.add_core_tools()\n', ''),
    ('python', 'demo-window'): (
        'import gi\ngi.require_version("Stagewright", "1.0")\n'
        'from gi.repository import GLib, Stagewright\n'
        'session = Stagewright.launch(executable_path="/abs/electron", main="/abs/app")\n'
        'window = session.props.active_surface\ntry:\n', 'finally:\n    session.stop_sync(5000, None)\n'),
}


def sources():
    paths = [os.path.join(TOP_SRCDIR, 'README.md')]
    for directory, subdirs, files in os.walk(os.path.join(TOP_SRCDIR, 'docs')):
        subdirs[:] = sorted(d for d in subdirs if d != 'html')
        paths += [os.path.join(directory, name) for name in sorted(files) if name.endswith('.md')]
    headers = os.path.join(TOP_SRCDIR, 'stagewright')
    paths += [os.path.join(headers, name) for name in sorted(os.listdir(headers))
              if name.endswith(('.h', '.c')) and '-private' not in name]
    return paths


def blocks(path):
    """(line, language, marker, code) of each fenced block of a known language."""
    with open(path, encoding='utf-8') as f:
        lines = f.read().splitlines()
    comment = path.endswith(('.c', '.h'))
    found = []
    index = 0
    while index < len(lines):
        line = lines[index][3:] if comment and lines[index].startswith(' * ') else lines[index]
        match = FENCE.match(line)
        if not match or not match.group('lang'):
            index += 1
            continue
        start, indent = index, len(match.group('indent'))
        body = []
        index += 1
        while index < len(lines):
            text = lines[index]
            if comment:
                text = text[3:] if text.startswith(' * ') else text[2:] if text.startswith(' *') else text
            if text.strip() == '```':
                break
            body.append(text[indent:] if text[:indent].strip() == '' else text)
            index += 1
        index += 1
        lang = LANGUAGES.get(match.group('lang').lower())
        if lang is None:
            continue
        before = lines[start - 1] if start > 0 else ''
        marker = MARKER.search(before)
        marker = marker.group('what') if marker else None
        for (where, fence, contains), what in COMMENT_MARKERS.items():
            if path.endswith(where) and line.strip() == fence and contains in '\n'.join(body):
                marker = what
        found.append((start + 1, lang, marker, '\n'.join(body) + '\n'))
    return found


GJS_MODULE = '/usr/share/stagewright-1.0/gjs/stagewright.js'


def substitute(code):
    code = code.replace(GJS_MODULE, os.path.join(TOP_SRCDIR, 'bindings', 'gjs', 'stagewright.js'))
    return code.replace('/abs/electron', ELECTRON).replace('/abs/app', DEMO_APP)


def run(argv, **kwargs):
    done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=TIMEOUT,
                          universal_newlines=True, **kwargs)
    if done.returncode != 0:
        raise AssertionError('%s exited with %d:\n%s' % (' '.join(argv[:2]), done.returncode, done.stdout))
    return done.stdout


def run_python(code, workdir):
    path = os.path.join(workdir, 'example.py')
    with open(path, 'w') as f:
        f.write(code)
    run([os.environ.get('GI_PYTHON', '/usr/bin/python3'), path], cwd=workdir)


def run_js(code, workdir):
    path = os.path.join(workdir, 'example.js')
    with open(path, 'w') as f:
        f.write(code)
    module = re.search(r'^import\s', code, re.M) is not None
    run([GJS] + (['-m'] if module else []) + [path], cwd=workdir)


def run_c(code, workdir):
    path = os.path.join(workdir, 'example.c')
    with open(path, 'w') as f:
        f.write(code)
    cc = os.environ['STW_EXAMPLE_CC'].split()
    cflags = os.environ.get('STW_EXAMPLE_CFLAGS', '').split()
    strict = ['-Wall', '-Werror', '-Wno-unused-function', '-Wno-unused-variable']
    if re.search(r'^main\s*\(|^int\s+main\s*\(', code, re.M):
        program = os.path.join(workdir, 'example')
        run(cc + strict + cflags + [path, '-o', program] + os.environ.get('STW_EXAMPLE_LIBS', '').split())
        run([program], cwd=workdir)
    else:
        run(cc + strict + cflags + ['-c', path, '-o', os.path.join(workdir, 'example.o')])


def run_pytest(code, workdir):
    path = os.path.join(workdir, 'example_test.py')
    with open(path, 'w') as f:
        f.write(code)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE='1')
    run([os.environ.get('GI_PYTHON', '/usr/bin/python3'), '-m', 'pytest', '-p', 'stagewright.pytest_plugin',
         '-p', 'no:cacheprovider', '--stagewright-executable', ELECTRON, '--stagewright-main', DEMO_APP, path],
        cwd=workdir, env=env)


RUNNERS = {'python': run_python, 'js': run_js, 'c': run_c, 'pytest': run_pytest}

# Blocks in API reference comments cannot carry an HTML comment: their
# markers live here, by file and line of the fence.
COMMENT_MARKERS = {}


def main():
    examples = [(path, line, lang, marker, code) for path in sources() for line, lang, marker, code in blocks(path)]
    # A fragment is not an example to run, and not a test that skips:
    # it is named here with its reason, once.
    for path, line, lang, marker, code in examples:
        if marker and marker.startswith('fragment'):
            print('# not an example: %s:%d (%s): %s' % (os.path.relpath(path, TOP_SRCDIR), line, lang, marker))
    examples = [e for e in examples if not (e[3] and e[3].startswith('fragment'))]
    missing = next((p for p in (ELECTRON, CHROMIUM, DEMO_APP) if not os.path.exists(p)), None)
    print('1..%d' % len(examples))
    failed = 0
    for number, (path, line, lang, marker, code) in enumerate(examples, 1):
        name = '%s:%d (%s)' % (os.path.relpath(path, TOP_SRCDIR), line, lang)
        if lang == 'c' and not os.environ.get('STW_EXAMPLE_CC'):
            print('ok %d - %s # SKIP STW_EXAMPLE_CC is not set (run by make check)' % (number, name))
            continue
        if lang == 'js' and not GJS:
            print('ok %d - %s # SKIP gjs is missing' % (number, name))
            continue
        if marker == 'pytest':
            lang = 'pytest'
        elif marker:
            prelude, postlude = PRELUDES.get((lang, marker.split()[1]), (None, None))
            if prelude is None:
                failed += 1
                print('not ok %d - %s\n# unknown marker "%s" for %s' % (number, name, marker, lang))
                continue
            if postlude:
                code = ''.join('    ' + l if l.strip() else l for l in code.splitlines(True))
            code = prelude + code + postlude
        if missing and ('/abs/' in code or lang == 'pytest'):
            print('ok %d - %s # SKIP %s is missing' % (number, name, missing))
            continue
        try:
            with tempfile.TemporaryDirectory(prefix='stw-ex') as workdir:
                RUNNERS[lang](substitute(code), workdir)
        except (AssertionError, subprocess.TimeoutExpired) as error:
            failed += 1
            print('not ok %d - %s' % (number, name))
            for text in str(error).splitlines():
                print('# ' + text)
        else:
            print('ok %d - %s' % (number, name))
        sys.stdout.flush()
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
