#pragma once

#include <string>
#include <string_view>

namespace ralph {

// `url` as it may be shown, logged or stored: the password of its user-info
// (`scheme://user:PASSWORD@host`) and any `password=` parameter replaced by `***`. Text that is
// not a URL comes back unchanged.
std::string url_without_password(std::string_view url);

} // namespace ralph
