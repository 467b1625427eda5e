/* test-a11y-plugin.c: the a11y plugin loaded into a dispatcher of a C
 * harness linked to the shared library (issue 20, items 7 and 8), and the
 * core's refs for plugins it binds with
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The plugin from plugins/built/ on tests/fixtures/a11y-pages/audit.html
 * with axe-core from tests/node_modules: its tool, blocking
 * (stw_dispatcher_call_json_sync) and asynchronous
 * (stw_dispatcher_invoke_async), each node's ref read back with
 * electron_get_attribute, the scope's codes; its typed API
 * (StwA11yPlugin's audit triad, answering a StwA11yReport of
 * StwA11yViolation of StwA11yNode) blocking and async, each node's
 * StwElementRef read back with the core's stw_surface_get_attribute_sync,
 * and the API's own checks (no engine, an engine that is not axe or too
 * large, too many tags, the scope's codes), its codes in the plugin's
 * error domain (STW_A11Y_ERROR). Then the core API plugins bind
 * refs with (stw_surface_bind_element_ref,
 * stw_surface_resolve_element_async).
 */
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include <stw-a11y.h>

#include "stw-test-utils.h"

static char *
plugin_file (void)
{
  return g_test_build_filename (G_TEST_BUILT, "..", "plugins", "built", "a11y.plugin", NULL);
}

static char *
engine_file (void)
{
  const char *modules = g_getenv ("STW_NODE_MODULES");

  if (modules != NULL && *modules != '\0')
    return g_build_filename (modules, "axe-core", "axe.min.js", NULL);
  return g_test_build_filename (G_TEST_DIST, "node_modules", "axe-core", "axe.min.js", NULL);
}

/* The same call through stw_dispatcher_invoke_async. */
static JsonObject *
call_async (StwDispatcher *dispatcher,
            const char    *tool,
            const char    *arguments)
{
  g_autoptr(JsonNode) args = stw_test_parse (arguments);
  g_autoptr(GError) error = NULL;
  g_autoptr(StwInvocation) invocation = stw_dispatcher_create_invocation (dispatcher, tool,
                                                                         json_node_get_object (args),
                                                                         &error);
  g_autoptr(GAsyncResult) result = NULL;
  StwTestResult wait = { 0 };
  JsonObject *envelope;

  g_assert_no_error (error);
  stw_dispatcher_invoke_async (dispatcher, invocation, NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 90000);
  envelope = stw_dispatcher_invoke_finish (dispatcher, result, &error);
  g_assert_no_error (error);
  return envelope;
}

static JsonObject *
ok (JsonObject *envelope)
{
  if (!json_object_get_boolean_member (envelope, "ok"))
    g_error ("unexpected failure: %s", json_object_get_string_member_with_default (envelope, "error", "?"));
  return envelope;
}

static void
assert_code (JsonObject *envelope,
             const char *code)
{
  g_assert_false (json_object_get_boolean_member (envelope, "ok"));
  g_assert_cmpstr (json_object_get_string_member (envelope, "code"), ==, code);
}

typedef struct
{
  StwDispatcher *dispatcher;
  GList         *loaded;
  char          *session_id;
} Fixture;

static gboolean
setup (Fixture *fixture)
{
  g_autofree char *file = plugin_file ();
  g_autofree char *engine = engine_file ();
  g_autofree char *electron = g_test_build_filename (G_TEST_DIST, "fixtures", "electron", NULL);
  g_autofree char *app = g_test_build_filename (G_TEST_DIST, "fixtures", "pages-app", NULL);
  g_autofree char *pages = g_test_build_filename (G_TEST_DIST, "fixtures", "a11y-pages", NULL);
  g_autofree char *launch_args = NULL;
  const char * const specs[] = { file, NULL };
  g_autoptr(JsonObject) configs = json_object_new ();
  g_autoptr(JsonObject) config = json_object_new ();
  g_autoptr(JsonObject) launch = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  StwTestResult wait = { 0 };

  if (!stw_test_electron_available () || !g_file_test (engine, G_FILE_TEST_IS_REGULAR))
    {
      g_test_skip ("the Electron stand-in, Chromium or axe-core is missing");
      return FALSE;
    }

  fixture->dispatcher = stw_dispatcher_new ();
  stw_dispatcher_add_core_tools (fixture->dispatcher);
  json_object_set_string_member (config, "engine", engine);
  json_object_set_object_member (configs, "a11y", g_steal_pointer (&config));
  stw_dispatcher_load_plugins_async (fixture->dispatcher, specs, configs, NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 60000);
  fixture->loaded = stw_dispatcher_load_plugins_finish (fixture->dispatcher, result, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_list_length (fixture->loaded), ==, 1);

  launch_args = g_strdup_printf ("{\"executablePath\":\"%s\",\"main\":\"%s\",\"args\":[\"--page=audit\","
                                 "\"--pages-dir=%s\"]}", electron, app, pages);
  launch = ok (stw_test_call_json (fixture->dispatcher, "electron_launch", launch_args));
  fixture->session_id = g_strdup (json_object_get_string_member (launch, "session_id"));
  return TRUE;
}

static void
teardown (Fixture *fixture)
{
  g_autofree char *stop_args = g_strdup_printf ("{\"sessionId\":\"%s\"}", fixture->session_id);
  g_autoptr(JsonObject) stopped = ok (stw_test_call_json (fixture->dispatcher, "electron_stop", stop_args));
  g_autoptr(GError) error = NULL;

  g_assert_true (stw_dispatcher_unload_plugins_sync (fixture->dispatcher, NULL, &error));
  g_assert_no_error (error);
  g_assert_null (stw_dispatcher_lookup_tool (fixture->dispatcher, "a11y_audit"));
  g_assert_false (stw_error_registry_contains (stw_error_registry_get_default (), "a11y.UNSUPPORTED"));
  g_list_free_full (fixture->loaded, g_object_unref);
  g_clear_object (&fixture->dispatcher);
  g_free (fixture->session_id);
}

static char *
session_args (const char *session_id,
              const char *rest)
{
  return g_strdup_printf ("{\"sessionId\":\"%s\"%s%s}", session_id, rest ? "," : "", rest ? rest : "");
}

static JsonObject *
violation (JsonObject *audit,
           const char *id)
{
  JsonArray *violations = json_object_get_array_member (audit, "violations");

  for (guint i = 0; i < json_array_get_length (violations); i++)
    {
      JsonObject *item = json_array_get_object_element (violations, i);

      if (g_strcmp0 (json_object_get_string_member (item, "id"), id) == 0)
        return item;
    }
  return NULL;
}

/* The id attribute of the element a ref names, through the core tool. */
static char *
id_of_ref (Fixture *fixture,
           gint64   ref)
{
  g_autofree char *rest = g_strdup_printf ("\"ref\":%" G_GINT64_FORMAT ",\"name\":\"id\"", ref);
  g_autofree char *args = session_args (fixture->session_id, rest);
  g_autoptr(JsonObject) answer = ok (stw_test_call_json (fixture->dispatcher, "electron_get_attribute", args));

  return g_strdup (json_object_get_string_member (answer, "value"));
}

/* Both frames are up once the audit sees three images without alt. */
static JsonObject *
audit_when_ready (Fixture *fixture)
{
  g_autofree char *args = session_args (fixture->session_id, NULL);
  g_autofree char *last = NULL;

  for (guint attempt = 0; attempt < 100; attempt++)
    {
      JsonObject *audit = ok (stw_test_call_json (fixture->dispatcher, "a11y_audit", args));
      JsonObject *images = violation (audit, "image-alt");
      g_autoptr(JsonNode) capabilities = json_node_init_object (json_node_alloc (),
                                                                json_object_get_object_member (audit, "capabilities"));

      if (images != NULL && json_array_get_length (json_object_get_array_member (images, "nodes")) == 3)
        return audit;
      g_free (last);
      last = json_to_string (capabilities, FALSE);
      json_object_unref (audit);
      stw_test_iterate_for (200);
    }
  {
    StwSession *session = stw_session_manager_lookup (stw_dispatcher_get_session_manager (fixture->dispatcher),
                                                      fixture->session_id);
    GList *surfaces = stw_session_list_surfaces (session);

    for (GList *l = surfaces; l != NULL; l = l->next)
      g_printerr ("surface %s kind %d frame %s url %s\n", stw_surface_get_id (l->data), stw_surface_get_kind (l->data),
                  stw_surface_get_frame_id (l->data), stw_surface_get_url (l->data));
    g_list_free (surfaces);
  }
  g_error ("the audit page's frames never showed three images without alt: %s", last);
  return NULL;
}

static void
test_audit (void)
{
  Fixture fixture = { 0 };
  g_autoptr(JsonObject) blocking = NULL;
  g_autoptr(JsonObject) async = NULL;
  g_autoptr(JsonObject) invalid = NULL;
  g_autoptr(JsonObject) missing = NULL;
  g_autofree char *rules = NULL;
  g_autofree char *bad = NULL;
  g_autofree char *none = NULL;
  const char * const expected[] = { "label", "nameless", "color-contrast", "faint", "image-alt", NULL, NULL };

  if (!setup (&fixture))
    return;

  blocking = audit_when_ready (&fixture);
  for (guint i = 0; expected[i] != NULL; i += 2)
    {
      JsonObject *item = violation (blocking, expected[i]);
      JsonArray *nodes;

      g_assert_nonnull (item);
      g_assert_true (g_str_has_prefix (json_object_get_string_member (item, "helpUrl"), "https://dequeuniversity.com/"));
      nodes = json_object_get_array_member (item, "nodes");
      for (guint j = 0; j < json_array_get_length (nodes); j++)
        {
          JsonObject *node = json_array_get_object_element (nodes, j);
          g_autofree char *id = id_of_ref (&fixture, json_object_get_int_member (node, "ref"));

          if (expected[i + 1] != NULL)
            g_assert_cmpstr (id, ==, expected[i + 1]);
          else
            g_assert_true (g_strcmp0 (id, "noalt") == 0 || g_strcmp0 (id, "frame-noalt") == 0);
        }
    }

  /* Asynchronous, the same elements with the same refs. */
  rules = session_args (fixture.session_id, "\"rules\":[\"image-alt\",\"label\"]");
  async = ok (call_async (fixture.dispatcher, "a11y_audit", rules));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (async, "violations")), ==, 2);
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (json_object_get_array_member (
                     violation (async, "label"), "nodes"), 0), "ref"), ==,
                   json_object_get_int_member (json_array_get_object_element (json_object_get_array_member (
                     violation (blocking, "label"), "nodes"), 0), "ref"));

  bad = session_args (fixture.session_id, "\"selector\":\"##\"");
  invalid = call_async (fixture.dispatcher, "a11y_audit", bad);
  assert_code (invalid, "a11y.INVALID_SELECTOR");
  none = session_args (fixture.session_id, "\"selector\":\"#no-such-element\"");
  missing = stw_test_call_json (fixture.dispatcher, "a11y_audit", none);
  assert_code (missing, "a11y.SCOPE_NOT_FOUND");

  teardown (&fixture);
}

/* The violation of @rule in a typed report, or NULL. */
static StwA11yViolation *
report_violation (StwA11yReport *report,
                  const char    *rule)
{
  GListModel *violations = stw_a11y_report_get_violations (report);

  for (guint i = 0; i < g_list_model_get_n_items (violations); i++)
    {
      g_autoptr(StwA11yViolation) item = g_list_model_get_item (violations, i);

      if (g_strcmp0 (stw_a11y_violation_get_id (item), rule) == 0)
        return item;  /* the report holds it */
    }
  return NULL;
}

/* The id attribute of the element @node names, through the core's typed
 * read API on the surface its ref lives in. */
static char *
id_of_node (StwSession  *session,
            StwA11yNode *node)
{
  const StwElementRef *element = stw_a11y_node_get_element (node);
  g_autoptr(StwTarget) target = NULL;
  g_autoptr(StwElementRef) read = NULL;
  g_autoptr(GError) error = NULL;
  StwSurface *surface = NULL;
  GList *surfaces;
  char *id;

  g_assert_nonnull (element);
  surfaces = stw_session_list_surfaces (session);
  for (GList *l = surfaces; l != NULL; l = l->next)
    if (g_strcmp0 (stw_surface_get_id (l->data), stw_element_ref_get_surface_id (element)) == 0)
      surface = l->data;
  g_list_free (surfaces);
  g_assert_nonnull (surface);
  target = stw_target_new_for_ref (stw_element_ref_get_ref (element));
  id = stw_surface_get_attribute_sync (surface, target, "id", &read, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (stw_element_ref_get_ref (read), ==, stw_element_ref_get_ref (element));
  return id;
}

static gint
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return g_strcmp0 (*(const char * const *) a, *(const char * const *) b);
}

/* The ids of a violation's nodes, sorted, joined with spaces. */
static char *
ids_of (StwSession       *session,
        StwA11yViolation *violation)
{
  GListModel *nodes = stw_a11y_violation_get_nodes (violation);
  g_autoptr(GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);

  g_assert_cmpuint (g_list_model_get_n_items (nodes), ==, stw_a11y_violation_get_n_nodes (violation));
  for (guint i = 0; i < g_list_model_get_n_items (nodes); i++)
    {
      g_autoptr(StwA11yNode) node = g_list_model_get_item (nodes, i);

      g_assert_true (g_strv_length ((char **) stw_a11y_node_get_target (node)) >= 1);
      g_assert_nonnull (strstr (stw_a11y_node_get_html (node), "<"));
      g_assert_cmpstr (stw_a11y_node_get_failure_summary (node), !=, "");
      g_ptr_array_add (ids, id_of_node (session, node));
    }
  g_ptr_array_sort (ids, compare_strings);
  g_ptr_array_add (ids, NULL);
  return g_strjoinv (" ", (char **) ids->pdata);
}

static StwA11yReport *
audit_async (StwA11yPlugin      *plugin,
             StwSession         *session,
             const StwTarget    *scope,
             const char * const *tags,
             const char * const *rules,
             GError            **error)
{
  g_autoptr(GAsyncResult) result = NULL;
  StwTestResult wait = { 0 };

  stw_a11y_plugin_audit_async (plugin, session, scope, tags, rules, NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 90000);
  return stw_a11y_plugin_audit_finish (plugin, result, error);
}

/* @error is @code of the plugin's own domain, and its wire code @name. */
static void
assert_plugin_error (const GError *error,
                     StwA11yError  code,
                     const char   *name)
{
  g_assert_error (error, STW_A11Y_ERROR, (gint) code);
  g_assert_cmpstr (stw_error_get_code_name (error), ==, name);
}

/* An empty directory to run the engine-less plugin in: it looks for
 * node_modules/axe-core/axe.min.js under the working directory. */
static char *
make_engine_dir (const char *engine_text,
                 goffset     engine_size)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("stw-a11y-XXXXXX", &error);
  g_autofree char *modules = NULL;
  g_autofree char *engine = NULL;

  g_assert_no_error (error);
  if (engine_text == NULL && engine_size == 0)
    return dir;
  modules = g_build_filename (dir, "node_modules", "axe-core", NULL);
  g_assert_cmpint (g_mkdir_with_parents (modules, 0700), ==, 0);
  engine = g_build_filename (modules, "axe.min.js", NULL);
  if (engine_text != NULL)
    g_file_set_contents (engine, engine_text, -1, &error);
  else
    {
      /* Sparse: the size is checked before a byte is read. */
      FILE *file = fopen (engine, "w");

      g_assert_nonnull (file);
      g_assert_cmpint (ftruncate (fileno (file), engine_size), ==, 0);
      fclose (file);
    }
  g_assert_no_error (error);
  return dir;
}

static void
remove_engine_dir (const char *dir)
{
  g_autofree char *modules = g_build_filename (dir, "node_modules", NULL);
  g_autofree char *axe = g_build_filename (modules, "axe-core", NULL);
  g_autofree char *engine = g_build_filename (axe, "axe.min.js", NULL);

  g_remove (engine);
  g_rmdir (axe);
  g_rmdir (modules);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* A plugin outside any dispatcher (no config: the default engine path,
 * under the working directory) in @dir: the API answers a11y.UNSUPPORTED
 * by itself, before it needs the app. */
static void
assert_unsupported_in (StwSession *session,
                       const char *dir,
                       const char *why)
{
  g_autoptr(StwA11yPlugin) bare = stw_a11y_plugin_new ();
  g_autoptr(StwA11yReport) report = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *cwd = g_get_current_dir ();

  g_assert_cmpint (g_chdir (dir), ==, 0);
  report = stw_a11y_plugin_audit_sync (bare, session, NULL, NULL, NULL, NULL, &error);
  g_assert_cmpint (g_chdir (cwd), ==, 0);
  g_assert_null (report);
  assert_plugin_error (error, STW_A11Y_ERROR_UNSUPPORTED, "a11y.UNSUPPORTED");
  g_assert_nonnull (strstr (error->message, why));
  g_assert_nonnull (strstr (stw_error_get_hint (error), "npm install axe-core"));
}

/* The typed API, blocking and async, on the same page the tool audits. */
static void
test_api (void)
{
  Fixture fixture = { 0 };
  StwSession *session;
  StwA11yPlugin *plugin;
  g_autoptr(StwA11yReport) report = NULL;
  g_autoptr(StwA11yReport) scoped = NULL;
  g_autoptr(StwA11yReport) by_ref = NULL;
  g_autoptr(StwA11yReport) refused = NULL;
  g_autoptr(StwTarget) invalid = stw_target_new_for_selector ("##");
  g_autoptr(StwTarget) missing = stw_target_new_for_selector ("#no-such-element");
  g_autoptr(StwTarget) input = NULL;
  g_autoptr(GStrvBuilder) many = g_strv_builder_new ();
  g_auto(GStrv) too_many = NULL;
  g_autoptr(GError) error = NULL;
  const char * const rules[] = { "image-alt", "label", NULL };
  const char * const empty_tag[] = { "", NULL };
  StwA11yViolation *violation;
  g_autofree char *label_ids = NULL;
  g_autofree char *image_ids = NULL;
  g_autofree char *contrast_ids = NULL;
  g_autofree char *no_engine = NULL;
  g_autofree char *not_axe = NULL;
  g_autofree char *too_large = NULL;
  guint label_ref;

  if (!setup (&fixture))
    return;
  session = stw_session_manager_lookup (stw_dispatcher_get_session_manager (fixture.dispatcher), fixture.session_id);
  plugin = STW_A11Y_PLUGIN (stw_dispatcher_lookup_plugin (fixture.dispatcher, "a11y"));
  g_assert_true (STW_IS_A11Y_PLUGIN (plugin));
  g_assert_true (plugin == fixture.loaded->data);

  /* Blocking: both frames are up once three images without alt show. */
  for (guint attempt = 0; attempt < 100; attempt++)
    {
      g_clear_object (&report);
      report = stw_a11y_plugin_audit_sync (plugin, session, NULL, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      violation = report_violation (report, "image-alt");
      if (violation != NULL && g_list_model_get_n_items (stw_a11y_violation_get_nodes (violation)) == 3)
        break;
      stw_test_iterate_for (200);
    }
  g_assert_true (STW_IS_A11Y_REPORT (report));
  g_assert_cmpstr (stw_a11y_report_get_surface_id (report), ==,
                   stw_surface_get_id (stw_session_get_active_surface (session)));
  g_assert_cmpstr (stw_a11y_report_get_engine_version (report), ==, "4.14.1");
  g_assert_cmpuint (stw_a11y_report_get_n_frames (report), ==, 3);
  g_assert_cmpuint (stw_a11y_report_get_n_frames_skipped (report), ==, 0);
  g_assert_false (stw_a11y_report_get_closed_shadow_roots (report));
  g_assert_nonnull (strstr (stw_a11y_report_get_notes (report)[0], "closed shadow roots"));
  g_assert_false (stw_a11y_report_get_truncated (report));
  g_assert_cmpuint (stw_a11y_report_get_n_passes (report), >, 0);
  g_assert_cmpuint (stw_a11y_report_get_n_violations (report), ==,
                    g_list_model_get_n_items (stw_a11y_report_get_violations (report)));

  violation = report_violation (report, "label");
  g_assert_nonnull (violation);
  g_assert_true (g_str_has_prefix (stw_a11y_violation_get_help_url (violation), "https://dequeuniversity.com/"));
  g_assert_true (g_strv_contains (stw_a11y_violation_get_tags (violation), "wcag2a"));
  g_assert_cmpstr (stw_a11y_violation_get_impact (violation), ==, "critical");
  g_assert_cmpstr (stw_a11y_violation_get_help (violation), !=, "");
  label_ids = ids_of (session, violation);
  g_assert_cmpstr (label_ids, ==, "nameless");
  {
    g_autoptr(StwA11yNode) node = g_list_model_get_item (stw_a11y_violation_get_nodes (violation), 0);
    g_autoptr(StwElementRef) element = NULL;

    g_object_get (node, "element", &element, NULL);
    label_ref = stw_element_ref_get_ref (element);
    g_assert_cmpuint (label_ref, >, 0);
  }
  violation = report_violation (report, "color-contrast");
  g_assert_nonnull (violation);
  contrast_ids = ids_of (session, violation);
  g_assert_cmpstr (contrast_ids, ==, "faint");
  violation = report_violation (report, "image-alt");
  g_assert_nonnull (violation);
  image_ids = ids_of (session, violation);
  g_assert_cmpstr (image_ids, ==, "frame-noalt frame-noalt noalt");

  /* Async, only two rules: the same elements with the same refs. */
  scoped = audit_async (plugin, session, NULL, NULL, rules, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_list_model_get_n_items (stw_a11y_report_get_violations (scoped)), ==, 2);
  {
    g_autoptr(StwA11yNode) node = g_list_model_get_item (
      stw_a11y_violation_get_nodes (report_violation (scoped, "label")), 0);

    g_assert_cmpuint (stw_element_ref_get_ref (stw_a11y_node_get_element (node)), ==, label_ref);
  }

  /* Scoped by the input's ref: its subtree only. */
  input = stw_target_new_for_ref (label_ref);
  by_ref = stw_a11y_plugin_audit_sync (plugin, session, input, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (report_violation (by_ref, "label"));
  g_assert_null (report_violation (by_ref, "image-alt"));
  g_assert_null (report_violation (by_ref, "color-contrast"));

  /* The scope's codes, blocking and async. */
  refused = audit_async (plugin, session, invalid, NULL, NULL, &error);
  g_assert_null (refused);
  assert_plugin_error (error, STW_A11Y_ERROR_INVALID_SELECTOR, "a11y.INVALID_SELECTOR");
  g_clear_error (&error);
  refused = stw_a11y_plugin_audit_sync (plugin, session, missing, NULL, NULL, NULL, &error);
  g_assert_null (refused);
  assert_plugin_error (error, STW_A11Y_ERROR_SCOPE_NOT_FOUND, "a11y.SCOPE_NOT_FOUND");
  g_clear_error (&error);

  /* What the tool's schema bounds, the API bounds too. */
  for (guint i = 0; i <= STW_A11Y_MAX_NAMES; i++)
    g_strv_builder_add (many, "wcag2a");
  too_many = g_strv_builder_end (many);
  refused = stw_a11y_plugin_audit_sync (plugin, session, NULL, (const char * const *) too_many, NULL, NULL, &error);
  g_assert_null (refused);
  g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
  g_clear_error (&error);
  refused = audit_async (plugin, session, NULL, empty_tag, NULL, &error);
  g_assert_null (refused);
  g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
  g_clear_error (&error);

  /* No engine, one that is not axe, one too large: a11y.UNSUPPORTED. */
  no_engine = make_engine_dir (NULL, 0);
  assert_unsupported_in (session, no_engine, "No such file");
  remove_engine_dir (no_engine);
  not_axe = make_engine_dir ("console.log ('not axe');", 0);
  assert_unsupported_in (session, not_axe, "not axe-core");
  remove_engine_dir (not_axe);
  too_large = make_engine_dir (NULL, STW_A11Y_ENGINE_MAX_SIZE + 1);
  assert_unsupported_in (session, too_large, "at most 16 MiB");
  remove_engine_dir (too_large);

  teardown (&fixture);
}

/* The core's refs for plugins: a handle from the isolated world becomes a
 * ref any element method takes, and a target becomes a handle again. */
static void
test_core_refs (void)
{
  Fixture fixture = { 0 };
  StwSession *session;
  StwSurface *window;
  g_autoptr(JsonNode) handle = NULL;
  g_autoptr(StwElementRef) element = NULL;
  g_autoptr(StwElementRef) again = NULL;
  g_autoptr(StwTarget) by_ref = NULL;
  g_autoptr(StwTarget) by_selector = NULL;
  g_autoptr(StwSurface) found_in = NULL;
  g_autoptr(JsonObject) resolved = NULL;
  g_autoptr(JsonObject) stale = NULL;
  g_autoptr(JsonObject) not_handle = NULL;
  g_autoptr(JsonArray) args = json_array_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *value = NULL;
  g_autoptr(JsonNode) id = NULL;
  StwTestResult wait = { 0 };

  if (!setup (&fixture))
    return;
  session = stw_session_manager_lookup (stw_dispatcher_get_session_manager (fixture.dispatcher), fixture.session_id);
  window = stw_session_get_active_surface (session);

  stw_surface_call_isolated_async (window, "() => globalThis.__stagewright.handleOf (document.getElementById ('nameless'))",
                                   NULL, NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 30000);
  handle = stw_surface_call_isolated_finish (window, result, &error);
  g_assert_no_error (error);
  element = stw_surface_bind_element_ref (window, json_node_get_object (handle), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (stw_element_ref_get_ref (element), >, 0);
  g_assert_cmpstr (stw_element_ref_get_surface_id (element), ==, stw_surface_get_id (window));
  /* Binding the same element again keeps its ref. */
  again = stw_surface_bind_element_ref (window, json_node_get_object (handle), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (stw_element_ref_get_ref (again), ==, stw_element_ref_get_ref (element));

  by_ref = stw_target_new_for_ref (stw_element_ref_get_ref (element));
  value = stw_surface_get_attribute_sync (window, by_ref, "id", NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (value, ==, "nameless");

  /* And back: a selector's element, found again in the isolated world. */
  by_selector = stw_target_new_for_selector ("#noalt");
  memset (&wait, 0, sizeof wait);
  g_clear_object (&result);
  stw_surface_resolve_element_async (window, by_selector, NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 30000);
  resolved = stw_surface_resolve_element_finish (window, result, &found_in, &error);
  g_assert_no_error (error);
  g_assert_true (found_in == window);
  json_array_add_int_element (args, json_object_get_int_member (resolved, "key"));
  memset (&wait, 0, sizeof wait);
  g_clear_object (&result);
  stw_surface_call_isolated_async (window, "(k) => globalThis.__stagewright.element (k).id", args, NULL,
                                   stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 30000);
  id = stw_surface_call_isolated_finish (window, result, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_node_get_string (id), ==, "noalt");

  /* A handle of another world is refused, and so is what is no handle. */
  stale = json_object_ref (json_node_get_object (handle));
  json_object_set_int_member (stale, "world", json_object_get_int_member (stale, "world") + 1000);
  g_assert_null (stw_surface_bind_element_ref (window, stale, &error));
  g_assert_error (error, STW_ERROR, STW_ERROR_REF_NOT_FOUND);
  g_clear_error (&error);
  not_handle = json_object_new ();
  json_object_set_string_member (not_handle, "role", "textbox");
  g_assert_null (stw_surface_bind_element_ref (window, not_handle, &error));
  g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
  g_clear_error (&error);

  teardown (&fixture);
}

int
main (int    argc,
      char **argv)
{
  stw_test_init (&argc, &argv);

  g_test_add_func ("/a11y-plugin/audit", test_audit);
  g_test_add_func ("/a11y-plugin/api", test_api);
  g_test_add_func ("/a11y-plugin/core-refs", test_core_refs);

  return g_test_run ();
}
