// `gpudoctor fleet`'s output: an aligned text table (worst first), JSON
// (gpudoctor.fleet/v1) and a self-contained HTML page (a node x GPU grid
// coloured by verdict, each cell linking to that GPU's findings, and per
// node a strip of its worst verdict over the window). Pure.
#pragma once

#include <string>

#include "prom/fleet_view.h"

namespace gpudoctor {

std::string RenderFleetText(const FleetView& view, Lang lang, bool color);
std::string RenderFleetJson(const FleetView& view, Lang lang);
std::string RenderFleetHtml(const FleetView& view, Lang lang);
// 0 ok, 1 warning or a stale node, 2 a GPU critical now (as diagnose).
int FleetExitCode(const FleetView& view);

}  // namespace gpudoctor
