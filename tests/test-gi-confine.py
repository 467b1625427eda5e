#!/usr/bin/python3
# test-gi-confine.py: the confined open and write, as a Python plugin sees them
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Runs under Debian's /usr/bin/python3 (it has PyGObject); prints TAP.
# By hand, from the build tree:
#   GI_TYPELIB_PATH=$PWD LD_LIBRARY_PATH=$PWD/.libs /usr/bin/python3 tests/test-gi-confine.py
#
# Dispatcher.open_file() and write_file() open what was checked: beneath the
# app root held since it was set, never through a symlink that leads out.

import os
import shutil
import sys
import tempfile

from stwtest import GLib, Stagewright, expect_error, run_tap

TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


@test
def open_and_write_beneath_the_root():
    scratch = os.path.realpath(tempfile.mkdtemp(prefix='stw-gi-confine-'))
    try:
        root = os.path.join(scratch, 'root')
        outside = os.path.join(scratch, 'outside')
        os.mkdir(root)
        os.mkdir(outside)
        with open(os.path.join(root, 'in.txt'), 'w') as f:
            f.write('inside')
        with open(os.path.join(outside, 'in.txt'), 'w') as f:
            f.write('SECRET')
        os.symlink(outside, os.path.join(root, 'out'))

        dispatcher = Stagewright.Dispatcher.new()
        dispatcher.set_app_root(root)
        fd = dispatcher.open_file(os.path.join(root, 'in.txt'), os.O_RDONLY, 0)
        with os.fdopen(fd) as f:
            assert f.read() == 'inside'
        expect_error('BAD_ARGUMENT', dispatcher.open_file, os.path.join(root, 'out', 'in.txt'), os.O_RDONLY, 0)
        expect_error('BAD_ARGUMENT', dispatcher.open_file, os.path.join(outside, 'in.txt'), os.O_RDONLY, 0)
        expect_error('ABSOLUTE_PATH_REQUIRED', dispatcher.open_file, 'in.txt', os.O_RDONLY, 0)

        assert dispatcher.write_file(os.path.join(root, 'artifact.json'), GLib.Bytes.new(b'{}'), 0o600)
        with open(os.path.join(root, 'artifact.json')) as f:
            assert f.read() == '{}'
        assert os.stat(os.path.join(root, 'artifact.json')).st_mode & 0o777 == 0o600
        expect_error('BAD_ARGUMENT', dispatcher.write_file, os.path.join(root, 'out', 'artifact.json'),
                     GLib.Bytes.new(b'{}'), 0o600)
        assert sorted(os.listdir(outside)) == ['in.txt']
    finally:
        shutil.rmtree(scratch)


if __name__ == '__main__':
    sys.exit(run_tap(TESTS))
