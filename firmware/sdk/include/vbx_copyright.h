/*
 * vbx_copyright.h - VBXCOPYRIGHT(name): a file-scope declaration of the string
 * <name>_copyright, used as `VBXCOPYRIGHT(my_test)` with no trailing semicolon. Names must
 * be unique per link, as in the SDK.
 */
#ifndef VBX_COPYRIGHT_H
#define VBX_COPYRIGHT_H

#define VBXCOPYRIGHT(name)                                                                  \
    const char name##_copyright[] __attribute__((used)) =                                   \
        "mxpsim vbx SDK work-alike (independent implementation of the VectorBlox MXP API)";

#endif
