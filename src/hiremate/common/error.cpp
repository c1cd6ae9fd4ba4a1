#include "hiremate/common/error.h"

#include <fmt/format.h>

namespace hiremate {

void assertion_failed(const char* expr, const char* file, int line, const std::string& msg) {
  throw Error(fmt::format("internal error (a bug in hiremate, please report it): {} [{} failed at {}:{}]",
                          msg, expr, file, line));
}

}  // namespace hiremate
