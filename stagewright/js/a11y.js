// a11y.js: roles, accessible names, states and fingerprints as Chromium
// computes them, and the walker behind snapshot, find and list.
//
// The walker is the hot path (docs/page-ops.md): one pass in composed
// document order, one compact array per entry, no per-element objects
// beyond what the answer needs.
//
// SPDX-License-Identifier: LGPL-2.1-or-later
'use strict';

(() => {
const S = globalThis.__stagewright;

// --- roles -----------------------------------------------------------------

// ARIA roles we recognise in a role attribute (the first known token wins).
const ARIA_ROLES = new Set(('alert alertdialog application article banner blockquote button caption cell ' +
  'checkbox code columnheader combobox complementary contentinfo definition deletion dialog directory ' +
  'document emphasis feed figure form generic grid gridcell group heading img image insertion link list ' +
  'listbox listitem log main marquee math menu menubar menuitem menuitemcheckbox menuitemradio meter ' +
  'navigation none note option paragraph presentation progressbar radio radiogroup region row rowgroup ' +
  'rowheader scrollbar search searchbox separator slider spinbutton status strong subscript superscript ' +
  'switch tab table tablist tabpanel term textbox time timer toolbar tooltip tree treegrid treeitem').split(' '));

// Roles an agent acts on: they always get a ref (reference §4.1).
const INTERACTIVE = new Set(['button', 'link', 'checkbox', 'radio', 'textbox', 'searchbox', 'combobox',
  'listbox', 'option', 'switch', 'slider', 'spinbutton', 'menuitem', 'menuitemcheckbox', 'menuitemradio',
  'tab', 'treeitem', 'DisclosureTriangle', 'Date', 'DateTime', 'InputTime', 'ColorWell']);
// Not acted on, but read: they get refs too so agents can verify through
// them (issue 8, item 9).
const READABLE = new Set(['heading', 'status', 'alert', 'log', 'dialog', 'alertdialog', 'progressbar',
  'meter', 'timer', 'marquee']);
// Listed without a ref.
const LANDMARKS = new Set(['banner', 'complementary', 'contentinfo', 'form', 'main', 'navigation',
  'region', 'search', 'article', 'image', 'img', 'tabpanel', 'Iframe', 'menu', 'menubar', 'tablist',
  'toolbar', 'radiogroup', 'tree', 'grid', 'treegrid']);
// Roles whose name may come from their content (accname 1.2 + Chromium).
const NAME_FROM_CONTENT = new Set(['button', 'cell', 'checkbox', 'columnheader', 'gridcell', 'heading',
  'link', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'radio', 'row', 'rowheader',
  'switch', 'tab', 'tooltip', 'treeitem', 'DisclosureTriangle', 'caption', 'term', 'code', 'emphasis',
  'strong', 'deletion', 'insertion', 'subscript', 'superscript', 'time', 'listitem', 'definition']);
// Roles that do not count as an ancestor in a fingerprint.
const NOT_CONTEXT = new Set(['generic', 'none', 'presentation', 'paragraph', 'StaticText', 'LabelText',
  'strong', 'emphasis', 'code', 'subscript', 'superscript', 'time', 'LineBreak', '']);

const SECTIONING = new Set(['ARTICLE', 'ASIDE', 'MAIN', 'NAV', 'SECTION']);
const SECTIONING_ROLES = new Set(['article', 'complementary', 'main', 'navigation', 'region']);

function hasName (element) {
  return (element.getAttribute('aria-label') || '').trim() !== '' ||
         (element.getAttribute('aria-labelledby') || '').trim() !== '' ||
         (element.getAttribute('title') || '').trim() !== '';
}

// Inside article/aside/main/nav/section (or an element with such a role),
// a header or footer is no landmark.
function inSectioning (element) {
  for (let node = parentOf(element); node; node = parentOf(node)) {
    if (SECTIONING.has(node.tagName))
      return true;
    const role = node.getAttribute && node.getAttribute('role');
    if (role && SECTIONING_ROLES.has(role.trim().split(/\s+/)[0]))
      return true;
  }
  return false;
}

const INPUT_ROLES = {
  button: 'button', submit: 'button', reset: 'button', image: 'button', file: 'button',
  checkbox: 'checkbox', radio: 'radio', range: 'slider', number: 'spinbutton',
  search: 'searchbox', email: 'textbox', tel: 'textbox', text: 'textbox', url: 'textbox',
  password: 'textbox', color: 'ColorWell', date: 'Date', 'datetime-local': 'DateTime',
  month: 'DateTime', week: 'DateTime', time: 'InputTime', hidden: 'none',
};

function implicitRole (element) {
  switch (element.tagName) {
  case 'A': case 'AREA':
    return element.hasAttribute('href') ? 'link' : 'generic';
  case 'BUTTON': return 'button';
  case 'INPUT': {
    const type = (element.getAttribute('type') || 'text').toLowerCase();
    const role = INPUT_ROLES[type] || 'textbox';
    if (element.hasAttribute('list') && (role === 'textbox' || role === 'searchbox'))
      return 'combobox';
    return role;
  }
  case 'SELECT':
    return element.multiple || element.size > 1 ? 'listbox' : 'combobox';
  case 'OPTION': return 'option';
  case 'OPTGROUP': return 'group';
  case 'TEXTAREA': return 'textbox';
  case 'H1': case 'H2': case 'H3': case 'H4': case 'H5': case 'H6': return 'heading';
  case 'UL': case 'OL': case 'MENU': return 'list';
  case 'LI': return 'listitem';
  case 'DL': return 'list';
  case 'DT': return 'term';
  case 'DD': return 'definition';
  case 'TABLE': return 'table';
  case 'CAPTION': return 'caption';
  case 'THEAD': case 'TBODY': case 'TFOOT': return 'rowgroup';
  case 'TR': return 'row';
  case 'TD': return element.closest('table[role=grid],table[role=treegrid]') ? 'gridcell' : 'cell';
  case 'TH': {
    const scope = (element.getAttribute('scope') || '').toLowerCase();
    if (scope === 'row' || scope === 'rowgroup')
      return 'rowheader';
    if (scope === 'col' || scope === 'colgroup' || element.parentElement?.parentElement?.tagName === 'THEAD')
      return 'columnheader';
    // A th that heads its row (first of its row with tds after it).
    const row = element.parentElement;
    if (row && row.firstElementChild === element && row.querySelector('td') && !row.parentElement?.querySelector('tr:first-child th ~ th'))
      return 'rowheader';
    return 'columnheader';
  }
  case 'FIELDSET': return 'group';
  case 'LEGEND': return 'generic';
  case 'DETAILS': return 'group';
  case 'SUMMARY': return element.parentElement && element.parentElement.tagName === 'DETAILS' ? 'DisclosureTriangle' : 'generic';
  case 'DIALOG': return 'dialog';
  case 'OUTPUT': return 'status';
  case 'PROGRESS': return 'progressbar';
  case 'METER': return 'meter';
  case 'IMG':
    return element.getAttribute('alt') === '' && !hasName(element) ? 'none' : 'image';
  case 'SVG': case 'svg': return 'image';
  case 'FIGURE': return 'figure';
  case 'FORM': return 'form';
  case 'SEARCH': return 'search';
  case 'NAV': return 'navigation';
  case 'MAIN': return 'main';
  case 'ASIDE': return inSectioning(element) && !hasName(element) ? 'generic' : 'complementary';
  case 'HEADER': return inSectioning(element) ? 'generic' : 'banner';
  case 'FOOTER': return inSectioning(element) ? 'generic' : 'contentinfo';
  case 'SECTION': return hasName(element) ? 'region' : 'generic';
  case 'ARTICLE': return 'article';
  case 'HR': return 'separator';
  case 'P': return 'paragraph';
  case 'BLOCKQUOTE': return 'blockquote';
  case 'IFRAME': case 'FRAME': case 'WEBVIEW': return 'Iframe';
  case 'LABEL': return 'LabelText';
  case 'BR': return 'LineBreak';
  case 'CODE': return 'code';
  case 'EM': return 'emphasis';
  case 'STRONG': return 'strong';
  case 'TIME': return 'time';
  case 'MARK': return 'mark';
  }
  if (element.isContentEditable && element.getAttribute('contenteditable') !== null &&
      !(element.parentElement && element.parentElement.isContentEditable))
    return 'textbox';
  return 'generic';
}

function focusable (element) {
  return element.hasAttribute('tabindex') || FORM_TAGS.has(element.tagName) ||
         (element.tagName === 'A' && element.hasAttribute('href'));
}

function roleOf (element) {
  const explicit = element.getAttribute('role');
  if (explicit) {
    for (const token of explicit.trim().toLowerCase().split(/\s+/)) {
      if (ARIA_ROLES.has(token)) {
        if (token === 'img')
          return 'image';
        // none/presentation yield to focusable elements (the native role
        // stays, as in Chromium).
        if (token === 'none' || token === 'presentation')
          return focusable(element) ? implicitRole(element) : 'none';
        return token;
      }
    }
  }
  return implicitRole(element);
}

// --- composed tree helpers ---------------------------------------------------

function parentOf (node) {
  if (node.assignedSlot)
    return node.assignedSlot;
  const parent = node.parentNode;
  if (parent && parent.nodeType === 11)
    return parent.host || null;
  return parent && parent.nodeType === 1 ? parent : null;
}

// The children of a node in the flat tree (what is rendered).
function flatChildren (node) {
  if (node.nodeType === 1) {
    const shadow = S.shadowRootOf(node);
    if (shadow)
      return shadow.childNodes;
    if (node.tagName === 'SLOT') {
      const assigned = node.assignedNodes({ flatten: true });
      return assigned.length ? assigned : node.childNodes;
    }
  }
  return node.childNodes;
}

function deepActiveElement () {
  let active = document.activeElement;
  while (active) {
    const shadow = S.shadowRootOf(active);
    if (!shadow || !shadow.activeElement)
      break;
    active = shadow.activeElement;
  }
  return active;
}

// Whether an element's content counts in a name: not display:none,
// content-visibility:hidden or visibility:hidden (Chromium leaves those
// out). Options of a drop-down select have no box but count.
function rendered (element) {
  if (element.tagName === 'OPTION' || element.tagName === 'OPTGROUP')
    return true;
  if (element.checkVisibility({ visibilityProperty: true }))
    return true;
  // display:contents (slots, say) has no box of its own, yet its content
  // is rendered.
  return getComputedStyle(element).display === 'contents' && element.parentElement !== null &&
         (element.parentElement.checkVisibility({ visibilityProperty: true }) || rendered(element.parentElement));
}

// --- names -----------------------------------------------------------------

const collapse = (text) => text.replace(/[\s\u00a0]+/g, ' ').trim();

const BLOCK = new Set(['ADDRESS', 'ARTICLE', 'ASIDE', 'BLOCKQUOTE', 'BR', 'DD', 'DETAILS', 'DIALOG', 'DIV',
  'DL', 'DT', 'FIELDSET', 'FIGCAPTION', 'FIGURE', 'FOOTER', 'FORM', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6',
  'HEADER', 'HR', 'LI', 'MAIN', 'NAV', 'OL', 'P', 'PRE', 'SECTION', 'TABLE', 'TR', 'TD', 'TH', 'UL',
  'OPTION', 'SUMMARY', 'LEGEND', 'CAPTION']);

function byIds (element, attribute) {
  const ids = (element.getAttribute(attribute) || '').trim();
  if (!ids)
    return [];
  const root = element.getRootNode();
  const found = [];
  for (const id of ids.split(/\s+/)) {
    const target = root.getElementById ? root.getElementById(id) : document.getElementById(id);
    if (target)
      found.push(target);
  }
  return found;
}

// The value an embedded control contributes to a name (accname 2E).
function embeddedValue (element, role) {
  if (role === 'textbox' || role === 'searchbox')
    return element.value !== undefined ? element.value : element.textContent;
  if (role === 'combobox' || role === 'listbox') {
    if (element.tagName === 'SELECT') {
      const option = element.selectedOptions[0];
      return option ? option.label : '';
    }
    return element.value || '';
  }
  if (role === 'slider' || role === 'spinbutton' || role === 'progressbar' || role === 'meter')
    return element.getAttribute('aria-valuetext') || element.getAttribute('aria-valuenow') || element.value || '';
  return null;
}

// Text alternative of a node as part of another name (accname steps 2B-2G).
function textAlternative (node, state) {
  if (node.nodeType === 3)
    return node.data;
  if (node.nodeType !== 1)
    return '';
  const element = node;
  if (state.visited.has(element))
    return '';
  state.visited.add(element);
  if (element.tagName === 'SCRIPT' || element.tagName === 'STYLE' || element.tagName === 'TEMPLATE')
    return '';
  // A hidden node counts only when a labelledby names it directly, and
  // then its hidden descendants count too (accname 2A).
  const hidden = element.getAttribute('aria-hidden') === 'true' || !rendered(element);
  if (hidden && !state.referenced)
    return '';
  if (state.referenced && !hidden)
    state = { ...state, referenced: false };

  const role = roleOf(element);
  // 2B: labelledby, once.
  if (!state.inLabelledBy) {
    const labels = byIds(element, 'aria-labelledby');
    if (labels.length) {
      const sub = { visited: state.visited, inLabelledBy: true, referenced: true, root: state.root };
      const text = collapse(labels.map((label) => textAlternative(label, sub)).join(' '));
      if (text)
        return text;
    }
  }
  // 2E: an embedded control inside a label gives its value, except the
  // control being named.
  if (element !== state.root && (state.inLabelledBy || state.inContent)) {
    const value = embeddedValue(element, role);
    if (value !== null)
      return value;
  }
  // 2C
  const label = element.getAttribute('aria-label');
  if (label && label.trim())
    return label;
  // 2D: native text alternatives.
  const native = nativeName(element, role, state);
  if (native)
    return native;
  // 2F: content.
  if (state.inContent || state.inLabelledBy || NAME_FROM_CONTENT.has(role)) {
    const text = contentText(element, state);
    if (text.trim())
      return text;
  }
  // 2I
  return element.getAttribute('title') || '';
}

function contentText (element, state) {
  const sub = { visited: state.visited, inLabelledBy: state.inLabelledBy, inContent: true,
    referenced: state.referenced, root: state.root };
  let text = '';
  const before = pseudoContent(element, '::before');
  if (before)
    text += before;
  for (const child of flatChildren(element)) {
    if (child.nodeType === 1 && BLOCK.has(child.tagName))
      text += ' ' + textAlternative(child, sub) + ' ';
    else
      text += textAlternative(child, sub);
  }
  const after = pseudoContent(element, '::after');
  if (after)
    text += after;
  return text;
}

// CSS generated content (::before, ::after) counts in names. Reading it
// costs a style lookup per element, so it is read only when some style
// sheet of the document could make any (asked once per walk).
let pseudoKnown = null;

function pseudoStyled () {
  if (pseudoKnown !== null)
    return pseudoKnown;
  let found = false;
  const scan = (rules) => {
    for (const rule of rules) {
      if (found)
        return;
      if (rule.selectorText !== undefined) {
        const content = rule.style.content;
        // An empty string (a clearfix) names nothing.
        if (content && content !== 'none' && content !== 'normal' && content !== '""' && content !== "''" &&
            /:(before|after)/.test(rule.selectorText))
          found = true;
      } else if (rule.cssRules)
        scan(rule.cssRules);
    }
  };
  const sheets = [...document.styleSheets, ...(document.adoptedStyleSheets || [])];
  for (const sheet of sheets) {
    try {
      scan(sheet.cssRules);
    } catch (e) {
      found = true;   // another origin's sheet: it could
    }
    if (found)
      break;
  }
  // (Sheets inside shadow roots are not looked at.) Known until the next
  // walk starts.
  pseudoKnown = found;
  return found;
}
function pseudoContent (element, which) {
  if (!pseudoStyled())
    return '';
  const content = getComputedStyle(element, which).content;
  if (!content || content === 'none' || content === 'normal')
    return '';
  const match = /^"(.*)"$/.exec(content);
  return match ? match[1] : '';
}

// During a walk: each labelled control of the document -> its labels, made
// in one pass (element.labels builds a live list on each call).
let labelIndex = null;

function indexLabels () {
  const index = new Map();
  for (const label of document.getElementsByTagName('label')) {
    const control = label.control;
    if (!control)
      continue;
    const labels = index.get(control);
    if (labels)
      labels.push(label);
    else
      index.set(control, [label]);
  }
  return index;
}

function labelsText (element, state) {
  const labels = labelIndex && element.getRootNode() === document ? labelIndex.get(element) : element.labels;
  if (!labels || !labels.length)
    return '';
  const sub = { visited: state.visited, inContent: true, inLabelledBy: false, referenced: false, root: element };
  return collapse(Array.from(labels).map((label) => contentText(label, sub)).join(' '));
}

function nativeName (element, role, state) {
  const tag = element.tagName;
  if (tag === 'INPUT') {
    const type = (element.getAttribute('type') || 'text').toLowerCase();
    if (type === 'button' || type === 'submit' || type === 'reset') {
      const labelled = labelsText(element, state);
      if (labelled)
        return labelled;
      if (element.hasAttribute('value'))
        return element.getAttribute('value');
      return type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : '';
    }
    if (type === 'image')
      return element.getAttribute('alt') || element.getAttribute('value') || labelsText(element, state) || 'Submit';
    const labelled = labelsText(element, state);
    if (labelled)
      return labelled;
    if (element === state.root) {
      const title = element.getAttribute('title');
      if (title)
        return title;
      return element.getAttribute('placeholder') || element.getAttribute('aria-placeholder') || '';
    }
    return '';
  }
  if (tag === 'TEXTAREA' || tag === 'SELECT' || tag === 'METER' || tag === 'PROGRESS' || tag === 'OUTPUT' ||
      tag === 'BUTTON') {
    const labelled = labelsText(element, state);
    if (labelled)
      return labelled;
    if (tag === 'TEXTAREA' && element === state.root)
      return element.getAttribute('title') || element.getAttribute('placeholder') || '';
    return '';
  }
  if (tag === 'IMG' || tag === 'AREA')
    return element.getAttribute('alt') || '';
  if (tag === 'FIELDSET') {
    const legend = element.querySelector(':scope > legend');
    return legend ? contentText(legend, state) : '';
  }
  if (tag === 'TABLE') {
    const caption = element.querySelector(':scope > caption');
    return caption ? contentText(caption, state) : '';
  }
  if (tag === 'FIGURE') {
    const caption = element.querySelector(':scope > figcaption');
    return caption ? contentText(caption, state) : '';
  }
  if (tag === 'OPTION' || tag === 'OPTGROUP')
    return element.label || '';
  if (tag === 'svg' || tag === 'SVG') {
    const title = element.querySelector(':scope > title');
    return title ? title.textContent : '';
  }
  return '';
}

// Names and values are bounded: a link around a whole article or an
// editor's document would otherwise travel with every snapshot. Every
// name (walker, S.describe, fingerprints) is bounded the same way.
const MAX_NAME = 1000;
const MAX_VALUE = 4000;
const bound = (text, max) => (text.length > max ? text.slice(0, max) + '…' : text);

function nameOf (element, role) {
  return bound(computeName(element, role), MAX_NAME);
}

// The accessible name of an element, as Chromium computes it.
function computeName (element, role) {
  // Fast path, the common case: a leaf with text content.
  const label = element.getAttribute('aria-label');
  if (!element.hasAttribute('aria-labelledby')) {
    if (label && label.trim())
      return collapse(label);
    if (NAME_FROM_CONTENT.has(role) && element.childElementCount === 0 && element.tagName !== 'INPUT' && !pseudoStyled() &&
        element.tagName !== 'OPTION' && !S.shadowRootOf(element) && element.tagName !== 'SLOT') {
      const text = collapse(element.textContent);
      if (text)
        return text;
    }
  }
  if (role === 'none' || role === 'generic' || role === 'paragraph' || role === 'LineBreak')
    return '';
  const state = { visited: new Set(), root: element, inContent: false, inLabelledBy: false, referenced: false };
  const labels = byIds(element, 'aria-labelledby');
  if (labels.length) {
    const sub = { visited: state.visited, inLabelledBy: true, referenced: true, root: element };
    const text = collapse(labels.map((l) => l === element ? (label || '') : textAlternative(l, sub)).join(' '));
    if (text)
      return text;
  }
  if (label && label.trim())
    return collapse(label);
  state.visited.add(element);
  const native = nativeName(element, role, state);
  if (native && collapse(native))
    return collapse(native);
  if (NAME_FROM_CONTENT.has(role)) {
    const text = collapse(contentText(element, state));
    if (text)
      return text;
  }
  const title = element.getAttribute('title');
  if (title && title.trim())
    return collapse(title);
  if (role === 'textbox' || role === 'searchbox' || role === 'combobox')
    return collapse(element.getAttribute('placeholder') || element.getAttribute('aria-placeholder') || '');
  return '';
}

function descriptionOf (element, name) {
  const described = byIds(element, 'aria-describedby');
  if (described.length) {
    const state = { visited: new Set(), inLabelledBy: true, referenced: true, root: element };
    return collapse(described.map((d) => textAlternative(d, state)).join(' '));
  }
  const description = element.getAttribute('aria-description');
  if (description)
    return collapse(description);
  const title = element.getAttribute('title');
  if (title && collapse(title) !== name)
    return collapse(title);
  return '';
}

// --- states ----------------------------------------------------------------

// Flag bits of a walker entry (the C side reads the same numbers,
// stw-snapshot-private.h).
const F = {
  HIDDEN: 1, DISABLED: 2, FOCUSED: 4, BUSY: 8, SHADOW_CLOSED: 16, READONLY: 32, REQUIRED: 64,
  INVALID: 128, CHECKABLE: 256, CHECKED: 512, MIXED: 1024, EXPANDABLE: 2048, EXPANDED: 4096,
  SELECTABLE: 8192, SELECTED: 16384, PRESSABLE: 32768, PRESSED: 65536, REFFED: 131072,
  INTERACTIVE: 262144, FRAME: 524288, EDITABLE: 1048576, IN_SELECT: 2097152, HAS_VALUE: 4194304,
};
S.FLAGS = F;

const CHECKABLE_ROLES = new Set(['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio']);
const SELECTABLE_ROLES = new Set(['option', 'tab', 'row', 'gridcell', 'treeitem', 'columnheader', 'rowheader']);
const TEXT_ROLES = new Set(['textbox', 'searchbox', 'combobox', 'spinbutton']);
const FORM_TAGS = new Set(['INPUT', 'SELECT', 'TEXTAREA', 'BUTTON']);
const DISABLEABLE = new Set(['BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'OPTION', 'OPTGROUP', 'FIELDSET']);

// Selectors older Chromiums do not know (:open, :user-invalid) match
// nothing there instead of failing the walk.
function matchesSafely (element, selector) {
  try {
    return element.matches(selector);
  } catch (e) {
    return false;
  }
}

// Chromium reports a text field invalid once the user has interacted
// with it (:user-invalid), not from the first paint.
function userInvalid (element) {
  return matchesSafely(element, ':user-invalid');
}

function ariaDisabledAncestor (element) {
  for (let node = element; node; node = parentOf(node))
    if (node.getAttribute && node.getAttribute('aria-disabled') === 'true')
      return true;
  return false;
}

function isVisible (element) {
  if (element.tagName === 'OPTION' || element.tagName === 'OPTGROUP') {
    const select = element.closest('select');
    return select ? isVisible(select) : false;
  }
  if (!element.checkVisibility({ visibilityProperty: true }))
    return false;
  const box = element.getBoundingClientRect();
  return box.width > 0 && box.height > 0;
}

// The flags of an element; ctx carries what ancestors decide during a walk
// (aria-disabled), absent for a single element.
function flagsOf (element, role, ctx, active) {
  let flags = 0;
  const tag = element.tagName;
  const disabled = (DISABLEABLE.has(tag) && element.matches(':disabled')) ||
    (ctx ? ctx.ariaDisabled || element.getAttribute('aria-disabled') === 'true' : ariaDisabledAncestor(element));
  if (disabled)
    flags |= F.DISABLED;
  if (element === active)
    flags |= F.FOCUSED;
  if (element.getAttribute('aria-busy') === 'true')
    flags |= F.BUSY;

  if (CHECKABLE_ROLES.has(role)) {
    flags |= F.CHECKABLE;
    const aria = element.getAttribute('aria-checked');
    if (tag === 'INPUT' && (element.type === 'checkbox' || element.type === 'radio') && aria === null) {
      if (element.indeterminate && element.type === 'checkbox')
        flags |= F.MIXED;
      else if (element.checked)
        flags |= F.CHECKED;
    } else if (aria === 'mixed' && role !== 'radio' && role !== 'switch' && role !== 'menuitemradio')
      flags |= F.MIXED;
    else if (aria === 'true')
      flags |= F.CHECKED;
  }
  if (role === 'option' && tag === 'OPTION') {
    flags |= F.SELECTABLE;
    if (element.selected)
      flags |= F.SELECTED;
  } else if (SELECTABLE_ROLES.has(role)) {
    const aria = element.getAttribute('aria-selected');
    if (aria !== null || role === 'option' || role === 'tab' || role === 'treeitem') {
      flags |= F.SELECTABLE;
      if (aria === 'true')
        flags |= F.SELECTED;
    }
  }

  const expanded = element.getAttribute('aria-expanded');
  if (expanded === 'true' || expanded === 'false') {
    flags |= F.EXPANDABLE;
    if (expanded === 'true')
      flags |= F.EXPANDED;
  } else if (role === 'DisclosureTriangle') {
    flags |= F.EXPANDABLE;
    if (element.parentElement.open)
      flags |= F.EXPANDED;
  } else if (role === 'combobox' && tag === 'SELECT') {
    flags |= F.EXPANDABLE;
    if (matchesSafely(element, ':open'))
      flags |= F.EXPANDED;
  }

  const pressed = element.getAttribute('aria-pressed');
  if (pressed !== null && role === 'button' && (pressed === 'true' || pressed === 'false' || pressed === 'mixed')) {
    flags |= F.PRESSABLE;
    if (pressed !== 'false')
      flags |= F.PRESSED;
  }

  if (TEXT_ROLES.has(role) || role === 'checkbox' || role === 'radio' || role === 'listbox' || role === 'grid' ||
      role === 'slider' || role === 'switch' || role === 'gridcell' || role === 'radiogroup') {
    const aria = element.getAttribute('aria-readonly');
    if (aria === 'true' || (tag === 'INPUT' || tag === 'TEXTAREA') && element.readOnly && TEXT_ROLES.has(role))
      flags |= F.READONLY;
    // Chromium says required for fields and lists, not for checkables.
    if ((element.required || element.getAttribute('aria-required') === 'true') && !CHECKABLE_ROLES.has(role) &&
        role !== 'slider')
      flags |= F.REQUIRED;
  }
  const invalid = element.getAttribute('aria-invalid');
  if (invalid !== null && invalid !== 'false' && invalid !== '')
    flags |= F.INVALID;
  else if (invalid === null && FORM_TAGS.has(tag) && (TEXT_ROLES.has(role) ? userInvalid(element)
    : element.willValidate && !element.validity.valid))
    flags |= F.INVALID;
  if (element.isContentEditable || TEXT_ROLES.has(role) && !(flags & (F.READONLY | F.DISABLED)))
    flags |= F.EDITABLE;

  if (INTERACTIVE.has(role))
    flags |= F.INTERACTIVE | F.REFFED;
  else if (READABLE.has(role))
    flags |= F.REFFED;
  return flags;
}

function valueOf (element, role, flags) {
  const tag = element.tagName;
  if (tag === 'INPUT') {
    if (role === 'checkbox' || role === 'radio' || role === 'button')
      return null;
    if (element.type === 'password')
      return '•'.repeat(element.value.length);
    return element.value;
  }
  if (tag === 'TEXTAREA')
    return element.value;
  if (tag === 'SELECT') {
    const labels = Array.from(element.selectedOptions, (o) => o.label);
    return labels.join(', ');
  }
  if (tag === 'OPTION')
    return element.value !== element.label ? element.value : null;
  if (tag === 'PROGRESS' || tag === 'METER')
    return element.hasAttribute('value') || tag === 'METER' ? String(element.value) : null;
  if (role === 'slider' || role === 'spinbutton' || role === 'progressbar' || role === 'meter' || role === 'scrollbar')
    return element.getAttribute('aria-valuetext') || element.getAttribute('aria-valuenow');
  if (flags & F.EDITABLE && element.isContentEditable)
    return element.textContent;
  if (role === 'textbox' || role === 'combobox' || role === 'searchbox')
    return element.getAttribute('aria-valuetext') || element.textContent;
  // What a live region says, so agents can read it without another call.
  if (LIVE.has(role))
    return collapse(element.textContent);
  return null;
}
const LIVE = new Set(['status', 'alert', 'log', 'timer', 'marquee']);

// The roles of the nearest three ancestors that count.
function contextOf (element) {
  const roles = [];
  for (let node = parentOf(element); node && roles.length < 3; node = parentOf(node)) {
    const role = roleOf(node);
    if (!NOT_CONTEXT.has(role))
      roles.push(role);
  }
  return roles.reverse().join('>');
}

// --- what the other rooms use -------------------------------------------

S.roleOf = roleOf;
S.nameOf = (element) => nameOf(element, roleOf(element));

S.describe = function describe (element) {
  const role = roleOf(element);
  const name = nameOf(element, role);
  return { role, name, fp: role + '|' + name + '|' + contextOf(element) };
};

// The twelve state flags of electron_get_state.
S.states = function states (element) {
  const role = roleOf(element);
  const flags = flagsOf(element, role, null, deepActiveElement());
  const visible = isVisible(element);
  return {
    visible,
    enabled: !(flags & F.DISABLED),
    disabled: !!(flags & F.DISABLED),
    checked: flags & F.CHECKABLE ? (flags & F.MIXED ? 'mixed' : !!(flags & F.CHECKED)) : null,
    selected: flags & F.SELECTABLE ? !!(flags & F.SELECTED) : null,
    expanded: flags & F.EXPANDABLE ? !!(flags & F.EXPANDED) : null,
    pressed: flags & F.PRESSABLE ? !!(flags & F.PRESSED) : null,
    focused: !!(flags & F.FOCUSED),
    readonly: !!(flags & F.READONLY),
    required: !!(flags & F.REQUIRED),
    invalid: !!(flags & F.INVALID),
    busy: !!(flags & F.BUSY),
  };
};

// Live elements with that fingerprint, in document order.
S.findByFingerprint = function findByFingerprint (fp) {
  const bar = fp.indexOf('|');
  const role = fp.slice(0, bar);
  const found = [];
  S.forEachElement(document, (element) => {
    if (roleOf(element) === role && S.describe(element).fp === fp)
      found.push(element);
  });
  return found;
};

// --- the walker ----------------------------------------------------------

// Which entries a snapshot lists (everything else only shapes context).
function listed (role, element) {
  if (INTERACTIVE.has(role) || READABLE.has(role) || role === 'Iframe')
    return true;
  if (LANDMARKS.has(role))
    return role !== 'image' || element.getAttribute('alt') !== '' || hasName(element);
  return false;
}

// Closed shadow roots the library found (through the DOM domain) come in
// here; until there is one, the walker does not look them up.
let closedCount = 0;
S.addClosedRoot = function addClosedRoot (host, root) {
  if (!S.closedRoots.has(host))
    closedCount++;
  S.closedRoots.set(host, root);
};

// Hosts already asked about closed shadow roots (by the library, through
// the DOM domain).
const checkedHosts = new WeakSet();
const SHADOW_CAPABLE = new Set(['ARTICLE', 'ASIDE', 'BLOCKQUOTE', 'BODY', 'DIV', 'FOOTER', 'H1', 'H2', 'H3',
  'H4', 'H5', 'H6', 'HEADER', 'MAIN', 'NAV', 'P', 'SECTION', 'SPAN']);

function maybeClosedHost (element, tag) {
  const custom = tag.includes('-');
  if (!custom && (element.firstChild || !SHADOW_CAPABLE.has(tag)))
    return false;
  if (checkedHosts.has(element))
    return false;
  checkedHosts.add(element);
  if (custom)
    return true;
  const box = element.getBoundingClientRect();
  return box.width > 0 && box.height > 0;
}

// An entry as one line of tab-separated fields:
//   key flags role name value context x y w h level description placeholder tag
// where context indexes `contexts` (ancestor roles, for fingerprints); a
// value is there when flags has HAS_VALUE. Tabs, newlines and backslashes in
// text are escaped with a backslash (t, n, itself). The library reads these lines
// (stw-snapshot.c): one string is much cheaper to send and to parse than
// 1,000 small arrays.
const NEEDS_ESCAPE = /[\t\n\\]/;
const escapeField = (text) => (NEEDS_ESCAPE.test(text)
  ? text.replace(/[\t\n\\]/g, (c) => (c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\\\'))
  : text);

function row (element, flags, role, name, value, context, box, level, description, placeholder) {
  if (value !== null && value !== undefined)
    flags |= F.HAS_VALUE;
  return S.keyOf(element) + '\t' + flags + '\t' + role + '\t' + escapeField(name) + '\t' +
    (value === null || value === undefined ? '' : escapeField(bound(String(value), MAX_VALUE))) + '\t' + context + '\t' +
    Math.round(box.x) + '\t' + Math.round(box.y) + '\t' + Math.round(box.width) + '\t' + Math.round(box.height) + '\t' +
    level + '\t' + escapeField(bound(description, MAX_VALUE)) + '\t' + escapeField(bound(placeholder, MAX_VALUE)) + '\t' +
    element.localName;
}

function walk (root, options) {
  const entries = [];
  const contexts = [];
  const contextIndex = new Map();
  const hosts = [];
  const active = deepActiveElement();
  const max = options.max || 100000;
  let lastSelect = null;
  let lastSelectBox = null;

  // Consecutive entries mostly share their ancestors: the context is
  // joined once per stack state, not once per entry.
  let lastStack = null, lastLength = -1, lastTop = null, lastId = 0;
  const contextId = (stack) => {
    const top = stack[stack.length - 1];
    if (stack === lastStack && stack.length === lastLength && top === lastTop && stackVersion === lastVersion)
      return lastId;
    const text = stack.slice(-3).join('>');
    let id = contextIndex.get(text);
    if (id === undefined) {
      id = contexts.length;
      contexts.push(text);
      contextIndex.set(text, id);
    }
    lastStack = stack;
    lastLength = stack.length;
    lastTop = top;
    lastVersion = stackVersion;
    lastId = id;
    return id;
  };
  let stackVersion = 0, lastVersion = -1;

  // Deeper than this (the HTML parser stops at 512) the walk goes no
  // further: a script can nest elements deeper than the stack goes.
  const MAX_DEPTH = 1000;
  let depth = 0, tooDeep = false;
  const visit = (element, stack, ctx) => {
    if (entries.length >= max)
      return;
    if (depth >= MAX_DEPTH) {
      tooDeep = true;
      return;
    }
    depth++;
    try {
      visitElement(element, stack, ctx);
    } finally {
      depth--;
    }
  };
  const visitElement = (element, stack, ctx) => {
    const tag = element.tagName;
    if (tag === 'SCRIPT' || tag === 'STYLE' || tag === 'TEMPLATE' || tag === 'HEAD' || tag === 'NOSCRIPT')
      return;
    // Most elements have no attributes at all: no need to ask for three.
    const attributed = element.hasAttributes();
    if (attributed && element.getAttribute('aria-hidden') === 'true')
      return;
    const role = attributed ? roleOf(element) : implicitRole(element);
    let pushed = false;
    const childCtx = attributed && !ctx.ariaDisabled && element.getAttribute('aria-disabled') === 'true'
      ? { ariaDisabled: true, closed: ctx.closed } : ctx;

    if (listed(role, element)) {
      // Not rendered (display:none, here or above): neither it nor
      // anything under it is in the tree. Visible but for visibility:hidden:
      // listed as hidden. One call in the common case.
      // A select's options have no box of their own; a datalist's are not
      // shown at all (the datalist is display:none).
      const select = tag === 'OPTION' ? element.closest('select') : null;
      let shown = true;
      if (!select && !element.checkVisibility({ visibilityProperty: true })) {
        if (!element.checkVisibility())
          return;
        shown = false;
      }
      const name = nameOf(element, role);
      let flags = flagsOf(element, role, childCtx, active);
      if (ctx.closed)
        flags |= F.SHADOW_CLOSED;
      let box;
      if (tag === 'OPTION') {
        if (select) {
          flags |= F.IN_SELECT;
          if (select !== lastSelect) {
            lastSelect = select;
            lastSelectBox = select.getBoundingClientRect();
          }
          box = lastSelectBox;
        } else
          box = element.getBoundingClientRect();
      } else
        box = element.getBoundingClientRect();
      if (!shown || !(box.width > 0 && box.height > 0))
        flags |= F.HIDDEN;
      let level = 0, placeholder = '', description = '';
      if (role === 'heading') {
        level = parseInt(element.getAttribute('aria-level') || tag.slice(1), 10);
        if (!(level > 0))
          level = 2;
      }
      if (role === 'textbox' || role === 'searchbox' || role === 'combobox') {
        placeholder = element.getAttribute('placeholder') || '';
        if (placeholder === name)
          placeholder = '';
      }
      if (element.hasAttribute('aria-describedby') || element.hasAttribute('title') || element.hasAttribute('aria-description'))
        description = descriptionOf(element, name);
      if (role === 'Iframe')
        flags |= F.FRAME;
      entries.push(row(element, flags, role, name, valueOf(element, role, flags), contextId(stack), box,
        level, description, placeholder));
    }
    if (!NOT_CONTEXT.has(role)) {
      stack.push(role);
      stackVersion++;
      pushed = true;
    }
    if (tag === 'IFRAME' || tag === 'FRAME' || tag === 'WEBVIEW') {
      if (pushed) {
        stack.pop();
        stackVersion++;
      }
      return;
    }
    let shadow = element.shadowRoot;
    let closed = false;
    if (!shadow) {
      shadow = closedCount > 0 ? S.closedRoots.get(element) || null : null;
      closed = !!shadow;
      if (!shadow && maybeClosedHost(element, tag))
        hosts.push(S.keyOf(element));
    }
    if (shadow) {
      const shadowCtx = closed && !childCtx.closed ? { ariaDisabled: childCtx.ariaDisabled, closed: true } : childCtx;
      for (let child = shadow.firstElementChild; child; child = child.nextElementSibling)
        visit(child, stack, shadowCtx);
      // Light children render only where slotted; slotted ones are
      // reached through their slot below.
    } else if (tag === 'SLOT') {
      const assigned = element.assignedElements({ flatten: true });
      const children = assigned.length ? assigned : Array.from(element.children);
      for (const child of children)
        visit(child, stack, childCtx);
    } else {
      for (let child = element.firstElementChild; child; child = child.nextElementSibling)
        visit(child, stack, childCtx);
    }
    if (pushed) {
      stack.pop();
      stackVersion++;
    }
  };

  const stack = [];
  labelIndex = indexLabels();
  pseudoKnown = null;
  if (root !== document.documentElement) {
    // A subtree: its ancestors still shape fingerprints.
    const roles = contextOf(root);
    if (roles)
      stack.push(...roles.split('>'));
  }
  try {
    visit(root, stack, { ariaDisabled: root === document.documentElement ? false : ariaDisabledAncestor(parentOf(root) || root), closed: false });
  } finally {
    labelIndex = null;
  }
  return { rows: entries.join('\n'), count: entries.length, contexts, hosts, full: entries.length < max && !tooDeep };
}

// Which of the keys the library's refs name are no longer in the document.
function goneKeys (known) {
  return Array.isArray(known) ? known.filter((key) => S.element(key) === null) : [];
}

function snapshotOf (root, args) {
  const result = walk(root, { max: args.max });
  result.url = location.href;
  result.title = document.title;
  result.viewport = [window.innerWidth, window.innerHeight];
  result.origin = Math.round(performance.timeOrigin);
  result.gone = goneKeys(args.known);
  return result;
}

S.ops.snapshot = (args) => snapshotOf(document.documentElement, args);
// The subtree of one element (a ref or a selector, resolved by core.js).
S.elementOp('snapshotAt', (args, element) => snapshotOf(element, args));

// Describes the elements matching a CSS selector (document and shadow
// roots), as walker entries.
S.ops.list = function list (args) {
  const elements = S.querySelectorAll(args.selector);
  const total = elements.length;
  const limit = args.limit > 0 ? args.limit : total;
  const entries = [];
  const contexts = [];
  const active = deepActiveElement();
  for (const element of elements.slice(0, limit)) {
    const role = roleOf(element);
    const name = nameOf(element, role);
    let flags = flagsOf(element, role, null, active);
    if (!isVisible(element))
      flags |= F.HIDDEN;
    const box = element.getBoundingClientRect();
    contexts.push(contextOf(element));
    entries.push(row(element, flags, role, name, valueOf(element, role, flags), contexts.length - 1, box,
      0, '', ''));
  }
  return { rows: entries.join('\n'), count: entries.length, contexts, total, gone: goneKeys(args.known) };
};
})();
