#!/usr/bin/python3
# test-gi-production.py: the production plugin (issue 20, item 9) loaded
# into a Python host's own dispatcher through GObject Introspection,
# blocking and async
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# By hand, from the build tree:
#   GI_TYPELIB_PATH=$PWD LD_LIBRARY_PATH=$PWD/.libs /usr/bin/python3 tests/test-gi-production.py
#
# The fixture artifacts come from tests/fixtures/production-artifacts/
# build.mjs (fuses flipped by @electron/fuses, an AppImage made with
# mksquashfs, a .deb made with dpkg-deb). Python calls the plugin's API
# from its typelib (StagewrightProduction-1.0), blocking and async, and its
# tool through the dispatcher (call_json_sync, invoke_async).

import json
import os
import shutil
import subprocess
import sys
import tempfile

import gi
from stwtest import FIXTURES, Json, Stagewright, expect_plugin_code, run_async, run_tap

gi.require_version('StagewrightProduction', '1.0')
from gi.repository import StagewrightProduction  # noqa: E402

TESTS = []
BUILDDIR = os.path.abspath(os.environ.get('G_TEST_BUILDDIR') or
                           os.path.join(os.path.dirname(os.path.abspath(__file__))))
PLUGIN = os.path.join(os.path.dirname(BUILDDIR), 'plugins', 'built', 'production.plugin')
BUILD = os.path.join(FIXTURES, 'production-artifacts', 'build.mjs')
TOOLS = ('node', 'mksquashfs', 'unsquashfs', 'dpkg-deb', 'desktop-file-validate', 'objcopy')
state = {}


def test(fn):
    TESTS.append(fn)
    return fn


def skip_reason():
    if not os.path.exists(PLUGIN):
        return '%s is missing' % PLUGIN
    for tool in TOOLS:
        if shutil.which(tool) is None:
            return '%s is not installed' % tool
    # build.mjs flips fuses with npm's @electron/fuses, found as it finds it;
    # a tarball's make check (distcheck) runs without npm's tree.
    modules = os.environ.get('STW_NODE_MODULES') or os.path.join(os.path.dirname(FIXTURES), 'node_modules')
    fuses = os.path.join(modules, '@electron', 'fuses', 'dist', 'index.js')
    if not os.path.exists(fuses):
        return '%s is missing (npm ci in tests/)' % fuses
    return None


def artifacts():
    if 'artifacts' not in state:
        out = tempfile.mkdtemp(prefix='stw-prod-py-')
        state['out'] = out
        subprocess.run(['node', BUILD, out], check=True, timeout=120)
        with open(os.path.join(out, 'manifest.json')) as f:
            state['artifacts'] = json.load(f)
    return state['artifacts']


def json_object(value):
    return Json.from_string(json.dumps(value)).get_object()


def envelope_of(obj):
    node = Json.Node.alloc().init_object(obj)
    return json.loads(Json.to_string(node, False))


def call(dispatcher, name, args):
    return json.loads(dispatcher.call_json_sync(name, json.dumps(args), None))


def call_async(dispatcher, name, args):
    invocation = dispatcher.create_invocation(name, json_object(args))
    return envelope_of(run_async(lambda done: dispatcher.invoke_async(invocation, None, done),
                                 lambda source, result: source.invoke_finish(result), 120000))


def statuses(envelope):
    assert envelope['ok'], envelope
    return {check['id']: check['status'] for check in envelope['checks']}


def load(dispatcher, asynchronous):
    if asynchronous:
        return run_async(lambda done: dispatcher.load_plugins_async([PLUGIN], None, None, done),
                         lambda source, result: source.load_plugins_finish(result), 60000)
    return dispatcher.load_plugins_sync([PLUGIN], None, None)


@test
def blocking_the_deb_fails_its_sandbox_and_the_appimage_passes():
    a = artifacts()
    dispatcher = Stagewright.Dispatcher.new()
    loaded = load(dispatcher, False)
    assert [p.get_name() for p in loaded] == ['production']

    deb = call(dispatcher, 'production_validate', {'path': a['deb']})
    got = statuses(deb)
    assert deb['artifact'] == 'deb' and not deb['passed'], deb
    assert got['sandbox'] == 'fail' and got['fuses.RunAsNode'] == 'pass', got
    assert got['asar.integrity'] == 'pass' and got['deb.control'] == 'pass', got

    image = call(dispatcher, 'production_validate', {'path': a['appImage']})
    assert image['passed'] and set(statuses(image).values()) == {'pass'}, image

    missing = call(dispatcher, 'production_validate', {'path': a['missing']})
    assert not missing['ok'] and missing['code'] == 'production.APP_NOT_FOUND', missing
    assert dispatcher.unload_plugins_sync(None)


@test
def async_the_insecure_directory_fails_its_fuses_and_asar():
    a = artifacts()
    dispatcher = Stagewright.Dispatcher.new()
    # Confined: only what lies under the app root is read.
    dispatcher.set_app_root(state['out'])
    load(dispatcher, True)

    insecure = call_async(dispatcher, 'production_validate', {'path': a['insecureDir']})
    got = statuses(insecure)
    assert not insecure['passed']
    for fuse in ('RunAsNode', 'EnableCookieEncryption', 'EnableNodeOptionsEnvironmentVariable',
                 'EnableNodeCliInspectArguments', 'OnlyLoadAppFromAsar'):
        assert got['fuses.' + fuse] == 'fail', (fuse, got)
    assert got['asar.integrity'] == 'fail' and got['sandbox'] == 'fail', got

    secure = call_async(dispatcher, 'production_validate', {'path': a['secureDir']})
    assert statuses(secure)['fuses.OnlyLoadAppFromAsar'] == 'pass', secure

    outside = call_async(dispatcher, 'production_validate', {'path': '/usr/bin'})
    assert not outside['ok'] and outside['code'] == 'BAD_ARGUMENT', outside
    bundle = call_async(dispatcher, 'production_validate', {'path': a['notAnApp']})
    assert not bundle['ok'] and bundle['code'] == 'production.NOT_A_BUNDLE', bundle
    assert dispatcher.unload_plugins_sync(None)


@test
def the_typed_api_blocking_and_async():
    a = artifacts()
    plugin = StagewrightProduction.ProductionPlugin.new()
    dispatcher = Stagewright.Dispatcher.new()
    dispatcher.set_app_root(state['out'])
    assert dispatcher.add_plugins_sync([plugin], None, None)
    assert dispatcher.lookup_tool('production_validate') is not None

    report = plugin.validate_sync(a['deb'], None)
    assert isinstance(report, StagewrightProduction.ProductionReport)
    assert report.props.artifact == 'deb' and not report.props.passed
    ids = [check.props.id for check in report.get_checks()]
    assert ids[0] == 'artifact.structure' and 'deb.scripts' in ids, ids
    sandbox = report.lookup_check('sandbox')
    assert sandbox.get_status() == StagewrightProduction.ProductionStatus.FAIL, sandbox.get_evidence()
    assert 'mode 0755' in sandbox.props.evidence

    image = run_async(lambda done: plugin.validate_async(a['appImage'], None, done),
                      lambda source, result: source.validate_finish(result), 120000)
    assert image.get_passed()
    assert all(c.get_status() == StagewrightProduction.ProductionStatus.PASS for c in image.get_checks())

    try:
        plugin.validate_sync('/usr/bin', None)
        raise AssertionError('a path outside the app root was read')
    except gi.repository.GLib.Error as error:
        assert 'outside --app-root' in error.message, error.message
    # The plugin's codes reach Python in its own error domain.
    expect_plugin_code(StagewrightProduction.production_error_quark(),
                       StagewrightProduction.ProductionError.NOT_A_BUNDLE, 'production.NOT_A_BUNDLE',
                       plugin.validate_sync, a['notAnApp'], None)
    expect_plugin_code(StagewrightProduction.production_error_quark(),
                       StagewrightProduction.ProductionError.APP_NOT_FOUND, 'production.APP_NOT_FOUND', run_async,
                       lambda done: plugin.validate_async(a['missing'], None, done),
                       lambda source, result: source.validate_finish(result), 60000)
    assert dispatcher.unload_plugins_sync(None)


def cleanup():
    if 'out' in state:
        shutil.rmtree(state['out'], ignore_errors=True)


if __name__ == '__main__':
    try:
        status = run_tap(TESTS, skip_reason(), cleanup)
    finally:
        cleanup()
    sys.exit(status)
