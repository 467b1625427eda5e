// read.js: the read family — text, value, attribute, box, style, state,
// existence and focus of an element (docs/page-ops.md).
//
// Runs after core.js in the same function, so everything here lives in a
// block of its own: the files of the module share one scope.
//
// SPDX-License-Identifier: LGPL-2.1-or-later
{
  const clean = (text) => (text || '').replace(/\s+/g, ' ').trim();

  // A read answers at most this many UTF-16 units of text: a page can hold
  // a text node of megabytes, and an answer that size takes the client
  // down with it. `truncated` says how many were left out.
  const MAX_READ_CHARS = 100000;
  const bounded = (answer, member) => {
    const text = answer[member];
    if (typeof text === 'string' && text.length > MAX_READ_CHARS) {
      // Never half a surrogate pair.
      const end = /[\ud800-\udbff]/.test(text[MAX_READ_CHARS - 1]) ? MAX_READ_CHARS - 1 : MAX_READ_CHARS;
      answer[member] = text.slice(0, end);
      answer.truncated = text.length - end;
    }
    return answer;
  };

  // The label the reference names for a control without text:
  // aria-labelledby, aria-label, <label>, alt, title, placeholder.
  const labelOf = (element) => {
    const ids = (element.getAttribute('aria-labelledby') || '').split(/\s+/).filter(Boolean);
    const root = element.getRootNode();
    const byIds = ids
      .map((id) => (root.getElementById ? root.getElementById(id) : null) || document.getElementById(id))
      .filter(Boolean)
      .map((labeller) => clean(labeller.textContent))
      .join(' ');
    if (byIds)
      return byIds;
    const aria = clean(element.getAttribute('aria-label'));
    if (aria)
      return aria;
    const labels = element.labels ? Array.from(element.labels).map((label) => clean(label.textContent)).join(' ') : '';
    if (labels.trim())
      return labels.trim();
    for (const name of ['alt', 'title', 'placeholder']) {
      const value = clean(element.getAttribute(name));
      if (value)
        return value;
    }
    // A button made of an input shows its value.
    if (element.tagName === 'INPUT' && ['submit', 'reset', 'button'].includes(element.type))
      return clean(element.value);
    return '';
  };

  S.elementOp('text', (args, element) => {
    const text = (element.textContent || '').trim();
    // Last, the accessible name (a button showing only an image's alt).
    return bounded({ text: text || labelOf(element) || (S.describe ? S.describe(element).name || '' : '') }, 'text');
  });

  const VALUE_TAGS = new Set(['INPUT', 'TEXTAREA', 'SELECT', 'OPTION', 'BUTTON', 'OUTPUT', 'PROGRESS', 'METER', 'DATA']);

  S.elementOp('value', (args, element) => {
    if (VALUE_TAGS.has(element.tagName) && element.value !== undefined) {
      const answer = bounded({ value: String(element.value) }, 'value');
      if (element.tagName === 'SELECT' && element.multiple)
        answer.values = Array.from(element.selectedOptions, (option) => option.value);
      return answer;
    }
    if (element.isContentEditable)
      return bounded({ value: element.innerText }, 'value');
    const now = element.getAttribute('aria-valuenow');
    return { value: now === null ? null : now };
  });

  S.elementOp('attribute', (args, element) => {
    if (typeof args.name !== 'string' || args.name === '')
      S.fail('BAD_ARGUMENT', 'name must be a non-empty string');
    return bounded({ value: element.getAttribute(args.name) }, 'value');
  });

  const round = (n) => Math.round(n * 100) / 100;

  // A box in the element's own frame's viewport (CSS px); the library adds
  // the offsets of the frames around it.
  const boxOf = (element) => {
    const rect = element.getBoundingClientRect();
    return { x: round(rect.x), y: round(rect.y), w: round(rect.width), h: round(rect.height) };
  };

  S.elementOp('bbox', (args, element) => ({ bbox: boxOf(element) }));

  // For a crop. The library asks again with `scroll` when the box is not
  // in its window's view: Chromium carries the scroll across the frames
  // around the element, out-of-process ones too.
  S.elementOp('screenshotBox', (args, element) => {
    if (args.scroll)
      element.scrollIntoView({ block: 'center', inline: 'center' });
    return { bbox: boxOf(element) };
  });

  S.elementOp('style', (args, element) => {
    const properties = Array.isArray(args.properties) ? args.properties : [];
    const computed = getComputedStyle(element);
    const style = {};
    for (const name of properties)
      style[name] = computed.getPropertyValue(name);
    return { style };
  });

  // The deepest focused element of this document: through open (and known
  // closed) shadow roots, not into frames.
  const deepActive = () => {
    let active = document.activeElement;
    for (;;) {
      const shadow = active ? S.shadowRootOf(active) : null;
      if (!shadow || !shadow.activeElement)
        return active;
      active = shadow.activeElement;
    }
  };

  const ariaTrue = (element, name) => element.getAttribute(name) === 'true';

  // Used until the snapshot's S.states (a11y.js) is there.
  const localStates = (element) => {
    const rect = element.getBoundingClientRect();
    const visible = rect.width > 0 && rect.height > 0 &&
      (element.checkVisibility ? element.checkVisibility({ visibilityProperty: true }) : true);
    const disabled = element.matches(':disabled') || !!element.closest('[aria-disabled="true"]');
    let checked = false;
    if (element.type === 'checkbox' || element.type === 'radio')
      checked = element.indeterminate ? 'mixed' : element.checked;
    else if (element.hasAttribute('aria-checked'))
      checked = element.getAttribute('aria-checked') === 'mixed' ? 'mixed' : ariaTrue(element, 'aria-checked');
    const pressed = element.getAttribute('aria-pressed');
    return {
      visible,
      enabled: !disabled,
      disabled,
      checked,
      selected: element.tagName === 'OPTION' ? element.selected : ariaTrue(element, 'aria-selected'),
      expanded: element.tagName === 'DETAILS' ? element.open : ariaTrue(element, 'aria-expanded'),
      pressed: pressed === 'mixed' ? 'mixed' : pressed === 'true',
      focused: deepActive() === element,
      readonly: !!element.readOnly || ariaTrue(element, 'aria-readonly'),
      required: !!element.required || ariaTrue(element, 'aria-required'),
      invalid: (element.getAttribute('aria-invalid') || 'false') !== 'false' ||
        (!!element.validity && element.willValidate && !element.validity.valid),
      busy: ariaTrue(element, 'aria-busy'),
    };
  };

  S.elementOp('state', (args, element) => ({ state: S.states ? S.states(element) : localStates(element) }));

  S.elementOp('exists', () => ({ exists: true }));

  // The focused element of this frame, or `frame: true` when the focus is
  // in a frame of it (the library asks that frame next).
  S.ops.focused = () => {
    const active = deepActive();
    const answer = { hasFocus: document.hasFocus(), frame: false, target: null };
    if (!active || active === document.body || active === document.documentElement)
      return answer;
    if (active.tagName === 'IFRAME' || active.tagName === 'FRAME' || active.tagName === 'WEBVIEW') {
      answer.frame = true;
      // Which of the frames: the library asks the browser for the frame
      // of this element (by its key), or else matches the frames' URLs.
      answer.frameKey = S.keyOf(active);
      answer.frameUrl = typeof active.src === 'string' ? active.src : '';
    }
    else
      answer.target = S.targetInfo(active);
    return answer;
  };
}
