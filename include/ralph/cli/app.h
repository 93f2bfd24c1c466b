#pragma once

namespace ralph::cli {

// The whole command-line program: parses arguments, runs the command, prints results and
// returns the process exit code documented in the README. Never throws.
int run_cli(int argc, char** argv);

} // namespace ralph::cli
