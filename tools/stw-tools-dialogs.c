/* stw-tools-dialogs.c: electron_dialog_handler, electron_console_logs
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "stw-core-tools.h"
#include "stw-console.h"
#include "stw-dialogs.h"
#include "stw-error-registry.h"

static const char * const policy_members[] = { "action", "perType", "promptText", "oneShot", NULL };
static const char * const read_members[] = { "type", "since", "limit", "clear", NULL };

/* The members of @args named in @names, as a new object (NULL when none). */
static JsonObject *
pick (JsonObject         *args,
      const char * const *names)
{
  JsonObject *picked = NULL;

  for (guint i = 0; names[i] != NULL; i++)
    if (json_object_has_member (args, names[i]))
      {
        if (picked == NULL)
          picked = json_object_new ();
        json_object_set_member (picked, names[i], json_node_copy (json_object_get_member (args, names[i])));
      }
  return picked;
}

static void
on_read (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(StwDialogLog) log = stw_session_read_dialog_events_finish (STW_SESSION (object), result, &error);
  g_autoptr(JsonObject) answer = NULL;

  if (log == NULL)
    {
      stw_invocation_return_error (invocation, error);
      return;
    }
  answer = stw_tools_wire_object (STW_TYPE_DIALOG_LOG, log);
  json_object_set_string_member (answer, "session_id", stw_invocation_get_session_id (invocation));
  stw_invocation_return_value (invocation, answer);
}

static void
read_events (StwInvocation *invocation)
{
  JsonObject *args = stw_invocation_get_arguments (invocation);
  g_autoptr(JsonObject) filter = pick (args, read_members);

  stw_session_read_dialog_events_async (stw_invocation_get_session (invocation), filter,
                                        stw_invocation_get_cancellable (invocation), on_read,
                                        g_object_ref (invocation));
}

typedef struct
{
  StwInvocation *invocation;
  JsonObject    *previous;   /* the policy before this call */
} Stubbing;

static void
on_stubbed (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  Stubbing *stubbing = user_data;
  g_autoptr(StwInvocation) invocation = stubbing->invocation;
  g_autoptr(JsonObject) previous = stubbing->previous;
  g_autoptr(GError) error = NULL;

  g_free (stubbing);
  if (!stw_session_stub_electron_finish (STW_SESSION (object), result, &error))
    {
      /* A refused call changes nothing: the policy goes back. */
      stw_session_set_dialog_policy (STW_SESSION (object), previous, NULL);
      stw_invocation_return_error (invocation, error);
      return;
    }
  read_events (invocation);
}

static void
dialog_handler_invoke (StwTool       *tool,
                       StwInvocation *invocation)
{
  JsonObject *args = stw_invocation_get_arguments (invocation);
  StwSession *session = stw_invocation_get_session (invocation);
  g_autoptr(JsonObject) policy = pick (args, policy_members);
  g_autoptr(StwDialogPolicy) in_force = stw_session_dup_dialog_policy (session);
  g_autoptr(JsonObject) previous = stw_tools_wire_object (STW_TYPE_DIALOG_POLICY, in_force);
  g_autoptr(GError) error = NULL;

  /* No arming parameter: inspect only. */
  if (policy != NULL && !stw_session_set_dialog_policy (session, policy, &error))
    {
      stw_invocation_return_error (invocation, error);
      return;
    }
  if (json_object_has_member (args, "stub"))
    {
      Stubbing *stubbing = g_new0 (Stubbing, 1);

      stubbing->invocation = g_object_ref (invocation);
      stubbing->previous = g_steal_pointer (&previous);
      stw_session_stub_electron_async (session, json_object_get_object_member (args, "stub"),
                                       stw_invocation_get_cancellable (invocation), on_stubbed, stubbing);
      return;
    }
  read_events (invocation);
}

static void
console_logs_invoke (StwTool       *tool,
                     StwInvocation *invocation)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(StwConsoleLog) log = stw_session_read_console (stw_invocation_get_session (invocation),
                                                           stw_invocation_get_arguments (invocation), &error);
  g_autoptr(JsonObject) answer = NULL;

  if (log == NULL)
    {
      stw_invocation_return_error (invocation, error);
      return;
    }
  answer = stw_tools_wire_object (STW_TYPE_CONSOLE_LOG, log);
  json_object_set_string_member (answer, "session_id", stw_invocation_get_session_id (invocation));
  stw_invocation_return_value (invocation, answer);
}

#define STW_SCHEMA_ACTION "{\"enum\":[\"accept\",\"dismiss\"]}"
#define STW_SCHEMA_STRINGS "{\"type\":[\"string\",\"array\"],\"items\":{\"type\":\"string\"}}"

static const StwToolSpec dialogs_specs[] = {
  {
    .name = "electron_dialog_handler",
    .description = "Answers JavaScript dialogs in every window and frame (dismiss unless armed) and stubs main-process "
                   "APIs. Arm (replaces the policy): action, perType, promptText, oneShot. stub {method: answer | "
                   "true | null (restore)}: dialog.showOpenDialog|showSaveDialog|showMessageBox (and Sync), "
                   "showErrorBox, shell.openExternal|openPath, clipboard.readText|writeText|clear; calls are "
                   "recorded. Read: type, since, limit (50, max 200), clear. Returns {policy, entries[], count, "
                   "overflowed, native}.",
    .input_schema =
      "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
      STW_SCHEMA_SESSION_ID ","
      "\"action\":" STW_SCHEMA_ACTION ","
      "\"perType\":{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
      "\"alert\":" STW_SCHEMA_ACTION ",\"confirm\":" STW_SCHEMA_ACTION ","
      "\"prompt\":" STW_SCHEMA_ACTION ",\"beforeunload\":" STW_SCHEMA_ACTION "}},"
      "\"promptText\":{\"type\":\"string\"},"
      "\"oneShot\":{\"type\":\"boolean\"},"
      "\"stub\":{\"type\":\"object\"},"
      "\"type\":" STW_SCHEMA_STRINGS ","
      "\"since\":{\"type\":\"number\",\"minimum\":0},"
      "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":200},"
      "\"clear\":{\"type\":\"boolean\"}}}",
    .operation_type = STW_OPERATION_DIALOG,
    .errors = "BAD_ARGUMENT NOT_RUNNING TRANSPORT_UNSUPPORTED",
    .profiles = STW_IN_DEBUG,
    .session = STW_SESSION_REQUIREMENT_REQUIRED,
    .invoke = dialog_handler_invoke,
  },
  {
    .name = "electron_console_logs",
    .description = "Console of every window, frame and webview, the main process and its stdout/stderr, newest "
                   "limit (200, max 1000). Filters: type, source (renderer|main|stdout|stderr), match (regex, "
                   "/re/imsu), since (epoch ms). Returns {entries[{source, type, text, timestamp, windowId?, "
                   "surfaceId?, location?}], count, overflowed}.",
    .input_schema =
      "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
      STW_SCHEMA_SESSION_ID ","
      "\"type\":" STW_SCHEMA_STRINGS ","
      "\"source\":" STW_SCHEMA_STRINGS ","
      "\"match\":{\"type\":\"string\",\"maxLength\":1000},"
      "\"since\":{\"type\":\"number\",\"minimum\":0},"
      "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000}}}",
    .operation_type = STW_OPERATION_LOGS,
    .errors = "BAD_ARGUMENT NOT_RUNNING",
    .profiles = STW_IN_DEBUG,
    .session = STW_SESSION_REQUIREMENT_REQUIRED,
    .invoke = console_logs_invoke,
  },
};

void
stw_core_tools_add_dialogs (StwToolProvider *provider)
{
  stw_core_tools_add_specs (provider, dialogs_specs, G_N_ELEMENTS (dialogs_specs));
}
