# Run by tests/test-pytest-plugin.py: pytest with the shipped plugin
# (-p stagewright.pytest_plugin, --stagewright-executable and
# --stagewright-main naming the Electron stand-in and the demo app).
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import os

import gi
import pytest

gi.require_version('Stagewright', '1.0')
from gi.repository import Stagewright  # noqa: E402

PAGES_APP = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'fixtures', 'pages-app')
sessions = []


def sel(selector):
    return Stagewright.Target.new_for_selector(selector)


def test_app_and_surface(stagewright_app, stagewright_surface):
    sessions.append(stagewright_app)
    assert isinstance(stagewright_app, Stagewright.Session) and stagewright_app.is_running()
    assert stagewright_surface == stagewright_app.props.active_surface
    assert stagewright_surface.props.title == 'Stagewright Notes'
    filled = stagewright_surface.fill_sync(sel('#note-title'), 'From pytest', None, None)
    assert filled.get_target().get_name() == 'Title'
    stagewright_surface.click_sync(sel('#add'), None, None)
    stagewright_surface.expect_text_sync(sel('#note-count'), 'equals', '1 note', None, 5000, None)


@pytest.mark.stagewright(main=PAGES_APP, args=['--page=states'])
def test_the_marker_gives_launch_options(stagewright_app, stagewright_surface, stagewright_launch_options):
    sessions.append(stagewright_app)
    assert stagewright_launch_options['args'] == ['--page=states']
    assert os.path.samefile(stagewright_launch_options['main'], PAGES_APP)
    text, element = stagewright_surface.get_text_sync(sel('#go'), None)
    assert text == 'Go' and element.get_role() == 'button'


def test_each_app_was_stopped_after_its_test():
    assert len(sessions) == 2 and sessions[0] != sessions[1]
    assert not any(session.is_running() for session in sessions)
