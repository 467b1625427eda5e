// ready.js: whether a document is ready to be driven, as the reference
// defines it: parsed, and showing something meaningful (text, or a control,
// image or landmark).
//
// Part of the page-side module (docs/page-ops.md): it runs in Stagewright's
// isolated world, where the app's own globals are not visible and cannot
// interfere.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

function isReady (targetUrl) {
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
}

// ready {targetUrl, waitMs} → true or false
//
// With waitMs, a document that is not ready yet answers when it becomes
// ready (its ready state changes, its DOM does, or an in-page 10 ms check
// sees it) or after waitMs, so the launch learns it without a round trip
// per poll. A navigation destroys
// this world and fails the call: the caller asks again.
S.ops.ready = function ready (args) {
  const targetUrl = args.targetUrl;
  const waitMs = args.waitMs || 0;
  if (isReady(targetUrl))
    return true;
  if (waitMs <= 0)
    return false;
  return new Promise((resolve) => {
    let observer = null;
    let timer = 0;
    let poll = 0;
    const finish = (value) => {
      if (observer === null)
        return;
      observer.disconnect();
      observer = null;
      clearTimeout(timer);
      clearInterval(poll);
      document.removeEventListener('readystatechange', check);
      resolve(value);
    };
    // Cheap while the parser runs: isReady() reads no layout before then.
    const check = () => {
      if (isReady(targetUrl))
        finish(true);
    };
    observer = new MutationObserver(check);
    observer.observe(document, { childList: true, subtree: true, characterData: true, attributes: true });
    document.addEventListener('readystatechange', check);
    // What no mutation shows (a style sheet that arrives), in-page.
    poll = setInterval(check, 10);
    timer = setTimeout(() => finish(isReady(targetUrl)), waitMs);
  });
};
