/* stw-input-private.h: real input — keys, chords, the mouse, sent on a
 * connection (below the surface: it knows no surface, session or dialog)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

#include "stw-transport.h"

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
/* Where a window's mouse is: the window holds one, each send updates it. */
typedef struct _StwInputPointer StwInputPointer;

StwInputPointer *_stw_input_pointer_new    (void);
StwInputPointer *_stw_input_pointer_ref    (StwInputPointer *pointer);
void             _stw_input_pointer_unref  (StwInputPointer *pointer);
gboolean         _stw_input_pointer_is_at  (StwInputPointer *pointer,
                                            double           x,
                                            double           y);

/* Sends @events on @window_session (the page's session: input goes to the
 * window), in order. A JavaScript dialog opening on @window_session or
 * @frame_session ends the send: the finish says where it opened, with
 * its event, and the caller asks the dialogs unit what it was answered. */
void        _stw_input_send_async      (StwTransport        *transport,
                                        const char          *window_session,
                                        const char          *frame_session,
                                        StwInputPointer     *pointer,
                                        GPtrArray           *events,
                                        GCancellable        *cancellable,
                                        GAsyncReadyCallback  callback,
                                        gpointer             user_data);
gboolean    _stw_input_send_finish     (GAsyncResult  *result,
                                        char         **dialog_session,
                                        JsonObject   **dialog_event,
                                        GError       **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StwInputPointer, _stw_input_pointer_unref)

G_END_DECLS
