/* stw-tools-status.c: tools that need no app — electron_status, electron_doctor
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <unistd.h>

#include "stw-core-tools.h"
#include "stw-envelope.h"
#include "stw-error-registry.h"
#include "stw-runtime.h"

/* --- electron_status ------------------------------------------------------ */

/* Orientation only: never arguments, paths, windows, logs or stacks. */
static JsonArray *
sessions_json (GList *sessions)
{
  JsonArray *array = json_array_new ();

  for (const GList *l = sessions; l != NULL; l = l->next)
    {
      StwSession *session = l->data;
      StwSurface *surface = stw_session_get_active_surface (session);
      JsonObject *entry = json_object_new ();

      json_object_set_string_member (entry, "session_id", stw_session_get_id (session));
      json_object_set_string_member (entry, "transport", stw_session_get_transport_name (session));
      json_object_set_boolean_member (entry, "owned", stw_session_is_owned (session));
      json_object_set_boolean_member (entry, "renderer_ready", stw_session_is_renderer_ready (session));
      if (surface != NULL)
        {
          JsonObject *active = json_object_new ();
          json_object_set_string_member (active, "id", stw_surface_get_id (surface));
          json_object_set_string_member (active, "kind", stw_surface_kind_to_string (stw_surface_get_kind (surface)));
          if (stw_surface_get_title (surface) != NULL)
            json_object_set_string_member (active, "title", stw_surface_get_title (surface));
          json_object_set_object_member (entry, "active_surface", active);
        }
      json_array_add_object_element (array, entry);
    }
  return array;
}

static void
status_invoke (StwTool       *tool,
               StwInvocation *invocation)
{
  StwDispatcher *dispatcher = stw_invocation_get_dispatcher (invocation);
  g_autoptr(JsonObject) payload = json_object_new ();
  g_autoptr(GDateTime) started = NULL;
  g_autofree char *started_at = NULL;
  JsonObject *server = json_object_new ();
  JsonObject *last_error = stw_dispatcher_get_last_error (dispatcher);
  gint64 started_ms = stw_dispatcher_get_started_at (dispatcher);
  g_autoptr(GList) sessions = stw_session_manager_list_sessions (stw_dispatcher_get_session_manager (dispatcher));

  started = g_date_time_new_from_unix_utc (started_ms / 1000);
  started_at = g_date_time_format_iso8601 (started);

  json_object_set_string_member (server, "version", PACKAGE_VERSION);
  json_object_set_string_member (server, "started_at", started_at);
  json_object_set_int_member (server, "uptime_ms", MAX (0, g_get_real_time () / 1000 - started_ms));
  json_object_set_string_member (server, "tool_profile",
                                 stw_tool_profile_to_string (stw_dispatcher_get_tool_profile (dispatcher)));
  if (last_error != NULL)
    json_object_set_object_member (server, "last_error", json_object_ref (last_error));

  json_object_set_object_member (payload, "server", server);
  json_object_set_int_member (payload, "active_sessions", g_list_length (sessions));
  json_object_set_array_member (payload, "sessions", sessions_json (sessions));

  stw_invocation_return_value (invocation, payload);
}

/* --- electron_doctor ------------------------------------------------------ */

typedef struct
{
  StwInvocation *invocation;
  JsonArray     *checks;
  JsonObject    *runtime;
  gboolean       failed;
} Doctor;

static void
doctor_free (Doctor *doctor)
{
  g_clear_object (&doctor->invocation);
  g_clear_pointer (&doctor->checks, json_array_unref);
  g_clear_pointer (&doctor->runtime, json_object_unref);
  g_free (doctor);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Doctor, doctor_free)

static void
add_check (Doctor     *doctor,
           const char *id,
           const char *status,
           const char *message,
           const char *hint)
{
  JsonObject *check = json_object_new ();

  json_object_set_string_member (check, "id", id);
  json_object_set_string_member (check, "status", status);
  json_object_set_string_member (check, "message", message);
  if (hint != NULL)
    json_object_set_string_member (check, "hint", hint);
  json_array_add_object_element (doctor->checks, check);

  if (g_str_equal (status, "fail"))
    doctor->failed = TRUE;
}

static char *
find_chromium (void)
{
  static const char * const candidates[] = {
    "chromium", "chromium-browser", "google-chrome", "google-chrome-stable", NULL
  };

  /* Debian's /usr/bin/chromium is a shell wrapper; the binary is what
   * launchers should run. */
  if (g_file_test ("/usr/lib/chromium/chromium", G_FILE_TEST_IS_EXECUTABLE))
    return g_strdup ("/usr/lib/chromium/chromium");
  for (guint i = 0; candidates[i] != NULL; i++)
    {
      char *path = g_find_program_in_path (candidates[i]);
      if (path != NULL)
        return path;
    }
  return NULL;
}

static void
check_directory (Doctor     *doctor,
                 const char *id,
                 const char *path,
                 gboolean    needs_write,
                 const char *unset_message)
{
  g_autofree char *message = NULL;

  if (path == NULL)
    {
      add_check (doctor, id, "skip", unset_message, NULL);
      return;
    }
  if (!g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      message = g_strdup_printf (_("%s is not a directory"), path);
      add_check (doctor, id, "fail", message, _("Create it or pass another directory"));
      return;
    }
  if (access (path, needs_write ? (R_OK | W_OK | X_OK) : (R_OK | X_OK)) != 0)
    {
      message = g_strdup_printf (needs_write ? _("%s is not writable") : _("%s is not readable"), path);
      add_check (doctor, id, "fail", message, _("Fix the directory's permissions"));
      return;
    }
  message = g_strdup_printf (_("%s is usable"), path);
  add_check (doctor, id, "pass", message, NULL);
}

static void
doctor_finish (Doctor     *doctor,
               const char *node_version)
{
  StwDispatcher *dispatcher = stw_invocation_get_dispatcher (doctor->invocation);
  g_autoptr(JsonObject) payload = json_object_new ();
  g_autofree char *chromium = find_chromium ();
  g_autoptr(GError) runtime_error = NULL;
  g_autofree char *electron = stw_session_manager_find_runtime (stw_dispatcher_get_session_manager (dispatcher),
                                                                NULL, &runtime_error);
  StwEvalTarget eval = stw_dispatcher_get_allow_eval (dispatcher);
  const char *display = g_getenv ("DISPLAY");
  const char *wayland = g_getenv ("WAYLAND_DISPLAY");
  g_autofree char *message = NULL;

  if (node_version != NULL)
    {
      message = g_strdup_printf (_("Node %s"), node_version);
      add_check (doctor, "node", "pass", message, NULL);
    }
  else
    add_check (doctor, "node", "warn", _("Node.js was not found on PATH"),
               _("Electron apps bring their own Node; install nodejs only for tools that need it"));
  g_clear_pointer (&message, g_free);

  if (electron != NULL)
    {
      message = g_strdup_printf (_("Electron runtime at %s"), electron);
      add_check (doctor, "electron", "pass", message, NULL);
    }
  else if (g_error_matches (runtime_error, STW_ERROR, STW_ERROR_BAD_ARGUMENT))
    add_check (doctor, "electron", "fail", runtime_error->message,
               _("The runtime launch would use lies outside --app-root; install electron inside the root"));
  else
    add_check (doctor, "electron", "warn", _("No Electron runtime on PATH or in the app root"),
               _("Pass executablePath to electron_launch, or install electron in the app root"));
  g_clear_pointer (&message, g_free);

  if (chromium != NULL)
    {
      message = g_strdup_printf (_("Chromium at %s"), chromium);
      add_check (doctor, "chromium", "pass", message, NULL);
    }
  else if (electron == NULL)
    add_check (doctor, "chromium", "fail", _("Neither Electron nor Chromium was found"),
               _("Install an Electron app's runtime, or Chromium for plain web apps"));
  else
    add_check (doctor, "chromium", "skip", _("No Chromium; only Electron apps can be driven"), NULL);
  g_clear_pointer (&message, g_free);

  if ((display != NULL && *display != '\0') || (wayland != NULL && *wayland != '\0'))
    {
      message = g_strdup_printf (_("Display %s"), (display && *display) ? display : wayland);
      add_check (doctor, "display", "pass", message, NULL);
    }
  else
    add_check (doctor, "display", "warn",
               _("No display: Chromium runs headless, but Electron windows need one"),
               _("Run the server under Xvfb, e.g. xvfb-run -a stagewright"));
  g_clear_pointer (&message, g_free);

  if (eval == STW_EVAL_TARGET_NONE)
    add_check (doctor, "eval_policy", "pass", _("Evaluation of agent code is disabled"), NULL);
  else
    {
      message = g_strdup_printf (_("Evaluation of agent code is enabled for %s"),
                                 eval == STW_EVAL_TARGET_ALL ? "main and renderer"
                                 : eval == STW_EVAL_TARGET_MAIN ? "main" : "renderer");
      add_check (doctor, "eval_policy", (eval & STW_EVAL_TARGET_MAIN) ? "warn" : "pass", message,
                 (eval & STW_EVAL_TARGET_MAIN)
                 ? _("Main-process eval has the app's full privileges; enable it only for trusted agents")
                 : NULL);
    }

  check_directory (doctor, "app_root", stw_dispatcher_get_app_root (dispatcher), FALSE,
                   _("No --app-root: launch paths are not confined"));
  check_directory (doctor, "screenshot_dir", stw_dispatcher_get_screenshot_dir (dispatcher), TRUE,
                   _("No --screenshot-dir: screenshots go to the temporary directory"));

  {
    JsonObject *server = json_object_new ();
    g_autofree char *glib_version = g_strdup_printf ("%u.%u.%u", glib_major_version,
                                                     glib_minor_version, glib_micro_version);
    g_autoptr(GError) soup_error = NULL;
    g_autofree char *soup_version = NULL;

    /* libsoup is opened when first needed: here, to say whether it can be. */
    soup_version = stw_dup_libsoup_version (&soup_error);
    if (soup_version != NULL)
      add_check (doctor, "libsoup", "pass", soup_version, NULL);
    else
      add_check (doctor, "libsoup", "fail", soup_error->message, stw_error_get_hint (soup_error));

    json_object_set_string_member (server, "stagewright", PACKAGE_VERSION);
    json_object_set_string_member (server, "glib", glib_version);
    json_object_set_string_member (server, "json_glib", JSON_VERSION_S);
    if (soup_version != NULL)
      json_object_set_string_member (server, "libsoup", soup_version);
    else
      json_object_set_null_member (server, "libsoup");
    json_object_set_object_member (doctor->runtime, "server", server);
    if (node_version != NULL)
      json_object_set_string_member (doctor->runtime, "node", node_version);
    else
      json_object_set_null_member (doctor->runtime, "node");
    if (electron != NULL)
      json_object_set_string_member (doctor->runtime, "electron_path", electron);
    if (chromium != NULL)
      json_object_set_string_member (doctor->runtime, "chromium_path", chromium);
  }

  json_object_set_boolean_member (payload, "doctor_ok", !doctor->failed);
  json_object_set_array_member (payload, "checks", json_array_ref (doctor->checks));
  json_object_set_object_member (payload, "runtime", json_object_ref (doctor->runtime));
  stw_invocation_return_value (doctor->invocation, payload);
}

static void
on_node_version (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(Doctor) doctor = user_data;
  g_autofree char *stdout_text = NULL;
  g_autoptr(GError) error = NULL;

  if (!g_subprocess_communicate_utf8_finish (G_SUBPROCESS (object), result, &stdout_text, NULL, &error))
    {
      /* Cancelled (client cancel or backstop): do not leave the child behind. */
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_subprocess_force_exit (G_SUBPROCESS (object));
      doctor_finish (doctor, NULL);
      return;
    }
  if (!g_subprocess_get_if_exited (G_SUBPROCESS (object)) ||
      g_subprocess_get_exit_status (G_SUBPROCESS (object)) != 0)
    {
      doctor_finish (doctor, NULL);
      return;
    }

  doctor_finish (doctor, g_strstrip (stdout_text));
}

static void
doctor_invoke (StwTool       *tool,
               StwInvocation *invocation)
{
  g_autoptr(Doctor) doctor = g_new0 (Doctor, 1);
  g_autofree char *node = g_find_program_in_path ("node");
  g_autoptr(GSubprocess) subprocess = NULL;

  doctor->invocation = g_object_ref (invocation);
  doctor->checks = json_array_new ();
  doctor->runtime = json_object_new ();

  /* stdin stays /dev/null: the server's stdin carries the protocol, and a
   * child must never be able to read (steal) a client's frames. */
  if (node != NULL)
    subprocess = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_SILENCE,
                                   NULL, node, "--version", NULL);
  if (subprocess == NULL)
    {
      doctor_finish (doctor, NULL);
      return;
    }

  /* Never block the main loop on a child; the backstop bounds a hung one. */
  g_subprocess_communicate_utf8_async (subprocess, NULL, stw_invocation_get_cancellable (invocation),
                                       on_node_version, g_steal_pointer (&doctor));
}

static const StwToolSpec status_specs[] = {
  {
    .name = "electron_status",
    .description = "Server version, uptime, last error and live sessions.",
    .input_schema = "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}",
    .operation_type = STW_OPERATION_QUERY,
    .idempotent = TRUE,
    .errors = "",
    .profiles = STW_IN_ESSENTIAL,
    .invoke = status_invoke,
  },
  {
    .name = "electron_doctor",
    .description = "Non-mutating preflight: Node, an Electron or Chromium runtime, a display "
                   "or headless ability, the eval policy, the app root and the screenshot "
                   "directory, each pass/warn/fail/skip with a hint. "
                   "Returns: {doctor_ok, checks[{id, status, message, hint?}], runtime}.",
    .input_schema = "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}",
    .operation_type = STW_OPERATION_QUERY,
    .idempotent = TRUE,
    .errors = "",
    .profiles = STW_IN_DEBUG,
    .invoke = doctor_invoke,
  },
};

void
stw_core_tools_add_status (StwToolProvider *provider)
{
  stw_core_tools_add_specs (provider, status_specs, G_N_ELEMENTS (status_specs));
}
