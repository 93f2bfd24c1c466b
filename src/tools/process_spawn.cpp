#include "process_spawn.h"

#include "ralph/core/try.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string>
#include <system_error>
#include <unistd.h>
#include <vector>

namespace ralph::tools {
namespace {

struct Pipe {
  UniqueFd read;
  UniqueFd write;
};

// O_CLOEXEC from the start: another thread may spawn at any moment, and a leaked write end
// would keep some unrelated child's pipe open.
Result<Pipe> make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    return fail(ErrorKind::subprocess,
                fmt::format("cannot create a pipe: {}", std::strerror(errno)));
  }
  return Pipe{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

void set_nonblocking(int fd) {
  const int flags = ::fcntl(fd, F_GETFL);
  ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

// RAII for the two posix_spawn attribute objects.
struct SpawnSetup {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  SpawnSetup() {
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
};

// The parent's environment with the spec's variables set or replaced, as "NAME=value" strings.
std::vector<std::string> build_environment(const ProcessSpec& spec) {
  std::vector<std::string> result;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const std::string_view name = text.substr(0, text.find('='));
    bool overridden = false;
    for (const auto& [key, value] : spec.env) {
      overridden = overridden || key == name;
    }
    if (!overridden) {
      result.emplace_back(text);
    }
  }
  for (const auto& [key, value] : spec.env) {
    result.push_back(key + "=" + value);
  }
  return result;
}

std::vector<char*> pointers_to(std::vector<std::string>& strings) {
  std::vector<char*> result;
  result.reserve(strings.size() + 1);
  for (auto& s : strings) {
    result.push_back(s.data());
  }
  result.push_back(nullptr);
  return result;
}

Error spawn_error(const ProcessSpec& spec, int error_number) {
  Error e;
  e.kind = ErrorKind::subprocess;
  std::error_code ec;
  if (!spec.cwd.empty() && !std::filesystem::is_directory(spec.cwd, ec)) {
    e.message = fmt::format("cannot start `{}`: working directory {} does not exist", spec.argv[0],
                            spec.cwd.string());
    return e;
  }
  e.message = fmt::format("cannot start `{}`: {}", spec.argv[0], std::strerror(error_number));
  return e;
}

} // namespace

Result<SpawnedProcess> spawn_process(const ProcessSpec& spec) {
  if (spec.argv.empty() || spec.argv[0].empty()) {
    return fail(ErrorKind::subprocess, "cannot start a process: the command is empty");
  }
  TRY_ASSIGN(Pipe out, make_pipe());
  Pipe err;
  if (!spec.merge_stderr) {
    TRY_ASSIGN(err, make_pipe());
  }
  Pipe in;
  if (!spec.stdin_data.empty()) {
    TRY_ASSIGN(in, make_pipe());
  }

  SpawnSetup setup;
  // dup2 clears O_CLOEXEC on the target, so only fds 0-2 reach the child.
  if (in.read.valid()) {
    posix_spawn_file_actions_adddup2(&setup.actions, in.read.get(), STDIN_FILENO);
  } else {
    posix_spawn_file_actions_addopen(&setup.actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  }
  posix_spawn_file_actions_adddup2(&setup.actions, out.write.get(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(
      &setup.actions, spec.merge_stderr ? out.write.get() : err.write.get(), STDERR_FILENO);
  if (!spec.cwd.empty()) {
    posix_spawn_file_actions_addchdir_np(&setup.actions, spec.cwd.c_str());
  }

  // A session of its own makes the child the leader of a new process group, so a timeout can
  // kill everything it started, and keeps it away from our terminal's Ctrl-C. Signals the
  // parent ignores (SIGPIPE is common) would be inherited as ignored, so reset them.
  sigset_t defaults;
  sigemptyset(&defaults);
  for (const int sig : {SIGPIPE, SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGCHLD, SIGALRM, SIGUSR1,
                        SIGUSR2, SIGTSTP, SIGTTIN, SIGTTOU}) {
    sigaddset(&defaults, sig);
  }
  sigset_t empty_mask;
  sigemptyset(&empty_mask);
  posix_spawnattr_setsigdefault(&setup.attr, &defaults);
  posix_spawnattr_setsigmask(&setup.attr, &empty_mask);
  posix_spawnattr_setflags(
      &setup.attr,
      static_cast<short>(POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK));

  std::vector<std::string> argv_strings = spec.argv;
  std::vector<char*> argv = pointers_to(argv_strings);
  std::vector<std::string> env_strings;
  std::vector<char*> envp;
  if (!spec.env.empty()) {
    env_strings = build_environment(spec);
    envp = pointers_to(env_strings);
  }
  char** const env = spec.env.empty() ? environ : envp.data();

  pid_t pid = -1;
  const bool search_path = spec.argv[0].find('/') == std::string::npos;
  const int rc = search_path
                     ? ::posix_spawnp(&pid, argv[0], &setup.actions, &setup.attr, argv.data(), env)
                     : ::posix_spawn(&pid, argv[0], &setup.actions, &setup.attr, argv.data(), env);
  if (rc != 0) {
    return fail(spawn_error(spec, rc));
  }

  SpawnedProcess result;
  result.pid = pid;
  result.out = std::move(out.read);
  result.err = std::move(err.read);
  result.in = std::move(in.write);
  for (const UniqueFd* fd : {&result.out, &result.err, &result.in}) {
    if (fd->valid()) {
      set_nonblocking(fd->get());
    }
  }
  return result;
}

} // namespace ralph::tools
