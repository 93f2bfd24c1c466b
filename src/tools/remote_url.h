#pragma once

#include "ralph/core/error.h"

#include <string>
#include <string_view>

namespace ralph::tools {

// A git remote (a URL, scp-like `user@host:path`, a local path or a remote's name) as it may be
// shown: the password of a URL replaced by "***", and over HTTP(S) the user name too (tokens go
// there as often as in the password).
std::string shown_remote(std::string_view remote);

// `error` with every credential of `remote` masked in its message, so that what git printed
// about the remote can be shown.
Error without_credentials(Error error, std::string_view remote);

} // namespace ralph::tools
