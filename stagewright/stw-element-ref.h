/* stw-element-ref.h: what a page operation answers about an element
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(__STAGEWRIGHT_INSIDE__) && !defined(STAGEWRIGHT_COMPILATION)
# error "Only <stagewright/stagewright.h> can be included directly."
#endif

#include <glib-object.h>
#include <json-glib/json-glib.h>

#include "stw-enums.h"
#include "stw-version-macros.h"

G_BEGIN_DECLS

#define STW_TYPE_ELEMENT_REF   (stw_element_ref_get_type ())
#define STW_TYPE_ELEMENT_STATE (stw_element_state_get_type ())
#define STW_TYPE_BOX           (stw_box_get_type ())

/**
 * StwElementRef:
 *
 * The element an action or a read acted on: its ref (valid in the
 * session until the element goes), its role and accessible name as the
 * snapshot shows them, and the id of the surface it lives in.
 *
 * Since: 1.0
 */
typedef struct _StwElementRef StwElementRef;

STW_AVAILABLE_IN_1_0
GType          stw_element_ref_get_type       (void) G_GNUC_CONST;
STW_AVAILABLE_IN_1_0
StwElementRef *stw_element_ref_new            (guint                ref,
                                               const char          *role,
                                               const char          *name,
                                               const char          *surface_id);
STW_AVAILABLE_IN_1_0
StwElementRef *stw_element_ref_copy           (const StwElementRef *self);
STW_AVAILABLE_IN_1_0
void           stw_element_ref_free           (StwElementRef       *self);
STW_AVAILABLE_IN_1_0
guint          stw_element_ref_get_ref        (const StwElementRef *self);
STW_AVAILABLE_IN_1_0
const char    *stw_element_ref_get_role       (const StwElementRef *self);
STW_AVAILABLE_IN_1_0
const char    *stw_element_ref_get_name       (const StwElementRef *self);
STW_AVAILABLE_IN_1_0
const char    *stw_element_ref_get_surface_id (const StwElementRef *self);
STW_AVAILABLE_IN_1_0
JsonObject    *stw_element_ref_to_json        (const StwElementRef *self);

/**
 * StwElementState:
 * @known: the flags that apply to the element (`checked` does not apply
 *   to a button, for example)
 * @values: the value of each known flag
 * @mixed: the known flags whose value is mixed (an indeterminate
 *   checkbox); their bit in @values is unset
 *
 * An element's states: which of the twelve [flags@Stagewright.StateFlags]
 * apply, their values, and which are mixed.
 *
 * As the wanted state of [method@Stagewright.Surface.expect_state_async],
 * @known is the mask of the flags that matter, @values their wanted values
 * and @mixed the flags wanted mixed.
 *
 * Since: 1.0
 */
typedef struct _StwElementState StwElementState;

struct _StwElementState
{
  StwStateFlags known;
  StwStateFlags values;
  StwStateFlags mixed;
};

STW_AVAILABLE_IN_1_0
GType            stw_element_state_get_type      (void) G_GNUC_CONST;
STW_AVAILABLE_IN_1_0
StwElementState *stw_element_state_new           (StwStateFlags          known,
                                                  StwStateFlags          values,
                                                  StwStateFlags          mixed);
STW_AVAILABLE_IN_1_0
StwElementState *stw_element_state_copy          (const StwElementState *self);
STW_AVAILABLE_IN_1_0
void             stw_element_state_free          (StwElementState       *self);
STW_AVAILABLE_IN_1_0
StwStateFlags    stw_element_state_get_known     (const StwElementState *self);
STW_AVAILABLE_IN_1_0
StwStateFlags    stw_element_state_get_values    (const StwElementState *self);
STW_AVAILABLE_IN_1_0
StwStateFlags    stw_element_state_get_mixed     (const StwElementState *self);
STW_AVAILABLE_IN_1_0
gboolean         stw_element_state_matches       (const StwElementState *self,
                                                  const StwElementState *wanted);
STW_AVAILABLE_IN_1_0
StwElementState *stw_element_state_new_from_json (JsonObject            *object,
                                                  GError               **error);
STW_AVAILABLE_IN_1_0
JsonObject      *stw_element_state_to_json       (const StwElementState *self);

/**
 * StwBox:
 * @x: the left edge, in CSS pixels of the window's viewport
 * @y: the top edge, in CSS pixels of the window's viewport
 * @width: the width in CSS pixels
 * @height: the height in CSS pixels
 *
 * An element's border box.
 *
 * Since: 1.0
 */
typedef struct _StwBox StwBox;

struct _StwBox
{
  double x;
  double y;
  double width;
  double height;
};

STW_AVAILABLE_IN_1_0
GType   stw_box_get_type (void) G_GNUC_CONST;
STW_AVAILABLE_IN_1_0
StwBox *stw_box_new      (double        x,
                          double        y,
                          double        width,
                          double        height);
STW_AVAILABLE_IN_1_0
StwBox *stw_box_copy     (const StwBox *self);
STW_AVAILABLE_IN_1_0
void    stw_box_free     (StwBox       *self);

#define STW_TYPE_ELEMENT_INFO (stw_element_info_get_type ())
#define STW_TYPE_ELEMENT_LIST (stw_element_list_get_type ())

/**
 * StwElementInfo:
 *
 * An element that [method@Stagewright.Surface.find_async] or
 * [method@Stagewright.Surface.list_elements_async] found: the element (its
 * ref is 0 when the snapshot gives it none), its tag name (listed
 * elements only) and its border box.
 *
 * Since: 1.0
 */
typedef struct _StwElementInfo StwElementInfo;

STW_AVAILABLE_IN_1_0
GType                stw_element_info_get_type    (void) G_GNUC_CONST;
STW_AVAILABLE_IN_1_0
StwElementInfo      *stw_element_info_copy        (const StwElementInfo *self);
STW_AVAILABLE_IN_1_0
void                 stw_element_info_free        (StwElementInfo       *self);
STW_AVAILABLE_IN_1_0
const StwElementRef *stw_element_info_get_element (const StwElementInfo *self);
STW_AVAILABLE_IN_1_0
const char          *stw_element_info_get_tag     (const StwElementInfo *self);
STW_AVAILABLE_IN_1_0
const StwBox        *stw_element_info_get_box     (const StwElementInfo *self);
STW_AVAILABLE_IN_1_0
JsonObject          *stw_element_info_to_json     (const StwElementInfo *self);

/**
 * StwElementList:
 *
 * The elements a search found, in document order: at most the limit
 * asked for, with the true count beside them, the surface searched, and
 * whether its renderer reloaded since the last snapshot.
 *
 * Since: 1.0
 */
typedef struct _StwElementList StwElementList;

STW_AVAILABLE_IN_1_0
GType                 stw_element_list_get_type              (void) G_GNUC_CONST;
STW_AVAILABLE_IN_1_0
StwElementList       *stw_element_list_ref                   (StwElementList       *self);
STW_AVAILABLE_IN_1_0
void                  stw_element_list_unref                 (StwElementList       *self);
STW_AVAILABLE_IN_1_0
guint                 stw_element_list_get_n_elements        (const StwElementList *self);
STW_AVAILABLE_IN_1_0
const StwElementInfo *stw_element_list_get_element           (const StwElementList *self,
                                                              guint                 index);
STW_AVAILABLE_IN_1_0
guint                 stw_element_list_get_count             (const StwElementList *self);
STW_AVAILABLE_IN_1_0
const char           *stw_element_list_get_surface_id        (const StwElementList *self);
STW_AVAILABLE_IN_1_0
gboolean              stw_element_list_get_renderer_reloaded (const StwElementList *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StwElementRef, stw_element_ref_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (StwElementState, stw_element_state_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (StwBox, stw_box_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (StwElementInfo, stw_element_info_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (StwElementList, stw_element_list_unref)

G_END_DECLS
