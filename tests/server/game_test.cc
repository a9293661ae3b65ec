// A complete game between two real clients over TLS, watched by a spectator;
// the revealed seed replays every die, through the moves the players took back.
#include <google/protobuf/util/message_differencer.h>

#include <tuple>

#include "engine.h"
#include "fixture.h"
#include "view_delta.h"

namespace counterattack::server::testing {
namespace {

using google::protobuf::util::MessageDifferencer;

class ServerGame : public ServerTest {};

TEST_F(ServerGame, TwoClientsPlayACompleteGameAndTheSeedReplaysEveryDie) {
  auto alice = user("alice"), bob = user("bob");
  auto watcher = connect();  // spectators need no account
  ASSERT_TRUE(alice && bob && watcher);
  auto created = alice->create_game(wire::CHOOSE_SOVIET);
  ASSERT_TRUE(created.has_game_created()) << created.DebugString();
  const auto& summary = created.game_created().game();
  const std::string id = summary.game_id();
  const std::string commitment = summary.seed_commitment();
  EXPECT_EQ(commitment.size(), 64u);
  EXPECT_EQ(summary.status(), "open");
  EXPECT_EQ(summary.your_side(), "soviet");

  wire::ClientMessage list;
  list.mutable_list_games();
  auto open = bob->request(list);
  ASSERT_TRUE(open.has_game_list());
  ASSERT_EQ(open.game_list().games_size(), 1);
  EXPECT_EQ(open.game_list().games(0).game_id(), id);
  auto joined = bob->join(id);
  ASSERT_TRUE(joined.has_game()) << joined.DebugString();
  EXPECT_EQ(joined.game().status(), "playing");
  EXPECT_EQ(joined.game().soviet(), "alice");
  EXPECT_EQ(joined.game().german(), "bob");

  Player soviet(*alice, id, game::SOVIET), german(*bob, id, game::GERMAN), spectator(*watcher, id, game::SIDE_UNSPECIFIED);
  for (auto* p : {&soviet, &german, &spectator}) {
    auto w = p->client.watch(id);
    ASSERT_TRUE(w.has_game()) << w.DebugString();
    p->absorb();
    ASSERT_EQ(p->snapshots, 1);
    ASSERT_EQ(p->version, 0);
  }
  EXPECT_EQ(soviet.view.viewer(), game::VIEWER_SOVIET);
  EXPECT_EQ(spectator.view.viewer(), game::VIEWER_SPECTATOR);

  // The players take back one move in four: the log holds those takebacks, and replays through them.
  const PlayStats st = play(soviet, german, &spectator, 20000, "k", 4);
  ASSERT_FALSE(HasFailure());
  EXPECT_TRUE(st.over);
  EXPECT_GT(st.moves, 0);
  EXPECT_GT(st.takebacks, 0);
  for (auto* p : {&soviet, &german, &spectator}) {
    EXPECT_TRUE(p->problems.empty()) << p->problems.front();
    EXPECT_EQ(p->version, st.version);
  }

  // The end: everyone watching hears the result and the seed, which matches the commitment.
  std::string seed_hex;
  for (auto* c : {alice.get(), bob.get(), watcher.get()}) {
    auto ended = c->wait_for([](const wire::ServerMessage& m) { return m.has_game_ended(); });
    ASSERT_TRUE(ended);
    EXPECT_FALSE(ended->game_ended().result().empty());
    seed_hex = ended->game_ended().seed_hex();
  }
  ASSERT_EQ(seed_hex.size(), 64u);
  EXPECT_EQ(sha256_hex(from_hex(seed_hex)), commitment);

  // After the end the players see everything, at the version their deltas reached.
  for (auto* p : {&soviet, &german}) {
    Player fresh(p->client, id, p->side);
    const auto watched = p->client.watch(id);
    ASSERT_TRUE(watched.has_game());
    EXPECT_EQ(watched.game().your_side(), p->side == game::SOVIET ? "soviet" : "german") << "still told their side";
    fresh.absorb();
    ASSERT_EQ(fresh.version, p->version);
    EXPECT_EQ(fresh.view.viewer(), game::VIEWER_OMNISCIENT) << "side " << p->side;
  }
  // And so does a spectator.
  ASSERT_TRUE(watcher->watch(id).has_game());
  Player after(*watcher, id, game::SIDE_UNSPECIFIED);
  after.absorb();
  EXPECT_EQ(after.view.viewer(), game::VIEWER_OMNISCIENT);

  // The log, open to all now, replays with the seed: every event (dice included) and the final state.
  wire::ClientMessage get;
  get.mutable_get_log()->set_game_id(id);
  auto log = watcher->request(get);
  ASSERT_TRUE(log.has_game_log()) << log.DebugString();
  const auto& gl = log.game_log();
  EXPECT_EQ(gl.seed_hex(), seed_hex);
  ASSERT_EQ(gl.orders_size(), st.version);
  // A new game plays the latest revision of the rules: ChaCha20's dice.
  EXPECT_EQ(gl.rules_revision(), kLatestRevision);
  const Engine engine(default_scenario());
  auto [s, dice] = audit_start(engine, gl);
  int rolls = 0;
  for (const auto& lo : gl.orders()) {
    ASSERT_TRUE(MessageDifferencer::Equals(lo.order(), st.orders.at(lo.version())));
    Order o;
    Rejection why;
    ASSERT_TRUE(engine.from_proto(lo.order(), o, why)) << why.reason;
    const Outcome out = engine.apply(s, lo.side() == game::SOVIET ? Side::Soviet : Side::German, o, dice);
    ASSERT_TRUE(out.accepted) << "version " << lo.version() << ": " << out.rejection.reason;
    ASSERT_EQ(static_cast<int>(out.events.size()), lo.events_size());
    for (int i = 0; i < lo.events_size(); ++i) {
      ASSERT_TRUE(MessageDifferencer::Equals(out.events[static_cast<size_t>(i)], lo.events(i))) << lo.events(i).DebugString();
      rolls += lo.events(i).die() > 0;
    }
  }
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(state_hash(s)));
  EXPECT_EQ(gl.state_hash(), hash);
  EXPECT_TRUE(MessageDifferencer::Equals(engine.view(s, Viewer::Omniscient), gl.omniscient()));
  EXPECT_GT(rolls, 0);  // barrages rolled dice, and each was reproduced
  RecordProperty("orders", static_cast<int>(st.version));
  RecordProperty("dice", rolls);
  std::cerr << "game: " << st.version << " orders, " << st.rejected << " rejected, " << st.moves << " moves, " << rolls
            << " dice\n";
}

// A finished game is read from the database for any request about it, an order
// or a chat too, not only a watch; the server keeps the last few in memory and
// lets the older ones go, so reading many old games cannot fill its memory.
// During play the whole log is each reader's own: every event from the setup on,
// exactly as their view read it live (the recent events of a view are only the last
// few), the opponent's secrets no more than in their deltas; the orders, the seed and
// the full view stay closed until the end.
TEST_F(ServerGame, DuringPlayEachReaderGetsTheWholeLogAsTheirViewReadsIt) {
  restart({}, "recent_events = 5\n");
  auto alice = user("alice"), bob = user("bob");
  auto watcher = connect();
  const std::string id = start_game(*alice, *bob);
  std::map<Client*, std::vector<game::Event>> at_start;
  for (Client* c : {alice.get(), bob.get(), watcher.get()}) {
    auto r = log_as_seen(*c, id);
    ASSERT_TRUE(r.has_game_log()) << r.DebugString();
    EXPECT_EQ(r.game_log().version(), 0);
    at_start[c].assign(r.game_log().events().begin(), r.game_log().events().end());
  }
  Player soviet(*alice, id, game::SOVIET), german(*bob, id, game::GERMAN), spectator(*watcher, id, game::SIDE_UNSPECIFIED);
  for (auto* p : {&soviet, &german, &spectator}) {
    ASSERT_TRUE(p->client.watch(id).has_game());
    p->absorb();
  }
  const auto st = play(soviet, german, &spectator, 60, "log-");
  ASSERT_GE(st.version, 40);
  for (auto* p : {&soviet, &german, &spectator}) p->wait_version(st.version);
  for (auto* p : {&soviet, &german, &spectator}) {
    auto r = log_as_seen(p->client, id);
    ASSERT_TRUE(r.has_game_log()) << r.DebugString();
    const auto& gl = r.game_log();
    EXPECT_EQ(gl.version(), st.version);
    EXPECT_TRUE(gl.seed_hex().empty() && gl.orders().empty() && !gl.has_omniscient()) << "closed until the end";
    std::vector<game::Event> expected = at_start[&p->client];
    expected.insert(expected.end(), p->events.begin(), p->events.end());
    ASSERT_EQ(gl.events_size(), static_cast<int>(expected.size())) << "reader " << game::Side_Name(p->side);
    for (int i = 0; i < gl.events_size(); ++i) {
      ASSERT_TRUE(MessageDifferencer::Equals(gl.events(i), expected[static_cast<size_t>(i)])) << gl.events(i).DebugString();
    }
    EXPECT_GT(gl.events_size(), 5) << "more than the view's recent events";
  }
  wire::ClientMessage whole;
  whole.mutable_get_log()->set_game_id(id);
  const auto closed = alice->request(whole);
  EXPECT_EQ(closed.error().code(), wire::FORBIDDEN) << "the orders and the seed: only after the end";
}

// Each event of the log as a reader sees it comes with the time of the order
// that made it, as the finished log gives the orders' times: public, as the
// opponent knew when you moved. A time goes with each event the reader's view
// shows and with no other, so the other side's hidden events tell no more than
// before: the Soviet's log in play is the finished log's events the Soviet view
// shows, each with its order's version and time, and nothing else.
TEST_F(ServerGame, TheLogSaysWhenEachOrderWasPlayedAndTellsNothingMoreOfTheOtherSidesHiddenEvents) {
  auto alice = user("alice"), bob = user("bob");
  const std::int64_t before = now_unix();
  const std::string id = start_game(*alice, *bob);
  auto [soviet, german] = watch_as_players(*alice, *bob, id);
  ASSERT_FALSE(HasFailure());
  const auto st = play(soviet, german, nullptr, 40, "t-");
  ASSERT_GE(st.version, 20);
  ASSERT_FALSE(st.over);
  for (auto* p : {&soviet, &german}) p->wait_version(st.version);
  const auto sovs = log_as_seen(*alice, id), gers = log_as_seen(*bob, id);
  ASSERT_TRUE(sovs.has_game_log() && gers.has_game_log()) << sovs.DebugString() << gers.DebugString();
  const std::int64_t after = now_unix();
  wire::ClientMessage resign;
  resign.mutable_resign()->set_game_id(id);
  ASSERT_TRUE(bob->request(resign).has_ok());
  wire::ClientMessage whole;
  whole.mutable_get_log()->set_game_id(id);
  const auto full = alice->request(whole);
  ASSERT_TRUE(full.has_game_log()) << full.DebugString();
  const auto& fl = full.game_log();
  // How it ended, though the resignation added no order: a replay names it.
  EXPECT_EQ(fl.result(), "Soviet victory");
  EXPECT_EQ(fl.result_reason(), "The German player resigned.");
  EXPECT_GE(fl.created_unix(), before);
  std::int64_t last = fl.created_unix();
  for (const auto& o : fl.orders()) {
    EXPECT_GE(o.played_unix(), last) << "version " << o.version();
    EXPECT_LE(o.played_unix(), after);
    last = o.played_unix();
  }

  // The Soviet's log in play, rebuilt from the finished log and the setup its seed draws:
  // only what the Soviet view shows.
  std::vector<std::tuple<std::int64_t, std::int64_t, game::Event>> expected;
  int hidden = 0;
  auto add = [&](std::int64_t version, std::int64_t time, const std::vector<game::Event>& all) {
    const auto shown = events_for(all, Viewer::Soviet);
    hidden += static_cast<int>(all.size() - shown.size());
    for (const auto& e : shown) expected.emplace_back(version, time, e);
  };
  const Engine engine(default_scenario());
  std::vector<game::Event> setup;
  audit_start(engine, fl, &setup);
  add(0, fl.created_unix(), setup);
  for (const auto& o : fl.orders()) {
    if (o.version() <= sovs.game_log().version()) add(o.version(), o.played_unix(), {o.events().begin(), o.events().end()});
  }
  EXPECT_GT(hidden, 0) << "the German side had events the Soviet view hides";
  for (const auto* r : {&sovs, &gers}) {
    const auto& gl = r->game_log();
    ASSERT_EQ(gl.event_times_unix_size(), gl.events_size()) << "one time for each event listed";
    ASSERT_EQ(gl.event_versions_size(), gl.events_size());
    EXPECT_EQ(gl.created_unix(), fl.created_unix());
    for (int i = 0; i < gl.events_size() && gl.event_versions(i) == 0; ++i) {
      EXPECT_EQ(gl.event_times_unix(i), fl.created_unix()) << "the setup's: when the game was made";
    }
  }
  const auto& sl = sovs.game_log();
  ASSERT_EQ(sl.events_size(), static_cast<int>(expected.size()));
  for (int i = 0; i < sl.events_size(); ++i) {
    const auto& [version, time, event] = expected[static_cast<std::size_t>(i)];
    EXPECT_EQ(sl.event_versions(i), version);
    EXPECT_EQ(sl.event_times_unix(i), time) << "version " << version;
    EXPECT_TRUE(MessageDifferencer::Equals(sl.events(i), event)) << sl.events(i).DebugString();
  }
}

TEST_F(ServerGame, FinishedGamesReadForAnyRequestAreLetGoBeyondTheFewKeptInMemory) {
  auto alice = user("alice"), bob = user("bob");
  std::vector<std::string> ids;
  for (int i = 0; i < 65 && !HasFailure(); ++i) {  // one more than the server keeps
    ids.push_back(start_game(*alice, *bob));
    wire::ClientMessage resign;
    resign.mutable_resign()->set_game_id(ids.back());
    ASSERT_FALSE(bob->request(resign).has_error());
  }
  restart();  // none of them in memory
  alice = login_as("alice");
  ASSERT_TRUE(alice);
  game::Order done;
  done.mutable_done();
  auto refused = [&](const std::string& id) {
    const auto r = alice->submit(id, "late", done);
    return r.has_error() && r.error().code() == wire::CONFLICT;
  };
  for (const auto& id : ids) EXPECT_TRUE(refused(id)) << id;
  EXPECT_TRUE(refused(ids.front()));
  const std::string log = server_->log(), loaded = "msg=\"game loaded\" game=" + ids.front() + " ";
  int loads = 0;
  for (auto at = log.find(loaded); at != std::string::npos; at = log.find(loaded, at + 1)) ++loads;
  EXPECT_EQ(loads, 2) << "read, let go as 64 others were read, and read again";
}

// A game whose stored log no longer replays (a damaged database, or a rule
// corrected since its orders were accepted) is not loaded; its players are told
// that, not that it does not exist, and the server goes on with the others. An
// outsider of a private one is told only what any missing game tells.
TEST_F(ServerGame, AGameStoredButImpossibleToLoadIsSaidToBeSo) {
  auto alice = user("alice"), bob = user("bob");
  const auto made = alice->create_game(wire::CHOOSE_SOVIET, true);
  ASSERT_TRUE(made.has_game_created()) << made.DebugString();
  const std::string broken = made.game_created().game().game_id();
  ASSERT_TRUE(bob->join(broken, made.game_created().invite_code()).has_game());
  const std::string sound = start_game(*alice, *bob);
  ASSERT_NO_FATAL_FAILURE(make_unloadable({broken}));
  alice = login_as("alice");
  ASSERT_TRUE(alice);
  wire::ClientMessage w;
  w.mutable_watch()->set_game_id(broken);
  const auto r = alice->request(w);
  ASSERT_TRUE(r.has_error()) << r.DebugString();
  EXPECT_EQ(r.error().code(), wire::INTERNAL);
  EXPECT_NE(r.error().message().find("cannot be loaded"), std::string::npos) << r.error().message();
  w.mutable_watch()->set_game_id(sound);
  EXPECT_TRUE(alice->request(w).has_snapshot());
  w.mutable_watch()->set_game_id("nosuchgame");
  EXPECT_EQ(alice->request(w).error().code(), wire::NOT_FOUND);
  EXPECT_NE(server_->log().find("msg=\"game cannot be loaded\" game=" + broken), std::string::npos);
  // A private game's existence stays its players' secret.
  auto carol = user("carol");
  w.mutable_watch()->set_game_id(broken);
  const auto outsider = carol->request(w);
  EXPECT_EQ(outsider.error().code(), wire::NOT_FOUND) << outsider.DebugString();
}

// A spectator's watch holds a finished game, read back from the database, in
// memory for as long as it lasts. Beyond the server's bound on such games, one
// more is shown once, unfollowed, so watching many old games cannot fill the
// server's memory; a game's own players are always followed.
TEST_F(ServerGame, WhileManyFinishedGamesAreWatchedAnotherIsShownOnceUnfollowed) {
  auto alice = user("alice"), bob = user("bob");
  std::vector<std::string> ids;
  for (int i = 0; i < 3 && !HasFailure(); ++i) {
    ids.push_back(start_game(*alice, *bob));
    wire::ClientMessage resign;
    resign.mutable_resign()->set_game_id(ids.back());
    ASSERT_FALSE(bob->request(resign).has_error());
  }
  ASSERT_NO_FATAL_FAILURE(restart({}, "max_finished_games_held = 2\n"));  // none of them in memory
  alice = login_as("alice");
  auto carol = user("carol");
  ASSERT_TRUE(alice && carol);
  auto watch = [](Client& c, const std::string& id) {
    wire::ClientMessage w;
    w.mutable_watch()->set_game_id(id);
    const auto r = c.request(w);
    EXPECT_TRUE(r.has_snapshot()) << r.DebugString();
    return r.snapshot();
  };
  EXPECT_FALSE(watch(*carol, ids[0]).unfollowed());
  EXPECT_FALSE(watch(*carol, ids[1]).unfollowed());
  const auto third = watch(*carol, ids[2]);
  EXPECT_TRUE(third.unfollowed());
  EXPECT_GT(third.view().stacks_size(), 0);  // the view all the same
  EXPECT_FALSE(watch(*alice, ids[2]).unfollowed()) << "its player";

  // Chat in the unfollowed game does not reach carol; in a followed one it does.
  auto say = [&](const std::string& id, const std::string& text) {
    wire::ClientMessage m;
    m.mutable_send_chat()->set_game_id(id);
    m.mutable_send_chat()->set_text(text);
    EXPECT_FALSE(alice->request(m).has_error());
  };
  say(ids[2], "unseen");
  say(ids[0], "seen");
  const auto got = carol->wait_for([&](const wire::ServerMessage& m) {
    EXPECT_FALSE(m.has_chat() && m.chat().text() == "unseen") << "pushed from an unfollowed game";
    return m.has_chat() && m.chat().text() == "seen";
  });
  EXPECT_TRUE(got);

  // Its player gone, the third is held for no one: a spectator's watch of it
  // is still shown once.
  wire::ClientMessage unwatch;
  unwatch.mutable_unwatch()->set_game_id(ids[2]);
  EXPECT_FALSE(alice->request(unwatch).has_error());
  EXPECT_TRUE(watch(*carol, ids[2]).unfollowed());

  // One let go makes room: the third is followed now.
  unwatch.mutable_unwatch()->set_game_id(ids[0]);
  EXPECT_FALSE(carol->request(unwatch).has_error());
  EXPECT_FALSE(watch(*carol, ids[2]).unfollowed());
}

}  // namespace
}  // namespace counterattack::server::testing
