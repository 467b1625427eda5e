/* stw-profile.c: the names of the --tool-profile values
 *
 * Which tools a profile shows is each tool's own business
 * (StwTool:profiles); the core keeps no list of names.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "stw-dispatcher.h"

static const char * const profile_names[] = {
  [STW_TOOL_PROFILE_ESSENTIAL] = "essential",
  [STW_TOOL_PROFILE_TESTING] = "testing",
  [STW_TOOL_PROFILE_DEBUG] = "debug",
  [STW_TOOL_PROFILE_FULL] = "full",
};

/**
 * stw_tool_profile_to_string:
 * @profile: a [enum@Stagewright.ToolProfile]
 *
 * Gets the name of a tool profile.
 *
 * Returns: (transfer none): the profile's name as `--tool-profile` takes it
 *
 * Since: 1.0
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
 * Parses the name of a tool profile.
 *
 * Returns: %TRUE if @name names a profile
 *
 * Since: 1.0
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
