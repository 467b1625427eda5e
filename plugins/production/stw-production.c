/* stw-production.c: StwProductionPlugin, its checks and its typed report
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Issue 20's production plugin (the reference's ADR-012 for Linux): checks
 * a packaged Electron app — an unpacked directory, an AppImage or a .deb —
 * and answers each check as pass, fail or unknown with its evidence:
 *
 *   artifact.structure   the directory listed, the AppImage's ELF runtime
 *                        and squashfs (unsquashfs at the offset the ELF
 *                        section headers end at), the .deb's ar members
 *   fuses.wire           the Electron fuse wire in the app's binary
 *   fuses.<Option>       RunAsNode, EnableCookieEncryption,
 *                        EnableNodeOptionsEnvironmentVariable,
 *                        EnableNodeCliInspectArguments, OnlyLoadAppFromAsar
 *                        against their secure value;
 *                        EnableEmbeddedAsarIntegrityValidation is
 *                        informational on Linux (Electron does not enforce
 *                        it there): it passes and says its value
 *   asar.present         resources/app.asar
 *   asar.integrity       the header's per-file SHA256 and block hashes
 *   sandbox              chrome-sandbox root-owned 4755, or the documented
 *                        alternative the evidence names
 *   desktop              desktop-file-validate, and an icon it resolves to
 *   appimage.signature   an AppImage's .sha256_sig section, when present
 *   deb.control          the control file's required fields
 *   deb.scripts          the maintainer scripts
 *
 * Every input is hostile: nothing of the artifact runs, every read is
 * bounded, every tool runs with a deadline and is ended by its pid
 * (production-source.c). Over MCP the path is confined to --app-root:
 * the confinement is here, in the API, so C and Python callers of a
 * plugin loaded into a dispatcher with an app root get it too.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stw-production.h"
#include "production-formats.h"
#include "production-private.h"

void production_add_tools (StwProductionPlugin *plugin);

#define MAX_DESKTOP_BYTES (64 * 1024)
#define MAX_DESKTOP_FILES 4
#define MAX_BINARIES 8
#define MAX_EVIDENCE_LINES 6

G_DEFINE_ENUM_TYPE (StwProductionStatus, stw_production_status,
                    G_DEFINE_ENUM_VALUE (STW_PRODUCTION_STATUS_PASS, "pass"),
                    G_DEFINE_ENUM_VALUE (STW_PRODUCTION_STATUS_FAIL, "fail"),
                    G_DEFINE_ENUM_VALUE (STW_PRODUCTION_STATUS_UNKNOWN, "unknown"))

G_DEFINE_ENUM_TYPE (StwProductionError, stw_production_error,
                    G_DEFINE_ENUM_VALUE (STW_PRODUCTION_ERROR_APP_NOT_FOUND, "app-not-found"),
                    G_DEFINE_ENUM_VALUE (STW_PRODUCTION_ERROR_NOT_A_BUNDLE, "not-a-bundle"),
                    G_DEFINE_ENUM_VALUE (STW_PRODUCTION_ERROR_UNSUPPORTED_ARTIFACT, "unsupported-artifact"))

/**
 * stw_production_error_quark:
 *
 * The error domain of the production plugin, `stw-production-error-quark`, registered
 * with stw_error_register_domain() so that stw_error_new() makes its codes
 * in it.
 *
 * Returns: %STW_PRODUCTION_ERROR
 *
 * Since: 1.0
 */
GQuark
stw_production_error_quark (void)
{
  return stw_error_register_domain ("production", STW_TYPE_PRODUCTION_ERROR);
}

/* --- StwProductionCheck -------------------------------------------------- */

/**
 * StwProductionCheck:
 *
 * One check of a validation: its id (`fuses.RunAsNode`, `sandbox`, …),
 * its [enum@StagewrightProduction.Status] and the evidence it rests on.
 *
 * Since: 1.0
 */
struct _StwProductionCheck
{
  GObject parent_instance;
  char *id;
  StwProductionStatus status;
  char *evidence;
};

G_DEFINE_FINAL_TYPE (StwProductionCheck, stw_production_check, G_TYPE_OBJECT)

enum { CHECK_PROP_0, CHECK_PROP_ID, CHECK_PROP_STATUS, CHECK_PROP_EVIDENCE, CHECK_N_PROPS };
static GParamSpec *check_props[CHECK_N_PROPS];

static void
stw_production_check_finalize (GObject *object)
{
  StwProductionCheck *self = STW_PRODUCTION_CHECK (object);

  g_free (self->id);
  g_free (self->evidence);
  G_OBJECT_CLASS (stw_production_check_parent_class)->finalize (object);
}

static void
stw_production_check_get_property (GObject    *object,
                                   guint       prop_id,
                                   GValue     *value,
                                   GParamSpec *pspec)
{
  StwProductionCheck *self = STW_PRODUCTION_CHECK (object);

  switch (prop_id)
    {
    case CHECK_PROP_ID: g_value_set_string (value, self->id); break;
    case CHECK_PROP_STATUS: g_value_set_enum (value, self->status); break;
    case CHECK_PROP_EVIDENCE: g_value_set_string (value, self->evidence); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
stw_production_check_class_init (StwProductionCheckClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = stw_production_check_finalize;
  object_class->get_property = stw_production_check_get_property;
  /**
   * StwProductionCheck:id:
   *
   * The check's id, e.g. `fuses.RunAsNode`.
   *
   * Since: 1.0
   */
  check_props[CHECK_PROP_ID] = g_param_spec_string ("id", NULL, NULL, NULL,
                                                    G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * StwProductionCheck:status:
   *
   * Pass, fail or unknown.
   *
   * Since: 1.0
   */
  check_props[CHECK_PROP_STATUS] = g_param_spec_enum ("status", NULL, NULL, STW_TYPE_PRODUCTION_STATUS,
                                                      STW_PRODUCTION_STATUS_UNKNOWN,
                                                      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * StwProductionCheck:evidence:
   *
   * What the answer rests on, in one line.
   *
   * Since: 1.0
   */
  check_props[CHECK_PROP_EVIDENCE] = g_param_spec_string ("evidence", NULL, NULL, NULL,
                                                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, CHECK_N_PROPS, check_props);
}

static void
stw_production_check_init (StwProductionCheck *self)
{
}

/**
 * stw_production_check_get_id:
 * @self: a check
 *
 * Returns: the check's id
 *
 * Since: 1.0
 */
const char *
stw_production_check_get_id (StwProductionCheck *self)
{
  g_return_val_if_fail (STW_IS_PRODUCTION_CHECK (self), NULL);
  return self->id;
}

/**
 * stw_production_check_get_status:
 * @self: a check
 *
 * Returns: pass, fail or unknown
 *
 * Since: 1.0
 */
StwProductionStatus
stw_production_check_get_status (StwProductionCheck *self)
{
  g_return_val_if_fail (STW_IS_PRODUCTION_CHECK (self), STW_PRODUCTION_STATUS_UNKNOWN);
  return self->status;
}

/**
 * stw_production_check_get_evidence:
 * @self: a check
 *
 * Returns: what the answer rests on
 *
 * Since: 1.0
 */
const char *
stw_production_check_get_evidence (StwProductionCheck *self)
{
  g_return_val_if_fail (STW_IS_PRODUCTION_CHECK (self), NULL);
  return self->evidence;
}

/* --- StwProductionReport ------------------------------------------------- */

/**
 * StwProductionReport:
 *
 * The answer of a validation that ran: the artifact, its checks in order,
 * and whether none failed.
 *
 * Since: 1.0
 */
struct _StwProductionReport
{
  GObject parent_instance;
  char *path;
  char *artifact;
  GPtrArray *checks;   /* StwProductionCheck * */
};

G_DEFINE_FINAL_TYPE (StwProductionReport, stw_production_report, G_TYPE_OBJECT)

enum { REPORT_PROP_0, REPORT_PROP_PATH, REPORT_PROP_ARTIFACT, REPORT_PROP_PASSED, REPORT_N_PROPS };
static GParamSpec *report_props[REPORT_N_PROPS];

static void
stw_production_report_finalize (GObject *object)
{
  StwProductionReport *self = STW_PRODUCTION_REPORT (object);

  g_free (self->path);
  g_free (self->artifact);
  g_ptr_array_unref (self->checks);
  G_OBJECT_CLASS (stw_production_report_parent_class)->finalize (object);
}

static void
stw_production_report_get_property (GObject    *object,
                                    guint       prop_id,
                                    GValue     *value,
                                    GParamSpec *pspec)
{
  StwProductionReport *self = STW_PRODUCTION_REPORT (object);

  switch (prop_id)
    {
    case REPORT_PROP_PATH: g_value_set_string (value, self->path); break;
    case REPORT_PROP_ARTIFACT: g_value_set_string (value, self->artifact); break;
    case REPORT_PROP_PASSED: g_value_set_boolean (value, stw_production_report_get_passed (self)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
stw_production_report_class_init (StwProductionReportClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = stw_production_report_finalize;
  object_class->get_property = stw_production_report_get_property;
  /**
   * StwProductionReport:path:
   *
   * The artifact's path, canonical.
   *
   * Since: 1.0
   */
  report_props[REPORT_PROP_PATH] = g_param_spec_string ("path", NULL, NULL, NULL,
                                                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * StwProductionReport:artifact:
   *
   * `directory`, `appimage` or `deb`.
   *
   * Since: 1.0
   */
  report_props[REPORT_PROP_ARTIFACT] = g_param_spec_string ("artifact", NULL, NULL, NULL,
                                                            G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * StwProductionReport:passed:
   *
   * Whether no check failed (unknown ones do not fail).
   *
   * Since: 1.0
   */
  report_props[REPORT_PROP_PASSED] = g_param_spec_boolean ("passed", NULL, NULL, FALSE,
                                                           G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, REPORT_N_PROPS, report_props);
}

static void
stw_production_report_init (StwProductionReport *self)
{
  self->checks = g_ptr_array_new_with_free_func (g_object_unref);
}

/**
 * stw_production_report_get_path:
 * @self: a report
 *
 * Returns: the artifact's canonical path
 *
 * Since: 1.0
 */
const char *
stw_production_report_get_path (StwProductionReport *self)
{
  g_return_val_if_fail (STW_IS_PRODUCTION_REPORT (self), NULL);
  return self->path;
}

/**
 * stw_production_report_get_artifact:
 * @self: a report
 *
 * Returns: `directory`, `appimage` or `deb`
 *
 * Since: 1.0
 */
const char *
stw_production_report_get_artifact (StwProductionReport *self)
{
  g_return_val_if_fail (STW_IS_PRODUCTION_REPORT (self), NULL);
  return self->artifact;
}

/**
 * stw_production_report_get_passed:
 * @self: a report
 *
 * Returns: whether no check failed
 *
 * Since: 1.0
 */
gboolean
stw_production_report_get_passed (StwProductionReport *self)
{
  g_return_val_if_fail (STW_IS_PRODUCTION_REPORT (self), FALSE);
  for (guint i = 0; i < self->checks->len; i++)
    if (((StwProductionCheck *) g_ptr_array_index (self->checks, i))->status == STW_PRODUCTION_STATUS_FAIL)
      return FALSE;
  return TRUE;
}

/**
 * stw_production_report_get_checks:
 * @self: a report
 * @n_checks: (out): the number of checks
 *
 * Returns: (array length=n_checks) (transfer none): the checks, in order
 *
 * Since: 1.0
 */
StwProductionCheck **
stw_production_report_get_checks (StwProductionReport *self,
                                  guint               *n_checks)
{
  g_return_val_if_fail (STW_IS_PRODUCTION_REPORT (self), NULL);
  g_return_val_if_fail (n_checks != NULL, NULL);
  *n_checks = self->checks->len;
  return (StwProductionCheck **) self->checks->pdata;
}

/**
 * stw_production_report_lookup_check:
 * @self: a report
 * @id: a check's id
 *
 * Returns: (transfer none) (nullable): the check of that id
 *
 * Since: 1.0
 */
StwProductionCheck *
stw_production_report_lookup_check (StwProductionReport *self,
                                    const char          *id)
{
  g_return_val_if_fail (STW_IS_PRODUCTION_REPORT (self), NULL);
  for (guint i = 0; i < self->checks->len; i++)
    {
      StwProductionCheck *check = g_ptr_array_index (self->checks, i);

      if (g_strcmp0 (check->id, id) == 0)
        return check;
    }
  return NULL;
}

static void G_GNUC_PRINTF (4, 5)
add_check (StwProductionReport *report,
           const char          *id,
           StwProductionStatus  status,
           const char          *format,
           ...)
{
  StwProductionCheck *check = g_object_new (STW_TYPE_PRODUCTION_CHECK, NULL);
  va_list args;

  check->id = g_strdup (id);
  check->status = status;
  va_start (args, format);
  check->evidence = g_strdup_vprintf (format, args);
  va_end (args);
  /* Names and text from the artifact are shown, never interpreted:
   * keep the evidence one printable line. */
  for (char *p = check->evidence; *p != '\0'; p++)
    if ((guchar) *p < 0x20)
      *p = ' ';
  g_ptr_array_add (report->checks, check);
}

/* --- the checks ---------------------------------------------------------- */

typedef struct
{
  const char *name;
  guint index;
  gboolean secure_enabled;   /* the secure value */
  gboolean informational;
} FuseRule;

static const FuseRule fuse_rules[] = {
  { "RunAsNode", 0, FALSE, FALSE },
  { "EnableCookieEncryption", 1, TRUE, FALSE },
  { "EnableNodeOptionsEnvironmentVariable", 2, FALSE, FALSE },
  { "EnableNodeCliInspectArguments", 3, FALSE, FALSE },
  { "EnableEmbeddedAsarIntegrityValidation", 4, TRUE, TRUE },
  { "OnlyLoadAppFromAsar", 5, TRUE, FALSE },
};

typedef struct
{
  ProductionSource *source;
  StwProductionReport *report;
  char *app_dir;               /* "" for the root */
  /* what is read, member by member */
  GPtrArray *paths;            /* char * */
  GPtrArray *scanners;         /* ProductionFuseScanner * or NULL, by member */
  GPtrArray *buffers;          /* GByteArray * or NULL, by member (small files) */
  ProductionAsarVerifier *asar;
  guint asar_member;
  GArray *not_elf;             /* gboolean by member: the first bytes were not ELF */
  GArray *fed;                 /* guint64 by member */
} Validation;

/* Members that are not buffered have none. */
static void
byte_array_free (gpointer data)
{
  if (data != NULL)
    g_byte_array_unref (data);
}

static void
validation_clear (Validation *v)
{
  g_free (v->app_dir);
  g_clear_pointer (&v->paths, g_ptr_array_unref);
  g_clear_pointer (&v->scanners, g_ptr_array_unref);
  g_clear_pointer (&v->buffers, g_ptr_array_unref);
  g_clear_pointer (&v->asar, production_asar_verifier_free);
  g_clear_pointer (&v->not_elf, g_array_unref);
  g_clear_pointer (&v->fed, g_array_unref);
}

static char *
in_app_dir (Validation *v,
            const char *name)
{
  return v->app_dir[0] ? g_strconcat (v->app_dir, "/", name, NULL) : g_strdup (name);
}

static guint
depth_of (const char *path)
{
  guint depth = 0;

  for (const char *p = path; *p != '\0'; p++)
    depth += *p == '/';
  return depth;
}

/* The directory that holds chrome-sandbox or resources/app.asar (or
 * resources/app/): the shallowest wins. */
static char *
find_app_dir (ProductionSource *source)
{
  char *best = NULL;
  guint best_depth = G_MAXUINT;

  for (guint i = 0; i < source->entries->len; i++)
    {
      ProductionEntry *e = g_ptr_array_index (source->entries, i);
      g_autofree char *dir = NULL;
      const char *base = strrchr (e->path, '/');

      base = base ? base + 1 : e->path;
      if (g_str_equal (base, "chrome-sandbox"))
        dir = g_path_get_dirname (e->path);
      else if (g_str_equal (e->path, "resources/app.asar") || g_str_has_suffix (e->path, "/resources/app.asar") ||
               ((g_str_equal (e->path, "resources/app") || g_str_has_suffix (e->path, "/resources/app")) &&
                e->type == ENTRY_DIR))
        {
          g_autofree char *resources = g_path_get_dirname (e->path);

          dir = g_path_get_dirname (resources);
        }
      if (dir == NULL)
        continue;
      if (g_str_equal (dir, "."))
        dir[0] = '\0';
      if (depth_of (dir) + (dir[0] != '\0') < best_depth)
        {
          g_free (best);
          best_depth = depth_of (dir) + (dir[0] != '\0');
          best = g_steal_pointer (&dir);
        }
    }
  return best;
}

static gboolean
is_candidate_binary (Validation      *v,
                     ProductionEntry *e)
{
  const char *base = strrchr (e->path, '/');
  g_autofree char *dir = g_path_get_dirname (e->path);

  base = base ? base + 1 : e->path;
  if (g_str_equal (dir, "."))
    dir[0] = '\0';
  return e->type == ENTRY_FILE && (e->mode & 0111) != 0 && g_str_equal (dir, v->app_dir) &&
         e->size >= 64 &&
         !g_str_equal (base, "chrome-sandbox") && !g_str_equal (base, "chrome_crashpad_handler") &&
         !g_str_has_suffix (base, ".so") && strstr (base, ".so.") == NULL && !g_str_has_suffix (base, ".sh");
}

static int
compare_size_desc (gconstpointer a,
                   gconstpointer b)
{
  const ProductionEntry *x = *(ProductionEntry * const *) a;
  const ProductionEntry *y = *(ProductionEntry * const *) b;

  return x->size > y->size ? -1 : x->size < y->size;
}

static gboolean
is_desktop_file (Validation      *v,
                 ProductionEntry *e)
{
  g_autofree char *dir = g_path_get_dirname (e->path);

  if (e->type != ENTRY_FILE || !g_str_has_suffix (e->path, ".desktop") || e->size > MAX_DESKTOP_BYTES)
    return FALSE;
  if (g_str_equal (dir, "."))
    dir[0] = '\0';
  return dir[0] == '\0' || g_str_equal (dir, v->app_dir) || g_str_has_suffix (dir, "share/applications");
}

static gboolean
member_sink (guint         member,
             const guint8 *data,
             gsize         len,
             gpointer      user_data)
{
  Validation *v = user_data;
  ProductionFuseScanner *scanner = g_ptr_array_index (v->scanners, member);
  GByteArray *buffer = g_ptr_array_index (v->buffers, member);
  guint64 *fed = &g_array_index (v->fed, guint64, member);

  if (scanner != NULL)
    {
      /* Only ELF files are scanned. */
      if (*fed == 0 && (len < 4 || memcmp (data, "\177ELF", 4) != 0))
        {
          g_array_index (v->not_elf, gboolean, member) = TRUE;
          return FALSE;
        }
      *fed += len;
      production_fuse_scanner_feed (scanner, data, len);
      return TRUE;
    }
  *fed += len;
  if (member == v->asar_member && v->asar != NULL)
    return production_asar_verifier_feed (v->asar, data, len);
  if (buffer != NULL)
    {
      if (buffer->len + len > MAX_DESKTOP_BYTES)
        return FALSE;
      g_byte_array_append (buffer, data, (guint) len);
    }
  return TRUE;
}

static guint
add_member (Validation            *v,
            const char            *path,
            ProductionFuseScanner *scanner,
            gboolean               buffered)
{
  guint64 zero = 0;
  gboolean no = FALSE;

  g_ptr_array_add (v->paths, g_strdup (path));
  g_ptr_array_add (v->scanners, scanner);
  g_ptr_array_add (v->buffers, buffered ? g_byte_array_new () : NULL);
  g_array_append_val (v->fed, zero);
  g_array_append_val (v->not_elf, no);
  return v->paths->len - 1;
}

static const char *
fuse_state (guint8 byte)
{
  switch (byte)
    {
    case PRODUCTION_FUSE_ENABLE: return "enabled";
    case PRODUCTION_FUSE_DISABLE: return "disabled";
    case PRODUCTION_FUSE_REMOVED: return "removed";
    default: return "invalid";
    }
}

static void
check_fuses (Validation *v,
             GHashTable *failures,
             guint       first_binary,
             guint       n_binaries)
{
  StwProductionReport *report = v->report;
  ProductionFuseWire wire;
  const char *binary = NULL;
  guint copies = 0;
  g_autoptr(GString) scanned = g_string_new (NULL);

  for (guint i = first_binary; i < first_binary + n_binaries; i++)
    {
      ProductionFuseScanner *scanner = g_ptr_array_index (v->scanners, i);
      const char *failure = g_hash_table_lookup (failures, GUINT_TO_POINTER (i));
      ProductionFuseWire found;
      guint count;

      if (g_array_index (v->not_elf, gboolean, i))
        continue;
      count = production_fuse_scanner_finish (scanner, &found);
      g_string_append_printf (scanned, "%s%s%s%s", scanned->len ? ", " : "", (char *) g_ptr_array_index (v->paths, i),
                              failure ? ": " : "", failure ? failure : "");
      if (count > 0 && binary == NULL)
        {
          binary = g_ptr_array_index (v->paths, i);
          copies = count;
          wire = found;
        }
    }

  if (binary == NULL)
    {
      if (scanned->len > 0)
        add_check (report, "fuses.wire", STW_PRODUCTION_STATUS_FAIL,
                   "no Electron fuse sentinel in %s (Electron older than 12, or not an Electron binary)",
                   scanned->str);
      else
        add_check (report, "fuses.wire", STW_PRODUCTION_STATUS_UNKNOWN, "%s",
                   n_binaries == 0 ? "no executable beside chrome-sandbox and resources/"
                                   : "no ELF executable in the app's directory");
      for (guint i = 0; i < G_N_ELEMENTS (fuse_rules); i++)
        {
          g_autofree char *id = g_strconcat ("fuses.", fuse_rules[i].name, NULL);

          add_check (report, id, STW_PRODUCTION_STATUS_UNKNOWN, "no fuse wire was read");
        }
      return;
    }

  if (copies > 1)
    add_check (report, "fuses.wire", STW_PRODUCTION_STATUS_FAIL,
               "%s carries %u fuse sentinels; a Linux binary has one", binary, copies);
  else if (!wire.complete || wire.version != 1 || wire.available < wire.length)
    add_check (report, "fuses.wire", STW_PRODUCTION_STATUS_UNKNOWN, "%s: the fuse wire is %s", binary,
               wire.complete && wire.version != 1 ? "of an unknown version" : "truncated");
  else
    {
      g_autoptr(GString) rest = g_string_new (NULL);

      for (guint i = G_N_ELEMENTS (fuse_rules); i < wire.available; i++)
        g_string_append_printf (rest, "%s%u=%s", rest->len ? ", " : "", i, fuse_state (wire.fuses[i]));
      add_check (report, "fuses.wire", STW_PRODUCTION_STATUS_PASS,
                 "%s: sentinel at byte %" G_GUINT64_FORMAT ", wire version 1, %u fuses%s%s%s", binary,
                 wire.offset, wire.length, rest->len ? " (others: " : "", rest->str, rest->len ? ")" : "");
    }

  for (guint i = 0; i < G_N_ELEMENTS (fuse_rules); i++)
    {
      const FuseRule *rule = &fuse_rules[i];
      g_autofree char *id = g_strconcat ("fuses.", rule->name, NULL);
      const char *secure = rule->secure_enabled ? "enabled" : "disabled";
      guint8 byte;

      if (copies > 1 || wire.version != 1 || rule->index >= wire.available)
        {
          add_check (report, id, STW_PRODUCTION_STATUS_UNKNOWN,
                     rule->index >= wire.available && copies <= 1 && wire.version == 1
                     ? "this Electron's fuse wire has no such fuse" : "the fuse wire could not be trusted");
          continue;
        }
      byte = wire.fuses[rule->index];
      if (rule->informational)
        add_check (report, id, STW_PRODUCTION_STATUS_PASS,
                   "%s (informational: Electron does not enforce asar integrity on Linux)", fuse_state (byte));
      else if (byte != PRODUCTION_FUSE_ENABLE && byte != PRODUCTION_FUSE_DISABLE)
        add_check (report, id, STW_PRODUCTION_STATUS_UNKNOWN, "%s (byte 0x%02x)", fuse_state (byte), byte);
      else if ((byte == PRODUCTION_FUSE_ENABLE) == rule->secure_enabled)
        add_check (report, id, STW_PRODUCTION_STATUS_PASS, "%s (secure: %s)", fuse_state (byte), secure);
      else
        add_check (report, id, STW_PRODUCTION_STATUS_FAIL, "%s; should be %s (@electron/fuses flipFuses)",
                   fuse_state (byte), secure);
    }
}

static void
check_asar (Validation *v,
            GHashTable *failures,
            gboolean    has_app_dir)
{
  g_autofree char *asar_path = in_app_dir (v, "resources/app.asar");
  ProductionAsarResult result = { 0 };
  const char *failure;
  g_autoptr(GString) failed = g_string_new (NULL);

  if (v->asar == NULL)
    {
      add_check (v->report, "asar.present", STW_PRODUCTION_STATUS_FAIL,
                 has_app_dir ? "no %s: the app loads from resources/app/, which nothing protects"
                             : "no %s", asar_path);
      add_check (v->report, "asar.integrity", STW_PRODUCTION_STATUS_UNKNOWN, "no app.asar to check");
      return;
    }
  add_check (v->report, "asar.present", STW_PRODUCTION_STATUS_PASS, "%s, %" G_GUINT64_FORMAT " bytes", asar_path,
             production_source_lookup (v->source, asar_path)->size);

  failure = g_hash_table_lookup (failures, GUINT_TO_POINTER (v->asar_member));
  production_asar_verifier_finish (v->asar, &result);
  for (guint i = 0; i < result.failed->len; i++)
    g_string_append_printf (failed, "%s%s", i ? ", " : "", (char *) g_ptr_array_index (result.failed, i));

  if (result.header_error != NULL)
    add_check (v->report, "asar.integrity", STW_PRODUCTION_STATUS_FAIL, "the header cannot be read: %s",
               result.header_error);
  else if (failure != NULL && result.mismatched == 0)
    add_check (v->report, "asar.integrity", STW_PRODUCTION_STATUS_UNKNOWN, "app.asar was not read to the end: %s",
               failure);
  else if (result.mismatched > 0 || result.malformed > 0 || result.overlapping > 0 || result.truncated > 0)
    add_check (v->report, "asar.integrity", STW_PRODUCTION_STATUS_FAIL,
               "%u of %u files fail: %u differ, %u malformed, %u overlapping, %u truncated: %s",
               result.mismatched + result.malformed + result.overlapping + result.truncated, result.files,
               result.mismatched, result.malformed, result.overlapping, result.truncated, failed->str);
  else if (result.with_integrity == 0)
    add_check (v->report, "asar.integrity", result.files == 0 ? STW_PRODUCTION_STATUS_UNKNOWN
                                                             : STW_PRODUCTION_STATUS_FAIL,
               "none of the %u packed files carries an integrity hash (pack with @electron/asar 3.1 or later)",
               result.files);
  else if (result.with_integrity < result.files)
    add_check (v->report, "asar.integrity", STW_PRODUCTION_STATUS_FAIL,
               "%u of %u packed files carry no integrity hash", result.files - result.with_integrity, result.files);
  else
    add_check (v->report, "asar.integrity", STW_PRODUCTION_STATUS_PASS,
               "%u files match their SHA256 and block hashes (%u unpacked files and %u links not checked)",
               result.verified, result.unpacked, result.links);
  production_asar_result_clear (&result);
}

static ProductionControlFile *
control_file (ProductionSource *source,
              const char       *name)
{
  for (guint i = 0; i < source->control->len; i++)
    {
      ProductionControlFile *file = g_ptr_array_index (source->control, i);

      if (g_str_equal (file->name, name))
        return file;
    }
  return NULL;
}

/* A postinst that makes chrome-sandbox setuid root: electron-builder's
 * documented way, since dpkg-deb packages what the build tree holds. */
static gboolean
postinst_sets_sandbox (ProductionSource *source)
{
  ProductionControlFile *postinst = control_file (source, "postinst");
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;

  if (postinst == NULL)
    return FALSE;
  text = g_strndup (g_bytes_get_data (postinst->data, NULL), g_bytes_get_size (postinst->data));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *line = g_strstrip (lines[i]);

      if (line[0] != '#' && strstr (line, "chmod") != NULL && strstr (line, "chrome-sandbox") != NULL &&
          (strstr (line, "4755") != NULL || strstr (line, "u+s") != NULL))
        return TRUE;
    }
  return FALSE;
}

static gboolean
text_has_no_sandbox (GByteArray *buffer)
{
  return buffer != NULL && buffer->len > 0 &&
         memmem (buffer->data, buffer->len, "--no-sandbox", strlen ("--no-sandbox")) != NULL;
}

static void
check_sandbox (Validation *v,
               guint       apprun_member,
               guint       first_desktop,
               guint       n_desktop)
{
  g_autofree char *path = in_app_dir (v, "chrome-sandbox");
  ProductionEntry *sandbox = production_source_lookup (v->source, path);
  gboolean no_sandbox = FALSE;

  for (guint i = first_desktop; i < first_desktop + n_desktop; i++)
    no_sandbox |= text_has_no_sandbox (g_ptr_array_index (v->buffers, i));
  if (apprun_member != G_MAXUINT)
    no_sandbox |= text_has_no_sandbox (g_ptr_array_index (v->buffers, apprun_member));

  if (no_sandbox)
    {
      add_check (v->report, "sandbox", STW_PRODUCTION_STATUS_FAIL,
                 "the app is started with --no-sandbox (its .desktop Exec or AppRun): Chromium's sandbox is off");
      return;
    }
  if (v->source->kind == PRODUCTION_APPIMAGE)
    {
      add_check (v->report, "sandbox", STW_PRODUCTION_STATUS_PASS,
                 "the documented alternative: an AppImage runs from a nosuid FUSE mount, so chrome-sandbox cannot "
                 "be setuid; Chromium uses its user-namespace sandbox, which the host must allow "
                 "(kernel.unprivileged_userns_clone, AppArmor's restrict_unprivileged_userns)");
      return;
    }
  if (sandbox == NULL || sandbox->type != ENTRY_FILE)
    {
      add_check (v->report, "sandbox", STW_PRODUCTION_STATUS_FAIL,
                 "no %s: without it Chromium needs unprivileged user namespaces on the host, or runs unsandboxed",
                 path);
      return;
    }
  if (sandbox->uid == 0 && sandbox->mode == 04755)
    {
      add_check (v->report, "sandbox", STW_PRODUCTION_STATUS_PASS, "%s is owned by root with mode 4755", path);
      return;
    }
  if (v->source->kind == PRODUCTION_DEB && postinst_sets_sandbox (v->source))
    {
      add_check (v->report, "sandbox", STW_PRODUCTION_STATUS_PASS,
                 "the documented alternative: %s is packaged with mode %04o, and postinst makes it setuid root "
                 "(chmod 4755), as electron-builder does", path, sandbox->mode);
      return;
    }
  add_check (v->report, "sandbox", STW_PRODUCTION_STATUS_FAIL,
             "%s has mode %04o and owner uid %u: it must be root-owned with mode 4755%s (or the host must allow "
             "unprivileged user namespaces, Chromium's other sandbox)", path, sandbox->mode, sandbox->uid,
             v->source->kind == PRODUCTION_DEB ? " in data.tar, or set so by postinst" : "");
}

static char *
desktop_key (const char *text,
             const char *key)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  gboolean in_entry = FALSE;
  gsize key_len = strlen (key);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *line = lines[i];

      if (line[0] == '[')
        in_entry = g_str_has_prefix (line, "[Desktop Entry]");
      else if (in_entry && strncmp (line, key, key_len) == 0 && line[key_len] == '=')
        return g_strstrip (g_strdup (line + key_len + 1));
    }
  return NULL;
}

/* An icon the desktop file names, found in the artifact. */
static char *
find_icon (Validation *v,
           const char *icon)
{
  static const char * const extensions[] = { ".png", ".svg", ".xpm" };

  if (icon[0] == '/')
    {
      ProductionEntry *e = production_source_lookup (v->source, icon + 1);

      return e != NULL && e->type == ENTRY_FILE ? g_strdup (e->path) : NULL;
    }
  if (strchr (icon, '/') != NULL)
    return NULL;
  for (guint i = 0; i < v->source->entries->len; i++)
    {
      ProductionEntry *e = g_ptr_array_index (v->source->entries, i);
      const char *base = strrchr (e->path, '/');
      const char *dir_ok;

      base = base ? base + 1 : e->path;
      if (e->type != ENTRY_FILE && e->type != ENTRY_LINK)
        continue;
      dir_ok = base == e->path || strstr (e->path, "share/icons/") != NULL || strstr (e->path, "share/pixmaps/") != NULL
               ? "" : NULL;
      if (dir_ok == NULL)
        continue;
      for (guint j = 0; j < G_N_ELEMENTS (extensions); j++)
        if (g_str_has_prefix (base, icon) && g_str_equal (base + strlen (icon), extensions[j]))
          return g_strdup (e->path);
    }
  return NULL;
}

static void
check_desktop (Validation *v,
               GHashTable *failures,
               guint       first,
               guint       n)
{
  g_autofree char *tmp = NULL;
  g_autoptr(GString) evidence = g_string_new (NULL);
  StwProductionStatus status = STW_PRODUCTION_STATUS_PASS;

  if (n == 0)
    {
      add_check (v->report, "desktop", v->source->kind == PRODUCTION_DIRECTORY ? STW_PRODUCTION_STATUS_UNKNOWN
                                                                              : STW_PRODUCTION_STATUS_FAIL,
                 v->source->kind == PRODUCTION_DIRECTORY
                 ? "no .desktop file in the directory (the package that installs it carries one)"
                 : "no .desktop file in the package");
      return;
    }
  tmp = g_dir_make_tmp ("stw-production-XXXXXX", NULL);
  for (guint i = first; i < first + n; i++)
    {
      const char *path = g_ptr_array_index (v->paths, i);
      GByteArray *buffer = g_ptr_array_index (v->buffers, i);
      const char *failure = g_hash_table_lookup (failures, GUINT_TO_POINTER (i));
      g_autofree char *copy = NULL;
      g_autofree char *text = NULL;
      g_autofree char *icon = NULL;
      g_autofree char *icon_file = NULL;
      const char *argv[] = { "desktop-file-validate", NULL, NULL };
      ProductionRun run;
      g_autoptr(GError) error = NULL;

      if (evidence->len > 0)
        g_string_append (evidence, "; ");
      g_string_append_printf (evidence, "%s: ", path);
      if (failure != NULL || tmp == NULL)
        {
          g_string_append_printf (evidence, "not read (%s)", failure ? failure : "no temporary directory");
          if (status == STW_PRODUCTION_STATUS_PASS)
            status = STW_PRODUCTION_STATUS_UNKNOWN;
          continue;
        }
      text = g_strndup ((const char *) buffer->data, buffer->len);
      /* A copy under our name: the artifact's name could be anything. */
      copy = g_strdup_printf ("%s/app-%u.desktop", tmp, i);
      if (!g_file_set_contents (copy, (const char *) buffer->data, buffer->len, NULL))
        {
          g_string_append (evidence, "could not be copied for desktop-file-validate");
          status = status == STW_PRODUCTION_STATUS_FAIL ? status : STW_PRODUCTION_STATUS_UNKNOWN;
          continue;
        }
      argv[1] = copy;
      if (!production_run (argv, MIN (v->source->deadline, g_get_monotonic_time () +
                                      (gint64) v->source->limits.tool_timeout_s * G_USEC_PER_SEC),
                           64 * 1024, NULL, NULL, v->source->cancellable, &run, &error))
        {
          g_string_append_printf (evidence, "%s", error->message);
          status = status == STW_PRODUCTION_STATUS_FAIL ? status : STW_PRODUCTION_STATUS_UNKNOWN;
        }
      else if (run.timed_out || run.cancelled || !WIFEXITED (run.wait_status))
        {
          g_string_append (evidence, "desktop-file-validate did not finish");
          status = status == STW_PRODUCTION_STATUS_FAIL ? status : STW_PRODUCTION_STATUS_UNKNOWN;
        }
      else if (WEXITSTATUS (run.wait_status) != 0)
        {
          g_autoptr(GString) out = g_string_new_len ((const char *) run.out->data, MIN (run.out->len, 400));
          g_autofree char *err = g_strndup (run.err->len ? (const char *) run.err->data : "", MIN (run.err->len, 200));

          /* desktop-file-validate names the file it was given: our copy. */
          g_string_replace (out, copy, path, 0);
          g_string_append_printf (evidence, "desktop-file-validate: %s%s", g_strstrip (out->str), g_strstrip (err));
          status = STW_PRODUCTION_STATUS_FAIL;
        }
      else
        g_string_append (evidence, "valid");
      if (run.out != NULL)
        production_run_clear (&run);
      unlink (copy);

      icon = desktop_key (text, "Icon");
      if (icon == NULL || icon[0] == '\0')
        {
          g_string_append (evidence, ", no Icon key");
          status = STW_PRODUCTION_STATUS_FAIL;
        }
      else if ((icon_file = find_icon (v, icon)) == NULL)
        {
          g_string_append_printf (evidence, ", icon “%s” is not in the artifact", icon);
          status = STW_PRODUCTION_STATUS_FAIL;
        }
      else
        g_string_append_printf (evidence, ", icon %s", icon_file);
    }
  if (tmp != NULL)
    rmdir (tmp);
  add_check (v->report, "desktop", status, "%s", evidence->str);
}

static void
check_deb_control (Validation *v)
{
  static const char * const required[] = { "Package", "Version", "Architecture", "Maintainer", "Description" };
  static const char * const scripts[] = { "preinst", "postinst", "prerm", "postrm", "config" };
  ProductionControlFile *control = control_file (v->source, "control");
  g_autoptr(GString) missing = g_string_new (NULL);
  g_autoptr(GString) evidence = g_string_new (NULL);
  StwProductionStatus status = STW_PRODUCTION_STATUS_PASS;

  if (control == NULL)
    add_check (v->report, "deb.control", STW_PRODUCTION_STATUS_FAIL, "control.tar has no control file");
  else
    {
      g_autofree char *text = g_strndup (g_bytes_get_data (control->data, NULL), g_bytes_get_size (control->data));
      g_autofree char *package = NULL;
      g_autofree char *version = NULL;

      for (guint i = 0; i < G_N_ELEMENTS (required); i++)
        {
          g_autofree char *field = g_strdup_printf ("%s:", required[i]);
          g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
          const char *value = NULL;
          g_autofree char *trimmed = NULL;

          for (guint j = 0; lines[j] != NULL && value == NULL; j++)
            if (g_ascii_strncasecmp (lines[j], field, strlen (field)) == 0)
              value = lines[j] + strlen (field);
          if (value != NULL)
            trimmed = g_strstrip (g_strdup (value));
          if (trimmed == NULL || trimmed[0] == '\0')
            g_string_append_printf (missing, "%s%s", missing->len ? ", " : "", required[i]);
          else if (i == 0)
            package = g_steal_pointer (&trimmed);
          else if (i == 1)
            version = g_steal_pointer (&trimmed);
        }
      if (missing->len > 0 || control->cut)
        add_check (v->report, "deb.control", STW_PRODUCTION_STATUS_FAIL, "the control file %s%s",
                   control->cut ? "is larger than 1 MiB" : "lacks ", missing->str);
      else
        add_check (v->report, "deb.control", STW_PRODUCTION_STATUS_PASS,
                   "Package %s, Version %s, with Architecture, Maintainer and Description", package, version);
    }

  for (guint i = 0; i < G_N_ELEMENTS (scripts); i++)
    {
      ProductionControlFile *script = control_file (v->source, scripts[i]);
      gsize size;
      const char *data;

      if (script == NULL)
        continue;
      data = g_bytes_get_data (script->data, &size);
      g_string_append_printf (evidence, "%s%s", evidence->len ? "; " : "", scripts[i]);
      if (size < 2 || memcmp (data, "#!", 2) != 0)
        {
          g_string_append (evidence, " has no #! line");
          status = STW_PRODUCTION_STATUS_FAIL;
        }
      else if ((script->mode & 0111) == 0 || (script->mode & 0022) != 0)
        {
          g_string_append_printf (evidence, " has mode %04o (dpkg wants 0555 to 0775, not group/other-writable)",
                                  script->mode);
          status = STW_PRODUCTION_STATUS_FAIL;
        }
      else
        {
          const char *end = memchr (data, '\n', MIN (size, 128));
          g_autofree char *interpreter = g_strndup (data + 2, end ? (gsize) (end - data - 2) : MIN (size - 2, 64));

          g_string_append_printf (evidence, " (%s, mode %04o)", g_strstrip (interpreter), script->mode);
          if (g_str_equal (scripts[i], "postinst") && postinst_sets_sandbox (v->source))
            g_string_append (evidence, ", makes chrome-sandbox setuid root");
        }
    }
  add_check (v->report, "deb.scripts", status, "%s", evidence->len ? evidence->str : "no maintainer scripts");
}

static void
run_validation (StwProductionReport    *report,
                const char             *path,
                const ProductionLimits *limits,
                GCancellable           *cancellable,
                GError                **error,
                gboolean               *ok)
{
  g_autoptr(ProductionSource) source = NULL;
  Validation v = { 0 };
  g_autoptr(GPtrArray) binaries = g_ptr_array_new ();
  g_autoptr(GHashTable) failures = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  g_autofree char *asar_path = NULL;
  guint first_binary, first_desktop, n_desktop = 0, apprun = G_MAXUINT;
  static const char * const kinds[] = { "directory", "appimage", "deb" };

  *ok = FALSE;
  source = production_source_open (path, limits, cancellable, error);
  if (source == NULL)
    return;
  report->artifact = g_strdup (kinds[source->kind]);
  add_check (report, "artifact.structure",
             source->structure_ok ? STW_PRODUCTION_STATUS_PASS
             : source->structure_unknown ? STW_PRODUCTION_STATUS_UNKNOWN : STW_PRODUCTION_STATUS_FAIL,
             "%s", source->structure->str);

  v.source = source;
  v.report = report;
  v.app_dir = find_app_dir (source);
  if (v.app_dir == NULL && source->structure_ok)
    {
      *error = stw_error_new ("production.NOT_A_BUNDLE",
                              "“%s” holds no Electron app: no directory with chrome-sandbox or resources/app.asar",
                              path);
      stw_error_set_hint (*error, "Give the app's directory (electron-builder's linux-unpacked), its AppImage "
                                  "or its .deb");
      return;
    }
  if (v.app_dir == NULL)
    {
      /* The structure failed: what needs the contents cannot tell. */
      static const char * const ids[] = { "fuses.wire", "asar.present", "asar.integrity", "sandbox", "desktop" };

      for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
        add_check (report, ids[i], STW_PRODUCTION_STATUS_UNKNOWN, "the artifact's contents could not be listed");
      *ok = TRUE;
      return;
    }

  v.paths = g_ptr_array_new_with_free_func (g_free);
  v.scanners = g_ptr_array_new_with_free_func ((GDestroyNotify) production_fuse_scanner_free);
  v.buffers = g_ptr_array_new_with_free_func (byte_array_free);
  v.not_elf = g_array_new (FALSE, FALSE, sizeof (gboolean));
  v.fed = g_array_new (FALSE, FALSE, sizeof (guint64));
  v.asar_member = G_MAXUINT;

  for (guint i = 0; i < source->entries->len; i++)
    if (is_candidate_binary (&v, g_ptr_array_index (source->entries, i)))
      g_ptr_array_add (binaries, g_ptr_array_index (source->entries, i));
  g_ptr_array_sort (binaries, compare_size_desc);
  if (binaries->len > MAX_BINARIES)
    g_ptr_array_set_size (binaries, MAX_BINARIES);
  first_binary = v.paths->len;
  for (guint i = 0; i < binaries->len; i++)
    add_member (&v, ((ProductionEntry *) g_ptr_array_index (binaries, i))->path, production_fuse_scanner_new (),
                FALSE);

  asar_path = in_app_dir (&v, "resources/app.asar");
  {
    ProductionEntry *asar = production_source_lookup (source, asar_path);

    if (asar != NULL && asar->type == ENTRY_FILE)
      {
        v.asar = production_asar_verifier_new ();
        v.asar_member = add_member (&v, asar_path, NULL, FALSE);
      }
  }

  first_desktop = v.paths->len;
  for (guint i = 0; i < source->entries->len && n_desktop < MAX_DESKTOP_FILES; i++)
    {
      ProductionEntry *e = g_ptr_array_index (source->entries, i);

      if (is_desktop_file (&v, e))
        {
          add_member (&v, e->path, NULL, TRUE);
          n_desktop++;
        }
    }
  if (source->kind == PRODUCTION_APPIMAGE)
    {
      ProductionEntry *e = production_source_lookup (source, "AppRun");

      if (e != NULL && e->type == ENTRY_FILE && e->size <= MAX_DESKTOP_BYTES)
        apprun = add_member (&v, "AppRun", NULL, TRUE);
    }

  production_source_read (source, (const char * const *) v.paths->pdata, v.paths->len, member_sink, &v, failures);

  check_fuses (&v, failures, first_binary, binaries->len);
  check_asar (&v, failures, TRUE);
  check_sandbox (&v, apprun, first_desktop, n_desktop);
  check_desktop (&v, failures, first_desktop, n_desktop);
  if (source->kind == PRODUCTION_APPIMAGE && source->signature_present)
    add_check (report, "appimage.signature", source->signature_ok ? STW_PRODUCTION_STATUS_PASS
                                                                  : STW_PRODUCTION_STATUS_FAIL,
               "%s", source->signature_evidence);
  if (source->kind == PRODUCTION_DEB)
    check_deb_control (&v);
  if (production_source_expired (source) && !g_cancellable_is_cancelled (cancellable))
    add_check (report, "limits", STW_PRODUCTION_STATUS_UNKNOWN,
               "the validation ran out of its %u s: later reads were cut short", limits->timeout_s);
  validation_clear (&v);

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return;
  *ok = TRUE;
}

/* --- StwProductionPlugin ------------------------------------------------- */

/**
 * StwProductionPlugin:
 *
 * The production plugin: validates a packaged Linux Electron app (an
 * unpacked directory, an AppImage or a .deb) without running it. It needs
 * no session. Loaded into a dispatcher with an app root, the paths it
 * reads are confined to that root.
 *
 * Since: 1.0
 */
struct _StwProductionPlugin
{
  StwPlugin parent_instance;
};

G_DEFINE_FINAL_TYPE (StwProductionPlugin, stw_production_plugin, STW_TYPE_PLUGIN)

static void
stw_production_plugin_class_init (StwProductionPluginClass *klass)
{
  /* The domain exists before the plugin makes its first error, so that
   * stw_error_new() makes its codes in it. */
  stw_production_error_quark ();
}

static void
stw_production_plugin_init (StwProductionPlugin *self)
{
  production_add_tools (self);
}

static guint64
config_uint (JsonObject *config,
             const char *member,
             guint64     fallback)
{
  if (config == NULL || !json_object_has_member (config, member))
    return fallback;
  return (guint64) json_object_get_int_member (config, member);
}

static void
read_limits (StwProductionPlugin *self,
             ProductionLimits    *limits)
{
  g_autoptr(JsonObject) config = stw_plugin_dup_effective_config (STW_PLUGIN (self));

  limits->timeout_s = (guint) config_uint (config, "timeoutSeconds", 90);
  limits->tool_timeout_s = (guint) config_uint (config, "toolTimeoutSeconds", 60);
  limits->max_entries = (guint) config_uint (config, "maxEntries", 200000);
  limits->max_member_bytes = config_uint (config, "maxMemberBytes", G_GUINT64_CONSTANT (1) << 30);
}

/* The path to read: absolute (relative ones against the app root, or the
 * working directory), and with an app root, inside it once every symbolic
 * link is resolved. */
static char *
resolve_path (StwProductionPlugin *self,
              const char          *path,
              GError             **error)
{
  StwDispatcher *dispatcher = stw_plugin_get_dispatcher (STW_PLUGIN (self));
  const char *root = dispatcher != NULL ? stw_dispatcher_get_app_root (dispatcher) : NULL;
  g_autofree char *absolute = g_canonicalize_filename (path, root);
  g_autofree char *real = NULL;
  g_autofree char *real_root = NULL;

  if (root == NULL)
    return g_steal_pointer (&absolute);
  real = realpath (absolute, NULL);
  real_root = realpath (root, NULL);
  if (real == NULL)
    {
      *error = stw_error_new ("production.APP_NOT_FOUND", "“%s” cannot be opened: %s", path, g_strerror (errno));
      stw_error_set_hint (*error, "Give the path of an unpacked app directory, an AppImage or a .deb under --app-root");
      return NULL;
    }
  if (real_root == NULL || (!g_str_equal (real, real_root) &&
                            !(g_str_has_prefix (real, real_root) &&
                              (real[strlen (real_root)] == '/' || g_str_equal (real_root, "/")))))
    {
      g_autoptr(JsonObject) details = json_object_new ();

      *error = stw_error_new_code (STW_ERROR_BAD_ARGUMENT, "“%s” lies outside --app-root", path);
      json_object_set_string_member (details, "argument", "path");
      json_object_set_string_member (details, "rule", "app-root");
      stw_error_set_details (*error, details);
      stw_error_set_hint (*error, "Put the artifact under --app-root (it is only read)");
      return NULL;
    }
  return g_steal_pointer (&real);
}

typedef struct
{
  char *path;
  ProductionLimits limits;
} ValidateData;

static void
validate_data_free (ValidateData *data)
{
  g_free (data->path);
  g_free (data);
}

static StwProductionReport *
validate (const char             *path,
          const ProductionLimits *limits,
          GCancellable           *cancellable,
          GError                **error)
{
  g_autoptr(StwProductionReport) report = g_object_new (STW_TYPE_PRODUCTION_REPORT, NULL);
  gboolean ok;

  report->path = g_strdup (path);
  run_validation (report, path, limits, cancellable, error, &ok);
  return ok ? g_steal_pointer (&report) : NULL;
}

static void
validate_thread (GTask        *task,
                 gpointer      source_object,
                 gpointer      task_data,
                 GCancellable *cancellable)
{
  ValidateData *data = task_data;
  GError *error = NULL;
  StwProductionReport *report = validate (data->path, &data->limits, cancellable, &error);

  if (report == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, report, g_object_unref);
}

/**
 * stw_production_plugin_new:
 *
 * Makes the production plugin with its tool and configuration schema.
 * Not loaded into a dispatcher, its paths are not confined and its limits
 * are the defaults.
 *
 * Returns: (transfer full): a new plugin
 *
 * Since: 1.0
 */
StwProductionPlugin *
stw_production_plugin_new (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(StwSchema) config = stw_schema_new_from_string (
    "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
    "\"timeoutSeconds\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":600,\"default\":90,"
    "\"x-stagewright-safe\":true},"
    "\"toolTimeoutSeconds\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":600,\"default\":60,"
    "\"x-stagewright-safe\":true},"
    "\"maxEntries\":{\"type\":\"integer\",\"minimum\":100,\"maximum\":1000000,\"default\":200000,"
    "\"x-stagewright-safe\":true},"
    "\"maxMemberBytes\":{\"type\":\"integer\",\"minimum\":1048576,\"maximum\":4294967296,"
    "\"default\":1073741824,\"x-stagewright-safe\":true}}}", &error);

  g_assert_no_error (error);
  return g_object_new (STW_TYPE_PRODUCTION_PLUGIN,
                       "name", "production",
                       "version", "0.1.0",
                       "core-versions", ">=0.1",
                       "description", "Validates a packaged Linux Electron app: fuses, asar integrity, "
                                      "sandbox, desktop file, AppImage and .deb structure.",
                       "config-schema", config,
                       NULL);
}

/**
 * stw_production_plugin_validate_async:
 * @self: the plugin
 * @path: an unpacked app directory, an AppImage or a .deb
 * @cancellable: (nullable): cancels the validation (and ends its tools)
 * @callback: called when done
 * @user_data: for @callback
 *
 * Validates the packaged app at @path in a worker thread, without running
 * anything of it. Loaded into a dispatcher with an app root, @path must
 * lie inside it (after symbolic links), else `BAD_ARGUMENT`.
 *
 * Since: 1.0
 */
void
stw_production_plugin_validate_async (StwProductionPlugin *self,
                                      const char          *path,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  ValidateData *data;
  char *resolved;

  g_return_if_fail (STW_IS_PRODUCTION_PLUGIN (self));
  g_return_if_fail (path != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, stw_production_plugin_validate_async);
  resolved = resolve_path (self, path, &error);
  if (resolved == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  data = g_new0 (ValidateData, 1);
  data->path = resolved;
  read_limits (self, &data->limits);
  g_task_set_task_data (task, data, (GDestroyNotify) validate_data_free);
  g_task_run_in_thread (task, validate_thread);
}

/**
 * stw_production_plugin_validate_finish:
 * @self: the plugin
 * @result: the result given to the callback
 * @error: `production.APP_NOT_FOUND`, `production.NOT_A_BUNDLE`,
 *   `production.UNSUPPORTED_ARTIFACT`, `BAD_ARGUMENT` (outside the app
 *   root) or a cancellation
 *
 * Returns: (transfer full): the report of a validation that ran (whether
 *   it passed or not)
 *
 * Since: 1.0
 */
StwProductionReport *
stw_production_plugin_validate_finish (StwProductionPlugin *self,
                                       GAsyncResult        *result,
                                       GError             **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * stw_production_plugin_validate_sync:
 * @self: the plugin
 * @path: an unpacked app directory, an AppImage or a .deb
 * @cancellable: (nullable): cancels the validation
 * @error: as for [method@StagewrightProduction.ProductionPlugin.validate_finish]
 *
 * The blocking form, with the blocking-call helper: the context of the
 * plugin's dispatcher (or the thread-default one) turns meanwhile.
 *
 * Returns: (transfer full): the report
 *
 * Since: 1.0
 */
StwProductionReport *
stw_production_plugin_validate_sync (StwProductionPlugin *self,
                                     const char          *path,
                                     GCancellable        *cancellable,
                                     GError             **error)
{
  StwSyncCall call;
  StwProductionReport *report;

  g_return_val_if_fail (STW_IS_PRODUCTION_PLUGIN (self), NULL);
  g_return_val_if_fail (path != NULL, NULL);

  if (!stw_sync_call_init (&call, self))
    return NULL;
  stw_production_plugin_validate_async (self, path, cancellable, stw_sync_call_callback, &call);
  report = stw_production_plugin_validate_finish (self, stw_sync_call_wait (&call), error);
  stw_sync_call_clear (&call);
  return report;
}
