/* stw-test-base.c: the helpers of stw-test-utils.h that need only the
 * public API (setup, timeouts, main-loop waits, plain JSON parsing)
 *
 * Kept apart from stw-test-utils.c, which reaches private API, so that the
 * tests that link the installed library (the installed tests) can use them.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <locale.h>
#include <signal.h>
#include <string.h>

#include "stw-test-utils.h"

/* Test helpers {{{1 */

void
stw_test_init (int    *argc,
               char ***argv)
{
  setlocale (LC_ALL, "");
  g_test_init (argc, argv, NULL);
  /* A server writing to a closed pipe must see EPIPE, not die. */
  signal (SIGPIPE, SIG_IGN);
}

gboolean
stw_test_running_on_valgrind (void)
{
  const char *preload = g_getenv ("LD_PRELOAD");

  /* valgrind.h is not a build dependency; its preload library is a tell. */
  return preload != NULL && strstr (preload, "vgpreload") != NULL;
}

/* This process's resident set, in KiB. */
gint64
stw_test_rss_kib (void)
{
  g_autofree char *status = NULL;
  const char *line;

  g_assert_true (g_file_get_contents ("/proc/self/status", &status, NULL, NULL));
  line = strstr (status, "\nVmRSS:");
  g_assert_nonnull (line);
  return g_ascii_strtoll (line + strlen ("\nVmRSS:"), NULL, 10);
}

guint
stw_test_timeout_ms (guint base_ms)
{
  const char *factor = g_getenv ("STW_TEST_TIMEOUT_FACTOR");
  guint64 scale = 1;

  if (factor != NULL && *factor != '\0')
    scale = MAX (g_ascii_strtoull (factor, NULL, 10), 1);
  else if (stw_test_running_on_valgrind ())
    scale = 10;
  return (guint) MIN ((guint64) base_ms * scale, G_MAXUINT);
}

static gboolean
set_flag_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

gboolean
stw_test_wait_until (const gboolean *flag,
                     guint           timeout_ms)
{
  gboolean expired = FALSE;
  GSource *source = g_timeout_source_new (timeout_ms);

  g_source_set_callback (source, set_flag_cb, &expired, NULL);
  g_source_attach (source, NULL);
  while (!*flag && !expired)
    g_main_context_iteration (NULL, TRUE);
  g_source_destroy (source);
  g_source_unref (source);

  return *flag;
}

void
stw_test_iterate_for (guint ms)
{
  gboolean never = FALSE;

  stw_test_wait_until (&never, ms);
}

void
stw_test_result_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  StwTestResult *wait = user_data;

  g_assert_null (wait->result);
  wait->result = g_object_ref (result);
}

GAsyncResult *
stw_test_wait_result (StwTestResult *wait,
                      guint          timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) stw_test_timeout_ms (timeout_ms) * 1000;

  while (wait->result == NULL)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      if (!g_main_context_iteration (NULL, FALSE))
        g_usleep (1000);
    }
  return g_steal_pointer (&wait->result);
}

/* The Electron stand-in {{{1 */

gboolean
stw_test_electron_available (void)
{
  g_autofree char *electron = g_test_build_filename (G_TEST_DIST, "fixtures", "electron", NULL);

  return g_file_test (electron, G_FILE_TEST_IS_EXECUTABLE) &&
         g_file_test ("/usr/lib/chromium/chromium", G_FILE_TEST_IS_EXECUTABLE);
}

JsonObject *
stw_test_call_json (StwDispatcher *dispatcher,
                    const char    *tool,
                    const char    *arguments)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = stw_dispatcher_call_json_sync (dispatcher, tool, arguments, NULL, &error);
  g_autoptr(JsonNode) node = NULL;

  g_assert_no_error (error);
  g_assert_nonnull (text);
  node = stw_test_parse (text);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
  return json_object_ref (json_node_get_object (node));
}

/* The pages app (tests/fixtures/pages-app) {{{1 */

StwSession *
stw_test_launch_page (StwSessionManager  *manager,
                      const char         *page,
                      char              **skip)
{
  g_autofree char *electron = g_test_build_filename (G_TEST_DIST, "fixtures", "electron", NULL);
  g_autofree char *main = g_test_build_filename (G_TEST_DIST, "fixtures", "pages-app", NULL);
  g_autofree char *page_arg = g_strdup_printf ("--page=%s", page);
  const char * const args[] = { page_arg, NULL };
  g_autoptr(StwLaunchOptions) options = stw_launch_options_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  StwTestResult wait = { 0 };
  StwSession *session;

  if (!g_file_test (electron, G_FILE_TEST_IS_EXECUTABLE) ||
      !g_file_test ("/usr/lib/chromium/chromium", G_FILE_TEST_IS_EXECUTABLE))
    {
      *skip = g_strdup ("the Electron stand-in or Chromium is missing");
      g_test_skip (*skip);
      return NULL;
    }
  stw_launch_options_set_executable_path (options, electron);
  stw_launch_options_set_main (options, main);
  stw_launch_options_set_args (options, args);
  stw_session_manager_launch_async (manager, options, NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 60000);
  session = stw_session_manager_launch_finish (manager, result, &error);
  g_assert_no_error (error);
  return session;
}

guint
stw_test_snapshot_ref (const char *snapshot_text,
                       const char *role,
                       const char *name)
{
  g_autofree char *wanted = g_strdup_printf ("] %s \"%s\"", role, name);
  g_auto(GStrv) lines = g_strsplit (snapshot_text, "\n", -1);
  guint ref = 0, found = 0;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *line = lines[i] + strspn (lines[i], " ~");
      const char *end = strstr (line, wanted);

      if (line[0] == '[' && g_ascii_isdigit (line[1]) && end != NULL &&
          (end[strlen (wanted)] == '\0' || end[strlen (wanted)] == ' '))
        {
          ref = (guint) g_ascii_strtoull (line + 1, NULL, 10);
          found++;
        }
    }
  if (found != 1)
    g_error ("%u lines show %s \"%s\" in:\n%s", found, role, name, snapshot_text);
  return ref;
}

JsonNode *
stw_test_parse (const char *json)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = json_from_string (json, &error);

  g_assert_no_error (error);
  g_assert_nonnull (node);
  return node;
}

