// The part of libpq's interface airloc uses, declared as libpq-fe.h (PostgreSQL 15)
// declares it: the functions are looked up with dlopen, so nothing here links libpq, and
// the target needs no header search path (an unsafe flag, which would keep any package
// from depending on airloc by version).
//
// `make lint` compiles PostgresLibrary.c with AIRLOC_CHECK_LIBPQ against the real
// libpq-fe.h as well: every function below is then declared twice, and a declaration
// that differs from libpq's is a compile error; the types and constants are checked by
// the static assertions there. libpq.so.5's interface has not changed in these since
// PostgreSQL 9.

#ifndef AIRLOC_LIBPQ_DECLARATIONS_H
#define AIRLOC_LIBPQ_DECLARATIONS_H

#ifdef AIRLOC_CHECK_LIBPQ
#include <libpq-fe.h>
#else
typedef unsigned int Oid;
typedef struct pg_conn PGconn;
typedef struct pg_result PGresult;
typedef enum { CONNECTION_OK, CONNECTION_BAD } ConnStatusType;
typedef enum { PGRES_EMPTY_QUERY = 0, PGRES_COMMAND_OK, PGRES_TUPLES_OK } ExecStatusType;
typedef void (*PQnoticeProcessor)(void *arg, const char *message);
typedef struct _PQconninfoOption {
    char *keyword;
    char *envvar;
    char *compiled;
    char *val;
    char *label;
    char *dispchar;
    int dispsize;
} PQconninfoOption;
#define PG_DIAG_SQLSTATE 'C'
#endif

extern PGconn *PQconnectdbParams(const char *const *keywords, const char *const *values, int expand_dbname);
extern void PQfinish(PGconn *conn);
extern PQconninfoOption *PQconninfoParse(const char *conninfo, char **errmsg);
extern void PQconninfoFree(PQconninfoOption *connOptions);
extern ConnStatusType PQstatus(const PGconn *conn);
extern int PQserverVersion(const PGconn *conn);
extern char *PQerrorMessage(const PGconn *conn);
extern PQnoticeProcessor PQsetNoticeProcessor(PGconn *conn, PQnoticeProcessor proc, void *arg);
extern PGresult *PQexec(PGconn *conn, const char *query);
extern PGresult *PQexecParams(PGconn *conn, const char *command, int nParams, const Oid *paramTypes,
                              const char *const *paramValues, const int *paramLengths, const int *paramFormats,
                              int resultFormat);
extern ExecStatusType PQresultStatus(const PGresult *res);
extern char *PQresultErrorMessage(const PGresult *res);
extern char *PQresultErrorField(const PGresult *res, int fieldcode);
extern int PQntuples(const PGresult *res);
extern int PQnfields(const PGresult *res);
extern char *PQgetvalue(const PGresult *res, int tup_num, int field_num);
extern int PQgetisnull(const PGresult *res, int tup_num, int field_num);
extern void PQclear(PGresult *res);
extern void PQfreemem(void *ptr);

#ifdef AIRLOC_CHECK_LIBPQ
#include <stddef.h>
// The values and the layout these declarations give, as libpq-fe.h has them.
_Static_assert(CONNECTION_OK == 0, "CONNECTION_OK");
_Static_assert(PGRES_EMPTY_QUERY == 0 && PGRES_COMMAND_OK == 1 && PGRES_TUPLES_OK == 2, "ExecStatusType");
_Static_assert(PG_DIAG_SQLSTATE == 'C', "PG_DIAG_SQLSTATE");
_Static_assert(sizeof(PQconninfoOption) == 6 * sizeof(char *) + sizeof(int) + (sizeof(char *) - sizeof(int)),
               "PQconninfoOption's size");
_Static_assert(offsetof(PQconninfoOption, val) == 3 * sizeof(char *), "PQconninfoOption's val");
_Static_assert(offsetof(PQconninfoOption, keyword) == 0, "PQconninfoOption's keyword");
#endif

#endif
