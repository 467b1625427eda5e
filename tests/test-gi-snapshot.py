#!/usr/bin/python3
# test-gi-snapshot.py: snapshot, find and list_elements of a surface through
# GObject Introspection, from Python, blocking and async (no MCP involved).
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Prints TAP. The app is the pages app (tests/fixtures/pages-app) on the
# Electron stand-in, on headless Chromium. By hand, from the build tree:
#   GI_TYPELIB_PATH=$PWD LD_LIBRARY_PATH=$PWD/.libs /usr/bin/python3 tests/test-gi-snapshot.py

import os
import sys

from stwtest import (Json, PAGES_APP, Stagewright, expect_error, missing_fixture, page_launch_options,
                     run_async, run_tap, to_python)

TESTS = []
state = {}


def test(fn):
    TESTS.append(fn)
    return fn


@test
def launch_the_signup_page():
    manager = Stagewright.Dispatcher.new().get_session_manager()
    state['manager'] = manager
    session = manager.launch_json_sync(page_launch_options('signup'), None)
    state['session'] = session
    state['surface'] = session.get_active_surface()
    assert state['surface'] is not None


@test
def snapshot_sync_as_text():
    options = Stagewright.SnapshotOptions.new()
    options.set_format(Stagewright.SnapshotFormat.TEXT)
    options.set_interactive_only(True)
    answer = state['surface'].snapshot_sync(options, None)
    assert not answer.is_diff() and answer.get_entry_count() > 0
    assert answer.get_surface_id() == state['surface'].get_id()
    lines = answer.get_text().split('\n')
    assert lines[0].startswith('page "Sign up"'), lines[0]
    assert any(line.endswith('textbox "Full name" required') for line in lines), lines
    assert any('combobox "Plan" value="Free" options: ' in line for line in lines), lines
    assert any(line.endswith('button "Sign up"') for line in lines), lines


@test
def snapshot_options_from_json_validate():
    good = Json.from_string('{"format": "text", "maxEntries": 5, "since": "last", "root": "form"}').get_object()
    options = Stagewright.SnapshotOptions.new_from_json(good)
    assert options.get_max_entries() == 5
    assert options.get_since_last()
    assert options.get_root().get_selector() == 'form'
    for bad in ('{"maxEntries": 0}', '{"format": "xml"}', '{"budgetTokens": 10}', '{"root": ""}'):
        expect_error('BAD_ARGUMENT', Stagewright.SnapshotOptions.new_from_json, Json.from_string(bad).get_object())


@test
def snapshot_async_json_and_refs_agree_with_find_and_list():
    surface = state['surface']
    answer = run_async(lambda done: surface.snapshot_async(None, None, done), Stagewright.Surface.snapshot_finish)
    assert answer.get_text() is None and not answer.is_truncated()
    entries = to_python(answer.get_entries())
    assert answer.get_entry_count() == len(entries)
    button = next(e for e in entries if e['role'] == 'button')
    assert button['name'] == 'Sign up' and button['ref'] > 0
    filters = Json.Object()
    filters.set_string_member('role', 'button')
    found = to_python(run_async(lambda done: surface.find_async(filters, None, done), Stagewright.Surface.find_finish))
    assert found['count'] == 1 and found['matches'][0]['ref'] == button['ref'], found
    listed = to_python(surface.list_elements_sync('#submit', 0, None))
    assert listed['matches'][0]['ref'] == button['ref'], listed
    expect_error('BAD_ARGUMENT', surface.list_elements_sync, '::::', 0, None)


@test
def since_last_answers_a_diff():
    options = Stagewright.SnapshotOptions.new()
    options.set_since_last(True)
    answer = state['surface'].snapshot_sync(options, None)
    assert answer.is_diff(), to_python(answer.to_json())
    assert to_python(answer.get_diff())['_meta']['entries_changed'] == 0


@test
def stop():
    state['session'].stop_sync(5000, None)
    expect_error('NOT_RUNNING', state['surface'].snapshot_sync, None, None)


def cleanup():
    session = state.get('session')
    if session is not None and session.is_running():
        session.stop_sync(2000, None)


if __name__ == '__main__':
    sys.exit(run_tap(TESTS, missing_fixture(os.path.join(PAGES_APP, 'pages', 'signup.html')), cleanup))
