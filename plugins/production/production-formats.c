/* production-formats.c: the fuse wire and asar readers
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Everything here reads hostile bytes: every length is checked against
 * what was read, every count is bounded, and the JSON header is refused
 * before json-glib sees it when it nests deeper than the bound.
 */
#include "config.h"

#include <string.h>
#include <json-glib/json-glib.h>

#include "production-formats.h"

/* --- the fuse wire ------------------------------------------------------- */

/* The sentinel, the version and length bytes, and at most 255 fuses. */
#define WIRE_SPAN (PRODUCTION_FUSE_SENTINEL_LEN + 2 + 255)

struct _ProductionFuseScanner
{
  GByteArray *window;     /* the bytes not yet searched, and a tail for the overlap */
  guint64 base;           /* stream offset of window->data[0] */
  gsize scanned;          /* positions before this in window were searched */
  gboolean pending;       /* a sentinel at pending_at waits for its wire */
  gsize pending_at;
  guint count;
  gboolean captured;
  ProductionFuseWire wire;
};

ProductionFuseScanner *
production_fuse_scanner_new (void)
{
  ProductionFuseScanner *self = g_new0 (ProductionFuseScanner, 1);

  self->window = g_byte_array_new ();
  return self;
}

void
production_fuse_scanner_free (ProductionFuseScanner *self)
{
  if (self == NULL)
    return;
  g_byte_array_unref (self->window);
  g_free (self);
}

guint64
production_fuse_scanner_get_fed (ProductionFuseScanner *self)
{
  return self->base + self->window->len;
}

/* Reads the wire after the sentinel at @at; FALSE when more bytes are
 * needed and may still come. */
static gboolean
capture (ProductionFuseScanner *self,
         gsize                  at,
         gboolean               at_end)
{
  const guint8 *w = self->window->data + at + PRODUCTION_FUSE_SENTINEL_LEN;
  gsize have = self->window->len - at - PRODUCTION_FUSE_SENTINEL_LEN;

  if (!at_end && (have < 2 || have < 2 + (gsize) w[1]))
    return FALSE;
  memset (&self->wire, 0, sizeof self->wire);
  self->wire.offset = self->base + at;
  if (have >= 2)
    {
      self->wire.complete = TRUE;
      self->wire.version = w[0];
      self->wire.length = w[1];
      self->wire.available = (guint8) MIN ((gsize) w[1], have - 2);
      memcpy (self->wire.fuses, w + 2, self->wire.available);
    }
  self->captured = TRUE;
  return TRUE;
}

static void
scan (ProductionFuseScanner *self,
      gboolean               at_end)
{
  for (;;)
    {
      const guint8 *found;
      gsize len = self->window->len;

      if (self->pending)
        {
          if (!capture (self, self->pending_at, at_end))
            return;
          self->pending = FALSE;
          self->scanned = self->pending_at + 1;
        }
      found = self->scanned < len
              ? memmem (self->window->data + self->scanned, len - self->scanned,
                        PRODUCTION_FUSE_SENTINEL, PRODUCTION_FUSE_SENTINEL_LEN)
              : NULL;
      if (found != NULL)
        {
          gsize at = (gsize) (found - self->window->data);

          if (self->count < G_MAXUINT)
            self->count++;
          if (!self->captured)
            {
              self->pending = TRUE;
              self->pending_at = at;
            }
          else
            self->scanned = at + 1;
          continue;
        }

      /* A sentinel may begin in the last bytes and end in the next chunk. */
      if (len >= PRODUCTION_FUSE_SENTINEL_LEN - 1)
        self->scanned = MAX (self->scanned, len - (PRODUCTION_FUSE_SENTINEL_LEN - 1));
      if (self->scanned > 0)
        {
          g_byte_array_remove_range (self->window, 0, (guint) self->scanned);
          self->base += self->scanned;
          self->scanned = 0;
        }
      return;
    }
}

void
production_fuse_scanner_feed (ProductionFuseScanner *self,
                              const guint8          *data,
                              gsize                  len)
{
  /* In slices, so that the window stays small whatever the caller feeds. */
  while (len > 0)
    {
      gsize n = MIN (len, (gsize) 1024 * 1024);

      g_byte_array_append (self->window, data, (guint) n);
      data += n;
      len -= n;
      scan (self, FALSE);
    }
}

/* The number of sentinels seen; @first gets the first one's wire. */
guint
production_fuse_scanner_finish (ProductionFuseScanner *self,
                                ProductionFuseWire    *first)
{
  scan (self, TRUE);
  if (first != NULL)
    {
      memset (first, 0, sizeof *first);
      if (self->captured)
        *first = self->wire;
    }
  return self->count;
}

/* --- JSON nesting -------------------------------------------------------- */

gboolean
production_json_too_deep (const char *text,
                          gsize       len,
                          guint       max_depth)
{
  guint depth = 0;
  gboolean in_string = FALSE;

  for (gsize i = 0; i < len; i++)
    {
      char c = text[i];

      if (in_string)
        {
          if (c == '\\')
            i++;
          else if (c == '"')
            in_string = FALSE;
        }
      else if (c == '"')
        in_string = TRUE;
      else if (c == '{' || c == '[')
        {
          if (++depth > max_depth)
            return TRUE;
        }
      else if ((c == '}' || c == ']') && depth > 0)
        depth--;
    }
  return FALSE;
}

/* --- asar ---------------------------------------------------------------- */

#define MAX_FAILED_LISTED 5
#define MIN_BLOCK_SIZE 1024u
#define MAX_BLOCK_SIZE (64u * 1024 * 1024)

typedef struct
{
  char *path;
  guint64 start;         /* absolute offset in the stream */
  guint64 size;
  char *hash;            /* lower-case hex; NULL without integrity */
  guint32 block_size;
  GPtrArray *blocks;     /* char * */
  /* while hashing */
  GChecksum *whole;
  GChecksum *block;
  guint64 in_block;
  guint next_block;
  gboolean block_mismatch;
  gboolean done;
} AsarFile;

typedef enum
{
  ASAR_PREFIX,
  ASAR_HEADER,
  ASAR_DATA,
  ASAR_FAILED,
} AsarPhase;

struct _ProductionAsarVerifier
{
  AsarPhase phase;
  GByteArray *buffer;      /* the prefix, then the header */
  guint32 header_size;
  guint64 pos;             /* stream offset of the next byte fed */
  GPtrArray *files;        /* AsarFile *, by start */
  guint next;              /* the first file not done */
  ProductionAsarResult result;
};

static void
asar_file_free (AsarFile *file)
{
  g_free (file->path);
  g_free (file->hash);
  g_clear_pointer (&file->blocks, g_ptr_array_unref);
  g_clear_pointer (&file->whole, g_checksum_free);
  g_clear_pointer (&file->block, g_checksum_free);
  g_free (file);
}

ProductionAsarVerifier *
production_asar_verifier_new (void)
{
  ProductionAsarVerifier *self = g_new0 (ProductionAsarVerifier, 1);

  self->buffer = g_byte_array_new ();
  self->files = g_ptr_array_new_with_free_func ((GDestroyNotify) asar_file_free);
  self->result.failed = g_ptr_array_new_with_free_func (g_free);
  return self;
}

void
production_asar_result_clear (ProductionAsarResult *result)
{
  g_clear_pointer (&result->header_error, g_free);
  g_clear_pointer (&result->failed, g_ptr_array_unref);
}

void
production_asar_verifier_free (ProductionAsarVerifier *self)
{
  if (self == NULL)
    return;
  g_byte_array_unref (self->buffer);
  g_ptr_array_unref (self->files);
  production_asar_result_clear (&self->result);
  g_free (self);
}

static void G_GNUC_PRINTF (2, 3)
header_failed (ProductionAsarVerifier *self,
               const char             *format,
               ...)
{
  va_list args;

  va_start (args, format);
  g_free (self->result.header_error);
  self->result.header_error = g_strdup_vprintf (format, args);
  va_end (args);
  self->phase = ASAR_FAILED;
}

static void G_GNUC_PRINTF (3, 4)
file_failed (ProductionAsarVerifier *self,
             const char             *path,
             const char             *format,
             ...)
{
  g_autofree char *why = NULL;
  va_list args;

  if (self->result.failed->len >= MAX_FAILED_LISTED)
    return;
  va_start (args, format);
  why = g_strdup_vprintf (format, args);
  va_end (args);
  g_ptr_array_add (self->result.failed, g_strdup_printf ("%s (%s)", path, why));
}

static gboolean
is_hex_digest (const char *text)
{
  if (text == NULL || strlen (text) != 64)
    return FALSE;
  for (const char *p = text; *p != '\0'; p++)
    if (!g_ascii_isxdigit (*p))
      return FALSE;
  return TRUE;
}

/* The integrity member of a file, checked for form; FALSE when malformed. */
static gboolean
read_integrity (JsonObject *integrity,
                AsarFile   *file)
{
  JsonNode *algorithm = json_object_get_member (integrity, "algorithm");
  JsonNode *hash = json_object_get_member (integrity, "hash");
  JsonNode *block_size = json_object_get_member (integrity, "blockSize");
  JsonNode *blocks = json_object_get_member (integrity, "blocks");
  JsonArray *list;
  gint64 size;

  if (algorithm == NULL || !JSON_NODE_HOLDS_VALUE (algorithm) ||
      g_strcmp0 (json_node_get_string (algorithm), "SHA256") != 0 ||
      hash == NULL || !JSON_NODE_HOLDS_VALUE (hash) || !is_hex_digest (json_node_get_string (hash)) ||
      block_size == NULL || json_node_get_value_type (block_size) != G_TYPE_INT64 ||
      blocks == NULL || !JSON_NODE_HOLDS_ARRAY (blocks))
    return FALSE;
  size = json_node_get_int (block_size);
  if (size < MIN_BLOCK_SIZE || size > MAX_BLOCK_SIZE)
    return FALSE;
  list = json_node_get_array (blocks);
  /* @electron/asar ends with the last, possibly empty, block. */
  if (json_array_get_length (list) == 0 ||
      json_array_get_length (list) > file->size / (guint64) size + 1)
    return FALSE;
  file->hash = g_ascii_strdown (json_node_get_string (hash), -1);
  file->block_size = (guint32) size;
  file->blocks = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < json_array_get_length (list); i++)
    {
      JsonNode *block = json_array_get_element (list, i);

      if (!JSON_NODE_HOLDS_VALUE (block) || !is_hex_digest (json_node_get_string (block)))
        return FALSE;
      g_ptr_array_add (file->blocks, g_ascii_strdown (json_node_get_string (block), -1));
    }
  return TRUE;
}

static gboolean
valid_name (const char *name)
{
  return name[0] != '\0' && strcmp (name, ".") != 0 && strcmp (name, "..") != 0 &&
         strchr (name, '/') == NULL && strchr (name, '\\') == NULL && strlen (name) <= 255;
}

static gboolean
read_directory (ProductionAsarVerifier *self,
                JsonObject             *directory,
                const char             *prefix,
                guint                   depth)
{
  JsonNode *files_node = json_object_get_member (directory, "files");
  JsonObject *files;
  g_autoptr(GList) names = NULL;

  if (files_node == NULL || !JSON_NODE_HOLDS_OBJECT (files_node))
    {
      header_failed (self, "a directory of “%s” has no files object", prefix[0] ? prefix : "/");
      return FALSE;
    }
  if (depth > PRODUCTION_ASAR_MAX_DEPTH)
    {
      header_failed (self, "directories nest deeper than %u", PRODUCTION_ASAR_MAX_DEPTH);
      return FALSE;
    }
  files = json_node_get_object (files_node);
  names = json_object_get_members (files);
  for (const GList *l = names; l != NULL; l = l->next)
    {
      const char *name = l->data;
      JsonNode *node = json_object_get_member (files, name);
      JsonObject *entry;
      g_autofree char *path = NULL;

      if (!valid_name (name) || !JSON_NODE_HOLDS_OBJECT (node))
        {
          header_failed (self, "an entry of “%s” has an invalid name or form", prefix[0] ? prefix : "/");
          return FALSE;
        }
      if (self->files->len + self->result.links + self->result.unpacked >= PRODUCTION_ASAR_MAX_ENTRIES)
        {
          header_failed (self, "more than %u entries", PRODUCTION_ASAR_MAX_ENTRIES);
          return FALSE;
        }
      entry = json_node_get_object (node);
      path = prefix[0] ? g_strconcat (prefix, "/", name, NULL) : g_strdup (name);

      if (json_object_has_member (entry, "files"))
        {
          if (!read_directory (self, entry, path, depth + 1))
            return FALSE;
        }
      else if (json_object_has_member (entry, "link"))
        self->result.links++;
      else
        {
          JsonNode *size = json_object_get_member (entry, "size");
          JsonNode *offset = json_object_get_member (entry, "offset");
          JsonNode *integrity = json_object_get_member (entry, "integrity");
          gboolean unpacked = json_object_get_boolean_member_with_default (entry, "unpacked", FALSE);
          g_autoptr(GError) error = NULL;
          guint64 relative = 0;
          AsarFile *file;

          if (size == NULL || json_node_get_value_type (size) != G_TYPE_INT64 || json_node_get_int (size) < 0)
            {
              header_failed (self, "“%s” has no valid size", path);
              return FALSE;
            }
          if (unpacked)
            {
              self->result.unpacked++;
              continue;
            }
          if (offset == NULL || json_node_get_value_type (offset) != G_TYPE_STRING ||
              !g_ascii_string_to_unsigned (json_node_get_string (offset), 10, 0, G_MAXUINT64 / 4,
                                           &relative, &error) ||
              (guint64) json_node_get_int (size) > G_MAXUINT64 / 4)
            {
              header_failed (self, "“%s” has no valid offset", path);
              return FALSE;
            }
          file = g_new0 (AsarFile, 1);
          file->path = g_steal_pointer (&path);
          file->start = self->result.data_offset + relative;
          file->size = (guint64) json_node_get_int (size);
          g_ptr_array_add (self->files, file);
          self->result.files++;
          if (integrity == NULL)
            continue;
          if (!JSON_NODE_HOLDS_OBJECT (integrity) || !read_integrity (json_node_get_object (integrity), file))
            {
              self->result.malformed++;
              file_failed (self, file->path, "malformed integrity");
              g_clear_pointer (&file->hash, g_free);
              g_clear_pointer (&file->blocks, g_ptr_array_unref);
              continue;
            }
          self->result.with_integrity++;
        }
    }
  return TRUE;
}

static int
compare_start (gconstpointer a,
               gconstpointer b)
{
  const AsarFile *x = *(AsarFile * const *) a;
  const AsarFile *y = *(AsarFile * const *) b;

  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return x->size < y->size ? -1 : x->size > y->size;
}

static void
read_header (ProductionAsarVerifier *self)
{
  const guint8 *p = self->buffer->data;
  guint32 payload = GUINT32_FROM_LE (*(guint32 *) p);
  guint32 length;
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(GError) error = NULL;
  JsonNode *root;
  guint64 end = 0;
  guint kept = 0;

  length = self->header_size >= 8 ? GUINT32_FROM_LE (*(guint32 *) (p + 4)) : 0;
  if (self->header_size < 8 || payload > self->header_size - 4 || payload < 4 || length > payload - 4)
    {
      header_failed (self, "the header's Pickle is malformed");
      return;
    }
  if (!g_utf8_validate ((const char *) p + 8, length, NULL))
    {
      header_failed (self, "the header is not UTF-8");
      return;
    }
  if (production_json_too_deep ((const char *) p + 8, length, PRODUCTION_ASAR_MAX_DEPTH * 2 + 4))
    {
      header_failed (self, "the header nests deeper than %u", PRODUCTION_ASAR_MAX_DEPTH * 2 + 4);
      return;
    }
  parser = json_parser_new_immutable ();
  if (!json_parser_load_from_data (parser, (const char *) p + 8, length, &error))
    {
      header_failed (self, "the header is not JSON: %s", error->message);
      return;
    }
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root) ||
      !read_directory (self, json_node_get_object (root), "", 0))
    {
      if (self->phase != ASAR_FAILED)
        header_failed (self, "the header is not an object with files");
      return;
    }

  /* One pass over the bytes: the files in order, none overlapping. */
  g_ptr_array_sort (self->files, compare_start);
  for (guint i = 0; i < self->files->len; i++)
    {
      AsarFile *file = g_ptr_array_index (self->files, i);

      if (file->size > 0 && file->start < end)
        {
          self->result.overlapping++;
          file_failed (self, file->path, "overlaps another file");
          asar_file_free (file);
          continue;
        }
      end = MAX (end, file->start + file->size);
      if (file->hash != NULL)
        {
          file->whole = g_checksum_new (G_CHECKSUM_SHA256);
          file->block = g_checksum_new (G_CHECKSUM_SHA256);
        }
      self->files->pdata[kept++] = file;
    }
  /* The freed ones are gone: no free function for them. */
  g_ptr_array_set_free_func (self->files, NULL);
  g_ptr_array_set_size (self->files, kept);
  g_ptr_array_set_free_func (self->files, (GDestroyNotify) asar_file_free);
  self->phase = ASAR_DATA;
}

static void
end_block (AsarFile *file)
{
  const char *digest = g_checksum_get_string (file->block);

  if (file->next_block >= file->blocks->len ||
      strcmp (digest, g_ptr_array_index (file->blocks, file->next_block)) != 0)
    file->block_mismatch = TRUE;
  file->next_block++;
  g_checksum_reset (file->block);
  file->in_block = 0;
}

static void
finish_file (ProductionAsarVerifier *self,
             AsarFile               *file)
{
  file->done = TRUE;
  if (file->hash == NULL)
    return;
  if (!file->block_mismatch)
    {
      /* The last block: @electron/asar always writes it, even empty; a
       * header that leaves an empty last block out is accepted too. */
      if (file->in_block > 0 || file->next_block < file->blocks->len)
        end_block (file);
    }
  if (strcmp (g_checksum_get_string (file->whole), file->hash) != 0)
    {
      self->result.mismatched++;
      file_failed (self, file->path, "SHA256 differs");
    }
  else if (file->block_mismatch || file->next_block != file->blocks->len)
    {
      self->result.mismatched++;
      file_failed (self, file->path, "block hashes differ");
    }
  else
    self->result.verified++;
  g_clear_pointer (&file->whole, g_checksum_free);
  g_clear_pointer (&file->block, g_checksum_free);
}

static void
hash_bytes (AsarFile     *file,
            const guint8 *data,
            gsize         len)
{
  g_checksum_update (file->whole, data, len);
  while (len > 0 && !file->block_mismatch)
    {
      gsize n = MIN (len, (gsize) (file->block_size - file->in_block));

      g_checksum_update (file->block, data, n);
      file->in_block += n;
      data += n;
      len -= n;
      if (file->in_block == file->block_size)
        end_block (file);
    }
}

static void
feed_data (ProductionAsarVerifier *self,
           const guint8           *data,
           gsize                   len)
{
  while (self->next < self->files->len)
    {
      AsarFile *file = g_ptr_array_index (self->files, self->next);
      guint64 end = file->start + file->size;

      if (self->pos >= end && self->pos >= file->start)
        {
          finish_file (self, file);
          self->next++;
          continue;
        }
      if (len == 0)
        return;
      if (self->pos < file->start)
        {
          gsize skip = (gsize) MIN ((guint64) len, file->start - self->pos);

          data += skip;
          len -= skip;
          self->pos += skip;
          continue;
        }
      {
        gsize n = (gsize) MIN ((guint64) len, end - self->pos);

        if (file->hash != NULL)
          hash_bytes (file, data, n);
        data += n;
        len -= n;
        self->pos += n;
      }
    }
  self->pos += len;
}

gboolean
production_asar_verifier_feed (ProductionAsarVerifier *self,
                               const guint8           *data,
                               gsize                   len)
{
  while (len > 0)
    {
      switch (self->phase)
        {
        case ASAR_PREFIX:
        case ASAR_HEADER:
          {
            guint need = self->phase == ASAR_PREFIX ? 8 : self->header_size;
            gsize n = MIN (len, (gsize) (need - self->buffer->len));

            g_byte_array_append (self->buffer, data, (guint) n);
            data += n;
            len -= n;
            self->pos += n;
            if (self->buffer->len < need)
              return TRUE;
            if (self->phase == ASAR_PREFIX)
              {
                guint32 size_payload = GUINT32_FROM_LE (*(guint32 *) self->buffer->data);

                self->header_size = GUINT32_FROM_LE (*(guint32 *) (self->buffer->data + 4));
                if (size_payload != 4 || self->header_size < 8 ||
                    self->header_size > PRODUCTION_ASAR_MAX_HEADER)
                  {
                    header_failed (self, "not an asar archive (header size %u)", self->header_size);
                    return FALSE;
                  }
                self->result.data_offset = 8 + (guint64) self->header_size;
                g_byte_array_set_size (self->buffer, 0);
                self->phase = ASAR_HEADER;
              }
            else
              {
                read_header (self);
                g_byte_array_set_size (self->buffer, 0);
                if (self->phase == ASAR_FAILED)
                  return FALSE;
              }
          }
          break;

        case ASAR_DATA:
          feed_data (self, data, len);
          return self->next < self->files->len;

        case ASAR_FAILED:
        default:
          return FALSE;
        }
    }
  if (self->phase == ASAR_DATA)
    feed_data (self, NULL, 0);
  return self->phase != ASAR_FAILED && (self->phase != ASAR_DATA || self->next < self->files->len);
}

/* Moves the result into @result (cleared with production_asar_result_clear). */
void
production_asar_verifier_finish (ProductionAsarVerifier *self,
                                 ProductionAsarResult   *result)
{
  if (self->phase == ASAR_PREFIX || self->phase == ASAR_HEADER)
    header_failed (self, "the archive ends inside its header");
  if (self->phase == ASAR_DATA)
    {
      feed_data (self, NULL, 0);
      for (; self->next < self->files->len; self->next++)
        {
          AsarFile *file = g_ptr_array_index (self->files, self->next);

          self->result.truncated++;
          file_failed (self, file->path, "beyond the end of the archive");
        }
    }
  *result = self->result;
  memset (&self->result, 0, sizeof self->result);
  self->result.failed = g_ptr_array_new_with_free_func (g_free);
}
