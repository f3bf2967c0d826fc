#include "support/kernel_scan_reference.h"

#include "parse/kernel_scan_rules.h"

namespace gpudoctor::test {
namespace {

// The rules answered directly: ParseKernelLine and the catalog's matchers
// on every line, no shortcut.
class ReferenceRules final : public kscan::ScanRules {
 public:
  using ScanRules::ScanRules;

 private:
  KernelLine ParseLine(std::string_view text, const LineTimeContext& ctx) override {
    return ParseKernelLine(text, ctx);
  }
  std::optional<kevents::LineMatch> MatchLine(bool nvrm, std::string_view ident,
                                              std::string_view text) override {
    return nvrm ? kevents::MatchNvrm(text) : kevents::MatchOther(text, ident);
  }
  bool CloseShortcut() override { return false; }
  void Opened(std::string_view, bool, bool) override {}
};

}  // namespace

KernelScanResult ReferenceKernelScan(std::string_view text, const std::string& file,
                                     const ExtractOptions& opts) {
  ReferenceRules rules(opts);
  std::size_t pos = 0, line = 1;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    rules.AddLine(text.substr(pos, nl - pos), SourceRef{file, line++}, std::nullopt, std::nullopt);
    pos = nl + 1;
  }
  KernelScanResult out;
  out.events = rules.Finish();
  out.left_out = rules.events_left_out();
  out.gpu_lines = rules.gpu_line_stats();
  out.nvsmi_messages = rules.nvsmi_messages();
  return out;
}

}  // namespace gpudoctor::test
