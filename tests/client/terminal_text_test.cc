// Text from the server never reaches the terminal with control characters in
// it: a chat line, a name or an event that would clear the screen, set the
// clipboard or reverse the text is printed with those characters escaped.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "client.h"
#include "live.h"
#include "render.h"
#include "terminal_text.h"

namespace counterattack::cli {
namespace {

// ESC[2J clears the screen, OSC 52 sets the clipboard, CR returns to overwrite
// the line, BEL rings, U+202E reverses what follows.
const std::string kHostile = "hi\x1b[2J\x1b]52;c;ZXZpbA==\x07\rgood game \xe2\x80\xae" "dlrow";

// Whether a terminal would act on anything in `text` rather than print it.
::testing::AssertionResult inert(const std::string& text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\n') || c == 0x7F) {
      return ::testing::AssertionFailure() << "control byte " << int{c} << " at " << i << " in " << shown(text);
    }
    if (c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
        static_cast<unsigned char>(text[i + 1]) <= 0x9F) {
      return ::testing::AssertionFailure() << "a C1 control at " << i << " in " << shown(text);
    }
    if (c == 0xE2 && text.compare(i, 3, "\xe2\x80\xae") == 0) {
      return ::testing::AssertionFailure() << "U+202E at " << i << " in " << shown(text);
    }
  }
  return ::testing::AssertionSuccess();
}

TEST(UntrustedText, AChatLineThatWouldClearTheScreenOrSetTheClipboardIsPrintedEscaped) {
  const std::string s = shown(kHostile);
  EXPECT_EQ(s, "hi\\x1b[2J\\x1b]52;c;ZXZpbA==\\x07\\rgood game \\u202edlrow");
  EXPECT_TRUE(inert(s));
}

TEST(UntrustedText, AChatMessageFromTheServerReachesTheNoticesEscaped) {
  // As Connection hands every message on: its strings shown.
  wire::ServerMessage m;
  auto* chat = m.mutable_chat();
  chat->set_game_id("g1");
  chat->set_from("mal\x1b[8mlory\nbob: resign now");
  chat->set_text(kHostile);
  make_shown(m);
  Session s(GlobalOptions{});
  LiveGame game(s, "g1");
  game.handle(m);
  const auto notices = game.take_notices();
  ASSERT_EQ(notices.size(), 1u);
  const std::string& text = notices[0].text;
  EXPECT_TRUE(inert(text));
  // A name cannot start a line of its own that reads like someone else's.
  EXPECT_EQ(text.find('\n'), std::string::npos) << text;
  EXPECT_NE(text.find("mal\\x1b[8mlory\\nbob: resign now: hi\\x1b[2J"), std::string::npos) << text;
}

TEST(UntrustedText, AnEventOrAResultWithControlsIsDrawnEscaped) {
  wire::ServerMessage m;
  auto* snap = m.mutable_snapshot();
  snap->set_game_id("g1");
  snap->set_version(3);
  auto* e = snap->add_recent_events();
  e->set_kind(game::Event::MOVED);
  e->set_text("3TC/50 moves\x1b[1A\x1b[2K to 4742");
  snap->mutable_view()->mutable_decision()->set_kind(game::Decision::GAME_OVER);
  snap->mutable_view()->mutable_header()->set_result("Soviet victory\xc2\x9b" "2J");
  snap->mutable_view()->mutable_header()->set_result_reason("The German player resigned\xe2\x81\xa6!");
  make_shown(m);
  const std::string log = render_events({m.snapshot().recent_events().begin(), m.snapshot().recent_events().end()},
                                        RenderOptions{.colour = false});
  EXPECT_TRUE(inert(log));
  EXPECT_NE(log.find("3TC/50 moves\\x1b[1A\\x1b[2K to 4742"), std::string::npos) << log;
  const std::string decision = render_decision(m.snapshot().view(), RenderOptions{.colour = false});
  EXPECT_TRUE(inert(decision));
  EXPECT_NE(decision.find("Soviet victory\\u009b2J"), std::string::npos) << decision;
  EXPECT_NE(decision.find("resigned\\u2066!"), std::string::npos) << decision;
}

TEST(UntrustedText, LettersOfAnyScriptAreKeptAndShownTextStaysAsItIs) {
  const std::string polish = "Kałuszyn, Праґа, 華沙 — ½";
  EXPECT_EQ(shown(polish), polish);
  EXPECT_EQ(shown(shown(kHostile)), shown(kHostile));
  // Bytes that are not UTF-8 are written out, not passed on.
  EXPECT_EQ(shown("a\xff\xc0\xafz"), "a\\xff\\xc0\\xafz");
  EXPECT_EQ(shown("cut \xe2\x80"), "cut \\xe2\\x80");
  EXPECT_EQ(shown("tab\tdel\x7f"), "tab\\tdel\\x7f");
}

TEST(UntrustedText, JsonOutputHoldsNoRawControlsAndReadsBackTheSame) {
  // What --json and export print: the server's text as sent, escaped the JSON way.
  wire::GameLog log;
  log.set_game_id("g1");
  log.add_options(kHostile + "\xc2\x9b");
  const std::string out = to_json(log);
  EXPECT_TRUE(inert(out)) << out;
  EXPECT_EQ(nlohmann::json::parse(out).at("options").at(0).get<std::string>(), kHostile + "\xc2\x9b");
}

}  // namespace
}  // namespace counterattack::cli
