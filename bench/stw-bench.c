/* stw-bench.c: launch, stop and evaluation round trips through the library
 *
 * Prints one JSON object: launch_ms, stop_ms, main_eval_ms (median of N),
 * renderer_eval_ms (median of N). bench/run puts it next to Playwright.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "stagewright.h"

typedef struct
{
  GMainLoop *loop;
  JsonNode  *value;
  GError    *error;
} Wait;

static void
on_main (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  Wait *wait = user_data;

  wait->value = stw_session_evaluate_main_finish (STW_SESSION (object), result, &wait->error);
  g_main_loop_quit (wait->loop);
}

static void
on_renderer (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  Wait *wait = user_data;

  wait->value = stw_session_evaluate_renderer_finish (STW_SESSION (object), result, &wait->error);
  g_main_loop_quit (wait->loop);
}

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static double
median_eval (StwSession *session,
             gboolean    main_process,
             guint       n)
{
  g_autoptr(GArray) samples = g_array_sized_new (FALSE, FALSE, sizeof (double), n);
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);

  for (guint i = 0; i < n; i++)
    {
      Wait wait = { loop, NULL, NULL };
      gint64 start = g_get_monotonic_time ();
      double ms;

      if (main_process)
        stw_session_evaluate_main_async (session, "1+1", NULL, on_main, &wait);
      else
        stw_session_evaluate_renderer_async (session, "1+1", NULL, on_renderer, &wait);
      g_main_loop_run (loop);
      ms = (double) (g_get_monotonic_time () - start) / 1000.0;
      if (wait.error != NULL)
        g_error ("evaluation failed: %s", wait.error->message);
      if (json_node_get_int (wait.value) != 2)
        g_error ("1+1 was not 2");
      json_node_unref (wait.value);
      g_array_append_val (samples, ms);
    }
  g_array_sort (samples, compare_doubles);
  return g_array_index (samples, double, n / 2);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(StwSessionManager) manager = stw_session_manager_new ();
  g_autoptr(StwSession) session = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *options = NULL;
  guint n = argc > 3 ? (guint) atoi (argv[3]) : 200;
  gint64 start;
  double launch_ms, stop_ms, main_ms, renderer_ms;
  gboolean escalated = FALSE;

  g_log_writer_default_set_use_stderr (TRUE);
  if (argc < 3)
    {
      fprintf (stderr, "usage: %s EXECUTABLE APP_DIR [N]\n", argv[0]);
      return 2;
    }

  options = g_strdup_printf ("{\"executablePath\": \"%s\", \"main\": \"%s\"}", argv[1], argv[2]);
  start = g_get_monotonic_time ();
  session = stw_session_manager_launch_json_sync (manager, options, NULL, &error);
  launch_ms = (double) (g_get_monotonic_time () - start) / 1000.0;
  if (session == NULL)
    g_error ("launch failed: %s", error->message);

  main_ms = median_eval (session, TRUE, n);
  renderer_ms = median_eval (session, FALSE, n);

  start = g_get_monotonic_time ();
  if (!stw_session_stop_sync (session, 10000, &escalated, NULL, &error))
    g_error ("stop failed: %s", error->message);
  stop_ms = (double) (g_get_monotonic_time () - start) / 1000.0;

  printf ("{\"launch_ms\": %.1f, \"stop_ms\": %.1f, \"main_eval_ms\": %.3f, \"renderer_eval_ms\": %.3f, "
          "\"escalated\": %s, \"n\": %u}\n",
          launch_ms, stop_ms, main_ms, renderer_ms, escalated ? "true" : "false", n);
  return 0;
}
