/* stw-profile.c: which core tools each --tool-profile shows
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "stw-dispatcher.h"

/* The contract's profiles. Eval tools and plugin tools are governed by the
 * eval policy and by loading, never by the profile. */
static const char * const essential_tools[] = {
  "electron_launch", "electron_status", "electron_info", "electron_stop",
  "electron_snapshot", "electron_find", "electron_click", "electron_type",
  "electron_key", "electron_clear_input", "electron_select_option",
  "electron_check", "electron_uncheck", "electron_scroll",
  "electron_scroll_into_view", "electron_get_text", "electron_get_value",
  "electron_get_state", "electron_exists", "electron_wait_for_selector",
  "electron_wait_for_state", "electron_expect_text", "electron_expect_value",
  "electron_expect_visible", "electron_expect_state", "electron_expect_count",
  "electron_expect_url",
  NULL
};

static const char * const testing_extra_tools[] = {
  "electron_attach", "electron_windows_list", "electron_switch_window",
  "electron_surfaces_list", "electron_switch_surface", "electron_detach",
  "electron_hover", "electron_drag", "electron_drop_file",
  "electron_keyboard_type", "electron_type_into_editor",
  "electron_press_sequence", "electron_set_files", "electron_get_attribute",
  "electron_get_bbox", "electron_get_computed_style",
  "electron_focused_element", "electron_elements_list", "electron_screenshot",
  "electron_wait", "electron_wait_for_event", "electron_assert_pattern",
  NULL
};

static const char * const debug_extra_tools[] = {
  "electron_doctor", "electron_attach", "electron_inject",
  "electron_windows_list", "electron_switch_window", "electron_surfaces_list",
  "electron_switch_surface", "electron_discover_running", "electron_detach",
  "electron_force_kill", "electron_get_attribute", "electron_get_bbox",
  "electron_get_computed_style", "electron_focused_element",
  "electron_elements_list", "electron_wait", "electron_wait_for_event",
  "electron_screenshot", "electron_console_logs", "electron_dialog_handler",
  NULL
};

static const char * const profile_names[] = {
  [STW_TOOL_PROFILE_ESSENTIAL] = "essential",
  [STW_TOOL_PROFILE_TESTING] = "testing",
  [STW_TOOL_PROFILE_DEBUG] = "debug",
  [STW_TOOL_PROFILE_FULL] = "full",
};

/**
 * stw_tool_profile_to_string:
 * @profile: a #StwToolProfile
 *
 * Returns: (transfer none): the profile's name as `--tool-profile` takes it
 */
const char *
stw_tool_profile_to_string (StwToolProfile profile)
{
  if ((guint) profile < G_N_ELEMENTS (profile_names))
    return profile_names[profile];
  return "full";
}

/**
 * stw_tool_profile_from_string:
 * @name: `essential`, `testing`, `debug` or `full`
 * @profile: (out) (optional): the profile
 *
 * Returns: %TRUE if @name names a profile
 */
gboolean
stw_tool_profile_from_string (const char     *name,
                              StwToolProfile *profile)
{
  g_return_val_if_fail (name != NULL, FALSE);

  for (guint i = 0; i < G_N_ELEMENTS (profile_names); i++)
    if (strcmp (profile_names[i], name) == 0)
      {
        if (profile != NULL)
          *profile = (StwToolProfile) i;
        return TRUE;
      }
  return FALSE;
}

/**
 * stw_tool_profile_contains:
 * @profile: a #StwToolProfile
 * @tool_name: a tool name
 *
 * Whether @profile shows @tool_name. Tools the profiles do not govern
 * (eval tools, plugin tools, tools registered by applications) are in
 * every profile.
 *
 * Returns: %TRUE if the profile shows the tool
 */
gboolean
stw_tool_profile_contains (StwToolProfile  profile,
                           const char     *tool_name)
{
  gboolean essential, testing, debug;

  g_return_val_if_fail (tool_name != NULL, FALSE);

  essential = g_strv_contains (essential_tools, tool_name);
  testing = g_strv_contains (testing_extra_tools, tool_name);
  debug = g_strv_contains (debug_extra_tools, tool_name);

  if (!essential && !testing && !debug)
    return TRUE;

  switch (profile)
    {
    case STW_TOOL_PROFILE_ESSENTIAL:
      return essential;
    case STW_TOOL_PROFILE_TESTING:
      return essential || testing;
    case STW_TOOL_PROFILE_DEBUG:
      return essential || debug;
    case STW_TOOL_PROFILE_FULL:
    default:
      return TRUE;
    }
}
