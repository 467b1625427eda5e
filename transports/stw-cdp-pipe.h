/* stw-cdp-pipe.h: CDP over --remote-debugging-pipe (NUL-delimited, fds 3/4)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(__STAGEWRIGHT_INSIDE__) && !defined(STAGEWRIGHT_COMPILATION)
# error "Only <stagewright/stagewright.h> can be included directly."
#endif

#include "stw-transport.h"

G_BEGIN_DECLS

#define STW_TYPE_CDP_PIPE (stw_cdp_pipe_get_type ())
STW_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (StwCdpPipe, stw_cdp_pipe, STW, CDP_PIPE, StwTransport)

STW_AVAILABLE_IN_1_0
StwTransport *stw_cdp_pipe_new (GInputStream *input,
                                GOutputStream *output);

G_END_DECLS
