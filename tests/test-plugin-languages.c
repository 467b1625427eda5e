/* test-plugin-languages.c: the three sample plugins (C, Python,
 * JavaScript) in one dispatcher of a C harness linked to the shared library
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * This program links libstagewright-1.0.so and uses only the public API, as
 * a harness outside the tree would: the C sample (plugins/built/) resolves
 * its symbols in that library, and the Python and GJS the loaders embed
 * import the same library through its typelib, so the three plugins and
 * their tools are of the types this program sees. They read the demo app's
 * active window through one dispatcher, answer their namespaced codes, and
 * leave nothing registered once unloaded.
 */
#include <string.h>

#include "stw-test-utils.h"

static const struct
{
  const char *name;
  const char *language;
  const char *prefix;
} samples[] = {
  { "sample", "c", "c» " },
  { "pysample", "python3", "py» " },
  { "jssample", "gjs", "js» " },
};

/* The loaders are optional at configure time; when one was not built, its
 * sample cannot load and the test says which and why. */
static gboolean
loaders_built (void)
{
#ifndef STW_TEST_PYTHON3_LOADER
  g_test_skip ("the Python loader was not built (configure found no python3-embed)");
  return FALSE;
#endif
#ifndef STW_TEST_GJS_LOADER
  g_test_skip ("the GJS loader was not built (configure found no gjs-1.0)");
  return FALSE;
#endif
  return TRUE;
}

/* Each sample's .plugin file: the C one beside its built module, the
 * others in the source tree beside their code. */
static char *
sample_file (const char *name)
{
  g_autofree char *file = g_strconcat (name, ".plugin", NULL);

  if (g_str_equal (name, "sample"))
    return g_test_build_filename (G_TEST_BUILT, "..", "plugins", "built", file, NULL);
  return g_test_build_filename (G_TEST_DIST, "..", "plugins", "samples",
                                g_str_equal (name, "pysample") ? "python" : "js", file, NULL);
}

static JsonObject *
sample_configs (void)
{
  JsonObject *configs = json_object_new ();

  for (guint i = 0; i < G_N_ELEMENTS (samples); i++)
    {
      JsonObject *config = json_object_new ();

      json_object_set_string_member (config, "prefix", samples[i].prefix);
      json_object_set_object_member (configs, samples[i].name, config);
    }
  return configs;
}

static const char *
envelope_code (JsonObject *envelope)
{
  g_assert_false (json_object_get_boolean_member (envelope, "ok"));
  return json_object_get_string_member (envelope, "code");
}

/* The three are loaded: each a plugin of its language, its tool under its
 * namespace, its codes in the registry with their metadata. */
static void
assert_loaded (StwDispatcher *dispatcher,
               GList         *loaded)
{
  StwErrorRegistry *registry = stw_error_registry_get_default ();
  g_autolist(StwPlugin) listed = stw_dispatcher_list_plugins (dispatcher);
  GList *l = loaded;

  g_assert_cmpuint (g_list_length (loaded), ==, G_N_ELEMENTS (samples));
  g_assert_cmpuint (g_list_length (listed), ==, G_N_ELEMENTS (samples));
  for (guint i = 0; i < G_N_ELEMENTS (samples); i++, l = l->next)
    {
      StwPlugin *plugin = l->data;
      g_autofree char *tool = g_strconcat (samples[i].name, "_title", NULL);
      g_autofree char *code = g_strconcat (samples[i].name, ".TITLE_MISMATCH", NULL);
      guint http = 0;
      gboolean retryable = FALSE;
      const char *hint = NULL;

      g_assert_true (STW_IS_PLUGIN (plugin));
      g_assert_cmpstr (stw_tool_provider_get_name (STW_TOOL_PROVIDER (plugin)), ==, samples[i].name);
      g_assert_cmpstr (stw_plugin_get_language (plugin), ==, samples[i].language);
      g_assert_true (stw_plugin_is_loaded (plugin));
      g_assert_true (stw_dispatcher_lookup_plugin (dispatcher, samples[i].name) == plugin);
      g_assert_true (g_list_nth_data (listed, i) == plugin);
      g_assert_nonnull (stw_dispatcher_lookup_tool (dispatcher, tool));
      g_assert_true (stw_error_registry_lookup (registry, code, &http, &retryable, &hint));
      g_assert_cmpuint (http, ==, 409);
      g_assert_true (retryable);
      g_assert_cmpstr (hint, ==, "The title differs; wait for the app to update it and retry.");
    }
}

/* Nothing of any sample stays: no plugin, provider, tool or code, and
 * electron_plugins is gone with the last plugin. */
static void
assert_clean (StwDispatcher *dispatcher,
              GList         *plugins)
{
  g_auto(GStrv) codes = stw_error_registry_list_codes (stw_error_registry_get_default ());
  g_autoptr(GList) tools = stw_dispatcher_list_tools (dispatcher);

  g_assert_null (stw_dispatcher_list_plugins (dispatcher));
  g_assert_null (stw_dispatcher_lookup_tool (dispatcher, "electron_plugins"));
  for (GList *l = plugins; l != NULL; l = l->next)
    g_assert_false (stw_plugin_is_loaded (l->data));
  for (guint i = 0; i < G_N_ELEMENTS (samples); i++)
    {
      g_autofree char *tool_prefix = g_strconcat (samples[i].name, "_", NULL);
      g_autofree char *code_prefix = g_strconcat (samples[i].name, ".", NULL);

      g_assert_null (stw_dispatcher_lookup_plugin (dispatcher, samples[i].name));
      g_assert_null (stw_dispatcher_lookup_provider (dispatcher, samples[i].name));
      for (GList *l = tools; l != NULL; l = l->next)
        g_assert_false (g_str_has_prefix (stw_tool_get_name (l->data), tool_prefix));
      for (guint j = 0; codes[j] != NULL; j++)
        g_assert_false (g_str_has_prefix (codes[j], code_prefix));
    }
}

/* Each sample's tool against the running demo app: the real title, its
 * configured prefix, and its namespaced code with the registry's metadata
 * when the title is not the one expected. All three see the same window. */
static void
check_title_tools (StwDispatcher *dispatcher,
                   const char    *session_id)
{
  g_autofree char *surface_id = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (samples); i++)
    {
      g_autofree char *tool = g_strconcat (samples[i].name, "_title", NULL);
      g_autofree char *args = g_strdup_printf ("{\"sessionId\":\"%s\"}", session_id);
      g_autofree char *mismatch_args = g_strdup_printf ("{\"sessionId\":\"%s\",\"expect\":\"Other\"}",
                                                        session_id);
      g_autofree char *label = g_strconcat (samples[i].prefix, "Stagewright Notes", NULL);
      g_autofree char *code = g_strconcat (samples[i].name, ".TITLE_MISMATCH", NULL);
      g_autoptr(JsonObject) title = stw_test_call_json (dispatcher, tool, args);
      g_autoptr(JsonObject) mismatch = stw_test_call_json (dispatcher, tool, mismatch_args);
      JsonObject *details;

      g_test_message ("%s: %s", tool, json_object_get_string_member_with_default (title, "error", "ok"));
      g_assert_true (json_object_get_boolean_member (title, "ok"));
      g_assert_cmpstr (json_object_get_string_member (title, "title"), ==, "Stagewright Notes");
      g_assert_cmpstr (json_object_get_string_member (title, "label"), ==, label);
      if (surface_id == NULL)
        surface_id = g_strdup (json_object_get_string_member (title, "surfaceId"));
      g_assert_nonnull (surface_id);
      g_assert_cmpstr (json_object_get_string_member (title, "surfaceId"), ==, surface_id);

      g_assert_cmpstr (envelope_code (mismatch), ==, code);
      g_assert_cmpint (json_object_get_int_member (mismatch, "http"), ==, 409);
      g_assert_true (json_object_get_boolean_member (mismatch, "retryable"));
      g_assert_cmpstr (json_object_get_string_member (mismatch, "hint"), ==,
                       "The title differs; wait for the app to update it and retry.");
      g_assert_nonnull (strstr (json_object_get_string_member (mismatch, "error"),
                                "titled “Stagewright Notes”, not “Other”"));
      details = json_object_get_object_member (mismatch, "details");
      g_assert_nonnull (details);
      g_assert_cmpstr (json_object_get_string_member (details, "expected"), ==, "Other");
      g_assert_cmpstr (json_object_get_string_member (details, "actual"), ==, "Stagewright Notes");
    }
}

/* By path, asynchronously: one call loads the three, they drive the demo
 * app, one call unloads them in reverse order. */
static void
test_three_languages (void)
{
  g_autoptr(StwDispatcher) dispatcher = NULL;
  g_autoptr(JsonObject) configs = NULL;
  g_autofree char *c_file = sample_file ("sample");
  g_autofree char *py_file = sample_file ("pysample");
  g_autofree char *js_file = sample_file ("jssample");
  const char * const specs[] = { c_file, py_file, js_file, NULL };
  g_autolist(StwPlugin) loaded = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GAsyncResult) unload_result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) launch = NULL;
  g_autoptr(JsonObject) stop = NULL;
  g_autofree char *launch_args = NULL;
  g_autofree char *electron = g_test_build_filename (G_TEST_DIST, "fixtures", "electron", NULL);
  g_autofree char *app = g_test_build_filename (G_TEST_DIST, "fixtures", "demo-app", NULL);
  g_autofree char *stop_args = NULL;
  const char *session_id;
  StwTestResult wait = { 0 };
  StwTestResult unload_wait = { 0 };

  if (!loaders_built ())
    return;
  if (!stw_test_electron_available ())
    {
      g_test_skip ("the Electron stand-in or Chromium is missing");
      return;
    }
  g_assert_true (g_file_test (c_file, G_FILE_TEST_EXISTS));

  dispatcher = stw_dispatcher_new ();
  stw_dispatcher_add_core_tools (dispatcher);
  configs = sample_configs ();
  stw_dispatcher_load_plugins_async (dispatcher, specs, configs, NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 60000);
  loaded = stw_dispatcher_load_plugins_finish (dispatcher, result, &error);
  g_assert_no_error (error);
  assert_loaded (dispatcher, loaded);

  /* No app yet: the dispatcher answers for each before its tool runs. */
  for (guint i = 0; i < G_N_ELEMENTS (samples); i++)
    {
      g_autofree char *tool = g_strconcat (samples[i].name, "_title", NULL);
      g_autoptr(JsonObject) envelope = stw_test_call_json (dispatcher, tool, "{}");

      g_assert_cmpstr (envelope_code (envelope), ==, "NOT_RUNNING");
    }

  launch_args = g_strdup_printf ("{\"executablePath\":\"%s\",\"main\":\"%s\"}", electron, app);
  launch = stw_test_call_json (dispatcher, "electron_launch", launch_args);
  g_assert_true (json_object_get_boolean_member (launch, "ok"));
  session_id = json_object_get_string_member (launch, "session_id");
  g_assert_nonnull (session_id);

  check_title_tools (dispatcher, session_id);

  stop_args = g_strdup_printf ("{\"sessionId\":\"%s\"}", session_id);
  stop = stw_test_call_json (dispatcher, "electron_stop", stop_args);
  g_assert_true (json_object_get_boolean_member (stop, "ok"));

  stw_dispatcher_unload_plugins_async (dispatcher, NULL, stw_test_result_cb, &unload_wait);
  unload_result = stw_test_wait_result (&unload_wait, 30000);
  g_assert_true (stw_dispatcher_unload_plugins_finish (dispatcher, unload_result, &error));
  g_assert_no_error (error);
  assert_clean (dispatcher, loaded);
}

/* By name, blocking, in a new dispatcher of the same process: the loaders
 * already running (one Python, one GjsContext) take the samples again. */
static void
test_three_languages_by_name_again (void)
{
  g_autoptr(StwDispatcher) dispatcher = NULL;
  g_autoptr(JsonObject) configs = NULL;
  g_autofree char *c_file = sample_file ("sample");
  g_autofree char *py_file = sample_file ("pysample");
  g_autofree char *js_file = sample_file ("jssample");
  g_autofree char *c_dir = g_path_get_dirname (c_file);
  g_autofree char *py_dir = g_path_get_dirname (py_file);
  g_autofree char *js_dir = g_path_get_dirname (js_file);
  g_autofree char *path = g_strjoin (":", c_dir, py_dir, js_dir, NULL);
  const char * const specs[] = { "sample", "pysample", "jssample", NULL };
  g_autolist(StwPlugin) loaded = NULL;
  g_autoptr(GError) error = NULL;

  if (!loaders_built ())
    return;

  dispatcher = stw_dispatcher_new ();
  stw_dispatcher_add_core_tools (dispatcher);
  configs = sample_configs ();
  g_setenv ("STAGEWRIGHT_PLUGIN_PATH", path, TRUE);
  loaded = stw_dispatcher_load_plugins_sync (dispatcher, specs, configs, NULL, &error);
  g_unsetenv ("STAGEWRIGHT_PLUGIN_PATH");
  g_assert_no_error (error);
  assert_loaded (dispatcher, loaded);

  /* electron_plugins lists the three, each in its language. */
  {
    g_autoptr(JsonObject) envelope = stw_test_call_json (dispatcher, "electron_plugins", "{}");
    JsonArray *array = json_object_get_array_member (envelope, "plugins");

    g_assert_true (json_object_get_boolean_member (envelope, "ok"));
    g_assert_cmpuint (json_array_get_length (array), ==, G_N_ELEMENTS (samples));
    for (guint i = 0; i < G_N_ELEMENTS (samples); i++)
      {
        JsonObject *entry = json_array_get_object_element (array, i);

        g_assert_cmpstr (json_object_get_string_member (entry, "name"), ==, samples[i].name);
        g_assert_cmpstr (json_object_get_string_member (entry, "language"), ==, samples[i].language);
      }
  }

  g_assert_true (stw_dispatcher_unload_plugins_sync (dispatcher, NULL, &error));
  g_assert_no_error (error);
  assert_clean (dispatcher, loaded);
}

int
main (int   argc,
      char *argv[])
{
  stw_test_init (&argc, &argv);

  g_test_add_func ("/plugin-languages/three-in-one-dispatcher", test_three_languages);
  g_test_add_func ("/plugin-languages/by-name-again", test_three_languages_by_name_again);
  return g_test_run ();
}
