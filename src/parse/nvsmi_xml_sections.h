// Internal to the nvidia-smi XML parser: one function per section of a <gpu>
// element. Each reads only direct descendants of the <gpu> node it is given
// (never MIG device sub-trees) and leaves absent values null.
#pragma once

#include <pugixml.hpp>
#include <string_view>

#include "core/gpu_status.h"

namespace gpudoctor::nvsmi {

// Text of the element at `path` ("a/b/c") below `node`; empty when absent.
std::string_view ValueAt(pugi::xml_node node, const char* path);

void ParseTemperatures(pugi::xml_node gpu, GpuStatus& out);
void ParsePower(pugi::xml_node gpu, GpuStatus& out);
void ParseClocks(pugi::xml_node gpu, GpuStatus& out);
void ParseClockEventReasons(pugi::xml_node gpu, GpuStatus& out);
void ParseEcc(pugi::xml_node gpu, GpuStatus& out);
void ParseRetiredAndRemapped(pugi::xml_node gpu, GpuStatus& out);
void ParseFabric(pugi::xml_node gpu, GpuStatus& out);  // parse/nvsmi_fabric.h

}  // namespace gpudoctor::nvsmi
