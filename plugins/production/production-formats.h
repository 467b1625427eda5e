/* production-formats.h: the readers of what a packaged Electron app carries
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Pure readers over bytes (no I/O), fed in chunks of any size so that a
 * binary or an archive streams through them from a file, a pipe or a
 * member of a .deb without landing on disk: the Electron fuse wire and the
 * asar archive's header and per-file integrity. The fuzz target
 * tests/fuzz/fuzz-production.c links them directly.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* @electron/fuses: the sentinel, then a version byte, a length byte and
 * one byte per fuse in FuseV1Options order. */
#define PRODUCTION_FUSE_SENTINEL "dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX"
#define PRODUCTION_FUSE_SENTINEL_LEN 32
#define PRODUCTION_FUSE_DISABLE 0x30
#define PRODUCTION_FUSE_ENABLE 0x31
#define PRODUCTION_FUSE_REMOVED 0x72

typedef struct
{
  guint64 offset;       /* of the sentinel in the stream */
  gboolean complete;    /* the version and length bytes were read */
  guint8 version;
  guint8 length;        /* as the wire declares it */
  guint8 available;     /* fuse bytes actually read (<= length) */
  guint8 fuses[255];
} ProductionFuseWire;

typedef struct _ProductionFuseScanner ProductionFuseScanner;

ProductionFuseScanner *production_fuse_scanner_new    (void);
void                   production_fuse_scanner_free   (ProductionFuseScanner *self);
void                   production_fuse_scanner_feed   (ProductionFuseScanner *self,
                                                       const guint8          *data,
                                                       gsize                  len);
guint                  production_fuse_scanner_finish (ProductionFuseScanner *self,
                                                       ProductionFuseWire    *first);
guint64                production_fuse_scanner_get_fed (ProductionFuseScanner *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ProductionFuseScanner, production_fuse_scanner_free)

/* The asar archive: a Chromium Pickle holding the header's size, a Pickle
 * holding the JSON header, then the files' bytes. */
#define PRODUCTION_ASAR_MAX_HEADER (64u * 1024 * 1024)
#define PRODUCTION_ASAR_MAX_ENTRIES 200000
#define PRODUCTION_ASAR_MAX_DEPTH 64

typedef struct
{
  char *header_error;   /* the header could not be read: why */
  guint64 data_offset;  /* where the files' bytes begin */
  guint files;          /* packed files */
  guint unpacked;       /* files in app.asar.unpacked (not checked here) */
  guint links;
  guint with_integrity;
  guint verified;       /* integrity present and matching */
  guint mismatched;
  guint malformed;      /* integrity present but not SHA256 with blocks */
  guint truncated;      /* the stream ended inside or before the file */
  guint overlapping;    /* ranges that overlap an earlier file's */
  GPtrArray *failed;    /* char *: the first few paths that failed, with why */
} ProductionAsarResult;

typedef struct _ProductionAsarVerifier ProductionAsarVerifier;

ProductionAsarVerifier *production_asar_verifier_new    (void);
void                    production_asar_verifier_free   (ProductionAsarVerifier *self);
/* FALSE once nothing more is needed (the header is bad, or every file is done). */
gboolean                production_asar_verifier_feed   (ProductionAsarVerifier *self,
                                                         const guint8           *data,
                                                         gsize                   len);
void                    production_asar_verifier_finish (ProductionAsarVerifier *self,
                                                         ProductionAsarResult   *result);
void                    production_asar_result_clear    (ProductionAsarResult   *result);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ProductionAsarVerifier, production_asar_verifier_free)

/* JSON nesting deeper than @max_depth (json-glib recurses without bound). */
gboolean production_json_too_deep (const char *text,
                                   gsize       len,
                                   guint       max_depth);

G_END_DECLS
