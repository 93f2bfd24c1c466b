#pragma once

#include <string_view>

namespace ralph::verify {

// The address of JSON Schema draft 7's meta-schema, without its empty fragment.
inline constexpr std::string_view k_draft7_metaschema_uri =
    "http://json-schema.org/draft-07/schema";

// Draft 7's meta-schema as published at that address, so a $ref to it (a check that an answer is
// itself a schema) works without fetching anything.
std::string_view draft7_metaschema();

} // namespace ralph::verify
