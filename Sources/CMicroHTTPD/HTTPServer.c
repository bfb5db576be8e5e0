// libmicrohttpd is opened with dlopen by the first server instead of being linked: only
// `airloc serve` needs it, and no other command should fail to start (or pay for loading
// it) where it is missing. Only the functions below are used; the types and constants
// come from its header (0.9.75, Debian bookworm's libmicrohttpd-dev).
//
// What libmicrohttpd does not enforce by itself is done here: a request head must arrive
// within its own deadline however slowly its bytes trickle in (the library's timeout only
// counts silence), so a reaper thread shuts the socket of a connection whose head is late.
// The library refuses connections beyond its limits at accept: all of them, and those of
// one client address (MHD_OPTION_PER_IP_CONNECTION_LIMIT), so that one client's slow or
// idle sockets cannot hold every slot.

#include "HTTPServer.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

static struct {
    struct MHD_Daemon *(*start_daemon)(unsigned int, uint16_t, MHD_AcceptPolicyCallback, void *,
                                       MHD_AccessHandlerCallback, void *, ...);
    void (*stop_daemon)(struct MHD_Daemon *);
    const union MHD_DaemonInfo *(*get_daemon_info)(struct MHD_Daemon *, enum MHD_DaemonInfoType, ...);
    const union MHD_ConnectionInfo *(*get_connection_info)(struct MHD_Connection *, enum MHD_ConnectionInfoType,
                                                           ...);
    enum MHD_Result (*set_connection_option)(struct MHD_Connection *, enum MHD_CONNECTION_OPTION, ...);
    int (*get_connection_values)(struct MHD_Connection *, enum MHD_ValueKind, MHD_KeyValueIterator, void *);
    const char *(*lookup_connection_value)(struct MHD_Connection *, enum MHD_ValueKind, const char *);
    struct MHD_Response *(*create_response_from_buffer)(size_t, void *, enum MHD_ResponseMemoryMode);
    struct MHD_Response *(*create_response_from_callback)(uint64_t, size_t, MHD_ContentReaderCallback, void *,
                                                          MHD_ContentReaderFreeCallback);
    enum MHD_Result (*add_response_header)(struct MHD_Response *, const char *, const char *);
    enum MHD_Result (*queue_response)(struct MHD_Connection *, unsigned int, struct MHD_Response *);
    void (*destroy_response)(struct MHD_Response *);
} api;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[512];

static void load(void) {
    void *library = dlopen("libmicrohttpd.so.12", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(load_error, sizeof load_error,
                 "airloc serve needs libmicrohttpd (Debian: apt install libmicrohttpd12): %s", dlerror());
        return;
    }
#define BIND(field, symbol)                                                                              \
    if ((*(void **)&api.field = dlsym(library, symbol)) == NULL) {                                       \
        snprintf(load_error, sizeof load_error, "libmicrohttpd lacks %s (0.9.75 or newer)", symbol);    \
        return;                                                                                          \
    }
    BIND(start_daemon, "MHD_start_daemon")
    BIND(stop_daemon, "MHD_stop_daemon")
    BIND(get_daemon_info, "MHD_get_daemon_info")
    BIND(get_connection_info, "MHD_get_connection_info")
    BIND(set_connection_option, "MHD_set_connection_option")
    BIND(get_connection_values, "MHD_get_connection_values")
    BIND(lookup_connection_value, "MHD_lookup_connection_value")
    BIND(create_response_from_buffer, "MHD_create_response_from_buffer")
    BIND(create_response_from_callback, "MHD_create_response_from_callback")
    BIND(add_response_header, "MHD_add_response_header")
    BIND(queue_response, "MHD_queue_response")
    BIND(destroy_response, "MHD_destroy_response")
#undef BIND
}

/// A connection whose request head is still arriving, for the reaper.
typedef struct pending {
    int fd;
    struct timespec deadline;
    int waiting; // 1 while a head is expected
    struct pending *next, *previous;
} pending;

typedef struct {
    struct MHD_Daemon *daemon;
    airloc_http_handler handler;
    airloc_http_stream_read read;
    airloc_http_stream_release release;
    void *context;
    /// Seconds a request head may take (the reaper's deadline).
    unsigned int head_timeout;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    pending *connections;
    int stopping;
    pthread_t reaper;
    // What the reaper sleeps until: a deadline (timed = 1) or a signal (timed = 0).
    int reaper_timed;
    struct timespec reaper_until;
} server;

typedef struct {
    server *owner;
    void *stream;
} stream_context;

static struct timespec deadline_after(unsigned int seconds) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    now.tv_sec += seconds;
    return now;
}

static int passed(struct timespec deadline, struct timespec now) {
    return now.tv_sec > deadline.tv_sec || (now.tv_sec == deadline.tv_sec && now.tv_nsec >= deadline.tv_nsec);
}

// Sleeps until the earliest deadline of a head still arriving (or until told of a new
// connection), then shuts the sockets whose heads are late: libmicrohttpd's thread for
// that connection sees the socket end and closes it.
static void *reap(void *argument) {
    server *s = argument;
    pthread_mutex_lock(&s->lock);
    while (!s->stopping) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        struct timespec earliest = {0, 0};
        int any = 0;
        for (pending *p = s->connections; p != NULL; p = p->next) {
            if (!p->waiting) continue;
            if (passed(p->deadline, now)) {
                shutdown(p->fd, SHUT_RDWR);
                p->waiting = 0;
            } else if (!any || !passed(earliest, p->deadline)) {
                earliest = p->deadline;
                any = 1;
            }
        }
        s->reaper_timed = any;
        s->reaper_until = earliest;
        if (any) {
            pthread_cond_timedwait(&s->changed, &s->lock, &earliest);
        } else {
            pthread_cond_wait(&s->changed, &s->lock);
        }
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

// Wakes the reaper for a new deadline only when it sleeps past it: a deadline is always
// now plus the timeout, so one already set ends first, and waking the reaper (to walk every
// connection) at each request of a kept-alive connection cost more than the request did.
static void wake_reaper_for(server *s, struct timespec deadline) {
    if (!s->reaper_timed || passed(deadline, s->reaper_until)) pthread_cond_signal(&s->changed);
}

static void notify_connection(void *cls, struct MHD_Connection *connection, void **socket_context,
                              enum MHD_ConnectionNotificationCode code) {
    server *s = cls;
    pthread_mutex_lock(&s->lock);
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        pending *p = calloc(1, sizeof *p);
        const union MHD_ConnectionInfo *info = api.get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
        if (p != NULL && info != NULL) {
            p->fd = info->connect_fd;
            p->deadline = deadline_after(s->head_timeout);
            p->waiting = 1;
            p->next = s->connections;
            if (s->connections != NULL) s->connections->previous = p;
            s->connections = p;
            *socket_context = p;
            wake_reaper_for(s, p->deadline);
        } else {
            free(p);
        }
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED && *socket_context != NULL) {
        // Before libmicrohttpd closes the descriptor: the reaper can never shut a reused one.
        pending *p = *socket_context;
        if (p->previous != NULL) p->previous->next = p->next; else s->connections = p->next;
        if (p->next != NULL) p->next->previous = p->previous;
        free(p);
        *socket_context = NULL;
    }
    pthread_mutex_unlock(&s->lock);
}

// A request answered: on a kept-alive connection the next head has the timeout again.
static void request_completed(void *cls, struct MHD_Connection *connection, void **request_context,
                              enum MHD_RequestTerminationCode code) {
    (void)request_context;
    (void)code;
    server *s = cls;
    const union MHD_ConnectionInfo *info = api.get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    pthread_mutex_lock(&s->lock);
    if (info != NULL && info->socket_context != NULL) {
        pending *p = info->socket_context;
        p->deadline = deadline_after(s->head_timeout);
        p->waiting = 1;
        wake_reaper_for(s, p->deadline);
    }
    pthread_mutex_unlock(&s->lock);
}

static enum MHD_Result count_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
    (void)kind;
    *(size_t *)cls += strlen(key) + (value != NULL ? strlen(value) : 0) + 4;
    return MHD_YES;
}

static ssize_t read_stream(void *cls, uint64_t position, char *buffer, size_t capacity) {
    (void)position;
    stream_context *c = cls;
    long count = c->owner->read(c->stream, buffer, capacity);
    return count < 0 ? MHD_CONTENT_READER_END_OF_STREAM : (ssize_t)count;
}

static void release_stream(void *cls) {
    stream_context *c = cls;
    c->owner->release(c->stream);
    free(c);
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                              const char *version, const char *upload_data, size_t *upload_data_size,
                              void **request_context) {
    (void)upload_data;
    (void)upload_data_size;
    (void)request_context;
    server *s = cls;
    const union MHD_ConnectionInfo *info = api.get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    pthread_mutex_lock(&s->lock);
    if (info != NULL && info->socket_context != NULL) ((pending *)info->socket_context)->waiting = 0;
    pthread_mutex_unlock(&s->lock);

    size_t head = strlen(method) + strlen(url) + strlen(version) + 4;
    api.get_connection_values(connection, MHD_HEADER_KIND, count_header, &head);
    // `url` is the path alone: the query string's arguments count too (decoded, about as
    // long as sent), so a head cannot pass its limit by putting its bytes there.
    api.get_connection_values(connection, MHD_GET_ARGUMENT_KIND, count_header, &head);
    airloc_http_reply reply = {500, NULL, NULL, NULL, 0, NULL, 0};
    s->handler(s->context, connection, method, url, head, &reply);

    struct MHD_Response *response;
    if (reply.stream != NULL) {
        stream_context *c = malloc(sizeof *c);
        response = c == NULL ? NULL
                             : api.create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, read_stream, c,
                                                                 release_stream);
        if (response == NULL) {
            free(c);
            s->release(reply.stream);
        } else {
            c->owner = s;
            c->stream = reply.stream;
            if (reply.stream_timeout > 0)
                api.set_connection_option(connection, MHD_CONNECTION_OPTION_TIMEOUT, reply.stream_timeout);
        }
    } else {
        // The body is malloc'd for this reply alone: the library takes it and frees it, so
        // a large page is never copied once more.
        if (reply.body != NULL) {
            response = api.create_response_from_buffer(reply.body_length, reply.body, MHD_RESPMEM_MUST_FREE);
            if (response != NULL) reply.body = NULL;
        } else {
            response = api.create_response_from_buffer(0, "", MHD_RESPMEM_PERSISTENT);
        }
    }
    enum MHD_Result result = MHD_NO;
    if (response != NULL) {
        if (reply.content_type != NULL) api.add_response_header(response, "Content-Type", reply.content_type);
        for (char *line = reply.headers; line != NULL && *line != '\0';) {
            char *end = strchr(line, '\n');
            if (end != NULL) *end = '\0';
            char *colon = strchr(line, ':');
            if (colon != NULL) {
                *colon = '\0';
                char *value = colon + 1;
                while (*value == ' ') value++;
                api.add_response_header(response, line, value);
            }
            line = end != NULL ? end + 1 : NULL;
        }
        result = api.queue_response(connection, (unsigned int)reply.status, response);
        api.destroy_response(response);
    }
    free(reply.body);
    free(reply.content_type);
    free(reply.headers);
    return result;
}

void *airloc_http_start(const char *address, int port, airloc_http_limits limits, airloc_http_handler handler,
                        airloc_http_stream_read read, airloc_http_stream_release release, void *context,
                        int *bound_port, char *error, size_t error_size) {
    pthread_once(&load_once, load);
    if (load_error[0] != '\0') {
        snprintf(error, error_size, "%s", load_error);
        return NULL;
    }
    struct sockaddr_storage socket_address;
    memset(&socket_address, 0, sizeof socket_address);
    unsigned int flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD;
    struct sockaddr_in *v4 = (struct sockaddr_in *)&socket_address;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&socket_address;
    if (inet_pton(AF_INET, address, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)port);
    } else if (inet_pton(AF_INET6, address, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)port);
        flags |= MHD_USE_IPv6;
    } else {
        snprintf(error, error_size, "'%s' is not an IP address", address);
        return NULL;
    }
    server *s = calloc(1, sizeof *s);
    if (s == NULL) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    s->handler = handler;
    s->read = read;
    s->release = release;
    s->context = context;
    s->head_timeout = limits.head_timeout;
    pthread_mutex_init(&s->lock, NULL);
    pthread_condattr_t attributes;
    pthread_condattr_init(&attributes);
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
    pthread_cond_init(&s->changed, &attributes);
    pthread_condattr_destroy(&attributes);
    if (pthread_create(&s->reaper, NULL, reap, s) != 0) {
        snprintf(error, error_size, "cannot start a thread");
        free(s);
        return NULL;
    }
    errno = 0;
    s->daemon = api.start_daemon(
        flags, (uint16_t)port, NULL, NULL, answer, s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&socket_address,
        MHD_OPTION_CONNECTION_LIMIT, limits.connections, MHD_OPTION_PER_IP_CONNECTION_LIMIT, limits.per_client,
        MHD_OPTION_CONNECTION_TIMEOUT, limits.timeout,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, limits.memory, MHD_OPTION_THREAD_STACK_SIZE, (size_t)(512 * 1024),
        MHD_OPTION_NOTIFY_CONNECTION, notify_connection, s, MHD_OPTION_NOTIFY_COMPLETED, request_completed, s,
        MHD_OPTION_END);
    if (s->daemon == NULL) {
        int cause = errno;
        snprintf(error, error_size, "cannot listen on %s port %d: %s", address, port,
                 cause != 0 ? strerror(cause) : "refused by libmicrohttpd");
        pthread_mutex_lock(&s->lock);
        s->stopping = 1;
        pthread_cond_signal(&s->changed);
        pthread_mutex_unlock(&s->lock);
        pthread_join(s->reaper, NULL);
        free(s);
        return NULL;
    }
    const union MHD_DaemonInfo *info = api.get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
    if (bound_port != NULL) *bound_port = info != NULL ? (int)info->port : port;
    return s;
}

void airloc_http_stop(void *opaque) {
    server *s = opaque;
    api.stop_daemon(s->daemon);
    pthread_mutex_lock(&s->lock);
    s->stopping = 1;
    pthread_cond_signal(&s->changed);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->reaper, NULL);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->changed);
    free(s);
}

const char *airloc_http_header(void *connection, const char *name) {
    return api.lookup_connection_value(connection, MHD_HEADER_KIND, name);
}

const char *airloc_http_argument(void *connection, const char *name) {
    return api.lookup_connection_value(connection, MHD_GET_ARGUMENT_KIND, name);
}

void airloc_http_client(void *connection, char *buffer, size_t size) {
    if (size == 0) return;
    buffer[0] = '\0';
    const union MHD_ConnectionInfo *info = api.get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL) return;
    const struct sockaddr *address = info->client_addr;
    if (address->sa_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)address)->sin_addr, buffer, (socklen_t)size);
    } else if (address->sa_family == AF_INET6) {
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)address)->sin6_addr, buffer, (socklen_t)size);
    }
}
