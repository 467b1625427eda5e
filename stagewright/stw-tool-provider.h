/* stw-tool-provider.h: a named set of tools and the error codes they add
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(__STAGEWRIGHT_INSIDE__) && !defined(STAGEWRIGHT_COMPILATION)
# error "Only <stagewright/stagewright.h> can be included directly."
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "stw-tool.h"
#include "stw-version-macros.h"

G_BEGIN_DECLS

#define STW_TYPE_TOOL_PROVIDER (stw_tool_provider_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_DERIVABLE_TYPE (StwToolProvider, stw_tool_provider, STW, TOOL_PROVIDER, GObject)

/**
 * StwToolProviderClass:
 * @parent_class: the parent class
 *
 * The class structure of #StwToolProvider. Subclasses fill the provider
 * (typically in their constructor); there is nothing to override yet.
 *
 * Since: 1.0
 */
struct _StwToolProviderClass
{
  GObjectClass parent_class;

  /*< private >*/
  gpointer _reserved[8];
};

STW_AVAILABLE_IN_1_0
StwToolProvider *stw_tool_provider_new (const char *name);
STW_AVAILABLE_IN_1_0
const char *stw_tool_provider_get_name (StwToolProvider *self);
STW_AVAILABLE_IN_1_0
gboolean stw_tool_provider_add_tool (StwToolProvider *self,
                                     StwTool *tool,
                                     GError **error);
STW_AVAILABLE_IN_1_0
gboolean stw_tool_provider_add_error_code (StwToolProvider *self,
                                           const char *code,
                                           guint http,
                                           gboolean retryable,
                                           const char *hint,
                                           GError **error);
STW_AVAILABLE_IN_1_0
GList *stw_tool_provider_list_tools (StwToolProvider *self);
STW_AVAILABLE_IN_1_0
JsonObject *stw_tool_provider_get_error_codes (StwToolProvider *self);
STW_AVAILABLE_IN_1_0
gboolean stw_tool_provider_is_in_use (StwToolProvider *self);

G_END_DECLS
