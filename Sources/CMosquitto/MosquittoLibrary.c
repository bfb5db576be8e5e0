// libmosquitto through dlopen (see include/MosquittoLibrary.h). Every function airloc
// uses is looked up once, typed from mosquitto.h's own declaration, so a mismatch is a
// compile error rather than a wrong call.

#include "MosquittoLibrary.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#define MOSQUITTO_FUNCTIONS(X)                                                                        \
    X(lib_init) X(new) X(destroy) X(user_data_set) X(int_option) X(max_inflight_messages_set)         \
    X(reconnect_delay_set) X(threaded_set) X(username_pw_set) X(tls_set) X(will_set)                   \
    X(log_callback_set) X(connect_callback_set) X(disconnect_callback_set) X(publish_callback_set)     \
    X(message_callback_set) X(connect) X(reconnect) X(disconnect) X(loop) X(publish) X(subscribe)      \
    X(strerror) X(connack_string)

static struct {
#define FIELD(name) __typeof__(mosquitto_##name) *name;
    MOSQUITTO_FUNCTIONS(FIELD)
#undef FIELD
} api;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static const char *load_error = "libmosquitto was not loaded";
static char load_error_text[512];

static void load(void) {
    void *library = dlopen("libmosquitto.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(load_error_text, sizeof load_error_text, "libmosquitto is not installed (%s)", dlerror());
        load_error = load_error_text;
        return;
    }
#define BIND(name)                                                                                  \
    if ((*(void **)&api.name = dlsym(library, "mosquitto_" #name)) == NULL) {                        \
        snprintf(load_error_text, sizeof load_error_text, "libmosquitto lacks mosquitto_%s (too old?)", \
                 #name);                                                                            \
        load_error = load_error_text;                                                               \
        return;                                                                                     \
    }
    MOSQUITTO_FUNCTIONS(BIND)
#undef BIND
    load_error = NULL;
}

const char *airloc_mosquitto_load(void) {
    pthread_once(&load_once, load);
    return load_error;
}

int airloc_mosquitto_lib_init(void) { return api.lib_init(); }
struct mosquitto *airloc_mosquitto_new(const char *id, bool clean_session, void *obj) {
    return api.new(id, clean_session, obj);
}
void airloc_mosquitto_destroy(struct mosquitto *mosq) { api.destroy(mosq); }
void airloc_mosquitto_user_data_set(struct mosquitto *mosq, void *obj) { api.user_data_set(mosq, obj); }
int airloc_mosquitto_int_option(struct mosquitto *mosq, enum mosq_opt_t option, int value) {
    return api.int_option(mosq, option, value);
}
int airloc_mosquitto_max_inflight_messages_set(struct mosquitto *mosq, unsigned int max_inflight_messages) {
    return api.max_inflight_messages_set(mosq, max_inflight_messages);
}
int airloc_mosquitto_reconnect_delay_set(struct mosquitto *mosq, unsigned int reconnect_delay,
                                         unsigned int reconnect_delay_max, bool reconnect_exponential_backoff) {
    return api.reconnect_delay_set(mosq, reconnect_delay, reconnect_delay_max, reconnect_exponential_backoff);
}
int airloc_mosquitto_threaded_set(struct mosquitto *mosq, bool threaded) { return api.threaded_set(mosq, threaded); }
int airloc_mosquitto_username_pw_set(struct mosquitto *mosq, const char *username, const char *password) {
    return api.username_pw_set(mosq, username, password);
}
int airloc_mosquitto_tls_set(struct mosquitto *mosq, const char *cafile, const char *capath, const char *certfile,
                             const char *keyfile, int (*pw_callback)(char *buf, int size, int rwflag, void *userdata)) {
    return api.tls_set(mosq, cafile, capath, certfile, keyfile, pw_callback);
}
int airloc_mosquitto_will_set(struct mosquitto *mosq, const char *topic, int payloadlen, const void *payload, int qos,
                              bool retain) {
    return api.will_set(mosq, topic, payloadlen, payload, qos, retain);
}
void airloc_mosquitto_log_callback_set(struct mosquitto *mosq,
                                       void (*on_log)(struct mosquitto *, void *, int, const char *)) {
    api.log_callback_set(mosq, on_log);
}
void airloc_mosquitto_connect_callback_set(struct mosquitto *mosq, void (*on_connect)(struct mosquitto *, void *, int)) {
    api.connect_callback_set(mosq, on_connect);
}
void airloc_mosquitto_disconnect_callback_set(struct mosquitto *mosq,
                                              void (*on_disconnect)(struct mosquitto *, void *, int)) {
    api.disconnect_callback_set(mosq, on_disconnect);
}
void airloc_mosquitto_publish_callback_set(struct mosquitto *mosq, void (*on_publish)(struct mosquitto *, void *, int)) {
    api.publish_callback_set(mosq, on_publish);
}
void airloc_mosquitto_message_callback_set(struct mosquitto *mosq,
                                           void (*on_message)(struct mosquitto *, void *,
                                                              const struct mosquitto_message *)) {
    api.message_callback_set(mosq, on_message);
}
int airloc_mosquitto_connect(struct mosquitto *mosq, const char *host, int port, int keepalive) {
    return api.connect(mosq, host, port, keepalive);
}
int airloc_mosquitto_reconnect(struct mosquitto *mosq) { return api.reconnect(mosq); }
int airloc_mosquitto_disconnect(struct mosquitto *mosq) { return api.disconnect(mosq); }
int airloc_mosquitto_loop(struct mosquitto *mosq, int timeout, int max_packets) {
    return api.loop(mosq, timeout, max_packets);
}
int airloc_mosquitto_publish(struct mosquitto *mosq, int *mid, const char *topic, int payloadlen, const void *payload,
                             int qos, bool retain) {
    return api.publish(mosq, mid, topic, payloadlen, payload, qos, retain);
}
int airloc_mosquitto_subscribe(struct mosquitto *mosq, int *mid, const char *sub, int qos) {
    return api.subscribe(mosq, mid, sub, qos);
}
const char *airloc_mosquitto_strerror(int mosq_errno) { return api.strerror(mosq_errno); }
const char *airloc_mosquitto_connack_string(int connack_code) { return api.connack_string(connack_code); }
