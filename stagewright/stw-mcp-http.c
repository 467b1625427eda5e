/* stw-mcp-http.c: MCP Streamable HTTP (2025-11-25) on a SoupServer
 *
 * One endpoint, /mcp. POST carries one JSON-RPC message: a request is
 * answered as application/json, or as text/event-stream when the client
 * accepts it and progress or logs come before the result; a notification
 * or a response gets 202. GET opens the session's server-to-client stream
 * (one at a time: 409 for a second), or with Last-Event-ID resumes any
 * stream of the session. DELETE ends a session.
 *
 * Every request passes the same gate before its body is read (an early
 * handler): Host (DNS rebinding), Origin, the request rate of its address,
 * the bearer token, the path, the method and the declared body size. Each
 * refusal has its HTTP status and a JSON-RPC error body without an id.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <gio/gnetworking.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>

#include "stw-json-private.h"
#include "stw-mcp-connection-private.h"
#include "stw-mcp-http-private.h"
#include "stw-mcp-server-private.h"
#include "stw-session.h"

/* Rate buckets kept per client address; beyond this, stale ones go. */
#define MAX_BUCKETS 4096
/* Stateless requests answered at once need no bound; these wait. */
#define MAX_STATELESS_REQUESTS 256
/* Apps of an ended session get this long to stop gracefully. */
#define SESSION_STOP_MS 3000
/* Open SSE streams and requests awaiting their answer, per client address:
 * each holds a connection (and a call) for as long as it lasts. */
#define MAX_HELD_PER_CLIENT 256
/* MCP sessions one client identity may hold at once (and a quarter of
 * --http-max-sessions when that is less): one client cannot take them all. */
#define MAX_SESSIONS_PER_CLIENT 16
/* The stateless era, which has no sessions. */
#define MODERN_VERSION "2026-07-28"

typedef struct
{
  double tokens;
  gint64 last_us;
} Bucket;

typedef struct
{
  StwMcpHttp        *http;        /* weak: sessions end before it */
  char              *id;
  StwMcpFraming     *framing;
  StwMcpConnection  *connection;
  GCancellable      *cancellable;
  gint64             last_used_us;
  char              *identity;    /* the client's: see client_identity() */
} Session;

struct _StwMcpHttp
{
  GObject        parent_instance;

  StwMcpServer  *server;
  SoupServer    *soup;
  GSocketListener *listener;      /* accepts the connections (accept_next()) */
  GCancellable  *accepting;
  GSource       *accept_retry;    /* after a failed accept: no spin */
  guint          accept_backoff_ms;
  gint64         accept_logged_us;
  guint          accept_failures; /* since the last line logged */
  GHashTable    *incomplete;      /* Conn → itself: connections without a whole request yet */
  guint          max_incomplete;
  GTlsCertificate *certificate;
  char          *token;
  gboolean       listening;
  gboolean       loopback;
  gboolean       wildcard;
  char          *bound_host;      /* the address as a Host names it */
  guint          port;
  char          *url;

  GHashTable    *sessions;        /* id -> Session */
  GPtrArray     *requests;        /* stateless requests in flight (Session, no id) */
  guint          max_sessions;
  guint          idle_timeout_ms;
  GSource       *sweep_source;
  gsize          max_body;
  guint          rate;
  guint          burst;
  GHashTable    *buckets;         /* client address -> Bucket */
  GHashTable    *held;            /* client address -> open streams and pending requests */
};

G_DEFINE_FINAL_TYPE (StwMcpHttp, stw_mcp_http, G_TYPE_OBJECT)

static void end_session (StwMcpHttp *self,
                         Session    *session);
static void end_request (StwMcpHttp *self,
                         Session    *request);

/* --- answers ------------------------------------------------------------- */

static void
respond_error_full (SoupServerMessage *msg,
                    guint              status,
                    JsonNode          *id,
                    int                code,
                    const char        *message,
                    JsonObject        *data)
{
  g_autoptr(JsonObject) body = json_object_new ();
  JsonObject *error = json_object_new ();
  g_autofree char *text = NULL;
  gsize length = 0;

  json_object_set_string_member (body, "jsonrpc", "2.0");
  if (id != NULL)
    json_object_set_member (body, "id", json_node_copy (id));
  else
    json_object_set_null_member (body, "id");
  json_object_set_int_member (error, "code", code);
  json_object_set_string_member (error, "message", message);
  if (data != NULL)
    json_object_set_object_member (error, "data", data);
  json_object_set_object_member (body, "error", error);
  text = stw_json_object_to_string (body, &length);

  soup_server_message_set_status (msg, status, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY, text, length);
}

static void
respond_error (SoupServerMessage *msg,
               guint              status,
               int                code,
               const char        *message)
{
  respond_error_full (msg, status, NULL, code, message, NULL);
}

/* --- the gate ------------------------------------------------------------ */

static gboolean
is_loopback_name (const char *host)
{
  return g_ascii_strcasecmp (host, "localhost") == 0 ||
         g_str_equal (host, "127.0.0.1") || g_str_equal (host, "[::1]");
}

/* @authority is host[:port] as a Host header or an origin carries it. */
static gboolean
authority_allowed (StwMcpHttp *self,
                   const char *authority)
{
  g_autofree char *host = NULL;
  const char *colon;
  const char *bracket;

  if (authority == NULL || *authority == '\0')
    return FALSE;

  bracket = strrchr (authority, ']');
  colon = strrchr (authority, ':');
  if (colon != NULL && (bracket == NULL || colon > bracket))
    {
      char *end = NULL;
      guint64 port = g_ascii_strtoull (colon + 1, &end, 10);

      if (end == colon + 1 || *end != '\0' || port != self->port)
        return FALSE;
      host = g_strndup (authority, colon - authority);
    }
  else
    host = g_strdup (authority);

  if (g_ascii_strcasecmp (host, self->bound_host) == 0)
    return TRUE;
  /* On loopback, only the names of loopback: a rebinding page's Host is
   * its own domain. Past loopback the token guards instead. */
  if (self->loopback)
    return is_loopback_name (host);
  return self->wildcard;
}

static gboolean
origin_allowed (StwMcpHttp *self,
                const char *origin,
                const char *host_header)
{
  g_autoptr(GUri) uri = NULL;
  g_autofree char *authority = NULL;
  const char *scheme;

  uri = g_uri_parse (origin, G_URI_FLAGS_NONE, NULL);
  if (uri == NULL || g_uri_get_host (uri) == NULL)
    return FALSE;
  scheme = g_uri_get_scheme (uri);
  if (g_strcmp0 (scheme, "http") != 0 && g_strcmp0 (scheme, "https") != 0)
    return FALSE;

  if (strchr (g_uri_get_host (uri), ':') != NULL)
    authority = g_uri_get_port (uri) > 0
                ? g_strdup_printf ("[%s]:%d", g_uri_get_host (uri), g_uri_get_port (uri))
                : g_strdup_printf ("[%s]", g_uri_get_host (uri));
  else
    authority = g_uri_get_port (uri) > 0
                ? g_strdup_printf ("%s:%d", g_uri_get_host (uri), g_uri_get_port (uri))
                : g_strdup (g_uri_get_host (uri));

  /* Bound to every address, only the page the server itself serves. */
  if (self->wildcard)
    return host_header != NULL && g_ascii_strcasecmp (authority, host_header) == 0;
  return authority_allowed (self, authority);
}

/* Digests, then every byte: the time taken says nothing of the token. */
static gboolean
token_matches (const char *expected,
               const char *given)
{
  g_autoptr(GChecksum) a = g_checksum_new (G_CHECKSUM_SHA256);
  g_autoptr(GChecksum) b = g_checksum_new (G_CHECKSUM_SHA256);
  guint8 da[32], db[32];
  gsize la = sizeof da, lb = sizeof db;
  guint8 diff = 0;

  g_checksum_update (a, (const guchar *) expected, strlen (expected));
  g_checksum_update (b, (const guchar *) given, strlen (given));
  g_checksum_get_digest (a, da, &la);
  g_checksum_get_digest (b, db, &lb);
  for (gsize i = 0; i < sizeof da; i++)
    diff |= da[i] ^ db[i];
  return diff == 0;
}

static gboolean
authorized (StwMcpHttp        *self,
            SoupServerMessage *msg)
{
  const char *header;

  if (self->token == NULL)
    return TRUE;
  header = soup_message_headers_get_one (soup_server_message_get_request_headers (msg),
                                         "Authorization");
  if (header == NULL || g_ascii_strncasecmp (header, "Bearer ", 7) != 0)
    return FALSE;
  header += 7;
  while (*header == ' ')
    header++;
  return token_matches (self->token, header);
}

/* --- connections ----------------------------------------------------------- */

/* Connections are accepted here and handed to libsoup with
 * soup_server_accept_iostream(), not by libsoup's own listener: in
 * libsoup 3.2 that one leaks the socket of every connection (fixed in 3.4,
 * libsoup b545d5f0: about 0.5 KiB per connection, a request each while
 * answers end their connection) and stops accepting for good after one
 * failed accept. Nor by a GSocketService, which retries a failed accept
 * at once, forever: out of descriptors, it spins and floods the log. Each
 * connection's Conn (with its socket) is found by the remote address
 * object libsoup keeps for as long as the connection (conns, below). */

/* A request's headers must come within HEADER_TIMEOUT_MS of its
 * connection (or of the end of the previous answer: KEEPALIVE_IDLE_MS),
 * its body within BODY_TIMEOUT_MS of its headers; otherwise the
 * connection is closed. A half-sent request holds a descriptor, and
 * descriptors are what every client needs. */
#define HEADER_TIMEOUT_MS (10 * 1000)
#define KEEPALIVE_IDLE_MS (60 * 1000)
#define BODY_TIMEOUT_MS (30 * 1000)
/* Connections without a whole request yet, per client address beyond
 * loopback (on loopback, and behind a proxy, every client has one
 * address: the timeouts and the overall cap carry the load there). */
#define MAX_INCOMPLETE_PER_ADDRESS 32
/* Overall: half the descriptors left past a reserve, so that half-sent
 * requests never take the last ones. Past it, the oldest is closed. */
#define FD_RESERVE 64
#define MAX_INCOMPLETE 1024
/* A failed accept is retried after this much, doubling up to the max;
 * it is logged at most once per ACCEPT_LOG_INTERVAL_US. */
#define ACCEPT_BACKOFF_MIN_MS 10
#define ACCEPT_BACKOFF_MAX_MS 1000
#define ACCEPT_LOG_INTERVAL_US (10 * G_USEC_PER_SEC)

typedef struct
{
  GWeakRef  http;
  GSocket  *socket;
  char     *address;
  gboolean  loopback;
  gint64    since_us;             /* when it became incomplete */
  GSource  *deadline;             /* while incomplete */
} Conn;

static void
conn_clear_deadline (Conn *conn)
{
  if (conn->deadline == NULL)
    return;
  g_source_destroy (conn->deadline);
  g_clear_pointer (&conn->deadline, g_source_unref);
}

/* Ends the connection: libsoup's read sees the end and lets it go. */
static void
conn_close (Conn *conn)
{
  g_socket_shutdown (conn->socket, TRUE, TRUE, NULL);
}

static void
conn_complete (StwMcpHttp *self,
               Conn       *conn)
{
  conn_clear_deadline (conn);
  g_hash_table_remove (self->incomplete, conn);
}

static gboolean
on_conn_deadline (gpointer user_data)
{
  Conn *conn = user_data;
  g_autoptr(StwMcpHttp) self = g_weak_ref_get (&conn->http);

  g_debug ("MCP HTTP: a request was not received in time; closing its connection");
  g_clear_pointer (&conn->deadline, g_source_unref);
  if (self != NULL)
    g_hash_table_remove (self->incomplete, conn);
  conn_close (conn);
  return G_SOURCE_REMOVE;
}

static void
conn_incomplete (StwMcpHttp *self,
                 Conn       *conn,
                 guint       timeout_ms)
{
  conn_clear_deadline (conn);
  if (!g_hash_table_contains (self->incomplete, conn))
    conn->since_us = g_get_monotonic_time ();
  g_hash_table_add (self->incomplete, conn);
  conn->deadline = g_timeout_source_new (timeout_ms);
  g_source_set_callback (conn->deadline, on_conn_deadline, conn, NULL);
  g_source_attach (conn->deadline, g_main_context_get_thread_default ());
}

/* With its connection (the remote address libsoup keeps goes). */
static void
conn_free (gpointer data)
{
  Conn *conn = data;
  g_autoptr(StwMcpHttp) self = g_weak_ref_get (&conn->http);

  if (self != NULL)
    g_hash_table_remove (self->incomplete, conn);
  conn_clear_deadline (conn);
  g_weak_ref_clear (&conn->http);
  g_clear_object (&conn->socket);
  g_free (conn->address);
  g_free (conn);
}

/* libsoup's objects are not ours to hang state on: each connection's Conn
 * is kept here by the remote address object libsoup keeps for it, and
 * each message whose client went away by the message. An entry leaves
 * with its object (a weak reference), so a key is never a reused address. */
G_LOCK_DEFINE_STATIC (registry);
static GHashTable *conns;   /* GSocketAddress (remote) → Conn, owned */
static GHashTable *gone;    /* SoupServerMessage set */

static void
on_remote_finalized (gpointer  data,
                     GObject  *remote)
{
  G_LOCK (registry);
  g_hash_table_remove (conns, remote);
  G_UNLOCK (registry);
  conn_free (data);
}

/* @conn goes with @remote, the address libsoup keeps with the connection. */
static void
conn_register (GSocketAddress *remote,
               Conn           *conn)
{
  G_LOCK (registry);
  if (conns == NULL)
    conns = g_hash_table_new (NULL, NULL);
  g_hash_table_insert (conns, remote, conn);
  G_UNLOCK (registry);
  g_object_weak_ref (G_OBJECT (remote), on_remote_finalized, conn);
}

static Conn *
message_conn (SoupServerMessage *msg)
{
  GSocketAddress *remote = soup_server_message_get_remote_address (msg);
  Conn *conn = NULL;

  G_LOCK (registry);
  if (remote != NULL && conns != NULL)
    conn = g_hash_table_lookup (conns, remote);
  G_UNLOCK (registry);
  return conn;
}

/* Makes room for one more incomplete connection from @address: FALSE
 * when its address has its share already. */
static gboolean
make_incomplete_room (StwMcpHttp *self,
                      const char *address,
                      gboolean    loopback)
{
  GHashTableIter iter;
  gpointer key;
  Conn *oldest = NULL;
  guint from_address = 0;

  g_hash_table_iter_init (&iter, self->incomplete);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      Conn *conn = key;

      if (oldest == NULL || conn->since_us < oldest->since_us)
        oldest = conn;
      if (!loopback && g_str_equal (conn->address, address))
        from_address++;
    }
  if (from_address >= MAX_INCOMPLETE_PER_ADDRESS)
    return FALSE;
  if (oldest != NULL && g_hash_table_size (self->incomplete) >= self->max_incomplete)
    {
      g_debug ("MCP HTTP: %u connections without a request; closing the oldest", self->max_incomplete);
      g_hash_table_remove (self->incomplete, oldest);
      conn_clear_deadline (oldest);
      conn_close (oldest);
    }
  return TRUE;
}

static void
handle_incoming (StwMcpHttp        *self,
                 GSocketConnection *connection)
{
  GSocket *socket = g_socket_connection_get_socket (connection);
  g_autoptr(GSocketAddress) local = g_socket_get_local_address (socket, NULL);
  g_autoptr(GSocketAddress) remote = g_socket_get_remote_address (socket, NULL);
  g_autoptr(GIOStream) stream = NULL;
  g_autoptr(GError) error = NULL;
  GInetAddress *inet;
  Conn *conn;

  /* A client that is gone already: closed as the connection goes. */
  if (local == NULL || remote == NULL || self->soup == NULL || !G_IS_INET_SOCKET_ADDRESS (remote))
    return;
  inet = g_inet_socket_address_get_address (G_INET_SOCKET_ADDRESS (remote));
  conn = g_new0 (Conn, 1);
  g_weak_ref_init (&conn->http, self);
  conn->socket = g_object_ref (socket);
  conn->address = g_inet_address_to_string (inet);
  conn->loopback = g_inet_address_get_is_loopback (inet);
  if (!make_incomplete_room (self, conn->address, conn->loopback))
    {
      g_debug ("MCP HTTP: %u connections from one address without a request; refusing another",
               MAX_INCOMPLETE_PER_ADDRESS);
      conn_free (conn);
      return;
    }

  g_socket_set_option (socket, IPPROTO_TCP, TCP_NODELAY, TRUE, NULL);
  if (self->certificate != NULL)
    {
      /* The handshake happens on libsoup's first read. */
      stream = G_IO_STREAM (g_tls_server_connection_new (G_IO_STREAM (connection), self->certificate, &error));
      if (stream == NULL)
        {
          g_debug ("MCP HTTP: no TLS for a connection: %s", error->message);
          conn_free (conn);
          return;
        }
    }
  else
    stream = g_object_ref (G_IO_STREAM (connection));
  conn_incomplete (self, conn, HEADER_TIMEOUT_MS);
  conn_register (remote, conn);
  if (!soup_server_accept_iostream (self->soup, stream, local, remote, &error))
    g_debug ("MCP HTTP: a connection was not accepted: %s", error->message);
}

static void accept_next (StwMcpHttp *self);

static gboolean
on_accept_retry (gpointer user_data)
{
  StwMcpHttp *self = user_data;

  g_clear_pointer (&self->accept_retry, g_source_unref);
  accept_next (self);
  return G_SOURCE_REMOVE;
}

/* A failed accept (out of descriptors, most likely) waits before the
 * next: the listening socket stays readable, and retrying at once would
 * spin. The oldest half-sent request goes to free a descriptor. */
static void
accept_failed (StwMcpHttp *self,
               GError     *error)
{
  gint64 now = g_get_monotonic_time ();
  GHashTableIter iter;
  gpointer key;
  Conn *oldest = NULL;

  self->accept_failures++;
  if (self->accept_logged_us == 0 || now - self->accept_logged_us >= ACCEPT_LOG_INTERVAL_US)
    {
      g_message ("MCP HTTP: cannot accept connections (%s; %u times since the last report); "
                 "retrying in up to %u ms", error->message, self->accept_failures, ACCEPT_BACKOFF_MAX_MS);
      self->accept_logged_us = now;
      self->accept_failures = 0;
    }

  g_hash_table_iter_init (&iter, self->incomplete);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (oldest == NULL || ((Conn *) key)->since_us < oldest->since_us)
      oldest = key;
  if (oldest != NULL)
    {
      g_hash_table_remove (self->incomplete, oldest);
      conn_clear_deadline (oldest);
      conn_close (oldest);
    }

  self->accept_backoff_ms = CLAMP (self->accept_backoff_ms * 2, ACCEPT_BACKOFF_MIN_MS, ACCEPT_BACKOFF_MAX_MS);
  self->accept_retry = g_timeout_source_new (self->accept_backoff_ms);
  g_source_set_callback (self->accept_retry, on_accept_retry, self, NULL);
  g_source_attach (self->accept_retry, g_main_context_get_thread_default ());
}

static void
on_accepted (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  GWeakRef *weak = user_data;
  g_autoptr(StwMcpHttp) self = g_weak_ref_get (weak);
  g_autoptr(GSocketConnection) connection = NULL;
  g_autoptr(GError) error = NULL;

  g_weak_ref_clear (weak);
  g_free (weak);
  connection = g_socket_listener_accept_finish (G_SOCKET_LISTENER (object), result, NULL, &error);
  /* Accepting stopped (cancelled), or the server is gone. */
  if (self == NULL || self->listener == NULL || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (connection == NULL)
    {
      accept_failed (self, error);
      return;
    }
  self->accept_backoff_ms = 0;
  handle_incoming (self, connection);
  accept_next (self);
}

static void
accept_next (StwMcpHttp *self)
{
  /* Weak: a pending accept must not keep the server from its dispose. */
  GWeakRef *weak = g_new0 (GWeakRef, 1);

  g_weak_ref_init (weak, self);
  g_socket_listener_accept_async (self->listener, self->accepting, on_accepted, weak);
}

/* libsoup starts reading a request (a new connection's first, or the next
 * on a kept-alive one). */
static void
on_request_started (SoupServer        *soup,
                    SoupServerMessage *msg,
                    gpointer           user_data)
{
  StwMcpHttp *self = user_data;
  Conn *conn = message_conn (msg);

  /* A new connection's first request keeps the deadline of its accept. */
  if (conn != NULL && !g_hash_table_contains (self->incomplete, conn))
    conn_incomplete (self, conn, KEEPALIVE_IDLE_MS);
}

/* The whole request is in: what follows is the answer's time. */
static void
on_request_read (SoupServer        *soup,
                 SoupServerMessage *msg,
                 gpointer           user_data)
{
  Conn *conn = message_conn (msg);

  if (conn != NULL)
    conn_complete (user_data, conn);
}

static void
stop_accepting (StwMcpHttp *self)
{
  if (self->listener == NULL)
    return;
  g_cancellable_cancel (self->accepting);
  if (self->accept_retry != NULL)
    {
      g_source_destroy (self->accept_retry);
      g_clear_pointer (&self->accept_retry, g_source_unref);
    }
  g_socket_listener_close (self->listener);
  g_clear_object (&self->listener);
  g_clear_object (&self->accepting);
}

GSocket *
_stw_mcp_http_message_socket (SoupServerMessage *msg)
{
  Conn *conn = message_conn (msg);

  return conn != NULL ? conn->socket : NULL;
}

typedef struct
{
  StwMcpHttpClientFunc func;
  gpointer             data;
} ClientWatch;

static gboolean
on_client_socket (GSocket      *socket,
                  GIOCondition  condition,
                  gpointer      user_data)
{
  ClientWatch *watch = user_data;
  char byte;
  GInputVector vector = { &byte, 1 };
  int flags = G_SOCKET_MSG_PEEK;
  g_autoptr(GError) error = NULL;
  gssize n = g_socket_receive_message (socket, NULL, &vector, 1, NULL, NULL, &flags, NULL, &error);

  if (n < 0 && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
    return G_SOURCE_CONTINUE;
  watch->func (watch->data, n <= 0);
  return G_SOURCE_REMOVE;
}

GSource *
_stw_mcp_http_watch_client (SoupServerMessage    *msg,
                            StwMcpHttpClientFunc  func,
                            gpointer              user_data)
{
  GSocket *socket = _stw_mcp_http_message_socket (msg);
  ClientWatch *watch;
  GSource *source;

  if (socket == NULL)
    return NULL;
  watch = g_new (ClientWatch, 1);
  watch->func = func;
  watch->data = user_data;
  source = g_socket_create_source (socket, G_IO_IN | G_IO_HUP | G_IO_ERR, NULL);
  g_source_set_callback (source, G_SOURCE_FUNC (on_client_socket), watch, g_free);
  g_source_attach (source, g_main_context_get_thread_default ());
  return source;
}

static void
on_gone_finalized (gpointer  data,
                   GObject  *msg)
{
  G_LOCK (registry);
  g_hash_table_remove (gone, msg);
  G_UNLOCK (registry);
}

static void
on_message_disconnected (SoupServerMessage *msg,
                         gpointer           user_data)
{
  gboolean added;

  G_LOCK (registry);
  if (gone == NULL)
    gone = g_hash_table_new (NULL, NULL);
  added = g_hash_table_add (gone, msg);
  G_UNLOCK (registry);
  if (added)
    g_object_weak_ref (G_OBJECT (msg), on_gone_finalized, NULL);
}

gboolean
_stw_mcp_http_message_connected (SoupServerMessage *msg)
{
  gboolean connected;

  G_LOCK (registry);
  connected = gone == NULL || !g_hash_table_contains (gone, msg);
  G_UNLOCK (registry);
  return connected;
}

/* The client's address, or NULL when there is none. Asked of the address
 * libsoup was given: its own accessors ask the socket, and warn when the
 * peer is gone (a client may reset its connection at any time). */
static char *
peer_address (SoupServerMessage *msg)
{
  GSocketAddress *peer = soup_server_message_get_remote_address (msg);

  if (peer == NULL || !G_IS_INET_SOCKET_ADDRESS (peer))
    return NULL;
  return g_inet_address_to_string (g_inet_socket_address_get_address (G_INET_SOCKET_ADDRESS (peer)));
}

static gboolean
take_token (StwMcpHttp        *self,
            SoupServerMessage *msg)
{
  g_autofree char *peer = NULL;
  const char *address;
  gint64 now = g_get_monotonic_time ();
  Bucket *bucket;

  if (self->rate == 0)
    return TRUE;
  peer = peer_address (msg);
  address = peer != NULL ? peer : "";

  bucket = g_hash_table_lookup (self->buckets, address);
  if (bucket == NULL)
    {
      if (g_hash_table_size (self->buckets) >= MAX_BUCKETS)
        {
          GHashTableIter iter;
          gpointer value;

          /* A full bucket is one nobody used for a while: forget those. */
          g_hash_table_iter_init (&iter, self->buckets);
          while (g_hash_table_iter_next (&iter, NULL, &value))
            if ((now - ((Bucket *) value)->last_us) / 1e6 * self->rate >= self->burst)
              g_hash_table_iter_remove (&iter);
        }
      if (g_hash_table_size (self->buckets) >= MAX_BUCKETS)
        return FALSE;
      bucket = g_new0 (Bucket, 1);
      bucket->tokens = self->burst;
      bucket->last_us = now;
      g_hash_table_insert (self->buckets, g_strdup (address), bucket);
    }

  bucket->tokens = MIN ((double) self->burst,
                        bucket->tokens + (now - bucket->last_us) / 1e6 * self->rate);
  bucket->last_us = now;
  if (bucket->tokens < 1.0)
    return FALSE;
  bucket->tokens -= 1.0;
  return TRUE;
}

/* A refused connection lingers after its answer (RFC 9112 §9.6): the
 * server shuts down its sending side, then reads and drops what the client
 * still sends (the body of its refused request) until the client closes,
 * or LINGER_MAX_BYTES, or LINGER_MS from the refusal, whichever comes
 * first. Closing a socket with unread bytes in it sends a reset, which may
 * destroy the answer before the client read it. Bounded in bytes, time and
 * number, so that a client that never stops (or never closes) holds
 * nothing for long. */
#define LINGER_MS 2000
#define LINGER_MAX_BYTES (64 * 1024)
#define LINGER_MAX_CONNECTIONS 256

static guint n_lingering;

typedef struct
{
  GIOStream    *stream;
  GSocket      *socket;            /* the TCP socket under @stream, if known */
  gboolean      tls;
  GBytes       *response;
  GCancellable *cancellable;      /* cancelled at the deadline */
  GSource      *deadline;
  gsize         drained;
  gboolean      lingering;        /* counted in n_lingering */
  guint8        buffer[4096];
} Refusal;

static void
refusal_free (Refusal *refusal)
{
  if (refusal->deadline != NULL)
    {
      g_source_destroy (refusal->deadline);
      g_source_unref (refusal->deadline);
    }
  if (refusal->lingering)
    n_lingering--;
  g_clear_object (&refusal->cancellable);
  g_clear_object (&refusal->socket);
  g_clear_object (&refusal->stream);
  g_clear_pointer (&refusal->response, g_bytes_unref);
  g_free (refusal);
}

static gboolean
on_refusal_deadline (gpointer user_data)
{
  Refusal *refusal = user_data;

  g_cancellable_cancel (refusal->cancellable);
  return G_SOURCE_CONTINUE;  /* destroyed with the refusal */
}

static void
on_refusal_closed (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_io_stream_close_finish (G_IO_STREAM (object), result, NULL);
  refusal_free (user_data);
}

static void
refusal_close (Refusal *refusal)
{
  /* Not cancellable: closing must happen even past the deadline. */
  g_io_stream_close_async (refusal->stream, G_PRIORITY_DEFAULT, NULL, on_refusal_closed, refusal);
}

static void
on_refusal_drained (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  Refusal *refusal = user_data;
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (object), result, NULL);

  /* The client closed, failed, or the bounds are reached. */
  if (n <= 0 || (refusal->drained += (gsize) n) >= LINGER_MAX_BYTES)
    {
      refusal_close (refusal);
      return;
    }
  g_input_stream_read_async (g_io_stream_get_input_stream (refusal->stream),
                             refusal->buffer, sizeof refusal->buffer, G_PRIORITY_DEFAULT,
                             refusal->cancellable, on_refusal_drained, refusal);
}

static void
refusal_linger (Refusal *refusal)
{
  if (n_lingering >= LINGER_MAX_CONNECTIONS || g_cancellable_is_cancelled (refusal->cancellable))
    {
      refusal_close (refusal);
      return;
    }
  n_lingering++;
  refusal->lingering = TRUE;
  /* The client sees the end of the answer (TLS: after the close_notify
   * its output's close sent); it may still be sending. */
  if (refusal->socket != NULL)
    g_socket_shutdown (refusal->socket, FALSE, TRUE, NULL);
  g_input_stream_read_async (g_io_stream_get_input_stream (refusal->stream),
                             refusal->buffer, sizeof refusal->buffer, G_PRIORITY_DEFAULT,
                             refusal->cancellable, on_refusal_drained, refusal);
}

static void
on_refusal_output_closed (GObject      *object,
                          GAsyncResult *result,
                          gpointer      user_data)
{
  g_output_stream_close_finish (G_OUTPUT_STREAM (object), result, NULL);
  refusal_linger (user_data);
}

static void
on_refusal_written (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  Refusal *refusal = user_data;

  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (object), result, NULL, NULL))
    {
      refusal_close (refusal);
      return;
    }
  if (!refusal->tls)
    refusal_linger (refusal);
  else
    /* TLS: its close_notify ends the answer. */
    g_output_stream_close_async (G_OUTPUT_STREAM (object), G_PRIORITY_DEFAULT, refusal->cancellable,
                                 on_refusal_output_closed, refusal);
}

/* Answers before the body is read, then closes the connection: libsoup
 * would read a body whatever the early handler says, and a refused
 * client's body is never read in full (it may be a gigabyte, or never
 * come): the connection lingers a bounded while (see LINGER_MS). */
static gboolean
client_connected (SoupServerMessage *msg)
{
  g_autofree char *peer = peer_address (msg);

  return peer != NULL;
}

static void
refuse (SoupServerMessage *msg,
        guint              status,
        int                code,
        const char        *message,
        const char        *extra_name,
        const char        *extra_value)
{
  g_autoptr(JsonObject) body = json_object_new ();
  JsonObject *error = json_object_new ();
  g_autofree char *text = NULL;
  GString *response;
  Refusal *refusal;
  gsize length = 0;

  json_object_set_string_member (body, "jsonrpc", "2.0");
  json_object_set_null_member (body, "id");
  json_object_set_int_member (error, "code", code);
  json_object_set_string_member (error, "message", message);
  json_object_set_object_member (body, "error", error);
  text = stw_json_object_to_string (body, &length);

  response = g_string_new (NULL);
  g_string_append_printf (response, "HTTP/1.1 %u %s\r\n", status, soup_status_get_phrase (status));
  g_string_append_printf (response, "Content-Type: application/json\r\nContent-Length: %" G_GSIZE_FORMAT
                          "\r\nConnection: close\r\n", length);
  if (extra_name != NULL)
    g_string_append_printf (response, "%s: %s\r\n", extra_name, extra_value);
  g_string_append (response, "\r\n");
  g_string_append_len (response, text, length);

  /* The refusal's lingering bounds the connection from now on. */
  if (message_conn (msg) != NULL)
    {
      Conn *conn = message_conn (msg);
      g_autoptr(StwMcpHttp) self = g_weak_ref_get (&conn->http);

      if (self != NULL)
        conn_complete (self, conn);
    }
  if (!client_connected (msg))
    {
      /* Gone: nothing to linger for, and stealing the connection would
       * have libsoup warn as it asks the peer's address. libsoup ends the
       * exchange when its read fails. */
      soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Connection", "close");
      soup_server_message_set_status (msg, status, NULL);
      soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY, text, length);
      g_string_free (response, TRUE);
      return;
    }

  refusal = g_new0 (Refusal, 1);
  refusal->response = g_string_free_to_bytes (response);
  if (_stw_mcp_http_message_socket (msg) != NULL)
    refusal->socket = g_object_ref (_stw_mcp_http_message_socket (msg));
  refusal->tls = g_strcmp0 (g_uri_get_scheme (soup_server_message_get_uri (msg)), "https") == 0;
  refusal->stream = soup_server_message_steal_connection (msg);
  refusal->cancellable = g_cancellable_new ();
  refusal->deadline = g_timeout_source_new (LINGER_MS);
  g_source_set_callback (refusal->deadline, on_refusal_deadline, refusal, NULL);
  g_source_attach (refusal->deadline, g_main_context_get_thread_default ());
  g_output_stream_write_all_async (g_io_stream_get_output_stream (refusal->stream),
                                   g_bytes_get_data (refusal->response, NULL),
                                   g_bytes_get_size (refusal->response),
                                   G_PRIORITY_DEFAULT, refusal->cancellable, on_refusal_written, refusal);
}

static guint
count_headers (SoupMessageHeaders *headers,
               const char         *name)
{
  SoupMessageHeadersIter iter;
  const char *header, *value;
  guint n = 0;

  soup_message_headers_iter_init (&iter, headers);
  while (soup_message_headers_iter_next (&iter, &header, &value))
    if (g_ascii_strcasecmp (header, name) == 0)
      n++;
  return n;
}

static void
early_handler (SoupServer        *soup,
               SoupServerMessage *msg,
               const char        *path,
               GHashTable        *query,
               gpointer           user_data)
{
  StwMcpHttp *self = user_data;
  SoupMessageHeaders *request = soup_server_message_get_request_headers (msg);
  const char *host = soup_message_headers_get_one (request, "Host");
  const char *origin = soup_message_headers_get_one (request, "Origin");
  const char *method = soup_server_message_get_method (msg);

  /* The first "disconnected" handler of the message: the others (and
   * anything they cause) see it gone. */
  g_signal_connect (msg, "disconnected", G_CALLBACK (on_message_disconnected), NULL);

  /* The headers are in; the body has its own time. */
  if (message_conn (msg) != NULL && g_hash_table_contains (self->incomplete, message_conn (msg)))
    conn_incomplete (self, message_conn (msg), BODY_TIMEOUT_MS);

  /* RFC 9112 §3.2: one Host, no more; libsoup keeps every copy and
   * answers the last, so an empty one could hide before a good one. */
  if (count_headers (request, "Host") > 1)
    {
      refuse (msg, SOUP_STATUS_BAD_REQUEST, -32600, "Bad request: more than one Host", NULL, NULL);
      return;
    }
  if (!authority_allowed (self, host))
    {
      refuse (msg, SOUP_STATUS_FORBIDDEN, -32000, "Forbidden: Host not allowed", NULL, NULL);
      return;
    }
  if (origin != NULL && !origin_allowed (self, origin, host))
    {
      refuse (msg, SOUP_STATUS_FORBIDDEN, -32000, "Forbidden: Origin not allowed", NULL, NULL);
      return;
    }
  if (!take_token (self, msg))
    {
      refuse (msg, 429, -32000, "Too many requests", "Retry-After", "1");
      return;
    }
  if (!authorized (self, msg))
    {
      /* No detail: missing and wrong look the same. */
      refuse (msg, SOUP_STATUS_UNAUTHORIZED, -32001, "Unauthorized", "WWW-Authenticate", "Bearer");
      return;
    }
  if (!g_str_equal (path, STW_MCP_HTTP_PATH))
    {
      refuse (msg, SOUP_STATUS_NOT_FOUND, -32000, "Not found: the MCP endpoint is " STW_MCP_HTTP_PATH,
              NULL, NULL);
      return;
    }
  if (!g_str_equal (method, "POST") && !g_str_equal (method, "DELETE") && !g_str_equal (method, "GET"))
    {
      refuse (msg, SOUP_STATUS_METHOD_NOT_ALLOWED, -32000, "Method not allowed",
              "Allow", "GET, POST, DELETE");
      return;
    }
  if (g_str_equal (method, "POST"))
    {
      if (soup_message_headers_get_encoding (request) != SOUP_ENCODING_CONTENT_LENGTH)
        {
          refuse (msg, SOUP_STATUS_LENGTH_REQUIRED, -32600, "A POST needs a Content-Length", NULL, NULL);
          return;
        }
      if ((guint64) soup_message_headers_get_content_length (request) > self->max_body)
        {
          g_autofree char *text = g_strdup_printf ("Message too large: more than %" G_GSIZE_FORMAT " bytes",
                                                   self->max_body);

          refuse (msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE, -32600, text, NULL, NULL);
          return;
        }
    }
}

/* --- sessions ------------------------------------------------------------ */

static void
session_free (Session *session)
{
  g_clear_object (&session->connection);
  g_clear_object (&session->framing);
  g_clear_object (&session->cancellable);
  g_free (session->identity);
  g_free (session->id);
  g_free (session);
}

/* 128 bits from the kernel's CSPRNG (g_uuid_string_random() uses
 * g_random, which is not one), as hex: visible ASCII only. */
static char *
new_session_id (void)
{
  guint8 bytes[16];
  GString *id = g_string_sized_new (33);

  if (getrandom (bytes, sizeof bytes, 0) != (ssize_t) sizeof bytes)
    g_error ("Cannot read random bytes for a session id");
  for (gsize i = 0; i < sizeof bytes; i++)
    g_string_append_printf (id, "%02x", bytes[i]);
  return g_string_free (id, FALSE);
}

static void
on_app_stopped (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  if (!stw_session_stop_finish (STW_SESSION (object), result, NULL, &error))
    g_debug ("Stopping an ended MCP session's app: %s", error->message);
}

static void
end_session (StwMcpHttp *self,
             Session    *session)
{
  StwSessionManager *manager = stw_dispatcher_get_session_manager (stw_mcp_server_get_dispatcher (self->server));
  g_autoptr(GPtrArray) owned = NULL;

  g_hash_table_steal (self->sessions, session->id);
  g_debug ("MCP HTTP session ended; %u left", g_hash_table_size (self->sessions));

  /* Serving stops now: calls in flight are cancelled, streams end. */
  g_cancellable_cancel (session->cancellable);
  _stw_mcp_framing_stop (session->framing);
  _stw_mcp_server_remove_connection (self->server, session->connection);

  /* The apps it started end with it. */
  owned = _stw_mcp_server_list_owned_sessions (self->server, session->id);
  for (guint i = 0; i < owned->len; i++)
    {
      StwSession *app = stw_session_manager_lookup (manager, g_ptr_array_index (owned, i));

      if (app != NULL)
        stw_session_stop_async (app, SESSION_STOP_MS, NULL, on_app_stopped, NULL);
    }
  session_free (session);
}

static void
on_served (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  _stw_mcp_connection_serve_finish (STW_MCP_CONNECTION (object), result, NULL);
}

static Session *
new_session (StwMcpHttp *self,
             const char *identity)
{
  Session *session = g_new0 (Session, 1);

  session->http = self;
  session->id = new_session_id ();
  session->identity = g_strdup (identity);
  session->framing = _stw_mcp_http_framing_new ();
  session->cancellable = g_cancellable_new ();
  session->last_used_us = g_get_monotonic_time ();
  session->connection = _stw_mcp_server_add_connection (self->server, session->framing, session->id,
                                                        session->cancellable, on_served, NULL);
  g_hash_table_insert (self->sessions, session->id, session);
  return session;
}

/* Who a client is, for what it may hold: the bearer token where one is
 * set (as a digest: it is never kept or logged), else its address. */
static char *
client_identity (StwMcpHttp        *self,
                 SoupServerMessage *msg)
{
  g_autofree char *address = NULL;

  if (self->token != NULL)
    {
      g_autofree char *digest = g_compute_checksum_for_string (G_CHECKSUM_SHA256, self->token, -1);

      return g_strdup_printf ("bearer:%.16s", digest);
    }
  address = peer_address (msg);
  return g_strdup_printf ("address:%s", address != NULL ? address : "");
}

static guint
max_sessions_per_client (StwMcpHttp *self)
{
  return MAX (1, MIN (MAX_SESSIONS_PER_CLIENT, self->max_sessions / 4));
}

/* A session that may be ended to make room: it owns no app (ending it
 * would stop them) and waits on nothing. */
static gboolean
session_evictable (StwMcpHttp *self,
                   Session    *session)
{
  g_autoptr(GPtrArray) apps = NULL;

  if (_stw_mcp_http_framing_get_n_pending (STW_MCP_HTTP_FRAMING (session->framing)) > 0 ||
      _stw_mcp_connection_get_n_calls (session->connection) > 0)
    return FALSE;
  apps = _stw_mcp_server_list_owned_sessions (self->server, session->id);
  return apps->len == 0;
}

/* Room for one more session of @identity: at its cap, its least recently
 * used evictable session ends. Returns FALSE when there is none. */
static gboolean
make_room (StwMcpHttp *self,
           const char *identity)
{
  Session *oldest = NULL;
  GHashTableIter iter;
  gpointer value;
  guint n = 0;

  g_hash_table_iter_init (&iter, self->sessions);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Session *session = value;

      if (!g_str_equal (session->identity, identity))
        continue;
      n++;
      if (session_evictable (self, session) &&
          (oldest == NULL || session->last_used_us < oldest->last_used_us))
        oldest = session;
    }
  if (n < max_sessions_per_client (self))
    return TRUE;
  if (oldest == NULL)
    return FALSE;
  g_debug ("MCP HTTP: a client at its %u sessions; ending its least recently used one",
           max_sessions_per_client (self));
  end_session (self, oldest);
  return TRUE;
}

static gboolean
on_sweep (gpointer user_data)
{
  StwMcpHttp *self = user_data;
  gint64 now = g_get_monotonic_time ();
  g_autoptr(GPtrArray) idle = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, self->sessions);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Session *session = value;

      /* A session waiting on a long call is not idle. */
      if (_stw_mcp_http_framing_get_n_pending (STW_MCP_HTTP_FRAMING (session->framing)) > 0 ||
          _stw_mcp_connection_get_n_calls (session->connection) > 0)
        session->last_used_us = now;
      else if ((now - session->last_used_us) / 1000 >= self->idle_timeout_ms)
        g_ptr_array_add (idle, session);
    }
  for (guint i = 0; i < idle->len; i++)
    {
      g_debug ("MCP HTTP session idle for %u ms; ending it", self->idle_timeout_ms);
      end_session (self, g_ptr_array_index (idle, i));
    }
  return G_SOURCE_CONTINUE;
}

static void
restart_sweep (StwMcpHttp *self)
{
  if (self->sweep_source != NULL)
    {
      g_source_destroy (self->sweep_source);
      g_clear_pointer (&self->sweep_source, g_source_unref);
    }
  if (!self->listening || self->idle_timeout_ms == 0)
    return;
  self->sweep_source = g_timeout_source_new (CLAMP (self->idle_timeout_ms / 4, 20, 10000));
  g_source_set_callback (self->sweep_source, on_sweep, self, NULL);
  g_source_attach (self->sweep_source, g_main_context_get_thread_default ());
}

/* --- what a client holds ------------------------------------------------ */

/* An SSE stream or a request awaiting its answer, counted against its
 * client's address until its message finishes or its connection goes. */
typedef struct
{
  GWeakRef           http;
  char              *address;
  SoupServerMessage *msg;         /* weak: released at its end */
  gulong             finished_id;
  gulong             disconnected_id;
} Hold;

/* Gives the client's slot back and frees @hold. */
static void
release_hold (Hold *hold)
{
  g_autoptr(StwMcpHttp) self = g_weak_ref_get (&hold->http);

  if (self != NULL)
    {
      guint n = GPOINTER_TO_UINT (g_hash_table_lookup (self->held, hold->address));

      if (n <= 1)
        g_hash_table_remove (self->held, hold->address);
      else
        g_hash_table_insert (self->held, g_strdup (hold->address), GUINT_TO_POINTER (n - 1));
    }
  g_weak_ref_clear (&hold->http);
  g_free (hold->address);
  g_free (hold);
}

static void on_hold_message_gone (gpointer  data,
                                  GObject  *where_the_message_was);

static void
on_hold_over (SoupServerMessage *msg,
              gpointer           user_data)
{
  Hold *hold = user_data;

  g_clear_signal_handler (&hold->finished_id, hold->msg);
  g_clear_signal_handler (&hold->disconnected_id, hold->msg);
  g_object_weak_unref (G_OBJECT (hold->msg), on_hold_message_gone, hold);
  release_hold (hold);
}

/* A message can go without "finished" or "disconnected" (the server shut
 * down with it in flight): its hold goes with it. */
static void
on_hold_message_gone (gpointer  data,
                      GObject  *where_the_message_was)
{
  release_hold (data);
}

static void
hold (StwMcpHttp        *self,
      SoupServerMessage *msg)
{
  g_autofree char *address = peer_address (msg);
  Hold *held;

  if (address == NULL)
    return;  /* gone already: it ends at once */
  held = g_new0 (Hold, 1);
  g_weak_ref_init (&held->http, self);
  held->msg = msg;
  g_hash_table_insert (self->held, g_strdup (address),
                       GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (self->held, address)) + 1));
  held->address = g_steal_pointer (&address);
  held->finished_id = g_signal_connect (msg, "finished", G_CALLBACK (on_hold_over), held);
  held->disconnected_id = g_signal_connect (msg, "disconnected", G_CALLBACK (on_hold_over), held);
  g_object_weak_ref (G_OBJECT (msg), on_hold_message_gone, held);
}

/* Whether @msg's client may open one more stream or pending request; if
 * not, @msg is answered 429 with a JSON-RPC error for @id. */
static gboolean
may_hold (StwMcpHttp        *self,
          SoupServerMessage *msg,
          JsonNode          *id)
{
  g_autofree char *address = peer_address (msg);
  g_autofree char *text = NULL;

  if (address == NULL ||
      GPOINTER_TO_UINT (g_hash_table_lookup (self->held, address)) < MAX_HELD_PER_CLIENT)
    return TRUE;
  text = g_strdup_printf ("Too many open streams and pending requests from this client (at most %u): "
                          "close some, cancel requests or end sessions", MAX_HELD_PER_CLIENT);
  soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Retry-After", "1");
  respond_error_full (msg, 429, id, -32000, text, NULL);
  return FALSE;
}

/* --- the endpoint -------------------------------------------------------- */

static gboolean
accepts (SoupServerMessage *msg,
         const char        *type)
{
  const char *accept = soup_message_headers_get_list (soup_server_message_get_request_headers (msg),
                                                      "Accept");

  return accept != NULL && soup_header_contains (accept, type);
}

static Session *
lookup_session (StwMcpHttp        *self,
                SoupServerMessage *msg,
                gboolean           required)
{
  SoupMessageHeaders *request = soup_server_message_get_request_headers (msg);
  const char *id = soup_message_headers_get_one (request, "MCP-Session-Id");
  Session *session;

  if (id == NULL)
    {
      if (required)
        respond_error (msg, SOUP_STATUS_BAD_REQUEST, -32600,
                       "Bad request: no MCP-Session-Id (initialize first)");
      return NULL;
    }
  /* Sessions belong to the 2025 eras; 2026-07-28 has none. Any other
   * version we speak is served in a session, as clients mix them. */
  if (g_strcmp0 (soup_message_headers_get_one (request, "MCP-Protocol-Version"), MODERN_VERSION) == 0)
    {
      respond_error (msg, SOUP_STATUS_BAD_REQUEST, -32600,
                     "Bad request: MCP-Session-Id is of the 2025 eras, MCP-Protocol-Version "
                     MODERN_VERSION " has no sessions");
      return NULL;
    }
  session = g_hash_table_lookup (self->sessions, id);
  if (session == NULL)
    respond_error (msg, SOUP_STATUS_NOT_FOUND, -32001, "Session not found");
  return session;
}

static void
handle_delete (StwMcpHttp        *self,
               SoupServerMessage *msg)
{
  Session *session = lookup_session (self, msg, TRUE);

  if (session == NULL)
    return;
  end_session (self, session);
  soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
}

/* The server-to-client stream of a session, or the rest of one it lost. */
static void
handle_get (StwMcpHttp        *self,
            SoupServerMessage *msg)
{
  SoupMessageHeaders *request = soup_server_message_get_request_headers (msg);
  const char *version = soup_message_headers_get_one (request, "MCP-Protocol-Version");
  const char *last_event_id = soup_message_headers_get_one (request, "Last-Event-ID");
  Session *session;

  if (!accepts (msg, "text/event-stream"))
    {
      respond_error (msg, SOUP_STATUS_NOT_ACCEPTABLE, -32600,
                     "Not acceptable: a GET stream is text/event-stream");
      return;
    }
  if ((session = lookup_session (self, msg, TRUE)) == NULL)
    return;
  if (version != NULL && !_stw_mcp_server_supports_version (version))
    {
      g_autofree char *text = g_strdup_printf ("Bad request: unsupported MCP-Protocol-Version %.40s",
                                               version);

      respond_error (msg, SOUP_STATUS_BAD_REQUEST, -32600, text);
      return;
    }

  session->last_used_us = g_get_monotonic_time ();
  if (!may_hold (self, msg, NULL))
    return;
  if (_stw_mcp_http_framing_open_stream (STW_MCP_HTTP_FRAMING (session->framing), msg, last_event_id) ==
      STW_MCP_HTTP_OPENED_CONFLICT)
    respond_error (msg, SOUP_STATUS_CONFLICT, -32000,
                   "Conflict: this session's GET stream is open already");
  else
    hold (self, msg);
}

static gboolean
valid_id (JsonNode *id)
{
  return id != NULL && JSON_NODE_HOLDS_VALUE (id) &&
         (json_node_get_value_type (id) == G_TYPE_STRING ||
          json_node_get_value_type (id) == G_TYPE_INT64);
}

static const char *
string_member (JsonObject *object,
               const char *name)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, name) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

/* --- stateless requests (2026-07-28) ------------------------------------ */

#define STATELESS_OWNER "stateless"

static const char * const stateless_methods[] = {
  "server/discover", "tools/list", "tools/call", "resources/list", "resources/read",
  "resources/templates/list", "subscriptions/listen", NULL
};

/* Each stateless request is a connection of its own, for as long as its
 * answer takes: ids of different clients never meet, and closing the
 * stream cancels the call (2026-07-28: the stream is the request). Apps
 * launched this way are shared by every stateless client (they are
 * addressed by sessionId, as the era says). */
static void
end_request (StwMcpHttp *self,
             Session    *request)
{
  if (!g_ptr_array_remove (self->requests, request))
    return;
  g_cancellable_cancel (request->cancellable);
  _stw_mcp_framing_stop (request->framing);
  _stw_mcp_server_remove_connection (self->server, request->connection);
  session_free (request);
}

typedef struct
{
  StwMcpHttp        *http;
  Session           *request;
  SoupServerMessage *msg;
  GSource           *watch;
} RequestRef;

static void
request_ref_free (RequestRef *ref)
{
  g_signal_handlers_disconnect_by_data (ref->msg, ref);
  if (ref->watch != NULL)
    {
      g_source_destroy (ref->watch);
      g_source_unref (ref->watch);
    }
  g_free (ref);
}

static void
on_request_finished (SoupServerMessage *msg,
                     gpointer           user_data)
{
  RequestRef *ref = user_data;
  StwMcpHttp *self = ref->http;
  Session *request = ref->request;

  request_ref_free (ref);
  end_request (self, request);
}

/* End of stream is the cancellation (2026-07-28: the stream is the
 * request). */
static void
on_request_client (gpointer user_data,
                   gboolean left)
{
  RequestRef *ref = user_data;

  g_clear_pointer (&ref->watch, g_source_unref);
  if (!left)
    return;
  g_debug ("A stateless request's stream closed; cancelling it");
  on_request_finished (ref->msg, ref);
}

/* A header value as the client meant it: plain ASCII, or the base64
 * sentinel form =?base64?...?= (2026-07-28, "Value Encoding"). */
static char *
header_value (const char *value)
{
  g_autofree char *inner = NULL;
  g_autofree guchar *decoded = NULL;
  gsize length = 0;

  if (value == NULL)
    return NULL;
  if (!g_str_has_prefix (value, "=?base64?") || !g_str_has_suffix (value, "?=") || strlen (value) < 11)
    return g_strdup (value);
  inner = g_strndup (value + 9, strlen (value) - 11);
  decoded = g_base64_decode (inner, &length);
  if (!g_utf8_validate ((const char *) decoded, length, NULL) || memchr (decoded, '\0', length) != NULL)
    return NULL;
  return g_strndup ((const char *) decoded, length);
}

/* The protocol version a request names in its _meta, if any. */
static const char *
meta_version (JsonObject *message)
{
  JsonNode *params = json_object_get_member (message, "params");
  JsonNode *meta;

  if (params == NULL || !JSON_NODE_HOLDS_OBJECT (params))
    return NULL;
  meta = json_object_get_member (json_node_get_object (params), "_meta");
  if (meta == NULL || !JSON_NODE_HOLDS_OBJECT (meta))
    return NULL;
  return string_member (json_node_get_object (meta), "io.modelcontextprotocol/protocolVersion");
}

/* What a request of the stateless era lacks in its _meta (every request
 * names its protocol version and its client's capabilities there), or
 * NULL when nothing. */
static const char *
meta_lacks (JsonObject *message)
{
  JsonNode *params = json_object_get_member (message, "params");
  JsonNode *meta = params != NULL && JSON_NODE_HOLDS_OBJECT (params)
                   ? json_object_get_member (json_node_get_object (params), "_meta") : NULL;
  JsonNode *capabilities;

  if (meta == NULL || !JSON_NODE_HOLDS_OBJECT (meta))
    return "_meta";
  if (string_member (json_node_get_object (meta), "io.modelcontextprotocol/protocolVersion") == NULL)
    return "_meta io.modelcontextprotocol/protocolVersion";
  capabilities = json_object_get_member (json_node_get_object (meta), "io.modelcontextprotocol/clientCapabilities");
  if (capabilities == NULL || !JSON_NODE_HOLDS_OBJECT (capabilities))
    return "_meta io.modelcontextprotocol/clientCapabilities";
  return NULL;
}

/* Whether a request without a session is of the stateless era: its _meta
 * or, when its _meta is incomplete, its MCP-Protocol-Version header says
 * 2026-07-28. */
static gboolean
is_stateless_era (SoupServerMessage *msg,
                  JsonObject        *message)
{
  const char *version = meta_version (message);

  if (version == NULL)
    version = soup_message_headers_get_one (soup_server_message_get_request_headers (msg), "MCP-Protocol-Version");
  return g_strcmp0 (version, MODERN_VERSION) == 0;
}

static void
handle_stateless (StwMcpHttp        *self,
                  SoupServerMessage *msg,
                  JsonObject        *message,
                  const char        *method,
                  JsonNode          *id,
                  const char        *version,
                  const char        *data,
                  gsize              length)
{
  SoupMessageHeaders *request = soup_server_message_get_request_headers (msg);
  const char *header_version = soup_message_headers_get_one (request, "MCP-Protocol-Version");
  const char *lacks = meta_lacks (message);
  g_autofree char *header_method = header_value (soup_message_headers_get_one (request, "Mcp-Method"));
  g_autofree char *header_name = header_value (soup_message_headers_get_one (request, "Mcp-Name"));
  JsonNode *params_node = json_object_get_member (message, "params");
  JsonObject *params = params_node != NULL && JSON_NODE_HOLDS_OBJECT (params_node)
                       ? json_node_get_object (params_node) : NULL;
  g_autofree char *key = NULL;
  Session *call;
  StwMcpHttpDelivered delivered;

  /* The headers mirror the body, so that a proxy may route on them. A
   * request with no version in its _meta is refused below for that. */
  if (version != NULL && g_strcmp0 (header_version, version) != 0)
    {
      respond_error_full (msg, SOUP_STATUS_BAD_REQUEST, id, STW_RPC_HEADER_MISMATCH,
                          "Header mismatch: MCP-Protocol-Version must be the _meta protocolVersion", NULL);
      return;
    }
  if (version != NULL && !_stw_mcp_server_supports_version (version))
    {
      JsonObject *error_data = json_object_new ();
      JsonArray *supported = json_array_new ();

      json_array_add_string_element (supported, "2026-07-28");
      json_array_add_string_element (supported, "2025-11-25");
      json_array_add_string_element (supported, "2025-06-18");
      json_array_add_string_element (supported, "2025-03-26");
      json_object_set_array_member (error_data, "supported", supported);
      json_object_set_string_member (error_data, "requested", version);
      respond_error_full (msg, SOUP_STATUS_BAD_REQUEST, id, STW_RPC_UNSUPPORTED_PROTOCOL_VERSION,
                          "Unsupported protocol version", error_data);
      return;
    }

  /* Every request says who asks and in which version (2026-07-28). */
  if (lacks != NULL)
    {
      g_autofree char *text = g_strdup_printf ("Invalid params: %s is required", lacks);

      if (method != NULL && valid_id (id))
        respond_error_full (msg, SOUP_STATUS_BAD_REQUEST, id, STW_RPC_INVALID_PARAMS, text, NULL);
      else if (method != NULL && id == NULL)
        soup_server_message_set_status (msg, SOUP_STATUS_ACCEPTED, NULL);  /* a notification: nothing to answer */
      else
        respond_error (msg, SOUP_STATUS_BAD_REQUEST, -32600, "Invalid request");
      return;
    }
  if (method == NULL || !valid_id (id))
    {
      /* No client notification means anything without a session. */
      if (method != NULL && id == NULL)
        soup_server_message_set_status (msg, SOUP_STATUS_ACCEPTED, NULL);
      else
        respond_error (msg, SOUP_STATUS_BAD_REQUEST, -32600, "Invalid request");
      return;
    }
  if (g_strcmp0 (header_method, method) != 0)
    {
      respond_error_full (msg, SOUP_STATUS_BAD_REQUEST, id, STW_RPC_HEADER_MISMATCH,
                          "Header mismatch: Mcp-Method must be the request's method", NULL);
      return;
    }
  if (g_str_equal (method, "tools/call") || g_str_equal (method, "resources/read"))
    {
      const char *name = string_member (params, g_str_equal (method, "tools/call") ? "name" : "uri");

      if (name == NULL || g_strcmp0 (header_name, name) != 0)
        {
          respond_error_full (msg, SOUP_STATUS_BAD_REQUEST, id, STW_RPC_HEADER_MISMATCH,
                              "Header mismatch: Mcp-Name must be the request's name or uri", NULL);
          return;
        }
    }
  if (!g_strv_contains (stateless_methods, method))
    {
      JsonObject *error_data = json_object_new ();

      if (strlen (method) <= 128)
        json_object_set_string_member (error_data, "method", method);
      respond_error_full (msg, SOUP_STATUS_NOT_FOUND, id, STW_RPC_METHOD_NOT_FOUND, "Method not found",
                          error_data);
      return;
    }

  /* A listen answers only with notifications, as they come: on a stream. */
  if (g_str_equal (method, "subscriptions/listen") && !accepts (msg, "text/event-stream"))
    {
      respond_error_full (msg, SOUP_STATUS_NOT_ACCEPTABLE, id, -32600,
                          "Not acceptable: subscriptions/listen answers as text/event-stream", NULL);
      return;
    }

  /* Each waits on a call: bounded like sessions are. */
  if (self->requests->len >= MAX_STATELESS_REQUESTS)
    {
      soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Retry-After", "1");
      respond_error_full (msg, SOUP_STATUS_SERVICE_UNAVAILABLE, id, -32000,
                          "Too many requests in flight; retry later", NULL);
      return;
    }

  if (!may_hold (self, msg, id))
    return;

  call = g_new0 (Session, 1);
  call->http = self;
  call->framing = _stw_mcp_http_framing_new ();
  call->cancellable = g_cancellable_new ();
  call->last_used_us = g_get_monotonic_time ();
  call->identity = client_identity (self, msg);
  /* Without a token, stateless clients cannot be told apart: they share. */
  call->connection = _stw_mcp_server_add_connection (self->server, call->framing,
                                                     self->token != NULL ? call->identity : STATELESS_OWNER,
                                                     call->cancellable, on_served, NULL);
  g_ptr_array_add (self->requests, call);

  key = stw_json_to_string (id, NULL);
  delivered = _stw_mcp_http_framing_deliver (STW_MCP_HTTP_FRAMING (call->framing), msg, key,
                                             accepts (msg, "text/event-stream"), data, length);
  if (delivered == STW_MCP_HTTP_DELIVERED_PENDING)
    {
      RequestRef *ref = g_new0 (RequestRef, 1);

      ref->http = self;
      ref->request = call;
      ref->msg = msg;
      g_signal_connect (msg, "finished", G_CALLBACK (on_request_finished), ref);
      g_signal_connect (msg, "disconnected", G_CALLBACK (on_request_finished), ref);
      hold (self, msg);
      ref->watch = _stw_mcp_http_watch_client (msg, on_request_client, ref);
      return;
    }
  if (delivered == STW_MCP_HTTP_DELIVERED_NOTHING)
    respond_error (msg, SOUP_STATUS_INTERNAL_SERVER_ERROR, -32603, "No answer");
  end_request (self, call);
}

static void
handle_post (StwMcpHttp        *self,
             SoupServerMessage *msg)
{
  SoupMessageHeaders *request = soup_server_message_get_request_headers (msg);
  const char *content_type = soup_message_headers_get_content_type (request, NULL);
  const char *version = soup_message_headers_get_one (request, "MCP-Protocol-Version");
  g_autoptr(GBytes) body = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *key = NULL;
  JsonObject *message;
  const char *method;
  JsonNode *id;
  Session *session;
  gboolean created = FALSE;
  const char *stateless_version = NULL;
  gsize length = 0;
  const char *data;
  StwMcpHttpDelivered delivered;

  if (content_type == NULL || g_ascii_strcasecmp (content_type, "application/json") != 0)
    {
      respond_error (msg, SOUP_STATUS_UNSUPPORTED_MEDIA_TYPE, -32600,
                     "Unsupported media type: POST application/json");
      return;
    }

  body = soup_message_body_flatten (soup_server_message_get_request_body (msg));
  data = g_bytes_get_data (body, &length);
  if (length > self->max_body)
    {
      respond_error (msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE, -32600, "Message too large");
      return;
    }

  /* Read here as strictly as the connection reads it: the session and the
   * answer's shape depend on what the message is. */
  node = stw_json_parse_bounded (data != NULL ? data : "", (gssize) length,
                                 stw_json_value_budget (length), &error);
  if (node == NULL)
    {
      g_autofree char *text = g_strdup_printf ("Parse error: %s", error->message);

      respond_error (msg, SOUP_STATUS_BAD_REQUEST,
                     g_error_matches (error, STW_JSON_ERROR, STW_JSON_ERROR_TOO_LARGE) ? -32600 : -32700,
                     text);
      return;
    }
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      respond_error (msg, SOUP_STATUS_BAD_REQUEST, -32600, "Batches are not supported");
      return;
    }
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      respond_error (msg, SOUP_STATUS_BAD_REQUEST, -32600, "A message must be a JSON object");
      return;
    }
  message = json_node_get_object (node);
  method = string_member (message, "method");
  id = json_object_get_member (message, "id");

  if (g_strcmp0 (method, "initialize") == 0 &&
      soup_message_headers_get_one (request, "MCP-Session-Id") == NULL &&
      !is_stateless_era (msg, message))
    {
      g_autofree char *identity = client_identity (self, msg);

      if (!make_room (self, identity))
        {
          g_autofree char *text = g_strdup_printf ("Too many MCP sessions of this client (at most %u, each "
                                                   "driving an app or busy): end one with DELETE or retry later",
                                                   max_sessions_per_client (self));

          soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                        "Retry-After", "5");
          respond_error (msg, SOUP_STATUS_SERVICE_UNAVAILABLE, -32000, text);
          return;
        }
      if (g_hash_table_size (self->sessions) >= self->max_sessions)
        {
          g_autofree char *text = g_strdup_printf ("Too many MCP sessions (at most %u): "
                                                   "end one with DELETE or retry later",
                                                   self->max_sessions);

          soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                        "Retry-After", "5");
          respond_error (msg, SOUP_STATUS_SERVICE_UNAVAILABLE, -32000, text);
          return;
        }
      session = new_session (self, identity);
      created = TRUE;
    }
  else if (soup_message_headers_get_one (request, "MCP-Session-Id") == NULL &&
           is_stateless_era (msg, message))
    {
      /* initialize is gone in this era: it is answered 404 like any
       * method the era does not have. */
      stateless_version = meta_version (message);
      handle_stateless (self, msg, message, method, id, stateless_version, data, length);
      return;
    }
  else if (soup_message_headers_get_one (request, "MCP-Session-Id") == NULL &&
           (stateless_version = meta_version (message)) != NULL &&
           !_stw_mcp_server_supports_version (stateless_version))
    {
      /* A version we do not speak, sessions or not. */
      handle_stateless (self, msg, message, method, id, stateless_version, data, length);
      return;
    }
  else if ((session = lookup_session (self, msg, TRUE)) == NULL)
    return;
  else if (g_strcmp0 (meta_version (message), MODERN_VERSION) == 0)
    {
      respond_error_full (msg, SOUP_STATUS_BAD_REQUEST, id, -32600,
                          "Bad request: a request of the session-less " MODERN_VERSION " era in an MCP session",
                          NULL);
      return;
    }

  /* After initialize, a version must be one we speak (absent: the client
   * predates the header, 2025-03-26). */
  if (!created && version != NULL && !_stw_mcp_server_supports_version (version))
    {
      g_autofree char *text = g_strdup_printf ("Bad request: unsupported MCP-Protocol-Version %.40s",
                                               version);

      respond_error (msg, SOUP_STATUS_BAD_REQUEST, -32600, text);
      return;
    }

  session->last_used_us = g_get_monotonic_time ();
  if (method != NULL && valid_id (id))
    key = stw_json_to_string (id, NULL);
  if (key != NULL && !created && !may_hold (self, msg, id))
    return;

  if (created)
    soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                  "MCP-Session-Id", session->id);

  delivered = _stw_mcp_http_framing_deliver (STW_MCP_HTTP_FRAMING (session->framing), msg, key,
                                             accepts (msg, "text/event-stream"), data, length);

  if (created && !_stw_mcp_connection_is_initialized (session->connection))
    {
      /* initialize refused: no session comes of it. */
      soup_message_headers_remove (soup_server_message_get_response_headers (msg), "MCP-Session-Id");
      end_session (self, session);
    }

  if (delivered == STW_MCP_HTTP_DELIVERED_PENDING)
    hold (self, msg);
  if (delivered == STW_MCP_HTTP_DELIVERED_NOTHING)
    {
      if (key != NULL)
        respond_error (msg, SOUP_STATUS_NOT_FOUND, -32001, "Session not found");
      else
        {
          /* A notification or a response: accepted. */
          soup_server_message_set_status (msg, SOUP_STATUS_ACCEPTED, NULL);
          if (g_strcmp0 (method, "notifications/cancelled") == 0)
            {
              JsonObject *params = json_object_has_member (message, "params") &&
                                   JSON_NODE_HOLDS_OBJECT (json_object_get_member (message, "params"))
                                   ? json_object_get_object_member (message, "params") : NULL;
              JsonNode *request_id = params ? json_object_get_member (params, "requestId") : NULL;

              if (valid_id (request_id))
                {
                  g_autofree char *cancelled = stw_json_to_string (request_id, NULL);
                  _stw_mcp_http_framing_abandon (STW_MCP_HTTP_FRAMING (session->framing), cancelled);
                }
            }
        }
    }
}

/* libsoup before 3.4 never closes a kept-alive connection that its client
 * closes while it waits for the next request (libsoup d20c6601): it stays
 * in CLOSE_WAIT, a descriptor and a connection object each, until the
 * process has no descriptor left. With those, every answer ends its
 * connection (on_incoming() accepts the next). */
static gboolean
keepalive_leaks (void)
{
  return soup_get_major_version () == 3 && soup_get_minor_version () < 4;
}

static void
handler (SoupServer        *soup,
         SoupServerMessage *msg,
         const char        *path,
         GHashTable        *query,
         gpointer           user_data)
{
  StwMcpHttp *self = user_data;
  const char *method = soup_server_message_get_method (msg);

  if (keepalive_leaks ())
    soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Connection", "close");
  if (g_str_equal (method, "DELETE"))
    handle_delete (self, msg);
  else if (g_str_equal (method, "POST"))
    handle_post (self, msg);
  else if (g_str_equal (method, "GET"))
    handle_get (self, msg);
  else
    respond_error (msg, SOUP_STATUS_METHOD_NOT_ALLOWED, -32000, "Method not allowed");
}

/* --- setup --------------------------------------------------------------- */

void
_stw_mcp_http_set_token (StwMcpHttp *self,
                         const char *token)
{
  g_return_if_fail (STW_IS_MCP_HTTP (self));

  if (self->token != NULL)
    memset (self->token, 0, strlen (self->token));
  g_clear_pointer (&self->token, g_free);
  self->token = token != NULL && *token != '\0' ? g_strdup (token) : NULL;
}

gboolean
_stw_mcp_http_set_token_file (StwMcpHttp  *self,
                              const char  *path,
                              GError     **error)
{
  g_autofree char *contents = NULL;
  gsize length = 0;
  GStatBuf buf;

  g_return_val_if_fail (STW_IS_MCP_HTTP (self), FALSE);

  if (!g_file_get_contents (path, &contents, &length, error))
    return FALSE;
  if (g_stat (path, &buf) == 0 && (buf.st_mode & 077) != 0)
    g_message ("The token file %s can be read by other users (chmod 600 it)", path);
  g_strstrip (contents);
  if (*contents == '\0' || strlen (contents) != strlen (g_strchomp (contents)) ||
      strpbrk (contents, "\r\n") != NULL || strlen (contents) < 16)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s: the token must be one line of at least 16 characters"), path);
      memset (contents, 0, length);
      return FALSE;
    }
  _stw_mcp_http_set_token (self, contents);
  memset (contents, 0, length);
  return TRUE;
}

gboolean
_stw_mcp_http_set_tls_files (StwMcpHttp  *self,
                             const char  *cert_file,
                             const char  *key_file,
                             GError     **error)
{
  g_return_val_if_fail (STW_IS_MCP_HTTP (self), FALSE);

  g_clear_object (&self->certificate);
  self->certificate = g_tls_certificate_new_from_files (cert_file, key_file, error);
  return self->certificate != NULL;
}

void
_stw_mcp_http_set_max_sessions (StwMcpHttp *self,
                                guint       max_sessions)
{
  g_return_if_fail (STW_IS_MCP_HTTP (self));
  self->max_sessions = max_sessions;
}

void
_stw_mcp_http_set_idle_timeout_ms (StwMcpHttp *self,
                                   guint       timeout_ms)
{
  g_return_if_fail (STW_IS_MCP_HTTP (self));
  self->idle_timeout_ms = timeout_ms;
  restart_sweep (self);
}

void
_stw_mcp_http_set_max_body (StwMcpHttp *self,
                            gsize       max_bytes)
{
  g_return_if_fail (STW_IS_MCP_HTTP (self));
  self->max_body = max_bytes;
}

void
_stw_mcp_http_set_rate_limit (StwMcpHttp *self,
                              guint       rate,
                              guint       burst)
{
  g_return_if_fail (STW_IS_MCP_HTTP (self));
  self->rate = rate;
  self->burst = MAX (burst, 1);
  g_hash_table_remove_all (self->buckets);
}

static GInetAddress *
parse_address (const char  *spec,
               guint       *port,
               GError     **error)
{
  g_autofree char *host = NULL;
  const char *port_text = spec;
  char *end = NULL;
  guint64 value;
  GInetAddress *address;

  if (spec[0] == '[')
    {
      const char *close = strchr (spec, ']');

      if (close == NULL || close[1] != ':')
        goto bad;
      host = g_strndup (spec + 1, close - spec - 1);
      port_text = close + 2;
    }
  else if (strchr (spec, ':') != NULL)
    {
      const char *colon = strrchr (spec, ':');

      host = g_strndup (spec, colon - spec);
      port_text = colon + 1;
    }

  value = g_ascii_strtoull (port_text, &end, 10);
  if (*port_text == '\0' || end == port_text || *end != '\0' || value > 65535)
    goto bad;
  *port = (guint) value;

  if (host == NULL || g_ascii_strcasecmp (host, "localhost") == 0)
    return g_inet_address_new_from_string ("127.0.0.1");
  address = g_inet_address_new_from_string (host);
  if (address != NULL)
    return address;

bad:
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
               _("--http takes [ADDRESS:]PORT with an IP address or localhost, not “%s”"), spec);
  return NULL;
}

gboolean
_stw_mcp_http_listen (StwMcpHttp  *self,
                      const char  *spec,
                      GError     **error)
{
  g_autoptr(GInetAddress) address = NULL;
  g_autoptr(GSocketAddress) socket_address = NULL;
  g_autofree char *literal = NULL;
  g_autoptr(GSocketListener) listener = NULL;
  g_autoptr(GSocketAddress) local = NULL;
  guint port = 0;

  g_return_val_if_fail (STW_IS_MCP_HTTP (self), FALSE);
  g_return_val_if_fail (!self->listening, FALSE);

  address = parse_address (spec, &port, error);
  if (address == NULL)
    return FALSE;

  self->loopback = g_inet_address_get_is_loopback (address);
  self->wildcard = g_inet_address_get_is_any (address);
  if (!self->loopback && self->token == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   _("refusing to serve HTTP on %s without a token: a non-loopback address "
                     "needs --http-token-file"), spec);
      return FALSE;
    }

  socket_address = g_inet_socket_address_new (address, port);
  listener = g_socket_listener_new ();
  /* GLib's default of 10 makes a burst of connections (half-sent ones
   * included) wait on the kernel's SYN retries, a second each. */
  g_socket_listener_set_backlog (listener, 256);
  if (!g_socket_listener_add_address (listener, socket_address, G_SOCKET_TYPE_STREAM,
                                      G_SOCKET_PROTOCOL_TCP, NULL, &local, error))
    return FALSE;
  self->port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (local));
  self->listener = g_steal_pointer (&listener);
  self->accepting = g_cancellable_new ();
  {
    struct rlimit limit;

    /* Half the descriptors past a reserve may wait on half-sent requests. */
    if (getrlimit (RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
      self->max_incomplete = (guint) CLAMP (((gint64) limit.rlim_cur - FD_RESERVE) / 2, 8, MAX_INCOMPLETE);
    else
      self->max_incomplete = MAX_INCOMPLETE;
  }
  accept_next (self);

  literal = g_inet_address_to_string (address);
  g_free (self->bound_host);
  self->bound_host = g_inet_address_get_family (address) == G_SOCKET_FAMILY_IPV6
                     ? g_strdup_printf ("[%s]", literal) : g_strdup (literal);
  g_free (self->url);
  self->url = g_strdup_printf ("%s://%s:%u%s", self->certificate != NULL ? "https" : "http",
                               self->wildcard ? "127.0.0.1" : self->bound_host, self->port,
                               STW_MCP_HTTP_PATH);
  if (self->wildcard)
    {
      /* Every address, loopback too. */
      g_free (self->bound_host);
      self->bound_host = g_strdup ("127.0.0.1");
    }
  self->listening = TRUE;
  restart_sweep (self);
  return TRUE;
}

char *
_stw_mcp_http_get_url (StwMcpHttp *self)
{
  g_return_val_if_fail (STW_IS_MCP_HTTP (self), NULL);
  return g_strdup (self->url);
}

guint
_stw_mcp_http_get_n_sessions (StwMcpHttp *self)
{
  g_return_val_if_fail (STW_IS_MCP_HTTP (self), 0);
  return g_hash_table_size (self->sessions);
}

void
_stw_mcp_http_shutdown (StwMcpHttp *self)
{
  g_return_if_fail (STW_IS_MCP_HTTP (self));

  while (g_hash_table_size (self->sessions) > 0)
    {
      GHashTableIter iter;
      gpointer value;

      g_hash_table_iter_init (&iter, self->sessions);
      g_hash_table_iter_next (&iter, NULL, &value);
      end_session (self, value);
    }
  while (self->requests->len > 0)
    end_request (self, g_ptr_array_index (self->requests, 0));
  stop_accepting (self);
  if (self->soup != NULL)
    soup_server_disconnect (self->soup);
  self->listening = FALSE;
  restart_sweep (self);
}

/* --- object -------------------------------------------------------------- */

static void
stw_mcp_http_dispose (GObject *object)
{
  StwMcpHttp *self = STW_MCP_HTTP (object);

  if (self->sessions != NULL && self->server != NULL)
    _stw_mcp_http_shutdown (self);
  stop_accepting (self);
  g_clear_object (&self->soup);

  G_OBJECT_CLASS (stw_mcp_http_parent_class)->dispose (object);
}

static void
stw_mcp_http_finalize (GObject *object)
{
  StwMcpHttp *self = STW_MCP_HTTP (object);

  _stw_mcp_http_set_token (self, NULL);
  g_clear_object (&self->server);
  g_clear_object (&self->certificate);
  g_clear_pointer (&self->sessions, g_hash_table_unref);
  g_clear_pointer (&self->requests, g_ptr_array_unref);
  g_clear_pointer (&self->buckets, g_hash_table_unref);
  g_clear_pointer (&self->held, g_hash_table_unref);
  g_clear_pointer (&self->incomplete, g_hash_table_unref);
  g_clear_pointer (&self->bound_host, g_free);
  g_clear_pointer (&self->url, g_free);

  G_OBJECT_CLASS (stw_mcp_http_parent_class)->finalize (object);
}

static void
stw_mcp_http_class_init (StwMcpHttpClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = stw_mcp_http_dispose;
  object_class->finalize = stw_mcp_http_finalize;
}

static void
stw_mcp_http_init (StwMcpHttp *self)
{
  self->sessions = g_hash_table_new (g_str_hash, g_str_equal);
  self->requests = g_ptr_array_new ();
  self->buckets = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->held = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->incomplete = g_hash_table_new (NULL, NULL);
  self->max_incomplete = MAX_INCOMPLETE;
  self->max_sessions = STW_MCP_HTTP_DEFAULT_MAX_SESSIONS;
  self->idle_timeout_ms = STW_MCP_HTTP_DEFAULT_IDLE_TIMEOUT_MS;
  self->max_body = STW_MCP_HTTP_DEFAULT_MAX_BODY;
  self->rate = STW_MCP_HTTP_DEFAULT_RATE;
  self->burst = STW_MCP_HTTP_DEFAULT_BURST;
  self->bound_host = g_strdup ("127.0.0.1");
}

StwMcpHttp *
_stw_mcp_http_new (StwMcpServer  *server,
                   GError       **error)
{
  StwMcpHttp *self;

  g_return_val_if_fail (STW_IS_MCP_SERVER (server), NULL);

  if (!_stw_soup_load (error))
    return NULL;
  self = g_object_new (STW_TYPE_MCP_HTTP, NULL);
  self->server = g_object_ref (server);
  /* No Server header: nothing to fingerprint. */
  self->soup = soup_server_new ("server-header", NULL, NULL);
  soup_server_add_early_handler (self->soup, NULL, early_handler, self, NULL);
  soup_server_add_handler (self->soup, NULL, handler, self, NULL);
  g_signal_connect (self->soup, "request-started", G_CALLBACK (on_request_started), self);
  g_signal_connect (self->soup, "request-read", G_CALLBACK (on_request_read), self);
  return self;
}
