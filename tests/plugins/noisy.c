/* noisy.c: a test plugin that writes to stdout, as careless plugins do
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Its setup and its one tool (`noisy_shout`) write to stdout through
 * stdio and through the file descriptor itself. On stdio, the server's
 * stdout carries JSON-RPC only: tests/e2e/plugins.test.mjs checks that
 * all of it lands on stderr instead.
 */
#include <stdio.h>
#include <unistd.h>

#include <stagewright/stagewright.h>

#define NOISY_TYPE_SHOUT_TOOL (noisy_shout_tool_get_type ())
G_DECLARE_FINAL_TYPE (NoisyShoutTool, noisy_shout_tool, NOISY, SHOUT_TOOL, StwTool)

struct _NoisyShoutTool
{
  StwTool parent_instance;
};

G_DEFINE_FINAL_TYPE (NoisyShoutTool, noisy_shout_tool, STW_TYPE_TOOL)

static void
shout (const char *what)
{
  static const char raw[] = "noisy: raw bytes on fd 1, no newline";

  printf ("noisy: %s through printf\n", what);
  fflush (stdout);
  if (write (STDOUT_FILENO, raw, sizeof raw - 1) < 0)
    g_warning ("noisy: write failed");
}

static void
noisy_shout_tool_invoke (StwTool       *tool,
                         StwInvocation *invocation)
{
  g_autoptr(JsonObject) payload = json_object_new ();

  shout ("tool");
  json_object_set_boolean_member (payload, "shouted", TRUE);
  stw_invocation_return_value (invocation, payload);
}

static void
noisy_shout_tool_class_init (NoisyShoutToolClass *klass)
{
  STW_TOOL_CLASS (klass)->invoke = noisy_shout_tool_invoke;
}

static void
noisy_shout_tool_init (NoisyShoutTool *self)
{
}

#define NOISY_TYPE_PLUGIN (noisy_plugin_get_type ())
G_DECLARE_FINAL_TYPE (NoisyPlugin, noisy_plugin, NOISY, PLUGIN, StwPlugin)

struct _NoisyPlugin
{
  StwPlugin parent_instance;
};

G_DEFINE_FINAL_TYPE (NoisyPlugin, noisy_plugin, STW_TYPE_PLUGIN)

static void
noisy_plugin_setup (StwPlugin           *plugin,
                    StwPluginCompletion *completion)
{
  shout ("setup");
  stw_plugin_completion_return_success (completion);
}

static void
noisy_plugin_class_init (NoisyPluginClass *klass)
{
  STW_PLUGIN_CLASS (klass)->setup = noisy_plugin_setup;
}

static void
noisy_plugin_init (NoisyPlugin *self)
{
  g_autoptr(StwSchema) input = stw_schema_new_from_string ("{\"type\":\"object\",\"additionalProperties\":false}",
                                                          NULL);
  g_autoptr(StwTool) tool = g_object_new (NOISY_TYPE_SHOUT_TOOL,
                                          "name", "shout",
                                          "title", "Shout",
                                          "description", "Write to stdout, and answer.",
                                          "input-schema", input,
                                          "operation-type", STW_OPERATION_QUERY,
                                          NULL);

  stw_tool_provider_add_tool (STW_TOOL_PROVIDER (self), tool, NULL);
}

StwPlugin *stw_plugin_module_create (void);

StwPlugin *
stw_plugin_module_create (void)
{
  return g_object_new (NOISY_TYPE_PLUGIN, "name", "noisy", "version", "1.0.0", NULL);
}
