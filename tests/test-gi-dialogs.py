#!/usr/bin/python3
# test-gi-dialogs.py: the dialog handler, Electron API stubs and the console
# buffer of Stagewright.Session through GObject Introspection, from Python —
# blocking and async, Json.Object in and out, errors as GLib.Error with
# registry codes.
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Runs under Debian's /usr/bin/python3 (it has PyGObject); prints TAP. The
# app is the pages app (tests/fixtures/pages-app, dialogs.html) on the
# Electron stand-in. By hand, from the build tree:
#   GI_TYPELIB_PATH=$PWD LD_LIBRARY_PATH=$PWD/.libs /usr/bin/python3 tests/test-gi-dialogs.py

import json
import os
import sys
import time

from stwtest import (Json, PAGES_APP, Stagewright, expect_error, missing_fixture, page_launch_options, run_async,
                     run_tap, spin, to_python)

TESTS = []
state = {}


def test(fn):
    TESTS.append(fn)
    return fn


def obj(data):
    """Python data as a Json.Object."""
    return Json.from_string(json.dumps(data)).get_object()


def sel(selector):
    return Stagewright.Target.new_for_selector(selector)


def result_text():
    return state['window'].get_text_sync(sel('#result'), None)[0]


@test
def launch_the_pages_app_on_dialogs():
    manager = Stagewright.SessionManager.new()
    state['manager'] = manager
    state['session'] = manager.launch_json_sync(page_launch_options('dialogs'), None)
    state['window'] = state['session'].get_active_surface()
    assert state['session'].has_main_process()


@test
def default_policy_dismisses_and_the_click_reports_it():
    session = state['session']
    policy = session.dup_dialog_policy()
    assert policy.get_action() == 'dismiss' and policy.get_stubs() == [], to_python(policy.to_json())
    assert policy.get_action_for('confirm') == 'dismiss' and not policy.is_one_shot()
    answer = to_python(state['window'].click_sync(sel('#confirm'), None, None))
    assert answer['dialog'] == {'type': 'confirm', 'message': 'Delete everything?', 'action': 'dismiss'}, answer
    assert result_text() == 'confirm false'


@test
def policy_blocking_then_events_async():
    session = state['session']
    assert session.set_dialog_policy(obj({'action': 'accept', 'promptText': 'Python'}))
    state['window'].click_sync(sel('#prompt'), None, None)
    assert result_text() == 'prompt "Python"'
    events = run_async(lambda done: session.read_dialog_events_async(obj({'type': 'prompt'}), None, done),
                       lambda source, result: source.read_dialog_events_finish(result))
    assert events.get_n_events() == 1, to_python(events.to_json())
    assert events.get_event(0).get_kind() == 'prompt' and events.get_event(0).get_prompt_text() == 'Python'
    assert events.get_event(0).get_action() == 'accept' and not events.get_event(0).is_stubbed_call()
    assert events.get_policy().get_prompt_text() == 'Python'
    assert events.is_native() is True and events.get_overflowed() == 0
    expect_error('BAD_ARGUMENT', session.set_dialog_policy, obj({'perType': {'toast': 'accept'}}))
    expect_error('BAD_ARGUMENT', session.read_dialog_events_sync, obj({'limit': 500}), None)
    assert session.set_dialog_policy(obj({}))


@test
def stubs_blocking_and_async():
    session = state['session']
    expect_error('BAD_ARGUMENT', session.stub_electron_sync, obj({'app.quit': True}), None)
    assert session.stub_electron_sync(obj({'dialog.showSaveDialog': '/tmp/saved.json'}), None)
    run_async(lambda done: session.stub_electron_async(obj({'clipboard.readText': 'canned'}), None, done),
              lambda source, result: source.stub_electron_finish(result))
    code = ("(async () => { const { dialog, clipboard } = require('electron');"
            " const saved = await dialog.showSaveDialog({ title: 'Save' });"
            " return { saved, text: clipboard.readText() }; })()")
    value = to_python(run_async(lambda done: session.evaluate_main_async(code, None, done),
                                lambda source, result: source.evaluate_main_finish(result)))
    assert value == {'saved': {'canceled': False, 'filePath': '/tmp/saved.json'}, 'text': 'canned'}, value
    events = session.read_dialog_events_sync(obj({'type': ['dialog', 'clipboard']}), None)
    kinds = [events.get_event(i).get_kind() for i in range(events.get_n_events())]
    assert kinds == ['dialog.showSaveDialog', 'clipboard.readText'], to_python(events.to_json())
    assert all(events.get_event(i).is_stubbed_call() for i in range(events.get_n_events()))
    assert sorted(events.get_policy().get_stubs()) == ['clipboard.readText', 'dialog.showSaveDialog']


@test
def console_reads_the_page_and_the_main_process():
    session = state['session']
    run_async(lambda done: session.evaluate_main_async("console.warn('python says hi')", None, done),
              lambda source, result: source.evaluate_main_finish(result))
    found = {}

    def seen():
        logs = session.read_console(obj({'source': 'main', 'type': 'warning'}))
        found['logs'] = logs
        return logs.get_n_messages() > 0

    assert spin(seen, 10000), found
    last = found['logs'].get_message(found['logs'].get_n_messages() - 1)
    assert last.get_text() == 'python says hi', to_python(last.to_json())
    assert last.get_source() == 'main' and last.get_level() == 'warning' and last.get_timestamp() > 0
    everything = session.read_console(None)
    assert everything.get_overflowed() == 0 and everything.get_n_messages() >= 1
    expect_error('BAD_ARGUMENT', session.read_console, obj({'match': '(x+)*'}))
    expect_error('BAD_ARGUMENT', session.read_console, obj({'source': []}))
    started = time.monotonic()
    expect_error('BAD_ARGUMENT', session.read_console, obj({'match': '^(\\w+\\s?)*$'}))
    assert time.monotonic() - started < 1


def cleanup():
    session = state.get('session')
    if session is not None and session.is_running():
        session.stop_sync(5000, None)


if __name__ == '__main__':
    sys.exit(run_tap(TESTS, missing_fixture(os.path.join(PAGES_APP, 'pages', 'dialogs.html')), cleanup))
