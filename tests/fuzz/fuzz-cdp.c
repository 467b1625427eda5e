/* fuzz-cdp.c: fuzz target for the CDP message reader
 *
 * The input is a sequence of CDP messages separated by NUL bytes, as on
 * the pipe transport. A transport that sends nothing has three calls in
 * flight (ids 1-3) and handlers on every event; each message goes through
 * the base class's reader (_stw_transport_receive: strict JSON, then reply
 * and event dispatch), which must never crash or leak, whatever arrives.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "fuzz.h"
#include "stw-transport-private.h"

#define FUZZ_TYPE_TRANSPORT (fuzz_transport_get_type ())
G_DECLARE_FINAL_TYPE (FuzzTransport, fuzz_transport, FUZZ, TRANSPORT, StwTransport)

struct _FuzzTransport
{
  StwTransport parent_instance;
};

G_DEFINE_FINAL_TYPE (FuzzTransport, fuzz_transport, STW_TYPE_TRANSPORT)

static void
fuzz_transport_send_message (StwTransport *transport,
                             const char   *data,
                             gsize         length)
{
}

static void
fuzz_transport_shutdown (StwTransport *transport)
{
}

static void
fuzz_transport_class_init (FuzzTransportClass *klass)
{
  StwTransportClass *transport_class = STW_TRANSPORT_CLASS (klass);

  transport_class->send_message = fuzz_transport_send_message;
  transport_class->shutdown = fuzz_transport_shutdown;
}

static void
fuzz_transport_init (FuzzTransport *self)
{
}

static void
on_reply (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(JsonObject) reply = NULL;
  g_autoptr(GError) error = NULL;
  guint *n_done = user_data;

  reply = stw_transport_call_finish (STW_TRANSPORT (object), result, &error);
  g_assert_true ((reply == NULL) != (error == NULL));
  (*n_done)++;
}

static void
on_event (StwTransport *transport,
          const char   *method,
          JsonObject   *params,
          const char   *session_id,
          gpointer      user_data)
{
  g_assert_nonnull (method);
  g_assert_nonnull (params);
  (*(guint *) user_data)++;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(StwTransport) transport = g_object_new (FUZZ_TYPE_TRANSPORT, NULL);
  const char *p = (const char *) data;
  const char *end = p + size;
  guint n_done = 0;
  guint n_events = 0;

  fuzz_init ();

  g_signal_connect (transport, "event", G_CALLBACK (on_event), &n_events);
  for (guint i = 0; i < 3; i++)
    stw_transport_call_async (transport, "Runtime.evaluate", NULL, i == 2 ? "S1" : NULL,
                              0, NULL, on_reply, &n_done);

  while (p <= end && !stw_transport_is_closed (transport))
    {
      const char *nul = memchr (p, '\0', (gsize) (end - p));
      const char *stop = nul ? nul : end;

      _stw_transport_receive (transport, p, (gsize) (stop - p));
      p = stop + 1;
    }

  /* Every call ends exactly once: answered, or failed by the close. */
  stw_transport_close (transport);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_cmpuint (n_done, ==, 3);
  return 0;
}
