/* stw-core-provider.c: the core electron_* tools, as one provider
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "stw-core-provider.h"
#include "stw-core-tools.h"

/**
 * StwCoreToolProvider:
 *
 * The core `electron_*` tools of the agent contract, one
 * [class@Stagewright.ToolProvider] named `electron`, filled from the tool
 * families of `tools/` (status, lifecycle, windows, observe, …). Their
 * error codes are the registry's core codes, so the provider adds none.
 *
 * Since: 1.0
 */
struct _StwCoreToolProvider
{
  StwToolProvider parent_instance;
};

G_DEFINE_FINAL_TYPE (StwCoreToolProvider, stw_core_tool_provider, STW_TYPE_TOOL_PROVIDER)

static void
stw_core_tool_provider_constructed (GObject *object)
{
  StwToolProvider *provider = STW_TOOL_PROVIDER (object);

  G_OBJECT_CLASS (stw_core_tool_provider_parent_class)->constructed (object);

  stw_core_tools_add_status (provider);
  stw_core_tools_add_lifecycle (provider);
  stw_core_tools_add_windows (provider);
  stw_core_tools_add_observe (provider);
  stw_core_tools_add_interact (provider);
  stw_core_tools_add_read (provider);
  stw_core_tools_add_snapshot (provider);
  stw_core_tools_add_wait (provider);
  stw_core_tools_add_eval (provider);
  stw_core_tools_add_dialogs (provider);
  /* Each family's stw_core_tools_add_specs() marked the provider as
   * checked by tests/test-core-schemas.c. */
}

static void
stw_core_tool_provider_class_init (StwCoreToolProviderClass *klass)
{
  G_OBJECT_CLASS (klass)->constructed = stw_core_tool_provider_constructed;
}

static void
stw_core_tool_provider_init (StwCoreToolProvider *self)
{
}

/**
 * stw_core_tool_provider_new:
 *
 * Creates the provider of the core tools; each call makes new tool
 * objects.
 *
 * Returns: (transfer full) (type StwCoreToolProvider): the `electron`
 *   provider
 *
 * Since: 1.0
 */
StwToolProvider *
stw_core_tool_provider_new (void)
{
  return g_object_new (STW_TYPE_CORE_TOOL_PROVIDER, "name", "electron", NULL);
}

/**
 * stw_dispatcher_add_core_tools:
 * @self: a [class@Stagewright.Dispatcher]
 *
 * Adds the core `electron_*` tools: a new
 * [class@Stagewright.CoreToolProvider], through
 * [method@Stagewright.Dispatcher.add_provider]. Adding them twice is a
 * programming error.
 *
 * Since: 1.0
 */
void
stw_dispatcher_add_core_tools (StwDispatcher *self)
{
  g_autoptr(StwToolProvider) provider = NULL;
  g_autoptr(GError) error = NULL;

  g_return_if_fail (STW_IS_DISPATCHER (self));

  provider = stw_core_tool_provider_new ();
  if (!stw_dispatcher_add_provider (self, provider, &error))
    g_critical ("Cannot add the core tools: %s", error->message);
}
