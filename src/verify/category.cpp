#include "ralph/verify/category.h"

namespace ralph::verify {
namespace {

constexpr EnumName<Category::Known> k_names[] = {
    {Category::none, ""},
    {Category::goal_missed, "goal_missed"},
    {Category::incomplete, "incomplete"},
    {Category::rule_violation, "rule_violation"},
    {Category::tone_mismatch, "tone_mismatch"},
    {Category::refusal, "refusal"},
    {Category::test_failed, "test_failed"},
    {Category::check_failed, "check_failed"},
    {Category::no_evidence, "no_evidence"},
    {Category::blocked, "blocked"},
    {Category::timeout, "timeout"},
    {Category::cancelled, "cancelled"},
    {Category::not_runnable, "not_runnable"},
    {Category::malformed, "malformed"},
    {Category::provider_error, "provider_error"},
    {Category::context_budget, "context_budget"},
    {Category::not_judged, "not_judged"},
    {Category::unsupported, "unsupported"},
    {Category::verifier_error, "verifier_error"},
    {Category::internal, "internal"},
};

} // namespace

Category Category::named(std::string_view name) {
  if (const auto known = value_of(k_names, name)) {
    return *known;
  }
  Category category(other);
  category.m_other = name;
  return category;
}

std::string_view Category::name() const {
  return m_known == other ? std::string_view(m_other) : name_of(k_names, m_known);
}

} // namespace ralph::verify
