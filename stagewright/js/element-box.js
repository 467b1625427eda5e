// element-box.js: the viewport box of the first element matching a CSS
// selector, scrolled into view first; null when nothing matches.
//
// Runs in Stagewright's isolated world through Runtime.callFunctionOn.
//
// SPDX-License-Identifier: LGPL-2.1-or-later
(function elementBox(selector) {
  const element = document.querySelector(selector);
  if (!element)
    return null;
  element.scrollIntoView({ block: 'center', inline: 'center' });
  const rect = element.getBoundingClientRect();
  return { x: rect.x, y: rect.y, width: rect.width, height: rect.height };
})
