/*
 * vbw_template.hpp - what the SDK's C++ vbxware routines include for their templates: only
 * Vector.hpp (here a placeholder that provides vbx.h, hence vbxx, and type_manipulation.hpp).
 * A routine's own copy of this file, next to its source, takes precedence and works the same.
 */
#ifndef VBW_TEMPLATE_HPP
#define VBW_TEMPLATE_HPP

#include "Vector.hpp"

#endif
