/* stw-error-registry.h: the agent-facing error codes and rich errors
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(__STAGEWRIGHT_INSIDE__) && !defined(STAGEWRIGHT_COMPILATION)
# error "Only <stagewright/stagewright.h> can be included directly."
#endif

#include <glib-object.h>
#include <json-glib/json-glib.h>

#include "stw-enums.h"
#include "stw-version-macros.h"

G_BEGIN_DECLS

/**
 * STW_ERROR:
 *
 * The error domain of every error that reaches an agent. The code is a
 * #StwError; the error may also carry a hint, details, next actions and
 * similar refs (see stw_error_set_details() and friends).
 */
#define STW_ERROR (stw_error_quark ())

/**
 * stw_error_quark:
 *
 * Gets the error domain of [error@Stagewright.Error]; use %STW_ERROR in C.
 *
 * Returns: the quark of the `stw-error-quark` domain
 *
 * Since: 1.0
 */
STW_AVAILABLE_IN_1_0
GQuark stw_error_quark (void);

STW_AVAILABLE_IN_1_0
GQuark stw_error_register_domain (const char *plugin,
                                  GType       code_type);
STW_AVAILABLE_IN_1_0
gboolean stw_error_domain_is_registered (GQuark domain);

STW_AVAILABLE_IN_1_0
GError *stw_error_new_literal (const char *code_name,
                               const char *message);
STW_AVAILABLE_IN_1_0
GError *stw_error_new (const char *code_name,
                       const char *format,
                       ...) G_GNUC_PRINTF (2, 3);
STW_AVAILABLE_IN_1_0
GError *stw_error_new_code_literal (StwError code,
                                    const char *message);
STW_AVAILABLE_IN_1_0
GError *stw_error_new_code (StwError code,
                            const char *format,
                            ...) G_GNUC_PRINTF (2, 3);
STW_AVAILABLE_IN_1_0
void stw_set_error (GError **error,
                    StwError code,
                    const char *hint,
                    JsonObject *details,
                    const char *format,
                    ...) G_GNUC_PRINTF (5, 6);
STW_AVAILABLE_IN_1_0
const char *stw_error_get_code_name (const GError *error);
STW_AVAILABLE_IN_1_0
void stw_error_set_hint (GError *error,
                         const char *hint);
STW_AVAILABLE_IN_1_0
const char *stw_error_get_hint (const GError *error);
STW_AVAILABLE_IN_1_0
void stw_error_set_details (GError *error,
                            JsonObject *details);
STW_AVAILABLE_IN_1_0
JsonObject *stw_error_get_details (const GError *error);
STW_AVAILABLE_IN_1_0
void stw_error_add_next_action (GError *error,
                                const char *action);
STW_AVAILABLE_IN_1_0
const char * const *stw_error_get_next_actions (const GError *error);
STW_AVAILABLE_IN_1_0
void stw_error_set_similar_refs (GError *error,
                                 JsonArray *similar_refs);
STW_AVAILABLE_IN_1_0
JsonArray *stw_error_get_similar_refs (const GError *error);

STW_AVAILABLE_IN_1_0
const char *stw_error_code_to_string (StwError code);
STW_AVAILABLE_IN_1_0
gboolean stw_error_code_from_string (const char *code_name,
                                     StwError *code);

#define STW_TYPE_ERROR_REGISTRY (stw_error_registry_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (StwErrorRegistry, stw_error_registry, STW, ERROR_REGISTRY, GObject)

STW_AVAILABLE_IN_1_0
StwErrorRegistry *stw_error_registry_get_default (void);
STW_AVAILABLE_IN_1_0
gboolean stw_error_registry_lookup (StwErrorRegistry *self,
                                    const char *code_name,
                                    guint *http,
                                    gboolean *retryable,
                                    const char **hint);
STW_AVAILABLE_IN_1_0
gboolean stw_error_registry_contains (StwErrorRegistry *self,
                                      const char *code_name);
STW_AVAILABLE_IN_1_0
char **stw_error_registry_list_codes (StwErrorRegistry *self);
STW_AVAILABLE_IN_1_0
gboolean stw_error_registry_register_plugin_codes (StwErrorRegistry *self,
                                                   const char *plugin,
                                                   JsonObject *codes,
                                                   GError **error);
STW_AVAILABLE_IN_1_0
void stw_error_registry_unregister_plugin_codes (StwErrorRegistry *self,
                                                 const char *plugin,
                                                 JsonObject *codes);

G_END_DECLS
