// jsbroken.js: a JavaScript plugin whose import fails (tests/e2e/plugins.test.mjs).
//
// SPDX-License-Identifier: LGPL-2.1-or-later

throw new Error('jsbroken needs a widget this machine lacks');
