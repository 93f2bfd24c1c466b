#include "ralph/cli/app.h"

int main(int argc, char** argv) {
  return ralph::cli::run_cli(argc, argv);
}
