#!/usr/bin/python3
# test-gi-storage.py: the storage plugin (issue 19, items 5-7) loaded into a
# Python host's own dispatcher through GObject Introspection, blocking and
# async
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# By hand, from the build tree:
#   GI_TYPELIB_PATH=$PWD LD_LIBRARY_PATH=$PWD/.libs /usr/bin/python3 tests/test-gi-storage.py
#
# On a loopback HTTP page: cookies with sameSite and expires, Web Storage
# set, read and cleared, an IndexedDB record with a Uint8Array in
# Playwright's encoding, a storage state saved and loaded back (the page's
# next load sees it), the snapshot; opfs, credentials, a cookie for a
# domain the config does not allow and a path outside the app root are
# refused and nothing is applied. The same through the plugin's own API
# (StagewrightStorage.StoragePlugin), blocking and async.

import json
import os
import shutil
import sys
import tempfile
import time

from stwtest import ELECTRON, CHROMIUM, FIXTURES, GLib, Json, Stagewright, run_async, run_tap

import gi  # noqa: E402

gi.require_version('StagewrightStorage', '1.0')
from gi.repository import StagewrightStorage  # noqa: E402

TESTS = []
BUILDDIR = os.path.abspath(os.environ.get('G_TEST_BUILDDIR') or
                           os.path.join(os.path.dirname(os.path.abspath(__file__))))
PLUGIN = os.path.join(os.path.dirname(BUILDDIR), 'plugins', 'built', 'storage.plugin')
STORAGE_APP = os.path.join(FIXTURES, 'storage-app')
CONFIG = {'storage': {'cookieDomains': ['127.0.0.1'], 'allowReveal': True}}
state = {}


def test(fn):
    TESTS.append(fn)
    return fn


def skip_reason():
    for path in (ELECTRON, CHROMIUM, PLUGIN):
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
                                 lambda source, result: source.invoke_finish(result), 60000))


def ok(envelope):
    assert envelope['ok'], envelope
    return envelope


def fails(envelope, code):
    assert not envelope['ok'] and envelope['code'] == code, envelope
    return envelope


def report(dispatcher, sid, want=None):
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        got = call(dispatcher, 'electron_get_text', {'sessionId': sid, 'selector': '#report'})
        if got['ok'] and got['text'] != 'pending':
            value = json.loads(got['text'])
            if want is None or want(value):
                return value
        time.sleep(0.05)
    raise AssertionError('the page never reported what was expected')


def expect_plugin_error(code, words, fn, *args):
    # The plugin's errors are in its own domain (StwStorageError), which
    # PyGObject keeps: the code is matched, and its wire name read back.
    try:
        fn(*args)
    except GLib.Error as error:
        assert error.matches(StagewrightStorage.storage_error_quark(), code), (error.domain, error.code, error.message)
        assert Stagewright.error_get_code_name(error) == 'storage.' + code.value_nick.upper().replace('-', '_'), \
            Stagewright.error_get_code_name(error)
        assert words in error.message, (error.code, error.message)
        return error
    raise AssertionError('expected an error saying %r' % words)


Error = StagewrightStorage.StorageError


def api_blocking_and_async(dispatcher, sid, tmp, origin):
    plugin = dispatcher.lookup_plugin('storage')
    assert isinstance(plugin, StagewrightStorage.StoragePlugin), plugin
    session = dispatcher.get_session_manager().lookup(sid)
    Local = StagewrightStorage.StorageArea.LOCAL

    plugin.web_storage_sync(session, None, None, Local, 'set', 'api', 'yes', None)
    got = run_async(lambda done: plugin.web_storage_async(session, None, None, Local, 'get', 'api', None, None, done),
                    lambda source, result: source.web_storage_finish(result))
    assert got.get_string_member('value') == 'yes'

    cookies = plugin.get_cookies_sync(session, None, None, None)
    assert [(c.name, c.value, c.same_site) for c in cookies] == [('sid', 'v1', 'Strict')], cookies
    cookies = run_async(lambda done: plugin.get_cookies_async(session, None, ['http://example.com/'], None, done),
                        lambda source, result: source.get_cookies_finish(result))
    assert len(cookies) == 0
    # A partition is found by main-process eval, which this dispatcher does not allow.
    expect_plugin_error(Error.EVAL_REQUIRED, '--allow-eval=main', plugin.get_cookies_sync, session, 'persist:x', None, None)

    saved = run_async(lambda done: plugin.save_state_async(session, None, True, None, done),
                      lambda source, result: source.save_state_finish(result))
    assert saved.dup_origin_names() == [origin], saved.dup_origin_names()
    text = saved.to_data()[0]
    assert '"api"' in text, text
    state = StagewrightStorage.StorageState.new_from_data(text.encode())
    assert len(state.get_cookies()) == 1
    expect_plugin_error(Error.UNSUPPORTED, 'opfs', StagewrightStorage.StorageState.new_from_data,
                        json.dumps({'cookies': [], 'origins': [{'origin': origin, 'localStorage': [],
                                    'opfs': [{'path': 'a', 'type': 'file'}]}]}).encode())
    path = os.path.join(tmp, 'api.json')
    assert plugin.write_state(state, path)
    assert plugin.read_state(path).dup_origin_names() == [origin]

    plugin.web_storage_sync(session, None, None, Local, 'remove', 'api', None, None)
    answer = plugin.load_state_sync(session, None, state, False, None)
    assert answer.get_int_member('cookies') == 1
    assert plugin.web_storage_sync(session, None, None, Local, 'get', 'api', None, None).get_string_member('value') == 'yes'
    plugin.web_storage_sync(session, None, None, Local, 'remove', 'api', None, None)


@test
def cookies_web_storage_idb_and_state_blocking_and_async():
    dispatcher = Stagewright.Dispatcher.new()
    dispatcher.add_core_tools()
    loaded = run_async(lambda done: dispatcher.load_plugins_async([PLUGIN], json_object(CONFIG), None, done),
                       lambda source, result: source.load_plugins_finish(result), 60000)
    assert [p.get_name() for p in loaded] == ['storage']
    state['dispatcher'] = dispatcher
    launch = ok(call(dispatcher, 'electron_launch', {'executablePath': ELECTRON, 'main': STORAGE_APP,
                                                     'args': ['--serve']}))
    sid = launch['session_id']
    state['session_id'] = sid
    first = report(dispatcher, sid)
    origin = first['origin']
    expires = int(time.time()) + 3600

    ok(call_async(dispatcher, 'storage_set_cookie', {'sessionId': sid, 'url': origin + '/', 'name': 'sid',
                                                     'value': 'v1', 'sameSite': 'Strict', 'expires': expires}))
    cookies = ok(call(dispatcher, 'storage_cookies', {'sessionId': sid, 'reveal': True}))
    assert cookies['redacted'] is False and cookies['session'] == 'default', cookies
    (cookie,) = cookies['cookies']
    assert (cookie['name'], cookie['value'], cookie['sameSite'], round(cookie['expires'])) == \
        ('sid', 'v1', 'Strict', expires), cookie

    ok(call(dispatcher, 'storage_local_set', {'sessionId': sid, 'key': 'user', 'value': 'ada'}))
    assert ok(call_async(dispatcher, 'storage_local_get', {'sessionId': sid, 'key': 'user'}))['value'] == 'ada'
    ok(call_async(dispatcher, 'storage_session_set', {'sessionId': sid, 'key': 'tab', 'value': '1'}))
    assert ok(call(dispatcher, 'storage_session_remove', {'sessionId': sid, 'key': 'tab'}))['removed']

    tmp = tempfile.mkdtemp(prefix='stw-gs-')
    state['tmp'] = tmp
    seed = os.path.join(tmp, 'seed.json')
    with open(seed, 'w') as f:
        json.dump({'cookies': [cookie], 'origins': [{'origin': origin, 'localStorage': [{'name': 'user', 'value': 'ada'}],
                   'indexedDB': [{'name': 'app', 'version': 1, 'stores': [
                       {'name': 'things', 'autoIncrement': False, 'records': [
                           {'key': 'k1', 'valueEncoded': {'o': [{'k': 'title', 'v': 'first'},
                                                                 {'k': 'when', 'v': {'d': '2024-01-02T03:04:05.000Z'}},
                                                                 {'k': 'bytes', 'v': {'ta': {'b': 'AQL6', 'k': 'ui8'}}}],
                                                           'id': 1}}],
                        'indexes': []}]}]}]}, f)
    loaded_state = ok(call_async(dispatcher, 'storage_state_load', {'sessionId': sid, 'path': seed}))
    assert loaded_state['origins'][0]['records'] == 1, loaded_state
    seen = report(dispatcher, sid, lambda r: isinstance(r['idb'], dict))
    assert seen['idb'] == {'title': 'first', 'whenIsDate': True, 'when': '2024-01-02T03:04:05.000Z',
                           'bytesIsUint8Array': True, 'bytes': [1, 2, 250]}, seen
    assert seen['local'] == {'user': 'ada'} and 'sid=v1' in seen['cookie'], seen

    got = ok(call(dispatcher, 'storage_idb_get', {'sessionId': sid, 'db': 'app', 'store': 'things', 'key': 'k1'}))
    assert got['valueEncoded']['o'][2] == {'k': 'bytes', 'v': {'ta': {'b': 'AQL6', 'k': 'ui8'}}}, got
    assert ok(call_async(dispatcher, 'storage_idb_keys', {'sessionId': sid, 'db': 'app', 'store': 'things'}))['keys'] == [{'key': 'k1'}]
    snapshot = ok(call_async(dispatcher, 'storage_snapshot', {'sessionId': sid}))
    assert snapshot['cookies'] == 1 and snapshot['origins'][0]['indexedDB'][0]['stores'] == [{'name': 'things', 'count': 1}], snapshot

    saved = os.path.join(tmp, 'saved.json')
    ok(call(dispatcher, 'storage_state_save', {'sessionId': sid, 'path': saved, 'indexedDB': True}))
    with open(saved) as f:
        written = json.load(f)
    assert written['origins'][0]['indexedDB'][0]['stores'][0]['records'][0]['valueEncoded']['o'][1]['v'] == \
        {'d': '2024-01-02T03:04:05.000Z'}, written

    api_blocking_and_async(dispatcher, sid, tmp, origin)

    # Refused, nothing applied.
    def refuse(name, content, code, asynchronous):
        path = os.path.join(tmp, name)
        with open(path, 'w') as f:
            f.write(content if isinstance(content, str) else json.dumps(content))
        how = call_async if asynchronous else call
        return fails(how(dispatcher, 'storage_state_load', {'sessionId': sid, 'path': path}), code)

    assert 'opfs' in refuse('opfs.json', {'cookies': [], 'origins': [{'origin': origin, 'localStorage': [],
                                          'opfs': [{'path': 'a', 'type': 'file'}]}]}, 'storage.UNSUPPORTED', True)['error']
    assert 'credentials' in refuse('cred.json', {'cookies': [], 'origins': [], 'credentials': [{'id': 'x'}]},
                                   'storage.UNSUPPORTED', False)['error']
    refuse('bank.json', {'cookies': [dict(cookie, domain='bank.example')], 'origins': []}, 'storage.NOT_ALLOWED', True)
    refuse('broken.json', '{"origins": [', 'BAD_ARGUMENT', False)
    os.mkdir(os.path.join(tmp, 'inner'))
    dispatcher.set_app_root(os.path.join(tmp, 'inner'))
    fails(call(dispatcher, 'storage_state_load', {'sessionId': sid, 'path': saved}), 'BAD_ARGUMENT')
    dispatcher.set_app_root(None)
    assert ok(call(dispatcher, 'storage_local_get', {'sessionId': sid, 'key': 'user'}))['value'] == 'ada'
    assert ok(call(dispatcher, 'storage_cookies', {'sessionId': sid}))['count'] == 1

    assert ok(call_async(dispatcher, 'storage_clear_cookies', {'sessionId': sid}))['cleared'] == 1
    assert ok(call(dispatcher, 'storage_local_clear', {'sessionId': sid}))['cleared'] == 1
    ok(call(dispatcher, 'electron_stop', {'sessionId': sid}))
    state.pop('session_id')
    assert dispatcher.unload_plugins_sync(None)


@test
def partitions_blocking_and_async():
    # A second window on the same origin in the persist:py partition: its
    # cookies and localStorage are its own, through the tools and the API,
    # blocking and async; a partition with no window is storage.NOT_FOUND,
    # and without main eval storage.EVAL_REQUIRED.
    dispatcher = Stagewright.Dispatcher.new()
    dispatcher.add_core_tools()
    dispatcher.set_allow_eval(Stagewright.EvalTarget.MAIN | Stagewright.EvalTarget.RENDERER)
    run_async(lambda done: dispatcher.load_plugins_async([PLUGIN], json_object(CONFIG), None, done),
              lambda source, result: source.load_plugins_finish(result), 60000)
    state['dispatcher'] = dispatcher
    sid = ok(call(dispatcher, 'electron_launch', {'executablePath': ELECTRON, 'main': STORAGE_APP,
                                                  'args': ['--serve', '--partition=persist:py']}))['session_id']
    state['session_id'] = sid
    origin = report(dispatcher, sid)['origin']
    plugin = dispatcher.lookup_plugin('storage')
    session = dispatcher.get_session_manager().lookup(sid)
    Local = StagewrightStorage.StorageArea.LOCAL
    part = 'persist:py'

    # The partition's window has loaded the page when its snapshot has the origin.
    deadline = time.monotonic() + 20
    while [o['origin'] for o in call(dispatcher, 'storage_snapshot', {'sessionId': sid, 'partition': part})
           .get('origins', [])] != [origin]:
        assert time.monotonic() < deadline, 'the partition\'s window never came up'
        time.sleep(0.05)

    # Tools, blocking and async.
    set_ = ok(call_async(dispatcher, 'storage_set_cookie', {'sessionId': sid, 'partition': part, 'url': origin + '/',
                                                            'name': 'py', 'value': '1'}))
    assert set_['session'] == part, set_
    listed = ok(call(dispatcher, 'storage_cookies', {'sessionId': sid, 'partition': part}))
    assert [c['name'] for c in listed['cookies']] == ['py'] and listed['session'] == part, listed
    assert ok(call_async(dispatcher, 'storage_cookies', {'sessionId': sid}))['count'] == 0

    # The API, blocking and async.
    plugin.web_storage_sync(session, part, None, Local, 'set', 'where', 'py', None)
    got = run_async(lambda done: plugin.web_storage_async(session, part, None, Local, 'get', 'where', None, None, done),
                    lambda source, result: source.web_storage_finish(result))
    assert got.get_string_member('value') == 'py'
    assert not plugin.web_storage_sync(session, None, None, Local, 'get', 'where', None, None).get_boolean_member('found')
    cookies = run_async(lambda done: plugin.get_cookies_async(session, part, None, None, done),
                        lambda source, result: source.get_cookies_finish(result))
    assert [c.name for c in cookies] == ['py'], cookies
    assert [c.name for c in plugin.get_cookies_sync(session, None, None, None)] == []
    saved = plugin.save_state_sync(session, part, False, None)
    assert [c.name for c in saved.get_cookies()] == ['py'] and '"where"' in saved.to_data()[0]
    expect_plugin_error(Error.NOT_FOUND, 'persist:none', plugin.get_cookies_sync, session, 'persist:none', None, None)
    fails(call(dispatcher, 'storage_cookies', {'sessionId': sid, 'partition': 'persist:none'}), 'storage.NOT_FOUND')

    dispatcher.set_allow_eval(Stagewright.EvalTarget.RENDERER)
    fails(call_async(dispatcher, 'storage_cookies', {'sessionId': sid, 'partition': part}), 'storage.EVAL_REQUIRED')
    expect_plugin_error(Error.EVAL_REQUIRED, '--allow-eval=main', plugin.snapshot_sync, session, part, None)
    try:
        run_async(lambda done: plugin.get_cookies_async(session, part, None, None, done),
                  lambda source, result: source.get_cookies_finish(result))
        raise AssertionError('a partition was reached without main eval')
    except GLib.Error as error:
        assert error.matches(StagewrightStorage.storage_error_quark(), Error.EVAL_REQUIRED), error
    ok(call(dispatcher, 'electron_stop', {'sessionId': sid}))
    state.pop('session_id')
    assert dispatcher.unload_plugins_sync(None)


def cleanup():
    dispatcher = state.get('dispatcher')
    if dispatcher is not None and 'session_id' in state:
        dispatcher.call_json_sync('electron_stop', json.dumps({'sessionId': state['session_id']}), None)
    if 'tmp' in state:
        shutil.rmtree(state['tmp'], ignore_errors=True)


if __name__ == '__main__':
    sys.exit(run_tap(TESTS, skip_reason(), cleanup))
