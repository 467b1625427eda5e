#!/usr/bin/python3
# test-gi-plugin.py: plugins loaded into a Python host's own dispatcher
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Runs under Debian's /usr/bin/python3 (it has PyGObject); prints TAP.
# By hand, from the build tree:
#   GI_TYPELIB_PATH=$PWD LD_LIBRARY_PATH=$PWD/.libs /usr/bin/python3 tests/test-gi-plugin.py
#
# The C sample (plugins/samples/c) loads by name and by path into a
# dispatcher of this process, its symbols resolved in the library Python
# loaded; a plugin written in Python loads through the same engine, sets up
# from a callback, and a failing one leaves nothing behind. The three samples
# (C, Python, JavaScript through the GJS loader) load into one dispatcher.

import json
import os
import sys
import tempfile

from stwtest import GLib, Json, Stagewright, code_of, run_async, run_tap, to_python

TESTS = []
BUILDDIR = os.path.abspath(os.environ.get('G_TEST_BUILDDIR') or
                           os.path.join(os.path.dirname(os.path.abspath(__file__))))
SAMPLE_DIR = os.path.join(os.path.dirname(BUILDDIR), 'plugins', 'built')
SRCDIR = os.path.abspath(os.environ.get('G_TEST_SRCDIR') or os.path.dirname(os.path.abspath(__file__)))
PY_SAMPLE_DIR = os.path.join(os.path.dirname(SRCDIR), 'plugins', 'samples', 'python')
PY_LOADER = os.path.join(os.path.dirname(BUILDDIR), 'stagewright', 'loaders', '.libs', 'libpython3loader.so')
JS_SAMPLE_DIR = os.path.join(os.path.dirname(SRCDIR), 'plugins', 'samples', 'js')
JS_LOADER = os.path.join(os.path.dirname(BUILDDIR), 'stagewright', 'loaders', '.libs', 'libgjsloader.so')


def test(fn):
    TESTS.append(fn)
    return fn


def configs(value):
    return Json.from_string(json.dumps(value)).get_object()


def call(dispatcher, name, arguments='{}'):
    return json.loads(dispatcher.call_json_sync(name, arguments, None))


def assert_clean(dispatcher, name):
    assert dispatcher.list_plugins() == []
    assert dispatcher.lookup_provider(name) is None
    assert dispatcher.lookup_tool('electron_plugins') is None
    assert not [t for t in dispatcher.list_tools() if t.get_name().startswith(name + '_')]
    assert not [c for c in Stagewright.ErrorRegistry.get_default().list_codes() if c.startswith(name + '.')]


@test
def the_c_sample_by_name_and_by_path():
    os.environ['STAGEWRIGHT_PLUGIN_PATH'] = SAMPLE_DIR
    try:
        for spec in ('sample', os.path.join(SAMPLE_DIR, 'sample.plugin')):
            dispatcher = Stagewright.Dispatcher.new()
            loaded = dispatcher.load_plugins_sync([spec], configs({'sample': {'prefix': '> ', 'apiKey': 'k'}}), None)
            assert [p.get_name() for p in loaded] == ['sample'], loaded
            plugin = loaded[0]
            assert isinstance(plugin, Stagewright.Plugin)
            assert plugin.is_loaded()
            assert plugin.get_version() == '1.0.0'
            assert plugin.get_language() == 'c'
            assert dispatcher.lookup_tool('sample_title') is not None
            assert Stagewright.ErrorRegistry.get_default().contains('sample.TITLE_MISMATCH')
            assert to_python(plugin.get_config()) == {'prefix': '> ', 'apiKey': 'k'}

            envelope = call(dispatcher, 'sample_title')
            assert envelope['code'] == 'NOT_RUNNING', envelope
            listing = call(dispatcher, 'electron_plugins')
            assert listing['plugins'][0]['effectiveConfig'] == {'prefix': '> '}, listing
            assert listing['plugins'][0]['errorCodes'] == ['sample.NO_WINDOW', 'sample.TITLE_MISMATCH']

            unloaded = []
            plugin.connect('unloaded', lambda p: unloaded.append(p.get_name()))
            assert dispatcher.unload_plugins_sync(None)
            assert unloaded == ['sample']
            assert not plugin.is_loaded()
            assert_clean(dispatcher, 'sample')
    finally:
        del os.environ['STAGEWRIGHT_PLUGIN_PATH']


@test
def a_refused_load_names_the_plugin_and_leaves_nothing():
    os.environ['STAGEWRIGHT_PLUGIN_PATH'] = SAMPLE_DIR
    try:
        dispatcher = Stagewright.Dispatcher.new()
        try:
            dispatcher.load_plugins_sync(['sample', 'nosuch'], None, None)
        except GLib.Error as error:
            assert code_of(error) == 'PLUGIN_LOAD_FAILED', error.message
            assert 'nosuch' in error.message
        else:
            raise AssertionError('loaded a missing plugin')
        assert_clean(dispatcher, 'sample')
        try:
            dispatcher.load_plugins_sync(['sample'], configs({'sample': {'prefix': 1}}), None)
        except GLib.Error as error:
            assert code_of(error) == 'PLUGIN_CONFIG_INVALID', error.message
        else:
            raise AssertionError('loaded a bad configuration')
        assert_clean(dispatcher, 'sample')
    finally:
        del os.environ['STAGEWRIGHT_PLUGIN_PATH']


class Hello(Stagewright.Tool):
    def do_invoke(self, invocation):
        invocation.return_json(json.dumps({'hello': 'world'}))


class PyPlugin(Stagewright.Plugin):
    """Sets up from a main-loop callback, as a real plugin waiting for I/O would."""

    def __init__(self, name, fail=False, throw=False):
        schema = Stagewright.Schema.new_from_string('{"type":"object"}')
        super().__init__(name=name, version='0.1', core_versions='>=0.1')
        self.fail = fail
        self.throw = throw
        self.events = []
        self.add_tool(Hello(name='hello', description='Says hello.', input_schema=schema))
        self.add_error_code('NOPE', 409, False, 'Do not.')

    def do_setup(self, completion):
        self.events.append('setup')
        if self.throw:
            raise self.throw

        def later():
            if self.fail:
                completion.return_error_literal('no database')
            else:
                completion.return_success()
            return GLib.SOURCE_REMOVE

        GLib.idle_add(later)

    def do_teardown(self, completion):
        self.events.append('teardown')
        completion.return_success()


@test
def a_python_plugin_loads_asynchronously_into_the_same_engine():
    dispatcher = Stagewright.Dispatcher.new()
    first = PyPlugin('pyone')
    second = PyPlugin('pytwo')
    loaded = []
    first.connect('loaded', lambda p: loaded.append(p.get_name()))
    assert run_async(lambda done: dispatcher.add_plugins_async([first, second], None, None, done),
                     lambda source, result: source.add_plugins_finish(result))
    assert loaded == ['pyone']
    envelope = call(dispatcher, 'pyone_hello')
    assert envelope['ok'] and envelope['hello'] == 'world', envelope
    assert Stagewright.ErrorRegistry.get_default().contains('pytwo.NOPE')
    assert [p['name'] for p in call(dispatcher, 'electron_plugins')['plugins']] == ['pyone', 'pytwo']
    assert run_async(lambda done: dispatcher.unload_plugins_async(None, done),
                     lambda source, result: source.unload_plugins_finish(result))
    assert first.events == ['setup', 'teardown'] and second.events == ['setup', 'teardown']
    assert_clean(dispatcher, 'pyone')
    assert_clean(dispatcher, 'pytwo')


@test
def a_failing_python_setup_unloads_the_others():
    dispatcher = Stagewright.Dispatcher.new()
    good = PyPlugin('pygood')
    bad = PyPlugin('pybad', fail=True)
    try:
        run_async(lambda done: dispatcher.add_plugins_async([good, bad], None, None, done),
                  lambda source, result: source.add_plugins_finish(result))
    except GLib.Error as error:
        assert code_of(error) == 'PLUGIN_LOAD_FAILED'
        assert 'Plugin “pybad”: its setup failed: no database' in error.message, error.message
    else:
        raise AssertionError('a failing setup loaded')
    assert good.events == ['setup', 'teardown'], good.events
    assert bad.events == ['setup'], bad.events
    assert_clean(dispatcher, 'pygood')
    assert_clean(dispatcher, 'pybad')


@test
def a_python_setup_that_raises_fails_the_load_instead_of_hanging():
    # SystemExit too: a plugin cannot end the process that loads it.
    for throw, message in ((RuntimeError('setup blew up'), 'RuntimeError: setup blew up'),
                           (SystemExit(3), 'SystemExit: 3')):
        dispatcher = Stagewright.Dispatcher.new()
        good = PyPlugin('pyfine')
        bad = PyPlugin('pythrow', throw=throw)
        try:
            dispatcher.add_plugins_sync([good, bad], None, None)
        except GLib.Error as error:
            assert code_of(error) == 'PLUGIN_LOAD_FAILED'
            assert 'Plugin “pythrow”: its setup failed: ' + message in error.message, error.message
        else:
            raise AssertionError('a raising setup loaded')
        assert good.events == ['setup', 'teardown'], good.events
        assert_clean(dispatcher, 'pyfine')
        assert_clean(dispatcher, 'pythrow')


@test
def the_python_sample_loads_into_this_interpreter():
    """The loader shares this process's Python (Py_IsInitialized, the
    GIL): the plugin's module is this interpreter's, its class the
    Stagewright.Plugin this script sees. Loaded again, the module (and its
    GTypes, which never go) is reused and makes a new plugin."""
    if not os.path.exists(PY_LOADER):
        raise AssertionError('%s is not built' % PY_LOADER)
    os.environ['STAGEWRIGHT_PLUGIN_PATH'] = PY_SAMPLE_DIR
    try:
        for spec in ('pysample', os.path.join(PY_SAMPLE_DIR, 'pysample.plugin')):
            dispatcher = Stagewright.Dispatcher.new()
            loaded = dispatcher.load_plugins_sync([spec], configs({'pysample': {'prefix': '> '}}), None)
            assert [p.get_name() for p in loaded] == ['pysample'], loaded
            plugin = loaded[0]
            assert plugin.get_language() == 'python3'
            assert type(plugin).__name__ == 'PySamplePlugin', type(plugin)
            assert sys.modules['stagewright_plugin_pysample'].PySamplePlugin is type(plugin)
            assert isinstance(plugin, Stagewright.Plugin)
            assert Stagewright.ErrorRegistry.get_default().contains('pysample.TITLE_MISMATCH')
            assert call(dispatcher, 'pysample_title')['code'] == 'NOT_RUNNING'
            listing = call(dispatcher, 'electron_plugins')
            assert listing['plugins'][0]['language'] == 'python3', listing
            assert listing['plugins'][0]['effectiveConfig'] == {'prefix': '> '}, listing
            assert dispatcher.unload_plugins_sync(None)
            assert_clean(dispatcher, 'pysample')
    finally:
        del os.environ['STAGEWRIGHT_PLUGIN_PATH']


@test
def the_three_samples_load_into_one_dispatcher_of_this_process():
    """C, Python and JavaScript in one call: the C module resolves its
    symbols in the library this interpreter loaded, the Python sample runs
    in this interpreter, and the GJS loader makes the process's one
    GjsContext beside it. The three answer, are listed in their languages,
    and one unload leaves nothing of any."""
    for loader in (PY_LOADER, JS_LOADER):
        if not os.path.exists(loader):
            raise AssertionError('%s is not built' % loader)
    os.environ['STAGEWRIGHT_PLUGIN_PATH'] = ':'.join((SAMPLE_DIR, PY_SAMPLE_DIR, JS_SAMPLE_DIR))
    try:
        names = ['sample', 'pysample', 'jssample']
        for specs in (names, [os.path.join(d, n + '.plugin')
                              for d, n in zip((SAMPLE_DIR, PY_SAMPLE_DIR, JS_SAMPLE_DIR), names)]):
            dispatcher = Stagewright.Dispatcher.new()
            loaded = dispatcher.load_plugins_sync(specs, configs({name: {'prefix': name + '> '} for name in names}),
                                                  None)
            assert [p.get_name() for p in loaded] == names, loaded
            assert [p.get_language() for p in loaded] == ['c', 'python3', 'gjs'], loaded
            assert all(isinstance(p, Stagewright.Plugin) and p.is_loaded() for p in loaded)
            for name in names:
                assert dispatcher.lookup_tool(name + '_title') is not None, name
                assert Stagewright.ErrorRegistry.get_default().contains(name + '.TITLE_MISMATCH'), name
                envelope = call(dispatcher, name + '_title')
                assert envelope['code'] == 'NOT_RUNNING', envelope
            listing = call(dispatcher, 'electron_plugins')['plugins']
            assert [(p['name'], p['language']) for p in listing] == list(zip(names, ['c', 'python3', 'gjs']))
            assert [p['effectiveConfig'] for p in listing] == [{'prefix': name + '> '} for name in names]
            assert dispatcher.unload_plugins_sync(None)
            assert not any(p.is_loaded() for p in loaded)
            for name in names:
                assert_clean(dispatcher, name)
    finally:
        del os.environ['STAGEWRIGHT_PLUGIN_PATH']


PACKAGE_INIT = """
from gi.repository import Stagewright
from .tools import Hello


class PkgPlugin(Stagewright.Plugin):
    def __init__(self):
        super().__init__(name='pkgplug', version='1.0')
        self.add_tool(Hello(name='hello', description='Says hello.',
                            input_schema=Stagewright.Schema.new_from_string('{"type":"object"}')))
"""

PACKAGE_TOOLS = """
import json
from gi.repository import Stagewright


class Hello(Stagewright.Tool):
    def do_invoke(self, invocation):
        invocation.return_json(json.dumps({'from': __name__}))
"""


@test
def a_python_plugin_may_be_a_package():
    with tempfile.TemporaryDirectory() as directory:
        os.mkdir(os.path.join(directory, 'pkgplug'))
        for name, text in (('pkgplug.plugin', '[Plugin]\nModule=pkgplug\nLoader=python3\nVersion=1.0\n'
                                              'X-Stagewright-Core=*\n'),
                           ('pkgplug/__init__.py', PACKAGE_INIT),
                           ('pkgplug/tools.py', PACKAGE_TOOLS)):
            with open(os.path.join(directory, name), 'w') as out:
                out.write(text)
        dispatcher = Stagewright.Dispatcher.new()
        loaded = dispatcher.load_plugins_sync([os.path.join(directory, 'pkgplug.plugin')], None, None)
        assert [p.get_name() for p in loaded] == ['pkgplug'], loaded
        envelope = call(dispatcher, 'pkgplug_hello')
        assert envelope['ok'] and envelope['from'] == 'stagewright_plugin_pkgplug.tools', envelope
        assert dispatcher.unload_plugins_sync(None)
        assert_clean(dispatcher, 'pkgplug')


if __name__ == '__main__':
    sys.exit(run_tap(TESTS))
