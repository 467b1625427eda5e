/* storage-tools.c: the storage plugin's MCP tools, thin adapters over
 * its API (stw-storage.h)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <string.h>

#include "stw-storage-private.h"

typedef enum
{
  ACT_COOKIES,
  ACT_SET_COOKIE,
  ACT_CLEAR_COOKIES,
  ACT_WEB,
  ACT_IDB,
  ACT_SNAPSHOT,
  ACT_STATE_SAVE,
  ACT_STATE_LOAD,
} StorageAction;

#define STORAGE_TYPE_TOOL (storage_tool_get_type ())
G_DECLARE_FINAL_TYPE (StorageTool, storage_tool, STORAGE, TOOL, StwTool)

struct _StorageTool
{
  StwTool           parent_instance;
  StwStoragePlugin *plugin;   /* unowned: the plugin owns its tools */
  StorageAction     action;
  StwStorageArea    area;
  const char       *op;       /* web and idb: the agent's action */
};

G_DEFINE_FINAL_TYPE (StorageTool, storage_tool, STW_TYPE_TOOL)

static const char *
arg_string (JsonObject *arguments,
            const char *member)
{
  return json_object_get_string_member_with_default (arguments, member, NULL);
}

/* Which Electron session the answer is of: the partition asked for, or
 * "default". */
static const char *
session_name (StwInvocation *invocation)
{
  const char *partition = arg_string (stw_invocation_get_arguments (invocation), "partition");

  return partition == NULL || *partition == '\0' ? "default" : partition;
}

static void
answer_object (StwInvocation *invocation,
               JsonObject    *answer,
               GError        *error)
{
  if (answer == NULL)
    {
      stw_invocation_return_error (invocation, error);
      return;
    }
  if (!json_object_has_member (answer, "session"))
    json_object_set_string_member (answer, "session", session_name (invocation));
  stw_invocation_return_value (invocation, answer);
}

static gboolean
revealed (StorageTool   *self,
          StwInvocation *invocation)
{
  JsonObject *config = stw_plugin_get_config (STW_PLUGIN (self->plugin));

  return json_object_get_boolean_member_with_default (stw_invocation_get_arguments (invocation), "reveal", FALSE) &&
         config != NULL && json_object_get_boolean_member_with_default (config, "allowReveal", FALSE);
}

static void
on_cookies (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  StorageTool *self = STORAGE_TOOL (stw_invocation_get_tool (invocation));
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) cookies = stw_storage_plugin_get_cookies_finish (STW_STORAGE_PLUGIN (object), result, &error);
  g_autoptr(JsonObject) answer = NULL;
  JsonArray *list;
  gboolean reveal;

  if (cookies == NULL)
    {
      stw_invocation_return_error (invocation, error);
      return;
    }
  reveal = revealed (self, invocation);
  answer = json_object_new ();
  list = json_array_new ();
  for (guint i = 0; i < cookies->len; i++)
    json_array_add_object_element (list, stw_storage_cookie_to_json (g_ptr_array_index (cookies, i), reveal));
  json_object_set_string_member (answer, "session", session_name (invocation));
  json_object_set_int_member (answer, "count", cookies->len);
  json_object_set_boolean_member (answer, "redacted", !reveal);
  json_object_set_array_member (answer, "cookies", list);
  stw_invocation_return_value (invocation, answer);
}

static void
on_done (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  StorageTool *self = STORAGE_TOOL (stw_invocation_get_tool (invocation));
  StwStoragePlugin *plugin = STW_STORAGE_PLUGIN (object);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answer = NULL;

  switch (self->action)
    {
    case ACT_SET_COOKIE:
      if (stw_storage_plugin_set_cookies_finish (plugin, result, &error))
        {
          answer = json_object_new ();
          json_object_set_boolean_member (answer, "set", TRUE);
        }
      break;
    case ACT_CLEAR_COOKIES:
      {
        gint64 cleared = stw_storage_plugin_clear_cookies_finish (plugin, result, &error);

        if (cleared >= 0)
          {
            answer = json_object_new ();
            json_object_set_int_member (answer, "cleared", cleared);
          }
      }
      break;
    case ACT_WEB:
      answer = stw_storage_plugin_web_storage_finish (plugin, result, &error);
      if (answer != NULL)
        json_object_set_string_member (answer, "area", self->area == STW_STORAGE_AREA_SESSION ? "session" : "local");
      break;
    case ACT_IDB:
      answer = stw_storage_plugin_indexed_db_finish (plugin, result, &error);
      break;
    case ACT_SNAPSHOT:
      answer = stw_storage_plugin_snapshot_finish (plugin, result, &error);
      break;
    case ACT_STATE_LOAD:
      answer = stw_storage_plugin_load_state_finish (plugin, result, &error);
      break;
    case ACT_STATE_SAVE:
      {
        g_autoptr(StwStorageState) state = stw_storage_plugin_save_state_finish (plugin, result, &error);
        const char *path = arg_string (stw_invocation_get_arguments (invocation), "path");

        if (state != NULL && stw_storage_plugin_write_state (plugin, state, path, &error))
          {
            g_auto(GStrv) origins = stw_storage_state_dup_origin_names (state);
            JsonArray *list = json_array_new ();

            for (guint i = 0; origins[i] != NULL; i++)
              json_array_add_string_element (list, origins[i]);
            answer = json_object_new ();
            json_object_set_string_member (answer, "path", path);
            json_object_set_int_member (answer, "cookies", stw_storage_state_get_cookies (state)->len);
            json_object_set_array_member (answer, "origins", list);
          }
      }
      break;
    case ACT_COOKIES:
    default:
      g_assert_not_reached ();
    }
  answer_object (invocation, answer, error);
}

static void
storage_tool_invoke (StwTool       *tool,
                     StwInvocation *invocation)
{
  StorageTool *self = STORAGE_TOOL (tool);
  StwStoragePlugin *plugin = self->plugin;
  JsonObject *arguments = stw_invocation_get_arguments (invocation);
  StwSession *session = stw_invocation_get_session (invocation);
  GCancellable *cancellable = stw_invocation_get_cancellable (invocation);
  const char *partition = arg_string (arguments, "partition");
  const char *origin = arg_string (arguments, "origin");

  if (session == NULL)
    {
      stw_invocation_return_error_literal (invocation, "NOT_RUNNING", "No app is running");
      return;
    }

  switch (self->action)
    {
    case ACT_COOKIES:
      {
        g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
        g_auto(GStrv) urls = NULL;
        JsonArray *list = json_object_has_member (arguments, "urls") ? json_object_get_array_member (arguments, "urls") : NULL;

        for (guint i = 0; list != NULL && i < json_array_get_length (list); i++)
          g_strv_builder_add (builder, json_array_get_string_element (list, i));
        urls = g_strv_builder_end (builder);
        stw_storage_plugin_get_cookies_async (plugin, session, partition, list ? (const char * const *) urls : NULL,
                                              cancellable, on_cookies, g_object_ref (invocation));
      }
      break;

    case ACT_SET_COOKIE:
      {
        g_autoptr(JsonObject) copy = json_object_new ();
        g_autoptr(GPtrArray) cookies = g_ptr_array_new_with_free_func ((GDestroyNotify) stw_storage_cookie_free);
        g_autoptr(GError) error = NULL;
        const char *url = arg_string (arguments, "url");
        StwStorageCookie *cookie;
        g_autoptr(GList) members = json_object_get_members (arguments);

        for (GList *l = members; l != NULL; l = l->next)
          json_object_set_member (copy, l->data, json_node_copy (json_object_get_member (arguments, l->data)));
        /* A url names the domain, path and secure, as Playwright's addCookies. */
        if (url != NULL)
          {
            g_autoptr(GUri) uri = g_uri_parse (url, G_URI_FLAGS_NONE, NULL);
            const char *path;
            g_autofree char *dir = NULL;

            if (uri == NULL || g_uri_get_host (uri) == NULL ||
                (g_strcmp0 (g_uri_get_scheme (uri), "http") != 0 && g_strcmp0 (g_uri_get_scheme (uri), "https") != 0))
              {
                stw_invocation_return_error_literal (invocation, "BAD_ARGUMENT", "url is not an http(s) URL");
                return;
              }
            path = g_uri_get_path (uri);
            dir = path && strrchr (path, '/') ? g_strndup (path, strrchr (path, '/') - path + 1) : g_strdup ("/");
            json_object_set_string_member (copy, "domain", g_uri_get_host (uri));
            if (!json_object_has_member (arguments, "path"))
              json_object_set_string_member (copy, "path", dir);
            if (!json_object_has_member (arguments, "secure"))
              json_object_set_boolean_member (copy, "secure", g_str_equal (g_uri_get_scheme (uri), "https"));
          }
        else if (!json_object_has_member (arguments, "domain"))
          {
            stw_invocation_return_error_literal (invocation, "BAD_ARGUMENT", "Give url, or domain (and path)");
            return;
          }
        cookie = stw_storage_cookie_new_from_json (copy, &error);
        if (cookie == NULL)
          {
            stw_invocation_return_error (invocation, error);
            return;
          }
        g_ptr_array_add (cookies, cookie);
        stw_storage_plugin_set_cookies_async (plugin, session, partition, cookies, cancellable, on_done,
                                              g_object_ref (invocation));
      }
      break;

    case ACT_CLEAR_COOKIES:
      stw_storage_plugin_clear_cookies_async (plugin, session, partition, arg_string (arguments, "name"),
                                              arg_string (arguments, "domain"), cancellable, on_done,
                                              g_object_ref (invocation));
      break;

    case ACT_WEB:
      stw_storage_plugin_web_storage_async (plugin, session, partition, origin, self->area, self->op,
                                            arg_string (arguments, "key"), arg_string (arguments, "value"),
                                            cancellable, on_done, g_object_ref (invocation));
      break;

    case ACT_IDB:
      stw_storage_plugin_indexed_db_async (plugin, session, partition, origin, self->op, arguments, cancellable,
                                           on_done, g_object_ref (invocation));
      break;

    case ACT_SNAPSHOT:
      stw_storage_plugin_snapshot_async (plugin, session, partition, cancellable, on_done, g_object_ref (invocation));
      break;

    case ACT_STATE_SAVE:
      stw_storage_plugin_save_state_async (plugin, session, partition,
                                           json_object_get_boolean_member_with_default (arguments, "indexedDB", FALSE),
                                           cancellable, on_done, g_object_ref (invocation));
      break;

    case ACT_STATE_LOAD:
      {
        g_autoptr(GError) error = NULL;
        g_autoptr(StwStorageState) state = stw_storage_plugin_read_state (plugin, arg_string (arguments, "path"), &error);

        if (state == NULL)
          {
            stw_invocation_return_error (invocation, error);
            return;
          }
        stw_storage_plugin_load_state_async (plugin, session, partition, state,
                                             json_object_get_boolean_member_with_default (arguments, "reload", TRUE),
                                             cancellable, on_done, g_object_ref (invocation));
      }
      break;

    default:
      g_assert_not_reached ();
    }
}

static void
storage_tool_class_init (StorageToolClass *klass)
{
  STW_TOOL_CLASS (klass)->invoke = storage_tool_invoke;
}

static void
storage_tool_init (StorageTool *self)
{
}

static void
add_tool (StwStoragePlugin   *plugin,
          StorageAction       action,
          StwStorageArea      area,
          const char         *op,
          const char         *name,
          const char         *title,
          gboolean            query,
          const char         *description,
          const char         *properties,
          const char         *required,
          const char * const *codes)
{
  /* The Web Storage and IndexedDB tools address the default session only
   * (their answers say so); partition is on the cookie and state tools. */
  gboolean partition = action != ACT_WEB && action != ACT_IDB;
  g_autofree char *json = g_strdup_printf ("{\"type\":\"object\",\"additionalProperties\":false,%s\"properties\":{"
                                           "\"sessionId\":{\"type\":\"string\"}%s%s%s}}",
                                           required ? required : "",
                                           partition ? ",\"partition\":{\"type\":\"string\",\"maxLength\":256}" : "",
                                           *properties ? "," : "", properties);
  g_autoptr(GError) error = NULL;
  g_autoptr(StwSchema) schema = stw_schema_new_from_string (json, &error);
  StorageTool *tool;

  g_assert_no_error (error);
  tool = g_object_new (STORAGE_TYPE_TOOL,
                       "name", name,
                       "title", title,
                       "description", description,
                       "input-schema", schema,
                       "operation-type", query ? STW_OPERATION_QUERY : STW_OPERATION_COMMAND,
                       "error-codes", codes,
                       "idempotent-hint", query,
                       "destructive-hint", !query,
                       "session-requirement", STW_SESSION_REQUIREMENT_REQUIRED,
                       NULL);
  tool->plugin = plugin;
  tool->action = action;
  tool->area = area;
  tool->op = op;
  stw_tool_provider_add_tool (STW_TOOL_PROVIDER (plugin), STW_TOOL (tool), NULL);
  g_object_unref (tool);
}

#define ORIGIN "\"origin\":{\"type\":\"string\",\"maxLength\":2048}"
#define KEY "\"key\":{\"type\":\"string\",\"maxLength\":65536}"
#define DB_STORE "\"db\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":1024}," \
                 "\"store\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":1024}"
#define IDB_KEY "\"key\":{},\"keyEncoded\":{}"
#define LIMIT "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":10000}"
#define REQ(...) "\"required\":[" __VA_ARGS__ "],"

void
_stw_storage_plugin_add_tools (StwStoragePlugin *self)
{
  StwToolProvider *provider = STW_TOOL_PROVIDER (self);
  static const char * const cookie_codes[] = { "UNSUPPORTED", "ACCESS_FAILED", "NOT_ALLOWED", NULL };
  static const char * const page_codes[] = { "UNSUPPORTED", "ACCESS_FAILED", "NOT_FOUND", NULL };
  /* The Web Storage and IndexedDB tools answer page_codes too: listed
   * once, on storage_snapshot, to keep tools/list small. */
  static const char * const no_codes[] = { NULL };
  static const char * const state_codes[] = { "UNSUPPORTED", "ACCESS_FAILED", "NOT_FOUND", "NOT_ALLOWED", NULL };
  static const struct { const char *op; const char *what; gboolean query; const char *props; const char *req; } web[] = {
    { "get", "Value of key", TRUE, ORIGIN "," KEY, REQ ("\"key\"") },
    { "set", "Set key to value", FALSE, ORIGIN "," KEY ",\"value\":{\"type\":\"string\",\"maxLength\":5242880}",
      REQ ("\"key\",\"value\"") },
    { "remove", "Remove key", FALSE, ORIGIN "," KEY, REQ ("\"key\"") },
    { "keys", "Keys", TRUE, ORIGIN, NULL },
    { "clear", "Clear", FALSE, ORIGIN, NULL },
  };
  static const struct { const char *op; const char *what; gboolean query; const char *props; const char *req; } idb[] = {
    { "schema", "Databases, stores and indexes", TRUE, ORIGIN ",\"db\":{\"type\":\"string\",\"maxLength\":1024}", NULL },
    { "get", "Record of key, or the first limit records", TRUE, ORIGIN "," DB_STORE "," IDB_KEY "," LIMIT,
      REQ ("\"db\",\"store\"") },
    { "keys", "First limit keys", TRUE, ORIGIN "," DB_STORE "," LIMIT, REQ ("\"db\",\"store\"") },
    { "count", "Record count (of key)", TRUE, ORIGIN "," DB_STORE "," IDB_KEY, REQ ("\"db\",\"store\"") },
    { "set", "Put value at key (in-line keys: from the value)", FALSE,
      ORIGIN "," DB_STORE "," IDB_KEY ",\"value\":{},\"valueEncoded\":{}", REQ ("\"db\",\"store\"") },
    { "delete", "Delete the record of key", FALSE, ORIGIN "," DB_STORE "," IDB_KEY, REQ ("\"db\",\"store\"") },
    { "clear", "Delete every record of store", FALSE, ORIGIN "," DB_STORE, REQ ("\"db\",\"store\"") },
  };

  stw_tool_provider_add_error_code (provider, "UNSUPPORTED", 409, FALSE,
                                    "Not restorable or not reachable: opfs or credentials in a state, an origin "
                                    "that is not http(s), or a partition without a main process to ask.", NULL);
  stw_tool_provider_add_error_code (provider, "EVAL_REQUIRED", 403, FALSE,
                                    "A partition other than the default session is found by main-process eval: "
                                    "needs --allow-eval=main.", NULL);
  stw_tool_provider_add_error_code (provider, "ACCESS_FAILED", 502, FALSE,
                                    "The page's storage or the session's cookies could not be read or written "
                                    "(the message says why; data over maxBytes too).", NULL);
  stw_tool_provider_add_error_code (provider, "NOT_FOUND", 404, FALSE,
                                    "No frame at that origin, no window in that partition, or no such database or "
                                    "store; navigate there or check storage_idb_schema.", NULL);
  stw_tool_provider_add_error_code (provider, "NOT_ALLOWED", 403, FALSE,
                                    "A cookie's domain is outside the plugin's cookieDomains; nothing was applied.",
                                    NULL);

  add_tool (self, ACT_COOKIES, 0, NULL, "cookies", "Cookies", TRUE,
            "The session's cookies as Playwright writes them (only those urls would send). Values redacted "
            "unless reveal and config allowReveal.",
            "\"urls\":{\"type\":\"array\",\"maxItems\":64,\"items\":{\"type\":\"string\",\"maxLength\":2048}},"
            "\"reveal\":{\"type\":\"boolean\"}", NULL, cookie_codes);
  add_tool (self, ACT_SET_COOKIE, 0, NULL, "set_cookie", "Set a cookie", FALSE,
            "Set a cookie by url, or domain and path; expires: Unix seconds, -1 = session.",
            "\"name\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096},"
            "\"value\":{\"type\":\"string\",\"maxLength\":4096},"
            "\"url\":{\"type\":\"string\",\"maxLength\":2048},\"domain\":{\"type\":\"string\",\"maxLength\":253},"
            "\"path\":{\"type\":\"string\",\"maxLength\":1024},\"expires\":{\"type\":\"number\"},"
            "\"httpOnly\":{\"type\":\"boolean\"},\"secure\":{\"type\":\"boolean\"},"
            "\"sameSite\":{\"enum\":[\"Strict\",\"Lax\",\"None\"]}",
            REQ ("\"name\",\"value\""), cookie_codes);
  add_tool (self, ACT_CLEAR_COOKIES, 0, NULL, "clear_cookies", "Clear cookies", FALSE,
            "Delete the session's cookies, or those of name/domain.",
            "\"name\":{\"type\":\"string\",\"maxLength\":4096},\"domain\":{\"type\":\"string\",\"maxLength\":253}",
            NULL, cookie_codes);

  for (guint a = 0; a < 2; a++)
    for (guint i = 0; i < G_N_ELEMENTS (web); i++)
      {
        g_autofree char *name = g_strdup_printf ("%s_%s", a ? "session" : "local", web[i].op);
        g_autofree char *title = g_strdup_printf ("%s %s", a ? "sessionStorage" : "localStorage", web[i].op);
        g_autofree char *description = g_strdup_printf ("%s: %s (origin: default the active window's).",
                                                        a ? "sessionStorage" : "localStorage", web[i].what);

        add_tool (self, ACT_WEB, a ? STW_STORAGE_AREA_SESSION : STW_STORAGE_AREA_LOCAL, web[i].op, name, title,
                  web[i].query, description, web[i].props, web[i].req, no_codes);
      }
  for (guint i = 0; i < G_N_ELEMENTS (idb); i++)
    {
      g_autofree char *name = g_strconcat ("idb_", idb[i].op, NULL);
      g_autofree char *title = g_strconcat ("IndexedDB ", idb[i].op, NULL);
      g_autofree char *description = g_strconcat ("IndexedDB: ", idb[i].what, ". Non-JSON keys/values in "
                                                  "Playwright's keyEncoded/valueEncoded.", NULL);

      add_tool (self, ACT_IDB, 0, idb[i].op, name, title, idb[i].query, description, idb[i].props, idb[i].req,
                no_codes);
    }
  add_tool (self, ACT_SNAPSHOT, 0, NULL, "snapshot", "Storage summary", TRUE,
            "Summary: cookie count; per http(s) origin, Web Storage sizes and IndexedDB record counts.",
            "", NULL, page_codes);
  add_tool (self, ACT_STATE_SAVE, 0, NULL, "state_save", "Save storage state", FALSE,
            "Write Playwright's storageState JSON (real cookie values; IndexedDB if indexedDB) to path (mode 0600).",
            "\"path\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096},\"indexedDB\":{\"type\":\"boolean\"}",
            REQ ("\"path\""), state_codes);
  add_tool (self, ACT_STATE_LOAD, 0, NULL, "state_load", "Load storage state", FALSE,
            "Apply a Playwright storageState file: replace cookies, clear and restore each origin's Web Storage "
            "and IndexedDB, reload (unless reload: false). opfs/credentials are refused.",
            "\"path\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096},\"reload\":{\"type\":\"boolean\"}",
            REQ ("\"path\""), state_codes);
}
