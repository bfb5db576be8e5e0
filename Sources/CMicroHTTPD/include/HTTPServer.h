#ifndef AIRLOC_HTTP_SERVER_H
#define AIRLOC_HTTP_SERVER_H

#include <stddef.h>

/// What a request handler answers. Every pointer it sets is malloc'd and freed here once
/// the response is made: `body` (`body_length` bytes), `content_type`, `headers` ("Name:
/// value" lines joined by '\n'). A non-NULL `stream` makes the answer an event stream:
/// its bytes come from the stream reader until it returns -1, then `stream` is released.
typedef struct {
    int status;
    char *content_type;
    char *headers;
    char *body;
    size_t body_length;
    void *stream;
    /// Seconds without traffic before an event stream is closed (0: the server's own).
    unsigned int stream_timeout;
} airloc_http_reply;

/// One request: `method`, `path` (no query), `head_bytes` (the request line and headers
/// as sent, so a handler can refuse an oversized head), and `connection` for
/// airloc_http_header and airloc_http_argument, valid during the call only.
typedef void (*airloc_http_handler)(void *context, void *connection, const char *method, const char *path,
                                    size_t head_bytes, airloc_http_reply *reply);
/// Fills up to `capacity` bytes of an event stream; blocks until it has some. Returns the
/// count, or -1 when the stream ends.
typedef long (*airloc_http_stream_read)(void *stream, char *buffer, size_t capacity);
/// Releases a stream the handler made.
typedef void (*airloc_http_stream_release)(void *stream);

/// The limits a server enforces by itself, before any handler runs.
typedef struct {
    /// Connections at once; more are refused until one closes.
    unsigned int connections;
    /// Connections at once from one client address; more from it are refused.
    unsigned int per_client;
    /// Seconds a connection may be idle.
    unsigned int timeout;
    /// Seconds a whole request head may take to arrive, however slowly it trickles.
    unsigned int head_timeout;
    /// Bytes a connection's buffers may hold (bounds a request head).
    size_t memory;
} airloc_http_limits;

/// Starts a server on `address` (an IPv4 or IPv6 literal) and `port` (0: any free one,
/// written to *bound_port) through libmicrohttpd, which is loaded (dlopen) by the first
/// call: only `airloc serve` needs it. Each connection has its own thread, so a handler
/// and a stream reader may block. Returns NULL with `error` saying why (the library is
/// missing, the address is taken or invalid).
void *airloc_http_start(const char *address, int port, airloc_http_limits limits, airloc_http_handler handler,
                        airloc_http_stream_read read, airloc_http_stream_release release, void *context,
                        int *bound_port, char *error, size_t error_size);

/// Stops accepting, closes every connection and waits for their threads. The caller ends
/// its event streams first (their readers return -1), or this waits for them.
void airloc_http_stop(void *server);

/// A request header's value (case-insensitive name), or NULL.
const char *airloc_http_header(void *connection, const char *name);
/// A query argument's value, or NULL.
const char *airloc_http_argument(void *connection, const char *name);
/// The client's address as text ("192.0.2.7", "::1"; "" when unknown) into `buffer`.
void airloc_http_client(void *connection, char *buffer, size_t size);

#endif
