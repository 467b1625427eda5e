/* stw-transport.h: a Chrome DevTools Protocol connection
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(__STAGEWRIGHT_INSIDE__) && !defined(STAGEWRIGHT_COMPILATION)
# error "Only <stagewright/stagewright.h> can be included directly."
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "stw-enums.h"
#include "stw-version-macros.h"

G_BEGIN_DECLS

/**
 * STW_CDP_ERROR:
 *
 * Errors the peer answered a method with; the code is the protocol's own
 * (e.g. -32000, see #StwCdpError) and the message is the peer's, followed
 * by the error's `data` in parentheses when that is a string (Chrome puts
 * the useful detail of parameter errors there).
 */
#define STW_CDP_ERROR (stw_cdp_error_quark ())

/**
 * stw_cdp_error_quark:
 *
 * Gets the error domain of the errors a DevTools peer answers with; use
 * %STW_CDP_ERROR in C.
 *
 * Returns: the quark of the `stw-cdp-error-quark` domain
 *
 * Since: 1.0
 */
STW_AVAILABLE_IN_1_0
GQuark stw_cdp_error_quark (void);

#define STW_TYPE_TRANSPORT (stw_transport_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_DERIVABLE_TYPE (StwTransport, stw_transport, STW, TRANSPORT, GObject)

/**
 * StwTransportClass:
 * @parent_class: the parent class
 * @send_message: writes one serialized message to the peer, or queues it;
 *   @data is valid only during the call and is NUL-terminated
 *   (`data[length] == '\0'`). Write failures are reported through
 *   _stw_transport_closed(), possibly from within this call.
 * @shutdown: closes the underlying channel; called once, by
 *   stw_transport_close(), which then marks the transport closed itself
 *   (a later _stw_transport_closed() from the subclass is a no-op)
 * @event: class handler of #StwTransport::event
 * @closed: class handler of #StwTransport::closed
 *
 * Subclasses move bytes; the base class owns ids, the pending-call table,
 * timeouts, JSON hardening and event dispatch.
 */
struct _StwTransportClass
{
  GObjectClass parent_class;

  void (*send_message) (StwTransport *self,
                        const char   *data,
                        gsize         length);
  void (*shutdown)     (StwTransport *self);

  void (*event)        (StwTransport *self,
                        const char   *method,
                        JsonObject   *params,
                        const char   *session_id);
  void (*closed)       (StwTransport *self,
                        const GError *error);

  /*< private >*/
  gpointer _reserved[8];
};

STW_AVAILABLE_IN_1_0
void stw_transport_call_async (StwTransport *self,
                               const char *method,
                               JsonObject *params,
                               const char *session_id,
                               guint timeout_ms,
                               GCancellable *cancellable,
                               GAsyncReadyCallback callback,
                               gpointer user_data);
STW_AVAILABLE_IN_1_0
JsonObject *stw_transport_call_finish (StwTransport *self,
                                       GAsyncResult *result,
                                       GError **error);
STW_AVAILABLE_IN_1_0
void stw_transport_send_notification (StwTransport *self,
                                      const char *method,
                                      JsonObject *params,
                                      const char *session_id);
STW_AVAILABLE_IN_1_0
void stw_transport_close (StwTransport *self);
STW_AVAILABLE_IN_1_0
gboolean stw_transport_is_closed (StwTransport *self);
STW_AVAILABLE_IN_1_0
guint stw_transport_get_default_timeout_ms (StwTransport *self);
STW_AVAILABLE_IN_1_0
void stw_transport_set_default_timeout_ms (StwTransport *self,
                                           guint timeout_ms);
STW_AVAILABLE_IN_1_0
guint stw_transport_get_n_pending (StwTransport *self);

/**
 * StwTransportTraffic:
 * @method: the command's or event's method
 * @session_id: (nullable): the flat session it addressed or came from
 * @params: (nullable): the command's parameters, or the event's
 * @result: (nullable): the command's result (%NULL for an event or an
 *   error)
 * @failed: whether the peer answered the command with an error
 * @is_event: whether this is an event (no round trip)
 * @sent_bytes: the size of the command as sent (0 for an event)
 * @received_bytes: the size of the reply or event as received
 * @sent_us: when the command left (monotonic µs; 0 for an event)
 * @received_us: when the reply or event arrived (monotonic µs)
 *
 * One CDP round trip or event, as [callback@Stagewright.TransportObserver]
 * sees it. Valid only during the call.
 *
 * Since: 1.0
 */
typedef struct
{
  const char *method;
  const char *session_id;
  JsonObject *params;
  JsonObject *result;
  gboolean    failed;
  gboolean    is_event;
  gsize       sent_bytes;
  gsize       received_bytes;
  gint64      sent_us;
  gint64      received_us;
} StwTransportTraffic;

/**
 * StwTransportObserver:
 * @transport: the transport
 * @traffic: the round trip or event
 * @user_data: the observer's data
 *
 * Sees the CDP traffic of every transport.
 *
 * Since: 1.0
 */
typedef void (*StwTransportObserver) (StwTransport              *transport,
                                      const StwTransportTraffic *traffic,
                                      gpointer                   user_data);

STW_AVAILABLE_IN_1_0
guint stw_transport_add_observer (StwTransportObserver observer,
                                  gpointer user_data,
                                  GDestroyNotify destroy);
STW_AVAILABLE_IN_1_0
void stw_transport_remove_observer (guint id);

G_END_DECLS
