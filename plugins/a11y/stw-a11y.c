/* stw-a11y.c: the a11y plugin's API — axe-core audits with a ref per finding
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Issue 20's a11y plugin. axe-core (never vendored: the config's `engine`,
 * or node_modules/axe-core/axe.min.js under the server's working
 * directory, which `npm install axe-core` fills) is read once, bounded and
 * checked, and evaluated in each frame's isolated world — never the page's
 * main world, never as agent eval — beside the plugin's page-side half
 * (a11y-page.js). An audit runs axe.runPartial in the audited surface and
 * then in each frame axe asks for, depth first, finding each frame's
 * surface from its element through the DOM domain; axe.finishRun merges
 * the partial results in the top frame's isolated world, as
 * @axe-core/playwright does, instead of axe's cross-frame postMessage
 * protocol (turned off: the page could see and forge it). Every offending
 * element then gets a ref through stw_surface_bind_element_ref(), so an
 * agent acts on it at once.
 *
 * The page is hostile: it cannot reach the isolated world's globals, but
 * it can hang its renderer or grow its DOM, so the whole audit has a time
 * budget (`timeoutMs`), each frame's partial result and their sum a size
 * budget (`maxResultBytes`), the frames a count (`maxFrames`) and the
 * answer's nodes a cap per rule (`maxNodes`).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stw-a11y-private.h"

#define A11Y_PAGE_RESOURCE   "/org/stagewright/plugins/a11y/a11y-page.js"
#define A11Y_ENGINE_DEFAULT  "node_modules/axe-core/axe.min.js"
#define A11Y_MAX_HTML        300
#define A11Y_MAX_RULES       200

GResource *a11y_get_resource (void);

/* --- errors -------------------------------------------------------------- */

G_DEFINE_ENUM_TYPE (StwA11yError, stw_a11y_error,
                    G_DEFINE_ENUM_VALUE (STW_A11Y_ERROR_UNSUPPORTED, "unsupported"),
                    G_DEFINE_ENUM_VALUE (STW_A11Y_ERROR_INVALID_SELECTOR, "invalid-selector"),
                    G_DEFINE_ENUM_VALUE (STW_A11Y_ERROR_SCOPE_NOT_FOUND, "scope-not-found"),
                    G_DEFINE_ENUM_VALUE (STW_A11Y_ERROR_ENGINE_FAILED, "engine-failed"))

/**
 * stw_a11y_error_quark:
 *
 * The error domain of the a11y plugin, `stw-a11y-error-quark`, registered
 * with stw_error_register_domain() so that stw_error_new() makes its codes
 * in it.
 *
 * Returns: %STW_A11Y_ERROR
 *
 * Since: 1.0
 */
GQuark
stw_a11y_error_quark (void)
{
  static gsize quark;

  if (g_once_init_enter (&quark))
    g_once_init_leave (&quark, stw_error_register_domain ("a11y", STW_TYPE_A11Y_ERROR));
  return (GQuark) quark;
}

/* --- results ------------------------------------------------------------- */

/**
 * StwA11yNode:
 *
 * One element that fails a rule: its ref, its selector path (one
 * selector per frame from the audited surface down, shadow-DOM steps
 * joined by ` >>> `), its HTML (shortened) and axe's summary of what to
 * fix.
 *
 * Since: 1.0
 */
struct _StwA11yNode
{
  GObject        parent_instance;
  StwElementRef *element;
  GStrv          target;
  char          *html;
  char          *failure_summary;
  char          *impact;
};

G_DEFINE_FINAL_TYPE (StwA11yNode, stw_a11y_node, G_TYPE_OBJECT)

enum
{
  NODE_PROP_0,
  NODE_PROP_ELEMENT,
  NODE_PROP_TARGET,
  NODE_PROP_HTML,
  NODE_PROP_FAILURE_SUMMARY,
  NODE_PROP_IMPACT,
  N_NODE_PROPS
};

static GParamSpec *node_props[N_NODE_PROPS];

static void
stw_a11y_node_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  StwA11yNode *self = STW_A11Y_NODE (object);

  switch (prop_id)
    {
    case NODE_PROP_ELEMENT: g_value_set_boxed (value, self->element); break;
    case NODE_PROP_TARGET: g_value_set_boxed (value, self->target); break;
    case NODE_PROP_HTML: g_value_set_string (value, self->html); break;
    case NODE_PROP_FAILURE_SUMMARY: g_value_set_string (value, self->failure_summary); break;
    case NODE_PROP_IMPACT: g_value_set_string (value, self->impact); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
stw_a11y_node_finalize (GObject *object)
{
  StwA11yNode *self = STW_A11Y_NODE (object);

  g_clear_pointer (&self->element, stw_element_ref_free);
  g_strfreev (self->target);
  g_free (self->html);
  g_free (self->failure_summary);
  g_free (self->impact);
  G_OBJECT_CLASS (stw_a11y_node_parent_class)->finalize (object);
}

static void
stw_a11y_node_class_init (StwA11yNodeClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->get_property = stw_a11y_node_get_property;
  object_class->finalize = stw_a11y_node_finalize;

  /**
   * StwA11yNode:element: (getter get_element)
   *
   * The element's ref in the session (its existing ref when it had one),
   * for any element operation of the core; %NULL only when its document
   * went away during the audit.
   *
   * Since: 1.0
   */
  node_props[NODE_PROP_ELEMENT] = g_param_spec_boxed ("element", NULL, NULL, STW_TYPE_ELEMENT_REF, flags);
  /**
   * StwA11yNode:target: (getter get_target)
   *
   * axe's selector path to the element: one selector per frame from the
   * audited surface down.
   *
   * Since: 1.0
   */
  node_props[NODE_PROP_TARGET] = g_param_spec_boxed ("target", NULL, NULL, G_TYPE_STRV, flags);
  /**
   * StwA11yNode:html: (getter get_html)
   *
   * The element's HTML, shortened to 300 characters.
   *
   * Since: 1.0
   */
  node_props[NODE_PROP_HTML] = g_param_spec_string ("html", NULL, NULL, NULL, flags);
  /**
   * StwA11yNode:failure-summary: (getter get_failure_summary)
   *
   * axe's summary of what to fix.
   *
   * Since: 1.0
   */
  node_props[NODE_PROP_FAILURE_SUMMARY] = g_param_spec_string ("failure-summary", NULL, NULL, NULL, flags);
  /**
   * StwA11yNode:impact: (getter get_impact)
   *
   * `minor`, `moderate`, `serious`, `critical`, or empty.
   *
   * Since: 1.0
   */
  node_props[NODE_PROP_IMPACT] = g_param_spec_string ("impact", NULL, NULL, NULL, flags);
  g_object_class_install_properties (object_class, N_NODE_PROPS, node_props);
}

static void
stw_a11y_node_init (StwA11yNode *self)
{
}

/**
 * stw_a11y_node_get_element:
 * @self: a #StwA11yNode
 *
 * Returns: (transfer none) (nullable): the element's ref, %NULL when its
 *   document went before it could be given one
 *
 * Since: 1.0
 */
const StwElementRef *
stw_a11y_node_get_element (StwA11yNode *self)
{
  g_return_val_if_fail (STW_IS_A11Y_NODE (self), NULL);
  return self->element;
}

/**
 * stw_a11y_node_get_target:
 * @self: a #StwA11yNode
 *
 * Returns: (transfer none) (array zero-terminated=1): the selector path
 *
 * Since: 1.0
 */
const char * const *
stw_a11y_node_get_target (StwA11yNode *self)
{
  g_return_val_if_fail (STW_IS_A11Y_NODE (self), NULL);
  return (const char * const *) self->target;
}

/**
 * stw_a11y_node_get_html:
 * @self: a #StwA11yNode
 *
 * Returns: (transfer none): the element's HTML, shortened
 *
 * Since: 1.0
 */
const char *
stw_a11y_node_get_html (StwA11yNode *self)
{
  g_return_val_if_fail (STW_IS_A11Y_NODE (self), NULL);
  return self->html;
}

/**
 * stw_a11y_node_get_failure_summary:
 * @self: a #StwA11yNode
 *
 * Returns: (transfer none): axe's summary of what to fix
 *
 * Since: 1.0
 */
const char *
stw_a11y_node_get_failure_summary (StwA11yNode *self)
{
  g_return_val_if_fail (STW_IS_A11Y_NODE (self), NULL);
  return self->failure_summary;
}

/**
 * stw_a11y_node_get_impact:
 * @self: a #StwA11yNode
 *
 * Returns: (transfer none): `minor`, `moderate`, `serious`, `critical`
 *   or empty
 *
 * Since: 1.0
 */
const char *
stw_a11y_node_get_impact (StwA11yNode *self)
{
  g_return_val_if_fail (STW_IS_A11Y_NODE (self), NULL);
  return self->impact;
}

/**
 * StwA11yViolation:
 *
 * One axe rule that failed, with the elements that fail it.
 *
 * Since: 1.0
 */
struct _StwA11yViolation
{
  GObject     parent_instance;
  char       *id;
  char       *impact;
  char       *description;
  char       *help;
  char       *help_url;
  GStrv       tags;
  GListStore *nodes;     /* StwA11yNode */
  guint       n_nodes;   /* before the cap */
};

G_DEFINE_FINAL_TYPE (StwA11yViolation, stw_a11y_violation, G_TYPE_OBJECT)

enum
{
  VIOLATION_PROP_0,
  VIOLATION_PROP_ID,
  VIOLATION_PROP_IMPACT,
  VIOLATION_PROP_DESCRIPTION,
  VIOLATION_PROP_HELP,
  VIOLATION_PROP_HELP_URL,
  VIOLATION_PROP_TAGS,
  VIOLATION_PROP_NODES,
  VIOLATION_PROP_N_NODES,
  N_VIOLATION_PROPS
};

static GParamSpec *violation_props[N_VIOLATION_PROPS];

static void
stw_a11y_violation_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  StwA11yViolation *self = STW_A11Y_VIOLATION (object);

  switch (prop_id)
    {
    case VIOLATION_PROP_ID: g_value_set_string (value, self->id); break;
    case VIOLATION_PROP_IMPACT: g_value_set_string (value, self->impact); break;
    case VIOLATION_PROP_DESCRIPTION: g_value_set_string (value, self->description); break;
    case VIOLATION_PROP_HELP: g_value_set_string (value, self->help); break;
    case VIOLATION_PROP_HELP_URL: g_value_set_string (value, self->help_url); break;
    case VIOLATION_PROP_TAGS: g_value_set_boxed (value, self->tags); break;
    case VIOLATION_PROP_NODES: g_value_set_object (value, self->nodes); break;
    case VIOLATION_PROP_N_NODES: g_value_set_uint (value, self->n_nodes); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
stw_a11y_violation_finalize (GObject *object)
{
  StwA11yViolation *self = STW_A11Y_VIOLATION (object);

  g_free (self->id);
  g_free (self->impact);
  g_free (self->description);
  g_free (self->help);
  g_free (self->help_url);
  g_strfreev (self->tags);
  g_clear_object (&self->nodes);
  G_OBJECT_CLASS (stw_a11y_violation_parent_class)->finalize (object);
}

static void
stw_a11y_violation_class_init (StwA11yViolationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->get_property = stw_a11y_violation_get_property;
  object_class->finalize = stw_a11y_violation_finalize;

  /**
   * StwA11yViolation:id: (getter get_id)
   *
   * The axe rule's id, e.g. `image-alt`.
   *
   * Since: 1.0
   */
  violation_props[VIOLATION_PROP_ID] = g_param_spec_string ("id", NULL, NULL, NULL, flags);
  /**
   * StwA11yViolation:impact: (getter get_impact)
   *
   * The worst impact among its nodes.
   *
   * Since: 1.0
   */
  violation_props[VIOLATION_PROP_IMPACT] = g_param_spec_string ("impact", NULL, NULL, NULL, flags);
  /**
   * StwA11yViolation:description: (getter get_description)
   *
   * What the rule checks.
   *
   * Since: 1.0
   */
  violation_props[VIOLATION_PROP_DESCRIPTION] = g_param_spec_string ("description", NULL, NULL, NULL, flags);
  /**
   * StwA11yViolation:help: (getter get_help)
   *
   * The rule's one-line help.
   *
   * Since: 1.0
   */
  violation_props[VIOLATION_PROP_HELP] = g_param_spec_string ("help", NULL, NULL, NULL, flags);
  /**
   * StwA11yViolation:help-url: (getter get_help_url)
   *
   * Where Deque explains the rule.
   *
   * Since: 1.0
   */
  violation_props[VIOLATION_PROP_HELP_URL] = g_param_spec_string ("help-url", NULL, NULL, NULL, flags);
  /**
   * StwA11yViolation:tags: (getter get_tags)
   *
   * The rule's tags (`wcag2a`, `wcag111`, `best-practice`, …).
   *
   * Since: 1.0
   */
  violation_props[VIOLATION_PROP_TAGS] = g_param_spec_boxed ("tags", NULL, NULL, G_TYPE_STRV, flags);
  /**
   * StwA11yViolation:nodes: (getter get_nodes)
   *
   * The failing elements, each a #StwA11yNode, at most the config's
   * `maxNodes`.
   *
   * Since: 1.0
   */
  violation_props[VIOLATION_PROP_NODES] = g_param_spec_object ("nodes", NULL, NULL, G_TYPE_LIST_MODEL, flags);
  /**
   * StwA11yViolation:n-nodes: (getter get_n_nodes)
   *
   * How many elements fail the rule, those past the cap included.
   *
   * Since: 1.0
   */
  violation_props[VIOLATION_PROP_N_NODES] = g_param_spec_uint ("n-nodes", NULL, NULL, 0, G_MAXUINT, 0, flags);
  g_object_class_install_properties (object_class, N_VIOLATION_PROPS, violation_props);
}

static void
stw_a11y_violation_init (StwA11yViolation *self)
{
  self->nodes = g_list_store_new (STW_TYPE_A11Y_NODE);
}

/**
 * stw_a11y_violation_get_id:
 * @self: a #StwA11yViolation
 *
 * Returns: (transfer none): the axe rule's id, e.g. `image-alt`
 *
 * Since: 1.0
 */
const char *
stw_a11y_violation_get_id (StwA11yViolation *self)
{
  g_return_val_if_fail (STW_IS_A11Y_VIOLATION (self), NULL);
  return self->id;
}

/**
 * stw_a11y_violation_get_impact:
 * @self: a #StwA11yViolation
 *
 * Returns: (transfer none): the worst impact among its nodes
 *
 * Since: 1.0
 */
const char *
stw_a11y_violation_get_impact (StwA11yViolation *self)
{
  g_return_val_if_fail (STW_IS_A11Y_VIOLATION (self), NULL);
  return self->impact;
}

/**
 * stw_a11y_violation_get_description:
 * @self: a #StwA11yViolation
 *
 * Returns: (transfer none): what the rule checks
 *
 * Since: 1.0
 */
const char *
stw_a11y_violation_get_description (StwA11yViolation *self)
{
  g_return_val_if_fail (STW_IS_A11Y_VIOLATION (self), NULL);
  return self->description;
}

/**
 * stw_a11y_violation_get_help:
 * @self: a #StwA11yViolation
 *
 * Returns: (transfer none): the rule's one-line help
 *
 * Since: 1.0
 */
const char *
stw_a11y_violation_get_help (StwA11yViolation *self)
{
  g_return_val_if_fail (STW_IS_A11Y_VIOLATION (self), NULL);
  return self->help;
}

/**
 * stw_a11y_violation_get_help_url:
 * @self: a #StwA11yViolation
 *
 * Returns: (transfer none): where Deque explains the rule
 *
 * Since: 1.0
 */
const char *
stw_a11y_violation_get_help_url (StwA11yViolation *self)
{
  g_return_val_if_fail (STW_IS_A11Y_VIOLATION (self), NULL);
  return self->help_url;
}

/**
 * stw_a11y_violation_get_tags:
 * @self: a #StwA11yViolation
 *
 * Returns: (transfer none) (array zero-terminated=1): the rule's tags
 *   (`wcag2a`, `wcag111`, `best-practice`, …)
 *
 * Since: 1.0
 */
const char * const *
stw_a11y_violation_get_tags (StwA11yViolation *self)
{
  g_return_val_if_fail (STW_IS_A11Y_VIOLATION (self), NULL);
  return (const char * const *) self->tags;
}

/**
 * stw_a11y_violation_get_nodes:
 * @self: a #StwA11yViolation
 *
 * Returns: (transfer none): the failing elements, each a #StwA11yNode, at
 *   most the config's `maxNodes`
 *
 * Since: 1.0
 */
GListModel *
stw_a11y_violation_get_nodes (StwA11yViolation *self)
{
  g_return_val_if_fail (STW_IS_A11Y_VIOLATION (self), NULL);
  return G_LIST_MODEL (self->nodes);
}

/**
 * stw_a11y_violation_get_n_nodes:
 * @self: a #StwA11yViolation
 *
 * Returns: how many elements fail the rule, those past the cap included
 *
 * Since: 1.0
 */
guint
stw_a11y_violation_get_n_nodes (StwA11yViolation *self)
{
  g_return_val_if_fail (STW_IS_A11Y_VIOLATION (self), 0);
  return self->n_nodes;
}

/**
 * StwA11yReport:
 *
 * What an audit found: the violations grouped by rule, how many rules
 * need review (incomplete), passed or did not apply, and what the audit
 * could and could not see (its capabilities: the engine's version, the
 * frames audited and skipped, closed shadow roots, notes).
 *
 * Since: 1.0
 */
struct _StwA11yReport
{
  GObject     parent_instance;
  GListStore *violations;  /* StwA11yViolation */
  guint       n_violations;
  guint       n_incomplete;
  guint       n_passes;
  guint       n_inapplicable;
  gboolean    truncated;
  char       *surface_id;
  char       *engine_version;
  guint       n_frames;
  guint       n_frames_skipped;
};

G_DEFINE_FINAL_TYPE (StwA11yReport, stw_a11y_report, G_TYPE_OBJECT)

enum
{
  REPORT_PROP_0,
  REPORT_PROP_VIOLATIONS,
  REPORT_PROP_N_VIOLATIONS,
  REPORT_PROP_N_INCOMPLETE,
  REPORT_PROP_N_PASSES,
  REPORT_PROP_N_INAPPLICABLE,
  REPORT_PROP_TRUNCATED,
  REPORT_PROP_SURFACE_ID,
  REPORT_PROP_ENGINE_VERSION,
  REPORT_PROP_N_FRAMES,
  REPORT_PROP_N_FRAMES_SKIPPED,
  REPORT_PROP_CLOSED_SHADOW_ROOTS,
  REPORT_PROP_NOTES,
  N_REPORT_PROPS
};

static GParamSpec *report_props[N_REPORT_PROPS];

/* What every audit can and cannot see (the answer's capabilities.notes). */
static const char * const report_notes[] = {
  "axe builds its tree through shadowRoot: elements inside closed shadow roots are not audited",
  "frames are audited one by one with axe.runPartial and merged with axe.finishRun; axe's cross-frame "
  "postMessage is off",
  NULL,
};

static void
stw_a11y_report_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  StwA11yReport *self = STW_A11Y_REPORT (object);

  switch (prop_id)
    {
    case REPORT_PROP_VIOLATIONS: g_value_set_object (value, self->violations); break;
    case REPORT_PROP_N_VIOLATIONS: g_value_set_uint (value, self->n_violations); break;
    case REPORT_PROP_N_INCOMPLETE: g_value_set_uint (value, self->n_incomplete); break;
    case REPORT_PROP_N_PASSES: g_value_set_uint (value, self->n_passes); break;
    case REPORT_PROP_N_INAPPLICABLE: g_value_set_uint (value, self->n_inapplicable); break;
    case REPORT_PROP_TRUNCATED: g_value_set_boolean (value, self->truncated); break;
    case REPORT_PROP_SURFACE_ID: g_value_set_string (value, self->surface_id); break;
    case REPORT_PROP_ENGINE_VERSION: g_value_set_string (value, self->engine_version); break;
    case REPORT_PROP_N_FRAMES: g_value_set_uint (value, self->n_frames); break;
    case REPORT_PROP_N_FRAMES_SKIPPED: g_value_set_uint (value, self->n_frames_skipped); break;
    case REPORT_PROP_CLOSED_SHADOW_ROOTS: g_value_set_boolean (value, FALSE); break;
    case REPORT_PROP_NOTES: g_value_set_boxed (value, report_notes); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
stw_a11y_report_finalize (GObject *object)
{
  StwA11yReport *self = STW_A11Y_REPORT (object);

  g_clear_object (&self->violations);
  g_free (self->surface_id);
  g_free (self->engine_version);
  G_OBJECT_CLASS (stw_a11y_report_parent_class)->finalize (object);
}

static void
stw_a11y_report_class_init (StwA11yReportClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->get_property = stw_a11y_report_get_property;
  object_class->finalize = stw_a11y_report_finalize;

  /**
   * StwA11yReport:violations: (getter get_violations)
   *
   * The rules that failed, each a #StwA11yViolation (at most 200).
   *
   * Since: 1.0
   */
  report_props[REPORT_PROP_VIOLATIONS] = g_param_spec_object ("violations", NULL, NULL, G_TYPE_LIST_MODEL, flags);
  /**
   * StwA11yReport:n-violations: (getter get_n_violations)
   *
   * How many rules failed, those past the cap included.
   *
   * Since: 1.0
   */
  report_props[REPORT_PROP_N_VIOLATIONS] = g_param_spec_uint ("n-violations", NULL, NULL, 0, G_MAXUINT, 0, flags);
  /**
   * StwA11yReport:n-incomplete: (getter get_n_incomplete)
   *
   * How many rules need a person's review.
   *
   * Since: 1.0
   */
  report_props[REPORT_PROP_N_INCOMPLETE] = g_param_spec_uint ("n-incomplete", NULL, NULL, 0, G_MAXUINT, 0, flags);
  /**
   * StwA11yReport:n-passes: (getter get_n_passes)
   *
   * How many rules passed.
   *
   * Since: 1.0
   */
  report_props[REPORT_PROP_N_PASSES] = g_param_spec_uint ("n-passes", NULL, NULL, 0, G_MAXUINT, 0, flags);
  /**
   * StwA11yReport:n-inapplicable: (getter get_n_inapplicable)
   *
   * How many rules found nothing to check.
   *
   * Since: 1.0
   */
  report_props[REPORT_PROP_N_INAPPLICABLE] = g_param_spec_uint ("n-inapplicable", NULL, NULL, 0, G_MAXUINT, 0,
                                                                flags);
  /**
   * StwA11yReport:truncated: (getter get_truncated)
   *
   * Whether rules or nodes past the caps were left out.
   *
   * Since: 1.0
   */
  report_props[REPORT_PROP_TRUNCATED] = g_param_spec_boolean ("truncated", NULL, NULL, FALSE, flags);
  /**
   * StwA11yReport:surface-id: (getter get_surface_id)
   *
   * The surface audited (its frames with it).
   *
   * Since: 1.0
   */
  report_props[REPORT_PROP_SURFACE_ID] = g_param_spec_string ("surface-id", NULL, NULL, NULL, flags);
  /**
   * StwA11yReport:engine-version: (getter get_engine_version)
   *
   * The axe-core version that ran.
   *
   * Since: 1.0
   */
  report_props[REPORT_PROP_ENGINE_VERSION] = g_param_spec_string ("engine-version", NULL, NULL, NULL, flags);
  /**
   * StwA11yReport:n-frames: (getter get_n_frames)
   *
   * How many documents were audited, the surface's own included.
   *
   * Since: 1.0
   */
  report_props[REPORT_PROP_N_FRAMES] = g_param_spec_uint ("n-frames", NULL, NULL, 0, G_MAXUINT, 0, flags);
  /**
   * StwA11yReport:n-frames-skipped: (getter get_n_frames_skipped)
   *
   * How many frames axe asked for could not be audited (gone, not
   * reachable, past `maxFrames`, too large, or their audit failed).
   *
   * Since: 1.0
   */
  report_props[REPORT_PROP_N_FRAMES_SKIPPED] = g_param_spec_uint ("n-frames-skipped", NULL, NULL, 0, G_MAXUINT, 0,
                                                                  flags);
  /**
   * StwA11yReport:closed-shadow-roots: (getter get_closed_shadow_roots)
   *
   * Whether elements inside closed shadow roots were audited: never, as
   * axe builds its tree through `shadowRoot`.
   *
   * Since: 1.0
   */
  report_props[REPORT_PROP_CLOSED_SHADOW_ROOTS] = g_param_spec_boolean ("closed-shadow-roots", NULL, NULL, FALSE,
                                                                        flags);
  /**
   * StwA11yReport:notes: (getter get_notes)
   *
   * What the audit could not see, and how it ran, in words.
   *
   * Since: 1.0
   */
  report_props[REPORT_PROP_NOTES] = g_param_spec_boxed ("notes", NULL, NULL, G_TYPE_STRV, flags);
  g_object_class_install_properties (object_class, N_REPORT_PROPS, report_props);
}

static void
stw_a11y_report_init (StwA11yReport *self)
{
  self->violations = g_list_store_new (STW_TYPE_A11Y_VIOLATION);
}

/**
 * stw_a11y_report_get_violations:
 * @self: a #StwA11yReport
 *
 * Returns: (transfer none): the rules that failed, each a
 *   #StwA11yViolation
 *
 * Since: 1.0
 */
GListModel *
stw_a11y_report_get_violations (StwA11yReport *self)
{
  g_return_val_if_fail (STW_IS_A11Y_REPORT (self), NULL);
  return G_LIST_MODEL (self->violations);
}

/**
 * stw_a11y_report_get_n_violations:
 * @self: a #StwA11yReport
 *
 * Returns: how many rules failed, those past the cap included
 *
 * Since: 1.0
 */
guint
stw_a11y_report_get_n_violations (StwA11yReport *self)
{
  g_return_val_if_fail (STW_IS_A11Y_REPORT (self), 0);
  return self->n_violations;
}

/**
 * stw_a11y_report_get_n_incomplete:
 * @self: a #StwA11yReport
 *
 * Returns: how many rules need a person's review
 *
 * Since: 1.0
 */
guint
stw_a11y_report_get_n_incomplete (StwA11yReport *self)
{
  g_return_val_if_fail (STW_IS_A11Y_REPORT (self), 0);
  return self->n_incomplete;
}

/**
 * stw_a11y_report_get_n_passes:
 * @self: a #StwA11yReport
 *
 * Returns: how many rules passed
 *
 * Since: 1.0
 */
guint
stw_a11y_report_get_n_passes (StwA11yReport *self)
{
  g_return_val_if_fail (STW_IS_A11Y_REPORT (self), 0);
  return self->n_passes;
}

/**
 * stw_a11y_report_get_n_inapplicable:
 * @self: a #StwA11yReport
 *
 * Returns: how many rules found nothing to check
 *
 * Since: 1.0
 */
guint
stw_a11y_report_get_n_inapplicable (StwA11yReport *self)
{
  g_return_val_if_fail (STW_IS_A11Y_REPORT (self), 0);
  return self->n_inapplicable;
}

/**
 * stw_a11y_report_get_truncated:
 * @self: a #StwA11yReport
 *
 * Returns: whether rules or nodes past the caps were left out
 *
 * Since: 1.0
 */
gboolean
stw_a11y_report_get_truncated (StwA11yReport *self)
{
  g_return_val_if_fail (STW_IS_A11Y_REPORT (self), FALSE);
  return self->truncated;
}

/**
 * stw_a11y_report_get_surface_id:
 * @self: a #StwA11yReport
 *
 * Returns: (transfer none): the surface audited (its frames with it)
 *
 * Since: 1.0
 */
const char *
stw_a11y_report_get_surface_id (StwA11yReport *self)
{
  g_return_val_if_fail (STW_IS_A11Y_REPORT (self), NULL);
  return self->surface_id;
}

/**
 * stw_a11y_report_get_engine_version:
 * @self: a #StwA11yReport
 *
 * Returns: (transfer none): the axe-core version that ran
 *
 * Since: 1.0
 */
const char *
stw_a11y_report_get_engine_version (StwA11yReport *self)
{
  g_return_val_if_fail (STW_IS_A11Y_REPORT (self), NULL);
  return self->engine_version;
}

/**
 * stw_a11y_report_get_n_frames:
 * @self: a #StwA11yReport
 *
 * Returns: how many documents were audited, the surface's own included
 *
 * Since: 1.0
 */
guint
stw_a11y_report_get_n_frames (StwA11yReport *self)
{
  g_return_val_if_fail (STW_IS_A11Y_REPORT (self), 0);
  return self->n_frames;
}

/**
 * stw_a11y_report_get_n_frames_skipped:
 * @self: a #StwA11yReport
 *
 * Returns: how many frames axe asked for could not be audited
 *
 * Since: 1.0
 */
guint
stw_a11y_report_get_n_frames_skipped (StwA11yReport *self)
{
  g_return_val_if_fail (STW_IS_A11Y_REPORT (self), 0);
  return self->n_frames_skipped;
}

/**
 * stw_a11y_report_get_closed_shadow_roots:
 * @self: a #StwA11yReport
 *
 * Returns: whether elements inside closed shadow roots were audited
 *   (%FALSE: axe cannot see them)
 *
 * Since: 1.0
 */
gboolean
stw_a11y_report_get_closed_shadow_roots (StwA11yReport *self)
{
  g_return_val_if_fail (STW_IS_A11Y_REPORT (self), FALSE);
  return FALSE;
}

/**
 * stw_a11y_report_get_notes:
 * @self: a #StwA11yReport
 *
 * Returns: (transfer none) (array zero-terminated=1): what the audit could
 *   not see, and how it ran, in words
 *
 * Since: 1.0
 */
const char * const *
stw_a11y_report_get_notes (StwA11yReport *self)
{
  g_return_val_if_fail (STW_IS_A11Y_REPORT (self), NULL);
  return report_notes;
}

/* --- the plugin ---------------------------------------------------------- */

/**
 * StwA11yPlugin:
 *
 * The a11y plugin (`--plugin a11y`): audits the session's pages with
 * axe-core, in each frame's isolated world, and gives every offending
 * element a ref. Its tool, `a11y_audit`, is a thin layer over
 * [method@StagewrightA11y.A11yPlugin.audit_async].
 *
 * Since: 1.0
 */
struct _StwA11yPlugin
{
  StwPlugin  parent_instance;
  char      *engine_path;   /* where the engine below was read from */
  GBytes    *engine;        /* read once, checked */
};

G_DEFINE_FINAL_TYPE (StwA11yPlugin, stw_a11y_plugin, STW_TYPE_PLUGIN)

static void
stw_a11y_plugin_finalize (GObject *object)
{
  StwA11yPlugin *self = STW_A11Y_PLUGIN (object);

  g_free (self->engine_path);
  g_clear_pointer (&self->engine, g_bytes_unref);
  G_OBJECT_CLASS (stw_a11y_plugin_parent_class)->finalize (object);
}

static void
stw_a11y_plugin_class_init (StwA11yPluginClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = stw_a11y_plugin_finalize;
  /* From now on the plugin's codes are made in its own error domain. */
  stw_a11y_error_quark ();
}

static void
stw_a11y_plugin_init (StwA11yPlugin *self)
{
  _stw_a11y_plugin_add_tools (self);
}

/**
 * stw_a11y_plugin_new:
 *
 * Makes the a11y plugin, as `--plugin a11y` loads it. Outside a
 * dispatcher it has no config: it reads the engine from the default
 * location (`node_modules/axe-core/axe.min.js` under the working
 * directory) and uses the default bounds.
 *
 * Returns: (transfer full): the plugin
 *
 * Since: 1.0
 */
StwA11yPlugin *
stw_a11y_plugin_new (void)
{
  g_autoptr(StwSchema) config = stw_schema_new_from_string (
    "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
    "\"engine\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096,\"x-stagewright-safe\":true},"
    "\"timeoutMs\":{\"type\":\"integer\",\"minimum\":1000,\"maximum\":110000,\"default\":30000,"
    "\"x-stagewright-safe\":true},"
    "\"maxNodes\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000,\"default\":25,"
    "\"x-stagewright-safe\":true},"
    "\"maxFrames\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":256,\"default\":32,"
    "\"x-stagewright-safe\":true},"
    "\"maxResultBytes\":{\"type\":\"integer\",\"minimum\":65536,\"maximum\":268435456,"
    "\"default\":33554432,\"x-stagewright-safe\":true}}}", NULL);

  return g_object_new (STW_TYPE_A11Y_PLUGIN,
                       "name", "a11y",
                       "version", "0.1.0",
                       "core-versions", ">=0.1",
                       "description", "Audits the app's pages with axe-core; a ref for every finding.",
                       "config-schema", config,
                       NULL);
}

static gint64
config_int (StwA11yPlugin *self,
            const char    *member,
            gint64         fallback)
{
  JsonObject *config = stw_plugin_get_config (STW_PLUGIN (self));

  return config != NULL ? json_object_get_int_member_with_default (config, member, fallback) : fallback;
}

/* --- the engine ---------------------------------------------------------- */

static GError *
unsupported (const char *path,
             const char *why)
{
  GError *error = stw_error_new ("a11y.UNSUPPORTED", "No usable axe-core engine at %s: %s", path, why);
  g_autoptr(JsonObject) details = json_object_new ();

  json_object_set_string_member (details, "engine", path);
  stw_error_set_details (error, details);
  stw_error_set_hint (error, "Run `npm install axe-core` in the server's working directory (it fills "
                             A11Y_ENGINE_DEFAULT "), or point the plugin at an axe.min.js with "
                             "--plugin-config 'a11y={\"engine\":\"/path/to/axe.min.js\"}'");
  return error;
}

/* Reads the engine once: a regular file, at most 16 MiB, UTF-8, that
 * defines axe (window.axe and runPartial are in its text). A file that
 * is missing now may be installed later, so only success is kept. */
static GBytes *
load_engine (StwA11yPlugin  *self,
             GError        **error)
{
  JsonObject *config = stw_plugin_get_config (STW_PLUGIN (self));
  const char *path = config != NULL ? json_object_get_string_member_with_default (config, "engine", NULL) : NULL;
  g_autofree char *data = NULL;
  struct stat st;
  gsize length = 0;
  int fd;

  if (path == NULL)
    path = A11Y_ENGINE_DEFAULT;
  if (self->engine != NULL && g_strcmp0 (self->engine_path, path) == 0)
    return g_bytes_ref (self->engine);

  fd = open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0)
    {
      *error = unsupported (path, g_strerror (errno));
      return NULL;
    }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || st.st_size > STW_A11Y_ENGINE_MAX_SIZE)
    {
      close (fd);
      *error = unsupported (path, "not a regular file of at most 16 MiB");
      return NULL;
    }
  data = g_malloc ((gsize) st.st_size + 1);
  while (length < (gsize) st.st_size)
    {
      gssize n = read (fd, data + length, (gsize) st.st_size - length);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      length += (gsize) n;
    }
  close (fd);
  data[length] = '\0';
  if (length != (gsize) st.st_size || !g_utf8_validate (data, length, NULL) ||
      strstr (data, "window.axe") == NULL || strstr (data, "runPartial") == NULL)
    {
      *error = unsupported (path, "it is not axe-core (it does not define axe.runPartial)");
      return NULL;
    }

  g_free (self->engine_path);
  self->engine_path = g_strdup (path);
  g_clear_pointer (&self->engine, g_bytes_unref);
  self->engine = g_bytes_new_take (g_steal_pointer (&data), length);
  return g_bytes_ref (self->engine);
}

/* --- an audit ------------------------------------------------------------ */

JsonArray *
_stw_a11y_strv_to_json (const char * const *strv)
{
  JsonArray *array = json_array_new ();

  for (guint i = 0; strv != NULL && strv[i] != NULL; i++)
    json_array_add_string_element (array, strv[i]);
  return array;
}

typedef struct
{
  StwSurface *surface;
  JsonNode   *context;        /* axe's context for this frame (null: all) */
  JsonNode   *partial;        /* its partial result (a string); NULL: skipped */
  JsonObject *handles;        /* in-frame selector → handle */
  JsonArray  *frame_keys;     /* the frames axe wants, by element key */
  JsonArray  *frame_contexts;
  gint64      world;
  guint       next_child;
  gboolean    injected;
} Frame;

static void
frame_free (Frame *frame)
{
  g_clear_object (&frame->surface);
  g_clear_pointer (&frame->context, json_node_unref);
  g_clear_pointer (&frame->partial, json_node_unref);
  g_clear_pointer (&frame->handles, json_object_unref);
  g_clear_pointer (&frame->frame_keys, json_array_unref);
  g_clear_pointer (&frame->frame_contexts, json_array_unref);
  g_free (frame);
}

typedef struct
{
  StwSession   *session;
  GBytes       *engine;
  StwTarget    *scope;
  gint64        scope_key;
  gint64        scope_world;
  JsonObject   *request;     /* {tags, rules}, then {options} from the top frame */
  GPtrArray    *frames;      /* Frame*, depth first (the order finishRun wants) */
  GArray       *stack;       /* indices of frames whose children are pending */
  GCancellable *cancellable; /* ours: the caller's and the time budget */
  GCancellable *caller;
  gulong        caller_handler;
  GSource      *timeout;
  gboolean      timed_out;
  gboolean      refreshed;
  guint         timeout_ms;
  guint         max_nodes;
  guint         max_frames;
  gsize         bytes_left;
  guint         skipped;
  char         *child_object;  /* the frame element being looked up */
  char         *child_frame;   /* and the frame it shows, while surfaces refresh */
  GTask        *task;          /* unowned: the chain of calls holds it */
  gboolean      done;          /* answered: what is still pending only ends */
} Audit;

static void
audit_free (Audit *audit)
{
  if (audit->caller_handler != 0)
    g_cancellable_disconnect (audit->caller, audit->caller_handler);
  if (audit->timeout != NULL)
    {
      g_source_destroy (audit->timeout);
      g_source_unref (audit->timeout);
    }
  g_clear_object (&audit->caller);
  g_clear_object (&audit->cancellable);
  g_clear_object (&audit->session);
  g_clear_pointer (&audit->engine, g_bytes_unref);
  g_clear_pointer (&audit->scope, stw_target_free);
  g_clear_pointer (&audit->request, json_object_unref);
  g_clear_pointer (&audit->frames, g_ptr_array_unref);
  g_clear_pointer (&audit->stack, g_array_unref);
  g_free (audit->child_object);
  g_free (audit->child_frame);
  g_free (audit);
}

static GError *
engine_failed (const char *message)
{
  GError *error = stw_error_new ("a11y.ENGINE_FAILED", "axe-core failed: %s", message);

  stw_error_set_hint (error, "Narrow the audit (ref, selector or rules) or retry; the page may be busy");
  return error;
}

/* Ends the audit with @error, saying the time budget ran out when that is
 * why our cancellable fired. */
static void
audit_fail (GTask  *task,
            GError *error)
{
  Audit *audit = g_task_get_task_data (task);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) && audit->timed_out)
    {
      g_autoptr(JsonObject) details = json_object_new ();

      g_error_free (error);
      error = stw_error_new ("a11y.ENGINE_FAILED", "The audit did not finish in %u ms", audit->timeout_ms);
      json_object_set_int_member (details, "timeoutMs", audit->timeout_ms);
      stw_error_set_details (error, details);
      stw_error_set_hint (error, "The page may be hung or very large: narrow the audit (ref, selector, "
                                 "rules) or raise the plugin's timeoutMs");
    }
  if (!audit->done)
    {
      audit->done = TRUE;
      g_task_return_error (task, error);
    }
  else
    g_error_free (error);
  g_object_unref (task);
}

/* Whether the audit was answered already (its time ran out while a call
 * was pending, which a hung renderer never answers): the call that ends
 * now only lets go of the task. */
static gboolean
audit_abandoned (GTask *task)
{
  Audit *audit = g_task_get_task_data (task);

  if (!audit->done)
    return FALSE;
  g_object_unref (task);
  return TRUE;
}

/* A failure of a page call: the surface's own (closed, not running) as
 * it is, the rest as the engine's. */
static GError *
page_call_error (GError *error)
{
  const char *code = stw_error_get_code_name (error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
      g_strcmp0 (code, "NOT_RUNNING") == 0 || g_strcmp0 (code, "SURFACE_CLOSED") == 0)
    return error;
  {
    GError *failed = engine_failed (error->message);

    g_error_free (error);
    return failed;
  }
}

static gboolean
on_timeout (gpointer user_data)
{
  Audit *audit = user_data;

  audit->timed_out = TRUE;
  g_clear_pointer (&audit->timeout, g_source_unref);
  g_cancellable_cancel (audit->cancellable);
  /* A pending call may not end before the transport's own timeout: the
   * answer does not wait for it. */
  if (!audit->done)
    {
      g_object_ref (audit->task);
      audit_fail (audit->task, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, "Timed out"));
    }
  return G_SOURCE_REMOVE;
}

static void
on_caller_cancelled (GCancellable *caller,
                     GCancellable *ours)
{
  g_cancellable_cancel (ours);
}

static void run_frame (GTask *task, Frame *frame);
static void audit_next (GTask *task);

static Frame *
frame_new (StwSurface *surface,
           JsonNode   *context)
{
  Frame *frame = g_new0 (Frame, 1);

  frame->surface = surface != NULL ? g_object_ref (surface) : NULL;
  frame->context = context != NULL ? json_node_copy (context) : json_node_new (JSON_NODE_NULL);
  return frame;
}

/* A frame axe asked for that cannot be audited: finishRun gets null for
 * it, and for nothing below it. */
static void
skip_frame (GTask *task)
{
  Audit *audit = g_task_get_task_data (task);

  g_ptr_array_add (audit->frames, frame_new (NULL, NULL));
  audit->skipped++;
  audit_next (task);
}

static const char *
page_error_code (JsonObject *answer)
{
  JsonObject *failure = answer != NULL && json_object_has_member (answer, "error")
                        ? json_object_get_object_member (answer, "error") : NULL;

  return failure != NULL ? json_object_get_string_member_with_default (failure, "code", "ENGINE_FAILED") : NULL;
}

static const char *
page_error_message (JsonObject *answer)
{
  JsonObject *failure = json_object_get_object_member (answer, "error");

  return failure != NULL ? json_object_get_string_member_with_default (failure, "message", "") : "";
}

static void
on_injected (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  GTask *task = user_data;
  Audit *audit = g_task_get_task_data (task);
  Frame *frame = g_ptr_array_index (audit->frames, audit->frames->len - 1);
  g_autoptr(JsonNode) value = NULL;
  GError *error = NULL;
  JsonObject *answer;

  value = stw_surface_call_isolated_finish (STW_SURFACE (object), result, &error);
  if (audit_abandoned (task))
    {
      g_clear_error (&error);
      return;
    }
  answer = value != NULL && JSON_NODE_HOLDS_OBJECT (value) ? json_node_get_object (value) : NULL;
  if (value == NULL || answer == NULL || page_error_code (answer) != NULL)
    {
      if (audit->frames->len > 1 && !g_cancellable_is_cancelled (audit->cancellable))
        {
          g_clear_error (&error);
          g_clear_object (&frame->surface);
          audit->skipped++;
          audit_next (task);
          return;
        }
      audit_fail (task, error != NULL ? page_call_error (error)
                                      : engine_failed (answer ? page_error_message (answer)
                                                              : "the engine gave no answer"));
      return;
    }
  run_frame (task, frame);
}

/* Evaluates the engine and the plugin's page-side half in the frame's
 * isolated world, once per document. */
static void
inject (GTask *task,
        Frame *frame)
{
  Audit *audit = g_task_get_task_data (task);
  g_autoptr(GBytes) page = g_resource_lookup_data (a11y_get_resource (), A11Y_PAGE_RESOURCE,
                                                    G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  g_autofree char *function = NULL;

  /* A missing part is a packaging bug, not a runtime condition. */
  g_assert (page != NULL);
  frame->injected = TRUE;
  function = g_strdup_printf ("function () {\n%.*s\n;\nreturn (%.*s)(globalThis.__stagewright, globalThis.axe);\n}",
                              (int) g_bytes_get_size (audit->engine),
                              (const char *) g_bytes_get_data (audit->engine, NULL),
                              (int) g_bytes_get_size (page), (const char *) g_bytes_get_data (page, NULL));
  stw_surface_call_isolated_async (frame->surface, function, NULL, audit->cancellable, on_injected, task);
}

static gboolean
holds (JsonObject   *object,
       const char   *member,
       JsonNodeType  type)
{
  JsonNode *node = json_object_get_member (object, member);

  return node != NULL && JSON_NODE_TYPE (node) == type;
}

static void
on_frame_run (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  GTask *task = user_data;
  Audit *audit = g_task_get_task_data (task);
  Frame *frame = g_ptr_array_index (audit->frames, audit->frames->len - 1);
  gboolean top = audit->frames->len == 1;
  g_autoptr(JsonNode) value = NULL;
  GError *error = NULL;
  JsonObject *answer;
  const char *code;
  guint index;

  value = stw_surface_call_isolated_finish (STW_SURFACE (object), result, &error);
  if (audit_abandoned (task))
    {
      g_clear_error (&error);
      return;
    }
  answer = value != NULL && JSON_NODE_HOLDS_OBJECT (value) ? json_node_get_object (value) : NULL;
  if (answer != NULL && json_object_get_boolean_member_with_default (answer, "needsEngine", FALSE) &&
      !frame->injected)
    {
      inject (task, frame);
      return;
    }

  code = answer != NULL ? page_error_code (answer) : NULL;
  if (value == NULL || answer == NULL || code != NULL || !holds (answer, "partial", JSON_NODE_VALUE) ||
      !holds (answer, "handles", JSON_NODE_OBJECT) || !holds (answer, "frameKeys", JSON_NODE_ARRAY) ||
      !holds (answer, "frameContexts", JSON_NODE_ARRAY) || !holds (answer, "options", JSON_NODE_OBJECT))
    {
      if (!top && !g_cancellable_is_cancelled (audit->cancellable))
        {
          g_clear_error (&error);
          g_clear_object (&frame->surface);
          audit->skipped++;
          audit_next (task);
          return;
        }
      if (error != NULL)
        error = page_call_error (error);
      else if (g_strcmp0 (code, "SCOPE_NOT_FOUND") == 0)
        error = stw_error_new ("a11y.SCOPE_NOT_FOUND", "The audit's scope is gone: %s", page_error_message (answer));
      else if (g_strcmp0 (code, "BAD_ARGUMENT") == 0)
        error = stw_error_new_code (STW_ERROR_BAD_ARGUMENT, "%s", page_error_message (answer));
      else
        error = engine_failed (answer != NULL && code != NULL ? page_error_message (answer)
                                                              : "the engine gave no answer");
      audit_fail (task, error);
      return;
    }

  frame->partial = json_node_ref (json_object_get_member (answer, "partial"));
  if (json_node_get_string (frame->partial) == NULL ||
      strlen (json_node_get_string (frame->partial)) > audit->bytes_left)
    {
      /* The sum of the partial results is bounded too. */
      g_clear_pointer (&frame->partial, json_node_unref);
      if (!top)
        {
          g_clear_object (&frame->surface);
          audit->skipped++;
          audit_next (task);
          return;
        }
      audit_fail (task, engine_failed ("the result is larger than the plugin's maxResultBytes"));
      return;
    }
  audit->bytes_left -= strlen (json_node_get_string (frame->partial));
  frame->world = json_object_get_int_member_with_default (answer, "world", 0);
  frame->handles = json_object_ref (json_object_get_object_member (answer, "handles"));
  frame->frame_keys = json_array_ref (json_object_get_array_member (answer, "frameKeys"));
  frame->frame_contexts = json_array_ref (json_object_get_array_member (answer, "frameContexts"));
  if (top)
    {
      /* Every other frame runs with the options the top frame made. */
      JsonObject *request = json_object_new ();

      json_object_set_member (request, "options", json_node_copy (json_object_get_member (answer, "options")));
      g_clear_pointer (&audit->request, json_object_unref);
      audit->request = request;
    }
  index = audit->frames->len - 1;
  g_array_append_val (audit->stack, index);
  audit_next (task);
}

#define A11Y_RUN_FUNCTION \
  "(k, w, c, r, m) => { const S = globalThis.__stagewright; " \
  "return S && S.a11yPlugin ? S.a11yPlugin.run (k, w, c, r, m) : { needsEngine: true }; }"

static void
run_frame (GTask *task,
           Frame *frame)
{
  Audit *audit = g_task_get_task_data (task);
  g_autoptr(JsonArray) args = json_array_new ();
  gboolean top = audit->frames->len == 1;

  json_array_add_int_element (args, top ? audit->scope_key : 0);
  json_array_add_int_element (args, top ? audit->scope_world : 0);
  json_array_add_element (args, json_node_copy (frame->context));
  json_array_add_object_element (args, json_object_ref (audit->request));
  json_array_add_int_element (args, (gint64) audit->bytes_left);
  stw_surface_call_isolated_async (frame->surface, A11Y_RUN_FUNCTION, args, audit->cancellable,
                                   on_frame_run, task);
}

static void
start_frame (GTask      *task,
             StwSurface *surface,
             JsonNode   *context)
{
  Audit *audit = g_task_get_task_data (task);
  Frame *frame = frame_new (surface, context);

  g_ptr_array_add (audit->frames, frame);
  run_frame (task, frame);
}

/* The surface showing the document of DevTools frame @frame_id. A frame
 * that went out of process may still be listed as the same-process frame
 * it was: the target of its own (its target id is the frame's) wins. */
static StwSurface *
surface_for_frame (StwSession *session,
                   const char *frame_id)
{
  GList *surfaces = stw_session_list_surfaces (session);
  StwSurface *found = NULL;

  for (GList *l = surfaces; l != NULL; l = l->next)
    {
      if (stw_surface_is_closed (l->data) || g_strcmp0 (stw_surface_get_frame_id (l->data), frame_id) != 0)
        continue;
      if (found == NULL || g_strcmp0 (stw_surface_get_target_id (l->data), frame_id) == 0)
        found = l->data;
    }
  if (found != NULL)
    g_object_ref (found);
  g_list_free (surfaces);
  return found;
}

static void
release_object (StwSurface *surface,
                const char *object_id)
{
  g_autoptr(JsonObject) params = json_object_new ();

  json_object_set_string_member (params, "objectId", object_id);
  stw_surface_send_cdp_async (surface, "Runtime.releaseObject", params, NULL, NULL, NULL);
}

static void found_child (GTask *task, const char *frame_id);

static void
on_surfaces_refreshed (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  GTask *task = user_data;
  Audit *audit = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  const char *frame_id = audit->child_frame;

  stw_session_refresh_surfaces_finish (STW_SESSION (object), result, &error);
  if (audit_abandoned (task))
    return;
  if (g_cancellable_is_cancelled (audit->cancellable))
    {
      audit_fail (task, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, "Cancelled"));
      return;
    }
  found_child (task, frame_id);
}

static void
found_child (GTask      *task,
             const char *frame_id)
{
  Audit *audit = g_task_get_task_data (task);
  Frame *parent = g_ptr_array_index (audit->frames, g_array_index (audit->stack, guint, audit->stack->len - 1));
  g_autoptr(StwSurface) surface = frame_id != NULL ? surface_for_frame (audit->session, frame_id) : NULL;
  JsonNode *context;

  if (surface == NULL && frame_id != NULL && !audit->refreshed)
    {
      /* A same-process frame becomes a surface when the frame tree is read. */
      audit->refreshed = TRUE;
      g_free (audit->child_frame);
      audit->child_frame = g_strdup (frame_id);
      stw_session_refresh_surfaces_async (audit->session, audit->cancellable, on_surfaces_refreshed, task);
      return;
    }
  if (surface == NULL)
    {
      skip_frame (task);
      return;
    }
  context = json_array_get_element (parent->frame_contexts, parent->next_child - 1);
  start_frame (task, surface, context);
}

static void
on_owner_described (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  GTask *task = user_data;
  Audit *audit = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) reply = stw_surface_send_cdp_finish (STW_SURFACE (object), result, &error);
  JsonObject *node = reply != NULL && json_object_has_member (reply, "node")
                     ? json_object_get_object_member (reply, "node") : NULL;
  g_autofree char *frame_id = NULL;

  release_object (STW_SURFACE (object), audit->child_object);
  if (audit_abandoned (task))
    return;
  if (g_cancellable_is_cancelled (audit->cancellable))
    {
      audit_fail (task, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, "Cancelled"));
      return;
    }
  frame_id = g_strdup (node != NULL ? json_object_get_string_member_with_default (node, "frameId", NULL) : NULL);
  found_child (task, frame_id);
}

static void
on_owner_object (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  GTask *task = user_data;
  Audit *audit = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) reply = stw_surface_send_cdp_finish (STW_SURFACE (object), result, &error);
  JsonObject *remote = reply != NULL && json_object_has_member (reply, "result")
                       ? json_object_get_object_member (reply, "result") : NULL;
  const char *object_id = remote != NULL ? json_object_get_string_member_with_default (remote, "objectId", NULL) : NULL;
  g_autoptr(JsonObject) params = NULL;

  if (audit_abandoned (task))
    return;
  if (g_cancellable_is_cancelled (audit->cancellable))
    {
      audit_fail (task, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, "Cancelled"));
      return;
    }
  if (object_id == NULL)
    {
      skip_frame (task);
      return;
    }
  g_free (audit->child_object);
  audit->child_object = g_strdup (object_id);
  params = json_object_new ();
  json_object_set_string_member (params, "objectId", object_id);
  stw_surface_send_cdp_async (STW_SURFACE (object), "DOM.describeNode", params, audit->cancellable,
                              on_owner_described, task);
}

/* Finds the surface of a frame axe asked for from its element's key in
 * the parent's isolated world: DOM.describeNode names the frame it shows
 * (an out-of-process frame's id is its target's), without guessing from
 * URLs or order. */
static void
find_child (GTask *task,
            Frame *parent,
            gint64 key)
{
  g_autoptr(JsonObject) params = json_object_new ();
  JsonArray *arguments = json_array_new ();
  JsonObject *argument = json_object_new ();
  Audit *audit = g_task_get_task_data (task);

  json_object_set_string_member (params, "functionDeclaration",
                                 "function (k) { return globalThis.__stagewright.element (k); }");
  json_object_set_int_member (params, "executionContextId", parent->world);
  json_object_set_int_member (argument, "value", key);
  json_array_add_object_element (arguments, argument);
  json_object_set_array_member (params, "arguments", arguments);
  stw_surface_send_cdp_async (parent->surface, "Runtime.callFunctionOn", params, audit->cancellable,
                              on_owner_object, task);
}

static void finish_run (GTask *task);

/* The next frame in depth-first order: the next child axe asked for of
 * the deepest frame that has one left, or the merge when none is left. */
static void
audit_next (GTask *task)
{
  Audit *audit = g_task_get_task_data (task);

  if (g_cancellable_is_cancelled (audit->cancellable))
    {
      audit_fail (task, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, "Cancelled"));
      return;
    }
  while (audit->stack->len > 0)
    {
      Frame *parent = g_ptr_array_index (audit->frames, g_array_index (audit->stack, guint, audit->stack->len - 1));

      if (parent->next_child < json_array_get_length (parent->frame_keys))
        {
          gint64 key = json_array_get_int_element (parent->frame_keys, parent->next_child++);

          if (key <= 0 || audit->frames->len >= audit->max_frames)
            skip_frame (task);
          else
            find_child (task, parent, key);
          return;
        }
      g_array_set_size (audit->stack, audit->stack->len - 1);
    }
  finish_run (task);
}

static GStrv
json_strv (JsonObject *object,
           const char *member)
{
  JsonArray *array = json_object_has_member (object, member) ? json_object_get_array_member (object, member) : NULL;
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  for (guint i = 0; array != NULL && i < json_array_get_length (array); i++)
    {
      const char *value = json_node_get_string (json_array_get_element (array, i));

      if (value != NULL)
        g_strv_builder_add (builder, value);
    }
  return g_strv_builder_end (builder);
}

static char *
json_string (JsonObject *object,
             const char *member)
{
  return g_strdup (json_object_get_string_member_with_default (object, member, ""));
}

static StwA11yNode *
node_new (Audit      *audit,
          JsonObject *item)
{
  StwA11yNode *node = g_object_new (STW_TYPE_A11Y_NODE, NULL);
  gint64 index = json_object_get_int_member_with_default (item, "frame", -1);
  JsonNode *handle = json_object_get_member (item, "handle");

  node->target = json_strv (item, "target");
  node->html = json_string (item, "html");
  node->failure_summary = json_string (item, "failureSummary");
  node->impact = json_string (item, "impact");
  if (index >= 0 && index < audit->frames->len && handle != NULL && JSON_NODE_HOLDS_OBJECT (handle))
    {
      Frame *frame = g_ptr_array_index (audit->frames, index);

      /* Its document may have gone meanwhile: the node is kept, without a ref. */
      if (frame->surface != NULL)
        node->element = stw_surface_bind_element_ref (frame->surface, json_node_get_object (handle), NULL);
    }
  return node;
}

static StwA11yViolation *
violation_new (Audit      *audit,
               JsonObject *item)
{
  StwA11yViolation *violation = g_object_new (STW_TYPE_A11Y_VIOLATION, NULL);
  JsonArray *nodes = json_object_has_member (item, "nodes") ? json_object_get_array_member (item, "nodes") : NULL;

  violation->id = json_string (item, "id");
  violation->impact = json_string (item, "impact");
  violation->description = json_string (item, "description");
  violation->help = json_string (item, "help");
  violation->help_url = json_string (item, "helpUrl");
  violation->tags = json_strv (item, "tags");
  violation->n_nodes = (guint) CLAMP (json_object_get_int_member_with_default (item, "nodeCount", 0), 0, G_MAXUINT);
  for (guint j = 0; nodes != NULL && j < json_array_get_length (nodes) && j < audit->max_nodes; j++)
    {
      JsonObject *node = json_array_get_object_element (nodes, j);

      if (node != NULL)
        {
          g_autoptr(StwA11yNode) added = node_new (audit, node);

          g_list_store_append (violation->nodes, added);
        }
    }
  return violation;
}

static guint
json_count (JsonObject *object,
            const char *member)
{
  return (guint) CLAMP (json_object_get_int_member_with_default (object, member, 0), 0, G_MAXUINT);
}

static StwA11yReport *
report_new (Audit      *audit,
            JsonObject *answer)
{
  StwA11yReport *report = g_object_new (STW_TYPE_A11Y_REPORT, NULL);
  JsonArray *violations = json_object_has_member (answer, "violations")
                          ? json_object_get_array_member (answer, "violations") : NULL;
  Frame *top = g_ptr_array_index (audit->frames, 0);
  guint n_listed = 0;

  for (guint i = 0; violations != NULL && i < json_array_get_length (violations); i++)
    {
      JsonObject *item = json_array_get_object_element (violations, i);
      g_autoptr(StwA11yViolation) violation = NULL;

      if (item == NULL)
        continue;
      violation = violation_new (audit, item);
      if (g_list_model_get_n_items (G_LIST_MODEL (violation->nodes)) < violation->n_nodes)
        report->truncated = TRUE;
      g_list_store_append (report->violations, violation);
      n_listed++;
    }
  report->n_violations = json_count (answer, "violationCount");
  if (report->n_violations > n_listed)
    report->truncated = TRUE;
  report->n_incomplete = json_count (answer, "incomplete");
  report->n_passes = json_count (answer, "passes");
  report->n_inapplicable = json_count (answer, "inapplicable");
  report->engine_version = json_string (answer, "version");
  report->surface_id = g_strdup (stw_surface_get_id (top->surface));
  report->n_frames = audit->frames->len - audit->skipped;
  report->n_frames_skipped = audit->skipped;
  return report;
}

static void
on_finished (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  GTask *task = user_data;
  Audit *audit = g_task_get_task_data (task);
  g_autoptr(JsonNode) value = NULL;
  GError *error = NULL;
  JsonObject *answer;

  value = stw_surface_call_isolated_finish (STW_SURFACE (object), result, &error);
  if (audit_abandoned (task))
    {
      g_clear_error (&error);
      return;
    }
  answer = value != NULL && JSON_NODE_HOLDS_OBJECT (value) ? json_node_get_object (value) : NULL;
  if (value == NULL || answer == NULL || page_error_code (answer) != NULL)
    {
      audit_fail (task, error != NULL ? page_call_error (error)
                                      : engine_failed (answer ? page_error_message (answer)
                                                              : "axe.finishRun gave no answer"));
      return;
    }
  audit->done = TRUE;
  g_task_return_pointer (task, report_new (audit, answer), g_object_unref);
  g_object_unref (task);
}

#define A11Y_FINISH_FUNCTION \
  "(p, h, o, l) => globalThis.__stagewright.a11yPlugin.finish (p, h, o, l)"

/* Merges every frame's partial result in the top frame's isolated world:
 * the page's scripts cannot reach it, so it needs no blank page of its
 * own (@axe-core/playwright opens one because it runs in the main world). */
static void
finish_run (GTask *task)
{
  Audit *audit = g_task_get_task_data (task);
  Frame *top = g_ptr_array_index (audit->frames, 0);
  g_autoptr(JsonArray) args = json_array_new ();
  JsonArray *partials = json_array_new ();
  JsonArray *handles = json_array_new ();
  JsonObject *limits = json_object_new ();

  for (guint i = 0; i < audit->frames->len; i++)
    {
      Frame *frame = g_ptr_array_index (audit->frames, i);

      if (frame->partial != NULL)
        {
          json_array_add_element (partials, json_node_ref (frame->partial));
          json_array_add_object_element (handles, json_object_ref (frame->handles));
        }
      else
        {
          json_array_add_null_element (partials);
          json_array_add_null_element (handles);
        }
    }
  json_object_set_int_member (limits, "maxNodes", audit->max_nodes);
  json_object_set_int_member (limits, "maxRules", A11Y_MAX_RULES);
  json_object_set_int_member (limits, "maxHtml", A11Y_MAX_HTML);
  json_array_add_array_element (args, partials);
  json_array_add_array_element (args, handles);
  json_array_add_element (args, json_node_copy (json_object_get_member (audit->request, "options")));
  json_array_add_object_element (args, limits);
  stw_surface_call_isolated_async (top->surface, A11Y_FINISH_FUNCTION, args, audit->cancellable, on_finished, task);
}

static void
on_scope_resolved (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  GTask *task = user_data;
  Audit *audit = g_task_get_task_data (task);
  g_autoptr(StwSurface) surface = NULL;
  g_autoptr(JsonObject) handle = NULL;
  GError *error = NULL;

  handle = stw_surface_resolve_element_finish (STW_SURFACE (object), result, &surface, &error);
  if (audit_abandoned (task))
    {
      g_clear_error (&error);
      return;
    }
  if (handle == NULL)
    {
      const char *code = stw_error_get_code_name (error);
      GError *mapped = NULL;

      if (g_strcmp0 (code, "BAD_ARGUMENT") == 0)
        {
          mapped = stw_error_new ("a11y.INVALID_SELECTOR", "%s", error->message);
          stw_error_set_hint (mapped, "Give a valid CSS selector, or a ref from a snapshot");
        }
      else if (g_strcmp0 (code, "SELECTOR_NO_MATCH") == 0 || g_strcmp0 (code, "REF_NOT_FOUND") == 0)
        {
          mapped = stw_error_new ("a11y.SCOPE_NOT_FOUND", "%s", error->message);
          if (stw_error_get_details (error) != NULL)
            stw_error_set_details (mapped, stw_error_get_details (error));
          if (stw_error_get_similar_refs (error) != NULL)
            stw_error_set_similar_refs (mapped, stw_error_get_similar_refs (error));
        }
      if (mapped != NULL)
        {
          g_error_free (error);
          error = mapped;
        }
      audit_fail (task, error);
      return;
    }
  audit->scope_key = json_object_get_int_member_with_default (handle, "key", 0);
  audit->scope_world = json_object_get_int_member_with_default (handle, "world", 0);
  start_frame (task, surface, NULL);
}

/* The tags or rules of a request: bounded as the tool's schema bounds
 * them, for callers that do not pass through it. */
static gboolean
check_names (const char * const  *names,
             const char          *what,
             GError             **error)
{
  guint n = names != NULL ? g_strv_length ((char **) names) : 0;

  if (n > STW_A11Y_MAX_NAMES)
    {
      g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT, "At most %d %s, not %u",
                                                    STW_A11Y_MAX_NAMES, what, n));
      return FALSE;
    }
  for (guint i = 0; i < n; i++)
    {
      if (!g_utf8_validate (names[i], -1, NULL) || *names[i] == '\0' || g_utf8_strlen (names[i], -1) > 100)
        {
          g_propagate_error (error, stw_error_new_code (STW_ERROR_BAD_ARGUMENT, "Each of the %s is 1 to 100 "
                                                        "characters of UTF-8 (item %u is not)", what, i));
          return FALSE;
        }
    }
  return TRUE;
}

/**
 * stw_a11y_plugin_audit_async:
 * @self: a #StwA11yPlugin
 * @session: the session whose active surface (and its frames) is audited
 * @scope: (nullable): the element whose subtree is audited (a ref, which
 *   may be in a frame, or a selector), %NULL for the whole surface
 * @tags: (nullable) (array zero-terminated=1): only the rules with one of
 *   these tags (`wcag2a`, `wcag2aa`, `best-practice`, …)
 * @rules: (nullable) (array zero-terminated=1): only these rules
 * @cancellable: (nullable): a #GCancellable
 * @callback: called with the audit
 * @user_data: data for @callback
 *
 * Runs axe-core on the session's active surface and the frames in it, in
 * their isolated worlds, and gives every offending element a ref.
 *
 * The checks are the API's own, whoever calls: the engine is read only
 * from the config's `engine` or the default location, as a regular file
 * of at most %STW_A11Y_ENGINE_MAX_SIZE bytes that defines axe; at most
 * %STW_A11Y_MAX_NAMES tags and rules of 1 to 100 characters each; the
 * scope is resolved in the session (a ref of any of its frames, or a selector in
 * the active surface); the time, the frames, the result's size and the
 * nodes per rule are bounded by the config (`timeoutMs`, `maxFrames`,
 * `maxResultBytes`, `maxNodes`).
 *
 * Fails with `a11y.UNSUPPORTED` (no engine), `a11y.INVALID_SELECTOR`,
 * `a11y.SCOPE_NOT_FOUND`, `a11y.ENGINE_FAILED` (axe failed, or the audit
 * ran past the config's `timeoutMs`), `BAD_ARGUMENT` (too many, or
 * unknown, rules or tags), `NOT_RUNNING` or `SURFACE_CLOSED`.
 *
 * Since: 1.0
 */
void
stw_a11y_plugin_audit_async (StwA11yPlugin       *self,
                             StwSession          *session,
                             const StwTarget     *scope,
                             const char * const  *tags,
                             const char * const  *rules,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  GTask *task;
  Audit *audit;
  GError *error = NULL;
  StwSurface *surface;
  g_autoptr(GBytes) engine = NULL;

  g_return_if_fail (STW_IS_A11Y_PLUGIN (self));
  g_return_if_fail (STW_IS_SESSION (session));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, stw_a11y_plugin_audit_async);

  if (!check_names (tags, "tags", &error) || !check_names (rules, "rules", &error) ||
      (engine = load_engine (self, &error)) == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  surface = stw_session_is_running (session) ? stw_session_get_active_surface (session) : NULL;
  if (surface == NULL)
    {
      g_task_return_error (task, stw_error_new_code (STW_ERROR_NOT_RUNNING, "The app has no window to audit"));
      g_object_unref (task);
      return;
    }

  audit = g_new0 (Audit, 1);
  audit->session = g_object_ref (session);
  audit->engine = g_steal_pointer (&engine);
  audit->scope = scope != NULL ? stw_target_copy (scope) : NULL;
  audit->request = json_object_new ();
  json_object_set_array_member (audit->request, "tags", _stw_a11y_strv_to_json (tags));
  json_object_set_array_member (audit->request, "rules", _stw_a11y_strv_to_json (rules));
  audit->frames = g_ptr_array_new_with_free_func ((GDestroyNotify) frame_free);
  audit->stack = g_array_new (FALSE, FALSE, sizeof (guint));
  audit->timeout_ms = (guint) config_int (self, "timeoutMs", 30000);
  audit->max_nodes = (guint) config_int (self, "maxNodes", 25);
  audit->max_frames = (guint) config_int (self, "maxFrames", 32);
  audit->bytes_left = (gsize) config_int (self, "maxResultBytes", 32 * 1024 * 1024);
  audit->cancellable = g_cancellable_new ();
  if (cancellable != NULL)
    {
      audit->caller = g_object_ref (cancellable);
      audit->caller_handler = g_cancellable_connect (cancellable, G_CALLBACK (on_caller_cancelled),
                                                     audit->cancellable, NULL);
    }
  /* The budget bounds a page that hangs its renderer: the pending call is
   * cancelled, and audit_free() removes the source if it has not fired. */
  audit->timeout = g_timeout_source_new (audit->timeout_ms);
  g_source_set_callback (audit->timeout, on_timeout, audit, NULL);
  g_source_attach (audit->timeout, g_main_context_get_thread_default ());
  g_task_set_task_data (task, audit, (GDestroyNotify) audit_free);
  audit->task = task;

  if (audit->scope != NULL)
    stw_surface_resolve_element_async (surface, audit->scope, audit->cancellable, on_scope_resolved, task);
  else
    start_frame (task, surface, NULL);
}

/**
 * stw_a11y_plugin_audit_finish:
 * @self: a #StwA11yPlugin
 * @result: the #GAsyncResult
 * @error: where to put the failure
 *
 * Finishes [method@StagewrightA11y.A11yPlugin.audit_async].
 *
 * Returns: (transfer full): the report, or %NULL with @error set
 *
 * Since: 1.0
 */
StwA11yReport *
stw_a11y_plugin_audit_finish (StwA11yPlugin  *self,
                              GAsyncResult   *result,
                              GError        **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == stw_a11y_plugin_audit_async, NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * stw_a11y_plugin_audit_sync:
 * @self: a #StwA11yPlugin
 * @session: the session whose active surface (and its frames) is audited
 * @scope: (nullable): the element whose subtree is audited, %NULL for the
 *   whole surface
 * @tags: (nullable) (array zero-terminated=1): only the rules with one of
 *   these tags
 * @rules: (nullable) (array zero-terminated=1): only these rules
 * @cancellable: (nullable): a #GCancellable
 * @error: where to put the failure
 *
 * The blocking form of [method@StagewrightA11y.A11yPlugin.audit_async].
 *
 * Returns: (transfer full): the report, or %NULL with @error set
 *
 * Since: 1.0
 */
StwA11yReport *
stw_a11y_plugin_audit_sync (StwA11yPlugin       *self,
                            StwSession          *session,
                            const StwTarget     *scope,
                            const char * const  *tags,
                            const char * const  *rules,
                            GCancellable        *cancellable,
                            GError             **error)
{
  StwSyncCall call;
  StwA11yReport *ret;

  if (!stw_sync_call_init (&call, session))
    return NULL;
  stw_a11y_plugin_audit_async (self, session, scope, tags, rules, cancellable, stw_sync_call_callback, &call);
  ret = stw_a11y_plugin_audit_finish (self, stw_sync_call_wait (&call), error);
  stw_sync_call_clear (&call);
  return ret;
}
