// The one file that touches libcurl (see include/WebRequest.h for the contract).
//
// libcurl is opened with dlopen on the first request instead of being linked: linked,
// the dynamic loader maps and relocates it and its two dozen dependencies (OpenSSL,
// GnuTLS for LDAP, Kerberos, SSH, ...) at every start, about 11 ms of a 25 ms
// `airloc reverse` that never goes online (docs/performance.md).
//
// Each request runs in its own multi handle so that airloc_web_request_cancel can wake
// it at once (curl_multi_wakeup) instead of at libcurl's next progress tick.

#include "WebRequest.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

// Every function used, looked up once and typed from curl.h's own declaration (as in
// CMosquitto), so a mismatch is a compile error rather than a wrong call.
#define CURL_FUNCTIONS(X)                                                                          \
    X(global_init) X(easy_init) X(easy_setopt) X(easy_getinfo) X(easy_cleanup) X(easy_strerror)    \
    X(multi_init) X(multi_add_handle) X(multi_remove_handle) X(multi_perform) X(multi_poll)         \
    X(multi_wakeup) X(multi_info_read) X(multi_cleanup) X(slist_append) X(slist_free_all)

static struct {
#define FIELD(name) __typeof__(curl_##name) *name;
    CURL_FUNCTIONS(FIELD)
#undef FIELD
} api;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static const char *load_error = "libcurl was not loaded";
static char load_error_text[512];

static void load(void) {
    // Debian's libcurl4 (OpenSSL) also links GnuTLS, for LDAP and RTMP, which airloc
    // never uses (http and https only). GnuTLS initialises itself, p11-kit modules and
    // all, the moment it is loaded unless this is set: 0.9 MB of the logger's memory for
    // nothing. curl's GnuTLS build initialises GnuTLS explicitly, so it is safe there.
    // Not in a constructor: set before main, it hid the arguments from Swift's
    // CommandLine. Here other threads may read the environment; a process's first
    // setenv leaves the array they read in place, and airloc sets nothing else.
    setenv("GNUTLS_NO_IMPLICIT_INIT", "1", 0);
    // libcurl4 (OpenSSL) or libcurl3-gnutls: the same ABI; Debian ships both names.
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) library = dlopen("libcurl-gnutls.so.4", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(load_error_text, sizeof load_error_text, "libcurl is not installed (%s)", dlerror());
        load_error = load_error_text;
        return;
    }
#define BIND(name)                                                                                \
    if ((*(void **)&api.name = dlsym(library, "curl_" #name)) == NULL) {                           \
        snprintf(load_error_text, sizeof load_error_text, "libcurl lacks curl_%s (too old?)", #name); \
        load_error = load_error_text;                                                             \
        return;                                                                                   \
    }
    CURL_FUNCTIONS(BIND)
#undef BIND
    // Once, before any handle exists: curl_global_init is not thread-safe.
    if (api.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        load_error = "libcurl failed to initialise";
        return;
    }
    load_error = NULL;
}

const char *airloc_web_load(void) {
    pthread_once(&load_once, load);
    return load_error;
}

struct airloc_web_request {
    CURL *easy;
    CURLM *multi;
    struct curl_slist *headers;
    atomic_int cancelled;
    size_t max_body;
    unsigned char *body;
    size_t length, capacity;
    int too_large;
    airloc_web_outcome outcome;
    long status;
    char retry_after[64];
    char reason[CURL_ERROR_SIZE];
};

// A response header line: only Retry-After is kept (a 429's or a 503's advice).
static size_t header(char *data, size_t size, size_t count, void *context) {
    airloc_web_request *request = context;
    size_t bytes = size * count;
    static const char name[] = "retry-after:";
    if (bytes > sizeof name - 1 && strncasecmp(data, name, sizeof name - 1) == 0) {
        size_t start = sizeof name - 1;
        while (start < bytes && (data[start] == ' ' || data[start] == '\t')) start++;
        size_t end = bytes;
        while (end > start && (data[end - 1] == '\r' || data[end - 1] == '\n' || data[end - 1] == ' ')) end--;
        size_t length = end - start < sizeof request->retry_after - 1 ? end - start : sizeof request->retry_after - 1;
        memcpy(request->retry_after, data + start, length);
        request->retry_after[length] = '\0';
    }
    return bytes;
}

static size_t receive(char *data, size_t size, size_t count, void *context) {
    airloc_web_request *request = context;
    size_t bytes = size * count;
    if (request->length + bytes > request->max_body) {
        request->too_large = 1;
        return 0;  // libcurl ends the transfer with CURLE_WRITE_ERROR
    }
    if (request->length + bytes > request->capacity) {
        size_t capacity = request->capacity ? request->capacity : 16384;
        while (capacity < request->length + bytes) capacity *= 2;
        if (capacity > request->max_body) capacity = request->max_body;
        unsigned char *grown = realloc(request->body, capacity);
        if (grown == NULL) return 0;
        request->body = grown;
        request->capacity = capacity;
    }
    memcpy(request->body + request->length, data, bytes);
    request->length += bytes;
    return bytes;
}

airloc_web_request *airloc_web_request_new(const char *url, const char *user_agent, long timeout_ms,
                                           size_t max_body) {
    airloc_web_request *request = calloc(1, sizeof *request);
    if (request == NULL) return NULL;
    request->max_body = max_body;
    atomic_init(&request->cancelled, 0);
    const char *missing = airloc_web_load();
    if (missing != NULL) {
        request->outcome = AIRLOC_WEB_NO_LIBRARY;
        snprintf(request->reason, sizeof request->reason, "%s", missing);
        return request;
    }
    request->easy = api.easy_init();
    request->multi = api.multi_init();
    request->headers = api.slist_append(NULL, "Accept: application/json");
    if (request->easy == NULL || request->multi == NULL || request->headers == NULL) {
        airloc_web_request_free(request);
        return NULL;
    }
    CURL *easy = request->easy;
    api.easy_setopt(easy, CURLOPT_URL, url);
    api.easy_setopt(easy, CURLOPT_USERAGENT, user_agent);
    api.easy_setopt(easy, CURLOPT_HTTPHEADER, request->headers);
    api.easy_setopt(easy, CURLOPT_TIMEOUT_MS, timeout_ms);
    api.easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);  // threads: no SIGALRM for DNS timeouts
    api.easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 1L);
    api.easy_setopt(easy, CURLOPT_MAXREDIRS, 5L);
    // Only the web: a redirect must not lead to file://, or any other of libcurl's schemes.
    // A libcurl without these options (before 7.85) would ignore the limit: refuse it.
    if (api.easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK ||
        api.easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https") != CURLE_OK) {
        request->outcome = AIRLOC_WEB_NO_LIBRARY;
        snprintf(request->reason, sizeof request->reason, "libcurl is older than 7.85, which airloc needs");
        api.easy_cleanup(request->easy);
        request->easy = NULL;
        return request;
    }
    api.easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");  // whatever this libcurl can decode
    api.easy_setopt(easy, CURLOPT_WRITEFUNCTION, receive);
    api.easy_setopt(easy, CURLOPT_WRITEDATA, request);
    api.easy_setopt(easy, CURLOPT_ERRORBUFFER, request->reason);
    api.easy_setopt(easy, CURLOPT_HEADERFUNCTION, header);
    api.easy_setopt(easy, CURLOPT_HEADERDATA, request);
    return request;
}

int airloc_web_request_add_header(airloc_web_request *request, const char *line) {
    if (request->easy == NULL) return 0;
    struct curl_slist *headers = api.slist_append(request->headers, line);
    if (headers == NULL) return -1;
    request->headers = headers;
    api.easy_setopt(request->easy, CURLOPT_HTTPHEADER, request->headers);
    return 0;
}

int airloc_web_request_set_body(airloc_web_request *request, const void *body, size_t length) {
    if (request->easy == NULL) return 0;
    api.easy_setopt(request->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)length);
    // Copied: the caller's buffer may go before the transfer ends. A POST from here on.
    return api.easy_setopt(request->easy, CURLOPT_COPYPOSTFIELDS, body) == CURLE_OK ? 0 : -1;
}

const char *airloc_web_request_retry_after(const airloc_web_request *request) { return request->retry_after; }

static airloc_web_outcome classify(airloc_web_request *request, CURLcode code) {
    switch (code) {
    case CURLE_OK: return AIRLOC_WEB_ANSWERED;
    case CURLE_OPERATION_TIMEDOUT: return AIRLOC_WEB_TIMED_OUT;
    case CURLE_COULDNT_CONNECT: {
        // Refused only when the peer said so; no route, no network and the like keep
        // libcurl's own words.
        long os_errno = 0;
        api.easy_getinfo(request->easy, CURLINFO_OS_ERRNO, &os_errno);
        return os_errno == ECONNREFUSED ? AIRLOC_WEB_REFUSED : AIRLOC_WEB_FAILED;
    }
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY: return AIRLOC_WEB_UNKNOWN_HOST;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR: return AIRLOC_WEB_TLS;
    case CURLE_WRITE_ERROR: return request->too_large ? AIRLOC_WEB_TOO_LARGE : AIRLOC_WEB_FAILED;
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM: return AIRLOC_WEB_LOST;
    default: return AIRLOC_WEB_FAILED;
    }
}

void airloc_web_request_perform(airloc_web_request *request) {
    if (request->easy == NULL) return;  // no library: the outcome is already set
    if (atomic_load(&request->cancelled)) {
        request->outcome = AIRLOC_WEB_CANCELLED;
        return;
    }
    if (api.multi_add_handle(request->multi, request->easy) != CURLM_OK) {
        request->outcome = AIRLOC_WEB_FAILED;
        snprintf(request->reason, sizeof request->reason, "libcurl refused the request");
        return;
    }
    int running = 1;
    CURLcode result = CURLE_OK;
    int cancelled = 0;
    for (;;) {
        if (atomic_load(&request->cancelled)) {
            cancelled = 1;
            break;
        }
        if (api.multi_perform(request->multi, &running) != CURLM_OK) {
            result = CURLE_FAILED_INIT;
            break;
        }
        int queued = 0;
        CURLMsg *message = api.multi_info_read(request->multi, &queued);
        if (message != NULL && message->msg == CURLMSG_DONE) {
            result = message->data.result;
            break;
        }
        if (!running) {  // ended without saying how: never seen, but never wait on it
            result = CURLE_GOT_NOTHING;
            break;
        }
        // libcurl's own timers (CURLOPT_TIMEOUT_MS) bound the wait; a cancel wakes it.
        api.multi_poll(request->multi, NULL, 0, 1000, NULL);
    }
    api.easy_getinfo(request->easy, CURLINFO_RESPONSE_CODE, &request->status);
    api.multi_remove_handle(request->multi, request->easy);
    if (cancelled) {
        request->outcome = AIRLOC_WEB_CANCELLED;
    } else {
        request->outcome = classify(request, result);
        if (request->outcome != AIRLOC_WEB_ANSWERED) {
            request->status = 0;
            if (request->reason[0] == '\0') {
                snprintf(request->reason, sizeof request->reason, "%s", api.easy_strerror(result));
            }
        }
    }
}

void airloc_web_request_cancel(airloc_web_request *request) {
    atomic_store(&request->cancelled, 1);
    if (request->multi != NULL) api.multi_wakeup(request->multi);
}

airloc_web_outcome airloc_web_request_outcome(const airloc_web_request *request) { return request->outcome; }

long airloc_web_request_status(const airloc_web_request *request) { return request->status; }

const unsigned char *airloc_web_request_body(const airloc_web_request *request, size_t *length) {
    *length = request->length;
    return request->body;
}

const char *airloc_web_request_reason(const airloc_web_request *request) { return request->reason; }

void airloc_web_request_free(airloc_web_request *request) {
    if (request == NULL) return;
    if (request->multi != NULL) api.multi_cleanup(request->multi);
    if (request->easy != NULL) api.easy_cleanup(request->easy);
    if (request->headers != NULL) api.slist_free_all(request->headers);
    free(request->body);
    free(request);
}
