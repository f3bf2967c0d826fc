// The agent's /metrics: Prometheus text exposition (version 0.0.4) or
// OpenMetrics 1.0 of an AgentLiveSnapshot. Pure: the snapshot in, the text out.
// Names are gpudoctor_* in base units; every series of a GPU carries the
// labels gpu (index), uuid, pci_bus_id and model.
#pragma once

#include <string>
#include <string_view>

#include "render/agent_snapshot.h"

namespace gpudoctor {

enum class ExpositionFormat { kPrometheusText, kOpenMetrics };

// OpenMetrics when the Accept header asks for application/openmetrics-text,
// the Prometheus text format otherwise.
ExpositionFormat ChooseExposition(std::string_view accept_header);
const char* ExpositionContentType(ExpositionFormat format);

// A label value with backslash, double quote and newline escaped.
std::string EscapeLabelValue(std::string_view value);

std::string RenderPrometheusMetrics(const AgentLiveSnapshot& snapshot, ExpositionFormat format);

}  // namespace gpudoctor
