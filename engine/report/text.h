// Model text made safe and short for every text output: control characters
// escaped (a model's names are untrusted: "\x1b[2J" must not clear the
// terminal), long names elided in the middle (the distinguishing head and
// tail stay), repeated lines collapsed with a count.
//
//   std::string cell = ElideMiddle(EscapeControl(node.name), 40);
#ifndef RIDGELINE_ENGINE_REPORT_TEXT_H_
#define RIDGELINE_ENGINE_REPORT_TEXT_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ridgeline::engine::report {

// C0 controls, DEL and bytes that are not UTF-8 as "\xHH" (newline, CR and
// tab as "\n", "\r", "\t"), C1 controls (U+0080..U+009F) as "\u0080"..;
// other text unchanged.
std::string EscapeControl(std::string_view text);

// Display width of UTF-8 text: code points, not bytes.
size_t DisplayWidth(std::string_view text);

// `text` cut to at most `width` code points by replacing its middle with
// "..." (a third of the rest kept from the head, two thirds from the tail,
// where exported names differ; cuts on UTF-8 boundaries); unchanged when it
// fits or width < 8.
std::string ElideMiddle(std::string_view text, size_t width);

// Identical lines merged in first-seen order; a repeated one gets
// " (xN)" appended.
std::vector<std::string> CollapseRepeats(const std::vector<std::string>& lines);

}  // namespace ridgeline::engine::report

#endif  // RIDGELINE_ENGINE_REPORT_TEXT_H_
