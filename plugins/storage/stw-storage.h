/* stw-storage.h: the storage plugin's API — cookies, Web Storage,
 * IndexedDB and Playwright's storage state
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <stagewright/stagewright.h>

G_BEGIN_DECLS

/**
 * StwStorageArea:
 * @STW_STORAGE_AREA_LOCAL: `localStorage`
 * @STW_STORAGE_AREA_SESSION: `sessionStorage`
 *
 * Which Web Storage area an operation addresses.
 *
 * Since: 1.0
 */
typedef enum
{
  STW_STORAGE_AREA_LOCAL,
  STW_STORAGE_AREA_SESSION,
} StwStorageArea;

#define STW_TYPE_STORAGE_AREA (stw_storage_area_get_type ())
STW_AVAILABLE_IN_1_0
GType stw_storage_area_get_type (void);

/**
 * StwStorageError:
 * @STW_STORAGE_ERROR_UNSUPPORTED: `storage.UNSUPPORTED`: not restorable
 *   (`opfs`, `credentials`, an origin that is not http(s)) or not
 *   reachable (a partition in a session with no main process)
 * @STW_STORAGE_ERROR_EVAL_REQUIRED: `storage.EVAL_REQUIRED`: a partition
 *   other than the default session without main-process eval allowed
 * @STW_STORAGE_ERROR_ACCESS_FAILED: `storage.ACCESS_FAILED`: the storage
 *   could not be read or written
 * @STW_STORAGE_ERROR_NOT_FOUND: `storage.NOT_FOUND`: no frame at the
 *   origin, no window in the partition, no such database or store
 * @STW_STORAGE_ERROR_NOT_ALLOWED: `storage.NOT_ALLOWED`: a cookie's
 *   domain is outside the config's `cookieDomains`
 *
 * The storage plugin's error codes, in the %STW_STORAGE_ERROR domain;
 * stw_error_get_code_name() answers `storage.<CODE>` for them.
 *
 * Since: 1.0
 */
typedef enum
{
  STW_STORAGE_ERROR_UNSUPPORTED,
  STW_STORAGE_ERROR_EVAL_REQUIRED,
  STW_STORAGE_ERROR_ACCESS_FAILED,
  STW_STORAGE_ERROR_NOT_FOUND,
  STW_STORAGE_ERROR_NOT_ALLOWED,
} StwStorageError;

#define STW_TYPE_STORAGE_ERROR (stw_storage_error_get_type ())
STW_AVAILABLE_IN_1_0
GType stw_storage_error_get_type (void);

#define STW_STORAGE_ERROR (stw_storage_error_quark ())
STW_AVAILABLE_IN_1_0
GQuark stw_storage_error_quark (void);

/**
 * StwStorageCookie:
 * @name: the cookie's name
 * @value: its value
 * @domain: its domain (a leading dot covers subdomains)
 * @path: its path
 * @expires: Unix seconds, or -1 for a session cookie
 * @http_only: whether scripts cannot read it
 * @secure: whether it goes over https only (and loopback)
 * @same_site: `Strict`, `Lax` or `None`
 * @partition_key: (nullable): the CHIPS top-level site, or %NULL
 *
 * One cookie, in the fields of Playwright's `storageState()` cookies.
 *
 * Since: 1.0
 */
typedef struct
{
  char     *name;
  char     *value;
  char     *domain;
  char     *path;
  double    expires;
  gboolean  http_only;
  gboolean  secure;
  char     *same_site;
  char     *partition_key;
} StwStorageCookie;

#define STW_TYPE_STORAGE_COOKIE (stw_storage_cookie_get_type ())
STW_AVAILABLE_IN_1_0
GType stw_storage_cookie_get_type (void);

STW_AVAILABLE_IN_1_0
StwStorageCookie *stw_storage_cookie_new            (const char              *name,
                                                     const char              *value,
                                                     const char              *domain,
                                                     const char              *path);
STW_AVAILABLE_IN_1_0
StwStorageCookie *stw_storage_cookie_copy           (const StwStorageCookie  *cookie);
STW_AVAILABLE_IN_1_0
void              stw_storage_cookie_free           (StwStorageCookie        *cookie);
STW_AVAILABLE_IN_1_0
StwStorageCookie *stw_storage_cookie_new_from_json  (JsonObject              *object,
                                                     GError                 **error);
STW_AVAILABLE_IN_1_0
JsonObject       *stw_storage_cookie_to_json        (const StwStorageCookie  *cookie,
                                                     gboolean                 reveal);
STW_AVAILABLE_IN_1_0
gboolean          stw_storage_cookie_matches_url    (const StwStorageCookie  *cookie,
                                                     const char              *url);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StwStorageCookie, stw_storage_cookie_free)

#define STW_TYPE_STORAGE_STATE (stw_storage_state_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (StwStorageState, stw_storage_state, STW, STORAGE_STATE, GObject)

STW_AVAILABLE_IN_1_0
StwStorageState *stw_storage_state_new            (void);
STW_AVAILABLE_IN_1_0
StwStorageState *stw_storage_state_new_from_data  (const char       *data,
                                                   gssize            length,
                                                   GError          **error);
STW_AVAILABLE_IN_1_0
char            *stw_storage_state_to_data        (StwStorageState  *self,
                                                   gsize            *length);
STW_AVAILABLE_IN_1_0
GPtrArray       *stw_storage_state_get_cookies    (StwStorageState  *self);
STW_AVAILABLE_IN_1_0
JsonArray       *stw_storage_state_get_origins    (StwStorageState  *self);
STW_AVAILABLE_IN_1_0
char           **stw_storage_state_dup_origin_names (StwStorageState *self);

#define STW_TYPE_STORAGE_PLUGIN (stw_storage_plugin_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (StwStoragePlugin, stw_storage_plugin, STW, STORAGE_PLUGIN, StwPlugin)

STW_AVAILABLE_IN_1_0
StwStoragePlugin *stw_storage_plugin_new (void);

STW_AVAILABLE_IN_1_0
void       stw_storage_plugin_get_cookies_async    (StwStoragePlugin     *self,
                                                    StwSession           *session,
                                                    const char           *partition,
                                                    const char * const   *urls,
                                                    GCancellable         *cancellable,
                                                    GAsyncReadyCallback   callback,
                                                    gpointer              user_data);
STW_AVAILABLE_IN_1_0
GPtrArray *stw_storage_plugin_get_cookies_finish   (StwStoragePlugin     *self,
                                                    GAsyncResult         *result,
                                                    GError              **error);
STW_AVAILABLE_IN_1_0
GPtrArray *stw_storage_plugin_get_cookies_sync (StwStoragePlugin     *self,
        StwSession           *session,
        const char           *partition,
        const char *const   *urls,
        GCancellable         *cancellable,
        GError              **error);
STW_AVAILABLE_IN_1_0
void       stw_storage_plugin_set_cookies_async    (StwStoragePlugin     *self,
                                                    StwSession           *session,
                                                    const char           *partition,
                                                    GPtrArray            *cookies,
                                                    GCancellable         *cancellable,
                                                    GAsyncReadyCallback   callback,
                                                    gpointer              user_data);
STW_AVAILABLE_IN_1_0
gboolean   stw_storage_plugin_set_cookies_finish   (StwStoragePlugin     *self,
                                                    GAsyncResult         *result,
                                                    GError              **error);
STW_AVAILABLE_IN_1_0
gboolean  stw_storage_plugin_set_cookies_sync (StwStoragePlugin     *self,
        StwSession           *session,
        const char           *partition,
        GPtrArray            *cookies,
        GCancellable         *cancellable,
        GError              **error);
STW_AVAILABLE_IN_1_0
void       stw_storage_plugin_clear_cookies_async  (StwStoragePlugin     *self,
                                                    StwSession           *session,
                                                    const char           *partition,
                                                    const char           *name,
                                                    const char           *domain,
                                                    GCancellable         *cancellable,
                                                    GAsyncReadyCallback   callback,
                                                    gpointer              user_data);
STW_AVAILABLE_IN_1_0
gint64     stw_storage_plugin_clear_cookies_finish (StwStoragePlugin     *self,
                                                    GAsyncResult         *result,
                                                    GError              **error);
STW_AVAILABLE_IN_1_0
gint64  stw_storage_plugin_clear_cookies_sync (StwStoragePlugin     *self,
        StwSession           *session,
        const char           *partition,
        const char           *name,
        const char           *domain,
        GCancellable         *cancellable,
        GError              **error);

STW_AVAILABLE_IN_1_0
void        stw_storage_plugin_web_storage_async   (StwStoragePlugin     *self,
                                                    StwSession           *session,
                                                    const char           *partition,
                                                    const char           *origin,
                                                    StwStorageArea        area,
                                                    const char           *action,
                                                    const char           *key,
                                                    const char           *value,
                                                    GCancellable         *cancellable,
                                                    GAsyncReadyCallback   callback,
                                                    gpointer              user_data);
STW_AVAILABLE_IN_1_0
JsonObject *stw_storage_plugin_web_storage_finish  (StwStoragePlugin     *self,
                                                    GAsyncResult         *result,
                                                    GError              **error);
STW_AVAILABLE_IN_1_0
JsonObject *stw_storage_plugin_web_storage_sync (StwStoragePlugin     *self,
        StwSession           *session,
        const char           *partition,
        const char           *origin,
        StwStorageArea        area,
        const char           *action,
        const char           *key,
        const char           *value,
        GCancellable         *cancellable,
        GError              **error);
STW_AVAILABLE_IN_1_0
void        stw_storage_plugin_indexed_db_async    (StwStoragePlugin     *self,
                                                    StwSession           *session,
                                                    const char           *partition,
                                                    const char           *origin,
                                                    const char           *action,
                                                    JsonObject           *parameters,
                                                    GCancellable         *cancellable,
                                                    GAsyncReadyCallback   callback,
                                                    gpointer              user_data);
STW_AVAILABLE_IN_1_0
JsonObject *stw_storage_plugin_indexed_db_finish   (StwStoragePlugin     *self,
                                                    GAsyncResult         *result,
                                                    GError              **error);
STW_AVAILABLE_IN_1_0
JsonObject *stw_storage_plugin_indexed_db_sync (StwStoragePlugin     *self,
        StwSession           *session,
        const char           *partition,
        const char           *origin,
        const char           *action,
        JsonObject           *parameters,
        GCancellable         *cancellable,
        GError              **error);
STW_AVAILABLE_IN_1_0
void        stw_storage_plugin_snapshot_async      (StwStoragePlugin     *self,
                                                    StwSession           *session,
                                                    const char           *partition,
                                                    GCancellable         *cancellable,
                                                    GAsyncReadyCallback   callback,
                                                    gpointer              user_data);
STW_AVAILABLE_IN_1_0
JsonObject *stw_storage_plugin_snapshot_finish     (StwStoragePlugin     *self,
                                                    GAsyncResult         *result,
                                                    GError              **error);
STW_AVAILABLE_IN_1_0
JsonObject *stw_storage_plugin_snapshot_sync (StwStoragePlugin     *self,
        StwSession           *session,
        const char           *partition,
        GCancellable         *cancellable,
        GError              **error);

STW_AVAILABLE_IN_1_0
void             stw_storage_plugin_save_state_async  (StwStoragePlugin     *self,
                                                       StwSession           *session,
                                                       const char           *partition,
                                                       gboolean              indexed_db,
                                                       GCancellable         *cancellable,
                                                       GAsyncReadyCallback   callback,
                                                       gpointer              user_data);
STW_AVAILABLE_IN_1_0
StwStorageState *stw_storage_plugin_save_state_finish (StwStoragePlugin     *self,
                                                       GAsyncResult         *result,
                                                       GError              **error);
STW_AVAILABLE_IN_1_0
StwStorageState *stw_storage_plugin_save_state_sync (StwStoragePlugin     *self,
        StwSession           *session,
        const char           *partition,
        gboolean              indexed_db,
        GCancellable         *cancellable,
        GError              **error);
STW_AVAILABLE_IN_1_0
void             stw_storage_plugin_load_state_async  (StwStoragePlugin     *self,
                                                       StwSession           *session,
                                                       const char           *partition,
                                                       StwStorageState      *state,
                                                       gboolean              reload,
                                                       GCancellable         *cancellable,
                                                       GAsyncReadyCallback   callback,
                                                       gpointer              user_data);
STW_AVAILABLE_IN_1_0
JsonObject      *stw_storage_plugin_load_state_finish (StwStoragePlugin     *self,
                                                       GAsyncResult         *result,
                                                       GError              **error);
STW_AVAILABLE_IN_1_0
JsonObject      *stw_storage_plugin_load_state_sync (StwStoragePlugin     *self,
        StwSession           *session,
        const char           *partition,
        StwStorageState      *state,
        gboolean              reload,
        GCancellable         *cancellable,
        GError              **error);
STW_AVAILABLE_IN_1_0
StwStorageState *stw_storage_plugin_read_state        (StwStoragePlugin     *self,
                                                       const char           *path,
                                                       GError              **error);
STW_AVAILABLE_IN_1_0
gboolean         stw_storage_plugin_write_state       (StwStoragePlugin     *self,
                                                       StwStorageState      *state,
                                                       const char           *path,
                                                       GError              **error);

G_END_DECLS
