# pyslow.py: a Python plugin whose teardown completes 1.5 s later, from a
# timeout (tests/e2e/http.test.mjs): the server's shutdown runs its main
# context meanwhile, so what was still pending completes in the middle.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import gi

gi.require_version('Stagewright', '1.0')
from gi.repository import GLib, Stagewright  # noqa: E402


class PySlow(Stagewright.Plugin):
    def __init__(self):
        super().__init__(name='pyslow', version='1.0.0')

    def do_setup(self, completion):
        completion.return_success()

    def do_teardown(self, completion):
        def done():
            completion.return_success()
            return GLib.SOURCE_REMOVE

        GLib.timeout_add(1500, done)
