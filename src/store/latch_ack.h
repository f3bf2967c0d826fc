// Acknowledging latched findings (facts/latch.h): `gpudoctor ack` and the
// agent's API mark a latch acknowledged, with who, when, why and how, in the
// store the agent writes (its own SQLite connection: the agent may be
// running, and holds the store's lock). The latch row stays (the audit log);
// an `acknowledged` event puts it on the report's timeline. The agent drops
// the finding at its next evaluation.
#pragma once

#include <string>
#include <vector>

#include "core/kernel_event.h"
#include "core/result.h"
#include "facts/latch.h"

namespace gpudoctor {

struct AckRequest {
  // "gpu.needs_inspection" or empty: every latched cause; else the finding
  // id of the cause that recurred ("xid.fallen_off_bus").
  std::string finding;
  std::string gpu;     // a --gpu selector (index, bus id, UUID); empty: any GPU
  std::string who;     // the person: the login name, the API's user
  std::string reason;  // why (required, one line)
  std::string via;     // "gpudoctor ack", "the agent's API"
};

// Acknowledges the latches the request names and returns them. Errors (one
// line): no store in data_dir (kNotFound), nothing latched that matches
// (kNotFound, naming what is latched), a request naming latches on several
// GPUs without --gpu (kInvalid, naming them), a store it cannot write
// (kPermission).
Result<std::vector<LatchedFinding>> AcknowledgeLatches(const std::string& data_dir,
                                                       const AckRequest& request, WallTime now);

// The latches open now (for `gpudoctor ack --list` and error messages).
Result<std::vector<LatchedFinding>> ListOpenLatches(const std::string& data_dir, WallTime now);

// "gpu.needs_inspection on GPU 0000:3b:00.0 (GPU-...) for xid.fallen_off_bus (Xid 79) since
// <time>": one line.
std::string DescribeLatch(const LatchedFinding& latch);

}  // namespace gpudoctor
