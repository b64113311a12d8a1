#ifndef CARDINAL_CZLIB_SHIM_H
#define CARDINAL_CZLIB_SHIM_H
#include <zlib.h>
#endif
