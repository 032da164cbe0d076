/*
 * vbw_exit_codes.h - return codes of the vbxware library functions.
 */
#ifndef VBW_EXIT_CODES_H
#define VBW_EXIT_CODES_H

#define VBW_SUCCESS 0
#define VBW_ERROR_SP_ALLOC_FAILED (-1)

#endif
