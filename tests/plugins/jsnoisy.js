// jsnoisy.js: a JavaScript plugin that print()s during setup and inside a
// tool, and a tool that calls System.exit() (tests/e2e/plugins.test.mjs):
// the server's stdout stays JSON-RPC, the prints land on stderr, and the
// exit becomes an error answer.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import GObject from 'gi://GObject';
import Stagewright from 'gi://Stagewright?version=1.0';
import System from 'system';

const SCHEMA = '{"type": "object", "additionalProperties": false}';

const Shout = GObject.registerClass(
class Shout extends Stagewright.Tool {
    vfunc_invoke(invocation) {
        print('jsnoisy: tool through print');
        invocation.return_json(JSON.stringify({shouted: true}));
    }
});

const Quit = GObject.registerClass(
class Quit extends Stagewright.Tool {
    vfunc_invoke(invocation) {
        System.exit(3);
    }
});

export const JsNoisy = GObject.registerClass(
class JsNoisy extends Stagewright.Plugin {
    _init() {
        super._init({name: 'jsnoisy', version: '1.0.0'});
        const schema = Stagewright.Schema.new_from_string(SCHEMA);
        this.add_tool(new Shout({name: 'shout', description: 'Prints, then answers.', input_schema: schema}));
        this.add_tool(new Quit({name: 'quit', description: 'Calls System.exit().', input_schema: schema}));
    }

    vfunc_setup(completion) {
        print('jsnoisy: setup through print');
        completion.return_success();
    }
});
