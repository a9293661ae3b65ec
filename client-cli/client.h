// A command's session with the server: settings from the config file and the
// command line, the TLS connection, and the stored login.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <google/protobuf/message.h>

#include "config.h"
#include "connection.h"
#include "wire.pb.h"

namespace counterattack::cli {

// Exit codes of the commands.
enum Exit : int { kOk = 0, kFailed = 1, kUsage = 2, kRejected = 3 };

struct GlobalOptions {
  std::string server;  // empty: the config's, else kDefaultServer
  bool insecure = false;
  std::string pin;  // as typed
  bool json = false;
  int colour = -1;  // -1 automatic, 0 off, 1 on
};

class Session {
 public:
  explicit Session(GlobalOptions g);

  // Reads the config file; false with a message when it is broken.
  bool init(std::string* error);
  Config& config() { return cfg_; }
  std::string url() const { return url_; }  // canonical server URL
  bool logged_in() const;
  std::string user() const;

  // Opens the connection (TLS and WebSocket), remembering the certificate
  // accepted with --insecure, or an explicit --pin, for this server.
  bool connect(std::string* error);
  // A probe (the fingerprint command) accepts any certificate but remembers none.
  void remember_insecure(bool on) { remember_insecure_ = on; }
  // The SHA-256 fingerprint remembered for this server's certificate, or empty.
  std::string remembered_certificate() const;
  // Forgets it: *forgotten says which one (empty when there was none).
  bool forget_certificate(std::string* forgotten, std::string* error);
  // connect() and Resume with the stored token; then FollowTurns when asked for.
  bool connect_and_resume(std::string* error);
  // connect_and_resume() when logged in, else connect(): what needs no account
  // (watching, listing, replaying a public game) works either way.
  bool connect_as_known(std::string* error) { return logged_in() ? connect_and_resume(error) : connect(error); }
  // Whether each resumed connection asks for the notices of the player's turns.
  void follow_turns(bool on) { follow_turns_ = on; }
  // After connect_and_resume() failed: the server no longer knows the session,
  // so only logging in again helps (retrying does not).
  bool session_ended() const { return session_ended_; }
  Connection& conn() { return *conn_; }
  bool connected() const { return conn_ && conn_->is_open(); }
  bool has_connection() const { return conn_ != nullptr; }  // open, or closed with messages still to read
  // Closes the connection, so that the next connect_and_resume() starts afresh.
  void disconnect() {
    if (conn_) conn_->close();
  }
  // The Error code of the last call(), if it got one.
  wire::ErrorCode last_error() const { return last_error_; }

  // Sends a request and returns the reply, its text made fit for a terminal
  // unless asked for as sent; an Error reply or no reply gives nullopt with a sentence in *error.
  std::optional<wire::ServerMessage> call(
      const wire::ClientMessage& msg, std::string* error,
      std::chrono::milliseconds timeout = std::chrono::seconds(15), Connection::Text text = Connection::Text::shown);

  // Keeps a new session (Register, Login) for this server.
  bool save_session(const wire::Session& s, bool make_default_server, std::string* error);
  bool forget_session(std::string* error);

 private:
  GlobalOptions g_;
  Config cfg_;
  std::string url_;
  Endpoint ep_;
  std::unique_ptr<Connection> conn_;
  bool session_ended_ = false;
  bool follow_turns_ = false;
  bool remember_insecure_ = true;
  // The certificate --insecure accepted at this session's first connection: its
  // reconnections hold to it, so that a dropped connection is no second chance for another.
  std::string accepted_insecurely_;
  wire::ErrorCode last_error_ = wire::ERROR_UNSPECIFIED;  // the Error code of the last call(), if it got one
};

// A protobuf message as JSON, field names as in the .proto files, with no raw control character
// (C1 and bidi controls written as \u escapes).
std::string to_json(const google::protobuf::Message& m, bool pretty = false);
// "message (CODE)" for an Error reply.
std::string describe_error(const wire::Error& e);
// "Your move in game X (turn N, Soviet): `open X` in the shell to answer." for a your_turn notice.
std::string describe_turn(const wire::GameSummary& g);
// "bob joined your game X: it has started, you play german. `open X` ..." for a game_started notice.
std::string describe_start(const wire::GameSummary& g);
// The request for `draw GAME offer|accept|decline`.
wire::ClientMessage draw_request(const std::string& game_id, const std::string& answer);

// A time per move as typed: "3d", "12h", "90m", "45s"; nothing when not one.
std::optional<std::int64_t> parse_duration(const std::string& text);
// Seconds as a person reads them: "3d", "2d 4h", "5h 10m", "40m", "30s".
std::string format_duration(std::int64_t seconds);
// A UTC date, or date and time, as typed: "2026-12-01", "2026-12-01T18:00" or "2026-12-01 18:00"; nothing when not one.
std::optional<std::int64_t> parse_utc(const std::string& text);
// A game clock as typed: "15m+10s", "1h", or "15+10" (minutes and seconds,
// as chess players write it): the time for each player and the increment.
std::optional<std::pair<std::int64_t, std::int64_t>> parse_game_clock(const std::string& text);
// A clock's face: "4:05", "1:02:03", or beyond a day "2d 3h".
std::string clock_face(std::int64_t seconds);
// A game clock's time left for the Soviet and the German player, and which of
// the two runs (the decider's, while the game is played).
struct ClockLeft {
  std::int64_t soviet = 0, german = 0;
  bool soviet_runs = false, german_runs = false;
};
ClockLeft clock_left(const wire::GameSummary& g, std::int64_t now_unix = 0);
// "3d per move, 1d 2h left", or "clock 15m+10s: Soviet 12:30 (running), German 15:00":
// empty for an untimed game. `now_unix` 0: the clock's.
std::string describe_clock(const wire::GameSummary& g, std::int64_t now_unix = 0);
// A game clock's terms as typed: "clock 15m+10s", "clock 1h".
std::string clock_terms(std::int64_t clock_seconds, std::int64_t increment_seconds);

// What the answer to `rematch GAME` says: the rematch offered (GameCreated), or
// the opponent's offer accepted and the game started (GameSummary).
std::string rematch_answer(const wire::ServerMessage& reply);
// The notice of a rematch the opponent offers you.
std::string rematch_offer_notice(const wire::RematchOffered& o);
// What the answer to a `new` with an opponent says: the challenge made, how it is
// answered (`cli`: with the one-shot commands, else the shell's) and withdrawn.
std::string challenge_made_text(const wire::GameSummary& g, bool cli);
// The notice of a challenge another player makes you, with its terms as `games` names them.
std::string challenge_offer_notice(const wire::ChallengeOffered& o);
// The notice that a challenge (or rematch) kept for you no longer waits, and why.
std::string challenge_withdrawn_notice(const wire::ChallengeWithdrawn& w);
// What `resign` did to a game of yours nobody had joined (`g` as it was): a challenge
// or rematch offer withdrawn from the player it waited for, or a game withdrawn.
std::string withdrawn_text(const wire::GameSummary& g);
// A game of yours as MyGames lists it now; nothing when it is not there or the server gave no list.
std::optional<wire::GameSummary> my_game(Session& s, const std::string& game_id);
// The game a Resign the server took withdrew, nobody having joined it (`before` when known,
// else as listed now); nothing when it was a resignation. Read back from the server, as
// someone may have joined just before.
std::optional<wire::GameSummary> withdrawn_game(Session& s, const std::string& game_id,
                                                const std::optional<wire::GameSummary>& before);
// What a Resign the server took did, in words: withdrawn_text for a game nobody had joined,
// else `resigned`. Read back from the server, as someone may have joined just before; `before`
// is the game as listed before it (whom a challenge waited for), when known.
std::string resign_outcome(Session& s, const std::string& game_id, const std::optional<wire::GameSummary>& before,
                           const std::string& resigned);

// The request for `email`, `email ADDRESS`, `email off`, `email confirm CODE` or
// `email --turns each|digest|off [--digest-hours N]` (the words after "email");
// nothing, with the usage in `why`, for other words.
std::optional<wire::ClientMessage> email_request(const std::vector<std::string>& words, std::string* why);
// What an Account answer says about turn notices by mail; `turn_mail_set` when it answers
// a choice of turn mail just stored, `address_set` an address just set (its code mailed now).
// `command` begins the commands it names ("counterattack " on the command line, "" in the shell).
std::string describe_account(const wire::Account& a, bool turn_mail_set = false, const std::string& command = "",
                             bool address_set = false);
// The request for `vacation`, `vacation start DAYS` or `vacation end` (the
// words after "vacation"); nothing, with the usage in `why`, for other words.
std::optional<wire::ClientMessage> vacation_request(const std::vector<std::string>& words, std::string* why);
// The request for chat moderation: `mute NAME`, `unmute NAME`, `muted`, or
// `report NAME [--game GAME] REASON...` (the command, then its words), a report
// in `open_game` unless --game names one. Nothing, with the usage in `why`, for
// other words.
std::optional<wire::ClientMessage> chat_moderation_request(const std::string& command, const std::vector<std::string>& words,
                                                           const std::string& open_game, std::string* why);
// What the answer to `mute`, `unmute` or `muted` says, after the request it answers: the
// player by their registered name.
std::string describe_muted(const wire::ClientMessage& asked, const wire::MutedPlayers& m);
// What an answered report says, the player by their registered name.
std::string reported_text(const wire::ReportChat& r, const wire::ChatReported& done);
// The request for `standing GAME none` or `standing GAME ORDER...` (the words
// after the game): exactly those standing orders set (stand-fast, no-support,
// keep-die, take-losses, retreat). Nothing, with the usage in `why`, for other words.
std::optional<wire::ClientMessage> standing_request(const std::string& game_id, const std::vector<std::string>& words,
                                                    std::string* why);
// Your standing orders in one of your games, as the server keeps them; nothing, with why, when it cannot tell.
std::optional<game::StandingOrders> my_standing_orders(Session& s, const std::string& game_id, std::string* why);
// The words of the standing orders set, "no-support, retreat"; empty when none.
std::string standing_words(const game::StandingOrders& s);
// The standing orders set, one a line with what each answers; or that there are none.
std::string describe_standing(const game::StandingOrders& s);
// What an Account answer says about vacation. `now_unix` 0: the clock's; `command` as for
// describe_account.
std::string describe_vacation(const wire::Vacation& v, std::int64_t now_unix = 0, const std::string& command = "");
// The request for `tournament WORDS...`: nothing or `list`, `new NAME... [--players N]
// [--swiss ROUNDS] [--time 3d] [--starts WHEN] [--private] [--organise-only] [--option KEY]`, `show ID`, `join ID [CODE]`,
// `leave ID`, `start ID`, `cancel ID`, `remove ID NAME REASON...`, `adjudicate GAME soviet|german|draw REASON...`.
// Nothing, with the usage in `why`, for other words.
std::optional<wire::ClientMessage> tournament_request(const std::vector<std::string>& words, std::string* why);
// One line for a tournament in a list.
std::string tournament_line(const wire::Tournament& t, bool withdrew = false);  // withdrew: the reader, from it
// The list of `tournaments`, a line each, "you withdrew" where the reader has (asked of each they entered).
std::string tournament_list_text(Session& s, const wire::TournamentList& list);
// "The tournament "X" has started: ..." or, for a Swiss's later round, "Round 2 of 3 of ... has begun: ...".
std::string tournament_start_notice(const wire::Tournament& t, const std::string& me = "");
// "The tournament "X" is over: alice won. ..." for a finished tournament's push.
std::string tournament_end_notice(const wire::Tournament& t);
// "The tournament "X" was cancelled before it started. Its organiser ..." (or "... under way")
// for a cancellation's push.
std::string tournament_cancelled_notice(const wire::TournamentCancelled& c);
// A tournament with its standings, its cross-table (a round robin's grid, a Swiss's
// rounds, a knock-out's bracket), why it was cut short, and its games.
// `command` as for describe_account; `me`: the reader (told "You sit out ..."; a withdrawn entrant is
// not told whom they play), "" when not known.
std::string describe_tournament(const wire::Tournament& t, const std::string& command = "", const std::string& me = "");
// The answer to LeaveTournament: left before the start (Ok), or withdrawn from one under way (its Tournament).
// What the organiser is told after `tournament remove`.
std::string removed_from_tournament_text(const std::string& player, const wire::ServerMessage& reply,
                                         const std::string& command = "");
std::string left_tournament_text(const wire::ServerMessage& reply, const std::string& command = "", const std::string& me = "");
// What the organiser is told after `tournament adjudicate`.
std::string adjudicated_text(const wire::AdjudicateGame& a);
// The request for `new WORDS...`: soviet|german|random, private, casual, a time
// per move (3d, 12h, 90m) and option keys, as the shell takes them; the
// subcommand's --side X, --private, --casual, --time T and --option KEY too;
// `opponent NAME` (or --opponent NAME) makes it a challenge kept for that player.
// Nothing, with the reason in `why`, for a time it cannot read.
std::optional<wire::ClientMessage> new_game_request(const std::vector<std::string>& words, std::string* why);
// One line for a game in a list: its players with their ratings, status, turn, clock, result;
// your game in play also says YOUR MOVE when it waits for you, and "N new orders" when it
// has moved since you last looked. `command` as for describe_account.
std::string game_line(const wire::GameSummary& g, const std::string& command = "");
// Your game in play, and the decision is yours.
bool waits_for_you(const wire::GameSummary& g);
// A seated player as a list shows them: "alice (1523)", "bob (1500?)" while
// provisional, "alice (1535, +12)" once a rated game has ended; "(open)".
std::string seat_text(const wire::GameSummary& g, bool soviet);
// "Ratings: Soviet +12, German -12" for a rated game's end; why it moved none
// when the server says ("Not rated: the German side never moved"); "" otherwise.
std::string rating_changes_text(const wire::GameEnded& e);
// The shell's line for another game of yours that ended while it showed a different one.
std::string other_game_ended_notice(const wire::GameEnded& e);
// A rating as a number: "1523", or "1500?" while provisional.
std::string rating_text(const wire::Rating& r);
// The request for `rating [NAME]` (the words after "rating"); nothing, with the
// usage in `why`, for other words.
std::optional<wire::ClientMessage> rating_request(const std::vector<std::string>& words, std::string* why);
// The open games a player looks for: the filters of ListGames, and the page
// (1: the first) to show.
struct OpenGamesQuery {
  wire::ListGames filter;
  int page = 1;
};
// The query for `games open WORDS...` in the shell (`games playing`, `games
// finished` with `kind`): player NAME, scenario NAME, rated or casual, untimed,
// per-move or clock, min-rating N and max-rating N (open games only), page N,
// per-page N; each with -- before it too, as the subcommand's flags. Nothing, with
// the usage in `why`, for other words.
std::optional<OpenGamesQuery> open_games_query(const std::vector<std::string>& words, std::string* why,
                                               wire::GameListKind kind = wire::OPEN_GAMES);
// "open games", "games in play", "finished games".
std::string listed_games_name(wire::GameListKind kind);
// One line for a game in the list of games in play or of finished ones, as a
// stranger reads it: its players with their ratings (a finished game's changes),
// scenario, turn and version or its result, the turn it ended on (when the server
// has it) and version, and the command that watches it (in
// play) or replays it (over); `command` begins that command ("counterattack " on
// the command line, "" in the shell).
std::string listed_game_line(const wire::GameSummary& g, const std::string& command);
// The page `page` of the games `filter` takes (counted from filter.after,
// the first page when empty), walked to page by page. Nothing, with a sentence
// in `why`, when the server refused it or the list ends before that page.
std::optional<wire::GameList> open_games_page(Session& s, wire::ListGames filter, int page, std::string* why);
// The filters (and a page size asked for) as the subcommand's flags: " --player alice --scenario counterattack --casual --timing clock"; "" for none.
std::string open_games_flags(const wire::ListGames& filter);
// One player's public games of every kind (`games --player NAME`, the shell's
// `games player NAME`): the first page of each list, with the filters asked for.
struct PlayerGames {
  wire::ListGames filter;  // the filters, kind and cursor unset
  wire::GameList open, playing, finished;
};
// Asks for the three lists with `filter` (its player set); nothing, with the
// server's sentence in `why`, when it refuses one. A game that moved on between
// the requests (joined, or ended) is in its later list alone.
std::optional<PlayerGames> player_games(Session& s, const wire::ListGames& filter, std::string* why);
// The three lists as text: a heading each (with `filters`, "" for none), the open
// games as `games` shows them, the others as listed_game_line with `command`,
// and after each that has more the line `more(kind, next_after)` gives.
std::string player_games_text(const PlayerGames& games, const std::string& filters, const std::string& command,
                              const std::function<std::string(wire::GameListKind, const std::string&)>& more);
// The request for `ratings` (the words after it: none).
std::optional<wire::ClientMessage> ratings_request(const std::vector<std::string>& words, std::string* why);
// A player's rating, record, rank and last rated game, a few lines.
std::string describe_rating(const wire::PlayerRating& p);
// The rating list as a table, or a sentence when it is empty; then what the sides are worth.
std::string ratings_table(const wire::RatingList& l);
// "Sides: the German side is worth 63 rating points over the Soviet (from 12 rated games); ...".
std::string side_edge_text(const wire::RatingList& l);
// A fresh random idempotency key.
std::string new_idempotency_key();
// Whether to draw with ANSI colour on standard output.
bool use_colour(const GlobalOptions& g);
// The terminal's size, or 120x40 when not a terminal.
void terminal_size(int* columns, int* lines);

}  // namespace counterattack::cli
