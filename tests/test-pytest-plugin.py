#!/usr/bin/python3
# test-pytest-plugin.py: the pytest plugin (bindings/python/stagewright/
# pytest_plugin.py) as a user runs it: pytest, run by GI_PYTHON in a child
# process, over tests/pytest/fixtures_test.py (which must pass) and
# tests/pytest/failing_test.py (which must fail, leaving a screenshot that
# its report names, in the -rA output and in JUnit XML; with
# --stagewright-trace, its trace too).
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Prints TAP.

import os
import subprocess
import sys
import tempfile
import json
import xml.etree.ElementTree as ElementTree
import zipfile

from stwtest import ELECTRON, FIXTURES, TOP_SRCDIR, missing_fixture, run_tap

DEMO_APP = os.path.join(FIXTURES, 'demo-app')
PYTEST_FILES = os.path.join(TOP_SRCDIR, 'tests', 'pytest')
PYTHON = os.environ.get('GI_PYTHON', '/usr/bin/python3')
BUILT_PLUGINS = os.path.join(os.environ.get('G_TEST_BUILDDIR', os.path.join(TOP_SRCDIR, 'tests')), '..',
                             'plugins', 'built')
TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


def pytest(workdir, *args, env=None):
    """Runs pytest with the plugin in workdir; answers (exit status, output)."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE='1', **(env or {}))
    env.pop('PYTEST_ADDOPTS', None)
    done = subprocess.run(
        [PYTHON, '-m', 'pytest', '-p', 'stagewright.pytest_plugin', '-p', 'no:cacheprovider',
         '--stagewright-executable', ELECTRON, '--stagewright-main', DEMO_APP, '-rA'] + list(args),
        cwd=workdir, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        universal_newlines=True, timeout=240)
    return done.returncode, done.stdout


@test
def the_fixtures_launch_and_stop_the_app():
    with tempfile.TemporaryDirectory(prefix='stw-pt') as workdir:
        status, output = pytest(workdir, os.path.join(PYTEST_FILES, 'fixtures_test.py'))
        assert status == 0, output
        assert '3 passed' in output, output
        assert not os.path.exists(os.path.join(workdir, 'test-results')), 'a screenshot without a failure'


@test
def a_failed_test_leaves_a_screenshot_named_in_its_report():
    with tempfile.TemporaryDirectory(prefix='stw-pt') as workdir:
        output_dir = os.path.join(workdir, 'shots')
        junit = os.path.join(workdir, 'junit.xml')
        status, output = pytest(workdir, os.path.join(PYTEST_FILES, 'failing_test.py'),
                                '--stagewright-output', output_dir, '--junitxml', junit)
        assert status == 1, (status, output)  # pytest's "tests failed", not a usage or internal error
        assert '1 failed, 1 passed' in output, output
        shots = os.listdir(output_dir)
        assert len(shots) == 1 and 'test_fails_while_the_app_runs' in shots[0], shots
        path = os.path.join(output_dir, shots[0])
        with open(path, 'rb') as f:
            data = f.read()
        assert data.startswith(b'\x89PNG\r\n\x1a\n') or data.startswith(b'\xff\xd8'), data[:16]
        assert len(data) > 1000, len(data)
        assert 'stagewright screenshot' in output and path in output, output
        cases = {case.get('name'): case for case in ElementTree.parse(junit).iter('testcase')}
        failed = cases['test_fails_while_the_app_runs']
        assert failed.find('failure') is not None
        properties = {p.get('name'): p.get('value') for p in failed.iter('property')}
        assert properties.get('stagewright_screenshot') == path, properties
        assert cases['test_passes'].find('properties') is None


@test
def a_failed_test_leaves_its_trace_named_in_its_report():
    with tempfile.TemporaryDirectory(prefix='stw-pt') as workdir:
        output_dir = os.path.join(workdir, 'out')
        junit = os.path.join(workdir, 'junit.xml')
        status, output = pytest(workdir, os.path.join(PYTEST_FILES, 'failing_test.py'),
                                '--stagewright-output', output_dir, '--junitxml', junit,
                                '--stagewright-trace', 'retain-on-failure',
                                env={'STAGEWRIGHT_PLUGIN_PATH': BUILT_PLUGINS})
        assert status == 1, (status, output)
        assert '1 failed, 1 passed' in output, output
        names = sorted(os.listdir(output_dir))
        traces = [n for n in names if '-trace.' in n]
        # The failed test's recording and export; the passing test's are gone.
        assert len(traces) == 2 and all('test_fails_while_the_app_runs' in n for n in traces), names
        recording = os.path.join(output_dir, [n for n in traces if n.endswith('.jsonl')][0])
        archive = os.path.join(output_dir, [n for n in traces if n.endswith('.zip')][0])
        with open(recording) as f:
            records = [json.loads(line) for line in f]
        assert records[0]['format'] == 'stagewright-trace' and records[-1]['type'] == 'footer', records[-1]
        # From before the launch: the app's DevTools traffic is in it.
        methods = {r.get('method') for r in records if r['type'] == 'cdp'}
        assert 'Runtime.evaluate' in methods or 'Runtime.callFunctionOn' in methods, sorted(filter(None, methods))
        with zipfile.ZipFile(archive) as z:
            assert z.testzip() is None
            assert any(n.endswith('.trace') for n in z.namelist()), z.namelist()
        assert 'stagewright trace' in output and recording in output and archive in output, output
        cases = {case.get('name'): case for case in ElementTree.parse(junit).iter('testcase')}
        properties = {p.get('name'): p.get('value') for p in cases['test_fails_while_the_app_runs'].iter('property')}
        assert properties.get('stagewright_trace') == recording, properties
        assert properties.get('stagewright_trace_zip') == archive, properties
        assert cases['test_passes'].find('properties') is None


@test
def the_app_needs_an_executable_or_main():
    with tempfile.TemporaryDirectory(prefix='stw-pt') as workdir:
        script = os.path.join(workdir, 'bare_test.py')
        with open(script, 'w') as f:
            f.write('def test_bare(stagewright_app):\n    pass\n')
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE='1')
        done = subprocess.run([PYTHON, '-m', 'pytest', '-p', 'stagewright.pytest_plugin', '-p', 'no:cacheprovider',
                               script], cwd=workdir, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              universal_newlines=True, timeout=120)
        assert done.returncode != 0 and '--stagewright-executable' in done.stdout, done.stdout


@test
def the_entry_point_registers_the_plugin():
    # As installed: the dist-info `make` wrote beside the module, and no -p.
    dist_info = os.path.join(os.environ.get('G_TEST_BUILDDIR', os.path.join(TOP_SRCDIR, 'tests')), '..',
                             'bindings', 'dist-info')
    with tempfile.TemporaryDirectory(prefix='stw-pt') as workdir:
        site = os.path.join(workdir, 'site', 'stagewright-0.dist-info')
        os.makedirs(site)
        for name in ('METADATA', 'entry_points.txt'):
            with open(os.path.join(dist_info, name)) as f, open(os.path.join(site, name), 'w') as out:
                out.write(f.read())
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE='1',
                   PYTHONPATH=os.pathsep.join([os.path.dirname(site), os.environ.get('PYTHONPATH', '')]))
        done = subprocess.run([PYTHON, '-m', 'pytest', '-p', 'no:cacheprovider', '--help'], cwd=workdir, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, timeout=120)
        assert done.returncode == 0 and '--stagewright-executable' in done.stdout, done.stdout
        env.pop('PYTHONPATH')
        done = subprocess.run([PYTHON, '-m', 'pytest', '-p', 'no:cacheprovider', '--help'], cwd=workdir, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, timeout=120)
        assert '--stagewright-executable' not in done.stdout, 'the plugin loads without its entry point'


def missing():
    try:
        import pytest as _pytest  # noqa: F401
    except ImportError:
        return 'pytest is missing (apt-get install python3-pytest)'
    return missing_fixture(os.path.join(DEMO_APP, 'package.json'))


if __name__ == '__main__':
    sys.exit(run_tap(TESTS, missing()))
