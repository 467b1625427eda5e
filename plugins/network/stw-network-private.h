/* stw-network-private.h: the network plugin's structures, shared by its files
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "stw-network.h"

G_BEGIN_DECLS

struct _StwNetworkEntry
{
  GObject     parent_instance;
  guint64     seq;
  char       *id;
  char       *key;            /* "<cdp session> <request id>" while it may get events */
  char       *surface_id;
  char       *url;
  char       *method;
  char       *resource_type;
  char       *mime_type;
  char       *status_text;
  char       *error_text;
  char       *protocol;
  char       *remote_ip;
  char       *stub_id;
  char       *redirect_url;
  int         status;
  gboolean    finished;
  gboolean    from_cache;
  gboolean    service_worker; /* a service worker's own request */
  gint64      wall_us;        /* start, since the Unix epoch */
  double      start_ts;       /* DevTools' monotonic seconds */
  double      end_ts;
  JsonObject *timing;         /* the response's ResourceTiming, or NULL */
  JsonObject *request_headers;
  JsonObject *response_headers;
  gint64      encoded_bytes;  /* bytes on the wire, -1 unknown */
  gint64      decoded_bytes;
  GBytes     *post_data;      /* the kept part of the request's body */
  gsize       post_size;
  gboolean    post_truncated;
  char       *post_mime;
  char       *request_body_path;
  GBytes     *body;           /* the kept part of the response's body */
  gsize       body_size;
  gboolean    body_truncated;
  char       *body_path;
  char       *body_omitted;   /* why no body was kept, when it was wanted */
};

struct _StwNetworkPage
{
  GObject    parent_instance;
  GPtrArray *entries;
  char      *next_cursor;
  guint      total;
  guint      dropped;
  gboolean   capturing;
};

struct _StwNetworkStub
{
  GObject     parent_instance;
  char       *id;
  char       *url;
  char       *method;
  guint       status;
  JsonObject *headers;
  GBytes     *body;
  char       *body_path;
  guint       delay_ms;
  char       *fail;
  guint       times;
  guint       matched;
  GRegex     *regex;
};

char       *_stw_network_iso8601      (gint64          wall_us);
JsonObject *_stw_network_page_to_json (StwNetworkPage *self,
                                       gboolean        with_entries);
GRegex     *_stw_network_compile      (const char     *pattern,
                                       GError        **error);
gboolean    _stw_network_match        (GRegex         *regex,
                                       const char     *url);
JsonObject *_stw_network_har          (GQueue         *entries,
                                       const char     *version);
const char *_stw_network_error_reason (const char     *fail);
void        _stw_network_plugin_add_tools (StwNetworkPlugin *self);

G_END_DECLS
