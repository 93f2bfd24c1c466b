#pragma once

#include "ralph/engine/io.h"

#include <memory>

namespace ralph::engine {

class Scheduler;

// The Io a scheduler gives its tasks: a clock whose sleeps, a process runner whose waits for
// child output and transports whose requests park the calling fiber. Called from anywhere else
// (a thread a task started itself, say), each blocks its thread as BlockingIo does.
std::unique_ptr<Io> make_fiber_io(Scheduler& scheduler);

} // namespace ralph::engine
