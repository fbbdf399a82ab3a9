// The portable signature (runtime/appfmt) of a datatype: its basic elements
// in order, as fixed-size scalars. Every predefined MPI type maps to one
// scalar (or two for the MINLOC/MAXLOC pair types); derived types map to
// the runs of the types they were built from.
#pragma once

#include "lazarus/appfmt/variable.h"
#include "lazarus/datatype/datatype.h"
#include "lazarus/status.h"

namespace lz::cr::app {

// Errors: kInvalidArgument naming the variable when a basic type has no
// portable form (MPI_PACKED is stored as bytes) or the sizes disagree.
StatusOr<appfmt::Signature> signature_of(const lz_datatype_s& type, const std::string& variable);

}  // namespace lz::cr::app
