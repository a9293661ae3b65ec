#include "terminal_text.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/reflection.h>

#include <cstdint>
#include <cstdio>
#include <vector>

namespace counterattack::cli {
namespace {

// The code point of the UTF-8 sequence at text[i] and its length; length 0
// when the bytes there are not well-formed UTF-8 (overlong, a surrogate, cut short).
std::pair<char32_t, std::size_t> decode(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) return {lead, 1};
  std::size_t len = 0;
  char32_t cp = 0, least = 0;
  if ((lead & 0xE0) == 0xC0) {
    len = 2, cp = lead & 0x1Fu, least = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    len = 3, cp = lead & 0x0Fu, least = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    len = 4, cp = lead & 0x07u, least = 0x10000;
  } else {
    return {0, 0};
  }
  if (i + len > text.size()) return {0, 0};
  for (std::size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return {0, 0};
    cp = (cp << 6) | (byte(i + k) & 0x3Fu);
  }
  if (cp < least || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return {0, 0};
  return {cp, len};
}

// C1 controls, and the characters of Unicode's Bidi_Control property, which
// reorder the text around them: what no server text needs on a terminal.
bool hidden_control(char32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) || cp == 0x061C || cp == 0x200E || cp == 0x200F ||
         (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

std::string hex_escape(const char* format, unsigned value) {
  char buf[16];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

}  // namespace

std::string shown(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto [cp, len] = decode(text, i);
    if (len == 0) {
      out += hex_escape("\\x%02x", static_cast<unsigned char>(text[i]));
      ++i;
      continue;
    }
    if (cp == '\n') {
      out += "\\n";
    } else if (cp == '\r') {
      out += "\\r";
    } else if (cp == '\t') {
      out += "\\t";
    } else if (cp < 0x20 || cp == 0x7F) {
      out += hex_escape("\\x%02x", static_cast<unsigned>(cp));
    } else if (hidden_control(cp)) {
      out += hex_escape("\\u%04x", static_cast<unsigned>(cp));
    } else {
      out.append(text.substr(i, len));
    }
    i += len;
  }
  return out;
}

void make_shown(google::protobuf::Message& message) {
  using google::protobuf::FieldDescriptor;
  const auto* reflection = message.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);  // the fields set: nothing to do for the others
  std::string scratch;
  for (const auto* f : fields) {
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (f->is_repeated()) {
        for (int k = 0; k < reflection->FieldSize(message, f); ++k) {
          make_shown(*reflection->MutableRepeatedMessage(&message, f, k));
        }
      } else {
        make_shown(*reflection->MutableMessage(&message, f));
      }
    } else if (f->type() == FieldDescriptor::TYPE_STRING) {
      if (f->is_repeated()) {
        for (int k = 0; k < reflection->FieldSize(message, f); ++k) {
          const std::string& now = reflection->GetRepeatedStringReference(message, f, k, &scratch);
          if (std::string fit = shown(now); fit != now) reflection->SetRepeatedString(&message, f, k, std::move(fit));
        }
      } else {
        const std::string& now = reflection->GetStringReference(message, f, &scratch);
        if (std::string fit = shown(now); fit != now) reflection->SetString(&message, f, std::move(fit));
      }
    }
  }
}

std::string json_shown(std::string_view json) {
  std::string out;
  out.reserve(json.size());
  for (std::size_t i = 0; i < json.size();) {
    const auto [cp, len] = decode(json, i);
    if (len == 0) {
      out += "\\ufffd";  // not UTF-8: no JSON string may hold it
      ++i;
      continue;
    }
    if (cp == 0x7F || hidden_control(cp)) {
      out += hex_escape("\\u%04x", static_cast<unsigned>(cp));
    } else {
      out.append(json.substr(i, len));
    }
    i += len;
  }
  return out;
}

}  // namespace counterattack::cli
