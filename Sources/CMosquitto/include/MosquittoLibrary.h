#ifndef AIRLOC_MOSQUITTO_LIBRARY_H
#define AIRLOC_MOSQUITTO_LIBRARY_H

#include <mosquitto.h>
#include <stdbool.h>

/// libmosquitto, opened with dlopen when the first MQTT client is made: only `log run`
/// with a broker and `doctor` use it, and linked, it brought OpenSSL into every start.
///
/// airloc_mosquitto_load returns NULL once the library is loaded, else why it is not
/// (static text). Each airloc_mosquitto_X is libmosquitto's mosquitto_X; call them only
/// after a successful load.
const char *airloc_mosquitto_load(void);

int airloc_mosquitto_lib_init(void);
struct mosquitto *airloc_mosquitto_new(const char *id, bool clean_session, void *obj);
void airloc_mosquitto_destroy(struct mosquitto *mosq);
void airloc_mosquitto_user_data_set(struct mosquitto *mosq, void *obj);
int airloc_mosquitto_int_option(struct mosquitto *mosq, enum mosq_opt_t option, int value);
int airloc_mosquitto_max_inflight_messages_set(struct mosquitto *mosq, unsigned int max_inflight_messages);
int airloc_mosquitto_reconnect_delay_set(struct mosquitto *mosq, unsigned int reconnect_delay,
                                         unsigned int reconnect_delay_max, bool reconnect_exponential_backoff);
int airloc_mosquitto_threaded_set(struct mosquitto *mosq, bool threaded);
int airloc_mosquitto_username_pw_set(struct mosquitto *mosq, const char *username, const char *password);
int airloc_mosquitto_tls_set(struct mosquitto *mosq, const char *cafile, const char *capath, const char *certfile,
                             const char *keyfile, int (*pw_callback)(char *buf, int size, int rwflag, void *userdata));
int airloc_mosquitto_will_set(struct mosquitto *mosq, const char *topic, int payloadlen, const void *payload, int qos,
                              bool retain);
void airloc_mosquitto_log_callback_set(struct mosquitto *mosq,
                                       void (*on_log)(struct mosquitto *, void *, int, const char *));
void airloc_mosquitto_connect_callback_set(struct mosquitto *mosq, void (*on_connect)(struct mosquitto *, void *, int));
void airloc_mosquitto_disconnect_callback_set(struct mosquitto *mosq,
                                              void (*on_disconnect)(struct mosquitto *, void *, int));
void airloc_mosquitto_publish_callback_set(struct mosquitto *mosq, void (*on_publish)(struct mosquitto *, void *, int));
void airloc_mosquitto_message_callback_set(struct mosquitto *mosq,
                                           void (*on_message)(struct mosquitto *, void *,
                                                              const struct mosquitto_message *));
int airloc_mosquitto_connect(struct mosquitto *mosq, const char *host, int port, int keepalive);
int airloc_mosquitto_reconnect(struct mosquitto *mosq);
int airloc_mosquitto_disconnect(struct mosquitto *mosq);
int airloc_mosquitto_loop(struct mosquitto *mosq, int timeout, int max_packets);
int airloc_mosquitto_publish(struct mosquitto *mosq, int *mid, const char *topic, int payloadlen, const void *payload,
                             int qos, bool retain);
int airloc_mosquitto_subscribe(struct mosquitto *mosq, int *mid, const char *sub, int qos);
const char *airloc_mosquitto_strerror(int mosq_errno);
const char *airloc_mosquitto_connack_string(int connack_code);

#endif
