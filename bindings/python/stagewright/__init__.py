# Stagewright's Python helpers beside the PyGObject override (which is
# gi.overrides.Stagewright): the pytest plugin, stagewright.pytest_plugin.
#
# SPDX-License-Identifier: LGPL-2.1-or-later
