/* test-dialogs.c: the session's dialog handler, Electron API stubs and
 * console buffer from C, against the pages app (dialogs.html) on the
 * Electron stand-in and Chromium
 *
 * Blocking and asynchronous calls: policies change what the page's dialogs
 * answer (read back from the page), stubbed native dialog, shell and
 * clipboard methods answer in the main process without running the real
 * ones (the stand-in's own records stay empty), and the console buffer
 * filters what the page and the main process logged.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "stagewright.h"
#include "stw-session-private.h"
#include "stw-test-utils.h"

static struct
{
  StwSessionManager *manager;
  StwSession        *session;
  StwSurface        *window;
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
  g_assert_nonnull (app.window);
  return TRUE;
}

static JsonObject *
object_of (const char *json)
{
  g_autoptr(JsonNode) node = stw_test_parse (json);

  return json_object_ref (json_node_get_object (node));
}

static char *
result_text (void)
{
  g_autoptr(StwTarget) target = stw_target_new_for_selector ("#result");
  g_autoptr(GError) error = NULL;
  char *text = stw_surface_get_text_sync (app.window, target, NULL, NULL, &error);

  g_assert_no_error (error);
  return text;
}

/* Clicks @selector; returns the click's answer. */
static StwActionResult *
click (const char *selector)
{
  g_autoptr(StwTarget) target = stw_target_new_for_selector (selector);
  g_autoptr(GError) error = NULL;
  StwActionResult *answer = stw_surface_click_sync (app.window, target, NULL, NULL, &error);

  g_assert_no_error (error);
  return answer;
}

static JsonNode *
evaluate_main (const char *expression)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  StwTestResult wait = { 0 };
  JsonNode *value;

  stw_session_evaluate_main_async (app.session, expression, NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 10000);
  value = stw_session_evaluate_main_finish (app.session, result, &error);
  g_assert_no_error (error);
  return value;
}

/* The local pattern check (until the shared validator): what it refuses
 * and what it lets through, and that a refused shape never runs. */
static void
test_match_patterns (void)
{
  static const char * const refused[] = {
    "(a+)+", "(a*)*", "(a+)*b", "(?:ab+)+", "((a|b)+)*", "(x{2,})+", "(\\w+\\s?)*$",
    "((a)+)+", "(a+){2,}", "/a/g", "/a/y", "/a/imsux", "(", "[", "\\",
  };
  static const char * const allowed[] = {
    "(ab)+", "[a+]+", "\\(a+\\)+", "a+b*c?", "/x/imsu", "(?:ab)*", "([)+])+", "^frame says",
    "/^Hello/i", "(a|b)c+", "", "/a/",
    /* Every round must take a b: linear, whatever a? does. */
    "(a?b)+",
  };
  g_autofree char *long_pattern = g_strnfill (1001, 'a');
  g_autoptr(GError) error = NULL;
  g_autoptr(GRegex) regex = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_autoptr(GError) local = NULL;
      g_autoptr(GRegex) none = _stw_console_compile_match (refused[i], &local);

      if (none != NULL)
        g_error ("%s was let through", refused[i]);
      g_assert_error (local, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
    }
  for (guint i = 0; i < G_N_ELEMENTS (allowed); i++)
    {
      g_autoptr(GError) local = NULL;
      g_autoptr(GRegex) some = _stw_console_compile_match (allowed[i], &local);

      if (some == NULL)
        g_error ("%s was refused: %s", allowed[i], local->message);
    }
  g_assert_null (_stw_console_compile_match (long_pattern, &error));
  g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);

  /* Flags apply: i folds case; JavaScript's $ does not match before a
   * trailing newline. */
  regex = _stw_console_compile_match ("/^HELLO$/i", NULL);
  g_assert_true (g_regex_match (regex, "hello", 0, NULL));
  g_assert_false (g_regex_match (regex, "hello\n", 0, NULL));
}

/* The dialogs unit on its own: it answers a dialog by the policy, records
 * it with its opener, and tells an action what the dialog opened on its
 * CDP session was answered, once, and nothing about another session's. */
static void
test_unit_take_opened (void)
{
  StwDialogs *dialogs = _stw_dialogs_new ();
  g_autoptr(JsonObject) policy = json_object_new ();
  g_autoptr(JsonObject) event = json_object_new ();
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(JsonObject) elsewhere = NULL;
  g_autoptr(JsonObject) opened = NULL;
  StwTransport *transport = NULL;
  StwTestCdpPeer *peer = NULL;
  g_autoptr(GError) error = NULL;

  json_object_set_string_member (policy, "action", "accept");
  json_object_set_boolean_member (policy, "oneShot", TRUE);
  g_assert_true (_stw_dialogs_set_policy (dialogs, policy, &error));
  g_assert_no_error (error);

  json_object_set_string_member (event, "type", "confirm");
  json_object_set_string_member (event, "message", "Sure?");
  answer = _stw_dialogs_answer (dialogs, event, "S1", "w1", "s1");
  g_assert_true (json_object_get_boolean_member (answer, "accept"));

  /* Another page's dialog is answered before the action on S1 asks (one
   * read of the connection can carry both events): it does not take S1's
   * place. One shot, so it is dismissed. */
  {
    g_autoptr(JsonObject) other = json_object_new ();
    g_autoptr(JsonObject) other_answer = NULL;

    json_object_set_string_member (other, "type", "alert");
    json_object_set_string_member (other, "message", "Elsewhere");
    other_answer = _stw_dialogs_answer (dialogs, other, "S9", "w9", "s9");
    g_assert_false (json_object_get_boolean_member (other_answer, "accept"));
  }

  /* The action on S1 is told what its dialog was answered (no transport:
   * the unit has the answer, and sends nothing). */
  opened = _stw_dialogs_take_opened (dialogs, NULL, "S1", event);
  g_assert_cmpstr (json_object_get_string_member (opened, "type"), ==, "confirm");
  g_assert_cmpstr (json_object_get_string_member (opened, "message"), ==, "Sure?");
  g_assert_cmpstr (json_object_get_string_member (opened, "action"), ==, "accept");

  /* One shot: the next dialog is dismissed, the default. */
  g_clear_pointer (&answer, json_object_unref);
  answer = _stw_dialogs_answer (dialogs, event, "S2", NULL, "s2");
  g_assert_false (json_object_get_boolean_member (answer, "accept"));
  /* Accepting again, a dialog on S3; what opened on S1 since is one
   * nobody answered: dismissed on the transport, not S3's answer. */
  json_object_remove_member (policy, "oneShot");
  g_assert_true (_stw_dialogs_set_policy (dialogs, policy, &error));
  g_clear_pointer (&answer, json_object_unref);
  answer = _stw_dialogs_answer (dialogs, event, "S3", "w3", "s3");
  g_assert_true (json_object_get_boolean_member (answer, "accept"));
  peer = stw_test_cdp_peer_new_pipe (&transport);
  elsewhere = _stw_dialogs_take_opened (dialogs, transport, "S1", event);
  g_assert_cmpstr (json_object_get_string_member (elsewhere, "action"), ==, "dismiss");
  g_assert_cmpstr (json_object_get_string_member (elsewhere, "message"), ==, "Sure?");
  /* S3's answer stays for S3's action. */
  g_clear_pointer (&opened, json_object_unref);
  opened = _stw_dialogs_take_opened (dialogs, transport, "S3", event);
  g_assert_cmpstr (json_object_get_string_member (opened, "action"), ==, "accept");
  g_object_unref (transport);
  stw_test_cdp_peer_free (peer);
  _stw_dialogs_free (dialogs);
}

static void
test_launch (void)
{
  g_autofree char *electron = g_test_build_filename (G_TEST_DIST, "fixtures", "electron", NULL);
  g_autofree char *main = g_test_build_filename (G_TEST_DIST, "fixtures", "pages-app", NULL);
  g_autoptr(StwLaunchOptions) options = stw_launch_options_new ();
  const char * const args[] = { "--page=dialogs", NULL };
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  StwTestResult wait = { 0 };

  if (!g_file_test (electron, G_FILE_TEST_IS_EXECUTABLE) ||
      !g_file_test ("/usr/lib/chromium/chromium", G_FILE_TEST_IS_EXECUTABLE))
    {
      app.skip = g_strdup ("the Electron stand-in or Chromium is missing");
      g_test_skip (app.skip);
      return;
    }

  stw_launch_options_set_executable_path (options, electron);
  stw_launch_options_set_main (options, main);
  stw_launch_options_set_args (options, args);
  app.manager = stw_session_manager_new ();
  stw_session_manager_launch_async (app.manager, options, NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 60000);
  app.session = stw_session_manager_launch_finish (app.manager, result, &error);
  g_assert_no_error (error);
  app.window = g_object_ref (stw_session_get_active_surface (app.session));
  g_assert_true (stw_session_has_main_process (app.session));
}

static void
test_policy (void)
{
  static const char * const refused[] = {
    "{\"action\":\"maybe\"}", "{\"action\":1}", "{\"perType\":[]}", "{\"perType\":{\"toast\":\"accept\"}}",
    "{\"perType\":{\"alert\":null}}", "{\"promptText\":\"x\"}", "{\"action\":\"accept\",\"promptText\":7}",
    "{\"action\":\"accept\",\"perType\":{\"prompt\":\"dismiss\"},\"promptText\":\"x\"}",
    "{\"oneShot\":1}",
  };
  g_autoptr(StwDialogPolicy) policy = NULL;
  g_autoptr(JsonObject) accept = object_of ("{\"action\":\"dismiss\",\"perType\":{\"prompt\":\"accept\"},"
                                            "\"promptText\":\"Grace\",\"oneShot\":true}");
  g_autoptr(GError) error = NULL;

  if (!have_app ())
    return;

  policy = stw_session_dup_dialog_policy (app.session);
  g_assert_cmpstr (stw_dialog_policy_get_action (policy), ==, "dismiss");
  g_assert_false (stw_dialog_policy_is_one_shot (policy));

  g_assert_true (stw_session_set_dialog_policy (app.session, accept, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_autoptr(JsonObject) bad = object_of (refused[i]);
      g_autoptr(GError) local = NULL;

      g_assert_false (stw_session_set_dialog_policy (app.session, bad, &local));
      g_assert_error (local, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
    }
  /* Refused policies changed nothing. */
  g_clear_pointer (&policy, stw_dialog_policy_unref);
  policy = stw_session_dup_dialog_policy (app.session);
  g_assert_cmpstr (stw_dialog_policy_get_prompt_text (policy), ==, "Grace");
  g_assert_true (stw_dialog_policy_is_one_shot (policy));
  g_assert_cmpstr (stw_dialog_policy_get_action_for (policy, "prompt"), ==, "accept");
  g_assert_cmpstr (stw_dialog_policy_get_action_for (policy, "confirm"), ==, "dismiss");
}

static void
test_page_dialogs_sync (void)
{
  g_autoptr(StwActionResult) answer = NULL;
  g_autoptr(StwDialogLog) events = NULL;
  g_autoptr(JsonObject) filter = object_of ("{\"type\":\"prompt\",\"limit\":1}");
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  const StwDialogEvent *entry;

  if (!have_app ())
    return;

  /* The one-shot policy of test_policy answers the prompt, then dismiss. */
  answer = click ("#prompt");
  g_assert_cmpstr (stw_dialog_event_get_action (stw_action_result_get_dialog (answer)), ==, "accept");
  g_assert_cmpstr (stw_dialog_event_get_kind (stw_action_result_get_dialog (answer)), ==, "prompt");
  text = result_text ();
  g_assert_cmpstr (text, ==, "prompt \"Grace\"");
  g_clear_pointer (&answer, stw_action_result_free);
  g_clear_pointer (&text, g_free);
  answer = click ("#prompt");
  text = result_text ();
  g_assert_cmpstr (text, ==, "prompt null");

  events = stw_session_read_dialog_events_sync (app.session, filter, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (stw_dialog_log_get_n_events (events), ==, 1);
  entry = stw_dialog_log_get_event (events, 0);
  g_assert_cmpstr (stw_dialog_event_get_kind (entry), ==, "prompt");
  g_assert_cmpstr (stw_dialog_event_get_action (entry), ==, "dismiss");
  g_assert_cmpstr (stw_dialog_event_get_default_value (entry), ==, "Ada");
  g_assert_cmpstr (stw_dialog_event_get_window_id (entry), ==, stw_surface_get_window_id (app.window));
  g_assert_cmpstr (stw_dialog_event_get_surface_id (entry), ==, stw_surface_get_id (app.window));
  g_assert_cmpint (stw_dialog_event_get_timestamp (entry), >, 0);
  g_assert_false (stw_dialog_event_is_stubbed_call (entry));
}

static void
test_page_dialogs_async (void)
{
  g_autoptr(JsonObject) accept = object_of ("{\"action\":\"accept\"}");
  g_autoptr(JsonObject) filter = object_of ("{\"type\":[\"confirm\",\"alert\"],\"clear\":true}");
  g_autoptr(StwTarget) target = stw_target_new_for_selector ("#confirm");
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(StwActionResult) answer = NULL;
  g_autoptr(StwDialogLog) events = NULL;
  g_autoptr(StwDialogLog) after = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  StwTestResult wait = { 0 };

  if (!have_app ())
    return;

  g_assert_true (stw_session_set_dialog_policy (app.session, accept, &error));
  /* The confirm holds the click's acknowledgement back until the handler
   * answered it: the click completes, not deadlocks. */
  stw_surface_click_async (app.window, target, NULL, NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 10000);
  answer = stw_surface_click_finish (app.window, result, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (stw_dialog_event_get_kind (stw_action_result_get_dialog (answer)), ==, "confirm");
  text = result_text ();
  g_assert_cmpstr (text, ==, "confirm true");

  g_clear_object (&result);
  stw_session_read_dialog_events_async (app.session, filter, NULL, stw_test_result_cb, &wait);
  result = stw_test_wait_result (&wait, 10000);
  events = stw_session_read_dialog_events_finish (app.session, result, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (stw_dialog_log_get_n_events (events), ==, 1);
  g_assert_cmpstr (stw_dialog_event_get_message (stw_dialog_log_get_event (events, 0)), ==, "Delete everything?");
  g_assert_cmpstr (stw_dialog_policy_get_action (stw_dialog_log_get_policy (events)), ==, "accept");

  /* clear emptied the buffer. */
  after = stw_session_read_dialog_events_sync (app.session, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (stw_dialog_log_get_n_events (after), ==, 0);
}

static void
test_stubs (void)
{
  g_autoptr(JsonObject) stubs = object_of ("{\"dialog.showMessageBoxSync\":2,\"dialog.showErrorBox\":true,"
                                           "\"dialog.showOpenDialogSync\":[\"/tmp/a\"],"
                                           "\"shell.openExternal\":true,\"shell.openPath\":\"no such file\","
                                           "\"clipboard.writeText\":true,\"clipboard.readText\":true}");
  g_autoptr(JsonObject) unknown = object_of ("{\"shell.beep\":true}");
  g_autoptr(JsonObject) filter = object_of ("{\"type\":[\"dialog\",\"shell\",\"clipboard\"]}");
  g_autoptr(StwDialogLog) log = NULL;
  g_autoptr(JsonNode) wire = NULL;
  JsonObject *events;
  g_autoptr(JsonNode) value = NULL;
  g_autoptr(GError) error = NULL;
  JsonArray *entries;

  if (!have_app ())
    return;

  g_assert_false (stw_session_stub_electron_sync (app.session, unknown, NULL, &error));
  g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
  g_clear_error (&error);

  g_assert_true (stw_session_stub_electron_sync (app.session, stubs, NULL, &error));
  g_assert_no_error (error);

  value = evaluate_main ("(async () => { const { dialog, shell, clipboard } = require('electron');"
                         " const box = dialog.showMessageBoxSync({ message: 'Sure?', buttons: ['a','b','c'] });"
                         " dialog.showErrorBox('Oops', 'It broke');"
                         " const open = dialog.showOpenDialogSync({ title: 'Pick' });"
                         " await shell.openExternal('https://example.org/');"
                         " const opened = await shell.openPath('/tmp');"
                         " clipboard.writeText('copied text');"
                         " const read = clipboard.readText();"
                         " return { box, open, opened, read, real: shell._standinCalls.length }; })()");
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (value), "box"), ==, 2);
  g_assert_cmpstr (json_array_get_string_element (json_object_get_array_member (json_node_get_object (value), "open"), 0),
                   ==, "/tmp/a");
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (value), "opened"), ==, "no such file");
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (value), "read"), ==, "copied text");
  /* The real shell never ran. */
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (value), "real"), ==, 0);

  log = stw_session_read_dialog_events_sync (app.session, filter, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (stw_dialog_log_is_native (log));
  g_assert_true (stw_dialog_event_is_stubbed_call (stw_dialog_log_get_event (log, 0)));
  g_assert_true (g_strv_contains (stw_dialog_policy_get_stubs (stw_dialog_log_get_policy (log)), "shell.openExternal"));
  /* The stubbed calls' arguments are the app's own: open JSON. */
  wire = json_boxed_serialize (STW_TYPE_DIALOG_LOG, log);
  events = json_node_get_object (wire);
  entries = json_object_get_array_member (events, "entries");
  g_assert_cmpuint (json_array_get_length (entries), ==, 7);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (entries, 0), "type"),
                   ==, "dialog.showMessageBoxSync");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (entries, 1), "type"),
                   ==, "dialog.showErrorBox");
  g_assert_cmpstr (json_array_get_string_element (json_object_get_array_member (json_array_get_object_element (entries, 1),
                                                                                "args"), 1), ==, "It broke");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (entries, 3), "type"),
                   ==, "shell.openExternal");

  /* Restored: the app's own method runs (and the stand-in records it). */
  {
    g_autoptr(JsonObject) restore = object_of ("{\"shell.openExternal\":null}");
    g_autoptr(JsonNode) real = NULL;

    g_assert_true (stw_session_stub_electron_sync (app.session, restore, NULL, &error));
    g_assert_no_error (error);
    real = evaluate_main ("(async () => { const { shell } = require('electron');"
                          " await shell.openExternal('https://example.org/real');"
                          " return shell._standinCalls.length; })()");
    g_assert_cmpint (json_node_get_int (real), ==, 1);
  }
}

static void
test_console (void)
{
  g_autoptr(StwConsoleLog) logged = NULL;
  g_autoptr(JsonObject) filter = object_of ("{\"source\":\"main\",\"match\":\"/^HELLO from main/i\"}");
  g_autoptr(JsonObject) nested = object_of ("{\"match\":\"(a+)+b\"}");
  g_autoptr(JsonObject) flags = object_of ("{\"match\":\"/a/g\"}");
  g_autoptr(JsonNode) value = NULL;
  g_autoptr(GError) error = NULL;
  gint64 deadline;

  if (!have_app ())
    return;

  value = evaluate_main ("console.log('hello from main %d', 7), 1");
  deadline = g_get_monotonic_time () + (gint64) stw_test_timeout_ms (10000) * 1000;
  for (;;)
    {
      g_clear_pointer (&logged, stw_console_log_unref);
      logged = stw_session_read_console (app.session, filter, &error);
      g_assert_no_error (error);
      if (stw_console_log_get_n_messages (logged) > 0)
        break;
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      stw_test_iterate_for (20);
    }
  g_assert_cmpstr (stw_console_message_get_text (stw_console_log_get_message (logged, 0)), ==, "hello from main 7");
  g_assert_cmpstr (stw_console_message_get_source (stw_console_log_get_message (logged, 0)), ==, "main");

  g_assert_null (stw_session_read_console (app.session, nested, &error));
  g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (stw_session_read_console (app.session, flags, &error));
  g_assert_error (error, STW_ERROR, STW_ERROR_BAD_ARGUMENT);
}

static void
test_stop (void)
{
  if (app.session != NULL)
    {
      g_autoptr(GError) error = NULL;
      stw_session_stop_sync (app.session, 10000, NULL, NULL, &error);
      g_assert_no_error (error);
    }
  g_clear_object (&app.window);
  g_clear_object (&app.session);
  g_clear_object (&app.manager);
  g_clear_pointer (&app.skip, g_free);
}

int
main (int   argc,
      char *argv[])
{
  stw_test_init (&argc, &argv);

  g_test_add_func ("/dialogs/match-patterns", test_match_patterns);
  g_test_add_func ("/dialogs/unit/take-opened", test_unit_take_opened);
  g_test_add_func ("/dialogs/launch", test_launch);
  g_test_add_func ("/dialogs/policy", test_policy);
  g_test_add_func ("/dialogs/page-sync", test_page_dialogs_sync);
  g_test_add_func ("/dialogs/page-async", test_page_dialogs_async);
  g_test_add_func ("/dialogs/stubs", test_stubs);
  g_test_add_func ("/dialogs/console", test_console);
  g_test_add_func ("/dialogs/stop", test_stop);
  return g_test_run ();
}
