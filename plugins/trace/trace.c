/* trace.c: the trace plugin — records every dispatched call, streaming
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Issue 17's trace plugin. The recording is JSONL — a header, sequenced
 * records, a footer — streamed to `<path>.partial` (so a killed server
 * leaves every whole record behind) and renamed to `<path>` on stop:
 *
 *   call        one per finished tool call: arguments (secrets redacted,
 *               eval code as its SHA-256), ok/code/message, start and
 *               duration (µs from the recording's start), estimated tokens,
 *               the MCP client ("MCP client N", by the order of its first
 *               call: never its MCP session id) and the refs its answer
 *               gave, in document order (what replay maps refs by)
 *   cdp         one per DevTools round trip or event of the traced
 *               sessions (method, sizes, timing; bodies opt-in, capped),
 *               tied to the call in flight when it started and ended
 *   console     the driven app's console lines (Runtime.consoleAPICalled)
 *   screenshot  the file electron_screenshot wrote
 *
 * What happens during a call is held until the call ends, so text typed
 * into a password field (a typing call whose target is named like a
 * secret) is scrubbed from the call, from its CDP bodies
 * (Input.insertText, Runtime.callFunctionOn) and from later records
 * alike. Files are opened through stw_dispatcher_open_file(), so
 * --app-root confines them. Tokens are estimated as bytes / 4.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <gio/gunixinputstream.h>
#include <stagewright/stagewright.h>

#define TRACE_FORMAT_VERSION 1
#define DEFAULT_BODY_LIMIT 4096
#define MAX_RECORDING_BYTES (256 * 1024 * 1024)

#define TRACE_TYPE_PLUGIN (trace_plugin_get_type ())
G_DECLARE_FINAL_TYPE (TracePlugin, trace_plugin, TRACE, PLUGIN, StwPlugin)

/* A call in flight: what happens meanwhile is held until it ends. */
typedef struct
{
  StwInvocation *invocation;   /* unowned key */
  gint64         start_us;     /* monotonic */
  GPtrArray     *held;         /* Held*: cdp and console records */
} Flight;

/* A record held for the call in flight: an object, or (a CDP round trip
 * without bodies, the common case) its text so far, written without
 * building an object per CDP message: `{"type":"cdp",…` up to the
 * members emit adds ("call", "seq") and the closing brace. */
typedef struct
{
  JsonObject *object;
  GString    *text;
} Held;

struct _TracePlugin
{
  StwPlugin   parent_instance;
  int         dir_fd;      /* the recording's directory, -1 unless recording */
  int         fd;          /* <name>.partial, -1 unless recording */
  char       *path;        /* the recording's final path */
  char       *name;        /* its basename */
  guint64     seq;         /* records written */
  guint64     calls;       /* call records written */
  gint64      t0_us;       /* monotonic start of the recording */
  gboolean    bodies;      /* CDP bodies recorded */
  guint       body_limit;
  GPtrArray  *flights;     /* Flight*, in start order */
  GPtrArray  *secrets;     /* char*: text typed into password fields */
  GHashTable *clients;     /* MCP client id → "MCP client N", by first call */
  guint       observer;
  /* tokens and the budget */
  gint64      tokens;
  GHashTable *tokens_by_tool;   /* char* → gint64* */
  gint64      budget;           /* 0: none */
  gboolean    enforce;
  double      warn_threshold;
  gboolean    warned;
};

G_DEFINE_FINAL_TYPE (TracePlugin, trace_plugin, STW_TYPE_PLUGIN)

/* --- redaction ----------------------------------------------------------- */

static gboolean
is_secret_name (const char *name)
{
  static const char * const secrets[] = {
    "password", "passwd", "passphrase", "secret", "token", "apikey", "api_key",
    "authorization", "cookie", "credential", "privatekey", "private_key", "pin code", NULL
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

/* @text with every known secret replaced. */
static char *
scrub_text (TracePlugin *self,
            const char  *text)
{
  GString *out = NULL;

  for (guint i = 0; i < self->secrets->len; i++)
    {
      const char *secret = g_ptr_array_index (self->secrets, i);

      if (strstr (out ? out->str : text, secret) == NULL)
        continue;
      if (out == NULL)
        out = g_string_new (text);
      g_string_replace (out, secret, "[REDACTED]", 0);
    }
  return out ? g_string_free (out, FALSE) : g_strdup (text);
}

/* A copy of @node with every member named like a secret replaced, and
 * every known secret scrubbed from its strings. */
static JsonNode *
redact (TracePlugin *self,
        JsonNode    *node,
        gboolean     by_name)
{
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *in = json_node_get_object (node);
      JsonObject *out = json_object_new ();
      g_autoptr(GList) members = json_object_get_members (in);

      for (const GList *l = members; l != NULL; l = l->next)
        {
          if (by_name && is_secret_name (l->data))
            json_object_set_string_member (out, l->data, "[REDACTED]");
          else
            json_object_set_member (out, l->data, redact (self, json_object_get_member (in, l->data), by_name));
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
        json_array_add_element (out, redact (self, json_array_get_element (in, i), by_name));
      JsonNode *copy = json_node_new (JSON_NODE_ARRAY);

      json_node_take_array (copy, out);
      return copy;
    }
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING && self->secrets->len > 0)
    {
      g_autofree char *clean = scrub_text (self, json_node_get_string (node));
      JsonNode *copy = json_node_new (JSON_NODE_VALUE);

      json_node_set_string (copy, clean);
      return copy;
    }
  return json_node_copy (node);
}

/* By name for arguments and CDP bodies; a record's own members (tokens,
 * …) are only scrubbed of known secrets. */
static JsonObject *
redact_object (TracePlugin *self,
               JsonObject  *object,
               gboolean     by_name)
{
  g_autoptr(JsonNode) in = json_node_init_object (json_node_alloc (), object);
  g_autoptr(JsonNode) out = redact (self, in, by_name);

  return json_object_ref (json_node_get_object (out));
}

/* The typed text of a call that types into a field named like a secret
 * (its selector or label in the arguments, or the accessible name of the
 * target the answer names), or NULL. */
static const char *
typed_secret (JsonObject *arguments,
              JsonObject *envelope)
{
  const char *text = NULL;
  g_autoptr(JsonObject) others = json_object_new ();
  g_autoptr(JsonNode) others_node = NULL;
  g_autofree char *others_text = NULL;
  g_autoptr(GList) members = json_object_get_members (arguments);

  for (const GList *l = members; l != NULL; l = l->next)
    {
      JsonNode *member = json_object_get_member (arguments, l->data);

      if ((g_str_equal (l->data, "text") || g_str_equal (l->data, "value")) &&
          JSON_NODE_HOLDS_VALUE (member) && json_node_get_value_type (member) == G_TYPE_STRING)
        text = json_node_get_string (member);
      else
        json_object_set_member (others, l->data, json_node_copy (member));
    }
  if (text == NULL || *text == '\0')
    return NULL;

  others_node = json_node_init_object (json_node_alloc (), others);
  others_text = json_to_string (others_node, FALSE);
  if (is_secret_name (others_text))
    return text;
  if (envelope != NULL && json_object_has_member (envelope, "target") &&
      JSON_NODE_HOLDS_OBJECT (json_object_get_member (envelope, "target")))
    {
      g_autofree char *target = json_to_string (json_object_get_member (envelope, "target"), FALSE);

      if (is_secret_name (target))
        return text;
    }
  return NULL;
}

/* The arguments as recorded: secrets redacted, eval code as its hash. */
static JsonObject *
recorded_arguments (TracePlugin *self,
                    StwTool     *tool,
                    JsonObject  *arguments)
{
  JsonObject *object = redact_object (self, arguments, TRUE);
  const char *code_argument = stw_tool_get_code_argument (tool);
  JsonObject *config = stw_plugin_get_config (STW_PLUGIN (self));

  if (code_argument != NULL && json_object_has_member (arguments, code_argument) &&
      !json_object_get_boolean_member_with_default (config, "recordEvalCode", FALSE))
    {
      JsonNode *code = json_object_get_member (arguments, code_argument);
      g_autofree char *hash = JSON_NODE_HOLDS_VALUE (code) && json_node_get_value_type (code) == G_TYPE_STRING
                              ? sha256_of (json_node_get_string (code)) : NULL;
      JsonObject *stored = json_object_new ();

      json_object_set_string_member (stored, "sha256", hash ? hash : "");
      json_object_set_object_member (object, code_argument, stored);
    }
  return object;
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
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(GString) line = g_string_sized_new (256);

  json_generator_set_root (generator, node);
  json_generator_to_gstring (generator, line);
  /* json-glib 1.6 writes U+001F unescaped, and its parser refuses it:
   * the record, and every one after it, would be lost to export and
   * replay. Outside strings JSON has no control bytes. */
  if (memchr (line->str, 0x1f, line->len) != NULL)
    g_string_replace (line, "\x1f", "\\u001f", 0);
  g_string_append_c (line, '\n');
  return write_all (self->fd, line->str, line->len, error);
}

static void
held_free (Held *held)
{
  g_clear_pointer (&held->object, json_object_unref);
  if (held->text != NULL)
    g_string_free (held->text, TRUE);
  g_free (held);
}

static void
flight_free (Flight *flight)
{
  g_ptr_array_unref (flight->held);
  g_free (flight);
}

static void
close_recording (TracePlugin *self)
{
  if (self->observer != 0)
    stw_transport_remove_observer (self->observer);
  self->observer = 0;
  if (self->fd >= 0)
    close (self->fd);
  if (self->dir_fd >= 0)
    close (self->dir_fd);
  self->fd = -1;
  self->dir_fd = -1;
  g_clear_pointer (&self->path, g_free);
  g_clear_pointer (&self->name, g_free);
  g_ptr_array_set_size (self->flights, 0);
  g_ptr_array_set_size (self->secrets, 0);
  g_hash_table_remove_all (self->clients);
  self->seq = 0;
  self->calls = 0;
}

static gint64
rel_us (TracePlugin *self,
        gint64       monotonic_us)
{
  return monotonic_us - self->t0_us;
}

/* Writes a sequenced record (scrubbed of known secrets); a failure stops
 * the recording. */
static void
emit (TracePlugin *self,
      JsonObject  *record)
{
  /* A copy only when there is something to scrub. */
  g_autoptr(JsonObject) clean = self->secrets->len > 0 ? redact_object (self, record, FALSE)
                                                       : json_object_ref (record);
  g_autoptr(GError) error = NULL;

  json_object_set_int_member (clean, "seq", (gint64) ++self->seq);
  if (!write_record (self, clean, &error))
    {
      g_message ("trace: %s; the recording stops", error->message);
      close_recording (self);
    }
}

/* Writes a held record, tied to call number @call (0: none). */
static void
emit_held (TracePlugin *self,
           Held        *held,
           guint64      call)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *clean = NULL;
  GString *line = held->text;

  if (held->object != NULL)
    {
      if (call > 0)
        json_object_set_int_member (held->object, "call", (gint64) call);
      emit (self, held->object);
      return;
    }
  if (call > 0)
    g_string_append_printf (line, ",\"call\":%" G_GUINT64_FORMAT, call);
  g_string_append_printf (line, ",\"seq\":%" G_GUINT64_FORMAT "}\n", ++self->seq);
  if (self->secrets->len > 0)
    clean = scrub_text (self, line->str);
  if (!write_all (self->fd, clean ? clean : line->str, clean ? strlen (clean) : line->len, &error))
    {
      g_message ("trace: %s; the recording stops", error->message);
      close_recording (self);
    }
}

/* Holds @held (taken) for the call in flight that @start_us falls in
 * (the last started), or writes it now. */
static void
hold_or_emit (TracePlugin *self,
              Held        *held,
              gint64       start_us)
{
  for (guint i = self->flights->len; i > 0; i--)
    {
      Flight *flight = g_ptr_array_index (self->flights, i - 1);

      if (start_us >= flight->start_us)
        {
          g_ptr_array_add (flight->held, held);
          return;
        }
    }
  emit_held (self, held, 0);
  held_free (held);
}

static Held *
held_object (JsonObject *record)
{
  Held *held = g_new0 (Held, 1);

  held->object = json_object_ref (record);
  return held;
}

static void append_json_string (GString    *out,
                                const char *text);

/* A CDP round trip or event without bodies, as emit would write it. */
static Held *
held_cdp_text (TracePlugin               *self,
               const StwTransportTraffic *traffic)
{
  Held *held = g_new0 (Held, 1);
  GString *text = g_string_sized_new (192);

  g_string_append (text, "{\"type\":\"cdp\",\"method\":");
  append_json_string (text, traffic->method);
  g_string_append (text, traffic->is_event ? ",\"event\":true" : ",\"event\":false");
  if (traffic->session_id != NULL)
    {
      g_string_append (text, ",\"cdpSession\":");
      append_json_string (text, traffic->session_id);
    }
  g_string_append_printf (text, ",\"startUs\":%" G_GINT64_FORMAT ",\"durationUs\":%" G_GINT64_FORMAT
                          ",\"sentBytes\":%" G_GINT64_FORMAT ",\"receivedBytes\":%" G_GINT64_FORMAT,
                          rel_us (self, traffic->is_event ? traffic->received_us : traffic->sent_us),
                          traffic->is_event ? 0 : traffic->received_us - traffic->sent_us,
                          (gint64) traffic->sent_bytes, (gint64) traffic->received_bytes);
  if (traffic->failed)
    g_string_append (text, ",\"failed\":true");
  held->text = text;
  return held;
}

static JsonNode *
capped_body (TracePlugin *self,
             JsonObject  *body)
{
  g_autoptr(JsonNode) raw = json_node_init_object (json_node_alloc (), body);
  g_autoptr(JsonNode) node = redact (self, raw, TRUE);
  g_autofree char *text = json_to_string (node, FALSE);
  JsonNode *out;

  if (strlen (text) <= self->body_limit)
    return json_node_ref (node);
  out = json_node_new (JSON_NODE_VALUE);
  {
    g_autofree char *cut = g_strndup (text, self->body_limit);
    g_autofree char *marked = g_strconcat (cut, "…[truncated]", NULL);

    json_node_set_string (out, marked);
  }
  return out;
}

static void
on_traffic (StwTransport              *transport,
            const StwTransportTraffic *traffic,
            gpointer                   user_data)
{
  TracePlugin *self = TRACE_PLUGIN (user_data);
  g_autoptr(JsonObject) record = NULL;

  if (self->fd < 0)
    return;
  if (!self->bodies && !(traffic->is_event && g_str_equal (traffic->method, "Runtime.consoleAPICalled")))
    {
      hold_or_emit (self, held_cdp_text (self, traffic), traffic->is_event ? traffic->received_us : traffic->sent_us);
      return;
    }
  record = json_object_new ();

  if (traffic->is_event && g_str_equal (traffic->method, "Runtime.consoleAPICalled") && traffic->params != NULL)
    {
      JsonArray *args = json_object_has_member (traffic->params, "args")
                        ? json_object_get_array_member (traffic->params, "args") : NULL;
      GString *text = g_string_new (NULL);

      for (guint i = 0; args != NULL && i < json_array_get_length (args); i++)
        {
          JsonObject *arg = json_array_get_object_element (args, i);
          JsonNode *value = arg ? json_object_get_member (arg, "value") : NULL;

          if (i > 0)
            g_string_append_c (text, ' ');
          if (value != NULL && JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_STRING)
            g_string_append (text, json_node_get_string (value));
          else if (value != NULL)
            {
              g_autofree char *json = json_to_string (value, FALSE);
              g_string_append (text, json);
            }
          else if (arg != NULL && json_object_has_member (arg, "description"))
            g_string_append (text, json_object_get_string_member (arg, "description"));
        }
      json_object_set_string_member (record, "type", "console");
      json_object_set_string_member (record, "level",
                                     json_object_get_string_member_with_default (traffic->params, "type", "log"));
      json_object_set_string_member (record, "text", text->str);
      g_string_free (text, TRUE);
      json_object_set_int_member (record, "tUs", rel_us (self, traffic->received_us));
      if (traffic->session_id != NULL)
        json_object_set_string_member (record, "cdpSession", traffic->session_id);
      hold_or_emit (self, held_object (record), traffic->received_us);
      return;
    }

  json_object_set_string_member (record, "type", "cdp");
  json_object_set_string_member (record, "method", traffic->method);
  json_object_set_boolean_member (record, "event", traffic->is_event);
  if (traffic->session_id != NULL)
    json_object_set_string_member (record, "cdpSession", traffic->session_id);
  json_object_set_int_member (record, "startUs", rel_us (self, traffic->is_event ? traffic->received_us
                                                                                 : traffic->sent_us));
  json_object_set_int_member (record, "durationUs", traffic->is_event ? 0 : traffic->received_us - traffic->sent_us);
  json_object_set_int_member (record, "sentBytes", (gint64) traffic->sent_bytes);
  json_object_set_int_member (record, "receivedBytes", (gint64) traffic->received_bytes);
  if (traffic->failed)
    json_object_set_boolean_member (record, "failed", TRUE);
  if (self->bodies)
    {
      if (traffic->params != NULL)
        json_object_set_member (record, "params", capped_body (self, traffic->params));
      if (traffic->result != NULL)
        json_object_set_member (record, "result", capped_body (self, traffic->result));
    }
  hold_or_emit (self, held_object (record), traffic->is_event ? traffic->received_us : traffic->sent_us);
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
  self->calls = 0;
  self->t0_us = g_get_monotonic_time ();
  self->tokens = 0;
  self->warned = FALSE;
  g_hash_table_remove_all (self->tokens_by_tool);

  json_object_set_string_member (header, "type", "header");
  json_object_set_string_member (header, "format", "stagewright-trace");
  json_object_set_int_member (header, "version", TRACE_FORMAT_VERSION);
  json_object_set_string_member (header, "stagewright", stw_plugin_get_core_version ());
  json_object_set_string_member (header, "startedAt", started);
  json_object_set_int_member (header, "startedAtUs", g_get_real_time ());
  json_object_set_boolean_member (header, "bodies", self->bodies);
  if (!write_record (self, header, error))
    {
      unlinkat (self->dir_fd, partial, 0);
      close_recording (self);
      return FALSE;
    }
  self->observer = stw_transport_add_observer (on_traffic, self, NULL);
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

  /* What calls still in flight hold goes out now. */
  for (guint i = 0; i < self->flights->len; i++)
    {
      Flight *flight = g_ptr_array_index (self->flights, i);

      for (guint j = 0; j < flight->held->len && self->fd >= 0; j++)
        emit_held (self, g_ptr_array_index (flight->held, j), 0);
      g_ptr_array_set_size (flight->held, 0);
    }
  if (self->fd < 0)
    {
      *error = stw_error_new_literal ("trace.ARTIFACT_WRITE_FAILED", "The recording stopped on a write error");
      return FALSE;
    }

  json_object_set_string_member (footer, "type", "footer");
  json_object_set_int_member (footer, "records", (gint64) self->seq);
  json_object_set_int_member (footer, "calls", (gint64) self->calls);
  json_object_set_int_member (footer, "tokens", self->tokens);
  json_object_set_int_member (footer, "endUs", rel_us (self, g_get_monotonic_time ()));
  *records = self->calls;
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

static gboolean
is_own_tool (StwTool *tool)
{
  return g_str_has_prefix (stw_tool_get_name (tool), "trace_");
}

static void
on_call_started (StwDispatcher *dispatcher,
                 StwInvocation *invocation,
                 gpointer       user_data)
{
  TracePlugin *self = TRACE_PLUGIN (user_data);
  Flight *flight;

  if (self->fd < 0 || is_own_tool (stw_invocation_get_tool (invocation)))
    return;

  if (self->enforce && self->budget > 0 && self->tokens >= self->budget)
    {
      g_autoptr(GError) refused = stw_error_new ("trace.BUDGET_EXCEEDED",
                                                 "The token budget of %" G_GINT64_FORMAT " is spent (%"
                                                 G_GINT64_FORMAT " used); raise it with trace_budget",
                                                 self->budget, self->tokens);

      stw_invocation_return_error (invocation, refused);
      return;
    }
  flight = g_new0 (Flight, 1);
  flight->invocation = invocation;
  flight->start_us = g_get_monotonic_time ();
  flight->held = g_ptr_array_new_with_free_func ((GDestroyNotify) held_free);
  g_ptr_array_add (self->flights, flight);
}

/* The label of the MCP client that made @invocation, or NULL. A client's
 * id over HTTP is its credential: the recording names clients by the
 * order of their first call instead. */
static const char *
client_label (TracePlugin   *self,
              StwInvocation *invocation)
{
  const char *client = stw_invocation_get_client_id (invocation);
  char *label;

  if (client == NULL)
    return NULL;
  label = g_hash_table_lookup (self->clients, client);
  if (label == NULL)
    {
      label = g_strdup_printf ("MCP client %u", g_hash_table_size (self->clients) + 1);
      g_hash_table_insert (self->clients, g_strdup (client), label);
    }
  return label;
}

/* Whether @name is a member that holds a ref (a positive integer). */
static gboolean
is_ref_member (const char *name)
{
  return g_str_equal (name, "ref") || g_str_equal (name, "targetRef");
}

typedef void (*RefFunc) (JsonObject *object,
                         const char *member,
                         gint64      ref,
                         gpointer    user_data);

/* Calls @func for each ref in @node, in document order. */
static void
walk_refs (JsonNode *node,
           RefFunc   func,
           gpointer  user_data)
{
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *object = json_node_get_object (node);
      g_autoptr(GList) members = json_object_get_members (object);

      for (const GList *l = members; l != NULL; l = l->next)
        {
          JsonNode *member = json_object_get_member (object, l->data);

          if (is_ref_member (l->data) && JSON_NODE_HOLDS_VALUE (member) &&
              json_node_get_value_type (member) == G_TYPE_INT64)
            {
              g_autofree char *name = g_strdup (l->data);   /* setting it may free the key */

              func (object, name, json_node_get_int (member), user_data);
            }
          else
            walk_refs (member, func, user_data);
        }
    }
  else if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (array); i++)
        walk_refs (json_array_get_element (array, i), func, user_data);
    }
}

static void
add_ref (JsonObject *object,
         const char *member,
         gint64      ref,
         gpointer    user_data)
{
  json_array_add_int_element (user_data, ref);
}

/* The refs of @envelope, in document order, or NULL when it has none. */
static JsonArray *
envelope_refs (JsonObject *envelope)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), envelope);
  g_autoptr(JsonArray) refs = json_array_new ();

  walk_refs (node, add_ref, refs);
  return json_array_get_length (refs) > 0 ? g_steal_pointer (&refs) : NULL;
}

/* What json-glib's escaping adds to a byte: \b \t \n \f \r \" \\ one,
 * other control bytes five (\u00XX; U+001F too, as write_record()
 * writes it). */
static const guint8 escape_extra[256] = {
  [0x01 ... 0x07] = 5, ['\b'] = 1, ['\t'] = 1, ['\n'] = 1, [0x0b] = 5, ['\f'] = 1, ['\r'] = 1,
  [0x0e ... 0x1f] = 5, ['"'] = 1, ['\\'] = 1, [0x7f] = 5,
};

/* The length of @text written as a JSON string, quotes included. */
static gsize
json_string_length (const char *text)
{
  const guchar *p = (const guchar *) text;
  gsize extra = 2;

  for (; *p != '\0'; p++)
    extra += escape_extra[*p];
  return (gsize) (p - (const guchar *) text) + extra;
}

/* @text as a JSON string, written as json-glib writes it (and U+001F
 * escaped, as write_record() does). */
static void
append_json_string (GString    *out,
                    const char *text)
{
  g_string_append_c (out, '"');
  for (const guchar *p = (const guchar *) text; *p != '\0'; p++)
    {
      if (escape_extra[*p] == 0)
        g_string_append_c (out, (char) *p);
      else if (escape_extra[*p] == 1)
        {
          g_string_append_c (out, '\\');
          g_string_append_c (out, *p == '\b' ? 'b' : *p == '\t' ? 't' : *p == '\n' ? 'n' : *p == '\f' ? 'f'
                                  : *p == '\r' ? 'r' : (char) *p);
        }
      else
        g_string_append_printf (out, "\\u%04x", *p);
    }
  g_string_append_c (out, '"');
}

/* The length of @node written as compact JSON, counted without writing
 * it: a large snapshot's answer is tens of kB, and every call is
 * estimated. */
static gsize
json_text_length (JsonNode *node)
{
  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_OBJECT:
      {
        JsonObjectIter iter;
        const char *name;
        JsonNode *member;
        gsize length = 2;
        guint count = 0;

        json_object_iter_init (&iter, json_node_get_object (node));
        while (json_object_iter_next (&iter, &name, &member))
          length += (count++ > 0) + json_string_length (name) + 1 + json_text_length (member);
        return length;
      }
    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);
        guint count = json_array_get_length (array);
        gsize length = 2 + (count > 0 ? count - 1 : 0);

        for (guint i = 0; i < count; i++)
          length += json_text_length (json_array_get_element (array, i));
        return length;
      }
    case JSON_NODE_NULL:
      return 4;
    case JSON_NODE_VALUE:
    default:
      break;
    }
  switch (json_node_get_value_type (node))
    {
    case G_TYPE_STRING:
      return json_string_length (json_node_get_string (node));
    case G_TYPE_BOOLEAN:
      return json_node_get_boolean (node) ? 4 : 5;
    case G_TYPE_INT64:
      {
        gint64 value = json_node_get_int (node);
        guint64 magnitude = value < 0 ? (guint64) -(value + 1) + 1 : (guint64) value;
        gsize length = value < 0 ? 2 : 1;

        while (magnitude >= 10)
          {
            magnitude /= 10;
            length++;
          }
        return length;
      }
    case G_TYPE_DOUBLE:
      {
        char buffer[G_ASCII_DTOSTR_BUF_SIZE];

        /* json-glib writes 3.0 for 3 */
        g_ascii_formatd (buffer, sizeof buffer, "%.17g", json_node_get_double (node));
        return strlen (buffer) + (strpbrk (buffer, ".eEn") == NULL ? 2 : 0);
      }
    default:
      return 4;
    }
}

/* Tokens as bytes / 4 of the arguments and the answer as JSON. */
static gint64
estimate_tokens (JsonObject *arguments,
                 JsonObject *envelope)
{
  g_autoptr(JsonNode) a = json_node_init_object (json_node_alloc (), arguments);
  g_autoptr(JsonNode) e = json_node_init_object (json_node_alloc (), envelope);
  gsize length = json_text_length (a) + json_text_length (e);

  return (gint64) ((length + 3) / 4);
}

static void
on_call_finished (StwDispatcher *dispatcher,
                  StwInvocation *invocation,
                  JsonObject    *envelope,
                  gpointer       user_data)
{
  TracePlugin *self = TRACE_PLUGIN (user_data);
  StwTool *tool = stw_invocation_get_tool (invocation);
  JsonObject *raw_arguments = stw_invocation_get_arguments (invocation);
  g_autoptr(JsonObject) record = NULL;
  g_autoptr(JsonObject) arguments = NULL;
  g_autoptr(JsonNode) args_node = NULL;
  g_autofree char *args_text = NULL;
  g_autofree char *args_hash = NULL;
  Flight *flight = NULL;
  guint index = 0;
  gint64 now = g_get_monotonic_time ();
  gint64 start_us;
  gint64 tokens;
  gint64 *by_tool;
  const char *secret;
  const char *client;
  gboolean ok;

  if (self->fd < 0 || is_own_tool (tool))
    return;

  for (guint i = 0; i < self->flights->len; i++)
    if (((Flight *) g_ptr_array_index (self->flights, i))->invocation == invocation)
      {
        flight = g_ptr_array_index (self->flights, i);
        index = i;
        break;
      }
  start_us = flight ? flight->start_us : now - stw_invocation_get_elapsed_ms (invocation) * 1000;

  /* Typed into a password field: never recorded, anywhere, from now on. */
  secret = typed_secret (raw_arguments, envelope);
  if (secret != NULL)
    g_ptr_array_add (self->secrets, g_strdup (secret));

  arguments = recorded_arguments (self, tool, raw_arguments);
  args_node = json_node_init_object (json_node_alloc (), arguments);
  args_text = json_to_string (args_node, FALSE);
  args_hash = sha256_of (args_text);
  ok = json_object_get_boolean_member_with_default (envelope, "ok", FALSE);
  tokens = estimate_tokens (raw_arguments, envelope);
  self->tokens += tokens;
  by_tool = g_hash_table_lookup (self->tokens_by_tool, stw_tool_get_name (tool));
  if (by_tool == NULL)
    {
      by_tool = g_new0 (gint64, 1);
      g_hash_table_insert (self->tokens_by_tool, g_strdup (stw_tool_get_name (tool)), by_tool);
    }
  *by_tool += tokens;
  if (self->budget > 0 && !self->warned && self->tokens >= self->warn_threshold * (double) self->budget)
    {
      self->warned = TRUE;
      g_message ("trace: %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT " budgeted tokens used",
                 self->tokens, self->budget);
    }

  record = json_object_new ();
  json_object_set_string_member (record, "type", "call");
  json_object_set_int_member (record, "call", (gint64) ++self->calls);
  json_object_set_string_member (record, "tool", stw_tool_get_name (tool));
  json_object_set_object_member (record, "args", json_object_ref (arguments));
  json_object_set_string_member (record, "argsSha256", args_hash);
  if (secret != NULL)
    json_object_set_boolean_member (record, "redacted", TRUE);
  json_object_set_boolean_member (record, "ok", ok);
  if (!ok && json_object_has_member (envelope, "code"))
    json_object_set_string_member (record, "code", json_object_get_string_member (envelope, "code"));
  if (!ok && json_object_has_member (envelope, "message"))
    json_object_set_string_member (record, "message", json_object_get_string_member (envelope, "message"));
  json_object_set_int_member (record, "startUs", rel_us (self, start_us));
  json_object_set_int_member (record, "durationUs", now - start_us);
  json_object_set_int_member (record, "tokens", tokens);
  client = client_label (self, invocation);
  if (client != NULL)
    json_object_set_string_member (record, "client", client);
  if (stw_invocation_get_session_id (invocation) != NULL)
    json_object_set_string_member (record, "sessionId", stw_invocation_get_session_id (invocation));
  if (ok && json_object_has_member (envelope, "session_id") &&
      (g_str_equal (stw_tool_get_name (tool), "electron_launch") ||
       g_str_equal (stw_tool_get_name (tool), "electron_attach") ||
       g_str_equal (stw_tool_get_name (tool), "electron_inject")))
    json_object_set_string_member (record, "createdSession", json_object_get_string_member (envelope, "session_id"));
  if (ok)
    {
      JsonArray *refs = envelope_refs (envelope);

      /* What replay maps the refs of later calls by. */
      if (refs != NULL)
        json_object_set_array_member (record, "refs", refs);
    }
  emit (self, record);

  /* What happened during the call, after it (scrubbed with what the
   * call taught), then the screenshot it wrote. */
  if (flight != NULL)
    {
      for (guint i = 0; i < flight->held->len && self->fd >= 0; i++)
        emit_held (self, g_ptr_array_index (flight->held, i), self->calls);
      g_ptr_array_remove_index (self->flights, index);
    }
  if (self->fd >= 0 && ok && g_str_equal (stw_tool_get_name (tool), "electron_screenshot") &&
      json_object_has_member (envelope, "path"))
    {
      g_autoptr(JsonObject) shot = json_object_new ();

      json_object_set_string_member (shot, "type", "screenshot");
      json_object_set_int_member (shot, "call", (gint64) self->calls);
      json_object_set_string_member (shot, "path", json_object_get_string_member (envelope, "path"));
      json_object_set_int_member (shot, "tUs", rel_us (self, now));
      if (client != NULL)
        json_object_set_string_member (shot, "client", client);
      if (json_object_has_member (envelope, "width"))
        json_object_set_int_member (shot, "width", json_object_get_int_member (envelope, "width"));
      if (json_object_has_member (envelope, "height"))
        json_object_set_int_member (shot, "height", json_object_get_int_member (envelope, "height"));
      emit (self, shot);
    }
}

/* --- reading a recording ------------------------------------------------- */

/* The records of the recording at @path (or, when it is not there, of
 * @path.partial, up to its last whole record). */
static GPtrArray *
read_recording (StwDispatcher  *dispatcher,
                const char     *path,
                GError        **error)
{
  g_autoptr(GError) local = NULL;
  g_autofree char *partial = g_strconcat (path, ".partial", NULL);
  g_autoptr(GInputStream) stream = NULL;
  g_autoptr(GOutputStream) memory = NULL;
  g_autoptr(GPtrArray) records = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  g_auto(GStrv) lines = NULL;
  const char *data;
  int fd;

  fd = stw_dispatcher_open_file (dispatcher, path, O_RDONLY, 0, &local);
  if (fd < 0)
    {
      g_clear_error (&local);
      fd = stw_dispatcher_open_file (dispatcher, partial, O_RDONLY, 0, &local);
    }
  if (fd < 0)
    {
      if (g_error_matches (local, STW_ERROR, STW_ERROR_FILE_NOT_FOUND))
        *error = stw_error_new ("trace.ARTIFACT_NOT_FOUND", "No recording at %s (nor %s.partial)", path, path);
      else
        g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }
  stream = g_unix_input_stream_new (fd, TRUE);
  memory = g_memory_output_stream_new_resizable ();
  if (g_output_stream_splice (memory, stream, G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, NULL, &local) < 0)
    {
      *error = stw_error_new ("trace.ARTIFACT_INVALID", "Cannot read %s: %s", path, local->message);
      return NULL;
    }
  if (g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (memory)) > MAX_RECORDING_BYTES)
    {
      *error = stw_error_new ("trace.ARTIFACT_INVALID", "%s is larger than %d MiB", path, MAX_RECORDING_BYTES >> 20);
      return NULL;
    }
  g_output_stream_write (memory, "", 1, NULL, NULL);
  data = g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (memory));
  lines = g_strsplit (data, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(JsonNode) node = NULL;

      if (lines[i][0] == '\0')
        continue;
      node = json_from_string (lines[i], NULL);
      /* A killed server's last record may be cut: stop there. */
      if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
        break;
      g_ptr_array_add (records, json_object_ref (json_node_get_object (node)));
    }
  if (records->len == 0 ||
      g_strcmp0 (json_object_get_string_member_with_default (g_ptr_array_index (records, 0), "format", NULL),
                 "stagewright-trace") != 0)
    {
      *error = stw_error_new ("trace.ARTIFACT_INVALID", "%s is not a Stagewright recording", path);
      return NULL;
    }
  return g_steal_pointer (&records);
}

static const char *
record_type (JsonObject *record)
{
  return json_object_get_string_member_with_default (record, "type", "");
}

/* --- the Chrome export ---------------------------------------------------- */

static JsonObject *
trace_event (const char *name,
             const char *category,
             const char *phase,
             gint64      pid,
             gint64      ts)
{
  JsonObject *event = json_object_new ();

  json_object_set_string_member (event, "name", name);
  if (category != NULL)
    json_object_set_string_member (event, "cat", category);
  json_object_set_string_member (event, "ph", phase);
  json_object_set_int_member (event, "pid", pid);
  json_object_set_int_member (event, "tid", 1);
  json_object_set_int_member (event, "ts", ts);
  return event;
}

static JsonObject *
process_name (gint64      pid,
              const char *name)
{
  JsonObject *event = trace_event ("process_name", NULL, "M", pid, 0);
  JsonObject *args = json_object_new ();

  json_object_set_string_member (args, "name", name);
  json_object_set_object_member (event, "args", args);
  return event;
}

/* The track (process) named @name, added to @events on first use. */
static gint64
track (JsonArray  *events,
       GHashTable *tracks,
       const char *name)
{
  gint64 pid = GPOINTER_TO_SIZE (g_hash_table_lookup (tracks, name));

  if (pid == 0)
    {
      pid = g_hash_table_size (tracks) + 1;
      g_hash_table_insert (tracks, g_strdup (name), GSIZE_TO_POINTER ((gsize) pid));
      json_array_add_object_element (events, process_name (pid, name));
    }
  return pid;
}

/* The track of a call or screenshot record: its MCP client's. */
static gint64
client_track (JsonArray  *events,
              GHashTable *tracks,
              JsonObject *record)
{
  return track (events, tracks, json_object_get_string_member_with_default (record, "client", "MCP client"));
}

/* Chrome Trace Event JSON: one track (process) per MCP client for its
 * calls (recordings without clients: one "MCP client" track) and one per
 * driven app (CDP session), calls and round trips as async nestable b/e
 * pairs sharing an id, console lines and screenshots as instant events. */
static GBytes *
export_chrome (GPtrArray *records)
{
  g_autoptr(JsonArray) events = json_array_new ();
  g_autoptr(GHashTable) tracks = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(JsonObject) root = json_object_new ();
  g_autoptr(JsonNode) node = NULL;
  char *text;

  for (guint i = 0; i < records->len; i++)
    {
      JsonObject *record = g_ptr_array_index (records, i);
      const char *type = record_type (record);
      g_autofree char *id = NULL;

      if (g_str_equal (type, "call"))
        {
          gint64 start = json_object_get_int_member_with_default (record, "startUs", 0);
          gint64 end = start + json_object_get_int_member_with_default (record, "durationUs", 0);
          const char *tool = json_object_get_string_member_with_default (record, "tool", "call");
          gint64 pid = client_track (events, tracks, record);
          JsonObject *begin = trace_event (tool, "call", "b", pid, start);
          JsonObject *finish = trace_event (tool, "call", "e", pid, end);
          JsonObject *args = json_object_new ();

          id = g_strdup_printf ("call-%" G_GINT64_FORMAT, json_object_get_int_member_with_default (record, "call", 0));
          json_object_set_string_member (begin, "id", id);
          json_object_set_string_member (finish, "id", id);
          json_object_set_boolean_member (args, "ok", json_object_get_boolean_member_with_default (record, "ok", FALSE));
          if (json_object_has_member (record, "code"))
            json_object_set_string_member (args, "code", json_object_get_string_member (record, "code"));
          json_object_set_int_member (args, "tokens", json_object_get_int_member_with_default (record, "tokens", 0));
          if (json_object_has_member (record, "args"))
            json_object_set_member (args, "arguments", json_node_copy (json_object_get_member (record, "args")));
          json_object_set_object_member (begin, "args", args);
          json_array_add_object_element (events, begin);
          json_array_add_object_element (events, finish);
        }
      else if (g_str_equal (type, "cdp") || g_str_equal (type, "console"))
        {
          const char *session = json_object_get_string_member_with_default (record, "cdpSession", "browser");
          g_autofree char *app = g_strdup_printf ("app %s", session);
          gint64 pid = track (events, tracks, app);
          gboolean cdp = g_str_equal (type, "cdp");

          if (cdp && !json_object_get_boolean_member_with_default (record, "event", FALSE))
            {
              gint64 start = json_object_get_int_member_with_default (record, "startUs", 0);
              gint64 end = start + json_object_get_int_member_with_default (record, "durationUs", 0);
              const char *method = json_object_get_string_member_with_default (record, "method", "cdp");
              JsonObject *begin = trace_event (method, "cdp", "b", pid, start);
              JsonObject *finish = trace_event (method, "cdp", "e", pid, end);
              JsonObject *args = json_object_new ();

              id = g_strdup_printf ("cdp-%" G_GINT64_FORMAT, json_object_get_int_member_with_default (record, "seq", 0));
              json_object_set_string_member (begin, "id", id);
              json_object_set_string_member (finish, "id", id);
              if (json_object_has_member (record, "call"))
                json_object_set_int_member (args, "call", json_object_get_int_member (record, "call"));
              json_object_set_int_member (args, "sentBytes", json_object_get_int_member_with_default (record, "sentBytes", 0));
              json_object_set_int_member (args, "receivedBytes",
                                          json_object_get_int_member_with_default (record, "receivedBytes", 0));
              json_object_set_object_member (begin, "args", args);
              json_array_add_object_element (events, begin);
              json_array_add_object_element (events, finish);
            }
          else
            {
              const char *name = cdp ? json_object_get_string_member_with_default (record, "method", "event")
                                     : json_object_get_string_member_with_default (record, "text", "");
              JsonObject *instant = trace_event (name, type, "i",
                                                 pid, json_object_get_int_member_with_default (record,
                                                                                               cdp ? "startUs" : "tUs", 0));

              json_object_set_string_member (instant, "s", "p");
              json_array_add_object_element (events, instant);
            }
        }
      else if (g_str_equal (type, "screenshot"))
        {
          JsonObject *instant = trace_event ("screenshot", "screenshot", "i", client_track (events, tracks, record),
                                             json_object_get_int_member_with_default (record, "tUs", 0));
          JsonObject *args = json_object_new ();

          json_object_set_string_member (instant, "s", "p");
          json_object_set_string_member (args, "path", json_object_get_string_member_with_default (record, "path", ""));
          json_object_set_object_member (instant, "args", args);
          json_array_add_object_element (events, instant);
        }
    }
  json_object_set_array_member (root, "traceEvents", json_array_ref (events));
  json_object_set_string_member (root, "displayTimeUnit", "ms");
  node = json_node_init_object (json_node_alloc (), root);
  text = json_to_string (node, FALSE);
  return g_bytes_new_take (text, strlen (text));
}

/* --- the Playwright export ------------------------------------------------ */

static void
add_line (GString    *out,
          JsonObject *event)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), event);
  g_autofree char *text = json_to_string (node, FALSE);

  g_string_append (out, text);
  g_string_append_c (out, '\n');
  json_object_unref (event);
}

static gboolean
zip_add (struct archive  *zip,
         const char      *name,
         const void      *data,
         gsize            size,
         GError         **error)
{
  struct archive_entry *entry = archive_entry_new ();
  gboolean ok;

  archive_entry_set_pathname (entry, name);
  archive_entry_set_size (entry, (la_int64_t) size);
  archive_entry_set_filetype (entry, AE_IFREG);
  archive_entry_set_perm (entry, 0644);
  ok = archive_write_header (zip, entry) == ARCHIVE_OK &&
       (size == 0 || archive_write_data (zip, data, size) == (la_ssize_t) size);
  archive_entry_free (entry);
  if (!ok)
    *error = stw_error_new ("trace.ARTIFACT_WRITE_FAILED", "Cannot write %s into the zip: %s", name,
                            archive_error_string (zip) ?: "unknown error");
  return ok;
}

/* A screenshot the recording names, read through the confined open. */
static GBytes *
read_image (StwDispatcher *dispatcher,
            const char    *path)
{
  g_autoptr(GInputStream) stream = NULL;
  g_autoptr(GOutputStream) memory = NULL;
  int fd = stw_dispatcher_open_file (dispatcher, path, O_RDONLY, 0, NULL);

  if (fd < 0)
    return NULL;
  stream = g_unix_input_stream_new (fd, TRUE);
  memory = g_memory_output_stream_new_resizable ();
  if (g_output_stream_splice (memory, stream, G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, NULL, NULL) < 0)
    return NULL;
  return g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (memory));
}

/* Playwright's trace.zip (the format of packages/trace/src/trace.ts,
 * version 8, which the viewer migrates): trace.trace holds the context,
 * one before/after pair per call (its arguments, duration and error), the
 * console lines and the screenshots as screencast frames of one page;
 * trace.network is empty; resources/ holds the images by SHA-1. */
static gboolean
export_playwright (StwDispatcher  *dispatcher,
                   GPtrArray      *records,
                   const char     *path,
                   GError        **error)
{
  JsonObject *header = g_ptr_array_index (records, 0);
  g_autoptr(GString) trace = g_string_new (NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) images = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  JsonObject *event;
  struct archive *zip;
  gboolean ok;
  int fd;

  event = json_object_new ();
  json_object_set_int_member (event, "version", 8);
  json_object_set_string_member (event, "type", "context-options");
  json_object_set_string_member (event, "origin", "library");
  json_object_set_string_member (event, "browserName", "chromium");
  json_object_set_string_member (event, "platform", "linux");
  json_object_set_string_member (event, "title", "Stagewright recording");
  json_object_set_double_member (event, "wallTime",
                                 (double) json_object_get_int_member_with_default (header, "startedAtUs", 0) / 1000.0);
  json_object_set_double_member (event, "monotonicTime", 0);
  json_object_set_string_member (event, "sdkLanguage", "javascript");
  json_object_set_object_member (event, "options", json_object_new ());
  json_object_set_string_member (event, "contextId", "stagewright");
  add_line (trace, event);

  for (guint i = 1; i < records->len; i++)
    {
      JsonObject *record = g_ptr_array_index (records, i);
      const char *type = record_type (record);

      if (g_str_equal (type, "call"))
        {
          gint64 call = json_object_get_int_member_with_default (record, "call", 0);
          double start = (double) json_object_get_int_member_with_default (record, "startUs", 0) / 1000.0;
          double end = start + (double) json_object_get_int_member_with_default (record, "durationUs", 0) / 1000.0;
          const char *tool = json_object_get_string_member_with_default (record, "tool", "call");
          g_autofree char *id = g_strdup_printf ("call@%" G_GINT64_FORMAT, call);

          event = json_object_new ();
          json_object_set_string_member (event, "type", "before");
          json_object_set_string_member (event, "callId", id);
          json_object_set_string_member (event, "stepId", id);
          json_object_set_double_member (event, "startTime", start);
          json_object_set_string_member (event, "apiName", tool);
          json_object_set_string_member (event, "class", "Stagewright");
          json_object_set_string_member (event, "method", tool);
          json_object_set_string_member (event, "pageId", "page@1");
          if (json_object_has_member (record, "args"))
            json_object_set_member (event, "params", json_node_copy (json_object_get_member (record, "args")));
          add_line (trace, event);

          event = json_object_new ();
          json_object_set_string_member (event, "type", "after");
          json_object_set_string_member (event, "callId", id);
          json_object_set_double_member (event, "endTime", end);
          if (!json_object_get_boolean_member_with_default (record, "ok", FALSE))
            {
              JsonObject *failure = json_object_new ();
              g_autofree char *message = g_strdup_printf ("%s: %s",
                                                          json_object_get_string_member_with_default (record, "code", "ERROR"),
                                                          json_object_get_string_member_with_default (record, "message", ""));

              json_object_set_string_member (failure, "name", json_object_get_string_member_with_default (record, "code", "Error"));
              json_object_set_string_member (failure, "message", message);
              json_object_set_object_member (event, "error", failure);
            }
          add_line (trace, event);
        }
      else if (g_str_equal (type, "console"))
        {
          JsonObject *location = json_object_new ();

          event = json_object_new ();
          json_object_set_string_member (event, "type", "console");
          json_object_set_double_member (event, "time",
                                         (double) json_object_get_int_member_with_default (record, "tUs", 0) / 1000.0);
          json_object_set_string_member (event, "pageId", "page@1");
          json_object_set_string_member (event, "messageType",
                                         json_object_get_string_member_with_default (record, "level", "log"));
          json_object_set_string_member (event, "text", json_object_get_string_member_with_default (record, "text", ""));
          json_object_set_array_member (event, "args", json_array_new ());
          json_object_set_string_member (location, "url", "");
          json_object_set_int_member (location, "lineNumber", 0);
          json_object_set_int_member (location, "columnNumber", 0);
          json_object_set_object_member (event, "location", location);
          add_line (trace, event);
        }
      else if (g_str_equal (type, "screenshot"))
        {
          g_autoptr(GBytes) image = read_image (dispatcher, json_object_get_string_member_with_default (record, "path", ""));
          g_autofree char *sha1 = NULL;
          const char *suffix;

          if (image == NULL)
            continue;
          suffix = g_str_has_suffix (json_object_get_string_member (record, "path"), ".png") ? ".png" : ".jpeg";
          {
            g_autofree char *digest = g_compute_checksum_for_bytes (G_CHECKSUM_SHA1, image);

            sha1 = g_strconcat (digest, suffix, NULL);
          }
          event = json_object_new ();
          json_object_set_string_member (event, "type", "screencast-frame");
          json_object_set_string_member (event, "pageId", "page@1");
          json_object_set_string_member (event, "sha1", sha1);
          json_object_set_int_member (event, "width", json_object_get_int_member_with_default (record, "width", 0));
          json_object_set_int_member (event, "height", json_object_get_int_member_with_default (record, "height", 0));
          json_object_set_double_member (event, "timestamp",
                                         (double) json_object_get_int_member_with_default (record, "tUs", 0) / 1000.0);
          add_line (trace, event);
          g_ptr_array_add (names, g_strconcat ("resources/", sha1, NULL));
          g_ptr_array_add (images, g_bytes_ref (image));
        }
    }

  fd = stw_dispatcher_open_file (dispatcher, path, O_WRONLY | O_CREAT | O_TRUNC, 0644, error);
  if (fd < 0)
    return FALSE;
  zip = archive_write_new ();
  ok = archive_write_set_format_zip (zip) == ARCHIVE_OK && archive_write_open_fd (zip, fd) == ARCHIVE_OK;
  if (!ok)
    *error = stw_error_new ("trace.ARTIFACT_WRITE_FAILED", "Cannot start the zip %s: %s", path,
                            archive_error_string (zip) ?: "unknown error");
  ok = ok && zip_add (zip, "trace.trace", trace->str, trace->len, error) &&
       zip_add (zip, "trace.network", "", 0, error);
  for (guint i = 0; ok && i < images->len; i++)
    ok = zip_add (zip, g_ptr_array_index (names, i), g_bytes_get_data (g_ptr_array_index (images, i), NULL),
                  g_bytes_get_size (g_ptr_array_index (images, i)), error);
  if (archive_write_close (zip) != ARCHIVE_OK && ok)
    {
      *error = stw_error_new ("trace.ARTIFACT_WRITE_FAILED", "Cannot finish the zip %s: %s", path,
                              archive_error_string (zip) ?: "unknown error");
      ok = FALSE;
    }
  archive_write_free (zip);
  close (fd);
  return ok;
}

/* --- replay ---------------------------------------------------------------- */

typedef struct
{
  StwInvocation *invocation;   /* trace_replay's */
  StwDispatcher *dispatcher;
  GPtrArray     *calls;        /* JsonObject*: the recording's call records */
  guint          next;
  GHashTable    *sessions;     /* recorded session id → replayed one */
  GHashTable    *refs;         /* "<recorded session id> <recorded ref>" → replayed ref */
  JsonArray     *results;
  guint          matched;
  guint          mismatched;
  guint          skipped;
} Replay;

static void
replay_free (Replay *replay)
{
  g_clear_object (&replay->invocation);
  g_clear_object (&replay->dispatcher);
  g_ptr_array_unref (replay->calls);
  g_hash_table_unref (replay->sessions);
  g_hash_table_unref (replay->refs);
  json_array_unref (replay->results);
  g_free (replay);
}

static gboolean
was_redacted (JsonNode *node)
{
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *object = json_node_get_object (node);
      g_autoptr(GList) members = json_object_get_members (object);

      if (json_object_get_size (object) == 1 && json_object_has_member (object, "sha256"))
        return TRUE;
      for (const GList *l = members; l != NULL; l = l->next)
        if (was_redacted (json_object_get_member (object, l->data)))
          return TRUE;
      return FALSE;
    }
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (array); i++)
        if (was_redacted (json_array_get_element (array, i)))
          return TRUE;
      return FALSE;
    }
  return JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING &&
         strstr (json_node_get_string (node), "[REDACTED]") != NULL;
}

static void replay_next (Replay *replay);

static char *
ref_key (JsonObject *call,
         gint64      ref)
{
  return g_strdup_printf ("%s %" G_GINT64_FORMAT,
                          json_object_get_string_member_with_default (call, "sessionId", ""), ref);
}

/* Refs by the order they were given: the recorded answer's nth ref is
 * the replayed answer's nth. */
static void
learn_refs (Replay     *replay,
            JsonObject *call,
            JsonObject *envelope)
{
  JsonNode *recorded = json_object_get_member (call, "refs");
  g_autoptr(JsonArray) replayed = NULL;
  JsonArray *old;

  if (recorded == NULL || !JSON_NODE_HOLDS_ARRAY (recorded))
    return;
  old = json_node_get_array (recorded);
  replayed = envelope_refs (envelope);
  for (guint i = 0; replayed != NULL && i < json_array_get_length (old) && i < json_array_get_length (replayed); i++)
    {
      JsonNode *element = json_array_get_element (old, i);

      if (JSON_NODE_HOLDS_VALUE (element) && json_node_get_value_type (element) == G_TYPE_INT64)
        g_hash_table_insert (replay->refs, ref_key (call, json_node_get_int (element)),
                             g_memdup2 (&(gint64) { json_array_get_int_element (replayed, i) }, sizeof (gint64)));
    }
}

typedef struct
{
  Replay     *replay;
  JsonObject *call;
} RefMapping;

/* A recorded ref replaced by the replayed one. */
static void
map_ref (JsonObject *object,
         const char *member,
         gint64      ref,
         gpointer    user_data)
{
  RefMapping *mapping = user_data;
  g_autofree char *key = ref_key (mapping->call, ref);
  gint64 *mapped = g_hash_table_lookup (mapping->replay->refs, key);

  if (mapped != NULL)
    json_object_set_int_member (object, member, *mapped);
}

static void
replay_report (Replay     *replay,
               JsonObject *call,
               const char *status,
               JsonObject *actual)
{
  JsonObject *result = json_object_new ();
  JsonObject *expected = json_object_new ();

  json_object_set_int_member (result, "call", json_object_get_int_member_with_default (call, "call", 0));
  json_object_set_string_member (result, "tool", json_object_get_string_member_with_default (call, "tool", ""));
  json_object_set_string_member (result, "status", status);
  json_object_set_boolean_member (expected, "ok", json_object_get_boolean_member_with_default (call, "ok", FALSE));
  if (json_object_has_member (call, "code"))
    json_object_set_string_member (expected, "code", json_object_get_string_member (call, "code"));
  json_object_set_object_member (result, "expected", expected);
  if (actual != NULL)
    {
      JsonObject *got = json_object_new ();

      json_object_set_boolean_member (got, "ok", json_object_get_boolean_member_with_default (actual, "ok", FALSE));
      if (json_object_has_member (actual, "code"))
        json_object_set_string_member (got, "code", json_object_get_string_member (actual, "code"));
      json_object_set_object_member (result, "actual", got);
    }
  json_array_add_object_element (replay->results, result);
}

static void
on_replayed (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  Replay *replay = user_data;
  JsonObject *call = g_ptr_array_index (replay->calls, replay->next - 1);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) envelope = stw_dispatcher_invoke_finish (STW_DISPATCHER (object), result, &error);
  gboolean expected_ok = json_object_get_boolean_member_with_default (call, "ok", FALSE);
  gboolean ok;

  if (envelope == NULL)
    {
      envelope = json_object_new ();
      json_object_set_boolean_member (envelope, "ok", FALSE);
      json_object_set_string_member (envelope, "code", "INTERNAL_ERROR");
    }
  ok = json_object_get_boolean_member_with_default (envelope, "ok", FALSE);
  if (ok == expected_ok &&
      (ok || g_strcmp0 (json_object_get_string_member_with_default (call, "code", NULL),
                        json_object_get_string_member_with_default (envelope, "code", NULL)) == 0))
    {
      replay->matched++;
      replay_report (replay, call, "matched", envelope);
    }
  else
    {
      replay->mismatched++;
      replay_report (replay, call, "mismatch", envelope);
    }
  if (ok)
    learn_refs (replay, call, envelope);
  if (ok && json_object_has_member (call, "createdSession") && json_object_has_member (envelope, "session_id"))
    g_hash_table_insert (replay->sessions, g_strdup (json_object_get_string_member (call, "createdSession")),
                         g_strdup (json_object_get_string_member (envelope, "session_id")));
  replay_next (replay);
}

static void
replay_next (Replay *replay)
{
  JsonObject *call;
  JsonNode *args_node;
  g_autoptr(JsonObject) args = NULL;
  g_autoptr(StwInvocation) invocation = NULL;
  g_autoptr(GError) error = NULL;

  if (replay->next >= replay->calls->len)
    {
      g_autoptr(JsonObject) payload = json_object_new ();

      json_object_set_int_member (payload, "matched", replay->matched);
      json_object_set_int_member (payload, "mismatched", replay->mismatched);
      json_object_set_int_member (payload, "notReplayable", replay->skipped);
      json_object_set_array_member (payload, "calls", json_array_ref (replay->results));
      {
        JsonObject *sessions = json_object_new ();
        GHashTableIter iter;
        gpointer key, value;

        g_hash_table_iter_init (&iter, replay->sessions);
        while (g_hash_table_iter_next (&iter, &key, &value))
          json_object_set_string_member (sessions, key, value);
        json_object_set_object_member (payload, "sessions", sessions);
      }
      stw_invocation_return_value (replay->invocation, payload);
      replay_free (replay);
      return;
    }
  call = g_ptr_array_index (replay->calls, replay->next++);
  args_node = json_object_get_member (call, "args");
  if (args_node == NULL || !JSON_NODE_HOLDS_OBJECT (args_node) || was_redacted (args_node) ||
      json_object_get_boolean_member_with_default (call, "redacted", FALSE))
    {
      replay->skipped++;
      replay_report (replay, call, "not replayable", NULL);
      replay_next (replay);
      return;
    }
  {
    g_autofree char *text = json_to_string (args_node, FALSE);
    g_autoptr(JsonNode) copy = json_from_string (text, NULL);

    walk_refs (copy, map_ref, &(RefMapping) { replay, call });
    args = json_object_ref (json_node_get_object (copy));
  }
  /* Sessions by the order they were created. */
  for (guint i = 0; i < 2; i++)
    {
      const char *member = i == 0 ? "sessionId" : "session_id";
      const char *mapped;

      if (!json_object_has_member (args, member) || !JSON_NODE_HOLDS_VALUE (json_object_get_member (args, member)))
        continue;
      mapped = g_hash_table_lookup (replay->sessions, json_object_get_string_member (args, member));
      if (mapped != NULL)
        json_object_set_string_member (args, member, mapped);
    }
  invocation = stw_dispatcher_create_invocation (replay->dispatcher,
                                                 json_object_get_string_member_with_default (call, "tool", ""),
                                                 args, &error);
  if (invocation == NULL)
    {
      g_autoptr(JsonObject) envelope = json_object_new ();

      json_object_set_boolean_member (envelope, "ok", FALSE);
      json_object_set_string_member (envelope, "code", stw_error_get_code_name (error));
      replay->mismatched++;
      replay_report (replay, call, "mismatch", envelope);
      replay_next (replay);
      return;
    }
  stw_dispatcher_invoke_async (replay->dispatcher, invocation, NULL, on_replayed, replay);
}

/* --- the tools ----------------------------------------------------------- */

typedef enum
{
  TRACE_START,
  TRACE_STOP,
  TRACE_STATUS,
  TRACE_TOKENS,
  TRACE_BUDGET,
  TRACE_REPLAY,
  TRACE_EXPORT,
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
set_budget (TracePlugin *plugin,
            JsonObject  *arguments)
{
  if (json_object_has_member (arguments, "budgetTokens"))
    plugin->budget = json_object_get_int_member (arguments, "budgetTokens");
  if (json_object_has_member (arguments, "enforce"))
    plugin->enforce = json_object_get_boolean_member (arguments, "enforce");
  if (json_object_has_member (arguments, "warnThreshold"))
    plugin->warn_threshold = json_object_get_double_member (arguments, "warnThreshold");
  plugin->warned = FALSE;
}

static void
budget_payload (TracePlugin *plugin,
                JsonObject  *payload)
{
  json_object_set_int_member (payload, "used", plugin->tokens);
  if (plugin->budget > 0)
    {
      json_object_set_int_member (payload, "budgetTokens", plugin->budget);
      json_object_set_int_member (payload, "remaining", MAX (plugin->budget - plugin->tokens, 0));
      json_object_set_boolean_member (payload, "exceeded", plugin->tokens >= plugin->budget);
    }
  json_object_set_boolean_member (payload, "enforce", plugin->enforce);
  json_object_set_double_member (payload, "warnThreshold", plugin->warn_threshold);
}

static void
trace_tool_invoke (StwTool       *tool,
                   StwInvocation *invocation)
{
  TraceTool *self = TRACE_TOOL (tool);
  TracePlugin *plugin = self->plugin;
  StwDispatcher *dispatcher = stw_invocation_get_dispatcher (invocation);
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
      plugin->bodies = json_object_get_boolean_member_with_default (arguments, "bodies", FALSE);
      plugin->budget = 0;
      plugin->enforce = FALSE;
      plugin->warn_threshold = 0.8;
      set_budget (plugin, arguments);
      if (!start_recording (plugin, dispatcher, json_object_get_string_member (arguments, "path"), &error))
        {
          stw_invocation_return_error (invocation, error);
          return;
        }
      json_object_set_string_member (payload, "path", plugin->path);
      json_object_set_boolean_member (payload, "recording", TRUE);
      json_object_set_boolean_member (payload, "bodies", plugin->bodies);
      break;

    case TRACE_STOP:
      if (plugin->fd < 0)
        {
          g_autoptr(GError) idle = stw_error_new_literal ("trace.NOT_RECORDING", "Nothing is being recorded");

          stw_invocation_return_error (invocation, idle);
          return;
        }
      json_object_set_string_member (payload, "path", plugin->path);
      json_object_set_int_member (payload, "tokens", plugin->tokens);
      if (!stop_recording (plugin, &records, &error))
        {
          stw_invocation_return_error (invocation, error);
          return;
        }
      json_object_set_int_member (payload, "records", (gint64) records);
      json_object_set_boolean_member (payload, "recording", FALSE);
      break;

    case TRACE_TOKENS:
      {
        JsonObject *by_tool = json_object_new ();
        GHashTableIter iter;
        gpointer key, value;

        json_object_set_boolean_member (payload, "recording", plugin->fd >= 0);
        json_object_set_int_member (payload, "total", plugin->tokens);
        json_object_set_int_member (payload, "calls", (gint64) plugin->calls);
        g_hash_table_iter_init (&iter, plugin->tokens_by_tool);
        while (g_hash_table_iter_next (&iter, &key, &value))
          json_object_set_int_member (by_tool, key, *(gint64 *) value);
        json_object_set_object_member (payload, "byTool", by_tool);
        json_object_set_string_member (payload, "estimate", "bytes of arguments and answer / 4");
      }
      break;

    case TRACE_BUDGET:
      set_budget (plugin, arguments);
      budget_payload (plugin, payload);
      break;

    case TRACE_REPLAY:
      {
        g_autoptr(GPtrArray) recorded = read_recording (dispatcher, json_object_get_string_member (arguments, "path"),
                                                        &error);
        Replay *replay;

        if (recorded == NULL)
          {
            stw_invocation_return_error (invocation, error);
            return;
          }
        replay = g_new0 (Replay, 1);
        replay->invocation = g_object_ref (invocation);
        replay->dispatcher = g_object_ref (dispatcher);
        replay->calls = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
        replay->sessions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
        replay->refs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
        replay->results = json_array_new ();
        if (json_object_has_member (arguments, "sessionMap"))
          {
            JsonObject *map = json_object_get_object_member (arguments, "sessionMap");
            g_autoptr(GList) members = json_object_get_members (map);

            for (const GList *l = members; l != NULL; l = l->next)
              g_hash_table_insert (replay->sessions, g_strdup (l->data),
                                   g_strdup (json_object_get_string_member (map, l->data)));
          }
        for (guint i = 0; i < recorded->len; i++)
          if (g_str_equal (record_type (g_ptr_array_index (recorded, i)), "call"))
            g_ptr_array_add (replay->calls, json_object_ref (g_ptr_array_index (recorded, i)));
        replay_next (replay);
      }
      return;

    case TRACE_EXPORT:
      {
        const char *format = json_object_get_string_member (arguments, "format");
        const char *out = json_object_get_string_member (arguments, "path");
        const char *source = json_object_get_string_member_with_default (arguments, "recording", plugin->path);
        g_autoptr(GPtrArray) recorded = NULL;
        g_autoptr(GBytes) bytes = NULL;

        if (source == NULL)
          {
            g_autoptr(GError) none = stw_error_new_literal ("trace.ARTIFACT_NOT_FOUND",
                                                            "Name the recording to export (recording)");

            stw_invocation_return_error (invocation, none);
            return;
          }
        recorded = read_recording (dispatcher, source, &error);
        if (recorded == NULL)
          {
            stw_invocation_return_error (invocation, error);
            return;
          }
        if (g_str_equal (format, "playwright"))
          {
            if (!export_playwright (dispatcher, recorded, out, &error))
              {
                stw_invocation_return_error (invocation, error);
                return;
              }
          }
        else if (bytes = export_chrome (recorded), !stw_dispatcher_write_file (dispatcher, out, bytes, 0644, &error))
          {
            g_autoptr(GError) failed = NULL;

            if (g_error_matches (error, STW_ERROR, STW_ERROR_FILE_NOT_FOUND))
              failed = stw_error_new ("trace.ARTIFACT_WRITE_FAILED", "%s", error->message);
            stw_invocation_return_error (invocation, failed ? failed : error);
            return;
          }
        json_object_set_string_member (payload, "path", out);
        json_object_set_string_member (payload, "format", format);
        json_object_set_int_member (payload, "records", (gint64) recorded->len);
        if (bytes != NULL)
          json_object_set_int_member (payload, "bytes", (gint64) g_bytes_get_size (bytes));
      }
      break;

    case TRACE_STATUS:
    default:
      json_object_set_boolean_member (payload, "recording", plugin->fd >= 0);
      if (plugin->fd >= 0)
        {
          json_object_set_string_member (payload, "path", plugin->path);
          json_object_set_int_member (payload, "records", (gint64) plugin->calls);
          json_object_set_int_member (payload, "tokens", plugin->tokens);
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
add_tool (TracePlugin        *plugin,
          TraceAction         action,
          const char         *name,
          const char         *title,
          const char         *description,
          const char         *schema_json,
          const char * const *codes)
{
  g_autoptr(StwSchema) schema = stw_schema_new_from_string (schema_json, NULL);
  gboolean query = action == TRACE_STATUS || action == TRACE_TOKENS;
  TraceTool *tool = g_object_new (TRACE_TYPE_TOOL,
                                  "name", name,
                                  "title", title,
                                  "description", description,
                                  "input-schema", schema,
                                  "operation-type", query ? STW_OPERATION_QUERY : STW_OPERATION_COMMAND,
                                  "error-codes", codes,
                                  "idempotent-hint", query,
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
  TracePlugin *self = TRACE_PLUGIN (plugin);
  JsonObject *config = stw_plugin_completion_get_config (completion);

  self->body_limit = (guint) json_object_get_int_member_with_default (config, "bodyLimit", DEFAULT_BODY_LIMIT);
  /* With the plugin as data: the engine disconnects them on unload. */
  g_signal_connect (stw_plugin_completion_get_dispatcher (completion), "call-started",
                    G_CALLBACK (on_call_started), plugin);
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
  TracePlugin *self = TRACE_PLUGIN (object);

  close_recording (self);
  g_ptr_array_unref (self->flights);
  g_ptr_array_unref (self->secrets);
  g_hash_table_unref (self->tokens_by_tool);
  g_hash_table_unref (self->clients);
  G_OBJECT_CLASS (trace_plugin_parent_class)->finalize (object);
}

static void
trace_plugin_class_init (TracePluginClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = trace_plugin_finalize;
  STW_PLUGIN_CLASS (klass)->setup = trace_plugin_setup;
  STW_PLUGIN_CLASS (klass)->teardown = trace_plugin_teardown;
}

#define NO_ARGS "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}"
#define BUDGET_PROPS \
  "\"budgetTokens\":{\"type\":\"integer\",\"minimum\":0}," \
  "\"enforce\":{\"type\":\"boolean\"}," \
  "\"warnThreshold\":{\"type\":\"number\",\"minimum\":0,\"maximum\":1}"

static void
trace_plugin_init (TracePlugin *self)
{
  StwToolProvider *provider = STW_TOOL_PROVIDER (self);
  g_autoptr(StwSchema) config = stw_schema_new_from_string (
    "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
    "\"recordEvalCode\":{\"type\":\"boolean\",\"default\":false},"
    "\"bodyLimit\":{\"type\":\"integer\",\"minimum\":64,\"maximum\":1048576,\"default\":4096}}}", NULL);
  static const char * const start_codes[] = { "ALREADY_RECORDING", "ARTIFACT_WRITE_FAILED", NULL };
  static const char * const stop_codes[] = { "NOT_RECORDING", "ARTIFACT_WRITE_FAILED", NULL };
  static const char * const read_codes[] = { "ARTIFACT_NOT_FOUND", "ARTIFACT_INVALID", NULL };
  static const char * const export_codes[] = { "ARTIFACT_NOT_FOUND", "ARTIFACT_INVALID", "ARTIFACT_WRITE_FAILED", NULL };
  static const char * const budget_codes[] = { "BUDGET_EXCEEDED", NULL };

  self->fd = -1;
  self->dir_fd = -1;
  self->body_limit = DEFAULT_BODY_LIMIT;
  self->warn_threshold = 0.8;
  self->flights = g_ptr_array_new_with_free_func ((GDestroyNotify) flight_free);
  self->secrets = g_ptr_array_new_with_free_func (g_free);
  self->tokens_by_tool = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->clients = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_object_set (self, "config-schema", config, NULL);

  stw_tool_provider_add_error_code (provider, "ALREADY_RECORDING", 409, FALSE,
                                    "A recording is running; stop it with trace_stop first.", NULL);
  stw_tool_provider_add_error_code (provider, "NOT_RECORDING", 409, FALSE,
                                    "Nothing is being recorded; start with trace_start.", NULL);
  stw_tool_provider_add_error_code (provider, "ARTIFACT_NOT_FOUND", 404, FALSE,
                                    "No recording at that path (nor a .partial one); check the path.", NULL);
  stw_tool_provider_add_error_code (provider, "ARTIFACT_INVALID", 422, FALSE,
                                    "That file is not a Stagewright recording.", NULL);
  stw_tool_provider_add_error_code (provider, "ARTIFACT_WRITE_FAILED", 500, FALSE,
                                    "The file could not be written; check the path and the disk.", NULL);
  stw_tool_provider_add_error_code (provider, "BUDGET_EXCEEDED", 429, FALSE,
                                    "The recording's token budget is spent; raise it with trace_budget.", NULL);

  add_tool (self, TRACE_START, "start", "Start recording",
            "Record every following tool call (arguments with secrets and password-field text redacted, eval "
            "code as its SHA-256, result code, timing, estimated tokens), the traced sessions' CDP traffic "
            "(bodies only with bodies: true, capped), console lines and screenshots, as JSONL streamed to "
            "<path>.partial and renamed to <path> by trace_stop. Optional token budget (enforce refuses calls "
            "past it with trace.BUDGET_EXCEEDED). The path obeys --app-root. Returns: {path, recording, bodies}.",
            "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\",\"minLength\":1},"
            "\"bodies\":{\"type\":\"boolean\"}," BUDGET_PROPS "},"
            "\"required\":[\"path\"],\"additionalProperties\":false}",
            start_codes);
  add_tool (self, TRACE_STOP, "stop", "Stop recording",
            "End the recording: write its footer and rename <path>.partial to <path>. "
            "Returns: {path, records, tokens, recording}.",
            NO_ARGS, stop_codes);
  add_tool (self, TRACE_STATUS, "status", "Recording status",
            "Whether a recording runs, where, and how many calls and tokens it holds. "
            "Returns: {recording, path?, records?, tokens?}.",
            NO_ARGS, NULL);
  add_tool (self, TRACE_TOKENS, "tokens", "Token estimate",
            "Estimated tokens of the recorded calls (bytes of arguments and answer / 4), in total and by "
            "tool. Returns: {recording, total, calls, byTool, estimate}.",
            NO_ARGS, NULL);
  add_tool (self, TRACE_BUDGET, "budget", "Token budget",
            "Set or read the token budget of the recording: budgetTokens, enforce (refuse calls past it with "
            "trace.BUDGET_EXCEEDED, 429) and warnThreshold (a fraction; a log line when crossed). "
            "Returns: {used, budgetTokens?, remaining?, exceeded?, enforce, warnThreshold}.",
            "{\"type\":\"object\",\"properties\":{" BUDGET_PROPS "},\"additionalProperties\":false}",
            budget_codes);
  add_tool (self, TRACE_REPLAY, "replay", "Replay a recording",
            "Re-dispatch a recording's calls (path, or path.partial of a killed server) against this server, "
            "sessions remapped in the order they were created (or by sessionMap), refs (ref, targetRef) by the order "
            "the answers gave them, and report per call whether "
            "ok and code match; calls whose arguments were redacted are \"not replayable\". "
            "Returns: {matched, mismatched, notReplayable, calls[], sessions (recorded id: replayed id)}.",
            "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\",\"minLength\":1},"
            "\"sessionMap\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"}}},"
            "\"required\":[\"path\"],\"additionalProperties\":false}",
            read_codes);
  add_tool (self, TRACE_EXPORT, "export", "Export a recording",
            "Write the recording (recording: its path, or path.partial of a killed server; default the one "
            "running) to path as a Playwright trace.zip (format \"playwright\": npx playwright show-trace; "
            "calls as actions, screenshots as screencast frames, console lines) or as Chrome Trace Event JSON "
            "(format \"chrome\": Perfetto UI, DevTools' Performance panel). Returns: {path, format, records, "
            "bytes?}.",
            "{\"type\":\"object\",\"properties\":{\"format\":{\"enum\":[\"playwright\",\"chrome\"]},"
            "\"path\":{\"type\":\"string\",\"minLength\":1},\"recording\":{\"type\":\"string\",\"minLength\":1}},"
            "\"required\":[\"format\",\"path\"],\"additionalProperties\":false}",
            export_codes);
}

StwPlugin *stw_plugin_module_create (void);

StwPlugin *
stw_plugin_module_create (void)
{
  return g_object_new (TRACE_TYPE_PLUGIN, "name", "trace", "version", "0.2.0", NULL);
}
