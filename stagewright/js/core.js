// core.js: the page-side module's base — element identity, targets,
// errors and the table of operations the library calls.
//
// The files of stagewright/js/ are joined into one script that runs once in
// each isolated world the library makes (docs/page-ops.md). It defines one
// global of that world, which the app's own scripts cannot see.
//
// SPDX-License-Identifier: LGPL-2.1-or-later
'use strict';

const S = globalThis.__stagewright = {
  ops: Object.create(null),
  // Closed shadow roots found by the library through the DOM domain:
  // host element -> its root.
  closedRoots: new WeakMap(),
};

// --- identity: element <-> key, never written into the DOM ----------------

const keys = new WeakMap();
const elements = new Map();
let nextKey = 1;

S.keyOf = function keyOf (element) {
  let key = keys.get(element);
  if (key === undefined) {
    key = nextKey++;
    keys.set(element, key);
    elements.set(key, new WeakRef(element));
  }
  return key;
};

// The element a key names, or null when it was collected or is no longer
// in the document.
S.element = function element (key) {
  const ref = elements.get(key);
  const element = ref ? ref.deref() : undefined;
  if (!element) {
    elements.delete(key);
    return null;
  }
  return element.isConnected ? element : null;
};

// --- errors ----------------------------------------------------------------

class PageError extends Error {
  constructor (code, message, details) {
    super(message);
    this.code = code;
    this.details = details;
  }
}

S.fail = function fail (code, message, details) {
  throw new PageError(code, message, details);
};

// --- trees -----------------------------------------------------------------

// The shadow root of a host, open or (when the library handed it over)
// closed.
S.shadowRootOf = function shadowRootOf (element) {
  return element.shadowRoot || S.closedRoots.get(element) || null;
};

// Every element under a root (document or shadow root) in composed
// document order: a host's shadow tree comes right after the host.
// Without recursion: a page can nest elements deeper than the stack goes.
S.forEachElement = function forEachElement (root, visit) {
  const pending = [root.firstElementChild];
  while (pending.length > 0) {
    const child = pending.pop();
    if (!child)
      continue;
    pending.push(child.nextElementSibling);
    if (visit(child) === false)
      continue;
    pending.push(child.firstElementChild);
    const shadow = S.shadowRootOf(child);
    if (shadow)
      pending.push(shadow.firstElementChild);
  }
};

// The first element matching a selector in the document or in any shadow
// root (open, or closed and known), in composed document order.
S.querySelector = function querySelector (selector) {
  let found = null;
  try {
    found = document.querySelector(selector);
  } catch (e) {
    S.fail('BAD_ARGUMENT', `Invalid CSS selector: ${selector}`, { selector });
  }
  if (found)
    return found;
  S.forEachElement(document, (element) => {
    if (found)
      return false;
    const shadow = S.shadowRootOf(element);
    if (shadow)
      found = shadow.querySelector(selector);
    return !found;
  });
  return found;
};

S.querySelectorAll = function querySelectorAll (selector) {
  let all;
  try {
    all = Array.from(document.querySelectorAll(selector));
  } catch (e) {
    S.fail('BAD_ARGUMENT', `Invalid CSS selector: ${selector}`, { selector });
  }
  S.forEachElement(document, (element) => {
    const shadow = S.shadowRootOf(element);
    // One by one: spread, 150,000 matches overflow the stack.
    if (shadow)
      for (const match of shadow.querySelectorAll(selector))
        all.push(match);
  });
  return all;
};

// --- targets ---------------------------------------------------------------

// What the library needs to bind a ref to an element. The snapshot room
// provides S.describe (role, name, fingerprint); until it is loaded the
// description is minimal.
S.targetInfo = function targetInfo (element) {
  const info = S.describe ? S.describe(element) : { role: '', name: '', fp: '' };
  return { key: S.keyOf(element), fp: info.fp, role: info.role, name: info.name };
};

// An element's handle for a plugin's code in this world: what
// stw_surface_bind_element_ref() takes to give the element a ref (the
// world names the document the key belongs to).
S.handleOf = function handleOf (element) {
  const info = S.targetInfo(element);
  info.world = S.world;
  return info;
};

// Resolves {key, world, fp} or {selector} to an element, or fails with the
// registry's code. When a ref's element is gone, the failure lists the live
// elements that have its fingerprint (at most 20), so the library can move
// the ref when exactly one of them has no ref of its own.
S.resolve = function resolve (target) {
  if (!target || typeof target !== 'object')
    S.fail('BAD_ARGUMENT', 'No target');
  if (typeof target.selector === 'string') {
    const element = S.querySelector(target.selector);
    if (!element)
      S.fail('SELECTOR_NO_MATCH', `No element matches ${target.selector}`, { selector: target.selector });
    return element;
  }
  // A key is only meaningful in the world that gave it.
  const element = target.key > 0 && target.world === S.world ? S.element(target.key) : null;
  if (element)
    return element;
  const candidates = target.fp && S.findByFingerprint
    ? S.findByFingerprint(target.fp).slice(0, 20).map(S.targetInfo)
    : [];
  S.fail('REF_NOT_FOUND', 'The element of this ref is gone', { candidates });
};

// --- calls -----------------------------------------------------------------

// The one entry point the library calls: runs op NAME with ARGS. Element
// ops get ARGS.target resolved into their second argument. Failures come
// back as values, not exceptions, so the library sees code and details.
S.call = async function call (name, args) {
  const op = S.ops[name];
  if (!op)
    return { __error: { code: 'INTERNAL_ERROR', message: `No page operation ${name}` } };
  try {
    args = args || {};
    if (op.element) {
      const element = S.resolve(args.target);
      const value = await op(args, element);
      const answer = value === undefined || value === null ? {} : value;
      answer.target = S.targetInfo(element);
      return answer;
    }
    const value = await op(args);
    return value === undefined ? null : value;
  } catch (e) {
    if (e instanceof PageError)
      return { __error: { code: e.code, message: e.message, details: e.details } };
    return { __error: { code: 'INTERNAL_ERROR', message: String(e && e.message || e).split('\n')[0].slice(0, 200) } };
  }
};

// Marks an op as taking an element target.
S.elementOp = function elementOp (name, fn) {
  fn.element = true;
  S.ops[name] = fn;
};

// The element a target names, as a handle a plugin's code finds again
// with S.element (key) while S.world is the same (stw_surface_resolve_element_async).
S.elementOp('handle', (args, element) => ({ key: S.keyOf(element), world: S.world }));

// What an element is, for a library that must choose how to act on it.
S.elementOp('describe', (args, element) => ({ tag: element.localName }));
