// In-process checks of the server's parts: config, storage and group commit,
// the ruleset adapter, and the test bot against the engine.
#include <gtest/gtest.h>

#include <google/protobuf/util/message_differencer.h>

#include <algorithm>
#include <atomic>
#include <future>
#include <map>
#include <mutex>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>
#include <tuple>
#include <thread>

#include "bot.h"
#include "client.h"
#include "config.h"
#include "gathering_vfs.h"
#include "engine.h"
#include "listener.h"
#include "proxy_protocol.h"
#include "recent_attempts.h"
#include "glicko2.h"
#include "log.h"
#include "ratings.h"
#include "ruleset.h"
#include "storage.h"
#include "tournaments.h"

namespace counterattack::server {
namespace {

using google::protobuf::util::MessageDifferencer;
using testing::make_temp_dir;

wire::GameSummary tournament_game(const std::string& soviet, const std::string& german, const std::string& result) {
  wire::GameSummary g;
  g.set_soviet(soviet);
  g.set_german(german);
  g.set_status(result.empty() ? "playing" : "finished");
  g.set_result(result);
  return g;
}

// Four entrants: ann and cid level on points, ann ahead on Sonneborn-Berger
// (she beat the stronger opponent); bea and dan level on both, sharing a rank.
TEST(ServerUnit, TournamentStandingsRankByPointsThenSonnebornBerger) {
  const std::vector<std::string> entrants = {"ann", "bea", "cid", "dan"};
  const std::vector<wire::GameSummary> games = {
      tournament_game("ann", "bea", "Soviet victory"), tournament_game("bea", "ann", "Soviet victory"),
      tournament_game("ann", "cid", "German victory"), tournament_game("cid", "ann", "German victory"),
      tournament_game("ann", "dan", "Draw"),           tournament_game("dan", "ann", "German victory"),
      tournament_game("bea", "cid", "German victory"), tournament_game("cid", "bea", "Draw"),
      tournament_game("bea", "dan", "Soviet victory"), tournament_game("dan", "bea", "Soviet victory"),
      tournament_game("cid", "dan", "Draw"),           tournament_game("dan", "cid", ""),
  };
  const auto table = standings(entrants, games);
  ASSERT_EQ(table.size(), 4u);
  std::map<std::string, wire::Standing> by;
  for (const auto& s : table) by[s.player()] = s;
  // ann: W bea, L bea, L cid, W cid, D dan, W dan = 3.5; cid: W ann, L ann, W bea, D bea, D dan = 3.
  EXPECT_EQ(by["ann"].points(), 3.5);
  EXPECT_EQ(by["cid"].points(), 3.0);
  EXPECT_EQ(by["bea"].points(), 2.5);
  EXPECT_EQ(by["dan"].points(), 2.0);
  EXPECT_EQ(by["cid"].to_play(), 1);
  EXPECT_EQ(by["dan"].to_play(), 1);
  EXPECT_EQ(by["ann"].to_play(), 0);
  EXPECT_EQ(by["ann"].won(), 3);
  EXPECT_EQ(by["ann"].drawn(), 1);
  EXPECT_EQ(by["ann"].lost(), 2);
  // ann beat bea (2.5), cid (3) and dan (2), drew with dan: 2.5 + 3 + 2 + 1.
  EXPECT_EQ(by["ann"].tiebreak(), 8.5);
  EXPECT_EQ(table[0].player(), "ann");
  EXPECT_EQ(table[0].rank(), 1);
  EXPECT_EQ(table[1].player(), "cid");
  EXPECT_EQ(table[1].rank(), 2);

  // Level on points and tie-break: one rank for both, in order of entry.
  const auto level = standings({"x", "y", "z"}, {tournament_game("x", "y", "Soviet victory"),
                                                 tournament_game("y", "x", "Soviet victory"),
                                                 tournament_game("x", "z", "Draw"), tournament_game("z", "x", "Draw"),
                                                 tournament_game("y", "z", "Draw"), tournament_game("z", "y", "Draw")});
  ASSERT_EQ(level.size(), 3u);
  for (const auto& s : level) EXPECT_EQ(s.points(), 2.0) << s.player();
  EXPECT_EQ(level[0].rank(), 1);
  EXPECT_EQ(level[1].rank(), 1);
  EXPECT_EQ(level[2].rank(), 1);
  EXPECT_EQ(level[0].player(), "x");

  // A result that is no win, loss or draw counts for nobody; unknown players are left out.
  const auto odd = standings({"x", "y"}, {tournament_game("x", "y", "Cancelled"), tournament_game("x", "q", "Soviet victory")});
  EXPECT_EQ(odd[0].points() + odd[1].points(), 0.0);
  EXPECT_EQ(odd[0].to_play() + odd[1].to_play(), 0);
}

TEST(ServerUnit, TournamentStandingsCountAByeAsTwoPoints) {
  const auto table = standings({"x", "y", "z"}, {tournament_game("x", "y", "Soviet victory"), tournament_game("y", "x", "Draw")},
                               {{"z", 1}});
  ASSERT_EQ(table.size(), 3u);
  EXPECT_EQ(table[0].player(), "z");
  EXPECT_EQ(table[0].points(), 2.0);
  EXPECT_EQ(table[0].byes(), 1);
  EXPECT_EQ(table[0].won(), 0) << "a bye is no game won";
  EXPECT_EQ(table[1].player(), "x");
  EXPECT_EQ(table[1].points(), 1.5);
}

TEST(ServerUnit, SwissPairsNeighboursInTheStandingsWithoutRematchesWhileItCan) {
  auto pairs = [](const SwissRound& r) { return r.pairs; };
  using P = std::vector<std::pair<int, int>>;
  EXPECT_EQ(pairs(swiss_round(4, {}, {})), (P{{0, 1}, {2, 3}}));
  EXPECT_EQ(swiss_round(4, {}, {}).bye, -1);
  // The leaders met: each meets the next placed they have not.
  EXPECT_EQ(pairs(swiss_round(4, {{0, 1}}, {})), (P{{0, 2}, {1, 3}}));
  // A pairing that looks fine at first but leaves two who met: searched past.
  EXPECT_EQ(pairs(swiss_round(4, {{0, 1}, {2, 3}, {1, 3}}, {})), (P{{0, 3}, {1, 2}}));
  // Odd: the lowest placed who has not sat out yet sits out.
  auto odd = swiss_round(5, {}, {4});
  EXPECT_EQ(odd.bye, 3);
  EXPECT_EQ(pairs(odd), (P{{0, 1}, {2, 4}}));
  EXPECT_EQ(swiss_round(3, {}, {0, 1, 2}).bye, 2) << "all have sat out: the lowest placed";
  // Nobody left to meet anew: a rematch rather than no round.
  EXPECT_EQ(pairs(swiss_round(2, {{0, 1}}, {})), (P{{0, 1}}));
  // Every pairing of six, round after round, avoids rematches for five rounds: a round robin.
  std::set<std::pair<int, int>> met;
  for (int round = 0; round < 5; ++round) {
    const auto r = swiss_round(6, met, {});
    ASSERT_EQ(r.pairs.size(), 3u) << "round " << round + 1;
    for (const auto& p : r.pairs) EXPECT_TRUE(met.insert(p).second) << p.first << "-" << p.second << " again";
  }
  EXPECT_EQ(met.size(), 15u);
}

TEST(ServerUnit, ASwissFirstRoundPairsTheTopHalfOfTheSeedsWithTheBottomHalf) {
  using P = std::vector<std::pair<int, int>>;
  EXPECT_EQ(first_swiss_round(2).pairs, (P{{0, 1}}));
  EXPECT_EQ(first_swiss_round(6).pairs, (P{{0, 3}, {1, 4}, {2, 5}}));
  EXPECT_EQ(first_swiss_round(6).bye, -1);
  const auto odd = first_swiss_round(5);
  EXPECT_EQ(odd.bye, 4) << "the lowest seed sits out";
  EXPECT_EQ(odd.pairs, (P{{0, 2}, {1, 3}}));
}

TEST(ServerUnit, AKnockOutsBracketKeepsTheTopSeedsApartAndGivesTheTopSeedsTheByes) {
  using P = std::vector<std::pair<int, int>>;
  auto all = [](int n) {
    std::set<int> in;
    for (int i = 0; i < n; ++i) in.insert(i);
    return in;
  };
  EXPECT_EQ(knockout_rounds(2), 1);
  EXPECT_EQ(knockout_rounds(3), 2);
  EXPECT_EQ(knockout_rounds(8), 3);
  EXPECT_EQ(knockout_rounds(9), 4);
  EXPECT_EQ(knockout_round(2, all(2), 1).pairs, (P{{0, 1}}));
  // Eight: 1 against 8, 4 against 5, 2 against 7, 3 against 6 (seeds counted from 1).
  const auto eight = knockout_round(8, all(8), 1);
  EXPECT_EQ(eight.pairs, (P{{0, 7}, {3, 4}, {1, 6}, {2, 5}}));
  EXPECT_TRUE(eight.byes.empty());
  // The favourites win: the semi-finals are 1 against 4 and 2 against 3, the final 1 against 2.
  EXPECT_EQ(knockout_round(8, {0, 1, 2, 3}, 2).pairs, (P{{0, 3}, {1, 2}}));
  EXPECT_EQ(knockout_round(8, {0, 1}, 3).pairs, (P{{0, 1}}));
  // An upset: the fifth seed takes the fourth's place.
  EXPECT_EQ(knockout_round(8, {0, 4, 1, 2}, 2).pairs, (P{{0, 4}, {1, 2}}));
  // Five in a bracket of eight: the top three sit out the first round.
  const auto five = knockout_round(5, all(5), 1);
  EXPECT_EQ(five.pairs, (P{{3, 4}}));
  EXPECT_EQ(five.byes, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(knockout_round(5, {0, 1, 2, 4}, 2).pairs, (P{{0, 4}, {1, 2}}));
  EXPECT_TRUE(knockout_round(5, {0, 1, 2, 4}, 2).byes.empty());
  const auto three = knockout_round(3, all(3), 1);
  EXPECT_EQ(three.pairs, (P{{1, 2}}));
  EXPECT_EQ(three.byes, (std::vector<int>{0}));
}

TEST(ServerUnit, ConfigReadsKeyValueAndJsonAndRejectsUnknownKeys) {
  const std::string dir = make_temp_dir("config");
  {
    std::ofstream(dir + "/a.conf") << "# comment\nlisten = 0.0.0.0:9000\nmax_message_bytes = 1024  # inline\nplain = true\n"
                                << "trusted_proxies = 127.0.0.1, 10.0.0.0/8\nproxy_protocol = on\n";
    Config c;
    std::string err;
    ASSERT_TRUE(load_config_file(dir + "/a.conf", c, err)) << err;
    EXPECT_EQ(c.listen, "0.0.0.0:9000");
    EXPECT_EQ(c.max_message_bytes, 1024u);
    EXPECT_TRUE(c.plain);
    EXPECT_EQ(c.trusted_proxies.text(), "127.0.0.1, 10.0.0.0/8");
    EXPECT_FALSE(set_config_value(c, "trusted_proxies", "10.0.0.0/33", err));
    EXPECT_EQ(c.trusted_proxies.text(), "127.0.0.1, 10.0.0.0/8") << "a bad value changes nothing";
    EXPECT_TRUE(c.proxy_protocol);
    EXPECT_TRUE(set_config_value(c, "max_queued_bytes", "1048576", err)) << err;
    EXPECT_FALSE(set_config_value(c, "max_queued_bytes", "1000", err)) << "below one frame's worth";
    EXPECT_FALSE(set_config_value(c, "proxy_protocol", "v2", err));
    EXPECT_TRUE(set_config_value(c, "smtp_url", "smtps://mail.example.org:465", err)) << err;
    EXPECT_FALSE(set_config_value(c, "smtp_url", "http://mail.example.org", err)) << "only SMTP";
    EXPECT_FALSE(set_config_value(c, "mail_from", "games@club.test\r\nBcc: all@example.org", err)) << "it goes into a header";
    EXPECT_TRUE(set_config_value(c, "mail_from", "counterattackd@localhost", err)) << "the default, written out: " << err;
    EXPECT_FALSE(set_config_value(c, "threads", "-1", err));
    EXPECT_EQ(err, "bad value '-1' for 'threads' (a number from 0 to 64)") << "the refusal says what the key takes";
    EXPECT_FALSE(set_config_value(c, "log_level", "loud", err));
    EXPECT_NE(err.find("one of: "), std::string::npos) << err;
    EXPECT_EQ(c.mail_from, "counterattackd@localhost");
  }
  {
    std::ofstream(dir + "/b.json") << R"({"data_dir": "/tmp/x", "messages_per_second": 12.5, "log_format": "json"})";
    Config c;
    std::string err;
    ASSERT_TRUE(load_config_file(dir + "/b.json", c, err)) << err;
    EXPECT_EQ(c.data_dir, "/tmp/x");
    EXPECT_DOUBLE_EQ(c.messages_per_second, 12.5);
    c.resolve();
    EXPECT_EQ(c.database, "/tmp/x/counterattack.db");
    EXPECT_GE(c.threads, 1);  // 0, the default, becomes a count from the machine's cores
  }
  {
    std::ofstream(dir + "/c.conf") << "lisen = 1\n";
    Config c;
    std::string err;
    EXPECT_FALSE(load_config_file(dir + "/c.conf", c, err));
    EXPECT_NE(err.find("unknown setting 'lisen'"), std::string::npos) << err;
  }
  std::string host, err;
  unsigned short port = 1;
  EXPECT_TRUE(split_listen("[::1]:0", host, port, err));
  EXPECT_EQ(host, "::1");
  EXPECT_EQ(port, 0);
  EXPECT_FALSE(split_listen("8443", host, port, err));
  std::filesystem::remove_all(dir);
}

// Files as editors and operators write them: a byte order mark before the first key,
// a JSON list of proxies, and a JSON slip named with where it is.
TEST(ServerUnit, ConfigReadsAByteOrderMarkAJsonListAndPlacesAJsonSlip) {
  const std::string dir = make_temp_dir("config-forms");
  std::ofstream(dir + "/bom.conf") << "\xEF\xBB\xBFlisten = 127.0.0.1:9000\n";
  std::ofstream(dir + "/bom.json") << "\xEF\xBB\xBF{\"listen\": \"127.0.0.1:9001\"}";
  std::ofstream(dir + "/list.json") << R"({"trusted_proxies": ["127.0.0.1", "::1"]})";
  std::ofstream(dir + "/slip.json") << R"({"threads": 2,})";
  Config c;
  std::string err;
  ASSERT_TRUE(load_config_file(dir + "/bom.conf", c, err)) << err;
  EXPECT_EQ(c.listen, "127.0.0.1:9000");
  ASSERT_TRUE(load_config_file(dir + "/bom.json", c, err)) << err;
  EXPECT_EQ(c.listen, "127.0.0.1:9001");
  Config listed, written;
  ASSERT_TRUE(load_config_file(dir + "/list.json", listed, err)) << err;
  ASSERT_TRUE(set_config_value(written, "trusted_proxies", "127.0.0.1,::1", err)) << err;
  EXPECT_EQ(listed.trusted_proxies.text(), written.trusted_proxies.text()) << "a list reads as its comma-separated form";
  EXPECT_FALSE(load_config_file(dir + "/slip.json", c, err));
  EXPECT_NE(err.find("not valid JSON (at byte "), std::string::npos) << err;
  std::filesystem::remove_all(dir);
}

// A '#' starts a comment, but not inside a quoted value: a password or a URL
// may hold one, and must not be cut short without a word.
TEST(ServerUnit, ConfigKeepsAHashInsideAQuotedValue) {
  const std::string dir = make_temp_dir("config-hash");
  std::ofstream(dir + "/a.conf") << "smtp_password = \"pa#ss word\"  # the relay's\n"
                              << "public_url = \"https://games.example.org/#lobby\"\n"
                              << "smtp_user = club # a comment\n";
  Config c;
  std::string err;
  ASSERT_TRUE(load_config_file(dir + "/a.conf", c, err)) << err;
  EXPECT_EQ(c.smtp_password, "pa#ss word");
  EXPECT_EQ(c.public_url, "https://games.example.org/#lobby");
  EXPECT_EQ(c.smtp_user, "club");
  std::filesystem::remove_all(dir);
}

// Loopback is not counted per address, on an IPv4 or an IPv6 listener; an IPv6
// client is counted by its /64; places are given back when dropped.
TEST(ServerUnit, JsonLogLinesWriteNumbersAsNumbersAndTextAsText) {
  log::init("json", "info");
  ::testing::internal::CaptureStdout();
  log::info("game finished", {{"game", "g-1"}, {"version", std::int64_t{42}}, {"entrants", size_t{3}}, {"result", std::string("Draw")}});
  const std::string json = ::testing::internal::GetCapturedStdout();
  log::init("kv", "info");
  ::testing::internal::CaptureStdout();
  log::info("game finished", {{"game", "g-1"}, {"version", 42}, {"reason", "a b"}});
  const std::string kv = ::testing::internal::GetCapturedStdout();
  EXPECT_NE(json.find(R"("game":"g-1","version":42,"entrants":3,"result":"Draw")"), std::string::npos) << json;
  EXPECT_NE(kv.find(R"(msg="game finished" game=g-1 version=42 reason="a b")"), std::string::npos) << kv;
}

TEST(ServerUnit, ConnectionCapsCountByAddressAndGiveBack) {
  namespace ip = boost::asio::ip;
  EXPECT_EQ(ConnectionCaps::key_of(ip::make_address("127.0.0.1")), "");
  EXPECT_EQ(ConnectionCaps::key_of(ip::make_address("::ffff:127.0.0.1")), "");
  EXPECT_EQ(ConnectionCaps::key_of(ip::make_address("::1")), "");
  EXPECT_EQ(ConnectionCaps::key_of(ip::make_address("::ffff:192.0.2.7")), "192.0.2.7");
  EXPECT_EQ(ConnectionCaps::key_of(ip::make_address("2001:db8:1:2:aaaa::1")),
            ConnectionCaps::key_of(ip::make_address("2001:db8:1:2:bbbb::9")));
  EXPECT_NE(ConnectionCaps::key_of(ip::make_address("2001:db8:1:2::1")),
            ConnectionCaps::key_of(ip::make_address("2001:db8:1:3::1")));

  ConnectionCaps caps(4, 2);
  const auto outside = ip::make_address("192.0.2.7"), mapped = ip::make_address("::ffff:192.0.2.7");
  auto a = caps.admit(outside), b = caps.admit(mapped);
  ASSERT_TRUE(a && b);
  EXPECT_FALSE(caps.admit(outside)) << "a third from one address";
  auto c = caps.admit(ip::make_address("127.0.0.1")), d = caps.admit(ip::make_address("::1"));
  ASSERT_TRUE(c && d);
  EXPECT_FALSE(caps.admit(ip::make_address("127.0.0.1"))) << "a fifth in all";
  EXPECT_EQ(caps.open(), 4);
  a.reset();
  EXPECT_EQ(caps.open(), 3);
  EXPECT_TRUE(caps.admit(outside));  // taken and at once given back
  EXPECT_EQ(caps.open(), 3);
}

// A proxy's word is believed only from a trusted proxy, and only its own:
// entries a client wrote itself, further left, are passed over.
TEST(ServerUnit, TrustedProxiesNameTheClientBehindThem) {
  namespace ip = boost::asio::ip;
  std::string err;
  for (const char* bad : {"localhost", "10.0.0.0/33", "::1/129", "10.0.0.0/x", "10.0.0.0/-8", "10.0.0.0/", "1.2.3"}) {
    EXPECT_FALSE(TrustedProxies::parse(bad, err)) << bad;
    EXPECT_NE(err.find(bad), std::string::npos) << err;
  }
  EXPECT_FALSE(TrustedProxies::parse("::/0", err));
  EXPECT_NE(err.find("would trust everyone"), std::string::npos) << err;
  auto none = TrustedProxies::parse("", err);
  ASSERT_TRUE(none) << err;
  EXPECT_TRUE(none->empty());
  EXPECT_FALSE(none->client_of(ip::make_address("127.0.0.1"), "203.0.113.7"));

  struct Trust {
    const char* proxies;
    const char* peer;
    bool trusted;
  };
  const char* mixed = "127.0.0.1, ::1 10.0.0.0/8,fd00::/8";
  const char* edges = "192.0.2.1/32 2001:db8::1/128 198.51.100.77/24";  // host bits set in a block do not matter
  for (const auto& t : {Trust{mixed, "10.200.3.4", true}, Trust{mixed, "::ffff:10.200.3.4", true},
                        Trust{mixed, "fd12::1", true}, Trust{mixed, "11.0.0.1", false}, Trust{mixed, "127.0.0.2", false},
                        Trust{edges, "192.0.2.1", true}, Trust{edges, "192.0.2.2", false},
                        Trust{edges, "2001:db8::1", true}, Trust{edges, "2001:db8::2", false},
                        Trust{edges, "198.51.100.3", true}, Trust{edges, "198.51.101.3", false}}) {
    auto parsed = TrustedProxies::parse(t.proxies, err);
    ASSERT_TRUE(parsed) << err;
    EXPECT_EQ(parsed->trusts(ip::make_address(t.peer)), t.trusted) << t.peer << " under " << t.proxies;
  }

  auto p = TrustedProxies::parse(mixed, err);
  ASSERT_TRUE(p) << err;
  const auto proxy = ip::make_address("127.0.0.1");
  auto client = [&](const ip::address& peer, std::string_view header) {
    const auto a = p->client_of(peer, header);
    return a ? a->to_string() : std::string("-");
  };
  EXPECT_EQ(client(proxy, "203.0.113.7"), "203.0.113.7");
  EXPECT_EQ(client(ip::make_address("::ffff:127.0.0.1"), "203.0.113.7"), "203.0.113.7");
  EXPECT_EQ(client(proxy, "198.51.100.1, 203.0.113.7"), "203.0.113.7") << "the leftmost is the client's own word";
  EXPECT_EQ(client(proxy, "203.0.113.7, 10.0.0.2"), "203.0.113.7") << "a chain of trusted proxies";
  EXPECT_EQ(client(proxy, "203.0.113.7:4711"), "203.0.113.7");
  EXPECT_EQ(client(proxy, "[2001:db8::7]:4711"), "2001:db8::7");
  EXPECT_EQ(client(proxy, " 2001:db8::7 "), "2001:db8::7");
  EXPECT_EQ(client(proxy, "::ffff:203.0.113.7"), "203.0.113.7");
  EXPECT_EQ(client(proxy, "10.0.0.2"), "-") << "only proxies: the proxy's own connection";
  EXPECT_EQ(client(proxy, ""), "-");
  EXPECT_EQ(client(proxy, "unknown"), "-");
  EXPECT_EQ(client(proxy, "203.0.113.7, "), "-");
  EXPECT_EQ(client(ip::make_address("192.0.2.9"), "203.0.113.7"), "-") << "an untrusted peer names nobody";
}

// A TCP proxy's PROXY header names the client; a proxy's own health check
// (LOCAL, UNKNOWN) names nobody, and anything else is refused.
TEST(ServerUnit, ProxyProtocolHeadersNameTheClient) {
  using Status = ProxyHeader::Status;
  auto v2 = [](unsigned char command, unsigned char family, std::string addresses, std::string extra = {}) {
    std::string h("\r\n\r\n\0\r\nQUIT\n", 12);
    const std::size_t rest = addresses.size() + extra.size();
    h += static_cast<char>(0x20 | command);
    h += static_cast<char>(family);
    h += static_cast<char>(rest >> 8);
    h += static_cast<char>(rest & 0xff);
    return h + addresses + extra;
  };
  const std::string v4_pair("\xcb\x00\x71\x07" "\xc0\x00\x02\x01" "\x9c\xb0" "\x01\xbb", 12);  // 203.0.113.7:40112 -> 192.0.2.1:443
  std::string v6_pair(36, '\0');
  v6_pair[0] = '\x20', v6_pair[1] = '\x01', v6_pair[2] = '\x0d', v6_pair[3] = '\xb8', v6_pair[15] = '\x07';  // 2001:db8::7
  const std::string tlv("\x04\x00\x02" "ab", 5);  // an optional field: skipped
  const std::string hello("\x16\x03\x01\x02\x00", 5);  // what follows: the client's TLS handshake

  struct Case {
    std::string bytes;
    Status status;
    std::string client;  // "-": none
    std::size_t length;
  };
  const std::string v1 = "PROXY TCP4 203.0.113.7 192.0.2.1 40112 443\r\n";
  for (const auto& c : std::vector<Case>{
           {v1 + hello, Status::Complete, "203.0.113.7", v1.size()},
           {"PROXY TCP6 2001:db8::7 2001:db8::1 40112 443\r\n", Status::Complete, "2001:db8::7", 46},
           {"PROXY TCP6 ::ffff:203.0.113.7 ::1 1 2\r\n", Status::Complete, "203.0.113.7", 39},
           {"PROXY UNKNOWN\r\n", Status::Complete, "-", 15},
           {"PROXY UNKNOWN whatever follows\r\n", Status::Complete, "-", 32},
           {v2(1, 0x11, v4_pair) + hello, Status::Complete, "203.0.113.7", 28},
           {v2(1, 0x11, v4_pair, tlv), Status::Complete, "203.0.113.7", 33},
           {v2(1, 0x21, v6_pair), Status::Complete, "2001:db8::7", 52},
           {v2(0, 0x00, ""), Status::Complete, "-", 16},          // LOCAL: the proxy's own check
           {v2(0, 0x11, v4_pair), Status::Complete, "-", 28},     // LOCAL ignores its addresses
           {v2(1, 0x00, ""), Status::Complete, "-", 16},          // AF_UNSPEC
           {"", Status::Incomplete, "-", 0},
           {"PROX", Status::Incomplete, "-", 0},
           {v1.substr(0, v1.size() - 1), Status::Incomplete, "-", 0},
           {v2(1, 0x11, v4_pair).substr(0, 10), Status::Incomplete, "-", 0},
           {v2(1, 0x11, v4_pair).substr(0, 20), Status::Incomplete, "-", 0},
           {hello, Status::Bad, "-", 0},                          // no header: a client that came directly
           {"GET / HTTP/1.1\r\n", Status::Bad, "-", 0},
           {"PROXY TCP4 203.0.113.7 192.0.2.1 40112\r\n", Status::Bad, "-", 0},
           {"PROXY TCP4 2001:db8::7 192.0.2.1 1 2\r\n", Status::Bad, "-", 0},
           {"PROXY TCP4 203.0.113.777 192.0.2.1 1 2\r\n", Status::Bad, "-", 0},
           {"PROXY TCP4 203.0.113.7 192.0.2.1 65536 2\r\n", Status::Bad, "-", 0},
           {"PROXY TCP4 203.0.113.7 192.0.2.1 -1 2\r\n", Status::Bad, "-", 0},
           {"PROXY TCP4  203.0.113.7 192.0.2.1 1 2\r\n", Status::Bad, "-", 0},
           {"PROXY UDP4 203.0.113.7 192.0.2.1 1 2\r\n", Status::Bad, "-", 0},
           {"PROXY UNKNOWN " + std::string(100, 'x'), Status::Bad, "-", 0},  // no CRLF within 107 bytes
           {v2(2, 0x11, v4_pair), Status::Bad, "-", 0},
           {v2(1, 0x11, v4_pair.substr(0, 8)), Status::Bad, "-", 0},
           {v2(1, 0x21, v4_pair), Status::Bad, "-", 0},
           {v2(1, 0x41, v4_pair), Status::Bad, "-", 0},
           {v2(1, 0x11, v4_pair, std::string(5000, 'x')), Status::Bad, "-", 0},
           {std::string("\r\n\r\n\0\r\nQUIT\n\x11\x11\x00\x0c", 16), Status::Bad, "-", 0},  // version 1 in a version 2 signature
       }) {
    const auto h = parse_proxy_header(c.bytes);
    EXPECT_EQ(h.status, c.status) << ::testing::PrintToString(c.bytes) << ": " << h.error;
    EXPECT_EQ(h.client ? h.client->to_string() : "-", c.client) << ::testing::PrintToString(c.bytes);
    EXPECT_EQ(h.length, c.length) << ::testing::PrintToString(c.bytes);
    EXPECT_EQ(h.error.empty(), c.status != Status::Bad) << ::testing::PrintToString(c.bytes);
  }
}

// A trusted proxy's connections count only towards the total, and each client
// it forwards only towards its own address's share.
TEST(ServerUnit, ConnectionCapsCountAProxysClientsByTheirAddress) {
  namespace ip = boost::asio::ip;
  std::string err;
  auto proxies = TrustedProxies::parse("10.0.0.5", err);
  ASSERT_TRUE(proxies) << err;
  ConnectionCaps caps(3, 1, *proxies);
  const auto proxy = ip::make_address("10.0.0.5");
  auto a = caps.admit(proxy), b = caps.admit(proxy);
  ASSERT_TRUE(a && b) << "a proxy is not held to one address's share";
  auto fa = caps.admit_forwarded(ip::make_address("203.0.113.7"));
  ASSERT_TRUE(fa);
  EXPECT_FALSE(caps.admit_forwarded(ip::make_address("203.0.113.7"))) << "a second from one client";
  EXPECT_FALSE(caps.admit(ip::make_address("203.0.113.7"))) << "nor directly";
  EXPECT_TRUE(caps.admit_forwarded(ip::make_address("127.0.0.1"))) << "loopback is not counted by address";
  EXPECT_EQ(caps.open(), 2) << "forwarded clients ride on their proxy's connections";
  fa.reset();
  EXPECT_TRUE(caps.admit_forwarded(ip::make_address("203.0.113.7")));
  auto c = caps.admit(proxy);
  ASSERT_TRUE(c);
  EXPECT_FALSE(caps.admit(proxy)) << "the total holds for a proxy too";
}

// Attempts under way hold a place, so that many begun at once cannot all pass
// before the first is counted; one that ends uncounted gives its place back.
TEST(ServerUnit, RecentAttemptsHoldPlacesForAttemptsUnderWay) {
  RecentAttempts limits(3, std::chrono::seconds(60));
  EXPECT_TRUE(limits.begin("a"));
  EXPECT_TRUE(limits.begin("a"));
  EXPECT_TRUE(limits.begin("a"));
  EXPECT_FALSE(limits.begin("a")) << "three under way";
  EXPECT_TRUE(limits.take("b")) << "another key has its own share";
  limits.end("a", false);
  EXPECT_TRUE(limits.begin("a")) << "an uncounted end gives its place back";
  for (int i = 0; i < 3; ++i) limits.end("a", true);
  EXPECT_FALSE(limits.begin("a")) << "three counted in the window";
  EXPECT_FALSE(limits.take("a"));
  EXPECT_TRUE(limits.take("b"));
  EXPECT_TRUE(limits.take("b"));
  EXPECT_FALSE(limits.take("b"));
}

// A server that had rated games before the side records gets each scenario's
// from them: only games that moved ratings, a draw half a point.
TEST(ServerUnit, TheSideRecordsMigrationCountsTheRatedGamesBeforeIt) {
  const std::string dir = make_temp_dir("sides");
  std::string err;
  Db db(dir + "/db.sqlite", true, err);
  ASSERT_TRUE(db.ok()) << err;
  std::string last;
  for (const auto& [name, sql] : embedded_migrations()) {
    if (name.starts_with("020_")) {
      last = sql;
      break;
    }
    db.exec(sql);
  }
  ASSERT_FALSE(last.empty());
  db.exec("INSERT INTO users (id, name, password_hash, created_unix) VALUES (1, 'alice', '', 0), (2, 'bob', '', 0)");
  auto game = [&](const std::string& id, const std::string& result, bool rated, bool moved) {
    db.prepare("INSERT INTO games (id, scenario, options, seed, seed_commitment, creator_id, soviet_id, german_id, private,"
               " invite_code, status, result, created_unix, updated_unix, rated)"
               " VALUES (?, 'counterattack', '', x'00', '', 1, 1, 2, 0, '', 'finished', ?, 0, 0, ?)")
        .run(id, result, rated ? 1 : 0);
    if (moved) {
      db.prepare("INSERT INTO rating_changes (game_id, user_id, before, after) VALUES (?, 1, 1500, 1500)").run(id);
    }
  };
  game("g1", "Soviet victory", true, true);
  game("g2", "German victory", true, true);
  game("g3", "Draw", true, true);
  game("g4", "Soviet victory", false, false);  // casual
  game("g5", "Aborted", true, false);          // ended before a first move: rated nothing
  db.exec(last);
  auto& q = db.prepare("SELECT games, soviet_points FROM side_records WHERE scenario = 'counterattack'");
  q.bind_all();
  ASSERT_TRUE(q.step());
  EXPECT_EQ(q.integer(0), 3);
  EXPECT_DOUBLE_EQ(q.real(1), 1.5);
  q.reset();
  std::filesystem::remove_all(dir);
}

TEST(ServerUnit, StorageAppliesMigrationsOnceAndCommitsInGroups) {
  const std::string dir = make_temp_dir("storage");
  std::string err;
  {
    auto s = Storage::open(dir + "/db.sqlite", "full", err);
    ASSERT_TRUE(s) << err;
    // The number of the last migration: the numbers may have gaps.
    EXPECT_EQ(s->schema_version(), std::stoi(embedded_migrations().back().first.substr(0, 3)));
    // Many writers at once: every write commits, callbacks keep each writer's order, batches are shared.
    constexpr int kThreads = 4, kEach = 500;
    std::atomic<int> done{0};
    std::vector<std::vector<int>> seen(kThreads);
    std::mutex mu;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < kEach; ++i) {
          s->write(
              [t, i](Db& db) {
                db.prepare("INSERT INTO users (name, password_hash, created_unix) VALUES (?, 'x', 0)")
                    .run("u" + std::to_string(t) + "_" + std::to_string(i));
              },
              [&, t, i](bool ok) {
                EXPECT_TRUE(ok);
                std::lock_guard l(mu);
                seen[static_cast<size_t>(t)].push_back(i);
                ++done;
              });
        }
      });
    }
    for (auto& th : threads) th.join();
    // A failing write is undone alone; the batch around it commits.
    std::atomic<int> failed{0};
    s->write([](Db& db) { db.prepare("INSERT INTO users (name, password_hash, created_unix) VALUES ('u0_0', 'x', 0)").run(); },
             [&](bool ok) { failed += ok ? 0 : 1; });
    std::promise<void> barrier;
    s->write({}, [&](bool) { barrier.set_value(); });
    barrier.get_future().wait();
    EXPECT_EQ(done.load(), kThreads * kEach);
    EXPECT_EQ(failed.load(), 1);
    for (const auto& v : seen) EXPECT_TRUE(std::is_sorted(v.begin(), v.end()));
    EXPECT_LT(s->batches(), static_cast<std::uint64_t>(kThreads * kEach));  // grouped
    const auto count = s->read([](Db& db) {
      auto& q = db.prepare("SELECT COUNT(*) FROM users");
      q.bind_all();
      std::int64_t n = 0;
      while (q.step()) n = q.integer(0);
      return n;
    });
    EXPECT_EQ(count, kThreads * kEach);
  }
  {
    auto s = Storage::open(dir + "/db.sqlite", "full", err);  // reopening applies nothing again
    ASSERT_TRUE(s) << err;
    const auto mode = s->read([](Db& db) {
      auto& q = db.prepare("PRAGMA journal_mode");
      q.bind_all();
      std::string m;
      while (q.step()) m = q.text(0);
      return m;
    });
    EXPECT_EQ(mode, "wal");
  }
  std::filesystem::remove_all(dir);
}

// A failed commit loses its whole batch. A write queued before its callbacks
// have run (a game's next order, resting on one that was lost) is refused too,
// never committed over the gap; once they have run, writes commit again.
TEST(ServerUnit, StorageCommitsNothingOverAFailedCommitUntilItIsReported) {
  const std::string dir = make_temp_dir("failed-commit");
  std::string err;
  auto s = Storage::open(dir + "/db.sqlite", "full", err);
  ASSERT_TRUE(s) << err;
  auto insert_user = [](const std::string& name) {
    return [name](Db& db) { db.prepare("INSERT INTO users (name, password_hash, created_unix) VALUES (?, 'x', 0)").run(name); };
  };
  auto users = [&] {
    return s->read([](Db& db) {
      auto& q = db.prepare("SELECT name FROM users ORDER BY name");
      q.bind_all();
      std::vector<std::string> names;
      while (q.step()) names.push_back(q.text(0));
      return names;
    });
  };
  std::promise<void> first_ran, report;
  std::shared_future<void> reported = report.get_future().share();
  std::atomic<int> first_ok{-1};
  std::promise<bool> next_ok;
  // A foreign key checked only at COMMIT makes the commit itself fail.
  s->write(
      [&](Db& db) {
        insert_user("lost")(db);
        db.exec("PRAGMA defer_foreign_keys = ON");
        db.prepare("INSERT INTO snapshots (game_id, version, state, dice) VALUES ('no such game', 1, x'', x'')").run();
        first_ran.set_value();
      },
      [&](bool ok) {
        reported.wait();  // the syncer reports the failure only when the test says so
        first_ok = ok;
      });
  first_ran.get_future().wait();
  s->write(insert_user("next"), [&](bool ok) { next_ok.set_value(ok); });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // time enough for the writer to take it, were it not held
  EXPECT_TRUE(users().empty());
  report.set_value();
  EXPECT_FALSE(next_ok.get_future().get());  // reported after the failure: the hold is over
  std::promise<bool> after;
  s->write(insert_user("after"), [&](bool ok) { after.set_value(ok); });
  EXPECT_TRUE(after.get_future().get());
  EXPECT_EQ(first_ok.load(), 0);
  EXPECT_EQ(users(), std::vector<std::string>{"after"});
  s.reset();
  std::filesystem::remove_all(dir);
}

// With synchronous = full a write is reported done only after a flush of the
// WAL that began after it was queued; with normal nothing is flushed.
TEST(ServerUnit, StorageReportsWritesDoneOnlyOnceTheWalIsOnDisk) {
  const std::string dir = make_temp_dir("durable");
  std::string err;
  for (const std::string mode : {"full", "normal"}) {
    auto s = Storage::open(dir + "/" + mode + ".sqlite", mode, err);
    ASSERT_TRUE(s) << err;
    constexpr int kWrites = 300;
    std::atomic<int> flushed_first{0};
    std::promise<void> all;
    for (int i = 0; i < kWrites; ++i) {
      const auto syncs_before = s->syncs();
      s->write(
          [i](Db& db) {
            db.prepare("INSERT INTO users (name, password_hash, created_unix) VALUES (?, 'x', 0)").run("d" + std::to_string(i));
          },
          [&, syncs_before, i](bool ok) {
            EXPECT_TRUE(ok);
            if (s->syncs() > syncs_before) ++flushed_first;
            if (i == kWrites - 1) all.set_value();
          });
    }
    all.get_future().wait();
    if (mode == "full") {
      EXPECT_EQ(flushed_first.load(), kWrites);
      EXPECT_LT(s->syncs(), static_cast<std::uint64_t>(kWrites));  // one flush serves many writes
    } else {
      EXPECT_EQ(s->syncs(), 0u);
    }
  }
  std::filesystem::remove_all(dir);
}

// What SQLite's integrity check says of a database: "ok" when it reads back whole.
std::string integrity_of(Db& db) {
  auto& q = db.prepare("PRAGMA integrity_check");
  q.bind_all();
  std::string verdict;
  while (q.step()) verdict += q.text(0);
  return verdict;
}

// The writer's connection hands SQLite's WAL writes to the kernel gathered,
// one run per commit. A reader on another thread must find every commit it
// sees whole in the file, through transactions larger than a run, pages
// spilled from a small cache and written again, the log restarting after
// checkpoints, and a database opened without powersafe overwrite (where SQLite
// would pad commits); the database must check whole afterwards, and Storage's
// writer must gather too.
TEST(ServerUnit, GatheredWalWritesAreInTheFileBeforeAnotherConnectionSeesTheCommit) {
  const std::string dir = make_temp_dir("gathering");
  std::string err;
  auto blob_of = [](std::int64_t round, std::int64_t size) {
    std::string b(static_cast<size_t>(size), '\0');
    for (std::int64_t i = 0; i < size; ++i) b[static_cast<size_t>(i)] = static_cast<char>((round * 31 + i * 7) & 0xff);
    return b;
  };
  auto rows_of = [](Db& db) {
    auto& q = db.prepare("SELECT round, size, body, touched FROM t ORDER BY round");
    q.bind_all();
    std::vector<std::tuple<std::int64_t, std::int64_t, std::string, std::int64_t>> rows;
    while (q.step()) rows.emplace_back(q.integer(0), q.integer(1), q.blob(2), q.integer(3));
    return rows;
  };
  constexpr int kRounds = 40;
  for (const std::string name : {"plain.sqlite", "padded.sqlite"}) {
    const std::string path = dir + "/" + name;
    const std::string open_as = name == "plain.sqlite" ? path : "file:" + path + "?psow=0";
    const auto before = gathering_vfs_stats();
    {
      Db writer(open_as, true, err, gathering_vfs());
      ASSERT_TRUE(writer.ok()) << err;
      writer.exec("PRAGMA journal_mode=WAL");
      writer.exec("PRAGMA synchronous=FULL");
      writer.exec("PRAGMA checkpoint_fullfsync=ON");
      writer.exec("PRAGMA wal_autocheckpoint=0");
      writer.exec("PRAGMA cache_size=8");  // pages: a large transaction spills before its commit
      writer.exec("CREATE TABLE t (round INTEGER PRIMARY KEY, size INTEGER, body BLOB, touched INTEGER)");
      std::atomic<bool> done{false}, hold{false}, holding{false};  // a restart waits for readers to stand aside
      std::atomic<bool> failed{false};
      std::atomic<int> reads{0};
      std::thread reader([&] {
        std::string why;
        Db db(path, false, why);
        failed = !db.ok();
        EXPECT_FALSE(failed) << why;
        while (!done && !failed) {
          holding = hold.load();
          if (holding) {
            std::this_thread::yield();
            continue;
          }
          try {
            const auto rows = rows_of(db);
            const auto n = static_cast<std::int64_t>(rows.size());
            for (const auto& [r, sz, body, touched] : rows) {
              if (body != blob_of(r, sz) || touched != n - r + 2) {
                ADD_FAILURE() << name << ": round " << r << " read wrong with " << n << " rounds committed";
                failed = true;
                break;
              }
            }
            ++reads;
          } catch (const DbError& e) {
            ADD_FAILURE() << name << ": " << e.what();
            failed = true;
          }
        }
      });
      Db checkpointer(path, false, err);
      ASSERT_TRUE(checkpointer.ok()) << err;
      checkpointer.exec("SELECT count(*) FROM sqlite_master");  // a connection checkpoints once it has read
      for (int round = 1; round <= kRounds; ++round) {
        const int size = round % 4 == 0 ? 300000 : 100 * round;  // some far past one run of writes
        writer.exec("BEGIN IMMEDIATE");
        writer.prepare("INSERT INTO t (round, size, body, touched) VALUES (?, ?, ?, 0)").run(round, size, Blob{blob_of(round, size)});
        writer.prepare("UPDATE t SET touched = touched + 1").run();  // pages written earlier in this transaction, again
        writer.prepare("UPDATE t SET touched = touched + 1 WHERE round = ?").run(round);
        writer.exec("COMMIT");
        if (round % 10 == 0) {
          hold = true;
          while (!holding && !failed) std::this_thread::yield();
          EXPECT_GE(checkpointer.checkpoint(SQLITE_CHECKPOINT_RESTART), 0);  // the writer starts the log afresh
          hold = false;
        }
      }
      const int so_far = reads;
      while (reads < so_far + 2 && !failed) std::this_thread::yield();  // a whole read after the last commit
      done = true;
      reader.join();
    }
    const auto after = gathering_vfs_stats();
    EXPECT_LT(2 * (after.made - before.made), after.asked - before.asked) << name << ": the writes were gathered";
    Db check(path, false, err);
    ASSERT_TRUE(check.ok()) << err;
    EXPECT_EQ(integrity_of(check), "ok") << name;
    EXPECT_EQ(rows_of(check).size(), static_cast<size_t>(kRounds)) << name;
  }

  const auto before = gathering_vfs_stats();
  {
    auto s = Storage::open(dir + "/storage.sqlite", "full", err);
    ASSERT_TRUE(s) << err;
    std::promise<void> all;
    for (int i = 0; i < 100; ++i) {
      s->write([i](Db& db) { db.prepare("INSERT INTO users (name, password_hash, created_unix) VALUES (?, 'x', 0)").run("g" + std::to_string(i)); },
               [&, i](bool ok) {
                 EXPECT_TRUE(ok);
                 if (i == 99) all.set_value();
               });
    }
    all.get_future().wait();
  }
  const auto after = gathering_vfs_stats();
  EXPECT_LT(2 * (after.made - before.made), after.asked - before.asked) << "Storage's writer gathers";
  std::filesystem::remove_all(dir);
}

// A transaction too large for the page cache writes frames to the WAL before its
// commit; rolled back, those frames are nothing. Gathered and never written, they
// must not reach the file later, over frames another process has since committed
// there (the operator's commands write beside the server).
TEST(ServerUnit, GatheredWalWritesOfARolledBackTransactionNeverReachTheFile) {
  const std::string dir = make_temp_dir("gathering-rollback");
  const std::string path = dir + "/db.sqlite";
  std::string err;
  Db writer(path, true, err, gathering_vfs());
  ASSERT_TRUE(writer.ok()) << err;
  writer.exec("PRAGMA journal_mode=WAL");
  writer.exec("PRAGMA synchronous=FULL");
  writer.exec("PRAGMA wal_autocheckpoint=0");
  writer.exec("PRAGMA cache_size=8");  // pages: the large transaction below spills before it ends
  writer.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB)");
  writer.exec("INSERT INTO t (body) VALUES (zeroblob(100))");
  writer.exec("BEGIN IMMEDIATE");
  writer.exec("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40)"
              " INSERT INTO t (body) SELECT randomblob(1000) FROM n");
  writer.exec("ROLLBACK");

  {  // Another connection, through the plain VFS, commits where those frames would have been.
    Db other(path, false, err);
    ASSERT_TRUE(other.ok()) << err;
    other.exec("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 80)"
               " INSERT INTO t (body) SELECT zeroblob(500) FROM n");
  }
  auto& count = writer.prepare("SELECT count(*), sum(length(body)) FROM t");  // the writer reads the WAL again
  count.bind_all();
  std::int64_t rows = 0, bytes = 0;
  while (count.step()) rows = count.integer(0), bytes = count.integer(1);
  EXPECT_EQ(rows, 81);
  EXPECT_EQ(bytes, 100 + 80 * 500);
  writer.exec("INSERT INTO t (body) VALUES (zeroblob(1))");

  Db check(path, false, err);
  ASSERT_TRUE(check.ok()) << err;
  EXPECT_EQ(integrity_of(check), "ok");
  auto& n = check.prepare("SELECT count(*) FROM t WHERE length(body) = 500");
  n.bind_all();
  std::int64_t theirs = 0;
  while (n.step()) theirs = n.integer(0);
  EXPECT_EQ(theirs, 80) << "the other connection's rows are whole";
  std::filesystem::remove_all(dir);
}

// CPU time, in clock ticks, of this process's threads with any of the given names.
long thread_ticks(std::initializer_list<std::string_view> names) {
  long ticks = 0;
  for (const auto& t : std::filesystem::directory_iterator("/proc/self/task")) {
    std::string comm;
    std::ifstream(t.path() / "comm") >> comm;
    if (std::find(names.begin(), names.end(), comm) == names.end()) continue;
    std::ifstream stat(t.path() / "stat");
    std::string line;
    std::getline(stat, line);
    std::istringstream rest(line.substr(line.rfind(')') + 2));
    std::string field;
    long utime = 0, stime = 0;
    for (int i = 3; i <= 13; ++i) rest >> field;  // state .. cmajflt
    rest >> utime >> stime;
    ticks += utime + stime;
  }
  return ticks;
}

// The writer and the syncer may give way briefly before sleeping, while writes
// keep coming; once they stop coming, both sleep and an idle server uses no CPU.
TEST(ServerUnit, StorageThreadsSleepWhenNoWritesCome) {
  const std::string dir = make_temp_dir("idle");
  std::string err;
  auto s = Storage::open(dir + "/db.sqlite", "full", err);
  ASSERT_TRUE(s) << err;
  for (int i = 0; i < 200; ++i) {
    std::promise<void> done;
    s->write([i](Db& db) { db.prepare("INSERT INTO users (name, password_hash, created_unix) VALUES (?, 'x', 0)").run("i" + std::to_string(i)); },
             [&](bool ok) {
               EXPECT_TRUE(ok);
               done.set_value();
             });
    done.get_future().wait();
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const long before = thread_ticks({"ca-writer", "ca-sync"});
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const long used = thread_ticks({"ca-writer", "ca-sync"}) - before;
  EXPECT_LE(used, 5) << "clock ticks used by the idle writer and syncer in half a second";
  s.reset();
  std::filesystem::remove_all(dir);
}

// Under steady writes the WAL is checkpointed and reused from its start, so it
// stays far smaller than everything written through it. The same rows are
// rewritten over and over, as each game's last page of orders is in play, so
// the database stays small while the WAL carries about 600 MB.
TEST(ServerUnit, StorageKeepsTheWalBoundedUnderSteadyWrites) {
  const std::string dir = make_temp_dir("wal");
  std::string err;
  auto s = Storage::open(dir + "/db.sqlite", "normal", err);
  ASSERT_TRUE(s) << err;
  constexpr int kRounds = 1500, kEach = 100;
  const std::size_t row_bytes = 4000;
  for (int r = 0; r < kRounds; ++r) {
    const std::string filler(row_bytes, static_cast<char>('a' + r % 26));
    for (int i = 0; i < kEach; ++i) {
      s->write(
          [&filler, r, i](Db& db) {
            const std::string name = "u" + std::to_string(i);
            if (r == 0) {
              db.prepare("INSERT INTO users (name, password_hash, created_unix) VALUES (?, ?, 0)").run(name, filler);
            } else {
              db.prepare("UPDATE users SET password_hash = ? WHERE name = ?").run(filler, name);
            }
          },
          [](bool ok) { EXPECT_TRUE(ok); });
    }
    std::promise<void> committed;
    s->write({}, [&](bool) { committed.set_value(); });
    committed.get_future().wait();
  }
  const auto written = static_cast<std::uintmax_t>(kRounds) * kEach * row_bytes;
  EXPECT_LT(std::filesystem::file_size(dir + "/db.sqlite-wal"), written / 3);
  s.reset();
  std::filesystem::remove_all(dir);
}

// The seed is the dice generator's state: the same seed and orders give the
// same game, and a snapshot (state + dice) continues it exactly, in every
// revision of the rules (a game keeps the one it began with).
void replays_from_seed_and_snapshot(const Ruleset& ruleset, int revision) {
  const Ruleset* rules = &ruleset;
  Seed seed{};
  for (size_t i = 0; i < seed.size(); ++i) seed[i] = static_cast<std::uint8_t>(i * 37 + 11);
  auto a = rules->create({"red_army_flexibility"}, seed, revision, nullptr);
  auto b = rules->create({"red_army_flexibility"}, seed, revision, nullptr);
  testing::Bot bots[2] = {testing::Bot(game::SOVIET, default_scenario()), testing::Bot(game::GERMAN, default_scenario())};
  std::unique_ptr<Match> restored;
  int accepted = 0;
  for (int i = 0; i < 3000 && !a->over(); ++i) {
    const auto side = a->decider();
    auto& bot = bots[side == game::SOVIET ? 0 : 1];
    auto order = bot.next(a->view(side == game::SOVIET ? game::VIEWER_SOVIET : game::VIEWER_GERMAN));
    ASSERT_TRUE(order);
    // The other side may never act now.
    const auto other = side == game::SOVIET ? game::GERMAN : game::SOVIET;
    const auto before = a->state_hash();
    const auto wrong = a->apply(other, *order);
    EXPECT_FALSE(wrong.accepted);
    EXPECT_EQ(wrong.rejection.code(), game::NOT_YOUR_DECISION);
    EXPECT_EQ(a->state_hash(), before);
    const auto r = a->apply(side, *order);
    bot.result(r.accepted, r.rejection.reason());
    const auto r2 = b->apply(side, *order);
    ASSERT_EQ(r.accepted, r2.accepted);
    if (restored) {
      ASSERT_EQ(restored->apply(side, *order).accepted, r.accepted);
    }
    if (r.accepted && ++accepted == 150) restored = rules->restore(a->encode_state(), a->encode_dice());
    ASSERT_EQ(a->state_hash(), b->state_hash());
    if (restored) {
      ASSERT_EQ(a->state_hash(), restored->state_hash());
    }
  }
  EXPECT_TRUE(a->over()) << "the bots did not finish a game";
  ASSERT_TRUE(restored);
  EXPECT_TRUE(MessageDifferencer::Equals(a->view(game::VIEWER_OMNISCIENT), restored->view(game::VIEWER_OMNISCIENT)));
  EXPECT_FALSE(a->result().empty());
}

TEST(ServerUnit, RulesetReplaysFromSeedAndFromSnapshot) {
  auto rules = make_counterattack_ruleset();
  EXPECT_EQ(rules->check_options({"red_army_flexibility"}), "");
  EXPECT_NE(rules->check_options({"no_such_rule"}), "");
  EXPECT_NE(rules->check_options({"limited_bonus", "limited_bonus"}), "");
  for (int revision = 1; revision <= rules->latest_revision(); ++revision) {
    SCOPED_TRACE("revision " + std::to_string(revision));
    replays_from_seed_and_snapshot(*rules, revision);
  }
  EXPECT_EQ(rules->restore("garbage", std::string(32, 'x')), nullptr);
}

// Revision 2 rolls ChaCha20's dice: from one seed, other dice than revision 1's
// xoshiro256**, and a state that a snapshot carries on.
TEST(ServerUnit, EachRevisionRollsItsOwnGeneratorsDice) {
  auto rules = make_counterattack_ruleset();
  ASSERT_EQ(rules->latest_revision(), 6);
  Seed seed{};
  for (size_t i = 0; i < seed.size(); ++i) seed[i] = static_cast<std::uint8_t>(i + 1);
  auto one = rules->create({}, seed, 1, nullptr);
  auto two = rules->create({}, seed, 2, nullptr);
  // The set-up draws the first chits: the generators part at once.
  EXPECT_NE(one->encode_dice(), two->encode_dice());
  EXPECT_NE(one->encode_state(), two->encode_state());
  auto again = rules->restore(two->encode_state(), two->encode_dice());
  ASSERT_TRUE(again);
  EXPECT_EQ(again->encode_dice(), two->encode_dice());
}

// Glickman's own example ("Example of the Glicko-2 system"): a 1500 player,
// deviation 200, beats a 1400 (30) and loses to a 1550 (100) and a 1700 (300).
TEST(ServerUnit, Glicko2MatchesGlickmansWorkedExample) {
  const glicko2::Rating player{1500, 200, 0.06};
  const auto r = glicko2::rate(player, {{{1400, 30, 0.06}, 1}, {{1550, 100, 0.06}, 0}, {{1700, 300, 0.06}, 0}}, 0.5);
  // The paper rounds its steps and prints 1464.06 and 151.52; unrounded, these.
  EXPECT_NEAR(r.rating, 1464.0507, 0.001);
  EXPECT_NEAR(r.deviation, 151.5165, 0.001);
  EXPECT_NEAR(r.volatility, 0.05999, 0.00001);
}

TEST(ServerUnit, Glicko2TimeAwayWidensTheDeviationOnly) {
  const glicko2::Rating player{1620, 60, 0.06};
  const auto later = glicko2::idle(player, 10);
  EXPECT_EQ(later.rating, 1620);
  EXPECT_EQ(later.volatility, 0.06);
  EXPECT_NEAR(later.deviation, std::sqrt(60.0 * 60 + 10 * (0.06 * 173.7178) * (0.06 * 173.7178)), 1e-9);
  // A period without games is the same as time away for one period.
  EXPECT_NEAR(glicko2::rate(player, {}, 0.5).deviation, glicko2::idle(player, 1).deviation, 1e-9);
}

TEST(ServerUnit, RatingsAreProvisionalAboveADeviationOf110) {
  EXPECT_TRUE(Ratings::to_wire({1500, 110.6, 0.06}).provisional());
  EXPECT_FALSE(Ratings::to_wire({1500, 110, 0.06}).provisional());
  const auto w = Ratings::to_wire({1523.5, 87.4, 0.06});
  EXPECT_EQ(w.rating(), 1524);
  EXPECT_EQ(w.deviation(), 87);
}

}  // namespace
}  // namespace counterattack::server
