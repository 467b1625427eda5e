/* production-private.h: the production plugin's parts, shared by its files
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef enum
{
  PRODUCTION_DIRECTORY,
  PRODUCTION_APPIMAGE,
  PRODUCTION_DEB,
} ProductionKind;

typedef struct
{
  guint timeout_s;          /* the whole validation */
  guint tool_timeout_s;     /* each spawned tool */
  guint max_entries;        /* entries listed in the artifact */
  guint64 max_member_bytes; /* bytes read from one member (a binary, app.asar) */
} ProductionLimits;

typedef enum
{
  ENTRY_FILE,
  ENTRY_DIR,
  ENTRY_LINK,
  ENTRY_OTHER,
} ProductionEntryType;

typedef struct
{
  char *path;               /* relative, no leading "./" or "/" */
  ProductionEntryType type;
  guint32 mode;             /* permission bits with setuid/setgid/sticky */
  guint32 uid;
  guint64 size;
  char *target;             /* of a symbolic link */
} ProductionEntry;

typedef struct
{
  char *name;               /* control, preinst, postinst, prerm, postrm, config, … */
  guint32 mode;
  GBytes *data;             /* at most PRODUCTION_MAX_CONTROL_BYTES */
  gboolean cut;
} ProductionControlFile;

#define PRODUCTION_MAX_CONTROL_BYTES (1024 * 1024)

typedef struct
{
  ProductionKind kind;
  char *path;               /* the artifact, canonical */
  ProductionLimits limits;
  gint64 deadline;          /* monotonic µs */
  GCancellable *cancellable;
  int root_fd;              /* a directory's, or -1 */
  guint64 squashfs_offset;  /* an AppImage's */
  gboolean structure_ok;
  gboolean structure_unknown; /* a tool to read it is missing */
  GString *structure;       /* evidence of the structure check */
  GPtrArray *entries;       /* ProductionEntry * */
  GHashTable *by_path;      /* path -> ProductionEntry * */
  GPtrArray *control;       /* ProductionControlFile * (a .deb's control.tar) */
  gboolean signature_present;  /* an AppImage's .sha256_sig holds bytes */
  char *signature_evidence;
  gboolean signature_ok;
} ProductionSource;

/* A member's bytes, in chunks; FALSE: no more needed. */
typedef gboolean (*ProductionSink) (guint         member,
                                    const guint8 *data,
                                    gsize         len,
                                    gpointer      user_data);

ProductionSource *production_source_open   (const char             *path,
                                            const ProductionLimits *limits,
                                            GCancellable           *cancellable,
                                            GError                **error);
void              production_source_free   (ProductionSource       *self);
ProductionEntry  *production_source_lookup (ProductionSource       *self,
                                            const char             *path);
/* Streams each of @paths (entries of the listing) to @sink; a member that
 * could not be read is reported in @failures (member index -> why). */
void              production_source_read   (ProductionSource       *self,
                                            const char * const     *paths,
                                            guint                   n_paths,
                                            ProductionSink          sink,
                                            gpointer                user_data,
                                            GHashTable             *failures);
gboolean          production_source_expired (ProductionSource      *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ProductionSource, production_source_free)

typedef struct
{
  int wait_status;
  gboolean timed_out;
  gboolean cancelled;
  gboolean output_cut;
  GByteArray *out;          /* stdout, when no sink takes it */
  GByteArray *err;          /* stderr, bounded */
} ProductionRun;

gboolean production_run       (const char * const *argv,
                               gint64              deadline,
                               gsize               max_out,
                               ProductionSink      sink,
                               gpointer            sink_data,
                               GCancellable       *cancellable,
                               ProductionRun      *run,
                               GError            **error);
void     production_run_clear (ProductionRun      *run);

G_END_DECLS
