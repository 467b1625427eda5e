// ready.js: whether a document is ready to be driven, as the reference
// defines it: parsed, and showing something meaningful (text, or a control,
// image or landmark).
//
// Part of the page-side module (docs/page-ops.md): it runs in Stagewright's
// isolated world, where the app's own globals are not visible and cannot
// interfere.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

// ready {targetUrl} → true or false
S.ops.ready = function ready (args) {
  const targetUrl = args.targetUrl;
  if (document.readyState === 'loading' || !document.body)
    return false;
  // An empty page that was asked for (plain Chromium on about:blank) will
  // never show more: waiting for content would only wait out the timeout.
  // The browser's own idea of the target's URL tells it apart from the
  // initial about:blank of a window whose navigation is still pending.
  if (location.href === 'about:blank' && document.readyState === 'complete' &&
      (!targetUrl || targetUrl === 'about:blank'))
    return true;
  const text = (document.body.innerText || '').trim();
  if (text.length > 0)
    return true;
  return !!document.querySelector('button,input,select,textarea,a[href],[role],img,svg,canvas,' +
                                  'table,h1,h2,h3,h4,h5,h6,[data-testid]');
};
