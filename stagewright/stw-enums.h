/* stw-enums.h: enumerations shared across the public API
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(__STAGEWRIGHT_INSIDE__) && !defined(STAGEWRIGHT_COMPILATION)
# error "Only <stagewright/stagewright.h> can be included directly."
#endif

#include <glib.h>

G_BEGIN_DECLS

/**
 * StwOperationType:
 * @STW_OPERATION_COMMAND: changes application state
 * @STW_OPERATION_QUERY: reads state, no evaluation of agent code
 * @STW_OPERATION_EVAL: evaluates agent-supplied JavaScript; gated by the eval policy
 * @STW_OPERATION_SCREENSHOT: captures pixels
 * @STW_OPERATION_LOGS: reads buffered logs
 * @STW_OPERATION_DIALOG: arms or reads the dialog handler
 * @STW_OPERATION_WINDOW_INFO: lists windows or surfaces
 *
 * The closed set of operation types. A tool's operation type is internal
 * metadata: it routes the call (eval guard, read-only hints) and never
 * appears in the agent's input.
 */
typedef enum
{
  STW_OPERATION_COMMAND,
  STW_OPERATION_QUERY,
  STW_OPERATION_EVAL,
  STW_OPERATION_SCREENSHOT,
  STW_OPERATION_LOGS,
  STW_OPERATION_DIALOG,
  STW_OPERATION_WINDOW_INFO,
} StwOperationType;

/**
 * StwEvalTarget:
 * @STW_EVAL_TARGET_NONE: no evaluation
 * @STW_EVAL_TARGET_MAIN: the Electron main process
 * @STW_EVAL_TARGET_RENDERER: renderer surfaces
 * @STW_EVAL_TARGET_ALL: both
 *
 * Where evaluated code runs; also the server's eval policy
 * (`--allow-eval[=main|renderer|all]`).
 */
typedef enum /*< flags >*/
{
  STW_EVAL_TARGET_NONE     = 0,
  STW_EVAL_TARGET_MAIN     = 1 << 0,
  STW_EVAL_TARGET_RENDERER = 1 << 1,
  STW_EVAL_TARGET_ALL      = STW_EVAL_TARGET_MAIN | STW_EVAL_TARGET_RENDERER,
} StwEvalTarget;

/**
 * StwToolProfile:
 * @STW_TOOL_PROFILE_ESSENTIAL: the smallest set that drives a form end to end
 * @STW_TOOL_PROFILE_TESTING: essential plus what test authors need
 * @STW_TOOL_PROFILE_DEBUG: essential plus diagnosis and process control
 * @STW_TOOL_PROFILE_FULL: every core tool
 *
 * Which core tools a server shows. Eval-gated tools and plugin tools compose
 * independently of the profile.
 */
typedef enum
{
  STW_TOOL_PROFILE_ESSENTIAL,
  STW_TOOL_PROFILE_TESTING,
  STW_TOOL_PROFILE_DEBUG,
  STW_TOOL_PROFILE_FULL,
} StwToolProfile;

/**
 * StwToolProfileFlags:
 * @STW_TOOL_PROFILE_FLAGS_ESSENTIAL: shown by the `essential` profile
 * @STW_TOOL_PROFILE_FLAGS_TESTING: shown by the `testing` profile
 * @STW_TOOL_PROFILE_FLAGS_DEBUG: shown by the `debug` profile
 * @STW_TOOL_PROFILE_FLAGS_FULL: shown by the `full` profile
 * @STW_TOOL_PROFILE_FLAGS_ALL: shown by every profile
 *
 * The profiles a tool belongs to (#StwTool:profiles); the flag of a
 * profile is `1 << profile`. Tools the profiles do not govern (plugin
 * tools, tools an application adds) keep the default,
 * %STW_TOOL_PROFILE_FLAGS_ALL.
 *
 * Since: 1.0
 */
typedef enum /*< flags >*/
{
  STW_TOOL_PROFILE_FLAGS_ESSENTIAL = 1 << STW_TOOL_PROFILE_ESSENTIAL,
  STW_TOOL_PROFILE_FLAGS_TESTING   = 1 << STW_TOOL_PROFILE_TESTING,
  STW_TOOL_PROFILE_FLAGS_DEBUG     = 1 << STW_TOOL_PROFILE_DEBUG,
  STW_TOOL_PROFILE_FLAGS_FULL      = 1 << STW_TOOL_PROFILE_FULL,
  STW_TOOL_PROFILE_FLAGS_ALL       = 0xF,
} StwToolProfileFlags;

/**
 * StwSessionRequirement:
 * @STW_SESSION_REQUIREMENT_NONE: the tool acts on no session (launch,
 *   status); the dispatcher resolves none
 * @STW_SESSION_REQUIREMENT_OPTIONAL: the tool acts on the session the call
 *   resolves to if there is one; no live session is not an error
 * @STW_SESSION_REQUIREMENT_REQUIRED: the call fails unless it resolves to
 *   a live session
 *
 * Whether a tool needs a session (#StwTool:session-requirement). The
 * dispatcher resolves it before the tool runs, by the contract's rules: the
 * call's `sessionId`, else the only live session; `NOT_RUNNING` when there
 * is none (or the id is unknown), `BAD_ARGUMENT` listing them when several
 * are live. The tool reads it with [method@Stagewright.Invocation.get_session].
 *
 * Since: 1.0
 */
typedef enum
{
  STW_SESSION_REQUIREMENT_NONE,
  STW_SESSION_REQUIREMENT_OPTIONAL,
  STW_SESSION_REQUIREMENT_REQUIRED,
} StwSessionRequirement;

/**
 * StwSurfaceKind:
 * @STW_SURFACE_KIND_WINDOW: a window's page
 * @STW_SURFACE_KIND_FRAME: an iframe (same process or out of process)
 * @STW_SURFACE_KIND_WEBVIEW: a `<webview>` guest
 * @STW_SURFACE_KIND_OTHER: anything else that renders
 * @STW_SURFACE_KIND_SERVICE_WORKER: a service worker: never one of the
 *   session's surfaces (no window, no snapshot, no refs), only handed to
 *   plugins ([vfunc@Stagewright.Plugin.worker_attached],
 *   [method@Stagewright.Session.list_workers]) for the DevTools seams
 *   ([method@Stagewright.Surface.send_cdp_async],
 *   [method@Stagewright.Surface.subscribe_cdp])
 * @STW_SURFACE_KIND_SHARED_WORKER: a shared worker, handed as a service
 *   worker is
 * @STW_SURFACE_KIND_WORKER: a page's dedicated worker, handed as a service
 *   worker is; its parent ([method@Stagewright.Surface.get_parent_id]) is
 *   the window or out-of-process frame that started it
 *
 * What a [class@Stagewright.Surface] is.
 *
 * Since: 1.0
 */
typedef enum
{
  STW_SURFACE_KIND_WINDOW,
  STW_SURFACE_KIND_FRAME,
  STW_SURFACE_KIND_WEBVIEW,
  STW_SURFACE_KIND_OTHER,
  STW_SURFACE_KIND_SERVICE_WORKER,
  STW_SURFACE_KIND_SHARED_WORKER,
  STW_SURFACE_KIND_WORKER,
} StwSurfaceKind;

/**
 * StwImageFormat:
 * @STW_IMAGE_FORMAT_PNG: PNG, lossless
 * @STW_IMAGE_FORMAT_JPEG: JPEG, with a quality setting
 *
 * How a screenshot is encoded.
 *
 * Since: 1.0
 */
typedef enum
{
  STW_IMAGE_FORMAT_PNG,
  STW_IMAGE_FORMAT_JPEG,
} StwImageFormat;

/**
 * StwStateFlags:
 * @STW_STATE_NONE: no flag
 * @STW_STATE_VISIBLE: the element is rendered and not hidden
 * @STW_STATE_ENABLED: the element is enabled
 * @STW_STATE_DISABLED: the element is disabled (itself or through an ancestor)
 * @STW_STATE_CHECKED: a checkbox, radio or `aria-checked` element is checked
 * @STW_STATE_SELECTED: an option or `aria-selected` element is selected
 * @STW_STATE_EXPANDED: a `<details>` or `aria-expanded` element is expanded
 * @STW_STATE_PRESSED: an `aria-pressed` toggle is pressed
 * @STW_STATE_FOCUSED: the element has the focus
 * @STW_STATE_READONLY: the element is read-only
 * @STW_STATE_REQUIRED: the element is required
 * @STW_STATE_INVALID: the element's value is invalid
 * @STW_STATE_BUSY: the element is `aria-busy`
 *
 * The twelve element states the snapshot shows and
 * [method@Stagewright.Surface.get_state_async] reads. A flags value alone
 * cannot say that a state does not apply (`checked` on a button) or that it
 * is mixed (an indeterminate checkbox): [struct@Stagewright.ElementState]
 * carries which flags are known and which are mixed beside their values.
 *
 * Since: 1.0
 */
typedef enum /*< flags >*/
{
  STW_STATE_NONE     = 0,
  STW_STATE_VISIBLE  = 1 << 0,
  STW_STATE_ENABLED  = 1 << 1,
  STW_STATE_DISABLED = 1 << 2,
  STW_STATE_CHECKED  = 1 << 3,
  STW_STATE_SELECTED = 1 << 4,
  STW_STATE_EXPANDED = 1 << 5,
  STW_STATE_PRESSED  = 1 << 6,
  STW_STATE_FOCUSED  = 1 << 7,
  STW_STATE_READONLY = 1 << 8,
  STW_STATE_REQUIRED = 1 << 9,
  STW_STATE_INVALID  = 1 << 10,
  STW_STATE_BUSY     = 1 << 11,
} StwStateFlags;

/**
 * StwCapabilityFlags:
 * @STW_CAPABILITY_NONE: nothing
 * @STW_CAPABILITY_MAIN_EVAL: code can run in the app's main process
 * @STW_CAPABILITY_RENDERER_EVAL: code can run in the page
 * @STW_CAPABILITY_INTERACTION: the page can be clicked, typed into and read
 * @STW_CAPABILITY_SURFACES: windows, frames and webviews are listed
 * @STW_CAPABILITY_OWNED: the session launched the app, so stopping it ends
 *   the app
 * @STW_CAPABILITY_SNAPSHOT: the surface can be snapshot
 *
 * What a [class@Stagewright.Session] or a [class@Stagewright.Surface] can
 * do now: see [method@Stagewright.Session.get_capabilities] and
 * [method@Stagewright.Surface.get_capabilities].
 *
 * Since: 1.0
 */
typedef enum /*< flags >*/
{
  STW_CAPABILITY_NONE          = 0,
  STW_CAPABILITY_MAIN_EVAL     = 1 << 0,
  STW_CAPABILITY_RENDERER_EVAL = 1 << 1,
  STW_CAPABILITY_INTERACTION   = 1 << 2,
  STW_CAPABILITY_SURFACES      = 1 << 3,
  STW_CAPABILITY_OWNED         = 1 << 4,
  STW_CAPABILITY_SNAPSHOT      = 1 << 5,
} StwCapabilityFlags;

/**
 * StwError:
 * @STW_ERROR_NOT_RUNNING: no live session
 * @STW_ERROR_ALREADY_RUNNING: a session already runs, or the session cap is reached
 * @STW_ERROR_LAUNCH_TIMEOUT: the app did not become ready in time
 * @STW_ERROR_LAUNCH_FAILED: the app exited or failed before it could be driven
 * @STW_ERROR_FUSES_BLOCK_LAUNCH: the binary's fuses forbid the inspector
 * @STW_ERROR_SINGLE_INSTANCE_LOCK: another instance holds the lock
 * @STW_ERROR_BAD_ARGUMENT: the arguments are invalid
 * @STW_ERROR_FILE_NOT_FOUND: a path is missing or unreadable
 * @STW_ERROR_ABSOLUTE_PATH_REQUIRED: a path must be absolute
 * @STW_ERROR_REF_NOT_FOUND: unknown or stale ref, or no such window
 * @STW_ERROR_SURFACE_NOT_FOUND: unknown surface id
 * @STW_ERROR_SURFACE_CLOSED: the surface closed
 * @STW_ERROR_SURFACE_UNSUPPORTED: the surface cannot do this
 * @STW_ERROR_SELECTOR_NO_MATCH: nothing matched
 * @STW_ERROR_ELEMENT_NOT_VISIBLE: the element is not visible
 * @STW_ERROR_ELEMENT_DISABLED: the element is disabled
 * @STW_ERROR_TYPE_NO_EFFECT: typing changed nothing
 * @STW_ERROR_WAIT_TIMEOUT: a wait ran out of time
 * @STW_ERROR_EXPECTATION_FAILED: an expectation was not met
 * @STW_ERROR_TRANSPORT_UNSUPPORTED: the transport lacks the capability
 * @STW_ERROR_CDP_DISCONNECTED: the CDP connection dropped
 * @STW_ERROR_CDP_TIMEOUT: a CDP method did not answer in time
 * @STW_ERROR_INJECT_FAILED: the inspector could not be opened in the process
 * @STW_ERROR_PLUGIN_LOAD_FAILED: a plugin could not be loaded
 * @STW_ERROR_PLUGIN_VERSION_MISMATCH: a plugin needs another core version
 * @STW_ERROR_PLUGIN_MANIFEST_INVALID: a plugin manifest is invalid
 * @STW_ERROR_PLUGIN_CONFIG_INVALID: a plugin configuration is invalid
 * @STW_ERROR_EVAL_SYNTAX_ERROR: evaluated code does not parse
 * @STW_ERROR_EVAL_RUNTIME_ERROR: evaluated code threw
 * @STW_ERROR_EVAL_TIMEOUT: evaluation ran out of time
 * @STW_ERROR_EVAL_BLOCKED_KEYWORD: evaluated code contains a blocked keyword
 * @STW_ERROR_EVAL_BLOCKED_CONSTRUCT: evaluated code contains a blocked construct
 * @STW_ERROR_OPERATION_TIMEOUT: the dispatch backstop fired
 * @STW_ERROR_NOT_IMPLEMENTED: not implemented for this transport or plugin
 * @STW_ERROR_INTERNAL_ERROR: a bug in Stagewright
 * @STW_ERROR_PLUGIN: a namespaced plugin code; see stw_error_get_code_name()
 *
 * The core error codes of the agent contract. Each value's wire name is the
 * identifier without the `STW_ERROR_` prefix (`NOT_RUNNING`, …). A plugin
 * code (`<plugin>.CODE`) is a value of the plugin's own domain when it has
 * one (stw_error_register_domain()); otherwise it is %STW_ERROR_PLUGIN with
 * its name in the error, which only C sees (stw_error_get_code_name()).
 * New core codes are appended, never renumbered.
 */
typedef enum
{
  STW_ERROR_NOT_RUNNING,
  STW_ERROR_ALREADY_RUNNING,
  STW_ERROR_LAUNCH_TIMEOUT,
  STW_ERROR_LAUNCH_FAILED,
  STW_ERROR_FUSES_BLOCK_LAUNCH,
  STW_ERROR_SINGLE_INSTANCE_LOCK,
  STW_ERROR_BAD_ARGUMENT,
  STW_ERROR_FILE_NOT_FOUND,
  STW_ERROR_ABSOLUTE_PATH_REQUIRED,
  STW_ERROR_REF_NOT_FOUND,
  STW_ERROR_SURFACE_NOT_FOUND,
  STW_ERROR_SURFACE_CLOSED,
  STW_ERROR_SURFACE_UNSUPPORTED,
  STW_ERROR_SELECTOR_NO_MATCH,
  STW_ERROR_ELEMENT_NOT_VISIBLE,
  STW_ERROR_ELEMENT_DISABLED,
  STW_ERROR_TYPE_NO_EFFECT,
  STW_ERROR_WAIT_TIMEOUT,
  STW_ERROR_EXPECTATION_FAILED,
  STW_ERROR_TRANSPORT_UNSUPPORTED,
  STW_ERROR_CDP_DISCONNECTED,
  STW_ERROR_CDP_TIMEOUT,
  STW_ERROR_INJECT_FAILED,
  STW_ERROR_PLUGIN_LOAD_FAILED,
  STW_ERROR_PLUGIN_VERSION_MISMATCH,
  STW_ERROR_PLUGIN_MANIFEST_INVALID,
  STW_ERROR_PLUGIN_CONFIG_INVALID,
  STW_ERROR_EVAL_SYNTAX_ERROR,
  STW_ERROR_EVAL_RUNTIME_ERROR,
  STW_ERROR_EVAL_TIMEOUT,
  STW_ERROR_EVAL_BLOCKED_KEYWORD,
  STW_ERROR_EVAL_BLOCKED_CONSTRUCT,
  STW_ERROR_OPERATION_TIMEOUT,
  STW_ERROR_NOT_IMPLEMENTED,
  STW_ERROR_INTERNAL_ERROR,
  STW_ERROR_PLUGIN = 1000,
} StwError;

/**
 * StwCdpError:
 * @STW_CDP_ERROR_SERVER_ERROR: the method failed (the protocol's generic -32000)
 * @STW_CDP_ERROR_INVALID_REQUEST: the request was malformed
 * @STW_CDP_ERROR_METHOD_NOT_FOUND: the peer has no such method
 * @STW_CDP_ERROR_INVALID_PARAMS: the parameters were refused
 * @STW_CDP_ERROR_INTERNAL_ERROR: the peer failed internally
 * @STW_CDP_ERROR_PARSE_ERROR: the peer could not parse the message
 *
 * Errors a DevTools peer answered a method with, in the %STW_CDP_ERROR
 * domain. The values are the wire codes; a peer may send others, which
 * arrive unchanged as the error's code.
 */
typedef enum
{
  STW_CDP_ERROR_SERVER_ERROR = -32000,
  STW_CDP_ERROR_INVALID_REQUEST = -32600,
  STW_CDP_ERROR_METHOD_NOT_FOUND = -32601,
  STW_CDP_ERROR_INVALID_PARAMS = -32602,
  STW_CDP_ERROR_INTERNAL_ERROR = -32603,
  STW_CDP_ERROR_PARSE_ERROR = -32700,
} StwCdpError;

/**
 * StwSnapshotFormat:
 * @STW_SNAPSHOT_FORMAT_JSON: entries as JSON objects (schema v1)
 * @STW_SNAPSHOT_FORMAT_TEXT: one compact line per entry
 *
 * How [method@Stagewright.Surface.snapshot_async] answers.
 *
 * Since: 1.0
 */
typedef enum
{
  STW_SNAPSHOT_FORMAT_JSON,
  STW_SNAPSHOT_FORMAT_TEXT,
} StwSnapshotFormat;

/**
 * StwDiffFormat:
 * @STW_DIFF_FORMAT_COMPACT: changed entries carry only the changed fields
 * @STW_DIFF_FORMAT_FULL: changed entries carry whole previous and current entries
 *
 * How a `since:"last"` JSON diff encodes its items.
 *
 * Since: 1.0
 */
typedef enum
{
  STW_DIFF_FORMAT_COMPACT,
  STW_DIFF_FORMAT_FULL,
} StwDiffFormat;

G_END_DECLS
