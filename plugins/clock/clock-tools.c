/* clock-tools.c: the clock plugin's MCP tools, thin adapters over its API
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each tool reads its JSON arguments, calls the operation of the same name
 * on StwClockPlugin (stw-clock.c, where every check lives) and answers the
 * typed status as JSON.
 */
#include "config.h"

#include "stw-clock-private.h"

#define CLOCK_TYPE_TOOL (clock_tool_get_type ())
G_DECLARE_FINAL_TYPE (ClockTool, clock_tool, CLOCK, TOOL, StwTool)

typedef enum
{
  ARG_NONE,
  ARG_TIME,          /* a time, required */
  ARG_OPTIONAL_TIME, /* a time, optional */
  ARG_MS,            /* a span in ms */
} ClockArg;

struct _ClockTool
{
  StwTool         parent_instance;
  StwClockPlugin *plugin;   /* unowned: the plugin owns its tools */
  const char     *op;
  ClockArg        arg;
};

G_DEFINE_FINAL_TYPE (ClockTool, clock_tool, STW_TYPE_TOOL)

static void
on_done (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(StwClockStatus) status = _stw_clock_plugin_run_finish (STW_CLOCK_PLUGIN (object), result, &error);
  g_autoptr(JsonObject) answer = NULL;

  if (status == NULL)
    {
      stw_invocation_return_error (invocation, error);
      return;
    }
  answer = stw_clock_status_to_json (status);
  stw_invocation_return_value (invocation, answer);
}

static void
clock_tool_invoke (StwTool       *tool,
                   StwInvocation *invocation)
{
  ClockTool *self = CLOCK_TOOL (tool);
  JsonObject *arguments = stw_invocation_get_arguments (invocation);
  StwSession *session = stw_invocation_get_session (invocation);
  g_autoptr(GError) error = NULL;
  gint64 value = 0;
  gboolean has_value = FALSE;

  if (session == NULL)
    {
      stw_invocation_return_error_literal (invocation, "NOT_RUNNING", "No app is running");
      return;
    }
  switch (self->arg)
    {
    case ARG_TIME:
    case ARG_OPTIONAL_TIME:
      if (json_object_has_member (arguments, "time"))
        {
          if (!stw_clock_parse_time (json_object_get_member (arguments, "time"), &value, &error))
            {
              stw_invocation_return_error (invocation, error);
              return;
            }
          has_value = TRUE;
        }
      break;
    case ARG_MS:
      value = json_object_get_int_member_with_default (arguments, "ms", -1);
      has_value = TRUE;
      break;
    case ARG_NONE:
    default:
      break;
    }
  _stw_clock_plugin_run_async (self->plugin, session, self->op, value, has_value,
                               stw_invocation_get_cancellable (invocation), on_done, g_object_ref (invocation));
}

static void
clock_tool_class_init (ClockToolClass *klass)
{
  STW_TOOL_CLASS (klass)->invoke = clock_tool_invoke;
}

static void
clock_tool_init (ClockTool *self)
{
}

#define SESSION_PROP "\"sessionId\":{\"type\":\"string\"}"
#define TIME_PROP "\"time\":{\"type\":[\"number\",\"string\"],\"maxLength\":64}"
#define MS_PROP "\"ms\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":31622400000}"
#define STATUS_DOC " Returns the status (see clock_status)."

static void
add_tool (StwClockPlugin *plugin,
          const char     *op,
          ClockArg        arg,
          const char     *title,
          const char     *description,
          gboolean        query)
{
  static const char * const codes[] = { "UNSUPPORTED", "NOT_INSTALLED", NULL };
  static const char * const first_codes[] = { "UNSUPPORTED", NULL };
  gboolean first = query || g_str_equal (op, "install");
  const char *schema_json;
  g_autoptr(StwSchema) schema = NULL;
  g_autofree char *full = g_strconcat (description, query ? "" : STATUS_DOC, NULL);
  ClockTool *tool;

  switch (arg)
    {
    case ARG_TIME:
      schema_json = "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"time\"],\"properties\":{"
                    SESSION_PROP "," TIME_PROP "}}";
      break;
    case ARG_OPTIONAL_TIME:
      schema_json = "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
                    SESSION_PROP "," TIME_PROP "}}";
      break;
    case ARG_MS:
      schema_json = "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"ms\"],\"properties\":{"
                    SESSION_PROP "," MS_PROP "}}";
      break;
    case ARG_NONE:
    default:
      schema_json = "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{" SESSION_PROP "}}";
      break;
    }
  schema = stw_schema_new_from_string (schema_json, NULL);
  g_assert (schema != NULL);
  tool = g_object_new (CLOCK_TYPE_TOOL,
                       "name", op,
                       "title", title,
                       "description", full,
                       "input-schema", schema,
                       "operation-type", query ? STW_OPERATION_QUERY : STW_OPERATION_COMMAND,
                       "error-codes", first ? first_codes : codes,
                       "idempotent-hint", query,
                       "session-requirement", STW_SESSION_REQUIREMENT_REQUIRED,
                       NULL);
  tool->plugin = plugin;
  tool->op = op;
  tool->arg = arg;
  stw_tool_provider_add_tool (STW_TOOL_PROVIDER (plugin), STW_TOOL (tool), NULL);
  g_object_unref (tool);
}

void
_stw_clock_plugin_add_tools (StwClockPlugin *self)
{
  StwToolProvider *provider = STW_TOOL_PROVIDER (self);

  stw_tool_provider_add_error_code (provider, "UNSUPPORTED", 501, FALSE,
                                    "The session has no renderer to put a clock in (a main-process-only attach).",
                                    NULL);
  stw_tool_provider_add_error_code (provider, "NOT_INSTALLED", 409, FALSE,
                                    "The session's clock is not installed; call clock_install first.", NULL);

  add_tool (self, "install", ARG_OPTIONAL_TIME, "Install a fake clock",
            "Fake Date, timers, requestAnimationFrame and performance.now in every window, frame and webview, "
            "new ones included, from time (ms since the epoch or ISO 8601; default now), running with real "
            "time. Again: sets the time.", FALSE);
  add_tool (self, "set_time", ARG_TIME, "Freeze Date.now",
            "Freeze Date.now() at time; timers still run.", FALSE);
  add_tool (self, "set_system_time", ARG_TIME, "Set the wall time",
            "Move the wall time to time without firing timers; unfreezes a fixed time.", FALSE);
  add_tool (self, "advance", ARG_MS, "Jump the clock ahead",
            "Jump ms ahead: each timer due meanwhile fires once, at the end.", FALSE);
  add_tool (self, "run_for", ARG_MS, "Run the clock ahead",
            "Run ms ahead at once, firing due timers in order (intervals repeatedly), at most "
            "maxTimersPerCall per document (then limitReached).", FALSE);
  add_tool (self, "pause", ARG_OPTIONAL_TIME, "Pause the clock",
            "Stop the clock, after jumping to time if given (not before now).", FALSE);
  add_tool (self, "resume", ARG_NONE, "Resume the clock", "Let a paused clock run with real time.", FALSE);
  add_tool (self, "status", ARG_NONE, "Clock status", "The clock as the documents see it. Returns: {installed, paused, fixed, now, iso, ticks, "
            "pendingTimers, fired, limitReached, timerErrors, documents, mainProcess, maxTimersPerCall}.", TRUE);
}
