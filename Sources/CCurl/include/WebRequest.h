#ifndef AIRLOC_WEB_REQUEST_H
#define AIRLOC_WEB_REQUEST_H

#include <stddef.h>

/// One HTTP GET (or POST, with a body) through libcurl, which is loaded (dlopen) on the first request only:
/// commands that never go online (search, reverse, postal --offline) do not pay for
/// loading libcurl and the two dozen libraries it pulls in.
///
/// Lifetime: airloc_web_request_new, then airloc_web_request_perform once (it blocks:
/// call it on a thread of its own), airloc_web_request_cancel from any thread at any
/// time before free, airloc_web_request_free once perform has returned (or was never
/// called).
typedef struct airloc_web_request airloc_web_request;

/// How a request ended.
typedef enum {
    AIRLOC_WEB_ANSWERED = 0,  ///< an HTTP answer, any status
    AIRLOC_WEB_TIMED_OUT,     ///< no complete answer within the timeout
    AIRLOC_WEB_CANCELLED,     ///< airloc_web_request_cancel was called
    AIRLOC_WEB_REFUSED,       ///< nothing accepted the connection
    AIRLOC_WEB_UNKNOWN_HOST,  ///< the name does not resolve
    AIRLOC_WEB_TLS,           ///< TLS handshake or certificate check failed
    AIRLOC_WEB_LOST,          ///< the connection broke before a whole answer came
    AIRLOC_WEB_TOO_LARGE,     ///< the body passed the size limit
    AIRLOC_WEB_NO_LIBRARY,    ///< libcurl could not be loaded
    AIRLOC_WEB_FAILED,        ///< anything else; see reason
} airloc_web_outcome;

/// Loads libcurl if it is not yet: NULL on success, else why not (static text).
const char *airloc_web_load(void);

/// A GET of `url` with `user_agent` and `Accept: application/json`, ending within
/// `timeout_ms`, with a body of at most `max_body` bytes. NULL when out of memory.
airloc_web_request *airloc_web_request_new(const char *url, const char *user_agent, long timeout_ms,
                                           size_t max_body);

/// Adds a request header line ("Content-Type: application/json"), before perform. 0 on
/// success, -1 when out of memory.
int airloc_web_request_add_header(airloc_web_request *request, const char *line);

/// Makes it a POST of `length` bytes of `body` (copied), before perform.
int airloc_web_request_set_body(airloc_web_request *request, const void *body, size_t length);

/// The answer's Retry-After header as sent ("120", or an HTTP date), "" when absent.
const char *airloc_web_request_retry_after(const airloc_web_request *request);

/// Performs the request; blocks until it ends.
void airloc_web_request_perform(airloc_web_request *request);

/// Ends a request in flight (it returns AIRLOC_WEB_CANCELLED) or one not yet performed.
void airloc_web_request_cancel(airloc_web_request *request);

airloc_web_outcome airloc_web_request_outcome(const airloc_web_request *request);
/// The HTTP status; 0 when there was no answer.
long airloc_web_request_status(const airloc_web_request *request);
/// The body received (valid until free).
const unsigned char *airloc_web_request_body(const airloc_web_request *request, size_t *length);
/// libcurl's explanation of a failure, "" when there is none.
const char *airloc_web_request_reason(const airloc_web_request *request);

void airloc_web_request_free(airloc_web_request *request);

#endif
