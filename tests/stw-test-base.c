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

JsonNode *
stw_test_parse (const char *json)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = json_from_string (json, &error);

  g_assert_no_error (error);
  g_assert_nonnull (node);
  return node;
}
