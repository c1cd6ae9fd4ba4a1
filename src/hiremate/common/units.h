// Byte quantities as people write them, and budgets relative to a baseline peak.
#pragma once
#include <cstdint>
#include <string>

namespace hiremate {

// Parses a budget: plain bytes ("41688"), bytes with a unit ("1.5GiB", "800MB", "64KiB"; B, KB,
// MB, GB, TB are powers of 1000, KiB, MiB, GiB, TiB powers of 1024; fractional bytes round up),
// units are case-insensitive ("1.5gb"); a fraction of `baseline_peak` ("0.8", "1.0"; a number with a decimal point, in (0, 1]) or a
// percentage ("80%"). A fraction p gives ceil(p x baseline_peak), computed exactly from the decimal
// digits. Throws BadInput saying what is wrong for anything else, zero, or a negative value.
int64_t parse_budget(const std::string& text, int64_t baseline_peak);

// Exactly ceil(p x peak) where p = numerator / 10^scale.
int64_t ceil_fraction(int64_t peak, int64_t numerator, int scale);

// "1.50 GiB", "812 B": for human tables (machine output always gives plain bytes).
std::string format_bytes(int64_t bytes);

// "7,616,524": an integer with thousands separators, for tables of bytes.
std::string group_digits(int64_t n);

// "4.4 s", "0.25 s", "3.2 ms": seconds for people, at a precision that means something.
std::string format_seconds(double seconds);

// A time or cost in a table: "4.3993" ({:.6g}) below a million, "10,278,400,000,000" above
// (never "1.02784e+13").
std::string format_quantity(double v);

// `text` with every over-long decimal ("4.3993006900000005" -> "4.399") and every exponent form
// ("1.02784e+13" -> "10,278,400,000,000") and byte count ("49283072 bytes" -> "49,283,072 bytes")
// rewritten: for notes that solvers compose.
std::string tidy_numbers(const std::string& text);

}  // namespace hiremate
