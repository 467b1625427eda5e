/* stw-network-har.c: URL patterns, and a capture as HAR 1.2
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/) as Chrome
 * DevTools writes and imports it: timings from the response's
 * ResourceTiming, sizes from the encoded and decoded byte counts, a
 * redirect as an entry whose redirectURL is the next entry's URL, bodies
 * (the kept part) as content.text, base64 when not text. Cookies are never
 * written: they are secrets, and the headers that carry them are redacted
 * unless the plugin's config says otherwise.
 */
#include <string.h>

#include "stw-network-private.h"

#define MAX_PATTERN 2048
#define MAX_MATCHED_URL (16 * 1024)

/* --- patterns -------------------------------------------------------------- */

static GError *
invalid_pattern (const char *pattern,
                 const char *why)
{
  GError *error = stw_error_new ("network.INVALID_PATTERN", "The URL pattern “%.200s” is invalid: %s",
                                 pattern, why);
  g_autoptr(JsonObject) details = json_object_new ();

  json_object_set_string_member (details, "pattern", pattern);
  stw_error_set_details (error, details);
  stw_error_set_hint (error, "Use a glob (** any characters, * any but /, {a,b} either) or /regex/flags "
                             "with flags among i, m, s, x");
  return error;
}

/* A glob in Playwright's dialect, or a regular expression written
 * `/…/flags`, as a GRegex anchored to the whole URL. PCRE's match limit
 * bounds what a hostile URL can make a pattern cost, and URLs are matched
 * up to MAX_MATCHED_URL bytes. No G_REGEX_OPTIMIZE: the agent's pattern is
 * not JIT-compiled into executable memory, and the interpreter is fast
 * enough for short patterns over bounded URLs. */
GRegex *
_stw_network_compile (const char  *pattern,
                      GError     **error)
{
  g_autoptr(GString) re = NULL;
  g_autoptr(GError) local = NULL;
  const char *end;
  gboolean in_group = FALSE;
  GRegex *regex;

  if (strlen (pattern) > MAX_PATTERN)
    {
      g_propagate_error (error, invalid_pattern (pattern, "longer than 2048 bytes"));
      return NULL;
    }

  end = strrchr (pattern, '/');
  if (pattern[0] == '/' && end != NULL && end > pattern)
    {
      GRegexCompileFlags flags = G_REGEX_DEFAULT;
      g_autofree char *body = g_strndup (pattern + 1, end - pattern - 1);

      for (const char *f = end + 1; *f != '\0'; f++)
        {
          switch (*f)
            {
            case 'i': flags |= G_REGEX_CASELESS; break;
            case 'm': flags |= G_REGEX_MULTILINE; break;
            case 's': flags |= G_REGEX_DOTALL; break;
            case 'x': flags |= G_REGEX_EXTENDED; break;
            default:
              g_propagate_error (error, invalid_pattern (pattern, "unknown regular expression flag"));
              return NULL;
            }
        }
      regex = g_regex_new (body, flags, 0, &local);
      if (regex == NULL)
        g_propagate_error (error, invalid_pattern (pattern, local->message));
      return regex;
    }

  re = g_string_new ("^");
  for (const char *p = pattern; *p != '\0'; p++)
    {
      if (*p == '*' && p[1] == '*')
        {
          g_string_append (re, ".*");
          p++;
        }
      else if (*p == '*')
        g_string_append (re, "[^/]*");
      else if (*p == '{' && !in_group)
        {
          g_string_append (re, "(?:");
          in_group = TRUE;
        }
      else if (*p == ',' && in_group)
        g_string_append_c (re, '|');
      else if (*p == '}' && in_group)
        {
          g_string_append_c (re, ')');
          in_group = FALSE;
        }
      else
        {
          const char *next = g_utf8_next_char (p);
          g_autofree char *escaped = NULL;

          if (*p == '\\' && p[1] != '\0')
            {
              p++;
              next = g_utf8_next_char (p);
            }
          escaped = g_regex_escape_string (p, next - p);
          g_string_append (re, escaped);
          p = next - 1;
        }
    }
  if (in_group)
    {
      g_propagate_error (error, invalid_pattern (pattern, "a { is not closed"));
      return NULL;
    }
  g_string_append_c (re, '$');
  regex = g_regex_new (re->str, G_REGEX_DOTALL, 0, &local);
  if (regex == NULL)
    g_propagate_error (error, invalid_pattern (pattern, local->message));
  return regex;
}

gboolean
_stw_network_match (GRegex     *regex,
                    const char *url)
{
  gsize length = strlen (url);

  return g_regex_match_full (regex, url, MIN (length, MAX_MATCHED_URL), 0, 0, NULL, NULL);
}

/* Playwright's failure names, in lower case, to Network.ErrorReason. */
const char *
_stw_network_error_reason (const char *fail)
{
  static const char * const reasons[][2] = {
    { "failed", "Failed" },
    { "aborted", "Aborted" },
    { "timedout", "TimedOut" },
    { "accessdenied", "AccessDenied" },
    { "connectionclosed", "ConnectionClosed" },
    { "connectionreset", "ConnectionReset" },
    { "connectionrefused", "ConnectionRefused" },
    { "connectionaborted", "ConnectionAborted" },
    { "connectionfailed", "ConnectionFailed" },
    { "namenotresolved", "NameNotResolved" },
    { "internetdisconnected", "InternetDisconnected" },
    { "addressunreachable", "AddressUnreachable" },
    { "blockedbyclient", "BlockedByClient" },
    { "blockedbyresponse", "BlockedByResponse" },
  };

  for (gsize i = 0; fail != NULL && i < G_N_ELEMENTS (reasons); i++)
    {
      if (g_str_equal (fail, reasons[i][0]))
        return reasons[i][1];
    }
  return NULL;
}

/* --- HAR -------------------------------------------------------------------- */

static JsonArray *
har_headers (JsonObject *headers)
{
  JsonArray *array = json_array_new ();
  JsonObjectIter iter;
  const char *name;
  JsonNode *value;

  json_object_iter_init (&iter, headers);
  while (json_object_iter_next (&iter, &name, &value))
    {
      JsonObject *header = json_object_new ();

      json_object_set_string_member (header, "name", name);
      json_object_set_string_member (header, "value",
                                     JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_STRING
                                     ? json_node_get_string (value) : "");
      json_array_add_object_element (array, header);
    }
  return array;
}

static JsonArray *
har_query (const char *url)
{
  JsonArray *array = json_array_new ();
  const char *query = strchr (url, '?');
  g_autofree char *copy = NULL;
  g_auto(GStrv) pairs = NULL;
  char *hash;

  if (query == NULL)
    return array;
  copy = g_strdup (query + 1);
  if ((hash = strchr (copy, '#')) != NULL)
    *hash = '\0';
  pairs = g_strsplit (copy, "&", 256);
  for (guint i = 0; pairs[i] != NULL; i++)
    {
      char *equals = strchr (pairs[i], '=');
      g_autofree char *name = NULL;
      g_autofree char *value = NULL;
      JsonObject *pair;

      if (*pairs[i] == '\0')
        continue;
      if (equals != NULL)
        *equals = '\0';
      name = g_uri_unescape_string (pairs[i], NULL);
      value = equals ? g_uri_unescape_string (equals + 1, NULL) : g_strdup ("");
      pair = json_object_new ();
      json_object_set_string_member (pair, "name", name && g_utf8_validate (name, -1, NULL) ? name : pairs[i]);
      json_object_set_string_member (pair, "value",
                                     value && g_utf8_validate (value, -1, NULL) ? value : equals ? equals + 1 : "");
      json_array_add_object_element (array, pair);
    }
  return array;
}

static gboolean
is_text (const char *mime_type,
         GBytes     *bytes)
{
  gsize size;
  const char *data = g_bytes_get_data (bytes, &size);

  return g_utf8_validate (data, size, NULL) && memchr (data, '\0', size) == NULL;
}

static void
set_text (JsonObject *object,
          GBytes     *bytes,
          const char *mime_type)
{
  gsize size;
  const char *data = g_bytes_get_data (bytes, &size);

  if (is_text (mime_type, bytes))
    {
      g_autofree char *text = g_strndup (data, size);

      json_object_set_string_member (object, "text", text);
    }
  else
    {
      g_autofree char *base64 = g_base64_encode ((const guchar *) data, size);

      json_object_set_string_member (object, "text", base64);
      json_object_set_string_member (object, "encoding", "base64");
    }
}

static char *
http_version (const char *protocol)
{
  if (protocol == NULL || *protocol == '\0')
    return g_strdup ("HTTP/1.1");
  if (g_str_equal (protocol, "h2"))
    return g_strdup ("HTTP/2.0");
  if (g_str_equal (protocol, "h3"))
    return g_strdup ("HTTP/3.0");
  return g_ascii_strup (protocol, -1);
}

static double
timing_of (JsonObject *timing,
           const char *member)
{
  return timing ? json_object_get_double_member_with_default (timing, member, -1) : -1;
}

static JsonObject *
har_timings (StwNetworkEntry *entry,
             double          *total)
{
  JsonObject *timings = json_object_new ();
  JsonObject *t = entry->timing;
  double duration = stw_network_entry_get_duration_ms (entry);
  double blocked = -1, dns = -1, connect = -1, ssl = -1, send = 0, wait = 0, receive = 0;

  if (duration < 0)
    duration = 0;
  if (t != NULL && json_object_has_member (t, "requestTime"))
    {
      double request_ms = (json_object_get_double_member (t, "requestTime") - entry->start_ts) * 1000.0;
      double dns_start = timing_of (t, "dnsStart"), connect_start = timing_of (t, "connectStart");
      double send_start = timing_of (t, "sendStart"), send_end = timing_of (t, "sendEnd");
      double headers_end = timing_of (t, "receiveHeadersEnd");
      double first = dns_start >= 0 ? dns_start : connect_start >= 0 ? connect_start : MAX (send_start, 0);

      blocked = MAX (request_ms, 0) + first;
      if (dns_start >= 0)
        dns = MAX (timing_of (t, "dnsEnd") - dns_start, 0);
      if (connect_start >= 0)
        connect = MAX (timing_of (t, "connectEnd") - connect_start, 0);
      if (timing_of (t, "sslStart") >= 0)
        ssl = MAX (timing_of (t, "sslEnd") - timing_of (t, "sslStart"), 0);
      send = MAX (send_end - send_start, 0);
      wait = MAX (headers_end - send_end, 0);
      receive = MAX (duration - MAX (request_ms, 0) - MAX (headers_end, 0), 0);
    }
  else
    wait = duration;

  json_object_set_double_member (timings, "blocked", blocked);
  json_object_set_double_member (timings, "dns", dns);
  json_object_set_double_member (timings, "connect", connect);
  json_object_set_double_member (timings, "ssl", ssl);
  json_object_set_double_member (timings, "send", send);
  json_object_set_double_member (timings, "wait", wait);
  json_object_set_double_member (timings, "receive", receive);
  /* ssl is part of connect in HAR: not added twice. */
  *total = MAX (blocked, 0) + MAX (dns, 0) + MAX (connect, 0) + send + wait + receive;
  return timings;
}

static JsonObject *
har_entry (StwNetworkEntry *entry)
{
  JsonObject *object = json_object_new ();
  JsonObject *request = json_object_new ();
  JsonObject *response = json_object_new ();
  JsonObject *content = json_object_new ();
  g_autofree char *started = _stw_network_iso8601 (entry->wall_us);
  g_autofree char *version = http_version (entry->protocol);
  double total = 0;
  JsonObject *timings = har_timings (entry, &total);

  json_object_set_string_member (object, "startedDateTime", started);
  json_object_set_double_member (object, "time", total);

  json_object_set_string_member (request, "method", entry->method);
  json_object_set_string_member (request, "url", entry->url);
  json_object_set_string_member (request, "httpVersion", version);
  json_object_set_array_member (request, "cookies", json_array_new ());
  json_object_set_array_member (request, "headers", har_headers (entry->request_headers));
  json_object_set_array_member (request, "queryString", har_query (entry->url));
  json_object_set_int_member (request, "headersSize", -1);
  json_object_set_int_member (request, "bodySize", entry->post_data ? (gint64) entry->post_size : 0);
  if (entry->post_data != NULL)
    {
      JsonObject *post = json_object_new ();

      json_object_set_string_member (post, "mimeType", entry->post_mime ? entry->post_mime : "");
      if (is_text (entry->post_mime, entry->post_data))
        set_text (post, entry->post_data, entry->post_mime);
      json_object_set_object_member (request, "postData", post);
    }

  json_object_set_int_member (response, "status", entry->status);
  json_object_set_string_member (response, "statusText", entry->status_text ? entry->status_text : "");
  json_object_set_string_member (response, "httpVersion", entry->status > 0 ? version : "");
  json_object_set_array_member (response, "cookies", json_array_new ());
  json_object_set_array_member (response, "headers", har_headers (entry->response_headers));
  json_object_set_int_member (content, "size", entry->decoded_bytes > 0 ? entry->decoded_bytes
                                                : entry->body ? (gint64) entry->body_size : 0);
  json_object_set_string_member (content, "mimeType", entry->mime_type ? entry->mime_type : "x-unknown");
  if (entry->body != NULL)
    set_text (content, entry->body, entry->mime_type);
  if (entry->body_truncated)
    json_object_set_string_member (content, "comment", "truncated to the capture's maxBodyBytes");
  json_object_set_object_member (response, "content", content);
  json_object_set_string_member (response, "redirectURL", entry->redirect_url ? entry->redirect_url : "");
  json_object_set_int_member (response, "headersSize", -1);
  json_object_set_int_member (response, "bodySize", entry->encoded_bytes >= 0 ? entry->encoded_bytes : -1);
  if (entry->error_text != NULL)
    json_object_set_string_member (response, "_error", entry->error_text);

  json_object_set_object_member (object, "request", request);
  json_object_set_object_member (object, "response", response);
  json_object_set_object_member (object, "cache", json_object_new ());
  json_object_set_object_member (object, "timings", timings);
  if (entry->remote_ip != NULL && *entry->remote_ip != '\0')
    {
      g_autofree char *ip = g_strdup (entry->remote_ip + (entry->remote_ip[0] == '['));
      char *bracket = strchr (ip, ']');

      if (bracket != NULL)
        *bracket = '\0';
      if (g_hostname_is_ip_address (ip))
        json_object_set_string_member (object, "serverIPAddress", ip);
    }
  if (entry->resource_type != NULL)
    json_object_set_string_member (object, "_resourceType", entry->resource_type);
  if (entry->service_worker)
    json_object_set_boolean_member (object, "_serviceWorker", TRUE);
  return object;
}

/* The finished entries of @entries (oldest first) as a HAR 1.2 document. */
JsonObject *
_stw_network_har (GQueue     *entries,
                  const char *version)
{
  JsonObject *har = json_object_new ();
  JsonObject *log = json_object_new ();
  JsonObject *creator = json_object_new ();
  JsonArray *array = json_array_new ();

  json_object_set_string_member (creator, "name", "Stagewright");
  json_object_set_string_member (creator, "version", version);
  json_object_set_string_member (log, "version", "1.2");
  json_object_set_object_member (log, "creator", creator);
  json_object_set_array_member (log, "pages", json_array_new ());
  for (GList *l = entries->head; l != NULL; l = l->next)
    json_array_add_object_element (array, har_entry (l->data));
  json_object_set_array_member (log, "entries", array);
  json_object_set_object_member (har, "log", log);
  return har;
}
