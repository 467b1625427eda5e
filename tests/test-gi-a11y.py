#!/usr/bin/python3
# test-gi-a11y.py: the a11y plugin (issue 20, items 7 and 8) loaded into a
# Python host's own dispatcher through GObject Introspection, blocking and
# async
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# By hand, from the build tree:
#   GI_TYPELIB_PATH=$PWD LD_LIBRARY_PATH=$PWD/.libs /usr/bin/python3 tests/test-gi-a11y.py
#
# On tests/fixtures/a11y-pages/audit.html with axe-core from
# tests/node_modules: the violations with a ref per node that
# electron_get_attribute reads back, blocking and async; the scope's codes.

import json
import os
import sys

from stwtest import ELECTRON, CHROMIUM, FIXTURES, PAGES_APP, TOP_SRCDIR, Json, Stagewright, run_async, run_tap, spin

TESTS = []
BUILDDIR = os.path.abspath(os.environ.get('G_TEST_BUILDDIR') or
                           os.path.join(os.path.dirname(os.path.abspath(__file__))))
PLUGIN = os.path.join(os.path.dirname(BUILDDIR), 'plugins', 'built', 'a11y.plugin')
ENGINE = os.path.join(os.environ.get('STW_NODE_MODULES') or os.path.join(TOP_SRCDIR, 'tests', 'node_modules'),
                      'axe-core', 'axe.min.js')
PAGES = os.path.join(FIXTURES, 'a11y-pages')
state = {}


def test(fn):
    TESTS.append(fn)
    return fn


def skip_reason():
    for path in (ELECTRON, CHROMIUM, PLUGIN, ENGINE):
        if not os.path.exists(path):
            return '%s is missing' % path
    return None


def json_object(value):
    return Json.from_string(json.dumps(value)).get_object()


def envelope_of(obj):
    node = Json.Node.alloc().init_object(obj)
    return json.loads(Json.to_string(node, False))


def call(dispatcher, name, args=None):
    return json.loads(dispatcher.call_json_sync(name, json.dumps(args or {}), None))


def call_async(dispatcher, name, args=None):
    invocation = dispatcher.create_invocation(name, json_object(args or {}))
    return envelope_of(run_async(lambda done: dispatcher.invoke_async(invocation, None, done),
                                 lambda source, result: source.invoke_finish(result), 90000))


def ok(envelope):
    assert envelope['ok'], envelope
    return envelope


def fails(envelope, code):
    assert not envelope['ok'] and envelope['code'] == code, envelope
    return envelope


def violation(audit, rule):
    found = [v for v in audit['violations'] if v['id'] == rule]
    assert found, (rule, [v['id'] for v in audit['violations']])
    return found[0]


@test
def audit_blocking_and_async_with_refs():
    dispatcher = Stagewright.Dispatcher.new()
    dispatcher.add_core_tools()
    config = json_object({'a11y': {'engine': ENGINE}})
    loaded = run_async(lambda done: dispatcher.load_plugins_async([PLUGIN], config, None, done),
                       lambda source, result: source.load_plugins_finish(result), 60000)
    assert [p.get_name() for p in loaded] == ['a11y']
    state['dispatcher'] = dispatcher

    launch = ok(call(dispatcher, 'electron_launch', {
        'executablePath': ELECTRON, 'main': PAGES_APP, 'args': ['--page=audit', '--pages-dir=' + PAGES]}))
    sid = launch['session_id']
    state['session_id'] = sid

    # Both frames are up once three images without alt are found.
    found = {}

    def three_images():
        found['audit'] = ok(call(dispatcher, 'a11y_audit', {'sessionId': sid}))
        images = [v for v in found['audit']['violations'] if v['id'] == 'image-alt']
        return bool(images) and len(images[0]['nodes']) == 3

    assert spin(three_images, 20000), found['audit']
    audit = found['audit']

    def attribute_id(ref):
        return ok(call(dispatcher, 'electron_get_attribute', {'sessionId': sid, 'ref': ref, 'name': 'id'}))['value']

    assert [attribute_id(n['ref']) for n in violation(audit, 'label')['nodes']] == ['nameless']
    assert [attribute_id(n['ref']) for n in violation(audit, 'color-contrast')['nodes']] == ['faint']
    assert sorted(attribute_id(n['ref']) for n in violation(audit, 'image-alt')['nodes']) == \
        ['frame-noalt', 'frame-noalt', 'noalt']
    assert audit['capabilities']['world'] == 'isolated' and audit['capabilities']['frames'] == 3, audit['capabilities']

    scoped = ok(call_async(dispatcher, 'a11y_audit', {'sessionId': sid, 'rules': ['label', 'image-alt']}))
    assert sorted(v['id'] for v in scoped['violations']) == ['image-alt', 'label'], scoped
    assert violation(scoped, 'label')['nodes'][0]['ref'] == violation(audit, 'label')['nodes'][0]['ref']

    fails(call_async(dispatcher, 'a11y_audit', {'sessionId': sid, 'selector': '##'}), 'a11y.INVALID_SELECTOR')
    fails(call(dispatcher, 'a11y_audit', {'sessionId': sid, 'selector': '#no-such-element'}), 'a11y.SCOPE_NOT_FOUND')

    ok(call(dispatcher, 'electron_stop', {'sessionId': sid}))
    state.pop('session_id')
    assert dispatcher.unload_plugins_sync(None)


def cleanup():
    dispatcher = state.get('dispatcher')
    if dispatcher is not None and 'session_id' in state:
        dispatcher.call_json_sync('electron_stop', json.dumps({'sessionId': state['session_id']}), None)


if __name__ == '__main__':
    sys.exit(run_tap(TESTS, skip_reason(), cleanup))
