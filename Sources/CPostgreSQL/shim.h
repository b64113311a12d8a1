#ifndef CARDINAL_CPOSTGRESQL_SHIM_H
#define CARDINAL_CPOSTGRESQL_SHIM_H
#include <libpq-fe.h>
#endif
