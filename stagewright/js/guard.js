// guard.js: the library's real input reaches its target or nobody.
//
// Between the library's look at the page (where the element is, what has
// the focus) and its real input, the page runs: it can swap the button
// under the pointer or move the focus to another field. Capture listeners
// on the window, in this isolated world, see each trusted pointer and key
// event before the page's listeners and cancel the ones the armed check
// (actions.js) refuses, so the page never sees them.
//
// Listeners on one target run in the order they were added, and the window
// is the first target of every event's path. So this file also runs alone
// at the start of every document of the surface
// (Page.addScriptToEvaluateOnNewDocument), before any script of the page:
// then no listener of the page sees an event before this one. The
// page-side module finds it installed (docs/page-ops.md, "Input reaches its
// target").
//
// SPDX-License-Identifier: LGPL-2.1-or-later
'use strict';

(() => {
  if (globalThis.__stagewrightGuard)
    return;
  // armed: null, or {allows (event) → boolean} while an action runs.
  const guard = globalThis.__stagewrightGuard = { armed: null };
  const listener = (event) => {
    const armed = guard.armed;
    if (armed && event.isTrusted && !armed.allows(event)) {
      event.preventDefault();
      event.stopImmediatePropagation();
    }
  };
  for (const type of ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click', 'auxclick', 'dblclick',
    'contextmenu', 'keydown', 'keypress', 'textInput', 'beforeinput', 'input', 'keyup'])
    addEventListener(type, listener, { capture: true, passive: false });
})();
