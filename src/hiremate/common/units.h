// Byte quantities as people write them, and budgets relative to a baseline peak.
#pragma once
#include <cstdint>
#include <string>

namespace hiremate {

// Parses a budget: plain bytes ("41688"), bytes with a unit ("1.5GiB", "800MB", "64KiB"; B, KB,
// MB, GB, TB are powers of 1000, KiB, MiB, GiB, TiB powers of 1024; fractional bytes round up),
// a fraction of `baseline_peak` ("0.8", "1.0"; a number with a decimal point, in (0, 1]) or a
// percentage ("80%"). A fraction p gives ceil(p x baseline_peak), computed exactly from the decimal
// digits. Throws BadInput saying what is wrong for anything else, zero, or a negative value.
int64_t parse_budget(const std::string& text, int64_t baseline_peak);

// Exactly ceil(p x peak) where p = numerator / 10^scale.
int64_t ceil_fraction(int64_t peak, int64_t numerator, int scale);

// "1.50 GiB", "812 B": for human tables (machine output always gives plain bytes).
std::string format_bytes(int64_t bytes);

}  // namespace hiremate
