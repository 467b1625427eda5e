#!/usr/bin/python3
# test-layering.py: the rooms of the tree stay apart (docs/architecture.md).
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Prints TAP. Each check reads the sources, so a change that breaks a rule
# fails here before review has to notice it.

import os
import re
import sys

TOP = os.path.abspath(os.environ.get('STW_TOP_SRCDIR') or
                      os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
INCLUDE = re.compile(r'^\s*#\s*include\s+[<"]([^>"]+)[>"]', re.M)


def sources(directory, suffixes=('.c', '.h')):
    root = os.path.join(TOP, directory)
    for name in sorted(os.listdir(root)):
        if name.endswith(suffixes) and not name.startswith(('stw-enum-types', 'stw-resources')):
            with open(os.path.join(root, name), encoding='utf-8') as source:
                yield '%s/%s' % (directory, name), source.read()


def tree_sources(directory, suffixes=('.c', '.h')):
    """sources() of @directory and every directory below it, generated
    resource sources left out."""
    for root, dirs, files in os.walk(os.path.join(TOP, directory)):
        dirs[:] = sorted(d for d in dirs if not d.startswith('.'))
        relative = os.path.relpath(root, TOP)
        for name in sorted(files):
            if name.endswith(suffixes) and not name.endswith(('-resources.c', 'stw-enum-types.c', 'stw-enum-types.h')):
                with open(os.path.join(root, name), encoding='utf-8') as source:
                    yield '%s/%s' % (relative, name), source.read()


def includes(text):
    return INCLUDE.findall(text)


# tools/ uses the library as a plugin would, through its public API; what
# the core tools need beyond it (building them from their tables with the
# schemas deferred) is the library's own, in stagewright/stw-tool-spec.c.
def tools_include_no_private_header():
    bad = ['%s: %s' % (path, header) for path, text in sources('tools')
           for header in includes(text)
           if header.endswith('-private.h')]
    return bad


def the_core_includes_nothing_from_tools():
    tool_headers = {name for name, _ in ((p.split('/')[1], t) for p, t in sources('tools', ('.h',)))}
    bad = []
    for directory in ('stagewright', 'transports'):
        for path, text in sources(directory):
            if path.endswith(('/main.c', '/stagewright.h')):
                continue  # the program and the umbrella header sit on top of everything
            bad += ['%s: %s' % (path, h) for h in includes(text)
                    if os.path.basename(h) in tool_headers or h.startswith('tools/')]
    return bad


def transports_include_nothing_above_them():
    upper = ('stw-session', 'stw-surface', 'stw-dispatcher', 'stw-mcp', 'stw-tool', 'stw-invocation')
    return ['%s: %s' % (path, h) for path, text in sources('transports')
            for h in includes(text) if os.path.basename(h).startswith(upper)]


def one_blocking_loop():
    bad = []
    for directory in ('stagewright', 'transports', 'tools'):
        for path, text in sources(directory):
            if path != 'stagewright/stw-sync.c' and re.search(r'\bg_main_context_iteration\b|\bg_main_loop_run\b', text):
                if path != 'stagewright/main.c':
                    bad.append(path)
    return bad


# The public methods of StwSession, StwSurface and StwSessionManager that
# still answer JSON, each with why. Results whose shape is fixed are typed
# (StwElementRef, StwElementState, StwBox, StwActionResult, StwSnapshot,
# StwAppInfo, StwWindowState, StwConsoleLog, StwDialogLog, …); a new JSON
# result must be added here with its reason, and the list may only shrink
# (issue 18: at most 16).
JSON_RESULTS = {
    # Open by nature: what evaluated code returned.
    'stw_session_evaluate_main_finish': 'an evaluation result',
    'stw_session_evaluate_renderer_finish': 'an evaluation result',
    'stw_session_run_main_finish': 'an evaluation result',
    'stw_session_run_main_sync': 'an evaluation result',
    'stw_session_run_renderer_finish': 'an evaluation result',
    'stw_session_run_renderer_sync': 'an evaluation result',
    'stw_surface_wait_for_event_finish': 'the event\'s own payload',
    'stw_surface_wait_for_event_sync': 'the event\'s own payload',
    'stw_surface_get_computed_style_finish': 'a map of CSS properties the caller named',
    'stw_surface_get_computed_style_sync': 'a map of CSS properties the caller named',
    'stw_surface_fill_form_finish': 'answers the JSON form it takes',
    'stw_surface_fill_form_sync': 'answers the JSON form it takes',
    'stw_surface_run_finish': 'an evaluation result',
    'stw_surface_run_sync': 'an evaluation result',
}
JSON_RESULTS_MAX = 16
# Raw DevTools access for plugins (stw-cdp.h, issue 17 item 6): the
# protocol's own objects, JSON by nature, listed apart and not counted.
RAW_JSON_RESULTS = {
    'stw_surface_send_cdp_finish': 'a CDP command\'s result object',
    'stw_surface_call_isolated_finish': 'what the plugin\'s function returned',
    'stw_surface_resolve_element_finish': 'the page-side module\'s handle of an element',
}
JSON_RETURN = re.compile(r'^(?:const\s+)?(?:JsonObject|JsonNode|JsonArray)\s*\*\s*(stw_\w+)\s*\(', re.M)
SESSION_CORE = re.compile(r'^stw_(?:session_manager|session|surface)_')

# Every other public function of stagewright/*.h that answers JSON, each with
# why. A typed result's wire form is not among them: the tools get it from
# the type's JSON serialization (json_boxed_serialize()), or build it from
# the getters.
OTHER_JSON_RESULTS = {
    # The MCP wire itself: envelopes, a call's arguments and answers.
    'stw_envelope_new_success': 'an MCP envelope, the wire',
    'stw_envelope_new_error': 'an MCP envelope, the wire',
    'stw_error_get_details': 'a refusal\'s open details, as the envelope carries them',
    'stw_error_get_similar_refs': 'a refusal\'s suggestions, as the envelope carries them',
    'stw_invocation_get_arguments': 'a tool call\'s arguments, as the client sent them',
    'stw_invocation_get_envelope': 'a tool call\'s answer, as the client gets it',
    'stw_dispatcher_invoke_finish': 'the dispatcher\'s call_json: an MCP answer',
    'stw_dispatcher_call_sync': 'the dispatcher\'s call_json: an MCP answer',
    'stw_dispatcher_get_last_error': 'the last MCP error envelope',
    'stw_tool_to_manifest': 'a tools/list entry, the wire',
    'stw_tool_to_manifest_for_profile': 'a tools/list entry, the wire',
    'stw_tool_provider_get_error_codes': 'a provider\'s error code table, as the registry lists it',
    'stw_schema_get_node': 'a JSON Schema',
    'stw_schema_apply_defaults': 'arguments with a JSON Schema\'s defaults',
    # Plugin options and configuration: open by nature.
    'stw_launch_options_get_plugin_options': 'plugin options',
    'stw_plugin_get_config': 'plugin configuration',
    'stw_plugin_dup_effective_config': 'plugin configuration',
    'stw_plugin_completion_get_config': 'plugin configuration',
    'stw_plugin_completion_get_launch_options': 'plugin options',
    # The snapshot's entries and diff: open by nature.
    'stw_snapshot_get_entries': 'snapshot entries',
    'stw_snapshot_get_diff': 'a snapshot diff',
    # Small typed results whose wire form is still a public to_json (not in
    # issue 18 item 3's six; the next to go).
    'stw_dialog_event_to_json': 'a typed result\'s wire form, still public',
    'stw_element_ref_to_json': 'a typed result\'s wire form, still public',
    'stw_element_state_to_json': 'a typed result\'s wire form, still public',
    'stw_element_info_to_json': 'a typed result\'s wire form, still public',
}


def public_json_results():
    return {name: path for path, text in sources('stagewright', ('.h',)) if not path.endswith('-private.h')
            for name in JSON_RETURN.findall(text)}


def json_results_are_listed_and_bounded():
    found = public_json_results()
    core = {name: path for name, path in found.items() if SESSION_CORE.match(name) and name not in RAW_JSON_RESULTS}
    other = {name: path for name, path in found.items() if name not in core}
    allowed = dict(OTHER_JSON_RESULTS, **RAW_JSON_RESULTS)
    bad = ['%s: %s answers JSON; type it, or list it in JSON_RESULTS with why' % (path, name)
           for name, path in sorted(core.items()) if name not in JSON_RESULTS]
    bad += ['%s: %s answers JSON; type it, or list it in OTHER_JSON_RESULTS with why' % (path, name)
            for name, path in sorted(other.items()) if name not in allowed]
    bad += ['%s lists %s, which no longer answers JSON: drop it' % (table, name)
            for table, names in (('JSON_RESULTS', JSON_RESULTS), ('OTHER_JSON_RESULTS', OTHER_JSON_RESULTS),
                                 ('RAW_JSON_RESULTS', RAW_JSON_RESULTS))
            for name in sorted(names) if name not in found]
    if len(core) > JSON_RESULTS_MAX:
        bad.append('%d public session/surface methods answer JSON, at most %d' % (len(core), JSON_RESULTS_MAX))
    return bad


# Core errors are made by their enum value (stw_error_new_code(),
# stw_set_error()), so a misspelt code fails to compile; a name is for
# plugin codes only, which have no value of their own.
CORE_ERROR_BY_NAME = re.compile(r'\bstw_error_new(?:_literal)?\s*\(\s*"([A-Z][A-Z0-9_]*)"')


def core_errors_are_made_by_enum_value():
    bad = []
    for directory in ('stagewright', 'transports', 'tools'):
        for path, text in sources(directory, ('.c',)):
            for match in CORE_ERROR_BY_NAME.finditer(text):
                line = text.count('\n', 0, match.start()) + 1
                bad.append('%s:%d: stw_error_new*("%s"): use stw_error_new_code (STW_ERROR_%s, …)'
                           % (path, line, match.group(1), match.group(1)))
    return bad


# --- modules and their include graph ----------------------------------------
#
# A module of the library is stw-X.c with stw-X.h and stw-X-private.h; X
# includes Y when any file of X includes a header of Y. Among modules the
# includes go one way (docs/architecture.md): the page core goes session →
# surface → {dialogs, input, refs, snapshot, …}, and nothing below
# includes what is above. A cycle is printed whole, with the includes that
# make it.

def module_of(name):
    base = os.path.basename(name)
    if not base.startswith('stw-'):
        return None
    for suffix in ('-private.h', '.h', '.c'):
        if base.endswith(suffix):
            return base[:-len(suffix)]
    return None


def module_graph():
    edges, why = {}, {}
    texts = list(sources('stagewright'))
    modules = {module_of(path) for path, _ in texts} - {None}
    for path, text in texts:
        module = module_of(path)
        if module is None:
            continue
        edges.setdefault(module, set())
        for header in includes(text):
            other = module_of(header)
            if other in modules and other != module:
                edges[module].add(other)
                why.setdefault((module, other), []).append('%s includes %s' % (path, header))
    return edges, why


def strongly_connected(edges):
    """Tarjan's algorithm, iterative: the components of more than one module."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


def one_cycle(component, edges):
    """A shortest cycle through the component's first module, as a path."""
    start = min(component)
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for child in sorted(edges.get(node, ())):
            if child == start:
                return paths[node] + [start]
            if child in component and child not in paths:
                paths[child] = paths[node] + [child]
                queue.append(child)
    return [start]


def no_include_cycle_among_modules():
    edges, why = module_graph()
    bad = []
    for component in sorted(set(strongly_connected(edges)), key=sorted):
        cycle = one_cycle(component, edges)
        bad.append('include cycle: %s (modules %s)' % (' -> '.join(cycle), ', '.join(sorted(component))))
        for a, b in zip(cycle, cycle[1:]):
            bad.append('  %s -> %s: %s' % (a, b, '; '.join(why[(a, b)])))
    return bad


# State lives in the instance that owns it (its private struct), or in a
# map or task data of its own for objects it does not own: never in
# string-keyed object data, which any file can read, clear or collide
# with. GQuark-keyed qdata is not this.
STRING_KEYED_DATA = re.compile(r'\bg_object_(?:set_data_full|set_data|get_data|steal_data)\s*\(')


def no_string_keyed_object_data():
    bad = []
    for directory in ('stagewright', 'tools', 'plugins'):
        for path, text in (tree_sources if directory == 'plugins' else sources)(directory, ('.c', '.h')):
            for match in STRING_KEYED_DATA.finditer(text):
                line = text.count('\n', 0, match.start()) + 1
                bad.append('%s:%d: %s…): keep the state in its owner\'s private struct'
                           % (path, line, match.group(0).rstrip('( ')))
    return bad


# The page core below the session (surfaces and what they use) neither
# includes nor calls the session or the manager: what it needs of them
# (refs, dialogs, the surface list, the browser connection, a refresh,
# the files directory, new windows) is handed down in StwSurfaceShared.
PAGE_CORE = re.compile(r'^stw-(?:surface|input|refs|runner|dialogs|console|snapshot|screenshot|element)'
                       r'[-a-z]*\.c$')
SESSION_CALL = re.compile(r'\b_?stw_session_(?!kind_)[a-z_]+\s*\(|"window-(?:added|removed)"')


def page_core_calls_nothing_above_it():
    bad = []
    for path, text in sources('stagewright', ('.c',)):
        if not PAGE_CORE.match(os.path.basename(path)):
            continue
        for header in includes(text):
            if os.path.basename(header).startswith('stw-session'):
                bad.append('%s includes %s' % (path, header))
        for match in SESSION_CALL.finditer(text):
            line_start = text.rfind('\n', 0, match.start()) + 1
            line = text[line_start:text.find('\n', match.start())].lstrip()
            if line.startswith(('*', '/*')):
                continue
            bad.append('%s:%d: %s: hand it down instead'
                       % (path, text.count('\n', 0, match.start()) + 1, match.group(0).rstrip('( ')))
    return bad


CHECKS = [tools_include_no_private_header, the_core_includes_nothing_from_tools,
          transports_include_nothing_above_them, one_blocking_loop,
          json_results_are_listed_and_bounded, core_errors_are_made_by_enum_value,
          no_include_cycle_among_modules, no_string_keyed_object_data,
          page_core_calls_nothing_above_it]


def main():
    print('1..%d' % len(CHECKS))
    failed = 0
    for number, check in enumerate(CHECKS, 1):
        bad = check()
        name = check.__name__.replace('_', ' ')
        if bad:
            failed += 1
            print('not ok %d - %s' % (number, name))
            for line in bad:
                print('# ' + line)
        else:
            print('ok %d - %s' % (number, name))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
