// a11y-page.js: the a11y plugin's page-side half (docs/reference/plugin-a11y.md).
//
// One function expression, evaluated right after axe-core's source in a
// frame's isolated world (stw_surface_call_isolated_async: the DOM, none of
// the page's globals) and called with the core's module and axe. It keeps
// axe where the page cannot reach or shadow it (a named element `axe`
// shows through globalThis in every world), turns off axe's cross-frame
// postMessage protocol (the page could see and forge it), and adds two
// calls the plugin makes afterwards:
//
//   S.a11yPlugin.run (scopeKey, scopeWorld, frameContext, request)
//     axe.runPartial in this frame alone; answers the partial result as a
//     string (bounded), the frames axe wants audited in the order
//     axe.finishRun expects them (each as the key of its element, so the
//     plugin finds its surface), and a handle per offending element.
//   S.a11yPlugin.finish (partials, handles, options, limits)
//     axe.finishRun over every frame's partial result (depth first, null
//     for a frame that could not be audited), as @axe-core/playwright does;
//     answers the violations, bounded, each node with its frame's index and
//     handle so the plugin can give it a ref.
//
// Failures come back as values ({error: {code, message}}), not exceptions.
//
// SPDX-License-Identifier: LGPL-2.1-or-later
(function (S, axe) {
  'use strict';

  if (!S || !axe || typeof axe.runPartial !== 'function' || typeof axe.finishRun !== 'function')
    return { error: { code: 'ENGINE_FAILED', message: 'The engine did not define axe.runPartial and axe.finishRun' } };
  axe.configure({ allowedOrigins: [] });

  const failure = (code, e) =>
    ({ error: { code, message: String((e && e.message) || e).split('\n')[0].slice(0, 300) } });

  // A selector path as one string: shadow-DOM steps of a frame joined.
  const key = (selector) => JSON.stringify(selector);

  // Whether a node's checks failed or could not tell (axe's aggregation:
  // every `all` and no `none` check must pass, and one `any` check).
  function unsure (node) {
    const any = node.any || [];
    return (node.all || []).some((c) => c.result !== true) ||
      (node.none || []).some((c) => c.result !== false) ||
      (any.length > 0 && !any.some((c) => c.result === true));
  }

  function options (request) {
    const all = axe.getRules().map((r) => r.ruleId);
    const opts = { resultTypes: ['violations', 'incomplete'] };
    const rules = Array.isArray(request.rules) && request.rules.length ? request.rules : null;
    const tags = Array.isArray(request.tags) && request.tags.length ? request.tags : null;
    const unknown = (rules || []).filter((r) => !all.includes(r));
    if (unknown.length)
      return { error: { code: 'BAD_ARGUMENT', message: `Unknown axe rules: ${unknown.join(', ')}` } };
    if (tags && axe.getRules(tags).length === 0)
      return { error: { code: 'BAD_ARGUMENT', message: `No axe rule has the tags ${tags.join(', ')}` } };
    if (rules && tags) {
      const tagged = axe.getRules(tags).map((r) => r.ruleId);
      opts.runOnly = { type: 'rule', values: rules.filter((r) => tagged.includes(r)) };
      if (opts.runOnly.values.length === 0)
        return { error: { code: 'BAD_ARGUMENT', message: 'None of the rules has one of the tags' } };
    } else if (rules) {
      opts.runOnly = { type: 'rule', values: rules };
    } else if (tags) {
      opts.runOnly = { type: 'tag', values: tags };
    }
    return { options: opts };
  }

  async function run (scopeKey, scopeWorld, frameContext, request, maxBytes) {
    let context = frameContext || document;
    let opts = request.options;
    if (!opts) {
      const made = options(request);
      if (made.error)
        return made;
      opts = made.options;
    }
    if (scopeKey > 0) {
      const scope = scopeWorld === S.world ? S.element(scopeKey) : null;
      if (!scope)
        return { error: { code: 'SCOPE_NOT_FOUND', message: 'The scope element is gone' } };
      context = { include: [scope] };
    }
    try {
      const frames = axe.utils.getFrameContexts(context, opts);
      const frameKeys = frames.map((f) => {
        const element = axe.utils.shadowSelect(f.frameSelector);
        return element ? S.keyOf(element) : 0;
      });
      const partial = await axe.runPartial(context, opts);
      const text = JSON.stringify(partial);
      if (text.length > maxBytes)
        return { error: { code: 'TOO_LARGE', message: `The frame's partial result is ${text.length} bytes` } };
      // A handle for every element that failed or needs review here (not
      // for the many that passed: describing each would cost the page).
      const handles = {};
      for (const rule of partial.results || []) {
        for (const node of rule.nodes || []) {
          const spec = node.node;
          if (!spec || spec.fromFrame || !unsure(node) || handles[key(spec.selector)] !== undefined)
            continue;
          let element = null;
          try {
            element = axe.utils.shadowSelect(spec.selector[0]);
          } catch (e) {
            element = null;
          }
          handles[key(spec.selector)] = element ? S.handleOf(element) : null;
        }
      }
      return {
        world: S.world,
        version: axe.version,
        options: opts,
        partial: text,
        frameKeys,
        frameContexts: frames.map((f) => f.frameContext),
        handles,
      };
    } catch (e) {
      return failure('ENGINE_FAILED', e);
    }
  }

  async function finish (partials, handles, opts, limits) {
    const parsed = partials.map((p) => (p === null ? null : JSON.parse(p)));
    // The frame each partial's nodes came from, by their full target: the
    // frame selectors axe.finishRun puts before a node's own, replayed the
    // way it does (depth first, each frame's children where it was).
    const nodeFrames = new Map();
    const stack = [];
    parsed.forEach((partial, index) => {
      const prefix = stack.shift();
      if (!partial)
        return;
      const own = prefix || [];
      for (const selector of Object.keys(handles[index] || {}))
        nodeFrames.set(key(own.concat(JSON.parse(selector))), { frame: index, handle: handles[index][selector] });
      stack.unshift(...(partial.frames || []).map((f) => own.concat(f.selector)));
    });
    let report;
    try {
      report = await axe.finishRun(parsed, opts);
    } catch (e) {
      return failure('ENGINE_FAILED', e);
    }
    const cut = (s, n) => (typeof s === 'string' && s.length > n ? `${s.slice(0, n)}…` : s || '');
    const violations = (report.violations || []).slice(0, limits.maxRules).map((v) => ({
      id: cut(v.id, 100),
      impact: v.impact || '',
      description: cut(v.description, 500),
      help: cut(v.help, 500),
      helpUrl: cut(v.helpUrl, 500),
      tags: (v.tags || []).slice(0, 32).map((t) => cut(t, 64)),
      nodeCount: (v.nodes || []).length,
      nodes: (v.nodes || []).slice(0, limits.maxNodes).map((n) => {
        const found = nodeFrames.get(key(n.target)) || null;
        return {
          target: (n.target || []).map((t) => (Array.isArray(t) ? t.map((s) => cut(s, 500)).join(' >>> ') : cut(t, 500))),
          html: cut(n.html, limits.maxHtml),
          failureSummary: cut(n.failureSummary, 1000),
          impact: n.impact || '',
          frame: found ? found.frame : -1,
          handle: found ? found.handle : null,
        };
      }),
    }));
    return {
      version: axe.version,
      violations,
      violationCount: (report.violations || []).length,
      incomplete: (report.incomplete || []).length,
      passes: (report.passes || []).length,
      inapplicable: (report.inapplicable || []).length,
    };
  }

  S.a11yPlugin = { axe, run, finish };
  return { version: axe.version };
})
