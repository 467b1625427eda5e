/* stw-network.c: the network plugin — capture, HAR export and stubs over
 * DevTools' Network and Fetch domains
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Issue 20's network plugin (the reference's ADR-012). Each session gets a
 * state: a tap per DevTools session of its renderers (every window, out-of-
 * process frame and webview; a same-process frame shares its window's), the
 * capture's bounded ring of entries and the stubs. The plugin's new-surface
 * hook runs while a new target is paused before its first request, so a
 * capture or a stub covers a new window from its first request on.
 *
 * Everything the page or a server sends is hostile: the ring holds at most
 * `maxEntries` entries (the oldest go first, counted as dropped), a URL at
 * most 16 KiB, an entry at most 128 headers of 8 KiB each, a body at most
 * `maxBodyBytes` (64 KiB by default, 1 MiB at most) and all bodies of a
 * capture at most `maxBodyTotalBytes`. Bodies are written to files under
 * `<app-root>/.stagewright/network/` (or `bodyDir`), through the
 * dispatcher's confined writes; headers that carry secrets are redacted.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "stw-network-private.h"
#include "stw-plugins-partition.h"

#define MAX_URL (16 * 1024)
#define MAX_HEADERS 128
#define MAX_HEADER_NAME 256
#define MAX_HEADER_VALUE (8 * 1024)
#define MAX_STUBS 256
#define MAX_STUB_BODY (10 * 1024 * 1024)
#define REDACTED "[REDACTED]"

/* --- state ------------------------------------------------------------------ */

typedef struct _NetState NetState;

typedef struct
{
  NetState           *state;          /* owns the tap */
  StwSurface         *surface;
  StwCdpSubscription *subscription;
  gboolean            network_on;
  gboolean            fetch_on;
} Tap;

struct _NetState
{
  StwNetworkPlugin *plugin;           /* weak: NULL once the plugin goes */
  StwSession       *session;          /* weak */
  GHashTable       *taps;             /* cdp session id → Tap */

  gboolean          capturing;
  gboolean          ever_captured;
  GPtrArray        *url_filters;      /* GRegex, empty: every URL */
  StwNetworkBodies  bodies;
  gsize             max_body_bytes;
  char             *partition;
  GHashTable       *in_partition;     /* target id → GINT_TO_POINTER (1 | 2) */
  char             *body_dir;
  gboolean          body_dir_temporary; /* ours in the temporary directory: removed with the capture */
  gsize             body_total;
  GQueue            entries;
  GHashTable       *in_flight;        /* key → entry (borrowed from the ring) */
  GHashTable       *stubbed;          /* key → stub id, for a request paused before its entry came */
  GHashTable       *early_headers;    /* key → raw request headers that came before the request */
  GHashTable       *early_response;   /* key → raw response headers that came before the request */
  guint64           next_seq;
  guint             total;
  guint             dropped;

  GPtrArray        *stubs;            /* StwNetworkStub, in registration order */
  guint             next_stub;
};

struct _StwNetworkPlugin
{
  StwPlugin   parent_instance;
  GHashTable *states;                 /* StwSession → NetState */
};

G_DEFINE_FINAL_TYPE (StwNetworkPlugin, stw_network_plugin, STW_TYPE_PLUGIN)

static void
tap_free (gpointer data)
{
  Tap *tap = data;

  if (tap->subscription != NULL)
    stw_cdp_subscription_cancel (tap->subscription);
  g_clear_object (&tap->subscription);
  g_clear_object (&tap->surface);
  g_free (tap);
}

static NetState *
state_ref (NetState *state)
{
  return g_atomic_rc_box_acquire (state);
}

/* Removes a body directory made in the temporary directory (no app root,
 * no bodyDir): the body files the capture wrote, then the directory. Only
 * plain files are there; anything else stays, and so does the directory. */
static void
body_dir_drop (NetState *state)
{
  g_autoptr(GDir) dir = NULL;
  const char *name;

  if (state->body_dir != NULL && state->body_dir_temporary &&
      (dir = g_dir_open (state->body_dir, 0, NULL)) != NULL)
    {
      while ((name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *path = g_build_filename (state->body_dir, name, NULL);

          if (g_file_test (path, G_FILE_TEST_IS_REGULAR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
            g_unlink (path);
        }
      g_rmdir (state->body_dir);
    }
  g_clear_pointer (&state->body_dir, g_free);
  state->body_dir_temporary = FALSE;
}

static void
state_clear (gpointer data)
{
  NetState *state = data;

  g_clear_pointer (&state->taps, g_hash_table_unref);
  g_clear_pointer (&state->url_filters, g_ptr_array_unref);
  g_clear_pointer (&state->in_partition, g_hash_table_unref);
  g_clear_pointer (&state->in_flight, g_hash_table_unref);
  g_clear_pointer (&state->stubbed, g_hash_table_unref);
  g_clear_pointer (&state->early_headers, g_hash_table_unref);
  g_clear_pointer (&state->early_response, g_hash_table_unref);
  g_queue_clear_full (&state->entries, g_object_unref);
  g_clear_pointer (&state->stubs, g_ptr_array_unref);
  g_free (state->partition);
  body_dir_drop (state);
}

static void
state_unref (NetState *state)
{
  g_atomic_rc_box_release_full (state, state_clear);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NetState, state_unref)

/* The session went: its taps go with it; a job still running holds its
 * own reference and finds no session. */
static void
on_session_finalized (gpointer  data,
                      GObject  *where)
{
  NetState *state = data;

  state->session = NULL;
  g_hash_table_remove_all (state->taps);
  if (state->plugin != NULL)
    g_hash_table_steal (state->plugin->states, where);
  state_unref (state);
}

static NetState *
state_lookup (StwNetworkPlugin *self,
              StwSession       *session)
{
  return g_hash_table_lookup (self->states, session);
}

static NetState *
state_get (StwNetworkPlugin *self,
           StwSession       *session)
{
  NetState *state = state_lookup (self, session);

  if (state != NULL)
    return state;
  state = g_atomic_rc_box_new0 (NetState);
  state->plugin = self;
  state->session = session;
  state->taps = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, tap_free);
  state->url_filters = g_ptr_array_new_with_free_func ((GDestroyNotify) g_regex_unref);
  state->in_partition = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  state->in_flight = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  state->stubbed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  state->early_headers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) json_object_unref);
  state->early_response = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) json_object_unref);
  state->stubs = g_ptr_array_new_with_free_func (g_object_unref);
  state->max_body_bytes = STW_NETWORK_DEFAULT_BODY_BYTES;
  g_queue_init (&state->entries);
  g_object_weak_ref (G_OBJECT (session), on_session_finalized, state);
  g_hash_table_insert (self->states, session, state);
  return state;
}

/* A member that is an object, or NULL: DevTools' events are read, not
 * trusted to have every member. */
static JsonObject *
member_object (JsonObject *object,
               const char *member)
{
  JsonNode *node = object ? json_object_get_member (object, member) : NULL;

  return node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

/* --- config ------------------------------------------------------------------ */

static JsonObject *
config_of (NetState *state)
{
  return state->plugin ? stw_plugin_get_config (STW_PLUGIN (state->plugin)) : NULL;
}

static gint64
config_int (NetState   *state,
            const char *member,
            gint64      fallback)
{
  JsonObject *config = config_of (state);

  return config ? json_object_get_int_member_with_default (config, member, fallback) : fallback;
}

static gboolean
header_is_secret (NetState   *state,
                  const char *name)
{
  static const char * const defaults[] = {
    "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "x-auth-token", NULL,
  };
  JsonObject *config = config_of (state);
  JsonArray *list;

  if (config != NULL && !json_object_get_boolean_member_with_default (config, "redact", TRUE))
    return FALSE;
  list = config != NULL && json_object_has_member (config, "redactHeaders")
         ? json_object_get_array_member (config, "redactHeaders") : NULL;
  if (list == NULL)
    {
      for (guint i = 0; defaults[i] != NULL; i++)
        {
          if (g_ascii_strcasecmp (defaults[i], name) == 0)
            return TRUE;
        }
      return FALSE;
    }
  for (guint i = 0; i < json_array_get_length (list); i++)
    {
      const char *secret = json_array_get_string_element (list, i);

      if (secret != NULL && g_ascii_strcasecmp (secret, name) == 0)
        return TRUE;
    }
  return FALSE;
}

static char *
bounded (const char *text,
         gsize       limit)
{
  gsize length = strlen (text);
  const char *end;

  if (length <= limit)
    return g_utf8_make_valid (text, length);
  /* Cut on a character boundary. */
  end = g_utf8_find_prev_char (text, text + limit + 1);
  return g_utf8_make_valid (text, end ? end - text : (gssize) limit);
}

/* Copies @from's headers into @to, bounded, the secret ones redacted;
 * a header already there is kept unless @replace. */
static void
merge_headers (NetState   *state,
               JsonObject *to,
               JsonObject *from,
               gboolean    replace)
{
  JsonObjectIter iter;
  const char *name;
  JsonNode *value;

  if (from == NULL)
    return;
  json_object_iter_init (&iter, from);
  while (json_object_iter_next (&iter, &name, &value))
    {
      g_autofree char *key = NULL;
      g_autofree char *text = NULL;
      gboolean present = FALSE;
      GList *members;

      if (json_object_get_size (to) >= MAX_HEADERS)
        break;
      if (!JSON_NODE_HOLDS_VALUE (value) || json_node_get_value_type (value) != G_TYPE_STRING)
        continue;
      key = bounded (name, MAX_HEADER_NAME);
      members = json_object_get_members (to);
      for (GList *l = members; l != NULL && !present; l = l->next)
        {
          if (g_ascii_strcasecmp (l->data, key) == 0)
            {
              present = TRUE;
              if (replace)
                {
                  g_free (key);
                  key = g_strdup (l->data);
                }
            }
        }
      g_list_free (members);
      if (present && !replace)
        continue;
      text = header_is_secret (state, key) ? g_strdup (REDACTED) : bounded (json_node_get_string (value), MAX_HEADER_VALUE);
      json_object_set_string_member (to, key, text);
    }
}

/* --- files ------------------------------------------------------------------- */

/* Makes @path's directories beneath the app root, entering each by
 * descriptor and following no symlink, as the core makes its screenshot
 * directory; without an app root, g_mkdir_with_parents(). */
static gboolean
make_dirs (StwDispatcher *dispatcher,
           const char    *path,
           GError       **error)
{
  const char *root = dispatcher ? stw_dispatcher_get_app_root (dispatcher) : NULL;
  g_autofree char *canonical_root = NULL;
  g_autofree char *canonical = NULL;
  g_auto(GStrv) parts = NULL;
  const char *relative;
  int fd;

  if (root == NULL)
    {
      if (g_mkdir_with_parents (path, 0700) != 0)
        {
          g_propagate_error (error, stw_error_new ("FILE_NOT_FOUND", "Cannot make %s: %s", path, g_strerror (errno)));
          return FALSE;
        }
      return TRUE;
    }

  canonical_root = g_canonicalize_filename (root, "/");
  canonical = g_canonicalize_filename (path, "/");
  if (!g_str_has_prefix (canonical, canonical_root) ||
      (canonical[strlen (canonical_root)] != '/' && canonical[strlen (canonical_root)] != '\0'))
    {
      GError *outside = stw_error_new ("BAD_ARGUMENT", "The body directory %s is outside the app root", path);

      stw_error_set_hint (outside, "Give a bodyDir inside --app-root");
      g_propagate_error (error, outside);
      return FALSE;
    }
  fd = stw_dispatcher_open_file (dispatcher, canonical_root, O_PATH | O_DIRECTORY, 0, error);
  if (fd < 0)
    return FALSE;
  relative = canonical + strlen (canonical_root);
  parts = g_strsplit (relative, "/", 64);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      int next;

      if (*parts[i] == '\0')
        continue;
      if (mkdirat (fd, parts[i], 0700) != 0 && errno != EEXIST)
        {
          int saved = errno;

          close (fd);
          g_propagate_error (error, stw_error_new ("FILE_NOT_FOUND", "Cannot make %s: %s", path, g_strerror (saved)));
          return FALSE;
        }
      next = openat (fd, parts[i], O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      close (fd);
      if (next < 0)
        {
          int saved = errno;

          g_propagate_error (error, stw_error_new ("BAD_ARGUMENT", "Cannot enter %s: %s", path, g_strerror (saved)));
          return FALSE;
        }
      fd = next;
    }
  close (fd);
  return TRUE;
}

static char *
body_dir_for (NetState       *state,
              StwDispatcher  *dispatcher,
              gboolean       *temporary,
              GError        **error)
{
  JsonObject *config = config_of (state);
  const char *configured = config ? json_object_get_string_member_with_default (config, "bodyDir", NULL) : NULL;
  const char *root = dispatcher ? stw_dispatcher_get_app_root (dispatcher) : NULL;
  g_autofree char *base = NULL;
  g_autofree char *uuid = g_uuid_string_random ();
  g_autofree char *dir = NULL;

  if (configured != NULL)
    base = g_strdup (configured);
  else if (root != NULL)
    base = g_build_filename (root, ".stagewright", "network", NULL);
  else
    {
      g_autoptr(GError) local = NULL;
      char *made = g_dir_make_tmp ("stw-network-XXXXXX", &local);

      *temporary = made != NULL;
      if (made == NULL)
        g_propagate_error (error, stw_error_new ("FILE_NOT_FOUND", "Cannot make a body directory: %s", local->message));
      return made;
    }
  dir = g_build_filename (base, uuid, NULL);
  if (!make_dirs (dispatcher, dir, error))
    return NULL;
  return g_steal_pointer (&dir);
}

static char *
write_body (NetState   *state,
            const char *name,
            GBytes     *bytes)
{
  StwDispatcher *dispatcher = state->plugin ? stw_plugin_get_dispatcher (STW_PLUGIN (state->plugin)) : NULL;
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;

  if (dispatcher == NULL || state->body_dir == NULL)
    return NULL;
  path = g_build_filename (state->body_dir, name, NULL);
  if (!stw_dispatcher_write_file (dispatcher, path, bytes, 0600, &error))
    {
      g_debug ("network: cannot write %s: %s", path, error->message);
      return NULL;
    }
  return g_steal_pointer (&path);
}

static gboolean
mime_is_text (const char *mime)
{
  static const char * const textual[] = {
    "json", "javascript", "ecmascript", "xml", "x-www-form-urlencoded", "graphql", "csv", NULL,
  };

  if (mime == NULL)
    return FALSE;
  if (g_str_has_prefix (mime, "text/"))
    return TRUE;
  for (guint i = 0; textual[i] != NULL; i++)
    {
      if (strstr (mime, textual[i]) != NULL)
        return TRUE;
    }
  return FALSE;
}

static gboolean
wants_body (NetState   *state,
            const char *mime)
{
  return state->bodies == STW_NETWORK_BODIES_ALL ||
         (state->bodies == STW_NETWORK_BODIES_TEXT && mime_is_text (mime));
}

/* Keeps the first max_body_bytes of @bytes (within the capture's total)
 * and writes them to the body directory. */
static GBytes *
keep_body (NetState   *state,
           GBytes     *bytes,
           const char *suffix,
           guint64     seq,
           gboolean   *truncated,
           char      **path,
           char      **omitted)
{
  gsize size = g_bytes_get_size (bytes);
  gsize keep = MIN (size, state->max_body_bytes);
  gsize budget = (gsize) config_int (state, "maxBodyTotalBytes", 64 * 1024 * 1024);
  g_autofree char *name = NULL;
  GBytes *kept;

  if (state->body_total + keep > budget)
    {
      *omitted = g_strdup ("the capture's maxBodyTotalBytes is used up");
      return NULL;
    }
  state->body_total += keep;
  kept = g_bytes_new_from_bytes (bytes, 0, keep);
  *truncated = keep < size;
  name = g_strdup_printf ("%" G_GUINT64_FORMAT "%s", seq, suffix);
  *path = write_body (state, name, kept);
  return kept;
}

/* --- entries ----------------------------------------------------------------- */

static char *
key_of (Tap        *tap,
        const char *request_id)
{
  return g_strconcat (stw_surface_get_cdp_session_id (tap->surface), " ", request_id, NULL);
}

static gboolean
url_wanted (NetState   *state,
            const char *url)
{
  if (state->url_filters->len == 0)
    return TRUE;
  for (guint i = 0; i < state->url_filters->len; i++)
    {
      if (_stw_network_match (state->url_filters->pdata[i], url))
        return TRUE;
    }
  return FALSE;
}

/* An entry stays findable by its key until it leaves the ring (or a
 * redirect's next entry takes the key): the raw headers (…ExtraInfo) may
 * come after the request finished. */
static void
forget (NetState        *state,
        StwNetworkEntry *entry)
{
  if (entry->key != NULL)
    {
      if (g_hash_table_lookup (state->in_flight, entry->key) == entry)
        g_hash_table_remove (state->in_flight, entry->key);
      g_clear_pointer (&entry->key, g_free);
    }
}

static StwNetworkEntry *
entry_add (NetState   *state,
           Tap        *tap,
           const char *request_id,
           JsonObject *params)
{
  JsonObject *request = member_object (params, "request");
  const char *url = request ? json_object_get_string_member_with_default (request, "url", NULL) : NULL;
  const char *method = request ? json_object_get_string_member_with_default (request, "method", "GET") : "GET";
  const char *type = json_object_get_string_member_with_default (params, "type", NULL);
  guint max_entries = (guint) config_int (state, "maxEntries", 1000);
  StwNetworkEntry *entry;

  if (url == NULL || !url_wanted (state, url))
    return NULL;

  entry = g_object_new (STW_TYPE_NETWORK_ENTRY, NULL);
  entry->seq = ++state->next_seq;
  entry->id = g_strdup_printf ("%" G_GUINT64_FORMAT, entry->seq);
  entry->key = key_of (tap, request_id);
  /* A service worker is no surface: its entries name none, and say what
   * they are. A dedicated worker's requests are its page's, as in
   * DevTools' Network panel. */
  entry->service_worker = stw_surface_get_kind (tap->surface) == STW_SURFACE_KIND_SERVICE_WORKER;
  if (stw_surface_get_kind (tap->surface) == STW_SURFACE_KIND_WORKER)
    entry->surface_id = g_strdup (stw_surface_get_parent_id (tap->surface));
  else if (!entry->service_worker)
    entry->surface_id = g_strdup (stw_surface_get_id (tap->surface));
  entry->url = bounded (url, MAX_URL);
  entry->method = bounded (method, 32);
  entry->resource_type = type ? bounded (type, 32) : NULL;
  entry->start_ts = json_object_get_double_member_with_default (params, "timestamp", 0);
  entry->wall_us = (gint64) (json_object_get_double_member_with_default (params, "wallTime", 0) * G_USEC_PER_SEC);
  if (entry->wall_us <= 0)
    entry->wall_us = g_get_real_time ();
  merge_headers (state, entry->request_headers,
                 request ? member_object (request, "headers") : NULL, TRUE);

  if (state->bodies != STW_NETWORK_BODIES_NONE && request != NULL && json_object_has_member (request, "postData"))
    {
      const char *post = json_object_get_string_member_with_default (request, "postData", NULL);
      JsonNode *content_type = NULL;
      JsonObjectIter iter;
      const char *name;
      JsonNode *value;

      json_object_iter_init (&iter, entry->request_headers);
      while (json_object_iter_next (&iter, &name, &value))
        {
          if (g_ascii_strcasecmp (name, "content-type") == 0)
            content_type = value;
        }
      entry->post_mime = g_strdup (content_type ? json_node_get_string (content_type) : "");
      if (post != NULL && wants_body (state, entry->post_mime))
        {
          g_autoptr(GBytes) bytes = g_bytes_new (post, strlen (post));
          g_autofree char *omitted = NULL;

          entry->post_size = g_bytes_get_size (bytes);
          entry->post_data = keep_body (state, bytes, ".request", entry->seq, &entry->post_truncated,
                                        &entry->request_body_path, &omitted);
        }
    }

  entry->stub_id = g_strdup (g_hash_table_lookup (state->stubbed, entry->key));
  g_hash_table_remove (state->stubbed, entry->key);
  merge_headers (state, entry->request_headers, g_hash_table_lookup (state->early_headers, entry->key), FALSE);
  g_hash_table_remove (state->early_headers, entry->key);
  merge_headers (state, entry->response_headers, g_hash_table_lookup (state->early_response, entry->key), FALSE);
  g_hash_table_remove (state->early_response, entry->key);
  g_queue_push_tail (&state->entries, entry);
  g_hash_table_replace (state->in_flight, g_strdup (entry->key), entry);
  state->total++;
  while (state->entries.length > max_entries)
    {
      StwNetworkEntry *oldest = g_queue_pop_head (&state->entries);

      forget (state, oldest);
      g_object_unref (oldest);
      state->dropped++;
    }
  return entry;
}

static StwNetworkEntry *
entry_find (NetState   *state,
            Tap        *tap,
            const char *request_id)
{
  g_autofree char *key = NULL;

  if (request_id == NULL)
    return NULL;
  key = key_of (tap, request_id);
  return g_hash_table_lookup (state->in_flight, key);
}

static void
set_response (NetState        *state,
              StwNetworkEntry *entry,
              JsonObject      *response)
{
  const char *text;

  if (response == NULL)
    return;
  entry->status = (int) json_object_get_int_member_with_default (response, "status", 0);
  g_free (entry->status_text);
  entry->status_text = bounded (json_object_get_string_member_with_default (response, "statusText", ""), 256);
  if ((text = json_object_get_string_member_with_default (response, "mimeType", NULL)) != NULL)
    {
      g_free (entry->mime_type);
      entry->mime_type = bounded (text, 256);
    }
  if ((text = json_object_get_string_member_with_default (response, "protocol", NULL)) != NULL)
    {
      g_free (entry->protocol);
      entry->protocol = bounded (text, 32);
    }
  if ((text = json_object_get_string_member_with_default (response, "remoteIPAddress", NULL)) != NULL)
    {
      g_free (entry->remote_ip);
      entry->remote_ip = bounded (text, 64);
    }
  entry->from_cache = json_object_get_boolean_member_with_default (response, "fromDiskCache", FALSE) ||
                      json_object_get_boolean_member_with_default (response, "fromPrefetchCache", FALSE);
  g_clear_pointer (&entry->timing, json_object_unref);
  if (json_object_has_member (response, "timing") &&
      JSON_NODE_HOLDS_OBJECT (json_object_get_member (response, "timing")))
    entry->timing = json_object_ref (member_object (response, "timing"));
  /* The raw headers (…ExtraInfo, with Set-Cookie) may have come first. */
  merge_headers (state, entry->response_headers, member_object (response, "headers"), TRUE);
}

typedef struct
{
  NetState        *state;
  StwNetworkEntry *entry;
} BodyJob;

static void
on_body (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  BodyJob *job = user_data;
  g_autoptr(NetState) state = job->state;
  g_autoptr(StwNetworkEntry) entry = job->entry;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) reply = stw_surface_send_cdp_finish (STW_SURFACE (object), result, &error);
  const char *body;
  g_autoptr(GBytes) bytes = NULL;

  g_free (job);
  if (reply == NULL || (body = json_object_get_string_member_with_default (reply, "body", NULL)) == NULL)
    {
      entry->body_omitted = g_strdup ("the renderer no longer had it");
      return;
    }
  if (json_object_get_boolean_member_with_default (reply, "base64Encoded", FALSE))
    {
      gsize length = 0;
      guchar *data = g_base64_decode (body, &length);

      bytes = g_bytes_new_take (data, length);
    }
  else
    bytes = g_bytes_new (body, strlen (body));
  entry->body_size = g_bytes_get_size (bytes);
  entry->body = keep_body (state, bytes, ".response", entry->seq, &entry->body_truncated, &entry->body_path,
                           &entry->body_omitted);
}

static void
fetch_body (NetState        *state,
            Tap             *tap,
            StwNetworkEntry *entry,
            const char      *request_id)
{
  g_autoptr(JsonObject) params = json_object_new ();
  BodyJob *job;

  /* Chromium keeps at most maxResourceBufferSize of a body (see
   * enable_network): a larger one is never pulled through the pipe. */
  if (entry->decoded_bytes > STW_NETWORK_MAX_BODY_BYTES)
    {
      entry->body_omitted = g_strdup ("larger than 1 MiB");
      return;
    }
  job = g_new0 (BodyJob, 1);
  job->state = state_ref (state);
  job->entry = g_object_ref (entry);
  json_object_set_string_member (params, "requestId", request_id);
  stw_surface_send_cdp_async (tap->surface, "Network.getResponseBody", params, NULL, on_body, job);
}

static void
on_network_event (NetState   *state,
                  Tap        *tap,
                  const char *method,
                  JsonObject *params)
{
  const char *request_id = json_object_get_string_member_with_default (params, "requestId", NULL);
  StwNetworkEntry *entry = entry_find (state, tap, request_id);

  if (request_id == NULL)
    return;

  if (g_str_equal (method, "Network.requestWillBeSent"))
    {
      JsonObject *request = member_object (params, "request");

      /* A redirect: the entry so far ends with the 3xx. */
      if (entry != NULL && json_object_has_member (params, "redirectResponse"))
        {
          set_response (state, entry, member_object (params, "redirectResponse"));
          entry->redirect_url = bounded (request ? json_object_get_string_member_with_default (request, "url", "") : "",
                                         MAX_URL);
          entry->end_ts = json_object_get_double_member_with_default (params, "timestamp", entry->start_ts);
          entry->finished = TRUE;
        }
      /* The key is the next request's now, even one the filters drop. */
      if (entry != NULL)
        forget (state, entry);
      entry_add (state, tap, request_id, params);
    }
  else if (entry == NULL)
    {
      JsonObject *headers = member_object (params, "headers");

      /* The raw headers come from the network service, the request from
       * the renderer: either may be first. Kept (redacted, bounded) until
       * the request comes. */
      if (headers != NULL && g_str_has_suffix (method, "ExtraInfo"))
        {
          GHashTable *early = g_str_equal (method, "Network.requestWillBeSentExtraInfo")
                              ? state->early_headers : state->early_response;
          JsonObject *kept = json_object_new ();

          if (g_hash_table_size (early) >= 256)
            g_hash_table_remove_all (early);
          merge_headers (state, kept, headers, TRUE);
          g_hash_table_replace (early, key_of (tap, request_id), kept);
        }
      return;
    }
  else if (g_str_equal (method, "Network.requestWillBeSentExtraInfo"))
    merge_headers (state, entry->request_headers, member_object (params, "headers"), FALSE);
  else if (g_str_equal (method, "Network.responseReceived"))
    {
      const char *type = json_object_get_string_member_with_default (params, "type", NULL);

      if (type != NULL && entry->resource_type == NULL)
        entry->resource_type = bounded (type, 32);
      set_response (state, entry, member_object (params, "response"));
    }
  else if (g_str_equal (method, "Network.responseReceivedExtraInfo"))
    merge_headers (state, entry->response_headers, member_object (params, "headers"), FALSE);
  else if (g_str_equal (method, "Network.dataReceived"))
    {
      entry->decoded_bytes += MAX (json_object_get_int_member_with_default (params, "dataLength", 0), 0);
    }
  else if (g_str_equal (method, "Network.loadingFinished"))
    {
      entry->end_ts = json_object_get_double_member_with_default (params, "timestamp", entry->start_ts);
      entry->encoded_bytes = MAX (json_object_get_int_member_with_default (params, "encodedDataLength", -1), -1);
      entry->finished = TRUE;
      if (state->bodies != STW_NETWORK_BODIES_NONE && wants_body (state, entry->mime_type))
        fetch_body (state, tap, entry, request_id);
    }
  else if (g_str_equal (method, "Network.loadingFailed"))
    {
      const char *text = json_object_get_string_member_with_default (params, "errorText", "net::ERR_FAILED");

      entry->end_ts = json_object_get_double_member_with_default (params, "timestamp", entry->start_ts);
      entry->error_text = bounded (text, 256);
      entry->status = 0;
      entry->finished = TRUE;
    }
}

/* --- stubs ------------------------------------------------------------------- */

typedef struct
{
  StwSurface *surface;
  char       *method;
  JsonObject *params;
} Pending;

static void
on_fetch_replied (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) reply = stw_surface_send_cdp_finish (STW_SURFACE (object), result, &error);

  if (reply == NULL)
    g_debug ("network: a paused request could not be answered: %s", error->message);
}

static gboolean
send_pending (gpointer data)
{
  Pending *pending = data;

  stw_surface_send_cdp_async (pending->surface, pending->method, pending->params, NULL, on_fetch_replied, NULL);
  g_object_unref (pending->surface);
  g_free (pending->method);
  json_object_unref (pending->params);
  g_free (pending);
  return G_SOURCE_REMOVE;
}

static StwNetworkStub *
stub_for (NetState   *state,
          const char *url,
          const char *method)
{
  /* The last registered wins, as Playwright's routes. */
  for (guint i = state->stubs->len; i > 0; i--)
    {
      StwNetworkStub *stub = state->stubs->pdata[i - 1];

      if (stub->times > 0 && stub->matched >= stub->times)
        continue;
      if (stub->method != NULL && g_ascii_strcasecmp (stub->method, method) != 0)
        continue;
      if (_stw_network_match (stub->regex, url))
        return stub;
    }
  return NULL;
}

static void
on_request_paused (NetState   *state,
                   Tap        *tap,
                   JsonObject *params)
{
  const char *paused_id = json_object_get_string_member_with_default (params, "requestId", NULL);
  JsonObject *request = member_object (params, "request");
  const char *url = request ? json_object_get_string_member_with_default (request, "url", "") : "";
  const char *method = request ? json_object_get_string_member_with_default (request, "method", "GET") : "GET";
  const char *network_id = json_object_get_string_member_with_default (params, "networkId", NULL);
  StwNetworkStub *stub;
  Pending *pending;
  StwNetworkEntry *entry;

  if (paused_id == NULL)
    return;
  pending = g_new0 (Pending, 1);
  pending->surface = g_object_ref (tap->surface);
  pending->params = json_object_new ();
  json_object_set_string_member (pending->params, "requestId", paused_id);

  stub = stub_for (state, url, method);
  if (stub == NULL)
    {
      pending->method = g_strdup ("Fetch.continueRequest");
      send_pending (pending);
      return;
    }

  stub->matched++;
  if ((entry = entry_find (state, tap, network_id)) != NULL)
    {
      g_free (entry->stub_id);
      entry->stub_id = g_strdup (stub->id);
    }
  else if (network_id != NULL && state->capturing)
    {
      /* The pause came before the request's first Network event: the
       * entry takes the stub's id when it comes. Bounded: such pairs
       * are answered at once. */
      if (g_hash_table_size (state->stubbed) >= 1024)
        g_hash_table_remove_all (state->stubbed);
      g_hash_table_replace (state->stubbed, key_of (tap, network_id), g_strdup (stub->id));
    }
  if (stub->fail != NULL)
    {
      pending->method = g_strdup ("Fetch.failRequest");
      json_object_set_string_member (pending->params, "errorReason", _stw_network_error_reason (stub->fail));
    }
  else
    {
      JsonArray *headers = json_array_new ();
      JsonObjectIter iter;
      const char *name;
      JsonNode *value;
      gsize size = 0;
      const guchar *data = stub->body ? g_bytes_get_data (stub->body, &size) : NULL;
      g_autofree char *base64 = g_base64_encode (data, size);

      json_object_iter_init (&iter, stub->headers);
      while (json_object_iter_next (&iter, &name, &value))
        {
          JsonObject *header = json_object_new ();

          json_object_set_string_member (header, "name", name);
          json_object_set_string_member (header, "value", json_node_get_string (value));
          json_array_add_object_element (headers, header);
        }
      pending->method = g_strdup ("Fetch.fulfillRequest");
      json_object_set_int_member (pending->params, "responseCode", stub->status);
      json_object_set_array_member (pending->params, "responseHeaders", headers);
      json_object_set_string_member (pending->params, "body", base64);
    }
  if (stub->delay_ms > 0)
    g_timeout_add (stub->delay_ms, send_pending, pending);
  else
    send_pending (pending);
}

static void
on_tap_event (StwCdpSubscription *subscription,
              const char         *method,
              JsonObject         *params,
              gpointer            user_data)
{
  Tap *tap = user_data;
  NetState *state = tap->state;

  if (params == NULL)
    return;
  if (g_str_equal (method, "Fetch.requestPaused"))
    {
      if (tap->fetch_on)
        on_request_paused (state, tap, params);
      else
        {
          /* A pause Fetch.disable raced with: let it go. */
          Pending *pending = g_new0 (Pending, 1);

          pending->surface = g_object_ref (tap->surface);
          pending->method = g_strdup ("Fetch.continueRequest");
          pending->params = json_object_new ();
          json_object_set_string_member (pending->params, "requestId",
                                         json_object_get_string_member_with_default (params, "requestId", ""));
          send_pending (pending);
        }
    }
  else if (state->capturing && tap->network_on && g_str_has_prefix (method, "Network."))
    on_network_event (state, tap, method, params);
}

/* --- taps ---------------------------------------------------------------------- */

static gboolean
stubs_active (NetState *state)
{
  return state->stubs->len > 0;
}

static Tap *
tap_get (NetState   *state,
         StwSurface *surface)
{
  const char *cdp_session = stw_surface_get_cdp_session_id (surface);
  Tap *tap;

  if (cdp_session == NULL || stw_surface_is_closed (surface))
    return NULL;
  tap = g_hash_table_lookup (state->taps, cdp_session);
  if (tap != NULL)
    return tap;
  tap = g_new0 (Tap, 1);
  tap->state = state;
  tap->surface = g_object_ref (surface);
  tap->subscription = stw_surface_subscribe_cdp (surface, NULL);
  g_signal_connect (tap->subscription, "event", G_CALLBACK (on_tap_event), tap);
  g_hash_table_insert (state->taps, g_strdup (cdp_session), tap);
  return tap;
}

/* Counts the commands in flight and completes @task (a boolean TRUE) once
 * every one answered; failures of single surfaces (one that closed) are
 * not the caller's. */
typedef struct
{
  GTask *task;
  guint  pending;
} Barrier;

static void
barrier_done (Barrier *barrier)
{
  if (--barrier->pending > 0)
    return;
  g_task_return_boolean (barrier->task, TRUE);
  g_object_unref (barrier->task);
  g_free (barrier);
}

static void
on_barrier_reply (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) reply = stw_surface_send_cdp_finish (STW_SURFACE (object), result, &error);

  if (reply == NULL)
    g_debug ("network: %s: %s", stw_surface_get_id (STW_SURFACE (object)), error->message);
  barrier_done (user_data);
}

static void
barrier_send (Barrier    *barrier,
              Tap        *tap,
              const char *method,
              JsonObject *params)
{
  barrier->pending++;
  stw_surface_send_cdp_async (tap->surface, method, params, NULL, on_barrier_reply, barrier);
}

/* The target whose partition @surface's requests are in: a dedicated
 * worker's are its page's. */
static const char *
partition_target (NetState   *state,
                  StwSurface *surface)
{
  const char *owner = stw_surface_get_parent_id (surface);
  GHashTableIter iter;
  gpointer value;

  if (stw_surface_get_kind (surface) != STW_SURFACE_KIND_WORKER)
    return stw_surface_get_target_id (surface);
  g_hash_table_iter_init (&iter, state->taps);
  while (owner != NULL && g_hash_table_iter_next (&iter, NULL, &value))
    {
      Tap *tap = value;

      if (g_strcmp0 (stw_surface_get_id (tap->surface), owner) == 0)
        return stw_surface_get_target_id (tap->surface);
    }
  return NULL;
}

static gboolean
tap_in_partition (NetState *state,
                  Tap      *tap)
{
  const char *target = partition_target (state, tap->surface);

  if (state->partition == NULL)
    return TRUE;
  /* A service worker has no window, so no partition to ask about: a
   * capture of one partition leaves it out. */
  if (stw_surface_get_kind (tap->surface) == STW_SURFACE_KIND_SERVICE_WORKER)
    return FALSE;
  return target != NULL && GPOINTER_TO_INT (g_hash_table_lookup (state->in_partition, target)) == 1;
}

/* Brings @tap's domains to what the state needs: Network while capturing
 * (in the capture's partition), Fetch while stubs exist. */
static void
tap_sync (NetState *state,
          Tap      *tap,
          Barrier  *barrier)
{
  gboolean network = state->capturing && tap_in_partition (state, tap);
  gboolean fetch = stubs_active (state);

  if (network != tap->network_on)
    {
      g_autoptr(JsonObject) params = json_object_new ();

      if (network)
        {
          /* Chromium keeps no body past 1 MiB: getResponseBody never
           * carries more across the pipe. */
          json_object_set_int_member (params, "maxTotalBufferSize", 32 * 1024 * 1024);
          json_object_set_int_member (params, "maxResourceBufferSize", STW_NETWORK_MAX_BODY_BYTES);
          json_object_set_int_member (params, "maxPostDataSize", STW_NETWORK_MAX_BODY_BYTES);
        }
      barrier_send (barrier, tap, network ? "Network.enable" : "Network.disable", params);
      tap->network_on = network;
    }
  if (fetch != tap->fetch_on)
    {
      g_autoptr(JsonObject) params = json_object_new ();

      if (fetch)
        {
          JsonArray *patterns = json_array_new ();
          JsonObject *pattern = json_object_new ();

          json_object_set_string_member (pattern, "urlPattern", "*");
          json_object_set_string_member (pattern, "requestStage", "Request");
          json_array_add_object_element (patterns, pattern);
          json_object_set_array_member (params, "patterns", patterns);
        }
      barrier_send (barrier, tap, fetch ? "Fetch.enable" : "Fetch.disable", params);
      tap->fetch_on = fetch;
    }
}

/* Syncs every renderer of the session and its workers; @task
 * (taken) gets TRUE once all answered. Taps of what closed go. */
static void
sync_all (NetState *state,
          GTask    *task)
{
  Barrier *barrier = g_new0 (Barrier, 1);
  GList *surfaces = state->session ? stw_session_list_surfaces (state->session) : NULL;
  GList *workers = state->session ? stw_session_list_workers (state->session) : NULL;
  GHashTableIter iter;
  gpointer value;

  barrier->task = task;
  barrier->pending = 1;
  for (GList *l = surfaces; l != NULL; l = l->next)
    tap_get (state, l->data);
  for (GList *l = workers; l != NULL; l = l->next)
    {
      if (stw_surface_get_kind (l->data) != STW_SURFACE_KIND_SHARED_WORKER)
        tap_get (state, l->data);
    }
  g_list_free (surfaces);
  g_list_free (workers);
  g_hash_table_iter_init (&iter, state->taps);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Tap *tap = value;

      if (stw_surface_is_closed (tap->surface))
        {
          g_hash_table_iter_remove (&iter);
          continue;
        }
      tap_sync (state, tap, barrier);
    }
  barrier_done (barrier);
}

/* --- partitions -------------------------------------------------------------- */

/* Which targets belong to the partition is asked of the main process once
 * per target (stw-plugins-partition.c). */

static GError *
partition_unsupported (const char *why)
{
  GError *error = stw_error_new ("network.UNSUPPORTED", "A capture of one partition needs the app's main "
                                 "process: %s", why);

  stw_error_set_hint (error, "Capture without partition (every renderer of the app), or launch the app "
                             "with its main process (its Node inspector)");
  return error;
}

/* A question to the main process: which of @targets are in the partition. */
typedef struct
{
  NetState  *state;
  GPtrArray *targets;  /* the target ids asked about */
} PartitionAsk;

static void
partition_ask_free (PartitionAsk *ask)
{
  state_unref (ask->state);
  g_ptr_array_unref (ask->targets);
  g_free (ask);
}

static void
on_partition_answer (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  PartitionAsk *ask = g_task_get_task_data (task);
  NetState *state = ask->state;
  GPtrArray *targets = ask->targets;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) value = stw_session_evaluate_main_finish (STW_SESSION (object), result, &error);
  JsonObject *inside = _stw_plugins_partition_verdicts (value);

  if (inside == NULL)
    {
      g_task_return_error (task, partition_unsupported (error ? error->message
                                                              : "its electron module has no session API"));
      return;
    }
  for (guint i = 0; i < targets->len; i++)
    {
      const char *target = targets->pdata[i];
      gboolean in = FALSE;

      /* A target the answer does not know stays outside. */
      _stw_plugins_partition_verdict (inside, target, &in);
      g_hash_table_replace (state->in_partition, g_strdup (target), GINT_TO_POINTER (in ? 1 : 2));
    }
  g_task_return_boolean (task, TRUE);
}

/* Learns the partition of the session's targets not asked about yet. */
static void
resolve_partition_async (NetState            *state,
                         GList               *surfaces,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, NULL, callback, user_data);
  PartitionAsk *ask = g_new0 (PartitionAsk, 1);
  GPtrArray *targets;
  g_autofree char *expression = NULL;

  ask->state = state_ref (state);
  ask->targets = targets = g_ptr_array_new_with_free_func (g_free);
  g_task_set_task_data (task, ask, (GDestroyNotify) partition_ask_free);
  for (GList *l = surfaces; l != NULL; l = l->next)
    {
      const char *target = stw_surface_get_target_id (l->data);

      if (target != NULL && !g_hash_table_contains (state->in_partition, target))
        g_ptr_array_add (targets, g_strdup (target));
    }
  if (state->partition == NULL || targets->len == 0)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  if (state->session == NULL || !stw_session_has_main_process (state->session))
    {
      g_task_return_error (task, partition_unsupported ("this session has none"));
      return;
    }
  expression = _stw_plugins_partition_expression (state->partition, targets);
  stw_session_evaluate_main_async (state->session, expression, NULL, on_partition_answer, g_object_ref (task));
}

/* --- the plugin -------------------------------------------------------------- */

static void
surface_hook_synced (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  g_autoptr(StwPluginCompletion) completion = user_data;

  stw_plugin_completion_return_success (completion);
}

static void
surface_hook_resolved (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  g_autoptr(StwPluginCompletion) completion = user_data;
  StwNetworkPlugin *self = STW_NETWORK_PLUGIN (stw_plugin_completion_get_plugin (completion));
  StwSession *session = stw_plugin_completion_get_session (completion);
  NetState *state = session ? state_lookup (self, session) : NULL;
  g_autoptr(GError) error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    g_debug ("network: %s", error->message);
  if (state == NULL)
    {
      stw_plugin_completion_return_success (completion);
      return;
    }
  sync_all (state, g_task_new (self, NULL, surface_hook_synced, g_object_ref (completion)));
}

/* The state of a hook's session while a capture or stubs need its new
 * target; NULL (the hook completed) otherwise. */
static NetState *
hook_state (StwPluginCompletion *completion)
{
  StwNetworkPlugin *self = STW_NETWORK_PLUGIN (stw_plugin_completion_get_plugin (completion));
  StwSession *session = stw_plugin_completion_get_session (completion);
  NetState *state = session ? state_lookup (self, session) : NULL;

  if (state == NULL || stw_plugin_completion_get_surface (completion) == NULL ||
      (!state->capturing && !stubs_active (state)))
    {
      stw_plugin_completion_return_success (completion);
      return NULL;
    }
  return state;
}

/* A new window, frame or webview, paused before its first request: turn
 * on what a capture or the stubs need before it runs. */
static void
stw_network_plugin_surface_attached (StwPlugin           *plugin,
                                     StwPluginCompletion *completion)
{
  StwSurface *surface = stw_plugin_completion_get_surface (completion);
  NetState *state = hook_state (completion);
  GList one = { surface, NULL, NULL };

  if (state == NULL)
    return;
  tap_get (state, surface);
  resolve_partition_async (state, state->capturing ? &one : NULL, surface_hook_resolved, g_object_ref (completion));
}

/* A new service or dedicated worker, paused before its first script: its
 * own requests are captured and stubbed as a window's are. */
static void
stw_network_plugin_worker_attached (StwPlugin           *plugin,
                                    StwPluginCompletion *completion)
{
  StwSurface *worker = stw_plugin_completion_get_surface (completion);
  NetState *state;

  /* Shared workers' own requests are not tapped. */
  if (worker != NULL && stw_surface_get_kind (worker) == STW_SURFACE_KIND_SHARED_WORKER)
    {
      stw_plugin_completion_return_success (completion);
      return;
    }
  if ((state = hook_state (completion)) == NULL)
    return;
  sync_all (state, g_task_new (plugin, NULL, surface_hook_synced, g_object_ref (completion)));
}

static void
stw_network_plugin_teardown (StwPlugin           *plugin,
                             StwPluginCompletion *completion)
{
  StwNetworkPlugin *self = STW_NETWORK_PLUGIN (plugin);
  GHashTableIter iter;
  gpointer key, value;

  /* Stubs stop answering: paused requests go on, and nothing stays
   * intercepted once the plugin is gone. */
  g_hash_table_iter_init (&iter, self->states);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      NetState *state = value;
      GHashTableIter taps;
      gpointer tap_value;

      g_hash_table_iter_init (&taps, state->taps);
      while (g_hash_table_iter_next (&taps, NULL, &tap_value))
        {
          Tap *tap = tap_value;

          if (tap->fetch_on && !stw_surface_is_closed (tap->surface))
            stw_surface_send_cdp_async (tap->surface, "Fetch.disable", NULL, NULL, on_fetch_replied, NULL);
          if (tap->network_on && !stw_surface_is_closed (tap->surface))
            stw_surface_send_cdp_async (tap->surface, "Network.disable", NULL, NULL, on_fetch_replied, NULL);
        }
      g_hash_table_remove_all (state->taps);
      g_object_weak_unref (key, on_session_finalized, state);
      state->plugin = NULL;
      state_unref (state);
    }
  g_hash_table_steal_all (self->states);
  stw_plugin_completion_return_success (completion);
}

static void
stw_network_plugin_finalize (GObject *object)
{
  StwNetworkPlugin *self = STW_NETWORK_PLUGIN (object);
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, self->states);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      NetState *state = value;

      g_object_weak_unref (key, on_session_finalized, state);
      state->plugin = NULL;
      state_unref (state);
    }
  g_hash_table_unref (self->states);
  G_OBJECT_CLASS (stw_network_plugin_parent_class)->finalize (object);
}

static void
stw_network_plugin_class_init (StwNetworkPluginClass *klass)
{
  StwPluginClass *plugin_class = STW_PLUGIN_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = stw_network_plugin_finalize;
  plugin_class->surface_attached = stw_network_plugin_surface_attached;
  plugin_class->worker_attached = stw_network_plugin_worker_attached;
  plugin_class->teardown = stw_network_plugin_teardown;
  stw_network_error_quark ();
}

static void
stw_network_plugin_init (StwNetworkPlugin *self)
{
  self->states = g_hash_table_new (g_direct_hash, g_direct_equal);
  _stw_network_plugin_add_tools (self);
}

/**
 * stw_network_plugin_new:
 *
 * Makes the plugin, with its config schema, as `--plugin network` loads
 * it. Load it into a dispatcher (its tools, its hook and its files need
 * one) before calling its operations.
 *
 * Returns: (transfer full): the plugin
 */
StwNetworkPlugin *
stw_network_plugin_new (void)
{
  g_autoptr(StwSchema) config = stw_schema_new_from_string (
    "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
    "\"maxEntries\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100000,\"default\":1000,"
    "\"x-stagewright-safe\":true},"
    "\"maxBodyTotalBytes\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":1073741824,"
    "\"default\":67108864,\"x-stagewright-safe\":true},"
    "\"redact\":{\"type\":\"boolean\",\"default\":true,\"x-stagewright-safe\":true},"
    "\"redactHeaders\":{\"type\":\"array\",\"maxItems\":256,\"x-stagewright-safe\":true,"
    "\"default\":[\"authorization\",\"proxy-authorization\",\"cookie\",\"set-cookie\",\"x-api-key\","
    "\"x-auth-token\"],\"items\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":256}},"
    "\"bodyDir\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096}}}", NULL);

  return g_object_new (STW_TYPE_NETWORK_PLUGIN,
                       "name", "network",
                       "version", "0.1.0",
                       "core-versions", ">=0.1",
                       "description", "Captures the app's requests, exports HAR and stubs responses over DevTools.",
                       "config-schema", config,
                       NULL);
}

/* --- operations ---------------------------------------------------------------- */

static gboolean
check_session (GTask      *task,
               StwSession *session)
{
  if ((stw_session_get_capabilities (session) & STW_CAPABILITY_SURFACES) == 0)
    {
      GError *error = stw_error_new ("network.UNSUPPORTED", "This session has no renderers to capture or stub: "
                                     "it reaches only the main process");

      stw_error_set_hint (error, "Launch or attach with the renderers' DevTools endpoint "
                                 "(--remote-debugging-port)");
      g_task_return_error (task, error);
      return FALSE;
    }
  return TRUE;
}

static void
start_synced (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;

  g_task_return_boolean (task, TRUE);
}

static void
start_resolved (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  NetState *state = g_task_get_task_data (task);
  GError *error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      state->capturing = FALSE;
      g_task_return_error (task, error);
      return;
    }
  sync_all (state, g_task_new (NULL, NULL, start_synced, g_object_ref (task)));
}

/**
 * stw_network_plugin_capture_start_async:
 * @self: the plugin, loaded
 * @session: the session whose renderers to capture
 * @urls: (nullable) (array zero-terminated=1): URL patterns (globs or
 *   `/regex/flags`); only requests matching one are kept, all without
 * @bodies: which bodies to keep
 * @max_body_bytes: the most bytes of one body kept, 0 for 64 KiB; clamped
 *   to %STW_NETWORK_MAX_BODY_BYTES
 * @partition: (nullable): only the renderers of this Electron session
 *   partition (`""` the default session); needs the main process
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the capture runs
 * @user_data: data for @callback
 *
 * Starts capturing every request of the session's renderers (windows,
 * out-of-process frames, webviews) and of those that appear later, from
 * their first request. A new capture forgets the previous one's entries.
 */
void
stw_network_plugin_capture_start_async (StwNetworkPlugin    *self,
                                        StwSession          *session,
                                        const char * const  *urls,
                                        StwNetworkBodies     bodies,
                                        guint                max_body_bytes,
                                        const char          *partition,
                                        GCancellable        *cancellable,
                                        GAsyncReadyCallback  callback,
                                        gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GPtrArray) filters = g_ptr_array_new_with_free_func ((GDestroyNotify) g_regex_unref);
  StwDispatcher *dispatcher;
  NetState *state;
  GList *surfaces;

  g_return_if_fail (STW_IS_NETWORK_PLUGIN (self));
  g_return_if_fail (STW_IS_SESSION (session));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, stw_network_plugin_capture_start_async);
  if (!check_session (task, session))
    return;
  state = state_get (self, session);
  if (state->capturing)
    {
      GError *error = stw_error_new ("network.ALREADY_CAPTURING", "A capture of this session is running");

      stw_error_set_hint (error, "Stop it with network_capture_stop first");
      g_task_return_error (task, error);
      return;
    }
  for (guint i = 0; urls != NULL && urls[i] != NULL; i++)
    {
      GError *error = NULL;
      GRegex *regex = _stw_network_compile (urls[i], &error);

      if (regex == NULL)
        {
          g_task_return_error (task, error);
          return;
        }
      g_ptr_array_add (filters, regex);
    }

  /* A new capture: the previous one's entries go, and with them the body
   * files of a temporary body directory. */
  body_dir_drop (state);
  dispatcher = stw_plugin_get_dispatcher (STW_PLUGIN (self));
  if (bodies != STW_NETWORK_BODIES_NONE)
    {
      GError *error = NULL;

      state->body_dir = body_dir_for (state, dispatcher, &state->body_dir_temporary, &error);
      if (state->body_dir == NULL)
        {
          g_task_return_error (task, error);
          return;
        }
    }

  /* A new capture: the previous one's entries go. */
  g_queue_clear_full (&state->entries, g_object_unref);
  g_hash_table_remove_all (state->in_flight);
  g_hash_table_remove_all (state->in_partition);
  g_ptr_array_unref (state->url_filters);
  state->url_filters = g_steal_pointer (&filters);
  state->bodies = bodies;
  state->max_body_bytes = max_body_bytes == 0 ? STW_NETWORK_DEFAULT_BODY_BYTES
                                              : MIN (max_body_bytes, STW_NETWORK_MAX_BODY_BYTES);
  g_free (state->partition);
  state->partition = g_strdup (partition);
  state->body_total = 0;
  state->total = 0;
  state->dropped = 0;
  state->capturing = TRUE;
  state->ever_captured = TRUE;

  g_task_set_task_data (task, state_ref (state), (GDestroyNotify) state_unref);
  surfaces = stw_session_list_surfaces (session);
  resolve_partition_async (state, surfaces, start_resolved, g_object_ref (task));
  g_list_free (surfaces);
}

/**
 * stw_network_plugin_capture_start_finish:
 * @self: the plugin
 * @result: the result
 * @error: `network.ALREADY_CAPTURING`, `network.INVALID_PATTERN`,
 *   `network.UNSUPPORTED` (no renderers; a partition without a main
 *   process), or a file error for the body directory
 *
 * Returns: %TRUE once the capture runs
 */
gboolean
stw_network_plugin_capture_start_finish (StwNetworkPlugin  *self,
                                         GAsyncResult      *result,
                                         GError           **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

static GError *
not_capturing (void)
{
  GError *error = stw_error_new ("network.NOT_CAPTURING", "No capture of this session was started");

  stw_error_set_hint (error, "Start one with network_capture_start");
  return error;
}

static StwNetworkPage *
page_new (NetState *state)
{
  StwNetworkPage *page = g_object_new (STW_TYPE_NETWORK_PAGE, NULL);

  page->total = state->total;
  page->dropped = state->dropped;
  page->capturing = state->capturing;
  return page;
}

/**
 * stw_network_plugin_captured_async:
 * @self: the plugin
 * @session: the session
 * @limit: the most entries answered (0 for 50; at most 500)
 * @cursor: (nullable): the page's start: a previous page's next cursor
 * @url: (nullable): only entries whose URL matches (glob or `/regex/`)
 * @status: only entries with this status (0: failed or pending), -1 any
 * @type: (nullable): only entries of this resource type (`Fetch`, `Image`, …)
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the page
 * @user_data: data for @callback
 *
 * Reads a page of the capture's entries, oldest first; the entries of a
 * stopped capture stay readable until the next one starts.
 */
void
stw_network_plugin_captured_async (StwNetworkPlugin    *self,
                                   StwSession          *session,
                                   guint                limit,
                                   const char          *cursor,
                                   const char          *url,
                                   int                  status,
                                   const char          *type,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GRegex) regex = NULL;
  g_autoptr(StwNetworkPage) page = NULL;
  NetState *state;
  guint64 after = 0;

  g_return_if_fail (STW_IS_NETWORK_PLUGIN (self));
  g_return_if_fail (STW_IS_SESSION (session));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, stw_network_plugin_captured_async);
  state = state_lookup (self, session);
  if (state == NULL || !state->ever_captured)
    {
      g_task_return_error (task, not_capturing ());
      return;
    }
  if (url != NULL)
    {
      GError *error = NULL;

      if ((regex = _stw_network_compile (url, &error)) == NULL)
        {
          g_task_return_error (task, error);
          return;
        }
    }
  if (cursor != NULL && !g_ascii_string_to_unsigned (cursor, 10, 0, G_MAXUINT64, &after, NULL))
    {
      GError *error = stw_error_new ("BAD_ARGUMENT", "The cursor “%.64s” is not one a page answered", cursor);

      stw_error_set_hint (error, "Pass a nextCursor from an earlier network_captured answer");
      g_task_return_error (task, error);
      return;
    }
  limit = limit == 0 ? 50 : MIN (limit, 500);

  page = page_new (state);
  for (GList *l = state->entries.head; l != NULL; l = l->next)
    {
      StwNetworkEntry *entry = l->data;

      if (entry->seq <= after)
        continue;
      if (regex != NULL && !_stw_network_match (regex, entry->url))
        continue;
      if (status >= 0 && entry->status != status)
        continue;
      if (type != NULL && g_ascii_strcasecmp (type, stw_network_entry_get_resource_type (entry)) != 0)
        continue;
      if (page->entries->len == limit)
        {
          page->next_cursor = g_strdup (((StwNetworkEntry *) page->entries->pdata[limit - 1])->id);
          break;
        }
      g_ptr_array_add (page->entries, g_object_ref (entry));
    }
  g_task_return_pointer (task, g_steal_pointer (&page), g_object_unref);
}

/**
 * stw_network_plugin_captured_finish:
 * @self: the plugin
 * @result: the result
 * @error: `network.NOT_CAPTURING`, `network.INVALID_PATTERN`, `BAD_ARGUMENT`
 *
 * Returns: (transfer full): the page
 */
StwNetworkPage *
stw_network_plugin_captured_finish (StwNetworkPlugin  *self,
                                    GAsyncResult      *result,
                                    GError           **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
stop_synced (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  NetState *state = g_task_get_task_data (task);

  g_task_return_pointer (task, page_new (state), g_object_unref);
}

/**
 * stw_network_plugin_capture_stop_async:
 * @self: the plugin
 * @session: the session
 * @cancellable: (nullable): a #GCancellable
 * @callback: called once the renderers stopped reporting
 * @user_data: data for @callback
 *
 * Stops the capture; its entries stay readable (and exportable) until the
 * next capture starts. Stubs stay.
 */
void
stw_network_plugin_capture_stop_async (StwNetworkPlugin    *self,
                                       StwSession          *session,
                                       GCancellable        *cancellable,
                                       GAsyncReadyCallback  callback,
                                       gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  NetState *state;

  g_return_if_fail (STW_IS_NETWORK_PLUGIN (self));
  g_return_if_fail (STW_IS_SESSION (session));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, stw_network_plugin_capture_stop_async);
  state = state_lookup (self, session);
  if (state == NULL || !state->capturing)
    {
      g_task_return_error (task, not_capturing ());
      return;
    }
  state->capturing = FALSE;
  g_task_set_task_data (task, state_ref (state), (GDestroyNotify) state_unref);
  sync_all (state, g_task_new (NULL, NULL, stop_synced, g_object_ref (task)));
}

/**
 * stw_network_plugin_capture_stop_finish:
 * @self: the plugin
 * @result: the result
 * @error: `network.NOT_CAPTURING`
 *
 * Returns: (transfer full): the capture's counts (no entries)
 */
StwNetworkPage *
stw_network_plugin_capture_stop_finish (StwNetworkPlugin  *self,
                                        GAsyncResult      *result,
                                        GError           **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * stw_network_plugin_export_har_async:
 * @self: the plugin, loaded
 * @session: the session
 * @path: (type filename): an absolute file ending in `.har`, inside the
 *   app root when there is one
 * @cancellable: (nullable): a #GCancellable
 * @callback: called once it is written
 * @user_data: data for @callback
 *
 * Writes the capture's entries (running or stopped) as HAR 1.2: timings,
 * sizes, redirects, and the kept bodies when the capture kept them.
 */
void
stw_network_plugin_export_har_async (StwNetworkPlugin    *self,
                                     StwSession          *session,
                                     const char          *path,
                                     GCancellable        *cancellable,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(JsonObject) har = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  StwDispatcher *dispatcher;
  NetState *state;
  char *text;
  gsize length;

  g_return_if_fail (STW_IS_NETWORK_PLUGIN (self));
  g_return_if_fail (STW_IS_SESSION (session));
  g_return_if_fail (path != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, stw_network_plugin_export_har_async);
  state = state_lookup (self, session);
  if (state == NULL || !state->ever_captured)
    {
      g_task_return_error (task, not_capturing ());
      return;
    }
  /* A careless path must not turn the app's main.js into a HAR. */
  if (!g_str_has_suffix (path, ".har"))
    {
      GError *refused = stw_error_new ("BAD_ARGUMENT", "The file name must end in .har");
      g_autoptr(JsonObject) details = json_object_new ();

      json_object_set_string_member (details, "argument", "path");
      stw_error_set_details (refused, details);
      g_task_return_error (task, refused);
      return;
    }
  dispatcher = stw_plugin_get_dispatcher (STW_PLUGIN (self));
  if (dispatcher == NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_INITIALIZED, "The network plugin is not loaded");
      return;
    }

  har = _stw_network_har (&state->entries, stw_plugin_get_core_version ());
  node = json_node_init_object (json_node_alloc (), har);
  text = json_to_string (node, FALSE);
  length = strlen (text);
  bytes = g_bytes_new_take (text, length);
  if (!stw_dispatcher_write_file (dispatcher, path, bytes, 0600, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  g_task_set_task_data (task, GUINT_TO_POINTER (state->entries.length), NULL);
  g_task_return_boolean (task, TRUE);
}

/**
 * stw_network_plugin_export_har_finish:
 * @self: the plugin
 * @result: the result
 * @n_entries: (out) (optional): how many entries it holds
 * @error: `network.NOT_CAPTURING`, `BAD_ARGUMENT`, `ABSOLUTE_PATH_REQUIRED`,
 *   `FILE_NOT_FOUND`
 *
 * Returns: %TRUE once written
 */
gboolean
stw_network_plugin_export_har_finish (StwNetworkPlugin  *self,
                                      GAsyncResult      *result,
                                      guint             *n_entries,
                                      GError           **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  if (!g_task_propagate_boolean (G_TASK (result), error))
    return FALSE;
  if (n_entries != NULL)
    *n_entries = GPOINTER_TO_UINT (g_task_get_task_data (G_TASK (result)));
  return TRUE;
}

static GBytes *
read_body_file (StwDispatcher  *dispatcher,
                const char     *path,
                GError        **error)
{
  g_autoptr(GByteArray) data = g_byte_array_new ();
  guint8 buffer[65536];
  int fd = stw_dispatcher_open_file (dispatcher, path, O_RDONLY, 0, error);

  if (fd < 0)
    return NULL;
  for (;;)
    {
      gssize got = read (fd, buffer, sizeof buffer);

      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0)
        break;
      if (data->len + got > MAX_STUB_BODY)
        {
          close (fd);
          g_propagate_error (error, stw_error_new ("BAD_ARGUMENT", "The stub's body file is larger than 10 MiB"));
          return NULL;
        }
      g_byte_array_append (data, buffer, got);
    }
  close (fd);
  return g_byte_array_free_to_bytes (g_steal_pointer (&data));
}

static void
stub_synced (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;

  g_task_return_pointer (task, g_object_ref (g_task_get_task_data (task)), g_object_unref);
}

static void
unstub_synced (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;

  g_task_return_int (task, GPOINTER_TO_INT (g_task_get_task_data (task)));
}

/**
 * stw_network_plugin_stub_async:
 * @self: the plugin, loaded
 * @session: the session whose renderers' requests it answers
 * @stub: the stub; it is registered as it is, and gets its id
 * @cancellable: (nullable): a #GCancellable
 * @callback: called once every renderer intercepts
 * @user_data: data for @callback
 *
 * Answers the matching requests of every renderer of the session (and of
 * those that appear later) with @stub instead of the network, through
 * DevTools' Fetch domain. When several stubs match a request, the last
 * registered wins; one registered with times answers that many requests,
 * then lets the next match (or the network) have them.
 */
void
stw_network_plugin_stub_async (StwNetworkPlugin    *self,
                               StwSession          *session,
                               StwNetworkStub      *stub,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  GError *error = NULL;
  NetState *state;

  g_return_if_fail (STW_IS_NETWORK_PLUGIN (self));
  g_return_if_fail (STW_IS_SESSION (session));
  g_return_if_fail (STW_IS_NETWORK_STUB (stub));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, stw_network_plugin_stub_async);
  if (!check_session (task, session))
    return;
  state = state_get (self, session);
  g_clear_pointer (&stub->regex, g_regex_unref);
  if (stub->id != NULL || (stub->regex = _stw_network_compile (stub->url, &error)) == NULL)
    {
      g_task_return_error (task, error ? error : stw_error_new ("BAD_ARGUMENT", "The stub is registered already"));
      return;
    }
  if ((stub->body != NULL && stub->body_path != NULL) ||
      (stub->fail != NULL && (stub->body != NULL || stub->body_path != NULL)))
    {
      g_task_return_error (task, stw_error_new ("BAD_ARGUMENT", "Give one of body, bodyPath and fail"));
      return;
    }
  if (json_object_get_size (stub->headers) > 64)
    {
      g_task_return_error (task, stw_error_new ("BAD_ARGUMENT", "A stub answers at most 64 headers"));
      return;
    }
  if (stub->fail != NULL && _stw_network_error_reason (stub->fail) == NULL)
    {
      g_task_return_error (task, stw_error_new ("BAD_ARGUMENT", "Unknown failure “%.64s”", stub->fail));
      return;
    }
  if (stub->fail == NULL && (stub->status < 100 || stub->status > 599))
    {
      g_task_return_error (task, stw_error_new ("BAD_ARGUMENT", "The status %u is not an HTTP status", stub->status));
      return;
    }
  if (state->stubs->len >= MAX_STUBS)
    {
      GError *full = stw_error_new ("BAD_ARGUMENT", "This session has %u stubs already", MAX_STUBS);

      stw_error_set_hint (full, "Remove some with network_unstub");
      g_task_return_error (task, full);
      return;
    }
  if (stub->body_path != NULL)
    {
      StwDispatcher *dispatcher = stw_plugin_get_dispatcher (STW_PLUGIN (self));
      g_autoptr(GBytes) body = dispatcher ? read_body_file (dispatcher, stub->body_path, &error) : NULL;

      if (body == NULL)
        {
          g_task_return_error (task, error ? error : stw_error_new ("BAD_ARGUMENT", "The plugin is not loaded"));
          return;
        }
      stw_network_stub_set_body (stub, body);
      if (!json_object_has_member (stub->headers, "content-type") &&
          !json_object_has_member (stub->headers, "Content-Type"))
        {
          g_autofree char *type = g_content_type_guess (stub->body_path, NULL, 0, NULL);
          g_autofree char *mime = type ? g_content_type_get_mime_type (type) : NULL;

          if (mime != NULL)
            json_object_set_string_member (stub->headers, "Content-Type", mime);
        }
    }

  stub->id = g_strdup_printf ("stub-%u", ++state->next_stub);
  g_ptr_array_add (state->stubs, g_object_ref (stub));
  g_task_set_task_data (task, g_object_ref (stub), g_object_unref);
  sync_all (state, g_task_new (NULL, NULL, stub_synced, g_object_ref (task)));
}

/**
 * stw_network_plugin_stub_finish:
 * @self: the plugin
 * @result: the result
 * @error: `network.INVALID_PATTERN`, `network.UNSUPPORTED`,
 *   `BAD_ARGUMENT` (a bad status or failure, a body file that cannot be
 *   read or is larger than 10 MiB, too many stubs)
 *
 * Returns: (transfer full): the stub, with its id
 */
StwNetworkStub *
stw_network_plugin_stub_finish (StwNetworkPlugin  *self,
                                GAsyncResult      *result,
                                GError           **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * stw_network_plugin_unstub_async:
 * @self: the plugin
 * @session: the session
 * @id: (nullable): the stub to remove, %NULL for every one
 * @cancellable: (nullable): a #GCancellable
 * @callback: called once removed
 * @user_data: data for @callback
 *
 * Removes stubs; without any left, the renderers stop intercepting.
 */
void
stw_network_plugin_unstub_async (StwNetworkPlugin    *self,
                                 StwSession          *session,
                                 const char          *id,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  NetState *state;
  guint removed = 0;

  g_return_if_fail (STW_IS_NETWORK_PLUGIN (self));
  g_return_if_fail (STW_IS_SESSION (session));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, stw_network_plugin_unstub_async);
  state = state_lookup (self, session);
  if (state == NULL)
    {
      g_task_return_int (task, 0);
      return;
    }
  for (guint i = state->stubs->len; i > 0; i--)
    {
      StwNetworkStub *stub = state->stubs->pdata[i - 1];

      if (id == NULL || g_strcmp0 (stub->id, id) == 0)
        {
          g_ptr_array_remove_index (state->stubs, i - 1);
          removed++;
        }
    }
  g_task_set_task_data (task, GINT_TO_POINTER (removed), NULL);
  sync_all (state, g_task_new (NULL, NULL, unstub_synced, g_object_ref (task)));
}

/**
 * stw_network_plugin_unstub_finish:
 * @self: the plugin
 * @result: the result
 * @error: where to put an error
 *
 * Returns: how many stubs were removed
 */
guint
stw_network_plugin_unstub_finish (StwNetworkPlugin  *self,
                                  GAsyncResult      *result,
                                  GError           **error)
{
  gssize removed;

  g_return_val_if_fail (g_task_is_valid (result, self), 0);
  removed = g_task_propagate_int (G_TASK (result), error);
  return removed > 0 ? (guint) removed : 0;
}

/**
 * stw_network_plugin_list_stubs:
 * @self: the plugin
 * @session: the session
 *
 * Returns: (transfer container) (element-type StwNetworkStub): the
 *   session's stubs in registration order, with their match counts
 */
GPtrArray *
stw_network_plugin_list_stubs (StwNetworkPlugin *self,
                               StwSession       *session)
{
  GPtrArray *stubs = g_ptr_array_new_with_free_func (g_object_unref);
  NetState *state;

  g_return_val_if_fail (STW_IS_NETWORK_PLUGIN (self), stubs);
  state = state_lookup (self, session);
  for (guint i = 0; state != NULL && i < state->stubs->len; i++)
    g_ptr_array_add (stubs, g_object_ref (state->stubs->pdata[i]));
  return stubs;
}

/**
 * stw_network_plugin_capture_start_sync:
 * @self: the plugin, loaded
 * @session: the session whose renderers to capture
 * @urls: (nullable) (array zero-terminated=1): URL patterns
 * @bodies: which bodies to keep
 * @max_body_bytes: the most bytes of one body kept, 0 for 64 KiB
 * @partition: (nullable): only the renderers of this partition
 * @cancellable: (nullable): a #GCancellable
 * @error: as [method@StagewrightNetwork.NetworkPlugin.capture_start_finish]
 *
 * The blocking form of [method@StagewrightNetwork.NetworkPlugin.capture_start_async].
 *
 * Returns: %TRUE once the capture runs
 *
 * Since: 1.0
 */
gboolean
stw_network_plugin_capture_start_sync (StwNetworkPlugin    *self,
                                       StwSession          *session,
                                       const char * const  *urls,
                                       StwNetworkBodies     bodies,
                                       guint                max_body_bytes,
                                       const char          *partition,
                                       GCancellable        *cancellable,
                                       GError             **error)
{
  StwSyncCall call;
  gboolean ret;

  if (!stw_sync_call_init (&call, session))
    return FALSE;
  stw_network_plugin_capture_start_async (self, session, urls, bodies, max_body_bytes, partition, cancellable,
                                          stw_sync_call_callback, &call);
  ret = stw_network_plugin_capture_start_finish (self, stw_sync_call_wait (&call), error);
  stw_sync_call_clear (&call);
  return ret;
}

/**
 * stw_network_plugin_captured_sync:
 * @self: the plugin
 * @session: the session
 * @limit: the most entries answered (0 for 50; at most 500)
 * @cursor: (nullable): a previous page's next cursor
 * @url: (nullable): only entries whose URL matches
 * @status: only entries with this status, -1 any
 * @type: (nullable): only entries of this resource type
 * @cancellable: (nullable): a #GCancellable
 * @error: as [method@StagewrightNetwork.NetworkPlugin.captured_finish]
 *
 * The blocking form of [method@StagewrightNetwork.NetworkPlugin.captured_async].
 *
 * Returns: (transfer full): the page
 *
 * Since: 1.0
 */
StwNetworkPage *
stw_network_plugin_captured_sync (StwNetworkPlugin  *self,
                                  StwSession        *session,
                                  guint              limit,
                                  const char        *cursor,
                                  const char        *url,
                                  int                status,
                                  const char        *type,
                                  GCancellable      *cancellable,
                                  GError           **error)
{
  StwSyncCall call;
  StwNetworkPage *ret;

  if (!stw_sync_call_init (&call, session))
    return NULL;
  stw_network_plugin_captured_async (self, session, limit, cursor, url, status, type, cancellable,
                                     stw_sync_call_callback, &call);
  ret = stw_network_plugin_captured_finish (self, stw_sync_call_wait (&call), error);
  stw_sync_call_clear (&call);
  return ret;
}

/**
 * stw_network_plugin_capture_stop_sync:
 * @self: the plugin
 * @session: the session
 * @cancellable: (nullable): a #GCancellable
 * @error: as [method@StagewrightNetwork.NetworkPlugin.capture_stop_finish]
 *
 * The blocking form of [method@StagewrightNetwork.NetworkPlugin.capture_stop_async].
 *
 * Returns: (transfer full): the capture's counts
 *
 * Since: 1.0
 */
StwNetworkPage *
stw_network_plugin_capture_stop_sync (StwNetworkPlugin  *self,
                                      StwSession        *session,
                                      GCancellable      *cancellable,
                                      GError           **error)
{
  StwSyncCall call;
  StwNetworkPage *ret;

  if (!stw_sync_call_init (&call, session))
    return NULL;
  stw_network_plugin_capture_stop_async (self, session, cancellable, stw_sync_call_callback, &call);
  ret = stw_network_plugin_capture_stop_finish (self, stw_sync_call_wait (&call), error);
  stw_sync_call_clear (&call);
  return ret;
}

/**
 * stw_network_plugin_export_har_sync:
 * @self: the plugin, loaded
 * @session: the session
 * @path: (type filename): an absolute file ending in `.har`
 * @n_entries: (out) (optional): how many entries it holds
 * @cancellable: (nullable): a #GCancellable
 * @error: as [method@StagewrightNetwork.NetworkPlugin.export_har_finish]
 *
 * The blocking form of [method@StagewrightNetwork.NetworkPlugin.export_har_async].
 *
 * Returns: %TRUE once written
 *
 * Since: 1.0
 */
gboolean
stw_network_plugin_export_har_sync (StwNetworkPlugin  *self,
                                    StwSession        *session,
                                    const char        *path,
                                    guint             *n_entries,
                                    GCancellable      *cancellable,
                                    GError           **error)
{
  StwSyncCall call;
  gboolean ret;

  if (!stw_sync_call_init (&call, session))
    return FALSE;
  stw_network_plugin_export_har_async (self, session, path, cancellable, stw_sync_call_callback, &call);
  ret = stw_network_plugin_export_har_finish (self, stw_sync_call_wait (&call), n_entries, error);
  stw_sync_call_clear (&call);
  return ret;
}

/**
 * stw_network_plugin_stub_sync:
 * @self: the plugin, loaded
 * @session: the session
 * @stub: the stub
 * @cancellable: (nullable): a #GCancellable
 * @error: as [method@StagewrightNetwork.NetworkPlugin.stub_finish]
 *
 * The blocking form of [method@StagewrightNetwork.NetworkPlugin.stub_async].
 *
 * Returns: (transfer full): the stub, with its id
 *
 * Since: 1.0
 */
StwNetworkStub *
stw_network_plugin_stub_sync (StwNetworkPlugin  *self,
                              StwSession        *session,
                              StwNetworkStub    *stub,
                              GCancellable      *cancellable,
                              GError           **error)
{
  StwSyncCall call;
  StwNetworkStub *ret;

  if (!stw_sync_call_init (&call, session))
    return NULL;
  stw_network_plugin_stub_async (self, session, stub, cancellable, stw_sync_call_callback, &call);
  ret = stw_network_plugin_stub_finish (self, stw_sync_call_wait (&call), error);
  stw_sync_call_clear (&call);
  return ret;
}

/**
 * stw_network_plugin_unstub_sync:
 * @self: the plugin
 * @session: the session
 * @id: (nullable): the stub to remove, %NULL for every one
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * The blocking form of [method@StagewrightNetwork.NetworkPlugin.unstub_async].
 *
 * Returns: how many stubs were removed
 *
 * Since: 1.0
 */
guint
stw_network_plugin_unstub_sync (StwNetworkPlugin  *self,
                                StwSession        *session,
                                const char        *id,
                                GCancellable      *cancellable,
                                GError           **error)
{
  StwSyncCall call;
  guint ret;

  if (!stw_sync_call_init (&call, session))
    return 0;
  stw_network_plugin_unstub_async (self, session, id, cancellable, stw_sync_call_callback, &call);
  ret = stw_network_plugin_unstub_finish (self, stw_sync_call_wait (&call), error);
  stw_sync_call_clear (&call);
  return ret;
}
