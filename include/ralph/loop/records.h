#pragma once

// The loop's records and the store's rows, converted in one place each way: the journal writes
// them, resume reads them back.

#include "ralph/core/redactor.h"
#include "ralph/loop/outer_loop.h"
#include "ralph/store/session_store.h"
#include "ralph/verify/verdict.h"

#include <string>

namespace ralph::loop {

// Verdict `seq` (from 1) of attempt `iteration`, redacted.
store::VerdictRow verdict_row(const verify::Verdict& verdict, const std::string& session_id,
                              int iteration, int seq, const Redactor& redactor);
verify::Verdict verdict_from_row(const store::VerdictRow& row);

} // namespace ralph::loop
