/* network-tools.c: the network plugin's MCP tools, thin adapters over its API
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each tool parses its JSON arguments, calls the StwNetworkPlugin
 * operation and turns the typed result into the answer its description
 * documents. Every check lives in the API, which C and Python call too.
 */
#include "stw-network-private.h"

typedef enum
{
  NETWORK_CAPTURE_START,
  NETWORK_CAPTURED,
  NETWORK_CAPTURE_STOP,
  NETWORK_EXPORT_HAR,
  NETWORK_STUB,
  NETWORK_UNSTUB,
  NETWORK_STUBS,
} NetworkAction;

#define NETWORK_TYPE_TOOL (network_tool_get_type ())
G_DECLARE_FINAL_TYPE (NetworkTool, network_tool, NETWORK, TOOL, StwTool)

struct _NetworkTool
{
  StwTool           parent_instance;
  StwNetworkPlugin *plugin;   /* weak: the plugin owns its tools */
  NetworkAction     action;
};

G_DEFINE_FINAL_TYPE (NetworkTool, network_tool, STW_TYPE_TOOL)

/* What a capture covers, in every answer that starts one. */
static JsonObject *
capabilities (void)
{
  JsonObject *object = json_object_new ();
  JsonArray *notes = json_array_new ();

  json_object_set_boolean_member (object, "windows", TRUE);
  json_object_set_boolean_member (object, "frames", TRUE);
  json_object_set_boolean_member (object, "webviews", TRUE);
  json_object_set_boolean_member (object, "serviceWorkers", TRUE);
  json_object_set_boolean_member (object, "mainProcess", FALSE);
  json_array_add_string_element (notes, "Service workers' own requests are captured (serviceWorker: true) and "
                                        "stubbed; a capture of one partition leaves them out (a worker has no "
                                        "window). A dedicated worker's are its page's; shared workers' are not "
                                        "captured.");
  json_array_add_string_element (notes, "Requests the main process makes (Node http/https/fetch, Electron "
                                        "net) never reach the renderers' DevTools: not captured or stubbed.");
  json_object_set_array_member (object, "notes", notes);
  return object;
}

static void
return_error (StwInvocation *invocation,
              GError        *error)
{
  stw_invocation_return_error (invocation, error);
  g_error_free (error);
}

static void
on_started (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  g_autoptr(JsonObject) answer = json_object_new ();
  GError *error = NULL;

  if (!stw_network_plugin_capture_start_finish (STW_NETWORK_PLUGIN (object), result, &error))
    {
      return_error (invocation, error);
      return;
    }
  json_object_set_boolean_member (answer, "capturing", TRUE);
  json_object_set_object_member (answer, "capabilities", capabilities ());
  stw_invocation_return_value (invocation, answer);
}

static void
on_page (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  NetworkTool *tool = NETWORK_TOOL (stw_invocation_get_tool (invocation));
  g_autoptr(StwNetworkPage) page = NULL;
  g_autoptr(JsonObject) answer = NULL;
  GError *error = NULL;

  page = tool->action == NETWORK_CAPTURED
         ? stw_network_plugin_captured_finish (STW_NETWORK_PLUGIN (object), result, &error)
         : stw_network_plugin_capture_stop_finish (STW_NETWORK_PLUGIN (object), result, &error);
  if (page == NULL)
    {
      return_error (invocation, error);
      return;
    }
  answer = _stw_network_page_to_json (page, tool->action == NETWORK_CAPTURED);
  stw_invocation_return_value (invocation, answer);
}

static void
on_exported (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  g_autoptr(JsonObject) answer = json_object_new ();
  GError *error = NULL;
  guint n_entries = 0;

  if (!stw_network_plugin_export_har_finish (STW_NETWORK_PLUGIN (object), result, &n_entries, &error))
    {
      return_error (invocation, error);
      return;
    }
  json_object_set_string_member (answer, "path",
                                 json_object_get_string_member (stw_invocation_get_arguments (invocation), "path"));
  json_object_set_int_member (answer, "entries", n_entries);
  stw_invocation_return_value (invocation, answer);
}

static JsonArray *
stubs_json (StwNetworkPlugin *plugin,
            StwSession       *session)
{
  g_autoptr(GPtrArray) stubs = stw_network_plugin_list_stubs (plugin, session);
  JsonArray *array = json_array_new ();

  for (guint i = 0; i < stubs->len; i++)
    json_array_add_object_element (array, stw_network_stub_to_json (stubs->pdata[i]));
  return array;
}

static void
on_stubbed (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  g_autoptr(StwNetworkStub) stub = NULL;
  g_autoptr(JsonObject) answer = NULL;
  GError *error = NULL;

  stub = stw_network_plugin_stub_finish (STW_NETWORK_PLUGIN (object), result, &error);
  if (stub == NULL)
    {
      return_error (invocation, error);
      return;
    }
  answer = stw_network_stub_to_json (stub);
  stw_invocation_return_value (invocation, answer);
}

static void
on_unstubbed (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  g_autoptr(JsonObject) answer = json_object_new ();
  GError *error = NULL;
  guint removed = stw_network_plugin_unstub_finish (STW_NETWORK_PLUGIN (object), result, &error);

  if (error != NULL)
    {
      return_error (invocation, error);
      return;
    }
  json_object_set_int_member (answer, "removed", removed);
  json_object_set_array_member (answer, "stubs",
                                stubs_json (STW_NETWORK_PLUGIN (object), stw_invocation_get_session (invocation)));
  stw_invocation_return_value (invocation, answer);
}

static const char *
string_arg (JsonObject *arguments,
            const char *member)
{
  return json_object_get_string_member_with_default (arguments, member, NULL);
}

static StwNetworkStub *
stub_from (JsonObject *arguments)
{
  g_autoptr(StwNetworkStub) stub = stw_network_stub_new (string_arg (arguments, "url"));
  JsonObject *headers = json_object_has_member (arguments, "headers")
                        ? json_object_get_object_member (arguments, "headers") : NULL;
  const char *body = string_arg (arguments, "body");

  stw_network_stub_set_method (stub, string_arg (arguments, "method"));
  stw_network_stub_set_status (stub, (guint) json_object_get_int_member_with_default (arguments, "status", 200));
  if (headers != NULL)
    {
      JsonObjectIter iter;
      const char *name;
      JsonNode *value;

      json_object_iter_init (&iter, headers);
      while (json_object_iter_next (&iter, &name, &value))
        stw_network_stub_set_header (stub, name, json_node_get_string (value));
    }
  if (body != NULL)
    {
      g_autoptr(GBytes) bytes = g_bytes_new (body, strlen (body));

      stw_network_stub_set_body (stub, bytes);
    }
  stw_network_stub_set_body_path (stub, string_arg (arguments, "bodyPath"));
  stw_network_stub_set_delay_ms (stub, (guint) json_object_get_int_member_with_default (arguments, "delayMs", 0));
  stw_network_stub_set_fail (stub, string_arg (arguments, "fail"));
  stw_network_stub_set_times (stub, (guint) json_object_get_int_member_with_default (arguments, "times", 0));
  return g_steal_pointer (&stub);
}

static void
network_tool_invoke (StwTool       *tool,
                     StwInvocation *invocation)
{
  NetworkTool *self = NETWORK_TOOL (tool);
  StwNetworkPlugin *plugin = self->plugin;
  JsonObject *arguments = stw_invocation_get_arguments (invocation);
  StwSession *session = stw_invocation_get_session (invocation);
  GCancellable *cancellable = stw_invocation_get_cancellable (invocation);

  if (session == NULL)
    {
      stw_invocation_return_error_literal (invocation, "NOT_RUNNING", "No app is running");
      return;
    }

  switch (self->action)
    {
    case NETWORK_CAPTURE_START:
      {
        JsonArray *urls = json_object_has_member (arguments, "urls")
                          ? json_object_get_array_member (arguments, "urls") : NULL;
        g_autoptr(GPtrArray) patterns = g_ptr_array_new ();
        const char *bodies = string_arg (arguments, "bodies");
        StwNetworkBodies mode = STW_NETWORK_BODIES_NONE;

        for (guint i = 0; urls != NULL && i < json_array_get_length (urls); i++)
          g_ptr_array_add (patterns, (gpointer) json_array_get_string_element (urls, i));
        g_ptr_array_add (patterns, NULL);
        if (g_strcmp0 (bodies, "text") == 0)
          mode = STW_NETWORK_BODIES_TEXT;
        else if (g_strcmp0 (bodies, "all") == 0)
          mode = STW_NETWORK_BODIES_ALL;
        stw_network_plugin_capture_start_async (plugin, session, (const char * const *) patterns->pdata, mode,
                                                (guint) json_object_get_int_member_with_default (arguments,
                                                                                                 "maxBodyBytes", 0),
                                                string_arg (arguments, "partition"), cancellable, on_started,
                                                g_object_ref (invocation));
      }
      break;

    case NETWORK_CAPTURED:
      stw_network_plugin_captured_async (plugin, session,
                                         (guint) json_object_get_int_member_with_default (arguments, "limit", 50),
                                         string_arg (arguments, "cursor"), string_arg (arguments, "url"),
                                         (int) json_object_get_int_member_with_default (arguments, "status", -1),
                                         string_arg (arguments, "type"), cancellable, on_page,
                                         g_object_ref (invocation));
      break;

    case NETWORK_CAPTURE_STOP:
      stw_network_plugin_capture_stop_async (plugin, session, cancellable, on_page, g_object_ref (invocation));
      break;

    case NETWORK_EXPORT_HAR:
      stw_network_plugin_export_har_async (plugin, session, string_arg (arguments, "path"), cancellable,
                                           on_exported, g_object_ref (invocation));
      break;

    case NETWORK_STUB:
      {
        g_autoptr(StwNetworkStub) stub = stub_from (arguments);

        stw_network_plugin_stub_async (plugin, session, stub, cancellable, on_stubbed, g_object_ref (invocation));
      }
      break;

    case NETWORK_UNSTUB:
      stw_network_plugin_unstub_async (plugin, session, string_arg (arguments, "id"), cancellable, on_unstubbed,
                                       g_object_ref (invocation));
      break;

    case NETWORK_STUBS:
      {
        g_autoptr(JsonObject) answer = json_object_new ();

        json_object_set_array_member (answer, "stubs", stubs_json (plugin, session));
        stw_invocation_return_value (invocation, answer);
      }
      break;

    default:
      g_assert_not_reached ();
    }
}

static void
network_tool_class_init (NetworkToolClass *klass)
{
  STW_TOOL_CLASS (klass)->invoke = network_tool_invoke;
}

static void
network_tool_init (NetworkTool *self)
{
}

static void
add_tool (StwNetworkPlugin   *plugin,
          NetworkAction       action,
          const char         *name,
          const char         *title,
          const char         *description,
          const char         *schema_json,
          StwOperationType    type,
          const char * const *codes)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(StwSchema) schema = stw_schema_new_from_string (schema_json, &error);
  NetworkTool *tool;

  g_assert_no_error (error);
  tool = g_object_new (NETWORK_TYPE_TOOL,
                       "name", name,
                       "title", title,
                       "description", description,
                       "input-schema", schema,
                       "operation-type", type,
                       "error-codes", codes,
                       "idempotent-hint", type == STW_OPERATION_QUERY,
                       "destructive-hint", action == NETWORK_STUB,
                       "session-requirement", STW_SESSION_REQUIREMENT_REQUIRED,
                       NULL);
  tool->plugin = plugin;
  tool->action = action;
  stw_tool_provider_add_tool (STW_TOOL_PROVIDER (plugin), STW_TOOL (tool), NULL);
  g_object_unref (tool);
}

#define SESSION_PROP "\"sessionId\":{\"type\":\"string\"}"
#define PATTERN "{\"type\":\"string\",\"minLength\":1,\"maxLength\":2048}"

void
_stw_network_plugin_add_tools (StwNetworkPlugin *self)
{
  StwToolProvider *provider = STW_TOOL_PROVIDER (self);
  static const char * const start_codes[] = { "UNSUPPORTED", "ALREADY_CAPTURING", "INVALID_PATTERN", NULL };
  static const char * const read_codes[] = { "NOT_CAPTURING", "INVALID_PATTERN", NULL };
  static const char * const stop_codes[] = { "NOT_CAPTURING", NULL };
  static const char * const stub_codes[] = { "UNSUPPORTED", "INVALID_PATTERN", NULL };
  static const char * const no_codes[] = { NULL };

  stw_tool_provider_add_error_code (provider, "UNSUPPORTED", 501, FALSE,
                                    "The session has no renderers (main process only), or a partition was "
                                    "asked for without the main process.", NULL);
  stw_tool_provider_add_error_code (provider, "ALREADY_CAPTURING", 409, FALSE,
                                    "A capture is running; stop it with network_capture_stop first.", NULL);
  stw_tool_provider_add_error_code (provider, "NOT_CAPTURING", 409, FALSE,
                                    "No capture was started; start one with network_capture_start.", NULL);
  stw_tool_provider_add_error_code (provider, "INVALID_PATTERN", 400, FALSE,
                                    "Use a glob (** any, * any but /, {a,b}) or /regex/flags.", NULL);

  add_tool (self, NETWORK_CAPTURE_START, "capture_start", "Capture network",
            "Capture the requests of every renderer (windows, frames, webviews, service workers; new ones "
            "from their first request), optionally only URLs matching urls (globs or /regex/) or one "
            "partition. bodies: keep none|text|all bodies, each up to maxBodyBytes (default 64 KiB, max "
            "1 MiB), in files. Secret headers are redacted. Returns: {capturing, capabilities}.",
            "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{" SESSION_PROP ","
            "\"urls\":{\"type\":\"array\",\"maxItems\":64,\"items\":" PATTERN "},"
            "\"bodies\":{\"enum\":[\"none\",\"text\",\"all\"]},"
            "\"maxBodyBytes\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1048576},"
            "\"partition\":{\"type\":\"string\",\"maxLength\":256}}}",
            STW_OPERATION_COMMAND, start_codes);
  add_tool (self, NETWORK_CAPTURED, "captured", "Captured requests",
            "A page of captured requests, oldest first, after cursor, filtered by url pattern, status (0: "
            "failed) and type (Document, Fetch, XHR, Image…). Returns: {capturing, total, dropped, "
            "entries[{id, url, method, type, status, failed?, stub?, durationMs, requestHeaders, "
            "responseHeaders, responseBody?{path,size,truncated}}], nextCursor?}.",
            "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{" SESSION_PROP ","
            "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":500},"
            "\"cursor\":{\"type\":\"string\",\"maxLength\":32},\"url\":" PATTERN ","
            "\"status\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":999},"
            "\"type\":{\"type\":\"string\",\"maxLength\":32}}}",
            STW_OPERATION_QUERY, read_codes);
  add_tool (self, NETWORK_CAPTURE_STOP, "capture_stop", "Stop capturing network",
            "Stop the capture; its entries stay readable and exportable. Returns: {capturing, total, dropped}.",
            "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{" SESSION_PROP "}}",
            STW_OPERATION_COMMAND, stop_codes);
  add_tool (self, NETWORK_EXPORT_HAR, "export_har", "Export HAR",
            "Write the capture as HAR 1.2 (timings, sizes, redirects, kept bodies) to path, an absolute "
            "*.har file. Returns: {path, entries}.",
            "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"path\"],\"properties\":{"
            SESSION_PROP ",\"path\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096}}}",
            STW_OPERATION_COMMAND, stop_codes);
  add_tool (self, NETWORK_STUB, "stub", "Stub requests",
            "Answer the renderers' requests matching url (glob or /regex/) and method with status, headers "
            "and body (or bodyPath) after delayMs, or fail them (failed, aborted, timedout, "
            "connectionrefused, namenotresolved…); times: only that many. The last stub registered wins. "
            "Returns: {id, url, matched, active, …}.",
            "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"url\"],\"properties\":{"
            SESSION_PROP ",\"url\":" PATTERN ",\"method\":{\"type\":\"string\",\"maxLength\":16},"
            "\"status\":{\"type\":\"integer\",\"minimum\":100,\"maximum\":599},"
            "\"headers\":{\"type\":\"object\","
            "\"additionalProperties\":{\"type\":\"string\",\"maxLength\":8192}},"
            "\"body\":{\"type\":\"string\",\"maxLength\":1048576},"
            "\"bodyPath\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096},"
            "\"delayMs\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":60000},"
            "\"fail\":{\"enum\":[\"failed\",\"aborted\",\"timedout\",\"accessdenied\",\"connectionclosed\","
            "\"connectionreset\",\"connectionrefused\",\"connectionaborted\",\"connectionfailed\","
            "\"namenotresolved\",\"internetdisconnected\",\"addressunreachable\",\"blockedbyclient\","
            "\"blockedbyresponse\"]},"
            "\"times\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000000}}}",
            STW_OPERATION_COMMAND, stub_codes);
  add_tool (self, NETWORK_UNSTUB, "unstub", "Remove stubs",
            "Remove the stub id, or every stub with all. Returns: {removed, stubs[]}.",
            "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{" SESSION_PROP ","
            "\"id\":{\"type\":\"string\",\"maxLength\":32},\"all\":{\"const\":true}},"
            "\"oneOf\":[{\"required\":[\"id\"]},{\"required\":[\"all\"]}]}",
            STW_OPERATION_COMMAND, no_codes);
  add_tool (self, NETWORK_STUBS, "stubs", "List stubs",
            "The stubs in registration order. Returns: {stubs[{id, url, method?, status|fail, times?, matched, "
            "active}]}.",
            "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{" SESSION_PROP "}}",
            STW_OPERATION_QUERY, no_codes);
}
