/* stw-network-types.c: the network plugin's typed results — a captured
 * request (StwNetworkEntry), a page of them (StwNetworkPage) and a stub
 * (StwNetworkStub)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "stw-network-private.h"

G_DEFINE_ENUM_TYPE (StwNetworkBodies, stw_network_bodies,
                    G_DEFINE_ENUM_VALUE (STW_NETWORK_BODIES_NONE, "none"),
                    G_DEFINE_ENUM_VALUE (STW_NETWORK_BODIES_TEXT, "text"),
                    G_DEFINE_ENUM_VALUE (STW_NETWORK_BODIES_ALL, "all"))

G_DEFINE_ENUM_TYPE (StwNetworkError, stw_network_error,
                    G_DEFINE_ENUM_VALUE (STW_NETWORK_ERROR_UNSUPPORTED, "unsupported"),
                    G_DEFINE_ENUM_VALUE (STW_NETWORK_ERROR_ALREADY_CAPTURING, "already-capturing"),
                    G_DEFINE_ENUM_VALUE (STW_NETWORK_ERROR_NOT_CAPTURING, "not-capturing"),
                    G_DEFINE_ENUM_VALUE (STW_NETWORK_ERROR_INVALID_PATTERN, "invalid-pattern"))

/**
 * stw_network_error_quark:
 *
 * The network plugin's error domain: the `network.*` codes as
 * #StwNetworkError values.
 *
 * Returns: the domain
 *
 * Since: 1.0
 */
GQuark
stw_network_error_quark (void)
{
  static gsize quark;

  if (g_once_init_enter (&quark))
    g_once_init_leave (&quark, stw_error_register_domain ("network", STW_TYPE_NETWORK_ERROR));
  return (GQuark) quark;
}

/* --- StwNetworkEntry ------------------------------------------------------ */

/**
 * StwNetworkEntry:
 *
 * One request a capture saw, from its first event to its last: a
 * redirect ends one entry (its status the 3xx, its redirect URL the next
 * entry's URL) and starts another. Headers are a name → value mapping (open
 * by nature, so JSON), with the secrets redacted unless the plugin's
 * config says otherwise.
 */
G_DEFINE_FINAL_TYPE (StwNetworkEntry, stw_network_entry, G_TYPE_OBJECT)

static void
stw_network_entry_finalize (GObject *object)
{
  StwNetworkEntry *self = STW_NETWORK_ENTRY (object);

  g_free (self->id);
  g_free (self->key);
  g_free (self->surface_id);
  g_free (self->url);
  g_free (self->method);
  g_free (self->resource_type);
  g_free (self->mime_type);
  g_free (self->status_text);
  g_free (self->error_text);
  g_free (self->protocol);
  g_free (self->remote_ip);
  g_free (self->stub_id);
  g_free (self->redirect_url);
  g_free (self->post_mime);
  g_free (self->body_path);
  g_free (self->body_omitted);
  g_free (self->request_body_path);
  g_clear_pointer (&self->post_data, g_bytes_unref);
  g_clear_pointer (&self->body, g_bytes_unref);
  g_clear_pointer (&self->timing, json_object_unref);
  g_clear_pointer (&self->request_headers, json_object_unref);
  g_clear_pointer (&self->response_headers, json_object_unref);
  G_OBJECT_CLASS (stw_network_entry_parent_class)->finalize (object);
}

static void
stw_network_entry_class_init (StwNetworkEntryClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = stw_network_entry_finalize;
}

static void
stw_network_entry_init (StwNetworkEntry *self)
{
  self->request_headers = json_object_new ();
  self->response_headers = json_object_new ();
  self->encoded_bytes = -1;
}

/**
 * stw_network_entry_get_id:
 * @self: an entry
 *
 * Returns: its id, increasing in the order requests started (a cursor)
 */
const char *
stw_network_entry_get_id (StwNetworkEntry *self)
{
  g_return_val_if_fail (STW_IS_NETWORK_ENTRY (self), NULL);
  return self->id;
}

/**
 * stw_network_entry_get_url:
 * @self: an entry
 *
 * Returns: the request's URL (at most 16 KiB of it)
 */
const char *
stw_network_entry_get_url (StwNetworkEntry *self)
{
  g_return_val_if_fail (STW_IS_NETWORK_ENTRY (self), NULL);
  return self->url;
}

/**
 * stw_network_entry_get_method:
 * @self: an entry
 *
 * Returns: the request's method
 */
const char *
stw_network_entry_get_method (StwNetworkEntry *self)
{
  g_return_val_if_fail (STW_IS_NETWORK_ENTRY (self), NULL);
  return self->method;
}

/**
 * stw_network_entry_get_resource_type:
 * @self: an entry
 *
 * Returns: DevTools' resource type: `Document`, `Fetch`, `XHR`, `Image`, …
 */
const char *
stw_network_entry_get_resource_type (StwNetworkEntry *self)
{
  g_return_val_if_fail (STW_IS_NETWORK_ENTRY (self), NULL);
  return self->resource_type ? self->resource_type : "Other";
}

/**
 * stw_network_entry_get_status:
 * @self: an entry
 *
 * Returns: the response's status, 0 while none arrived or when it failed
 */
int
stw_network_entry_get_status (StwNetworkEntry *self)
{
  g_return_val_if_fail (STW_IS_NETWORK_ENTRY (self), 0);
  return self->status;
}

/**
 * stw_network_entry_get_mime_type:
 * @self: an entry
 *
 * Returns: (nullable): the response's MIME type
 */
const char *
stw_network_entry_get_mime_type (StwNetworkEntry *self)
{
  g_return_val_if_fail (STW_IS_NETWORK_ENTRY (self), NULL);
  return self->mime_type;
}

/**
 * stw_network_entry_get_error_text:
 * @self: an entry
 *
 * Returns: (nullable): why it failed (`net::ERR_FAILED`, …), %NULL unless it did
 */
const char *
stw_network_entry_get_error_text (StwNetworkEntry *self)
{
  g_return_val_if_fail (STW_IS_NETWORK_ENTRY (self), NULL);
  return self->error_text;
}

/**
 * stw_network_entry_get_surface_id:
 * @self: an entry
 *
 * Returns: (nullable): the surface (window, frame, webview) whose DevTools
 *   session saw it; %NULL for a service worker's own request
 */
const char *
stw_network_entry_get_surface_id (StwNetworkEntry *self)
{
  g_return_val_if_fail (STW_IS_NETWORK_ENTRY (self), NULL);
  return self->surface_id;
}

/**
 * stw_network_entry_get_service_worker:
 * @self: an entry
 *
 * Whether a service worker made the request itself (its own `fetch()` or
 * `importScripts()`), as Playwright's `request.serviceWorker()`; such an
 * entry has no surface.
 *
 * Returns: %TRUE for a service worker's own request
 */
gboolean
stw_network_entry_get_service_worker (StwNetworkEntry *self)
{
  g_return_val_if_fail (STW_IS_NETWORK_ENTRY (self), FALSE);
  return self->service_worker;
}

/**
 * stw_network_entry_get_stub_id:
 * @self: an entry
 *
 * Returns: (nullable): the stub that answered it, if one did
 */
const char *
stw_network_entry_get_stub_id (StwNetworkEntry *self)
{
  g_return_val_if_fail (STW_IS_NETWORK_ENTRY (self), NULL);
  return self->stub_id;
}

/**
 * stw_network_entry_get_redirect_url:
 * @self: an entry
 *
 * Returns: (nullable): where it was redirected to, if it was
 */
const char *
stw_network_entry_get_redirect_url (StwNetworkEntry *self)
{
  g_return_val_if_fail (STW_IS_NETWORK_ENTRY (self), NULL);
  return self->redirect_url;
}

/**
 * stw_network_entry_is_finished:
 * @self: an entry
 *
 * Returns: whether it finished, failed or was redirected
 */
gboolean
stw_network_entry_is_finished (StwNetworkEntry *self)
{
  g_return_val_if_fail (STW_IS_NETWORK_ENTRY (self), FALSE);
  return self->finished;
}

/**
 * stw_network_entry_get_started_at:
 * @self: an entry
 *
 * Returns: when it started, in microseconds since the Unix epoch
 */
gint64
stw_network_entry_get_started_at (StwNetworkEntry *self)
{
  g_return_val_if_fail (STW_IS_NETWORK_ENTRY (self), 0);
  return self->wall_us;
}

/**
 * stw_network_entry_get_duration_ms:
 * @self: an entry
 *
 * Returns: from its start to its last byte (or failure), -1 while it runs
 */
double
stw_network_entry_get_duration_ms (StwNetworkEntry *self)
{
  g_return_val_if_fail (STW_IS_NETWORK_ENTRY (self), -1);
  if (!self->finished || self->end_ts < self->start_ts)
    return -1;
  return (self->end_ts - self->start_ts) * 1000.0;
}

/**
 * stw_network_entry_get_request_headers:
 * @self: an entry
 *
 * Returns: (transfer none): the request's headers, name → value
 */
JsonObject *
stw_network_entry_get_request_headers (StwNetworkEntry *self)
{
  g_return_val_if_fail (STW_IS_NETWORK_ENTRY (self), NULL);
  return self->request_headers;
}

/**
 * stw_network_entry_get_response_headers:
 * @self: an entry
 *
 * Returns: (transfer none): the response's headers, name → value
 */
JsonObject *
stw_network_entry_get_response_headers (StwNetworkEntry *self)
{
  g_return_val_if_fail (STW_IS_NETWORK_ENTRY (self), NULL);
  return self->response_headers;
}

/**
 * stw_network_entry_get_response_body_path:
 * @self: an entry
 *
 * Returns: (nullable) (type filename): the file that holds the kept part
 *   of the response's body
 */
const char *
stw_network_entry_get_response_body_path (StwNetworkEntry *self)
{
  g_return_val_if_fail (STW_IS_NETWORK_ENTRY (self), NULL);
  return self->body_path;
}

/**
 * stw_network_entry_get_response_body:
 * @self: an entry
 *
 * Returns: (nullable) (transfer none): the kept part of the response's
 *   body (at most the capture's `maxBodyBytes`)
 */
GBytes *
stw_network_entry_get_response_body (StwNetworkEntry *self)
{
  g_return_val_if_fail (STW_IS_NETWORK_ENTRY (self), NULL);
  return self->body;
}

static void
set_if (JsonObject *object,
        const char *member,
        const char *value)
{
  if (value != NULL)
    json_object_set_string_member (object, member, value);
}

char *
_stw_network_iso8601 (gint64 wall_us)
{
  g_autoptr(GDateTime) seconds = g_date_time_new_from_unix_utc (wall_us / G_USEC_PER_SEC);
  g_autoptr(GDateTime) time = seconds ? g_date_time_add (seconds, wall_us % G_USEC_PER_SEC) : NULL;

  return time ? g_date_time_format (time, "%Y-%m-%dT%H:%M:%S.%fZ") : g_strdup ("1970-01-01T00:00:00.000000Z");
}

/**
 * stw_network_entry_to_json:
 * @self: an entry
 *
 * The entry as `network_captured` answers it: `{id, url, method, type,
 * status, statusText?, mimeType?, failed?, stub?, redirectURL?, surfaceId? |
 * serviceWorker: true,
 * startedAt, durationMs?, requestHeaders, responseHeaders, encodedBytes?,
 * requestBody?, responseBody?{path, size, truncated} | {omitted}}`.
 *
 * Returns: (transfer full): the object
 */
JsonObject *
stw_network_entry_to_json (StwNetworkEntry *self)
{
  JsonObject *object = json_object_new ();
  g_autofree char *started = NULL;

  g_return_val_if_fail (STW_IS_NETWORK_ENTRY (self), object);

  started = _stw_network_iso8601 (self->wall_us);
  json_object_set_string_member (object, "id", self->id);
  json_object_set_string_member (object, "url", self->url);
  json_object_set_string_member (object, "method", self->method);
  json_object_set_string_member (object, "type", stw_network_entry_get_resource_type (self));
  json_object_set_int_member (object, "status", self->status);
  set_if (object, "statusText", self->status_text && *self->status_text ? self->status_text : NULL);
  set_if (object, "mimeType", self->mime_type);
  set_if (object, "failed", self->error_text);
  set_if (object, "stub", self->stub_id);
  set_if (object, "redirectURL", self->redirect_url);
  set_if (object, "surfaceId", self->surface_id);
  if (self->service_worker)
    json_object_set_boolean_member (object, "serviceWorker", TRUE);
  json_object_set_string_member (object, "startedAt", started);
  if (self->finished)
    json_object_set_double_member (object, "durationMs", stw_network_entry_get_duration_ms (self));
  else
    json_object_set_boolean_member (object, "pending", TRUE);
  if (self->from_cache)
    json_object_set_boolean_member (object, "fromCache", TRUE);
  json_object_set_object_member (object, "requestHeaders", json_object_ref (self->request_headers));
  json_object_set_object_member (object, "responseHeaders", json_object_ref (self->response_headers));
  if (self->encoded_bytes >= 0)
    json_object_set_int_member (object, "encodedBytes", self->encoded_bytes);
  if (self->post_data != NULL)
    {
      JsonObject *body = json_object_new ();

      set_if (body, "path", self->request_body_path);
      json_object_set_int_member (body, "size", (gint64) self->post_size);
      json_object_set_boolean_member (body, "truncated", self->post_truncated);
      json_object_set_object_member (object, "requestBody", body);
    }
  if (self->body != NULL || self->body_omitted != NULL)
    {
      JsonObject *body = json_object_new ();

      if (self->body != NULL)
        {
          set_if (body, "path", self->body_path);
          json_object_set_int_member (body, "size", (gint64) self->body_size);
          json_object_set_boolean_member (body, "truncated", self->body_truncated);
        }
      else
        json_object_set_string_member (body, "omitted", self->body_omitted);
      json_object_set_object_member (object, "responseBody", body);
    }
  return object;
}

/* --- StwNetworkPage --------------------------------------------------------- */

/**
 * StwNetworkPage:
 *
 * A page of a capture's entries, oldest first, with the cursor of the
 * next page and the capture's counts.
 */
G_DEFINE_FINAL_TYPE (StwNetworkPage, stw_network_page, G_TYPE_OBJECT)

static void
stw_network_page_finalize (GObject *object)
{
  StwNetworkPage *self = STW_NETWORK_PAGE (object);

  g_clear_pointer (&self->entries, g_ptr_array_unref);
  g_free (self->next_cursor);
  G_OBJECT_CLASS (stw_network_page_parent_class)->finalize (object);
}

static void
stw_network_page_class_init (StwNetworkPageClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = stw_network_page_finalize;
}

static void
stw_network_page_init (StwNetworkPage *self)
{
  self->entries = g_ptr_array_new_with_free_func (g_object_unref);
}

/**
 * stw_network_page_get_entries:
 * @self: a page
 *
 * Returns: (transfer none) (element-type StwNetworkEntry): the entries, oldest first
 */
GPtrArray *
stw_network_page_get_entries (StwNetworkPage *self)
{
  g_return_val_if_fail (STW_IS_NETWORK_PAGE (self), NULL);
  return self->entries;
}

/**
 * stw_network_page_get_next_cursor:
 * @self: a page
 *
 * Returns: (nullable): the cursor that reads the next page, %NULL when
 *   this one holds the last matching entry
 */
const char *
stw_network_page_get_next_cursor (StwNetworkPage *self)
{
  g_return_val_if_fail (STW_IS_NETWORK_PAGE (self), NULL);
  return self->next_cursor;
}

/**
 * stw_network_page_get_total:
 * @self: a page
 *
 * Returns: how many requests the capture saw
 */
guint
stw_network_page_get_total (StwNetworkPage *self)
{
  g_return_val_if_fail (STW_IS_NETWORK_PAGE (self), 0);
  return self->total;
}

/**
 * stw_network_page_get_dropped:
 * @self: a page
 *
 * Returns: how many of them were dropped, oldest first, past `maxEntries`
 */
guint
stw_network_page_get_dropped (StwNetworkPage *self)
{
  g_return_val_if_fail (STW_IS_NETWORK_PAGE (self), 0);
  return self->dropped;
}

/**
 * stw_network_page_get_capturing:
 * @self: a page
 *
 * Returns: whether the capture still runs
 */
gboolean
stw_network_page_get_capturing (StwNetworkPage *self)
{
  g_return_val_if_fail (STW_IS_NETWORK_PAGE (self), FALSE);
  return self->capturing;
}

JsonObject *
_stw_network_page_to_json (StwNetworkPage *self,
                           gboolean        with_entries)
{
  JsonObject *object = json_object_new ();

  json_object_set_boolean_member (object, "capturing", self->capturing);
  json_object_set_int_member (object, "total", self->total);
  json_object_set_int_member (object, "dropped", self->dropped);
  if (with_entries)
    {
      JsonArray *entries = json_array_new ();

      for (guint i = 0; i < self->entries->len; i++)
        json_array_add_object_element (entries, stw_network_entry_to_json (self->entries->pdata[i]));
      json_object_set_array_member (object, "entries", entries);
      if (self->next_cursor != NULL)
        json_object_set_string_member (object, "nextCursor", self->next_cursor);
    }
  return object;
}

/* --- StwNetworkStub --------------------------------------------------------- */

/**
 * StwNetworkStub:
 *
 * A canned answer for the requests whose URL matches a glob (`**` any
 * characters, `*` any but `/`, `{a,b}` either) or a regular expression
 * written `/…/flags`: a response (status, headers, body or a body file,
 * after a delay) or a failure (`fail`, a `Network.ErrorReason` in lower
 * case). Made with [ctor@NetworkStub.new] and registered with
 * [method@NetworkPlugin.stub_async], which gives it its id; the matched
 * count grows with each request it answers.
 */
G_DEFINE_FINAL_TYPE (StwNetworkStub, stw_network_stub, G_TYPE_OBJECT)

static void
stw_network_stub_finalize (GObject *object)
{
  StwNetworkStub *self = STW_NETWORK_STUB (object);

  g_free (self->id);
  g_free (self->url);
  g_free (self->method);
  g_free (self->body_path);
  g_free (self->fail);
  g_clear_pointer (&self->body, g_bytes_unref);
  g_clear_pointer (&self->headers, json_object_unref);
  g_clear_pointer (&self->regex, g_regex_unref);
  G_OBJECT_CLASS (stw_network_stub_parent_class)->finalize (object);
}

static void
stw_network_stub_class_init (StwNetworkStubClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = stw_network_stub_finalize;
}

static void
stw_network_stub_init (StwNetworkStub *self)
{
  self->status = 200;
  self->headers = json_object_new ();
}

/**
 * stw_network_stub_new:
 * @url: the URL pattern: a glob, or `/regex/flags`
 *
 * Returns: (transfer full): a stub answering 200 with an empty body,
 *   every time, for any method
 */
StwNetworkStub *
stw_network_stub_new (const char *url)
{
  StwNetworkStub *self;

  g_return_val_if_fail (url != NULL, NULL);
  self = g_object_new (STW_TYPE_NETWORK_STUB, NULL);
  self->url = g_strdup (url);
  return self;
}

/**
 * stw_network_stub_get_id:
 * @self: a stub
 *
 * Returns: (nullable): its id once registered
 */
const char *
stw_network_stub_get_id (StwNetworkStub *self)
{
  g_return_val_if_fail (STW_IS_NETWORK_STUB (self), NULL);
  return self->id;
}

/**
 * stw_network_stub_get_url:
 * @self: a stub
 *
 * Returns: its URL pattern
 */
const char *
stw_network_stub_get_url (StwNetworkStub *self)
{
  g_return_val_if_fail (STW_IS_NETWORK_STUB (self), NULL);
  return self->url;
}

/**
 * stw_network_stub_set_method:
 * @self: a stub
 * @method: (nullable): the one method it answers, %NULL for any
 */
void
stw_network_stub_set_method (StwNetworkStub *self,
                             const char     *method)
{
  g_return_if_fail (STW_IS_NETWORK_STUB (self));
  g_free (self->method);
  self->method = method ? g_ascii_strup (method, -1) : NULL;
}

/**
 * stw_network_stub_get_method:
 * @self: a stub
 *
 * Returns: (nullable): the one method it answers
 */
const char *
stw_network_stub_get_method (StwNetworkStub *self)
{
  g_return_val_if_fail (STW_IS_NETWORK_STUB (self), NULL);
  return self->method;
}

/**
 * stw_network_stub_set_status:
 * @self: a stub
 * @status: the status it answers (100–599)
 */
void
stw_network_stub_set_status (StwNetworkStub *self,
                             guint           status)
{
  g_return_if_fail (STW_IS_NETWORK_STUB (self));
  self->status = status;
}

/**
 * stw_network_stub_get_status:
 * @self: a stub
 *
 * Returns: the status it answers
 */
guint
stw_network_stub_get_status (StwNetworkStub *self)
{
  g_return_val_if_fail (STW_IS_NETWORK_STUB (self), 0);
  return self->status;
}

/**
 * stw_network_stub_set_header:
 * @self: a stub
 * @name: a response header
 * @value: its value
 */
void
stw_network_stub_set_header (StwNetworkStub *self,
                             const char     *name,
                             const char     *value)
{
  g_return_if_fail (STW_IS_NETWORK_STUB (self));
  g_return_if_fail (name != NULL && value != NULL);
  json_object_set_string_member (self->headers, name, value);
}

/**
 * stw_network_stub_set_body:
 * @self: a stub
 * @body: (nullable): the body it answers
 */
void
stw_network_stub_set_body (StwNetworkStub *self,
                           GBytes         *body)
{
  g_return_if_fail (STW_IS_NETWORK_STUB (self));
  g_clear_pointer (&self->body, g_bytes_unref);
  self->body = body ? g_bytes_ref (body) : NULL;
}

/**
 * stw_network_stub_get_body:
 * @self: a stub
 *
 * Returns: (nullable) (transfer none): the body it answers (read from the
 *   body file once registered)
 */
GBytes *
stw_network_stub_get_body (StwNetworkStub *self)
{
  g_return_val_if_fail (STW_IS_NETWORK_STUB (self), NULL);
  return self->body;
}

/**
 * stw_network_stub_set_body_path:
 * @self: a stub
 * @path: (nullable) (type filename): an absolute file whose contents are the
 *   body, read (confined to the app root) when the stub is registered
 */
void
stw_network_stub_set_body_path (StwNetworkStub *self,
                                const char     *path)
{
  g_return_if_fail (STW_IS_NETWORK_STUB (self));
  g_free (self->body_path);
  self->body_path = g_strdup (path);
}

/**
 * stw_network_stub_set_delay_ms:
 * @self: a stub
 * @delay_ms: how long it waits before it answers (at most 60 000)
 */
void
stw_network_stub_set_delay_ms (StwNetworkStub *self,
                               guint           delay_ms)
{
  g_return_if_fail (STW_IS_NETWORK_STUB (self));
  self->delay_ms = MIN (delay_ms, 60000);
}

/**
 * stw_network_stub_set_fail:
 * @self: a stub
 * @reason: (nullable): fail the request instead of answering it: `failed`,
 *   `aborted`, `timedout`, `accessdenied`, `connectionclosed`,
 *   `connectionreset`, `connectionrefused`, `connectionaborted`,
 *   `connectionfailed`, `namenotresolved`, `internetdisconnected`,
 *   `addressunreachable`, `blockedbyclient` or `blockedbyresponse`
 */
void
stw_network_stub_set_fail (StwNetworkStub *self,
                           const char     *reason)
{
  g_return_if_fail (STW_IS_NETWORK_STUB (self));
  g_free (self->fail);
  self->fail = reason ? g_ascii_strdown (reason, -1) : NULL;
}

/**
 * stw_network_stub_get_fail:
 * @self: a stub
 *
 * Returns: (nullable): the failure it answers with
 */
const char *
stw_network_stub_get_fail (StwNetworkStub *self)
{
  g_return_val_if_fail (STW_IS_NETWORK_STUB (self), NULL);
  return self->fail;
}

/**
 * stw_network_stub_set_times:
 * @self: a stub
 * @times: how many requests it answers, 0 for every one
 */
void
stw_network_stub_set_times (StwNetworkStub *self,
                            guint           times)
{
  g_return_if_fail (STW_IS_NETWORK_STUB (self));
  self->times = times;
}

/**
 * stw_network_stub_get_times:
 * @self: a stub
 *
 * Returns: how many requests it answers, 0 for every one
 */
guint
stw_network_stub_get_times (StwNetworkStub *self)
{
  g_return_val_if_fail (STW_IS_NETWORK_STUB (self), 0);
  return self->times;
}

/**
 * stw_network_stub_get_matched:
 * @self: a stub
 *
 * Returns: how many requests it answered
 */
guint
stw_network_stub_get_matched (StwNetworkStub *self)
{
  g_return_val_if_fail (STW_IS_NETWORK_STUB (self), 0);
  return self->matched;
}

/**
 * stw_network_stub_to_json:
 * @self: a stub
 *
 * The stub as the tools list it: `{id, url, method?, status | fail, times?,
 * matched, active}`.
 *
 * Returns: (transfer full): the object
 */
JsonObject *
stw_network_stub_to_json (StwNetworkStub *self)
{
  JsonObject *object = json_object_new ();

  g_return_val_if_fail (STW_IS_NETWORK_STUB (self), object);

  set_if (object, "id", self->id);
  json_object_set_string_member (object, "url", self->url);
  set_if (object, "method", self->method);
  if (self->fail != NULL)
    json_object_set_string_member (object, "fail", self->fail);
  else
    json_object_set_int_member (object, "status", self->status);
  if (self->times > 0)
    json_object_set_int_member (object, "times", self->times);
  json_object_set_int_member (object, "matched", self->matched);
  json_object_set_boolean_member (object, "active", self->times == 0 || self->matched < self->times);
  return object;
}
