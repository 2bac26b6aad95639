// The near-the-limit reference of `scripts/bench`: what reading an NDJSON navigation log costs
// with simdjson (Debian's libsimdjson-dev), doing the work of the bench's DuckDB query and little
// more.
//
//   simdjson-reader [--threads 1|2] FILE
//
// The file is mapped. Every line is parsed whole into simdjson's DOM (strict JSON, UTF-8
// validated); a line that does not parse, or is not an object with a string session_id, counts as
// an error and is skipped (DuckDB's `ignore_errors`). Of each line it reads the fields the DuckDB
// query reads (session_id, seq, event_name, stack, from_route, to_route) and keeps:
//
//   - per session, the last seq: an event whose seq is not the previous event's plus one (or, for
//     a session's first event, not 0) is a seq break;
//   - per session and stack, the last to_route (the route state): a route_push, route_pop or
//     route_replace whose from_route differs from it (null-aware, as SQL's IS DISTINCT FROM) is a
//     from_route mismatch. Unlike the query's window, events are taken in file order, not sorted
//     by seq, so the counts differ only where a session's lines are out of order.
//
// With --threads 2 the file is split in two line-aligned halves, one thread each; the second
// half's first event of each session and stack is compared at the end with the first half's last
// state, so both modes print the same counts:
//
//   events N, sessions N, by_event:NAME N (sorted), from_route_mismatch N, seq_breaks N, errors N,
//   and the simdjson kernel this processor runs (haswell, icelake, ...)
//
// Built by scripts/bench: g++ -O2 -std=c++20 simdjson_reader.cpp -lsimdjson -pthread
#include <simdjson.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

namespace {

struct TransparentHash {
  using is_transparent = void;
  size_t operator()(std::string_view text) const noexcept { return std::hash<std::string_view>{}(text); }
};

template <typename Value>
using StringMap = std::unordered_map<std::string, Value, TransparentHash, std::equal_to<>>;

// A nullable string field: absent and null are the same, as in the query's columns.
using Field = std::optional<std::string_view>;

struct StackState {
  std::string name;
  std::optional<std::string> top;  // the last to_route seen on this stack
  // The stack's first event in this part of the file, compared when the parts are joined.
  bool first_is_move = false;
  std::optional<std::string> first_from;
};

struct SessionState {
  int64_t first_seq = 0;
  int64_t last_seq = 0;
  std::vector<StackState> stacks;
};

struct Part {
  uint64_t events = 0;
  uint64_t errors = 0;
  uint64_t mismatches = 0;  // within the part, not counting each stack's first event
  uint64_t seq_breaks = 0;  // within the part, not counting each session's first event
  StringMap<uint64_t> by_event;
  StringMap<SessionState> sessions;
};

bool is_move(std::string_view event) {
  return event == "route_push" || event == "route_pop" || event == "route_replace";
}

bool same(const std::optional<std::string>& kept, const Field& field) {
  if (!kept || !field) return !kept && !field;
  return *kept == *field;
}

Field nullable_string(simdjson::dom::object& object, std::string_view key) {
  std::string_view value;
  if (object[key].get_string().get(value) != simdjson::SUCCESS) return std::nullopt;
  return value;
}

void read_line(simdjson::dom::parser& parser, const char* line, size_t length, bool padded, Part& part) {
  simdjson::dom::element root;
  auto error = parser.parse(line, length, !padded).get(root);
  simdjson::dom::object object;
  std::string_view session_id;
  if (error || root.get_object().get(object) || object["session_id"].get_string().get(session_id)) {
    part.errors++;
    return;
  }
  int64_t seq = -1;
  if (object["seq"].get_int64().get(seq)) seq = -1;
  Field event = nullable_string(object, "event_name");
  Field stack = nullable_string(object, "stack");
  Field from = nullable_string(object, "from_route");
  Field to = nullable_string(object, "to_route");

  part.events++;
  std::string_view event_name = event.value_or("");
  auto counted = part.by_event.find(event_name);
  if (counted == part.by_event.end()) counted = part.by_event.emplace(std::string(event_name), 0).first;
  counted->second++;

  auto found = part.sessions.find(session_id);
  if (found == part.sessions.end()) {
    found = part.sessions.emplace(std::string(session_id), SessionState{}).first;
    found->second.first_seq = seq;
  } else if (seq != found->second.last_seq + 1) {
    part.seq_breaks++;
  }
  SessionState& session = found->second;
  session.last_seq = seq;
  if (!stack) return;
  auto state = std::find_if(session.stacks.begin(), session.stacks.end(),
                            [&](const StackState& each) { return each.name == *stack; });
  bool move = event && is_move(*event);
  if (state == session.stacks.end()) {
    StackState fresh;
    fresh.name = std::string(*stack);
    fresh.first_is_move = move;
    if (from) fresh.first_from = std::string(*from);
    session.stacks.push_back(std::move(fresh));
    state = session.stacks.end() - 1;
  } else if (move && !same(state->top, from)) {
    part.mismatches++;
  }
  if (to) {
    state->top = std::string(*to);
  } else {
    state->top.reset();
  }
}

// Reads the lines of [begin, end); `limit` is the end of the mapping (a line that ends at least
// SIMDJSON_PADDING bytes before it is parsed in place, the others from a copy).
void read_part(const char* begin, const char* end, const char* limit, Part& part) {
  simdjson::dom::parser parser;
  const char* cursor = begin;
  while (cursor < end) {
    const char* newline = static_cast<const char*>(std::memchr(cursor, '\n', end - cursor));
    const char* line_end = newline ? newline : end;
    size_t length = line_end - cursor;
    if (length > 0) {
      read_line(parser, cursor, length, line_end + simdjson::SIMDJSON_PADDING <= limit, part);
    }
    cursor = newline ? newline + 1 : end;
  }
}

const StackState* stack_named(const SessionState& session, const std::string& name) {
  for (const auto& each : session.stacks) {
    if (each.name == name) return &each;
  }
  return nullptr;
}

// Counts each session's first event and each stack's first event of `later` against `earlier`
// (the state at the end of the part before it, or none), then folds `later` into `earlier`.
void join(Part& earlier, const Part& later) {
  earlier.events += later.events;
  earlier.errors += later.errors;
  earlier.mismatches += later.mismatches;
  earlier.seq_breaks += later.seq_breaks;
  for (const auto& [name, count] : later.by_event) earlier.by_event[name] += count;
  for (const auto& [id, session] : later.sessions) {
    auto found = earlier.sessions.find(id);
    const SessionState* before = found == earlier.sessions.end() ? nullptr : &found->second;
    int64_t expected = before ? before->last_seq + 1 : 0;
    if (session.first_seq != expected) earlier.seq_breaks++;
    for (const auto& stack : session.stacks) {
      const StackState* previous = before ? stack_named(*before, stack.name) : nullptr;
      std::optional<std::string> top = previous ? previous->top : std::nullopt;
      Field first_from = stack.first_from ? Field(*stack.first_from) : std::nullopt;
      if (stack.first_is_move && !same(top, first_from)) earlier.mismatches++;
    }
    if (!before) {
      earlier.sessions.emplace(id, session);
      continue;
    }
    SessionState& merged = found->second;
    merged.last_seq = session.last_seq;
    for (const auto& stack : session.stacks) {
      auto kept = std::find_if(merged.stacks.begin(), merged.stacks.end(),
                               [&](const StackState& each) { return each.name == stack.name; });
      if (kept == merged.stacks.end()) {
        merged.stacks.push_back(stack);
      } else {
        kept->top = stack.top;
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 1;
  const char* path = nullptr;
  for (int index = 1; index < argc; index++) {
    std::string_view argument = argv[index];
    if (argument == "--threads" && index + 1 < argc) {
      threads = std::atoi(argv[++index]);
    } else if (!path) {
      path = argv[index];
    } else {
      path = nullptr;
      break;
    }
  }
  if (!path || (threads != 1 && threads != 2)) {
    std::fprintf(stderr, "usage: simdjson-reader [--threads 1|2] FILE\n");
    return 2;
  }
  int descriptor = open(path, O_RDONLY);
  struct stat status;
  if (descriptor < 0 || fstat(descriptor, &status) != 0) {
    std::perror(path);
    return 1;
  }
  size_t size = static_cast<size_t>(status.st_size);
  const char* data = "";
  if (size > 0) {
    void* mapped = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, descriptor, 0);
    if (mapped == MAP_FAILED) {
      std::perror(path);
      return 1;
    }
    madvise(mapped, size, MADV_SEQUENTIAL);
    data = static_cast<const char*>(mapped);
  }
  const char* end = data + size;

  Part first;
  Part second;
  if (threads == 1) {
    read_part(data, end, end, first);
  } else {
    const char* middle = data + size / 2;
    const char* newline = static_cast<const char*>(std::memchr(middle, '\n', end - middle));
    middle = newline ? newline + 1 : end;
    std::thread worker([&] { read_part(middle, end, end, second); });
    read_part(data, middle, end, first);
    worker.join();
  }
  Part total;
  join(total, first);
  join(total, second);

  std::printf("events %llu\n", static_cast<unsigned long long>(total.events));
  std::printf("sessions %zu\n", total.sessions.size());
  std::map<std::string, uint64_t> sorted(total.by_event.begin(), total.by_event.end());
  for (const auto& [name, count] : sorted) {
    std::printf("by_event:%s %llu\n", name.c_str(), static_cast<unsigned long long>(count));
  }
  std::printf("from_route_mismatch %llu\n", static_cast<unsigned long long>(total.mismatches));
  std::printf("seq_breaks %llu\n", static_cast<unsigned long long>(total.seq_breaks));
  std::printf("errors %llu\n", static_cast<unsigned long long>(total.errors));
  std::printf("implementation %s\n", simdjson::get_active_implementation()->name().c_str());
  return 0;
}
