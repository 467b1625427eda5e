#!/usr/bin/python3
# test-gi-flow.py: the see-and-act flow of a script, through GObject
# Introspection from Python — launch the sign-up page, snapshot, fill, choose,
# check, click, read the result by ref, screenshot, stop — once with the
# blocking calls and once with the async ones under a main loop.
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Runs under Debian's /usr/bin/python3 (it has PyGObject); prints TAP.

import json
import re
import sys

from stwtest import (Json, PAGES_APP, Stagewright, expect_error, missing_fixture,
                     page_launch_options, run_async, run_tap, to_python)

TESTS = []
launched = []


def test(fn):
    TESTS.append(fn)
    return fn


def ref_of(snapshot_text, role, name):
    """The ref of the one line of a text snapshot showing role "name"."""
    pattern = re.compile(r'^\s*~?\[(\d+)\] %s "%s"' % (re.escape(role), re.escape(name)), re.M)
    found = pattern.findall(snapshot_text)
    assert len(found) == 1, (role, name, found, snapshot_text)
    return int(found[0])


def text_options():
    options = Stagewright.SnapshotOptions.new()
    options.set_format(Stagewright.SnapshotFormat.TEXT)
    return options


def by_ref(ref):
    return Stagewright.Target.new_for_ref(ref)


WELCOME = 'Welcome, Ada Lovelace! Your Pro plan is active.'


@test
def blocking_calls_sign_up():
    manager = Stagewright.SessionManager.new()
    session = manager.launch_json_sync(page_launch_options('signup'), None)
    launched.append(session)
    surface = session.get_active_surface()

    snapshot = surface.snapshot_sync(text_options(), None)
    assert not snapshot.is_diff(), to_python(snapshot.to_json())
    text = snapshot.get_text()
    name = ref_of(text, 'textbox', 'Full name')
    email = ref_of(text, 'textbox', 'Email')
    plan = ref_of(text, 'combobox', 'Plan')
    terms = ref_of(text, 'checkbox', 'I accept the terms')
    submit = ref_of(text, 'button', 'Sign up')

    done = to_python(surface.fill_sync(by_ref(name), 'Ada Lovelace', None, None))
    assert done['target']['ref'] == name, done
    surface.fill_sync(by_ref(email), 'ada@example.org', None, None)
    # The snapshot shows labels; choosing by label must work.
    chosen = to_python(surface.select_options_sync(by_ref(plan), ['Pro'], None, None))
    assert chosen['values'] == ['pro'], chosen
    assert to_python(surface.set_checked_sync(by_ref(terms), True, None, None))['target']['ref'] == terms
    value, _ = surface.get_value_sync(by_ref(email), None)
    assert value == 'ada@example.org', value

    surface.click_sync(by_ref(submit), None, None)

    # The form is gone: its refs are refused, never re-used.
    error = expect_error('REF_NOT_FOUND', surface.fill_sync, by_ref(name), 'x', None, None)
    assert 'gone' in error.message, error.message
    found = to_python(surface.find_sync(to_filters(role='status'), None))
    assert found['count'] == 1, found
    status = found['matches'][0]['ref']
    assert status is not None and status not in (name, email, plan, terms, submit), found
    text, element = surface.get_text_sync(by_ref(status), None)
    assert text == WELCOME, text

    image = surface.capture_screenshot_sync(None, None).get_bytes().get_data()
    assert image[:8] == b'\x89PNG\r\n\x1a\n', image[:8]
    stopped, escalated = session.stop_sync(5000, None)
    assert stopped and not session.is_running()


def to_filters(**members):
    from gi.repository import Json
    filters = Json.Object.new()
    for key, value in members.items():
        filters.set_string_member(key, value)
    return filters


def call(method, *args):
    """Runs surface.METHOD_async(*args, None, done) and its _finish."""
    def start(done, surface=args[0]):
        getattr(surface, method + '_async')(*args[1:], None, done)
    return run_async(start, lambda source, result: getattr(source, method + '_finish')(result))


@test
def async_calls_sign_up():
    manager = Stagewright.SessionManager.new()
    options = Stagewright.LaunchOptions.new_from_json(page_launch_options('signup'))
    session = run_async(lambda done: manager.launch_async(options, None, done),
                        lambda source, result: source.launch_finish(result))
    launched.append(session)
    surface = session.get_active_surface()

    text = call('snapshot', surface, text_options()).get_text()
    # The whole form in one call; the plan by its value this time.
    fields = Json.from_string(json.dumps([
        dict(ref=ref_of(text, 'textbox', 'Full name'), value='Ada Lovelace'),
        dict(ref=ref_of(text, 'textbox', 'Email'), value='ada@example.org'),
        dict(ref=ref_of(text, 'combobox', 'Plan'), value='pro'),
        dict(ref=ref_of(text, 'checkbox', 'I accept the terms'), value=True),
    ])).get_array()
    filled = to_python(call('fill_form', surface, fields, None))
    assert filled['count'] == 4, filled
    call('click', surface, by_ref(ref_of(text, 'button', 'Sign up')), None)

    found = to_python(call('find', surface, to_filters(role='status')))
    text, element = call('get_text', surface, by_ref(found['matches'][0]['ref']))
    assert text == WELCOME, text
    image = call('capture_screenshot', surface, None).get_bytes().get_data()
    assert image[:8] == b'\x89PNG\r\n\x1a\n'
    run_async(lambda done: session.stop_async(5000, None, done),
              lambda source, result: source.stop_finish(result))
    assert not session.is_running()


def cleanup():
    for session in launched:
        if session.is_running():
            session.force_kill()


if __name__ == '__main__':
    sys.exit(run_tap(TESTS, missing_fixture(PAGES_APP), cleanup))
