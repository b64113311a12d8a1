#ifndef CARDINAL_CMALLOC_SHIM_H
#define CARDINAL_CMALLOC_SHIM_H
/* glibc's malloc tuning (mallopt), which Swift's Glibc module does not export. */
#include <malloc.h>
#endif
