# Run by tests/test-pytest-plugin.py, which expects this run to fail: the
# plugin must leave a screenshot of the app under --stagewright-output and
# name it in the report.
#
# SPDX-License-Identifier: LGPL-2.1-or-later


def test_fails_while_the_app_runs(stagewright_surface):
    assert stagewright_surface.props.title == 'Not the title of the demo app'


def test_passes(stagewright_surface):
    assert stagewright_surface.props.title == 'Stagewright Notes'
