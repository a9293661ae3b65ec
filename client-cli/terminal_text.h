// Text from the server made fit for a terminal. Player names, chat, reasons,
// event texts: any of it could carry control sequences that clear the screen,
// set the clipboard (OSC 52), move the cursor to overwrite what was printed, or
// reverse the order in which text reads (Unicode's bidi overrides). Every
// message the client receives has its strings passed through shown() before
// anything prints them (Connection does it, see connection.h); what it prints
// around them, colours and newlines of its own, is the client's.
#pragma once

#include <string>
#include <string_view>

#include <google/protobuf/message.h>

namespace counterattack::cli {

// One line of untrusted text as it may reach a terminal: C0 controls (newlines
// and tabs too), DEL and bytes that are not UTF-8 written as \x1b, \n, \r, \t;
// C1 controls (U+0080-U+009F) and the bidi controls (U+061C, U+200E, U+200F,
// U+202A-U+202E, U+2066-U+2069) as \u202e. Everything else, letters of any
// script included, is kept. Text already shown comes back unchanged.
std::string shown(std::string_view text);

// Every string field of a message, nested messages and repeated fields
// included, passed through shown(). Bytes fields are left alone.
void make_shown(google::protobuf::Message& message);

// JSON text (as the client writes it) with what its encoder leaves raw, DEL,
// C1 and bidi controls, written as \u escapes: the same JSON once parsed.
std::string json_shown(std::string_view json);

}  // namespace counterattack::cli
