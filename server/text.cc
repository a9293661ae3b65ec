#include "text.h"

namespace counterattack::server {
namespace {

// Calls `each(code point)` over `s` while it returns true; false when it returned
// false, or when `s` is not UTF-8 as protobuf's string fields must be (shortest
// forms, no surrogates).
template <typename Each>
bool each_code_point(const std::string& s, Each each) {
  for (std::size_t i = 0; i < s.size();) {
    const auto lead = static_cast<unsigned char>(s[i]);
    int more = 0;
    char32_t cp = 0;
    if (lead < 0x80) {
      cp = lead;
    } else if ((lead & 0xE0) == 0xC0) {
      more = 1, cp = lead & 0x1F;
    } else if ((lead & 0xF0) == 0xE0) {
      more = 2, cp = lead & 0x0F;
    } else if ((lead & 0xF8) == 0xF0) {
      more = 3, cp = lead & 0x07;
    } else {
      return false;
    }
    if (i + static_cast<std::size_t>(more) >= s.size()) return false;
    for (int k = 1; k <= more; ++k) {
      const auto b = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
      if ((b & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (b & 0x3F);
    }
    const char32_t least[] = {0, 0x80, 0x800, 0x10000};
    if (cp < least[more] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    if (!each(cp)) return false;
    i += static_cast<std::size_t>(more) + 1;
  }
  return true;
}

}  // namespace

bool valid_utf8(const std::string& s) {
  return each_code_point(s, [](char32_t) { return true; });
}

bool blank(const std::string& s) {
  return each_code_point(s, [](char32_t cp) {
    return cp == U' ' || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200F) || cp == 0x2028 || cp == 0x2029 ||
           cp == 0x202F || cp == 0x205F || cp == 0x2060 || cp == 0x3000 || cp == 0xFEFF;
  });
}

std::size_t code_points(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char ch : s) n += (ch & 0xC0) != 0x80;
  return n;
}

bool one_plain_line(const std::string& s) {
  return each_code_point(s, [](char32_t cp) {
    const bool control = cp < 0x20 || (cp >= 0x7F && cp <= 0x9F);
    const bool separator = cp == 0x2028 || cp == 0x2029;
    const bool bidi = (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x061C ||
                      cp == 0x200E || cp == 0x200F;
    return !control && !separator && !bidi;
  });
}

std::string as_given(const std::string& s) {
  constexpr std::size_t kMost = 64;
  std::string out;
  if (valid_utf8(s) && one_plain_line(s)) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
      const auto ch = static_cast<unsigned char>(s[i]);
      if ((ch & 0xC0) != 0x80 && n++ == kMost) return out + "...";
      out += s[i];
    }
    return out;
  }
  for (const unsigned char ch : s) {
    if (out.size() == kMost) return out + "...";
    out += ch >= 0x20 && ch < 0x7F ? static_cast<char>(ch) : '?';
  }
  return out;
}

}  // namespace counterattack::server
