#include "render.h"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <map>
#include <set>
#include <sstream>

#include "hexgrid.h"

namespace counterattack::cli {
namespace {

// Cell geometry of the map window: six characters of content and a separator
// per hex column; two lines per hex, even columns half a hex lower.
constexpr int kCellWidth = 7;

// SGR styles.
constexpr const char* kSoviet = "1;97;41";
constexpr const char* kGerman = "1;97;100";
constexpr const char* kWater = "1;34";
constexpr const char* kStar = "1;31";
constexpr const char* kBold = "1";
constexpr const char* kDim = "2";

std::string sgr(const std::string& text, const char* style, bool colour) {
  if (!colour || !style || !*style) return text;
  return "\033[" + std::string(style) + "m" + text + "\033[0m";
}

// A grid of characters with a style each, written out with or without ANSI codes.
class Canvas {
 public:
  Canvas(int w, int h)
      : w_(w),
        chars_(static_cast<size_t>(h), std::string(static_cast<size_t>(w), ' ')),
        styles_(static_cast<size_t>(h), std::vector<std::string>(static_cast<size_t>(w))) {}
  void put(int x, int y, const std::string& text, const std::string& style = "") {
    for (size_t i = 0; i < text.size(); ++i) {
      const int xi = x + static_cast<int>(i);
      if (y < 0 || y >= static_cast<int>(chars_.size()) || xi < 0 || xi >= w_) continue;
      chars_[static_cast<size_t>(y)][static_cast<size_t>(xi)] = text[i];
      styles_[static_cast<size_t>(y)][static_cast<size_t>(xi)] = style;
    }
  }
  std::string str(bool colour) const {
    std::string out;
    for (size_t y = 0; y < chars_.size(); ++y) {
      std::string line;
      std::string cur;
      for (size_t x = 0; x < chars_[y].size(); ++x) {
        const std::string& st = styles_[y][x];
        if (colour && st != cur) {
          line += "\033[0m";
          if (!st.empty()) line += "\033[" + st + "m";
          cur = st;
        }
        line += chars_[y][x];
      }
      if (colour && !cur.empty()) line += "\033[0m";
      // Trailing blanks carry no information (and make goldens fragile).
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out += line + "\n";
    }
    return out;
  }

 private:
  int w_;
  std::vector<std::string> chars_;
  std::vector<std::vector<std::string>> styles_;
};

std::string terrain_bg(const std::string& key) {
  if (key == "woods") return "42";
  if (key == "marsh") return "46";
  if (key == "village" || key == "town") return "43";
  if (key == "city") return "45";
  return "";
}

// A foreground style over a terrain's background.
std::string over(const std::string& fg, const std::string& key) {
  const std::string bg = terrain_bg(key);
  return bg.empty() ? fg : fg + ";" + bg;
}

const char* terrain_style(const std::string& key) {
  if (key == "woods") return "30;42";
  if (key == "marsh") return "30;46";
  if (key == "village") return "30;43";
  if (key == "town") return "1;30;43";
  if (key == "city") return "1;97;45";
  return "";
}

std::string terrain_fill(const TerrainType& t) {
  if (t.key == "clear") return "  .   ";
  if (t.key == "village") return "  v   ";
  std::string s(1, t.symbol);
  return " " + s + s + s + "  ";
}

char road_char(const Scenario& sc, const Hex& h) {
  std::uint8_t bits = 0;
  for (auto b : h.roads) bits |= b;
  char best = ' ';
  int rank = 0;
  for (size_t i = 0; i < sc.road_types.size(); ++i) {
    if (!(bits & (1u << i))) continue;
    const auto& k = sc.road_types[i].key;
    const int r = k == "highway" ? 3 : sc.road_types[i].railway ? 1 : 2;
    if (r > rank) {
      rank = r;
      best = r == 3 ? '=' : r == 2 ? '-' : '+';
    }
  }
  return best;
}

// The water on one hexside, if any: 0 none, 1 stream, 2 river.
int water(const Scenario& sc, const Hex& h, Dir d) {
  const auto t = h.side[static_cast<size_t>(d)];
  if (t == kNone) return 0;
  const auto& ht = sc.hexside_types[static_cast<size_t>(t)];
  if (ht.prohibited) return 0;  // the major rivers are the map edge
  return ht.key == "stream" ? 1 : 2;
}

bool is_hex_number(const std::string& l) {
  return !l.empty() && std::all_of(l.begin(), l.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
}

std::string side_word(game::Side s) {
  return s == game::SOVIET ? "Soviet" : s == game::GERMAN ? "German" : "nobody";
}

// The flags of a stack, most telling first.
std::string stack_flags(const game::StackView& st) {
  bool hidden = false, dis = false, oos = false, pd = false, res = false, activated = false;
  for (const auto& u : st.units()) {
    hidden |= u.hidden();
    dis |= u.disorganized();
    oos |= u.out_of_supply();
    pd |= u.prepared_defense();
    res |= u.reserve();
    activated |= u.moved();  // the Moved marker: activated this turn (rule 5), moving or not
  }
  if (st.units_size() < st.height()) hidden = true;
  std::string f;
  if (hidden) f += '?';
  if (dis) f += 'D';
  if (oos) f += 'O';
  if (pd) f += 'P';
  if (res) f += 'R';
  if (activated) f += 'A';
  return f;
}

std::string unit_text(const Scenario& sc, const game::UnitView& u) {
  if (u.hidden() || u.id().empty()) return "? (hidden)";
  std::string s = u.id() + " " + std::to_string(u.combat()) + "-" + std::to_string(u.movement());
  std::vector<std::string> notes;
  if (auto idx = sc.unit_index(u.id())) {
    const int full = static_cast<int>(sc.units[static_cast<size_t>(*idx)].steps.size());
    if (u.steps() > 0 && u.steps() < full) notes.push_back("reduced");
  }
  if (u.movement_left_half() > 0) notes.push_back(mp_text(u.movement_left_half()) + " MP left");
  if (u.moved()) notes.push_back("activated this turn");
  if (u.disorganized()) notes.push_back("DIS");
  if (u.out_of_supply()) notes.push_back("OOS");
  if (u.prepared_defense()) notes.push_back("prepared defense");
  if (u.reserve()) notes.push_back("reserve");
  for (const auto& m : u.markers()) notes.push_back(m);
  if (!notes.empty()) {
    s += " [";
    for (size_t i = 0; i < notes.size(); ++i) s += (i ? ", " : "") + notes[i];
    s += "]";
  }
  return s;
}

std::string location_label(const Scenario& sc, const std::string& loc) {
  auto l = sc.parse_location(loc);
  if (!l) return loc;
  if (sc.is_hex(*l)) {
    const auto& h = sc.hexes[static_cast<size_t>(*l)];
    std::string s = loc + " (" + (h.name.empty() ? "" : h.name + ", ") + sc.terrain[h.terrain].key;
    if (h.victory != kNone) s += ", victory hex";
    return s + ")";
  }
  if (sc.is_entry(*l)) {
    const auto& e = sc.entry_points[static_cast<size_t>(sc.entry_index(*l))];
    // Where its units come onto the map (rule 17): nowhere else on the board says it.
    std::string at;
    for (std::size_t i = 0; i < e.hexes.size(); ++i) {
      at += (i == 0 ? "" : i + 1 == e.hexes.size() ? " or " : ", ") + sc.location_name(e.hexes[i]);
    }
    const std::string enters = at.empty() ? "" : "entering at " + at + ", or a hex next to one";
    if (e.name.empty() && enters.empty()) return "entry " + loc;
    return "entry " + loc + " (" + e.name + (e.name.empty() || enters.empty() ? "" : "; ") + enters + ")";
  }
  return loc;
}

// Words of one line spread over lines of at most width characters.
std::string wrap(const std::string& text, int width, const std::string& indent) {
  const size_t lead = std::min(text.find_first_not_of(' '), text.size());
  std::string out, line = text.substr(0, lead);
  bool fresh = true;
  std::istringstream in(text.substr(lead));
  for (std::string word; in >> word;) {
    if (!fresh && visible_len(line) + 1 + visible_len(word) > width) {
      out += line + "\n";
      line = indent;
      fresh = true;
    }
    line += (fresh ? "" : " ") + word;
    fresh = false;
  }
  return out + line + "\n";
}

void wrap_append(std::string& out, const std::string& head, const std::vector<std::string>& items,
                 int width) {
  std::string line = head;
  for (size_t i = 0; i < items.size(); ++i) {
    std::string item = items[i] + (i + 1 < items.size() ? "," : "");
    if (visible_len(line) + 1 + visible_len(item) > width && line.size() > head.size()) {
      out += line + "\n";
      line = std::string(head.size(), ' ');
    }
    line += (line.back() == ' ' ? "" : " ") + item;
  }
  out += line + "\n";
}

}  // namespace

int visible_len(const std::string& s) {
  int n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\033') {
      while (i < s.size() && s[i] != 'm') ++i;
      continue;
    }
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) ++n;
  }
  return n;
}

std::size_t terminal_rows(const std::string& text, std::size_t width) {
  std::size_t rows = 0;
  for (std::size_t from = 0; from < text.size();) {
    const std::size_t nl = std::min(text.find('\n', from), text.size());
    const auto columns = static_cast<std::size_t>(visible_len(text.substr(from, nl - from)));
    rows += width == 0 || columns <= width ? 1 : (columns + width - 1) / width;  // an empty line takes a row too
    from = nl + 1;
  }
  return rows;
}

bool Window::contains(int hex) const {
  const HexCoord c = coord_of(hex);
  return c.col >= col0 && c.col < col0 + cols && c.row >= row0 && c.row < row0 + rows;
}

std::optional<int> parse_map_hex(const Scenario& sc, const std::string& text) {
  const auto hex = parse_hex(text);
  if (!hex) return std::nullopt;
  const HexCoord c = coord_of(*hex);
  if (c.col < 1 || c.row < 1 || c.col > sc.columns || c.row > sc.rows) return std::nullopt;
  return hex;
}

game::Side viewer_side(const game::View& v) {
  if (v.viewer() == game::VIEWER_SOVIET) return game::SOVIET;
  if (v.viewer() == game::VIEWER_GERMAN) return game::GERMAN;
  return game::SIDE_UNSPECIFIED;
}

std::vector<std::string> own_units(const game::View& v) {
  std::vector<std::string> out;
  const game::Side me = viewer_side(v);
  for (const auto& st : v.stacks()) {
    if (st.side() != me) continue;
    for (const auto& u : st.units()) {
      if (!u.id().empty()) out.push_back(u.id());
    }
  }
  return out;
}

Window map_window(const Scenario& sc, const game::View& v, const RenderOptions& o) {
  Window w;
  w.cols = std::max(1, std::min(sc.columns, (o.width - 1) / kCellWidth));
  w.rows = std::max(1, std::min(sc.rows, o.hex_rows));
  int cc = 0, cr = 0;
  if (o.center_hex > 0) {
    cc = coord_of(o.center_hex).col;
    cr = coord_of(o.center_hex).row;
  } else {
    // The middle of the viewer's own units on the map, else of every stack.
    const game::Side me = viewer_side(v);
    for (int pass = 0; pass < 2 && cc == 0; ++pass) {
      long sum_c = 0, sum_r = 0, n = 0;
      for (const auto& st : v.stacks()) {
        if (!is_hex_number(st.location()) || (pass == 0 && st.side() != me)) continue;
        const HexCoord c = coord_of(std::stoi(st.location()));
        sum_c += c.col;
        sum_r += c.row;
        ++n;
      }
      if (n) {
        cc = static_cast<int>((sum_c + n / 2) / n);
        cr = static_cast<int>((sum_r + n / 2) / n);
      }
    }
    if (cc == 0) {
      cc = (sc.columns + 1) / 2;
      cr = (sc.rows + 1) / 2;
    }
  }
  w.col0 = std::clamp(cc - w.cols / 2, 1, std::max(1, sc.columns - w.cols + 1));
  w.row0 = std::clamp(cr - w.rows / 2, 1, std::max(1, sc.rows - w.rows + 1));
  return w;
}

std::string render_map(const Scenario& sc, const game::View& v, const RenderOptions& o) {
  const Window w = map_window(sc, v, o);
  const game::Side me = viewer_side(v);
  std::map<std::string, std::vector<const game::StackView*>> at;
  for (const auto& st : v.stacks()) at[st.location()].push_back(&st);

  Canvas cv(1 + w.cols * kCellWidth, 2 * w.rows + 1);
  auto line_of = [&](int col, int row) { return 2 * (row - w.row0) + (col % 2 == 0 ? 1 : 0); };
  auto hex_at = [&](int col, int row) -> const Hex* {
    if (col < 1 || row < 1 || col > sc.columns || row > sc.rows) return nullptr;
    const Loc l = sc.hex_at({col, row});
    return l >= 0 ? &sc.hexes[static_cast<size_t>(l)] : nullptr;
  };

  for (int c = w.col0; c < w.col0 + w.cols; ++c) {
    const int x = 1 + (c - w.col0) * kCellWidth;
    for (int r = w.row0; r < w.row0 + w.rows; ++r) {
      const Hex* h = hex_at(c, r);
      if (!h) continue;
      const int y = line_of(c, r);
      const auto& t = sc.terrain[h->terrain];
      const std::string bg = terrain_style(t.key);
      // Line 1: road, hex number, victory star.
      cv.put(x, y, std::string(1, road_char(sc, *h)) + format_hex(h->id), bg);
      cv.put(x + 5, y, h->victory != kNone ? "*" : " ",
             h->victory != kNone ? over(kStar, t.key) : bg);
      // Line 2: the stack, or the terrain; then the south hexside.
      const auto it = at.find(format_hex(h->id));
      if (it != at.end() && !it->second.empty()) {
        const game::StackView* st = it->second.front();
        for (const auto* s : it->second) {
          if (s->side() == me) st = s;
        }
        std::string text = std::string(st->side() == game::SOVIET ? "S" : "G") +
                           (st->height() > 9 ? std::string("+") : std::to_string(st->height())) +
                           stack_flags(*st);
        text.resize(5, ' ');
        cv.put(x, y + 1, text.substr(0, 5), st->side() == game::SOVIET ? kSoviet : kGerman);
      } else {
        cv.put(x, y + 1, terrain_fill(t).substr(0, 5), bg);
      }
      const int south = water(sc, *h, Dir::S);
      cv.put(x + 5, y + 1, south ? "_" : " ", south ? over(south == 2 ? kWater : "34", t.key) : bg);
      // The separators either side: a stream or river on that hexside.
      const int ne = water(sc, *h, Dir::NE), se = water(sc, *h, Dir::SE);
      if (ne) cv.put(x + 6, y, "~", ne == 2 ? kWater : "34");
      if (se) cv.put(x + 6, y + 1, "~", se == 2 ? kWater : "34");
      if (c == w.col0) {
        const int nw = water(sc, *h, Dir::NW), sw = water(sc, *h, Dir::SW);
        if (nw) cv.put(x - 1, y, "~", nw == 2 ? kWater : "34");
        if (sw) cv.put(x - 1, y + 1, "~", sw == 2 ? kWater : "34");
      }
    }
  }

  std::string out = cv.str(o.colour);
  out += "Window " + format_hex(w.col0 * 100 + w.row0) + "-" +
         format_hex((w.col0 + w.cols - 1) * 100 + w.row0 + w.rows - 1) + " of " + format_hex(101) +
         "-" + format_hex(sc.columns * 100 + sc.rows) + " (show --at HEX moves it).\n";
  out += "Each hex is its number with its stack or terrain under it (not beside it).\n";
  out += "Stacks: " + sgr("S", kSoviet, o.colour) + " Soviet, " + sgr("G", kGerman, o.colour) +
         " German, then the height; ? hidden units, D DIS, O OOS, P prepared defense, R reserve, A "
         "activated.\n";
  out += "Map: * victory  = highway  - road  + railway  ~ _ stream or river  . clear  " +
         sgr("f", terrain_style("woods"), o.colour) + " woods  " +
         sgr("m", terrain_style("marsh"), o.colour) + " marsh  " +
         sgr("v", terrain_style("village"), o.colour) + " village  " +
         sgr("t", terrain_style("town"), o.colour) + " town  " +
         sgr("C", terrain_style("city"), o.colour) + " Praga\n";
  std::vector<std::string> places;
  for (const auto& h : sc.hexes) {
    if (!h.name.empty() && w.contains(h.id))
      places.push_back(format_hex(h.id) + " " + h.name + (h.victory != kNone ? "*" : ""));
  }
  if (!places.empty()) wrap_append(out, "Places:", places, o.width);
  return out;
}

std::string render_full_map(const Scenario& sc, const game::View& v, const RenderOptions& o) {
  // Two characters a hex (terrain or stack, then road or height), two lines a row.
  const game::Side me = viewer_side(v);
  std::map<std::string, const game::StackView*> at;
  for (const auto& st : v.stacks()) {
    if (!at.count(st.location()) || st.side() == me) at[st.location()] = &st;
  }
  const int left = 3;
  Canvas cv(left + sc.columns * 2, 2 * sc.rows + 3);
  for (int c = 1; c <= sc.columns; ++c) {
    cv.put(left + (c - 1) * 2, 0, std::to_string(c / 10));
    cv.put(left + (c - 1) * 2, 1, std::to_string(c % 10));
  }
  for (int r = 1; r <= sc.rows; ++r) {
    std::string label = std::to_string(r);
    if (label.size() < 2) label = " " + label;
    cv.put(0, 2 + 2 * (r - 1), label);
  }
  for (int c = 1; c <= sc.columns; ++c) {
    for (int r = 1; r <= sc.rows; ++r) {
      const Loc l = sc.hex_at({c, r});
      if (l < 0) continue;
      const Hex& h = sc.hexes[static_cast<size_t>(l)];
      const int x = left + (c - 1) * 2;
      const int y = 2 + 2 * (r - 1) + (c % 2 == 0 ? 1 : 0);
      const auto& t = sc.terrain[h.terrain];
      const std::string bg = terrain_style(t.key);
      auto it = at.find(format_hex(h.id));
      if (it != at.end()) {
        const auto* st = it->second;
        const std::string height = st->height() > 9 ? "+" : std::to_string(st->height());
        cv.put(x, y, std::string(st->side() == game::SOVIET ? "S" : "G") + height,
               st->side() == game::SOVIET ? kSoviet : kGerman);
      } else {
        const char rc = road_char(sc, h);
        std::string s(1, t.symbol == '.' && rc != ' ' ? rc : t.symbol);
        s += h.victory != kNone ? '*' : ' ';
        cv.put(x, y, s, bg);
      }
    }
  }
  std::string out = cv.str(o.colour);
  out +=
      "The whole map: S/G and height for stacks, * victory hexes, terrain letters (. clear, f "
      "woods, m marsh, v village, t town, C Praga), = - + roads on clear hexes.\n";
  return out;
}

std::string render_stacks(const Scenario& sc, const game::View& v, const RenderOptions& o) {
  const Window w = map_window(sc, v, o);
  std::string out;
  std::string off;
  for (const auto& st : v.stacks()) {
    const bool hex = is_hex_number(st.location());
    if (hex && !o.full && !w.contains(std::stoi(st.location()))) continue;
    std::string line =
        location_label(sc, st.location()) + ": " +
        sgr(side_word(st.side()), st.side() == game::SOVIET ? kSoviet : kGerman, o.colour) + ", " +
        std::to_string(st.height()) + (st.height() == 1 ? " unit" : " units");
    if (!st.inspected()) line += " (only the top counter seen)";
    line += ": ";
    for (int i = 0; i < st.units_size(); ++i) line += (i ? "; " : "") + unit_text(sc, st.units(i));
    for (int i = st.units_size(); i < st.height(); ++i) line += "; ? (hidden)";
    (hex ? out : off) += wrap("  " + line, o.width, "      ");
  }
  std::string res;
  if (!out.empty())
    res +=
        sgr(o.full ? "Stacks on the map:" : "Stacks in the window:", kBold, o.colour) + "\n" + out;
  if (!off.empty()) res += sgr("Off the map:", kBold, o.colour) + "\n" + off;
  return res;
}

// Rule 19's track: what has gone to the bridgehead, and the next withdrawal still to come (this
// turn's until its administrative phase is over).
static std::string magnuszew_status(const Scenario& sc, const game::View& v) {
  const auto& h = v.header();
  int sent = v.withdrawn_size();
  for (const auto& m : v.artillery()) sent += m.state() == "withdrawn";
  for (const auto& m : v.stukas()) sent += m.state() == "withdrawn";
  std::string out = sent ? std::to_string(sent) + " sent" : "nothing sent";
  const bool admin_pending = h.phase() == "Administrative" && h.step() != "Game over";
  for (const auto& [turn, need] : sc.magnuszew) {
    if (turn < h.turn() || (turn == h.turn() && !admin_pending)) continue;
    return out + "; turn " + std::to_string(turn) + " asks: " + sc.magnuszew_words(turn, WithdrawalWords::Short);
  }
  return out;
}

std::string render_tracks(const Scenario& sc, const game::View& v, const RenderOptions& o) {
  const auto& h = v.header();
  std::string out;
  std::string l1 = "Turn " + std::to_string(h.turn()) + "/" + std::to_string(sc.rules.turns());
  const std::string date = sc.turn_date(h.turn());
  if (!date.empty()) l1 += " (" + date + ")";
  l1 += " | " + (h.phase().empty() ? std::string("-") : h.phase());
  if (!h.step().empty()) l1 += " | " + h.step();
  if (!h.active_corps().empty()) l1 += " | active corps " + h.active_corps();
  if (h.forty_seventh_activated()) l1 += " (47th Army activated this turn)";
  if (h.activated_corps_size()) {
    l1 += " | corps activated:";
    for (const auto& c : h.activated_corps()) l1 += " " + c;
  }
  out += sgr(l1, kBold, o.colour) + "\n";
  std::string vp = "VP Soviet " + std::to_string(h.soviet_vp());
  if (h.soviet_bonus_vp()) vp += " (" + std::to_string(h.soviet_bonus_vp()) + " bonus)";
  vp += ", German " + std::to_string(h.german_vp());
  int soviet_hexes = 0, all_hexes = 0;
  for (const auto& vc : v.victory_control()) {
    ++all_hexes;
    if (vc.find("=SOVIET") != std::string::npos) ++soviet_hexes;
  }
  if (all_hexes)
    vp += " | victory hexes held by the Soviets: " + std::to_string(soviet_hexes) + "/" +
          std::to_string(all_hexes);
  out += vp + "\n";
  std::string l3 =
      "Warsaw Uprising: " + (h.uprising().empty() ? std::string("not started") : h.uprising());
  l3 += " | Magnuszew: " + magnuszew_status(sc, v);
  l3 += std::string(" | Jozefow bridge ") + (h.jozefow_bridge_intact() ? "intact" : "destroyed");
  // FM Model's box on the turn track: his effects serve from that turn on (12).
  if (h.model_turn() > 0) {
    l3 += h.model_turn() <= h.turn() ? " | FM Model at hand"
                                     : " | FM Model from turn " + std::to_string(h.model_turn());
  }
  out += l3 + "\n";
  std::vector<std::string> markers;
  for (const auto& m : v.artillery()) markers.push_back(m.id() + " " + m.state());
  for (const auto& m : v.stukas()) markers.push_back(m.id() + " " + m.state());
  if (!markers.empty()) wrap_append(out, "Artillery and Stukas:", markers, o.width);
  out += "Event cups: Soviet " + std::to_string(h.soviet_cup()) + ", German " +
         std::to_string(h.german_cup()) + "\n";
  if (v.eliminated_size()) {
    std::vector<std::string> e(v.eliminated().begin(), v.eliminated().end());
    wrap_append(out, "Eliminated:", e, o.width);
  }
  if (v.withdrawn_size()) {
    std::vector<std::string> e(v.withdrawn().begin(), v.withdrawn().end());
    wrap_append(out, "Sent to Magnuszew:", e, o.width);
  }
  if (h.options_size()) {
    std::vector<std::string> e(h.options().begin(), h.options().end());
    wrap_append(out, "Optional rules:", e, o.width);
  }
  if (!h.result().empty())
    out += sgr("Result: " + result_with_reason(h.result(), h.result_reason()), kBold, o.colour) +
           "\n";
  return out;
}

std::string render_hands(const Scenario& sc, const game::View& v, const RenderOptions& o) {
  const game::Side me = viewer_side(v);
  std::string out;
  // The player's own hand first, whichever side they play.
  std::vector<const game::HandView*> order;
  for (const auto& hand : v.hands()) {
    if (hand.side() == me) order.insert(order.begin(), &hand);
    else order.push_back(&hand);
  }
  for (const game::HandView* h : order) {
    const auto& hand = *h;
    if (hand.side() == me || (me == game::SIDE_UNSPECIFIED && hand.chits_size())) {
      out += std::string(me == hand.side() ? "Your" : side_word(hand.side())) + " event chits (" +
             std::to_string(hand.held()) + "):";
      if (hand.chits_size() == 0) out += " none";
      out += "\n";
      for (const auto& c : hand.chits()) {
        std::string line = "  " + c;
        if (auto idx = sc.event_index(c)) {
          const auto& e = sc.events[static_cast<size_t>(*idx)];
          line += " - " + e.name;
          if (!e.text.empty()) line += ": " + e.text;
        }
        out += wrap(line, o.width, "    ");  // whole: a chit's text is what the player plays it by
      }
    } else {
      out += side_word(hand.side()) + " player holds " + std::to_string(hand.held()) +
             " event chit" + (hand.held() == 1 ? "" : "s") + ".\n";
    }
  }
  return out;
}

std::string result_with_reason(const std::string& result, const std::string& reason) {
  std::string why = reason;
  if (!why.empty() && why.back() == '.' && !why.ends_with("...")) why.pop_back();
  if (why.empty()) return result;
  if (!result.empty() && why.rfind(result + " ", 0) == 0) return why;
  return result + ": " + why;
}

std::string end_sentence(std::string text) {
  if (text.empty() || (text.back() != '.' && text.back() != '!' && text.back() != '?')) text += ".";
  return text;
}

// The count of a loss, retreat or advance is in steps or hexes, told by the
// prompt: there the candidates are the units, not a number of them to choose.
std::string candidates_label(const game::Decision& d) {
  switch (d.kind()) {
    case game::Decision::ATTACKER_LOSSES:
    case game::Decision::DEFENDER_LOSSES:
      return "Units that may lose steps:";
    case game::Decision::RETREAT:
      return "Units to retreat:";
    case game::Decision::BARRAGE:
      return "Markers that may fire:";
    case game::Decision::DEFENSIVE_SUPPORT:
      return "Markers that may support:";
    case game::Decision::ADVANCE:
      return "Units that may advance:";
    default:
      return d.count() > 0 ? "Choose " + std::to_string(d.count()) + " of:" : "Candidates:";
  }
}

// FM Model's help in an attack (12) is the German's, from his arrival, once a turn.
bool model_may_help(const game::View& v) {
  const auto& h = v.header();
  return v.decision().side() == game::GERMAN && h.model_turn() > 0 && h.turn() >= h.model_turn();
}

std::string decision_hint(const game::View& v) {
  const auto& d = v.decision();
  switch (d.kind()) {
    case game::Decision::CHOOSE_CORPS:
      return "corps CORPS [+47]";
    case game::Decision::MOVEMENT:
      return "move UNIT... HEX... | overrun UNIT... HEX | pd UNIT... | lift UNIT... | reserve "
             "UNIT... | unreserve UNIT... | play CHIT ... | done";
    case game::Decision::BARRAGE:
      return "barrage MARKER HEX | play CHIT ... | done";
    case game::Decision::COMBAT:
      return std::string("attack UNIT... HEX [with MARKER] [chit CHIT] | ") +
             (model_may_help(v) ? "model noncontiguous | " : "") + "play CHIT ... | done";
    case game::Decision::RESERVES:
      return "move UNIT... HEX... | overrun UNIT... HEX | done";
    case game::Decision::BREAK_CONTACT:
      return "break UNIT HEX [UNIT HEX...] | stand";
    case game::Decision::RECOVERY:
      return "recover UNIT [HEX|WARSAW] | done";
    case game::Decision::UPRISING_SUPPRESSION:
      return "suppress UNIT... | done";
    case game::Decision::UPRISING_STEP_LOSS:
    case game::Decision::UPRISING_UNITS_MOVED:
    case game::Decision::MAGNUSZEW:
      return "choose UNIT|MARKER...";
    case game::Decision::GAME_OVER:
      return "";
    case game::Decision::DEFENSIVE_SUPPORT:
      return d.candidates_size() ? "support MARKER [chit CHIT] | support chit CHIT | nosupport" : "support chit CHIT | nosupport";
    case game::Decision::MODEL_REROLL:
      return "reroll | noreroll";
    case game::Decision::ATTACKER_LOSSES:
      return "losses UNIT... (one unit per step)";
    case game::Decision::DEFENDER_LOSSES: {
      // 9: elastic defense is the German's, and the Soviet's only with its optional rule.
      const auto& opts = v.header().options();
      const bool elastic = d.side() == game::GERMAN || std::find(opts.begin(), opts.end(), "red_army_elastic_defense") != opts.end();
      // 9: desperate defense trades retreat hexes for steps: none to trade, no choice. The view says
      // the retreat only in the prompt ("lose 1 step and retreat 0 hexes"); not said there, it is offered.
      const std::string& p = d.prompt();
      bool retreats = true;
      if (auto at = p.find("retreat "); at != std::string::npos) {
        at += 8;
        if (p.compare(at, 3, "of ") == 0) at += 3;
        if (at < p.size() && std::isdigit(static_cast<unsigned char>(p[at]))) {
          int hexes = 0;
          for (; at < p.size() && std::isdigit(static_cast<unsigned char>(p[at])); ++at) hexes = hexes * 10 + (p[at] - '0');
          retreats = hexes > 0;
        }
      }
      std::string hint = "losses UNIT... (a unit per step lost)";
      if (elastic) hint += " | losses elastic N [UNIT...] (N steps become retreat hexes; a unit for each step left)";
      if (retreats) hint += " | losses desperate N UNIT... (N retreat hexes become steps)";
      return hint;
    }
    case game::Decision::RETREAT:
      return "retreat UNIT HEX... [UNIT HEX...]";
    case game::Decision::ADVANCE:
      return "advance UNIT... HEX... | advance (stay)";
    case game::Decision::BARRAGE_LOSS:
      return "choose UNIT";
    default:
      break;
  }
  return "done";
}

std::string render_decision(const game::View& v, const RenderOptions& o) {
  const auto& d = v.decision();
  const game::Side me = viewer_side(v);
  std::string out;
  if (d.kind() == game::Decision::GAME_OVER) {
    return sgr("The game is over. " + v.header().result() +
                   (v.header().result_reason().empty() ? "" : ": " + v.header().result_reason()),
               kBold, o.colour) +
           "\n";
  }
  if (me != game::SIDE_UNSPECIFIED && d.side() == me) {
    const std::string head = "Your decision (" + side_word(me) + "):";
    const std::string text = wrap(head + " " + d.prompt(), o.width, "  ");
    out += sgr(head, "1;33", o.colour) + text.substr(head.size());
    if (d.candidates_size()) {
      std::vector<std::string> c(d.candidates().begin(), d.candidates().end());
      wrap_append(out, "  " + candidates_label(d), c, o.width);
    }
    const std::string hint = decision_hint(v);
    if (!hint.empty()) out += wrap("  Answer: " + hint, o.width, "    ");
    if (d.takebacks() > 0) {
      out += wrap("  undo takes back your last order (" + std::to_string(d.takebacks()) +
                      (d.takebacks() == 1 ? " order may" : " orders may") + " be taken back).",
                  o.width, "    ");
    }
  } else {
    const std::string head = "Waiting for the " + side_word(d.side()) + " player:";
    const std::string text = wrap(head + " " + d.prompt(), o.width, "  ");
    out += sgr(head, kDim, o.colour) + text.substr(head.size());
  }
  return out;
}

std::string render_events(const std::vector<game::Event>& events, const RenderOptions& o) {
  std::string out;
  size_t first = 0;
  if (o.log_lines > 0 && events.size() > static_cast<size_t>(o.log_lines))
    first = events.size() - static_cast<size_t>(o.log_lines);
  const bool marked = o.new_from >= 0 && static_cast<size_t>(o.new_from) < events.size();
  const size_t new_from = marked ? static_cast<size_t>(o.new_from) : events.size();
  if (first > 0) {
    // The mark among those not shown: how many of them are new.
    const std::string unseen = new_from < first ? ", the last " + std::to_string(first - new_from) + " since you last looked" : "";
    out += "  (" + std::to_string(first) + " earlier events" + unseen + ": " + o.whole_log + ")\n";
  }
  const bool timed = !events.empty() && o.event_times.size() == events.size() && o.event_versions.size() == events.size();
  std::string date;  // of the last time printed
  for (size_t i = first; i < events.size(); ++i) {
    const auto& e = events[i];
    if (i == new_from) out += sgr("  -- since you last looked --", "1;33", o.colour) + "\n";
    std::string text = e.text();
    if (o.reader != game::VIEWER_UNSPECIFIED && (e.audience() == game::AUDIENCE_SOVIET || e.audience() == game::AUDIENCE_GERMAN)) {
      const bool soviet = e.audience() == game::AUDIENCE_SOVIET;
      if (o.reader != (soviet ? game::VIEWER_SOVIET : game::VIEWER_GERMAN)) text = (soviet ? "Soviet: " : "German: ") + text;
    }
    if (e.kind() == game::Event::DIE_ROLLED && e.die() > 0 &&
        text.find(std::to_string(e.die())) == std::string::npos) {
      text += " (die " + std::to_string(e.die()) + ")";
    }
    // An order's time before its first event; its other events under that one's text.
    std::string lead = "  ", indent = "    ";
    if (timed) {
      lead = "        ";
      indent = "          ";
      if (i == first || o.event_versions[i] != o.event_versions[i - 1]) {
        const std::string when = utc_minute(o.event_times[i]);
        if (when.substr(0, 10) != date) {
          date = when.substr(0, 10);
          out += sgr("  " + date + " (UTC)", kDim, o.colour) + "\n";
        }
        lead = "  " + when.substr(11) + " ";
      }
    }
    const bool phase = e.kind() == game::Event::PHASE || e.kind() == game::Event::GAME_OVER;
    const std::string wrapped = wrap(lead + text, o.width, indent);
    out += phase ? sgr(wrapped.substr(0, wrapped.size() - 1), kBold, o.colour) + "\n" : wrapped;
  }
  return out;
}

std::string utc_minute(std::int64_t unix_seconds) {
  const std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  char buf[32];
  if (!::gmtime_r(&t, &tm) || std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &tm) == 0) return "(a time out of range)";
  return buf;
}

std::string render_screen(const Scenario& sc, const game::View& v,
                          const std::vector<game::Event>& events, const RenderOptions& o) {
  std::string out;
  out += render_tracks(sc, v, o);
  out += "\n";
  out += o.full ? render_full_map(sc, v, o) : render_map(sc, v, o);
  out += render_stacks(sc, v, o);
  out += render_hands(sc, v, o);
  if (!events.empty()) {
    out += sgr("Game log:", kBold, o.colour) + "\n";
    out += render_events(events, o);
  }
  out += render_decision(v, o);
  return out;
}

std::optional<std::string> render_stack_at(const Scenario& sc, const game::View& v, const std::string& where,
                                           const RenderOptions& o) {
  const auto l = sc.parse_location(where);
  if (!l) return std::nullopt;
  const std::string name = sc.location_name(*l);
  game::View only = v;
  only.clear_stacks();
  for (const auto& st : v.stacks()) {
    if (st.location() == name) *only.add_stacks() = st;
  }
  RenderOptions ro = o;
  ro.full = true;
  const std::string text = render_stacks(sc, only, ro);
  return text.empty() ? "No units at " + name + ".\n" : text;
}

std::string mp_text(int halves) { return std::to_string(halves / 2) + (halves % 2 ? ".5" : ""); }

std::string render_units(const Scenario& sc, const game::View& v, game::Side side) {
  if (side == game::SIDE_UNSPECIFIED) return "You play neither side of this game: no units are yours.\n";
  std::string t;
  for (const auto& st : v.stacks()) {
    if (st.side() != side) continue;
    for (const auto& u : st.units()) {
      // Its state, as the counter and its markers show it on the table.
      std::string state;
      auto note = [&](bool on, const std::string& what) {
        if (on) state += (state.empty() ? " (" : ", ") + what;
      };
      const auto index = sc.unit_index(u.id());
      const int full = index ? static_cast<int>(sc.units[static_cast<size_t>(*index)].steps.size()) : 0;
      note(full > 1 && u.steps() < full, "reduced");
      note(u.moved(), "activated this turn");
      note(u.reserve(), "reserve");
      note(u.prepared_defense(), "prepared defense");
      note(u.disorganized(), "disorganized");
      note(u.out_of_supply(), "out of supply");
      // Its strength as its counter now reads, and the MP it has left while it moves.
      std::string strength = std::to_string(u.combat()) + "-" + std::to_string(u.movement()) + ", " +
                             std::to_string(u.steps()) + (full > 1 ? " of " + std::to_string(full) : std::string()) +
                             (u.steps() == 1 && full <= 1 ? " step" : " steps");
      if (u.movement_left_half() > 0) strength += ", " + mp_text(u.movement_left_half()) + " MP left";
      t += "  " + u.id() + " at " + st.location() + ": " + strength + state + (state.empty() ? "" : ")") + "\n";
    }
  }
  return t.empty() ? "None of your units is on the board.\n" : t;
}

}  // namespace counterattack::cli
