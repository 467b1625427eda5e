// actions.js: what the interaction family asks of the page — actionability
// and the point to press, filling, options, check state, files, scrolling.
//
// Pointer input itself is real (Input.* from the library); these ops only
// prepare it and check its outcome. Points are CSS px in this frame's
// viewport. See docs/page-ops.md.
//
// SPDX-License-Identifier: LGPL-2.1-or-later
'use strict';

(() => {
  const S = globalThis.__stagewright;

  // --- describing an element for a message --------------------------------

  const label = (element) => {
    if (!element || !element.tagName)
      return 'nothing';
    let text = element.tagName.toLowerCase();
    if (element.id)
      text += `#${element.id}`;
    const classes = typeof element.className === 'string' ? element.className.trim().split(/\s+/).filter(Boolean) : [];
    if (classes.length)
      text += `.${classes.slice(0, 3).join('.')}`;
    if (S.describe) {
      // Role and name only when they say more than the tag does.
      const info = S.describe(element) || {};
      const role = ['generic', 'none', 'presentation'].includes(info.role) ? '' : info.role;
      if (role || info.name)
        text += ` (${[role, info.name && JSON.stringify(info.name)].filter(Boolean).join(' ')})`;
    }
    return text;
  };

  // --- actionability ---------------------------------------------------------

  const nextFrame = () => new Promise((resolve) => {
    // rAF does not run in a hidden window: a timer backs it up.
    const timer = setTimeout(resolve, 50);
    requestAnimationFrame(() => { clearTimeout(timer); resolve(); });
  });

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  const isVisible = (element) => {
    const rect = element.getBoundingClientRect();
    if (rect.width <= 0 || rect.height <= 0)
      return false;
    if (element.checkVisibility)
      return element.checkVisibility({ visibilityProperty: true });
    return getComputedStyle(element).visibility !== 'hidden';
  };

  const isDisabled = (element) => {
    try {
      if (element.matches(':disabled'))
        return true;
    } catch (e) { /* not a form control */ }
    return !!element.closest('[aria-disabled="true"]');
  };

  const running = (animation) => animation.playState === 'running';

  // Running animations and transitions on the element, inside it or on an
  // ancestor (across shadow roots): none, and its box cannot be moving.
  const mayMove = (element) => {
    if (element.getAnimations && element.getAnimations({ subtree: true }).some(running))
      return true;
    for (let root = element.getRootNode(); root && root.getAnimations; root = root.host ? root.host.getRootNode() : null) {
      for (const animation of root.getAnimations()) {
        const target = running(animation) && animation.effect && animation.effect.target;
        if (target && composedWithin(element, target))
          return true;
      }
    }
    return false;
  };

  const sameBox = (a, b) => a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height;

  const isStable = async (element) => {
    if (!mayMove(element))
      return true;
    const first = element.getBoundingClientRect();
    await nextFrame();
    const second = element.getBoundingClientRect();
    return sameBox(first, second);
  };

  const fullyInView = (rect) =>
    rect.top >= 0 && rect.left >= 0 && rect.bottom <= innerHeight && rect.right <= innerWidth;

  // The element the pointer hits at (x, y), through shadow roots.
  const hitAt = (x, y) => {
    let hit = document.elementFromPoint(x, y);
    for (;;) {
      const shadow = hit && S.shadowRootOf(hit);
      const inner = shadow ? shadow.elementFromPoint(x, y) : null;
      if (!inner || inner === hit)
        return hit;
      hit = inner;
    }
  };

  // Whether `node` is `element` or inside it, across shadow boundaries.
  const composedWithin = (node, element) => {
    for (let n = node; n; n = n.parentNode || n.host) {
      if (n === element)
        return true;
    }
    return false;
  };

  // The middle of the element's part inside the viewport.
  const pointOf = (element) => {
    const rect = element.getBoundingClientRect();
    const left = Math.max(rect.left, 0);
    const top = Math.max(rect.top, 0);
    const right = Math.min(rect.right, innerWidth);
    const bottom = Math.min(rect.bottom, innerHeight);
    if (right <= left || bottom <= top)
      return null;
    return { x: (left + right) / 2, y: (top + bottom) / 2 };
  };

  // --- the guard (guard.js): input aimed elsewhere never reaches the page -----

  const guard = globalThis.__stagewrightGuard;
  // Longer than any pause between the events of one action (a long text
  // is many events, each one renews it); an armed check that outlives its
  // action lets everything through.
  const GUARD_MS = 15000;

  // The focused element, through shadow roots.
  const deepActive = () => {
    let active = document.activeElement;
    for (;;) {
      const shadow = active && S.shadowRootOf(active);
      const inner = shadow && shadow.activeElement;
      if (!inner || inner === active)
        return active;
      active = inner;
    }
  };

  // Where an event is going: the first node of its path as this window
  // sees it. A path into a closed shadow root stops at its host; then the
  // point (the mouse) or the focus (keys) says which element inside it is.
  const aimOf = (event) => {
    const first = event.composedPath()[0];
    if (first instanceof Element && !first.shadowRoot && S.closedRoots.has(first)) {
      const inner = event instanceof MouseEvent ? hitAt(event.clientX, event.clientY) : deepActive();
      if (inner && composedWithin(inner, first))
        return inner;
    }
    return first;
  };

  const arm = (kind, element, allows) => {
    const armed = { kind, element, token: 1 + Math.floor(Math.random() * 2 ** 30), blocked: null };
    let until = performance.now() + GUARD_MS;
    armed.allows = (event) => {
      const now = performance.now();
      if (now > until)
        return true;
      until = now + GUARD_MS;
      return allows(armed, event);
    };
    guard.armed = guard.last = armed;
    return armed.token;
  };

  const POINTER_EVENTS = new Set(['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click', 'auxclick', 'dblclick',
    'contextmenu']);
  const PRESSES = new Set(['pointerdown', 'mousedown']);

  // A click's events must all be aimed at the element (or inside it) until
  // it has had its click; the first that is not is cancelled, and so is
  // every one after it (the click did not happen).
  const armClick = (element, button, count) => arm('pointer', element, (armed, event) => {
    if (!POINTER_EVENTS.has(event.type))
      return true;
    const aim = aimOf(event);
    if (!armed.blocked && aim && composedWithin(aim, element)) {
      if (PRESSES.has(event.type))
        armed.pressed = true;
      // Its click (the last of clickCount), or the context menu it asked
      // for: done. What follows is the app's own (a label's click on its
      // control, the menu under the pointer).
      const last = button === 'right' ? event.type === 'contextmenu'
        : event.type === (button === 'middle' ? 'auxclick' : 'click') && event.detail >= count;
      if (last && guard.armed === armed)
        guard.armed = null;
      return true;
    }
    armed.blocked = armed.blocked || label(aim);
    return false;
  });

  const KEY_EVENTS = new Set(['keydown', 'keypress', 'textInput', 'beforeinput', 'input', 'keyup']);

  // Keys must go to the element: a key event aimed elsewhere is cancelled,
  // and once one is, every key after it too (the typing stops). A key up
  // alone may follow the focus the key moved (Enter on a field the app
  // leaves). Tab moves the focus on purpose: the keys after it follow.
  const armKeys = (element) => arm('keys', element, (armed, event) => {
    if (!KEY_EVENTS.has(event.type))
      return true;
    const aim = aimOf(event);
    if (!armed.blocked && aim && composedWithin(aim, element)) {
      if (event.type === 'keydown') {
        armed.keys = (armed.keys || 0) + 1;
        if (event.key === 'Tab' && guard.armed === armed)
          guard.armed = null;
      }
      return true;
    }
    if (event.type !== 'keyup')
      armed.blocked = armed.blocked || label(aim);
    return false;
  });

  // guardVerdict {token} → {} when the action's input reached its target
  // (or the document it was armed in is gone: nothing to tell), else
  // {received_by, keys?}. Disarms.
  S.ops.guardVerdict = (args) => {
    const armed = guard.last && guard.last.token === args.token ? guard.last : null;
    if (!armed)
      return {};
    if (guard.armed === armed)
      guard.armed = null;
    guard.last = null;
    if (!armed.blocked)
      return {};
    // The app took the press and then removed or hid the element (a menu
    // that acts on mousedown): what came under the pointer got nothing.
    if (armed.kind === 'pointer' && armed.pressed && !(armed.element.isConnected && isVisible(armed.element)))
      return {};
    return armed.kind === 'keys' ? { received_by: armed.blocked, keys: armed.keys || 0 } : { received_by: armed.blocked };
  };

  // One look: null when the pointer can act on the element now, else
  // [code, message, details].
  const check = async (element, args) => {
    if (!element.isConnected)
      return ['SELECTOR_NO_MATCH', 'The element is no longer attached'];
    if (!isVisible(element))
      return ['ELEMENT_NOT_VISIBLE', `${label(element)} is not visible`];
    if (args.enabled !== false && isDisabled(element))
      return ['ELEMENT_DISABLED', `${label(element)} is disabled`];
    if (!fullyInView(element.getBoundingClientRect()))
      element.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    if (!(await isStable(element)))
      return ['ELEMENT_NOT_VISIBLE', `${label(element)} is not stable (it is moving)`];
    const point = pointOf(element);
    if (!point)
      return ['ELEMENT_NOT_VISIBLE', `${label(element)} is outside the viewport`];
    if (args.hit !== false) {
      const hit = hitAt(point.x, point.y);
      if (hit && !composedWithin(hit, element))
        return ['ELEMENT_NOT_VISIBLE', `${label(element)} is covered by ${label(hit)}, which would receive the click`,
          { covered_by: label(hit) }];
    }
    return null;
  };

  // Waits (at most args.waitMs) until the element can take the pointer,
  // then answers the point. ELEMENT_DISABLED is final; the library calls
  // again while its own budget lasts.
  const prepare = async (element, args) => {
    if (args.force) {
      if (!fullyInView(element.getBoundingClientRect()))
        element.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
      const point = pointOf(element);
      if (!point)
        S.fail('ELEMENT_NOT_VISIBLE', `${label(element)} has no visible box`);
      return point;
    }
    const deadline = performance.now() + Math.max(0, args.waitMs || 0);
    for (let attempt = 0; ; attempt++) {
      const failure = await check(element, args);
      if (!failure)
        return pointOf(element);
      if (failure[0] !== 'ELEMENT_NOT_VISIBLE' || performance.now() >= deadline)
        S.fail(failure[0], failure[1], failure[2]);
      // Polling, not spinning: a frame, then growing pauses.
      await (attempt === 0 ? nextFrame() : sleep(Math.min(100, 20 * attempt)));
    }
  };

  // --- check state -----------------------------------------------------------

  const checkedOf = (element) => {
    if (element instanceof HTMLInputElement && (element.type === 'checkbox' || element.type === 'radio'))
      return element.checked;
    const aria = element.getAttribute('aria-checked');
    if (aria === 'true' || aria === 'false' || aria === 'mixed')
      return aria === 'true';
    const inner = element.querySelector && element.querySelector('input[type=checkbox], input[type=radio]');
    if (element.tagName === 'LABEL' && element.control)
      return checkedOf(element.control);
    return inner ? inner.checked : null;
  };

  // pointer {force, waitMs, hit, checked?} → {x, y} to press, or
  // {already: true} when the element is already in the `checked` state.
  S.elementOp('pointer', async (args, element) => {
    if (typeof args.checked === 'boolean') {
      const state = checkedOf(element);
      if (state === null)
        S.fail('BAD_ARGUMENT', `${label(element)} is not a checkbox, radio or switch`);
      if (state === args.checked)
        return { already: true, checked: state };
      if (!args.checked && element instanceof HTMLInputElement && element.type === 'radio')
        S.fail('BAD_ARGUMENT', 'A radio button cannot be unchecked; check another one of its group');
    }
    // A styled checkbox hides its input and shows its label: a person
    // clicks the label.
    let clicked = element;
    if (typeof args.checked === 'boolean' && element.labels && element.labels.length && !isVisible(element))
      clicked = Array.from(element.labels).find(isVisible) || element;
    guard.armed = null;
    const point = await prepare(clicked, args);
    if (args.guard)
      return { x: point.x, y: point.y, guard: armClick(clicked, args.button, args.clickCount || 1) };
    return { x: point.x, y: point.y };
  });

  S.elementOp('checked', (args, element) => ({ checked: checkedOf(element) }));

  // --- text ------------------------------------------------------------------

  const TEXT_INPUTS = new Set(['', 'text', 'search', 'email', 'password', 'tel', 'url', 'number']);
  const contentOf = (element) => ('value' in element && !(element.isContentEditable) ? String(element.value) : element.textContent);

  const editable = (element) => {
    if (element instanceof HTMLTextAreaElement || element instanceof HTMLInputElement) {
      if (element instanceof HTMLInputElement && ['checkbox', 'radio', 'file', 'button', 'submit', 'reset', 'image', 'hidden'].includes(element.type))
        S.fail('BAD_ARGUMENT', `An input of type ${element.type} cannot be filled`);
      if (element.readOnly)
        S.fail('ELEMENT_DISABLED', `${label(element)} is read-only`);
      return 'value';
    }
    if (element.isContentEditable)
      return 'content';
    S.fail('BAD_ARGUMENT', `${label(element)} is not an input, a textarea or contenteditable`);
  };

  // Whether the ancestors that clip their overflow leave nothing of the
  // element to see: an editor's hidden textarea (CodeMirror 5's sits in a
  // zero-height box). Setting its value is not typing.
  const clippedAway = (element) => {
    let rect = element.getBoundingClientRect();
    let left = rect.left, top = rect.top, right = rect.right, bottom = rect.bottom;
    for (let node = element.parentElement; node && node !== document.documentElement; node = node.parentElement) {
      const style = getComputedStyle(node);
      if (style.overflowX === 'visible' && style.overflowY === 'visible')
        continue;
      rect = node.getBoundingClientRect();
      left = Math.max(left, rect.left);
      top = Math.max(top, rect.top);
      right = Math.min(right, rect.right);
      bottom = Math.min(bottom, rect.bottom);
      if (right - left < 1 || bottom - top < 1)
        return true;
    }
    return false;
  };

  const fire = (element, type, init) => {
    const Event_ = type === 'input' ? InputEvent : Event;
    element.dispatchEvent(new Event_(type, { bubbles: true, composed: type === 'input', ...init }));
  };

  // Puts the text in the element as an edit would, with input and change
  // events; answers whether the element held it once set (before the
  // app's handlers ran).
  const setContent = (element, kind, text) => {
    if (kind !== 'value') {
      const selection = element.ownerDocument.getSelection();
      selection.selectAllChildren(element);
      if (text === '')
        document.execCommand('delete', false);
      else
        document.execCommand('insertText', false, text);
      return false;
    }
    const proto = element instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
    const setter = Object.getOwnPropertyDescriptor(proto, 'value').set;
    if (element instanceof HTMLInputElement && !TEXT_INPUTS.has(element.type)) {
      // date, colour, range…: the value is the text or the input refuses it.
      setter.call(element, text);
      if (text !== '' && element.value === '')
        S.fail('BAD_ARGUMENT', `"${text.slice(0, 40)}" is not a valid value for an input of type ${element.type}`);
    } else {
      try { element.select(); } catch (e) { /* some types have no selection */ }
      setter.call(element, text);
    }
    const set = contentOf(element) === text;
    fire(element, 'input', { inputType: 'insertText', data: text });
    fire(element, 'change');
    return set;
  };

  // Whether the page changed outside the element: a MutationObserver's
  // records, taken at once (no callback, no later task).
  const changedElsewhere = (records, element) =>
    records.some((record) => !composedWithin(record.target, element));

  // fill {text, force, waitMs} → {changed} once the element took the text.
  // It took it when its content is the text or changed, or when the app
  // took the value and put the content back: the value was set, the app's
  // handlers restored it and changed the page (TodoMVC adds the item and
  // empties its box on change). Fails TYPE_NO_EFFECT when the element
  // swallowed it: its content stayed the same and nothing else changed
  // (an editor's hidden textarea that drops what is not typed).
  S.elementOp('fill', async (args, element) => {
    const text = String(args.text ?? '');
    const kind = editable(element);
    if (!args.force) {
      const deadline = performance.now() + Math.max(0, args.waitMs || 0);
      for (;;) {
        const failure = isDisabled(element) ? ['ELEMENT_DISABLED', `${label(element)} is disabled`]
          : isVisible(element) ? null : ['ELEMENT_NOT_VISIBLE', `${label(element)} is not visible`];
        if (!failure)
          break;
        if (failure[0] !== 'ELEMENT_NOT_VISIBLE' || performance.now() > deadline)
          S.fail(failure[0], failure[1]);
        await sleep(20);
      }
    }
    if (!args.force && kind === 'value' && clippedAway(element))
      S.fail('TYPE_NO_EFFECT', `${label(element)} is hidden (clipped to nothing): setting its value is not typing`);
    const before = contentOf(element);
    element.focus({ preventScroll: false });
    // What the page does with the text, outside the element (the value
    // itself is no mutation).
    const observer = new MutationObserver(() => {});
    observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    let after;
    try {
      const set = setContent(element, kind, text);
      after = contentOf(element);
      let records = observer.takeRecords();
      if (after !== text && after === before && !(set && changedElsewhere(records, element))) {
        await sleep(10);
        after = contentOf(element);
        records = records.concat(observer.takeRecords());
        if (after !== text && after === before && !(set && changedElsewhere(records, element)))
          S.fail('TYPE_NO_EFFECT', set ? `${label(element)} put its content back and nothing else changed: it did not take the text`
            : `${label(element)} did not take the text (its content stayed the same)`);
      }
    } finally {
      observer.disconnect();
    }
    // The new text needs a layout, which the next call asking where the
    // element is (a fill, a click) would otherwise wait for: done in a task
    // of its own, it runs while this answer travels to the agent and back.
    setTimeout(() => { if (element.isConnected) element.getBoundingClientRect(); }, 0);
    return { changed: after !== before };
  });

  // focus {guard} → {guard?}: for keyboard input into the element (a
  // label's: into its control). With guard, the focus must land in it (a
  // page that moves it elsewhere on focus gets no key) and the keys that
  // follow are held to it (armKeys).
  S.elementOp('focus', (args, element) => {
    if (isDisabled(element))
      S.fail('ELEMENT_DISABLED', `${label(element)} is disabled`);
    const focused = element.tagName === 'LABEL' && element.control ? element.control : element;
    guard.armed = null;
    focused.focus();
    if (!args.guard)
      return {};
    const active = deepActive();
    if (!active || !composedWithin(active, focused))
      S.fail('TYPE_NO_EFFECT', `The focus is on ${label(active)}, not on ${label(focused)}: no key was pressed`,
        { received_by: label(active), keys: 0 });
    return { guard: armKeys(focused) };
  });

  // --- options ---------------------------------------------------------------

  // select {values} → {selected: [option values]}; each value names an
  // option by its value or, failing that, by its label.
  S.elementOp('select', (args, element) => {
    const select = element instanceof HTMLSelectElement ? element
      : element.tagName === 'LABEL' && element.control instanceof HTMLSelectElement ? element.control : null;
    if (!select)
      S.fail('BAD_ARGUMENT', `${label(element)} is not a <select>`);
    if (isDisabled(select))
      S.fail('ELEMENT_DISABLED', `${label(select)} is disabled`);
    const options = Array.from(select.options);
    const wanted = Array.isArray(args.values) ? args.values.map(String) : [];
    if (wanted.length > 1 && !select.multiple)
      S.fail('BAD_ARGUMENT', `${label(select)} takes one option, not ${wanted.length}`);
    const chosen = [];
    for (const value of wanted) {
      const norm = value.trim().replace(/\s+/g, ' ');
      const option = options.find((o) => o.value === value) ||
        options.find((o) => o.label.trim().replace(/\s+/g, ' ') === norm) ||
        options.find((o) => o.label.trim().toLowerCase() === norm.toLowerCase());
      if (!option)
        S.fail('BAD_ARGUMENT', `${label(select)} has no option with value or label ${JSON.stringify(value)}`,
          { options: options.slice(0, 50).map((o) => ({ value: o.value, label: o.label })) });
      if (option.disabled)
        S.fail('ELEMENT_DISABLED', `Option ${JSON.stringify(option.label)} is disabled`);
      chosen.push(option);
    }
    select.focus();
    for (const option of options)
      option.selected = chosen.includes(option);
    fire(select, 'input');
    fire(select, 'change');
    return { selected: chosen.map((o) => o.value) };
  });

  // --- files -----------------------------------------------------------------

  // fileInput {} → {key}: the element is an <input type=file>; its key, so
  // the library can hand the files to it through the DOM domain.
  S.elementOp('fileInput', (args, element) => {
    const input = element instanceof HTMLInputElement ? element
      : element.tagName === 'LABEL' ? element.control : null;
    if (!(input instanceof HTMLInputElement) || input.type !== 'file')
      S.fail('BAD_ARGUMENT', `${label(element)} is not an <input type=file>`);
    if (isDisabled(input))
      S.fail('ELEMENT_DISABLED', `${label(input)} is disabled`);
    if (args.count > 1 && !input.multiple)
      S.fail('BAD_ARGUMENT', `${label(input)} takes one file, not ${args.count}`);
    return { key: S.keyOf(input) };
  });

  // drop {files: [{name, type, data (base64)}]} → {files, default_prevented}:
  // dragenter, dragover and drop with a real DataTransfer holding the files.
  S.elementOp('drop', (args, element) => {
    const transfer = new DataTransfer();
    for (const file of args.files || []) {
      const binary = atob(file.data || '');
      const bytes = new Uint8Array(binary.length);
      for (let i = 0; i < binary.length; i++)
        bytes[i] = binary.charCodeAt(i);
      transfer.items.add(new File([bytes], file.name, { type: file.type || '' }));
    }
    if (!args.force && !isVisible(element))
      S.fail('ELEMENT_NOT_VISIBLE', `${label(element)} is not visible`);
    if (!fullyInView(element.getBoundingClientRect()))
      element.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    const point = pointOf(element) || { x: 0, y: 0 };
    const init = { bubbles: true, cancelable: true, composed: true, clientX: point.x, clientY: point.y, dataTransfer: transfer };
    element.dispatchEvent(new DragEvent('dragenter', init));
    element.dispatchEvent(new DragEvent('dragover', init));
    const drop = new DragEvent('drop', init);
    element.dispatchEvent(drop);
    return { files: Array.from(transfer.files).map((f) => f.name), default_prevented: drop.defaultPrevented };
  });

  // --- scrolling -------------------------------------------------------------

  // scrollIntoView {} → {x, y}: centred when not fully in view.
  S.elementOp('scrollIntoView', (args, element) => {
    if (!fullyInView(element.getBoundingClientRect()))
      element.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    const point = pointOf(element);
    if (!point)
      S.fail('ELEMENT_NOT_VISIBLE', `${label(element)} has no visible box`);
    return point;
  });

  // viewport {} → {width, height, scrollX, scrollY}
  S.ops.viewport = () => ({ width: innerWidth, height: innerHeight, scrollX, scrollY });
})();
