/* fuzz-production.c: fuzz target for the production plugin's readers
 *
 * The input is read twice as a whole stream by each reader — the asar
 * verifier (the Pickle header, the JSON header, the per-file SHA256 and
 * block hashes) and the fuse wire scanner — once in one piece and once in
 * chunks whose sizes come from the input. Oracles besides "no crash, no
 * leak": both feedings answer the same; counts are consistent (what
 * verified carried integrity, a wire read no more fuses than it declares,
 * the sentinel lies inside the input).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "fuzz.h"
#include "production-formats.h"

static gsize
chunk_size (const uint8_t *data,
            size_t         size,
            gsize          i)
{
  return size == 0 ? 1 : (gsize) (data[i % size] % 61) + 1;
}

static void
asar_read (const uint8_t        *data,
           size_t                size,
           gboolean              chunked,
           ProductionAsarResult *result)
{
  g_autoptr(ProductionAsarVerifier) verifier = production_asar_verifier_new ();
  gsize at = 0;

  for (gsize i = 0; at < size; i++)
    {
      gsize n = chunked ? MIN (chunk_size (data, size, i), size - at) : size;

      if (!production_asar_verifier_feed (verifier, data + at, n))
        break;
      at += n;
    }
  production_asar_verifier_finish (verifier, result);
}

static guint
fuse_read (const uint8_t      *data,
           size_t              size,
           gboolean            chunked,
           ProductionFuseWire *wire)
{
  g_autoptr(ProductionFuseScanner) scanner = production_fuse_scanner_new ();
  gsize at = 0;

  for (gsize i = 0; at < size; i++)
    {
      gsize n = chunked ? MIN (chunk_size (data, size, i), size - at) : size;

      production_fuse_scanner_feed (scanner, data + at, n);
      at += n;
    }
  g_assert_cmpuint (production_fuse_scanner_get_fed (scanner), ==, size);
  return production_fuse_scanner_finish (scanner, wire);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  ProductionAsarResult whole = { 0 }, chunked = { 0 };
  ProductionFuseWire wire_whole, wire_chunked;
  guint count_whole, count_chunked;

  fuzz_init ();

  asar_read (data, size, FALSE, &whole);
  asar_read (data, size, TRUE, &chunked);
  g_assert_cmpint (whole.header_error == NULL, ==, chunked.header_error == NULL);
  g_assert_cmpuint (whole.files, ==, chunked.files);
  g_assert_cmpuint (whole.verified, ==, chunked.verified);
  g_assert_cmpuint (whole.mismatched, ==, chunked.mismatched);
  g_assert_cmpuint (whole.truncated, ==, chunked.truncated);
  g_assert_cmpuint (whole.verified + whole.mismatched, <=, whole.with_integrity);
  g_assert_cmpuint (whole.with_integrity + whole.malformed, <=, whole.files);
  g_assert_cmpuint (whole.failed->len, <=, 5);
  if (whole.header_error == NULL)
    g_assert_cmpuint (whole.data_offset, <=, (guint64) size);
  production_asar_result_clear (&whole);
  production_asar_result_clear (&chunked);

  count_whole = fuse_read (data, size, FALSE, &wire_whole);
  count_chunked = fuse_read (data, size, TRUE, &wire_chunked);
  g_assert_cmpuint (count_whole, ==, count_chunked);
  g_assert_cmpuint (wire_whole.offset, ==, wire_chunked.offset);
  g_assert_cmpint (wire_whole.complete, ==, wire_chunked.complete);
  g_assert_cmpuint (wire_whole.version, ==, wire_chunked.version);
  g_assert_cmpuint (wire_whole.length, ==, wire_chunked.length);
  g_assert_cmpuint (wire_whole.available, ==, wire_chunked.available);
  g_assert_true (memcmp (wire_whole.fuses, wire_chunked.fuses, wire_whole.available) == 0);
  if (count_whole > 0)
    {
      g_assert_cmpuint (wire_whole.offset + PRODUCTION_FUSE_SENTINEL_LEN, <=, (guint64) size);
      g_assert_true (memcmp (data + wire_whole.offset, PRODUCTION_FUSE_SENTINEL, PRODUCTION_FUSE_SENTINEL_LEN) == 0);
      g_assert_cmpuint (wire_whole.available, <=, wire_whole.length);
      if (wire_whole.complete)
        g_assert_cmpuint (wire_whole.offset + PRODUCTION_FUSE_SENTINEL_LEN + 2 + wire_whole.available, <=,
                          (guint64) size);
      else
        g_assert_cmpuint (wire_whole.available, ==, 0);
    }
  else
    g_assert_false (wire_whole.complete);
  return 0;
}
