#pragma once

#include "ralph/verify/attempt.h"

#include <string>

namespace ralph::verify {

// The attempt as one line of JSON (newline-terminated): what `--verify-exec PROG` reads on stdin.
// A stable contract; fields are only ever added. Text is UTF-8, invalid bytes from the model or
// tools replaced with U+FFFD.
//
//   {
//     "version": 1,
//     "iteration": 2,                  // 1-based
//     "max_iterations": 3,
//     "goal": "...",                   // the user's request as given
//     "answer": "...",                 // the final answer as the user sees it (marker removed)
//     "raw_answer": "...",             // the final answer exactly as the agent gave it
//     "workspace": "/abs/path",        // also the program's working directory
//     "heartbeat": false,              // a periodic check-in run
//     "metadata": {"stop_reason": "answered", "duration_ms": 1234, "steps": 4, "tool_calls": 3},
//     "tools": [                       // this attempt's tool calls, in call order
//       {"id": "call_1", "name": "shell", "arguments": {"command": "make"},  // parsed JSON when
//        "exit_code": 0,               // valid, else the raw string; exit_code null when the
//        "is_error": false,            // tool has none
//        "changed_workspace": true, "duration_ms": 812}
//     ],
//     "previous_feedback": ["..."],    // what earlier attempts were told, oldest first
//     "messages": [                    // this attempt's conversation, in order
//       {"role": "user", "content": "..."},
//       {"role": "assistant", "content": "...",
//        "tool_calls": [{"id": "call_1", "name": "shell", "arguments": {"command": "make"}}]},
//       {"role": "tool", "content": "...", "tool_call_id": "call_1", "tool_name": "shell",
//        "is_error": false}
//     ]
//   }
//
// `tool_calls` appears only on assistant messages that made calls; `tool_call_id`, `tool_name`
// and `is_error` only on tool messages. Roles: system, user, assistant, tool.
std::string attempt_to_json(const Attempt& attempt);

} // namespace ralph::verify
