// Reading JSON input with positions (internal to the readers in graph/io and schedule/).
//
// A JsonAt is a JSON value together with its file and JSON pointer, so that every check can fail
// with "file.json: /compute/3/bytes: what is wrong; what to do" without threading context by hand.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hiremate::io {

using json = nlohmann::json;

// Deeper nesting than this is rejected (a BadInput) before parsing.
constexpr int kMaxJsonDepth = 64;

// Parses JSON text; a syntax error becomes a BadInput with line and column (and a hint for NaN and
// Infinity, which Python writes but JSON does not allow).
json parse_json_text(const std::string& text, const std::string& origin);

// "a string", "an array", ... for messages.
const char* json_type_name(const json& j);

class JsonAt {
 public:
  JsonAt(const json& j, const std::string& origin, std::string pointer = "")
      : j_(&j), origin_(&origin), pointer_(std::move(pointer)) {}

  const json& value() const { return *j_; }
  const std::string& pointer() const { return pointer_; }
  const std::string& origin() const { return *origin_; }
  // "file.json:/compute/3", the form Graph's `where` strings take.
  std::string where() const { return *origin_ + ":" + (pointer_.empty() ? "/" : pointer_); }
  [[noreturn]] void fail(const std::string& msg) const;

  // Objects. `allowed`: every key the object may have; others are rejected (they are typos).
  void expect_object() const;
  void expect_keys(std::initializer_list<const char*> allowed) const;
  bool has(const char* key) const;
  JsonAt operator[](const char* key) const;       // required member
  std::optional<JsonAt> get(const char* key) const;  // optional member
  // Arrays.
  std::vector<JsonAt> elements() const;

  // Scalars, each checked and converted.
  std::string string() const;           // a string
  std::string name() const;             // a non-empty string
  bool boolean() const;
  int64_t integer() const;              // an integer that fits in int64 (1e9 and 2.0 are accepted)
  int64_t bytes() const;                // integer() >= 0
  double time() const;                  // a finite number >= 0

 private:
  JsonAt child(const std::string& token, const json& j) const;
  const json* j_;
  const std::string* origin_;
  std::string pointer_;
};

// Formats a message at a position: "origin: pointer: msg" (no pointer at the top level).
std::string at_pointer(const std::string& origin, const std::string& pointer, const std::string& msg);

}  // namespace hiremate::io
