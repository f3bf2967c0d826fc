# Precompiled headers: the standard library and the third-party headers that
# most of gpudoctor's files include (fmt, nlohmann/json; CLI11 for the
# library; GoogleTest and GoogleMock for the tests). Parsing them once per
# target instead of once per file is most of what a cold build on a small
# machine spends (DEVELOPMENT.md has the figures).
#
# gpudoctor_precompile(TARGET KIND) with KIND model, lib or test. Does nothing
# when GPUDOCTOR_PCH is off. Every file still includes what it uses: the
# precompiled set is an optimisation, not an include list.

set(GPUDOCTOR_PCH_MODEL
    <algorithm> <array> <chrono> <cstdint> <functional> <map> <memory>
    <optional> <set> <string> <string_view> <utility> <variant> <vector>
    <fmt/format.h> <nlohmann/json.hpp>)
set(GPUDOCTOR_PCH_LIB ${GPUDOCTOR_PCH_MODEL} <mutex> <thread> <CLI/CLI.hpp>)
set(GPUDOCTOR_PCH_TEST ${GPUDOCTOR_PCH_LIB} <gtest/gtest.h> <gmock/gmock.h>)

function(gpudoctor_precompile target kind)
  if(NOT GPUDOCTOR_PCH)
    return()
  endif()
  string(TOUPPER "${kind}" upper)
  if(NOT DEFINED GPUDOCTOR_PCH_${upper})
    message(FATAL_ERROR "gpudoctor_precompile: unknown kind '${kind}'")
  endif()
  target_precompile_headers(${target} PRIVATE ${GPUDOCTOR_PCH_${upper}})
endfunction()
