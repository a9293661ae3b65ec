// Checks of text that people write and others read: chat, reasons, names.
#pragma once

#include <cstddef>
#include <string>

namespace counterattack::server {

// Whether `s` is UTF-8 as protobuf's string fields must be (shortest forms, no surrogates).
bool valid_utf8(const std::string& s);
// Code points of valid UTF-8 `s`.
std::size_t code_points(const std::string& s);
// Whether valid UTF-8 `s` shows nothing: spaces of any kind (Unicode's space
// separators) and the invisible joiners and marks that read as nothing.
bool blank(const std::string& s);
// Whether valid UTF-8 `s` is one line that cannot steer the reader's terminal or
// reorder what is shown around it: no control characters (C0, DEL, C1), no line
// or paragraph separators, no bidirectional controls (embeddings, overrides,
// isolates and marks).
bool one_plain_line(const std::string& s);
// What a client gave (an id, a name), fit to be said back in an error: at most
// 64 characters, and only printable ASCII when it is not one plain line.
std::string as_given(const std::string& s);

}  // namespace counterattack::server
