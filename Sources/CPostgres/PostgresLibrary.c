// libpq through dlopen (see include/PostgresLibrary.h). Every function airloc uses is
// looked up once, typed from its declaration (LibpqDeclarations.h, which `make lint`
// checks against libpq-fe.h), so a mismatch is a compile error rather than a wrong call.

#include "PostgresLibrary.h"
#include "LibpqDeclarations.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PQ_FUNCTIONS(X)                                                                              \
    X(connectdbParams) X(exec) X(status) X(errorMessage) X(finish) X(serverVersion) X(execParams)            \
    X(resultStatus) X(resultErrorMessage) X(resultErrorField) X(ntuples) X(nfields) X(getvalue)       \
    X(getisnull) X(clear) X(setNoticeProcessor) X(conninfoParse) X(conninfoFree) X(freemem)

static struct {
#define FIELD(name) __typeof__(PQ##name) *name;
    PQ_FUNCTIONS(FIELD)
#undef FIELD
} api;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static const char *load_error = "libpq was not loaded";
static char load_error_text[512];

static void load(void) {
    void *library = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(load_error_text, sizeof load_error_text, "libpq is not installed (%s)", dlerror());
        load_error = load_error_text;
        return;
    }
#define BIND(name)                                                                                   \
    if ((*(void **)&api.name = dlsym(library, "PQ" #name)) == NULL) {                                \
        snprintf(load_error_text, sizeof load_error_text, "libpq lacks PQ%s (too old?)", #name);     \
        load_error = load_error_text;                                                                \
        return;                                                                                      \
    }
    PQ_FUNCTIONS(BIND)
#undef BIND
    load_error = NULL;
}

const char *airloc_pq_load(void) {
    pthread_once(&load_once, load);
    return load_error;
}

// A server's NOTICE ("relation already exists, skipping") is not for the user's stderr.
static void quiet(void *arg, const char *message) {
    (void)arg;
    (void)message;
}

airloc_pq_conn *airloc_pq_connect(const char *conninfo, const char *password, int connect_timeout) {
    return airloc_pq_connect_host(conninfo, password, connect_timeout, NULL, NULL, NULL);
}

airloc_pq_conn *airloc_pq_connect_host(const char *conninfo, const char *password, int connect_timeout,
                                       const char *host, const char *hostaddr, const char *port) {
    char timeout[16];
    snprintf(timeout, sizeof timeout, "%d", connect_timeout);
    // Later keywords override earlier ones: the timeout first, so a connection string
    // that sets its own wins; then the one host picked from its list; the password file's
    // password last.
    const char *keywords[8] = {"connect_timeout", "application_name", "dbname"};
    const char *values[8] = {timeout, "airloc-collect", conninfo};
    int n = 3;
    if (host != NULL) keywords[n] = "host", values[n++] = host;
    if (hostaddr != NULL) keywords[n] = "hostaddr", values[n++] = hostaddr;
    if (port != NULL) keywords[n] = "port", values[n++] = port;
    if (password != NULL) keywords[n] = "password", values[n++] = password;
    keywords[n] = NULL, values[n] = NULL;
    PGconn *conn = api.connectdbParams(keywords, values, 1);
    if (conn != NULL) api.setNoticeProcessor(conn, quiet, NULL);
    return (airloc_pq_conn *)conn;
}

char *airloc_pq_conninfo_value(const char *conninfo, const char *keyword, int *ok) {
    char *error = NULL;
    PQconninfoOption *options = api.conninfoParse(conninfo, &error);
    *ok = options != NULL;
    if (options == NULL) {
        if (error != NULL) api.freemem(error);
        return NULL;
    }
    char *found = NULL;
    for (PQconninfoOption *option = options; option->keyword != NULL; option++) {
        if (strcmp(option->keyword, keyword) == 0 && option->val != NULL && option->val[0] != 0) {
            found = strdup(option->val);
        }
    }
    api.conninfoFree(options);
    return found;
}

int airloc_pq_ok(const airloc_pq_conn *conn) {
    return conn != NULL && api.status((const PGconn *)conn) == CONNECTION_OK;
}
const char *airloc_pq_error_message(const airloc_pq_conn *conn) {
    return conn == NULL ? "out of memory" : api.errorMessage((const PGconn *)conn);
}
void airloc_pq_finish(airloc_pq_conn *conn) { api.finish((PGconn *)conn); }
int airloc_pq_server_version(const airloc_pq_conn *conn) { return api.serverVersion((const PGconn *)conn); }

airloc_pq_result *airloc_pq_exec(airloc_pq_conn *conn, const char *command, int count, const char *const *values) {
    // Without parameters, PQexec: it takes several commands at once (a migration).
    if (count == 0) return (airloc_pq_result *)api.exec((PGconn *)conn, command);
    return (airloc_pq_result *)api.execParams((PGconn *)conn, command, count, NULL, values, NULL, NULL, 0);
}
int airloc_pq_result_ok(const airloc_pq_result *result) {
    if (result == NULL) return 0;
    ExecStatusType status = api.resultStatus((const PGresult *)result);
    return status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
}
const char *airloc_pq_result_error(const airloc_pq_result *result) {
    return result == NULL ? "no answer from the server" : api.resultErrorMessage((const PGresult *)result);
}
const char *airloc_pq_result_sqlstate(const airloc_pq_result *result) {
    if (result == NULL) return "";
    const char *state = api.resultErrorField((const PGresult *)result, PG_DIAG_SQLSTATE);
    return state == NULL ? "" : state;
}
int airloc_pq_rows(const airloc_pq_result *result) { return api.ntuples((const PGresult *)result); }
int airloc_pq_columns(const airloc_pq_result *result) { return api.nfields((const PGresult *)result); }
const char *airloc_pq_value(const airloc_pq_result *result, int row, int column) {
    if (api.getisnull((const PGresult *)result, row, column)) return NULL;
    return api.getvalue((const PGresult *)result, row, column);
}
void airloc_pq_clear(airloc_pq_result *result) {
    if (result != NULL) api.clear((PGresult *)result);
}
