// The labelled lines under the layer table, shared by the table and Markdown
// writers: summary, roofline, assumptions, warnings. Each item is
// {label, value with its unit}.
#ifndef RIDGELINE_ENGINE_REPORT_SECTIONS_H_
#define RIDGELINE_ENGINE_REPORT_SECTIONS_H_

#include <string>
#include <utility>
#include <vector>

#include "engine/analysis.h"
#include "engine/report/text_table.h"

namespace ridgeline::engine::report {

// Latency, throughput, FLOPs, bytes, intensity, MFU, bound, parameters,
// weight and activation memory, fit.
Items SummaryItems(const Analysis& analysis);
// Ridge point, effective ridge point, memory- / compute- / overhead-bound
// layer counts and their share of layer time.
Items RooflineItems(const Analysis& analysis);
// Every assumption: FLOPs per MAC, efficiencies, taxes, precision and peak,
// bandwidth, the timing formula, the hardware source.
Items AssumptionItems(const Analysis& analysis);
// Unknown ops, unresolved shapes and skipped layers; empty when none.
std::vector<std::string> WarningLines(const Analysis& analysis);

// peak / bandwidth, and (compute_eff * peak) / (memory_eff * bandwidth), in
// FLOP per byte.
double RidgePoint(const Analysis& analysis);
double EffectiveRidgePoint(const Analysis& analysis);

}  // namespace ridgeline::engine::report

#endif  // RIDGELINE_ENGINE_REPORT_SECTIONS_H_
