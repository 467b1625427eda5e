// page-hostile.test.mjs: snapshot, find, elements_list, the read family and
// screenshots against a hostile page and hostile arguments, over MCP with
// the official SDK client: the page's main world rewrites the built-ins the
// page-side module would use, names carry control characters, a page
// navigates to another site under a ref, and every argument gets values
// of the wrong type, size or shape. Every refusal must be an envelope with
// a registry code, and the server must stay up and answer.
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// Run by hand:
//   node --test --test-reporter=tap --test-concurrency=1 tests/e2e/page-hostile.test.mjs

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test as nodeTest } from 'node:test';

import {
  FIXTURES,
  electronSkipReason,
  failsWith,
  launchArgs,
  ok,
  startServer,
  waitUntil,
} from './lib/lifecycle-harness.mjs';

const PAGES_APP = path.join(FIXTURES, 'pages-app');
const pagesSkip = fs.existsSync(path.join(PAGES_APP, 'package.json')) ? null : `${PAGES_APP} is missing`;
const skip = electronSkipReason() ?? pagesSkip ?? false;

// Top-level tests only: automake's tap-driver.sh reads the top-level stream.
function test (name, options, fn) {
  if (typeof options === 'function') [fn, options] = [options, {}];
  return nodeTest(name, { timeout: 180000, ...options, skip: skip || options.skip }, fn);
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'stw-hostile-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));
const pagesDir = path.join(scratch, 'pages');
fs.mkdirSync(pagesDir);

// Every page polls cmd.js (served from pagesDir) and runs each new command
// in its main world, then titles itself `done N`: the test's remote control
// without a tool that evaluates script.
const REMOTE = `<script>
(() => {
  // What is there when the page loads is an older page's command.
  let last = null;
  const poll = async () => {
    try {
      const text = await (await fetch('cmd.js?' + Date.now())).text();
      if (last === null) last = text;
      else if (text !== last) { last = text; (0, eval)(text); }
    } catch (e) { document.title = 'error ' + e; }
    setTimeout(poll, 40);
  };
  poll();
})();
</script>`;
fs.writeFileSync(path.join(pagesDir, 'cmd.js'), '');

let sequence = 0;
async function command (source) {
  const n = ++sequence;
  fs.writeFileSync(path.join(pagesDir, 'cmd.js'), `${source}\n;document.title = 'done ${n}';`);
  assert.ok(await waitUntil(async () => {
    const list = ok(await server.call('electron_windows_list', {}));
    return list.windows[0]?.title === `done ${n}`;
  }, 15000, 40), `command ${n} ran: ${source.slice(0, 80)}`);
}

const PAGES = {
  // The main world breaks every built-in a careless page-side module would
  // call; the isolated world must not notice.
  'hostile-patched': `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Patched</title>
<script>
(() => {
  const bad = () => { throw new Error('patched'); };
  for (const [proto, names] of [
    [Element.prototype, ['getAttribute', 'hasAttribute', 'getBoundingClientRect', 'closest', 'matches', 'querySelector', 'querySelectorAll', 'getClientRects', 'checkVisibility', 'getRootNode']],
    [Document.prototype, ['querySelector', 'querySelectorAll', 'getElementById', 'createTreeWalker']],
    [Array.prototype, ['map', 'filter', 'forEach', 'push', 'join', 'slice', 'some', 'includes', 'indexOf']],
    [String.prototype, ['trim', 'replace', 'slice', 'toLowerCase', 'split']],
    [Object, ['assign', 'keys', 'entries', 'create']],
    [JSON, ['stringify', 'parse']],
    [window, ['getComputedStyle']],
  ])
    for (const name of names)
      try { proto[name] = bad; } catch (e) {}
  for (const name of ['textContent', 'firstElementChild', 'nextElementSibling', 'parentElement', 'childNodes', 'isConnected'])
    try { Object.defineProperty(Node.prototype, name, { get: bad, configurable: true }); } catch (e) {}
  try { Object.defineProperty(Element.prototype, 'shadowRoot', { get: bad }); } catch (e) {}
  try { Object.defineProperty(HTMLElement.prototype, 'innerText', { get: bad }); } catch (e) {}
  window.WeakMap = function () { throw new Error('patched'); };
  window.Map = window.WeakMap; window.WeakRef = window.WeakMap; window.Set = window.WeakMap;
  window.Symbol = undefined;
  window.Promise = function () { throw new Error('patched'); };
})();
</script></head><body>
<main><h1 id="title">Patched page</h1>
<label for="name">Your name</label> <input id="name" value="Ada">
<button id="go" disabled>Go on</button>
<input type="checkbox" id="agree" checked aria-label="Agree">
</main>
${REMOTE}</body></html>`,

  // Names with newlines, control characters, lone surrogates and RTL marks;
  // aria-labelledby cycles.
  'hostile-names': `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Names</title></head><body>
<button id="nl">first
second\tthird</button>
<button id="ctl"></button>
<button id="rtl">\u202Eevil\u202C name\u200F</button>
<button id="cycle-a" aria-labelledby="cycle-b cycle-a">A</button>
<button id="cycle-b" aria-labelledby="cycle-a">B</button>
<button id="self" aria-labelledby="self">Self</button>
<button id="cut"></button>
<script>
// The 1,000-character bound on names falls between the two halves of an emoji.
document.getElementById('cut').textContent = 'a'.repeat(999) + '\u{1F600}' + 'b'.repeat(10);
document.getElementById('ctl').textContent = 'ctl\\u0000\\u0001\\u001b[31m\\u007f\\u2028\\u2029\\ud800 end';
document.getElementById('ctl').setAttribute('aria-label', 'label\\nwith\\rbreaks\\ud800\\u0007');
</script>
${REMOTE}</body></html>`,

  // The window goes to another site (another renderer process) by itself.
  'hostile-nav': `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Nav A</title></head><body>
<button id="one">One</button><button id="two">Two</button><button id="three">Three</button>
${REMOTE}</body></html>`,
  'hostile-nav-b': `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Nav B</title></head><body>
<button id="danger">Delete everything</button><button id="x2">Other</button><button id="x3">Third</button>
${REMOTE}</body></html>`,

  // Elements the page rewrites on command.
  'hostile-refs': `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Refs</title></head><body>
<div id="box"><button id="twin-a">Twin</button><button id="twin-b">Twin</button></div>
<div id="other"></div>
<button id="solo">Solo</button>
${REMOTE}</body></html>`,

  // Size: 100,000 elements, a 10 MB text node, a select with 50,000
  // options, shadow roots 200 deep, a frame that loads itself.
  'hostile-big': `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Big</title></head><body>
<button id="first">First</button>
<div id="huge"></div>
<select id="many" aria-label="Many"></select>
<div id="deep"></div>
<iframe id="loop" src="hostile-loop.html"></iframe>
<button id="last">Last</button>
<script>
const huge = document.getElementById('huge');
const parts = [];
for (let i = 0; i < 20000; i++)
  parts.push('<div><span>row ' + i + '</span><button>B' + i + '</button><a href="#' + i + '">L' + i + '</a><input aria-label="I' + i + '"></div>');
huge.innerHTML = parts.join('');
const text = document.createElement('p');
text.id = 'text';
text.textContent = 'x'.repeat(10 * 1024 * 1024);
document.body.prepend(text);
const many = document.getElementById('many');
many.innerHTML = Array.from({ length: 50000 }, (_, i) => '<option>Option ' + i + '</option>').join('');
let host = document.getElementById('deep');
for (let i = 0; i < 200; i++) {
  const root = host.attachShadow({ mode: i % 2 ? 'closed' : 'open' });
  const next = document.createElement('div');
  root.append(next);
  host = next;
}
const bottom = document.createElement('button');
bottom.textContent = 'Bottom';
host.append(bottom);
</script>
${REMOTE}</body></html>`,
  // 20,000 elements nested in one another (the parser stops at 512, the DOM
  // does not), and 150,000 in one shadow root.
  'hostile-deep': `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Deep</title></head><body>
<button id="top">Top</button><div id="nest" style="display: none"></div><div id="host"></div>
<script>
let at = document.getElementById('nest');
for (let i = 0; i < 20000; i++) { const d = document.createElement('div'); at.append(d); at = d; }
const bottom = document.createElement('button'); bottom.id = 'bottom'; bottom.textContent = 'Bottom'; at.append(bottom);
const root = document.getElementById('host').attachShadow({ mode: 'open' });
root.innerHTML = '<span></span>'.repeat(150000) + '<button id="inside">Inside</button>';
</script>
${REMOTE}</body></html>`,
  // A same-origin frame the page removes, and a closed shadow root the
  // page renders anew.
  'hostile-frames': `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Frames</title></head><body>
<button id="outer">Outer</button>
<iframe id="frame" src="hostile-inner.html"></iframe>
<closed-box id="box"></closed-box>
<script>
customElements.define('closed-box', class extends HTMLElement {
  constructor () { super(); this.root = this.attachShadow({ mode: 'closed' }); this.render(); }
  render () { this.root.innerHTML = '<button>Hidden save</button>'; }
});
</script>
${REMOTE}</body></html>`,
  'hostile-inner': `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Inner</title></head><body>
<button id="inner">Inner button</button></body></html>`,
  'hostile-loop': `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Loop</title></head><body>
<button>Loop</button><iframe src="hostile-loop.html"></iframe></body></html>`,

  // A page that steers the library's input (?mode=…): swaps "Cancel" and
  // "Delete everything" on the first (swap-once) or every (swap-always)
  // mousemove over Cancel, covers the page on Cancel's pointerdown
  // (overlay), or moves the focus from the password to the public comment
  // box on focus (focus-steal) or on the third key (key-steal). Its own
  // capture listeners on window and document log every event they see:
  // they must never see one the guard stopped.
  'hostile-steer': `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Steer</title>
<style>
#slots { display: flex; gap: 0; }
#slots button { width: 200px; height: 48px; margin: 0; }
#shield { display: none; position: fixed; inset: 0; background: rgba(0, 0, 0, 0.2); z-index: 10; }
</style></head><body>
<div id="slots"><button id="cancel">Cancel</button><button id="danger">Delete everything</button></div>
<div id="shield"></div>
<div style="position: relative; height: 48px"><button id="under" style="position: absolute; inset: 0; width: 200px">Under</button>
<button id="menu-item" style="position: absolute; inset: 0; width: 200px; z-index: 1">Menu item</button></div>
<p><label for="pw">Password</label> <input id="pw" type="password"></p>
<p><label for="comment">Public comment</label> <textarea id="comment"></textarea></p>
<p><a id="go-swap-once" href="hostile-steer.html?mode=swap-once">swap once</a>
<a id="go-swap-always" href="hostile-steer.html?mode=swap-always">swap always</a>
<a id="go-overlay" href="hostile-steer.html?mode=overlay">overlay</a>
<a id="go-focus-steal" href="hostile-steer.html?mode=focus-steal">focus steal</a>
<a id="go-key-steal" href="hostile-steer.html?mode=key-steal">key steal</a></p>
<pre id="log"></pre>
<script>
const mode = new URLSearchParams(location.search).get('mode') || 'none';
document.title = 'Steer ' + mode;
const log = (line) => { document.getElementById('log').textContent += line + '\\n'; };
for (const type of ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click', 'keydown', 'keypress', 'beforeinput', 'keyup'])
  for (const [name, at] of [['window', window], ['document', document]])
    at.addEventListener(type, (e) => log(name + ' ' + type + ' ' + (e.target.id || e.target.nodeName)), true);
const cancel = document.getElementById('cancel');
const danger = document.getElementById('danger');
const slots = document.getElementById('slots');
const shield = document.getElementById('shield');
const pw = document.getElementById('pw');
const comment = document.getElementById('comment');
cancel.addEventListener('click', () => log('CANCELLED'));
danger.addEventListener('click', () => log('DELETED EVERYTHING'));
shield.addEventListener('click', () => log('SHIELD CLICKED'));
// A menu item that acts on mousedown and goes, as menus do.
document.getElementById('menu-item').addEventListener('mousedown', (e) => { log('MENU ACTED'); e.target.remove(); });
document.getElementById('under').addEventListener('click', () => log('UNDER CLICKED'));
let swapped = 0;
cancel.addEventListener('mousemove', () => {
  if (mode === 'swap-always' || (mode === 'swap-once' && swapped === 0)) {
    swapped++;
    slots.insertBefore(slots.lastElementChild, slots.firstElementChild);
  }
});
cancel.addEventListener('pointerdown', () => { if (mode === 'overlay') shield.style.display = 'block'; });
pw.addEventListener('focus', () => { if (mode === 'focus-steal') comment.focus(); });
let keys = 0;
pw.addEventListener('keydown', () => { if (mode === 'key-steal' && ++keys === 3) comment.focus(); });
</script></body></html>`,
};
for (const [name, html] of Object.entries(PAGES))
  fs.writeFileSync(path.join(pagesDir, `${name}.html`), html);

let server = null;

before(async () => {
  if (skip) return;
  // Screenshots without a path or dir land in --screenshot-dir: here, not in /tmp.
  const shots = path.join(scratch, 'shots');
  fs.mkdirSync(shots);
  server = await startServer(null, { args: ['--screenshot-dir', shots] });
});

after(async () => {
  if (!server) return;
  await server.call('electron_stop', {}).catch(() => {});
  await server.close();
});

async function launchPage (name, title) {
  ok(await server.call('electron_launch', launchArgs(PAGES_APP, { args: [`--page=${name}`, `--pages-dir=${pagesDir}`] })),
     `electron_launch --page=${name}`);
  assert.ok(await waitUntil(async () => {
    const list = ok(await server.call('electron_windows_list', {}));
    return list.windows[0]?.title === title;
  }, 15000, 50), `the window is titled ${title}`);
  sequence = 0;
  fs.writeFileSync(path.join(pagesDir, 'cmd.js'), '');
}

async function stop () {
  ok(await server.call('electron_stop', {}), 'electron_stop');
}

const call = async (tool, args) => ok(await server.call(tool, args), `${tool} ${JSON.stringify(args).slice(0, 200)}`);

async function refOf (selector) {
  const answer = await call('electron_elements_list', { selector });
  assert.equal(answer.matches.length, 1, `${selector}: ${JSON.stringify(answer)}`);
  return answer.matches[0].ref;
}

// --- the main world's built-ins do not reach us -------------------------------

test('patched: a main world that breaks every built-in changes no answer', async () => {
  await launchPage('hostile-patched', 'Patched');
  try {
    const text = (await call('electron_snapshot', { format: 'text' })).snapshot_text;
    assert.match(text, /heading "Patched page"/);
    assert.match(text, /textbox "Your name"/);
    assert.match(text, /button "Go on".*disabled/);
    assert.match(text, /checkbox "Agree".*checked/);
    const json = (await call('electron_snapshot', { format: 'json' }));
    assert.ok(json.snapshot, 'a json snapshot');
    const found = await call('electron_find', { role: 'textbox' });
    assert.equal(found.count, 1);
    assert.equal(found.matches[0].name, 'Your name');
    const listed = await call('electron_elements_list', { selector: 'main button, main input' });
    assert.equal(listed.count, 3);
    assert.equal((await call('electron_get_value', { ref: found.matches[0].ref })).value, 'Ada');
    assert.equal((await call('electron_get_text', { selector: '#title' })).text, 'Patched page');
    assert.equal((await call('electron_get_attribute', { selector: '#name', name: 'id' })).value, 'name');
    assert.equal((await call('electron_get_state', { selector: '#go' })).state.disabled, true);
    assert.equal((await call('electron_exists', { selector: '#agree' })).exists, true);
    const box = (await call('electron_get_bbox', { selector: '#go' }));
    assert.ok(box.bbox && box.bbox.w > 0, JSON.stringify(box));
    assert.ok((await call('electron_get_computed_style', { selector: '#go', properties: ['display'] })));
    ok(await server.call('electron_screenshot', { ref: found.matches[0].ref, inline: true }));
  } finally {
    await stop();
  }
});

// --- names that would break a line-per-entry text form ---------------------------

test('names: control characters, breaks, lone surrogates and labelledby cycles stay on one line', async () => {
  await launchPage('hostile-names', 'Names');
  try {
    const answer = await call('electron_snapshot', { format: 'text' });
    const lines = answer.snapshot_text.split('\n');
    const buttons = lines.filter((line) => /\bbutton\b/.test(line));
    assert.equal(buttons.length, 7, answer.snapshot_text);
    for (const line of lines) {
      // No C0 control character, DEL, or line or paragraph separator.
      assert.doesNotMatch(line, /[\u0000-\u001f\u007f\u2028\u2029\u0085]/, JSON.stringify(line));
      // No lone surrogate made it through.
      assert.ok(line.isWellFormed ? line.isWellFormed() : true, JSON.stringify(line));
    }
    assert.ok(buttons.some((line) => line.includes('first second third')), answer.snapshot_text);
    const json = await call('electron_snapshot', { format: 'json' });
    const names = JSON.stringify(json.snapshot);
    assert.ok(names.length > 0);
    assert.ok(JSON.stringify(json).isWellFormed(), 'the JSON snapshot has no lone surrogate');
    for (const selector of ['#nl', '#ctl', '#rtl', '#cycle-a', '#cycle-b', '#self', '#cut']) {
      const text = await call('electron_get_text', { selector });
      assert.equal(typeof text.text, 'string');
      assert.equal(typeof text.target.name, 'string');
    }
    const found = await call('electron_find', { role: 'button', name_contains: 'first' });
    assert.equal(found.count, 1);
  } finally {
    await stop();
  }
});

// --- refs ----------------------------------------------------------------------------

test('refs: a ref of a page the window left never names an element of the next one', async () => {
  await launchPage('hostile-nav', 'Nav A');
  try {
    await call('electron_snapshot', { format: 'json' });
    const old = [await refOf('#one'), await refOf('#two'), await refOf('#three')];
    // Another site: another renderer process, whose worlds count anew.
    fs.writeFileSync(path.join(pagesDir, 'cmd.js'),
                     "location.href = new URLSearchParams(location.search).get('xorigin') + '/hostile-nav-b.html'");
    assert.ok(await waitUntil(async () => {
      const list = ok(await server.call('electron_windows_list', {}));
      return list.windows[0]?.title === 'Nav B';
    }, 15000, 50), 'the window went to the other site');
    const after = await call('electron_snapshot', { format: 'text' });
    const fresh = [await refOf('#danger'), await refOf('#x2'), await refOf('#x3')];
    for (const ref of fresh)
      assert.ok(!old.includes(ref), `an old ref names a new element: ${old} / ${fresh}\n${after.snapshot_text}`);
    for (const ref of old) {
      const envelope = failsWith(await server.call('electron_get_text', { ref }), 'REF_NOT_FOUND', `old ref ${ref}`);
      assert.ok(Array.isArray(envelope.next_actions) && envelope.next_actions.length > 0, JSON.stringify(envelope));
    }
  } finally {
    await stop();
  }
});

test('refs: twins, moves, history.pushState and equal replacements', async () => {
  await launchPage('hostile-refs', 'Refs');
  try {
    await call('electron_snapshot', { format: 'json' });
    const twinA = await refOf('#twin-a');
    const twinB = await refOf('#twin-b');
    const solo = await refOf('#solo');
    assert.equal(new Set([twinA, twinB, solo]).size, 3);

    // Moved, not replaced: the same element, the same ref.
    await command("document.getElementById('other').append(document.getElementById('solo'))");
    assert.equal(await refOf('#solo'), solo);
    // pushState is no new document: refs stay.
    await command("history.pushState({}, '', '?pushed=1')");
    assert.equal((await call('electron_get_text', { ref: solo })).target.ref, solo);

    // One twin goes: the other already has its ref, so twin A's is gone,
    // not moved onto twin B.
    await command("document.getElementById('twin-a').remove()");
    const gone = failsWith(await server.call('electron_get_text', { ref: twinA }), 'REF_NOT_FOUND', 'removed twin');
    assert.ok(gone.next_actions.includes('electron_snapshot()'), JSON.stringify(gone));
    assert.ok(Array.isArray(gone.similar_refs) && gone.similar_refs.some((r) => r.ref === twinB), JSON.stringify(gone));
    assert.equal((await call('electron_get_text', { ref: twinB })).target.ref, twinB);
    // And it stays gone after the element comes back.
    await command("const b = document.createElement('button'); b.id = 'twin-a'; b.textContent = 'Twin'; document.getElementById('box').prepend(b)");
    failsWith(await server.call('electron_get_text', { ref: twinA }), 'REF_NOT_FOUND', 'twin after snapshot');
    await call('electron_snapshot', { format: 'json' });
    failsWith(await server.call('electron_get_text', { ref: twinA }), 'REF_NOT_FOUND', 'twin after snapshot');

    // Replaced by an equal element: the ref moves to it (one candidate).
    await command("const s = document.getElementById('solo'); const n = s.cloneNode(true); n.id = 'solo-2'; s.replaceWith(n)");
    const moved = await call('electron_get_text', { ref: solo });
    assert.equal(moved.target.ref, solo);
    assert.equal(await refOf('#solo-2'), solo);

    // Never given, zero, negative, not an integer.
    failsWith(await server.call('electron_get_text', { ref: 999999 }), 'REF_NOT_FOUND', 'never given');
    for (const ref of [0, -1, 1.5, 2 ** 53, '1', true, [], {}])
      assert.equal((await server.call('electron_get_text', { ref })).ok, false, `ref ${JSON.stringify(ref)}`);
  } finally {
    await stop();
  }
});

// --- hostile arguments ------------------------------------------------------------

/** Calls with a deadline: an answer (any) within `ms`, else the server hung. */
async function answered (tool, args, ms = 30000) {
  let timer;
  const deadline = new Promise((resolve, reject) => { timer = setTimeout(() => reject(new Error(`${tool} hung: ${JSON.stringify(args).slice(0, 200)}`)), ms); });
  try {
    const result = await Promise.race([server.client.callTool({ name: tool, arguments: args }), deadline]);
    const text = result.content?.[0]?.text;
    const envelope = JSON.parse(text);
    if (!envelope.ok) {
      assert.match(envelope.code ?? '', /^[A-Z][A-Z_]+$/, `${tool} ${JSON.stringify(args).slice(0, 200)}: ${text.slice(0, 400)}`);
      assert.notEqual(envelope.code, 'INTERNAL_ERROR', `${tool} ${JSON.stringify(args).slice(0, 200)}: ${text.slice(0, 400)}`);
    }
    return envelope;
  } catch (e) {
    // A protocol-level refusal (schema) is an answer too, with a code.
    if (typeof e.code === 'number' && e.code !== -32000) return { ok: false, protocol: e.code, message: e.message };
    throw e;
  } finally {
    clearTimeout(timer);
  }
}

test('arguments: wrong types, huge numbers, NUL, huge and exploding selectors are refused, never crash', async () => {
  await launchPage('hostile-refs', 'Refs');
  try {
    const big = 'div '.repeat(250000) + 'button';
    const has = ':has(' + '*:has('.repeat(60) + '*' + ')'.repeat(61);
    const selectors = ['', '\u0000', 'button\u0000', '[', ')', '::-webkit-x', big, has, '*:has(*:has(*:has(*)))',
                       '#solo, ' + '*,'.repeat(5000) + '*', 'a'.repeat(1 << 20)];
    const values = [null, true, -1, 0, -0, 2 ** 53, 2 ** 64, 1e308, 1.5, 'x', '', [], {}, { __proto__: { a: 1 } }];
    const tools = {
      electron_snapshot: ['format', 'interactiveOnly', 'maxEntries', 'root', 'since', 'diffFormat', 'budgetTokens'],
      electron_find: ['role', 'name_contains', 'name_exact', 'visible', 'enabled', 'interactive', 'limit'],
      electron_elements_list: ['selector', 'limit'],
      electron_get_text: ['ref', 'selector'],
      electron_get_value: ['ref', 'selector'],
      electron_get_attribute: ['selector', 'name'],
      electron_get_bbox: ['ref', 'selector'],
      electron_get_computed_style: ['selector', 'properties'],
      electron_get_state: ['ref', 'selector'],
      electron_exists: ['selector'],
      electron_focused_element: [],
      electron_screenshot: ['ref', 'selector', 'clip', 'quality', 'maxWidth', 'maxHeight', 'path', 'dir', 'format'],
    };
    for (const [tool, members] of Object.entries(tools)) {
      for (const member of members) {
        const base = ['electron_get_attribute', 'electron_get_computed_style'].includes(tool) && member !== 'selector'
          ? { selector: '#solo' } : {};
        for (const value of values)
          await answered(tool, { ...base, [member]: value });
        if (member === 'selector' || member === 'root')
          for (const selector of selectors)
            await answered(tool, { ...base, [member]: selector });
      }
      await answered(tool, { ['__proto__']: 1, constructor: 'x' });
    }
    // Attribute names and style properties that are not names.
    for (const name of ['__proto__', 'constructor', 'toString', '', '\u0000', 'a b', '"><img>', 'x'.repeat(100000)])
      await answered('electron_get_attribute', { selector: '#solo', name });
    for (const properties of [['__proto__'], ['constructor'], ['color;background:url(x)'], ['--x'], ['}*{color:red'],
                              Array.from({ length: 5000 }, (_, i) => `--p${i}`), [''], [1], 'color'])
      await answered('electron_get_computed_style', { selector: '#solo', properties });
    // Screenshots: extremes of size and quality; paths outside the app root.
    for (const extra of [{ quality: 0 }, { quality: 100 }, { quality: -5 }, { quality: 101 }, { format: 'jpeg', quality: 1 },
                         { inline: true, maxWidth: 1, maxHeight: 1 }, { inline: true, maxWidth: 2 ** 31 }, { inline: true, maxWidth: 0 },
                         { clip: { x: 0, y: 0, width: 1e9, height: 1e9 } }, { clip: { x: -1e9, y: 0, width: 1, height: 1 } },
                         { clip: { x: 0, y: 0, width: 0, height: 0 } }, { clip: 'x' },
                         { path: '../../../../../../tmp/stw-escape.png' }, { path: '/etc/passwd' }, { dir: '/' },
                         { path: 'a\u0000b.png' }, { dir: '..' }])
      await answered('electron_screenshot', extra);
    assert.ok(!fs.existsSync('/tmp/stw-escape.png'), 'no file written outside');
    // A clip larger than the page is cut to it; one beyond it is refused.
    const cut = ok(await answered('electron_screenshot', { clip: { x: 0, y: 0, width: 1e9, height: 1e9 } }), 'huge clip');
    assert.ok(cut.width > 0 && cut.width <= 16384 && cut.height > 0 && cut.height <= 16384, JSON.stringify(cut));
    failsWith(await answered('electron_screenshot', { clip: { x: 1e9, y: 0, width: 10, height: 10 } }), 'BAD_ARGUMENT', 'clip beyond');
    // Still here, and still right.
    assert.equal((await call('electron_get_text', { selector: '#solo' })).text, 'Solo');
  } finally {
    await stop();
  }
});

test('size: 100,000 elements, 10 MB of text, 50,000 options, 200 shadow roots, a frame loop', async () => {
  await launchPage('hostile-big', 'Big');
  try {
    const timed = async (tool, args) => {
      const start = Date.now();
      console.log(`# ${tool} ${JSON.stringify(args)}`);
      const envelope = await answered(tool, args, 60000).catch((e) => { console.log(server.stderr().slice(-3000)); throw e; });
      return { envelope, ms: Date.now() - start, bytes: JSON.stringify(envelope).length };
    };
    const full = await timed('electron_snapshot', { format: 'text' });
    ok(full.envelope, 'snapshot');
    assert.ok(full.envelope.truncated, 'a huge page is truncated');
    assert.ok(full.bytes < 2 * 1024 * 1024, `text snapshot ${full.bytes} bytes`);
    for (const line of full.envelope.snapshot_text.split('\n'))
      assert.ok(line.length < 8000, `a line of ${line.length}`);
    const small = await timed('electron_snapshot', { format: 'json', maxEntries: 10 });
    ok(small.envelope, 'snapshot maxEntries 10');
    assert.ok(small.bytes < 64 * 1024, `maxEntries 10: ${small.bytes} bytes`);
    const found = await timed('electron_find', { role: 'button', limit: 5 });
    assert.equal(ok(found.envelope).matches.length, 5);
    const text = await timed('electron_get_text', { selector: '#text' });
    ok(text.envelope, 'get_text of 10 MB');
    assert.ok(text.bytes < 2 * 1024 * 1024, `get_text answered ${text.bytes} bytes`);
    assert.equal(text.envelope.text, 'x'.repeat(100000));
    const value = await timed('electron_get_value', { selector: '#many' });
    ok(value.envelope, 'get_value of the select');
    const listed = await timed('electron_elements_list', { selector: 'option', limit: 200 });
    assert.equal(ok(listed.envelope).matches.length, 200);
    const diff = await timed('electron_snapshot', { since: 'last', budgetTokens: 50 });
    ok(diff.envelope, 'diff');
    assert.ok(diff.bytes < 16 * 1024, `diff under a 50-token budget: ${diff.bytes} bytes`);
    const shot = await timed('electron_screenshot', { fullPage: true, inline: true });
    ok(shot.envelope, 'inline full page');
    // Half a million pixels tall: scaled to what Chromium captures at once.
    const tall = ok(await answered('electron_screenshot', { fullPage: true }, 60000), 'full page to a file');
    assert.ok(tall.height <= 16384 && tall.height > 0, JSON.stringify(tall));
    assert.ok(shot.bytes < 8 * 1024 * 1024, `inline full page ${shot.bytes} bytes`);
    for (const [what, t] of Object.entries({ full, small, found, text, value, listed, diff, shot }))
      console.log(`# ${what}: ${t.ms} ms, ${t.bytes} bytes`);
    assert.equal((await call('electron_get_text', { selector: '#last' })).text, 'Last');
  } finally {
    await stop();
  }
});

// --- concurrency and cancellation ----------------------------------------------------

test('concurrency: parallel snapshots, a cancelled one, one while the page navigates', async () => {
  await launchPage('hostile-big', 'Big');
  try {
    // Two at once on the same surface: both answer, with the same refs.
    const [a, b] = await Promise.all([answered('electron_find', { role: 'button', limit: 3 }, 60000),
                                      answered('electron_find', { role: 'button', limit: 3 }, 60000)]);
    assert.deepEqual(ok(a).matches.map((m) => m.ref), ok(b).matches.map((m) => m.ref));
    // Cancelled mid-way (notifications/cancelled): the server goes on answering.
    const controller = new AbortController();
    const cancelled = server.client.callTool({ name: 'electron_snapshot', arguments: { format: 'text' } }, undefined,
                                             { signal: controller.signal }).then(() => 'answered', () => 'cancelled');
    setTimeout(() => controller.abort(), 200);
    await cancelled;
    assert.equal((await call('electron_get_text', { selector: '#first' })).text, 'First');
    // A snapshot while the window goes elsewhere: an answer or a code, never a hang.
    fs.writeFileSync(path.join(pagesDir, 'cmd.js'), "location.href = 'hostile-refs.html'");
    const during = await answered('electron_snapshot', { format: 'text' }, 60000);
    assert.ok(during.ok || typeof during.code === 'string', JSON.stringify(during));
    assert.ok(await waitUntil(async () => ok(await server.call('electron_windows_list', {})).windows[0]?.title === 'Refs', 15000, 50),
              JSON.stringify([during, await server.call('electron_windows_list', {})]).slice(0, 1500));
    const after = await call('electron_snapshot', { format: 'text' });
    assert.match(after.snapshot_text, /button "Solo"/);
  } finally {
    await stop();
  }
});

test('depth: 20,000 nested elements and 150,000 in one shadow root', async () => {
  await launchPage('hostile-deep', 'Deep');
  try {
    const snapshot = ok(await answered('electron_snapshot', { format: 'text' }, 60000), 'snapshot');
    assert.match(snapshot.snapshot_text, /button "Top"/);
    ok(await answered('electron_find', { role: 'button' }, 60000), 'find');
    const listed = ok(await answered('electron_elements_list', { selector: 'span', limit: 5 }, 60000), 'elements_list in the shadow root');
    assert.equal(listed.matches.length, 5);
    assert.equal(ok(await answered('electron_get_text', { selector: '#inside' }, 60000), 'get_text').text, 'Inside');
    assert.equal(ok(await answered('electron_get_text', { selector: '#bottom' }, 60000), 'get_text').text, 'Bottom');
    ok(await answered('electron_focused_element', {}, 60000), 'focused');
    // A stale ref looks for its fingerprint through every element.
    const top = await refOf('#top');
    await command("document.getElementById('top').remove()");
    failsWith(await answered('electron_get_text', { ref: top }, 60000), 'REF_NOT_FOUND', 'a removed button');
  } finally {
    await stop();
  }
});

test('frames and closed roots: the refs of a removed frame, a closed root rendered anew', async () => {
  await launchPage('hostile-frames', 'Frames');
  try {
    let text = '';
    assert.ok(await waitUntil(async () => {
      text = (await call('electron_snapshot', { format: 'text' })).snapshot_text;
      return /button "Inner button"/.test(text) && /button "Hidden save"/.test(text);
    }, 15000, 100), text);
    const refIn = (name) => Number(new RegExp(`\\[(\\d+)\\] button "${name}"`).exec(text)[1]);
    const inner = refIn('Inner button');
    const hidden = refIn('Hidden save');
    assert.equal((await call('electron_get_text', { ref: inner })).text, 'Inner button');
    assert.equal((await call('electron_get_text', { ref: hidden })).text, 'Hidden save');

    // The closed root renders anew: one equal button, so the ref moves.
    await command("document.getElementById('box').render()");
    assert.equal((await call('electron_get_text', { ref: hidden })).target.ref, hidden);

    // The frame goes: its refs answer REF_NOT_FOUND, at once and after a
    // read of the frame's element raced its removal.
    const racing = server.call('electron_get_text', { ref: inner });
    await command("document.getElementById('frame').remove()");
    const raced = await racing;
    assert.ok(raced.ok ? raced.text === 'Inner button' : typeof raced.code === 'string', JSON.stringify(raced));
    assert.ok(await waitUntil(async () => {
      const envelope = await server.call('electron_get_text', { ref: inner });
      return !envelope.ok && envelope.code === 'REF_NOT_FOUND';
    }, 15000, 100), 'the frame\'s ref is refused');
    const gone = failsWith(await server.call('electron_get_text', { ref: inner }), 'REF_NOT_FOUND', 'frame ref');
    assert.ok(gone.next_actions.includes('electron_snapshot()'), JSON.stringify(gone));
    assert.match((await call('electron_snapshot', { format: 'text' })).snapshot_text, /button "Outer"/);
  } finally {
    await stop();
  }
});

test('diff: a page left for another site and loaded again is a reload', async () => {
  await launchPage('hostile-nav', 'Nav A');
  try {
    const url = ok(await server.call('electron_windows_list', {})).windows[0].url;
    ok(await server.call('electron_snapshot', { format: 'text' }), 'first snapshot');
    fs.writeFileSync(path.join(pagesDir, 'cmd.js'),
                     "location.href = new URLSearchParams(location.search).get('xorigin') + '/hostile-nav-b.html'");
    assert.ok(await waitUntil(async () => ok(await server.call('electron_windows_list', {})).windows[0]?.title === 'Nav B', 15000, 50));
    fs.writeFileSync(path.join(pagesDir, 'cmd.js'), `location.href = ${JSON.stringify(url)}`);
    assert.ok(await waitUntil(async () => ok(await server.call('electron_windows_list', {})).windows[0]?.title === 'Nav A', 15000, 50));
    const diff = ok(await server.call('electron_snapshot', { since: 'last' }), 'diff');
    assert.equal(diff.renderer_reloaded, true, JSON.stringify(diff));
  } finally {
    await stop();
  }
});

// --- input the page steers: it reaches its target or nobody ----------------------------------

// The mode's page, loaded by a link from the one before: a document loaded
// after the library first used the window, so the guard's listeners are
// the window's first.
async function steer (mode) {
  ok(await server.call('electron_click', { selector: `#go-${mode}` }), `the link to ${mode}`);
  assert.ok(await waitUntil(async () => ok(await server.call('electron_windows_list', {})).windows[0]?.title === `Steer ${mode}`,
                            15000, 50), `the page in mode ${mode}`);
}

const pageLog = async () => (await call('electron_get_text', { selector: '#log' })).text;

test('steer: a click the page swaps or covers never reaches another element, and is never ok', async () => {
  await launchPage('hostile-steer', 'Steer none');
  try {
    // A menu item that acts on its press and goes is clicked; the button
    // that comes under the pointer gets nothing.
    ok(await server.call('electron_click', { selector: '#menu-item' }), 'the menu item');
    assert.match(await pageLog(), /^MENU ACTED$/m);
    assert.doesNotMatch(await pageLog(), /UNDER CLICKED/);

    // Swapped on the first move: the press at Cancel's old place would hit
    // "Delete everything"; it is stopped, and the click is made again
    // where Cancel now is.
    await steer('swap-once');
    const once = await call('electron_click', { selector: '#cancel' });
    assert.equal(once.target.name, 'Cancel', JSON.stringify(once));
    let log = await pageLog();
    assert.match(log, /^CANCELLED$/m);
    assert.doesNotMatch(log, /DELETED EVERYTHING/);
    // The page's own capture listeners on window and document never saw
    // the stopped press.
    assert.doesNotMatch(log, /(window|document) (pointerdown|mousedown|mouseup|click) danger/, log);

    // Swapped on every move: never clicked, and the refusal says what the
    // page put under the pointer.
    await steer('swap-always');
    let started = Date.now();
    let refused = failsWith(await server.call('electron_click', { selector: '#cancel', timeoutMs: 1000 }), 'ELEMENT_NOT_VISIBLE');
    assert.ok(Date.now() - started < 6000, `answered in ${Date.now() - started} ms`);
    assert.match(refused.details.received_by, /^button#danger/, JSON.stringify(refused));
    assert.equal(refused.retryable, true);
    log = await pageLog();
    assert.doesNotMatch(log, /DELETED EVERYTHING|CANCELLED/);
    assert.doesNotMatch(log, /(window|document) (pointerdown|mousedown|mouseup|click) danger/, log);

    // An overlay shown on pointerdown: the release and the click would go
    // to it; they are stopped, and the covered button is refused.
    await steer('overlay');
    started = Date.now();
    refused = failsWith(await server.call('electron_click', { selector: '#cancel', timeoutMs: 1000 }), 'ELEMENT_NOT_VISIBLE');
    assert.ok(Date.now() - started < 6000, `answered in ${Date.now() - started} ms`);
    assert.match(refused.details.received_by, /div#shield|body|html/, JSON.stringify(refused));
    assert.match(refused.details.covered_by, /^div#shield/, JSON.stringify(refused));
    log = await pageLog();
    assert.doesNotMatch(log, /SHIELD CLICKED|CANCELLED/);
    assert.doesNotMatch(log, /(window|document) (mouseup|click) /, log);
  } finally {
    await stop();
  }
});

test('steer: keys for a target the page takes the focus from go nowhere, and are never ok', async () => {
  await launchPage('hostile-steer', 'Steer none');
  try {
    // The focus goes to the comment box when the password gets it: no key
    // is pressed at all.
    await steer('focus-steal');
    for (const [tool, args] of [['electron_keyboard_type', { text: 'hunter2' }], ['electron_key', { key: 'X' }],
      ['electron_press_sequence', { keys: ['h', 'i'] }]]) {
      const refused = failsWith(await server.call(tool, { selector: '#pw', ...args }), 'TYPE_NO_EFFECT', tool);
      assert.match(refused.details.received_by, /^textarea#comment/, JSON.stringify(refused));
      assert.equal(refused.details.keys, 0);
      assert.ok(refused.next_actions.includes('electron_snapshot()'), JSON.stringify(refused));
    }
    assert.equal((await call('electron_get_value', { selector: '#comment' })).value, '');
    assert.equal((await call('electron_get_value', { selector: '#pw' })).value, '');

    // The focus goes on the third key: two reach the password, and the
    // rest reach nobody (the page's own capture listeners saw none of
    // them in the comment box).
    await steer('key-steal');
    const refused = failsWith(await server.call('electron_keyboard_type', { selector: '#pw', text: 'hunter2' }), 'TYPE_NO_EFFECT');
    assert.match(refused.details.received_by, /^textarea#comment/, JSON.stringify(refused));
    assert.equal(refused.details.keys, 3);
    assert.equal((await call('electron_get_value', { selector: '#comment' })).value, '');
    assert.equal((await call('electron_get_value', { selector: '#pw' })).value, 'hu');
    const log = await pageLog();
    assert.doesNotMatch(log, /(window|document) (keydown|keypress|beforeinput|keyup) comment/, log);
  } finally {
    await stop();
  }
});
