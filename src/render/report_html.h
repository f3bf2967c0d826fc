// The diagnosis report as one self-contained HTML page: no scripts, no
// network fetches, no external fonts (a Content-Security-Policy of
// default-src 'none' says so to the browser). Per GPU, inline SVG charts over
// the window (utilisation, memory, temperature, power, clocks) with kernel
// events and findings marked on the time axis and a min/avg/max table; then
// the findings with evidence and actions, the kernel events, the timeline
// (when given) and what could not be checked. Readable on screen and printed
// (one GPU per page). Every outside string is escaped.
#pragma once

#include <string>

#include "render/report.h"

namespace gpudoctor {

std::string ReportToHtml(const ReportContext& report);

}  // namespace gpudoctor
