/* main.c: the stagewright program — an MCP server over stdio
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include <errno.h>
#include <fcntl.h>
#include <glib-unix.h>
#include <glib/gi18n.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "stagewright.h"
#include "stw-private.h"

/* The program links the shared library: what it needs that is private
 * comes through the library's private table (stw-private.h). */
#define _stw_confine_path STW_PRIVATE_CALL (confine_path)
#define _stw_session_manager_instance_id_is_valid STW_PRIVATE_CALL (session_manager_instance_id_is_valid)
#define _stw_session_manager_set_instance_id STW_PRIVATE_CALL (session_manager_set_instance_id)
#define _stw_mcp_server_set_share_apps STW_PRIVATE_CALL (mcp_server_set_share_apps)
#define _stw_mcp_http_new STW_PRIVATE_CALL (mcp_http_new)
#define _stw_mcp_http_set_max_sessions STW_PRIVATE_CALL (mcp_http_set_max_sessions)
#define _stw_mcp_http_set_idle_timeout_ms STW_PRIVATE_CALL (mcp_http_set_idle_timeout_ms)
#define _stw_mcp_http_set_rate_limit STW_PRIVATE_CALL (mcp_http_set_rate_limit)
#define _stw_mcp_http_set_token_file STW_PRIVATE_CALL (mcp_http_set_token_file)
#define _stw_mcp_http_set_tls_files STW_PRIVATE_CALL (mcp_http_set_tls_files)
#define _stw_mcp_http_listen STW_PRIVATE_CALL (mcp_http_listen)
#define _stw_mcp_http_get_url STW_PRIVATE_CALL (mcp_http_get_url)
#define _stw_mcp_http_shutdown STW_PRIVATE_CALL (mcp_http_shutdown)
#define stw_json_to_string STW_PRIVATE_CALL (json_to_string)

#define EXIT_USAGE 2
/* Graceful budget per app when the server exits. */
#define SHUTDOWN_STOP_MS 3000

typedef struct
{
  StwEvalTarget   allow_eval;
  char           *tool_profile;
  gint64          operation_timeout_ms;
  char           *app_root;
  char           *screenshot_dir;
  char          **plugins;
  char          **plugin_configs;
  gboolean        version;
  char           *http;
  char           *http_token_file;
  char           *tls_cert;
  char           *tls_key;
  gboolean        stdio;
  gboolean        share_apps;
  gint64          http_max_sessions;
  gint64          http_idle_timeout;
  gint64          http_rate_limit;
  char           *http_instance_id;
} Options;

static StwMcpServer *log_server;

static gboolean
parse_allow_eval (const char  *option_name,
                  const char  *value,
                  gpointer     data,
                  GError     **error)
{
  Options *options = data;

  if (value == NULL || g_str_equal (value, "all") || g_str_equal (value, "main,renderer") ||
      g_str_equal (value, "renderer,main"))
    options->allow_eval = STW_EVAL_TARGET_ALL;
  else if (g_str_equal (value, "main"))
    options->allow_eval = STW_EVAL_TARGET_MAIN;
  else if (g_str_equal (value, "renderer"))
    options->allow_eval = STW_EVAL_TARGET_RENDERER;
  else
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   _("--allow-eval takes main, renderer or all, not “%s”"), value);
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_directory (const char  *flag,
                 const char  *path,
                 GError     **error)
{
  if (path == NULL)
    return TRUE;
  if (!g_path_is_absolute (path))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   _("%s needs an absolute path, not “%s”"), flag, path);
      return FALSE;
    }
  if (!g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   _("%s: “%s” is not a directory"), flag, path);
      return FALSE;
    }
  return TRUE;
}

/* --app-root confines what the server writes too: a screenshot directory
 * outside it (or a symlink leading out) is refused at start, not at the
 * first screenshot. */
static gboolean
check_screenshot_dir (const char  *app_root,
                      const char  *screenshot_dir,
                      GError     **error)
{
  g_autofree char *real = NULL;

  if (app_root == NULL || screenshot_dir == NULL)
    return TRUE;
  real = _stw_confine_path (app_root, NULL, screenshot_dir, "--screenshot-dir", NULL);
  if (real != NULL)
    return TRUE;
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
               _("--screenshot-dir “%s” lies outside --app-root “%s”"), screenshot_dir, app_root);
  return FALSE;
}

/* --plugin takes names or absolute paths, repeated or comma-separated. */
static char **
plugin_specs (char **values)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  for (guint i = 0; values != NULL && values[i] != NULL; i++)
    {
      g_auto(GStrv) parts = g_strsplit (values[i], ",", -1);

      for (guint j = 0; parts[j] != NULL; j++)
        {
          g_strstrip (parts[j]);
          if (parts[j][0] != '\0')
            g_strv_builder_add (builder, parts[j]);
        }
    }
  return g_strv_builder_end (builder);
}

/* --plugin-config NAME=JSON, repeatable: { NAME: {…} }. */
static JsonObject *
plugin_configs (char    **values,
                GError  **error)
{
  g_autoptr(JsonObject) configs = json_object_new ();

  for (guint i = 0; values != NULL && values[i] != NULL; i++)
    {
      const char *eq = strchr (values[i], '=');
      g_autofree char *name = eq ? g_strndup (values[i], eq - values[i]) : NULL;
      g_autoptr(JsonNode) node = NULL;
      g_autoptr(GError) local = NULL;

      if (name == NULL || name[0] == '\0')
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       _("--plugin-config takes NAME=JSON, not “%s”"), values[i]);
          return NULL;
        }
      node = json_from_string (eq + 1, &local);
      if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       _("--plugin-config %s: the configuration must be a JSON object%s%s"), name,
                       local ? ": " : "", local ? local->message : "");
          return NULL;
        }
      if (json_object_has_member (configs, name))
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       _("--plugin-config %s is given twice"), name);
          return NULL;
        }
      json_object_set_member (configs, name, g_steal_pointer (&node));
    }
  return g_steal_pointer (&configs);
}

/* `stagewright replay FILE` loads the trace plugin unless --plugin did. */
static char **
with_trace_plugin (char **specs)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  for (guint i = 0; specs[i] != NULL; i++)
    {
      if (g_str_equal (specs[i], "trace") || g_str_has_suffix (specs[i], "/trace.plugin"))
        return specs;
      g_strv_builder_add (builder, specs[i]);
    }
  g_strv_builder_add (builder, "trace");
  g_strfreev (specs);
  return g_strv_builder_end (builder);
}

/* `stagewright replay FILE`: trace_replay without an agent. One line per
 * call on stdout; exit 0 when everything replayable matched, 1 on a
 * mismatch, 2 when the recording could not be replayed at all. */
static int
replay_command (StwDispatcher *dispatcher,
                const char    *file)
{
  g_autofree char *path = g_canonicalize_filename (file, NULL);
  g_autoptr(JsonObject) args = json_object_new ();
  g_autoptr(JsonObject) envelope = NULL;
  g_autoptr(GError) error = NULL;
  JsonArray *calls;
  JsonObject *sessions;
  g_autoptr(GList) ids = NULL;
  gint64 mismatched;

  json_object_set_string_member (args, "path", path);
  envelope = stw_dispatcher_call_sync (dispatcher, "trace_replay", args, NULL, &error);
  if (envelope == NULL || !json_object_get_boolean_member_with_default (envelope, "ok", FALSE))
    {
      g_printerr ("stagewright: replay: %s\n",
                  envelope ? json_object_get_string_member_with_default (envelope, "error", "failed")
                           : error->message);
      return EXIT_USAGE;
    }

  calls = json_object_get_array_member (envelope, "calls");
  for (guint i = 0; i < json_array_get_length (calls); i++)
    {
      JsonObject *call = json_array_get_object_element (calls, i);
      JsonObject *expected = json_object_get_object_member (call, "expected");
      JsonObject *actual = json_object_has_member (call, "actual") ? json_object_get_object_member (call, "actual") : NULL;
      g_autofree char *line = NULL;

      line = g_strdup_printf ("%" G_GINT64_FORMAT " %s: %s (expected %s%s%s%s%s)\n",
                              json_object_get_int_member (call, "call"),
                              json_object_get_string_member (call, "tool"),
                              json_object_get_string_member (call, "status"),
                              json_object_get_boolean_member (expected, "ok") ? "ok" : "error ",
                              json_object_get_string_member_with_default (expected, "code", ""),
                              actual ? ", got " : "",
                              actual ? (json_object_get_boolean_member (actual, "ok") ? "ok" : "error ") : "",
                              actual ? json_object_get_string_member_with_default (actual, "code", "") : "");
      fputs (line, stdout);
    }
  mismatched = json_object_get_int_member (envelope, "mismatched");
  {
    g_autofree char *summary = g_strdup_printf ("%" G_GINT64_FORMAT " matched, %" G_GINT64_FORMAT " mismatched, %"
                                                G_GINT64_FORMAT " not replayable\n",
                                                json_object_get_int_member (envelope, "matched"), mismatched,
                                                json_object_get_int_member (envelope, "notReplayable"));
    fputs (summary, stdout);
  }
  fflush (stdout);

  /* The apps the replay launched go with it. */
  sessions = json_object_get_object_member (envelope, "sessions");
  ids = json_object_get_values (sessions);
  for (const GList *l = ids; l != NULL; l = l->next)
    {
      g_autoptr(JsonObject) stop = json_object_new ();
      g_autoptr(JsonObject) stopped = NULL;

      json_object_set_string_member (stop, "sessionId", json_node_get_string (l->data));
      stopped = stw_dispatcher_call_sync (dispatcher, "electron_stop", stop, NULL, NULL);
    }
  return mismatched > 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* Loads what --plugin asks for, all or nothing, before the transports
 * read anything; a configuration for a plugin not loaded is a warning. */
static gboolean
load_plugins (StwDispatcher  *dispatcher,
              char          **specs,
              JsonObject     *configs,
              GError        **error)
{
  g_autolist(StwPlugin) loaded = NULL;
  g_autoptr(GList) names = NULL;

  if (specs[0] != NULL)
    {
      loaded = stw_dispatcher_load_plugins_sync (dispatcher, (const char * const *) specs,
                                                 configs, NULL, error);
      if (loaded == NULL)
        return FALSE;
    }

  names = json_object_get_members (configs);
  for (const GList *l = names; l != NULL; l = l->next)
    if (stw_dispatcher_lookup_plugin (dispatcher, l->data) == NULL)
      g_printerr (_("stagewright: warning: --plugin-config %s: no plugin of that name is loaded\n"),
                  (const char *) l->data);
  return TRUE;
}

/* `stagewright production validate --app PATH [--json]`: the production
 * plugin's production_validate without an agent. The path is not confined
 * (the caller chose it); nothing of the artifact runs. Exit 0 when no
 * check failed, 1 when one did, 2 when the validation could not run. */
static void
print_production_report (JsonObject *envelope)
{
  JsonArray *checks = json_object_get_array_member (envelope, "checks");
  JsonObject *summary = json_object_get_object_member (envelope, "summary");
  g_autofree char *head = g_strdup_printf ("%s (%s)\n", json_object_get_string_member (envelope, "path"),
                                           json_object_get_string_member (envelope, "artifact"));
  g_autofree char *tail = NULL;

  fputs (head, stdout);
  for (guint i = 0; i < json_array_get_length (checks); i++)
    {
      JsonObject *check = json_array_get_object_element (checks, i);
      const char *status = json_object_get_string_member (check, "status");
      g_autofree char *line = g_strdup_printf ("  %-7s %-46s %s\n",
                                               g_str_equal (status, "fail") ? "FAIL" : status,
                                               json_object_get_string_member (check, "id"),
                                               json_object_get_string_member (check, "evidence"));

      fputs (line, stdout);
    }
  tail = g_strdup_printf (_("%s: %" G_GINT64_FORMAT " passed, %" G_GINT64_FORMAT " failed, %" G_GINT64_FORMAT
                            " unknown\n"),
                          json_object_get_boolean_member (envelope, "passed") ? _("PASSED") : _("FAILED"),
                          json_object_get_int_member (summary, "pass"), json_object_get_int_member (summary, "fail"),
                          json_object_get_int_member (summary, "unknown"));
  fputs (tail, stdout);
}

static int
production_command (int    argc,
                    char **argv)
{
  g_autofree char *app = NULL;
  gboolean as_json = FALSE;
  const GOptionEntry entries[] = {
    { "app", 0, 0, G_OPTION_ARG_FILENAME, &app,
      N_("The packaged app: an unpacked directory, an AppImage or a .deb"), N_("PATH") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &as_json, N_("Print the report as JSON"), NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (_("validate — check a packaged Linux Electron app"));
  g_autoptr(GError) error = NULL;
  g_autoptr(StwDispatcher) dispatcher = NULL;
  g_autoptr(JsonObject) configs = json_object_new ();
  g_autoptr(JsonObject) args = json_object_new ();
  g_autoptr(JsonObject) envelope = NULL;
  g_autofree char *path = NULL;
  const char * const specs[] = { "production", NULL };
  int status;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_summary (context, _("Exit status: 0 when no check failed, 1 when one did, 2 when the "
                                           "validation could not run."));
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("stagewright: production: %s\n", error->message);
      return EXIT_USAGE;
    }
  if (argc != 2 || !g_str_equal (argv[1], "validate") || app == NULL)
    {
      g_printerr (_("stagewright: usage: stagewright production validate --app PATH [--json]\n"));
      return EXIT_USAGE;
    }

  dispatcher = stw_dispatcher_new ();
  if (!load_plugins (dispatcher, (char **) specs, configs, &error))
    {
      g_strdelimit (error->message, "\r\n", ' ');
      g_printerr ("stagewright: %s\n", error->message);
      return EXIT_USAGE;
    }
  path = g_canonicalize_filename (app, NULL);
  json_object_set_string_member (args, "path", path);
  envelope = stw_dispatcher_call_sync (dispatcher, "production_validate", args, NULL, &error);

  if (envelope != NULL && as_json)
    {
      g_autoptr(JsonNode) root = json_node_init_object (json_node_alloc (), envelope);
      g_autofree char *text = stw_json_to_string (root, NULL);

      fputs (text, stdout);
      fputc ('\n', stdout);
    }
  if (envelope == NULL || !json_object_get_boolean_member_with_default (envelope, "ok", FALSE))
    {
      if (!as_json || envelope == NULL)
        g_printerr ("stagewright: production validate: %s%s%s\n",
                    envelope ? json_object_get_string_member_with_default (envelope, "code", "") : "",
                    envelope ? ": " : "",
                    envelope ? json_object_get_string_member_with_default (envelope, "error", "failed")
                             : error->message);
      status = EXIT_USAGE;
    }
  else
    {
      if (!as_json)
        print_production_report (envelope);
      status = json_object_get_boolean_member (envelope, "passed") ? EXIT_SUCCESS : EXIT_FAILURE;
    }
  fflush (stdout);
  stw_dispatcher_unload_plugins_sync (dispatcher, NULL, NULL);
  return status;
}


/* A descriptor the parent closed would be reused by the first one we open
 * (GLib's wakeup eventfd, a socket), and we would read requests from it or
 * write frames into it: park /dev/null there instead, and say which were
 * closed (bit n for descriptor n). */
static guint
guard_std_fds (void)
{
  guint closed = 0;

  for (int fd = 0; fd <= 2; fd++)
    {
      if (fcntl (fd, F_GETFD) != -1 || errno != EBADF)
        continue;
      closed |= 1u << fd;
      /* The lowest free descriptor: this one. */
      if (open ("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY) != fd)
        {
          /* Nothing sensible can be done; stderr may be gone too. */
          _exit (EXIT_FAILURE);
        }
    }
  return closed;
}

/* Log lines for MCP clients that asked for them wait here until the main
 * loop comes round again: a line logged from inside libsoup (a signal
 * handler, an I/O callback) must not write into a connection while libsoup
 * is changing it. A burst of lines is bounded; the rest are counted. */
#define MAX_PENDING_LOGS 1000

typedef struct
{
  const char *level;       /* static */
  char       *message;
} PendingLog;

static GQueue pending_logs = G_QUEUE_INIT;
static guint pending_dropped;
static guint forward_source;
static gboolean forwarding;

static void
pending_log_free (PendingLog *line)
{
  g_free (line->message);
  g_free (line);
}

static void
drop_pending_logs (void)
{
  g_queue_clear_full (&pending_logs, (GDestroyNotify) pending_log_free);
  pending_dropped = 0;
  g_clear_handle_id (&forward_source, g_source_remove);
}

static gboolean
forward_logs (gpointer user_data)
{
  PendingLog *line;

  forward_source = 0;
  /* What sending logs itself is not sent again. */
  forwarding = TRUE;
  while ((line = g_queue_pop_head (&pending_logs)) != NULL)
    {
      if (log_server != NULL)
        stw_mcp_server_send_log (log_server, line->level, "stagewright", line->message);
      pending_log_free (line);
    }
  if (pending_dropped > 0 && log_server != NULL)
    {
      g_autofree char *text = g_strdup_printf ("%u log lines were not sent: too many at once", pending_dropped);

      stw_mcp_server_send_log (log_server, "warning", "stagewright", text);
    }
  pending_dropped = 0;
  forwarding = FALSE;
  return G_SOURCE_REMOVE;
}

/* libsoup 3.2's listener stops accepting for good after one failed
 * accept (EMFILE): an HTTP server takes the descriptors the hard limit
 * allows, up to a bound its children can live with. */
static void
raise_fd_limit (void)
{
  struct rlimit limit;

  if (getrlimit (RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= MIN (limit.rlim_max, 65536))
    return;
  limit.rlim_cur = MIN (limit.rlim_max, 65536);
  if (setrlimit (RLIMIT_NOFILE, &limit) != 0)
    g_debug ("Could not raise the descriptor limit: %s", g_strerror (errno));
}

/* Sends what waits now, from code that is not inside libsoup. */
static void
flush_pending_logs (void)
{
  if (forward_source != 0)
    {
      g_clear_handle_id (&forward_source, g_source_remove);
      forward_logs (NULL);
    }
}

static GLogWriterOutput
log_writer (GLogLevelFlags   log_level,
            const GLogField *fields,
            gsize            n_fields,
            gpointer         user_data)
{
  /* Also tell an MCP client that asked for logs; only from the main
   * thread, and later (forward_logs). */
  if (log_server != NULL && !forwarding && g_main_context_is_owner (g_main_context_default ()))
    {
      const char *message = NULL;
      const char *level = "debug";

      for (gsize i = 0; i < n_fields; i++)
        if (g_str_equal (fields[i].key, "MESSAGE") && fields[i].length < 0)
          message = fields[i].value;

      switch (log_level & G_LOG_LEVEL_MASK)
        {
        case G_LOG_LEVEL_ERROR:    level = "critical"; break;
        case G_LOG_LEVEL_CRITICAL: level = "error"; break;
        case G_LOG_LEVEL_WARNING:  level = "warning"; break;
        case G_LOG_LEVEL_MESSAGE:  level = "notice"; break;
        case G_LOG_LEVEL_INFO:     level = "info"; break;
        default:                   level = "debug"; break;
        }

      if (message != NULL && g_queue_get_length (&pending_logs) >= MAX_PENDING_LOGS)
        pending_dropped++;
      else if (message != NULL)
        {
          PendingLog *line = g_new0 (PendingLog, 1);

          line->level = level;
          line->message = g_strdup (message);
          g_queue_push_tail (&pending_logs, line);
          if (forward_source == 0)
            forward_source = g_idle_add_full (G_PRIORITY_DEFAULT, forward_logs, NULL, NULL);
        }
    }

  return g_log_writer_default (log_level, fields, n_fields, user_data);
}

static int
print_manifest (StwDispatcher *dispatcher)
{
  g_autoptr(JsonArray) tools = json_array_new ();
  g_autoptr(JsonNode) root = json_node_new (JSON_NODE_ARRAY);
  g_autoptr(GList) visible = stw_dispatcher_list_tools (dispatcher);
  g_autofree char *text = NULL;
  GEnumClass *op_class = g_type_class_ref (STW_TYPE_OPERATION_TYPE);

  for (const GList *l = visible; l != NULL; l = l->next)
    {
      JsonObject *entry = stw_tool_to_manifest_for_profile (l->data, stw_dispatcher_get_tool_profile (dispatcher));
      GEnumValue *op = g_enum_get_value (op_class, (int) stw_tool_get_operation_type (l->data));

      json_object_set_string_member (entry, "operationType", op ? op->value_nick : "command");
      json_array_add_object_element (tools, entry);
    }

  g_type_class_unref (op_class);
  json_node_set_array (root, tools);
  text = stw_json_to_string (root, NULL);
  /* The manifest subcommand is not the server: stdout is its output. */
  fputs (text, stdout);
  fputc ('\n', stdout);
  return fflush (stdout) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

typedef struct
{
  GMainLoop *serve_loop;   /* quit when serving ends */
  GMainLoop *loop;         /* the loop a signal quits: serving, then shutdown */
  GCancellable *cancellable;
  int status;
} Run;

static void
on_run_done (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  Run *run = user_data;
  g_autoptr(GError) error = NULL;

  if (!stw_mcp_server_run_finish (STW_MCP_SERVER (object), result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_warning ("Serving stopped: %s", error->message);
      run->status = EXIT_FAILURE;
    }
  g_main_loop_quit (run->serve_loop);
}

static void
on_all_stopped (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GMainLoop) stop_loop = user_data;

  stw_session_manager_stop_all_finish (STW_SESSION_MANAGER (object), result, NULL);
  g_main_loop_quit (stop_loop);
}

static gboolean
on_signal (gpointer user_data)
{
  Run *run = user_data;

  g_message ("Signal received; shutting down");
  g_cancellable_cancel (run->cancellable);
  /* None once the apps were stopped (or given up on): shutting down is
   * all that is left. */
  if (run->loop != NULL)
    g_main_loop_quit (run->loop);
  return G_SOURCE_CONTINUE;
}

int
main (int   argc,
      char *argv[])
{
  Options options = { .operation_timeout_ms = -1, .http_max_sessions = -1,
                      .http_idle_timeout = -1, .http_rate_limit = -1 };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(StwDispatcher) dispatcher = NULL;
  g_autoptr(StwMcpServer) server = NULL;
  g_autoptr(GInputStream) input = NULL;
  g_autoptr(GOutputStream) output = NULL;
  g_autoptr(GMainLoop) loop = NULL;
  g_autoptr(GCancellable) cancellable = NULL;
  g_autoptr(GList) sessions = NULL;
  g_auto(GStrv) specs = NULL;
  g_autoptr(JsonObject) plugin_config = NULL;
  g_autoptr(StwMcpHttp) http = NULL;
  gboolean tools_command = FALSE;
  const char *replay_file = NULL;
  int protocol_fd = STDOUT_FILENO;
  gboolean serve_stdio;
  StwToolProfile profile = STW_TOOL_PROFILE_FULL;
  Run run = { 0 };
  const GOptionEntry entries[] = {
    { "allow-eval", 0, G_OPTION_FLAG_OPTIONAL_ARG, G_OPTION_ARG_CALLBACK, parse_allow_eval,
      N_("Show the eval tools for main, renderer or all (default: all)"), N_("TARGET") },
    { "tool-profile", 0, 0, G_OPTION_ARG_STRING, &options.tool_profile,
      N_("Show the essential, testing, debug or full tool set (default: full)"), N_("PROFILE") },
    { "operation-timeout-ms", 0, 0, G_OPTION_ARG_INT64, &options.operation_timeout_ms,
      N_("Fail any call still running after this long (default: 120000; 0 disables)"), N_("MS") },
    { "app-root", 0, 0, G_OPTION_ARG_FILENAME, &options.app_root,
      N_("Confine every path the tools read or write to this directory"), N_("DIR") },
    { "screenshot-dir", 0, 0, G_OPTION_ARG_FILENAME, &options.screenshot_dir,
      N_("Write screenshots here when a call names no path"), N_("DIR") },
    { "plugin", 0, 0, G_OPTION_ARG_STRING_ARRAY, &options.plugins,
      N_("Load a plugin by name or absolute path (repeatable)"), N_("PLUGIN") },
    { "plugin-config", 0, 0, G_OPTION_ARG_STRING_ARRAY, &options.plugin_configs,
      N_("Configure a plugin with a JSON object (repeatable)"), N_("NAME=JSON") },
    { "http", 0, 0, G_OPTION_ARG_STRING, &options.http,
      N_("Serve MCP Streamable HTTP at /mcp on this port (default address 127.0.0.1; port 0 picks one)"),
      N_("[ADDR:]PORT") },
    { "http-token-file", 0, 0, G_OPTION_ARG_FILENAME, &options.http_token_file,
      N_("Require this bearer token over HTTP (needed beyond loopback)"), N_("FILE") },
    { "tls-cert", 0, 0, G_OPTION_ARG_FILENAME, &options.tls_cert,
      N_("Serve HTTPS with this PEM certificate (with --tls-key)"), N_("FILE") },
    { "tls-key", 0, 0, G_OPTION_ARG_FILENAME, &options.tls_key,
      N_("The PEM private key of --tls-cert"), N_("FILE") },
    { "http-max-sessions", 0, 0, G_OPTION_ARG_INT64, &options.http_max_sessions,
      N_("Serve at most this many MCP sessions over HTTP, a quarter (at most 16) per client (default: 64)"),
      N_("N") },
    { "http-idle-timeout", 0, 0, G_OPTION_ARG_INT64, &options.http_idle_timeout,
      N_("End an HTTP MCP session idle this long, and stop its apps (default: 1800; 0 never)"),
      N_("SECONDS") },
    { "http-rate-limit", 0, 0, G_OPTION_ARG_INT64, &options.http_rate_limit,
      N_("Answer 429 past this many HTTP requests per second from one address (default: 50; 0 disables)"),
      N_("N") },
    { "http-instance-id", 0, 0, G_OPTION_ARG_STRING, &options.http_instance_id,
      N_("Name this instance behind a load balancer; app session ids begin with it (default: random)"),
      N_("ID") },
    { "share-apps", 0, 0, G_OPTION_ARG_NONE, &options.share_apps,
      N_("Let every MCP client reach every app (default: an app, its endpoints and processes belong to the "
         "client that launched, attached or injected it)"),
      NULL },
    { "stdio", 0, 0, G_OPTION_ARG_NONE, &options.stdio,
      N_("With --http, also serve MCP on stdin and stdout"), NULL },
    { "version", 'V', 0, G_OPTION_ARG_NONE, &options.version,
      N_("Print the version and exit"), NULL },
    { NULL }
  };
  GOptionGroup *group;
  /* Before anything opens a descriptor. */
  guint closed_fds = guard_std_fds ();

  /* stdout carries protocol frames only; every log line goes to stderr. */
  g_log_writer_default_set_use_stderr (TRUE);
  g_log_set_writer_func (log_writer, NULL, NULL);
  signal (SIGPIPE, SIG_IGN);

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  /* A subcommand with its own options: parsed apart from the server's. */
  if (argc >= 2 && g_str_equal (argv[1], "production"))
    return production_command (argc - 1, argv + 1);

  context = g_option_context_new (_("[tools] — serve Electron and Chromium automation over MCP on stdio or HTTP"));
  group = g_option_group_new (NULL, NULL, NULL, &options, NULL);
  g_option_group_add_entries (group, entries);
  g_option_group_set_translation_domain (group, GETTEXT_PACKAGE);
  g_option_context_set_main_group (context, group);
  g_option_context_set_summary (context,
                                _("With no command, serves the Model Context Protocol on stdin and stdout,\n"
                                  "or with --http over Streamable HTTP until SIGINT or SIGTERM.\n"
                                  "“tools” prints the tool manifest as JSON.\n"
                                  "“production validate --app PATH [--json]” checks a packaged app\n"
                                  "(see stagewright production --help)."));
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);

  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("stagewright: %s\n", error->message);
      return EXIT_USAGE;
    }

  if (options.version)
    {
      g_autofree char *line = g_strdup_printf ("stagewright %s\n", PACKAGE_VERSION);
      fputs (line, stdout);
      return EXIT_SUCCESS;
    }

  if (argc == 2 && g_str_equal (argv[1], "tools"))
    tools_command = TRUE;
  else if (argc == 3 && g_str_equal (argv[1], "replay"))
    replay_file = argv[2];
  else if (argc > 1)
    {
      /* Name the argument that is wrong: after “tools” or “replay FILE”,
       * the one that follows. */
      const char *unexpected = argc > 2 && g_str_equal (argv[1], "tools") ? argv[2]
                               : argc > 3 && g_str_equal (argv[1], "replay") ? argv[3] : argv[1];

      g_printerr (_("stagewright: unexpected argument “%s” (see --help)\n"), unexpected);
      return EXIT_USAGE;
    }

  if (options.tool_profile != NULL && !stw_tool_profile_from_string (options.tool_profile, &profile))
    {
      g_printerr (_("stagewright: --tool-profile takes essential, testing, debug or full, not “%s”\n"),
                  options.tool_profile);
      return EXIT_USAGE;
    }
  if (options.operation_timeout_ms < -1 || options.operation_timeout_ms > G_MAXUINT)
    {
      g_printerr (_("stagewright: --operation-timeout-ms must be between 0 and %u\n"), G_MAXUINT);
      return EXIT_USAGE;
    }
  if (!check_directory ("--app-root", options.app_root, &error) ||
      !check_directory ("--screenshot-dir", options.screenshot_dir, &error) ||
      !check_screenshot_dir (options.app_root, options.screenshot_dir, &error) ||
      (plugin_config = plugin_configs (options.plugin_configs, &error)) == NULL)
    {
      g_printerr ("stagewright: %s\n", error->message);
      return EXIT_USAGE;
    }

  if (options.http == NULL &&
      (options.http_token_file != NULL || options.tls_cert != NULL || options.tls_key != NULL ||
       options.stdio || options.http_max_sessions != -1 || options.http_idle_timeout != -1 ||
       options.http_rate_limit != -1 || options.http_instance_id != NULL))
    {
      g_printerr (_("stagewright: --http-token-file, --tls-cert, --tls-key, --stdio and the "
                    "--http-* limits need --http\n"));
      return EXIT_USAGE;
    }
  if (options.http_instance_id != NULL &&
      !_stw_session_manager_instance_id_is_valid (options.http_instance_id))
    {
      g_printerr (_("stagewright: --http-instance-id takes 1 to 32 letters, digits, “_” and “-”, "
                    "not “%s”\n"), options.http_instance_id);
      return EXIT_USAGE;
    }
  if (options.http_max_sessions == 0 || options.http_max_sessions < -1 || options.http_max_sessions > 100000 ||
      options.http_idle_timeout < -1 || options.http_idle_timeout > G_MAXUINT / 1000 ||
      options.http_rate_limit < -1 || options.http_rate_limit > 1000000)
    {
      g_printerr (_("stagewright: --http-max-sessions takes 1 to 100000, --http-idle-timeout 0 to %u, "
                    "--http-rate-limit 0 to 1000000\n"), G_MAXUINT / 1000);
      return EXIT_USAGE;
    }
  if ((options.tls_cert == NULL) != (options.tls_key == NULL))
    {
      g_printerr (_("stagewright: --tls-cert and --tls-key go together\n"));
      return EXIT_USAGE;
    }
  serve_stdio = options.http == NULL || options.stdio;

  /* stdout is the protocol stream. Whatever else in this process writes
   * there (a plugin's printf, Python's print, GJS's print) goes to stderr
   * instead: the frames go out through a copy of stdout that only the
   * server holds, and stdout itself becomes stderr, before any plugin
   * loads. */
  if (serve_stdio && !tools_command && replay_file == NULL)
    {
      protocol_fd = fcntl (STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
      if (protocol_fd < 0 || dup2 (STDERR_FILENO, STDOUT_FILENO) < 0)
        {
          g_printerr ("stagewright: cannot set stdout aside for the protocol: %s\n", g_strerror (errno));
          return EXIT_FAILURE;
        }
    }

  dispatcher = stw_dispatcher_new ();
  stw_dispatcher_set_tool_profile (dispatcher, profile);
  stw_dispatcher_set_allow_eval (dispatcher, options.allow_eval);
  if (options.operation_timeout_ms >= 0)
    stw_dispatcher_set_operation_timeout_ms (dispatcher, (guint) options.operation_timeout_ms);
  stw_dispatcher_set_app_root (dispatcher, options.app_root);
  stw_dispatcher_set_screenshot_dir (dispatcher, options.screenshot_dir);
  stw_dispatcher_add_core_tools (dispatcher);

  specs = plugin_specs (options.plugins);
  if (replay_file != NULL)
    specs = with_trace_plugin (specs);
  if (!load_plugins (dispatcher, specs, plugin_config, &error))
    {
      /* One line: the plugin and the reason. */
      g_strdelimit (error->message, "\r\n", ' ');
      g_printerr ("stagewright: %s\n", error->message);
      return EXIT_USAGE;
    }

  if (options.allow_eval & STW_EVAL_TARGET_MAIN)
    g_message ("Main-process eval is enabled: agents can run code with the app's privileges");

  if (tools_command)
    return print_manifest (dispatcher);
  if (replay_file != NULL)
    return replay_command (dispatcher, replay_file);

  if (serve_stdio && (closed_fds & ((1u << STDIN_FILENO) | (1u << STDOUT_FILENO))))
    {
      g_printerr (_("stagewright: %s is closed; the MCP server reads requests from stdin "
                    "and writes answers to stdout\n"),
                  (closed_fds & (1u << STDIN_FILENO)) ? "stdin" : "stdout");
      return EXIT_FAILURE;
    }

  /* Writing to a client that stops reading must not block the main loop:
   * the server queues (bounded) instead. */
  if (!g_unix_set_fd_nonblocking (protocol_fd, TRUE, &error))
    {
      g_debug ("stdout stays blocking: %s", error->message);
      g_clear_error (&error);
    }

  loop = g_main_loop_new (NULL, FALSE);
  cancellable = g_cancellable_new ();
  run.loop = loop;
  run.serve_loop = loop;
  run.cancellable = cancellable;
  run.status = EXIT_SUCCESS;

  /* Before the line that says the server listens: a signal sent as soon
   * as it is read must shut down in order, not kill. */
  g_unix_signal_add (SIGINT, on_signal, &run);
  g_unix_signal_add (SIGTERM, on_signal, &run);

  server = stw_mcp_server_new (dispatcher);
  _stw_mcp_server_set_share_apps (server, options.share_apps);

  if (options.http != NULL)
    {
      g_autofree char *url = NULL;
      g_autofree char *instance_id = NULL;

      /* Each instance names the apps it owns, so that a load balancer
       * can route calls for them and the others can say whose they are.
       * A random default never collides with a sibling on the same host;
       * behind a balancer, the operator names each instance as the
       * balancer names its server (docs/http.md). */
      if (options.http_instance_id != NULL)
        instance_id = g_strdup (options.http_instance_id);
      else
        {
          g_autofree char *uuid = g_uuid_string_random ();
          instance_id = g_strndup (uuid, 8);
        }
      _stw_session_manager_set_instance_id (stw_dispatcher_get_session_manager (dispatcher), instance_id);

      raise_fd_limit ();
      http = _stw_mcp_http_new (server, &error);
      if (http == NULL)
        {
          g_printerr ("stagewright: %s\n", error->message);
          return EXIT_FAILURE;
        }
      if (options.http_max_sessions > 0)
        _stw_mcp_http_set_max_sessions (http, (guint) options.http_max_sessions);
      if (options.http_idle_timeout >= 0)
        _stw_mcp_http_set_idle_timeout_ms (http, (guint) options.http_idle_timeout * 1000);
      if (options.http_rate_limit >= 0)
        _stw_mcp_http_set_rate_limit (http, (guint) options.http_rate_limit,
                                      (guint) MAX (options.http_rate_limit * 4, 1));
      if ((options.http_token_file != NULL &&
           !_stw_mcp_http_set_token_file (http, options.http_token_file, &error)) ||
          (options.tls_cert != NULL &&
           !_stw_mcp_http_set_tls_files (http, options.tls_cert, options.tls_key, &error)))
        {
          g_printerr ("stagewright: %s\n", error->message);
          return EXIT_USAGE;
        }
      if (!_stw_mcp_http_listen (http, options.http, &error))
        {
          g_printerr ("stagewright: %s\n", error->message);
          return g_error_matches (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED) ||
                 g_error_matches (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT)
                 ? EXIT_USAGE : EXIT_FAILURE;
        }
      url = _stw_mcp_http_get_url (http);
      g_printerr ("stagewright: instance id %s\n", instance_id);
      /* Tests and scripts read the address from this line: it comes last. */
      g_printerr ("stagewright: serving MCP over HTTP at %s\n", url);
    }

  log_server = server;

  if (serve_stdio)
    {
      input = g_unix_input_stream_new (STDIN_FILENO, FALSE);
      output = g_unix_output_stream_new (protocol_fd, FALSE);
      stw_mcp_server_run_async (server, input, output, cancellable, on_run_done, &run);
    }
  /* Over HTTP alone, serving ends with a signal. */
  g_main_loop_run (loop);
  /* The lines logged as the loop ended (the signal's) still go out. */
  flush_pending_logs ();

  if (http != NULL)
    _stw_mcp_http_shutdown (http);

  /* Nothing the server started outlives it: stop every app, bounded, and
   * let go of attached ones. A second signal meanwhile quits at once; the
   * process groups' guards then finish the job. */
  sessions = stw_session_manager_list_sessions (stw_dispatcher_get_session_manager (dispatcher));
  if (sessions != NULL)
    {
      g_autoptr(GMainLoop) stop_loop = g_main_loop_new (NULL, FALSE);

      g_message ("Stopping the apps still running");
      run.loop = stop_loop;
      /* The callback holds the loop: after a second signal it may come
       * while the plugins unload, once this block is left. */
      stw_session_manager_stop_all_async (stw_dispatcher_get_session_manager (dispatcher),
                                          SHUTDOWN_STOP_MS, NULL, on_all_stopped,
                                          g_main_loop_ref (stop_loop));
      g_main_loop_run (stop_loop);
    }
  run.loop = NULL;

  /* Plugins go last, in reverse order, once nothing calls them. */
  if (!stw_dispatcher_unload_plugins_sync (dispatcher, NULL, &error))
    {
      g_message ("Unloading the plugins: %s", error->message);
      g_clear_error (&error);
    }

  flush_pending_logs ();
  log_server = NULL;
  drop_pending_logs ();
  g_strfreev (options.plugins);
  g_strfreev (options.plugin_configs);
  g_free (options.tool_profile);
  g_free (options.app_root);
  g_free (options.screenshot_dir);
  g_free (options.http);
  g_free (options.http_token_file);
  g_free (options.http_instance_id);
  g_free (options.tls_cert);
  g_free (options.tls_key);

  return run.status;
}
