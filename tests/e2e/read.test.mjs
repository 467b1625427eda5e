// read.test.mjs: the read family (get_text, get_value, get_attribute,
// get_bbox, get_computed_style, get_state, exists, focused_element) and
// electron_screenshot's element crops, size bounds and inline images, on the
// fixture pages of tests/fixtures/pages-app run by the Electron stand-in on
// Debian's Chromium, driven over MCP by the official TypeScript SDK client.
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// Run by hand:
//   node --test --test-reporter=tap --test-concurrency=1 tests/e2e/read.test.mjs

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before, test as nodeTest } from 'node:test';

import {
  FIXTURES,
  TOP_SRCDIR,
  electronSkipReason,
  envelopeOf,
  failsWith,
  launchArgs,
  ok,
  pngSize,
  startServer,
  waitUntil,
} from './lib/lifecycle-harness.mjs';

const PAGES_APP = path.join(FIXTURES, 'pages-app');
const pagesSkip = fs.existsSync(path.join(PAGES_APP, 'package.json')) ? null : `${PAGES_APP} is missing`;
const skip = electronSkipReason() ?? pagesSkip ?? false;

// Top-level tests only: automake's tap-driver.sh reads the top-level stream.
function test (name, options, fn) {
  if (typeof options === 'function') [fn, options] = [options, {}];
  return nodeTest(name, { timeout: 120000, ...options, skip: skip || options.skip }, fn);
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'stw-read-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

// --- pages of our own: where the focus is when they load ----------------------

const FOCUS_PAGES = {
  'focus-top': `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Focus top</title></head><body>
<label for="first">First field</label> <input id="first" autofocus>
<input id="go" type="submit" value="Go on"></body></html>`,
  'focus-shadow': `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Focus shadow</title></head><body>
<focus-host id="host"></focus-host>
<script>
customElements.define('focus-host', class extends HTMLElement {
  constructor () { super(); this.attachShadow({ mode: 'open' }).innerHTML = '<input id="shadow-input" aria-label="Shadow field">'; }
  connectedCallback () { this.shadowRoot.getElementById('shadow-input').focus(); }
});
</script></body></html>`,
  // The cross-origin frame (another site: out of process) gets the focus.
  'focus-cross': `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Focus cross</title></head><body>
<iframe id="same" src="focus-inner.html?kind=same"></iframe>
<script>
const cross = document.createElement('iframe');
cross.id = 'cross';
cross.src = new URLSearchParams(location.search).get('xorigin') + '/focus-inner.html?kind=cross';
cross.addEventListener('load', () => cross.focus());
document.body.append(cross);
</script></body></html>`,
  'focus-same': `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Focus same</title></head><body>
<button id="top">Top</button>
<iframe id="same" src="focus-inner.html?kind=same"></iframe>
<script>
const same = document.getElementById('same');
same.addEventListener('load', () => same.focus());
</script></body></html>`,
  // The focus moves by itself a second after load (or at a click on #move).
  'focus-change': `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Focus change</title></head><body>
<input id="a" aria-label="Field A" autofocus> <input id="b" aria-label="Field B">
<script>setTimeout(() => document.getElementById('b').focus(), 1000);</script></body></html>`,
  // A cross-origin frame far below the fold.
  'tall-frame': `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Tall frame</title>
<style>body { margin: 0 } #spacer { height: 2500px; background: linear-gradient(#fff, #ccf) }
iframe { border: 3px solid #444; width: 400px; height: 120px }</style></head><body>
<div id="spacer"></div>
<script>
const cross = document.createElement('iframe');
cross.id = 'cross';
cross.src = new URLSearchParams(location.search).get('xorigin') + '/tall-inner.html';
document.body.append(cross);
</script></body></html>`,
  'tall-inner': `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Tall inner</title></head>
<body style="background: #fdd"><button id="deep" style="margin: 20px; font-size: 20px">Deep button</button></body></html>`,
  'focus-inner': `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Focus inner</title></head><body>
<input id="inner">
<script>
const input = document.getElementById('inner');
input.setAttribute('aria-label', 'Inner ' + new URLSearchParams(location.search).get('kind') + ' field');
input.focus();
// A frame focused from outside gives its input the focus.
window.addEventListener('focus', () => input.focus());
</script></body></html>`,
};
const focusPages = path.join(scratch, 'pages');
fs.mkdirSync(focusPages);
for (const [name, html] of Object.entries(FOCUS_PAGES))
  fs.writeFileSync(path.join(focusPages, `${name}.html`), html);

// --- PNG pixels, decoded here (zlib is all it takes) ---------------------------

/** {width, height, pixel(x, y) → [r, g, b, a]} of an 8-bit RGB(A) PNG. */
function decodePng (buffer) {
  assert.ok(buffer.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), 'a PNG');
  let offset = 8;
  let width = 0, height = 0, channels = 0;
  const data = [];
  while (offset < buffer.length) {
    const length = buffer.readUInt32BE(offset);
    const type = buffer.toString('latin1', offset + 4, offset + 8);
    const body = buffer.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      assert.equal(body[8], 8, 'bit depth 8');
      assert.equal(body[12], 0, 'not interlaced');
      channels = { 2: 3, 6: 4 }[body[9]];
      assert.ok(channels, `colour type ${body[9]}`);
    } else if (type === 'IDAT') {
      data.push(body);
    }
    offset += 12 + length;
  }
  const raw = zlib.inflateSync(Buffer.concat(data));
  const stride = width * channels;
  const pixels = Buffer.alloc(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? pixels[y * stride + i - channels] : 0;
      const b = y > 0 ? pixels[(y - 1) * stride + i] : 0;
      const c = i >= channels && y > 0 ? pixels[(y - 1) * stride + i - channels] : 0;
      let value = line[i];
      if (filter === 1) value += a;
      else if (filter === 2) value += b;
      else if (filter === 3) value += (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
        value += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      pixels[y * stride + i] = value & 0xff;
    }
  }
  return {
    width,
    height,
    pixel (x, y) {
      const at = y * stride + x * channels;
      return [pixels[at], pixels[at + 1], pixels[at + 2], channels === 4 ? pixels[at + 3] : 255];
    },
  };
}

/** How many distinct colours an image has (a blank crop has one). */
function colours (image) {
  const seen = new Set();
  for (let y = 0; y < image.height; y++)
    for (let x = 0; x < image.width; x++)
      seen.add(image.pixel(x, y).join(','));
  return seen.size;
}

/** Asserts that `crop` is the region of `whole` at (x, y) (CSS px = pixels here), within a small tolerance. */
function assertSameRegion (crop, whole, x, y, what) {
  let differing = 0;
  for (let j = 0; j < crop.height; j++)
    for (let i = 0; i < crop.width; i++) {
      const a = crop.pixel(i, j);
      const b = whole.pixel(Math.round(x) + i, Math.round(y) + j);
      if (a.some((v, k) => Math.abs(v - b[k]) > 24)) differing++;
    }
  assert.ok(differing <= crop.width * crop.height * 0.03,
            `${what}: ${differing} of ${crop.width * crop.height} pixels differ from the window's at ${x},${y}`);
}

// --- one server for the file ---------------------------------------------------

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

async function launchPage (name, { pagesDir, title } = {}) {
  const args = [`--page=${name}`];
  if (pagesDir) args.push(`--pages-dir=${pagesDir}`);
  ok(await server.call('electron_launch', launchArgs(PAGES_APP, { args })), `electron_launch --page=${name}`);
  if (title) {
    assert.ok(await waitUntil(async () => {
      const list = ok(await server.call('electron_windows_list', {}));
      return list.windows[0]?.title === title;
    }, 15000, 50), `the window is titled ${title}`);
  }
}

async function stop () {
  ok(await server.call('electron_stop', {}), 'electron_stop');
}

/** The frames of the only window, once there are `count` of them. */
async function frames (count) {
  let list = null;
  assert.ok(await waitUntil(async () => {
    list = ok(await server.call('electron_surfaces_list', {}));
    return list.surfaces.filter((s) => s.kind === 'frame' && s.url && !s.url.startsWith('about:')).length >= count;
  }, 15000, 50), `${count} frames load`);
  return list.surfaces;
}

const read = async (tool, args) => ok(await server.call(tool, args), `${tool} ${JSON.stringify(args)}`);

function assertTarget (target, what) {
  assert.ok(target && Number.isInteger(target.ref) && target.ref > 0, `${what}: target ${JSON.stringify(target)}`);
  assert.equal(typeof target.role, 'string');
  assert.equal(typeof target.name, 'string');
}

// --- the forms page ---------------------------------------------------------------

test('forms: text, value, attribute, style, state and exists of real controls', async () => {
  await launchPage('forms', { title: 'Forms fixture' });
  try {
    // Text: the element's own, else the label the reference names.
    const labels = {
      '#save': 'Save',
      '#fullname': 'Full name',          // wrapping <label>
      '#email': 'Email',                 // <label for>
      '#age': 'Age in years',            // title
      '#search': 'Search the site',      // aria-label
      '#phone': 'Phone number',          // aria-labelledby
      '#website': 'Website address',     // placeholder
      '#far-heading': 'Far section',
    };
    for (const [selector, text] of Object.entries(labels)) {
      const answer = await read('electron_get_text', { selector });
      assert.equal(answer.text, text, selector);
      assertTarget(answer.target, selector);
    }

    // The same element keeps its ref, and a ref reads like its selector.
    const save = await read('electron_get_text', { selector: '#save' });
    const again = await read('electron_get_value', { ref: save.target.ref });
    assert.equal(again.target.ref, save.target.ref);
    assert.equal(again.value, '');

    // Values of each kind of control.
    const values = {
      '#volume': '5',
      '#colour': '#3366cc',
      '#plan': 'free',
      '#account-id': 'ACC-0042',
      '#member-since': '2019',
      '#username': 'x',
      '#fullname': '',
      '#birthday': '',
      '#newsletter': 'on',
      '#contact-phone': 'phone',
      '#comments': '',
      '#interests': '',
      '#plan option[value=team]': 'team',
      '#editable': '',
      '#plain-editable': 'Plain editable text',
      'h1': null,
    };
    for (const [selector, value] of Object.entries(values))
      assert.equal((await read('electron_get_value', { selector })).value, value, selector);

    // Attributes: present, present and empty, absent (not an error).
    assert.equal((await read('electron_get_attribute', { selector: '#email', name: 'type' })).value, 'email');
    assert.equal((await read('electron_get_attribute', { selector: '#email', name: 'required' })).value, '');
    assert.equal((await read('electron_get_attribute', { selector: '#email', name: 'data-nothing' })).value, null);
    assert.equal((await read('electron_get_attribute', { selector: '#username', name: 'aria-invalid' })).value, 'true');

    // Computed style: only what was asked, custom properties too.
    const style = await read('electron_get_computed_style',
                             { selector: '#overlay', properties: ['background-color', 'position', '--unset'] });
    assert.deepEqual(style.style, { 'background-color': 'rgba(40, 40, 60, 0.85)', position: 'fixed', '--unset': '' });

    // States.
    const state = async (selector) => (await read('electron_get_state', { selector })).state;
    const keys = ['visible', 'enabled', 'disabled', 'checked', 'selected', 'expanded', 'pressed', 'focused',
                  'readonly', 'required', 'invalid', 'busy'];
    assert.deepEqual(Object.keys(await state('#save')).sort(), [...keys].sort());
    assert.equal((await state('#save')).visible, true);
    assert.equal((await state('#delete')).disabled, true);
    assert.equal((await state('#delete')).enabled, false);
    assert.equal((await state('#account-id')).disabled, true);
    assert.equal((await state('#email')).required, true);
    assert.equal((await state('#member-since')).readonly, true);
    assert.equal((await state('#username')).invalid, true);
    assert.equal((await state('#contact-email')).checked, true);
    assert.equal((await state('#contact-phone')).checked, false);
    assert.equal((await state('#newsletter')).checked, false);
    assert.equal((await state('#advanced-toggle')).expanded, false);
    assert.equal((await state('#bold')).pressed, false);
    assert.equal((await state('#beta')).visible, false);
    assert.equal((await state('#hidden-button')).visible, false);
    assert.equal((await state('#plan option[value=free]')).selected, true);
    assert.equal((await state('#plan option[value=pro]')).selected, false);
    assert.equal((await state('#fullname')).focused, false);

    // Exists: a miss is an answer.
    const yes = await read('electron_exists', { selector: '#save' });
    assert.equal(yes.exists, true);
    assert.equal(yes.target.ref, save.target.ref);
    assert.equal((await read('electron_exists', { selector: '#no-such-thing' })).exists, false);
    assert.equal((await read('electron_exists', { ref: save.target.ref })).exists, true);
    assert.equal((await read('electron_exists', { ref: 999999 })).exists, false);

    // Box: in the viewport, sane; hidden elements measure nothing.
    const box = (await read('electron_get_bbox', { selector: '#save' })).bbox;
    assert.ok(box.w > 20 && box.h > 10 && box.x >= 0 && box.y >= 0 && box.x + box.w <= 1100, JSON.stringify(box));
    const email = (await read('electron_get_bbox', { selector: '#email' })).bbox;
    assert.ok(email.y < box.y, 'the email field is above the save button');
    assert.deepEqual((await read('electron_get_bbox', { selector: '#beta' })).bbox, { x: 0, y: 0, w: 0, h: 0 });

    // Nothing has the focus on this page.
    assert.equal((await read('electron_focused_element', {})).focused, null);
  } finally {
    await stop();
  }
});

test('forms: hostile arguments are refused with BAD_ARGUMENT, misses with their codes', async () => {
  await launchPage('forms', { title: 'Forms fixture' });
  try {
    const bad = async (tool, args) => failsWith(await server.call(tool, args), 'BAD_ARGUMENT', `${tool} ${JSON.stringify(args)}`);
    for (const tool of ['electron_get_text', 'electron_get_value', 'electron_get_bbox', 'electron_get_state', 'electron_exists']) {
      for (const ref of [0, -1, 2 ** 40, '1', 1.5, null])
        if (ref !== null) await bad(tool, { ref });
      await bad(tool, { selector: '' });
      await bad(tool, { selector: 'button[' });
      await bad(tool, { selector: ':::' });
      await bad(tool, {});
      await bad(tool, { ref: 1, selector: '#save' });
      await bad(tool, { selector: '#save', surplus: 1 });
    }
    failsWith(await server.call('electron_get_text', { selector: '#no-such-thing' }), 'SELECTOR_NO_MATCH');
    failsWith(await server.call('electron_get_text', { ref: 999999 }), 'REF_NOT_FOUND');

    await bad('electron_get_attribute', { selector: '#save' });
    await bad('electron_get_attribute', { selector: '#save', name: '' });
    await bad('electron_get_attribute', { selector: '#save', name: 'x'.repeat(300) });
    await bad('electron_get_attribute', { selector: '#save', name: 7 });

    await bad('electron_get_computed_style', { selector: '#save' });
    await bad('electron_get_computed_style', { selector: '#save', properties: [] });
    await bad('electron_get_computed_style', { selector: '#save', properties: Array(51).fill('color') });
    for (const name of ['background-color;x', 'BackgroundColor', '', 'color:red', '-', '--', 'a'.repeat(101), 'color\n'])
      await bad('electron_get_computed_style', { selector: '#save', properties: [name] });
    await bad('electron_get_computed_style', { selector: '#save', properties: [1] });
    // Fifty is the limit, not an error.
    const fifty = await read('electron_get_computed_style', { selector: '#save', properties: Array(50).fill('color') });
    assert.deepEqual(Object.keys(fifty.style), ['color']);

    await bad('electron_focused_element', { selector: '#save' });
  } finally {
    await stop();
  }
});

// --- frames ---------------------------------------------------------------------

test('frames: reads by ref in same- and cross-origin frames, boxes in the window\'s viewport, crops that match the window', async () => {
  await launchPage('frames', { title: 'Frames fixture' });
  try {
    const surfaces = await frames(2);
    const window = surfaces.find((s) => s.kind === 'window');
    const same = surfaces.find((s) => s.kind === 'frame' && s.originRelation === 'same-origin');
    const cross = surfaces.find((s) => s.kind === 'frame' && s.originRelation === 'cross-origin');
    assert.ok(same && cross, JSON.stringify(surfaces));

    // A ref from each frame (a read binds one), used from the window.
    const refs = {};
    for (const [kind, surface] of [['same-origin', same], ['cross-origin', cross]]) {
      ok(await server.call('electron_switch_surface', { surfaceId: surface.id }));
      refs[kind] = (await read('electron_get_text', { selector: '#inner-button' })).target.ref;
      refs[`${kind} heading`] = (await read('electron_get_text', { selector: '#inner-heading' })).target.ref;
    }
    ok(await server.call('electron_switch_surface', { surfaceId: window.id }));

    for (const [kind, owner] of [['same-origin', '#same-frame'], ['cross-origin', '#cross-frame']]) {
      const text = await read('electron_get_text', { ref: refs[kind] });
      assert.equal(text.text, `Inner ${kind} button`);
      assert.equal((await read('electron_exists', { ref: refs[kind] })).exists, true);
      assert.equal((await read('electron_get_state', { ref: refs[kind] })).state.enabled, true);
      assert.equal((await read('electron_get_value', { ref: refs[kind] })).value, '');

      // The frame's content box (border 4, padding 6) plus the body's 8px margin.
      const frame = (await read('electron_get_bbox', { selector: owner })).bbox;
      const heading = (await read('electron_get_bbox', { ref: refs[`${kind} heading`] })).bbox;
      assert.ok(Math.abs(heading.x - (frame.x + 4 + 6 + 8)) < 0.02, `${kind}: ${JSON.stringify({ frame, heading })}`);
      assert.ok(heading.y > frame.y + 10 && heading.y < frame.y + frame.h, `${kind}: ${JSON.stringify({ frame, heading })}`);

      // The crop by ref is that very region of the window.
      const button = (await read('electron_get_bbox', { ref: refs[kind] })).bbox;
      const crop = ok(await server.call('electron_screenshot', { ref: refs[kind], dir: scratch }));
      const whole = ok(await server.call('electron_screenshot', { dir: scratch }));
      assert.ok(Math.abs(crop.width - button.w) <= 1 && Math.abs(crop.height - button.h) <= 1,
                `${kind}: crop ${crop.width}x${crop.height}, box ${JSON.stringify(button)}`);
      const cropImage = decodePng(fs.readFileSync(crop.path));
      assert.ok(colours(cropImage) > 2, `${kind}: the crop shows the button`);
      assertSameRegion(cropImage, decodePng(fs.readFileSync(whole.path)), button.x, button.y, kind);
    }
  } finally {
    await stop();
  }
});

test('frames: an element of a cross-origin frame below the fold is scrolled into view and cropped', async () => {
  await launchPage('tall-frame', { pagesDir: focusPages });
  try {
    let surfaces = null;
    assert.ok(await waitUntil(async () => {
      surfaces = ok(await server.call('electron_surfaces_list', {})).surfaces;
      return surfaces.some((s) => s.kind === 'frame' && s.url?.includes('tall-inner'));
    }, 15000, 50), 'the frame loads');
    const frame = surfaces.find((s) => s.kind === 'frame');
    ok(await server.call('electron_switch_surface', { surfaceId: frame.id }));
    const ref = (await read('electron_get_text', { selector: '#deep' })).target.ref;
    ok(await server.call('electron_switch_surface', { surfaceId: surfaces.find((s) => s.kind === 'window').id }));

    const before = (await read('electron_get_bbox', { ref })).bbox;
    assert.ok(before.y > 2000, `below the fold: ${JSON.stringify(before)}`);
    const crop = ok(await server.call('electron_screenshot', { ref, dir: scratch }));
    const after = (await read('electron_get_bbox', { ref })).bbox;
    assert.ok(after.y >= 0 && after.y + after.h <= 800, `scrolled into the window: ${JSON.stringify(after)}`);
    const whole = ok(await server.call('electron_screenshot', { dir: scratch }));
    const cropImage = decodePng(fs.readFileSync(crop.path));
    assert.ok(colours(cropImage) > 2, 'the crop shows the button');
    assertSameRegion(cropImage, decodePng(fs.readFileSync(whole.path)), after.x, after.y, 'below the fold');
  } finally {
    await stop();
  }
});

// --- shadow roots -------------------------------------------------------------------

test('shadow: a selector reaches into open shadow roots; its ref reads again', async () => {
  await launchPage('shadow', { title: 'Shadow DOM fixture' });
  try {
    const open = await read('electron_get_text', { selector: '#open-button' });
    assert.equal(open.text, 'Open action');
    assert.equal((await read('electron_get_text', { selector: '#open-input' })).text, 'Open input');
    assert.equal((await read('electron_get_text', { selector: '#nested-button' })).text, 'Nested action');
    assert.equal((await read('electron_get_text', { ref: open.target.ref })).text, 'Open action');
    assert.equal((await read('electron_get_text', { selector: '#slotted' })).text, 'Slotted button');
    const shot = ok(await server.call('electron_screenshot', { ref: open.target.ref, dir: scratch }));
    const box = (await read('electron_get_bbox', { ref: open.target.ref })).bbox;
    assert.ok(Math.abs(shot.width - box.w) <= 1 && Math.abs(shot.height - box.h) <= 1);
  } finally {
    await stop();
  }
});

// --- focus ------------------------------------------------------------------------------

test('focused_element: autofocus, a shadow root, a same-origin and a cross-origin frame', async () => {
  const cases = [
    ['focus-top', 'First field', 'window'],
    ['focus-shadow', 'Shadow field', 'window'],
    ['focus-same', 'Inner same field', 'same-origin'],
    ['focus-cross', 'Inner cross field', 'cross-origin'],
  ];
  for (const [page, text, where] of cases) {
    await launchPage(page, { pagesDir: focusPages });
    try {
      let focused = null;
      await waitUntil(async () => {
        focused = (await read('electron_focused_element', {})).focused;
        return focused;
      }, 10000, 50);
      assert.ok(focused, `${page}: something has the focus`);
      assertTarget(focused, page);
      const surfaces = ok(await server.call('electron_surfaces_list', {})).surfaces;
      const surface = surfaces.find((s) => s.id === focused.surface_id);
      assert.ok(surface, `${page}: ${focused.surface_id} is a surface`);
      if (where === 'window') assert.equal(surface.kind, 'window', page);
      else assert.equal(surface.originRelation, where, page);
      // The ref names that element: its label, and its focused state.
      assert.equal((await read('electron_get_text', { ref: focused.ref })).text, text, page);
      assert.equal((await read('electron_get_state', { ref: focused.ref })).state.focused, true, page);
      if (page === 'focus-top') {
        // A button made of an input reads as its value.
        assert.equal((await read('electron_get_text', { selector: '#go' })).text, 'Go on');
        assert.equal((await read('electron_get_value', { selector: '#go' })).value, 'Go on');
      }
    } finally {
      await stop();
    }
  }
});

test('focused_element follows a focus change, with a new ref for the new element', async () => {
  await launchPage('focus-change', { pagesDir: focusPages });
  try {
    let first = null;
    await waitUntil(async () => (first = (await read('electron_focused_element', {})).focused), 10000, 20);
    assert.equal((await read('electron_get_text', { ref: first.ref })).text, 'Field A');
    let second = null;
    await waitUntil(async () => {
      second = (await read('electron_focused_element', {})).focused;
      return second && second.ref !== first.ref;
    }, 10000, 20);
    assert.ok(second && second.ref !== first.ref, JSON.stringify({ first, second }));
    assert.equal((await read('electron_get_text', { ref: second.ref })).text, 'Field B');
    assert.equal((await read('electron_get_state', { ref: first.ref })).state.focused, false);
    assert.equal((await read('electron_get_state', { ref: second.ref })).state.focused, true);
    // The ref of B is the one a selector read gives.
    assert.equal((await read('electron_exists', { selector: '#b' })).target.ref, second.ref);
  } finally {
    await stop();
  }
});

// --- screenshots --------------------------------------------------------------------------

test('screenshot: element crops by selector and ref, inline images within bounds, JPEG quality', async () => {
  await launchPage('forms', { title: 'Forms fixture' });
  try {
    // A selector far down the page: scrolled into view, cropped to its box.
    const far = ok(await server.call('electron_screenshot', { selector: '#far-button', dir: scratch }));
    const farBox = (await read('electron_get_bbox', { selector: '#far-button' })).bbox;
    assert.ok(Math.abs(far.width - farBox.w) <= 1 && Math.abs(far.height - farBox.h) <= 1, JSON.stringify({ far, farBox }));
    assert.ok(colours(decodePng(fs.readFileSync(far.path))) > 2, 'the crop shows the button, not a blank page');
    assert.equal(fs.statSync(far.path).size, far.bytes);

    // By ref, from a read.
    const ref = (await read('electron_get_text', { selector: '#save' })).target.ref;
    const byRef = ok(await server.call('electron_screenshot', { ref, dir: scratch }));
    const saveBox = (await read('electron_get_bbox', { ref })).bbox;
    assert.ok(Math.abs(byRef.width - saveBox.w) <= 1 && Math.abs(byRef.height - saveBox.h) <= 1);

    // No inline image unless asked.
    const plain = await server.client.callTool({ name: 'electron_screenshot', arguments: { dir: scratch } });
    assert.equal(plain.content.length, 1);

    // Inline: an MCP image item, the file's bytes, within the default 1280 bound.
    const call = async (args) => {
      const result = await server.client.callTool({ name: 'electron_screenshot', arguments: args });
      const envelope = ok(envelopeOf(result), `electron_screenshot ${JSON.stringify(args)}`);
      return { envelope, images: result.content.filter((c) => c.type === 'image') };
    };
    const full = await call({ fullPage: true, inline: true, dir: scratch });
    assert.equal(full.images.length, 1);
    assert.equal(full.images[0].mimeType, 'image/png');
    const bytes = Buffer.from(full.images[0].data, 'base64');
    assert.deepEqual(bytes, fs.readFileSync(full.envelope.path), 'the inline image is the file');
    const decoded = decodePng(bytes);
    assert.equal(decoded.width, full.envelope.width);
    assert.equal(decoded.height, full.envelope.height);
    assert.ok(decoded.width <= 1280 && decoded.height <= 1280, `${decoded.width}x${decoded.height}`);
    assert.ok(decoded.height === 1280 || decoded.width === 1280, 'the tall page was scaled down to the bound');

    const small = await call({ inline: true, maxWidth: 300, dir: scratch });
    assert.ok(small.envelope.width <= 300 && small.envelope.width >= 298, JSON.stringify(small.envelope));
    assert.deepEqual(pngSize(small.envelope.path), { width: small.envelope.width, height: small.envelope.height });
    const short = await call({ inline: true, maxHeight: 100, maxWidth: 1000, dir: scratch });
    assert.ok(short.envelope.height <= 100, JSON.stringify(short.envelope));
    const element = await call({ selector: '#save', inline: true, maxWidth: 20, dir: scratch });
    assert.ok(element.envelope.width <= 20, JSON.stringify(element.envelope));

    // JPEG: the MIME type, the quality visibly applied.
    const low = await call({ format: 'jpeg', quality: 5, inline: true, dir: scratch });
    const high = await call({ format: 'jpeg', quality: 95, inline: true, dir: scratch });
    assert.equal(low.images[0].mimeType, 'image/jpeg');
    assert.equal(Buffer.from(low.images[0].data, 'base64')[0], 0xff);
    assert.ok(low.envelope.bytes < high.envelope.bytes / 2, `${low.envelope.bytes} vs ${high.envelope.bytes}`);
    assert.match(low.envelope.path, /\.jpg$/);

    // Hostile.
    const bad = async (args) => failsWith(await server.call('electron_screenshot', { dir: scratch, ...args }), 'BAD_ARGUMENT',
                                          JSON.stringify(args));
    for (const args of [{ maxWidth: 0 }, { maxWidth: 2 ** 40 }, { maxHeight: -1 }, { maxWidth: 1.5 }, { maxWidth: '9' },
                        { ref: 0 }, { ref: -1 }, { ref: 2 ** 40 }, { ref: '1' }, { selector: '' }, { selector: 'a[' },
                        { ref: 1, selector: '#save' }, { selector: '#save', fullPage: true },
                        { ref: 1, clip: { x: 0, y: 0, width: 1, height: 1 } },
                        { clip: { x: -1, y: 0, width: 5, height: 5 } }, { clip: { x: 0, y: 0, width: 0, height: 5 } },
                        { quality: 101 }, { inline: 'yes' }, { windowIndex: -1 }])
      await bad(args);
    failsWith(await server.call('electron_screenshot', { selector: '#no-such-thing', dir: scratch }), 'SELECTOR_NO_MATCH');
    failsWith(await server.call('electron_screenshot', { ref: 999999, dir: scratch }), 'REF_NOT_FOUND');
    failsWith(await server.call('electron_screenshot', { path: 'relative.png' }), 'ABSOLUTE_PATH_REQUIRED');
    failsWith(await server.call('electron_screenshot', { path: path.join(scratch, 'x.txt') }), 'BAD_ARGUMENT');
  } finally {
    await stop();
  }
});

test('screenshot: with --app-root, files stay inside it', async (t) => {
  // The root must hold the stand-in and the app too (launch paths are confined).
  const root = TOP_SRCDIR;
  const inside = fs.mkdtempSync(path.join(root, 'tests', '.stw-read-shots-'));
  t.after(() => fs.rmSync(inside, { recursive: true, force: true }));
  const confined = await startServer(t, { args: ['--app-root', root] });
  ok(await confined.call('electron_launch', launchArgs(PAGES_APP, { args: ['--page=forms'] })));
  try {
    const shot = ok(await confined.call('electron_screenshot', { selector: '#save', dir: inside, inline: true }));
    assert.ok(shot.path.startsWith(inside + path.sep));
    const outside = failsWith(await confined.call('electron_screenshot', { path: path.join(scratch, 'out.png') }), 'BAD_ARGUMENT');
    assert.equal(outside.details.argument, 'path');
    failsWith(await confined.call('electron_screenshot', { dir: scratch }), 'BAD_ARGUMENT');
    failsWith(await confined.call('electron_screenshot', { dir: path.join(inside, '..', '..', '..', '..') }), 'BAD_ARGUMENT');
    assert.equal(fs.readdirSync(scratch).filter((f) => f.startsWith('out')).length, 0);
  } finally {
    await confined.call('electron_stop', {}).catch(() => {});
  }
});
