// wait.js: waits and expectations — one promise per call that checks its
// condition on every change of the document and on a short interval, and
// settles when it holds, when its time is up, or when the library stops it
// (docs/page-ops.md).
//
// The library hands each call an id and a slice of its budget (the
// DevTools call that awaits the promise has a timeout of its own); when a
// slice ends it answers { done: false, … the last observation } and the
// library calls again with what is left, in the same document or, after a
// navigation, in the new one. Patterns arrive checked by the library
// (stw-regex.c) and are compiled here once per call.
//
// SPDX-License-Identifier: LGPL-2.1-or-later
{
  const POLL_MS = 50;
  const ROLE_POLL_MS = 150;
  // Calls in progress: id -> stop (settles the call at once).
  const running = new Map();

  // How many calls are in progress (the tests check that a stop stops).
  S.ops.waitsRunning = () => ({ running: running.size });

  // A stop may overtake its call (the call still waiting for this world):
  // the last few such ids are kept, and their call ends at once.
  const early = new Set();
  S.ops.waitStop = (args) => {
    const stop = running.get(args.id);
    if (stop)
      stop();
    else {
      early.add(args.id);
      if (early.size > 64)
        early.delete(early.values().next().value);
    }
    return { stopped: !!stop };
  };
  const stoppedEarly = (id) => early.delete(id);

  // This slice's milliseconds: its timeout, but never past its end (a
  // slice retried in a new document keeps the end it had).
  const budgetOf = (args) => {
    let budget = Math.max(0, Math.min(Number(args.timeoutMs) || 0, 60000));
    if (typeof args.until === 'number')
      budget = Math.max(0, Math.min(budget, args.until - Date.now()));
    return budget;
  };

  // Settles with { done: true, …observation } as soon as check() answers
  // an observation with ok, or { done: false, …last observation } after
  // args.timeoutMs (0: one check). A PageError from check() fails the call.
  const poll = (args, check, options) => new Promise((resolve, reject) => {
    const id = args.id;
    let settled = false, last = {}, ticker = 0, timer = 0, observer = null;
    const events = (options && options.events) || [];
    const finish = (answer, error) => {
      if (settled)
        return;
      settled = true;
      clearInterval(ticker);
      clearTimeout(timer);
      if (observer)
        observer.disconnect();
      for (const name of events)
        window.removeEventListener(name, run, true);
      running.delete(id);
      if (error)
        reject(error);
      else
        resolve(answer);
    };
    function run () {
      if (settled)
        return;
      try {
        last = check();
      } catch (e) {
        finish(null, e);
        return;
      }
      if (last.ok)
        finish(Object.assign({ done: true }, last));
    }
    if (stoppedEarly(id)) {
      finish({ done: false, stopped: true });
      return;
    }
    if (id !== undefined)
      running.set(id, () => finish(Object.assign({ done: false, stopped: true }, last)));
    run();
    if (settled)
      return;
    const budget = budgetOf(args);
    if (budget === 0) {
      finish(Object.assign({ done: false }, last));
      return;
    }
    if (!options || options.observe !== false) {
      observer = new MutationObserver(run);
      observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    }
    for (const name of events)
      window.addEventListener(name, run, true);
    ticker = setInterval(run, (options && options.interval) || POLL_MS);
    timer = setTimeout(() => {
      run();
      finish(Object.assign({ done: false }, last));
    }, budget);
  });

  // The element a target names, or null while there is none. A ref whose
  // element went fails (REF_NOT_FOUND, so the library can move it) unless
  // its absence is what is awaited.
  const find = (target, goneIsAnswer) => {
    try {
      return S.resolve(target);
    } catch (e) {
      if (e.code === 'SELECTOR_NO_MATCH' || (goneIsAnswer && e.code === 'REF_NOT_FOUND'))
        return null;
      throw e;
    }
  };
  const info = (element) => (element ? S.targetInfo(element) : null);
  const visible = (element) => !!element && S.states(element).visible;

  // --- selectors and states ------------------------------------------------

  S.ops.waitSelector = (args) => {
    const want = args.state || 'visible';
    const absent = want === 'hidden' || want === 'detached';
    return poll(args, () => {
      const element = find(args.target, absent);
      let ok;
      if (want === 'attached')
        ok = !!element;
      else if (want === 'detached')
        ok = !element;
      else if (want === 'hidden')
        ok = !visible(element);
      else
        ok = visible(element);
      const shown = visible(element);
      return { ok, target: info(element), attached: !!element, visible: shown,
        seen: element ? (shown ? 'visible' : 'hidden') : 'absent' };
    });
  };

  // Every flag asked has the value asked (checked may be 'mixed').
  const matches = (state, wanted) => Object.keys(wanted).every((flag) => state[flag] === wanted[flag]);

  S.ops.waitState = (args) => poll(args, () => {
    const element = find(args.target, false);
    if (!element)
      return { ok: false, target: null, state: null };
    const state = S.states(element);
    return { ok: matches(state, args.state || {}), target: info(element), state };
  });

  // --- text, value, attribute, URL -----------------------------------------

  const compile = (pattern, flags) => {
    try {
      return new RegExp(pattern, flags || '');
    } catch (e) {
      S.fail('BAD_ARGUMENT', `Invalid regular expression: ${String(e.message).slice(0, 200)}`, { field: 'regex' });
    }
  };

  // A predicate over a string (or null, for a value or attribute that is
  // not there: only the negative predicates hold then).
  const predicate = (args) => {
    const expected = String(args.expected);
    switch (args.predicate) {
    case 'equals': return (actual) => actual === expected;
    case 'contains': return (actual) => actual !== null && actual.includes(expected);
    case 'not_equals': return (actual) => actual !== expected;
    case 'not_contains': return (actual) => actual === null || !actual.includes(expected);
    case 'matches': {
      const regex = compile(expected, args.flags);
      return (actual) => actual !== null && regex.test(actual);
    }
    default:
      S.fail('BAD_ARGUMENT', `Unknown predicate ${args.predicate}`);
    }
  };

  const READERS = {
    text: (element) => S.ops.text({}, element).text,
    value: (element) => S.ops.value({}, element).value,
    attribute: (element, args) => element.getAttribute(args.name),
  };

  S.ops.waitText = (args) => {
    const test = predicate(args);
    const read = READERS[args.source] || READERS.text;
    return poll(args, () => {
      const element = find(args.target, false);
      if (!element) {
        if (args.require)
          S.fail('SELECTOR_NO_MATCH', `No element matches ${args.target.selector}`, { selector: args.target.selector });
        return { ok: false, target: null, actual: null, found: false };
      }
      const actual = read(element, args);
      return { ok: test(actual === undefined ? null : actual), target: info(element), actual, found: true };
    });
  };

  S.ops.waitUrl = (args) => {
    const test = predicate(args);
    return poll(args, () => ({ ok: test(location.href), actual: location.href }),
      { observe: false, events: ['popstate', 'hashchange'] });
  };

  // --- counts ----------------------------------------------------------------

  const INTERACTIVE = new Set(['button', 'link', 'checkbox', 'radio', 'textbox', 'searchbox', 'combobox',
    'listbox', 'option', 'switch', 'slider', 'spinbutton', 'menuitem', 'menuitemcheckbox', 'menuitemradio',
    'tab', 'treeitem']);

  const inRange = (n, args) =>
    (typeof args.equals !== 'number' || n === args.equals) &&
    (typeof args.min !== 'number' || n >= args.min) &&
    (typeof args.max !== 'number' || n <= args.max);

  const countRoles = (args) => {
    let n = 0;
    S.forEachElement(document, (element) => {
      const role = S.roleOf(element);
      if (!role || (args.role && role !== args.role))
        return true;
      if (args.interactive === true && !INTERACTIVE.has(role))
        return true;
      if (typeof args.name_exact === 'string' || typeof args.name_contains === 'string') {
        const name = S.nameOf(element);
        if (typeof args.name_exact === 'string' && name !== args.name_exact)
          return true;
        if (typeof args.name_contains === 'string' && !name.toLowerCase().includes(args.name_contains.toLowerCase()))
          return true;
      }
      if (typeof args.visible === 'boolean' || typeof args.enabled === 'boolean') {
        const state = S.states(element);
        if (typeof args.visible === 'boolean' && state.visible !== args.visible)
          return true;
        if (typeof args.enabled === 'boolean' && state.enabled !== args.enabled)
          return true;
      }
      n++;
      return true;
    });
    return n;
  };

  S.ops.waitCount = (args) => {
    const bySelector = typeof args.selector === 'string';
    const count = bySelector
      ? () => S.querySelectorAll(args.selector)
        .filter((element) => typeof args.visible !== 'boolean' || visible(element) === args.visible).length
      : () => countRoles(args);
    return poll(args, () => {
      const actual = count();
      return { ok: inRange(actual, args), actual };
    }, bySelector ? null : { observe: false, interval: ROLE_POLL_MS });
  };

  // --- events ----------------------------------------------------------------

  // The first event of that name at the target (the document by default,
  // or the window for events only it gets), captured so the app cannot
  // stop it from reaching us.
  S.ops.waitEvent = (args) => new Promise((resolve, reject) => {
    let element = null;
    try {
      element = args.target ? S.resolve(args.target) : null;
    } catch (e) {
      reject(e);
      return;
    }
    if (stoppedEarly(args.id)) {
      resolve({ done: false, stopped: true, target: info(element) });
      return;
    }
    const on = element || (['resize', 'hashchange', 'popstate', 'focus', 'blur'].includes(args.eventName) ? window : document);
    let timer = 0;
    const finish = (answer) => {
      clearTimeout(timer);
      on.removeEventListener(args.eventName, listener, true);
      running.delete(args.id);
      resolve(answer);
    };
    function listener (event) {
      if (element && event.target !== element && !element.contains(event.target))
        return;
      const origin = event.target instanceof Element ? S.targetInfo(event.target) : null;
      finish({ done: true, event: { type: event.type, at: Math.round(event.timeStamp), target: origin }, target: info(element) });
    }
    on.addEventListener(args.eventName, listener, true);
    running.set(args.id, () => finish({ done: false, stopped: true, target: info(element) }));
    timer = setTimeout(() => finish({ done: false, target: info(element) }), budgetOf(args));
  });
}
