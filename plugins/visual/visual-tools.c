/* visual-tools.c: the visual plugin's MCP tools, thin over its API
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each tool parses its arguments, calls StwVisualPlugin and turns the
 * typed result into the answer its description documents. A comparison
 * that did not pass is answered as visual.MISMATCH with its counts.
 */
#include "config.h"

#include "stw-visual-private.h"

typedef enum
{
  VISUAL_CAPTURE,
  VISUAL_EXPECT,
  VISUAL_UPDATE_BASELINE,
} VisualAction;

#define VISUAL_TYPE_TOOL (visual_tool_get_type ())
G_DECLARE_FINAL_TYPE (VisualTool, visual_tool, VISUAL, TOOL, StwTool)

struct _VisualTool
{
  StwTool          parent_instance;
  StwVisualPlugin *plugin;   /* weak: the plugin owns its tools */
  VisualAction     action;
};

G_DEFINE_FINAL_TYPE (VisualTool, visual_tool, STW_TYPE_TOOL)

static JsonObject *
environment_json (StwVisualCapture *capture)
{
  JsonObject *env = json_object_new ();
  JsonObject *viewport = json_object_new ();

  json_object_set_string_member (env, "chromiumVersion", stw_visual_capture_get_chromium_version (capture));
  json_object_set_double_member (env, "deviceScaleFactor", stw_visual_capture_get_device_scale_factor (capture));
  json_object_set_int_member (viewport, "width", stw_visual_capture_get_viewport_width (capture));
  json_object_set_int_member (viewport, "height", stw_visual_capture_get_viewport_height (capture));
  json_object_set_object_member (env, "viewport", viewport);
  json_object_set_string_member (env, "fontsFingerprint", stw_visual_capture_get_fonts_fingerprint (capture));
  return env;
}

static JsonObject *
capture_json (StwVisualCapture *capture)
{
  JsonObject *answer = json_object_new ();

  json_object_set_string_member (answer, "name", stw_visual_capture_get_name (capture));
  json_object_set_string_member (answer, "path", stw_visual_capture_get_path (capture));
  json_object_set_string_member (answer, "baselinePath", stw_visual_capture_get_baseline_path (capture));
  json_object_set_int_member (answer, "width", stw_visual_capture_get_width (capture));
  json_object_set_int_member (answer, "height", stw_visual_capture_get_height (capture));
  json_object_set_object_member (answer, "environment", environment_json (capture));
  return answer;
}

static JsonObject *
comparison_json (StwVisualComparison *comparison)
{
  JsonObject *answer = json_object_new ();

  json_object_set_string_member (answer, "name", stw_visual_comparison_get_name (comparison));
  json_object_set_boolean_member (answer, "passed", stw_visual_comparison_get_passed (comparison));
  json_object_set_int_member (answer, "mismatchedPixels", (gint64) stw_visual_comparison_get_mismatched_pixels (comparison));
  json_object_set_int_member (answer, "antiAliasedPixels", (gint64) stw_visual_comparison_get_anti_aliased_pixels (comparison));
  json_object_set_int_member (answer, "totalPixels", (gint64) stw_visual_comparison_get_total_pixels (comparison));
  json_object_set_int_member (answer, "allowedPixels", (gint64) stw_visual_comparison_get_allowed_pixels (comparison));
  json_object_set_double_member (answer, "mismatchRatio", stw_visual_comparison_get_mismatch_ratio (comparison));
  json_object_set_boolean_member (answer, "sizeDiffers", stw_visual_comparison_get_size_differs (comparison));
  json_object_set_string_member (answer, "diffPath", stw_visual_comparison_get_diff_path (comparison));
  json_object_set_string_member (answer, "actualPath", stw_visual_comparison_get_actual_path (comparison));
  json_object_set_string_member (answer, "baselinePath", stw_visual_comparison_get_baseline_path (comparison));
  return answer;
}

static void
on_captured (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(StwVisualCapture) capture = stw_visual_plugin_capture_finish (STW_VISUAL_PLUGIN (object), result, &error);
  g_autoptr(JsonObject) answer = NULL;

  if (capture == NULL)
    {
      stw_invocation_return_error (invocation, error);
      return;
    }
  answer = capture_json (capture);
  json_object_set_string_member (answer, "baseline", stw_visual_capture_get_baseline_created (capture) ? "created" : "kept");
  json_object_set_int_member (answer, "attempts", stw_visual_capture_get_attempts (capture));
  stw_invocation_return_value (invocation, answer);
}

static void
on_compared (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(StwVisualComparison) comparison = stw_visual_plugin_expect_finish (STW_VISUAL_PLUGIN (object), result, &error);
  g_autoptr(JsonObject) answer = NULL;

  if (comparison == NULL)
    {
      stw_invocation_return_error (invocation, error);
      return;
    }
  answer = comparison_json (comparison);
  if (!stw_visual_comparison_get_passed (comparison))
    {
      g_autoptr(GError) mismatch = NULL;

      if (stw_visual_comparison_get_size_differs (comparison))
        mismatch = stw_error_new ("visual.MISMATCH", "“%s” is not its baseline's size", stw_visual_comparison_get_name (comparison));
      else
        mismatch = stw_error_new ("visual.MISMATCH", "“%s” differs from its baseline in %" G_GUINT64_FORMAT
                                  " pixels (%" G_GUINT64_FORMAT " allowed)", stw_visual_comparison_get_name (comparison),
                                  stw_visual_comparison_get_mismatched_pixels (comparison),
                                  stw_visual_comparison_get_allowed_pixels (comparison));
      stw_error_set_hint (mismatch, "Look at diffPath (red: changed); if the change is intended, "
                                    "visual_update_baseline {name, confirm: true}");
      stw_error_set_details (mismatch, answer);
      stw_invocation_return_error (invocation, mismatch);
      return;
    }
  stw_invocation_return_value (invocation, answer);
}

static void
on_updated (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(StwInvocation) invocation = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(StwVisualCapture) capture = stw_visual_plugin_update_baseline_finish (STW_VISUAL_PLUGIN (object), result, &error);
  g_autoptr(JsonObject) answer = NULL;

  if (capture == NULL)
    {
      stw_invocation_return_error (invocation, error);
      return;
    }
  answer = capture_json (capture);
  json_object_set_boolean_member (answer, "updated", TRUE);
  stw_invocation_return_value (invocation, answer);
}

static double
number_or (JsonObject *arguments,
           const char *member,
           double      fallback)
{
  return json_object_has_member (arguments, member) ? json_object_get_double_member (arguments, member) : fallback;
}

static void
visual_tool_invoke (StwTool       *tool,
                    StwInvocation *invocation)
{
  VisualTool *self = VISUAL_TOOL (tool);
  JsonObject *arguments = stw_invocation_get_arguments (invocation);
  StwSession *session = stw_invocation_get_session (invocation);
  GCancellable *cancellable = stw_invocation_get_cancellable (invocation);
  const char *name = json_object_get_string_member (arguments, "name");

  if (session == NULL && self->action != VISUAL_UPDATE_BASELINE)
    {
      stw_invocation_return_error_literal (invocation, "NOT_RUNNING", "No app is running");
      return;
    }

  switch (self->action)
    {
    case VISUAL_CAPTURE:
      {
        g_autoptr(StwTarget) target = NULL;
        g_autoptr(GError) error = NULL;

        if (json_object_has_member (arguments, "ref") || json_object_has_member (arguments, "selector"))
          {
            target = stw_target_new_from_json (arguments, "ref", "selector", &error);
            if (target == NULL)
              {
                g_autoptr(GError) refused = stw_error_new ("visual.INVALID_SELECTOR", "%s",
                                                           error ? error->message : "Give ref or selector");

                stw_invocation_return_error (invocation, refused);
                return;
              }
          }
        stw_visual_plugin_capture_async (self->plugin, session, name, target,
                                         json_object_get_boolean_member_with_default (arguments, "fullPage", FALSE),
                                         cancellable, on_captured, g_object_ref (invocation));
      }
      break;

    case VISUAL_EXPECT:
      stw_visual_plugin_expect_async (self->plugin, session, name,
                                      number_or (arguments, "threshold", -1),
                                      json_object_has_member (arguments, "maxDiffPixels")
                                        ? json_object_get_int_member (arguments, "maxDiffPixels") : -1,
                                      number_or (arguments, "maxDiffRatio", -1),
                                      cancellable, on_compared, g_object_ref (invocation));
      break;

    case VISUAL_UPDATE_BASELINE:
      stw_visual_plugin_update_baseline_async (self->plugin, name, cancellable, on_updated, g_object_ref (invocation));
      break;

    default:
      g_assert_not_reached ();
    }
}

static void
visual_tool_class_init (VisualToolClass *klass)
{
  STW_TOOL_CLASS (klass)->invoke = visual_tool_invoke;
}

static void
visual_tool_init (VisualTool *self)
{
}

static void
add_tool (StwVisualPlugin    *plugin,
          VisualAction        action,
          const char         *name,
          const char         *title,
          const char         *description,
          const char         *schema_json,
          StwOperationType    type,
          const char * const *codes)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(StwSchema) schema = stw_schema_new_from_string (schema_json, &error);
  VisualTool *tool;

  g_assert_no_error (error);
  tool = g_object_new (VISUAL_TYPE_TOOL,
                       "name", name,
                       "title", title,
                       "description", description,
                       "input-schema", schema,
                       "operation-type", type,
                       "error-codes", codes,
                       "idempotent-hint", FALSE,
                       "destructive-hint", action == VISUAL_UPDATE_BASELINE,
                       "session-requirement", action == VISUAL_UPDATE_BASELINE
                                                ? STW_SESSION_REQUIREMENT_NONE : STW_SESSION_REQUIREMENT_REQUIRED,
                       NULL);
  tool->plugin = plugin;
  tool->action = action;
  stw_tool_provider_add_tool (STW_TOOL_PROVIDER (plugin), STW_TOOL (tool), NULL);
  g_object_unref (tool);
}

#define SESSION_PROP "\"sessionId\":{\"type\":\"string\"}"
#define NAME_PROP "\"name\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":1024}"

void
_stw_visual_plugin_add_tools (StwVisualPlugin *self)
{
  StwToolProvider *provider = STW_TOOL_PROVIDER (self);
  static const struct { const char *code; guint http; gboolean retryable; const char *hint; } codes[] = {
    { "UNSUPPORTED", 409, FALSE, "This session has no window to capture." },
    { "SURFACE_UNSUPPORTED", 409, FALSE, "Capture a window or an element, not a whole frame." },
    { "INVALID_SELECTOR", 400, FALSE, "Give a valid CSS selector or a ref." },
    { "UNSTABLE", 409, TRUE, "Something still moves; stop the animation or capture another element." },
    { "CAPTURE_FAILED", 500, TRUE, "The screenshot failed; retry." },
    { "IMAGE_TOO_LARGE", 413, FALSE, "Capture an element, or raise the config's maxPixels." },
    { "PATH_INVALID", 400, FALSE, "Names are letters, digits, _, - and inner dots; files stay in --app-root." },
    { "BASELINE_NOT_FOUND", 404, FALSE, "visual_capture makes a name's first capture its baseline." },
    { "BASELINE_INVALID", 409, FALSE, "Capture again and visual_update_baseline." },
    { "ENV_MISMATCH", 409, FALSE, "The baseline was taken in another environment; update it in this one." },
    { "MISMATCH", 409, FALSE, "See diffPath; visual_update_baseline if the change is intended." },
    { "WRITE_FAILED", 500, TRUE, "The baseline directory could not be written." },
  };
  static const char * const capture_codes[] = {
    "UNSUPPORTED", "SURFACE_UNSUPPORTED", "INVALID_SELECTOR", "UNSTABLE", "CAPTURE_FAILED",
    "IMAGE_TOO_LARGE", "PATH_INVALID", "BASELINE_INVALID", "WRITE_FAILED", NULL,
  };
  static const char * const expect_codes[] = {
    "UNSUPPORTED", "SURFACE_UNSUPPORTED", "UNSTABLE", "CAPTURE_FAILED", "IMAGE_TOO_LARGE",
    "PATH_INVALID", "BASELINE_NOT_FOUND", "BASELINE_INVALID", "ENV_MISMATCH", "MISMATCH", "WRITE_FAILED", NULL,
  };
  static const char * const update_codes[] = {
    "PATH_INVALID", "BASELINE_NOT_FOUND", "BASELINE_INVALID", "IMAGE_TOO_LARGE", "WRITE_FAILED", NULL,
  };

  for (guint i = 0; i < G_N_ELEMENTS (codes); i++)
    stw_tool_provider_add_error_code (provider, codes[i].code, codes[i].http, codes[i].retryable, codes[i].hint, NULL);

  add_tool (self, VISUAL_CAPTURE, "capture", "Capture a visual baseline",
            "Screenshot (viewport, fullPage, or the element of ref|selector) once two in a row agree, "
            "saved as NAME.actual.png in the baseline dir; a name's first capture is its baseline. "
            "Returns: {name, path, baselinePath, baseline: created|kept, width, height, attempts, "
            "environment{chromiumVersion, deviceScaleFactor, viewport, fontsFingerprint}}.",
            "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"name\"],\"properties\":{"
            SESSION_PROP "," NAME_PROP ",\"ref\":{\"type\":\"integer\",\"minimum\":1},"
            "\"selector\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096},"
            "\"fullPage\":{\"type\":\"boolean\"}}}",
            STW_OPERATION_COMMAND, capture_codes);
  add_tool (self, VISUAL_EXPECT, "expect", "Compare with a visual baseline",
            "Capture what baseline NAME captured and compare, anti-aliasing aware; writes NAME.diff.png "
            "(changes red). threshold: colour tolerance 0-1 (0.1); passes when mismatched <= "
            "max(maxDiffPixels, maxDiffRatio*total), else visual.MISMATCH with the same fields. Returns: "
            "{passed, mismatchedPixels, antiAliasedPixels, totalPixels, allowedPixels, mismatchRatio, "
            "diffPath, actualPath, baselinePath}.",
            "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"name\"],\"properties\":{"
            SESSION_PROP "," NAME_PROP ",\"threshold\":{\"type\":\"number\",\"minimum\":0,\"maximum\":1},"
            "\"maxDiffPixels\":{\"type\":\"integer\",\"minimum\":0},"
            "\"maxDiffRatio\":{\"type\":\"number\",\"minimum\":0,\"maximum\":1}}}",
            STW_OPERATION_COMMAND, expect_codes);
  add_tool (self, VISUAL_UPDATE_BASELINE, "update_baseline", "Adopt a capture as the baseline",
            "Make NAME's last capture (NAME.actual.png and its environment) the baseline. "
            "Returns: {name, path, baselinePath, width, height, environment, updated}.",
            "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"name\",\"confirm\"],\"properties\":{"
            SESSION_PROP "," NAME_PROP ",\"confirm\":{\"const\":true}}}",
            STW_OPERATION_COMMAND, update_codes);
}
