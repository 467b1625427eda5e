// interact.test.mjs: the interaction family (electron_click … electron_
// scroll_into_view) over MCP with the official SDK client, against the pages
// app (tests/fixtures/pages-app) on the Electron stand-in and Chromium.
//
// Every action is checked by what the page says happened: forms.html's
// #events log records real (trusted) input, and the read tools give values,
// texts and attributes. Hostile arguments are tried on every parameter.
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// Run by hand:
//   node --test --test-reporter=tap --test-concurrency=1 tests/e2e/interact.test.mjs

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test as nodeTest } from 'node:test';

import {
  FIXTURES,
  TOP_SRCDIR,
  electronSkipReason,
  failsWith,
  launchArgs,
  ok,
  startServer,
  waitUntil,
} from './lib/lifecycle-harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const PAGES_APP = path.join(FIXTURES, 'pages-app');
const OWN_PAGES = path.join(here, 'interact-pages');

const skip = electronSkipReason() ??
  (fs.existsSync(path.join(PAGES_APP, 'pages', 'forms.html')) ? null : `${PAGES_APP} is missing`) ?? false;

// Top-level tests only: automake's tap-driver.sh reads the top-level stream.
function test (name, options, fn) {
  if (typeof options === 'function') [fn, options] = [options, {}];
  return nodeTest(name, { timeout: 120000, ...options, skip: skip || options.skip }, fn);
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'stw-interact-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

let server = null;

before(async () => {
  if (skip) return;
  server = await startServer(null);
});

after(async () => {
  if (!server) return;
  await server.call('electron_stop', {}).catch(() => {});
  await server.close();
});

const call = (name, args) => server.call(name, args);

async function launchPage (name, extraArgs = []) {
  await call('electron_stop', {}).catch(() => {});
  return ok(await call('electron_launch', launchArgs(PAGES_APP, { args: [`--page=${name}`, ...extraArgs] })),
            `electron_launch --page=${name}`);
}

async function events () {
  return ok(await call('electron_get_text', { selector: '#events' })).text;
}

async function clearEvents () {
  ok(await call('electron_click', { selector: '#clear-events' }));
  await waitUntil(async () => (await events()) === '', 2000);
}

const value = async (selector) => ok(await call('electron_get_value', { selector })).value;
const text = async (selector) => ok(await call('electron_get_text', { selector })).text;

// --- the tools' own listing ---------------------------------------------------------

const INTERACTION_TOOLS = ['click', 'hover', 'drag', 'type', 'keyboard_type', 'type_into_editor', 'key',
  'press_sequence', 'clear_input', 'select_option', 'check', 'uncheck', 'set_files', 'drop_file', 'scroll',
  'scroll_into_view'].map((name) => `electron_${name}`);

const POINTER_CODES = ['ELEMENT_NOT_VISIBLE', 'ELEMENT_DISABLED'];
const OWN_CODES = {
  electron_click: POINTER_CODES, electron_hover: POINTER_CODES, electron_drag: POINTER_CODES,
  electron_type: [...POINTER_CODES, 'TYPE_NO_EFFECT'], electron_keyboard_type: ['ELEMENT_DISABLED', 'TYPE_NO_EFFECT'],
  electron_key: ['TYPE_NO_EFFECT'], electron_press_sequence: ['TYPE_NO_EFFECT'],
  electron_type_into_editor: POINTER_CODES, electron_clear_input: POINTER_CODES,
  electron_select_option: ['ELEMENT_DISABLED'], electron_check: POINTER_CODES, electron_uncheck: POINTER_CODES,
  electron_set_files: ['ABSOLUTE_PATH_REQUIRED', 'FILE_NOT_FOUND', 'ELEMENT_DISABLED'],
  electron_drop_file: ['ABSOLUTE_PATH_REQUIRED', 'FILE_NOT_FOUND', 'ELEMENT_NOT_VISIBLE'],
  electron_scroll_into_view: ['ELEMENT_NOT_VISIBLE'],
};

test('tools/list: every interaction tool is terse, keeps its error codes, and the family fits its budget', async () => {
  const { tools } = await server.client.listTools();
  const ours = tools.filter((tool) => INTERACTION_TOOLS.includes(tool.name));
  assert.equal(ours.length, INTERACTION_TOOLS.length);
  let chars = 0;
  for (const tool of ours) {
    assert.ok(tool.description.length <= 200, `${tool.name}: ${tool.description.length} characters`);
    // The codes every element tool can answer (BAD_ARGUMENT, NOT_RUNNING,
    // REF_NOT_FOUND, SELECTOR_NO_MATCH) are said once, in the instructions;
    // the tool's own codes stay in its text.
    for (const code of OWN_CODES[tool.name] ?? [])
      assert.match(tool.description, new RegExp(`Errors: .*\\b${code}\\b`), `${tool.name} lists ${code}`);
    assert.doesNotMatch(tool.description, /BAD_ARGUMENT|REF_NOT_FOUND|SELECTOR_NO_MATCH/, tool.name);
    assert.equal(tool.annotations.readOnlyHint ?? false, false, tool.name);
    chars += JSON.stringify(tool).length;
  }
  // 16 of the 57 core tools: at most their share of 10,000 tokens.
  assert.ok(chars / 4 <= 2400, `the interaction tools list in ${chars / 4} tokens`);
});

// --- forms: pointer -------------------------------------------------------------

test('forms: launch the pages app on forms.html', async () => {
  await launchPage('forms');
});

test('electron_click: a real, trusted click that changes the page; the answer names a ref', async () => {
  await clearEvents();
  const click = ok(await call('electron_click', { selector: '#bold' }));
  assert.ok(Number.isInteger(click.target.ref) && click.target.ref >= 1, JSON.stringify(click));
  assert.equal(ok(await call('electron_get_attribute', { selector: '#bold', name: 'aria-pressed' })).value, 'true');
  assert.match(await events(), /click #bold button=0 detail=1 trusted=1/);

  // The same element again, by the ref the first click gave it.
  ok(await call('electron_click', { ref: click.target.ref }));
  assert.equal(ok(await call('electron_get_attribute', { selector: '#bold', name: 'aria-pressed' })).value, 'false');
});

test('electron_click: a covered button is ELEMENT_NOT_VISIBLE naming the overlay, after the budget', async () => {
  const started = Date.now();
  const failed = failsWith(await call('electron_click', { selector: '#covered', timeoutMs: 400 }), 'ELEMENT_NOT_VISIBLE');
  const took = Date.now() - started;
  assert.match(failed.error, /div#overlay/);
  assert.match(failed.details.covered_by, /^div#overlay\b/);
  assert.equal(failed.retryable, true);
  assert.ok(failed.next_actions.includes('electron_snapshot()'));
  assert.ok(took >= 350 && took < 3000, `waited ${took} ms for a 400 ms budget`);
});

test('electron_click force: skips the checks, and the press lands where the pointer is', async () => {
  await clearEvents();
  ok(await call('electron_click', { selector: '#covered', force: true }));
  // A person's click at that point hits the overlay on top: so does ours.
  assert.match(await events(), /click #overlay button=0 detail=1 trusted=1/);
  assert.doesNotMatch(await events(), /click #covered/);
});

test('electron_click: a disabled button is ELEMENT_DISABLED at once; force clicks it anyway', async () => {
  const started = Date.now();
  const failed = failsWith(await call('electron_click', { selector: '#delete' }), 'ELEMENT_DISABLED');
  assert.ok(Date.now() - started < 2000, 'disabled is final, not waited for');
  assert.equal(failed.retryable, false);
  ok(await call('electron_click', { selector: '#delete', force: true }));
});

test('electron_click: a button far below the fold is scrolled into view and clicked', async () => {
  await clearEvents();
  ok(await call('electron_click', { selector: '#far-button' }));
  assert.match(await events(), /click #far-button button=0 detail=1 trusted=1/);
  const box = ok(await call('electron_get_bbox', { selector: '#far-button' })).bbox;
  assert.ok(box.y >= 0 && box.y < 800, JSON.stringify(box));
});

test('electron_click: a moving button is clicked once it is stable', async () => {
  await clearEvents();
  // After load #moving slides 160 px right, over "Animate again": a person
  // cannot click that button, and neither can we. (Clicking #moving first
  // waits for that slide to end.)
  ok(await call('electron_click', { selector: '#moving' }));
  const covered = failsWith(await call('electron_click', { selector: '#animate-again', timeoutMs: 200 }), 'ELEMENT_NOT_VISIBLE');
  assert.match(covered.error, /button#moving/);
  // Its keyboard still works: Enter starts the 300 ms slide back, and the
  // click waits for the button to stop.
  ok(await call('electron_key', { selector: '#animate-again', key: 'Enter' }));
  const started = Date.now();
  ok(await call('electron_click', { selector: '#moving' }));
  assert.match(await events(), /click #moving button=0 detail=1 trusted=1/);
  assert.ok(Date.now() - started < 3000);
});

test('electron_click: right button and double click', async () => {
  await clearEvents();
  ok(await call('electron_click', { selector: '#context', button: 'right' }));
  ok(await call('electron_click', { selector: '#dbl', clickCount: 2 }));
  const log = await events();
  assert.match(log, /contextmenu #context button=2 trusted=1/);
  assert.match(log, /click #dbl button=0 detail=2 trusted=1/);
  assert.match(log, /dblclick #dbl trusted=1/);
});

test('electron_hover: the real pointer enters the element', async () => {
  ok(await call('electron_hover', { selector: '#hover-target' }));
  assert.equal(await text('#hover-status'), 'hovered');
  ok(await call('electron_hover', { selector: '#bold' }));
  assert.equal(await text('#hover-status'), 'not hovered');
  // A disabled button can be hovered (its tooltip), not clicked.
  ok(await call('electron_hover', { selector: '#delete' }));
});

test('electron_drag: pressing the range thumb and releasing to its right moves the value', async () => {
  assert.equal(await value('#volume'), '5');
  const drag = ok(await call('electron_drag', { selector: '#volume', targetSelector: '#colour' }));
  assert.ok(drag.source.ref >= 1 && drag.target.ref >= 1 && drag.source.ref !== drag.target.ref, JSON.stringify(drag));
  assert.equal(await value('#volume'), '10');
});

// --- forms: text and keys ---------------------------------------------------------

test('electron_type: fills an input (input and change fire), by selector and by ref', async () => {
  await clearEvents();
  const fill = ok(await call('electron_type', { selector: '#fullname', text: 'Ada Lovelace' }));
  assert.equal(await value('#fullname'), 'Ada Lovelace');
  assert.match(await events(), /input #fullname value="Ada Lovelace"/);
  assert.match(await events(), /change #fullname value="Ada Lovelace"/);
  ok(await call('electron_type', { ref: fill.target.ref, text: 'Grace Hopper' }));
  assert.equal(await value('#fullname'), 'Grace Hopper');
  ok(await call('electron_type', { selector: '#editable', text: 'Notes typed here' }));
  assert.equal(await text('#editable'), 'Notes typed here');
});

test('electron_type: disabled and read-only inputs are ELEMENT_DISABLED; a checkbox is BAD_ARGUMENT', async () => {
  failsWith(await call('electron_type', { selector: '#account-id', text: 'x' }), 'ELEMENT_DISABLED');
  failsWith(await call('electron_type', { selector: '#member-since', text: 'x' }), 'ELEMENT_DISABLED');
  failsWith(await call('electron_type', { selector: '#newsletter', text: 'x' }), 'BAD_ARGUMENT');
  assert.equal(await value('#member-since'), '2019');
});

test('electron_clear_input: empties an input and a contenteditable', async () => {
  const cleared = ok(await call('electron_clear_input', { selector: '#fullname' }));
  assert.equal(cleared.cleared, true);
  assert.equal(await value('#fullname'), '');
  await clearEvents();
  ok(await call('electron_clear_input', { selector: '#editable' }));
  // (get_text answers the label of an empty element: read the log instead.)
  assert.match(await events(), /input #editable text=""/);
});

test('electron_keyboard_type, electron_key, electron_press_sequence: real keys and chords', async () => {
  await clearEvents();
  const typed = ok(await call('electron_keyboard_type', { selector: '#comments', text: 'Hi there! ∑' }));
  assert.equal(typed.typed, 11);
  assert.equal(await value('#comments'), 'Hi there! ∑');
  assert.match(await events(), /keydown #comments key=H code=KeyH mods=shift trusted=1/);
  assert.match(await events(), /keydown #comments key=! code=Digit1 mods=shift trusted=1/);

  ok(await call('electron_key', { selector: '#comments', key: 'Control+A' }));
  assert.match(await events(), /keydown #comments key=a code=KeyA mods=ctrl trusted=1/);
  ok(await call('electron_key', { key: 'Backspace' }));   // into the focused element
  assert.equal(await value('#comments'), '');

  const sequence = ok(await call('electron_press_sequence', { selector: '#search', keys: ['a', 'Shift+b', 'c', 'ArrowLeft', 'Backspace'] }));
  assert.deepEqual(sequence.keys, ['a', 'Shift+b', 'c', 'ArrowLeft', 'Backspace']);
  assert.equal(await value('#search'), 'ac');
  // Into the focused #search, at the caret the arrow key left between a and c.
  ok(await call('electron_keyboard_type', { text: 'Enter' }));
  assert.equal(await value('#search'), 'aEnterc');
});

// --- forms: options, checks, files -------------------------------------------------

test('electron_select_option: by label and by value, several for a multiple select', async () => {
  await clearEvents();
  assert.deepEqual(ok(await call('electron_select_option', { selector: '#plan', values: ['Team plan'] })).selected, ['team']);
  assert.equal(await value('#plan'), 'team');
  assert.deepEqual(ok(await call('electron_select_option', { selector: '#plan', values: ['pro'] })).selected, ['pro']);
  assert.equal(await value('#plan'), 'pro');
  assert.match(await events(), /change #plan value="pro"/);
  const multi = ok(await call('electron_select_option', { selector: '#interests', values: ['music', 'Books'] }));
  assert.deepEqual(multi.selected, ['music', 'books']);
  assert.match(await events(), /change #interests value="music,books"/);

  const missing = failsWith(await call('electron_select_option', { selector: '#plan', values: ['Gold plan'] }), 'BAD_ARGUMENT');
  assert.deepEqual(missing.details.options.map((o) => o.label), ['Free plan', 'Pro plan', 'Team plan']);
  failsWith(await call('electron_select_option', { selector: '#plan', values: ['free', 'pro'] }), 'BAD_ARGUMENT');
  failsWith(await call('electron_select_option', { selector: '#fullname', values: ['x'] }), 'BAD_ARGUMENT');
  assert.equal(await value('#plan'), 'pro');
});

test('electron_check / electron_uncheck: real clicks, idempotent, verified', async () => {
  await clearEvents();
  assert.equal(ok(await call('electron_check', { selector: '#newsletter' })).checked, true);
  assert.equal(ok(await call('electron_check', { selector: '#newsletter' })).checked, true);
  assert.equal((await events()).match(/click #newsletter/g).length, 1, 'the second check clicked nothing');
  assert.equal(ok(await call('electron_uncheck', { selector: '#newsletter' })).checked, false);
  assert.match(await events(), /change #newsletter checked=false/);

  assert.equal(ok(await call('electron_check', { selector: '#contact-phone' })).checked, true);
  failsWith(await call('electron_uncheck', { selector: '#contact-phone' }), 'BAD_ARGUMENT');
  failsWith(await call('electron_check', { selector: '#bold' }), 'BAD_ARGUMENT');
  // A switch (role=switch, aria-checked) by its click handler.
  assert.equal(ok(await call('electron_check', { selector: '#dark-mode' })).checked, true);
  assert.equal(ok(await call('electron_get_attribute', { selector: '#dark-mode', name: 'aria-checked' })).value, 'true');
});

test('electron_set_files: the browser hands the files to the input; bad paths are refused', async () => {
  const a = path.join(scratch, 'a.txt');
  const b = path.join(scratch, 'b.png');
  fs.writeFileSync(a, 'hello\n');
  fs.writeFileSync(b, Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  await clearEvents();
  const set = ok(await call('electron_set_files', { selector: '#attachment', paths: [a, b] }));
  assert.deepEqual(set.files, ['a.txt', 'b.png']);
  assert.match(await events(), /change #attachment files="a.txt,b.png"/);

  failsWith(await call('electron_set_files', { selector: '#attachment', paths: ['a.txt'] }), 'ABSOLUTE_PATH_REQUIRED');
  failsWith(await call('electron_set_files', { selector: '#attachment', paths: [path.join(scratch, 'missing.txt')] }), 'FILE_NOT_FOUND');
  failsWith(await call('electron_set_files', { selector: '#attachment', paths: [scratch] }), 'FILE_NOT_FOUND');
  failsWith(await call('electron_set_files', { selector: '#attachment', paths: Array(21).fill(a) }), 'BAD_ARGUMENT');
  failsWith(await call('electron_set_files', { selector: '#attachment', paths: [] }), 'BAD_ARGUMENT');
  failsWith(await call('electron_set_files', { selector: '#fullname', paths: [a] }), 'BAD_ARGUMENT');
});

test('electron_drop_file: dragenter, dragover and drop with the files; the page handled it', async () => {
  const a = path.join(scratch, 'drop.txt');
  fs.writeFileSync(a, 'dropped\n');
  const dropped = ok(await call('electron_drop_file', { selector: '#dropzone', paths: [a] }));
  assert.deepEqual(dropped.files, ['drop.txt']);
  assert.equal(dropped.default_prevented, true);
  assert.equal(await text('#dropzone'), 'Dropped: drop.txt');
  failsWith(await call('electron_drop_file', { selector: '#dropzone', paths: ['drop.txt'] }), 'ABSOLUTE_PATH_REQUIRED');
  failsWith(await call('electron_drop_file', { selector: '#dropzone', paths: Array(11).fill(a) }), 'BAD_ARGUMENT');
  const big = path.join(scratch, 'big.bin');
  fs.writeFileSync(big, Buffer.alloc(5 * 1024 * 1024 + 1));
  failsWith(await call('electron_drop_file', { selector: '#dropzone', paths: [big] }), 'BAD_ARGUMENT');
});

// --- forms: scrolling ------------------------------------------------------------------

test('electron_scroll and electron_scroll_into_view: the wheel and centring move the page', async () => {
  ok(await call('electron_scroll_into_view', { selector: '#fullname' }));
  const before = ok(await call('electron_get_bbox', { selector: '#far-heading' })).bbox.y;
  const wheel = ok(await call('electron_scroll', { dy: 300 }));
  assert.deepEqual([wheel.dx, wheel.dy], [0, 300]);
  const moved = await waitUntil(async () => {
    const y = ok(await call('electron_get_bbox', { selector: '#far-heading' })).bbox.y;
    return y < before - 100 ? y : null;
  }, 3000);
  assert.ok(moved !== null, 'the wheel scrolled the page');

  ok(await call('electron_scroll_into_view', { selector: '#far-heading' }));
  const box = ok(await call('electron_get_bbox', { selector: '#far-heading' })).bbox;
  assert.ok(box.y > 0 && box.y < 800, JSON.stringify(box));
  ok(await call('electron_scroll', { selector: '#events', dy: 50 }));
});

// --- hostile arguments ------------------------------------------------------------------

test('hostile arguments: every parameter', async () => {
  failsWith(await call('electron_click', { selector: '#bold', clickCount: 0 }), 'BAD_ARGUMENT');
  failsWith(await call('electron_click', { selector: '#bold', clickCount: 1000 }), 'BAD_ARGUMENT');
  failsWith(await call('electron_click', { selector: '#bold', button: 'foo' }), 'BAD_ARGUMENT');
  failsWith(await call('electron_click', { selector: '#bold', ref: 1 }), 'BAD_ARGUMENT');
  failsWith(await call('electron_click', {}), 'BAD_ARGUMENT');
  failsWith(await call('electron_click', { selector: '' }), 'BAD_ARGUMENT');
  failsWith(await call('electron_click', { ref: 0 }), 'BAD_ARGUMENT');
  failsWith(await call('electron_click', { ref: 999999 }), 'REF_NOT_FOUND');
  failsWith(await call('electron_click', { selector: '#nothing-here' }), 'SELECTOR_NO_MATCH');
  failsWith(await call('electron_click', { selector: '##bad' }), 'BAD_ARGUMENT');
  failsWith(await call('electron_click', { selector: '#bold', force: 'yes' }), 'BAD_ARGUMENT');
  failsWith(await call('electron_click', { selector: '#bold', unknown: 1 }), 'BAD_ARGUMENT');

  // timeoutMs is clamped, not refused: -1 is a single look, 999999 is 30 s.
  let started = Date.now();
  failsWith(await call('electron_click', { selector: '#covered', timeoutMs: -1 }), 'ELEMENT_NOT_VISIBLE');
  assert.ok(Date.now() - started < 1500, 'a negative budget is one look');
  ok(await call('electron_click', { selector: '#bold', timeoutMs: 999999 }));

  failsWith(await call('electron_type', { selector: '#comments', text: 'x'.repeat(100001) }), 'BAD_ARGUMENT');
  started = Date.now();
  ok(await call('electron_type', { selector: '#comments', text: 'y'.repeat(100000) }));
  ok(await call('electron_clear_input', { selector: '#comments' }));
  failsWith(await call('electron_type', { selector: '#comments' }), 'BAD_ARGUMENT');
  failsWith(await call('electron_keyboard_type', { text: 'x'.repeat(10001) }), 'BAD_ARGUMENT');
  failsWith(await call('electron_key', { key: 'Control+Nope' }), 'BAD_ARGUMENT');
  failsWith(await call('electron_key', { key: 'Foo+a' }), 'BAD_ARGUMENT');
  failsWith(await call('electron_key', { key: '' }), 'BAD_ARGUMENT');
  failsWith(await call('electron_press_sequence', { keys: [] }), 'BAD_ARGUMENT');
  failsWith(await call('electron_press_sequence', { keys: ['a', 'NotAKey'] }), 'BAD_ARGUMENT');
  failsWith(await call('electron_press_sequence', { keys: Array(101).fill('a') }), 'BAD_ARGUMENT');
  failsWith(await call('electron_select_option', { selector: '#plan', values: [] }), 'BAD_ARGUMENT');
  failsWith(await call('electron_drag', { selector: '#volume' }), 'BAD_ARGUMENT');
  failsWith(await call('electron_scroll', { dy: 'far' }), 'BAD_ARGUMENT');
  failsWith(await call('electron_drop_file', { selector: '#dropzone', paths: [] }), 'BAD_ARGUMENT');
});

test('cancellation: the client aborts a click waiting on a covered button; the server keeps answering', async () => {
  const controller = new AbortController();
  let started = Date.now();
  setTimeout(() => controller.abort(), 300);
  await assert.rejects(server.client.callTool({ name: 'electron_click', arguments: { selector: '#covered', timeoutMs: 20000 } },
                                              undefined, { signal: controller.signal }));
  assert.ok(Date.now() - started < 5000, 'the abort ended the wait');
  // The next call is answered promptly: the cancelled click is not still running in front of it.
  started = Date.now();
  ok(await call('electron_get_value', { selector: '#fullname' }));
  assert.ok(Date.now() - started < 1000, `the next call took ${Date.now() - started} ms`);
});

// --- editors ------------------------------------------------------------------------------

test('editors: electron_type_into_editor changes both CodeMirror documents; electron_type on CodeMirror 5 is TYPE_NO_EFFECT', async () => {
  await launchPage('editors');
  await waitUntil(async () => (await text('#editors-status')) === 'Editors ready', 15000, 50);

  const before5 = await text('#cm5-doc');
  const refused = failsWith(await call('electron_type', { selector: '#cm5-host textarea', text: 'not typing' }), 'TYPE_NO_EFFECT');
  assert.ok(refused.next_actions.some((a) => a.startsWith('electron_type_into_editor')), JSON.stringify(refused));
  assert.equal(await text('#cm5-doc'), before5, 'the hidden textarea did not reach the document');

  const five = ok(await call('electron_type_into_editor', { selector: '#cm5-host .CodeMirror-lines', text: 'let five = 5;', replace: true }));
  assert.deepEqual([five.typed, five.replaced], [13, true]);
  await waitUntil(async () => (await text('#cm5-doc')) === 'let five = 5;', 2000);
  assert.equal(await text('#cm5-doc'), 'let five = 5;');

  ok(await call('electron_type_into_editor', { selector: '#cm6-host .cm-content', text: 'const seven = 7;', replace: true }));
  await waitUntil(async () => (await text('#cm6-doc')) === 'const seven = 7;', 2000);
  assert.equal(await text('#cm6-doc'), 'const seven = 7;');

  // A contenteditable editor takes a fill as an edit (execCommand insertText
  // is input the editor observes), unlike a hidden textarea.
  ok(await call('electron_type', { selector: '#cm6-host .cm-content', text: 'filled six' }));
  await waitUntil(async () => (await text('#cm6-doc')) === 'filled six', 2000);
  assert.equal(await text('#cm6-doc'), 'filled six');

  // Empty text with replace clears.
  ok(await call('electron_type_into_editor', { selector: '#cm6-host .cm-content', text: '', replace: true }));
  await waitUntil(async () => (await text('#cm6-doc')) === '', 2000);
  assert.equal(await text('#cm6-doc'), '');
});

// --- frames -------------------------------------------------------------------------------

test('frames: clicks and typing land inside a same-origin and a cross-origin iframe', async () => {
  await launchPage('frames');
  let surfaces = [];
  await waitUntil(async () => {
    surfaces = ok(await call('electron_surfaces_list', {})).surfaces;
    return surfaces.filter((s) => s.kind === 'frame' && /kind=/.test(s.url ?? '')).length === 2;
  }, 15000, 100);
  ok(await call('electron_click', { selector: '#top-button' }));
  assert.equal(await text('#top-status'), 'Top-level button clicked 1 time');

  for (const kind of ['same-origin', 'cross-origin']) {
    const frame = surfaces.find((s) => s.kind === 'frame' && s.url.includes(`kind=${kind}`));
    assert.ok(frame, `a ${kind} frame surface: ${JSON.stringify(surfaces)}`);
    ok(await call('electron_switch_surface', { surfaceId: frame.id }));
    const click = ok(await call('electron_click', { selector: '#inner-button' }));
    assert.equal(await text('#inner-status'), `Inner ${kind} button clicked 1 time`);
    ok(await call('electron_keyboard_type', { selector: '#inner-text', text: 'abc' }));
    assert.equal(await text('#inner-typed'), `Inner ${kind} textbox: abc`);
    ok(await call('electron_type', { selector: '#inner-text', text: 'filled' }));
    assert.equal(await text('#inner-typed'), `Inner ${kind} textbox: filled`);

    // The frame's ref works from the window surface too.
    ok(await call('electron_switch_surface', { surfaceId: surfaces.find((s) => s.kind === 'window').id }));
    ok(await call('electron_click', { ref: click.target.ref }));
    ok(await call('electron_switch_surface', { surfaceId: frame.id }));
    assert.equal(await text('#inner-status'), `Inner ${kind} button clicked 2 times`);
  }
  // The top-level page got none of those clicks.
  ok(await call('electron_switch_surface', { surfaceId: surfaces.find((s) => s.kind === 'window').id }));
  assert.equal(await text('#top-status'), 'Top-level button clicked 1 time');
});

// --- dialogs ------------------------------------------------------------------------------

test('extras: a styled checkbox through its label, an HTML5 drag and drop, a click that opens alert()', async () => {
  await launchPage('extras', [`--pages-dir=${OWN_PAGES}`]);
  // The input is display:none; the label is what a person clicks.
  assert.equal(ok(await call('electron_check', { selector: '#styled' })).checked, true);
  assert.equal(ok(await call('electron_get_state', { selector: '#styled' })).state.checked, true);
  assert.equal(ok(await call('electron_uncheck', { selector: '#styled' })).checked, false);
  failsWith(await call('electron_click', { selector: '#styled', timeoutMs: 100 }), 'ELEMENT_NOT_VISIBLE');
  // Forced, it is not waited for: an element without a box cannot be pressed.
  let started = Date.now();
  failsWith(await call('electron_click', { selector: '#styled', force: true }), 'ELEMENT_NOT_VISIBLE');
  assert.ok(Date.now() - started < 2000, 'force does not wait');

  // An HTML5 drag: the browser hands it over and the drop lands on the lane;
  // the browser is not left in a drag (the next call answers at once).
  const drag = ok(await call('electron_drag', { selector: '#card', targetSelector: '#lane' }));
  assert.ok(drag.source.ref !== drag.target.ref);
  assert.equal(await text('#dnd'), 'Dropped card-1');
  started = Date.now();
  ok(await call('electron_click', { selector: '#after' }));
  assert.ok(Date.now() - started < 2000, 'no drag left behind');

  // The alert holds the click's acknowledgement back: the click completes
  // when the dialog opens and says so, and the dialog is dismissed (the
  // policy before any is set) so it blocks neither the app nor the next call.
  started = Date.now();
  const click = ok(await call('electron_click', { selector: '#alert' }));
  assert.ok(Date.now() - started < 5000);
  assert.deepEqual(click.dialog, { type: 'alert', message: 'Hello from the page', action: 'dismiss' });
  started = Date.now();
  ok(await call('electron_click', { selector: '#after' }));
  assert.equal(ok(await call('electron_exists', { selector: '#alert' })).exists, true);
  assert.ok(Date.now() - started < 2000, 'the page answers at once after the dialog');
  ok(await call('electron_stop', {}));
});

test('electron_fill_form: text, a select by label, a checkbox, in one call; a failing field is named', async () => {
  await launchPage('signup');
  const snapshot = ok(await call('electron_snapshot', { format: 'text' })).snapshot_text;
  const refOf = (role, name) => Number(/\[(\d+)\]/.exec(snapshot.split('\n').find((l) => l.includes(`] ${role} "${name}"`)))[1]);
  const filled = ok(await call('electron_fill_form', {
    fields: [
      { ref: refOf('textbox', 'Full name'), value: 'Ada Lovelace' },
      { selector: '#email', value: 'ada@example.org' },
      { ref: refOf('combobox', 'Plan'), value: 'Pro' },
      { ref: refOf('checkbox', 'I accept the terms'), value: true },
    ],
  }));
  assert.equal(filled.count, 4);
  assert.deepEqual(filled.filled.map((t) => t.name), ['Full name', 'Email', 'Plan', 'I accept the terms']);
  assert.equal(await value('#name'), 'Ada Lovelace');
  assert.equal(await value('#email'), 'ada@example.org');
  assert.equal(await value('#plan'), 'pro');
  assert.equal(ok(await call('electron_get_state', { selector: '#terms' })).state.checked, true);

  // The second field fails: the first stays filled, and the error says which.
  const failed = failsWith(await call('electron_fill_form', {
    fields: [{ selector: '#name', value: 'Grace' }, { selector: '#nope', value: 'x' }],
  }), 'SELECTOR_NO_MATCH');
  assert.equal(failed.details.field, 1);
  assert.equal(failed.details.filled, 1);
  assert.equal(await value('#name'), 'Grace');

  for (const fields of [[], [{ selector: '#name' }], [{ selector: '#name', value: 3 }], [{ value: 'x' }],
    [{ selector: '#name', value: [] }], Array.from({ length: 51 }, () => ({ selector: '#name', value: 'x' }))])
    failsWith(await call('electron_fill_form', { fields }), 'BAD_ARGUMENT');
  ok(await call('electron_stop', {}));
});

test('shadow DOM: clicks and typing reach controls in open shadow roots, nested ones, and slots', async () => {
  await launchPage('shadow');
  ok(await call('electron_click', { selector: '#open-button' }));
  assert.equal(await text('#open-status'), 'Open action clicked 1 time');
  ok(await call('electron_click', { selector: '#nested-button' }));
  assert.equal(await text('#nested-status'), 'Nested action clicked 1 time');
  ok(await call('electron_click', { selector: '#slotted' }));
  assert.equal(await text('#slotted-status'), 'Slotted button clicked 1 time');
  ok(await call('electron_keyboard_type', { selector: '#open-input', text: 'deep' }));
  assert.equal(await text('#open-input-status'), 'Open input: deep');
  ok(await call('electron_type', { selector: '#open-input', text: 'filled' }));
  assert.equal(await text('#open-input-status'), 'Open input: filled');
});

test('a link click navigates, and the next click finds its element on the new page; then two frames deep', async () => {
  await launchPage('extras', [`--pages-dir=${OWN_PAGES}`]);
  ok(await call('electron_click', { selector: '#to-nested' }));
  // Right away: the new document's element, not a stale world's miss.
  ok(await call('electron_click', { selector: '#middle' }));
  assert.equal(ok(await call('electron_windows_list', {})).windows[0].title, 'Nested frames');
  let leaf = null;
  await waitUntil(async () => {
    const surfaces = ok(await call('electron_surfaces_list', {})).surfaces;
    leaf = surfaces.find((s) => s.kind === 'frame' && /nested-leaf\.html/.test(s.url ?? ''));
    return leaf;
  }, 15000, 100);
  assert.ok(leaf, 'the leaf frame is a surface');
  ok(await call('electron_switch_surface', { surfaceId: leaf.id }));
  ok(await call('electron_click', { selector: '#leaf-button' }));
  assert.equal(await text('#leaf-status'), 'Leaf button clicked 1 time');
  ok(await call('electron_stop', {}));
});

// --- typing: capitals, and what a field does with a fill ------------------------------

test('electron_key, electron_press_sequence: a capital letter types a capital', async () => {
  await launchPage('todo', [`--pages-dir=${OWN_PAGES}`]);
  ok(await call('electron_key', { selector: '#plain', key: 'X' }));
  assert.equal(await value('#plain'), 'X');
  ok(await call('electron_press_sequence', { selector: '#plain', keys: ['H', 'i', 'Shift+j', 'K'] }));
  assert.equal(await value('#plain'), 'XHiJK');
});

test('electron_type: a TodoMVC box that commits on change and empties itself took the text; a swallowing field did not', async () => {
  await launchPage('todo', [`--pages-dir=${OWN_PAGES}`]);
  ok(await call('electron_type', { selector: '#new-todo', text: 'Water the plants' }));
  assert.equal(await text('#todo-list'), 'Water the plants');
  assert.equal(await value('#new-todo'), '');
  ok(await call('electron_type', { selector: '#new-todo', text: 'Feed the cat' }));
  assert.equal(ok(await call('electron_elements_list', { selector: '#todo-list li' })).matches.length, 2);

  // Empties itself, nothing else changes: swallowed.
  failsWith(await call('electron_type', { selector: '#swallow', text: 'not typing' }), 'TYPE_NO_EFFECT');
  // Puts its own value back: swallowed too.
  failsWith(await call('electron_type', { selector: '#controlled', text: 'other' }), 'TYPE_NO_EFFECT');
  assert.equal(await value('#controlled'), 'fixed');
  assert.equal(ok(await call('electron_elements_list', { selector: '#todo-list li' })).matches.length, 2);
  ok(await call('electron_stop', {}));
});

// --- confinement ------------------------------------------------------------------------------

test('--app-root: set_files and drop_file refuse a file outside the root', async () => {
  const rooted = await startServer(null, { args: [`--app-root=${TOP_SRCDIR}`] });
  try {
    ok(await rooted.call('electron_launch', launchArgs(PAGES_APP, { args: ['--page=forms'] })));
    const outside = path.join(scratch, 'outside.txt');
    fs.writeFileSync(outside, 'x');
    const inside = path.join(OWN_PAGES, 'extras.html');
    failsWith(await rooted.call('electron_set_files', { selector: '#attachment', paths: [outside] }), 'BAD_ARGUMENT');
    failsWith(await rooted.call('electron_drop_file', { selector: '#dropzone', paths: [outside] }), 'BAD_ARGUMENT');
    const link = path.join(OWN_PAGES, '.stw-link-outside');
    fs.rmSync(link, { force: true });
    fs.symlinkSync(outside, link);
    try {
      failsWith(await rooted.call('electron_set_files', { selector: '#attachment', paths: [link] }), 'BAD_ARGUMENT');
    } finally {
      fs.rmSync(link, { force: true });
    }
    assert.deepEqual(ok(await rooted.call('electron_set_files', { selector: '#attachment', paths: [inside] })).files, ['extras.html']);
  } finally {
    await rooted.call('electron_stop', {}).catch(() => {});
    await rooted.close();
  }
});
