#include "ralph/verify/judge_context.h"

#include "verify/judge_history.h"

#include "ralph/core/text.h"
#include "ralph/verify/judge_prompt.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>

namespace ralph::verify {
namespace {

using judge_detail::clip;
using judge_detail::ClippedText;
using judge_detail::cut_tail;
using judge_detail::repaired;

constexpr std::string_view k_heartbeat_file = "HEARTBEAT.md";
// Metadata is never trimmed, so its tool list is bounded by design instead: the newest calls
// one per line, the earlier ones counted by name.
constexpr std::size_t k_listed_tools = 30;
constexpr std::size_t k_summarised_names = 8;
// Below this, the newest feedback item is left out rather than cut to a useless stub.
constexpr std::size_t k_min_feedback_item = 200;

// A section rendered with an allowance (bytes of content, or turns), as returned by fit().
struct Fitted {
  std::size_t allowance = 0;
  std::string text;
  bool fits = false;
};

// The largest allowance in [low, high] whose rendering is at most `room` bytes (by binary
// search; the result always fits even where the size is not monotonic in the allowance, e.g.
// when a "cut" note appears). `fits` is false when not even `low` fits.
Fitted fit(const std::function<std::string(std::size_t)>& render, std::size_t low, std::size_t high,
           std::size_t room) {
  std::string text = render(high);
  if (text.size() <= room) {
    return {high, std::move(text), true};
  }
  Fitted best{low, render(low), true};
  if (best.text.size() > room) {
    return {};
  }
  while (high - best.allowance > 1) {
    const std::size_t mid = best.allowance + (high - best.allowance) / 2;
    std::string candidate = render(mid);
    if (candidate.size() <= room) {
      best = {mid, std::move(candidate), true};
    } else {
      high = mid;
    }
  }
  return best;
}

std::string duration_text(std::int64_t ms) {
  if (ms < 1000) {
    return fmt::format("{} ms", ms);
  }
  return fmt::format("{:.1f} s", static_cast<double>(ms) / 1000.0);
}

std::string short_name(std::string_view name) {
  return repaired(utf8_prefix(name, 64));
}

std::string tool_line(std::size_t number, const ToolRecord& tool) {
  std::string outcome;
  if (tool.exit_code) {
    outcome = fmt::format("exit {}", *tool.exit_code);
    if (tool.is_error) {
      outcome += ", failed";
    }
  } else {
    outcome = tool.is_error ? "failed" : "ok";
  }
  return fmt::format("{}. {}: {}, {}{}\n", number, short_name(tool.name), outcome,
                     duration_text(tool.duration_ms),
                     tool.changed_workspace ? ", changed the workspace" : "");
}

std::string render_metadata(const Attempt& attempt) {
  const AttemptMetadata& meta = attempt.metadata;
  std::string out = "<execution_metadata>\n";
  out += fmt::format("attempt: {} of {}\n", attempt.iteration, attempt.max_iterations);
  if (attempt.heartbeat) {
    out += "run: periodic check-in (heartbeat)\n";
  }
  out += fmt::format("stop reason: {}\nduration: {}\nmodel steps: {}\ntool calls: {}\n",
                     meta.stop_reason.empty() ? "unknown" : short_name(meta.stop_reason),
                     duration_text(meta.duration_ms), meta.steps, meta.tool_calls);
  const std::size_t count = attempt.tools.size();
  const std::size_t first_listed = count > k_listed_tools ? count - k_listed_tools : 0;
  if (first_listed > 0) {
    std::map<std::string, int> by_name;
    for (std::size_t i = 0; i < first_listed; ++i) {
      ++by_name[short_name(attempt.tools[i].name)];
    }
    std::string names;
    std::size_t shown = 0;
    for (const auto& [name, calls] : by_name) {
      if (shown++ == k_summarised_names) {
        names += ", …";
        break;
      }
      names += fmt::format("{}{} ×{}", names.empty() ? "" : ", ", name, calls);
    }
    out += fmt::format("first {} tool calls not listed: {}\n", first_listed, names);
  }
  for (std::size_t i = first_listed; i < count; ++i) {
    out += tool_line(i + 1, attempt.tools[i]);
  }
  out += "</execution_metadata>\n\n";
  return out;
}

// The rules files with their content allowances, shared fairly: small files whole, the rest
// split what is left equally (water filling), so one large file cannot push out the others.
std::vector<std::size_t> share(const std::vector<JudgeRulesFile>& files, std::size_t allowance) {
  std::vector<std::size_t> order(files.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return files[a].content.size() < files[b].content.size();
  });
  std::vector<std::size_t> shares(files.size(), 0);
  std::size_t left = allowance;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const std::size_t fair = left / (order.size() - k);
    shares[order[k]] = std::min(files[order[k]].content.size(), fair);
    left -= shares[order[k]];
  }
  return shares;
}

std::string render_rules(const std::vector<JudgeRulesFile>& files, std::size_t allowance) {
  std::string out = "<user_rules>\n";
  if (files.empty()) {
    out += "(no rules files)\n";
  }
  const std::vector<std::size_t> shares = share(files, allowance);
  for (std::size_t i = 0; i < files.size(); ++i) {
    const JudgeRulesFile& file = files[i];
    const std::string name = short_name(file.name);
    if (!file.error.empty()) {
      out += fmt::format("### {} (could not be read: {})\n", name, file.error);
      continue;
    }
    const std::string_view shown = utf8_prefix(file.content, shares[i]);
    out += fmt::format("### {}\n", name);
    if (!shown.empty()) {
      out.append(shown);
      out += '\n';
    }
    const std::size_t whole = std::max(file.size, file.content.size());
    if (shown.size() < whole) {
      out += fmt::format("[… {} cut: showing the first {} of {} chars …]\n", name, shown.size(),
                         whole);
    }
  }
  out += "</user_rules>\n\n";
  return out;
}

// Newest items first into `allowance`; the newest alone is cut when it is too long, older ones
// are kept whole or not at all.
std::string render_feedback(const std::vector<ClippedText>& items, std::size_t allowance) {
  std::vector<std::string> kept; // newest first
  std::size_t used = 0;
  for (std::size_t i = items.size(); i-- > 0;) {
    if (items[i].complete && used + items[i].text.size() <= allowance) {
      kept.push_back(items[i].text);
      used += items[i].text.size();
      continue;
    }
    if (kept.empty() && allowance >= k_min_feedback_item) {
      kept.push_back(cut_tail(items[i], allowance));
    }
    break;
  }
  std::string out = "<previous_feedback>\n(oldest first)\n";
  if (kept.size() < items.size()) {
    out += fmt::format("({} older feedback items omitted)\n", items.size() - kept.size());
  }
  for (auto it = kept.rbegin(); it != kept.rend(); ++it) {
    out += fmt::format("- {}\n", *it);
  }
  out += "</previous_feedback>\n\n";
  return out;
}

std::string render_history(const std::vector<std::string>& turns, int total, std::size_t kept) {
  std::string out = "<history>\n";
  const std::size_t omitted = static_cast<std::size_t>(total) - kept;
  if (omitted > 0) {
    out += fmt::format("({} earlier turns omitted)\n", omitted);
  }
  for (std::size_t i = turns.size() - kept; i < turns.size(); ++i) {
    out += turns[i];
  }
  out += "</history>\n\n";
  return out;
}

std::string render_answer(const ClippedText& answer, std::size_t allowance) {
  if (answer.whole == 0) {
    return "<answer>\n(empty)\n</answer>";
  }
  return fmt::format("<answer>\n{}\n</answer>", cut_tail(answer, allowance));
}

} // namespace

Result<JudgeContext> assemble_judge_context(const Attempt& attempt,
                                            std::span<const JudgeRulesFile> rules,
                                            const JudgeContextOptions& options) {
  JudgeContext context;
  context.system = std::string(judge_system_prompt(options.structured));
  const std::string goal = repaired(attempt.goal);
  const std::string request =
      fmt::format("<request>\n{}\n</request>\n\n", goal.empty() ? "(empty)" : goal);
  const std::string metadata = render_metadata(attempt);
  const ClippedText answer = clip(attempt.answer, options.answer_chars);

  const std::size_t budget = options.context_chars;
  const std::size_t fixed = context.system.size() + request.size() + metadata.size();
  const std::size_t answer_high = std::min(answer.text.size(), options.answer_chars);
  const std::size_t answer_low = std::min(answer_high, options.min_answer_chars);
  const auto answer_at = [&](std::size_t allowance) { return render_answer(answer, allowance); };
  const std::size_t needed = fixed + answer_at(answer_low).size();
  if (needed > budget) {
    return fail(ErrorKind::usage,
                fmt::format("request too long for the judge's context budget of {} chars "
                            "(instructions, request, metadata and a minimal answer need {})",
                            budget, needed));
  }

  // Most important first: each section takes what it can of the room the ones before it left,
  // and once one is cut the less important ones get nothing, so history is the first to go,
  // then rules, then feedback, and the answer's tail last.
  std::size_t room = budget - fixed;
  Fitted answer_part = fit(answer_at, answer_low, answer_high, room);
  room -= answer_part.text.size();
  const std::size_t answer_kept = utf8_prefix(answer.text, answer_part.allowance).size();
  context.answer_chars_trimmed = answer.whole > answer_kept ? answer.whole - answer_kept : 0;
  bool starved = answer_part.allowance < answer_high;
  const auto take = [&](const std::function<std::string(std::size_t)>& render,
                        std::size_t high) -> Fitted {
    if (starved) {
      return {};
    }
    Fitted part = fit(render, 0, high, room);
    starved = !part.fits || part.allowance < high;
    room -= part.text.size();
    return part;
  };

  std::string feedback_part;
  if (!attempt.previous_feedback.empty()) {
    std::vector<ClippedText> items;
    items.reserve(attempt.previous_feedback.size());
    for (const std::string& item : attempt.previous_feedback) {
      items.push_back(clip(item, options.feedback_chars));
    }
    feedback_part =
        take([&](std::size_t a) { return render_feedback(items, a); }, options.feedback_chars).text;
  }

  std::vector<JudgeRulesFile> clean;
  clean.reserve(rules.size());
  for (const JudgeRulesFile& file : rules) {
    if (file.name == k_heartbeat_file && !attempt.heartbeat) {
      continue;
    }
    clean.push_back({file.name, repaired(utf8_prefix(file.content, options.rules_chars)),
                     std::max(file.size, file.content.size()), repaired(file.error)});
  }
  const std::string rules_part =
      take([&](std::size_t a) { return render_rules(clean, a); }, options.rules_chars).text;

  int total_turns = 0;
  const std::vector<std::string> turns =
      judge_detail::render_history_turns(attempt, options.history_turns, total_turns);
  std::string history_part;
  context.history_turns_omitted = total_turns;
  if (total_turns > 0) {
    Fitted history =
        take([&](std::size_t k) { return render_history(turns, total_turns, k); }, turns.size());
    if (history.fits) {
      history_part = std::move(history.text);
      context.history_turns_omitted = total_turns - static_cast<int>(history.allowance);
    }
  }

  context.user.reserve(request.size() + rules_part.size() + history_part.size() + metadata.size() +
                       feedback_part.size() + answer_part.text.size());
  context.user += request;
  context.user += rules_part;
  context.user += history_part;
  context.user += metadata;
  context.user += feedback_part;
  context.user += answer_part.text;
  return context;
}

} // namespace ralph::verify
