/* fuzz.h: the entry point every fuzz target defines
 *
 * The same target links with libFuzzer (configure --enable-fuzzing, clang)
 * or with fuzz-driver.c, a bounded replay-and-mutate driver that runs in
 * make check with any compiler. See docs/fuzzing.md.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput (const uint8_t *data,
                            size_t         size);

/* Criticals and warnings are failures, as in the test programs: each
 * target calls this first. */
static inline void
fuzz_init (void)
{
  static gboolean done;

  if (!done)
    {
      g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
      done = TRUE;
    }
}
