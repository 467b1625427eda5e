/* stw-soup-private.h: libsoup, opened when it is first needed
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Neither the library nor the program links libsoup: only the Streamable
 * HTTP transport and the WebSocket and HTTP clients of the CDP endpoints
 * use it, and loading it with its dependencies (about twenty libraries,
 * all bound at once) was 40 % of what the server did before answering
 * `initialize` on stdio. Code that calls libsoup includes this header
 * instead of <libsoup/soup.h> and calls _stw_soup_load() first; the calls
 * go through a table of the library's entry points.
 *
 * What the libsoup headers bind at link time, their inline casts
 * (SOUP_SESSION () and friends) and their interned atoms (SOUP_METHOD_GET),
 * stays out: cast with plain C and spell methods as strings. The library
 * is linked with -no-undefined, so one that slips in fails the build.
 */

#pragma once

#include <gio/gio.h>
#include <libsoup/soup.h>

G_BEGIN_DECLS

/* The SONAME of libsoup 3; its ABI is stable within the major version. */
#define STW_SOUP_SONAME "libsoup-3.0.so.0"

#define STW_SOUP_ENTRY_POINTS(F) \
  F (soup_content_decoder_get_type) \
  F (soup_get_major_version) \
  F (soup_get_micro_version) \
  F (soup_get_minor_version) \
  F (soup_header_contains) \
  F (soup_message_add_flags) \
  F (soup_message_body_append) \
  F (soup_message_body_complete) \
  F (soup_message_body_flatten) \
  F (soup_message_get_response_headers) \
  F (soup_message_get_status) \
  F (soup_message_headers_get_content_length) \
  F (soup_message_headers_get_content_type) \
  F (soup_message_headers_get_encoding) \
  F (soup_message_headers_get_list) \
  F (soup_message_headers_get_one) \
  F (soup_message_headers_iter_init) \
  F (soup_message_headers_iter_next) \
  F (soup_message_headers_remove) \
  F (soup_message_headers_replace) \
  F (soup_message_headers_set_content_type) \
  F (soup_message_headers_set_encoding) \
  F (soup_message_new_from_uri) \
  F (soup_server_accept_iostream) \
  F (soup_server_add_early_handler) \
  F (soup_server_add_handler) \
  F (soup_server_disconnect) \
  F (soup_server_message_get_method) \
  F (soup_server_message_get_remote_address) \
  F (soup_server_message_get_request_body) \
  F (soup_server_message_get_request_headers) \
  F (soup_server_message_get_response_body) \
  F (soup_server_message_get_response_headers) \
  F (soup_server_message_get_socket) \
  F (soup_server_message_get_uri) \
  F (soup_server_message_pause) \
  F (soup_server_message_set_response) \
  F (soup_server_message_set_status) \
  F (soup_server_message_steal_connection) \
  F (soup_server_message_unpause) \
  F (soup_server_new) \
  F (soup_session_abort) \
  F (soup_session_new) \
  F (soup_session_remove_feature_by_type) \
  F (soup_session_send_async) \
  F (soup_session_send_finish) \
  F (soup_session_set_proxy_resolver) \
  F (soup_session_websocket_connect_async) \
  F (soup_session_websocket_connect_finish) \
  F (soup_status_get_phrase) \
  F (soup_websocket_connection_close) \
  F (soup_websocket_connection_get_close_code) \
  F (soup_websocket_connection_get_close_data) \
  F (soup_websocket_connection_get_state) \
  F (soup_websocket_connection_send_message) \
  F (soup_websocket_connection_set_keepalive_interval) \
  F (soup_websocket_connection_set_max_incoming_payload_size)

typedef struct
{
#define STW_SOUP_MEMBER(name) __typeof__ (name) *name;
  STW_SOUP_ENTRY_POINTS (STW_SOUP_MEMBER)
#undef STW_SOUP_MEMBER
} StwSoup;

extern StwSoup _stw_soup;

gboolean _stw_soup_load (GError **error);

/* Code linked with libsoup (stw-soup.c itself, tests) defines
 * STW_SOUP_LINKED before including this header and calls it directly. */
#ifndef STW_SOUP_LINKED
#define soup_content_decoder_get_type (_stw_soup.soup_content_decoder_get_type)
#define soup_get_major_version (_stw_soup.soup_get_major_version)
#define soup_get_micro_version (_stw_soup.soup_get_micro_version)
#define soup_get_minor_version (_stw_soup.soup_get_minor_version)
#define soup_header_contains (_stw_soup.soup_header_contains)
#define soup_message_add_flags (_stw_soup.soup_message_add_flags)
#define soup_message_body_append (_stw_soup.soup_message_body_append)
#define soup_message_body_complete (_stw_soup.soup_message_body_complete)
#define soup_message_body_flatten (_stw_soup.soup_message_body_flatten)
#define soup_message_get_response_headers (_stw_soup.soup_message_get_response_headers)
#define soup_message_get_status (_stw_soup.soup_message_get_status)
#define soup_message_headers_get_content_length (_stw_soup.soup_message_headers_get_content_length)
#define soup_message_headers_get_content_type (_stw_soup.soup_message_headers_get_content_type)
#define soup_message_headers_get_encoding (_stw_soup.soup_message_headers_get_encoding)
#define soup_message_headers_get_list (_stw_soup.soup_message_headers_get_list)
#define soup_message_headers_get_one (_stw_soup.soup_message_headers_get_one)
#define soup_message_headers_iter_init (_stw_soup.soup_message_headers_iter_init)
#define soup_message_headers_iter_next (_stw_soup.soup_message_headers_iter_next)
#define soup_message_headers_remove (_stw_soup.soup_message_headers_remove)
#define soup_message_headers_replace (_stw_soup.soup_message_headers_replace)
#define soup_message_headers_set_content_type (_stw_soup.soup_message_headers_set_content_type)
#define soup_message_headers_set_encoding (_stw_soup.soup_message_headers_set_encoding)
#define soup_message_new_from_uri (_stw_soup.soup_message_new_from_uri)
#define soup_server_accept_iostream (_stw_soup.soup_server_accept_iostream)
#define soup_server_add_early_handler (_stw_soup.soup_server_add_early_handler)
#define soup_server_add_handler (_stw_soup.soup_server_add_handler)
#define soup_server_disconnect (_stw_soup.soup_server_disconnect)
#define soup_server_message_get_method (_stw_soup.soup_server_message_get_method)
#define soup_server_message_get_remote_address (_stw_soup.soup_server_message_get_remote_address)
#define soup_server_message_get_request_body (_stw_soup.soup_server_message_get_request_body)
#define soup_server_message_get_request_headers (_stw_soup.soup_server_message_get_request_headers)
#define soup_server_message_get_response_body (_stw_soup.soup_server_message_get_response_body)
#define soup_server_message_get_response_headers (_stw_soup.soup_server_message_get_response_headers)
#define soup_server_message_get_socket (_stw_soup.soup_server_message_get_socket)
#define soup_server_message_get_uri (_stw_soup.soup_server_message_get_uri)
#define soup_server_message_pause (_stw_soup.soup_server_message_pause)
#define soup_server_message_set_response (_stw_soup.soup_server_message_set_response)
#define soup_server_message_set_status (_stw_soup.soup_server_message_set_status)
#define soup_server_message_steal_connection (_stw_soup.soup_server_message_steal_connection)
#define soup_server_message_unpause (_stw_soup.soup_server_message_unpause)
#define soup_server_new (_stw_soup.soup_server_new)
#define soup_session_abort (_stw_soup.soup_session_abort)
#define soup_session_new (_stw_soup.soup_session_new)
#define soup_session_remove_feature_by_type (_stw_soup.soup_session_remove_feature_by_type)
#define soup_session_send_async (_stw_soup.soup_session_send_async)
#define soup_session_send_finish (_stw_soup.soup_session_send_finish)
#define soup_session_set_proxy_resolver (_stw_soup.soup_session_set_proxy_resolver)
#define soup_session_websocket_connect_async (_stw_soup.soup_session_websocket_connect_async)
#define soup_session_websocket_connect_finish (_stw_soup.soup_session_websocket_connect_finish)
#define soup_status_get_phrase (_stw_soup.soup_status_get_phrase)
#define soup_websocket_connection_close (_stw_soup.soup_websocket_connection_close)
#define soup_websocket_connection_get_close_code (_stw_soup.soup_websocket_connection_get_close_code)
#define soup_websocket_connection_get_close_data (_stw_soup.soup_websocket_connection_get_close_data)
#define soup_websocket_connection_get_state (_stw_soup.soup_websocket_connection_get_state)
#define soup_websocket_connection_send_message (_stw_soup.soup_websocket_connection_send_message)
#define soup_websocket_connection_set_keepalive_interval (_stw_soup.soup_websocket_connection_set_keepalive_interval)
#define soup_websocket_connection_set_max_incoming_payload_size (_stw_soup.soup_websocket_connection_set_max_incoming_payload_size)
#endif

G_END_DECLS
