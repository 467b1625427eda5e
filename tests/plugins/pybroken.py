# pybroken.py: a Python plugin whose import fails (tests/e2e/plugins.test.mjs).
#
# SPDX-License-Identifier: LGPL-2.1-or-later

raise RuntimeError('pybroken needs a widget this machine lacks')
