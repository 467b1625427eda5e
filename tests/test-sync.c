/* test-sync.c: the one blocking-call policy
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Blocking calls iterate the context their object was made in. A harness
 * thread with its own context drives its own objects; a blocking call from
 * inside a callback works; a call from a thread that cannot run the
 * object's context is refused as a programmer error instead of hanging.
 */
#include "config.h"

#include <stagewright/stagewright.h>

#include "stw-sync-private.h"

static JsonObject *
status_sync (StwDispatcher *dispatcher)
{
  g_autoptr(GError) error = NULL;
  JsonObject *envelope = stw_dispatcher_call_sync (dispatcher, "electron_status", NULL, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (envelope);
  return envelope;
}

static gpointer
own_context_thread (gpointer data)
{
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autoptr(StwDispatcher) dispatcher = NULL;
  g_autoptr(JsonObject) envelope = NULL;

  g_main_context_push_thread_default (context);
  dispatcher = stw_dispatcher_new ();
  stw_dispatcher_add_core_tools (dispatcher);
  envelope = status_sync (dispatcher);
  g_main_context_pop_thread_default (context);
  return GINT_TO_POINTER (json_object_get_boolean_member (envelope, "ok"));
}

static void
test_sync_thread_context (void)
{
  GThread *thread;

  /* The main thread holds the global default context meanwhile, so the
   * worker can only succeed by running its own. */
  g_assert_true (g_main_context_acquire (NULL));
  thread = g_thread_new ("harness", own_context_thread, NULL);
  g_assert_true (GPOINTER_TO_INT (g_thread_join (thread)));
  g_main_context_release (NULL);
}

typedef struct
{
  StwDispatcher *dispatcher;
  JsonObject    *envelope;
  GMainLoop     *loop;
} Nested;

static gboolean
call_from_callback (gpointer data)
{
  Nested *nested = data;

  nested->envelope = status_sync (nested->dispatcher);
  g_main_loop_quit (nested->loop);
  return G_SOURCE_REMOVE;
}

static void
test_sync_nested (void)
{
  g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  Nested nested = { dispatcher, NULL, loop };

  stw_dispatcher_add_core_tools (dispatcher);
  g_idle_add (call_from_callback, &nested);
  g_main_loop_run (loop);
  g_assert_nonnull (nested.envelope);
  g_assert_true (json_object_get_boolean_member (nested.envelope, "ok"));
  json_object_unref (nested.envelope);
}

static gpointer
foreign_thread (gpointer data)
{
  StwDispatcher *dispatcher = data;

  return stw_dispatcher_call_sync (dispatcher, "electron_status", NULL, NULL, NULL);
}

static void
test_sync_foreign_thread (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
      GThread *thread;

      g_log_set_always_fatal (G_LOG_FATAL_MASK);
      stw_dispatcher_add_core_tools (dispatcher);
      g_assert_true (g_main_context_acquire (NULL));
      thread = g_thread_new ("foreign", foreign_thread, dispatcher);
      g_assert_null (g_thread_join (thread));
      g_main_context_release (NULL);
      return;
    }
  g_test_trap_subprocess (NULL, 10 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr ("*CRITICAL*_stw_sync_call_init*g_main_context_acquire*");
}

static void
test_sync_other_default (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr(StwDispatcher) dispatcher = stw_dispatcher_new ();
      g_autoptr(GMainContext) other = g_main_context_new ();

      g_log_set_always_fatal (G_LOG_FATAL_MASK);
      stw_dispatcher_add_core_tools (dispatcher);
      g_main_context_push_thread_default (other);
      g_assert_null (stw_dispatcher_call_sync (dispatcher, "electron_status", NULL, NULL, NULL));
      g_main_context_pop_thread_default (other);
      return;
    }
  g_test_trap_subprocess (NULL, 10 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr ("*CRITICAL*current == context*");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/sync/thread-context", test_sync_thread_context);
  g_test_add_func ("/sync/nested", test_sync_nested);
  g_test_add_func ("/sync/foreign-thread", test_sync_foreign_thread);
  g_test_add_func ("/sync/other-default", test_sync_other_default);

  return g_test_run ();
}
