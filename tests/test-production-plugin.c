/* test-production-plugin.c: the production plugin loaded into a dispatcher
 * of a C harness linked to the shared library (issue 20, item 9)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The fixture artifacts come from tests/fixtures/production-artifacts/
 * build.mjs (run with node). The plugin from plugins/built/, blocking and
 * asynchronous: through its tool (stw_dispatcher_call_json_sync and
 * stw_dispatcher_invoke_async), and through its typed API
 * (stw_production_plugin_validate_async/_finish/_sync, from
 * libstagewright-plugins): the report's checks answer pass/fail per check.
 */
#include <string.h>

#include <stw-production.h>

#include "stw-test-utils.h"

static char *out_dir;
static JsonObject *manifest;

static char *
plugin_file (void)
{
  return g_test_build_filename (G_TEST_BUILT, "..", "plugins", "built", "production.plugin", NULL);
}

static const char *
artifact (const char *name)
{
  return json_object_get_string_member (manifest, name);
}

static gboolean
build_artifacts (void)
{
  g_autofree char *script = g_test_build_filename (G_TEST_DIST, "fixtures", "production-artifacts", "build.mjs", NULL);
  const char * const tools[] = { "node", "mksquashfs", "unsquashfs", "dpkg-deb", "desktop-file-validate", "objcopy" };
  g_autofree char *manifest_file = NULL;
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = NULL;
  int status = 0;

  for (guint i = 0; i < G_N_ELEMENTS (tools); i++)
    {
      g_autofree char *found = g_find_program_in_path (tools[i]);

      if (found == NULL)
        {
          g_autofree char *why = g_strdup_printf ("%s is not installed", tools[i]);

          g_test_skip (why);
          return FALSE;
        }
    }
  /* build.mjs flips fuses with npm's @electron/fuses, found as it finds
   * it; a tarball's make check (distcheck) runs without npm's tree. */
  {
    const char *modules = g_getenv ("STW_NODE_MODULES");
    g_autofree char *fuses = modules != NULL && *modules != '\0'
      ? g_build_filename (modules, "@electron", "fuses", "dist", "index.js", NULL)
      : g_test_build_filename (G_TEST_DIST, "node_modules", "@electron", "fuses", "dist", "index.js", NULL);

    if (!g_file_test (fuses, G_FILE_TEST_EXISTS))
      {
        g_autofree char *why = g_strdup_printf ("%s is missing (npm ci in tests/)", fuses);

        g_test_skip (why);
        return FALSE;
      }
  }
  if (manifest != NULL)
    return TRUE;
  out_dir = g_dir_make_tmp ("stw-prod-c-XXXXXX", &error);
  g_assert_no_error (error);
  {
    const char *argv[] = { "node", script, out_dir, NULL };

    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL,
                                 &status, &error));
    g_assert_no_error (error);
    g_assert_true (g_spawn_check_wait_status (status, NULL));
  }
  manifest_file = g_build_filename (out_dir, "manifest.json", NULL);
  g_assert_true (g_file_get_contents (manifest_file, &text, NULL, NULL));
  node = stw_test_parse (text);
  manifest = json_object_ref (json_node_get_object (node));
  return TRUE;
}

static StwDispatcher *
loaded_dispatcher (gboolean async)
{
  StwDispatcher *dispatcher = stw_dispatcher_new ();
  g_autofree char *file = plugin_file ();
  const char * const specs[] = { file, NULL };
  g_autoptr(GError) error = NULL;
  g_autolist(StwPlugin) loaded = NULL;

  stw_dispatcher_set_app_root (dispatcher, out_dir);
  if (async)
    {
      g_autoptr(GAsyncResult) result = NULL;
      StwTestResult wait = { 0 };

      stw_dispatcher_load_plugins_async (dispatcher, specs, NULL, NULL, stw_test_result_cb, &wait);
      result = stw_test_wait_result (&wait, 60000);
      loaded = stw_dispatcher_load_plugins_finish (dispatcher, result, &error);
    }
  else
    loaded = stw_dispatcher_load_plugins_sync (dispatcher, specs, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_list_length (loaded), ==, 1);
  return dispatcher;
}

static const char *
status_of (JsonObject *envelope,
           const char *id)
{
  JsonArray *checks = json_object_get_array_member (envelope, "checks");

  for (guint i = 0; i < json_array_get_length (checks); i++)
    {
      JsonObject *check = json_array_get_object_element (checks, i);

      if (g_str_equal (json_object_get_string_member (check, "id"), id))
        return json_object_get_string_member (check, "status");
    }
  return NULL;
}

static JsonObject *
validate_async_envelope (StwDispatcher *dispatcher,
                         const char    *path)
{
  g_autoptr(JsonObject) args = json_object_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(StwInvocation) invocation = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  StwTestResult wait = { 0 };
  JsonObject *envelope;

  json_object_set_string_member (args, "path", path);
  invocation = stw_dispatcher_create_invocation (dispatcher, "production_validate", args, &error);
  g_assert_no_error (error);
  stw_dispatcher_invoke_async (dispatcher, invocation, NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 120000);
  envelope = stw_dispatcher_invoke_finish (dispatcher, result, &error);
  g_assert_no_error (error);
  return envelope;
}

/* The tool, blocking: the .deb's chrome-sandbox 0755 fails; the AppImage passes. */
static void
test_tool_blocking (void)
{
  g_autoptr(StwDispatcher) dispatcher = NULL;
  g_autofree char *args = NULL;
  g_autoptr(JsonObject) deb = NULL;
  g_autoptr(JsonObject) image = NULL;
  g_autoptr(JsonObject) missing = NULL;

  if (!build_artifacts ())
    return;
  dispatcher = loaded_dispatcher (FALSE);

  args = g_strdup_printf ("{\"path\":\"%s\"}", artifact ("deb"));
  deb = stw_test_call_json (dispatcher, "production_validate", args);
  g_assert_true (json_object_get_boolean_member (deb, "ok"));
  g_assert_false (json_object_get_boolean_member (deb, "passed"));
  g_assert_cmpstr (status_of (deb, "sandbox"), ==, "fail");
  g_assert_cmpstr (status_of (deb, "fuses.RunAsNode"), ==, "pass");
  g_assert_cmpstr (status_of (deb, "desktop"), ==, "pass");
  g_assert_cmpstr (status_of (deb, "deb.scripts"), ==, "pass");

  g_free (args);
  args = g_strdup_printf ("{\"path\":\"%s\"}", artifact ("appImage"));
  image = stw_test_call_json (dispatcher, "production_validate", args);
  g_assert_true (json_object_get_boolean_member (image, "passed"));
  g_assert_cmpstr (status_of (image, "appimage.signature"), ==, "pass");
  g_assert_cmpstr (status_of (image, "artifact.structure"), ==, "pass");

  g_free (args);
  args = g_strdup_printf ("{\"path\":\"%s\"}", artifact ("textFile"));
  missing = stw_test_call_json (dispatcher, "production_validate", args);
  g_assert_false (json_object_get_boolean_member (missing, "ok"));
  g_assert_cmpstr (json_object_get_string_member (missing, "code"), ==, "production.UNSUPPORTED_ARTIFACT");
  g_assert_true (stw_dispatcher_unload_plugins_sync (dispatcher, NULL, NULL));
}

/* The tool, asynchronous: the insecure directory's fuses and asar fail. */
static void
test_tool_async (void)
{
  g_autoptr(StwDispatcher) dispatcher = NULL;
  g_autoptr(JsonObject) insecure = NULL;
  g_autoptr(JsonObject) outside = NULL;

  if (!build_artifacts ())
    return;
  dispatcher = loaded_dispatcher (TRUE);
  insecure = validate_async_envelope (dispatcher, artifact ("insecureDir"));
  g_assert_true (json_object_get_boolean_member (insecure, "ok"));
  g_assert_false (json_object_get_boolean_member (insecure, "passed"));
  g_assert_cmpstr (status_of (insecure, "fuses.RunAsNode"), ==, "fail");
  g_assert_cmpstr (status_of (insecure, "fuses.EnableNodeCliInspectArguments"), ==, "fail");
  g_assert_cmpstr (status_of (insecure, "fuses.EnableEmbeddedAsarIntegrityValidation"), ==, "pass");
  g_assert_cmpstr (status_of (insecure, "asar.integrity"), ==, "fail");

  outside = validate_async_envelope (dispatcher, "/usr/bin");
  g_assert_cmpstr (json_object_get_string_member (outside, "code"), ==, "BAD_ARGUMENT");
  g_assert_true (stw_dispatcher_unload_plugins_sync (dispatcher, NULL, NULL));
}

/* The typed API, on the plugin the dispatcher loaded (configured and
 * confined by it), blocking and asynchronous. */
static void
test_typed_api (void)
{
  g_autoptr(StwDispatcher) dispatcher = NULL;
  StwProductionPlugin *plugin;
  g_autoptr(StwProductionReport) report = NULL;
  g_autoptr(StwProductionReport) image = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  StwTestResult wait = { 0 };
  StwProductionCheck **checks;
  guint n_checks = 0;

  if (!build_artifacts ())
    return;
  dispatcher = loaded_dispatcher (FALSE);
  g_assert_true (STW_IS_PRODUCTION_PLUGIN (stw_dispatcher_lookup_plugin (dispatcher, "production")));
  plugin = STW_PRODUCTION_PLUGIN (stw_dispatcher_lookup_plugin (dispatcher, "production"));

  stw_production_plugin_validate_async (plugin, artifact ("deb"), NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 120000);
  report = stw_production_plugin_validate_finish (plugin, result, &error);
  g_assert_no_error (error);
  g_assert_false (stw_production_report_get_passed (report));
  g_assert_cmpstr (stw_production_report_get_artifact (report), ==, "deb");
  g_assert_cmpint (stw_production_check_get_status (stw_production_report_lookup_check (report, "sandbox")), ==,
                   STW_PRODUCTION_STATUS_FAIL);
  g_assert_cmpint (stw_production_check_get_status (stw_production_report_lookup_check (report, "asar.integrity")),
                   ==, STW_PRODUCTION_STATUS_PASS);
  checks = stw_production_report_get_checks (report, &n_checks);
  g_assert_cmpuint (n_checks, ==, 14);
  g_assert_cmpstr (stw_production_check_get_id (checks[0]), ==, "artifact.structure");

  image = stw_production_plugin_validate_sync (plugin, artifact ("appImage"), NULL, &error);
  g_assert_no_error (error);
  g_assert_true (stw_production_report_get_passed (image));
  g_assert_cmpint (stw_production_check_get_status (stw_production_report_lookup_check (image,
                                                                                        "fuses.OnlyLoadAppFromAsar")),
                   ==, STW_PRODUCTION_STATUS_PASS);

  /* The confinement lives in the API: no tool is in the way here. */
  g_assert_null (stw_production_plugin_validate_sync (plugin, "/usr/bin", NULL, &error));
  g_assert_cmpstr (stw_error_get_code_name (error), ==, "BAD_ARGUMENT");
  g_clear_error (&error);
  g_assert_null (stw_production_plugin_validate_sync (plugin, artifact ("notAnApp"), NULL, &error));
  g_assert_error (error, STW_PRODUCTION_ERROR, STW_PRODUCTION_ERROR_NOT_A_BUNDLE);

  g_clear_object (&report);
  g_clear_object (&image);
  g_assert_true (stw_dispatcher_unload_plugins_sync (dispatcher, NULL, NULL));
}

int
main (int    argc,
      char **argv)
{
  int status;

  stw_test_init (&argc, &argv);

  g_test_add_func ("/production-plugin/tool-blocking", test_tool_blocking);
  g_test_add_func ("/production-plugin/tool-async", test_tool_async);
  g_test_add_func ("/production-plugin/typed-api", test_typed_api);

  status = g_test_run ();
  if (out_dir != NULL)
    {
      const char *argv_rm[] = { "rm", "-rf", out_dir, NULL };

      g_spawn_sync (NULL, (char **) argv_rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
    }
  g_clear_pointer (&manifest, json_object_unref);
  g_free (out_dir);
  return status;
}
