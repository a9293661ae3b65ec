#include "view_delta.h"

#include <algorithm>
#include <map>

namespace counterattack {
namespace {

std::string stack_key(const game::StackView& s) { return s.location() + "/" + game::Side_Name(s.side()); }

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
      d.add_removed_stacks(stack_key(before.stacks(i++)));
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
  return d;
}

bool apply_delta(game::View& view, const game::ViewDelta& d) {
  if (d.has_header()) *view.mutable_header() = d.header();
  if (d.has_decision()) *view.mutable_decision() = d.decision();
  if (d.stacks_size() || d.removed_stacks_size()) {
    std::map<std::string, game::StackView> stacks;
    for (const auto& s : view.stacks()) stacks[stack_key(s)] = s;
    for (const auto& key : d.removed_stacks()) {
      if (!stacks.erase(key)) return false;
    }
    for (const auto& s : d.stacks()) stacks[stack_key(s)] = s;
    // Views list stacks in location order; keep that order after patching.
    std::vector<game::StackView> ordered;
    for (auto& [key, s] : stacks) ordered.push_back(std::move(s));
    std::sort(ordered.begin(), ordered.end(), stack_before);
    view.clear_stacks();
    for (auto& s : ordered) *view.add_stacks() = std::move(s);
  }
  if (d.hands_changed()) *view.mutable_hands() = d.hands();
  if (d.markers_changed()) {
    *view.mutable_artillery() = d.artillery();
    *view.mutable_stukas() = d.stukas();
  }
  if (d.boxes_changed()) {
    *view.mutable_eliminated() = d.eliminated();
    *view.mutable_withdrawn() = d.withdrawn();
  }
  return true;
}

bool delta_is_empty(const game::ViewDelta& d) {
  return !d.has_header() && !d.has_decision() && d.stacks_size() == 0 && d.removed_stacks_size() == 0 &&
         !d.hands_changed() && !d.markers_changed() && !d.boxes_changed();
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
