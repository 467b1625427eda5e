/* trace.c: the trace plugin — records every dispatched call, streaming
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A first slice of issue 17's trace plugin: trace_start {path},
 * trace_stop and trace_status. The recording is JSONL — a header, one
 * sequenced record per finished call, a footer — streamed to
 * `<path>.partial` (so a killed server leaves every whole record behind)
 * and renamed to `<path>` on stop. Arguments named like secrets are
 * redacted and eval code is stored as its SHA-256. Files are opened
 * through stw_dispatcher_open_file(), so --app-root confines them.
 *
 * Not yet: CDP traffic, console lines, screenshots, tokens and budgets,
 * replay, the Playwright and Chrome exports.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <stagewright/stagewright.h>

#define TRACE_FORMAT_VERSION 1

#define TRACE_TYPE_PLUGIN (trace_plugin_get_type ())
G_DECLARE_FINAL_TYPE (TracePlugin, trace_plugin, TRACE, PLUGIN, StwPlugin)

struct _TracePlugin
{
  StwPlugin  parent_instance;
  int        dir_fd;      /* the recording's directory, -1 unless recording */
  int        fd;          /* <name>.partial, -1 unless recording */
  char      *path;        /* the recording's final path */
  char      *name;        /* its basename */
  guint64    seq;         /* records written */
};

G_DEFINE_FINAL_TYPE (TracePlugin, trace_plugin, STW_TYPE_PLUGIN)

/* --- redaction ----------------------------------------------------------- */

static gboolean
is_secret_name (const char *name)
{
  static const char * const secrets[] = {
    "password", "passwd", "passphrase", "secret", "token", "apikey", "api_key",
    "authorization", "cookie", "credential", "privatekey", "private_key", NULL
  };
  g_autofree char *lower = g_ascii_strdown (name, -1);

  for (guint i = 0; secrets[i] != NULL; i++)
    if (strstr (lower, secrets[i]) != NULL)
      return TRUE;
  return FALSE;
}

static char *
sha256_of (const char *text)
{
  return g_compute_checksum_for_string (G_CHECKSUM_SHA256, text, -1);
}

/* A copy of @node with every member named like a secret replaced. */
static JsonNode *
redact (JsonNode *node)
{
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *in = json_node_get_object (node);
      JsonObject *out = json_object_new ();
      g_autoptr(GList) members = json_object_get_members (in);

      for (const GList *l = members; l != NULL; l = l->next)
        {
          if (is_secret_name (l->data))
            json_object_set_string_member (out, l->data, "[REDACTED]");
          else
            json_object_set_member (out, l->data, redact (json_object_get_member (in, l->data)));
        }
      JsonNode *copy = json_node_new (JSON_NODE_OBJECT);

      json_node_take_object (copy, out);
      return copy;
    }
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *in = json_node_get_array (node);
      JsonArray *out = json_array_new ();

      for (guint i = 0; i < json_array_get_length (in); i++)
        json_array_add_element (out, redact (json_array_get_element (in, i)));
      JsonNode *copy = json_node_new (JSON_NODE_ARRAY);

      json_node_take_array (copy, out);
      return copy;
    }
  return json_node_copy (node);
}

/* The arguments as recorded: secrets redacted, eval code as its hash. */
static JsonObject *
recorded_arguments (StwTool    *tool,
                    JsonObject *arguments)
{
  g_autoptr(JsonNode) in = json_node_init_object (json_node_alloc (), arguments);
  g_autoptr(JsonNode) out = redact (in);
  JsonObject *object = json_node_get_object (out);
  const char *code_argument = stw_tool_get_code_argument (tool);

  if (code_argument != NULL && json_object_has_member (arguments, code_argument))
    {
      JsonNode *code = json_object_get_member (arguments, code_argument);
      g_autofree char *hash = JSON_NODE_HOLDS_VALUE (code) && json_node_get_value_type (code) == G_TYPE_STRING
                              ? sha256_of (json_node_get_string (code)) : NULL;
      JsonObject *stored = json_object_new ();

      json_object_set_string_member (stored, "sha256", hash ? hash : "");
      json_object_set_object_member (object, code_argument, stored);
    }
  return json_object_ref (object);
}

/* --- the recording ------------------------------------------------------- */

static gboolean
write_all (int          fd,
           const char  *data,
           gsize        length,
           GError     **error)
{
  while (length > 0)
    {
      gssize n = write (fd, data, length);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved = errno;

          *error = stw_error_new ("trace.ARTIFACT_WRITE_FAILED", "Cannot write the recording: %s",
                                  g_strerror (saved));
          return FALSE;
        }
      data += n;
      length -= (gsize) n;
    }
  return TRUE;
}

/* One line; a record is whole or absent. */
static gboolean
write_record (TracePlugin  *self,
              JsonObject   *record,
              GError      **error)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), record);
  g_autofree char *text = json_to_string (node, FALSE);
  g_autofree char *line = g_strconcat (text, "\n", NULL);

  return write_all (self->fd, line, strlen (line), error);
}

static void
close_recording (TracePlugin *self)
{
  if (self->fd >= 0)
    close (self->fd);
  if (self->dir_fd >= 0)
    close (self->dir_fd);
  self->fd = -1;
  self->dir_fd = -1;
  g_clear_pointer (&self->path, g_free);
  g_clear_pointer (&self->name, g_free);
  self->seq = 0;
}

static gboolean
start_recording (TracePlugin    *self,
                 StwDispatcher  *dispatcher,
                 const char     *path,
                 GError        **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *name = g_path_get_basename (path);
  g_autofree char *partial = g_strconcat (name, ".partial", NULL);
  g_autoptr(JsonObject) header = json_object_new ();
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *started = g_date_time_format_iso8601 (now);
  int dir_fd;
  int fd;

  dir_fd = stw_dispatcher_open_file (dispatcher, dir, O_RDONLY | O_DIRECTORY, 0, error);
  if (dir_fd < 0)
    return FALSE;
  fd = openat (dir_fd, partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0)
    {
      int saved = errno;

      close (dir_fd);
      *error = stw_error_new ("trace.ARTIFACT_WRITE_FAILED", "Cannot create %s.partial: %s",
                              path, g_strerror (saved));
      return FALSE;
    }

  self->dir_fd = dir_fd;
  self->fd = fd;
  self->path = g_strdup (path);
  self->name = g_steal_pointer (&name);
  self->seq = 0;

  json_object_set_string_member (header, "type", "header");
  json_object_set_string_member (header, "format", "stagewright-trace");
  json_object_set_int_member (header, "version", TRACE_FORMAT_VERSION);
  json_object_set_string_member (header, "stagewright", stw_plugin_get_core_version ());
  json_object_set_string_member (header, "startedAt", started);
  if (!write_record (self, header, error))
    {
      unlinkat (self->dir_fd, partial, 0);
      close_recording (self);
      return FALSE;
    }
  return TRUE;
}

/* Footer, then <name>.partial becomes <name>, beneath the same directory. */
static gboolean
stop_recording (TracePlugin  *self,
                guint64      *records,
                GError      **error)
{
  g_autoptr(JsonObject) footer = json_object_new ();
  g_autofree char *partial = g_strconcat (self->name, ".partial", NULL);
  gboolean ok;

  json_object_set_string_member (footer, "type", "footer");
  json_object_set_int_member (footer, "records", (gint64) self->seq);
  *records = self->seq;
  ok = write_record (self, footer, error) && fsync (self->fd) == 0;
  if (ok && renameat (self->dir_fd, partial, self->dir_fd, self->name) != 0)
    {
      int saved = errno;

      *error = stw_error_new ("trace.ARTIFACT_WRITE_FAILED", "Cannot rename %s.partial: %s",
                              self->path, g_strerror (saved));
      ok = FALSE;
    }
  close_recording (self);
  return ok;
}

static void
on_call_finished (StwDispatcher *dispatcher,
                  StwInvocation *invocation,
                  JsonObject    *envelope,
                  gpointer       user_data)
{
  TracePlugin *self = TRACE_PLUGIN (user_data);
  StwTool *tool = stw_invocation_get_tool (invocation);
  g_autoptr(JsonObject) record = NULL;
  g_autoptr(JsonObject) arguments = NULL;
  g_autoptr(JsonNode) args_node = NULL;
  g_autofree char *args_text = NULL;
  g_autofree char *args_hash = NULL;
  g_autoptr(GError) error = NULL;
  gboolean ok;

  if (self->fd < 0 || g_str_has_prefix (stw_tool_get_name (tool), "trace_"))
    return;

  arguments = recorded_arguments (tool, stw_invocation_get_arguments (invocation));
  args_node = json_node_init_object (json_node_alloc (), arguments);
  args_text = json_to_string (args_node, FALSE);
  args_hash = sha256_of (args_text);
  ok = json_object_get_boolean_member_with_default (envelope, "ok", FALSE);

  record = json_object_new ();
  json_object_set_string_member (record, "type", "call");
  json_object_set_int_member (record, "seq", (gint64) ++self->seq);
  json_object_set_string_member (record, "tool", stw_tool_get_name (tool));
  json_object_set_object_member (record, "args", json_object_ref (arguments));
  json_object_set_string_member (record, "argsSha256", args_hash);
  json_object_set_boolean_member (record, "ok", ok);
  if (!ok && json_object_has_member (envelope, "code"))
    json_object_set_string_member (record, "code", json_object_get_string_member (envelope, "code"));
  json_object_set_int_member (record, "durationMs", stw_invocation_get_elapsed_ms (invocation));
  if (stw_invocation_get_session_id (invocation) != NULL)
    json_object_set_string_member (record, "sessionId", stw_invocation_get_session_id (invocation));

  if (!write_record (self, record, &error))
    g_message ("trace: %s; the recording stops", error->message);
  if (error != NULL)
    close_recording (self);
}

/* --- the tools ----------------------------------------------------------- */

typedef enum
{
  TRACE_START,
  TRACE_STOP,
  TRACE_STATUS,
} TraceAction;

#define TRACE_TYPE_TOOL (trace_tool_get_type ())
G_DECLARE_FINAL_TYPE (TraceTool, trace_tool, TRACE, TOOL, StwTool)

struct _TraceTool
{
  StwTool      parent_instance;
  TracePlugin *plugin;   /* weak: the plugin owns its tools */
  TraceAction  action;
};

G_DEFINE_FINAL_TYPE (TraceTool, trace_tool, STW_TYPE_TOOL)

static void
trace_tool_invoke (StwTool       *tool,
                   StwInvocation *invocation)
{
  TraceTool *self = TRACE_TOOL (tool);
  TracePlugin *plugin = self->plugin;
  JsonObject *arguments = stw_invocation_get_arguments (invocation);
  g_autoptr(JsonObject) payload = json_object_new ();
  g_autoptr(GError) error = NULL;
  guint64 records = 0;

  switch (self->action)
    {
    case TRACE_START:
      if (plugin->fd >= 0)
        {
          g_autoptr(GError) busy = stw_error_new ("trace.ALREADY_RECORDING", "Already recording to %s",
                                                  plugin->path);

          stw_invocation_return_error (invocation, busy);
          return;
        }
      if (!start_recording (plugin, stw_invocation_get_dispatcher (invocation),
                            json_object_get_string_member (arguments, "path"), &error))
        {
          stw_invocation_return_error (invocation, error);
          return;
        }
      json_object_set_string_member (payload, "path", plugin->path);
      json_object_set_boolean_member (payload, "recording", TRUE);
      break;

    case TRACE_STOP:
      if (plugin->fd < 0)
        {
          g_autoptr(GError) idle = stw_error_new_literal ("trace.NOT_RECORDING", "Nothing is being recorded");

          stw_invocation_return_error (invocation, idle);
          return;
        }
      json_object_set_string_member (payload, "path", plugin->path);
      if (!stop_recording (plugin, &records, &error))
        {
          stw_invocation_return_error (invocation, error);
          return;
        }
      json_object_set_int_member (payload, "records", (gint64) records);
      json_object_set_boolean_member (payload, "recording", FALSE);
      break;

    case TRACE_STATUS:
    default:
      json_object_set_boolean_member (payload, "recording", plugin->fd >= 0);
      if (plugin->fd >= 0)
        {
          json_object_set_string_member (payload, "path", plugin->path);
          json_object_set_int_member (payload, "records", (gint64) plugin->seq);
        }
      break;
    }
  stw_invocation_return_value (invocation, payload);
}

static void
trace_tool_class_init (TraceToolClass *klass)
{
  STW_TOOL_CLASS (klass)->invoke = trace_tool_invoke;
}

static void
trace_tool_init (TraceTool *self)
{
}

static void
add_tool (TracePlugin *plugin,
          TraceAction  action,
          const char  *name,
          const char  *title,
          const char  *description,
          const char  *schema_json,
          const char  *code)
{
  g_autoptr(StwSchema) schema = stw_schema_new_from_string (schema_json, NULL);
  const char *codes[] = { code, "ARTIFACT_WRITE_FAILED", NULL };
  TraceTool *tool = g_object_new (TRACE_TYPE_TOOL,
                                  "name", name,
                                  "title", title,
                                  "description", description,
                                  "input-schema", schema,
                                  "operation-type", action == TRACE_STATUS ? STW_OPERATION_QUERY
                                                                           : STW_OPERATION_COMMAND,
                                  "error-codes", code ? codes : NULL,
                                  "idempotent-hint", action == TRACE_STATUS,
                                  NULL);

  tool->plugin = plugin;
  tool->action = action;
  stw_tool_provider_add_tool (STW_TOOL_PROVIDER (plugin), STW_TOOL (tool), NULL);
  g_object_unref (tool);
}

/* --- the plugin ---------------------------------------------------------- */

static void
trace_plugin_setup (StwPlugin           *plugin,
                    StwPluginCompletion *completion)
{
  /* With the plugin as data: the engine disconnects it on unload. */
  g_signal_connect (stw_plugin_completion_get_dispatcher (completion), "call-finished",
                    G_CALLBACK (on_call_finished), plugin);
  stw_plugin_completion_return_success (completion);
}

static void
trace_plugin_teardown (StwPlugin           *plugin,
                       StwPluginCompletion *completion)
{
  TracePlugin *self = TRACE_PLUGIN (plugin);
  g_autoptr(GError) error = NULL;
  guint64 records;

  /* Unloading ends a recording as trace_stop would. */
  if (self->fd >= 0 && !stop_recording (self, &records, &error))
    {
      stw_plugin_completion_return_error (completion, error);
      return;
    }
  stw_plugin_completion_return_success (completion);
}

static void
trace_plugin_finalize (GObject *object)
{
  close_recording (TRACE_PLUGIN (object));
  G_OBJECT_CLASS (trace_plugin_parent_class)->finalize (object);
}

static void
trace_plugin_class_init (TracePluginClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = trace_plugin_finalize;
  STW_PLUGIN_CLASS (klass)->setup = trace_plugin_setup;
  STW_PLUGIN_CLASS (klass)->teardown = trace_plugin_teardown;
}

static void
trace_plugin_init (TracePlugin *self)
{
  StwToolProvider *provider = STW_TOOL_PROVIDER (self);

  self->fd = -1;
  self->dir_fd = -1;

  stw_tool_provider_add_error_code (provider, "ALREADY_RECORDING", 409, FALSE,
                                    "A recording is running; stop it with trace_stop first.", NULL);
  stw_tool_provider_add_error_code (provider, "NOT_RECORDING", 409, FALSE,
                                    "Nothing is being recorded; start with trace_start.", NULL);
  stw_tool_provider_add_error_code (provider, "ARTIFACT_WRITE_FAILED", 500, FALSE,
                                    "The recording could not be written; check the path and the disk.", NULL);

  add_tool (self, TRACE_START, "start", "Start recording",
            "Record every following tool call (arguments with secrets redacted, eval code as its "
            "SHA-256, result code, duration) as JSONL streamed to <path>.partial, renamed to <path> "
            "by trace_stop. The path obeys --app-root. Returns: {path, recording}.",
            "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\",\"minLength\":1}},"
            "\"required\":[\"path\"],\"additionalProperties\":false}",
            "ALREADY_RECORDING");
  add_tool (self, TRACE_STOP, "stop", "Stop recording",
            "End the recording: write its footer and rename <path>.partial to <path>. "
            "Returns: {path, records, recording}.",
            "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}",
            "NOT_RECORDING");
  add_tool (self, TRACE_STATUS, "status", "Recording status",
            "Whether a recording runs, where, and how many calls it holds. "
            "Returns: {recording, path?, records?}.",
            "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}",
            NULL);
}

StwPlugin *stw_plugin_module_create (void);

StwPlugin *
stw_plugin_module_create (void)
{
  return g_object_new (TRACE_TYPE_PLUGIN, "name", "trace", NULL);
}
