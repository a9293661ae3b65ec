#include "view_delta.h"

#include <algorithm>
#include <utility>

namespace counterattack {
namespace {

// Views hold no maps, so equal messages serialize to equal bytes; comparing
// bytes is many times cheaper than a field-by-field comparison.
bool same(const google::protobuf::MessageLite& a, const google::protobuf::MessageLite& b) {
  return a.ByteSizeLong() == b.ByteSizeLong() && a.SerializeAsString() == b.SerializeAsString();
}

template <typename T>
bool same_list(const google::protobuf::RepeatedPtrField<T>& a, const google::protobuf::RepeatedPtrField<T>& b) {
  if (a.size() != b.size()) return false;
  for (int i = 0; i < a.size(); ++i) {
    if (!same(a.Get(i), b.Get(i))) return false;
  }
  return true;
}

bool same_strings(const google::protobuf::RepeatedPtrField<std::string>& a,
                  const google::protobuf::RepeatedPtrField<std::string>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

}  // namespace

std::string stack_key(const std::string& location, game::Side side) { return location + "/" + game::Side_Name(side); }

bool location_before(const std::string& a, const std::string& b) {
  // Hexes by number, then the other locations by name; no allocation: views sort often.
  auto number = [](const std::string& l) {
    int v = 0;
    for (char c : l) {
      if (c < '0' || c > '9') return -1;
      v = v * 10 + (c - '0');
    }
    return l.empty() ? -1 : v;
  };
  const int na = number(a), nb = number(b);
  if ((na >= 0) != (nb >= 0)) return na >= 0;
  if (na >= 0) return na < nb;
  return a < b;
}

bool stack_before(const game::StackView& a, const game::StackView& b) {
  if (a.location() != b.location()) return location_before(a.location(), b.location());
  return a.side() < b.side();
}

game::ViewDelta diff_views(const game::View& before, const game::View& after) {
  game::ViewDelta d;
  if (!same(before.header(), after.header())) *d.mutable_header() = after.header();
  if (!same(before.decision(), after.decision())) *d.mutable_decision() = after.decision();
  // Both views list stacks in the canonical order: walk them side by side.
  int i = 0, j = 0;
  const int n = before.stacks_size(), m = after.stacks_size();
  while (i < n || j < m) {
    if (j == m || (i < n && stack_before(before.stacks(i), after.stacks(j)))) {
      d.add_removed_stacks(stack_key(before.stacks(i).location(), before.stacks(i).side()));
      ++i;
    } else if (i == n || stack_before(after.stacks(j), before.stacks(i))) {
      *d.add_stacks() = after.stacks(j++);
    } else {
      if (!same(before.stacks(i), after.stacks(j))) *d.add_stacks() = after.stacks(j);
      ++i;
      ++j;
    }
  }
  if (!same_list(before.hands(), after.hands())) {
    d.set_hands_changed(true);
    *d.mutable_hands() = after.hands();
  }
  if (!same_list(before.artillery(), after.artillery()) || !same_list(before.stukas(), after.stukas())) {
    d.set_markers_changed(true);
    *d.mutable_artillery() = after.artillery();
    *d.mutable_stukas() = after.stukas();
  }
  if (!same_strings(before.eliminated(), after.eliminated()) || !same_strings(before.withdrawn(), after.withdrawn())) {
    d.set_boxes_changed(true);
    *d.mutable_eliminated() = after.eliminated();
    *d.mutable_withdrawn() = after.withdrawn();
  }
  if (!same_strings(before.victory_control(), after.victory_control())) {
    d.set_victory_changed(true);
    *d.mutable_victory_control() = after.victory_control();
  }
  return d;
}

bool apply_delta(game::View& view, const game::ViewDelta& d) {
  game::ViewDelta copy = d;
  return apply_delta(view, std::move(copy));
}

// Takes the delta's parts by swapping them in: a reader that parses every
// delta into the same message then allocates almost nothing.
bool apply_delta(game::View& view, game::ViewDelta&& d) {
  if (d.has_header()) view.mutable_header()->Swap(d.mutable_header());
  if (d.has_decision()) view.mutable_decision()->Swap(d.mutable_decision());
  if (d.stacks_size() || d.removed_stacks_size()) {
    // The view and the delta list stacks in the canonical order: merge them.
    std::vector<std::pair<std::string, game::Side>> removed;
    for (const auto& key : d.removed_stacks()) {
      const auto slash = key.rfind('/');
      game::Side side = game::SIDE_UNSPECIFIED;
      if (slash == std::string::npos || !game::Side_Parse(key.substr(slash + 1), &side)) return false;
      removed.emplace_back(key.substr(0, slash), side);
    }
    std::vector<char> found(removed.size(), 0);
    auto same_place = [](const game::StackView& a, const game::StackView& b) {
      return a.side() == b.side() && a.location() == b.location();
    };
    google::protobuf::RepeatedPtrField<game::StackView> merged;
    merged.Reserve(view.stacks_size() + d.stacks_size());
    int j = 0;
    const int n = d.stacks_size();
    for (auto& st : *view.mutable_stacks()) {
      while (j < n && stack_before(d.stacks(j), st)) merged.Add()->Swap(d.mutable_stacks(j++));
      bool gone = false;
      for (size_t k = 0; k < removed.size(); ++k) {
        if (st.side() == removed[k].second && st.location() == removed[k].first) {
          found[k] = 1;
          gone = true;
        }
      }
      if (j < n && same_place(d.stacks(j), st)) {
        merged.Add()->Swap(d.mutable_stacks(j++));
      } else if (!gone) {
        merged.Add()->Swap(&st);
      }
    }
    while (j < n) merged.Add()->Swap(d.mutable_stacks(j++));
    if (std::count(found.begin(), found.end(), 0) != 0) return false;  // removes a stack that is not there
    if (!std::is_sorted(merged.begin(), merged.end(), stack_before)) {
      std::sort(merged.begin(), merged.end(), stack_before);  // a delta out of order: still the same stacks
    }
    view.mutable_stacks()->Swap(&merged);
  }
  if (d.hands_changed()) view.mutable_hands()->Swap(d.mutable_hands());
  if (d.markers_changed()) {
    view.mutable_artillery()->Swap(d.mutable_artillery());
    view.mutable_stukas()->Swap(d.mutable_stukas());
  }
  if (d.boxes_changed()) {
    view.mutable_eliminated()->Swap(d.mutable_eliminated());
    view.mutable_withdrawn()->Swap(d.mutable_withdrawn());
  }
  if (d.victory_changed()) view.mutable_victory_control()->Swap(d.mutable_victory_control());
  return true;
}

bool delta_is_empty(const game::ViewDelta& d) {
  return !d.has_header() && !d.has_decision() && d.stacks_size() == 0 && d.removed_stacks_size() == 0 &&
         !d.hands_changed() && !d.markers_changed() && !d.boxes_changed() && !d.victory_changed();
}

std::vector<game::Event> events_for(const std::vector<game::Event>& events, Viewer viewer) {
  std::vector<game::Event> out;
  for (const auto& e : events) {
    bool ok = false;
    switch (e.audience()) {
      case game::AUDIENCE_ALL: ok = true; break;
      case game::AUDIENCE_SOVIET: ok = viewer == Viewer::Soviet || viewer == Viewer::Omniscient; break;
      case game::AUDIENCE_GERMAN: ok = viewer == Viewer::German || viewer == Viewer::Omniscient; break;
      case game::AUDIENCE_ALL_BUT_SOVIET: ok = viewer == Viewer::German || viewer == Viewer::Spectator; break;
      case game::AUDIENCE_ALL_BUT_GERMAN: ok = viewer == Viewer::Soviet || viewer == Viewer::Spectator; break;
      default: break;
    }
    if (ok) out.push_back(e);
  }
  return out;
}

}  // namespace counterattack
