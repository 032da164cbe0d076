/*
 * Vector.hpp - placeholder for the SDK's C++ object API (VBX::Vector, expression templates,
 * Vector_mask, ...), which this work-alike does NOT provide (mxp-spec.md section 2.9.8).
 *
 * The file exists because vbw_template.hpp, which travels with the SDK's C++ vbxware
 * routines, includes it; those routines use only vbxx (from vbx.h) and the traits of
 * type_manipulation.hpp (section 2.9.1), which is what this header makes visible.
 */
#ifndef VBX_VECTOR_HPP
#define VBX_VECTOR_HPP

#include "vbx.h"
#include "type_manipulation.hpp"

#endif
