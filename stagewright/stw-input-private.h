/* stw-input-private.h: real input — keys, chords, the mouse, and where a
 * frame's point is in its window
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "stw-surface-private.h"

G_BEGIN_DECLS

/* Input.dispatch*Event modifier bits. */
#define STW_INPUT_ALT     1
#define STW_INPUT_CONTROL 2
#define STW_INPUT_META    4
#define STW_INPUT_SHIFT   8

/* One CDP call of an input sequence. */
typedef struct
{
  const char *method;    /* static */
  JsonObject *params;
} StwInputEvent;

/* A list of StwInputEvent, freed with its events. */
GPtrArray  *_stw_input_events_new      (void);
/* Any other Input.* call, in order with the rest (takes @params). */
void        _stw_input_add_call        (GPtrArray  *events,
                                        const char *method,
                                        JsonObject *params);
void        _stw_input_add_mouse       (GPtrArray  *events,
                                        const char *type,
                                        double      x,
                                        double      y,
                                        const char *button,
                                        int         click_count);
void        _stw_input_add_wheel       (GPtrArray  *events,
                                        double      x,
                                        double      y,
                                        double      dx,
                                        double      dy);
/* Presses a chord (`Control+Shift+A`, `Enter`, `a`): modifiers down,
 * the key down and up, modifiers up — as a US keyboard would. */
gboolean    _stw_input_add_chord       (GPtrArray   *events,
                                        const char  *chord,
                                        GError     **error);
/* Types @text key by key; a character no US key makes is inserted as
 * text (Input.insertText), as an input method would. */
void        _stw_input_add_text        (GPtrArray  *events,
                                        const char *text);
/* Checks a chord without pressing it: BAD_ARGUMENT naming it. */
gboolean    _stw_input_chord_is_valid  (const char  *chord,
                                        GError     **error);

/* Sends @events in order to @window's page session, all at once, and
 * completes when every one is acknowledged — or as soon as a JavaScript
 * dialog opens in @window or @frame (the dialog holds the acknowledgement
 * back until it closes; the session's dialog handler answers it). The
 * value is NULL or `{type, message, action}` of the dialog that opened. */
void        _stw_input_send_async      (StwSurface          *window,
                                        StwSurface          *frame,
                                        GPtrArray           *events,
                                        GCancellable        *cancellable,
                                        GAsyncReadyCallback  callback,
                                        gpointer             user_data);
gboolean    _stw_input_send_finish     (StwSurface    *window,
                                        GAsyncResult  *result,
                                        JsonObject   **dialog,
                                        GError       **error);

/* Whether the mouse is at (@x, @y) of @window's viewport: where the last
 * input sent there left it. */
gboolean    _stw_input_pointer_is_at   (StwSurface *window,
                                        double      x,
                                        double      y);

/* The surface whose page session takes input for @surface: itself, or
 * for a frame the window (or webview) it is in. */
StwSurface *_stw_input_window_of       (StwSurface *surface);

/* Where (0, 0) of @self's viewport lies in the viewport of its root
 * surface (the window or webview holding it; itself when it is one), CSS
 * px: the content boxes of the frame owners on the way up, each measured
 * with DOM.getBoxModel in its local root (docs/page-ops.md). The finish
 * function answers the root (transfer full). */
void        _stw_surface_frame_offset_async  (StwSurface          *self,
                                              GCancellable        *cancellable,
                                              GAsyncReadyCallback  callback,
                                              gpointer             user_data);
StwSurface *_stw_surface_frame_offset_finish (StwSurface    *self,
                                              GAsyncResult  *result,
                                              double        *x,
                                              double        *y,
                                              GError       **error);

G_END_DECLS
