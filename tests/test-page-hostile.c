/* test-page-hostile.c: snapshots, finds and reads of a real page through the
 * C API, with hostile options — for `make check-valgrind` above all, which
 * runs this program under memcheck (a text snapshot leaked its text).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <stagewright/stagewright.h>

static struct
{
  StwSessionManager *manager;
  StwSession        *session;
  char              *skip;
} app;

static gboolean
have_app (void)
{
  if (app.skip != NULL)
    {
      g_test_skip (app.skip);
      return FALSE;
    }
  g_assert_nonnull (app.session);
  return TRUE;
}

static void
test_launch (void)
{
  g_autofree char *electron = g_test_build_filename (G_TEST_DIST, "fixtures", "electron", NULL);
  g_autofree char *main = g_test_build_filename (G_TEST_DIST, "fixtures", "pages-app", NULL);
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *options = NULL;
  g_autoptr(GError) error = NULL;

  if (!g_file_test (electron, G_FILE_TEST_IS_EXECUTABLE) ||
      !g_file_test ("/usr/lib/chromium/chromium", G_FILE_TEST_IS_EXECUTABLE))
    {
      app.skip = g_strdup ("the Electron stand-in or Chromium is missing");
      g_test_skip (app.skip);
      return;
    }
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "executablePath");
  json_builder_add_string_value (builder, electron);
  json_builder_set_member_name (builder, "main");
  json_builder_add_string_value (builder, main);
  json_builder_set_member_name (builder, "args");
  json_builder_begin_array (builder);
  json_builder_add_string_value (builder, "--page=forms");
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  options = json_to_string (root, FALSE);

  app.manager = stw_session_manager_new ();
  app.session = stw_session_manager_launch_json_sync (app.manager, options, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (stw_session_is_running (app.session));
}

/* Text and JSON snapshots, several times: each answer is the caller's, and
 * nothing of it stays behind (memcheck says so under check-valgrind). */
static void
test_snapshots (void)
{
  StwSurface *surface;

  if (!have_app ())
    return;
  surface = stw_session_get_active_surface (app.session);
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(StwSnapshotOptions) options = stw_snapshot_options_new ();
      g_autoptr(StwSnapshot) answer = NULL;
      g_autoptr(GError) error = NULL;
      const char *text;

      stw_snapshot_options_set_format (options, i % 2 == 0 ? STW_SNAPSHOT_FORMAT_TEXT : STW_SNAPSHOT_FORMAT_JSON);
      answer = stw_surface_snapshot_sync (surface, options, NULL, &error);
      g_assert_no_error (error);
      if (i % 2 == 0)
        {
          text = stw_snapshot_get_text (answer);
          g_assert_nonnull (text);
          g_assert_true (g_str_has_prefix (text, "page \"Forms fixture\""));
        }
      else
        g_assert_nonnull (stw_snapshot_get_entries (answer));
    }
}

/* Options from hostile JSON: refused with BAD_ARGUMENT, never taken. */
static void
test_hostile_options (void)
{
  const char *bad[] = {
    "{\"maxEntries\":0}", "{\"maxEntries\":-1}", "{\"maxEntries\":9007199254740993}",
    "{\"maxEntries\":1.5}", "{\"maxEntries\":\"10\"}", "{\"maxEntries\":1e308}",
    "{\"budgetTokens\":49}", "{\"budgetTokens\":-0.0}", "{\"format\":\"xml\"}",
    "{\"root\":0}", "{\"root\":\"\"}", "{\"root\":true}", "{\"since\":\"first\"}", "{\"interactiveOnly\":1}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(JsonNode) node = json_from_string (bad[i], NULL);
      g_autoptr(StwSnapshotOptions) options = NULL;
      g_autoptr(GError) error = NULL;

      g_assert_nonnull (node);
      options = stw_snapshot_options_new_from_json (json_node_get_object (node), &error);
      if (options != NULL)
        g_test_message ("%s taken", bad[i]);
      g_assert_null (options);
      g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
    }
}

static void
test_stop (void)
{
  g_autoptr(GError) error = NULL;

  if (!have_app ())
    return;
  g_assert_true (stw_session_stop_sync (app.session, 10000, NULL, NULL, &error));
  g_assert_no_error (error);
  g_clear_object (&app.session);
  g_clear_object (&app.manager);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/page-hostile/1-launch", test_launch);
  g_test_add_func ("/page-hostile/2-snapshots", test_snapshots);
  g_test_add_func ("/page-hostile/3-hostile-options", test_hostile_options);
  g_test_add_func ("/page-hostile/4-stop", test_stop);
  status = g_test_run ();
  g_free (app.skip);
  return status;
}
