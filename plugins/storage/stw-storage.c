/* stw-storage.c: the storage plugin's API
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Cookies go through CDP's Network domain on a window of the session
 * (it addresses that window's storage partition: in Electron, its
 * session). Web Storage, IndexedDB, the snapshot and the origins of a
 * storage state go through the plugin's own agent (storage-agent.js, a
 * GResource) called in the isolated world of a frame of the origin: it
 * shares the origin's storage with the page but none of its globals, and
 * it runs no agent-supplied code, so none of this needs --allow-eval.
 * CDP's IndexedDB domain reads but cannot put a record, which is why the
 * agent does IndexedDB throughout, with one value encoding (Playwright's).
 *
 * Everything the page or a state file hands us is hostile: the agent has
 * a byte budget (config maxBytes), a state file is bounded (maxStateBytes)
 * and validated as a whole before anything of it is applied, and files
 * are opened through stw_dispatcher_open_file(), so --app-root confines
 * them.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <gio/gunixinputstream.h>

#include "stw-storage-private.h"
#include "stw-plugins-partition.h"

#define AGENT_RESOURCE "/org/stagewright/plugins/storage/storage-agent.js"
#define DEFAULT_MAX_BYTES (16 * 1024 * 1024)
#define DEFAULT_MAX_STATE_BYTES (32 * 1024 * 1024)
#define MAX_COOKIES 10000
#define MAX_ORIGINS 1000
#define MAX_COOKIE_EXPIRES 253402300799.0

GResource *_stw_storage_get_resource (void);

G_DEFINE_ENUM_TYPE (StwStorageArea, stw_storage_area,
                    G_DEFINE_ENUM_VALUE (STW_STORAGE_AREA_LOCAL, "local"),
                    G_DEFINE_ENUM_VALUE (STW_STORAGE_AREA_SESSION, "session"))

G_DEFINE_ENUM_TYPE (StwStorageError, stw_storage_error,
                    G_DEFINE_ENUM_VALUE (STW_STORAGE_ERROR_UNSUPPORTED, "unsupported"),
                    G_DEFINE_ENUM_VALUE (STW_STORAGE_ERROR_EVAL_REQUIRED, "eval-required"),
                    G_DEFINE_ENUM_VALUE (STW_STORAGE_ERROR_ACCESS_FAILED, "access-failed"),
                    G_DEFINE_ENUM_VALUE (STW_STORAGE_ERROR_NOT_FOUND, "not-found"),
                    G_DEFINE_ENUM_VALUE (STW_STORAGE_ERROR_NOT_ALLOWED, "not-allowed"))

/**
 * stw_storage_error_quark:
 *
 * The storage plugin's error domain: the `storage.*` codes as
 * #StwStorageError values.
 *
 * Returns: the domain
 *
 * Since: 1.0
 */
GQuark
stw_storage_error_quark (void)
{
  static gsize quark;

  if (g_once_init_enter (&quark))
    g_once_init_leave (&quark, stw_error_register_domain ("storage", STW_TYPE_STORAGE_ERROR));
  return (GQuark) quark;
}

/* --- errors ---------------------------------------------------------------- */

static GError *
bad_state (const char *where,
           const char *problem)
{
  GError *error = stw_error_new ("BAD_ARGUMENT", "The storage state is malformed: %s %s", where, problem);
  g_autoptr(JsonObject) details = json_object_new ();

  json_object_set_string_member (details, "field", where);
  stw_error_set_details (error, details);
  return error;
}

static GError *
unsupported_field (const char *field)
{
  GError *error = stw_error_new ("storage.UNSUPPORTED",
                                 "The storage state has %s, which Stagewright cannot restore; nothing was applied",
                                 field);
  g_autoptr(JsonObject) details = json_object_new ();

  json_object_set_string_member (details, "field", field);
  stw_error_set_details (error, details);
  stw_error_set_hint (error, "Save the state without it (Playwright: storageState() without opfs/credentials), "
                             "or remove the field");
  return error;
}

/* --- origins ----------------------------------------------------------------- */

/* The origin of an http(s) URL (`http://host[:port]`, default ports
 * dropped), or NULL for anything else. */
static char *
origin_of_url (const char *url)
{
  g_autoptr(GUri) uri = url ? g_uri_parse (url, G_URI_FLAGS_NONE, NULL) : NULL;
  const char *scheme;
  const char *host;
  int port;
  g_autofree char *bracketed = NULL;
  g_autofree char *text = NULL;

  if (uri == NULL)
    return NULL;
  scheme = g_uri_get_scheme (uri);
  host = g_uri_get_host (uri);
  if (host == NULL || *host == '\0' || (g_ascii_strcasecmp (scheme, "http") != 0 && g_ascii_strcasecmp (scheme, "https") != 0))
    return NULL;
  if (strchr (host, ':') != NULL)
    host = bracketed = g_strdup_printf ("[%s]", host);
  port = g_uri_get_port (uri);
  if (port < 0 || (port == 80 && g_ascii_strcasecmp (scheme, "http") == 0) ||
      (port == 443 && g_ascii_strcasecmp (scheme, "https") == 0))
    text = g_strdup_printf ("%s://%s", scheme, host);
  else
    text = g_strdup_printf ("%s://%s:%d", scheme, host, port);
  return g_ascii_strdown (text, -1);
}

/* Whether @origin is an http(s) origin in its normal form. */
static gboolean
origin_is_valid (const char *origin)
{
  g_autofree char *normal = origin_of_url (origin);

  return normal != NULL && g_str_equal (normal, origin);
}

/* --- cookies ------------------------------------------------------------------ */

G_DEFINE_BOXED_TYPE (StwStorageCookie, stw_storage_cookie, stw_storage_cookie_copy, stw_storage_cookie_free)

/**
 * stw_storage_cookie_new:
 * @name: the name
 * @value: the value
 * @domain: the domain
 * @path: the path
 *
 * A session cookie (expires -1, SameSite Lax, neither secure nor httpOnly).
 *
 * Returns: (transfer full): the cookie
 *
 * Since: 1.0
 */
StwStorageCookie *
stw_storage_cookie_new (const char *name,
                        const char *value,
                        const char *domain,
                        const char *path)
{
  StwStorageCookie *cookie = g_new0 (StwStorageCookie, 1);

  cookie->name = g_strdup (name);
  cookie->value = g_strdup (value);
  cookie->domain = g_strdup (domain);
  cookie->path = g_strdup (path ? path : "/");
  cookie->expires = -1;
  cookie->same_site = g_strdup ("Lax");
  return cookie;
}

/**
 * stw_storage_cookie_copy:
 * @cookie: a cookie
 *
 * Returns: (transfer full): a copy
 *
 * Since: 1.0
 */
StwStorageCookie *
stw_storage_cookie_copy (const StwStorageCookie *cookie)
{
  StwStorageCookie *copy = g_new0 (StwStorageCookie, 1);

  *copy = *cookie;
  copy->name = g_strdup (cookie->name);
  copy->value = g_strdup (cookie->value);
  copy->domain = g_strdup (cookie->domain);
  copy->path = g_strdup (cookie->path);
  copy->same_site = g_strdup (cookie->same_site);
  copy->partition_key = g_strdup (cookie->partition_key);
  return copy;
}

/**
 * stw_storage_cookie_free:
 * @cookie: a cookie
 *
 * Since: 1.0
 */
void
stw_storage_cookie_free (StwStorageCookie *cookie)
{
  if (cookie == NULL)
    return;
  g_free (cookie->name);
  g_free (cookie->value);
  g_free (cookie->domain);
  g_free (cookie->path);
  g_free (cookie->same_site);
  g_free (cookie->partition_key);
  g_free (cookie);
}

static gboolean
text_ok (const char *text,
         gsize       max)
{
  if (text == NULL || strlen (text) > max)
    return FALSE;
  for (const char *p = text; *p != '\0'; p++)
    if ((guchar) *p < 0x20 || *p == 0x7f || *p == ';')
      return FALSE;
  return TRUE;
}

static const char *
member_string (JsonObject *object,
               const char *member)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

static gboolean
member_is (JsonObject *object,
           const char *member,
           GType       type)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  if (type == G_TYPE_DOUBLE)
    return json_node_get_value_type (node) == G_TYPE_DOUBLE || json_node_get_value_type (node) == G_TYPE_INT64;
  return json_node_get_value_type (node) == type;
}

/**
 * stw_storage_cookie_new_from_json:
 * @object: a cookie in Playwright's form (`{name, value, domain, path,
 *   expires, httpOnly, secure, sameSite, partitionKey?}`)
 * @error: where to put `BAD_ARGUMENT`
 *
 * Reads and checks a cookie as Playwright's `addCookies` checks it.
 *
 * Returns: (transfer full) (nullable): the cookie
 *
 * Since: 1.0
 */
StwStorageCookie *
stw_storage_cookie_new_from_json (JsonObject  *object,
                                  GError     **error)
{
  g_autoptr(StwStorageCookie) cookie = NULL;
  const char *name = member_string (object, "name");
  const char *value = member_string (object, "value");
  const char *domain = member_string (object, "domain");
  const char *path = member_string (object, "path");
  const char *same_site = json_object_has_member (object, "sameSite") ? member_string (object, "sameSite") : "Lax";
  double expires = -1;

  if (!text_ok (name, 4096) || *name == '\0' || strpbrk (name, "= ") != NULL)
    {
      g_propagate_error (error, bad_state ("cookie name", "is missing, empty, too long or has a forbidden character"));
      return NULL;
    }
  if (value == NULL || !text_ok (value, 4096))
    {
      g_propagate_error (error, bad_state ("cookie value", "is missing, too long or has a control character or ';'"));
      return NULL;
    }
  if (!text_ok (domain, 253) || *domain == '\0' || strpbrk (domain, "/ ") != NULL)
    {
      g_propagate_error (error, bad_state ("cookie domain", "is missing, empty, too long or not a host"));
      return NULL;
    }
  if (path != NULL && (!text_ok (path, 1024) || path[0] != '/'))
    {
      g_propagate_error (error, bad_state ("cookie path", "does not start with / or is too long"));
      return NULL;
    }
  if (json_object_has_member (object, "expires"))
    {
      if (!member_is (object, "expires", G_TYPE_DOUBLE))
        {
          g_propagate_error (error, bad_state ("cookie expires", "is not a number"));
          return NULL;
        }
      expires = json_object_get_double_member (object, "expires");
      if (expires != -1 && !(expires > 0 && expires <= MAX_COOKIE_EXPIRES))
        {
          g_propagate_error (error, bad_state ("cookie expires", "is neither -1 nor Unix seconds up to 253402300799"));
          return NULL;
        }
    }
  if (same_site == NULL || !(g_str_equal (same_site, "Strict") || g_str_equal (same_site, "Lax") ||
                             g_str_equal (same_site, "None")))
    {
      g_propagate_error (error, bad_state ("cookie sameSite", "is not Strict, Lax or None"));
      return NULL;
    }
  for (const char *flag = "httpOnly"; flag != NULL; flag = g_str_equal (flag, "httpOnly") ? "secure" : NULL)
    if (json_object_has_member (object, flag) && !member_is (object, flag, G_TYPE_BOOLEAN))
      {
        g_propagate_error (error, bad_state (flag, "is not a boolean"));
        return NULL;
      }
  if (json_object_has_member (object, "partitionKey") &&
      !text_ok (member_string (object, "partitionKey"), 1024))
    {
      g_propagate_error (error, bad_state ("cookie partitionKey", "is not a site"));
      return NULL;
    }

  cookie = stw_storage_cookie_new (name, value, domain, path ? path : "/");
  cookie->expires = expires;
  cookie->http_only = json_object_get_boolean_member_with_default (object, "httpOnly", FALSE);
  cookie->secure = json_object_get_boolean_member_with_default (object, "secure", FALSE);
  g_free (cookie->same_site);
  cookie->same_site = g_strdup (same_site);
  cookie->partition_key = g_strdup (member_string (object, "partitionKey"));
  return g_steal_pointer (&cookie);
}

/**
 * stw_storage_cookie_to_json:
 * @cookie: a cookie
 * @reveal: whether the value is written; without, it is `"<redacted>"`
 *
 * The cookie in Playwright's form, its members in Playwright's order.
 *
 * Returns: (transfer full): the object
 *
 * Since: 1.0
 */
JsonObject *
stw_storage_cookie_to_json (const StwStorageCookie *cookie,
                            gboolean                reveal)
{
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "name", cookie->name);
  json_object_set_string_member (object, "value", reveal ? cookie->value : "<redacted>");
  json_object_set_string_member (object, "domain", cookie->domain);
  json_object_set_string_member (object, "path", cookie->path);
  if (cookie->expires == (gint64) cookie->expires)
    json_object_set_int_member (object, "expires", (gint64) cookie->expires);
  else
    json_object_set_double_member (object, "expires", cookie->expires);
  json_object_set_boolean_member (object, "httpOnly", cookie->http_only);
  json_object_set_boolean_member (object, "secure", cookie->secure);
  json_object_set_string_member (object, "sameSite", cookie->same_site ? cookie->same_site : "Lax");
  if (cookie->partition_key != NULL)
    json_object_set_string_member (object, "partitionKey", cookie->partition_key);
  return object;
}

static gboolean
is_loopback_host (const char *host)
{
  return g_str_equal (host, "localhost") || g_str_has_prefix (host, "127.") || g_str_equal (host, "[::1]") ||
         g_str_equal (host, "::1");
}

/**
 * stw_storage_cookie_matches_url:
 * @cookie: a cookie
 * @url: a URL
 *
 * Whether a request to @url would carry @cookie, by Playwright's rule
 * (domain, path prefix, secure only over https or loopback).
 *
 * Returns: whether it matches
 *
 * Since: 1.0
 */
gboolean
stw_storage_cookie_matches_url (const StwStorageCookie *cookie,
                                const char             *url)
{
  g_autoptr(GUri) uri = g_uri_parse (url, G_URI_FLAGS_NONE, NULL);
  g_autofree char *host = NULL;
  g_autofree char *dotted = NULL;
  g_autofree char *domain = NULL;
  const char *path;

  if (uri == NULL || g_uri_get_host (uri) == NULL)
    return FALSE;
  host = g_ascii_strdown (g_uri_get_host (uri), -1);
  dotted = g_strconcat (".", host, NULL);
  domain = g_ascii_strdown (cookie->domain, -1);
  if (domain[0] != '.')
    {
      char *with_dot = g_strconcat (".", domain, NULL);

      g_free (domain);
      domain = with_dot;
    }
  if (!g_str_equal (dotted, domain) && !g_str_has_suffix (dotted, domain))
    return FALSE;
  path = g_uri_get_path (uri);
  if (path == NULL || *path == '\0')
    path = "/";
  if (!g_str_has_prefix (path, cookie->path))
    return FALSE;
  if (cookie->secure && g_ascii_strcasecmp (g_uri_get_scheme (uri), "https") != 0 && !is_loopback_host (host))
    return FALSE;
  return TRUE;
}

static StwStorageCookie *
cookie_from_cdp (JsonObject *object)
{
  const char *name = member_string (object, "name");
  const char *value = member_string (object, "value");
  const char *domain = member_string (object, "domain");
  const char *path = member_string (object, "path");
  StwStorageCookie *cookie;
  JsonNode *partition;

  if (name == NULL || value == NULL || domain == NULL || path == NULL)
    return NULL;
  cookie = stw_storage_cookie_new (name, value, domain, path);
  if (member_is (object, "expires", G_TYPE_DOUBLE))
    cookie->expires = json_object_get_double_member (object, "expires");
  cookie->http_only = json_object_get_boolean_member_with_default (object, "httpOnly", FALSE);
  cookie->secure = json_object_get_boolean_member_with_default (object, "secure", FALSE);
  if (member_string (object, "sameSite") != NULL)
    {
      g_free (cookie->same_site);
      cookie->same_site = g_strdup (member_string (object, "sameSite"));
    }
  partition = json_object_get_member (object, "partitionKey");
  if (partition != NULL && JSON_NODE_HOLDS_OBJECT (partition))
    cookie->partition_key = g_strdup (member_string (json_node_get_object (partition), "topLevelSite"));
  else if (partition != NULL && member_string (object, "partitionKey") != NULL)
    cookie->partition_key = g_strdup (member_string (object, "partitionKey"));
  return cookie;
}

static JsonObject *
cookie_to_cdp (const StwStorageCookie *cookie)
{
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "name", cookie->name);
  json_object_set_string_member (object, "value", cookie->value);
  json_object_set_string_member (object, "domain", cookie->domain);
  json_object_set_string_member (object, "path", cookie->path);
  if (cookie->expires != -1)
    json_object_set_double_member (object, "expires", cookie->expires);
  json_object_set_boolean_member (object, "httpOnly", cookie->http_only);
  json_object_set_boolean_member (object, "secure", cookie->secure);
  json_object_set_string_member (object, "sameSite", cookie->same_site);
  if (cookie->partition_key != NULL)
    {
      JsonObject *key = json_object_new ();

      json_object_set_string_member (key, "topLevelSite", cookie->partition_key);
      json_object_set_boolean_member (key, "hasCrossSiteAncestor", TRUE);
      json_object_set_object_member (object, "partitionKey", key);
    }
  return object;
}

/* --- the storage state -------------------------------------------------------- */

struct _StwStorageState
{
  GObject     parent_instance;
  GPtrArray  *cookies;   /* StwStorageCookie */
  JsonArray  *origins;   /* checked: {origin, localStorage[], indexedDB?} */
};

G_DEFINE_FINAL_TYPE (StwStorageState, stw_storage_state, G_TYPE_OBJECT)

static void
stw_storage_state_finalize (GObject *object)
{
  StwStorageState *self = STW_STORAGE_STATE (object);

  g_ptr_array_unref (self->cookies);
  json_array_unref (self->origins);
  G_OBJECT_CLASS (stw_storage_state_parent_class)->finalize (object);
}

static void
stw_storage_state_class_init (StwStorageStateClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = stw_storage_state_finalize;
}

static void
stw_storage_state_init (StwStorageState *self)
{
  self->cookies = g_ptr_array_new_with_free_func ((GDestroyNotify) stw_storage_cookie_free);
  self->origins = json_array_new ();
}

/**
 * stw_storage_state_new:
 *
 * An empty storage state.
 *
 * Returns: (transfer full): the state
 *
 * Since: 1.0
 */
StwStorageState *
stw_storage_state_new (void)
{
  return g_object_new (STW_TYPE_STORAGE_STATE, NULL);
}

static gboolean
array_member (JsonObject  *object,
              const char  *member,
              gboolean     required,
              JsonArray  **array,
              const char  *where,
              GError     **error)
{
  JsonNode *node = json_object_get_member (object, member);

  *array = NULL;
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    {
      if (required)
        {
          g_autofree char *field = g_strdup_printf ("%s.%s", where, member);

          g_propagate_error (error, bad_state (field, "is missing"));
          return FALSE;
        }
      return TRUE;
    }
  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      g_autofree char *field = g_strdup_printf ("%s.%s", where, member);

      g_propagate_error (error, bad_state (field, "is not an array"));
      return FALSE;
    }
  *array = json_node_get_array (node);
  return TRUE;
}

static gboolean
key_path_ok (JsonObject *object)
{
  JsonArray *list;

  if (json_object_has_member (object, "keyPath") && member_string (object, "keyPath") == NULL)
    return FALSE;
  if (!json_object_has_member (object, "keyPathArray"))
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (json_object_get_member (object, "keyPathArray")))
    return FALSE;
  list = json_object_get_array_member (object, "keyPathArray");
  for (guint i = 0; i < json_array_get_length (list); i++)
    {
      JsonNode *node = json_array_get_element (list, i);

      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
        return FALSE;
    }
  return TRUE;
}

/* Checks one database of an origin's indexedDB[] in Playwright's scheme;
 * the records' values are the agent's to decode. */
static gboolean
check_database (JsonNode    *node,
                const char  *where,
                GError     **error)
{
  JsonObject *db = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
  JsonArray *stores;

  if (db == NULL || member_string (db, "name") == NULL || !member_is (db, "version", G_TYPE_INT64) ||
      json_object_get_int_member (db, "version") < 1)
    {
      g_propagate_error (error, bad_state (where, "is not a database {name, version ≥ 1, stores}"));
      return FALSE;
    }
  if (!array_member (db, "stores", TRUE, &stores, where, error))
    return FALSE;
  for (guint i = 0; i < json_array_get_length (stores); i++)
    {
      JsonNode *store_node = json_array_get_element (stores, i);
      JsonObject *store = JSON_NODE_HOLDS_OBJECT (store_node) ? json_node_get_object (store_node) : NULL;
      g_autofree char *at = g_strdup_printf ("%s.stores[%u]", where, i);
      JsonArray *records;
      JsonArray *indexes;

      if (store == NULL || member_string (store, "name") == NULL || !key_path_ok (store) ||
          (json_object_has_member (store, "autoIncrement") && !member_is (store, "autoIncrement", G_TYPE_BOOLEAN)))
        {
          g_propagate_error (error, bad_state (at, "is not an object store {name, autoIncrement, keyPath?}"));
          return FALSE;
        }
      if (!array_member (store, "records", FALSE, &records, at, error) ||
          !array_member (store, "indexes", FALSE, &indexes, at, error))
        return FALSE;
      for (guint j = 0; records != NULL && j < json_array_get_length (records); j++)
        if (!JSON_NODE_HOLDS_OBJECT (json_array_get_element (records, j)))
          {
            g_autofree char *record = g_strdup_printf ("%s.records[%u]", at, j);

            g_propagate_error (error, bad_state (record, "is not an object"));
            return FALSE;
          }
      for (guint j = 0; indexes != NULL && j < json_array_get_length (indexes); j++)
        {
          JsonNode *index_node = json_array_get_element (indexes, j);
          JsonObject *index = JSON_NODE_HOLDS_OBJECT (index_node) ? json_node_get_object (index_node) : NULL;

          if (index == NULL || member_string (index, "name") == NULL || !key_path_ok (index))
            {
              g_autofree char *field = g_strdup_printf ("%s.indexes[%u]", at, j);

              g_propagate_error (error, bad_state (field, "is not an index {name, keyPath, unique, multiEntry}"));
              return FALSE;
            }
        }
    }
  return TRUE;
}

static gboolean
non_empty_array (JsonObject *object,
                 const char *member)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return FALSE;
  return !JSON_NODE_HOLDS_ARRAY (node) || json_array_get_length (json_node_get_array (node)) > 0;
}

static gboolean
state_take_root (StwStorageState  *self,
                 JsonObject       *root,
                 GError          **error)
{
  JsonArray *cookies;
  JsonArray *origins;

  /* What cannot be restored is refused first, naming it. */
  if (non_empty_array (root, "credentials"))
    {
      g_propagate_error (error, unsupported_field ("credentials"));
      return FALSE;
    }
  if (!array_member (root, "cookies", FALSE, &cookies, "state", error) ||
      !array_member (root, "origins", FALSE, &origins, "state", error))
    return FALSE;
  for (guint i = 0; origins != NULL && i < json_array_get_length (origins); i++)
    {
      JsonNode *node = json_array_get_element (origins, i);

      if (JSON_NODE_HOLDS_OBJECT (node) && non_empty_array (json_node_get_object (node), "opfs"))
        {
          g_autofree char *field = g_strdup_printf ("origins[%u].opfs", i);

          g_propagate_error (error, unsupported_field (field));
          return FALSE;
        }
    }
  if ((cookies != NULL && json_array_get_length (cookies) > MAX_COOKIES) ||
      (origins != NULL && json_array_get_length (origins) > MAX_ORIGINS))
    {
      g_propagate_error (error, bad_state ("state", "has more than 10000 cookies or 1000 origins"));
      return FALSE;
    }

  for (guint i = 0; cookies != NULL && i < json_array_get_length (cookies); i++)
    {
      JsonNode *node = json_array_get_element (cookies, i);
      StwStorageCookie *cookie;
      g_autoptr(GError) local = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        {
          g_autofree char *field = g_strdup_printf ("cookies[%u]", i);

          g_propagate_error (error, bad_state (field, "is not an object"));
          return FALSE;
        }
      cookie = stw_storage_cookie_new_from_json (json_node_get_object (node), &local);
      if (cookie == NULL)
        {
          g_propagate_prefixed_error (error, g_steal_pointer (&local), "cookies[%u]: ", i);
          return FALSE;
        }
      g_ptr_array_add (self->cookies, cookie);
    }

  for (guint i = 0; origins != NULL && i < json_array_get_length (origins); i++)
    {
      JsonNode *node = json_array_get_element (origins, i);
      JsonObject *entry = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      g_autofree char *where = g_strdup_printf ("origins[%u]", i);
      const char *origin = entry ? member_string (entry, "origin") : NULL;
      JsonArray *local;
      JsonArray *databases;
      JsonObject *copy;

      if (origin == NULL)
        {
          g_propagate_error (error, bad_state (where, "has no origin"));
          return FALSE;
        }
      if (!origin_is_valid (origin))
        {
          GError *refused = stw_error_new ("storage.UNSUPPORTED",
                                           "The storage state's origin “%s” is not an http(s) origin; only those can "
                                           "be restored, and nothing was applied", origin);
          g_autoptr(JsonObject) details = json_object_new ();

          json_object_set_string_member (details, "field", where);
          json_object_set_string_member (details, "origin", origin);
          stw_error_set_details (refused, details);
          stw_error_set_hint (refused, "Origins are scheme://host[:port] with http or https (file:// is opaque)");
          g_propagate_error (error, refused);
          return FALSE;
        }
      if (!array_member (entry, "localStorage", TRUE, &local, where, error) ||
          !array_member (entry, "indexedDB", FALSE, &databases, where, error))
        return FALSE;
      for (guint j = 0; j < json_array_get_length (local); j++)
        {
          JsonNode *item = json_array_get_element (local, j);
          JsonObject *pair = JSON_NODE_HOLDS_OBJECT (item) ? json_node_get_object (item) : NULL;

          if (pair == NULL || member_string (pair, "name") == NULL || member_string (pair, "value") == NULL)
            {
              g_autofree char *field = g_strdup_printf ("%s.localStorage[%u]", where, j);

              g_propagate_error (error, bad_state (field, "is not {name, value} strings"));
              return FALSE;
            }
        }
      for (guint j = 0; databases != NULL && j < json_array_get_length (databases); j++)
        {
          g_autofree char *field = g_strdup_printf ("%s.indexedDB[%u]", where, j);

          if (!check_database (json_array_get_element (databases, j), field, error))
            return FALSE;
        }
      copy = json_object_new ();
      json_object_set_string_member (copy, "origin", origin);
      json_object_set_array_member (copy, "localStorage", json_array_ref (local));
      if (databases != NULL)
        json_object_set_array_member (copy, "indexedDB", json_array_ref (databases));
      json_array_add_object_element (self->origins, copy);
    }
  return TRUE;
}

/**
 * stw_storage_state_new_from_data:
 * @data: (array length=length) (element-type guint8): JSON text
 * @length: its length, or -1 when NUL-terminated
 * @error: where to put `BAD_ARGUMENT` (malformed) or `storage.UNSUPPORTED`
 *   (`opfs`, `credentials`, or an origin that is not http(s))
 *
 * Reads a storage state in the format Playwright 1.65's `storageState()`
 * writes, checking all of it.
 *
 * Returns: (transfer full) (nullable): the state
 *
 * Since: 1.0
 */
StwStorageState *
stw_storage_state_new_from_data (const char  *data,
                                 gssize       length,
                                 GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autoptr(StwStorageState) self = stw_storage_state_new ();
  g_autoptr(GError) local = NULL;
  JsonNode *root;

  if (!json_parser_load_from_data (parser, data, length, &local))
    {
      GError *bad = stw_error_new ("BAD_ARGUMENT", "The storage state is not JSON: %s", local->message);

      g_propagate_error (error, bad);
      return NULL;
    }
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_propagate_error (error, bad_state ("state", "is not an object"));
      return NULL;
    }
  if (!state_take_root (self, json_node_get_object (root), error))
    return NULL;
  return g_steal_pointer (&self);
}

/**
 * stw_storage_state_to_data:
 * @self: a state
 * @length: (out) (optional): the length
 *
 * The state as Playwright writes it (`JSON.stringify(state, null, 2)`).
 *
 * Returns: (transfer full): the JSON text
 *
 * Since: 1.0
 */
char *
stw_storage_state_to_data (StwStorageState *self,
                           gsize           *length)
{
  g_autoptr(JsonObject) root = json_object_new ();
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  JsonArray *cookies = json_array_new ();

  g_return_val_if_fail (STW_IS_STORAGE_STATE (self), NULL);
  for (guint i = 0; i < self->cookies->len; i++)
    json_array_add_object_element (cookies, stw_storage_cookie_to_json (g_ptr_array_index (self->cookies, i), TRUE));
  json_object_set_array_member (root, "cookies", cookies);
  json_object_set_array_member (root, "origins", json_array_ref (self->origins));
  node = json_node_init_object (json_node_alloc (), root);
  json_generator_set_root (generator, node);
  json_generator_set_pretty (generator, TRUE);
  json_generator_set_indent (generator, 2);
  return json_generator_to_data (generator, length);
}

/**
 * stw_storage_state_get_cookies:
 * @self: a state
 *
 * Returns: (transfer none) (element-type StwStorageCookie): its cookies
 *
 * Since: 1.0
 */
GPtrArray *
stw_storage_state_get_cookies (StwStorageState *self)
{
  g_return_val_if_fail (STW_IS_STORAGE_STATE (self), NULL);
  return self->cookies;
}

/**
 * stw_storage_state_get_origins:
 * @self: a state
 *
 * The origins, each `{origin, localStorage[{name, value}], indexedDB?}`.
 * Open JSON: IndexedDB records hold the page's own values in Playwright's
 * encoding.
 *
 * Returns: (transfer none): its origins
 *
 * Since: 1.0
 */
JsonArray *
stw_storage_state_get_origins (StwStorageState *self)
{
  g_return_val_if_fail (STW_IS_STORAGE_STATE (self), NULL);
  return self->origins;
}

/**
 * stw_storage_state_dup_origin_names:
 * @self: a state
 *
 * Returns: (transfer full): the origins' names
 *
 * Since: 1.0
 */
char **
stw_storage_state_dup_origin_names (StwStorageState *self)
{
  g_autoptr(GStrvBuilder) names = g_strv_builder_new ();

  g_return_val_if_fail (STW_IS_STORAGE_STATE (self), NULL);
  for (guint i = 0; i < json_array_get_length (self->origins); i++)
    g_strv_builder_add (names, json_object_get_string_member (json_array_get_object_element (self->origins, i), "origin"));
  return g_strv_builder_end (names);
}

/* --- the plugin ----------------------------------------------------------------- */

struct _StwStoragePlugin
{
  StwPlugin  parent_instance;
  char      *agent;   /* storage-agent.js */
};

G_DEFINE_FINAL_TYPE (StwStoragePlugin, stw_storage_plugin, STW_TYPE_PLUGIN)


static void
stw_storage_plugin_finalize (GObject *object)
{
  g_free (STW_STORAGE_PLUGIN (object)->agent);
  G_OBJECT_CLASS (stw_storage_plugin_parent_class)->finalize (object);
}

static void
stw_storage_plugin_class_init (StwStoragePluginClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = stw_storage_plugin_finalize;
  STW_PLUGIN_CLASS (klass)->app_ready = _stw_storage_plugin_app_ready;
  stw_storage_error_quark ();
}

static void
stw_storage_plugin_init (StwStoragePlugin *self)
{
  g_autoptr(GBytes) source = g_resource_lookup_data (_stw_storage_get_resource (), AGENT_RESOURCE,
                                                      G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);

  /* A missing part is a packaging bug, not a runtime condition. */
  g_assert (source != NULL);
  self->agent = g_strndup (g_bytes_get_data (source, NULL), g_bytes_get_size (source));
  _stw_storage_plugin_add_tools (self);
}

static gint64
config_int (StwStoragePlugin *self,
            const char       *member,
            gint64            fallback)
{
  JsonObject *config = stw_plugin_get_config (STW_PLUGIN (self));

  if (config == NULL || !json_object_has_member (config, member))
    return fallback;
  return json_object_get_int_member (config, member);
}

/* --- sessions and frames -------------------------------------------------------- */

static gboolean
check_session (StwSession  *session,
               GError     **error)
{
  if (session != NULL && stw_session_is_running (session))
    return TRUE;
  g_propagate_error (error, stw_error_new_literal ("NOT_RUNNING", "No app is running"));
  return FALSE;
}

/* Whether @surface is in @scope (the surface ids of a partition's
 * renderers), NULL: no partition was named, every surface is. */
static gboolean
in_scope (GHashTable *scope,
          StwSurface *surface)
{
  return scope == NULL || g_hash_table_contains (scope, stw_surface_get_id (surface));
}

/* A window of @session (in @scope) to send cookie calls through. */
static StwSurface *
cookie_surface (StwSession  *session,
                GHashTable  *scope,
                GError     **error)
{
  StwSurface *active = stw_session_get_active_window (session);
  g_autoptr(GList) windows = NULL;

  if (active != NULL && !stw_surface_is_closed (active) && in_scope (scope, active))
    return g_object_ref (active);
  windows = stw_session_list_windows (session);
  for (GList *l = windows; l != NULL; l = l->next)
    if (!stw_surface_is_closed (l->data) && in_scope (scope, l->data))
      return g_object_ref (l->data);
  g_propagate_error (error, stw_error_new_literal ("storage.ACCESS_FAILED",
                                                   "The app has no window to reach its session's storage through"));
  return NULL;
}

/* A live frame of @session at @origin, windows first; with no @origin, the
 * active window, whose origin is put in @resolved. */
static StwSurface *
origin_surface (StwSession  *session,
                GHashTable  *scope,
                const char  *origin,
                char       **resolved,
                GError     **error)
{
  g_autoptr(GList) windows = stw_session_list_windows (session);
  g_autoptr(GList) surfaces = stw_session_list_surfaces (session);
  GError *missing;

  if (origin == NULL)
    {
      g_autoptr(StwSurface) active = cookie_surface (session, scope, error);
      g_autofree char *own = NULL;

      if (active == NULL)
        return NULL;
      own = origin_of_url (stw_surface_get_url (active));
      if (own == NULL)
        {
          missing = stw_error_new ("storage.UNSUPPORTED",
                                   "The active window's page (%s) has no http(s) origin; its storage cannot be addressed",
                                   stw_surface_get_url (active) ? stw_surface_get_url (active) : "no URL");
          stw_error_set_hint (missing, "Serve the page over http(s), or pass origin");
          g_propagate_error (error, missing);
          return NULL;
        }
      *resolved = g_steal_pointer (&own);
      return g_steal_pointer (&active);
    }
  if (!origin_is_valid (origin))
    {
      missing = stw_error_new ("storage.UNSUPPORTED", "“%s” is not an http(s) origin (scheme://host[:port])", origin);
      g_propagate_error (error, missing);
      return NULL;
    }
  for (GList *list = windows; list != NULL; list = (list == windows ? surfaces : NULL))
    for (GList *l = list; l != NULL; l = l->next)
      {
        g_autofree char *own = origin_of_url (stw_surface_get_url (l->data));

        if (own != NULL && g_str_equal (own, origin) && !stw_surface_is_closed (l->data) && in_scope (scope, l->data))
          {
            *resolved = g_strdup (origin);
            return g_object_ref (l->data);
          }
      }
  missing = stw_error_new ("storage.NOT_FOUND", "No window or frame of the app is at %s", origin);
  stw_error_set_hint (missing, "Navigate a window to the origin first (storage_state_load visits it by itself)");
  g_propagate_error (error, missing);
  return NULL;
}

/* --- partitions ------------------------------------------------------------------ */

/* Without a partition (or "" or "default") the tools address the
 * session's windows as they always did: nothing to learn. */
static gboolean
is_default_partition (const char *partition)
{
  return partition == NULL || *partition == '\0' || g_str_equal (partition, "default");
}

/* Which renderers a partition has is known only to the main process
 * (webContents.session): asking it is main-process eval, which the
 * server's policy must allow, as for the core eval tools. */
static gboolean
check_partition_eval (StwStoragePlugin  *self,
                      const char        *partition,
                      GError           **error)
{
  StwDispatcher *dispatcher = stw_plugin_get_dispatcher (STW_PLUGIN (self));
  GError *refused;

  if (dispatcher != NULL && (stw_dispatcher_get_allow_eval (dispatcher) & STW_EVAL_TARGET_MAIN) != 0)
    return TRUE;
  refused = stw_error_new ("storage.EVAL_REQUIRED",
                           "The partition “%s” can only be found by asking the app's main process, which needs "
                           "--allow-eval=main", partition);
  stw_error_set_hint (refused, dispatcher == NULL
                                 ? "Add the plugin to a dispatcher that allows main-process eval, or omit partition"
                                 : "Restart the server with --allow-eval=main, or omit partition (the default session)");
  g_propagate_error (error, refused);
  return FALSE;
}

typedef void (*ScopeReady) (GTask *task, StwSession *session, GHashTable *scope);

typedef struct
{
  GTask      *task;       /* owned */
  ScopeReady  ready;
  StwSession *session;
  char       *partition;
  GPtrArray  *surfaces;   /* the session's surfaces when asked */
} ScopeAsk;

static void
scope_ask_free (ScopeAsk *ask)
{
  g_object_unref (ask->session);
  g_free (ask->partition);
  g_ptr_array_unref (ask->surfaces);
  g_free (ask);
}

static void
scope_fail (GTask  *task,
            GError *error)
{
  g_task_return_error (task, error);
  g_object_unref (task);
}

/* The answer to _stw_plugins_partition_expression(): for each target a
 * webContents has, whether it is in the partition; a frame of its own
 * process (no webContents) is in it when the nearest surface above it
 * is. */
static void
on_scope_answer (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  ScopeAsk *ask = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) value = stw_session_evaluate_main_finish (STW_SESSION (object), result, &error);
  JsonObject *inside = _stw_plugins_partition_verdicts (value);
  g_autoptr(GHashTable) by_id = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) scope = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  if (inside == NULL)
    {
      GError *failed = stw_error_new ("storage.UNSUPPORTED",
                                      "The app's main process cannot say which windows are in the partition “%s”: %s",
                                      ask->partition, error ? error->message : "its electron module has no session API");

      stw_error_set_hint (failed, "Omit partition (the default session)");
      scope_fail (ask->task, failed);
      scope_ask_free (ask);
      return;
    }
  for (guint i = 0; i < ask->surfaces->len; i++)
    g_hash_table_insert (by_id, (gpointer) stw_surface_get_id (ask->surfaces->pdata[i]), ask->surfaces->pdata[i]);
  for (guint i = 0; i < ask->surfaces->len; i++)
    {
      StwSurface *surface = ask->surfaces->pdata[i];

      /* Up from the surface to the first one whose target is a webContents. */
      for (StwSurface *at = surface; at != NULL;)
        {
          gboolean in;
          const char *parent;

          if (_stw_plugins_partition_verdict (inside, stw_surface_get_target_id (at), &in))
            {
              if (in)
                g_hash_table_add (scope, g_strdup (stw_surface_get_id (surface)));
              break;
            }
          parent = stw_surface_get_parent_id (at);
          at = parent ? g_hash_table_lookup (by_id, parent) : NULL;
        }
    }
  if (g_hash_table_size (scope) == 0)
    {
      GError *missing = stw_error_new ("storage.NOT_FOUND",
                                       "No window or webview of the app is in the partition “%s”", ask->partition);

      stw_error_set_hint (missing, "Its storage is reached through one of its renderers: open a window with "
                                   "webPreferences.partition (or .session) first; the default session is not used "
                                   "instead");
      scope_fail (ask->task, missing);
      scope_ask_free (ask);
      return;
    }
  ask->ready (ask->task, ask->session, scope);
  scope_ask_free (ask);
}

/* Runs @ready (which then owns @task) with the surfaces of @partition:
 * at once with NULL for the default session; for any other partition
 * after asking the main process which renderers are in it. On a refusal
 * @task (taken) gets the error. */
static void
with_scope (StwStoragePlugin *self,
            StwSession       *session,
            const char       *partition,
            GTask            *task,
            ScopeReady        ready)
{
  GError *error = NULL;
  ScopeAsk *ask;
  g_autoptr(GList) surfaces = NULL;
  g_autoptr(GPtrArray) targets = g_ptr_array_new ();
  g_autofree char *expression = NULL;

  if (!check_session (session, &error))
    {
      scope_fail (task, error);
      return;
    }
  if (is_default_partition (partition))
    {
      ready (task, session, NULL);
      return;
    }
  if (!check_partition_eval (self, partition, &error))
    {
      scope_fail (task, error);
      return;
    }
  if (!stw_session_has_main_process (session))
    {
      error = stw_error_new ("storage.UNSUPPORTED", "The partition “%s” cannot be found: this session has no main "
                             "process to ask (a browser, or an app attached without its inspector)", partition);
      stw_error_set_hint (error, "Omit partition (the default session)");
      scope_fail (task, error);
      return;
    }
  ask = g_new0 (ScopeAsk, 1);
  ask->task = task;
  ask->ready = ready;
  ask->session = g_object_ref (session);
  ask->partition = g_strdup (partition);
  ask->surfaces = g_ptr_array_new_with_free_func (g_object_unref);
  surfaces = stw_session_list_surfaces (session);
  for (GList *l = surfaces; l != NULL; l = l->next)
    if (!stw_surface_is_closed (l->data))
      g_ptr_array_add (ask->surfaces, g_object_ref (l->data));
  for (guint i = 0; i < ask->surfaces->len; i++)
    if (stw_surface_get_target_id (ask->surfaces->pdata[i]) != NULL)
      g_ptr_array_add (targets, (gpointer) stw_surface_get_target_id (ask->surfaces->pdata[i]));
  expression = _stw_plugins_partition_expression (partition, targets);
  stw_session_evaluate_main_async (session, expression, g_task_get_cancellable (task), on_scope_answer, ask);
}

/* --- the agent -------------------------------------------------------------------- */

typedef void (*AgentDone) (GTask *task, JsonObject *answer, GError *error);

typedef struct
{
  GTask     *task;
  AgentDone  done;
} AgentCall;

static GError *
agent_failure (JsonObject *failure)
{
  const char *code = member_string (failure, "code");
  const char *message = member_string (failure, "message");
  g_autofree char *full = NULL;

  if (g_strcmp0 (code, "BAD_ARGUMENT") == 0)
    return stw_error_new ("BAD_ARGUMENT", "%s", message ? message : "bad argument");
  if (g_strcmp0 (code, "NOT_FOUND") != 0 && g_strcmp0 (code, "UNSUPPORTED") != 0)
    code = "ACCESS_FAILED";
  full = g_strconcat ("storage.", code, NULL);
  return stw_error_new (full, "%s", message ? message : "The page's storage could not be reached");
}

static void
on_agent_answered (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  AgentCall *call = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) value = stw_surface_call_isolated_finish (STW_SURFACE (object), result, &error);
  JsonObject *answer = value && JSON_NODE_HOLDS_OBJECT (value) ? json_node_get_object (value) : NULL;

  if (value == NULL)
    {
      GError *failed = stw_error_new ("storage.ACCESS_FAILED", "The page's storage could not be reached: %s",
                                      error->message);

      call->done (call->task, NULL, failed);
    }
  else if (answer == NULL)
    call->done (call->task, NULL, stw_error_new_literal ("storage.ACCESS_FAILED", "The storage agent gave no answer"));
  else if (json_object_has_member (answer, "__failure") &&
           JSON_NODE_HOLDS_OBJECT (json_object_get_member (answer, "__failure")))
    call->done (call->task, NULL, agent_failure (json_object_get_object_member (answer, "__failure")));
  else
    call->done (call->task, answer, NULL);
  g_free (call);
}

/* Calls the agent's @op with @argument (taken) in @surface's isolated
 * world; @done gets the answer or the error (taken). */
static void
call_agent (StwStoragePlugin *self,
            StwSurface       *surface,
            const char       *op,
            JsonObject       *argument,
            GTask            *task,
            AgentDone         done)
{
  JsonArray *arguments = json_array_new ();
  AgentCall *call = g_new0 (AgentCall, 1);

  json_object_set_int_member (argument, "maxBytes", config_int (self, "maxBytes", DEFAULT_MAX_BYTES));
  json_array_add_string_element (arguments, op);
  json_array_add_object_element (arguments, argument);
  call->task = task;
  call->done = done;
  stw_surface_call_isolated_async (surface, self->agent, arguments, g_task_get_cancellable (task),
                                   on_agent_answered, call);
  json_array_unref (arguments);
}

static void
return_answer (GTask      *task,
               JsonObject *answer,
               GError     *error)
{
  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, json_object_ref (answer), (GDestroyNotify) json_object_unref);
  g_object_unref (task);
}

typedef struct
{
  char       *origin;
  const char *op;
  JsonObject *argument;
} AgentTaskData;

static void
agent_task_data_free (AgentTaskData *data)
{
  g_free (data->origin);
  g_clear_pointer (&data->argument, json_object_unref);
  g_free (data);
}

static void
agent_task_ready (GTask      *task,
                  StwSession *session,
                  GHashTable *scope)
{
  AgentTaskData *data = g_task_get_task_data (task);
  g_autoptr(StwSurface) surface = NULL;
  g_autofree char *resolved = NULL;
  GError *error = NULL;

  if ((surface = origin_surface (session, scope, data->origin, &resolved, &error)) == NULL)
    {
      scope_fail (task, error);
      return;
    }
  call_agent (g_task_get_source_object (task), surface, data->op, g_steal_pointer (&data->argument), task,
              return_answer);
}

/* Starts an agent call on the frame of @origin (in @partition); the task
 * answers the agent's object. */
static void
agent_task (StwStoragePlugin    *self,
            StwSession          *session,
            const char          *partition,
            const char          *origin,
            const char          *op,
            JsonObject          *argument,
            gpointer             source_tag,
            GCancellable        *cancellable,
            GAsyncReadyCallback  callback,
            gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  AgentTaskData *data = g_new0 (AgentTaskData, 1);

  g_task_set_source_tag (task, source_tag);
  data->origin = g_strdup (origin);
  data->op = op;
  data->argument = argument;
  g_task_set_task_data (task, data, (GDestroyNotify) agent_task_data_free);
  with_scope (self, session, partition, task, agent_task_ready);
}

static JsonObject *
agent_task_finish (StwStoragePlugin  *self,
                   GAsyncResult      *result,
                   gpointer           source_tag,
                   GError           **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == source_tag, NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * stw_storage_plugin_web_storage_async:
 * @self: the plugin
 * @session: the app
 * @partition: (nullable): the Electron session: %NULL or `default`
 * @origin: (nullable): the origin, or %NULL for the active window's
 * @area: `localStorage` or `sessionStorage`
 * @action: `get`, `set`, `remove`, `keys`, `entries` or `clear`
 * @key: (nullable): the key of get, set and remove
 * @value: (nullable): the value of set
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when done
 * @user_data: data for @callback
 *
 * One Web Storage operation in a frame of @origin, by the plugin's agent
 * in the frame's isolated world.
 *
 * Since: 1.0
 */
void
stw_storage_plugin_web_storage_async (StwStoragePlugin    *self,
                                      StwSession          *session,
                                      const char          *partition,
                                      const char          *origin,
                                      StwStorageArea       area,
                                      const char          *action,
                                      const char          *key,
                                      const char          *value,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data)
{
  JsonObject *argument = json_object_new ();

  g_return_if_fail (STW_IS_STORAGE_PLUGIN (self));
  g_return_if_fail (action != NULL);
  json_object_set_string_member (argument, "area", area == STW_STORAGE_AREA_SESSION ? "session" : "local");
  json_object_set_string_member (argument, "action", action);
  if (key != NULL)
    json_object_set_string_member (argument, "key", key);
  if (value != NULL)
    json_object_set_string_member (argument, "value", value);
  agent_task (self, session, partition, origin, "web", argument, stw_storage_plugin_web_storage_async,
              cancellable, callback, user_data);
}

/**
 * stw_storage_plugin_web_storage_finish:
 * @self: the plugin
 * @result: the result
 * @error: where to put the error
 *
 * Returns: (transfer full): the answer, `{origin, …}` by action (open:
 *   the page's keys and values)
 *
 * Since: 1.0
 */
JsonObject *
stw_storage_plugin_web_storage_finish (StwStoragePlugin  *self,
                                       GAsyncResult      *result,
                                       GError           **error)
{
  return agent_task_finish (self, result, stw_storage_plugin_web_storage_async, error);
}

/**
 * stw_storage_plugin_indexed_db_async:
 * @self: the plugin
 * @session: the app
 * @partition: (nullable): the Electron session: %NULL or `default`
 * @origin: (nullable): the origin, or %NULL for the active window's
 * @action: `schema`, `get`, `keys`, `count`, `set`, `delete` or `clear`
 * @parameters: (nullable): `db`, `store`, `key`/`keyEncoded`,
 *   `value`/`valueEncoded` and `limit`, by action
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when done
 * @user_data: data for @callback
 *
 * One IndexedDB operation in a frame of @origin, by the plugin's agent in
 * the frame's isolated world. Keys and values are plain JSON or
 * Playwright's encoding (`keyEncoded`, `valueEncoded`).
 *
 * Since: 1.0
 */
void
stw_storage_plugin_indexed_db_async (StwStoragePlugin    *self,
                                     StwSession          *session,
                                     const char          *partition,
                                     const char          *origin,
                                     const char          *action,
                                     JsonObject          *parameters,
                                     GCancellable        *cancellable,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data)
{
  JsonObject *argument = json_object_new ();
  static const char * const members[] = { "db", "store", "key", "keyEncoded", "value", "valueEncoded", "limit", NULL };

  g_return_if_fail (STW_IS_STORAGE_PLUGIN (self));
  g_return_if_fail (action != NULL);
  json_object_set_string_member (argument, "action", action);
  for (guint i = 0; parameters != NULL && members[i] != NULL; i++)
    if (json_object_has_member (parameters, members[i]))
      json_object_set_member (argument, members[i], json_node_copy (json_object_get_member (parameters, members[i])));
  agent_task (self, session, partition, origin, "idb", argument, stw_storage_plugin_indexed_db_async,
              cancellable, callback, user_data);
}

/**
 * stw_storage_plugin_indexed_db_finish:
 * @self: the plugin
 * @result: the result
 * @error: where to put the error
 *
 * Returns: (transfer full): the answer (open: the page's records)
 *
 * Since: 1.0
 */
JsonObject *
stw_storage_plugin_indexed_db_finish (StwStoragePlugin  *self,
                                      GAsyncResult      *result,
                                      GError           **error)
{
  return agent_task_finish (self, result, stw_storage_plugin_indexed_db_async, error);
}

/* --- cookies over CDP ------------------------------------------------------------------ */

typedef void (*CookieStart) (GTask *task);

typedef struct
{
  CookieStart  start;
  StwSurface  *surface;
  char       **urls;
  char        *name;
  char        *domain;
  GPtrArray   *cookies;
  guint        pending;
  gint64       count;
} CookieData;

static void
cookie_data_free (CookieData *data)
{
  g_clear_object (&data->surface);
  g_strfreev (data->urls);
  g_free (data->name);
  g_free (data->domain);
  g_clear_pointer (&data->cookies, g_ptr_array_unref);
  g_free (data);
}

static GTask *
cookie_task (StwStoragePlugin     *self,
             gpointer              source_tag,
             GCancellable         *cancellable,
             GAsyncReadyCallback   callback,
             gpointer              user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, source_tag);
  g_task_set_task_data (task, g_new0 (CookieData, 1), (GDestroyNotify) cookie_data_free);
  return task;
}

static void
cookie_task_ready (GTask      *task,
                   StwSession *session,
                   GHashTable *scope)
{
  CookieData *data = g_task_get_task_data (task);
  GError *error = NULL;

  if ((data->surface = cookie_surface (session, scope, &error)) == NULL)
    {
      scope_fail (task, error);
      return;
    }
  data->start (task);
}

/* Runs @start once a window of @partition is found to send CDP through:
 * its browser context is the partition's (Electron's session). */
static void
cookie_task_run (GTask       *task,
                 StwSession  *session,
                 const char  *partition,
                 CookieStart  start)
{
  CookieData *data = g_task_get_task_data (task);

  data->start = start;
  with_scope (g_task_get_source_object (task), session, partition, task, cookie_task_ready);
}

/* The session's cookies from a Network.getAllCookies reply. */
static GPtrArray *
cookies_of_reply (JsonObject *reply)
{
  GPtrArray *cookies = g_ptr_array_new_with_free_func ((GDestroyNotify) stw_storage_cookie_free);
  JsonArray *list = NULL;

  if (reply != NULL && json_object_has_member (reply, "cookies") &&
      JSON_NODE_HOLDS_ARRAY (json_object_get_member (reply, "cookies")))
    list = json_object_get_array_member (reply, "cookies");
  for (guint i = 0; list != NULL && i < json_array_get_length (list) && i < MAX_COOKIES * 10; i++)
    {
      JsonNode *node = json_array_get_element (list, i);
      StwStorageCookie *cookie = JSON_NODE_HOLDS_OBJECT (node) ? cookie_from_cdp (json_node_get_object (node)) : NULL;

      if (cookie != NULL)
        g_ptr_array_add (cookies, cookie);
    }
  return cookies;
}

static GError *
cdp_failed (const char *what,
            GError     *error)
{
  GError *failed = stw_error_new ("storage.ACCESS_FAILED", "%s failed: %s", what, error->message);

  g_error_free (error);
  return failed;
}

static void
on_all_cookies (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  GTask *task = user_data;
  CookieData *data = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(JsonObject) reply = stw_surface_send_cdp_finish (STW_SURFACE (object), result, &error);
  g_autoptr(GPtrArray) all = NULL;
  GPtrArray *kept;

  if (reply == NULL)
    {
      g_task_return_error (task, cdp_failed ("Network.getAllCookies", error));
      g_object_unref (task);
      return;
    }
  all = cookies_of_reply (reply);
  kept = g_ptr_array_new_with_free_func ((GDestroyNotify) stw_storage_cookie_free);
  for (guint i = 0; i < all->len; i++)
    {
      StwStorageCookie *cookie = g_ptr_array_index (all, i);
      gboolean keep = data->urls == NULL || data->urls[0] == NULL;

      for (guint j = 0; !keep && data->urls[j] != NULL; j++)
        keep = stw_storage_cookie_matches_url (cookie, data->urls[j]);
      if (keep)
        g_ptr_array_add (kept, stw_storage_cookie_copy (cookie));
    }
  g_task_return_pointer (task, kept, (GDestroyNotify) g_ptr_array_unref);
  g_object_unref (task);
}

static void
get_cookies_start (GTask *task)
{
  CookieData *data = g_task_get_task_data (task);

  stw_surface_send_cdp_async (data->surface, "Network.getAllCookies", NULL, g_task_get_cancellable (task),
                              on_all_cookies, task);
}

/**
 * stw_storage_plugin_get_cookies_async:
 * @self: the plugin
 * @session: the app
 * @partition: (nullable): the Electron session: %NULL or `default`
 * @urls: (nullable) (array zero-terminated=1): only the cookies these URLs
 *   would carry (Playwright's rule); %NULL for all
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when done
 * @user_data: data for @callback
 *
 * The session's cookies (CDP `Network.getAllCookies` on a window).
 *
 * Since: 1.0
 */
void
stw_storage_plugin_get_cookies_async (StwStoragePlugin    *self,
                                      StwSession          *session,
                                      const char          *partition,
                                      const char * const  *urls,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data)
{
  GTask *task = cookie_task (self, stw_storage_plugin_get_cookies_async, cancellable, callback, user_data);
  CookieData *data = g_task_get_task_data (task);

  data->urls = g_strdupv ((char **) urls);
  cookie_task_run (task, session, partition, get_cookies_start);
}

/**
 * stw_storage_plugin_get_cookies_finish:
 * @self: the plugin
 * @result: the result
 * @error: where to put the error
 *
 * Returns: (transfer container) (element-type StwStorageCookie): the cookies
 *
 * Since: 1.0
 */
GPtrArray *
stw_storage_plugin_get_cookies_finish (StwStoragePlugin  *self,
                                       GAsyncResult      *result,
                                       GError           **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
on_cookies_set (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  GTask *task = user_data;
  GError *error = NULL;
  g_autoptr(JsonObject) reply = stw_surface_send_cdp_finish (STW_SURFACE (object), result, &error);

  if (reply == NULL)
    g_task_return_error (task, cdp_failed ("Network.setCookies", error));
  else
    g_task_return_boolean (task, TRUE);
  g_object_unref (task);
}

static GError *
check_cookie_domains (StwStoragePlugin *self,
                      GPtrArray        *cookies)
{
  JsonObject *config = stw_plugin_get_config (STW_PLUGIN (self));
  JsonArray *allowed = config && json_object_has_member (config, "cookieDomains")
                       ? json_object_get_array_member (config, "cookieDomains") : NULL;

  for (guint i = 0; allowed != NULL && i < cookies->len; i++)
    {
      StwStorageCookie *cookie = g_ptr_array_index (cookies, i);
      const char *host = cookie->domain[0] == '.' ? cookie->domain + 1 : cookie->domain;
      gboolean ok = FALSE;
      GError *refused;
      g_autoptr(JsonObject) details = NULL;

      for (guint j = 0; !ok && j < json_array_get_length (allowed); j++)
        ok = g_pattern_match_simple (json_array_get_string_element (allowed, j), host);
      if (ok)
        continue;
      refused = stw_error_new ("storage.NOT_ALLOWED",
                               "The cookie “%s” is for %s, which the storage plugin's cookieDomains does not allow; "
                               "nothing was applied", cookie->name, cookie->domain);
      details = json_object_new ();
      json_object_set_string_member (details, "domain", cookie->domain);
      stw_error_set_details (refused, details);
      stw_error_set_hint (refused, "Add the domain (or a glob) to --plugin-config 'storage={\"cookieDomains\":[…]}'");
      return refused;
    }
  return NULL;
}

static void
set_cookies_start (GTask *task)
{
  CookieData *data = g_task_get_task_data (task);
  g_autoptr(JsonObject) params = NULL;
  JsonArray *list;
  GError *refused = check_cookie_domains (g_task_get_source_object (task), data->cookies);

  if (refused != NULL)
    {
      g_task_return_error (task, refused);
      g_object_unref (task);
      return;
    }
  params = json_object_new ();
  list = json_array_new ();
  for (guint i = 0; i < data->cookies->len; i++)
    json_array_add_object_element (list, cookie_to_cdp (g_ptr_array_index (data->cookies, i)));
  json_object_set_array_member (params, "cookies", list);
  stw_surface_send_cdp_async (data->surface, "Network.setCookies", params, g_task_get_cancellable (task),
                              on_cookies_set, task);
}

/**
 * stw_storage_plugin_set_cookies_async:
 * @self: the plugin
 * @session: the app
 * @partition: (nullable): the Electron session: %NULL or `default`
 * @cookies: (element-type StwStorageCookie): the cookies
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when done
 * @user_data: data for @callback
 *
 * Sets cookies in the session (CDP `Network.setCookies`), each checked
 * against the config's `cookieDomains` first (`storage.NOT_ALLOWED`).
 *
 * Since: 1.0
 */
void
stw_storage_plugin_set_cookies_async (StwStoragePlugin    *self,
                                      StwSession          *session,
                                      const char          *partition,
                                      GPtrArray           *cookies,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data)
{
  GTask *task = cookie_task (self, stw_storage_plugin_set_cookies_async, cancellable, callback, user_data);
  CookieData *data = g_task_get_task_data (task);

  data->cookies = g_ptr_array_ref (cookies);
  cookie_task_run (task, session, partition, set_cookies_start);
}

/**
 * stw_storage_plugin_set_cookies_finish:
 * @self: the plugin
 * @result: the result
 * @error: where to put the error
 *
 * Returns: whether they were set
 *
 * Since: 1.0
 */
gboolean
stw_storage_plugin_set_cookies_finish (StwStoragePlugin  *self,
                                       GAsyncResult      *result,
                                       GError           **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
on_cookie_deleted (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  GTask *task = user_data;
  CookieData *data = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(JsonObject) reply = stw_surface_send_cdp_finish (STW_SURFACE (object), result, &error);

  if (reply == NULL && !g_task_had_error (task))
    g_task_return_error (task, cdp_failed ("Network.deleteCookies", error));
  else
    g_clear_error (&error);
  if (--data->pending == 0 && !g_task_had_error (task))
    g_task_return_int (task, data->count);
  g_object_unref (task);
}

static void
on_cookies_to_clear (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  GTask *task = user_data;
  CookieData *data = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(JsonObject) reply = stw_surface_send_cdp_finish (STW_SURFACE (object), result, &error);
  g_autoptr(GPtrArray) all = NULL;

  if (reply == NULL)
    {
      g_task_return_error (task, cdp_failed ("Network.getAllCookies", error));
      g_object_unref (task);
      return;
    }
  all = cookies_of_reply (reply);
  data->pending = 1;
  for (guint i = 0; i < all->len; i++)
    {
      StwStorageCookie *cookie = g_ptr_array_index (all, i);
      g_autoptr(JsonObject) params = NULL;
      const char *bare = cookie->domain[0] == '.' ? cookie->domain + 1 : cookie->domain;
      const char *wanted = data->domain && data->domain[0] == '.' ? data->domain + 1 : data->domain;

      if ((data->name != NULL && !g_str_equal (data->name, cookie->name)) ||
          (wanted != NULL && g_ascii_strcasecmp (wanted, bare) != 0))
        continue;
      params = json_object_new ();
      json_object_set_string_member (params, "name", cookie->name);
      json_object_set_string_member (params, "domain", cookie->domain);
      json_object_set_string_member (params, "path", cookie->path);
      data->pending++;
      data->count++;
      stw_surface_send_cdp_async (data->surface, "Network.deleteCookies", params, g_task_get_cancellable (task),
                                  on_cookie_deleted, g_object_ref (task));
    }
  if (--data->pending == 0)
    g_task_return_int (task, data->count);
  g_object_unref (task);
}

static void
clear_cookies_start (GTask *task)
{
  CookieData *data = g_task_get_task_data (task);

  stw_surface_send_cdp_async (data->surface, "Network.getAllCookies", NULL, g_task_get_cancellable (task),
                              on_cookies_to_clear, task);
}

/**
 * stw_storage_plugin_clear_cookies_async:
 * @self: the plugin
 * @session: the app
 * @partition: (nullable): the Electron session: %NULL or `default`
 * @name: (nullable): only cookies of this name
 * @domain: (nullable): only cookies of this domain (a leading dot ignored)
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when done
 * @user_data: data for @callback
 *
 * Deletes the session's cookies, or those of @name and @domain.
 *
 * Since: 1.0
 */
void
stw_storage_plugin_clear_cookies_async (StwStoragePlugin    *self,
                                        StwSession          *session,
                                        const char          *partition,
                                        const char          *name,
                                        const char          *domain,
                                        GCancellable        *cancellable,
                                        GAsyncReadyCallback  callback,
                                        gpointer             user_data)
{
  GTask *task = cookie_task (self, stw_storage_plugin_clear_cookies_async, cancellable, callback, user_data);
  CookieData *data = g_task_get_task_data (task);

  data->name = g_strdup (name);
  data->domain = g_strdup (domain);
  cookie_task_run (task, session, partition, clear_cookies_start);
}

/**
 * stw_storage_plugin_clear_cookies_finish:
 * @self: the plugin
 * @result: the result
 * @error: where to put the error
 *
 * Returns: how many cookies were deleted, or -1
 *
 * Since: 1.0
 */
gint64
stw_storage_plugin_clear_cookies_finish (StwStoragePlugin  *self,
                                         GAsyncResult      *result,
                                         GError           **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), -1);
  return g_task_propagate_int (G_TASK (result), error);
}

/* --- origins of the app ------------------------------------------------------------ */

/* One live frame per http(s) origin of @session, windows first; other
 * origins' URLs go to @skipped when given. */
static void
list_origins (StwSession *session,
              GHashTable *scope,
              GPtrArray  *origins,
              GPtrArray  *surfaces,
              GPtrArray  *skipped)
{
  g_autoptr(GList) windows = stw_session_list_windows (session);
  g_autoptr(GList) all = stw_session_list_surfaces (session);

  for (GList *list = windows; list != NULL; list = (list == windows ? all : NULL))
    for (GList *l = list; l != NULL; l = l->next)
      {
        const char *url = stw_surface_get_url (l->data);
        g_autofree char *origin = origin_of_url (url);

        if (stw_surface_is_closed (l->data) || !in_scope (scope, l->data))
          continue;
        if (origin == NULL)
          {
            if (skipped != NULL && url != NULL && !g_ptr_array_find_with_equal_func (skipped, url, g_str_equal, NULL))
              g_ptr_array_add (skipped, g_strdup (url));
            continue;
          }
        if (g_ptr_array_find_with_equal_func (origins, origin, g_str_equal, NULL))
          continue;
        g_ptr_array_add (origins, g_steal_pointer (&origin));
        g_ptr_array_add (surfaces, g_object_ref (l->data));
      }
}

/* --- saving a state --------------------------------------------------------------- */

typedef struct
{
  StwSession      *session;
  char            *partition;
  gboolean         indexed_db;
  StwStorageState *state;
  GPtrArray       *origins;    /* char* */
  GPtrArray       *surfaces;   /* StwSurface, one per origin */
  guint            next;
} SaveData;

static void
save_data_free (SaveData *data)
{
  g_clear_object (&data->session);
  g_free (data->partition);
  g_clear_object (&data->state);
  g_ptr_array_unref (data->origins);
  g_ptr_array_unref (data->surfaces);
  g_free (data);
}

static void save_next_origin (GTask *task);

static void
on_origin_collected (GTask      *task,
                     JsonObject *answer,
                     GError     *error)
{
  SaveData *data = g_task_get_task_data (task);
  const char *expected = g_ptr_array_index (data->origins, data->next);
  g_autoptr(StwStorageState) scratch = stw_storage_state_new ();
  g_autoptr(JsonObject) root = json_object_new ();
  JsonArray *one = json_array_new ();
  GError *invalid = NULL;

  if (error != NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  /* The page's data, checked as a loaded state is, and from the origin
   * it was asked of (the frame may have navigated meanwhile). */
  json_array_add_object_element (one, json_object_ref (answer));
  json_object_set_array_member (root, "origins", one);
  if (g_strcmp0 (member_string (answer, "origin"), expected) != 0 ||
      !state_take_root (scratch, root, &invalid))
    {
      GError *failed = stw_error_new ("storage.ACCESS_FAILED", "The storage of %s came back malformed: %s",
                                      expected, invalid ? invalid->message : "another origin answered");

      g_clear_error (&invalid);
      g_task_return_error (task, failed);
      g_object_unref (task);
      return;
    }
  {
    JsonObject *origin = json_array_get_object_element (scratch->origins, 0);
    gboolean has_local = json_array_get_length (json_object_get_array_member (origin, "localStorage")) > 0;
    gboolean has_db = json_object_has_member (origin, "indexedDB") &&
                      json_array_get_length (json_object_get_array_member (origin, "indexedDB")) > 0;

    /* Playwright writes only origins that hold something. */
    if (has_local || has_db)
      json_array_add_object_element (data->state->origins, json_object_ref (origin));
  }
  data->next++;
  save_next_origin (task);
}

static void
save_next_origin (GTask *task)
{
  SaveData *data = g_task_get_task_data (task);
  StwStoragePlugin *self = g_task_get_source_object (task);
  JsonObject *argument;

  if (data->next >= data->origins->len)
    {
      g_task_return_pointer (task, g_object_ref (data->state), g_object_unref);
      g_object_unref (task);
      return;
    }
  argument = json_object_new ();
  json_object_set_boolean_member (argument, "indexedDB", data->indexed_db);
  call_agent (self, g_ptr_array_index (data->surfaces, data->next), "collect", argument, task, on_origin_collected);
}

static void
on_save_cookies (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  GTask *task = user_data;
  SaveData *data = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(GPtrArray) cookies = stw_storage_plugin_get_cookies_finish (STW_STORAGE_PLUGIN (object), result, &error);

  if (cookies == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  for (guint i = 0; i < cookies->len; i++)
    g_ptr_array_add (data->state->cookies, stw_storage_cookie_copy (g_ptr_array_index (cookies, i)));
  save_next_origin (task);
}

static void
save_state_ready (GTask      *task,
                  StwSession *session,
                  GHashTable *scope)
{
  SaveData *data = g_task_get_task_data (task);

  data->session = g_object_ref (session);
  list_origins (session, scope, data->origins, data->surfaces, NULL);
  stw_storage_plugin_get_cookies_async (g_task_get_source_object (task), session, data->partition, NULL,
                                        g_task_get_cancellable (task), on_save_cookies, task);
}

/**
 * stw_storage_plugin_save_state_async:
 * @self: the plugin
 * @session: the app
 * @partition: (nullable): the Electron session: %NULL or `default`
 * @indexed_db: whether IndexedDB goes in too
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when done
 * @user_data: data for @callback
 *
 * The session's storage state as Playwright's `storageState()` takes it:
 * every cookie, and for each http(s) origin with a live frame its
 * `localStorage` (and IndexedDB with @indexed_db). Other origins
 * (`file://`, custom schemes) are not saved, as Playwright saves none.
 *
 * Since: 1.0
 */
void
stw_storage_plugin_save_state_async (StwStoragePlugin    *self,
                                     StwSession          *session,
                                     const char          *partition,
                                     gboolean             indexed_db,
                                     GCancellable        *cancellable,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  SaveData *data = g_new0 (SaveData, 1);

  g_task_set_source_tag (task, stw_storage_plugin_save_state_async);
  data->indexed_db = indexed_db;
  data->state = stw_storage_state_new ();
  data->origins = g_ptr_array_new_with_free_func (g_free);
  data->surfaces = g_ptr_array_new_with_free_func (g_object_unref);
  data->partition = g_strdup (partition);
  g_task_set_task_data (task, data, (GDestroyNotify) save_data_free);
  with_scope (self, session, partition, task, save_state_ready);
}

/**
 * stw_storage_plugin_save_state_finish:
 * @self: the plugin
 * @result: the result
 * @error: where to put the error
 *
 * Returns: (transfer full): the state
 *
 * Since: 1.0
 */
StwStorageState *
stw_storage_plugin_save_state_finish (StwStoragePlugin  *self,
                                      GAsyncResult      *result,
                                      GError           **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* --- loading a state ---------------------------------------------------------------- */

typedef struct
{
  StwSession         *session;
  StwStorageState    *state;
  gboolean            reload;
  StwSurface         *window;        /* cookies, and the scratch visits */
  StwSurface         *target;        /* the frame the current origin is restored in */
  char               *return_url;    /* the window's page before a scratch visit */
  StwCdpSubscription *paused;
  gulong              paused_handler;
  guint               next;
  guint               tries;
  JsonArray          *report;
  GPtrArray          *reload_surfaces;
  char               *partition;
  GHashTable         *scope;         /* the partition's surface ids, or NULL */
} LoadData;

static void
load_data_free (LoadData *data)
{
  if (data->paused != NULL)
    {
      g_signal_handler_disconnect (data->paused, data->paused_handler);
      stw_cdp_subscription_cancel (data->paused);
      g_object_unref (data->paused);
    }
  g_clear_object (&data->session);
  g_clear_object (&data->state);
  g_clear_object (&data->window);
  g_clear_object (&data->target);
  g_free (data->return_url);
  json_array_unref (data->report);
  g_ptr_array_unref (data->reload_surfaces);
  g_free (data->partition);
  g_clear_pointer (&data->scope, g_hash_table_unref);
  g_free (data);
}

static void load_next_origin (GTask *task);

static void
load_fail (GTask  *task,
           GError *error)
{
  LoadData *data = g_task_get_task_data (task);

  /* Leave the window where it was, as far as we can. */
  if (data->return_url != NULL)
    {
      g_autoptr(JsonObject) params = json_object_new ();

      stw_surface_send_cdp_async (data->window, "Fetch.disable", NULL, NULL, NULL, NULL);
      json_object_set_string_member (params, "url", data->return_url);
      stw_surface_send_cdp_async (data->window, "Page.navigate", params, NULL, NULL, NULL);
    }
  g_prefix_error (&error, "Error setting storage state: ");
  g_task_return_error (task, error);
  g_object_unref (task);
}

static void
on_origin_restored (GTask      *task,
                    JsonObject *answer,
                    GError     *error)
{
  LoadData *data = g_task_get_task_data (task);
  JsonObject *entry;

  if (error != NULL)
    {
      load_fail (task, error);
      return;
    }
  entry = json_object_new ();
  json_object_set_string_member (entry, "origin",
                                 json_object_get_string_member (json_array_get_object_element (data->state->origins, data->next), "origin"));
  json_object_set_int_member (entry, "localStorage", json_object_get_int_member_with_default (answer, "localStorage", 0));
  json_object_set_int_member (entry, "indexedDB", json_object_get_int_member_with_default (answer, "indexedDB", 0));
  json_object_set_int_member (entry, "records", json_object_get_int_member_with_default (answer, "records", 0));
  json_object_set_string_member (entry, "via", data->target == data->window && data->return_url != NULL ? "visit" : "frame");
  json_array_add_object_element (data->report, entry);
  data->next++;
  load_next_origin (task);
}

static void
restore_in_target (GTask *task)
{
  LoadData *data = g_task_get_task_data (task);
  JsonObject *argument = json_object_new ();

  json_object_set_object_member (argument, "state",
                                 json_object_ref (json_array_get_object_element (data->state->origins, data->next)));
  call_agent (g_task_get_source_object (task), data->target, "restore", argument, task, on_origin_restored);
}

static gboolean retry_visit (gpointer user_data);

/* The visited page answers from the origin once its document is there. */
static void
on_visit_checked (GTask      *task,
                  JsonObject *answer,
                  GError     *error)
{
  LoadData *data = g_task_get_task_data (task);
  const char *origin = json_object_get_string_member (json_array_get_object_element (data->state->origins, data->next),
                                                      "origin");

  if (answer != NULL && g_strcmp0 (member_string (answer, "origin"), origin) == 0)
    {
      restore_in_target (task);
      return;
    }
  if (++data->tries > 100)
    {
      GError *failed = stw_error_new ("storage.ACCESS_FAILED", "Could not visit %s to restore its storage%s%s",
                                      origin, error ? ": " : "", error ? error->message : "");

      g_clear_error (&error);
      load_fail (task, failed);
      return;
    }
  g_clear_error (&error);
  g_timeout_add (50, retry_visit, task);
}

static gboolean
retry_visit (gpointer user_data)
{
  GTask *task = user_data;
  LoadData *data = g_task_get_task_data (task);

  call_agent (g_task_get_source_object (task), data->target, "origin", json_object_new (), task, on_visit_checked);
  return G_SOURCE_REMOVE;
}

static void
on_visit_navigated (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  GTask *task = user_data;
  GError *error = NULL;
  g_autoptr(JsonObject) reply = stw_surface_send_cdp_finish (STW_SURFACE (object), result, &error);

  if (reply == NULL)
    {
      load_fail (task, cdp_failed ("Page.navigate", error));
      return;
    }
  if (member_string (reply, "errorText") != NULL)
    {
      load_fail (task, stw_error_new ("storage.ACCESS_FAILED", "Could not visit the origin: %s",
                                      member_string (reply, "errorText")));
      return;
    }
  retry_visit (task);
}

/* Every request of the window during a visit gets an empty page, as
 * Playwright's storage-state visits do: the app's server is never asked. */
static void
on_request_paused (StwCdpSubscription *subscription,
                   const char         *method,
                   JsonObject         *params,
                   gpointer            user_data)
{
  LoadData *data = user_data;
  const char *id = member_string (params, "requestId");
  g_autoptr(JsonObject) reply = NULL;
  JsonArray *headers;
  JsonObject *header;
  g_autofree char *body = g_base64_encode ((const guchar *) "<html></html>", 13);

  if (id == NULL)
    return;
  reply = json_object_new ();
  headers = json_array_new ();
  header = json_object_new ();
  json_object_set_string_member (header, "name", "Content-Type");
  json_object_set_string_member (header, "value", "text/html");
  json_array_add_object_element (headers, header);
  json_object_set_string_member (reply, "requestId", id);
  json_object_set_int_member (reply, "responseCode", 200);
  json_object_set_array_member (reply, "responseHeaders", headers);
  json_object_set_string_member (reply, "body", body);
  stw_surface_send_cdp_async (data->window, "Fetch.fulfillRequest", reply, NULL, NULL, NULL);
}

static void
visit (GTask      *task,
       const char *origin)
{
  LoadData *data = g_task_get_task_data (task);
  g_autoptr(JsonObject) params = json_object_new ();
  g_autofree char *url = g_strconcat (origin, "/", NULL);

  if (data->return_url == NULL)
    {
      g_autoptr(JsonObject) fetch = json_object_new ();
      JsonArray *patterns = json_array_new ();
      JsonObject *pattern = json_object_new ();

      data->return_url = g_strdup (stw_surface_get_url (data->window) ? stw_surface_get_url (data->window) : "about:blank");
      data->paused = stw_surface_subscribe_cdp (data->window, "Fetch.requestPaused");
      data->paused_handler = g_signal_connect (data->paused, "event", G_CALLBACK (on_request_paused), data);
      json_object_set_string_member (pattern, "urlPattern", "*");
      json_object_set_string_member (pattern, "requestStage", "Request");
      json_array_add_object_element (patterns, pattern);
      json_object_set_array_member (fetch, "patterns", patterns);
      stw_surface_send_cdp_async (data->window, "Fetch.enable", fetch, NULL, NULL, NULL);
    }
  g_set_object (&data->target, data->window);
  data->tries = 0;
  json_object_set_string_member (params, "url", url);
  stw_surface_send_cdp_async (data->window, "Page.navigate", params, g_task_get_cancellable (task),
                              on_visit_navigated, task);
}

static void
load_finish (GTask *task)
{
  LoadData *data = g_task_get_task_data (task);
  JsonObject *answer = json_object_new ();
  guint reloaded = 0;

  if (data->return_url != NULL)
    {
      g_autoptr(JsonObject) params = json_object_new ();

      g_signal_handler_disconnect (data->paused, data->paused_handler);
      data->paused_handler = 0;
      g_clear_object (&data->paused);
      stw_surface_send_cdp_async (data->window, "Fetch.disable", NULL, NULL, NULL, NULL);
      json_object_set_string_member (params, "url", data->return_url);
      stw_surface_send_cdp_async (data->window, "Page.navigate", params, NULL, NULL, NULL);
    }
  for (guint i = 0; data->reload && i < data->reload_surfaces->len; i++)
    {
      StwSurface *surface = g_ptr_array_index (data->reload_surfaces, i);

      if (surface == data->window && data->return_url != NULL)
        continue;
      stw_surface_send_cdp_async (surface, "Page.reload", NULL, NULL, NULL, NULL);
      reloaded++;
    }
  json_object_set_string_member (answer, "session", is_default_partition (data->partition) ? "default"
                                                                                          : data->partition);
  json_object_set_int_member (answer, "cookies", data->state->cookies->len);
  json_object_set_array_member (answer, "origins", json_array_ref (data->report));
  json_object_set_int_member (answer, "reloaded", reloaded + (data->return_url != NULL ? 1 : 0));
  g_task_return_pointer (task, answer, (GDestroyNotify) json_object_unref);
  g_object_unref (task);
}

static void
load_next_origin (GTask *task)
{
  LoadData *data = g_task_get_task_data (task);
  const char *origin;
  g_autoptr(StwSurface) frame = NULL;
  g_autofree char *resolved = NULL;

  if (data->next >= json_array_get_length (data->state->origins))
    {
      load_finish (task);
      return;
    }
  origin = json_object_get_string_member (json_array_get_object_element (data->state->origins, data->next), "origin");
  /* A frame of the origin that is not the window being used for visits. */
  if (data->return_url == NULL || g_strcmp0 (origin, data->return_url) != 0)
    frame = origin_surface (data->session, data->scope, origin, &resolved, NULL);
  if (frame != NULL && !(frame == data->window && data->return_url != NULL))
    {
      g_set_object (&data->target, frame);
      if (stw_surface_get_kind (frame) == STW_SURFACE_KIND_WINDOW &&
          !g_ptr_array_find (data->reload_surfaces, frame, NULL))
        g_ptr_array_add (data->reload_surfaces, g_object_ref (frame));
      restore_in_target (task);
      return;
    }
  visit (task, origin);
}

static void
on_load_cookies_set (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  GTask *task = user_data;
  GError *error = NULL;

  if (!stw_storage_plugin_set_cookies_finish (STW_STORAGE_PLUGIN (object), result, &error))
    {
      load_fail (task, error);
      return;
    }
  load_next_origin (task);
}

static void
on_load_cookies_cleared (GObject      *object,
                         GAsyncResult *result,
                         gpointer      user_data)
{
  GTask *task = user_data;
  LoadData *data = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(JsonObject) reply = stw_surface_send_cdp_finish (STW_SURFACE (object), result, &error);

  if (reply == NULL)
    {
      load_fail (task, cdp_failed ("Network.clearBrowserCookies", error));
      return;
    }
  if (data->state->cookies->len == 0)
    {
      load_next_origin (task);
      return;
    }
  stw_storage_plugin_set_cookies_async (g_task_get_source_object (task), data->session, data->partition,
                                        data->state->cookies,
                                        g_task_get_cancellable (task), on_load_cookies_set, task);
}

static void
load_state_ready (GTask      *task,
                  StwSession *session,
                  GHashTable *scope)
{
  LoadData *data = g_task_get_task_data (task);
  GError *error = NULL;

  if ((data->window = cookie_surface (session, scope, &error)) == NULL ||
      (error = check_cookie_domains (g_task_get_source_object (task), data->state->cookies)) != NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  data->scope = scope ? g_hash_table_ref (scope) : NULL;
  data->session = g_object_ref (session);
  stw_surface_send_cdp_async (data->window, "Network.clearBrowserCookies", NULL, g_task_get_cancellable (task),
                              on_load_cookies_cleared, task);
}

/**
 * stw_storage_plugin_load_state_async:
 * @self: the plugin
 * @session: the app
 * @partition: (nullable): the Electron session: %NULL or `default`
 * @state: the state (see [ctor@StagewrightStorage.StorageState.new_from_data])
 * @reload: whether the windows whose origin was restored in place reload
 *   (apps read their storage when they start)
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when done
 * @user_data: data for @callback
 *
 * Applies @state as Playwright's `setStorageState` does: the session's
 * cookies are replaced by the state's; each origin's IndexedDB, session
 * and local storage are cleared and then restored, by the plugin's agent
 * in the isolated world of a frame of that origin — a live one, or the
 * active window sent there for the time of it (every request of that
 * visit answered with an empty page, then the window goes back).
 *
 * Since: 1.0
 */
void
stw_storage_plugin_load_state_async (StwStoragePlugin    *self,
                                     StwSession          *session,
                                     const char          *partition,
                                     StwStorageState     *state,
                                     gboolean             reload,
                                     GCancellable        *cancellable,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  LoadData *data = g_new0 (LoadData, 1);

  g_return_if_fail (STW_IS_STORAGE_STATE (state));
  g_task_set_source_tag (task, stw_storage_plugin_load_state_async);
  data->state = g_object_ref (state);
  data->reload = reload;
  data->report = json_array_new ();
  data->reload_surfaces = g_ptr_array_new_with_free_func (g_object_unref);
  data->partition = g_strdup (partition);
  g_task_set_task_data (task, data, (GDestroyNotify) load_data_free);
  with_scope (self, session, partition, task, load_state_ready);
}

/**
 * stw_storage_plugin_load_state_finish:
 * @self: the plugin
 * @result: the result
 * @error: where to put the error
 *
 * Returns: (transfer full): `{session, cookies, origins[{origin,
 *   localStorage, indexedDB, records, via}], reloaded}`
 *
 * Since: 1.0
 */
JsonObject *
stw_storage_plugin_load_state_finish (StwStoragePlugin  *self,
                                      GAsyncResult      *result,
                                      GError           **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* --- the snapshot ---------------------------------------------------------------- */

typedef struct
{
  GPtrArray  *origins;
  GPtrArray  *surfaces;
  GPtrArray  *skipped;
  JsonArray  *report;
  guint       next;
  gint64      cookies;
  char       *partition;
} SnapshotData;

static void
snapshot_data_free (SnapshotData *data)
{
  g_ptr_array_unref (data->origins);
  g_ptr_array_unref (data->surfaces);
  g_ptr_array_unref (data->skipped);
  g_free (data->partition);
  json_array_unref (data->report);
  g_free (data);
}

static void snapshot_next (GTask *task);

static void
on_origin_snapshot (GTask      *task,
                    JsonObject *answer,
                    GError     *error)
{
  SnapshotData *data = g_task_get_task_data (task);
  JsonObject *entry = json_object_new ();
  static const char * const members[] = { "localStorage", "sessionStorage", "indexedDB", "usageBytes", NULL };

  json_object_set_string_member (entry, "origin", g_ptr_array_index (data->origins, data->next));
  if (error != NULL)
    {
      json_object_set_string_member (entry, "error", error->message);
      g_error_free (error);
    }
  else
    for (guint i = 0; members[i] != NULL; i++)
      if (json_object_has_member (answer, members[i]))
        json_object_set_member (entry, members[i], json_node_copy (json_object_get_member (answer, members[i])));
  json_array_add_object_element (data->report, entry);
  data->next++;
  snapshot_next (task);
}

static void
snapshot_next (GTask *task)
{
  SnapshotData *data = g_task_get_task_data (task);
  JsonObject *answer;
  JsonArray *skipped;

  if (data->next < data->origins->len)
    {
      call_agent (g_task_get_source_object (task), g_ptr_array_index (data->surfaces, data->next), "snapshot",
                  json_object_new (), task, on_origin_snapshot);
      return;
    }
  answer = json_object_new ();
  skipped = json_array_new ();
  for (guint i = 0; i < data->skipped->len; i++)
    json_array_add_string_element (skipped, g_ptr_array_index (data->skipped, i));
  json_object_set_string_member (answer, "session", is_default_partition (data->partition) ? "default"
                                                                                          : data->partition);
  json_object_set_int_member (answer, "cookies", data->cookies);
  json_object_set_array_member (answer, "origins", json_array_ref (data->report));
  json_object_set_array_member (answer, "skipped", skipped);
  g_task_return_pointer (task, answer, (GDestroyNotify) json_object_unref);
  g_object_unref (task);
}

static void
on_snapshot_cookies (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  GTask *task = user_data;
  SnapshotData *data = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr(GPtrArray) cookies = stw_storage_plugin_get_cookies_finish (STW_STORAGE_PLUGIN (object), result, &error);

  if (cookies == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  data->cookies = cookies->len;
  snapshot_next (task);
}

static void
snapshot_ready (GTask      *task,
                StwSession *session,
                GHashTable *scope)
{
  SnapshotData *data = g_task_get_task_data (task);

  list_origins (session, scope, data->origins, data->surfaces, data->skipped);
  stw_storage_plugin_get_cookies_async (g_task_get_source_object (task), session, data->partition, NULL,
                                        g_task_get_cancellable (task), on_snapshot_cookies, task);
}

/**
 * stw_storage_plugin_snapshot_async:
 * @self: the plugin
 * @session: the app
 * @partition: (nullable): the Electron session: %NULL or `default`
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when done
 * @user_data: data for @callback
 *
 * One summary of the session's storage: how many cookies, and for each
 * http(s) origin with a live frame its Web Storage (count, bytes), its
 * IndexedDB databases and stores (record counts) and its usage.
 *
 * Since: 1.0
 */
void
stw_storage_plugin_snapshot_async (StwStoragePlugin    *self,
                                   StwSession          *session,
                                   const char          *partition,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  SnapshotData *data = g_new0 (SnapshotData, 1);

  g_task_set_source_tag (task, stw_storage_plugin_snapshot_async);
  data->origins = g_ptr_array_new_with_free_func (g_free);
  data->surfaces = g_ptr_array_new_with_free_func (g_object_unref);
  data->skipped = g_ptr_array_new_with_free_func (g_free);
  data->report = json_array_new ();
  data->partition = g_strdup (partition);
  g_task_set_task_data (task, data, (GDestroyNotify) snapshot_data_free);
  with_scope (self, session, partition, task, snapshot_ready);
}

/**
 * stw_storage_plugin_snapshot_finish:
 * @self: the plugin
 * @result: the result
 * @error: where to put the error
 *
 * Returns: (transfer full): `{session, cookies, origins[], skipped[]}`
 *
 * Since: 1.0
 */
JsonObject *
stw_storage_plugin_snapshot_finish (StwStoragePlugin  *self,
                                    GAsyncResult      *result,
                                    GError           **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* --- files -------------------------------------------------------------------------- */

/**
 * stw_storage_plugin_read_state:
 * @self: the plugin (loaded in a dispatcher)
 * @path: (type filename): an absolute path
 * @error: where to put the error (`BAD_ARGUMENT` also for a path outside
 *   --app-root or a file over the config's maxStateBytes)
 *
 * Reads and checks a storage state file through the dispatcher's
 * confined open.
 *
 * Returns: (transfer full) (nullable): the state
 *
 * Since: 1.0
 */
StwStorageState *
stw_storage_plugin_read_state (StwStoragePlugin  *self,
                               const char        *path,
                               GError           **error)
{
  StwDispatcher *dispatcher = stw_plugin_get_dispatcher (STW_PLUGIN (self));
  gint64 max = config_int (self, "maxStateBytes", DEFAULT_MAX_STATE_BYTES);
  g_autoptr(GInputStream) stream = NULL;
  g_autoptr(GByteArray) bytes = g_byte_array_new ();
  guint8 buffer[65536];
  int fd;

  g_return_val_if_fail (STW_IS_STORAGE_PLUGIN (self), NULL);
  if (dispatcher == NULL)
    {
      g_propagate_error (error, stw_error_new_literal ("storage.ACCESS_FAILED", "The plugin is not loaded"));
      return NULL;
    }
  fd = stw_dispatcher_open_file (dispatcher, path, O_RDONLY, 0, error);
  if (fd < 0)
    return NULL;
  stream = g_unix_input_stream_new (fd, TRUE);
  for (;;)
    {
      gssize got = g_input_stream_read (stream, buffer, sizeof buffer, NULL, error);

      if (got < 0)
        return NULL;
      if (got == 0)
        break;
      if ((gint64) bytes->len + got > max)
        {
          GError *big = stw_error_new ("BAD_ARGUMENT", "The storage state %s is larger than %" G_GINT64_FORMAT
                                       " bytes (the storage plugin's maxStateBytes)", path, max);
          g_autoptr(JsonObject) details = json_object_new ();

          json_object_set_string_member (details, "argument", "path");
          json_object_set_int_member (details, "limit", max);
          stw_error_set_details (big, details);
          g_propagate_error (error, big);
          return NULL;
        }
      g_byte_array_append (bytes, buffer, got);
    }
  return stw_storage_state_new_from_data ((const char *) bytes->data, bytes->len, error);
}

/**
 * stw_storage_plugin_write_state:
 * @self: the plugin (loaded in a dispatcher)
 * @state: the state
 * @path: (type filename): an absolute path
 * @error: where to put the error
 *
 * Writes @state in Playwright's format (mode 0600: it holds cookie values)
 * through the dispatcher's confined open.
 *
 * Returns: whether it was written
 *
 * Since: 1.0
 */
gboolean
stw_storage_plugin_write_state (StwStoragePlugin  *self,
                                StwStorageState   *state,
                                const char        *path,
                                GError           **error)
{
  StwDispatcher *dispatcher = stw_plugin_get_dispatcher (STW_PLUGIN (self));
  g_autofree char *text = NULL;
  gsize length = 0;
  gsize done = 0;
  int fd;

  g_return_val_if_fail (STW_IS_STORAGE_PLUGIN (self), FALSE);
  if (dispatcher == NULL)
    {
      g_propagate_error (error, stw_error_new_literal ("storage.ACCESS_FAILED", "The plugin is not loaded"));
      return FALSE;
    }
  fd = stw_dispatcher_open_file (dispatcher, path, O_WRONLY | O_CREAT | O_TRUNC, 0600, error);
  if (fd < 0)
    return FALSE;
  text = stw_storage_state_to_data (state, &length);
  while (done < length)
    {
      gssize wrote = write (fd, text + done, length - done);

      if (wrote < 0 && errno == EINTR)
        continue;
      if (wrote <= 0)
        {
          int saved = errno;

          close (fd);
          g_propagate_error (error, stw_error_new ("storage.ACCESS_FAILED", "Cannot write %s: %s", path,
                                                   g_strerror (saved)));
          return FALSE;
        }
      done += wrote;
    }
  if (close (fd) != 0)
    {
      g_propagate_error (error, stw_error_new ("storage.ACCESS_FAILED", "Cannot write %s: %s", path, g_strerror (errno)));
      return FALSE;
    }
  return TRUE;
}

/* --- the storageState launch option: the app-ready hook ------------------------------ */

static void
on_launch_state_loaded (GObject      *object,
                        GAsyncResult *result,
                        gpointer      user_data)
{
  g_autoptr(StwPluginCompletion) completion = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answer = stw_storage_plugin_load_state_finish (STW_STORAGE_PLUGIN (object), result, &error);

  if (answer == NULL)
    stw_plugin_completion_return_error (completion, error);
  else
    stw_plugin_completion_return_success (completion);
}

void
_stw_storage_plugin_app_ready (StwPlugin           *plugin,
                               StwPluginCompletion *completion)
{
  StwStoragePlugin *self = STW_STORAGE_PLUGIN (plugin);
  JsonObject *options = stw_plugin_completion_get_launch_options (completion);
  const char *path = options ? member_string (options, "storageState") : NULL;
  g_autoptr(StwStorageState) state = NULL;
  g_autoptr(GError) error = NULL;

  if (path == NULL)
    {
      stw_plugin_completion_return_success (completion);
      return;
    }
  state = stw_storage_plugin_read_state (self, path, &error);
  if (state == NULL)
    {
      stw_plugin_completion_return_error (completion, error);
      return;
    }
  stw_storage_plugin_load_state_async (self, stw_plugin_completion_get_session (completion), NULL, state, TRUE,
                                       NULL, on_launch_state_loaded, g_object_ref (completion));
}

/**
 * stw_storage_plugin_new:
 *
 * The storage plugin, to load into a dispatcher with
 * stw_dispatcher_add_plugins_async().
 *
 * Returns: (transfer full): the plugin
 *
 * Since: 1.0
 */
StwStoragePlugin *
stw_storage_plugin_new (void)
{
  g_autoptr(StwSchema) config = stw_schema_new_from_string (
    "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
    "\"allowReveal\":{\"type\":\"boolean\",\"default\":false},"
    "\"cookieDomains\":{\"type\":\"array\",\"maxItems\":256,\"x-stagewright-safe\":true,"
    "\"items\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":256}},"
    "\"maxBytes\":{\"type\":\"integer\",\"minimum\":1024,\"maximum\":268435456,\"default\":16777216,"
    "\"x-stagewright-safe\":true},"
    "\"maxStateBytes\":{\"type\":\"integer\",\"minimum\":1024,\"maximum\":268435456,\"default\":33554432,"
    "\"x-stagewright-safe\":true}}}", NULL);
  g_autoptr(StwSchema) launch = stw_schema_new_from_string (
    "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
    "\"storageState\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096}}}", NULL);
  StwStoragePlugin *self;

  g_assert (config != NULL && launch != NULL);
  self = g_object_new (STW_TYPE_STORAGE_PLUGIN,
                       "name", "storage",
                       "version", "0.1.0",
                       "core-versions", ">=0.1",
                       "description", "Cookies, Web Storage, IndexedDB and Playwright-compatible storage state of the "
                                      "app's session.",
                       "config-schema", config,
                       NULL);
  stw_plugin_set_launch_schema (STW_PLUGIN (self), launch);
  return self;
}

/* --- blocking forms ------------------------------------------------------------ */
/**
 * stw_storage_plugin_get_cookies_sync:
 * @self: the plugin
 * @session: the app
 * @partition: (nullable): the Electron session: %NULL or `default`
 * @urls: (nullable) (array zero-terminated=1): only the cookies these URLs would carry
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the error
 *
 * The blocking form of [method@StagewrightStorage.StoragePlugin.get_cookies_async].
 *
 * Returns: (transfer container) (element-type StwStorageCookie): the cookies
 *
 * Since: 1.0
 */
GPtrArray *
stw_storage_plugin_get_cookies_sync (StwStoragePlugin  *self,
                                     StwSession        *session,
                                     const char *partition,
                                     const char * const *urls,
                                     GCancellable      *cancellable,
                                     GError           **error)
{
  StwSyncCall call;
  GPtrArray * ret;

  if (!stw_sync_call_init (&call, session))
    return NULL;
  stw_storage_plugin_get_cookies_async (self, session, partition, urls, cancellable, stw_sync_call_callback, &call);
  ret = stw_storage_plugin_get_cookies_finish (self, stw_sync_call_wait (&call), error);
  stw_sync_call_clear (&call);
  return ret;
}
/**
 * stw_storage_plugin_set_cookies_sync:
 * @self: the plugin
 * @session: the app
 * @partition: (nullable): the Electron session: %NULL or `default`
 * @cookies: (element-type StwStorageCookie): the cookies
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the error
 *
 * The blocking form of [method@StagewrightStorage.StoragePlugin.set_cookies_async].
 *
 * Returns: as [method@StagewrightStorage.StoragePlugin.set_cookies_finish]
 *
 * Since: 1.0
 */
gboolean
stw_storage_plugin_set_cookies_sync (StwStoragePlugin  *self,
                                     StwSession        *session,
                                     const char *partition,
                                     GPtrArray *cookies,
                                     GCancellable      *cancellable,
                                     GError           **error)
{
  StwSyncCall call;
  gboolean ret;

  if (!stw_sync_call_init (&call, session))
    return FALSE;
  stw_storage_plugin_set_cookies_async (self, session, partition, cookies, cancellable, stw_sync_call_callback, &call);
  ret = stw_storage_plugin_set_cookies_finish (self, stw_sync_call_wait (&call), error);
  stw_sync_call_clear (&call);
  return ret;
}
/**
 * stw_storage_plugin_clear_cookies_sync:
 * @self: the plugin
 * @session: the app
 * @partition: (nullable): the Electron session: %NULL or `default`
 * @name: (nullable): only cookies of this name
 * @domain: (nullable): only cookies of this domain
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the error
 *
 * The blocking form of [method@StagewrightStorage.StoragePlugin.clear_cookies_async].
 *
 * Returns: as [method@StagewrightStorage.StoragePlugin.clear_cookies_finish]
 *
 * Since: 1.0
 */
gint64
stw_storage_plugin_clear_cookies_sync (StwStoragePlugin  *self,
                                       StwSession        *session,
                                       const char *partition,
                                       const char *name,
                                       const char *domain,
                                       GCancellable      *cancellable,
                                       GError           **error)
{
  StwSyncCall call;
  gint64 ret;

  if (!stw_sync_call_init (&call, session))
    return -1;
  stw_storage_plugin_clear_cookies_async (self, session, partition, name, domain, cancellable, stw_sync_call_callback, &call);
  ret = stw_storage_plugin_clear_cookies_finish (self, stw_sync_call_wait (&call), error);
  stw_sync_call_clear (&call);
  return ret;
}
/**
 * stw_storage_plugin_web_storage_sync:
 * @self: the plugin
 * @session: the app
 * @partition: (nullable): the Electron session: %NULL or `default`
 * @origin: (nullable): the origin, or %NULL for the active window's
 * @area: as for the async form
 * @action: as for the async form
 * @key: (nullable): the key
 * @value: (nullable): the value
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the error
 *
 * The blocking form of [method@StagewrightStorage.StoragePlugin.web_storage_async].
 *
 * Returns: (transfer full): as [method@StagewrightStorage.StoragePlugin.web_storage_finish]
 *
 * Since: 1.0
 */
JsonObject *
stw_storage_plugin_web_storage_sync (StwStoragePlugin  *self,
                                     StwSession        *session,
                                     const char *partition,
                                     const char *origin,
                                     StwStorageArea area,
                                     const char *action,
                                     const char *key,
                                     const char *value,
                                     GCancellable      *cancellable,
                                     GError           **error)
{
  StwSyncCall call;
  JsonObject * ret;

  if (!stw_sync_call_init (&call, session))
    return NULL;
  stw_storage_plugin_web_storage_async (self, session, partition, origin, area, action, key, value, cancellable, stw_sync_call_callback, &call);
  ret = stw_storage_plugin_web_storage_finish (self, stw_sync_call_wait (&call), error);
  stw_sync_call_clear (&call);
  return ret;
}
/**
 * stw_storage_plugin_indexed_db_sync:
 * @self: the plugin
 * @session: the app
 * @partition: (nullable): the Electron session: %NULL or `default`
 * @origin: (nullable): the origin, or %NULL for the active window's
 * @action: as for the async form
 * @parameters: (nullable): the operation's parameters
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the error
 *
 * The blocking form of [method@StagewrightStorage.StoragePlugin.indexed_db_async].
 *
 * Returns: (transfer full): as [method@StagewrightStorage.StoragePlugin.indexed_db_finish]
 *
 * Since: 1.0
 */
JsonObject *
stw_storage_plugin_indexed_db_sync (StwStoragePlugin  *self,
                                    StwSession        *session,
                                    const char *partition,
                                    const char *origin,
                                    const char *action,
                                    JsonObject *parameters,
                                    GCancellable      *cancellable,
                                    GError           **error)
{
  StwSyncCall call;
  JsonObject * ret;

  if (!stw_sync_call_init (&call, session))
    return NULL;
  stw_storage_plugin_indexed_db_async (self, session, partition, origin, action, parameters, cancellable, stw_sync_call_callback, &call);
  ret = stw_storage_plugin_indexed_db_finish (self, stw_sync_call_wait (&call), error);
  stw_sync_call_clear (&call);
  return ret;
}
/**
 * stw_storage_plugin_snapshot_sync:
 * @self: the plugin
 * @session: the app
 * @partition: (nullable): the Electron session: %NULL or `default`
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the error
 *
 * The blocking form of [method@StagewrightStorage.StoragePlugin.snapshot_async].
 *
 * Returns: (transfer full): as [method@StagewrightStorage.StoragePlugin.snapshot_finish]
 *
 * Since: 1.0
 */
JsonObject *
stw_storage_plugin_snapshot_sync (StwStoragePlugin  *self,
                                  StwSession        *session,
                                  const char *partition,
                                  GCancellable      *cancellable,
                                  GError           **error)
{
  StwSyncCall call;
  JsonObject * ret;

  if (!stw_sync_call_init (&call, session))
    return NULL;
  stw_storage_plugin_snapshot_async (self, session, partition, cancellable, stw_sync_call_callback, &call);
  ret = stw_storage_plugin_snapshot_finish (self, stw_sync_call_wait (&call), error);
  stw_sync_call_clear (&call);
  return ret;
}
/**
 * stw_storage_plugin_save_state_sync:
 * @self: the plugin
 * @session: the app
 * @partition: (nullable): the Electron session: %NULL or `default`
 * @indexed_db: as for the async form
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the error
 *
 * The blocking form of [method@StagewrightStorage.StoragePlugin.save_state_async].
 *
 * Returns: (transfer full): the state
 *
 * Since: 1.0
 */
StwStorageState *
stw_storage_plugin_save_state_sync (StwStoragePlugin  *self,
                                    StwSession        *session,
                                    const char *partition,
                                    gboolean indexed_db,
                                    GCancellable      *cancellable,
                                    GError           **error)
{
  StwSyncCall call;
  StwStorageState * ret;

  if (!stw_sync_call_init (&call, session))
    return NULL;
  stw_storage_plugin_save_state_async (self, session, partition, indexed_db, cancellable, stw_sync_call_callback, &call);
  ret = stw_storage_plugin_save_state_finish (self, stw_sync_call_wait (&call), error);
  stw_sync_call_clear (&call);
  return ret;
}
/**
 * stw_storage_plugin_load_state_sync:
 * @self: the plugin
 * @session: the app
 * @partition: (nullable): the Electron session: %NULL or `default`
 * @state: as for the async form
 * @reload: as for the async form
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the error
 *
 * The blocking form of [method@StagewrightStorage.StoragePlugin.load_state_async].
 *
 * Returns: (transfer full): as [method@StagewrightStorage.StoragePlugin.load_state_finish]
 *
 * Since: 1.0
 */
JsonObject      *
stw_storage_plugin_load_state_sync (StwStoragePlugin  *self,
                                    StwSession        *session,
                                    const char *partition,
                                    StwStorageState *state,
                                    gboolean reload,
                                    GCancellable      *cancellable,
                                    GError           **error)
{
  StwSyncCall call;
  JsonObject      * ret;

  if (!stw_sync_call_init (&call, session))
    return NULL;
  stw_storage_plugin_load_state_async (self, session, partition, state, reload, cancellable, stw_sync_call_callback, &call);
  ret = stw_storage_plugin_load_state_finish (self, stw_sync_call_wait (&call), error);
  stw_sync_call_clear (&call);
  return ret;
}
