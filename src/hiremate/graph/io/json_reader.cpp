#include "hiremate/graph/io/json_reader.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <limits>

#include "hiremate/common/error.h"

namespace hiremate::io {

std::string at_pointer(const std::string& origin, const std::string& pointer, const std::string& msg) {
  if (pointer.empty()) return fmt::format("{}: {}", origin, msg);
  return fmt::format("{}: {}: {}", origin, pointer, msg);
}

// The word around byte `pos`, to recognise NaN / Infinity literals in a syntax error.
static std::string word_at(const std::string& text, size_t pos) {
  if (pos > text.size()) pos = text.size();
  size_t b = pos, e = pos;
  auto is_word = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '-'; };
  while (b > 0 && is_word(text[b - 1])) --b;
  while (e < text.size() && is_word(text[e])) ++e;
  return text.substr(b, e - b);
}

// Our formats nest a few levels; deeper input is hostile, and nlohmann's dump() and comparisons
// recurse, so it would overflow the stack later (found by fuzz_own_json). Rejected before parsing.
static void check_depth(const std::string& text, const std::string& origin) {
  int depth = 0, line = 1;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (c == '\n') ++line;
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        throw BadInput(fmt::format("{}: JSON nested deeper than {} levels at line {}; hiremate's formats need a "
                                   "few levels, so this is not a graph or schedule file", origin, kMaxJsonDepth, line));
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}

json parse_json_text(const std::string& text, const std::string& origin) {
  check_depth(text, origin);
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    // nlohmann's message: "[json.exception.parse_error.101] parse error at line L, column C: ...".
    std::string what = e.what();
    const std::string marker = "parse error at ";
    size_t at = what.find(marker);
    std::string detail = at == std::string::npos ? what : what.substr(at + marker.size());
    std::string word = word_at(text, e.byte == 0 ? 0 : e.byte - 1);
    std::string hint = "fix the JSON syntax (is the file truncated?)";
    if (word == "NaN" || word == "Infinity" || word == "-Infinity" || word == "N" || word == "-I")
      hint = "NaN and Infinity are not JSON numbers; times and sizes must be finite numbers";
    throw BadInput(fmt::format("{}: invalid JSON at {}; {}", origin, detail, hint));
  } catch (const json::exception& e) {  // e.g. a number too large for a double
    throw BadInput(fmt::format("{}: invalid JSON: {}", origin, e.what()));
  }
}

const char* json_type_name(const json& j) {
  switch (j.type()) {
    case json::value_t::null: return "null";
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    case json::value_t::string: return "a string";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "an integer";
    case json::value_t::number_float: return "a number";
    default: return "an unsupported value";
  }
}

// Short rendering of a value for messages (strings keep their quotes).
static std::string shown(const json& j) {
  std::string s = j.dump();
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return s;
}

void JsonAt::fail(const std::string& msg) const { throw BadInput(at_pointer(*origin_, pointer_, msg)); }

// JSON pointer escaping (RFC 6901): '~' -> "~0", '/' -> "~1".
static std::string escape_token(const std::string& token) {
  std::string out;
  for (char c : token) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

JsonAt JsonAt::child(const std::string& token, const json& j) const {
  return JsonAt(j, *origin_, pointer_ + "/" + escape_token(token));
}

void JsonAt::expect_object() const {
  if (!j_->is_object()) fail(fmt::format("expected an object, got {}", json_type_name(*j_)));
}

void JsonAt::expect_keys(std::initializer_list<const char*> allowed) const {
  expect_object();
  for (const auto& item : j_->items()) {
    bool ok = false;
    for (const char* a : allowed) ok = ok || item.key() == a;
    if (!ok) {
      std::string list;
      for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      child(item.key(), item.value()).fail(fmt::format("unknown field '{}'; the fields here are {}", item.key(), list));
    }
  }
}

bool JsonAt::has(const char* key) const { return j_->is_object() && j_->contains(key); }

JsonAt JsonAt::operator[](const char* key) const {
  expect_object();
  auto it = j_->find(key);
  if (it == j_->end()) fail(fmt::format("missing required field '{}'", key));
  return child(key, *it);
}

std::optional<JsonAt> JsonAt::get(const char* key) const {
  expect_object();
  auto it = j_->find(key);
  if (it == j_->end()) return std::nullopt;
  return child(key, *it);
}

std::vector<JsonAt> JsonAt::elements() const {
  if (!j_->is_array()) fail(fmt::format("expected an array, got {}", json_type_name(*j_)));
  std::vector<JsonAt> out;
  out.reserve(j_->size());
  for (size_t i = 0; i < j_->size(); ++i) out.push_back(child(std::to_string(i), (*j_)[i]));
  return out;
}

std::string JsonAt::string() const {
  if (!j_->is_string()) fail(fmt::format("expected a string, got {} ({})", json_type_name(*j_), shown(*j_)));
  return j_->get<std::string>();
}

std::string JsonAt::name() const {
  std::string s = string();
  if (s.empty()) fail("expected a non-empty name");
  return s;
}

bool JsonAt::boolean() const {
  if (!j_->is_boolean()) fail(fmt::format("expected true or false, got {} ({})", json_type_name(*j_), shown(*j_)));
  return j_->get<bool>();
}

int64_t JsonAt::integer() const {
  if (j_->is_number_unsigned()) {
    uint64_t u = j_->get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      fail(fmt::format("{} does not fit in a signed 64-bit integer", u));
    return static_cast<int64_t>(u);
  }
  if (j_->is_number_integer()) return j_->get<int64_t>();
  if (j_->is_number_float()) {
    double d = j_->get<double>();
    if (d != std::floor(d))
      fail(fmt::format("expected an integer, got {}; sizes are whole bytes", shown(*j_)));
    if (!(d >= -9.2e18 && d <= 9.2e18)) fail(fmt::format("{} does not fit in a signed 64-bit integer", shown(*j_)));
    return static_cast<int64_t>(d);
  }
  fail(fmt::format("expected an integer, got {} ({}); write numbers without quotes", json_type_name(*j_), shown(*j_)));
}

int64_t JsonAt::bytes() const {
  int64_t b = integer();
  if (b < 0) fail(fmt::format("negative size {} bytes; sizes must be >= 0", b));
  return b;
}

double JsonAt::time() const {
  if (!j_->is_number())
    fail(fmt::format("expected a number, got {} ({}); times are finite numbers >= 0 without quotes",
                     json_type_name(*j_), shown(*j_)));
  double t = j_->get<double>();
  if (!std::isfinite(t) || t < 0) fail(fmt::format("time {} is negative; times must be finite and >= 0", t));
  return t;
}

}  // namespace hiremate::io
