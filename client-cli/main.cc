// counterattack: the command-line client of the Model's Counterattack server.
#include <termios.h>
#include <unistd.h>

#include <sodium.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <iostream>
#include <nlohmann/json.hpp>

#include "charts.h"
#include "client.h"
#include "live.h"
#include "notation.h"
#include "render.h"
#include "replay.h"
#include "scenario.h"
#include "terminal_text.h"
#include "verify.h"

namespace cli = counterattack::cli;
namespace wire = counterattack::wire;
namespace game = counterattack::game;
using cli::Exit;

namespace {

int fail(const cli::GlobalOptions& g, const std::string& why, int code = cli::kFailed) {
  if (g.json) std::cout << nlohmann::json{{"error", why}}.dump() << std::endl;
  std::cerr << why << std::endl;
  return code;
}

// A password: from standard input when it is not a terminal, else typed without echo.
std::string read_password(const std::string& prompt) {
  std::string pw;
  if (!::isatty(STDIN_FILENO)) {
    std::getline(std::cin, pw);
    if (!pw.empty() && pw.back() == '\r') pw.pop_back();
    return pw;
  }
  std::cerr << prompt << std::flush;
  termios old{};
  ::tcgetattr(STDIN_FILENO, &old);
  termios quiet = old;
  quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
  ::tcsetattr(STDIN_FILENO, TCSANOW, &quiet);
  std::getline(std::cin, pw);
  ::tcsetattr(STDIN_FILENO, TCSANOW, &old);
  std::cerr << std::endl;
  return pw;
}

// Words left over by the parse that begin with an order word: an order typed as a command.
bool order_as_command(const CLI::App& app) {
  const auto left = app.remaining();
  const auto& orders = cli::order_words();
  return !left.empty() && std::find(orders.begin(), orders.end(), left.front()) != orders.end();
}

// For words left over by the parse: the command the first was likely meant to be.
std::string command_hint(const CLI::App& app) {
  const auto left = app.remaining();
  const std::string word = left.empty() ? "" : left.front();
  if (order_as_command(app)) {
    std::string line;
    for (const auto& w : left) line += " " + w;
    return "Orders go through `counterattack order GAME" + line + "`.";
  }
  std::vector<std::string> names;
  for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) names.push_back(sub->get_name());
  const std::string best = cli::nearest_word(word, {&names});
  return best.empty() ? "" : "Did you mean `counterattack " + best + "`?";
}

cli::RenderOptions render_options(const cli::GlobalOptions& g) {
  cli::RenderOptions ro;
  ro.colour = cli::use_colour(g);
  int cols = 0, lines = 0;
  cli::terminal_size(&cols, &lines);
  ro.width = std::min(cols, 120);
  // Leave room for the tracks, the stacks and the log below the map.
  ro.hex_rows = std::clamp((lines - 22) / 2, 6, 20);
  return ro;
}

}  // namespace

int main(int argc, char** argv) {
  if (sodium_init() < 0) {  // verify replays ChaCha20's dice
    std::cerr << "libsodium cannot initialise\n";
    return 1;
  }
  CLI::App app{
      "counterattack: play Model's Counterattack on a server.\n"
      "Without a command: the interactive shell. Settings and your session live in\n"
      "$XDG_CONFIG_HOME/counterattack/config.json (default ~/.config/counterattack/)."};
  app.require_subcommand(0, 1);
  app.fallthrough();
  cli::GlobalOptions g;
  bool no_colour = false, colour = false;
  app.add_option(
      "--server", g.server,
      "Server URL, wss://host:port (default: the configured one, else wss://127.0.0.1:8443); "
      "ws://127.0.0.1:port for a --plain server on this machine");
  app.add_flag("--insecure", g.insecure,
               "Accept any server certificate this once (a self-signed server) and remember its "
               "fingerprint: later connections to that server need no --insecure while its "
               "certificate stays the same, and are refused if it changes");
  app.add_option("--pin", g.pin,
                 "Accept the server certificate with this SHA-256 fingerprint, and remember it for "
                 "this server");
  app.add_flag("--json", g.json, "Output JSON for scripts");
  app.add_flag("--no-colour,--no-color", no_colour, "Draw without ANSI colour");
  app.add_flag("--colour,--color", colour, "Draw with ANSI colour even when not on a terminal");

  std::string name, game_id, side = "random", invite, at, text;
  std::vector<std::string> options, notation;
  bool priv = false, full = false, spectators = false, open_only = false, yes = false;
  int log_lines = 12;

  auto* reg = app.add_subcommand("register",
                                 "Create an account and log in (the password is read from standard "
                                 "input when it is not a terminal)");
  reg->add_option("NAME", name, "Player name: 3-24 letters, digits, _ or -")->required();
  auto* login = app.add_subcommand("login", "Log in; the session is kept in your config directory");
  login->add_option("NAME", name, "Player name")->required();
  auto* logout = app.add_subcommand("logout", "End the session on this server");
  std::string forgot, reset_name, reset_code;
  auto* password = app.add_subcommand(
      "password",
      "Change your password (old, then new; read from standard input when it is not a terminal), or reset a forgotten one");
  password->add_option("--forgot", forgot, "NAME: mail a reset code to the player's confirmed address");
  password->add_option("--reset", reset_name, "NAME: set a new password with the mailed code")->excludes("--forgot");
  password->add_option("CODE", reset_code, "With --reset: the code from the mail");
  auto* games = app.add_subcommand(
      "games",
      "Your games and the open games waiting for an opponent; or the public games in play, or finished, to watch; or one player's");
  games->add_flag("--open", open_only, "Only the open games");
  bool my_turn = false, games_playing = false, games_finished = false;
  auto* my_turn_only = games->add_flag("--my-turn", my_turn, "Only your games that wait for your move")->excludes("--open");
  // Anyone's public games, to watch or to replay: no login needed.
  auto* playing_only = games->add_flag("--playing", games_playing, "The public games in play, newest first, each with the command that watches it")
                           ->excludes("--open")
                           ->excludes(my_turn_only);
  games->add_flag("--finished", games_finished, "The public finished games, newest ended first, each with the command that replays it")
      ->excludes("--open")
      ->excludes(my_turn_only)
      ->excludes(playing_only);
  std::string games_player;
  games->add_option("--player", games_player,
                    "This player's public games: open, in play and finished (with --open, --playing or --finished, that list alone)")->excludes(my_turn_only);
  // The open games a player looks for: filters, and a page at a time.
  std::string games_scenario, games_timing;
  bool games_rated = false, games_casual = false;
  int games_min_rating = 0, games_max_rating = 0, games_page = 1, games_per_page = 0;
  games->add_option("--scenario", games_scenario, "Open games of this scenario only (counterattack)");
  auto* rated_only = games->add_flag("--rated", games_rated, "Rated open games only");
  games->add_flag("--casual", games_casual, "Casual open games only")->excludes(rated_only);
  games->add_option("--timing", games_timing, "Open games untimed, with a time per move (per-move), or a game clock (clock)")
      ->check(CLI::IsMember({"untimed", "per-move", "clock"}));
  for (auto* bound : {games->add_option("--min-rating", games_min_rating, "Open games whose maker's rating in the scenario is at least this"),
                      games->add_option("--max-rating", games_max_rating, "Open games whose maker's rating in the scenario is at most this")}) {
    bound->excludes("--playing")->excludes("--finished");  // a maker's rating: open games only
  }
  games->add_option("--page", games_page, "Which page of the games listed, newest first (1 unless given)")->check(CLI::Range(1, 10000));
  std::string games_after;
  games->add_option("--after", games_after,
                    "The games after this one, as the More: line names it: each game listed once, however many start and end between runs")
      ->excludes("--page");
  games->add_option("--per-page", games_per_page, "Games a page (200 unless given, at most 200)")->check(CLI::Range(1, 200));
  for (const char* open_games_flag : {"--scenario", "--rated", "--casual", "--timing", "--min-rating", "--max-rating", "--page", "--per-page", "--after"}) {
    my_turn_only->excludes(open_games_flag);  // they choose among the open games, which --my-turn does not list
  }
  auto* create = app.add_subcommand("new", "Create a game and print its id");
  create->add_option("--side", side, "Your side: soviet, german or random (the default: the server draws it)")
      ->check(CLI::IsMember({"soviet", "german", "random"}));
  create->add_flag("--private", priv, "Only a player with the invite code can join");
  bool casual = false;
  create->add_flag("--casual", casual, "Unrated: the result leaves both players' ratings as they are");
  std::string time_per_move;
  create->add_option("--time", time_per_move,
                     "Time per move, e.g. 3d, 12h or 90m: a player who lets it run out loses (default: untimed)");
  std::string game_clock;
  create->add_option("--clock", game_clock,
                     "A game clock for live play instead: the time for each player and what each decision passed "
                     "gives back, e.g. 15m+10s, 1h or 15+10; a player whose clock runs out loses");
  create->add_option("--option", options,
                     "An optional rule by key (repeatable): limited_german_activation, "
                     "red_army_flexibility, limited_bonus, red_army_elastic_defense");
  std::string opponent;
  auto* opponent_given = create->add_option("--opponent", opponent,
                     "Challenge this player: the game is kept for them alone, who is told and joins or declines it");
  auto* join = app.add_subcommand("join", "Join an open game");
  join->add_option("GAME", game_id, "Game id")->required();
  join->add_option("--invite", invite, "Invite code of a private game");
  auto* rematch = app.add_subcommand(
      "rematch", "After a game: offer your opponent another on the same terms with the sides swapped, or accept theirs");
  rematch->add_option("GAME", game_id, "The finished game")->required();
  bool decline = false;
  rematch->add_flag("--decline", decline, "Turn down the rematch your opponent offers");
  auto* decline_challenge = app.add_subcommand("decline", "Turn down a challenge (or rematch) kept for you; `join GAME` accepts it");
  decline_challenge->add_option("GAME", game_id, "The game kept for you")->required();
  std::vector<std::string> standing_words;
  auto* standing = app.add_subcommand(
      "standing", "Standing orders: decisions the server answers for you at once, so that a game played over days does not wait on you");
  standing->add_option("GAME", game_id, "Game id")->required();
  standing->add_option("ORDERS", standing_words,
                       "none, or any of: stand-fast no-support keep-die take-losses retreat (nothing: show yours)");
  auto* show = app.add_subcommand(
      "show", "Show a game as you see it: map, tracks, chits, log and the decision asked");
  show->add_option("GAME", game_id, "Game id")->required();
  show->add_option("--at", at, "Centre the map window on this hex (3546)");
  show->add_flag("--full", full, "The whole map (small) and every stack");
  auto* log_option = show->add_option(
      "--log", log_lines,
      "Events of the log to show (0: all), each order's time (UTC) before its first, with a line where you last looked "
      "(with --json: {view, log}, each event with its version and time_unix)")
                         ->check(CLI::Range(0, 1000000000));
  // The shell's quick looks, for a player who checks in once a day without opening it.
  auto* units = app.add_subcommand("units", "Your units on the board, one a line, with their state");
  units->add_option("GAME", game_id, "Game id")->required();
  std::string where;
  auto* stack = app.add_subcommand("stack", "What you see at a hex (or WARSAW, an entry point), every unit listed");
  stack->add_option("GAME", game_id, "Game id")->required();
  stack->add_option("HEX", where, "A hex (2021), WARSAW or an entry point")->required();
  auto* hand = app.add_subcommand("hand", "Your event chits (the opponent's count only)");
  hand->add_option("GAME", game_id, "Game id")->required();
  auto* decision = app.add_subcommand("decision", "Whose decision it is, what is asked, and the notation that answers it");
  decision->add_option("GAME", game_id, "Game id")->required();
  auto* order =
      app.add_subcommand("order", "Send one order, e.g.: order GAME move 3TC/50 4742 4642");
  order->add_option("GAME", game_id, "Game id")->required();
  order->add_option("ORDER", notation, "The order in notation (the orders are listed below)")
      ->required();
  order->footer(
      "Orders:\n  move UNIT... HEX...          move 3TC/50 3TC/51 4740 4640 4540\n"
      "  done                         end the step, or pass\n"
      "  corps CORPS [+47]            corps 3TC +47\n"
      "  pd | lift | reserve | unreserve UNIT...\n"
      "  break UNIT HEX [UNIT HEX...] | stand     answer an enemy entering your ZOC\n"
      "  play CHIT [UNIT...] [corps X] [at HEX]\n"
      "  recover UNIT [HEX|WARSAW] | suppress UNIT... | choose UNIT|MARKER...\n"
      "  overrun UNIT... HEX | barrage MARKER HEX | attack UNIT... HEX [with MARKER] [chit CHIT]\n"
      "  support MARKER [chit CHIT] | support chit CHIT | nosupport | losses [elastic N | desperate N] UNIT...\n"
      "  retreat UNIT HEX... | advance [UNIT... HEX...]\n"
      "  model reactivate UNIT... | model noncontiguous | model division\n"
      "  reroll | noreroll            at FM Model's re-roll decision (or: model reroll | model noreroll)\n"
      "  undo                         take back your last order\n"
      "Exit status: 0 accepted, 3 refused by the rules (the reason is printed), 2 not understood, 1 refused "
      "before the rules (no such game, not yours, over) or no answer.");
  auto* resign = app.add_subcommand("resign", "Resign a game");
  resign->add_option("GAME", game_id, "Game id")->required();
  resign->add_flag("--yes,-y", yes, "Do not ask first on a terminal");
  std::string draw_answer;
  auto* draw = app.add_subcommand("draw", "Offer a draw, or accept or decline your opponent's offer");
  draw->add_option("GAME", game_id, "Game id")->required();
  // Checked after the parse, so that a missing answer is told the three it may be.
  draw->add_option("ANSWER", draw_answer, "offer, accept or decline (required)")
      ->check(CLI::IsMember({"offer", "accept", "decline"}));
  auto* chat = app.add_subcommand("chat", "Send a chat message to a game");
  chat->add_option("GAME", game_id, "Game id")->required();
  chat->add_option("TEXT", notation, "The message")->required();
  chat->add_flag("--spectators", spectators, "To the spectators' channel");
  auto* mute = app.add_subcommand("mute", "Stop reading a player's chat, in every game and on every client (they are not told)");
  mute->add_option("NAME", name, "Player name")->required();
  auto* unmute = app.add_subcommand("unmute", "Read a muted player's chat again");
  unmute->add_option("NAME", name, "Player name")->required();
  auto* muted = app.add_subcommand("muted", "The players you have muted");
  std::vector<std::string> report_words;
  auto* report = app.add_subcommand(
      "report", "Report a player's chat in a game to the server's operator, e.g.: report NAME --game GAME Insults in chat");
  report->add_option("NAME", name, "Player name")->required();
  report->add_option("--game", game_id, "The game they wrote in")->required();
  report->add_option("REASON", report_words, "Why, in 1 to 200 characters")->required();
  auto* watch =
      app.add_subcommand("watch", "Follow a game live until it ends (redrawn after every change)");
  watch->add_option("GAME", game_id, "Game id")->required();
  watch->add_option("--at", at, "Centre the map window on this hex");
  auto* exp = app.add_subcommand(
      "export",
      "Once a game is over: print its whole log as JSON, every order with its events, the dice seed and the full "
      "view (the server opens it at the end; in play `show GAME --log 0` shows the log as you may read it)");
  exp->add_option("GAME", game_id, "Game id")->required();
  auto* verify = app.add_subcommand(
      "verify",
      "Audit a finished game: check that its dice seed is the one committed to at its start, replay every order with "
      "the rules here and compare every event, every die and the final position with the server's log (no login "
      "needed for a public game)");
  verify->add_option("GAME", game_id, "Game id")->required();
  verify->footer("Exit status: 0 verified, 1 not verified (the first difference is printed), or no answer.");
  std::string replay_at;
  auto* replay = app.add_subcommand(
      "replay",
      "Step through a finished game, replayed from its log with the rules here: the full map after each order, with "
      "its events and its time (no login needed for a public game)");
  replay->add_option("GAME", game_id, "Game id")->required();
  replay->add_option("--at", replay_at,
                     "Print the version given (0: the setup) and stop; without it, step with next (or ENTER), prev, "
                     "goto N, first, last and quit, read from standard input");
  replay->footer("With --json and --at: that version as JSON (time_unix, side, order, events, view).");
  auto* play = app.add_subcommand("play", "The interactive shell, with a game open");
  play->add_option("GAME", game_id, "Game id");
  auto* close_account = app.add_subcommand(
      "close-account",
      "Close your account for good once no game or tournament of yours is under way (the password is read from "
      "standard input when it is not a terminal)");
  close_account->add_flag("--yes,-y", yes, "Do not ask");
  std::vector<std::string> email_words;
  auto* email = app.add_subcommand(
      "email", "Turn notices by e-mail while you are away: show, set ADDRESS, confirm CODE, or off");
  email->add_option("WORDS", email_words, "ADDRESS | confirm CODE | off (nothing: show)");
  std::string email_turns, digest_hours;
  email->add_option("--turns", email_turns,
                    "How turn notices are mailed: each (a mail per game), digest (one mail listing the games that wait) or off");
  email->add_option("--digest-hours", digest_hours, "With --turns digest (implied when alone): at most one digest every N hours, 1 to 168 (24 at first)");
  std::vector<std::string> vacation_words;
  auto* vacation = app.add_subcommand(
      "vacation", "Vacation: your time per move stands still (a game clock runs on); show, start DAYS, or end");
  vacation->add_option("WORDS", vacation_words, "start DAYS | end (nothing: show)");
  auto* tournament = app.add_subcommand(
      "tournament",
      "Tournaments: list; new NAME [--players N] [--swiss ROUNDS | --knockout] [--time 3d | --clock 15m+10s] [--starts WHEN] [--private]"
      " [--organise-only];"
      " show, join, leave, start or cancel ID; remove ID NAME REASON (the organiser withdraws an entrant);"
      " adjudicate GAME soviet|german|draw REASON (the organiser decides a game in play)");
  std::vector<std::string> tournament_words;
  std::string players, tournament_time, tournament_clock, tournament_starts, swiss;
  bool organise_only = false, knockout = false;
  tournament->add_option("WORDS", tournament_words,
                         "list | new NAME... | show|join|leave|start|cancel ID [INVITE] | remove ID NAME REASON... | "
                         "adjudicate GAME soviet|german|draw REASON...");
  tournament->add_option("--players", players, "new: the most entrants (default 4); it starts when full");
  tournament->add_option("--swiss", swiss, "new: a Swiss of this many rounds instead of a round robin");
  tournament->add_flag("--knockout,--knock-out", knockout,
                       "new: a knock-out instead, seeded by rating: each match two games, a deciding one when level");
  tournament->add_option("--time", tournament_time, "new: time per move, e.g. 3d (the default) or 12h");
  tournament->add_option("--clock", tournament_clock, "new: a game clock for every game instead, e.g. 15m+10s");
  tournament->add_option("--starts", tournament_starts,
                         "new: start by itself then: 2h or 3d from now, or a UTC time, 2026-12-01T18:00");
  tournament->add_flag("--private", priv, "new: entered only with the invite code");
  tournament->add_flag("--organise-only,--organize-only", organise_only, "new: organise without playing");
  tournament->add_option("--option", options, "new: an optional rule by key (repeatable)");
  std::vector<std::string> rating_words;
  auto* rating = app.add_subcommand("rating", "A player's rating, record, rank and recent rated games (yours without NAME; with NAME no login is needed)");
  rating->add_option("NAME", rating_words, "Player name");
  int rating_games = 0;
  rating->add_option("--games", rating_games, "How many of the last rated games to list (10 unless given, at most 500)")
      ->check(CLI::Range(1, 500));
  auto* ratings = app.add_subcommand("ratings", "The rated players, best first (no login needed)");
  std::string chart_name, unit_name;
  auto* chart = app.add_subcommand("chart", "One of the game's charts (crt, barrage, terrain, calendar, offmap, uprising, "
                                            "magnuszew, events), or their list (no server needed)");
  chart->add_option("NAME", chart_name, "The chart");
  auto* unit = app.add_subcommand("unit", "A counter's printed values: formation, class, factors and bonuses, arrival (no server needed)");
  unit->add_option("UNIT", unit_name, "The unit, e.g. 19Pz/I-27")->required();
  auto* fingerprint = app.add_subcommand(
      "fingerprint", "Print the SHA-256 fingerprint of the server's certificate, to pin it");
  auto* forget_certificate = app.add_subcommand(
      "forget-certificate",
      "Forget the certificate remembered for the server (after --insecure or --pin), to accept a new one");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Help and version exit 0; any command line not understood exits 2, as a bad order does.
    const bool extras = dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr;
    if (extras && app.remaining().size() == 1 && app.remaining().front() == "help") {
      std::cout << app.help();  // `counterattack help`, as a shell's `help`
      return cli::kOk;
    }
    // An order word: the hint alone says what to type, in place of CLI11's "not expected".
    if (!(extras && order_as_command(app)) && app.exit(e) == 0) return cli::kOk;
    if (const auto hint = extras ? command_hint(app) : ""; !hint.empty()) std::cerr << hint << std::endl;
    return cli::kUsage;
  }
  if (no_colour)
    g.colour = 0;
  else if (colour)
    g.colour = 1;

  cli::Session s(g);
  std::string why;
  if (!s.init(&why)) return fail(g, why, cli::kUsage);
  const auto sc = counterattack::default_scenario();
  cli::RenderOptions ro = render_options(g);

  // The counter sheet and the charts are the scenario's: they need no server.
  if (*chart) {
    if (chart_name.empty()) {
      std::cout << cli::chart_list() << std::flush;
      return cli::kOk;
    }
    const auto drawn = cli::render_chart(*sc, chart_name);
    if (!drawn) return fail(g, "No chart '" + chart_name + "'.\n" + cli::chart_list(), cli::kUsage);
    std::cout << *drawn << std::flush;
    return cli::kOk;
  }
  if (*unit) {
    const auto card = cli::render_unit_card(*sc, unit_name);
    if (!card) return fail(g, "No unit '" + unit_name + "' in the scenario.", cli::kUsage);
    std::cout << *card << std::flush;
    return cli::kOk;
  }

  if (*reg || *login) {
    const bool is_reg = reg->parsed();
    std::string pw = read_password("Password: ");
    if (is_reg && ::isatty(STDIN_FILENO) && read_password("Again: ") != pw)
      return fail(g, "The passwords differ.", cli::kUsage);
    if (!s.connect(&why)) return fail(g, why);
    wire::ClientMessage m;
    if (is_reg) {
      m.mutable_register_()->set_name(name);
      m.mutable_register_()->set_password(pw);
    } else {
      m.mutable_login()->set_name(name);
      m.mutable_login()->set_password(pw);
    }
    auto reply = s.call(m, &why);
    if (!reply) return fail(g, why);
    if (!reply->has_session()) return fail(g, "The server did not open a session.");
    if (!s.save_session(reply->session(), !g.server.empty() || s.config().server.empty(), &why))
      return fail(g, why);
    if (g.json) {
      std::cout << nlohmann::json{{"name", reply->session().name()},
                                  {"server", s.url()},
                                  {"expires_unix", reply->session().expires_unix()}}
                       .dump()
                << std::endl;
    } else {
      std::cout << (is_reg ? "Registered and logged in as " : "Logged in as ")
                << reply->session().name() << " on " << s.url() << "." << std::endl;
    }
    return cli::kOk;
  }

  if (*password) {
    wire::ClientMessage m;
    std::string done;
    if (!forgot.empty()) {
      m.mutable_request_password_reset()->set_name(forgot);
      done = "If " + forgot + " has a confirmed e-mail address, a code is on its way to it; then: counterattack password --reset " +
             forgot + " CODE";
    } else {
      if (!reset_name.empty() && reset_code.empty()) return fail(g, "--reset NAME takes the CODE from the mail.", cli::kUsage);
      if (reset_name.empty() && !reset_code.empty()) return fail(g, "A CODE goes with --reset NAME.", cli::kUsage);
      const std::string old_pw = reset_name.empty() ? read_password("Old password: ") : "";
      const std::string new_pw = read_password("New password: ");
      if (::isatty(STDIN_FILENO) && read_password("Again: ") != new_pw) return fail(g, "The passwords differ.", cli::kUsage);
      if (reset_name.empty()) {
        m.mutable_change_password()->set_old_password(old_pw);
        m.mutable_change_password()->set_new_password(new_pw);
        done = "Password changed; your other sessions have ended.";
      } else {
        m.mutable_reset_password()->set_name(reset_name);
        m.mutable_reset_password()->set_code(reset_code);
        m.mutable_reset_password()->set_new_password(new_pw);
        done = "Password changed; every session of " + reset_name + " has ended. Log in: counterattack login " + reset_name;
      }
    }
    if (!(m.has_change_password() ? s.connect_and_resume(&why) : s.connect(&why))) return fail(g, why);
    if (!s.call(m, &why)) return fail(g, why);
    if (g.json) {
      std::cout << nlohmann::json{{"ok", true}}.dump() << std::endl;
    } else {
      std::cout << done << std::endl;
    }
    return cli::kOk;
  }

  if (*close_account) {
    if (!s.logged_in())
      return fail(g, "You are not logged in to " + s.url() + ": log in as the player whose account to close.");
    if (!yes && ::isatty(STDIN_FILENO)) {
      std::cerr << "Close your account for good? Nobody can log in with it again. [y/N] " << std::flush;
      std::string answer;
      std::getline(std::cin, answer);
      if (answer != "y" && answer != "Y" && answer != "yes") return fail(g, "Not closed.", cli::kUsage);
    }
    wire::ClientMessage m;
    m.mutable_close_account()->set_password(read_password("Password: "));
    if (!s.connect_and_resume(&why)) return fail(g, why);
    if (!s.call(m, &why)) return fail(g, why);
    s.forget_session(&why);
    if (g.json)
      std::cout << nlohmann::json{{"closed", true}}.dump() << std::endl;
    else
      std::cout << "Your account on " << s.url()
                << " is closed. Your finished games keep your name, which nobody can register again." << std::endl;
    return cli::kOk;
  }

  if (*logout) {
    const bool was_logged_in = s.logged_in();
    if (was_logged_in && s.connect_and_resume(&why)) {
      wire::ClientMessage m;
      m.mutable_logout();
      s.call(m, &why);
    }
    if (!s.forget_session(&why)) return fail(g, why);
    if (g.json)
      std::cout << nlohmann::json{{"logged_out", was_logged_in}}.dump() << std::endl;
    else if (was_logged_in)
      std::cout << "Logged out of " << s.url() << "." << std::endl;
    else
      std::cout << "No one was logged in to " << s.url() << "." << std::endl;
    return cli::kOk;
  }

  if (*email) {
    if (!email_turns.empty() || !digest_hours.empty()) {
      if (email_turns.empty() && email_words.empty()) email_turns = "digest";  // an interval alone is a digest's
      if (!email_words.empty() || email_turns.empty()) return fail(g, "--digest-hours goes with --turns digest, and neither with other words.", cli::kUsage);
      email_words = {"--turns", email_turns};
      if (!digest_hours.empty()) email_words.insert(email_words.end(), {"--digest-hours", digest_hours});
    }
    auto m = cli::email_request(email_words, &why);
    if (!m) return fail(g, why, cli::kUsage);
    if (!s.connect_and_resume(&why)) return fail(g, why);
    auto reply = s.call(*m, &why);
    if (!reply) return fail(g, why);
    const auto& a = reply->account();
    if (g.json)
      std::cout << nlohmann::json{{"email", a.email()}, {"email_confirmed", a.email_confirmed()},
                                  {"mail_enabled", a.mail_enabled()},
                                  {"turns", a.turn_mail() == wire::TURN_MAIL_DIGEST ? "digest"
                                            : a.turn_mail() == wire::TURN_MAIL_OFF  ? "off"
                                                                                    : "each"},
                                  {"digest_hours", a.digest_hours()}}.dump()
                << std::endl;
    else
      std::cout << cli::describe_account(a, m->has_set_turn_mail(), "counterattack ", m->has_set_email()) << std::endl;
    return cli::kOk;
  }

  if (*vacation) {
    auto m = cli::vacation_request(vacation_words, &why);
    if (!m) return fail(g, why, cli::kUsage);
    if (!s.connect_and_resume(&why)) return fail(g, why);
    auto reply = s.call(*m, &why);
    if (!reply) return fail(g, why);
    const auto& v = reply->account().vacation();
    if (g.json)
      std::cout << cli::to_json(v) << std::endl;
    else
      std::cout << cli::describe_vacation(v, 0, "counterattack ") << std::endl;
    return cli::kOk;
  }

  if (*tournament) {
    // The flags back into words: the shell types them the same way.
    auto words = tournament_words;
    if (!players.empty()) words.insert(words.end(), {"--players", players});
    if (!tournament_time.empty()) words.insert(words.end(), {"--time", tournament_time});
    if (!tournament_clock.empty()) words.insert(words.end(), {"--clock", tournament_clock});
    if (!swiss.empty()) words.insert(words.end(), {"--swiss", swiss});
    if (knockout) words.push_back("--knockout");
    if (!tournament_starts.empty()) words.insert(words.end(), {"--starts", tournament_starts});
    if (priv) words.push_back("--private");
    if (organise_only) words.push_back("--organise-only");
    for (const auto& o : options) words.insert(words.end(), {"--option", o});
    auto m = cli::tournament_request(words, &why);
    if (!m) return fail(g, why, cli::kUsage);
    if (!s.connect_and_resume(&why)) return fail(g, why);
    auto reply = s.call(*m, &why);
    if (!reply) return fail(g, why);
    if (reply->has_tournament_list()) {
      if (g.json) {
        std::cout << cli::to_json(reply->tournament_list()) << std::endl;
      } else if (reply->tournament_list().tournaments().empty()) {
        std::cout << "No tournaments (counterattack tournament new NAME --players 4 --time 3d creates one)." << std::endl;
      } else {
        std::cout << cli::tournament_list_text(s, reply->tournament_list());
      }
    } else if (reply->has_tournament()) {
      std::cout << (g.json ? cli::to_json(reply->tournament()) + "\n"
                    : m->has_withdraw_entrant() ? cli::removed_from_tournament_text(m->withdraw_entrant().player(), *reply, "counterattack ")
                    : m->has_leave_tournament() ? cli::left_tournament_text(*reply, "counterattack ", s.user())
                                                : cli::describe_tournament(reply->tournament(), "counterattack ", s.user()))
                << std::flush;
    } else if (g.json) {
      std::cout << "{\"ok\":true}" << std::endl;
    } else {
      std::cout << (m->has_leave_tournament()     ? cli::left_tournament_text(*reply, "counterattack ")
                    : m->has_adjudicate_game() ? cli::adjudicated_text(m->adjudicate_game())
                                               : "The tournament is cancelled.\n")
                << std::flush;
    }
    return cli::kOk;
  }

  if (*rating || *ratings) {
    if (rating_games > 0) {
      rating_words.push_back("--games");
      rating_words.push_back(std::to_string(rating_games));
    }
    auto m = *rating ? cli::rating_request(rating_words, &why) : cli::ratings_request({}, &why);
    if (!m) return fail(g, why, cli::kUsage);
    // Ratings are public: a named player's, and the list, need no login.
    const bool public_request = *ratings || !m->get_rating().name().empty();
    if (!(s.logged_in() || !public_request ? s.connect_and_resume(&why) : s.connect(&why))) return fail(g, why);
    auto reply = s.call(*m, &why);
    if (!reply) return fail(g, why);
    if (reply->has_player_rating()) {
      std::cout << (g.json ? cli::to_json(reply->player_rating()) + "\n" : cli::describe_rating(reply->player_rating()));
    } else if (reply->has_rating_list()) {
      std::cout << (g.json ? cli::to_json(reply->rating_list()) + "\n" : cli::ratings_table(reply->rating_list()));
    } else {
      return fail(g, "The server answered with something other than ratings.");
    }
    std::cout << std::flush;
    return cli::kOk;
  }

  if (*forget_certificate) {
    std::string forgotten;
    if (!s.forget_certificate(&forgotten, &why)) return fail(g, why);
    if (g.json) {
      std::cout << nlohmann::json{{"server", s.url()}, {"forgotten", forgotten}}.dump() << std::endl;
    } else if (forgotten.empty()) {
      std::cout << "No certificate is remembered for " << s.url() << "." << std::endl;
    } else {
      std::cout << "Forgot the certificate remembered for " << s.url() << " (SHA-256 "
                << cli::display_fingerprint(forgotten)
                << "). A certificate the system's CAs do not vouch for is accepted again only with --insecure or "
                   "--pin." << std::endl;
    }
    return cli::kOk;
  }

  if (*fingerprint) {
    cli::GlobalOptions g2 = g;
    g2.insecure = true;
    g2.pin.clear();
    cli::Session probe(g2);
    probe.remember_insecure(false);
    if (!probe.init(&why) || !probe.connect(&why)) return fail(g, why);
    const std::string fp = probe.conn().peer_fingerprint();
    if (g.json) {
      std::cout << nlohmann::json{{"server", s.url()}, {"sha256", fp}}.dump() << std::endl;
    } else {
      std::cout << s.url() << " presents a certificate with SHA-256 "
                << cli::display_fingerprint(fp) << "\n"
                << "Check it with the server's operator, then pin it with a first command that needs no login, such as: "
                << "counterattack --server " << s.url() << " --pin " << fp
                << " ratings (or register NAME, or login NAME)" << std::endl;
    }
    return cli::kOk;
  }

  if (*verify) {
    // Public games are open to everyone once over: an account is not needed.
    if (!s.connect_as_known(&why)) return fail(g, why);
    cli::LiveGame lg(s, game_id);  // its summary holds the commitment published at the start
    if (!lg.subscribe(&why)) return fail(g, why);
    if (!lg.summary()) return fail(g, "The server sent no summary of game " + game_id + ".");
    if (lg.summary()->status() != "finished") {
      return fail(g, "Game " + game_id + " is " + (lg.summary()->status() == "open" ? "waiting for a second player" : "under way") +
                         ": a game is verified once it is over, when the server reveals its log and its dice seed.");
    }
    const auto found = cli::audit_finished(s, sc, game_id, lg.summary()->seed_commitment(), &why);
    if (!found) return fail(g, why);
    const auto& audit = *found;
    if (g.json) {
      nlohmann::json j{{"verified", audit.verified},
                       {"seed_matches_commitment", audit.seed_matches},
                       {"orders", audit.orders},
                       {"dice", audit.dice},
                       {"rules_revision", audit.revision},
                       {"dice_generator", audit.dice_kind},
                       {"state_hash", audit.state_hash}};
      if (!audit.verified) j["mismatch"] = audit.mismatch;
      std::cout << j.dump() << std::endl;
    } else {
      std::cout << cli::describe_audit(audit) << std::endl;
    }
    return audit.verified ? cli::kOk : cli::kFailed;
  }

  if (*replay) {
    std::optional<std::int64_t> at_version;
    if (!replay_at.empty()) {
      if (replay_at.size() > 15 || !std::all_of(replay_at.begin(), replay_at.end(), [](unsigned char c) { return std::isdigit(c); })) {
        return fail(g, "'" + replay_at + "' is not a version: --at takes a number, 0 for the setup.", cli::kUsage);
      }
      at_version = std::stoll(replay_at);
    } else if (g.json) {
      return fail(g, "replay --json prints one version: give it with --at N.", cli::kUsage);
    }
    // Public games are open to everyone once over: an account is not needed.
    if (!s.connect_as_known(&why)) return fail(g, why);
    auto r = cli::Replay::fetch(s, sc, game_id, &why);
    if (!r) return fail(g, why);
    if (at_version) {
      if (!r->has(*at_version, &why)) return fail(g, why);
      std::cout << (g.json ? r->json(*at_version) + "\n" : cli::render_replay(*sc, *r, *at_version, ro)) << std::flush;
      return cli::kOk;
    }
    return cli::run_replay(*sc, *r, ro);
  }

  if (*play || app.get_subcommands().empty()) {
    if (g.json)
      return fail(g, "The interactive shell has no JSON output; use the one-shot commands.",
                  cli::kUsage);
    return cli::run_play(s, *sc, game_id, ro);
  }

  if (*watch) {
    if (!at.empty()) {
      const auto hex = cli::parse_map_hex(*sc, at);
      if (!hex) return fail(g, at + " is not a hex of the map.", cli::kUsage);
      ro.center_hex = *hex;
    }
    ro.whole_log = "`counterattack show " + game_id + " --log 0` shows all";
    return cli::run_watch(s, *sc, game_id, ro, g.json);
  }

  // The one-shot commands that need the parsed order first.
  std::optional<game::Order> parsed;
  if (*order) {
    std::string line;
    for (const auto& w : notation) line += (line.empty() ? "" : " ") + w;
    auto r = cli::parse_order(line, *sc);
    if (!r.ok()) return fail(g, r.error, cli::kUsage);
    parsed = *r.order;
  }
  std::optional<wire::ClientMessage> create_message;
  if (*create) {
    // The flags back into words: the shell types them the same way.
    std::vector<std::string> words = {"--side", side};
    if (priv) words.push_back("--private");
    if (casual) words.push_back("--casual");
    if (!time_per_move.empty()) words.insert(words.end(), {"--time", time_per_move});
    if (!game_clock.empty()) words.insert(words.end(), {"--clock", game_clock});
    for (const auto& o : options) words.insert(words.end(), {"--option", o});
    // An empty name (an unset shell variable) must not make a game open to anyone instead.
    if (opponent_given->count() > 0 && opponent.empty()) return fail(g, "--opponent takes the name of the player you challenge.", cli::kUsage);
    if (!opponent.empty()) words.insert(words.end(), {"--opponent", opponent});
    create_message = cli::new_game_request(words, &why);
    if (!create_message) return fail(g, why, cli::kUsage);
  }
  if (*chat && !s.logged_in()) {
    return fail(g, "Writing in a game's chat, the spectators' channel too, needs an account (watching a public game needs none): "
                   "run `counterattack register NAME` or `counterattack login NAME` first.");
  }
  if (*draw && draw_answer.empty()) {
    return fail(g, "draw GAME offer | accept | decline: offer a draw, or answer your opponent's offer.", cli::kUsage);
  }
  if (*stack && !sc->parse_location(where)) {
    return fail(g, "'" + where + "' is not a location: a hex of the map (2021), WARSAW or an entry point.", cli::kUsage);
  }
  if (*resign && !yes && ::isatty(STDIN_FILENO)) {
    std::cerr << "Resign game " << game_id << "? [y/N] " << std::flush;
    std::string answer;
    std::getline(std::cin, answer);
    if (answer != "y" && answer != "Y" && answer != "yes")
      return fail(g, "Not resigned.", cli::kUsage);
  }

  // The filters of `games` as the shell's words, for the list the flags choose.
  auto games_query = [&](wire::GameListKind kind) {
    std::vector<std::string> words;
    if (!games_player.empty()) words.insert(words.end(), {"player", games_player});
    if (!games_scenario.empty()) words.insert(words.end(), {"scenario", games_scenario});
    if (games_rated) words.push_back("rated");
    if (games_casual) words.push_back("casual");
    if (!games_timing.empty()) words.push_back(games_timing);
    if (games_min_rating != 0) words.insert(words.end(), {"min-rating", std::to_string(games_min_rating)});
    if (games_max_rating != 0) words.insert(words.end(), {"max-rating", std::to_string(games_max_rating)});
    if (games_per_page != 0) words.insert(words.end(), {"per-page", std::to_string(games_per_page)});
    auto query = cli::open_games_query(words, &why, kind);
    if (query) query->filter.set_after(games_after);
    return query;
  };
  // Where the page stands, and the command for the one after: by its last game, so that
  // games started or ended meanwhile neither repeat nor slip past.
  const auto page_place = [&](bool more) {
    return games_after.empty() ? (games_page > 1 || more ? ", page " + std::to_string(games_page) : std::string())
                               : ", after " + games_after;
  };

  // One player's public games of every kind: the first page of each list, no login needed.
  if (*games && !games_player.empty() && !open_only && !games_playing && !games_finished) {
    if (games_min_rating != 0 || games_max_rating != 0) {
      return fail(g, "Rating bounds choose among open games by their maker's rating: give --open with them.", cli::kUsage);
    }
    if (games->count("--page") > 0 || !games_after.empty()) {
      return fail(g, "--page and --after walk one list: give --open, --playing or --finished with them.", cli::kUsage);
    }
    const auto query = games_query(wire::GAMES_IN_PLAY);
    if (!query) return fail(g, why, cli::kUsage);
    if (!s.connect_as_known(&why)) return fail(g, why);
    const auto found = cli::player_games(s, query->filter, &why);
    if (!found) return fail(g, why);
    if (g.json) {
      nlohmann::json j;
      j["player"] = games_player;
      for (const auto& [key, list] : {std::pair<std::string, const wire::GameList*>{"open", &found->open},
                                      {"playing", &found->playing},
                                      {"finished", &found->finished}}) {
        j[key] = nlohmann::json::array();
        for (const auto& x : list->games()) j[key].push_back(nlohmann::json::parse(cli::to_json(x)));
        j[key + "_next_after"] = list->next_after().empty() ? nlohmann::json(nullptr) : nlohmann::json(list->next_after());
      }
      std::cout << j.dump() << std::endl;
      return cli::kOk;
    }
    const std::string flags = cli::open_games_flags(found->filter);
    auto others = found->filter;
    others.clear_player();
    const std::string filters = cli::open_games_flags(others);
    std::cout << cli::player_games_text(*found, filters.empty() ? "" : filters.substr(1), "counterattack ",
                                        [&](wire::GameListKind kind, const std::string& next) {
                                          return "More: counterattack games " +
                                                 std::string(kind == wire::OPEN_GAMES      ? "--open"
                                                             : kind == wire::GAMES_IN_PLAY ? "--playing"
                                                                                           : "--finished") +
                                                 flags + " --after " + next;
                                        });
    return cli::kOk;
  }

  if (*games && (games_playing || games_finished)) {
    const auto kind = games_playing ? wire::GAMES_IN_PLAY : wire::FINISHED_GAMES;
    const auto query = games_query(kind);
    if (!query) return fail(g, why, cli::kUsage);
    // Anyone may list them, as anyone may watch them: an account is not needed.
    if (!s.connect_as_known(&why)) return fail(g, why);
    auto page = cli::open_games_page(s, query->filter, games_page, &why);
    if (!page) return fail(g, why);
    const bool more = !page->next_after().empty();
    const std::string flag = games_playing ? "--playing" : "--finished";
    if (g.json) {
      nlohmann::json j;
      const char* key = games_playing ? "playing" : "finished";
      j[key] = nlohmann::json::array();
      for (const auto& x : page->games()) j[key].push_back(nlohmann::json::parse(cli::to_json(x)));
      if (games_after.empty()) j["page"] = games_page;
      j["next_page"] = more && games_after.empty() ? nlohmann::json(games_page + 1) : nlohmann::json(nullptr);
      j["next_after"] = more ? nlohmann::json(page->next_after()) : nlohmann::json(nullptr);
      std::cout << j.dump() << std::endl;
      return cli::kOk;
    }
    const std::string filters = cli::open_games_flags(query->filter);
    std::cout << (games_playing ? "Games in play" : "Finished games, newest ended first")
              << (filters.empty() ? "" : " (" + filters.substr(1) + ")")
              << page_place(more) << ":\n";
    if (page->games().empty() && games_page == 1) std::cout << (filters.empty() ? "  none\n" : "  none such\n");
    for (const auto& x : page->games()) std::cout << "  " << cli::listed_game_line(x, "counterattack ") << "\n";
    if (more) std::cout << "More: counterattack games " << flag << filters << " --after " << page->next_after() << "\n";
    return cli::kOk;
  }

  if (*exp) {
    // Public games are open to everyone once over: an account is not needed.
    if (!s.connect_as_known(&why)) return fail(g, why);
    wire::ClientMessage m;
    m.mutable_get_log()->set_game_id(game_id);
    // The log as the server keeps it, for auditors; as JSON it holds no raw control character.
    auto reply = s.call(m, &why, std::chrono::seconds(60), cli::Connection::Text::as_sent);
    if (!reply) {
      // `show` needs a session: one who has none is told to log in first.
      return fail(g, why + (s.last_error() != wire::FORBIDDEN ? ""
                            : s.logged_in()   ? " `counterattack show " + game_id + " --log 0` shows the log as you may read it now."
                                              : " Once logged in (`counterattack login NAME`), `counterattack show " + game_id +
                                                    " --log 0` shows the log as you may read it."));
    }
    if (!reply->has_game_log()) return fail(g, "The server sent no log.");
    std::cout << cli::to_json(reply->game_log(), !g.json) << std::endl;
    return cli::kOk;
  }

  // The open games are public, as the games in play are: a visitor may list them (joining needs an account).
  const bool visitor_may = *games && open_only;
  if (!(visitor_may ? s.connect_as_known(&why) : s.connect_and_resume(&why))) return fail(g, why);

  if (*games) {
    wire::GameList mine, open;
    if (!open_only) {
      wire::ClientMessage m;
      m.mutable_my_games();
      auto reply = s.call(m, &why);
      if (!reply) return fail(g, why);
      mine = reply->game_list();
    }
    cli::OpenGamesQuery query;
    bool more = false;
    if (my_turn) {
      auto* list = mine.mutable_games();
      list->erase(std::remove_if(list->begin(), list->end(), [](const auto& x) { return !cli::waits_for_you(x); }),
                  list->end());
    } else {
      auto asked = games_query(wire::OPEN_GAMES);
      if (!asked) return fail(g, why, cli::kUsage);
      query = *asked;
      auto page = cli::open_games_page(s, query.filter, games_page, &why);
      if (!page) return fail(g, why);
      open = *page;
      more = !open.next_after().empty();
    }
    if (g.json) {
      nlohmann::json j;
      j["mine"] = nlohmann::json::array();
      j["open"] = nlohmann::json::array();
      for (const auto& x : mine.games())
        j["mine"].push_back(nlohmann::json::parse(cli::to_json(x)));
      for (const auto& x : open.games())
        j["open"].push_back(nlohmann::json::parse(cli::to_json(x)));
      // What the text shows: --my-turn your games alone, --open the open games alone.
      if (open_only) j.erase("mine");
      if (my_turn) {
        j.erase("open");
      } else {
        if (games_after.empty()) j["page"] = games_page;
        j["next_page"] = more && games_after.empty() ? nlohmann::json(games_page + 1) : nlohmann::json(nullptr);
        j["next_after"] = more ? nlohmann::json(open.next_after()) : nlohmann::json(nullptr);
      }
      std::cout << j.dump() << std::endl;
      return cli::kOk;
    }
    if (!open_only) {
      std::cout << (my_turn ? "Your games that wait for your move:\n" : "Your games:\n");
      if (mine.games().empty()) std::cout << "  none\n";
      for (const auto& x : mine.games()) std::cout << "  " << cli::game_line(x, "counterattack ") << "\n";
    }
    if (my_turn) return cli::kOk;
    const std::string filters = cli::open_games_flags(query.filter);
    std::cout << "Open games" << (filters.empty() ? "" : " (" + filters.substr(1) + ")")
              << page_place(more) << ":\n";
    if (open.games().empty() && games_page == 1) {
      std::cout << (filters.empty() ? "  none" : "  none such") << " (counterattack new --side soviet creates one)\n";
    }
    for (const auto& x : open.games()) std::cout << "  " << cli::game_line(x, "counterattack ") << "\n";
    if (more) {
      std::cout << "More: counterattack games --open" << filters << " --after " << open.next_after() << "\n";
    }
    if (!s.logged_in() && !open.games().empty()) {
      std::cout << "To join one, have an account: counterattack register NAME (or login NAME).\n";
    }
    return cli::kOk;
  }

  if (*create) {
    auto reply = s.call(*create_message, &why);
    if (!reply) return fail(g, why);
    if (!reply->has_game_created()) return fail(g, "The server did not create a game.");
    const auto& gc = reply->game_created();
    if (g.json) {
      nlohmann::json j{{"game_id", gc.game().game_id()}};
      if (!gc.invite_code().empty()) j["invite_code"] = gc.invite_code();
      j["your_side"] = gc.game().your_side();
      if (!gc.game().reserved_for().empty()) j["opponent"] = gc.game().reserved_for();
      std::cout << j.dump() << std::endl;
    } else if (!gc.game().reserved_for().empty()) {
      std::cout << gc.game().game_id() << std::endl;
      std::cerr << cli::challenge_made_text(gc.game(), true) << std::endl;
    } else {
      std::cout << gc.game().game_id() << std::endl;
      std::cerr << "Created game " << gc.game().game_id()
                << (gc.game().your_side().empty() ? "" : "; you play " + gc.game().your_side())
                << ". Your opponent joins with: counterattack join " << gc.game().game_id()
                << (gc.invite_code().empty() ? "" : " --invite " + gc.invite_code()) << std::endl;
    }
    return cli::kOk;
  }

  if (*standing) {
    if (standing_words.empty()) {
      const auto set = cli::my_standing_orders(s, game_id, &why);
      if (!set) return fail(g, why);
      std::cout << (g.json ? cli::to_json(*set) : cli::describe_standing(*set)) << std::endl;
      return cli::kOk;
    }
    auto m = cli::standing_request(game_id, standing_words, &why);
    if (!m) return fail(g, why, cli::kUsage);
    if (!s.call(*m, &why)) return fail(g, why);
    const auto& set = m->set_standing_orders().orders();
    std::cout << (g.json ? cli::to_json(set) : cli::describe_standing(set)) << std::endl;
    return cli::kOk;
  }

  if (*decline_challenge) {
    wire::ClientMessage m;
    m.mutable_decline_challenge()->set_game_id(game_id);
    if (!s.call(m, &why)) return fail(g, why);
    if (g.json) {
      std::cout << nlohmann::json{{"declined", game_id}}.dump() << std::endl;
    } else {
      std::cout << "Declined the challenge of game " << game_id << "." << std::endl;
    }
    return cli::kOk;
  }

  if (*rematch) {
    wire::ClientMessage m;
    m.mutable_rematch()->set_game_id(game_id);
    m.mutable_rematch()->set_decline(decline);
    auto reply = s.call(m, &why);
    if (!reply) return fail(g, why);
    if (decline) {
      if (!g.json) std::cout << "Declined the rematch of game " << game_id << "." << std::endl;
    } else if (g.json) {
      std::cout << cli::to_json(reply->has_game_created() ? reply->game_created().game() : reply->game()) << std::endl;
    } else {
      std::cout << cli::rematch_answer(*reply) << std::endl;
    }
    return cli::kOk;
  }

  if (*join) {
    wire::ClientMessage m;
    m.mutable_join_game()->set_game_id(game_id);
    m.mutable_join_game()->set_invite_code(invite);
    auto reply = s.call(m, &why);
    if (!reply) return fail(g, why);
    if (g.json) {
      std::cout << (reply->has_game() ? cli::to_json(reply->game())
                                      : std::string("{\"game_id\":\"" + game_id + "\"}"))
                << std::endl;
    } else {
      std::cout << "Joined game " << game_id;
      if (reply->has_game() && !reply->game().your_side().empty())
        std::cout << " as the " << reply->game().your_side() << " player";
      std::cout << ". counterattack show " << game_id << " draws it." << std::endl;
    }
    return cli::kOk;
  }

  if (*show) {
    if (!at.empty()) {
      const auto hex = cli::parse_map_hex(*sc, at);
      if (!hex) return fail(g, at + " is not a hex of the map.", cli::kUsage);
      ro.center_hex = *hex;
    }
    ro.full = full;
    ro.log_lines = log_lines;
    ro.whole_log = "--log 0 shows all";
    cli::LiveGame lg(s, game_id);
    if (!lg.subscribe(&why)) return fail(g, why);
    if (g.json && log_option->count() > 0) {
      // The view and the log asked for: each event with its order's version and time.
      std::vector<std::int64_t> versions, times;
      const auto events = lg.whole_log(nullptr, &versions, &times);
      const std::size_t first =
          log_lines > 0 && events.size() > static_cast<std::size_t>(log_lines) ? events.size() - static_cast<std::size_t>(log_lines) : 0;
      nlohmann::json j{{"view", nlohmann::json::parse(cli::to_json(lg.view()))}, {"log", nlohmann::json::array()}};
      for (std::size_t i = first; i < events.size(); ++i) {
        nlohmann::json e{{"event", nlohmann::json::parse(cli::to_json(events[i]))}};
        if (times.size() == events.size()) {
          e["version"] = versions[i];
          e["time_unix"] = times[i];
        }
        j["log"].push_back(std::move(e));
      }
      std::cout << cli::json_shown(j.dump()) << std::endl;
    } else if (g.json) {
      std::cout << cli::to_json(lg.view()) << std::endl;
    } else {
      // Asked for the log: the whole of it, whose events carry their versions and times, where you last looked marked.
      const bool whole = log_option->count() > 0 || log_lines == 0 || static_cast<std::size_t>(log_lines) > lg.log().size();
      const auto events = whole ? lg.whole_log(log_option->count() > 0 ? &ro.new_from : nullptr, &ro.event_versions, &ro.event_times)
                                : lg.log();
      ro.reader = cli::log_reader(lg);
      std::cout << cli::render_screen(*sc, lg.view(), events, ro) << cli::game_lines(lg)
                << cli::time_line(lg);
      // The recent chat, and the end of a game over, as the shell would have shown them.
      for (const auto& n : lg.take_notices()) std::cout << n.text << "\n";
      std::cout << std::flush;
    }
    return cli::kOk;
  }

  if (*units || *stack || *hand || *decision) {
    cli::LiveGame lg(s, game_id);
    if (!lg.subscribe(&why)) return fail(g, why);
    const auto& v = lg.view();
    if (g.json) {
      // The part of the view each shows: your stacks, the stacks there, the hands, the decision.
      auto j = nlohmann::json::array();
      const std::string there = *stack ? sc->location_name(*sc->parse_location(where)) : "";
      for (const auto& st : v.stacks()) {
        if ((*units && st.side() == cli::player_side(lg)) || (*stack && st.location() == there)) {
          j.push_back(nlohmann::json::parse(cli::to_json(st)));
        }
      }
      if (*hand) {
        for (const auto& h : v.hands()) j.push_back(nlohmann::json::parse(cli::to_json(h)));
      }
      std::cout << (*decision ? cli::to_json(v.decision()) : j.dump()) << std::endl;
      return cli::kOk;
    }
    std::cout << (*units ? cli::render_units(*sc, v, cli::player_side(lg))
                  : *stack ? *cli::render_stack_at(*sc, v, where, ro)
                  : *hand  ? cli::render_hands(*sc, v, ro)
                           : cli::render_decision(v, ro))
              << std::flush;
    return cli::kOk;
  }

  if (*order) {
    const std::string key = cli::new_idempotency_key();
    cli::OrderOutcome r;
    for (int attempt = 0; attempt < 3 && !r.answered; ++attempt) {
      // A retry after a lost connection carries the same key: never applied twice.
      if (attempt > 0 && !s.connect_and_resume(&why)) continue;
      r = cli::submit_order(s, game_id, *parsed, key);
    }
    if (!r.answered)
      return fail(g, "The order got no answer; `counterattack show " + game_id +
                         "` tells whether it was applied.");
    // The rules name the off-map chart for a path that begins where its units are off the map
    // ("no route from WARSAW to WARSAW"): said as they say it for a hex.
    std::string hint;
    if (!r.accepted && r.by_rules && parsed->has_move() && !parsed->move().path().empty()) {
      const std::string& first = parsed->move().path(0);
      if (r.reason.find("from " + first + " to " + first + " ") != std::string::npos) hint = cli::path_start_hint(*parsed, first);
    }
    // What the order did, as your view reads it: the die and result of a barrage or an attack.
    // Then what came of it at once (the opponent's standing answers): the game reads as seen to its end.
    const auto versions = r.accepted ? cli::order_events(s, game_id, r.version) : std::vector<cli::VersionEvents>{};
    auto events_json = [](const std::vector<game::Event>& events) {
      auto a = nlohmann::json::array();
      for (const auto& e : events) a.push_back(nlohmann::json::parse(cli::to_json(e)));
      return a;
    };
    if (g.json) {
      nlohmann::json j{{"accepted", r.accepted}, {"order", cli::format_order(*parsed)}};
      if (r.accepted) {
        j["version"] = r.version;
        j["events"] = nlohmann::json::array();
        j["then"] = nlohmann::json::array();
        for (const auto& ve : versions) {
          if (ve.version == r.version) j["events"] = events_json(ve.events);
          else j["then"].push_back({{"version", ve.version}, {"events", events_json(ve.events)}});
        }
      } else {
        j["code"] = r.code;
        j["reason"] = r.reason;
        if (!hint.empty()) j["hint"] = hint;
      }
      std::cout << cli::json_shown(j.dump()) << std::endl;
    } else if (r.accepted) {
      std::cout << "accepted (version " << r.version << ")" << std::endl;
      for (const auto& ve : versions) {
        if (ve.version != r.version) std::cout << "then version " << ve.version << ":\n";
        for (const auto& e : ve.events) std::cout << "  " << e.text() << "\n";
      }
      // What the game now waits for, and from whom, as `decision` and the shell say it: the
      // player need not ask. Not had (the connection lost): the order stands all the same.
      cli::LiveGame now(s, game_id);
      if (now.subscribe(nullptr)) std::cout << cli::render_decision(now.view(), ro);
      std::cout << std::flush;
    } else {
      std::cout << "rejected: " << r.reason << (hint.empty() ? "" : " " + hint)
                << (r.code == "WRONG_ORDER_KIND" ? " `counterattack show " + game_id + "` gives the decision and the notation that answers it."
                                                 : std::string())
                << std::endl;
    }
    // Refused by the rules: 3; refused before them (no such game, not yours, over): 1, as other commands.
    return r.accepted ? cli::kOk : r.by_rules ? cli::kRejected : cli::kFailed;
  }

  if (*resign) {
    // Whom a challenge waits for, which the server says only while it waits.
    const auto before = cli::my_game(s, game_id);
    wire::ClientMessage m;
    m.mutable_resign()->set_game_id(game_id);
    if (!s.call(m, &why)) return fail(g, why);
    if (g.json) {
      // A game nobody had joined is withdrawn, not resigned: scripts are told which.
      nlohmann::json j{{"resigned", true}};
      if (const auto w = cli::withdrawn_game(s, game_id, before)) {
        j = {{"withdrawn", true}, {"game_id", game_id}};
        if (!w->reserved_for().empty()) j["reserved_for"] = w->reserved_for();
        if (!w->rematch_of().empty()) j["rematch_of"] = w->rematch_of();
      }
      std::cout << cli::json_shown(j.dump()) << std::endl;
    } else {
      std::cout << cli::resign_outcome(s, game_id, before, "You resigned game " + game_id + ".") << std::endl;
    }
    return cli::kOk;
  }

  if (*draw) {
    if (!s.call(cli::draw_request(game_id, draw_answer), &why)) return fail(g, why);
    if (g.json)
      std::cout << "{\"draw\":\"" << draw_answer << "\"}" << std::endl;
    else if (draw_answer == "offer")
      std::cout << "You offered a draw; your opponent answers with: counterattack draw " << game_id << " accept|decline" << std::endl;
    else if (draw_answer == "accept")
      std::cout << "You accepted the draw: game " << game_id << " is drawn." << std::endl;
    else
      std::cout << "You declined the draw; play goes on in game " << game_id << "." << std::endl;
    return cli::kOk;
  }

  if (*chat) {
    std::string t;
    for (const auto& w : notation) t += (t.empty() ? "" : " ") + w;
    wire::ClientMessage m;
    m.mutable_send_chat()->set_game_id(game_id);
    m.mutable_send_chat()->set_channel(spectators ? wire::SPECTATORS : wire::PLAYERS);
    m.mutable_send_chat()->set_text(t);
    if (!s.call(m, &why)) return fail(g, why);
    if (g.json)
      std::cout << "{\"sent\":true}" << std::endl;
    else
      std::cout << "Sent to the " << (spectators ? "spectators'" : "players'") << " chat of game " << game_id
                << "; `counterattack show " << game_id << "` shows the recent chat." << std::endl;
    return cli::kOk;
  }

  if (*mute || *unmute || *muted || *report) {
    const std::string command = mute->parsed() ? "mute" : unmute->parsed() ? "unmute" : muted->parsed() ? "muted" : "report";
    std::vector<std::string> words;
    if (!muted->parsed()) words.push_back(name);
    words.insert(words.end(), report_words.begin(), report_words.end());
    auto m = cli::chat_moderation_request(command, words, game_id, &why);
    if (!m) return fail(g, why, cli::kUsage);
    auto reply = s.call(*m, &why);
    if (!reply) return fail(g, why);
    if (m->has_report_chat()) {
      if (g.json)
        std::cout << nlohmann::json{{"reported", true}, {"name", reply->chat_reported().name()}}.dump() << std::endl;
      else
        std::cout << cli::reported_text(m->report_chat(), reply->chat_reported()) << std::endl;
      return cli::kOk;
    }
    if (g.json) {
      nlohmann::json j{{"muted", std::vector<std::string>(reply->muted_players().names().begin(),
                                                           reply->muted_players().names().end())}};
      if (!m->has_list_muted()) j["name"] = reply->muted_players().name();  // as registered
      std::cout << j.dump() << std::endl;
    } else {
      std::cout << cli::describe_muted(*m, reply->muted_players()) << std::endl;
    }
    return cli::kOk;
  }

  return cli::kOk;
}
