// The latches table's rows as LatchedFinding (facts/latch.h), shared by the
// agent's store and `gpudoctor ack`, which writes beside a running agent.
#pragma once

#include <cstdint>
#include <vector>

#include "core/result.h"
#include "facts/latch.h"
#include "store/sqlite_db.h"

namespace gpudoctor {

// The latches not acknowledged at `at_ms`, oldest first. A store older than
// schema 5 has none.
Result<std::vector<LatchedFinding>> ReadOpenLatches(Db& db, std::int64_t at_ms);

}  // namespace gpudoctor
