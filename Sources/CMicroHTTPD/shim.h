#ifndef CARDINAL_CMICROHTTPD_SHIM_H
#define CARDINAL_CMICROHTTPD_SHIM_H
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <stdint.h>
#include <stdarg.h>
#include <microhttpd.h>

/* Swift cannot call the variadic MHD_set_connection_option; this passes the one argument that
   MHD_CONNECTION_OPTION_TIMEOUT reads (an unsigned int of seconds, 0 for none). */
static inline enum MHD_Result cardinal_set_connection_timeout(struct MHD_Connection *connection,
                                                             unsigned int seconds) {
    return MHD_set_connection_option(connection, MHD_CONNECTION_OPTION_TIMEOUT, seconds);
}
#endif
