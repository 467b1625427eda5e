// jssample.js: the sample JavaScript plugin — reads the active window's title
//
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// Beside it, jssample.plugin says `Loader=gjs`. The server imports this ES
// module in the GJS it embeds and makes the one Stagewright.Plugin class it
// exports. Load it with `stagewright --plugin jssample` (its directory in
// STAGEWRIGHT_PLUGIN_PATH) or `--plugin /abs/path/jssample.plugin`; a GJS
// program loads it into its own dispatcher with
// `dispatcher.load_plugins_sync(['jssample'], …)`.

import GObject from 'gi://GObject';
import Stagewright from 'gi://Stagewright?version=1.0';

const INPUT = JSON.stringify({
    type: 'object',
    properties: {sessionId: {type: 'string'}, expect: {type: 'string'}},
    additionalProperties: false,
});

const CONFIG = JSON.stringify({
    type: 'object',
    properties: {prefix: {type: 'string', default: '', 'x-stagewright-safe': true}},
    additionalProperties: false,
});

// `title` here, `jssample_title` to agents.
const TitleTool = GObject.registerClass(
class TitleTool extends Stagewright.Tool {
    _init() {
        super._init({
            name: 'title',
            title: 'Active window title',
            description: 'Read the title of the app\'s active window; with expect, ' +
                         'fail with jssample.TITLE_MISMATCH unless it is that.',
            input_schema: Stagewright.Schema.new_from_string(INPUT),
            operation_type: Stagewright.OperationType.QUERY,
            error_codes: ['NO_WINDOW', 'TITLE_MISMATCH', 'NOT_RUNNING'],
            idempotent_hint: true,
            session_requirement: Stagewright.SessionRequirement.REQUIRED,
        });
    }

    vfunc_invoke(invocation) {
        const session = invocation.get_session();
        const window = session ? session.get_active_window() : null;
        if (!window) {
            invocation.return_error_literal('jssample.NO_WINDOW', 'The app has no active window');
            return;
        }
        const args = invocation.get_arguments();
        const expect = args.has_member('expect') ? args.get_string_member('expect') : null;
        // The plugin through the dispatcher: a reference from the tool, which
        // the plugin owns, would be a cycle through C that is never collected.
        const config = invocation.get_dispatcher().lookup_plugin('jssample').get_config();
        const prefix = config.has_member('prefix') ? config.get_string_member('prefix') : '';
        const title = window.get_title() ?? '';
        if (expect !== null && expect !== title) {
            invocation.return_error_json(JSON.stringify({
                code: 'jssample.TITLE_MISMATCH',
                error: `The active window is titled “${title}”, not “${expect}”`,
                details: {expected: expect, actual: title},
            }));
            return;
        }
        invocation.return_json(JSON.stringify({title, label: prefix + title, surfaceId: window.get_id()}));
    }
});

export const JsSamplePlugin = GObject.registerClass(
class JsSamplePlugin extends Stagewright.Plugin {
    _init() {
        super._init({
            name: 'jssample',
            version: '1.0.0',
            config_schema: Stagewright.Schema.new_from_string(CONFIG),
        });
        this.add_error_code('NO_WINDOW', 404, false, 'The app has no window yet; wait for one.');
        this.add_error_code('TITLE_MISMATCH', 409, true,
            'The title differs; wait for the app to update it and retry.');
        this.add_tool(new TitleTool());
    }

    vfunc_setup(completion) {
        // A real plugin would open what it needs here, possibly completing
        // later from a callback or after an await.
        completion.return_success();
    }
});
