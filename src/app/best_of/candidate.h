#pragma once

#include "app/best_of/attempts.h"
#include "app/best_of/candidate_ranking.h"

#include "ralph/app/best_of/best_of.h"
#include "ralph/app/best_of/best_of_report.h"
#include "ralph/core/cancel.h"
#include "ralph/engine/io.h"
#include "ralph/session/runtime.h"
#include "ralph/session/session.h"

namespace ralph::app {

// Runs one attempt on the engine thread of `io`: a whole session of `goal` in the candidate's
// workspace (its parent the best-of-N session, recorded in the source's store over a connection
// of its own, its events to `observer`), then measures what it changed (measure()). What went
// wrong is kept in the candidate, never thrown.
void run_candidate(engine::Io& io, session::Runtime& runtime, const session::SessionRequest& goal,
                   const Attempts& attempts, Candidate& candidate, BestOfObserver& observer,
                   const CancelToken& cancel);

// What the ranking weighs of an attempt that ended.
CandidateScore score_of(const Candidate& candidate);

// The attempt as the report shows it.
CandidateReport report_of(const Candidate& candidate);

} // namespace ralph::app
