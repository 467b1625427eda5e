#!/usr/bin/python3
# test-error-codes.py: every error code the sources use is in the registry
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The C counterpart of the reference's "mirror" test. It reads the core
# table in stagewright/stw-error-registry.c (the `{ "CODE", http, retryable,
# hint }` rows), checks that it matches the StwError enum of
# stagewright/stw-enums.h in order, then scans stagewright/, transports/,
# tools/ and plugins/ for the codes the code uses:
#
#   - `STW_ERROR_<NAME>` enum identifiers (not STW_ERROR itself, not
#     STW_ERROR_PLUGIN, not the StwErrorRegistry type macros);
#   - the code argument of stw_error_new(), stw_error_new_literal() and
#     stw_invocation_return_error_literal() when it is a string literal
#     (a variable there is checked at run time by the registry);
#   - the space-separated codes of `.errors = "..."` tool spec fields.
#
# Core codes must be registered. Plugin codes (`<plugin>.CODE`) are
# registered at run time, so only their form is checked. Output is TAP.

import os
import re
import sys
from pathlib import Path

CORE_CODE = re.compile(r'^[A-Z][A-Z0-9_]*$')
PLUGIN_CODE = re.compile(r'^([a-z][a-z0-9_]*)\.([A-Z][A-Z0-9_]*)$')

ENUM_IDENTIFIER = re.compile(r'\bSTW_ERROR_([A-Z0-9_]+)\b')
# StwErrorRegistry's G_DECLARE_FINAL_TYPE macros share the prefix.
NOT_CODES = re.compile(r'^(PLUGIN|REGISTRY(_[A-Z_]+)?)$')

# function name -> index of the code among its arguments
CODE_FUNCTIONS = {
    'stw_error_new': 0,
    'stw_error_new_literal': 0,
    'stw_invocation_return_error_literal': 1,
}
CALL = re.compile(r'\b(' + '|'.join(CODE_FUNCTIONS) + r')\s*\(')

STRING_LITERALS = re.compile(r'^(?:\s*"(?:[^"\\\n]|\\.)*"\s*)+$', re.S)
ONE_LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"', re.S)
ERRORS_FIELD = re.compile(r'\.errors\s*=\s*((?:"(?:[^"\\\n]|\\.)*"\s*)+)', re.S)

SCANNED_DIRS = ('stagewright', 'transports', 'tools', 'plugins')


def top_srcdir():
    env = os.environ.get('STW_TOP_SRCDIR')
    if env:
        return Path(env)
    return Path(__file__).resolve().parent.parent


def line_of(text, offset):
    return text.count('\n', 0, offset) + 1


def join_literals(text):
    """The value of one or more adjacent C string literals."""
    return ''.join(ONE_LITERAL.findall(text))


def split_arguments(text, start):
    """Splits the call arguments starting right after '(' at @start.
    Returns the list of raw argument texts, or None if unbalanced."""
    args = []
    depth = 0
    current = []
    i = start
    n = len(text)
    while i < n:
        c = text[i]
        if c in '"\'':
            quote = c
            j = i + 1
            while j < n and text[j] != quote:
                j += 2 if text[j] == '\\' else 1
            current.append(text[i:j + 1])
            i = j + 1
            continue
        if text.startswith('/*', i):
            end = text.find('*/', i + 2)
            i = n if end < 0 else end + 2
            continue
        if c in '([{':
            depth += 1
        elif c in ')]}':
            if depth == 0:
                args.append(''.join(current))
                return args
            depth -= 1
        elif c == ',' and depth == 0:
            args.append(''.join(current))
            current = []
            i += 1
            continue
        current.append(c)
        i += 1
    return None


def scan_text(text, path='<snippet>'):
    """Every code use in @text as (code, path, line, kind)."""
    uses = []

    for m in ENUM_IDENTIFIER.finditer(text):
        name = m.group(1)
        if not NOT_CODES.match(name):
            uses.append((name, path, line_of(text, m.start()), 'enum'))

    for m in CALL.finditer(text):
        args = split_arguments(text, m.end())
        position = CODE_FUNCTIONS[m.group(1)]
        if args is None or len(args) <= position:
            continue
        arg = args[position].strip()
        if STRING_LITERALS.match(arg):
            uses.append((join_literals(arg), path, line_of(text, m.start()), m.group(1)))

    for m in ERRORS_FIELD.finditer(text):
        for code in join_literals(m.group(1)).split():
            uses.append((code, path, line_of(text, m.start()), '.errors'))

    return uses


def scan_tree(top):
    uses = []
    files = []
    for directory in SCANNED_DIRS:
        root = top / directory
        if not root.is_dir():
            continue
        for path in sorted(root.rglob('*')):
            if path.suffix not in ('.c', '.h') or not path.is_file():
                continue
            files.append(path)
            text = path.read_text(encoding='utf-8', errors='replace')
            uses.extend(scan_text(text, str(path.relative_to(top))))
    return files, uses


def registry_codes(top):
    """The core table's codes, in order."""
    text = (top / 'stagewright' / 'stw-error-registry.c').read_text(encoding='utf-8')
    table = re.search(r'core_codes\[\]\s*=\s*\{(.*?)\n\};', text, re.S)
    if table is None:
        return []
    return re.findall(r'^\s*\{\s*"([A-Z][A-Z0-9_]*)"\s*,\s*\d{3}\s*,\s*(?:TRUE|FALSE)\s*,',
                      table.group(1), re.M)


def enum_codes(top):
    """The StwError enum's core values, in order."""
    text = (top / 'stagewright' / 'stw-enums.h').read_text(encoding='utf-8')
    body = re.search(r'typedef\s+enum\s*\{([^}]*)\}\s*StwError\s*;', text, re.S)
    if body is None:
        return []
    names = re.findall(r'\bSTW_ERROR_([A-Z0-9_]+)\b', body.group(1))
    return [name for name in names if name != 'PLUGIN']


def check_uses(uses, registered):
    """Problems with @uses as text lines; empty when all is well."""
    problems = []
    for code, path, line, kind in uses:
        plugin = PLUGIN_CODE.match(code)
        if '.' in code:
            if plugin is None:
                problems.append(f'{path}:{line}: {kind}: malformed plugin code "{code}" '
                                '(want <plugin>.UPPER_SNAKE)')
            elif plugin.group(1) == 'electron':
                problems.append(f'{path}:{line}: {kind}: "{code}" uses the reserved plugin name')
        elif not CORE_CODE.match(code):
            problems.append(f'{path}:{line}: {kind}: malformed code "{code}"')
        elif code not in registered:
            problems.append(f'{path}:{line}: {kind}: {code} is not in the registry')
    return problems


SELF_TEST_SNIPPET = r'''
  if (x)
    return stw_error_new ("NOT_A_REAL_CODE", _("nope %d"), 1);
  g_propagate_error (error, stw_error_new_literal ("NOT_RUNNING", NULL));
  e = STW_ERROR_BOGUS_ENUM_VALUE;
  f = STW_ERROR_NOT_RUNNING;
  stw_invocation_return_error_literal (invocation,
                                       "ALSO_BOGUS",
                                       "with (parens, and commas)");
  stw_invocation_return_error_literal (invocation, code_name, "NOT_A_CODE_MESSAGE");
  stw_error_new_literal (stw_error_get_code_name (other), "DYNAMIC_MESSAGE");
  GError *stw_error_new (const char *code_name, const char *format, ...);
  g_error_new (STW_ERROR, STW_ERROR_PLUGIN, "x");
  registry = STW_ERROR_REGISTRY (object);
  g_assert (STW_IS_ERROR_REGISTRY (registry));
  stw_error_new ("trace.NOT_RECORDING", "fine");
  stw_error_new ("trace.not_upper", "malformed");
  stw_error_new ("electron.RESERVED", "reserved");
  static const StwToolSpec specs[] = { {
    .name = "x",
    .errors = "NOT_RUNNING SPEC_BOGUS "
              "WAIT_TIMEOUT",
  } };
'''

SELF_TEST_REGISTERED = {'NOT_RUNNING', 'WAIT_TIMEOUT'}


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def result(self, ok, description, diagnostics=()):
        self.n += 1
        if not ok:
            self.failed += 1
        print(f'{"ok" if ok else "not ok"} {self.n} - {description}')
        for line in diagnostics:
            print(f'# {line}')


def main():
    top = top_srcdir()
    tap = Tap()
    planned = 8
    print(f'1..{planned}')
    print(f'# top_srcdir: {top}')

    # 1-2: the registry table and the enum agree.
    registry = registry_codes(top)
    enum = enum_codes(top)
    tap.result(len(registry) == 35 and len(set(registry)) == len(registry),
               f'the core table has the contract\'s 35 distinct codes (found {len(registry)})')
    mismatch = [f'position {i}: table {a!r}, enum {b!r}'
                for i, (a, b) in enumerate(zip(registry, enum)) if a != b]
    if len(registry) != len(enum):
        mismatch.append(f'table has {len(registry)} codes, enum has {len(enum)}')
    tap.result(registry and not mismatch, 'the core table matches the StwError enum, in order',
               mismatch)

    # 3-5: the scanner itself sees what it must, and only that.
    uses = scan_text(SELF_TEST_SNIPPET)
    found = {code for code, _, _, _ in uses}
    problems = check_uses(uses, SELF_TEST_REGISTERED)
    flagged = sorted({p.split(': ')[-1] for p in problems})
    must_flag = ['NOT_A_REAL_CODE', 'BOGUS_ENUM_VALUE', 'ALSO_BOGUS', 'SPEC_BOGUS',
                 'trace.not_upper', 'electron.RESERVED']
    missed = [code for code in must_flag if not any(code in p for p in problems)]
    tap.result(not missed and len(problems) == len(must_flag),
               'the scanner flags bogus codes in a snippet (enum, calls, spec fields, plugin forms)',
               [f'missed {code}' for code in missed] +
               ([f'flagged: {p}' for p in flagged] if missed or len(problems) != len(must_flag) else []))
    wrongly = sorted(found & {'NOT_A_CODE_MESSAGE', 'DYNAMIC_MESSAGE', 'PLUGIN', 'REGISTRY',
                              'nope %d', 'x', 'fine', 'with (parens, and commas)'})
    tap.result(not wrongly and {'NOT_RUNNING', 'WAIT_TIMEOUT', 'trace.NOT_RECORDING'} <= found,
               'the scanner ignores messages, dynamic codes, declarations and type macros',
               [f'wrongly collected {code!r}' for code in wrongly])
    lines = {code: line for code, _, line, _ in uses}
    located = lines.get('ALSO_BOGUS') == 7 and lines.get('SPEC_BOGUS') == 21
    tap.result(located, 'the scanner reports where a code is used',
               [] if located else
               [f'ALSO_BOGUS at {lines.get("ALSO_BOGUS")}, SPEC_BOGUS at {lines.get("SPEC_BOGUS")}'])

    # 6-8: the real sources.
    files, uses = scan_tree(top)
    kinds = {kind for _, _, _, kind in uses}
    tap.result(len(files) > 10 and len(uses) > 50 and {'enum', 'stw_error_new'} <= kinds,
               f'scanned {len(files)} files, {len(uses)} code uses ({", ".join(sorted(kinds))})')

    core_problems = check_uses([u for u in uses if '.' not in u[0]], set(registry))
    tap.result(not core_problems, 'every core code the sources use is registered', core_problems)

    plugin_uses = [u for u in uses if '.' in u[0]]
    plugin_problems = check_uses(plugin_uses, set(registry))
    tap.result(not plugin_problems,
               f'every plugin code ({len(plugin_uses)} uses) has the <plugin>.CODE form',
               plugin_problems)

    assert tap.n == planned
    return 1 if tap.failed else 0


if __name__ == '__main__':
    sys.exit(main())
