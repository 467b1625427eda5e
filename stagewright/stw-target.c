/* stw-target.c: which element a page operation acts on
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "stw-error-registry.h"
#include "stw-json-private.h"
#include "stw-target.h"

struct _StwTarget
{
  guint  ref;        /* 0 for a selector */
  char  *selector;
};

G_DEFINE_BOXED_TYPE (StwTarget, stw_target, stw_target_copy, stw_target_free)

/**
 * stw_target_new_for_ref:
 * @ref: a ref from a snapshot, find or element list of the session
 *
 * Creates a target that names an element by its ref.
 *
 * Returns: (transfer full): a target naming the element of @ref
 *
 * Since: 1.0
 */
StwTarget *
stw_target_new_for_ref (guint ref)
{
  StwTarget *target;

  g_return_val_if_fail (ref > 0, NULL);

  target = g_new0 (StwTarget, 1);
  target->ref = ref;
  return target;
}

/**
 * stw_target_new_for_selector:
 * @selector: a CSS selector
 *
 * Creates a target that names an element by a CSS selector.
 *
 * Returns: (transfer full): a target naming the first element matching
 *   @selector when the operation runs
 *
 * Since: 1.0
 */
StwTarget *
stw_target_new_for_selector (const char *selector)
{
  StwTarget *target;

  g_return_val_if_fail (selector != NULL && *selector != '\0', NULL);

  target = g_new0 (StwTarget, 1);
  target->selector = g_strdup (selector);
  return target;
}

/**
 * stw_target_new_from_json:
 * @object: a tool's arguments
 * @ref_member: the member holding a ref (for example `ref`)
 * @selector_member: the member holding a selector (for example `selector`)
 * @error: return location for a `BAD_ARGUMENT` error
 *
 * Reads a target the way every element tool takes it: exactly one of the
 * two members, a ref being a positive integer and a selector a non-empty
 * string. Answers %NULL with no error when neither is present, so tools
 * whose target is optional can tell.
 *
 * Returns: (transfer full) (nullable): the target
 *
 * Since: 1.0
 */
StwTarget *
stw_target_new_from_json (JsonObject  *object,
                          const char  *ref_member,
                          const char  *selector_member,
                          GError     **error)
{
  gboolean has_ref, has_selector;

  g_return_val_if_fail (object != NULL, NULL);
  g_return_val_if_fail (ref_member != NULL && selector_member != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  has_ref = json_object_has_member (object, ref_member) &&
            !JSON_NODE_HOLDS_NULL (json_object_get_member (object, ref_member));
  has_selector = json_object_has_member (object, selector_member) &&
                 !JSON_NODE_HOLDS_NULL (json_object_get_member (object, selector_member));

  if (has_ref && has_selector)
    {
      g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("Give either %s or %s, not both"), ref_member, selector_member));
      return NULL;
    }
  if (has_ref)
    {
      JsonNode *node = json_object_get_member (object, ref_member);
      gint64 ref;

      if (json_node_get_value_type (node) != G_TYPE_INT64 ||
          (ref = json_node_get_int (node)) < 1 || ref > G_MAXUINT)
        {
          g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("%s must be a positive integer"), ref_member));
          return NULL;
        }
      return stw_target_new_for_ref ((guint) ref);
    }
  if (has_selector)
    {
      const char *selector = stw_json_get_string (object, selector_member);

      if (selector == NULL || *selector == '\0')
        {
          g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT, _("%s must be a non-empty string"), selector_member));
          return NULL;
        }
      return stw_target_new_for_selector (selector);
    }
  return NULL;
}

/**
 * stw_target_copy:
 * @target: a target
 *
 * Copies a target.
 *
 * Returns: (transfer full): a copy of @target
 *
 * Since: 1.0
 */
StwTarget *
stw_target_copy (const StwTarget *target)
{
  StwTarget *copy;

  g_return_val_if_fail (target != NULL, NULL);

  copy = g_new0 (StwTarget, 1);
  copy->ref = target->ref;
  copy->selector = g_strdup (target->selector);
  return copy;
}

/**
 * stw_target_free:
 * @target: (transfer full): a target
 *
 * Frees a target.
 *
 * Since: 1.0
 */
void
stw_target_free (StwTarget *target)
{
  if (target == NULL)
    return;
  g_free (target->selector);
  g_free (target);
}

/**
 * stw_target_get_ref:
 * @target: a target
 *
 * Gets the ref the target names.
 *
 * Returns: the ref, or 0 when @target is a selector
 *
 * Since: 1.0
 */
guint
stw_target_get_ref (const StwTarget *target)
{
  g_return_val_if_fail (target != NULL, 0);
  return target->ref;
}

/**
 * stw_target_get_selector:
 * @target: a target
 *
 * Gets the CSS selector the target names.
 *
 * Returns: (nullable): the selector, or %NULL when @target is a ref
 *
 * Since: 1.0
 */
const char *
stw_target_get_selector (const StwTarget *target)
{
  g_return_val_if_fail (target != NULL, NULL);
  return target->selector;
}
