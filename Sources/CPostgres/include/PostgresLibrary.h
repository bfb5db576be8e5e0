#ifndef AIRLOC_POSTGRES_LIBRARY_H
#define AIRLOC_POSTGRES_LIBRARY_H

/// libpq, opened with dlopen when `airloc collect` makes its first connection: no other
/// command uses PostgreSQL, and linked, libpq (with its Kerberos, LDAP and OpenSSL) would
/// be loaded by every start of every command.
///
/// airloc_pq_load returns NULL once the library is loaded, else why it is not (static
/// text). The handles are libpq's own PGconn and PGresult, kept opaque here so that
/// Swift needs no libpq header; each function is libpq's PQ function of the same name.
typedef struct airloc_pq_conn airloc_pq_conn;
typedef struct airloc_pq_result airloc_pq_result;

const char *airloc_pq_load(void);

/// PQconnectdbParams with expand_dbname: `conninfo` may be a connection string or a
/// postgresql:// URI; `password` (may be NULL) and `connect_timeout` (seconds) are added.
airloc_pq_conn *airloc_pq_connect(const char *conninfo, const char *password, int connect_timeout);
/// airloc_pq_connect to one of the connection string's hosts: `host`, `hostaddr` and
/// `port` (each may be NULL: the string's own) override its lists.
airloc_pq_conn *airloc_pq_connect_host(const char *conninfo, const char *password, int connect_timeout,
                                       const char *host, const char *hostaddr, const char *port);
/// The value `conninfo` gives `keyword` ("host", "hostaddr", "port": comma-separated lists
/// for several hosts), as PQconninfoParse reads it (a string or a URI); NULL when it gives
/// none. `*ok` is 0 when the string cannot be read. The caller frees the value (free).
char *airloc_pq_conninfo_value(const char *conninfo, const char *keyword, int *ok);
/// 1 when the connection is usable (CONNECTION_OK).
int airloc_pq_ok(const airloc_pq_conn *conn);
const char *airloc_pq_error_message(const airloc_pq_conn *conn);
void airloc_pq_finish(airloc_pq_conn *conn);
int airloc_pq_server_version(const airloc_pq_conn *conn);

/// PQexecParams with text parameters and text results.
airloc_pq_result *airloc_pq_exec(airloc_pq_conn *conn, const char *command, int count, const char *const *values);
/// 1 for PGRES_COMMAND_OK or PGRES_TUPLES_OK.
int airloc_pq_result_ok(const airloc_pq_result *result);
const char *airloc_pq_result_error(const airloc_pq_result *result);
/// The five-character SQLSTATE of a failed command, or "" when there is none.
const char *airloc_pq_result_sqlstate(const airloc_pq_result *result);
int airloc_pq_rows(const airloc_pq_result *result);
int airloc_pq_columns(const airloc_pq_result *result);
/// NULL for an SQL NULL.
const char *airloc_pq_value(const airloc_pq_result *result, int row, int column);
void airloc_pq_clear(airloc_pq_result *result);

#endif
